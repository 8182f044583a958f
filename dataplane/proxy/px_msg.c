/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Message framing for the proxy (px_msg.h). Ambiguity is refused, never
 * resolved one way: a request with both Content-Length and
 * Transfer-Encoding, differing lengths, a coding other than a single final
 * "chunked", or Transfer-Encoding in HTTP/1.0 is a 400 (or 501), since a
 * backend that resolves it the other way is how requests get smuggled.
 */
#include <string.h>
#include <strings.h>

#include "proxy/px_msg.h"

/* One header line's name and value (OWS trimmed), from p[0..end). */
struct hdr {
	const uint8_t *name, *value;
	uint32_t name_len, value_len;
};

static bool
name_is(const struct hdr *h, const char *s)
{
	return h->name_len == strlen(s) && strncasecmp((const char *)h->name, s, h->name_len) == 0;
}

/* The next header line at *pos (lines end in CRLF; the peeker, or the
 * response checks below, made sure of it). false at the blank line. */
static bool
next_header(const uint8_t *p, uint32_t end, uint32_t *pos, struct hdr *h, bool *bad)
{
	uint32_t i = *pos, colon, eol, v, ve;

	if (i + 1 < end && p[i] == '\r' && p[i + 1] == '\n')
		return false;
	for (eol = i; eol + 1 < end && !(p[eol] == '\r' && p[eol + 1] == '\n'); eol++)
		if (p[eol] == '\0' || (p[eol] == '\r' || p[eol] == '\n')) {
			*bad = true;
			return false;
		}
	if (eol + 1 >= end) {
		*bad = true;
		return false;
	}
	for (colon = i; colon < eol && p[colon] != ':'; colon++)
		if (p[colon] == ' ' || p[colon] == '\t') {
			*bad = true; /* no space in or after a name */
			return false;
		}
	if (colon == eol || colon == i || p[i] == ' ' || p[i] == '\t') {
		*bad = true; /* no colon, empty name, obs-fold */
		return false;
	}
	for (v = colon + 1; v < eol && (p[v] == ' ' || p[v] == '\t'); v++)
		;
	for (ve = eol; ve > v && (p[ve - 1] == ' ' || p[ve - 1] == '\t'); ve--)
		;
	h->name = p + i;
	h->name_len = colon - i;
	h->value = p + v;
	h->value_len = ve - v;
	*pos = eol + 2;
	return true;
}

/* Comma-separated tokens of a value, one at a time (OWS trimmed). */
static bool
next_token(const struct hdr *h, uint32_t *pos, const uint8_t **tok, uint32_t *len)
{
	uint32_t i = *pos, s, e;

	while (i < h->value_len && (h->value[i] == ',' || h->value[i] == ' ' || h->value[i] == '\t'))
		i++;
	if (i >= h->value_len)
		return false;
	s = i;
	while (i < h->value_len && h->value[i] != ',')
		i++;
	e = i;
	while (e > s && (h->value[e - 1] == ' ' || h->value[e - 1] == '\t'))
		e--;
	*tok = h->value + s;
	*len = e - s;
	*pos = i;
	return true;
}

static bool
token_is(const uint8_t *tok, uint32_t len, const char *s)
{
	return len == strlen(s) && strncasecmp((const char *)tok, s, len) == 0;
}

/* What the framing headers say, shared by requests and responses. */
struct framing {
	bool has_cl, has_te, te_chunked, te_other, te_bad, cl_bad;
	uint64_t cl;
	bool conn_close, conn_keep_alive, conn_upgrade, upgrade, expect_continue, forwarded;
};

static void
content_length(struct framing *fr, const struct hdr *h)
{
	const uint8_t *tok;
	uint32_t len, pos = 0, i;

	/* "5" or "5, 5" (RFC 9110 8.6: identical values are one). */
	if (h->value_len == 0)
		fr->cl_bad = true;
	while (next_token(h, &pos, &tok, &len)) {
		uint64_t v = 0;

		if (len == 0 || len > 18) {
			fr->cl_bad = true; /* 18 digits: below 2^63 */
			return;
		}
		for (i = 0; i < len; i++) {
			if (tok[i] < '0' || tok[i] > '9') {
				fr->cl_bad = true;
				return;
			}
			v = v * 10 + (uint64_t)(tok[i] - '0');
		}
		if (fr->has_cl && v != fr->cl)
			fr->cl_bad = true;
		fr->has_cl = true;
		fr->cl = v;
	}
}

