/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ARP: answer for our addresses, learn neighbours, resolve IPv4 next hops.
 * The table it fills and the packets held for it are the IPv4 neighbour
 * table's (net/neigh.h, w->arp); this file speaks the protocol.
 */
#ifndef SY_ARP_H
#define SY_ARP_H

#include <stdint.h>

#include <rte_ether.h>

struct rte_mbuf;
struct sy_worker;

/* Ethernet payload (data at the ARP header) received on port index `port`. */
void sy_arp_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);
/* Send `m` (data at a filled ethernet header, dst MAC to be set) to next hop
 * `ip` on `port`: now if known, else held while ARP resolves it. Consumes m. */
void sy_arp_output(struct sy_worker *w, uint16_t port, uint32_t ip, struct rte_mbuf *m);
/* A broadcast request for `target`, from our address on its subnet
 * (counted arp_requests_sent). */
void sy_arp_request(struct sy_worker *w, uint16_t port, uint32_t target);
/* A gratuitous ARP for ip (ours: a VIP we just took over) on port. */
void sy_arp_announce(struct sy_worker *w, uint16_t port, uint32_t ip);
/* MAC for (port, ip) if usable (reachable or stale), else NULL. */
const struct rte_ether_addr *sy_arp_lookup(struct sy_worker *w, uint16_t port, uint32_t ip);

#endif
