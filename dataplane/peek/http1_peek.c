/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HTTP/1.x request-head peeker (peek.h). One forward pass over the held
 * fragments, byte by byte, re-run from the first byte on every call: the held
 * bytes are bounded (max_len), so statelessness costs little and no parser
 * state has to live in the connection. Nothing is copied but the method, the
 * host and the path, straight into *out.
 *
 * The grammar is RFC 9112 applied strictly: whatever this parser accepts is
 * forwarded untouched to a backend that parses it again, so every place where
 * two parsers could disagree (bare LF, obs-fold, "Host :", two Hosts, a
 * userinfo in the target) is a request-smuggling or routing-confusion vector
 * and is refused here with 400 rather than guessed at.
 *
 * Layout of what is accepted:
 *
 *   *( CRLF )                                  RFC 9112 2.2, ignored
 *   method SP request-target SP HTTP/1.[01] CRLF
 *   *( field-name ":" OWS field-value OWS CRLF )
 *   CRLF
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "peek/peek.h"
#include "peek/peek_cursor.h"

/* Out of bytes: the caller turns this into MORE or TOO_BIG. */
#define SY_HTTP_NEXT(c, ch)                                                                        \
	do {                                                                                       \
		if (((ch) = cur_next(c)) < 0)                                                      \
			return SY_PEEK_MORE;                                                       \
	} while (0)

#define SY_HTTP_EXPECT(c, ch, want)                                                                \
	do {                                                                                       \
		SY_HTTP_NEXT(c, ch);                                                               \
		if ((ch) != (want))                                                                \
			return SY_PEEK_BAD;                                                        \
	} while (0)

