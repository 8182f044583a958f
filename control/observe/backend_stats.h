/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic per backend endpoint, the control thread's side (sy_backend_
 * stats.h): each endpoint (address:port) of the live generation's pools has
 * a slot, the same while it stays in the generation, written into every copy
 * of it (sy_endpoint.stat_slot) before a generation is published; the
 * workers count into their own arrays by it, a scrape sums them. A freed
 * slot's totals are the base its next endpoint starts from. The first
 * SY_BACKEND_STAT_SLOTS - 1 endpoints met are counted, the rest not
 * (counted: `unslotted`). The same slots list the endpoints for the series
 * of what the workers' load balancing knows of them (open connections,
 * ejection; sy_dp_endpoint_state).
 */
#ifndef SY_OBSERVE_BACKEND_STATS_H
#define SY_OBSERVE_BACKEND_STATS_H

#include <stdint.h>
#include <stdio.h>

#include "sy_addr.h"

#include "observe/stat_slots.h"
#include "sy_backend_stats.h"

struct sy_generation;

struct sy_backend_stats {
	struct sy_stat_slots slots;       /* "address:port" -> slot, bases */
	uint32_t ip[SY_BACKEND_STAT_SLOTS];   /* slot -> its address's key (sy_addr_key32) */
	uint16_t port[SY_BACKEND_STAT_SLOTS]; /* ... and port (network order) */
	uint64_t unslotted; /* endpoint copies (once per rule) of the live generation without a slot */
};

/* Slots for the endpoints of the vhosts g added, given back for those it
 * dropped from prev (sy_gen_next_added/_dropped), before g is published:
 * the cost of what changed. prev: the live generation g replaces, or NULL. */
void sy_backend_stats_plan(struct sy_backend_stats *bs, const struct sy_generation *g,
			   const struct sy_generation *prev);
/* The Prometheus series, one per endpoint (label `endpoint`). */
void sy_backend_stats_metrics(FILE *f, const struct sy_backend_stats *bs);
/* The counters of the endpoint with this slot (sy_endpoint.stat_slot) into
 * out: 0, or -ENOENT (no such slot; out zeroed). */
int sy_backend_stats_get(const struct sy_backend_stats *bs, uint16_t slot, struct sy_backend_ctr *out);
/* The same by address (network order) and port: -ENOENT when the live
 * generation has no such endpoint with a slot. */
int sy_backend_stats_of(const struct sy_backend_stats *bs, const struct sy_addr *addr, uint16_t port,
			struct sy_backend_ctr *out);
void sy_backend_stats_fini(struct sy_backend_stats *bs);

#endif
