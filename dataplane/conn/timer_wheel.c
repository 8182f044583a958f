/* SPDX-License-Identifier: BSD-3-Clause */
/* The timer wheel of a worker's records (conn/timer_wheel.h). */
#include <stdint.h>

#include "conn/conn.h"
#include "conn/conn_ops.h"
#include "worker_t.h"

void
sy_conn_timer_cancel(struct sy_worker *w, struct sy_conn *c)
{
	if (!(c->flags & SY_CF_TIMER))
		return;
	*c->tprev = c->tnext;
	if (c->tnext != NULL)
		c->tnext->tprev = c->tprev;
	c->tnext = NULL;
	c->tprev = NULL;
	c->flags &= (uint8_t)~SY_CF_TIMER;
}

void
sy_conn_timer_set(struct sy_worker *w, struct sy_conn *c, uint64_t when)
{
	struct sy_conn_tables *t = &w->tcp;
	/* Round up: the slot is visited once its tick has begun, and by then
	 * `when` must have passed, or the entry would wait a whole lap. */
	uint64_t tick = (when + t->tick_tsc - 1) / t->tick_tsc;
	struct sy_conn **slot;

	sy_conn_timer_cancel(w, c);
	/* Never behind the hand: a past deadline fires on the next run. */
	if (tick < t->wheel_tick)
		tick = t->wheel_tick;
	slot = &t->wheel[tick & (SY_WHEEL_SLOTS - 1)];
	c->expire = when;
	c->tnext = *slot;
	if (*slot != NULL)
		(*slot)->tprev = &c->tnext;
	c->tprev = slot;
	*slot = c;
	c->flags |= SY_CF_TIMER;
}

unsigned
sy_conn_timers_run(struct sy_worker *w)
{
	struct sy_conn_tables *t = &w->tcp;
	uint64_t now_tick = w->now / t->tick_tsc;
	unsigned fired = 0, steps = 0;

	/* Bounded catch-up: after a long stall, one lap covers every slot. */
	while (t->wheel_tick <= now_tick && steps++ < SY_WHEEL_SLOTS) {
		struct sy_conn **slot = &t->wheel[t->wheel_tick & (SY_WHEEL_SLOTS - 1)];
		struct sy_conn *c = *slot, *next;

		for (; c != NULL; c = next) {
			next = c->tnext;
			if (c->expire > w->now)
				continue; /* a later lap: stays in its slot */
			sy_conn_timer_cancel(w, c);
			/* May free c, or re-arm it (into another slot, or
			 * this one at the head: `next` is already saved). */
			sy_conn_ops_of(c)->timeout(w, c);
			fired++;
		}
		t->wheel_tick++;
	}
	if (t->wheel_tick <= now_tick)
		t->wheel_tick = now_tick; /* skipped laps: everything was visited once */
	return fired;
}
