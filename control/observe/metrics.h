/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Prometheus metrics (text exposition format 0.0.4), made on the control
 * thread from what it already has: the store and its statuses, the live
 * generation, and the workers' counters, each written by one worker and
 * summed here (a scrape reads them, it never stops a worker). Served on the
 * `metrics` address of the config (metrics_http.c) and by the control op
 * `metrics` (`routerctl metrics`).
 *
 * Names follow Prometheus conventions (snake case, base units, `_total` on
 * counters), prefixed `switchyard_`; the Contour seed's IngressRoute gauges
 * keep their own names (`contour_ingressroute_*_total`), as Contour's users
 * query them, although promtool flags gauges ending in `_total`.
 */
#ifndef SY_METRICS_H
#define SY_METRICS_H

#include <stddef.h>

struct sy_router;

/* The exposition, malloc'd and NUL-terminated (*len its length), or NULL. */
char *sy_metrics_text(struct sy_router *r, size_t *len);

/* For the files that write series of their own (route_stats.c): a metric's
 * HELP and TYPE lines, and a label value escaped as the format wants. */
#include <stdio.h>
void sy_prom_head(FILE *f, const char *name, const char *type, const char *help);
void sy_prom_label(FILE *f, const char *v);

#endif
