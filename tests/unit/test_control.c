/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Control protocol decoding and the all-or-nothing apply: each bad input gets
 * its own error naming object and field, and leaves the previous generation
 * live; journal replay keeps objects and their age; a torn record is skipped.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "gen/compile.h"
#include "router.h"
#include "test_eal.h"
#include "test_router.h"


static uint64_t
generation(struct sy_router *r)
{
	json_t *st = ops_call(r, "{\"op\":\"status\"}");
	uint64_t g = (uint64_t)json_integer_value(json_object_get(st, "generation"));

	json_decref(st);
	return g;
}


static void
test_apply_get_resolve(void **state)
{
	struct sy_router r;
	json_t *rep;
	char buf[128];
	static const char *const spellings[] = { "route", "routes", "Route", "ROUTES",
						 "routes.route.openshift.io" };
	size_t i;

	router_start(&r);
	rep = ops_call(&r, "{\"op\":\"apply\",\"objects\":[" T_SVC("demo", "a") "," T_EPS("demo", "a", "198.18.1.10") ","
		       T_ROUTE("demo", "web", "web.example.test", "a") "]}");
	assert_true(reply_ok(rep));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(rep, "results"), 2),
							      "action")), "created");
	json_decref(rep);
	for (i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		char req[200];

		snprintf(req, sizeof(req), "{\"op\":\"get\",\"kind\":\"%s\"}", spellings[i]);
		rep = ops_call(&r, req);
		assert_true(reply_ok(rep));
		assert_string_equal(json_string_value(json_object_get(rep, "kind")), "Route");
		assert_int_equal(json_array_size(json_object_get(rep, "items")), 1);
		json_decref(rep);
	}
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"route\",\"namespace\":\"demo\",\"name\":\"web\"}");
	{
		const json_t *item = json_array_get(json_object_get(rep, "items"), 0);
		const json_t *md = json_object_get(item, "metadata");
		const json_t *cond = json_array_get(json_object_get(json_array_get(json_object_get(
			json_object_get(item, "status"), "ingress"), 0), "conditions"), 0);

		assert_non_null(json_string_value(json_object_get(md, "creationTimestamp")));
		assert_int_equal(json_string_length(json_object_get(md, "uid")), 36);
		assert_string_equal(json_string_value(json_object_get(cond, "type")), "Admitted");
		assert_string_equal(json_string_value(json_object_get(cond, "status")), "True");
	}
	json_decref(rep);
	/* Empty kind: an empty list, not an error. */
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"svc\",\"namespace\":\"nothing-here\"}");
	assert_true(reply_ok(rep));
	assert_int_equal(json_array_size(json_object_get(rep, "items")), 0);
	json_decref(rep);
	/* Host lookup ignores case, a trailing dot and the port. */
	assert_string_equal(ops_resolve_object(&r, "http://web.example.test./x", buf, sizeof(buf)), "demo/web");
	assert_string_equal(ops_resolve_object(&r, "http://WEB.example.test:8080/", buf, sizeof(buf)), "demo/web");
	assert_string_equal(ops_resolve_object(&r, "http://other.example.test/", buf, sizeof(buf)), "(none)");
	rep = ops_call(&r, "{\"op\":\"resolve\",\"url\":\"http://web.example.test/\"}");
	{
		const json_t *ep = json_array_get(json_object_get(rep, "endpoints"), 0);

		assert_string_equal(json_string_value(json_object_get(ep, "address")), "198.18.1.10");
		assert_int_equal(json_integer_value(json_object_get(ep, "port")), 8080);
		assert_string_equal(json_string_value(json_object_get(rep, "mode")), "splice");
	}
	json_decref(rep);
	rep = ops_call(&r, "{\"op\":\"resolve\",\"url\":\"http://nobody.test/\"}");
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 503);
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "none");
	json_decref(rep);
	/* Same objects again: unchanged, and no new generation. */
	{
		uint64_t g = generation(&r);

		rep = ops_call(&r, "{\"op\":\"apply\",\"objects\":[" T_ROUTE("demo", "web", "web.example.test", "a") "]}");
		assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(rep, "results"), 0),
								      "action")), "unchanged");
		json_decref(rep);
		assert_int_equal(generation(&r), g);
	}
	/* Delete, then it is gone. */
	rep = ops_call(&r, "{\"op\":\"delete\",\"kind\":\"routes\",\"namespace\":\"demo\",\"name\":\"web\"}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	expect_error(ops_call(&r, "{\"op\":\"get\",\"kind\":\"route\",\"namespace\":\"demo\",\"name\":\"web\"}"),
		     "not_found", "name", "not found");
	expect_error(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"route\",\"namespace\":\"demo\",\"name\":\"web\"}"),
		     "not_found", "name", NULL);
	assert_string_equal(ops_resolve_object(&r, "http://web.example.test/", buf, sizeof(buf)), "(none)");
	router_stop(&r);
}

