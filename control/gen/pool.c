/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "gen/backend_url.h"
#include "gen/lb_tables.h"
#include "gen/pool.h"
#include "gen/service_endpoints.h"
#include "gen/upstream_protocol.h"
#include "tls/tls_cert.h"

/* One endpoint while pools are being built. */
struct ep_tmp {
	struct sy_addr addr;
	uint16_t port;
	bool tls;
	char *tls_name; /* https: the URL's host (malloc'd, eps_free) */
	/* The endpoints its URL resolved to (1 for a Service's endpoint and an
	 * address literal): they share that URL's part of the weight. */
	uint16_t split;
};

/* What a URL backend's URLs gave, beyond their endpoints. */
struct url_outcome {
	bool refused;     /* one URL the router cannot serve at all */
	bool tls;         /* one https:// URL */
	char problem[448]; /* the sentence for resolve (struct sy_pool_service) */
	int rank;          /* of problem: 2 refused, 1 unresolved, 0 none */
};

static void
eps_free(struct ep_tmp *e, size_t n)
{
	for (size_t i = 0; e != NULL && i < n; i++)
		free(e[i].tls_name);
	free(e);
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

/* The namespace of rule r's backend i: its own (a Gateway API backendRef
 * to another namespace), else the rule object's. */
static const char *
backend_ns(const struct sy_rule_in *r, size_t i)
{
	return r->backends[i].ns != NULL ? r->backends[i].ns : r->o->ns;
}

struct collect {
	const json_t *target, *svc_ports;
	struct ep_tmp *out;
	size_t n, cap;
	unsigned groups;
};

/* One group of addresses: each (address, port) the target port selects,
 * ports first as Endpoints subsets always were (the pool's order decides
 * round robin's and Maglev's places). */
static void
collect_group(void *arg, const char *const *ips, size_t n_ips, const json_t *ports)
{
	struct collect *c = arg;
	const json_t *port;
	size_t j, k;

	c->groups++;

	json_array_foreach(ports, k, port) {
		if (!port_matches(port, c->target, c->svc_ports))
			continue;
		for (j = 0; j < n_ips; j++) {
			struct ep_tmp e = { .split = 1 };

			if (sy_addr_parse(ips[j], &e.addr) < 0)
				continue;
			e.port = (uint16_t)json_integer_value(json_object_get(port, "port"));
			if (c->n == c->cap) {
				size_t cap = c->cap ? c->cap * 2 : 8;
				struct ep_tmp *grown = realloc(c->out, cap * sizeof(*grown));

				if (grown == NULL)
					return;
				c->out = grown;
				c->cap = cap;
			}
			c->out[c->n++] = e;
		}
	}
}

static int
ep_cmp(const struct ep_tmp *a, const struct ep_tmp *b)
{
	if (a->addr.family != b->addr.family)
		return a->addr.family < b->addr.family ? -1 : 1;
	if (a->addr.family == AF_INET && a->addr.v4 != b->addr.v4)
		return a->addr.v4 < b->addr.v4 ? -1 : 1;
	if (a->addr.family != AF_INET && memcmp(a->addr.v6, b->addr.v6, 16) != 0)
		return memcmp(a->addr.v6, b->addr.v6, 16);
	return a->port < b->port ? -1 : a->port > b->port;
}

static const struct ep_tmp *ep_sort_base;

static int
ep_index_cmp(const void *x, const void *y)
{
	size_t i = *(const size_t *)x, j = *(const size_t *)y;
	int c = ep_cmp(&ep_sort_base[i], &ep_sort_base[j]);

	return c != 0 ? c : (i < j ? -1 : i > j);
}

/* An address a Service lists in two groups (two slices while one replaces
 * the other) is taken once, at its first place: sorted by (address, port,
 * place), every later equal one goes. O(n log n): services run to
 * thousands of endpoints. */
static size_t
drop_repeats(struct ep_tmp *e, size_t n)
{
	size_t *idx = malloc(n * sizeof(*idx));
	bool *gone = calloc(n, sizeof(*gone));
	size_t i, k = 0;

	if (idx == NULL || gone == NULL) {
		free(idx);
		free(gone);
		return n;
	}
	for (i = 0; i < n; i++)
		idx[i] = i;
	ep_sort_base = e;
	qsort(idx, n, sizeof(*idx), ep_index_cmp);
	for (i = 1; i < n; i++)
		if (ep_cmp(&e[idx[i - 1]], &e[idx[i]]) == 0)
			gone[idx[i]] = true;
	for (i = 0; i < n; i++)
		if (!gone[i])
			e[k++] = e[i];
	free(idx);
	free(gone);
	return k;
}

/* Every ready (address, port) of service ns/name that the target port
 * selects, from its EndpointSlices or its Endpoints (gen/service_endpoints.h),
 * and the protocol that port speaks (gen/upstream_protocol.h). */
static size_t
collect_endpoints(struct sy_store *st, const struct sy_relations *rel, const char *ns,
		  const char *name, const json_t *target, struct ep_tmp **out, uint8_t *proto)
{
	struct sy_object *svc = sy_store_find(st, &sy_kind_service, ns, name);
	struct collect c = {
		.target = target,
		.svc_ports = svc ? json_object_get(json_object_get(svc->obj, "spec"), "ports") : NULL,
	};

	*proto = sy_upstream_protocol(svc ? svc->obj : NULL, target);
	sy_service_endpoints_each(st, rel, ns, name, collect_group, &c);
	if (c.groups > 1 && c.n > 1)
		c.n = drop_repeats(c.out, c.n);
	*out = c.out;
	return c.n;
}

/*
 * The endpoints written into a URL backend (Skipper network / lb): each
 * URL's address, or every address its host name has (backend_url.h). An lb
 * balances over its URLs, so a URL is one part of the backend's weight
 * however many addresses its name has: they split that part (ep_tmp.split)
 * rather than each weighing as much as a URL written as an address. A name
 * that does not resolve now adds none, as an Endpoints object without
 * ready addresses would. None at all when the router refuses one of the
 * URLs (o->refused: credentials, IPv6): serving the rest would send an lb's
 * whole share to part of it. https URLs give endpoints marked tls (o->tls),
 * each with its URL's host: the name the backend's certificate must have.
 */
static size_t
url_endpoints(const struct sy_url_backend *ub, struct ep_tmp **out, struct url_outcome *o)
{
	struct sy_backend_url bu;
	char why[320];
	uint32_t i, k;
	size_t n = 0;
	int rank;

	*out = calloc(ub->n_urls ? ub->n_urls * SY_BACKEND_URL_ADDRS_MAX : 1, sizeof(**out));
	if (*out == NULL)
		return 0;
	for (i = 0; i < ub->n_urls; i++) {
		switch (sy_backend_url_resolve(ub->urls[i], &bu, why, sizeof(why))) {
		case SY_BACKEND_URL_OK:
			for (k = 0; k < bu.n_addrs; k++) {
				(*out)[n++] = (struct ep_tmp){ .addr = bu.addrs[k], .port = bu.port,
							       .tls = bu.tls,
							       .split = (uint16_t)bu.n_addrs };
				if (bu.tls && (*out)[n - 1].tls_name == NULL &&
				    ((*out)[n - 1].tls_name = strdup(bu.host)) == NULL)
					n--; /* out of memory: one endpoint fewer */
			}
			o->tls |= bu.tls;
			rank = 0;
			break;
		case SY_BACKEND_URL_UNRESOLVED:
			o->tls |= bu.tls; /* still https once it resolves */
			rank = 1;
			break;
		default:
			/* Refused: whatever its scheme, it gives nothing. */
			o->refused = true;
			rank = 2;
			break;
		}
		if (rank > o->rank) {
			o->rank = rank;
			snprintf(o->problem, sizeof(o->problem), "%s %s: %s; requests for it get 503",
				 ub->type == SY_URL_BACKEND_NETWORK ? "network backend" : "lb endpoint",
				 ub->urls[i], why);
		}
	}
	if (o->refused) {
		eps_free(*out, n);
		*out = NULL;
		return 0;
	}
	return n;
}

static size_t
round16(size_t n)
{
	return n ? (n + 15) & ~(size_t)15 : 16;
}

/* What url_backend_copy takes from the pool's block. */
static size_t
url_backend_size(const struct sy_url_backend *ub)
{
	size_t size;
	uint32_t i;

	if (ub == NULL)
		return 0;
	size = round16(sizeof(*ub)) + round16(ub->n_urls * sizeof(*ub->urls));
	for (i = 0; i < ub->n_urls; i++)
		size += round16(strlen(ub->urls[i]) + 1);
	if (ub->algorithm != NULL)
		size += round16(strlen(ub->algorithm) + 1);
	return size;
}

/* ub's URLs point into the objects' JSON; the pool outlives the compile. */
static const struct sy_url_backend *
url_backend_copy(struct sy_arena *a, const struct sy_url_backend *ub)
{
	struct sy_url_backend *c = sy_arena_alloc(a, sizeof(*c));
	const char **urls = sy_arena_alloc(a, ub->n_urls * sizeof(*urls));
	uint32_t i;

	if (c == NULL || urls == NULL)
		return NULL;
	c->type = ub->type;
	c->n_urls = ub->n_urls;
	c->urls = urls;
	for (i = 0; i < ub->n_urls; i++)
		if ((urls[i] = sy_arena_strdup(a, ub->urls[i])) == NULL)
			return NULL;
	if (ub->algorithm != NULL && (c->algorithm = sy_arena_strdup(a, ub->algorithm)) == NULL)
		return NULL;
	return c;
}

/* lcm(1..SY_BACKEND_URL_ADDRS_MAX): a URL's part divides evenly over
 * however many addresses its name has, in the weight modes whose numbers
 * are small (enum sy_weight_mode). */
#define SPLIT_SCALE 720720u

/*
 * A rule's pool in its own block: its services, each service's weight spread
 * over its endpoints as the rule's peer does it (enum sy_weight_mode), a
 * URL's part split over its name's addresses. One reference (the caller's).
 */
static struct sy_pool *
build_pool(struct sy_store *st, const struct sy_relations *rel, const struct sy_rule_in *r,
	   unsigned workers)
{
	struct ep_tmp *eps[SY_RULE_BACKENDS_MAX] = { NULL };
	size_t n_eps[SY_RULE_BACKENDS_MAX] = { 0 };
	struct url_outcome uo[SY_RULE_BACKENDS_MAX];
	uint8_t proto[SY_RULE_BACKENDS_MAX] = { 0 }; /* enum sy_be_proto */
	size_t nb = r->n_backends, i, j, total_eps = 0, k = 0, size;
	/* units: what a service's weight is spread over, its endpoints
	 * counted as 1/split each (so a URL counts once). */
	double units[SY_RULE_BACKENDS_MAX] = { 0 };
	double per_ep[SY_RULE_BACKENDS_MAX], max_per_ep = 0;
	uint64_t total_w = 0;
	unsigned live = 0;
	uint32_t scale = 1;
	struct sy_arena *a = NULL;
	struct sy_pool *pool = NULL;
	const char **names = NULL; /* the pool's tls_names, while it is filled */
	bool tls_eps = false;

	memset(uo, 0, sizeof(uo));
	for (i = 0; i < nb; i++) {
		n_eps[i] = r->backends[i].urls != NULL
				   ? url_endpoints(r->backends[i].urls, &eps[i], &uo[i])
				   : collect_endpoints(st, rel, backend_ns(r, i), r->backends[i].service,
						       r->backends[i].target_port
							       ? r->backends[i].target_port
							       : r->target_port,
						       &eps[i], &proto[i]);
		for (j = 0; j < n_eps[i]; j++) {
			units[i] += 1.0 / eps[i][j].split;
			if (eps[i][j].split > 1)
				scale = SPLIT_SCALE;
		}
	}
	/* Everything in one block of its exact size. */
	size = round16(sizeof(*pool)) + round16((nb ? nb : 1) * sizeof(*pool->services));
	for (i = 0; i < nb; i++) {
		size += round16(strlen(backend_ns(r, i)) + 1) +
			round16(strlen(r->backends[i].service) + 1);
		size += url_backend_size(r->backends[i].urls);
		if (uo[i].rank > 0)
			size += round16(strlen(uo[i].problem) + 1);
		for (j = 0; j < n_eps[i]; j++)
			if (eps[i][j].tls_name != NULL)
				size += round16(strlen(eps[i][j].tls_name) + 1);
		total_eps += n_eps[i];
		tls_eps |= uo[i].tls;
	}
	size += round16((total_eps ? total_eps : 1) * sizeof(*pool->endpoints));
	if (tls_eps)
		size += round16(total_eps * sizeof(*pool->tls_names));
	if (r->hc.path != NULL)
		size += round16(sizeof(*pool->hc)) + round16(strlen(r->hc.path) + 1);
	if (r->hc.host != NULL)
		size += round16(strlen(r->hc.host) + 1);
	a = sy_arena_new_exact(size);
	pool = a ? sy_arena_alloc(a, sizeof(*pool)) : NULL;
	if (pool == NULL)
		goto fail;
	pool->arena = a;
	pool->refs = 1;
	pool->strategy = r->strategy;
	pool->max_conns = r->edge != NULL ? r->edge->pod_max_conns : 0;
	if (r->hc.path != NULL) {
		struct sy_health_check *hc = sy_arena_alloc(a, sizeof(*hc));

		if (hc == NULL)
			goto fail;
		*hc = r->hc;
		if ((hc->path = sy_arena_strdup(a, r->hc.path)) == NULL ||
		    (r->hc.host != NULL && (hc->host = sy_arena_strdup(a, r->hc.host)) == NULL))
			goto fail;
		pool->hc = hc;
	}
	pool->services = sy_arena_alloc(a, (nb ? nb : 1) * sizeof(*pool->services));
	if (pool->services == NULL)
		goto fail;
	pool->n_services = (uint32_t)nb;
	for (i = 0; i < nb; i++) {
		const char *name = r->backends[i].service;
		uint32_t w = r->backends[i].weight;

		pool->needs_proxy |= uo[i].refused;
		pool->backend_tls |= uo[i].tls;
		pool->services[i].ns = sy_arena_strdup(a, backend_ns(r, i));
		pool->services[i].name = sy_arena_strdup(a, name);
		pool->services[i].weight = w;
		pool->services[i].n_endpoints = (uint32_t)n_eps[i];
		if (r->backends[i].urls != NULL &&
		    (pool->services[i].urls = url_backend_copy(a, r->backends[i].urls)) == NULL)
			goto fail;
		if (uo[i].rank > 0 &&
		    (pool->services[i].problem = sy_arena_strdup(a, uo[i].problem)) == NULL)
			goto fail;
		pool->services[i].proto = r->backends[i].proto ? r->backends[i].proto : proto[i];
		per_ep[i] = n_eps[i] ? (double)w / units[i] : 0;
		if (per_ep[i] > max_per_ep)
			max_per_ep = per_ep[i];
		if (w > 0 && n_eps[i] > 0) {
			live++;
			total_w += w;
		}
	}
	pool->endpoints = sy_arena_alloc(a, (total_eps ? total_eps : 1) * sizeof(*pool->endpoints));
	if (pool->endpoints == NULL)
		goto fail;
	if (tls_eps && (names = sy_arena_alloc(a, total_eps * sizeof(*names))) == NULL)
		goto fail;
	pool->tls_names = (const char *const *)names;
	pool->total_weight = 0;
	for (i = 0; i < nb; i++) {
		uint32_t w = pool->services[i].weight;
		uint32_t ew; /* one unit's weight (an endpoint of its own, a URL) */

		if (w == 0 || n_eps[i] == 0 || max_per_ep == 0)
			ew = 0;
		else if (r->weights == SY_WEIGHTS_PER_SERVICE)
			ew = 1; /* per endpoint below */
		else if (live == 1)
			ew = 1;
		else {
			ew = (uint32_t)(per_ep[i] * 256.0 / max_per_ep);
			if (ew == 0)
				ew = 1;
		}
		for (j = 0; j < n_eps[i]; j++) {
			uint32_t epw;

			if (ew == 0)
				epw = 0;
			else if (r->weights == SY_WEIGHTS_PER_SERVICE)
				/* Share w/total split over the units, in steps
				 * fine enough that 1 endpoint of 1000 keeps its
				 * share. */
				epw = (uint32_t)((double)w * 1000000.0 / (double)total_w / units[i] /
						 eps[i][j].split) + 1;
			else
				epw = ew * (scale / eps[i][j].split);
			pool->endpoints[k].addr = eps[i][j].addr;
			pool->endpoints[k].port = eps[i][j].port;
			pool->endpoints[k].tls = eps[i][j].tls;
			if (eps[i][j].tls_name != NULL && names != NULL &&
			    (names[k] = sy_arena_strdup(a, eps[i][j].tls_name)) == NULL)
				goto fail;
			pool->endpoints[k].service = (uint16_t)i;
			pool->endpoints[k].weight = epw;
			pool->total_weight += epw;
			k++;
		}
		eps_free(eps[i], n_eps[i]);
		eps[i] = NULL;
	}
	pool->n_endpoints = (uint32_t)k;
	/* TLS towards https:// URLs: one client context for the pool, from
	 * the router's trust store (NULL: the data plane answers 503
	 * backend_tls rather than send in the clear). */
	if (pool->backend_tls)
		pool->tls_ctx = sy_tls_url_backend_ctx_get();
	for (i = 0; i < nb; i++)
		if (pool->services[i].proto == SY_BE_H2 || pool->services[i].proto == SY_BE_TLS) {
			pool->svc_tls_ctx = sy_tls_upstream_ctx_get();
			break;
		}
	/* The strategy's tables (NULL: the workers pick by a linear weighted
	 * random walk, as they can without them). */
	pool->lb = sy_lb_tables_build(pool, workers);
	pool->bytes = sy_arena_bytes(a) + sy_lb_tables_bytes(pool->lb);
	return pool;
fail:
	for (i = 0; i < nb; i++)
		eps_free(eps[i], n_eps[i]);
	sy_arena_free(a);
	return NULL;
}

static size_t live_bytes;

/* A backend's port in a pool key, after its service and weight: "@-" (none),
 * "@N" (a number), "@'LEN:NAME" (a named port, with its length: any text).
 * Other JSON (a port the kind did not check) fills the key, so the rule
 * shares no pool. Printed by hand: json_dumps here was half of the key's
 * cost, and the key a twentieth of a full compile at 300k routes. */
static size_t
key_port(char *buf, size_t cap, const json_t *port)
{
	if (port == NULL)
		return (size_t)snprintf(buf, cap, "@-");
	if (json_is_integer(port))
		return (size_t)snprintf(buf, cap, "@%" JSON_INTEGER_FORMAT, json_integer_value(port));
	if (json_is_string(port))
		return (size_t)snprintf(buf, cap, "@'%zu:%s", json_string_length(port),
					json_string_value(port));
	return cap;
}

/* What makes two rules' pools the same (see pool.h): everything build_pool
 * reads of the rule. A backend's port is the one its endpoints are chosen
 * by (its own, else the rule's), so rules that reach the same endpoints
 * through different fields (an IngressRoute's service port, a RouteGroup's
 * servicePort) share the pool, and two named ports never do by accident. */
static char *
pool_key(struct sy_pool_cache *pc, const struct sy_rule_in *r)
{
	char buf[4096];
	size_t len, i;
	uint32_t j;

	len = (size_t)snprintf(buf, sizeof(buf), "%d|%d|%u|%zu:%s|%zu:%s|%u|%u|%u|%u|%s",
			       (int)r->weights, (int)r->strategy,
			       r->edge != NULL ? r->edge->pod_max_conns : 0,
			       r->hc.path ? strlen(r->hc.path) : 0, r->hc.path ? r->hc.path : "",
			       r->hc.host ? strlen(r->hc.host) : 0, r->hc.host ? r->hc.host : "",
			       r->hc.interval_s,
			       r->hc.timeout_s, r->hc.unhealthy_threshold, r->hc.healthy_threshold,
			       r->o->ns);
	for (i = 0; i < r->n_backends && len < sizeof(buf); i++) {
		const struct sy_url_backend *ub = r->backends[i].urls;
		const json_t *port = r->backends[i].target_port ? r->backends[i].target_port
								: r->target_port;

		/* Names and URLs with their lengths: a RouteGroup backend's
		 * name and URLs are any text, so no separator is safe (nor
		 * in a named port). */
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "|%zu:%s=%u",
					strlen(r->backends[i].service), r->backends[i].service,
					r->backends[i].weight);
		if (r->backends[i].ns != NULL && len < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "~%zu:%s",
						strlen(r->backends[i].ns), r->backends[i].ns);
		/* the kind's protocol (GRPCRoute: h2c) makes another pool */
		if (r->backends[i].proto != 0 && len < sizeof(buf))
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, "^%u",
						(unsigned)r->backends[i].proto);
		if (len < sizeof(buf))
			len += key_port(buf + len, sizeof(buf) - len, port);
		if (ub == NULL || len >= sizeof(buf))
			continue;
		/* The pool keeps the URLs as written, for resolve. */
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "@%d:%s", (int)ub->type,
					ub->algorithm ? ub->algorithm : "-");
		for (j = 0; j < ub->n_urls && len < sizeof(buf); j++)
			len += (size_t)snprintf(buf + len, sizeof(buf) - len, ":%zu:%s",
						strlen(ub->urls[j]), ub->urls[j]);
	}
	if (len >= sizeof(buf))
		return NULL; /* too long to share: the caller builds its own */
	return sy_arena_strdup(pc->keys, buf);
}

