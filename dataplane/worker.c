/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <sys/random.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_malloc.h>
#include <rte_prefetch.h>
#include <rte_rcu_qsbr.h>
#include <rte_ring_elem.h>

#include "conn/conn.h"
#include "dp_log.h"
#include "net/neigh.h"
#include "proxy/px_h2.h"
#include "lb/hc_probe.h"
#include "sy_access_log.h"
#include "sy_dataplane.h"
#include "net/fib.h"
#include "net/net.h"
#include "splice/splice.h"
#include "tcp/tcp.h"
#include "vrrp/vrrp.h"
#include "drain.h"
#include "worker.h"
#include "worker_conn.h"

/* Adaptive idle: after this many empty polls in a row, sleep, starting at
 * SY_IDLE_SLEEP_MIN_US and doubling up to SY_IDLE_SLEEP_MAX_US while it stays
 * idle. 1 ms is well under any TCP timer and keeps an idle lab at ~0% CPU.
 * An empty poll costs about 100 cycles: 48 of them are 2 us, and cost less
 * CPU per request than 256 did in three pairs of runs, or 8 or 400 in three
 * rounds (perf/journal/h2.md). A sleep and its wake cost some 8 us of CPU in
 * a guest (the timer's MSR write and the halt are VM exits): under load the
 * first sleep is 50 us, not 10, so fewer of them come between bursts, 6-7 %
 * less CPU a request in three pairs of runs (perf/journal/h2.md). The thread's
 * timer slack (50 us by default) lengthens every sleep anyway; a frame that
 * comes while the worker sleeps waits at most the sleep, as it did for the
 * longer sleeps of a quiet worker. */
#define SY_IDLE_EMPTY_POLLS 48
#define SY_IDLE_SLEEP_MIN_US 50
#define SY_IDLE_SLEEP_MAX_US 1000
/* Segments waiting for their owning worker (a burst from every port). */
#define SY_HANDOFF_RING_SIZE 4096

/*
 * tx_drain_us "auto": hold a busy port's frames up to
 * SY_TX_DRAIN_US_SYSCALL_PORTS when the ports are kernel packet sockets or
 * taps, where every TX burst is a system call costing about what a frame
 * costs (perf/README.md, "proxy"); nothing with a PCI device among them,
 * whose burst is a doorbell write.
 */
unsigned
sy_tx_drain_us(const struct sy_config *cfg)
{
	static const char *const syscall_tx[] = { "net_af_packet", "net_af_xdp", "net_tap",
						  "net_pcap" };
	bool sys = false;
	unsigned k;

	if (cfg->tx_drain_us != SY_TX_DRAIN_US_AUTO)
		return RTE_MIN(cfg->tx_drain_us, SY_TX_DRAIN_US_MAX);
	if (sy_config_has_pci(cfg))
		return 0;
	for (k = 0; k < RTE_DIM(syscall_tx); k++)
		sys |= sy_config_has_driver(cfg, syscall_tx[k]);
	return sys ? SY_TX_DRAIN_US_SYSCALL_PORTS : 0;
}

int
sy_dp_shared_create(const struct sy_config *cfg, struct rte_mempool *pool, unsigned n_workers,
		    struct sy_dp_shared **out, char *err, size_t errlen)
{
	static atomic_uint seq;
	struct sy_dp_shared *sh;
	unsigned set = atomic_fetch_add(&seq, 1);
	unsigned i, j;
	int rc;

