/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fleet of routers (control/fleet/): the scheduling strategies over
 * scripted routers; the scheduler's binding rules (explicit selector
 * matches without the strategy, overlapping shards, the strategy for the
 * rest, retry once a Router appears, tidying stale bindings); who serves
 * what; Route status.phase / status.dns and the apply rules that guard
 * them; Router and RouteBinding validation (spec.vips of both families); the
 * zone file's text (A and AAAA records); the data plane's zone table. Every
 * incremental compile is checked against a full one (SY_COMPILE_VERIFY).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <cmocka.h>

#include "gen/compile.h"
#include "fleet/fleet.h"
#include "fleet/scheduler.h"
#include "router.h"
#include "sy_dns.h"
#include "sy_vrrp.h"
#include "test_eal.h"
#include "test_router.h"

#define T_ROUTER(name, dns, extra) \
	"{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Router\",\"metadata\":{\"name\":\"" name "\"}," \
	"\"spec\":{\"dns\":\"" dns "\"" extra "}}"
#define T_ROUTE_L(ns, name, host, labels) \
	"{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"" name "\"," \
	"\"namespace\":\"" ns "\",\"labels\":{" labels "}},\"spec\":{\"host\":\"" host "\"," \
	"\"to\":{\"kind\":\"Service\",\"name\":\"a\"}}}"
#define T_NS(name, labels) \
	"{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"" name "\",\"labels\":{" labels "}}}"
#define T_BINDING(ns, name, route, router, dns) \
	"{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"RouteBinding\",\"metadata\":{\"name\":\"" name "\"," \
	"\"namespace\":\"" ns "\"},\"spec\":{\"routeNamespace\":\"" ns "\",\"routeName\":\"" route "\"," \
	"\"routerName\":\"" router "\",\"dns\":\"" dns "\"}}"

#define CFG_SCHED(strategy) \
	"{\"routing_subdomain\":\"apps.test\",\"router_name\":\"shard1\",\"scheduler\":true," \
	"\"scheduler_strategy\":\"" strategy "\"}"

/* "router1,router2" of the bindings of route ns/name (sorted), into buf. */
static const char *
bound_to(struct sy_router *r, const char *ns, const char *name, char *buf, size_t len)
{
	char req[256];
	json_t *rep, *b;
	size_t i;

	snprintf(req, sizeof(req), "{\"op\":\"get\",\"kind\":\"routebindings\",\"namespace\":\"%s\"}", ns);
	rep = ops_call(r, req);
	assert_true(reply_ok(rep));
	buf[0] = '\0';
	json_array_foreach(json_object_get(rep, "items"), i, b) {
		const json_t *spec = json_object_get(b, "spec");

		if (strcmp(json_string_value(json_object_get(spec, "routeName")), name) != 0)
			continue;
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", buf[0] ? "," : "",
			 json_string_value(json_object_get(spec, "routerName")));
	}
	json_decref(rep);
	return buf;
}

/* status.<field> of Route ns/name ("" when absent). */
static const char *
route_status(struct sy_router *r, const char *ns, const char *name, const char *field, char *buf,
	     size_t len)
{
	char req[256];
	json_t *rep;
	const json_t *v;

	snprintf(req, sizeof(req),
		 "{\"op\":\"get\",\"kind\":\"route\",\"namespace\":\"%s\",\"name\":\"%s\"}", ns, name);
	rep = ops_call(r, req);
	assert_true(reply_ok(rep));
	v = json_object_get(json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status"),
			    field);
	snprintf(buf, len, "%s", json_is_string(v) ? json_string_value(v) : "");
	json_decref(rep);
	return buf;
}

static json_t *
apply(struct sy_router *r, const char *objects)
{
	char *req = NULL;
	json_t *rep;

	assert_true(asprintf(&req, "{\"op\":\"apply\",\"objects\":[%s]}", objects) > 0);
	rep = ops_call(r, req);
	free(req);
	return rep;
}

/* ------------------------------------------------------ strategies -- */

static void
test_round_robin(void **state)
{
	struct sy_sched_candidate c[3] = { { "a", "a.test", 9 }, { "b", "b.test", 0 },
					   { "c", "c.test", 0 } };
	struct sy_sched_route route = { "ns", "r", NULL };
	uint64_t st[4] = { 0 };
	int i;

	/* In turn, whatever the load, and on across calls. */
	for (i = 0; i < 7; i++)
		assert_int_equal(sy_sched_round_robin.pick(st, &route, c, 3), i % 3);
	/* Fewer candidates next pass: still one of them. */
	assert_int_equal(sy_sched_round_robin.pick(st, &route, c, 2), 7 % 2);
	assert_int_equal(sy_sched_round_robin.pick(st, &route, c, 0), -1);
	assert_ptr_equal(sy_sched_strategy_by_name("round-robin"), &sy_sched_round_robin);
	assert_ptr_equal(sy_sched_strategy_by_name("least-loaded"), &sy_sched_least_loaded);
	assert_null(sy_sched_strategy_by_name("random"));
}

static void
test_least_loaded(void **state)
{
	struct sy_sched_candidate c[3] = { { "a", "a.test", 5 }, { "b", "b.test", 2 },
					   { "c", "c.test", 2 } };
	struct sy_sched_route route = { "ns", "r", NULL };
	uint64_t st[4] = { 0 };
	int i, k;

	/* The fewest; the first by name on a tie. */
	assert_int_equal(sy_sched_least_loaded.pick(st, &route, c, 3), 1);
	/* Scripted: the caller counts each binding; loads even out. */
	for (i = 0; i < 7; i++) {
		k = sy_sched_least_loaded.pick(st, &route, c, 3);
		c[k].load++;
	}
	assert_int_equal(c[0].load, 6);
	assert_int_equal(c[1].load, 5);
	assert_int_equal(c[2].load, 5);
	assert_int_equal(sy_sched_least_loaded.pick(st, &route, c, 0), -1);
}

