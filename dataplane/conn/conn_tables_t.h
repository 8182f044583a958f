/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's connection tables, as types only (share-nothing: only the
 * owning worker touches them): the pool of connection records and of PEEK
 * buffers, the flow table (conn/flow_table.h), the SNAT source ports this
 * worker owns (conn/snat.h) and a timer wheel (conn/timer_wheel.h); beside
 * them the per-worker tables of the modes and of what counts connections,
 * set up with them (conn/conn.h, sy_conn_tables_init, and each mode's).
 * struct sy_worker holds one by value (worker_t.h).
 *
 * Size: flows_per_worker records (the config, sh->flows_per_worker), and
 * every table that holds records sized from it when the worker starts (on
 * its socket's hugepages): the hash has one entry per record, the cache two
 * slots per record rounded up to a power of two. Records are found through
 * pointers, never through narrow indexes, so a table past 65,536 needs no
 * other type. The SNAT port array is sized by ports, not records: a worker
 * has at most (65536 - SY_SNAT_PORT_MIN) / n_workers backend legs at once
 * whatever its table holds; the next connection that needs one is answered
 * snat_ports_exhausted. A full table refuses the next connection's record
 * (flow_table_full, splice.c) and leaves the open ones alone.
 */
#ifndef SY_CONN_TABLES_T_H
#define SY_CONN_TABLES_T_H

#include <stdint.h>

#include "sy_addr.h"

#include <rte_reciprocal.h>

#include "conn/conn_t.h"
#include "lb/lb_t.h"
#include "sy_config.h"

struct rte_hash;
struct rte_mempool;
struct px_bucket;
struct px_idle_pool;
struct px_mirror_table;
struct px_h2c_table;
struct sy_hc_table;
struct sy_tls_worker;
struct sy_route_ctr;
struct sy_backend_ctr;

#define SY_PEEK_BUFS 4096          /* connections in PEEK/CONNECTING per worker */
#define SY_SNAT_PORT_MIN 1024
#define SY_WHEEL_SLOTS 4096        /* power of two */
#define SY_WHEEL_TICK_MS 2         /* horizon: 8 s; later expiries re-queue */
#define SY_PX_OUT_MAX 32           /* h2 connections a burst batches output for: SY_RX_BURST */

/*
 * The records: a worker's own array of flows_per_worker, each on its own two
 * cache lines (struct sy_conn is aligned to a line and 128 bytes), free ones
 * on a list through their tnext, last freed first out. Not an rte_mempool:
 * its object header (24 bytes before each object) either packs records
 * across line boundaries, so a forwarded segment reads two lines of its
 * record instead of one, or with cache alignment costs 192 bytes a record.
 * One worker allocates and frees, so a list head is all the pool needs.
 *
 * With IPv6 (a port with an IPv6 address), each record's IPv6 side (struct
 * sy_conn_v6: both legs' addresses, then the next hops) shares a slot of
 * 256 bytes with it (sy_conn_at: the order alternates), where it had been
 * in an array of its own. A spliced IPv6 segment reads a line of each, and
 * in another array they were two cache misses far apart: with 1,000 flows
 * active among 65,536 (perf/pktgen P1's table), in random order, the IPv6
 * segment cost 1.24-1.6 times IPv4's in process and the worker's profile
 * stalled on the second prefetch (too many misses in flight); in one slot,
 * 1.06-1.17 (perf/journal/splice_bench.md, 2026-12-02). The memory is the
 * same: the array had a line pair for every record too. An IPv4 record
 * still reads its one line, in twice the span: at 100,000 flows in process
 * that cost it 3-4 %. Without IPv6 the slots are the records alone.
 */
struct sy_conn_arena {
	uint8_t *mem;         /* n slots of 1 << shift bytes (aligned to that) */
	struct sy_conn *free; /* free records, through tnext */
	uint32_t n;
	uint32_t shift;       /* 7: the record alone; 8: the record and its sy_conn_v6 */
};

/* Record i, and a record's index (for the arrays beside the records). With
 * IPv6, an even slot is the record then its IPv6 side, an odd one the other
 * way round, so the two halves are a record's address XOR 128
 * (sy_conn_v6_of): records on every other line pair, as without IPv6, not
 * every fourth, where an IPv4 record's line would share a quarter of the
 * caches' sets (at 100,000 flows in process it cost IPv4 about 8 cycles a
 * packet). */
static inline struct sy_conn *
sy_conn_at(const struct sy_conn_arena *a, uint32_t i)
{
	const uint32_t odd = a->shift - 7; /* 1 with the IPv6 sides: odd slots swap */

	return (struct sy_conn *)(void *)(a->mem + ((size_t)i << a->shift) +
					  ((size_t)(i & odd) << 7));
}

static inline uint32_t
sy_conn_index(const struct sy_conn_arena *a, const struct sy_conn *c)
{
	return (uint32_t)(((uintptr_t)c - (uintptr_t)a->mem) >> a->shift);
}
_Static_assert(sizeof(struct sy_conn) == 1u << 7 &&
		       sizeof(struct sy_conn) + sizeof(struct sy_conn_v6) == 1u << 8,
	       "sy_conn_arena: a record's slot, alone or with its IPv6 side");

/* What a client connection is counted on (observe/conn_stats.h, which
 * keeps it): one entry a record, same index, in a cold array beside the
 * records (sy_conn_tables.conn_stats). */
struct sy_conn_stat {
	uint16_t route_slot;   /* the route whose active flows count it; 0: none */
	uint16_t backend_slot; /* spliced: its endpoint's counters; 0: none */
	uint32_t isn_c;        /* spliced: the client's ISN */
	uint32_t isn_r;        /* ... and ours towards the client */
	uint32_t src_slot;     /* its source's slot + 1 in src_slots (conn/src_limit.h); 0: none */
	uint32_t idle_ms;      /* spliced: its route's timeout-tunnel; 0: SY_IDLE_TIMEOUT_MS */
};

/* The client as a PROXY protocol header named it (listen.proxy_protocol;
 * peek/proxy_proto.c), in place of the connection's own source: one per
 * record, same index, only when the config asks for the header. */
struct sy_pp_src {
	struct sy_addr addr;
	uint16_t port;   /* network order */
	bool set;
};

/* A worker's tables, w->tcp (the field's name is older than conn/). Client keys in
 * the flow table: one per connection record (the rte_hash is created with
 * flows_per_worker entries). */
struct sy_conn_tables {
	struct rte_hash *flows;   /* client 4-tuple -> record */
	struct rte_hash *flows6;  /* IPv6 client 4-tuple -> record; NULL without IPv6 */
	/* IPv6 backend legs' 4-tuples -> record, for the per-packet path (the
	 * fast path finds them in the SNAT slots, as IPv4's): a table apart,
	 * so that the client table, which every SYN looks up, is no larger
	 * than IPv4's (flow_table.h, sy_flow6_find). */
	struct rte_hash *flows6_b;
	uint64_t *client_cache;   /* cache_mask + 1 tagged record pointers (flow_table.h) */
	uint32_t cache_mask;      /* sy_flow_cache_slots(flows_per_worker) - 1 */
	struct sy_conn **snat_conn; /* (address index, port slot) -> record (backend leg) */
	struct rte_reciprocal snat_div; /* port / n_workers without a divide */
	uint32_t snat_row;          /* slots per row: sy_snat_slots(n_workers) */
	uint8_t n_src;              /* address indexes: the most IPv4 addresses a port has (>= 1) */
	uint8_t n_fifo;             /* free-port FIFOs and snat_conn rows: the most addresses of either family a port has */
	struct sy_conn_arena conns;
	struct rte_mempool *peeks;
	struct rte_mempool *proxies; /* struct sy_proxy (proxy/proxy.h) */
	uint16_t *ports;        /* FIFOs of free SNAT ports, port_cap each, one per address index */
	uint32_t port_cap;
	struct sy_conn *wheel[SY_WHEEL_SLOTS];
	uint64_t wheel_tick;    /* next tick to run */
	uint64_t tick_tsc;      /* TSC per tick */
	uint64_t rng;           /* xorshift state: backend picks */
	struct px_bucket *buckets; /* ratelimit token buckets (proxy/proxy_filter.c) */
	struct px_idle_pool *idle; /* idle backend connections (proxy/px_idle.c) */
	struct sy_hc_table *hc;    /* health check probes, worker 0 only (lb/hc_probe.c) */
	struct px_mirror_table *mirror; /* request mirrors' legs (proxy/px_mirror.c) */
	struct px_h2c_table *h2c;       /* h2c carriers by endpoint (proxy/px_h2_backend.c) */
	/* h2 connections whose client output waits for the end of the RX
	 * burst being read (proxy/px_out.c); px_out_open: one is being read. */
	struct sy_proxy *px_out[SY_PX_OUT_MAX];
	uint8_t n_px_out;
	bool px_out_open;
	uint32_t n_time_wait;   /* records in SY_CONN_PROXY_TIME_WAIT (proxy/px_time_wait.c) */
	uint32_t time_wait_max; /* at most that many: flows / SY_PX_TIME_WAIT_SHARE (tests lower it) */
	struct sy_tls_worker *tls; /* TLS sessions and BIO (tls/tls_internal.h) */
	uint32_t lb_load[SY_LB_LOAD_SLOTS]; /* open backend connections by endpoint hash (lb/lb.h) */
	struct sy_lb_health lb_health[SY_LB_LOAD_SLOTS]; /* passive health, same slots */
	/* Backend connections sent to each slot since start (retries too):
	 * the status page and `routerctl top` make rates of it. */
	uint64_t lb_opened[SY_LB_LOAD_SLOTS];
	struct sy_lb_eject_count eject_count[SY_LB_EJECT_COUNT_SLOTS]; /* lb/lb.h */
	uint32_t eject_epoch; /* ejections made: eject_count entries older are stale */
	struct sy_route_ctr *route_ctr; /* SY_ROUTE_STAT_SLOTS counters (sy_route_stats.h) */
	struct sy_backend_ctr *backend_ctr; /* SY_BACKEND_STAT_SLOTS (sy_backend_stats.h) */
	struct sy_conn_stat *conn_stats; /* one per record, same index (observe/conn_stats.h) */
	struct sy_src_slot *src_slots; /* SY_SRC_SLOTS per-source limits (conn/src_limit.h) */
	struct sy_pp_src *pp_src; /* one per record, same index; NULL without proxy_protocol */
	/* Source addresses (snat.h; cold: a leg's open and close, not its
	 * packets, read these). */
	struct {
		uint32_t head, count;
	} port_q[SY_MAX_PORT_ADDRS]; /* each address index's FIFO in ports */
	uint8_t src_next;       /* where the next leg's search starts */
	uint8_t src_next6;      /* ... the next IPv6 leg's */
	uint8_t n_src_addr;
	uint32_t src_addr[SY_MAX_PORTS * SY_MAX_PORT_ADDRS]; /* every port address ... */
	uint8_t src_k[SY_MAX_PORTS * SY_MAX_PORT_ADDRS];     /* ... and its index */
};

#endif
