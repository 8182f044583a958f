/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the trees of warmed objects live (control/store/store.h): jansson
 * values parsed from a stored object's packed text, which a compile holds
 * for every object at once and a cool drops all together.
 *
 * A full compile at a million routes parses 1.2 million objects into some
 * 70 million small jansson blocks. From glibc each costs a malloc and a
 * free, 16 bytes of header, a rounding to 16, and a place wherever the bins
 * had room: the trees were gigabytes read in no order, and the free at cool
 * sorted millions of chunks back into the bins. Here they are cut in order
 * from 2 MB chunks, 8-byte aligned, without headers: one object's tree is
 * a few contiguous kilobytes, in the order the kinds walk it.
 *
 * A block is never reused alone. Each chunk counts its live blocks (plus
 * one while it is a thread's current chunk); the free of its last block
 * gives the whole chunk back, so nothing can outlive its memory however
 * long a reply or a kind keeps a reference, and a leaked block pins one
 * chunk, not the heap. A few given-back chunks stay mapped for the next
 * small request; the rest go back to the kernel (MADV_DONTNEED).
 *
 * Only jansson's allocations made between sy_tree_heap_enter() and
 * sy_tree_heap_leave() on the same thread come from here; everything else
 * jansson allocates, and every block larger than a chunk's eighth, still
 * comes from malloc. jansson's free function recognises our blocks by
 * address and passes the others to free(), so code that frees a jansson
 * string with free() keeps working. Under AddressSanitizer the heap is off
 * and every block comes from malloc, so use after free is still caught.
 */
#ifndef SY_TREE_HEAP_H
#define SY_TREE_HEAP_H

#include <stdbool.h>
#include <stddef.h>

/* Trees of a class are cut from chunks of their own: a compile sheds
 * objects' trees one by one but keeps their statuses to the end, and a
 * status cut beside each object would keep every chunk. */
enum sy_tree_class {
	SY_TREE_OBJECT,
	SY_TREE_STATUS,
	SY_TREE_CLASSES
};

/* Allocations of jansson on this thread come from the tree heap, from
 * chunks of class c, until sy_tree_heap_leave(). Not nested. */
void sy_tree_heap_enter(enum sy_tree_class c);
void sy_tree_heap_leave(void);

struct sy_tree_heap_stats {
	size_t chunks_mapped; /* chunks ever taken from the address space */
	size_t chunks_in_use; /* holding live blocks, or a thread's current chunk */
	size_t chunks_hot;    /* given back, still mapped (the next request's) */
	size_t blocks_live;   /* blocks allocated and not yet freed */
	bool enabled;         /* false under AddressSanitizer */
};
void sy_tree_heap_stats(struct sy_tree_heap_stats *s);
/* Map and touch the chunks kept for small requests now, at start, so that
 * the first change does not wait for the kernel's pages. */
void sy_tree_heap_prewarm(void);
/* Whether p is a block of the tree heap (for tests and assertions). */
bool sy_tree_heap_owns(const void *p);

/* Bytes of a chunk, and the largest block cut from one. */
#define SY_TREE_CHUNK (2u << 20)
#define SY_TREE_BLOCK_MAX (SY_TREE_CHUNK / 8)

#endif
