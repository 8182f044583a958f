/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TLS ClientHello peeker (peek.h): the SNI, read without terminating TLS.
 *
 * What is walked (RFC 8446 4.1.2, 5.1; RFC 6066 3), every length checked
 * against what encloses it before anything under it is read:
 *
 *   record:     type(1)=22 version(2)=3.x length(2) in 1..2^14+2048
 *               payload; the handshake message below may continue in the
 *               next handshake record, and so on (TLS fragmentation: a
 *               ClientHello with post-quantum key shares is larger than one
 *               TCP segment, and clients may also split it into records)
 *   handshake:  msg_type(1)=1 length(3)
 *   ClientHello:
 *     legacy_version(2) random(32)
 *     session_id<0..32>                 1-byte length
 *     cipher_suites<2..2^16-2>          2-byte length, even
 *     compression_methods<1..2^8-1>     1-byte length
 *     [extensions<0..2^16-1>]           2-byte length == the rest of the message
 *       extension: type(2) length(2) data
 *       server_name (0): server_name_list<1..2^16-1> (2-byte length ==
 *         extension length - 2) holding one entry:
 *           name_type(1)=0 (host_name) HostName<1..2^16-1> (2-byte length)
 *
 * The handshake message is read as a virtual byte stream over the records'
 * payloads, itself over the fragments: nothing is copied but the host name.
 * As in HAProxy's smp_fetch_ssl_hello_sni, "not there yet" (MORE) is kept
 * apart from "not TLS" (NOT_MINE: another protocol on this port) and from
 * "broken" (BAD). As in nginx's ssl_preread, a hello split across records
 * and segments is read whole, but with no state kept between calls: it is
 * re-parsed from the first byte each time.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "peek/peek.h"
#include "peek/peek_cursor.h"

#define SY_TLS_CONTENT_HANDSHAKE 22
#define SY_TLS_HS_CLIENT_HELLO 1
#define SY_TLS_EXT_SERVER_NAME 0
#define SY_TLS_SNI_HOST_NAME 0
/* RFC 8446 5.2: no record is longer than 2^14 + 256 (TLS 1.3) or + 2048
 * (TLS 1.2 ciphertext); anything longer is not a TLS record. */
#define SY_TLS_RECORD_MAX (16384 + 2048)
#define SY_TLS_RECORD_HDR 5
#define SY_TLS_HS_HDR 4

/* The handshake stream: record payloads laid end to end. */
struct sy_tls_rd {
	struct sy_peek_cur cur;
	uint32_t rec_left; /* payload bytes left in the current record */
};

/* A step that succeeded, for the helpers below, which otherwise return the
 * status the whole peek ends with (MORE when out of bytes, BAD, ...). */
#define SY_TLS_OK SY_PEEK_DONE

#define SY_TLS_TRY(expr)                                                                           \
	do {                                                                                       \
		enum sy_peek_status st_ = (expr);                                                  \
		if (st_ != SY_TLS_OK)                                                              \
			return st_;                                                                \
	} while (0)

/* One record header. For the first record a wrong type or major version
 * means another protocol (NOT_MINE), decided on the first byte alone when it
 * is not 22, so a plain-HTTP client on the TLS port is told apart at once. In
 * a later record it is a broken hello: RFC 8446 5.1 forbids interleaving
 * other record types within a handshake message. */
static enum sy_peek_status
read_record_header(struct sy_tls_rd *r, bool first, uint16_t *version)
{
	enum sy_peek_status wrong = first ? SY_PEEK_NOT_MINE : SY_PEEK_BAD;
	int b[SY_TLS_RECORD_HDR];
	unsigned i;
	uint32_t len;

	for (i = 0; i < SY_TLS_RECORD_HDR; i++) {
		b[i] = cur_next(&r->cur);
		if (b[i] < 0)
			return SY_PEEK_MORE;
		if ((i == 0 && b[0] != SY_TLS_CONTENT_HANDSHAKE) || (i == 1 && b[1] != 3))
			return wrong;
	}
	len = (uint32_t)b[3] << 8 | (uint32_t)b[4];
	/* Zero-length handshake records are forbidden (RFC 8446 5.1) and would
	 * let a peer make us walk headers for nothing. */
	if (len == 0 || len > SY_TLS_RECORD_MAX)
		return SY_PEEK_BAD;
	if (version != NULL)
		*version = (uint16_t)(b[1] << 8 | b[2]);
	r->rec_left = len;
	return SY_TLS_OK;
}

