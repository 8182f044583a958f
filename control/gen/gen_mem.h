/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generation memory: where the blocks that workers read at random on every
 * new connection live (vhost blocks, pools, the vhost table's chunks).
 *
 * A host lookup is two dependent reads, the table's chunk and then the
 * vhost block, each at a random place among hundreds of MB at a million
 * routes. On 4 KB pages each read also misses the TLB, and in a VM the
 * page walk is itself a chain of memory reads. Measured on this VM (a
 * chunk then a 400-byte block, 1M of each, dependent chains): 143-198 ns
 * on 4 KB pages, 108-122 ns with both on 2 MB pages. So these blocks come
 * from a heap of their own on transparent huge pages (region_heap.h: size
 * classes of 16 bytes with a free list each, so a change frees a few
 * vhosts and the next one reuses their places; a chunk, 4 KB, is one
 * page). Control thread only.
 */
#ifndef SY_GEN_MEM_H
#define SY_GEN_MEM_H

#include <stddef.h>

/* Zeroed memory of `size` bytes; NULL when none can be had. */
void *sy_gen_mem_alloc(size_t size);
/* Give back a block, with the size it was asked for. */
void sy_gen_mem_free(void *p, size_t size);
/* Bytes in use (sizes rounded up to 16), which malloc's statistics no
 * longer see. Like malloc's free chunks, blocks on the free lists and the
 * regions' untouched rest are not counted. */
size_t sy_gen_mem_bytes(void);

#endif
