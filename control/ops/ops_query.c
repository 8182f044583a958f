/* SPDX-License-Identifier: BSD-3-Clause */
/* Read-only ops: get, status, stats, and the dispatcher. */
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_cycles.h>

#include "observe/access_log.h"
#include "observe/backend_stats.h"
#include "observe/graph.h"
#include "observe/metrics.h"
#include "fleet/fleet.h"
#include "etcd/cache.h"
#include "etcd/sync.h"
#include "health.h"
#include "kinds/gateway_common.h"
#include "router.h"
#include "ops/stream_conn.h"
#include "tls/tls_cert.h"
#include "tls/tls_ocsp.h"
#include "sy_dataplane.h"
#include "sy_generation.h"

/*
 * Endpoints objects get what the workers know of each address and port
 * (load balancing: open and opened connections, passive health) as status.backends:
 * not stored, computed for each get.
 */
/* What the active checks say of ip:port (network order), or NULL when no
 * pool checks it. */
static json_t *
endpoint_health(const struct sy_health *h, const struct sy_addr *addr, uint16_t port)
{
	const struct sy_health_target *t = sy_health_find(h, addr, port);
	char last[32];

	if (t == NULL)
		return NULL;
	sy_health_last_text(t, last, sizeof(last));
	return json_pack("{s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:s}", "state",
			 sy_health_state_name(t->state), "path", t->path, "host", t->host,
			 "interval_ms", (json_int_t)t->interval_ms, "checks", (json_int_t)t->checks,
			 "failed", (json_int_t)t->failed, "in_a_row",
			 (json_int_t)(t->state == SY_HEALTH_UNHEALTHY ? t->fails : t->passes), "last",
			 last);
}

static void
endpoints_live(const struct sy_router *r, json_t *items)
{
	const json_t *item, *subset, *addr, *port;
	size_t i, j, k, l;

	json_array_foreach(items, i, item) {
		json_t *list = json_array();

		json_array_foreach(json_object_get(item, "subsets"), j, subset) {
			json_array_foreach(json_object_get(subset, "addresses"), k, addr) {
				struct sy_addr a;

				if (sy_addr_parse(json_string_value(json_object_get(addr, "ip")), &a) < 0)
					continue;
				json_array_foreach(json_object_get(subset, "ports"), l, port) {
					struct sy_dp_endpoint_state st;
					struct sy_backend_ctr ctr;
					json_int_t p = json_integer_value(json_object_get(port, "port"));
					json_t *be, *hj;

					if (p < 1 || p > 65535)
						continue;
					sy_dp_endpoint_state(sy_addr_key32(&a), htons((uint16_t)p), &st);
					be = json_pack("{s:O, s:I, s:I, s:I, s:b, s:I, s:I}", "ip",
						       json_object_get(addr, "ip"), "port", p,
						       "open_connections", (json_int_t)st.open_connections,
						       "connections", (json_int_t)st.connections,
						       "ejected", st.ejected_workers > 0, "ejected_workers",
						       (json_int_t)st.ejected_workers, "failures_in_a_row",
						       (json_int_t)st.failures);
					/* Proxied requests sent to it (backend_stats.h). */
					sy_backend_stats_of(&r->backend_stats, &a, (uint16_t)p, &ctr);
					json_object_set_new(be, "requests", json_integer((json_int_t)ctr.tr.requests));
					hj = endpoint_health(&r->health, &a, htons((uint16_t)p));
					if (be != NULL && hj != NULL)
						json_object_set_new(be, "health", hj);
					json_array_append_new(list, be);
				}
			}
		}
		if (!json_is_object(json_object_get(item, "status")))
			json_object_set_new((json_t *)item, "status", json_object());
		json_object_set_new(json_object_get(item, "status"), "backends", list);
	}
}

/*
 * Router objects get status.routes: how many routes are bound to each (the
 * admin's view of the shards; `routerctl describe router` lists them).
 * Computed for each get, never stored.
 */
