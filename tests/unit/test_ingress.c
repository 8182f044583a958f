/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kubernetes Ingress v1 and IngressClass (control/kinds/ingress.c,
 * ingress_class.c) through the control ops: validation messages (object,
 * field, value), class selection, the compiled rules (Exact / Prefix with
 * the trailing slash dropped, precedence), defaultBackend, ports by name,
 * TLS with a Secret and the ssl-redirect annotation, the status's addresses,
 * and claims against other kinds.
 *
 * Requests are written with ' for " (see call()) to keep them readable.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "gen/compile.h"
#include "router.h"
#include "test_eal.h"
#include "test_router.h"

/* The self-signed certificate of test_contour.c (secure.test, open.test...). */
static const char crt_b64[] =
	"LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCk1JSUJ4RENDQVdxZ0F3SUJBZ0lVUTdlQjh2TzFKMERQUXh1WVEwcVE1UlZCeklBd0NnWUlLb1pJemowRUF3SXcKRmpFVU1CSUdBMVVFQXd3TGMyVmpkWEpsTG5SbGMzUXdJQmNOTWpZeE1USTFNVEF5TVRVMVdoZ1BNakV5TmpFeApNREV4TURJeE5UVmFNQll4RkRBU0JnTlZCQU1NQzNObFkzVnlaUzUwWlhOME1Ga3dFd1lIS29aSXpqMENBUVlJCktvWkl6ajBEQVFjRFFnQUVkM1ViekZjRzdhM3dtanBVT2VHSzUrcGlIY3g4TjhadEd6R21yTmMrZUlPY3RXVkIKTG9pRjI4dDRkMVBLRW5BRWZzL2ZRaVZRRDlYalBIVEdBUTk0Q3FPQmt6Q0JrREFkQmdOVkhRNEVGZ1FVaHNTVgp2V0czUTAyeS91SEdLU0w4cjlNMzJQTXdId1lEVlIwakJCZ3dGb0FVaHNTVnZXRzNRMDJ5L3VIR0tTTDhyOU0zCjJQTXdEd1lEVlIwVEFRSC9CQVV3QXdFQi96QTlCZ05WSFJFRU5qQTBnZ3R6WldOMWNtVXVkR1Z6ZElJSmIzQmwKYmk1MFpYTjBnZ3AwYkhNeE15NTBaWE4wZ2c1dFlXeG1iM0p0WldRdWRHVnpkREFLQmdncWhrak9QUVFEQWdOSQpBREJGQWlFQTdFUnVaWU9Lakdrd3h5a1hCNXBpaWU5Mnd1QTIrL29ubXdlc3RLNWdGT1VDSUN4TGtiSUF4SG5LClQ5aGdtTDVTN2VmQ2VuR1NENG54NWtJNU9hb2tJVFRqCi0tLS0tRU5EIENFUlRJRklDQVRFLS0tLS0K";
static const char key_b64[] =
	"LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCk1JR0hBZ0VBTUJNR0J5cUdTTTQ5QWdFR0NDcUdTTTQ5QXdFSEJHMHdhd0lCQVFRZzljaFFQVUdPSktxM3lzcU8KRGZZM0d0T0FVWmhpTlRYdVZpMDVBRXMxUEl1aFJBTkNBQVIzZFJ2TVZ3YnRyZkNhT2xRNTRZcm42bUlkekh3Mwp4bTBiTWFhczF6NTRnNXkxWlVFdWlJWGJ5M2gzVThvU2NBUit6OTlDSlZBUDFlTThkTVlCRDNnSwotLS0tLUVORCBQUklWQVRFIEtFWS0tLS0tCg==";

/* One request; ' stands for " in the text. */
static json_t *
call(struct sy_router *r, const char *fmt, ...)
{
	char text[16384];
	json_error_t jerr;
	json_t *req, *reply;
	va_list ap;
	char *p;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	for (p = text; *p; p++)
		if (*p == '\'')
			*p = '"';
	req = json_loads(text, 0, &jerr);
	if (req == NULL)
		fail_msg("bad test request: %s: %s", jerr.text, text);
	reply = sy_ops_handle(r, req);
	json_decref(req);
	return reply;
}

