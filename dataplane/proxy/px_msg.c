/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Message framing for the proxy (px_msg.h). Ambiguity is refused, never
 * resolved one way: a request with both Content-Length and
 * Transfer-Encoding, differing lengths, a coding other than a single final
 * "chunked", or Transfer-Encoding in HTTP/1.0 is a 400 (or 501), since a
 * backend that resolves it the other way is how requests get smuggled.
 *
 * The router forwards a request head as it came (it only appends the
 * forwarded headers), so the framing headers are held to their plainest
 * spelling: what we accept here, every backend must read the same way.
 * Legal but exotic spellings that backends are known to read differently
 * (HTAB around a length or a coding, empty list elements, parameters on
 * chunked, a framing header named in Connection) are refused too.
 */
#include <string.h>
#include <strings.h>

#include "proxy/px_msg.h"

/* One header line's name and value (OWS trimmed), from p[0..end). */
struct hdr {
	const uint8_t *name, *value;
	uint32_t name_len, value_len;
	bool tab; /* an HTAB after the colon */
};

/* s: a lowercase name. The first letter is compared before the call (a
 * response's Date is not Host, its Server not Expect). */
static bool
name_is(const struct hdr *h, const char *s)
{
	return h->name_len == strlen(s) && (h->name[0] | 0x20) == s[0] &&
	       strncasecmp((const char *)h->name, s, h->name_len) == 0;
}

