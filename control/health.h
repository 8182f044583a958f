/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Active health checks, the control thread's side (docs/architecture.md 4.7; the
 * Contour seeds' healthCheck). The backend networks are reachable only
 * through the data plane, so the checks are planned here and sent by a
 * worker (sy_dataplane.h, dataplane/lb/hc_probe.h):
 *
 *  - plan: when a generation is about to be published, every endpoint of a
 *    pool with a health check becomes a target, keyed by address and port
 *    (the plan follows what the generation added and dropped, so a change
 *    costs what it touches, not what is loaded):
 *    one endpoint is checked once per interval however many routes and
 *    pools use it (the first pool met gives path, host, interval, timeout
 *    and thresholds). A target keeps its state across generations while
 *    its endpoint stays; the new generation's copies of the endpoint get
 *    that state before the workers see them.
 *  - tick: from the control loop, the targets that are due are handed to
 *    the probing worker, results are read back and fed to the state
 *    machine below; a change of state is written into every copy of the
 *    endpoint in the live generation (sy_endpoint.hc_down), so the workers'
 *    next picks follow it without a new generation.
 *
 * The state machine (Envoy's HTTP health checker, which Contour configures,
 * as the seed describes it):
 *   - a check passes on status 200; any other status, a refused or reset
 *     connection, or no status line within timeoutSeconds fails;
 *   - unknown (a new endpoint) -> healthy after one pass ("during startup,
 *     only a single successful health check is required"); traffic goes to
 *     an unknown endpoint, as to a server HAProxy has just started;
 *   - healthy or unknown -> unhealthy after unhealthyThresholdCount fails
 *     in a row, or at once on a 503 ("the upstream host can return 503 if
 *     it wants to immediately notify downstream hosts");
 *   - unhealthy -> healthy after healthyThresholdCount passes in a row.
 * Checks of a target are intervalSeconds apart, each interval spread by up
 * to 10% (and the first within a second) so that targets added together do
 * not stay in step.
 */
#ifndef SY_HEALTH_H
#define SY_HEALTH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sy_dataplane.h"

struct sy_generation;
struct sy_endpoint;
struct sy_pool;

enum sy_health_state {
	SY_HEALTH_UNKNOWN = 0,
	SY_HEALTH_HEALTHY,
	SY_HEALTH_UNHEALTHY,
};

/* One copy of a checked endpoint in the live generation, the pool it is in,
 * and how many of the generation's rules send to it. */
struct sy_health_copy {
	struct sy_endpoint *ep;
	const struct sy_pool *pool;
	uint32_t refs;
};

struct sy_health_target {
	struct sy_addr addr; /* either family */
	uint16_t port;       /* network order */
	char path[SY_HC_PATH_MAX];
	char host[SY_HC_HOST_MAX];
	uint32_t interval_ms, timeout_ms, unhealthy_threshold, healthy_threshold;

	enum sy_health_state state;
	uint32_t passes, fails; /* in a row */
	uint64_t checks, failed; /* since the target was made */
	uint8_t last_result;     /* enum sy_hc_result of the last check */
	uint16_t last_status;
	uint64_t next_ms;        /* monotonic ms: the next check is due */
	struct sy_hc_job *job;   /* in flight, or NULL */

	/* The endpoint's copies in the live generation (the first copy's
	 * pool gives the settings). */
	struct sy_health_copy *eps;
	size_t n_eps, cap_eps;
};

struct sy_health {
	struct sy_health_target **t; /* sorted by (ip, port) */
	size_t n, cap;
	size_t in_flight;
	/* SY_HC_JOBS_MAX jobs, allocated at the first tick; the free ones
	 * stacked in free_jobs. */
	struct sy_hc_job *jobs;
	struct sy_hc_job **free_jobs;
	size_t n_free;
	uint64_t transitions; /* state changes, both ways */
	/* While planning: the targets left without copies (n_gone may pass
	 * cap_gone when the list could not grow: then they are found by a
	 * pass). */
	struct sy_health_target **gone;
	size_t n_gone, cap_gone;
	uint64_t rng;
};

/* A check's outcome fed to t's state machine (no I/O: the unit tests drive
 * it with scripted answers). True when t's state changed. */
bool sy_health_observe(struct sy_health_target *t, enum sy_hc_result r, uint16_t status);

/* Targets for the checked endpoints of the vhosts g added, given back for
 * those it dropped from prev (sy_gen_next_added/_dropped), before g is
 * published; g's new copies get their targets' state. prev: the live
 * generation g replaces, or NULL. -ENOMEM: some of g's new copies are not
 * checked (they keep serving). */
int sy_health_plan(struct sy_health *h, const struct sy_generation *g,
		   const struct sy_generation *prev);
/* Send what is due, read what came back (now_ms: CLOCK_MONOTONIC). Returns
 * the milliseconds until the control loop should call again. */
int sy_health_tick(struct sy_health *h, uint64_t now_ms);
/* The target of addr:port (port network order), or NULL. */
const struct sy_health_target *sy_health_find(const struct sy_health *h,
					      const struct sy_addr *addr, uint16_t port);
const char *sy_health_state_name(enum sy_health_state s);
/* t's last check as `status` and the status page say it: "none yet", the
 * status it answered, or why it failed ("refused", "timeout", ...). */
void sy_health_last_text(const struct sy_health_target *t, char *buf, size_t len);
void sy_health_fini(struct sy_health *h);

#endif