/* An n-byte (n <= 4) big-endian integer from the handshake stream. */
static enum sy_peek_status
hs_uint(struct sy_tls_rd *r, unsigned n, uint32_t *val)
{
	int b;

	*val = 0;
	while (n-- > 0) {
		if (r->rec_left == 0)
			SY_TLS_TRY(read_record_header(r, false, NULL));
		b = cur_next(&r->cur);
		if (b < 0)
			return SY_PEEK_MORE;
		r->rec_left--;
		*val = *val << 8 | (uint32_t)b;
	}
	return SY_TLS_OK;
}

static enum sy_peek_status
hs_skip(struct sy_tls_rd *r, uint32_t n)
{
	uint32_t step;

	while (n > 0) {
		if (r->rec_left == 0)
			SY_TLS_TRY(read_record_header(r, false, NULL));
		step = n < r->rec_left ? n : r->rec_left;
		if (!cur_skip(&r->cur, step))
			return SY_PEEK_MORE;
		r->rec_left -= step;
		n -= step;
	}
	return SY_TLS_OK;
}

/* Take n bytes out of an enclosing vector with `*left` bytes remaining. A
 * length that overruns its container is the classic over-read (and the way
 * to make two parsers see two different hellos): BAD, before reading. */
static inline bool
take(uint32_t *left, uint32_t n)
{
	if (n > *left)
		return false;
	*left -= n;
	return true;
}

/* RFC 952/1123 letters, digits, hyphen, dot; underscore tolerated as
 * resolvers and OpenSSL do. Anything else (NUL, "/", SP, "@") could make the
 * vhost lookup or a log line read a different name than the backend's. */
static inline bool
is_sni_char(uint32_t ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       ch == '-' || ch == '.' || ch == '_';
}

/* The server_name extension's data, `len` bytes. Like OpenSSL
 * (tls_parse_ctos_server_name), the list must hold exactly one host_name:
 * RFC 6066 allows one name per type and no other type exists, so anything
 * else is a hello crafted to be read differently by us and by the backend. */
static enum sy_peek_status
parse_server_name(struct sy_tls_rd *r, uint32_t len, struct sy_tls_hello *out)
{
	uint32_t list_len, type, name_len, ch, i;

	if (!take(&len, 2))
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_uint(r, 2, &list_len));
	if (list_len != len || !take(&len, 1))
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_uint(r, 1, &type));
	if (type != SY_TLS_SNI_HOST_NAME || !take(&len, 2))
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_uint(r, 2, &name_len));
	if (name_len != len || name_len == 0 || name_len > SY_PEEK_HOST_MAX)
		return SY_PEEK_BAD;
	for (i = 0; i < name_len; i++) {
		SY_TLS_TRY(hs_uint(r, 1, &ch));
		if (!is_sni_char(ch))
			return SY_PEEK_BAD;
		out->sni[i] = (char)ch;
	}
	out->sni[name_len] = '\0';
	out->sni_len = (uint16_t)name_len;
	out->has_sni = true;
	return SY_TLS_OK;
}

