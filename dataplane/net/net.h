/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet, IPv4 and ICMP input and output of a worker. Every function
 * consumes the mbuf: it is sent (left in w->txq), held by ARP, or dropped
 * with a counted reason.
 */
#ifndef SY_NET_H
#define SY_NET_H

#include <stdint.h>

struct rte_mbuf;
struct sy_worker;

#define SY_IPV4_DEFAULT_TTL 64

/* A frame received on port index `port` (data at the ethernet header). */
void sy_eth_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);
/* Prepend and fill an ethernet header (src = port MAC, dst left zero).
 * Returns 0 or -ENOSPC when the mbuf has no headroom. */
int sy_eth_prepend(struct sy_worker *w, uint16_t port, struct rte_mbuf *m, uint16_t ether_type);

/* IPv4 packet (data at the IPv4 header, m->l2_len set) from port `port`. */
void sy_ipv4_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);
/* An answer made in the query's buffer (ICMP echo, DNS) carries no IP
 * options back (a record-route or source-route option would make us a
 * reflector): the fixed header slides over them, total length ip_total
 * minus them. The IPv4 header's new place. */
struct rte_ipv4_hdr *sy_ipv4_strip_options(struct rte_mbuf *m, uint16_t hlen);

/*
 * Route and send an IPv4 packet whose header is complete except the checksum
 * (src, dst, ttl, proto, total_length, ihl set; data at the IPv4 header):
 * FIB lookup (IPV4_NO_ROUTE), header checksum (software unless the port
 * offloads it), ethernet header, ARP.
 */
void sy_ipv4_output(struct sy_worker *w, struct rte_mbuf *m);

/* A packet whose IPv4 header is final, checksum included, to a next hop the
 * caller already looked up: only the ethernet header and ARP (the splice
 * path's output; its checksums are updated incrementally). */
void sy_ipv4_output_nh(struct sy_worker *w, struct rte_mbuf *m, uint16_t port, uint32_t nexthop);

/* ICMP inside an IPv4 packet for us (data at the IPv4 header, m->l3_len set). */
void sy_icmp_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);
/* TCP for us (tcp_in.c): owner hand-off, connections, SYN cookies. */

#endif
