/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Incremental compiles (control/gen/scope.c, control/gen/gen_build.c): a change
 * recompiles only the objects it can affect and rebuilds only their hosts,
 * sharing the rest with the previous generation. Every test runs with
 * SY_COMPILE_VERIFY=1, so the router also compiles everything after each
 * change and aborts if the two differ in any status or vhost. On top of
 * that, each test states how small the scope was.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "gen/compile.h"
#include "router.h"
#include "test_certs.h"
#include "test_eal.h"
#include "test_router.h"

#define N_NS 4
#define PER_NS 50

/* 4 namespaces x 50 routes r<i>.ns<k>.apps.test -> service s<i % 5>. */
static void
load_many(struct sy_router *r)
{
	int k, i;

	for (k = 0; k < N_NS; k++) {
		char *req = NULL;
		size_t len;
		FILE *f = open_memstream(&req, &len);

		fprintf(f, "{\"op\":\"apply\",\"objects\":[");
		for (i = 0; i < 5; i++)
			fprintf(f, "%s{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"s%d\","
				   "\"namespace\":\"ns%d\"},\"spec\":{\"ports\":[{\"name\":\"http\",\"port\":80}]}},"
				   "{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":{\"name\":\"s%d\","
				   "\"namespace\":\"ns%d\"},\"subsets\":[{\"addresses\":[{\"ip\":\"198.18.%d.%d\"}],"
				   "\"ports\":[{\"name\":\"http\",\"port\":8080}]}]}",
				i ? "," : "", i, k, i, k, k, i + 10);
		for (i = 0; i < PER_NS; i++)
			fprintf(f, ",{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":"
				   "{\"name\":\"r%d\",\"namespace\":\"ns%d\"},\"spec\":{\"host\":\"r%d.ns%d.apps.test\","
				   "\"to\":{\"kind\":\"Service\",\"name\":\"s%d\"}}}",
				i, k, i, k, i % 5);
		fprintf(f, "]}");
		fclose(f);
		{
			json_t *rep = ops_call(r, req);

			assert_true(reply_ok(rep));
			json_decref(rep);
		}
		free(req);
	}
}


/* The first backend address resolve gives for url ("" when none). */
static const char *
backend_of(struct sy_router *r, const char *url, char *buf, size_t len)
{
	const struct sy_generation *g = sy_gen_acquire(&r->slot);
	const char *host = url + 7, *slash = strchr(host, '/');
	const struct sy_vhost *vh = sy_gen_find_vhost(g, host, (size_t)(slash - host));
	const struct sy_rule *rule = vh ? sy_vhost_match_path(vh, slash, strlen(slash)) : NULL;

	buf[0] = '\0';
	if (rule != NULL && rule->action == SY_ACTION_BACKEND && rule->pool->n_endpoints > 0)
		sy_addr_format(&rule->pool->endpoints[0].addr, buf, len);
	return buf;
}

static void
expect_incremental(struct sy_router *r, size_t max_objects)
{
	if (!r->last_compile_incremental)
		fail_msg("the last change compiled everything");
	if (r->last_compile_objects > max_objects)
		fail_msg("the last change compiled %zu objects (at most %zu expected)",
			 r->last_compile_objects, max_objects);
}

static void
test_one_route_change(void **state)
{
	struct sy_router r;
	const struct sy_generation *before;
	char buf[64], was[64];

	(void)state;
	router_start(&r);
	load_many(&r);
	assert_int_equal(sy_gen_acquire(&r.slot)->n_vhosts, N_NS * PER_NS);
	before = sy_gen_acquire(&r.slot);
	snprintf(was, sizeof(was), "%s", backend_of(&r, "http://r7.ns2.apps.test/", buf, sizeof(buf)));
	assert_string_equal(was, "198.18.2.12");
	ops_apply_ok(&r, T_ROUTE("ns2", "r7", "r7.ns2.apps.test", "s4"));
	expect_incremental(&r, 1);
	assert_string_equal(backend_of(&r, "http://r7.ns2.apps.test/", buf, sizeof(buf)), "198.18.2.14");
	/* A reader still on the old generation sees the old pool: its
	 * vhost was replaced, not changed. The untouched ones are shared. */
	{
		const struct sy_vhost *old = sy_gen_find_vhost(before, "r7.ns2.apps.test", 16);
		const struct sy_vhost *other_old = sy_gen_find_vhost(before, "r8.ns2.apps.test", 16);
		const struct sy_vhost *other_new =
			sy_gen_find_vhost(sy_gen_acquire(&r.slot), "r8.ns2.apps.test", 16);

		assert_non_null(old);
		sy_addr_format(&old->rules[0].pool->endpoints[0].addr, buf, sizeof(buf));
		assert_string_equal(buf, "198.18.2.12");
		assert_ptr_equal(other_old, other_new);
	}
	assert_int_equal(sy_gen_acquire(&r.slot)->n_vhosts, N_NS * PER_NS);
	/* Retire the old generation (no reader holds it now): it frees only
	 * what its successor replaced. The sanitizer build checks the rest
	 * stays valid. */
	sy_gen_reclaim(&r.slot);
	assert_string_equal(backend_of(&r, "http://r8.ns2.apps.test/", buf, sizeof(buf)), "198.18.2.13");
	/* A new route and a deletion are incremental too. */
	ops_apply_ok(&r, T_ROUTE("ns1", "extra", "extra.ns1.apps.test", "s1"));
	expect_incremental(&r, 1);
	assert_int_equal(sy_gen_acquire(&r.slot)->n_vhosts, N_NS * PER_NS + 1);
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"route\",\"namespace\":\"ns0\",\"name\":\"r3\"}"));
	expect_incremental(&r, 1);
	assert_string_equal(ops_resolve_object(&r, "http://r3.ns0.apps.test/", buf, sizeof(buf)), "(none)");
	assert_int_equal(sy_gen_acquire(&r.slot)->n_vhosts, N_NS * PER_NS);
	sy_gen_reclaim(&r.slot);
	router_stop(&r);
}

