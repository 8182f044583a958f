/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-source connection limits (src_limit.h). A worker's table is
 * direct-mapped by a hash of (route, source): the route by its counter slot
 * (sy_route_stats.h), stable while its object lives, so counts survive a
 * recompile. A slot in use (a connection open, or counted in the last
 * SY_SRC_EXPIRE_MS) is never taken over by another key: a source whose slot
 * is taken is not limited (fail open, counted src_limit_untracked), rather
 * than limited by another's counts. Like Skipper's ratelimit filters here,
 * each worker counts what it sees: with N workers a client whose
 * connections the NIC spreads over them gets up to N times the limit
 * (docs/operations.md, "Limits today").
 */
#include <string.h>

#include "conn/src_limit.h"
#include "observe/conn_stats.h"
#include "sy_generation.h"
#include "sy_mix.h"
#include "worker.h"

static uint64_t
src_key(uint16_t route_slot, const struct sy_addr *src)
{
	uint64_t k = sy_mix64(((uint64_t)route_slot << 32) ^ src->family);

	if (src->family == AF_INET6) {
		uint64_t a, b;

		memcpy(&a, src->v6, 8);
		memcpy(&b, src->v6 + 8, 8);
		k = sy_mix64(k ^ a) ^ b;
	} else {
		k ^= src->v4;
	}
	return sy_mix64(k) | 1; /* 0 marks a free slot */
}

/* The slot for key, taking a free or expired one; NULL when it is another
 * key's and in use. */
static struct sy_src_slot *
slot_for(struct sy_worker *w, uint64_t key, uint32_t now_s)
{
	struct sy_src_slot *s = &w->tcp.src_slots[key & (SY_SRC_SLOTS - 1)];

	if (s->key == key)
		return s;
	if (s->key != 0 && (s->conn_cur > 0 || now_s - s->last_s < SY_SRC_EXPIRE_MS / 1000)) {
		w->counters.src_limit_untracked++;
		return NULL;
	}
	memset(s, 0, sizeof(*s));
	s->key = key;
	return s;
}

/* One more event in f over periods of `period` ms at now_ms; the count in
 * the sliding window, this one included. */
static uint32_t
freq_add(struct sy_src_freq *f, uint64_t now_ms, uint32_t period)
{
	uint32_t p = (uint32_t)(now_ms / period);
	uint64_t left = period - now_ms % period;

	if (p != f->period) {
		f->prev = p == f->period + 1 ? f->now : 0;
		f->now = 0;
		f->period = p;
	}
	f->now++;
	/* The last period counts for the part of it still in the window. */
	return f->now + (uint32_t)(((uint64_t)f->prev * left + period - 1) / period);
}

static uint64_t
now_ms(const struct sy_worker *w)
{
	return w->now / w->sh->tsc_per_ms;
}

bool
sy_src_conn_admit(struct sy_worker *w, const struct sy_conn *c, const struct sy_rule *rule,
		  const struct sy_addr *src)
{
	const struct sy_rule_more *m = rule->more;
	struct sy_conn_stat *cs = sy_conn_stat(w, c);
	struct sy_src_slot *s;
	uint64_t ms = now_ms(w);
	uint32_t rate;

	if (m == NULL || (m->conn_max == 0 && m->conn_rate_max == 0) || rule->stat_slot == 0 ||
	    cs == NULL || cs->src_slot != 0)
		return true;
	s = slot_for(w, src_key(rule->stat_slot, src), (uint32_t)(ms / 1000));
	if (s == NULL)
		return true;
	s->last_s = (uint32_t)(ms / 1000);
	rate = freq_add(&s->conn, ms, SY_SRC_CONN_RATE_MS);
	if ((m->conn_max != 0 && s->conn_cur >= m->conn_max) ||
	    (m->conn_rate_max != 0 && rate > m->conn_rate_max))
		return false;
	s->conn_cur++;
	cs->src_slot = (uint32_t)(s - w->tcp.src_slots) + 1;
	return true;
}

bool
sy_src_request_admit(struct sy_worker *w, const struct sy_rule *rule, const struct sy_addr *src)
{
	const struct sy_rule_more *m = rule->more;
	struct sy_src_slot *s;
	uint64_t ms = now_ms(w);

	if (m == NULL || m->http_rate_max == 0 || rule->stat_slot == 0)
		return true;
	s = slot_for(w, src_key(rule->stat_slot, src), (uint32_t)(ms / 1000));
	if (s == NULL)
		return true;
	s->last_s = (uint32_t)(ms / 1000);
	return freq_add(&s->http, ms, SY_SRC_HTTP_RATE_MS) <= m->http_rate_max;
}

void
sy_src_conn_end(struct sy_worker *w, struct sy_conn_stat *cs)
{
	struct sy_src_slot *s;

	if (cs->src_slot == 0 || w->tcp.src_slots == NULL)
		return;
	s = &w->tcp.src_slots[cs->src_slot - 1];
	if (s->conn_cur > 0) /* a slot with connections open is never taken over */
		s->conn_cur--;
	cs->src_slot = 0;
}