static void
routers_live(struct sy_router *r, json_t *items)
{
	size_t nb, i, j;
	struct sy_object **b = sy_store_list(&r->store, &sy_kind_routebinding, NULL, &nb);
	const json_t *item;

	json_array_foreach(items, i, item) {
		const char *name = json_string_value(
			json_object_get(json_object_get(item, "metadata"), "name"));
		json_int_t k = 0;

		for (j = 0; b != NULL && name != NULL && j < nb; j++) {
			const char *rn = json_string_value(
				json_object_get(json_object_get(b[j]->obj, "spec"), "routerName"));

			k += rn != NULL && strcmp(rn, name) == 0;
		}
		json_object_set_new((json_t *)item, "status", json_pack("{s:I}", "routes", k));
	}
	free(b);
}

json_t *
sy_ops_get(struct sy_router *r, const json_t *req)
{
	json_t *reply = NULL;
	const struct sy_kind *kind = sy_ops_request_kind(req, &reply);
	const char *ns = json_string_value(json_object_get(req, "namespace"));
	const char *name = json_string_value(json_object_get(req, "name"));
	struct sy_object **objs;
	json_t *items;
	size_t n, i;

	if (kind == NULL)
		return reply;
	items = json_array();
	if (kind->cluster_scoped)
		ns = name != NULL ? "" : NULL;
	if (name != NULL) {
		struct sy_object *o = sy_store_find(&r->store, kind, ns ? ns : "default", name);

		if (o == NULL) {
			json_decref(items);
			return sy_err_reply1("not_found", NULL, "name",
					     "%s \"%s\" not found in namespace \"%s\"", kind->kind, name,
					     ns ? ns : "default");
		}
		json_array_append_new(items, sy_object_view(o));
	} else {
		objs = sy_store_list(&r->store, kind, ns, &n);
		for (i = 0; i < n; i++)
			json_array_append_new(items, sy_object_view(objs[i]));
		free(objs);
	}
	if (kind == &sy_kind_endpoints)
		endpoints_live(r, items);
	if (kind == &sy_kind_router)
		routers_live(r, items);
	if (kind == &sy_kind_gateway) {
		/* status.listeners[].attachedRoutes: counted now, never stored */
		struct sy_compile_opts opts;
		char now[32];

		sy_router_compile_opts(r, &opts, now);
		sy_gw_status_live(&r->store, &opts, items);
	}
	return json_pack("{s:b, s:s, s:o}", "ok", 1, "kind", kind->kind, "items", items);
}

