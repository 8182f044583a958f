/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One spliced connection, packet by packet, through a worker's real input
 * path (sy_eth_input) with crafted frames: SYN -> cookie SYN-ACK, the ACK,
 * a request split across segments (and out of order), the backend SYN with
 * the client's ISN and options, the backend's SYN-ACK, the held bytes sent
 * translated, data both ways with seq/ack/TS/SACK/window translated and
 * checksums valid, sequence numbers crossing 2^32 on both legs, FINs, LINGER
 * and the record freed. Also the router's own answer (503) and its close,
 * and the established-flow fast path (splice_fast.c) against the per-packet
 * path on every kind of frame.
 */
#include <inttypes.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_tcp.h>

#include "be_access.h"
#include "conn/conn.h"
#include "dp_env.h"
#include "net/arp.h"
#include "net/neigh.h"
#include "net/net.h"
#include "splice/splice.h"
#include "tcp/tcp_opts.h"
#include "tcp/tcp_seq.h"
#include "test_eal.h"
#include "worker.h"

#define CLIENT SY_TEST_CLIENT
#define VIP SY_TEST_VIP
#define SNAT SY_TEST_SNAT
#define BACKEND SY_TEST_BACKEND

/* The in-process data plane (tests/lib/dp_env.h) and short names for it. */
static struct sy_test_dp env;
static struct rte_mempool *mp;
static struct sy_dp_shared *sh;
static struct sy_worker *w;

static uint32_t
ip4(const char *s)
{
	uint32_t a = sy_test_ip4(s);

	assert_int_not_equal(a, 0);
	return a;
}

/* A TCP segment as a peer sends it. */
struct seg {
	const char *src, *dst;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t win;
	const uint8_t *opts;
	unsigned optlen;
	const char *data;
};

static struct rte_mbuf *
mk_seg(const struct seg *s, unsigned port)
{
	struct sy_test_seg t = {
		.saddr = ip4(s->src), .daddr = ip4(s->dst),
		.sport = rte_cpu_to_be_16(s->sport), .dport = rte_cpu_to_be_16(s->dport),
		.seq = s->seq, .ack = s->ack, .flags = s->flags, .win = s->win ? s->win : 502,
		.opts = s->opts, .optlen = s->optlen,
		.data = s->data, .len = s->data ? (unsigned)strlen(s->data) : 0,
	};
	struct rte_mbuf *m = sy_test_frame(mp, port, &t);

	assert_non_null(m);
	return m;
}

/* Take the only frame on port's TX buffer; check its checksums. */
static struct rte_mbuf *
take(unsigned port, struct rte_ipv4_hdr **ip, struct rte_tcp_hdr **th)
{
	struct sy_txq *q = &w->txq[port];
	struct rte_mbuf *m;
	struct rte_ether_hdr *eh;

	if (q->n != 1)
		fail_msg("port %u: expected one frame to send, have %u", port, q->n);
	m = q->pkts[0];
	q->n = 0;
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	assert_memory_equal(&eh->dst_addr, port == 0 ? &sy_test_mac_client : &sy_test_mac_backend, 6);
	*ip = (struct rte_ipv4_hdr *)(eh + 1);
	*th = (struct rte_tcp_hdr *)((uint8_t *)*ip + rte_ipv4_hdr_len(*ip));
	assert_int_equal(rte_raw_cksum(*ip, rte_ipv4_hdr_len(*ip)), 0xffff);
	assert_int_equal(rte_ipv4_udptcp_cksum_verify(*ip, *th), 0);
	return m;
}

static void
expect_nothing_sent(void)
{
	assert_int_equal(w->txq[0].n, 0);
	assert_int_equal(w->txq[1].n, 0);
}

static unsigned
payload_len(const struct rte_ipv4_hdr *ip, const struct rte_tcp_hdr *th)
{
	return rte_be_to_cpu_16(ip->total_length) - rte_ipv4_hdr_len(ip) - (th->data_off >> 4) * 4u;
}

static const char *
payload(const struct rte_tcp_hdr *th)
{
	return (const char *)th + (th->data_off >> 4) * 4;
}

static void
send_in(unsigned port, const struct seg *s)
{
	sy_eth_input(w, (uint16_t)port, mk_seg(s, port));
}

static uint64_t
drops_total(void)
{
	uint64_t n = 0;
	int i;

	for (i = 0; i < SY_DROP__COUNT; i++)
		n += w->counters.drops[i];
	return n;
}

static void
advance_ms(uint64_t ms)
{
	w->now += sh->tsc_per_ms * ms;
	sy_conn_timers_run(w);
}

static int
group_setup(void **state)
{
	if (sy_test_dp_init(&env, "test_splice_conn", 2047) < 0)
		return -1;
	mp = env.mp;
	sh = env.sh;
	return 0;
}

static int
group_teardown(void **state)
{
	sy_test_dp_fini(&env);
	return 0;
}

/* A peer's MAC, as another worker would post it. */
static void
learn_peer(uint32_t ip, uint16_t port, const struct rte_ether_addr *mac)
{
	struct sy_neigh_update u = sy_neigh_update_v4(ip, port, mac);

	rte_ring_enqueue_elem(sh->nb_ring[0], &u, sizeof(u));
	sy_neigh_drain_updates(w);
}

/* A fresh worker that knows the client's and the backend's MACs. */
static int
setup(void **state)
{
	assert_int_equal(sy_test_dp_worker(&env), 0);
	w = env.w;
	return 0;
}

static int
teardown(void **state)
{
	/* Every mbuf back in the pool: nothing held or leaked. */
	assert_int_equal(sy_test_dp_worker_free(&env), 0);
	w = NULL;
	return 0;
}

/* Client options: MSS 1460, SACK-permitted, TS, window scale 7 (Linux's order). */
static uint8_t syn_opts[20];
static unsigned
client_syn_opts(uint32_t tsval)
{
	struct sy_tcp_syn_opts o = { .mss = 1460, .wscale = 7, .sack_ok = true, .ts_ok = true,
				     .tsval = tsval, .tsecr = 0 };

	return sy_tcp_write_syn_opts(syn_opts, &o);
}

static uint8_t ts_buf[12];
static const uint8_t *
ts_opt(uint32_t tsval, uint32_t tsecr)
{
	sy_tcp_write_ts_opt(ts_buf, tsval, tsecr);
	return ts_buf;
}

/* Handshake with the router; returns the cookie ISN and our SYN-ACK TSval. */
static uint32_t
handshake(uint32_t isn_c, uint16_t sport, uint32_t *tsval_r)
{
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	struct sy_tcp_syn_opts o;
	struct rte_mbuf *m;
	uint32_t isn_r;
	struct seg s = { CLIENT, VIP, sport, 80, isn_c, 0, RTE_TCP_SYN_FLAG, 64240, NULL, 0, NULL };

	s.optlen = client_syn_opts(1000);
	s.opts = syn_opts;
	send_in(0, &s);
	m = take(0, &ip, &th);
	assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_c + 1);
	assert_int_equal(ip->src_addr, ip4(VIP));
	assert_int_equal(sy_tcp_parse_syn_opts(th, &o), 0);
	assert_true(o.sack_ok && o.ts_ok);
	assert_int_equal(o.wscale, 7);
	assert_int_equal(o.tsecr, 1000);
	assert_true(o.mss <= 1460 && o.mss >= 536);
	isn_r = rte_be_to_cpu_32(th->sent_seq);
	*tsval_r = o.tsval;
	rte_pktmbuf_free(m);
	assert_int_equal(w->counters.syn_cookies_sent, 1);
	assert_int_equal(w->counters.flows_active, 0); /* no state before the ACK */

	s.flags = RTE_TCP_ACK_FLAG;
	s.seq = isn_c + 1;
	s.ack = isn_r + 1;
	s.opts = ts_opt(1001, *tsval_r);
	s.optlen = 12;
	s.win = 502;
	send_in(0, &s);
	assert_int_equal(w->counters.flows_active, 1);
	expect_nothing_sent();
	return isn_r;
}

/* Move the backend-leg clock so that the next bind's ISN is `want`
 * (tcp_isn.h: a hash plus the clock in 64 ns steps); the next SNAT port is
 * the head of the free-port FIFO. */
static void
steer_backend_isn(uint32_t want)
{
	uint16_t port = rte_cpu_to_be_16(w->tcp.ports[w->tcp.port_q[0].head]); /* one address */
	uint32_t isn = sy_backend_isn(&sh->leg_clock, w->now, ip4(SNAT), ip4(BACKEND), port,
				      rte_cpu_to_be_16(8080));

	sh->leg_clock.base_ns += (uint64_t)(uint32_t)(want - isn) << 6;
}

