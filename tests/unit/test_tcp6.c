/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP over IPv6 through a worker's real input path (sy_eth_input) with
 * crafted frames, on the in-process data plane (tests/lib/dp_env.h: the
 * client port has 2001:2::1/64, the backends are IPv4):
 *   - SYN cookies over IPv6: the SYN-ACK's addresses, MSS (20 bytes less
 *     than over IPv4) and checksum; the ACK opens a record whose IPv6
 *     addresses are in its IPv6 side; the same cookie from another address
 *     is refused;
 *   - a spliced connection across the families: the held request goes to
 *     the IPv4 backend, the backend's answer comes back as IPv6, every
 *     checksum checked against a reference computed here byte by byte (RFC
 *     1071 over the pseudo-header of each family), sequence numbers and
 *     timestamps translated as within IPv4, the backend SYN's MSS what the
 *     IPv6 client can take over an IPv4 path;
 *   - the router's own answer (503 for an unknown host) over IPv6;
 *   - a SYN behind extension headers, which are taken out before TCP;
 *   - IPv6 backends: an IPv4 and an IPv6 client spliced to one;
 *   - Packet Too Big: passed on to a spliced connection's IPv4 endpoint as
 *     "fragmentation needed", a proxied leg's MSS lowered;
 *   - the burst fast path (splice_fast.c) on spliced records with an IPv6
 *     leg, 6to6, 6to4 and 4to6 both ways: byte for byte what the per-packet
 *     path sends, checksums right by the reference; a frame with an
 *     extension header left to the per-packet path;
 *   - the record arena's slots with an IPv6 port: each record's IPv6 side
 *     in the other half of its slot, overlapping no record.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <cmocka.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_tcp.h>

#include "conn/conn.h"
#include "dp_env.h"
#include "net/fib.h"
#include "net/neigh.h"
#include "net/net.h"
#include "proxy/proxy.h"
#include "splice/splice.h"
#include "tcp/tcp_opts.h"
#include "test_eal.h"
#include "worker.h"

static struct sy_test_dp env;
static struct sy_worker *w;

static void
ip6(const char *s, uint8_t out[16])
{
	assert_int_equal(inet_pton(AF_INET6, s, out), 1);
}

static uint32_t
ip4(const char *s)
{
	return sy_test_ip4(s);
}

/* ---- the reference: RFC 1071 byte by byte, no code shared with routerd ---- */

static uint32_t
sum_bytes(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sum += i % 2 == 0 ? (uint32_t)p[i] << 8 : p[i];
	return sum;
}

static uint16_t
fold(uint32_t sum)
{
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

/* The TCP segment at tcp (len bytes) with its checksum field, under an
 * IPv6 (v6) or IPv4 pseudo-header from the header at l3: 0xffff when right. */
static uint16_t
ref_tcp_sum(const uint8_t *l3, bool v6, const uint8_t *tcp, uint32_t len)
{
	uint32_t sum;

	if (v6) {
		sum = sum_bytes(0, l3 + 8, 32);
		sum += len >> 16;
		sum += len & 0xffff;
	} else {
		sum = sum_bytes(0, l3 + 12, 8);
		sum += len;
	}
	sum += IPPROTO_TCP;
	return fold(sum_bytes(sum, tcp, len));
}

/* ---- frames ---- */

struct seg6 {
	const char *src;
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	const uint8_t *opts;
	unsigned optlen;
	const char *data;
	const char *dst; /* NULL: 2001:2::1, the client port's */
	unsigned port;   /* 0: from the client side; 1: a backend's */
};

/* A segment over IPv6 to the router, its checksum from the reference. */
static struct rte_mbuf *
mk6(const struct seg6 *s)
{
	unsigned len = s->data ? (unsigned)strlen(s->data) : 0;
	unsigned tlen = 20 + s->optlen + len;
	struct rte_mbuf *m = rte_pktmbuf_alloc(env.mp);
	struct rte_ether_hdr *eh;
	struct rte_ipv6_hdr *ip;
	struct rte_tcp_hdr *th;
	uint16_t c;

	assert_non_null(m);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)(sizeof(*eh) + 40 + tlen));
	assert_non_null(eh);
	eh->dst_addr = sy_test_mac_port[s->port];
	eh->src_addr = s->port == 0 ? sy_test_mac_client : sy_test_mac_backend;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(eh + 1);
	memset(ip, 0, sizeof(*ip));
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)tlen);
	ip->proto = IPPROTO_TCP;
	ip->hop_limits = 64;
	ip6(s->src, ip->src_addr);
	ip6(s->dst != NULL ? s->dst : SY_TEST_VIP6, ip->dst_addr);
	th = (struct rte_tcp_hdr *)(ip + 1);
	memset(th, 0, sizeof(*th));
	th->src_port = rte_cpu_to_be_16(s->sport);
	th->dst_port = rte_cpu_to_be_16(s->dport);
	th->sent_seq = rte_cpu_to_be_32(s->seq);
	th->recv_ack = rte_cpu_to_be_32(s->ack);
	th->data_off = (uint8_t)(((20 + s->optlen) / 4) << 4);
	th->tcp_flags = s->flags;
	th->rx_win = RTE_BE16(s->port == 0 ? 502 : 1000);
	/* (memcpy with a NULL source is undefined even for 0 bytes.) */
	if (s->optlen > 0)
		memcpy(th + 1, s->opts, s->optlen);
	if (len > 0)
		memcpy((uint8_t *)(th + 1) + s->optlen, s->data, len);
	c = (uint16_t)~ref_tcp_sum((const uint8_t *)ip, true, (const uint8_t *)th, tlen);
	th->cksum = rte_cpu_to_be_16(c);
	return m;
}

/* A backend segment over IPv4 (checksums by dp_env, rte_ip's). */
static struct rte_mbuf *
mk4_backend(uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags, const uint8_t *opts,
	    unsigned optlen, const char *data)
{
	struct sy_test_seg t = {
		.saddr = ip4(SY_TEST_BACKEND), .daddr = ip4(SY_TEST_SNAT),
		.sport = RTE_BE16(8080), .dport = dport,
		.seq = seq, .ack = ack, .flags = flags, .win = 1000,
		.opts = opts, .optlen = optlen,
		.data = data, .len = data ? (unsigned)strlen(data) : 0,
	};
	struct rte_mbuf *m = sy_test_frame(env.mp, 1, &t);

	assert_non_null(m);
	return m;
}

/* What went out on port: its one frame, its family as expected, the TCP
 * checksum right by the reference. Returns the TCP header; *l3 its IP header. */
static struct rte_tcp_hdr *
sent(unsigned port, bool v6, uint8_t **l3, uint32_t *payload, struct rte_mbuf **out)
{
	struct sy_txq *q = &w->txq[port];
	struct rte_ether_hdr *eh;
	struct rte_tcp_hdr *th;
	uint32_t tlen, hl;

	if (q->n != 1)
		fail_msg("port %u: expected one frame to send, have %u", port, q->n);
	*out = q->pkts[0];
	q->n = 0;
	assert_true(rte_pktmbuf_is_contiguous(*out));
	eh = rte_pktmbuf_mtod(*out, struct rte_ether_hdr *);
	assert_memory_equal(&eh->dst_addr, port == 0 ? &sy_test_mac_client : &sy_test_mac_backend, 6);
	*l3 = (uint8_t *)(eh + 1);
	if (v6) {
		assert_int_equal(eh->ether_type, RTE_BE16(RTE_ETHER_TYPE_IPV6));
		assert_int_equal((*l3)[0] >> 4, 6);
		assert_int_equal((*l3)[6], IPPROTO_TCP);
		tlen = (uint32_t)((*l3)[4] << 8 | (*l3)[5]);
		hl = 40;
	} else {
		assert_int_equal(eh->ether_type, RTE_BE16(RTE_ETHER_TYPE_IPV4));
		assert_int_equal((*l3)[0], 0x45);
		assert_int_equal(fold(sum_bytes(0, *l3, 20)), 0xffff);
		tlen = (uint32_t)((*l3)[2] << 8 | (*l3)[3]) - 20;
		hl = 20;
	}
	assert_int_equal((*out)->pkt_len, sizeof(*eh) + hl + tlen);
	th = (struct rte_tcp_hdr *)(*l3 + hl);
	assert_int_equal(ref_tcp_sum(*l3, v6, (const uint8_t *)th, tlen), 0xffff);
	*payload = tlen - (th->data_off >> 4) * 4u;
	return th;
}

