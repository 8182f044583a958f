/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A query parameter of a request target, for the query predicates (Gateway
 * API queryParams, HTTPProxy queryParameter conditions). One function for
 * the data path (dataplane/proxy/proxy_route.c, on the request's bytes) and
 * for resolve (control/gen/rule_match.c), so both find the same value.
 *
 * Names and values are compared as they are on the wire, not percent-decoded
 * (docs/routing.md, "Query parameters"); the first parameter of that name
 * counts, as Envoy's query parameter matcher takes the first.
 */
#ifndef SY_QUERY_H
#define SY_QUERY_H

#include <stddef.h>
#include <string.h>

/* The value of parameter `name` in target[0..len) (a path with an optional
 * "?query" and "#fragment"), its length in *vlen; "" for a bare "name" or
 * "name="; NULL when there is no such parameter. */
static inline const char *
sy_query_param(const char *target, size_t len, const char *name, size_t *vlen)
{
	const char *frag = memchr(target, '#', len);
	const char *end = frag != NULL ? frag : target + len;
	const char *q = memchr(target, '?', (size_t)(end - target));
	size_t nlen = strlen(name);

	if (q == NULL)
		return NULL;
	for (q++; q < end;) {
		const char *amp = memchr(q, '&', (size_t)(end - q));
		const char *stop = amp != NULL ? amp : end;
		const char *eq = memchr(q, '=', (size_t)(stop - q));
		const char *nend = eq != NULL ? eq : stop;

		if ((size_t)(nend - q) == nlen && memcmp(q, name, nlen) == 0) {
			*vlen = eq != NULL ? (size_t)(stop - eq - 1) : 0;
			return eq != NULL ? eq + 1 : stop;
		}
		q = stop + 1;
	}
	return NULL;
}

#endif
