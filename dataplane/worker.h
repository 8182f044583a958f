/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-worker state and the state every worker shares read-only: their
 * functions, and the inlines every packet takes (TX, drops, listen
 * addresses). The types are in worker_t.h, for a file that needs only
 * them; the tables' functions in their own headers (conn/conn.h,
 * net/arp.h, tcp/tcp_syncookie.h).
 *
 * Tests build both without ports: sy_dp_shared_create + sy_worker_create, set
 * the ports' MACs, feed mbufs to sy_eth_input and look at w->txq[port].
 */
#ifndef SY_WORKER_H
#define SY_WORKER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_branch_prediction.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>

#include "drop.h"
#include "sy_config.h"
#include "sy_counters.h"
#include "vrrp/vrrp.h"
#include "worker_t.h"

static inline const struct sy_cookie_keys *
sy_dp_cookie_keys(const struct sy_dp_shared *sh)
{
	return &sh->cookie_keys[atomic_load_explicit(&sh->cookie_cur, memory_order_acquire) % 3];
}
/* New current secret; the old current one stays valid as the previous one. */
void sy_dp_shared_rotate_cookie(struct sy_dp_shared *sh);

/* Build what workers share from cfg: port addresses (port_id = SY_PORT_NONE,
 * MAC zero until the caller fills them), FIB, one neighbour ring per worker.
 * `pool` is where workers take mbufs from. Returns 0 or -errno + err. */
int sy_dp_shared_create(const struct sy_config *cfg, struct rte_mempool *pool,
			unsigned n_workers, struct sy_dp_shared **out, char *err, size_t errlen);
void sy_dp_shared_free(struct sy_dp_shared *sh);

struct sy_worker *sy_worker_create(struct sy_dp_shared *sh, unsigned id, unsigned lcore);
/* Frees held and buffered packets too. */
void sy_worker_destroy(struct sy_worker *w);

/* lcore entry point (rte_eal_remote_launch); arg is a struct sy_worker. */
int sy_worker_main(void *arg);
/* One loop iteration without the RCU and idle handling: RX every port,
 * neighbour updates, timers, TX flush. Returns packets + updates handled. */
unsigned sy_worker_poll(struct sy_worker *w);
/* Send what port's TX buffer holds; frees what the driver refused (TX_FULL). */
void sy_worker_tx_flush(struct sy_worker *w, uint16_t port);
/* m as one mbuf, for a port without multi-segment TX; NULL (dropped) if it
 * cannot be. */
struct rte_mbuf *sy_tx_linearize(struct sy_worker *w, struct rte_mbuf *m);

/* Queue a finished frame for TX on port index `port`. */
static inline void
sy_tx(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct sy_txq *q = &w->txq[port];

	if (unlikely(m->nb_segs > 1) && !w->sh->ports[port].tx_multi_seg) {
		m = sy_tx_linearize(w, m);
		if (m == NULL)
			return;
	}
	if (unlikely(q->n == SY_TX_BUF))
		sy_worker_tx_flush(w, port);
	if (unlikely(q->n == SY_TX_BUF)) {
		sy_drop(w, m, SY_DROP_TX_FULL);
		return;
	}
	if (q->n == 0)
		q->since = w->now;
	q->win_frames++;
	q->bytes += m->pkt_len;
	q->pkts[q->n++] = m;
}

static inline uint64_t
sy_ms_to_tsc(const struct sy_worker *w, uint64_t ms)
{
	return w->sh->tsc_per_ms * ms;
}

/* The top of a loop iteration: w->now from the TSC read there, a jump left
 * out and counted (worker_clock.h). */
static inline void
sy_worker_clock_tick(struct sy_worker *w, uint64_t tsc)
{
	if (unlikely(sy_clock_tick(&w->clock, tsc))) {
		w->counters.clock_jumps++;
		atomic_store_explicit(&w->clock_skip, w->clock.skip, memory_order_relaxed);
	}
	w->now = w->clock.now;
}

/* The worker's clock now, within an iteration (w->now is its top): for a
 * time measured against w->now or a stamp taken from it. */
static inline uint64_t
sy_worker_clock_read(const struct sy_worker *w)
{
	return rte_rdtsc() - w->clock.skip;
}

/*
 * Whether a VIP in VRRP state st (sy_vrrp_vip_state, -1: not a VIP) is ours:
 * while we are its master, or, for a drain, while its clients' ARP and
 * neighbour caches still name us though we gave it away (drain.c): what
 * reaches us on it then is taken, new connections included.
 */
static inline bool
sy_vip_taken(const struct sy_dp_shared *sh, int st)
{
	return st == SY_VRRP_MASTER ||
	       (st >= 0 && atomic_load_explicit(&sh->draining, memory_order_relaxed));
}

/* A TCP service address: where clients connect (network order). */
static inline bool
sy_is_listen(const struct sy_dp_shared *sh, uint32_t ip, uint16_t port)
{
	unsigned i;

	if (port != sh->http_port && port != sh->https_port)
		return false;
	for (i = 0; i < sh->n_listen; i++)
		if (sh->listen_ip[i] == ip)
			return true;
	return sy_vip_taken(sh, sy_vrrp_vip_state(sh->vrrp, ip));
}

/* An IPv6 listen address and port (network order): a port's address
 * (listen.addresses, or all of them), or a VIP while it is ours. */
static inline bool
sy_is_listen6(const struct sy_dp_shared *sh, const uint8_t ip[16], uint16_t port)
{
	unsigned i;

	if (port != sh->http_port && port != sh->https_port)
		return false;
	for (i = 0; i < sh->n_listen6; i++)
		if (memcmp(sh->listen_ip6[i], ip, 16) == 0)
			return true;
	return sy_vip_taken(sh, sy_vrrp_vip6_state(sh->vrrp, ip));
}

/* Index of the port address that is `ip` (network order), or -1. */
static inline int
sy_port_addr_index(const struct sy_dp_port *p, uint32_t ip)
{
	unsigned i;

	for (i = 0; i < p->n_ipv4; i++)
		if (p->ipv4[i] == ip)
			return (int)i;
	return -1;
}

#endif