static void
test_splice_lifecycle_wraps(void **state)
{
	/* Every sequence space crosses 2^32: the client's ISN, the backend's,
	 * and ours on the backend leg. */
	const uint32_t isn_c = 0xfffffff0u, isn_b = 0xfffffffeu, isn_rb = 0xfffffff5u;
	const char *part1 = "GET /x HTTP/1.1\r\nHo";   /* 19 bytes: wraps the client seq */
	const char *part2 = "st: web.test\r\n\r\n";
	const uint32_t p1 = (uint32_t)strlen(part1), p2 = (uint32_t)strlen(part2);
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	struct sy_tcp_syn_opts o;
	struct rte_mbuf *m;
	uint32_t tsval_r, isn_r, tsval, tsecr, d_seq, tsval_rb;
	uint16_t snat_port;
	struct seg s;
	uint8_t opts[40];
	unsigned olen;

	isn_r = handshake(isn_c, 40000, &tsval_r);

	/* The request in two segments, second one first: nothing is acknowledged
	 * or sent until the head is whole. */
	s = (struct seg){ CLIENT, VIP, 40000, 80, isn_c + 1 + p1, isn_r + 1, RTE_TCP_ACK_FLAG, 502,
			  ts_opt(1003, tsval_r), 12, part2 };
	send_in(0, &s);
	expect_nothing_sent();
	s.seq = isn_c + 1;
	s.data = part1;
	s.opts = ts_opt(1002, tsval_r);
	steer_backend_isn(isn_rb);
	send_in(0, &s);

	/* The backend SYN: the client's options, our own ISN and TSval for
	 * this tuple (tcp_isn.h), from our SNAT address. */
	m = take(1, &ip, &th);
	assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG);
	assert_int_equal(ip->src_addr, ip4(SNAT));
	assert_int_equal(ip->dst_addr, ip4(BACKEND));
	assert_int_equal(rte_be_to_cpu_16(th->dst_port), 8080);
	snat_port = rte_be_to_cpu_16(th->src_port);
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_rb);
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq),
			 sy_backend_isn(&sh->leg_clock, w->now, ip->src_addr, ip->dst_addr, th->src_port,
					th->dst_port));
	assert_int_equal(sy_tcp_parse_syn_opts(th, &o), 0);
	assert_true(o.sack_ok && o.ts_ok);
	assert_int_equal(o.wscale, 7);
	tsval_rb = sy_backend_tsval(&sh->leg_clock, w->now, ip->src_addr, ip->dst_addr);
	assert_int_equal(o.tsval, tsval_rb);
	assert_int_equal(o.mss, 1460);
	rte_pktmbuf_free(m);
	expect_nothing_sent();

	/* The backend answers: window scale 5, its own TS clock. */
	{
		struct sy_tcp_syn_opts bo = { .mss = 1460, .wscale = 5, .sack_ok = true,
					      .ts_ok = true, .tsval = 50000, .tsecr = 1003 };

		olen = sy_tcp_write_syn_opts(opts, &bo);
	}
	s = (struct seg){ BACKEND, SNAT, 8080, snat_port, isn_b, isn_rb + 1,
			  RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG, 65160, opts, olen, NULL };
	send_in(1, &s);
	assert_int_equal(w->counters.conns_spliced, 1);
	/* The held bytes go to the backend in order, seq moved into our ISN
	 * space there (wrapping past 2^32), their ACK (of our cookie) now
	 * acknowledging the backend's SYN-ACK, TSval on from the SYN's (the
	 * handshake ACK's 1001 is the SYN's), TSecr the backend's clock. */
	assert_int_equal(w->txq[1].n, 2);
	{
		struct sy_txq keep = w->txq[1];
		unsigned i;

		for (i = 0; i < 2; i++) {
			w->txq[1].n = 1;
			w->txq[1].pkts[0] = keep.pkts[i];
			m = take(1, &ip, &th);
			assert_int_equal(rte_be_to_cpu_32(th->sent_seq), i == 0 ? isn_rb + 1 : isn_rb + 1 + p1);
			assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_b + 1); /* wrapped: 0xffffffff */
			assert_int_equal(payload_len(ip, th), i == 0 ? p1 : p2);
			assert_true(sy_tcp_find_ts(th, &tsval, &tsecr));
			assert_int_equal(tsval, tsval_rb + (i == 0 ? 1 : 2)); /* 1002, 1003 */
			assert_int_equal(tsecr, 50000);
			assert_int_equal(ip->src_addr, ip4(SNAT));
			assert_int_equal(rte_be_to_cpu_16(th->src_port), snat_port);
			rte_pktmbuf_free(m);
		}
		w->txq[1].n = 0;
	}

	/* Backend data to the client: seq moved into our ISN space (the backend's
	 * seq wraps past 2^32 here), TSval into our clock, window from scale 5
	 * to our 7, addresses back to the VIP. */
	d_seq = isn_r - isn_b;
	s = (struct seg){ BACKEND, SNAT, 8080, snat_port, isn_b + 1, isn_rb + 1 + p1 + p2,
			  RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, 1000, ts_opt(50010, tsval_rb + 2), 12,
			  "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok" };
	send_in(1, &s);
	m = take(0, &ip, &th);
	assert_int_equal(ip->src_addr, ip4(VIP));
	assert_int_equal(ip->dst_addr, ip4(CLIENT));
	assert_int_equal(rte_be_to_cpu_16(th->src_port), 80);
	assert_int_equal(rte_be_to_cpu_16(th->dst_port), 40000);
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_b + 1 + d_seq);
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_r + 1);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_c + 1 + p1 + p2);
	assert_true(sy_tcp_find_ts(th, &tsval, &tsecr));
	assert_int_equal(tsval, tsval_r + 10);
	assert_int_equal(tsecr, 1003);
	assert_int_equal(rte_be_to_cpu_16(th->rx_win), 1000 / 4); /* 1000 << 5 >> 7 */
	assert_memory_equal(payload(th), "HTTP/1.1 200 OK", 15);
	rte_pktmbuf_free(m);

	/* The client acknowledges with a SACK block in our space: translated
	 * into the backend's. */
	{
		uint8_t sack[12 + 12] = { 1, 1, 5, 10 };
		uint32_t l = rte_cpu_to_be_32(isn_r + 100), r = rte_cpu_to_be_32(isn_r + 200);

		memcpy(sack + 4, &l, 4);
		memcpy(sack + 8, &r, 4);
		sy_tcp_write_ts_opt(sack + 12, 1004, tsval_r + 10);
		s = (struct seg){ CLIENT, VIP, 40000, 80, isn_c + 1 + p1 + p2, isn_r + 1 + 39,
				  RTE_TCP_ACK_FLAG, 502, sack, 24, NULL };
		send_in(0, &s);
		m = take(1, &ip, &th);
		assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_b + 1 + 39);
		memcpy(&l, (uint8_t *)(th + 1) + 4, 4);
		memcpy(&r, (uint8_t *)(th + 1) + 8, 4);
		assert_int_equal(rte_be_to_cpu_32(l), isn_b + 100);
		assert_int_equal(rte_be_to_cpu_32(r), isn_b + 200);
		assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_rb + 1 + p1 + p2);
		assert_true(sy_tcp_find_ts(th, &tsval, &tsecr));
		assert_int_equal(tsval, tsval_rb + 3); /* the client's 1004 */
		assert_int_equal(tsecr, 50010); /* back in the backend's clock */
		rte_pktmbuf_free(m);
	}

	/* Close: client FIN, backend FIN+ACK, client's last ACK. */
	s = (struct seg){ CLIENT, VIP, 40000, 80, isn_c + 1 + p1 + p2, isn_r + 1 + 39,
			  RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG, 502, ts_opt(1005, tsval_r + 10), 12, NULL };
	send_in(0, &s);
	rte_pktmbuf_free(take(1, &ip, &th));
	s = (struct seg){ BACKEND, SNAT, 8080, snat_port, isn_b + 1 + 39, isn_rb + 2 + p1 + p2,
			  RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG, 1000, ts_opt(50020, tsval_rb + 4), 12, NULL };
	send_in(1, &s);
	m = take(0, &ip, &th);
	/* Its ack and TSecr back into the client's spaces. */
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_c + 2 + p1 + p2);
	assert_true(sy_tcp_find_ts(th, &tsval, &tsecr));
	assert_int_equal(tsecr, 1005);
	rte_pktmbuf_free(m);
	s = (struct seg){ CLIENT, VIP, 40000, 80, isn_c + 2 + p1 + p2, isn_r + 1 + 40,
			  RTE_TCP_ACK_FLAG, 502, ts_opt(1006, tsval_r + 20), 12, NULL };
	send_in(0, &s);
	/* The last ACK still passes (LINGER translates late packets). */
	m = take(1, &ip, &th);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_b + 1 + 40);
	rte_pktmbuf_free(m);
	assert_int_equal(w->counters.flows_active, 1);
	advance_ms(2100);
	assert_int_equal(w->counters.flows_active, 0);
	assert_int_equal(w->counters.conns_closed, 1);
	assert_int_equal(drops_total(), 0);
}

static void
test_unknown_host_answer(void **state)
{
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	uint32_t tsval_r, isn_r, isn_c = 12345;
	const char *req = "GET / HTTP/1.1\r\nHost: nobody.test\r\n\r\n";
	uint32_t len = (uint32_t)strlen(req), ans;
	struct seg s;

	isn_r = handshake(isn_c, 40001, &tsval_r);
	s = (struct seg){ CLIENT, VIP, 40001, 80, isn_c + 1, isn_r + 1, RTE_TCP_ACK_FLAG, 502,
			  ts_opt(1002, tsval_r), 12, req };
	send_in(0, &s);
	m = take(0, &ip, &th);
	assert_int_equal(th->tcp_flags, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG | RTE_TCP_FIN_FLAG);
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_r + 1);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_c + 1 + len);
	assert_memory_equal(payload(th), "HTTP/1.1 503 Service Unavailable\r\n", 34);
	ans = payload_len(ip, th);
	rte_pktmbuf_free(m);
	/* Lost: it comes again after the RTO. */
	advance_ms(300);
	m = take(0, &ip, &th);
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_r + 1);
	rte_pktmbuf_free(m);
	/* The client takes it and closes; we acknowledge its FIN and linger. */
	s = (struct seg){ CLIENT, VIP, 40001, 80, isn_c + 1 + len, isn_r + 2 + ans,
			  RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG, 502, ts_opt(1003, tsval_r), 12, NULL };
	send_in(0, &s);
	m = take(0, &ip, &th);
	assert_int_equal(th->tcp_flags, RTE_TCP_ACK_FLAG);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_c + 2 + len);
	rte_pktmbuf_free(m);
	assert_int_equal(w->counters.conns_answered, 1);
	assert_int_equal(w->counters.answers[SY_ANSWER_NO_ROUTE], 1);
	/* The client reuses its port at once (port exhaustion): the lingering
	 * record gives way to the new connection's cookie handshake. */
	s = (struct seg){ CLIENT, VIP, 40001, 80, 999, 0, RTE_TCP_SYN_FLAG, 64240, syn_opts, 0, NULL };
	s.optlen = client_syn_opts(2000);
	send_in(0, &s);
	m = take(0, &ip, &th);
	assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), 1000);
	rte_pktmbuf_free(m);
	assert_int_equal(w->counters.flows_active, 0);
	assert_int_equal(w->counters.conns_closed, 1);
}

/* A client that closes before sending a byte gets its FIN acknowledged and
 * ours, no 400 (nothing was asked), under its own answer reason. */
