/* SPDX-License-Identifier: BSD-3-Clause */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <sys/mman.h>

#include <jansson.h>

#include "tree_heap.h"

#ifdef __SANITIZE_ADDRESS__

void
sy_tree_heap_enter(enum sy_tree_class c)
{
	(void)c;
}

void
sy_tree_heap_leave(void)
{
}

void
sy_tree_heap_stats(struct sy_tree_heap_stats *s)
{
	*s = (struct sy_tree_heap_stats){ .enabled = false };
}

bool
sy_tree_heap_owns(const void *p)
{
	(void)p;
	return false;
}

void
sy_tree_heap_prewarm(void)
{
}

#else

/* Address space only, reserved once: a chunk is made readable when it is
 * first used. 256 GB is some 50 million objects' trees at once. */
#define RESERVE ((size_t)256 << 30)
/* Given-back chunks kept mapped for the next request's trees: a one-route
 * change parses a few objects and should not fault a page in. */
#define HOT_MAX 4
#define ALIGN 8u

struct chunk {
	/* Blocks freed minus blocks cut, while the chunk is current (so
	 * never above 0); its cutter adds what it cut when it moves on, and
	 * whoever brings the count to 0 from then gives the chunk back. */
	_Atomic long live;
	struct chunk *next; /* on the hot list */
};
#define HEADER 64u

static char *_Atomic base; /* NULL until the first chunk is needed */
static size_t carved;      /* bytes of the reserve handed out as chunks */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct chunk *hot;
/* Cold chunks are listed apart: a pointer written into one would fault
 * its pages (a whole huge page) straight back in. */
static struct chunk **cold;
static size_t n_hot, n_cold, cap_cold, n_in_use;

/* A current chunk per class, so that trees that live long (statuses kept
 * through a compile) do not pin the chunks of those shed early. */
static __thread struct cutter {
	struct chunk *cur;
	char *bump, *end;
	long cut; /* blocks cut from cur */
} tl_cut[SY_TREE_CLASSES];
static __thread struct cutter *tl; /* NULL: outside enter..leave */

static bool
ours(const void *p)
{
	const char *b = atomic_load_explicit(&base, memory_order_acquire);

	return b != NULL && (const char *)p >= b && (const char *)p < b + RESERVE;
}

static struct chunk *
chunk_of(const void *p)
{
	const char *b = atomic_load_explicit(&base, memory_order_relaxed);

	return (struct chunk *)(b + (((const char *)p - b) & ~(size_t)(SY_TREE_CHUNK - 1)));
}

/* Under the lock. A chunk from the lists, or a new one from the reserve;
 * NULL when the reserve is spent or cannot be made readable. */
