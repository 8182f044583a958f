/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A string -> pointer hash map for the control thread (open addressing,
 * linear probing, backward-shift deletion). It replaces jansson objects used
 * as maps where a million entries are normal: no boxed values, one slot array.
 * Keys are not copied: a key must live as long as its entry (callers keep it
 * inside the value).
 */
#ifndef SY_STRMAP_H
#define SY_STRMAP_H

#include <stddef.h>
#include <stdint.h>

/* 16 bytes: a million keys are a million slots and more. The hash is not
 * kept; a probe compares keys (short strings). */
struct sy_strmap_slot {
	const char *key; /* NULL: empty */
	void *value;
};

struct sy_strmap {
	struct sy_strmap_slot *slots;
	size_t mask; /* size - 1; size is a power of two */
	size_t count;
};

uint32_t sy_strmap_hash(const char *s, size_t len);
/* 0 or -ENOMEM. An empty map needs no init (all zero), this only presizes. */
int sy_strmap_init(struct sy_strmap *m, size_t expected);
void sy_strmap_fini(struct sy_strmap *m);
void *sy_strmap_get(const struct sy_strmap *m, const char *key);
void *sy_strmap_getn(const struct sy_strmap *m, const char *key, size_t len);
/* Insert or replace. 0 or -ENOMEM. */
int sy_strmap_put(struct sy_strmap *m, const char *key, void *value);
/* Remove; returns the value or NULL. */
void *sy_strmap_remove(struct sy_strmap *m, const char *key);

/* for (i = 0; sy_strmap_next(m, &i, &key, &value);) */
int sy_strmap_next(const struct sy_strmap *m, size_t *i, const char **key, void **value);

#endif
