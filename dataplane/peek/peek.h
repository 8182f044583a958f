/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Peeking at the first bytes of a connection without acknowledging them
 * (docs/architecture.md 9.2, PEEK): the HTTP/1.x request head's Host (and
 * path), or the TLS ClientHello's SNI. The held bytes are a list of fragments
 * in stream order (one per held TCP segment payload, or per mbuf segment); a
 * value may span fragments. The peekers never allocate, never read past a
 * fragment, keep no state between calls (each call re-parses from the first
 * byte: the held bytes are bounded, so this stays cheap), and return a status:
 *
 *   SY_PEEK_MORE       not enough bytes yet; call again when more arrive
 *   SY_PEEK_DONE       found: *out is filled
 *   SY_PEEK_BAD        malformed: answer 400 (HTTP) / close (TLS)
 *   SY_PEEK_TOO_BIG    head/hello larger than max_len: 431 (HTTP) / close
 *   SY_PEEK_URI_TOO_LONG  request target longer than SY_PEEK_PATH_MAX: 414
 *   SY_PEEK_NOT_MINE   (TLS) the bytes are not a TLS handshake record
 *
 * max_len is the most stream bytes the caller will hold: only the first
 * max_len bytes are looked at, and a head (HTTP, leading CRLFs included) or a
 * ClientHello with its record headers (TLS) that does not fit in them is
 * TOO_BIG (TLS: as soon as the declared hello length says it cannot fit,
 * i.e. hello_len + 9 > max_len). Bytes after the head or the hello (a body,
 * a pipelined request, a ChangeCipherSpec) are ignored. On any status but
 * DONE, *out holds nothing useful.
 */
#ifndef SY_PEEK_H
#define SY_PEEK_H

#include <stdbool.h>
#include <stdint.h>

struct sy_frag {
	const uint8_t *data;
	uint32_t len;
};

enum sy_peek_status {
	SY_PEEK_MORE = 0,
	SY_PEEK_DONE = 1,
	SY_PEEK_BAD = -1,
	SY_PEEK_TOO_BIG = -2,
	SY_PEEK_URI_TOO_LONG = -3,
	SY_PEEK_NOT_MINE = -4,
};

#define SY_PEEK_HOST_MAX 255
#define SY_PEEK_PATH_MAX 2048

struct sy_http_head {
	char method[16];
	uint8_t method_len;
	uint8_t version_minor;   /* HTTP/1.0 -> 0, HTTP/1.1 -> 1 */
	uint16_t host_len;       /* 0: HTTP/1.0 request without Host */
	char host[SY_PEEK_HOST_MAX + 1]; /* as sent (port included), NUL-terminated */
	uint16_t path_len;
	char path[SY_PEEK_PATH_MAX + 1]; /* origin-form path + query, NUL-terminated */
	uint32_t head_len;       /* bytes up to and including the blank line */
};

/*
 * Parse an HTTP/1.0 or 1.1 request head. DONE only once the whole head (up to
 * the empty line) is there. Host: from an absolute-form target
 * ("GET http://h:8080/p HTTP/1.1") if present (RFC 9112 3.2.2), else the Host
 * header (case-insensitive name, surrounding blanks trimmed). HTTP/1.1 without
 * Host, several Host headers, a bad request line, bare LF or CR line endings,
 * control characters, obs-fold, or header names with spaces before the colon
 * are BAD (request smuggling and confusion attacks start there).
 */
enum sy_peek_status sy_http_peek(const struct sy_frag *frags, unsigned n_frags, uint32_t max_len,
				 struct sy_http_head *out);

struct sy_tls_hello {
	uint16_t record_version;   /* of the first record */
	uint16_t hello_version;    /* legacy_version in the ClientHello */
	uint32_t hello_len;        /* handshake message length */
	bool has_sni;
	uint16_t sni_len;
	char sni[SY_PEEK_HOST_MAX + 1]; /* host_name, NUL-terminated */
};

/*
 * Parse a TLS ClientHello: possibly split across TCP segments and across TLS
 * records (the handshake message is reassembled logically from consecutive
 * handshake records), larger than one MTU (post-quantum key shares make it
 * ~1.8 KB). DONE once the whole ClientHello message is there. Every length is
 * checked before it is read; "too short yet" (MORE) is kept apart from
 * "not TLS" (NOT_MINE) and "broken" (BAD).
 */
enum sy_peek_status sy_tls_peek(const struct sy_frag *frags, unsigned n_frags, uint32_t max_len,
				struct sy_tls_hello *out);

/*
 * The PROXY protocol header (HAProxy's, versions 1 and 2) at the start of
 * the stream, from a front load balancer (proxy_proto.c). DONE with its
 * length in out->len and, when it carries one, the client's address and
 * port (family AF_INET or AF_INET6, addresses in network order, ports in
 * host order). MORE: not all of it is held yet; BAD: the stream does not
 * start with a valid header (the connection is closed).
 */
#define SY_PP_V1_MAX 107  /* version 1, CRLF included */
#define SY_PP_MAX_LEN 536 /* version 2, TLVs included: what we hold for it */
struct sy_pp_info {
	uint32_t len;   /* header bytes, to take off the stream */
	bool has_addr;  /* false: LOCAL or UNKNOWN, the connection's own address stands */
	uint8_t family;
	uint8_t src[16], dst[16];
	uint16_t sport, dport;
};
enum sy_peek_status sy_proxy_proto_peek(const struct sy_frag *frags, unsigned n_frags,
					struct sy_pp_info *out);

/*
 * The HTTP/2 connection preface a client with prior knowledge sends first
 * on the plain listener (RFC 9113 3.3 and 3.4), h2c_peek.c: DONE when the
 * stream starts with all SY_H2_PREFACE_LEN bytes of it, MORE while what is
 * held is a prefix of it, NOT_MINE otherwise (HTTP/1.x: sy_http_peek's).
 */
#define SY_H2_PREFACE "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"
#define SY_H2_PREFACE_LEN 24
enum sy_peek_status sy_h2c_preface_peek(const struct sy_frag *frags, unsigned n_frags);

#endif
