/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The metrics address's server (control/observe/metrics_http.c) as a state
 * machine, on socket pairs and a clock the test sets: a head in pieces is
 * answered once whole; a head trickled a byte every 150 ms is closed at its
 * 5 s deadline, not kept alive by each byte; a head over 8 KiB gets 431; an
 * answer is rendered once and written as the client reads it, a reader that
 * closes half-way is counted and closed, one that never reads is closed at
 * the answer's deadline; the connection idle longest makes room when full,
 * one that sent nothing only if no other and not in its first 100 ms;
 * 400, 404, 405, HEAD, 503 while slow readers hold the buffers. Nothing here
 * ever blocks: a call that would fails the test by hanging it (meson's
 * timeout).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include "observe/metrics_http.h"
#include "observe/status_page.h"
#include "test_eal.h"
#include "test_router.h"

static struct sy_metrics_http srv;
static struct sy_router rt;

static int
setup(void **state)
{
	if (fresh_state(state) < 0)
		return -1;
	router_start(&rt);
	memset(&srv, 0, sizeof(srv));
	srv.listen_fd = -1;
	return 0;
}

static int
teardown(void **state)
{
	sy_metrics_http_close(&srv);
	router_stop(&rt);
	return remove_state(state);
}

/* A client connected to the server; its end, non-blocking. sndbuf > 0: the
 * server's send buffer that small (an answer goes in pieces). */
static int
client_at(uint64_t now_ms, int sndbuf)
{
	int sv[2];

	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	if (sndbuf > 0)
		assert_int_equal(setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)), 0);
	assert_int_equal(fcntl(sv[1], F_SETFL, O_NONBLOCK), 0);
	assert_int_equal(sy_metrics_http_adopt(&srv, sv[0], now_ms), 0);
	return sv[1];
}

static uint64_t last_turn_ms;

/* One turn of the control loop at now_ms: poll (never waiting), handle. */
static void
turn(uint64_t now_ms)
{
	last_turn_ms = now_ms;
	struct pollfd pfds[SY_METRICS_HTTP_MAX_CONNS + 1];
	unsigned n = sy_metrics_http_pollfds(&srv, pfds, SY_METRICS_HTTP_MAX_CONNS + 1);
	int rc = poll(pfds, n, 0);

	assert_true(rc >= 0);
	sy_metrics_http_handle(&srv, &rt, pfds, rc > 0 ? n : 0, now_ms);
}

/* Turns at now_ms until no page waits to be rendered (a round renders for
 * 5 ms, and a slow machine leaves some for the next turn). */
static void
settle(uint64_t now_ms)
{
	unsigned k;

	turn(now_ms);
	for (k = 0; k < 1000 && sy_metrics_http_timeout_ms(&srv, now_ms) == 0; k++)
		turn(now_ms);
}

static void
say(int fd, const char *s)
{
	assert_int_equal(send(fd, s, strlen(s), MSG_NOSIGNAL), (ssize_t)strlen(s));
}

/* What the client can read now, appended to *buf (NUL-terminated). Returns
 * 1 when the server closed the connection, 0 when more may come. */
static int
take(int fd, char **buf, size_t *len, size_t at_most)
{
	for (;;) {
		char chunk[4096];
		size_t want = at_most < sizeof(chunk) ? at_most : sizeof(chunk);
		ssize_t n = want ? recv(fd, chunk, want, 0) : -1;

		if (n == 0)
			return 1;
		if (n < 0) {
			assert_true(want == 0 || errno == EAGAIN || errno == EWOULDBLOCK);
			return 0;
		}
		*buf = realloc(*buf, *len + (size_t)n + 1);
		assert_non_null(*buf);
		memcpy(*buf + *len, chunk, (size_t)n);
		*len += (size_t)n;
		(*buf)[*len] = '\0';
		at_most -= (size_t)n;
	}
}

/* The whole answer of a client whose answer the server wrote at once (and
 * shut its side: the client sees the end); the client closes, and the
 * server, lingering, closes too at its next turn. */
