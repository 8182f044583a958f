/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway API kinds (control/kinds/gateway*.c, httproute.c, reference_grant.c,
 * tlsroute.c): validation naming object, field and value; hostname
 * intersection; what HTTPRoutes compile to (predicates, filters, answers,
 * order across rules and routes); statuses; incremental compiles checked
 * against full ones (SY_COMPILE_VERIFY=1).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "gen/compile.h"
#include "kinds/gateway_common.h"
#include "router.h"
#include "test_eal.h"
#include "test_router.h"

#define GW_NS "gw"
#define T_GC \
	"{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"GatewayClass\"," \
	"\"metadata\":{\"name\":\"sy\"},\"spec\":{\"controllerName\":\"switchyard.io/gateway-controller\"}}"
#define T_GW(host) \
	"{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\",\"metadata\":{\"name\":\"gw\"," \
	"\"namespace\":\"gw\"},\"spec\":{\"gatewayClassName\":\"sy\",\"listeners\":[{\"name\":\"http\"," \
	"\"port\":80,\"protocol\":\"HTTP\"" host "}]}}"
#define T_HR(name, spec) \
	"{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"HTTPRoute\",\"metadata\":{\"name\":\"" name \
	"\",\"namespace\":\"gw\"},\"spec\":{\"parentRefs\":[{\"name\":\"gw\"}]," spec "}}"
#define T_BASE T_GC "," T_SVC(GW_NS, "a") "," T_EPS(GW_NS, "a", "198.18.3.1") "," \
	T_SVC(GW_NS, "b") "," T_EPS(GW_NS, "b", "198.18.3.2")

/* An apply of one object that must be refused with field and a message
 * containing msg (and naming the object). */
static void
expect_refused(struct sy_router *r, const char *obj, const char *object, const char *field,
	       const char *msg)
{
	char *req = NULL;
	json_t *rep;
	const json_t *e;

	assert_true(asprintf(&req, "{\"op\":\"apply\",\"objects\":[%s]}", obj) > 0);
	rep = ops_call(r, req);
	free(req);
	e = json_array_get(json_object_get(rep, "errors"), 0);
	if (e == NULL)
		e = json_object_get(rep, "error");
	if (reply_ok(rep) || e == NULL)
		fail_msg("expected a refusal of %s", object);
	assert_string_equal(json_string_value(json_object_get(e, "object")), object);
	assert_string_equal(json_string_value(json_object_get(e, "field")), field);
	if (strstr(json_string_value(json_object_get(e, "message")), msg) == NULL)
		fail_msg("message \"%s\" lacks \"%s\"", json_string_value(json_object_get(e, "message")),
			 msg);
	json_decref(rep);
}