#define APPLY(r, ...) apply_ok((r), "{'op':'apply','objects':[" __VA_ARGS__ "]}")

static void __attribute__((format(printf, 2, 3)))
apply_ok(struct sy_router *r, const char *fmt, ...)
{
	char text[16384];
	va_list ap;
	json_t *rep;

	va_start(ap, fmt);
	vsnprintf(text, sizeof(text), fmt, ap);
	va_end(ap);
	rep = call(r, "%s", text);
	if (!reply_ok(rep)) {
		char *d = json_dumps(rep, 0);

		fail_msg("apply failed: %s", d);
	}
	json_decref(rep);
}

#define SVC(ns, name)                                                                        \
	"{'apiVersion':'v1','kind':'Service','metadata':{'name':'" name "','namespace':'" ns \
	"'},'spec':{'ports':[{'name':'http','port':80,'targetPort':8080},"                   \
	"{'name':'admin','port':81,'targetPort':9090}]}}"
#define EPS(ns, name, ip)                                                                      \
	"{'apiVersion':'v1','kind':'Endpoints','metadata':{'name':'" name "','namespace':'" ns \
	"'},'subsets':[{'addresses':[{'ip':'" ip "'}],'ports':[{'name':'http','port':8080},"   \
	"{'name':'admin','port':9090}]}]}"
#define CLASS(name, ctl, dflt)                                                                   \
	"{'apiVersion':'networking.k8s.io/v1','kind':'IngressClass','metadata':{'name':'" name "'" \
	dflt "},'spec':{'controller':'" ctl "'}}"
#define OURS "switchyard.io/ingress-controller"
#define DEFAULT ",'annotations':{'ingressclass.kubernetes.io/is-default-class':'true'}"
/* An Ingress; meta is extra metadata (",'annotations':{...}"), spec the whole spec. */
#define ING(ns, name, meta, spec)                                                             \
	"{'apiVersion':'networking.k8s.io/v1','kind':'Ingress','metadata':{'name':'" name     \
	"','namespace':'" ns "'" meta "},'spec':" spec "}"
#define PATH(type, path, svc) \
	"{'path':'" path "','pathType':'" type "','backend':{'service':{'name':'" svc "','port':{'number':80}}}}"
#define RULE(host, paths) "{'host':'" host "','http':{'paths':[" paths "]}}"
#define BACKEND(svc) "{'service':{'name':'" svc "','port':{'number':80}}}"

/* The first error of a refused apply: field and a part of the message. */
static void
expect_refused(struct sy_router *r, const char *objs, const char *object, const char *field,
	       const char *msg_part)
{
	json_t *rep = call(r, "{'op':'apply','objects':[%s]}", objs);
	const json_t *e = json_object_get(rep, "error");
	char *dump = json_dumps(rep, 0);

	if (reply_ok(rep) || !json_is_object(e))
		fail_msg("expected a refusal, got %s", dump);
	if (object && strcmp(json_string_value(json_object_get(e, "object")), object) != 0)
		fail_msg("expected object %s, got %s", object, dump);
	if (field && (!json_is_string(json_object_get(e, "field")) ||
		      strcmp(json_string_value(json_object_get(e, "field")), field) != 0))
		fail_msg("expected field %s, got %s", field, dump);
	if (msg_part && strstr(json_string_value(json_object_get(e, "message")), msg_part) == NULL)
		fail_msg("expected message with \"%s\", got %s", msg_part, dump);
	free(dump);
	json_decref(rep);
}

/* resolve url: the service of its first pool ("ns/name"), "(none)". */
static const char *
resolve_svc(struct sy_router *r, const char *url, char *buf, size_t len)
{
	json_t *rep = call(r, "{'op':'resolve','url':'%s'}", url);
	const json_t *s = json_array_get(json_object_get(rep, "services"), 0);

	if (s != NULL)
		snprintf(buf, len, "%s/%s", json_string_value(json_object_get(s, "namespace")),
			 json_string_value(json_object_get(s, "name")));
	else
		snprintf(buf, len, "(none)");
	json_decref(rep);
	return buf;
}

#define EXPECT_SVC(r, url, want)                                                \
	do {                                                                    \
		char b_[256];                                                   \
		assert_string_equal(resolve_svc((r), (url), b_, sizeof(b_)), (want)); \
	} while (0)

