/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routerctl's pure parts: YAML -> JSON (and back), apply input flattening,
 * AGE, the Route/Service/Endpoints cells, and table alignment. No socket.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "age.h"
#include "describe.h"
#include "input.h"
#include "print.h"
#include "table.h"
#include "yaml_emit.h"
#include "yaml_json.h"

static json_t *
yaml(const char *text)
{
	char err[512];
	json_t *docs = rctl_yaml_parse("t.yaml", text, strlen(text), err, sizeof(err));

	if (docs == NULL)
		fail_msg("unexpected YAML error: %s", err);
	return docs;
}

static void
assert_json(const json_t *got, const char *want_text)
{
	json_error_t jerr;
	json_t *want = json_loads(want_text, JSON_DECODE_ANY, &jerr);
	char *g;

	assert_non_null(want);
	if (!json_equal((json_t *)got, want)) {
		g = json_dumps(got, JSON_COMPACT | JSON_ENCODE_ANY);
		fail_msg("got %s, want %s", g, want_text);
	}
	json_decref(want);
}

static void
yaml_error(const char *text, const char *want)
{
	char err[512];
	json_t *docs = rctl_yaml_parse("t.yaml", text, strlen(text), err, sizeof(err));

	assert_null(docs);
	if (strstr(err, want) == NULL)
		fail_msg("error \"%s\" does not contain \"%s\"", err, want);
}

static void
test_multi_document(void **state)
{
	json_t *docs = yaml("kind: Route\n"
			    "metadata: {name: a}\n"
			    "---\n"
			    "kind: Service\n"
			    "metadata:\n"
			    "  name: b\n"
			    "---\n"
			    "...\n"
			    "---\n"
			    "- 1\n");

	(void)state;
	assert_json(docs, "[{\"kind\":\"Route\",\"metadata\":{\"name\":\"a\"}},"
			  "{\"kind\":\"Service\",\"metadata\":{\"name\":\"b\"}},"
			  "null, [1]]");
	json_decref(docs);

	/* A stream with no documents at all, and a leading "---". */
	docs = yaml("# only a comment\n");
	assert_json(docs, "[]");
	json_decref(docs);
	docs = yaml("---\na: 1\n");
	assert_json(docs, "[{\"a\":1}]");
	json_decref(docs);
}

static void
test_scalar_types(void **state)
{
	json_t *docs = yaml("t: true\nT: True\nf: FALSE\n"
			    "n1: null\nn2: ~\nn3:\n"
			    "i: 80\nneg: -3\nplus: +7\nhex: 0x1F\noct: 0o17\nlead: 0123\n"
			    "r: 1.5\ne: 1e3\nd: .5\nver: 1.10\n"
			    "s: hello world\nyes: yes\ninf: .inf\nnan: .nan\n"
			    "ip: 198.18.9.1\ntime: 08:30\ndash: -x\nhexish: 0xZZ\n"
			    "big: 99999999999999999999\n");

	(void)state;
	assert_json(json_array_get(docs, 0),
		    "{\"t\":true,\"T\":true,\"f\":false,"
		    "\"n1\":null,\"n2\":null,\"n3\":null,"
		    "\"i\":80,\"neg\":-3,\"plus\":7,\"hex\":31,\"oct\":15,\"lead\":123,"
		    "\"r\":1.5,\"e\":1000.0,\"d\":0.5,\"ver\":1.1,"
		    "\"s\":\"hello world\",\"yes\":\"yes\",\"inf\":\".inf\",\"nan\":\".nan\","
		    "\"ip\":\"198.18.9.1\",\"time\":\"08:30\",\"dash\":\"-x\",\"hexish\":\"0xZZ\","
		    "\"big\":1e20}");
	assert_true(json_is_integer(json_object_get(json_array_get(docs, 0), "i")));
	assert_true(json_is_real(json_object_get(json_array_get(docs, 0), "e")));
	json_decref(docs);
}

