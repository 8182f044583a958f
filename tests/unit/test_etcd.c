/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pure parts of the etcd store (control/etcd/): key layout, base64, the
 * gateway's request bodies, decoding of range, watch and txn answers (as
 * etcd 3.4's gateway writes them), the store config, and the election's
 * state machine.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "etcd/codec.h"
#include "etcd/election.h"
#include "etcd/keys.h"
#include "etcd/store_config.h"
#include "fleet/fleet.h"
#include "kinds/kinds.h"

static void
test_keys(void **state)
{
	const struct sy_kind *k;
	char key[256], ns[64], name[128], err[256], end[64];

	assert_int_equal(sy_etcd_object_key("/sy/", &sy_kind_route, "demo", "web", key, sizeof(key)),
			 strlen("/sy/objects/route.route.openshift.io/demo/web"));
	assert_string_equal(key, "/sy/objects/route.route.openshift.io/demo/web");
	/* Two kinds named Route: the group tells them apart. */
	sy_etcd_object_key("/sy/", &sy_kind_route_contour, "demo", "web", key, sizeof(key));
	assert_string_equal(key, "/sy/objects/route.contour.heptio.com/demo/web");
	sy_etcd_object_key("/sy/", &sy_kind_service, "demo", "a", key, sizeof(key));
	assert_string_equal(key, "/sy/objects/service/demo/a");
	/* Cluster-scoped: no namespace segment. */
	sy_etcd_object_key("/sy/", &sy_kind_router, "", "shard1", key, sizeof(key));
	assert_string_equal(key, "/sy/objects/router.route.openshift.io/shard1");
	sy_etcd_status_key("/sy/", "shard1", &sy_kind_route, "demo", "web", key, sizeof(key));
	assert_string_equal(key, "/sy/status/shard1/route.route.openshift.io/demo/web");
	assert_int_equal(sy_etcd_object_key("/sy/", &sy_kind_route, "demo", "web", key, 10), -1);

	/* And back. */
	assert_int_equal(sy_etcd_parse_object_key("/sy/", "/sy/objects/route.contour.heptio.com/d/w",
						  &k, ns, sizeof(ns), name, sizeof(name), err,
						  sizeof(err)), 0);
	assert_ptr_equal(k, &sy_kind_route_contour);
	assert_string_equal(ns, "d");
	assert_string_equal(name, "w");
	assert_int_equal(sy_etcd_parse_object_key("/sy/", "/sy/objects/namespace/demo", &k, ns,
						  sizeof(ns), name, sizeof(name), err, sizeof(err)), 0);
	assert_ptr_equal(k, &sy_kind_namespace);
	assert_string_equal(ns, "");
	assert_string_equal(name, "demo");
	/* What is not an object key says why. */
	assert_int_equal(sy_etcd_parse_object_key("/sy/", "/sy/objects/route.route.openshift.io/web",
						  &k, ns, sizeof(ns), name, sizeof(name), err,
						  sizeof(err)), -1);
	assert_non_null(strstr(err, "<kind>/<namespace>/<name>"));
	assert_int_equal(sy_etcd_parse_object_key("/sy/", "/sy/objects/gadget/a/b", &k, ns, sizeof(ns),
						  name, sizeof(name), err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown kind"));
	assert_int_equal(sy_etcd_parse_object_key("/sy/", "/sy/status/x/service/a/b", &k, ns,
						  sizeof(ns), name, sizeof(name), err, sizeof(err)), -1);
	assert_int_equal(sy_etcd_parse_object_key("/sy/", "/sy/objects/router.route.openshift.io/a/b",
						  &k, ns, sizeof(ns), name, sizeof(name), err,
						  sizeof(err)), -1);
	sy_etcd_range_end("/sy/", end, sizeof(end));
	assert_string_equal(end, "/sy0");
}

/* etcd's watch range is [key, range_end), bytewise. */
static bool
in_watch(const char *wkey, const char *wend, const char *key)
{
	return strcmp(key, wkey) >= 0 && strcmp(key, wend) < 0;
}

/* The watch covers every object and the leader key, and none of the
 * routers' statuses: their write-back (a key per object) never reaches a
 * watch that would decode it to drop it. */
static void
test_watch_range(void **state)
{
	char wkey[64], wend[64], key[256];

	(void)state;
	assert_int_equal(sy_etcd_watch_range("/sy/", wkey, sizeof(wkey), wend, sizeof(wend)), 0);
	assert_string_equal(wkey, "/sy/leader/scheduler");
	assert_string_equal(wend, "/sy/objects0");
	sy_etcd_object_key("/sy/", &sy_kind_route, "demo", "web", key, sizeof(key));
	assert_true(in_watch(wkey, wend, key));
	sy_etcd_object_key("/sy/", &sy_kind_router, "", "shard1", key, sizeof(key));
	assert_true(in_watch(wkey, wend, key));
	sy_etcd_object_key("/sy/", &sy_kind_service, "a", "b", key, sizeof(key));
	assert_true(in_watch(wkey, wend, key));
	assert_true(in_watch(wkey, wend, "/sy/leader/scheduler"));
	sy_etcd_status_key("/sy/", "shard1", &sy_kind_route, "demo", "web", key, sizeof(key));
	assert_false(in_watch(wkey, wend, key));
	sy_etcd_status_key("/sy/", "a", &sy_kind_router, "", "a", key, sizeof(key));
	assert_false(in_watch(wkey, wend, key));
	/* Nor another prefix's keys. */
	assert_false(in_watch(wkey, wend, "/sy2/objects/service/a/b"));
	assert_false(in_watch(wkey, wend, "/sx/objects/service/a/b"));
	assert_false(in_watch(wkey, wend, "/sy/objectsX"));
	assert_int_equal(sy_etcd_watch_range("/sy/", wkey, 8, wend, sizeof(wend)), -1);
	assert_int_equal(sy_etcd_watch_range("/sy/", wkey, sizeof(wkey), wend, 8), -1);
}

static void
test_base64(void **state)
{
	static const char *const plain[] = { "", "f", "fo", "foo", "foob", "fooba", "foobar" };
	static const char *const coded[] = { "", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=",
					     "Zm9vYmFy" };
	size_t i, len;

	for (i = 0; i < sizeof(plain) / sizeof(plain[0]); i++) { /* RFC 4648 section 10 */
		char *e = sy_b64_encode(plain[i], strlen(plain[i]));
		char *d = sy_b64_decode(coded[i], &len);

		assert_string_equal(e, coded[i]);
		assert_non_null(d);
		assert_int_equal(len, strlen(plain[i]));
		assert_memory_equal(d, plain[i], len);
		free(e);
		free(d);
	}
	/* Bytes with the high bit, through and back. */
	{
		unsigned char bin[256];
		char *e, *d;

		for (i = 0; i < sizeof(bin); i++)
			bin[i] = (unsigned char)(255 - i);
		e = sy_b64_encode(bin, sizeof(bin));
		d = sy_b64_decode(e, &len);
		assert_int_equal(len, sizeof(bin));
		assert_memory_equal(d, bin, sizeof(bin));
		free(e);
		free(d);
	}
	assert_null(sy_b64_decode("Zm9", &len));     /* not a multiple of 4 */
	assert_null(sy_b64_decode("Zm9v!A==", &len)); /* not the alphabet */
	assert_null(sy_b64_decode("Zg==Zm9v", &len)); /* padding in the middle */
	assert_null(sy_b64_decode("Zm=v", &len));
}

static json_t *
load(const char *text)
{
	json_error_t e;
	json_t *j = json_loads(text, 0, &e);

	assert_non_null(j);
	return j;
}

static void
assert_json(json_t *got, const char *want)
{
	json_t *w = load(want);

	if (!json_equal(got, w)) {
		char *g = json_dumps(got, JSON_SORT_KEYS | JSON_COMPACT);

		fail_msg("got %s, want %s", g, want);
	}
	json_decref(w);
	json_decref(got);
}

static void
test_requests(void **state)
{
	/* "/sy/" is L3N5Lw==, "/sy0" L3N5MA==, "k" aw==, "v" dg== */
	assert_json(sy_etcd_range_req("/sy/", "/sy0", 0), "{\"key\":\"L3N5Lw==\",\"range_end\":\"L3N5MA==\"}");
	assert_json(sy_etcd_range_req("k", NULL, 42), "{\"key\":\"aw==\",\"revision\":\"42\"}");
	/* A page of the full read: a limit, the later pages at the first's revision. */
	assert_json(sy_etcd_range_page_req("k", "v", 42, 5001),
		    "{\"key\":\"aw==\",\"range_end\":\"dg==\",\"revision\":\"42\",\"limit\":\"5001\"}");
	assert_json(sy_etcd_op_put("k", "v", 0),
		    "{\"request_put\":{\"key\":\"aw==\",\"value\":\"dg==\",\"prev_kv\":true}}");
	assert_json(sy_etcd_op_put("k", "v", 7587),
		    "{\"request_put\":{\"key\":\"aw==\",\"value\":\"dg==\",\"prev_kv\":true,\"lease\":\"7587\"}}");
	assert_json(sy_etcd_op_delete("k"), "{\"request_delete_range\":{\"key\":\"aw==\"}}");
	assert_json(sy_etcd_txn_req(json_pack("[o]", sy_etcd_cmp_absent("k")),
				    json_pack("[o]", sy_etcd_op_put("k", "v", 9)),
				    json_pack("[o]", sy_etcd_op_range("k"))),
		    "{\"compare\":[{\"key\":\"aw==\",\"target\":\"CREATE\",\"result\":\"EQUAL\","
		    "\"create_revision\":\"0\"}],"
		    "\"success\":[{\"request_put\":{\"key\":\"aw==\",\"value\":\"dg==\",\"prev_kv\":true,\"lease\":\"9\"}}],"
		    "\"failure\":[{\"request_range\":{\"key\":\"aw==\"}}]}");
	assert_json(sy_etcd_txn_req(NULL, json_array(), NULL), "{\"success\":[]}");
	assert_json(sy_etcd_watch_req("/sy/", "/sy0", 13),
		    "{\"create_request\":{\"key\":\"L3N5Lw==\",\"range_end\":\"L3N5MA==\","
		    "\"start_revision\":\"13\",\"progress_notify\":true}}");
	assert_json(sy_etcd_lease_grant_req(5), "{\"TTL\":\"5\"}");
	assert_json(sy_etcd_lease_id_req(694), "{\"ID\":\"694\"}");
}

/* Answers as etcd 3.4.23's gateway wrote them (values shortened). */
static void
test_decode(void **state)
{
	int64_t rev = 0, revs[3];
	bool ok = true;
	struct sy_etcd_watch_msg m;
	json_t *resp, *kvs;

	/* range: {"v":1} under /sy/objects/service/d/a */
	resp = load("{\"header\":{\"cluster_id\":\"1\",\"member_id\":\"2\",\"revision\":\"12\",\"raft_term\":\"2\"},"
		    "\"kvs\":[{\"key\":\"L3N5L29iamVjdHMvc2VydmljZS9kL2E=\",\"create_revision\":\"5\","
		    "\"mod_revision\":\"9\",\"version\":\"2\",\"value\":\"eyJ2IjoxfQ==\"}],\"count\":\"1\"}");
	kvs = sy_etcd_decode_range(resp, &rev);
	assert_int_equal(rev, 12);
	assert_false(sy_etcd_range_more(resp));
	assert_json(kvs, "[{\"key\":\"/sy/objects/service/d/a\",\"value\":\"{\\\"v\\\":1}\","
			 "\"create_revision\":5,\"mod_revision\":9,\"lease\":0}]");
	json_decref(resp);
	/* An empty range has no "kvs" at all. */
	resp = load("{\"header\":{\"revision\":\"3\"}}");
	assert_json(sy_etcd_decode_range(resp, &rev), "[]");
	json_decref(resp);
	/* A page that stopped at its limit says so. */
	resp = load("{\"header\":{\"revision\":\"3\"},\"more\":true,\"count\":\"9\"}");
	assert_true(sy_etcd_range_more(resp));
	assert_int_equal(rev, 3);
	json_decref(resp);
	resp = load("{\"error\":\"etcdserver: mvcc: required revision has been compacted\",\"code\":11}");
	assert_null(sy_etcd_decode_range(resp, &rev));
	assert_string_equal(sy_etcd_error(resp), "etcdserver: mvcc: required revision has been compacted");
	json_decref(resp);

	/* watch: created, then a PUT (no "type": the enum's zero) and a DELETE. */
	resp = load("{\"result\":{\"header\":{\"revision\":\"12\"},\"created\":true}}");
	assert_int_equal(sy_etcd_decode_watch(resp, &m), 0);
	assert_true(m.created);
	assert_int_equal(json_array_size(m.events), 0);
	json_decref(m.events);
	json_decref(resp);
	resp = load("{\"result\":{\"header\":{\"revision\":\"14\"},\"events\":["
		    "{\"kv\":{\"key\":\"aw==\",\"create_revision\":\"13\",\"mod_revision\":\"13\",\"version\":\"1\",\"value\":\"dg==\"}},"
		    "{\"type\":\"DELETE\",\"kv\":{\"key\":\"aw==\",\"mod_revision\":\"14\"}}]}}");
	assert_int_equal(sy_etcd_decode_watch(resp, &m), 0);
	assert_int_equal(m.revision, 14);
	assert_false(m.canceled);
	assert_json(m.events, "[{\"key\":\"k\",\"value\":\"v\",\"create_revision\":13,\"mod_revision\":13,"
			      "\"lease\":0,\"type\":\"PUT\"},"
			      "{\"key\":\"k\",\"value\":\"\",\"create_revision\":0,\"mod_revision\":14,"
			      "\"lease\":0,\"type\":\"DELETE\"}]");
	json_decref(resp);
	/* Compacted: canceled, with the revision compacted to. */
	resp = load("{\"result\":{\"header\":{\"revision\":\"40\"},\"canceled\":true,\"compact_revision\":\"30\"}}");
	assert_int_equal(sy_etcd_decode_watch(resp, &m), 0);
	assert_true(m.canceled);
	assert_int_equal(m.compact_revision, 30);
	json_decref(m.events);
	json_decref(resp);
	resp = load("{\"error\":{\"grpc_code\":14,\"http_code\":503,\"message\":\"etcdserver: no leader\"}}");
	assert_int_equal(sy_etcd_decode_watch(resp, &m), -1);
	assert_string_equal(sy_etcd_error(resp), "etcdserver: no leader");
	json_decref(resp);

	/* txn: a put over an existing key (prev_kv), a new key, a delete. */
	resp = load("{\"header\":{\"revision\":\"20\"},\"succeeded\":true,\"responses\":["
		    "{\"response_put\":{\"header\":{\"revision\":\"20\"},\"prev_kv\":{\"key\":\"aw==\",\"create_revision\":\"4\",\"mod_revision\":\"8\"}}},"
		    "{\"response_put\":{\"header\":{\"revision\":\"20\"}}},"
		    "{\"response_delete_range\":{\"header\":{\"revision\":\"20\"},\"deleted\":\"1\"}}]}");
	assert_int_equal(sy_etcd_decode_txn(resp, &ok, &rev, revs, 3), 3);
	assert_true(ok);
	assert_int_equal(rev, 20);
	assert_int_equal(revs[0], 4);
	assert_int_equal(revs[1], 20);
	assert_int_equal(revs[2], 0);
	json_decref(resp);
	/* A failed compare: no "succeeded". */
	resp = load("{\"header\":{\"revision\":\"21\"},\"responses\":[{\"response_range\":{\"header\":{},\"kvs\":[]}}]}");
	assert_int_equal(sy_etcd_decode_txn(resp, &ok, &rev, revs, 1), 1);
	assert_false(ok);
	json_decref(resp);
}

static int
parse_store(const char *text, struct sy_store_config *sc, char *err, size_t len)
{
	json_t *j = load(text);
	int rc;

	sy_store_config_defaults(sc);
	rc = sy_store_config_parse(j, sc, err, len);
	json_decref(j);
	return rc;
}

static void
test_store_config(void **state)
{
	struct sy_store_config sc;
	char err[256];

	assert_int_equal(parse_store("{\"etcd\":{\"endpoints\":[\"http://198.18.0.1:2379\",\"http://198.18.0.2:2379\"]}}",
				     &sc, err, sizeof(err)), 0);
	assert_true(sc.etcd);
	assert_int_equal(sc.n_endpoints, 2);
	assert_string_equal(sc.prefix, "/switchyard/");
	assert_int_equal(sc.lease_ttl_s, 5);
	assert_int_equal(parse_store("{\"etcd\":{\"endpoints\":[\"http://a:1\"],\"prefix\":\"/x/\",\"lease_ttl_s\":3}}",
				     &sc, err, sizeof(err)), 0);
	assert_string_equal(sc.prefix, "/x/");
	assert_int_equal(sc.lease_ttl_s, 3);
#define BAD(text, words)                                                                     \
	do {                                                                                 \
		assert_int_equal(parse_store(text, &sc, err, sizeof(err)), -EINVAL);         \
		if (strstr(err, words) == NULL)                                              \
			fail_msg("error \"%s\" does not say \"%s\"", err, words);           \
	} while (0)
	BAD("{\"etcd\":{\"endpoints\":[]}}", "store.etcd.endpoints: must be a non-empty list");
	BAD("{\"etcd\":{}}", "store.etcd.endpoints");
	BAD("{\"etcd\":{\"endpoints\":[\"ftp://a:1\"]}}", "must start with http:// or https://");
	BAD("{\"etcd\":{\"endpoints\":[\"https://a\"]}}", "https://ADDRESS:PORT");
	BAD("{\"etcd\":{\"endpoints\":[\"http://a\"]}}", "http://ADDRESS:PORT");
	BAD("{\"etcd\":{\"endpoints\":[\"http://a:99999\"]}}", "port must be a number");
	BAD("{\"etcd\":{\"endpoints\":[\"http://a:1/v3\"]}}", "port must be a number");
	BAD("{\"etcd\":{\"endpoints\":[7]}}", "store.etcd.endpoints[0]: must be a string");
	BAD("{\"etcd\":{\"endpoints\":[\"http://a:1\"],\"prefix\":\"sy\"}}", "store.etcd.prefix");
	BAD("{\"etcd\":{\"endpoints\":[\"http://a:1\"],\"prefix\":\"/sy\"}}", "ends with '/'");
	BAD("{\"etcd\":{\"endpoints\":[\"http://a:1\"],\"lease_ttl_s\":1}}", "from 2 to 60");
	BAD("{\"etcd\":{\"endpoints\":[\"http://a:1\"],\"ttl\":1}}", "store.etcd.ttl: unknown key");
	BAD("{\"etcd\":{\"endpoints\":[\"http://a:1\"],\"ttl\":1}}", "ca_file, cert_file, key_file");
	BAD("{\"consul\":{}}", "store.consul: unknown key");
	BAD("[]", "store: must be an object");
#undef BAD
	/* Through the whole config too. */
	{
		struct sy_config cfg;

		assert_int_equal(sy_config_parse("{\"store\":{\"etcd\":{\"endpoints\":[\"ftp://a:1\"]}}}",
						 &cfg, err, sizeof(err)), -EINVAL);
		assert_non_null(strstr(err, "ftp://a:1"));
		assert_int_equal(sy_config_parse("{}", &cfg, err, sizeof(err)), 0);
		assert_false(cfg.store.etcd); /* the journal by default */
		sy_config_free(&cfg);
	}
}

/* A file under dir with some text (the parser checks only that it opens). */
static void
touch(const char *dir, const char *name, char *path, size_t len)
{
	FILE *f;

	snprintf(path, len, "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("-----BEGIN CERTIFICATE-----\n", f);
	fclose(f);
}

/* https:// endpoints and the TLS files: one scheme, files that open, a
 * certificate with its key, none of it with http://. */
static void
test_store_config_tls(void **state)
{
	struct sy_store_config sc;
	char dir[] = "/tmp/sy-test-etcd-XXXXXX", ca[128], crt[128], key[128], text[1024],
	     err[512];

	assert_non_null(mkdtemp(dir));
	touch(dir, "ca.pem", ca, sizeof(ca));
	touch(dir, "client.pem", crt, sizeof(crt));
	touch(dir, "client.key", key, sizeof(key));
#define PARSE(...)                                                                           \
	(snprintf(text, sizeof(text), __VA_ARGS__), parse_store(text, &sc, err, sizeof(err)))
#define BAD(words, ...)                                                                      \
	do {                                                                                 \
		assert_int_equal(PARSE(__VA_ARGS__), -EINVAL);                               \
		if (strstr(err, words) == NULL)                                              \
			fail_msg("%s: error \"%s\" does not say \"%s\"", text, err, words);     \
	} while (0)
	/* https alone: the system's trust store, no client certificate. */
	assert_int_equal(PARSE("{\"etcd\":{\"endpoints\":[\"https://198.18.0.1:2379\","
			       "\"https://198.18.0.2:2379\"]}}"), 0);
	assert_int_equal(sc.n_endpoints, 2);
	assert_string_equal(sc.endpoints[1], "https://198.18.0.2:2379");
	assert_string_equal(sc.ca_file, "");
	assert_string_equal(sc.cert_file, "");
	/* Everything. */
	assert_int_equal(PARSE("{\"etcd\":{\"endpoints\":[\"https://a:2379\"],\"ca_file\":\"%s\","
			       "\"cert_file\":\"%s\",\"key_file\":\"%s\"}}", ca, crt, key), 0);
	assert_string_equal(sc.ca_file, ca);
	assert_string_equal(sc.cert_file, crt);
	assert_string_equal(sc.key_file, key);
	assert_true(sc.etcd);
	/* A CA alone (etcd without client certificate authentication). */
	assert_int_equal(PARSE("{\"etcd\":{\"endpoints\":[\"https://a:2379\"],\"ca_file\":\"%s\"}}",
			       ca), 0);
	assert_string_equal(sc.ca_file, ca);
	assert_string_equal(sc.key_file, "");
	/* One scheme for every endpoint, whichever comes first. */
	BAD("mix http:// and https://",
	    "{\"etcd\":{\"endpoints\":[\"https://a:1\",\"http://b:1\"]}}");
	BAD("\"http://a:1\" and \"https://b:1\"",
	    "{\"etcd\":{\"endpoints\":[\"http://a:1\",\"https://b:1\"]}}");
	/* A certificate and its key go together. */
	BAD("store.etcd.cert_file: needs store.etcd.key_file",
	    "{\"etcd\":{\"endpoints\":[\"https://a:1\"],\"cert_file\":\"%s\"}}", crt);
	BAD("store.etcd.key_file: needs store.etcd.cert_file",
	    "{\"etcd\":{\"endpoints\":[\"https://a:1\"],\"ca_file\":\"%s\",\"key_file\":\"%s\"}}",
	    ca, key);
	/* Files that do not open: the key, the path and why. */
	BAD("store.etcd.ca_file: /nonexistent/sy-ca.pem: No such file or directory",
	    "{\"etcd\":{\"endpoints\":[\"https://a:1\"],\"ca_file\":\"/nonexistent/sy-ca.pem\"}}");
	BAD("store.etcd.key_file: /nonexistent/k.pem: No such file or directory",
	    "{\"etcd\":{\"endpoints\":[\"https://a:1\"],\"cert_file\":\"%s\","
	    "\"key_file\":\"/nonexistent/k.pem\"}}", crt);
	BAD("not a regular file",
	    "{\"etcd\":{\"endpoints\":[\"https://a:1\"],\"ca_file\":\"%s\"}}", dir);
	BAD("store.etcd.ca_file: must be the path of a PEM file",
	    "{\"etcd\":{\"endpoints\":[\"https://a:1\"],\"ca_file\":7}}");
	/* TLS keys with http:// endpoints: refused, not ignored. */
	BAD("store.etcd.ca_file: only with https:// endpoints",
	    "{\"etcd\":{\"endpoints\":[\"http://a:1\"],\"ca_file\":\"%s\"}}", ca);
	BAD("store.etcd.cert_file: only with https:// endpoints",
	    "{\"etcd\":{\"endpoints\":[\"http://a:1\"],\"cert_file\":\"%s\",\"key_file\":\"%s\"}}",
	    crt, key);
#undef BAD
#undef PARSE
	unlink(ca);
	unlink(crt);
	unlink(key);
	rmdir(dir);
}

static void
test_election(void **state)
{
	struct sy_election e;
	uint64_t t = 1000, wait;

	sy_election_init(&e, 3);
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_GRANT);
	/* Grant fails: retried later, not at once. */
	assert_false(sy_election_granted(&e, false, 0, t));
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_WAIT);
	assert_true(wait > 0 && wait <= 1000);
	t += wait;
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_GRANT);
	assert_false(sy_election_granted(&e, true, 77, t));
	/* A new lease campaigns at once. */
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_CAMPAIGN);
	assert_false(sy_election_campaigned(&e, true, false, t)); /* someone else holds it */
	assert_false(e.leader);
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_WAIT);
	assert_int_equal(wait, 1000); /* ttl/3: both keepalive and the next campaign */
	t += 1000;
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_KEEPALIVE);
	assert_false(sy_election_kept(&e, true, 3, t));
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_CAMPAIGN);
	assert_false(sy_election_campaigned(&e, true, false, t));
	/* The holder's key deleted: campaign now, not ttl/3 later. */
	assert_false(sy_election_key_changed(&e, true, false));
	assert_int_equal(sy_election_next(&e, t + 1, &wait), SY_ELECT_CAMPAIGN);
	assert_true(sy_election_campaigned(&e, true, true, t + 1));
	assert_true(e.leader);
	/* A leader does not campaign; it keeps the lease alive every ttl/3. */
	assert_int_equal(sy_election_next(&e, t + 2, &wait), SY_ELECT_WAIT);
	t += 1000;
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_KEEPALIVE);
	/* etcd does not answer: step down at once, keep the lease. */
	assert_true(sy_election_kept(&e, false, 0, t));
	assert_false(e.leader);
	assert_int_equal(e.lease, 77);
	t += 500;
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_KEEPALIVE);
	assert_false(sy_election_kept(&e, true, 2, t)); /* back within the ttl */
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_CAMPAIGN);
	assert_true(sy_election_campaigned(&e, true, true, t)); /* the key is still ours */
	assert_true(e.leader);
	/* Someone else's value in the key: not leader. */
	assert_true(sy_election_key_changed(&e, false, false));
	assert_false(e.leader);
	/* The lease expired meanwhile (ttl 0): a new one is granted. */
	t += 1000;
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_KEEPALIVE);
	assert_false(sy_election_kept(&e, true, 0, t));
	assert_int_equal(e.lease, 0);
	t += 500;
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_GRANT);
	/* A campaign etcd refuses with "requested lease not found" (the lease
	 * expired while calls were slow): step down and grant anew, not
	 * campaign with the dead lease for ever. */
	assert_false(sy_election_granted(&e, true, 78, t));
	assert_true(sy_election_campaigned(&e, true, true, t));
	assert_true(sy_election_lease_gone(&e, t));
	assert_false(e.leader);
	assert_int_equal(e.lease, 0);
	t += 500;
	assert_int_equal(sy_election_next(&e, t, &wait), SY_ELECT_GRANT);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keys),     cmocka_unit_test(test_watch_range),
		cmocka_unit_test(test_base64),
		cmocka_unit_test(test_requests), cmocka_unit_test(test_decode),
		cmocka_unit_test(test_store_config), cmocka_unit_test(test_store_config_tls),
		cmocka_unit_test(test_election),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