static struct chunk *
take_locked(void)
{
	struct chunk *c;
	char *b = atomic_load_explicit(&base, memory_order_relaxed);

	if ((c = hot) != NULL) {
		hot = c->next;
		n_hot--;
	} else if (n_cold > 0) {
		c = cold[--n_cold];
	} else {
		if (b == NULL) {
			void *m = mmap(NULL, RESERVE + SY_TREE_CHUNK, PROT_NONE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

			if (m == MAP_FAILED)
				return NULL;
			/* Chunk-aligned, so a block's chunk is its address rounded down. */
			b = (char *)(((uintptr_t)m + SY_TREE_CHUNK - 1) &
				     ~(uintptr_t)(SY_TREE_CHUNK - 1));
			atomic_store_explicit(&base, b, memory_order_release);
		}
		if (carved + SY_TREE_CHUNK > RESERVE)
			return NULL;
		c = (struct chunk *)(b + carved);
		if (mprotect(c, SY_TREE_CHUNK, PROT_READ | PROT_WRITE) < 0)
			return NULL;
		(void)madvise(c, SY_TREE_CHUNK, MADV_HUGEPAGE);
		carved += SY_TREE_CHUNK;
	}
	atomic_store_explicit(&c->live, 0, memory_order_relaxed);
	n_in_use++;
	return c;
}

static void
give_back(struct chunk *c)
{
	pthread_mutex_lock(&lock);
	n_in_use--;
	if (n_cold == cap_cold) {
		size_t cap = cap_cold ? cap_cold * 2 : 64;
		struct chunk **grown = realloc(cold, cap * sizeof(*grown));

		if (grown != NULL) {
			cold = grown;
			cap_cold = cap;
		}
	}
	if (n_hot < HOT_MAX || n_cold == cap_cold) {
		/* Out of memory for the list: kept mapped, as a hot one. */
		c->next = hot;
		hot = c;
		n_hot++;
	} else {
		/* The header goes with the pages; it is written again on take. */
		(void)madvise(c, SY_TREE_CHUNK, MADV_DONTNEED);
		cold[n_cold++] = c;
	}
	pthread_mutex_unlock(&lock);
}

/* The current chunk is done with: what it cut now counts, and if every
 * block was already freed it goes back at once. */
static void
retire(struct cutter *t)
{
	struct chunk *c = t->cur;

	if (c == NULL)
		return;
	t->cur = NULL;
	t->bump = t->end = NULL;
	if (atomic_fetch_add_explicit(&c->live, t->cut, memory_order_acq_rel) + t->cut == 0)
		give_back(c);
	t->cut = 0;
}

static void *
tree_malloc(size_t size)
{
	struct cutter *t = tl;
	char *p;

	if (t == NULL || size > SY_TREE_BLOCK_MAX)
		return malloc(size);
	size = size ? (size + ALIGN - 1) & ~(size_t)(ALIGN - 1) : ALIGN;
	if (t->cur == NULL || (size_t)(t->end - t->bump) < size) {
		struct chunk *c;

		retire(t);
		pthread_mutex_lock(&lock);
		c = take_locked();
		pthread_mutex_unlock(&lock);
		if (c == NULL)
			return malloc(size);
		t->cur = c;
		t->bump = (char *)c + HEADER;
		t->end = (char *)c + SY_TREE_CHUNK;
	}
	p = t->bump;
	t->bump += size;
	t->cut++;
	return p;
}

static void
tree_free(void *p)
{
	struct chunk *c;

	if (p == NULL)
		return;
	if (!ours(p)) {
		free(p);
		return;
	}
	c = chunk_of(p);
	/* From 1 to 0 only after the cutter moved on (while current the
	 * count is at most 0): then this was the last block. */
	if (atomic_fetch_sub_explicit(&c->live, 1, memory_order_acq_rel) == 1)
		give_back(c);
}

/* Before main: every jansson block, ours or malloc's, is freed through
 * tree_free, which tells them apart by address. */
__attribute__((constructor)) static void
install(void)
{
	json_set_alloc_funcs(tree_malloc, tree_free);
}

void
sy_tree_heap_enter(enum sy_tree_class c)
{
	tl = &tl_cut[c];
}

void
sy_tree_heap_leave(void)
{
	tl = NULL;
}

void
sy_tree_heap_stats(struct sy_tree_heap_stats *s)
{
	pthread_mutex_lock(&lock);
	s->chunks_mapped = carved / SY_TREE_CHUNK;
	s->chunks_in_use = n_in_use;
	s->chunks_hot = n_hot;
	s->enabled = true;
	pthread_mutex_unlock(&lock);
}

bool
sy_tree_heap_owns(const void *p)
{
	return ours(p);
}

/*
 * The hot list filled before the first request: HOT_MAX chunks taken from
 * the reserve and written, so their pages are there when a request parses
 * its first objects. Without it the first change after a start that parsed
 * nothing in this heap (an etcd store: the first generation compiles from
 * objects as they came) carved a chunk for each class and paid for two
 * huge pages from the kernel, zeroed, on this VM 5 ms each: a 0.1 ms
 * change took 10 ms (perf/etcd_change, perf/journal/routes.md).
 */
void
sy_tree_heap_prewarm(void)
{
	struct chunk *got = NULL;
	unsigned n = 0;

	pthread_mutex_lock(&lock);
	/* Only into an empty heap: take_locked hands out hot chunks first,
	 * so the new ones are held apart until all are made. */
	while (carved == 0 || (n > 0 && n < HOT_MAX)) {
		struct chunk *c = take_locked();
		size_t off;

		if (c == NULL)
			break;
		/* A write a page: one fault for a huge page, each page if the
		 * kernel gave small ones. */
		for (off = HEADER; off < SY_TREE_CHUNK; off += 4096)
			((volatile char *)c)[off] = 0;
		n_in_use--;
		c->next = got;
		got = c;
		n++;
	}
	while (got != NULL) {
		struct chunk *c = got;

		got = c->next;
		c->next = hot;
		hot = c;
		n_hot++;
	}
	pthread_mutex_unlock(&lock);
}

#endif
