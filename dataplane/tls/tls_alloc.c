/* SPDX-License-Identifier: BSD-3-Clause */
/* OpenSSL's memory: free lists per thread and size class (tls_alloc.h). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>

#include "tls/tls_alloc.h"

#define N_CLASSES 24
#define CLASS_BIG 0xffffffffu
#define LIST_MAX_BYTES (2u << 20)
#define HDR_MAGIC 0x53594131u /* "SYA1" */

/* 16, 32, 48, 64, 96, 128, ..., 49152, 65536: each a power of two or 1.5
 * times one, so a block wastes at most a third of itself. */
static const uint32_t class_size[N_CLASSES] = {
	16,   32,   48,   64,   96,    128,   192,   256,   384,   512,   768,   1024,
	1536, 2048, 3072, 4096, 6144,  8192,  12288, 16384, 24576, 32768, 49152, 65536,
};

/* 16 bytes: user blocks stay 16-byte aligned, as malloc's are. */
struct hdr {
	uint32_t cls;   /* index into class_size, or CLASS_BIG */
	uint32_t magic;
	uint64_t size;  /* CLASS_BIG: the size asked for */
};
_Static_assert(sizeof(struct hdr) == 16, "the header keeps malloc's alignment");

struct free_block {
	struct free_block *next;
};

static __thread struct {
	struct free_block *head[N_CLASSES];
	size_t bytes[N_CLASSES];
} lists;

/* The smallest class that holds n, from n's highest bit: 2^k >= n > 2^(k-1),
 * then 0.75 * 2^k (the 1.5x class below 2^k) if that is enough. */
static unsigned
class_of(size_t n)
{
	unsigned k;

	if (n <= 16)
		return 0;
	if (n <= 32)
		return 1; /* there is no 24 */
	if (n > 65536)
		return CLASS_BIG;
	k = 64 - (unsigned)__builtin_clzll((unsigned long long)n - 1);
	return n <= (3ull << (k - 2)) ? 2 * k - 10 : 2 * k - 9;
}

size_t
sy_tls_alloc_class_size(size_t n)
{
	unsigned c = class_of(n);

	return c == CLASS_BIG ? 0 : class_size[c];
}

void *
sy_tls_mem_malloc(size_t n, const char *file, int line)
{
	unsigned c = class_of(n);
	struct hdr *h;

	(void)file;
	(void)line;
	if (c != CLASS_BIG && lists.head[c] != NULL) {
		struct free_block *b = lists.head[c];

		lists.head[c] = b->next;
		lists.bytes[c] -= class_size[c];
		return b;
	}
	h = malloc(sizeof(*h) + (c == CLASS_BIG ? n : class_size[c]));
	if (h == NULL)
		return NULL;
	h->cls = c;
	h->magic = HDR_MAGIC;
	h->size = n;
	return h + 1;
}

void
sy_tls_mem_free(void *p, const char *file, int line)
{
	struct hdr *h;
	unsigned c;

	(void)file;
	(void)line;
	if (p == NULL)
		return;
	h = (struct hdr *)p - 1;
	c = h->cls;
	if (c == CLASS_BIG || lists.bytes[c] + class_size[c] > LIST_MAX_BYTES) {
		h->magic = 0;
		free(h);
		return;
	}
	((struct free_block *)p)->next = lists.head[c];
	lists.head[c] = p;
	lists.bytes[c] += class_size[c];
}

void *
sy_tls_mem_realloc(void *p, size_t n, const char *file, int line)
{
	struct hdr *h;
	size_t have;
	void *q;

	if (p == NULL)
		return sy_tls_mem_malloc(n, file, line);
	if (n == 0) {
		sy_tls_mem_free(p, file, line);
		return NULL;
	}
	h = (struct hdr *)p - 1;
	have = h->cls == CLASS_BIG ? h->size : class_size[h->cls];
	if (h->cls != CLASS_BIG && n <= have)
		return p; /* it fits in its class already */
	q = sy_tls_mem_malloc(n, file, line);
	if (q == NULL)
		return NULL;
	memcpy(q, p, have < n ? have : n);
	sy_tls_mem_free(p, file, line);
	return q;
}

size_t
sy_tls_alloc_cached(void)
{
	size_t sum = 0;
	unsigned c;

	for (c = 0; c < N_CLASSES; c++)
		sum += lists.bytes[c];
	return sum;
}

#if defined(__SANITIZE_ADDRESS__)
#define SY_SANITIZED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SY_SANITIZED 1
#endif
#endif

bool
sy_tls_alloc_install(void)
{
#ifdef SY_SANITIZED
	return false;
#else
	if (CRYPTO_set_mem_functions(sy_tls_mem_malloc, sy_tls_mem_realloc, sy_tls_mem_free) == 1)
		return true;
	/* OpenSSL allocated before us: it keeps glibc's malloc, and says so
	 * (EAL's log is not up yet). */
	fprintf(stderr, "routerd: OpenSSL had allocated already: its memory stays with malloc\n");
	return false;
#endif
}
