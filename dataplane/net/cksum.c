/* SPDX-License-Identifier: BSD-3-Clause */
/* The Internet checksum over mbuf chains (cksum.h). */
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "net/cksum.h"

uint16_t
sy_cksum_chain(uint64_t acc, const struct rte_mbuf *m, uint32_t skip, uint32_t len)
{
	uint32_t off = 0; /* stream offset of the piece being summed */

	for (; m != NULL && len > 0; m = m->next) {
		uint32_t n;
		uint16_t part;

		if (skip >= m->data_len) {
			skip -= m->data_len;
			continue;
		}
		n = m->data_len - skip < len ? m->data_len - skip : len;
		part = sy_cksum_fold(sy_cksum_add(0, rte_pktmbuf_mtod_offset(m, const uint8_t *, skip), n));
		if (off & 1)
			part = (uint16_t)((part << 8) | (part >> 8));
		acc += part;
		off += n;
		len -= n;
		skip = 0;
	}
	return sy_cksum_fold(acc);
}

uint16_t
sy_l3_phdr_sum(const void *l3, uint8_t proto, uint32_t l4_len)
{
	const uint8_t *b = l3;

	if ((b[0] >> 4) == 6) {
		/* RFC 8200 8.1: both addresses, the upper-layer length and
		 * the next header, the last two as 32-bit words. */
		const rte_be32_t tail[2] = { rte_cpu_to_be_32(l4_len), rte_cpu_to_be_32(proto) };

		return sy_cksum_fold(sy_cksum_add(sy_cksum_add(0, b + 8, 32), tail, sizeof(tail)));
	} else {
		const rte_be16_t tail[2] = { rte_cpu_to_be_16(proto), rte_cpu_to_be_16((uint16_t)l4_len) };

		return sy_cksum_fold(sy_cksum_add(sy_cksum_add(0, b + 12, 8), tail, sizeof(tail)));
	}
}

bool
sy_l4_cksum_ok(const struct rte_mbuf *m)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint64_t l4 = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	uint32_t hlen, tlen;
	uint8_t proto;

	if (l4 == RTE_MBUF_F_RX_L4_CKSUM_GOOD)
		return true;
	if (l4 == RTE_MBUF_F_RX_L4_CKSUM_BAD)
		return false;
	if ((b[0] >> 4) == 6) {
		const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)b;

		/* Extension headers were stripped on input (net/ipv6.c). */
		hlen = sizeof(*ip6);
		tlen = hlen + rte_be_to_cpu_16(ip6->payload_len);
		proto = ip6->proto;
	} else {
		const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)b;

		hlen = rte_ipv4_hdr_len(ip);
		tlen = rte_be_to_cpu_16(ip->total_length);
		proto = ip->next_proto_id;
	}
	/* The pseudo-header's sum plus the segment's, checksum field
	 * included, is 0xffff when the checksum is right. */
	if (tlen < hlen)
		return false;
	return sy_cksum_chain(sy_l3_phdr_sum(b, proto, tlen - hlen), m, hlen, tlen - hlen) == 0xffff;
}

void
sy_tcp_cksum_set(struct rte_mbuf *m)
{
	const uint8_t *b = rte_pktmbuf_mtod(m, const uint8_t *);
	uint32_t hlen, tlen;
	struct rte_tcp_hdr *th;

	if ((b[0] >> 4) == 6) {
		hlen = sizeof(struct rte_ipv6_hdr);
		tlen = hlen + rte_be_to_cpu_16(((const struct rte_ipv6_hdr *)b)->payload_len);
	} else {
		hlen = rte_ipv4_hdr_len((const struct rte_ipv4_hdr *)b);
		tlen = rte_be_to_cpu_16(((const struct rte_ipv4_hdr *)b)->total_length);
	}
	th = rte_pktmbuf_mtod_offset(m, struct rte_tcp_hdr *, hlen);
	th->cksum = 0;
	th->cksum = (uint16_t)~sy_cksum_chain(sy_l3_phdr_sum(b, IPPROTO_TCP, tlen - hlen), m, hlen,
					     tlen - hlen);
}
