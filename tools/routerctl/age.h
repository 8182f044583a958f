/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The AGE column: kubectl's HumanDuration (k8s.io/apimachinery
 * pkg/util/duration), so that ages read the same in both tools.
 */
#ifndef RCTL_AGE_H
#define RCTL_AGE_H

#include <stddef.h>
#include <time.h>

/* "45s", "119s", "5m30s", "12m", "3h20m", "10h", "2d", "2d5h", "3y"; a
 * negative duration beyond clock skew of a second is "<invalid>". */
void rctl_format_duration(long long seconds, char *buf, size_t len);

/* Parse an RFC 3339 timestamp ("2024-05-01T12:00:00Z", fractions and
 * +hh:mm offsets accepted). Returns 0 and sets *t, or -1. */
int rctl_parse_rfc3339(const char *s, time_t *t);

/* The age of an object created at timestamp (NULL or unparseable gives
 * "<unknown>", as kubectl shows for objects without one). */
void rctl_format_age(const char *timestamp, time_t now, char *buf, size_t len);

#endif
