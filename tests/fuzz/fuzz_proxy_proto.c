/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer entry for the PROXY protocol header reader (dataplane/peek/
 * proxy_proto.c). Built by meson with -Dfuzz=true and clang (tests/fuzz/
 * meson.build), run in CI by tools/test on the seeds in tests/fuzz/corpus/
 * fuzz_proxy_proto/; by hand:
 *
 *   ninja -C build-fuzz tests/fuzz/fuzz_proxy_proto
 *   cp -r tests/fuzz/corpus/fuzz_proxy_proto /tmp/c && build-fuzz/tests/fuzz/fuzz_proxy_proto -max_total_time=300 /tmp/c
 *
 * Input: byte 0 is a cut point; the rest is the stream, cut there and
 * into one-byte fragments, each in a heap block of its own size (ASan sees
 * a read past any). Beyond "no crash": the same answer and the same header
 * however the stream is cut; a DONE header is no longer than the stream
 * and SY_PP_MAX_LEN (and a version 1 one than 107 bytes); every prefix of
 * a DONE stream says MORE or DONE, never BAD; an address only of a family
 * the header can carry.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include "peek/peek.h"

#define MAX_IN 1024

static struct sy_frag frags[MAX_IN + 1];
static uint8_t *blocks[MAX_IN + 1];

static unsigned
make_frags(const uint8_t *data, size_t len, size_t step, size_t first_cut)
{
	size_t start = 0;
	unsigned n = 0;

	while (start < len || n == 0) {
		size_t end = n == 0 && first_cut > 0 ? first_cut : start + step;

		if (end > len)
			end = len;
		blocks[n] = malloc(end - start ? end - start : 1);
		if (blocks[n] == NULL)
			abort();
		memcpy(blocks[n], data + start, end - start);
		frags[n].data = blocks[n];
		frags[n].len = (uint32_t)(end - start);
		n++;
		start = end;
		if (start >= len)
			break;
	}
	return n;
}

static void
free_frags(unsigned n)
{
	while (n-- > 0)
		free(blocks[n]);
}

static enum sy_peek_status
peek_cut(const uint8_t *d, size_t len, size_t step, size_t cut, struct sy_pp_info *out)
{
	unsigned n = make_frags(d, len, step, cut);
	enum sy_peek_status st = sy_proxy_proto_peek(frags, n, out);

	free_frags(n);
	return st;
}

static int
same(const struct sy_pp_info *a, const struct sy_pp_info *b)
{
	return a->len == b->len && a->has_addr == b->has_addr &&
	       (!a->has_addr || (a->family == b->family && !memcmp(a->src, b->src, 16) &&
				 !memcmp(a->dst, b->dst, 16) && a->sport == b->sport &&
				 a->dport == b->dport));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sy_pp_info whole, part;
	enum sy_peek_status st, st2;
	size_t len, cut, p;

	if (size < 1 || size > MAX_IN + 1)
		return 0;
	cut = data[0];
	data++;
	len = size - 1;
	st = peek_cut(data, len, len ? len : 1, 0, &whole);
	if (st == SY_PEEK_DONE) {
		if (whole.len == 0 || whole.len > len || whole.len > SY_PP_MAX_LEN ||
		    (data[0] == 'P' && whole.len > SY_PP_V1_MAX))
			abort();
		if (whole.has_addr && whole.family != AF_INET && whole.family != AF_INET6)
			abort();
	}
	/* Cut in two, and one byte a fragment: the same answer. */
	st2 = peek_cut(data, len, len ? len : 1, cut < len ? cut : 0, &part);
	if (st2 != st || (st == SY_PEEK_DONE && !same(&whole, &part)))
		abort();
	if (len <= 256) {
		st2 = peek_cut(data, len, 1, 0, &part);
		if (st2 != st || (st == SY_PEEK_DONE && !same(&whole, &part)))
			abort();
	}
	/* The prefixes of a DONE stream: never a refusal. */
	if (st == SY_PEEK_DONE)
		for (p = 0; p < whole.len; p += 7)
			if (peek_cut(data, p, p ? p : 1, 0, &part) == SY_PEEK_BAD)
				abort();
	return 0;
}
