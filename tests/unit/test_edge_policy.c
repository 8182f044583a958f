/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Edge policies of OpenShift Routes (issue 39; control/kinds/route_edge_policy.c,
 * control/gen/source_allow.c, include/sy_source_allow.h): HAProxy's time format,
 * the HSTS value's rules, allowlists of either family parsed and matched, and a
 * compile: valid annotations reach the rule, an invalid one is not applied, the
 * route is served and its status names the annotation and the value.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>
#include <stdlib.h>
#include <cmocka.h>

#include "arena.h"
#include "gen/compile.h"
#include "gen/source_allow.h"
#include "kinds/kinds.h"
#include "kinds/route_edge_policy.h"
#include "ops/errors.h"
#include "store/store.h"
#include "test_eal.h"

static void
test_haproxy_time(void **state)
{
	uint32_t ms = 0;

	(void)state;
	assert_int_equal(sy_haproxy_time_ms("2s", &ms), 0);
	assert_int_equal(ms, 2000);
	assert_int_equal(sy_haproxy_time_ms("500", &ms), 0); /* no unit: ms */
	assert_int_equal(ms, 500);
	assert_int_equal(sy_haproxy_time_ms("250ms", &ms), 0);
	assert_int_equal(ms, 250);
	assert_int_equal(sy_haproxy_time_ms("1500us", &ms), 0); /* rounded up */
	assert_int_equal(ms, 2);
	assert_int_equal(sy_haproxy_time_ms("5m", &ms), 0);
	assert_int_equal(ms, 300000);
	assert_int_equal(sy_haproxy_time_ms("2h", &ms), 0);
	assert_int_equal(ms, 7200000);
	assert_int_equal(sy_haproxy_time_ms("24d", &ms), 0);
	assert_int_equal(ms, 2073600000u);
	ms = 7;
	assert_int_equal(sy_haproxy_time_ms("25d", &ms), -1); /* past 2^31 - 1 ms */
	assert_int_equal(sy_haproxy_time_ms("0", &ms), -1);
	assert_int_equal(sy_haproxy_time_ms("0s", &ms), -1);
	assert_int_equal(sy_haproxy_time_ms("2x", &ms), -1);
	assert_int_equal(sy_haproxy_time_ms("s", &ms), -1);
	assert_int_equal(sy_haproxy_time_ms("", &ms), -1);
	assert_int_equal(sy_haproxy_time_ms(" 2s", &ms), -1);
	assert_int_equal(sy_haproxy_time_ms("2 s", &ms), -1);
	assert_int_equal(sy_haproxy_time_ms("-2s", &ms), -1);
	assert_int_equal(sy_haproxy_time_ms("99999999999999999999", &ms), -1);
	assert_int_equal(ms, 7); /* untouched by a refusal */
}

static void
test_hsts_value(void **state)
{
	(void)state;
	assert_int_equal(sy_hsts_check("max-age=31536000"), 0);
	assert_int_equal(sy_hsts_check("max-age=31536000;includeSubDomains;preload"), 0);
	assert_int_equal(sy_hsts_check("max-age=0 ; INCLUDESUBDOMAINS"), 0);
	assert_int_equal(sy_hsts_check("preload; max-age=5"), 0);
	assert_int_equal(sy_hsts_check("includeSubDomains"), -1); /* max-age is required */
	assert_int_equal(sy_hsts_check("max-age="), -1);
	assert_int_equal(sy_hsts_check("max-age=abc"), -1);
	assert_int_equal(sy_hsts_check("max-age=1;;preload"), -1);
	assert_int_equal(sy_hsts_check("max-age=1;"), -1);
	assert_int_equal(sy_hsts_check("max-age=1;foo"), -1);
	assert_int_equal(sy_hsts_check("max-age=1;preload;preload"), -1);
	assert_int_equal(sy_hsts_check("max-age=1;max-age=2"), -1);
	assert_int_equal(sy_hsts_check(""), -1);
}