/* The Ingress's status (a new reference; NULL: none). */
static json_t *
ing_status(struct sy_router *r, const char *ns, const char *name)
{
	json_t *rep = call(r, "{'op':'get','kind':'ing','namespace':'%s','name':'%s'}", ns, name);
	json_t *st = json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status");

	assert_true(reply_ok(rep));
	st = json_object_size(st) ? json_incref(st) : NULL;
	json_decref(rep);
	return st;
}

/* The live generation's rule for host + path. */
static const struct sy_rule *
rule_for(struct sy_router *r, const char *host, const char *path)
{
	struct sy_generation *g = sy_gen_acquire(&r->slot);
	const struct sy_vhost *vh = sy_gen_find_vhost(g, host, strlen(host));

	return vh ? sy_vhost_match_path(vh, path, strlen(path)) : NULL;
}

/* ------------------------------------------------------------------------ */

static void
test_validation(void **state)
{
	struct sy_router r;

	(void)state;
	router_start(&r);
#define RP(p) "{'rules':[" RULE("bad.test", p) "]}"
	expect_refused(&r, ING("web", "bad", "", RP("{'path':'/','backend':" BACKEND("s") "}")),
		       "Ingress web/bad", "spec.rules[0].http.paths[0].pathType", "required");
	expect_refused(&r, ING("web", "bad", "", RP(PATH("Fuzzy", "/", "s"))), "Ingress web/bad",
		       "spec.rules[0].http.paths[0].pathType", "\"Fuzzy\": must be one of");
	expect_refused(&r, ING("web", "bad", "", RP(PATH("Prefix", "foo", "s"))), "Ingress web/bad",
		       "spec.rules[0].http.paths[0].path", "\"foo\": must be an absolute path");
	expect_refused(&r, ING("web", "bad", "", RP(PATH("Exact", "", "s"))), "Ingress web/bad",
		       "spec.rules[0].http.paths[0].path", "must be an absolute path");
	expect_refused(&r, ING("web", "bad", "", RP(PATH("Prefix", "/a//b", "s"))), "Ingress web/bad",
		       "spec.rules[0].http.paths[0].path", "must not contain '//'");
	/* ImplementationSpecific may be empty ("/") */
	APPLY(&r, ING("web", "ok", "", RP(PATH("ImplementationSpecific", "", "s"))));
	expect_refused(&r, ING("web", "bad", "", RP("{'path':'/','pathType':'Prefix','backend':{}}")),
		       "Ingress web/bad", "spec.rules[0].http.paths[0].backend",
		       "must have a service");
	expect_refused(&r,
		       ING("web", "bad", "",
			   RP("{'path':'/','pathType':'Prefix','backend':{'service':{'name':'s',"
			      "'port':{'number':80,'name':'http'}}}}")),
		       "Ingress web/bad", "spec.rules[0].http.paths[0].backend.service.port",
		       "exactly one of number and name");
	expect_refused(&r,
		       ING("web", "bad", "",
			   RP("{'path':'/','pathType':'Prefix','backend':{'service':{'name':'s',"
			      "'port':{}}}}")),
		       "Ingress web/bad", "spec.rules[0].http.paths[0].backend.service.port",
		       "must have a number or a name");
	expect_refused(&r,
		       ING("web", "bad", "",
			   RP("{'path':'/','pathType':'Prefix','backend':{'service':{'name':'s',"
			      "'port':{'number':70000}}}}")),
		       "Ingress web/bad", "spec.rules[0].http.paths[0].backend.service.port.number",
		       "between 1 and 65535");
	expect_refused(&r,
		       ING("web", "bad", "",
			   RP("{'path':'/','pathType':'Prefix','backend':{'service':{'name':'s',"
			      "'port':{'name':'Not_A_Name'}}}}")),
		       "Ingress web/bad", "spec.rules[0].http.paths[0].backend.service.port.name",
		       "\"Not_A_Name\"");
	expect_refused(&r,
		       ING("web", "bad", "",
			   RP("{'path':'/','pathType':'Prefix','backend':{'resource':{'kind':'Bucket',"
			      "'name':'b'}}}")),
		       "Ingress web/bad", "spec.rules[0].http.paths[0].backend.resource",
		       "kind Bucket: resource backends are not served");
	expect_refused(&r,
		       ING("web", "bad", "",
			   RP("{'path':'/','pathType':'Prefix','backend':{'resource':{'kind':'B',"
			      "'name':'b'},'service':{'name':'s','port':{'number':80}}}}")),
		       "Ingress web/bad", "spec.rules[0].http.paths[0].backend", "not both");
	expect_refused(&r, ING("web", "bad", "", "{}"), "Ingress web/bad", "spec",
		       "either defaultBackend or rules");
	expect_refused(&r, ING("web", "bad", "", "{'rules':[" RULE("Upper.Test", PATH("Prefix", "/", "s")) "]}"),
		       "Ingress web/bad", "spec.rules[0].host", "\"Upper.Test\"");
	expect_refused(&r, ING("web", "bad", "", "{'rules':[" RULE("198.18.0.1", PATH("Prefix", "/", "s")) "]}"),
		       "Ingress web/bad", "spec.rules[0].host", "not an IP address");
	expect_refused(&r,
		       ING("web", "bad", ",'annotations':{'kubernetes.io/ingress.class':'a'}",
			   "{'ingressClassName':'b','defaultBackend':" BACKEND("s") "}"),
		       "Ingress web/bad", "metadata.annotations.kubernetes.io/ingress.class",
		       "can not be set when spec.ingressClassName is also set");
	expect_refused(&r, ING("web", "bad", "", "{'defaultBackend':" BACKEND("s") ",'tls':[{'hosts':['*'],'secretName':'x'}]}"),
		       "Ingress web/bad", "spec.tls[0].hosts[0]", "\"*\"");
	/* IngressClass: a domain-prefixed controller, required */
	expect_refused(&r, CLASS("c1", "nodomain", ""), "IngressClass c1", "spec.controller",
		       "\"nodomain\": must be a domain-prefixed path");
	expect_refused(&r, "{'apiVersion':'networking.k8s.io/v1','kind':'IngressClass','metadata':{'name':'c2'},'spec':{}}",
		       "IngressClass c2", "spec.controller", "required");
	expect_refused(&r, CLASS("c3", "Bad_Domain/x", ""), "IngressClass c3", "spec.controller",
		       "is not a lower-case DNS name");
	/* nothing of the refused applies was stored */
	{
		json_t *rep = call(&r, "{'op':'get','kind':'ingresses'}");

		assert_int_equal(json_array_size(json_object_get(rep, "items")), 1);
		json_decref(rep);
		rep = call(&r, "{'op':'get','kind':'ingressclass'}");
		assert_int_equal(json_array_size(json_object_get(rep, "items")), 0);
		json_decref(rep);
	}
#undef RP
	router_stop(&r);
}

