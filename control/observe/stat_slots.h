/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Counter slots by name, the control thread's side of the workers' counter
 * arrays (route objects: route_stats.h; backend endpoints: backend_stats.h).
 * A plan walks what the next generation has and takes a slot per name: the
 * slot it had, or a free one. What the plan did not take is stale: its
 * owner keeps what it needs of the slot's totals (the next owner's base)
 * and frees it. Slot 0 is never given: it means "not counted".
 */
#ifndef SY_OBSERVE_STAT_SLOTS_H
#define SY_OBSERVE_STAT_SLOTS_H

#include <stdint.h>

#include "strmap.h"

struct sy_stat_slots {
	struct sy_strmap slot_of; /* name -> slot (as a pointer) */
	char **key;               /* n: slot -> its name (owned), NULL: free */
	uint32_t *seen;           /* n: the plan that last took it */
	uint32_t n, plan, n_used;
};

/* n slots (1..n-1 given). 0, or -ENOMEM. */
int sy_stat_slots_init(struct sy_stat_slots *ss, uint32_t n);
/* A new plan starts. */
void sy_stat_slots_begin(struct sy_stat_slots *ss);
/* name's slot in this plan (new if it had none), or 0 when none is left. */
uint16_t sy_stat_slots_take(struct sy_stat_slots *ss, const char *name);
/* The next slot in use that this plan did not take, from *s on (start at
 * 1); 0 when there is none. The caller frees it. */
uint16_t sy_stat_slots_next_stale(const struct sy_stat_slots *ss, uint32_t *s);
void sy_stat_slots_free(struct sy_stat_slots *ss, uint16_t s);
void sy_stat_slots_fini(struct sy_stat_slots *ss);

#endif
