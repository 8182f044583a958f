/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer entry for the proxy's message framing (dataplane/proxy/px_msg.c):
 * the request-head parser (with the peeker under it), the response-head
 * parser and the chunked walker. Built by meson with -Dfuzz=true and clang
 * (tests/fuzz/meson.build), run in CI by tools/test on the seeds in
 * tests/fuzz/corpus/fuzz_px_msg/; by hand:
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
 *   ninja -C build-fuzz tests/fuzz/fuzz_px_msg
 *   cp -r tests/fuzz/corpus/fuzz_px_msg /tmp/c && build-fuzz/tests/fuzz/fuzz_px_msg -max_total_time=300 /tmp/c
 *   meson test -C build-fuzz --suite fuzz fuzz_px_msg -v      (what CI runs: 45 s on a copy)
 *
 * Input: byte 0 picks max_head and the response flags, bytes 1-3 the cut
 * points; the rest is the stream, given to all three parsers. Every buffer a
 * parser sees is a heap block of exactly its size, so ASan sees a read past
 * it. Beyond "no crash", it checks what the proxy relies on:
 *   - a request is parsed the same whatever was held when it was looked at:
 *     a prefix of the stream is MORE, DONE with the same head and framing,
 *     or (only while the bytes that break a chunked body have not arrived)
 *     DONE where the whole is BAD; a refusal of a prefix is the whole's;
 *   - DONE's lengths are within bounds (head_len <= held <= max_head, a
 *     Content-Length within SY_PX_BODY_MAX, no chunked HTTP/1.0), and a
 *     chunked request's body bytes held with it are not broken;
 *   - the response parser likewise for its prefixes;
 *   - the chunked walker gives the same verdict and the same end whether fed
 *     whole, cut in four where the input says, or one byte at a time, never
 *     says it used more than it was given, and never finds an end in a
 *     prefix of a stream that it refuses or that ends later.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "proxy/px_msg.h"

#define MAX_HEAD_BIG (16 * 1024) /* SY_PROXY_HEAD_MAX */

/* A heap copy of data[0..len) of exactly len bytes (1 when empty). */
static uint8_t *
dup_exact(const uint8_t *data, size_t len)
{
	uint8_t *b = malloc(len ? len : 1);

	if (b == NULL)
		abort();
	memcpy(b, data, len);
	return b;
}

static enum sy_px_msg_status
parse_req(const uint8_t *data, size_t len, uint32_t max_head, struct sy_px_req *r)
{
	uint8_t *b = dup_exact(data, len);
	enum sy_px_msg_status st = sy_px_parse_request(b, (uint32_t)len, max_head, r);

	free(b);
	return st;
}

static enum sy_px_msg_status
parse_resp(const uint8_t *data, size_t len, uint32_t max_head, bool head, bool connect,
	   struct sy_px_resp *r)
{
	uint8_t *b = dup_exact(data, len);
	enum sy_px_msg_status st = sy_px_parse_response(b, (uint32_t)len, max_head, head, connect, r);

	free(b);
	return st;
}

static bool
refusal(enum sy_px_msg_status st)
{
	return st != SY_PX_MSG_MORE && st != SY_PX_MSG_DONE;
}

static void
check_req(const struct sy_px_req *r, size_t len, uint32_t max_head)
{
	const struct sy_http_head *h = &r->h;

	if (h->head_len == 0 || h->head_len > len || h->head_len > max_head ||
	    h->method_len == 0 || h->method[h->method_len] != '\0' ||
	    h->host_len > SY_PEEK_HOST_MAX || h->host[h->host_len] != '\0' ||
	    h->path_len > SY_PEEK_PATH_MAX || h->path[h->path_len] != '\0' || h->version_minor > 1)
		abort();
	if (r->framing == SY_PX_BODY_LENGTH && (r->length == 0 || r->length > SY_PX_BODY_MAX))
		abort();
	if (r->framing != SY_PX_BODY_LENGTH && r->length != 0)
		abort();
	if (r->framing == SY_PX_BODY_CHUNKED && h->version_minor == 0)
		abort();
	if (r->framing != SY_PX_BODY_NONE && r->framing != SY_PX_BODY_LENGTH &&
	    r->framing != SY_PX_BODY_CHUNKED)
		abort();
}

static void
same_req(const struct sy_px_req *a, const struct sy_px_req *b)
{
	if (a->h.head_len != b->h.head_len || a->framing != b->framing || a->length != b->length ||
	    a->keep_alive != b->keep_alive || a->upgrade != b->upgrade ||
	    a->h.host_len != b->h.host_len || memcmp(a->h.host, b->h.host, a->h.host_len) ||
	    a->h.path_len != b->h.path_len || memcmp(a->h.path, b->h.path, a->h.path_len))
		abort();
}

