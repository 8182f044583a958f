/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * glibc's heap on huge pages (control/malloc_thp.c): the process runs itself
 * again with glibc.malloc.hugetlb=1, keeping its PID and arguments, puts
 * GLIBC_TUNABLES back as it found it, and glibc then asks for huge pages on
 * its heap (the [heap] mapping carries the "hg" flag, MADV_HUGEPAGE).
 * Run twice by meson: `--expect on` (THP permitting, not under ASan) and,
 * with SY_MALLOC_THP=0, `--expect off`.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "malloc_thp.h"

#if defined(__SANITIZE_ADDRESS__)
#define ASAN 1 /* its allocator is not glibc's: nothing to ask for */
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define ASAN 1
#endif
#endif
#ifndef ASAN
#define ASAN 0
#endif

static bool on, want_on;
static int n_args;
static char **args;

/* The flags of the [heap] mapping ("" when there is none). */
static void
heap_flags(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/smaps", "r");
	char line[512];
	bool in_heap = false;

	out[0] = '\0';
	assert_non_null(f);
	while (fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;

		if (sscanf(line, "%lx-%lx ", &lo, &hi) == 2) /* a mapping's first line */
			in_heap = strstr(line, "[heap]") != NULL;
		else if (in_heap && strncmp(line, "VmFlags:", 8) == 0)
			snprintf(out, len, "%s", line + 8);
	}
	fclose(f);
}

static bool
thp_never(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");

	if (f == NULL)
		return true;
	if (fgets(buf, sizeof(buf), f) == NULL)
		buf[0] = '\0';
	fclose(f);
	return strstr(buf, "[never]") != NULL || buf[0] == '\0';
}

static void
test_same_process_and_arguments(void **state)
{
	char pid[32];

	(void)state;
	snprintf(pid, sizeof(pid), "%ld", (long)getpid());
	assert_string_equal(getenv("TEST_MALLOC_THP_PID"), pid);
	assert_int_equal(n_args, 4);
	assert_string_equal(args[1], "--expect");
	assert_string_equal(args[3], "an argument with spaces");
}

static void
test_tunables_put_back(void **state)
{
	(void)state;
	/* meson sets GLIBC_TUNABLES to a harmless tunable of its own */
	assert_string_equal(getenv("GLIBC_TUNABLES"), "glibc.malloc.tcache_count=7");
	assert_null(getenv("SY_MALLOC_THP_TUNABLES_WAS"));
}

static void
test_heap_on_huge_pages(void **state)
{
	enum { N = 4096 };
	void *p[N];
	char flags[512];
	int i;

	(void)state;
	assert_int_equal(on, want_on);
	/* Small blocks: from the brk heap, which glibc madvises. */
	for (i = 0; i < N; i++)
		assert_non_null(p[i] = malloc(1000));
	heap_flags(flags, sizeof(flags));
	if (want_on)
		assert_non_null(strstr(flags, " hg"));
	else
		assert_null(strstr(flags, " hg"));
	for (i = 0; i < N; i++)
		free(p[i]);
}

int
main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_same_process_and_arguments),
		cmocka_unit_test(test_tunables_put_back),
		cmocka_unit_test(test_heap_on_huge_pages),
	};
	char pid[32];

	/* The first run notes its PID for the second to compare. */
	if (getenv("TEST_MALLOC_THP_PID") == NULL) {
		snprintf(pid, sizeof(pid), "%ld", (long)getpid());
		setenv("TEST_MALLOC_THP_PID", pid, 1);
	}
	on = sy_malloc_thp_reexec(argv);
	n_args = argc;
	args = argv;
	want_on = argc > 2 && strcmp(argv[2], "on") == 0 && !thp_never() && !ASAN;
	return cmocka_run_group_tests(tests, NULL, NULL);
}
