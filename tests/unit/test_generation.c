/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generations: compiled lookups (host normalisation, segment-aware longest
 * prefix, OpenShift's endpoint weights) and RCU reclamation: an old generation
 * is not freed while a reader still holds it, and is freed once it has passed
 * a quiescent point.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <cmocka.h>
#include <rte_rcu_qsbr.h>

#include "arena.h"
#include "gen/compile.h"
#include "gen/gen_build.h"
#include "gen/gen_mem.h"
#include "sy_gen_slot.h"
#include "test_eal.h"

static void
put(struct sy_store *st, const struct sy_kind *kind, const char *ns, const char *name,
    const char *created, json_t *obj)
{
	char uid[40];

	snprintf(uid, sizeof(uid), "uid-%s-%s", ns, name);
	json_object_set_new(obj, "metadata", json_pack("{s:s, s:s}", "name", name, "namespace", ns));
	sy_object_free(sy_store_put(st, sy_object_new(kind, ns, name, obj, created, uid)));
	json_decref(obj);
}

static void
put_route(struct sy_store *st, const char *ns, const char *name, const char *host, const char *path,
	  json_t *to, json_t *alts)
{
	json_t *spec = json_pack("{s:s, s:o}", "host", host, "to", to);

	if (path)
		json_object_set_new(spec, "path", json_string(path));
	if (alts)
		json_object_set_new(spec, "alternateBackends", alts);
	put(st, &sy_kind_route, ns, name, "2026-01-01T00:00:00Z",
	    json_pack("{s:s, s:s, s:o}", "apiVersion", "route.openshift.io/v1", "kind", "Route", "spec", spec));
}

/* Endpoints ns/name with n addresses 198.18.1.(base+i) on port 80. */
static void
put_endpoints(struct sy_store *st, const char *ns, const char *name, int n, int base)
{
	json_t *addrs = json_array();
	int i;

	for (i = 0; i < n; i++) {
		char ip[32];

		snprintf(ip, sizeof(ip), "198.18.1.%d", base + i);
		json_array_append_new(addrs, json_pack("{s:s}", "ip", ip));
	}
	put(st, &sy_kind_endpoints, ns, name, "2026-01-01T00:00:00Z",
	    json_pack("{s:s, s:s, s:[{s:o, s:[{s:s, s:i}]}]}", "apiVersion", "v1", "kind", "Endpoints",
		      "subsets", "addresses", addrs, "ports", "name", "http", "port", 80));
}

static const struct sy_compile_opts opts = {
	.routing_subdomain = "apps.test",
	.router_name = "default",
	.no_route_status = 503,
	.now = "2026-01-01T00:00:00Z",
};

static const char *
match(const struct sy_generation *g, const char *host, const char *path)
{
	const struct sy_vhost *vh = sy_gen_find_vhost(g, host, strlen(host));
	const struct sy_rule *r = vh ? sy_vhost_match_path(vh, path, strlen(path)) : NULL;

	return r ? r->object : "-";
}

static void
test_paths_longest_segment_prefix(void **state)
{
	struct sy_store st;
	struct sy_generation *g;

	sy_store_init(&st);
	put_route(&st, "ns", "root", "h.test", NULL, json_pack("{s:s}", "name", "s"), NULL);
	put_route(&st, "ns", "sub", "h.test", "/sub", json_pack("{s:s}", "name", "s"), NULL);
	put_route(&st, "ns", "deep", "h.test", "/sub/deep", json_pack("{s:s}", "name", "s"), NULL);
	put_route(&st, "ns", "slash", "h.test", "/dir/", json_pack("{s:s}", "name", "s"), NULL);
	g = sy_compile(&st, &opts, 7);
	assert_non_null(g);
	assert_int_equal(g->id, 7);
	assert_int_equal(g->n_vhosts, 1);
	assert_string_equal(match(g, "h.test", "/"), "ns/root");
	assert_string_equal(match(g, "h.test", "/sub"), "ns/sub");
	assert_string_equal(match(g, "h.test", "/sub/"), "ns/sub");
	assert_string_equal(match(g, "h.test", "/sub?x=1"), "ns/sub");
	assert_string_equal(match(g, "h.test", "/subpar"), "ns/root"); /* segment-aware */
	assert_string_equal(match(g, "h.test", "/sub/deep/x"), "ns/deep");
	assert_string_equal(match(g, "h.test", "/dir/x"), "ns/slash");
	assert_string_equal(match(g, "h.test", "/dir"), "ns/root"); /* "/dir/" does not match "/dir" */
	assert_string_equal(match(g, "H.TEST:8080", "/sub"), "ns/sub");
	assert_string_equal(match(g, "h.test.", "/sub"), "ns/sub");
	assert_string_equal(match(g, "x.test", "/"), "-");
	/* Path rules on a plain vhost: the proxy mode routes each request of a
	 * keep-alive connection on its own. */
	assert_int_equal(sy_gen_find_vhost(g, "h.test", 6)->mode, SY_MODE_PROXY);
	assert_false(sy_gen_find_vhost(g, "h.test", 6)->bind_by_first_path);
	sy_generation_free(g);
	sy_store_fini(&st);
}

static uint32_t
endpoint_weight(const struct sy_generation *g, const char *host, unsigned service)
{
	const struct sy_vhost *vh = sy_gen_find_vhost(g, host, strlen(host));
	const struct sy_pool *p = vh->rules[0].pool;
	uint32_t i;

	for (i = 0; i < p->n_endpoints; i++)
		if (p->endpoints[i].service == service)
			return p->endpoints[i].weight;
	return UINT32_MAX;
}

/* The cases openshift/router's calculateServiceWeights tests. */
/*
 * Hosts of every length from 1 to 40 (the lookup compares and hashes eight
 * bytes at a time, and folds case with a bit trick): found in any case, with
 * a port and a trailing dot; not found with one byte changed, or changed to
 * a non-letter that a careless case fold would take for a letter ('@' for
 * '`', '[' for '{').
 */
static void
test_host_lengths_and_case(void **state)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	char hosts[40][48], name[16];
	struct sy_store st;
	struct sy_generation *g;
	size_t i, j;

	(void)state;
	sy_store_init(&st);
	for (i = 0; i < 40; i++) {
		for (j = 0; j <= i; j++)
			hosts[i][j] = alphabet[(i * 7 + j * 13) % (sizeof(alphabet) - 1)];
		hosts[i][0] = 'a'; /* a valid first character */
		hosts[i][i] = i > 0 ? 'z' : 'a';
		hosts[i][i + 1] = '\0';
		snprintf(name, sizeof(name), "r%zu", i);
		put_route(&st, "ns", name, hosts[i], NULL, json_pack("{s:s}", "name", "s"), NULL);
	}
	g = sy_compile(&st, &opts, 1);
	assert_non_null(g);
	for (i = 0; i < 40; i++) {
		char q[64], want[16];
		size_t len = i + 1;

		snprintf(want, sizeof(want), "ns/r%zu", i);
		for (j = 0; j < len; j++) /* every other letter upper case */
			q[j] = (char)(j % 2 && hosts[i][j] >= 'a' && hosts[i][j] <= 'z' ? hosts[i][j] - 32
										  : hosts[i][j]);
		q[len] = '\0';
		assert_string_equal(match(g, q, "/"), want);
		snprintf(q + len, sizeof(q) - len, ".:8443");
		assert_string_equal(match(g, q, "/x?y#z"), want);
		q[len] = '\0';
		for (j = 0; j < len; j++) {
			char saved = q[j];

			q[j] = (char)(saved ^ 0x01);
			assert_string_equal(match(g, q, "/"), "-");
			/* Bytes next to the letters, which only a careless case
			 * fold would turn into one. */
			q[j] = '@';
			assert_string_equal(match(g, q, "/"), "-");
			q[j] = '[';
			assert_string_equal(match(g, q, "/"), "-");
			q[j] = saved;
		}
	}
	sy_generation_free(g);
	sy_store_fini(&st);
}

