/* SPDX-License-Identifier: BSD-3-Clause */
/* A source allowlist's text, checked and built (source_allow.c). */
#ifndef SY_GEN_SOURCE_ALLOW_H
#define SY_GEN_SOURCE_ALLOW_H

#include <stddef.h>

#include "sy_source_allow.h"

struct sy_arena;

/* 0 when every entry of `text` (space-separated addresses and prefixes of
 * either family) parses; -EINVAL with the first one that does not in bad
 * (badlen bytes), -ENOENT when there is none at all. */
int sy_source_allow_check(const char *text, char *bad, size_t badlen);
/* The list in arena a; NULL when text does not check or a has no room. */
const struct sy_source_allow *sy_source_allow_build(struct sy_arena *a, const char *text);

#endif
