/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The tree heap (control/store/tree_heap.c): jansson trees parsed between
 * enter and leave come from it and nothing else does; a chunk is given back
 * when its last block is freed, whichever thread frees it, and not before,
 * however long one value of a tree is kept; given-back chunks beyond the
 * hot few leave the process's resident memory. Through the store's own
 * path as well: an unpacked object is a tree heap tree.
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "store/pack.h"
#include "store/tree_heap.h"

/* About 1.3 KB of text, some 3 KB of tree: a 2 MB chunk holds a few
 * hundred. */
static json_t *
parse_one(unsigned i)
{
	char text[2048];
	json_error_t e;
	json_t *j;
	int n = snprintf(text, sizeof(text),
			 "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
			 "\"metadata\":{\"name\":\"r-%u\",\"namespace\":\"ns-%u\","
			 "\"labels\":{\"app\":\"shop\",\"tier\":\"front\",\"index\":\"%u\"}},"
			 "\"spec\":{\"host\":\"r-%u.apps.example.test\",\"path\":\"/p/%u\","
			 "\"to\":{\"kind\":\"Service\",\"name\":\"svc-%u\",\"weight\":100},"
			 "\"alternateBackends\":[{\"kind\":\"Service\",\"name\":\"a-%u\",\"weight\":5},"
			 "{\"kind\":\"Service\",\"name\":\"b-%u\",\"weight\":7}],"
			 "\"port\":{\"targetPort\":\"http\"},\"tls\":{\"termination\":\"edge\","
			 "\"insecureEdgeTerminationPolicy\":\"Redirect\"}}}",
			 i, i % 97, i, i, i, i % 13, i, i);

	sy_tree_heap_enter(SY_TREE_OBJECT);
	j = json_loadb(text, (size_t)n, 0, &e);
	sy_tree_heap_leave();
	assert_non_null(j);
	return j;
}

enum { N = 6000 };

static size_t
in_use(void)
{
	struct sy_tree_heap_stats s;

	sy_tree_heap_stats(&s);
	return s.chunks_in_use;
}

static long
rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long kb = -1;

	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "VmRSS: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

static bool
enabled(void)
{
	struct sy_tree_heap_stats s;

	sy_tree_heap_stats(&s);
	return s.enabled;
}

/* First, while the heap is empty: sy_tree_heap_prewarm maps the chunks
 * kept for small requests, and the first parses of each class come from
 * them, not from new chunks (whose pages the kernel would zero then: the
 * first change after an etcd start took 10 ms for it). A second prewarm
 * does nothing. */
static void
test_prewarm_serves_the_first_request(void **state)
{
	struct sy_tree_heap_stats s, after;
	json_t *obj;

	(void)state;
	if (!enabled())
		skip();
	sy_tree_heap_stats(&s);
	assert_int_equal(s.chunks_mapped, 0);
	sy_tree_heap_prewarm();
	sy_tree_heap_stats(&s);
	assert_true(s.chunks_mapped >= 2);
	assert_int_equal(s.chunks_hot, s.chunks_mapped);
	assert_int_equal(s.chunks_in_use, 0);
	sy_tree_heap_prewarm();
	sy_tree_heap_stats(&after);
	assert_int_equal(after.chunks_mapped, s.chunks_mapped);
	/* One class only: the tests after count on one current chunk. */
	obj = parse_one(7);
	assert_true(sy_tree_heap_owns(obj));
	sy_tree_heap_stats(&after);
	assert_int_equal(after.chunks_mapped, s.chunks_mapped); /* none carved */
	assert_int_equal(after.chunks_hot, s.chunks_hot - 1);   /* a hot one is current */
	json_decref(obj);
}

static void
test_only_between_enter_and_leave(void **state)
{
	json_t *inside, *outside, *host;
	char *dumped;

	(void)state;
	if (!enabled())
		skip(); /* before anything is allocated: skip() does not return */
	inside = parse_one(1);
	outside = json_pack("{s:s}", "a", "b");
	host = json_object_get(json_object_get(inside, "spec"), "host");
	dumped = json_dumps(inside, JSON_COMPACT);
	assert_true(sy_tree_heap_owns(inside));
	assert_true(sy_tree_heap_owns(host));
	assert_true(sy_tree_heap_owns(json_string_value(host)));
	assert_false(sy_tree_heap_owns(outside));
	assert_false(sy_tree_heap_owns(dumped));
	assert_string_equal(json_string_value(host), "r-1.apps.example.test");
	/* jansson's documented way to free what json_dumps returns. */
	free(dumped);
	json_decref(outside);
	json_decref(inside);
}