	*out = NULL;
	if (n_workers == 0 || n_workers > SY_MAX_WORKERS || cfg->n_ports > SY_MAX_PORTS) {
		snprintf(err, errlen, "dataplane: %u workers, %u ports: out of range", n_workers,
			 cfg->n_ports);
		return -EINVAL;
	}
	sh = rte_zmalloc("sy_dp_shared", sizeof(*sh), RTE_CACHE_LINE_SIZE);
	if (sh == NULL) {
		snprintf(err, errlen, "dataplane: out of memory");
		return -ENOMEM;
	}
	sh->pool = pool;
	sh->n_workers = n_workers;
	sh->n_ports = cfg->n_ports;
	sh->idle = cfg->idle;
	sh->flows_per_worker =
		cfg->flows_per_worker != 0 ? cfg->flows_per_worker : SY_FLOWS_PER_WORKER_DEFAULT;
	sh->tcp_cc = cfg->tcp_cc;
	sy_dp_h2_configure(&cfg->h2);
	sh->lb_fail_closed = cfg->lb_fail_closed;
	sh->lb_max_ejected_pct = cfg->lb_max_ejected_percent;
	sh->dns_self.v4 = cfg->dns_listen;
	sh->dns_self.v6_on = cfg->dns_listen6_on;
	memcpy(sh->dns_self.v6, cfg->dns_listen6, 16);
	atomic_init(&sh->dns_zones, NULL);
	sh->tsc_per_ms = rte_get_tsc_hz() / 1000;
	if (sh->tsc_per_ms == 0)
		sh->tsc_per_ms = 1;
	sh->tx_drain_tsc = sh->tsc_per_ms * sy_tx_drain_us(cfg) / 1000;
	atomic_init(&sh->stop, false);

	for (i = 0; i < cfg->n_ports; i++) {
		const struct sy_port_config *pc = &cfg->ports[i];
		struct sy_dp_port *p = &sh->ports[i];

		snprintf(p->name, sizeof(p->name), "%s", pc->name);
		p->port_id = SY_PORT_NONE;
		/* Until sy_port_setup learns what the device can do; a port
		 * without one (the tests') hands chains on as they are. */
		p->tx_multi_seg = true;
		p->mtu = pc->mtu ? pc->mtu : RTE_ETHER_MTU;
		if (pc->n_ipv4 > SY_MAX_PORT_ADDRS) {
			snprintf(err, errlen, "port %s: too many addresses", pc->name);
			rc = -EINVAL;
			goto fail;
		}
		for (j = 0; j < pc->n_ipv4; j++) {
			uint8_t len = pc->ipv4[j].prefix_len;

			if (pc->ipv4[j].addr.family != AF_INET || len > 32) {
				snprintf(err, errlen, "port %s: address %u is not IPv4", pc->name, j);
				rc = -EINVAL;
				goto fail;
			}
			p->ipv4[j] = pc->ipv4[j].addr.v4;
			p->ipv4_mask[j] = rte_cpu_to_be_32(len ? ~0u << (32 - len) : 0);
		}
		p->n_ipv4 = pc->n_ipv4;
		if (pc->n_ipv6 > SY_MAX_PORT_ADDRS) {
			snprintf(err, errlen, "port %s: too many IPv6 addresses", pc->name);
			rc = -EINVAL;
			goto fail;
		}
		for (j = 0; j < pc->n_ipv6; j++) {
			if (pc->ipv6[j].addr.family != AF_INET6) {
				snprintf(err, errlen, "port %s: IPv6 address %u is not IPv6", pc->name, j);
				rc = -EINVAL;
				goto fail;
			}
			memcpy(p->ipv6[j], pc->ipv6[j].addr.v6, 16);
			p->ipv6_prefix[j] = pc->ipv6[j].prefix_len;
		}
		p->n_ipv6 = pc->n_ipv6;
	}

	rc = sy_fib_create(cfg, &sh->fib, err, errlen);
	if (rc < 0)
		goto fail;

