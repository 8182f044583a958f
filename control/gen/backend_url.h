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
 * endpoint (control/gen/pool.c splits the URL's weight over them). Answers, a
 * failure too, are kept SY_BACKEND_DNS_TTL_S seconds, so a full compile of
 * many routes naming one host asks once, and so the check of an
 * incremental compile against a full one (compile_verify.c, two compiles
 * in a row) sees the same addresses. A name is looked up again only when a
 * compile touches an object that names it: the router does not follow DNS
 * changes on its own. A lookup blocks the control thread (a slow DNS
 * server slows the compile, not the data plane).
 *
 * "https://" URLs are parsed and resolved like "http://" ones (port 443
 * unless written); the scheme and host are kept (out->tls, out->host, then
 * each endpoint's tls and tls_name in the generation): the proxy reaches
 * such an endpoint over TLS and verifies its certificate for that host
 * (control/tls/tls_cert.h, sy_tls_url_backend_ctx_get).
 */
#ifndef SY_BACKEND_URL_H
#define SY_BACKEND_URL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sy_addr.h"

#define SY_BACKEND_DNS_TTL_S 30
/* Addresses taken from one name: the lowest, so the choice does not follow
 * the resolver's order. */
#define SY_BACKEND_URL_ADDRS_MAX 16

enum sy_backend_url_rc {
	SY_BACKEND_URL_OK = 0,
	SY_BACKEND_URL_REFUSED = -1,    /* the router cannot serve this URL (why says why) */
	SY_BACKEND_URL_UNRESOLVED = -2, /* its host name has no address now (why says why) */
};

/* What a URL names. */
struct sy_backend_url {
	bool tls;         /* https:// */
	uint16_t port;    /* as written, else the scheme's (80, 443) */
	char host[256];   /* lower-cased, without the port: the name TLS verifies */
	unsigned n_addrs; /* the IPv4 literal, or the name's addresses: sorted, no duplicates */
	struct sy_addr addrs[SY_BACKEND_URL_ADDRS_MAX];
};

/*
 * Parse url and resolve its host into *out. SY_BACKEND_URL_OK (why "");
 * or an error with why, a phrase that completes "network backend URL: ...".
 * out->tls and out->port are set once the scheme and port are read (an
 * unresolved https URL is still https), out->host once the host is.
 */
enum sy_backend_url_rc sy_backend_url_resolve(const char *url, struct sy_backend_url *out,
					      char *why, size_t whylen);

/* Tests: forget every cached answer; make them all `seconds` older;
 * getaddrinfo calls made so far. */
void sy_backend_url_cache_clear(void);
void sy_backend_url_cache_age(unsigned seconds);
unsigned long sy_backend_url_lookups(void);

#endif
