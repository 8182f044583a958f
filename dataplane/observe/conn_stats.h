/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a client connection is counted on after its first moments: the
 * route object it is bound to (the route's active flows, sy_route_stats.h)
 * and, spliced, the endpoint it goes to and the ISNs its bytes are measured
 * from (sy_backend_stats.h). Kept in a cold array beside the connection
 * records, one entry a record, same index (sy_conn_tables.conn_stats): the
 * record's two cache lines are full, and forwarding never reads these.
 *
 * A spliced connection's bytes are counted when it ends, from its FINs'
 * sequence numbers less the ISNs (each direction whose FIN the router saw;
 * a connection reset before a FIN leaves that direction uncounted): the
 * fast path keeps no count per segment.
 */
#ifndef SY_DP_CONN_STATS_H
#define SY_DP_CONN_STATS_H

#include <stddef.h>
#include <stdint.h>

#include "worker_t.h"

struct sy_conn;

/* struct sy_conn_stat, the entry, is with the tables that hold it
 * (conn/conn_tables_t.h). */

/* c's entry, or NULL when the worker keeps none (tables not set up) or c
 * is not one of its records. */
static inline struct sy_conn_stat *
sy_conn_stat(struct sy_worker *w, const struct sy_conn *c)
{
	const uint8_t *mem = w->tcp.conns.mem;
	size_t i = sy_conn_index(&w->tcp.conns, c);

	if (w->tcp.conn_stats == NULL || (const uint8_t *)c < mem || i >= w->tcp.conns.n)
		return NULL;
	return &w->tcp.conn_stats[i];
}

/* c is now bound to route slot s (0: to none): it leaves the route it was
 * bound to, if another. */
void sy_conn_stats_bind(struct sy_worker *w, const struct sy_conn *c, uint16_t s);
/* c was spliced to the endpoint of backend slot s (its ISNs are known). */
void sy_conn_stats_spliced(struct sy_worker *w, const struct sy_conn *c, uint16_t s,
			   uint32_t isn_c, uint32_t isn_r);
/* c is done (both ends closed, or it is freed): it leaves its route, and a
 * spliced connection's bytes are counted. Again on the same record: nothing. */
void sy_conn_stats_end(struct sy_worker *w, const struct sy_conn *c);

#endif
