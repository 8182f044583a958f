/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
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

#include "gen/backend_url.h"
#include "strmap.h"

/* ------------------------------------------------------------ DNS cache -- */

/* One name's answer: its addresses, or (n == 0) why there are none. */
struct dns_entry {
	time_t at;  /* CLOCK_MONOTONIC seconds of the lookup */
	unsigned n;
	struct sy_addr a[SY_BACKEND_URL_ADDRS_MAX];
	char err[128];
	char name[]; /* lower case: the map's key */
};

static struct sy_strmap cache;     /* name -> struct dns_entry */
static size_t prune_at = 64;       /* entries before stale ones are dropped */
static unsigned long lookups;      /* getaddrinfo calls (tests) */

void
sy_backend_url_cache_clear(void)
{
	size_t i = 0;
	const char *key;
	void *v;

	while (sy_strmap_next(&cache, &i, &key, &v))
		free(v);
	sy_strmap_fini(&cache);
	memset(&cache, 0, sizeof(cache));
	prune_at = 64;
}

void
sy_backend_url_cache_age(unsigned seconds)
{
	size_t i = 0;
	const char *key;
	void *v;

	while (sy_strmap_next(&cache, &i, &key, &v))
		((struct dns_entry *)v)->at -= seconds;
}

unsigned long
sy_backend_url_lookups(void)
{
	return lookups;
}

static time_t
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec;
}

/* Drop the answers past their time, so names nobody uses any more do not
 * pile up; the map is allowed twice what is left before the next sweep. */
static void
prune(time_t t)
{
	struct dns_entry *stale[64];
	size_t i, n;
	const char *key;
	void *v;

	do {
		for (i = 0, n = 0; n < 64 && sy_strmap_next(&cache, &i, &key, &v);)
			if (t - ((struct dns_entry *)v)->at >= SY_BACKEND_DNS_TTL_S)
				stale[n++] = v;
		for (i = 0; i < n; i++) {
			sy_strmap_remove(&cache, stale[i]->name);
			free(stale[i]);
		}
	} while (n == 64);
	prune_at = cache.count * 2 > 64 ? cache.count * 2 : 64;
}

static int
addr_cmp(const void *x, const void *y)
{
	uint32_t a = ntohl(((const struct sy_addr *)x)->v4), b = ntohl(((const struct sy_addr *)y)->v4);

	return a < b ? -1 : a > b;
}