static void
test_client_closes_empty(void **state)
{
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	uint32_t tsval_r, isn_r, isn_c = 31337;
	struct seg s;

	isn_r = handshake(isn_c, 40003, &tsval_r);
	s = (struct seg){ CLIENT, VIP, 40003, 80, isn_c + 1, isn_r + 1,
			  RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG, 502, ts_opt(1002, tsval_r), 12, NULL };
	send_in(0, &s);
	m = take(0, &ip, &th);
	assert_int_equal(th->tcp_flags, RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG);
	assert_int_equal(payload_len(ip, th), 0);
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_r + 1);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_c + 2);
	rte_pktmbuf_free(m);
	assert_int_equal(w->counters.answers[SY_ANSWER_CLIENT_CLOSED_EMPTY], 1);
	assert_int_equal(w->counters.answers[SY_ANSWER_BAD_REQUEST], 0);
	/* Its last ACK ends it. */
	s = (struct seg){ CLIENT, VIP, 40003, 80, isn_c + 2, isn_r + 2, RTE_TCP_ACK_FLAG, 502,
			  ts_opt(1003, tsval_r), 12, NULL };
	send_in(0, &s);
	expect_nothing_sent();
	advance_ms(2100);
	assert_int_equal(w->counters.flows_active, 0);
	assert_int_equal(drops_total(), 0);
}

/* A forged or stale ACK makes no state. */
static void
test_forged_ack(void **state)
{
	struct seg s = { CLIENT, VIP, 40002, 80, 777, 0x12345678, RTE_TCP_ACK_FLAG, 502, NULL, 0,
			 "GET / HTTP/1.1\r\nHost: web.test\r\n\r\n" };

	send_in(0, &s);
	expect_nothing_sent();
	assert_int_equal(w->counters.flows_active, 0);
	assert_int_equal(w->counters.drops[SY_DROP_TCP_COOKIE_INVALID], 1);
}

/* ---- the established-flow fast path (splice_fast.c) ------------------- */

/* Our ISN on the backend leg of the last open_spliced() connection: client
 * seq s goes to the backend as s - isn_c + spliced_isn_rb. */
static uint32_t spliced_isn_rb, spliced_tsval_rb;

/* Open a spliced connection from client port `sport`: the backend answers
 * with window scale 5 and its own TS clock, so every field translates.
 * Returns the SNAT port; *isn_r is the cookie ISN. */
static uint16_t
open_spliced(uint16_t sport, uint32_t isn_c, uint32_t isn_b, uint32_t *isn_r, uint32_t *tsval_r)
{
	const char *req = "GET / HTTP/1.1\r\nHost: web.test\r\n\r\n";
	struct sy_tcp_syn_opts bo = { .mss = 1460, .wscale = 5, .sack_ok = true, .ts_ok = true,
				      .tsval = 50000, .tsecr = 1002 };
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	uint8_t opts[40];
	unsigned olen = sy_tcp_write_syn_opts(opts, &bo);
	struct rte_mbuf *m;
	uint32_t isn_rb;
	uint16_t snat;
	struct seg s;

	*isn_r = handshake(isn_c, sport, tsval_r);
	s = (struct seg){ CLIENT, VIP, sport, 80, isn_c + 1, *isn_r + 1, RTE_TCP_ACK_FLAG, 502,
			  ts_opt(1002, *tsval_r), 12, req };
	send_in(0, &s);
	m = take(1, &ip, &th); /* the backend SYN, with our ISN */
	snat = rte_be_to_cpu_16(th->src_port);
	isn_rb = rte_be_to_cpu_32(th->sent_seq);
	spliced_isn_rb = isn_rb;
	{
		struct sy_tcp_syn_opts o;

		assert_int_equal(sy_tcp_parse_syn_opts(th, &o), 0);
		spliced_tsval_rb = o.tsval;
	}
	rte_pktmbuf_free(m);
	s = (struct seg){ BACKEND, SNAT, 8080, snat, isn_b, isn_rb + 1,
			  RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG, 65160, opts, olen, NULL };
	send_in(1, &s);
	rte_pktmbuf_free(take(1, &ip, &th)); /* the held request */
	assert_int_equal(w->counters.conns_spliced, 1);
	return snat;
}

/*
 * A VM resumed from a snapshot with its TSC 5 days ahead (perf/journal/
 * pktgen.md, 2026-12-03): the worker's clock takes that step as
 * SY_CLOCK_STEP_MAX_MS (worker_clock.h), so a spliced connection idle for
 * seconds in fact stays open, and its idle timeout (SY_IDLE_TIMEOUT_MS)
 * still runs on the clock from there (test_tsc_jump_raw_closes: the step
 * taken raw).
 */
static void
test_tsc_jump_keeps_spliced(void **state)
{
	const uint64_t ms = sh->tsc_per_ms, days5 = 5 * 86400000ull * ms;
	uint32_t isn_r, tsval_r;
	uint64_t tsc;
	unsigned i;

	open_spliced(40021, 5000, 9000, &isn_r, &tsval_r);
	assert_int_equal(w->counters.flows_active, 1);
	/* These tests move w->now by hand: the clock starts from it. */
	sy_clock_init(&w->clock, w->now, SY_CLOCK_STEP_MAX_MS * ms);
	tsc = w->now + days5;
	sy_worker_clock_tick(w, tsc);
	sy_conn_timers_run(w);
	assert_int_equal(w->counters.clock_jumps, 1);
	assert_true(w->now == tsc - days5 + SY_CLOCK_STEP_MAX_MS * ms);
	assert_true(atomic_load(&w->clock_skip) == days5 - SY_CLOCK_STEP_MAX_MS * ms);
	assert_int_equal(w->counters.flows_active, 1);
	expect_nothing_sent();

	/* Then idle, polled every second: open at 295 s, closed by 305. */
	for (i = 0; i < 290; i++) {
		tsc += 1000 * ms;
		sy_worker_clock_tick(w, tsc);
		sy_conn_timers_run(w);
	}
	assert_int_equal(w->counters.flows_active, 1);
	for (i = 0; i < 10; i++) {
		tsc += 1000 * ms;
		sy_worker_clock_tick(w, tsc);
		sy_conn_timers_run(w);
	}
	assert_int_equal(w->counters.flows_active, 0);
	assert_int_equal(w->counters.clock_jumps, 1);
	expect_nothing_sent();
	assert_int_equal(drops_total(), 0);
}

/* test_tsc_jump_keeps_spliced's control: the same 5 days taken raw, as
 * routerd took them before its clock, close the connection. */
static void
test_tsc_jump_raw_closes(void **state)
{
	uint32_t isn_r, tsval_r;

	open_spliced(40022, 6000, 19000, &isn_r, &tsval_r);
	assert_int_equal(w->counters.flows_active, 1);
	advance_ms(5 * 86400000ull);
	assert_int_equal(w->counters.flows_active, 0);
	expect_nothing_sent();
}

/* Frames sent on each port, moved out of the TX buffers. */
struct sent {
	struct rte_mbuf *m[2][64];
	unsigned n[2];
};

static void
collect(struct sent *out)
{
	unsigned p, i;

	for (p = 0; p < 2; p++) {
		for (i = 0; i < w->txq[p].n; i++) {
			assert_true(out->n[p] < 64);
			out->m[p][out->n[p]++] = w->txq[p].pkts[i];
		}
		w->txq[p].n = 0;
	}
}

/* Same frame but for the checksum fields, and both checksums valid (a
 * checksum of 0x0000 and of 0xffff are the same ones' complement value). */
static void
assert_same_frame(struct rte_mbuf *a, struct rte_mbuf *b)
{
	uint8_t *pa = rte_pktmbuf_mtod(a, uint8_t *), *pb = rte_pktmbuf_mtod(b, uint8_t *);
	struct rte_ipv4_hdr *ipa = (struct rte_ipv4_hdr *)(pa + 14), *ipb = (struct rte_ipv4_hdr *)(pb + 14);
	unsigned ihl = rte_ipv4_hdr_len(ipa), i;

	assert_int_equal(a->pkt_len, b->pkt_len);
	assert_int_equal(a->data_len, b->data_len);
	assert_int_equal(a->l2_len, b->l2_len);
	assert_int_equal(a->l3_len, b->l3_len);
	assert_int_equal(a->ol_flags, b->ol_flags);
	for (i = 0; i < a->data_len; i++) {
		if (i == 14 + 10 || i == 14 + 11 || i == 14 + ihl + 16 || i == 14 + ihl + 17)
			continue;
		if (pa[i] != pb[i])
			fail_msg("byte %u differs: slow 0x%02x, fast 0x%02x", i, pa[i], pb[i]);
	}
	assert_int_equal(rte_raw_cksum(ipa, ihl), 0xffff);
	assert_int_equal(rte_raw_cksum(ipb, ihl), 0xffff);
	assert_int_equal(rte_ipv4_udptcp_cksum_verify(ipa, (uint8_t *)ipa + ihl), 0);
	assert_int_equal(rte_ipv4_udptcp_cksum_verify(ipb, (uint8_t *)ipb + ihl), 0);
}

static void
snapshot_drops(uint64_t *d)
{
	memcpy(d, w->counters.drops, sizeof(w->counters.drops));
}

static struct rte_mbuf *
ip_cksum_again(struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);

	ip->hdr_checksum = 0;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	return m;
}

/* 4 bytes of IPv4 options (NOPs) after the header: not the fast layout. */
static struct rte_mbuf *
with_ip_options(struct rte_mbuf *m)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(f + 14);
	unsigned rest = m->data_len - 14 - 20;

	assert_non_null(rte_pktmbuf_append(m, 4));
	memmove(f + 14 + 24, f + 14 + 20, rest);
	memset(f + 14 + 20, 1, 4);
	ip->version_ihl = 0x46;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(ip->total_length) + 4));
	return ip_cksum_again(m);
}

/*
 * Every kind of frame, on both ports, through sy_eth_input one by one and
 * through sy_splice_rx_burst as bursts: the same frames come out (byte for
 * byte but the checksums, which are valid either way) and the same drops
 * are counted. None of these frames changes the connection's state, so
 * the second pass meets the state the first did.
 */
