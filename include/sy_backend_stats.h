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
	uint64_t connections;  /* client connections spliced to it */
	uint64_t requests;     /* proxied requests it was sent (the last try's endpoint) */
	uint64_t responses[5]; /* their answers by class, 1xx..5xx (the router's own
				* when the endpoint failed them) */
	uint64_t bytes_in;     /* towards it: proxied requests, spliced client bytes */
	uint64_t bytes_out;    /* from it: proxied responses, spliced backend bytes */
	/* Request queued to it (connect included) to its response head,
	 * proxied requests it answered; the route histograms' buckets. */
	uint64_t response_us_sum;
	uint64_t response_le[SY_ROUTE_LAT_BUCKETS];
};

#endif
