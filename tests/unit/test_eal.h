/* SPDX-License-Identifier: BSD-3-Clause */
/* Start a minimal EAL for a unit test: no hugepages, no PCI, own file prefix. */
#ifndef SY_TEST_EAL_H
#define SY_TEST_EAL_H

#include <stdio.h>
#include <unistd.h>

#include <rte_eal.h>

static inline int
sy_test_eal_init(const char *name)
{
	char prefix[64];
	char *argv[] = { (char *)name, "--no-huge", "--no-pci", "-m", "128", "--file-prefix", prefix,
			 "--log-level=*:error", "--lcores", "0@0", NULL };

	snprintf(prefix, sizeof(prefix), "sy-%s-%ld", name, (long)getpid());
	return rte_eal_init((int)(sizeof(argv) / sizeof(argv[0])) - 1, argv);
}

#endif
