/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who serves what in a fleet (the rule is in fleet.h), and what a Route's
 * status says of it: the proposal's RouteStatus {Phase, DNS}.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "store/age.h"
#include "gen/compile.h"
#include "fleet/fleet.h"
#include "store/relations.h"
#include "store/store.h"

bool
sy_fleet_active(const struct sy_store *st)
{
	return sy_store_count(st, &sy_kind_router) > 0;
}

const char *
sy_fleet_router_dns(const struct sy_store *st, const char *name)
{
	const struct sy_object *o = sy_store_find(st, &sy_kind_router, "", name);

	return o ? json_string_value(json_object_get(json_object_get(o->obj, "spec"), "dns")) : NULL;
}

static int
cmp_age(const void *a, const void *b)
{
	return sy_object_age_cmp(*(struct sy_object *const *)a, *(struct sy_object *const *)b);
}

static bool
binds(const struct sy_object *b, const char *ns, const char *name)
{
	const json_t *spec = json_object_get(b->obj, "spec");
	const char *rns = json_string_value(json_object_get(spec, "routeNamespace"));
	const char *rn = json_string_value(json_object_get(spec, "routeName"));

	return rns && rn && strcmp(rns, ns) == 0 && strcmp(rn, name) == 0;
}

struct sy_object **
sy_fleet_bindings_of(const struct sy_store *st, const struct sy_relations *rel, const char *ns,
		     const char *name, size_t *n)
{
	struct sy_object **out = NULL, **all = NULL;
	size_t k = 0, i, cand;

	*n = 0;
	if (rel != NULL) {
		char key[600];
		const struct sy_rel_key *rk;

		snprintf(key, sizeof(key), "%c%s/%s", SY_REL_BINDING, ns, name);
		rk = sy_relations_get(rel, key);
		if (rk == NULL || rk->n == 0)
			return NULL;
		cand = rk->n;
		all = malloc(cand * sizeof(*all));
		if (all == NULL)
			goto nomem;
		memcpy(all, sy_rel_objs((struct sy_rel_key *)rk), cand * sizeof(*all));
	} else {
		/* No index (unit tests that compile a bare store): the namespace's. */
		all = sy_store_list(st, &sy_kind_routebinding, ns, &cand);
		if (all == NULL)
			goto nomem;
	}
	out = all;
	for (i = 0; i < cand; i++)
		if (sy_store_warm(st, all[i]) == 0 && binds(all[i], ns, name))
			out[k++] = all[i];
	if (k == 0) {
		free(out);
		return NULL;
	}
	qsort(out, k, sizeof(*out), cmp_age);
	*n = k;
	return out;
nomem:
	*n = (size_t)-1;
	return NULL;
}

bool
sy_fleet_bound_to(const struct sy_store *st, const struct sy_relations *rel, const char *ns,
		  const char *name, const char *router)
{
	size_t n, i;
	struct sy_object **b = sy_fleet_bindings_of(st, rel, ns, name, &n);
	bool yes = false;

	for (i = 0; b != NULL && i < n && !yes; i++) {
		const char *rn = json_string_value(
			json_object_get(json_object_get(b[i]->obj, "spec"), "routerName"));

		yes = rn != NULL && strcmp(rn, router) == 0;
	}
	free(b);
	return yes;
}

int
sy_fleet_route_status(const struct sy_store *st, const struct sy_relations *rel,
		      const struct sy_object *route, json_t *status)
{
	size_t n;
	struct sy_object **b = sy_fleet_bindings_of(st, rel, route->ns, route->name, &n);
	const char *host = json_string_value(
		json_object_get(json_object_get(route->obj, "spec"), "host"));
	char *dns = NULL;

	if (b == NULL && n == (size_t)-1)
		return -ENOMEM;
	json_object_set_new(status, "phase", json_string(b ? "scheduled" : "new"));
	if (b != NULL) {
		/* A custom host stays the user's (the proposal: "populated from
		 * Route.Host and unchanged during allocation"); else the generated
		 * form under the oldest binding's shard. A route bound to several
		 * shards has that one name here; `routerctl describe route` lists
		 * them all. */
		if (host != NULL && host[0] != '\0')
			dns = sy_route_effective_host(route, "");
		else
			dns = sy_route_effective_host(route, json_string_value(json_object_get(
								      json_object_get(b[0]->obj, "spec"),
								      "dns")));
		free(b);
		if (dns == NULL)
			return -ENOMEM;
		json_object_set_new(status, "dns", json_string(dns));
		free(dns);
	}
	return 0;
}

int
sy_fleet_check_route_status(const json_t *obj, const struct sy_object *existing, const char *who,
			    struct sy_errors *errs)
{
	static const char *const fields[] = { "phase", "dns" };
	const json_t *status = json_object_get(obj, "status");
	int bad = 0;
	size_t i;

	if (!json_is_object(status))
		return 0;
	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		const json_t *v = json_object_get(status, fields[i]);
		const json_t *cur = existing ? json_object_get(existing->status, fields[i]) : NULL;
		char f[32], *given;

		if (v == NULL || json_is_null(v))
			continue;
		snprintf(f, sizeof(f), "status.%s", fields[i]);
		given = json_dumps(v, JSON_ENCODE_ANY);
		if (existing == NULL) {
			bad = sy_err_add(errs, "invalid", who, f,
					 "may not be set when a route is created (given %s): only a "
					 "RouteBinding sets it, when the route scheduler binds the route "
					 "to a Router; remove %s", given ? given : "a value", f);
		} else if (cur == NULL || !json_equal(v, cur)) {
			char *now = cur ? json_dumps(cur, JSON_ENCODE_ANY) : NULL;

			bad = sy_err_add(errs, "invalid", who, f,
					 "may not be changed (from %s to %s): only a RouteBinding sets "
					 "it; remove %s or give the current value",
					 now ? now : "unset", given ? given : "a value", f);
			free(now);
		}
		free(given);
	}
	return bad;
}
