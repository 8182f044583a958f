/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Skipper RouteGroup: validation with Skipper's messages (the whole group
 * refused on any error), the eskip item parser, traffic splits and route
 * priority as Skipper computes them, every predicate and the action-making
 * filters through resolve, the status the group gets, and network and lb
 * backends as pools of their URLs (spliced, or not served and why).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "gen/backend_url.h"
#include "gen/compile.h"
#include "kinds/eskip.h"
#include "router.h"
#include "test_eal.h"
#include "test_router.h"


static json_t *
call(struct sy_router *r, const char *req_text)
{
	json_error_t jerr;
	json_t *req = json_loads(req_text, 0, &jerr);
	json_t *reply;

	if (req == NULL)
		fail_msg("bad test request: %s: %s", jerr.text, req_text);
	reply = sy_ops_handle(r, req);
	json_decref(req);
	return reply;
}


/* Apply must fail with exactly this field and message (first error). */
static void
apply_err(struct sy_router *r, const char *objects, const char *field, const char *msg)
{
	char *req, *d;
	json_t *rep, *e;

	assert_true(asprintf(&req, "{\"op\":\"apply\",\"objects\":[%s]}", objects) > 0);
	rep = call(r, req);
	e = json_object_get(rep, "error");
	d = json_dumps(rep, 0);
	if (reply_ok(rep) || strcmp(json_string_value(json_object_get(e, "code")), "invalid") != 0)
		fail_msg("expected invalid, got %s", d);
	if (field && strcmp(json_string_value(json_object_get(e, "field")), field) != 0)
		fail_msg("expected field %s, got %s", field, d);
	if (strcmp(json_string_value(json_object_get(e, "message")), msg) != 0)
		fail_msg("expected message \"%s\", got %s", msg, d);
	free(d);
	free(req);
	json_decref(rep);
}

#define SVC(name)                                                                                  \
	"{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"" name "\","         \
	"\"namespace\":\"demo\"},\"spec\":{\"ports\":[{\"name\":\"http\",\"port\":80}]}}"
#define EPS(name, ip)                                                                              \
	"{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":{\"name\":\"" name "\","       \
	"\"namespace\":\"demo\"},\"subsets\":[{\"addresses\":[{\"ip\":\"" ip "\"}],"               \
	"\"ports\":[{\"name\":\"http\",\"port\":8080}]}]}"
#define RG(name, spec)                                                                             \
	"{\"apiVersion\":\"zalando.org/v1\",\"kind\":\"RouteGroup\",\"metadata\":{\"name\":\"" name \
	"\",\"namespace\":\"demo\"},\"spec\":" spec "}"
#define BE(name, svc) \
	"{\"name\":\"" name "\",\"type\":\"service\",\"serviceName\":\"" svc "\",\"servicePort\":80}"
#define BACKENDS3 \
	"{\"name\":\"a\",\"type\":\"service\",\"serviceName\":\"a\",\"servicePort\":80}," \
	"{\"name\":\"b\",\"type\":\"service\",\"serviceName\":\"b\",\"servicePort\":80}," \
	"{\"name\":\"c\",\"type\":\"service\",\"serviceName\":\"c\",\"servicePort\":80}"
#define SERVICES3 SVC("a") "," EPS("a", "198.18.0.1") "," SVC("b") "," EPS("b", "198.18.0.2") "," \
	SVC("c") "," EPS("c", "198.18.0.3")

/* resolve with method and headers (JSON object text or NULL). */
static json_t *
resolve(struct sy_router *r, const char *url, const char *method, const char *headers)
{
	char req[4096];
	json_t *rep;

	snprintf(req, sizeof(req), "{\"op\":\"resolve\",\"url\":\"%s\",\"method\":\"%s\"%s%s}", url,
		 method ? method : "GET", headers ? ",\"headers\":" : "", headers ? headers : "");
	rep = call(r, req);
	assert_true(reply_ok(rep));
	return rep;
}

/* The single service a request goes to ("(none)" / "(several)"). */
static const char *
resolve_service(struct sy_router *r, const char *url, const char *method, const char *headers,
		char *buf, size_t len)
{
	json_t *rep = resolve(r, url, method, headers);
	json_t *svcs = json_object_get(rep, "services");
	const json_t *s;
	size_t i, live = 0;

	snprintf(buf, len, "(none)");
	json_array_foreach(svcs, i, s)
		if (json_real_value(json_object_get(s, "share")) > 0.999) {
			snprintf(buf, len, "%s", json_string_value(json_object_get(s, "name")));
			live++;
		}
	if (live == 0 && strcmp(json_string_value(json_object_get(rep, "action")), "backend") != 0)
		snprintf(buf, len, "%s", json_string_value(json_object_get(rep, "action")));
	json_decref(rep);
	return buf;
}

static double
share_of(const json_t *rep, const char *name)
{
	const json_t *s;
	size_t i;

	json_array_foreach(json_object_get(rep, "services"), i, s)
		if (strcmp(json_string_value(json_object_get(s, "name")), name) == 0)
			return json_real_value(json_object_get(s, "share"));
	return -1;
}

static json_t *
get_status(struct sy_router *r, const char *name)
{
	char req[256];
	json_t *rep, *st;

	snprintf(req, sizeof(req), "{\"op\":\"get\",\"kind\":\"rg\",\"namespace\":\"demo\",\"name\":\"%s\"}", name);
	rep = call(r, req);
	assert_true(reply_ok(rep));
	st = json_incref(json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status"));
	json_decref(rep);
	return st;
}

/* ------------------------------------------------------------------------ */

static void
test_eskip_parser(void **state)
{
	struct sy_eskip_call c;
	char err[512];
	char *j;

	assert_int_equal(sy_eskip_parse_predicate("Header(\"X-A\", `b\\`c`)", &c, err, sizeof(err)), 0);
	assert_string_equal(c.name, "Header");
	assert_int_equal(c.n_args, 2);
	assert_string_equal(c.args[1].text, "b`c");
	sy_eskip_call_free(&c);
	assert_int_equal(sy_eskip_parse_predicate("PathRegexp(/^\\/a[/]b$/)", &c, err, sizeof(err)), 0);
	assert_int_equal(c.args[0].type, SY_ESKIP_REGEXP);
	assert_string_equal(c.args[0].text, "^/a[/]b$");
	sy_eskip_call_free(&c);
	assert_int_equal(sy_eskip_parse_filter("ratelimit(20, \"1m\")", &c, err, sizeof(err)), 0);
	j = sy_eskip_args_json(&c);
	assert_string_equal(j, "[20, \"1m\"]");
	free(j);
	sy_eskip_call_free(&c);
	assert_int_equal(sy_eskip_parse_predicate("Traffic(.1)", &c, err, sizeof(err)), 0);
	assert_true(c.args[0].number > 0.09 && c.args[0].number < 0.11);
	sy_eskip_call_free(&c);

	assert_int_equal(sy_eskip_parse_filter("foo(42) -> bar(24)", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "single filter expected at \"foo(42) -> bar(24)\"");
	assert_int_equal(sy_eskip_parse_predicate("Foo() && Bar()", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "single predicate expected at \"Foo() && Bar()\"");
	assert_int_equal(sy_eskip_parse_predicate("*", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "single predicate expected at \"*\"");
	assert_int_equal(sy_eskip_parse_predicate("", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "single predicate expected at \"\"");
	assert_int_equal(sy_eskip_parse_predicate("Method", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "parse failed after token Method, position 6: syntax error");
	assert_int_equal(sy_eskip_parse_filter("status(", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "parse failed after token (, position 7: syntax error");
	assert_int_equal(sy_eskip_parse_filter("setPath(\"/x)", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "parse failed after token (, position 12: syntax error");
	assert_int_equal(sy_eskip_parse_filter("a() -> #", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "parse failed after token ->, position 7: syntax error");
	assert_int_equal(sy_eskip_parse_predicate("Foo() -> Bar()", &c, err, sizeof(err)), -1);
	assert_string_equal(err, "parse failed after token ->, position 8: syntax error");
}

static void
test_validation_messages(void **state)
{
	static const struct {
		const char *spec;
		const char *field;
		const char *msg;
	} cases[] = {
		{ "\"x\"", "spec", "route group without spec" },
		{ "{\"hosts\":[\"a.test\"]}", "spec.backends", "route group without backend" },
		{ "{\"backends\":[]}", "spec.backends", "route group without backend" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"},{\"name\":\"a\",\"type\":\"shunt\"}],"
		  "\"defaultBackends\":[{\"backendName\":\"a\"}]}",
		  "spec.backends[1].name", "backends with duplicate name: a" },
		{ "{\"backends\":[{\"type\":\"shunt\"}],\"defaultBackends\":[{\"backendName\":\"a\"}]}",
		  "spec.backends[0].name", "invalid backend: , unnamed backend" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"ftp\"}]}", "spec.backends[0].type",
		  "invalid backend: a, unsupported backend type: ftp" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"lb\",\"algorithm\":\"fastest\","
		  "\"endpoints\":[\"198.18.9.1:80\"]}]}",
		  "spec.backends[0].algorithm", "invalid backend: a, unsupported algorithm" },
		{ "{\"backends\":[{\"name\":\"n\",\"type\":\"network\"}]}", "spec.backends[0].address",
		  "invalid backend: n, address missing in backend: n" },
		{ "{\"backends\":[{\"name\":\"s\",\"type\":\"service\",\"servicePort\":80}]}",
		  "spec.backends[0].serviceName", "invalid backend: s, service name missing in backend: s" },
		{ "{\"backends\":[{\"name\":\"s\",\"serviceName\":\"x\",\"servicePort\":0}]}",
		  "spec.backends[0].servicePort", "invalid backend: s, invalid service port in backend: s, 0" },
		{ "{\"backends\":[{\"name\":\"s\",\"serviceName\":\"x\",\"servicePort\":70000}]}",
		  "spec.backends[0].servicePort",
		  "invalid backend: s, invalid service port in backend: s, 70000" },
		{ "{\"backends\":[{\"name\":\"l\",\"type\":\"lb\"}]}", "spec.backends[0].endpoints",
		  "invalid backend: l, missing LB endpoints in backend: l" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}]}", "spec.defaultBackends",
		  "missing backend reference" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],\"defaultBackends\":[{\"backendName\":\"\"}]}",
		  "spec.defaultBackends[0].backendName", "unnamed backend reference" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],\"defaultBackends\":[{\"backendName\":\"x\"}]}",
		  "spec.defaultBackends[0].backendName", "invalid backend reference: x" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],\"defaultBackends\":"
		  "[{\"backendName\":\"a\"},{\"backendName\":\"a\"}]}",
		  "spec.defaultBackends[1].backendName", "duplicate backend reference: a" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],\"defaultBackends\":"
		  "[{\"backendName\":\"a\",\"weight\":-1}]}",
		  "spec.defaultBackends[0].weight", "invalid weight in backend: a, -1" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],\"routes\":[null]}",
		  "spec.routes[0]", "invalid route spec" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],\"routes\":[{\"path\":\"/\"}]}",
		  "spec.routes[0].backends", "missing backend reference" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],\"routes\":[{\"path\":\"/\","
		  "\"backends\":[{\"backendName\":\"nope\"}]}]}",
		  "spec.routes[0].backends[0].backendName", "invalid backend reference: nope" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],\"defaultBackends\":[{\"backendName\":\"a\"}],"
		  "\"routes\":[{\"path\":\"/a\",\"pathSubtree\":\"/b\"}]}",
		  "spec.routes[0].pathSubtree", "path and path subtree in the same route" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],\"defaultBackends\":[{\"backendName\":\"a\"}],"
		  "\"routes\":[{\"path\":\"/a\",\"methods\":[\"GET\",\"\"]}]}",
		  "spec.routes[0].methods[1]", "invalid method" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],\"defaultBackends\":[{\"backendName\":\"a\"}],"
		  "\"routes\":[{\"path\":\"/a\",\"filters\":[\"foo(42) -> bar(24)\"]}]}",
		  "spec.routes[0].filters[0]", "single filter expected at \"foo(42) -> bar(24)\"" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],\"defaultBackends\":[{\"backendName\":\"a\"}],"
		  "\"routes\":[{\"path\":\"/a\",\"predicates\":[\"Foo() && Bar()\"]}]}",
		  "spec.routes[0].predicates[0]", "single predicate expected at \"Foo() && Bar()\"" },
		{ "{\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],\"defaultBackends\":[{\"backendName\":\"a\"}],"
		  "\"routes\":[{\"path\":\"/a\",\"predicates\":[\"Method\"]}]}",
		  "spec.routes[0].predicates[0]", "parse failed after token Method, position 6: syntax error" },
		{ "{\"backends\":[{\"name\":\"n\",\"type\":\"network\",\"address\":\"http://example.com/foo\"}],"
		  "\"defaultBackends\":[{\"backendName\":\"n\"}]}",
		  "spec.backends[0].address",
		  "backend address \"http://example.com/foo\" does not match scheme://host format" },
		{ "{\"hosts\":[\"example.org\",\"example.org\"],\"backends\":[{\"name\":\"a\",\"type\":\"shunt\"}],"
		  "\"defaultBackends\":[{\"backendName\":\"a\"}]}",
		  "spec.hosts[1]", "duplicate host \"example.org\"" },
	};
	struct sy_router r;
	size_t i;

	router_start(&r);
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *obj;

		assert_true(asprintf(&obj, RG("bad", "%s"), cases[i].spec) > 0);
		apply_err(&r, obj, cases[i].field, cases[i].msg);
		free(obj);
	}
	router_stop(&r);
}

