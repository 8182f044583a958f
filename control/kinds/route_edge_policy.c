/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What operators set on an OpenShift Route's edge with annotations
 * (haproxy.router.openshift.io/...; docs/routing.md, "Edge policies"):
 *   ip_allowlist    space-separated addresses and prefixes; anyone else gets
 *                   403 (the passthrough connection reset). ip_whitelist is
 *                   the older name; ip_allowlist wins when both are set.
 *   timeout         the server timeout (504 once it passes with no answer).
 *   timeout-tunnel  an idle tunnel's (WebSocket after its 101).
 *   hsts_header     Strict-Transport-Security on responses over TLS (edge
 *                   and re-encrypt routes; others have no TLS of ours).
 *   rewrite-target  the route's path replaced by this one in the request
 *                   sent to the backend (a filter: the route is proxied).
 *   pod-concurrent-connections  open connections an endpoint takes, at
 *                   most (the pool's max_conns, dataplane/lb/lb.c).
 *   rate-limit-connections: "true", then .concurrent-tcp, .rate-tcp (in 3 s)
 *                   and .rate-http (in 10 s): per source address; past one,
 *                   the connection is reset (dataplane/conn/src_limit.h).
 * The OpenShift router drops an invalid value silently and serves the route
 * without it. So do we, but say so on the route's status: a condition
 * naming the annotation and the value (route_openshift.c).
 */
#include <ctype.h>
#include <stddef.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arena.h"
#include "gen/source_allow.h"
#include "kinds/route_edge_policy.h"

#define ANN "haproxy.router.openshift.io/"
#define HAPROXY_TIME_MAX 2147483647ull /* ms: HAProxy's bound for a timeout */

int
sy_haproxy_time_ms(const char *s, uint32_t *ms)
{
	unsigned long long v = 0, us;
	const char *p = s;

	if (s == NULL || !isdigit((unsigned char)*p))
		return -1;
	for (; isdigit((unsigned char)*p); p++) {
		v = v * 10 + (unsigned long long)(*p - '0');
		if (v > HAPROXY_TIME_MAX * 1000)
			return -1;
	}
	/* In microseconds, then up to whole milliseconds. */
	if (strcmp(p, "us") == 0)
		us = v;
	else if (*p == '\0' || strcmp(p, "ms") == 0)
		us = v * 1000;
	else if (strcmp(p, "s") == 0)
		us = v * 1000000;
	else if (strcmp(p, "m") == 0)
		us = v * 60000000;
	else if (strcmp(p, "h") == 0)
		us = v * 3600000000ull;
	else if (strcmp(p, "d") == 0)
		us = v * 86400000000ull;
	else
		return -1;
	if (v == 0 || (us + 999) / 1000 > HAPROXY_TIME_MAX)
		return -1;
	*ms = (uint32_t)((us + 999) / 1000);
	return 0;
}

int
sy_hsts_check(const char *s)
{
	bool max_age = false, subdomains = false, preload = false;
	const char *p = s;

	if (s == NULL)
		return -1;
	for (;;) {
		size_t len;

		while (*p == ' ' || *p == '\t')
			p++;
		len = strcspn(p, ";");
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len > 8 && strncasecmp(p, "max-age=", 8) == 0 && !max_age) {
			size_t i;

			for (i = 8; i < len; i++)
				if (!isdigit((unsigned char)p[i]))
					return -1;
			max_age = true;
		} else if (len == 17 && strncasecmp(p, "includeSubDomains", 17) == 0 && !subdomains) {
			subdomains = true;
		} else if (len == 7 && strncasecmp(p, "preload", 7) == 0 && !preload) {
			preload = true;
		} else {
			return -1; /* empty, unknown or repeated */
		}
		p = strchr(p, ';');
		if (p == NULL)
			break;
		p++;
	}
	return max_age ? 0 : -1;
}

/* The template's isTrue: what strconv.ParseBool takes as true. */
static bool
is_true(const char *v)
{
	static const char *const yes[] = { "1", "t", "T", "TRUE", "true", "True" };
	size_t i;

	for (i = 0; i < sizeof(yes) / sizeof(yes[0]); i++)
		if (strcmp(v, yes[i]) == 0)
			return true;
	return false;
}

/* A limit: the template's isInteger, and something a limit can be. */
static int
limit_value(const char *v, uint32_t *n)
{
	unsigned long long x = 0;
	const char *p;

	if (*v == '\0' || strlen(v) > 10)
		return -1;
	for (p = v; *p; p++) {
		if (!isdigit((unsigned char)*p))
			return -1;
		x = x * 10 + (unsigned long long)(*p - '0');
	}
	if (x == 0 || x > 2147483647)
		return -1;
	*n = (uint32_t)x;
	return 0;
}

/* problem += "; " + the annotation's name and value, and why. */
static int
add_problem(struct sy_arena *a, const char **problem, const char *name, const char *value,
	    const char *why)
{
	char buf[640];
	char *s;

	snprintf(buf, sizeof(buf), "%s%s" ANN "%s: Invalid value: \"%.200s\": %s",
		 *problem ? *problem : "", *problem ? "; " : "", name, value, why);
	if ((s = sy_arena_strdup(a, buf)) == NULL)
		return -ENOMEM;
	*problem = s;
	return 0;
}

static const char *
annotation(const json_t *ann, const char *name)
{
	char key[128];

	snprintf(key, sizeof(key), ANN "%s", name);
	return json_string_value(json_object_get(ann, key));
}