static char *
answer_of(int fd, size_t *len)
{
	char *buf = NULL;
	unsigned n = srv.n;

	*len = 0;
	assert_int_equal(take(fd, &buf, len, SIZE_MAX), 1);
	assert_non_null(buf);
	close(fd);
	turn(last_turn_ms);
	/* (Already closed when the client had ended its side first.) */
	assert_int_equal(srv.n, n > 0 ? n - 1 : 0);
	return buf;
}

/* Content-Length of an answer, and that the body has exactly that many. */
static size_t
body_checked(const char *a, size_t len)
{
	const char *cl = strstr(a, "Content-Length: "), *body = strstr(a, "\r\n\r\n");
	size_t n;

	assert_non_null(cl);
	assert_non_null(body);
	n = strtoul(cl + 16, NULL, 10);
	assert_int_equal(len - (size_t)(body + 4 - a), n);
	return n;
}

static void
test_head_in_pieces(void **state)
{
	int c = client_at(0, 0);
	size_t len;
	char *a, *gen;

	say(c, "GET /metrics?x=1 HTTP/1.1\r\nHost: h\r");
	turn(10);
	say(c, "\nAccept: */*\r\n");
	turn(20);
	/* Nothing yet: the head is not whole. */
	a = NULL;
	len = 0;
	assert_int_equal(take(c, &a, &len, SIZE_MAX), 0);
	assert_int_equal(len, 0);
	assert_int_equal(srv.n, 1);
	say(c, "\r\n");
	turn(30);
	a = answer_of(c, &len);
	assert_true(strncmp(a, "HTTP/1.1 200 OK\r\n", 17) == 0);
	assert_non_null(strstr(a, "Content-Type: text/plain; version=0.0.4"));
	assert_non_null(strstr(a, "Connection: close\r\n"));
	body_checked(a, len);
	gen = strstr(a, "\nswitchyard_generation ");
	assert_non_null(gen);
	free(a);
	assert_int_equal(srv.n, 0);
	assert_int_equal(srv.st.connections, 1);
	assert_int_equal(srv.st.answers, 1);
	assert_int_equal(srv.st.open, 0);
	assert_int_equal(srv.out_bytes, 0);
	(void)state;
}

static void
test_trickle_times_out(void **state)
{
	static const char req[] = "GET /metrics HTTP/1.1\r\nHost: a-long-host-name.example\r\n";
	int c = client_at(1000, 0);
	uint64_t t = 1000;
	size_t i = 0, len = 0;
	char *a = NULL;

	assert_int_equal(sy_metrics_http_timeout_ms(&srv, 1000), SY_METRICS_HTTP_HEAD_MS);
	/* A byte every 150 ms: each is read, none moves the deadline. */
	for (; t + 150 < 1000 + SY_METRICS_HTTP_HEAD_MS; t += 150) {
		char b[2] = { req[i++ % (sizeof(req) - 1)], 0 };

		say(c, b);
		turn(t);
		assert_int_equal(srv.n, 1);
	}
	assert_int_equal(sy_metrics_http_timeout_ms(&srv, t), 1000 + SY_METRICS_HTTP_HEAD_MS - t);
	turn(1000 + SY_METRICS_HTTP_HEAD_MS - 1);
	assert_int_equal(srv.n, 1);
	turn(1000 + SY_METRICS_HTTP_HEAD_MS);
	assert_int_equal(srv.n, 0);
	assert_int_equal(srv.st.timed_out[SY_CONN_TIMEOUT_REQUEST], 1);
	assert_int_equal(srv.st.answers, 0);
	assert_int_equal(sy_metrics_http_timeout_ms(&srv, t), -1);
	/* Closed without an answer. */
	assert_int_equal(take(c, &a, &len, SIZE_MAX), 1);
	assert_int_equal(len, 0);
	close(c);
	(void)state;
}

