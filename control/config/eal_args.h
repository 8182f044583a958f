/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The EAL command line routerd builds from its config: lcore mapping, ports as
 * --vdev / -a, --no-pci unless a port names a PCI device (the host's own NIC
 * must never be probed by accident), a unique --file-prefix, --in-memory, and
 * --no-huge when no hugepage can be had. The config's own "eal" list comes
 * last so an operator can override any of it.
 */
#ifndef SY_EAL_ARGS_H
#define SY_EAL_ARGS_H

#include <stdbool.h>

#include "sy_config.h"

#define SY_EAL_ARGV_MAX (SY_MAX_EAL_ARGS + 3 * SY_MAX_PORTS + 24)

struct sy_eal_args {
	char *argv[SY_EAL_ARGV_MAX + 1];
	int argc;
};

/* free_hugepages < 0: look in /proc/meminfo. ncpus 0: ask the system. */
int sy_eal_args_build(const struct sy_config *cfg, struct sy_eal_args *out, long free_hugepages,
		      unsigned ncpus);
void sy_eal_args_free(struct sy_eal_args *a);
/* Remove EAL's runtime directory (and the files in it) after rte_eal_cleanup,
 * so routerd leaves nothing behind under /var/run/dpdk. */
void sy_eal_remove_runtime_dir(const char *dir);
/* Remove base/<prefix><pid> runtime directories of routerd instances that
 * died without cleaning up (kill -9, a crash): EAL leaves one per process. */
void sy_eal_remove_stale_runtime_dirs(const char *base, const char *prefix);
/* Free hugepages of the default size, from /proc/meminfo (0 if unknown). */
long sy_free_hugepages(void);

#endif
