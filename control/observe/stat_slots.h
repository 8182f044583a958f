/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter slots by name, the control thread's side of a counter array each
 * worker keeps (route objects: route_stats.h; backend endpoints:
 * backend_stats.h). A plan walks what the next generation has and takes a
 * slot per name: the slot it had, or a free one. At the plan's end the
 * slots it did not take are freed, their totals kept as the base the next
 * owner's counters start from, so a name never starts with another's
 * counts. Slot 0 is never given: it means "not counted". A scrape sums a
 * slot over the workers, less its base, while they write (a moment's view,
 * as every counter).
 */
#ifndef SY_OBSERVE_STAT_SLOTS_H
#define SY_OBSERVE_STAT_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "strmap.h"

struct sy_stat_slots {
	struct sy_strmap slot_of; /* name -> slot (as a pointer) */
	char **key;               /* n: slot -> its name (owned), NULL: free */
	uint32_t *seen;           /* n: the plan that last took it */
	uint64_t *base;           /* n * words: a slot's totals when it was last freed */
	const void *(*at)(unsigned w); /* worker w's array (n slots of words), NULL: none */
	size_t words;             /* uint64_t counters a slot */
	/* Words from here on are halves of gauges (opened, closed): never
	 * based, as what is still open on a freed slot closes on it. */
	size_t gauge_from;
	uint32_t n, plan, n_used;
};

/* n slots (1..n-1 given) of `words` counters, each worker's array from at.
 * 0, or -ENOMEM. Until then (n 0) there is nothing to count. */
int sy_stat_slots_init(struct sy_stat_slots *ss, uint32_t n, size_t words,
		       const void *(*at)(unsigned w), size_t gauge_from);
/* A new plan starts. */
void sy_stat_slots_begin(struct sy_stat_slots *ss);
/* name's slot in this plan (new if it had none), or 0 when none is left. */
uint16_t sy_stat_slots_take(struct sy_stat_slots *ss, const char *name);
/* The plan is over: the slots it did not take are freed, their totals
 * kept as their base. */
void sy_stat_slots_end(struct sy_stat_slots *ss);
/* Slot s's counters: the workers' sum, less its base. */
void sy_stat_slots_total(const struct sy_stat_slots *ss, unsigned s, uint64_t *out);
void sy_stat_slots_fini(struct sy_stat_slots *ss);

#endif
