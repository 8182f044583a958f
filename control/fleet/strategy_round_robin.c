/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Round robin, the proposal's initial strategy: each route to the next
 * candidate in name order. The cursor survives passes, so routes applied
 * one at a time still spread over the shards.
 */
#include "fleet/scheduler.h"

static int
pick_round_robin(void *state, const struct sy_sched_route *route,
		 const struct sy_sched_candidate *cands, size_t n)
{
	uint64_t *cursor = state;

	(void)route;
	(void)cands;
	if (n == 0)
		return -1;
	return (int)((*cursor)++ % n);
}

const struct sy_sched_strategy sy_sched_round_robin = {
	.name = "round-robin",
	.pick = pick_round_robin,
};