void
sy_pool_cache_init(struct sy_pool_cache *pc, unsigned workers)
{
	memset(pc, 0, sizeof(*pc));
	pc->workers = workers ? workers : SY_LB_WORKER_SLOTS;
	pc->keys = sy_arena_new();
}

void
sy_pool_cache_fini(struct sy_pool_cache *pc)
{
	size_t i = 0;
	const char *key;
	void *v;

	/* The cache's own reference to each pool. */
	while (sy_strmap_next(&pc->by_key, &i, &key, &v))
		sy_pool_put(v);
	sy_strmap_fini(&pc->by_key);
	sy_arena_free(pc->keys);
	pc->keys = NULL;
}

const struct sy_pool *
sy_pool_get(struct sy_pool_cache *pc, struct sy_store *st, const struct sy_rule_in *r)
{
	char *key = pc->keys ? pool_key(pc, r) : NULL;
	struct sy_pool *p = key ? sy_strmap_get(&pc->by_key, key) : NULL;

	if (p != NULL) {
		p->refs++;
		return p;
	}
	p = build_pool(st, pc->rel, r, pc->workers);
	if (p == NULL)
		return NULL;
	live_bytes += p->bytes;
	/* The cache keeps a reference until the compile ends. */
	if (key != NULL && sy_strmap_put(&pc->by_key, key, p) == 0)
		p->refs++;
	return p;
}

void
sy_pool_put(const struct sy_pool *cp)
{
	struct sy_pool *p = (struct sy_pool *)cp;

	if (p == NULL || --p->refs > 0)
		return;
	live_bytes -= p->bytes;
	if (p->tls_ctx != NULL)
		sy_tls_ctx_put(p->tls_ctx); /* open connections hold their own */
	if (p->svc_tls_ctx != NULL)
		sy_tls_ctx_put(p->svc_tls_ctx);
	sy_lb_tables_free(p->lb);
	sy_arena_free(p->arena);
}

size_t
sy_pool_live_bytes(void)
{
	return live_bytes;
}

