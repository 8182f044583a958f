/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contour kinds through the control ops: IngressRoute (contour.heptio.com/v1beta1)
 * with Contour v0.15's status strings, its delegation DAG, weights, TLS and
 * permitInsecure; the v1alpha1 Route draft's defaults, override order and
 * status; Secrets; claims against OpenShift Routes.
 *
 * Requests are written with ' for " (see call()) to keep them readable.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>

#include "gen/compile.h"
#include "router.h"
#include "test_eal.h"
#include "test_router.h"


#include "test_certs.h"

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

/* apply [objects...]; must succeed. */
#define APPLY(r, ...) apply_ok((r), "{'op':'apply','objects':[" __VA_ARGS__ "]}")
/* the same with printf arguments for the objects */
#define APPLYF(r, objs, ...) apply_ok((r), "{'op':'apply','objects':[" objs "]}", __VA_ARGS__)

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

/* Objects, in the ' notation. */
#define SVC(ns, name, port)                                                                   \
	"{'apiVersion':'v1','kind':'Service','metadata':{'name':'" name "','namespace':'" ns \
	"'},'spec':{'ports':[{'name':'http','port':" #port "}]}}"
#define EPS(ns, name, ip)                                                                       \
	"{'apiVersion':'v1','kind':'Endpoints','metadata':{'name':'" name "','namespace':'" ns \
	"'},'subsets':[{'addresses':[{'ip':'" ip "'}],'ports':[{'name':'http','port':8080}]}]}"
/* An IngressRoute; md is extra metadata, spec the whole spec. */
#define IR(ns, name, spec)                                                                     \
	"{'apiVersion':'contour.heptio.com/v1beta1','kind':'IngressRoute','metadata':{'name':'" \
	name "','namespace':'" ns "'},'spec':" spec "}"
#define IR_AGED(ns, name, ts, spec)                                                            \
	"{'apiVersion':'contour.heptio.com/v1beta1','kind':'IngressRoute','metadata':{'name':'" \
	name "','namespace':'" ns "','creationTimestamp':'" ts "'},'spec':" spec "}"
#define ROOT(fqdn, routes) "{'virtualhost':{'fqdn':'" fqdn "'},'routes':[" routes "]}"
#define SVCROUTE(match, svc, port) "{'match':'" match "','services':[{'name':'" svc "','port':" #port "}]}"
#define DELEGATE(match, name) "{'match':'" match "','delegate':{'name':'" name "'}}"
#define DELEGATE_NS(match, ns, name) \
	"{'match':'" match "','delegate':{'name':'" name "','namespace':'" ns "'}}"
#define OSROUTE(ns, name, ts, host, svc)                                                         \
	"{'apiVersion':'route.openshift.io/v1','kind':'Route','metadata':{'name':'" name         \
	"','namespace':'" ns "','creationTimestamp':'" ts "'},'spec':{'host':'" host "','to':{" \
	"'kind':'Service','name':'" svc "'}}}"
#define TLS_SECRET(ns, name, crt, key)                                                           \
	"{'apiVersion':'v1','kind':'Secret','metadata':{'name':'" name "','namespace':'" ns "'}," \
	"'type':'kubernetes.io/tls','data':{'tls.crt':'" crt "','tls.key':'" key "'}}"

#define VALID_IR "valid IngressRoute"
#define ORPHANED_IR "this IngressRoute is not part of a delegation chain from a root IngressRoute"

/* The object's status field `key` (IngressRoute: currentStatus, description). */
static void
expect_status(struct sy_router *r, const char *kind, const char *ns, const char *name,
	      const char *current, const char *desc)
{
	json_t *rep = call(r, "{'op':'get','kind':'%s','namespace':'%s','name':'%s'}", kind, ns, name);
	const json_t *st = json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status");
	const char *c = json_string_value(json_object_get(st, "currentStatus"));
	const char *d = json_string_value(json_object_get(st, "description"));

	if (c == NULL || strcmp(c, current) != 0 || (desc && (d == NULL || strcmp(d, desc) != 0))) {
		char *dump = json_dumps(rep, 0);

		fail_msg("%s %s/%s: expected %s \"%s\", got %s", kind, ns, name, current,
			 desc ? desc : "*", dump);
	}
	json_decref(rep);
}

#define EXPECT_IR(r, ns, name, cur, desc) expect_status((r), "ingressroute", ns, name, cur, desc)


#define EXPECT_RESOLVE(r, url, obj)                                                     \
	do {                                                                            \
		char b_[256];                                                           \
		assert_string_equal(ops_resolve_object((r), (url), b_, sizeof(b_)), (obj)); \
	} while (0)

/* services[i].share of resolve's answer. */
static double
resolve_share(struct sy_router *r, const char *url, const char *svc)
{
	json_t *rep = call(r, "{'op':'resolve','url':'%s'}", url);
	const json_t *s;
	size_t i;
	double share = -1;

	json_array_foreach(json_object_get(rep, "services"), i, s)
		if (strcmp(json_string_value(json_object_get(s, "name")), svc) == 0)
			share = json_real_value(json_object_get(s, "share"));
	json_decref(rep);
	if (share < 0)
		fail_msg("resolve %s: no service %s", url, svc);
	return share;
}

#define ASSERT_NEAR(a, b) assert_true(fabs((a) - (b)) < 0.001)

/* The live generation's vhost for host (the settings resolve does not show). */
static const struct sy_vhost *
vhost(struct sy_router *r, const char *host)
{
	struct sy_generation *g = sy_gen_acquire(&r->slot);

	return sy_gen_find_vhost(g, host, strlen(host));
}

static const struct sy_pool *
pool_for(struct sy_router *r, const char *host, const char *path)
{
	struct sy_generation *g = sy_gen_acquire(&r->slot);
	const struct sy_vhost *vh = sy_gen_find_vhost(g, host, strlen(host));
	const struct sy_rule *rule = vh ? sy_vhost_match_path(vh, path, strlen(path)) : NULL;

	assert_non_null(rule);
	return rule->pool;
}

/* Decode test base64 (the PEM as text). */
static void
b64_to_text(const char *b64, char *out)
{
	size_t len = strlen(b64);
	int n = EVP_DecodeBlock((unsigned char *)out, (const unsigned char *)b64, (int)len);

	assert_true(n > 0);
	/* EVP_DecodeBlock counts the padding's zero bytes */
	n -= (len > 0 && b64[len - 1] == '=') + (len > 1 && b64[len - 2] == '=');
	out[n] = '\0';
}

/* ------------------------------------------------------------------------ */