static void
assert_addr6(const uint8_t *a, const char *want)
{
	uint8_t b[16];

	ip6(want, b);
	assert_memory_equal(a, b, 16);
}

static int
group_setup(void **state)
{
	(void)state;
	return sy_test_dp_init(&env, "test_tcp6", 2047);
}

static int
group_teardown(void **state)
{
	(void)state;
	sy_test_dp_fini(&env);
	return 0;
}

static int
setup(void **state)
{
	(void)state;
	if (sy_test_dp_worker(&env) < 0)
		return -1;
	w = env.w;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	/* Every mbuf back in the pool: nothing held or leaked. */
	assert_int_equal(sy_test_dp_worker_free(&env), 0);
	w = NULL;
	return 0;
}

static uint8_t syn_opts[20];

/* SYN from src:sport, the cookie SYN-ACK checked; returns our ISN (the cookie)
 * and *tsval_r, our SYN-ACK's TSval. */
static uint32_t
handshake6(const char *src, uint16_t sport, uint32_t isn_c, uint32_t *tsval_r)
{
	struct sy_tcp_syn_opts o = { .mss = 1460, .wscale = 7, .sack_ok = true, .ts_ok = true,
				     .tsval = 1000 };
	struct seg6 s = { src, sport, 80, isn_c, 0, RTE_TCP_SYN_FLAG, syn_opts, 0, NULL };
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	uint32_t plen;
	uint8_t *l3;

	s.optlen = sy_tcp_write_syn_opts(syn_opts, &o);
	sy_eth_input(w, 0, mk6(&s));
	th = sent(0, true, &l3, &plen, &m);
	assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_c + 1);
	assert_addr6(l3 + 8, SY_TEST_VIP6);
	assert_addr6(l3 + 24, src);
	assert_int_equal(rte_be_to_cpu_16(th->src_port), 80);
	assert_int_equal(rte_be_to_cpu_16(th->dst_port), sport);
	assert_int_equal(plen, 0);
	assert_int_equal(sy_tcp_parse_syn_opts(th, &o), 0);
	/* What a 1500-byte IPv6 packet carries: 1500 - 40 - 20. */
	assert_int_equal(o.mss, 1440);
	assert_true(o.sack_ok && o.ts_ok);
	assert_int_equal(o.wscale, 7);
	assert_int_equal(o.tsecr, 1000);
	*tsval_r = o.tsval;
	isn_c = rte_be_to_cpu_32(th->sent_seq);
	rte_pktmbuf_free(m);
	return isn_c;
}

static uint8_t ts_buf[12];
static const uint8_t *
ts_opt(uint32_t tsval, uint32_t tsecr)
{
	sy_tcp_write_ts_opt(ts_buf, tsval, tsecr);
	return ts_buf;
}

/* The backend SYN the worker sent over IPv4 (one frame on port 1): its ISN,
 * its SNAT port (network order), and the MSS it carries. */
static uint16_t
take_backend_syn4(uint32_t *isn_rb, uint16_t *snat_port)
{
	struct sy_tcp_syn_opts o;
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	uint32_t plen;
	uint8_t *l3;

	th = sent(1, false, &l3, &plen, &m);
	assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG);
	assert_int_equal(((const struct rte_ipv4_hdr *)l3)->dst_addr, ip4(SY_TEST_BACKEND));
	assert_int_equal(sy_tcp_parse_syn_opts(th, &o), 0);
	*isn_rb = rte_be_to_cpu_32(th->sent_seq);
	*snat_port = th->src_port;
	rte_pktmbuf_free(m);
	return o.mss;
}

/* The IPv4 backend's SYN-ACK to it: MSS 1460, window scale 7, SACK, its
 * TS clock at 50000 echoing the client's 1001. */
static void
backend4_synack(uint16_t snat_port, uint32_t isn_b, uint32_t isn_rb)
{
	struct sy_tcp_syn_opts bo = { .mss = 1460, .wscale = 7, .sack_ok = true, .ts_ok = true,
				      .tsval = 50000, .tsecr = 1001 };
	uint8_t opts[40];
	unsigned olen = sy_tcp_write_syn_opts(opts, &bo);

	sy_eth_input(w, 1, mk4_backend(snat_port, isn_b, isn_rb + 1,
				       RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG, opts, olen, NULL));
}

/* The cookie opens a record only for the tuple it was made for. */
static void
test_cookie_v6(void **state)
{
	uint32_t tsval_r, isn_r = handshake6(SY_TEST_CLIENT6, 40000, 5000, &tsval_r);
	struct seg6 s = { "2001:2::3", 40000, 80, 5001, isn_r + 1, RTE_TCP_ACK_FLAG,
			  ts_opt(1001, tsval_r), 12, NULL };
	struct sy_conn *c;
	struct sy_flow_key6 k;
	uint8_t a[16], b[16];

	(void)state;
	assert_int_equal(w->counters.flows_active, 0); /* nothing kept for a SYN */
	/* Another address with the same numbers: the MAC covers all 16 bytes. */
	sy_eth_input(w, 0, mk6(&s));
	assert_int_equal(w->counters.drops[SY_DROP_TCP_COOKIE_INVALID], 1);
	assert_int_equal(w->counters.flows_active, 0);

	s.src = SY_TEST_CLIENT6;
	sy_eth_input(w, 0, mk6(&s));
	assert_int_equal(w->counters.flows_active, 1);
	ip6(SY_TEST_CLIENT6, a);
	ip6(SY_TEST_VIP6, b);
	sy_flow_key_v6(&k, a, b, RTE_BE16(40000), RTE_BE16(80));
	c = sy_flow_lookup6(w, &k);
	assert_non_null(c);
	assert_true(sy_conn_client_v6(c));
	assert_int_equal(c->state, SY_CONN_PEEK);
	assert_memory_equal(sy_conn_v6_of(&w->tcp, c)->client, a, 16);
	assert_memory_equal(sy_conn_v6_of(&w->tcp, c)->vip, b, 16);
	assert_int_equal(c->client_ip, sy_addr6_fold(a));
	/* The IPv4 record is what it was: two lines, the IPv6 side elsewhere. */
	assert_int_equal(sizeof(struct sy_conn), 128);
}

