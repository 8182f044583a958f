/* SPDX-License-Identifier: BSD-3-Clause */
/* The RouteScheduler: one pass, as scheduler.h describes it. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "store/age.h"
#include "fleet/fleet.h"
#include "fleet/scheduler.h"
#include "kinds/label_selector.h"
#include "store/relations.h"
#include "router.h"

const struct sy_sched_strategy *
sy_sched_strategy_by_name(const char *name)
{
	static const struct sy_sched_strategy *const all[] = { &sy_sched_round_robin,
							       &sy_sched_least_loaded };
	size_t i;

	for (i = 0; name != NULL && i < sizeof(all) / sizeof(all[0]); i++)
		if (strcmp(all[i]->name, name) == 0)
			return all[i];
	return NULL;
}

static const char *
spec_str(const struct sy_object *o, const char *field)
{
	return json_string_value(json_object_get(json_object_get(o->obj, "spec"), field));
}

static const char *
str_or(const json_t *v, const char *dflt)
{
	return json_is_string(v) ? json_string_value(v) : dflt;
}

/* Log a refused apply or delete with the router's own words. */
static void
log_refusal(const char *what, const json_t *reply)
{
	const json_t *e = json_object_get(reply, "error");

	RTE_LOG(WARNING, USER1, "route scheduler: %s refused: %s %s: %s (retried next pass)\n",
		what, str_or(json_object_get(e, "object"), ""),
		str_or(json_object_get(e, "field"), ""),
		str_or(json_object_get(e, "message"), "?"));
}

/* The sink took the write (scheduler.h): done, or on its way. */
static bool
taken(const struct sy_router *r, const json_t *reply)
{
	if (json_is_true(json_object_get(reply, "ok")))
		return true;
	return r->sched.sink->taken != NULL && r->sched.sink->taken(reply);
}

static bool
apply_objects(struct sy_router *r, json_t *objs)
{
	json_t *req = json_pack("{s:s, s:O}", "op", "apply", "objects", objs);
	json_t *reply = req ? r->sched.sink->apply(r, req) : NULL;
	/* With an etcd store the apply is written through and answered
	 * later: taken is enough here. */
	bool ok = taken(r, reply);

	if (reply != NULL && !ok)
		log_refusal("apply of bindings", reply);
	json_decref(req);
	json_decref(reply);
	return ok;
}

/* The bindings of one apply: all at once; when that is refused, one by one
 * so that a binding the router refuses does not hold the others back. */
static size_t
apply_batch(struct sy_router *r, json_t *objs)
{
	size_t i, ok = 0;
	json_t *o;

	if (apply_objects(r, objs))
		return json_array_size(objs);
	if (json_array_size(objs) == 1)
		return 0;
	json_array_foreach(objs, i, o) {
		json_t *one = json_pack("[O]", o);

		ok += one && apply_objects(r, one);
		json_decref(one);
	}
	return ok;
}

/* With the journal, every binding in one apply (one generation). With etcd,
 * applies of the sink's max_per_apply (128 ops a txn; a larger one is
 * refused): 100,000 routes are 782 txns, and a refused batch falls back
 * one by one for its own bindings only. */
static size_t
apply_bindings(struct sy_router *r, json_t *objs)
{
	size_t n = json_array_size(objs), per = r->sched.sink->max_per_apply, at, i, ok = 0;

	if (per == 0)
		per = n;
	if (n == 0)
		return 0;
	if (per >= n)
		return apply_batch(r, objs);
	for (at = 0; at < n; at += per) {
		json_t *batch = json_array();

		for (i = at; i < n && i < at + per; i++)
			json_array_append(batch, json_array_get(objs, i));
		ok += apply_batch(r, batch);
		json_decref(batch);
	}
	return ok;
}

/*
 * Step 1: bindings whose Route or Router is gone are deleted; one whose dns
 * is no longer its Router's is applied again with the Router's.
 */
