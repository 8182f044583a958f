/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 neighbour discovery (RFC 4861), the asking side: solicitations for
 * next hops we send to, and what advertisements and solicitations teach us.
 * The table is the IPv6 neighbour table (net/neigh.h, w->nd); answering
 * solicitations for our own addresses is net/icmp6.c's.
 */
#ifndef SY_ND_H
#define SY_ND_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>

struct rte_mbuf;
struct sy_worker;

#define SY_ND_SOLICIT 135
#define SY_ND_ADVERT 136
#define SY_ND_OPT_SOURCE_LL 1
#define SY_ND_OPT_TARGET_LL 2
#define SY_ND_FLAG_ROUTER 0x80
#define SY_ND_FLAG_SOLICITED 0x40
#define SY_ND_FLAG_OVERRIDE 0x20
#define SY_ND_HOP_LIMIT 255

/* A neighbour solicitation or advertisement: the ICMPv6 header, four bytes
 * of flags (reserved in a solicitation), the target; options follow. */
struct sy_nd_msg {
	uint8_t type;
	uint8_t code;
	rte_be16_t cksum;
	uint8_t flags;
	uint8_t reserved[3];
	uint8_t target[16];
} __rte_packed;

/* A message with one link-layer address option, as we send them: a
 * solicitation with our source address, an advertisement with the target's. */
struct sy_nd_msg_ll {
	struct sy_nd_msg msg;
	uint8_t opt_type;
	uint8_t opt_len; /* in 8-byte units */
	uint8_t mac[RTE_ETHER_ADDR_LEN];
} __rte_packed;

/* Send `m` (data at a filled ethernet header, dst MAC to be set) to the IPv6
 * next hop `addr` on `port`: now if known, else held while it is solicited.
 * Consumes m. */
void sy_nd_output(struct sy_worker *w, uint16_t port, const uint8_t addr[16], struct rte_mbuf *m);
/* A solicitation for `target` on `port`, to its solicited-node group, or to
 * `unicast` when given (re-confirming a stale entry). Counted nd_solicits_sent. */
void sy_nd_solicit(struct sy_worker *w, uint16_t port, const uint8_t target[16],
		   const struct rte_ether_addr *unicast);
/* An unsolicited advertisement of our address `addr` (a VIP just taken
 * over, vrrp/vrrp.h) to all nodes, Override set, our MAC as the target's
 * (RFC 4861 7.2.6): every neighbour that has addr cached moves it to us.
 * False when no buffer was to be had. */
bool sy_nd_announce(struct sy_worker *w, uint16_t port, const uint8_t addr[16]);
/* MAC for (port, addr) if usable (reachable or stale), else NULL. */
const struct rte_ether_addr *sy_nd_lookup(struct sy_worker *w, uint16_t port, const uint8_t addr[16]);
/* What a solicitation for one of our addresses teaches: its sender `src` is
 * at `mac` (its source link-layer option), if src is a neighbour on port
 * (RFC 4861 7.2.3). */
void sy_nd_learn_from_solicit(struct sy_worker *w, uint16_t port, const uint8_t src[16],
			      const struct rte_ether_addr *mac);
/* An advertisement (data at the IPv6 header, m->l3_len: up to the ICMPv6
 * message, `len` its length): checked (RFC 4861 7.1.2) and, for a neighbour
 * we have an entry for, recorded (7.2.5). Consumes m. */
void sy_nd_advert_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m, uint32_t len);

#endif