/* An IPv6 client spliced to an IPv4 backend, both ways. */
static void
test_splice_across_families(void **state)
{
	const char *req = "GET /x HTTP/1.1\r\nHost: web.test\r\n\r\n";
	const char *resp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
	uint32_t tsval_r, isn_r, isn_rb, plen, tsval, tsecr;
	struct seg6 s;
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	uint16_t snat_port;
	uint8_t *l3;
	const uint32_t isn_c = 0xfffffff0u, isn_b = 777;

	(void)state;
	isn_r = handshake6(SY_TEST_CLIENT6, 40001, isn_c, &tsval_r);
	s = (struct seg6){ SY_TEST_CLIENT6, 40001, 80, isn_c + 1, isn_r + 1, RTE_TCP_ACK_FLAG,
			   ts_opt(1001, tsval_r), 12, req };
	sy_eth_input(w, 0, mk6(&s));

	/* The backend SYN, over IPv4, with the MSS the IPv6 client takes. */
	assert_int_equal(take_backend_syn4(&isn_rb, &snat_port), 1440);
	backend4_synack(snat_port, isn_b, isn_rb);
	assert_int_equal(w->counters.conns_spliced, 1);

	/* The held request, now IPv4 from our SNAT address, intact. */
	th = sent(1, false, &l3, &plen, &m);
	assert_int_equal(((const struct rte_ipv4_hdr *)l3)->src_addr, ip4(SY_TEST_SNAT));
	assert_int_equal(((const struct rte_ipv4_hdr *)l3)->dst_addr, ip4(SY_TEST_BACKEND));
	assert_int_equal(((const struct rte_ipv4_hdr *)l3)->time_to_live, 64);
	assert_int_equal(th->src_port, snat_port);
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_rb + 1);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_b + 1);
	assert_int_equal(plen, strlen(req));
	assert_memory_equal((const uint8_t *)th + (th->data_off >> 4) * 4, req, plen);
	assert_true(sy_tcp_find_ts(th, &tsval, &tsecr));
	assert_int_equal(tsecr, 50000);
	rte_pktmbuf_free(m);

	/* The answer: IPv6 from the listen address to the client, in the
	 * client's sequence and timestamp spaces. */
	sy_eth_input(w, 1, mk4_backend(snat_port, isn_b + 1, isn_rb + 1 + (uint32_t)strlen(req),
				       RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, ts_opt(50010, tsval), 12,
				       resp));
	th = sent(0, true, &l3, &plen, &m);
	assert_addr6(l3 + 8, SY_TEST_VIP6);
	assert_addr6(l3 + 24, SY_TEST_CLIENT6);
	assert_int_equal(rte_be_to_cpu_16(th->src_port), 80);
	assert_int_equal(rte_be_to_cpu_16(th->dst_port), 40001);
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_r + 1);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_c + 1 + (uint32_t)strlen(req));
	assert_true(sy_tcp_find_ts(th, &tsval, &tsecr));
	assert_int_equal(tsval, tsval_r + 10);
	assert_int_equal(tsecr, 1001);
	assert_int_equal(plen, strlen(resp));
	assert_memory_equal((const uint8_t *)th + (th->data_off >> 4) * 4, resp, plen);
	rte_pktmbuf_free(m);

	/* The client's ACK of it, and the record's end with a RST. */
	s = (struct seg6){ SY_TEST_CLIENT6, 40001, 80, isn_c + 1 + (uint32_t)strlen(req),
			   isn_r + 1 + (uint32_t)strlen(resp), RTE_TCP_ACK_FLAG,
			   ts_opt(1002, tsval_r + 10), 12, NULL };
	sy_eth_input(w, 0, mk6(&s));
	th = sent(1, false, &l3, &plen, &m);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_b + 1 + (uint32_t)strlen(resp));
	rte_pktmbuf_free(m);
	s.flags = RTE_TCP_RST_FLAG | RTE_TCP_ACK_FLAG;
	sy_eth_input(w, 0, mk6(&s));
	rte_pktmbuf_free(sent(1, false, &l3, &plen, &m) ? m : m);
	w->now += env.sh->tsc_per_ms * 3000;
	sy_conn_timers_run(w);
	assert_int_equal(w->counters.flows_active, 0);
	assert_int_equal(w->counters.drops[SY_DROP_SPLICE_XLATE_FAILED], 0);
}

/* n 8-byte extension headers (n <= 2: hop-by-hop, then destination
 * options, each PadN over the rest) between m's fixed IPv6 header and TCP. */
static void
insert_ext_headers(struct rte_mbuf *m, unsigned n)
{
	static const uint8_t type[2] = { 0, 60 };
	uint8_t *p = (uint8_t *)rte_pktmbuf_prepend(m, (uint16_t)(8 * n)), *l3;
	uint16_t pl;
	unsigned i;

	if (p == NULL) {
		fail_msg("no headroom");
		return;
	}
	memmove(p, p + 8 * n, sizeof(struct rte_ether_hdr) + 40);
	l3 = p + sizeof(struct rte_ether_hdr);
	pl = (uint16_t)((l3[4] << 8 | l3[5]) + 8 * n);
	l3[4] = (uint8_t)(pl >> 8);
	l3[5] = (uint8_t)pl;
	l3[6] = type[0];
	for (i = 0; i < n; i++) {
		uint8_t *ext = l3 + 40 + 8 * i;

		ext[0] = i + 1 < n ? type[i + 1] : IPPROTO_TCP;
		ext[1] = 0;
		ext[2] = 1;
		ext[3] = 4;
		memset(ext + 4, 0, 4);
	}
}

/* A SYN behind a hop-by-hop and a destination options header: walked, taken
 * out, and answered like any SYN (the SYN-ACK carries no extension headers). */
static void
test_syn_ext_headers(void **state)
{
	struct sy_tcp_syn_opts o = { .mss = 1460, .wscale = 7, .sack_ok = true, .ts_ok = true,
				     .tsval = 1000 };
	struct seg6 s = { SY_TEST_CLIENT6, 40003, 80, 9000, 0, RTE_TCP_SYN_FLAG, syn_opts, 0, NULL };
	struct rte_mbuf *m, *in;
	struct rte_tcp_hdr *th;
	uint8_t *l3;
	uint32_t plen;

	(void)state;
	s.optlen = sy_tcp_write_syn_opts(syn_opts, &o);
	in = mk6(&s);
	/* A hop-by-hop then a destination options header. */
	insert_ext_headers(in, 2);
	sy_eth_input(w, 0, in);
	th = sent(0, true, &l3, &plen, &m);
	assert_int_equal(l3[6], IPPROTO_TCP);
	assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), 9001);
	rte_pktmbuf_free(m);
	assert_int_equal(w->counters.drops[SY_DROP_TCP_BAD_CHECKSUM], 0);
}

/* One spliced exchange to web6.test's IPv6 backend [2001:2:1::10]:8080 from
 * a client of either family: the backend SYN over IPv6 from our address on
 * the backend port, the request, the response back in the client's family,
 * every checksum right by the reference. */
