/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contour's proposed Route CRD (contour.heptio.com/v1alpha1, design/routecrd.md,
 * February 2018). It was never implemented by Contour (IngressRoute replaced it
 * in 0.5/0.6), so the draft is all there is; where it is silent we say what we
 * chose, next to the choice.
 *
 * Shares kind "Route" with OpenShift's: sy_kind_for_object tells them apart by
 * apiVersion, the store by kind pointer; the bare name "route" stays
 * OpenShift's (get/delete use route.contour.heptio.com).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/compile.h"
#include "kinds.h"
#include "contour_common.h"
#include "kind_util.h"
#include "store/relations.h"
#include "store/store.h"

/* The draft's strategies (no Cookie: that came with IngressRoute). */
static const struct sy_contour_lb_dialect rc_lb = {
	.strategies = (const char *const[]){ "RoundRobin", "WeightedLeastRequest", "Random", NULL },
	.strategies_msg = "must be one of RoundRobin, WeightedLeastRequest, Random",
	.empty_strategy_ok = false,
	.hc_key = "lbHealthCheck",
	.hc_min_int = 1,
};

static int
check_upstream(const json_t *u, const char *who, const char *base, struct sy_errors *errs)
{
	const json_t *w = json_object_get(u, "weight");
	char f[192];
	int bad = 0;

	if (!json_is_object(u))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.serviceName", base);
	if (sy_kind_check_string(json_object_get(u, "serviceName"), who, f, errs) < 0)
		bad = -1;
	snprintf(f, sizeof(f), "%s.servicePort", base);
	if (sy_kind_check_port(json_object_get(u, "servicePort"), true, who, f, errs) < 0)
		bad = -1;
	snprintf(f, sizeof(f), "%s.weight", base);
	/* "Percentage of traffic" */
	if (w != NULL && !json_is_null(w) &&
	    (!json_is_integer(w) || json_integer_value(w) < 0 || json_integer_value(w) > 100))
		bad = sy_err_add(errs, "invalid", who, f,
				 "must be an integer between 0 and 100 (a percentage)");
	if (sy_contour_check_lb(u, base, &rc_lb, who, errs) < 0)
		bad = -1;
	return bad;
}

static int
check_route(const json_t *rt, size_t i, const char *who, struct sy_errors *errs)
{
	const json_t *pp = json_object_get(rt, "pathPrefix");
	const json_t *ups = json_object_get(rt, "upstreams");
	const json_t *u;
	char f[128], base[64];
	size_t j;
	int bad = 0;

	snprintf(base, sizeof(base), "spec.routes[%zu]", i);
	if (!json_is_object(rt))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.pathPrefix", base);
	if (pp != NULL && (!json_is_string(pp) || json_string_value(pp)[0] != '/'))
		bad = sy_err_add(errs, "invalid", who, f, "must be a string starting with \"/\"");
	if (sy_contour_check_lb(rt, base, &rc_lb, who, errs) < 0)
		bad = -1;
	snprintf(f, sizeof(f), "%s.upstreams", base);
	if (ups == NULL)
		return sy_err_add(errs, "invalid", who, f, "required");
	if (!json_is_array(ups) || json_array_size(ups) == 0)
		return sy_err_add(errs, "invalid", who, f, "must be a non-empty list");
	if (json_array_size(ups) > SY_RULE_BACKENDS_MAX)
		return sy_err_add(errs, "invalid", who, f, "at most %d upstreams per route",
				  SY_RULE_BACKENDS_MAX);
	json_array_foreach(ups, j, u) {
		snprintf(f, sizeof(f), "%s.upstreams[%zu]", base, j);
		if (check_upstream(u, who, f, errs) < 0)
			bad = -1;
	}
	return bad;
}

static int
validate_route_contour(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *host, *routes, *rt;
	size_t i;
	int bad = 0;

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "required");
	host = json_object_get(spec, "host");
	routes = json_object_get(spec, "routes");
	if (sy_kind_check_string(host, who, "spec.host", errs) < 0) {
		bad = -1;
	} else {
		char lc[254];
		size_t k;

		snprintf(lc, sizeof(lc), "%s", json_string_value(host));
		for (k = 0; lc[k]; k++)
			lc[k] = (char)tolower((unsigned char)lc[k]);
		if (json_string_length(host) > 253 || !sy_dns1123_subdomain(lc))
			bad = sy_err_add(errs, "invalid", who, "spec.host",
					 "must be a DNS name (RFC 1123 subdomain)");
	}
	if (sy_contour_check_lb(spec, "spec", &rc_lb, who, errs) < 0)
		bad = -1;
	if (routes == NULL)
		return sy_err_add(errs, "invalid", who, "spec.routes", "required");
	if (!json_is_array(routes))
		return sy_err_add(errs, "invalid", who, "spec.routes", "must be a list");
	json_array_foreach(routes, i, rt)
		if (check_route(rt, i, who, errs) < 0)
			bad = -1;
	return bad;
}

/* ------------------------------------------------------------- compile -- */

/* Override order upstream > route > spec ("health checks defined here
 * override any defined above"); a pool has one, so the first upstream that
 * sets one speaks for the route. */
