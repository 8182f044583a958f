/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `routerctl apply`: one apply request with every object of the file (the
 * router takes them all or none), sent object by object so that a terminal
 * can watch a large file go (objects sent / total, then the wait while the
 * router validates, journals and compiles), and a summary line at the end.
 */
#ifndef RCTL_APPLY_H
#define RCTL_APPLY_H

#include <stdio.h>

#include <jansson.h>

struct rctl_client;

/* Send {"op":"apply","objects":objects} and return the reply (new
 * reference), or NULL with the reason in err. progress: where to draw the
 * progress line (a terminal), or NULL for none. */
json_t *rctl_apply_send(struct rctl_client *c, const json_t *objects, FILE *progress, char *err,
			size_t errlen);

/* "applied 12 objects (Route 6, Service 2, ...) in 0.05 s, generation 5:
 * 6 created, 2 configured, 4 unchanged" for an accepted apply's reply. */
void rctl_apply_summary(FILE *out, const json_t *reply, double seconds);

#endif