static void
splice_to_v6_backend(bool client6, uint16_t sport)
{
	const char *req = "GET / HTTP/1.1\r\nHost: web6.test\r\n\r\n";
	const char *resp = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok";
	uint32_t tsval_r = 0, isn_r, isn_rb, plen, tsval, tsecr;
	const uint32_t isn_c = 3000, isn_b = 0xfffffff0u; /* the backend's wraps */
	struct sy_tcp_syn_opts o;
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	uint16_t snat_port;
	uint8_t *l3, opts[40];
	unsigned olen;

	if (client6) {
		struct seg6 s;

		isn_r = handshake6(SY_TEST_CLIENT6, sport, isn_c, &tsval_r);
		s = (struct seg6){ SY_TEST_CLIENT6, sport, 80, isn_c + 1, isn_r + 1, RTE_TCP_ACK_FLAG,
				   ts_opt(1001, tsval_r), 12, req };
		sy_eth_input(w, 0, mk6(&s));
	} else {
		struct sy_tcp_syn_opts co = { .mss = 1460, .wscale = 7, .sack_ok = true,
					      .ts_ok = true, .tsval = 1000 };
		struct sy_test_seg t = { .saddr = ip4(SY_TEST_CLIENT), .daddr = ip4(SY_TEST_VIP),
					 .sport = rte_cpu_to_be_16(sport), .dport = RTE_BE16(80),
					 .seq = isn_c, .flags = RTE_TCP_SYN_FLAG, .win = 64240 };

		t.optlen = sy_tcp_write_syn_opts(opts, &co);
		t.opts = opts;
		sy_eth_input(w, 0, sy_test_frame(env.mp, 0, &t));
		th = sent(0, false, &l3, &plen, &m);
		isn_r = rte_be_to_cpu_32(th->sent_seq);
		assert_int_equal(sy_tcp_parse_syn_opts(th, &o), 0);
		assert_int_equal(o.mss, 1460);
		tsval_r = o.tsval;
		rte_pktmbuf_free(m);
		t = (struct sy_test_seg){ .saddr = ip4(SY_TEST_CLIENT), .daddr = ip4(SY_TEST_VIP),
					  .sport = rte_cpu_to_be_16(sport), .dport = RTE_BE16(80),
					  .seq = isn_c + 1, .ack = isn_r + 1, .flags = RTE_TCP_ACK_FLAG,
					  .win = 502, .opts = ts_opt(1001, tsval_r), .optlen = 12,
					  .data = req, .len = (unsigned)strlen(req) };
		sy_eth_input(w, 0, sy_test_frame(env.mp, 0, &t));
	}

	/* The backend SYN: IPv6, from our address on the backend port, the
	 * MSS what a 1500-byte IPv6 path carries. */
	th = sent(1, true, &l3, &plen, &m);
	assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG);
	assert_addr6(l3 + 8, SY_TEST_SNAT6);
	assert_addr6(l3 + 24, SY_TEST_BACKEND6);
	assert_int_equal(rte_be_to_cpu_16(th->dst_port), 8080);
	assert_int_equal(sy_tcp_parse_syn_opts(th, &o), 0);
	assert_int_equal(o.mss, 1440);
	isn_rb = rte_be_to_cpu_32(th->sent_seq);
	snat_port = rte_be_to_cpu_16(th->src_port);
	rte_pktmbuf_free(m);

	{
		struct sy_tcp_syn_opts bo = { .mss = 1440, .wscale = 7, .sack_ok = true,
					      .ts_ok = true, .tsval = 50000, .tsecr = 1001 };

		olen = sy_tcp_write_syn_opts(opts, &bo);
	}
	{
		struct seg6 b = { SY_TEST_BACKEND6, 8080, snat_port, isn_b, isn_rb + 1,
				  RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG, opts, olen, NULL,
				  SY_TEST_SNAT6, 1 };

		sy_eth_input(w, 1, mk6(&b));
	}
	assert_int_equal(w->counters.conns_spliced, 1);
	th = sent(1, true, &l3, &plen, &m);
	assert_addr6(l3 + 8, SY_TEST_SNAT6);
	assert_int_equal(rte_be_to_cpu_16(th->src_port), snat_port);
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_rb + 1);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_b + 1);
	assert_int_equal(plen, strlen(req));
	assert_memory_equal((const uint8_t *)th + (th->data_off >> 4) * 4, req, plen);
	assert_true(sy_tcp_find_ts(th, &tsval, &tsecr));
	assert_int_equal(tsecr, 50000);
	rte_pktmbuf_free(m);

	{
		/* It echoes our backend leg's TSval. */
		struct seg6 b = { SY_TEST_BACKEND6, 8080, snat_port, isn_b + 1,
				  isn_rb + 1 + (uint32_t)strlen(req), RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
				  ts_opt(50010, tsval), 12, resp, SY_TEST_SNAT6, 1 };

		sy_eth_input(w, 1, mk6(&b));
	}
	th = sent(0, client6, &l3, &plen, &m);
	if (client6) {
		assert_addr6(l3 + 24, SY_TEST_CLIENT6);
	} else {
		assert_int_equal(((const struct rte_ipv4_hdr *)l3)->dst_addr, ip4(SY_TEST_CLIENT));
		assert_int_equal(((const struct rte_ipv4_hdr *)l3)->src_addr, ip4(SY_TEST_VIP));
	}
	assert_int_equal(rte_be_to_cpu_16(th->dst_port), sport);
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_r + 1);
	assert_int_equal(rte_be_to_cpu_32(th->recv_ack), isn_c + 1 + (uint32_t)strlen(req));
	assert_true(sy_tcp_find_ts(th, &tsval, &tsecr));
	assert_int_equal(tsval, tsval_r + 10);
	assert_int_equal(tsecr, 1001);
	assert_int_equal(plen, strlen(resp));
	assert_memory_equal((const uint8_t *)th + (th->data_off >> 4) * 4, resp, plen);
	rte_pktmbuf_free(m);
	assert_int_equal(w->counters.drops[SY_DROP_SPLICE_XLATE_FAILED], 0);
	assert_int_equal(w->counters.drops[SY_DROP_TCP_NO_FLOW], 0);
}

static void
test_v4_client_v6_backend(void **state)
{
	(void)state;
	splice_to_v6_backend(false, 40010);
}

static void
test_v6_client_v6_backend(void **state)
{
	(void)state;
	splice_to_v6_backend(true, 40011);
}

/* An ICMPv6 Packet Too Big from a router on the client's side (2001:2::fe)
 * to our address, quoting the first 60 bytes of a segment of ours. */
static struct rte_mbuf *
mk_ptb(uint32_t mtu, const uint8_t *quote, unsigned qlen)
{
	unsigned len = 8 + qlen;
	struct rte_mbuf *m = rte_pktmbuf_alloc(env.mp);
	struct rte_ether_hdr *eh;
	struct rte_ipv6_hdr *ip;
	uint8_t *icmp;
	uint32_t sum;
	uint16_t c;

	assert_non_null(m);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)(sizeof(*eh) + 40 + len));
	assert_non_null(eh);
	eh->dst_addr = sy_test_mac_port[0];
	eh->src_addr = sy_test_mac_client;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(eh + 1);
	memset(ip, 0, sizeof(*ip));
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)len);
	ip->proto = IPPROTO_ICMPV6;
	ip->hop_limits = 255;
	ip6("2001:2::fe", ip->src_addr);
	ip6(SY_TEST_VIP6, ip->dst_addr);
	icmp = (uint8_t *)(ip + 1);
	memset(icmp, 0, 8);
	icmp[0] = 2;
	icmp[4] = (uint8_t)(mtu >> 24);
	icmp[5] = (uint8_t)(mtu >> 16);
	icmp[6] = (uint8_t)(mtu >> 8);
	icmp[7] = (uint8_t)mtu;
	memcpy(icmp + 8, quote, qlen);
	sum = sum_bytes(0, ip->src_addr, 32) + (len & 0xffff) + IPPROTO_ICMPV6;
	c = (uint16_t)~fold(sum_bytes(sum, icmp, len));
	icmp[2] = (uint8_t)(c >> 8);
	icmp[3] = (uint8_t)c;
	return m;
}

/* A spliced connection, IPv6 client and IPv4 backend: a Packet Too Big for
 * the backend's data on its way to the client is passed to the backend as
 * ICMPv4 "fragmentation needed" with 20 bytes less, quoting its segment as
 * it sent it; one for a connection we do not have, or quoting no TCP of
 * ours, is dropped with its reason. */
static void
test_ptb_spliced(void **state)
{
	const char *req = "GET / HTTP/1.1\r\nHost: web.test\r\n\r\n";
	const uint32_t isn_c = 700, isn_b = 90000;
	uint32_t tsval_r, isn_r, isn_rb, plen, tsval, tsecr, sum;
	uint8_t *l3, quote[60];
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	uint16_t snat_port;
	struct seg6 s;

	(void)state;
	isn_r = handshake6(SY_TEST_CLIENT6, 40020, isn_c, &tsval_r);
	s = (struct seg6){ SY_TEST_CLIENT6, 40020, 80, isn_c + 1, isn_r + 1, RTE_TCP_ACK_FLAG,
			   ts_opt(1001, tsval_r), 12, req };
	sy_eth_input(w, 0, mk6(&s));
	take_backend_syn4(&isn_rb, &snat_port);
	backend4_synack(snat_port, isn_b, isn_rb);
	th = sent(1, false, &l3, &plen, &m); /* the request, on to the backend */
	assert_true(sy_tcp_find_ts(th, &tsval, &tsecr));
	rte_pktmbuf_free(m);
	sy_eth_input(w, 1, mk4_backend(snat_port, isn_b + 1, isn_rb + 1 + (uint32_t)strlen(req),
				       RTE_TCP_ACK_FLAG, ts_opt(50010, tsval), 12, "big"));
	th = sent(0, true, &l3, &plen, &m); /* its answer, to the client over IPv6 */
	assert_int_equal(rte_be_to_cpu_32(th->sent_seq), isn_r + 1);
	memcpy(quote, l3, sizeof(quote)); /* what a router on the way would quote */
	rte_pktmbuf_free(m);

	sy_eth_input(w, 0, mk_ptb(1400, quote, sizeof(quote)));
	assert_int_equal(w->counters.ptb_received, 1);
	assert_int_equal(w->counters.ptb_relayed, 1);
	{
		struct sy_txq *q = &w->txq[1];
		const uint8_t *ip, *icmp, *qip;

		assert_int_equal(q->n, 1);
		m = q->pkts[0];
		q->n = 0;
		ip = rte_pktmbuf_mtod_offset(m, const uint8_t *, sizeof(struct rte_ether_hdr));
		assert_int_equal(ip[9], IPPROTO_ICMP);
		assert_int_equal(fold(sum_bytes(0, ip, 20)), 0xffff);
		assert_memory_equal(ip + 12, &(uint32_t){ ip4(SY_TEST_SNAT) }, 4);
		assert_memory_equal(ip + 16, &(uint32_t){ ip4(SY_TEST_BACKEND) }, 4);
		icmp = ip + 20;
		assert_int_equal(icmp[0], 3); /* destination unreachable */
		assert_int_equal(icmp[1], 4); /* fragmentation needed (RFC 1191) */
		assert_int_equal(icmp[6] << 8 | icmp[7], 1380);
		sum = sum_bytes(0, icmp, (ip[2] << 8 | ip[3]) - 20u);
		assert_int_equal(fold(sum), 0xffff);
		/* The backend's own segment: from it to our SNAT address, its
		 * ports, its sequence number before translation. */
		qip = icmp + 8;
		assert_memory_equal(qip + 12, &(uint32_t){ ip4(SY_TEST_BACKEND) }, 4);
		assert_memory_equal(qip + 16, &(uint32_t){ ip4(SY_TEST_SNAT) }, 4);
		assert_int_equal(qip[20] << 8 | qip[21], 8080);
		assert_memory_equal(qip + 22, &snat_port, 2);
		assert_int_equal((uint32_t)qip[24] << 24 | qip[25] << 16 | qip[26] << 8 | qip[27],
				 isn_b + 1);
		rte_pktmbuf_free(m);
	}

	/* Quoting a port nobody uses: no connection. */
	quote[40 + 3] ^= 1;
	sy_eth_input(w, 0, mk_ptb(1400, quote, sizeof(quote)));
	assert_int_equal(w->counters.drops[SY_DROP_ICMP6_PTB_NO_FLOW], 1);
	/* Quoting UDP: nothing of ours. */
	quote[6] = IPPROTO_UDP;
	sy_eth_input(w, 0, mk_ptb(1400, quote, sizeof(quote)));
	assert_int_equal(w->counters.drops[SY_DROP_ICMP6_PTB_NOT_OURS], 1);
	assert_int_equal(w->counters.ptb_relayed, 1);
	assert_int_equal(w->txq[0].n + w->txq[1].n, 0);
}