static void
test_host_takeover_and_readmission(void **state)
{
	struct sy_router r;
	char buf[64];

	(void)state;
	router_start(&r);
	load_many(&r);
	/* An older route in another namespace takes r5.ns1's host. */
	ops_apply_ok(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"thief\","
		  "\"namespace\":\"ns3\",\"creationTimestamp\":\"2001-01-01T00:00:00Z\"},\"spec\":{\"host\":"
		  "\"r5.ns1.apps.test\",\"to\":{\"kind\":\"Service\",\"name\":\"s0\"}}}");
	expect_incremental(&r, 2);
	assert_string_equal(ops_resolve_object(&r, "http://r5.ns1.apps.test/", buf, sizeof(buf)), "ns3/thief");
	/* A change elsewhere leaves r5.ns1 out of the scope; the full compile
	 * that checks it must keep r5's words too (it was serving, then
	 * replaced: OpenShift writes that once). */
	ops_apply_ok(&r, T_ROUTE("ns0", "elsewhere", "elsewhere.apps.test", "s0"));
	expect_incremental(&r, 1);
	{
		json_t *rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"route\",\"namespace\":\"ns1\",\"name\":\"r5\"}");
		const json_t *cond = json_array_get(json_object_get(json_array_get(json_object_get(json_object_get(
			json_array_get(json_object_get(rep, "items"), 0), "status"), "ingress"), 0), "conditions"), 0);

		assert_string_equal(json_string_value(json_object_get(cond, "message")),
				    "replaced by older route thief");
		json_decref(rep);
	}
	/* It goes: the displaced route comes back. */
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"route\",\"namespace\":\"ns3\",\"name\":\"thief\"}"));
	expect_incremental(&r, 1);
	assert_string_equal(ops_resolve_object(&r, "http://r5.ns1.apps.test/", buf, sizeof(buf)), "ns1/r5");
	/* Another kind claims a host: the oldest claim across kinds wins. */
	ops_apply_ok(&r, "{\"apiVersion\":\"zalando.org/v1\",\"kind\":\"RouteGroup\",\"metadata\":{\"name\":\"rg\","
		  "\"namespace\":\"ns0\",\"creationTimestamp\":\"2001-01-01T00:00:00Z\"},\"spec\":{\"hosts\":"
		  "[\"r9.ns2.apps.test\"],\"backends\":[{\"name\":\"b\",\"type\":\"service\",\"serviceName\":\"s1\","
		  "\"servicePort\":80}],\"defaultBackends\":[{\"backendName\":\"b\"}]}}");
	expect_incremental(&r, 2);
	assert_string_equal(ops_resolve_object(&r, "http://r9.ns2.apps.test/", buf, sizeof(buf)), "ns0/rg");
	router_stop(&r);
}

static void
test_service_and_namespace_changes(void **state)
{
	struct sy_router r;
	char buf[64];

	(void)state;
	router_start_with(&r, "{\"routing_subdomain\": \"apps.test\", \"namespace_label_selector\": \"shard!=off\"}");
	load_many(&r);
	/* New endpoints for ns3/s2: only the 10 routes that use it. */
	ops_apply_ok(&r, T_EPS("ns3", "s2", "198.18.9.9"));
	expect_incremental(&r, PER_NS / 5);
	assert_string_equal(backend_of(&r, "http://r7.ns3.apps.test/", buf, sizeof(buf)), "198.18.9.9");
	assert_string_equal(backend_of(&r, "http://r7.ns2.apps.test/", buf, sizeof(buf)), "198.18.2.12");
	/* Labelling a namespace out of the shard takes its routes out. */
	ops_apply_ok(&r, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"ns1\",\"labels\":"
		  "{\"shard\":\"off\"}}}");
	expect_incremental(&r, PER_NS);
	assert_string_equal(ops_resolve_object(&r, "http://r1.ns1.apps.test/", buf, sizeof(buf)), "(none)");
	assert_string_equal(ops_resolve_object(&r, "http://r1.ns0.apps.test/", buf, sizeof(buf)), "ns0/r1");
	ops_apply_ok(&r, "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"ns1\",\"labels\":"
		  "{\"shard\":\"on\"}}}");
	assert_string_equal(ops_resolve_object(&r, "http://r1.ns1.apps.test/", buf, sizeof(buf)), "ns1/r1");
	router_stop(&r);
}

static void
test_wildcard_and_delegation(void **state)
{
	struct sy_router r;
	char buf[64];

	(void)state;
	router_start_with(&r, "{\"routing_subdomain\": \"apps.test\", \"allow_wildcard_routes\": true}");
	load_many(&r);
	/* A wildcard route for *.ns2.apps.test from another namespace is
	 * blocked by the plain routes under it: they meet through the domain. */
	ops_apply_ok(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"wild\","
		  "\"namespace\":\"ns0\"},\"spec\":{\"host\":\"www.ns2.apps.test\",\"wildcardPolicy\":\"Subdomain\","
		  "\"to\":{\"kind\":\"Service\",\"name\":\"s0\"}}}");
	expect_incremental(&r, PER_NS + 1);
	assert_string_equal(ops_resolve_object(&r, "http://zzz.ns2.apps.test/", buf, sizeof(buf)), "(none)");
	/* IngressRoute delegation: changing the delegate recompiles its root. */
	ops_apply_ok(&r, "{\"apiVersion\":\"contour.heptio.com/v1beta1\",\"kind\":\"IngressRoute\",\"metadata\":"
		  "{\"name\":\"root\",\"namespace\":\"ns0\"},\"spec\":{\"virtualhost\":{\"fqdn\":\"ir.test\"},"
		  "\"routes\":[{\"match\":\"/\",\"delegate\":{\"name\":\"child\",\"namespace\":\"ns1\"}}]}},"
		  "{\"apiVersion\":\"contour.heptio.com/v1beta1\",\"kind\":\"IngressRoute\",\"metadata\":"
		  "{\"name\":\"child\",\"namespace\":\"ns1\"},\"spec\":{\"routes\":[{\"match\":\"/\","
		  "\"services\":[{\"name\":\"s1\",\"port\":80}]}]}}");
	expect_incremental(&r, 2);
	assert_string_equal(backend_of(&r, "http://ir.test/", buf, sizeof(buf)), "198.18.1.11");
	ops_apply_ok(&r, "{\"apiVersion\":\"contour.heptio.com/v1beta1\",\"kind\":\"IngressRoute\",\"metadata\":"
		  "{\"name\":\"child\",\"namespace\":\"ns1\"},\"spec\":{\"routes\":[{\"match\":\"/\","
		  "\"services\":[{\"name\":\"s3\",\"port\":80}]}]}}");
	expect_incremental(&r, 2);
	assert_string_equal(backend_of(&r, "http://ir.test/", buf, sizeof(buf)), "198.18.1.13");
	router_stop(&r);
}

/*
 * A lookup probes for wildcard and default vhosts only while the generation
 * has some (gen_build.c counts them): one arriving or leaving by an
 * incremental change must be found, then not found.
 */
static void
test_wildcard_and_default_come_and_go(void **state)
{
	struct sy_router r;
	char buf[64];

	(void)state;
	router_start_with(&r, "{\"routing_subdomain\": \"apps.test\", \"allow_wildcard_routes\": true}");
	load_many(&r);
	assert_string_equal(ops_resolve_object(&r, "http://any.wild.test/", buf, sizeof(buf)), "(none)");
	ops_apply_ok(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"wild\","
		  "\"namespace\":\"ns0\"},\"spec\":{\"host\":\"www.wild.test\",\"wildcardPolicy\":\"Subdomain\","
		  "\"to\":{\"kind\":\"Service\",\"name\":\"s0\"}}}");
	expect_incremental(&r, 2);
	assert_string_equal(ops_resolve_object(&r, "http://any.wild.test/", buf, sizeof(buf)), "ns0/wild");
	assert_string_equal(backend_of(&r, "http://Any.Wild.Test/", buf, sizeof(buf)), "198.18.0.10");
	/* A RouteGroup without hosts takes every host no other vhost has. */
	assert_string_equal(backend_of(&r, "http://nowhere.test/", buf, sizeof(buf)), "");
	ops_apply_ok(&r, "{\"apiVersion\":\"zalando.org/v1\",\"kind\":\"RouteGroup\",\"metadata\":{\"name\":\"any\","
		  "\"namespace\":\"ns1\"},\"spec\":{\"backends\":[{\"name\":\"b\",\"type\":\"service\","
		  "\"serviceName\":\"s2\",\"servicePort\":80}],\"defaultBackends\":[{\"backendName\":\"b\"}]}}");
	expect_incremental(&r, 2);
	assert_string_equal(backend_of(&r, "http://nowhere.test/", buf, sizeof(buf)), "198.18.1.12");
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"route\",\"namespace\":\"ns0\",\"name\":\"wild\"}"));
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"routegroup\",\"namespace\":\"ns1\",\"name\":\"any\"}"));
	expect_incremental(&r, 2);
	assert_int_equal(sy_gen_acquire(&r.slot)->n_wildcard_vhosts, 0);
	assert_int_equal(sy_gen_acquire(&r.slot)->n_default_vhosts, 0);
	assert_string_equal(ops_resolve_object(&r, "http://any.wild.test/", buf, sizeof(buf)), "(none)");
	assert_string_equal(backend_of(&r, "http://nowhere.test/", buf, sizeof(buf)), "");
	assert_string_equal(backend_of(&r, "http://r1.ns1.apps.test/", buf, sizeof(buf)), "198.18.1.11");
	router_stop(&r);
}