static void
test_oversized_head(void **state)
{
	int c = client_at(0, 0);
	char *big = malloc(SY_METRICS_HTTP_HEAD_MAX + 100), *a;
	size_t len;

	assert_non_null(big);
	memset(big, 'a', SY_METRICS_HTTP_HEAD_MAX + 99);
	memcpy(big, "GET /metrics HTTP/1.1\r\nX-Big: ", 30);
	big[SY_METRICS_HTTP_HEAD_MAX + 99] = '\0';
	say(c, big);
	free(big);
	turn(5);
	a = answer_of(c, &len);
	assert_true(strncmp(a, "HTTP/1.1 431 ", 13) == 0);
	assert_non_null(strstr(a, "request head longer than 8192 bytes"));
	body_checked(a, len);
	free(a);
	assert_int_equal(srv.st.refused[SY_CONN_TOO_LARGE], 1);

	/* A head of exactly the limit is whole and served. */
	c = client_at(10, 0);
	big = malloc(SY_METRICS_HTTP_HEAD_MAX + 1);
	assert_non_null(big);
	memset(big, 'a', SY_METRICS_HTTP_HEAD_MAX);
	memcpy(big, "GET / HTTP/1.1\r\nX: ", 19);
	memcpy(big + SY_METRICS_HTTP_HEAD_MAX - 4, "\r\n\r\n", 4);
	big[SY_METRICS_HTTP_HEAD_MAX] = '\0';
	say(c, big);
	free(big);
	turn(20);
	a = answer_of(c, &len);
	assert_true(strncmp(a, "HTTP/1.1 200 OK\r\n", 17) == 0);
	assert_int_equal(body_checked(a, len), sy_status_page_html_len);
	free(a);
	assert_int_equal(srv.st.refused[SY_CONN_TOO_LARGE], 1);
	(void)state;
}

static void
test_slow_reader_then_closes(void **state)
{
	/* The status page (17 KiB and more) through a small send buffer. */
	int c = client_at(0, 4096);
	size_t len = 0, before;
	char *a = NULL;

	say(c, "GET /status HTTP/1.0\r\n\r\n");
	turn(1);
	assert_int_equal(srv.n, 1);
	assert_int_equal(srv.conns[0].phase, SY_MHTTP_ANSWER);
	assert_null(srv.conns[0].head); /* only the answer is kept */
	before = srv.out_bytes;
	assert_true(before > 0 && before < sy_status_page_html_len + 200);
	/* The client reads what came: the server writes more at the next turn. */
	assert_int_equal(take(c, &a, &len, SIZE_MAX), 0);
	assert_true(len > 0 && len < sy_status_page_html_len);
	turn(2000);
	assert_true(srv.out_bytes < before);
	assert_int_equal(srv.conns[0].last_ms, 2000);
	/* Then it leaves without the rest. */
	close(c);
	turn(2100);
	assert_int_equal(srv.n, 0);
	assert_int_equal(srv.st.aborted, 1);
	assert_int_equal(srv.st.answers, 0);
	assert_int_equal(srv.out_bytes, 0);
	free(a);
	(void)state;
}

/* Apply these objects (JSON, comma-separated) through the control op. */
static void
apply(const char *objects)
{
	char *text = NULL;
	json_t *req, *reply;

	assert_true(asprintf(&text, "{\"op\":\"apply\",\"objects\":[%s]}", objects) > 0);
	req = json_loads(text, 0, NULL);
	assert_non_null(req);
	reply = sy_ops_handle(&rt, req);
	if (!json_is_true(json_object_get(reply, "ok")))
		fail_msg("apply: %s", json_dumps(reply, 0));
	json_decref(reply);
	json_decref(req);
	free(text);
}

static void
test_reader_gets_one_rendering(void **state)
{
	/* The metrics of a router with a few objects: long enough to go in
	 * pieces through a small buffer. */
	int c;
	size_t len = 0, body;
	uint64_t t = 0, gen;
	char *a = NULL, want[64];
	int done = 0;

	apply(T_SVC("m", "s") "," T_EPS("m", "s", "198.18.9.1") "," T_ROUTE("m", "r", "r.apps.test", "s"));
	gen = rt.gen_id;
	c = client_at(0, 4096);
	say(c, "GET /metrics HTTP/1.1\r\n\r\n");
	turn(t);
	assert_int_equal(srv.conns[0].phase, SY_MHTTP_ANSWER);
	/* A change while the answer is read: the answer stays what it was
	 * when the head was whole (rendered once, not at each write). */
	apply(T_ROUTE("m", "r2", "r2.apps.test", "s"));
	assert_true(rt.gen_id > gen);
	while (!done) {
		done = take(c, &a, &len, 512);
		turn(t += 10);
		assert_true(t < 100000);
	}
	close(c);
	body = body_checked(a, len);
	assert_true(body > 4096);
	snprintf(want, sizeof(want), "\nswitchyard_generation %lu\n", (unsigned long)gen);
	assert_non_null(strstr(a, want));
	free(a);
	assert_int_equal(srv.st.answers, 1);
	(void)state;
}