/* A proxied IPv6 client leg: a Packet Too Big lowers its MSS to the MTU
 * less 60 (IPv6 and TCP headers) and its timestamp option's 12 bytes. */
static void
test_ptb_proxy(void **state)
{
	const char *req = "GET / HTTP/1.1\r\nHost: px.test\r\n\r\n";
	uint32_t tsval_r, isn_r = handshake6(SY_TEST_CLIENT6, 40021, 100, &tsval_r), plen;
	struct seg6 s = { SY_TEST_CLIENT6, 40021, 80, 101, isn_r + 1, RTE_TCP_ACK_FLAG,
			  ts_opt(1001, tsval_r), 12, req };
	struct sy_flow_key6 k;
	struct sy_conn *c;
	uint8_t *l3, quote[60], a[16], b[16];
	struct rte_mbuf *m;

	(void)state;
	sy_eth_input(w, 0, mk6(&s));
	sent(0, true, &l3, &plen, &m); /* our ACK of the request */
	memcpy(quote, l3, sizeof(quote));
	rte_pktmbuf_free(m);
	w->txq[1].n = 0;
	rte_pktmbuf_free(w->txq[1].pkts[0]); /* the backend SYN */
	ip6(SY_TEST_CLIENT6, a);
	ip6(SY_TEST_VIP6, b);
	sy_flow_key_v6(&k, a, b, RTE_BE16(40021), RTE_BE16(80));
	c = sy_flow_lookup6(w, &k);
	assert_non_null(c);
	assert_int_equal(c->state, SY_CONN_PROXY);
	/* Payload a segment: 1440 less the timestamp option's 12 bytes. */
	assert_int_equal(c->px->c.mss, 1428);
	sy_eth_input(w, 0, mk_ptb(1400, quote, sizeof(quote)));
	assert_int_equal(c->px->c.mss, 1400 - 60 - 12);
	assert_int_equal(w->counters.pmtu_lowered, 1);
	/* Below IPv6's minimum MTU: taken as 1280. */
	sy_eth_input(w, 0, mk_ptb(600, quote, sizeof(quote)));
	assert_int_equal(c->px->c.mss, 1280 - 60 - 12);
}

/* IPv6 backend legs take the backend port's IPv6 addresses in turn, as
 * IPv4 legs take its IPv4 ones (conn/snat.h): two connections to web6.test,
 * two sources. */
static void
test_v6_snat_addresses(void **state)
{
	const char *req = "GET / HTTP/1.1\r\nHost: web6.test\r\n\r\n";
	const char *want[2] = { SY_TEST_SNAT6, SY_TEST_SNAT6B };
	uint32_t tsval_r, isn_r, plen;
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	uint8_t *l3;
	unsigned i;

	(void)state;
	for (i = 0; i < 2; i++) {
		struct seg6 s;

		isn_r = handshake6(SY_TEST_CLIENT6, (uint16_t)(40030 + i), 100, &tsval_r);
		s = (struct seg6){ SY_TEST_CLIENT6, (uint16_t)(40030 + i), 80, 101, isn_r + 1,
				   RTE_TCP_ACK_FLAG, ts_opt(1001, tsval_r), 12, req };
		sy_eth_input(w, 0, mk6(&s));
		th = sent(1, true, &l3, &plen, &m);
		assert_int_equal(th->tcp_flags, RTE_TCP_SYN_FLAG);
		assert_addr6(l3 + 8, want[i]);
		rte_pktmbuf_free(m);
	}
}

/* The router's own answer reaches an IPv6 client. */
static void
test_answer_v6(void **state)
{
	uint32_t tsval_r, isn_r = handshake6(SY_TEST_CLIENT6, 40002, 100, &tsval_r), plen;
	struct seg6 s = { SY_TEST_CLIENT6, 40002, 80, 101, isn_r + 1, RTE_TCP_ACK_FLAG,
			  ts_opt(1001, tsval_r), 12, "GET / HTTP/1.1\r\nHost: nobody.test\r\n\r\n" };
	struct rte_tcp_hdr *th;
	struct rte_mbuf *m;
	uint8_t *l3;

	(void)state;
	sy_eth_input(w, 0, mk6(&s));
	th = sent(0, true, &l3, &plen, &m);
	assert_addr6(l3 + 24, SY_TEST_CLIENT6);
	assert_true(plen > 12);
	assert_memory_equal((const uint8_t *)th + (th->data_off >> 4) * 4, "HTTP/1.1 503", 12);
	rte_pktmbuf_free(m);
	assert_int_equal(w->counters.conns_answered, 1);
}

/* ---- the burst fast path against the per-packet path ---- */

/* The gateways of test_fast_path46_matches_slow's IPv6 legs that have one,
 * a port each (the test config's static routes go through them,
 * tests/lib/dp_env.h), and their MAC. */
#define GW6_CLIENT SY_TEST_GW6_CLIENT
#define GW6_BACKEND SY_TEST_GW6_BACKEND
static const struct rte_ether_addr mac_gw = { { 0x02, 0xee, 0, 0, 0, 0x01 } };

/* How record46 sets an IPv6 leg's next hop: its peer; a gateway with the
 * FIB's entry for it, as splice.c sets one from a route; or a gateway
 * without one (the fast path then reads the record's cold line). */
enum nh6_kind { NH6_PEER, NH6_GW_FIB, NH6_GW_LINE };

/* The FIB's entry (nh_id + 1) of the static route through gateway gw. */
static uint32_t
fib_nh_of(const char *routed, const char *gw)
{
	struct sy_fib_result fr;
	struct sy_addr dst, g;

	assert_int_equal(sy_prefix_parse(routed, &dst, &(uint8_t){ 0 }), 0);
	dst.v6[15] = 1;
	assert_int_equal(sy_fib_lookup(env.sh->fib, &dst, &fr), 0);
	assert_int_equal(sy_addr_parse(gw, &g), 0);
	assert_false(fr.direct);
	assert_memory_equal(fr.nexthop.v6, g.v6, 16);
	return fr.nh_id + 1;
}

/* An IPv6 leg's next hop, of that kind (its port's gateway, GW6_*). */
static void
set_nh6(struct sy_conn *c, struct sy_conn_v6 *a, enum sy_leg leg, enum nh6_kind kind)
{
	const char *gw = leg == SY_LEG_CLIENT ? GW6_CLIENT : GW6_BACKEND;
	uint8_t nh[16];

	if (kind == NH6_PEER) {
		sy_conn_v6_set_nh(c, a, leg, leg == SY_LEG_CLIENT ? a->client : a->backend, 0);
		return;
	}
	ip6(gw, nh);
	sy_conn_v6_set_nh(c, a, leg, nh,
			  kind == NH6_GW_LINE ? 0
					      : fib_nh_of(leg == SY_LEG_CLIENT ? SY_TEST_ROUTED6_CLIENT
									       : SY_TEST_ROUTED6_BACKEND,
							  gw));
}

