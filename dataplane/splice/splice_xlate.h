/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Translating a spliced TCP/IPv4 packet from one leg to the other
 * (docs/architecture.md 9.3, "Numbers to translate"). One struct describes
 * one direction; the same code serves both:
 *
 *   client -> backend: addresses/ports to (snat:port_r -> backend), seq and
 *                      TSval forward into our backend leg's spaces, ack, SACK
 *                      blocks and TSecr back into the backend's
 *   backend -> client: addresses/ports to (vip:listen -> client), seq and
 *                      TSval forward into our client leg's spaces, ack, SACK
 *                      blocks and TSecr back into the client's, window
 *                      rescaled from win_shift_in to win_shift_out
 * (the deltas: conn.h, seq_delta and ts_delta; splice.h builds this struct)
 *
 * Checksums are updated incrementally (RFC 1624) over every changed field,
 * including the options inside the TCP checksum; the IPv4 header checksum
 * likewise. All arithmetic wraps at 2^32.
 */
#ifndef SY_SPLICE_XLATE_H
#define SY_SPLICE_XLATE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_tcp.h>

struct sy_xlate {
	uint32_t src_ip, dst_ip;     /* network order: the new addresses */
	uint16_t src_port, dst_port; /* network order: the new ports */
	uint32_t seq_delta;          /* added to seq */
	uint32_t ack_delta;          /* added to ack (when ACK is set) */
	uint32_t sack_delta;         /* added to both edges of every SACK block */
	uint32_t tsval_delta;        /* added to TSval */
	uint32_t tsecr_delta;        /* added to TSecr */
	uint8_t win_shift_in;        /* scale the sender's window was in */
	uint8_t win_shift_out;       /* scale the receiver expects */
	uint16_t mss_clamp;          /* SYN/SYN-ACK MSS option lowered to this; 0 = leave */
	bool csum_offload;           /* the TX port computes checksums: leave the IPv4
	                              * checksum 0 and the TCP one the pseudo-header sum,
	                              * as RTE_MBUF_F_TX_IP_CKSUM | RTE_MBUF_F_TX_TCP_CKSUM
	                              * expect (caller sets ol_flags, l2_len, l3_len) */
};

/*
 * Translate in place. ip points at the IPv4 header, th at the TCP header that
 * follows it (contiguous with its options). Returns 0, or -1 when the TCP
 * options are malformed (the packet should be dropped).
 *
 * Window: win_out = ceil((win << win_shift_in) / 2^win_shift_out), capped at
 * 65535, and never 0 unless win was 0. Not applied to SYN segments (their
 * window is never scaled).
 */
int sy_xlate_tcp4(struct rte_ipv4_hdr *ip, struct rte_tcp_hdr *th, const struct sy_xlate *x);

/* The TCP header's part of a translation alone (ports, seq, ack, window,
 * options; x's addresses unused), for a caller that has changed the IP
 * header itself: phdr_acc is what that did to the TCP pseudo-header, in
 * RFC 1624's terms (the sum of ~old + new over its changed 16-bit words,
 * big-endian values). x->csum_offload must be false. 0, or -1 for malformed
 * options, with nothing changed. */
int sy_xlate_tcp_only(struct rte_tcp_hdr *th, const struct sy_xlate *x, uint32_t phdr_acc);

struct rte_mbuf;
/*
 * Across the families (splice_xlate46.c): an IPv6 client leg's segment m
 * (data at its IPv6 header, no extension headers) made the IPv4 segment x
 * describes, and an IPv4 backend segment made the IPv6 segment from src6 to
 * dst6 (x's addresses unused). Data at
 * the new IP header, m->l3_len set. Returns 0, or -1 when the TCP options
 * are malformed or the mbuf has no headroom (drop it).
 */
int sy_xlate_6to4(struct rte_mbuf *m, const struct sy_xlate *x);
int sy_xlate_4to6(struct rte_mbuf *m, const struct sy_xlate *x, const uint8_t src6[16],
		  const uint8_t dst6[16]);
/* Within IPv6: m's addresses become src6 and dst6, and its TCP header is
 * translated by x. */
int sy_xlate_6to6(struct rte_mbuf *m, const struct sy_xlate *x, const uint8_t src6[16],
		  const uint8_t dst6[16]);

/*
 * The IP header a segment gets when it changes family, one layout for the
 * per-packet path (splice_xlate46.c) and the burst fast path (splice_fast.c):
 * IPv4 from IPv6 without options, not a fragment (DF: an IPv6 router never
 * fragments, RFC 8200 5), ID 0, traffic class and hop limit carried over;
 * IPv6 from IPv4 with the TOS and TTL as traffic class and hop limit, flow
 * label 0. tcp_len is the TCP segment's length (host order), the addresses
 * network order. Each writes the whole header (the IPv4 one with its
 * checksum, as rte_ipv4_cksum() would make it): a caller reads what it carries over first, as the new header
 * may overlap the old one.
 */
