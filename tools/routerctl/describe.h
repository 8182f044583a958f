/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `routerctl describe`: an OpenShift Route the way `oc describe route` shows it
 * (requested host, per router "exposed on router R (host H) 5m ago" or "rejected by
 * router R: Reason (5m ago)" and the message, path, TLS, endpoint port, then each
 * service with its weight and up to three endpoints); any other kind as its metadata
 * followed by its spec (and other top-level fields) and status as indented YAML.
 */
#ifndef RCTL_DESCRIBE_H
#define RCTL_DESCRIBE_H

#include <stdio.h>
#include <time.h>

#include <jansson.h>

/* obj: the object as `get` returns it; endpoints: {"service name": Endpoints object}
 * for the Route's services (may be NULL). Returns 0, or -1 when out cannot be
 * written or memory runs out. */
int rctl_describe(FILE *out, const json_t *obj, const json_t *endpoints, time_t now);

/* A fleet (docs/operations.md, "Fleet"): after a Route, its phase, final DNS name and the
 * Routers serving it with the name each serves it under (bindings: the
 * RouteBinding items of its namespace); nothing when the route has no
 * status.phase (no Router exists). After a Router, the routes bound to it
 * (bindings: every RouteBinding; routes: every Route) with their names on
 * the shard. Return 0 or -1 as rctl_describe. */
int rctl_describe_route_fleet(FILE *out, const json_t *route, const json_t *bindings);
int rctl_describe_router_routes(FILE *out, const json_t *router, const json_t *bindings,
				const json_t *routes);

#endif