static void
test_ir_apply_get_resolve(void **state)
{
	static const char *const spellings[] = { "ingressroute", "ingressroutes", "ir",
						 "IngressRoute", "ingressroute.contour.heptio.com",
						 "ingressroutes.contour.heptio.com" };
	struct sy_router r;
	json_t *rep;
	size_t i;

	router_start(&r);
	APPLY(&r, SVC("web", "app", 80) "," EPS("web", "app", "198.18.2.10") ","
		  IR("web", "site", ROOT("Site.Example.test", SVCROUTE("/", "app", 80) ","
							       SVCROUTE("/foo", "app", 80))));
	for (i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		rep = call(&r, "{'op':'get','kind':'%s'}", spellings[i]);
		assert_true(reply_ok(rep));
		assert_string_equal(json_string_value(json_object_get(rep, "kind")), "IngressRoute");
		assert_int_equal(json_array_size(json_object_get(rep, "items")), 1);
		json_decref(rep);
	}
	EXPECT_IR(&r, "web", "site", "valid", VALID_IR);
	/* fqdn is served lower-cased; the rule names its object and kind */
	rep = call(&r, "{'op':'resolve','url':'http://site.example.test/foo/bar'}");
	assert_string_equal(json_string_value(json_object_get(rep, "object")), "web/site");
	assert_string_equal(json_string_value(json_object_get(rep, "kind")), "IngressRoute");
	assert_string_equal(json_string_value(json_object_get(json_object_get(rep, "rule"), "path")),
			    "/foo");
	assert_int_equal(json_integer_value(json_object_get(
				 json_array_get(json_object_get(rep, "endpoints"), 0), "port")),
			 8080);
	json_decref(rep);
	/* segment-aware prefix (our choice; Contour v0.x matched /foobar too) */
	rep = call(&r, "{'op':'resolve','url':'http://site.example.test/foobar'}");
	assert_string_equal(json_string_value(json_object_get(json_object_get(rep, "rule"), "path")),
			    "/");
	json_decref(rep);
	/* the bare "route" stays OpenShift's */
	rep = call(&r, "{'op':'get','kind':'route'}");
	assert_true(reply_ok(rep));
	assert_int_equal(json_array_size(json_object_get(rep, "items")), 0);
	json_decref(rep);
	/* Survives a restart (journal replay), status recomputed. */
	router_stop(&r);
	router_start(&r);
	EXPECT_IR(&r, "web", "site", "valid", VALID_IR);
	EXPECT_RESOLVE(&r, "http://site.example.test/", "web/site");
	rep = call(&r, "{'op':'delete','kind':'ir','namespace':'web','name':'site'}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	EXPECT_RESOLVE(&r, "http://site.example.test/", "(none)");
	router_stop(&r);
}

static void
test_ir_schema_validation(void **state)
{
	struct sy_router r;

	router_start(&r);
	expect_error(call(&r, "{'op':'apply','objects':[" IR("a", "x", "{'routes':[{'match':'foo'}]}") "]}"),
		     "invalid", "spec.routes[0].match", "starting with");
	expect_error(call(&r, "{'op':'apply','objects':[" IR("a", "x", "{'routes':[{'services':[]}]}") "]}"),
		     "invalid", "spec.routes[0].match", "required");
	expect_error(call(&r, "{'op':'apply','objects':[" IR("a", "x", "{'routes':[{'match':'/',"
								  "'services':[{'port':80}]}]}") "]}"),
		     "invalid", "spec.routes[0].services[0].name", "required");
	expect_error(call(&r, "{'op':'apply','objects':[" IR("a", "x", "{'routes':[{'match':'/',"
								  "'services':[{'name':'s','port':'80'}]}]}") "]}"),
		     "invalid", "spec.routes[0].services[0].port", "integer");
	expect_error(call(&r, "{'op':'apply','objects':[" IR("a", "x", "{'routes':[{'match':'/',"
								  "'services':[{'name':'s','port':80,'weight':1.5}]}]}") "]}"),
		     "invalid", "spec.routes[0].services[0].weight", "integer");
	expect_error(call(&r, "{'op':'apply','objects':[" IR("a", "x", "{'routes':[{'match':'/',"
								  "'services':[{'name':'s','port':80,'strategy':'Fastest'}]}]}") "]}"),
		     "invalid", "spec.routes[0].services[0].strategy", "RoundRobin");
	expect_error(call(&r, "{'op':'apply','objects':[" IR("a", "x", "{'routes':[{'match':'/',"
								  "'delegate':{'namespace':'b'}}]}") "]}"),
		     "invalid", "spec.routes[0].delegate.name", "required");
	expect_error(call(&r, "{'op':'apply','objects':[" IR("a", "x", "{'virtualhost':{'fqdn':'x.test',"
								  "'tls':{'minimumProtocolVersion':'1.0'}},'routes':[]}") "]}"),
		     "invalid", "spec.virtualhost.tls.minimumProtocolVersion", "1.3");
	expect_error(call(&r, "{'op':'apply','objects':[" IR("a", "x", "{'routes':[{'match':'/',"
								  "'services':[{'name':'s','port':80,'healthCheck':{'intervalSeconds':5}}]}]}") "]}"),
		     "invalid", "spec.routes[0].services[0].healthCheck.path", "required");
	expect_error(call(&r, "{'op':'apply','objects':[" IR("a", "x", "{'routes':{}}") "]}"),
		     "invalid", "spec.routes", "list");
	expect_error(call(&r, "{'op':'apply','objects':[" IR("a", "x", "{'virtualhost':{'fqdn':7},'routes':[]}") "]}"),
		     "invalid", "spec.virtualhost.fqdn", "string");
	router_stop(&r);
}

/* Every status string of PEER-SEMANTICS 2.2 that applies to v1beta1. */
static void
test_ir_status_strings(void **state)
{
	struct sy_router r;

	router_start(&r);
	APPLY(&r, SVC("s", "home", 80) "," EPS("s", "home", "198.18.3.1") ","
		  SVC("s", "other", 80) "," EPS("s", "other", "198.18.3.2") ","
		  /* orphaned: nobody delegates to it */
		  IR("s", "lonely", "{'routes':[" SVCROUTE("/", "home", 80) "]}") ","
		  /* one fqdn, two roots (and the order in the message is sorted) */
		  IR("s", "zeta", ROOT("dup.test", SVCROUTE("/", "home", 80))) ","
		  IR("s", "alpha", ROOT("dup.test", SVCROUTE("/", "home", 80))) ","
		  IR("s", "blank", ROOT("  ", SVCROUTE("/", "home", 80))) ","
		  IR("s", "wild", ROOT("example.*.com", SVCROUTE("/", "home", 80))) ","
		  IR("s", "both", "{'virtualhost':{'fqdn':'both.test'},'routes':[{'match':'/foo',"
				  "'services':[{'name':'home','port':80}],'delegate':{'name':'lonely'}}]}") ","
		  IR("s", "ws", "{'virtualhost':{'fqdn':'ws.test'},'routes':[{'match':'/x',"
				"'enableWebsockets':true,'services':[{'name':'home','port':80},"
				"{'name':'other','port':80}]}]}") ","
		  IR("s", "port0", ROOT("port0.test", SVCROUTE("/foo", "home", 0))) ","
		  IR("s", "portbig", ROOT("portbig.test", SVCROUTE("/foo", "home", 70000))) ","
		  IR("s", "negw", "{'virtualhost':{'fqdn':'negw.test'},'routes':[{'match':'/foo',"
				  "'services':[{'name':'home','port':80,'weight':-1}]}]}") ","
		  IR("s", "missing", ROOT("missing.test", SVCROUTE("/", "nope", 80))) ","
		  IR("s", "wrongport", ROOT("wrongport.test", SVCROUTE("/", "home", 81))) ","
		  IR("s", "notls", "{'virtualhost':{'fqdn':'notls.test','tls':{'secretName':'absent'}},"
				   "'routes':[" SVCROUTE("/", "home", 80) "]}") ","
		  /* tcpproxy: services and delegate */
		  IR("s", "tcpboth", "{'virtualhost':{'fqdn':'tcp.test','tls':{'passthrough':true}},"
				     "'tcpproxy':{'services':[{'name':'home','port':80}],"
				     "'delegate':{'name':'lonely'}}}"));
	EXPECT_IR(&r, "s", "lonely", "orphaned", ORPHANED_IR);
	EXPECT_IR(&r, "s", "alpha", "invalid",
		  "fqdn \"dup.test\" is used in multiple IngressRoutes: s/alpha, s/zeta");
	EXPECT_IR(&r, "s", "zeta", "invalid",
		  "fqdn \"dup.test\" is used in multiple IngressRoutes: s/alpha, s/zeta");
	EXPECT_RESOLVE(&r, "http://dup.test/", "(none)");
	EXPECT_IR(&r, "s", "blank", "invalid", "Spec.VirtualHost.Fqdn must be specified");
	EXPECT_IR(&r, "s", "wild", "invalid",
		  "Spec.VirtualHost.Fqdn \"example.*.com\" cannot use wildcards");
	EXPECT_IR(&r, "s", "both", "invalid",
		  "route \"/foo\": cannot specify services and delegate in the same route");
	EXPECT_IR(&r, "s", "ws", "invalid",
		  "route \"/x\": cannot specify multiple services and enable websockets");
	EXPECT_IR(&r, "s", "port0", "invalid",
		  "route \"/foo\": service \"home\": port must be in the range 1-65535");
	EXPECT_IR(&r, "s", "portbig", "invalid",
		  "route \"/foo\": service \"home\": port must be in the range 1-65535");
	EXPECT_IR(&r, "s", "negw", "invalid",
		  "route \"/foo\": service \"home\": weight must be greater than or equal to zero");
	EXPECT_IR(&r, "s", "missing", "invalid", "Service [nope:80] is invalid or missing");
	EXPECT_IR(&r, "s", "wrongport", "invalid", "Service [home:81] is invalid or missing");
	EXPECT_RESOLVE(&r, "http://missing.test/", "(none)");
	EXPECT_IR(&r, "s", "notls", "invalid", "TLS Secret [absent] not found or is malformed");
	EXPECT_RESOLVE(&r, "http://notls.test/", "(none)");
	EXPECT_IR(&r, "s", "tcpboth", "invalid",
		  "tcpproxy: cannot specify services and delegate in the same tcpproxy");
	router_stop(&r);
}

/* --ingressroute-root-namespaces */
static void
test_ir_root_namespaces(void **state)
{
	struct sy_router r;

	router_start_with(&r, "{\"routing_subdomain\": \"apps.test\", "
			     "\"ingressroute_root_namespaces\": [\"roots\", \"admin\"]}");
	APPLY(&r, SVC("roots", "a", 80) "," SVC("team", "a", 80) "," EPS("team", "a", "198.18.4.1") ","
		  IR("roots", "ok", ROOT("ok.test", DELEGATE_NS("/", "team", "leaf"))) ","
		  IR("team", "leaf", "{'routes':[" SVCROUTE("/", "a", 80) "]}") ","
		  IR("team", "rogue", ROOT("rogue.test", SVCROUTE("/", "a", 80))));
	EXPECT_IR(&r, "roots", "ok", "valid", VALID_IR);
	/* delegates may live anywhere; only roots are restricted */
	EXPECT_IR(&r, "team", "leaf", "valid", VALID_IR);
	EXPECT_IR(&r, "team", "rogue", "invalid", "root IngressRoute cannot be defined in this namespace");
	EXPECT_RESOLVE(&r, "http://ok.test/", "team/leaf");
	EXPECT_RESOLVE(&r, "http://rogue.test/", "(none)");
	router_stop(&r);
}

static void
test_ir_dag(void **state)
{
	struct sy_router r;

	router_start(&r);
	APPLY(&r, SVC("roots", "www", 80) "," EPS("roots", "www", "198.18.5.1") ","
		  SVC("blog", "blog", 80) "," EPS("blog", "blog", "198.18.5.2") ","
		  SVC("shop", "shop", 80) "," EPS("shop", "shop", "198.18.5.3") ","
		  /* root: serves /, delegates /blog across namespaces, /shop
		   * to a child that is invalid, /gone to nobody */
		  IR("roots", "site", ROOT("site.test", SVCROUTE("/", "www", 80) ","
				       DELEGATE_NS("/blog", "blog", "blog") ","
				       DELEGATE_NS("/shop", "shop", "shop") ","
				       DELEGATE("/gone", "nobody"))) ","
		  /* delegate namespace defaults to the parent's: blog/comments */
		  IR("blog", "blog", "{'routes':[" SVCROUTE("/blog", "blog", 80) ","
				     DELEGATE("/blog/comments", "comments") "]}") ","
		  IR("blog", "comments", "{'routes':[" SVCROUTE("/blog/comments", "blog", 80) "]}") ","
		  /* outside the parent's prefix (segment-aware: /shopping is not /shop) */
		  IR("shop", "shop", "{'routes':[" SVCROUTE("/shopping", "shop", 80) "]}"));
	EXPECT_IR(&r, "roots", "site", "valid", VALID_IR);
	EXPECT_IR(&r, "blog", "blog", "valid", VALID_IR);
	EXPECT_IR(&r, "blog", "comments", "valid", VALID_IR);
	/* an invalid child does not invalidate its parent (contour#490, #510) */
	EXPECT_IR(&r, "shop", "shop", "invalid",
		  "the path prefix \"/shopping\" does not match the parent's path prefix \"/shop\"");
	EXPECT_RESOLVE(&r, "http://site.test/", "roots/site");
	EXPECT_RESOLVE(&r, "http://site.test/blog/post-1", "blog/blog");
	EXPECT_RESOLVE(&r, "http://site.test/blog/comments/7", "blog/comments");
	EXPECT_RESOLVE(&r, "http://site.test/shopping", "roots/site");

	/* A cycle: reported on the object that closes it. */
	APPLY(&r, IR("roots", "parent", ROOT("cycle.test", DELEGATE("/", "child"))) ","
		  IR("roots", "child", "{'routes':[" DELEGATE("/", "parent") "]}"));
	EXPECT_IR(&r, "roots", "parent", "valid", VALID_IR);
	EXPECT_IR(&r, "roots", "child", "invalid",
		  "route creates a delegation cycle: roots/parent -> roots/child -> roots/parent");

	/* An invalid parent orphans its children. */
	APPLY(&r, IR("roots", "site", ROOT("*.site.test", SVCROUTE("/", "www", 80) ","
				       DELEGATE_NS("/blog", "blog", "blog"))));
	EXPECT_IR(&r, "roots", "site", "invalid",
		  "Spec.VirtualHost.Fqdn \"*.site.test\" cannot use wildcards");
	EXPECT_IR(&r, "blog", "blog", "orphaned", ORPHANED_IR);
	EXPECT_IR(&r, "blog", "comments", "orphaned", ORPHANED_IR);
	EXPECT_IR(&r, "shop", "shop", "orphaned", ORPHANED_IR);
	EXPECT_RESOLVE(&r, "http://site.test/blog/x", "(none)");
	/* ... unless another valid root reaches them. */
	APPLY(&r, IR("roots", "other", ROOT("other.test", DELEGATE_NS("/blog", "blog", "blog"))));
	EXPECT_IR(&r, "blog", "blog", "valid", VALID_IR);
	EXPECT_IR(&r, "blog", "comments", "valid", VALID_IR);
	EXPECT_RESOLVE(&r, "http://other.test/blog/comments", "blog/comments");

	/* Partial application (v0.15): routes before the first bad one stay. */
	APPLY(&r, IR("roots", "partial", ROOT("partial.test", SVCROUTE("/a", "www", 80) ","
					  SVCROUTE("/b", "nope", 80) "," SVCROUTE("/c", "www", 80))));
	EXPECT_IR(&r, "roots", "partial", "invalid", "Service [nope:80] is invalid or missing");
	EXPECT_RESOLVE(&r, "http://partial.test/a", "roots/partial");
	EXPECT_RESOLVE(&r, "http://partial.test/c", "(none)");
	router_stop(&r);
}

static void
test_ir_weights_canary_bluegreen(void **state)
{
	struct sy_router r;
	uint64_t gen;
	json_t *rep;

	router_start(&r);
	APPLY(&r, SVC("w", "a", 80) "," EPS("w", "a", "198.18.6.1") ","
		  SVC("w", "b", 80) "," EPS("w", "b", "198.18.6.2") ","
		  SVC("w", "c", 80) "," EPS("w", "c", "198.18.6.3") ","
		  /* none set: equal */
		  IR("w", "eq", "{'virtualhost':{'fqdn':'eq.test'},'routes':[{'match':'/',"
				"'services':[{'name':'a','port':80},{'name':'b','port':80}]}]}") ","
		  /* some set: unset get 0 */
		  IR("w", "some", "{'virtualhost':{'fqdn':'some.test'},'routes':[{'match':'/',"
				  "'services':[{'name':'a','port':80,'weight':3},{'name':'b','port':80},"
				  "{'name':'c','port':80,'weight':1}]}]}"));
	ASSERT_NEAR(resolve_share(&r, "http://eq.test/", "a"), 0.5);
	ASSERT_NEAR(resolve_share(&r, "http://eq.test/", "b"), 0.5);
	ASSERT_NEAR(resolve_share(&r, "http://some.test/", "a"), 0.75);
	ASSERT_NEAR(resolve_share(&r, "http://some.test/", "b"), 0.0);
	ASSERT_NEAR(resolve_share(&r, "http://some.test/", "c"), 0.25);

	/* Canary: move traffic by weights, re-applying the one object. */
	APPLY(&r, IR("w", "canary", "{'virtualhost':{'fqdn':'canary.test'},'routes':[{'match':'/',"
				    "'services':[{'name':'a','port':80,'weight':100},"
				    "{'name':'b','port':80,'weight':0}]}]}"));
	ASSERT_NEAR(resolve_share(&r, "http://canary.test/", "b"), 0.0);
	gen = r.gen_id;
	APPLY(&r, IR("w", "canary", "{'virtualhost':{'fqdn':'canary.test'},'routes':[{'match':'/',"
				    "'services':[{'name':'a','port':80,'weight':90},"
				    "{'name':'b','port':80,'weight':10}]}]}"));
	assert_true(r.gen_id > gen);
	ASSERT_NEAR(resolve_share(&r, "http://canary.test/", "a"), 0.9);
	ASSERT_NEAR(resolve_share(&r, "http://canary.test/", "b"), 0.1);

	/* Blue/green: green waits orphaned; swapping the delegation moves all. */
	APPLY(&r, SVC("blue", "app", 80) "," EPS("blue", "app", "198.18.7.1") ","
		  SVC("green", "app", 80) "," EPS("green", "app", "198.18.7.2") ","
		  IR("blue", "app", "{'routes':[" SVCROUTE("/", "app", 80) "]}") ","
		  IR("green", "app", "{'routes':[" SVCROUTE("/", "app", 80) "]}") ","
		  IR("w", "bg", ROOT("bg.test", DELEGATE_NS("/", "blue", "app"))));
	EXPECT_RESOLVE(&r, "http://bg.test/", "blue/app");
	EXPECT_IR(&r, "green", "app", "orphaned", ORPHANED_IR);
	APPLY(&r, IR("w", "bg", ROOT("bg.test", DELEGATE_NS("/", "green", "app"))));
	EXPECT_RESOLVE(&r, "http://bg.test/", "green/app");
	EXPECT_IR(&r, "green", "app", "valid", VALID_IR);
	EXPECT_IR(&r, "blue", "app", "orphaned", ORPHANED_IR);
	rep = call(&r, "{'op':'resolve','url':'http://bg.test/'}");
	assert_string_equal(json_string_value(json_object_get(
				    json_array_get(json_object_get(rep, "endpoints"), 0), "address")),
			    "198.18.7.2");
	json_decref(rep);

	/* Strategy and health check: service > route > spec, Contour's defaults. */
	APPLY(&r, IR("w", "lb", "{'virtualhost':{'fqdn':'lb.test'},'strategy':'Random',"
				"'healthCheck':{'path':'/spec'},'routes':["
				"{'match':'/svc','services':[{'name':'a','port':80,'strategy':'Cookie',"
				"'healthCheck':{'path':'/hz','intervalSeconds':7}}]},"
				"{'match':'/spec','services':[{'name':'a','port':80}]}]}"));
	{
		const struct sy_pool *p = pool_for(&r, "lb.test", "/svc");

		assert_int_equal(p->strategy, SY_LB_COOKIE);
		assert_string_equal(p->hc->path, "/hz");
		assert_int_equal(p->hc->interval_s, 7);
		assert_int_equal(p->hc->timeout_s, 2);
		assert_int_equal(p->hc->unhealthy_threshold, 3);
		assert_int_equal(p->hc->healthy_threshold, 2);
		p = pool_for(&r, "lb.test", "/spec");
		assert_int_equal(p->strategy, SY_LB_RANDOM);
		assert_string_equal(p->hc->path, "/spec");
		assert_int_equal(p->hc->interval_s, 10);
	}
	router_stop(&r);
}

static void
test_ir_tls(void **state)
{
	struct sy_router r;
	const struct sy_vhost *vh;
	json_t *rep;

	router_start(&r);
	/* Secret validation at apply: keys present, base64; values never echoed. */
	expect_error(call(&r, "{'op':'apply','objects':[{'apiVersion':'v1','kind':'Secret','metadata':"
			      "{'name':'x','namespace':'t'},'type':'kubernetes.io/tls','data':"
			      "{'tls.crt':'%s'}}]}", crt_b64),
		     "invalid", "data[\"tls.key\"]", "required");
	rep = call(&r, "{'op':'apply','objects':[{'apiVersion':'v1','kind':'Secret','metadata':"
		       "{'name':'x','namespace':'t'},'type':'kubernetes.io/tls','data':"
		       "{'tls.crt':'%s','tls.key':'c2VjcmV0!!'}}]}", crt_b64);
	{
		char *dump = json_dumps(rep, 0);

		assert_null(strstr(dump, "c2VjcmV0"));
		free(dump);
	}
	expect_error(rep, "invalid", "data[\"tls.key\"]", "base64");
	expect_error(call(&r, "{'op':'apply','objects':[{'apiVersion':'v1','kind':'Secret','metadata':"
			      "{'name':'x','namespace':'t'},'type':7}]}"),
		     "invalid", "type", "string");

	APPLYF(&r, SVC("t", "app", 80) "," EPS("t", "app", "198.18.8.1") ","
		  TLS_SECRET("t", "good", "%s", "%s") ","
		  /* valid base64, not PEM */
		  TLS_SECRET("t", "junk", "bm90IGEgY2VydA==", "bm90IGEga2V5") ","
		  "{'apiVersion':'v1','kind':'Secret','metadata':{'name':'opaque','namespace':'t'},"
		  "'type':'Opaque','data':{'tls.crt':'%s','tls.key':'%s'}},"
		  IR("t", "secure", "{'virtualhost':{'fqdn':'secure.test','tls':{'secretName':'good',"
				    "'minimumProtocolVersion':'1.2'}},'routes':[" SVCROUTE("/", "app", 80) "]}") ","
		  IR("t", "open", "{'virtualhost':{'fqdn':'open.test','tls':{'secretName':'t/good'}},"
				  "'routes':[{'match':'/','permitInsecure':true,'services':[{'name':'app','port':80}]}]}") ","
		  IR("t", "tls13", "{'virtualhost':{'fqdn':'tls13.test','tls':{'secretName':'good',"
				   "'minimumProtocolVersion':'1.3'}},'routes':[" SVCROUTE("/", "app", 80) "]}") ","
		  IR("t", "malformed", "{'virtualhost':{'fqdn':'malformed.test','tls':{'secretName':'junk'}},"
				       "'routes':[" SVCROUTE("/", "app", 80) "]}") ","
		  IR("t", "opaque", "{'virtualhost':{'fqdn':'opaque.test','tls':{'secretName':'opaque'}},"
				    "'routes':[" SVCROUTE("/", "app", 80) "]}") ","
		  IR("t", "foreign", "{'virtualhost':{'fqdn':'foreign.test','tls':{'secretName':'other/good'}},"
				     "'routes':[" SVCROUTE("/", "app", 80) "]}") ","
		  IR("t", "elsewhere", "{'virtualhost':{'fqdn':'elsewhere.test','tls':{'secretName':'good'}},"
				       "'routes':[" SVCROUTE("/", "app", 80) "]}") ","
		  IR("t", "pass", "{'virtualhost':{'fqdn':'pass.test','tls':{'passthrough':true}},"
				  "'tcpproxy':{'services':[{'name':'app','port':80}]}}"),
	      crt_b64, key_b64, crt_b64, key_b64);
	EXPECT_IR(&r, "t", "secure", "valid", VALID_IR);
	vh = vhost(&r, "secure.test");
	assert_non_null(vh);
	assert_int_equal(vh->tls, SY_TLS_EDGE);
	assert_non_null(vh->term);
	assert_string_equal(vh->term->secret, "t/good");
	assert_int_equal(vh->min_tls_version, 0x0303);
	/* port 80 gets a 301 to https (Contour's HTTPSUpgrade) */
	assert_int_equal(vh->insecure, SY_INSECURE_REDIRECT);
	assert_int_equal(vh->insecure_status, 301);
	rep = call(&r, "{'op':'resolve','url':'https://secure.test/'}");
	assert_string_equal(json_string_value(json_object_get(rep, "tls")), "edge");
	json_decref(rep);
	/* permitInsecure: plain HTTP served; no minimumProtocolVersion: TLS 1.1 */
	EXPECT_IR(&r, "t", "open", "valid", VALID_IR);
	vh = vhost(&r, "open.test");
	assert_int_equal(vh->insecure, SY_INSECURE_ALLOW);
	assert_int_equal(vh->min_tls_version, 0x0302);
	assert_int_equal(vhost(&r, "tls13.test")->min_tls_version, 0x0304);
	EXPECT_IR(&r, "t", "malformed", "invalid", "TLS Secret [junk] not found or is malformed");
	EXPECT_IR(&r, "t", "opaque", "invalid", "TLS Secret [opaque] not found or is malformed");
	EXPECT_IR(&r, "t", "foreign", "invalid", "other/good: certificate delegation not permitted");
	assert_null(vhost(&r, "malformed.test"));
	/* A certificate that parses but does not name the host: not served. */
	EXPECT_IR(&r, "t", "elsewhere", "invalid",
		  "TLS Secret [good] cannot be used: certificate is not valid for host elsewhere.test");
	assert_null(vhost(&r, "elsewhere.test"));
	EXPECT_IR(&r, "t", "pass", "valid", VALID_IR);
	assert_int_equal(vhost(&r, "pass.test")->tls, SY_TLS_PASSTHROUGH);

	/* The secret turns up (stringData, plain PEM) and the root becomes valid;
	 * it goes away and the root is invalid again. */
	{
		char crt_pem[1024], key_pem[512];

		b64_to_text(crt_b64, crt_pem);
		b64_to_text(key_b64, key_pem);
		rep = json_pack("{s:s, s:[{s:s, s:s, s:{s:s, s:s}, s:s, s:{s:s, s:s}}]}", "op", "apply",
				"objects", "apiVersion", "v1", "kind", "Secret", "metadata", "name",
				"junk", "namespace", "t", "type", "kubernetes.io/tls", "stringData",
				"tls.crt", crt_pem, "tls.key", key_pem);
		{
			json_t *reply = sy_ops_handle(&r, rep);

			assert_true(reply_ok(reply));
			json_decref(reply);
		}
		json_decref(rep);
	}
	EXPECT_IR(&r, "t", "malformed", "valid", VALID_IR);
	assert_non_null(vhost(&r, "malformed.test"));
	rep = call(&r, "{'op':'delete','kind':'secret','namespace':'t','name':'good'}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	EXPECT_IR(&r, "t", "secure", "invalid", "TLS Secret [good] not found or is malformed");
	assert_null(vhost(&r, "secure.test"));
	router_stop(&r);
}

/* A host claimed by an OpenShift Route and an IngressRoute: the oldest wins. */
static void
test_cross_kind_claims(void **state)
{
	struct sy_router r;
	json_t *rep;

	router_start(&r);
	APPLY(&r, SVC("a", "s", 80) "," EPS("a", "s", "198.18.9.1") ","
		  SVC("b", "s", 80) "," EPS("b", "s", "198.18.9.2") ","
		  OSROUTE("a", "old", "2020-01-01T00:00:00Z", "shared.test", "s") ","
		  IR_AGED("b", "young", "2021-01-01T00:00:00Z", ROOT("shared.test", SVCROUTE("/", "s", 80))));
	EXPECT_IR(&r, "b", "young", "invalid", "fqdn \"shared.test\" is claimed by Route a/old (older)");
	EXPECT_RESOLVE(&r, "http://shared.test/", "a/old");
	/* the other way round: the IngressRoute is older */
	APPLY(&r, IR_AGED("b", "elder", "2019-01-01T00:00:00Z", ROOT("elder.test", SVCROUTE("/", "s", 80))) ","
		  OSROUTE("a", "late", "2022-01-01T00:00:00Z", "elder.test", "s"));
	EXPECT_IR(&r, "b", "elder", "valid", VALID_IR);
	EXPECT_RESOLVE(&r, "http://elder.test/", "b/elder");
	rep = call(&r, "{'op':'get','kind':'route','namespace':'a','name':'late'}");
	{
		const json_t *cond = json_array_get(json_object_get(json_array_get(json_object_get(
			json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status"),
			"ingress"), 0), "conditions"), 0);

		assert_string_equal(json_string_value(json_object_get(cond, "reason")),
				    "HostAlreadyClaimed");
	}
	json_decref(rep);
	/* the winner goes: the displaced IngressRoute is served and valid */
	json_decref(call(&r, "{'op':'delete','kind':'route','namespace':'a','name':'old'}"));
	EXPECT_IR(&r, "b", "young", "valid", VALID_IR);
	EXPECT_RESOLVE(&r, "http://shared.test/", "b/young");
	router_stop(&r);
}

#define CROUTE(ns, name, ts, spec)                                                            \
	"{'apiVersion':'contour.heptio.com/v1alpha1','kind':'Route','metadata':{'name':'" name \
	"','namespace':'" ns "','creationTimestamp':'" ts "'},'spec':" spec "}"

static void
expect_croute(struct sy_router *r, const char *ns, const char *name, const char *current,
	      const char *error)
{
	json_t *rep = call(r, "{'op':'get','kind':'route.contour.heptio.com','namespace':'%s','name':'%s'}",
			   ns, name);
	const json_t *st = json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status");
	const json_t *errors = json_object_get(st, "errors");
	const char *c = json_string_value(json_object_get(st, "currentStatus"));
	const char *t = json_string_value(json_object_get(st, "lastProcessTime"));
	char *dump = json_dumps(rep, 0);

	if (c == NULL || strcmp(c, current) != 0 || !json_is_array(errors) || t == NULL ||
	    strlen(t) != 20 || t[10] != 'T' || t[19] != 'Z')
		fail_msg("Route %s/%s: expected %s, got %s", ns, name, current, dump);
	if (error == NULL ? json_array_size(errors) != 0
			  : (json_string_value(json_array_get(errors, 0)) == NULL ||
			     strcmp(json_string_value(json_array_get(errors, 0)), error) != 0))
		fail_msg("Route %s/%s: expected error \"%s\", got %s", ns, name, error ? error : "",
			 dump);
	free(dump);
	json_decref(rep);
}

static void
test_route_contour(void **state)
{
	struct sy_router r;
	const struct sy_pool *p;
	json_t *rep;

	router_start(&r);
	expect_error(call(&r, "{'op':'apply','objects':[" CROUTE("f", "x", "2020-01-01T00:00:00Z",
			      "{'host':'x.test','routes':[{'pathPrefix':'/','upstreams':[{'serviceName':'www'}]}]}") "]}"),
		     "invalid", "spec.routes[0].upstreams[0].servicePort", "required");
	expect_error(call(&r, "{'op':'apply','objects':[" CROUTE("f", "x", "2020-01-01T00:00:00Z",
			      "{'host':'x.test','routes':[{'pathPrefix':'/','upstreams':[{'serviceName':'www',"
			      "'servicePort':80,'weight':150}]}]}") "]}"),
		     "invalid", "spec.routes[0].upstreams[0].weight", "percentage");
	expect_error(call(&r, "{'op':'apply','objects':[" CROUTE("f", "x", "2020-01-01T00:00:00Z",
			      "{'routes':[]}") "]}"),
		     "invalid", "spec.host", "required");
	expect_error(call(&r, "{'op':'apply','objects':[" CROUTE("f", "x", "2020-01-01T00:00:00Z",
			      "{'host':'x.test','strategy':'Cookie','routes':[]}") "]}"),
		     "invalid", "spec.strategy", "RoundRobin");

	/* The draft's example, with health check defaults and override order. */
	APPLY(&r, SVC("finance", "www", 8080) "," EPS("finance", "www", "198.18.10.1") ","
		  SVC("finance", "canarywww", 8080) "," EPS("finance", "canarywww", "198.18.10.2") ","
		  SVC("finance", "tickersvc", 80) "," EPS("finance", "tickersvc", "198.18.10.3") ","
		  CROUTE("finance", "finance-route", "2020-01-01T00:00:00Z",
			 "{'host':'Heptio.test','strategy':'Random','lbHealthCheck':{'path':'/healthz'},"
			 "'routes':[{'pathPrefix':'/','upstreams':["
			 "{'serviceName':'www','servicePort':8080,'weight':80,"
			 "'lbHealthCheck':{'intervalSeconds':1,'path':'/status'}},"
			 "{'serviceName':'canarywww','servicePort':8080}]},"
			 "{'pathPrefix':'/ticker','strategy':'WeightedLeastRequest',"
			 "'upstreams':[{'serviceName':'tickersvc','servicePort':80}]}]}"));
	expect_croute(&r, "finance", "finance-route", "Valid", NULL);
	EXPECT_RESOLVE(&r, "http://heptio.test/ticker/q", "finance/finance-route");
	rep = call(&r, "{'op':'resolve','url':'http://heptio.test/'}");
	assert_string_equal(json_string_value(json_object_get(rep, "kind")), "Route");
	json_decref(rep);
	/* weight is a percentage; the unset upstream gets what is left */
	ASSERT_NEAR(resolve_share(&r, "http://heptio.test/", "www"), 0.8);
	ASSERT_NEAR(resolve_share(&r, "http://heptio.test/", "canarywww"), 0.2);
	/* upstream health check overrides the spec's; draft defaults fill the rest */
	p = pool_for(&r, "heptio.test", "/");
	assert_int_equal(p->strategy, SY_LB_RANDOM);
	assert_string_equal(p->hc->path, "/status");
	assert_int_equal(p->hc->interval_s, 1);
	assert_int_equal(p->hc->timeout_s, 2);
	assert_int_equal(p->hc->unhealthy_threshold, 3);
	assert_int_equal(p->hc->healthy_threshold, 2);
	/* route strategy overrides the spec's; the spec's health check applies */
	p = pool_for(&r, "heptio.test", "/ticker");
	assert_int_equal(p->strategy, SY_LB_WEIGHTED_LEAST_REQUEST);
	assert_string_equal(p->hc->path, "/healthz");
	assert_int_equal(p->hc->interval_s, 5);

	/* Both Route kinds live side by side, apart by apiVersion. */
	APPLY(&r, OSROUTE("finance", "finance-route", "2023-01-01T00:00:00Z", "os.test", "www"));
	rep = call(&r, "{'op':'get','kind':'route','namespace':'finance'}");
	assert_int_equal(json_array_size(json_object_get(rep, "items")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(rep, "items"), 0),
							      "apiVersion")), "route.openshift.io/v1");
	json_decref(rep);
	rep = call(&r, "{'op':'get','kind':'routes.contour.heptio.com','namespace':'finance'}");
	assert_int_equal(json_array_size(json_object_get(rep, "items")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(rep, "items"), 0),
							      "apiVersion")), "contour.heptio.com/v1alpha1");
	json_decref(rep);

	/* Errors: a missing upstream, weights over 100, a younger claim. */
	APPLY(&r, CROUTE("finance", "broken", "2020-02-01T00:00:00Z",
			 "{'host':'broken.test','routes':[{'pathPrefix':'/','upstreams':"
			 "[{'serviceName':'nope','servicePort':80}]}]}") ","
		  CROUTE("finance", "heavy", "2020-02-01T00:00:00Z",
			 "{'host':'heavy.test','routes':[{'pathPrefix':'/','upstreams':"
			 "[{'serviceName':'www','servicePort':8080,'weight':70},"
			 "{'serviceName':'canarywww','servicePort':8080,'weight':40}]}]}") ","
		  CROUTE("other", "copycat", "2021-01-01T00:00:00Z",
			 "{'host':'heptio.test','routes':[{'pathPrefix':'/','upstreams':"
			 "[{'serviceName':'www','servicePort':8080}]}]}"));
	expect_croute(&r, "finance", "broken", "Invalid",
		      "route \"/\": upstream \"nope:80\": Service not found in namespace \"finance\" or "
		      "has no port 80");
	EXPECT_RESOLVE(&r, "http://broken.test/", "(none)");
	expect_croute(&r, "finance", "heavy", "Invalid",
		      "route \"/\": upstream weights add up to 110, more than 100");
	expect_croute(&r, "other", "copycat", "Invalid",
		      "host \"heptio.test\" is claimed by Route finance/finance-route (older)");
	/* an OpenShift Route older than the Contour Route takes the host */
	APPLY(&r, OSROUTE("os", "first", "2019-01-01T00:00:00Z", "heptio.test", "www"));
	expect_croute(&r, "finance", "finance-route", "Invalid",
		      "host \"heptio.test\" is claimed by Route.route.openshift.io os/first (older)");
	EXPECT_RESOLVE(&r, "http://heptio.test/", "os/first");
	router_stop(&r);
}

