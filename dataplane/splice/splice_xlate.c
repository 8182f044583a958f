/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Translating a spliced TCP/IPv4 segment between legs (splice_xlate.h).
 *
 * Checksums: RFC 1624 eqn. 3, HC' = ~(~HC + ~m + m'), summed over every
 * 16-bit word that changed, folded once at the end. The TCP checksum covers
 * the pseudo-header (so the addresses), the header and the options. Its
 * 16-bit words are aligned to the start of the TCP header (the IPv4 header
 * is a multiple of 4 bytes long, so this also holds in the pseudo-header
 * sum), but an option can start at any offset: "NOP SACK" puts the SACK
 * edges at odd offsets. So each change is accounted over the aligned words
 * that cover it (field_set), never by assuming the field is aligned.
 *
 * Two passes over the options: the first only validates, so a malformed
 * segment is returned untouched (-1) instead of half rewritten.
 */
#include <stddef.h>
#include <string.h>

#include <rte_byteorder.h>

#include "be_access.h"
#include "splice/splice_xlate.h"

#define TCPOPT_EOL 0
#define TCPOPT_NOP 1
#define TCPOPT_MSS 2
#define TCPOPT_SACK 5
#define TCPOPT_TS 8
#define TCPOLEN_MSS 4
#define TCPOLEN_TS 10
#define TCPOLEN_SACK_BASE 2
#define TCPOLEN_SACK_BLOCK 8

/* Offsets inside the TCP header (RFC 9293 3.1). */
#define TH_OFF_SPORT 0
#define TH_OFF_DPORT 2
#define TH_OFF_SEQ 4
#define TH_OFF_ACK 8
#define TH_OFF_WIN 14

/* Sum of the 16-bit words of base[start, end), start and end even. */
static inline uint32_t
words_sum(const uint8_t *base, unsigned start, unsigned end, bool complement)
{
	uint32_t s = 0;
	unsigned i;

	for (i = start; i < end; i += 2) {
		uint16_t w = (uint16_t)((base[i] << 8) | base[i + 1]);

		s += complement ? (uint16_t)~w : w;
	}
	return s;
}

/*
 * Write len bytes at base + off and add ~old + new of the aligned words
 * covering them to *acc. The covering words never leave the header: a TCP
 * header is a multiple of 4 bytes, so an odd-ended field is followed by at
 * least one more byte of it.
 */
static inline void
field_set(uint8_t *base, unsigned off, const void *val, unsigned len, uint32_t *acc)
{
	unsigned start = off & ~1u, end = (off + len + 1) & ~1u;

	if (memcmp(base + off, val, len) == 0)
		return;
	if (acc == NULL) {
		memcpy(base + off, val, len);
		return;
	}
	*acc += words_sum(base, start, end, true);
	memcpy(base + off, val, len);
	*acc += words_sum(base, start, end, false);
}

static inline void
field_add32(uint8_t *base, unsigned off, uint32_t delta, uint32_t *acc)
{
	uint8_t v[4];

	if (delta == 0)
		return;
	put_be32(v, get_be32(base + off) + delta);
	field_set(base, off, v, 4, acc);
}

/* RFC 1624 eqn. 3 with all the changed words already in acc. */
static inline uint16_t
csum_finish(uint16_t csum_be, uint32_t acc)
{
	uint32_t s = (uint16_t)~rte_be_to_cpu_16(csum_be) + acc;

	s = (s & 0xffff) + (s >> 16);
	s = (s & 0xffff) + (s >> 16);
	return rte_cpu_to_be_16((uint16_t)~s);
}

/*
 * First pass: can the option list be walked? Same rule as
 * sy_tcp_parse_syn_opts(): a length < 2 or one running past the header is
 * malformed. A known option with a length it cannot have (a SACK of 7
 * bytes, a 9-byte TS) is left alone by the second pass, because Linux and
 * FreeBSD ignore such an option too; translating it would need guessing.
 */
static int
opts_check(const uint8_t *opt, unsigned n)
{
	unsigned i = 0;

	while (i < n) {
		if (opt[i] == TCPOPT_EOL)
			return 0;
		if (opt[i] == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= n || opt[i + 1] < 2 || i + opt[i + 1] > n)
			return -1;
		i += opt[i + 1];
	}
	return 0;
}

/*
 * The TCP part of a translation: ports, seq, ack, window and the options,
 * the checksum updated from tcp_acc (what the pseudo-header's change has
 * already added) or, with offload, left as the caller sets it. The options
 * were checked.
 */
