/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "Oldest claim wins" follows the order the router accepted objects in, also
 * within one second (control/age.h). For each conflict family, 200 rounds on
 * fresh state: two competing objects applied back to back (two applies, or
 * both in one apply in that order), the first must own what they compete for,
 * as `resolve` reports it, and again after a restart from the journal. The
 * two swap roles every round, so no order by name or namespace can pass.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "age.h"
#include "test_eal.h"
#include "test_router.h"

#define ROUNDS 200

/* Tests write JSON with single quotes; this turns them into double ones. */
static char *
dq(const char *s)
{
	char *d = strdup(s), *p;

	assert_non_null(d);
	for (p = d; *p; p++)
		if (*p == '\'')
			*p = '"';
	return d;
}

static void
apply(struct sy_router *r, const char *objs)
{
	char *d = dq(objs);

	ops_apply_ok(r, d);
	free(d);
}

static void
call_ok(struct sy_router *r, const char *req)
{
	char *d = dq(req);
	json_t *rep = ops_call(r, d);

	assert_true(reply_ok(rep));
	json_decref(rep);
	free(d);
}

struct family {
	const char *name;
	const char *config;
	const char *url;        /* what they compete for */
	const char *x, *x_id;   /* an object and the "ns/name" resolve gives for it */
	const char *y, *y_id;
	const char *owner;      /* applied before both, then removed or moved: re-admission */
	const char *owner_after; /* the request that removes or moves it */
};

#define ROUTE(ns, name, spec)                                                           \
	"{'apiVersion':'route.openshift.io/v1','kind':'Route','metadata':{'name':'" name \
	"','namespace':'" ns "'},'spec':" spec "}"
#define TO_S "'to':{'kind':'Service','name':'s'}"

static const struct family families[] = {
	{ "host claim, OpenShift Routes in two namespaces", "{}", "http://h.test/",
	  ROUTE("a", "r1", "{'host':'h.test'," TO_S "}"), "a/r1",
	  ROUTE("b", "r2", "{'host':'h.test'," TO_S "}"), "b/r2" },
	{ "equal paths within a namespace", "{}", "http://h.test/p",
	  ROUTE("a", "r1", "{'host':'h.test','path':'/p'," TO_S "}"), "a/r1",
	  ROUTE("a", "r2", "{'host':'h.test','path':'/p'," TO_S "}"), "a/r2" },
	{ "across kinds: OpenShift Route and IngressRoute root", "{}", "http://h.test/",
	  ROUTE("a", "r1", "{'host':'h.test'," TO_S "}"), "a/r1",
	  "{'apiVersion':'contour.heptio.com/v1beta1','kind':'IngressRoute','metadata':{'name':'ir',"
	  "'namespace':'b'},'spec':{'virtualhost':{'fqdn':'h.test'},'routes':[{'match':'/',"
	  "'services':[{'name':'s','port':80}]}]}}",
	  "b/ir" },
	{ "across kinds: OpenShift Route and RouteGroup", "{}", "http://h.test/",
	  ROUTE("a", "r1", "{'host':'h.test'," TO_S "}"), "a/r1",
	  "{'apiVersion':'zalando.org/v1','kind':'RouteGroup','metadata':{'name':'g','namespace':'b'},"
	  "'spec':{'hosts':['h.test'],'backends':[{'name':'s','type':'service','serviceName':'s',"
	  "'servicePort':80}],'defaultBackends':[{'backendName':'s'}]}}",
	  "b/g" },
	{ "wildcard claim against a host under it", "{'allow_wildcard_routes': true}",
	  "http://x.h.test/",
	  ROUTE("a", "w", "{'host':'www.h.test','wildcardPolicy':'Subdomain'," TO_S "}"), "a/w",
	  ROUTE("b", "e", "{'host':'x.h.test'," TO_S "}"), "b/e" },
	{ "Contour Routes (v1alpha1) sharing a host", "{}", "http://h.test/",
	  "{'apiVersion':'contour.heptio.com/v1alpha1','kind':'Route','metadata':{'name':'c1',"
	  "'namespace':'a'},'spec':{'host':'h.test','routes':[{'pathPrefix':'/','upstreams':"
	  "[{'serviceName':'s','servicePort':80}]}]}}",
	  "a/c1",
	  "{'apiVersion':'contour.heptio.com/v1alpha1','kind':'Route','metadata':{'name':'c2',"
	  "'namespace':'b'},'spec':{'host':'h.test','routes':[{'pathPrefix':'/','upstreams':"
	  "[{'serviceName':'s','servicePort':80}]}]}}",
	  "b/c2" },
	{ "re-admission after the owner is deleted", "{}", "http://h.test/",
	  ROUTE("a", "r1", "{'host':'h.test'," TO_S "}"), "a/r1",
	  ROUTE("b", "r2", "{'host':'h.test'," TO_S "}"), "b/r2",
	  ROUTE("o", "owner", "{'host':'h.test'," TO_S "}"),
	  "{'op':'delete','kind':'route','namespace':'o','name':'owner'}" },
	{ "re-admission after the owner changes host", "{}", "http://h.test/",
	  ROUTE("a", "r1", "{'host':'h.test'," TO_S "}"), "a/r1",
	  ROUTE("b", "r2", "{'host':'h.test'," TO_S "}"), "b/r2",
	  ROUTE("o", "owner", "{'host':'h.test'," TO_S "}"),
	  "{'op':'apply','objects':[" ROUTE("o", "owner", "{'host':'elsewhere.test'," TO_S "}") "]}" },
};

