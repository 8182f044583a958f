/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The access log on the workers (sy_access_log.h): records go on the
 * worker's own ring (sh->alog[w->id], single producer and consumer: the
 * worker and the control thread); a full ring drops the record and counts
 * it. Nothing here waits, allocates or formats text: the control thread
 * does that (control/observe/access_log.c).
 */
#ifndef SY_DP_ACCESS_LOG_H
#define SY_DP_ACCESS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sy_access_log.h"
#include "worker_t.h"

/* Is the access log on? (The config's access_log: the rings exist.) */
static inline bool
sy_alog_on(const struct sy_worker *w)
{
	return w->sh->alog[w->id] != NULL;
}

/* Put r on this worker's ring (stamped with the worker); counted. */
void sy_alog_put(struct sy_worker *w, struct sy_access_rec *r);
/* len bytes of s into dst (n bytes, NUL-terminated), truncated; bytes that
 * are not printable ASCII become '?' (the writer adds no escaping of its
 * own to a request's bytes but JSON's and the quotes'). */
void sy_alog_text(char *dst, size_t n, const void *s, size_t len);
/* A TSC span in microseconds, below SY_ALOG_NO_TIME. */
uint32_t sy_alog_tsc_us(const struct sy_worker *w, uint64_t span);
/* Microseconds from TSC `from` to the worker's now (SY_ALOG_NO_TIME if from is 0). */
uint32_t sy_alog_us_since(const struct sy_worker *w, uint64_t from);

#endif
