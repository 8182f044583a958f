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
