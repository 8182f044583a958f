/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pools: a rule's services resolved to endpoints, with each service's weight
 * spread over its endpoints as the rule's peer does it (enum sy_weight_mode).
 * A backend written as URLs (Skipper network and lb) is a service of its
 * own whose endpoints are those URLs' addresses, not a Service's.
 *
 * Rules with the same backends (namespace, services and weights, URLs, target
 * port, weight mode, strategy, health check) share one pool: ten routes to
 * one Service hold one pool, not ten. A pool is its own block with a
 * reference count, one reference per rule of a vhost; the vhost gives its
 * references back when it is freed (after the RCU grace period, so no worker
 * reads the pool any more), and the last one frees the pool. Sharing is
 * within one compile (struct sy_pool_cache): a change builds new pools for
 * the vhosts it rebuilds, from the Services and Endpoints as they are then.
 * Control thread only.
 */
#ifndef SY_POOL_H
#define SY_POOL_H

#include <stddef.h>

#include "gen/compile.h"
#include "strmap.h"

struct sy_pool_cache {
	struct sy_strmap by_key; /* key -> struct sy_pool */
	struct sy_arena *keys;   /* the keys' bytes */
	unsigned workers;        /* the router's workers (round robin's places) */
	/* The router's relations index (a Service's EndpointSlices), or NULL:
	 * they are searched in the namespace. */
	const struct sy_relations *rel;
};

/* workers: how many the router runs (0: as many as it could). */
void sy_pool_cache_init(struct sy_pool_cache *pc, unsigned workers);
void sy_pool_cache_fini(struct sy_pool_cache *pc);
/* r's pool, with one reference for the caller. NULL on out of memory. */
const struct sy_pool *sy_pool_get(struct sy_pool_cache *pc, struct sy_store *st,
				  const struct sy_rule_in *r);
/* Give back one reference; the last frees the pool. */
void sy_pool_put(const struct sy_pool *p);
/* Bytes held by all live pools (stats). */
size_t sy_pool_live_bytes(void);

#endif