static const json_t *
pick(const json_t *spec, const json_t *route, const char *key)
{
	const json_t *u, *v;
	size_t i;

	json_array_foreach(json_object_get(route, "upstreams"), i, u) {
		v = json_object_get(u, key);
		if (v != NULL && !json_is_null(v))
			return v;
	}
	v = json_object_get(route, key);
	if (v != NULL && !json_is_null(v))
		return v;
	v = json_object_get(spec, key);
	return json_is_null(v) ? NULL : v;
}

static const char *
path_of(const json_t *route)
{
	const char *p = json_string_value(json_object_get(route, "pathPrefix"));

	return p && p[0] ? p : "/";
}

/*
 * Weights are percentages. The draft says no more; we take: none set -> equal
 * shares; some set -> the unset ones split what is left of 100 evenly; set
 * ones adding up to more than 100 is an error. Units of 1/100 percent keep
 * the split exact enough.
 */
static int
route_weights(const json_t *route, struct sy_rule_in *r, char *err, size_t errlen)
{
	const json_t *u;
	size_t i, unset = 0;
	json_int_t sum = 0;
	uint64_t total = 0;

	json_array_foreach(json_object_get(route, "upstreams"), i, u) {
		if (json_is_integer(json_object_get(u, "weight")))
			sum += json_integer_value(json_object_get(u, "weight"));
		else
			unset++;
	}
	if (sum > 100) {
		snprintf(err, errlen, "route \"%s\": upstream weights add up to %lld, more than 100",
			 path_of(route), (long long)sum);
		return -1;
	}
	json_array_foreach(json_object_get(route, "upstreams"), i, u) {
		const json_t *w = json_object_get(u, "weight");

		r->backends[i].weight = json_is_integer(w) ? (uint32_t)json_integer_value(w) * 100
							   : (uint32_t)((100 - sum) * 100 / (json_int_t)unset);
		total += r->backends[i].weight;
	}
	/* nothing left for anyone: equal shares rather than an outage, as
	 * Contour's weightedClusters does with a zero total */
	if (total == 0)
		for (i = 0; i < r->n_backends; i++)
			r->backends[i].weight = 1;
	return 0;
}

struct rc_route {
	struct sy_object *o;
	char *host;
	json_t *errors;
	bool holds; /* oldest claim on its host (within this kind) */
};

static int
cmp_age(const void *a, const void *b)
{
	const struct rc_route *x = a, *y = b;

	return sy_object_age_cmp(x->o, y->o);
}

static void
set_status(struct sy_object *o, const char *now, json_t *errors)
{
	json_decref(o->status);
	o->status = json_pack("{s:s, s:s, s:O}", "currentStatus",
			      json_array_size(errors) ? "Invalid" : "Valid", "lastProcessTime",
			      now ? now : "", "errors", errors);
}

/* Check one Route against the store; errors go to rr->errors. */
static void
check_routes(struct sy_compile_ctx *cx, struct rc_route *rr)
{
	const json_t *routes = json_object_get(json_object_get(rr->o->obj, "spec"), "routes");
	const json_t *rt, *u;
	json_t *seen = json_object();
	size_t i, j;

	json_array_foreach(routes, i, rt) {
		const char *path = path_of(rt);
		struct sy_rule_in r;
		char err[512];

		if (json_object_get(seen, path) != NULL)
			json_array_append_new(rr->errors,
					      json_sprintf("route \"%s\": pathPrefix listed twice", path));
		json_object_set_new(seen, path, json_true());
		/* "upstream services must be in the Route's namespace" */
		json_array_foreach(json_object_get(rt, "upstreams"), j, u) {
			const char *svc = json_string_value(json_object_get(u, "serviceName"));
			json_int_t port = json_integer_value(json_object_get(u, "servicePort"));

			if (!sy_service_has_port(cx->st, rr->o->ns, svc, port))
				json_array_append_new(rr->errors,
						      json_sprintf("route \"%s\": upstream \"%s:%lld\": "
								   "Service not found in namespace "
								   "\"%s\" or has no port %lld",
								   path, svc, (long long)port, rr->o->ns,
								   (long long)port));
		}
		memset(&r, 0, sizeof(r));
		r.n_backends = (unsigned)json_array_size(json_object_get(rt, "upstreams"));
		if (route_weights(rt, &r, err, sizeof(err)) < 0)
			json_array_append_new(rr->errors, json_string(err));
	}
	json_decref(seen);
}