/* One bad route rejects the whole group, and nothing else of the apply lands. */
static void
test_whole_group_rejected(void **state)
{
	struct sy_router r;
	char buf[64];
	json_t *rep;

	router_start(&r);
	apply_err(&r, SERVICES3 ","
		  RG("g", "{\"hosts\":[\"g.test\"],\"backends\":[" BACKENDS3 "],\"defaultBackends\":"
			  "[{\"backendName\":\"a\"}],\"routes\":[{\"path\":\"/ok\"},{\"pathSubtree\":\"/x\","
			  "\"path\":\"/y\"}]}"),
		  "spec.routes[1].pathSubtree", "path and path subtree in the same route");
	assert_string_equal(resolve_service(&r, "http://g.test/ok", NULL, NULL, buf, sizeof(buf)), "none");
	rep = call(&r, "{\"op\":\"get\",\"kind\":\"routegroups.zalando.org\"}");
	assert_int_equal(json_array_size(json_object_get(rep, "items")), 0);
	json_decref(rep);
	rep = call(&r, "{\"op\":\"get\",\"kind\":\"svc\",\"namespace\":\"demo\"}");
	assert_int_equal(json_array_size(json_object_get(rep, "items")), 0);
	json_decref(rep);
	router_stop(&r);
}

static void
test_traffic_split(void **state)
{
	struct sy_router r;
	json_t *rep;

	router_start(&r);
	ops_apply_ok(&r, SERVICES3 ","
		 RG("split", "{\"hosts\":[\"split.test\"],\"backends\":[" BACKENDS3 "],"
			     "\"defaultBackends\":[{\"backendName\":\"a\",\"weight\":6},"
			     "{\"backendName\":\"b\",\"weight\":3},{\"backendName\":\"c\",\"weight\":1}]}") ","
		 RG("unset", "{\"hosts\":[\"unset.test\"],\"backends\":[" BACKENDS3 "],"
			     "\"routes\":[{\"pathSubtree\":\"/\",\"backends\":[{\"backendName\":\"a\",\"weight\":84},"
			     "{\"backendName\":\"b\"},{\"backendName\":\"c\",\"weight\":42}]}]}"));
	rep = resolve(&r, "http://split.test/any", NULL, NULL);
	assert_float_equal(share_of(rep, "a"), 0.6, 1e-9);
	assert_float_equal(share_of(rep, "b"), 0.3, 1e-9);
	assert_float_equal(share_of(rep, "c"), 0.1, 1e-9);
	/* Skipper's chain: Traffic(0.6) && True(), Traffic(0.75), the rest. */
	assert_string_equal(json_string_value(json_array_get(json_object_get(rep, "predicates"), 0)),
			    "Traffic(0.6)");
	assert_string_equal(json_string_value(json_array_get(json_object_get(rep, "predicates"), 1)),
			    "True()");
	assert_int_equal(json_array_size(json_object_get(rep, "split")), 3);
	json_decref(rep);
	rep = resolve(&r, "http://unset.test/", NULL, NULL);
	assert_float_equal(share_of(rep, "a"), 84.0 / 126.0, 1e-9);
	assert_float_equal(share_of(rep, "b"), 0.0, 1e-9);
	assert_float_equal(share_of(rep, "c"), 42.0 / 126.0, 1e-9);
	json_decref(rep);
	router_stop(&r);
}