json_t *
sy_ops_status(struct sy_router *r, const json_t *req)
{
	const struct sy_kind *const *k;
	json_t *counts = json_object();
	struct sy_generation *g = sy_gen_acquire(&r->slot);

	for (k = sy_kinds; *k; k++) {
		const struct sy_kind *const *e;
		char key[128];

		/* Two kinds may share a name (OpenShift's and Contour's Route):
		 * the first registered keeps it, later ones add their group. */
		snprintf(key, sizeof(key), "%s", (*k)->kind);
		for (e = sy_kinds; e != k; e++)
			if (strcmp((*e)->kind, (*k)->kind) == 0)
				snprintf(key, sizeof(key), "%s.%s", (*k)->kind, (*k)->group);
		json_object_set_new(counts, key,
				    json_integer((json_int_t)sy_store_count(&r->store, *k)));
	}
	const struct sy_tls_default *d = sy_tls_default();
	json_t *reply, *tls;

	/* The default certificate: what a client without a known SNI gets. */
	tls = d == NULL ? json_null()
			: json_pack("{s:{s:s, s:s, s:s, s:s, s:b}, s:I}", "default_certificate",
				    "subject", d->subject, "not_after", d->not_after, "sha256",
				    d->sha256, "path", d->path, "generated", d->generated,
				    "contexts", (json_int_t)sy_tls_ctx_cached());
	reply = json_pack("{s:b, s:I, s:I, s:I, s:o, s:I, s:s, s:I, s:b, s:{s:b, s:I, s:f}}", "ok", 1,
			 "generation", (json_int_t)r->gen_id, "vhosts",
			 (json_int_t)(g ? g->n_vhosts : 0), "generation_bytes",
			 (json_int_t)(g ? g->bytes : 0), "objects", counts, "uptime_s",
			 (json_int_t)(time(NULL) - r->started), "router_name", r->cfg.router_name,
			 "retired_generations", (json_int_t)r->slot.n_retired, "dataplane",
			 r->dataplane_up, "last_compile", "incremental", r->last_compile_incremental,
			 "objects", (json_int_t)r->last_compile_objects, "ms", r->last_compile_ms);
	if (tls != NULL && json_is_object(tls))
		json_object_set_new(tls, "ocsp", sy_ocsp_status());
	if (reply != NULL)
		json_object_set_new(reply, "tls", tls);
	else
		json_decref(tls);
	/* A graceful drain on its way out (control/main.c). */
	if (reply != NULL && r->draining) {
		uint64_t now = sy_mono_ms();

		json_object_set_new(
			reply, "drain",
			json_pack("{s:f, s:f, s:I}", "seconds", (double)(now - r->drain_since_ms) / 1000.0,
				  "seconds_left",
				  now < r->drain_until_ms ? (double)(r->drain_until_ms - now) / 1000.0 : 0.0,
				  "connections", (json_int_t)r->drain_conns));
	}
	/* Where objects live: the journal, or etcd (control/etcd/sync.h). */
	if (reply != NULL)
		json_object_set_new(reply, "store", r->etcd ? sy_etcd_sync_status(r)
				    : json_pack("{s:s, s:s}", "kind", "journal", "path", r->journal.path));
	if (reply != NULL && r->etcd != NULL)
		json_object_set_new(json_object_get(reply, "store"), "cache", sy_etcd_cache_status(r));
	/* Fleet mode and the scheduler's last pass (control/fleet/fleet.h). */
	if (reply != NULL)
		json_object_set_new(
			reply, "fleet",
			json_pack("{s:b, s:I, s:s, s:o}", "active", r->fleet_routers > 0, "routers",
				  (json_int_t)r->fleet_routers, "router_dns", r->fleet_dns,
				  "scheduler",
				  r->sched.strategy == NULL
					  ? json_null()
					  : json_pack("{s:s, s:I, s:I, s:I}", "strategy",
						      r->sched.strategy->name, "bound",
						      (json_int_t)r->sched.last_bound, "unscheduled",
						      (json_int_t)r->sched.last_unscheduled, "removed",
						      (json_int_t)r->sched.last_removed)));
	if (reply != NULL)
		json_object_set_new(reply, "vrrp", sy_fleet_vips_status(r)); /* fleet/vips.c */
	return reply;
}

static json_t *
counters_json(const struct sy_worker_counters *c)
{
	json_t *drops = json_object(), *answers = json_object();
	json_t *o = json_object();
	int i;

#define SY_X(name) json_object_set_new(o, #name, json_integer((json_int_t)c->name));
	SY_COUNTER_FIELDS(SY_X)
#undef SY_X
	for (i = 0; i < SY_DROP__COUNT; i++)
		json_object_set_new(drops, sy_drop_reason_names[i], json_integer((json_int_t)c->drops[i]));
	json_object_set_new(o, "drops", drops);
	for (i = 0; i < SY_ANSWER__COUNT; i++)
		json_object_set_new(answers, sy_answer_reason_names[i],
				    json_integer((json_int_t)c->answers[i]));
	json_object_set_new(o, "answers", answers);
	return o;
}

/* Sum the workers' counters. Each is written by one worker only; reading
 * while it runs gives each counter's value at some recent instant. */
static void
add_counters(struct sy_worker_counters *sum, const struct sy_worker_counters *c)
{
	int i;

#define SY_X(name) sum->name += c->name;
	SY_COUNTER_FIELDS(SY_X)
#undef SY_X
	for (i = 0; i < SY_DROP__COUNT; i++)
		sum->drops[i] += c->drops[i];
	for (i = 0; i < SY_ANSWER__COUNT; i++)
		sum->answers[i] += c->answers[i];
}

/* Active health checks (health.h): targets by state, checks and state
 * changes since start. */