static struct sy_addr
addr(const char *s)
{
	struct sy_addr a;

	assert_int_equal(sy_addr_parse(s, &a), 0);
	return a;
}

static bool
allowed(const struct sy_source_allow *l, const char *a)
{
	struct sy_addr x = addr(a);

	return sy_source_allowed(l, &x);
}

static void
test_source_allow(void **state)
{
	struct sy_arena *a = sy_arena_new();
	const struct sy_source_allow *l;
	char bad[80];

	(void)state;
	assert_non_null(a);
	assert_int_equal(sy_source_allow_check("198.18.0.0/24 198.18.1.7\t2001:2::/48", bad, sizeof(bad)), 0);
	assert_int_equal(sy_source_allow_check("198.18.0.0/24 198.18.0.0/33", bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "198.18.0.0/33");
	assert_int_equal(sy_source_allow_check("2001:2::zz", bad, sizeof(bad)), -EINVAL);
	assert_string_equal(bad, "2001:2::zz");
	assert_int_equal(sy_source_allow_check("198.18.0.1/24x", bad, sizeof(bad)), -EINVAL);
	assert_int_equal(sy_source_allow_check("   ", bad, sizeof(bad)), -ENOENT);
	assert_null(sy_source_allow_build(a, "198.18.0.1 nonsense"));

	/* A host bit set in the prefix is masked off, as HAProxy's acl does. */
	l = sy_source_allow_build(a, " 198.18.0.77/24 198.18.1.7 2001:2:0:1::/64 2001:2::5 ");
	assert_non_null(l);
	assert_int_equal(l->n4, 2);
	assert_int_equal(l->n6, 2);
	assert_true(allowed(l, "198.18.0.1"));
	assert_true(allowed(l, "198.18.0.255"));
	assert_true(allowed(l, "198.18.1.7"));
	assert_false(allowed(l, "198.18.1.8"));
	assert_false(allowed(l, "198.19.0.1"));
	assert_true(allowed(l, "2001:2:0:1::abcd"));
	assert_false(allowed(l, "2001:2:0:2::1"));
	assert_true(allowed(l, "2001:2::5"));
	assert_false(allowed(l, "2001:2::6"));
	/* Odd prefix lengths compare the bits they have and no more. */
	l = sy_source_allow_build(a, "198.18.0.0/15 2001:2::/47");
	assert_non_null(l);
	assert_true(allowed(l, "198.19.200.1"));
	assert_false(allowed(l, "198.20.0.1"));
	assert_true(allowed(l, "2001:2:1::1"));
	assert_false(allowed(l, "2001:2:2::1"));
	assert_false(allowed(l, "2001:3::1"));
	/* An IPv4-only list refuses every IPv6 client, and /0 takes them all. */
	l = sy_source_allow_build(a, "0.0.0.0/0");
	assert_true(allowed(l, "203.0.113.9"));
	assert_false(allowed(l, "2001:2::1"));
	sy_arena_free(a);
}

static const struct sy_compile_opts opts = {
	.routing_subdomain = "apps.test",
	.router_name = "default",
	.no_route_status = 503,
	.now = "2026-01-01T00:00:00Z",
};

static void
put_route(struct sy_store *st, const char *name, const char *host, json_t *ann, json_t *tls)
{
	char uid[64];
	json_t *obj = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:{s:s}}}", "apiVersion",
				"route.openshift.io/v1", "kind", "Route", "metadata", "name", name,
				"namespace", "ns", "spec", "host", host, "to", "name", "svc");

	if (ann != NULL)
		json_object_set_new(json_object_get(obj, "metadata"), "annotations", ann);
	if (tls != NULL)
		json_object_set_new(json_object_get(obj, "spec"), "tls", tls);
	snprintf(uid, sizeof(uid), "uid-%s", name);
	sy_object_free(sy_store_put(st, sy_object_new(&sy_kind_route, "ns", name, obj,
						       "2026-01-01T00:00:00Z", uid)));
	json_decref(obj);
}

