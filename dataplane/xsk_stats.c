/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel's AF_XDP counters of a port's sockets (xsk_stats.h). */
#include <dirent.h>
#include <errno.h>
#include <stddef.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>

#include <linux/if_xdp.h>

#include "xsk_stats.h"

#ifndef AF_XDP
#define AF_XDP 44
#endif
#ifndef SOL_XDP
#define SOL_XDP 283
#endif

static bool
is_xsk(int fd)
{
	int domain;
	socklen_t len = sizeof(domain);

	return getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &domain, &len) == 0 && domain == AF_XDP;
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

unsigned
sy_xsk_fds(int *fds, unsigned max)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	unsigned n = 0;

	if (d == NULL)
		return 0;
	while (n < max && (e = readdir(d)) != NULL) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);

		if (*end == '\0' && end != e->d_name && fd != dirfd(d) && is_xsk((int)fd))
			fds[n++] = (int)fd;
	}
	closedir(d);
	qsort(fds, n, sizeof(*fds), cmp_int);
	return n;
}

unsigned
sy_xsk_fds_new(const int *before, unsigned n_before, int *after, unsigned n_after)
{
	unsigned i, j, n = 0;

	for (i = 0; i < n_after; i++) {
		for (j = 0; j < n_before && before[j] != after[i]; j++)
			;
		if (j == n_before)
			after[n++] = after[i];
	}
	return n;
}

int
sy_xsk_stats_read(const int *fds, unsigned n, struct sy_xsk_stats *out)
{
	unsigned i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < n; i++) {
		struct xdp_statistics st;
		socklen_t len = sizeof(st);

		memset(&st, 0, sizeof(st));
		if (getsockopt(fds[i], SOL_XDP, XDP_STATISTICS, &st, &len) < 0)
			return -errno;
		out->sockets++;
		out->rx_dropped += st.rx_dropped;
		out->rx_invalid += st.rx_invalid_descs;
		out->tx_invalid += st.tx_invalid_descs;
		/* Linux 5.9 added these; an older kernel answers a shorter struct. */
		if (len >= offsetof(struct xdp_statistics, rx_ring_full) + sizeof(st.rx_ring_full))
			out->rx_ring_full += st.rx_ring_full;
		if (len >= sizeof(st)) {
			out->fill_empty += st.rx_fill_ring_empty_descs;
			out->tx_ring_empty += st.tx_ring_empty_descs;
		}
	}
	return 0;
}
