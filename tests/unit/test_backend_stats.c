/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter slots per backend endpoint (control/observe/backend_stats.c, over
 * stat_slots.c): every copy of an endpoint (address:port) in the live
 * generation gets the same slot, kept across generations while it stays; a
 * removed endpoint's slot is freed and given again; the series name each
 * endpoint, with its answers by class and a histogram whose buckets are in
 * order. No data plane: the counters read are zero.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "observe/backend_stats.h"
#include "observe/stat_slots.h"
#include "sy_generation.h"
#include "test_eal.h"
#include "test_router.h"

/* The slot of endpoint e of host's first rule. */
static uint16_t
slot_of(struct sy_router *r, const char *host, unsigned e)
{
	struct sy_generation *g = sy_gen_acquire(&r->slot);
	const struct sy_vhost *vh = sy_gen_find_vhost(g, host, strlen(host));

	assert_non_null(vh);
	assert_true(vh->n_rules > 0 && vh->rules[0].pool != NULL);
	assert_true(e < vh->rules[0].pool->n_endpoints);
	return vh->rules[0].pool->endpoints[e].stat_slot;
}

static char *
series(struct sy_router *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	assert_non_null(f);
	sy_backend_stats_metrics(f, &r->backend_stats);
	fclose(f);
	return text;
}

static void
test_endpoint_slots(void **state)
{
	struct sy_router r;
	uint16_t a, a2, b, c;
	char *text;

	(void)state;
	router_start(&r);
	/* Two Services on the same address: one endpoint (same port), one slot. */
	ops_apply_ok(&r, T_SVC("n", "s") "," T_EPS("n", "s", "198.18.1.10") "," T_SVC("n", "t") ","
		     T_EPS("n", "t", "198.18.1.10") "," T_SVC("n", "u") "," T_EPS("n", "u", "198.18.1.11") ","
		     T_ROUTE("n", "a", "a.test", "s") "," T_ROUTE("n", "b", "b.test", "t") ","
		     T_ROUTE("n", "c", "c.test", "u"));
	a = slot_of(&r, "a.test", 0);
	a2 = slot_of(&r, "b.test", 0);
	c = slot_of(&r, "c.test", 0);
	assert_int_not_equal(a, 0);
	assert_int_equal(a2, a);
	assert_true(c != 0 && c != a);
	assert_int_equal(r.backend_stats.slots.n_used, 2);
	assert_string_equal(r.backend_stats.slots.key[a], "198.18.1.10:8080");
	/* Another generation (a new route): the endpoints keep theirs. */
	ops_apply_ok(&r, T_ROUTE("n", "d", "d.test", "u"));
	assert_int_equal(slot_of(&r, "a.test", 0), a);
	assert_int_equal(slot_of(&r, "d.test", 0), c);
	/* u's endpoint moves: .11 is freed, .12 takes a slot. */
	ops_apply_ok(&r, T_EPS("n", "u", "198.18.1.12"));
	b = slot_of(&r, "c.test", 0);
	assert_int_not_equal(b, 0);
	assert_int_not_equal(b, a);
	assert_int_equal(r.backend_stats.slots.n_used, 2);
	assert_string_equal(r.backend_stats.slots.key[b], "198.18.1.12:8080");
	text = series(&r);
	assert_non_null(strstr(text, "switchyard_backend_requests_total{endpoint=\"198.18.1.12:8080\"} 0\n"));
	assert_non_null(strstr(text, "switchyard_backend_responses_total{endpoint=\"198.18.1.10:8080\",code=\"5xx\"} 0\n"));
	assert_non_null(strstr(text, "switchyard_backend_response_seconds_bucket{endpoint=\"198.18.1.10:8080\",le=\"0.0001\"} 0\n"));
	assert_non_null(strstr(text, "switchyard_backend_response_seconds_bucket{endpoint=\"198.18.1.10:8080\",le=\"+Inf\"} 0\n"));
	assert_non_null(strstr(text, "switchyard_backend_response_seconds_count{endpoint=\"198.18.1.10:8080\"} 0\n"));
	assert_non_null(strstr(text, "switchyard_backend_open_connections{endpoint=\"198.18.1.12:8080\"} 0\n"));
	assert_non_null(strstr(text, "switchyard_backend_endpoints_unslotted 0\n"));
	assert_null(strstr(text, "198.18.1.11"));
	free(text);
	router_stop(&r);
}

/* The slots themselves: taken by name with a reference each, none past the
 * last; a slot whose references are all given back is freed at the plan's
 * end (not before: a plan takes before it gives back), with its base, and
 * given again, lowest first. */
static void
test_slots(void **state)
{
	struct sy_stat_slots ss;
	uint16_t x, y, z;

	(void)state;
	assert_int_equal(sy_stat_slots_init(&ss, 3, 1, NULL, 1), 0);
	x = sy_stat_slots_take(&ss, "x");
	y = sy_stat_slots_take(&ss, "y");
	assert_int_equal(x, 1);
	assert_int_equal(y, 2);
	assert_int_equal(sy_stat_slots_take(&ss, "z"), 0); /* slot 0 is never given */
	assert_int_equal(sy_stat_slots_take(&ss, "x"), x); /* x: two references */
	sy_stat_slots_end(&ss);
	assert_int_equal(ss.n_used, 2);
	/* One of x's two given back: it stays. */
	sy_stat_slots_put(&ss, x);
	sy_stat_slots_end(&ss);
	assert_int_equal(ss.n_used, 2);
	assert_string_equal(ss.key[x], "x");
	/* Its last given back and taken again in the same plan: it stays. */
	sy_stat_slots_put(&ss, x);
	assert_int_equal(sy_stat_slots_take(&ss, "x"), x);
	sy_stat_slots_end(&ss);
	assert_string_equal(ss.key[x], "x");
	/* Given back for good: freed at the end, not before. */
	sy_stat_slots_put(&ss, x);
	sy_stat_slots_put(&ss, 0); /* "not counted": nothing to give back */
	assert_string_equal(ss.key[x], "x");
	assert_int_equal(sy_stat_slots_take(&ss, "z"), 0); /* none free yet */
	sy_stat_slots_end(&ss);
	assert_int_equal(ss.n_used, 1);
	assert_null(ss.key[x]);
	z = sy_stat_slots_take(&ss, "z");
	assert_int_equal(z, x);
	assert_string_equal(ss.key[z], "z");
	assert_int_equal(sy_stat_slots_take(&ss, "w"), 0);
	sy_stat_slots_end(&ss);
	sy_stat_slots_fini(&ss);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slots),
		cmocka_unit_test_setup_teardown(test_endpoint_slots, fresh_state, remove_state),
	};
	int rc;

	if (sy_test_eal_init("test_backend_stats") < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
