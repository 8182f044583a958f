/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Publishing generations (docs/architecture.md section 3): swap the pointer
 * with release order, then keep the old generation on a retired list with an
 * RCU token and free it only once every worker has reported a quiescent state
 * after the swap. The control thread never waits for workers in the common
 * case: it polls the retired list from its event loop (sy_gen_reclaim).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <rte_malloc.h>
#include <rte_rcu_qsbr.h>

#include "sy_gen_slot.h"

int
sy_gen_slot_init(struct sy_gen_slot *slot, unsigned n_readers,
		 void (*free_gen)(struct sy_generation *))
{
	size_t sz;

	memset(slot, 0, sizeof(*slot));
	atomic_init(&slot->live, NULL);
	slot->free_gen = free_gen;
	slot->n_readers = n_readers;
	sz = rte_rcu_qsbr_get_memsize(n_readers ? n_readers : 1);
	slot->qs = rte_zmalloc("sy_gen_qsbr", sz, RTE_CACHE_LINE_SIZE);
	if (slot->qs == NULL)
		return -ENOMEM;
	if (rte_rcu_qsbr_init(slot->qs, n_readers ? n_readers : 1) != 0) {
		rte_free(slot->qs);
		slot->qs = NULL;
		return -EINVAL;
	}
	return 0;
}

void
sy_gen_slot_fini(struct sy_gen_slot *slot)
{
	unsigned i;
	struct sy_generation *live;

	for (i = 0; i < slot->n_retired; i++)
		slot->free_gen(slot->retired[i].gen);
	slot->n_retired = 0;
	live = atomic_exchange_explicit(&slot->live, NULL, memory_order_acq_rel);
	if (live != NULL)
		slot->free_gen(live);
	rte_free(slot->qs);
	slot->qs = NULL;
}

unsigned
sy_gen_reclaim(struct sy_gen_slot *slot)
{
	unsigned i, kept = 0;

	for (i = 0; i < slot->n_retired; i++) {
		struct sy_gen_retired *r = &slot->retired[i];

		/* wait=false: never block the control thread on a worker. */
		if (rte_rcu_qsbr_check(slot->qs, r->token, false) == 1)
			slot->free_gen(r->gen);
		else
			slot->retired[kept++] = *r;
	}
	slot->n_retired = kept;
	return kept;
}

void
sy_gen_publish(struct sy_gen_slot *slot, struct sy_generation *gen)
{
	struct sy_generation *old;

	old = atomic_exchange_explicit(&slot->live, gen, memory_order_acq_rel);
	if (old == NULL)
		return;
	if (slot->n_retired == SY_GEN_RETIRED_MAX && sy_gen_reclaim(slot) == SY_GEN_RETIRED_MAX) {
		/* A burst of applies outran the workers: wait for the oldest once
		 * rather than grow without bound. Workers go offline when they
		 * sleep, so this cannot wait on an idle worker. */
		rte_rcu_qsbr_synchronize(slot->qs, RTE_QSBR_THRID_INVALID);
		sy_gen_reclaim(slot);
	}
	slot->retired[slot->n_retired].gen = old;
	/* The token orders after the pointer swap above: a reader that reports
	 * quiescence past this token has dropped any reference to `old`. */
	slot->retired[slot->n_retired].token = rte_rcu_qsbr_start(slot->qs);
	slot->n_retired++;
}
