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
 *
 * In front of the hash, a client-leg cache for the established-flow fast
 * path (splice_fast.c): the key's hash picks a pair of slots, each holding a
 * record pointer tagged with 16 more bits of the hash. A burst's client
 * segments find their records with one load each instead of an rte_hash
 * lookup (bucket, then key store). It is only a hint: a tag that
 * misses (the pair was full, or the record was evicted) goes to the hash,
 * and a record found through it is used only if its client tuple matches the
 * segment's field for field, as a hash key would. Records leave it when they
 * are freed, so it never points at a free record.
 *
 * SNAT ports: port % n_workers == worker id, so a backend's reply names its
 * owner in the destination port (docs/architecture.md 4.3, flow ownership). Free
 * ports are reused first-in first-out, so a port rests as long as possible
 * before it meets the same backend again (its TIME_WAIT).
 *
 * Source addresses: every IPv4 address of the port a backend leg leaves by
 * is a SNAT address (config `ports[].ipv4`). A leg's source is (address
 * index k, port): k < that port's address count, a FIFO of free ports per
 * k, and the next leg starts at the next k, so a port rests k times longer
 * before it meets the same backend from the same address. With A addresses
 * on the backend port a worker holds A x (65536 - 1024) / n_workers legs.
 * The port -> record array has a row per index; a backend segment's
 * destination address names its row (sy_snat_index).
 */
#ifndef SY_FLOW_H
#define SY_FLOW_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_mempool.h>
#include <rte_reciprocal.h>
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_2__)
#include <nmmintrin.h>
#endif

#include "splice/conn.h"
#include "sy_config.h"
#include "lb/lb.h"

struct sy_worker;

#define SY_PEEK_BUFS 4096          /* connections in PEEK/CONNECTING per worker */
#define SY_SNAT_PORT_MIN 1024
#define SY_WHEEL_SLOTS 4096        /* power of two */
#define SY_WHEEL_TICK_MS 2         /* horizon: 8 s; later expiries re-queue */

/*
 * The records: a worker's own array of flows_per_worker, each on its own two
 * cache lines (struct sy_conn is aligned to a line and 128 bytes), free ones
 * on a list through their tnext, last freed first out. Not an rte_mempool:
 * its object header (24 bytes before each object) either packs records
 * across line boundaries, so a forwarded segment reads two lines of its
 * record instead of one, or with cache alignment costs 192 bytes a record.
 * One worker allocates and frees, so a list head is all the pool needs.
 */
struct sy_conn_arena {
	struct sy_conn *rec;  /* n records */
	struct sy_conn *free; /* free records, through tnext */
	uint32_t n;
};

/* n records, all free, on socket's memory. Returns 0, or -ENOMEM. */
int sy_conn_arena_init(struct sy_conn_arena *a, uint32_t n, int socket);
void sy_conn_arena_fini(struct sy_conn_arena *a);

/* Client keys in the flow table: one per connection record (the rte_hash
 * is created with flows_per_worker entries). */

/* Slots of a row of a worker's SNAT port -> record array: port / n_workers
 * for every port up to 65535 (a worker's own ports are port % n_workers ==
 * id, so they have distinct slots). One row per source address index. */
static inline unsigned
sy_snat_slots(unsigned n_workers)
{
	return 65535u / n_workers + 1;
}

/* Client-leg cache slots: a power of two, two per pair, at least two per
 * flow. Past 32,768 flows the bits that pick a pair overlap the tag's: it
 * only tells fewer records apart, and a hit is checked field by field. */
static inline uint32_t
sy_flow_cache_slots(uint32_t flows)
{
	return rte_align32pow2(2u * flows);
}

/* What a worker's connection tables take for `flows` records, roughly (the
 * rte_hash's own layout included): what refusing to start names, so the
 * hugepages can be sized. perf/splice_bench measures the real figure. */
size_t sy_flow_mem_estimate(uint32_t flows);