static const struct sy_rule *
rule_of(const struct sy_generation *g, const char *host)
{
	const struct sy_vhost *vh = sy_gen_find_vhost(g, host, strlen(host));

	assert_non_null(vh);
	return &vh->rules[0];
}

/* The route's ingress conditions. */
static const json_t *
conditions(const struct sy_store *st, const char *name)
{
	const struct sy_object *o = sy_store_find(st, &sy_kind_route, "ns", name);

	assert_non_null(o);
	return json_object_get(json_array_get(json_object_get(o->status, "ingress"), 0), "conditions");
}

static void
test_compile_annotations(void **state)
{
	struct sy_store st;
	struct sy_generation *g;
	const struct sy_rule *r;
	const json_t *c;

	(void)state;
	sy_store_init(&st);
	put_route(&st, "good", "good.test",
		  json_pack("{s:s, s:s, s:s, s:s}", "haproxy.router.openshift.io/ip_allowlist",
			    "198.18.0.0/24 2001:2::/48", "haproxy.router.openshift.io/timeout", "2s",
			    "haproxy.router.openshift.io/timeout-tunnel", "5m",
			    "haproxy.router.openshift.io/hsts_header", "max-age=31536000;includeSubDomains"),
		  json_pack("{s:s}", "termination", "edge"));
	/* The older name; HSTS on a plain route means nothing (no TLS of ours). */
	put_route(&st, "old", "old.test",
		  json_pack("{s:s, s:s}", "haproxy.router.openshift.io/ip_whitelist", "198.18.5.5",
			    "haproxy.router.openshift.io/hsts_header", "max-age=1"),
		  NULL);
	put_route(&st, "bad", "bad.test",
		  json_pack("{s:s, s:s, s:s}", "haproxy.router.openshift.io/ip_allowlist",
			    "198.18.0.0/24 198.18.0.300", "haproxy.router.openshift.io/timeout", "2x",
			    "haproxy.router.openshift.io/hsts_header", "includeSubDomains"),
		  json_pack("{s:s}", "termination", "edge"));
	put_route(&st, "plain", "plain.test", NULL, NULL);
	put_route(&st, "slow", "slow.test", json_pack("{s:s}", "haproxy.router.openshift.io/timeout", "1s"),
		  NULL);
	put_route(&st, "rl", "rl.test",
		  json_pack("{s:s, s:s, s:s}", "haproxy.router.openshift.io/rate-limit-connections", "true",
			    "haproxy.router.openshift.io/rate-limit-connections.concurrent-tcp", "2",
			    "haproxy.router.openshift.io/rate-limit-connections.rate-tcp", "7"),
		  NULL);
	put_route(&st, "rlh", "rlh.test",
		  json_pack("{s:s, s:s, s:s}", "haproxy.router.openshift.io/rate-limit-connections", "true",
			    "haproxy.router.openshift.io/rate-limit-connections.rate-http", "5",
			    "haproxy.router.openshift.io/rate-limit-connections.concurrent-tcp", "many"),
		  NULL);
	/* Not enabled: the numbers alone mean nothing (the template's isTrue). */
	put_route(&st, "rloff", "rloff.test",
		  json_pack("{s:s, s:s}", "haproxy.router.openshift.io/rate-limit-connections", "false",
			    "haproxy.router.openshift.io/rate-limit-connections.concurrent-tcp", "2"),
		  NULL);
	g = sy_compile(&st, &opts, 1);
	assert_non_null(g);

	r = rule_of(g, "good.test");
	assert_non_null(r->more);
	assert_non_null(r->more->allow);
	assert_true(allowed(r->more->allow, "198.18.0.9"));
	assert_false(allowed(r->more->allow, "198.18.1.9"));
	assert_true(allowed(r->more->allow, "2001:2::9"));
	assert_int_equal(r->more->server_timeout_ms, 2000);
	assert_int_equal(r->more->tunnel_timeout_ms, 300000);
	assert_string_equal(r->more->hsts, "max-age=31536000;includeSubDomains");
	assert_int_equal(json_array_size(conditions(&st, "good")), 1);

	/* An allowlist alone keeps a plain route spliced (checked at the
	 * connection's first request); HSTS is not kept for it. */
	r = rule_of(g, "old.test");
	assert_non_null(sy_rule_allow(r));
	assert_null(r->more->hsts);
	assert_int_equal(sy_gen_find_vhost(g, "old.test", 8)->mode, SY_MODE_SPLICE);

	/* Invalid values: not applied, the route served, the status says. */
	r = rule_of(g, "bad.test");
	assert_true(r->more == NULL ||
		    (r->more->allow == NULL && r->more->server_timeout_ms == 0 && r->more->hsts == NULL));
	c = conditions(&st, "bad");
	assert_int_equal(json_array_size(c), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(c, 0), "status")), "True");
	assert_string_equal(json_string_value(json_object_get(json_array_get(c, 1), "type")),
			    "EdgePoliciesApplied");
	assert_string_equal(json_string_value(json_object_get(json_array_get(c, 1), "status")), "False");
	assert_string_equal(json_string_value(json_object_get(json_array_get(c, 1), "reason")),
			    "InvalidAnnotation");
	{
		const char *m = json_string_value(json_object_get(json_array_get(c, 1), "message"));

		assert_non_null(strstr(m, "haproxy.router.openshift.io/ip_allowlist: Invalid value: \"198.18.0.300\""));
		assert_non_null(strstr(m, "haproxy.router.openshift.io/timeout: Invalid value: \"2x\""));
		assert_non_null(strstr(m, "haproxy.router.openshift.io/hsts_header: Invalid value: \"includeSubDomains\""));
	}
	r = rule_of(g, "plain.test");
	assert_null(r->more);
	assert_int_equal(sy_gen_find_vhost(g, "plain.test", 10)->mode, SY_MODE_SPLICE);
	/* A server timeout is answered 504 by the proxy mode: the route takes it. */
	assert_int_equal(rule_of(g, "slow.test")->more->server_timeout_ms, 1000);
	assert_int_equal(sy_gen_find_vhost(g, "slow.test", 9)->mode, SY_MODE_PROXY);
	/* Connection limits keep splice; a request rate takes the proxy. */
	r = rule_of(g, "rl.test");
	assert_int_equal(r->more->conn_max, 2);
	assert_int_equal(r->more->conn_rate_max, 7);
	assert_int_equal(r->more->http_rate_max, 0);
	assert_int_equal(sy_gen_find_vhost(g, "rl.test", 7)->mode, SY_MODE_SPLICE);
	r = rule_of(g, "rlh.test");
	assert_int_equal(r->more->http_rate_max, 5);
	assert_int_equal(r->more->conn_max, 0); /* "many": not applied, on the status */
	assert_int_equal(sy_gen_find_vhost(g, "rlh.test", 8)->mode, SY_MODE_PROXY);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(conditions(&st, "rlh"), 1), "message")),
			       "rate-limit-connections.concurrent-tcp: Invalid value: \"many\""));
	assert_null(rule_of(g, "rloff.test")->more);
	assert_int_equal(json_array_size(conditions(&st, "plain")), 1);
	sy_generation_free(g);

	/* Fixed: the condition goes on the next compile. */
	put_route(&st, "bad", "bad.test",
		  json_pack("{s:s}", "haproxy.router.openshift.io/timeout", "3s"),
		  json_pack("{s:s}", "termination", "edge"));
	g = sy_compile(&st, &opts, 2);
	assert_non_null(g);
	assert_int_equal(rule_of(g, "bad.test")->more->server_timeout_ms, 3000);
	assert_int_equal(json_array_size(conditions(&st, "bad")), 1);
	sy_generation_free(g);
	sy_store_fini(&st);
}