static void
test_validation(void **state)
{
	struct sy_router r;

	(void)state;
	router_start(&r);
	expect_refused(&r, T_HR("bad", "\"rules\":[{\"matches\":[{\"path\":{\"type\":\"Fuzzy\",\"value\":\"/x\"}}]}]"),
		       "HTTPRoute gw/bad", "spec.rules[0].matches[0].path.type", "\"Fuzzy\"");
	expect_refused(&r, T_HR("bad", "\"rules\":[{\"matches\":[{\"path\":{\"type\":\"RegularExpression\","
				       "\"value\":\"/a(\"}}]}]"),
		       "HTTPRoute gw/bad", "spec.rules[0].matches[0].path.value",
		       "\"/a(\": not a regular expression");
	expect_refused(&r, T_HR("bad", "\"rules\":[{\"matches\":[{\"headers\":[{\"type\":\"RegularExpression\","
				       "\"name\":\"x\",\"value\":\"*\"}]}]}]"),
		       "HTTPRoute gw/bad", "spec.rules[0].matches[0].headers[0].value",
		       "not a regular expression");
	expect_refused(&r, T_HR("bad", "\"rules\":[{\"backendRefs\":[{\"name\":\"a\"}]}]"), "HTTPRoute gw/bad",
		       "spec.rules[0].backendRefs[0].port", "required when kind is Service");
	expect_refused(&r, T_HR("bad", "\"rules\":[{\"matches\":[{\"path\":{\"value\":\"x/\"}}]}]"),
		       "HTTPRoute gw/bad", "spec.rules[0].matches[0].path.value", "\"x/\"");
	expect_refused(&r, T_HR("bad", "\"hostnames\":[\"a..b\"]"), "HTTPRoute gw/bad", "spec.hostnames[0]",
		       "\"a..b\"");
	expect_refused(&r, T_HR("bad", "\"rules\":[{\"filters\":[{\"type\":\"Teleport\"}]}]"),
		       "HTTPRoute gw/bad", "spec.rules[0].filters[0].type", "\"Teleport\"");
	expect_refused(&r, T_HR("bad", "\"rules\":[{\"filters\":[{\"type\":\"RequestHeaderModifier\","
				       "\"requestHeaderModifier\":{\"set\":[{\"name\":\"a b\",\"value\":\"1\"}]}}]}]"),
		       "HTTPRoute gw/bad", "spec.rules[0].filters[0].requestHeaderModifier.set[0].name",
		       "\"a b\"");
	expect_refused(&r,
		       "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\",\"metadata\":"
		       "{\"name\":\"g\",\"namespace\":\"gw\"},\"spec\":{\"gatewayClassName\":\"sy\",\"listeners\":"
		       "[{\"name\":\"a\",\"port\":80,\"protocol\":\"HTTP\"},{\"name\":\"a\",\"port\":80,"
		       "\"protocol\":\"HTTP\"}]}}",
		       "Gateway gw/g", "spec.listeners[1].name", "unique");
	expect_refused(&r,
		       "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\",\"metadata\":"
		       "{\"name\":\"g\",\"namespace\":\"gw\"},\"spec\":{\"listeners\":[{\"name\":\"a\","
		       "\"port\":80,\"protocol\":\"HTTP\"}]}}",
		       "Gateway gw/g", "spec.gatewayClassName", "required");
	expect_refused(&r,
		       "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\",\"metadata\":"
		       "{\"name\":\"g\",\"namespace\":\"gw\"},\"spec\":{\"gatewayClassName\":\"sy\",\"listeners\":"
		       "[{\"name\":\"a\",\"port\":80,\"protocol\":\"HTTP\",\"allowedRoutes\":{\"namespaces\":"
		       "{\"from\":\"Selector\",\"selector\":{\"matchExpressions\":[{\"key\":\"k\",\"operator\":"
		       "\"Near\"}]}}}}]}}",
		       "Gateway gw/g",
		       "spec.listeners[0].allowedRoutes.namespaces.selector.matchExpressions[0]",
		       "\"Near\"");
	/* nothing of the refused objects was stored */
	{
		json_t *rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"httproutes\"}");

		assert_int_equal(json_array_size(json_object_get(rep, "items")), 0);
		json_decref(rep);
	}
	router_stop(&r);
}

static void
test_host_intersect(void **state)
{
	char out[SY_GW_HOST_MAX];

	(void)state;
	assert_true(sy_gw_host_intersect(NULL, "a.example.com", out, sizeof(out)));
	assert_string_equal(out, "a.example.com");
	assert_true(sy_gw_host_intersect(NULL, "", out, sizeof(out)));
	assert_string_equal(out, "");
	assert_true(sy_gw_host_intersect("*.example.com", "a.example.com", out, sizeof(out)));
	assert_string_equal(out, "a.example.com");
	assert_true(sy_gw_host_intersect("*.example.com", "a.b.example.com", out, sizeof(out)));
	assert_string_equal(out, "a.b.example.com");
	assert_false(sy_gw_host_intersect("*.example.com", "example.com", out, sizeof(out)));
	assert_true(sy_gw_host_intersect("very.specific.com", "*.specific.com", out, sizeof(out)));
	assert_string_equal(out, "very.specific.com");
	assert_true(sy_gw_host_intersect("*.example.com", "*.a.example.com", out, sizeof(out)));
	assert_string_equal(out, "*.a.example.com");
	assert_true(sy_gw_host_intersect("*.a.example.com", "*.example.com", out, sizeof(out)));
	assert_string_equal(out, "*.a.example.com");
	assert_true(sy_gw_host_intersect("x.test", "", out, sizeof(out)));
	assert_string_equal(out, "x.test");
	assert_false(sy_gw_host_intersect("x.test", "y.test", out, sizeof(out)));
	assert_false(sy_gw_host_intersect("*.wildcard.io", "wildcard.io", out, sizeof(out)));
	assert_true(sy_gw_hostname_valid("*.example.com"));
	assert_false(sy_gw_hostname_valid("198.18.0.1"));
	assert_false(sy_gw_hostname_valid("a.*.com"));
	assert_false(sy_gw_hostname_valid("host:80"));
}

