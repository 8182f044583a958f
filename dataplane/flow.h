/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's connection tables (share-nothing: only the owning worker touches
 * them): the flow table, the pool of connection records and of PEEK buffers,
 * the SNAT source ports this worker owns, and a timer wheel.
 *
 * The flow table finds a connection from either leg's tuple:
 *   - client leg: an rte_hash keyed by the client 4-tuple (one writer, so no
 *     locks);
 *   - backend leg: the destination port of a backend's segment is the SNAT
 *     port this worker gave the connection, and a SNAT port belongs to one
 *     connection at a time, so an array indexed by port finds the record
 *     without hashing; the record's backend tuple is then compared in full.
 * One hash key per connection instead of two halves the hash (memory, and
 * cache footprint at 32k flows) and takes the hashing off backend segments.
 *
 * SNAT ports: port % n_workers == worker id, so a backend's reply names its
 * owner in the destination port (DESIGN.md section 4, flow ownership). Free
 * ports are reused first-in first-out, so a port rests as long as possible
 * before it meets the same backend again (its TIME_WAIT).
 */
#ifndef SY_FLOW_H
#define SY_FLOW_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_mempool.h>
#include <rte_reciprocal.h>

#include "conn.h"

struct sy_worker;

#define SY_CONN_MAX 32768          /* records per worker */
#define SY_PEEK_BUFS 4096          /* connections in PEEK/CONNECTING per worker */
#define SY_SNAT_PORT_MIN 1024
#define SY_WHEEL_SLOTS 4096        /* power of two */
#define SY_WHEEL_TICK_MS 2         /* horizon: 8 s; later expiries re-queue */

/* The record pool: one getter and putter (this worker), records packed (no
 * cache alignment, no spreading over memory channels): at 100k flows the
 * footprint matters more than a record straddling two lines. */
#define SY_CONN_POOL_FLAGS                                                             \
	(RTE_MEMPOOL_F_SP_PUT | RTE_MEMPOOL_F_SC_GET | RTE_MEMPOOL_F_NO_CACHE_ALIGN | \
	 RTE_MEMPOOL_F_NO_SPREAD)

/* Client keys in the flow table: one per connection record. */
#define SY_FLOW_HASH_ENTRIES SY_CONN_MAX

/* Slots of a worker's SNAT port -> record array: port / n_workers for every
 * port up to 65535 (a worker's own ports are port % n_workers == id, so
 * they have distinct slots). */
static inline unsigned
sy_snat_slots(unsigned n_workers)
{
	return 65535u / n_workers + 1;
}

struct sy_tcp_worker {
	struct rte_hash *flows;   /* client 4-tuple -> record */
	struct sy_conn **snat_conn; /* SNAT port slot -> record (backend leg) */
	struct rte_reciprocal snat_div; /* port / n_workers without a divide */
	struct rte_mempool *conns;
	struct rte_mempool *peeks;
	uint16_t *ports;        /* FIFO of free SNAT ports */
	uint32_t port_cap, port_head, port_count;
	struct sy_conn *wheel[SY_WHEEL_SLOTS];
	uint64_t wheel_tick;    /* next tick to run */
	uint64_t tick_tsc;      /* TSC per tick */
	uint64_t rng;           /* xorshift state: backend picks */
};

int sy_tcp_worker_init(struct sy_worker *w);
/* Free every connection (sending nothing) and the tables. */
void sy_tcp_worker_fini(struct sy_worker *w);

static inline void
sy_flow_key_v4(struct sy_flow_key *k, uint32_t saddr, uint32_t daddr, uint16_t sport,
	       uint16_t dport)
{
	k->saddr = saddr;
	k->daddr = daddr;
	k->sport = sport;
	k->dport = dport;
	k->zero = 0;
}

/* The hash the flow table uses (flow.c gives rte_hash this function and
 * init value), inline so a burst hashes its keys without indirect calls. */
#define SY_FLOW_HASH_INIT 0
static inline hash_sig_t
sy_flow_hash(const struct sy_flow_key *k)
{
	return rte_hash_crc(k, sizeof(*k), SY_FLOW_HASH_INIT);
}

/* Client leg: the hash. */
struct sy_conn *sy_flow_lookup(struct sy_worker *w, const struct sy_flow_key *k);
int sy_flow_add(struct sy_worker *w, const struct sy_flow_key *k, struct sy_conn *c);
void sy_flow_del(struct sy_worker *w, const struct sy_flow_key *k);

/* Backend leg: c->snat_port (set) now finds c, or no longer does. Sets and
 * clears SY_CF_BACKEND_KEY. */
void sy_flow_backend_add(struct sy_worker *w, struct sy_conn *c);
void sy_flow_backend_del(struct sy_worker *w, struct sy_conn *c);

/* The record whose backend leg is exactly (saddr:sport -> daddr:dport), all
 * network order, or NULL. No hashing: the port names the slot. */
static inline struct sy_conn *
sy_flow_backend_lookup(const struct sy_tcp_worker *t, uint32_t saddr, uint32_t daddr,
		       uint16_t sport, uint16_t dport)
{
	struct sy_conn *c = t->snat_conn[rte_reciprocal_divide(rte_be_to_cpu_16(dport), t->snat_div)];

	if (c != NULL && c->snat_port == dport && c->backend_port == sport &&
	    c->backend_ip == saddr && c->snat_ip == daddr)
		return c;
	return NULL;
}

/* The record a segment (saddr:sport -> daddr:dport) belongs to, and which
 * leg it came on; NULL if none. */
struct sy_conn *sy_flow_find(struct sy_worker *w, uint32_t saddr, uint32_t daddr, uint16_t sport,
			     uint16_t dport, bool *from_client);

/* A zeroed record, counted in flows_active; NULL when the pool is empty. */
struct sy_conn *sy_conn_alloc(struct sy_worker *w);
/* Remove both keys, the timer and the PEEK buffer (freeing held mbufs),
 * return the SNAT port, free the record. */
void sy_conn_free(struct sy_worker *w, struct sy_conn *c);
struct sy_peek_buf *sy_peek_alloc(struct sy_worker *w);
void sy_peek_free(struct sy_worker *w, struct sy_peek_buf *p);
/* Free the held segments, keep the buffer (ANSWER still needs its numbers). */
void sy_peek_release_segments(struct sy_worker *w, struct sy_peek_buf *p);

/* 0 when this worker has no free port (SNAT_PORTS_EXHAUSTED). */
uint16_t sy_snat_port_get(struct sy_worker *w);
void sy_snat_port_put(struct sy_worker *w, uint16_t port);

/* (Re)arm the connection's timer at TSC `when`. */
void sy_conn_timer_set(struct sy_worker *w, struct sy_conn *c, uint64_t when);
void sy_conn_timer_cancel(struct sy_worker *w, struct sy_conn *c);
/* Run the timers that are due: calls sy_splice_timeout() for each. */
unsigned sy_tcp_timers_run(struct sy_worker *w);

#endif