static void
transfer_encoding(struct framing *fr, const struct hdr *h)
{
	const uint8_t *tok;
	uint32_t len, pos = 0;

	fr->has_te = true;
	if (h->value_len == 0)
		fr->te_bad = true;
	while (next_token(h, &pos, &tok, &len)) {
		if (token_is(tok, len, "chunked")) {
			if (fr->te_chunked)
				fr->te_bad = true; /* chunked twice */
			fr->te_chunked = true;
		} else {
			/* Anything after chunked, or a coding we do not
			 * decode (gzip...): we cannot find the end. */
			if (fr->te_chunked)
				fr->te_bad = true;
			fr->te_other = true;
		}
	}
}

static void
connection(struct framing *fr, const struct hdr *h)
{
	const uint8_t *tok;
	uint32_t len, pos = 0;

	while (next_token(h, &pos, &tok, &len)) {
		if (token_is(tok, len, "close"))
			fr->conn_close = true;
		else if (token_is(tok, len, "keep-alive"))
			fr->conn_keep_alive = true;
		else if (token_is(tok, len, "upgrade"))
			fr->conn_upgrade = true;
	}
}

/* The headers from pos to the blank line. false on a malformed line. */
static bool
read_headers(const uint8_t *p, uint32_t end, uint32_t pos, struct framing *fr)
{
	struct hdr h;
	bool bad = false;

	memset(fr, 0, sizeof(*fr));
	while (next_header(p, end, &pos, &h, &bad)) {
		if (name_is(&h, "content-length"))
			content_length(fr, &h);
		else if (name_is(&h, "transfer-encoding"))
			transfer_encoding(fr, &h);
		else if (name_is(&h, "connection"))
			connection(fr, &h);
		else if (name_is(&h, "upgrade"))
			fr->upgrade = true;
		else if (name_is(&h, "expect"))
			fr->expect_continue = token_is(h.value, h.value_len, "100-continue");
		else if (name_is(&h, "forwarded") || (h.name_len > 12 &&
			 strncasecmp((const char *)h.name, "x-forwarded-", 12) == 0))
			fr->forwarded = true;
	}
	return !bad;
}

/* The blank line's end, or 0 while it has not arrived. */
static uint32_t
head_end(const uint8_t *p, uint32_t len)
{
	uint32_t i;

	for (i = 0; i + 3 < len; i++)
		if (p[i] == '\r' && p[i + 1] == '\n' && p[i + 2] == '\r' && p[i + 3] == '\n')
			return i + 4;
	return 0;
}