static json_t *
health_summary(const struct sy_health *h)
{
	json_int_t n[3] = { 0, 0, 0 }, checks = 0, failed = 0;
	size_t i;

	for (i = 0; i < h->n; i++) {
		n[h->t[i]->state]++;
		checks += (json_int_t)h->t[i]->checks;
		failed += (json_int_t)h->t[i]->failed;
	}
	return json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I}", "targets", (json_int_t)h->n,
			 "healthy", n[SY_HEALTH_HEALTHY], "unhealthy", n[SY_HEALTH_UNHEALTHY],
			 "unknown", n[SY_HEALTH_UNKNOWN], "checks", checks, "failed", failed,
			 "transitions", (json_int_t)h->transitions);
}

/* A server of the control thread's (stream_conn.h); null when it is not
 * serving (no metrics address; a unit test's router). */
static json_t *
conns_json(const struct sy_conn_stats *st)
{
	return st != NULL ? sy_conn_stats_json(st) : json_null();
}

json_t *
sy_ops_stats(struct sy_router *r, const json_t *req)
{
	struct sy_worker_counters sum, snap;
	struct sy_dp_mbufs mb;
	json_t *workers = json_array(), *ports = json_array();
	struct sy_generation *g = sy_gen_acquire(&r->slot);
	uint64_t alog_written, alog_dropped;
	size_t alog_pending;
	unsigned i;

	memset(&sum, 0, sizeof(sum));
	for (i = 0; r->dataplane_up && i < sy_dp_n_workers(); i++) {
		json_t *w;

		memcpy(&snap, sy_dp_worker_counters(i), sizeof(snap));
		add_counters(&sum, &snap);
		w = counters_json(&snap);
		json_object_set_new(w, "worker", json_integer(i));
		json_array_append_new(workers, w);
	}
	for (i = 0; r->dataplane_up && i < sy_dp_n_ports(); i++) {
		struct sy_port_info pi;
		char mac[18];
		json_t *port;

		if (sy_dp_port_info(i, &pi) < 0)
			continue;
		snprintf(mac, sizeof(mac), "%02x:%02x:%02x:%02x:%02x:%02x", pi.mac[0], pi.mac[1],
			 pi.mac[2], pi.mac[3], pi.mac[4], pi.mac[5]);
		port = json_pack("{s:s, s:i, s:s, s:i, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
						"name", pi.name, "port_id", pi.port_id, "mac", mac,
						"mtu", pi.mtu, "ipackets", (json_int_t)pi.ipackets,
						"opackets", (json_int_t)pi.opackets, "ibytes",
						(json_int_t)pi.ibytes, "obytes", (json_int_t)pi.obytes,
						"imissed", (json_int_t)pi.imissed, "ierrors",
						(json_int_t)pi.ierrors, "oerrors", (json_int_t)pi.oerrors,
						"rx_nombuf", (json_int_t)pi.rx_nombuf);
		/* The kernel's own drops of an af_xdp port (xsk_stats.h): a full
		 * RX ring is a drop the driver never reports. */
		if (port != NULL && pi.af_xdp)
			json_object_set_new(
				port, "af_xdp",
				json_pack("{s:i, s:I, s:I, s:I, s:I, s:I, s:I}", "sockets",
					  (int)pi.xsk.sockets, "rx_ring_full",
					  (json_int_t)pi.xsk.rx_ring_full, "rx_dropped",
					  (json_int_t)pi.xsk.rx_dropped, "rx_invalid_descs",
					  (json_int_t)pi.xsk.rx_invalid, "tx_invalid_descs",
					  (json_int_t)pi.xsk.tx_invalid, "fill_ring_empty",
					  (json_int_t)pi.xsk.fill_empty, "tx_ring_empty",
					  (json_int_t)pi.xsk.tx_ring_empty));
		json_array_append_new(ports, port);
	}
	if (!r->dataplane_up || sy_dp_mbufs(&mb) < 0)
		memset(&mb, 0, sizeof(mb));
	sy_alog_counts(&alog_written, &alog_dropped, &alog_pending);
	/* tsc_hz: the rate the *_cycles counters tick at, so that a reader
	 * turns them into time without guessing it from a wall clock. */
	return json_pack("{s:b, s:I, s:I, s:I, s:o, s:o, s:o, s:{s:I, s:I, s:I}, s:o, s:{s:o, s:o}, "
			 "s:{s:b, s:I, s:I, s:I}}", "ok", 1,
			 "generation", (json_int_t)r->gen_id, "generation_bytes",
			 (json_int_t)(g ? g->bytes : 0), "tsc_hz", (json_int_t)rte_get_tsc_hz(),
			 "workers", workers, "total",
			 counters_json(&sum), "ports", ports, "mbufs", "total", (json_int_t)mb.total,
			 "in_use", (json_int_t)mb.in_use, "quarantined", (json_int_t)mb.quarantined,
			 "health_checks", health_summary(&r->health), "control_servers",
			 "control_socket", conns_json(r->control_conns), "metrics",
			 conns_json(r->metrics_conns), "access_log", "on", sy_alog_enabled(),
			 "lines_written", (json_int_t)alog_written, "lines_dropped",
			 (json_int_t)alog_dropped, "pending_bytes", (json_int_t)alog_pending);
}

