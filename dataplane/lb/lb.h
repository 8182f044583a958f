/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load balancing on the workers: the face of lb/. A pool's endpoint is
 * picked by its strategy with the tables the control thread built
 * (struct sy_lb_tables, control/gen/lb_tables.h):
 *   random (and the default)  weighted, O(1) by the alias table;
 *   round robin               the interleaved schedule, per worker;
 *   least request / leastconn power of two weighted random choices, the
 *                             one with fewer open backend connections on
 *                             this worker per unit of weight;
 *   source / consistentHash   Maglev over the client's address.
 * Retries (tries > 0) walk on from the first pick to the next endpoint
 * with weight, so each is tried at most once per connection.
 *
 * Open backend connections per endpoint are counted per worker in a small
 * table keyed by a hash of (address, port) (collisions share a count: an
 * approximation P2C tolerates); a record counts from the moment it names
 * its backend until it is freed (sy_lb_load_set / sy_lb_load_clear).
 */
#ifndef SY_LB_H
#define SY_LB_H

#include <stdbool.h>
#include <stdint.h>

struct sy_pool;
struct sy_worker;
struct sy_conn;
struct sy_endpoint;

#define SY_LB_LOAD_SLOTS 4096 /* per worker, a power of two */

/* An endpoint of p for a client at client_ip (network order; the key of
 * source affinity); -1: none (left). *first keeps the first pick. */
int sy_lb_pick(const struct sy_pool *p, struct sy_worker *w, uint32_t client_ip,
	       uint16_t *first, unsigned tries);

/*
 * Passive health (outlier detection), per worker like the load counts and
 * in the same slots: SY_LB_EJECT_AFTER failures in a row (a connect that
 * fails or is refused, a backend that resets or breaks before answering,
 * a 5xx answer) eject the endpoint from this worker's picks for
 * SY_LB_EJECT_BASE_MS times its ejection count (at most SY_LB_EJECT_MAX
 * times); a success resets the failures, and a success well after an
 * ejection lowers the count again. An endpoint its active health checks
 * put down (sy_endpoint.hc_down, control/health.h) counts as ejected on
 * every worker. A pick that lands on an ejected endpoint picks again (the
 * strategy's next choice) up to SY_LB_EJECT_REPICKS times, then takes the
 * next endpoint of the pool that is not ejected; when every endpoint is,
 * the last pick is used anyway (panic: a pool never goes dark because all
 * of it failed), or with lb_all_ejected "fail" there is no pick (503).
 */
#define SY_LB_EJECT_AFTER 5
#define SY_LB_EJECT_BASE_MS 10000
#define SY_LB_EJECT_MAX 8
#define SY_LB_EJECT_REPICKS 4

/*
 * A bounded share of a pool is ejected (Envoy's max_ejection_percent, "at
 * least one host regardless"): a worker honours a pool's passive ejections
 * while at most lb_max_ejected_percent of its endpoints (config, default
 * 50), and always one, are ejected; past that it uses them all, as if none
 * were (counted: lb_eject_bound_ignored), since failures across most of a
 * pool say more about the network or the router than about the endpoints.
 * Active health is not bounded: a checked endpoint that is down is never
 * picked while another is usable.
 */
#define SY_LB_EJECT_COUNT_SLOTS 64 /* per worker: pools whose count is kept */
#define SY_LB_EJECT_COUNT_MS 100   /* a count is good this long (ejections end by time) */

struct sy_lb_eject_count {
	const struct sy_pool *pool;
	uint64_t until; /* TSC */
	uint32_t epoch; /* the worker's eject_epoch when counted */
	bool honoured;
};

struct sy_lb_health {
	uint32_t fails;     /* in a row */
	uint32_t ejections; /* the multiplier of the next ejection */
	uint64_t until;     /* TSC: ejected before this */
};

/* What became of a connection or request to ip:port (network order). */
void sy_lb_report(struct sy_worker *w, uint32_t ip, uint16_t port, int ok);

/*
 * Sticky sessions by cookie (proxied vhosts; sy_rule.sticky_cookie): the
 * cookie's value is an opaque token of the endpoint's address and port
 * (the same on every worker and router, and after a configuration change
 * while the endpoint stays); a request whose token names a usable endpoint
 * of the pool (weight, not ejected) goes there, any other gets the
 * strategy's pick and a new cookie.
 */
uint64_t sy_lb_cookie_token(const struct sy_endpoint *e);
int sy_lb_cookie_find(const struct sy_pool *p, struct sy_worker *w, uint64_t tok);

/* The slot of ip:port (network order) in lb_load and lb_health. */
uint32_t sy_lb_slot(uint32_t ip, uint16_t port);

/* c now goes to ip:port (network order): its count moves there. */
void sy_lb_load_set(struct sy_worker *w, struct sy_conn *c, uint32_t ip, uint16_t port);
/* c is freed: its count goes. */
void sy_lb_load_clear(struct sy_worker *w, struct sy_conn *c);

#endif
