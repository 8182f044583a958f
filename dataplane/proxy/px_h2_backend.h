/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HTTP/2 to backends (docs/architecture.md, "HTTP/2 to backends"): h2c
 * with prior knowledge to a Service port annotated
 * projectcontour.io/upstream-protocol.h2c, h2 over TLS where ALPN picks it.
 *
 * The exchange does not change. Its backend leg is a pipe (struct
 * px_h2_stream, as an h2 client's stream is its client leg): the exchange
 * writes its request into it as HTTP/1.1 and reads the response from it as
 * HTTP/1.1, chunked with its trailers. px_h2_backend.c carries the pipe
 * over an nghttp2 client session on the leg's TCP (or TLS) connection: the
 * request head as HEADERS, its body as DATA (px_h2_body.c), the response's
 * HEADERS, DATA and trailers back as HTTP/1.1. One stream at a time: the
 * exchange sends its next request once the last response is read, as it
 * does on an HTTP/1.1 leg, and a kept leg carries it as the next stream.
 */
#ifndef SY_PX_H2_BACKEND_H
#define SY_PX_H2_BACKEND_H

#include <stdbool.h>

struct sy_proxy;
struct sy_worker;

/* The nghttp2 callbacks every backend session shares: before workers run. */
int px_h2b_configure(void);
/* px's backend leg was just opened (px->b, px->btls): it speaks h2 from
 * here on. False (counted: h2_no_memory) when there is no memory for it;
 * the caller drops the leg. */
bool px_h2b_start(struct sy_worker *w, struct sy_proxy *px);
/* Move what there is: the pipe's request into frames, the backend's
 * frames into the pipe. True when anything moved. */
bool px_h2b_pump(struct sy_worker *w, struct sy_proxy *px);
/* The leg goes: the session and the pipe. */
void px_h2b_free(struct sy_worker *w, struct sy_proxy *px);

/* The idle pool (px_idle.c) keeps an h2c leg's session with its TCB: is
 * it clean to park (no stream, nothing owed either way)? A parked one is
 * freed alone (session_free), or taken by another exchange (adopt). */
struct px_h2b;
bool px_h2b_parkable(const struct sy_proxy *px);
void px_h2b_session_free(struct sy_worker *w, struct px_h2b *hb);
void px_h2b_adopt(struct sy_proxy *px, struct px_h2b *hb);
/* Parking: what the session needs only while a response comes goes. */
void px_h2b_park(struct px_h2b *hb);

#endif
