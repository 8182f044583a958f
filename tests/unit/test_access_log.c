/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The access log's lines (control/observe/access_log.c): HAProxy-style text
 * and JSON from a record, field for field; what is not known is "-" (null in
 * JSON); the router's own answers carry their reason; long fields are cut,
 * never overrun. And the writer never waits: a FIFO whose reader stalls and
 * a syslog socket nobody reads cost dropped lines (counted), never a wait;
 * what a file gets is whole lines, in order.
 */
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <cmocka.h>
#include <jansson.h>

#include "observe/access_log.h"
#include "sy_access_log.h"
#include "sy_config.h"
#include "sy_counters.h"

static struct sy_access_rec
proxied(void)
{
	struct sy_access_rec r;

	memset(&r, 0, sizeof(r));
	r.mode = SY_ALOG_PROXY;
	r.why = SY_ALOG_NO_REASON;
	r.client_ip = inet_addr("198.18.0.2");
	r.client_port = htons(40312);
	r.vip = inet_addr("198.18.0.1");
	r.vip_port = htons(80);
	r.backend_ip = inet_addr("198.18.1.10");
	r.backend_port = htons(8080);
	r.connect_us = SY_ALOG_NO_TIME;
	r.resp_us = 2400;
	r.total_us = 3100;
	r.status = 200;
	r.bytes_out = 612;
	r.bytes_in = 78;
	snprintf(r.method, sizeof(r.method), "GET");
	snprintf(r.host, sizeof(r.host), "web.lab.test");
	snprintf(r.route, sizeof(r.route), "Route demo/web");
	snprintf(r.target, sizeof(r.target), "/api?x=1");
	return r;
}

/* 2026-11-26 11:13:14.655 UTC */
#define WHEN 1795691594.655

static void
test_text(void **state)
{
	struct sy_access_rec r = proxied();
	char buf[1024];

	(void)state;
	sy_alog_format(&r, false, WHEN, buf, sizeof(buf));
	assert_string_equal(buf, "198.18.0.2:40312 [26/Nov/2026:11:13:14.655] 198.18.0.1:80 Route demo/web "
				 "198.18.1.10:8080 -/2/3 200 612 78 -- proxy {web.lab.test} \"GET /api?x=1\"");
	/* The router's own answer over TLS: no backend, its reason. */
	r = proxied();
	r.mode = SY_ALOG_ANSWER;
	r.why = SY_ANSWER_NO_ROUTE;
	r.status = 503;
	r.backend_ip = 0;
	r.route[0] = '\0';
	r.tls = 1;
	r.resp_us = r.total_us = SY_ALOG_NO_TIME;
	sy_alog_format(&r, false, WHEN, buf, sizeof(buf));
	assert_non_null(strstr(buf, "198.18.0.1:80 - - -/-/- 503 612 78 no_route answer+tls {web.lab.test}"));
	/* A line never runs past its buffer. */
	assert_int_equal(sy_alog_format(&r, false, WHEN, buf, 40), 39);
	assert_int_equal(strlen(buf), 39);
}

static void
test_json(void **state)
{
	struct sy_access_rec r = proxied();
	char buf[2048];
	json_error_t e;
	json_t *o;

	(void)state;
	r.mode = SY_ALOG_SPLICE;
	r.status = 0;
	r.connect_us = 1500;
	r.resp_us = r.total_us = SY_ALOG_NO_TIME;
	snprintf(r.host, sizeof(r.host), "a\"b");
	sy_alog_format(&r, true, WHEN, buf, sizeof(buf));
	o = json_loads(buf, 0, &e);
	assert_non_null(o);
	assert_string_equal(json_string_value(json_object_get(o, "time")), "2026-11-26T11:13:14.655Z");
	assert_string_equal(json_string_value(json_object_get(o, "mode")), "splice");
	assert_string_equal(json_string_value(json_object_get(o, "host")), "a\"b");
	assert_true(json_is_null(json_object_get(o, "status")));
	assert_true(json_is_null(json_object_get(o, "total_ms")));
	assert_true(json_real_value(json_object_get(o, "connect_ms")) == 1.5);
	assert_string_equal(json_string_value(json_object_get(o, "backend")), "198.18.1.10:8080");
	assert_string_equal(json_string_value(json_object_get(o, "termination")), "--");
	json_decref(o);
}

/* ---- the writer: never waits for a reader ---- */

static char tmpdir[64];

static int
make_tmpdir(void **state)
{
	(void)state;
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sy-test-alog-XXXXXX");
	return mkdtemp(tmpdir) == NULL ? -1 : 0;
}