static int
tidy(struct sy_router *r, bool all)
{
	size_t n, i;
	struct sy_object **b = all ? sy_store_list(&r->store, &sy_kind_routebinding, NULL, &n)
				   : sy_store_list_cool(&r->store, &sy_kind_routebinding, &n);
	json_t *gone = json_array(), *stale = json_array(), *v;
	int changed = 0;

	if (b == NULL || gone == NULL || stale == NULL) {
		free(b);
		json_decref(gone);
		json_decref(stale);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++) {
		const char *router, *dns;

		/* Only a Router's change can make a binding that was right
		 * wrong; a binding that just arrived (warm: written by hand, say)
		 * is checked whole; a Route's deletion is seen from the
		 * binding's index key, b<ns>/<route> (its namespace is the
		 * route's: validated), without unpacking 100,000 bindings. */
		if (!all && !b[i]->warm && b[i]->n_rel == 1 && b[i]->rel[0]->key[0] == SY_REL_BINDING &&
		    sy_store_has(&r->store, &sy_kind_route, b[i]->ns,
				 b[i]->rel[0]->key + 1 + strlen(b[i]->ns) + 1))
			continue;
		if (sy_store_warm(&r->store, b[i]) < 0)
			continue;
		router = spec_str(b[i], "routerName");
		dns = spec_str(b[i], "dns");
		const char *rdns = router ? sy_fleet_router_dns(&r->store, router) : NULL;
		const char *rns = spec_str(b[i], "routeNamespace");
		const char *rn = spec_str(b[i], "routeName");

		if (rdns == NULL || rns == NULL || rn == NULL ||
		    sy_store_find(&r->store, &sy_kind_route, rns, rn) == NULL) {
			json_array_append_new(gone, json_pack("{s:s, s:s, s:s, s:s}", "op", "delete",
							      "kind", "RouteBinding", "namespace",
							      b[i]->ns, "name", b[i]->name));
		} else if (dns == NULL || strcmp(dns, rdns) != 0) {
			json_t *c = json_deep_copy(b[i]->obj);

			json_object_set_new(json_object_get(c, "spec"), "dns", json_string(rdns));
			json_array_append_new(stale, c);
		}
	}
	free(b);
	/* The store changes from here on: b's objects may be freed. */
	json_array_foreach(gone, i, v) {
		json_t *reply = r->sched.sink->del(r, v);

		if (taken(r, reply))
			changed++;
		else
			log_refusal("delete of a binding", reply);
		json_decref(reply);
	}
	r->sched.last_removed = (size_t)changed;
	changed += (int)apply_bindings(r, stale);
	json_decref(gone);
	json_decref(stale);
	return changed;
}

/* A Router as the pass sees it. */
struct shard {
	const char *name, *dns;
	bool selective; /* has a routeSelector or a namespaceSelector */
	struct sy_label_selector *routes, *namespaces;
	size_t load;
};

static int
cmp_age(const void *a, const void *b)
{
	return sy_object_age_cmp(*(struct sy_object *const *)a, *(struct sy_object *const *)b);
}

static json_t *
binding_object(const struct sy_object *route, const struct shard *s)
{
	char name[520];

	snprintf(name, sizeof(name), "%s.%s", route->name, s->name);
	return json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s, s:s, s:s}}", "apiVersion",
			 "route.openshift.io/v1", "kind", "RouteBinding", "metadata", "name", name,
			 "namespace", route->ns, "spec", "routeNamespace", route->ns, "routeName",
			 route->name, "routerName", s->name, "dns", s->dns);
}

/* Queue a binding of route to s unless one exists; false when it cannot
 * be named (its name is taken by another binding, or too long). */