/* A spliced record made by hand, as splice.c leaves one: the client leg
 * IPv6 (client6) or IPv4, the backend leg likewise, ports, deltas and
 * window scales from r; an IPv6 leg's next hop as gw says (set_nh6). */
static struct sy_conn *
record46(bool client6, bool backend6, const uint32_t r[6], enum nh6_kind gw)
{
	struct sy_conn *c = sy_conn_alloc(w);
	const struct sy_dp_port *bp = &env.sh->ports[1];
	struct sy_conn_v6 *a;

	assert_non_null(c);
	a = sy_conn_v6_of(&w->tcp, c);
	memset(a, 0, sizeof(*a));
	c->state = SY_CONN_SPLICED;
	c->flags = SY_CF_SPLICED;
	c->client_port = rte_cpu_to_be_16((uint16_t)(1024 + r[0] % 60000));
	c->vip_port = RTE_BE16(80);
	c->backend_port = rte_cpu_to_be_16((uint16_t)(1 + r[1] % 65535));
	c->client_if = 0;
	c->backend_if = 1;
	if (client6) {
		c->flags |= SY_CF_V6;
		c->v6 |= SY_V6_CLIENT;
		ip6(SY_TEST_CLIENT6, a->client);
		ip6(SY_TEST_VIP6, a->vip);
		set_nh6(c, a, SY_LEG_CLIENT, gw);
		c->client_ip = sy_addr6_fold(a->client);
		c->vip = sy_addr6_fold(a->vip);
	} else {
		c->client_ip = ip4(SY_TEST_CLIENT);
		c->vip = ip4(SY_TEST_VIP);
		c->client_nh = c->client_ip;
	}
	if (backend6) {
		c->flags |= SY_CF_V6;
		c->v6 |= SY_V6_BACKEND;
		c->snat_port = rte_cpu_to_be_16(sy_snat_get6(w, bp, &a->snat_k));
		ip6(SY_TEST_BACKEND6, a->backend);
		memcpy(a->snat, bp->ipv6[a->snat_k], 16);
		set_nh6(c, a, SY_LEG_BACKEND, gw);
		c->backend_ip = sy_addr6_fold(a->backend);
	} else {
		c->snat_port = rte_cpu_to_be_16(sy_snat_get(w, bp, &c->snat_ip));
		c->backend_ip = ip4(SY_TEST_BACKEND);
		c->backend_nh = c->backend_ip;
	}
	assert_int_not_equal(c->snat_port, 0);
	c->seq_delta[SY_LEG_CLIENT] = r[2];
	c->seq_delta[SY_LEG_BACKEND] = r[3];
	c->ts_delta[SY_LEG_CLIENT] = r[4];
	c->ts_delta[SY_LEG_BACKEND] = r[5];
	c->win_shift_b = (uint8_t)(r[1] % 15);
	c->win_shift_r = (uint8_t)((r[1] >> 4) % 15);
	sy_conn_csum_deltas(&w->tcp, c);
	if (client6) {
		const struct sy_conn_v6 *v6 = sy_conn_v6_of(&w->tcp, c);

		assert_int_equal(sy_flow_add6(w, c, v6->client, v6->vip), 0);
	} else {
		struct sy_flow_key k;

		sy_flow_key_v4(&k, c->client_ip, c->vip, c->client_port, c->vip_port);
		assert_int_equal(sy_flow_add(w, &k, c), 0);
	}
	sy_flow_backend_add(w, c);
	return c;
}

/* A segment of c's leg `leg` (0 client, 1 backend) as its peer sends it,
 * in that leg's family. */
static struct rte_mbuf *
leg_segment(const struct sy_conn *c, unsigned leg, uint32_t seq, uint32_t ack, uint8_t flags,
	    const uint8_t *opts, unsigned optlen, const char *data)
{
	const struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);
	char snat6[INET6_ADDRSTRLEN];

	if ((c->v6 >> leg) & 1) {
		struct seg6 s = { leg == 0 ? SY_TEST_CLIENT6 : SY_TEST_BACKEND6,
				  rte_be_to_cpu_16(leg == 0 ? c->client_port : c->backend_port),
				  rte_be_to_cpu_16(leg == 0 ? c->vip_port : c->snat_port), seq, ack,
				  flags, opts, optlen, data, NULL, leg };

		if (leg == 1) {
			assert_non_null(inet_ntop(AF_INET6, a->snat, snat6, sizeof(snat6)));
			s.dst = snat6;
		}
		return mk6(&s);
	}
	{
		struct sy_test_seg t = {
			.saddr = leg == 0 ? c->client_ip : c->backend_ip,
			.daddr = leg == 0 ? c->vip : c->snat_ip,
			.sport = leg == 0 ? c->client_port : c->backend_port,
			.dport = leg == 0 ? c->vip_port : c->snat_port,
			.seq = seq, .ack = ack, .flags = flags, .win = 1000,
			.opts = opts, .optlen = optlen,
			.data = data, .len = data ? (unsigned)strlen(data) : 0,
		};
		struct rte_mbuf *m = sy_test_frame(env.mp, leg, &t);

		assert_non_null(m);
		return m;
	}
}

/* The one frame on port's TX buffer, taken. */
static struct rte_mbuf *
take_one(unsigned port)
{
	struct sy_txq *q = &w->txq[port];

	if (q->n != 1)
		fail_msg("port %u: expected one frame to send, have %u", port, q->n);
	q->n = 0;
	return q->pkts[0];
}

/* The per-packet path's frame and the fast path's: the same bytes but for
 * the checksum fields (0x0000 and 0xffff are one ones' complement value),
 * the same lengths and flags, both checksums right by the reference. */
static void
assert_same_frame46(struct rte_mbuf *slow, struct rte_mbuf *fast)
{
	const uint8_t *ps = rte_pktmbuf_mtod(slow, const uint8_t *);
	const uint8_t *pf = rte_pktmbuf_mtod(fast, const uint8_t *);
	const bool v6 = ps[12] == 0x86 && ps[13] == 0xdd;
	const unsigned hl = v6 ? 40 : 20, th = 14 + hl;
	unsigned i;

	assert_int_equal(slow->pkt_len, fast->pkt_len);
	assert_int_equal(slow->data_len, fast->data_len);
	assert_int_equal(slow->l2_len, fast->l2_len);
	assert_int_equal(slow->l3_len, fast->l3_len);
	assert_int_equal(slow->ol_flags, fast->ol_flags);
	for (i = 0; i < slow->data_len; i++) {
		if ((!v6 && (i == 14 + 10 || i == 14 + 11)) || i == th + 16 || i == th + 17)
			continue;
		if (ps[i] != pf[i])
			fail_msg("byte %u differs: slow 0x%02x, fast 0x%02x", i, ps[i], pf[i]);
	}
	for (i = 0; i < 2; i++) {
		const uint8_t *l3 = (i == 0 ? ps : pf) + 14;

		if (!v6)
			assert_int_equal(fold(sum_bytes(0, l3, 20)), 0xffff);
		assert_int_equal(ref_tcp_sum(l3, v6, l3 + hl, slow->data_len - th), 0xffff);
	}
}

/* What the client-leg cache holds under c's client key (v6: an IPv6 one). */
static const struct sy_conn *
client_cached(const struct sy_conn *c, bool v6)
{
	hash_sig_t sig;

	if (v6) {
		const struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);
		struct sy_flow_key6 key;

		sy_flow_key_v6(&key, a->client, a->vip, c->client_port, c->vip_port);
		sig = sy_flow_hash6(&key);
	} else {
		sig = sy_flow_hash_v4(c->client_ip, c->vip, c->client_port, c->vip_port);
	}
	return sy_flow_cache_find(sy_flow_cache_pair(&w->tcp, sig), sig);
}