static void
test_quoted_vs_plain(void **state)
{
	json_t *docs = yaml("a: '80'\nb: \"true\"\nc: ''\nd: \"null\"\ne: !!str 1.5\n"
			    "f: ! 12\ng: !!int \"42\"\nh: |\n  line1\n  line2\n"
			    "i: >-\n  folded\n  text\n\"80\": quoted key\n90: plain key\n");

	(void)state;
	assert_json(json_array_get(docs, 0),
		    "{\"a\":\"80\",\"b\":\"true\",\"c\":\"\",\"d\":\"null\",\"e\":\"1.5\","
		    "\"f\":\"12\",\"g\":42,\"h\":\"line1\\nline2\\n\",\"i\":\"folded text\","
		    "\"80\":\"quoted key\",\"90\":\"plain key\"}");
	json_decref(docs);
}

static void
test_nested(void **state)
{
	json_t *docs = yaml("apiVersion: route.openshift.io/v1\n"
			    "kind: Route\n"
			    "spec:\n"
			    "  to: {kind: Service, name: web, weight: 80}\n"
			    "  alternateBackends:\n"
			    "  - kind: Service\n"
			    "    name: canary\n"
			    "    weight: 20\n"
			    "  tls:\n"
			    "    termination: edge\n"
			    "  list: [1, [2, 3], {x: [], y: {}}]\n");

	(void)state;
	assert_json(json_array_get(docs, 0),
		    "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
		    "\"spec\":{\"to\":{\"kind\":\"Service\",\"name\":\"web\",\"weight\":80},"
		    "\"alternateBackends\":[{\"kind\":\"Service\",\"name\":\"canary\",\"weight\":20}],"
		    "\"tls\":{\"termination\":\"edge\"},"
		    "\"list\":[1,[2,3],{\"x\":[],\"y\":{}}]}}");
	json_decref(docs);
}

static void
test_errors(void **state)
{
	(void)state;
	/* Positions are 1-based line:column of where libyaml noticed. */
	yaml_error("a: 1\nb: c: d\n", "t.yaml:2:5: mapping values are not allowed");
	yaml_error("a: [1, 2\nb: 3\n", "t.yaml:2:2: did not find expected ',' or ']' "
				       "(while parsing a flow sequence at line 1 column 4)");
	yaml_error("a:\n  - 1\n - 2\n", "t.yaml:3:2:");
	yaml_error("a: \"open\n", "t.yaml:2:1: found unexpected end of stream");
	yaml_error("a: &x 1\nb: *x\n", "t.yaml:2:4: aliases (*x) are not supported");
	yaml_error("a: 1\na: 2\n", "t.yaml:2:1: duplicate key \"a\"");
	yaml_error("? [a, b]\n: 1\n", "t.yaml:1:3: mapping keys must be scalars");
	yaml_error("a: !!int abc\n", "t.yaml:1:4: \"abc\" is not a valid !!int");
	yaml_error("a: !custom 1\n", "unsupported tag !custom");
	yaml_error("a: \xff\n", "t.yaml:1:4: invalid leading UTF-8 octet");
}

static json_t *
objects(const char *text, char *err, size_t errlen)
{
	return rctl_parse_objects("in", text, strlen(text), err, errlen);
}

