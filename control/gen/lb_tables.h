/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A pool's pick tables (struct sy_lb_tables in sy_generation.h), built by
 * the control thread with the pool, from its endpoints' weights and its
 * strategy; read by the workers (dataplane/lb/lb.c).
 */
#ifndef SY_LB_TABLES_H
#define SY_LB_TABLES_H

#include <stdint.h>

#include "sy_generation.h"

/* Longest round-robin schedule: weights whose gcd-reduced sum is larger are
 * scaled down to it (the shares then hold to within 1/SY_LB_RR_MAX). */
#define SY_LB_RR_MAX 65536

/* The tables p's strategy uses (one block of generation memory;
 * sy_lb_tables_free), or NULL when
 * the pool has no weight or memory ran out (linear weighted random then).
 * workers: how many the router runs (round robin keeps a place for each;
 * at most SY_LB_WORKER_SLOTS). */
struct sy_lb_tables *sy_lb_tables_build(const struct sy_pool *p, unsigned workers);
void sy_lb_tables_free(struct sy_lb_tables *t);
/* The memory t holds (stats). */
size_t sy_lb_tables_bytes(const struct sy_lb_tables *t);
/* The strategy as resolve names it: "random", "round-robin", "least-request",
 * "source" (Maglev over the client address), ... */
const char *sy_lb_strategy_name(enum sy_lb_strategy s);

/* Parts, for tests and perf: each returns 0 or -1 (no memory). */
int sy_lb_alias_build(const uint32_t *w, uint32_t n, struct sy_lb_alias *out);
/* The schedule for weights w: its length in *len (<= SY_LB_RR_MAX). */
uint32_t *sy_lb_rr_build(const uint32_t *w, uint32_t n, uint32_t *len);
/* The Maglev table of length m (a prime > n) for weights w; keys name the
 * endpoints (a hash of address and port), so an endpoint keeps its
 * permutation however the others change. n <= 65535. */
int sy_lb_maglev_build(const uint64_t *keys, const uint32_t *w, uint32_t n, uint16_t *table,
		       uint32_t m);
/* The table length for n endpoints: a prime of at least 1024 n, at most 65537. */
uint32_t sy_lb_maglev_len(uint32_t n);

#endif
