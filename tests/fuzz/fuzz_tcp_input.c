/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer entry for the data plane's TCP input with one connection to a
 * proxied host: the SYN cookie handshake, PEEK, then the proxy's
 * terminating TCP on both legs (dataplane/tcp/tcb_*.c, dataplane/proxy/).
 * One fresh worker of the in-process data plane per input (tests/lib/dp_env.h,
 * as tests/tcp/scenario.c uses it; px.test has two path rules, so it is
 * proxied), on a virtual clock. Built by meson with -Dfuzz=true and clang
 * (tests/fuzz/meson.build), run in CI by tools/test on the seeds in
 * tests/fuzz/corpus/fuzz_tcp_input/; by hand:
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
 *   ninja -C build-fuzz tests/fuzz/fuzz_tcp_input
 *   cp -r tests/fuzz/corpus/fuzz_tcp_input /tmp/c && build-fuzz/tests/fuzz/fuzz_tcp_input -max_total_time=300 /tmp/c
 *   meson test -C build-fuzz --suite fuzz fuzz_tcp_input -v    (what CI runs: 45 s on a copy)
 *
 * Input: byte 0 is the preamble (bit 0: the client's SYN carries options;
 * bit 1: the client sends "GET / HTTP/1.1" for px.test after the handshake,
 * so the proxy takes the connection; bit 2: the backend answers the router's
 * SYN), then operations of 8 bytes each and their payload:
 *
 *   b0  bit 0 leg (client, backend), bits 1-3 clock step before it (0 to 31 s),
 *       bits 4-6 options (none, TS, TS+SACK, SYN's, MSS, raw from the input,
 *       an old TS, window scale), bit 7: payload from the canned HTTP below
 *   b1  TCP flags, XOR ACK (0 is a plain ACK)
 *   b2  sequence offset from what the router expects of that leg (int8;
 *       b3 bit 6: times 1024)
 *   b3  bits 0-5 ack offset from what the router has sent (int6; bit 7:
 *       times 65536)
 *   b4-5 window; b6-7 payload length (11 bits, taken from the input), or
 *       with bit 7 of b0, which canned payload
 *
 * FUZZ_TCP_TRACE=1 prints what each input reached (counters) before teardown.
 *
 * Checked: no crash or sanitizer report; every segment the router sends is
 * IPv4/TCP with right checksums; after the input, both legs reset and the
 * clock run on, the flow table is empty (flows_active 0) and, the worker
 * gone, every mbuf is back in the pool.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "dp_env.h"
#include "proxy/proxy.h"
#include "conn/conn.h"
#include "splice/splice.h"
#include "worker.h"

#define CLIENT_PORT 40000
#define BACKEND_PORT 8080
#define CLIENT_ISN 1000u
#define BACKEND_ISN 7000u
/* Long enough for every timeout (tunnel: 1 h) to have run out. */
#define TEARDOWN_S 7300

/* One leg as its peer (the harness) sees it. */
struct leg {
	bool up;         /* the router sent on it (backend: its SYN) */
	uint16_t rport;  /* the router's port on it (backend: the SNAT port) */
	uint32_t nxt;    /* our next sequence number: what the router acked last */
	uint32_t r_nxt;  /* the router's highest sequence number sent, plus one */
	uint32_t r_ts;   /* the router's last TSval */
};

struct fz {
	struct leg leg[2];
	uint32_t ts;     /* our TSval clock, both legs */
};

static struct sy_test_dp d;

static const char *const canned[] = {
	"GET / HTTP/1.1\r\nHost: px.test\r\n\r\n",
	"GET /api/x HTTP/1.1\r\nHost: px.test\r\nConnection: close\r\n\r\n",
	"POST /api HTTP/1.1\r\nHost: px.test\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
	"POST / HTTP/1.1\r\nHost: px.test\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello",
	"GET / HTTP/1.1\r\nHost: px.test\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok",
	"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n",
	"HTTP/1.1 100 Continue\r\n\r\n",
	"HTTP/1.1 101 Switching Protocols\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n",
	"HTTP/1.0 200 OK\r\n\r\nuntil close",
	"HTTP/1.1 204 No Content\r\n\r\n",
	"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhel",
};
#define N_CANNED (sizeof(canned) / sizeof(canned[0]))

