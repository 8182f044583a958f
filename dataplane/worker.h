/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-worker state and the state every worker shares read-only.
 *
 * struct sy_dp_shared is built at init (sy_dp_shared_create, then the ports
 * are filled in by dataplane.c) and never written while workers run, except
 * `stop`. struct sy_worker belongs to one worker lcore; the control thread
 * only reads its counters.
 *
 * Tests build both without ports: sy_dp_shared_create + sy_worker_create, set
 * the ports' MACs, feed mbufs to sy_eth_input and look at w->txq[port].
 */
#ifndef SY_WORKER_H
#define SY_WORKER_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "net/arp.h"
#include "splice/flow.h"
#include "sy_config.h"
#include "sy_counters.h"
#include "sy_gen_slot.h"
#include "tcp/tcp_isn.h"
#include "tcp/tcp_syncookie.h"
#include "vrrp/vrrp.h"

struct sy_fib;
struct rte_ring;
struct rte_mempool;
struct sy_generation;

/* No ethdev behind this port (unit tests): TX buffers are only filled. */
#define SY_PORT_NONE UINT16_MAX

#define SY_RX_BURST 32
/* TX buffer per port: a full RX burst from every port can land on one port,
 * plus released ARP queues; flushed early when full. */
#define SY_TX_BUF 64
/* With tx_drain_us: a port's queue is sent once it holds this many. */
#define SY_TX_DRAIN_BURST 32
/* With tx_drain_us: a port holds frames only while busy, that is when it
 * queued at least this many in the last tx_drain_us window. */
#define SY_TX_DRAIN_BUSY 4

struct sy_dp_port {
	char name[SY_NAME_MAX];
	uint16_t port_id; /* ethdev id, or SY_PORT_NONE */
	uint16_t mtu;
	struct rte_ether_addr mac;
	uint32_t ipv4[SY_MAX_PORT_ADDRS]; /* network order */
	uint32_t ipv4_mask[SY_MAX_PORT_ADDRS]; /* network order */
	unsigned n_ipv4;
	bool rx_ipv4_cksum; /* RX offload enabled: trust the mbuf flags */
	bool tx_ipv4_cksum; /* TX offload enabled: let the NIC fill it */
	/* The PMD sends mbuf chains. Those that do not (net_af_xdp) would
	 * send only the first segment's bytes, so sy_tx makes a chain one
	 * mbuf first: the proxy sends its headers and payload as a chain. */
	bool tx_multi_seg;
};

struct sy_dns_table;

struct sy_dp_shared {
	struct sy_dp_port ports[SY_MAX_PORTS];
	unsigned n_ports;
	struct sy_fib *fib;
	struct rte_mempool *pool; /* for packets a worker makes (ARP requests) */
	struct rte_ring *nb_ring[SY_MAX_WORKERS]; /* neighbour updates, per worker */
	unsigned n_workers;
	struct sy_gen_slot *slot; /* NULL in tests */
	/* TCP service: where clients connect (network order). */
	uint32_t listen_ip[SY_MAX_LISTEN + SY_MAX_PORTS * SY_MAX_PORT_ADDRS];
	unsigned n_listen;
	uint16_t http_port, https_port;
	uint16_t mss_max; /* MSS we announce at most: smallest port MTU - 40 */
	struct rte_ring *handoff[SY_MAX_WORKERS]; /* segments for their owner */
	/* Active health checks (sy_dataplane.h): jobs to worker 0, results
	 * back (single producer, single consumer each). NULL in tests. */
	struct rte_ring *hc_jobs, *hc_done;
	/* The access log (observe/access_rec.h): each worker's ring of
	 * records for the control thread, or NULL (the log is off). */
	struct rte_ring *alog[SY_MAX_WORKERS];
	/* The DNS responder (dns/dns.h): its address (network order; 0: off)
	 * and the shard zones it answers for (ctl: publishes, sy_dp_dns_publish;
	 * workers: read at each query). */
	uint32_t dns_addr;
	_Atomic(const struct sy_dns_table *) dns_zones;
	/* VIP failover (vrrp/vrrp.h), or NULL (vrrp not configured). */
	struct sy_vrrp *vrrp;
	/* SYN cookie secrets: three buffers so a rotation never rewrites the
	 * one a worker may still be reading (ctl: wo via sy_dp_cookie_rotate,
	 * workers: ro). */
	struct sy_cookie_keys cookie_keys[3];
	atomic_uint cookie_cur;
	/* Our ISN and TSval on backend legs (tcp_isn.h): set at init, keys
	 * from the state directory (dataplane.c). */
	struct sy_leg_clock leg_clock;
	enum sy_idle_policy idle;
	/* A port's frames wait at most this long (TSC) for more to share their
	 * TX burst; 0: sent at the end of every poll. */
	uint64_t tx_drain_tsc;
	unsigned flows_per_worker; /* connection records per worker (flow.h) */
	uint8_t tcp_cc; /* enum sy_tcp_cc: new proxied connections take it (tcp_cc.h) */
	bool lb_fail_closed; /* lb_all_ejected "fail": no pick when all tried are ejected */
	uint8_t lb_max_ejected_pct; /* lb_max_ejected_percent (lb/lb.h) */
	uint64_t tsc_per_ms;
	atomic_bool stop; /* ctl: wo (sy_dp_stop), workers: ro */
};

struct sy_txq {
	uint16_t n;
	bool busy;           /* tx_drain: SY_TX_DRAIN_BUSY or more in the last window */
	uint32_t win_frames; /* tx_drain: frames queued in this window */
	uint64_t win_start;  /* tx_drain: w->now when this window began */
	uint64_t since; /* w->now when pkts[0] was queued (tx_drain_tsc) */
	uint64_t bytes; /* of pkts[0..n), counted as they are queued */
	struct rte_mbuf *pkts[SY_TX_BUF];
};

struct sy_worker {
	unsigned id; /* worker index == RCU reader id == RX/TX queue id */
	unsigned lcore;
	uint16_t queue;
	struct sy_dp_shared *sh; /* read-only */
	uint64_t now;            /* TSC at the top of this loop iteration */
	/* The generation held for the current burst; NULL between bursts. The
	 * splice path reads it; nothing may keep it past the iteration. */
	struct sy_generation *gen;
	struct sy_txq txq[SY_MAX_PORTS];
	unsigned tx_held; /* frames the last poll kept for a later burst */
	/* A -Dpoll_phases=true build's marks in this poll (TSC), added to the
	 * poll_*_cycles counters by sy_worker_main when the poll was busy. */
	struct {
		uint64_t rx_begin, input_end, timers_end, rx_calls;
	} phase;
	struct sy_worker_counters counters; /* worker: wo, ctl: ro */
	struct sy_arp_table arp;
	struct sy_tcp_worker tcp;
} __rte_cache_aligned;

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

static inline void
sy_drop(struct sy_worker *w, struct rte_mbuf *m, enum sy_drop_reason why)
{
	w->counters.drops[why]++;
	rte_pktmbuf_free(m);
}

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
	/* A VIP, only while this node is its master. */
	return sh->vrrp != NULL && sy_vrrp_is_master(sh->vrrp, ip);
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
