/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An h2 connection's client output batched over one RX burst
 * (dataplane/proxy/px_out.c), through a worker's real input
 * (sy_splice_rx_burst) with crafted frames: a client speaks h2c with prior
 * knowledge to px.test (proxied), asks two streams at once, and the router
 * opens an HTTP/1.1 backend leg for each. Then:
 *   - both backends' responses in one burst: one segment to the client
 *     holds both streams' HEADERS and DATA;
 *   - the same responses in two bursts: a segment each (nothing waits for a
 *     later burst);
 *   - a PING answered at the end of its burst; a PING and the client's
 *     reset in one burst: the connection, listed for output, is freed
 *     before the burst's end and the list lets go of it (nothing is sent,
 *     every record goes, the timers find nothing freed).
 */
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
#include <rte_tcp.h>

#include "config/config_h2.h"
#include "conn/conn.h"
#include "dp_env.h"
#include "proxy/px_h2.h"
#include "splice/splice.h"
#include "test_eal.h"
#include "worker.h"

#define CLIENT_PORT 40000
#define BACKEND_PORT 8080
#define CLIENT_ISN 1000u
#define BACKEND_ISN 7000u

static struct sy_test_dp env;

/* A frame the router sent: its TCP header fields and payload. */
struct out {
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	unsigned len;
	uint8_t data[2048];
};

/* Take every frame queued on port p (checksums checked), up to max. */
static unsigned
take_all(unsigned p, struct out *o, unsigned max)
{
	struct sy_txq *q = &env.w->txq[p];
	unsigned i, n = 0;

	for (i = 0; i < q->n; i++) {
		static uint8_t buf[4096];
		struct rte_mbuf *m = q->pkts[i];
		const struct rte_ether_hdr *eh;
		const struct rte_ipv4_hdr *ip;
		const struct rte_tcp_hdr *th;
		unsigned ihl, thl, len;

		/* Chains (a header mbuf before the data's): one flat copy. */
		assert_true(m->pkt_len <= sizeof(buf));
		eh = rte_pktmbuf_read(m, 0, m->pkt_len, buf);
		assert_non_null(eh);
		ip = (const struct rte_ipv4_hdr *)(eh + 1);
		if (eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
		    ip->next_proto_id != IPPROTO_TCP) {
			rte_pktmbuf_free(m);
			continue;
		}
		ihl = rte_ipv4_hdr_len(ip);
		th = (const struct rte_tcp_hdr *)((const uint8_t *)ip + ihl);
		thl = (th->data_off >> 4) * 4u;
		len = rte_be_to_cpu_16(ip->total_length) - ihl - thl;
		assert_int_equal(rte_raw_cksum(ip, ihl), 0xffff);
		assert_int_equal(rte_ipv4_udptcp_cksum_verify(ip, th), 0);
		assert_true(n < max);
		assert_true(len <= sizeof(o[n].data));
		o[n].sport = rte_be_to_cpu_16(th->src_port);
		o[n].dport = rte_be_to_cpu_16(th->dst_port);
		o[n].seq = rte_be_to_cpu_32(th->sent_seq);
		o[n].ack = rte_be_to_cpu_32(th->recv_ack);
		o[n].flags = th->tcp_flags;
		o[n].len = len;
		memcpy(o[n].data, (const uint8_t *)th + thl, len);
		n++;
		rte_pktmbuf_free(m);
	}
	q->n = 0;
	q->bytes = 0;
	return n;
}

static struct rte_mbuf *
seg(unsigned port, uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags,
    const void *data, unsigned len)
{
	static const uint8_t mss[] = { 2, 4, 0x05, 0xb4 };
	const bool client = port == 0;
	struct sy_test_seg t = {
		.saddr = sy_test_ip4(client ? SY_TEST_CLIENT : SY_TEST_BACKEND),
		.daddr = sy_test_ip4(client ? SY_TEST_VIP : SY_TEST_SNAT),
		.sport = rte_cpu_to_be_16(sport), .dport = rte_cpu_to_be_16(dport),
		.seq = seq, .ack = ack, .flags = flags, .win = 65535,
		.opts = (flags & RTE_TCP_SYN_FLAG) ? mss : NULL,
		.optlen = (flags & RTE_TCP_SYN_FLAG) ? sizeof(mss) : 0,
		.data = data, .len = len,
	};
	struct rte_mbuf *m = sy_test_frame(env.mp, port, &t);

	assert_non_null(m);
	return m;
}

static void
burst(unsigned port, struct rte_mbuf **m, uint16_t n)
{
	sy_splice_rx_burst(env.w, (uint16_t)port, m, n);
}

/* An h2c connection with two streams open, each on its backend leg. */
struct scene {
	uint32_t r_isn;          /* the router's ISN towards the client */
	uint32_t c_nxt;          /* the client's next sequence number */
	uint16_t snat[2];        /* the backend legs' SNAT ports */
	uint32_t req_end[2];     /* the router's next sequence number on each */
};