static void
test_fast_path_matches_slow(void **state)
{
	const uint32_t isn_c = 0xffffff00u, isn_b = 0xfffffff0u;
	uint32_t isn_r, tsval_r, cseq = isn_c + 1 + 34, cack;
	uint16_t snat = open_spliced(41000, isn_c, isn_b, &isn_r, &tsval_r);
	uint32_t bseq = isn_b + 1;
	uint8_t sack_ts[24] = { 1, 1, 5, 10 }, ts_nop[12], badopt[4] = { 3, 0, 0, 0 };
	struct rte_mbuf *in[2][SY_RX_BURST], *copy[2][SY_RX_BURST];
	unsigned nin[2] = { 0, 0 }, p, i;
	uint64_t d0[SY_DROP__COUNT], d1[SY_DROP__COUNT], d2[SY_DROP__COUNT];
	struct sent slow = { .n = { 0, 0 } }, fast = { .n = { 0, 0 } };
	struct rte_mbuf *m;
	struct seg s;

	cack = isn_r + 1;
	{
		uint32_t l = rte_cpu_to_be_32(isn_r + 100), r = rte_cpu_to_be_32(isn_r + 200);

		memcpy(sack_ts + 4, &l, 4);
		memcpy(sack_ts + 8, &r, 4);
		sy_tcp_write_ts_opt(sack_ts + 12, 1010, tsval_r + 5);
		/* TS first, then two NOPs: a layout the fast path leaves to
		 * sy_xlate_tcp4. */
		sy_tcp_write_ts_opt(ts_nop, 1011, tsval_r + 5);
		memmove(ts_nop, ts_nop + 2, 10);
		ts_nop[10] = ts_nop[11] = 1;
	}
#define ADD(port, mbuf) (in[port][nin[port]++] = (mbuf))
	/* Client leg. */
	s = (struct seg){ CLIENT, VIP, 41000, 80, cseq, cack, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
			  502, ts_opt(1003, tsval_r + 1), 12, "0123456789" };
	ADD(0, mk_seg(&s, 0));
	s = (struct seg){ CLIENT, VIP, 41000, 80, cseq + 10, cack, RTE_TCP_ACK_FLAG, 502, NULL, 0, NULL };
	m = mk_seg(&s, 0); /* 54 bytes: padded to 60 as on a wire */
	memset(rte_pktmbuf_append(m, 6), 0, 6);
	ADD(0, m);
	s = (struct seg){ CLIENT, VIP, 41000, 80, cseq + 10, cack + 5, RTE_TCP_ACK_FLAG, 502,
			  sack_ts, 24, NULL };
	ADD(0, mk_seg(&s, 0));
	s.opts = ts_nop;
	s.optlen = 12;
	ADD(0, mk_seg(&s, 0));
	s.flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG | RTE_TCP_URG_FLAG | RTE_TCP_ECE_FLAG;
	s.opts = ts_opt(1004, tsval_r + 2);
	s.data = "urgent";
	ADD(0, mk_seg(&s, 0));
	ADD(0, with_ip_options(mk_seg(&s, 0)));
	m = mk_seg(&s, 0); /* bad IPv4 checksum */
	rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14)->hdr_checksum ^= 0x0100;
	ADD(0, m);
	m = mk_seg(&s, 0); /* not our MAC */
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = sy_test_mac_backend;
	ADD(0, m);
	m = mk_seg(&s, 0); /* a fragment */
	rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14)->fragment_offset = RTE_BE16(1);
	ADD(0, ip_cksum_again(m));
	m = mk_seg(&s, 0); /* longer than the frame */
	rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14)->total_length = RTE_BE16(400);
	ADD(0, ip_cksum_again(m));
	m = mk_seg(&s, 0); /* TTL 0 */
	rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14)->time_to_live = 0;
	ADD(0, ip_cksum_again(m));
	s.opts = badopt; /* option length 0: malformed */
	s.optlen = 4;
	ADD(0, mk_seg(&s, 0));
	s = (struct seg){ CLIENT, VIP, 41001, 80, cseq, cack, RTE_TCP_ACK_FLAG, 502, NULL, 0, "x" };
	ADD(0, mk_seg(&s, 0)); /* no such flow (and no cookie) */
	s = (struct seg){ CLIENT, VIP, 41000, 80, cseq + 16, cack + 5, RTE_TCP_ACK_FLAG, 502,
			  ts_opt(1005, tsval_r + 3), 12, "tail" };
	ADD(0, mk_seg(&s, 0));

	/* Backend leg. */
	s = (struct seg){ BACKEND, SNAT, 8080, snat, bseq, cseq, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
			  1000, ts_opt(50010, 1003), 12, "HTTP/1.1 200 OK\r\n\r\n" };
	ADD(1, mk_seg(&s, 1));
	s = (struct seg){ BACKEND, SNAT, 8080, snat, bseq + 19, cseq + 10, RTE_TCP_ACK_FLAG, 0, NULL,
			  0, NULL };
	ADD(1, mk_seg(&s, 1)); /* window 0 stays 0 */
	s.win = 1; /* 1 << 5 >> 7 rounds up to 1 */
	ADD(1, mk_seg(&s, 1));
	s.win = 65535;
	s.opts = ts_nop;
	s.optlen = 12;
	ADD(1, mk_seg(&s, 1));
	s.opts = sack_ts;
	s.optlen = 24;
	ADD(1, mk_seg(&s, 1));
	s.sport = 8081; /* right SNAT port, wrong backend port */
	ADD(1, mk_seg(&s, 1));
	s = (struct seg){ BACKEND, SNAT, 8080, (uint16_t)(snat + 1), bseq, cseq, RTE_TCP_ACK_FLAG,
			  1000, NULL, 0, NULL };
	ADD(1, mk_seg(&s, 1)); /* a SNAT port nobody has */
	s = (struct seg){ BACKEND, SNAT, 8080, snat, bseq + 19, cseq + 10, RTE_TCP_ACK_FLAG, 700,
			  ts_opt(50011, 1004), 12, "more" };
	ADD(1, with_ip_options(mk_seg(&s, 1)));
	ADD(1, mk_seg(&s, 1));
#undef ADD

	for (p = 0; p < 2; p++)
		for (i = 0; i < nin[p]; i++) {
			copy[p][i] = rte_pktmbuf_copy(in[p][i], mp, 0, UINT32_MAX);
			assert_non_null(copy[p][i]);
		}
	snapshot_drops(d0);
	for (p = 0; p < 2; p++)
		for (i = 0; i < nin[p]; i++) {
			sy_eth_input(w, (uint16_t)p, in[p][i]);
			collect(&slow);
		}
	snapshot_drops(d1);
	assert_int_equal(w->counters.fast_forwarded, 0);
	for (p = 0; p < 2; p++) {
		sy_splice_rx_burst(w, (uint16_t)p, copy[p], (uint16_t)nin[p]);
		collect(&fast);
	}
	snapshot_drops(d2);
	/* The fast path took what it should: all but the frames with IPv4
	 * options (and the malformed one, which it dropped as the slow path
	 * does); the rest went through sy_eth_input. */
	assert_int_equal(w->counters.fast_forwarded, 12);

	for (i = 0; i < SY_DROP__COUNT; i++)
		if (d1[i] - d0[i] != d2[i] - d1[i])
			fail_msg("drop %s: slow %" PRIu64 ", fast %" PRIu64, sy_drop_reason_names[i],
				 d1[i] - d0[i], d2[i] - d1[i]);
	/* Each dropped frame for its own reason. */
	assert_int_equal(d1[SY_DROP_IPV4_BAD_CHECKSUM] - d0[SY_DROP_IPV4_BAD_CHECKSUM], 1);
	assert_int_equal(d1[SY_DROP_ETH_NOT_OURS] - d0[SY_DROP_ETH_NOT_OURS], 1);
	assert_int_equal(d1[SY_DROP_IPV4_FRAGMENT] - d0[SY_DROP_IPV4_FRAGMENT], 1);
	assert_int_equal(d1[SY_DROP_IPV4_TRUNCATED] - d0[SY_DROP_IPV4_TRUNCATED], 1);
	assert_int_equal(d1[SY_DROP_IPV4_TTL_EXPIRED] - d0[SY_DROP_IPV4_TTL_EXPIRED], 1);
	assert_int_equal(d1[SY_DROP_SPLICE_XLATE_FAILED] - d0[SY_DROP_SPLICE_XLATE_FAILED], 1);
	assert_int_equal(d1[SY_DROP_TCP_COOKIE_INVALID] - d0[SY_DROP_TCP_COOKIE_INVALID], 1);
	assert_int_equal(d1[SY_DROP_TCP_NO_FLOW] - d0[SY_DROP_TCP_NO_FLOW], 2);
	for (p = 0; p < 2; p++) {
		assert_int_equal(slow.n[p], fast.n[p]);
		for (i = 0; i < slow.n[p]; i++) {
			assert_same_frame(slow.m[p][i], fast.m[p][i]);
			rte_pktmbuf_free(slow.m[p][i]);
			rte_pktmbuf_free(fast.m[p][i]);
		}
	}
	/* Client frames forwarded: 2 plain, SACK, TS-NOP, URG, IP options, tail. */
	assert_int_equal(slow.n[1], 7);
	/* Backend frames forwarded: data, 3 ACKs, SACK, IP options, data. */
	assert_int_equal(slow.n[0], 7);
}

/* A FIN in the middle of a burst: it and everything after it on that
 * connection take the per-packet path (the close logic reads their ACKs),
 * and the order on the wire is kept. */
static void
test_fast_path_fin_mid_burst(void **state)
{
	const uint32_t isn_c = 1000, isn_b = 5000;
	uint32_t isn_r, tsval_r, cseq = isn_c + 1 + 34;
	uint16_t snat = open_spliced(41002, isn_c, isn_b, &isn_r, &tsval_r);
	struct rte_mbuf *b[4];
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	struct sy_conn *c;
	bool from_client;
	unsigned i;
	struct seg s = { CLIENT, VIP, 41002, 80, cseq, isn_r + 1, RTE_TCP_ACK_FLAG, 502,
			 ts_opt(1003, tsval_r), 12, "abc" };

	b[0] = mk_seg(&s, 0);
	s.seq += 3;
	s.flags |= RTE_TCP_FIN_FLAG;
	s.data = NULL;
	b[1] = mk_seg(&s, 0);
	s.seq += 1; /* a bare ACK after our FIN, then one with no options */
	s.flags = RTE_TCP_ACK_FLAG;
	b[2] = mk_seg(&s, 0);
	s.opts = NULL;
	s.optlen = 0;
	b[3] = mk_seg(&s, 0);
	sy_splice_rx_burst(w, 0, b, 4);
	assert_int_equal(w->txq[1].n, 4);
	assert_int_equal(w->counters.fast_forwarded, 1);
	for (i = 0; i < 4; i++) {
		uint32_t want = (i == 0 ? cseq : i == 1 ? cseq + 3 : cseq + 4) - isn_c + spliced_isn_rb;

		ip = (struct rte_ipv4_hdr *)(rte_pktmbuf_mtod(w->txq[1].pkts[i], uint8_t *) + 14);
		th = (struct rte_tcp_hdr *)(ip + 1);
		assert_int_equal(rte_be_to_cpu_32(th->sent_seq), want);
		assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_b + 1);
		assert_int_equal(rte_be_to_cpu_16(th->src_port), snat);
		assert_int_equal(th->tcp_flags & RTE_TCP_FIN_FLAG, i == 1 ? RTE_TCP_FIN_FLAG : 0);
		assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, th), 0);
		rte_pktmbuf_free(w->txq[1].pkts[i]);
	}
	w->txq[1].n = 0;
	c = sy_flow_find(w, ip4(CLIENT), ip4(VIP), RTE_BE16(41002), RTE_BE16(80), &from_client);
	assert_non_null(c);
	assert_true(from_client);
	assert_true(c->flags & SY_CF_FIN_CLIENT);
	assert_int_equal(c->fin_c, cseq + 3);
	assert_int_equal(drops_total(), 0);
}

