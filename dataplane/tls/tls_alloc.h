/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OpenSSL's memory on the workers (docs/operations.md, "TLS": Memory).
 *
 * OpenSSL allocates and frees hundreds of small blocks per handshake and a
 * record buffer per record written (SSL_MODE_RELEASE_BUFFERS). Through
 * glibc's malloc that is a worker calling malloc on the data path, and 9 %
 * of a full handshake's samples (perf/tls). sy_tls_alloc_install gives
 * OpenSSL an allocator with a free list per thread and size class (24
 * classes, 16 B to 64 KiB, 1.5x apart): a block freed goes on the freeing
 * thread's list, the next allocation of that class on that thread takes it,
 * so once its lists are warm a worker's TLS work allocates nothing. Fresh
 * blocks come from malloc, and so do blocks over 64 KiB; a list keeps at
 * most 2 MiB a class, the rest goes back to malloc. Every block has a
 * 16-byte header with its class, so a block may be freed by any thread.
 *
 * Not installed under the sanitizers: ASan should see each of OpenSSL's
 * allocations as it is made.
 */
#ifndef SY_TLS_ALLOC_H
#define SY_TLS_ALLOC_H

#include <stdbool.h>
#include <stddef.h>

/* Before anything else uses OpenSSL (the first thing routerd does).
 * false when OpenSSL had allocated already or a sanitizer is on: it then
 * keeps its own allocator. */
bool sy_tls_alloc_install(void);

/* The allocator itself, for the unit test. */
void *sy_tls_mem_malloc(size_t n, const char *file, int line);
void *sy_tls_mem_realloc(void *p, size_t n, const char *file, int line);
void sy_tls_mem_free(void *p, const char *file, int line);
/* The size of the class a block of n bytes comes from (0: over 64 KiB). */
size_t sy_tls_alloc_class_size(size_t n);
/* Bytes on the calling thread's free lists. */
size_t sy_tls_alloc_cached(void);

#endif