/* GatewayClass sy, ours (the config's default gateway_controller). */
static void
apply_gateway_class(struct sy_router *r)
{
	ops_apply_ok(r, "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"GatewayClass\","
		     "\"metadata\":{\"name\":\"sy\"},\"spec\":{\"controllerName\":"
		     "\"switchyard.io/gateway-controller\"}}");
}

/*
 * Gateway API objects share one relations key (control/kinds/gateway_common.h):
 * a change to a route or a Gateway recompiles the Gateway API objects and their
 * hosts, not the 200 Routes beside them; a listener's hostname moving takes the
 * route's host with it (the old one rebuilt too).
 */
static void
test_gateway_api_changes(void **state)
{
	struct sy_router r;
	char buf[64];

	(void)state;
	router_start(&r);
	load_many(&r);
	apply_gateway_class(&r);
	ops_apply_ok(&r, "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\","
		  "\"metadata\":{\"name\":\"gw\",\"namespace\":\"ns1\"},\"spec\":{\"gatewayClassName\":"
		  "\"sy\",\"listeners\":[{\"name\":\"http\",\"port\":80,\"protocol\":\"HTTP\","
		  "\"hostname\":\"gw1.apps.test\"}]}}");
	expect_incremental(&r, 1);
	ops_apply_ok(&r, "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"HTTPRoute\","
		  "\"metadata\":{\"name\":\"web\",\"namespace\":\"ns1\"},\"spec\":{\"parentRefs\":"
		  "[{\"name\":\"gw\"}],\"rules\":[{\"backendRefs\":[{\"name\":\"s1\",\"port\":80}]}]}}");
	expect_incremental(&r, 2);
	assert_string_equal(ops_resolve_object(&r, "http://gw1.apps.test/", buf, sizeof(buf)), "ns1/web");
	assert_string_equal(backend_of(&r, "http://gw1.apps.test/", buf, sizeof(buf)), "198.18.1.11");
	ops_apply_ok(&r, "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"HTTPRoute\","
		  "\"metadata\":{\"name\":\"web\",\"namespace\":\"ns1\"},\"spec\":{\"parentRefs\":"
		  "[{\"name\":\"gw\"}],\"rules\":[{\"backendRefs\":[{\"name\":\"s2\",\"port\":80}]}]}}");
	expect_incremental(&r, 2);
	assert_string_equal(backend_of(&r, "http://gw1.apps.test/", buf, sizeof(buf)), "198.18.1.12");
	ops_apply_ok(&r, "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\","
		  "\"metadata\":{\"name\":\"gw\",\"namespace\":\"ns1\"},\"spec\":{\"gatewayClassName\":"
		  "\"sy\",\"listeners\":[{\"name\":\"http\",\"port\":80,\"protocol\":\"HTTP\","
		  "\"hostname\":\"gw2.apps.test\"}]}}");
	expect_incremental(&r, 2);
	assert_string_equal(ops_resolve_object(&r, "http://gw2.apps.test/", buf, sizeof(buf)), "ns1/web");
	assert_string_equal(ops_resolve_object(&r, "http://gw1.apps.test/", buf, sizeof(buf)), "(none)");
	/* the route's Service gets a new endpoint: the route recompiles (with
	 * its Gateway, and the 10 Routes of ns1 on s2) */
	ops_apply_ok(&r, T_EPS("ns1", "s2", "198.18.1.99"));
	expect_incremental(&r, 12);
	assert_string_equal(backend_of(&r, "http://gw2.apps.test/", buf, sizeof(buf)), "198.18.1.99");
	assert_string_equal(backend_of(&r, "http://r1.ns1.apps.test/", buf, sizeof(buf)), "198.18.1.11");
	router_stop(&r);
}

/* Gateway ns1/<name>'s listener <i>'s attachedRoutes as `get` reports it. */
static long
gw_attached(struct sy_router *r, const char *name, size_t i)
{
	char req[160];
	json_t *rep, *st;
	long n;

	snprintf(req, sizeof(req),
		 "{\"op\":\"get\",\"kind\":\"gateway\",\"namespace\":\"ns1\",\"name\":\"%s\"}", name);
	rep = ops_call(r, req);
	st = json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status");
	n = (long)json_integer_value(
		json_object_get(json_array_get(json_object_get(st, "listeners"), i), "attachedRoutes"));
	json_decref(rep);
	return n;
}

#define GW_ROUTE(name, host, parent, section, svc)                                                \
	"{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"HTTPRoute\",\"metadata\":"    \
	"{\"name\":\"" name "\",\"namespace\":\"ns1\"},\"spec\":{\"hostnames\":[\"" host "\"],"   \
	"\"parentRefs\":[{\"name\":\"" parent "\"" section "}],\"rules\":[{\"backendRefs\":"      \
	"[{\"name\":\"" svc "\",\"port\":80}]}]}}"

/*
 * One HTTPRoute with hostnames changed compiles that route alone (not its
 * Gateway, nor the Gateway's other routes), and the Gateway's
 * attachedRoutes, counted at get, follow; a Gateway's change compiles its
 * own routes, not another Gateway's. Every compile is checked against a
 * full one (SY_COMPILE_VERIFY), statuses included.
 */
