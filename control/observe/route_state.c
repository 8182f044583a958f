/* SPDX-License-Identifier: BSD-3-Clause */
/* How a route object stands (route_state.h). */
#include <string.h>

#include <jansson.h>

#include "kinds/kinds.h"
#include "observe/route_state.h"
#include "store/store.h"

const struct sy_kind *const sy_route_kinds[] = { &sy_kind_route, &sy_kind_ingressroute_contour,
						 &sy_kind_route_contour, &sy_kind_routegroup, NULL };

const char *
sy_route_state(const struct sy_object *o)
{
	const json_t *st = o->status;
	const char *cur;

	if (o->kind == &sy_kind_route) {
		const json_t *cond = json_array_get(json_object_get(json_array_get(
			json_object_get(st, "ingress"), 0), "conditions"), 0);
		const char *s = json_string_value(json_object_get(cond, "status"));

		return s == NULL ? "not_in_shard" : strcmp(s, "True") == 0 ? "admitted" : "rejected";
	}
	if (o->kind == &sy_kind_routegroup)
		return json_is_true(json_object_get(st, "valid")) ? "valid" : "invalid";
	cur = json_string_value(json_object_get(st, "currentStatus"));
	return cur ? cur : "unknown";
}
