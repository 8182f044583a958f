/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's live connection records as the operator reads them
 * (`routerctl conns`, the control thread's conns op): the way to find a
 * connection that should have ended, and what it waits for, as `ss` or
 * HAProxy's `show sess` is read.
 *
 * The control thread reads the records while the worker runs, without a
 * lock and without asking the worker: records live in the worker's arena
 * and proxy states in its mempool, neither unmapped while routerd runs, so
 * a read may be stale or mix two moments of a busy connection but never
 * touches freed memory; pointers are followed only into those two. An idle
 * connection, the kind one looks for, reads as it is. What a mode keeps
 * beyond the record (a proxied connection's legs) its describe operation
 * says (conn/conn_ops.h; the proxy's in proxy/px_ops.c).
 */
#ifndef SY_DP_CONN_LIST_H
#define SY_DP_CONN_LIST_H

#include <stddef.h>
#include <stdint.h>

#include "sy_dataplane.h"
#include "worker_t.h"

/* names[s] of a state's name table, "unknown" past the table or for a hole
 * in it (the kinds here, a mode's states in its describe). */
#define SY_DP_NAME_OF(names, s)                                                           \
	((size_t)(s) < sizeof(names) / sizeof((names)[0]) && (names)[s] != NULL ? (names)[s] \
										   : "unknown")

/* Milliseconds from now to the TSC t; -1 for 0 (not armed). */
static inline int64_t
sy_dp_ms_until(const struct sy_worker *w, uint64_t now, uint64_t t)
{
	if (t == 0)
		return -1;
	return ((int64_t)(t - now)) / (int64_t)w->sh->tsc_per_ms;
}

/* Up to max of w's live records into out, now being the TSC; how many. */
unsigned sy_conn_list(const struct sy_worker *w, uint64_t now, struct sy_dp_conn *out,
		      unsigned max);

#endif
