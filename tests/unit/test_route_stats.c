/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter slots per route object (control/observe/route_stats.c): every rule
 * of an object gets its object's slot, the same across generations while it
 * lives; a deleted object's slot is freed; the series name each object with
 * its kind, namespace, name and vhost, and a histogram's buckets are in
 * order. No data plane: the counters read are zero.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "observe/route_stats.h"
#include "sy_generation.h"
#include "test_eal.h"
#include "test_router.h"

static uint16_t
slot_of(struct sy_router *r, const char *host, unsigned rule)
{
	struct sy_generation *g = sy_gen_acquire(&r->slot);
	const struct sy_vhost *vh = sy_gen_find_vhost(g, host, strlen(host));

	assert_non_null(vh);
	assert_true(rule < vh->n_rules);
	return vh->rules[rule].stat_slot;
}

static void
test_slots(void **state)
{
	struct sy_router r;
	uint16_t a, b, b2, c;
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	router_start(&r);
	ops_apply_ok(&r, T_SVC("n", "s") "," T_EPS("n", "s", "198.18.1.10") ","
		     T_ROUTE("n", "a", "a.test", "s") "," T_ROUTE("n", "b", "b.test", "s"));
	a = slot_of(&r, "a.test", 0);
	b = slot_of(&r, "b.test", 0);
	assert_int_not_equal(a, 0);
	assert_int_not_equal(b, 0);
	assert_int_not_equal(a, b);
	assert_int_equal(r.route_stats.slots.n_used, 2);
	/* Another object: the first two keep theirs. */
	ops_apply_ok(&r, T_ROUTE("n", "c", "c.test", "s"));
	c = slot_of(&r, "c.test", 0);
	assert_int_equal(slot_of(&r, "a.test", 0), a);
	assert_int_equal(slot_of(&r, "b.test", 0), b);
	assert_true(c != a && c != b && c != 0);
	/* a deleted: its slot is free, the others stay. */
	json_decref(ops_call(&r, "{\"op\":\"delete\",\"kind\":\"Route\",\"namespace\":\"n\",\"name\":\"a\"}"));
	assert_int_equal(r.route_stats.slots.n_used, 2);
	assert_null(r.route_stats.slots.key[a]);
	b2 = slot_of(&r, "b.test", 0);
	assert_int_equal(b2, b);
	/* The series: one per object, labelled. */
	f = open_memstream(&text, &len);
	assert_non_null(f);
	sy_route_stats_metrics(f, &r.route_stats);
	fclose(f);
	assert_non_null(strstr(text, "switchyard_route_requests_total{kind=\"Route\",namespace=\"n\",name=\"b\",vhost=\"b.test\"} 0\n"));
	assert_non_null(strstr(text, "switchyard_route_responses_total{kind=\"Route\",namespace=\"n\",name=\"c\",vhost=\"c.test\",code=\"5xx\"} 0\n"));
	assert_non_null(strstr(text, "switchyard_route_backend_response_seconds_bucket{kind=\"Route\",namespace=\"n\",name=\"c\",vhost=\"c.test\",le=\"0.0001\"} 0\n"));
	assert_non_null(strstr(text, "switchyard_route_backend_response_seconds_bucket{kind=\"Route\",namespace=\"n\",name=\"c\",vhost=\"c.test\",le=\"+Inf\"} 0\n"));
	assert_null(strstr(text, "name=\"a\""));
	free(text);
	/* The bucket of a duration. */
	assert_int_equal(sy_route_lat_bucket(0), 0);
	assert_int_equal(sy_route_lat_bucket(100), 0);
	assert_int_equal(sy_route_lat_bucket(101), 1);
	assert_int_equal(sy_route_lat_bucket(1000000), SY_ROUTE_LAT_BUCKETS - 2);
	assert_int_equal(sy_route_lat_bucket(1000001), SY_ROUTE_LAT_BUCKETS - 1);
	router_stop(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_slots, fresh_state, remove_state),
	};
	int rc;

	if (sy_test_eal_init("test_route_stats") < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
