/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Ethernet, IPv4 and ICMP input and output of a worker. Every function
 * consumes the mbuf: it is sent (left in w->txq), held by ARP, or dropped
 * with a counted reason.
 */
#ifndef SY_NET_H
#define SY_NET_H

#include <stdbool.h>
#include <stdint.h>

struct rte_ether_addr;
struct rte_mbuf;
struct sy_dp_port;
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

/* IPv6 packet (data at the IPv6 header, m->l2_len set) from port `port`
 * (net/ipv6.c). */
void sy_ipv6_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);
/* The link-local address (fe80::/64, modified EUI-64, RFC 4291) a MAC gives. */
void sy_ipv6_link_local(const struct rte_ether_addr *mac, uint8_t out[16]);
/* `a` is one of port p's IPv6 addresses: configured, or its link-local one
 * (a port with no IPv6 address has none). */
bool sy_ipv6_is_ours(const struct sy_dp_port *p, const uint8_t a[16]);
/* Our source address on port p for a packet to dst: the link-local one for
 * a link-local dst, else the port's address on dst's prefix, else its first
 * (so the peer answers, and learns, the address it talks to). */
void sy_ipv6_source_for(const struct sy_dp_port *p, const uint8_t dst[16], uint8_t out[16]);
/* Route and send an IPv6 packet whose header is final (data at it): the
 * FIB (IPV6_NO_ROUTE), or for a link-local destination the port it came in
 * on, `port`; the ethernet header; neighbour discovery. */
void sy_ipv6_output(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);
/* An IPv6 packet whose header is final to a next hop the caller already
 * looked up: the ethernet header and neighbour discovery only. */
void sy_ipv6_output_nh(struct sy_worker *w, struct rte_mbuf *m, uint16_t port,
		       const uint8_t nexthop[16]);
/* Send an IPv6 packet whose header is final (data at it) to the MAC `dst`
 * on `port`: an answer to where its query came from. */
void sy_ipv6_send_to(struct sy_worker *w, uint16_t port, struct rte_mbuf *m,
		     const struct rte_ether_addr *dst);
/* ICMPv6 for us (net/icmp6.c; m->l3_len: the IPv6 header and its extension
 * headers); `peer` is the frame's source MAC. */
void sy_icmp6_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m,
		    const struct rte_ether_addr *peer);
/* The ones' complement sum of the ICMPv6 pseudo-header and the message at
 * `off` (len bytes), folded: 0xffff when the message's checksum is right. */
uint16_t sy_icmp6_sum(const struct rte_mbuf *m, uint32_t off, uint32_t len);

#endif
