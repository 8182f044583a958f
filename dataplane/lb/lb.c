/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Choosing a backend endpoint (lb.h; docs/architecture.md 4.7). Weights are the
 * compiler's per-endpoint spread (OpenShift's calculateServiceWeights,
 * Contour's and Skipper's splits); the strategy decides how the next
 * connection or request follows them.
 */
#include "lb/lb.h"
#include "sy_mix.h"
#include "conn/conn_t.h"
#include "sy_generation.h"
#include "worker.h"

static inline uint64_t
xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

static inline uint32_t
load_slot(uint32_t ip, uint16_t port)
{
	uint64_t h = ((uint64_t)ip << 16 | port) * 0x9e3779b97f4a7c15ull;

	return (uint32_t)(h >> 52) & (SY_LB_LOAD_SLOTS - 1);
}

uint32_t
sy_lb_slot(uint32_t ip, uint16_t port)
{
	return load_slot(ip, port);
}

void
sy_lb_load_set(struct sy_worker *w, struct sy_conn *c, uint32_t ip, uint16_t port)
{
	uint32_t slot = load_slot(ip, port);

	sy_lb_load_clear(w, c);
	w->tcp.lb_load[slot]++;
	w->tcp.lb_opened[slot]++;
	c->flags |= SY_CF_LB_COUNTED;
}

void
sy_lb_load_stream(struct sy_worker *w, uint32_t ip, uint16_t port, bool begin)
{
	uint32_t slot = load_slot(ip, port);

	if (begin) {
		w->tcp.lb_load[slot]++;
		w->tcp.lb_opened[slot]++;
	} else {
		w->tcp.lb_load[slot]--;
	}
}

void
sy_lb_load_clear(struct sy_worker *w, struct sy_conn *c)
{
	if (!(c->flags & SY_CF_LB_COUNTED))
		return;
	w->tcp.lb_load[load_slot(c->backend_ip, c->backend_port)]--;
	c->flags &= (uint8_t)~SY_CF_LB_COUNTED;
}

void
sy_lb_report(struct sy_worker *w, uint32_t ip, uint16_t port, int ok)
{
	struct sy_lb_health *h = &w->tcp.lb_health[load_slot(ip, port)];

	if (ok) {
		h->fails = 0;
		/* Healthy again for a whole base period past its return: the
		 * next ejection is shorter. */
		if (h->ejections > 0 && w->now > h->until + sy_ms_to_tsc(w, SY_LB_EJECT_BASE_MS))
			h->ejections--;
		return;
	}
	if (++h->fails < SY_LB_EJECT_AFTER || w->now < h->until)
		return;
	if (h->ejections < SY_LB_EJECT_MAX)
		h->ejections++;
	h->until = w->now + sy_ms_to_tsc(w, (uint64_t)SY_LB_EJECT_BASE_MS * h->ejections);
	h->fails = 0;
	w->tcp.eject_epoch++; /* pools' counts of ejected endpoints are stale */
	w->counters.lb_ejections++;
}

/* Active checks say it is down (control/health.h), or this worker's
 * passive health ejected it. */
static inline int
hc_down(const struct sy_endpoint *e)
{
	return __atomic_load_n(&e->hc_down, __ATOMIC_RELAXED) != 0;
}

static inline int
passive_ejected(const struct sy_worker *w, const struct sy_endpoint *e)
{
	return w->now < w->tcp.lb_health[load_slot(sy_addr_key32(&e->addr), rte_cpu_to_be_16(e->port))].until;
}

/* Are p's passive ejections honoured on this worker? While at most
 * lb_max_ejected_percent of its endpoints (and always one) are ejected.
 * Counting is O(n): the answer is kept per pool in a small cache for
 * SY_LB_EJECT_COUNT_MS or until the worker ejects another endpoint. */