static void
test_config_key(void **state)
{
	struct sy_config cfg;
	char err[256];

	(void)state;
	assert_int_equal(sy_config_parse("{}", &cfg, err, sizeof(err)), 0);
	assert_string_equal(cfg.ingress_controller, "switchyard.io/ingress-controller");
	sy_config_free(&cfg);
	assert_int_equal(sy_config_parse("{\"ingress_controller\":\"example.com/edge\"}", &cfg, err,
					 sizeof(err)), 0);
	assert_string_equal(cfg.ingress_controller, "example.com/edge");
	sy_config_free(&cfg);
	assert_int_not_equal(sy_config_parse("{\"ingress_controller\":\"edge\"}", &cfg, err,
					     sizeof(err)), 0);
	assert_non_null(strstr(err, "ingress_controller: \"edge\" is not a domain-prefixed path"));
	assert_int_not_equal(sy_config_parse("{\"ingress_controller\":\"Example.com/edge\"}", &cfg,
					     err, sizeof(err)), 0);
	assert_non_null(strstr(err, "\"Example.com\" is not a lower-case DNS name"));
	assert_int_not_equal(sy_config_parse("{\"ingress_controller\":7}", &cfg, err, sizeof(err)), 0);
}

static void
test_paths_and_precedence(void **state)
{
	struct sy_router r;
	const struct sy_rule *rule;

	(void)state;
	router_start(&r);
	APPLY(&r, CLASS("sy", OURS, "") "," SVC("web", "a") "," EPS("web", "a", "198.18.3.1") ","
		  SVC("web", "b") "," EPS("web", "b", "198.18.3.2") "," SVC("web", "c") ","
		  EPS("web", "c", "198.18.3.3") ","
		  ING("web", "site", "",
		      "{'ingressClassName':'sy','rules':[" RULE(
			      "p.test", PATH("Prefix", "/foo/", "a") "," PATH("Exact", "/foo", "b") ","
				      PATH("Prefix", "/foo/bar", "c") "," PATH("Exact", "/x/", "c")) "]}"));
	EXPECT_SVC(&r, "http://p.test/foo", "web/b");      /* Exact before Prefix at equal length */
	EXPECT_SVC(&r, "http://p.test/foo/", "web/a");     /* the Prefix "/foo/" is "/foo" */
	EXPECT_SVC(&r, "http://p.test/foo/baz", "web/a");
	EXPECT_SVC(&r, "http://p.test/foo/bar/1", "web/c"); /* the longest */
	EXPECT_SVC(&r, "http://p.test/foobar", "(none)");  /* element-wise */
	EXPECT_SVC(&r, "http://p.test/x/", "web/c");
	EXPECT_SVC(&r, "http://p.test/x", "(none)");       /* Exact keeps its slash */
	/* the compiled rule: the trailing slash dropped from the Prefix */
	rule = rule_for(&r, "p.test", "/foo/zzz");
	assert_non_null(rule);
	assert_int_equal(rule->match, SY_PATH_PREFIX);
	assert_int_equal(rule->path_len, 4);
	assert_memory_equal(rule->path, "/foo", 4);
	assert_string_equal(rule->kind, "Ingress");
	/* resolve names the kind and object */
	{
		char b[64];

		assert_string_equal(ops_resolve_object(&r, "http://p.test/foo", b, sizeof(b)), "web/site");
	}
	router_stop(&r);
}

