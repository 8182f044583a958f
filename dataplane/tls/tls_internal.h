/* SPDX-License-Identifier: BSD-3-Clause */
/* What tls/'s files share (tls_ctx.c: contexts' callbacks, sessions;
 * tls_conn.c: connections over our TCP; tls_coalesce.c: which hosts a
 * connection carries). */
#ifndef SY_TLS_INTERNAL_H
#define SY_TLS_INTERNAL_H

#include <openssl/ssl.h>

struct sy_worker;

/* TLS 1.2 sessions by ID, per worker (a power of two). */
#define SY_TLS_SESS_CACHE 4096

struct sy_tls_worker {
	struct sy_worker *w;
	BIO_METHOD *bio_method; /* reads and writes a struct sy_tls_conn's TCP queues */
	SSL_SESSION *sess[SY_TLS_SESS_CACHE];
};

void sy_tls_sessions_free(struct sy_tls_worker *tw);

/* The router's default server context, every connection's first
 * (sy_dp_tls_set_default, before the workers start). */
SSL_CTX *sy_dp_tls_default_ctx(void);

#endif