static bool
ejections_honoured(const struct sy_pool *p, struct sy_worker *w)
{
	struct sy_lb_eject_count *ec =
		&w->tcp.eject_count[((uintptr_t)p >> 6) & (SY_LB_EJECT_COUNT_SLOTS - 1)];
	uint32_t i, n_ej = 0, bound;

	if (ec->pool == p && ec->epoch == w->tcp.eject_epoch && w->now < ec->until)
		return ec->honoured;
	for (i = 0; i < p->n_endpoints; i++)
		n_ej += (uint32_t)passive_ejected(w, &p->endpoints[i]);
	bound = (uint32_t)((uint64_t)p->n_endpoints * (w->sh != NULL ? w->sh->lb_max_ejected_pct : 100) / 100);
	ec->pool = p;
	ec->epoch = w->tcp.eject_epoch;
	ec->until = w->now + sy_ms_to_tsc(w, SY_LB_EJECT_COUNT_MS);
	ec->honoured = n_ej <= (bound > 1 ? bound : 1);
	return ec->honoured;
}

static inline int
ejected(const struct sy_pool *p, struct sy_worker *w, const struct sy_endpoint *e)
{
	if (hc_down(e))
		return 1;
	if (!passive_ejected(w, e))
		return 0;
	if (ejections_honoured(p, w))
		return 1;
	w->counters.lb_eject_bound_ignored++;
	return 0;
}

/* At its pool's max_conns on this worker (pod-concurrent-connections). */
static inline bool
full(const struct sy_pool *p, const struct sy_worker *w, const struct sy_endpoint *e)
{
	return p->max_conns != 0 &&
	       w->tcp.lb_load[load_slot(sy_addr_key32(&e->addr), rte_cpu_to_be_16(e->port))] >=
		       p->max_conns;
}

/* Every endpoint with weight is full: nothing to send a new connection
 * to. HAProxy queues it until timeout queue; we answer at once (503
 * no_endpoint), which is what the queue ends in under sustained load. */
static bool
all_full(const struct sy_pool *p, struct sy_worker *w)
{
	uint32_t i;

	for (i = 0; i < p->n_endpoints; i++)
		if (p->endpoints[i].weight > 0 && !full(p, w, &p->endpoints[i]))
			return false;
	w->counters.lb_all_full++;
	return true;
}

uint64_t
sy_lb_cookie_token(const struct sy_endpoint *e)
{
	/* splitmix64's finalizer over (address, port, family): opaque, not
	 * secret (it names an endpoint, it grants nothing). An IPv6 address
	 * counts by its fold over all 16 bytes, so endpoints in one prefix
	 * differ. */
	return sy_mix64(((uint64_t)sy_addr_key32(&e->addr) << 16 | e->port) ^
			((uint64_t)e->addr.family << 56) ^ 0x5377697463687964ull);
}

int
sy_lb_cookie_find(const struct sy_pool *p, struct sy_worker *w, uint64_t tok)
{
	uint32_t i;

	for (i = 0; i < p->n_endpoints; i++) {
		const struct sy_endpoint *e = &p->endpoints[i];

		if (sy_lb_cookie_token(e) == tok)
			return e->weight > 0 && !ejected(p, w, e) ? (int)i : -1;
	}
	return -1;
}

/* Linear weighted random: pools without tables. */
static int
pick_linear(const struct sy_pool *p, uint64_t r)
{
	uint32_t i, n = p->n_endpoints;

	r %= p->total_weight;
	for (i = 0; i < n; i++) {
		if (r < p->endpoints[i].weight)
			return (int)i;
		r -= p->endpoints[i].weight;
	}
	return (int)n - 1;
}

/* Weighted random in O(1): a column, then its own endpoint or its alias. */
static inline uint32_t
pick_alias(const struct sy_lb_tables *t, uint32_t n, uint64_t r)
{
	uint32_t col = (uint32_t)(((r & 0xffffffffu) * n) >> 32);

	return (uint32_t)(r >> 32) < t->alias[col].prob ? col : t->alias[col].alias;
}

static inline uint32_t
pick_rr(struct sy_lb_tables *t, unsigned worker)
{
	uint32_t *pos = &t->rr_pos[(worker & t->rr_mask) * SY_LB_RR_STRIDE];
	uint32_t ep = t->rr[*pos];

	*pos = *pos + 1 == t->rr_len ? 0 : *pos + 1;
	return ep;
}

/* Power of two choices: the lower open-connection count per unit of
 * weight (cross-multiplied; one more than the count, so an idle heavy
 * endpoint beats an idle light one). */