/* ---------------------------------------------------------- HTTPProxy -- */

/* An HTTPProxy; spec the whole spec. */
#define HP(ns, name, spec)                                                                    \
	"{'apiVersion':'projectcontour.io/v1','kind':'HTTPProxy','metadata':{'name':'" name \
	"','namespace':'" ns "'},'spec':" spec "}"
#define HP_VALID "Valid HTTPProxy"
#define HP_ERRORS "At least one error present, see Errors for details"
#define HP_ORPHANED "this HTTPProxy is not part of a delegation chain from a root HTTPProxy"

/* The proxy's status: currentStatus, and (unless NULL) the one error's
 * reason and message under the Valid condition, as Contour v1.2x writes. */
static void
expect_hp(struct sy_router *r, const char *ns, const char *name, const char *current,
	  const char *reason, const char *message)
{
	json_t *rep = call(r, "{'op':'get','kind':'httpproxy','namespace':'%s','name':'%s'}", ns, name);
	const json_t *st = json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status");
	const json_t *cond = json_array_get(json_object_get(st, "conditions"), 0);
	const json_t *e;
	char *dump = json_dumps(rep, 0);
	size_t i;
	bool found = reason == NULL;

	if (strcmp(json_string_value(json_object_get(st, "currentStatus")) ?: "", current) != 0)
		fail_msg("%s/%s: expected %s, got %s", ns, name, current, dump);
	if (strcmp(current, "valid") == 0) {
		assert_string_equal(json_string_value(json_object_get(st, "description")), HP_VALID);
		assert_string_equal(json_string_value(json_object_get(cond, "type")), "Valid");
		assert_string_equal(json_string_value(json_object_get(cond, "status")), "True");
		assert_string_equal(json_string_value(json_object_get(cond, "message")), HP_VALID);
	} else {
		assert_string_equal(json_string_value(json_object_get(st, "description")),
				    strcmp(current, "orphaned") == 0 ? HP_ORPHANED : HP_ERRORS);
		assert_string_equal(json_string_value(json_object_get(cond, "status")), "False");
		assert_string_equal(json_string_value(json_object_get(cond, "reason")), "ErrorPresent");
	}
	json_array_foreach(json_object_get(cond, "errors"), i, e)
		if (reason != NULL && strcmp(json_string_value(json_object_get(e, "reason")), reason) == 0 &&
		    strcmp(json_string_value(json_object_get(e, "message")), message) == 0)
			found = true;
	if (!found)
		fail_msg("%s/%s: expected error %s \"%s\", got %s", ns, name, reason, message, dump);
	free(dump);
	json_decref(rep);
}

