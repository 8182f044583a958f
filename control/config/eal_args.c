/* SPDX-License-Identifier: BSD-3-Clause */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <unistd.h>

#include "config/eal_args.h"

static int
push(struct sy_eal_args *a, const char *s)
{
	if (a->argc >= SY_EAL_ARGV_MAX)
		return -E2BIG;
	a->argv[a->argc] = strdup(s);
	if (a->argv[a->argc] == NULL)
		return -ENOMEM;
	a->argc++;
	a->argv[a->argc] = NULL;
	return 0;
}

static bool
user_has(const struct sy_config *cfg, const char *prefix)
{
	unsigned i;

	for (i = 0; i < cfg->n_eal_args; i++)
		if (strncmp(cfg->eal_args[i], prefix, strlen(prefix)) == 0)
			return true;
	return false;
}

long
sy_free_hugepages(void)
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[256];
	long n = 0;

	if (f == NULL)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "HugePages_Free: %ld", &n) == 1)
			break;
	fclose(f);
	return n;
}

int
sy_eal_args_build(const struct sy_config *cfg, struct sy_eal_args *a, long free_hugepages,
		  unsigned ncpus)
{
	char buf[512];
	size_t off;
	unsigned i;
	int rc = 0;

	memset(a, 0, sizeof(*a));
	if (ncpus == 0) {
		long n = sysconf(_SC_NPROCESSORS_ONLN);

		ncpus = n > 0 ? (unsigned)n : 1;
	}
	rc |= push(a, "routerd");
	if (!user_has(cfg, "--lcores") && !user_has(cfg, "-l")) {
		/* lcore 0 (control) on CPU 0; workers spread over the CPUs that
		 * exist, so more workers than CPUs still runs
		 * (docs/architecture.md section 8). */
		off = (size_t)snprintf(buf, sizeof(buf), "0@0");
		for (i = 0; i < cfg->n_workers && off < sizeof(buf); i++)
			off += (size_t)snprintf(buf + off, sizeof(buf) - off, ",%u@%u",
						cfg->worker_lcores[i],
						ncpus > 1 ? 1 + (cfg->worker_lcores[i] - 1) % (ncpus - 1) : 0);
		rc |= push(a, "--lcores");
		rc |= push(a, buf);
	}
	if (!user_has(cfg, "--file-prefix")) {
		snprintf(buf, sizeof(buf), "sy-routerd-%ld", (long)getpid());
		rc |= push(a, "--file-prefix");
		rc |= push(a, buf);
	}
	if (!sy_config_has_pci(cfg))
		rc |= push(a, "--no-pci");
	if (free_hugepages < 0)
		free_hugepages = sy_free_hugepages();
	if (free_hugepages == 0 && !user_has(cfg, "--no-huge")) {
		rc |= push(a, "--no-huge");
		/* No shared config files to leave behind (and no secondaries). */
		if (!user_has(cfg, "--no-shconf"))
			rc |= push(a, "--no-shconf");
		if (!user_has(cfg, "-m") && !user_has(cfg, "--socket-mem")) {
			/* 512 MB hold the default flow tables; a bigger
			 * flows_per_worker adds up to 256 B a flow per worker
			 * (docs/operations.md, "Capacity"). */
			unsigned long long mb = 512;

			if (cfg->flows_per_worker > SY_FLOWS_PER_WORKER_DEFAULT)
				mb += ((unsigned long long)cfg->n_workers *
				       (cfg->flows_per_worker - SY_FLOWS_PER_WORKER_DEFAULT) * 256) >> 20;
			snprintf(buf, sizeof(buf), "%llu", mb);
			rc |= push(a, "-m");
			rc |= push(a, buf);
		}
	} else if (!user_has(cfg, "--in-memory") && !user_has(cfg, "--no-huge")) {
		/* Hugepages without files left behind (--no-huge is legacy
		 * memory, which --in-memory does not go with). */
		rc |= push(a, "--in-memory");
	}
	for (i = 0; i < cfg->n_ports; i++) {
		const struct sy_port_config *p = &cfg->ports[i];

		if (p->pci[0] != '\0') {
			rc |= push(a, "-a");
			rc |= push(a, p->pci);
			continue;
		}
		/* net_af_packet and net_af_xdp serve one queue pair unless told
		 * otherwise; each worker needs its own (af_xdp: the device's
		 * queues from start_queue on, a socket on each). */
		if (strncmp(p->devargs, "net_af_packet", 13) == 0 && strstr(p->devargs, "qpairs=") == NULL)
			snprintf(buf, sizeof(buf), "%s,qpairs=%u", p->devargs, cfg->n_workers);
		else if (strncmp(p->devargs, "net_af_xdp", 10) == 0 &&
			 strstr(p->devargs, "queue_count=") == NULL)
			snprintf(buf, sizeof(buf), "%s,queue_count=%u", p->devargs, cfg->n_workers);
		else
			snprintf(buf, sizeof(buf), "%s", p->devargs);
		rc |= push(a, "--vdev");
		rc |= push(a, buf);
	}
	for (i = 0; i < cfg->n_eal_args; i++)
		rc |= push(a, cfg->eal_args[i]);
	if (rc != 0) {
		sy_eal_args_free(a);
		return -E2BIG;
	}
	return 0;
}

void
sy_eal_args_free(struct sy_eal_args *a)
{
	int i;

	for (i = 0; i < a->argc; i++)
		free(a->argv[i]);
	a->argc = 0;
}

void
sy_eal_remove_runtime_dir(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char path[PATH_MAX];

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		unlink(path);
	}
	closedir(d);
	rmdir(dir);
}

void
sy_eal_remove_stale_runtime_dirs(const char *base, const char *prefix)
{
	DIR *d = opendir(base);
	struct dirent *e;
	size_t pl = strlen(prefix);
	char path[PATH_MAX];

	if (d == NULL)
		return;
	while ((e = readdir(d)) != NULL) {
		char *end;
		long pid;

		if (strncmp(e->d_name, prefix, pl) != 0)
			continue;
		pid = strtol(e->d_name + pl, &end, 10);
		/* Only ours (prefix + a pid), and only if that process is gone:
		 * never touch a running instance's files. */
		if (end == e->d_name + pl || *end != '\0' || pid <= 0)
			continue;
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH)
			continue;
		snprintf(path, sizeof(path), "%s/%s", base, e->d_name);
		sy_eal_remove_runtime_dir(path);
	}
	closedir(d);
}