static void
test_priority(void **state)
{
	struct sy_router r;
	char buf[64];

	router_start(&r);
	ops_apply_ok(&r, SERVICES3 ","
		 RG("prio", "{\"hosts\":[\"p.test\"],\"backends\":[" BACKENDS3 "],"
			    "\"defaultBackends\":[{\"backendName\":\"a\"}],\"routes\":["
			    "{\"pathSubtree\":\"/\"},"
			    "{\"pathSubtree\":\"/\",\"predicates\":[\"Header(\\\"X-Team\\\", \\\"b\\\")\"],"
			    "\"backends\":[{\"backendName\":\"b\"}]},"
			    "{\"pathSubtree\":\"/\",\"predicates\":[\"Header(\\\"X-Team\\\", \\\"b\\\")\","
			    "\"Header(\\\"X-Canary\\\", \\\"1\\\")\"],\"backends\":[{\"backendName\":\"c\"}]},"
			    "{\"pathSubtree\":\"/api\",\"backends\":[{\"backendName\":\"c\"}]}]}"));
	/* More predicates win among routes of one path. */
	assert_string_equal(resolve_service(&r, "http://p.test/x", NULL, NULL, buf, sizeof(buf)), "a");
	assert_string_equal(resolve_service(&r, "http://p.test/x", NULL, "{\"X-Team\":\"b\"}", buf,
					    sizeof(buf)), "b");
	assert_string_equal(resolve_service(&r, "http://p.test/x", NULL,
					    "{\"x-team\":\"b\",\"X-Canary\":\"1\"}", buf, sizeof(buf)), "c");
	/* The path tree first: /api beats "/" even with both headers. */
	assert_string_equal(resolve_service(&r, "http://p.test/api/v1", NULL,
					    "{\"X-Team\":\"b\",\"X-Canary\":\"1\"}", buf, sizeof(buf)), "c");
	assert_string_equal(resolve_service(&r, "http://p.test/api/v1", NULL, NULL, buf, sizeof(buf)), "c");
	assert_string_equal(resolve_service(&r, "http://p.test/apix", NULL, NULL, buf, sizeof(buf)), "a");
	router_stop(&r);
}

#define JWT_GOOGLE_IMPORTANT \
	"Bearer eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2FjY291bnRzLmdvb2dsZS5jb20iLCJlbWFpbCI6ImltcG9ydGFudEBleGFtcGxlLm9yZyJ9.sig"
#define JWT_GITHUB \
	"Bearer eyJhbGciOiJub25lIn0.eyJpc3MiOiJodHRwczovL2FjY291bnRzLmdpdGh1Yi5jb20ifQ.sig"

static void
test_predicates(void **state)
{
	struct sy_router r;
	char buf[64];

	router_start(&r);
	ops_apply_ok(&r, SERVICES3 ","
		 RG("preds", "{\"hosts\":[\"q.test\"],\"backends\":[" BACKENDS3 "],"
			     "\"defaultBackends\":[{\"backendName\":\"a\"}],\"routes\":["
			     "{\"pathSubtree\":\"/m\"},"
			     "{\"pathSubtree\":\"/m\",\"methods\":[\"post\",\"PUT\"],\"backends\":[{\"backendName\":\"b\"}]},"
			     "{\"pathSubtree\":\"/hr\"},"
			     "{\"pathSubtree\":\"/hr\",\"predicates\":[\"HeaderRegexp(\\\"User-Agent\\\", /curl/)\"],"
			     "\"backends\":[{\"backendName\":\"b\"}]},"
			     "{\"pathSubtree\":\"/ck\"},"
			     "{\"pathSubtree\":\"/ck\",\"predicates\":[\"Cookie(\\\"canary\\\", \\\"^team-foo$\\\")\"],"
			     "\"backends\":[{\"backendName\":\"b\"}]},"
			     "{\"pathSubtree\":\"/rx\"},"
			     "{\"pathSubtree\":\"/rx\",\"pathRegexp\":\"[.]json$\",\"backends\":[{\"backendName\":\"b\"}]},"
			     "{\"path\":\"/jwt\"},"
			     "{\"path\":\"/jwt\",\"predicates\":[\"JWTPayloadAllKV(\\\"iss\\\", \\\"https://accounts.google.com\\\", "
			     "\\\"email\\\", \\\"important@example.org\\\")\"],\"backends\":[{\"backendName\":\"b\"}]},"
			     "{\"path\":\"/jwt\",\"predicates\":[\"JWTPayloadAnyKV(\\\"iss\\\", \\\"https://accounts.google.com\\\", "
			     "\\\"iss\\\", \\\"https://accounts.github.com\\\")\"],\"backends\":[{\"backendName\":\"c\"}]},"
			     "{\"pathSubtree\":\"/qp\"},"
			     "{\"pathSubtree\":\"/qp\",\"predicates\":[\"QueryParam(\\\"k\\\")\"],\"backends\":[{\"backendName\":\"b\"}]},"
			     "{\"pathSubtree\":\"/qp\",\"predicates\":[\"QueryParam(\\\"v\\\", /^a+$/)\"],"
			     "\"backends\":[{\"backendName\":\"c\"}]}]}"));
	assert_string_equal(resolve_service(&r, "http://q.test/m", "GET", NULL, buf, sizeof(buf)), "a");
	assert_string_equal(resolve_service(&r, "http://q.test/m", "POST", NULL, buf, sizeof(buf)), "b");
	assert_string_equal(resolve_service(&r, "http://q.test/m/x", "PUT", NULL, buf, sizeof(buf)), "b");
	assert_string_equal(resolve_service(&r, "http://q.test/hr", NULL, "{\"user-agent\":\"curl/8.0\"}",
					    buf, sizeof(buf)), "b");
	assert_string_equal(resolve_service(&r, "http://q.test/hr", NULL, "{\"User-Agent\":\"wget\"}", buf,
					    sizeof(buf)), "a");
	assert_string_equal(resolve_service(&r, "http://q.test/ck", NULL,
					    "{\"Cookie\":\"a=1; canary=team-foo; z=2\"}", buf, sizeof(buf)), "b");
	assert_string_equal(resolve_service(&r, "http://q.test/ck", NULL, "{\"Cookie\":\"canary=team-foobar\"}",
					    buf, sizeof(buf)), "a");
	assert_string_equal(resolve_service(&r, "http://q.test/rx/a.json?x=1", NULL, NULL, buf, sizeof(buf)), "b");
	assert_string_equal(resolve_service(&r, "http://q.test/rx/a.xml", NULL, NULL, buf, sizeof(buf)), "a");
	assert_string_equal(resolve_service(&r, "http://q.test/jwt", NULL,
					    "{\"Authorization\":\"" JWT_GOOGLE_IMPORTANT "\"}", buf, sizeof(buf)), "b");
	assert_string_equal(resolve_service(&r, "http://q.test/jwt", NULL,
					    "{\"Authorization\":\"" JWT_GITHUB "\"}", buf, sizeof(buf)), "c");
	assert_string_equal(resolve_service(&r, "http://q.test/jwt", NULL, "{\"Authorization\":\"Bearer x.y\"}",
					    buf, sizeof(buf)), "a");
	assert_string_equal(resolve_service(&r, "http://q.test/jwt", NULL, NULL, buf, sizeof(buf)), "a");
	/* QueryParam("k"): present, with or without a value; QueryParam("v", /^a+$/) */
	assert_string_equal(resolve_service(&r, "http://q.test/qp", NULL, NULL, buf, sizeof(buf)), "a");
	assert_string_equal(resolve_service(&r, "http://q.test/qp?k", NULL, NULL, buf, sizeof(buf)), "b");
	assert_string_equal(resolve_service(&r, "http://q.test/qp/x?x=1&k=2", NULL, NULL, buf, sizeof(buf)), "b");
	assert_string_equal(resolve_service(&r, "http://q.test/qp?kk=1&xk=2", NULL, NULL, buf, sizeof(buf)), "a");
	assert_string_equal(resolve_service(&r, "http://q.test/qp?v=aaa", NULL, NULL, buf, sizeof(buf)), "c");
	assert_string_equal(resolve_service(&r, "http://q.test/qp?v=ab", NULL, NULL, buf, sizeof(buf)), "a");
	assert_string_equal(resolve_service(&r, "http://q.test/qp#?k=1", NULL, NULL, buf, sizeof(buf)), "a");
	router_stop(&r);
}

