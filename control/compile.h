/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compile: every stored object -> one immutable generation, plus each object's
 * status. Admission (which route owns a host) happens here, so the data plane
 * only ever sees the final, conflict-free table (DESIGN.md section 3).
 */
#ifndef SY_COMPILE_H
#define SY_COMPILE_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"
#include "sy_generation.h"

struct sy_compile_opts {
	const char *routing_subdomain; /* generated hosts: <name>-<namespace>.<this> */
	const char *router_name;       /* status.ingress[].routerName */
	bool allow_wildcard_routes;
	uint16_t no_route_status;
	const char *now;               /* RFC 3339 time for new condition transitions */
};

/* Build generation `id` from the store and set every Route's status. NULL on
 * out of memory (the store's statuses are then unchanged). */
struct sy_generation *sy_compile(struct sy_store *st, const struct sy_compile_opts *opts,
				 uint64_t id);
void sy_generation_free(struct sy_generation *g);

/* The host a Route is served on: spec.host lower-cased, or the generated
 * "<name with . -> ->-<namespace>.<suffix>" when empty. malloc'd. */
char *sy_route_effective_host(const struct sy_object *route, const char *suffix);

#endif