enum sy_px_msg_status
sy_px_parse_request(const uint8_t *p, uint32_t len, uint32_t max_head, struct sy_px_req *out)
{
	struct sy_frag f = { p, len };
	struct framing fr;
	enum sy_peek_status st;
	uint32_t start = 0, line_end;

	memset(out, 0, sizeof(*out));
	st = sy_http_peek(&f, 1, max_head, &out->h);
	switch (st) {
	case SY_PEEK_MORE:
		return SY_PX_MSG_MORE;
	case SY_PEEK_DONE:
		break;
	case SY_PEEK_TOO_BIG:
		return SY_PX_MSG_TOO_BIG;
	case SY_PEEK_URI_TOO_LONG:
		return SY_PX_MSG_URI_TOO_LONG;
	default:
		return SY_PX_MSG_BAD;
	}
	/* Leading empty lines (RFC 9112 2.2), then the request line. */
	while (start + 1 < len && p[start] == '\r' && p[start + 1] == '\n')
		start += 2;
	for (line_end = start; line_end + 1 < len && p[line_end] != '\r'; line_end++)
		;
	if (!read_headers(p, out->h.head_len, line_end + 2, &fr))
		return SY_PX_MSG_BAD;
	if (fr.cl_bad || fr.te_bad || (fr.has_cl && fr.has_te))
		return SY_PX_MSG_BAD;
	if (fr.has_te && out->h.version_minor == 0)
		return SY_PX_MSG_BAD; /* RFC 9112 6.1: a 1.0 peer cannot mean it */
	if (fr.has_te && (fr.te_other || !fr.te_chunked))
		return fr.te_other && fr.te_chunked ? SY_PX_MSG_BAD : SY_PX_MSG_BAD_TE;
	out->is_head = out->h.method_len == 4 && memcmp(out->h.method, "HEAD", 4) == 0;
	out->is_connect = out->h.method_len == 7 && memcmp(out->h.method, "CONNECT", 7) == 0;
	if (fr.te_chunked) {
		out->framing = SY_PX_BODY_CHUNKED;
	} else if (fr.has_cl && fr.cl > 0) {
		out->framing = SY_PX_BODY_LENGTH;
		out->length = fr.cl;
	} else {
		out->framing = SY_PX_BODY_NONE;
	}
	out->keep_alive = out->h.version_minor >= 1 ? !fr.conn_close : fr.conn_keep_alive && !fr.conn_close;
	out->upgrade = fr.conn_upgrade && fr.upgrade;
	out->expect_continue = fr.expect_continue;
	out->has_forwarded = fr.forwarded;
	return SY_PX_MSG_DONE;
}

enum sy_px_msg_status
sy_px_parse_response(const uint8_t *p, uint32_t len, uint32_t max_head, bool head_request,
		     bool connect_request, struct sy_px_resp *out)
{
	struct framing fr;
	uint32_t end = head_end(p, len < max_head ? len : max_head), i;
	uint16_t code;

	memset(out, 0, sizeof(*out));
	if (end == 0)
		return len >= max_head ? SY_PX_MSG_TOO_BIG : SY_PX_MSG_MORE;
	/* "HTTP/1.x SSS" then SP reason (maybe empty) CRLF */
	if (end < 16 || memcmp(p, "HTTP/1.", 7) != 0 || (p[7] != '0' && p[7] != '1') ||
	    p[8] != ' ')
		return SY_PX_MSG_BAD;
	code = 0;
	for (i = 9; i < 12; i++) {
		if (p[i] < '0' || p[i] > '9')
			return SY_PX_MSG_BAD;
		code = (uint16_t)(code * 10 + (p[i] - '0'));
	}
	if (code < 100 || (p[12] != ' ' && p[12] != '\r'))
		return SY_PX_MSG_BAD;
	for (i = 12; i < end && p[i] != '\r'; i++)
		if (p[i] == '\n' || p[i] == '\0')
			return SY_PX_MSG_BAD;
	if (i + 1 >= end || p[i + 1] != '\n')
		return SY_PX_MSG_BAD;
	if (!read_headers(p, end, i + 2, &fr) || fr.cl_bad || fr.te_bad)
		return SY_PX_MSG_BAD;
	out->status = code;
	out->version_minor = (uint8_t)(p[7] - '0');
	out->head_len = end;
	out->keep_alive = out->version_minor >= 1 ? !fr.conn_close : fr.conn_keep_alive && !fr.conn_close;
	/* RFC 9112 6.3, in its order. */
	if (code == 101 || (connect_request && code >= 200 && code < 300)) {
		out->framing = SY_PX_BODY_TUNNEL;
	} else if (head_request || (code >= 100 && code < 200) || code == 204 || code == 304) {
		out->framing = SY_PX_BODY_NONE;
	} else if (fr.has_te) {
		if (!fr.te_chunked || fr.te_other)
			return SY_PX_MSG_BAD; /* we would not find its end */
		out->framing = SY_PX_BODY_CHUNKED;
	} else if (fr.has_cl) {
		out->framing = fr.cl > 0 ? SY_PX_BODY_LENGTH : SY_PX_BODY_NONE;
		out->length = fr.cl;
	} else {
		out->framing = SY_PX_BODY_CLOSE;
		out->keep_alive = false;
	}
	return SY_PX_MSG_DONE;
}

/* ------------------------------------------------------------- chunked -- */