static void
test_gateway_api_route_scope(void **state)
{
	struct sy_router r;
	char buf[64];

	(void)state;
	router_start(&r);
	load_many(&r);
	apply_gateway_class(&r);
	ops_apply_ok(&r, "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\","
		  "\"metadata\":{\"name\":\"gw\",\"namespace\":\"ns1\"},\"spec\":{\"gatewayClassName\":"
		  "\"sy\",\"listeners\":[{\"name\":\"http\",\"port\":80,\"protocol\":\"HTTP\"},"
		  "{\"name\":\"other\",\"port\":80,\"protocol\":\"HTTP\",\"hostname\":\"*.other.test\"}]}}");
	ops_apply_ok(&r, "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\","
		  "\"metadata\":{\"name\":\"gw2\",\"namespace\":\"ns1\"},\"spec\":{\"gatewayClassName\":"
		  "\"sy\",\"listeners\":[{\"name\":\"http\",\"port\":80,\"protocol\":\"HTTP\"}]}}");
	ops_apply_ok(&r, GW_ROUTE("a", "a.gw.test", "gw", "", "s1"));
	expect_incremental(&r, 1);
	ops_apply_ok(&r, GW_ROUTE("b", "b.gw.test", "gw", "", "s1"));
	expect_incremental(&r, 1);
	ops_apply_ok(&r, GW_ROUTE("c", "c.gw.test", "gw2", "", "s1"));
	expect_incremental(&r, 1);
	assert_int_equal(gw_attached(&r, "gw", 0), 2);
	assert_int_equal(gw_attached(&r, "gw", 1), 0);
	assert_int_equal(gw_attached(&r, "gw2", 0), 1);
	/* a's backend changes: a alone */
	ops_apply_ok(&r, GW_ROUTE("a", "a.gw.test", "gw", "", "s2"));
	expect_incremental(&r, 1);
	assert_string_equal(backend_of(&r, "http://a.gw.test/", buf, sizeof(buf)), "198.18.1.12");
	/* a names a listener its host does not fit: detached, still a alone */
	ops_apply_ok(&r, GW_ROUTE("a", "a.gw.test", "gw", ",\"sectionName\":\"other\"", "s2"));
	expect_incremental(&r, 1);
	assert_string_equal(ops_resolve_object(&r, "http://a.gw.test/", buf, sizeof(buf)), "(none)");
	assert_int_equal(gw_attached(&r, "gw", 0), 1);
	assert_int_equal(gw_attached(&r, "gw", 1), 0);
	/* now one that fits it */
	ops_apply_ok(&r, GW_ROUTE("a", "a.other.test", "gw", ",\"sectionName\":\"other\"", "s2"));
	expect_incremental(&r, 1);
	assert_string_equal(ops_resolve_object(&r, "http://a.other.test/", buf, sizeof(buf)), "ns1/a");
	assert_int_equal(gw_attached(&r, "gw", 0), 1);
	assert_int_equal(gw_attached(&r, "gw", 1), 1);
	/* a route gone: its Gateway compiles too (with gw2: they share the
	 * default vhost's host) */
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"httproute\",\"namespace\":\"ns1\",\"name\":\"b\"}"));
	expect_incremental(&r, 2);
	assert_int_equal(gw_attached(&r, "gw", 0), 0);
	assert_int_equal(gw_attached(&r, "gw2", 0), 1);
	/* gw's listener goes: its routes (a) recompile with it, not gw2's c
	 * (gw2 itself is in: its listener, as gw's, states the default
	 * vhost's host) */
	ops_apply_ok(&r, "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\","
		  "\"metadata\":{\"name\":\"gw\",\"namespace\":\"ns1\"},\"spec\":{\"gatewayClassName\":"
		  "\"sy\",\"listeners\":[{\"name\":\"http\",\"port\":80,\"protocol\":\"HTTP\"}]}}");
	expect_incremental(&r, 3);
	assert_string_equal(ops_resolve_object(&r, "http://a.other.test/", buf, sizeof(buf)), "(none)");
	assert_string_equal(ops_resolve_object(&r, "http://c.gw.test/", buf, sizeof(buf)), "ns1/c");
	assert_int_equal(gw_attached(&r, "gw", 0), 0);
	/* A wildcard route under a narrower listener serves the listener's
	 * host, which another route names: a change of that one compiles the
	 * wildcard route too (through the Gateway's host and g key). */
	ops_apply_ok(&r, "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\","
		  "\"metadata\":{\"name\":\"gw3\",\"namespace\":\"ns1\"},\"spec\":{\"gatewayClassName\":"
		  "\"sy\",\"listeners\":[{\"name\":\"narrow\",\"port\":80,\"protocol\":\"HTTP\","
		  "\"hostname\":\"x.wild.test\"}]}}");
	ops_apply_ok(&r, GW_ROUTE("w", "*.wild.test", "gw3", "", "s1"));
	ops_apply_ok(&r, GW_ROUTE("x", "x.wild.test", "gw3", "", "s3"));
	expect_incremental(&r, 3);
	assert_string_equal(ops_resolve_object(&r, "http://x.wild.test/", buf, sizeof(buf)), "ns1/w");
	assert_int_equal(gw_attached(&r, "gw3", 0), 2);
	ops_apply_ok(&r, GW_ROUTE("x", "x.wild.test", "gw3", "", "s4"));
	expect_incremental(&r, 3);
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"httproute\",\"namespace\":\"ns1\",\"name\":\"w\"}"));
	expect_incremental(&r, 3);
	assert_string_equal(ops_resolve_object(&r, "http://x.wild.test/", buf, sizeof(buf)), "ns1/x");
	assert_int_equal(gw_attached(&r, "gw3", 0), 1);
	router_stop(&r);
}

/* The TLS mode of host's vhost (-1: no vhost). */
static int
vhost_tls(struct sy_router *r, const char *host)
{
	const struct sy_generation *g = sy_gen_acquire(&r->slot);
	const struct sy_vhost *vh = sy_gen_find_vhost(g, host, strlen(host));

	return vh ? (int)vh->tls : -1;
}

#define GW_HTTPS(name, listeners)                                                                 \
	"{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\",\"metadata\":"      \
	"{\"name\":\"" name "\",\"namespace\":\"ns1\"},\"spec\":{\"gatewayClassName\":\"sy\","     \
	"\"listeners\":[" listeners "]}}"
#define GW_TLS_LISTENER(lname, host, secret_ns)                                                   \
	"{\"name\":\"" lname "\",\"port\":443,\"protocol\":\"HTTPS\",\"hostname\":\"" host "\","     \
	"\"tls\":{\"mode\":\"Terminate\",\"certificateRefs\":[{\"name\":\"cert\""                    \
	secret_ns "}]}}"
#define GW_GRANT(ns, from_ns)                                                                     \
	"{\"apiVersion\":\"gateway.networking.k8s.io/v1beta1\",\"kind\":\"ReferenceGrant\","       \
	"\"metadata\":{\"name\":\"g\",\"namespace\":\"" ns "\"},\"spec\":{\"from\":[{\"group\":"     \
	"\"gateway.networking.k8s.io\",\"kind\":\"HTTPRoute\",\"namespace\":\"" from_ns "\"},"       \
	"{\"group\":\"gateway.networking.k8s.io\",\"kind\":\"Gateway\",\"namespace\":\"" from_ns    \
	"\"}],\"to\":[{\"group\":\"\",\"kind\":\"Service\"},{\"group\":\"\",\"kind\":\"Secret\"}]}}"

#define GW_ANY_LISTENER                                                                           \
	"{\"name\":\"any\",\"port\":443,\"protocol\":\"HTTPS\",\"tls\":{\"mode\":"                 \
	"\"Terminate\",\"certificateRefs\":[{\"name\":\"cert\"}]}}"
#define GW_OF_CLASS(name, cls, listeners)                                                         \
	"{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\",\"metadata\":"      \
	"{\"name\":\"" name "\",\"namespace\":\"ns1\"},\"spec\":{\"gatewayClassName\":\"" cls    \
	"\",\"listeners\":[" listeners "]}}"
#define GW_HTTP_LISTENER(lname, host)                                                             \
	"{\"name\":\"" lname "\",\"port\":80,\"protocol\":\"HTTP\",\"hostname\":\"" host "\"}"
#define OURS "switchyard.io/gateway-controller"