/* RFC 9110 5.6.2 tchar. */
static bool
is_tchar(uint8_t c)
{
	if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9'))
		return true;
	return c != 0 && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

/* RFC 9110 5.5 field-vchar or SP/HTAB: what a field value (and a trailer's)
 * is made of. */
static bool
is_value_char(uint8_t c)
{
	return c == '\t' || (c >= 0x20 && c != 0x7f);
}

/* Bytes that stop a scan of a header line (next_header): where a line
 * ends, or what may not be in it (NUL, a CR or LF not in its CRLF); where a
 * name ends, or what may not be in it (a blank before the colon). One table
 * look a byte where the scans compared each byte three times, a response
 * head parsed a request (perf/journal/h2.md). */
#define STOP_LINE 1u
#define STOP_NAME 2u
static const uint8_t line_stop[256] = {
	['\0'] = STOP_LINE, ['\r'] = STOP_LINE, ['\n'] = STOP_LINE | STOP_NAME,
	[':'] = STOP_NAME, [' '] = STOP_NAME, ['\t'] = STOP_NAME,
};

/* The next header line at *pos (lines end in CRLF; the peeker, or the
 * response checks below, made sure of it). false at the blank line. */
static bool
next_header(const uint8_t *p, uint32_t end, uint32_t *pos, struct hdr *h, bool *bad)
{
	uint32_t i = *pos, colon, eol, v, ve;

	if (i + 1 < end && p[i] == '\r' && p[i + 1] == '\n')
		return false;
	/* The line's end: its CRLF, with no NUL, CR or LF before it. */
	for (eol = i; eol < end && !(line_stop[p[eol]] & STOP_LINE); eol++)
		;
	if (eol + 1 >= end || p[eol] != '\r' || p[eol + 1] != '\n') {
		*bad = true;
		return false;
	}
	/* The name: up to its colon, no blank in it or before the colon. */
	for (colon = i; colon < eol && !(line_stop[p[colon]] & STOP_NAME); colon++)
		;
	if (colon == eol || p[colon] != ':' || colon == i) {
		*bad = true; /* no colon, a blank in or after the name (obs-fold), empty name */
		return false;
	}
	h->tab = memchr(p + colon, '\t', eol - colon) != NULL;
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
	bool conn_framing; /* Connection names Content-Length or Transfer-Encoding */
	const uint8_t *host; /* the Host header's value (the peeker allows one) */
	uint32_t host_len;
	bool has_host;
};

static uint32_t
skip_sp(const struct hdr *h, uint32_t i)
{
	while (i < h->value_len && h->value[i] == ' ')
		i++;
	return i;
}

/* After a list element ending at *i: 0 at the end of the value, 1 past a
 * comma (and SP) at the next element, -1 at anything else. Empty elements
 * are not skipped: the next element must start there. */
static int
list_next(const struct hdr *h, uint32_t *i)
{
	uint32_t j = skip_sp(h, *i);

	if (j == h->value_len)
		return 0;
	if (h->value[j] != ',')
		return -1;
	*i = skip_sp(h, j + 1);
	return 1;
}

static void
content_length(struct framing *fr, const struct hdr *h)
{
	uint32_t i = 0;
	int more;

	/* "5", or "5, 5" (RFC 9110 8.6: a recipient may take identical values
	 * as one). Digits only: no sign, no "0x", no empty element ("5,"),
	 * which some backends skip and others refuse; and no HTAB, which a
	 * backend trimming SP alone reads as no length at all. */
	if (h->tab || h->value_len == 0) {
		fr->cl_bad = true;
		return;
	}
	for (;;) {
		uint64_t v = 0;
		unsigned digits = 0;

		for (; i < h->value_len && h->value[i] >= '0' && h->value[i] <= '9'; i++) {
			if (++digits > 18) {
				fr->cl_bad = true; /* 18 digits: below 2^63 */
				return;
			}
			v = v * 10 + (uint64_t)(h->value[i] - '0');
		}
		if (digits == 0 || (fr->has_cl && v != fr->cl)) {
			fr->cl_bad = true;
			return;
		}
		fr->has_cl = true;
		fr->cl = v;
		if ((more = list_next(h, &i)) <= 0) {
			fr->cl_bad |= more < 0;
			return;
		}
	}
}

/* A transfer-parameter's value at i (RFC 9112 7.3): a token or a
 * quoted-string. Returns the index after it, or 0 when malformed. */
static uint32_t
param_value(const struct hdr *h, uint32_t i)
{
	uint32_t s = i;

	if (i < h->value_len && h->value[i] == '"') {
		for (i++; i < h->value_len && h->value[i] != '"'; i++)
			if (h->value[i] == '\\' && ++i == h->value_len)
				return 0;
		return i < h->value_len ? i + 1 : 0;
	}
	while (i < h->value_len && is_tchar(h->value[i]))
		i++;
	return i > s ? i : 0;
}

static void
transfer_encoding(struct framing *fr, const struct hdr *h)
{
	uint32_t i = 0;
	int more;

	/* transfer-coding *( OWS "," OWS transfer-coding ), each a token with
	 * ";" parameters (RFC 9112 7). chunked comes once, last and bare (7.1).
	 * A list that is not well formed ("xchunked" is, a quoted "chunked"
	 * or an empty element is not) is te_bad (400); a well-formed coding
	 * we do not frame (gzip, identity...) is te_other (501). */
	fr->has_te = true;
	if (h->tab || h->value_len == 0) {
		fr->te_bad = true;
		return;
	}
	for (;;) {
		uint32_t s = i, n;
		bool params = false;

		while (i < h->value_len && is_tchar(h->value[i]))
			i++;
		n = i - s;
		if (n == 0) {
			fr->te_bad = true;
			return;
		}
		i = skip_sp(h, i);
		while (i < h->value_len && h->value[i] == ';') {
			uint32_t ps;

			params = true;
			ps = i = skip_sp(h, i + 1);
			while (i < h->value_len && is_tchar(h->value[i]))
				i++;
			if (i == ps) {
				fr->te_bad = true;
				return;
			}
			i = skip_sp(h, i);
			if (i == h->value_len || h->value[i] != '=' ||
			    (i = param_value(h, skip_sp(h, i + 1))) == 0) {
				fr->te_bad = true;
				return;
			}
			i = skip_sp(h, i);
		}
		if (token_is(h->value + s, n, "chunked")) {
			if (fr->te_chunked || params)
				fr->te_bad = true; /* chunked twice, or with parameters */
			fr->te_chunked = true;
		} else {
			/* Anything after chunked: we cannot find the end. */
			if (fr->te_chunked)
				fr->te_bad = true;
			fr->te_other = true;
		}
		if ((more = list_next(h, &i)) <= 0) {
			fr->te_bad |= more < 0;
			return;
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
		else if (token_is(tok, len, "content-length") ||
			 token_is(tok, len, "transfer-encoding"))
			/* A hop-by-hop framing header: a proxy between us and the
			 * backend that honours Connection drops it, and the backend
			 * frames the body otherwise. */
			fr->conn_framing = true;
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
		else if (name_is(&h, "host") && !fr->has_host) {
			fr->has_host = true;
			fr->host = h.value;
			fr->host_len = h.value_len;
		} else if (name_is(&h, "forwarded") || (h.name_len > 12 && (h.name[0] | 0x20) == 'x' &&
			 strncasecmp((const char *)h.name, "x-forwarded-", 12) == 0))
			fr->forwarded = true;
	}
	return !bad;
}

/* The blank line's end (after the first CRLF CRLF), or 0 while it has not
 * arrived. From LF to LF (memchr), not byte by byte. */
static uint32_t
head_end(const uint8_t *p, uint32_t len)
{
	uint32_t j = 1;

	while (j + 2 < len) {
		const uint8_t *nl = memchr(p + j, '\n', len - 2 - j);

		if (nl == NULL)
			return 0;
		j = (uint32_t)(nl - p);
		if (p[j - 1] == '\r' && p[j + 1] == '\r' && p[j + 2] == '\n')
			return j + 3;
		j++;
	}
	return 0;
}

/* The request line's target names the host (absolute-form or CONNECT's
 * authority-form; the peeker took the host from it): then a Host header
 * must say the same host. RFC 9112 3.2.2 has the origin ignore Host then,
 * but a backend (or a proxy behind us) that routes on Host would go where
 * we did not, so the two must agree, as HAProxy requires. */
static bool
host_agrees(const uint8_t *p, uint32_t start, const struct sy_px_req *out,
	    const struct framing *fr)
{
	uint8_t t = p[start + out->h.method_len + 1];

	if (t == '/' || t == '*' || !fr->has_host)
		return true;
	return fr->host_len == out->h.host_len &&
	       strncasecmp((const char *)fr->host, out->h.host, fr->host_len) == 0;
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
	if (fr.cl_bad || fr.te_bad || (fr.has_cl && fr.has_te) || fr.conn_framing)
		return SY_PX_MSG_BAD;
	if (fr.has_te && out->h.version_minor == 0)
		return SY_PX_MSG_BAD; /* RFC 9112 6.1: a 1.0 peer cannot mean it */
	if (fr.te_other)
		return SY_PX_MSG_BAD_TE; /* well formed, but not a coding we frame */
	if (!host_agrees(p, start, out, &fr))
		return SY_PX_MSG_BAD;
	if (fr.has_cl && fr.cl > SY_PX_BODY_MAX)
		return SY_PX_MSG_TOO_LARGE;
	out->is_head = out->h.method_len == 4 && memcmp(out->h.method, "HEAD", 4) == 0;
	out->is_connect = out->h.method_len == 7 && memcmp(out->h.method, "CONNECT", 7) == 0;
	if (fr.te_chunked) {
		struct sy_px_chunked ch = { 0 };
		uint32_t used;

		/* What came of the body with the head is checked now: a
		 * broken chunk is refused before the head goes anywhere. */
		if (len > out->h.head_len &&
		    sy_px_chunked_feed(&ch, p + out->h.head_len, len - out->h.head_len, &used) ==
			    SY_PX_MSG_BAD)
			return SY_PX_MSG_BAD;
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

/*
 * RFC 9112 7.1, one byte at a time so any cut of the stream gives the same
 * verdict:
 *
 *   chunk-size [ BWS ] *( ";" BWS ext-name [ BWS "=" BWS ext-value ] BWS ) CRLF
 *   chunk-data CRLF ... "0" ... CRLF *( field-name ":" field-value CRLF ) CRLF
 *
 * The BWS allowed before the CR and around ";" is what HAProxy and nginx
 * accept too; anything else after the size ("5 x", "5\n", "5x") is
 * refused: a parser that stops at the first non-hex byte and one that
 * refuses it read different bodies. A trailer must be a field line, so a
 * request hidden where the final CRLF should be ("0\r\nGET /x ...") is a
 * 400, not a trailer.
 */
enum {
	CH_SIZE = 0,     /* hex digits */
	CH_SIZE_BWS,     /* blanks after the size: more, ";" or CR */
	CH_EXT_NAME0,    /* after ";": BWS, then a name's first byte */
	CH_EXT_NAME,     /* in a name */
	CH_EXT_EQ,       /* after a name and BWS: "=", ";" or CR */
	CH_EXT_VALUE0,   /* after "=": BWS, then a token or a quoted-string */
	CH_EXT_TOKEN,    /* in a token value */
	CH_EXT_QUOTED,   /* in a quoted-string */
	CH_EXT_QESC,     /* after a backslash in it */
	CH_EXT_AFTER,    /* after a value: BWS, ";" or CR */
	CH_SIZE_LF,
	CH_DATA,
	CH_DATA_CR,
	CH_DATA_LF,
	CH_TRAILER,      /* at the start of a trailer line or the final CRLF */
	CH_TRAILER_NAME,
	CH_TRAILER_VALUE,
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

static bool
is_bws(uint8_t c)
{
	return c == ' ' || c == '\t';
}

/* The size line from its first byte after the digits to its CR: the next
 * state for b, or -1 when b cannot be there. */
static int
ext_step(uint8_t state, uint8_t b)
{
	switch (state) {
	case CH_SIZE_BWS:
	case CH_EXT_EQ:
	case CH_EXT_AFTER:
		if (is_bws(b))
			return state;
		if (b == ';')
			return CH_EXT_NAME0;
		if (b == '\r')
			return CH_SIZE_LF;
		if (state == CH_EXT_EQ && b == '=')
			return CH_EXT_VALUE0;
		return -1;
	case CH_EXT_NAME0:
		if (is_bws(b))
			return state;
		return is_tchar(b) ? CH_EXT_NAME : -1;
	case CH_EXT_NAME:
		if (is_tchar(b))
			return state;
		return ext_step(CH_EXT_EQ, b);
	case CH_EXT_VALUE0:
		if (is_bws(b))
			return state;
		if (b == '"')
			return CH_EXT_QUOTED;
		return is_tchar(b) ? CH_EXT_TOKEN : -1;
	case CH_EXT_TOKEN:
		if (is_tchar(b))
			return state;
		return ext_step(CH_EXT_AFTER, b);
	case CH_EXT_QUOTED:
		if (b == '"')
			return CH_EXT_AFTER;
		if (b == '\\')
			return CH_EXT_QESC;
		return is_value_char(b) ? state : -1;
	case CH_EXT_QESC:
		return is_value_char(b) ? CH_EXT_QUOTED : -1;
	default:
		return -1;
	}
}

enum sy_px_msg_status
sy_px_chunked_feed(struct sy_px_chunked *c, const uint8_t *p, uint32_t len, uint32_t *used)
{
	uint32_t i = 0;
	int next;

	while (i < len) {
		uint8_t b = p[i];

		switch (c->state) {
		case CH_SIZE: {
			int v = hexval(b);

			if (v >= 0) {
				if (++c->digits > SY_PX_CHUNK_DIGITS_MAX)
					return SY_PX_MSG_BAD;
				c->left = (c->left << 4) | (uint64_t)v;
				i++;
				break;
			}
			if (c->digits == 0)
				return SY_PX_MSG_BAD;
			c->state = CH_SIZE_BWS; /* b is looked at there */
			break;
		}
		case CH_SIZE_BWS:
		case CH_EXT_NAME0:
		case CH_EXT_NAME:
		case CH_EXT_EQ:
		case CH_EXT_VALUE0:
		case CH_EXT_TOKEN:
		case CH_EXT_QUOTED:
		case CH_EXT_QESC:
		case CH_EXT_AFTER:
			/* Extensions are passed on as they are, bounded. */
			next = ext_step(c->state, b);
			if (next < 0 || ++c->line > SY_PX_CHUNK_LINE_MAX)
				return SY_PX_MSG_BAD;
			c->state = (uint8_t)next;
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
			/* The final CRLF, or a field line: no obs-fold, no
			 * bare LF, no request line hiding here. */
			if (b == '\r')
				c->state = CH_FINAL_LF;
			else if (is_tchar(b))
				c->state = CH_TRAILER_NAME;
			else
				return SY_PX_MSG_BAD;
			c->line = 1;
			i++;
			break;
		case CH_TRAILER_NAME:
			if (b == ':')
				c->state = CH_TRAILER_VALUE;
			else if (!is_tchar(b))
				return SY_PX_MSG_BAD; /* also "Name : v" */
			if (++c->line > SY_PX_CHUNK_LINE_MAX)
				return SY_PX_MSG_BAD;
			i++;
			break;
		case CH_TRAILER_VALUE:
			if (b == '\r')
				c->state = CH_TRAILER_LF;
			else if (!is_value_char(b) || ++c->line > SY_PX_CHUNK_LINE_MAX)
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
	case SY_PX_MSG_TOO_LARGE:
		return 413;
	default:
		return 400;
	}
}
