/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data plane's contract with the control thread (include/sy_dataplane.h):
 * one mempool, the ports, the shared tables and one struct sy_worker per
 * worker lcore. All of it is built here, on the main lcore, before the
 * workers start, and torn down after they stop.
 */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "sy_access_log.h"

#include "dp_log.h"
#include "mbuf_pool.h"
#include "port.h"
#include "sy_dataplane.h"
#include "conn/conn.h"
#include "drain.h"
#include "worker.h"
#include "lb/lb.h"
#include "observe/conn_list.h"
#include "vrrp/vrrp.h"
#include "xsk_stats.h"

RTE_LOG_REGISTER(sy_dp_logtype, switchyard.dataplane, INFO);

/* At least this many mbufs (2^13 - 1: mempools are fastest at 2^n - 1),
 * enough for a 2-core lab under --no-huge -m 256. */
#define SY_MBUF_MIN 8191
#define SY_MBUF_CACHE 256

static struct {
	struct rte_mempool *pool;
	struct sy_dp_shared *sh;
	struct sy_worker *workers[SY_MAX_WORKERS];
	unsigned n_workers;
	bool launched[SY_MAX_WORKERS];
	bool ready;
} dp;

static unsigned
pool_size(unsigned n_ports, unsigned n_workers)
{
	/* Every queue's ring full, plus each worker's cache, its RX burst,
	 * its TX buffers and its two neighbour tables' hold queues. */
	unsigned need = n_ports * n_workers * (SY_PORT_RX_DESC + SY_PORT_TX_DESC) +
			n_workers * (SY_MBUF_CACHE + SY_RX_BURST + n_ports * SY_TX_BUF +
				     2 * SY_NEIGH_PENDING_MAX);
	unsigned n = SY_MBUF_MIN;

	while (n < need)
		n = n * 2 + 1;
	return n;
}

static void
dp_teardown(void)
{
	unsigned i;

	if (dp.sh != NULL)
		for (i = 0; i < dp.sh->n_ports; i++)
			sy_port_close(&dp.sh->ports[i]);
	for (i = 0; i < SY_MAX_WORKERS; i++) {
		sy_worker_destroy(dp.workers[i]);
		dp.workers[i] = NULL;
	}
	sy_dp_shared_free(dp.sh);
	dp.sh = NULL;
	/* Ports are closed, so no driver still holds an mbuf from it. */
	sy_mbuf_pool_free(dp.pool);
	dp.pool = NULL;
	dp.n_workers = 0;
	dp.ready = false;
}