/* The Secret cert in namespace ns (the shared test certificate). */
static void
apply_cert(struct sy_router *r, const char *ns)
{
	char *req = NULL;

	assert_true(asprintf(&req,
			     "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"cert\","
			     "\"namespace\":\"%s\"},\"type\":\"kubernetes.io/tls\",\"data\":{\"tls.crt\":"
			     "\"%s\",\"tls.key\":\"%s\"}}", ns, crt_b64, key_b64) > 0);
	ops_apply_ok(r, req);
	free(req);
}

/*
 * An HTTPS listener with hostnames, its certificate's Secret and a
 * ReferenceGrant change compile what they cover, not the store: the routes
 * (of any Gateway) on the listener's hosts, *.<domain> covering the hosts
 * directly under it; the Gateway's own routes; the routes and Gateways
 * reading the grants of the grant's namespace. An HTTPS listener without
 * a hostname compiles the routes of the Gateways with an HTTP listener
 * (it covers their hosts), not the store. Every compile is checked
 * against a full one (SY_COMPILE_VERIFY).
 */
static void
test_gateway_api_https_scope(void **state)
{
	struct sy_router r;
	char buf[64];

	(void)state;
	router_start(&r);
	load_many(&r);
	apply_gateway_class(&r);
	apply_cert(&r, "ns1");
	apply_cert(&r, "ns2");
	ops_apply_ok(&r, GW_HTTPS("plain", "{\"name\":\"http\",\"port\":80,\"protocol\":\"HTTP\"}"));
	ops_apply_ok(&r, GW_ROUTE("a", "a.sec.test", "plain", "", "s1"));
	ops_apply_ok(&r, GW_ROUTE("b", "b.sec.test", "plain", "", "s1"));
	ops_apply_ok(&r, GW_ROUTE("deep", "x.y.sec.test", "plain", "", "s1"));
	ops_apply_ok(&r, GW_ROUTE("o", "o.other.test", "plain", "", "s1"));
	assert_int_equal(vhost_tls(&r, "a.sec.test"), SY_TLS_NONE);
	/* a Gateway with HTTPS *.sec.test: it, a, b and deep (their hosts
	 * now terminated; a wildcard listener covers any depth), not o */
	ops_apply_ok(&r, GW_HTTPS("tls", GW_TLS_LISTENER("wild", "*.sec.test", "")));
	expect_incremental(&r, 4);
	assert_int_equal(vhost_tls(&r, "a.sec.test"), SY_TLS_EDGE);
	assert_int_equal(vhost_tls(&r, "b.sec.test"), SY_TLS_EDGE);
	assert_int_equal(vhost_tls(&r, "x.y.sec.test"), SY_TLS_EDGE);
	assert_int_equal(vhost_tls(&r, "o.other.test"), SY_TLS_NONE);
	/* its listener narrowed to one host: b's and deep's vhosts back to
	 * plain HTTP */
	ops_apply_ok(&r, GW_HTTPS("tls", GW_TLS_LISTENER("one", "a.sec.test", "")));
	expect_incremental(&r, 4);
	assert_int_equal(vhost_tls(&r, "x.y.sec.test"), SY_TLS_NONE);
	assert_int_equal(vhost_tls(&r, "a.sec.test"), SY_TLS_EDGE);
	assert_int_equal(vhost_tls(&r, "b.sec.test"), SY_TLS_NONE);
	/* a route's change does not pull the Gateway that covers it (nor b) */
	ops_apply_ok(&r, GW_ROUTE("b", "b.sec.test", "plain", "", "s2"));
	expect_incremental(&r, 1);
	/* the certificate's Secret changed: the Gateway and a */
	apply_cert(&r, "ns1");
	ops_apply_ok(&r, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"cert\","
		  "\"namespace\":\"ns1\"},\"type\":\"Opaque\",\"data\":{}}");
	expect_incremental(&r, 3);
	assert_int_equal(vhost_tls(&r, "a.sec.test"), SY_TLS_NONE);
	apply_cert(&r, "ns1");
	expect_incremental(&r, 3);
	assert_int_equal(vhost_tls(&r, "a.sec.test"), SY_TLS_EDGE);
	/* a certificate of another namespace: programmed once a grant there
	 * allows it; the grant's change compiles the Gateway and its covered
	 * route (and c, which reads ns2's grants for its backend) */
	ops_apply_ok(&r, GW_HTTPS("tls", GW_TLS_LISTENER("one", "a.sec.test",
							   ",\"namespace\":\"ns2\"")));
	assert_int_equal(vhost_tls(&r, "a.sec.test"), SY_TLS_NONE);
	ops_apply_ok(&r, "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"HTTPRoute\","
		  "\"metadata\":{\"name\":\"c\",\"namespace\":\"ns1\"},\"spec\":{\"hostnames\":"
		  "[\"c.cross.test\"],\"parentRefs\":[{\"name\":\"plain\"}],\"rules\":[{\"backendRefs\":"
		  "[{\"name\":\"s3\",\"namespace\":\"ns2\",\"port\":80}]}]}}");
	assert_string_equal(backend_of(&r, "http://c.cross.test/", buf, sizeof(buf)), "");
	ops_apply_ok(&r, GW_GRANT("ns2", "ns1"));
	expect_incremental(&r, 4);
	assert_int_equal(vhost_tls(&r, "a.sec.test"), SY_TLS_EDGE);
	assert_string_equal(backend_of(&r, "http://c.cross.test/", buf, sizeof(buf)), "198.18.2.13");
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"referencegrant\",\"namespace\":\"ns2\","
			     "\"name\":\"g\"}"));
	expect_incremental(&r, 4);
	assert_int_equal(vhost_tls(&r, "a.sec.test"), SY_TLS_NONE);
	assert_string_equal(backend_of(&r, "http://c.cross.test/", buf, sizeof(buf)), "");
	/* an HTTPS listener without a hostname covers every host of the
	 * routes of Gateways with an HTTP listener: tls, plain's routes a,
	 * b, deep, o, c, and plain (its hostless listener shares tls's
	 * default vhost), not the 200 Routes */
	ops_apply_ok(&r, GW_HTTPS("tls", GW_ANY_LISTENER));
	expect_incremental(&r, 7);
	assert_int_equal(vhost_tls(&r, "o.other.test"), SY_TLS_EDGE);
	router_stop(&r);
}

/* GatewayClass name with controller and description (to make a change). */
static void
apply_class(struct sy_router *r, const char *name, const char *controller, const char *desc)
{
	char *req = NULL;

	assert_true(asprintf(&req,
			     "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":"
			     "\"GatewayClass\",\"metadata\":{\"name\":\"%s\"},\"spec\":"
			     "{\"controllerName\":\"%s\",\"description\":\"%s\"}}",
			     name, controller, desc) > 0);
	ops_apply_ok(r, req);
	free(req);
}

/* Is GatewayClass name's status Accepted (by us)? */
static bool
class_accepted(struct sy_router *r, const char *name)
{
	char req[160];
	json_t *rep, *c;
	bool ok;

	snprintf(req, sizeof(req), "{\"op\":\"get\",\"kind\":\"gatewayclass\",\"name\":\"%s\"}",
		 name);
	rep = ops_call(r, req);
	c = json_array_get(json_object_get(json_object_get(json_array_get(
				   json_object_get(rep, "items"), 0), "status"), "conditions"), 0);
	ok = c != NULL && strcmp(json_string_value(json_object_get(c, "type")), "Accepted") == 0 &&
	     strcmp(json_string_value(json_object_get(c, "status")), "True") == 0;
	json_decref(rep);
	return ok;
}