/* The route with spec.httpHeaders hh (JSON text) and termination term: the
 * apply's errors as text ("" when it validates). */
static char last_errors[2048];

static const char *
validate_headers(const char *hh, const char *term)
{
	json_t *obj = json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:{s:s}, s:o}}", "apiVersion",
				"route.openshift.io/v1", "kind", "Route", "metadata", "name", "r",
				"namespace", "ns", "spec", "host", "h.test", "to", "name", "svc",
				"httpHeaders", json_loads(hh, 0, NULL));
	struct sy_errors errs = { NULL };
	size_t i, at = 0;

	if (term != NULL)
		json_object_set_new(json_object_get(obj, "spec"), "tls", json_pack("{s:s}", "termination", term));
	sy_kind_route.validate(obj, "Route ns/r", &errs);
	last_errors[0] = '\0';
	for (i = 0; i < json_array_size(errs.list) && at < sizeof(last_errors); i++) {
		const json_t *e = json_array_get(errs.list, i);

		at += (size_t)snprintf(last_errors + at, sizeof(last_errors) - at, "%s: %s\n",
				       json_string_value(json_object_get(e, "field")),
				       json_string_value(json_object_get(e, "message")));
	}
	json_decref(errs.list);
	json_decref(obj);
	return last_errors;
}

