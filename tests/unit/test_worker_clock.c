/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's clock (dataplane/worker_clock.h): steps up to the bound pass
 * through, so that until a jump the clock is the TSC itself; a step beyond
 * it counts as the bound, one backwards as nothing, and what is left out
 * (skip) keeps later readings at the TSC less it. The TSC's own wrap at
 * 2^64 is a step like any other.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "worker_clock.h"

#define MS 2100000ull /* TSC a millisecond: a 2.1 GHz TSC */
#define MAX (SY_CLOCK_STEP_MAX_MS * MS)
#define DAY (86400000ull * MS)

static void
test_step(void **state)
{
	(void)state;
	assert_int_equal(sy_clock_step(1000, 1000, MAX), 0);
	assert_int_equal(sy_clock_step(1000, 1000 + MS, MAX), MS);
	assert_int_equal(sy_clock_step(1000, 1000 + MAX, MAX), MAX);     /* the bound itself */
	assert_int_equal(sy_clock_step(1000, 1000 + MAX + 1, MAX), MAX); /* beyond: the bound */
	assert_int_equal(sy_clock_step(1000, 1000 + 5 * DAY, MAX), MAX);
	assert_int_equal(sy_clock_step(5 * DAY, 5 * DAY - 1, MAX), 0);   /* backwards */
	assert_int_equal(sy_clock_step(5 * DAY, MS, MAX), 0);
	/* The wrap: from just below 2^64 to just above 0 is a short step. */
	assert_int_equal(sy_clock_step(UINT64_MAX - MS + 1, MS, MAX), 2 * MS);
}

static void
test_tick(void **state)
{
	const uint64_t t0 = 123456789ull;
	struct sy_clock c;
	uint64_t tsc = t0, i;

	(void)state;
	sy_clock_init(&c, t0, MAX);
	/* Polls a millisecond apart, and a nap of 4.9 s: the TSC itself. */
	for (i = 0; i < 1000; i++) {
		tsc += MS;
		assert_false(sy_clock_tick(&c, tsc));
		assert_int_equal(c.now, tsc);
	}
	tsc += MAX - 1;
	assert_false(sy_clock_tick(&c, tsc));
	assert_int_equal(c.now, tsc);
	assert_int_equal(c.skip, 0);

	/* Resumed from a snapshot 5 days on: the bound, the rest skipped. */
	tsc += 5 * DAY;
	assert_true(sy_clock_tick(&c, tsc));
	assert_int_equal(c.now, tsc - 5 * DAY + MAX);
	assert_int_equal(c.skip, 5 * DAY - MAX);
	/* From there, the TSC less the skip. */
	tsc += 3 * MS;
	assert_false(sy_clock_tick(&c, tsc));
	assert_int_equal(c.now, tsc - (5 * DAY - MAX));
	assert_int_equal(c.skip, 5 * DAY - MAX);

	/* Migrated to a host whose TSC is an hour behind: the clock stands
	 * still for that step and goes on from there, never backwards. */
	{
		const uint64_t before = c.now;

		tsc -= 3600000ull * MS;
		assert_true(sy_clock_tick(&c, tsc));
		assert_int_equal(c.now, before);
		tsc += MS;
		assert_false(sy_clock_tick(&c, tsc));
		assert_int_equal(c.now, before + MS);
		/* skip, modulo 2^64, still maps the TSC to the clock. */
		assert_int_equal(tsc - c.skip, c.now);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_step),
		cmocka_unit_test(test_tick),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
