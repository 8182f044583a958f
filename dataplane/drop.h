/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A packet the worker drops: counted by its named reason (sy_counters.h,
 * what `routerctl stats` shows), then freed. A header of its own so that a
 * file that drops packets and needs only the worker's types includes this
 * and worker_t.h, not the worker loop's functions (worker.h includes it).
 */
#ifndef SY_DROP_H
#define SY_DROP_H

#include <rte_mbuf.h>

#include "sy_counters.h"
#include "worker_t.h"

static inline void
sy_drop(struct sy_worker *w, struct rte_mbuf *m, enum sy_drop_reason why)
{
	w->counters.drops[why]++;
	rte_pktmbuf_free(m);
}

#endif
