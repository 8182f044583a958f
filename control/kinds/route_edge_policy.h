/* SPDX-License-Identifier: BSD-3-Clause */
/* An OpenShift Route's edge-policy annotations (route_edge_policy.c). */
#ifndef SY_ROUTE_EDGE_POLICY_H
#define SY_ROUTE_EDGE_POLICY_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "gen/compile.h"

struct sy_arena;

/*
 * The route's haproxy.router.openshift.io/ annotations ip_allowlist (or
 * ip_whitelist), timeout, timeout-tunnel and hsts_header, from its
 * metadata.annotations (NULL: none), for a route of TLS mode tls: *out the
 * policies in arena a (NULL when it sets none that is valid); *problem a
 * message naming each invalid annotation and its value (in a; NULL when
 * none is), for the route's status. An invalid value is not applied.
 * 0, or -ENOMEM.
 */
int sy_route_edge_policy(struct sy_arena *a, const json_t *annotations, enum sy_tls_mode tls,
			 const struct sy_edge_policy_in **out, const char **problem);

/* The rewrite-target annotation of a route whose path is route_path ("" or
 * NULL: none) as a filter in *f (SY_FILTER_REPLACE_PATH_PREFIX, strings in
 * a): 1 when made, 0 when the route has none or it is not applicable
 * (passthrough) or invalid (then *problem, as above, gets it), -ENOMEM. */
int sy_route_rewrite_target(struct sy_arena *a, const json_t *annotations, const char *route_path,
			    enum sy_tls_mode tls, struct sy_filter_in *f, const char **problem);

/* HAProxy's time format, which the annotations use: digits, then us, ms,
 * s, m, h or d (none: ms). *ms rounded up to a whole millisecond; -1 when
 * it is not one, is 0 or passes HAProxy's bound (2^31 - 1 ms). */
int sy_haproxy_time_ms(const char *s, uint32_t *ms);
/* An HSTS value as OpenShift takes it: max-age=N once, and optionally
 * includeSubDomains and preload, separated by ';' (any case, spaces
 * around). */
int sy_hsts_check(const char *s);

#endif
