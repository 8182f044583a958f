/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which hosts a terminated connection may carry requests for (tls.h,
 * sy_tls_conn_serves). Browsers reuse one connection for every name its
 * certificate covers (RFC 9110 4.3.3; RFC 9113 9.1.1 for HTTP/2, where
 * Chrome and Firefox coalesce routinely), so a request whose Host is not
 * the SNI's is normal, not an attack. It is served when the connection is
 * what that host's vhost would have negotiated itself: the same server
 * context (one per certificate, key, chain and minimum version: control/
 * tls/tls_cert.c shares them) and a certificate that names the host.
 * Otherwise it gets 421 (RFC 9110 15.5.20) and the client opens a new
 * connection with that name as SNI. HAProxy serves such requests without
 * looking; the OpenShift router (HAProxy underneath) too. Looking is what
 * keeps a vhost with its own certificate, or a higher floor, from being
 * reached over a connection negotiated for another.
 */
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include "sy_generation.h"
#include "tls/tls.h"
#include "tls/tls_internal.h"
#include "worker.h"

bool
sy_tls_conn_serves(const struct sy_tls_conn *tc, const struct sy_generation *g,
		   const struct sy_vhost *vh, const char *host, size_t len)
{
	const SSL_CTX *want;
	X509 *cert;

	want = vh->term != NULL && vh->term->ctx != NULL ? vh->term->ctx : sy_dp_tls_default_ctx();
	/* A vhost with client CAs of its own: only the handshake on its
	 * context checked the client's certificate. */
	if (vh->term != NULL && vh->term->client_ca && want != SSL_get_SSL_CTX(tc->ssl))
		return false;
	/* No SNI: the client took the default certificate for whatever it
	 * asks (an IP address in the URL, an old client); as before. */
	if (tc->sni_len == 0)
		return true;
	/* The common case: the vhost the ClientHello callback chose for. */
	if (sy_gen_find_vhost(g, tc->sni, tc->sni_len) == vh)
		return true;
	/* Another vhost: it needs the context this connection is on ... */
	if (want != SSL_get_SSL_CTX(tc->ssl))
		return false;
	/* ... the floor the callback would have set for it (a vhost on the
	 * default context raises it on the connection, not the context) ... */
	if (vh->min_tls_version >= 0x0304 && SSL_version(tc->ssl) < TLS1_3_VERSION)
		return false;
	/* ... and a certificate that names the host (wildcards in the first
	 * label only, as clients check). OpenSSL decodes the names for it:
	 * only requests whose Host is not the SNI's pay that. */
	cert = SSL_get_certificate(tc->ssl);
	return cert != NULL && len > 0 && X509_check_host(cert, host, len, X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS, NULL) == 1;
}
