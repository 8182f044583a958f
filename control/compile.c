/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "compile.h"

/* One Route as the compiler sees it. */
struct route_in {
	struct sy_object *o;
	char *host;
	const char *path;        /* "/" when the route has none */
	const char *termination; /* "" when no TLS */
	bool wildcard;
	bool admitted;
	const char *reason;
	char message[512];
};

/* One endpoint while pools are being built. */
struct ep_tmp {
	struct sy_addr addr;
	uint16_t port;
};

char *
sy_route_effective_host(const struct sy_object *route, const char *suffix)
{
	const json_t *spec = json_object_get(route->obj, "spec");
	const char *host = json_string_value(json_object_get(spec, "host"));
	char *out, *p;

	if (host != NULL && host[0] != '\0') {
		out = strdup(host);
	} else {
		/* OpenShift's SimpleAllocationPlugin: dots in the name become dashes. */
		if (asprintf(&out, "%s-%s.%s", route->name, route->ns, suffix) < 0)
			return NULL;
		for (p = out; *p && p < out + strlen(route->name); p++)
			if (*p == '.')
				*p = '-';
	}
	if (out == NULL)
		return NULL;
	for (p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

/* OpenShift's RouteLessThan: older creationTimestamp first, then smaller uid. */
static int
cmp_route_age(const void *a, const void *b)
{
	const struct route_in *x = a, *y = b;
	int c = strcmp(x->o->created, y->o->created);

	return c ? c : strcmp(x->o->uid, y->o->uid);
}

static void
admit(struct route_in *routes, size_t n, const struct sy_compile_opts *opts)
{
	json_t *claims = json_object(); /* host -> [index of admitted route] */
	size_t i;

	for (i = 0; i < n; i++) {
		struct route_in *r = &routes[i];
		json_t *list = json_object_get(claims, r->host);
		size_t k;
		json_t *v;

		r->admitted = false;
		if (r->wildcard && !opts->allow_wildcard_routes) {
			r->reason = "RouteNotAdmitted";
			snprintf(r->message, sizeof(r->message), "wildcard routes are not allowed");
			continue;
		}
		json_array_foreach(list, k, v) {
			struct route_in *owner = &routes[json_integer_value(v)];

			/* The oldest route's namespace owns the whole host; within it,
			 * one route per path (openshift/router hostindex SameNamespace). */
			if (strcmp(owner->o->ns, r->o->ns) != 0) {
				r->reason = "HostAlreadyClaimed";
				snprintf(r->message, sizeof(r->message),
					 "a route in another namespace holds host %s", r->host);
				break;
			}
			if (strcmp(owner->path, r->path) == 0) {
				r->reason = "HostAlreadyClaimed";
				snprintf(r->message, sizeof(r->message), "route %s/%s has host %s",
					 owner->o->ns, owner->o->name, r->host);
				break;
			}
			if ((strcmp(owner->termination, "passthrough") == 0) !=
			    (strcmp(r->termination, "passthrough") == 0)) {
				/* A passthrough host is carried by SNI alone; it cannot
				 * also be terminated for a path on the same host. */
				r->reason = "HostAlreadyClaimed";
				snprintf(r->message, sizeof(r->message),
					 "route %s/%s has host %s with %s termination", owner->o->ns,
					 owner->o->name, r->host,
					 owner->termination[0] ? owner->termination : "no");
				break;
			}
		}
		if (r->reason != NULL)
			continue;
		if (list == NULL) {
			list = json_array();
			json_object_set_new(claims, r->host, list);
		}
		json_array_append_new(list, json_integer((json_int_t)i));
		r->admitted = true;
	}
	json_decref(claims);
}

/* Keep lastTransitionTime when the condition did not change. */
static void
set_route_status(struct route_in *r, const struct sy_compile_opts *opts)
{
	const char *wp = json_string_value(json_object_get(json_object_get(r->o->obj, "spec"),
							   "wildcardPolicy"));
	const char *status = r->admitted ? "True" : "False";
	const char *since = opts->now;
	json_t *old = json_object_get(json_object_get(json_array_get(json_object_get(r->o->status,
									      "ingress"), 0),
						      "conditions"), 0);
	json_t *cond, *st;

	if (old != NULL && json_is_string(json_object_get(old, "status")) &&
	    strcmp(json_string_value(json_object_get(old, "status")), status) == 0 &&
	    json_is_string(json_object_get(old, "lastTransitionTime")))
		since = json_string_value(json_object_get(old, "lastTransitionTime"));
	cond = json_pack("{s:s, s:s, s:s}", "type", "Admitted", "status", status,
			 "lastTransitionTime", since);
	if (!r->admitted) {
		json_object_set_new(cond, "reason", json_string(r->reason));
		json_object_set_new(cond, "message", json_string(r->message));
	}
	st = json_pack("{s:[{s:s, s:s, s:s, s:[o]}]}", "ingress", "host", r->host, "routerName",
		       opts->router_name, "wildcardPolicy", wp && wp[0] ? wp : "None", "conditions",
		       cond);
	json_decref(r->o->status);
	r->o->status = st;
}

/* Does Endpoints port `ep` match the route's targetPort (name or number),
 * directly or through the Service's port table? */
static bool
port_matches(const json_t *ep, const json_t *target, const json_t *svc_ports)
{
	const char *ep_name = json_string_value(json_object_get(ep, "name"));
	json_int_t ep_port = json_integer_value(json_object_get(ep, "port"));
	size_t i;
	const json_t *sp;

	if (target == NULL)
		return true; /* no port on the route: every endpoint port serves */
	if (json_is_string(target)) {
		if (ep_name && strcmp(ep_name, json_string_value(target)) == 0)
			return true;
		json_array_foreach(svc_ports, i, sp) {
			const json_t *tp = json_object_get(sp, "targetPort");

			if (json_is_string(json_object_get(sp, "name")) &&
			    strcmp(json_string_value(json_object_get(sp, "name")),
				   json_string_value(target)) == 0 &&
			    json_is_integer(tp) && json_integer_value(tp) == ep_port)
				return true;
		}
		return false;
	}
	if (json_integer_value(target) == ep_port)
		return true;
	json_array_foreach(svc_ports, i, sp) {
		const char *sname = json_string_value(json_object_get(sp, "name"));

		if (json_integer_value(json_object_get(sp, "port")) == json_integer_value(target) &&
		    (sname == NULL ? ep_name == NULL : (ep_name && strcmp(sname, ep_name) == 0)))
			return true;
	}
	return false;
}

/* Every ready (address, port) of service ns/name that the target port selects. */
static size_t
collect_endpoints(struct sy_store *st, const char *ns, const char *name, const json_t *target,
		  struct ep_tmp **out)
{
	struct sy_object *eps = sy_store_find(st, &sy_kind_endpoints, ns, name);
	struct sy_object *svc = sy_store_find(st, &sy_kind_service, ns, name);
	const json_t *svc_ports = svc ? json_object_get(json_object_get(svc->obj, "spec"), "ports") : NULL;
	const json_t *subset, *addr, *port;
	size_t i, j, k, n = 0, cap = 0;

	*out = NULL;
	if (eps == NULL)
		return 0;
	json_array_foreach(json_object_get(eps->obj, "subsets"), i, subset) {
		json_array_foreach(json_object_get(subset, "ports"), k, port) {
			if (!port_matches(port, target, svc_ports))
				continue;
			json_array_foreach(json_object_get(subset, "addresses"), j, addr) {
				struct ep_tmp e;

				if (sy_addr_parse(json_string_value(json_object_get(addr, "ip")), &e.addr) < 0)
					continue;
				e.port = (uint16_t)json_integer_value(json_object_get(port, "port"));
				if (n == cap) {
					struct ep_tmp *grown;

					cap = cap ? cap * 2 : 8;
					grown = realloc(*out, cap * sizeof(**out));
					if (grown == NULL)
						return n;
					*out = grown;
				}
				(*out)[n++] = e;
			}
		}
	}
	return n;
}

static uint32_t
backend_weight(const json_t *b)
{
	const json_t *w = json_object_get(b, "weight");

	/* library-go defaulting: a nil weight is 100. */
	return json_is_integer(w) ? (uint32_t)json_integer_value(w) : 100;
}

/*
 * A Route's pool: `to` and alternateBackends, with each service's weight spread
 * over its endpoints the way openshift/router's calculateServiceWeights does:
 * weight/endpoints per endpoint, scaled so the largest is 256, truncated, at
 * least 1 when the service weight is not 0; when only one service has weight
 * and endpoints, each of its endpoints gets 1.
 */
static int
build_route_pool(struct sy_arena *a, struct sy_store *st, const struct route_in *r,
		 struct sy_pool *pool)
{
	const json_t *spec = json_object_get(r->o->obj, "spec");
	const json_t *target = json_object_get(json_object_get(spec, "port"), "targetPort");
	const json_t *backends[4];
	struct ep_tmp *eps[4] = { NULL };
	size_t n_eps[4] = { 0 };
	size_t nb = 0, i, j, total_eps = 0, k = 0;
	double per_ep[4], max_per_ep = 0;
	unsigned live = 0;

	backends[nb++] = json_object_get(spec, "to");
	for (i = 0; i < json_array_size(json_object_get(spec, "alternateBackends")) && nb < 4; i++)
		backends[nb++] = json_array_get(json_object_get(spec, "alternateBackends"), i);

	pool->services = sy_arena_alloc(a, nb * sizeof(*pool->services));
	if (pool->services == NULL)
		return -1;
	pool->n_services = (uint32_t)nb;
	for (i = 0; i < nb; i++) {
		const char *name = json_string_value(json_object_get(backends[i], "name"));
		uint32_t w = backend_weight(backends[i]);

		n_eps[i] = collect_endpoints(st, r->o->ns, name, target, &eps[i]);
		pool->services[i].ns = sy_arena_strdup(a, r->o->ns);
		pool->services[i].name = sy_arena_strdup(a, name);
		pool->services[i].weight = w;
		pool->services[i].n_endpoints = (uint32_t)n_eps[i];
		total_eps += n_eps[i];
		per_ep[i] = n_eps[i] ? (double)w / (double)n_eps[i] : 0;
		if (per_ep[i] > max_per_ep)
			max_per_ep = per_ep[i];
		if (w > 0 && n_eps[i] > 0)
			live++;
	}
	pool->endpoints = sy_arena_alloc(a, (total_eps ? total_eps : 1) * sizeof(*pool->endpoints));
	if (pool->endpoints == NULL)
		goto fail;
	pool->total_weight = 0;
	for (i = 0; i < nb; i++) {
		uint32_t w = pool->services[i].weight;
		uint32_t ew;

		if (live == 1)
			ew = (w > 0) ? 1 : 0;
		else if (w == 0 || max_per_ep == 0)
			ew = 0;
		else {
			ew = (uint32_t)(per_ep[i] * 256.0 / max_per_ep);
			if (ew == 0)
				ew = 1;
		}
		for (j = 0; j < n_eps[i]; j++) {
			pool->endpoints[k].addr = eps[i][j].addr;
			pool->endpoints[k].port = eps[i][j].port;
			pool->endpoints[k].service = (uint16_t)i;
			pool->endpoints[k].weight = ew;
			pool->total_weight += ew;
			k++;
		}
		free(eps[i]);
		eps[i] = NULL;
	}
	pool->n_endpoints = (uint32_t)k;
	return 0;
fail:
	for (i = 0; i < nb; i++)
		free(eps[i]);
	return -1;
}

static enum sy_tls_mode
tls_mode(const char *termination)
{
	if (strcmp(termination, "passthrough") == 0)
		return SY_TLS_PASSTHROUGH;
	if (strcmp(termination, "reencrypt") == 0)
		return SY_TLS_REENCRYPT;
	if (strcmp(termination, "edge") == 0)
		return SY_TLS_EDGE;
	return SY_TLS_NONE;
}

/* Longest path first (OpenShift sorts its map so the longest prefix wins). */
static int
cmp_rule_path(const void *a, const void *b)
{
	const struct route_in *x = *(struct route_in *const *)a;
	const struct route_in *y = *(struct route_in *const *)b;
	size_t lx = strlen(x->path), ly = strlen(y->path);

	if (lx != ly)
		return lx > ly ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int
build_vhost(struct sy_arena *a, struct sy_store *st, struct sy_generation *g, struct sy_vhost *vh,
	    const char *host, struct route_in **rs, size_t n)
{
	size_t i;

	qsort(rs, n, sizeof(*rs), cmp_rule_path);
	vh->host = sy_arena_strdup(a, host);
	vh->host_len = (uint32_t)strlen(host);
	vh->tls = tls_mode(rs[0]->termination);
	vh->rules = sy_arena_alloc(a, n * sizeof(*vh->rules));
	if (vh->host == NULL || vh->rules == NULL)
		return -1;
	vh->n_rules = (uint32_t)n;
	/* Splice carries a connection to one backend for its life; TLS
	 * termination needs the proxy. Path rules would too (per request), but
	 * until the proxy exists the first request's path binds the connection
	 * (SPLICE.md, "What splice cannot do"). */
	vh->mode = (vh->tls == SY_TLS_NONE || vh->tls == SY_TLS_PASSTHROUGH) ? SY_MODE_SPLICE
									     : SY_MODE_PROXY;
	vh->bind_by_first_path = vh->mode == SY_MODE_SPLICE &&
				 (n > 1 || strcmp(rs[0]->path, "/") != 0);
	for (i = 0; i < n; i++) {
		struct sy_rule *rule = &vh->rules[i];
		char who[512];

		rule->match = SY_PATH_PREFIX;
		rule->path = sy_arena_strdup(a, rs[i]->path);
		rule->path_len = (uint32_t)strlen(rs[i]->path);
		rule->kind = rs[i]->o->kind->kind;
		snprintf(who, sizeof(who), "%s/%s", rs[i]->o->ns, rs[i]->o->name);
		rule->object = sy_arena_strdup(a, who);
		rule->pool = g->n_pools;
		if (rule->path == NULL || rule->object == NULL ||
		    build_route_pool(a, st, rs[i], &g->pools[g->n_pools]) < 0)
			return -1;
		g->n_pools++;
	}
	return 0;
}

static int
index_vhosts(struct sy_arena *a, struct sy_generation *g)
{
	uint32_t size = 16, i;

	while (size < 2 * g->n_vhosts)
		size <<= 1;
	g->vhost_slots = sy_arena_alloc(a, size * sizeof(*g->vhost_slots));
	if (g->vhost_slots == NULL)
		return -1;
	g->vhost_mask = size - 1;
	for (i = 0; i < g->n_vhosts; i++) {
		uint32_t h = sy_host_hash(g->vhosts[i].host, g->vhosts[i].host_len);

		while (g->vhost_slots[h & g->vhost_mask] != 0)
			h++;
		g->vhost_slots[h & g->vhost_mask] = i + 1;
	}
	return 0;
}

struct sy_generation *
sy_compile(struct sy_store *st, const struct sy_compile_opts *opts, uint64_t id)
{
	size_t n = 0, i, n_admitted = 0;
	struct sy_object **objs = sy_store_list(st, &sy_kind_route, NULL, &n);
	struct route_in *routes = calloc(n ? n : 1, sizeof(*routes));
	struct route_in **by_host = calloc(n ? n : 1, sizeof(*by_host));
	struct sy_arena *a = sy_arena_new();
	struct sy_generation *g = a ? sy_arena_alloc(a, sizeof(*g)) : NULL;
	json_t *hosts = json_object(); /* host -> [route index], insertion ordered */
	const char *host;
	json_t *list;

	if (objs == NULL || routes == NULL || by_host == NULL || g == NULL)
		goto fail;
	g->id = id;
	g->arena = a;
	g->no_route_status = opts->no_route_status;
	for (i = 0; i < n; i++) {
		const json_t *spec = json_object_get(objs[i]->obj, "spec");
		const char *path = json_string_value(json_object_get(spec, "path"));
		const char *term = json_string_value(
			json_object_get(json_object_get(spec, "tls"), "termination"));
		const char *wp = json_string_value(json_object_get(spec, "wildcardPolicy"));

		routes[i].o = objs[i];
		routes[i].host = sy_route_effective_host(objs[i], opts->routing_subdomain);
		if (routes[i].host == NULL)
			goto fail;
		routes[i].path = path && path[0] ? path : "/";
		/* An empty termination with a tls block means edge (library-go defaulting). */
		routes[i].termination = term && term[0] ? term :
					json_object_get(spec, "tls") && !json_is_null(json_object_get(spec, "tls")) ? "edge" : "";
		routes[i].wildcard = wp && strcmp(wp, "Subdomain") == 0;
	}
	qsort(routes, n, sizeof(*routes), cmp_route_age);
	admit(routes, n, opts);
	for (i = 0; i < n; i++) {
		set_route_status(&routes[i], opts);
		if (!routes[i].admitted)
			continue;
		n_admitted++;
		list = json_object_get(hosts, routes[i].host);
		if (list == NULL) {
			list = json_array();
			json_object_set_new(hosts, routes[i].host, list);
		}
		json_array_append_new(list, json_integer((json_int_t)i));
	}
	g->vhosts = sy_arena_alloc(a, (json_object_size(hosts) + 1) * sizeof(*g->vhosts));
	g->pools = sy_arena_alloc(a, (n_admitted + 1) * sizeof(*g->pools));
	if (g->vhosts == NULL || g->pools == NULL)
		goto fail;
	json_object_foreach(hosts, host, list) {
		size_t k, m = 0;
		json_t *v;

		json_array_foreach(list, k, v)
			by_host[m++] = &routes[json_integer_value(v)];
		if (build_vhost(a, st, g, &g->vhosts[g->n_vhosts], host, by_host, m) < 0)
			goto fail;
		g->n_vhosts++;
	}
	if (index_vhosts(a, g) < 0)
		goto fail;
	g->bytes = sy_arena_bytes(a);
	for (i = 0; i < n; i++)
		free(routes[i].host);
	free(routes);
	free(by_host);
	free(objs);
	json_decref(hosts);
	return g;
fail:
	for (i = 0; routes && i < n; i++)
		free(routes[i].host);
	free(routes);
	free(by_host);
	free(objs);
	json_decref(hosts);
	sy_arena_free(a);
	return NULL;
}

void
sy_generation_free(struct sy_generation *g)
{
	if (g != NULL)
		sy_arena_free(g->arena);
}
