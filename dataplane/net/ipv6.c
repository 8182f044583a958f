/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 input (RFC 8200): the fixed header checked, the extension headers
 * walked with a bound, and what is for us handed on: ICMPv6 (net/icmp6.c:
 * echo and neighbour discovery for the port's addresses) and TCP to a
 * global address of ours (tcp/tcp.h, with the extension headers taken out
 * first, so every layer above finds TCP right after the fixed header).
 *
 * A port speaks IPv6 only when its config gives it an IPv6 address. It then
 * also answers on the link-local address its MAC gives, because neighbour
 * discovery and hosts on the link use it.
 *
 * With vrrp on (vrrp/vrrp.h), the VRRP port also takes adverts to ff02::12
 * (next header 112) and, while this node is master of an IPv6 VIP, the
 * VIP and its solicited-node group; to a VIP another node holds is
 * vrrp_vip_not_master, as for IPv4.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "dns/dns.h"
#include "net/fib.h"
#include "net/nd.h"
#include "net/net.h"
#include "tcp/tcp.h"
#include "vrrp/vrrp.h"
#include "worker.h"

/* Extension headers we walk before giving up on a packet: a chain longer
 * than this is an attack on the walk, not traffic. */
#define SY_IPV6_MAX_EXT_HEADERS 8

#define IPV6_EXT_HOPOPTS 0
#define IPV6_EXT_ROUTING 43
#define IPV6_EXT_FRAGMENT 44
#define IPV6_EXT_DSTOPTS 60
#define IPV6_NO_NEXT_HEADER 59

void
sy_ipv6_link_local(const struct rte_ether_addr *mac, uint8_t out[16])
{
	const uint8_t *b = mac->addr_bytes;

	memset(out, 0, 16);
	out[0] = 0xfe;
	out[1] = 0x80;
	/* Modified EUI-64 (RFC 4291 appendix A): the universal/local bit
	 * flipped, ff:fe in the middle. */
	out[8] = b[0] ^ 0x02;
	out[9] = b[1];
	out[10] = b[2];
	out[11] = 0xff;
	out[12] = 0xfe;
	out[13] = b[3];
	out[14] = b[4];
	out[15] = b[5];
}

bool
sy_ipv6_is_ours(const struct sy_dp_port *p, const uint8_t a[16])
{
	uint8_t ll[16];
	unsigned i;

	for (i = 0; i < p->n_ipv6; i++)
		if (memcmp(p->ipv6[i], a, 16) == 0)
			return true;
	/* Only a link-local address can be the MAC's (and making it costs
	 * more than this test). */
	if (p->n_ipv6 == 0 || a[0] != 0xfe || a[1] != 0x80)
		return false;
	sy_ipv6_link_local(&p->mac, ll);
	return memcmp(ll, a, 16) == 0;
}

/* ff02::1:ffXX:XXXX, the solicited-node group (RFC 4291 2.7.1) of one of
 * our addresses: where neighbour solicitations for it are sent. */
static bool
is_our_solicited_node(const struct sy_dp_port *p, const uint8_t a[16])
{
	static const uint8_t prefix[13] = { 0xff, 0x02, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x01, 0xff };
	uint8_t ll[16];
	unsigned i;

	if (memcmp(a, prefix, sizeof(prefix)) != 0)
		return false;
	for (i = 0; i < p->n_ipv6; i++)
		if (memcmp(p->ipv6[i] + 13, a + 13, 3) == 0)
			return true;
	sy_ipv6_link_local(&p->mac, ll);
	return memcmp(ll + 13, a + 13, 3) == 0;
}

/* ff02::1, every node on the link. */
static bool
is_all_nodes(const uint8_t a[16])
{
	static const uint8_t all[16] = { 0xff, 0x02, [15] = 0x01 };

	return memcmp(a, all, 16) == 0;
}

static bool
is_martian_source(const struct sy_dp_port *p, const uint8_t a[16])
{
	static const uint8_t loopback[16] = { [15] = 1 };

	return a[0] == 0xff || memcmp(a, loopback, 16) == 0 || sy_ipv6_is_ours(p, a);
}

/* For a destination that is none of the port's own: the VRRP group, or a
 * VIP this node is master of (or its solicited-node group), on the VRRP
 * port is ours; else false and the reason to drop it in *why. */
static bool
vrrp_destination(const struct sy_worker *w, uint16_t port, const uint8_t dst[16],
		 enum sy_drop_reason *why)
{
	const struct sy_vrrp *v = w->sh->vrrp;
	int st;

	*why = SY_DROP_IPV6_NOT_OURS;
	if (v == NULL || port != v->port)
		return false;
	if (memcmp(dst, sy_vrrp_group6, 16) == 0 || sy_vrrp_master6_solicited(v, dst))
		return true;
	st = sy_vrrp_vip6_state(v, dst);
	/* Its master, or draining (sy_vip_taken). */
	if (sy_vip_taken(w->sh, st))
		return true;
	if (st >= 0)
		*why = SY_DROP_VRRP_VIP_NOT_MASTER;
	return false;
}

/*
 * The options of a hop-by-hop or destination options header (RFC 8200
 * 4.2): none of them means anything to us, so each is skipped, unless its
 * type's top two bits say an unknown option must not be skipped. Returns
 * false for those and for an option that runs past the header.
 */
static bool
options_skippable(const uint8_t *h, unsigned len)
{
	unsigned off = 2;

	while (off < len) {
		uint8_t type = h[off];

		if (type == 0) { /* Pad1 */
			off++;
			continue;
		}
		if (off + 2 > len || off + 2u + h[off + 1] > len)
			return false;
		/* PadN (1) and Router Alert (5, on MLD reports) are known. */
		if (type != 1 && type != 5 && (type >> 6) != 0)
			return false;
		off += 2u + h[off + 1];
	}
	return true;
}

void
sy_ipv6_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	const struct sy_dp_port *p = &w->sh->ports[port];
	/* The frame's sender, still in the headroom eth.c stepped over:
	 * where an answer made in this buffer goes. */
	const struct rte_ether_hdr *eh =
		(const struct rte_ether_hdr *)(rte_pktmbuf_mtod(m, uint8_t *) - m->l2_len);
	struct rte_ether_addr peer = eh->src_addr;
	struct rte_ipv6_hdr *ip6;
	uint32_t tlen, off;
	uint8_t nh;
	unsigned n;

	if (unlikely(p->n_ipv6 == 0)) {
		sy_drop(w, m, SY_DROP_IPV6_OFF);
		return;
	}
	if (unlikely(m->data_len < sizeof(*ip6))) {
		sy_drop(w, m, SY_DROP_IPV6_TRUNCATED);
		return;
	}
	ip6 = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
	if (unlikely((rte_be_to_cpu_32(ip6->vtc_flow) >> 28) != 6)) {
		sy_drop(w, m, SY_DROP_IPV6_BAD_HEADER);
		return;
	}
	tlen = sizeof(*ip6) + rte_be_to_cpu_16(ip6->payload_len);
	if (unlikely(tlen > m->pkt_len)) {
		sy_drop(w, m, SY_DROP_IPV6_TRUNCATED);
		return;
	}
	/* Short frames arrive padded: cut to the datagram. */
	if (m->pkt_len > tlen)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - tlen));
	if (unlikely(!sy_ipv6_is_ours(p, ip6->dst_addr) && !is_our_solicited_node(p, ip6->dst_addr) &&
		     !is_all_nodes(ip6->dst_addr))) {
		enum sy_drop_reason why;

		if (!vrrp_destination(w, port, ip6->dst_addr, &why)) {
			sy_drop(w, m, why);
			return;
		}
	}
	if (unlikely(is_martian_source(p, ip6->src_addr))) {
		sy_drop(w, m, SY_DROP_IPV6_MARTIAN_SOURCE);
		return;
	}

	/* The extension headers, read in place: they must sit in the first
	 * segment with the fixed header (they always do in a frame this
	 * small; a chain that does not is dropped as truncated). */
	nh = ip6->proto;
	off = sizeof(*ip6);
	for (n = 0;; n++) {
		const uint8_t *h = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
		unsigned hlen;

		switch (nh) {
		case IPPROTO_ICMPV6:
			m->l3_len = (uint16_t)off;
			sy_icmp6_input(w, port, m, &peer);
			return;
		case IPPROTO_TCP:
			/* To a group, or to a link-local address: not a
			 * service address. */
			if (unlikely(ip6->dst_addr[0] == 0xff ||
				     (ip6->dst_addr[0] == 0xfe && (ip6->dst_addr[1] & 0xc0) == 0x80))) {
				sy_drop(w, m, SY_DROP_IPV6_TCP_NOT_SERVED);
				return;
			}
			/* The rest of the data plane reads a segment with its
			 * TCP header right after the fixed one. */
			if (off > sizeof(*ip6)) {
				uint16_t ext = (uint16_t)(off - sizeof(*ip6));

				memmove((uint8_t *)ip6 + ext, ip6, sizeof(*ip6));
				rte_pktmbuf_adj(m, ext);
				ip6 = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
				ip6->payload_len = rte_cpu_to_be_16(
					(uint16_t)(rte_be_to_cpu_16(ip6->payload_len) - ext));
				ip6->proto = IPPROTO_TCP;
			}
			m->l3_len = sizeof(*ip6);
			sy_tcp6_input(w, port, m);
			return;
		case IPPROTO_UDP:
			/* The DNS responder's (dns/dns.h), on a unicast
			 * address of ours only. */
			if (unlikely(ip6->dst_addr[0] == 0xff)) {
				sy_drop(w, m, SY_DROP_UDP_NO_SERVICE);
				return;
			}
			m->l3_len = (uint16_t)off;
			sy_udp6_input(w, port, m);
			return;
		case SY_IPPROTO_VRRP:
			/* Adverts go to the group only (RFC 5798 5.1.2.2). */
			if (unlikely(memcmp(ip6->dst_addr, sy_vrrp_group6, 16) != 0)) {
				sy_drop(w, m, SY_DROP_IPV6_UNSUPPORTED_PROTO);
				return;
			}
			m->l3_len = (uint16_t)off;
			sy_vrrp6_input(w, port, m);
			return;
		case IPV6_EXT_FRAGMENT:
			/* No reassembly, as for IPv4. */
			sy_drop(w, m, SY_DROP_IPV6_FRAGMENT);
			return;
		case IPV6_EXT_HOPOPTS:
		case IPV6_EXT_ROUTING:
		case IPV6_EXT_DSTOPTS:
			break;
		default: /* IPV6_NO_NEXT_HEADER among them */
			sy_drop(w, m, SY_DROP_IPV6_UNSUPPORTED_PROTO);
			return;
		}
		/* Hop-by-hop options come first or not at all (RFC 8200 4.1). */
		if (unlikely(n >= SY_IPV6_MAX_EXT_HEADERS || (nh == IPV6_EXT_HOPOPTS && n > 0))) {
			sy_drop(w, m, SY_DROP_IPV6_EXT_HEADERS);
			return;
		}
		if (unlikely(off + 8 > tlen || off + 8 > m->data_len)) {
			sy_drop(w, m, SY_DROP_IPV6_TRUNCATED);
			return;
		}
		hlen = (h[1] + 1u) * 8;
		if (unlikely(off + hlen > tlen || off + hlen > m->data_len)) {
			sy_drop(w, m, SY_DROP_IPV6_TRUNCATED);
			return;
		}
		if (nh == IPV6_EXT_ROUTING) {
			/* Segments left: the packet is to go on to another
			 * node, and we do not forward. */
			if (h[3] != 0) {
				sy_drop(w, m, SY_DROP_IPV6_ROUTING_HEADER);
				return;
			}
		} else if (unlikely(!options_skippable(h, hlen))) {
			sy_drop(w, m, SY_DROP_IPV6_OPTION_DISCARD);
			return;
		}
		nh = h[0];
		off += hlen;
	}
}