static void
test_bad_requests_change_nothing(void **state)
{
	struct sy_router r;
	uint64_t g;
	char buf[128];
	json_t *rep;

	router_start(&r);
	rep = ops_call(&r, "{\"op\":\"apply\",\"objects\":[" T_ROUTE("demo", "keep", "keep.test", "a") "]}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	g = generation(&r);

	expect_error(ops_call(&r, "[1,2]"), "bad_request", NULL, "JSON object");
	expect_error(ops_call(&r, "{\"noop\":1}"), "bad_request", "op", NULL);
	expect_error(ops_call(&r, "{\"op\":\"launch\"}"), "unknown_op", "op", "launch");
	expect_error(ops_call(&r, "{\"op\":\"apply\"}"), "bad_request", "objects", NULL);
	expect_error(ops_call(&r, "{\"op\":\"get\",\"kind\":\"widgets\"}"), "unknown_kind", "kind", "widgets");
	expect_error(ops_call(&r, "{\"op\":\"apply\",\"objects\":[{\"apiVersion\":\"v9\",\"kind\":\"Gateway\","
			      "\"metadata\":{\"name\":\"g\"}}]}"),
		     "unknown_kind", "kind", "Gateway");
	/* Route without to.name: the field is named. */
	expect_error(ops_call(&r, "{\"op\":\"apply\",\"objects\":[{\"apiVersion\":\"route.openshift.io/v1\","
			      "\"kind\":\"Route\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"host\":\"x.test\","
			      "\"to\":{\"kind\":\"Service\"}}}]}"),
		     "invalid", "spec.to.name", "required");
	expect_error(ops_call(&r, "{\"op\":\"apply\",\"objects\":[{\"apiVersion\":\"route.openshift.io/v1\","
			      "\"kind\":\"Route\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"host\":\"x.test\","
			      "\"to\":{\"name\":\"a\",\"weight\":300}}}]}"),
		     "invalid", "spec.to.weight", "between 0 and 256");
	expect_error(ops_call(&r, "{\"op\":\"apply\",\"objects\":[{\"apiVersion\":\"route.openshift.io/v1\","
			      "\"kind\":\"Route\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"host\":\"bad_host\","
			      "\"to\":{\"name\":\"a\"}}}]}"),
		     "invalid", "spec.host", "DNS 952");
	expect_error(ops_call(&r, "{\"op\":\"apply\",\"objects\":[{\"apiVersion\":\"route.openshift.io/v1\","
			      "\"kind\":\"Route\",\"metadata\":{\"name\":\"x\"},\"spec\":{\"host\":\"p.test\","
			      "\"path\":\"/a\",\"to\":{\"name\":\"a\"},\"tls\":{\"termination\":\"passthrough\"}}}]}"),
		     "invalid", "spec.path", "passthrough termination does not support paths");
	expect_error(ops_call(&r, "{\"op\":\"apply\",\"objects\":[{\"apiVersion\":\"v1\",\"kind\":\"Service\","
			      "\"metadata\":{}}]}"),
		     "invalid", "metadata.name", "required");
	/* Duplicates in one apply. */
	expect_error(ops_call(&r, "{\"op\":\"apply\",\"objects\":[" T_SVC("demo", "a") "," T_SVC("demo", "a") "]}"),
		     "duplicate", "metadata.name", "same object");
	/* Two good objects and one bad: nothing is created. */
	expect_error(ops_call(&r, "{\"op\":\"apply\",\"objects\":[" T_ROUTE("demo", "good1", "g1.test", "a") ","
			      "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":"
			      "{\"name\":\"bad\"},\"spec\":{\"host\":\"b.test\"}}," T_ROUTE("demo", "good2", "g2.test", "a") "]}"),
		     "invalid", "spec.to.name", NULL);
	expect_error(ops_call(&r, "{\"op\":\"get\",\"kind\":\"route\",\"namespace\":\"demo\",\"name\":\"good1\"}"),
		     "not_found", NULL, NULL);
	assert_string_equal(ops_resolve_object(&r, "http://g1.test/", buf, sizeof(buf)), "(none)");
	/* The previous generation is still the live one, and still serves. */
	assert_int_equal(generation(&r), g);
	assert_string_equal(ops_resolve_object(&r, "http://keep.test/", buf, sizeof(buf)), "demo/keep");
	router_stop(&r);
}

/* The oldest route keeps a host; another namespace is refused with OpenShift's message. */
static void
test_host_claims(void **state)
{
	struct sy_router r;
	json_t *rep;
	char buf[128];

	router_start(&r);
	rep = ops_call(&r, "{\"op\":\"apply\",\"objects\":[{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
		       "\"metadata\":{\"name\":\"old\",\"namespace\":\"a\",\"creationTimestamp\":\"2020-01-01T00:00:00Z\"},"
		       "\"spec\":{\"host\":\"shared.test\",\"to\":{\"name\":\"s\"}}},"
		       "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
		       "\"metadata\":{\"name\":\"young\",\"namespace\":\"b\",\"creationTimestamp\":\"2021-01-01T00:00:00Z\"},"
		       "\"spec\":{\"host\":\"shared.test\",\"to\":{\"name\":\"s\"}}}]}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"route\",\"namespace\":\"b\",\"name\":\"young\"}");
	{
		const json_t *cond = json_array_get(json_object_get(json_array_get(json_object_get(json_object_get(
			json_array_get(json_object_get(rep, "items"), 0), "status"), "ingress"), 0), "conditions"), 0);

		assert_string_equal(json_string_value(json_object_get(cond, "status")), "False");
		assert_string_equal(json_string_value(json_object_get(cond, "reason")), "HostAlreadyClaimed");
		assert_string_equal(json_string_value(json_object_get(cond, "message")),
				    "a route in another namespace holds shared.test and is older than young");
	}
	json_decref(rep);
	assert_string_equal(ops_resolve_object(&r, "http://shared.test/", buf, sizeof(buf)), "a/old");
	/* The owner goes away: the displaced route is admitted. */
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"route\",\"namespace\":\"a\",\"name\":\"old\"}"));
	assert_string_equal(ops_resolve_object(&r, "http://shared.test/", buf, sizeof(buf)), "b/young");
	router_stop(&r);
}

