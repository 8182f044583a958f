/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control thread's state: config, objects, journal and the published
 * generation. One instance per routerd; unit tests make their own.
 */
#ifndef SY_ROUTER_H
#define SY_ROUTER_H

#include <stdbool.h>
#include <time.h>

#include <jansson.h>

#include "store/age.h"
#include "health.h"
#include "observe/backend_stats.h"
#include "observe/route_stats.h"
#include "store/journal.h"
#include "store/relations.h"
#include "gen/scope.h"
#include "store/store.h"
#include "sy_vrrp.h"
#include "fleet/scheduler.h"
#include "sy_config.h"
#include "sy_gen_slot.h"

struct sy_etcd_sync;
struct sy_conn_stats;

#define SY_REQUEST_MAX (16u << 20) /* longest request line accepted */

struct sy_router {
	struct sy_config cfg;
	struct sy_store store;
	struct sy_journal journal;
	bool journal_open;
	struct sy_gen_slot slot;
	uint64_t gen_id;     /* id of the live generation */
	time_t started;
	bool dataplane_up;   /* stats can be read */
	/* A graceful drain (SIGTERM/SIGINT, drain_s; control/main.c): since
	 * when and until when (sy_mono_ms), and the connections it waits for
	 * at the last look. */
	bool draining;
	uint64_t drain_since_ms, drain_until_ms;
	/* Not before then, even with nothing in flight: the VIPs it gave away
	 * have surely found their standby (sy_dp_drain_begin). */
	uint64_t drain_handover_ms;
	unsigned drain_conns;
	struct sy_relations rel;     /* which objects meet (relations.h) */
	struct sy_changes changes;   /* since the live generation (scope.h) */
	bool verify_compiles;        /* SY_COMPILE_VERIFY=1: check each incremental one */
	/* Last compile, for stats: objects compiled (all, or the scope's). */
	size_t last_compile_objects;
	bool last_compile_incremental;
	double last_compile_ms;      /* compile + publish */
	struct sy_age_clock clock;   /* stamps new objects in the order they are accepted (age.h) */
	double last_publish_time;    /* Unix time the live generation was published */
	struct sy_health health;     /* active health checks of the live generation (health.h) */
	struct sy_route_stats route_stats; /* traffic counters' slots per route object */
	struct sy_backend_stats backend_stats; /* ... and per backend endpoint */
	struct sy_dns_table *dns_published; /* the zones the workers answer for (fleet/dns_zones.c) */
	struct sy_vrrp_vips vrrp_published; /* the VIPs worker 0 runs VRRP for (fleet/vips.c) */
	bool vrrp_published_set;
	/* Fleet (control/fleet/fleet.h): how many Router objects the store
	 * holds (fleet mode when > 0), and the spec.dns of the Router named by
	 * router_name ("" when there is none): generated hosts go under it.
	 * Kept by sy_router_put/_remove, so compiles need not count. */
	size_t fleet_routers;
	char fleet_dns[254];
	struct sy_scheduler sched;   /* the route scheduler when cfg.scheduler */
	struct sy_etcd_sync *etcd;   /* the etcd store, or NULL: the journal (etcd/sync.h) */
	struct sy_etcd_cache *etcd_cache; /* its local copy (etcd/cache.h) */
	/* The counters of the control socket's and the metrics address's
	 * servers (stream_conn.h), NULL when not serving. */
	const struct sy_conn_stats *control_conns, *metrics_conns;
};

/* Store + journal replay + first generation. The slot must be initialised.
 * Returns 0 or -errno with a message in err. */
int sy_router_load(struct sy_router *r, char *err, size_t errlen);
void sy_router_fini(struct sy_router *r);
/* Store o (a new version of its object, or a new object) and keep the
 * relations index and the pending changes in step. The old version is
 * returned, detached, for the caller to free. */
struct sy_object *sy_router_put(struct sy_router *r, struct sy_object *o);
/* Delete kind/ns/name from the store (relations and changes too); 0, or
 * -ENOENT. */
int sy_router_remove(struct sy_router *r, const struct sy_kind *kind, const char *ns,
		     const char *name);
/* Compile options from the router's config; `now` must have 32 bytes. */
void sy_router_compile_opts(const struct sy_router *r, struct sy_compile_opts *opts, char *now);
/* Compile what changed (or the whole store) and publish the result. Returns 0, or -ENOMEM with the
 * previous generation left live. */
int sy_router_recompile(struct sy_router *r);

/* One request -> one reply (both JSON objects). */
json_t *sy_ops_handle(struct sy_router *r, const json_t *req);
json_t *sy_ops_apply(struct sy_router *r, const json_t *req);
json_t *sy_ops_delete(struct sy_router *r, const json_t *req);
json_t *sy_ops_get(struct sy_router *r, const json_t *req);
json_t *sy_ops_status(struct sy_router *r, const json_t *req);
json_t *sy_ops_stats(struct sy_router *r, const json_t *req);
json_t *sy_ops_metrics(struct sy_router *r, const json_t *req);
json_t *sy_ops_graph(struct sy_router *r, const json_t *req);
json_t *sy_ops_routes_traffic(struct sy_router *r, const json_t *req);
json_t *sy_ops_conns(struct sy_router *r, const json_t *req);
json_t *sy_ops_dns_zone(struct sy_router *r, const json_t *req); /* control/fleet/zone.c */

/* Names of the generation's enums as resolve and graph print them. */
struct sy_rule;
extern const char *const sy_tls_names[];   /* by enum sy_tls_mode */
extern const char *const sy_match_names[]; /* by enum sy_path_match */
const char *sy_rule_action_name(const struct sy_rule *r); /* backend, redirect, static, loopback */
json_t *sy_ops_resolve(struct sy_router *r, const json_t *req);
/* The kind named by a get/delete request, or NULL with an error reply. */
struct sy_kind;
const struct sy_kind *sy_ops_request_kind(const json_t *req, json_t **reply);
/* Store objects in their stored form (as apply cleaned them); revs: etcd
 * create_revisions or NULL. 0 or -ENOMEM. */
int sy_ops_commit(struct sy_router *r, const struct sy_kind *const *kinds, json_t *const *objs,
		  const int64_t *revs, size_t n);
/* An object read from etcd under kind/ns/name's key: decoded and validated
 * as apply does, stored with create_rev as its age. 1 stored, 0 unchanged,
 * -1 refused (why in err). The caller recompiles. */
int sy_ops_ingest(struct sy_router *r, const json_t *obj, int64_t create_rev,
		  const struct sy_kind *kind, const char *ns, const char *name, char *err,
		  size_t errlen);
/* Apply one journal record (no validation: it was validated when accepted). */
int sy_ops_replay_record(json_t *rec, void *router);

/* "2026-11-22T17:30:00Z" for now. */
void sy_now_rfc3339(char *buf, size_t len);

#endif
