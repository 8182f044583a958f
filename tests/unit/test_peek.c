/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * HTTP/1.x Host and TLS SNI peekers (dataplane/http1_peek.c, tls_peek.c).
 *
 * Every input goes through check(), which feeds it:
 *   - whole, ending right before a PROT_NONE page and, once, starting right
 *     after one (picohttpparser's trick: an over- or under-read crashes);
 *   - cut in two at every byte (a sample of cuts for large inputs), each
 *     fragment guarded on its own, also with empty fragments around;
 *   - as 1-byte fragments;
 *   - progressively: every prefix, which must say MORE (or, for an input
 *     that is refused, the same refusal) until the answer is known, and
 *     never DONE early;
 * and asserts the same status and the same output every time.
 * No EAL: the peekers use no DPDK.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <arpa/inet.h>
#include <sys/socket.h>

#include <cmocka.h>

#include "peek/peek.h"

#define BIG_MAX 65536 /* max_len of the tests that are not about max_len */
/* Inputs up to this size are cut at every byte; larger ones at a sample. */
#define ALL_CUTS_MAX 2200
#define CUT_STEP 97

enum peek_kind { PEEK_HTTP, PEEK_TLS, PEEK_PP };

union peek_res {
	struct sy_http_head http;
	struct sy_tls_hello tls;
	struct sy_pp_info pp;
};

static size_t page_size;

/* ---- guard pages ---- */

struct guard {
	void *map;
	size_t map_len;
};

/* A copy of src[0..len) that ends where a PROT_NONE page starts (or, with
 * `front`, starts where one ends). An empty fragment gets a NULL pointer:
 * the peekers must not touch it at all. */
static const uint8_t *
guard_copy(const uint8_t *src, size_t len, bool front, struct guard *g)
{
	size_t data_pages = (len + page_size - 1) / page_size;
	uint8_t *base, *data;

	g->map = NULL;
	g->map_len = 0;
	if (len == 0)
		return NULL;
	g->map_len = (data_pages + 1) * page_size;
	g->map = mmap(NULL, g->map_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	assert_true(g->map != MAP_FAILED);
	base = g->map;
	if (front) {
		assert_int_equal(mprotect(base, page_size, PROT_NONE), 0);
		data = base + page_size;
	} else {
		assert_int_equal(mprotect(base + data_pages * page_size, page_size, PROT_NONE), 0);
		data = base + data_pages * page_size - len;
	}
	memcpy(data, src, len);
	return data;
}

static void
guard_free(struct guard *g)
{
	if (g->map != NULL)
		munmap(g->map, g->map_len);
}

/* ---- feeding ---- */

#define FEED_FRONT 0x1 /* guard before each fragment instead of after */
#define FEED_EMPTY 0x2 /* an empty fragment before, between and after */

static enum sy_peek_status
peek(enum peek_kind kind, const struct sy_frag *frags, unsigned n, uint32_t max_len,
     union peek_res *res)
{
	memset(res, 0xa5, sizeof(*res)); /* outputs must not depend on what was there */
	if (kind == PEEK_HTTP)
		return sy_http_peek(frags, n, max_len, &res->http);
	if (kind == PEEK_PP)
		return sy_proxy_proto_peek(frags, n, &res->pp);
	return sy_tls_peek(frags, n, max_len, &res->tls);
}

/* Feed in[0..len) cut at cuts[0..n_cuts) (ascending), each piece guarded. */
static enum sy_peek_status
run(enum peek_kind kind, const uint8_t *in, size_t len, const size_t *cuts, unsigned n_cuts,
    unsigned flags, uint32_t max_len, union peek_res *res)
{
	unsigned n_parts = n_cuts + 1, nf = 0, i;
	struct sy_frag *frags = calloc(2 * n_parts + 1, sizeof(*frags));
	struct guard *guards = calloc(n_parts, sizeof(*guards));
	enum sy_peek_status st;
	size_t start = 0, end;

	assert_non_null(frags);
	assert_non_null(guards);
	for (i = 0; i < n_parts; i++) {
		end = i < n_cuts ? cuts[i] : len;
		assert_true(end >= start && end <= len);
		if (flags & FEED_EMPTY)
			frags[nf++] = (struct sy_frag){ .data = NULL, .len = 0 };
		frags[nf].data = guard_copy(in + start, end - start, flags & FEED_FRONT, &guards[i]);
		frags[nf++].len = (uint32_t)(end - start);
		start = end;
	}
	if (flags & FEED_EMPTY)
		frags[nf++] = (struct sy_frag){ .data = NULL, .len = 0 };
	st = peek(kind, frags, nf, max_len, res);
	for (i = 0; i < n_parts; i++)
		guard_free(&guards[i]);
	free(guards);
	free(frags);
	return st;
}

static enum sy_peek_status
run_whole(enum peek_kind kind, const uint8_t *in, size_t len, uint32_t max_len,
	  union peek_res *res)
{
	return run(kind, in, len, NULL, 0, 0, max_len, res);
}

static const char *
st_name(enum sy_peek_status st)
{
	switch (st) {
	case SY_PEEK_MORE: return "MORE";
	case SY_PEEK_DONE: return "DONE";
	case SY_PEEK_BAD: return "BAD";
	case SY_PEEK_TOO_BIG: return "TOO_BIG";
	case SY_PEEK_URI_TOO_LONG: return "URI_TOO_LONG";
	case SY_PEEK_NOT_MINE: return "NOT_MINE";
	}
	return "?";
}

/* Outputs of two DONE results are equal, and NUL-terminated where promised. */
static void
same_res(enum peek_kind kind, const union peek_res *a, const union peek_res *b, const char *how)
{
	if (kind == PEEK_HTTP) {
		const struct sy_http_head *x = &a->http, *y = &b->http;

		if (x->method_len != y->method_len || memcmp(x->method, y->method, x->method_len + 1) ||
		    x->version_minor != y->version_minor || x->host_len != y->host_len ||
		    memcmp(x->host, y->host, x->host_len + 1) || x->path_len != y->path_len ||
		    memcmp(x->path, y->path, x->path_len + 1) || x->head_len != y->head_len)
			fail_msg("%s: HTTP result differs: %s %s %s / %s %s %s", how, x->method,
				 x->host, x->path, y->method, y->host, y->path);
	} else if (kind == PEEK_PP) {
		const struct sy_pp_info *x = &a->pp, *y = &b->pp;

		if (x->len != y->len || x->has_addr != y->has_addr ||
		    (x->has_addr && (x->family != y->family || memcmp(x->src, y->src, 16) ||
				     memcmp(x->dst, y->dst, 16) || x->sport != y->sport ||
				     x->dport != y->dport)))
			fail_msg("%s: PROXY header result differs (len %u / %u)", how, x->len, y->len);
	} else {
		const struct sy_tls_hello *x = &a->tls, *y = &b->tls;

		if (x->record_version != y->record_version || x->hello_version != y->hello_version ||
		    x->hello_len != y->hello_len || x->has_sni != y->has_sni ||
		    x->sni_len != y->sni_len || memcmp(x->sni, y->sni, x->sni_len + 1))
			fail_msg("%s: TLS result differs: %s / %s", how, x->sni, y->sni);
	}
}

static void
expect_st(enum sy_peek_status got, enum sy_peek_status want, const char *how, size_t at)
{
	if (got != want)
		fail_msg("%s %zu: got %s, want %s", how, at, st_name(got), st_name(want));
}

/*
 * Feed `in` every way (see the top of the file) and check each gives `want`
 * (and the same output as the whole input when DONE). Returns the whole
 * input's result in *ref. For DONE, `done_at` is the shortest prefix that
 * must give DONE (0: for HTTP, ref's head_len).
 */
static void
check(enum peek_kind kind, const void *in_, size_t len, uint32_t max_len,
      enum sy_peek_status want, size_t done_at, union peek_res *ref)
{
	const uint8_t *in = in_;
	union peek_res res;
	enum sy_peek_status st;
	size_t *cuts, i, p;
	bool decided;

	st = run_whole(kind, in, len, max_len, ref);
	expect_st(st, want, "whole, len", len);
	if (st == SY_PEEK_DONE && kind == PEEK_PP && done_at == 0)
		done_at = ref->pp.len;
	if (st == SY_PEEK_DONE && kind == PEEK_HTTP) {
		if (done_at == 0)
			done_at = ref->http.head_len;
		assert_int_equal(ref->http.head_len, done_at);
		assert_true(ref->http.head_len <= len && ref->http.head_len <= max_len);
	}

	st = run(kind, in, len, NULL, 0, FEED_FRONT, max_len, &res);
	expect_st(st, want, "whole, front guard, len", len);
	if (want == SY_PEEK_DONE)
		same_res(kind, ref, &res, "front guard");

	/* Two fragments, cut at every byte (or a sample, plus the ends). */
	for (p = 1; p < len; p++) {
		if (len > ALL_CUTS_MAX && p % CUT_STEP != 0 && p > 16 && p < len - 16 &&
		    (done_at == 0 || p + 16 < done_at || p > done_at + 16))
			continue;
		st = run(kind, in, len, &p, 1, 0, max_len, &res);
		expect_st(st, want, "cut at", p);
		if (want == SY_PEEK_DONE)
			same_res(kind, ref, &res, "cut");
		if (len <= ALL_CUTS_MAX / 2 || p % 7 == 0) {
			st = run(kind, in, len, &p, 1, FEED_EMPTY | FEED_FRONT, max_len, &res);
			expect_st(st, want, "cut with empty fragments at", p);
			if (want == SY_PEEK_DONE)
				same_res(kind, ref, &res, "cut, empty fragments");
		}
	}

	/* One byte per fragment. */
	if (len > 1) {
		cuts = calloc(len - 1, sizeof(*cuts));
		assert_non_null(cuts);
		for (i = 0; i < len - 1; i++)
			cuts[i] = i + 1;
		st = run(kind, in, len, cuts, (unsigned)(len - 1), 0, max_len, &res);
		expect_st(st, want, "1-byte fragments, len", len);
		if (want == SY_PEEK_DONE)
			same_res(kind, ref, &res, "1-byte fragments");
		free(cuts);
	}

	/* Progressive: each prefix as if that much had arrived so far. Once
	 * the answer is known, more bytes do not change it. */
	decided = false;
	for (p = 0; p < len; p++) {
		st = run_whole(kind, in, p, max_len, &res);
		if (want == SY_PEEK_DONE) {
			if (p < done_at)
				expect_st(st, SY_PEEK_MORE, "prefix", p);
			else
				expect_st(st, SY_PEEK_DONE, "prefix", p);
			if (st == SY_PEEK_DONE)
				same_res(kind, ref, &res, "prefix");
		} else if (decided) {
			expect_st(st, want, "prefix after the answer was known", p);
		} else if (st != SY_PEEK_MORE && st != want) {
			fail_msg("prefix %zu: got %s, want MORE or %s", p, st_name(st), st_name(want));
		}
		decided = decided || st != SY_PEEK_MORE;
	}
}

/* ================= HTTP ================= */

static void
check_http(const char *in, uint32_t max_len, enum sy_peek_status want, union peek_res *ref)
{
	check(PEEK_HTTP, in, strlen(in), max_len, want, 0, ref);
}

static void
http_ok(const char *in, const char *method, unsigned minor, const char *host, const char *path)
{
	union peek_res r;

	check_http(in, BIG_MAX, SY_PEEK_DONE, &r);
	assert_string_equal(r.http.method, method);
	assert_int_equal(r.http.method_len, strlen(method));
	assert_int_equal(r.http.version_minor, minor);
	assert_string_equal(r.http.host, host);
	assert_int_equal(r.http.host_len, strlen(host));
	assert_string_equal(r.http.path, path);
	assert_int_equal(r.http.path_len, strlen(path));
}

static void
http_bad(const char *in)
{
	union peek_res r;

	check_http(in, BIG_MAX, SY_PEEK_BAD, &r);
}

/* Like http_bad for inputs with a NUL (strlen would stop at it). */
static void
http_bad_n(const char *in, size_t len)
{
	union peek_res r;

	check(PEEK_HTTP, in, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
}

#define HTTP_BAD_LIT(lit) http_bad_n(lit, sizeof(lit) - 1)

static void
test_http_simple(void **state)
{
	union peek_res r;

	http_ok("GET /index.html?x=1&y=%20 HTTP/1.1\r\nHost: example.test\r\n"
		"User-Agent: curl/8\r\nAccept: */*\r\n\r\n",
		"GET", 1, "example.test", "/index.html?x=1&y=%20");
	check_http("GET / HTTP/1.1\r\nHost: a.test\r\n\r\n", BIG_MAX, SY_PEEK_DONE, &r);
	assert_int_equal(r.http.head_len, 32);
	http_ok("POST /api HTTP/1.1\r\nhost: a.test\r\nContent-Length: 2\r\n\r\n", "POST", 1,
		"a.test", "/api");
	/* HT inside a value and obs-text are field content (RFC 9110 5.5). */
	http_ok("GET / HTTP/1.1\r\nX-A: a\tb \xc3\xa9\r\nHost: a.test\r\n\r\n", "GET", 1, "a.test",
		"/");
	/* Empty value, token punctuation in names. */
	http_ok("GET / HTTP/1.1\r\nX-Empty:\r\nX!#$%&'*+-.^_`|~9: v\r\nHost: a.test\r\n\r\n",
		"GET", 1, "a.test", "/");
	/* Extension methods are tokens; 15 bytes fit. */
	http_ok("PROPFIND-ABCDEF /d HTTP/1.1\r\nHost: a.test\r\n\r\n", "PROPFIND-ABCDEF", 1,
		"a.test", "/d");
	http_ok("OPTIONS * HTTP/1.1\r\nHost: a.test\r\n\r\n", "OPTIONS", 1, "a.test", "*");
	http_ok("CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n", "CONNECT", 1,
		"a.test:443", "");
	http_ok("CONNECT [2001:db8::1]:8443 HTTP/1.1\r\nHost: [2001:db8::1]:8443\r\n\r\n",
		"CONNECT", 1, "[2001:db8::1]:8443", "");
}

static void
test_http_absolute_form(void **state)
{
	/* RFC 9112 3.2.2: the target's authority wins over the Host header. */
	http_ok("GET http://Host.Example:8080/p?q HTTP/1.1\r\nHost: other.test\r\n\r\n", "GET", 1,
		"Host.Example:8080", "/p?q");
	http_ok("GET HTTPS://s.test/a/b HTTP/1.1\r\nHost: s.test\r\n\r\n", "GET", 1, "s.test",
		"/a/b");
	http_ok("GET http://e.test HTTP/1.1\r\nHost: e.test\r\n\r\n", "GET", 1, "e.test", "/");
	http_ok("GET http://e.test?q=1 HTTP/1.1\r\nHost: e.test\r\n\r\n", "GET", 1, "e.test",
		"/?q=1");
	http_ok("OPTIONS http://e.test:81 HTTP/1.0\r\n\r\n", "OPTIONS", 0, "e.test:81", "/");
	/* userinfo: http://trusted.test@evil.test/ */
	http_bad("GET http://trusted.test@evil.test/ HTTP/1.1\r\nHost: evil.test\r\n\r\n");
	http_bad("GET http://u:p@e.test/ HTTP/1.1\r\nHost: e.test\r\n\r\n");
	http_bad("GET ftp://e.test/ HTTP/1.1\r\nHost: e.test\r\n\r\n");
	http_bad("GET httpss://e.test/ HTTP/1.1\r\nHost: e.test\r\n\r\n");
	http_bad("GET abcdefghijklmnopqrstuvwxyz://e.test/ HTTP/1.1\r\nHost: e.test\r\n\r\n");
	http_bad("GET ht+tp://e.test/ HTTP/1.1\r\nHost: e.test\r\n\r\n");
	http_bad("GET http:/e.test/ HTTP/1.1\r\nHost: e.test\r\n\r\n");
	http_bad("GET http:///x HTTP/1.1\r\nHost: e.test\r\n\r\n");
	http_bad("GET http:// HTTP/1.1\r\nHost: e.test\r\n\r\n");
	http_bad("GET http://e.test#f HTTP/1.1\r\nHost: e.test\r\n\r\n");
	http_bad("GET e.test/x HTTP/1.1\r\nHost: e.test\r\n\r\n");
	/* The Host header is validated even when the target names the host. */
	http_bad("GET http://e.test/ HTTP/1.1\r\nHost: a b\r\n\r\n");
	http_bad("GET http://e.test/ HTTP/1.1\r\n\r\n");
}

static void
test_http_host_forms(void **state)
{
	http_ok("GET / HTTP/1.1\r\nHost: example.test:8443\r\n\r\n", "GET", 1, "example.test:8443",
		"/");
	http_ok("GET / HTTP/1.1\r\nHOST: A.Test\r\n\r\n", "GET", 1, "A.Test", "/");
	http_ok("GET / HTTP/1.1\r\nhOsT:\t a.test \t\r\n\r\n", "GET", 1, "a.test", "/");
	http_ok("GET / HTTP/1.1\r\nHost:a.test\r\n\r\n", "GET", 1, "a.test", "/");
	http_ok("GET / HTTP/1.1\r\nHost: [::1]:80\r\n\r\n", "GET", 1, "[::1]:80", "/");
	/* Names that merely start or end like "host" are other fields. */
	http_ok("GET / HTTP/1.1\r\nHosts: x\r\nX-Host: y\r\nHos: z\r\nHost: a.test\r\n\r\n", "GET",
		1, "a.test", "/");
	http_bad("GET / HTTP/1.1\r\nHost: a b\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a/b\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: u@a.test\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\\x\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: \xc3\xa9.test\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost:\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost:  \t \r\n\r\n");
	http_bad("CONNECT a.test HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("CONNECT a.test: HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("CONNECT :443 HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("CONNECT a.test:123456 HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("CONNECT /x HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("CONNECT http://a.test:443 HTTP/1.1\r\nHost: a.test\r\n\r\n");
}

static void
test_http_host_length(void **state)
{
	char host[SY_PEEK_HOST_MAX + 2], in[1024];
	union peek_res r;

	memset(host, 'h', sizeof(host) - 1);
	host[SY_PEEK_HOST_MAX] = '\0'; /* 255: the most that fits */
	snprintf(in, sizeof(in), "GET / HTTP/1.1\r\nHost: %s  \r\n\r\n", host);
	check_http(in, BIG_MAX, SY_PEEK_DONE, &r);
	assert_int_equal(r.http.host_len, SY_PEEK_HOST_MAX);
	assert_string_equal(r.http.host, host);
	snprintf(in, sizeof(in), "GET http://%s/ HTTP/1.1\r\nHost: x\r\n\r\n", host);
	check_http(in, BIG_MAX, SY_PEEK_DONE, &r);
	assert_string_equal(r.http.host, host);

	host[SY_PEEK_HOST_MAX] = 'h'; /* 256 */
	host[SY_PEEK_HOST_MAX + 1] = '\0';
	snprintf(in, sizeof(in), "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", host);
	http_bad(in);
	snprintf(in, sizeof(in), "GET http://%s/ HTTP/1.1\r\nHost: x\r\n\r\n", host);
	http_bad(in);
}

static void
test_http_versions(void **state)
{
	union peek_res r;

	http_ok("GET /old HTTP/1.0\r\nHost: a.test\r\n\r\n", "GET", 0, "a.test", "/old");
	/* HTTP/1.0 without Host: found, no host (the caller picks a default). */
	check_http("GET /old HTTP/1.0\r\nUser-Agent: x\r\n\r\n", BIG_MAX, SY_PEEK_DONE, &r);
	assert_int_equal(r.http.host_len, 0);
	assert_string_equal(r.http.host, "");
	assert_int_equal(r.http.version_minor, 0);
	check_http("GET / HTTP/1.0\r\n\r\n", BIG_MAX, SY_PEEK_DONE, &r);
	assert_int_equal(r.http.host_len, 0);
	assert_int_equal(r.http.head_len, 18);
	check_http("GET / HTTP/1.0\r\nHost: \r\n\r\n", BIG_MAX, SY_PEEK_DONE, &r);
	assert_int_equal(r.http.host_len, 0);

	/* RFC 9112 3.2: HTTP/1.1 without Host is a 400. */
	http_bad("GET / HTTP/1.1\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nUser-Agent: x\r\n\r\n");
	http_bad("GET / HTTP/1.2\r\nHost: a.test\r\n\r\n");
	http_bad("GET / HTTP/2.0\r\nHost: a.test\r\n\r\n");
	http_bad("GET / HTTP/1.10\r\nHost: a.test\r\n\r\n");
	http_bad("GET / http/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("GET / HTTP/1.1 \r\nHost: a.test\r\n\r\n");
	http_bad("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
	http_bad("GET /\r\n\r\n"); /* HTTP/0.9 */
}

static void
test_http_request_line(void **state)
{
	char method[32];

	http_bad("GET  / HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("GET /  HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad(" GET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("GET\t/ HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("G(ET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("GET * HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("OPTIONS *x HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("GET /a\x7f HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("GET /a\tb HTTP/1.1\r\nHost: a.test\r\n\r\n");
	HTTP_BAD_LIT("GET /a\0b HTTP/1.1\r\nHost: a.test\r\n\r\n");
	memset(method, 'M', 16);
	memcpy(method + 16, " / HTTP/1.1\r\n\r\n", 16);
	http_bad_n(method, 31);
}

static void
test_http_duplicate_host(void **state)
{
	http_bad("GET / HTTP/1.1\r\nHost: a.test\r\nHost: a.test\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\r\nhost: b.test\r\n\r\n");
	http_bad("GET / HTTP/1.0\r\nHost: a.test\r\nHOST: \r\n\r\n");
	http_bad("GET http://a.test/ HTTP/1.1\r\nHost: a.test\r\nHost: b.test\r\n\r\n");
}

static void
test_http_line_endings(void **state)
{
	/* obs-fold, and blanks before the first field line. */
	http_bad("GET / HTTP/1.1\r\nHost: a.test\r\nX-A: b\r\n c\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\r\nX-A: b\r\n\tc\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\n Host: a.test\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nX: y\r\n \r\nHost: a.test\r\n\r\n");
	/* bare LF */
	http_bad("GET / HTTP/1.1\nHost: a.test\n\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\r\n\n");
	http_bad("GET / HTTP/1.1\r\nX: a\nb\r\nHost: a.test\r\n\r\n");
	http_bad("\nGET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
	/* bare CR */
	http_bad("GET / HTTP/1.1\rHost: a.test\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\rX: b\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nX: a\rb\r\nHost: a.test\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\r\n\r\r\n");
	http_bad("\r\rGET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
}

static void
test_http_field_names(void **state)
{
	/* RFC 9112 5.1: no whitespace between name and colon. */
	http_bad("GET / HTTP/1.1\r\nHost : a.test\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost\t: a.test\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\r\nX-A : b\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nX A: b\r\nHost: a.test\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\n: b\r\nHost: a.test\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\r\nX-No-Colon\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nX(y): b\r\nHost: a.test\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost\xc3\xa9: b\r\nHost: a.test\r\n\r\n");
}

static void
test_http_control_chars(void **state)
{
	HTTP_BAD_LIT("GET / HTTP/1.1\r\nHost: a.test\r\nX: a\0b\r\n\r\n");
	HTTP_BAD_LIT("GET / HTTP/1.1\r\nHost: a.t\0est\r\n\r\n");
	HTTP_BAD_LIT("GET / HTTP/1.1\r\nHo\0st: a.test\r\n\r\n");
	HTTP_BAD_LIT("\0GET / HTTP/1.1\r\nHost: a.test\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\r\nX: a\x01" "b\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\r\nX: a\x1b[2J\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\r\nX: a\x7f\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nHost: a.test\x0b\r\n\r\n");
	http_bad("GET / HTTP/1.1\r\nX\x0b: y\r\nHost: a.test\r\n\r\n");
}

static void
test_http_too_big(void **state)
{
	const char *head = "GET /p HTTP/1.1\r\nHost: a.test\r\nX-Pad: 0123456789\r\n\r\n";
	uint32_t len = (uint32_t)strlen(head);
	char in[4096];
	union peek_res r;
	size_t n;

	/* The head exactly fills max_len: still DONE. One byte short: 431. */
	check_http(head, len, SY_PEEK_DONE, &r);
	check_http(head, len - 1, SY_PEEK_TOO_BIG, &r);
	check_http(head, 16, SY_PEEK_TOO_BIG, &r);

	/* A header section that never ends within max_len (431), whatever
	 * arrives after the limit. */
	n = (size_t)snprintf(in, sizeof(in), "GET / HTTP/1.1\r\nHost: a.test\r\n");
	while (n < 1500)
		n += (size_t)snprintf(in + n, sizeof(in) - n, "X-Pad-%zu: %0100d\r\n", n, 7);
	check_http(in, 1024, SY_PEEK_TOO_BIG, &r);
	assert_int_equal(run_whole(PEEK_HTTP, (const uint8_t *)in, 1023, 1024, &r), SY_PEEK_MORE);
	assert_int_equal(run_whole(PEEK_HTTP, (const uint8_t *)in, 1024, 1024, &r),
			 SY_PEEK_TOO_BIG);
	/* Below max_len it is just incomplete. */
	check_http(in, BIG_MAX, SY_PEEK_MORE, &r);
	/* Complete, and bytes past max_len after the head do not matter. */
	snprintf(in + n, sizeof(in) - n, "\r\n");
	check_http(in, (uint32_t)n + 2, SY_PEEK_DONE, &r);
	assert_int_equal(r.http.head_len, n + 2);
	check_http(in, (uint32_t)n + 1, SY_PEEK_TOO_BIG, &r);
	check_http("GET / HTTP/1.1\r\nHost: a.test\r\n\r\nBODY-BODY-BODY-BODY-BODY", 40,
		   SY_PEEK_DONE, &r);
	assert_int_equal(r.http.head_len, 32);
}

static void
test_http_uri_too_long(void **state)
{
	static char in[SY_PEEK_PATH_MAX + 256];
	union peek_res r;
	size_t n;

	/* A path of exactly SY_PEEK_PATH_MAX bytes is accepted... */
	n = (size_t)snprintf(in, sizeof(in), "GET /");
	memset(in + n, 'p', SY_PEEK_PATH_MAX - 1);
	n += SY_PEEK_PATH_MAX - 1;
	snprintf(in + n, sizeof(in) - n, " HTTP/1.1\r\nHost: a.test\r\n\r\n");
	check_http(in, BIG_MAX, SY_PEEK_DONE, &r);
	assert_int_equal(r.http.path_len, SY_PEEK_PATH_MAX);
	assert_int_equal(strlen(r.http.path), SY_PEEK_PATH_MAX);

	/* ...one more is a 414, known as soon as the path is that long. */
	in[n] = 'p';
	snprintf(in + n + 1, sizeof(in) - n - 1, " HTTP/1.1\r\nHost: a.test\r\n\r\n");
	check_http(in, BIG_MAX, SY_PEEK_URI_TOO_LONG, &r);
	in[n + 1] = '\0';
	check_http(in, BIG_MAX, SY_PEEK_URI_TOO_LONG, &r);
	in[n] = '\0';
	check_http(in, BIG_MAX, SY_PEEK_MORE, &r);

	/* Same for an absolute-form target's path. */
	n = (size_t)snprintf(in, sizeof(in), "GET http://a.test/");
	memset(in + n, 'p', SY_PEEK_PATH_MAX);
	n += SY_PEEK_PATH_MAX;
	snprintf(in + n, sizeof(in) - n, " HTTP/1.1\r\nHost: a.test\r\n\r\n");
	check_http(in, BIG_MAX, SY_PEEK_URI_TOO_LONG, &r);
}

static void
test_http_pipelined(void **state)
{
	static const char post[] =
		"POST /a HTTP/1.1\r\nHost: a.test\r\nContent-Length: 4\r\n\r\n\0\r\n\x01";
	union peek_res r;

	/* The second request and a body are not part of the head. */
	check_http("GET /a HTTP/1.1\r\nHost: a.test\r\n\r\nGET /b HTTP/1.1\r\nHost: b.test\r\n\r\n",
		   BIG_MAX, SY_PEEK_DONE, &r);
	assert_string_equal(r.http.host, "a.test");
	assert_string_equal(r.http.path, "/a");
	assert_int_equal(r.http.head_len, 33);
	check(PEEK_HTTP, post, sizeof(post) - 1, BIG_MAX, SY_PEEK_DONE, 0, &r);
	assert_int_equal(r.http.head_len, sizeof(post) - 1 - 4);
	assert_string_equal(r.http.method, "POST");
	/* Even garbage that would be BAD inside a head. */
	check_http("GET /a HTTP/1.0\r\n\r\nHost: a\r\nHost: b\r\n\n\n", BIG_MAX, SY_PEEK_DONE, &r);
	assert_int_equal(r.http.head_len, 19);
}

static void
test_http_leading_crlf(void **state)
{
	union peek_res r;

	check_http("\r\n\r\nGET / HTTP/1.1\r\nHost: a.test\r\n\r\n", BIG_MAX, SY_PEEK_DONE, &r);
	assert_int_equal(r.http.head_len, 36);
	assert_string_equal(r.http.host, "a.test");
	check_http("\r\nGET / HTTP/1.0\r\n\r\n", BIG_MAX, SY_PEEK_DONE, &r);
	assert_int_equal(r.http.head_len, 20);
	/* Only CRLFs so far, within max_len: wait; beyond it: 431. */
	check_http("\r\n\r\n\r\n", BIG_MAX, SY_PEEK_MORE, &r);
	check_http("\r\n\r\n\r\n\r\n", 6, SY_PEEK_TOO_BIG, &r);
}

static void
test_http_incomplete(void **state)
{
	union peek_res r;
	struct sy_frag f = { .data = NULL, .len = 0 };

	assert_int_equal(sy_http_peek(NULL, 0, BIG_MAX, &r.http), SY_PEEK_MORE);
	assert_int_equal(sy_http_peek(&f, 1, BIG_MAX, &r.http), SY_PEEK_MORE);
	check_http("GET / HTTP/1.1\r\nHost: a.test\r\n", BIG_MAX, SY_PEEK_MORE, &r);
	check_http("GET / HTTP/1.1\r\nHost: a.test\r\n\r", BIG_MAX, SY_PEEK_MORE, &r);
	check_http("GET / HTTP/1.1\r\n", BIG_MAX, SY_PEEK_MORE, &r);
}

/* ================= TLS ================= */

/* A ClientHello as test input. */
struct hello_spec {
	const char *sni;        /* NULL: no server_name extension */
	size_t sni_len;         /* 0: strlen(sni) */
	size_t pad_to;          /* grow the handshake message to this size with padding (21) */
	bool sni_last;          /* server_name after the other extensions */
	bool no_ext;            /* no extensions block at all (TLS 1.2 allows it) */
	bool sid33;             /* a 33-byte session id, lengths consistent otherwise */
	bool no_comp;           /* no compression method at all, likewise */
	bool cs_odd, cs_empty;  /* 7 or 0 bytes of cipher suites, likewise */
	const uint8_t *raw_ext; /* appended verbatim to the extensions block */
	size_t raw_ext_len;
	const size_t *recs;     /* payload bytes of each record but the last (0 allowed) */
	unsigned n_recs;
};

/* Where fields landed, as offsets in the handshake message (its 4-byte
 * header included); add 5 for the wire offset in a single-record hello. */
struct hello_off {
	size_t msg_len;
	size_t sid_len, cs_len, cm_len, ext_len;
	size_t sni_ext_len, sni_list_len, sni_type, sni_name_len, sni_name;
	size_t pad_ext_len;
};

struct bbuf {
	uint8_t *p;
	size_t len, cap;
};

static void
put(struct bbuf *b, const void *src, size_t n)
{
	assert_true(b->len + n <= b->cap);
	memcpy(b->p + b->len, src, n);
	b->len += n;
}

static void
put8(struct bbuf *b, unsigned v)
{
	uint8_t x = (uint8_t)v;

	put(b, &x, 1);
}

static void
put16(struct bbuf *b, unsigned v)
{
	put8(b, v >> 8);
	put8(b, v);
}

static void
set16(uint8_t *p, size_t off, unsigned v)
{
	p[off] = (uint8_t)(v >> 8);
	p[off + 1] = (uint8_t)v;
}

static void
put_sni_ext(struct bbuf *b, const struct hello_spec *sp, struct hello_off *o)
{
	size_t n = sp->sni_len ? sp->sni_len : strlen(sp->sni);

	put16(b, 0); /* server_name */
	o->sni_ext_len = b->len;
	put16(b, (unsigned)(n + 5));
	o->sni_list_len = b->len;
	put16(b, (unsigned)(n + 3));
	o->sni_type = b->len;
	put8(b, 0); /* host_name */
	o->sni_name_len = b->len;
	put16(b, (unsigned)n);
	o->sni_name = b->len;
	put(b, sp->sni, n);
}

/* The handshake message; pad_len < 0: no padding extension. */
static void
build_msg(struct bbuf *b, const struct hello_spec *sp, long pad_len, struct hello_off *o)
{
	static const uint8_t suites[] = { 0x13, 0x01, 0x13, 0x02, 0x13, 0x03, 0xc0, 0x2f };
	static const uint8_t versions[] = { 0x00, 0x2b, 0x00, 0x03, 0x02, 0x03, 0x04 };
	static const uint8_t groups[] = { 0x00, 0x0a, 0x00, 0x04, 0x00, 0x02, 0x00, 0x1d };
	size_t i, n, ext_start;

	memset(o, 0, sizeof(*o));
	b->len = 0;
	put8(b, 1); /* client_hello */
	put8(b, 0);
	put16(b, 0); /* length, set below */
	put16(b, 0x0303);
	for (i = 0; i < 32; i++)
		put8(b, 0xd0 + i); /* random */
	o->sid_len = b->len;
	put8(b, sp->sid33 ? 33 : 32);
	for (i = 0; i < (sp->sid33 ? 33u : 32u); i++)
		put8(b, i);
	o->cs_len = b->len;
	n = sp->cs_empty ? 0 : sp->cs_odd ? sizeof(suites) - 1 : sizeof(suites);
	put16(b, (unsigned)n);
	put(b, suites, n);
	o->cm_len = b->len;
	put8(b, sp->no_comp ? 0 : 1);
	if (!sp->no_comp)
		put8(b, 0); /* null */
	if (!sp->no_ext) {
		o->ext_len = b->len;
		put16(b, 0); /* set below */
		ext_start = b->len;
		if (sp->sni != NULL && !sp->sni_last)
			put_sni_ext(b, sp, o);
		put(b, versions, sizeof(versions));
		put(b, groups, sizeof(groups));
		if (pad_len >= 0) {
			put16(b, 21); /* padding, RFC 7685 */
			o->pad_ext_len = b->len;
			put16(b, (unsigned)pad_len);
			for (i = 0; i < (size_t)pad_len; i++)
				put8(b, 0);
		}
		if (sp->sni != NULL && sp->sni_last)
			put_sni_ext(b, sp, o);
		if (sp->raw_ext != NULL)
			put(b, sp->raw_ext, sp->raw_ext_len);
		set16(b->p, o->ext_len, (unsigned)(b->len - ext_start));
	}
	b->p[1] = (uint8_t)((b->len - 4) >> 16);
	set16(b->p, 2, (unsigned)(b->len - 4));
	o->msg_len = b->len;
}

/* The hello on the wire, cut into records as the spec says. */
static size_t
build_hello(uint8_t *out, size_t cap, const struct hello_spec *sp, struct hello_off *o)
{
	static uint8_t msg[16384];
	struct bbuf m = { .p = msg, .cap = sizeof(msg) };
	struct bbuf w = { .p = out, .cap = cap };
	size_t at = 0, n;
	unsigned i;

	build_msg(&m, sp, -1, o);
	if (sp->pad_to > m.len + 4)
		build_msg(&m, sp, (long)(sp->pad_to - m.len - 4), o);
	for (i = 0; i <= sp->n_recs; i++) {
		n = i < sp->n_recs ? sp->recs[i] : m.len - at;
		assert_true(at + n <= m.len);
		put8(&w, 22);
		put16(&w, 0x0301);
		put16(&w, (unsigned)n);
		put(&w, msg + at, n);
		at += n;
	}
	return w.len;
}

static uint8_t hello_buf[32768];

/* Build, check every way, expect DONE with `sni` (NULL: none). */
static size_t
tls_ok(const struct hello_spec *sp, const char *sni, struct hello_off *o)
{
	union peek_res r;
	size_t len = build_hello(hello_buf, sizeof(hello_buf), sp, o);

	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_DONE, len, &r);
	assert_int_equal(r.tls.record_version, 0x0301);
	assert_int_equal(r.tls.hello_version, 0x0303);
	assert_int_equal(r.tls.hello_len, o->msg_len - 4);
	if (sni == NULL) {
		assert_false(r.tls.has_sni);
		assert_int_equal(r.tls.sni_len, 0);
	} else {
		assert_true(r.tls.has_sni);
		assert_int_equal(r.tls.sni_len, strlen(sni));
		assert_string_equal(r.tls.sni, sni);
	}
	return len;
}

static void
test_tls_single_record(void **state)
{
	struct hello_spec sp = { .sni = "www.example.test" };
	struct hello_off o;
	size_t len;

	len = tls_ok(&sp, "www.example.test", &o);
	assert_true(len < 200);
	/* ~1.8 KB, as with a post-quantum key share: cut at every byte. */
	sp.pad_to = 1800;
	len = tls_ok(&sp, "www.example.test", &o);
	assert_int_equal(len, 1805);
	/* ~5 KB with the name at the end: a sample of cuts. */
	sp.pad_to = 5000;
	sp.sni_last = true;
	len = tls_ok(&sp, "www.example.test", &o);
	assert_int_equal(len, 5005);
	sp.sni = "_acme-challenge.Under_Score.test.";
	tls_ok(&sp, sp.sni, &o);
}

static void
test_tls_records(void **state)
{
	struct hello_spec sp = { .sni = "split.example.test" };
	struct hello_off o;
	size_t recs[3];

	sp.recs = recs;
	/* A record boundary inside the handshake header, in a length, in
	 * the name. */
	sp.n_recs = 1;
	for (recs[0] = 1; recs[0] <= 4; recs[0]++)
		tls_ok(&sp, "split.example.test", &o);
	build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	recs[0] = o.sni_list_len + 1;
	tls_ok(&sp, "split.example.test", &o);
	recs[0] = o.sni_name + 5;
	tls_ok(&sp, "split.example.test", &o);
	sp.n_recs = 2;
	recs[0] = 20;
	recs[1] = 30;
	tls_ok(&sp, "split.example.test", &o);

	/* 1.8 KB in 2 and 3 records, 5 KB in 3 records with the name cut. */
	sp.pad_to = 1800;
	sp.n_recs = 1;
	recs[0] = 1000;
	tls_ok(&sp, "split.example.test", &o);
	sp.n_recs = 2;
	recs[0] = 600;
	recs[1] = 600;
	tls_ok(&sp, "split.example.test", &o);
	sp.pad_to = 5000;
	sp.sni_last = true;
	build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	recs[0] = 1400;
	recs[1] = o.sni_name + 7 - 1400;
	tls_ok(&sp, "split.example.test", &o);
}

static void
test_tls_no_sni(void **state)
{
	struct hello_spec sp = { .sni = NULL };
	struct hello_off o;

	tls_ok(&sp, NULL, &o);
	sp.pad_to = 1800;
	tls_ok(&sp, NULL, &o);
	sp.no_ext = true;
	sp.pad_to = 0;
	tls_ok(&sp, NULL, &o);
	assert_int_equal(o.msg_len, 4 + 2 + 32 + 33 + 10 + 2);
}

static void
test_tls_not_mine(void **state)
{
	static const uint8_t sslv2[] = { 0x80, 0x2e, 0x01, 0x00, 0x02 };
	static const uint8_t alert[] = { 0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x28 };
	static const uint8_t major2[] = { 0x16, 0x02, 0x00, 0x00, 0x10 };
	static const uint8_t one[] = { 0x16 };
	const char *http = "GET / HTTP/1.1\r\nHost: a.test\r\n\r\n";
	union peek_res r;

	/* Plain HTTP on the TLS port is told apart from the first byte. */
	check(PEEK_TLS, http, strlen(http), BIG_MAX, SY_PEEK_NOT_MINE, 0, &r);
	assert_int_equal(run_whole(PEEK_TLS, (const uint8_t *)http, 1, BIG_MAX, &r),
			 SY_PEEK_NOT_MINE);
	check(PEEK_TLS, sslv2, sizeof(sslv2), BIG_MAX, SY_PEEK_NOT_MINE, 0, &r);
	assert_int_equal(run_whole(PEEK_TLS, sslv2, 1, BIG_MAX, &r), SY_PEEK_NOT_MINE);
	check(PEEK_TLS, alert, sizeof(alert), BIG_MAX, SY_PEEK_NOT_MINE, 0, &r);
	check(PEEK_TLS, major2, sizeof(major2), BIG_MAX, SY_PEEK_NOT_MINE, 0, &r);
	assert_int_equal(run_whole(PEEK_TLS, major2, 2, BIG_MAX, &r), SY_PEEK_NOT_MINE);
	/* One handshake byte is not enough to say anything. */
	check(PEEK_TLS, one, sizeof(one), BIG_MAX, SY_PEEK_MORE, 0, &r);
	assert_int_equal(sy_tls_peek(NULL, 0, BIG_MAX, &r.tls), SY_PEEK_MORE);
}

/* Build, apply `edit` at a message offset (single record: +5 on the wire),
 * and check every way for `want`, without over-reading. */
static void
tls_edit16(const struct hello_spec *sp, size_t off_field, unsigned v, uint32_t max_len,
	   enum sy_peek_status want)
{
	struct hello_off o;
	union peek_res r;
	size_t len = build_hello(hello_buf, sizeof(hello_buf), sp, &o);

	set16(hello_buf, 5 + off_field, v);
	check(PEEK_TLS, hello_buf, len, max_len, want, 0, &r);
}

static void
tls_edit8(const struct hello_spec *sp, size_t off_field, unsigned v, enum sy_peek_status want)
{
	struct hello_off o;
	union peek_res r;
	size_t len = build_hello(hello_buf, sizeof(hello_buf), sp, &o);

	hello_buf[5 + off_field] = (uint8_t)v;
	check(PEEK_TLS, hello_buf, len, BIG_MAX, want, 0, &r);
}

static void
test_tls_hostile_lengths(void **state)
{
	struct hello_spec sp = { .sni = "h.example.test", .pad_to = 400 };
	struct hello_off o;
	union peek_res r;
	size_t len;

	build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	tls_edit8(&sp, o.sid_len, 33, SY_PEEK_BAD);
	/* RFC 8446 4.1.2: legacy_session_id<0..32>, even when the rest adds up. */
	sp.sid33 = true;
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.sid33 = false;
	sp.no_comp = true;
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.no_comp = false;
	sp.cs_odd = true;
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.cs_odd = false;
	sp.cs_empty = true;
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.cs_empty = false;
	build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	tls_edit8(&sp, o.sid_len, 255, SY_PEEK_BAD);
	tls_edit16(&sp, o.cs_len, 7, BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, o.cs_len, 0, BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, o.cs_len, 0xfffe, BIG_MAX, SY_PEEK_BAD);
	tls_edit8(&sp, o.cm_len, 0, SY_PEEK_BAD);
	tls_edit8(&sp, o.cm_len, 255, SY_PEEK_BAD);
	/* Extensions block shorter or longer than what is left. */
	tls_edit16(&sp, o.ext_len, (unsigned)(o.msg_len - o.ext_len - 2 + 1), BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, o.ext_len, (unsigned)(o.msg_len - o.ext_len - 2 - 1), BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, o.ext_len, 0xffff, BIG_MAX, SY_PEEK_BAD);
	/* An extension past the end of the message. */
	tls_edit16(&sp, o.pad_ext_len, 0xffff, BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, o.sni_ext_len, 0x1000, BIG_MAX, SY_PEEK_BAD);
	/* server_name_list or HostName length lying. */
	tls_edit16(&sp, o.sni_list_len, 14 + 3 + 1, BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, o.sni_list_len, 14 + 3 - 1, BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, o.sni_list_len, 0xffff, BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, o.sni_name_len, 15, BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, o.sni_name_len, 13, BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, o.sni_name_len, 0, BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, o.sni_name_len, 0xffff, BIG_MAX, SY_PEEK_BAD);
	tls_edit8(&sp, o.sni_type, 1, SY_PEEK_BAD);
	/* Message length one more / one less than the extensions say. */
	tls_edit16(&sp, 2, (unsigned)(o.msg_len - 4 + 1), BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, 2, (unsigned)(o.msg_len - 4 - 1), BIG_MAX, SY_PEEK_BAD);
	tls_edit16(&sp, 2, 10, BIG_MAX, SY_PEEK_BAD);
	/* Not a ClientHello, not a TLS legacy_version. */
	tls_edit8(&sp, 0, 2, SY_PEEK_BAD);
	tls_edit16(&sp, 4, 0x0200, BIG_MAX, SY_PEEK_BAD);
}

static void
test_tls_hostile_records(void **state)
{
	struct hello_spec sp = { .sni = "r.example.test" };
	struct hello_off o;
	union peek_res r;
	size_t recs[2] = { 50, 0 }, len;

	/* Record length 0 or above 2^14 + 2048, first record. */
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	set16(hello_buf, 3, 0);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	set16(hello_buf, 3, 16384 + 2048 + 1);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	set16(hello_buf, 3, 0xffff);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);

	/* A zero-length record in the middle of the hello. */
	sp.recs = recs;
	sp.n_recs = 2;
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);

	/* Another record type, or version, interleaved within the hello. */
	sp.n_recs = 1;
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	hello_buf[5 + 50] = 21;
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	hello_buf[5 + 50] = 20;
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	hello_buf[5 + 50] = 22;
	hello_buf[5 + 50 + 1] = 2;
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	hello_buf[5 + 50 + 1] = 3;
	set16(hello_buf, 5 + 50 + 3, 16384 + 2048 + 1);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	/* Record shorter than the message with nothing after: just MORE. */
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, 5 + 50, BIG_MAX, SY_PEEK_MORE, 0, &r);
}

static void
test_tls_sni_values(void **state)
{
	/* A truncated extension header, a second server_name, a list of two
	 * names, an empty server_name, an empty list. */
	static const uint8_t cut_hdr[] = { 0x00, 0x15, 0x00 };
	static const uint8_t second[] = { 0, 0, 0, 6, 0, 4, 0, 0, 1, 'b' };
	static const uint8_t two[] = { 0, 0, 0, 10, 0, 8, 0, 0, 1, 'a', 0, 0, 1, 'b' };
	static const uint8_t empty_ext[] = { 0, 0, 0, 0 };
	static const uint8_t empty_list[] = { 0, 0, 0, 2, 0, 0 };
	static const uint8_t ok_ext[] = { 0, 0, 0, 6, 0, 4, 0, 0, 1, 'b' };
	struct hello_spec sp = { .sni = "s.example.test" };
	struct hello_off o;
	union peek_res r;
	char name[SY_PEEK_HOST_MAX + 2];
	size_t len;

	sp.raw_ext = cut_hdr;
	sp.raw_ext_len = sizeof(cut_hdr);
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.raw_ext = second;
	sp.raw_ext_len = sizeof(second);
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.sni = NULL;
	sp.raw_ext = two;
	sp.raw_ext_len = sizeof(two);
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.raw_ext = empty_ext;
	sp.raw_ext_len = sizeof(empty_ext);
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.raw_ext = empty_list;
	sp.raw_ext_len = sizeof(empty_list);
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.raw_ext = ok_ext; /* the builder's raw bytes are right */
	sp.raw_ext_len = sizeof(ok_ext);
	tls_ok(&sp, "b", &o);
	sp.raw_ext = NULL;

	/* Names: 255 bytes fit, 256 do not; no SP, "/", NUL, "@", non-ASCII. */
	memset(name, 'n', sizeof(name));
	name[SY_PEEK_HOST_MAX] = '\0';
	sp.sni = name;
	tls_ok(&sp, name, &o);
	sp.sni_len = SY_PEEK_HOST_MAX + 1;
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.sni_len = 0;
	sp.sni = "a b.test";
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.sni = "a/b.test";
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.sni = "u@b.test";
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.sni = "\xc3\xa9.test";
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
	sp.sni = "a.test\0evil.test";
	sp.sni_len = 16;
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
}

static void
test_tls_too_big(void **state)
{
	/* Declares 16 MB: TOO_BIG once the 9 bytes saying so are in. */
	static const uint8_t huge[] = { 0x16, 0x03, 0x01, 0x40, 0x00, 0x01, 0xff, 0xff, 0xff, 0x03 };
	struct hello_spec sp = { .sni = "big.example.test", .pad_to = 1800 };
	struct hello_off o;
	union peek_res r;
	size_t len, *recs, i;

	check(PEEK_TLS, huge, sizeof(huge), 16384, SY_PEEK_TOO_BIG, 0, &r);
	assert_int_equal(run_whole(PEEK_TLS, huge, 8, 16384, &r), SY_PEEK_MORE);
	assert_int_equal(run_whole(PEEK_TLS, huge, 9, 16384, &r), SY_PEEK_TOO_BIG);
	assert_int_equal(r.tls.hello_len, 0xffffff);

	/* The hello exactly fills max_len; one byte less cannot hold it. */
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	check(PEEK_TLS, hello_buf, len, (uint32_t)len, SY_PEEK_DONE, len, &r);
	check(PEEK_TLS, hello_buf, len, (uint32_t)len - 1, SY_PEEK_TOO_BIG, 0, &r);
	assert_int_equal(run_whole(PEEK_TLS, hello_buf, 9, (uint32_t)len - 1, &r), SY_PEEK_TOO_BIG);

	/* Declared length fits, but cut into 1-byte records it does not:
	 * TOO_BIG when max_len bytes are held, not before. */
	sp.pad_to = 0;
	build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	recs = calloc(o.msg_len, sizeof(*recs));
	assert_non_null(recs);
	for (i = 0; i < o.msg_len - 1; i++)
		recs[i] = 1;
	sp.recs = recs;
	sp.n_recs = (unsigned)(o.msg_len - 1);
	len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);
	assert_int_equal(len, 6 * o.msg_len);
	check(PEEK_TLS, hello_buf, len, BIG_MAX, SY_PEEK_DONE, len, &r);
	assert_string_equal(r.tls.sni, "big.example.test");
	check(PEEK_TLS, hello_buf, len, (uint32_t)(3 * o.msg_len), SY_PEEK_TOO_BIG, 0, &r);
	assert_int_equal(run_whole(PEEK_TLS, hello_buf, 3 * o.msg_len - 1, (uint32_t)(3 * o.msg_len),
				   &r), SY_PEEK_MORE);
	assert_int_equal(run_whole(PEEK_TLS, hello_buf, 3 * o.msg_len, (uint32_t)(3 * o.msg_len), &r),
			 SY_PEEK_TOO_BIG);
	free(recs);
}

static void
test_tls_trailing(void **state)
{
	/* A middlebox-compat ChangeCipherSpec and early data after the hello
	 * are not part of it. */
	static const uint8_t after[] = { 0x14, 0x03, 0x03, 0x00, 0x01, 0x01,
					 0x17, 0x03, 0x03, 0x00, 0x02, 0xaa, 0xbb };
	struct hello_spec sp = { .sni = "t.example.test" };
	struct hello_off o;
	union peek_res r;
	size_t len = build_hello(hello_buf, sizeof(hello_buf), &sp, &o);

	memcpy(hello_buf + len, after, sizeof(after));
	check(PEEK_TLS, hello_buf, len + sizeof(after), BIG_MAX, SY_PEEK_DONE, len, &r);
	assert_string_equal(r.tls.sni, "t.example.test");
	/* Same inside the hello's last record (a client coalescing). */
	set16(hello_buf, 3, (unsigned)(len - 5 + 3));
	hello_buf[len] = 0xee;
	check(PEEK_TLS, hello_buf, len + 3, BIG_MAX, SY_PEEK_DONE, len, &r);
	assert_string_equal(r.tls.sni, "t.example.test");
}

/* A ClientHello captured from `openssl s_client -connect 127.0.0.1:PORT
 * -servername real.example.test` (OpenSSL 3.0.22, Debian 12), first TCP
 * payload of the connection, read by a loopback listener. */
static const uint8_t openssl_hello[] = {
	0x16, 0x03, 0x01, 0x01, 0x3e, 0x01, 0x00, 0x01, 0x3a, 0x03, 0x03, 0xcd,
	0x5e, 0xa1, 0xfb, 0x8d, 0x91, 0x8e, 0xae, 0x93, 0x33, 0x44, 0xc1, 0xcf,
	0xe5, 0x4c, 0xec, 0x88, 0xed, 0x02, 0x15, 0xcb, 0xf7, 0x5e, 0xc7, 0xbc,
	0x51, 0x48, 0x56, 0x65, 0xcc, 0x11, 0xf7, 0x20, 0x0f, 0x60, 0xdd, 0x31,
	0xe8, 0x23, 0x65, 0x75, 0x66, 0x2a, 0x94, 0xcc, 0xad, 0x75, 0x30, 0xf9,
	0x06, 0xd8, 0x67, 0x32, 0x47, 0xf8, 0x39, 0x37, 0x8d, 0x62, 0x23, 0x78,
	0x54, 0x3f, 0x0c, 0x62, 0x00, 0x3e, 0x13, 0x02, 0x13, 0x03, 0x13, 0x01,
	0xc0, 0x2c, 0xc0, 0x30, 0x00, 0x9f, 0xcc, 0xa9, 0xcc, 0xa8, 0xcc, 0xaa,
	0xc0, 0x2b, 0xc0, 0x2f, 0x00, 0x9e, 0xc0, 0x24, 0xc0, 0x28, 0x00, 0x6b,
	0xc0, 0x23, 0xc0, 0x27, 0x00, 0x67, 0xc0, 0x0a, 0xc0, 0x14, 0x00, 0x39,
	0xc0, 0x09, 0xc0, 0x13, 0x00, 0x33, 0x00, 0x9d, 0x00, 0x9c, 0x00, 0x3d,
	0x00, 0x3c, 0x00, 0x35, 0x00, 0x2f, 0x00, 0xff, 0x01, 0x00, 0x00, 0xb3,
	0x00, 0x00, 0x00, 0x16, 0x00, 0x14, 0x00, 0x00, 0x11, 0x72, 0x65, 0x61,
	0x6c, 0x2e, 0x65, 0x78, 0x61, 0x6d, 0x70, 0x6c, 0x65, 0x2e, 0x74, 0x65,
	0x73, 0x74, 0x00, 0x0b, 0x00, 0x04, 0x03, 0x00, 0x01, 0x02, 0x00, 0x0a,
	0x00, 0x16, 0x00, 0x14, 0x00, 0x1d, 0x00, 0x17, 0x00, 0x1e, 0x00, 0x19,
	0x00, 0x18, 0x01, 0x00, 0x01, 0x01, 0x01, 0x02, 0x01, 0x03, 0x01, 0x04,
	0x00, 0x23, 0x00, 0x00, 0x00, 0x16, 0x00, 0x00, 0x00, 0x17, 0x00, 0x00,
	0x00, 0x0d, 0x00, 0x2a, 0x00, 0x28, 0x04, 0x03, 0x05, 0x03, 0x06, 0x03,
	0x08, 0x07, 0x08, 0x08, 0x08, 0x09, 0x08, 0x0a, 0x08, 0x0b, 0x08, 0x04,
	0x08, 0x05, 0x08, 0x06, 0x04, 0x01, 0x05, 0x01, 0x06, 0x01, 0x03, 0x03,
	0x03, 0x01, 0x03, 0x02, 0x04, 0x02, 0x05, 0x02, 0x06, 0x02, 0x00, 0x2b,
	0x00, 0x09, 0x08, 0x03, 0x04, 0x03, 0x03, 0x03, 0x02, 0x03, 0x01, 0x00,
	0x2d, 0x00, 0x02, 0x01, 0x01, 0x00, 0x33, 0x00, 0x26, 0x00, 0x24, 0x00,
	0x1d, 0x00, 0x20, 0xe7, 0xb8, 0x88, 0x47, 0xf4, 0x27, 0x9a, 0x5e, 0xf5,
	0xb5, 0x04, 0x39, 0x9e, 0x62, 0xb4, 0xa9, 0x1c, 0x92, 0x8d, 0xc7, 0x5f,
	0x53, 0x4b, 0xf2, 0x96, 0x79, 0x97, 0xc0, 0x5d, 0x23, 0x6d, 0x47
};

static void
test_tls_openssl_capture(void **state)
{
	union peek_res r;

	assert_int_equal(sizeof(openssl_hello), 323);
	check(PEEK_TLS, openssl_hello, sizeof(openssl_hello), BIG_MAX, SY_PEEK_DONE,
	      sizeof(openssl_hello), &r);
	assert_true(r.tls.has_sni);
	assert_string_equal(r.tls.sni, "real.example.test");
	assert_int_equal(r.tls.sni_len, 17);
	assert_int_equal(r.tls.record_version, 0x0301);
	assert_int_equal(r.tls.hello_version, 0x0303);
	assert_int_equal(r.tls.hello_len, 314);
}

/* ================= PROXY protocol ================= */

static void
pp_ok(const void *in, size_t len, uint32_t hdr_len, int family, const char *src, uint16_t sport)
{
	union peek_res r;

	check(PEEK_PP, in, len, BIG_MAX, SY_PEEK_DONE, hdr_len, &r);
	assert_int_equal(r.pp.len, hdr_len);
	assert_int_equal(r.pp.has_addr, src != NULL);
	if (src != NULL) {
		uint8_t a[16] = { 0 };

		assert_int_equal(r.pp.family, family);
		assert_int_equal(inet_pton(family, src, a), 1);
		assert_memory_equal(r.pp.src, a, family == AF_INET ? 4 : 16);
		assert_int_equal(r.pp.sport, sport);
	}
}

static void
pp_bad(const void *in, size_t len)
{
	union peek_res r;

	check(PEEK_PP, in, len, BIG_MAX, SY_PEEK_BAD, 0, &r);
}

#define PP_OK_LIT(lit, fam, src, sport) pp_ok(lit, sizeof(lit) - 1, sizeof(lit) - 1, fam, src, sport)

static void
test_pp_v1(void **state)
{
	static const char req[] = "PROXY TCP4 198.19.7.7 198.18.0.1 5555 80\r\nGET / HTTP/1.1\r\n";

	(void)state;
	PP_OK_LIT("PROXY TCP4 198.19.7.7 198.18.0.1 5555 80\r\n", AF_INET, "198.19.7.7", 5555);
	PP_OK_LIT("PROXY TCP6 2001:2::7 2001:2::1 65535 443\r\n", AF_INET6, "2001:2::7", 65535);
	PP_OK_LIT("PROXY UNKNOWN\r\n", AF_INET, NULL, 0);
	PP_OK_LIT("PROXY UNKNOWN 2001:2::7 2001:2::1 1 2\r\n", AF_INET, NULL, 0);
	/* What follows the header is the connection's own: not read. */
	pp_ok(req, sizeof(req) - 1, 42, AF_INET, "198.19.7.7", 5555);
	/* Broken fields, each refused. */
	pp_bad("PROXY TCP4 198.19.7.300 198.18.0.1 5555 80\r\n", 44);
	pp_bad("PROXY TCP4 2001:2::7 198.18.0.1 5555 80\r\n", 42);
	pp_bad("PROXY TCP4 198.19.7.7 198.18.0.1 65536 80\r\n", 44);
	pp_bad("PROXY TCP4 198.19.7.7 198.18.0.1 05555 80\r\n", 44);
	pp_bad("PROXY TCP4 198.19.7.7  198.18.0.1 5555 80\r\n", 43);
	pp_bad("PROXY TCP4 198.19.7.7 198.18.0.1 5555 80\n", 41);
	pp_bad("PROXY TCP4 198.19.7.7 198.18.0.1 5555 80 9\r\n", 44);
	pp_bad("PROXY UDP4 198.19.7.7 198.18.0.1 5555 80\r\n", 42);
	pp_bad("PROXY TCP4 198.19.7.7 198.18.0.1 -1 80\r\n", 40);
	pp_bad("GET / HTTP/1.1\r\nHost: a\r\n\r\n", 27);
	pp_bad("\x16\x03\x01\x00\x05hello", 10);
	{
		/* No CRLF within 107 bytes; the CRLF ending at byte 107 and at
		 * byte 108 (one past the specification's bound). */
		char longer[160];

		memset(longer, 'x', sizeof(longer));
		memcpy(longer, "PROXY UNKNOWN ", 14);
		pp_bad(longer, sizeof(longer));
		memcpy(longer + 105, "\r\n", 2);
		pp_ok(longer, 107, 107, AF_INET, NULL, 0);
		memcpy(longer + 105, "xx", 2);
		memcpy(longer + 106, "\r\n", 2);
		pp_bad(longer, 108);
	}
}

/* A version 2 header: signature, ver_cmd, fam, length, body. */
static size_t
pp_v2(uint8_t *out, uint8_t ver_cmd, uint8_t fam, const uint8_t *body, uint16_t blen)
{
	static const uint8_t sig[12] = { 0x0d, 0x0a, 0x0d, 0x0a, 0x00, 0x0d,
					 0x0a, 0x51, 0x55, 0x49, 0x54, 0x0a };

	memcpy(out, sig, 12);
	out[12] = ver_cmd;
	out[13] = fam;
	out[14] = (uint8_t)(blen >> 8);
	out[15] = (uint8_t)blen;
	memcpy(out + 16, body, blen);
	return 16u + blen;
}

static void
test_pp_v2(void **state)
{
	uint8_t buf[700], body[600];
	size_t n;

	(void)state;
	/* TCP over IPv4: 198.19.7.7:5555 -> 198.18.0.1:80, then a TLV. */
	memcpy(body, "\xc6\x13\x07\x07\xc6\x12\x00\x01\x15\xb3\x00\x50", 12);
	memcpy(body + 12, "\x04\x00\x03" "abc", 6); /* PP2_TYPE_NOOP, 3 bytes */
	n = pp_v2(buf, 0x21, 0x11, body, 18);
	pp_ok(buf, n, (uint32_t)n, AF_INET, "198.19.7.7", 5555);
	/* TCP over IPv6. */
	memset(body, 0, 36);
	memcpy(body, "\x20\x01\x00\x02", 4);
	body[15] = 7;
	memcpy(body + 16, "\x20\x01\x00\x02", 4);
	body[31] = 1;
	body[32] = 0x01;
	body[33] = 0xbb;
	body[35] = 80;
	n = pp_v2(buf, 0x21, 0x21, body, 36);
	pp_ok(buf, n, (uint32_t)n, AF_INET6, "2001:2::7", 443);
	/* LOCAL (a health check): no address; AF_UNIX with PROXY: none we use. */
	n = pp_v2(buf, 0x20, 0x00, body, 0);
	pp_ok(buf, n, (uint32_t)n, AF_INET, NULL, 0);
	memset(body, 'u', 216);
	n = pp_v2(buf, 0x21, 0x31, body, 216);
	pp_ok(buf, n, (uint32_t)n, AF_INET, NULL, 0);
	/* Refused: version 1 in a v2 header, an unknown command, a length
	 * past what we hold, an IPv4 block shorter than its addresses. */
	n = pp_v2(buf, 0x11, 0x11, body, 12);
	pp_bad(buf, n);
	n = pp_v2(buf, 0x22, 0x11, body, 12);
	pp_bad(buf, n);
	n = pp_v2(buf, 0x21, 0x11, body, 12);
	buf[14] = 0x02; /* 512 + 12 bytes claimed */
	buf[15] = 0x10;
	pp_bad(buf, n);
	n = pp_v2(buf, 0x21, 0x11, body, 8);
	pp_bad(buf, n);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_http_simple),
		cmocka_unit_test(test_http_absolute_form),
		cmocka_unit_test(test_http_host_forms),
		cmocka_unit_test(test_http_host_length),
		cmocka_unit_test(test_http_versions),
		cmocka_unit_test(test_http_request_line),
		cmocka_unit_test(test_http_duplicate_host),
		cmocka_unit_test(test_http_line_endings),
		cmocka_unit_test(test_http_field_names),
		cmocka_unit_test(test_http_control_chars),
		cmocka_unit_test(test_http_too_big),
		cmocka_unit_test(test_http_uri_too_long),
		cmocka_unit_test(test_http_pipelined),
		cmocka_unit_test(test_http_leading_crlf),
		cmocka_unit_test(test_http_incomplete),
		cmocka_unit_test(test_tls_single_record),
		cmocka_unit_test(test_tls_records),
		cmocka_unit_test(test_tls_no_sni),
		cmocka_unit_test(test_tls_not_mine),
		cmocka_unit_test(test_tls_hostile_lengths),
		cmocka_unit_test(test_tls_hostile_records),
		cmocka_unit_test(test_tls_sni_values),
		cmocka_unit_test(test_tls_too_big),
		cmocka_unit_test(test_tls_trailing),
		cmocka_unit_test(test_tls_openssl_capture),
		cmocka_unit_test(test_pp_v1),
		cmocka_unit_test(test_pp_v2),
	};

	page_size = (size_t)sysconf(_SC_PAGESIZE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