/* The resolve reply for url with the header (name: value) or none. */
static json_t *
resolve(struct sy_router *r, const char *method, const char *url, const char *hname,
	const char *hval)
{
	char req[512];

	if (hname != NULL)
		snprintf(req, sizeof(req),
			 "{\"op\":\"resolve\",\"url\":\"%s\",\"method\":\"%s\",\"headers\":{\"%s\":\"%s\"}}",
			 url, method, hname, hval);
	else
		snprintf(req, sizeof(req), "{\"op\":\"resolve\",\"url\":\"%s\",\"method\":\"%s\"}", url,
			 method);
	return ops_call(r, req);
}

/* The first service resolve names for the request ("" when none). */
static const char *
service_of(struct sy_router *r, const char *method, const char *url, const char *hname,
	   const char *hval, char *buf, size_t len)
{
	json_t *rep = resolve(r, method, url, hname, hval);
	const json_t *s = json_array_get(json_object_get(rep, "services"), 0);

	snprintf(buf, len, "%s", s ? json_string_value(json_object_get(s, "name")) : "");
	json_decref(rep);
	return buf;
}

static void
test_compile_precedence(void **state)
{
	struct sy_router r;
	char buf[64];

	(void)state;
	router_start(&r);
	ops_apply_ok(&r, T_BASE "," T_GW(""));
	/* b: a header match and a method match on "/" and an exact path;
	 * a: the catch-all and a longer prefix. */
	ops_apply_ok(&r, T_HR("a", "\"rules\":[{\"backendRefs\":[{\"name\":\"a\",\"port\":80}]},"
				   "{\"matches\":[{\"path\":{\"value\":\"/long/\"}}],"
				   "\"backendRefs\":[{\"name\":\"a\",\"port\":80}]}]"));
	ops_apply_ok(&r, T_HR("b", "\"rules\":[{\"matches\":[{\"headers\":[{\"name\":\"x-v\",\"value\":\"2\"}]}],"
				   "\"backendRefs\":[{\"name\":\"b\",\"port\":80}]},"
				   "{\"matches\":[{\"method\":\"DELETE\"}],\"backendRefs\":[{\"name\":\"b\",\"port\":80}]},"
				   "{\"matches\":[{\"path\":{\"type\":\"Exact\",\"value\":\"/long\"}}],"
				   "\"backendRefs\":[{\"name\":\"b\",\"port\":80}]}]"));
	assert_string_equal(service_of(&r, "GET", "http://any.test/", NULL, NULL, buf, sizeof(buf)), "a");
	assert_string_equal(service_of(&r, "GET", "http://any.test/", "X-V", "2", buf, sizeof(buf)), "b");
	assert_string_equal(service_of(&r, "DELETE", "http://any.test/", NULL, NULL, buf, sizeof(buf)),
			    "b");
	/* exact beats prefix of the same path; the longer prefix beats "/"
	 * with a header (path first) */
	assert_string_equal(service_of(&r, "GET", "http://any.test/long", NULL, NULL, buf, sizeof(buf)),
			    "b");
	assert_string_equal(service_of(&r, "GET", "http://any.test/long/x", "X-V", "2", buf, sizeof(buf)),
			    "a");
	/* "/long/" is element-wise "/long": not "/longer" */
	assert_string_equal(service_of(&r, "GET", "http://any.test/longer", NULL, NULL, buf, sizeof(buf)),
			    "a");
	{
		json_t *rep = resolve(&r, "GET", "http://any.test/longer", NULL, NULL);

		assert_string_equal(json_string_value(json_object_get(json_object_get(rep, "rule"), "path")),
				    "/");
		json_decref(rep);
	}
	router_stop(&r);
}