/*
 * Spliced records of each mix of families (6to6, 6to4 one way and 4to6 the
 * other), random ports, deltas and window scales; segments of both legs
 * with no options, NOP NOP TS (both inline) and SACK blocks (the per-packet
 * path's translation), each sent once through sy_eth_input and once, a
 * copy, through sy_splice_rx_burst: the fast path takes every one and sends
 * what the per-packet path sends, its record found through the cache in
 * front of the IPv6 hash or (every other one) the hash itself, which puts
 * a client leg back in the cache, an IPv6 backend leg's through its SNAT
 * slot. The IPv6 hash's hash as the fast
 * path computes it is rte_hash_crc's over the key. In every other pair of
 * records the IPv6 legs' next hops are gateways (SY_V6_*_GW), half of them
 * with the FIB's entry for the gateway (as splice.c sets them), half
 * without: both paths send to the gateway's MAC, not the peer's.
 */
static void
test_fast_path46_matches_slow(void **state)
{
	static const bool fam[3][2] = { { true, true }, { true, false }, { false, true } };
	uint64_t rng = 0x9e3779b97f4a7c15ull, fast0;
	unsigned i, f, leg, kind, seen_k = 0;
	struct sy_addr g;

	(void)state;
	assert_int_equal(sy_addr_parse(GW6_CLIENT, &g), 0);
	sy_neigh_confirm(w, &w->nd, 0, g.v6, &mac_gw);
	assert_int_equal(sy_addr_parse(GW6_BACKEND, &g), 0);
	sy_neigh_confirm(w, &w->nd, 1, g.v6, &mac_gw);
	for (i = 0; i < 60; i++) {
		/* Pairs of records: peers, gateways from the FIB, peers,
		 * gateways without a FIB entry. */
		const enum nh6_kind nk = (i / 2) % 4 == 1 ? NH6_GW_FIB
					 : (i / 2) % 4 == 3 ? NH6_GW_LINE
							    : NH6_PEER;
		const bool gw = nk != NH6_PEER;
		uint32_t r[6];
		struct sy_conn *c;

		sy_test_random_words(&rng, r, RTE_DIM(r));
		f = i % 3;
		c = record46(fam[f][0], fam[f][1], r, nk);
		if (fam[f][0]) {
			const struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);
			struct sy_flow_key6 key;

			sy_flow_key_v6(&key, a->client, a->vip, c->client_port, c->vip_port);
			assert_int_equal(sy_flow_hash6(&key),
					 rte_hash_crc(&key, sizeof(key), SY_FLOW_HASH_INIT));
		}
		for (leg = 0; leg < 2; leg++)
			for (kind = 0; kind < 3; kind++) {
				uint8_t opts[24] = { 1, 1, 5, 10 };
				unsigned optlen = kind == 0 ? 0 : kind == 1 ? 12 : 24;
				struct rte_mbuf *in, *copy, *slow, *fast;

				if (kind == 1)
					sy_tcp_write_ts_opt(opts, r[0] ^ r[5], r[1] ^ r[4]);
				else if (kind == 2)
					sy_tcp_write_ts_opt(opts + 12, r[2], r[3]);
				in = leg_segment(c, leg, r[2] ^ r[3], r[4] ^ r[5],
						 RTE_TCP_ACK_FLAG | (kind == 0 ? RTE_TCP_PSH_FLAG : 0),
						 opts, optlen, kind == 1 ? NULL : "payload");
				copy = rte_pktmbuf_copy(in, env.mp, 0, UINT32_MAX);
				assert_non_null(copy);
				/* Every other record found through the IPv6 hash,
				 * not the cache in front of it. */
				if (i % 2 == 1)
					memset(w->tcp.client_cache, 0,
					       ((size_t)w->tcp.cache_mask + 1) *
						       sizeof(*w->tcp.client_cache));
				sy_eth_input(w, (uint16_t)leg, in);
				slow = take_one(!leg);
				fast0 = w->counters.fast_forwarded;
				sy_splice_rx_burst(w, (uint16_t)leg, &copy, 1);
				assert_int_equal(w->counters.fast_forwarded, fast0 + 1);
				/* A client leg the hash found is back in the
				 * cache (conn/flow_table.h), under its key's
				 * hash, of its family. */
				if (leg == 0)
					assert_ptr_equal(client_cached(c, fam[f][0]), c);
				fast = take_one(!leg);
				assert_same_frame46(slow, fast);
				/* To an IPv6 leg: its gateway's MAC, or its peer's. */
				if ((c->v6 >> !leg) & 1)
					assert_memory_equal(rte_pktmbuf_mtod(fast, uint8_t *),
							    gw ? &mac_gw
							    : leg == 0 ? &sy_test_mac_backend
								       : &sy_test_mac_client,
							    RTE_ETHER_ADDR_LEN);
				rte_pktmbuf_free(slow);
				rte_pktmbuf_free(fast);
			}
		if (!fam[f][1]) {
			/* An IPv4 backend leg's slot: the record, marked as one
			 * with an IPv6 leg (conn/flow_table.h), emptied with it. */
			struct sy_conn **slot = sy_snat_slot(&w->tcp, c->snat_ip, c->snat_port);

			assert_ptr_equal(*slot, (struct sy_conn *)((uintptr_t)c | SY_SNAT_SLOT_V6));
			sy_conn_free(w, c);
			assert_null(*slot);
		} else {
			/* An IPv6 backend leg's: the row of its source's index
			 * (both of the port's addresses are used, in turn), where
			 * the fast path found it above; emptied with it. */
			const uint8_t k = sy_conn_v6_of(&w->tcp, c)->snat_k;
			struct sy_conn **slot = sy_snat_slot_k(&w->tcp, k, c->snat_port);

			assert_ptr_equal(*slot, (struct sy_conn *)((uintptr_t)c | SY_SNAT_SLOT_V6));
			seen_k |= 1u << k;
			sy_conn_free(w, c);
			assert_null(*slot);
		}
	}
	assert_int_equal(seen_k, 3);
	assert_int_equal(w->counters.drops[SY_DROP_SPLICE_XLATE_FAILED], 0);
	assert_int_equal(w->counters.flows_active, 0);
}

/*
 * A segment of a record's IPv6 leg, to the other port's MAC: IPv6 takes only
 * the receiving port's own addresses (sy_ipv6_input; no weak host as over
 * IPv4), so the fast path must leave it to the per-packet path, which drops
 * it as not ours, though its tuple is the leg's field for field. The fast
 * path checks the destination against the port's first address before any
 * other (splice_fast.c, fast_ours6): the client leg's is port 0's first,
 * the backend leg's either of port 1's, neither of which the other port has.
 */
static void
test_fast_path6_other_ports_address(void **state)
{
	uint64_t rng = 0x9e3779b97f4a7c15ull;
	unsigned i, leg;

	(void)state;
	for (i = 0; i < 4; i++) {
		uint32_t r[6];
		struct sy_conn *c;

		sy_test_random_words(&rng, r, RTE_DIM(r));
		c = record46(true, true, r, NH6_PEER);
		for (leg = 0; leg < 2; leg++) {
			const struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);
			const uint64_t fast0 = w->counters.fast_forwarded;
			const uint64_t not_ours0 = w->counters.drops[SY_DROP_IPV6_NOT_OURS];
			char dst[INET6_ADDRSTRLEN];
			struct rte_mbuf *m, *right;

			assert_non_null(inet_ntop(AF_INET6, leg == 0 ? a->vip : a->snat, dst,
						  sizeof(dst)));
			{
				struct seg6 s = {
					leg == 0 ? SY_TEST_CLIENT6 : SY_TEST_BACKEND6,
					rte_be_to_cpu_16(leg == 0 ? c->client_port : c->backend_port),
					rte_be_to_cpu_16(leg == 0 ? c->vip_port : c->snat_port),
					r[2], r[3], RTE_TCP_ACK_FLAG, NULL, 0, "payload", dst, !leg
				};

				m = mk6(&s);
				s.port = leg;
				right = mk6(&s);
			}
			sy_splice_rx_burst(w, (uint16_t)!leg, &m, 1);
			assert_int_equal(w->counters.fast_forwarded, fast0);
			assert_int_equal(w->counters.drops[SY_DROP_IPV6_NOT_OURS], not_ours0 + 1);
			assert_int_equal(w->txq[0].n + w->txq[1].n, 0);
			/* The same segment on its own port: forwarded, fast. */
			sy_splice_rx_burst(w, (uint16_t)leg, &right, 1);
			assert_int_equal(w->counters.fast_forwarded, fast0 + 1);
			rte_pktmbuf_free(take_one(!leg));
		}
		sy_conn_free(w, c);
	}
}