static void
xlate_tcp(uint8_t *t, unsigned hlen, const struct sy_xlate *x, uint32_t tcp_acc)
{
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)t;
	const bool syn = (th->tcp_flags & RTE_TCP_SYN_FLAG) != 0;
	const bool ack = (th->tcp_flags & RTE_TCP_ACK_FLAG) != 0;
	uint32_t *pacc = x->csum_offload ? NULL : &tcp_acc;
	unsigned i;

	field_set(t, TH_OFF_SPORT, &x->src_port, 2, pacc);
	field_set(t, TH_OFF_DPORT, &x->dst_port, 2, pacc);
	field_add32(t, TH_OFF_SEQ, x->seq_delta, pacc);
	/* Without ACK the field is meaningless (often 0): leave it as sent. */
	if (ack)
		field_add32(t, TH_OFF_ACK, x->ack_delta, pacc);
	/* A SYN's window is never scaled (RFC 7323 2.2). */
	if (!syn && x->win_shift_in != x->win_shift_out) {
		uint16_t w = rte_cpu_to_be_16(sy_win_rescale(rte_be_to_cpu_16(th->rx_win),
							  x->win_shift_in, x->win_shift_out));

		field_set(t, TH_OFF_WIN, &w, 2, pacc);
	}

	for (i = sizeof(*th); i < hlen;) {
		uint8_t kind = t[i], len;

		if (kind == TCPOPT_EOL)
			break;
		if (kind == TCPOPT_NOP) {
			i++;
			continue;
		}
		len = t[i + 1];
		if (kind == TCPOPT_TS && len == TCPOLEN_TS) {
			field_add32(t, i + 2, x->tsval_delta, pacc);
			/* RFC 7323 3.2: TSecr is valid only with ACK; a SYN's is 0
			 * and must stay 0, not become -d_ts. */
			if (ack)
				field_add32(t, i + 6, x->tsecr_delta, pacc);
		} else if (kind == TCPOPT_SACK && len >= TCPOLEN_SACK_BASE + TCPOLEN_SACK_BLOCK &&
			   (len - TCPOLEN_SACK_BASE) % TCPOLEN_SACK_BLOCK == 0) {
			unsigned e;

			/* RFC 2018: both edges are sequence numbers of the
			 * receiver's space; an untranslated block would make the
			 * backend retransmit the wrong data or ignore it. */
			for (e = i + 2; e < i + len; e += 4)
				field_add32(t, e, x->sack_delta, pacc);
		} else if (kind == TCPOPT_MSS && len == TCPOLEN_MSS && syn && x->mss_clamp != 0) {
			uint16_t mss = (uint16_t)((t[i + 2] << 8) | t[i + 3]);

			/* Only ever lower: a segment larger than the other
			 * leg's path allows must never be produced. */
			if (mss > x->mss_clamp) {
				uint8_t v[2] = { (uint8_t)(x->mss_clamp >> 8), (uint8_t)x->mss_clamp };

				field_set(t, i + 2, v, 2, pacc);
			}
		}
		i += len;
	}

	if (!x->csum_offload)
		th->cksum = csum_finish(th->cksum, tcp_acc);
}

int
sy_xlate_tcp4(struct rte_ipv4_hdr *ip, struct rte_tcp_hdr *th, const struct sy_xlate *x)
{
	uint8_t *t = (uint8_t *)th;
	unsigned hlen = (unsigned)(th->data_off >> 4) * 4;
	uint32_t ip_acc = 0, tcp_acc = 0;

	if (hlen < sizeof(*th) || opts_check(t + sizeof(*th), hlen - sizeof(*th)) < 0)
		return -1;

	/* Addresses: in the IPv4 header and in the TCP pseudo-header. */
	if (!x->csum_offload) {
		uint8_t *ih = (uint8_t *)ip;
		unsigned so = offsetof(struct rte_ipv4_hdr, src_addr);
		uint32_t before = words_sum(ih, so, so + 8, true);

		ip->src_addr = x->src_ip;
		ip->dst_addr = x->dst_ip;
		ip_acc = before + words_sum(ih, so, so + 8, false);
		tcp_acc = ip_acc;
		ip->hdr_checksum = csum_finish(ip->hdr_checksum, ip_acc);
	} else {
		ip->src_addr = x->src_ip;
		ip->dst_addr = x->dst_ip;
	}

	xlate_tcp(t, hlen, x, tcp_acc);
	if (x->csum_offload) {
		/* What the PMD expects with IP_CKSUM / TCP_CKSUM offload. */
		ip->hdr_checksum = 0;
		th->cksum = 0;
		th->cksum = rte_ipv4_phdr_cksum(ip, 0);
	}
	return 0;
}

int
sy_xlate_tcp_only(struct rte_tcp_hdr *th, const struct sy_xlate *x, uint32_t phdr_acc)
{
	uint8_t *t = (uint8_t *)th;
	unsigned hlen = (unsigned)(th->data_off >> 4) * 4;

	if (hlen < sizeof(*th) || opts_check(t + sizeof(*th), hlen - sizeof(*th)) < 0)
		return -1;
	xlate_tcp(t, hlen, x, phdr_acc);
	return 0;
}