static void
test_filters_and_actions(void **state)
{
	struct sy_router r;
	json_t *rep;
	char buf[64];

	router_start(&r);
	ops_apply_ok(&r, SERVICES3 ","
		 RG("act", "{\"hosts\":[\"act.test\",\"www.act.test\"],\"backends\":[" BACKENDS3 ","
			   "{\"name\":\"redirect\",\"type\":\"shunt\"},{\"name\":\"gone\",\"type\":\"shunt\"}],"
			   "\"defaultBackends\":[{\"backendName\":\"a\"}],\"routes\":["
			   "{\"pathSubtree\":\"/\",\"filters\":[\"setRequestHeader(\\\"X-From\\\", \\\"rg\\\")\","
			   "\"ratelimit(20, \\\"1m\\\")\"]},"
			   "{\"path\":\"/login\",\"methods\":[\"GET\"],\"backends\":[{\"backendName\":\"redirect\"}],"
			   "\"filters\":[\"redirectTo(308, \\\"https://login.example.org/\\\")\"]},"
			   "{\"path\":\"/teapot\",\"backends\":[{\"backendName\":\"gone\"}],"
			   "\"filters\":[\"status(418)\",\"inlineContent(\\\"short and stout\\\")\"]},"
			   "{\"path\":\"/gone\",\"backends\":[{\"backendName\":\"gone\"}]},"
			   "{\"pathSubtree\":\"/b\",\"backends\":[{\"backendName\":\"b\"}],"
			   "\"filters\":[\"modPath(\\\"^/b\\\", \\\"/\\\")\"]}]}") ","
		 RG("api", "{\"hosts\":[\"api.test\"],\"backends\":[" BACKENDS3 "],"
			   "\"defaultBackends\":[{\"backendName\":\"a\"}],\"routes\":[{\"path\":\"/only\"}]}"));
	rep = resolve(&r, "http://act.test/login", "GET", NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "redirect");
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 308);
	assert_string_equal(json_string_value(json_object_get(rep, "location")), "https://login.example.org/");
	assert_string_equal(json_string_value(json_array_get(json_object_get(rep, "filters"), 0)),
			    "redirectTo(308, \"https://login.example.org/\")");
	json_decref(rep);
	/* POST /login: the method does not match; the "/" route takes it. */
	rep = resolve(&r, "http://www.act.test/login", "POST", NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "backend");
	assert_string_equal(json_string_value(json_array_get(json_object_get(rep, "filters"), 0)),
			    "setRequestHeader(\"X-From\", \"rg\")");
	assert_string_equal(json_string_value(json_array_get(json_object_get(rep, "filters"), 1)),
			    "ratelimit(20, \"1m\")");
	assert_string_equal(json_string_value(json_object_get(rep, "object")), "demo/act");
	assert_string_equal(json_string_value(json_object_get(rep, "kind")), "RouteGroup");
	json_decref(rep);
	rep = resolve(&r, "http://act.test/teapot", NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "static");
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 418);
	assert_string_equal(json_string_value(json_object_get(rep, "body")), "short and stout");
	json_decref(rep);
	rep = resolve(&r, "http://act.test/gone", NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "static");
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 404);
	json_decref(rep);
	/* Route backends override defaultBackends. */
	assert_string_equal(resolve_service(&r, "http://act.test/b/x", NULL, NULL, buf, sizeof(buf)), "b");
	assert_string_equal(resolve_service(&r, "http://act.test/c", NULL, NULL, buf, sizeof(buf)), "a");
	/* No Host-only route in "api": Skipper's catch-all shunt answers 404. */
	assert_string_equal(resolve_service(&r, "http://api.test/only", NULL, NULL, buf, sizeof(buf)), "a");
	rep = resolve(&r, "http://api.test/other", NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "static");
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 404);
	json_decref(rep);
	router_stop(&r);
}

static void
test_status(void **state)
{
	struct sy_router r;
	json_t *st;
	char buf[64];

	router_start(&r);
	ops_apply_ok(&r, SERVICES3 ","
		 RG("good", "{\"hosts\":[\"good.test\"],\"backends\":[" BACKENDS3 "],"
			    "\"defaultBackends\":[{\"backendName\":\"a\"}]}") ","
		 RG("partial", "{\"hosts\":[\"partial.test\"],\"backends\":[" BACKENDS3 ","
			       "{\"name\":\"m\",\"type\":\"service\",\"serviceName\":\"missing\",\"servicePort\":80}],"
			       "\"defaultBackends\":[{\"backendName\":\"a\"}],\"routes\":["
			       "{\"pathSubtree\":\"/\"},{\"path\":\"/m\",\"backends\":[{\"backendName\":\"m\"}]}]}") ","
		 RG("nohosts", "{\"backends\":[" BACKENDS3 "],\"defaultBackends\":[{\"backendName\":\"a\"}]}"));
	st = get_status(&r, "good");
	assert_true(json_is_true(json_object_get(st, "valid")));
	assert_int_equal(json_integer_value(json_object_get(st, "routes")), 1);
	assert_int_equal(json_array_size(json_object_get(st, "errors")), 0);
	json_decref(st);
	st = get_status(&r, "partial");
	assert_false(json_is_true(json_object_get(st, "valid")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(st, "errors"), 0),
							      "message")),
			    "Ignoring route: service not found: demo/missing");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(st, "errors"), 0),
							      "field")), "spec.routes[1]");
	json_decref(st);
	/* The dropped route is gone; the other route still serves /m. */
	assert_string_equal(resolve_service(&r, "http://partial.test/m", NULL, NULL, buf, sizeof(buf)), "a");
	/* No hosts: every host (Skipper has no Host predicate then); here the
	 * default vhost, for hosts no other vhost has. */
	st = get_status(&r, "nohosts");
	assert_true(json_is_true(json_object_get(st, "valid")));
	assert_int_equal(json_integer_value(json_object_get(st, "routes")), 1);
	json_decref(st);
	assert_string_equal(resolve_service(&r, "http://anything.test/x", NULL, NULL, buf, sizeof(buf)), "a");
	assert_string_equal(resolve_service(&r, "http://partial.test/m", NULL, NULL, buf, sizeof(buf)), "a");
	/* An older OpenShift Route holds the host: the group says who. */
	ops_apply_ok(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"old\","
		     "\"namespace\":\"demo\",\"creationTimestamp\":\"2001-01-01T00:00:00Z\"},\"spec\":{\"host\":"
		     "\"good.test\",\"to\":{\"kind\":\"Service\",\"name\":\"b\"}}}");
	st = get_status(&r, "good");
	assert_false(json_is_true(json_object_get(st, "valid")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(st, "errors"), 0),
							      "message")),
			    "host good.test is served by Route demo/old, whose claim is older");
	assert_int_equal(json_integer_value(json_object_get(st, "routes")), 0);
	json_decref(st);
	assert_string_equal(resolve_service(&r, "http://good.test/", NULL, NULL, buf, sizeof(buf)), "b");
	router_stop(&r);
}