/*
 * A GatewayClass's change compiles the Gateways naming it and their routes
 * (scope.c's K seed, relations key n), not the other classes' Gateways nor
 * the 200 Routes; a class whose controllerName moves away from us or back
 * takes its Gateways' routes off the router and back. Every compile is
 * checked against a full one (SY_COMPILE_VERIFY), statuses included.
 */
static void
test_gateway_class_scope(void **state)
{
	struct sy_router r;
	char buf[64];

	(void)state;
	router_start(&r);
	load_many(&r);
	apply_class(&r, "sy", OURS, "one");
	apply_class(&r, "b", OURS, "one");
	ops_apply_ok(&r, GW_OF_CLASS("gwa", "sy", GW_HTTP_LISTENER("http", "*.a.test")));
	ops_apply_ok(&r, GW_OF_CLASS("gwb", "b", GW_HTTP_LISTENER("http", "*.b.test")));
	ops_apply_ok(&r, GW_OF_CLASS("gwc", "b", GW_HTTP_LISTENER("http", "*.c.test")));
	ops_apply_ok(&r, GW_ROUTE("ra1", "x.a.test", "gwa", "", "s1"));
	ops_apply_ok(&r, GW_ROUTE("ra2", "y.a.test", "gwa", "", "s1"));
	ops_apply_ok(&r, GW_ROUTE("rb1", "x.b.test", "gwb", "", "s1"));
	ops_apply_ok(&r, GW_ROUTE("rb2", "y.b.test", "gwb", "", "s1"));
	ops_apply_ok(&r, GW_ROUTE("rb3", "z.b.test", "gwb", "", "s1"));
	ops_apply_ok(&r, GW_ROUTE("rc1", "x.c.test", "gwc", "", "s1"));
	assert_string_equal(ops_resolve_object(&r, "http://x.b.test/", buf, sizeof(buf)), "ns1/rb1");
	assert_true(class_accepted(&r, "b"));
	/* class sy changes: sy, gwa, ra1, ra2 */
	apply_class(&r, "sy", OURS, "two");
	expect_incremental(&r, 4);
	assert_int_equal(r.last_compile_objects, 4);
	/* class b goes to another controller: b, gwb, gwc and their four
	 * routes, which leave the router */
	apply_class(&r, "b", "example.com/other", "one");
	expect_incremental(&r, 7);
	assert_int_equal(r.last_compile_objects, 7);
	assert_string_equal(ops_resolve_object(&r, "http://x.b.test/", buf, sizeof(buf)), "(none)");
	assert_string_equal(ops_resolve_object(&r, "http://x.c.test/", buf, sizeof(buf)), "(none)");
	assert_string_equal(ops_resolve_object(&r, "http://x.a.test/", buf, sizeof(buf)), "ns1/ra1");
	/* and back: they return, the class Accepted again */
	apply_class(&r, "b", OURS, "one");
	expect_incremental(&r, 7);
	assert_string_equal(ops_resolve_object(&r, "http://z.b.test/", buf, sizeof(buf)), "ns1/rb3");
	assert_string_equal(ops_resolve_object(&r, "http://x.c.test/", buf, sizeof(buf)), "ns1/rc1");
	assert_true(class_accepted(&r, "b"));
	/* class sy deleted: gwa and its routes, off the router */
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"gatewayclass\",\"name\":\"sy\"}"));
	expect_incremental(&r, 3);
	assert_string_equal(ops_resolve_object(&r, "http://x.a.test/", buf, sizeof(buf)), "(none)");
	assert_string_equal(ops_resolve_object(&r, "http://x.b.test/", buf, sizeof(buf)), "ns1/rb1");
	/* a class no Gateway names: itself alone (its status) */
	apply_class(&r, "lonely", OURS, "one");
	expect_incremental(&r, 1);
	assert_true(class_accepted(&r, "lonely"));
	/* sy again, another controller's: gwa stays off */
	apply_class(&r, "sy", "example.com/other", "one");
	expect_incremental(&r, 4);
	assert_string_equal(ops_resolve_object(&r, "http://x.a.test/", buf, sizeof(buf)), "(none)");
	assert_false(class_accepted(&r, "sy"));
	router_stop(&r);
}

/*
 * A Gateway with an HTTPS listener without a hostname terminates the hosts
 * of every route served over plain HTTP only (httproute.c https_cover): a
 * change of it, of its certificate or of its class compiles the routes of
 * the Gateways with an HTTP listener (scope.c's X seed), not those of a
 * Gateway with HTTPS listeners only, nor the 200 Routes. Every compile is
 * checked against a full one (SY_COMPILE_VERIFY).
 */
static void
test_gateway_api_hostless_https_scope(void **state)
{
	struct sy_router r;

	(void)state;
	router_start(&r);
	load_many(&r);
	apply_gateway_class(&r);
	apply_class(&r, "edge", OURS, "one");
	apply_cert(&r, "ns1");
	ops_apply_ok(&r, GW_HTTPS("plain", "{\"name\":\"http\",\"port\":80,\"protocol\":\"HTTP\"}"));
	ops_apply_ok(&r, GW_ROUTE("a", "a.p.test", "plain", "", "s1"));
	ops_apply_ok(&r, GW_ROUTE("b", "b.p.test", "plain", "", "s1"));
	ops_apply_ok(&r, GW_HTTPS("tlsonly", GW_TLS_LISTENER("one", "t1.t.test", "") ","
					     GW_TLS_LISTENER("two", "t2.t.test", "")));
	ops_apply_ok(&r, GW_ROUTE("t1", "t1.t.test", "tlsonly", "", "s1"));
	ops_apply_ok(&r, GW_ROUTE("t2", "t2.t.test", "tlsonly", "", "s1"));
	assert_int_equal(vhost_tls(&r, "a.p.test"), SY_TLS_NONE);
	assert_int_equal(vhost_tls(&r, "t1.t.test"), SY_TLS_EDGE);
	/* the hostless HTTPS Gateway comes: it, plain (their listeners share
	 * the default vhost) and plain's routes a, b */
	ops_apply_ok(&r, GW_OF_CLASS("any", "edge", GW_ANY_LISTENER));
	expect_incremental(&r, 4);
	assert_int_equal(r.last_compile_objects, 4);
	assert_int_equal(vhost_tls(&r, "a.p.test"), SY_TLS_EDGE);
	assert_int_equal(vhost_tls(&r, "b.p.test"), SY_TLS_EDGE);
	assert_int_equal(vhost_tls(&r, "r1.ns1.apps.test"), SY_TLS_NONE);
	/* changed (a second listener's name): the same four */
	ops_apply_ok(&r, GW_OF_CLASS("any", "edge", GW_ANY_LISTENER ","
					  GW_HTTP_LISTENER("h", "h.any.test")));
	expect_incremental(&r, 4);
	/* the certificate both HTTPS Gateways read goes bad: any, tlsonly,
	 * their routes (t1, t2; a, b through any's listener) and plain */
	ops_apply_ok(&r, "{\"apiVersion\":\"v1\",\"kind\":\"Secret\",\"metadata\":{\"name\":\"cert\","
		  "\"namespace\":\"ns1\"},\"type\":\"Opaque\",\"data\":{}}");
	expect_incremental(&r, 7);
	assert_int_equal(vhost_tls(&r, "a.p.test"), SY_TLS_NONE);
	apply_cert(&r, "ns1");
	expect_incremental(&r, 7);
	assert_int_equal(vhost_tls(&r, "a.p.test"), SY_TLS_EDGE);
	/* its class goes to another controller: edge, any, plain, a, b */
	apply_class(&r, "edge", "example.com/other", "one");
	expect_incremental(&r, 5);
	assert_int_equal(vhost_tls(&r, "a.p.test"), SY_TLS_NONE);
	apply_class(&r, "edge", OURS, "one");
	expect_incremental(&r, 5);
	assert_int_equal(vhost_tls(&r, "a.p.test"), SY_TLS_EDGE);
	/* gone: plain and its routes */
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"gateway\",\"namespace\":\"ns1\","
			     "\"name\":\"any\"}"));
	expect_incremental(&r, 3);
	assert_int_equal(vhost_tls(&r, "a.p.test"), SY_TLS_NONE);
	assert_int_equal(vhost_tls(&r, "t2.t.test"), SY_TLS_EDGE);
	router_stop(&r);
}