static void
test_apply_input(void **state)
{
	char err[512];
	json_t *v;

	(void)state;
	/* JSON: an array, a List, and values one after another. */
	v = objects("[{\"kind\":\"A\"},{\"kind\":\"List\",\"items\":[{\"kind\":\"B\"}]}]\n"
		    "{\"kind\":\"C\"}",
		    err, sizeof(err));
	assert_non_null(v);
	assert_json(v, "[{\"kind\":\"A\"},{\"kind\":\"B\"},{\"kind\":\"C\"}]");
	json_decref(v);

	/* YAML with a List, an empty document and flow style starting with '{'. */
	v = objects("{kind: A}\n---\nkind: List\nitems:\n- kind: B\n---\n", err, sizeof(err));
	assert_non_null(v);
	assert_json(v, "[{\"kind\":\"A\"},{\"kind\":\"B\"}]");
	json_decref(v);

	/* A JSON mistake is reported as JSON, with its position in the file. */
	v = objects("\n\n{\"kind\": \"A\",\n \"b\": [1, 2}\n", err, sizeof(err));
	assert_null(v);
	assert_string_equal(err, "in:4:12: ']' expected near '}'");

	v = objects("kind: A\n---\n- 1\n", err, sizeof(err));
	assert_null(v);
	assert_string_equal(err, "in: document 2 is a number, not an object");

	v = objects("{\"kind\":\"A\",\"kind\":\"B\"}", err, sizeof(err));
	assert_null(v);
	assert_non_null(strstr(err, "duplicate"));
}

/* Emitting and reading back gives the same value, including strings that
 * look like other types. */
static void
test_emit_roundtrip(void **state)
{
	const char *src = "{\"s\":\"80\",\"t\":\"true\",\"n\":\"null\",\"e\":\"\",\"r\":\"1.5\","
			  "\"i\":80,\"f\":0.1,\"g\":1e300,\"w\":2.0,\"b\":false,\"z\":null,"
			  "\"colon\":\"a: b\",\"hash\":\"# no\",\"lead\":\" sp\",\"multi\":\"l1\\nl2\\n\","
			  "\"tail\":\"x\\n\\n\",\"utf\":\"caf\\u00e9\",\"tilde\":\"~\",\"dash\":\"- x\","
			  "\"list\":[{\"a\":[]},{}],\"true\":1}";
	json_t *v = json_loads(src, 0, NULL), *back;
	char err[256], *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	assert_non_null(v);
	f = open_memstream(&text, &len);
	assert_int_equal(rctl_yaml_emit(f, v, err, sizeof(err)), 0);
	fclose(f);
	back = rctl_yaml_parse("emitted", text, len, err, sizeof(err));
	if (back == NULL)
		fail_msg("%s in:\n%s", err, text);
	if (!json_equal(json_array_get(back, 0), v))
		fail_msg("round trip changed the value:\n%s", text);
	assert_non_null(strstr(text, "s: '80'\n"));
	assert_non_null(strstr(text, "i: 80\n"));
	json_decref(back);
	json_decref(v);
	free(text);
}

