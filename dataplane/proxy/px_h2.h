/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HTTP/2 towards clients (docs/architecture.md, "HTTP/2"): ALPN h2 on every
 * terminated vhost, h2c with prior knowledge on the plain listener.
 * libnghttp2 does the framing, HPACK and flow control; it does no I/O and
 * takes its memory from the workers' allocator (tls/tls_alloc.h), bounded
 * per session.
 *
 * Each stream is an exchange of its own: a struct sy_proxy whose client
 * leg is not TCP but a pipe (struct px_h2_stream) the session writes the
 * stream's request into as HTTP/1.1 and reads its response from. The
 * exchange is the HTTP/1.1 proxy's, unchanged: routing by Host (the
 * stream's :authority), path, method and headers, every predicate, filter,
 * redirect, rewrite and header policy, X-Forwarded-*, the backend leg (a
 * pooled keep-alive HTTP/1.1 connection), retries, timeouts, the access
 * log and the route's counters. The session (px_h2.c) owns the TCP or TLS
 * connection, the limits and the streams; px_h2_stream.c turns a stream's
 * HEADERS and DATA into the HTTP/1.1 request and the exchange's HTTP/1.1
 * response into HEADERS and DATA.
 */
#ifndef SY_PX_H2_H
#define SY_PX_H2_H

#include <stdbool.h>
#include <stdint.h>

#include "tcp/mbuf_queue.h"

struct sy_h2_config;
struct sy_proxy;
struct sy_worker;
struct px_h2;
struct px_h2_mem;

/* An exchange's pipe: what its client leg is when it carries one h2
 * stream. in: the request as HTTP/1.1 (px_h2_stream.c writes, the
 * exchange reads); out: the response as HTTP/1.1 (the exchange writes,
 * px_h2_stream.c reads). */
struct px_h2_stream {
	struct sy_mq in, out;
	struct px_h2_mem *mem; /* its session's allocator (trl) */
	int32_t id;
	bool in_fin;       /* the client ended the stream: all of the request is in `in` */
	bool out_closed;   /* the exchange closed its side (no more in `out`) */
	bool closed;       /* nghttp2 closed the stream: the exchange goes at the next sweep */
	bool chunked_req;  /* the request body is sent chunked (no content-length) */
	bool is_head;      /* the request is HEAD: its response has no body */
	bool trailers;     /* the client's trailers are being written */
	bool head_sent;    /* the response's HEADERS are submitted */
	bool deferred;     /* its DATA waits for more of `out` */
	bool eof;          /* all of the response body went to nghttp2 */
	bool grpc;         /* the request's content-type is application/grpc[+...] */
	bool aborted;      /* the exchange failed: the stream is reset */
	bool own_answer;   /* the response is the router's own (proxy_http.c, px_answer) */
	uint8_t framing;   /* the response body's (enum sy_px_framing) */
	uint8_t dc_state;  /* chunked response: where the decoder is */
	/* A chunked response's trailer section, kept until its end to go
	 * out as the stream's trailers (HEADERS after the DATA): field lines,
	 * from the session's allocator. */
	char *trl;
	uint16_t trl_len;
	uint64_t left;     /* LENGTH: body bytes still to come; chunked: of this chunk */
	uint64_t in_total; /* bytes ever put in `in` */
	uint64_t in_taken; /* of them, seen taken by the exchange */
	uint64_t data_owed; /* DATA payload received and not yet given back to the window */
	struct sy_proxy *next, *prev; /* the session's exchanges */
};

/* http2 in routerd's config, for the workers: set once before they run. */
void sy_dp_h2_configure(const struct sy_h2_config *cfg);
bool sy_dp_h2_on(void);

/* On a proxied connection before its first request: does it speak h2
 * (ALPN h2 negotiated, or the h2c preface on a plain one)? Then px->h2 is
 * set up and true is returned (or the connection is aborted for want of
 * memory, also true). False: HTTP/1.x, decided for good (px->h2_decided). */
bool px_h2_detect(struct sy_worker *w, struct sy_proxy *px);
/* px_step of an h2 connection: the session, then every stream's exchange,
 * then what they produced. */
void px_h2_step(struct sy_worker *w, struct sy_proxy *px);
/* The connection's timer fired: the streams' timers and deadlines. */
void px_h2_timers(struct sy_worker *w, struct sy_proxy *px);
/* The earliest timer among the streams' and the session's (TSC), 0 none. */
uint64_t px_h2_next_timer(struct sy_worker *w, const struct sy_proxy *px);
/* A graceful drain: GOAWAY, the streams open finish. */
void px_h2_drain(struct sy_worker *w, struct sy_proxy *px);
/* The connection is released: every stream's exchange and the session. */
void px_h2_free(struct sy_worker *w, struct sy_proxy *px);
/* Streams open on the connection (routerctl conns). */
uint32_t px_h2_streams(const struct sy_proxy *px);

#endif