static void
test_compile_answers(void **state)
{
	struct sy_router r;
	json_t *rep, *st;
	char *dump;

	(void)state;
	router_start(&r);
	ops_apply_ok(&r, T_BASE "," T_GW(",\"hostname\":\"*.example.com\""));
	ops_apply_ok(&r, T_HR("x", "\"hostnames\":[\"www.example.com\",\"other.test\"],\"rules\":["
				   "{\"matches\":[{\"path\":{\"type\":\"Exact\",\"value\":\"/old\"}}],"
				   "\"filters\":[{\"type\":\"RequestRedirect\",\"requestRedirect\":{\"scheme\":\"https\","
				   "\"statusCode\":301}}]},"
				   "{\"matches\":[{\"path\":{\"value\":\"/missing\"}}],"
				   "\"backendRefs\":[{\"name\":\"nope\",\"port\":80}]},"
				   "{\"backendRefs\":[{\"name\":\"a\",\"port\":80,\"weight\":3},{\"name\":\"b\",\"port\":80}],"
				   "\"filters\":[{\"type\":\"RequestHeaderModifier\",\"requestHeaderModifier\":"
				   "{\"set\":[{\"name\":\"X-A\",\"value\":\"1\"}],\"remove\":[\"X-B\"]}}]}]"));
	rep = resolve(&r, "GET", "http://www.example.com/old", NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "redirect");
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 301);
	assert_string_equal(json_string_value(json_object_get(rep, "location")),
			    "https://www.example.com/old");
	json_decref(rep);
	rep = resolve(&r, "GET", "http://www.example.com/missing/x", NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "static");
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 500);
	json_decref(rep);
	rep = resolve(&r, "GET", "http://www.example.com/", NULL, NULL);
	dump = json_dumps(json_object_get(rep, "filters"), JSON_COMPACT);
	assert_string_equal(dump, "[\"setRequestHeader(\\\"X-A\\\", \\\"1\\\")\","
				  "\"removeRequestHeader(\\\"X-B\\\")\"]");
	free(dump);
	/* weights 3:1 per service */
	assert_true(json_real_value(json_object_get(json_array_get(json_object_get(rep, "services"), 0),
						    "share")) > 0.74);
	json_decref(rep);
	/* other.test is outside the listener's *.example.com */
	rep = resolve(&r, "GET", "http://other.test/", NULL, NULL);
	assert_true(json_is_null(json_object_get(rep, "object")) ||
		    json_object_get(rep, "object") == NULL);
	json_decref(rep);
	/* status: one parent, accepted, a backend not found */
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"httproute\",\"namespace\":\"gw\",\"name\":\"x\"}");
	st = json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status");
	dump = json_dumps(st, JSON_COMPACT | JSON_SORT_KEYS);
	assert_non_null(strstr(dump, "\"controllerName\":\"switchyard.io/gateway-controller\""));
	assert_non_null(strstr(dump, "\"reason\":\"BackendNotFound\""));
	assert_non_null(strstr(dump, "\"reason\":\"Accepted\",\"status\":\"True\",\"type\":\"Accepted\""));
	free(dump);
	json_decref(rep);
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"gateway\",\"namespace\":\"gw\",\"name\":\"gw\"}");
	st = json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status");
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(st, "listeners"), 0), "attachedRoutes")),
			 1);
	json_decref(rep);
	router_stop(&r);
}

/* One-object changes recompile what they must: every compile here is
 * checked against a full one (SY_COMPILE_VERIFY), statuses included. */
static void
test_incremental_changes(void **state)
{
	struct sy_router r;
	char buf[64];

	(void)state;
	router_start(&r);
	ops_apply_ok(&r, T_BASE "," T_GW(",\"hostname\":\"one.test\""));
	ops_apply_ok(&r, T_HR("x", "\"rules\":[{\"backendRefs\":[{\"name\":\"a\",\"port\":80}]}]"));
	assert_string_equal(ops_resolve_object(&r, "http://one.test/", buf, sizeof(buf)), "gw/x");
	/* the listener's hostname moves: the route's host moves with it */
	ops_apply_ok(&r, T_GW(",\"hostname\":\"two.test\""));
	assert_true(r.last_compile_incremental);
	assert_string_equal(ops_resolve_object(&r, "http://two.test/", buf, sizeof(buf)), "gw/x");
	assert_string_equal(ops_resolve_object(&r, "http://one.test/", buf, sizeof(buf)), "(none)");
	/* the route changes its backend: incremental, the Gateway's count
	 * kept */
	ops_apply_ok(&r, T_HR("x", "\"rules\":[{\"backendRefs\":[{\"name\":\"b\",\"port\":80}]}]"));
	assert_true(r.last_compile_incremental);
	assert_string_equal(service_of(&r, "GET", "http://two.test/", NULL, NULL, buf, sizeof(buf)), "b");
	/* its Service goes: 500 */
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"service\",\"namespace\":\"gw\",\"name\":\"b\"}"));
	{
		json_t *rep = resolve(&r, "GET", "http://two.test/", NULL, NULL);

		assert_int_equal(json_integer_value(json_object_get(rep, "status")), 500);
		json_decref(rep);
	}
	/* a second route on the listener, then the Gateway goes */
	ops_apply_ok(&r, T_HR("y", "\"hostnames\":[\"two.test\"],\"rules\":[{\"matches\":[{\"path\":"
				   "{\"value\":\"/y\"}}],\"backendRefs\":[{\"name\":\"a\",\"port\":80}]}]"));
	assert_true(r.last_compile_incremental);
	assert_string_equal(ops_resolve_object(&r, "http://two.test/y", buf, sizeof(buf)), "gw/y");
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"gateway\",\"namespace\":\"gw\",\"name\":\"gw\"}"));
	assert_string_equal(ops_resolve_object(&r, "http://two.test/y", buf, sizeof(buf)), "(none)");
	router_stop(&r);
}