static void
fini(void)
{
	sy_test_dp_fini(&d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (sy_test_dp_init(&d, "fuzz_tcp_input", 2047) < 0)
		abort();
	atexit(fini);
	return 0;
}

/* The TSval of a segment's options, if any. */
static bool
find_ts(const uint8_t *o, unsigned len, uint32_t *val)
{
	unsigned i = 0;

	while (i < len) {
		if (o[i] == 0)
			break;
		if (o[i] == 1) {
			i++;
			continue;
		}
		if (i + 1 >= len || o[i + 1] < 2 || i + o[i + 1] > len)
			break;
		if (o[i] == 8 && o[i + 1] == 10) {
			*val = (uint32_t)o[i + 2] << 24 | (uint32_t)o[i + 3] << 16 |
			       (uint32_t)o[i + 4] << 8 | o[i + 5];
			return true;
		}
		i += o[i + 1];
	}
	return false;
}

/* A segment the router sent on port p: checked, and what it says kept. */
static void
inspect(struct fz *f, unsigned p, struct rte_mbuf *m)
{
	static uint8_t buf[RTE_MBUF_DEFAULT_BUF_SIZE * 64];
	const struct rte_ether_hdr *eh;
	const struct rte_ipv4_hdr *ip;
	const struct rte_tcp_hdr *th;
	struct leg *l = &f->leg[p];
	unsigned ihl, thl, plen;
	uint32_t seq, end;

	if (m->pkt_len > sizeof(buf) || m->pkt_len < sizeof(*eh))
		abort();
	/* Chained payloads (the proxy sends its queues' mbufs) read whole. */
	eh = rte_pktmbuf_read(m, 0, m->pkt_len, buf);
	if (eh != (const void *)buf)
		memcpy(buf, eh, m->pkt_len);
	eh = (const struct rte_ether_hdr *)buf;
	if (eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4))
		return; /* ARP */
	ip = (const struct rte_ipv4_hdr *)(eh + 1);
	ihl = rte_ipv4_hdr_len(ip);
	if (ip->next_proto_id != IPPROTO_TCP)
		return; /* ICMP */
	th = (const struct rte_tcp_hdr *)((const uint8_t *)ip + ihl);
	thl = (th->data_off >> 4) * 4u;
	if (sizeof(*eh) + rte_be_to_cpu_16(ip->total_length) > m->pkt_len ||
	    rte_be_to_cpu_16(ip->total_length) < ihl + thl || thl < 20)
		abort(); /* a frame that does not hold its own headers */
	if (rte_raw_cksum(ip, ihl) != 0xffff || rte_ipv4_udptcp_cksum_verify(ip, th) != 0)
		abort();
	plen = rte_be_to_cpu_16(ip->total_length) - ihl - thl;
	seq = rte_be_to_cpu_32(th->sent_seq);
	if (p == 1 && (th->tcp_flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) == RTE_TCP_SYN_FLAG) {
		/* A backend leg opens: the next segments of "backend" are its. */
		memset(l, 0, sizeof(*l));
		l->rport = rte_be_to_cpu_16(th->src_port);
		l->nxt = BACKEND_ISN;
		l->r_nxt = seq;
	}
	if (p == 1 && rte_be_to_cpu_16(th->src_port) != l->rport)
		return; /* an older leg's last words */
	l->up = true;
	end = seq + plen + !!(th->tcp_flags & RTE_TCP_SYN_FLAG) + !!(th->tcp_flags & RTE_TCP_FIN_FLAG);
	if ((int32_t)(end - l->r_nxt) > 0)
		l->r_nxt = end;
	if (th->tcp_flags & RTE_TCP_ACK_FLAG)
		l->nxt = rte_be_to_cpu_32(th->recv_ack);
	find_ts((const uint8_t *)(th + 1), thl - 20, &l->r_ts);
}

/* Take and check everything the worker queued for TX. */
static void
drain(struct fz *f)
{
	struct sy_worker *w = d.w;
	unsigned p, i;

	for (p = 0; p < 2; p++) {
		for (i = 0; i < w->txq[p].n; i++) {
			inspect(f, p, w->txq[p].pkts[i]);
			rte_pktmbuf_free(w->txq[p].pkts[i]);
		}
		w->txq[p].n = 0;
		w->txq[p].bytes = 0;
	}
}

