/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-source connection limits of a route (the OpenShift annotations
 * haproxy.router.openshift.io/rate-limit-connections.*; src_limit.c). The
 * OpenShift router tracks each source address in a stick table per route
 * (conn_cur, conn_rate(3s), http_req_rate(10s)) and rejects a connection
 * past a limit; so does a worker here, in a table of its own.
 */
#ifndef SY_DP_SRC_LIMIT_H
#define SY_DP_SRC_LIMIT_H

#include <stdbool.h>
#include <stdint.h>

#include "sy_addr.h"

struct sy_conn;
struct sy_conn_stat;
struct sy_rule;
struct sy_worker;

/* Slots a worker keeps (a power of two); 32 bytes each. */
#define SY_SRC_SLOTS 65536
/* The OpenShift router's windows: conn_rate(3s), http_req_rate(10s). */
#define SY_SRC_CONN_RATE_MS 3000
#define SY_SRC_HTTP_RATE_MS 10000
/* A slot with no connection open and nothing counted this long is free
 * for another source (the stick table's `expire 30s`). */
#define SY_SRC_EXPIRE_MS 30000

/* A frequency over a sliding period, as HAProxy's freq_ctr: this period's
 * count and the last one's, weighted by how much of it is still in the
 * window. */
struct sy_src_freq {
	uint32_t period; /* the period's number (ms / period length) */
	uint32_t now, prev;
};

struct sy_src_slot {
	uint64_t key;       /* route x source; 0: free */
	uint32_t conn_cur;  /* open connections counted here */
	uint32_t last_s;    /* when it last counted (seconds) */
	struct sy_src_freq conn, http;
};

/* Connection c from src binds to rule (its first request): counted on
 * the source's slot (its index kept in c's conn_stat). False when the rule
 * limits concurrent connections or their rate and this one is past it:
 * refuse it. A rule without limits, or a table with no room: true. */
bool sy_src_conn_admit(struct sy_worker *w, const struct sy_conn *c, const struct sy_rule *rule,
		       const struct sy_addr *src);
/* A request on a proxied connection from src to rule: false past its
 * rate-http. */
bool sy_src_request_admit(struct sy_worker *w, const struct sy_rule *rule, const struct sy_addr *src);
/* The connection of entry cs ends: its source's open count goes down. */
void sy_src_conn_end(struct sy_worker *w, struct sy_conn_stat *cs);
#endif