/* The part of sy_xlate_ipv4_hdr's checksum sum that a connection's
 * direction fixes: its addresses (network order) and the header's constants
 * (version and length, DF, protocol), folded to 16 bits, host order. The
 * fast path keeps it in the record (conn_t.h, csum_ip) and adds what each
 * segment brings (sy_xlate_ipv4_hdr_base). */
static inline uint16_t
sy_xlate_ipv4_sum_base(uint32_t src, uint32_t dst)
{
	const uint32_t s4 = rte_be_to_cpu_32(src), d4 = rte_be_to_cpu_32(dst);
	uint32_t sum = ((uint32_t)RTE_IPV4_VHL_DEF << 8) + RTE_IPV4_HDR_DF_FLAG + IPPROTO_TCP +
		       (s4 >> 16) + (s4 & 0xffff) + (d4 >> 16) + (d4 & 0xffff);

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* sy_xlate_ipv4_hdr with the connection's part of the checksum sum given
 * (sy_xlate_ipv4_sum_base(src, dst)). */
static inline void
sy_xlate_ipv4_hdr_base(struct rte_ipv4_hdr *ip, uint8_t tos, uint8_t ttl, uint16_t tcp_len,
		       uint32_t src, uint32_t dst, uint16_t base)
{
	const uint16_t len = (uint16_t)(sizeof(*ip) + tcp_len);
	/* The checksum from the values, not read back from the header just
	 * written in pieces of every size (a load over two of those stores
	 * waits for both to retire): its 16-bit words, host order. */
	uint32_t sum = (uint32_t)base + tos + len + ((uint32_t)ttl << 8);

	sum = (sum & 0xffff) + (sum >> 16);
	sum = (sum & 0xffff) + (sum >> 16);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = tos;
	ip->total_length = rte_cpu_to_be_16(len);
	ip->packet_id = 0;
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = ttl;
	ip->next_proto_id = IPPROTO_TCP;
	ip->hdr_checksum = rte_cpu_to_be_16((uint16_t)~sum);
	ip->src_addr = src;
	ip->dst_addr = dst;
}

static inline void
sy_xlate_ipv4_hdr(struct rte_ipv4_hdr *ip, uint8_t tos, uint8_t ttl, uint16_t tcp_len,
		  uint32_t src, uint32_t dst)
{
	sy_xlate_ipv4_hdr_base(ip, tos, ttl, tcp_len, src, dst, sy_xlate_ipv4_sum_base(src, dst));
}

static inline void
sy_xlate_ipv6_hdr(struct rte_ipv6_hdr *ip6, uint8_t tc, uint8_t hop, uint16_t tcp_len,
		  const uint8_t src[16], const uint8_t dst[16])
{
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28 | (uint32_t)tc << 20);
	ip6->payload_len = rte_cpu_to_be_16(tcp_len);
	ip6->proto = IPPROTO_TCP;
	ip6->hop_limits = hop;
	memcpy(ip6->src_addr, src, 16);
	memcpy(ip6->dst_addr, dst, 16);
}

/* win_out for win (docs/architecture.md 9.3, Window). */
static inline uint16_t
sy_win_rescale(uint16_t win, uint8_t shift_in, uint8_t shift_out)
{
	/* RFC 7323 2.3: the real window is win << shift. Rounding up rather
	 * than down keeps a small non-zero window from becoming 0, which the
	 * client would read as "stop" and probe (RFC 9293 3.8.6.1) while the
	 * backend waits for data. The cap is the field's limit. */
	uint64_t bytes = (uint64_t)win << shift_in;
	uint64_t w = (bytes + ((1ull << shift_out) - 1)) >> shift_out;

	return w > 65535 ? 65535 : (uint16_t)w;
}

/* RFC 1624 incremental checksum update for a 16-bit / 32-bit field change. */
static inline uint16_t
sy_csum_update16(uint16_t csum, uint16_t old_be, uint16_t new_be)
{
	uint32_t s = (uint16_t)~csum + (uint16_t)~old_be + new_be;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

static inline uint16_t
sy_csum_update32(uint16_t csum, uint32_t old_be, uint32_t new_be)
{
	csum = sy_csum_update16(csum, (uint16_t)(old_be >> 16), (uint16_t)(new_be >> 16));
	return sy_csum_update16(csum, (uint16_t)(old_be & 0xffff), (uint16_t)(new_be & 0xffff));
}

#endif