static void
test_classes(void **state)
{
	struct sy_router r;
	json_t *st;
	char b[64];

	(void)state;
	router_start(&r);
	APPLY(&r, SVC("web", "a") "," EPS("web", "a", "198.18.3.1") ","
		  CLASS("sy", OURS, "") "," CLASS("nginx", "k8s.io/ingress-nginx", DEFAULT) ","
		  ING("web", "named", "", "{'ingressClassName':'sy','rules':[" RULE("named.test", PATH("Prefix", "/", "a")) "]}") ","
		  ING("web", "other", "", "{'ingressClassName':'nginx','rules':[" RULE("other.test", PATH("Prefix", "/", "a")) "]}") ","
		  ING("web", "none", "", "{'rules':[" RULE("none.test", PATH("Prefix", "/", "a")) "]}") ","
		  ING("web", "legacy", ",'annotations':{'kubernetes.io/ingress.class':'sy'}",
		      "{'rules':[" RULE("legacy.test", PATH("Prefix", "/", "a")) "]}"));
	assert_string_equal(ops_resolve_object(&r, "http://named.test/", b, sizeof(b)), "web/named");
	assert_string_equal(ops_resolve_object(&r, "http://legacy.test/", b, sizeof(b)), "web/legacy");
	assert_string_equal(ops_resolve_object(&r, "http://other.test/", b, sizeof(b)), "(none)");
	/* the default class is nginx's: an Ingress naming none is not ours */
	assert_string_equal(ops_resolve_object(&r, "http://none.test/", b, sizeof(b)), "(none)");
	assert_null(ing_status(&r, "web", "other"));
	assert_null(ing_status(&r, "web", "none"));
	st = ing_status(&r, "web", "named");
	assert_non_null(st);
	assert_true(json_is_array(json_object_get(json_object_get(st, "loadBalancer"), "ingress")));
	json_decref(st);
	/* ours becomes the default: the one naming none is served */
	APPLY(&r, CLASS("sy", OURS, DEFAULT));
	assert_string_equal(ops_resolve_object(&r, "http://none.test/", b, sizeof(b)), "web/none");
	st = ing_status(&r, "web", "none");
	assert_non_null(st);
	json_decref(st);
	/* our class moves to another controller: none of them is ours */
	APPLY(&r, CLASS("sy", "example.com/other", DEFAULT));
	assert_string_equal(ops_resolve_object(&r, "http://named.test/", b, sizeof(b)), "(none)");
	assert_string_equal(ops_resolve_object(&r, "http://none.test/", b, sizeof(b)), "(none)");
	assert_null(ing_status(&r, "web", "named"));
	router_stop(&r);
	/* ingress_controller says which controller is ours */
	router_start_with(&r, "{\"ingress_controller\": \"example.com/other\"}");
	assert_string_equal(ops_resolve_object(&r, "http://named.test/", b, sizeof(b)), "web/named");
	assert_string_equal(ops_resolve_object(&r, "http://none.test/", b, sizeof(b)), "web/none");
	router_stop(&r);
}

