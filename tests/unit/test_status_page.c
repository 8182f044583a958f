/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The status page's data (control/observe/status_page.c) without a data
 * plane: with more vhosts and routes than it lists, /status.json has the
 * first ones by name (sorted, bounded) and the totals; every route object
 * with its hosts and admission state; rules with their pools' endpoints and
 * the backends met in them; and the page itself is compiled in.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "observe/status_page.h"
#include "test_eal.h"
#include "test_router.h"

#define N_ROUTES 250 /* more than SY_STATUS_MAX_VHOSTS and _ROUTES */

static json_t *
status_json(struct sy_router *r)
{
	size_t len = 0;
	char *text = sy_status_page_json(r, &len);
	json_error_t e;
	json_t *d;

	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	d = json_loads(text, 0, &e);
	if (d == NULL)
		fail_msg("status.json is not JSON: %s", e.text);
	free(text);
	sy_store_cool(&r->store);
	return d;
}

static void
test_status_json(void **state)
{
	struct sy_router r;
	json_t *d, *items, *v;
	char *objs = NULL, *more;
	size_t i;
	int k;

	assert_int_equal(fresh_state(NULL), 0);
	router_start(&r);
	/* Applied in reverse, so the listing's order is its own. */
	assert_true(asprintf(&objs, T_SVC("a", "s") "," T_EPS("a", "s", "198.18.9.1")) > 0);
	for (k = N_ROUTES - 1; k >= 0; k--) {
		assert_true(asprintf(&more,
				     "%s,{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\","
				     "\"metadata\":{\"name\":\"r%03d\",\"namespace\":\"a\"},\"spec\":{"
				     "\"host\":\"r%03d.test\",\"to\":{\"kind\":\"Service\",\"name\":\"s\"}}}",
				     objs, k, k) > 0);
		free(objs);
		objs = more;
	}
	ops_apply_ok(&r, objs);
	free(objs);

	d = status_json(&r);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "objects"), "Route")),
			 N_ROUTES);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(d, "generation"), "id")),
			 r.gen_id);

	v = json_object_get(d, "vhosts");
	items = json_object_get(v, "items");
	assert_int_equal(json_integer_value(json_object_get(v, "total")), N_ROUTES);
	assert_int_equal(json_integer_value(json_object_get(v, "shown")), SY_STATUS_MAX_VHOSTS);
	assert_int_equal(json_array_size(items), SY_STATUS_MAX_VHOSTS);
	for (i = 0; i < json_array_size(items); i++) {
		char want[32];
		const json_t *vh = json_array_get(items, i), *rule;

		snprintf(want, sizeof(want), "r%03zu.test", i);
		assert_string_equal(json_string_value(json_object_get(vh, "host")), want);
		assert_string_equal(json_string_value(json_object_get(vh, "mode")), "splice");
		rule = json_array_get(json_object_get(vh, "rules"), 0);
		assert_string_equal(json_string_value(json_object_get(rule, "action")), "backend");
		assert_string_equal(json_string_value(json_array_get(json_object_get(rule, "endpoints"), 0)),
				    "198.18.9.1:8080");
	}

	v = json_object_get(d, "routes");
	items = json_object_get(v, "items");
	assert_int_equal(json_integer_value(json_object_get(v, "total")), N_ROUTES);
	assert_int_equal(json_array_size(items), SY_STATUS_MAX_ROUTES);
	for (i = 0; i < json_array_size(items); i++) {
		char want[32];
		const json_t *o = json_array_get(items, i);

		snprintf(want, sizeof(want), "r%03zu", i);
		assert_string_equal(json_string_value(json_object_get(o, "name")), want);
		assert_string_equal(json_string_value(json_object_get(o, "state")), "admitted");
		snprintf(want, sizeof(want), "r%03zu.test", i);
		assert_string_equal(json_string_value(json_array_get(json_object_get(o, "hosts"), 0)), want);
	}

	/* One backend, met in every listed pool, once; no data plane: no workers. */
	v = json_object_get(d, "backends");
	assert_int_equal(json_integer_value(json_object_get(v, "total")), 1);
	assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(v, "items"), 0),
							      "endpoint")),
			    "198.18.9.1:8080");
	assert_string_equal(json_string_value(json_array_get(json_object_get(json_array_get(
					json_object_get(v, "items"), 0), "services"), 0)),
			    "a/s");
	assert_int_equal(json_array_size(json_object_get(d, "workers")), 0);
	json_decref(d);

	router_stop(&r);
	assert_int_equal(remove_state(NULL), 0);
}

static void
test_page_compiled_in(void **state)
{
	assert_true(sy_status_page_html_len > 1000);
	assert_int_equal(strlen(sy_status_page_html), sy_status_page_html_len);
	assert_non_null(strstr(sy_status_page_html, "<title>Switchyard status</title>"));
	assert_non_null(strstr(sy_status_page_html, "fetch(\"/status.json\""));
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_status_json),
		cmocka_unit_test(test_page_compiled_in),
	};
	int rc;

	if (sy_test_eal_init("test_status_page") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