/* ------------------------------------------------ network and lb backends -- */

/*
 * Names under .multi.test answer from here, not the resolver (getaddrinfo is
 * wrapped for this executable, tests/unit/meson.build): "three" has three
 * addresses, listed out of order and one twice, as resolvers do; "many" has
 * twenty. Every other name goes to the real getaddrinfo.
 */
int __real_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
		       struct addrinfo **res);
void __real_freeaddrinfo(struct addrinfo *res);
static char fake_ai[] = "fake";

int
__wrap_getaddrinfo(const char *node, const char *service, const struct addrinfo *hints,
		   struct addrinfo **res)
{
	static const uint8_t three[] = { 31, 30, 31, 32 };
	const char *dot = node ? strchr(node, '.') : NULL;
	unsigned n, i;

	if (dot == NULL || strcmp(dot, ".multi.test") != 0)
		return __real_getaddrinfo(node, service, hints, res);
	n = strncmp(node, "three.", 6) == 0 ? sizeof(three) : 20;
	*res = NULL;
	for (i = n; i-- > 0;) {
		struct {
			struct addrinfo ai;
			struct sockaddr_in sin;
		} *f = calloc(1, sizeof(*f));

		assert_non_null(f);
		f->sin.sin_family = AF_INET;
		f->sin.sin_addr.s_addr =
			htonl(0xc6120100u | (n == sizeof(three) ? three[i] : 100 - i)); /* 198.18.1.x */
		f->ai = (struct addrinfo){ .ai_family = AF_INET, .ai_socktype = SOCK_STREAM,
					   .ai_addr = (struct sockaddr *)&f->sin,
					   .ai_addrlen = sizeof(f->sin), .ai_canonname = fake_ai,
					   .ai_next = *res };
		*res = &f->ai;
	}
	return 0;
}

void
__wrap_freeaddrinfo(struct addrinfo *res)
{
	struct addrinfo *next;

	if (res == NULL || res->ai_canonname != fake_ai) {
		__real_freeaddrinfo(res);
		return;
	}
	for (; res != NULL; res = next) {
		next = res->ai_next;
		free(res);
	}
}

/* Which backend URLs the router serves, the endpoints they name, and the words for the
 * rest (control/gen/backend_url.c). Host names resolve through getaddrinfo: "localhost"
 * from /etc/hosts, anything under the reserved .invalid TLD (RFC 6761) never. */
static void
test_backend_url_parse(void **state)
{
	static const struct {
		const char *url;
		const char *addr; /* NULL: no address */
		uint16_t port;
		int rc;
		bool tls;
		const char *why; /* NULL: "" */
		const char *host; /* NULL: not checked */
	} cases[] = {
		{ "http://198.18.1.10:8080", "198.18.1.10", 8080, 0, false, NULL },
		{ "http://198.18.1.10", "198.18.1.10", 80, 0, false, NULL },
		{ "HTTP://198.18.1.10:", "198.18.1.10", 80, 0, false, NULL },
		{ "http://198.18.1.10:81/ignored?x", "198.18.1.10", 81, 0, false, NULL },
		{ "http://localhost:8080", "127.0.0.1", 8080, 0, false, NULL },
		{ "http://LocalHost", "127.0.0.1", 80, 0, false, NULL },
		/* https: parsed and resolved (443 unless written), the host kept
		 * as the name TLS verifies. */
		{ "https://198.18.1.10", "198.18.1.10", 443, 0, true, NULL, "198.18.1.10" },
		{ "https://198.18.1.10:", "198.18.1.10", 443, 0, true, NULL, "198.18.1.10" },
		{ "HTTPS://LocalHost:8443", "127.0.0.1", 8443, 0, true, NULL, "localhost" },
		{ "https://198.18.1.10:8443/path", "198.18.1.10", 8443, 0, true, NULL, "198.18.1.10" },
		{ "http://nope.invalid", NULL, 80, SY_BACKEND_URL_UNRESOLVED, false,
		  "the host name nope.invalid did not resolve: " },
		{ "https://Nope.Invalid:9443", NULL, 9443, SY_BACKEND_URL_UNRESOLVED, true,
		  "the host name nope.invalid did not resolve: " },
		{ "http://198.18.1:80", NULL, 80, SY_BACKEND_URL_REFUSED, false,
		  "\"198.18.1\" is not an IPv4 address" },
		{ "http://198.18.1.300", NULL, 80, SY_BACKEND_URL_REFUSED, false,
		  "\"198.18.1.300\" is not an IPv4 address" },
		/* IPv6 literals (RFC 3986 3.2.2), kept in RFC 5952's text. */
		{ "http://[2001:2:1::10]:8080", "2001:2:1::10", 8080, 0, false, NULL, "2001:2:1::10" },
		{ "https://[2001:2:1::10]", "2001:2:1::10", 443, 0, true, NULL, "2001:2:1::10" },
		{ "http://[2001:2:1:0::A]:/x", "2001:2:1::a", 80, 0, false, NULL, "2001:2:1::a" },
		{ "http://[2001:2::zz]:80", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "\"2001:2::zz\" is not an IPv6 address" },
		{ "http://[198.18.1.10]", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "\"198.18.1.10\" is not an IPv6 address" },
		{ "http://[2001:2::1", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "\"[2001:2::1\" is not an IPv6 literal" },
		{ "http://[2001:2::1]80", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "\"[2001:2::1]80\" is not an IPv6 literal" },
		{ "http://[2001:2::1]:99999", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "\"99999\" is not a port number" },
		{ "http://u:p@198.18.1.10", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "credentials in the URL (user:password@) are not sent to the backend, by Skipper "
		  "or this router: send an Authorization header with setRequestHeader instead" },
		{ "https://user@backend.example:8443", NULL, 0, SY_BACKEND_URL_REFUSED, true,
		  "credentials in the URL (user:password@)" },
		{ "http://198.18.1.10:70000", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "\"70000\" is not a port number" },
		{ "https://198.18.1.10:99999999999", NULL, 0, SY_BACKEND_URL_REFUSED, true,
		  "\"99999999999\" is not a port number" },
		{ "http://198.18.1.10:0", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "\"0\" is not a port number" },
		{ "http://198.18.1.10:8o", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "\"8o\" is not a port number" },
		{ "http://198.18.1.10:-1", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "\"-1\" is not a port number" },
		{ "ftp://198.18.1.10", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "the scheme \"ftp\" is not http or https" },
		{ "httpss://198.18.1.10", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "the scheme \"httpss\" is not http or https" },
		{ "198.18.1.10:80", NULL, 0, SY_BACKEND_URL_REFUSED, false,
		  "not a URL like http://198.18.1.10:8080" },
		{ "http://:80", NULL, 80, SY_BACKEND_URL_REFUSED, false, "the URL has no host" },
		{ "https://", NULL, 443, SY_BACKEND_URL_REFUSED, true, "the URL has no host" },
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sy_backend_url bu;
		char why[320] = "x", buf[SY_ADDR_STRLEN];
		int rc = sy_backend_url_resolve(cases[i].url, &bu, why, sizeof(why));
		const char *want = cases[i].why ? cases[i].why : "";

		if (rc != cases[i].rc)
			fail_msg("%s: rc %d, want %d (%s)", cases[i].url, rc, cases[i].rc, why);
		if (bu.tls != cases[i].tls)
			fail_msg("%s: tls %d, want %d", cases[i].url, bu.tls, cases[i].tls);
		if (cases[i].addr != NULL) {
			assert_int_equal(bu.n_addrs, 1);
			assert_string_equal(sy_addr_format(&bu.addrs[0], buf, sizeof(buf)),
					    cases[i].addr);
		} else {
			assert_int_equal(bu.n_addrs, 0);
		}
		if (cases[i].port != 0)
			assert_int_equal(bu.port, cases[i].port);
		if (cases[i].why == NULL ? why[0] != '\0' : strncmp(why, want, strlen(want)) != 0)
			fail_msg("%s: \"%s\", want \"%s\"", cases[i].url, why, want);
		if (cases[i].host != NULL)
			assert_string_equal(bu.host, cases[i].host);
	}
}

