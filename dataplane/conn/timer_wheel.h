/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's timer wheel (conn/timer_wheel.c), and with it the live records:
 * sy_conn_free_all finds them on it. SY_WHEEL_SLOTS
 * slots of SY_WHEEL_TICK_MS (conn/conn_tables_t.h); an expiry past the
 * horizon waits in its slot for the lap it is due in. A fired timer goes to
 * the mode that owns the record (conn/conn_ops.h, timeout).
 */
#ifndef SY_TIMER_WHEEL_H
#define SY_TIMER_WHEEL_H

#include <stdint.h>

struct sy_conn;
struct sy_worker;

/* (Re)arm the connection's timer at TSC `when`. */
void sy_conn_timer_set(struct sy_worker *w, struct sy_conn *c, uint64_t when);
void sy_conn_timer_cancel(struct sy_worker *w, struct sy_conn *c);
/* Run the timers that are due: each goes to its record's mode (the
 * timeout of conn/conn_ops.h). */
unsigned sy_conn_timers_run(struct sy_worker *w);

#endif