static void
test_openshift_endpoint_weights(void **state)
{
	struct sy_store st;
	struct sy_generation *g;

	sy_store_init(&st);
	put_endpoints(&st, "ns", "one-a", 1, 10);
	put_endpoints(&st, "ns", "one-b", 1, 20);
	put_endpoints(&st, "ns", "two", 2, 30);
	put_endpoints(&st, "ns", "five", 5, 40);
	put_route(&st, "ns", "r1", "a.test", NULL, json_pack("{s:s, s:i}", "name", "one-a", "weight", 25),
		  json_pack("[{s:s, s:i}]", "name", "one-b", "weight", 75));
	put_route(&st, "ns", "r2", "b.test", NULL, json_pack("{s:s, s:i}", "name", "two", "weight", 50),
		  json_pack("[{s:s, s:i}]", "name", "one-a", "weight", 50));
	put_route(&st, "ns", "r3", "c.test", NULL, json_pack("{s:s, s:i}", "name", "five", "weight", 3),
		  json_pack("[{s:s, s:i}]", "name", "one-a", "weight", 256));
	put_route(&st, "ns", "r4", "d.test", NULL, json_pack("{s:s}", "name", "two"), NULL);
	put_route(&st, "ns", "r5", "e.test", NULL, json_pack("{s:s, s:i}", "name", "one-a", "weight", 0), NULL);
	g = sy_compile(&st, &opts, 1);
	assert_non_null(g);
	/* 25/75, one endpoint each -> 85/256 */
	assert_int_equal(endpoint_weight(g, "a.test", 0), 85);
	assert_int_equal(endpoint_weight(g, "a.test", 1), 256);
	/* 50/50 with 2 vs 1 endpoints -> 128/256 */
	assert_int_equal(endpoint_weight(g, "b.test", 0), 128);
	assert_int_equal(endpoint_weight(g, "b.test", 1), 256);
	/* 3 vs 256 with 5 vs 1 endpoints -> 1/256 */
	assert_int_equal(endpoint_weight(g, "c.test", 0), 1);
	assert_int_equal(endpoint_weight(g, "c.test", 1), 256);
	/* A single service: every endpoint weight 1 (default weight 100). */
	assert_int_equal(endpoint_weight(g, "d.test", 0), 1);
	/* Weight 0: nothing to send to. */
	assert_int_equal(sy_gen_find_vhost(g, "e.test", 6)->rules[0].pool->total_weight, 0);
	sy_generation_free(g);
	sy_store_fini(&st);
}