static int
remove_tmpdir(void **state)
{
	char cmd[128];

	(void)state;
	sy_alog_close();
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static int
alog_open_to(const char *to, char *err, size_t errlen)
{
	static struct sy_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	snprintf(cfg.access_log_to, sizeof(cfg.access_log_to), "%s", to);
	return sy_alog_open(&cfg, err, errlen);
}

#define N_LINES 20000

/* A FIFO whose reader does not read: 20,000 lines of 200 bytes (4 MB, far
 * more than the pipe and the 1 MiB pending) go at once, the rest counted as
 * dropped; the reader then gets whole lines, in order. */
static void
test_fifo_slow_reader(void **state)
{
	char path[128], err[256], line[256], *got;
	uint64_t written, dropped;
	size_t pending, len = 0, cap = 8 << 20;
	int rfd, i, prev = -1, whole = 0;
	ssize_t n;
	char *p;

	(void)state;
	snprintf(path, sizeof(path), "%s/fifo", tmpdir);
	assert_int_equal(mkfifo(path, 0600), 0);
	/* No reader: refused, saying why. */
	assert_true(alog_open_to(path, err, sizeof(err)) < 0);
	assert_non_null(strstr(err, "a FIFO nobody reads"));
	rfd = open(path, O_RDONLY | O_NONBLOCK);
	assert_true(rfd >= 0);
	assert_int_equal(alog_open_to(path, err, sizeof(err)), 0);
	for (i = 0; i < N_LINES; i++) {
		int k = snprintf(line, sizeof(line), "line %06d ", i);

		memset(line + k, 'x', 200 - (size_t)k);
		sy_alog_write_line(line, 200);
	}
	sy_alog_flush();
	sy_alog_counts(&written, &dropped, &pending);
	assert_true(dropped > 0);
	assert_true(pending <= (1u << 20));
	/* (The pipe may have taken part of a line: the rest is pending.) */
	assert_int_equal(written + dropped + (pending + 200) / 201, N_LINES);
	/* What the reader gets: whole lines, in order (a gap where lines were
	 * dropped). */
	got = malloc(cap);
	assert_non_null(got);
	for (;;) {
		n = read(rfd, got + len, cap - len);
		if (n <= 0) {
			sy_alog_flush(); /* the reader took some: more goes */
			n = read(rfd, got + len, cap - len);
			if (n <= 0)
				break;
		}
		len += (size_t)n;
	}
	sy_alog_counts(&written, &dropped, &pending);
	assert_int_equal(pending, 0);
	assert_int_equal(len, written * 201);
	for (p = got; p < got + len; p += 201, whole++) {
		int num = atoi(p + 5);

		assert_true(strncmp(p, "line ", 5) == 0);
		assert_int_equal(p[200], '\n');
		assert_true(num > prev);
		prev = num;
	}
	assert_int_equal((uint64_t)whole, written);
	free(got);
	close(rfd);
	sy_alog_close();
}

/* syslog: a datagram socket of our own, RFC 3164 as glibc sends it; a
 * daemon that stops reading costs dropped lines, not a wait; no daemon at
 * all, dropped lines too. */
static void
test_syslog_never_waits(void **state)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char err[256], want[64], msg[2048];
	uint64_t written, dropped;
	size_t pending;
	int fd, i;
	ssize_t n;

	(void)state;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/log", tmpdir);
	fd = socket(AF_UNIX, SOCK_DGRAM, 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	sy_alog_syslog_socket = sa.sun_path;
	assert_int_equal(alog_open_to("syslog", err, sizeof(err)), 0);
	sy_alog_write_line("hello", 5);
	n = recv(fd, msg, sizeof(msg) - 1, MSG_DONTWAIT);
	assert_true(n > 0);
	msg[n] = '\0';
	snprintf(want, sizeof(want), " routerd[%d]: hello", (int)getpid());
	assert_true(strncmp(msg, "<134>", 5) == 0);
	assert_non_null(strstr(msg, want));
	/* The daemon stops reading: the queue fills, the rest is dropped. */
	for (i = 0; i < N_LINES; i++)
		sy_alog_write_line("a line nobody reads", 19);
	sy_alog_counts(&written, &dropped, &pending);
	assert_true(written >= 2 && dropped > 0);
	assert_int_equal(written + dropped, N_LINES + 1);
	sy_alog_close();
	close(fd);
	/* No daemon: open works, lines are dropped. */
	unlink(sa.sun_path);
	assert_int_equal(alog_open_to("syslog", err, sizeof(err)), 0);
	sy_alog_write_line("nobody", 6);
	sy_alog_counts(&written, &dropped, &pending);
	assert_int_equal(written, 0);
	assert_int_equal(dropped, 1);
	sy_alog_close();
	sy_alog_syslog_socket = "/dev/log";
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
		cmocka_unit_test_setup_teardown(test_fifo_slow_reader, make_tmpdir, remove_tmpdir),
		cmocka_unit_test_setup_teardown(test_syslog_never_waits, make_tmpdir, remove_tmpdir),
	};

	setenv("TZ", "UTC", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