/* RequestMirror: refused when malformed, naming the field; compiled to a
 * mirror with its share (resolve shows it, the vhost is proxied); a mirror
 * whose Service is missing mirrors nothing and says so in ResolvedRefs;
 * the mirror Service's endpoints change the route (relations). */
static void
test_request_mirror(void **state)
{
	struct sy_router r;
	json_t *rep, *m;
	char *dump;

#define MIRROR_HR(name, mirror) \
	T_HR(name, "\"hostnames\":[\"m.example.com\"],\"rules\":[{\"backendRefs\":[{\"name\":\"a\"," \
		   "\"port\":80}],\"filters\":[{\"type\":\"RequestMirror\",\"requestMirror\":" mirror "}]}]")
	(void)state;
	router_start(&r);
	ops_apply_ok(&r, T_BASE "," T_GW(""));
	expect_refused(&r, MIRROR_HR("bad", "{\"backendRef\":{\"name\":\"b\",\"port\":80},\"percent\":101}"),
		       "HTTPRoute gw/bad", "spec.rules[0].filters[0].requestMirror.percent", "0 to 100");
	expect_refused(&r,
		       MIRROR_HR("bad", "{\"backendRef\":{\"name\":\"b\",\"port\":80},"
					"\"fraction\":{\"numerator\":3,\"denominator\":2}}"),
		       "HTTPRoute gw/bad", "spec.rules[0].filters[0].requestMirror.fraction.denominator",
		       "numerator");
	expect_refused(&r,
		       MIRROR_HR("bad", "{\"backendRef\":{\"name\":\"b\",\"port\":80},\"percent\":5,"
					"\"fraction\":{\"numerator\":1}}"),
		       "HTTPRoute gw/bad", "spec.rules[0].filters[0].requestMirror", "only one of");
	expect_refused(&r, MIRROR_HR("bad", "{\"backendRef\":{\"name\":\"b\"}}"), "HTTPRoute gw/bad",
		       "spec.rules[0].filters[0].requestMirror.backendRef.port", "required");
	/* a quarter of the requests to b, all of them to a */
	ops_apply_ok(&r, MIRROR_HR("m", "{\"backendRef\":{\"name\":\"b\",\"port\":80},\"percent\":25}"));
	rep = resolve(&r, "GET", "http://m.example.com/x", NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "mode")), "proxy");
	assert_string_equal(json_string_value(json_object_get(json_array_get(
				    json_object_get(rep, "services"), 0), "name")), "a");
	assert_int_equal(json_array_size(json_object_get(rep, "services")), 1);
	m = json_array_get(json_object_get(rep, "mirrors"), 0);
	assert_non_null(m);
	assert_true(json_real_value(json_object_get(m, "share")) > 0.249 &&
		    json_real_value(json_object_get(m, "share")) < 0.251);
	dump = json_dumps(m, JSON_COMPACT);
	assert_non_null(strstr(dump, "\"address\":\"198.18.3.2\""));
	assert_non_null(strstr(dump, "\"name\":\"b\""));
	free(dump);
	json_decref(rep);
	/* the mirror's endpoints move: the route follows (incremental) */
	ops_apply_ok(&r, T_EPS(GW_NS, "b", "198.18.3.9"));
	assert_true(r.last_compile_incremental);
	rep = resolve(&r, "GET", "http://m.example.com/x", NULL, NULL);
	dump = json_dumps(json_object_get(rep, "mirrors"), JSON_COMPACT);
	assert_non_null(strstr(dump, "\"address\":\"198.18.3.9\""));
	free(dump);
	json_decref(rep);
	/* fraction 1/8 */
	ops_apply_ok(&r, MIRROR_HR("m", "{\"backendRef\":{\"name\":\"b\",\"port\":80},"
					"\"fraction\":{\"numerator\":1,\"denominator\":8}}"));
	rep = resolve(&r, "GET", "http://m.example.com/x", NULL, NULL);
	m = json_array_get(json_object_get(rep, "mirrors"), 0);
	assert_true(json_real_value(json_object_get(m, "share")) > 0.124 &&
		    json_real_value(json_object_get(m, "share")) < 0.126);
	json_decref(rep);
	/* a missing mirror Service: no mirror, the route still served, and
	 * ResolvedRefs says why */
	ops_apply_ok(&r, MIRROR_HR("m", "{\"backendRef\":{\"name\":\"nope\",\"port\":80}}"));
	rep = resolve(&r, "GET", "http://m.example.com/x", NULL, NULL);
	assert_null(json_object_get(rep, "mirrors"));
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "backend");
	json_decref(rep);
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"httproute\",\"namespace\":\"gw\",\"name\":\"m\"}");
	dump = json_dumps(json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status"),
			  JSON_COMPACT | JSON_SORT_KEYS);
	assert_non_null(strstr(dump, "\"reason\":\"BackendNotFound\""));
	assert_non_null(strstr(dump, "nope"));
	free(dump);
	json_decref(rep);
	/* the Service appears: the route's mirror comes with it */
	ops_apply_ok(&r, T_SVC(GW_NS, "nope") "," T_EPS(GW_NS, "nope", "198.18.3.7"));
	assert_true(r.last_compile_incremental);
	rep = resolve(&r, "GET", "http://m.example.com/x", NULL, NULL);
	dump = json_dumps(json_object_get(rep, "mirrors"), JSON_COMPACT);
	assert_non_null(strstr(dump, "\"address\":\"198.18.3.7\""));
	assert_non_null(strstr(dump, "\"share\":1.0"));
	free(dump);
	json_decref(rep);