/* ns/name's status as the router reports it (get), printed compactly. */
static char *
route_status_text(struct sy_router *r, const char *ns, const char *name)
{
	char req[160];
	json_t *rep;
	char *text;

	snprintf(req, sizeof(req), "{\"op\":\"get\",\"kind\":\"route\",\"namespace\":\"%s\",\"name\":\"%s\"}",
		 ns, name);
	rep = ops_call(r, req);
	text = json_dumps(json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status"),
			  JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(rep);
	assert_non_null(text);
	return text;
}

/* Compile everything again; then ns/name's status, as route_status_text. */
static char *
status_after_full_compile(struct sy_router *r, const char *ns, const char *name)
{
	r->changes.full = true;
	assert_int_equal(sy_router_recompile(r), 0);
	return route_status_text(r, ns, name);
}

/*
 * A full compile keeps a status tree that already says what it would write
 * (route_status_is, control/kinds/route_openshift.c): the words must still be
 * those a fresh status would have, before and after the route's spec moves.
 */
static void
test_status_kept_and_followed(void **state)
{
	struct sy_router r;
	char *before, *after;

	(void)state;
	router_start(&r);
	load_many(&r);
	before = route_status_text(&r, "ns1", "r3");
	assert_non_null(strstr(before, "\"host\":\"r3.ns1.apps.test\""));
	assert_non_null(strstr(before, "\"status\":\"True\""));
	after = status_after_full_compile(&r, "ns1", "r3");
	assert_string_equal(after, before);
	free(after);
	/* The host moves: the status names the new one, after a full compile too. */
	ops_apply_ok(&r, T_ROUTE("ns1", "r3", "moved.ns1.apps.test", "s3"));
	after = route_status_text(&r, "ns1", "r3");
	assert_non_null(strstr(after, "\"host\":\"moved.ns1.apps.test\""));
	free(after);
	after = status_after_full_compile(&r, "ns1", "r3");
	assert_non_null(strstr(after, "\"host\":\"moved.ns1.apps.test\""));
	free(after);
	/* An older route takes the host: r3 is told it was replaced, and a
	 * full compile keeps the words. */
	ops_apply_ok(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"old\","
		  "\"namespace\":\"ns1\",\"creationTimestamp\":\"2001-01-01T00:00:00Z\"},\"spec\":{\"host\":"
		  "\"moved.ns1.apps.test\",\"to\":{\"kind\":\"Service\",\"name\":\"s0\"}}}");
	free(before);
	before = route_status_text(&r, "ns1", "r3");
	assert_non_null(strstr(before, "\"status\":\"False\""));
	assert_non_null(strstr(before, "replaced by older route old"));
	after = status_after_full_compile(&r, "ns1", "r3");
	assert_string_equal(after, before);
	free(after);
	free(before);
	/* A route that never served: told who holds the host, and told
	 * again when a still older one takes it (False all along). */
	ops_apply_ok(&r, T_ROUTE("ns1", "late", "moved.ns1.apps.test", "s1"));
	before = route_status_text(&r, "ns1", "late");
	assert_non_null(strstr(before, "route old already exposes"));
	ops_apply_ok(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"oldest\","
		  "\"namespace\":\"ns1\",\"creationTimestamp\":\"1999-01-01T00:00:00Z\"},\"spec\":{\"host\":"
		  "\"moved.ns1.apps.test\",\"to\":{\"kind\":\"Service\",\"name\":\"s0\"}}}");
	after = status_after_full_compile(&r, "ns1", "late");
	assert_non_null(strstr(after, "\"status\":\"False\""));
	assert_non_null(strstr(after, "route oldest already exposes"));
	free(after);
	free(before);
	router_stop(&r);
}

#define T_ICLASS(name, ctl, dflt) \
	"{\"apiVersion\":\"networking.k8s.io/v1\",\"kind\":\"IngressClass\",\"metadata\":{\"name\":\"" name "\"" \
	dflt "},\"spec\":{\"controller\":\"" ctl "\"}}"
#define T_DEFAULT_CLASS ",\"annotations\":{\"ingressclass.kubernetes.io/is-default-class\":\"true\"}"
/* An Ingress in ns0: class ("" for none), host -> service. */
#define T_INGRESS(name, cls, host, svc) \
	"{\"apiVersion\":\"networking.k8s.io/v1\",\"kind\":\"Ingress\",\"metadata\":{\"name\":\"" name "\"," \
	"\"namespace\":\"ns0\"},\"spec\":{" cls "\"rules\":[{\"host\":\"" host "\",\"http\":{\"paths\":[" \
	"{\"path\":\"/\",\"pathType\":\"Prefix\",\"backend\":{\"service\":{\"name\":\"" svc "\",\"port\":" \
	"{\"number\":80}}}}]}}]}}"

/*
 * IngressClasses compile nothing, but decide which Ingresses are served: a
 * change of one recompiles the Ingresses that name it and those that name
 * no class (scope.c's C seed, relations key c), not everything, and the
 * result is what a full compile gives (SY_COMPILE_VERIFY).
 */
static void
test_ingress_class_changes(void **state)
{
	struct sy_router r;
	char buf[64];

	(void)state;
	router_start(&r);
	load_many(&r);
	ops_apply_ok(&r, T_ICLASS("sy", "switchyard.io/ingress-controller", ""));
	ops_apply_ok(&r, T_INGRESS("a", "\"ingressClassName\":\"sy\",", "a.ing.test", "s1"));
	expect_incremental(&r, 1);
	ops_apply_ok(&r, T_INGRESS("b", "", "b.ing.test", "s2"));
	ops_apply_ok(&r, T_INGRESS("c", "\"ingressClassName\":\"other\",", "c.ing.test", "s3"));
	/* younger than Route r5 of load_many: displaced from its host */
	ops_apply_ok(&r, T_INGRESS("d", "\"ingressClassName\":\"sy\",", "r5.ns0.apps.test", "s4"));
	expect_incremental(&r, 2);
	assert_string_equal(ops_resolve_object(&r, "http://a.ing.test/", buf, sizeof(buf)), "ns0/a");
	assert_string_equal(ops_resolve_object(&r, "http://b.ing.test/", buf, sizeof(buf)), "(none)");
	assert_string_equal(ops_resolve_object(&r, "http://c.ing.test/", buf, sizeof(buf)), "(none)");
	assert_string_equal(ops_resolve_object(&r, "http://r5.ns0.apps.test/", buf, sizeof(buf)), "ns0/r5");
	/* sy becomes the default: a, d (naming it), b (naming none) and
	 * Route r5 (on d's host) are compiled, not c nor the other routes */
	ops_apply_ok(&r, T_ICLASS("sy", "switchyard.io/ingress-controller", T_DEFAULT_CLASS));
	expect_incremental(&r, 4);
	assert_string_equal(ops_resolve_object(&r, "http://b.ing.test/", buf, sizeof(buf)), "ns0/b");
	assert_string_equal(backend_of(&r, "http://b.ing.test/", buf, sizeof(buf)), "198.18.0.12");
	/* a class named by c appears: c and b */
	ops_apply_ok(&r, T_ICLASS("other", "switchyard.io/ingress-controller", ""));
	expect_incremental(&r, 2);
	assert_string_equal(ops_resolve_object(&r, "http://c.ing.test/", buf, sizeof(buf)), "ns0/c");
	/* sy goes to another controller: a, b, d are dropped */
	ops_apply_ok(&r, T_ICLASS("sy", "example.com/other", T_DEFAULT_CLASS));
	expect_incremental(&r, 4);
	assert_string_equal(ops_resolve_object(&r, "http://a.ing.test/", buf, sizeof(buf)), "(none)");
	assert_string_equal(ops_resolve_object(&r, "http://b.ing.test/", buf, sizeof(buf)), "(none)");
	assert_string_equal(ops_resolve_object(&r, "http://c.ing.test/", buf, sizeof(buf)), "ns0/c");
	assert_string_equal(ops_resolve_object(&r, "http://r5.ns0.apps.test/", buf, sizeof(buf)), "ns0/r5");
	/* deleting a class: its Ingresses (and those naming none) */
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"ingressclass\",\"name\":\"other\"}"));
	expect_incremental(&r, 2);
	assert_string_equal(ops_resolve_object(&r, "http://c.ing.test/", buf, sizeof(buf)), "(none)");
	/* an Ingress moving to a class that is ours again */
	ops_apply_ok(&r, T_ICLASS("sy", "switchyard.io/ingress-controller", ""));
	ops_apply_ok(&r, T_INGRESS("c", "\"ingressClassName\":\"sy\",", "c.ing.test", "s3"));
	expect_incremental(&r, 1);
	assert_string_equal(ops_resolve_object(&r, "http://c.ing.test/", buf, sizeof(buf)), "ns0/c");
	assert_string_equal(ops_resolve_object(&r, "http://b.ing.test/", buf, sizeof(buf)), "(none)");
	router_stop(&r);
}