/* Ask the resolver for name's IPv4 addresses into e. */
static void
ask(struct dns_entry *e)
{
	struct addrinfo hints = { .ai_family = AF_INET, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL, *ai;
	struct sy_addr all[256];
	unsigned n = 0, i, k;
	int rc;

	e->n = 0;
	e->err[0] = '\0';
	lookups++;
	rc = getaddrinfo(e->name, NULL, &hints, &res);
	if (rc != 0) {
		snprintf(e->err, sizeof(e->err), "%s", gai_strerror(rc));
		return;
	}
	for (ai = res; ai != NULL && n < sizeof(all) / sizeof(all[0]); ai = ai->ai_next) {
		if (ai->ai_family != AF_INET)
			continue;
		all[n] = (struct sy_addr){ .family = AF_INET };
		all[n++].v4 = ((const struct sockaddr_in *)ai->ai_addr)->sin_addr.s_addr;
	}
	freeaddrinfo(res);
	/* Sorted and without repeats (a resolver may list an address twice,
	 * and its order rotates): the same name gives the same pool. */
	qsort(all, n, sizeof(all[0]), addr_cmp);
	for (i = k = 0; i < n; i++)
		if (k == 0 || all[i].v4 != all[k - 1].v4)
			all[k++] = all[i];
	for (i = 0; i < k && i < SY_BACKEND_URL_ADDRS_MAX; i++)
		e->a[e->n++] = all[i];
	if (e->n == 0)
		snprintf(e->err, sizeof(e->err), "no IPv4 address");
}

/* name's answer, from the cache while it is fresh. NULL on out of memory. */
static const struct dns_entry *
lookup(const char *name)
{
	struct dns_entry *e = sy_strmap_get(&cache, name);
	time_t t = now_s();

	if (e != NULL && t - e->at < SY_BACKEND_DNS_TTL_S)
		return e;
	if (e == NULL) {
		if (cache.count >= prune_at)
			prune(t);
		e = calloc(1, sizeof(*e) + strlen(name) + 1);
		if (e == NULL)
			return NULL;
		strcpy(e->name, name);
		if (sy_strmap_put(&cache, e->name, e) < 0) {
			free(e);
			return NULL;
		}
	}
	e->at = t;
	ask(e);
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
sy_backend_url_resolve(const char *url, struct sy_backend_url *out, char *why, size_t whylen)
{
	const char *sep = strstr(url, "://"), *auth, *end, *colon, *c;
	size_t scheme_len, host_len, i;
	unsigned long p;
	char host[256];
	const struct dns_entry *e;

	memset(out, 0, sizeof(*out));
	if (whylen > 0)
		why[0] = '\0';
	if (sep == NULL || sep == url) {
		snprintf(why, whylen, "not a URL like http://198.18.1.10:8080");
		return SY_BACKEND_URL_REFUSED;
	}
	scheme_len = (size_t)(sep - url);
	out->tls = scheme_len == 5 && strncasecmp(url, "https", 5) == 0;
	if (!out->tls && (scheme_len != 4 || strncasecmp(url, "http", 4) != 0)) {
		snprintf(why, whylen, "the scheme \"%.*s\" is not http or https", (int)scheme_len, url);
		return SY_BACKEND_URL_REFUSED;
	}
	p = out->tls ? 443 : 80;
	auth = sep + 3;
	end = auth + strcspn(auth, "/?#");
	/* Skipper keeps a backend URL's scheme and host only (url.Host has no
	 * userinfo), and its proxy calls the Transport, not http.Client (which
	 * alone turns userinfo into Authorization): the credentials never
	 * reach the backend there. Serving without them could hand a backend
	 * requests it must refuse; say so instead. */
	if (memchr(auth, '@', (size_t)(end - auth)) != NULL) {
		snprintf(why, whylen, "credentials in the URL (user:password@) are not sent to the "
				      "backend, by Skipper or this router: send an Authorization "
				      "header with setRequestHeader instead");
		return SY_BACKEND_URL_REFUSED;
	}
	if (*auth == '[') {
		/* An IPv6 literal (RFC 3986 3.2.2): [ADDRESS], then :PORT or
		 * nothing; zone identifiers are not for a backend. */
		const char *close = memchr(auth, ']', (size_t)(end - auth));
		char lit[INET6_ADDRSTRLEN + 1];
		size_t n;

		if (close == NULL || (close + 1 < end && close[1] != ':')) {
			snprintf(why, whylen, "\"%.*s\" is not an IPv6 literal ([ADDRESS] or [ADDRESS]:PORT)",
				 (int)(end - auth), auth);
			return SY_BACKEND_URL_REFUSED;
		}
		n = (size_t)(close - auth - 1);
		if (n == 0 || n >= sizeof(lit)) {
			snprintf(why, whylen, "\"%.*s\" is not an IPv6 address", (int)n, auth + 1);
			return SY_BACKEND_URL_REFUSED;
		}
		memcpy(lit, auth + 1, n);
		lit[n] = '\0';
		if (sy_addr_parse(lit, &out->addrs[0]) != 0 || out->addrs[0].family != AF_INET6) {
			snprintf(why, whylen, "\"%s\" is not an IPv6 address", lit);
			return SY_BACKEND_URL_REFUSED;
		}
		if (close + 1 < end) {
			for (p = 0, c = close + 2; c < end; c++) {
				if (*c < '0' || *c > '9' || p > 65535) {
					p = 0;
					break;
				}
				p = p * 10 + (unsigned long)(*c - '0');
			}
			if (close + 2 == end) /* "[addr]:": the scheme's port */
				p = out->tls ? 443 : 80;
			if (p == 0 || p > 65535) {
				snprintf(why, whylen, "\"%.*s\" is not a port number",
					 (int)(end - close - 2), close + 2);
				return SY_BACKEND_URL_REFUSED;
			}
		}
		out->port = (uint16_t)p;
		/* The canonical text (RFC 5952): what resolve shows and TLS
		 * matches against the certificate's IP addresses. */
		sy_addr_format(&out->addrs[0], out->host, sizeof(out->host));
		out->n_addrs = 1;
		return SY_BACKEND_URL_OK;
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
	out->port = (uint16_t)p;
	host_len = (size_t)((colon ? colon : end) - auth);
	if (host_len == 0) {
		snprintf(why, whylen, "the URL has no host");
		return SY_BACKEND_URL_REFUSED;
	}
	if (host_len >= sizeof(host)) {
		snprintf(why, whylen, "the host name is longer than 255 bytes");
		return SY_BACKEND_URL_REFUSED;
	}
	/* Host names are case-insensitive: one cache entry for all spellings. */
	for (i = 0; i < host_len; i++)
		host[i] = (char)tolower((unsigned char)auth[i]);
	host[host_len] = '\0';
	memcpy(out->host, host, host_len + 1);
	if (numeric(host)) {
		if (sy_addr_parse(host, &out->addrs[0]) != 0 || out->addrs[0].family != AF_INET) {
			snprintf(why, whylen, "\"%s\" is not an IPv4 address", host);
			return SY_BACKEND_URL_REFUSED;
		}
		out->n_addrs = 1;
	} else {
		if ((e = lookup(host)) == NULL) {
			snprintf(why, whylen, "the host name %s was not looked up: out of memory",
				 host);
			return SY_BACKEND_URL_UNRESOLVED;
		}
		if (e->n == 0) {
			snprintf(why, whylen, "the host name %s did not resolve: %s", host, e->err);
			return SY_BACKEND_URL_UNRESOLVED;
		}
		out->n_addrs = e->n;
		memcpy(out->addrs, e->a, e->n * sizeof(e->a[0]));
	}
	return SY_BACKEND_URL_OK;
}