int
sy_dp_init(const struct sy_config *cfg, struct sy_gen_slot *slot, char *err, size_t errlen)
{
	unsigned i, n_mbufs;
	int rc;

	if (dp.ready) {
		snprintf(err, errlen, "dataplane: already initialized");
		return -EALREADY;
	}
	if (cfg->n_workers == 0 || cfg->n_workers > SY_MAX_WORKERS) {
		snprintf(err, errlen, "dataplane: need 1..%u workers, have %u", SY_MAX_WORKERS,
			 cfg->n_workers);
		return -EINVAL;
	}
	if (slot == NULL || slot->qs == NULL || slot->n_readers < cfg->n_workers) {
		snprintf(err, errlen, "dataplane: generation slot has room for %u readers, need %u",
			 slot && slot->qs ? slot->n_readers : 0, cfg->n_workers);
		return -EINVAL;
	}
	for (i = 0; i < cfg->n_workers; i++) {
		unsigned lc = cfg->worker_lcores[i];

		if (lc >= RTE_MAX_LCORE || !rte_lcore_is_enabled(lc) ||
		    lc == rte_get_main_lcore()) {
			snprintf(err, errlen,
				 "dataplane: worker %u: lcore %u is not an enabled worker lcore"
				 " (check EAL -l/--lcores)",
				 i, lc);
			return -EINVAL;
		}
	}

	n_mbufs = pool_size(cfg->n_ports, cfg->n_workers);
	dp.pool = sy_mbuf_pool_create(cfg, n_mbufs, SY_MBUF_CACHE, err, errlen);
	if (dp.pool == NULL) {
		rc = -ENOMEM;
		goto fail;
	}

	rc = sy_dp_shared_create(cfg, dp.pool, cfg->n_workers, &dp.sh, err, errlen);
	if (rc < 0)
		goto fail;
	dp.sh->slot = slot;
	if (cfg->state_dir[0] != '\0') {
		/* The backend-leg ISN and timestamp keys outlive this process, so
		 * a restart keeps its SYNs acceptable to the TIME_WAITs the last
		 * run left on the backends (tcp_isn.h). */
		char path[sizeof(cfg->state_dir) + 32];

		snprintf(path, sizeof(path), "%s/backend-leg.key", cfg->state_dir);
		rc = sy_leg_clock_keys_file(&dp.sh->leg_clock, path);
		if (rc < 0) {
			snprintf(err, errlen, "dataplane: %s: %s (delete it to make a new one)", path,
				 strerror(-rc));
			goto fail;
		}
	}

	for (i = 0; i < cfg->n_ports; i++) {
		rc = sy_port_setup(&cfg->ports[i], (uint16_t)cfg->n_workers, dp.pool,
				   &dp.sh->ports[i], err, errlen);
		if (rc < 0)
			goto fail;
		if (dp.sh->vrrp != NULL && i == dp.sh->vrrp->port)
			sy_vrrp_port_join(&dp.sh->ports[i]);
	}

	for (i = 0; i < cfg->n_workers; i++) {
		dp.workers[i] = sy_worker_create(dp.sh, i, cfg->worker_lcores[i]);
		if (dp.workers[i] == NULL) {
			rc = -ENOMEM;
			snprintf(err, errlen,
				 "dataplane: worker %u: out of memory for its connection tables: "
				 "flows_per_worker %u needs about %zu MB of hugepage memory per worker "
				 "(lower flows_per_worker, or reserve more hugepages / EAL -m)",
				 i, dp.sh->flows_per_worker,
				 sy_flow_mem_estimate(dp.sh->flows_per_worker) >> 20);
			goto fail;
		}
		/* Reader id == worker index (sy_gen_slot.h). */
		rc = rte_rcu_qsbr_thread_register(slot->qs, i);
		if (rc != 0) {
			rc = -EINVAL;
			snprintf(err, errlen, "dataplane: worker %u: rcu register failed", i);
			goto fail;
		}
	}
	dp.n_workers = cfg->n_workers;
	dp.ready = true;
	SY_DP_LOG(INFO, "%u workers, %u ports, %u mbufs", dp.n_workers, cfg->n_ports, n_mbufs);
	return 0;
fail:
	if (dp.sh != NULL && slot != NULL && slot->qs != NULL)
		for (i = 0; i < cfg->n_workers; i++)
			if (dp.workers[i] != NULL)
				(void)rte_rcu_qsbr_thread_unregister(slot->qs, i);
	dp_teardown();
	return rc;
}

int
sy_dp_start(void)
{
	unsigned i;
	int rc;

	if (!dp.ready)
		return -EINVAL;
	atomic_store_explicit(&dp.sh->stop, false, memory_order_relaxed);
	for (i = 0; i < dp.n_workers; i++) {
		struct sy_worker *w = dp.workers[i];

		rc = rte_eal_remote_launch(sy_worker_main, w, w->lcore);
		if (rc != 0) {
			SY_DP_LOG(ERR, "worker %u: launch on lcore %u: %s", i, w->lcore,
				  strerror(-rc));
			/* Leave the ones that run for sy_dp_stop to stop. */
			return rc;
		}
		dp.launched[i] = true;
	}
	return 0;
}

void
sy_dp_stop(void)
{
	unsigned i;

	if (!dp.ready)
		return;
	/* Release: the workers' last flushes happen after they see it, and
	 * nothing else is handed over. */
	atomic_store_explicit(&dp.sh->stop, true, memory_order_release);
	for (i = 0; i < dp.n_workers; i++) {
		if (!dp.launched[i])
			continue;
		(void)rte_eal_wait_lcore(dp.workers[i]->lcore);
		dp.launched[i] = false;
	}
	if (dp.sh->slot != NULL && dp.sh->slot->qs != NULL)
		for (i = 0; i < dp.n_workers; i++)
			(void)rte_rcu_qsbr_thread_unregister(dp.sh->slot->qs, i);
	dp_teardown();
}