int
sy_route_edge_policy(struct sy_arena *a, const json_t *ann, enum sy_tls_mode tls,
		     const struct sy_edge_policy_in **out, const char **problem)
{
	struct sy_edge_policy_in e = { 0 };
	const char *v, *name;
	char bad[80];
	int rc;

	*out = NULL;
	*problem = NULL;
	if (!json_is_object(ann))
		return 0;
	name = annotation(ann, "ip_allowlist") ? "ip_allowlist" : "ip_whitelist";
	v = annotation(ann, name);
	if (v != NULL && v[strspn(v, " \t\r\n")] != '\0') {
		rc = sy_source_allow_check(v, bad, sizeof(bad));
		if (rc == 0)
			e.allow = sy_arena_strdup(a, v);
		else if (add_problem(a, problem, name, bad, "not an IP address or CIDR") < 0)
			return -ENOMEM;
		if (rc == 0 && e.allow == NULL)
			return -ENOMEM;
	}
	if ((v = annotation(ann, "timeout")) != NULL && sy_haproxy_time_ms(v, &e.server_timeout_ms) < 0 &&
	    add_problem(a, problem, "timeout", v,
			"not a time (digits, then us, ms, s, m, h or d; at most 2147483647 ms)") < 0)
		return -ENOMEM;
	if ((v = annotation(ann, "timeout-tunnel")) != NULL &&
	    sy_haproxy_time_ms(v, &e.tunnel_timeout_ms) < 0 &&
	    add_problem(a, problem, "timeout-tunnel", v,
			"not a time (digits, then us, ms, s, m, h or d; at most 2147483647 ms)") < 0)
		return -ENOMEM;
	if ((v = annotation(ann, "hsts_header")) != NULL &&
	    (tls == SY_TLS_EDGE || tls == SY_TLS_REENCRYPT)) {
		if (sy_hsts_check(v) == 0) {
			if ((e.hsts = sy_arena_strdup(a, v)) == NULL)
				return -ENOMEM;
		} else if (add_problem(a, problem, "hsts_header", v,
				       "max-age=<seconds> is required; includeSubDomains and preload "
				       "may follow, separated by ';'") < 0) {
			return -ENOMEM;
		}
	}
	if ((v = annotation(ann, "rate-limit-connections")) != NULL && is_true(v)) {
		static const struct {
			const char *name;
			size_t off;
		} limits[] = {
			{ "rate-limit-connections.concurrent-tcp", offsetof(struct sy_edge_policy_in, conn_max) },
			{ "rate-limit-connections.rate-tcp", offsetof(struct sy_edge_policy_in, conn_rate_max) },
			{ "rate-limit-connections.rate-http", offsetof(struct sy_edge_policy_in, http_rate_max) },
		};
		size_t k;

		for (k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
			uint32_t n;

			if ((v = annotation(ann, limits[k].name)) == NULL)
				continue;
			if (limit_value(v, &n) == 0)
				memcpy((char *)&e + limits[k].off, &n, sizeof(n));
			else if (add_problem(a, problem, limits[k].name, v,
					     "not a whole number from 1 to 2147483647") < 0)
				return -ENOMEM;
		}
	}
	if ((v = annotation(ann, "pod-concurrent-connections")) != NULL &&
	    limit_value(v, &e.pod_max_conns) < 0 &&
	    add_problem(a, problem, "pod-concurrent-connections", v,
			"not a whole number from 1 to 2147483647") < 0)
		return -ENOMEM;
	if (e.allow == NULL && e.hsts == NULL && e.server_timeout_ms == 0 && e.tunnel_timeout_ms == 0 &&
	    e.conn_max == 0 && e.conn_rate_max == 0 && e.http_rate_max == 0 && e.pod_max_conns == 0)
		return 0;
	{
		struct sy_edge_policy_in *keep = sy_arena_alloc(a, sizeof(*keep));

		if (keep == NULL)
			return -ENOMEM;
		*keep = e;
		*out = keep;
	}
	return 0;
}

int
sy_route_rewrite_target(struct sy_arena *a, const json_t *ann, const char *route_path,
			enum sy_tls_mode tls, struct sy_filter_in *f, const char **problem)
{
	/* The OpenShift template's pattern for it: a path's characters
	 * (RFC 3986 pchar and '/'), which keeps quotes and spaces out of the
	 * HAProxy line it writes; here it keeps the request line well formed. */
	static const char allowed[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
				      "._~/%!$&'()*+,;=:@-";
	const char *v = json_is_object(ann) ? annotation(ann, "rewrite-target") : NULL;
	size_t n = route_path != NULL ? strlen(route_path) : 0;
	json_t *args;
	char *text;

	if (v == NULL || tls == SY_TLS_PASSTHROUGH)
		return 0;
	if (v[0] != '/' || strspn(v, allowed) != strlen(v))
		return add_problem(a, problem, "rewrite-target", v,
				   "a path: '/' first, then letters, digits and RFC 3986's path "
				   "characters") < 0 ? -ENOMEM : 0;
	while (n > 0 && route_path[n - 1] == '/')
		n--; /* "/foo/" takes off "/foo": the '/' stays with the rest */
	args = json_pack("[s#, s]", route_path ? route_path : "", (int)n, v);
	text = args ? json_dumps(args, JSON_COMPACT) : NULL;
	json_decref(args);
	if (text == NULL)
		return -ENOMEM;
	f->type = SY_FILTER_REPLACE_PATH_PREFIX;
	f->name = "rewrite-target";
	f->args = sy_arena_strdup(a, text);
	free(text);
	return f->args != NULL ? 1 : -ENOMEM;
}
