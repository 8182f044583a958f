/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMPv6 to the router's own addresses: echo (RFC 4443 4.1) and the answers
 * of neighbour discovery (RFC 4861 7.2.4): a solicitation for one of the
 * port's addresses gets an advertisement with the port's MAC, and a
 * duplicate address probe for one of them is answered to all nodes, which
 * defends the address. Both are made in the query's buffer. An
 * advertisement goes to the MAC the solicitation names (or came from), so
 * answering needs no neighbour entry; an IPv6 VIP's solicitation is answered
 * like one for the port's address while this node is its master; an echo reply is routed like any
 * packet of ours (sy_ipv6_output: FIB, neighbour discovery). Advertisements
 * and what solicitations teach about their senders are net/nd.c's.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "net/nd.h"
#include "net/net.h"
#include "tcp/tcp.h"
#include "worker.h"

#define ICMP6_PACKET_TOO_BIG 2
#define ICMP6_ECHO_REQUEST 128
#define ICMP6_ECHO_REPLY 129
uint16_t
sy_icmp6_sum(const struct rte_mbuf *m, uint32_t off, uint32_t len)
{
	const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	/* RFC 8200 8.1: the pseudo-header is the addresses, the upper-layer
	 * length and the next header (58), each 32 bits wide. */
	const rte_be32_t tail[2] = { rte_cpu_to_be_32(len), rte_cpu_to_be_32(IPPROTO_ICMPV6) };
	uint32_t sum = __rte_raw_cksum(ip6->src_addr, 32, 0);
	uint16_t data;

	sum = __rte_raw_cksum(tail, sizeof(tail), sum);
	if (rte_raw_cksum_mbuf(m, off, len, &data) != 0)
		return 0;
	return __rte_raw_cksum_reduce(sum + data);
}

static bool
is_unspecified(const uint8_t a[16])
{
	static const uint8_t zero[16];

	return memcmp(a, zero, 16) == 0;
}

/* An answer carries no extension headers: the fixed header slides over
 * them. The IPv6 header's new place. */
static struct rte_ipv6_hdr *
strip_ext_headers(struct rte_mbuf *m)
{
	struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
	uint16_t ext = (uint16_t)(m->l3_len - sizeof(*ip6));

	if (ext == 0)
		return ip6;
	memmove((uint8_t *)ip6 + ext, ip6, sizeof(*ip6));
	rte_pktmbuf_adj(m, ext);
	ip6 = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
	ip6->payload_len = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(ip6->payload_len) - ext));
	ip6->proto = IPPROTO_ICMPV6;
	m->l3_len = sizeof(*ip6);
	return ip6;
}

/* The message after the fixed header checksummed, as it goes out. */
static void
answer_checksum(struct rte_mbuf *m)
{
	struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
	rte_be16_t *cksum = rte_pktmbuf_mtod_offset(m, rte_be16_t *, sizeof(*ip6) + 2);

	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
	*cksum = 0;
	*cksum = (uint16_t)~sy_icmp6_sum(m, sizeof(*ip6), rte_be_to_cpu_16(ip6->payload_len));
}

/* An echo reply goes where the routing table says, as any packet of ours:
 * to an off-link client through its gateway (net/ipv6.c sy_ipv6_output). */
static void
echo_reply(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	const struct sy_dp_port *p = &w->sh->ports[port];
	struct rte_ipv6_hdr *ip6 = strip_ext_headers(m);
	uint8_t *icmp = rte_pktmbuf_mtod_offset(m, uint8_t *, sizeof(*ip6));
	uint8_t client[16];

	memcpy(client, ip6->src_addr, 16);
	/* From the address that was pinged; a ping to a group is answered
	 * from ours of the sender's scope. */
	if (ip6->dst_addr[0] == 0xff) {
		if (client[0] == 0xfe && (client[1] & 0xc0) == 0x80)
			sy_ipv6_link_local(&p->mac, ip6->src_addr);
		else
			memcpy(ip6->src_addr, p->ipv6[0], 16);
	} else {
		memcpy(ip6->src_addr, ip6->dst_addr, 16);
	}
	memcpy(ip6->dst_addr, client, 16);
	ip6->hop_limits = SY_IPV4_DEFAULT_TTL;
	icmp[0] = ICMP6_ECHO_REPLY;
	w->counters.icmp6_echo_replies++;
	answer_checksum(m);
	sy_ipv6_output(w, port, m);
}

/*
 * A solicitation: checked as RFC 4861 7.1.1 says, and answered when its
 * target is one of the port's addresses. `len` is the ICMPv6 message's.
 */