#undef MIRROR_HR
	router_stop(&r);
}

/* Gateway API's wildcards cover any number of labels (the suite's
 * HTTPRouteListenerHostnameMatching: multiple.prefixes.bar.com under
 * *.bar.com), the most specific wildcard winning; an OpenShift Subdomain
 * wildcard still covers exactly one. */
static void
test_deep_wildcards(void **state)
{
	struct sy_router r;
	char buf[64];

	(void)state;
	router_start_with(&r, "{\"allow_wildcard_routes\": true}");
	ops_apply_ok(&r, T_BASE "," T_GW(",\"hostname\":\"*.deep.test\""));
	ops_apply_ok(&r, T_HR("x", "\"rules\":[{\"backendRefs\":[{\"name\":\"a\",\"port\":80}]}]"));
	ops_apply_ok(&r, T_HR("y", "\"hostnames\":[\"*.y.deep.test\"],\"rules\":[{\"backendRefs\":"
				   "[{\"name\":\"b\",\"port\":80}]}]"));
	assert_string_equal(ops_resolve_object(&r, "http://a.deep.test/", buf, sizeof(buf)), "gw/x");
	assert_string_equal(ops_resolve_object(&r, "http://multiple.prefixes.deep.test/", buf, sizeof(buf)),
			    "gw/x");
	assert_string_equal(ops_resolve_object(&r, "http://a.y.deep.test/", buf, sizeof(buf)), "gw/y");
	assert_string_equal(ops_resolve_object(&r, "http://b.a.y.deep.test/", buf, sizeof(buf)), "gw/y");
	assert_string_equal(ops_resolve_object(&r, "http://deep.test/", buf, sizeof(buf)), "(none)");
	assert_int_equal(sy_gen_acquire(&r.slot)->n_deep_wildcard_vhosts, 2);
	/* an OpenShift wildcard route: one label */
	ops_apply_ok(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":"
			 "\"w\",\"namespace\":\"gw\"},\"spec\":{\"host\":\"www.os.test\",\"wildcardPolicy\":"
			 "\"Subdomain\",\"to\":{\"kind\":\"Service\",\"name\":\"a\"}}}");
	assert_string_equal(ops_resolve_object(&r, "http://a.os.test/", buf, sizeof(buf)), "gw/w");
	assert_string_equal(ops_resolve_object(&r, "http://a.b.os.test/", buf, sizeof(buf)), "(none)");
	/* the Gateway goes: no deep wildcard left */
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"gateway\",\"namespace\":\"gw\",\"name\":\"gw\"}"));
	assert_int_equal(sy_gen_acquire(&r.slot)->n_deep_wildcard_vhosts, 0);
	assert_string_equal(ops_resolve_object(&r, "http://b.a.y.deep.test/", buf, sizeof(buf)), "(none)");
	router_stop(&r);
}

/* A listener is served only on routerd's own ports, as the config names
 * them (listen.http): there Programmed, elsewhere PortUnavailable. */
