/* SPDX-License-Identifier: BSD-3-Clause */
/* The Internet checksum over mbuf chains (cksum.h). */
#include <rte_ip.h>
#include <rte_mbuf.h>

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

bool
sy_ipv4_l4_cksum_ok(const struct rte_mbuf *m)
{
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
	uint64_t l4 = m->ol_flags & RTE_MBUF_F_RX_L4_CKSUM_MASK;
	uint32_t hlen = rte_ipv4_hdr_len(ip), tlen = rte_be_to_cpu_16(ip->total_length);

	if (l4 == RTE_MBUF_F_RX_L4_CKSUM_GOOD)
		return true;
	if (l4 == RTE_MBUF_F_RX_L4_CKSUM_BAD)
		return false;
	/* The pseudo-header's sum plus the segment's, checksum field
	 * included, is 0xffff when the checksum is right. */
	if (tlen < hlen)
		return false;
	return sy_cksum_chain(rte_ipv4_phdr_cksum(ip, 0), m, hlen, tlen - hlen) == 0xffff;
}
