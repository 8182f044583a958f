/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The PROXY protocol header a front load balancer puts before a
 * connection's first byte (HAProxy's "The PROXY protocol", versions 1 and
 * 2; peek.h, sy_proxy_proto_peek). Read from the held fragments with the
 * peek cursor: never past what is held, never allocating.
 *
 * Version 1: "PROXY TCP4 <src> <dst> <sport> <dport>\r\n" (TCP6 alike, or
 * "PROXY UNKNOWN ...\r\n"), at most 107 bytes. Each field is checked:
 * addresses in their family's text form, ports 0..65535 without leading
 * zeros or signs, single spaces.
 * Version 2: a 12-byte signature, version 2 and a command (LOCAL: a health
 * check from the balancer itself, its own address stands; PROXY: the
 * addresses follow), family and transport, a length, the addresses, then
 * TLVs, which are skipped within that length. Only TCP over IPv4 and IPv6
 * carries an address we use; another family or transport with PROXY keeps
 * the connection's own address (the specification's "unspec" rule).
 * A header claiming more than SY_PP_MAX_LEN bytes is refused: what we hold
 * of a connection is bounded, and no balancer sends TLVs that long.
 */
#include <string.h>

#include <arpa/inet.h>

#include "peek/peek.h"
#include "peek/peek_cursor.h"

static const uint8_t v2_sig[12] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d,
				     0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a };

static uint32_t
frags_total(const struct sy_frag *f, unsigned n)
{
	uint32_t t = 0;
	unsigned i;

	for (i = 0; i < n; i++)
		t += f[i].len;
	return t;
}

/* n bytes at the cursor into out; false if fewer are held. */
static bool
cur_read(struct sy_peek_cur *c, uint8_t *out, uint32_t n)
{
	uint32_t i;

	if (c->limit - c->pos < n)
		return false;
	for (i = 0; i < n; i++)
		out[i] = (uint8_t)cur_next(c);
	return true;
}

/* One v1 field up to `stop` (' ' or '\r') into buf; its length, or -1 when
 * too long, empty, or holding a byte no field may. -2: not enough bytes. */
static int
v1_field(struct sy_peek_cur *c, char stop, char *buf, unsigned room)
{
	unsigned n = 0;

	for (;;) {
		int b = cur_next(c);

		if (b < 0)
			return -2;
		if (b == stop)
			break;
		if (b == ' ' || b == '\r' || b == '\n' || b < 0x21 || b > 0x7e || n + 1 >= room)
			return -1;
		buf[n++] = (char)b;
	}
	buf[n] = '\0';
	return n > 0 ? (int)n : -1;
}

static bool
v1_port(const char *s, uint16_t *port)
{
	unsigned long v = 0;
	const char *p;

	if (s[0] == '\0' || (s[0] == '0' && s[1] != '\0') || strlen(s) > 5)
		return false;
	for (p = s; *p; p++) {
		if (*p < '0' || *p > '9')
			return false;
		v = v * 10 + (unsigned long)(*p - '0');
	}
	if (v > 65535)
		return false;
	*port = (uint16_t)v;
	return true;
}

