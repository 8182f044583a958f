/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The etcd store's local copy (docs/operations.md, "Store on etcd"): what a router
 * serves when it starts while etcd is away.
 *
 * Without it a router restarted during an etcd outage would come up with an
 * empty generation and refuse every host until etcd answered. So the
 * control thread keeps a snapshot of the objects it holds, each with its
 * create_revision (the claim age every router agrees on), in
 * <state_dir>/etcd-cache.jsonl: written to a temporary file, fsync'd and
 * renamed over the old one, once the live generation has not changed for
 * 2 s (a burst of changes is one write after it), and never more often than
 * every 2 s nor than ten times the last write took. The control thread only
 * prints the objects into memory (a resting object's text straight from its
 * packed bytes), in slices of at most 0.2 ms between which the control loop
 * turns (a change that comes meanwhile drops the print: it is printed again
 * after the next pause); a thread of the cache's own writes and fsyncs the
 * file, so that a big store's write never holds up applies or watch events. At start the snapshot is loaded through the same validation
 * as anything read from etcd and compiled into the first generation; the
 * first full read from etcd then replaces it (objects that vanished meanwhile
 * are deleted, as after any reconnect). etcd stays the truth: the copy is
 * never written back, and applies are refused until etcd answers.
 */
#ifndef SY_ETCD_CACHE_H
#define SY_ETCD_CACHE_H

#include <jansson.h>

struct sy_router;

/* Load <state_dir>/etcd-cache.jsonl into r's store (nothing there: 0).
 * Returns the objects stored; a line that does not validate is skipped
 * with a log line. */
int sy_etcd_cache_load(struct sy_router *r);
/* Write the snapshot if the generation changed and it is due (the control
 * loop calls this every turn), a slice at a time: while there is more to
 * print it wakes the loop for its next turn (sy_etcd_sync_wake). */
void sy_etcd_cache_tick(struct sy_router *r);
/* The store changed: a print in progress is dropped (it would mix two
 * versions of the store; its object pointers may be gone). */
void sy_etcd_cache_changed(struct sy_router *r);
/* status.store.cache: the path, objects loaded at start, the last write,
 * whether it holds the live generation ("current"). */
json_t *sy_etcd_cache_status(const struct sy_router *r);
void sy_etcd_cache_free(struct sy_router *r);

#endif
