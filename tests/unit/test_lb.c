/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load-balancing strategies (control/gen/lb_tables.c, dataplane/lb/lb.c): the
 * alias table's exact shares, round robin's exactness over every window,
 * Maglev's balance and disruption bound, least-connection choices, source
 * affinity, and the picks through sy_lb_pick as the workers make them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "lb/lb.h"
#include "gen/lb_tables.h"
#include "conn/conn_t.h"
#include "sy_generation.h"
#include "worker.h"

static uint64_t
rng_next(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* The alias table's share of endpoint i, computed from the table itself:
 * each column 1/n, split prob / 2^32 to itself and the rest to its alias. */
static void
test_alias_exact(void **state)
{
	static const uint32_t cases[][6] = {
		{ 1, 2, 3, 4, 0, 0 }, { 85, 256, 0, 0, 0, 0 }, { 1, 0, 7, 0, 0, 0 },
		{ 5, 5, 5, 5, 5, 5 }, { 1, 1000000, 3, 0, 0, 0 },
	};
	static const uint32_t ns[] = { 4, 2, 4, 6, 3 };
	size_t c;

	(void)state;
	for (c = 0; c < sizeof(ns) / sizeof(ns[0]); c++) {
		uint32_t n = ns[c], i;
		struct sy_lb_alias t[8];
		double share[8] = { 0 }, total = 0;

		assert_int_equal(sy_lb_alias_build(cases[c], n, t), 0);
		for (i = 0; i < n; i++)
			total += cases[c][i];
		for (i = 0; i < n; i++) {
			double own = (double)t[i].prob / 4294967296.0;

			share[i] += own / n;
			share[t[i].alias] += (1.0 - own) / n;
		}
		for (i = 0; i < n; i++) {
			if (share[i] < cases[c][i] / total - 1e-6 || share[i] > cases[c][i] / total + 1e-6)
				fail_msg("case %zu endpoint %u: share %.9f, weight share %.9f", c, i,
					 share[i], cases[c][i] / total);
			if (cases[c][i] == 0)
				assert_true(share[i] < 1e-9);
		}
	}
}

/* The schedule holds each endpoint exactly weight/gcd times, and its
 * turns are spread over it. */
static void
check_rr(const uint32_t *w, uint32_t n, uint32_t want_len)
{
	uint32_t len = 0, i, j, g = 0, *count = calloc(n, sizeof(*count));
	uint32_t *rr = sy_lb_rr_build(w, n, &len);

	assert_non_null(rr);
	assert_non_null(count);
	assert_int_equal(len, want_len);
	for (i = 0; i < n; i++)
		if (w[i] != 0) {
			uint32_t a = w[i], b = g;

			while (b) {
				uint32_t t = a % b;

				a = b;
				b = t;
			}
			g = a;
		}
	/* A worker walks the schedule round and round, so any window of len
	 * picks is the schedule rotated: the counts over it are exact. */
	for (j = 0; j < len; j++)
		count[rr[j]]++;
	for (i = 0; i < n; i++)
		assert_int_equal(count[i], w[i] / g);
	/* Spread: the heaviest endpoint's turns are interleaved with the
	 * others', never bunched: no gap over twice the even spacing. */
	{
		uint32_t heavy = 0, last = UINT32_MAX, gap_min = UINT32_MAX, gap_max = 0;

		for (i = 1; i < n; i++)
			if (w[i] > w[heavy])
				heavy = i;
		for (j = 0; j < 2 * len; j++) {
			if (rr[j % len] != heavy)
				continue;
			if (last != UINT32_MAX) {
				gap_min = j - last < gap_min ? j - last : gap_min;
				gap_max = j - last > gap_max ? j - last : gap_max;
			}
			last = j;
		}
		(void)gap_min;
		assert_true(gap_max <= 2 * ((len + count[heavy] - 1) / count[heavy]));
	}
	free(rr);
	free(count);
}

static void
test_rr_exact(void **state)
{
	static const uint32_t a[] = { 5, 3, 1 };
	static const uint32_t b[] = { 256, 256, 128 };
	static const uint32_t c[] = { 1, 0, 1, 0 };
	static const uint32_t d[] = { 85, 256 };
	uint32_t *big = malloc(4096 * sizeof(*big)), i, sum = 0;
	uint64_t s = 42;

	(void)state;
	check_rr(a, 3, 9);
	check_rr(b, 3, 5);
	check_rr(c, 4, 2);
	check_rr(d, 2, 341);
	for (i = 0; i < 4096; i++)
		sum += big[i] = 1 + (uint32_t)(rng_next(&s) % 8);
	/* gcd 1: the whole schedule (under SY_LB_RR_MAX) */
	big[0] = 1;
	sum = 0;
	for (i = 0; i < 4096; i++)
		sum += big[i];
	check_rr(big, 4096, sum);
	free(big);
}

static void
keys_for(uint64_t *keys, uint32_t n, uint32_t base)
{
	for (uint32_t i = 0; i < n; i++)
		keys[i] = ((uint64_t)(0xc6120000u + base + i) << 16) | 8080;
}

/* Balanced, and an endpoint less moves about 1/N of the table. */
static void
test_maglev(void **state)
{
	enum { N = 100 };
	uint32_t w[N], m = sy_lb_maglev_len(N), i, moved = 0, lost = 0;
	uint64_t keys[N], keys2[N - 1];
	uint16_t *t1 = malloc(m * 2), *t2 = malloc(m * 2);
	uint32_t count[N] = { 0 };

	(void)state;
	assert_int_equal(m, 65537);
	for (i = 0; i < N; i++)
		w[i] = 1;
	keys_for(keys, N, 0);
	assert_int_equal(sy_lb_maglev_build(keys, w, N, t1, m), 0);
	for (i = 0; i < m; i++) {
		assert_true(t1[i] < N);
		count[t1[i]]++;
	}
	for (i = 0; i < N; i++)
		assert_true(count[i] >= m / N - 1 && count[i] <= m / N + 1);
	/* Without endpoint 37: the others keep their keys. */
	memcpy(keys2, keys, 37 * sizeof(*keys));
	memcpy(keys2 + 37, keys + 38, (N - 38) * sizeof(*keys));
	assert_int_equal(sy_lb_maglev_build(keys2, w, N - 1, t2, m), 0);
	for (i = 0; i < m; i++) {
		uint32_t before = t1[i], after = t2[i] >= 37 ? t2[i] + 1u : t2[i];

		if (before == 37)
			lost++;
		else if (before != after)
			moved++;
	}
	print_message("maglev N=%d M=%u: removing one endpoint moved %u of %u slots it did "
		      "not hold (%.2f%%), its own %u\n", N, m, moved, m - lost,
		      100.0 * moved / (m - lost), lost);
	/* The paper's bound is about 1/N of the rest; allow 3/N. */
	assert_true(moved * N <= 3 * (m - lost));
	/* A small pool grows, 2 -> 3 (lb_strategies.sh does it with clients): a third of
	 * the slots go to the new endpoint, under 1% move between the two that stay. */
	{
		uint32_t m2 = sy_lb_maglev_len(3), to_new = 0, between = 0;

		assert_int_equal(m2, 16411);
		keys_for(keys, 3, 900);
		assert_int_equal(sy_lb_maglev_build(keys, w, 2, t1, m2), 0);
		assert_int_equal(sy_lb_maglev_build(keys, w, 3, t2, m2), 0);
		for (i = 0; i < m2; i++) {
			to_new += t2[i] == 2;
			between += t2[i] != 2 && t2[i] != t1[i];
		}
		print_message("maglev 2 -> 3 endpoints, M=%u: %u slots to the new one, %u between "
			      "the others\n", m2, to_new, between);
		assert_true(to_new >= m2 / 3 - 1 && to_new <= m2 / 3 + 1);
		assert_true(between * 100 <= m2);
	}
	/* Weighted 1:2:1: shares within 1% of the slots. */
	{
		uint32_t w3[3] = { 1, 2, 1 }, c3[3] = { 0 };
		uint32_t m3 = sy_lb_maglev_len(3);

		keys_for(keys, 3, 500);
		assert_int_equal(sy_lb_maglev_build(keys, w3, 3, t1, m3), 0);
		for (i = 0; i < m3; i++)
			c3[t1[i]]++;
		print_message("maglev 1:2:1 over %u slots: %u %u %u\n", m3, c3[0], c3[1], c3[2]);
		assert_true(c3[1] + m3 / 50 > 2 * c3[0] && c3[1] < 2 * c3[0] + m3 / 50);
		assert_true(c3[0] + m3 / 50 > c3[2] && c3[2] + m3 / 50 > c3[0]);
	}
	free(t1);
	free(t2);
}

/* A pool of n endpoints with the given weights and strategy, tables built. */
static struct sy_pool *
pool_new(uint32_t n, const uint32_t *w, enum sy_lb_strategy s)
{
	struct sy_pool *p = calloc(1, sizeof(*p));
	uint32_t i;

	p->endpoints = calloc(n, sizeof(*p->endpoints));
	p->n_endpoints = n;
	p->strategy = s;
	for (i = 0; i < n; i++) {
		p->endpoints[i].addr.family = 2; /* AF_INET */
		p->endpoints[i].addr.v4 = 0x0a0012c6u + (i << 24);
		p->endpoints[i].port = 8080;
		p->endpoints[i].weight = w[i];
		p->total_weight += w[i];
	}
	p->lb = sy_lb_tables_build(p, 2);
	return p;
}

static void
pool_free(struct sy_pool *p)
{
	sy_lb_tables_free(p->lb);
	free(p->endpoints);
	free(p);
}

static struct sy_worker *
worker_new(unsigned id)
{
	struct sy_worker *w = calloc(1, sizeof(*w));

	w->id = id;
	w->tcp.rng = 0x9e3779b97f4a7c15ull + id;
	return w;
}

/* Random: 80/20 and 1/1/1 over 100,000 picks within 1%. */
static void
test_pick_random(void **state)
{
	static const uint32_t w1[] = { 80, 20 }, w2[] = { 1, 1, 1 };
	struct sy_worker *w = worker_new(0);
	struct sy_pool *p = pool_new(2, w1, SY_LB_RANDOM), *q = pool_new(3, w2, SY_LB_DEFAULT);
	uint32_t c[3] = { 0 }, i;
	uint16_t first;

	(void)state;
	assert_non_null(p->lb);
	for (i = 0; i < 100000; i++)
		c[sy_lb_pick(p, w, 0, &first, 0)]++;
	assert_true(c[0] > 79000 && c[0] < 81000);
	memset(c, 0, sizeof(c));
	for (i = 0; i < 99999; i++)
		c[sy_lb_pick(q, w, 0, &first, 0)]++;
	for (i = 0; i < 3; i++)
		assert_true(c[i] > 32333 && c[i] < 34333);
	pool_free(p);
	pool_free(q);
	free(w);
}

/* Round robin through sy_lb_pick: exact per worker over sum(weights) picks,
 * two workers each on their own position. */
static void
test_pick_rr(void **state)
{
	static const uint32_t wt[] = { 4, 1 };
	struct sy_worker *w0 = worker_new(0), *w1 = worker_new(1);
	struct sy_pool *p = pool_new(2, wt, SY_LB_ROUND_ROBIN);
	uint32_t c0[2] = { 0 }, c1[2] = { 0 }, i;
	uint16_t first;

	(void)state;
	assert_non_null(p->lb->rr);
	for (i = 0; i < 3; i++)
		sy_lb_pick(p, w1, 0, &first, 0); /* worker 1 somewhere else */
	for (i = 0; i < 5; i++) {
		c0[sy_lb_pick(p, w0, 0, &first, 0)]++;
		c1[sy_lb_pick(p, w1, 0, &first, 0)]++;
	}
	assert_int_equal(c0[0], 4);
	assert_int_equal(c0[1], 1);
	assert_int_equal(c1[0], 4);
	assert_int_equal(c1[1], 1);
	/* A retry walks on to the other endpoint. */
	assert_int_equal(sy_lb_pick(p, w0, 0, &first, 1), first == 0 ? 1 : 0);
	assert_int_equal(sy_lb_pick(p, w0, 0, &first, 2), -1);
	pool_free(p);
	free(w0);
	free(w1);
}

/* Least connections: with endpoint 0 holding open connections on this
 * worker, new picks go to the others; freed, it takes its share again. */
static void
test_pick_least(void **state)
{
	static const uint32_t wt[] = { 1, 1 };
	struct sy_worker *w = worker_new(0);
	struct sy_pool *p = pool_new(2, wt, SY_LB_LEAST_REQUESTS);
	struct sy_conn *held = calloc(50, sizeof(*held));
	uint32_t c[2] = { 0 }, i;
	uint16_t first;

	(void)state;
	for (i = 0; i < 50; i++) {
		/* as bind_backend does: counted, then named */
		sy_lb_load_set(w, &held[i], p->endpoints[0].addr.v4,
			       rte_cpu_to_be_16(p->endpoints[0].port));
		held[i].backend_ip = p->endpoints[0].addr.v4;
		held[i].backend_port = rte_cpu_to_be_16(p->endpoints[0].port);
	}
	for (i = 0; i < 1000; i++)
		c[sy_lb_pick(p, w, 0, &first, 0)]++;
	/* P2C: endpoint 0 only when both choices are it (1/4). */
	assert_true(c[0] > 180 && c[0] < 320);
	for (i = 0; i < 50; i++)
		sy_lb_load_clear(w, &held[i]);
	for (i = 0; i < SY_LB_LOAD_SLOTS; i++)
		assert_int_equal(w->tcp.lb_load[i], 0);
	pool_free(p);
	free(held);
	free(w);
}

/* Source affinity: one client address, one endpoint, on every worker and
 * after a rebuild; clients spread over the endpoints. */
static void
test_pick_source(void **state)
{
	static const uint32_t wt[] = { 1, 1, 1, 1 };
	struct sy_worker *w0 = worker_new(0), *w1 = worker_new(1);
	struct sy_pool *p = pool_new(4, wt, SY_LB_SOURCE), *q = pool_new(4, wt, SY_LB_SOURCE);
	uint32_t c[4] = { 0 }, ip;
	uint16_t first;

	(void)state;
	assert_non_null(p->lb->maglev);
	for (ip = 0; ip < 4000; ip++) {
		uint32_t client = 0x0a0012c6u + (ip << 8);
		int a = sy_lb_pick(p, w0, client, &first, 0);

		assert_int_equal(sy_lb_pick(p, w1, client, &first, 0), a);
		assert_int_equal(sy_lb_pick(q, w1, client, &first, 0), a);
		c[a]++;
	}
	for (ip = 0; ip < 4; ip++)
		assert_true(c[ip] > 800 && c[ip] < 1200);
	pool_free(p);
	pool_free(q);
	free(w0);
	free(w1);
}

/* Passive health: five failures in a row eject an endpoint from this
 * worker's picks for the base time (then twice that, ...); a success in
 * between starts the count again; when every try is ejected the pick is
 * made anyway (panic). */
static void
test_passive_health(void **state)
{
	static const uint32_t wt[] = { 1, 1 };
	/* Every endpoint may be ejected (the bound: test_eject_bound). */
	struct sy_dp_shared sh = { .tsc_per_ms = 1000, .lb_max_ejected_pct = 100 };
	struct sy_worker *w = worker_new(0);
	struct sy_pool *p = pool_new(2, wt, SY_LB_ROUND_ROBIN);
	uint32_t ip0 = p->endpoints[0].addr.v4, ip1 = p->endpoints[1].addr.v4;
	uint16_t port = rte_cpu_to_be_16(8080), first;
	uint32_t c[2] = { 0 }, i;

	(void)state;
	w->sh = &sh;
	w->now = 1000000;
	for (i = 0; i < 4; i++)
		sy_lb_report(w, ip0, port, 0);
	sy_lb_report(w, ip0, port, 1); /* a success: the count starts again */
	for (i = 0; i < 4; i++)
		sy_lb_report(w, ip0, port, 0);
	assert_int_equal(w->counters.lb_ejections, 0);
	sy_lb_report(w, ip0, port, 0);
	sy_lb_report(w, ip0, port, 0);
	assert_int_equal(w->counters.lb_ejections, 1);
	for (i = 0; i < 100; i++)
		c[sy_lb_pick(p, w, 0, &first, 0)]++;
	assert_int_equal(c[0], 0);
	assert_int_equal(c[1], 100);
	assert_true(w->counters.lb_ejected_avoided >= 49);
	/* Both ejected: picks go on (panic), counted. */
	for (i = 0; i < 5; i++)
		sy_lb_report(w, ip1, port, 0);
	assert_int_not_equal(sy_lb_pick(p, w, 0, &first, 0), -1);
	assert_true(w->counters.lb_panic_picks >= 1);
	/* lb_all_ejected "fail": no pick (503) instead, counted. */
	sh.lb_fail_closed = true;
	assert_int_equal(sy_lb_pick(p, w, 0, &first, 0), -1);
	assert_int_equal(w->counters.lb_all_ejected, 1);
	sh.lb_fail_closed = false;
	/* After the base time endpoint 0 is back; endpoint 1 too. */
	w->now += (uint64_t)SY_LB_EJECT_BASE_MS * 1000 + 1;
	memset(c, 0, sizeof(c));
	for (i = 0; i < 100; i++)
		c[sy_lb_pick(p, w, 0, &first, 0)]++;
	assert_int_equal(c[0], 50);
	assert_int_equal(c[1], 50);
	/* Failing again right away: ejected for twice as long. */
	for (i = 0; i < 5; i++)
		sy_lb_report(w, ip0, port, 0);
	assert_int_equal(w->counters.lb_ejections, 3);
	w->now += (uint64_t)SY_LB_EJECT_BASE_MS * 1000 + 1;
	assert_int_equal(sy_lb_pick(p, w, 0, &first, 0), 1);
	assert_int_equal(sy_lb_pick(p, w, 0, &first, 0), 1);
	w->now += (uint64_t)SY_LB_EJECT_BASE_MS * 1000;
	memset(c, 0, sizeof(c));
	for (i = 0; i < 10; i++)
		c[sy_lb_pick(p, w, 0, &first, 0)]++;
	assert_int_equal(c[0], 5);
	pool_free(p);
	free(w);
}

/* The share of a pool passive health may eject: with lb_max_ejected_percent
 * 50, two of four endpoints are avoided; a third ejection puts the pool past
 * the bound and all four are used again (counted); at 0, one endpoint is
 * always allowed. An endpoint its active checks put down is avoided
 * whatever the bound, and an unhealthy pool panics or fails. */
static void
test_eject_bound(void **state)
{
	static const uint32_t wt[] = { 1, 1, 1, 1 };
	struct sy_dp_shared sh = { .tsc_per_ms = 1000, .lb_max_ejected_pct = 50 };
	struct sy_worker *w = worker_new(0);
	struct sy_pool *p = pool_new(4, wt, SY_LB_ROUND_ROBIN);
	uint16_t port = rte_cpu_to_be_16(8080), first;
	uint32_t c[4] = { 0 }, i, k;

	(void)state;
	w->sh = &sh;
	w->now = 1000000;
	for (k = 0; k < 2; k++)
		for (i = 0; i < SY_LB_EJECT_AFTER; i++)
			sy_lb_report(w, p->endpoints[k].addr.v4, port, 0);
	for (i = 0; i < 100; i++)
		c[sy_lb_pick(p, w, 0, &first, 0)]++;
	assert_int_equal(c[0] + c[1], 0);
	assert_int_equal(c[2], 50);
	assert_int_equal(c[3], 50);
	assert_int_equal(w->counters.lb_eject_bound_ignored, 0);
	/* A third: 3 of 4 > 50%: the ejections are not honoured. */
	for (i = 0; i < SY_LB_EJECT_AFTER; i++)
		sy_lb_report(w, p->endpoints[2].addr.v4, port, 0);
	memset(c, 0, sizeof(c));
	for (i = 0; i < 100; i++)
		c[sy_lb_pick(p, w, 0, &first, 0)]++;
	for (k = 0; k < 4; k++)
		assert_int_equal(c[k], 25);
	assert_int_equal(w->counters.lb_eject_bound_ignored, 75);
	/* At 0%: one ejected endpoint is always allowed, two are not. */
	sh.lb_max_ejected_pct = 0;
	w->now += (uint64_t)SY_LB_EJECT_BASE_MS * 1000 * 2 + 1; /* all back */
	for (i = 0; i < SY_LB_EJECT_AFTER; i++)
		sy_lb_report(w, p->endpoints[3].addr.v4, port, 0);
	memset(c, 0, sizeof(c));
	for (i = 0; i < 90; i++)
		c[sy_lb_pick(p, w, 0, &first, 0)]++;
	assert_int_equal(c[3], 0);
	/* Active health: down endpoints are avoided past any bound. */
	w->now += (uint64_t)SY_LB_EJECT_BASE_MS * 1000 * 4 + 1;
	for (k = 0; k < 3; k++)
		p->endpoints[k].hc_down = 1;
	memset(c, 0, sizeof(c));
	for (i = 0; i < 40; i++)
		c[sy_lb_pick(p, w, 0, &first, 0)]++;
	assert_int_equal(c[3], 40);
	assert_true(w->counters.lb_hc_down_avoided >= 30);
	/* All four down: panic (a pick), or with lb_all_ejected "fail" none. */
	p->endpoints[3].hc_down = 1;
	assert_int_not_equal(sy_lb_pick(p, w, 0, &first, 0), -1);
	sh.lb_fail_closed = true;
	assert_int_equal(sy_lb_pick(p, w, 0, &first, 0), -1);
	/* A connect retry walks past down endpoints too: none left. */
	for (k = 0; k < 3; k++)
		p->endpoints[k].hc_down = 0;
	first = 0;
	assert_int_equal(sy_lb_pick(p, w, 0, &first, 1), 1);
	p->endpoints[1].hc_down = 1;
	assert_int_equal(sy_lb_pick(p, w, 0, &first, 1), 2);
	pool_free(p);
	free(w);
}

/* pod-concurrent-connections (the pool's max_conns): an endpoint at it is
 * not picked, by any strategy or retry; when all are, no pick (503). */
static void
test_max_conns(void **state)
{
	static const uint32_t wt[] = { 1, 1 };
	static const enum sy_lb_strategy strategies[] = { SY_LB_RANDOM, SY_LB_ROUND_ROBIN,
							  SY_LB_LEAST_REQUESTS, SY_LB_SOURCE };
	struct sy_conn held[4];
	unsigned s;

	(void)state;
	for (s = 0; s < sizeof(strategies) / sizeof(strategies[0]); s++) {
		struct sy_worker *w = worker_new(0);
		struct sy_pool *p = pool_new(2, wt, strategies[s]);
		uint32_t i;
		uint16_t first;

		p->max_conns = 2;
		memset(held, 0, sizeof(held));
		/* Endpoint 0 at its bound: every pick is endpoint 1. */
		for (i = 0; i < 2; i++) {
			sy_lb_load_set(w, &held[i], p->endpoints[0].addr.v4,
				       rte_cpu_to_be_16(p->endpoints[0].port));
			held[i].backend_ip = p->endpoints[0].addr.v4;
			held[i].backend_port = rte_cpu_to_be_16(p->endpoints[0].port);
		}
		for (i = 0; i < 200; i++)
			assert_int_equal(sy_lb_pick(p, w, 0x000012c6u | (i << 24), &first, 0), 1); /* 198.18.0.i */
		/* A retry from endpoint 1 finds no other with room. */
		first = 1;
		assert_int_equal(sy_lb_pick(p, w, 0, &first, 1), -1);
		/* Both at their bound: none, counted. */
		for (i = 2; i < 4; i++) {
			sy_lb_load_set(w, &held[i], p->endpoints[1].addr.v4,
				       rte_cpu_to_be_16(p->endpoints[1].port));
			held[i].backend_ip = p->endpoints[1].addr.v4;
			held[i].backend_port = rte_cpu_to_be_16(p->endpoints[1].port);
		}
		assert_int_equal(sy_lb_pick(p, w, 0, &first, 0), -1);
		assert_true(w->counters.lb_all_full >= 1);
		/* One closes: room again. */
		sy_lb_load_clear(w, &held[0]);
		assert_int_equal(sy_lb_pick(p, w, 0, &first, 0), 0);
		for (i = 1; i < 4; i++)
			sy_lb_load_clear(w, &held[i]);
		pool_free(p);
		free(w);
	}
}

/* A sticky cookie's token outlives routerd (clients keep it across a
 * restart or an upgrade): it is splitmix64's finalizer over the endpoint,
 * here computed apart, so a change of the mix (include/sy_mix.h) cannot
 * pass unseen. */
static void
test_cookie_token_stable(void **state)
{
	struct sy_endpoint e;
	uint64_t x;

	(void)state;
	memset(&e, 0, sizeof(e));
	e.addr = sy_addr_v4(0x0a0112c6u); /* 198.18.1.10, network order on x86 */
	e.port = 8080;
	x = ((uint64_t)0x0a0112c6u << 16 | 8080) ^ ((uint64_t)AF_INET << 56) ^ 0x5377697463687964ull;
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	x ^= x >> 31;
	assert_true(sy_lb_cookie_token(&e) == x);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_alias_exact), cmocka_unit_test(test_rr_exact),
		cmocka_unit_test(test_maglev),      cmocka_unit_test(test_pick_random),
		cmocka_unit_test(test_pick_rr),     cmocka_unit_test(test_pick_least),
		cmocka_unit_test(test_pick_source), cmocka_unit_test(test_passive_health),
		cmocka_unit_test(test_eject_bound),
		cmocka_unit_test(test_cookie_token_stable),
		cmocka_unit_test(test_max_conns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
