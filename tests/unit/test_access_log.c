/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The access log's lines (control/observe/access_log.c): HAProxy-style text
 * and JSON from a record, field for field; what is not known is "-" (null in
 * JSON); the router's own answers carry their reason; long fields are cut,
 * never overrun.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <cmocka.h>
#include <jansson.h>

#include "observe/access_log.h"
#include "sy_access_log.h"
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

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_text),
		cmocka_unit_test(test_json),
	};

	setenv("TZ", "UTC", 1);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