	/* TCP service: the configured listen addresses, else every port address. */
	if (cfg->n_listen > 0) {
		for (i = 0; i < cfg->n_listen; i++) {
			if (cfg->listen[i].family == AF_INET) {
				sh->listen_ip[sh->n_listen++] = cfg->listen[i].v4;
				continue;
			}
			/* An IPv6 listen address is answered for (neighbour
			 * discovery) only as a port's address: an IPv6 VIP
			 * is made ours by VIP failover (vrrp/vrrp.h) from a
			 * Router's spec.vips, not by listen.addresses. */
			for (j = 0; j < sh->n_ports; j++)
				if (sy_ipv6_is_ours(&sh->ports[j], cfg->listen[i].v6))
					break;
			if (j == sh->n_ports) {
				char buf[SY_ADDR_STRLEN];

				snprintf(err, errlen,
					 "listen.addresses[%u]: %s is not an IPv6 address of any port "
					 "(ports[].ipv6)", i, sy_addr_format(&cfg->listen[i], buf, sizeof(buf)));
				rc = -EINVAL;
				goto fail;
			}
			memcpy(sh->listen_ip6[sh->n_listen6++], cfg->listen[i].v6, 16);
		}
	} else {
		for (i = 0; i < sh->n_ports; i++) {
			for (j = 0; j < sh->ports[i].n_ipv4; j++)
				sh->listen_ip[sh->n_listen++] = sh->ports[i].ipv4[j];
			for (j = 0; j < sh->ports[i].n_ipv6; j++)
				memcpy(sh->listen_ip6[sh->n_listen6++], sh->ports[i].ipv6[j], 16);
		}
	}
	sh->pp_on = cfg->proxy_protocol;
	for (i = 0; i < cfg->n_pp_from; i++) {
		if (cfg->pp_from[i].family == AF_INET)
			sy_prefix4_set(&sh->pp_from4[sh->pp_from.n4++], cfg->pp_from[i].v4,
				       cfg->pp_from_len[i]);
		else
			sy_prefix6_set(&sh->pp_from6[sh->pp_from.n6++], cfg->pp_from[i].v6,
				       cfg->pp_from_len[i]);
	}
	sh->pp_from.v4 = sh->pp_from4;
	sh->pp_from.v6 = sh->pp_from6;
	sh->http_port = rte_cpu_to_be_16(cfg->http_port ? cfg->http_port : 80);
	sh->https_port = rte_cpu_to_be_16(cfg->https_port ? cfg->https_port : 443);
	sh->mss_max = 1460;
	for (i = 0; i < sh->n_ports; i++)
		sh->mss_max = RTE_MIN(sh->mss_max, (uint16_t)(sh->ports[i].mtu - 40));
	if (getrandom(sh->cookie_keys, sizeof(sh->cookie_keys), 0) != (ssize_t)sizeof(sh->cookie_keys)) {
		snprintf(err, errlen, "dataplane: no randomness for the SYN cookie secret");
		rc = -EIO;
		goto fail;
	}
	if (sy_leg_clock_init(&sh->leg_clock, sh->tsc_per_ms) < 0) {
		snprintf(err, errlen, "dataplane: no randomness for the backend-leg ISN secret");
		rc = -EIO;
		goto fail;
	}
	/* [0] of the buffer in use is current, [1] previous. */
	atomic_init(&sh->cookie_cur, 0);

