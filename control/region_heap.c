/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "region_heap.h"

#define GRAIN SY_REGION_HEAP_GRAIN
#define SMALL_MAX SY_REGION_HEAP_SMALL_MAX
#define PAGE 4096u
#define HUGE_PAGE (2u << 20)
/* Address space only: the kernel backs what is touched, 2 MB at a time. */
#define REGION_SIZE (64u << 20)

static size_t
rounded(size_t size)
{
	return size ? (size + GRAIN - 1) & ~(size_t)(GRAIN - 1) : GRAIN;
}

#ifdef __SANITIZE_ADDRESS__

void *
sy_region_alloc(struct sy_region_heap *h, size_t size)
{
	size_t sz = rounded(size);
	void *p = aligned_alloc(sz % PAGE == 0 ? PAGE : GRAIN, sz);

	if (p != NULL) {
		memset(p, 0, size);
		h->in_use += size;
	}
	return p;
}

void
sy_region_free(struct sy_region_heap *h, void *p, size_t size)
{
	if (p != NULL) {
		h->in_use -= size;
		free(p);
	}
}

#else

struct sy_region_free {
	struct sy_region_free *next;
};

static bool
new_region(struct sy_region_heap *h)
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
	h->cur = start;
	h->end = start + REGION_SIZE;
	return true;
}

/* A new block of class size `sz` from the current region. */
static void *
carve(struct sy_region_heap *h, size_t sz)
{
	size_t align = sz % PAGE == 0 ? PAGE : GRAIN;
	char *p;

	for (;;) {
		p = (char *)(((uintptr_t)h->cur + align - 1) & ~(uintptr_t)(align - 1));
		if (h->cur != NULL && p + sz <= h->end)
			break;
		if (!new_region(h))
			return NULL;
	}
	h->cur = p + sz;
	return p;
}

void *
sy_region_alloc(struct sy_region_heap *h, size_t size)
{
	size_t sz = rounded(size);
	struct sy_region_free **head;
	void *p;

	if (sz > SMALL_MAX) {
		p = aligned_alloc(sz % PAGE == 0 ? PAGE : GRAIN, sz);
		if (p != NULL) {
			memset(p, 0, sz);
			h->in_use += sz;
		}
		return p;
	}
	head = &h->free[sz / GRAIN];
	if (*head != NULL) {
		p = *head;
		*head = (*head)->next;
	} else if ((p = carve(h, sz)) == NULL) {
		return NULL;
	}
	memset(p, 0, sz);
	h->in_use += sz;
	return p;
}

void
sy_region_free(struct sy_region_heap *h, void *p, size_t size)
{
	size_t sz = rounded(size);
	struct sy_region_free *b = p;

	if (p == NULL)
		return;
	h->in_use -= sz;
	if (sz > SMALL_MAX) {
		free(p);
		return;
	}
	b->next = h->free[sz / GRAIN];
	h->free[sz / GRAIN] = b;
}

#endif