static void
solicitation(struct sy_worker *w, uint16_t port, struct rte_mbuf *m, const struct rte_ether_addr *peer,
	     uint32_t len)
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	static const struct rte_ether_addr all_nodes_mac = { { 0x33, 0x33, 0, 0, 0, 0x01 } };
	const struct sy_dp_port *p = &w->sh->ports[port];
	struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
	const struct sy_nd_msg *ns;
	const struct rte_ether_addr *to = peer;
	struct rte_ether_addr sllao;
	struct sy_nd_msg_ll *na;
	bool dad;
	uint32_t off;

	if (unlikely(ip6->hop_limits != SY_ND_HOP_LIMIT || len < sizeof(*ns) ||
		     !rte_pktmbuf_is_contiguous(m))) {
		sy_drop(w, m, SY_DROP_ND_MALFORMED);
		return;
	}
	ns = rte_pktmbuf_mtod_offset(m, const struct sy_nd_msg *, m->l3_len);
	if (unlikely(ns->code != 0 || ns->target[0] == 0xff)) {
		sy_drop(w, m, SY_DROP_ND_MALFORMED);
		return;
	}
	dad = is_unspecified(ip6->src_addr);
	/* Options: 8-byte units; the source link-layer address, if given,
	 * is where the answer goes (a probe must not give one). */
	for (off = sizeof(*ns); off < len;) {
		const uint8_t *o = (const uint8_t *)ns + off;
		uint32_t olen;

		if (unlikely(off + 2 > len || o[1] == 0 || off + o[1] * 8u > len)) {
			sy_drop(w, m, SY_DROP_ND_MALFORMED);
			return;
		}
		olen = o[1] * 8u;
		if (o[0] == SY_ND_OPT_SOURCE_LL) {
			if (unlikely(dad || olen != 8)) {
				sy_drop(w, m, SY_DROP_ND_MALFORMED);
				return;
			}
			memcpy(&sllao, o + 2, sizeof(sllao));
			to = &sllao;
		}
		off += olen;
	}
	if (!sy_ipv6_is_ours(p, ns->target)) {
		/* An IPv6 VIP (vrrp/vrrp.h) is ours only while we are its
		 * master: the backup stays silent, as with ARP. */
		const struct sy_vrrp *v = w->sh->vrrp;
		int st = v != NULL && port == v->port ? sy_vrrp_vip6_state(v, ns->target) : -1;

		if (st != SY_VRRP_MASTER) {
			sy_drop(w, m, st < 0 ? SY_DROP_ND_NOT_OURS : SY_DROP_VRRP_VIP_NOT_MASTER);
			return;
		}
	}
	if (unlikely(rte_is_multicast_ether_addr(to))) {
		sy_drop(w, m, SY_DROP_ND_MALFORMED);
		return;
	}
	/* The asker is a neighbour we may send to next (RFC 4861 7.2.3). */
	if (to == &sllao)
		sy_nd_learn_from_solicit(w, port, ip6->src_addr, &sllao);

	/* The advertisement, in place: the target stays where it is. */
	ip6 = strip_ext_headers(m);
	if (m->pkt_len > sizeof(*ip6) + sizeof(*na))
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - sizeof(*ip6) - sizeof(*na)));
	else if (m->pkt_len < sizeof(*ip6) + sizeof(*na) &&
		 rte_pktmbuf_append(m, (uint16_t)(sizeof(*ip6) + sizeof(*na) - m->pkt_len)) == NULL) {
		sy_drop(w, m, SY_DROP_NO_MBUF);
		return;
	}
	na = rte_pktmbuf_mtod_offset(m, struct sy_nd_msg_ll *, sizeof(*ip6));
	na->msg.type = SY_ND_ADVERT;
	na->msg.code = 0;
	/* Not a router (R clear): routerd forwards nothing. A probe's
	 * answer is unsolicited, to all nodes (RFC 4861 7.2.4). */
	na->msg.flags = (uint8_t)((dad ? 0 : SY_ND_FLAG_SOLICITED) | SY_ND_FLAG_OVERRIDE);
	memset(na->msg.reserved, 0, sizeof(na->msg.reserved));
	na->opt_type = SY_ND_OPT_TARGET_LL;
	na->opt_len = 1;
	memcpy(na->mac, p->mac.addr_bytes, sizeof(na->mac));
	ip6->payload_len = rte_cpu_to_be_16(sizeof(*na));
	ip6->hop_limits = SY_ND_HOP_LIMIT;
	if (dad) {
		memcpy(ip6->dst_addr, all_nodes, 16);
		to = &all_nodes_mac;
	} else {
		memcpy(ip6->dst_addr, ip6->src_addr, 16);
	}
	memcpy(ip6->src_addr, na->msg.target, 16);
	w->counters.nd_adverts_sent++;
	answer_checksum(m);
	sy_ipv6_send_to(w, port, m, to);
}

void
sy_icmp6_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m, const struct rte_ether_addr *peer)
{
	const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	uint32_t off = m->l3_len;
	uint32_t len = sizeof(*ip6) + rte_be_to_cpu_16(ip6->payload_len) - off;
	const uint8_t *icmp;

	if (unlikely(len < 4 || m->data_len < off + 4)) {
		sy_drop(w, m, SY_DROP_ICMP6_TRUNCATED);
		return;
	}
	/* Over the whole message, which may span segments. */
	if (unlikely(sy_icmp6_sum(m, off, len) != 0xffff)) {
		sy_drop(w, m, SY_DROP_ICMP6_BAD_CHECKSUM);
		return;
	}
	icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	switch (icmp[0]) {
	case ICMP6_ECHO_REQUEST:
		if (unlikely(icmp[1] != 0 || len < 8)) {
			sy_drop(w, m, SY_DROP_ICMP6_TRUNCATED);
			return;
		}
		echo_reply(w, port, m);
		return;
	case SY_ND_SOLICIT:
		solicitation(w, port, m, peer, len);
		return;
	case SY_ND_ADVERT:
		sy_nd_advert_input(w, port, m, len);
		return;
	case ICMP6_PACKET_TOO_BIG:
		sy_tcp_ptb6_input(w, port, m, off, len);
		return;
	default:
		sy_drop(w, m, SY_DROP_ICMP6_UNSUPPORTED_TYPE);
		return;
	}
}
