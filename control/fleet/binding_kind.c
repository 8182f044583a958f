/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * route.openshift.io/v1 RouteBinding: a Route scheduled onto a Router (the
 * sharding proposal's RouteBinding), in the route's namespace:
 *
 *   spec.routeNamespace   the route's namespace (must be the binding's own:
 *                         a binding in namespace A cannot bind a route of B)
 *   spec.routeName        the route's name
 *   spec.routerName       the Router it is bound to. Our addition to the
 *                         proposal's three fields: a DNS suffix need not
 *                         name one Router (two shards may share one), and a
 *                         routerd finds what it serves by its router_name.
 *   spec.dns              the Router's DNS (its spec.dns when bound)
 *
 * The scheduler (scheduler.c) creates them through apply, so they pass the
 * same checks as one an admin applies: the Route and the Router must exist
 * (in the store or in the same apply) and spec.dns must be the Router's.
 * Bindings are what set a Route's status.phase and status.dns (serving.c);
 * the proposal's "the RouteBinding REST API Create call applies the route
 * binding to the Route's status" is the compile that follows the apply.
 */
#include <stdio.h>
#include <string.h>

#include "fleet/fleet.h"
#include "kinds/kinds.h"
#include "kinds/kind_util.h"
#include "store/relations.h"
#include "store/store.h"

static int
validate_binding(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *spec = json_object_get(obj, "spec");
	const char *ns = json_string_value(json_object_get(json_object_get(obj, "metadata"),
							   "namespace"));
	const char *rns, *f;
	int bad = 0;
	size_t i;
	static const char *const names[] = { "routeName", "routerName", "dns" };

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec",
				  "required: routeNamespace, routeName, routerName, dns");
	rns = json_string_value(json_object_get(spec, "routeNamespace"));
	if (rns == NULL || rns[0] == '\0')
		bad = sy_err_add(errs, "invalid", who, "spec.routeNamespace",
				 "required: the namespace of the route being bound");
	else if (strcmp(rns, ns ? ns : "default") != 0)
		bad = sy_err_add(errs, "invalid", who, "spec.routeNamespace",
				 "\"%s\" is not the binding's own namespace \"%s\": a RouteBinding "
				 "lives in the namespace of its route", rns, ns ? ns : "default");
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const json_t *v = json_object_get(spec, names[i]);
		char field[32];

		f = names[i];
		snprintf(field, sizeof(field), "spec.%s", f);
		if (!json_is_string(v) || json_string_length(v) == 0)
			bad = sy_err_add(errs, "invalid", who, field, "required (a string)");
		else if (!sy_dns1123_subdomain(json_string_value(v)))
			bad = sy_err_add(errs, "invalid", who, field,
					 "\"%s\" must be a lowercase RFC 1123 subdomain",
					 json_string_value(v));
	}
	return bad;
}

/* The Route and the Router exist (in the store, or in the same apply), and
 * dns is the Router's (as the apply leaves it). */
static int
check_binding(const struct sy_store *st, const json_t *obj, const struct sy_object *existing,
	      const struct sy_apply_batch *batch, const char *who, struct sy_errors *errs)
{
	const json_t *new_router;
	const json_t *spec = json_object_get(obj, "spec");
	const char *ns = json_string_value(json_object_get(spec, "routeNamespace"));
	const char *route = json_string_value(json_object_get(spec, "routeName"));
	const char *router = json_string_value(json_object_get(spec, "routerName"));
	const char *dns = json_string_value(json_object_get(spec, "dns"));
	const char *rdns;
	int bad = 0;

	(void)existing;
	if (sy_store_find(st, &sy_kind_route, ns, route) == NULL &&
	    sy_apply_batch_find(batch, &sy_kind_route, ns, route) == NULL)
		bad = sy_err_add(errs, "invalid", who, "spec.routeName",
				 "no Route \"%s\" in namespace \"%s\"", route, ns);
	new_router = sy_apply_batch_find(batch, &sy_kind_router, "", router);
	if (new_router == NULL && sy_store_find(st, &sy_kind_router, "", router) == NULL)
		return sy_err_add(errs, "invalid", who, "spec.routerName", "no Router \"%s\"",
				  router);
	rdns = new_router != NULL ? json_string_value(json_object_get(json_object_get(new_router,
										       "spec"),
								      "dns"))
				  : sy_fleet_router_dns(st, router);
	if (rdns == NULL || strcmp(rdns, dns) != 0)
		bad = sy_err_add(errs, "invalid", who, "spec.dns",
				 "\"%s\" is not the DNS of Router %s (\"%s\")", dns, router,
				 rdns ? rdns : "");
	return bad;
}

/* Indexed under b<ns>/<route> so that a compile finds a route's bindings
 * without listing them all (serving.c). Bindings do not compile: a change
 * of one compiles everything (scope.c), as a Router's does. */
static void
binding_relations(const struct sy_object *o, const struct sy_compile_opts *opts,
		  struct sy_rel_keys *out)
{
	const char *route = json_string_value(
		json_object_get(json_object_get(o->obj, "spec"), "routeName"));

	(void)opts;
	if (route != NULL)
		sy_rel_add(out, SY_REL_BINDING, "%s/%s", o->ns, route);
}

const struct sy_kind sy_kind_routebinding = {
	.kind = "RouteBinding",
	.group = "route.openshift.io",
	.api_versions = (const char *const[]){ "route.openshift.io/v1", NULL },
	.names = (const char *const[]){ "routebinding", "routebindings",
					"routebindings.route.openshift.io", NULL },
	.validate = validate_binding,
	.relations = binding_relations,
	.check_stored = check_binding,
};
