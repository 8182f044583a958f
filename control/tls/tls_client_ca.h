/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Client certificates, the control thread's part (tls.client_certificates;
 * the workers' is dataplane/tls/tls_client_cert.c): the CAs a client's
 * certificate must chain to, the verify mode of the policy, and the subject
 * patterns, compiled once for the workers.
 *
 * The settings come from the config file alone and are fixed for the
 * process: every server context routerd makes (the default one and each
 * vhost's, tls_cert.c's make_ctx) gets the same, so the context cache's key
 * needs none of them, and a connection that the ClientHello moves to a
 * vhost's context asks for a certificate exactly as it would have.
 */
#ifndef SY_TLS_CLIENT_CA_H
#define SY_TLS_CLIENT_CA_H

#include <stddef.h>

#include <openssl/ssl.h>

struct sy_config;

/* Read cfg's tls.client_certificates (nothing to do when it has none) and
 * hand the workers the policy. Before any server context is made. 0, or -1
 * with the key and the value in err. */
int sy_tls_client_ca_setup(const struct sy_config *cfg, char *err, size_t errlen);
/* Ask ctx's clients for a certificate, as the policy says (no-op when off). */
void sy_tls_client_ca_apply(SSL_CTX *ctx);
/* After the workers stopped. */
void sy_tls_client_ca_teardown(void);

#endif
