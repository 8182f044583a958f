/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "gen/gen_mem.h"

#define GRAIN 16u
#define SMALL_MAX (8u * 1024)
#define N_CLASSES (SMALL_MAX / GRAIN + 1)
#define PAGE 4096u
#define HUGE_PAGE (2u << 20)
/* Address space only: the kernel backs what is touched, 2 MB at a time. */
#define REGION_SIZE (64u << 20)

static size_t in_use; /* bytes handed out and not given back */

#ifdef __SANITIZE_ADDRESS__

void *
sy_gen_mem_alloc(size_t size)
{
	size_t sz = size ? (size + GRAIN - 1) & ~(size_t)(GRAIN - 1) : GRAIN;
	void *p = aligned_alloc(sz % PAGE == 0 ? PAGE : GRAIN, sz);

	if (p != NULL) {
		memset(p, 0, size);
		in_use += size;
	}
	return p;
}

void
sy_gen_mem_free(void *p, size_t size)
{
	if (p != NULL) {
		in_use -= size;
		free(p);
	}
}

size_t
sy_gen_mem_bytes(void)
{
	return in_use;
}

#else

struct free_block {
	struct free_block *next;
};

static struct {
	char *cur, *end; /* the current region's unused part */
	struct free_block *free[N_CLASSES];
} M;

static bool
new_region(void)
{
	char *p = mmap(NULL, REGION_SIZE + HUGE_PAGE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	char *start;
	size_t head;

	if (p == MAP_FAILED)
		return false;
	/* Start on a huge page boundary, and give back the slack either side. */
	start = (char *)(((uintptr_t)p + HUGE_PAGE - 1) & ~(uintptr_t)(HUGE_PAGE - 1));
	head = (size_t)(start - p);
	if (head > 0)
		munmap(p, head);
	if (HUGE_PAGE - head > 0)
		munmap(start + REGION_SIZE, HUGE_PAGE - head);
	/* Advice only: without THP the region works on small pages. */
	(void)madvise(start, REGION_SIZE, MADV_HUGEPAGE);
	/* The old region's tail is left unused: at most one block's worth. */
	M.cur = start;
	M.end = start + REGION_SIZE;
	return true;
}

/* A new block of class size `sz` from the current region. */
static void *
carve(size_t sz)
{
	size_t align = sz % PAGE == 0 ? PAGE : GRAIN;
	char *p;

	for (;;) {
		p = (char *)(((uintptr_t)M.cur + align - 1) & ~(uintptr_t)(align - 1));
		if (M.cur != NULL && p + sz <= M.end)
			break;
		if (!new_region())
			return NULL;
	}
	M.cur = p + sz;
	return p;
}

void *
sy_gen_mem_alloc(size_t size)
{
	size_t sz = size ? (size + GRAIN - 1) & ~(size_t)(GRAIN - 1) : GRAIN;
	struct free_block **head;
	void *p;

	if (sz > SMALL_MAX) {
		p = aligned_alloc(sz % PAGE == 0 ? PAGE : GRAIN, sz);
		if (p != NULL) {
			memset(p, 0, sz);
			in_use += sz;
		}
		return p;
	}
	head = &M.free[sz / GRAIN];
	if (*head != NULL) {
		p = *head;
		*head = (*head)->next;
	} else if ((p = carve(sz)) == NULL) {
		return NULL;
	}
	memset(p, 0, sz);
	in_use += sz;
	return p;
}

void
sy_gen_mem_free(void *p, size_t size)
{
	size_t sz = size ? (size + GRAIN - 1) & ~(size_t)(GRAIN - 1) : GRAIN;
	struct free_block *b = p;

	if (p == NULL)
		return;
	in_use -= sz;
	if (sz > SMALL_MAX) {
		free(p);
		return;
	}
	b->next = M.free[sz / GRAIN];
	M.free[sz / GRAIN] = b;
}

size_t
sy_gen_mem_bytes(void)
{
	return in_use;
}

#endif
