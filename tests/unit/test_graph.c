/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `routerctl graph` (control/observe/graph.c) through the ops: the DOT of a
 * known configuration has its vhosts -> rules -> pools -> endpoints, a pool
 * two rules share drawn once, the IngressRoute delegation edges and roots,
 * is the same text twice, and graphviz's dot draws it.
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

#include "test_eal.h"
#include "test_router.h"

static char *
graph(struct sy_router *r)
{
	json_t *rep = ops_call(r, "{\"op\":\"graph\"}");
	char *dot;

	assert_true(reply_ok(rep));
	dot = strdup(json_string_value(json_object_get(rep, "dot")));
	json_decref(rep);
	assert_non_null(dot);
	return dot;
}

static void
has(const char *dot, const char *want)
{
	if (dot == NULL || strstr(dot, want) == NULL)
		fail_msg("the graph lacks: %s\n--- graph:\n%s", want, dot != NULL ? dot : "(none)");
}

static size_t
count(const char *dot, const char *what)
{
	size_t n = 0;

	for (const char *p = dot; (p = strstr(p, what)) != NULL; p += strlen(what))
		n++;
	return n;
}

static void
test_graph(void **state)
{
	struct sy_router r;
	char *dot, *again;

	assert_int_equal(fresh_state(NULL), 0);
	router_start(&r);
	ops_apply_ok(&r, T_SVC("a", "s") "," T_EPS("a", "s", "198.18.9.1") ","
		     T_SVC("b", "s") "," T_EPS("b", "s", "198.18.9.2") ","
		     T_ROUTE("a", "one", "one.test", "s") "," T_ROUTE("a", "two", "two.test", "s") ","
		     "{\"apiVersion\":\"contour.heptio.com/v1beta1\",\"kind\":\"IngressRoute\","
		     "\"metadata\":{\"name\":\"root\",\"namespace\":\"a\"},\"spec\":{\"virtualhost\":"
		     "{\"fqdn\":\"IR.test\"},\"routes\":[{\"match\":\"/\",\"services\":[{\"name\":\"s\","
		     "\"port\":80}]},{\"match\":\"/x\",\"delegate\":{\"name\":\"child\",\"namespace\":\"b\"}}]}},"
		     "{\"apiVersion\":\"contour.heptio.com/v1beta1\",\"kind\":\"IngressRoute\","
		     "\"metadata\":{\"name\":\"child\",\"namespace\":\"b\"},\"spec\":{\"routes\":"
		     "[{\"match\":\"/x\",\"services\":[{\"name\":\"s\",\"port\":80}]}]}}");
	dot = graph(&r);
	has(dot, "digraph switchyard {");
	has(dot, "\"vhost:one.test\" -> \"rule:one.test#0\"");
	has(dot, "\"vhost:ir.test\" -> \"rule:ir.test#0\"");
	has(dot, "\"ep:198.18.9.1:8080\"");
	has(dot, "\"ep:198.18.9.2:8080\"");
	has(dot, "\"ir:a/root\" -> \"ir:b/child\" [label=\"delegates /x\"]");
	has(dot, "\"ir:a/root\" -> \"vhost:ir.test\" [style=dashed");
	has(dot, "IngressRoute b/child\\nvalid");
	/* one.test and two.test send to the same Service: one pool node. */
	{
		const char *p = strstr(dot, "\"rule:one.test#0\" -> \"pool:");
		char pool[64];

		assert_non_null(p);
		assert_int_equal(sscanf(p, "\"rule:one.test#0\" -> \"%63[^\"]\"", pool), 1);
		has(dot, "\"rule:two.test#0\" -> \"");
		{
			char edge[128];

			snprintf(edge, sizeof(edge), "\"rule:two.test#0\" -> \"%s\"", pool);
			has(dot, edge);
			snprintf(edge, sizeof(edge), "\"%s\" [shape=box3d", pool);
			assert_int_equal(count(dot, edge), 1);
		}
	}
	again = graph(&r);
	assert_string_equal(dot, again);
	/* graphviz draws it (the package list installs it; without it, say so). */
	if (system("command -v dot >/dev/null 2>&1") == 0) {
		char path[] = "/tmp/sy-graph-XXXXXX", cmd[128];
		int fd = mkstemp(path);

		assert_true(fd >= 0);
		assert_int_equal(write(fd, dot, strlen(dot)), (ssize_t)strlen(dot));
		close(fd);
		snprintf(cmd, sizeof(cmd), "dot -Tsvg '%s' | grep -q '<svg'", path);
		assert_int_equal(system(cmd), 0);
		unlink(path);
	} else {
		print_message("graphviz's dot is not installed: the SVG check is skipped\n");
	}
	free(dot);
	free(again);
	router_stop(&r);
	assert_int_equal(remove_state(NULL), 0);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_graph),
	};
	int rc;

	if (sy_test_eal_init("test_graph") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
