/* SPDX-License-Identifier: BSD-3-Clause */
/* OpenSSL's per-thread allocator (dataplane/tls/tls_alloc.h). */
#include <pthread.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>

#include "tls/tls_alloc.h"

#define M(n) sy_tls_mem_malloc((n), __FILE__, __LINE__)
#define F(p) sy_tls_mem_free((p), __FILE__, __LINE__)
#define R(p, n) sy_tls_mem_realloc((p), (n), __FILE__, __LINE__)

static void
test_blocks_aligned_and_reused(void **state)
{
	static const size_t sizes[] = { 1, 16, 17, 100, 1000, 17000, 65536 };
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		uint8_t *p = M(sizes[i]), *q;
		size_t before;

		assert_non_null(p);
		assert_int_equal((uintptr_t)p % 16, 0);
		memset(p, 0xa5, sizes[i]); /* the whole size is usable */
		before = sy_tls_alloc_cached();
		F(p);
		assert_true(sy_tls_alloc_cached() > before);
		q = M(sizes[i]);
		assert_ptr_equal(q, p); /* the same class comes back from this thread's list */
		assert_int_equal(sy_tls_alloc_cached(), before);
		F(q);
	}
	F(NULL); /* as free(NULL) */
}

/* Every size gets the smallest class that holds it. */
static void
test_classes(void **state)
{
	static const size_t cls[] = { 16,   32,   48,   64,    96,    128,   192,   256,
				      384,  512,  768,  1024,  1536,  2048,  3072,  4096,
				      6144, 8192, 12288, 16384, 24576, 32768, 49152, 65536 };
	size_t n, c = 0;

	(void)state;
	for (n = 1; n <= 65536; n++) {
		while (cls[c] < n)
			c++;
		if (sy_tls_alloc_class_size(n) != cls[c])
			fail_msg("size %zu: class %zu, want %zu", n, sy_tls_alloc_class_size(n), cls[c]);
	}
	assert_int_equal(sy_tls_alloc_class_size(65537), 0);
	assert_int_equal(sy_tls_alloc_class_size(1u << 30), 0);
}

static void
test_resize(void **state)
{
	uint8_t *p = M(20), *q;
	size_t i;

	(void)state;
	for (i = 0; i < 20; i++)
		p[i] = (uint8_t)i;
	q = R(p, 30); /* 20 and 30 share the 32-byte class */
	assert_ptr_equal(q, p);
	q = R(p, 5000);
	assert_non_null(q);
	for (i = 0; i < 20; i++)
		assert_int_equal(q[i], i);
	q = R(q, 200000); /* over 64 KiB: malloc's own */
	assert_non_null(q);
	for (i = 0; i < 20; i++)
		assert_int_equal(q[i], i);
	memset(q, 1, 200000);
	q = R(q, 10); /* back into a class */
	assert_int_equal(q[0], 1);
	assert_null(R(q, 0)); /* realloc(p, 0) frees */
	assert_non_null(q = R(NULL, 8));
	F(q);
}

static void
test_lists_bounded(void **state)
{
	enum { N = 300 };
	void *p[N];
	size_t before = sy_tls_alloc_cached(), i;

	(void)state;
	for (i = 0; i < N; i++)
		assert_non_null(p[i] = M(20000)); /* the 24 KiB class */
	for (i = 0; i < N; i++)
		F(p[i]);
	/* 300 x 24 KiB would be 7 MiB: a class keeps 2 MiB at most (the
	 * list may have held one block of an earlier test already). */
	assert_true(sy_tls_alloc_cached() - before <= (2u << 20));
	assert_true(sy_tls_alloc_cached() - before >= (2u << 20) - 2 * 24576);
}

static void *
free_here(void *p)
{
	size_t before = sy_tls_alloc_cached();

	F(p);
	if (sy_tls_alloc_cached() <= before)
		return NULL;
	/* Taken again, and handed back to the test's thread: what is left
	 * on a thread's lists when it ends is not freed. */
	return M(3000) == p ? p : NULL;
}

static void
test_freed_by_another_thread(void **state)
{
	void *p = M(3000), *ok;
	pthread_t t;

	(void)state;
	assert_int_equal(pthread_create(&t, NULL, free_here, p), 0);
	assert_int_equal(pthread_join(t, &ok), 0);
	/* The other thread's list took the block, and its next one of that
	 * class was the same block. */
	assert_ptr_equal(ok, p);
	F(p);
}

static bool installed;

/* OpenSSL through it: a context, a digest, all freed onto the lists. */
static void
test_openssl_uses_it(void **state)
{
	unsigned char md[32];
	unsigned int len = 0;
	size_t before = sy_tls_alloc_cached();
	SSL_CTX *ctx;

	(void)state;
	if (!installed)
		skip();
	ctx = SSL_CTX_new(TLS_server_method());
	assert_non_null(ctx);
	assert_int_equal(EVP_Digest("abc", 3, md, &len, EVP_sha256(), NULL), 1);
	assert_int_equal(len, 32);
	assert_int_equal(md[0], 0xba); /* SHA-256("abc") = ba7816bf... */
	SSL_CTX_free(ctx);
	assert_true(sy_tls_alloc_cached() > before);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_blocks_aligned_and_reused),
		cmocka_unit_test(test_resize),
		cmocka_unit_test(test_lists_bounded),
		cmocka_unit_test(test_freed_by_another_thread),
		cmocka_unit_test(test_openssl_uses_it),
	};

	/* First, before OpenSSL allocates anything (as routerd does); under
	 * a sanitizer OpenSSL keeps its own and the last test is skipped. */
	installed = sy_tls_alloc_install();
	return cmocka_run_group_tests(tests, NULL, NULL);
}