static void
start(struct sy_router *r, const struct family *f)
{
	char *cfg = dq(f->config);

	router_start_with(r, cfg);
	free(cfg);
}

static void
expect_owner(struct sy_router *r, const struct family *f, const char *want, unsigned round,
	     const char *when)
{
	char got[128];

	ops_resolve_object(r, f->url, got, sizeof(got));
	if (strcmp(got, want) != 0)
		fail_msg("%s, round %u (%s): %s is served by %s, but %s was applied first", f->name,
			 round, when, f->url, got, want);
}

static void
test_first_claim_wins(void **state)
{
	size_t k;
	unsigned i;

	(void)state;
	for (k = 0; k < sizeof(families) / sizeof(families[0]); k++) {
		const struct family *f = &families[k];

		for (i = 0; i < ROUNDS; i++) {
			/* Odd rounds swap the two; rounds 2-3 of every 4 send
			 * both in one apply, in that order. */
			const char *first = i & 1 ? f->y : f->x, *second = i & 1 ? f->x : f->y;
			const char *want = i & 1 ? f->y_id : f->x_id;
			struct sy_router r;

			assert_int_equal(fresh_state(NULL), 0);
			start(&r, f);
			/* What they point at, so every claimant is valid. */
			ops_apply_ok(&r, T_SVC("a", "s") "," T_EPS("a", "s", "198.18.9.1") ","
					 T_SVC("b", "s") "," T_EPS("b", "s", "198.18.9.2") ","
					 T_SVC("o", "s") "," T_EPS("o", "s", "198.18.9.3"));
			if (f->owner)
				apply(&r, f->owner);
			if (i & 2) {
				char *both = NULL;

				assert_true(asprintf(&both, "%s,%s", first, second) > 0);
				apply(&r, both);
				free(both);
			} else {
				apply(&r, first);
				apply(&r, second);
			}
			if (f->owner_after)
				call_ok(&r, f->owner_after);
			expect_owner(&r, f, want, i, "live");
			router_stop(&r);
			/* The journal keeps the order. */
			start(&r, f);
			expect_owner(&r, f, want, i, "after a restart from the journal");
			router_stop(&r);
			assert_int_equal(remove_state(NULL), 0);
		}
	}
}

