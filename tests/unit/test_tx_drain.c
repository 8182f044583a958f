/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's TX queue. Ports whose driver sends single mbufs only get each
 * chained frame as one mbuf (sy_tx_linearize). tx_drain_us: with it, a worker keeps what a poll made for a busy
 * port (SY_TX_DRAIN_BUSY frames or more in the last window of tx_drain_tsc)
 * until SY_TX_DRAIN_BURST frames share the TX burst or the first has waited
 * tx_drain_tsc; a quiet port's frames, and every frame without it (0), go
 * with the poll that made them.
 * The worker's client port is a net_ring ethdev here, so what the worker
 * really sent is what its TX ring holds; SYNs to the HTTP port come in on its
 * RX ring and each gets a cookie SYN-ACK (no connection state is made).
 */
#include <setjmp.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_eth_ring.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_tcp.h>

#include "dp_env.h"
#include "worker.h"

static struct sy_test_dp env;
static struct rte_ring *rx, *tx; /* the client port's: we fill rx, the worker fills tx */

static int
group_setup(void **state)
{
	struct rte_eth_conf conf;
	int pid;

	if (sy_test_dp_init(&env, "test_tx_drain", 1023) < 0)
		return -1;
	rx = rte_ring_create("t_drain_rx", 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	tx = rte_ring_create("t_drain_tx", 256, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ);
	if (rx == NULL || tx == NULL)
		return -1;
	pid = rte_eth_from_rings("t_drain_client", &rx, 1, &tx, 1, SOCKET_ID_ANY);
	if (pid < 0)
		return -1;
	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure((uint16_t)pid, 1, 1, &conf) < 0 ||
	    rte_eth_rx_queue_setup((uint16_t)pid, 0, 256, SOCKET_ID_ANY, NULL, env.mp) < 0 ||
	    rte_eth_tx_queue_setup((uint16_t)pid, 0, 256, SOCKET_ID_ANY, NULL) < 0 ||
	    rte_eth_dev_start((uint16_t)pid) < 0)
		return -1;
	env.sh->ports[0].port_id = (uint16_t)pid;
	return 0;
}

static int
group_teardown(void **state)
{
	rte_eth_dev_stop(env.sh->ports[0].port_id);
	env.sh->ports[0].port_id = SY_PORT_NONE;
	sy_test_dp_fini(&env);
	return 0;
}

static int
setup(void **state)
{
	assert_int_equal(sy_test_dp_worker(&env), 0);
	env.w->now = rte_rdtsc();
	return 0;
}

static int
teardown(void **state)
{
	void *m;

	while (rte_ring_dequeue(tx, &m) == 0)
		rte_pktmbuf_free(m);
	assert_int_equal(sy_test_dp_worker_free(&env), 0);
	env.sh->tx_drain_tsc = 0;
	return 0;
}

/* n SYNs from the client (source ports from 40000 on) on the RX ring. */
static void
syns(unsigned n)
{
	static uint16_t sport = 40000;
	unsigned i;

	for (i = 0; i < n; i++) {
		struct sy_test_seg s = { .saddr = sy_test_ip4(SY_TEST_CLIENT),
					 .daddr = sy_test_ip4(SY_TEST_VIP),
					 .sport = rte_cpu_to_be_16(sport++), .dport = rte_cpu_to_be_16(80),
					 .seq = 1000, .flags = RTE_TCP_SYN_FLAG, .win = 64240 };
		struct rte_mbuf *m = sy_test_frame(env.mp, 0, &s);

		assert_non_null(m);
		assert_int_equal(rte_ring_enqueue(rx, m), 0);
	}
}

/* What the worker has sent: n frames, each a SYN-ACK; freed. */
static void
sent(unsigned n)
{
	void *m;
	unsigned got = 0;

	while (rte_ring_dequeue(tx, &m) == 0) {
		const struct rte_tcp_hdr *th = rte_pktmbuf_mtod_offset(
			(struct rte_mbuf *)m, const struct rte_tcp_hdr *,
			sizeof(struct rte_ether_hdr) + sizeof(struct rte_ipv4_hdr));

		assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
		rte_pktmbuf_free(m);
		got++;
	}
	assert_int_equal(got, n);
}

