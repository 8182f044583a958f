/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The generation: the compiled, immutable route table the workers read
 * (DESIGN.md section 3). Built whole by the control thread (control/compile.c),
 * published through struct sy_gen_slot, never modified after publication,
 * freed in one piece (all its memory comes from one arena).
 *
 * It holds only what a lookup and a bind need, plus the names `routerctl
 * resolve` prints (object and service names), kept as flat strings.
 */
#ifndef SY_GENERATION_H
#define SY_GENERATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sy_addr.h"

enum sy_tls_mode {
	SY_TLS_NONE,
	SY_TLS_EDGE,
	SY_TLS_REENCRYPT,
	SY_TLS_PASSTHROUGH,
};

/* How a vhost's connections are carried (DESIGN.md section 4.5). */
enum sy_carry_mode {
	SY_MODE_SPLICE, /* routing needs Host / SNI only */
	SY_MODE_PROXY,  /* needs per-request decisions or termination */
};

enum sy_path_match {
	SY_PATH_PREFIX,  /* segment-aware prefix; "/" matches everything */
	SY_PATH_EXACT,
};

struct sy_endpoint {
	struct sy_addr addr;
	uint16_t port;
	uint16_t service;  /* index into the pool's services */
	uint32_t weight;   /* effective weight of this endpoint in the pool */
};

struct sy_pool_service {
	const char *ns;
	const char *name;
	uint32_t weight;      /* weight as configured on the route */
	uint32_t n_endpoints; /* endpoints of this service in the pool */
};

struct sy_pool {
	struct sy_pool_service *services;
	uint32_t n_services;
	struct sy_endpoint *endpoints;
	uint32_t n_endpoints;
	uint64_t total_weight; /* sum of endpoint weights; 0 = nothing to send to */
};

struct sy_rule {
	enum sy_path_match match;
	const char *path; /* "/" when the route has none */
	uint32_t path_len;
	uint32_t pool;        /* index into generation pools */
	const char *kind;     /* object kind, e.g. "Route" */
	const char *object;   /* "namespace/name" of the object that made this rule */
};

struct sy_vhost {
	const char *host; /* lower case, no trailing dot, no port */
	uint32_t host_len;
	enum sy_tls_mode tls;
	enum sy_carry_mode mode;
	/* Splice with path rules: until the proxy mode takes these vhosts over,
	 * the first request's path picks the rule for the whole connection. */
	bool bind_by_first_path;
	struct sy_rule *rules; /* ordered, most specific first */
	uint32_t n_rules;
};

struct sy_generation {
	uint64_t id; /* increases by one per publication */
	struct sy_vhost *vhosts;
	uint32_t n_vhosts;
	/* Open-addressing table of vhost indexes + 1 (0 = empty), size mask + 1,
	 * a power of two at least twice n_vhosts. */
	uint32_t *vhost_slots;
	uint32_t vhost_mask;
	struct sy_pool *pools;
	uint32_t n_pools;
	uint16_t no_route_status; /* what an unknown host gets (503 or 404) */
	size_t bytes;             /* memory held, for stats */
	void *arena;              /* everything above lives here */
};

/*
 * Find the vhost for a Host header or SNI value: case-insensitive, ignores a
 * trailing dot and a ":port". NULL when none.
 */
const struct sy_vhost *sy_gen_find_vhost(const struct sy_generation *g, const char *host,
					 size_t len);
/* First rule of the vhost whose path matches (rules are ordered). NULL when none. */
const struct sy_rule *sy_vhost_match_path(const struct sy_vhost *vh, const char *path,
					  size_t len);
/* Hash used by the vhost table (over the normalized host). */
uint32_t sy_host_hash(const char *host, size_t len);
/* Strip port and trailing dot: returns the length of the host part. */
size_t sy_host_normalize_len(const char *host, size_t len);

#endif