/* ---- RCU: a reader holding a generation keeps it alive. ---- */

static atomic_int freed;
static struct sy_generation *freed_last;

static void
count_free(struct sy_generation *g)
{
	freed_last = g;
	atomic_fetch_add(&freed, 1);
	sy_generation_free(g);
}

struct reader {
	struct sy_gen_slot *slot;
	atomic_int stage; /* 0 start, 1 holding, 2 may report quiescence, 3 done */
	struct sy_generation *held;
};

static void *
reader_main(void *arg)
{
	struct reader *rd = arg;

	rte_rcu_qsbr_thread_register(rd->slot->qs, 0);
	rte_rcu_qsbr_thread_online(rd->slot->qs, 0);
	/* A worker's loop iteration: load once, use, then report quiescence. */
	rd->held = sy_gen_acquire(rd->slot);
	atomic_store(&rd->stage, 1);
	while (atomic_load(&rd->stage) != 2)
		;
	rte_rcu_qsbr_quiescent(rd->slot->qs, 0);
	rte_rcu_qsbr_thread_offline(rd->slot->qs, 0);
	rte_rcu_qsbr_thread_unregister(rd->slot->qs, 0);
	atomic_store(&rd->stage, 3);
	return NULL;
}

static void
test_rcu_reclaim_waits_for_reader(void **state)
{
	struct sy_gen_slot slot;
	struct sy_store st;
	struct sy_generation *g1, *g2;
	struct reader rd = { .slot = &slot };
	pthread_t t;

	sy_store_init(&st);
	assert_int_equal(sy_gen_slot_init(&slot, 1, count_free), 0);
	g1 = sy_compile(&st, &opts, 1);
	g2 = sy_compile(&st, &opts, 2);
	sy_gen_publish(&slot, g1);
	assert_int_equal(pthread_create(&t, NULL, reader_main, &rd), 0);
	while (atomic_load(&rd.stage) != 1)
		;
	assert_ptr_equal(rd.held, g1);

	sy_gen_publish(&slot, g2);
	assert_ptr_equal(sy_gen_acquire(&slot), g2);
	/* The reader still holds g1: reclaim must keep it, however often asked. */
	assert_int_equal(sy_gen_reclaim(&slot), 1);
	assert_int_equal(sy_gen_reclaim(&slot), 1);
	assert_int_equal(atomic_load(&freed), 0);
	assert_int_equal(rd.held->id, 1); /* still valid memory */

	atomic_store(&rd.stage, 2);
	while (atomic_load(&rd.stage) != 3)
		;
	assert_int_equal(sy_gen_reclaim(&slot), 0);
	assert_int_equal(atomic_load(&freed), 1);
	assert_ptr_equal(freed_last, g1);
	pthread_join(t, NULL);

	sy_gen_slot_fini(&slot); /* frees the live g2 */
	assert_int_equal(atomic_load(&freed), 2);
	sy_store_fini(&st);
}

/*
 * Generation memory (control/gen/gen_mem.c): zeroed blocks, 16-byte aligned and
 * page aligned for page multiples, counted while in use, and a freed block's
 * place reused by the next block of its class. Under ASan the blocks come
 * from calloc, so only the reuse is not checked there.
 */