static void
test_listener_ports(void **state)
{
	struct sy_router r;
	char buf[64];
	json_t *rep;
	char *dump;

	(void)state;
	router_start_with(&r, "{\"listen\": {\"http\": 8080}}");
	ops_apply_ok(&r, T_BASE ","
		     "{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"Gateway\",\"metadata\":"
		     "{\"name\":\"gw\",\"namespace\":\"gw\"},\"spec\":{\"gatewayClassName\":\"sy\","
		     "\"listeners\":[{\"name\":\"a\",\"port\":8080,\"protocol\":\"HTTP\",\"hostname\":"
		     "\"a.test\"},{\"name\":\"b\",\"port\":80,\"protocol\":\"HTTP\",\"hostname\":\"b.test\"}]}}");
	ops_apply_ok(&r, T_HR("x", "\"rules\":[{\"backendRefs\":[{\"name\":\"a\",\"port\":80}]}]"));
	assert_string_equal(ops_resolve_object(&r, "http://a.test/", buf, sizeof(buf)), "gw/x");
	assert_string_equal(ops_resolve_object(&r, "http://b.test/", buf, sizeof(buf)), "(none)");
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"gateway\",\"namespace\":\"gw\",\"name\":\"gw\"}");
	dump = json_dumps(json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status"),
			  JSON_COMPACT | JSON_SORT_KEYS);
	assert_non_null(strstr(dump, "\"reason\":\"PortUnavailable\""));
	assert_non_null(strstr(dump, "port 80 is not routerd's HTTP port (config listen.http)"));
	assert_non_null(strstr(dump, "\"attachedRoutes\":1"));
	free(dump);
	json_decref(rep);
	router_stop(&r);
}

#define T_GR(name, spec) \
	"{\"apiVersion\":\"gateway.networking.k8s.io/v1\",\"kind\":\"GRPCRoute\",\"metadata\":{\"name\":\"" name \
	"\",\"namespace\":\"gw\"},\"spec\":{\"parentRefs\":[{\"name\":\"gw\"}]," spec "}}"

/* GRPCRoute: method matches become paths, its backends speak h2c, its
 * statuses and the listener's attachedRoutes are HTTPRoute's, bad matches
 * are refused naming the field. */
