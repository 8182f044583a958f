/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer entry for the HTTP/1.x and TLS peekers (dataplane/peek/http1_peek.c,
 * tls_peek.c). Built by meson with -Dfuzz=true and clang (tests/fuzz/meson.build),
 * run in CI by tools/test on the seeds in tests/fuzz/corpus/fuzz_peek/; by hand:
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
 *   ninja -C build-fuzz tests/fuzz/fuzz_peek
 *   cp -r tests/fuzz/corpus/fuzz_peek /tmp/c && build-fuzz/tests/fuzz/fuzz_peek -max_total_time=300 /tmp/c
 *   meson test -C build-fuzz --suite fuzz fuzz_peek -v      (what CI runs: 30 s on a copy)
 *
 * Input: byte 0 picks max_len, bytes 1-3 the cut points; the rest is the
 * stream. Each piece is copied into its own heap block of exactly its size,
 * so ASan sees a read past any fragment. Beyond "no crash", it checks what
 * the peekers promise: the same answer however the stream is cut (whole,
 * cut in up to four pieces, one byte per fragment), every prefix of a DONE
 * input says MORE or DONE (never a refusal), lengths within bounds and
 * NUL-terminated outputs.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "peek/peek.h"

#define FUZZ_MAX_FRAGS 4096

static struct sy_frag frags[FUZZ_MAX_FRAGS];
static uint8_t *blocks[FUZZ_MAX_FRAGS];

/* Fragments of data[0..len) cut at cuts[0..n_cuts) (any order, clamped). */
static unsigned
make_frags(const uint8_t *data, size_t len, const size_t *cuts, unsigned n_cuts)
{
	size_t start = 0, end;
	unsigned i, n = 0;

	for (i = 0; i <= n_cuts && n < FUZZ_MAX_FRAGS; i++) {
		end = i < n_cuts ? cuts[i] : len;
		if (end > len)
			end = len;
		if (end < start)
			end = start;
		if (i < n_cuts && n == FUZZ_MAX_FRAGS - 1)
			end = len;
		blocks[n] = malloc(end - start ? end - start : 1);
		if (blocks[n] == NULL)
			abort();
		memcpy(blocks[n], data + start, end - start);
		frags[n].data = blocks[n];
		frags[n].len = (uint32_t)(end - start);
		n++;
		start = end;
	}
	return n;
}

static void
free_frags(unsigned n)
{
	while (n-- > 0)
		free(blocks[n]);
}

static void
check_http(const struct sy_http_head *h, enum sy_peek_status st, size_t len, uint32_t max_len)
{
	if (st != SY_PEEK_DONE)
		return;
	if (h->host_len > SY_PEEK_HOST_MAX || h->host[h->host_len] != '\0' ||
	    h->path_len > SY_PEEK_PATH_MAX || h->path[h->path_len] != '\0' ||
	    h->method_len == 0 || h->method[h->method_len] != '\0' || h->head_len > len ||
	    h->head_len > max_len || h->version_minor > 1 || (h->version_minor == 1 && !h->host_len))
		abort();
}

static void
check_tls(const struct sy_tls_hello *t, enum sy_peek_status st, size_t len, uint32_t max_len)
{
	if (st != SY_PEEK_DONE)
		return;
	if ((uint64_t)t->hello_len + 9 > len || t->hello_len + 9 > max_len ||
	    t->sni_len > SY_PEEK_HOST_MAX || t->sni[t->sni_len] != '\0' ||
	    (t->has_sni && t->sni_len == 0) || (!t->has_sni && t->sni_len != 0))
		abort();
}

static void
same_http(const struct sy_http_head *a, const struct sy_http_head *b)
{
	if (a->head_len != b->head_len || a->host_len != b->host_len || a->path_len != b->path_len ||
	    a->method_len != b->method_len || a->version_minor != b->version_minor ||
	    memcmp(a->host, b->host, a->host_len) || memcmp(a->path, b->path, a->path_len) ||
	    memcmp(a->method, b->method, a->method_len))
		abort();
}

static void
same_tls(const struct sy_tls_hello *a, const struct sy_tls_hello *b)
{
	if (a->has_sni != b->has_sni || a->sni_len != b->sni_len || a->hello_len != b->hello_len ||
	    a->record_version != b->record_version || a->hello_version != b->hello_version ||
	    memcmp(a->sni, b->sni, a->sni_len))
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct sy_http_head h0, h1;
	static struct sy_tls_hello t0, t1;
	enum sy_peek_status hs0, ts0, st;
	size_t cuts[FUZZ_MAX_FRAGS], len, i;
	uint32_t max_len;
	unsigned n;

	if (size < 4)
		return 0;
	/* Small limits too, so TOO_BIG and the limit's edges get exercised. */
	max_len = data[0] < 128 ? (uint32_t)data[0] * 8 : 65536;
	len = size - 4;

	/* Whole. */
	n = make_frags(data + 4, len, NULL, 0);
	hs0 = sy_http_peek(frags, n, max_len, &h0);
	ts0 = sy_tls_peek(frags, n, max_len, &t0);
	free_frags(n);
	check_http(&h0, hs0, len, max_len);
	check_tls(&t0, ts0, len, max_len);

	/* Cut in up to four pieces where the input says. */
	cuts[0] = len ? data[1] % (len + 1) : 0;
	cuts[1] = cuts[0] + (len ? data[2] * 7 % (len + 1) : 0);
	cuts[2] = cuts[1] + (len ? data[3] * 13 % (len + 1) : 0);
	n = make_frags(data + 4, len, cuts, 3);
	st = sy_http_peek(frags, n, max_len, &h1);
	if (st != hs0)
		abort();
	if (st == SY_PEEK_DONE)
		same_http(&h0, &h1);
	st = sy_tls_peek(frags, n, max_len, &t1);
	if (st != ts0)
		abort();
	if (st == SY_PEEK_DONE)
		same_tls(&t0, &t1);
	free_frags(n);

	/* One byte per fragment. */
	if (len > 1 && len < FUZZ_MAX_FRAGS) {
		for (i = 0; i < len - 1; i++)
			cuts[i] = i + 1;
		n = make_frags(data + 4, len, cuts, (unsigned)(len - 1));
		if (sy_http_peek(frags, n, max_len, &h1) != hs0 ||
		    sy_tls_peek(frags, n, max_len, &t1) != ts0)
			abort();
		free_frags(n);
	}

	/* A prefix of a found head or hello is never refused. */
	if (len > 0 && (hs0 == SY_PEEK_DONE || ts0 == SY_PEEK_DONE)) {
		n = make_frags(data + 4, data[1] % len, NULL, 0);
		st = sy_http_peek(frags, n, max_len, &h1);
		if (hs0 == SY_PEEK_DONE && st != SY_PEEK_MORE && st != SY_PEEK_DONE)
			abort();
		st = sy_tls_peek(frags, n, max_len, &t1);
		if (ts0 == SY_PEEK_DONE && st != SY_PEEK_MORE && st != SY_PEEK_DONE)
			abort();
		free_frags(n);
	}
	return 0;
}