/* The store's counts per kind follow puts (new and replacing), removes and
 * a grown table, as a walk of the objects counts them. */
static void
test_store_counts(void **state)
{
	struct sy_store st;
	char name[32];
	unsigned i;

	(void)state;
	assert_int_equal(sy_store_init(&st), 0);
	for (i = 0; i < 3000; i++) { /* past the first 1,024 buckets */
		snprintf(name, sizeof(name), "r%u", i);
		put(&st, &sy_kind_route, "n", name, "2026-01-01T00:00:00Z", json_object());
	}
	for (i = 0; i < 10; i++) {
		snprintf(name, sizeof(name), "s%u", i);
		put(&st, &sy_kind_service, "n", name, "2026-01-01T00:00:00Z", json_object());
	}
	put(&st, &sy_kind_route, "n", "r7", "2026-01-01T00:00:00Z", json_object()); /* replaces */
	assert_int_equal(sy_store_count(&st, &sy_kind_route), 3000);
	assert_int_equal(sy_store_count(&st, &sy_kind_service), 10);
	assert_int_equal(sy_store_count(&st, &sy_kind_endpoints), 0);
	sy_object_free(sy_store_remove(&st, &sy_kind_route, "n", "r7"));
	sy_object_free(sy_store_remove(&st, &sy_kind_route, "n", "r7")); /* gone: NULL */
	sy_object_free(sy_store_remove(&st, &sy_kind_service, "n", "s0"));
	assert_int_equal(sy_store_count(&st, &sy_kind_route), 2999);
	assert_int_equal(sy_store_count(&st, &sy_kind_service), 9);
	assert_int_equal(st.count, 3008);
	sy_store_fini(&st);
}

static void
test_gen_mem_blocks(void **state)
{
	static const size_t sizes[] = { 1, 16, 17, 100, 4096, 8192, 8193, 20000 };
	void *p[sizeof(sizes) / sizeof(sizes[0])];
	size_t base = sy_gen_mem_bytes(), want = 0, i, j;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *b = sy_gen_mem_alloc(sizes[i]);

		assert_non_null(b);
		assert_int_equal((uintptr_t)b % 16, 0);
		if (sizes[i] % 4096 == 0)
			assert_int_equal((uintptr_t)b % 4096, 0);
		for (j = 0; j < sizes[i]; j++)
			assert_int_equal(b[j], 0);
		memset(b, 0xa5, sizes[i]);
		p[i] = b;
		want += sizes[i];
	}
	/* At least the sizes asked for, at most each rounded up to 16. */
	assert_true(sy_gen_mem_bytes() - base >= want);
	assert_true(sy_gen_mem_bytes() - base <= want + 16 * (sizeof(sizes) / sizeof(sizes[0])));
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		unsigned char *b;

		sy_gen_mem_free(p[i], sizes[i]);
		b = sy_gen_mem_alloc(sizes[i]);
		assert_non_null(b);
#ifndef __SANITIZE_ADDRESS__
		if (sizes[i] <= 8192)
			assert_ptr_equal(b, p[i]);
#endif
		for (j = 0; j < sizes[i]; j++)
			assert_int_equal(b[j], 0);
		p[i] = b;
	}
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++)
		sy_gen_mem_free(p[i], sizes[i]);
	assert_int_equal(sy_gen_mem_bytes(), base);
}


/* ---- the vhost table's probing (control/gen/gen_build.c, dataplane/gen_lookup.c) -- */

/* A vhost with no rules, as the table sees it: host, hash, its own arena. */
static struct sy_vhost *
bare_vhost(const char *host)
{
	struct sy_arena *a = sy_arena_new();
	struct sy_vhost *vh = a ? sy_arena_alloc(a, sizeof(*vh)) : NULL;

	assert_non_null(vh);
	vh->arena = a;
	vh->host = sy_arena_strdup(a, host);
	vh->host_len = (uint32_t)strlen(host);
	vh->hash = sy_host_hash(host, vh->host_len);
	return vh;
}

struct probe_key {
	uint32_t key; /* what the hosts must share */
	uint32_t n;   /* host "c<n>.probe.test" */
};

static int
cmp_probe_key(const void *a, const void *b)
{
	const struct probe_key *x = a, *y = b;

	return x->key < y->key ? -1 : x->key > y->key ? 1 : x->n < y->n ? -1 : x->n > y->n;
}

