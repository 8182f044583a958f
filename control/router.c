/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "gen/gen.h"
#include "etcd/cache.h"
#include "etcd/sync.h"
#include "fleet/fleet.h"
#include "router.h"
#include "store/tree_heap.h"

void
sy_now_rfc3339(char *buf, size_t len)
{
	sy_rfc3339_format((int64_t)time(NULL), buf, len);
}

void
sy_router_compile_opts(const struct sy_router *r, struct sy_compile_opts *opts, char *now)
{
	*opts = (struct sy_compile_opts){
		/* In a fleet, generated hosts are under this router's shard. */
		.routing_subdomain = r->fleet_dns[0] ? r->fleet_dns : r->cfg.routing_subdomain,
		.fleet = r->fleet_routers > 0,
		.rel = &r->rel,
		.router_name = r->cfg.router_name,
		.allow_wildcard_routes = r->cfg.allow_wildcard_routes,
		.cfg = &r->cfg,
		.no_route_status = r->cfg.no_route_status,
		.now = now,
	};
	sy_now_rfc3339(now, 32);
}

/*
 * A Router was applied or deleted: count them again and find this router's
 * DNS. When that DNS changes, every Route's generated host does, and with
 * it the host keys the relations index holds for it (relations.h): index
 * the Routes again. The change compiles everything anyway (Routers do not
 * compile: scope.c).
 */
static void
fleet_refresh(struct sy_router *r)
{
	const char *dns;
	char was[sizeof(r->fleet_dns)];
	struct sy_compile_opts opts;
	struct sy_object **routes;
	char now[32];
	size_t n, i;

	r->fleet_routers = sy_store_count(&r->store, &sy_kind_router);
	dns = sy_fleet_router_dns(&r->store, r->cfg.router_name);
	memcpy(was, r->fleet_dns, sizeof(was));
	snprintf(r->fleet_dns, sizeof(r->fleet_dns), "%s", dns ? dns : "");
	if (strcmp(was, r->fleet_dns) == 0)
		return;
	sy_router_compile_opts(r, &opts, now);
	routes = sy_store_list(&r->store, &sy_kind_route, NULL, &n);
	if (routes == NULL) {
		r->changes.full = true;
		return;
	}
	for (i = 0; i < n; i++) {
		sy_relations_remove(&r->rel, routes[i], NULL);
		if (sy_relations_add(&r->rel, routes[i], &opts) < 0)
			RTE_LOG(ERR, USER1, "relations of Route %s/%s: out of memory\n",
				routes[i]->ns, routes[i]->name);
	}
	free(routes);
	r->changes.full = true;
}

struct sy_object *
sy_router_put(struct sy_router *r, struct sy_object *o)
{
	struct sy_compile_opts opts;
	struct sy_rel_keys old_keys = { 0 };
	struct sy_object *old;
	char now[32];

	sy_router_compile_opts(r, &opts, now);
	old = sy_store_put(&r->store, o);
	if (old != NULL)
		sy_relations_remove(&r->rel, old, &old_keys);
	if (sy_relations_add(&r->rel, o, &opts) < 0) {
		/* Without its keys the object cannot be scoped: compile all. */
		RTE_LOG(ERR, USER1, "relations of %s %s/%s: out of memory\n", o->kind->kind, o->ns,
			o->name);
		r->changes.full = true;
	}
	sy_changes_note(&r->changes, o->kind, o->ns, o->name, &old_keys, o);
	sy_rel_keys_fini(&old_keys);
	if (o->kind == &sy_kind_router) {
		fleet_refresh(r);
		r->sched.tidy_all = true; /* its dns may be new: bindings checked */
	}
	return old;
}

int
sy_router_remove(struct sy_router *r, const struct sy_kind *kind, const char *ns, const char *name)
{
	struct sy_rel_keys old_keys = { 0 };
	struct sy_object *o = sy_store_remove(&r->store, kind, ns, name);

	if (o == NULL)
		return -ENOENT;
	sy_relations_remove(&r->rel, o, &old_keys);
	sy_changes_note(&r->changes, kind, o->ns, o->name, &old_keys, NULL);
	sy_rel_keys_fini(&old_keys);
	sy_object_free(o);
	if (kind == &sy_kind_router) {
		fleet_refresh(r);
		r->sched.tidy_all = true; /* its bindings go */
	}
	return 0;
}

