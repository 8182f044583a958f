/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Redirects whose Location depends on the request (Gateway API's
 * RequestRedirect keeping the request's path under a prefix match, or its
 * host on a wildcard or hostless route), and the path prefix replacement
 * both redirects and rewrites use. The data plane (proxy_route.c) and
 * resolve (control/gen/resolve.c) expand the same template here, so what
 * resolve says is what a client gets.
 *
 * A rule's location is a template: literal text, where SY_LOC_HOST stands
 * for the request's host (without its port) and SY_LOC_PATH, last, for the
 * request's path after the rule's path filters (a prefix replaced), then
 * its query. Neither byte can be in a URL the compiler writes (the kinds
 * check hostnames and paths), so a fixed Location has neither.
 */
#ifndef SY_REDIRECT_H
#define SY_REDIRECT_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define SY_LOC_HOST '\x01'
#define SY_LOC_PATH '\x02'
#define SY_LOC_HOST_S "\x01"
#define SY_LOC_PATH_S "\x02"

/* Does the location need the request? */
static inline bool
sy_location_is_template(const char *loc)
{
	return loc != NULL && strpbrk(loc, SY_LOC_HOST_S SY_LOC_PATH_S) != NULL;
}

/*
 * The route's path prefix (without its trailing '/') taken off the path,
 * target put in its place, one '/' between them: with prefix /foo, target
 * "/" makes /foo, /foo/, /foo/bar into /, /, /bar, and "/baz" makes them
 * /baz, /baz/, /baz/bar (OpenShift's rewrite-target table; Gateway API's
 * ReplacePrefixMatch, whose prefix "/" is given as ""). A path the prefix
 * does not start is left alone. The length in out (NUL-terminated), 0 when
 * it does not fit.
 */
static inline uint32_t
sy_path_replace_prefix(const char *prefix, const char *target, const char *path, uint32_t plen,
		       char *out, size_t room)
{
	size_t n = strlen(prefix), t = strlen(target);
	const char *rest = path + n;
	size_t rlen;

	if (plen < n || memcmp(path, prefix, n) != 0) {
		rest = path;
		n = 0;
		t = 0;
	}
	rlen = plen - n;
	if (t > 0 && target[t - 1] == '/' && rlen > 0 && rest[0] == '/') {
		rest++;
		rlen--;
	}
	if (t + rlen + 1 > room || t + rlen == 0)
		return 0;
	memcpy(out, target, t);
	memcpy(out + t, rest, rlen);
	out[t + rlen] = '\0';
	return (uint32_t)(t + rlen);
}

/*
 * The Location from the template: host (hlen bytes, its port already cut),
 * path (plen bytes, already rewritten) and query (qlen bytes, with its '?',
 * or 0). Its length in out (NUL-terminated), 0 when it does not fit.
 */
static inline size_t
sy_location_expand(const char *tmpl, const char *host, size_t hlen, const char *path, size_t plen,
		   const char *query, size_t qlen, char *out, size_t room)
{
	size_t at = 0;
	const char *p;

	for (p = tmpl; *p != '\0'; p++) {
		const char *s = p;
		size_t n = 1;

		if (*p == SY_LOC_HOST) {
			s = host;
			n = hlen;
		} else if (*p == SY_LOC_PATH) {
			if (at + plen + qlen >= room)
				return 0;
			memcpy(out + at, path, plen);
			memcpy(out + at + plen, query, qlen);
			at += plen + qlen;
			continue;
		}
		if (at + n >= room)
			return 0;
		memcpy(out + at, s, n);
		at += n;
	}
	out[at] = '\0';
	return at;
}

#endif