/*
 * Find `want` hosts that share `key_of`'s value (sorting a million
 * candidates: a 25-bit key shared by three is then all but certain).
 */
static void
hosts_sharing(uint32_t (*key_of)(uint32_t hash), char out[][32], unsigned want)
{
	const uint32_t n = 1u << 20;
	struct probe_key *k = malloc(n * sizeof(*k));
	uint32_t i, run = 1;

	assert_non_null(k);
	for (i = 0; i < n; i++) {
		char h[32];
		int len = snprintf(h, sizeof(h), "c%u.probe.test", i);

		k[i].key = key_of(sy_host_hash(h, (size_t)len));
		k[i].n = i;
	}
	qsort(k, n, sizeof(*k), cmp_probe_key);
	for (i = 1; i < n; i++) {
		run = k[i].key == k[i - 1].key ? run + 1 : 1;
		if (run == want)
			break;
	}
	assert_true(i < n);
	for (run = 0; run < want; run++)
		snprintf(out[run], 32, "c%u.probe.test", k[i - want + 1 + run].n);
	free(k);
}

/* The slot's tag and its home slot in a one-chunk table. */
static uint32_t
tag_and_home(uint32_t hash)
{
	return (uint32_t)(sy_vhost_slot_tag(hash) >> SY_VHOST_SLOT_ADDR_BITS) << 9 |
	       hash % SY_VHOST_CHUNK_SLOTS;
}

static uint32_t
last_slot_home(uint32_t hash)
{
	return hash % SY_VHOST_CHUNK_SLOTS == SY_VHOST_CHUNK_SLOTS - 1 ? 0 : 1 + (hash & 0xffff);
}

static const char *
found(const struct sy_generation *g, const char *host)
{
	const struct sy_vhost *vh = sy_gen_find_vhost(g, host, strlen(host));

	return vh ? vh->host : "-";
}

/*
 * Hosts whose slots carry the same tag and start probing at the same slot:
 * a lookup passes over the ones that are not its host (the tag matched, the
 * host compare said no) and finds its own; a host that shares both but is
 * not there is not found; removing one in the middle of the run keeps the
 * others found. Then two hosts whose home is the chunk's last slot: the
 * second wraps to slot 0 and is found there.
 */
static void
test_vhost_table_probing(void **state)
{
	char same[4][32], wrap[2][32];
	struct sy_generation *g, *g2;
	unsigned i;

	(void)state;
	hosts_sharing(tag_and_home, same, 4);
	hosts_sharing(last_slot_home, wrap, 2);
	g = sy_gen_begin(NULL, 1, 8, 503);
	assert_non_null(g);
	assert_int_equal(g->n_chunks, 1);
	for (i = 0; i < 3; i++)
		assert_int_equal(sy_gen_insert(g, bare_vhost(same[i])), 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(sy_gen_insert(g, bare_vhost(wrap[i])), 0);
	sy_gen_commit(g, NULL);
	for (i = 0; i < 3; i++)
		assert_string_equal(found(g, same[i]), same[i]);
	assert_string_equal(found(g, same[3]), "-");
	assert_int_equal(g->chunks[0]->slots[0] != 0, 1); /* the wrapped one */
	for (i = 0; i < 2; i++)
		assert_string_equal(found(g, wrap[i]), wrap[i]);

	/* A change drops the middle one of the run (a copy of the chunk). */
	g2 = sy_gen_begin(g, 2, 0, 503);
	assert_non_null(g2);
	assert_int_equal(sy_gen_remove_host(g2, same[1], strlen(same[1])), 0);
	sy_gen_commit(g2, g);
	assert_string_equal(found(g2, same[0]), same[0]);
	assert_string_equal(found(g2, same[1]), "-");
	assert_string_equal(found(g2, same[2]), same[2]);
	assert_string_equal(found(g2, wrap[1]), wrap[1]);
	/* The one it was begun from is untouched until it is retired. */
	assert_string_equal(found(g, same[1]), same[1]);
	assert_int_equal(g2->n_vhosts, 4);
	sy_generation_free(g);
	sy_generation_free(g2);
}

int
main(void)
{
	int rc;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_paths_longest_segment_prefix),
		cmocka_unit_test(test_host_lengths_and_case),
		cmocka_unit_test(test_openshift_endpoint_weights),
		cmocka_unit_test(test_rcu_reclaim_waits_for_reader),
		cmocka_unit_test(test_gen_mem_blocks),
		cmocka_unit_test(test_store_counts),
		cmocka_unit_test(test_vhost_table_probing),
	};

	if (sy_test_eal_init("test_generation") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