/* ----------------------------------------------------- the scheduler -- */

static void
test_explicit_and_strategy(void **state)
{
	struct sy_router r;
	char buf[256];

	router_start_with(&r, CFG_SCHED("round-robin"));
	ops_apply_ok(&r, T_SVC("web", "a") "," T_EPS("web", "a", "198.18.1.10"));
	ops_apply_ok(&r, T_ROUTER("shard1", "shard1.apps.example.test",
				  ",\"routeSelector\":{\"matchLabels\":{\"tier\":\"public\"}}") ","
		     T_ROUTER("general-a", "a.apps.example.test", "") ","
		     T_ROUTER("general-b", "b.apps.example.test", ""));
	/* Explicit: shard1's selector matches; no strategy, no other shard. */
	ops_apply_ok(&r, T_ROUTE_L("web", "pub", "", "\"tier\":\"public\""));
	assert_string_equal(bound_to(&r, "web", "pub", buf, sizeof(buf)), "shard1");
	assert_string_equal(route_status(&r, "web", "pub", "phase", buf, sizeof(buf)), "scheduled");
	assert_string_equal(route_status(&r, "web", "pub", "dns", buf, sizeof(buf)),
			    "pub-web.shard1.apps.example.test");
	/* The rest: the strategy, over the shards without selectors, in turn. */
	ops_apply_ok(&r, T_ROUTE_L("web", "x1", "", "\"tier\":\"internal\""));
	ops_apply_ok(&r, T_ROUTE_L("web", "x2", "", ""));
	ops_apply_ok(&r, T_ROUTE_L("web", "x3", "", ""));
	assert_string_equal(bound_to(&r, "web", "x1", buf, sizeof(buf)), "general-a");
	assert_string_equal(bound_to(&r, "web", "x2", buf, sizeof(buf)), "general-b");
	assert_string_equal(bound_to(&r, "web", "x3", buf, sizeof(buf)), "general-a");
	assert_string_equal(route_status(&r, "web", "x2", "dns", buf, sizeof(buf)),
			    "x2-web.b.apps.example.test");
	/* Who serves what: this routerd is shard1, so only pub; its host is
	 * under shard1's DNS, not routing_subdomain. */
	assert_string_equal(ops_resolve_object(&r, "http://pub-web.shard1.apps.example.test/", buf,
					       sizeof(buf)), "web/pub");
	assert_string_equal(ops_resolve_object(&r, "http://x1-web.a.apps.example.test/", buf,
					       sizeof(buf)), "(none)");
	assert_string_equal(ops_resolve_object(&r, "http://x1-web.apps.test/", buf, sizeof(buf)),
			    "(none)");
	/* Not served here: no ingress status from this router, but the
	 * fleet's phase and DNS. */
	assert_string_equal(route_status(&r, "web", "x1", "phase", buf, sizeof(buf)), "scheduled");
	/* A pass with nothing to do does nothing. */
	assert_int_equal(sy_scheduler_run(&r), 0);
	router_stop(&r);
}

static void
test_overlapping_shards(void **state)
{
	struct sy_router r;
	char buf[256];
	json_t *rep;

	router_start_with(&r, CFG_SCHED("round-robin"));
	ops_apply_ok(&r, T_NS("web", "\"team\":\"web\"") "," T_NS("ops", "\"team\":\"ops\""));
	ops_apply_ok(&r, T_ROUTER("shard1", "shard1.apps.example.test",
				  ",\"routeSelector\":{\"matchLabels\":{\"tier\":\"public\"}}") ","
		     T_ROUTER("teamweb", "web.apps.example.test",
			      ",\"namespaceSelector\":{\"matchExpressions\":[{\"key\":\"team\","
			      "\"operator\":\"In\",\"values\":[\"web\",\"shop\"]}]}") ","
		     T_ROUTER("both", "both.apps.example.test",
			      ",\"routeSelector\":\"tier=public\",\"namespaceSelector\":\"team=ops\""));
	ops_apply_ok(&r, T_ROUTE_L("web", "pub", "www.example.test", "\"tier\":\"public\"") ","
		     T_ROUTE_L("ops", "pub", "ops.example.test", "\"tier\":\"public\"") ","
		     T_ROUTE_L("ops", "priv", "", ""));
	/* In two shards at once; both selectors of "both" must hold. */
	assert_string_equal(bound_to(&r, "web", "pub", buf, sizeof(buf)), "shard1,teamweb");
	assert_string_equal(bound_to(&r, "ops", "pub", buf, sizeof(buf)), "both,shard1");
	/* A custom host is its own DNS name, in every shard. */
	assert_string_equal(route_status(&r, "web", "pub", "dns", buf, sizeof(buf)),
			    "www.example.test");
	/* No shard matches and none takes the rest: unscheduled, "new", no dns. */
	assert_string_equal(bound_to(&r, "ops", "priv", buf, sizeof(buf)), "");
	assert_string_equal(route_status(&r, "ops", "priv", "phase", buf, sizeof(buf)), "new");
	assert_string_equal(route_status(&r, "ops", "priv", "dns", buf, sizeof(buf)), "");
	/* Router status.routes: the admin's count per shard. */
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"routers\"}");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(
				 json_array_get(json_object_get(rep, "items"), 1), "status"), "routes")),
			 2); /* shard1 */
	json_decref(rep);
	/* A namespace relabelled into teamweb's selector: bound there too. */
	ops_apply_ok(&r, T_NS("ops", "\"team\":\"shop\""));
	assert_string_equal(bound_to(&r, "ops", "priv", buf, sizeof(buf)), "teamweb");
	assert_string_equal(route_status(&r, "ops", "priv", "dns", buf, sizeof(buf)),
			    "priv-ops.web.apps.example.test");
	router_stop(&r);
}