enum {
	CH_SIZE = 0, /* hex digits */
	CH_EXT,      /* ;name=value up to CR */
	CH_SIZE_LF,
	CH_DATA,
	CH_DATA_CR,
	CH_DATA_LF,
	CH_TRAILER,  /* at the start of a trailer line or the final CRLF */
	CH_TRAILER_LINE,
	CH_TRAILER_LF,
	CH_FINAL_LF,
	CH_DONE,
};

static int
hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

enum sy_px_msg_status
sy_px_chunked_feed(struct sy_px_chunked *c, const uint8_t *p, uint32_t len, uint32_t *used)
{
	uint32_t i = 0;

	while (i < len) {
		uint8_t b = p[i];

		switch (c->state) {
		case CH_SIZE: {
			int v = hexval(b);

			if (v >= 0) {
				/* 15 hex digits: below 2^60, no overflow */
				if (++c->digits > 15)
					return SY_PX_MSG_BAD;
				c->left = (c->left << 4) | (uint64_t)v;
				i++;
				break;
			}
			if (c->digits == 0)
				return SY_PX_MSG_BAD;
			if (b == ';' || b == ' ' || b == '\t') {
				c->state = CH_EXT;
				break;
			}
			if (b != '\r')
				return SY_PX_MSG_BAD;
			c->state = CH_SIZE_LF;
			i++;
			break;
		}
		case CH_EXT:
			/* Extensions are passed on as they are; bounded, and
			 * no control characters but HTAB. */
			if (b == '\r') {
				c->state = CH_SIZE_LF;
			} else if ((b < 0x20 && b != '\t') || b == 0x7f ||
				   ++c->line > SY_PX_CHUNK_LINE_MAX) {
				return SY_PX_MSG_BAD;
			}
			i++;
			break;
		case CH_SIZE_LF:
			if (b != '\n')
				return SY_PX_MSG_BAD;
			i++;
			c->digits = 0;
			c->line = 0;
			c->state = c->left == 0 ? CH_TRAILER : CH_DATA;
			break;
		case CH_DATA: {
			uint32_t take = len - i;

			if (take > c->left)
				take = (uint32_t)c->left;
			c->left -= take;
			i += take;
			if (c->left == 0)
				c->state = CH_DATA_CR;
			break;
		}
		case CH_DATA_CR:
			if (b != '\r')
				return SY_PX_MSG_BAD;
			c->state = CH_DATA_LF;
			i++;
			break;
		case CH_DATA_LF:
			if (b != '\n')
				return SY_PX_MSG_BAD;
			c->state = CH_SIZE;
			i++;
			break;
		case CH_TRAILER:
			if (b == '\r') {
				c->state = CH_FINAL_LF;
			} else if (b == ' ' || b == '\t' || b == '\n' || b < 0x20) {
				return SY_PX_MSG_BAD; /* obs-fold or a bare line end */
			} else {
				c->state = CH_TRAILER_LINE;
				c->line = 1;
			}
			i++;
			break;
		case CH_TRAILER_LINE:
			if (b == '\r')
				c->state = CH_TRAILER_LF;
			else if ((b < 0x20 && b != '\t') || ++c->line > SY_PX_CHUNK_LINE_MAX)
				return SY_PX_MSG_BAD;
			i++;
			break;
		case CH_TRAILER_LF:
			if (b != '\n')
				return SY_PX_MSG_BAD;
			c->state = CH_TRAILER;
			i++;
			break;
		case CH_FINAL_LF:
			if (b != '\n')
				return SY_PX_MSG_BAD;
			c->state = CH_DONE;
			i++;
			*used = i;
			return SY_PX_MSG_DONE;
		default:
			*used = i;
			return SY_PX_MSG_DONE;
		}
	}
	*used = i;
	return SY_PX_MSG_MORE;
}

uint16_t
sy_px_msg_http_status(enum sy_px_msg_status st)
{
	switch (st) {
	case SY_PX_MSG_TOO_BIG:
		return 431;
	case SY_PX_MSG_URI_TOO_LONG:
		return 414;
	case SY_PX_MSG_BAD_TE:
		return 501;
	case SY_PX_MSG_VERSION:
		return 505;
	default:
		return 400;
	}
}
