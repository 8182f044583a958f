/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter slots by name, the control thread's side of a counter array each
 * worker keeps (route objects: route_stats.h; backend endpoints:
 * backend_stats.h). A name holds its slot while the live generation refers
 * to it: a plan follows only what a new generation changed (the vhosts it
 * added take a reference on each name they use, the ones it dropped give
 * theirs back), so it costs what a change touches, never what is loaded.
 * At the plan's end the slots left without a reference are freed, their
 * totals kept as the base the next owner's counters start from, so a name
 * never starts with another's counts. Slot 0 is never given: it means "not
 * counted" (every slot taken). A scrape sums a slot over the workers, less
 * its base, while they write (a moment's view, as every counter).
 */
#ifndef SY_OBSERVE_STAT_SLOTS_H
#define SY_OBSERVE_STAT_SLOTS_H

#include <stddef.h>
#include <stdint.h>

#include "strmap.h"

struct sy_stat_slots {
	struct sy_strmap slot_of; /* name -> slot (as a pointer) */
	char **key;               /* n: slot -> its name (owned), NULL: free */
	uint32_t *refs;           /* n: references the live generation holds */
	uint64_t *base;           /* n * words: a slot's totals when it was last freed */
	uint16_t *free_stack;     /* free slots, the lowest on top */
	uint16_t *gone;           /* slots whose references reached 0 in this plan */
	uint8_t *listed;          /* n: in gone now (each slot listed once) */
	uint32_t n_free, n_gone;
	const void *(*at)(unsigned w); /* worker w's array (n slots of words), NULL: none */
	size_t words;             /* uint64_t counters a slot */
	/* Words from here on are halves of gauges (opened, closed): never
	 * based, as what is still open on a freed slot closes on it. */
	size_t gauge_from;
	uint32_t n, n_used;
};

/* n slots (1..n-1 given; n <= 65536) of `words` counters, each worker's
 * array from at. 0, or -ENOMEM. Until then (n 0) there is nothing to count. */
int sy_stat_slots_init(struct sy_stat_slots *ss, uint32_t n, size_t words,
		       const void *(*at)(unsigned w), size_t gauge_from);
/* One reference more to name: its slot (a new one if it had none), or 0
 * when none is left (nothing to give back for it then). */
uint16_t sy_stat_slots_take(struct sy_stat_slots *ss, const char *name);
/* One reference less to slot s (what take gave; 0 is ignored). */
void sy_stat_slots_put(struct sy_stat_slots *ss, uint16_t s);
/* The plan is over: the slots left without references are freed, their
 * totals kept as their base. */
void sy_stat_slots_end(struct sy_stat_slots *ss);
/* Slot s's counters: the workers' sum, less its base. */
void sy_stat_slots_total(const struct sy_stat_slots *ss, unsigned s, uint64_t *out);
void sy_stat_slots_fini(struct sy_stat_slots *ss);

#endif