static void
test_retry_when_router_appears(void **state)
{
	struct sy_router r;
	char buf[256];

	router_start_with(&r, CFG_SCHED("least-loaded"));
	/* No Router: no fleet, today's behaviour (served by the config). */
	ops_apply_ok(&r, T_SVC("web", "a") "," T_EPS("web", "a", "198.18.1.10") ","
		     T_ROUTE_L("web", "r1", "", ""));
	assert_string_equal(ops_resolve_object(&r, "http://r1-web.apps.test/", buf, sizeof(buf)),
			    "web/r1");
	assert_string_equal(route_status(&r, "web", "r1", "phase", buf, sizeof(buf)), "");
	/* A Router that takes nothing: a fleet now; r1 is "new" and not served. */
	ops_apply_ok(&r, T_ROUTER("shard1", "shard1.apps.example.test",
				  ",\"routeSelector\":{\"matchLabels\":{\"tier\":\"public\"}}"));
	assert_string_equal(route_status(&r, "web", "r1", "phase", buf, sizeof(buf)), "new");
	assert_string_equal(ops_resolve_object(&r, "http://r1-web.apps.test/", buf, sizeof(buf)),
			    "(none)");
	assert_int_equal(sy_scheduler_run(&r), 0); /* the periodic retry: still nowhere */
	assert_int_equal(r.sched.last_unscheduled, 1);
	/* The shard's selector widened: the next pass binds r1 there. */
	ops_apply_ok(&r, T_ROUTER("shard1", "shard1.apps.example.test",
				  ",\"routeSelector\":{}"));
	assert_string_equal(bound_to(&r, "web", "r1", buf, sizeof(buf)), "shard1");
	assert_string_equal(ops_resolve_object(&r, "http://r1-web.shard1.apps.example.test/", buf,
					       sizeof(buf)), "web/r1");
	router_stop(&r);
}

static void
test_least_loaded_scheduler(void **state)
{
	struct sy_router r;
	char buf[256];

	router_start_with(&r, CFG_SCHED("least-loaded"));
	ops_apply_ok(&r, T_ROUTER("ga", "ga.apps.example.test", "") ","
		     T_ROUTER("gb", "gb.apps.example.test", ""));
	/* ga's first route came first; then one at a time. */
	ops_apply_ok(&r, T_ROUTE_L("web", "r0", "", ""));
	assert_string_equal(bound_to(&r, "web", "r0", buf, sizeof(buf)), "ga");
	ops_apply_ok(&r, T_ROUTE_L("web", "r1", "", ""));
	assert_string_equal(bound_to(&r, "web", "r1", buf, sizeof(buf)), "gb");
	/* An admin's own binding counts as load: gb has two now. */
	ops_apply_ok(&r, T_ROUTE_L("web", "r2", "", "") "," T_BINDING("web", "pin", "r2", "gb",
								       "gb.apps.example.test"));
	ops_apply_ok(&r, T_ROUTE_L("web", "r3", "", ""));
	assert_string_equal(bound_to(&r, "web", "r2", buf, sizeof(buf)), "gb");
	assert_string_equal(bound_to(&r, "web", "r3", buf, sizeof(buf)), "ga");
	ops_apply_ok(&r, T_ROUTE_L("web", "r4", "", "") "," T_ROUTE_L("web", "r5", "", ""));
	assert_string_equal(bound_to(&r, "web", "r4", buf, sizeof(buf)), "ga");
	assert_string_equal(bound_to(&r, "web", "r5", buf, sizeof(buf)), "gb");
	router_stop(&r);
}

static void
test_tidy(void **state)
{
	struct sy_router r;
	char buf[256];
	json_t *rep;

	router_start_with(&r, CFG_SCHED("round-robin"));
	ops_apply_ok(&r, T_ROUTER("shard1", "shard1.apps.example.test", ""));
	ops_apply_ok(&r, T_ROUTE_L("web", "r1", "", ""));
	assert_string_equal(route_status(&r, "web", "r1", "dns", buf, sizeof(buf)),
			    "r1-web.shard1.apps.example.test");
	/* The shard's DNS moves: the binding follows, and the served host. */
	ops_apply_ok(&r, T_ROUTER("shard1", "s1.apps.example.test", ""));
	assert_string_equal(route_status(&r, "web", "r1", "dns", buf, sizeof(buf)),
			    "r1-web.s1.apps.example.test");
	assert_string_equal(ops_resolve_object(&r, "http://r1-web.s1.apps.example.test/", buf,
					       sizeof(buf)), "web/r1");
	/* The route goes: so does its binding. */
	rep = ops_call(&r, "{\"op\":\"delete\",\"kind\":\"route\",\"namespace\":\"web\",\"name\":\"r1\"}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"routebindings\"}");
	assert_int_equal(json_array_size(json_object_get(rep, "items")), 0);
	json_decref(rep);
	router_stop(&r);
}

/* A routerd that is not the scheduler honours bindings all the same, and
 * keeps today's rule when there is no Router. */
