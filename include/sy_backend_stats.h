/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic counters per backend endpoint (address:port), counted on the
 * workers as the route counters are (sy_route_stats.h): each worker has its
 * own array, indexed by the slot the control thread gave the endpoint
 * (sy_endpoint.stat_slot; control/observe/backend_stats.h), the same in
 * every pool that has it and across generations while it is in the live
 * one. Plain stores by one worker, summed at a scrape; a freed slot's
 * totals are its next owner's base.
 */
#ifndef SY_BACKEND_STATS_H
#define SY_BACKEND_STATS_H

#include <stdint.h>

#include "sy_route_stats.h"

#define SY_BACKEND_STAT_SLOTS 8192 /* endpoints counted; slot 0 is "none" */

struct sy_backend_ctr {
	uint64_t connections; /* client connections spliced to it */
	/* Proxied requests it was sent (a retried one: the last endpoint
	 * tried) and their answers (the router's own when it failed them);
	 * bytes towards it (in) and from it (out); its response time. */
	struct sy_traffic_ctr tr;
};

#endif