#define SET(side, n, v) "{\"" side "\": [{\"name\": \"" n "\", \"action\": {\"type\": \"Set\", \"set\": {\"value\": \"" v "\"}}}]}"
#define DEL(side, n) "{\"" side "\": [{\"name\": \"" n "\", \"action\": {\"type\": \"Delete\"}}]}"

static void
test_http_headers_validation(void **state)
{
	(void)state;
	assert_string_equal(validate_headers("{\"actions\": " SET("request", "X-Env", "prod") "}", NULL), "");
	assert_string_equal(validate_headers("{\"actions\": " DEL("response", "Server") "}", "edge"), "");
	/* OpenShift's own names and the proxy's framing: refused by name. */
	assert_non_null(strstr(validate_headers("{\"actions\": " SET("request", "Host", "x") "}", NULL),
			       "\"Host\": the router does not let a route set or delete it"));
	assert_non_null(strstr(validate_headers("{\"actions\": " DEL("response", "Set-Cookie") "}", NULL),
			       "spec.httpHeaders.actions.response[0]"));
	assert_non_null(strstr(validate_headers("{\"actions\": " SET("request", "Transfer-Encoding", "chunked") "}", NULL),
			       "Forbidden"));
	assert_non_null(strstr(validate_headers("{\"actions\": " SET("request", "bad name", "x") "}", NULL),
			       "must be an HTTP header name"));
	assert_non_null(strstr(validate_headers("{\"actions\": " SET("request", "X-A", "%[req.hdr(host)]") "}", NULL),
			       "dynamic values"));
	assert_non_null(strstr(validate_headers("{\"actions\": " SET("request", "X-A", "a\\r\\nX-B: 1") "}", NULL),
			       "no line breaks"));
	assert_non_null(strstr(validate_headers("{\"actions\": {\"request\": [{\"name\": \"X-A\", \"action\": {\"type\": \"Replace\"}}]}}", NULL),
			       "supported values: \"Set\", \"Delete\""));
	assert_non_null(strstr(validate_headers("{\"actions\": " SET("request", "X-A", "") "}", NULL),
			       "action.set.value: Required"));
	assert_non_null(strstr(validate_headers("{\"actions\": " SET("response", "X-A", "1") "}", "passthrough"),
			       "passthrough routes"));
}