/* Makes the client port busy: SY_TX_DRAIN_BUSY SYN-ACKs in one window (sent
 * at once: the port was quiet), then the clock at the window's end, so the
 * next poll starts a window with the port busy. */
static void
busy_window(uint64_t drain)
{
	struct sy_worker *w = env.w;

	env.sh->tx_drain_tsc = drain;
	assert_int_equal(sy_worker_poll(w), 0); /* opens the first window */
	syns(SY_TX_DRAIN_BUSY);
	assert_int_not_equal(sy_worker_poll(w), 0);
	sent(SY_TX_DRAIN_BUSY);
	w->now += drain;
}

/* 0: the poll that made the SYN-ACK sent it. */
static void
test_no_drain(void **state)
{
	syns(1);
	assert_int_not_equal(sy_worker_poll(env.w), 0);
	sent(1);
	assert_int_equal(env.w->tx_held, 0);
}

/* A lone frame waits for company, but never past tx_drain_tsc; the polls in
 * between have no work (they count as idle), the one that sends has. */
static void
test_held_until_deadline(void **state)
{
	struct sy_worker *w = env.w;
	const uint64_t drain = env.sh->tsc_per_ms * 30 / 1000; /* 30 us */
	uint64_t t0, before, calls;

	busy_window(drain);
	t0 = w->now;
	before = w->counters.tx_packets;
	calls = w->counters.tx_bursts;
	syns(1);
	assert_int_not_equal(sy_worker_poll(w), 0); /* the SYN */
	sent(0);
	assert_int_equal(w->tx_held, 1);
	w->now = t0 + drain - 1;
	assert_int_equal(sy_worker_poll(w), 0);
	sent(0);
	assert_int_equal(w->tx_held, 1);
	/* More made meanwhile goes with it: one burst of three. */
	syns(2);
	assert_int_not_equal(sy_worker_poll(w), 0);
	sent(0);
	assert_int_equal(w->tx_held, 3);
	w->now = t0 + drain;
	assert_int_equal(sy_worker_poll(w), 3);
	sent(3);
	assert_int_equal(w->tx_held, 0);
	assert_int_equal(w->counters.tx_packets - before, 3);
	/* The three held frames went in one call to the driver. */
	assert_int_equal(w->counters.tx_bursts - calls, 1);
}

/* SY_TX_DRAIN_BURST frames go at once, however long the drain time. */
static void
test_full_burst_goes_at_once(void **state)
{
	struct sy_worker *w = env.w;

	busy_window(env.sh->tsc_per_ms * 1000); /* 1 s */
	syns(SY_TX_DRAIN_BURST + 5); /* one RX burst takes SY_RX_BURST of them */
	assert_int_not_equal(sy_worker_poll(w), 0);
	sent(SY_TX_DRAIN_BURST);
	assert_int_not_equal(sy_worker_poll(w), 0);
	sent(0);
	assert_int_equal(w->tx_held, 5);
	w->now += env.sh->tx_drain_tsc;
	assert_int_equal(sy_worker_poll(w), 5);
	sent(5);
}

/* A quiet port (fewer than SY_TX_DRAIN_BUSY frames in the last window, or a
 * window that ended long ago: the worker slept) holds nothing: a lone frame
 * at low load goes with the poll that made it. */
static void
test_quiet_port_sends_at_once(void **state)
{
	struct sy_worker *w = env.w;
	const uint64_t drain = env.sh->tsc_per_ms * 100 / 1000; /* 100 us */

	env.sh->tx_drain_tsc = drain;
	syns(1);
	assert_int_not_equal(sy_worker_poll(w), 0);
	sent(1);
	assert_int_equal(w->tx_held, 0);
	/* Busy, then a window with only three: quiet again. */
	busy_window(drain);
	syns(1);
	assert_int_not_equal(sy_worker_poll(w), 0);
	sent(0); /* busy: held */
	syns(SY_TX_DRAIN_BUSY - 2);
	assert_int_not_equal(sy_worker_poll(w), 0);
	sent(0);
	assert_int_equal(w->tx_held, SY_TX_DRAIN_BUSY - 1);
	w->now += drain; /* the window ends with three queued: the held ones go */
	assert_int_equal(sy_worker_poll(w), SY_TX_DRAIN_BUSY - 1);
	sent(SY_TX_DRAIN_BUSY - 1);
	syns(1);
	assert_int_not_equal(sy_worker_poll(w), 0);
	sent(1); /* quiet: at once */
	/* Busy, then the worker away for two windows: that window is stale. */
	w->now += drain;
	busy_window(drain);
	w->now += 2 * drain;
	syns(1);
	assert_int_not_equal(sy_worker_poll(w), 0);
	sent(1);
	assert_int_equal(w->tx_held, 0);
}