static void
test_default_backend_and_ports(void **state)
{
	struct sy_router r;
	json_t *rep;

	(void)state;
	router_start(&r);
	APPLY(&r, CLASS("sy", OURS, DEFAULT) "," SVC("web", "a") "," EPS("web", "a", "198.18.3.1") ","
		  SVC("web", "d") "," EPS("web", "d", "198.18.3.9") ","
		  ING("web", "site", "",
		      "{'defaultBackend':" BACKEND("d") ",'rules':[" RULE("h.test", PATH("Exact", "/api", "a")) ","
		      "{'host':'n.test','http':{'paths':[{'path':'/','pathType':'Prefix','backend':"
		      "{'service':{'name':'a','port':{'name':'admin'}}}}]}}]}"));
	EXPECT_SVC(&r, "http://h.test/api", "web/a");
	EXPECT_SVC(&r, "http://h.test/else", "web/d");
	EXPECT_SVC(&r, "http://unknown.test/x", "web/d"); /* the default vhost */
	/* by name: the Service port "admin" (81 -> 9090) */
	rep = call(&r, "{'op':'resolve','url':'http://n.test/'}");
	assert_int_equal(json_array_size(json_object_get(rep, "endpoints")), 1);
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(rep, "endpoints"), 0), "port")),
			 9090);
	json_decref(rep);
	/* by number: 80 -> 8080 */
	rep = call(&r, "{'op':'resolve','url':'http://h.test/api'}");
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(rep, "endpoints"), 0), "port")),
			 8080);
	json_decref(rep);
	router_stop(&r);
}

static void
test_tls(void **state)
{
	struct sy_router r;
	const struct sy_rule *rule;
	const struct sy_vhost *vh;

	(void)state;
	router_start(&r);
	apply_ok(&r,
		 "{'op':'apply','objects':[" CLASS("sy", OURS, DEFAULT) "," SVC("web", "a") ","
		 EPS("web", "a", "198.18.3.1") ","
		 "{'apiVersion':'v1','kind':'Secret','metadata':{'name':'tls','namespace':'web'},"
		 "'type':'kubernetes.io/tls','data':{'tls.crt':'%s','tls.key':'%s'}},"
		 ING("web", "site", "",
		     "{'tls':[{'hosts':['secure.test'],'secretName':'tls'},{'hosts':['open.test'],"
		     "'secretName':'missing'}],'rules':[" RULE("secure.test", PATH("Prefix", "/", "a")) ","
		     RULE("open.test", PATH("Prefix", "/", "a")) "," RULE("plain.test", PATH("Prefix", "/", "a")) "]}") ","
		 ING("web", "redir", ",'annotations':{'switchyard.io/ssl-redirect':'true'}",
		     "{'tls':[{'secretName':'tls'}],'rules':[" RULE("tls13.test", PATH("Prefix", "/", "a")) "]}")
		 "]}",
		 crt_b64, key_b64);
	vh = sy_gen_find_vhost(sy_gen_acquire(&r.slot), "secure.test", 11);
	assert_non_null(vh);
	assert_int_equal(vh->tls, SY_TLS_EDGE);
	assert_non_null(vh->term);
	assert_string_equal(vh->term->secret, "web/tls");
	/* plain HTTP is served: no redirect unless asked */
	assert_int_equal(vh->insecure, SY_INSECURE_ALLOW);
	/* a Secret that is not there: TLS with the default certificate */
	vh = sy_gen_find_vhost(sy_gen_acquire(&r.slot), "open.test", 9);
	assert_int_equal(vh->tls, SY_TLS_EDGE);
	assert_null(vh->term->secret);
	vh = sy_gen_find_vhost(sy_gen_acquire(&r.slot), "plain.test", 10);
	assert_int_equal(vh->tls, SY_TLS_NONE);
	/* tls[] without hosts: the Ingress's rules' hosts; the annotation redirects */
	vh = sy_gen_find_vhost(sy_gen_acquire(&r.slot), "tls13.test", 10);
	assert_int_equal(vh->tls, SY_TLS_EDGE);
	assert_string_equal(vh->term->secret, "web/tls");
	assert_int_equal(vh->insecure, SY_INSECURE_REDIRECT);
	assert_int_equal(vh->insecure_status, 308);
	rule = rule_for(&r, "tls13.test", "/");
	assert_int_equal(rule->insecure, SY_INSECURE_REDIRECT);
	router_stop(&r);
}

