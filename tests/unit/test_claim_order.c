/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "Oldest claim wins" follows the order in which objects were applied, also
 * within one second (issue 12; control/store/age.h). For every kind of conflict
 * that age decides, two competing objects are applied back to back, in two
 * requests or in one, on fresh state, 200 times: the first must win every
 * time, and still after a restart from the journal (replayed as written,
 * then compacted and replayed again). Then the clock under the stamps, and
 * the RouteLessThan order that imported objects keep.
 *
 * Objects are written with ' for " (call()).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "store/age.h"
#include "gen/compile.h"
#include "router.h"
#include "test_eal.h"
#include "test_router.h"

#define ROUNDS 200

/* One request; ' stands for " in the text. The reply is the caller's. */
static json_t *__attribute__((format(printf, 2, 3)))
call(struct sy_router *r, const char *fmt, ...)
{
	char *text = NULL, *p;
	json_t *reply;
	va_list ap;

	va_start(ap, fmt);
	assert_true(vasprintf(&text, fmt, ap) > 0);
	va_end(ap);
	for (p = text; *p; p++)
		if (*p == '\'')
			*p = '"';
	reply = ops_call(r, text);
	free(text);
	return reply;
}

static void __attribute__((format(printf, 2, 3)))
call_ok(struct sy_router *r, const char *fmt, ...)
{
	char *text = NULL;
	json_t *rep;
	va_list ap;

	va_start(ap, fmt);
	assert_true(vasprintf(&text, fmt, ap) > 0);
	va_end(ap);
	rep = call(r, "%s", text);
	if (!reply_ok(rep))
		fail_msg("%s refused: %s", text, json_dumps(rep, 0));
	json_decref(rep);
	free(text);
}

/* Competitors. Every namespace has Service s with endpoints (SERVICES). */
#define OS(ns, name, host)                                                                      \
	"{'apiVersion':'route.openshift.io/v1','kind':'Route','metadata':{'name':'" name          \
	"','namespace':'" ns "'},'spec':{'host':'" host "','to':{'kind':'Service','name':'s'}}}"
#define OS_PATH(ns, name, host, path)                                                           \
	"{'apiVersion':'route.openshift.io/v1','kind':'Route','metadata':{'name':'" name          \
	"','namespace':'" ns "'},'spec':{'host':'" host "','path':'" path "','to':{'kind':"     \
	"'Service','name':'s'}}}"
#define OS_WILD(ns, name, host)                                                                 \
	"{'apiVersion':'route.openshift.io/v1','kind':'Route','metadata':{'name':'" name          \
	"','namespace':'" ns "'},'spec':{'host':'" host "','wildcardPolicy':'Subdomain','to':{" \
	"'kind':'Service','name':'s'}}}"
#define IR(ns, name, fqdn)                                                                      \
	"{'apiVersion':'contour.heptio.com/v1beta1','kind':'IngressRoute','metadata':{'name':'"  \
	name "','namespace':'" ns "'},'spec':{'virtualhost':{'fqdn':'" fqdn "'},'routes':[{"      \
	"'match':'/','services':[{'name':'s','port':80}]}]}}"
#define CR(ns, name, host)                                                                      \
	"{'apiVersion':'contour.heptio.com/v1alpha1','kind':'Route','metadata':{'name':'" name    \
	"','namespace':'" ns "'},'spec':{'host':'" host "','routes':[{'pathPrefix':'/',"          \
	"'upstreams':[{'serviceName':'s','servicePort':80}]}]}}"
#define RG(ns, name, host)                                                                      \
	"{'apiVersion':'zalando.org/v1','kind':'RouteGroup','metadata':{'name':'" name            \
	"','namespace':'" ns "'},'spec':{'hosts':['" host "'],'backends':[{'name':'be','type':"  \
	"'service','serviceName':'s','servicePort':80}],'defaultBackends':[{'backendName':'be'}]}}"
#define SVC(ns)                                                                                 \
	"{'apiVersion':'v1','kind':'Service','metadata':{'name':'s','namespace':'" ns "'},"       \
	"'spec':{'ports':[{'name':'http','port':80}]}},"                                          \
	"{'apiVersion':'v1','kind':'Endpoints','metadata':{'name':'s','namespace':'" ns "'},"     \
	"'subsets':[{'addresses':[{'ip':'198.18.7.1'}],'ports':[{'name':'http','port':80}]}]}"
