/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HTTP/2 to backends (docs/architecture.md, "HTTP/2 to backends"): h2c
 * with prior knowledge to a Service port annotated
 * projectcontour.io/upstream-protocol.h2c, h2 over TLS where ALPN picks it.
 *
 * The exchange does not change. Its backend leg is a pipe (the `pipe` of
 * its struct px_h2b_strm, as an h2 client's stream is its client leg): the
 * exchange writes its request into it as HTTP/1.1 and reads the response
 * from it as HTTP/1.1, chunked with its trailers. px_h2_backend.c carries
 * the pipe as one stream of an nghttp2 client session: the request head as
 * HEADERS, its body as DATA (px_h2_body.c), the response's HEADERS, DATA
 * and trailers back as HTTP/1.1.
 *
 * Two kinds of session:
 *  - an h2c connection is a carrier, a record of its own
 *    (SY_CONN_PROXY_H2): it owns its TCP leg and carries the streams of
 *    every exchange of the worker sent to its endpoint, up to the
 *    backend's SETTINGS_MAX_CONCURRENT_STREAMS (at most
 *    SY_PX_H2C_STREAMS_MAX); the exchange has the pipe and no TCP leg
 *    (px->bc NULL). Idle carriers stay SY_PROXY_IDLE_BACKEND_MS.
 *  - h2 over TLS begins as the exchange's own leg (px->b, px->btls, the
 *    session beside them): ALPN decides whether it speaks h2 at all.
 *    Once it does, the leg becomes a carrier too, joined only by streams
 *    whose route verifies the backend the same way (client context and
 *    name).
 */
#ifndef SY_PX_H2_BACKEND_H
#define SY_PX_H2_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "sy_addr.h"

struct sy_proxy;
struct sy_worker;

/* A worker's carriers: at most this many at once (each a flow record, a
 * TCB and an nghttp2 session), and streams on each. */
#define SY_PX_H2C_MAX 256
#define SY_PX_H2C_STREAMS_MAX 100
/* Streams a carrier begins in all, then it takes no more and closes once
 * empty: nginx ends an h2 connection after 1000 requests
 * (keepalive_requests) with a GOAWAY that refuses the streams sent past
 * it; stopping first spares those a second trip (Envoy's
 * max_requests_per_connection, HAProxy's max-reuse). */
#define SY_PX_H2C_REQUESTS_MAX 1000
/* A request whose stream the backend refused unprocessed (REFUSED_STREAM,
 * or a GOAWAY that left it out) goes again this many times at most, on
 * another stream, whatever its method (RFC 9113 8.7). */
#define SY_PX_H2_UNPROCESSED_RETRIES 3

/* The nghttp2 callbacks every backend session shares, the carriers' record
 * operations: before workers run. */
int px_h2b_configure(void);
void px_h2b_register_ops(void);
/* The worker's carrier table (with the proxy's tables); fini after every
 * record is freed. */
int px_h2b_worker_init(struct sy_worker *w);
void px_h2b_worker_fini(struct sy_worker *w);

/* px's backend leg was just opened over TLS (px->b, px->btls): it speaks
 * h2 if ALPN says so. False (counted: h2_no_memory) when there is no
 * memory for it; the caller drops the leg. */
bool px_h2b_start(struct sy_worker *w, struct sy_proxy *px, const char *tls_name);
/* A stream for px on a carrier to ip:port (network order) that has room.
 * h2c (tls_ctx NULL): else a new connection; 0, or an answer reason (enum
 * sy_answer_reason). TLS: only one verified with tls_ctx and tls_name;
 * -ENOENT when there is none (the caller opens a leg of its own, which
 * becomes a carrier once ALPN says h2). */
int px_h2b_join(struct sy_worker *w, struct sy_proxy *px, const struct sy_addr *ip, uint16_t port,
		const void *tls_ctx, const char *tls_name);
/* Move what there is: the pipe's request into frames, the backend's
 * frames into the pipe. True when anything moved. */
bool px_h2b_pump(struct sy_worker *w, struct sy_proxy *px);
/* The exchange read from or closed its pipe: the session looks at the
 * stream on its next pass (its window, its end). */
void px_h2b_touch(struct sy_proxy *px);
/* The exchange lets go of its stream (reset if still open), and of the
 * session if it is its own. */
void px_h2b_free(struct sy_worker *w, struct sy_proxy *px);

/* What the exchange knows of a stream on a carrier, in place of its own
 * TCB's: the carrier's TCP state (SY_TCPS_CLOSED once it is gone);
 * refused: the connection never opened; delivered: the request may have
 * reached the backend (false after REFUSED_STREAM or a GOAWAY that did
 * not cover it, RFC 9113 8.7: safe to send again); activity: anything
 * moved on it since the last ask (the exchange's silence deadline). */
uint8_t px_h2b_state(const struct sy_proxy *px);
bool px_h2b_refused(const struct sy_proxy *px);
bool px_h2b_delivered(const struct sy_proxy *px);
/* The stream rides TLS (a carrier of h2 by ALPN): true, with the client
 * context and the name its connection was opened with (for a request sent
 * again: px_replay, proxy_http.c). */
bool px_h2b_tls(const struct sy_proxy *px, const void **ctx, const char **name);
/* The backend refused the stream unprocessed. */
bool px_h2b_unprocessed(const struct sy_proxy *px);
bool px_h2b_take_activity(struct sy_proxy *px);

#endif