/* resolve's answer for url (the caller's). */
static json_t *
resolve(struct sy_router *r, const char *url, const char *headers)
{
	if (headers != NULL)
		return call(r, "{'op':'resolve','url':'%s','headers':%s}", url, headers);
	return call(r, "{'op':'resolve','url':'%s'}", url);
}

static void
test_hp_apply_include_resolve(void **state)
{
	static const char *const spellings[] = { "httpproxy", "httpproxies", "proxy", "proxies",
						 "HTTPProxy", "httpproxy.projectcontour.io" };
	struct sy_router r;
	json_t *rep;
	size_t i;

	router_start(&r);
	APPLY(&r, SVC("web", "home", 80) "," EPS("web", "home", "198.18.2.10") ","
		  SVC("blog", "posts", 80) "," EPS("blog", "posts", "198.18.2.11") ","
		  HP("web", "root", "{'virtualhost':{'fqdn':'Www.HP.test'},"
				    "'includes':[{'name':'blog','namespace':'blog','conditions':[{'prefix':'/blog'}]}],"
				    "'routes':[{'services':[{'name':'home','port':80}]}]}") ","
		  HP("blog", "blog", "{'routes':[{'conditions':[{'prefix':'/'}],"
				     "'pathRewritePolicy':{'replacePrefix':[{'replacement':'/'}]},"
				     "'services':[{'name':'posts','port':80}]},"
				     "{'conditions':[{'prefix':'/admin'}],'services':[{'name':'posts','port':80}],"
				     "'requestHeadersPolicy':{'set':[{'name':'X-Admin','value':'1'}],'remove':['Cookie']}}]}"));
	for (i = 0; i < sizeof(spellings) / sizeof(spellings[0]); i++) {
		rep = call(&r, "{'op':'get','kind':'%s'}", spellings[i]);
		assert_true(reply_ok(rep));
		assert_string_equal(json_string_value(json_object_get(rep, "kind")), "HTTPProxy");
		assert_int_equal(json_array_size(json_object_get(rep, "items")), 2);
		json_decref(rep);
	}
	expect_hp(&r, "web", "root", "valid", NULL, NULL);
	expect_hp(&r, "blog", "blog", "valid", NULL, NULL);
	/* the include's prefix comes before the child's routes */
	EXPECT_RESOLVE(&r, "http://www.hp.test/blog/2020", "blog/blog");
	EXPECT_RESOLVE(&r, "http://www.hp.test/blog", "blog/blog");
	EXPECT_RESOLVE(&r, "http://www.hp.test/blogs", "web/root");
	EXPECT_RESOLVE(&r, "http://www.hp.test/", "web/root");
	rep = resolve(&r, "http://www.hp.test/blog/2020", NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "kind")), "HTTPProxy");
	assert_string_equal(json_string_value(json_object_get(json_object_get(rep, "rule"), "path")),
			    "/blog");
	{
		char *d = json_dumps(json_object_get(rep, "filters"), JSON_COMPACT);

		/* the whole matched prefix, the include's with it, is replaced */
		assert_non_null(strstr(d, "pathRewritePolicy(\\\"/blog\\\", \\\"/\\\")"));
		free(d);
	}
	json_decref(rep);
	rep = resolve(&r, "http://www.hp.test/blog/admin/x", NULL);
	assert_string_equal(json_string_value(json_object_get(json_object_get(rep, "rule"), "path")),
			    "/blog/admin");
	{
		char *d = json_dumps(json_object_get(rep, "filters"), JSON_COMPACT);

		assert_non_null(strstr(d, "requestHeadersPolicy.set(\\\"X-Admin\\\", \\\"1\\\")"));
		assert_non_null(strstr(d, "requestHeadersPolicy.remove(\\\"Cookie\\\")"));
		assert_null(strstr(d, "pathRewritePolicy"));
		free(d);
	}
	json_decref(rep);
	/* the child without its root: orphaned, and nothing served */
	rep = call(&r, "{'op':'delete','kind':'proxy','namespace':'web','name':'root'}");
	assert_true(reply_ok(rep));
	json_decref(rep);
	expect_hp(&r, "blog", "blog", "orphaned", "Orphaned", HP_ORPHANED);
	EXPECT_RESOLVE(&r, "http://www.hp.test/blog/2020", "(none)");
	router_stop(&r);
}

