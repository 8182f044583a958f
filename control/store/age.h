/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An object's age: the one order in which every claim is decided (hosts
 * within and across kinds, equal paths, wildcards, re-admission, Contour
 * roots). It is OpenShift's RouteLessThan: older creationTimestamp first, then
 * the smaller uid.
 *
 * Inside a cluster the API server stamps objects, with one-second
 * timestamps and random uids, so inside one second the order is a coin
 * toss. Here the router is the API server, and it knows the order in which
 * it accepted objects: it stamps them so that RouteLessThan gives exactly
 * that order. The creationTimestamp keeps the Kubernetes form (RFC 3339,
 * seconds) and the uid is a UUIDv7 (RFC 9562): 48 bits of Unix milliseconds,
 * then a 30-bit counter within the millisecond, then random bits. Both come
 * from one clock that never goes back, not even when the wall clock does,
 * and the uid's text sorts as its bits do; so within one second the uid
 * decides, and it says which came first. Objects that arrive with their own
 * creationTimestamp and uid (imported from a cluster) keep them, and with
 * them their RouteLessThan place.
 */
#ifndef SY_AGE_H
#define SY_AGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* An instant as RFC 3339 states it, to the nanosecond, in UTC. */
struct sy_time {
	int64_t sec;   /* Unix seconds */
	uint32_t nsec;
};

#define SY_RFC3339_LEN 32 /* room for what sy_rfc3339_format writes */
#define SY_UID_LEN 40     /* room for a uid (36 characters and the NUL) */
#define SY_UID_BIN_LEN 16 /* a UUID's bytes */

/* "2026-01-02T03:04:05Z", "...05.25Z", "...05+02:00": 0 and *t, or -EINVAL
 * (what decoding says when an applied creationTimestamp is refused). */
int sy_rfc3339_parse(const char *s, struct sy_time *t);
/* sec as "2026-01-02T03:04:05Z". */
void sy_rfc3339_format(int64_t sec, char *buf, size_t len);

/* The stamping clock. All zero is a valid start. One per router (control
 * thread only): what apply, and later an etcd store, accept. */
struct sy_age_clock {
	uint64_t last_ms; /* the millisecond of the last stamp given or seen */
	uint32_t seq;     /* the counter within it */
	/* Random bytes for the uids, drawn 512 at a time (a getrandom call
	 * an object was 2.5 % of a batch apply), and the creationTimestamp
	 * text of the second last stamped (a batch is stamped in one or
	 * two seconds): both only save work, a zeroed clock starts them. */
	uint16_t rnd_used;
	uint8_t rnd[512];
	int64_t text_sec; /* the second `text` holds, + 1 (0: none) */
	char text[SY_RFC3339_LEN];
};

/* Stamp a new object: its creationTimestamp and uid, both after every stamp
 * this clock gave or saw. now_ms is the wall clock (sy_wall_ms()); a clock
 * that stepped back is not followed: the stamp stays on the last
 * millisecond, one count further. */
void sy_age_stamp(struct sy_age_clock *c, uint64_t now_ms, char created[SY_RFC3339_LEN],
		  char uid[SY_UID_LEN]);
/* An object stamped before (journal replay, or an import carrying such a
 * uid): the stamps given after it sort after it, whatever the wall clock
 * says after a restart. Uids that are not UUIDv7 are ignored. */
void sy_age_observe(struct sy_age_clock *c, const char *uid);
/* A uid in its lower-case 8-4-4-4-12 form (what sy_age_stamp writes, and
 * Kubernetes) as its 16 bytes: true, or false for any other text (kept as
 * text). Such uids compare by memcmp of the bytes as their texts do by
 * strcmp. sy_uid_unpack writes the text back, the same. */
bool sy_uid_pack(const char *uid, uint8_t out[SY_UID_BIN_LEN]);
void sy_uid_unpack(const uint8_t b[SY_UID_BIN_LEN], char uid[SY_UID_LEN]);
/* The wall clock in Unix milliseconds. */
uint64_t sy_wall_ms(void);
/* CLOCK_MONOTONIC in milliseconds: for timers, which must not jump. */
uint64_t sy_mono_ms(void);

struct sy_object;
/* <0 when a is older than b (its claim wins), >0 when younger; 0 only for the
 * same object. Every place where age decides calls this. */
int sy_object_age_cmp(const struct sy_object *a, const struct sy_object *b);

#endif
