/* SPDX-License-Identifier: BSD-3-Clause */
/* Route and backend counting over a connection's life (conn_stats.h). */
#include <stdint.h>

#include "conn/src_limit.h"
#include "observe/conn_stats.h"
#include "conn/conn_t.h"
#include "sy_backend_stats.h"
#include "sy_route_stats.h"

void
sy_conn_stats_bind(struct sy_worker *w, const struct sy_conn *c, uint16_t s)
{
	struct sy_conn_stat *cs = sy_conn_stat(w, c);

	if (cs == NULL)
		return;
	if (cs->route_slot == s)
		return;
	if (cs->route_slot != 0)
		w->tcp.route_ctr[cs->route_slot].flows_closed++;
	if (s != 0)
		w->tcp.route_ctr[s].flows_opened++;
	cs->route_slot = s;
}

void
sy_conn_stats_spliced(struct sy_worker *w, const struct sy_conn *c, uint16_t s, uint32_t isn_c,
		      uint32_t isn_r)
{
	struct sy_conn_stat *cs = sy_conn_stat(w, c);

	if (cs == NULL)
		return;
	cs->backend_slot = s;
	cs->isn_c = isn_c;
	cs->isn_r = isn_r;
	if (s != 0)
		w->tcp.backend_ctr[s].connections++;
}

void
sy_conn_stats_end(struct sy_worker *w, const struct sy_conn *c)
{
	struct sy_conn_stat *cs = sy_conn_stat(w, c);
	uint64_t up = 0, down = 0;

	if (cs == NULL)
		return;
	if (c->flags & SY_CF_SPLICED) {
		/* A FIN's sequence number is the ISN, its SYN, then the bytes. */
		if (c->flags & SY_CF_FIN_CLIENT)
			up = (uint32_t)(c->fin_c - cs->isn_c - 1);
		if (c->flags & SY_CF_FIN_BACKEND)
			down = (uint32_t)(c->fin_b - cs->isn_r - 1);
	}
	if (cs->route_slot != 0) {
		struct sy_route_ctr *r = &w->tcp.route_ctr[cs->route_slot];

		r->flows_closed++;
		r->tr.bytes_in += up;
		r->tr.bytes_out += down;
	}
	if (cs->backend_slot != 0) {
		w->tcp.backend_ctr[cs->backend_slot].tr.bytes_in += up;
		w->tcp.backend_ctr[cs->backend_slot].tr.bytes_out += down;
	}
	cs->route_slot = cs->backend_slot = 0;
	sy_src_conn_end(w, cs); /* its source's open connections (conn/src_limit.h) */
}
