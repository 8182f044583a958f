/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The etcd store, control-thread side: what routerd does with etcd when the
 * config says "store": {"etcd": ...} (docs/operations.md, "Store on etcd").
 *
 *  - What the watch thread reads (link.h) goes through the same decoding,
 *    validation, compile and generation as `apply` (sy_ops_ingest): a full
 *    read replaces the store (objects that vanished are deleted here too),
 *    watch events change it one key at a time. An object etcd holds that
 *    does not validate is refused with a log line and counted in `status`;
 *    the rest are served.
 *  - `apply` and `delete` validate locally, all or nothing, then write
 *    through in one txn (an apply larger than etcd takes in one: several,
 *    in order); the reply waits for etcd's answer (the control socket
 *    parks that client and serves the others meanwhile), and then
 *    for the watch to bring the change here (sync.c, ACK_WAIT_MS). While etcd is
 *    unreachable they fail at once with an error naming etcd and the
 *    endpoint; the live generation stays.
 *  - An object's age is its key's create_revision (age.h): the same on
 *    every router, so "oldest claim wins" decides alike across the fleet.
 *  - The scheduler runs only while this router holds the leader key
 *    (election.h); its bindings are written to etcd like any apply.
 *  - Each router writes the statuses it computed under
 *    P status/<router_name>/..., only those that changed, and in a fleet a
 *    Route's only when it is bound to this router; a failed status txn's
 *    keys are written again.
 */
#ifndef SY_ETCD_SYNC_H
#define SY_ETCD_SYNC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

struct sy_router;
struct sy_kind;

/* etcd refuses a txn of more operations than its --max-txn-ops (128 unless
 * raised). */
#define SY_ETCD_TXN_MAX_OPS 128

/* Start the etcd threads for r (r->etcd set). 0, or -errno with err. */
int sy_etcd_sync_open(struct sy_router *r, char *err, size_t errlen);
void sy_etcd_sync_close(struct sy_router *r);
/* The fd the control loop polls (readable: events to drain). */
int sy_etcd_sync_fd(const struct sy_router *r);
/* Handle what the etcd threads reported. Replies to parked requests go to
 * reply(arg, id, reply), which owns the reply. */
void sy_etcd_sync_drain(struct sy_router *r, void (*reply)(void *arg, uint64_t id, json_t *reply),
			void *arg);
/* Replies wait for the watch to bring their writes: drain must be called
 * at least every second while this is true, events or not. */
bool sy_etcd_sync_waiting(const struct sy_router *r);
/* Every write this router made is answered and the watch has brought it
 * back (the store here has it): the scheduler runs only then, so that a
 * pass never binds again a route whose binding is on its way. */
bool sy_etcd_sync_settled(const struct sy_router *r);
/* apply's write-through: the changed objects in stored form, written
 * SY_ETCD_TXN_MAX_OPS a txn, in order, the next once etcd took the one
 * before. Returns an error reply, or {"_pending": id}: the real reply comes
 * through drain. */
json_t *sy_etcd_sync_apply(struct sy_router *r, const struct sy_kind *const *kinds,
			   json_t *const *objs, size_t n, json_t *results);
json_t *sy_etcd_sync_delete(struct sy_router *r, const struct sy_kind *kind, const char *ns,
			    const char *name);
/* An error reply naming etcd and its endpoint while it is unreachable,
 * else NULL. */
json_t *sy_etcd_sync_unreachable(struct sy_router *r);
/* status's "store" for an etcd store. */
json_t *sy_etcd_sync_status(struct sy_router *r);

/* Make the control loop turn at once (its etcd fd readable): work done a
 * slice a turn (etcd/cache.h). */
void sy_etcd_sync_wake(struct sy_router *r);

/* The id a parked reply carries, or 0 for a reply to send now. */
uint64_t sy_etcd_pending_id(const json_t *reply);

#endif
