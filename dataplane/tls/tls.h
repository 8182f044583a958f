/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TLS termination on the workers (issue 14; docs/architecture.md 4.5, "Proxy"):
 * the face of tls/. OpenSSL runs over our own TCP through a BIO of our own
 * that reads the client leg's receive queue and appends to its send queue
 * (tls_conn.c); no kernel socket, no lock of ours. The proxy mode reads and
 * writes plaintext queues in place of the TCP leg's (proxy_internal.h's
 * px_cin/px_cout), and calls sy_tls_pump to move bytes through OpenSSL.
 *
 * Contexts (one per certificate) are the control thread's (control/
 * tls_cert.c), shared read-only. Every connection starts on the router's
 * default context; the ClientHello callback (tls_ctx.c) finds the SNI's
 * vhost in the worker's generation (exact name, then wildcard) and switches
 * to its certificate and minimum version. Session tickets are sealed with
 * keys every worker shares, rotated by the control thread; TLS 1.2 session
 * IDs are kept in a per-worker cache.
 *
 * Memory: OpenSSL allocates for each connection (the SSL object, the
 * handshake's keys, record buffers, released while idle) from its own
 * allocator. That is the one place a worker's data path calls malloc; the
 * rest of tls/ does not.
 */
#ifndef SY_TLS_H
#define SY_TLS_H

#include <stdbool.h>
#include <stdint.h>

#include <openssl/ssl.h>

#include "tcp/mbuf_queue.h"

struct sy_generation;
struct sy_tcb;
struct sy_vhost;
struct sy_worker;

#define SY_TLS_SNI_MAX 255
/* Plaintext decrypted ahead of the HTTP layer, at most (back-pressure: past
 * it, ciphertext stays in the TCP receive queue and the window closes). */
#define SY_TLS_IN_MAX (64 * 1024)
/* Records queued on the TCP leg, at most (as SY_PROXY_SNDBUF). */
#define SY_TLS_SNDBUF (256 * 1024)

enum sy_tls_state {
	SY_TLS_HANDSHAKE,
	SY_TLS_OPEN,
	SY_TLS_FAILED, /* the alert (if any) is queued; the leg closes */
};

struct sy_tls_conn {
	SSL *ssl;
	struct sy_worker *w;
	struct sy_tcb *t;  /* the TCP leg underneath */
	struct sy_mq in;   /* plaintext received, for the proxy */
	struct sy_mq out;  /* plaintext the proxy sends */
	uint8_t state;     /* enum sy_tls_state */
	bool eof;          /* the client's close_notify, or its FIN after the last record */
	bool close_wanted; /* the proxy closes: close_notify after `out`, then FIN */
	bool closed;       /* close_notify queued and FIN asked */
	bool backend;      /* we are the client (re-encrypt, https:// backends) */
	uint8_t client_cert; /* enum sy_tls_client_cert, once the handshake is done */
	uint8_t sni_len;
	char sni[SY_TLS_SNI_MAX + 1]; /* lower case, no trailing dot; "" without SNI */
};

/* Start TLS on the accepted TCP leg t (its receive queue holds the
 * ClientHello's bytes). -1 when OpenSSL has no memory (counted). */
int sy_tls_accept(struct sy_worker *w, struct sy_tls_conn *tc, struct sy_tcb *t);
/* Start TLS towards a backend on leg t (its SYN may still be out): ctx
 * verifies the chain; name, when not NULL, is sent as SNI and must be in
 * the backend's certificate. -1 when OpenSSL has no memory (counted). */
int sy_tls_connect(struct sy_worker *w, struct sy_tls_conn *tc, struct sy_tcb *t, SSL_CTX *ctx,
		   const char *name);
/* Move bytes: ciphertext in -> handshake / plaintext in; plaintext out ->
 * records out; close_notify and FIN when asked. True when anything moved. */
bool sy_tls_pump(struct sy_tls_conn *tc);
/* sy_tls_pump's inbound half, on an open connection: ciphertext in ->
 * plaintext in, nothing sealed (a caller that seals once later: the h2
 * session within an RX burst, proxy/px_out.c). */
bool sy_tls_pump_in(struct sy_tls_conn *tc);
/* Bytes the proxy may still queue on `out` (bounded by sndbuf over both the
 * plaintext and the ciphertext queued). */
uint32_t sy_tls_send_room(const struct sy_tls_conn *tc, uint32_t sndbuf);
void sy_tls_free(struct sy_tls_conn *tc);
/* The connection's TLS moves to dst, over the TCP leg t (its TCB moved
 * there too: an h2 backend leg becoming a shared connection,
 * proxy/px_h2_backend.c); src is left empty. */
void sy_tls_conn_move(struct sy_tls_conn *dst, struct sy_tls_conn *src, struct sy_tcb *t);
/* The name a backend leg was opened with (sy_tls_connect's: the host name
 * its certificate is checked against and its SNI, or an IP address's
 * text), into buf; "" when it had none. For opening another leg like it: a
 * request sent again (proxy/proxy_http.c, px_replay). */
void sy_tls_conn_name(const struct sy_tls_conn *tc, char *buf, size_t len);
/* Whether a request for `host` (len bytes, no port), whose vhost in g is vh
 * (terminated here), may be served on this connection: the SNI's own vhost,
 * or one on the same context whose certificate names the host (RFC 9110
 * 4.3.3 connection reuse; tls_coalesce.c). False: answer 421. */
bool sy_tls_conn_serves(const struct sy_tls_conn *tc, const struct sy_generation *g,
			const struct sy_vhost *vh, const char *host, size_t len);

/* Per worker: the session cache and the BIO method. */
int sy_tls_worker_init(struct sy_worker *w);
void sy_tls_worker_fini(struct sy_worker *w);

#endif