/* The client's bytes: preface, SETTINGS, then a HEADERS frame (END_STREAM,
 * END_HEADERS) for streams 1 and 3: GET http://px.test/ in HPACK's static
 * table (:method GET, :scheme http, :path /) and :authority a literal
 * without indexing. */
static unsigned
client_hello(uint8_t *b)
{
	static const uint8_t block[] = { 0x82, 0x86, 0x84, 0x01, 0x07, 'p', 'x', '.', 't', 'e', 's', 't' };
	static const uint8_t settings[] = { 0, 0, 0, 4, 0, 0, 0, 0, 0 };
	unsigned n = SY_H2_PREFACE_LEN, s;

	memcpy(b, SY_H2_PREFACE, SY_H2_PREFACE_LEN);
	memcpy(b + n, settings, sizeof(settings));
	n += sizeof(settings);
	for (s = 1; s <= 3; s += 2) {
		const uint8_t hd[9] = { 0, 0, sizeof(block), 1, 0x05, 0, 0, 0, (uint8_t)s };

		memcpy(b + n, hd, sizeof(hd));
		memcpy(b + n + sizeof(hd), block, sizeof(block));
		n += sizeof(hd) + sizeof(block);
	}
	return n;
}

static void
open_scene(struct scene *sc, uint16_t cport)
{
	struct out o[16];
	uint8_t hello[128];
	unsigned n, i, k = 0, hl = client_hello(hello);
	struct rte_mbuf *m;

	memset(sc, 0, sizeof(*sc));
	m = seg(0, cport, 80, CLIENT_ISN, 0, RTE_TCP_SYN_FLAG, NULL, 0);
	burst(0, &m, 1);
	n = take_all(0, o, 16);
	assert_int_equal(n, 1);
	assert_int_equal(o[0].flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG),
			 RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
	sc->r_isn = o[0].seq;
	sc->c_nxt = CLIENT_ISN + 1;
	m = seg(0, cport, 80, sc->c_nxt, sc->r_isn + 1, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, hello,
		hl);
	burst(0, &m, 1);
	sc->c_nxt += hl;
	take_all(0, o, 16); /* the server's SETTINGS and its ACK of ours */
	/* The two streams' backend SYNs. */
	n = take_all(1, o, 16);
	for (i = 0; i < n; i++)
		if ((o[i].flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) == RTE_TCP_SYN_FLAG) {
			assert_true(k < 2);
			assert_int_equal(o[i].dport, BACKEND_PORT);
			sc->snat[k] = o[i].sport;
			m = seg(1, BACKEND_PORT, o[i].sport, BACKEND_ISN, o[i].seq + 1,
				RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG, NULL, 0);
			burst(1, &m, 1);
			k++;
		}
	assert_int_equal(k, 2);
	/* Each leg's HTTP/1.1 request. */
	n = take_all(1, o, 16);
	for (i = 0; i < n; i++) {
		if (o[i].len == 0)
			continue;
		assert_memory_equal(o[i].data, "GET / HTTP/1.1\r\n", 16);
		for (k = 0; k < 2; k++)
			if (o[i].sport == sc->snat[k])
				sc->req_end[k] = o[i].seq + o[i].len;
	}
	assert_int_not_equal(sc->req_end[0], 0);
	assert_int_not_equal(sc->req_end[1], 0);
}