static void
test_grpcroute(void **state)
{
	struct sy_router r;
	json_t *rep, *st;
	char buf[64], *dump;

	(void)state;
	router_start(&r);
	expect_refused(&r, T_GR("bad", "\"rules\":[{\"matches\":[{\"method\":{\"type\":\"Exact\"}}]}]"),
		       "GRPCRoute gw/bad", "spec.rules[0].matches[0].method", "service and method");
	expect_refused(&r, T_GR("bad", "\"rules\":[{\"matches\":[{\"method\":{\"service\":\"a/b\"}}]}]"),
		       "GRPCRoute gw/bad", "spec.rules[0].matches[0].method.service", "\"a/b\"");
	expect_refused(&r, T_GR("bad", "\"rules\":[{\"matches\":[{},{\"method\":{\"method\":\"9x\"}}]}]"),
		       "GRPCRoute gw/bad", "spec.rules[0].matches[1].method.method", "\"9x\"");
	expect_refused(&r, T_GR("bad", "\"rules\":[{\"matches\":[{\"method\":{\"type\":\"RegularExpression\","
				       "\"method\":\"(\"}}]}]"),
		       "GRPCRoute gw/bad", "spec.rules[0].matches[0].method.method", "regular expression");
	expect_refused(&r, T_GR("bad", "\"rules\":[{\"filters\":[{\"type\":\"URLRewrite\"}]}]"),
		       "GRPCRoute gw/bad", "spec.rules[0].filters[0].type", "\"URLRewrite\"");
	expect_refused(&r, T_GR("bad", "\"rules\":[{\"matches\":[{\"headers\":[{\"name\":\"x\"}]}]}]"),
		       "GRPCRoute gw/bad", "spec.rules[0].matches[0].headers[0].value", "required");
	ops_apply_ok(&r, T_BASE "," T_GW(""));
	/* a: pkg.Svc/Get exactly, and any method Put (by regex); b: the rest
	 * of pkg.Svc, and x-v: 2 on any path */
	ops_apply_ok(&r, T_GR("g", "\"hostnames\":[\"grpc.test\"],\"rules\":["
				   "{\"matches\":[{\"method\":{\"service\":\"pkg.Svc\",\"method\":\"Get\"}},"
				   "{\"method\":{\"method\":\"Put\"}}],"
				   "\"backendRefs\":[{\"name\":\"a\",\"port\":80}]},"
				   "{\"matches\":[{\"method\":{\"service\":\"pkg.Svc\"}},"
				   "{\"headers\":[{\"name\":\"x-v\",\"value\":\"2\"}]}],"
				   "\"backendRefs\":[{\"name\":\"b\",\"port\":80}]},"
				   "{\"matches\":[{\"method\":{\"type\":\"RegularExpression\","
				   "\"service\":\"re\\\\.S.*\",\"method\":\"Do|Go\"}}],"
				   "\"backendRefs\":[{\"name\":\"a\",\"port\":80}]}]"));
	assert_string_equal(service_of(&r, "POST", "http://grpc.test/pkg.Svc/Get", NULL, NULL, buf,
				       sizeof(buf)), "a");
	assert_string_equal(service_of(&r, "POST", "http://grpc.test/other.Svc/Put", NULL, NULL, buf,
				       sizeof(buf)), "a");
	assert_string_equal(service_of(&r, "POST", "http://grpc.test/pkg.Svc/List", NULL, NULL, buf,
				       sizeof(buf)), "b");
	assert_string_equal(service_of(&r, "POST", "http://grpc.test/x.Y/Z", "X-V", "2", buf,
				       sizeof(buf)), "b");
	assert_string_equal(service_of(&r, "POST", "http://grpc.test/re.Svc/Go", NULL, NULL, buf,
				       sizeof(buf)), "a");
	/* not matched: no rule, the router's 404 */
	rep = resolve(&r, "POST", "http://grpc.test/x.Y/Z", NULL, NULL);
	assert_true(json_object_get(rep, "object") == NULL ||
		    json_is_null(json_object_get(rep, "object")));
	json_decref(rep);
	rep = resolve(&r, "POST", "http://grpc.test/re.Svc/Went", NULL, NULL);
	assert_true(json_object_get(rep, "object") == NULL ||
		    json_is_null(json_object_get(rep, "object")));
	json_decref(rep);
	rep = resolve(&r, "POST", "http://grpc.test/pkg.Svc/Get", NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(rep, "services"), 0), "protocol")),
			    "h2c");
	json_decref(rep);
	/* an HTTPRoute to the same Service keeps HTTP/1.1: another pool */
	ops_apply_ok(&r, T_HR("h", "\"hostnames\":[\"http.test\"],"
				   "\"rules\":[{\"backendRefs\":[{\"name\":\"a\",\"port\":80}]}]"));
	rep = resolve(&r, "GET", "http://http.test/", NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(rep, "services"), 0), "protocol")),
			    "http/1.1");
	json_decref(rep);
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"grpcroutes\",\"namespace\":\"gw\",\"name\":\"g\"}");
	st = json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status");
	dump = json_dumps(st, JSON_COMPACT | JSON_SORT_KEYS);
	assert_non_null(strstr(dump, "\"reason\":\"Accepted\",\"status\":\"True\",\"type\":\"Accepted\""));
	assert_non_null(strstr(dump, "\"reason\":\"ResolvedRefs\",\"status\":\"True\",\"type\":\"ResolvedRefs\""));
	free(dump);
	json_decref(rep);
	/* a backend that is not there */
	ops_apply_ok(&r, T_GR("g", "\"hostnames\":[\"grpc.test\"],"
				   "\"rules\":[{\"backendRefs\":[{\"name\":\"nope\",\"port\":80}]}]"));
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"grpcroute\",\"namespace\":\"gw\",\"name\":\"g\"}");
	st = json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status");
	dump = json_dumps(st, JSON_COMPACT | JSON_SORT_KEYS);
	assert_non_null(strstr(dump, "\"reason\":\"BackendNotFound\""));
	free(dump);
	json_decref(rep);
	/* the listener counts both routes; its supportedKinds name GRPCRoute */
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"gateway\",\"namespace\":\"gw\",\"name\":\"gw\"}");
	st = json_array_get(json_object_get(json_object_get(json_array_get(json_object_get(rep, "items"),
									   0), "status"), "listeners"), 0);
	assert_int_equal(json_integer_value(json_object_get(st, "attachedRoutes")), 2);
	dump = json_dumps(json_object_get(st, "supportedKinds"), JSON_COMPACT);
	assert_non_null(strstr(dump, "GRPCRoute"));
	free(dump);
	json_decref(rep);
	router_stop(&r);
}

int
main(void)
{
	int rc;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_validation, fresh_state, remove_state),
		cmocka_unit_test(test_host_intersect),
		cmocka_unit_test_setup_teardown(test_compile_precedence, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_compile_answers, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_incremental_changes, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_listener_ports, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_grpcroute, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_request_mirror, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_deep_wildcards, fresh_state, remove_state),
	};

	setenv("SY_COMPILE_VERIFY", "1", 1);
	if (sy_test_eal_init("test_gateway") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
