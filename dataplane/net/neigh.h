/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Neighbour tables: which MAC a next hop on a port has, for IPv4 (filled by
 * ARP, net/arp.c) and IPv6 (filled by neighbour discovery, net/nd.c). The
 * two tables work the same way, with the same states, limits and counters;
 * only the messages that ask and answer differ.
 *
 * Each worker owns its tables (no sharing, no locks). Because an answer can
 * land on another worker's queue (net_af_packet spreads by the kernel's
 * hash), a worker that learns a mapping posts it to every other worker's
 * ring (MP enqueue, SC dequeue); each worker drains its own ring once per
 * loop iteration.
 *
 * A table is set-associative, SY_NEIGH_BUCKETS x SY_NEIGH_WAYS entries,
 * fixed at init. Packets waiting for a resolution are held in their entry
 * (at most SY_NEIGH_PENDING_PER_NH each, SY_NEIGH_PENDING_MAX per table), so
 * an unresolvable destination cannot pin the mempool. States: INCOMPLETE
 * (asked, up to SY_NEIGH_MAX_PROBES times a second apart, then the held
 * packets are dropped as unresolved), REACHABLE (confirmed), STALE (older
 * than SY_NEIGH_REACHABLE_MS: still used while it is asked again, dropped
 * after SY_NEIGH_STALE_TIMEOUT_MS without an answer).
 */
#ifndef SY_NEIGH_H
#define SY_NEIGH_H

#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include <rte_ether.h>

#include "net/neigh_t.h"

struct rte_mbuf;
struct sy_worker;

/* Set up an empty table for family (AF_INET or AF_INET6). */
void sy_neigh_init(struct sy_neigh_table *t, uint8_t family);
/* Send `m` (data at a filled ethernet header, dst MAC to be set) to the next
 * hop `addr` on `port`: now if known, else held while it is resolved.
 * Consumes m. */
void sy_neigh_output(struct sy_worker *w, struct sy_neigh_table *t, uint16_t port,
		     const uint8_t addr[16], struct rte_mbuf *m);
/* MAC for (port, addr) if usable (reachable or stale), else NULL. */
const struct rte_ether_addr *sy_neigh_lookup(struct sy_neigh_table *t, uint16_t port,
					     const uint8_t addr[16]);
/* The entry for (port, addr) whatever its state, or NULL: for tests and for
 * an advertisement that may only update what is there. */
struct sy_neigh_entry *sy_neigh_find(struct sy_neigh_table *t, uint16_t port,
				     const uint8_t addr[16]);
/* A confirmed mapping (the caller checked that addr is on-link on port):
 * recorded, what waited for it sent, and posted to the other workers. */
void sy_neigh_confirm(struct sy_worker *w, struct sy_neigh_table *t, uint16_t port,
		      const uint8_t addr[16], const struct rte_ether_addr *mac);
/* Apply the updates other workers posted. Returns how many. */
unsigned sy_neigh_drain_updates(struct sy_worker *w);
/* Retries, give-ups and aging in both tables, due at w->now. Called every
 * SY_NEIGH_TIMER_MS. */
void sy_neigh_timer(struct sy_worker *w);
/* Drop everything held (worker teardown). */
void sy_neigh_flush_all(struct sy_worker *w);

/* The table key of an IPv4 address (network order). */
static inline void
sy_neigh_key_v4(uint8_t key[16], uint32_t ip)
{
	memset(key, 0, 16);
	memcpy(key, &ip, sizeof(ip));
}

/* An IPv4 update, as a worker posts it (tests post them by hand). */
static inline struct sy_neigh_update
sy_neigh_update_v4(uint32_t ip, uint16_t port, const struct rte_ether_addr *mac)
{
	struct sy_neigh_update u = { .port = port, .family = AF_INET, .mac = *mac };

	sy_neigh_key_v4(u.addr, ip);
	return u;
}

#endif