static void
test_reader_never_reads(void **state)
{
	int c = client_at(0, 4096);

	say(c, "GET / HTTP/1.1\r\n\r\n");
	turn(1);
	assert_int_equal(srv.conns[0].phase, SY_MHTTP_ANSWER);
	assert_int_equal(sy_metrics_http_timeout_ms(&srv, 1), SY_METRICS_HTTP_ANSWER_MS);
	turn(1 + SY_METRICS_HTTP_ANSWER_MS - 1);
	assert_int_equal(srv.n, 1);
	turn(1 + SY_METRICS_HTTP_ANSWER_MS);
	assert_int_equal(srv.n, 0);
	assert_int_equal(srv.st.timed_out[SY_CONN_TIMEOUT_ANSWER], 1);
	assert_int_equal(srv.out_bytes, 0);
	close(c);
	(void)state;
}

static void
test_full_closes_idle_longest(void **state)
{
	int c[SY_METRICS_HTTP_MAX_CONNS + 1], i, extra;
	size_t len = 0;
	char *a = NULL;

	/* The first sends nothing (a scrape between its connect and its
	 * head); the others a byte each, one a turn. */
	c[0] = client_at(0, 0);
	for (i = 1; i < SY_METRICS_HTTP_MAX_CONNS; i++) {
		c[i] = client_at((uint64_t)i, 0);
		say(c[i], "G");
		turn((uint64_t)i);
	}
	/* The second sends another: the third is idle longest of those that
	 * sent something, and closed for a new one; the silent first is
	 * kept although older. */
	say(c[1], "E");
	turn(100);
	extra = client_at(200, 0);
	assert_int_equal(srv.n, SY_METRICS_HTTP_MAX_CONNS);
	assert_int_equal(srv.st.refused[SY_CONN_EVICTED], 1);
	assert_int_equal(take(c[2], &a, &len, SIZE_MAX), 1); /* closed, no answer */
	assert_int_equal(len, 0);
	assert_int_equal(take(c[1], &a, &len, SIZE_MAX), 0); /* still open */
	assert_int_equal(take(c[0], &a, &len, SIZE_MAX), 0);
	/* The silent one's head comes now: it is answered. */
	say(c[0], "GET /metrics HTTP/1.1\r\n\r\n");
	turn(250);
	a = answer_of(c[0], &len);
	assert_true(strncmp(a, "HTTP/1.1 200 OK\r\n", 17) == 0);
	free(a);
	/* So is the newest, while the others hold their slots. */
	say(extra, "GET /metrics HTTP/1.1\r\n\r\n");
	turn(300);
	a = answer_of(extra, &len);
	assert_true(strncmp(a, "HTTP/1.1 200 OK\r\n", 17) == 0);
	free(a);
	for (i = 1; i < SY_METRICS_HTTP_MAX_CONNS; i++)
		close(c[i]);
	turn(400);
	assert_int_equal(srv.n, 0);
	assert_int_equal(srv.st.connections, SY_METRICS_HTTP_MAX_CONNS + 1);
	(void)state;
}

/* A connection that has sent nothing is not closed for another in its
 * first SY_CONN_GRACE_MS: a scrape's head that comes a moment after
 * its connection is answered, however many connections a flood makes. */