unsigned
sy_dp_drain_begin(void)
{
	unsigned handover_ms;

	if (dp.sh == NULL)
		return 0;
	/* Before the flag: worker 0 resigns the VIPs as soon as it sees it. */
	handover_ms = sy_vrrp_handover_ms(dp.sh->vrrp);
	atomic_store_explicit(&dp.sh->draining, true, memory_order_relaxed);
	return handover_ms;
}

unsigned
sy_dp_conns_in_flight(void)
{
	unsigned i, n = 0;

	for (i = 0; i < dp.n_workers; i++)
		if (dp.workers[i] != NULL)
			n += sy_worker_conns_in_flight(dp.workers[i]);
	return n;
}

void
sy_dp_rotate_cookie_secret(void)
{
	if (dp.sh != NULL)
		sy_dp_shared_rotate_cookie(dp.sh);
}

unsigned
sy_dp_n_workers(void)
{
	return dp.n_workers;
}

const struct sy_worker_counters *
sy_dp_worker_counters(unsigned i)
{
	if (i >= dp.n_workers)
		return NULL;
	return &dp.workers[i]->counters;
}

uint64_t
sy_dp_worker_clock(unsigned i)
{
	if (i >= dp.n_workers)
		return 0;
	return rte_rdtsc() - atomic_load_explicit(&dp.workers[i]->clock_skip, memory_order_relaxed);
}

unsigned
sy_dp_conns(unsigned i, struct sy_dp_conn *out, unsigned max)
{
	if (i >= dp.n_workers)
		return 0;
	return sy_conn_list(dp.workers[i], sy_dp_worker_clock(i), out, max);
}

void
sy_dp_endpoint_state(uint32_t ip, uint16_t port, struct sy_dp_endpoint_state *out)
{
	uint32_t slot = sy_lb_slot(ip, port);
	unsigned i;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < dp.n_workers; i++) {
		const struct sy_conn_tables *t = &dp.workers[i]->tcp;
		/* Each worker's ejections are on its own clock. */
		const uint64_t now = sy_dp_worker_clock(i);

		out->open_connections += t->lb_load[slot];
		out->connections += t->lb_opened[slot];
		if (now < t->lb_health[slot].until)
			out->ejected_workers++;
		if (t->lb_health[slot].fails > out->failures)
			out->failures = t->lb_health[slot].fails;
	}
}

int
sy_dp_hc_submit(struct sy_hc_job *job)
{
	if (dp.sh == NULL || dp.sh->hc_jobs == NULL || dp.n_workers == 0)
		return -ENODEV;
	return rte_ring_sp_enqueue(dp.sh->hc_jobs, job) == 0 ? 0 : -ENOBUFS;
}

struct sy_hc_job *
sy_dp_hc_collect(void)
{
	void *job;

	if (dp.sh == NULL || dp.sh->hc_done == NULL)
		return NULL;
	return rte_ring_sc_dequeue(dp.sh->hc_done, &job) == 0 ? job : NULL;
}

unsigned
sy_dp_alog_take(unsigned w, struct sy_access_rec *out, unsigned max)
{
	if (dp.sh == NULL || w >= dp.n_workers || dp.sh->alog[w] == NULL)
		return 0;
	return rte_ring_sc_dequeue_burst_elem(dp.sh->alog[w], out, sizeof(*out), max, NULL);
}

const struct sy_route_ctr *
sy_dp_route_ctrs(unsigned w)
{
	if (w >= dp.n_workers || dp.workers[w] == NULL)
		return NULL;
	return dp.workers[w]->tcp.route_ctr;
}

const struct sy_backend_ctr *
sy_dp_backend_ctrs(unsigned w)
{
	if (w >= dp.n_workers || dp.workers[w] == NULL)
		return NULL;
	return dp.workers[w]->tcp.backend_ctr;
}

int
sy_dp_dns_publish(struct sy_dns_table *t)
{
	const struct sy_dns_table *old;

	if (dp.sh == NULL) {
		free(t);
		return -ENODEV;
	}
	old = atomic_exchange_explicit(&dp.sh->dns_zones, t, memory_order_acq_rel);
	if (old != NULL && dp.sh->slot != NULL)
		rte_rcu_qsbr_synchronize(dp.sh->slot->qs, RTE_QSBR_THRID_INVALID);
	free((void *)old);
	return 0;
}