static inline uint32_t
pick_p2c(const struct sy_pool *p, const struct sy_lb_tables *t, struct sy_worker *w)
{
	uint32_t a = pick_alias(t, p->n_endpoints, xorshift64(&w->tcp.rng));
	uint32_t b = pick_alias(t, p->n_endpoints, xorshift64(&w->tcp.rng));
	const struct sy_endpoint *ea = &p->endpoints[a], *eb = &p->endpoints[b];
	uint64_t la = w->tcp.lb_load[load_slot(sy_addr_key32(&ea->addr), rte_cpu_to_be_16(ea->port))] + 1;
	uint64_t lb = w->tcp.lb_load[load_slot(sy_addr_key32(&eb->addr), rte_cpu_to_be_16(eb->port))] + 1;

	return la * eb->weight <= lb * ea->weight ? a : b;
}

static inline uint32_t
pick_maglev(const struct sy_lb_tables *t, uint32_t client_ip)
{
	uint64_t h = (uint64_t)client_ip * 0x9e3779b97f4a7c15ull;

	return t->maglev[(uint32_t)(h >> 32) % t->maglev_len];
}

/* The first endpoint after i (circularly) with weight that is not ejected,
 * or -1: none is (panic or fail). O(n), and only when the strategy's own
 * choices were all ejected. */
static int
next_usable(const struct sy_pool *p, struct sy_worker *w, uint32_t i)
{
	uint32_t off, n = p->n_endpoints;

	for (off = 1; off <= n; off++) {
		const struct sy_endpoint *e = &p->endpoints[(i + off) % n];

		if (e->weight > 0 && !ejected(p, w, e) && !full(p, w, e))
			return (int)((i + off) % n);
	}
	return -1;
}

int
sy_lb_pick(const struct sy_pool *p, struct sy_worker *w, uint32_t client_ip, uint16_t *first,
	   unsigned tries)
{
	struct sy_lb_tables *t = p->lb;
	uint32_t i, n = p->n_endpoints;

	if (p->total_weight == 0 || n == 0)
		return -1;
	if (p->max_conns != 0 && all_full(p, w))
		return -1;
	if (tries == 0) {
		unsigned k;

		for (k = 0;; k++) {
			if (t == NULL) {
				i = (uint32_t)pick_linear(p, xorshift64(&w->tcp.rng));
			} else if (t->rr != NULL) {
				i = pick_rr(t, w->id);
			} else if (t->maglev != NULL) {
				/* An ejected endpoint's clients move to their
				 * own next choice, the same on every pick. */
				i = pick_maglev(t, client_ip + k * 0x9e3779b9u);
			} else if (p->strategy == SY_LB_WEIGHTED_LEAST_REQUEST ||
				   p->strategy == SY_LB_LEAST_REQUESTS ||
				   p->strategy == SY_LB_POWER_OF_RANDOM_N) {
				i = pick_p2c(p, t, w);
			} else {
				i = pick_alias(t, n, xorshift64(&w->tcp.rng));
			}
			if (!ejected(p, w, &p->endpoints[i]) && !full(p, w, &p->endpoints[i]))
				break;
			if (k == SY_LB_EJECT_REPICKS) {
				/* The strategy kept landing on ejected endpoints:
				 * the next usable one after the last pick, if any. */
				int u = next_usable(p, w, i);

				if (u >= 0) {
					w->counters.lb_ejected_avoided++;
					i = (uint32_t)u;
					break;
				}
				if (w->sh != NULL && w->sh->lb_fail_closed) {
					w->counters.lb_all_ejected++;
					return -1; /* 503: nothing healthy (config) */
				}
				w->counters.lb_panic_picks++;
				/* Panic ignores ejections, never max_conns:
				 * all_full said some endpoint has room. */
				for (k = 0; full(p, w, &p->endpoints[i]) && k < n; k++)
					i = (i + 1) % n;
				break;
			}
			if (hc_down(&p->endpoints[i]))
				w->counters.lb_hc_down_avoided++;
			else
				w->counters.lb_ejected_avoided++;
		}
		*first = (uint16_t)i;
		return (int)i;
	}
	/* A retry: the next endpoint with weight after the first pick. */
	{
		unsigned seen = 0;

		for (i = 1; i < n; i++) {
			const struct sy_endpoint *e = &p->endpoints[(*first + i) % n];

			if (e->weight == 0 || hc_down(e) || full(p, w, e))
				continue; /* nothing to send to, known down, or at max_conns */
			if (++seen == tries)
				return (int)((*first + i) % n);
		}
	}
	return -1;
}