static bool
prefix_match(const uint8_t a[16], const uint8_t b[16], unsigned len)
{
	unsigned bytes = len / 8, bits = len % 8;

	if (memcmp(a, b, bytes) != 0)
		return false;
	return bits == 0 || ((a[bytes] ^ b[bytes]) >> (8 - bits)) == 0;
}

void
sy_ipv6_source_for(const struct sy_dp_port *p, const uint8_t dst[16], uint8_t out[16])
{
	unsigned i;

	if (!(dst[0] == 0xfe && (dst[1] & 0xc0) == 0x80)) {
		for (i = 0; i < p->n_ipv6; i++)
			if (prefix_match(p->ipv6[i], dst, p->ipv6_prefix[i])) {
				memcpy(out, p->ipv6[i], 16);
				return;
			}
		if (p->n_ipv6 > 0) {
			memcpy(out, p->ipv6[0], 16);
			return;
		}
	}
	sy_ipv6_link_local(&p->mac, out);
}

void
sy_ipv6_output(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	struct sy_addr dst = { .family = AF_INET6 };
	struct sy_fib_result r;

	/* A link-local destination is on the link it came from: no FIB
	 * holds fe80::/64 for one port rather than another. */
	if (ip6->dst_addr[0] == 0xfe && (ip6->dst_addr[1] & 0xc0) == 0x80) {
		r.port = port;
		r.nexthop = dst;
		memcpy(r.nexthop.v6, ip6->dst_addr, 16);
	} else {
		memcpy(dst.v6, ip6->dst_addr, 16);
		if (unlikely(sy_fib_lookup(w->sh->fib, &dst, &r) < 0)) {
			sy_drop(w, m, SY_DROP_IPV6_NO_ROUTE);
			return;
		}
	}
	m->l3_len = sizeof(struct rte_ipv6_hdr);
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	if (unlikely(sy_eth_prepend(w, r.port, m, RTE_ETHER_TYPE_IPV6) < 0)) {
		sy_drop(w, m, SY_DROP_NO_MBUF);
		return;
	}
	sy_nd_output(w, r.port, r.nexthop.v6, m);
}

void
sy_ipv6_output_nh(struct sy_worker *w, struct rte_mbuf *m, uint16_t port, const uint8_t nexthop[16])
{
	m->l3_len = sizeof(struct rte_ipv6_hdr);
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	if (unlikely(sy_eth_prepend(w, port, m, RTE_ETHER_TYPE_IPV6) < 0)) {
		sy_drop(w, m, SY_DROP_NO_MBUF);
		return;
	}
	sy_nd_output(w, port, nexthop, m);
}

void
sy_ipv6_send_to(struct sy_worker *w, uint16_t port, struct rte_mbuf *m,
		const struct rte_ether_addr *dst)
{
	struct rte_ether_hdr *eh;

	m->l3_len = sizeof(struct rte_ipv6_hdr);
	/* Keep only the flags that say who owns the buffer. */
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	if (unlikely(sy_eth_prepend(w, port, m, RTE_ETHER_TYPE_IPV6) < 0)) {
		sy_drop(w, m, SY_DROP_NO_MBUF);
		return;
	}
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	rte_ether_addr_copy(dst, &eh->dst_addr);
	sy_tx(w, port, m);
}