static void
test_serving_without_scheduler(void **state)
{
	struct sy_router r;
	char buf[256];

	router_start_with(&r, "{\"routing_subdomain\":\"apps.test\",\"router_name\":\"shard2\","
			      "\"route_label_selector\":\"tier=public\"}");
	ops_apply_ok(&r, T_ROUTE_L("web", "pub", "pub.example.test", "\"tier\":\"public\"") ","
		     T_ROUTE_L("web", "priv", "priv.example.test", ""));
	assert_string_equal(ops_resolve_object(&r, "http://pub.example.test/", buf, sizeof(buf)), "web/pub");
	assert_string_equal(ops_resolve_object(&r, "http://priv.example.test/", buf, sizeof(buf)), "(none)");
	ops_apply_ok(&r, T_ROUTER("shard2", "shard2.apps.example.test", ""));
	/* Fleet mode: nothing is bound to shard2 yet, so nothing is served. */
	assert_string_equal(ops_resolve_object(&r, "http://pub.example.test/", buf, sizeof(buf)), "(none)");
	ops_apply_ok(&r, T_BINDING("web", "priv.shard2", "priv", "shard2", "shard2.apps.example.test"));
	assert_string_equal(ops_resolve_object(&r, "http://priv.example.test/", buf, sizeof(buf)), "web/priv");
	assert_string_equal(route_status(&r, "web", "priv", "phase", buf, sizeof(buf)), "scheduled");
	/* The last Router goes: back to the config's selectors. */
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"router\",\"name\":\"shard2\"}"));
	assert_string_equal(ops_resolve_object(&r, "http://pub.example.test/", buf, sizeof(buf)), "web/pub");
	assert_string_equal(ops_resolve_object(&r, "http://priv.example.test/", buf, sizeof(buf)), "(none)");
	router_stop(&r);
}

/* ------------------------------------------------------ validation -- */

