/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP's per-worker state, as types only (net/arp.h is the face, and says
 * how the table works): what struct sy_worker holds by value (worker_t.h).
 */
#ifndef SY_ARP_T_H
#define SY_ARP_T_H

#include <stdint.h>

#include <rte_ether.h>

struct rte_mbuf;

#define SY_ARP_BUCKETS 128 /* power of two */
#define SY_ARP_WAYS 4
/* A burst of new connections to a backend not yet resolved holds its SYNs
 * here: each one dropped costs its connection a SYN retransmission (1 s from
 * the proxy's TCP). 64 clients opening at once to a cold proxied backend
 * (wrk -c64 right after a start) lost 17 SYNs at 16 and saw 1 s stalls.
 * Linux holds about 100 per neighbour (unres_qlen_bytes); the per-worker
 * cap below keeps the mempool safe. */
#define SY_ARP_PENDING_PER_NH 64
#define SY_ARP_PENDING_MAX 128
/* Requests for an unresolved next hop: one per second, then give up. */
#define SY_ARP_RETRY_MS 1000
#define SY_ARP_MAX_PROBES 3
/* A confirmed entry is used as is this long (Linux base_reachable_time is
 * 30 s; a router's neighbours are few and stable, so longer)... */
#define SY_ARP_REACHABLE_MS (5 * 60 * 1000)
/* ...then re-resolved while still used, and dropped if nobody answers. */
#define SY_ARP_STALE_TIMEOUT_MS 5000
/* How often a worker walks its table for retries and expiry. */
#define SY_ARP_TIMER_MS 100
/* Neighbour-update ring size per worker. */
#define SY_ARP_RING_SIZE 256

enum sy_arp_state {
	SY_ARP_FREE = 0,
	SY_ARP_INCOMPLETE, /* request sent, packets may be waiting */
	SY_ARP_REACHABLE,  /* confirmed within SY_ARP_REACHABLE_MS */
	SY_ARP_STALE,      /* old but still used while we re-resolve */
};

struct sy_arp_entry {
	uint32_t ip; /* network order */
	uint16_t port;
	uint8_t state;     /* enum sy_arp_state */
	uint8_t probes;    /* requests sent in this resolution */
	uint8_t n_pending;
	struct rte_ether_addr mac;
	uint64_t confirmed; /* TSC of the last confirmation */
	uint64_t deadline;  /* TSC of the next retry (INCOMPLETE, STALE) */
	struct rte_mbuf *pending[SY_ARP_PENDING_PER_NH]; /* ethernet header filled but dst */
};

struct sy_arp_table {
	struct sy_arp_entry e[SY_ARP_BUCKETS][SY_ARP_WAYS];
	unsigned n_pending; /* over the whole table */
	uint64_t last_timer;
};

/* A neighbour update posted between workers (16 bytes: rte_ring elements must
 * be a multiple of 4). */
struct sy_arp_update {
	uint32_t ip;
	uint16_t port;
	struct rte_ether_addr mac;
	uint8_t pad[4];
};

#endif