static void
age_is(long long secs, const char *want)
{
	char buf[32];

	rctl_format_duration(secs, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void
test_age(void **state)
{
	char buf[32];
	time_t t, now;

	(void)state;
	age_is(-5, "<invalid>");
	age_is(-1, "0s");
	age_is(0, "0s");
	age_is(45, "45s");
	age_is(119, "119s");
	age_is(120, "2m");
	age_is(330, "5m30s");
	age_is(12 * 60 + 59, "12m");
	age_is(179 * 60, "179m");
	age_is(3 * 3600, "3h");
	age_is(3 * 3600 + 20 * 60, "3h20m");
	age_is(10 * 3600, "10h");
	age_is(47 * 3600, "47h");
	age_is(2 * 86400, "2d");
	age_is(2 * 86400 + 5 * 3600, "2d5h");
	age_is(30 * 86400, "30d");
	age_is(3LL * 365 * 86400, "3y");
	age_is(3LL * 365 * 86400 + 10 * 86400, "3y10d");
	age_is(9LL * 365 * 86400 + 10 * 86400, "9y");

	assert_int_equal(rctl_parse_rfc3339("2024-05-01T12:00:00Z", &t), 0);
	assert_int_equal((long long)t, 1714564800LL);
	assert_int_equal(rctl_parse_rfc3339("2024-05-01T14:00:00.123+02:00", &t), 0);
	assert_int_equal((long long)t, 1714564800LL);
	assert_int_equal(rctl_parse_rfc3339("2024-05-01 12:00:00Z", &t), -1);
	assert_int_equal(rctl_parse_rfc3339("2024-05-01T12:00:00", &t), -1);

	now = 1714564800 + 3 * 3600 + 59;
	rctl_format_age("2024-05-01T12:00:00Z", now, buf, sizeof(buf));
	assert_string_equal(buf, "3h");
	rctl_format_age(NULL, now, buf, sizeof(buf));
	assert_string_equal(buf, "<unknown>");
	rctl_format_age("yesterday", now, buf, sizeof(buf));
	assert_string_equal(buf, "<unknown>");
}

static void
services_are(const char *route_json, const char *want)
{
	json_t *r = json_loads(route_json, 0, NULL);
	char *s;

	assert_non_null(r);
	s = rctl_route_services(r);
	assert_non_null(s);
	assert_string_equal(s, want);
	free(s);
	json_decref(r);
}

static void
test_route_services(void **state)
{
	(void)state;
	services_are("{\"spec\":{\"to\":{\"name\":\"web\",\"weight\":100}}}", "web");
	services_are("{\"spec\":{\"to\":{\"name\":\"web\"}}}", "web");
	services_are("{\"spec\":{\"to\":{\"name\":\"a\",\"weight\":80},"
		     "\"alternateBackends\":[{\"name\":\"b\",\"weight\":20}]}}",
		     "a(80%),b(20%)");
	services_are("{\"spec\":{\"to\":{\"name\":\"a\",\"weight\":1},"
		     "\"alternateBackends\":[{\"name\":\"b\",\"weight\":1},{\"name\":\"c\",\"weight\":1}]}}",
		     "a(33%),b(33%),c(33%)");
	services_are("{\"spec\":{\"to\":{\"name\":\"a\",\"weight\":3},"
		     "\"alternateBackends\":[{\"name\":\"b\",\"weight\":1}]}}",
		     "a(75%),b(25%)");
	/* All weights zero: oc prints 0% rather than dividing by zero. */
	services_are("{\"spec\":{\"to\":{\"name\":\"a\",\"weight\":0},"
		     "\"alternateBackends\":[{\"name\":\"b\",\"weight\":0}]}}",
		     "a(0%),b(0%)");
}

static char *
cell(char *(*fn)(const json_t *), const char *obj_json)
{
	json_t *o = json_loads(obj_json, 0, NULL);
	char *s;

	assert_non_null(o);
	s = fn(o);
	json_decref(o);
	assert_non_null(s);
	return s;
}

static void
cell_is(char *(*fn)(const json_t *), const char *obj_json, const char *want)
{
	char *s = cell(fn, obj_json);

	assert_string_equal(s, want);
	free(s);
}

static void
test_cells(void **state)
{
	(void)state;
	cell_is(rctl_route_host, "{\"spec\":{\"host\":\"a.example.com\"}}", "a.example.com");
	cell_is(rctl_route_host,
		"{\"spec\":{},\"status\":{\"ingress\":[{\"host\":\"web-default.apps.example.com\","
		"\"conditions\":[{\"type\":\"Admitted\",\"status\":\"True\"}]}]}}",
		"web-default.apps.example.com");
	cell_is(rctl_route_host,
		"{\"spec\":{\"host\":\"a.example.com\"},\"status\":{\"ingress\":[{\"host\":"
		"\"a.example.com\",\"conditions\":[{\"type\":\"Admitted\",\"status\":\"False\","
		"\"reason\":\"HostAlreadyClaimed\"}]}]}}",
		"HostAlreadyClaimed");
	cell_is(rctl_route_port, "{\"spec\":{}}", "<all>");
	cell_is(rctl_route_port, "{\"spec\":{\"port\":{\"targetPort\":8080}}}", "8080");
	cell_is(rctl_route_port, "{\"spec\":{\"port\":{\"targetPort\":\"http\"}}}", "http");
	cell_is(rctl_route_termination,
		"{\"spec\":{\"tls\":{\"termination\":\"edge\","
		"\"insecureEdgeTerminationPolicy\":\"Redirect\"}}}",
		"edge/Redirect");
	cell_is(rctl_route_termination, "{\"spec\":{\"tls\":{\"termination\":\"passthrough\"}}}",
		"passthrough");
	cell_is(rctl_route_termination, "{\"spec\":{}}", "");

	cell_is(rctl_service_ports,
		"{\"spec\":{\"ports\":[{\"port\":80},{\"port\":443,\"protocol\":\"TCP\"},"
		"{\"port\":53,\"protocol\":\"UDP\",\"nodePort\":30053}]}}",
		"80/TCP,443/TCP,53:30053/UDP");
	cell_is(rctl_service_ports, "{\"spec\":{}}", "<none>");

	cell_is(rctl_endpoints_list, "{\"subsets\":[]}", "<none>");
	cell_is(rctl_endpoints_list,
		"{\"subsets\":[{\"addresses\":[{\"ip\":\"198.18.9.1\"},{\"ip\":\"198.18.9.2\"}],"
		"\"ports\":[{\"port\":80}]}]}",
		"198.18.9.1:80,198.18.9.2:80");
	cell_is(rctl_endpoints_list,
		"{\"subsets\":[{\"addresses\":[{\"ip\":\"198.18.9.1\"},{\"ip\":\"198.18.9.2\"},"
		"{\"ip\":\"198.18.9.3\"},{\"ip\":\"198.18.9.4\"},{\"ip\":\"2001:db8::5\"}],"
		"\"ports\":[{\"port\":80}]}]}",
		"198.18.9.1:80,198.18.9.2:80,198.18.9.3:80 + 2 more...");
	cell_is(rctl_endpoints_list,
		"{\"subsets\":[{\"addresses\":[{\"ip\":\"2001:db8::5\"}],\"ports\":[{\"port\":8443}]},"
		"{\"addresses\":[{\"ip\":\"198.18.9.9\"}]}]}",
		"[2001:db8::5]:8443,198.18.9.9");
}

static char *
table_text(const struct rctl_table *t)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	assert_int_equal(rctl_table_print(t, f), 0);
	fclose(f);
	return text;
}

static void
test_table(void **state)
{
	static const char *const h[] = { "NAME", "HOST/PORT", "AGE" };
	static const char *const r1[] = { "web", "a.example.com", "5m" };
	static const char *const r2[] = { "longer-name", "", "10d" };
	static const char *const r3[] = { "caf\xc3\xa9", "b", NULL };
	struct rctl_table *t = rctl_table_new(3, h);
	char *text;

	(void)state;
	assert_non_null(t);
	assert_int_equal(rctl_table_add_row(t, r1), 0);
	assert_int_equal(rctl_table_add_row(t, r2), 0);
	assert_int_equal(rctl_table_add_row(t, r3), 0);
	assert_int_equal(rctl_table_rows(t), 3);
	text = table_text(t);
	/* Two spaces after the widest cell; é counts as one column; no
	 * trailing blanks after the last column. */
	assert_string_equal(text, "NAME         HOST/PORT      AGE\n"
				  "web          a.example.com  5m\n"
				  "longer-name                 10d\n"
				  "caf\xc3\xa9         b              \n");
	free(text);
	rctl_table_free(t);
}

static void
test_get_table(void **state)
{
	const char *items_json =
		"[{\"metadata\":{\"name\":\"web\",\"namespace\":\"default\","
		"\"creationTimestamp\":\"2024-05-01T12:00:00Z\"},"
		"\"spec\":{\"host\":\"a.example.com\",\"path\":\"/\",\"to\":{\"name\":\"web\","
		"\"weight\":80},\"alternateBackends\":[{\"name\":\"canary\",\"weight\":20}],"
		"\"tls\":{\"termination\":\"edge\",\"insecureEdgeTerminationPolicy\":\"Redirect\"}}},"
		"{\"metadata\":{\"name\":\"api\",\"namespace\":\"team-b\"},"
		"\"spec\":{\"host\":\"api.example.com\",\"to\":{\"name\":\"api\",\"weight\":100},"
		"\"port\":{\"targetPort\":8080},\"wildcardPolicy\":\"Subdomain\"}}]";
	struct rctl_get_opts o = { .with_namespace = 1, .now = 1714564800 + 45 };
	json_t *items = json_loads(items_json, 0, NULL);
	struct rctl_table *t;
	char *text;

	(void)state;
	assert_non_null(items);
	t = rctl_get_table("Route", items, &o);
	text = table_text(t);
	assert_string_equal(
		text,
		"NAMESPACE  NAME  HOST/PORT        PATH  SERVICES              PORT   TERMINATION    WILDCARD\n"
		"default    web   a.example.com    /     web(80%),canary(20%)  <all>  edge/Redirect  None\n"
		"team-b     api   api.example.com        api                   8080                  Subdomain\n");
	free(text);
	rctl_table_free(t);

	/* An unknown kind gets NAME AGE; no NAMESPACE with -n. */
	o.with_namespace = 0;
	t = rctl_get_table("Widget", items, &o);
	text = table_text(t);
	assert_string_equal(text, "NAME  AGE\n"
				  "web   45s\n"
				  "api   <unknown>\n");
	free(text);
	rctl_table_free(t);

	/* No items: the header alone. */
	json_array_clear(items);
	t = rctl_get_table("Service", items, &o);
	text = table_text(t);
	assert_string_equal(text, "NAME  TYPE  CLUSTER-IP  PORT(S)  AGE\n");
	free(text);
	rctl_table_free(t);
	json_decref(items);
}

static char *
get_text(const char *kind, const char *items_json, int with_ns, int wide)
{
	struct rctl_get_opts o = { .with_namespace = with_ns, .wide = wide,
				   .now = 1714564800 + 45 };
	json_t *items = json_loads(items_json, 0, NULL);
	struct rctl_table *t;
	char *text;

	assert_non_null(items);
	t = rctl_get_table(kind, items, &o);
	assert_non_null(t);
	text = table_text(t);
	rctl_table_free(t);
	json_decref(items);
	return text;
}

static void
test_get_new_kinds(void **state)
{
	char *text;

	(void)state;
	/* Contour IngressRoute: the CRD's printer columns. */
	text = get_text("IngressRoute",
			"[{\"apiVersion\":\"contour.heptio.com/v1beta1\",\"kind\":\"IngressRoute\","
			"\"metadata\":{\"name\":\"site\",\"namespace\":\"web\"},"
			"\"spec\":{\"virtualhost\":{\"fqdn\":\"site.example.com\",\"tls\":"
			"{\"secretName\":\"cert\"}},\"routes\":[{\"match\":\"/api\"},{\"match\":\"/\"}]},"
			"\"status\":{\"currentStatus\":\"valid\",\"description\":\"valid IngressRoute\"}},"
			"{\"metadata\":{\"name\":\"child\",\"namespace\":\"web\"},"
			"\"spec\":{\"routes\":[{\"match\":\"/x\"}]},\"status\":{\"currentStatus\":"
			"\"orphaned\",\"description\":\"this IngressRoute is not part of a delegation "
			"chain from a root IngressRoute\"}}]",
			1, 0);
	assert_string_equal(
		text,
		"NAMESPACE  NAME   FQDN              TLS SECRET  FIRST ROUTE  STATUS    STATUS DESCRIPTION\n"
		"web        site   site.example.com  cert        /api         valid     valid IngressRoute\n"
		"web        child                                /x           orphaned  this IngressRoute is "
		"not part of a delegation chain from a root IngressRoute\n");
	free(text);

	/* Contour v1alpha1 Route: known by its apiVersion, or by the explicit name. */
	text = get_text("Route",
			"[{\"apiVersion\":\"contour.heptio.com/v1alpha1\",\"kind\":\"Route\","
			"\"metadata\":{\"name\":\"draft\"},\"spec\":{\"host\":\"d.example.com\"},"
			"\"status\":{\"currentStatus\":\"Valid\"}}]",
			0, 0);
	assert_string_equal(text, "NAME   HOST           STATUS\n"
				  "draft  d.example.com  Valid\n");
	free(text);
	text = get_text("Route.contour.heptio.com", "[]", 0, 0);
	assert_string_equal(text, "NAME  HOST  STATUS\n");
	free(text);

	/* Skipper RouteGroup: hosts joined, status.valid, the number of errors. */
	text = get_text("RouteGroup",
			"[{\"metadata\":{\"name\":\"app\",\"creationTimestamp\":\"2024-05-01T12:00:00Z\"},"
			"\"spec\":{\"hosts\":[\"a.example.org\",\"b.example.org\"]},"
			"\"status\":{\"valid\":true}},"
			"{\"metadata\":{\"name\":\"bad\"},\"spec\":{},"
			"\"status\":{\"valid\":false,\"errors\":[\"missing backend reference\",\"x\"]}}]",
			0, 0);
	assert_string_equal(text, "NAME  HOSTS                        VALID  ERRORS  AGE\n"
				  "app   a.example.org,b.example.org  true   0       45s\n"
				  "bad                                false  2       <unknown>\n");
	free(text);

	/* Secret: TYPE (Opaque by default) and the number of data keys. */
	text = get_text("Secret",
			"[{\"metadata\":{\"name\":\"cert\",\"creationTimestamp\":\"2024-05-01T12:00:00Z\"},"
			"\"type\":\"kubernetes.io/tls\",\"data\":{\"tls.crt\":\"QQ==\",\"tls.key\":\"QQ==\"}},"
			"{\"metadata\":{\"name\":\"plain\"},\"stringData\":{\"a\":\"b\"}}]",
			0, 0);
	assert_string_equal(text, "NAME   TYPE               DATA  AGE\n"
				  "cert   kubernetes.io/tls  2     45s\n"
				  "plain  Opaque             1     <unknown>\n");
	free(text);

	/* Namespace: never a NAMESPACE column; LABELS. */
	text = get_text("Namespace",
			"[{\"metadata\":{\"name\":\"pub\",\"labels\":{\"router\":\"public\",\"env\":"
			"\"prod\"},\"creationTimestamp\":\"2024-05-01T12:00:00Z\"}},"
			"{\"metadata\":{\"name\":\"bare\"}}]",
			1, 0);
	assert_string_equal(text, "NAME  LABELS                  AGE\n"
				  "pub   router=public,env=prod  45s\n"
				  "bare  <none>                  <unknown>\n");
	free(text);
}

static char *
describe_text(const char *obj_json, const char *eps_json)
{
	json_t *obj = json_loads(obj_json, 0, NULL);
	json_t *eps = eps_json ? json_loads(eps_json, 0, NULL) : NULL;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(obj);
	assert_non_null(f);
	assert_int_equal(rctl_describe(f, obj, eps, 1714564800 + 300), 0);
	fclose(f);
	json_decref(obj);
	json_decref(eps);
	return buf;
}

static void
test_describe(void **state)
{
	char *text;

	(void)state;
	text = describe_text(
		"{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
		"\"metadata\":{\"name\":\"web\",\"namespace\":\"demo\",\"labels\":{\"app\":\"web\"},"
		"\"creationTimestamp\":\"2024-05-01T12:00:00Z\"},"
		"\"spec\":{\"host\":\"web.example.com\",\"path\":\"/b\",\"to\":{\"kind\":\"Service\","
		"\"name\":\"a\",\"weight\":60},\"alternateBackends\":[{\"kind\":\"Service\",\"name\":\"b\","
		"\"weight\":40}],\"tls\":{\"termination\":\"edge\",\"insecureEdgeTerminationPolicy\":"
		"\"Redirect\"}},"
		"\"status\":{\"ingress\":[{\"host\":\"web.example.com\",\"routerName\":\"default\","
		"\"conditions\":[{\"type\":\"Admitted\",\"status\":\"True\",\"lastTransitionTime\":"
		"\"2024-05-01T12:03:00Z\"}]},{\"host\":\"web.example.com\",\"routerName\":\"shard-b\","
		"\"conditions\":[{\"type\":\"Admitted\",\"status\":\"False\",\"reason\":"
		"\"HostAlreadyClaimed\",\"message\":\"a route in another namespace holds host "
		"web.example.com\",\"lastTransitionTime\":\"2024-05-01T12:00:00Z\"}]}]}}",
		"{\"a\":{\"subsets\":[{\"addresses\":[{\"ip\":\"198.18.9.1\"},{\"ip\":\"198.18.9.2\"},"
		"{\"ip\":\"198.18.9.3\"},{\"ip\":\"198.18.9.4\"}],\"ports\":[{\"port\":80}]}]}}");
	assert_string_equal(text,
			    "Name:\t\t\tweb\n"
			    "Namespace:\t\tdemo\n"
			    "Created:\t\t5m ago\n"
			    "Labels:\t\t\tapp=web\n"
			    "Annotations:\t\t<none>\n"
			    "Requested Host:\t\tweb.example.com\n"
			    "\t\t\t  exposed on router default (host web.example.com) 2m ago\n"
			    "\t\t\t  rejected by router shard-b: HostAlreadyClaimed (5m ago)\n"
			    "\t\t\t    a route in another namespace holds host web.example.com\n"
			    "Path:\t\t\t/b\n"
			    "\nTLS Termination:\tedge\n"
			    "Insecure Policy:\tRedirect\n"
			    "Endpoint Port:\t\t<all endpoint ports>\n"
			    "\nService:\ta\n"
			    "Weight:\t\t60 (60%)\n"
			    "Endpoints:\t198.18.9.1:80,198.18.9.2:80,198.18.9.3:80 + 1 more...\n"
			    "\nService:\tb\n"
			    "Weight:\t\t40 (40%)\n"
			    "Endpoints:\t<none>\n");
	free(text);

	/* Any other kind: metadata, then spec and status as indented YAML. */
	text = describe_text(
		"{\"apiVersion\":\"zalando.org/v1\",\"kind\":\"RouteGroup\","
		"\"metadata\":{\"name\":\"app\",\"namespace\":\"sk\"},"
		"\"spec\":{\"hosts\":[\"a.example.org\"]},\"status\":{\"valid\":true}}",
		NULL);
	assert_non_null(strstr(text, "Name:\t\t\tapp\nNamespace:\t\tsk\n"));
	assert_non_null(strstr(text, "Kind:\t\t\tRouteGroup\n"));
	assert_non_null(strstr(text, "Spec:\n  hosts:\n  - a.example.org\n"));
	assert_non_null(strstr(text, "Status:\n  valid: true\n"));
	free(text);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_multi_document), cmocka_unit_test(test_scalar_types),
		cmocka_unit_test(test_quoted_vs_plain), cmocka_unit_test(test_nested),
		cmocka_unit_test(test_errors),	       cmocka_unit_test(test_apply_input),
		cmocka_unit_test(test_emit_roundtrip), cmocka_unit_test(test_age),
		cmocka_unit_test(test_route_services), cmocka_unit_test(test_cells),
		cmocka_unit_test(test_table),	       cmocka_unit_test(test_get_table),
		cmocka_unit_test(test_get_new_kinds),  cmocka_unit_test(test_describe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
