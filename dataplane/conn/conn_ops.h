/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a record's mode does with it: the operations each mode (splice,
 * proxy, a health probe) registers for the states it owns, as the Linux
 * kernel's struct proto or VPP's session layer lets transports plug in. A
 * segment, a fired timer and a release reach the mode through the record's
 * state, so conn/ and the TCP input call into no mode by name, and the
 * modes are peers that need not include each other.
 *
 * The table is filled once, before any worker runs (worker.c, at its
 * tables' setup), and only read after: no lock. A state no mode registered
 * drops its segments (tcp_unexpected), frees its record when its timer
 * fires, and releases nothing.
 *
 * The hot path: an established spliced segment is forwarded by
 * splice_fast.c without a lookup here, and tcp_in.c calls the splice mode
 * directly for SY_CONN_SPLICED; the other states cost one load and an
 * indirect call, as the switch they replace cost a jump.
 */
#ifndef SY_CONN_OPS_H
#define SY_CONN_OPS_H

#include <stdbool.h>
#include <stdint.h>

#include "conn/conn_t.h"

struct rte_mbuf;
struct sy_dp_conn;
struct sy_worker;

struct sy_conn_ops {
	/* A segment of c from the client leg or the backend leg, data at the
	 * IPv4 header. Consumes m. */
	void (*segment)(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m,
			bool from_client);
	/* c's timer fired (it is off now): arm it again, or free c. */
	void (*timeout)(struct sy_worker *w, struct sy_conn *c);
	/* sy_conn_free of c, after its keys, SNAT port, timer and PEEK buffer
	 * went: give back what the mode holds for it (its state, the other
	 * leg) and end its counts (lb/lb.h load, observe/conn_stats.h). */
	void (*release)(struct sy_worker *w, struct sy_conn *c);
	/* Optional: a SYN (no ACK) from the client on c's 4-tuple. true: c is
	 * gone and the SYN goes to the listener (m not consumed); false: m
	 * was consumed. NULL: the SYN is a segment like any other. */
	bool (*syn)(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m);
	/* Optional: what `routerctl conns` shows of the mode's own state
	 * beyond the record's fields (observe/conn_list.c), into v. Called on
	 * the control thread while the worker runs: read, never write, and
	 * follow pointers only into memory that lives as long as routerd. */
	void (*describe)(const struct sy_worker *w, uint64_t now, const struct sy_conn *c,
			 struct sy_dp_conn *v);
};

/* Indexed by enum sy_conn_state; never NULL (conn_ops.c). */
extern const struct sy_conn_ops *sy_conn_ops[SY_CONN_STATES];

/* state's records go to ops from now on. Before workers run. */
void sy_conn_ops_register(enum sy_conn_state state, const struct sy_conn_ops *ops);

static inline const struct sy_conn_ops *
sy_conn_ops_of(const struct sy_conn *c)
{
	return sy_conn_ops[c->state < SY_CONN_STATES ? c->state : 0];
}

#endif
