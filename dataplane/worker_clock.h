/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's clock (w->now). Every time a worker keeps is on it: connection
 * idle timeouts, TCP timers, ejections, neighbour states, VRRP's timers,
 * access-log stamps. It is taken from the TSC at the top of each loop
 * iteration, and advances by the TSC's step since the last one, but by at
 * most SY_CLOCK_STEP_MAX_MS.
 *
 * Why the bound: a virtual machine that is snapshotted and resumed can come
 * back with its TSC days ahead while seconds passed for everyone else
 * (perf/journal/pktgen.md, 2026-12-03: idle_cycles grew by 5.3 days between
 * two snapshots of the counters a few seconds apart). On the raw TSC every
 * established flow then found itself idle for days and was closed, every
 * ejection ended and VRRP's master-down timer fired. A step beyond the bound
 * (or backwards, after a migration to a host whose TSC is behind) is a jump:
 * it counts as the bound (backwards as nothing), the rest is left out
 * (clock_skip), and clock_jumps counts it. Nothing a worker does takes that
 * long: its naps are 1 ms at most, and a burst is microseconds. A real stall
 * beyond the bound (the thread descheduled for seconds) loses its excess:
 * timers run that much later, none is cut short.
 *
 * Until the first jump the clock is the TSC itself (clock_skip 0). The
 * control thread reads a worker's clock as the TSC less its clock_skip
 * (sy_dp_worker_clock), so ages it prints from a worker's stamps (routerctl
 * conns, the access log's times, VRRP's master_seen_ms_ago) stay right.
 */
#ifndef SY_WORKER_CLOCK_H
#define SY_WORKER_CLOCK_H

#include <stdbool.h>
#include <stdint.h>

#define SY_CLOCK_STEP_MAX_MS 5000

/* How far the clock moves for a TSC step from `from` to `to`: the step, up
 * to max; max for a longer one, 0 for one backwards (a 64-bit difference
 * that reads as negative). */
static inline uint64_t
sy_clock_step(uint64_t from, uint64_t to, uint64_t max)
{
	const uint64_t step = to - from;

	if (__builtin_expect(step <= max, 1))
		return step;
	return (int64_t)step < 0 ? 0 : max;
}

/* The clock's state: its reading, the TSC it was last taken from, how much
 * TSC it has left out (TSC - now, modulo 2^64), and its bound in TSC. */
struct sy_clock {
	uint64_t now;
	uint64_t tsc;
	uint64_t skip;
	uint64_t max_step;
};

static inline void
sy_clock_init(struct sy_clock *c, uint64_t tsc, uint64_t max_step)
{
	c->now = tsc;
	c->tsc = tsc;
	c->skip = 0;
	c->max_step = max_step;
}

/* The clock at TSC tsc; true when the step was a jump (skip changed). */
static inline bool
sy_clock_tick(struct sy_clock *c, uint64_t tsc)
{
	const uint64_t step = sy_clock_step(c->tsc, tsc, c->max_step);
	const bool jumped = step != tsc - c->tsc;

	c->now += step;
	c->tsc = tsc;
	if (__builtin_expect(jumped, 0))
		c->skip = tsc - c->now;
	return jumped;
}

#endif