/* RFC 9110 5.6.2 tchar: what a method and a field name are made of. */
static inline bool
is_tchar(int ch)
{
	if ((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9'))
		return true;
	switch (ch) {
	case '!': case '#': case '$': case '%': case '&': case '\'': case '*': case '+':
	case '-': case '.': case '^': case '_': case '`': case '|': case '~':
		return true;
	default:
		return false;
	}
}

/* A request-target octet: visible ASCII, or obs-text as nginx and
 * picohttpparser let through (raw UTF-8 from sloppy clients). Controls, DEL,
 * SP (the delimiter) never: a CR or LF here is a request line broken to
 * smuggle a second one, a NUL truncates the target in C backends. */
static inline bool
is_target_char(int ch)
{
	return ch > 0x20 && ch != 0x7f;
}

/* A host octet (Host value or the target's authority), stricter than the
 * target: ASCII only (IDNs travel as punycode), and none of the delimiters
 * that make a host mean something else to the next parser: "/" "?" "#" "\"
 * end or bend the authority, "@" is userinfo (http://trusted@evil/). */
static inline bool
is_host_char(int ch)
{
	if (ch <= 0x20 || ch >= 0x7f)
		return false;
	switch (ch) {
	case '/': case '?': case '#': case '\\': case '@':
		return false;
	default:
		return true;
	}
}

/* A field-value octet (RFC 9110 5.5): VCHAR, SP, HT, obs-text. A CR is only
 * the end of the line (checked by the caller), any other control is refused:
 * a NUL or a lone CR is read differently by different backends. */
static inline bool
is_value_char(int ch)
{
	return ch == '\t' || (ch >= 0x20 && ch != 0x7f);
}

static inline bool
is_ows(int ch)
{
	return ch == ' ' || ch == '\t';
}

static enum sy_peek_status
path_put(struct sy_http_head *out, int ch)
{
	/* 414 as soon as the path is one byte too long: the rest of the
	 * request line need not arrive for the answer to be known. */
	if (out->path_len >= SY_PEEK_PATH_MAX)
		return SY_PEEK_URI_TOO_LONG;
	out->path[out->path_len++] = (char)ch;
	return SY_PEEK_DONE;
}

/* origin-form path and query after its first byte, up to the SP before
 * the version. */
static enum sy_peek_status
parse_path(struct sy_peek_cur *c, struct sy_http_head *out)
{
	enum sy_peek_status st;
	int ch;

	for (;;) {
		SY_HTTP_NEXT(c, ch);
		if (ch == ' ')
			return SY_PEEK_DONE;
		if (!is_target_char(ch))
			return SY_PEEK_BAD;
		st = path_put(out, ch);
		if (st != SY_PEEK_DONE)
			return st;
	}
}

/* An authority (CONNECT's target or the absolute-form's) into out->host,
 * starting with `ch`. Stops at SP, or also at "/" or "?" when `in_uri`; the
 * stop byte goes back through *stop. */
static enum sy_peek_status
parse_authority(struct sy_peek_cur *c, int ch, bool in_uri, struct sy_http_head *out, int *stop)
{
	for (;;) {
		if (ch == ' ' || (in_uri && (ch == '/' || ch == '?')))
			break;
		if (!is_host_char(ch))
			return SY_PEEK_BAD;
		if (out->host_len >= SY_PEEK_HOST_MAX)
			return SY_PEEK_BAD;
		out->host[out->host_len++] = (char)ch;
		SY_HTTP_NEXT(c, ch);
	}
	out->host[out->host_len] = '\0';
	*stop = ch;
	/* "http:///x", "http://?q", "CONNECT  HTTP/1.1": no host to route on. */
	if (out->host_len == 0)
		return SY_PEEK_BAD;
	return SY_PEEK_DONE;
}

/* RFC 9112 3.2.3: authority-form is uri-host ":" port, nothing else; a
 * CONNECT without a port is a client bug or a probe. */
static bool
authority_has_port(const struct sy_http_head *out)
{
	unsigned i = out->host_len, digits = 0;

	/* Walk back over the port: 1 to 5 digits, then the colon, then a
	 * non-empty host ("[::1]:443" works: the last colon is the port's). */
	while (i > 0 && out->host[i - 1] >= '0' && out->host[i - 1] <= '9') {
		i--;
		digits++;
	}
	return digits >= 1 && digits <= 5 && i >= 2 && out->host[i - 1] == ':';
}

/* absolute-form (RFC 9112 3.2.2) after its first byte `ch`: only http and
 * https, whose authority is then the host (the Host header is ignored for
 * routing, as the origin server will ignore it too). */
static enum sy_peek_status
parse_absolute(struct sy_peek_cur *c, int ch, struct sy_http_head *out)
{
	char scheme[5];
	unsigned n = 0;
	enum sy_peek_status st;

	while (ch != ':') {
		/* Longer than "https" or not a letter: not a scheme we route. */
		if (n >= 5 || !((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z')))
			return SY_PEEK_BAD;
		scheme[n++] = (char)(ch | 0x20); /* schemes are case-insensitive, RFC 3986 3.1 */
		SY_HTTP_NEXT(c, ch);
	}
	if (!((n == 4 && memcmp(scheme, "http", 4) == 0) ||
	      (n == 5 && memcmp(scheme, "https", 5) == 0)))
		return SY_PEEK_BAD;
	SY_HTTP_EXPECT(c, ch, '/');
	SY_HTTP_EXPECT(c, ch, '/');
	SY_HTTP_NEXT(c, ch);
	st = parse_authority(c, ch, true, out, &ch);
	if (st != SY_PEEK_DONE)
		return st;
	/* The origin-form a backend would see: "/" for an empty path (RFC 9112
	 * 3.2.1), so "http://h?q" is "/?q". */
	if (ch != '/') {
		st = path_put(out, '/');
		if (st != SY_PEEK_DONE)
			return st;
	}
	if (ch == ' ')
		return SY_PEEK_DONE;
	st = path_put(out, ch);
	if (st != SY_PEEK_DONE)
		return st;
	return parse_path(c, out);
}

/* method SP request-target SP HTTP-version CRLF, `ch` being the method's
 * first byte. */
static enum sy_peek_status
parse_request_line(struct sy_peek_cur *c, int ch, struct sy_http_head *out, bool *host_in_target)
{
	enum sy_peek_status st;
	bool connect, options;

	while (ch != ' ') {
		if (!is_tchar(ch))
			return SY_PEEK_BAD;
		/* No registered method is near 15 bytes; a longer one is junk
		 * we could not name in the answer anyway. */
		if (out->method_len >= sizeof(out->method) - 1)
			return SY_PEEK_BAD;
		out->method[out->method_len++] = (char)ch;
		SY_HTTP_NEXT(c, ch);
	}
	out->method[out->method_len] = '\0';
	if (out->method_len == 0)
		return SY_PEEK_BAD;
	/* Methods are case-sensitive (RFC 9110 9.1). */
	connect = out->method_len == 7 && memcmp(out->method, "CONNECT", 7) == 0;
	options = out->method_len == 7 && memcmp(out->method, "OPTIONS", 7) == 0;

	SY_HTTP_NEXT(c, ch);
	if (connect) {
		/* RFC 9112 3.2.3: CONNECT takes the authority-form only. */
		st = parse_authority(c, ch, false, out, &ch);
		if (st != SY_PEEK_DONE)
			return st;
		if (!authority_has_port(out))
			return SY_PEEK_BAD;
		*host_in_target = true;
	} else if (ch == '/') {
		st = path_put(out, ch);
		if (st != SY_PEEK_DONE)
			return st;
		st = parse_path(c, out);
		if (st != SY_PEEK_DONE)
			return st;
	} else if (ch == '*') {
		/* RFC 9112 3.2.4: asterisk-form is OPTIONS' alone. This also
		 * refuses the HTTP/2 preface "PRI * HTTP/2.0" early. */
		if (!options)
			return SY_PEEK_BAD;
		SY_HTTP_EXPECT(c, ch, ' ');
		st = path_put(out, '*');
		if (st != SY_PEEK_DONE)
			return st;
	} else {
		/* Covers SP (empty target, or two SPs: a lenient parser would
		 * split the line differently) and controls. */
		if (!is_target_char(ch))
			return SY_PEEK_BAD;
		st = parse_absolute(c, ch, out);
		if (st != SY_PEEK_DONE)
			return st;
		*host_in_target = true;
	}
	out->path[out->path_len] = '\0';

	/* RFC 9112 2.3: "HTTP/" is case-sensitive; 1.0 and 1.1 only: an HTTP/2
	 * preface or an HTTP/1.2 would be parsed under rules we do not apply. */
	SY_HTTP_EXPECT(c, ch, 'H');
	SY_HTTP_EXPECT(c, ch, 'T');
	SY_HTTP_EXPECT(c, ch, 'T');
	SY_HTTP_EXPECT(c, ch, 'P');
	SY_HTTP_EXPECT(c, ch, '/');
	SY_HTTP_EXPECT(c, ch, '1');
	SY_HTTP_EXPECT(c, ch, '.');
	SY_HTTP_NEXT(c, ch);
	if (ch != '0' && ch != '1')
		return SY_PEEK_BAD;
	out->version_minor = (uint8_t)(ch - '0');
	/* A bare LF (or a CR not followed by LF) ends the line for some
	 * parsers and not for others: refused (RFC 9112 2.2 allows it). */
	SY_HTTP_EXPECT(c, ch, '\r');
	SY_HTTP_EXPECT(c, ch, '\n');
	return SY_PEEK_DONE;
}

/* Host field value (after the colon), trimmed of OWS around it. Validated
 * even when the target carries the host: a backend that routes on the header
 * must never see a host that this router did not accept. Copied into
 * out->host only when `copy`. */
static enum sy_peek_status
parse_host_value(struct sy_peek_cur *c, bool copy, struct sy_http_head *out)
{
	uint32_t len = 0; /* up to the last non-blank byte */
	bool gap = false; /* blanks seen after the value started */
	int ch;

	for (;;) {
		SY_HTTP_NEXT(c, ch);
		if (ch == '\r')
			break;
		if (is_ows(ch)) {
			gap = len > 0;
			continue;
		}
		/* "Host: a b": two hosts to two different parsers. */
		if (gap || !is_host_char(ch))
			return SY_PEEK_BAD;
		if (len >= SY_PEEK_HOST_MAX)
			return SY_PEEK_BAD;
		if (copy)
			out->host[len] = (char)ch;
		len++;
	}
	SY_HTTP_EXPECT(c, ch, '\n');
	/* RFC 9112 3.2: an empty Host is only tolerated from HTTP/1.0 here. */
	if (len == 0 && out->version_minor == 1)
		return SY_PEEK_BAD;
	if (copy) {
		out->host_len = (uint16_t)len;
		out->host[len] = '\0';
	}
	return SY_PEEK_DONE;
}

/* Any other field value: checked for controls, not kept. */
static enum sy_peek_status
skip_value(struct sy_peek_cur *c)
{
	int ch;

	for (;;) {
		SY_HTTP_NEXT(c, ch);
		if (ch == '\r')
			break;
		if (!is_value_char(ch))
			return SY_PEEK_BAD;
	}
	SY_HTTP_EXPECT(c, ch, '\n');
	return SY_PEEK_DONE;
}

static enum sy_peek_status
parse_head(struct sy_peek_cur *c, struct sy_http_head *out)
{
	static const char host_name[4] = { 'h', 'o', 's', 't' };
	bool host_in_target = false, host_seen = false, is_host;
	enum sy_peek_status st;
	unsigned name_len;
	int ch;

	/* RFC 9112 2.2: empty lines before the request line are ignored (old
	 * clients send a CRLF after a POST body); they still count in head_len
	 * since they are part of what gets forwarded. */
	for (;;) {
		SY_HTTP_NEXT(c, ch);
		if (ch != '\r')
			break;
		SY_HTTP_EXPECT(c, ch, '\n');
	}
	st = parse_request_line(c, ch, out, &host_in_target);
	if (st != SY_PEEK_DONE)
		return st;

	for (;;) {
		SY_HTTP_NEXT(c, ch);
		if (ch == '\r') {
			SY_HTTP_EXPECT(c, ch, '\n');
			break;
		}
		/* obs-fold (RFC 9112 5.2) or blanks before the first field
		 * (2.2): a backend that unfolds sees a different header. */
		if (is_ows(ch))
			return SY_PEEK_BAD;
		name_len = 0;
		is_host = true;
		while (ch != ':') {
			/* Also stops "Host : x" (RFC 9112 5.1: whitespace before
			 * the colon must be rejected, it hides a Host from us
			 * that a lenient backend would honour) and bare LF. */
			if (!is_tchar(ch))
				return SY_PEEK_BAD;
			if (name_len >= sizeof(host_name) || (ch | 0x20) != host_name[name_len])
				is_host = false;
			name_len++;
			SY_HTTP_NEXT(c, ch);
		}
		if (name_len == 0)
			return SY_PEEK_BAD;
		if (is_host && name_len == sizeof(host_name)) {
			/* RFC 9112 3.2: more than one Host is a 400; which one
			 * wins differs between proxies and backends. */
			if (host_seen)
				return SY_PEEK_BAD;
			host_seen = true;
			st = parse_host_value(c, !host_in_target, out);
		} else {
			st = skip_value(c);
		}
		if (st != SY_PEEK_DONE)
			return st;
	}

	/* RFC 9112 3.2: an HTTP/1.1 request without Host is a 400. */
	if (!host_seen && out->version_minor == 1)
		return SY_PEEK_BAD;
	out->head_len = c->pos;
	return SY_PEEK_DONE;
}

enum sy_peek_status
sy_http_peek(const struct sy_frag *frags, unsigned n_frags, uint32_t max_len,
	     struct sy_http_head *out)
{
	struct sy_peek_cur cur = { .frags = frags };
	enum sy_peek_status st;
	uint64_t total = 0;
	unsigned i;

	for (i = 0; i < n_frags; i++)
		total += frags[i].len;
	/* Look at no more than max_len bytes: a head that is not complete
	 * within them is too big, whatever follows. */
	cur.limit = total < max_len ? (uint32_t)total : max_len;

	out->method_len = 0;
	out->method[0] = '\0';
	out->version_minor = 0;
	out->host_len = 0;
	out->host[0] = '\0';
	out->path_len = 0;
	out->path[0] = '\0';
	out->head_len = 0;

	st = parse_head(&cur, out);
	if (st == SY_PEEK_MORE && total >= max_len)
		return SY_PEEK_TOO_BIG;
	return st;
}
