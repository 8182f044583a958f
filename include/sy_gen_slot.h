/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where the live generation is published, and the RCU state that tells the
 * control thread when an old one may be freed (docs/architecture.md section 3).
 *
 * Writer: the control thread (sy_gen_publish, sy_gen_reclaim).
 * Readers: workers. Each worker is RCU thread id == its worker index. It loads
 * the pointer once per burst with sy_gen_acquire() and reports a quiescent state
 * at the top of every loop iteration (rte_rcu_qsbr_quiescent); it goes offline
 * before sleeping and online after, so a sleeping worker never delays a free.
 * A worker never keeps a generation pointer across loop iterations.
 */
#ifndef SY_GEN_SLOT_H
#define SY_GEN_SLOT_H

#include <stdatomic.h>
#include <stdint.h>

struct sy_generation;
struct rte_rcu_qsbr;

#define SY_GEN_RETIRED_MAX 64

struct sy_gen_retired {
	struct sy_generation *gen;
	uint64_t token; /* rte_rcu_qsbr_start() token taken when it was replaced */
};

struct sy_gen_slot {
	_Atomic(struct sy_generation *) live; /* ctl: rw, workers: ro */
	struct rte_rcu_qsbr *qs;              /* shared by all workers */
	unsigned n_readers;
	/* Replaced generations waiting for every reader to pass a quiescent point.
	 * Control thread only. */
	struct sy_gen_retired retired[SY_GEN_RETIRED_MAX];
	unsigned n_retired;
	void (*free_gen)(struct sy_generation *); /* how to free one (tests hook it) */
};

/* Allocate the QSBR variable for n_readers workers. Returns 0 or -errno. */
int sy_gen_slot_init(struct sy_gen_slot *slot, unsigned n_readers,
		     void (*free_gen)(struct sy_generation *));
/* Free what is still retired (waiting for readers) and the live one. Only after
 * every worker has stopped. */
void sy_gen_slot_fini(struct sy_gen_slot *slot);

/* Publish `gen` (release) and retire the previous one. Never blocks. If the
 * retired list is full, waits for readers (rte_rcu_qsbr_synchronize) first. */
void sy_gen_publish(struct sy_gen_slot *slot, struct sy_generation *gen);
/* Free every retired generation whose readers have all passed a quiescent
 * point since it was replaced. Non-blocking; call from the control loop.
 * Returns how many are still waiting. */
unsigned sy_gen_reclaim(struct sy_gen_slot *slot);

static inline struct sy_generation *
sy_gen_acquire(struct sy_gen_slot *slot)
{
	return atomic_load_explicit(&slot->live, memory_order_acquire);
}

#endif
