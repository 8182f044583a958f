/* SPDX-License-Identifier: BSD-3-Clause */
/* A graceful drain on the workers (drain.c). */
#ifndef SY_DP_DRAIN_H
#define SY_DP_DRAIN_H

#include <stdbool.h>
#include <stdint.h>

struct sy_worker;

/* Once, on the worker, when it first sees sh->draining: close the idle
 * proxied client connections. */
void sy_worker_drain_sweep(struct sy_worker *w);
/* A connection record in this state is one a drain waits for. */
bool sy_conn_in_flight(uint8_t state);
/* How many of w's records are (control thread, racy by a record). */
unsigned sy_worker_conns_in_flight(const struct sy_worker *w);

#endif