static void
test_journal_replay_keeps_age(void **state)
{
	struct sy_router r;
	json_t *rep, *before, *after;
	char path[128];
	int fd;
	char buf[128];

	router_start(&r);
	rep = ops_call(&r, "{\"op\":\"apply\",\"objects\":[" T_SVC("j", "a") "," T_ROUTE("j", "r1", "r1.test", "a") "]}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	json_decref(ops_call(&r, "{\"op\":\"apply\",\"objects\":[" T_ROUTE("j", "r2", "r2.test", "a") "]}"));
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"route\",\"namespace\":\"j\",\"name\":\"r2\"}"));
	before = ops_call(&r, "{\"op\":\"get\",\"kind\":\"route\",\"namespace\":\"j\"}");
	router_stop(&r);

	/* An apply's record is printed from its objects' texts
	 * (ops_apply.c): byte for byte what jansson prints of the record,
	 * and it holds the objects as stored. */
	{
		FILE *f;
		char line[8192], *text, *again;
		json_t *rec, *route;
		json_error_t jerr;

		snprintf(path, sizeof(path), "%s/journal", state_dir);
		f = fopen(path, "r");
		assert_non_null(f);
		assert_non_null(fgets(line, sizeof(line), f));
		fclose(f);
		line[strcspn(line, "\n")] = '\0';
		text = line + 23; /* after "SYJ1 len crc " */
		rec = json_loads(text, 0, &jerr);
		assert_non_null(rec);
		again = json_dumps(rec, JSON_COMPACT);
		assert_string_equal(again, text);
		assert_string_equal(json_string_value(json_object_get(rec, "op")), "apply");
		assert_int_equal(json_array_size(json_object_get(rec, "objects")), 2);
		route = json_array_get(json_object_get(rec, "objects"), 1);
		assert_string_equal(json_string_value(json_object_get(json_object_get(route, "metadata"), "uid")),
				    json_string_value(json_object_get(json_object_get(json_array_get(
					    json_object_get(before, "items"), 0), "metadata"), "uid")));
		assert_true(json_equal(json_object_get(route, "spec"),
				       json_object_get(json_array_get(json_object_get(before, "items"), 0), "spec")));
		free(again);
		json_decref(rec);
	}

	/* A torn last record, as a kill -9 in the middle of a write leaves it. */
	snprintf(path, sizeof(path), "%s/journal", state_dir);
	fd = open(path, O_WRONLY | O_APPEND);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "SYJ1 00000400 deadbeef {\"op\":\"apply\",\"obj", 41), 41);
	close(fd);

	router_start(&r);
	after = ops_call(&r, "{\"op\":\"get\",\"kind\":\"route\",\"namespace\":\"j\"}");
	assert_int_equal(json_array_size(json_object_get(after, "items")), 1);
	/* Same objects, same uid and creationTimestamp (status may be re-stamped). */
	assert_true(json_equal(json_object_get(json_array_get(json_object_get(before, "items"), 0), "metadata"),
			       json_object_get(json_array_get(json_object_get(after, "items"), 0), "metadata")));
	assert_string_equal(ops_resolve_object(&r, "http://r1.test/", buf, sizeof(buf)), "j/r1");
	assert_string_equal(ops_resolve_object(&r, "http://r2.test/", buf, sizeof(buf)), "(none)");
	/* Appends after a torn tail still replay. */
	json_decref(ops_call(&r, "{\"op\":\"apply\",\"objects\":[" T_ROUTE("j", "r3", "r3.test", "a") "]}"));
	router_stop(&r);
	router_start(&r);
	assert_string_equal(ops_resolve_object(&r, "http://r3.test/", buf, sizeof(buf)), "j/r3");
	router_stop(&r);
	json_decref(before);
	json_decref(after);
}