static enum sy_peek_status
parse_v1(struct sy_peek_cur *c, struct sy_pp_info *out)
{
	char proto[8], src[48], dst[48], sp[8], dp[8];
	int r = 0;

	/* "PROXY " was matched by the caller. The protocol ends at a space,
	 * or at the CR of "PROXY UNKNOWN\r\n". */
	{
		unsigned n = 0;
		int b;

		while ((b = cur_next(c)) >= 0 && b != ' ' && b != '\r' && n + 1 < sizeof(proto))
			proto[n++] = (char)b;
		proto[n] = '\0';
		if (b < 0)
			return SY_PEEK_MORE;
		if (b != ' ' && b != '\r')
			return SY_PEEK_BAD;
		if (b == '\r') {
			if (strcmp(proto, "UNKNOWN") != 0)
				return SY_PEEK_BAD;
			if ((b = cur_next(c)) < 0)
				return SY_PEEK_MORE;
			if (b != '\n')
				return SY_PEEK_BAD;
			out->len = c->pos;
			out->has_addr = false;
			return SY_PEEK_DONE;
		}
	}
	if (strcmp(proto, "UNKNOWN") == 0) {
		/* Anything up to CRLF, within the 107 bytes: the balancer
		 * could not tell (a health check): our own address stands. */
		for (;;) {
			int b = cur_next(c);

			if (b < 0)
				return c->pos >= SY_PP_V1_MAX ? SY_PEEK_BAD : SY_PEEK_MORE;
			if (b == '\r') {
				b = cur_next(c);
				if (b < 0)
					return c->pos >= SY_PP_V1_MAX ? SY_PEEK_BAD : SY_PEEK_MORE;
				if (b != '\n' || c->pos > SY_PP_V1_MAX)
					return SY_PEEK_BAD; /* 107 bytes, CRLF included */
				break;
			}
			if (b == '\n' || c->pos >= SY_PP_V1_MAX)
				return SY_PEEK_BAD;
		}
		out->len = c->pos;
		out->has_addr = false;
		return SY_PEEK_DONE;
	}
	if (strcmp(proto, "TCP4") != 0 && strcmp(proto, "TCP6") != 0)
		return SY_PEEK_BAD;
	if ((r = v1_field(c, ' ', src, sizeof(src))) < 0 || (r = v1_field(c, ' ', dst, sizeof(dst))) < 0 ||
	    (r = v1_field(c, ' ', sp, sizeof(sp))) < 0 || (r = v1_field(c, '\r', dp, sizeof(dp))) < 0)
		return r == -2 && c->pos < SY_PP_V1_MAX ? SY_PEEK_MORE : SY_PEEK_BAD;
	{
		int b = cur_next(c);

		if (b < 0)
			return SY_PEEK_MORE;
		if (b != '\n' || c->pos > SY_PP_V1_MAX)
			return SY_PEEK_BAD;
	}
	out->family = proto[3] == '4' ? AF_INET : AF_INET6;
	if (inet_pton(out->family, src, out->src) != 1 || inet_pton(out->family, dst, out->dst) != 1 ||
	    !v1_port(sp, &out->sport) || !v1_port(dp, &out->dport))
		return SY_PEEK_BAD;
	out->len = c->pos;
	out->has_addr = true;
	return SY_PEEK_DONE;
}

static enum sy_peek_status
parse_v2(struct sy_peek_cur *c, struct sy_pp_info *out)
{
	uint8_t h[4], a[36];
	uint32_t len;

	/* The signature was matched by the caller. */
	if (!cur_read(c, h, 4))
		return SY_PEEK_MORE;
	if ((h[0] >> 4) != 2 || (h[0] & 0x0f) > 1)
		return SY_PEEK_BAD; /* version 2, command LOCAL (0) or PROXY (1) */
	len = (uint32_t)h[2] << 8 | h[3];
	if (16 + len > SY_PP_MAX_LEN)
		return SY_PEEK_BAD;
	out->has_addr = false;
	if ((h[0] & 0x0f) == 1 && (h[1] == 0x11 || h[1] == 0x21)) {
		/* PROXY, TCP over IPv4 (0x11) or IPv6 (0x21). */
		uint32_t alen = h[1] == 0x11 ? 12 : 36;

		if (len < alen)
			return SY_PEEK_BAD;
		if (!cur_read(c, a, alen))
			return SY_PEEK_MORE;
		out->family = h[1] == 0x11 ? AF_INET : AF_INET6;
		memcpy(out->src, a, alen / 2 - 2);
		memcpy(out->dst, a + alen / 2 - 2, alen / 2 - 2);
		out->sport = (uint16_t)(a[alen - 4] << 8 | a[alen - 3]);
		out->dport = (uint16_t)(a[alen - 2] << 8 | a[alen - 1]);
		out->has_addr = true;
		len -= alen;
	}
	/* The rest (TLVs, or an address block we do not use): skipped. */
	if (!cur_skip(c, len))
		return SY_PEEK_MORE;
	out->len = c->pos;
	return SY_PEEK_DONE;
}

enum sy_peek_status
sy_proxy_proto_peek(const struct sy_frag *frags, unsigned n_frags, struct sy_pp_info *out)
{
	struct sy_peek_cur c = { frags, 0, 0, 0, frags_total(frags, n_frags) };
	uint8_t first[12] = { 0 };
	uint32_t have = c.limit < 12 ? c.limit : 12;

	memset(out, 0, sizeof(*out));
	if (c.limit > SY_PP_MAX_LEN)
		c.limit = SY_PP_MAX_LEN;
	if (!cur_read(&c, first, have))
		return SY_PEEK_MORE;
	/* What is held so far must be a prefix of one of the two
	 * signatures ("PROXY " or v2's 12 bytes). */
	if (memcmp(first, "PROXY ", have < 6 ? have : 6) == 0) {
		if (have < 6)
			return SY_PEEK_MORE;
		c = (struct sy_peek_cur){ frags, 0, 0, 0, c.limit };
		(void)cur_skip(&c, 6);
		return parse_v1(&c, out);
	}
	if (memcmp(first, v2_sig, have) == 0) {
		if (have < 12)
			return SY_PEEK_MORE;
		return parse_v2(&c, out);
	}
	return SY_PEEK_BAD;
}
