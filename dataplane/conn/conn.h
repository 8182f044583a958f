/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A connection's record through its life (conn/conn_t.h for the types): the
 * worker's tables set up and torn down, a record taken and given back, its
 * PEEK buffer, and a backend leg of our own TCP opened. The flow table, the
 * SNAT ports and the timer wheel each have a header of their own, included
 * here: a file that works on records includes this one.
 *
 * A record belongs to the mode its state names (splice, proxy, a health
 * probe); sy_conn_free hands it to that mode's release (conn/conn_ops.h),
 * so this folder calls into no mode.
 */
#ifndef SY_CONN_H
#define SY_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "conn/conn_t.h"
#include "conn/conn_tables_t.h"
#include "conn/flow_table.h"
#include "conn/snat.h"
#include "conn/timer_wheel.h"
#include "sy_addr.h"

struct rte_mbuf;
struct sy_tcb;
struct sy_worker;

/* n records, all free, on socket's memory, each with its IPv6 side when v6
 * (conn_tables_t.h). Returns 0, or -ENOMEM. */
int sy_conn_arena_init(struct sy_conn_arena *a, uint32_t n, bool v6, int socket);
void sy_conn_arena_fini(struct sy_conn_arena *a);

/* Records a worker has: flows_per_worker, or the default. */
uint32_t sy_conn_tables_flows(const struct sy_worker *w);

/* The worker's connection tables (conn/conn_tables_t.h) for
 * sy_conn_tables_flows records: 0, or -ENOMEM; the caller logs it (with
 * sy_flow_mem_estimate) and calls sy_conn_tables_fini. The modes set up
 * their own tables after these (worker.c). */
int sy_conn_tables_init(struct sy_worker *w);
/* Free every live record, sending nothing: each through its mode's
 * release, so before the modes' tables go. */
void sy_conn_free_all(struct sy_worker *w);
/* sy_conn_free_all, then the tables; last (it clears all of w->tcp, the
 * modes' pointers too). */
void sy_conn_tables_fini(struct sy_worker *w);

/* What a worker's connection tables take for `flows` records, roughly (the
 * rte_hash's own layout included): what refusing to start names, so the
 * hugepages can be sized. perf/splice_bench measures the real figure. */
size_t sy_flow_mem_estimate(uint32_t flows);

/* A zeroed record, counted in flows_active; NULL when all flows_per_worker
 * are in use (the caller counts flow_table_full). */
struct sy_conn *sy_conn_alloc(struct sy_worker *w);
/* Remove both keys, the timer and the PEEK buffer (freeing held mbufs),
 * return the SNAT port, hand c to its mode's release (conn/conn_ops.h),
 * free the record. */
void sy_conn_free(struct sy_worker *w, struct sy_conn *c);
struct sy_peek_buf *sy_peek_alloc(struct sy_worker *w);
void sy_peek_free(struct sy_worker *w, struct sy_peek_buf *p);
/* Free the held segments, keep the buffer (ANSWER still needs its numbers). */
void sy_peek_release_segments(struct sy_worker *w, struct sy_peek_buf *p);

/*
 * A backend leg of our own TCP (the proxy's, a health check's): a record in
 * `state` for a connection to ip:port (port network order; either family),
 * leaving by the port the FIB names, from a SNAT source of that port (found
 * by it: the backend's replies come back to this worker), and t zeroed and
 * addressed from it; the
 * caller links the record to its owner and sends the SYN (sy_tcb_connect,
 * with *mss). 0, or why not (an answer reason: backend_no_route,
 * flow_table_full, snat_ports_exhausted), with nothing kept.
 */
int sy_backend_leg_open(struct sy_worker *w, const struct sy_addr *ip, uint16_t port,
			uint8_t state, struct sy_tcb *t, struct sy_conn **out, uint16_t *mss);
/* A segment m (data at the IP header) for such a leg, record c, TCB t: its
 * checksum checked (else dropped, counted), c seen, m fed to t (and a SYN
 * answered by a stale ACK sent again). false: m was dropped. Consumes m. */
bool sy_backend_leg_input(struct sy_worker *w, struct sy_conn *c, struct sy_tcb *t,
			  struct rte_mbuf *m);

#endif