static void
test_hp_validation(void **state)
{
	struct sy_router r;

#define HP_REFUSED(spec, field, part)                                                      \
	expect_error(call(&r, "{'op':'apply','objects':[" HP("a", "x", spec) "]}"), "invalid", \
		     field, part)
	router_start(&r);
	HP_REFUSED("{'routes':[{'conditions':[{'prefx':'/'}],'services':[{'name':'s','port':80}]}]}",
		   "spec.routes[0].conditions[0]", "unknown field \"prefx\"");
	HP_REFUSED("{'routes':[{'conditions':[{'prefix':'api'}],'services':[{'name':'s','port':80}]}]}",
		   "spec.routes[0].conditions[0].prefix", "must start with /, \"api\" was supplied");
	HP_REFUSED("{'includes':[{'name':'c','conditions':[{'prefix':'api'}]}]}",
		   "spec.includes[0].conditions[0].prefix", "must start with /");
	HP_REFUSED("{'routes':[{'conditions':[{'regex':'/a(b'}],'services':[{'name':'s','port':80}]}]}",
		   "spec.routes[0].conditions[0].regex", "\"/a(b\" is not a valid regex");
	HP_REFUSED("{'routes':[{'conditions':[{'queryParameter':{'name':'q','regex':'[x'}}],"
		   "'services':[{'name':'s','port':80}]}]}",
		   "spec.routes[0].conditions[0].queryParameter.regex", "not a valid regex");
	HP_REFUSED("{'routes':[{'services':[{'name':'s','port':80,'weight':-1}]}]}",
		   "spec.routes[0].services[0].weight", "greater than or equal to zero");
	HP_REFUSED("{'routes':[{'services':[{'name':'s','port':70000}]}]}",
		   "spec.routes[0].services[0].port", "between 1 and 65535");
	HP_REFUSED("{'routes':[{'services':[{'name':'s','port':0}]}]}",
		   "spec.routes[0].services[0].port", "between 1 and 65535");
	HP_REFUSED("{'routes':[{'conditions':[{'prefix':'/a'},{'prefix':'/b'}],"
		   "'services':[{'name':'s','port':80}]}]}",
		   "spec.routes[0].conditions", "more than one prefix");
	HP_REFUSED("{'routes':[{'conditions':[{'header':{'name':'x','exact':'a','contains':'b'}}],"
		   "'services':[{'name':'s','port':80}]}]}",
		   "spec.routes[0].conditions[0].header", "exactly one of");
	HP_REFUSED("{'routes':[{'conditions':[{'header':{'name':'x','regex':'a'}}],"
		   "'services':[{'name':'s','port':80}]}]}",
		   "spec.routes[0].conditions[0].header", "unknown field \"regex\"");
	HP_REFUSED("{'routes':[{'loadBalancerPolicy':{'strategy':'Fastest'},"
		   "'services':[{'name':'s','port':80}]}]}",
		   "spec.routes[0].loadBalancerPolicy.strategy", "not \"Fastest\"");
	HP_REFUSED("{'routes':[{'timeoutPolicy':{'response':'soon'},'services':[{'name':'s','port':80}]}]}",
		   "spec.routes[0].timeoutPolicy.response", "not \"soon\"");
	HP_REFUSED("{'routes':[{'healthCheckPolicy':{'intervalSeconds':5},'services':[{'name':'s','port':80}]}]}",
		   "spec.routes[0].healthCheckPolicy.path", "required");
	HP_REFUSED("{'routes':[{'services':[{'name':'s','port':80,'mirror':true},"
		   "{'name':'t','port':80,'mirror':true}]}]}",
		   "spec.routes[0].services", "only one service per route may be nominated as mirror");
	HP_REFUSED("{'virtualhost':{'fqdn':'x.test','tls':{'secretName':'s','minimumProtocolVersion':'1.1'}},"
		   "'routes':[]}",
		   "spec.virtualhost.tls.minimumProtocolVersion", "\"1.2\" or \"1.3\"");
	HP_REFUSED("{'routes':[{'pathRewritePolicy':{'replacePrefix':[{'replacement':'x'}]},"
		   "'services':[{'name':'s','port':80}]}]}",
		   "spec.routes[0].pathRewritePolicy.replacePrefix[0].replacement", "starting with");
	HP_REFUSED("{'routes':[{'responseHeadersPolicy':{'set':[{'name':'Host','value':'x'}]},"
		   "'services':[{'name':'s','port':80}]}]}",
		   "spec.routes[0].responseHeadersPolicy.set[0].name", "Host");
#undef HP_REFUSED
	router_stop(&r);
}