	for (i = 0; i < n_workers; i++) {
		char name[RTE_RING_NAMESIZE];

		snprintf(name, sizeof(name), "sy_nb_%u_%u", set, i);
		/* Any worker posts, only the owner reads. */
		sh->nb_ring[i] = rte_ring_create_elem(name, sizeof(struct sy_neigh_update),
						      SY_NEIGH_RING_SIZE, SOCKET_ID_ANY,
						      RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "sy_ho_%u_%u", set, i);
		sh->handoff[i] = rte_ring_create(name, SY_HANDOFF_RING_SIZE, SOCKET_ID_ANY, RING_F_SC_DEQ);
		if (cfg->access_log_to[0] != '\0') {
			/* The worker puts, the control thread takes. */
			snprintf(name, sizeof(name), "sy_al_%u_%u", set, i);
			sh->alog[i] = rte_ring_create_elem(name, sizeof(struct sy_access_rec),
							   SY_ALOG_RING, SOCKET_ID_ANY,
							   RING_F_SP_ENQ | RING_F_SC_DEQ);
			if (sh->alog[i] == NULL) {
				rc = -rte_errno;
				snprintf(err, errlen, "dataplane: ring %s: %s", name,
					 rte_strerror(rte_errno));
				goto fail;
			}
		}
		if (sh->nb_ring[i] == NULL || sh->handoff[i] == NULL) {
			rc = -rte_errno;
			snprintf(err, errlen, "dataplane: ring %s: %s", name,
				 rte_strerror(rte_errno));
			goto fail;
		}
	}
	{
		char name[RTE_RING_NAMESIZE];
		const unsigned f = RING_F_SP_ENQ | RING_F_SC_DEQ;

		/* Room for every job in flight, both ways (a ring holds size - 1). */
		snprintf(name, sizeof(name), "sy_hcj_%u", set);
		sh->hc_jobs = rte_ring_create(name, SY_HC_JOBS_MAX * 2, SOCKET_ID_ANY, f);
		snprintf(name, sizeof(name), "sy_hcd_%u", set);
		sh->hc_done = rte_ring_create(name, SY_HC_JOBS_MAX * 2, SOCKET_ID_ANY, f);
		if (sh->hc_jobs == NULL || sh->hc_done == NULL) {
			rc = -rte_errno;
			snprintf(err, errlen, "dataplane: ring %s: %s", name,
				 rte_strerror(rte_errno));
			goto fail;
		}
	}
	rc = sy_vrrp_create(cfg, sh, set, err, errlen);
	if (rc < 0)
		goto fail;
	*out = sh;
	return 0;
fail:
	sy_dp_shared_free(sh);
	return rc;
}

void
sy_dp_shared_rotate_cookie(struct sy_dp_shared *sh)
{
	unsigned cur = atomic_load_explicit(&sh->cookie_cur, memory_order_relaxed);
	struct sy_cookie_keys *next = &sh->cookie_keys[(cur + 1) % 3];
	uint8_t fresh[16];

	/* The buffer written is the one retired two rotations ago: no worker
	 * still reads it (a rotation is minutes apart, a read a packet long). */
	if (getrandom(fresh, sizeof(fresh), 0) != (ssize_t)sizeof(fresh))
		return;
	memcpy(next->key[1], sh->cookie_keys[cur % 3].key[0], 16);
	memcpy(next->key[0], fresh, 16);
	atomic_store_explicit(&sh->cookie_cur, cur + 1, memory_order_release);
}

void
sy_dp_shared_free(struct sy_dp_shared *sh)
{
	unsigned i;

	if (sh == NULL)
		return;
	for (i = 0; i < SY_MAX_WORKERS; i++) {
		rte_ring_free(sh->nb_ring[i]);
		rte_ring_free(sh->handoff[i]);
		rte_ring_free(sh->alog[i]);
	}
	free((void *)atomic_load(&sh->dns_zones));
	sy_vrrp_free(sh);
	rte_ring_free(sh->hc_jobs);
	rte_ring_free(sh->hc_done);
	sy_fib_free(sh->fib);
	rte_free(sh);
}

struct sy_worker *
sy_worker_create(struct sy_dp_shared *sh, unsigned id, unsigned lcore)
{
	struct sy_worker *w;
	int socket = rte_lcore_to_socket_id(lcore);

	w = rte_zmalloc_socket("sy_worker", sizeof(*w), RTE_CACHE_LINE_SIZE,
			       socket < 0 ? SOCKET_ID_ANY : socket);
	if (w == NULL)
		return NULL;
	w->id = id;
	w->lcore = lcore;
	w->queue = (uint16_t)id;
	w->sh = sh;
	sy_clock_init(&w->clock, rte_rdtsc(), sy_ms_to_tsc(w, SY_CLOCK_STEP_MAX_MS));
	w->now = w->clock.now;
	sy_neigh_init(&w->arp, AF_INET);
	sy_neigh_init(&w->nd, AF_INET6);
	w->arp.last_timer = w->now;
	if (sy_worker_conn_init(w) < 0) {
		rte_free(w);
		return NULL;
	}
	return w;
}

