/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The age of the objects the router creates: which claim is older (a host,
 * an equal path, a wildcard domain, an fqdn across kinds) must follow the
 * order the router accepted them in, also within one second.
 *
 * Kubernetes orders claims by (creationTimestamp, uid): OpenShift's
 * RouteLessThan, and we do the same (sy_object_age_cmp, store.h). In a
 * cluster the API server gives both; here the router is the API server. It
 * gives creationTimestamp in whole seconds, as Kubernetes does, and a uid
 * that sorts by creation: a UUIDv7 (RFC 9562 5.7) of the router's clock in
 * milliseconds, then a 12-bit counter within the millisecond (its rand_a,
 * "method 1" of RFC 9562 6.2), then random bits. Both come from one clock
 * that never goes back (a wall clock that steps back, or more than 4096
 * objects in one millisecond, borrow from the next millisecond), so two
 * objects the router created compare in the order it created them: by
 * creationTimestamp if their seconds differ, else by uid.
 *
 * Objects that arrive with their own creationTimestamp and uid (imported
 * from a cluster) keep them, and RouteLessThan's order. The journal keeps
 * both, so the order survives a restart; sy_age_seen, at replay, moves the
 * clock past every uid it issued before.
 */
#ifndef SY_AGE_H
#define SY_AGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define SY_AGE_TS_LEN 32  /* "2026-11-24T23:10:00Z" and its NUL, with room */
#define SY_AGE_UID_LEN 40 /* 36 characters and its NUL, with room */

struct sy_age_clock {
	uint64_t last_ms; /* of the last age issued (Unix ms) */
	uint32_t seq;     /* its counter within last_ms: 0..4095 */
	bool any;         /* something was issued or seen */
};

/* The next age, at wall-clock time now_ms: never before the last one. */
void sy_age_next(struct sy_age_clock *c, uint64_t now_ms, char ts[SY_AGE_TS_LEN],
		 char uid[SY_AGE_UID_LEN]);
/* The same at the current wall-clock time. */
void sy_age_now(struct sy_age_clock *c, char ts[SY_AGE_TS_LEN], char uid[SY_AGE_UID_LEN]);
/* A uid from the journal: if it is a UUIDv7, the clock moves past it. */
void sy_age_seen(struct sy_age_clock *c, const char *uid);
/* Is uid a UUIDv7 (lowercase, as sy_age_next writes them)? Its ms and counter. */
bool sy_age_uid_parse(const char *uid, uint64_t *ms, uint32_t *seq);

#endif