/*
 * An IPv6 segment to a SNAT port whose slot holds another leg than its own:
 * an IPv4 leg of the same address index and port (the two families take
 * an index's ports from one FIFO, conn/snat.h), of a record with an IPv6
 * client or of an IPv4-only one, or an IPv6 leg to another backend. The
 * fast path finds that record and must not take the segment for it: the
 * per-packet path has it, and drops it (no connection of its own).
 */
static void
test_fast_path6_snat_slot_other_leg(void **state)
{
	static const bool fam[3][2] = { { true, false }, { false, false }, { true, true } };
	const struct sy_dp_port *bp = &env.sh->ports[1];
	uint64_t rng = 0x2545f4914f6cdd1dull;
	unsigned f;

	(void)state;
	for (f = 0; f < 3; f++) {
		uint32_t r[6];
		struct sy_conn *c;
		struct rte_mbuf *m;
		char dst[INET6_ADDRSTRLEN];
		unsigned k, d;
		uint64_t fast0 = w->counters.fast_forwarded, dropped = 0;
		struct seg6 s;

		sy_test_random_words(&rng, r, RTE_DIM(r));
		c = record46(fam[f][0], fam[f][1], r, NH6_PEER);
		k = fam[f][1] ? sy_conn_v6_of(&w->tcp, c)->snat_k : sy_snat_index(&w->tcp, c->snat_ip);
		assert_true(k < bp->n_ipv6);
		assert_non_null(inet_ntop(AF_INET6, bp->ipv6[k], dst, sizeof(dst)));
		/* From the IPv6 backend, but another port of it than the leg's. */
		s = (struct seg6){ SY_TEST_BACKEND6,
				   (uint16_t)(rte_be_to_cpu_16(c->backend_port) % 65535 + 1),
				   rte_be_to_cpu_16(c->snat_port), r[2], r[3], RTE_TCP_ACK_FLAG,
				   NULL, 0, "payload", dst, 1 };
		m = mk6(&s);
		assert_ptr_equal(sy_snat_slot_conn(*sy_snat_slot_k(&w->tcp, k, c->snat_port)), c);
		for (d = 0; d < SY_DROP__COUNT; d++)
			dropped -= w->counters.drops[d];
		sy_splice_rx_burst(w, 1, &m, 1);
		for (d = 0; d < SY_DROP__COUNT; d++)
			dropped += w->counters.drops[d];
		assert_int_equal(w->counters.fast_forwarded, fast0);
		assert_int_equal(w->txq[0].n, 0);
		/* The per-packet path's: dropped, or answered with a reset. */
		assert_int_equal(dropped + w->txq[1].n, 1);
		if (w->txq[1].n != 0)
			rte_pktmbuf_free(take_one(1));
		sy_conn_free(w, c);
	}
}

/* An IPv6 segment with a hop-by-hop options header before TCP: left to the
 * per-packet path (which takes the header out), in its place in the burst
 * between two the fast path forwards; the same frames leave in the same
 * order. A segment to an address of ours that is not its port's: left to
 * the per-packet path, which drops it. */
static void
test_fast_path46_ext_header(void **state)
{
	const uint32_t r[6] = { 4242, 8080, 1, 2, 3, 4 };
	struct sy_conn *c = record46(true, false, r, NH6_PEER);
	struct rte_mbuf *b[3], *slow[3];
	uint64_t fast0;
	unsigned i;

	(void)state;
	for (i = 0; i < 3; i++) {
		b[i] = leg_segment(c, 0, 1000 + i, 2000, RTE_TCP_ACK_FLAG, NULL, 0, "data");
		if (i == 1)
			insert_ext_headers(b[i], 1); /* hop-by-hop */
	}
	for (i = 0; i < 3; i++) {
		struct rte_mbuf *copy = rte_pktmbuf_copy(b[i], env.mp, 0, UINT32_MAX);

		assert_non_null(copy);
		sy_eth_input(w, 0, copy);
		slow[i] = take_one(1);
	}
	fast0 = w->counters.fast_forwarded;
	sy_splice_rx_burst(w, 0, b, 3);
	assert_int_equal(w->counters.fast_forwarded, fast0 + 2);
	assert_int_equal(w->txq[1].n, 3);
	for (i = 0; i < 3; i++) {
		assert_same_frame46(slow[i], w->txq[1].pkts[i]);
		rte_pktmbuf_free(slow[i]);
		rte_pktmbuf_free(w->txq[1].pkts[i]);
	}
	w->txq[1].n = 0;

	/* The client leg's segment on the backend port, which does not have
	 * the listen address: dropped as the per-packet path drops it. */
	b[0] = leg_segment(c, 0, 2000, 2000, RTE_TCP_ACK_FLAG, NULL, 0, "data");
	rte_pktmbuf_mtod(b[0], struct rte_ether_hdr *)->dst_addr = sy_test_mac_port[1];
	fast0 = w->counters.drops[SY_DROP_IPV6_NOT_OURS];
	sy_splice_rx_burst(w, 1, b, 1);
	assert_int_equal(w->counters.drops[SY_DROP_IPV6_NOT_OURS], fast0 + 1);
	assert_int_equal(w->txq[0].n + w->txq[1].n, 0);
	sy_conn_free(w, c);
	assert_int_equal(w->counters.drops[SY_DROP_SPLICE_XLATE_FAILED], 0);
}

/* The arena with an IPv6 port (conn/conn_tables_t.h): each record's IPv6
 * side is the other half of its 256-byte slot, record first in even slots,
 * IPv6 side first in odd ones. Every index round-trips; every IPv6 side is
 * its record's address XOR 128, inside the slot and overlapping no record;
 * filling every IPv6 side leaves every record as it was. */
static void
test_arena_v6_sides(void **state)
{
	const struct sy_conn_arena *a = &w->tcp.conns;
	uint8_t *copy;
	uint32_t i;

	(void)state;
	assert_int_equal(a->shift, 8);
	assert_int_equal((uintptr_t)a->mem % 256, 0);
	copy = malloc((size_t)a->n * sizeof(struct sy_conn));
	assert_non_null(copy);
	for (i = 0; i < a->n; i++) {
		struct sy_conn *c = sy_conn_at(a, i);
		const uint8_t *v6 = (const uint8_t *)sy_conn_v6_of(&w->tcp, c);
		const size_t off = (size_t)((const uint8_t *)c - a->mem);

		assert_int_equal(sy_conn_index(a, c), i);
		assert_int_equal(off / 256, i);
		assert_int_equal(off % 256, (i & 1) ? 128 : 0);
		assert_int_equal((size_t)(v6 - a->mem) / 256, i);
		assert_int_equal((size_t)(v6 - a->mem) % 256, (i & 1) ? 0 : 128);
		memcpy(copy + (size_t)i * sizeof(*c), c, sizeof(*c));
	}
	for (i = 0; i < a->n; i++)
		memset(sy_conn_v6_of(&w->tcp, sy_conn_at(a, i)), 0xa5, sizeof(struct sy_conn_v6));
	for (i = 0; i < a->n; i++)
		assert_memory_equal(copy + (size_t)i * sizeof(struct sy_conn), sy_conn_at(a, i),
				    sizeof(struct sy_conn));
	for (i = 0; i < a->n; i++)
		memset(sy_conn_v6_of(&w->tcp, sy_conn_at(a, i)), 0, sizeof(struct sy_conn_v6));
	free(copy);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cookie_v6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_splice_across_families, setup, teardown),
		cmocka_unit_test_setup_teardown(test_answer_v6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_syn_ext_headers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v4_client_v6_backend, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v6_client_v6_backend, setup, teardown),
		cmocka_unit_test_setup_teardown(test_v6_snat_addresses, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ptb_spliced, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ptb_proxy, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path46_matches_slow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path46_ext_header, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path6_snat_slot_other_leg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fast_path6_other_ports_address, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arena_v6_sides, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
