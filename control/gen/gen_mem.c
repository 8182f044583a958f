/* SPDX-License-Identifier: BSD-3-Clause */
#include "gen/gen_mem.h"
#include "region_heap.h"

static struct sy_region_heap gen_heap;

void *
sy_gen_mem_alloc(size_t size)
{
	return sy_region_alloc(&gen_heap, size);
}

void
sy_gen_mem_free(void *p, size_t size)
{
	sy_region_free(&gen_heap, p, size);
}

size_t
sy_gen_mem_bytes(void)
{
	return sy_region_bytes(&gen_heap);
}
