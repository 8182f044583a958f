/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A received TCP segment's headers, in either family: the data plane holds
 * segments with their data at the IP header (IPv4, options included, or
 * IPv6 with its extension headers already stripped by net/ipv6.c), and these
 * find the TCP header and the payload without caring which.
 */
#ifndef SY_TCP_SEG_H
#define SY_TCP_SEG_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

/* The segment is IPv6 (its first byte's version). */
static inline bool
sy_seg_is_v6(const struct rte_mbuf *m)
{
	return (*rte_pktmbuf_mtod(m, const uint8_t *) >> 4) == 6;
}

/* Bytes of IP header before the TCP header. */
static inline uint32_t
sy_seg_l3_len(const struct rte_mbuf *m)
{
	if (sy_seg_is_v6(m))
		return sizeof(struct rte_ipv6_hdr);
	return rte_ipv4_hdr_len(rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *));
}

static inline struct rte_tcp_hdr *
sy_seg_tcp(const struct rte_mbuf *m)
{
	return rte_pktmbuf_mtod_offset(m, struct rte_tcp_hdr *, sy_seg_l3_len(m));
}

/* IP header and TCP header, options included. */
static inline uint32_t
sy_seg_hdr_len(const struct rte_mbuf *m)
{
	return sy_seg_l3_len(m) + (sy_seg_tcp(m)->data_off >> 4) * 4u;
}

/* The datagram's length as its IP header says (IPv6: the fixed header
 * plus its payload length). */
static inline uint32_t
sy_seg_ip_len(const struct rte_mbuf *m)
{
	if (sy_seg_is_v6(m))
		return sizeof(struct rte_ipv6_hdr) +
		       rte_be_to_cpu_16(rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *)->payload_len);
	return rte_be_to_cpu_16(rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *)->total_length);
}

/* Payload bytes. */
static inline uint32_t
sy_seg_payload_len(const struct rte_mbuf *m)
{
	return sy_seg_ip_len(m) - sy_seg_hdr_len(m);
}

#endif
