/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A minimal EAL for unit tests: no hugepages, no PCI (the host's NIC is never
 * probed), no shared config files, no telemetry socket, a file prefix of its
 * own; sy_test_eal_fini removes the runtime directory EAL leaves behind.
 * Not --in-memory: in DPDK 22.11 --no-huge implies --legacy-mem, which EAL
 * refuses together with --in-memory.
 */
#ifndef SY_TEST_EAL_H
#define SY_TEST_EAL_H

#include <limits.h>
#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>

static inline int
sy_test_eal_init(const char *name)
{
	char prefix[64];
	char *argv[] = { (char *)name, "--no-huge", "--no-pci", "--no-shconf", "-m", "256",
			 "--file-prefix", prefix, "--no-telemetry", "--log-level=*:error",
			 "--lcores", "0@0", NULL };

	snprintf(prefix, sizeof(prefix), "sy-%s-%ld", name, (long)getpid());
	return rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv);
}

static inline void
sy_test_eal_fini(void)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	(void)rmdir(dir);
}

#endif
