/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The RouteScheduler (the sharding proposal's state reconciler): binds
 * unscheduled OpenShift Routes to Routers by creating RouteBinding objects.
 *
 * It runs on the control thread of the routerd whose config has
 * "scheduler": true (one per fleet; leader election comes later): after
 * every apply or delete that succeeded, and every scheduler_retry_s
 * seconds (control/main.c), so that a route no Router could take is tried
 * again, as the proposal's "periodically list the unscheduled Routes to
 * retry". One pass (sy_scheduler_run):
 *
 *  1. Tidy: bindings whose Route or Router is gone are deleted; a binding
 *     whose spec.dns is no longer its Router's is applied again with it.
 *  2. Explicit: every Router with a routeSelector or namespaceSelector
 *     binds every route both of its (given) selectors match, without the
 *     strategy. Shards may overlap: a route matched by two Routers is bound
 *     to both.
 *  3. Strategy: a route with no binding at all is handed to the strategy
 *     with the candidates: the Routers without selectors (a Router with
 *     selectors only takes what they match). No candidate, or the strategy
 *     says no: the route stays "new" and is retried next pass.
 *
 * Bindings are created through the apply path (sy_ops_apply: validated,
 * journaled, compiled), named "<route>.<router>" in the route's namespace.
 * With an etcd store they go in applies of at most 128 (etcd's
 * --max-txn-ops), and a pass waits until every write this router made is
 * back through the watch (its sink's `settled`): a pass that ran meanwhile
 * would not see the bindings on their way and would bind those routes again.
 * Bindings are sticky: a route whose labels change keeps its bindings until
 * they are deleted (the routes doc: the first route on a shard keeps it).
 */
#ifndef SY_FLEET_SCHEDULER_H
#define SY_FLEET_SCHEDULER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <jansson.h>

struct sy_router;

/* A Router the strategy may choose. */
struct sy_sched_candidate {
	const char *name;
	const char *dns;
	size_t load; /* routes bound to it now (this pass's bindings included); counted
		      * only for a strategy with uses_load, else 0 */
};

/* The route being scheduled. */
struct sy_sched_route {
	const char *ns;
	const char *name;
	const json_t *labels; /* metadata.labels, or NULL */
};

/*
 * The pluggable strategy (the proposal's RouteSchedulerStrategy: Schedule(route)
 * -> router). `pick` gets the candidates sorted by name and returns the index
 * of the one to bind to, or -1 when it will not schedule the route now (it is
 * retried). `state` is the strategy's own, zeroed at start, kept across passes.
 */
struct sy_sched_strategy {
	const char *name;
	int (*pick)(void *state, const struct sy_sched_route *route,
		    const struct sy_sched_candidate *cands, size_t n);
	/* It reads the candidates' loads: a pass counts them (every binding
	 * unpacked, each pass); without it loads are 0. */
	bool uses_load;
};

extern const struct sy_sched_strategy sy_sched_round_robin;  /* strategy_round_robin.c */
extern const struct sy_sched_strategy sy_sched_least_loaded; /* strategy_least_loaded.c */

/* A strategy by its config name ("round-robin", "least-loaded"), or NULL. */
const struct sy_sched_strategy *sy_sched_strategy_by_name(const char *name);

/*
 * Where a pass's writes go and when a pass may run: given by the store's
 * owner (router.c: the journal's; etcd/sync.c: etcd's). The scheduler
 * writes only through this, so fleet/ calls neither the control socket's
 * ops nor etcd/, and neither calls back into a pass but through
 * sy_scheduler_run.
 */
struct sy_sched_sink {
	/* Apply and delete, as the control socket's ops (ops/ops.h): a reply
	 * the caller frees. */
	json_t *(*apply)(struct sy_router *r, const json_t *req);
	json_t *(*del)(struct sy_router *r, const json_t *req);
	/* The reply to an apply or delete says the write was taken: done, or
	 * on its way and answered later. NULL: only {"ok": true} is. */
	bool (*taken)(const json_t *reply);
	/* Every write this router made is back in the store, so a pass sees
	 * the bindings on their way and does not bind those routes again.
	 * Until then a pass is put off (`due`); the owner runs it later. */
	bool (*settled)(const struct sy_router *r);
	/* Objects per apply at most (a larger one is refused); 0: no bound. */
	size_t max_per_apply;
};

struct sy_scheduler {
	const struct sy_sched_strategy *strategy; /* NULL: not a scheduler */
	const struct sy_sched_sink *sink;         /* NULL until the store is open: no pass */
	uint64_t state[4];                        /* the strategy's */
	time_t next_retry;                        /* control/main.c's timer */
	bool due; /* a pass was put off until the sink's writes settle */
	/* Next pass looks at everything (a Router changed): every binding's
	 * Router and dns, every route against the Routers' selectors.
	 * Otherwise a pass looks at what changed and at the routes without a
	 * binding (whether one exists: the relations index), which is what
	 * the periodic retry needs, and stays cheap at 100,000 routes. */
	bool tidy_all;
	/* Last pass, for `status`. */
	size_t last_bound, last_unscheduled, last_removed;
};

/* One pass (above). Returns the number of bindings created, updated or
 * deleted, or -errno (a failed apply is logged and retried next pass). */
int sy_scheduler_run(struct sy_router *r);

#endif
