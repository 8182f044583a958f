/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "net/net.h"
#include "worker.h"

/* Echo request -> echo reply in the same mbuf (RFC 792, RFC 1122 3.2.2.6). */
void
sy_icmp_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	uint16_t hlen = m->l3_len;
	uint16_t ilen = (uint16_t)(rte_be_to_cpu_16(ip->total_length) - hlen);
	struct rte_icmp_hdr *icmp;
	uint32_t src;
	uint16_t sum;

	if (unlikely(ilen < sizeof(*icmp) || m->data_len < hlen + sizeof(*icmp))) {
		sy_drop(w, m, SY_DROP_ICMP_TRUNCATED);
		return;
	}
	/* Over the whole message, which may span segments. */
	if (unlikely(rte_raw_cksum_mbuf(m, hlen, ilen, &sum) != 0 || sum != 0xffff)) {
		sy_drop(w, m, SY_DROP_ICMP_BAD_CHECKSUM);
		return;
	}
	icmp = rte_pktmbuf_mtod_offset(m, struct rte_icmp_hdr *, hlen);
	if (icmp->icmp_type != RTE_IP_ICMP_ECHO_REQUEST || icmp->icmp_code != 0) {
		sy_drop(w, m, SY_DROP_ICMP_UNSUPPORTED_TYPE);
		return;
	}

	icmp->icmp_type = RTE_IP_ICMP_ECHO_REPLY;
	icmp->icmp_cksum = 0;
	rte_raw_cksum_mbuf(m, hlen, ilen, &sum);
	icmp->icmp_cksum = (uint16_t)~sum;

	/* No IP options echoed back. */
	ip = sy_ipv4_strip_options(m, hlen);
	/* Answer from the address that was pinged. */
	src = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = src;
	ip->time_to_live = SY_IPV4_DEFAULT_TTL;
	ip->fragment_offset = 0;
	w->counters.icmp_echo_replies++;
	sy_ipv4_output(w, m);
}
