/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * nghttp2's memory (px_h2_internal.h, struct px_h2_mem): every session,
 * towards a client (px_h2.c) or a backend (px_h2_backend.c), allocates from
 * the workers' allocator (tls/tls_alloc.h, per-thread free lists, no
 * lock), each block counted on its session and on the worker's
 * h2_mem_bytes gauge, and a session past SY_H2_MEM_MAX gets no more
 * (nghttp2 then fails what it was doing with NOMEM: the session ends).
 */
#include <stdlib.h>
#include <string.h>

#include "proxy/px_h2_internal.h"
#include "tls/tls_alloc.h"
#include "worker.h"

/* A header before each block keeps its size, for the session's count. */
struct h2_mem_hdr {
	size_t size;
	size_t pad;
};

/* Under ASan (gcc says so with __SANITIZE_ADDRESS__, clang with
 * __has_feature) every block comes from malloc, so a use after free of
 * nghttp2's memory is seen; the free lists would hide it. */
#if defined(__SANITIZE_ADDRESS__)
#define PX_H2_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PX_H2_SANITIZED 1
#endif
#endif

void *
px_h2_raw_alloc(size_t n)
{
#ifdef PX_H2_SANITIZED
	return malloc(n); /* ASan sees each allocation as it is made */
#else
	return sy_tls_mem_malloc(n, __FILE__, __LINE__);
#endif
}

void
px_h2_raw_free(void *p)
{
#ifdef PX_H2_SANITIZED
	free(p);
#else
	sy_tls_mem_free(p, __FILE__, __LINE__);
#endif
}

void *
px_h2_mem_alloc(struct px_h2_mem *m, size_t n)
{
	struct h2_mem_hdr *h;

	if (m->used + n > SY_H2_MEM_MAX)
		return NULL;
	h = px_h2_raw_alloc(sizeof(*h) + n);
	if (h == NULL)
		return NULL;
	h->size = n;
	m->used += n;
	m->w->counters.h2_mem_bytes += n;
	return h + 1;
}

void
px_h2_mem_free(struct px_h2_mem *m, void *p)
{
	struct h2_mem_hdr *h;

	if (p == NULL)
		return;
	h = (struct h2_mem_hdr *)p - 1;
	m->used -= h->size;
	m->w->counters.h2_mem_bytes -= h->size;
	px_h2_raw_free(h);
}

static void *
mem_malloc(size_t n, void *ud)
{
	return px_h2_mem_alloc(ud, n);
}

static void
mem_free(void *p, void *ud)
{
	px_h2_mem_free(ud, p);
}

static void *
mem_calloc(size_t nmemb, size_t size, void *ud)
{
	void *p;

	if (size != 0 && nmemb > SY_H2_MEM_MAX / size)
		return NULL;
	p = px_h2_mem_alloc(ud, nmemb * size);
	if (p != NULL)
		memset(p, 0, nmemb * size);
	return p;
}

static void *
mem_realloc(void *p, size_t n, void *ud)
{
	struct px_h2_mem *m = ud;
	void *q;
	size_t old;

	if (p == NULL)
		return px_h2_mem_alloc(m, n);
	if (n == 0) {
		px_h2_mem_free(m, p);
		return NULL;
	}
	old = ((struct h2_mem_hdr *)p - 1)->size;
	q = px_h2_mem_alloc(m, n);
	if (q == NULL)
		return NULL;
	memcpy(q, p, old < n ? old : n);
	px_h2_mem_free(m, p);
	return q;
}

void
px_h2_mem_hooks(nghttp2_mem *mem, struct px_h2_mem *m)
{
	mem->mem_user_data = m;
	mem->malloc = mem_malloc;
	mem->free = mem_free;
	mem->calloc = mem_calloc;
	mem->realloc = mem_realloc;
}
