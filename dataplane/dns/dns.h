/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An authoritative DNS responder on the workers (issue 18; config
 * `dns.listen`): UDP queries to that address, port 53, are answered from
 * the shard zones the control thread published (sy_dns.h), in place, from
 * the packet's own buffer:
 *   - a name below a zone, type A: every IPv4 VIP of the shard (the zone
 *     file's wildcard A records; with vrrp, only those a master serves:
 *     vrrp/vrrp.h), their order turned by one each answer (round robin);
 *     type AAAA: every IPv6 VIP alike (AAAA records; with vrrp, only
 *     those a master serves, as for A); ANY: both; a type the shard has no VIP of:
 *     NODATA (below); no VIP at all: NXDOMAIN (no wildcard record exists);
 *   - the zone's apex: SOA and NS (ns1.<zone>, whose A and AAAA are the
 *     responder's own addresses); other types at the apex or below: NOERROR
 *     with no answer and the SOA (RFC 2308 NODATA);
 *   - a name in no zone: REFUSED (we are not its server, and no resolver);
 *   - not a standard query: NOTIMP; malformed: FORMERR when the header is
 *     readable, else dropped (dns_malformed). Responses (QR set) and
 *     anything else sent to the address are dropped, never answered.
 * Answers fit in 512 bytes (no EDNS): 16 IPv4 VIPs do, 16 IPv6 ones for
 * a name of up to 48 bytes in the message (an AAAA record is 28 bytes, an
 * A record 16); an answer that does not fit is sent with TC set and no
 * records (there is no TCP to retry on).
 */
#ifndef SY_DNS_ANSWER_H
#define SY_DNS_ANSWER_H

#include <stdbool.h>
#include <stdint.h>

struct rte_mbuf;
struct sy_worker;
struct sy_dns_table;

/* A UDP datagram to one of our addresses (data at the IPv4 header,
 * m->l3_len set): the DNS responder's, or dropped (udp_no_service). */
void sy_udp_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);
/* The same over IPv6 (data at the IPv6 header, m->l3_len: it and its
 * extension headers): answered from the same zones, the answer routed back
 * from the address asked (dns.listen's IPv6 address). */
void sy_udp6_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);

/* The responder's own addresses: ns1.<zone>'s A (v4, network order; 0:
 * none) and AAAA (v6 when v6_on). */
struct sy_dns_self {
	uint32_t v4;
	bool v6_on;
	uint8_t v6[16];
};

/* The answer to query q (qlen bytes) into out (room bytes, >= 512), from
 * table t (NULL: no zones) with the responder's address `self` (network
 * order) and turn `rot` (the round robin's); its length, or 0: drop it. No
 * DPDK: the unit tests call it directly. */
unsigned sy_dns_answer(const uint8_t *q, unsigned qlen, const struct sy_dns_table *t,
		       uint32_t self, unsigned rot, uint8_t *out, unsigned room);
/* The same with only the VIPs active(ctx, vip) says a master serves (VIP
 * failover, vrrp/vrrp.h), IPv4 (A) and IPv6 (AAAA) alike; active NULL: all
 * of them. A zone with no VIP of either family active answers as one
 * without VIPs (NXDOMAIN); one with only VIPs of the other family active
 * answers NODATA. */
struct sy_addr;
unsigned sy_dns_answer_active(const uint8_t *q, unsigned qlen, const struct sy_dns_table *t,
			      const struct sy_dns_self *self, unsigned rot,
			      bool (*active)(const void *ctx, const struct sy_addr *vip),
			      const void *ctx, uint8_t *out, unsigned room);

#endif
