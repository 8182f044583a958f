/* SPDX-License-Identifier: BSD-3-Clause */
/* glibc's heap on transparent huge pages (malloc_thp.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "malloc_thp.h"

#define TUNABLE "glibc.malloc.hugetlb"
/* Set across the re-execution: what GLIBC_TUNABLES was before ("-" when
 * unset), so the second run knows it is one and can put it back. */
#define WAS_ENV "SY_MALLOC_THP_TUNABLES_WAS"

#if defined(__SANITIZE_ADDRESS__)
#define SY_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define SY_ASAN 1
#endif
#endif

/* THP as the kernel offers it: "[never]" means madvise would do nothing. */
static bool
thp_available(void)
{
	char buf[128] = "";
	FILE *f = fopen("/sys/kernel/mm/transparent_hugepage/enabled", "r");
	bool ok;

	if (f == NULL)
		return false;
	ok = fgets(buf, sizeof(buf), f) != NULL && strstr(buf, "[never]") == NULL;
	fclose(f);
	return ok;
}

bool
sy_malloc_thp_reexec(char **argv)
{
	const char *was = getenv(WAS_ENV);
	const char *cur = getenv("GLIBC_TUNABLES");
	const char *opt = getenv("SY_MALLOC_THP");
	char *tun;

	if (was != NULL) {
		/* The second run: the tunable took effect at start. */
		if (strcmp(was, "-") == 0)
			unsetenv("GLIBC_TUNABLES");
		else
			setenv("GLIBC_TUNABLES", was, 1);
		unsetenv(WAS_ENV);
		return true;
	}
#ifdef SY_ASAN
	return false;
#endif
	if (cur != NULL && strstr(cur, TUNABLE) != NULL)
		return strstr(cur, TUNABLE "=0") == NULL;
	if ((opt != NULL && strcmp(opt, "0") == 0) || !thp_available())
		return false;
	if (asprintf(&tun, "%s%s" TUNABLE "=1", cur ? cur : "", cur && cur[0] ? ":" : "") < 0)
		return false;
	if (setenv(WAS_ENV, cur ? cur : "-", 1) < 0 || setenv("GLIBC_TUNABLES", tun, 1) < 0) {
		free(tun);
		return false;
	}
	free(tun);
	execv("/proc/self/exe", argv);
	/* Still here: run on 4 KB pages, as before. */
	fprintf(stderr, "malloc on huge pages: cannot run /proc/self/exe again: %s (continuing)\n",
		strerror(errno));
	unsetenv(WAS_ENV);
	if (cur != NULL)
		setenv("GLIBC_TUNABLES", cur, 1);
	else
		unsetenv("GLIBC_TUNABLES");
	return false;
}
