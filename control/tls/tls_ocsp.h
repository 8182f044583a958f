/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OCSP stapling (RFC 6066 section 8, RFC 6961's TLS 1.3 form in RFC 8446
 * 4.4.2.1), on the control thread. Staples are supplied, not fetched: an
 * operator's tool (a cron job running `openssl ocsp`, cert-manager, ...)
 * drops DER OCSP responses as files in tls.ocsp_dir (default
 * <state_dir>/ocsp), as HAProxy reads a `.ocsp` file beside a certificate.
 * A file's name does not matter: the response names the certificate it is
 * for (serial number and issuer hashes), and it is stapled to every server
 * certificate it matches.
 *
 * A response is used only when it is a successful basic response, its
 * signature verifies (by the issuer, or a responder the issuer delegated
 * to), and it is current (thisUpdate not in the future, nextUpdate not
 * past, 5 minutes' slack). Good and revoked answers are both stapled: a
 * staple says what the CA says. Matching needs the issuer, so only a
 * certificate whose chain carries its issuer (the route's caCertificate,
 * or the certificate PEM's own chain) can have one.
 *
 * The directory is scanned every tls.ocsp_rescan_s seconds. When the set
 * of usable staples changes (a file added, changed or removed, a response
 * gone stale) the staple epoch moves on: it is part of every server
 * context's cache key, so the full compile the control loop then runs
 * builds new contexts with the new staples, for new connections; open
 * connections keep theirs.
 */
#ifndef SY_TLS_OCSP_H
#define SY_TLS_OCSP_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>
#include <openssl/ssl.h>

/* Where staples come from, and how often the directory is looked at. */
void sy_ocsp_configure(const char *dir, unsigned rescan_s);
/* Look at the directory if it is time (now: Unix seconds). true when the
 * usable staples changed: the caller compiles everything again. */
bool sy_ocsp_rescan(time_t now);
/* Changes with every change of the usable staples (the cache key's part). */
uint64_t sy_ocsp_epoch(void);
/* Staple to ctx the response that matches leaf (issuer from chain), if one
 * does. Called when a server context is built. */
void sy_ocsp_attach(SSL_CTX *ctx, X509 *leaf, STACK_OF(X509) *chain);
/* For `routerctl status`: each file, what it answers for and until when,
 * or why it is not used. */
json_t *sy_ocsp_status(void);
void sy_ocsp_fini(void);

#endif