/* The status Admitted condition of route ns/name: "True", "False", or "none". */
static const char *
admitted(struct sy_router *r, const char *ns, const char *name, char *reason, size_t len)
{
	char req[256];
	json_t *rep, *cond;
	static char out[16];

	snprintf(req, sizeof(req), "{\"op\":\"get\",\"kind\":\"route\",\"namespace\":\"%s\",\"name\":\"%s\"}",
		 ns, name);
	rep = ops_call(r, req);
	cond = json_array_get(json_object_get(json_array_get(json_object_get(json_object_get(
		json_array_get(json_object_get(rep, "items"), 0), "status"), "ingress"), 0), "conditions"), 0);
	snprintf(out, sizeof(out), "%s", cond ? json_string_value(json_object_get(cond, "status")) : "none");
	if (reason != NULL)
		snprintf(reason, len, "%s", cond && json_object_get(cond, "reason")
						   ? json_string_value(json_object_get(cond, "reason")) : "");
	json_decref(rep);
	return out;
}

#define LROUTE(ns, name, host, labels) \
	"{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"" name "\"," \
	"\"namespace\":\"" ns "\",\"labels\":" labels "},\"spec\":{\"host\":\"" host "\",\"to\":{\"name\":\"s\"}}}"

/* Sharding: both selectors must match; outside the shard, no status and not
 * served; relabelling moves a route in or out live. */