static void
test_silent_grace(void **state)
{
	int c[SY_METRICS_HTTP_MAX_CONNS], i, late, sv[2];
	size_t len = 0;
	char *a = NULL;

	for (i = 0; i < SY_METRICS_HTTP_MAX_CONNS; i++)
		c[i] = client_at(10, 0);
	/* One more within the grace: none may make room. */
	assert_int_equal(socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv), 0);
	assert_int_equal(sy_metrics_http_adopt(&srv, sv[0], 10 + SY_CONN_GRACE_MS - 1), -1);
	assert_int_equal(srv.st.refused[SY_CONN_FULL], 1);
	assert_int_equal(srv.st.refused[SY_CONN_EVICTED], 0);
	assert_int_equal(take(sv[1], &a, &len, SIZE_MAX), 1); /* closed */
	close(sv[1]);
	/* After it, the one idle longest is closed for a new one. */
	late = client_at(10 + SY_CONN_GRACE_MS, 0);
	assert_int_equal(srv.st.refused[SY_CONN_EVICTED], 1);
	assert_int_equal(take(c[0], &a, &len, SIZE_MAX), 1);
	close(c[0]);
	/* The others' heads come: all are answered. */
	for (i = 1; i < SY_METRICS_HTTP_MAX_CONNS; i++)
		say(c[i], "GET / HTTP/1.1\r\n\r\n");
	settle(200);
	for (i = 1; i < SY_METRICS_HTTP_MAX_CONNS; i++) {
		a = NULL;
		len = 0;
		take(c[i], &a, &len, SIZE_MAX);
		assert_non_null(a);
		assert_true(strncmp(a, "HTTP/1.1 200 OK\r\n", 17) == 0);
		free(a);
		close(c[i]);
	}
	close(late);
	turn(300);
	assert_int_equal(srv.n, 0);
	(void)state;
}

/* The status line the server answers head with. */
static void
expect_status(const char *head, const char *status)
{
	int c = client_at(0, 0);
	size_t len;
	char *a;

	say(c, head);
	turn(1);
	a = answer_of(c, &len);
	if (strncmp(a, status, strlen(status)) != 0)
		fail_msg("%s: expected %s, got %.60s", head, status, a);
	free(a);
}

static void
test_answers(void **state)
{
	size_t len;
	int c;
	char *a;

	expect_status("POST /metrics HTTP/1.1\r\nContent-Length: 0\r\n\r\n", "HTTP/1.1 405 ");
	expect_status("GET /nothing HTTP/1.1\r\n\r\n", "HTTP/1.1 404 ");
	expect_status("hello\r\n\r\n", "HTTP/1.1 400 ");
	expect_status("GET /status.json HTTP/1.1\r\n\n", "HTTP/1.1 200 ");
	/* A request line and the end of the stream: answered. */
	c = client_at(0, 0);
	say(c, "GET /metrics\n");
	shutdown(c, SHUT_WR);
	turn(1);
	a = answer_of(c, &len);
	assert_true(strncmp(a, "HTTP/1.1 200 OK\r\n", 17) == 0);
	free(a);
	/* HEAD: the head alone, its Content-Length the page's. */
	c = client_at(0, 0);
	say(c, "HEAD / HTTP/1.1\r\n\r\n");
	turn(1);
	a = answer_of(c, &len);
	assert_true(strncmp(a, "HTTP/1.1 200 OK\r\n", 17) == 0);
	assert_int_equal(strtoul(strstr(a, "Content-Length: ") + 16, NULL, 10), sy_status_page_html_len);
	assert_int_equal(strlen(strstr(a, "\r\n\r\n")), 4);
	free(a);
	/* Closed before a whole head: counted, nothing answered. */
	c = client_at(0, 0);
	say(c, "GET /met");
	close(c);
	turn(1);
	assert_int_equal(srv.st.aborted, 1);
	/* Answers to slow readers hold what is allowed: a page that would be
	 * rendered is 503, a constant one is still served. */
	srv.out_bytes = SY_METRICS_HTTP_OUT_MAX;
	expect_status("GET /metrics HTTP/1.1\r\n\r\n", "HTTP/1.1 503 ");
	expect_status("GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 200 ");
	srv.out_bytes = 0;
	assert_int_equal(srv.st.refused[SY_CONN_BUSY], 1);
	assert_int_equal(srv.st.refused[SY_CONN_BAD_REQUEST], 1);
	assert_int_equal(srv.st.answers, 8);
	assert_int_equal(srv.n, 0);
	(void)state;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_head_in_pieces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trickle_times_out, setup, teardown),
		cmocka_unit_test_setup_teardown(test_oversized_head, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slow_reader_then_closes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_gets_one_rendering, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reader_never_reads, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_closes_idle_longest, setup, teardown),
		cmocka_unit_test_setup_teardown(test_silent_grace, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answers, setup, teardown),
	};

	int rc;

	if (sy_test_eal_init("test_metrics_http") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
