/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load balancing's per-worker state, as types only (lb/lb.h is the face):
 * what a worker's tables hold by value (conn/conn_tables_t.h).
 */
#ifndef SY_LB_T_H
#define SY_LB_T_H

#include <stdbool.h>
#include <stdint.h>

struct sy_pool;

#define SY_LB_LOAD_SLOTS 4096 /* per worker, a power of two */

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

#endif