/* Every address of a name, sorted, without repeats, the lowest 16 of more. */
static void
test_backend_url_addresses(void **state)
{
	struct sy_backend_url bu;
	char why[320], buf[SY_ADDR_STRLEN];
	unsigned i;

	(void)state;
	assert_int_equal(sy_backend_url_resolve("http://three.multi.test:8080", &bu, why,
						sizeof(why)), SY_BACKEND_URL_OK);
	assert_int_equal(bu.n_addrs, 3);
	assert_int_equal(bu.port, 8080);
	for (i = 0; i < 3; i++) {
		char want[32];

		snprintf(want, sizeof(want), "198.18.1.%u", 30 + i);
		assert_string_equal(sy_addr_format(&bu.addrs[i], buf, sizeof(buf)), want);
	}
	assert_int_equal(sy_backend_url_resolve("http://many.multi.test", &bu, why, sizeof(why)),
			 SY_BACKEND_URL_OK);
	assert_int_equal(bu.n_addrs, SY_BACKEND_URL_ADDRS_MAX);
	assert_string_equal(sy_addr_format(&bu.addrs[0], buf, sizeof(buf)), "198.18.1.81");
	assert_string_equal(sy_addr_format(&bu.addrs[15], buf, sizeof(buf)), "198.18.1.96");
}

/* The cache: one lookup per name (any spelling) while the answer is fresh, a
 * failure kept too; asked again once it is SY_BACKEND_DNS_TTL_S old. */
static void
test_backend_url_cache(void **state)
{
	struct sy_backend_url bu;
	char why[320], why2[320];
	unsigned long before;

	(void)state;
	sy_backend_url_cache_clear();
	before = sy_backend_url_lookups();
	assert_int_equal(sy_backend_url_resolve("http://localhost", &bu, why, sizeof(why)), 0);
	assert_int_equal(sy_backend_url_resolve("https://LOCALHOST:8443", &bu, why, sizeof(why)), 0);
	assert_int_equal(sy_backend_url_resolve("http://localhost:81", &bu, why, sizeof(why)), 0);
	assert_int_equal(sy_backend_url_lookups() - before, 1);
	assert_int_equal(sy_backend_url_resolve("http://gone.invalid", &bu, why, sizeof(why)),
			 SY_BACKEND_URL_UNRESOLVED);
	assert_int_equal(sy_backend_url_resolve("http://gone.invalid:81", &bu, why2, sizeof(why2)),
			 SY_BACKEND_URL_UNRESOLVED);
	assert_string_equal(why, why2);
	assert_int_equal(sy_backend_url_lookups() - before, 2);
	/* Not yet stale, then stale: both names are asked again. */
	sy_backend_url_cache_age(SY_BACKEND_DNS_TTL_S - 2);
	assert_int_equal(sy_backend_url_resolve("http://localhost", &bu, why, sizeof(why)), 0);
	assert_int_equal(sy_backend_url_lookups() - before, 2);
	sy_backend_url_cache_age(2);
	assert_int_equal(sy_backend_url_resolve("http://localhost", &bu, why, sizeof(why)), 0);
	assert_int_equal(sy_backend_url_resolve("http://gone.invalid", &bu, why, sizeof(why)),
			 SY_BACKEND_URL_UNRESOLVED);
	assert_int_equal(sy_backend_url_lookups() - before, 4);
	/* An address is not a lookup. */
	assert_int_equal(sy_backend_url_resolve("http://198.18.1.1", &bu, why, sizeof(why)), 0);
	assert_int_equal(sy_backend_url_lookups() - before, 4);
	sy_backend_url_cache_clear();
	assert_int_equal(sy_backend_url_resolve("http://localhost", &bu, why, sizeof(why)), 0);
	assert_int_equal(sy_backend_url_lookups() - before, 5);
	/* Many names: stale answers are swept once the map grows, fresh ones
	 * stay (asking for them again is no lookup). */
	{
		char url[64];
		unsigned i;

		for (i = 0; i < 100; i++) {
			snprintf(url, sizeof(url), "http://old%u.multi.test", i);
			assert_int_equal(sy_backend_url_resolve(url, &bu, why, sizeof(why)), 0);
		}
		sy_backend_url_cache_age(SY_BACKEND_DNS_TTL_S);
		before = sy_backend_url_lookups();
		for (i = 0; i < 100; i++) {
			snprintf(url, sizeof(url), "http://new%u.multi.test", i);
			assert_int_equal(sy_backend_url_resolve(url, &bu, why, sizeof(why)), 0);
		}
		for (i = 0; i < 100; i++) {
			snprintf(url, sizeof(url), "http://new%u.multi.test:81", i);
			assert_int_equal(sy_backend_url_resolve(url, &bu, why, sizeof(why)), 0);
			assert_int_equal(bu.n_addrs, SY_BACKEND_URL_ADDRS_MAX);
		}
		assert_int_equal(sy_backend_url_lookups() - before, 100);
	}
	sy_backend_url_cache_clear();
}

#define LB_RG(name, host, backend) \
	RG(name, "{\"hosts\":[\"" host "\"],\"backends\":[" backend "]," \
		 "\"defaultBackends\":[{\"backendName\":\"web\"}]}")

/* The live generation's rule for host / (one each here). */
static const struct sy_rule *
root_rule(struct sy_router *r, const char *host)
{
	const struct sy_vhost *vh = sy_gen_find_vhost(sy_gen_acquire(&r->slot), host, strlen(host));

	assert_non_null(vh);
	assert_int_equal(vh->n_rules, 1);
	return &vh->rules[0];
}

static enum sy_carry_mode
vhost_mode(struct sy_router *r, const char *host)
{
	return sy_gen_find_vhost(sy_gen_acquire(&r->slot), host, strlen(host))->mode;
}

static void
assert_endpoint(const struct sy_endpoint *ep, const char *addr, uint16_t port)
{
	char buf[SY_ADDR_STRLEN];

	assert_string_equal(sy_addr_format(&ep->addr, buf, sizeof(buf)), addr);
	assert_int_equal(ep->port, port);
}

/* v equals the JSON text want. */
static void
assert_json(const json_t *v, const char *want)
{
	json_t *w = json_loads(want, 0, NULL);
	char *d = json_dumps(v, JSON_ENCODE_ANY);

	assert_non_null(w);
	if (!json_equal(v, w))
		fail_msg("expected %s, got %s", want, d ? d : "(none)");
	free(d);
	json_decref(w);
}

/* A backend that resolve says is not served, and why. */
static void
assert_not_served(struct sy_router *r, const char *url, const char *reason)
{
	json_t *rep = resolve(r, url, NULL, NULL);
	char *d = json_dumps(rep, 0);

	if (strcmp(json_string_value(json_object_get(rep, "mode")), "proxy") != 0 ||
	    !json_is_null(json_object_get(rep, "status")) ||
	    json_array_size(json_object_get(rep, "endpoints")) != 0 ||
	    !json_is_object(json_object_get(rep, "backend")) ||
	    strcmp(json_string_value(json_object_get(rep, "reason")), reason) != 0)
		fail_msg("expected proxy mode, no endpoints and reason \"%s\", got %s", reason, d);
	free(d);
	json_decref(rep);
}