static void
test_http_headers_and_rewrite_compile(void **state)
{
	struct sy_store st;
	struct sy_generation *g;
	const struct sy_rule *r;
	json_t *obj;
	unsigned i, set_req = 0, del_req = 0, set_resp = 0, del_resp = 0, rewrite = 0;

	(void)state;
	sy_store_init(&st);
	/* Set then Delete of X-Gone: the last wins (deleted); X-Env set. */
	obj = json_pack("{s:s, s:s, s:{s:s, s:s, s:{s:s}}, s:{s:s, s:s, s:{s:s}, s:{s:{s:[{s:s, s:{s:s, s:{s:s}}}, {s:s, s:{s:s}}, {s:s, s:{s:s, s:{s:s}}}], s:[{s:s, s:{s:s}}]}}}}",
			"apiVersion", "route.openshift.io/v1", "kind", "Route",
			"metadata", "name", "hh", "namespace", "ns", "annotations",
			"haproxy.router.openshift.io/rewrite-target", "/v2",
			"spec", "host", "hh.test", "path", "/api/", "to", "name", "svc",
			"httpHeaders", "actions", "request",
			"name", "X-Gone", "action", "type", "Set", "set", "value", "1",
			"name", "X-Gone", "action", "type", "Delete",
			"name", "X-Env", "action", "type", "Set", "set", "value", "prod",
			"response", "name", "Server", "action", "type", "Delete");
	assert_non_null(obj);
	sy_object_free(sy_store_put(&st, sy_object_new(&sy_kind_route, "ns", "hh", obj,
						       "2026-01-01T00:00:00Z", "uid-hh")));
	json_decref(obj);
	put_route(&st, "rw-bad", "rwbad.test",
		  json_pack("{s:s}", "haproxy.router.openshift.io/rewrite-target", "/a b"), NULL);
	g = sy_compile(&st, &opts, 1);
	assert_non_null(g);
	r = rule_of(g, "hh.test");
	assert_int_equal(sy_gen_find_vhost(g, "hh.test", 7)->mode, SY_MODE_PROXY);
	for (i = 0; i < r->n_filters; i++) {
		const struct sy_filter *f = &r->more->filters[i];

		switch (f->type) {
		case SY_FILTER_SET_REQUEST_HEADER:
			assert_string_equal(f->s[0], "X-Env");
			assert_string_equal(f->s[1], "prod");
			set_req++;
			break;
		case SY_FILTER_DELETE_REQUEST_HEADER:
			assert_string_equal(f->s[0], "X-Gone");
			del_req++;
			break;
		case SY_FILTER_SET_RESPONSE_HEADER: set_resp++; break;
		case SY_FILTER_DELETE_RESPONSE_HEADER:
			assert_string_equal(f->s[0], "Server");
			del_resp++;
			break;
		case SY_FILTER_REPLACE_PATH_PREFIX:
			assert_string_equal(f->s[0], "/api"); /* the route's path without its '/' */
			assert_string_equal(f->s[1], "/v2");
			rewrite++;
			break;
		default: fail_msg("unexpected filter type %d", f->type);
		}
	}
	assert_int_equal(set_req, 1);
	assert_int_equal(del_req, 1);
	assert_int_equal(set_resp, 0);
	assert_int_equal(del_resp, 1);
	assert_int_equal(rewrite, 1);
	/* An invalid rewrite-target: not applied, on the status, served. */
	r = rule_of(g, "rwbad.test");
	assert_int_equal(r->n_filters, 0);
	assert_non_null(strstr(json_string_value(json_object_get(json_array_get(conditions(&st, "rw-bad"), 1),
							       "message")),
			       "rewrite-target: Invalid value: \"/a b\""));
	sy_generation_free(g);
	sy_store_fini(&st);
}

int
main(void)
{
	int rc;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_haproxy_time),
		cmocka_unit_test(test_hsts_value),
		cmocka_unit_test(test_source_allow),
		cmocka_unit_test(test_compile_annotations),
		cmocka_unit_test(test_http_headers_validation),
		cmocka_unit_test(test_http_headers_and_rewrite_compile),
	};

	if (sy_test_eal_init("test_edge_policy") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