/* The scope of what changed, compiled against the live generation. NULL
 * when a full compile is needed (too much changed, out of memory, or the
 * scope turned out not to be closed, which is logged: it is a bug). */
static struct sy_generation *
compile_changes(struct sy_router *r, const struct sy_compile_opts *opts,
		struct sy_generation *live)
{
	struct sy_scope sc;
	struct sy_generation *g = NULL;
	/* Past half the store, one pass over everything is cheaper. */
	size_t limit = r->store.count / 2 + 64;
	int rc, err = 0;

	rc = sy_scope_build(&sc, &r->changes, &r->store, &r->rel, limit);
	if (rc == 0) {
		g = sy_compile_scoped(&r->store, opts, r->gen_id + 1, live, &sc.cs, &err);
		if (g == NULL && err == -ESRCH)
			RTE_LOG(ERR, USER1, "incremental compile: a rule for a host outside the "
					    "scope of %zu objects; compiling everything\n", sc.cs.n);
		if (g != NULL)
			r->last_compile_objects = sc.cs.n;
	}
	sy_scope_fini(&sc);
	return g;
}

int
sy_router_recompile(struct sy_router *r)
{
	char now[32];
	struct sy_compile_opts opts;
	struct sy_generation *live = sy_gen_acquire(&r->slot), *g = NULL;
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	sy_router_compile_opts(r, &opts, now);
	if (live != NULL && !r->changes.full) {
		struct sy_status_snapshot *sn =
			r->verify_compiles ? sy_compile_verify_prepare(&r->store) : NULL;

		g = compile_changes(r, &opts, live);
		if (g != NULL && sn != NULL)
			sy_compile_verify(&r->store, &opts, g, sn);
		else if (sn != NULL)
			sy_compile_verify(&r->store, &opts, NULL, sn);
	}
	r->last_compile_incremental = g != NULL;
	if (g == NULL) {
		g = sy_compile(&r->store, &opts, r->gen_id + 1);
		r->last_compile_objects = r->store.count;
	}
	if (g == NULL) {
		RTE_LOG(ERR, USER1, "compile failed (out of memory); generation %lu stays live\n",
			(unsigned long)r->gen_id);
		/* What changed is still unpublished: the next compile does all. */
		r->changes.full = true;
		return -ENOMEM;
	}
	sy_changes_reset(&r->changes);
	r->gen_id = g->id;
	/* The rules' and endpoints' counter slots, and the new endpoints'
	 * health, before any worker sees them: planned from what g added to
	 * and dropped from the live generation, so a scoped change costs
	 * what it touched. */
	sy_route_stats_plan(&r->route_stats, g, live);
	sy_backend_stats_plan(&r->backend_stats, g, live);
	if (sy_health_plan(&r->health, g, live) < 0)
		RTE_LOG(ERR, USER1, "health checks: out of memory planning generation %lu\n",
			(unsigned long)g->id);
	sy_gen_publish(&r->slot, g);
	sy_fleet_dns_publish(r); /* the shard zones, when the Routers changed */
	sy_fleet_vips_publish(r); /* our Router's VIPs, when they changed */
	clock_gettime(CLOCK_MONOTONIC, &t1);
	{
		struct timespec wall;

		clock_gettime(CLOCK_REALTIME, &wall);
		r->last_publish_time = (double)wall.tv_sec + (double)wall.tv_nsec / 1e9;
	}
	r->last_compile_ms = (double)(t1.tv_sec - t0.tv_sec) * 1e3 +
			     (double)(t1.tv_nsec - t0.tv_nsec) / 1e6;
	return 0;
}

/* Rewrite the journal as one record per live object, so replay time follows
 * the number of objects, not the number of changes ever made. */