/* The backend's MAC is forgotten: the fast path hands its segments to ARP,
 * which holds them and asks; learning the MAC sends them, in order. */
static void
test_fast_path_arp_unresolved(void **state)
{
	const uint32_t isn_c = 7000, isn_b = 9000;
	uint32_t isn_r, tsval_r, cseq = isn_c + 1 + 34;
	struct rte_mbuf *b[2], *m;
	struct rte_ether_hdr *eh;
	unsigned i;
	struct seg s;

	(void)open_spliced(41003, isn_c, isn_b, &isn_r, &tsval_r);
	sy_neigh_flush_all(w);
	s = (struct seg){ CLIENT, VIP, 41003, 80, cseq, isn_r + 1, RTE_TCP_ACK_FLAG, 502,
			  ts_opt(1003, tsval_r), 12, "abc" };
	b[0] = mk_seg(&s, 0);
	s.seq += 3;
	b[1] = mk_seg(&s, 0);
	sy_splice_rx_burst(w, 0, b, 2);
	assert_int_equal(w->counters.fast_forwarded, 2);
	/* Only the request went out; both segments wait for the answer. */
	assert_int_equal(w->txq[1].n, 1);
	eh = rte_pktmbuf_mtod(w->txq[1].pkts[0], struct rte_ether_hdr *);
	assert_int_equal(eh->ether_type, RTE_BE16(RTE_ETHER_TYPE_ARP));
	rte_pktmbuf_free(w->txq[1].pkts[0]);
	w->txq[1].n = 0;

	learn_peer(ip4(BACKEND), 1, &sy_test_mac_backend);
	assert_int_equal(w->txq[1].n, 2);
	for (i = 0; i < 2; i++) {
		struct rte_ipv4_hdr *ip;
		struct rte_tcp_hdr *th;

		m = w->txq[1].pkts[i];
		eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
		assert_memory_equal(&eh->dst_addr, &sy_test_mac_backend, 6);
		assert_memory_equal(&eh->src_addr, &sy_test_mac_port[1], 6);
		ip = (struct rte_ipv4_hdr *)(eh + 1);
		th = (struct rte_tcp_hdr *)(ip + 1);
		assert_int_equal(rte_be_to_cpu_32(th->sent_seq), cseq + 3 * i - isn_c + spliced_isn_rb);
		assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, th), 0);
		rte_pktmbuf_free(m);
	}
	w->txq[1].n = 0;
	assert_int_equal(drops_total(), 0);
}

/* A spliced record made by hand (no handshake): what the fast path reads. */
static struct sy_conn *
spliced_record(const char *client, uint16_t sport)
{
	struct sy_conn *c = sy_conn_alloc(w);
	struct sy_flow_key k;

	assert_non_null(c);
	c->state = SY_CONN_SPLICED;
	c->client_ip = ip4(client);
	c->vip = ip4(VIP);
	c->client_port = rte_cpu_to_be_16(sport);
	c->vip_port = RTE_BE16(80);
	c->snat_port = rte_cpu_to_be_16(sy_snat_get(w, &sh->ports[1], &c->snat_ip));
	assert_int_equal(c->snat_ip, ip4(SNAT));
	c->backend_ip = ip4(BACKEND);
	c->backend_port = RTE_BE16(8080);
	c->client_if = 0;
	c->backend_if = 1;
	c->client_nh = ip4(CLIENT);
	c->backend_nh = ip4(BACKEND);
	sy_conn_csum_deltas(&w->tcp, c);
	sy_flow_key_v4(&k, c->client_ip, c->vip, c->client_port, c->vip_port);
	assert_int_equal(sy_flow_add(w, &k, c), 0);
	return c;
}

static hash_sig_t
client_sig(const char *client, uint16_t sport)
{
	struct sy_flow_key k;

	sy_flow_key_v4(&k, ip4(client), ip4(VIP), rte_cpu_to_be_16(sport), RTE_BE16(80));
	return sy_flow_hash(&k);
}

/* Client segments b[0..n) through the burst fast path: all taken, and
 * what they made on the backend port freed. */
static void
fast_burst_all(struct rte_mbuf **b, uint16_t n)
{
	unsigned j;

	w->counters.fast_forwarded = 0;
	sy_splice_rx_burst(w, 0, b, n);
	assert_int_equal(w->counters.fast_forwarded, n);
	for (j = 0; j < w->txq[1].n; j++)
		rte_pktmbuf_free(w->txq[1].pkts[j]);
	w->txq[1].n = 0;
}

/* A flow: a client and its port. */
struct flow4 {
	const char *ip;
	uint16_t port;
};

/* n flows from clients[] (in order, ports from 1024 up) whose client keys
 * pick the same cache pair as (clients[0], 1024). */
static void
flows_on_one_pair(const char *const *clients, unsigned n_clients, struct flow4 *f, unsigned n)
{
	uint32_t target = sy_flow_cache_index(&w->tcp, client_sig(clients[0], 1024));
	unsigned a, p, k = 0;

	for (a = 0; a < n_clients && k < n; a++)
		for (p = 1024; p < 65536 && k < n; p++)
			if (sy_flow_cache_index(&w->tcp, client_sig(clients[a], (uint16_t)p)) ==
			    target) {
				f[k].ip = clients[a];
				f[k++].port = (uint16_t)p;
			}
	assert_int_equal(k, n);
}

/*
 * The client-leg cache (conn/flow_table.h) holds two records per pair. Three flows
 * whose keys share a pair: two are in the cache, the third only in the
 * hash, and the fast path forwards all three; the one it found through the
 * hash is in the cache afterwards (one of the other two is not). Freed
 * records leave it, the one put back included.
 */
static void
test_flow_cache_pair_overflow(void **state)
{
	static const char *const clients[] = { "198.18.0.2", "198.18.0.3", "198.18.0.4",
						"198.18.0.5" };
	struct flow4 f[3];
	struct sy_conn *c[3];
	struct rte_mbuf *b[3];
	const uint64_t *pair;
	unsigned i, p, in_cache = 0, missing = 3;

	(void)state;
	/* The fast path hashes from the tuple's values; the table hashes the
	 * key in memory with rte_hash_crc (conn/conn.c): the same numbers. */
	for (p = 1; p < 65536; p += 4093) {
		struct sy_flow_key k;
		uint64_t raw[2]; /* read as words: rte_hash_crc's own reads */

		sy_flow_key_v4(&k, ip4(clients[p % 4]), ip4(VIP), rte_cpu_to_be_16((uint16_t)p),
			       RTE_BE16(80));
		memcpy(raw, &k, sizeof(raw));
		assert_int_equal(sy_flow_hash(&k), rte_hash_crc(raw, sizeof(raw), SY_FLOW_HASH_INIT));
		assert_int_equal(sy_flow_hash_v4(k.saddr, k.daddr, k.sport, k.dport),
				 sy_flow_hash(&k));
	}
	flows_on_one_pair(clients, RTE_DIM(clients), f, 3);
	for (i = 0; i < 3; i++)
		c[i] = spliced_record(f[i].ip, f[i].port);
	pair = sy_flow_cache_pair(&w->tcp, client_sig(f[0].ip, f[0].port));
	for (i = 0; i < 3; i++) {
		struct sy_flow_key k;

		sy_flow_key_v4(&k, ip4(f[i].ip), ip4(VIP), rte_cpu_to_be_16(f[i].port), RTE_BE16(80));
		assert_ptr_equal(sy_flow_lookup(w, &k), c[i]);
		if (sy_flow_cache_find(pair, client_sig(f[i].ip, f[i].port)) == c[i])
			in_cache++;
		else
			missing = i;
	}
	assert_int_equal(in_cache, 2);

	for (i = 0; i < 3; i++) {
		struct seg s = { f[i].ip, VIP, f[i].port, 80, 1000, 2000, RTE_TCP_ACK_FLAG, 500,
				 NULL, 0, "x" };

		b[i] = mk_seg(&s, 0);
	}
	sy_splice_rx_burst(w, 0, b, 3);
	assert_int_equal(w->counters.fast_forwarded, 3);
	assert_int_equal(w->txq[1].n, 3);
	for (i = 0; i < 3; i++) {
		struct rte_mbuf *m = w->txq[1].pkts[i];
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv4_hdr *, 14);
		struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(ip + 1);

		assert_int_equal(ip->dst_addr, ip4(BACKEND));
		assert_int_equal(th->src_port, c[i]->snat_port);
		assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, th), 0);
		rte_pktmbuf_free(m);
	}
	w->txq[1].n = 0;
	assert_int_equal(drops_total(), 0);
	/* The one the hash found is back in the pair; two of the three are. */
	assert_ptr_equal(sy_flow_cache_find(pair, client_sig(f[missing].ip, f[missing].port)),
			 c[missing]);
	for (in_cache = 0, i = 0; i < 3; i++)
		in_cache += sy_flow_cache_find(pair, client_sig(f[i].ip, f[i].port)) == c[i];
	assert_int_equal(in_cache, 2);

	for (i = 0; i < 3; i++)
		sy_conn_free(w, c[i]);
	assert_int_equal(pair[0], 0);
	assert_int_equal(pair[1], 0);
	for (i = 0; i < 3; i++)
		assert_null(sy_flow_cache_find(pair, client_sig(f[i].ip, f[i].port)));
}

/*
 * A flow the cache lost, whose pair has an empty slot, with two segments in
 * one burst: both find it through the hash (the second is resolved before
 * the first is forwarded), and it goes back once. A second copy in the
 * other slot would evict the pair's other flow for nothing.
 */
