/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Least loaded: the candidate with the fewest routes bound to it, the first
 * by name on a tie. Load counts every binding (explicit ones too), so a
 * shard its selectors fill up gets fewer routes from the strategy.
 */
#include "fleet/scheduler.h"

static int
pick_least_loaded(void *state, const struct sy_sched_route *route,
		  const struct sy_sched_candidate *cands, size_t n)
{
	size_t i, best = 0;

	(void)state;
	(void)route;
	if (n == 0)
		return -1;
	for (i = 1; i < n; i++)
		if (cands[i].load < cands[best].load)
			best = i;
	return (int)best;
}

const struct sy_sched_strategy sy_sched_least_loaded = {
	.name = "least-loaded",
	.pick = pick_least_loaded,
	.uses_load = true,
};