static void
test_hp_statuses(void **state)
{
	struct sy_router r;
	json_t *rep;

	router_start(&r);
	APPLY(&r, SVC("roots", "kuard", 8080) "," EPS("roots", "kuard", "198.18.3.1") ","
		  /* fqdn on two roots: both invalid */
		  HP("roots", "a", "{'virtualhost':{'fqdn':'dup.test'},'routes':[{'services':[{'name':'kuard','port':8080}]}]}") ","
		  HP("roots", "b", "{'virtualhost':{'fqdn':'DUP.test'},'routes':[{'services':[{'name':'kuard','port':8080}]}]}") ","
		  /* include of a missing proxy: 502 on its conditions, the rest served */
		  HP("roots", "missing", "{'virtualhost':{'fqdn':'missing.test'},"
					 "'includes':[{'name':'nope','conditions':[{'prefix':'/x'}]}],"
					 "'routes':[{'services':[{'name':'kuard','port':8080}]}]}") ","
		  /* a root including a root */
		  HP("roots", "rr", "{'virtualhost':{'fqdn':'rr.test'},'includes':[{'name':'a'}]}") ","
		  /* a cycle: parent -> child -> child */
		  HP("roots", "parent", "{'virtualhost':{'fqdn':'cycle.test'},"
					"'includes':[{'name':'child','conditions':[{'prefix':'/foo'}]}]}") ","
		  HP("roots", "child", "{'includes':[{'name':'child','conditions':[{'prefix':'/bar'}]}],"
				       "'routes':[{'services':[{'name':'kuard','port':8080}]}]}") ","
		  HP("roots", "blank", "{'virtualhost':{'fqdn':' '},'routes':[{'services':[{'name':'kuard','port':8080}]}]}") ","
		  HP("roots", "empty", "{'virtualhost':{'fqdn':'empty.test'}}") ","
		  HP("roots", "nosvc", "{'virtualhost':{'fqdn':'nosvc.test'},"
				       "'routes':[{'services':[{'name':'home','port':8080}]}]}") ","
		  HP("roots", "badport", "{'virtualhost':{'fqdn':'badport.test'},"
					 "'routes':[{'services':[{'name':'kuard','port':9999}]}]}") ","
		  HP("roots", "dupinc", "{'virtualhost':{'fqdn':'dupinc.test'},'includes':["
					"{'name':'child','conditions':[{'prefix':'/a'}]},"
					"{'name':'other','conditions':[{'prefix':'/a'}]}]}") ","
		  HP("roots", "lonely", "{'routes':[{'services':[{'name':'kuard','port':8080}]}]}"));
	expect_hp(&r, "roots", "a", "invalid", "DuplicateVhost",
		  "fqdn \"dup.test\" is used in multiple HTTPProxies: roots/a, roots/b");
	expect_hp(&r, "roots", "b", "invalid", "DuplicateVhost",
		  "fqdn \"dup.test\" is used in multiple HTTPProxies: roots/a, roots/b");
	EXPECT_RESOLVE(&r, "http://dup.test/", "(none)");
	expect_hp(&r, "roots", "missing", "invalid", "IncludeNotFound", "include roots/nope not found");
	rep = resolve(&r, "http://missing.test/x/y", NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "static");
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 502);
	json_decref(rep);
	EXPECT_RESOLVE(&r, "http://missing.test/", "roots/missing");
	expect_hp(&r, "roots", "rr", "invalid", "RootIncludesRoot",
		  "root httpproxy cannot include another root httpproxy");
	expect_hp(&r, "roots", "parent", "valid", NULL, NULL);
	expect_hp(&r, "roots", "child", "invalid", "IncludeCreatesCycle",
		  "include creates an include cycle: roots/parent -> roots/child -> roots/child");
	expect_hp(&r, "roots", "blank", "invalid", "FQDNNotSpecified",
		  "Spec.VirtualHost.Fqdn must be specified");
	expect_hp(&r, "roots", "empty", "invalid", "NothingDefined",
		  "HTTPProxy.Spec must have at least one Route, Include, or a TCPProxy");
	expect_hp(&r, "roots", "nosvc", "invalid", "ServiceUnresolvedReference",
		  "Spec.Routes unresolved service reference: service \"roots/home\" not found");
	rep = resolve(&r, "http://nosvc.test/", NULL);
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 503);
	json_decref(rep);
	expect_hp(&r, "roots", "badport", "invalid", "ServiceUnresolvedReference",
		  "Spec.Routes unresolved service reference: port \"9999\" on service \"roots/kuard\" "
		  "not matched");
	expect_hp(&r, "roots", "dupinc", "invalid", "DuplicateMatchConditions",
		  "duplicate conditions defined on an include");
	expect_hp(&r, "roots", "lonely", "orphaned", "Orphaned", HP_ORPHANED);
	router_stop(&r);
	/* roots only in the listed namespaces */
	router_start_with(&r, "{\"ingressroute_root_namespaces\": [\"roots\"]}");
	APPLY(&r, SVC("apps", "kuard", 8080) ","
		  HP("apps", "outside", "{'virtualhost':{'fqdn':'outside.test'},"
					"'routes':[{'services':[{'name':'kuard','port':8080}]}]}"));
	expect_hp(&r, "apps", "outside", "invalid", "RootProxyNotAllowedInNamespace",
		  "root HTTPProxy cannot be defined in this namespace");
	EXPECT_RESOLVE(&r, "http://outside.test/", "(none)");
	router_stop(&r);
}

