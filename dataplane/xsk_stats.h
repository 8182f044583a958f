/* SPDX-License-Identifier: BSD-3-Clause */
/* The kernel's own counters of a port's AF_XDP sockets.
 *
 * DPDK 22.11's net_af_xdp reports only rx_dropped (as imissed) of the
 * kernel's struct xdp_statistics. A frame the kernel drops because the
 * socket's RX ring was full (the worker did not come back in time: asleep
 * under the adaptive idle policy, or not given the CPU), or refuses as an
 * invalid descriptor, is counted only in the kernel. The driver keeps its
 * sockets to itself, so port setup notes which AF_XDP sockets a port's queue
 * setup opened (the process's descriptors before and after), and the control
 * thread reads them with getsockopt(SOL_XDP, XDP_STATISTICS): every such drop
 * has a name and a counter in `routerctl stats`. Never on a worker: these
 * are syscalls. (sock_diag's xdp_diag would name the interface, but kernels
 * built without CONFIG_XDP_SOCKETS_DIAG, like this lab's, lack it.) */
#ifndef SY_XSK_STATS_H
#define SY_XSK_STATS_H

#include "sy_dataplane.h" /* struct sy_xsk_stats */

/* The process's open AF_XDP sockets, ascending, at most max of them.
 * Returns how many. */
unsigned sy_xsk_fds(int *fds, unsigned max);
/* Those of after[] not in before[], kept in after[]; returns how many. */
unsigned sy_xsk_fds_new(const int *before, unsigned n_before, int *after, unsigned n_after);
/* The counters of fds[0..n) summed. Returns 0, or -errno of the first
 * socket that would not answer. */
int sy_xsk_stats_read(const int *fds, unsigned n, struct sy_xsk_stats *out);

#endif