static void
test_phase_dns_validation(void **state)
{
	struct sy_router r;
	char buf[256];

	router_start_with(&r, CFG_SCHED("round-robin"));
	ops_apply_ok(&r, T_ROUTER("shard1", "shard1.apps.example.test", ""));
	/* Create: neither may be set. */
	expect_error(apply(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
			       "\"metadata\":{\"name\":\"r1\",\"namespace\":\"web\"},\"spec\":{\"to\":"
			       "{\"name\":\"a\"}},\"status\":{\"phase\":\"scheduled\"}}"),
		     "invalid", "status.phase", "only a RouteBinding sets it");
	expect_error(apply(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
			       "\"metadata\":{\"name\":\"r1\",\"namespace\":\"web\"},\"spec\":{\"to\":"
			       "{\"name\":\"a\"}},\"status\":{\"dns\":\"r1-web.example.test\"}}"),
		     "invalid", "status.dns", "may not be set when a route is created");
	ops_apply_ok(&r, T_ROUTE_L("web", "r1", "", ""));
	assert_string_equal(route_status(&r, "web", "r1", "phase", buf, sizeof(buf)), "scheduled");
	/* Update: the current values may come back (get -o json, edited,
	 * applied again); other values may not. */
	ops_apply_ok(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
			 "\"metadata\":{\"name\":\"r1\",\"namespace\":\"web\"},\"spec\":{\"to\":"
			 "{\"name\":\"a\"}},\"status\":{\"phase\":\"scheduled\",\"dns\":"
			 "\"r1-web.shard1.apps.example.test\"}}");
	expect_error(apply(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
			       "\"metadata\":{\"name\":\"r1\",\"namespace\":\"web\"},\"spec\":{\"to\":"
			       "{\"name\":\"a\"}},\"status\":{\"phase\":\"new\"}}"),
		     "invalid", "status.phase", "may not be changed (from \"scheduled\" to \"new\")");
	expect_error(apply(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
			       "\"metadata\":{\"name\":\"r1\",\"namespace\":\"web\"},\"spec\":{\"to\":"
			       "{\"name\":\"a\"}},\"status\":{\"dns\":\"mine.example.test\"}}"),
		     "invalid", "status.dns", "only a RouteBinding sets it");
	/* Bindings: the Route and the Router must exist, dns be the Router's,
	 * the namespace the route's. */
	expect_error(apply(&r, T_BINDING("web", "b1", "r1", "nope", "shard1.apps.example.test")),
		     "invalid", "spec.routerName", "no Router \"nope\"");
	expect_error(apply(&r, T_BINDING("web", "b1", "r9", "shard1", "shard1.apps.example.test")),
		     "invalid", "spec.routeName", "no Route \"r9\" in namespace \"web\"");
	expect_error(apply(&r, T_BINDING("web", "b1", "r1", "shard1", "elsewhere.example.test")),
		     "invalid", "spec.dns", "is not the DNS of Router shard1");
	/* What the same apply creates or changes counts (ops_apply.c's index
	 * of the batch): a new Route and a new Router, and a Router whose dns
	 * the apply changes, checked against the new dns, not the stored. */
	ops_apply_ok(&r, T_ROUTE_L("web", "rb", "", "") "," T_ROUTER("shard9", "s9.example.test", "")
			 "," T_BINDING("web", "rb.shard9", "rb", "shard9", "s9.example.test"));
	expect_error(apply(&r, T_ROUTER("shard9", "s9b.example.test", "")
			       "," T_BINDING("web", "rb.shard9", "rb", "shard9", "s9.example.test")),
		     "invalid", "spec.dns", "is not the DNS of Router shard9 (\"s9b.example.test\")");
	ops_apply_ok(&r, T_ROUTER("shard9", "s9b.example.test", "")
			 "," T_BINDING("web", "rb.shard9", "rb", "shard9", "s9b.example.test"));
	expect_error(apply(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"RouteBinding\","
			       "\"metadata\":{\"name\":\"b1\",\"namespace\":\"web\"},\"spec\":{"
			       "\"routeNamespace\":\"ops\",\"routeName\":\"r1\",\"routerName\":"
			       "\"shard1\",\"dns\":\"shard1.apps.example.test\"}}"),
		     "invalid", "spec.routeNamespace", "lives in the namespace of its route");
	/* Routers. */
	expect_error(apply(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Router\","
			       "\"metadata\":{\"name\":\"s\"},\"spec\":{\"description\":\"x\"}}"),
		     "invalid", "spec.dns", "required");
	expect_error(apply(&r, T_ROUTER("s", "Shard.example.test", "")), "invalid", "spec.dns",
		     "lowercase DNS name");
	expect_error(apply(&r, T_ROUTER("s", "s.example.test", ",\"vips\":[\"198.18.0.80\",\"300.1.1.1\"]")),
		     "invalid", "spec.vips[1]", "\"300.1.1.1\" is not an IPv4 or IPv6 address");
	expect_error(apply(&r, T_ROUTER("s", "s.example.test", ",\"vips\":[\"198.18.0.80\",\"2001:2::zz\"]")),
		     "invalid", "spec.vips[1]", "\"2001:2::zz\" is not an IPv4 or IPv6 address");
	expect_error(apply(&r, T_ROUTER("s", "s.example.test", ",\"vips\":[\"2001:2::80/64\"]")),
		     "invalid", "spec.vips[0]", "is not an IPv4 or IPv6 address");
	expect_error(apply(&r, T_ROUTER("s", "s.example.test", ",\"vips\":[80]")),
		     "invalid", "spec.vips[0]", "must be a string");
	expect_error(apply(&r, T_ROUTER("s", "s.example.test", ",\"vips\":\"198.18.0.80\"")),
		     "invalid", "spec.vips", "must be a list of IPv4 or IPv6 addresses");
	expect_error(apply(&r, T_ROUTER("s", "s.example.test", ",\"vips\":[\"198.18.0.80\",\"198.18.0.80\"]")),
		     "invalid", "spec.vips[1]", "listed twice");
	/* The same IPv6 address written two ways is one VIP. */
	expect_error(apply(&r, T_ROUTER("s", "s.example.test",
					",\"vips\":[\"2001:2::5\",\"198.18.0.80\",\"2001:2:0::5\"]")),
		     "invalid", "spec.vips[2]",
		     "\"2001:2:0::5\" is listed twice (also spec.vips[0], \"2001:2::5\")");
	expect_error(apply(&r, T_ROUTER("s", "s.example.test",
					",\"vips\":[\"2001:2:0:0:0:0:0:5\",\"2001:2::5\"]")),
		     "invalid", "spec.vips[1]", "listed twice");
	expect_error(apply(&r, T_ROUTER("s", "s.example.test",
					",\"vips\":[\"198.18.0.80\",\"::ffff:198.18.0.81\"]")),
		     "invalid", "spec.vips[1]", "IPv4-mapped IPv6 address");
	/* Nothing of a refused apply is kept. */
	assert_null(sy_store_find(&r.store, &sy_kind_router, "", "s"));
	/* Both families, each once. */
	ops_apply_ok(&r, T_ROUTER("s", "s.example.test",
				  ",\"vips\":[\"198.18.0.80\",\"2001:2::80\",\"2001:2::81\"]"));
	expect_error(apply(&r, T_ROUTER("s", "s.example.test",
					",\"routeSelector\":{\"matchExpressions\":[{\"key\":\"a\","
					"\"operator\":\"Has\"}]}")),
		     "invalid", "spec.routeSelector", "must be In, NotIn, Exists or DoesNotExist");
	expect_error(apply(&r, T_ROUTER("s", "s.example.test", ",\"namespaceSelector\":\"a in (\"")),
		     "invalid", "spec.namespaceSelector", NULL);
	router_stop(&r);
}

/* ------------------------------------------------------------ zone -- */