static void
test_hp_weights_policies(void **state)
{
	struct sy_router r;
	const struct sy_pool *pool;
	json_t *rep;

	router_start(&r);
	APPLY(&r, SVC("w", "s1", 80) "," EPS("w", "s1", "198.18.4.1") ","
		  SVC("w", "s2", 80) "," EPS("w", "s2", "198.18.4.2") ","
		  SVC("w", "s3", 80) "," EPS("w", "s3", "198.18.4.3") ","
		  HP("w", "split", "{'virtualhost':{'fqdn':'split.test'},'routes':["
				   "{'services':[{'name':'s1','port':80,'weight':80},{'name':'s2','port':80,'weight':20},"
				   "{'name':'s3','port':80}]},"
				   "{'conditions':[{'prefix':'/even'}],'services':[{'name':'s1','port':80},{'name':'s2','port':80}]},"
				   "{'conditions':[{'prefix':'/lb'}],'loadBalancerPolicy':{'strategy':'WeightedLeastRequest'},"
				   "'timeoutPolicy':{'response':'1500ms'},"
				   "'healthCheckPolicy':{'path':'/healthz','intervalSeconds':7},"
				   "'services':[{'name':'s1','port':80},{'name':'s3','port':80,'mirror':true,'weight':10}]},"
				   "{'conditions':[{'exact':'/exact'}],'services':[{'name':'s3','port':80}]}]}"));
	expect_hp(&r, "w", "split", "valid", NULL, NULL);
	/* Contour weightedClusters: with weights set, an unset one gets none */
	ASSERT_NEAR(resolve_share(&r, "http://split.test/", "s1"), 0.8);
	ASSERT_NEAR(resolve_share(&r, "http://split.test/", "s2"), 0.2);
	/* none set: equal */
	ASSERT_NEAR(resolve_share(&r, "http://split.test/even", "s1"), 0.5);
	ASSERT_NEAR(resolve_share(&r, "http://split.test/even", "s2"), 0.5);
	pool = pool_for(&r, "split.test", "/lb/x");
	assert_int_equal(pool->strategy, SY_LB_WEIGHTED_LEAST_REQUEST);
	assert_non_null(pool->hc);
	assert_string_equal(pool->hc->path, "/healthz");
	assert_int_equal(pool->hc->interval_s, 7);
	/* the mirror gets no traffic of its own, and a copy of a tenth of
	 * the requests (its weight: the percentage mirrored) */
	rep = resolve(&r, "http://split.test/lb/x", NULL);
	{
		char *d = json_dumps(json_object_get(rep, "services"), JSON_COMPACT);
		const json_t *m = json_array_get(json_object_get(rep, "mirrors"), 0);

		assert_null(strstr(d, "\"s3\""));
		free(d);
		assert_non_null(m);
		ASSERT_NEAR(json_real_value(json_object_get(m, "share")), 0.1);
		d = json_dumps(json_object_get(m, "endpoints"), JSON_COMPACT);
		assert_non_null(strstr(d, "198.18.4.3"));
		free(d);
	}
	json_decref(rep);
	{
		struct sy_generation *g = sy_gen_acquire(&r.slot);
		const struct sy_vhost *vh = sy_gen_find_vhost(g, "split.test", 10);
		const struct sy_rule *rule = sy_vhost_match_path(vh, "/lb/x", 5);

		assert_non_null(rule->more);
		assert_int_equal(rule->more->server_timeout_ms, 1500);
	}
	EXPECT_RESOLVE(&r, "http://split.test/exact", "w/split");
	rep = resolve(&r, "http://split.test/exact/no", NULL);
	assert_string_equal(json_string_value(json_object_get(json_object_get(rep, "rule"), "path")), "/");
	json_decref(rep);
	router_stop(&r);
}

/* A rule of host h matching path p, in the current generation. */
static const struct sy_rule *
rule_at(struct sy_router *r, struct sy_generation **g, const char *h, const char *p)
{
	const struct sy_vhost *vh;

	*g = sy_gen_acquire(&r->slot);
	vh = sy_gen_find_vhost(*g, h, strlen(h));
	assert_non_null(vh);
	return sy_vhost_match_path(vh, p, strlen(p));
}

/*
 * timeoutPolicy.idle and retryPolicy.perTryTimeout reach the rule (Envoy's
 * route idle_timeout and per_try_timeout, applied by the proxy): ms, 0 for
 * "infinity" and "0s" (Contour: as if unset); either takes the proxy mode;
 * a perTryTimeout keeps the retry count even when retryOn names nothing
 * the proxy reads (Envoy retries a per-try timeout whatever retryOn says).
 */
static void
test_hp_idle_per_try(void **state)
{
	struct sy_router r;
	struct sy_generation *g;
	const struct sy_rule *rule;
	json_t *rep, *retry;

	(void)state;
	router_start(&r);
	APPLY(&r, SVC("w", "s1", 80) "," EPS("w", "s1", "198.18.4.1") ","
		  HP("w", "tp", "{'virtualhost':{'fqdn':'tp.test'},'routes':["
				"{'conditions':[{'prefix':'/idle'}],'timeoutPolicy':{'response':'5s','idle':'2s'},"
				"'services':[{'name':'s1','port':80}]},"
				"{'conditions':[{'prefix':'/try'}],'retryPolicy':{'count':2,'perTryTimeout':'1500ms'},"
				"'services':[{'name':'s1','port':80}]},"
				"{'conditions':[{'prefix':'/reset'}],'retryPolicy':{'perTryTimeout':'1m','retryOn':['reset']},"
				"'services':[{'name':'s1','port':80}]},"
				"{'services':[{'name':'s1','port':80}]}]}") ","
		  HP("w", "inf", "{'virtualhost':{'fqdn':'inf.test'},'routes':["
				 "{'timeoutPolicy':{'idle':'infinity'},'retryPolicy':{'perTryTimeout':'0s','retryOn':['reset']},"
				 "'services':[{'name':'s1','port':80}]}]}"));
	expect_hp(&r, "w", "tp", "valid", NULL, NULL);
	expect_hp(&r, "w", "inf", "valid", NULL, NULL);

	rule = rule_at(&r, &g, "tp.test", "/idle/x");
	assert_non_null(rule->more);
	assert_int_equal(rule->more->idle_timeout_ms, 2000);
	assert_int_equal(rule->more->server_timeout_ms, 5000);
	assert_int_equal(rule->more->per_try_timeout_ms, 0);
	rule = sy_vhost_match_path(sy_gen_find_vhost(g, "tp.test", 7), "/try", 4);
	assert_non_null(rule->more);
	assert_int_equal(rule->more->per_try_timeout_ms, 1500);
	assert_int_equal(rule->more->retry_count, 2);
	assert_int_equal(rule->more->retry_on, SY_RETRY_5XX);
	assert_int_equal(rule->more->idle_timeout_ms, 0);
	rule = sy_vhost_match_path(sy_gen_find_vhost(g, "tp.test", 7), "/reset", 6);
	assert_non_null(rule->more);
	assert_int_equal(rule->more->per_try_timeout_ms, 60000);
	assert_int_equal(rule->more->retry_count, 1); /* Contour's default count */
	assert_int_equal(rule->more->retry_on, 0);
	/* "infinity" and "0s": nothing for the proxy, the vhost may splice */
	rule = sy_vhost_match_path(sy_gen_find_vhost(g, "inf.test", 8), "/", 1);
	assert_true(rule->more == NULL ||
		    (rule->more->idle_timeout_ms == 0 && rule->more->per_try_timeout_ms == 0 &&
		     rule->more->retry_count == 0));

	rep = resolve(&r, "http://tp.test/idle", NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "mode")), "proxy");
	assert_int_equal(json_integer_value(json_object_get(rep, "idle_timeout_ms")), 2000);
	assert_null(json_object_get(rep, "retry"));
	json_decref(rep);
	rep = resolve(&r, "http://tp.test/try", NULL);
	retry = json_object_get(rep, "retry");
	assert_non_null(retry);
	assert_int_equal(json_integer_value(json_object_get(retry, "per_try_timeout_ms")), 1500);
	assert_int_equal(json_integer_value(json_object_get(retry, "count")), 2);
	assert_null(json_object_get(rep, "idle_timeout_ms"));
	json_decref(rep);
	rep = resolve(&r, "http://inf.test/", NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "mode")), "splice");
	assert_null(json_object_get(rep, "retry"));
	assert_null(json_object_get(rep, "idle_timeout_ms"));
	json_decref(rep);
	router_stop(&r);
}