struct sy_tcp_worker {
	struct rte_hash *flows;   /* client 4-tuple -> record */
	uint64_t *client_cache;   /* cache_mask + 1 tagged record pointers (above) */
	uint32_t cache_mask;      /* sy_flow_cache_slots(flows_per_worker) - 1 */
	struct sy_conn **snat_conn; /* (address index, port slot) -> record (backend leg) */
	struct rte_reciprocal snat_div; /* port / n_workers without a divide */
	uint32_t snat_row;          /* slots per row: sy_snat_slots(n_workers) */
	uint8_t n_src;              /* address indexes: the most IPv4 addresses a port has (>= 1) */
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
	/* Source addresses (above; cold: a leg's open and close, not its
	 * packets, read these). */
	struct {
		uint32_t head, count;
	} port_q[SY_MAX_PORT_ADDRS]; /* each address index's FIFO in ports */
	uint8_t src_next;       /* where the next leg's search starts */
	uint8_t n_src_addr;
	uint32_t src_addr[SY_MAX_PORTS * SY_MAX_PORT_ADDRS]; /* every port address ... */
	uint8_t src_k[SY_MAX_PORTS * SY_MAX_PORT_ADDRS];     /* ... and its index */
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

/*
 * The hash the flow table uses (flow.c gives rte_hash rte_hash_crc and this
 * init value): the same two 8-byte CRC steps rte_hash_crc() takes over the
 * 16-byte key, computed from the tuple's values, so a burst hashes its keys
 * without indirect calls and without a key in memory. Reading a key back as
 * 8-byte words right after writing it as 4- and 2-byte fields stalls (no
 * store forwarding), and through rte_hash_crc()'s uint64_t pointer it breaks
 * C's aliasing rules: inlined, gcc -O2 hashed a stale stack slot (a unit
 * test got the same hash for every port).
 */
#define SY_FLOW_HASH_INIT 0

/* The same hash from the key's two 8-byte words as a load sees them: the
 * first is (saddr, daddr) as they lie in an IPv4 header, the second (sport,
 * dport, 0) (splice_fast.c loads them from the packet). CRC32-C either way;
 * where the compiler may use the instruction, without rte_hash_crc's check
 * of which implementation to call. */
static inline hash_sig_t
sy_flow_hash_words(uint64_t w0, uint64_t w1)
{
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_2__)
	return (hash_sig_t)_mm_crc32_u64(_mm_crc32_u64(SY_FLOW_HASH_INIT, w0), w1);
#else
	return rte_hash_crc_8byte(w1, rte_hash_crc_8byte(w0, SY_FLOW_HASH_INIT));
#endif
}

static inline hash_sig_t
sy_flow_hash_v4(uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport)
{
	struct sy_flow_key k;
	uint64_t w[2];

	/* Through memcpy, not a cast: the words are read as the key's bytes
	 * (gcc turns this into shifts and ors on registers). */
	sy_flow_key_v4(&k, saddr, daddr, sport, dport);
	memcpy(w, &k, sizeof(w));
	return sy_flow_hash_words(w[0], w[1]);
}

static inline hash_sig_t
sy_flow_hash(const struct sy_flow_key *k)
{
	return sy_flow_hash_v4(k->saddr, k->daddr, k->sport, k->dport);
}

/* Client leg: the hash. */
struct sy_conn *sy_flow_lookup(struct sy_worker *w, const struct sy_flow_key *k);
/* Adds c under k (its client tuple) to the hash and the cache. */
int sy_flow_add(struct sy_worker *w, const struct sy_flow_key *k, struct sy_conn *c);
/* Removes c, under k, from both. */
void sy_flow_del(struct sy_worker *w, const struct sy_flow_key *k, const struct sy_conn *c);

/* The cache pair for a key's hash, and what a slot holds: the record's
 * address in the low 48 bits (user-space addresses fit), 16 bits of the hash
 * that did not pick the pair above them. */
static inline uint64_t *
sy_flow_cache_pair(const struct sy_tcp_worker *t, hash_sig_t sig)
{
	return &t->client_cache[(sig * 2u) & t->cache_mask];
}

static inline uint64_t
sy_flow_cache_tag(hash_sig_t sig)
{
	return (uint64_t)(sig >> 16) << 48;
}

/* The record in pair whose tag is sig's, or NULL. */
static inline struct sy_conn *
sy_flow_cache_find(const uint64_t *pair, hash_sig_t sig)
{
	const uint64_t addr = (1ull << 48) - 1, tag = sy_flow_cache_tag(sig);
	unsigned i;

	for (i = 0; i < 2; i++)
		if (pair[i] != 0 && (pair[i] & ~addr) == tag)
			return (struct sy_conn *)(uintptr_t)(pair[i] & addr);
	return NULL;
}

/* Backend leg: c->snat_port (set) now finds c, or no longer does. Sets and
 * clears SY_CF_BACKEND_KEY. */
void sy_flow_backend_add(struct sy_worker *w, struct sy_conn *c);
void sy_flow_backend_del(struct sy_worker *w, struct sy_conn *c);