static void
test_zone(void **state)
{
	json_t *router = json_loads(T_ROUTER("shard1", "shard1.apps.example.test",
					     ",\"description\":\"public shard one\","
					     "\"vips\":[\"198.18.0.80\",\"198.18.0.81\"]"),
				    0, NULL);
	char *z = sy_fleet_zone_text(router, 42, NULL, NULL);
	struct sy_router r;
	json_t *rep;

	assert_non_null(z);
	assert_string_equal(z,
		"; zone of Router shard1: public shard one, generated by routerd\n"
		"$ORIGIN shard1.apps.example.test.\n"
		"$TTL 300\n"
		"@\tIN\tSOA\tns1.shard1.apps.example.test. hostmaster.shard1.apps.example.test. (\n"
		"\t\t42\t; Serial\n"
		"\t\t604800\t; Refresh\n"
		"\t\t86400\t; Retry\n"
		"\t\t1206900\t; Expire\n"
		"\t\t300 )\t; Negative Cache TTL\n"
		"\tIN\tNS\tns1.shard1.apps.example.test.\n"
		"ns1\tIN\tA\t127.0.0.1\n"
		"*\tIN\tA\t198.18.0.80\t; active/active DNS round robin\n"
		"\tIN\tA\t198.18.0.81\t; active/active DNS round robin\n");
	free(z);
	/* IPv6 VIPs: AAAA records beside the A ones, under the same wildcard,
	 * in canonical (RFC 5952) text whatever the spelling. */
	json_decref(router);
	router = json_loads(T_ROUTER("shard1", "shard1.apps.example.test",
				     ",\"vips\":[\"2001:2:0:0::80\",\"198.18.0.80\",\"2001:0002::A:81\"]"),
			    0, NULL);
	z = sy_fleet_zone_text(router, 42, NULL, NULL);
	assert_non_null(z);
	assert_non_null(strstr(z,
		"ns1\tIN\tA\t127.0.0.1\n"
		"*\tIN\tA\t198.18.0.80\t; active/active DNS round robin\n"
		"\tIN\tAAAA\t2001:2::80\t; active/active DNS round robin\n"
		"\tIN\tAAAA\t2001:2::a:81\t; active/active DNS round robin\n"));
	free(z);
	/* IPv6 only: the wildcard owner is on the first AAAA record. */
	json_decref(router);
	router = json_loads(T_ROUTER("shard1", "shard1.apps.example.test", ",\"vips\":[\"2001:2::80\"]"),
			    0, NULL);
	z = sy_fleet_zone_text(router, 42, NULL, NULL);
	assert_non_null(strstr(z, "ns1\tIN\tA\t127.0.0.1\n"
				  "*\tIN\tAAAA\t2001:2::80\t; active/active DNS round robin\n"));
	free(z);
	json_decref(router);
	router = json_loads(T_ROUTER("shard1", "shard1.apps.example.test",
				     ",\"vips\":[\"198.18.0.80\",\"198.18.0.81\"]"),
			    0, NULL);
	/* A name server outside the zone: no glue. */
	z = sy_fleet_zone_text(router, 7, "ns.example.test.", NULL);
	assert_non_null(strstr(z, "\tIN\tNS\tns.example.test.\n*\tIN\tA\t198.18.0.80"));
	free(z);
	json_decref(router);

	router_start_with(&r, CFG_SCHED("round-robin"));
	ops_apply_ok(&r, T_ROUTER("shard1", "shard1.apps.example.test", ",\"vips\":[\"198.18.0.80\"]"));
	rep = ops_call(&r, "{\"op\":\"dns-zone\",\"router\":\"shard1\",\"ns_address\":\"198.18.0.53\"}");
	assert_true(reply_ok(rep));
	assert_non_null(strstr(json_string_value(json_object_get(rep, "zone")),
			       "ns1\tIN\tA\t198.18.0.53\n*\tIN\tA\t198.18.0.80\t;"));
	assert_int_equal(json_integer_value(json_object_get(rep, "serial")), (json_int_t)r.gen_id);
	json_decref(rep);
	expect_error(ops_call(&r, "{\"op\":\"dns-zone\",\"router\":\"shard9\"}"), "not_found", "router",
		     "Router \"shard9\" not found");
	expect_error(ops_call(&r, "{\"op\":\"dns-zone\"}"), "bad_request", "router", NULL);
	expect_error(ops_call(&r, "{\"op\":\"dns-zone\",\"router\":\"shard1\",\"ns_address\":\"x\"}"),
		     "bad_request", "ns_address", NULL);
	router_stop(&r);
}

/* VRRP fails IPv4 and IPv6 VIPs over alike (VRRPv3 over either), but the
 * vrrp port must have an address of the VIP's family: with vrrp on, an
 * apply giving this routerd's own Router an IPv6 VIP while the port has no
 * IPv6 address is refused, naming the entry, the VIP and the port; other
 * Routers may have them. One that got in anyway (etcd, the journal) has no
 * virtual router, and the VIPs after it keep their VRIDs. With an IPv6
 * address on the port, IPv6 VIPs take their slots like IPv4 ones. */
#define CFG_VRRP \
	"{\"routing_subdomain\":\"apps.test\",\"router_name\":\"shard1\",\"ports\":[{\"name\":" \
	"\"c\",\"devargs\":\"x\",\"ipv4\":[\"198.18.0.1/24\"]}],\"vrrp\":{\"port\":\"c\"," \
	"\"node\":0,\"nodes\":2}}"
#define CFG_VRRP6 \
	"{\"routing_subdomain\":\"apps.test\",\"router_name\":\"shard1\",\"ports\":[{\"name\":" \
	"\"c\",\"devargs\":\"x\",\"ipv4\":[\"198.18.0.1/24\"],\"ipv6\":[\"2001:2::1/64\"]}]," \
	"\"vrrp\":{\"port\":\"c\",\"node\":0,\"nodes\":2}}"