#define SERVICES SVC("a") "," SVC("b") "," SVC("c") "," SVC("o") "," SVC("z")

#define DEFAULT_CONFIG "{\"routing_subdomain\": \"apps.test\"}"
#define WILDCARD_CONFIG "{\"routing_subdomain\": \"apps.test\", \"allow_wildcard_routes\": true}"

/* Two objects competing for what `url` reaches. */
struct contest {
	const char *first;  /* applied first: must win */
	const char *second;
	const char *url;
	const char *winner;     /* ns/name resolve names for url */
	const char *loser_kind; /* as `get` spells it */
	const char *loser;      /* ns/name: its status says it lost */
	const char *after;      /* a request after both (the owner goes), or NULL */
};

struct family {
	const char *name;
	const char *config; /* JSON */
	const char *before; /* objects applied before the contest (an owner), or NULL */
	const struct contest *contests;
	size_t n;
};

static json_t *
get_one(struct sy_router *r, const char *kind, const char *ns_name)
{
	const char *slash = strchr(ns_name, '/');
	json_t *rep = call(r, "{'op':'get','kind':'%s','namespace':'%.*s','name':'%s'}", kind,
			   (int)(slash - ns_name), ns_name, slash + 1);
	json_t *item = json_incref(json_array_get(json_object_get(rep, "items"), 0));

	json_decref(rep);
	if (item == NULL)
		fail_msg("%s %s: not found", kind, ns_name);
	return item;
}

/* Does the status of kind ns/name say it lost its claim, in its peer's terms? */
static bool
lost(const json_t *item, const char *kind)
{
	const json_t *st = json_object_get(item, "status");
	const char *cur = json_string_value(json_object_get(st, "currentStatus"));

	if (strcmp(kind, "route") == 0) {
		const json_t *cond = json_array_get(
			json_object_get(json_array_get(json_object_get(st, "ingress"), 0), "conditions"), 0);
		const char *status = json_string_value(json_object_get(cond, "status"));
		const char *reason = json_string_value(json_object_get(cond, "reason"));

		return status && reason && strcmp(status, "False") == 0 &&
		       strcmp(reason, "HostAlreadyClaimed") == 0;
	}
	if (strcmp(kind, "ingressroute") == 0)
		return cur && strcmp(cur, "invalid") == 0;
	if (strcmp(kind, "routes.contour.heptio.com") == 0)
		return cur && strcmp(cur, "Invalid") == 0;
	if (strcmp(kind, "routegroup") == 0)
		return json_is_false(json_object_get(st, "valid"));
	fail_msg("test bug: no status check for kind %s", kind);
	return false;
}

static void
expect_first_wins(struct sy_router *r, const struct family *f, size_t k, int round,
		  const char *how, const char *when)
{
	const struct contest *c = &f->contests[k];
	char got[256];
	json_t *loser;

	ops_resolve_object(r, c->url, got, sizeof(got));
	if (strcmp(got, c->winner) != 0)
		fail_msg("%s, contest %zu, round %d (%s), %s: %s is served by %s, not by %s "
			 "(applied first)", f->name, k, round, how, when, c->url, got, c->winner);
	loser = get_one(r, c->loser_kind, c->loser);
	if (!lost(loser, c->loser_kind))
		fail_msg("%s, contest %zu, round %d (%s), %s: %s %s (applied second) does not say "
			 "it lost: %s", f->name, k, round, how, when, c->loser_kind, c->loser,
			 json_dumps(loser, 0));
	json_decref(loser);
}

/* A state directory of its own for a round. Rounds fsync the journal
 * thousands of times: on tmpfs that costs nothing, and the journal is the
 * same. */
