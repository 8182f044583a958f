/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * glibc's heap on transparent huge pages, for the control thread's trees.
 *
 * A full compile at a million routes parses every stored object into a
 * jansson tree: gigabytes of small blocks in glibc's heap, read once each in
 * no useful order. On 4 KB pages nearly every such read is a TLB miss, and
 * in a VM a miss walks two page tables. glibc backs its heap with huge pages
 * when started with the tunable glibc.malloc.hugetlb=1 (glibc 2.35+, THP in
 * "madvise" or "always" mode): measured at a million routes, a full compile
 * went 49.4 -> 36.3 us a route and an apply 54.1 -> 41.8 us an object, with
 * the same RSS per route (perf/README.md, "routes").
 *
 * Tunables are read once, when the process starts, so a process started
 * without it runs itself again, once, with it added (execv of /proc/self/exe,
 * same PID, same arguments), and then puts GLIBC_TUNABLES back as it was so
 * that nothing it starts inherits the change. Not done when the kernel's THP
 * is "never", when GLIBC_TUNABLES already names the tunable, under
 * AddressSanitizer (its allocator is not glibc's), or when SY_MALLOC_THP=0.
 */
#ifndef SY_MALLOC_THP_H
#define SY_MALLOC_THP_H

#include <stdbool.h>

/* Call first thing in main, before any thread or file exists. Returns only
 * when no re-execution is needed or it failed (said on stderr): true when
 * this process runs with the tunable. */
bool sy_malloc_thp_reexec(char **argv);

#endif