static bool
bind_route(struct sy_router *r, const struct sy_object *route, struct shard *s, json_t *out)
{
	char name[520];
	const struct sy_object *same;

	if (snprintf(name, sizeof(name), "%s.%s", route->name, s->name) > 253) {
		RTE_LOG(WARNING, USER1, "route scheduler: %s/%s to %s: the binding's name would be "
			"longer than 253 characters\n", route->ns, route->name, s->name);
		return false;
	}
	same = sy_store_find(&r->store, &sy_kind_routebinding, route->ns, name);
	if (same != NULL) {
		RTE_LOG(WARNING, USER1, "route scheduler: %s/%s to %s: RouteBinding %s/%s exists and "
			"binds another route\n", route->ns, route->name, s->name, route->ns, name);
		return false;
	}
	json_array_append_new(out, binding_object(route, s));
	s->load++;
	return true;
}

/* Any binding of the route, from the relations index (no unpacking). */
static bool
bound_at_all(const struct sy_router *r, const struct sy_object *route)
{
	char key[600];
	const struct sy_rel_key *rk;

	snprintf(key, sizeof(key), "%c%s/%s", SY_REL_BINDING, route->ns, route->name);
	rk = sy_relations_get(&r->rel, key);
	return rk != NULL && rk->n > 0;
}

/*
 * Steps 2 and 3. A pass runs after every change, so it must not cost the
 * whole store each time: routes are listed cool (their age and identity
 * are enough to order them), whether one is bound comes from the relations
 * index, and a route is unpacked only when a Router's selectors must look
 * at its labels or the strategy gets it. Bindings are unpacked only for a
 * strategy that weighs loads.
 */