static void
test_url_backends(void **state)
{
	struct sy_router r;
	const struct sy_rule *rule;
	const struct sy_pool *p;
	json_t *rep, *st;
	unsigned long before;

	/* Every incremental compile is checked against a full one. */
	setenv("SY_COMPILE_VERIFY", "1", 1);
	router_start(&r);
	ops_apply_ok(&r, LB_RG("lb", "lb.test",
			       "{\"name\":\"web\",\"type\":\"lb\",\"algorithm\":\"leastRequests\","
			       "\"endpoints\":[\"http://198.18.1.10:8080\",\"HTTP://198.18.1.11\"]}"));
	ops_apply_ok(&r, LB_RG("net", "net.test",
			       "{\"name\":\"web\",\"type\":\"network\",\"address\":\"http://198.18.1.12\"}"));
	ops_apply_ok(&r, LB_RG("net-port", "net-port.test",
			       "{\"name\":\"web\",\"type\":\"network\",\"address\":\"http://198.18.1.12:8081\"}"));

	/* lb: a plain backend rule, so the vhost is spliced; its pool holds
	 * both URLs' addresses and ports and the algorithm's strategy. */
	assert_int_equal(vhost_mode(&r, "lb.test"), SY_MODE_SPLICE);
	rule = root_rule(&r, "lb.test");
	assert_int_equal(rule->action, SY_ACTION_BACKEND);
	assert_int_equal(rule->n_filters, 0);
	p = rule->pool;
	assert_false(p->needs_proxy);
	assert_int_equal(p->strategy, SY_LB_LEAST_REQUESTS);
	assert_int_equal(p->n_endpoints, 2);
	assert_endpoint(&p->endpoints[0], "198.18.1.10", 8080);
	assert_endpoint(&p->endpoints[1], "198.18.1.11", 80);
	assert_true(p->endpoints[0].weight > 0);
	assert_int_equal(p->endpoints[0].weight, p->endpoints[1].weight);
	assert_int_equal(p->n_services, 1);
	assert_string_equal(p->services[0].name, "web");
	rep = resolve(&r, "http://lb.test/x", NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "mode")), "splice");
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "backend");
	assert_true(json_is_null(json_object_get(rep, "status")));
	assert_null(json_object_get(rep, "reason"));
	assert_int_equal(json_array_size(json_object_get(rep, "filters")), 0);
	assert_json(json_object_get(rep, "backend"),
		    "{\"type\":\"lb\",\"algorithm\":\"leastRequests\",\"endpoints\":"
		    "[\"http://198.18.1.10:8080\",\"HTTP://198.18.1.11\"]}");
	st = json_array_get(json_object_get(rep, "services"), 0);
	assert_int_equal(json_array_size(json_object_get(rep, "services")), 1);
	assert_string_equal(json_string_value(json_object_get(st, "namespace")), "demo");
	assert_string_equal(json_string_value(json_object_get(st, "name")), "web");
	assert_string_equal(json_string_value(json_object_get(st, "type")), "lb");
	assert_int_equal(json_integer_value(json_object_get(st, "endpoints")), 2);
	assert_true(json_real_value(json_object_get(st, "share")) > 0.999);
	st = json_array_get(json_object_get(rep, "endpoints"), 1);
	assert_string_equal(json_string_value(json_object_get(st, "address")), "198.18.1.11");
	assert_int_equal(json_integer_value(json_object_get(st, "port")), 80);
	assert_string_equal(json_string_value(json_object_get(st, "service")), "demo/web");
	json_decref(rep);

	/* network: one endpoint, port 80 unless the URL says. */
	assert_int_equal(vhost_mode(&r, "net.test"), SY_MODE_SPLICE);
	p = root_rule(&r, "net.test")->pool;
	assert_int_equal(p->n_endpoints, 1);
	assert_endpoint(&p->endpoints[0], "198.18.1.12", 80);
	assert_endpoint(&root_rule(&r, "net-port.test")->pool->endpoints[0], "198.18.1.12", 8081);
	rep = resolve(&r, "http://net.test/", NULL, NULL);
	assert_json(json_object_get(rep, "backend"),
		    "{\"type\":\"network\",\"address\":\"http://198.18.1.12\"}");
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(rep, "services"), 0),
							      "type")), "network");
	json_decref(rep);

	/* Pools are shared by their URLs: another group with a backend of the
	 * same name but one other endpoint has a pool of its own; the same
	 * URLs on two hosts share one. */
	ops_apply_ok(&r, LB_RG("lb2", "lb2.test",
			       "{\"name\":\"web\",\"type\":\"lb\",\"algorithm\":\"leastRequests\","
			       "\"endpoints\":[\"http://198.18.1.10:8080\",\"http://198.18.1.13\"]}") ","
			 RG("two", "{\"hosts\":[\"two-a.test\",\"two-b.test\"],\"backends\":["
				   "{\"name\":\"web\",\"type\":\"lb\",\"endpoints\":[\"http://198.18.1.14\"]}],"
				   "\"defaultBackends\":[{\"backendName\":\"web\"}]}"));
	p = root_rule(&r, "lb2.test")->pool;
	assert_ptr_not_equal(p, root_rule(&r, "lb.test")->pool);
	assert_int_equal(p->n_endpoints, 2);
	assert_endpoint(&p->endpoints[1], "198.18.1.13", 80);
	assert_ptr_equal(root_rule(&r, "two-a.test")->pool, root_rule(&r, "two-b.test")->pool);
	assert_int_equal(root_rule(&r, "two-a.test")->pool->strategy, SY_LB_ROUND_ROBIN);

	/* An https URL keeps its endpoints, marked tls with the URL's host,
	 * and the pool a client context: served over TLS, in the proxy mode.
	 * What the router cannot serve stays compiled, and resolve says why:
	 * a URL the router refuses leaves no endpoint. */
	sy_backend_url_cache_clear();
	before = sy_backend_url_lookups();
	ops_apply_ok(&r, LB_RG("tls", "tls.test",
			       "{\"name\":\"web\",\"type\":\"network\",\"address\":\"https://198.18.1.12\"}") ","
			 LB_RG("tls-name", "tls-name.test",
			       "{\"name\":\"web\",\"type\":\"network\",\"address\":\"https://localhost\"}") ","
			 LB_RG("tls-mixed", "tls-mixed.test",
			       "{\"name\":\"web\",\"type\":\"lb\","
			       "\"endpoints\":[\"http://198.18.1.10\",\"https://198.18.1.11:8443\"]}") ","
			 LB_RG("dns", "dns.test",
			       "{\"name\":\"web\",\"type\":\"network\",\"address\":\"http://backend.invalid:8080\"}") ","
			 LB_RG("named", "named.test",
			       "{\"name\":\"web\",\"type\":\"network\",\"address\":\"http://localhost:8080\"}") ","
			 LB_RG("named2", "named2.test",
			       "{\"name\":\"web\",\"type\":\"network\",\"address\":\"http://LOCALHOST:8081\"}") ","
			 LB_RG("mixed", "mixed.test",
			       "{\"name\":\"web\",\"type\":\"lb\","
			       "\"endpoints\":[\"http://198.18.1.10\",\"http://web.invalid\"]}") ","
			 LB_RG("split", "split.test",
			       "{\"name\":\"web\",\"type\":\"lb\","
			       "\"endpoints\":[\"http://198.18.1.10\",\"http://three.multi.test:8080\"]}") ","
			 LB_RG("cred", "cred.test",
			       "{\"name\":\"web\",\"type\":\"network\",\"address\":\"http://u:p@198.18.1.10\"}") ","
			 LB_RG("tls-v6", "tls-v6.test",
			       "{\"name\":\"web\",\"type\":\"network\",\"address\":\"https://[2001:2:1::10]\"}") ","
			 LB_RG("tls-gone", "tls-gone.test",
			       "{\"name\":\"web\",\"type\":\"network\",\"address\":\"https://backend.invalid\"}") ","
			 LB_RG("bare", "bare.test",
			       "{\"name\":\"web\",\"type\":\"lb\",\"endpoints\":[\"198.18.1.10:80\"]}"));
	/* One lookup per name for the whole compile and its check against a
	 * full one (SY_COMPILE_VERIFY): localhost, backend.invalid,
	 * web.invalid, three.multi.test. */
	assert_int_equal(sy_backend_url_lookups() - before, 4);
	assert_int_equal(vhost_mode(&r, "tls.test"), SY_MODE_PROXY);
	p = root_rule(&r, "tls.test")->pool;
	assert_true(p->backend_tls);
	assert_false(p->needs_proxy);
	assert_int_equal(p->n_endpoints, 1);
	assert_endpoint(&p->endpoints[0], "198.18.1.12", 443);
	assert_true(p->endpoints[0].tls);
	assert_string_equal(p->tls_names[0], "198.18.1.12");
	assert_non_null(p->tls_ctx);
	rep = resolve(&r, "http://tls.test/", NULL, NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "mode")), "proxy");
	assert_true(json_is_null(json_object_get(rep, "status")));
	assert_json(json_array_get(json_object_get(rep, "endpoints"), 0),
		    "{\"address\":\"198.18.1.12\",\"port\":443,\"service\":\"demo/web\","
		    "\"weight\":1000001,\"share\":1.0,\"tls\":true,\"tls_name\":\"198.18.1.12\"}");
	json_decref(rep);
	p = root_rule(&r, "tls-name.test")->pool;
	assert_true(p->backend_tls);
	assert_int_equal(p->n_endpoints, 1);
	assert_endpoint(&p->endpoints[0], "127.0.0.1", 443);
	assert_string_equal(p->tls_names[0], "localhost");
	/* One https URL in an lb: that endpoint over TLS, the other in the
	 * clear, one pool; nothing for the status to report. */
	assert_int_equal(vhost_mode(&r, "tls-mixed.test"), SY_MODE_PROXY);
	p = root_rule(&r, "tls-mixed.test")->pool;
	assert_true(p->backend_tls);
	assert_int_equal(p->n_endpoints, 2);
	assert_false(p->endpoints[0].tls);
	assert_non_null(p->tls_names);
	assert_null(p->tls_names[0]);
	assert_true(p->endpoints[1].tls);
	assert_endpoint(&p->endpoints[1], "198.18.1.11", 8443);
	st = get_status(&r, "tls-mixed");
	assert_null(json_object_get(st, "backendErrors"));
	assert_true(json_is_true(json_object_get(st, "valid")));
	json_decref(st);
	assert_not_served(&r, "http://bare.test/",
			  "lb endpoint 198.18.1.10:80: not a URL like http://198.18.1.10:8080; "
			  "requests for it get 503");
	assert_not_served(&r, "http://cred.test/",
			  "network backend http://u:p@198.18.1.10: credentials in the URL "
			  "(user:password@) are not sent to the backend, by Skipper or this router: "
			  "send an Authorization header with setRequestHeader instead; requests for "
			  "it get 503");
	assert_true(root_rule(&r, "cred.test")->pool->needs_proxy);
	assert_false(root_rule(&r, "cred.test")->pool->backend_tls);
	st = get_status(&r, "cred");
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(st, "backendErrors"), 0), "message")),
			    "http://u:p@198.18.1.10: credentials in the URL (user:password@) are not "
			    "sent to the backend, by Skipper or this router: send an Authorization "
			    "header with setRequestHeader instead; requests for it get 503");
	json_decref(st);
	/* An https IPv6 literal is served: its one endpoint IPv6, over TLS;
	 * an https name that does not resolve has no endpoint, and resolve
	 * names the failed lookup. */
	p = root_rule(&r, "tls-v6.test")->pool;
	assert_true(p->backend_tls);
	assert_int_equal(p->n_endpoints, 1);
	assert_int_equal(p->endpoints[0].addr.family, AF_INET6);
	assert_int_equal(p->endpoints[0].port, 443);
	p = root_rule(&r, "tls-gone.test")->pool;
	assert_true(p->backend_tls);
	assert_int_equal(p->n_endpoints, 0);
	rep = resolve(&r, "http://tls-gone.test/", NULL, NULL);
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 503);
	assert_true(strstr(json_string_value(json_object_get(rep, "reason")),
			   "the host name backend.invalid did not resolve: ") != NULL);
	json_decref(rep);
	/* A host name is resolved when the pool is built: localhost from
	 * /etc/hosts (spliced, like an address); a name under .invalid never
	 * resolves: no endpoint, 503, and resolve and the status name the
	 * lookup that failed. */
	assert_int_equal(vhost_mode(&r, "named.test"), SY_MODE_SPLICE);
	p = root_rule(&r, "named.test")->pool;
	assert_int_equal(p->n_endpoints, 1);
	assert_endpoint(&p->endpoints[0], "127.0.0.1", 8080);
	assert_endpoint(&root_rule(&r, "named2.test")->pool->endpoints[0], "127.0.0.1", 8081);
	rep = resolve(&r, "http://dns.test/", NULL, NULL);
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 503);
	assert_true(strncmp(json_string_value(json_object_get(rep, "reason")),
			    "network backend http://backend.invalid:8080: the host name "
			    "backend.invalid did not resolve: ", 84) == 0);
	json_decref(rep);
	assert_int_equal(root_rule(&r, "dns.test")->pool->n_endpoints, 0);
	assert_int_equal(vhost_mode(&r, "dns.test"), SY_MODE_SPLICE);
	st = get_status(&r, "dns");
	assert_true(json_is_true(json_object_get(st, "valid")));
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(st, "backendErrors"), 0), "field")),
			    "spec.backends[0].address");
	assert_true(strncmp(json_string_value(json_object_get(
				    json_array_get(json_object_get(st, "backendErrors"), 0), "message")),
			    "http://backend.invalid:8080: the host name backend.invalid did not "
			    "resolve: ", 75) == 0);
	json_decref(st);
	st = get_status(&r, "named");
	assert_null(json_object_get(st, "backendErrors"));
	json_decref(st);
	/* An lb keeps the URLs that resolve; the status names the one that did not. */
	p = root_rule(&r, "mixed.test")->pool;
	assert_int_equal(p->n_endpoints, 1);
	assert_endpoint(&p->endpoints[0], "198.18.1.10", 80);
	assert_false(p->needs_proxy);
	assert_false(p->backend_tls);
	st = get_status(&r, "mixed");
	assert_true(json_is_true(json_object_get(st, "valid")));
	assert_int_equal(json_array_size(json_object_get(st, "backendErrors")), 1);
	json_decref(st);
	/* A name with three addresses: three endpoints, which share their
	 * URL's part (the address URL weighs as much as the three together). */
	assert_int_equal(vhost_mode(&r, "split.test"), SY_MODE_SPLICE);
	p = root_rule(&r, "split.test")->pool;
	assert_int_equal(p->n_endpoints, 4);
	assert_endpoint(&p->endpoints[0], "198.18.1.10", 80);
	assert_endpoint(&p->endpoints[1], "198.18.1.30", 8080);
	assert_endpoint(&p->endpoints[2], "198.18.1.31", 8080);
	assert_endpoint(&p->endpoints[3], "198.18.1.32", 8080);
	assert_int_equal(p->endpoints[1].weight, p->endpoints[3].weight);
	assert_true(p->endpoints[0].weight >= 3 * p->endpoints[1].weight - 3 &&
		    p->endpoints[0].weight <= 3 * p->endpoints[1].weight + 3);

	/* A change of address reaches the pool (an incremental compile). */
	ops_apply_ok(&r, LB_RG("net", "net.test",
			       "{\"name\":\"web\",\"type\":\"network\",\"address\":\"http://198.18.1.15:81\"}"));
	assert_endpoint(&root_rule(&r, "net.test")->pool->endpoints[0], "198.18.1.15", 81);
	rep = call(&r, "{\"op\":\"status\"}");
	assert_true(json_is_true(json_object_get(json_object_get(rep, "last_compile"), "incremental")));
	json_decref(rep);
	router_stop(&r);
	unsetenv("SY_COMPILE_VERIFY");
}

int
main(void)
{
	int rc;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_eskip_parser),
		cmocka_unit_test_setup_teardown(test_validation_messages, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_whole_group_rejected, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_traffic_split, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_priority, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_predicates, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_filters_and_actions, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_status, fresh_state, remove_state),
		cmocka_unit_test(test_backend_url_parse),
		cmocka_unit_test(test_backend_url_addresses),
		cmocka_unit_test(test_backend_url_cache),
		cmocka_unit_test_setup_teardown(test_url_backends, fresh_state, remove_state),
	};

	if (sy_test_eal_init("test_skipper") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
