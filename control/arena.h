/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A bump allocator: a vhost (control/gen/compile.c) or a compile's scratch data is
 * built out of one arena and freed with it in one call, so freeing it cannot
 * leak a piece of it.
 */
#ifndef SY_ARENA_H
#define SY_ARENA_H

#include <stddef.h>

struct sy_arena;

struct sy_arena *sy_arena_new(void);
/* With blocks of block_size bytes (sy_arena_new: 64 KB), for small things
 * that are freed alone, such as one vhost. */
struct sy_arena *sy_arena_new_sized(size_t block_size);
/* One block of exactly `size` bytes up front: for something whose size is
 * known (sy_arena_used of a trial build), so nothing is wasted. Arena and
 * block are generation memory (gen_mem.h): for what workers read. */
struct sy_arena *sy_arena_new_exact(size_t size);
/* Zeroed, 16-byte aligned memory that lives as long as the arena. NULL on OOM. */
void *sy_arena_alloc(struct sy_arena *a, size_t size);
char *sy_arena_strndup(struct sy_arena *a, const char *s, size_t len);
char *sy_arena_strdup(struct sy_arena *a, const char *s);
/* Call fn(p) when the arena is freed (things the arena cannot hold itself,
 * such as compiled regexes). 0 or -1 on out of memory (fn(p) is called now). */
int sy_arena_on_free(struct sy_arena *a, void (*fn)(void *), void *p);
/* Bytes handed out plus block overhead. */
size_t sy_arena_bytes(const struct sy_arena *a);
/* Bytes handed out (each request rounded up to 16). */
size_t sy_arena_used(const struct sy_arena *a);
/* Forget everything allocated (cleanups run), keeping one block for reuse. */
void sy_arena_reset(struct sy_arena *a);
void sy_arena_free(struct sy_arena *a);

#endif
