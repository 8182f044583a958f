/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The neighbour tables' per-worker state, as types only (net/neigh.h is the
 * face, and says how a table works): what struct sy_worker holds by value
 * (worker_t.h), one table for ARP and one for IPv6 neighbour discovery.
 */
#ifndef SY_NEIGH_T_H
#define SY_NEIGH_T_H

#include <stdint.h>

#include <rte_ether.h>

struct rte_mbuf;

#define SY_NEIGH_BUCKETS 128 /* power of two */
#define SY_NEIGH_WAYS 4
/* A burst of new connections to a backend not yet resolved holds its SYNs
 * here: each one dropped costs its connection a SYN retransmission (1 s from
 * the proxy's TCP). 64 clients opening at once to a cold proxied backend
 * (wrk -c64 right after a start) lost 17 SYNs at 16 and saw 1 s stalls.
 * Linux holds about 100 per neighbour (unres_qlen_bytes); the per-table
 * cap below keeps the mempool safe. */
#define SY_NEIGH_PENDING_PER_NH 64
#define SY_NEIGH_PENDING_MAX 128
/* Requests (ARP) or solicitations (ND) for an unresolved next hop: one per
 * second (RFC 4861's RETRANS_TIMER), then give up (its
 * MAX_MULTICAST_SOLICIT). */
#define SY_NEIGH_RETRY_MS 1000
#define SY_NEIGH_MAX_PROBES 3
/* A confirmed entry is used as is this long (Linux base_reachable_time is
 * 30 s; a router's neighbours are few and stable, so longer)... */
#define SY_NEIGH_REACHABLE_MS (5 * 60 * 1000)
/* ...then re-resolved while still used, and dropped if nobody answers. */
#define SY_NEIGH_STALE_TIMEOUT_MS 5000
/* How often a worker walks its tables for retries and expiry. */
#define SY_NEIGH_TIMER_MS 100
/* Neighbour-update ring size per worker. */
#define SY_NEIGH_RING_SIZE 256

enum sy_neigh_state {
	SY_NEIGH_FREE = 0,
	SY_NEIGH_INCOMPLETE, /* request sent, packets may be waiting */
	SY_NEIGH_REACHABLE,  /* confirmed within SY_NEIGH_REACHABLE_MS */
	SY_NEIGH_STALE,      /* old but still used while we re-resolve */
};

/* An entry's address: IPv4 in the first four bytes (network order), the
 * rest zero; or IPv6. The table says which. */
struct sy_neigh_entry {
	uint8_t addr[16];
	uint16_t port;
	uint8_t state;     /* enum sy_neigh_state */
	uint8_t probes;    /* requests sent in this resolution */
	uint8_t n_pending;
	struct rte_ether_addr mac;
	uint64_t confirmed; /* TSC of the last confirmation */
	uint64_t deadline;  /* TSC of the next retry (INCOMPLETE, STALE) */
	struct rte_mbuf *pending[SY_NEIGH_PENDING_PER_NH]; /* ethernet header filled but dst */
};

struct sy_neigh_table {
	struct sy_neigh_entry e[SY_NEIGH_BUCKETS][SY_NEIGH_WAYS];
	unsigned n_pending; /* over the whole table */
	uint64_t last_timer; /* both tables' timer runs on the ARP table's clock */
	uint8_t family;      /* AF_INET (ARP) or AF_INET6 (neighbour discovery) */
};

/* A neighbour update posted between workers (32 bytes: rte_ring elements
 * must be a multiple of 4). */
struct sy_neigh_update {
	uint8_t addr[16]; /* as in struct sy_neigh_entry */
	uint16_t port;
	uint8_t family;   /* which table */
	uint8_t pad;
	struct rte_ether_addr mac;
	uint8_t pad2[6];
};

#endif
