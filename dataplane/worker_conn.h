/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's connections set up and torn down (worker_conn.c): the tables of
 * conn/, each mode's, and the operations each mode registers.
 */
#ifndef SY_WORKER_CONN_H
#define SY_WORKER_CONN_H

struct sy_worker;

/* The worker's connection tables and each mode's, and the modes' ops:
 * 0 or -ENOMEM (logged, nothing kept). */
int sy_worker_conn_init(struct sy_worker *w);
/* Free every connection (sending nothing) and the tables. */
void sy_worker_conn_fini(struct sy_worker *w);

#endif
