/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Client certificates on the workers (tls.client_certificates; the OpenShift
 * IngressController's clientTLS). The handshake itself asks for and verifies
 * the certificate: every server context carries the verify mode and the CA
 * store (control/tls/tls_client_ca.c). What is left for the workers, here:
 * once a handshake is done, whether the verified subject is one of the
 * allowed (the proxy answers 403 when not, as the OpenShift router's
 * `http-request deny`), and the subject for the header the backend gets.
 *
 * The subject is OpenSSL's one-line form (X509_NAME_oneline: "/C=US/O=Example
 * Inc/CN=client"), the form HAProxy's ssl_c_s_dn gives and the OpenShift
 * docs' allowedSubjectPatterns examples are written for. Bytes outside
 * printable ASCII are escaped (\xHH) by OpenSSL, so it is safe in a header.
 */
#ifndef SY_TLS_CLIENT_CERT_H
#define SY_TLS_CLIENT_CERT_H

#include <stdbool.h>
#include <stddef.h>

#include "sy_dataplane.h" /* struct sy_tls_client_policy */

struct sy_tls_conn;

/* sy_tls_conn.client_cert: what the handshake's certificate came to. */
enum sy_tls_client_cert {
	SY_TLS_CLIENT_CERT_NONE = 0, /* not asked for, or none given (Optional) */
	SY_TLS_CLIENT_CERT_ALLOWED,  /* verified, and its subject is let in */
	SY_TLS_CLIENT_CERT_REFUSED,  /* verified, but its subject matches no pattern: 403 */
};

/* A subject longer than this (never seen in practice) is refused: a cut
 * subject could match a pattern anchored at its end that the whole does not. */
#define SY_TLS_CLIENT_DN_MAX 1024

/* Are client certificates asked for? (Then the proxy forwards the subject,
 * and removes the headers that carry it from what clients send.) */
bool sy_dp_tls_client_certs_on(void);
/* At the end of a client's handshake: tc->client_cert. */
void sy_tls_client_cert_judge(struct sy_tls_conn *tc);
/* The verified subject of tc's client into buf (NUL-terminated); its length,
 * or 0 when there is none (or it does not fit). */
size_t sy_tls_client_dn(const struct sy_tls_conn *tc, char *buf, size_t len);

#endif