void
sy_worker_destroy(struct sy_worker *w)
{
	unsigned p, i;

	if (w == NULL)
		return;
	sy_worker_conn_fini(w);
	sy_neigh_flush_all(w);
	for (p = 0; p < SY_MAX_PORTS; p++) {
		for (i = 0; i < w->txq[p].n; i++)
			rte_pktmbuf_free(w->txq[p].pkts[i]);
		w->txq[p].n = 0;
	}
	rte_free(w);
}

void
sy_worker_tx_flush(struct sy_worker *w, uint16_t port)
{
	struct sy_txq *q = &w->txq[port];
	uint16_t pid = w->sh->ports[port].port_id;
	/* Counted when queued: a PMD may free what it sent (af_packet
	 * copies), and this saves a second walk over the mbufs. */
	uint64_t bytes = q->bytes;
	uint16_t sent = 0, i;

	q->bytes = 0;
	if (q->n == 0)
		return;
	if (pid != SY_PORT_NONE) {
		uint64_t t0 = rte_rdtsc();

		sent = rte_eth_tx_burst(pid, w->queue, q->pkts, q->n);
		w->counters.tx_call_cycles += rte_rdtsc() - t0;
		w->counters.tx_bursts++;
	}
	for (i = sent; i < q->n; i++) {
		bytes -= q->pkts[i]->pkt_len;
		sy_drop(w, q->pkts[i], SY_DROP_TX_FULL);
	}
	w->counters.tx_packets += sent;
	w->counters.tx_bytes += bytes;
	q->n = 0;
}

/* A chain for a port that sends only single mbufs: in place when the first
 * segment is ours alone and has the room (a proxy segment's header mbuf,
 * which is most of them), else copied into a fresh mbuf. The chain's other
 * segments may be the send buffer's (retransmission holds a reference),
 * so they are only read and released. */
struct rte_mbuf *
sy_tx_linearize(struct sy_worker *w, struct rte_mbuf *m)
{
	struct rte_mbuf *c;

	if (RTE_MBUF_DIRECT(m) && rte_mbuf_refcnt_read(m) == 1 && rte_pktmbuf_linearize(m) == 0)
		return m;
	c = rte_pktmbuf_alloc(w->sh->pool);
	if (c == NULL || rte_pktmbuf_tailroom(c) < m->pkt_len) {
		/* Too long: an MTU above the mbuf's room on such a port. */
		sy_drop(w, m, c == NULL ? SY_DROP_NO_MBUF : SY_DROP_TX_TOO_LONG);
		rte_pktmbuf_free(c);
		return NULL;
	}
	rte_pktmbuf_read(m, 0, m->pkt_len, rte_pktmbuf_append(c, (uint16_t)m->pkt_len));
	c->ol_flags = m->ol_flags;
	c->l2_len = m->l2_len;
	c->l3_len = m->l3_len;
	c->l4_len = m->l4_len;
	rte_pktmbuf_free(m);
	return c;
}

#ifndef SY_POLL_PHASES
#define SY_POLL_PHASES 0
#endif

/* The TSC in a -Dpoll_phases=true build, else nothing: where a busy poll's
 * cycles go (perf/README.md, "proxy") at four more clock reads a poll. */
static inline uint64_t
phase_tsc(void)
{
	return SY_POLL_PHASES ? rte_rdtsc() : 0;
}

/* A busy poll's parts, from the marks sy_worker_poll left (t0: the loop's
 * top, t1: after the poll). */
static void
phase_count(struct sy_worker *w, uint64_t t0, uint64_t t1)
{
	struct sy_worker_counters *c = &w->counters;

	c->poll_pre_cycles += w->phase.rx_begin - t0;
	c->poll_rx_cycles += w->phase.rx_calls;
	c->poll_input_cycles += w->phase.input_end - w->phase.rx_begin - w->phase.rx_calls;
	c->poll_timer_cycles += w->phase.timers_end - w->phase.input_end;
	c->poll_tx_cycles += t1 - w->phase.timers_end;
}

