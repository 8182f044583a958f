/* SPDX-License-Identifier: BSD-3-Clause */
#include "observe/conn_list.h"

#include <string.h>

#include <rte_byteorder.h>

#include "conn/conn_ops.h"
#include "conn/conn_t.h"
#include "conn/flow_table.h"
#include "worker.h"

static const char *
kind_name(uint8_t s)
{
	static const char *const names[] = {
		[SY_CONN_PEEK] = "peek",
		[SY_CONN_CONNECTING] = "connecting",
		[SY_CONN_SPLICED] = "spliced",
		[SY_CONN_ANSWER] = "answer",
		[SY_CONN_LINGER] = "linger",
		[SY_CONN_PROXY] = "proxy",
		[SY_CONN_PROXY_BE] = "proxy-backend",
		[SY_CONN_PROXY_IDLE] = "proxy-idle",
		[SY_CONN_PROXY_TIME_WAIT] = "proxy-time-wait",
		[SY_CONN_HEALTH_PROBE] = "health-probe",
		[SY_CONN_PROXY_MIRROR] = "proxy-mirror",
		[SY_CONN_PROXY_H2] = "proxy-h2",
	};

	return SY_DP_NAME_OF(names, s);
}

unsigned
sy_conn_list(const struct sy_worker *w, uint64_t now, struct sy_dp_conn *out, unsigned max)
{
	unsigned n = 0;
	uint32_t i;

	for (i = 0; i < w->tcp.conns.n && n < max; i++) {
		const struct sy_conn *c = sy_conn_at(&w->tcp.conns, i);
		struct sy_dp_conn *v = &out[n];
		const struct sy_conn_ops *ops;
		/* Read once: the worker may change it meanwhile. */
		uint8_t state = c->state;

		if (state == 0)
			continue; /* free */
		memset(v, 0, sizeof(*v));
		v->kind = kind_name(state);
		v->client_tcp = v->backend_tcp = v->request = v->response = v->tls = "";
		v->timer_ms = (c->flags & SY_CF_TIMER) ? sy_dp_ms_until(w, now, c->expire) : -1;
		v->deadline_ms = -1;
		/* A backend-only record (proxy-idle, health-probe) has
		 * zeros for the client leg. */
		v->client_ip = rte_be_to_cpu_32(c->client_ip);
		v->listen_ip = rte_be_to_cpu_32(c->vip);
		if (sy_conn_client_v6(c)) {
			const struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);

			v->v6 = true;
			memcpy(v->client6, a->client, 16);
			memcpy(v->listen6, a->vip, 16);
		}
		if (sy_conn_backend_v6(c)) {
			const struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);

			v->backend_v6 = true;
			memcpy(v->backend6, a->backend, 16);
			memcpy(v->snat6, a->snat, 16);
		}
		v->client_port = rte_be_to_cpu_16(c->client_port);
		v->listen_port = rte_be_to_cpu_16(c->vip_port);
		v->backend_ip = rte_be_to_cpu_32(c->backend_ip);
		v->snat_ip = rte_be_to_cpu_32(c->snat_ip);
		v->backend_port = rte_be_to_cpu_16(c->backend_port);
		v->snat_port = rte_be_to_cpu_16(c->snat_port);
		/* The mode's own state (a proxied connection's legs and
		 * exchange): conn/conn_ops.h, describe. */
		ops = sy_conn_ops[state < SY_CONN_STATES ? state : 0];
		if (ops->describe != NULL)
			ops->describe(w, now, c, v);
		n++;
	}
	return n;
}