static struct rte_mbuf *
response(const struct scene *sc, unsigned k)
{
	static const char r[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";

	return seg(1, BACKEND_PORT, sc->snat[k], BACKEND_ISN + 1, sc->req_end[k],
		   RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, r, sizeof(r) - 1);
}

/* The h2 frames of one segment's payload: HEADERS and DATA by stream. */
static void
count_frames(const struct out *o, unsigned *headers, unsigned *data)
{
	unsigned at = 0;

	while (at + 9 <= o->len) {
		unsigned len = (unsigned)o->data[at] << 16 | (unsigned)o->data[at + 1] << 8 |
			       o->data[at + 2];
		uint8_t type = o->data[at + 3];
		uint32_t sid = ((uint32_t)o->data[at + 5] & 0x7f) << 24 |
			       (uint32_t)o->data[at + 6] << 16 | (uint32_t)o->data[at + 7] << 8 |
			       o->data[at + 8];

		if (sid == 1 || sid == 3) {
			if (type == 1)
				headers[sid / 2]++;
			else if (type == 0)
				data[sid / 2]++;
		}
		at += 9 + len;
	}
	assert_int_equal(at, o->len); /* whole frames */
}

static unsigned
client_segments(struct out *o, unsigned max)
{
	unsigned n = take_all(0, o, max), i, k = 0;

	for (i = 0; i < n; i++)
		if (o[i].len > 0)
			o[k++] = o[i];
	take_all(1, o + k, max - k); /* the backends' ACKs, if any, are not looked at */
	return k;
}

static void
test_one_burst_one_segment(void **state)
{
	struct out o[8];
	unsigned headers[2] = { 0, 0 }, data[2] = { 0, 0 };
	struct rte_mbuf *m[2];
	struct scene sc;

	(void)state;
	open_scene(&sc, CLIENT_PORT);
	m[0] = response(&sc, 0);
	m[1] = response(&sc, 1);
	burst(1, m, 2);
	assert_int_equal(client_segments(o, 8), 1);
	count_frames(&o[0], headers, data);
	assert_int_equal(headers[0], 1);
	assert_int_equal(headers[1], 1);
	assert_int_equal(data[0], 1);
	assert_int_equal(data[1], 1);
	/* Nothing is left waiting for a later burst. */
	assert_int_equal(env.w->tcp.n_px_out, 0);
	assert_false(env.w->tcp.px_out_open);
}

static void
test_two_bursts_two_segments(void **state)
{
	struct out o[8];
	unsigned headers[2] = { 0, 0 }, data[2] = { 0, 0 };
	struct rte_mbuf *m;
	struct scene sc;
	unsigned k;

	(void)state;
	open_scene(&sc, CLIENT_PORT + 1);
	for (k = 0; k < 2; k++) {
		m = response(&sc, k);
		burst(1, &m, 1);
		/* Sent at the end of its own burst. */
		assert_int_equal(client_segments(o, 8), 1);
		count_frames(&o[0], headers, data);
		/* one stream's response in each (which leg is which stream
		 * is the router's choice) */
		assert_int_equal(headers[0] + headers[1], k + 1);
		assert_int_equal(data[0] + data[1], k + 1);
	}
	assert_int_equal(headers[0], 1);
	assert_int_equal(headers[1], 1);
}

static void
test_freed_in_its_burst(void **state)
{
	static const uint8_t ping[] = { 0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct sy_worker *w = env.w;
	struct out o[8];
	struct rte_mbuf *m[2];
	struct scene sc;
	uint64_t before = w->counters.flows_active;
	unsigned i;

	(void)state;
	open_scene(&sc, CLIENT_PORT + 2);
	assert_true(w->counters.flows_active >= before + 3);
	/* A PING (its ACK is the connection's output, left for the burst's
	 * end), then the client's reset in the same burst: the connection
	 * and its streams go before the end, and the list lets go of it. */
	m[0] = seg(0, CLIENT_PORT + 2, 80, sc.c_nxt, sc.r_isn + 1, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
		   ping, sizeof(ping));
	m[1] = seg(0, CLIENT_PORT + 2, 80, sc.c_nxt + sizeof(ping), 0, RTE_TCP_RST_FLAG, NULL, 0);
	burst(0, m, 2);
	assert_int_equal(client_segments(o, 8), 0);
	assert_int_equal(w->tcp.n_px_out, 0);
	/* Every record goes (the backend legs reset, the client's freed), and
	 * the timers find nothing freed in their wheel. */
	for (i = 0; i < 100 && w->counters.flows_active != before; i++) {
		w->now += sy_ms_to_tsc(w, 100);
		sy_conn_timers_run(w);
		take_all(0, o, 8);
		take_all(1, o, 8);
	}
	assert_int_equal(w->counters.flows_active, before);
}

/* The same PING without the reset: answered, at the burst's end. */
static void
test_ping_answered(void **state)
{
	static const uint8_t ping[] = { 0, 0, 8, 6, 0, 0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8 };
	struct out o[8];
	struct rte_mbuf *m;
	struct scene sc;

	(void)state;
	open_scene(&sc, CLIENT_PORT + 3);
	m = seg(0, CLIENT_PORT + 3, 80, sc.c_nxt, sc.r_isn + 1, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
		ping, sizeof(ping));
	burst(0, &m, 1);
	assert_int_equal(client_segments(o, 8), 1);
	assert_int_equal(o[0].len, sizeof(ping));
	assert_int_equal(o[0].data[3], 6);    /* PING */
	assert_int_equal(o[0].data[4], 1);    /* ACK */
	assert_memory_equal(o[0].data + 9, ping + 9, 8);
}

/* A fresh worker for each test: no backend leg kept from the last one
 * (the idle pool would carry the next requests on them). */
static int
setup(void **state)
{
	(void)state;
	return sy_test_dp_worker(&env);
}

static int
teardown(void **state)
{
	(void)state;
	return sy_test_dp_worker_free(&env) == 0 ? 0 : -1;
}

int
main(void)
{
	struct sy_h2_config h2;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_one_burst_one_segment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_bursts_two_segments, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ping_answered, setup, teardown),
		cmocka_unit_test_setup_teardown(test_freed_in_its_burst, setup, teardown),
	};
	int rc;

	if (sy_test_dp_init(&env, "h2_out", 4095) < 0)
		return 1;
	sy_config_h2_defaults(&h2);
	sy_dp_h2_configure(&h2);
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_dp_fini(&env);
	return rc;
}