/*
 * HTTPProxy includes across namespaces: a one-object change to the child
 * (its service, its conditions), to the root (an include's prefix), a
 * child leaving (the root's include is then not found) and coming back
 * each compile as in full (SY_COMPILE_VERIFY), touching the root and child.
 */
#define HPX(ns, name, spec)                                                                     \
	"{\"apiVersion\":\"projectcontour.io/v1\",\"kind\":\"HTTPProxy\",\"metadata\":{\"name\":\"" \
	name "\",\"namespace\":\"" ns "\"},\"spec\":" spec "}"
#define HPX_ROOT(prefix)                                                                        \
	HPX("ns0", "root", "{\"virtualhost\":{\"fqdn\":\"hp.test\"},\"includes\":[{\"name\":"     \
			   "\"child\",\"namespace\":\"ns1\",\"conditions\":[{\"prefix\":\"" prefix "\"}]}]}")
#define HPX_CHILD(svc, prefix)                                                                  \
	HPX("ns1", "child", "{\"routes\":[{\"conditions\":[{\"prefix\":\"" prefix "\"}],"         \
			    "\"services\":[{\"name\":\"" svc "\",\"port\":80}]}]}")

static void
test_httpproxy_includes(void **state)
{
	struct sy_router r;
	char buf[64];
	json_t *rep;

	(void)state;
	router_start(&r);
	load_many(&r);
	ops_apply_ok(&r, HPX_ROOT("/app") "," HPX_CHILD("s1", "/"));
	expect_incremental(&r, 2);
	assert_string_equal(backend_of(&r, "http://hp.test/app/x", buf, sizeof(buf)), "198.18.1.11");
	assert_string_equal(backend_of(&r, "http://hp.test/other", buf, sizeof(buf)), "");
	ops_apply_ok(&r, HPX_CHILD("s3", "/"));
	expect_incremental(&r, 2);
	assert_string_equal(backend_of(&r, "http://hp.test/app/x", buf, sizeof(buf)), "198.18.1.13");
	ops_apply_ok(&r, HPX_CHILD("s3", "/v2"));
	expect_incremental(&r, 2);
	assert_string_equal(backend_of(&r, "http://hp.test/app/x", buf, sizeof(buf)), "");
	assert_string_equal(backend_of(&r, "http://hp.test/app/v2/x", buf, sizeof(buf)), "198.18.1.13");
	ops_apply_ok(&r, HPX_ROOT("/api"));
	expect_incremental(&r, 2);
	assert_string_equal(backend_of(&r, "http://hp.test/api/v2/x", buf, sizeof(buf)), "198.18.1.13");
	rep = ops_call(&r, "{\"op\":\"delete\",\"kind\":\"httpproxy\",\"namespace\":\"ns1\",\"name\":\"child\"}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	assert_string_equal(backend_of(&r, "http://hp.test/api/v2/x", buf, sizeof(buf)), "");
	ops_apply_ok(&r, HPX_CHILD("s2", "/"));
	expect_incremental(&r, 2);
	assert_string_equal(backend_of(&r, "http://hp.test/api/x", buf, sizeof(buf)), "198.18.1.12");
	router_stop(&r);
}

int
main(void)
{
	int rc;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gateway_api_route_scope, fresh_state,
						remove_state),
		cmocka_unit_test_setup_teardown(test_one_route_change, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_host_takeover_and_readmission, fresh_state,
						remove_state),
		cmocka_unit_test_setup_teardown(test_service_and_namespace_changes, fresh_state,
						remove_state),
		cmocka_unit_test_setup_teardown(test_wildcard_and_delegation, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_wildcard_and_default_come_and_go, fresh_state,
						remove_state),
		cmocka_unit_test_setup_teardown(test_status_kept_and_followed, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_ingress_class_changes, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_gateway_api_changes, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_gateway_api_https_scope, fresh_state,
						remove_state),
		cmocka_unit_test_setup_teardown(test_gateway_class_scope, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_gateway_api_hostless_https_scope, fresh_state,
						remove_state),
		cmocka_unit_test_setup_teardown(test_httpproxy_includes, fresh_state, remove_state),
	};

	/* Every incremental compile is checked against a full one. */
	setenv("SY_COMPILE_VERIFY", "1", 1);
	if (sy_test_eal_init("test_incremental") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
