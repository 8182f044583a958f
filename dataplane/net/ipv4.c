/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "net/arp.h"
#include "net/fib.h"
#include "dns/dns.h"
#include "net/net.h"
#include "tcp/tcp.h"
#include "vrrp/vrrp.h"
#include "worker.h"

/* One of our addresses, on any port: the weak host model, as Linux does, so a
 * client may reach any router address through any port. */
static inline bool
ipv4_is_local(const struct sy_dp_shared *sh, uint32_t ip)
{
	unsigned i;

	for (i = 0; i < sh->n_ports; i++)
		if (sy_port_addr_index(&sh->ports[i], ip) >= 0)
			return true;
	return false;
}

/* Sources nobody may legitimately use (RFC 1812 5.3.7): "this network",
 * loopback, multicast and class E (which includes the limited broadcast), and
 * our own addresses. Answering them would reflect replies at broadcast or at
 * ourselves. */
static inline bool
ipv4_is_martian_source(const struct sy_dp_shared *sh, uint32_t ip)
{
	uint8_t first = (uint8_t)(rte_be_to_cpu_32(ip) >> 24);

	return first == 0 || first == 127 || first >= 224 || ipv4_is_local(sh, ip);
}

void
sy_ipv4_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	const struct sy_dp_port *p = &w->sh->ports[port];
	struct rte_ipv4_hdr *ip;
	uint64_t ck;
	uint16_t hlen, tlen;

	/* The header is read in place: it must sit in the first segment. */
	if (unlikely(m->data_len < sizeof(*ip))) {
		sy_drop(w, m, SY_DROP_IPV4_TRUNCATED);
		return;
	}
	ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	hlen = (uint16_t)((ip->version_ihl & RTE_IPV4_HDR_IHL_MASK) * RTE_IPV4_IHL_MULTIPLIER);
	if (unlikely((ip->version_ihl >> 4) != 4 || hlen < sizeof(*ip))) {
		sy_drop(w, m, SY_DROP_IPV4_BAD_HEADER);
		return;
	}
	if (unlikely(m->data_len < hlen)) {
		sy_drop(w, m, SY_DROP_IPV4_TRUNCATED);
		return;
	}
	tlen = rte_be_to_cpu_16(ip->total_length);
	if (unlikely(tlen < hlen)) {
		sy_drop(w, m, SY_DROP_IPV4_BAD_HEADER);
		return;
	}
	if (unlikely(tlen > m->pkt_len)) {
		sy_drop(w, m, SY_DROP_IPV4_TRUNCATED);
		return;
	}
	ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	if (!p->rx_ipv4_cksum || ck == RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN ||
	    ck == RTE_MBUF_F_RX_IP_CKSUM_NONE) {
		/* A header that includes a correct checksum sums to 0xffff. */
		if (unlikely(rte_raw_cksum(ip, hlen) != 0xffff)) {
			sy_drop(w, m, SY_DROP_IPV4_BAD_CHECKSUM);
			return;
		}
	} else if (unlikely(ck == RTE_MBUF_F_RX_IP_CKSUM_BAD)) {
		sy_drop(w, m, SY_DROP_IPV4_BAD_CHECKSUM);
		return;
	}
	/* Frames shorter than 60 bytes arrive padded: cut to the IP length so
	 * the layers above (and an in-place reply) see only the datagram. */
	if (m->pkt_len > tlen)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - tlen));
	m->l3_len = hlen;

	/* VRRP adverts (vrrp/vrrp.h) go to a group, not to us. */
	if (unlikely(ip->next_proto_id == SY_IPPROTO_VRRP && ip->dst_addr == SY_VRRP_GROUP)) {
		if (unlikely(ipv4_is_martian_source(w->sh, ip->src_addr)))
			sy_drop(w, m, SY_DROP_IPV4_MARTIAN_SOURCE); /* our own, looped back */
		else
			sy_vrrp_input(w, port, m);
		return;
	}
	/* We are not a forwarder. A VIP is ours while we are its master, or
	 * while a drain takes what still arrives on it (sy_vip_taken). */
	if (unlikely(!ipv4_is_local(w->sh, ip->dst_addr))) {
		int st = sy_vrrp_vip_state(w->sh->vrrp, ip->dst_addr);

		if (!sy_vip_taken(w->sh, st)) {
			sy_drop(w, m, st < 0 ? SY_DROP_IPV4_NOT_OURS : SY_DROP_VRRP_VIP_NOT_MASTER);
			return;
		}
	}
	if (unlikely(ipv4_is_martian_source(w->sh, ip->src_addr))) {
		sy_drop(w, m, SY_DROP_IPV4_MARTIAN_SOURCE);
		return;
	}
	if (unlikely(ip->time_to_live == 0)) {
		sy_drop(w, m, SY_DROP_IPV4_TTL_EXPIRED);
		return;
	}
	/* No reassembly: nothing we serve needs it, and holding fragments is
	 * memory an attacker controls. */
	if (unlikely(ip->fragment_offset &
		     RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))) {
		sy_drop(w, m, SY_DROP_IPV4_FRAGMENT);
		return;
	}

	switch (ip->next_proto_id) {
	case IPPROTO_TCP:
		sy_tcp_input(w, port, m);
		break;
	case IPPROTO_ICMP:
		sy_icmp_input(w, port, m);
		break;
	case IPPROTO_UDP:
		sy_udp_input(w, port, m); /* the DNS responder's, if any (dns/dns.h) */
		break;
	default:
		sy_drop(w, m, SY_DROP_IPV4_UNSUPPORTED_PROTO);
		break;
	}
}

