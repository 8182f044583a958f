/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the proxy needs to know of an HTTP/1.x message to carry it: where
 * its head ends, how its body is framed (RFC 9112 6), whether the
 * connection stays open, and for requests what routing reads (method, Host,
 * target). The request head is first checked by the peeker's strict rules
 * (peek.h: bare CR/LF, obs-fold, control characters, spaces before colons,
 * several Hosts are refused); the framing rules on top are px_msg.c's.
 */
#ifndef SY_PX_MSG_H
#define SY_PX_MSG_H

#include <stdbool.h>
#include <stdint.h>

#include "peek/peek.h"

enum sy_px_framing {
	SY_PX_BODY_NONE,    /* no body */
	SY_PX_BODY_LENGTH,  /* Content-Length bytes */
	SY_PX_BODY_CHUNKED, /* chunked, to its last chunk and trailers */
	SY_PX_BODY_CLOSE,   /* a response read until the backend closes */
	SY_PX_BODY_TUNNEL,  /* 101 / CONNECT 2xx: bytes both ways from here */
};

/* Refusals, each with the status the router answers. */
enum sy_px_msg_status {
	SY_PX_MSG_MORE = 0,
	SY_PX_MSG_DONE = 1,
	SY_PX_MSG_BAD = -1,        /* 400 (request) / 502 (response) */
	SY_PX_MSG_TOO_BIG = -2,    /* 431 / 502 */
	SY_PX_MSG_URI_TOO_LONG = -3, /* 414 */
	SY_PX_MSG_BAD_TE = -4,     /* 501: a transfer coding we do not do */
	SY_PX_MSG_VERSION = -5,    /* 505 */
	SY_PX_MSG_TOO_LARGE = -6,  /* 413: a Content-Length past SY_PX_BODY_MAX */
};

/* The largest request body a Content-Length may announce (1 TiB). No real
 * upload comes near it; a length past it is a probe or a client bug, and
 * a backend keeping lengths in a double or a 32-bit field would frame it
 * differently from us. Answered 413 before anything is forwarded. */
#define SY_PX_BODY_MAX (1ULL << 40)

struct sy_px_req {
	struct sy_http_head h;  /* method, Host, target, head_len (peek.h) */
	enum sy_px_framing framing;
	uint64_t length;        /* LENGTH */
	bool keep_alive;        /* the client wants the connection kept */
	bool upgrade;           /* Connection: upgrade with an Upgrade header */
	bool expect_continue;
	bool is_head, is_connect;
	bool has_forwarded;     /* Forwarded or X-Forwarded-* present */
};

struct sy_px_resp {
	uint16_t status;
	uint8_t version_minor;
	uint32_t head_len;
	enum sy_px_framing framing;
	uint64_t length;
	bool keep_alive;
};

/* Chunked body walker: where the message ends, bytes forwarded as they are. */
struct sy_px_chunked {
	uint8_t state;
	uint8_t digits;
	uint16_t line;      /* bytes of the current size/trailer line */
	uint64_t left;      /* of the current chunk's data */
};

/* A chunk size has at most this many hex digits (leading zeros included):
 * below 2^60, so it never overflows, and no parser reads it mod 2^64. */
#define SY_PX_CHUNK_DIGITS_MAX 15

#define SY_PX_CHUNK_LINE_MAX 4096 /* a chunk-size line with extensions, a trailer line */

/* Heads are parsed from a copy of the queue's first bytes (p, len): the
 * proxy rewrites request heads anyway, and a head is small next to the
 * body it announces. len is what is held so far, at most max_head. The
 * bytes of a chunked request body that came with the head (p[head_len..len))
 * are walked too: a broken one is refused (BAD) before the head is
 * forwarded anywhere, so a backend never sees the start of a request the
 * router refuses. */
enum sy_px_msg_status sy_px_parse_request(const uint8_t *p, uint32_t len, uint32_t max_head,
					  struct sy_px_req *out);
enum sy_px_msg_status sy_px_parse_response(const uint8_t *p, uint32_t len, uint32_t max_head,
					   bool head_request, bool connect_request,
					   struct sy_px_resp *out);
/* Feed body bytes; *used says how many belong to the message. DONE when
 * its end was among them, BAD on a framing error, MORE otherwise. Strict
 * RFC 9112 7.1: hex size (SY_PX_CHUNK_DIGITS_MAX digits at most), BWS
 * only before ";" or the CR, extensions as token [= token / quoted-string],
 * CRLF everywhere (no bare LF), trailers as field lines (name ":" value). */
enum sy_px_msg_status sy_px_chunked_feed(struct sy_px_chunked *c, const uint8_t *p, uint32_t len,
					 uint32_t *used);
/* The status the router answers a refused request with. */
uint16_t sy_px_msg_http_status(enum sy_px_msg_status st);

#endif
