/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic per route object, the control thread's side (sy_route_stats.h):
 * each object whose rules are in the live generation has a slot, the same
 * across generations while the object lives, written into its rules
 * (sy_rule.stat_slot) before a generation is published; the workers count
 * into their own arrays by it; a scrape sums them. A slot freed (its object
 * gone from the generation) remembers its totals as a base the next owner
 * starts from, so an object's counters never start with another's. Past
 * SY_ROUTE_STAT_SLOTS - 1 objects the rest are not counted (counted:
 * `unslotted`).
 */
#ifndef SY_OBSERVE_ROUTE_STATS_H
#define SY_OBSERVE_ROUTE_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "observe/stat_slots.h"
#include "sy_route_stats.h"

struct sy_generation;

struct sy_route_stats {
	struct sy_stat_slots slots;          /* "Kind ns/name" -> slot, bases */
	char *host[SY_ROUTE_STAT_SLOTS];     /* the vhost its series are labelled with */
	/* While a plan runs: a vhost g added for the object, other than its
	 * label's (a pointer into g), should it leave that one. */
	const char *moved_to[SY_ROUTE_STAT_SLOTS];
	uint32_t moved_plan[SY_ROUTE_STAT_SLOTS];
	uint32_t plan;
	uint64_t unslotted; /* rules of the live generation whose object has no slot */
};

/* Slots for the rules of the vhosts g added, given back for those it
 * dropped from prev (sy_gen_next_added/_dropped), before g is published:
 * the cost of what changed. prev: the live generation g replaces, or NULL. */
void sy_route_stats_plan(struct sy_route_stats *rs, const struct sy_generation *g,
			 const struct sy_generation *prev);
/* The Prometheus series (observe/metrics.c). */
void sy_route_stats_metrics(FILE *f, const struct sy_route_stats *rs);
/* The same totals as a list, one object a route ("route": "Kind ns/name",
 * vhost, connections, requests, responses [1xx..5xx], bytes_in, bytes_out):
 * the routes-traffic op. */
#include <jansson.h>
json_t *sy_route_stats_json(const struct sy_route_stats *rs);
void sy_route_stats_fini(struct sy_route_stats *rs);

#endif