static void
test_flow_cache_put_once(void **state)
{
	static const char *const clients[] = { "198.18.0.2", "198.18.0.3" };
	struct flow4 f[2];
	struct sy_conn *c[2];
	struct rte_mbuf *b[2];
	uint64_t *pair;
	unsigned i;

	(void)state;
	flows_on_one_pair(clients, RTE_DIM(clients), f, 2);
	for (i = 0; i < 2; i++)
		c[i] = spliced_record(f[i].ip, f[i].port);
	pair = sy_flow_cache_pair(&w->tcp, client_sig(f[0].ip, f[0].port));
	/* The second flow lost from the cache, its slot empty. */
	for (i = 0; i < 2; i++)
		if ((pair[i] & ((1ull << 48) - 1)) == (uintptr_t)c[1])
			pair[i] = 0;
	assert_null(sy_flow_cache_find(pair, client_sig(f[1].ip, f[1].port)));
	assert_ptr_equal(sy_flow_cache_find(pair, client_sig(f[0].ip, f[0].port)), c[0]);

	for (i = 0; i < 2; i++) {
		struct seg sg = { f[1].ip, VIP, f[1].port, 80, 1000 + i, 2000,
				  RTE_TCP_ACK_FLAG, 500, NULL, 0, "x" };

		b[i] = mk_seg(&sg, 0);
	}
	fast_burst_all(b, 2);
	/* Both flows in the pair, once each. */
	assert_ptr_equal(sy_flow_cache_find(pair, client_sig(f[1].ip, f[1].port)), c[1]);
	assert_ptr_equal(sy_flow_cache_find(pair, client_sig(f[0].ip, f[0].port)), c[0]);
	assert_true(pair[0] != pair[1]);
	assert_int_equal(drops_total(), 0);
}

/*
 * Sets of flows as perf/pktgen's P1 opens them: 512 from one client on
 * consecutive ports, then as many from each of two other clients. The CRC
 * is linear, so two such sets use the same pairs or none in common; with
 * clients whose sets use the first one's pairs, the third set evicts the
 * first from every pair. The first set's segments, one a flow, all take the
 * fast path, and afterwards the whole set is in the cache again: each flow
 * found through the hash once, not on every segment it has left (40
 * cycles a packet at 32,000 flows, perf/journal/pktgen.md).
 */
static void
test_flow_cache_refill_after_eviction(void **state)
{
	enum { SET = 512, PORT = 20480 }; /* a multiple of SET: PORT + i is PORT ^ i */
	static struct sy_conn *a[SET];
	static uint8_t used[32768];
	static char others[2][16];
	const struct sy_conn_tables *t = &w->tcp;
	unsigned i, j, n = 0, in_cache = 0;

	(void)state;
	assert_in_range((t->cache_mask + 1) / 2, 1, RTE_DIM(used));
	memset(used, 0, sizeof(used));
	for (i = 0; i < SET; i++) {
		a[i] = spliced_record(CLIENT, (uint16_t)(PORT + i));
		used[sy_flow_cache_index(t, client_sig(CLIENT, (uint16_t)(PORT + i)))] = 1;
	}
	/* Two clients whose sets land on the first one's pairs. */
	for (i = 10; i < 255 && n < 2; i++) {
		snprintf(others[n], sizeof(others[n]), "198.18.0.%u", i);
		if (strcmp(others[n], CLIENT) != 0 &&
		    used[sy_flow_cache_index(t, client_sig(others[n], PORT))])
			n++;
	}
	assert_int_equal(n, 2);
	for (n = 0; n < 2; n++)
		for (i = 0; i < SET; i++)
			(void)spliced_record(others[n], (uint16_t)(PORT + i));
	for (i = 0; i < SET; i++) {
		hash_sig_t sig = client_sig(CLIENT, (uint16_t)(PORT + i));

		in_cache += sy_flow_cache_find(sy_flow_cache_pair(t, sig), sig) == a[i];
	}
	assert_int_equal(in_cache, 0); /* all evicted: what the rest is about */

	for (i = 0; i < SET; i += 32) {
		struct rte_mbuf *b[32];

		for (j = 0; j < 32; j++) {
			struct seg sg = { CLIENT, VIP, (uint16_t)(PORT + i + j), 80, 1000, 2000,
					  RTE_TCP_ACK_FLAG, 500, NULL, 0, "x" };

			b[j] = mk_seg(&sg, 0);
		}
		fast_burst_all(b, 32);
	}
	for (in_cache = 0, i = 0; i < SET; i++) {
		hash_sig_t sig = client_sig(CLIENT, (uint16_t)(PORT + i));

		in_cache += sy_flow_cache_find(sy_flow_cache_pair(t, sig), sig) == a[i];
	}
	assert_int_equal(in_cache, SET);
	assert_int_equal(drops_total(), 0);
}

/*
 * The fast path's checksums come from the record's precomputed changes
 * (conn.h csum_ip / csum_tcp) and their complements the other way. Over
 * random tuples, deltas of both legs, window scales and both layouts (no options, NOP
 * NOP TS), every segment it forwards either way has valid IPv4 and TCP
 * checksums and the tuple and numbers the per-packet path would give.
 */
static void
test_fast_path_csum_random(void **state)
{
	static const uint8_t ts_opt[12] = { 1, 1, 8, 10, 0x11, 0x22, 0x33, 0x44,
					    0x55, 0x66, 0x77, 0x88 };
	uint64_t rng = 0x2545f4914f6cdd1dull;
	unsigned i, leg;

	(void)state;
	for (i = 0; i < 200; i++) {
		char client[32], backend[32];
		struct sy_conn *c;
		uint32_t r[8];

		sy_test_random_words(&rng, r, RTE_DIM(r));
		snprintf(client, sizeof(client), "198.18.%u.%u", 2 + (r[0] & 0xff) % 250,
			 (r[0] >> 8) & 0xff);
		snprintf(backend, sizeof(backend), "198.19.%u.%u", r[1] & 0xff, (r[1] >> 8) & 0xff);
		c = spliced_record(client, (uint16_t)(1024 + r[2] % 64000));
		c->backend_ip = ip4(backend);
		c->backend_port = rte_cpu_to_be_16((uint16_t)(1 + r[2] % 65535));
		c->seq_delta[SY_LEG_BACKEND] = r[3];
		c->ts_delta[SY_LEG_BACKEND] = r[4];
		c->seq_delta[SY_LEG_CLIENT] = r[6];
		c->ts_delta[SY_LEG_CLIENT] = r[7];
		c->win_shift_b = (uint8_t)(r[5] % 15);
		c->win_shift_r = (uint8_t)((r[5] >> 4) % 15);
		sy_conn_csum_deltas(&w->tcp, c);
		sy_flow_backend_add(w, c);

		for (leg = 0; leg < 2; leg++) {
			bool ts = ((r[5] >> 8) + leg) & 1;
			struct seg s = { client, VIP, rte_be_to_cpu_16(c->client_port), 80,
					 r[3] ^ r[4], r[4] ^ r[0], RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
					 (uint16_t)(1 + (r[1] >> 16) % 65535), ts ? ts_opt : NULL, ts ? 12 : 0,
					 "payload" };
			struct rte_ipv4_hdr *ip;
			struct rte_tcp_hdr *th;
			struct rte_mbuf *m;

			if (leg == 1) {
				s.src = backend;
				s.dst = SNAT;
				s.sport = rte_be_to_cpu_16(c->backend_port);
				s.dport = rte_be_to_cpu_16(c->snat_port);
			}
			m = mk_seg(&s, leg);
			sy_splice_rx_burst(w, (uint16_t)leg, &m, 1);
			assert_int_equal(w->counters.fast_forwarded, 2 * i + leg + 1);
			m = take(leg == 0 ? 1 : 0, &ip, &th); /* checks both checksums */
			if (leg == 0) {
				assert_int_equal(ip->src_addr, c->snat_ip);
				assert_int_equal(ip->dst_addr, c->backend_ip);
				assert_int_equal(th->src_port, c->snat_port);
				assert_int_equal(th->dst_port, c->backend_port);
				assert_int_equal(rte_be_to_cpu_32(th->sent_seq),
						 s.seq + c->seq_delta[SY_LEG_CLIENT]);
				assert_int_equal(rte_be_to_cpu_32(th->recv_ack),
						 s.ack - c->seq_delta[SY_LEG_BACKEND]);
				if (ts) { /* TSval into our backend leg's, TSecr the backend's */
					assert_int_equal(get_be32((uint8_t *)(th + 1) + 4),
							 0x11223344u + c->ts_delta[SY_LEG_CLIENT]);
					assert_int_equal(get_be32((uint8_t *)(th + 1) + 8),
							 0x55667788u - c->ts_delta[SY_LEG_BACKEND]);
				}
			} else {
				assert_int_equal(ip->src_addr, c->vip);
				assert_int_equal(ip->dst_addr, c->client_ip);
				assert_int_equal(th->src_port, c->vip_port);
				assert_int_equal(th->dst_port, c->client_port);
				assert_int_equal(rte_be_to_cpu_32(th->sent_seq),
						 s.seq + c->seq_delta[SY_LEG_BACKEND]);
				assert_int_equal(rte_be_to_cpu_32(th->recv_ack),
						 s.ack - c->seq_delta[SY_LEG_CLIENT]);
				assert_int_equal(rte_be_to_cpu_16(th->rx_win),
						 sy_win_rescale(s.win, c->win_shift_b,
								c->win_shift_r));
				if (ts) { /* TSval forward into ours, TSecr back into the client's */
					assert_int_equal(get_be32((uint8_t *)(th + 1) + 4),
							 0x11223344u + c->ts_delta[SY_LEG_BACKEND]);
					assert_int_equal(get_be32((uint8_t *)(th + 1) + 8),
							 0x55667788u - c->ts_delta[SY_LEG_CLIENT]);
				}
			}
			rte_pktmbuf_free(m);
		}
		sy_conn_free(w, c);
	}
	assert_int_equal(drops_total(), 0);
	assert_int_equal(w->counters.flows_active, 0);
}

/*
 * One backend 4-tuple used twice in a row (one free SNAT port): the second
 * connection's SYN must pass a Linux TIME_WAIT left by the first (RFC 6191,
 * tcp_isn.h): seq past the first's last byte and FIN, TSval newer than its
 * last, although the second client's own ISN and TSvals are lower than the
 * first one's (two client hosts; with the client's numbers it would fail).
 */