/* A worker that stops sends what it held: nothing made is freed unsent. */
static void
test_stop_sends_held_frames(void **state)
{
	struct sy_worker *w = env.w;

	busy_window(env.sh->tsc_per_ms * 1000); /* 1 s */
	syns(3);
	assert_int_not_equal(sy_worker_poll(w), 0);
	sent(0);
	assert_int_equal(w->tx_held, 3);
	atomic_store(&env.sh->stop, true);
	assert_int_equal(sy_worker_main(w), 0); /* no loop: straight to the exit */
	atomic_store(&env.sh->stop, false);
	sent(3);
}

/* A chain for a port without multi-segment TX: one mbuf with the same bytes,
 * made in place when the head has the room, copied when it is shared; a
 * chain no mbuf can hold is dropped as tx_too_long. */
static struct rte_mbuf *
chain(unsigned head, unsigned tail)
{
	struct rte_mbuf *a = rte_pktmbuf_alloc(env.mp), *b = rte_pktmbuf_alloc(env.mp);
	char *p;
	unsigned i;

	assert_non_null(a);
	assert_non_null(b);
	p = rte_pktmbuf_append(a, (uint16_t)head);
	for (i = 0; i < head; i++)
		p[i] = (char)i;
	p = rte_pktmbuf_append(b, (uint16_t)tail);
	for (i = 0; i < tail; i++)
		p[i] = (char)(head + i);
	assert_int_equal(rte_pktmbuf_chain(a, b), 0);
	return a;
}

static void
check_flat(const struct rte_mbuf *m, unsigned len)
{
	const char *p = rte_pktmbuf_mtod(m, const char *);
	unsigned i;

	assert_int_equal(m->nb_segs, 1);
	assert_int_equal(m->pkt_len, len);
	assert_int_equal(m->data_len, len);
	for (i = 0; i < len; i++)
		assert_int_equal(p[i], (char)i);
}

static void
test_single_mbuf_port(void **state)
{
	struct sy_worker *w = env.w;
	struct sy_txq *q = &w->txq[1];
	struct rte_mbuf *m;
	unsigned i;

	env.sh->ports[1].tx_multi_seg = false;
	sy_tx(w, 1, chain(54, 1400)); /* a proxy segment: header mbuf + payload */
	m = chain(54, 1400);
	rte_mbuf_refcnt_update(m, 1); /* the head shared: copied, not changed */
	sy_tx(w, 1, m);
	assert_int_equal(q->n, 2);
	check_flat(q->pkts[0], 1454);
	check_flat(q->pkts[1], 1454);
	assert_ptr_not_equal(q->pkts[1], m);
	assert_int_equal(m->nb_segs, 2); /* the sharer's chain is as it was */
	rte_pktmbuf_free(m);
	sy_tx(w, 1, chain(2000, 2000));
	assert_int_equal(q->n, 2);
	assert_int_equal(w->counters.drops[SY_DROP_TX_TOO_LONG], 1);
	for (i = 0; i < q->n; i++)
		rte_pktmbuf_free(q->pkts[i]);
	q->n = 0;
	q->bytes = 0;
	env.sh->ports[1].tx_multi_seg = true;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_no_drain, setup, teardown),
		cmocka_unit_test_setup_teardown(test_held_until_deadline, setup, teardown),
		cmocka_unit_test_setup_teardown(test_full_burst_goes_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_quiet_port_sends_at_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stop_sends_held_frames, setup, teardown),
		cmocka_unit_test_setup_teardown(test_single_mbuf_port, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