/* The address index of SNAT address addr (network order): its row in
 * snat_conn. One address per port (the common case) needs no search; an
 * address that is not ours gives 0, and the tuple compare then misses. */
static inline unsigned
sy_snat_index(const struct sy_tcp_worker *t, uint32_t addr)
{
	unsigned i;

	if (likely(t->n_src == 1))
		return 0;
	for (i = 0; i < t->n_src_addr; i++)
		if (t->src_addr[i] == addr)
			return t->src_k[i];
	return 0;
}

/* The slot of backend leg (addr, port) (network order) in snat_conn: with
 * one address a port (n_src 1), row 0 and the port alone, as before there
 * were rows (every backend segment of the fast path comes here). */
static inline struct sy_conn **
sy_snat_slot(const struct sy_tcp_worker *t, uint32_t addr, uint16_t port)
{
	struct sy_conn **row = t->snat_conn;

	if (unlikely(t->n_src != 1))
		row += (size_t)sy_snat_index(t, addr) * t->snat_row;
	return &row[rte_reciprocal_divide(rte_be_to_cpu_16(port), t->snat_div)];
}

/* The record whose backend leg is exactly (saddr:sport -> daddr:dport), all
 * network order, or NULL. No hashing: the address and port name the slot. */
static inline struct sy_conn *
sy_flow_backend_lookup(const struct sy_tcp_worker *t, uint32_t saddr, uint32_t daddr,
		       uint16_t sport, uint16_t dport)
{
	struct sy_conn *c = *sy_snat_slot(t, daddr, dport);

	if (c != NULL && c->snat_port == dport && c->backend_port == sport &&
	    c->backend_ip == saddr && c->snat_ip == daddr)
		return c;
	return NULL;
}

/* The record a segment (saddr:sport -> daddr:dport) belongs to, and which
 * leg it came on; NULL if none. */
struct sy_conn *sy_flow_find(struct sy_worker *w, uint32_t saddr, uint32_t daddr, uint16_t sport,
			     uint16_t dport, bool *from_client);

/* A zeroed record, counted in flows_active; NULL when all flows_per_worker
 * are in use (the caller counts flow_table_full). */
struct sy_conn *sy_conn_alloc(struct sy_worker *w);
/* Remove both keys, the timer and the PEEK buffer (freeing held mbufs),
 * return the SNAT port, free the record. */
void sy_conn_free(struct sy_worker *w, struct sy_conn *c);
struct sy_peek_buf *sy_peek_alloc(struct sy_worker *w);
void sy_peek_free(struct sy_worker *w, struct sy_peek_buf *p);
/* Free the held segments, keep the buffer (ANSWER still needs its numbers). */
void sy_peek_release_segments(struct sy_worker *w, struct sy_peek_buf *p);

struct sy_dp_port;
/* A source for a backend leg leaving by port `out`: the SNAT port (host
 * order) and *addr (network order), the next address index with a free port;
 * 0 when there is none (SNAT_PORTS_EXHAUSTED). */
uint16_t sy_snat_get(struct sy_worker *w, const struct sy_dp_port *out, uint32_t *addr);
/* The leg is gone: (addr, port) is free again (port in host order). */
void sy_snat_put(struct sy_worker *w, uint32_t addr, uint16_t port);

/*
 * A backend leg of our own TCP (the proxy's, a health check's): a record in
 * `state` for a connection to ip:port (network order), leaving by the port
 * the FIB names, from a SNAT source of that port (found by it: the backend's
 * replies come back to this worker), and t zeroed and addressed from it; the
 * caller links the record to its owner and sends the SYN (sy_tcb_connect,
 * with *mss). 0, or why not (an answer reason: backend_no_route,
 * flow_table_full, snat_ports_exhausted), with nothing kept.
 */
struct sy_tcb;
int sy_backend_leg_open(struct sy_worker *w, uint32_t ip, uint16_t port, uint8_t state,
			struct sy_tcb *t, struct sy_conn **out, uint16_t *mss);

/* (Re)arm the connection's timer at TSC `when`. */
void sy_conn_timer_set(struct sy_worker *w, struct sy_conn *c, uint64_t when);
void sy_conn_timer_cancel(struct sy_worker *w, struct sy_conn *c);
/* Run the timers that are due: calls sy_splice_timeout() for each. */
unsigned sy_tcp_timers_run(struct sy_worker *w);

#endif