unsigned
sy_worker_poll(struct sy_worker *w)
{
	struct sy_dp_shared *sh = w->sh;
	struct rte_mbuf *pkts[SY_RX_BURST];
	unsigned work = 0;
	uint16_t p, n;

	/* Held for this burst only (docs/architecture.md section 3). */
	w->gen = sh->slot ? sy_gen_acquire(sh->slot) : NULL;

	work += sy_neigh_drain_updates(w);
	work += sy_tcp_handoff_drain(w);
	if (w->id == 0 && sh->hc_jobs != NULL)
		work += sy_hc_drain(w); /* health checks to send (lb/hc_probe.h) */
	if (w->id == 0 && sh->vrrp != NULL && !w->drain_swept)
		work += sy_vrrp_poll(w); /* VIP failover (vrrp/vrrp.h); resigned when draining */

	if (SY_POLL_PHASES) {
		w->phase.rx_begin = phase_tsc();
		w->phase.rx_calls = 0;
	}
	for (p = 0; p < sh->n_ports; p++) {
		uint16_t pid = sh->ports[p].port_id;
		uint64_t rx_t0;

		if (pid == SY_PORT_NONE)
			continue;
		rx_t0 = rte_rdtsc();
		n = rte_eth_rx_burst(pid, w->queue, pkts, SY_RX_BURST);
		if (n == 0) {
			if (SY_POLL_PHASES)
				w->phase.rx_calls += rte_rdtsc() - rx_t0;
			continue;
		}
		rx_t0 = rte_rdtsc() - rx_t0;
		w->counters.rx_call_cycles += rx_t0;
		if (SY_POLL_PHASES)
			w->phase.rx_calls += rx_t0;
		work += n;
		w->counters.rx_packets += n;
		/* Established spliced segments directly, the rest through
		 * sy_eth_input, in order (splice_fast.c). */
		sy_splice_rx_burst(w, p, pkts, n);
	}

	if (SY_POLL_PHASES)
		w->phase.input_end = phase_tsc();
	work += sy_conn_timers_run(w);

	if (w->now - w->arp.last_timer >= sy_ms_to_tsc(w, SY_NEIGH_TIMER_MS)) {
		w->arp.last_timer = w->now;
		sy_neigh_timer(w);
	}
	if (unlikely(!w->drain_swept) && atomic_load_explicit(&sh->draining, memory_order_relaxed))
		sy_worker_drain_sweep(w); /* once (drain.c) */

	if (SY_POLL_PHASES)
		w->phase.timers_end = phase_tsc();

	/* Send what is queued. With tx_drain_us a busy port's frames may wait
	 * for more, until there are SY_TX_DRAIN_BURST or the first has waited
	 * tx_drain_tsc, so that one TX burst's fixed cost (a system call on
	 * af_packet and af_xdp: about half of a lone frame's, perf/README.md
	 * "proxy") is shared. Busy: SY_TX_DRAIN_BUSY frames or more in the
	 * last window of tx_drain_tsc; a quiet port's frames go at once, so
	 * holding costs latency only where company is due within the window.
	 * A poll that sends has work, whichever poll made the frames. */
	w->tx_held = 0;
	for (p = 0; p < sh->n_ports; p++) {
		struct sy_txq *q = &w->txq[p];

		if (sh->tx_drain_tsc != 0 && w->now - q->win_start >= sh->tx_drain_tsc) {
			/* A window that ended long ago (the worker slept) says
			 * nothing of now. */
			q->busy = q->win_frames >= SY_TX_DRAIN_BUSY &&
				  w->now - q->win_start < 2 * sh->tx_drain_tsc;
			q->win_frames = 0;
			q->win_start = w->now;
		}
		if (q->n == 0)
			continue;
		if (!q->busy || q->n >= SY_TX_DRAIN_BURST || w->now - q->since >= sh->tx_drain_tsc) {
			work += q->n;
			sy_worker_tx_flush(w, p);
		} else {
			w->tx_held += q->n;
		}
	}

	w->gen = NULL;
	return work;
}

