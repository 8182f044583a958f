/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Traffic counters per route object (an OpenShift Route, an IngressRoute, a
 * RouteGroup...), counted on the workers and summed by the control thread
 * at a scrape (control/observe/route_stats.h). Each worker has its own
 * array, indexed by the slot the control thread gave the object
 * (sy_rule.stat_slot): no sharing, no atomics, a scrape reads while the
 * workers write (a moment's view, as every counter). A slot stays the
 * object's while it lives; a freed slot's totals are remembered as its
 * base, so the next object starts from zero.
 */
#ifndef SY_ROUTE_STATS_H
#define SY_ROUTE_STATS_H

#include <stdbool.h>
#include <stdint.h>

#define SY_ROUTE_STAT_SLOTS 8192 /* route objects counted; slot 0 is "none" */

/* Latency buckets' upper bounds in microseconds (the last is +Inf). */
#define SY_ROUTE_LAT_BUCKETS 12
static const uint32_t sy_route_lat_le_us[SY_ROUTE_LAT_BUCKETS - 1] __attribute__((unused)) = {
	100, 500, 1000, 2500, 5000, 10000, 25000, 50000, 100000, 500000, 1000000,
};

/* What traffic leaves on a route object and on a backend endpoint alike. */
struct sy_traffic_ctr {
	uint64_t requests;     /* proxied requests */
	uint64_t responses[5]; /* by class, 1xx..5xx (the backend's, or the router's own) */
	uint64_t bytes_in;     /* from clients: request heads and bodies (proxy), a
				* spliced connection's bytes (at its end) */
	uint64_t bytes_out;    /* to clients: response heads and bodies (proxy), a
				* spliced connection's bytes (at its end) */
	/* The backend's time: request queued to the backend leg (connect
	 * included) to its response head. */
	uint64_t backend_us_sum;
	uint64_t backend_le[SY_ROUTE_LAT_BUCKETS];
};

struct sy_route_ctr {
	uint64_t connections; /* client connections routed by this object's rules */
	struct sy_traffic_ctr tr;
	/* The router's own time on a request: its head complete to queued for
	 * the backend (parse, route, filters, a backend leg found), plus the
	 * response head's way to the client. */
	uint64_t router_us_sum;
	uint64_t router_le[SY_ROUTE_LAT_BUCKETS];
	/* Connections bound to the object now are opened less closed (a
	 * gauge made of two counters, so each stays one worker's plain
	 * store): a spliced or answered connection from its rule's match to
	 * both ends closed; a proxied one while its latest request was the
	 * object's (observe/conn_stats.h). */
	uint64_t flows_opened;
	uint64_t flows_closed;
};

/* The bucket of a duration in microseconds. */
static inline unsigned
sy_route_lat_bucket(uint32_t us)
{
	unsigned i;

	for (i = 0; i < SY_ROUTE_LAT_BUCKETS - 1; i++)
		if (us <= sy_route_lat_le_us[i])
			return i;
	return SY_ROUTE_LAT_BUCKETS - 1;
}

/* A proxied request's exchange, over: its answer's status (0: none), bytes
 * both ways, and the backend's time in microseconds when it answered. */
static inline void
sy_traffic_count(struct sy_traffic_ctr *c, uint16_t status, uint64_t in, uint64_t out,
		 bool timed, uint32_t backend_us)
{
	c->requests++;
	if (status >= 100 && status < 600)
		c->responses[status / 100 - 1]++;
	c->bytes_in += in;
	c->bytes_out += out;
	if (timed) {
		c->backend_us_sum += backend_us;
		c->backend_le[sy_route_lat_bucket(backend_us)]++;
	}
}

#endif