struct rte_ipv4_hdr *
sy_ipv4_strip_options(struct rte_mbuf *m, uint16_t hlen)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	uint16_t optlen;

	if (hlen <= sizeof(*ip))
		return ip;
	optlen = (uint16_t)(hlen - sizeof(*ip));
	memmove((uint8_t *)ip + optlen, ip, sizeof(*ip));
	rte_pktmbuf_adj(m, optlen);
	ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(ip->total_length) - optlen));
	m->l3_len = sizeof(*ip);
	return ip;
}

void
sy_ipv4_output(struct sy_worker *w, struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	struct sy_addr dst = sy_addr_v4(ip->dst_addr);
	struct sy_fib_result r;
	const struct sy_dp_port *p;

	if (unlikely(sy_fib_lookup(w->sh->fib, &dst, &r) < 0)) {
		sy_drop(w, m, SY_DROP_IPV4_NO_ROUTE);
		return;
	}
	p = &w->sh->ports[r.port];
	m->l3_len = rte_ipv4_hdr_len(ip);
	/* Keep only the flags that say who owns the buffer; RX flags of a
	 * reused mbuf mean nothing on TX. */
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	ip->hdr_checksum = 0;
	if (p->tx_ipv4_cksum)
		m->ol_flags |= RTE_MBUF_F_TX_IPV4 | RTE_MBUF_F_TX_IP_CKSUM;
	else
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	if (unlikely(sy_eth_prepend(w, r.port, m, RTE_ETHER_TYPE_IPV4) < 0)) {
		sy_drop(w, m, SY_DROP_NO_MBUF);
		return;
	}
	sy_arp_output(w, r.port, r.nexthop.v4, m);
}

void
sy_ipv4_output_nh(struct sy_worker *w, struct rte_mbuf *m, uint16_t port, uint32_t nexthop)
{
	m->l3_len = rte_ipv4_hdr_len(rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *));
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	if (unlikely(sy_eth_prepend(w, port, m, RTE_ETHER_TYPE_IPV4) < 0)) {
		sy_drop(w, m, SY_DROP_NO_MBUF);
		return;
	}
	sy_arp_output(w, port, nexthop, m);
}