static int
emit_rules(struct sy_compile_ctx *cx, struct rc_route *rr)
{
	const json_t *spec = json_object_get(rr->o->obj, "spec");
	const json_t *rt, *u, *hc;
	size_t i, j;

	json_array_foreach(json_object_get(spec, "routes"), i, rt) {
		struct sy_rule_in r;
		char err[512];

		memset(&r, 0, sizeof(r));
		r.o = rr->o;
		r.path = path_of(rt);
		r.match = SY_PATH_PREFIX;
		r.weights = SY_WEIGHTS_PER_SERVICE;
		json_array_foreach(json_object_get(rt, "upstreams"), j, u) {
			r.backends[r.n_backends].target_port = json_object_get(u, "servicePort");
			r.backends[r.n_backends++].service =
				json_string_value(json_object_get(u, "serviceName"));
		}
		(void)route_weights(rt, &r, err, sizeof(err));
		/* each upstream its own port; the rule's is the first's */
		r.target_port = json_object_get(json_array_get(json_object_get(rt, "upstreams"), 0),
						"servicePort");
		r.strategy = sy_contour_strategy(json_string_value(pick(spec, rt, "strategy")));
		if (r.strategy == SY_LB_COOKIE)
			r.sticky_cookie = SY_CONTOUR_AFFINITY_COOKIE;
		hc = pick(spec, rt, "lbHealthCheck");
		if (json_is_object(hc))
			sy_contour_health(hc, 5, &r.hc);
		r.host = strdup(rr->host);
		if (r.host == NULL || sy_compile_add_rule(cx, &r) < 0)
			return -ENOMEM;
	}
	return 0;
}

static int
compile_routes_contour(struct sy_compile_ctx *cx)
{
	size_t n = 0, i;
	struct sy_object **objs = sy_compile_list(cx, &sy_kind_route_contour, &n);
	struct rc_route *rs = calloc(n ? n : 1, sizeof(*rs));
	json_t *claims = json_object(); /* host -> index of the holder */
	int rc = 0;

	if (objs == NULL || rs == NULL || claims == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		rs[i].o = objs[i];
		rs[i].host = sy_lower_dup(json_string_value(
			json_object_get(json_object_get(objs[i]->obj, "spec"), "host")));
		rs[i].errors = json_array();
		if (rs[i].host == NULL || rs[i].errors == NULL) {
			rc = -ENOMEM;
			goto out;
		}
	}
	/* The draft has no conflict rule. One Route describes one vhost, so the
	 * oldest claim keeps a host (sy_object_age_cmp), as claims across
	 * kinds are settled. */
	qsort(rs, n, sizeof(*rs), cmp_age);
	for (i = 0; i < n; i++) {
		const json_t *holder = json_object_get(claims, rs[i].host);

		if (holder != NULL) {
			const struct rc_route *h = &rs[json_integer_value(holder)];

			json_array_append_new(rs[i].errors,
					      json_sprintf("host \"%s\" is claimed by Route %s/%s (older)",
							   rs[i].host, h->o->ns, h->o->name));
			continue;
		}
		check_routes(cx, &rs[i]);
		if (json_array_size(rs[i].errors) > 0)
			continue; /* an Invalid Route serves nothing */
		json_object_set_new(claims, rs[i].host, json_integer((json_int_t)i));
		rs[i].holds = true;
	}
	for (i = 0; i < n && rc == 0; i++) {
		set_status(rs[i].o, cx->opts->now, rs[i].errors);
		if (rs[i].holds)
			rc = emit_rules(cx, &rs[i]);
	}
out:
	for (i = 0; rs != NULL && i < n; i++) {
		free(rs[i].host);
		json_decref(rs[i].errors);
	}
	free(rs);
	free(objs);
	json_decref(claims);
	return rc;
}

/* Another kind's older claim holds the host (an OpenShift Route, an
 * IngressRoute): Invalid, saying who holds it. */
static void
route_contour_displaced(struct sy_compile_ctx *cx, const struct sy_rule_in *rule, const char *host,
			const struct sy_object *winner)
{
	struct sy_object *o = rule->o;
	json_t *errors = json_array();

	json_array_append_new(errors,
			      json_sprintf("host \"%s\" is claimed by %s%s%s %s/%s (older)", host,
					   winner->kind->kind, winner->kind->group[0] ? "." : "",
					   winner->kind->group, winner->ns, winner->name));
	set_status(o, cx->opts->now, errors);
	json_decref(errors);
}

/* Its host and its upstreams' services. */
static void
route_contour_relations(const struct sy_object *o, const struct sy_compile_opts *opts,
			struct sy_rel_keys *out)
{
	const json_t *spec = json_object_get(o->obj, "spec");
	const json_t *rt, *u;
	size_t i, j;

	(void)opts;
	if (json_is_string(json_object_get(spec, "host")))
		sy_rel_add_host(out, json_string_value(json_object_get(spec, "host")));
	json_array_foreach(json_object_get(spec, "routes"), i, rt)
		json_array_foreach(json_object_get(rt, "upstreams"), j, u)
			if (json_is_string(json_object_get(u, "serviceName")))
				sy_rel_add(out, SY_REL_SERVICE, "%s/%s", o->ns,
					   json_string_value(json_object_get(u, "serviceName")));
}

const struct sy_kind sy_kind_route_contour = {
	.kind = "Route",
	.group = "contour.heptio.com",
	.api_versions = (const char *const[]){ "contour.heptio.com/v1alpha1", NULL },
	/* no bare "route"/"routes": those are OpenShift's */
	.names = (const char *const[]){ "route.contour.heptio.com", "routes.contour.heptio.com",
					NULL },
	.validate = validate_route_contour,
	.compile = compile_routes_contour,
	.relations = route_contour_relations,
	.displaced = route_contour_displaced,
};