static void
test_vrrp_ipv6_vips(void **state)
{
	struct sy_router r;
	struct sy_vrrp_vips v;
	struct sy_addr six;
	unsigned n_off;
	size_t first_off = 99;

	router_start_with(&r, CFG_VRRP);
	expect_error(apply(&r, T_ROUTER("shard1", "shard1.apps.example.test",
					",\"vips\":[\"198.18.0.80\",\"2001:2::80\"]")),
		     "invalid", "spec.vips[1]",
		     "\"2001:2::80\" is an IPv6 address, and port \"c\" (config vrrp.port), where "
		     "this routerd fails the VIPs of Router shard1 over with VRRP, has no IPv6 "
		     "address: give the port one (ports[].ipv6)");
	assert_null(sy_store_find(&r.store, &sy_kind_router, "", "shard1"));
	/* In one apply with other objects: none of them is kept either. */
	expect_error(apply(&r, T_ROUTER("shard2", "shard2.apps.example.test", "") ","
			       T_ROUTER("shard1", "shard1.apps.example.test", ",\"vips\":[\"2001:2::80\"]")),
		     "invalid", "spec.vips[0]", "has no IPv6 address");
	assert_null(sy_store_find(&r.store, &sy_kind_router, "", "shard2"));
	/* Another Router's IPv6 VIPs are not ours to fail over. */
	ops_apply_ok(&r, T_ROUTER("shard2", "shard2.apps.example.test",
				  ",\"vips\":[\"198.18.0.90\",\"2001:2::90\"]"));
	ops_apply_ok(&r, T_ROUTER("shard1", "shard1.apps.example.test",
				  ",\"vips\":[\"198.18.0.80\",\"198.18.0.81\"]"));
	sy_fleet_router_vips(&r.store, "shard1", &r.cfg.ports[0], &v, &n_off, &first_off);
	assert_int_equal(v.n, 2);
	assert_int_equal(v.vip[1].family, AF_INET);
	assert_int_equal(v.vip[1].v4, inet_addr("198.18.0.81"));
	assert_int_equal(n_off, 0);
	/* shard2 as its own routerd would take it on this port: slot 1
	 * empty, slot 2 (VRID vrid_base + 2) still its second IPv4 VIP. */
	ops_apply_ok(&r, T_ROUTER("shard2", "shard2.apps.example.test",
				  ",\"vips\":[\"198.18.0.90\",\"2001:2::90\",\"198.18.0.91\"]"));
	sy_fleet_router_vips(&r.store, "shard2", &r.cfg.ports[0], &v, &n_off, &first_off);
	assert_int_equal(v.n, 3);
	assert_int_equal(v.vip[0].v4, inet_addr("198.18.0.90"));
	assert_int_equal(v.vip[1].family, 0);
	assert_int_equal(v.vip[2].v4, inet_addr("198.18.0.91"));
	assert_int_equal(n_off, 1);
	assert_int_equal(first_off, 1);
	router_stop(&r);

	/* The port has an IPv6 address: IPv6 VIPs are accepted and take
	 * their slots, in spec.vips order with the IPv4 ones. */
	router_start_with(&r, CFG_VRRP6);
	ops_apply_ok(&r, T_ROUTER("shard1", "shard1.apps.example.test",
				  ",\"vips\":[\"198.18.0.80\",\"2001:2::80\"]"));
	sy_fleet_router_vips(&r.store, "shard1", &r.cfg.ports[0], &v, &n_off, &first_off);
	assert_int_equal(v.n, 2);
	assert_int_equal(n_off, 0);
	assert_int_equal(v.vip[0].family, AF_INET);
	assert_int_equal(sy_addr_parse("2001:2::80", &six), 0);
	assert_true(sy_addr_eq(&v.vip[1], &six));
	router_stop(&r);
	/* Without vrrp, our own Router may have them. */
	router_start_with(&r, CFG_SCHED("round-robin"));
	ops_apply_ok(&r, T_ROUTER("shard1", "shard1.apps.example.test", ",\"vips\":[\"2001:2::80\"]"));
	router_stop(&r);
}

/* The data plane's zones (dns_zones.c): each VIP in its family's list, in
 * spec.vips order, as bytes. */
static void
test_dns_table(void **state)
{
	struct sy_router r;
	struct sy_dns_table *t;
	uint8_t six[16];

	router_start_with(&r, CFG_SCHED("round-robin"));
	ops_apply_ok(&r, T_ROUTER("shard1", "shard1.apps.example.test",
				  ",\"vips\":[\"2001:2::81\",\"198.18.0.80\",\"2001:2:0::80\"]")
			 "," T_ROUTER("shard2", "shard2.apps.example.test", ",\"vips\":[\"198.18.0.90\"]"));
	t = sy_fleet_dns_table(&r.store, 9);
	assert_non_null(t);
	assert_int_equal(t->n, 2);
	assert_string_equal(t->z[0].name, "shard1.apps.example.test");
	assert_int_equal(t->z[0].n_vips, 1);
	assert_int_equal(t->z[0].vips[0], inet_addr("198.18.0.80"));
	assert_int_equal(t->z[0].n_vips6, 2);
	assert_int_equal(inet_pton(AF_INET6, "2001:2::81", six), 1);
	assert_memory_equal(t->z[0].vips6[0], six, 16);
	assert_int_equal(inet_pton(AF_INET6, "2001:2::80", six), 1);
	assert_memory_equal(t->z[0].vips6[1], six, 16);
	assert_int_equal(t->z[1].n_vips, 1);
	assert_int_equal(t->z[1].n_vips6, 0);
	free(t);
	router_stop(&r);
}

/* Bindings and Routers are journaled like any object: a restart serves the
 * same routes. */
static void
test_restart(void **state)
{
	struct sy_router r;
	char buf[256];

	router_start_with(&r, CFG_SCHED("round-robin"));
	ops_apply_ok(&r, T_ROUTER("shard1", "shard1.apps.example.test", ""));
	ops_apply_ok(&r, T_ROUTE_L("web", "r1", "", ""));
	router_stop(&r);
	router_start_with(&r, "{\"routing_subdomain\":\"apps.test\",\"router_name\":\"shard1\"}");
	assert_string_equal(bound_to(&r, "web", "r1", buf, sizeof(buf)), "shard1");
	assert_string_equal(route_status(&r, "web", "r1", "dns", buf, sizeof(buf)),
			    "r1-web.shard1.apps.example.test");
	assert_string_equal(ops_resolve_object(&r, "http://r1-web.shard1.apps.example.test/", buf,
					       sizeof(buf)), "web/r1");
	router_stop(&r);
}

/* 90 routes applied at once over three Routers: each bound exactly once and
 * in turn; a pass with nothing new binds nothing (bound is read from the
 * relations index, routes listed cool); a deleted route's binding goes
 * without the pass checking every binding's Router (tidy_all stays off). */
