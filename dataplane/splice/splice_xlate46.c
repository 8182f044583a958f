/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Splicing with an IPv6 leg (splice_xlate.h). Across the families (an IPv6
 * leg and an IPv4 one) the IP header is replaced, not edited: IPv6's 40
 * bytes become IPv4's 20 one way and the other way back (the mbuf's
 * headroom takes the 20 more); within IPv6 the addresses are rewritten. The
 * TCP checksum covers a pseudo-header of the addresses and the length: in
 * all three the difference of the two pseudo-headers' sums (RFC 1624) is
 * counted into the translation of the TCP header (sy_xlate_tcp_only) with
 * its own changes. The MSS each side was told already leaves room for the
 * longer header (splice.c, tcp_in.c), so a translated segment never
 * outgrows its path.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "net/cksum.h"
#include "splice/splice_xlate.h"

/* The change from pseudo-header sum `from` to `to` as sy_xlate_tcp_only
 * counts changes, ~m + m' over big-endian word values (RFC 1624 eqn. 3):
 * the sums are in memory order, so swapped on a little-endian host. */
static uint32_t
phdr_change(uint16_t from, uint16_t to)
{
	return (uint16_t)~rte_be_to_cpu_16(from) + (uint32_t)rte_be_to_cpu_16(to);
}

int
sy_xlate_6to4(struct rte_mbuf *m, const struct sy_xlate *x)
{
	struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
	const uint16_t tcp_len = rte_be_to_cpu_16(ip6->payload_len);
	const uint16_t from = sy_l3_phdr_sum(ip6, IPPROTO_TCP, tcp_len);
	const uint8_t hop = ip6->hop_limits;
	const uint8_t tc = (uint8_t)(rte_be_to_cpu_32(ip6->vtc_flow) >> 20);
	struct rte_ipv4_hdr *ip;

	if (m->data_len < sizeof(*ip6) + sizeof(struct rte_tcp_hdr))
		return -1;
	/* The IPv4 header takes the last 20 bytes of the IPv6 one. */
	ip = (struct rte_ipv4_hdr *)rte_pktmbuf_adj(m, sizeof(*ip6) - sizeof(*ip));
	sy_xlate_ipv4_hdr(ip, tc, hop, tcp_len, x->src_ip, x->dst_ip);
	m->l3_len = sizeof(*ip);
	return sy_xlate_tcp_only((struct rte_tcp_hdr *)(ip + 1), x,
				 phdr_change(from, sy_l3_phdr_sum(ip, IPPROTO_TCP, tcp_len)));
}

int
sy_xlate_4to6(struct rte_mbuf *m, const struct sy_xlate *x, const uint8_t src6[16],
	      const uint8_t dst6[16])
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	const uint32_t ihl = rte_ipv4_hdr_len(ip);
	const uint16_t tcp_len = (uint16_t)(rte_be_to_cpu_16(ip->total_length) - ihl);
	struct rte_ipv6_hdr next, *ip6;

	/* The new header first, to count its pseudo-header's change into the
	 * TCP part's translation; nothing is written when the options are
	 * malformed. */
	sy_xlate_ipv6_hdr(&next, ip->type_of_service, ip->time_to_live, tcp_len, src6, dst6);
	if (sy_xlate_tcp_only((struct rte_tcp_hdr *)((uint8_t *)ip + ihl), x,
			      phdr_change(sy_l3_phdr_sum(ip, IPPROTO_TCP, tcp_len),
					  sy_l3_phdr_sum(&next, IPPROTO_TCP, tcp_len))) < 0)
		return -1;
	/* 40 bytes where the IPv4 header (and any options) were. */
	if (ihl < sizeof(*ip6)) {
		ip6 = (struct rte_ipv6_hdr *)rte_pktmbuf_prepend(m, (uint16_t)(sizeof(*ip6) - ihl));
		if (ip6 == NULL)
			return -1;
	} else {
		ip6 = (struct rte_ipv6_hdr *)rte_pktmbuf_adj(m, (uint16_t)(ihl - sizeof(*ip6)));
	}
	*ip6 = next;
	m->l3_len = sizeof(*ip6);
	return 0;
}

int
sy_xlate_6to6(struct rte_mbuf *m, const struct sy_xlate *x, const uint8_t src6[16],
	      const uint8_t dst6[16])
{
	struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
	const uint16_t tcp_len = rte_be_to_cpu_16(ip6->payload_len);
	struct rte_ipv6_hdr next = *ip6;
	uint16_t from, to;

	if (m->data_len < sizeof(*ip6) + sizeof(struct rte_tcp_hdr))
		return -1;
	memcpy(next.src_addr, src6, 16);
	memcpy(next.dst_addr, dst6, 16);
	from = sy_l3_phdr_sum(ip6, IPPROTO_TCP, tcp_len);
	to = sy_l3_phdr_sum(&next, IPPROTO_TCP, tcp_len);
	/* Nothing is written when the options are malformed. */
	if (sy_xlate_tcp_only((struct rte_tcp_hdr *)(ip6 + 1), x, phdr_change(from, to)) < 0)
		return -1;
	memcpy(ip6->src_addr, src6, 16);
	memcpy(ip6->dst_addr, dst6, 16);
	m->l3_len = sizeof(*ip6);
	return 0;
}