/* Objects that bring their own age keep it: RouteLessThan's order. */
static void
test_imported_age_kept(void **state)
{
	struct sy_router r;
	char got[128];

	(void)state;
	assert_int_equal(fresh_state(NULL), 0);
	router_start(&r);
	/* Applied first, but younger by its own creationTimestamp. */
	apply(&r, "{'apiVersion':'route.openshift.io/v1','kind':'Route','metadata':{'name':'young',"
		  "'namespace':'a','creationTimestamp':'2024-05-05T00:00:00Z','uid':'zzz'},"
		  "'spec':{'host':'h.test'," TO_S "}}");
	apply(&r, "{'apiVersion':'route.openshift.io/v1','kind':'Route','metadata':{'name':'old',"
		  "'namespace':'b','creationTimestamp':'2020-01-01T00:00:00Z','uid':'aaa'},"
		  "'spec':{'host':'h.test'," TO_S "}}");
	assert_string_equal(ops_resolve_object(&r, "http://h.test/", got, sizeof(got)), "b/old");
	/* The same second: the smaller uid. */
	apply(&r, "{'apiVersion':'route.openshift.io/v1','kind':'Route','metadata':{'name':'u2',"
		  "'namespace':'c','creationTimestamp':'2019-01-01T00:00:00Z','uid':'b-uid'},"
		  "'spec':{'host':'k.test'," TO_S "}},"
		  "{'apiVersion':'route.openshift.io/v1','kind':'Route','metadata':{'name':'u1',"
		  "'namespace':'d','creationTimestamp':'2019-01-01T00:00:00Z','uid':'a-uid'},"
		  "'spec':{'host':'k.test'," TO_S "}}");
	assert_string_equal(ops_resolve_object(&r, "http://k.test/", got, sizeof(got)), "d/u1");
	router_stop(&r);
	assert_int_equal(remove_state(NULL), 0);
}

/* The clock (age.h): ages increase in issue order within a millisecond, when
 * the wall clock steps back, past 4096 in one millisecond, and after a
 * restart that saw the journal's uids; the uid is a well-formed UUIDv7. */
static void
test_age_clock(void **state)
{
	struct sy_age_clock c = { 0 }, c2 = { 0 };
	char ts[SY_AGE_TS_LEN], uid[SY_AGE_UID_LEN], pts[SY_AGE_TS_LEN], puid[SY_AGE_UID_LEN];
	const uint64_t t0 = 1764025800123ull; /* 2025-11-24T23:10:00.123Z */
	uint64_t ms;
	uint32_t seq;
	unsigned i;

	(void)state;
	sy_age_next(&c, t0, pts, puid);
	assert_string_equal(pts, "2025-11-24T23:10:00Z");
	assert_true(sy_age_uid_parse(puid, &ms, &seq));
	assert_int_equal(ms, t0);
	assert_int_equal(seq, 0);
	assert_int_equal(puid[14], '7');
	assert_true(strchr("89ab", puid[19]) != NULL);
	for (i = 0; i < 10000; i++) {
		/* Same ms for a while, then the wall clock goes back a second. */
		uint64_t now = i < 5000 ? t0 : t0 - 1000;

		sy_age_next(&c, now, ts, uid);
		assert_true(strcmp(ts, pts) > 0 || (strcmp(ts, pts) == 0 && strcmp(uid, puid) > 0));
		memcpy(pts, ts, sizeof(ts));
		memcpy(puid, uid, sizeof(uid));
	}
	/* 10,001 ages from one millisecond: borrowed from the next two. */
	assert_true(sy_age_uid_parse(puid, &ms, &seq));
	assert_int_equal(ms, t0 + 2);
	/* A restart: the new clock sees the journal's last uid and goes on
	 * after it although its wall clock is behind. */
	sy_age_seen(&c2, "0193a1b2-c3d4-4e5f-8a6b-7c8d9e0f1a2b"); /* a v4 uid: ignored */
	assert_false(c2.any);
	sy_age_seen(&c2, puid);
	sy_age_next(&c2, t0 - 60000, ts, uid);
	assert_true(strcmp(uid, puid) > 0);
	assert_true(strcmp(ts, pts) >= 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_age_clock),
		cmocka_unit_test(test_imported_age_kept),
		cmocka_unit_test(test_first_claim_wins),
	};

	int rc;

	/* The generation slot's RCU state comes from DPDK memory. */
	if (sy_test_eal_init("test_claim_order") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
