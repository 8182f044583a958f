/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `routerctl top`: a live terminal view of what the router is busy with,
 * redrawn every second from two requests on the control socket (`stats`
 * and `get endpoints`): the workers (busy share of their loop time, packets
 * and connections per second, open flows), the totals, and the backends by
 * connections opened per second, then open connections. The router keeps no
 * per-vhost counters, so backends (with the Endpoints they belong to) stand
 * for the vhosts that send to them.
 *
 * On a terminal each frame clears the screen (plain ANSI, no curses) and q or
 * Ctrl-C quits; otherwise frames follow each other, so `top -n 2 | ...` can
 * be read by a script.
 */
#ifndef RCTL_TOP_H
#define RCTL_TOP_H

#include <stdio.h>

struct rctl_client;

/* Draw `iterations` frames (0: until q or Ctrl-C) on out. Returns 0, or -1
 * with the reason in err (a request failed). */
int rctl_top(struct rctl_client *c, FILE *out, unsigned long iterations, char *err,
	     size_t errlen);

#endif