static int
schedule(struct sy_router *r, bool full)
{
	const struct sy_sched_strategy *strategy = r->sched.strategy;
	size_t nr, nroutes, nb = 0, i, j, unscheduled = 0;
	struct sy_object **routers = sy_store_list(&r->store, &sy_kind_router, NULL, &nr);
	struct sy_object **routes = sy_store_list_cool(&r->store, &sy_kind_route, &nroutes);
	struct sy_object **bindings = strategy->uses_load ? sy_store_list(&r->store,
									 &sy_kind_routebinding, NULL,
									 &nb)
							   : calloc(1, sizeof(*bindings));
	struct shard *shards = calloc(nr ? nr : 1, sizeof(*shards));
	struct sy_sched_candidate *cands = calloc(nr ? nr : 1, sizeof(*cands));
	size_t *cand_shard = calloc(nr ? nr : 1, sizeof(*cand_shard));
	json_t *out = json_array();
	bool any_selective = false;
	int rc = 0;

	if (routers == NULL || routes == NULL || bindings == NULL || shards == NULL ||
	    cands == NULL || cand_shard == NULL || out == NULL) {
		rc = -ENOMEM;
		goto done;
	}
	for (i = 0; i < nr; i++) {
		const json_t *spec = json_object_get(routers[i]->obj, "spec");
		char why[256];

		shards[i].name = routers[i]->name;
		shards[i].dns = spec_str(routers[i], "dns");
		shards[i].selective = json_object_get(spec, "routeSelector") != NULL ||
				      json_object_get(spec, "namespaceSelector") != NULL;
		any_selective |= shards[i].selective;
		/* Validated at apply; a failure here leaves that selector open. */
		sy_fleet_selector_parse(json_object_get(spec, "routeSelector"), &shards[i].routes,
					why, sizeof(why));
		sy_fleet_selector_parse(json_object_get(spec, "namespaceSelector"),
					&shards[i].namespaces, why, sizeof(why));
	}
	/* Loads: the routes bound to each Router now. */
	for (i = 0; i < nb; i++) {
		const char *router = spec_str(bindings[i], "routerName");

		for (j = 0; router != NULL && j < nr; j++)
			if (strcmp(shards[j].name, router) == 0)
				shards[j].load++;
	}
	/* Oldest first: the order the routes were accepted in (age.h). */
	qsort(routes, nroutes, sizeof(*routes), cmp_age);
	for (i = 0; i < nroutes; i++) {
		struct sy_object *route = routes[i];
		const json_t *labels;
		bool any = bound_at_all(r, route);
		size_t nc = 0;
		int pick;

		/* A bound route is looked at again by the selective Routers
		 * only when it changed (its labels, its namespace's) or a Router
		 * did: otherwise they saw it as it is at an earlier pass. */
		if (any_selective && (!any || full || route->warm)) {
			const struct sy_object *nso;
			const json_t *nslabels;

			if (sy_store_warm(&r->store, route) < 0) {
				unscheduled++;
				continue;
			}
			labels = json_object_get(json_object_get(route->obj, "metadata"), "labels");
			nso = sy_store_find(&r->store, &sy_kind_namespace, "", route->ns);
			nslabels = nso ? json_object_get(json_object_get(nso->obj, "metadata"), "labels")
				       : NULL;
			for (j = 0; j < nr; j++) {
				if (!shards[j].selective ||
				    !sy_label_selector_matches(shards[j].routes, labels) ||
				    !sy_label_selector_matches(shards[j].namespaces, nslabels))
					continue;
				if (sy_fleet_bound_to(&r->store, &r->rel, route->ns, route->name,
						      shards[j].name)) {
					any = true;
					continue;
				}
				/* Explicit: the shard asked for it; no strategy. */
				if (bind_route(r, route, &shards[j], out))
					any = true;
			}
		}
		if (any)
			continue;
		if (sy_store_warm(&r->store, route) < 0) {
			unscheduled++;
			continue;
		}
		labels = json_object_get(json_object_get(route->obj, "metadata"), "labels");
		for (j = 0; j < nr; j++) {
			if (shards[j].selective)
				continue;
			cands[nc] = (struct sy_sched_candidate){ .name = shards[j].name,
								 .dns = shards[j].dns,
								 .load = shards[j].load };
			cand_shard[nc++] = j;
		}
		pick = strategy->pick(r->sched.state,
				      &(struct sy_sched_route){ .ns = route->ns, .name = route->name,
								.labels = labels },
				      cands, nc);
		if (pick < 0 || (size_t)pick >= nc || !bind_route(r, route, &shards[cand_shard[pick]], out))
			unscheduled++;
	}
	r->sched.last_unscheduled = unscheduled;
	/* routes, routers and bindings are not used past here: the apply
	 * replaces objects. */
	r->sched.last_bound = apply_bindings(r, out);
	rc = (int)r->sched.last_bound;
	if (r->sched.last_bound < json_array_size(out))
		r->sched.last_unscheduled += json_array_size(out) - r->sched.last_bound;
done:
	for (i = 0; shards != NULL && i < nr; i++) {
		sy_label_selector_free(shards[i].routes);
		sy_label_selector_free(shards[i].namespaces);
	}
	free(shards);
	free(cands);
	free(cand_shard);
	free(routers);
	free(routes);
	free(bindings);
	json_decref(out);
	return rc;
}

int
sy_scheduler_run(struct sy_router *r)
{
	int tidied, bound;
	bool full;

	if (r->sched.strategy == NULL || r->sched.sink == NULL)
		return 0;
	if (r->sched.sink->settled != NULL && !r->sched.sink->settled(r)) {
		/* Run by the sink's owner once they have (etcd: sync's drain). */
		r->sched.due = true;
		return 0;
	}
	r->sched.due = false;
	full = r->sched.tidy_all;
	r->sched.tidy_all = false;
	tidied = tidy(r, full);
	bound = tidied < 0 ? tidied : schedule(r, full);
	sy_store_cool(&r->store);
	if (tidied < 0 || bound < 0) {
		r->sched.tidy_all |= full;
		RTE_LOG(ERR, USER1, "route scheduler: out of memory (retried next pass)\n");
		return -ENOMEM;
	}
	if (bound > 0 || tidied > 0)
		RTE_LOG(INFO, USER1, "route scheduler (%s): %d bound, %d bindings tidied, %zu "
			"routes unscheduled\n", r->sched.strategy->name, bound, tidied,
			r->sched.last_unscheduled);
	return bound + tidied;
}