static void
test_backend_tuple_reuse(void **state)
{
	uint32_t isn_r, tsval_r, rcv_nxt, ts_recent, tsval, tsecr, isn2;
	struct sy_tcp_syn_opts o;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	uint16_t snat1;
	struct seg s;
	char body[100];

	w->tcp.port_q[0].count = 1; /* the FIFO gives the same port back */
	snat1 = open_spliced(41010, 0xf0000000u, 5000, &isn_r, &tsval_r);

	/* 99 more bytes, the client's clock 50 ms on, then its FIN. */
	memset(body, 'x', sizeof(body));
	advance_ms(50);
	s = (struct seg){ CLIENT, VIP, 41010, 80, 0xf0000000u + 1 + 34, isn_r + 1,
			  RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, 502, ts_opt(1052, tsval_r), 12, NULL };
	s.data = body; /* mk_seg takes a string: 99 bytes and the NUL */
	body[sizeof(body) - 1] = '\0';
	send_in(0, &s);
	m = take(1, &ip, &th);
	assert_true(sy_tcp_find_ts(th, &tsval, &tsecr));
	assert_int_equal(tsval, spliced_tsval_rb + 51); /* the handshake ACK's 1001 + 51 */
	rte_pktmbuf_free(m);
	s.seq += 99;
	s.data = NULL;
	s.flags = RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG;
	s.opts = ts_opt(1053, tsval_r);
	send_in(0, &s);
	m = take(1, &ip, &th);
	rcv_nxt = rte_be_to_cpu_32(th->sent_seq) + 1; /* what the backend expects next */
	assert_int_equal(rcv_nxt, spliced_isn_rb + 1 + 34 + 99 + 1);
	assert_true(sy_tcp_find_ts(th, &ts_recent, &tsecr));
	rte_pktmbuf_free(m);
	s = (struct seg){ BACKEND, SNAT, 8080, snat1, 5001, rcv_nxt,
			  RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG, 1000, ts_opt(50050, ts_recent), 12, NULL };
	send_in(1, &s);
	rte_pktmbuf_free(take(0, &ip, &th));
	advance_ms(2100); /* LINGER ends: the port is free again */
	assert_int_equal(w->counters.flows_active, 0);

	/* Another client: lower ISN, and its TS clock far behind the first's
	 * (handshake() stamps 1000/1001). */
	w->counters.conns_spliced = 0;
	w->counters.syn_cookies_sent = 0;
	isn_r = handshake(0x10, 41011, &tsval_r);
	s = (struct seg){ CLIENT, VIP, 41011, 80, 0x11, isn_r + 1, RTE_TCP_ACK_FLAG, 502,
			  ts_opt(1001, tsval_r), 12, "GET / HTTP/1.1\r\nHost: web.test\r\n\r\n" };
	send_in(0, &s);
	m = take(1, &ip, &th);
	assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG);
	assert_int_equal(rte_be_to_cpu_16(th->src_port), snat1); /* the same 4-tuple */
	isn2 = rte_be_to_cpu_32(th->sent_seq);
	assert_int_equal(sy_tcp_parse_syn_opts(th, &o), 0);
	rte_pktmbuf_free(m);
	assert_true(SEQ_GT(isn2, rcv_nxt));       /* RFC 6191 without timestamps */
	assert_true(SEQ_GT(o.tsval, ts_recent));  /* and with them */
	assert_int_equal(drops_total(), 0);
}

/*
 * The backend answers our SYN with an ACK of an older connection on the
 * tuple (a TIME_WAIT that refused it): an RST for that ACK (RFC 793,
 * <SEQ=SEG.ACK><CTL=RST>) and the same SYN again at once, twice at most
 * per endpoint; then its SYN-ACK splices as usual.
 */
static void
test_backend_stale_ack(void **state)
{
	const uint32_t isn_c = 4242;
	uint32_t isn_r, tsval_r, isn_rb;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	struct sent out;
	uint16_t snat;
	struct seg s;
	unsigned i, k;
	uint8_t opts[40];
	struct sy_tcp_syn_opts bo = { .mss = 1460, .wscale = 5, .sack_ok = true, .ts_ok = true,
				      .tsval = 50000, .tsecr = 1002 };
	unsigned olen = sy_tcp_write_syn_opts(opts, &bo);

	isn_r = handshake(isn_c, 41020, &tsval_r);
	s = (struct seg){ CLIENT, VIP, 41020, 80, isn_c + 1, isn_r + 1, RTE_TCP_ACK_FLAG, 502,
			  ts_opt(1002, tsval_r), 12, "GET / HTTP/1.1\r\nHost: web.test\r\n\r\n" };
	send_in(0, &s);
	m = take(1, &ip, &th);
	snat = rte_be_to_cpu_16(th->src_port);
	isn_rb = rte_be_to_cpu_32(th->sent_seq);
	rte_pktmbuf_free(m);

	for (i = 0; i < 3; i++) {
		s = (struct seg){ BACKEND, SNAT, 8080, snat, 777000 + i, 0x5a5a0000u + i,
				  RTE_TCP_ACK_FLAG, 502, ts_opt(40000, 900), 12, NULL };
		send_in(1, &s);
		memset(&out, 0, sizeof(out));
		collect(&out);
		assert_int_equal(out.n[0], 0);
		assert_int_equal(out.n[1], i < SY_STALE_ACK_TRIES ? 2 : 1);
		for (k = 0; k < out.n[1]; k++) {
			ip = (struct rte_ipv4_hdr *)(rte_pktmbuf_mtod(out.m[1][k], uint8_t *) + 14);
			th = (struct rte_tcp_hdr *)(ip + 1);
			assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, th), 0);
			assert_int_equal(ip->dst_addr, ip4(BACKEND));
			assert_int_equal(rte_be_to_cpu_16(th->src_port), snat);
			if (k == 0) { /* RST for the stale ACK, then the SYN again */
				assert_int_equal(th->tcp_flags, RTE_TCP_RST_FLAG);
				assert_int_equal(rte_be_to_cpu_32(th->sent_seq), 0x5a5a0000u + i);
			} else {
				assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG);
				assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_rb);
			}
			rte_pktmbuf_free(out.m[1][k]);
		}
		assert_int_equal(w->counters.backend_stale_acks, i + 1);
	}
	s = (struct seg){ BACKEND, SNAT, 8080, snat, 9000, isn_rb + 1,
			  RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG, 65160, opts, olen, NULL };
	send_in(1, &s);
	assert_int_equal(w->counters.conns_spliced, 1);
	m = take(1, &ip, &th); /* the held request */
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_rb + 1);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), 9001);
	rte_pktmbuf_free(m);
	assert_int_equal(drops_total(), 0);
	assert_int_equal(w->counters.conns_answered, 0);
}

/* ------------------------------------------------ flows_per_worker -- */

/* A worker whose table holds `flows` records (the config's flows_per_worker). */
static int
setup_flows(unsigned flows)
{
	sh->flows_per_worker = flows;
	return setup(NULL);
}

static int
setup_1024(void **state)
{
	return setup_flows(1024);
}

static int
setup_70000(void **state)
{
	return setup_flows(70000);
}

static int
teardown_flows(void **state)
{
	sh->flows_per_worker = SY_FLOWS_PER_WORKER_DEFAULT;
	return teardown(state);
}

/* SYN from CLIENT:sport, the cookie SYN-ACK taken; returns the cookie ISN. */
static uint32_t
syn_cookie(uint16_t sport, uint32_t isn_c, uint32_t *tsval_r)
{
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	struct sy_tcp_syn_opts o;
	struct rte_mbuf *m;
	uint32_t isn_r;
	struct seg s = { CLIENT, VIP, sport, 80, isn_c, 0, RTE_TCP_SYN_FLAG, 64240, NULL, 0, NULL };

	s.optlen = client_syn_opts(1000);
	s.opts = syn_opts;
	send_in(0, &s);
	m = take(0, &ip, &th);
	assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
	assert_int_equal(sy_tcp_parse_syn_opts(th, &o), 0);
	isn_r = rte_be_to_cpu_32(th->sent_seq);
	*tsval_r = o.tsval;
	rte_pktmbuf_free(m);
	return isn_r;
}

/* One client segment of a hand-made record through the fast path: it
 * reaches the backend from the record's SNAT port. */
static void
expect_forwarded(const struct sy_conn *c, uint16_t sport)
{
	struct seg s = { CLIENT, VIP, sport, 80, 1000, 2000, RTE_TCP_ACK_FLAG, 500, NULL, 0, "x" };
	struct rte_mbuf *b = mk_seg(&s, 0);
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;

	sy_splice_rx_burst(w, 0, &b, 1);
	m = take(1, &ip, &th);
	assert_int_equal(ip->dst_addr, ip4(BACKEND));
	assert_int_equal(th->src_port, c->snat_port);
	rte_pktmbuf_free(m);
}

/*
 * flows_per_worker 1024: one connection opened through the real path and
 * 1023 more records fill the table. The next client's handshake ACK (with
 * its request) is refused and counted as flow_table_full, nothing is sent
 * and no record is taken; the open connections still forward. Once one
 * closes, the same client's retransmission opens its connection.
 */