static int
compact(struct sy_router *r)
{
	size_t n, i;
	struct sy_object **all = sy_store_list(&r->store, NULL, NULL, &n);
	json_t *recs = json_array();
	int rc;

	if (all == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		json_array_append_new(recs, json_pack("{s:s, s:[O]}", "op", "apply", "objects",
						      all[i]->obj));
	rc = sy_journal_rewrite(&r->journal, recs);
	json_decref(recs);
	free(all);
	return rc;
}

/* The scheduler's writes with the journal: an apply is done when it
 * returns (fleet/scheduler.h). */
static const struct sy_sched_sink journal_sched_sink = {
	.apply = sy_ops_apply,
	.del = sy_ops_delete,
};

int
sy_router_load(struct sy_router *r, char *err, size_t errlen)
{
	int rc, warned = 0;

	r->started = time(NULL);
	/* The first generation compiles everything; replay notes no changes. */
	r->changes.full = true;
	r->verify_compiles = getenv("SY_COMPILE_VERIFY") != NULL &&
			     strcmp(getenv("SY_COMPILE_VERIFY"), "1") == 0;
	if (sy_store_init(&r->store) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	sy_tree_heap_prewarm(); /* the first change's trees: no page faults */
	if (r->cfg.store.etcd) {
		/* Objects come from etcd (control/etcd/sync.h): the first
		 * generation is the local copy of the last run (etcd/cache.h),
		 * served until the first full read replaces it. */
		sy_etcd_cache_load(r);
		if (sy_router_recompile(r) < 0) {
			snprintf(err, errlen, "cannot compile the first generation: out of memory");
			return -ENOMEM;
		}
		if (r->cfg.scheduler && sy_sched_strategy_by_name(r->cfg.scheduler_strategy) == NULL) {
			snprintf(err, errlen, "scheduler_strategy \"%s\": unknown",
				 r->cfg.scheduler_strategy);
			return -EINVAL;
		}
		return sy_etcd_sync_open(r, err, errlen);
	}
	rc = sy_journal_open(&r->journal, r->cfg.state_dir);
	if (rc < 0) {
		snprintf(err, errlen, "state_dir %s: cannot open the journal: %s", r->cfg.state_dir,
			 strerror(-rc));
		return rc;
	}
	r->journal_open = true;
	rc = sy_journal_replay(&r->journal, sy_ops_replay_record, r, &warned);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot replay: %s", r->journal.path, strerror(-rc));
		return rc;
	}
	RTE_LOG(NOTICE, USER1, "journal %s: replayed %d records, %zu objects%s\n", r->journal.path,
		rc, r->store.count, warned ? " (a torn record was skipped)" : "");
	if (r->journal.records > r->store.count) {
		rc = compact(r);
		if (rc < 0)
			RTE_LOG(WARNING, USER1, "journal %s: compaction failed: %s (kept as is)\n",
				r->journal.path, strerror(-rc));
	}
	if (sy_router_recompile(r) < 0) {
		snprintf(err, errlen, "cannot compile the first generation: out of memory");
		return -ENOMEM;
	}
	sy_store_cool(&r->store);
	r->sched.sink = &journal_sched_sink;
	if (r->cfg.scheduler) {
		r->sched.strategy = sy_sched_strategy_by_name(r->cfg.scheduler_strategy);
		if (r->sched.strategy == NULL) {
			snprintf(err, errlen, "scheduler_strategy \"%s\": unknown",
				 r->cfg.scheduler_strategy);
			return -EINVAL;
		}
		/* Routes the journal holds unscheduled are taken at once, and
		 * every binding is checked. */
		r->sched.tidy_all = true;
		sy_scheduler_run(r);
	}
	return 0;
}

void
sy_router_fini(struct sy_router *r)
{
	sy_etcd_sync_close(r);
	sy_etcd_cache_free(r);
	if (r->journal_open)
		sy_journal_close(&r->journal);
	r->journal_open = false;
	sy_changes_reset(&r->changes);
	sy_relations_fini(&r->rel);
	sy_store_fini(&r->store);
	sy_health_fini(&r->health);
	free(r->dns_published);
	r->dns_published = NULL;
	sy_route_stats_fini(&r->route_stats);
	sy_backend_stats_fini(&r->backend_stats);
}