int
sy_dp_vrrp_publish(struct sy_vrrp_vips *t)
{
	const struct sy_vrrp_vips *old;

	if (dp.sh == NULL || dp.sh->vrrp == NULL) {
		free(t);
		return -ENODEV;
	}
	old = atomic_exchange_explicit(&dp.sh->vrrp->vips, t, memory_order_acq_rel);
	if (old != NULL && dp.sh->slot != NULL)
		rte_rcu_qsbr_synchronize(dp.sh->slot->qs, RTE_QSBR_THRID_INVALID);
	free((void *)old);
	return 0;
}

int
sy_dp_vrrp_status(unsigned i, struct sy_vrrp_status *out)
{
	const struct sy_vrrp *v = dp.sh != NULL ? dp.sh->vrrp : NULL;
	const struct sy_vrrp_pub *p;
	uint64_t seen, h[2];

	if (v == NULL || i >= SY_VRRP_VIPS_MAX)
		return -ENOENT;
	p = &v->pub[i];
	memset(out, 0, sizeof(*out));
	h[0] = atomic_load_explicit(&p->vip6[0], memory_order_relaxed);
	h[1] = atomic_load_explicit(&p->vip6[1], memory_order_relaxed);
	if ((h[0] | h[1]) != 0) {
		out->vip.family = AF_INET6;
		memcpy(out->vip.v6, h, 16);
		h[0] = atomic_load_explicit(&p->master6[0], memory_order_relaxed);
		h[1] = atomic_load_explicit(&p->master6[1], memory_order_relaxed);
		if ((h[0] | h[1]) != 0) {
			out->master.family = AF_INET6;
			memcpy(out->master.v6, h, 16);
		}
	} else {
		out->vip = sy_addr_v4(atomic_load_explicit(&p->vip, memory_order_relaxed));
		if (out->vip.v4 == 0)
			return -ENOENT;
		out->master.v4 = atomic_load_explicit(&p->master, memory_order_relaxed);
		out->master.family = out->master.v4 != 0 ? AF_INET : 0;
	}
	out->vrid = (uint8_t)(v->vrid_base + i);
	out->priority = sy_vrrp_priority(i, v->node, v->nodes);
	out->state = atomic_load_explicit(&p->state, memory_order_relaxed);
	out->master_priority = atomic_load_explicit(&p->master_priority, memory_order_relaxed);
	out->transitions = atomic_load_explicit(&p->transitions, memory_order_relaxed);
	/* On worker 0's clock: it runs VRRP (worker.c). */
	seen = atomic_load_explicit(&p->master_seen, memory_order_relaxed);
	out->master_seen_ms_ago = out->state == SY_VRRP_MASTER ? 0
				  : seen == 0			 ? UINT64_MAX
								 : (sy_dp_worker_clock(0) - seen) / dp.sh->tsc_per_ms;
	return 0;
}

unsigned
sy_dp_n_ports(void)
{
	return dp.sh != NULL ? dp.sh->n_ports : 0;
}

int
sy_dp_mbufs(struct sy_dp_mbufs *out)
{
	if (dp.pool == NULL)
		return -ENODEV;
	out->total = dp.pool->size;
	out->in_use = sy_mbuf_pool_in_use(dp.pool);
	out->quarantined = sy_mbuf_pool_quarantined();
	return 0;
}

int
sy_dp_port_info(unsigned i, struct sy_port_info *out)
{
	const struct sy_dp_port *p;
	struct rte_eth_stats st;

	if (dp.sh == NULL || i >= dp.sh->n_ports)
		return -ENOENT;
	p = &dp.sh->ports[i];
	memset(out, 0, sizeof(*out));
	snprintf(out->name, sizeof(out->name), "%s", p->name);
	out->port_id = p->port_id;
	memcpy(out->mac, p->mac.addr_bytes, sizeof(out->mac));
	out->mtu = p->mtu;
	if (p->port_id != SY_PORT_NONE && rte_eth_stats_get(p->port_id, &st) == 0) {
		out->ipackets = st.ipackets;
		out->opackets = st.opackets;
		out->ibytes = st.ibytes;
		out->obytes = st.obytes;
		out->imissed = st.imissed;
		out->ierrors = st.ierrors;
		out->oerrors = st.oerrors;
		out->rx_nombuf = st.rx_nombuf;
	}
	out->af_xdp = p->n_xsk != 0 && sy_xsk_stats_read(p->xsk_fd, p->n_xsk, &out->xsk) == 0;
	return 0;
}