/* Move the clock ms forward in steps of step_ms (the wheel's tick: timers
 * fire when a running router fires them), timers run at each. */
static void
advance(struct fz *f, uint64_t ms, uint64_t step_ms)
{
	struct sy_worker *w = d.w;
	uint64_t target = w->now + sy_ms_to_tsc(w, ms);
	uint64_t step = sy_ms_to_tsc(w, step_ms);

	f->ts += (uint32_t)ms;
	while (w->now < target) {
		w->now = w->now + step < target ? w->now + step : target;
		sy_conn_timers_run(w);
		drain(f);
	}
}

struct seg {
	unsigned leg;
	uint8_t flags;
	uint32_t seq, ack;
	uint16_t win;
	const uint8_t *opts;
	unsigned optlen;
	const void *data;
	unsigned len;
};

static void
send_seg(struct fz *f, const struct seg *s)
{
	struct sy_test_seg t = {
		.saddr = sy_test_ip4(s->leg == 0 ? SY_TEST_CLIENT : SY_TEST_BACKEND),
		.daddr = sy_test_ip4(s->leg == 0 ? SY_TEST_VIP : SY_TEST_SNAT),
		.sport = rte_cpu_to_be_16(s->leg == 0 ? CLIENT_PORT : BACKEND_PORT),
		.dport = rte_cpu_to_be_16(s->leg == 0 ? 80 : f->leg[1].rport),
		.seq = s->seq, .ack = s->ack, .flags = s->flags, .win = s->win,
		.opts = s->opts, .optlen = s->optlen, .data = s->data, .len = s->len,
	};
	struct rte_mbuf *m = sy_test_frame(d.mp, s->leg == 0 ? 0 : 1, &t);

	if (m == NULL)
		return; /* the pool is short: what the router holds, not a bug here */
	sy_splice_rx_burst(d.w, s->leg == 0 ? 0 : 1, &m, 1);
	drain(f);
}

static void
put32(uint8_t *o, uint32_t v)
{
	o[0] = (uint8_t)(v >> 24);
	o[1] = (uint8_t)(v >> 16);
	o[2] = (uint8_t)(v >> 8);
	o[3] = (uint8_t)v;
}

/* nop, nop, TS val ecr: 12 bytes. */
static unsigned
put_ts(uint8_t *o, uint32_t val, uint32_t ecr)
{
	o[0] = 1;
	o[1] = 1;
	o[2] = 8;
	o[3] = 10;
	put32(o + 4, val);
	put32(o + 8, ecr);
	return 12;
}

/* What Linux puts in a SYN: mss 1460, sackOK, TS val ecr, nop, wscale 7. */
static unsigned
put_syn_opts(uint8_t *o, uint32_t ts, uint32_t ecr)
{
	static const uint8_t head[] = { 2, 4, 0x05, 0xb4, 4, 2, 8, 10 };
	static const uint8_t tail[] = { 1, 3, 3, 7 };

	memcpy(o, head, sizeof(head));
	put32(o + 8, ts);
	put32(o + 12, ecr);
	memcpy(o + 16, tail, sizeof(tail));
	return 20;
}

/* The options an operation asks for, into o (at most 40 bytes). */
static unsigned
make_opts(struct fz *f, unsigned leg, unsigned kind, const uint8_t *op, const uint8_t **in,
	  size_t *left, uint8_t *o)
{
	const struct leg *l = &f->leg[leg];
	unsigned n;

	switch (kind) {
	case 1:
		return put_ts(o, f->ts, l->r_ts);
	case 2: {
		uint32_t right = l->r_nxt - (op[5] & 0x3f) * 64u, left_edge = right - op[4] * 8u - 1;

		n = put_ts(o, f->ts, l->r_ts);
		o[n++] = 1;
		o[n++] = 1;
		o[n++] = 5;
		o[n++] = 10;
		put32(o + n, left_edge);
		put32(o + n + 4, right);
		return n + 8;
	}
	case 3:
		return put_syn_opts(o, f->ts, l->r_ts);
	case 4:
		o[0] = 2;
		o[1] = 4;
		o[2] = op[4];
		o[3] = op[5];
		return 4;
	case 5:
		/* Raw bytes from the input, a multiple of 4 (data_off). */
		n = ((op[7] >> 3) % 11) * 4u;
		if (n > *left)
			n = (unsigned)(*left & ~3u);
		if (n > 40)
			n = 40;
		memcpy(o, *in, n);
		*in += n;
		*left -= n;
		return n;
	case 6:
		return put_ts(o, f->ts - 0x80000000u, l->r_ts); /* PAWS: far in the past */
	case 7:
		o[0] = 1;
		o[1] = 3;
		o[2] = 3;
		o[3] = op[4];
		return 4;
	default:
		return 0;
	}
}