static void
test_sharding(void **state)
{
	struct sy_router r;
	json_t *rep;
	char buf[128];

	router_start_with(&r, "{\"route_label_selector\": \"shard in (a, b)\","
			      " \"namespace_label_selector\": \"env!=dev\"}");
	rep = ops_call(&r, "{\"op\":\"apply\",\"objects\":["
		       "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"dev\",\"labels\":{\"env\":\"dev\"}}},"
		       LROUTE("prod", "in", "in.test", "{\"shard\":\"a\"}") ","
		       LROUTE("prod", "out", "out.test", "{\"shard\":\"c\"}") ","
		       LROUTE("dev", "devr", "dev.test", "{\"shard\":\"a\"}") "]}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	assert_string_equal(admitted(&r, "prod", "in", NULL, 0), "True");
	assert_string_equal(admitted(&r, "prod", "out", NULL, 0), "none");
	assert_string_equal(admitted(&r, "dev", "devr", NULL, 0), "none");
	assert_string_equal(ops_resolve_object(&r, "http://in.test/", buf, sizeof(buf)), "prod/in");
	assert_string_equal(ops_resolve_object(&r, "http://out.test/", buf, sizeof(buf)), "(none)");
	assert_string_equal(ops_resolve_object(&r, "http://dev.test/", buf, sizeof(buf)), "(none)");
	/* Relabel: out comes in, the dev namespace too. */
	json_decref(ops_call(&r, "{\"op\":\"apply\",\"objects\":["
			     "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"dev\",\"labels\":{\"env\":\"test\"}}},"
			     LROUTE("prod", "out", "out.test", "{\"shard\":\"b\"}") "]}"));
	assert_string_equal(ops_resolve_object(&r, "http://out.test/", buf, sizeof(buf)), "prod/out");
	assert_string_equal(ops_resolve_object(&r, "http://dev.test/", buf, sizeof(buf)), "dev/devr");
	/* Namespaces are cluster-scoped: get without -n finds it. */
	rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"ns\",\"name\":\"dev\"}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	router_stop(&r);
}

/* Wildcards: refused unless allowed; then *.domain serves one more label,
 * and an exact host beats it. */
static void
test_wildcards(void **state)
{
	struct sy_router r;
	char buf[128], reason[64];
	json_t *rep;
	const char *objs = "{\"op\":\"apply\",\"objects\":["
			   "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"w\",\"namespace\":\"a\"},"
			   "\"spec\":{\"host\":\"www.example.test\",\"wildcardPolicy\":\"Subdomain\",\"to\":{\"name\":\"s\"}}},"
			   T_ROUTE("a", "exact", "api.example.test", "s") "]}";

	router_start(&r);
	json_decref(ops_call(&r, objs));
	assert_string_equal(admitted(&r, "a", "w", reason, sizeof(reason)), "False");
	assert_string_equal(reason, "RouteNotAdmitted");
	router_stop(&r);
	remove_state(NULL);
	fresh_state(NULL);

	router_start_with(&r, "{\"allow_wildcard_routes\": true}");
	rep = ops_call(&r, objs);
	assert_true(reply_ok(rep));
	json_decref(rep);
	assert_string_equal(admitted(&r, "a", "w", NULL, 0), "True");
	assert_string_equal(ops_resolve_object(&r, "http://foo.example.test/", buf, sizeof(buf)), "a/w");
	assert_string_equal(ops_resolve_object(&r, "http://api.example.test/", buf, sizeof(buf)), "a/exact");
	assert_string_equal(ops_resolve_object(&r, "http://a.b.example.test/", buf, sizeof(buf)), "(none)");
	router_stop(&r);
}

/* Hosts the API would refuse: a generated host whose first label is over 63
 * characters is rejected at apply; with the annotation that lifts the API's
 * check, the router itself says InvalidHost. */
static void
test_invalid_hosts(void **state)
{
	struct sy_router r;
	char reason[64];
	json_t *rep;

	router_start(&r);
	expect_error(ops_call(&r, "{\"op\":\"apply\",\"objects\":[{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
			      "\"metadata\":{\"name\":\"a-very-long-route-name-that-goes-on-and-on\",\"namespace\":\"and-a-long-namespace-too-x\"},"
			      "\"spec\":{\"to\":{\"name\":\"s\"}}}]}"),
		     "invalid", "spec.host", "must be no more than 63 characters");
	rep = ops_call(&r, "{\"op\":\"apply\",\"objects\":[{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
		       "\"metadata\":{\"name\":\"a-very-long-route-name-that-goes-on-and-on\",\"namespace\":\"and-a-long-namespace-too-x\","
		       "\"annotations\":{\"route.openshift.io/allow-non-dns-compliant-host\":\"true\"}},"
		       "\"spec\":{\"to\":{\"name\":\"s\"}}}]}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	assert_string_equal(admitted(&r, "and-a-long-namespace-too-x", "a-very-long-route-name-that-goes-on-and-on",
				     reason, sizeof(reason)), "False");
	assert_string_equal(reason, "InvalidHost");
	router_stop(&r);
}

int
main(void)
{
	int rc;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_apply_get_resolve, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_bad_requests_change_nothing, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_host_claims, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_journal_replay_keeps_age, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_sharding, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_wildcards, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_invalid_hosts, fresh_state, remove_state),
	};

	if (sy_test_eal_init("test_control") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