/* Send every frame held for company (tx_drain_us) now. */
static void
tx_flush_held(struct sy_worker *w)
{
	uint16_t p;

	for (p = 0; p < w->sh->n_ports; p++)
		if (w->txq[p].n != 0)
			sy_worker_tx_flush(w, p);
	w->tx_held = 0;
}

int
sy_worker_main(void *arg)
{
	struct sy_worker *w = arg;
	struct sy_dp_shared *sh = w->sh;
	struct rte_rcu_qsbr *qs = sh->slot ? sh->slot->qs : NULL;
	unsigned sleep_us = SY_IDLE_SLEEP_MIN_US;
	unsigned empty = 0;

	SY_DP_LOG(INFO, "worker %u running on lcore %u (queue %u)", w->id, w->lcore, w->queue);
	if (qs != NULL)
		rte_rcu_qsbr_thread_online(qs, w->id);

	/* Acquire pairs with the release in sy_dp_stop; nothing depends on
	 * it but it costs nothing on x86. */
	while (!atomic_load_explicit(&sh->stop, memory_order_acquire)) {
		uint64_t t0 = rte_rdtsc();
		unsigned work;

		/* The top of the loop: no generation pointer is held here. */
		if (qs != NULL)
			rte_rcu_qsbr_quiescent(qs, w->id);
		sy_worker_clock_tick(w, t0);
		work = sy_worker_poll(w);
		w->counters.loops++;

		if (work != 0) {
			uint64_t t1 = rte_rdtsc();

			empty = 0;
			sleep_us = SY_IDLE_SLEEP_MIN_US;
			/* A jump within the iteration (worker_clock.h) is not
			 * work: bounded as the clock bounds it. */
			w->counters.busy_cycles += sy_clock_step(t0, t1, w->clock.max_step);
			w->counters.busy_loops++;
			if (SY_POLL_PHASES)
				phase_count(w, t0, t1);
			continue;
		}
		if (sh->idle == SY_IDLE_ADAPTIVE && ++empty >= SY_IDLE_EMPTY_POLLS) {
			/* Never asleep on held frames (tx_drain_us). So many empty
			 * polls say no company is coming for them soon: send them
			 * now rather than spin out their wait, which cost as much
			 * CPU as the system calls it saves (perf/journal/h2.md). */
			if (w->tx_held != 0) {
				uint64_t t1 = rte_rdtsc(), t2;

				tx_flush_held(w);
				t2 = rte_rdtsc();
				w->counters.busy_cycles += t2 - t1; /* work, not idling */
				t0 += t2 - t1;
			}
			/* Offline while asleep so the control thread never
			 * waits on a sleeping worker to free a generation. */
			if (qs != NULL)
				rte_rcu_qsbr_thread_offline(qs, w->id);
			rte_delay_us_sleep(sleep_us);
			if (qs != NULL)
				rte_rcu_qsbr_thread_online(qs, w->id);
			if (sleep_us < SY_IDLE_SLEEP_MAX_US)
				sleep_us = RTE_MIN(sleep_us * 2, (unsigned)SY_IDLE_SLEEP_MAX_US);
		}
		w->counters.idle_cycles += sy_clock_step(t0, rte_rdtsc(), w->clock.max_step);
	}

	/* Frames held for company (tx_drain_us) go now: a stopping worker
	 * sends what it made, as every poll did before the drain. */
	tx_flush_held(w);
	/* Hand the VIPs over now rather than after the standbys' master-down
	 * interval (RFC 5798: priority 0 on shutdown). */
	if (w->id == 0 && sh->vrrp != NULL && !w->drain_swept)
		sy_vrrp_resign(w);
	if (qs != NULL)
		rte_rcu_qsbr_thread_offline(qs, w->id);
	SY_DP_LOG(INFO, "worker %u stopped", w->id);
	return 0;
}