static void
test_hp_tls(void **state)
{
	struct sy_router r;
	const struct sy_vhost *vh;
	json_t *rep;

	router_start(&r);
	APPLYF(&r, SVC("t", "app", 80) "," EPS("t", "app", "198.18.8.1") ","
		   TLS_SECRET("t", "good", "%s", "%s") ","
		   HP("t", "secure", "{'virtualhost':{'fqdn':'secure.test','tls':{'secretName':'good'}},"
				     "'routes':[{'services':[{'name':'app','port':80}]},"
				     "{'conditions':[{'prefix':'/open'}],'permitInsecure':true,"
				     "'services':[{'name':'app','port':80}]}]}") ","
		   HP("t", "tls13", "{'virtualhost':{'fqdn':'tls13.test','tls':{'secretName':'good',"
				    "'minimumProtocolVersion':'1.3'}},'routes':[{'services':[{'name':'app','port':80}]}]}") ","
		   HP("t", "nosecret", "{'virtualhost':{'fqdn':'open.test','tls':{'secretName':'gone'}},"
				       "'routes':[{'services':[{'name':'app','port':80}]}]}") ","
		   HP("t", "foreign", "{'virtualhost':{'fqdn':'open.test','tls':{'secretName':'other/good'}},"
				      "'routes':[{'services':[{'name':'app','port':80}]}]}") ","
		   HP("t", "both", "{'virtualhost':{'fqdn':'malformed.test','tls':{'secretName':'good','passthrough':true}},"
				   "'routes':[{'services':[{'name':'app','port':80}]}]}") ","
		   HP("t", "mtls", "{'virtualhost':{'fqdn':'malformed.test','tls':{'secretName':'good',"
				   "'clientValidation':{'caSecret':'ca'}}},'routes':[{'services':[{'name':'app','port':80}]}]}") ","
		   HP("t", "pass", "{'virtualhost':{'fqdn':'pass.test','tls':{'passthrough':true}},"
				   "'tcpproxy':{'services':[{'name':'app','port':80}]}}") ","
		   HP("t", "plaintcp", "{'virtualhost':{'fqdn':'plain.test'},"
				       "'tcpproxy':{'services':[{'name':'app','port':80}]}}"),
	       crt_b64, key_b64);
	expect_hp(&r, "t", "secure", "valid", NULL, NULL);
	vh = vhost(&r, "secure.test");
	assert_non_null(vh);
	assert_int_equal(vh->tls, SY_TLS_EDGE);
	assert_string_equal(vh->term->secret, "t/good");
	/* v1's default minimum is TLS 1.2 */
	assert_int_equal(vh->min_tls_version, 0x0303);
	assert_int_equal(vhost(&r, "tls13.test")->min_tls_version, 0x0304);
	/* plain HTTP: 301 to https, unless the route permits it */
	rep = resolve(&r, "http://secure.test/x", NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "redirect");
	assert_int_equal(json_integer_value(json_object_get(rep, "status")), 301);
	json_decref(rep);
	rep = resolve(&r, "http://secure.test/open/x", NULL);
	assert_string_equal(json_string_value(json_object_get(rep, "action")), "backend");
	json_decref(rep);
	expect_hp(&r, "t", "nosecret", "invalid", "DuplicateVhost",
		  "fqdn \"open.test\" is used in multiple HTTPProxies: t/foreign, t/nosecret");
	expect_hp(&r, "t", "both", "invalid", "DuplicateVhost",
		  "fqdn \"malformed.test\" is used in multiple HTTPProxies: t/both, t/mtls");
	assert_int_equal(vhost(&r, "pass.test")->tls, SY_TLS_PASSTHROUGH);
	expect_hp(&r, "t", "pass", "valid", NULL, NULL);
	expect_hp(&r, "t", "plaintcp", "invalid", "TLSMustBeConfigured",
		  "Spec.TCPProxy requires that either Spec.TLS.Passthrough or Spec.TLS.SecretName be set");
	/* one at a time, each its own error */
	rep = call(&r, "{'op':'delete','kind':'httpproxy','namespace':'t','name':'foreign'}");
	json_decref(rep);
	rep = call(&r, "{'op':'delete','kind':'httpproxy','namespace':'t','name':'mtls'}");
	json_decref(rep);
	expect_hp(&r, "t", "nosecret", "invalid", "SecretNotValid",
		  "Spec.VirtualHost.TLS Secret \"gone\" is invalid: Secret not found");
	expect_hp(&r, "t", "both", "invalid", "TLSConfigNotValid",
		  "Spec.VirtualHost.TLS: both Passthrough and SecretName were specified");
	rep = call(&r, "{'op':'delete','kind':'httpproxy','namespace':'t','name':'nosecret'}");
	json_decref(rep);
	rep = call(&r, "{'op':'delete','kind':'httpproxy','namespace':'t','name':'both'}");
	json_decref(rep);
	APPLY(&r, HP("t", "foreign", "{'virtualhost':{'fqdn':'open.test','tls':{'secretName':'other/good'}},"
				     "'routes':[{'services':[{'name':'app','port':80}]}]}") ","
		  HP("t", "mtls", "{'virtualhost':{'fqdn':'malformed.test','tls':{'secretName':'good',"
				  "'clientValidation':{'caSecret':'ca'}}},'routes':[{'services':[{'name':'app','port':80}]}]}"));
	expect_hp(&r, "t", "foreign", "invalid", "SecretNotValid",
		  "Spec.VirtualHost.TLS Secret \"other/good\" is invalid: Secret not found");
	expect_hp(&r, "t", "mtls", "invalid", "ClientValidationInvalid",
		  "Spec.VirtualHost.TLS client validation is invalid: invalid CA Secret \"t/ca\": "
		  "Secret not found");
	EXPECT_RESOLVE(&r, "https://malformed.test/", "(none)");
	/* an Opaque Secret whose ca.crt is not PEM, then one that is */
	APPLY(&r, "{'apiVersion':'v1','kind':'Secret','metadata':{'name':'ca','namespace':'t'},"
		  "'type':'Opaque','data':{'ca.crt':'bm90IGEgY2VydA=='}}");
	expect_hp(&r, "t", "mtls", "invalid", "ClientValidationInvalid",
		  "Spec.VirtualHost.TLS client validation is invalid: invalid CA Secret \"t/ca\": "
		  "invalid CA certificate bundle: failed to locate certificate");
	APPLYF(&r, "{'apiVersion':'v1','kind':'Secret','metadata':{'name':'ca','namespace':'t'},"
		   "'type':'Opaque','data':{'ca.crt':'%s'}}", crt_b64);
	expect_hp(&r, "t", "mtls", "valid", NULL, NULL);
	vh = vhost(&r, "malformed.test");
	assert_non_null(vh);
	assert_true(vh->term->client_ca);
	/* its own context: a certificate required, these CAs asked for */
	assert_int_equal(SSL_CTX_get_verify_mode(vh->term->ctx),
			 SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT);
	assert_int_equal(sk_X509_NAME_num(SSL_CTX_get_client_CA_list(vh->term->ctx)), 1);
	assert_ptr_not_equal(vh->term->ctx, vhost(&r, "secure.test")->term->ctx);
	assert_false(vhost(&r, "secure.test")->term->client_ca);
	/* what is not done is refused, not ignored */
	expect_error(call(&r, "{'op':'apply','objects':[" HP("t", "skip", "{'virtualhost':{'fqdn':"
		     "'skip.test','tls':{'secretName':'good','clientValidation':{'caSecret':'ca',"
		     "'skipClientCertValidation':true}}},'routes':[]}") "]}"),
		     "invalid", "spec.virtualhost.tls.clientValidation",
		     "\"skipClientCertValidation\" is not supported");
	router_stop(&r);
}

/* Against another kind's older claim of the host, the root says who has it. */
static void
test_hp_displaced(void **state)
{
	struct sy_router r;

	router_start(&r);
	APPLY(&r, SVC("os", "www", 8080) "," SVC("c", "www", 8080) ","
		  OSROUTE("os", "first", "2019-01-01T00:00:00Z", "taken.test", "www") ","
		  "{'apiVersion':'projectcontour.io/v1','kind':'HTTPProxy','metadata':{'name':'late',"
		  "'namespace':'c','creationTimestamp':'2021-01-01T00:00:00Z'},'spec':{'virtualhost':"
		  "{'fqdn':'taken.test'},'routes':[{'services':[{'name':'www','port':8080}]}]}}");
	expect_hp(&r, "c", "late", "invalid", "DuplicateVhost",
		  "fqdn \"taken.test\" is claimed by Route os/first (older)");
	EXPECT_RESOLVE(&r, "http://taken.test/", "os/first");
	router_stop(&r);
}

int
main(void)
{
	int rc;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ir_apply_get_resolve, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_ir_schema_validation, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_ir_status_strings, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_ir_root_namespaces, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_ir_dag, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_ir_weights_canary_bluegreen, fresh_state,
						remove_state),
		cmocka_unit_test_setup_teardown(test_ir_tls, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_cross_kind_claims, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_route_contour, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_hp_apply_include_resolve, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_hp_validation, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_hp_statuses, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_hp_weights_policies, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_hp_idle_per_try, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_hp_tls, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_hp_displaced, fresh_state, remove_state),
	};

	if (sy_test_eal_init("test_contour") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