static void
test_status_and_claims(void **state)
{
	struct sy_router r;
	json_t *st;
	char b[64];

	(void)state;
	router_start_with(&r, "{\"ports\": [{\"name\": \"p0\", \"devargs\": \"net_null0\", "
			      "\"ipv4\": [\"198.18.0.1/24\"], \"ipv6\": [\"2001:2::1/64\"]}]}");
	apply_ok(&r, "{'op':'apply','objects':[" CLASS("sy", OURS, DEFAULT) "," SVC("web", "a") ","
		     EPS("web", "a", "198.18.3.1") ","
		     "{'apiVersion':'route.openshift.io/v1','kind':'Route','metadata':{'name':'rt',"
		     "'namespace':'web','creationTimestamp':'2020-01-01T00:00:00Z'},'spec':{'host':"
		     "'shared.test','to':{'kind':'Service','name':'a'}}},"
		     "{'apiVersion':'networking.k8s.io/v1','kind':'Ingress','metadata':{'name':'site',"
		     "'namespace':'web','creationTimestamp':'2021-01-01T00:00:00Z'},'spec':{'rules':["
		     RULE("shared.test", PATH("Prefix", "/", "a")) "," RULE("mine.test", PATH("Prefix", "/", "a"))
		     "]}}]}");
	/* the ports' addresses, no Router object */
	st = ing_status(&r, "web", "site");
	assert_non_null(st);
	{
		const json_t *lb = json_object_get(json_object_get(st, "loadBalancer"), "ingress");

		assert_int_equal(json_array_size(lb), 2);
		assert_string_equal(json_string_value(json_object_get(json_array_get(lb, 0), "ip")),
				    "198.18.0.1");
		assert_string_equal(json_string_value(json_object_get(json_array_get(lb, 1), "ip")),
				    "2001:2::1");
	}
	/* the older Route keeps shared.test; the Ingress says who has it */
	assert_string_equal(ops_resolve_object(&r, "http://shared.test/", b, sizeof(b)), "web/rt");
	assert_string_equal(ops_resolve_object(&r, "http://mine.test/", b, sizeof(b)), "web/site");
	{
		const json_t *d = json_array_get(json_object_get(st, "displaced"), 0);

		assert_non_null(d);
		assert_string_equal(json_string_value(json_object_get(d, "host")), "shared.test");
		assert_string_equal(json_string_value(json_object_get(d, "by")),
				    "Route.route.openshift.io web/rt");
	}
	json_decref(st);
	/* a Router object of this router's name: its VIPs */
	APPLY(&r, "{'apiVersion':'route.openshift.io/v1','kind':'Router','metadata':{'name':'default'},"
		  "'spec':{'dns':'shard1.apps.test','vips':['198.18.0.10']}}");
	st = ing_status(&r, "web", "site");
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(json_object_get(st, "loadBalancer"),
								   "ingress"),
						   0),
				    "ip")),
			    "198.18.0.10");
	assert_int_equal(json_array_size(json_object_get(json_object_get(st, "loadBalancer"), "ingress")), 1);
	json_decref(st);
	router_stop(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_config_key),
		cmocka_unit_test_setup_teardown(test_validation, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_paths_and_precedence, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_classes, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_default_backend_and_ports, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_tls, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_status_and_claims, fresh_state, remove_state),
	};
	int rc;

	if (sy_test_eal_init("test_ingress") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
