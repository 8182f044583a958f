/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A size-class heap on regions of our own, apart from glibc's: for what
 * lives long among what does not.
 *
 * The control thread makes and frees millions of small short-lived trees
 * (jansson objects of every apply and compile) beside millions of small
 * long-lived blocks (vhost blocks, pools, the vhost table's chunks, each
 * stored object's pack). In one heap the long-lived blocks pin the freed
 * space into small holes, glibc's bins fill with them, and every malloc
 * and free pays to sort and merge: at a million routes a one-route change
 * spent most of its time in malloc. Long-lived blocks come from a heap of
 * this kind instead: regions the kernel backs with transparent huge pages
 * (madvise; the machine's default THP mode), size classes of 16 bytes with
 * a free list each, so a freed block is reused by the next of its size.
 *
 * Blocks up to 8 KB come from the regions; larger ones, which are rare,
 * from malloc. Sizes that are multiples of 4 KB are 4 KB aligned, others
 * 16-byte aligned. Memory is zeroed. Under AddressSanitizer every block
 * comes from calloc, so use after free and leaks are still caught. Not
 * thread safe: one heap per user, on the control thread.
 */
#ifndef SY_REGION_HEAP_H
#define SY_REGION_HEAP_H

#include <stddef.h>

#define SY_REGION_HEAP_SMALL_MAX (8u * 1024)
#define SY_REGION_HEAP_GRAIN 16u

struct sy_region_free;

struct sy_region_heap {
	char *cur, *end; /* the current region's unused part */
	size_t in_use;   /* bytes handed out (sizes rounded up to 16) */
	struct sy_region_free *free[SY_REGION_HEAP_SMALL_MAX / SY_REGION_HEAP_GRAIN + 1];
};

/* Zeroed memory of `size` bytes; NULL when none can be had. */
void *sy_region_alloc(struct sy_region_heap *h, size_t size);
/* Give back a block, with the size it was asked for. */
void sy_region_free(struct sy_region_heap *h, void *p, size_t size);
/* Bytes in use, which malloc's statistics do not see. Blocks on the free
 * lists and the regions' untouched rest are not counted. */
static inline size_t
sy_region_bytes(const struct sy_region_heap *h)
{
	return h->in_use;
}

#endif