static void
requests(const uint8_t *data, size_t len, uint32_t max_head, const size_t *cuts)
{
	static struct sy_px_req whole, part;
	enum sy_px_msg_status st0, st;
	size_t i;

	/* The caller holds at most max_head bytes (proxy_http.c). */
	if (len > max_head)
		len = max_head;
	st0 = parse_req(data, len, max_head, &whole);
	if (st0 == SY_PX_MSG_DONE) {
		check_req(&whole, len, max_head);
		if (whole.framing == SY_PX_BODY_CHUNKED) {
			struct sy_px_chunked c = { 0 };
			uint32_t used = 0;
			uint8_t *b = dup_exact(data + whole.h.head_len, len - whole.h.head_len);

			if (sy_px_chunked_feed(&c, b, (uint32_t)(len - whole.h.head_len), &used) ==
			    SY_PX_MSG_BAD)
				abort(); /* the parser let a broken body through */
			free(b);
		}
	}
	for (i = 0; i < 3; i++) {
		size_t n = cuts[i] < len ? cuts[i] : len;

		st = parse_req(data, n, max_head, &part);
		if (refusal(st) && st != st0)
			abort();
		if (st == SY_PX_MSG_DONE) {
			check_req(&part, n, max_head);
			if (st0 == SY_PX_MSG_DONE)
				same_req(&whole, &part);
			else if (st0 != SY_PX_MSG_BAD || part.framing != SY_PX_BODY_CHUNKED)
				abort();
		}
		if (st0 == SY_PX_MSG_MORE && st != SY_PX_MSG_MORE)
			abort();
	}
}

static void
responses(const uint8_t *data, size_t len, uint32_t max_head, bool head, bool connect,
	  const size_t *cuts)
{
	static struct sy_px_resp whole, part;
	enum sy_px_msg_status st0, st;
	size_t i;

	st0 = parse_resp(data, len, max_head, head, connect, &whole);
	if (st0 == SY_PX_MSG_DONE &&
	    (whole.head_len > len || whole.head_len > max_head || whole.status < 100 ||
	     whole.status > 999 || whole.version_minor > 1 ||
	     (whole.framing == SY_PX_BODY_CLOSE && whole.keep_alive)))
		abort();
	for (i = 0; i < 3; i++) {
		size_t n = cuts[i] < len ? cuts[i] : len;

		st = parse_resp(data, n, max_head, head, connect, &part);
		/* A prefix is MORE, or already what the whole is. */
		if (st != SY_PX_MSG_MORE && st != st0)
			abort();
		if (st == SY_PX_MSG_DONE &&
		    (part.head_len != whole.head_len || part.status != whole.status ||
		     part.framing != whole.framing || part.length != whole.length ||
		     part.keep_alive != whole.keep_alive))
			abort();
	}
}

/* Feed the walker data[0..len) cut at cuts[0..n) (ascending), each piece
 * its own heap block. Returns the verdict and, when DONE, the bytes used. */
static enum sy_px_msg_status
walk(const uint8_t *data, size_t len, const size_t *cuts, size_t n, uint64_t *total)
{
	struct sy_px_chunked c = { 0 };
	size_t start = 0, i;

	*total = 0;
	for (i = 0; i <= n; i++) {
		size_t end = i < n ? cuts[i] : len;
		uint32_t used = 0;
		enum sy_px_msg_status st;
		uint8_t *b;

		if (end > len)
			end = len;
		if (end < start)
			end = start;
		b = dup_exact(data + start, end - start);
		st = sy_px_chunked_feed(&c, b, (uint32_t)(end - start), &used);
		free(b);
		if (st == SY_PX_MSG_BAD)
			return st;
		if (used > end - start)
			abort();
		*total += used;
		if (st == SY_PX_MSG_DONE)
			return st;
		if (used != end - start)
			abort(); /* MORE must have taken everything */
		start = end;
	}
	return SY_PX_MSG_MORE;
}

static void
chunked(const uint8_t *data, size_t len, const size_t *cuts)
{
	static size_t ones[4096];
	uint64_t t0, t;
	enum sy_px_msg_status st0, st;
	size_t i;

	st0 = walk(data, len, NULL, 0, &t0);
	if (st0 == SY_PX_MSG_DONE && (t0 == 0 || t0 > len))
		abort();
	st = walk(data, len, cuts, 3, &t);
	if (st != st0 || (st == SY_PX_MSG_DONE && t != t0))
		abort();
	if (len > 1 && len <= sizeof(ones) / sizeof(ones[0])) {
		for (i = 0; i < len - 1; i++)
			ones[i] = i + 1;
		st = walk(data, len, ones, len - 1, &t);
		if (st != st0 || (st == SY_PX_MSG_DONE && t != t0))
			abort();
	}
	/* A prefix: never an end the whole does not have, never refused
	 * where the whole is not. */
	st = walk(data, cuts[0] < len ? cuts[0] : len, NULL, 0, &t);
	if (st == SY_PX_MSG_DONE && (st0 != SY_PX_MSG_DONE || t != t0))
		abort();
	if (st == SY_PX_MSG_BAD && st0 != SY_PX_MSG_BAD)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint32_t limits[4] = { 64, 512, 4096, MAX_HEAD_BIG };
	size_t cuts[3], len;
	uint32_t max_head;

	if (size < 4)
		return 0;
	/* Small limits too, so TOO_BIG and the limit's edges get exercised. */
	max_head = limits[data[0] & 3];
	len = size - 4;
	cuts[0] = len ? data[1] % (len + 1) : 0;
	cuts[1] = cuts[0] + (len ? data[2] * 7 % (len + 1) : 0);
	cuts[2] = cuts[1] + (len ? data[3] * 13 % (len + 1) : 0);
	data += 4;

	requests(data, len, max_head, cuts);
	responses(data, len, max_head, data[-4] & 4, data[-4] & 8, cuts);
	chunked(data, len, cuts);
	return 0;
}