/* One operation from the input; false when the input is used up. */
static bool
operation(struct fz *f, const uint8_t **in, size_t *left)
{
	const uint8_t *op = *in;
	uint8_t opts[40];
	struct seg s;
	unsigned kind;
	int32_t seq_off, ack_off;
	static const uint32_t steps_ms[8] = { 0, 1, 5, 40, 200, 1000, 3000, 31000 };

	if (*left < 8)
		return false;
	*in += 8;
	*left -= 8;
	memset(&s, 0, sizeof(s));
	s.leg = op[0] & 1;
	if (s.leg == 1 && !f->leg[1].up)
		s.leg = 0; /* no backend leg yet */
	advance(f, steps_ms[(op[0] >> 1) & 7], SY_WHEEL_TICK_MS);
	kind = (op[0] >> 4) & 7;
	s.flags = op[1] ^ RTE_TCP_ACK_FLAG;
	seq_off = (int8_t)op[2] * ((op[3] & 0x40) ? 1024 : 1);
	ack_off = ((int32_t)(op[3] & 0x3f) - 32) * ((op[3] & 0x80) ? 65536 : 1);
	s.seq = f->leg[s.leg].nxt + (uint32_t)seq_off;
	s.ack = f->leg[s.leg].r_nxt + (uint32_t)ack_off;
	s.win = (uint16_t)(op[4] << 8 | op[5]);
	s.optlen = make_opts(f, s.leg, kind, op, in, left, opts);
	s.opts = opts;
	if (op[0] & 0x80) {
		s.data = canned[(op[6] | op[7] << 8) % N_CANNED];
		s.len = (unsigned)strlen(s.data);
	} else {
		s.len = (unsigned)((op[6] | op[7] << 8) & 0x7ff);
		if (s.len > *left)
			s.len = (unsigned)*left;
		if (s.len > 1460)
			s.len = 1460;
		s.data = *in;
		*in += s.len;
		*left -= s.len;
	}
	f->ts++;
	send_seg(f, &s);
	return true;
}

static void
preamble(struct fz *f, uint8_t how)
{
	static const char req[] = "GET / HTTP/1.1\r\nHost: px.test\r\n\r\n";
	uint8_t opts[40];
	struct seg s = { .leg = 0, .flags = RTE_TCP_SYN_FLAG, .seq = CLIENT_ISN, .win = 64240 };

	f->leg[0].nxt = CLIENT_ISN;
	if (how & 1) {
		s.optlen = put_syn_opts(opts, f->ts, 0);
		s.opts = opts;
	}
	send_seg(f, &s);
	f->leg[0].nxt = CLIENT_ISN + 1; /* the SYN-ACK acks it; a missing one is a finding too */
	s.flags = RTE_TCP_ACK_FLAG;
	s.seq = CLIENT_ISN + 1;
	s.ack = f->leg[0].r_nxt;
	s.win = 502;
	s.optlen = (how & 1) ? put_ts(opts, ++f->ts, f->leg[0].r_ts) : 0;
	send_seg(f, &s);
	if (how & 2) {
		s.flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG;
		s.data = req;
		s.len = sizeof(req) - 1;
		s.optlen = (how & 1) ? put_ts(opts, ++f->ts, f->leg[0].r_ts) : 0;
		send_seg(f, &s);
	}
	if ((how & 4) && f->leg[1].up) {
		struct seg b = { .leg = 1, .flags = RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG,
				 .seq = BACKEND_ISN, .ack = f->leg[1].r_nxt, .win = 65160 };

		b.optlen = put_syn_opts(opts, ++f->ts, f->leg[1].r_ts);
		b.opts = opts;
		send_seg(f, &b);
	}
}

