/* SPDX-License-Identifier: BSD-3-Clause */
#include <netdb.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "backend_url.h"

/* ------------------------------------------------------------ DNS cache -- */

#define CACHE_SLOTS 64

struct dns_entry {
	char name[256];
	time_t at;  /* CLOCK_MONOTONIC seconds of the lookup; 0 = free */
	unsigned n; /* addresses; 0 with err: the lookup failed */
	struct sy_addr a[SY_BACKEND_URL_ADDRS_MAX];
	char err[128];
};

static struct dns_entry cache[CACHE_SLOTS];

void
sy_backend_url_cache_clear(void)
{
	memset(cache, 0, sizeof(cache));
}

static time_t
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + 1; /* never 0: 0 marks a free slot */
}

static int
addr_cmp(const void *x, const void *y)
{
	uint32_t a = ntohl(((const struct sy_addr *)x)->v4), b = ntohl(((const struct sy_addr *)y)->v4);

	return a < b ? -1 : a > b;
}

/* A lookup, from the cache while it is fresh. */
static const struct dns_entry *
lookup(const char *name)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL, *ai;
	struct dns_entry *e = NULL;
	time_t t = now_s();
	unsigned i, k;
	int rc;

	for (i = 0; i < CACHE_SLOTS; i++) {
		if (cache[i].at != 0 && strcmp(cache[i].name, name) == 0) {
			if (t - cache[i].at < SY_BACKEND_DNS_TTL_S)
				return &cache[i];
			e = &cache[i];
			break;
		}
	}
	if (e == NULL) /* a free slot, else the oldest */
		for (i = 0; i < CACHE_SLOTS; i++)
			if (e == NULL || cache[i].at < e->at)
				e = &cache[i];
	memset(e, 0, sizeof(*e));
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->at = t;
	rc = getaddrinfo(name, NULL, &hints, &res);
	if (rc != 0) {
		snprintf(e->err, sizeof(e->err), "%s", gai_strerror(rc));
		return e;
	}
	for (ai = res; ai != NULL && e->n < SY_BACKEND_URL_ADDRS_MAX; ai = ai->ai_next) {
		struct sy_addr a = { .family = AF_INET };

		if (ai->ai_family != AF_INET)
			continue;
		a.v4 = ((const struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr;
		e->a[e->n++] = a;
	}
	freeaddrinfo(res);
	qsort(e->a, e->n, sizeof(e->a[0]), addr_cmp);
	for (i = k = 0; i < e->n; i++) /* getaddrinfo repeats an address per socket type */
		if (k == 0 || e->a[i].v4 != e->a[k - 1].v4)
			e->a[k++] = e->a[i];
	e->n = k;
	if (e->n == 0)
		snprintf(e->err, sizeof(e->err), "no IPv4 address");
	return e;
}

/* ------------------------------------------------------------------ URLs -- */

/* Only digits and dots: meant as an address (glibc would read "10.1" as
 * 10.0.0.1; Go's resolver would not). */
static bool
numeric(const char *host)
{
	return host[strspn(host, "0123456789.")] == '\0';
}

enum sy_backend_url_rc
sy_backend_url_resolve(const char *url, struct sy_addr *addrs, unsigned max, unsigned *n,
		       uint16_t *port, char *why, size_t whylen)
{
	const char *sep = strstr(url, "://"), *auth, *end, *colon, *c;
	size_t scheme_len, host_len;
	unsigned long p;
	char host[256];
	const struct dns_entry *e;
	bool tls;
	unsigned i;

	*n = 0;
	if (sep == NULL || sep == url) {
		snprintf(why, whylen, "not a URL like http://198.18.1.10:8080");
		return SY_BACKEND_URL_REFUSED;
	}
	scheme_len = (size_t)(sep - url);
	tls = scheme_len == 5 && strncasecmp(url, "https", 5) == 0;
	if (!tls && (scheme_len != 4 || strncasecmp(url, "http", 4) != 0)) {
		snprintf(why, whylen, "the scheme \"%.*s\" is not http or https", (int)scheme_len, url);
		return SY_BACKEND_URL_REFUSED;
	}
	p = tls ? 443 : 80;
	auth = sep + 3;
	end = auth + strcspn(auth, "/?#");
	/* Go's transport turns user:password@ into an Authorization header. */
	if (memchr(auth, '@', (size_t)(end - auth)) != NULL) {
		snprintf(why, whylen, "credentials in the URL (an Authorization header to send) "
				      "are not supported by this router");
		return SY_BACKEND_URL_REFUSED;
	}
	if (*auth == '[') {
		snprintf(why, whylen, "IPv6 backends are not reached by this router yet");
		return SY_BACKEND_URL_REFUSED;
	}
	colon = memchr(auth, ':', (size_t)(end - auth));
	if (colon != NULL && colon + 1 < end) {
		/* Go's url package takes digits only; an empty port is the
		 * scheme's default. */
		for (p = 0, c = colon + 1; c < end; c++) {
			if (*c < '0' || *c > '9' || p > 65535) {
				p = 0;
				break;
			}
			p = p * 10 + (unsigned long)(*c - '0');
		}
		if (p == 0 || p > 65535) {
			snprintf(why, whylen, "\"%.*s\" is not a port number",
				 (int)(end - colon - 1), colon + 1);
			return SY_BACKEND_URL_REFUSED;
		}
	}
	host_len = (size_t)((colon ? colon : end) - auth);
	if (host_len == 0) {
		snprintf(why, whylen, "the URL has no host");
		return SY_BACKEND_URL_REFUSED;
	}
	if (host_len >= sizeof(host)) {
		snprintf(why, whylen, "the host name is longer than 255 bytes");
		return SY_BACKEND_URL_REFUSED;
	}
	memcpy(host, auth, host_len);
	host[host_len] = '\0';
	*port = (uint16_t)p;
	if (numeric(host)) {
		if (max == 0 || sy_addr_parse(host, &addrs[0]) != 0 || addrs[0].family != AF_INET) {
			snprintf(why, whylen, "\"%s\" is not an IPv4 address", host);
			return SY_BACKEND_URL_REFUSED;
		}
		*n = 1;
	} else {
		e = lookup(host);
		if (e->n == 0) {
			snprintf(why, whylen, "the host name %s did not resolve: %s", host, e->err);
			return SY_BACKEND_URL_UNRESOLVED;
		}
		for (i = 0; i < e->n && i < max; i++)
			addrs[i] = e->a[i];
		*n = i;
	}
	if (tls) {
		snprintf(why, whylen, "TLS to the backend (https://) comes with TLS termination, "
				      "which this router does not have yet");
		return SY_BACKEND_URL_REFUSED;
	}
	return SY_BACKEND_URL_OK;
}
