/* SPDX-License-Identifier: BSD-3-Clause */
/* The status page's data (status_page.h). */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>
#include <rte_cycles.h>

#include "health.h"
#include "kinds/kinds.h"
#include "observe/route_state.h"
#include "observe/status_page.h"
#include "router.h"
#include "store/store.h"
#include "strmap.h"
#include "sy_counters.h"
#include "sy_dataplane.h"
#include "sy_generation.h"

/* One distinct backend met in the listed pools. The map's keys live here. */
struct backend {
	char key[SY_ADDR_PORT_STRLEN]; /* "198.18.1.10:80", "[2001:2:1::10]:80" */
	const struct sy_endpoint *ep;
	const char *services[4]; /* "ns/name" of the first pools' services */
	char svc_buf[4][128];
	unsigned n_services;
};

struct backends {
	struct backend *b; /* SY_STATUS_MAX_BACKENDS, allocated once */
	size_t n, total_seen;
	struct sy_strmap map;
};

static double
now_realtime(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double
now_monotonic(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* ------------------------------------------------------------ router -- */

static json_t *
router_json(const struct sy_router *r)
{
	json_t *roots = json_array();
	unsigned i;

	for (i = 0; i < r->cfg.n_ingressroute_root_namespaces; i++)
		json_array_append_new(roots, json_string(r->cfg.ingressroute_root_namespaces[i]));
	/* The shard is this router's selectors: a route outside them gets no
	 * status from it (docs/configuration.md). */
	return json_pack("{s:s, s:s, s:{s:s, s:s, s:o}, s:I, s:b, s:i}", "name", r->cfg.router_name,
			 "routing_subdomain", r->cfg.routing_subdomain, "shard",
			 "route_label_selector", r->cfg.route_label_selector,
			 "namespace_label_selector", r->cfg.namespace_label_selector,
			 "ingressroute_root_namespaces", roots, "uptime_s",
			 (json_int_t)(time(NULL) - r->started), "dataplane", r->dataplane_up,
			 "no_route_status", (int)r->cfg.no_route_status);
}

static json_t *
generation_json(struct sy_router *r, const struct sy_generation *g)
{
	return json_pack("{s:I, s:f, s:f, s:b, s:I, s:I, s:I, s:I, s:I}", "id", (json_int_t)r->gen_id,
			 "published", r->last_publish_time, "compile_ms", r->last_compile_ms,
			 "incremental", r->last_compile_incremental, "compiled_objects",
			 (json_int_t)r->last_compile_objects, "vhosts",
			 (json_int_t)(g ? g->n_vhosts : 0), "rules", (json_int_t)(g ? g->n_rules : 0),
			 "bytes", (json_int_t)(g ? g->bytes : 0), "retired",
			 (json_int_t)r->slot.n_retired);
}

/* Objects by kind, keyed as the status op keys them (a second kind of one
 * name adds its group). */
static json_t *
objects_json(const struct sy_router *r)
{
	const struct sy_kind *const *k, *const *e;
	json_t *o = json_object();

	for (k = sy_kinds; *k != NULL; k++) {
		char key[128];

		snprintf(key, sizeof(key), "%s", (*k)->kind);
		for (e = sy_kinds; e != k; e++)
			if (strcmp((*e)->kind, (*k)->kind) == 0)
				snprintf(key, sizeof(key), "%s.%s", (*k)->kind, (*k)->group);
		json_object_set_new(o, key, json_integer((json_int_t)sy_store_count(&r->store, *k)));
	}
	return o;
}

/* ----------------------------------------------------------- backends -- */

static struct backend *
backend_note(struct backends *bs, const struct sy_pool *p, const struct sy_endpoint *e)
{
	char key[SY_ADDR_PORT_STRLEN], svc[128];
	struct backend *b;
	unsigned i;

	sy_addr_port_format(&e->addr, e->port, key, sizeof(key));
	b = sy_strmap_get(&bs->map, key);
	if (b == NULL) {
		bs->total_seen++;
		if (bs->n == SY_STATUS_MAX_BACKENDS)
			return NULL;
		b = &bs->b[bs->n];
		memset(b, 0, sizeof(*b));
		snprintf(b->key, sizeof(b->key), "%s", key);
		b->ep = e;
		if (sy_strmap_put(&bs->map, b->key, b) < 0)
			return NULL;
		bs->n++;
	}
	if (e->service < p->n_services) {
		snprintf(svc, sizeof(svc), "%s/%s", p->services[e->service].ns,
			 p->services[e->service].name);
		for (i = 0; i < b->n_services && strcmp(b->svc_buf[i], svc) != 0; i++)
			;
		if (i == b->n_services && i < 4) {
			snprintf(b->svc_buf[i], sizeof(b->svc_buf[i]), "%s", svc);
			b->services[i] = b->svc_buf[i];
			b->n_services++;
		}
	}
	return b;
}

/* What the active checks say of a backend (the get endpoints shape). */
static json_t *
health_json(const struct sy_health *h, const struct sy_addr *addr, uint16_t port)
{
	const struct sy_health_target *t = sy_health_find(h, addr, port);
	char last[32];

	if (t == NULL)
		return json_null();
	sy_health_last_text(t, last, sizeof(last));
	return json_pack("{s:s, s:s, s:I, s:I, s:I, s:s}", "state", sy_health_state_name(t->state),
			 "path", t->path, "interval_ms", (json_int_t)t->interval_ms, "checks",
			 (json_int_t)t->checks, "failed", (json_int_t)t->failed, "last", last);
}

static json_t *
backends_json(struct sy_router *r, const struct backends *bs)
{
	json_t *items = json_array();
	size_t i;
	unsigned k;

	for (i = 0; i < bs->n; i++) {
		const struct backend *b = &bs->b[i];
		struct sy_dp_endpoint_state st = { 0 };
		struct sy_backend_ctr ctr;
		json_t *svcs = json_array(), *o;
		uint16_t port = htons(b->ep->port);

		for (k = 0; k < b->n_services; k++)
			json_array_append_new(svcs, json_string(b->services[k]));
		/* The data plane keys its counts by address (an IPv6 one's fold,
		 * sy_addr_key32) and port. */
		if (r->dataplane_up)
			sy_dp_endpoint_state(sy_addr_key32(&b->ep->addr), port, &st);
		o = json_pack("{s:s, s:o, s:I, s:I, s:I, s:b, s:o}", "endpoint", b->key,
			      "services", svcs, "open_connections", (json_int_t)st.open_connections, "connections",
			      (json_int_t)st.connections, "ejected_workers",
			      (json_int_t)st.ejected_workers, "hc_down", b->ep->hc_down != 0, "health",
			      health_json(&r->health, &b->ep->addr, port));
		json_object_set_new(o, "failures_in_a_row", json_integer((json_int_t)st.failures));
		/* Proxied requests sent to it (its counter slot: backend_stats.h). */
		sy_backend_stats_get(&r->backend_stats, b->ep->stat_slot, &ctr);
		json_object_set_new(o, "requests", json_integer((json_int_t)ctr.tr.requests));
		json_array_append_new(items, o);
	}
	return json_pack("{s:I, s:I, s:o}", "total", (json_int_t)bs->total_seen, "shown",
			 (json_int_t)bs->n, "items", items);
}

/* ------------------------------------------------------------- vhosts -- */

/* The first max vhosts of g by host name, into out (max+1 slots): a walk of
 * the table with a bounded sorted insertion, as sy_store_first does. */
static size_t
first_vhosts(const struct sy_generation *g, const struct sy_vhost **out, size_t max)
{
	const struct sy_vhost *vh;
	size_t i = 0, k = 0;

	while ((vh = sy_gen_next_vhost(g, &i)) != NULL) {
		size_t lo = 0, hi = k;

		if (k == max && strcmp(vh->host, out[k - 1]->host) >= 0)
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (strcmp(out[mid]->host, vh->host) < 0)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (k == max)
			k--;
		memmove(&out[lo + 1], &out[lo], (k - lo) * sizeof(*out));
		out[lo] = vh;
		k++;
	}
	return k;
}

static json_t *
rule_json(const struct sy_rule *rule, struct backends *bs)
{
	json_t *o, *svcs = json_array(), *eps = json_array();
	const struct sy_pool *p = rule->action == SY_ACTION_BACKEND ? rule->pool : NULL;
	uint32_t i;

	o = json_pack("{s:s, s:s, s:s, s:s, s:s}", "path", rule->path ? rule->path : "/", "match",
		      sy_match_names[rule->match], "kind", rule->kind ? rule->kind : "",
		      "object", rule->object ? rule->object : "", "action",
		      sy_rule_action_name(rule));
	if (o == NULL) {
		json_decref(svcs);
		json_decref(eps);
		return NULL;
	}
	if (rule->action != SY_ACTION_BACKEND)
		json_object_set_new(o, "status", json_integer(rule->status));
	for (i = 0; p != NULL && i < p->n_services; i++)
		json_array_append_new(svcs, json_pack("{s:s, s:s, s:I}", "namespace",
						      p->services[i].ns, "name", p->services[i].name,
						      "weight", (json_int_t)p->services[i].weight));
	for (i = 0; p != NULL && i < p->n_endpoints && i < SY_STATUS_MAX_ENDPOINTS; i++) {
		const struct backend *b = backend_note(bs, p, &p->endpoints[i]);

		if (b != NULL)
			json_array_append_new(eps, json_string(b->key));
	}
	json_object_set_new(o, "services", svcs);
	json_object_set_new(o, "endpoints", eps);
	json_object_set_new(o, "endpoints_total", json_integer(p ? p->n_endpoints : 0));
	return o;
}

static json_t *
vhosts_json(const struct sy_generation *g, struct backends *bs)
{
	static const char *const insecure[] = { "none", "allow", "redirect" };
	const struct sy_vhost **vhs;
	json_t *items = json_array();
	size_t n = 0, k;
	uint32_t j;

	vhs = calloc(SY_STATUS_MAX_VHOSTS + 1, sizeof(*vhs));
	if (g != NULL && vhs != NULL)
		n = first_vhosts(g, vhs, SY_STATUS_MAX_VHOSTS);
	for (k = 0; k < n; k++) {
		const struct sy_vhost *vh = vhs[k];
		json_t *rules = json_array();

		for (j = 0; j < vh->n_rules && j < SY_STATUS_MAX_RULES; j++) {
			json_t *rj = rule_json(&vh->rules[j], bs);

			if (rj != NULL)
				json_array_append_new(rules, rj);
		}
		json_array_append_new(
			items, json_pack("{s:s, s:s, s:s, s:s, s:I, s:o}", "host", vh->host, "mode",
					 vh->mode == SY_MODE_SPLICE ? "splice" : "proxy", "tls",
					 sy_tls_names[vh->tls], "insecure",
					 vh->tls == SY_TLS_NONE ? "allow" : insecure[vh->insecure],
					 "rules_total", (json_int_t)vh->n_rules, "rules", rules));
	}
	free(vhs);
	return json_pack("{s:I, s:I, s:o}", "total", (json_int_t)(g ? g->n_vhosts : 0), "shown",
			 (json_int_t)n, "items", items);
}

/* ------------------------------------------------------------- routes -- */

/* The hosts a route object asks for, as its dialect writes them (an
 * OpenShift route's status has its generated host). */
static json_t *
route_hosts(const struct sy_object *o)
{
	const json_t *spec = json_object_get(o->obj, "spec"), *h;
	json_t *hosts = json_array();
	const char *one = NULL;
	size_t i;

	if (o->kind == &sy_kind_route) {
		one = json_string_value(json_object_get(
			json_array_get(json_object_get(o->status, "ingress"), 0), "host"));
		if (one == NULL)
			one = json_string_value(json_object_get(spec, "host"));
	} else if (o->kind == &sy_kind_ingressroute_contour) {
		one = json_string_value(
			json_object_get(json_object_get(spec, "virtualhost"), "fqdn"));
	} else if (o->kind == &sy_kind_route_contour) {
		one = json_string_value(json_object_get(spec, "host"));
	} else if (o->kind == &sy_kind_routegroup) {
		json_array_foreach(json_object_get(spec, "hosts"), i, h)
			if (json_is_string(h))
				json_array_append(hosts, (json_t *)h);
	}
	if (one != NULL)
		json_array_append_new(hosts, json_string(one));
	return hosts;
}

static json_t *
routes_json(struct sy_router *r)
{
	json_t *items = json_array();
	size_t total = 0, k;

	for (k = 0; sy_route_kinds[k] != NULL; k++) {
		const struct sy_kind *kind = sy_route_kinds[k];
		size_t n = 0, all = 0, i;
		struct sy_object **objs =
			sy_store_first(&r->store, kind, SY_STATUS_MAX_ROUTES, &n, &all);

		total += all;
		for (i = 0; objs != NULL && i < n; i++) {
			const json_t *spec = json_object_get(objs[i]->obj, "spec");
			const char *path = json_string_value(json_object_get(spec, "path"));

			json_array_append_new(
				items, json_pack("{s:s, s:s, s:s, s:s, s:o, s:s?, s:s}", "kind",
						 kind->kind, "group", kind->group, "namespace",
						 objs[i]->ns, "name", objs[i]->name, "hosts",
						 route_hosts(objs[i]), "path", path, "state",
						 sy_route_state(objs[i])));
		}
		free(objs);
	}
	return json_pack("{s:I, s:I, s:o}", "total", (json_int_t)total, "shown",
			 (json_int_t)json_array_size(items), "items", items);
}

/* ------------------------------------------------------------ workers -- */

/* The counters the page shows, per worker and summed: the rest is in
 * `routerctl stats` and the metrics. */
#define STATUS_COUNTERS(X)                                                     \
	X(busy_cycles) X(idle_cycles) X(rx_packets) X(tx_packets) X(rx_bytes)     \
	X(tx_bytes) X(conns_opened) X(conns_spliced) X(conns_proxied)             \
	X(conns_answered) X(flows_active) X(proxy_requests) X(backend_retries)    \
	X(tls_handshakes) X(lb_ejections) X(hc_sent) X(hc_failed)

static json_t *
counters_json(const struct sy_worker_counters *c)
{
	json_t *o = json_object();

#define SY_X(name) json_object_set_new(o, #name, json_integer((json_int_t)c->name));
	STATUS_COUNTERS(SY_X)
#undef SY_X
	return o;
}

static json_t *
workers_json(struct sy_router *r, json_t **totals)
{
	unsigned nw = r->dataplane_up ? sy_dp_n_workers() : 0, i;
	struct sy_worker_counters snap, sum;
	json_t *list = json_array(), *drops = json_object(), *answers = json_object();
	uint64_t dropped = 0;
	int k;

	memset(&sum, 0, sizeof(sum));
	for (i = 0; i < nw; i++) {
		json_t *w;

		/* One copy per worker, read once (counters are single-writer). */
		memcpy(&snap, sy_dp_worker_counters(i), sizeof(snap));
#define SY_X(name) sum.name += snap.name;
		STATUS_COUNTERS(SY_X)
#undef SY_X
		for (k = 0; k < SY_DROP__COUNT; k++)
			sum.drops[k] += snap.drops[k];
		for (k = 0; k < SY_ANSWER__COUNT; k++)
			sum.answers[k] += snap.answers[k];
		w = counters_json(&snap);
		json_object_set_new(w, "worker", json_integer(i));
		json_array_append_new(list, w);
	}
	*totals = counters_json(&sum);
	/* Reasons with a count only: the page lists what happened. */
	for (k = 0; k < SY_DROP__COUNT; k++) {
		dropped += sum.drops[k];
		if (sum.drops[k] != 0)
			json_object_set_new(drops, sy_drop_reason_names[k],
					    json_integer((json_int_t)sum.drops[k]));
	}
	for (k = 0; k < SY_ANSWER__COUNT; k++)
		if (sum.answers[k] != 0)
			json_object_set_new(answers, sy_answer_reason_names[k],
					    json_integer((json_int_t)sum.answers[k]));
	json_object_set_new(*totals, "dropped", json_integer((json_int_t)dropped));
	json_object_set_new(*totals, "drops", drops);
	json_object_set_new(*totals, "answers", answers);
	return list;
}

static json_t *
health_summary_json(const struct sy_health *h)
{
	json_int_t n[3] = { 0, 0, 0 };
	size_t i;

	for (i = 0; i < h->n; i++)
		n[h->t[i]->state]++;
	return json_pack("{s:I, s:I, s:I, s:I, s:I}", "targets", (json_int_t)h->n, "healthy",
			 n[SY_HEALTH_HEALTHY], "unhealthy", n[SY_HEALTH_UNHEALTHY], "unknown",
			 n[SY_HEALTH_UNKNOWN], "transitions", (json_int_t)h->transitions);
}

char *
sy_status_page_json(struct sy_router *r, size_t *len)
{
	struct sy_generation *g = sy_gen_acquire(&r->slot);
	struct backends bs = { 0 };
	json_t *doc, *totals = NULL, *workers, *vhosts;
	char *text = NULL;

	bs.b = calloc(SY_STATUS_MAX_BACKENDS, sizeof(*bs.b));
	if (bs.b == NULL || sy_strmap_init(&bs.map, SY_STATUS_MAX_BACKENDS) < 0) {
		free(bs.b);
		return NULL;
	}
	vhosts = vhosts_json(g, &bs);
	workers = workers_json(r, &totals);
	doc = json_pack("{s:i, s:f, s:f, s:f, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o, s:o}",
			"version", 1, "now", now_realtime(), "monotonic", now_monotonic(), "tsc_hz",
			(double)rte_get_tsc_hz(), "router", router_json(r), "generation",
			generation_json(r, g), "objects", objects_json(r), "vhosts", vhosts, "routes",
			routes_json(r), "backends", backends_json(r, &bs), "workers", workers,
			"totals", totals, "health_checks", health_summary_json(&r->health));
	if (doc != NULL) {
		text = json_dumps(doc, JSON_COMPACT);
		json_decref(doc);
	}
	sy_strmap_fini(&bs.map);
	free(bs.b);
	if (text != NULL)
		*len = strlen(text);
	return text;
}