static void
test_flow_table_full(void **state)
{
	static struct sy_conn *c[1023];
	const char *req = "GET / HTTP/1.1\r\nHost: web.test\r\n\r\n";
	uint32_t isn_r, tsval_r, isn_r2, tsval_r2;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	struct seg s;
	unsigned i;

	assert_int_equal(w->tcp.conns.n, 1024);
	assert_int_equal(w->tcp.cache_mask + 1, 2048);
	(void)open_spliced(41020, 0x1000, 5000, &isn_r, &tsval_r);
	for (i = 0; i < RTE_DIM(c); i++)
		c[i] = spliced_record(CLIENT, (uint16_t)(43000 + i));
	assert_int_equal(w->counters.flows_active, 1024);
	assert_null(sy_conn_alloc(w));

	/* The next one: its SYN still gets a cookie (no state), its ACK is
	 * refused, counted, and leaves nothing behind. */
	isn_r2 = syn_cookie(42000, 0x7000, &tsval_r2);
	s = (struct seg){ CLIENT, VIP, 42000, 80, 0x7001, isn_r2 + 1, RTE_TCP_ACK_FLAG, 502,
			  ts_opt(1001, tsval_r2), 12, req };
	send_in(0, &s);
	expect_nothing_sent();
	assert_int_equal(w->counters.drops[SY_DROP_FLOW_TABLE_FULL], 1);
	assert_int_equal(drops_total(), 1);
	assert_int_equal(w->counters.flows_active, 1024);
	send_in(0, &s); /* the client's retransmission: refused again */
	expect_nothing_sent();
	assert_int_equal(w->counters.drops[SY_DROP_FLOW_TABLE_FULL], 2);

	/* The open ones are untouched: the real one forwards data... */
	s = (struct seg){ CLIENT, VIP, 41020, 80, 0x1000 + 1 + 34, isn_r + 1,
			  RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, 502, ts_opt(1003, tsval_r), 12, "more" };
	send_in(0, &s);
	m = take(1, &ip, &th);
	assert_int_equal(payload_len(ip, th), 4);
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), spliced_isn_rb + 1 + 34);
	rte_pktmbuf_free(m);
	/* ...and so do the first and last of the others. */
	expect_forwarded(c[0], 43000);
	expect_forwarded(c[RTE_DIM(c) - 1], (uint16_t)(43000 + RTE_DIM(c) - 1));
	assert_int_equal(w->counters.conns_spliced, 1);

	/* One closes: the refused client's next retransmission opens (the
	 * backend SYN goes out) and the table is full again. */
	sy_conn_free(w, c[500]);
	c[500] = NULL;
	assert_int_equal(w->counters.flows_active, 1023);
	s = (struct seg){ CLIENT, VIP, 42000, 80, 0x7001, isn_r2 + 1, RTE_TCP_ACK_FLAG, 502,
			  ts_opt(1004, tsval_r2), 12, req };
	send_in(0, &s);
	m = take(1, &ip, &th);
	assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG);
	assert_int_equal(ip->dst_addr, ip4(BACKEND));
	rte_pktmbuf_free(m);
	assert_int_equal(w->counters.flows_active, 1024);
	assert_int_equal(w->counters.drops[SY_DROP_FLOW_TABLE_FULL], 2);
	assert_int_equal(drops_total(), 2);
	assert_null(sy_conn_alloc(w));

	for (i = 0; i < RTE_DIM(c); i++)
		if (c[i] != NULL)
			sy_conn_free(w, c[i]);
}

/*
 * flows_per_worker 70000, past 65536 records and past the SNAT ports one
 * worker owns (64512 here): 3000 records with a client key only, then one
 * spliced record per SNAT port. Every record is found by its client key
 * and every backend leg by its port (no index wraps at 16 bits); the next
 * connection needs a SNAT port and is answered 503 snat_ports_exhausted,
 * counted, and the open flows still forward.
 */
static void
test_flows_past_snat_ports(void **state)
{
	const unsigned n_key = 3000, n_snat = (65536 - SY_SNAT_PORT_MIN);
	const char *req = "GET / HTTP/1.1\r\nHost: web.test\r\n\r\n";
	struct sy_conn **c = calloc(n_key + n_snat, sizeof(*c));
	uint32_t isn_r, tsval_r;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;
	struct sy_flow_key k;
	struct rte_mbuf *m;
	struct seg s;
	unsigned i;

	assert_non_null(c);
	assert_int_equal(w->tcp.conns.n, 70000);
	for (i = 0; i < n_key; i++) {
		c[i] = sy_conn_alloc(w);
		assert_non_null(c[i]);
		c[i]->state = SY_CONN_LINGER;
		c[i]->client_ip = rte_cpu_to_be_32(0x0a000000u + i); /* 10.0.x.y */
		c[i]->vip = ip4(VIP);
		c[i]->client_port = RTE_BE16(1);
		c[i]->vip_port = RTE_BE16(80);
		sy_flow_key_v4(&k, c[i]->client_ip, c[i]->vip, c[i]->client_port, c[i]->vip_port);
		assert_int_equal(sy_flow_add(w, &k, c[i]), 0);
	}
	for (i = 0; i < n_snat; i++) {
		c[n_key + i] = spliced_record(CLIENT, (uint16_t)(SY_SNAT_PORT_MIN + i));
		assert_int_not_equal(c[n_key + i]->snat_port, 0);
		sy_flow_backend_add(w, c[n_key + i]);
	}
	{
		uint32_t a;

		assert_int_equal(sy_snat_get(w, &sh->ports[1], &a), 0);
	}
	assert_int_equal(w->counters.flows_active, n_key + n_snat);
	/* Records past index 65535 are in use, and every one is found. */
	assert_true(sy_conn_index(&w->tcp.conns, c[n_key + n_snat - 1]) >= 65536);
	for (i = 0; i < n_key + n_snat; i++) {
		bool from_client;

		sy_flow_key_v4(&k, c[i]->client_ip, c[i]->vip, c[i]->client_port, c[i]->vip_port);
		assert_ptr_equal(sy_flow_lookup(w, &k), c[i]);
		if (i >= n_key)
			assert_ptr_equal(sy_flow_find(w, c[i]->backend_ip, c[i]->snat_ip,
						      c[i]->backend_port, c[i]->snat_port, &from_client),
					 c[i]);
	}

	/* A new connection: a record is free, a SNAT port is not. */
	isn_r = syn_cookie(1000, 0x9000, &tsval_r);
	s = (struct seg){ CLIENT, VIP, 1000, 80, 0x9001, isn_r + 1, RTE_TCP_ACK_FLAG, 502,
			  ts_opt(1001, tsval_r), 12, req };
	send_in(0, &s);
	m = take(0, &ip, &th); /* the router's own 503 */
	assert_true(payload_len(ip, th) > 12);
	assert_memory_equal(payload(th), "HTTP/1.1 503", 12);
	rte_pktmbuf_free(m);
	assert_int_equal(w->counters.answers[SY_ANSWER_SNAT_PORTS_EXHAUSTED], 1);
	assert_int_equal(drops_total(), 0);
	/* The open flows: the last record (past 65535) still forwards. */
	expect_forwarded(c[n_key + n_snat - 1], (uint16_t)(SY_SNAT_PORT_MIN + n_snat - 1));

	for (i = 0; i < n_key + n_snat; i++)
		sy_conn_free(w, c[i]);
	free(c);
}

/* Two addresses on the backend port: a worker's backend legs come from
 * both in turn, each with its own FIFO of ports, so it holds twice as many
 * at once (2 x 64,512 with one worker); a leg is found by its (address,
 * port), the same port on the other address being another leg; a freed leg
 * gives its port back to its own address. */
static int
setup_two_snat(void **state)
{
	struct sy_dp_port *bp = &sh->ports[1];

	bp->ipv4[1] = ip4("198.18.1.2");
	bp->ipv4_mask[1] = bp->ipv4_mask[0];
	bp->n_ipv4 = 2;
	return setup_flows(140000);
}

static int
teardown_two_snat(void **state)
{
	sh->ports[1].n_ipv4 = 1;
	return teardown_flows(state);
}

static void
test_snat_two_addresses(void **state)
{
	const unsigned per_addr = 65536 - SY_SNAT_PORT_MIN;
	struct sy_conn **c = calloc(2 * per_addr, sizeof(*c));
	uint32_t a1 = ip4(SNAT), a2 = ip4("198.18.1.2"), a;
	unsigned i, n1 = 0, n2 = 0;
	bool from_client;

	assert_non_null(c);
	assert_int_equal(w->tcp.n_src, 2);
	for (i = 0; i < 2 * per_addr; i++) {
		uint16_t p;

		c[i] = sy_conn_alloc(w);
		assert_non_null(c[i]);
		c[i]->state = SY_CONN_SPLICED;
		p = sy_snat_get(w, &sh->ports[1], &c[i]->snat_ip);
		assert_int_not_equal(p, 0);
		/* In turn: .1, .2, .1, ... */
		assert_int_equal(c[i]->snat_ip, i % 2 ? a2 : a1);
		n1 += c[i]->snat_ip == a1;
		n2 += c[i]->snat_ip == a2;
		c[i]->snat_port = rte_cpu_to_be_16(p);
		c[i]->backend_ip = ip4(BACKEND);
		c[i]->backend_port = RTE_BE16(8080);
		sy_flow_backend_add(w, c[i]);
	}
	assert_int_equal(n1, per_addr);
	assert_int_equal(n2, per_addr);
	assert_int_equal(sy_snat_get(w, &sh->ports[1], &a), 0);
	/* The first two legs share a port on different addresses. */
	assert_int_equal(c[0]->snat_port, c[1]->snat_port);
	for (i = 0; i < 2 * per_addr; i++)
		assert_ptr_equal(sy_flow_find(w, c[i]->backend_ip, c[i]->snat_ip, c[i]->backend_port,
					      c[i]->snat_port, &from_client),
				 c[i]);
	assert_false(from_client);
	/* A one-address port (the client side) gets only index 0. */
	sy_conn_free(w, c[1]); /* .2's port back to .2 */
	sy_conn_free(w, c[0]); /* .1's port back to .1 */
	assert_int_not_equal(sy_snat_get(w, &sh->ports[0], &a), 0);
	assert_int_equal(a, sh->ports[0].ipv4[0]);
	assert_int_equal(sy_snat_get(w, &sh->ports[0], &a), 0);
	assert_int_not_equal(sy_snat_get(w, &sh->ports[1], &a), 0);
	assert_int_equal(a, a2);
	for (i = 2; i < 2 * per_addr; i++)
		sy_conn_free(w, c[i]);
	free(c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_splice_lifecycle_wraps, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_host_answer, setup, teardown),
		cmocka_unit_test_setup_teardown(test_forged_ack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tsc_jump_keeps_spliced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_tsc_jump_raw_closes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_client_closes_empty, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backend_tuple_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_backend_stale_ack, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_matches_slow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_fin_mid_burst, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_arp_unresolved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flow_cache_pair_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flow_cache_refill_after_eviction, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flow_cache_put_once, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path_csum_random, setup, teardown),
		cmocka_unit_test_setup_teardown(test_flow_table_full, setup_1024, teardown_flows),
		cmocka_unit_test_setup_teardown(test_flows_past_snat_ports, setup_70000,
						teardown_flows),
		cmocka_unit_test_setup_teardown(test_snat_two_addresses, setup_two_snat,
						teardown_two_snat),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
