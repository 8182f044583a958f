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

#include "journal.h"
#include "store.h"
#include "sy_config.h"
#include "sy_gen_slot.h"

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
};

/* Store + journal replay + first generation. The slot must be initialised.
 * Returns 0 or -errno with a message in err. */
int sy_router_load(struct sy_router *r, char *err, size_t errlen);
void sy_router_fini(struct sy_router *r);
/* Compile the store and publish the result. Returns 0, or -ENOMEM with the
 * previous generation left live. */
int sy_router_recompile(struct sy_router *r);

/* One request -> one reply (both JSON objects). */
json_t *sy_ops_handle(struct sy_router *r, const json_t *req);
json_t *sy_ops_apply(struct sy_router *r, const json_t *req);
json_t *sy_ops_delete(struct sy_router *r, const json_t *req);
json_t *sy_ops_get(struct sy_router *r, const json_t *req);
json_t *sy_ops_status(struct sy_router *r, const json_t *req);
json_t *sy_ops_stats(struct sy_router *r, const json_t *req);
json_t *sy_ops_resolve(struct sy_router *r, const json_t *req);
/* The kind named by a get/delete request, or NULL with an error reply. */
struct sy_kind;
const struct sy_kind *sy_ops_request_kind(const json_t *req, json_t **reply);
/* Apply one journal record (no validation: it was validated when accepted). */
int sy_ops_replay_record(json_t *rec, void *router);

/* "2026-11-22T17:30:00Z" for now. */
void sy_now_rfc3339(char *buf, size_t len);
/* A random (v4) UUID. */
void sy_new_uid(char *buf, size_t len);

#endif