/* A reply carrying one text the router made (takes it); NULL: out of memory. */
static json_t *
text_reply(const char *key, char *text, size_t len)
{
	json_t *reply;

	if (text == NULL)
		return sy_err_reply1("internal", NULL, NULL, "out of memory");
	reply = json_pack("{s:b, s:s%}", "ok", 1, key, text, len);
	free(text);
	return reply;
}

/* The Prometheus exposition (observe/metrics.h). */
json_t *
sy_ops_metrics(struct sy_router *r, const json_t *req)
{
	size_t len = 0;
	char *text = sy_metrics_text(r, &len);

	return text_reply("text", text, len);
}

/* The configuration as DOT (observe/graph.h). */
json_t *
sy_ops_graph(struct sy_router *r, const json_t *req)
{
	size_t len = 0;
	char *dot = sy_graph_dot(r, &len);

	return text_reply("dot", dot, len);
}

json_t *
sy_ops_routes_traffic(struct sy_router *r, const json_t *req)
{
	(void)req;
	return json_pack("{s:b, s:I, s:o}", "ok", 1, "generation", (json_int_t)r->gen_id, "routes",
			 sy_route_stats_json(&r->route_stats));
}

/* "ADDR:PORT", or null for a leg the record does not have. */
static json_t *
endpoint_json(uint32_t ip, uint16_t port)
{
	char a[INET_ADDRSTRLEN];
	uint32_t be = htonl(ip);

	if (ip == 0 && port == 0)
		return json_null();
	inet_ntop(AF_INET, &be, a, sizeof(a));
	return json_sprintf("%s:%u", a, (unsigned)port);
}

/* "[ADDR]:PORT" of an IPv6 leg (RFC 5952 text, RFC 3986 brackets). */
static json_t *
endpoint6_json(const uint8_t ip[16], uint16_t port)
{
	struct sy_addr a = sy_addr_v6(ip);
	char buf[SY_ADDR_PORT_STRLEN];

	return json_string(sy_addr_port_format(&a, port, buf, sizeof(buf)));
}

#define SY_CONNS_LIMIT_DEFAULT 1000
#define SY_CONNS_LIMIT_MAX 1000000

/* The workers' live connection records (observe/conn_list.h), at most
 * "limit" (default SY_CONNS_LIMIT_DEFAULT) in all; "truncated" when the
 * limit stopped the list short of the records the workers count. */
