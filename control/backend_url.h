/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Backend URLs written into a route (Skipper network and lb backends): the
 * endpoints they name. Skipper reads such an address with Go's
 * url.ParseRequestURI and keeps the scheme (lower-cased) and the host with
 * its port; a path is not used. A bare "10.2.0.1:8080" is not a request URI
 * there, so it is not one here either.
 *
 * A host name is resolved here, by the control thread, when a compile
 * builds the pool (getaddrinfo, IPv4): every address it has becomes an
 * endpoint. Answers are kept SY_BACKEND_DNS_TTL_S seconds, so a full
 * compile of many routes naming one host asks once, and so the check of an
 * incremental compile against a full one (compile_verify.c) sees the same
 * addresses. A name is looked up again only when a compile touches a route
 * that names it: the router does not follow DNS changes on its own.
 *
 * "https://" URLs are parsed and resolved like "http://" ones and the URL
 * is kept as written (its scheme with it) for TLS towards backends, which
 * comes with TLS termination; until then they are not served.
 */
#ifndef SY_BACKEND_URL_H
#define SY_BACKEND_URL_H

#include <stddef.h>
#include <stdint.h>

#include "sy_addr.h"

#define SY_BACKEND_DNS_TTL_S 30
#define SY_BACKEND_URL_ADDRS_MAX 16 /* addresses taken from one name */

enum sy_backend_url_rc {
	SY_BACKEND_URL_OK = 0,
	SY_BACKEND_URL_REFUSED = -1,    /* the router cannot serve this URL (why says why) */
	SY_BACKEND_URL_UNRESOLVED = -2, /* its host name has no address now (why says why) */
};

/*
 * The endpoints url names: its IPv4 address, or every IPv4 address of its
 * host name (sorted, without duplicates, at most `max`), in addrs, the
 * number of them in *n, the port (the scheme's default when absent) in
 * *port. Returns SY_BACKEND_URL_OK, or an error with why, a phrase that
 * completes "network backend URL: ...".
 */
enum sy_backend_url_rc sy_backend_url_resolve(const char *url, struct sy_addr *addrs, unsigned max,
					      unsigned *n, uint16_t *port, char *why,
					      size_t whylen);
/* Forget cached answers (tests). */
void sy_backend_url_cache_clear(void);

#endif