static void
test_chunks_given_back(void **state)
{
	static json_t *t[N];
	size_t before, during, i;
	struct sy_tree_heap_stats s;
	long rss_full, rss_after;

	(void)state;
	if (!enabled())
		skip();
	before = in_use();
	for (i = 0; i < N; i++)
		t[i] = parse_one((unsigned)i);
	during = in_use();
	/* Some 18 MB of trees: several chunks beyond the current one. */
	assert_true(during >= before + 6);
	rss_full = rss_kb();
	for (i = 0; i < N; i++)
		json_decref(t[i]);
	/* Every block freed: only the current chunk is still in use. */
	assert_int_equal(in_use(), 1);
	sy_tree_heap_stats(&s);
	assert_true(s.chunks_hot <= 4);
	/* The rest went back to the kernel. */
	rss_after = rss_kb();
	print_message("chunks %zu in use at the peak, %zu hot; RSS %ld -> %ld kB\n", during, s.chunks_hot, rss_full, rss_after);
	assert_true(rss_full - rss_after >=
		    (long)((during - 1 - s.chunks_hot) * (SY_TREE_CHUNK / 1024)) / 2);
	/* And are used again rather than new address space. */
	for (i = 0; i < N; i++)
		t[i] = parse_one((unsigned)i);
	{
		struct sy_tree_heap_stats again;

		sy_tree_heap_stats(&again);
		assert_int_equal(again.chunks_mapped, s.chunks_mapped);
	}
	for (i = 0; i < N; i++)
		json_decref(t[i]);
	assert_int_equal(in_use(), 1);
}

static void
test_kept_value_keeps_its_chunk(void **state)
{
	static json_t *t[N];
	json_t *kept;
	size_t i;

	(void)state;
	if (!enabled())
		skip();
	for (i = 0; i < N; i++)
		t[i] = parse_one((unsigned)i);
	/* A reply or a kind keeps one value of the first tree. */
	kept = json_incref(json_object_get(json_object_get(t[0], "spec"), "alternateBackends"));
	for (i = 0; i < N; i++)
		json_decref(t[i]);
	assert_int_equal(in_use(), 2);
	/* Overwrite whatever was given back: the kept value must not move. */
	for (i = 0; i < N; i++)
		t[i] = parse_one((unsigned)i + 100000);
	assert_string_equal(json_string_value(json_object_get(json_array_get(kept, 1), "name")), "b-0");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(kept, 0), "weight")), 5);
	for (i = 0; i < N; i++)
		json_decref(t[i]);
	assert_int_equal(in_use(), 2);
	json_decref(kept);
	assert_int_equal(in_use(), 1);
}

static void *
free_all(void *arg)
{
	json_t **t = arg;
	size_t i;

	for (i = 0; i < N; i++)
		json_decref(t[i]);
	return NULL;
}

static void
test_freed_on_another_thread(void **state)
{
	static json_t *t[N];
	pthread_t th;
	size_t i;

	(void)state;
	for (i = 0; i < N; i++)
		t[i] = parse_one((unsigned)i);
	assert_int_equal(pthread_create(&th, NULL, free_all, t), 0);
	assert_int_equal(pthread_join(th, NULL), 0);
	if (enabled())
		assert_int_equal(in_use(), 1);
}

/* The store's path: sy_unpack_object gives a tree of the tree heap, equal
 * to what was packed. */
static void
test_unpacked_objects_are_tree_heap_trees(void **state)
{
	struct sy_packed p = { 0 };
	json_t *obj = json_pack("{s:s, s:{s:s}}", "kind", "Route", "spec", "host", "a.example.test");
	json_t *status = json_pack("{s:[{s:s}]}", "ingress", "host", "a.example.test");
	json_t *o2, *s2;

	(void)state;
	assert_int_equal(sy_pack(obj, status, &p), 0);
	o2 = sy_unpack_object(&p);
	s2 = sy_unpack_status(&p);
	assert_non_null(o2);
	assert_non_null(s2);
	assert_true(json_equal(o2, obj));
	assert_true(json_equal(s2, status));
	if (enabled()) {
		assert_true(sy_tree_heap_owns(o2));
		assert_true(sy_tree_heap_owns(s2));
		assert_false(sy_tree_heap_owns(obj));
	}
	json_decref(o2);
	json_decref(s2);
	json_decref(obj);
	json_decref(status);
	sy_packed_free(&p);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_prewarm_serves_the_first_request), /* first: an empty heap */
		cmocka_unit_test(test_only_between_enter_and_leave),
		cmocka_unit_test(test_chunks_given_back),
		cmocka_unit_test(test_kept_value_keeps_its_chunk),
		cmocka_unit_test(test_freed_on_another_thread),
		cmocka_unit_test(test_unpacked_objects_are_tree_heap_trees),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