static void
test_many_routes_bound_once(void **state)
{
	struct sy_router r;
	char *req = NULL;
	size_t len, i, per[3] = { 0, 0, 0 };
	FILE *f;
	json_t *rep, *b;

	router_start_with(&r, CFG_SCHED("round-robin"));
	ops_apply_ok(&r, T_ROUTER("s0", "s0.apps.example.test", "") ","
		     T_ROUTER("s1", "s1.apps.example.test", "") ","
		     T_ROUTER("s2", "s2.apps.example.test", ""));
	f = open_memstream(&req, &len);
	fprintf(f, "{\"op\":\"apply\",\"objects\":[");
	for (i = 0; i < 90; i++)
		fprintf(f, "%s{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":"
			   "{\"name\":\"r%zu\",\"namespace\":\"bench\"},\"spec\":{\"to\":{\"kind\":"
			   "\"Service\",\"name\":\"a\"}}}", i ? "," : "", i);
	fprintf(f, "]}");
	fclose(f);
	rep = ops_call(&r, req);
	assert_true(reply_ok(rep));
	json_decref(rep);
	free(req);
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"routebindings\"}");
	assert_int_equal(json_array_size(json_object_get(rep, "items")), 90);
	json_array_foreach(json_object_get(rep, "items"), i, b) {
		const char *router = json_string_value(
			json_object_get(json_object_get(b, "spec"), "routerName"));

		per[router[1] - '0']++;
	}
	json_decref(rep);
	assert_int_equal(per[0], 30);
	assert_int_equal(per[1], 30);
	assert_int_equal(per[2], 30);
	assert_int_equal(sy_scheduler_run(&r), 0);
	assert_false(r.sched.tidy_all);
	rep = ops_call(&r, "{\"op\":\"delete\",\"kind\":\"route\",\"namespace\":\"bench\",\"name\":\"r5\"}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"routebindings\"}");
	assert_int_equal(json_array_size(json_object_get(rep, "items")), 89);
	json_decref(rep);
	router_stop(&r);
}

/* A RouteBinding compiles its Route (and what shares its host), not the
 * whole store: binding 100,000 routes is not 100,000 full compiles. With
 * SY_COMPILE_VERIFY each incremental compile is checked against a full one. */
static void
test_binding_compiles_its_route(void **state)
{
	struct sy_router r;
	char buf[256];
	json_t *rep;

	setenv("SY_COMPILE_VERIFY", "1", 1);
	router_start_with(&r, "{\"routing_subdomain\":\"apps.test\",\"router_name\":\"shard1\"}");
	ops_apply_ok(&r, T_SVC("web", "a") "," T_EPS("web", "a", "198.18.1.10") ","
		     T_ROUTER("shard1", "shard1.apps.example.test", "") ","
		     T_ROUTER("shard2", "shard2.apps.example.test", ""));
	ops_apply_ok(&r, T_ROUTE_L("web", "x1", "", "") "," T_ROUTE_L("web", "x2", "", "") ","
		     T_ROUTE_L("web", "x3", "", "") "," T_ROUTE_L("web", "x4", "", ""));
	assert_string_equal(route_status(&r, "web", "x2", "phase", buf, sizeof(buf)), "new");
	ops_apply_ok(&r, T_BINDING("web", "x2.shard1", "x2", "shard1", "shard1.apps.example.test"));
	assert_true(r.last_compile_incremental);
	assert_true(r.last_compile_objects <= 1);
	assert_string_equal(route_status(&r, "web", "x2", "phase", buf, sizeof(buf)), "scheduled");
	assert_string_equal(ops_resolve_object(&r, "http://x2-web.shard1.apps.example.test/", buf,
					       sizeof(buf)), "web/x2");
	/* Bound elsewhere: known here, not served. */
	ops_apply_ok(&r, T_BINDING("web", "x3.shard2", "x3", "shard2", "shard2.apps.example.test"));
	assert_true(r.last_compile_incremental);
	assert_string_equal(route_status(&r, "web", "x3", "dns", buf, sizeof(buf)),
			    "x3-web.shard2.apps.example.test");
	assert_string_equal(ops_resolve_object(&r, "http://x3-web.shard1.apps.example.test/", buf,
					       sizeof(buf)), "(none)");
	/* The binding goes: the route is "new" again and not served. */
	rep = ops_call(&r, "{\"op\":\"delete\",\"kind\":\"routebinding\",\"namespace\":\"web\","
			   "\"name\":\"x2.shard1\"}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	assert_true(r.last_compile_incremental);
	assert_string_equal(route_status(&r, "web", "x2", "phase", buf, sizeof(buf)), "new");
	assert_string_equal(ops_resolve_object(&r, "http://x2-web.shard1.apps.example.test/", buf,
					       sizeof(buf)), "(none)");
	router_stop(&r);
	unsetenv("SY_COMPILE_VERIFY");
}

int
main(void)
{
	int rc;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_robin),
		cmocka_unit_test(test_least_loaded),
		cmocka_unit_test_setup_teardown(test_explicit_and_strategy, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_overlapping_shards, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_retry_when_router_appears, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_least_loaded_scheduler, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_tidy, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_serving_without_scheduler, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_phase_dns_validation, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_zone, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_dns_table, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_vrrp_ipv6_vips, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_restart, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_many_routes_bound_once, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_binding_compiles_its_route, fresh_state,
						remove_state),
	};

	/* Every incremental compile checked against a full one. */
	setenv("SY_COMPILE_VERIFY", "1", 1);
	if (sy_test_eal_init("test_fleet") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