static enum sy_peek_status
parse_client_hello(struct sy_tls_rd *r, uint32_t left, struct sy_tls_hello *out)
{
	uint32_t v, len, ext_type, ext_len;

	if (!take(&left, 2))
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_uint(r, 2, &v));
	/* legacy_version is 0x0303 since TLS 1.2; below 3.x is SSLv2 or junk. */
	if (v >> 8 != 3)
		return SY_PEEK_BAD;
	out->hello_version = (uint16_t)v;

	if (!take(&left, 32))
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_skip(r, 32)); /* random */

	if (!take(&left, 1))
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_uint(r, 1, &len));
	if (len > 32 || !take(&left, len))
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_skip(r, len)); /* legacy_session_id */

	if (!take(&left, 2))
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_uint(r, 2, &len));
	if (len < 2 || (len & 1) != 0 || !take(&left, len))
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_skip(r, len)); /* cipher_suites */

	if (!take(&left, 1))
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_uint(r, 1, &len));
	if (len < 1 || !take(&left, len))
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_skip(r, len)); /* legacy_compression_methods */

	/* A TLS 1.2-and-older hello may end here, without extensions. */
	if (left == 0)
		return SY_TLS_OK;
	if (!take(&left, 2))
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_uint(r, 2, &len));
	/* Bytes after the extensions, or extensions past the message: a hello
	 * two parsers would cut in different places. */
	if (len != left)
		return SY_PEEK_BAD;
	while (left > 0) {
		if (!take(&left, 4))
			return SY_PEEK_BAD;
		SY_TLS_TRY(hs_uint(r, 2, &ext_type));
		SY_TLS_TRY(hs_uint(r, 2, &ext_len));
		if (!take(&left, ext_len))
			return SY_PEEK_BAD;
		if (ext_type == SY_TLS_EXT_SERVER_NAME) {
			/* RFC 8446 4.2: one extension of each type at most; two
			 * SNIs is the hello that routes us to one vhost and the
			 * backend to another. */
			if (out->has_sni)
				return SY_PEEK_BAD;
			SY_TLS_TRY(parse_server_name(r, ext_len, out));
		} else {
			SY_TLS_TRY(hs_skip(r, ext_len));
		}
	}
	return SY_TLS_OK;
}

static enum sy_peek_status
parse_hello(struct sy_tls_rd *r, uint32_t max_len, struct sy_tls_hello *out)
{
	uint32_t type, len;

	SY_TLS_TRY(read_record_header(r, true, &out->record_version));
	SY_TLS_TRY(hs_uint(r, 1, &type));
	/* A client speaks first with a ClientHello, nothing else. */
	if (type != SY_TLS_HS_CLIENT_HELLO)
		return SY_PEEK_BAD;
	SY_TLS_TRY(hs_uint(r, 3, &len));
	out->hello_len = len;
	/* The hello cannot fit in the bytes we are willing to hold (it needs
	 * at least one record header more than its own length): say so now
	 * instead of holding segments up to the limit first. */
	if ((uint64_t)len + SY_TLS_RECORD_HDR + SY_TLS_HS_HDR > max_len)
		return SY_PEEK_TOO_BIG;
	return parse_client_hello(r, len, out);
}

enum sy_peek_status
sy_tls_peek(const struct sy_frag *frags, unsigned n_frags, uint32_t max_len,
	    struct sy_tls_hello *out)
{
	struct sy_tls_rd rd = { .cur = { .frags = frags } };
	enum sy_peek_status st;
	uint64_t total = 0;
	unsigned i;

	for (i = 0; i < n_frags; i++)
		total += frags[i].len;
	/* Look at no more than max_len bytes: a hello cut into many small
	 * records may fit max_len by its declared length and still not by its
	 * size on the wire. */
	rd.cur.limit = total < max_len ? (uint32_t)total : max_len;

	out->record_version = 0;
	out->hello_version = 0;
	out->hello_len = 0;
	out->has_sni = false;
	out->sni_len = 0;
	out->sni[0] = '\0';

	st = parse_hello(&rd, max_len, out);
	if (st == SY_PEEK_MORE && total >= max_len)
		return SY_PEEK_TOO_BIG;
	return st;
}
