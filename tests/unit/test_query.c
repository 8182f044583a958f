/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The query predicates' parameter lookup (include/sy_query.h), shared by the
 * data path and resolve, and the literal-to-regex quoting the kinds use for
 * exact, prefix and contains conditions (control/gen/regex_quote.c): the
 * quoted text, compiled by PCRE2, matches the literal and nothing else.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "gen/regex_quote.h"
#include "sy_query.h"

/* The value of name in target as a string ("<none>" when absent). */
static const char *
param(const char *target, const char *name)
{
	static char buf[128];
	size_t n;
	const char *v = sy_query_param(target, strlen(target), name, &n);

	if (v == NULL)
		return "<none>";
	snprintf(buf, sizeof(buf), "%.*s", (int)n, v);
	return buf;
}

static void
test_query_param(void **state)
{
	(void)state;
	assert_string_equal(param("/p", "a"), "<none>");
	assert_string_equal(param("/p?", "a"), "<none>");
	assert_string_equal(param("/p?a=1", "a"), "1");
	assert_string_equal(param("/p?a=1&b=2", "b"), "2");
	assert_string_equal(param("/p?a=1&a=2", "a"), "1"); /* the first counts */
	assert_string_equal(param("/p?a", "a"), "");
	assert_string_equal(param("/p?a=&b", "a"), "");
	assert_string_equal(param("/p?b&a=x=y", "a"), "x=y");
	assert_string_equal(param("/p?aa=1&ba=2", "a"), "<none>"); /* whole names only */
	assert_string_equal(param("/p?A=1", "a"), "<none>");       /* names are case-sensitive */
	assert_string_equal(param("/p?a=1#x", "a"), "1");
	assert_string_equal(param("/p#?a=1", "a"), "<none>"); /* a fragment is not a query */
	assert_string_equal(param("/p?x=%20&a=b%26c", "a"), "b%26c"); /* not decoded */
	assert_string_equal(param("/p?&&a=3&", "a"), "3");
	/* a length that stops inside the target: nothing past it is read */
	{
		size_t n;

		assert_null(sy_query_param("/p?a=1", 3, "a", &n));
		assert_non_null(sy_query_param("/p?a=1", 5, "a", &n));
		assert_int_equal(n, 0);
	}
}

static bool
re_full(const char *re_text, const char *s)
{
	int err;
	PCRE2_SIZE off;
	char anchored[512];
	pcre2_code *re;
	pcre2_match_data *md;
	int rc;

	snprintf(anchored, sizeof(anchored), "^%s$", re_text);
	re = pcre2_compile((PCRE2_SPTR)anchored, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);
	assert_non_null(re);
	md = pcre2_match_data_create_from_pattern(re, NULL);
	rc = pcre2_match(re, (PCRE2_SPTR)s, strlen(s), 0, 0, md, NULL);
	pcre2_match_data_free(md);
	pcre2_code_free(re);
	return rc >= 0;
}

static void
test_regex_quote(void **state)
{
	static const char *const lits[] = {
		"plain", "a.b", "1+1=2", "(x)[y]{z}", "^$|?*", "back\\slash", "/api/v1/", "a b#c",
		"q?x=1&y=2", "\\E\\Q", "-_~:%", "caf\xc3\xa9",
	};
	size_t i;

	(void)state;
	for (i = 0; i < sizeof(lits) / sizeof(lits[0]); i++) {
		char *q = sy_regex_quote(lits[i]);

		assert_non_null(q);
		assert_true(re_full(q, lits[i]));
		free(q);
	}
	{
		char *q = sy_regex_quote("a.b");

		assert_string_equal(q, "a\\.b");
		assert_false(re_full(q, "axb")); /* the dot is literal */
		free(q);
		q = sy_regex_quote("x*");
		assert_false(re_full(q, "xxx"));
		assert_false(re_full(q, ""));
		free(q);
	}
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_query_param),
		cmocka_unit_test(test_regex_quote),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
