/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP options of SYN / SYN-ACK segments (RFC 9293 3.1, RFC 7323, RFC 2018).
 *
 * Parsing follows Linux tcp_parse_options(): EOL ends the list, NOP is one
 * byte, every other option carries a length byte. A known option with the
 * wrong length is ignored rather than trusted (a 3-byte "MSS" must not be
 * read as an MSS), and when an option repeats the last one wins. Lengths
 * that cannot be walked (< 2, or past the header) make the whole header
 * malformed: a parser that guessed would read past the options into payload.
 */
#include <string.h>

#include "be_access.h"
#include "tcp/tcp_opts.h"

#define TCPOPT_EOL 0
#define TCPOPT_NOP 1
#define TCPOPT_MSS 2
#define TCPOPT_WS 3
#define TCPOPT_SACK_PERM 4
#define TCPOPT_TS 8

#define TCPOLEN_MSS 4
#define TCPOLEN_WS 3
#define TCPOLEN_SACK_PERM 2
#define TCPOLEN_TS 10

/* RFC 7323 2.3: a shift above 14 is treated as 14 (and logged by Linux). */
#define TCP_MAX_WSCALE 14

/* The options area of th: [*opt, *opt + return value). -1 if data_off < 5. */
static inline int
tcp_opts_area(const struct rte_tcp_hdr *th, const uint8_t **opt)
{
	unsigned hlen = (unsigned)(th->data_off >> 4) * 4;

	if (hlen < sizeof(*th))
		return -1;
	*opt = (const uint8_t *)th + sizeof(*th);
	return (int)(hlen - sizeof(*th));
}

int
sy_tcp_parse_syn_opts(const struct rte_tcp_hdr *th, struct sy_tcp_syn_opts *out)
{
	const uint8_t *p;
	int n = tcp_opts_area(th, &p);
	unsigned i, len;

	memset(out, 0, sizeof(*out));
	out->wscale = SY_TCP_WS_NONE;
	if (n < 0)
		return -1;

	for (i = 0; i < (unsigned)n;) {
		uint8_t kind = p[i];

		if (kind == TCPOPT_EOL)
			break;
		if (kind == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= (unsigned)n)
			return -1; /* kind byte without its length byte */
		len = p[i + 1];
		if (len < 2 || i + len > (unsigned)n)
			return -1;
		switch (kind) {
		case TCPOPT_MSS:
			if (len == TCPOLEN_MSS)
				out->mss = get_be16(p + i + 2);
			break;
		case TCPOPT_WS:
			if (len == TCPOLEN_WS) {
				uint8_t ws = p[i + 2];

				out->wscale = ws > TCP_MAX_WSCALE ? TCP_MAX_WSCALE : ws;
			}
			break;
		case TCPOPT_SACK_PERM:
			if (len == TCPOLEN_SACK_PERM)
				out->sack_ok = true;
			break;
		case TCPOPT_TS:
			if (len == TCPOLEN_TS) {
				out->ts_ok = true;
				out->tsval = get_be32(p + i + 2);
				out->tsecr = get_be32(p + i + 6);
			}
			break;
		default:
			break; /* unknown (MD5, TFO, MPTCP...): skipped by length */
		}
		i += len;
	}
	return 0;
}

bool
sy_tcp_find_ts(const struct rte_tcp_hdr *th, uint32_t *tsval, uint32_t *tsecr)
{
	const uint8_t *p;
	int n = tcp_opts_area(th, &p);
	unsigned i, len;

	if (n < 0)
		return false;
	for (i = 0; i < (unsigned)n;) {
		uint8_t kind = p[i];

		if (kind == TCPOPT_EOL)
			return false;
		if (kind == TCPOPT_NOP) {
			i++;
			continue;
		}
		if (i + 1 >= (unsigned)n)
			return false;
		len = p[i + 1];
		if (len < 2 || i + len > (unsigned)n)
			return false;
		if (kind == TCPOPT_TS && len == TCPOLEN_TS) {
			*tsval = get_be32(p + i + 2);
			*tsecr = get_be32(p + i + 6);
			return true;
		}
		i += len;
	}
	return false;
}

/*
 * Byte for byte what Linux tcp_options_write() emits for a SYN / SYN-ACK, so
 * a fingerprinting middlebox or a peer's quirk table sees an ordinary Linux
 * stack:
 *
 *   MSS          02 04 mm mm
 *   SACK+TS      04 02 08 0a <tsval> <tsecr>    (SACK-permitted folded into
 *   TS only      01 01 08 0a <tsval> <tsecr>     the TS option's padding)
 *   SACK only    01 01 04 02
 *   WS           01 03 03 ss
 *
 * Every piece is a multiple of 4 bytes, so the total (at most 24) needs no
 * trailing padding.
 */
unsigned
sy_tcp_write_syn_opts(uint8_t *buf, const struct sy_tcp_syn_opts *o)
{
	unsigned n = 0;

	if (o->mss != 0) {
		buf[n++] = TCPOPT_MSS;
		buf[n++] = TCPOLEN_MSS;
		put_be16(buf + n, o->mss);
		n += 2;
	}
	if (o->ts_ok) {
		if (o->sack_ok) {
			buf[n++] = TCPOPT_SACK_PERM;
			buf[n++] = TCPOLEN_SACK_PERM;
		} else {
			buf[n++] = TCPOPT_NOP;
			buf[n++] = TCPOPT_NOP;
		}
		buf[n++] = TCPOPT_TS;
		buf[n++] = TCPOLEN_TS;
		put_be32(buf + n, o->tsval);
		put_be32(buf + n + 4, o->tsecr);
		n += 8;
	} else if (o->sack_ok) {
		buf[n++] = TCPOPT_NOP;
		buf[n++] = TCPOPT_NOP;
		buf[n++] = TCPOPT_SACK_PERM;
		buf[n++] = TCPOLEN_SACK_PERM;
	}
	if (o->wscale != SY_TCP_WS_NONE) {
		buf[n++] = TCPOPT_NOP;
		buf[n++] = TCPOPT_WS;
		buf[n++] = TCPOLEN_WS;
		buf[n++] = o->wscale > TCP_MAX_WSCALE ? TCP_MAX_WSCALE : o->wscale;
	}
	return n;
}

unsigned
sy_tcp_write_ts_opt(uint8_t *buf, uint32_t tsval, uint32_t tsecr)
{
	buf[0] = TCPOPT_NOP;
	buf[1] = TCPOPT_NOP;
	buf[2] = TCPOPT_TS;
	buf[3] = TCPOLEN_TS;
	put_be32(buf + 4, tsval);
	put_be32(buf + 8, tsecr);
	return 12;
}