json_t *
sy_ops_conns(struct sy_router *r, const json_t *req)
{
	const json_t *lim = json_object_get(req, "limit");
	json_int_t limit = SY_CONNS_LIMIT_DEFAULT;
	struct sy_dp_conn *v;
	json_t *list;
	unsigned w, i, n, total = 0, live = 0;

	if (lim != NULL) {
		if (!json_is_integer(lim) || json_integer_value(lim) < 1 ||
		    json_integer_value(lim) > SY_CONNS_LIMIT_MAX)
			return sy_err_reply1("bad_request", NULL, "limit",
					     "\"limit\" must be an integer from 1 to %d", SY_CONNS_LIMIT_MAX);
		limit = json_integer_value(lim);
	}
	v = calloc((size_t)limit, sizeof(*v));
	list = json_array();
	if (v == NULL || list == NULL) {
		free(v);
		json_decref(list);
		return sy_err_reply1("internal", NULL, NULL, "out of memory");
	}
	for (w = 0; r->dataplane_up && w < sy_dp_n_workers(); w++) {
		const struct sy_worker_counters *c = sy_dp_worker_counters(w);

		live += (unsigned)c->flows_active;
		n = sy_dp_conns(w, v, (unsigned)limit - total);
		for (i = 0; i < n; i++)
			json_array_append_new(list, json_pack(
				"{s:I, s:s, s:o, s:o, s:o, s:o, s:s, s:s, s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I, s:I, s:I}",
				"worker", (json_int_t)w, "kind", v[i].kind,
				"client", v[i].v6 ? endpoint6_json(v[i].client6, v[i].client_port)
						  : endpoint_json(v[i].client_ip, v[i].client_port),
				"listen", v[i].v6 ? endpoint6_json(v[i].listen6, v[i].listen_port)
						  : endpoint_json(v[i].listen_ip, v[i].listen_port),
				"backend", v[i].backend_v6 ? endpoint6_json(v[i].backend6, v[i].backend_port)
						   : endpoint_json(v[i].backend_ip, v[i].backend_port),
				"source", v[i].backend_v6 ? endpoint6_json(v[i].snat6, v[i].snat_port)
						  : endpoint_json(v[i].snat_ip, v[i].snat_port),
				"client_tcp", v[i].client_tcp, "backend_tcp", v[i].backend_tcp,
				"request", v[i].request, "response", v[i].response, "tls", v[i].tls,
				"protocol", v[i].protocol ? v[i].protocol : "",
				"requests", (json_int_t)v[i].requests, "streams", (json_int_t)v[i].streams,
				"unacked", (json_int_t)v[i].unacked,
				"queued", (json_int_t)v[i].queued, "timer_ms", (json_int_t)v[i].timer_ms,
				"deadline_ms", (json_int_t)v[i].deadline_ms));
		total += n;
	}
	free(v);
	return json_pack("{s:b, s:I, s:b, s:o}", "ok", 1, "flows_active", (json_int_t)live,
			 "truncated", total >= (unsigned)limit && live > total, "conns", list);
}

json_t *
sy_ops_handle(struct sy_router *r, const json_t *req)
{
	static const struct {
		const char *op;
		json_t *(*fn)(struct sy_router *, const json_t *);
	} ops[] = {
		{ "apply", sy_ops_apply },   { "delete", sy_ops_delete }, { "get", sy_ops_get },
		{ "resolve", sy_ops_resolve }, { "stats", sy_ops_stats }, { "status", sy_ops_status },
		{ "metrics", sy_ops_metrics }, { "graph", sy_ops_graph },
		{ "dns-zone", sy_ops_dns_zone }, { "routes-traffic", sy_ops_routes_traffic },
		{ "conns", sy_ops_conns },
	};
	const char *op;
	size_t i;

	if (!json_is_object(req))
		return sy_err_reply1("bad_request", NULL, NULL, "a request must be a JSON object");
	op = json_string_value(json_object_get(req, "op"));
	if (op == NULL)
		return sy_err_reply1("bad_request", NULL, "op", "\"op\" is required (a string)");
	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (strcmp(op, ops[i].op) == 0) {
			json_t *reply = ops[i].fn(r, req);

			/* The route scheduler follows every change that took
			 * (control/fleet/scheduler.h); its bindings are a
			 * generation of their own after the one the reply names. */
			if (r->sched.strategy != NULL && json_is_true(json_object_get(reply, "ok")) &&
			    (strcmp(op, "apply") == 0 || strcmp(op, "delete") == 0))
				sy_scheduler_run(r);
			/* Objects rest as text between requests (store.h); the
			 * reply holds its own references. */
			sy_store_cool(&r->store);
			return reply;
		}
	return sy_err_reply1("unknown_op", NULL, "op",
			     "unknown op \"%s\" (known: apply, delete, get, resolve, stats, status, metrics, "
			     "graph, dns-zone, routes-traffic, conns)",
			     op);
}
