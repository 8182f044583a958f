/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "gen/gen_mem.h"

#define BLOCK_SIZE (64u * 1024)

struct block {
	struct block *next;
	uint32_t size; /* a block is at most one big request: under 4 GB */
	uint32_t used;
	_Alignas(16) unsigned char data[];
};

struct cleanup {
	struct cleanup *next;
	void (*fn)(void *);
	void *p;
};

struct sy_arena {
	struct block *head;
	struct cleanup *cleanups;
	size_t bytes;
	uint32_t used;       /* bytes handed out (rounded up to 16) */
	uint32_t block_size; /* bit 31: the first block is allocated with the arena */
};
/* Header of an exact arena: a million vhosts each carry one. */
_Static_assert(sizeof(struct sy_arena) == 32, "an arena header is 32 bytes");

#define INLINE_BLOCK 0x80000000u

static bool
is_inline(const struct sy_arena *a, const struct block *b)
{
	return (a->block_size & INLINE_BLOCK) && b == (const struct block *)(a + 1);
}

struct sy_arena *
sy_arena_new_sized(size_t block_size)
{
	struct sy_arena *a = calloc(1, sizeof(struct sy_arena));

	if (a != NULL) {
		a->block_size = (uint32_t)block_size;
		a->bytes = sizeof(*a);
	}
	return a;
}

struct sy_arena *
sy_arena_new(void)
{
	return sy_arena_new_sized(BLOCK_SIZE);
}

static struct block *
new_block(struct sy_arena *a, size_t size)
{
	struct block *b = malloc(sizeof(*b) + size);

	if (b == NULL)
		return NULL;
	b->size = (uint32_t)size;
	b->used = 0;
	b->next = a->head;
	a->head = b;
	a->bytes += sizeof(*b) + size;
	return b;
}

void *
sy_arena_alloc(struct sy_arena *a, size_t size)
{
	struct block *b = a->head;
	void *p;

	size = (size + 15) & ~(size_t)15;
	if (size == 0)
		size = 16;
	if (b == NULL || b->size - b->used < size) {
		/* Big requests get a block of their own, so a 1M-entry array
		 * does not waste the rest of a normal block. */
		size_t bs = a->block_size & ~INLINE_BLOCK;

		b = new_block(a, size > bs / 4 ? size : bs);
		if (b == NULL)
			return NULL;
		if (size > bs / 4 && b->next != NULL) {
			/* Keep filling the previous, partly used block next time. */
			struct block *big = b;

			a->head = b->next;
			big->next = a->head->next;
			a->head->next = big;
			b = big;
		}
	}
	p = b->data + b->used;
	b->used += size;
	a->used += (uint32_t)size;
	memset(p, 0, size);
	return p;
}

char *
sy_arena_strndup(struct sy_arena *a, const char *s, size_t len)
{
	char *p = sy_arena_alloc(a, len + 1);

	if (p != NULL) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

char *
sy_arena_strdup(struct sy_arena *a, const char *s)
{
	return sy_arena_strndup(a, s, strlen(s));
}

int
sy_arena_on_free(struct sy_arena *a, void (*fn)(void *), void *p)
{
	struct cleanup *c = sy_arena_alloc(a, sizeof(*c));

	if (c == NULL) {
		fn(p);
		return -1;
	}
	c->fn = fn;
	c->p = p;
	c->next = a->cleanups;
	a->cleanups = c;
	return 0;
}

size_t
sy_arena_bytes(const struct sy_arena *a)
{
	return a->bytes;
}

size_t
sy_arena_used(const struct sy_arena *a)
{
	return a->used;
}

struct sy_arena *
sy_arena_new_exact(size_t size)
{
	/* One allocation for the arena and its block: a million vhosts save
	 * a header and a pointer chase each. It is generation memory (on huge
	 * pages, gen_mem.h): what workers read at random. */
	struct sy_arena *a;
	struct block *b;

	size = size ? size : 16;
	a = sy_gen_mem_alloc(sizeof(*a) + sizeof(*b) + size);
	if (a == NULL)
		return NULL;
	b = (struct block *)(a + 1);
	b->size = (uint32_t)size;
	a->block_size = (uint32_t)size | INLINE_BLOCK;
	a->head = b;
	a->bytes = sizeof(*a) + sizeof(*b) + size;
	return a;
}

void
sy_arena_reset(struct sy_arena *a)
{
	struct block *b, *next;
	struct cleanup *c;

	for (c = a->cleanups; c != NULL; c = c->next)
		c->fn(c->p);
	a->cleanups = NULL;
	/* Keep the oldest block (the list's tail): a reused arena then costs
	 * no malloc at all while what it holds fits in one block. */
	for (b = a->head; b != NULL && b->next != NULL; b = next) {
		next = b->next;
		a->bytes -= sizeof(*b) + b->size;
		if (!is_inline(a, b))
			free(b);
	}
	a->head = b;
	if (b != NULL)
		b->used = 0;
	a->used = 0;
}

void
sy_arena_free(struct sy_arena *a)
{
	struct block *b, *next;
	struct cleanup *c;

	if (a == NULL)
		return;
	for (c = a->cleanups; c != NULL; c = c->next)
		c->fn(c->p);
	for (b = a->head; b != NULL; b = next) {
		next = b->next;
		if (!is_inline(a, b))
			free(b);
	}
	if (a->block_size & INLINE_BLOCK)
		sy_gen_mem_free(a, sizeof(*a) + sizeof(*b) + (a->block_size & ~INLINE_BLOCK));
	else
		free(a);
}
