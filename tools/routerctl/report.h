/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Human output of the replies that are not object lists: resolve, stats,
 * status and conns. Each takes the reply object as the router sent it.
 */
#ifndef RCTL_REPORT_H
#define RCTL_REPORT_H

#include <stdio.h>

#include <jansson.h>

/* Each returns 0, or -1 when out of memory or out cannot be written. */
int rctl_print_resolve(FILE *out, const json_t *reply);
int rctl_print_stats(FILE *out, const json_t *reply);
int rctl_print_status(FILE *out, const json_t *reply);
int rctl_print_conns(FILE *out, const json_t *reply);

#endif
