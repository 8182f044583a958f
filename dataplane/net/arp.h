/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP: answer for our addresses, learn neighbours, resolve next hops.
 *
 * Each worker owns its neighbour table (no sharing, no locks). Because a
 * reply can land on another worker's queue (net_af_packet spreads by the
 * kernel's hash), a worker that learns a mapping posts it to every other
 * worker's ring (MP enqueue, SC dequeue); each worker drains its own ring
 * once per loop iteration.
 *
 * Table: set-associative, SY_ARP_BUCKETS x SY_ARP_WAYS entries, fixed at
 * init. Packets waiting for a resolution are held in their entry (at most
 * SY_ARP_PENDING_PER_NH each, SY_ARP_PENDING_MAX per worker), so an
 * unresolvable destination cannot pin the mempool.
 */
#ifndef SY_ARP_H
#define SY_ARP_H

#include <stdint.h>

#include <rte_ether.h>

#include "net/arp_t.h"

struct rte_mbuf;
struct sy_worker;

/* Ethernet payload (data at the ARP header) received on port index `port`. */
void sy_arp_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);
/* Send `m` (data at a filled ethernet header, dst MAC to be set) to next hop
 * `ip` on `port`: now if known, else held while ARP resolves it. Consumes m. */
void sy_arp_output(struct sy_worker *w, uint16_t port, uint32_t ip, struct rte_mbuf *m);
/* A gratuitous ARP for ip (ours: a VIP we just took over) on port. */
void sy_arp_announce(struct sy_worker *w, uint16_t port, uint32_t ip);
/* Apply the updates other workers posted. Returns how many. */
unsigned sy_arp_drain_updates(struct sy_worker *w);
/* Retries, give-ups and aging, due at w->now. Called every SY_ARP_TIMER_MS. */
void sy_arp_timer(struct sy_worker *w);
/* MAC for (port, ip) if usable (reachable or stale), else NULL. */
const struct rte_ether_addr *sy_arp_lookup(struct sy_worker *w, uint16_t port, uint32_t ip);
/* Drop everything held (worker teardown). */
void sy_arp_flush_all(struct sy_worker *w);

#endif