static void
fresh_round_state(void)
{
	snprintf(state_dir, sizeof(state_dir), "%s/sy-test-order-XXXXXX",
		 access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
	if (mkdtemp(state_dir) == NULL)
		fail_msg("mkdtemp %s failed", state_dir);
}

/*
 * ROUNDS rounds on fresh state, cycling through the contests; every other
 * pass over them applies both objects in one request (position decides)
 * rather than in two.
 */
static void
run_family(const struct family *f)
{
	int round;

	for (round = 0; round < ROUNDS; round++) {
		size_t k = (size_t)round % f->n;
		const struct contest *c = &f->contests[k];
		bool one_request = (round / (int)f->n) % 2 == 1;
		const char *how = one_request ? "both in one apply" : "two applies";
		struct sy_router r;

		fresh_round_state();
		router_start_with(&r, f->config);
		call_ok(&r, "{'op':'apply','objects':[" SERVICES "]}");
		if (f->before != NULL)
			call_ok(&r, "{'op':'apply','objects':[%s]}", f->before);
		if (one_request) {
			call_ok(&r, "{'op':'apply','objects':[%s,%s]}", c->first, c->second);
		} else {
			call_ok(&r, "{'op':'apply','objects':[%s]}", c->first);
			call_ok(&r, "{'op':'apply','objects':[%s]}", c->second);
		}
		if (c->after != NULL)
			call_ok(&r, "%s", c->after);
		expect_first_wins(&r, f, k, round, how, "as applied");
		/* A record that leaves no object: the next start compacts the
		 * journal (one record per object, in namespace/name order). */
		call_ok(&r, "{'op':'apply','objects':[{'apiVersion':'v1','kind':'Service','metadata':"
			    "{'name':'gone','namespace':'a'},'spec':{'ports':[{'port':80}]}}]}");
		call_ok(&r, "{'op':'delete','kind':'service','namespace':'a','name':'gone'}");
		router_stop(&r);
		router_start_with(&r, f->config);
		expect_first_wins(&r, f, k, round, how, "after a restart (journal replayed, compacted)");
		router_stop(&r);
		router_start_with(&r, f->config);
		expect_first_wins(&r, f, k, round, how, "after a second restart (compacted journal)");
		router_stop(&r);
		assert_int_equal(remove_state(NULL), 0);
	}
}

/* Same kind, other namespaces: the first namespace owns the host. */
static const struct contest host_claim[] = {
	{ OS("a", "first", "shared.test"), OS("b", "second", "shared.test"), "http://shared.test/",
	  "a/first", "route", "b/second", NULL },
	/* names sorting the other way round */
	{ OS("z", "first", "shared.test"), OS("b", "second", "shared.test"), "http://shared.test/",
	  "z/first", "route", "b/second", NULL },
};

/* OpenShift Route, IngressRoute root and RouteGroup on one host, in every order. */
static const struct contest cross_kind[] = {
	{ OS("a", "os", "x.test"), IR("b", "ir", "x.test"), "http://x.test/", "a/os", "ingressroute",
	  "b/ir", NULL },
	{ IR("b", "ir", "x.test"), OS("a", "os", "x.test"), "http://x.test/", "b/ir", "route", "a/os",
	  NULL },
	{ OS("a", "os", "x.test"), RG("c", "rg", "x.test"), "http://x.test/", "a/os", "routegroup",
	  "c/rg", NULL },
	{ RG("c", "rg", "x.test"), OS("a", "os", "x.test"), "http://x.test/", "c/rg", "route", "a/os",
	  NULL },
	{ IR("b", "ir", "x.test"), RG("c", "rg", "x.test"), "http://x.test/", "b/ir", "routegroup",
	  "c/rg", NULL },
	{ RG("c", "rg", "x.test"), IR("b", "ir", "x.test"), "http://x.test/", "c/rg", "ingressroute",
	  "b/ir", NULL },
};

/* One namespace, one host, the same path: one route per path, the first. */
static const struct contest equal_paths[] = {
	{ OS_PATH("a", "first", "paths.test", "/p"), OS_PATH("a", "second", "paths.test", "/p"),
	  "http://paths.test/p", "a/first", "route", "a/second", NULL },
	{ OS("a", "zfirst", "paths.test"), OS("a", "second", "paths.test"), "http://paths.test/",
	  "a/zfirst", "route", "a/second", NULL },
};

/* Wildcard routes and the plain hosts under their domain (HostAdmitter). */
static const struct contest wildcard_claim[] = {
	{ OS_WILD("a", "wild", "www.w.test"), OS("b", "plain", "x.w.test"), "http://x.w.test/",
	  "a/wild", "route", "b/plain", NULL },
	{ OS("b", "plain", "x.w.test"), OS_WILD("a", "wild", "www.w.test"), "http://x.w.test/",
	  "b/plain", "route", "a/wild", NULL },
	{ OS_WILD("z", "wild", "www.w.test"), OS_WILD("b", "wild", "api.w.test"), "http://any.w.test/",
	  "z/wild", "route", "b/wild", NULL },
};

/* An older owner holds the host (the family's `before`); it goes (deleted, or
 * moved to another host): of the two it displaced, the first applied is
 * admitted. */
static const struct contest readmission[] = {
	{ OS("a", "first", "held.test"), OS("b", "second", "held.test"), "http://held.test/",
	  "a/first", "route", "b/second",
	  "{'op':'delete','kind':'route','namespace':'o','name':'owner'}" },
	{ OS("z", "first", "held.test"), OS("b", "second", "held.test"), "http://held.test/",
	  "z/first", "route", "b/second",
	  "{'op':'apply','objects':[" OS("o", "owner", "moved.test") "]}" },
};

/* Contour's Route roots on one host (the draft: the oldest keeps it), and an
 * IngressRoute root against one. */
static const struct contest contour_roots[] = {
	{ CR("z", "first", "root.test"), CR("b", "second", "root.test"), "http://root.test/",
	  "z/first", "routes.contour.heptio.com", "b/second", NULL },
	{ IR("a", "ir", "root.test"), CR("b", "cr", "root.test"), "http://root.test/", "a/ir",
	  "routes.contour.heptio.com", "b/cr", NULL },
	{ CR("b", "cr", "root.test"), IR("a", "ir", "root.test"), "http://root.test/", "b/cr",
	  "ingressroute", "a/ir", NULL },
};

#define FAMILY(name, config, before, contests) \
	{ name, config, before, contests, sizeof(contests) / sizeof(contests[0]) }

/* One cmocka test each (main). */
static const struct family families[] = {
	FAMILY("host claim across namespaces", DEFAULT_CONFIG, NULL, host_claim),
	FAMILY("cross-kind claim", DEFAULT_CONFIG, NULL, cross_kind),
	FAMILY("equal paths in a namespace", DEFAULT_CONFIG, NULL, equal_paths),
	FAMILY("wildcard claim", WILDCARD_CONFIG, NULL, wildcard_claim),
	FAMILY("re-admission after the owner goes", DEFAULT_CONFIG, OS("o", "owner", "held.test"),
	       readmission),
	FAMILY("Contour roots sharing an fqdn", DEFAULT_CONFIG, NULL, contour_roots),
};

static void
test_family(void **state)
{
	run_family(*state);
}

/* ------------------------------------------------------------- the clock -- */

static void
expect_after(const char *uid_a, const char *created_a, const char *uid_b, const char *created_b)
{
	struct sy_time ta, tb;

	assert_int_equal(sy_rfc3339_parse(created_a, &ta), 0);
	assert_int_equal(sy_rfc3339_parse(created_b, &tb), 0);
	if (tb.sec < ta.sec || (tb.sec == ta.sec && strcmp(uid_b, uid_a) <= 0))
		fail_msg("(%s, %s) does not sort after (%s, %s)", created_b, uid_b, created_a, uid_a);
}

/* Stamps sort in the order given: within a millisecond, when the wall clock
 * steps back, past the counter's end, and after a uid seen in a journal. */
static void
test_clock(void **state)
{
	struct sy_age_clock c = { 0 }, other = { 0 };
	char created[8][SY_RFC3339_LEN], uid[8][SY_UID_LEN];
	const uint64_t t = 1767225600000ull; /* 2026-01-01T00:00:00Z */
	int i;

	sy_age_stamp(&c, t + 999, created[0], uid[0]);
	sy_age_stamp(&c, t + 999, created[1], uid[1]);  /* the same millisecond */
	sy_age_stamp(&c, t - 60000, created[2], uid[2]); /* the wall clock went back */
	sy_age_stamp(&c, t + 1000, created[3], uid[3]); /* the next second */
	c.seq = (1u << 30) - 1;                          /* the counter is full */
	sy_age_stamp(&c, t + 1000, created[4], uid[4]);
	for (i = 1; i <= 4; i++)
		expect_after(uid[i - 1], created[i - 1], uid[i], created[i]);
	assert_string_equal(created[0], "2026-01-01T00:00:00Z");
	assert_string_equal(created[2], "2026-01-01T00:00:00Z"); /* not a minute back */
	assert_string_equal(created[3], "2026-01-01T00:00:01Z");
	/* UUIDv7: version 7, variant 10, the millisecond in the first 48 bits. */
	assert_int_equal(strlen(uid[0]), 36);
	assert_int_equal(uid[0][14], '7');
	assert_non_null(strchr("89ab", uid[0][19]));
	assert_memory_equal(uid[0], "019b76da-abe7-", 14); /* 0x019b76daabe7 = t + 999 */
	/* Past the random pool's refills (85 uids a pool): each uid after the
	 * last, their random tails not one value, the second's text reused
	 * only within its second. */
	{
		char prev[SY_UID_LEN], cur[SY_UID_LEN], when[SY_RFC3339_LEN];
		bool tails_differ = false;
		int k;

		sy_age_stamp(&c, t + 2000, when, prev);
		for (k = 0; k < 300; k++) {
			sy_age_stamp(&c, t + 2000 + (uint64_t)k * 5, when, cur);
			assert_true(strcmp(prev, cur) < 0);
			if (strcmp(prev + 24, cur + 24) != 0)
				tails_differ = true;
			memcpy(prev, cur, sizeof(prev));
		}
		assert_true(tails_differ);
		assert_string_equal(when, "2026-01-01T00:00:03Z"); /* t + 3495 ms */
	}
	/* A clock that has seen a uid (journal replay) stamps after it, even
	 * with a wall clock an hour behind. */
	sy_age_observe(&other, uid[4]);
	sy_age_stamp(&other, t - 3600000, created[5], uid[5]);
	expect_after(uid[4], created[4], uid[5], created[5]);
	/* Uids that are not its kind move nothing. */
	sy_age_observe(&other, "ffffffff-ffff-4fff-bfff-ffffffffffff"); /* v4 */
	sy_age_observe(&other, "ffffffff-ffff-7fff-ffff-ffffffffffff"); /* bad variant */
	sy_age_observe(&other, "FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF"); /* not ours: upper case */
	sy_age_observe(&other, "not-a-uid");
	sy_age_observe(&other, NULL);
	sy_age_stamp(&other, t - 3600000, created[6], uid[6]);
	expect_after(uid[5], created[5], uid[6], created[6]);
	assert_true(strcmp(uid[6], "ffffffff") < 0);
}

/* A record keeps a UUID's uid as its 16 bytes and any other as text: both
 * read back as applied, and ages compare as the texts do, whatever the form
 * of each (store.h, uid_bin). */
static void
test_uid_forms(void **state)
{
	static const char *const uids[] = {
		"019b76da-abe7-7000-8000-0123456789ab", /* stamped */
		"019b76da-abe7-7000-8000-0123456789ac",
		"0a9b76da-abe7-7000-8000-0123456789ab",
		"019b76da-abe7-7000-8000-0123456789AB", /* upper case: text */
		"019b76da-abe7-7000-8000",              /* short: text */
		"etcd-42",                              /* etcd's: text */
		"",
		"fffffffffffffffffffffffffffffffffffffff", /* 39 characters */
	};
	enum { N = sizeof(uids) / sizeof(uids[0]) };
	struct sy_object *o[N];
	char buf[SY_UID_LEN];
	size_t i, j;

	for (i = 0; i < N; i++) {
		o[i] = sy_object_new(&sy_kind_route, "ns", "r", NULL, "2026-01-01T00:00:00Z",
				     uids[i]);
		assert_non_null(o[i]);
		assert_string_equal(sy_object_uid(o[i], buf), uids[i]);
		assert_int_equal(o[i]->uid_text, i >= 3);
	}
	for (i = 0; i < N; i++)
		for (j = 0; j < N; j++) {
			int want = strcmp(uids[i], uids[j]), got = sy_object_age_cmp(o[i], o[j]);

			if (want != 0 && (want < 0) != (got < 0))
				fail_msg("%s against %s: %d", uids[i], uids[j], got);
		}
	for (i = 0; i < N; i++)
		sy_object_free(o[i]);
}

/* RFC 3339 as applied: offsets and fractions are instants, bad forms refused. */
static void
test_rfc3339(void **state)
{
	static const char *const bad[] = {
		"2026-01-01", "2026-01-01T00:00:00", "2026-1-01T00:00:00Z", " 2026-01-01T00:00:00Z",
		"2026-01-01T00:00:00.Z", "2026-01-01T00:00:00+0100", "2026-01-01T00:00:00+01:00x",
		"2026-13-01T00:00:00Z", "2026-01-01T00:00:00+24:00", "",
	};
	struct sy_time a, b;
	size_t i;

	assert_int_equal(sy_rfc3339_parse("2026-01-01T01:30:00+01:30", &a), 0);
	assert_int_equal(sy_rfc3339_parse("2026-01-01T00:00:00Z", &b), 0);
	assert_true(a.sec == b.sec && a.nsec == b.nsec);
	assert_int_equal(sy_rfc3339_parse("2025-12-31T23:00:00-01:00", &a), 0);
	assert_true(a.sec == b.sec);
	assert_int_equal(sy_rfc3339_parse("2026-01-01T00:00:00.25z", &a), 0);
	assert_true(a.sec == b.sec && a.nsec == 250000000);
	assert_int_equal(sy_rfc3339_parse("2026-01-01T00:00:00.1234567891Z", &a), 0);
	assert_int_equal(a.nsec, 123456789);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		if (sy_rfc3339_parse(bad[i], &a) == 0)
			fail_msg("\"%s\" parsed", bad[i]);
}

/* ------------------------------------------------- through the router -- */

#define OS_AGED(ns, name, ts, uid, host)                                                        \
	"{'apiVersion':'route.openshift.io/v1','kind':'Route','metadata':{'name':'" name          \
	"','namespace':'" ns "','creationTimestamp':'" ts "','uid':'" uid "'},'spec':{'host':'" \
	host "','to':{'kind':'Service','name':'s'}}}"

static void
expect_served(struct sy_router *r, const char *url, const char *obj)
{
	char got[256];

	assert_string_equal(ops_resolve_object(r, url, got, sizeof(got)), obj);
}

/* Objects that bring their own creationTimestamp and uid keep them, and
 * RouteLessThan's order: the instant first (whatever the offset), then the
 * uid, whatever order they were applied in. */
static void
test_imported_keep_their_order(void **state)
{
	struct sy_router r;
	json_t *item;

	router_start(&r);
	call_ok(&r, "{'op':'apply','objects':[" SERVICES "]}");
	/* applied first, but younger */
	call_ok(&r, "{'op':'apply','objects':[" OS_AGED("b", "young", "2021-01-01T00:00:00Z",
							"0000", "one.test") "]}");
	call_ok(&r, "{'op':'apply','objects':[" OS_AGED("a", "old", "2020-01-01T00:00:00Z",
							"ffff", "one.test") "]}");
	expect_served(&r, "http://one.test/", "a/old");
	/* the same instant (one written with an offset): the smaller uid */
	call_ok(&r, "{'op':'apply','objects':[" OS_AGED("b", "later-uid", "2020-01-01T01:00:00+01:00",
							"bbbb", "two.test") "]}");
	call_ok(&r, "{'op':'apply','objects':[" OS_AGED("a", "smaller-uid", "2020-01-01T00:00:00Z",
							"aaaa", "two.test") "]}");
	expect_served(&r, "http://two.test/", "a/smaller-uid");
	/* half a second later is later, whatever the uid */
	call_ok(&r, "{'op':'apply','objects':[" OS_AGED("b", "fraction", "2020-01-01T00:00:00.5Z",
							"0000", "three.test") "]}");
	call_ok(&r, "{'op':'apply','objects':[" OS_AGED("a", "whole", "2020-01-01T00:00:00Z",
							"ffff", "three.test") "]}");
	expect_served(&r, "http://three.test/", "a/whole");
	/* kept as given */
	item = get_one(&r, "route", "b/later-uid");
	assert_string_equal(json_string_value(json_object_get(json_object_get(item, "metadata"),
							      "creationTimestamp")),
			    "2020-01-01T01:00:00+01:00");
	assert_string_equal(json_string_value(json_object_get(json_object_get(item, "metadata"), "uid")),
			    "bbbb");
	json_decref(item);
	/* an object made here is younger than all of them */
	call_ok(&r, "{'op':'apply','objects':[" OS("z", "new", "one.test") "]}");
	expect_served(&r, "http://one.test/", "a/old");
	router_stop(&r);
	router_start(&r);
	expect_served(&r, "http://one.test/", "a/old");
	expect_served(&r, "http://two.test/", "a/smaller-uid");
	expect_served(&r, "http://three.test/", "a/whole");
	router_stop(&r);
}

/* After a restart the router's clock resumes after the journal's stamps (a
 * wall clock that went back cannot make a new object older), and re-applying
 * an object never makes it younger. */
static void
test_restart_resumes_the_clock(void **state)
{
	struct sy_router r;
	char created[SY_RFC3339_LEN], uid[SY_UID_LEN];
	const char *last_uid, *last_created;
	json_t *item;

	router_start(&r);
	call_ok(&r, "{'op':'apply','objects':[" SERVICES "," OS("a", "r1", "r1.test") ","
		    OS("a", "r2", "r2.test") "]}");
	router_stop(&r);
	router_start(&r);
	item = get_one(&r, "route", "a/r2");
	last_uid = json_string_value(json_object_get(json_object_get(item, "metadata"), "uid"));
	last_created = json_string_value(
		json_object_get(json_object_get(item, "metadata"), "creationTimestamp"));
	/* a wall clock at 1970 */
	sy_age_stamp(&r.clock, 1, created, uid);
	expect_after(last_uid, last_created, uid, created);
	/* re-applied with a change: configured, same age */
	call_ok(&r, "{'op':'apply','objects':[" OS_PATH("a", "r2", "r2.test", "/x") "]}");
	{
		json_t *again = get_one(&r, "route", "a/r2");
		const json_t *md = json_object_get(again, "metadata");

		assert_string_equal(json_string_value(json_object_get(md, "uid")), last_uid);
		assert_string_equal(json_string_value(json_object_get(md, "creationTimestamp")),
				    last_created);
		json_decref(again);
	}
	json_decref(item);
	router_stop(&r);
}


static const char *
route_since(struct sy_router *r, const char *ns_name, char *buf, size_t len)
{
	json_t *item = get_one(r, "route", ns_name);
	const json_t *cond = json_array_get(
		json_object_get(json_array_get(json_object_get(json_object_get(item, "status"),
								"ingress"), 0), "conditions"), 0);

	snprintf(buf, len, "%s %s", json_string_value(json_object_get(cond, "status")),
		 json_string_value(json_object_get(cond, "lastTransitionTime")));
	json_decref(item);
	return buf;
}

/*
 * A Route that an older RouteGroup displaces stays "False since" the compile
 * that displaced it, through later compiles in later seconds, incremental or
 * full. (The kind pass admits it and the cross-kind step takes the host back
 * within each compile; the time must come from before the compile, or every
 * full compile would move it.)
 */
static void
test_displaced_route_keeps_its_time(void **state)
{
	struct sy_router r;
	char first[96], later[96];
	time_t t0;

	router_start(&r);
	call_ok(&r, "{'op':'apply','objects':[" SERVICES "," RG("c", "rg", "x.test") "]}");
	call_ok(&r, "{'op':'apply','objects':[" OS("a", "os", "x.test") "]}");
	route_since(&r, "a/os", first, sizeof(first));
	assert_true(strncmp(first, "False ", 6) == 0);
	/* the next second on the wall clock, which stamps transitions */
	t0 = time(NULL);
	while (time(NULL) == t0)
		usleep(20000);
	/* an unrelated change: an incremental compile that leaves a/os out */
	call_ok(&r, "{'op':'apply','objects':[" OS("a", "other", "y.test") "]}");
	assert_string_equal(route_since(&r, "a/os", later, sizeof(later)), first);
	/* a full compile */
	r.changes.full = true;
	assert_int_equal(sy_router_recompile(&r), 0);
	assert_string_equal(route_since(&r, "a/os", later, sizeof(later)), first);
	/* a change to the route itself that leaves it displaced */
	call_ok(&r, "{'op':'apply','objects':[" OS_PATH("a", "os", "x.test", "/p") "]}");
	assert_string_equal(route_since(&r, "a/os", later, sizeof(later)), first);
	router_stop(&r);
}

int
main(void)
{
	enum { N_FAMILIES = sizeof(families) / sizeof(families[0]) };
	struct CMUnitTest tests[5 + N_FAMILIES] = {
		cmocka_unit_test(test_clock),
		cmocka_unit_test(test_uid_forms),
		cmocka_unit_test(test_rfc3339),
		cmocka_unit_test_setup_teardown(test_imported_keep_their_order, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_restart_resumes_the_clock, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_displaced_route_keeps_its_time, fresh_state,
						remove_state),
	};
	size_t i;
	int rc;

	for (i = 0; i < N_FAMILIES; i++)
		tests[5 + i] = (struct CMUnitTest){ .name = families[i].name,
						    .test_func = test_family,
						    .initial_state = (void *)&families[i] };
	/* Every incremental compile checked against a full one (compile_verify.c). */
	setenv("SY_COMPILE_VERIFY", "1", 1);
	if (sy_test_eal_init("test_claim_order") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