/* The records still in use, for the report of a flow that never ends. */
static void
dump_records(void)
{
	const struct sy_worker *w = d.w;
	unsigned i;

	for (i = 0; i < w->tcp.conns.n; i++) {
		const struct sy_conn *c = sy_conn_at(&w->tcp.conns, i);
		const struct sy_proxy *px = c->px;

		if (c->state == 0 || c->state > SY_CONN_PROXY_BE)
			continue;
		fprintf(stderr, "  record %u: state %u flags %#x timer %s expire in %ld ms", i,
			c->state, c->flags, (c->flags & SY_CF_TIMER) ? "on" : "off",
			(long)(((int64_t)c->expire - (int64_t)w->now) / (int64_t)w->sh->tsc_per_ms));
		if ((c->state == SY_CONN_PROXY || c->state == SY_CONN_PROXY_BE) && px != NULL)
			fprintf(stderr, "; proxy: client tcb %u backend tcb %u req %u resp %u "
				"tunnel %d close_after %d bc %s deadline in %ld ms",
				px->c.state, px->b.state, px->req_state, px->resp_state, px->tunnel,
				px->close_after, px->bc ? "set" : "none",
				px->deadline ? (long)(((int64_t)px->deadline - (int64_t)w->now) /
						      (int64_t)w->sh->tsc_per_ms) : -1L);
		fprintf(stderr, "\n");
	}
}

/* Both legs reset at what the router expects, then the clock run on
 * until nothing is left (every timeout has an end). */
static void
teardown(struct fz *f)
{
	struct sy_worker *w = d.w;
	unsigned leg, i;

	for (leg = 0; leg < 2; leg++) {
		struct seg s = { .leg = leg, .flags = RTE_TCP_RST_FLAG, .seq = f->leg[leg].nxt };

		if (f->leg[leg].up)
			send_seg(f, &s);
	}
	/* Seconds at a time: a timer may fire up to a second late here. */
	for (i = 0; i < TEARDOWN_S && w->counters.flows_active != 0; i++)
		advance(f, 1000, 1000);
	if (w->counters.flows_active != 0) {
		fprintf(stderr, "fuzz_tcp_input: %lu flows left after %u s\n",
			(unsigned long)w->counters.flows_active, TEARDOWN_S);
		dump_records();
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz f;
	const uint8_t *in = data + 1;
	size_t left = size ? size - 1 : 0;
	unsigned leaked;
	uint64_t unit;

	if (size < 1)
		return 0;
	memset(&f, 0, sizeof(f));
	f.ts = 500;
	if (sy_test_dp_worker(&d) < 0)
		abort();
	/* The same phase on every run: a whole number of 2^16 ms on the
	 * worker's clock, so wheel ticks, TS clocks and cookie slots fall the
	 * same way each time (libFuzzer wants an input to do the same twice). */
	unit = sy_ms_to_tsc(d.w, 65536);
	d.w->now = (d.w->now / unit + 1) * unit;
	sy_conn_timers_run(d.w);
	preamble(&f, data[0]);
	while (operation(&f, &in, &left))
		;
	if (getenv("FUZZ_TCP_TRACE") != NULL) {
		/* What an input reached, for whoever writes seeds. */
		const struct sy_worker_counters *c = &d.w->counters;
		unsigned i;

		fprintf(stderr, "proxied %lu requests %lu backend_conns %lu segs_out %lu rto %lu flows %lu",
			(unsigned long)c->conns_proxied, (unsigned long)c->proxy_requests,
			(unsigned long)c->proxy_backend_conns, (unsigned long)c->proxy_segs_out,
			(unsigned long)c->proxy_rto, (unsigned long)c->flows_active);
		for (i = 0; i < SY_ANSWER__COUNT; i++)
			if (c->answers[i])
				fprintf(stderr, " answer %s %lu", sy_answer_reason_names[i],
					(unsigned long)c->answers[i]);
		fprintf(stderr, "\n");
	}
	teardown(&f);
	drain(&f);
	leaked = sy_test_dp_worker_free(&d);
	if (leaked != 0) {
		fprintf(stderr, "fuzz_tcp_input: %u mbufs not back in the pool\n", leaked);
		abort();
	}
	return 0;
}
