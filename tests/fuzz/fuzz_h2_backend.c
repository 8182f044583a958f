/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer entry for HTTP/2 to backends (dataplane/proxy/px_h2_backend.c,
 * px_h2_body.c, and the h2c connections that carry many clients' streams): HTTP/1.1
 * clients on the plain listener send canned requests to h2c.test, whose
 * Service port is annotated projectcontour.io/upstream-protocol.h2c
 * (tests/lib/dp_env.h), and the backend's byte stream, what routerd's
 * nghttp2 client session reads, is the input's. One fresh worker of the
 * in-process data plane per input, on a virtual clock, as fuzz_h2.c (whose
 * TCP peers this one shares the design of). Built by meson with -Dfuzz=true
 * and clang (tests/fuzz/meson.build), run in CI on the seeds in
 * tests/fuzz/corpus/fuzz_h2_backend/ (made by
 * tests/fuzz/fuzz_h2_backend_seeds.py with python3-h2); by hand:
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
 *   ninja -C build-fuzz tests/fuzz/fuzz_h2_backend
 *   cp -r tests/fuzz/corpus/fuzz_h2_backend /tmp/c &&
 *     build-fuzz/tests/fuzz/fuzz_h2_backend -max_total_time=300 /tmp/c
 *   meson test -C build-fuzz --suite fuzz fuzz_h2_backend -v  (what CI runs: 30 s on a copy)
 *
 * Clients 198.18.0.2:40000-40003 each do their handshake when first used
 * and send the requests the input picks (canned[]: GET, HEAD, POST with a
 * Content-Length or chunked body and trailers, gRPC-like, Expect:
 * 100-continue, pipelined, ...) or its raw bytes; they ACK what the router
 * sends with the window the input chooses. The backend (198.18.1.10:8080)
 * accepts every SYN of the router and reads (and ACKs) whatever it is sent;
 * what it sends back on a leg is the input's: raw h2 frames. A new leg's
 * first stream is 1, the next request on it (any client's: clients sending
 * at once share a connection) stream 3, and so on.
 *
 * Input: operations of 3 bytes and their payload:
 *
 *   c0  bits 0-2 clock step before it (0 to 301 s), bits 3-5 the window
 *       (65535, 0, 1, 100, 1000 to 32768) of the side the operation is
 *       on (clients: 0, 3; the backend's legs, new ones too: 1), bits 6-7
 *       what:
 *         0  client c2 & 3 sends request canned[c1 % N] (no payload)
 *         1  backend leg L sends the payload
 *         2  c1 & 3: 0 backend leg L FIN, 1 its RST, 2 client c2 & 3 FIN,
 *            3 its RST (no payload)
 *         3  client (c2 >> 3) & 3 sends the payload (raw bytes)
 *       The backend leg L is c2 >> 3: 0 the newest, k slot (k - 1) modulo
 *       the slots used. A client or leg that sent its FIN or RST sends no
 *       more (the operation is a clock step).
 *   c1-2 payload length (11 bits), taken from the input (0, 2: none)
 *
 * FUZZ_H2_TRACE=1 prints what each input reached (counters, what each
 * client read, the frames each backend leg read) before teardown; =2 also
 * every segment the router sends.
 *
 * Checked: no crash or sanitizer report; every segment the router sends is
 * IPv4/TCP with right checksums and its headers inside the frame; what a
 * client read starts as an HTTP/1.x response; after the
 * input, every leg reset and the clock run on, the flow table is empty
 * (flows_active 0: idle h2c connections too), no h2 session is left (h2_mem_bytes 0)
 * and, the worker gone, every mbuf is back in the pool.
 */
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "config/config_h2.h"
#include "dp_env.h"
#include "proxy/proxy.h"
#include "proxy/px_h2.h"
#include "proxy/px_msg.h"
#include "conn/conn.h"
#include "splice/splice.h"
#include "worker.h"

#define CLIENT_PORT 40000
#define N_CLIENT 4
#define BACKEND_PORT 8080
#define CLIENT_ISN 1000u
#define BACKEND_ISN 7000u
#define MSS 1460u
#define N_BACKEND 16
/* Long enough for every timeout (h2 idle: 300 s; tunnel: 1 h) to run out. */
#define TEARDOWN_S 7300
/* What one side keeps of its byte stream, sent and not yet acked. */
#define SND_MAX (64 * 1024)
/* ACKs and answers in a row before the harness stops to look (a loop). */
#define PUMP_MAX 4096

/* Our side of one TCP connection with the router. */
struct end {
	bool up;          /* the connection exists */
	bool syn_pending; /* backend: the router's SYN, not answered yet */
	bool fin_sent;    /* our FIN is wanted (after what is queued) */
	bool fin_out;     /* it went out (its sequence number is nxt) */
	bool fin_rcvd, dead;
	bool client;
	uint16_t lport;   /* our port */
	uint16_t rport;   /* the router's port (client: 80; backend: the SNAT port) */
	uint32_t rcv;     /* the router's next in-order sequence number */
	uint32_t una;     /* what the router acked of ours */
	uint32_t rwnd;    /* the router's window */
	uint32_t base;    /* sequence number of snd[0] */
	uint32_t nxt;     /* our next sequence number to send */
	uint32_t len;     /* bytes in snd */
	uint16_t win;     /* the window we advertise */
	bool need_ack;
	uint64_t got;     /* bytes the router sent us, in order */
	uint8_t snd[SND_MAX];
	uint8_t rx[4096]; /* the first bytes it read */
};

struct fz {
	struct end client[N_CLIENT];
	struct end be[N_BACKEND];
	unsigned n_be; /* slots used */
	int newest;    /* the newest backend leg, -1 none */
	uint16_t be_win; /* the window of the backend's legs, new ones too */
	unsigned requests;
};

static struct sy_test_dp d;
static struct fz fzs;
static bool trace;
static bool trace_segs; /* FUZZ_H2_TRACE=2: every segment the router sends */

/* The clients' requests, to h2c.test. */
#define H "Host: " SY_TEST_H2C "\r\n"
/* Each with its length: the gRPC one holds NULs. */
#define R(s) { s, sizeof(s) - 1 }
static const struct {
	const char *text;
	uint32_t len;
} canned[] = {
	R("GET / HTTP/1.1\r\n" H "User-Agent: fz\r\n\r\n"),
	R("HEAD /api HTTP/1.1\r\n" H "\r\n"),
	R("POST /up HTTP/1.1\r\n" H "Content-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world"),
	R("POST /ck HTTP/1.1\r\n" H "Transfer-Encoding: chunked\r\nTE: trailers\r\n\r\n"
	"5\r\nhello\r\n6;x=y\r\n world\r\n0\r\nX-Checksum: abc\r\nX-Other: 1\r\n\r\n"),
	R("POST /pkg.Svc/Call HTTP/1.1\r\n" H "Content-Type: application/grpc\r\nTE: trailers\r\n"
	"Content-Length: 10\r\n\r\n\x00\x00\x00\x00\x05hello"),
	R("POST /exp HTTP/1.1\r\n" H "Expect: 100-continue\r\nContent-Length: 4\r\n\r\nbody"),
	R("GET /close HTTP/1.1\r\n" H "Connection: close\r\n\r\n"),
	R("GET /a HTTP/1.1\r\n" H "\r\nGET /b HTTP/1.1\r\n" H "Accept: */*\r\n\r\n"),
	R("GET /old HTTP/1.0\r\n" H "\r\n"),
	R("POST /big HTTP/1.1\r\n" H "Content-Length: 30000\r\n\r\n"), /* + BIG_BODY bytes */
	R("OPTIONS * HTTP/1.1\r\n" H "\r\n"),
	R("GET /cookie HTTP/1.1\r\n" H "Cookie: a=1\r\nCookie: b=2\r\nX-Long: "
	"0123456789012345678901234567890123456789012345678901234567890123456789\r\n\r\n"),
};
#undef H
#undef R
#define N_CANNED (sizeof(canned) / sizeof(canned[0]))
#define BIG_REQ 9
#define BIG_BODY 30000

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
	struct sy_h2_config h2;

	(void)argc;
	(void)argv;
	if (sy_test_dp_init(&d, "fuzz_h2_backend", 4095) < 0)
		abort();
	/* routerd's defaults (dp_env's config has http2 zeroed); the
	 * backend sessions' callbacks are set up with them. */
	sy_config_h2_defaults(&h2);
	sy_dp_h2_configure(&h2);
	atexit(fini);
	return 0;
}

/* ------------------------------------------------------------ segments -- */

static bool drain(struct fz *f);

static void
send_raw(struct fz *f, struct end *e, uint8_t flags, uint32_t seq, const void *data, unsigned len,
	 const uint8_t *opts, unsigned optlen)
{
	struct sy_test_seg t = {
		.saddr = sy_test_ip4(e->client ? SY_TEST_CLIENT : SY_TEST_BACKEND),
		.daddr = sy_test_ip4(e->client ? SY_TEST_VIP : SY_TEST_SNAT),
		.sport = rte_cpu_to_be_16(e->lport),
		.dport = rte_cpu_to_be_16(e->rport),
		.seq = seq, .ack = e->rcv, .flags = flags, .win = e->win,
		.opts = opts, .optlen = optlen, .data = data, .len = len,
	};
	struct rte_mbuf *m;

	if (!(flags & RTE_TCP_SYN_FLAG) || (flags & RTE_TCP_ACK_FLAG))
		t.flags |= RTE_TCP_ACK_FLAG;
	if (flags & RTE_TCP_RST_FLAG)
		t.flags = RTE_TCP_RST_FLAG;
	m = sy_test_frame(d.mp, e->client ? 0 : 1, &t);
	if (m == NULL)
		return; /* the pool is short: what the router holds, not a bug here */
	if (!(flags & RTE_TCP_RST_FLAG))
		e->need_ack = false;
	sy_splice_rx_burst(d.w, e->client ? 0 : 1, &m, 1);
	drain(f); /* what it answers, before its TX queue fills */
}

/* Send what is queued and fits the router's window, MSS at a time, and
 * our FIN once all is sent. */
static void
send_pending(struct fz *f, struct end *e)
{
	while (e->up && !e->dead && !e->syn_pending) {
		uint32_t off = e->nxt - e->base, flight = e->nxt - e->una, n;

		if (off >= e->len || flight >= e->rwnd)
			break;
		n = e->len - off;
		if (n > MSS)
			n = MSS;
		if (n > e->rwnd - flight)
			n = e->rwnd - flight;
		send_raw(f, e, RTE_TCP_PSH_FLAG, e->nxt, e->snd + off, n, NULL, 0);
		e->nxt += n;
	}
	if (e->up && !e->dead && !e->syn_pending && e->fin_sent && !e->fin_out &&
	    e->nxt - e->base == e->len) {
		send_raw(f, e, RTE_TCP_FIN_FLAG, e->nxt, NULL, 0, NULL, 0);
		e->fin_out = true;
	}
}

/* Our sequence number after what went out. */
static uint32_t
snd_end(const struct end *e)
{
	return e->nxt + e->fin_out;
}

/* A reset the router takes: at what it acked, and at what we sent (one
 * of them is its next expected sequence number; it may delay an ACK). */
static void
reset_end(struct fz *f, struct end *e)
{
	if (!e->up || e->dead)
		return;
	send_raw(f, e, RTE_TCP_RST_FLAG, e->una, NULL, 0, NULL, 0);
	if (snd_end(e) != e->una)
		send_raw(f, e, RTE_TCP_RST_FLAG, snd_end(e), NULL, 0, NULL, 0);
	e->dead = true;
}

/* Queue bytes to send (what does not fit our buffer is dropped: the
 * stream breaks, as it may). */
static void
queue(struct end *e, const void *p, uint32_t n)
{
	uint32_t acked = e->una - e->base;

	if (acked > 0 && acked <= e->len) {
		memmove(e->snd, e->snd + acked, e->len - acked);
		e->len -= acked;
		e->base = e->una;
	}
	if (n > SND_MAX - e->len)
		n = SND_MAX - e->len;
	memcpy(e->snd + e->len, p, n);
	e->len += n;
}

static struct end *
backend_by_port(struct fz *f, uint16_t port)
{
	unsigned i;

	for (i = 0; i < f->n_be; i++)
		if (f->be[i].up && f->be[i].rport == port)
			return &f->be[i];
	return NULL;
}

static void
end_reset(struct end *e, bool client)
{
	memset(e, 0, offsetof(struct end, snd));
	e->client = client;
}

/* The router opens a backend leg: a slot (e's if it had this port, a free
 * one, or none: the SYN goes unanswered and the router's connect timeout
 * runs). */
static struct end *
backend_open(struct fz *f, struct end *e, uint16_t port, uint32_t seq, uint16_t win,
	     uint16_t our_win)
{
	unsigned i;

	for (i = 0; i < f->n_be && e == NULL; i++)
		if (!f->be[i].up || f->be[i].dead)
			e = &f->be[i];
	if (e == NULL && f->n_be < N_BACKEND)
		e = &f->be[f->n_be++];
	if (e == NULL)
		return NULL;
	end_reset(e, false);
	e->up = true;
	e->lport = BACKEND_PORT;
	e->rport = port;
	e->rcv = seq + 1;
	e->base = e->una = BACKEND_ISN + 1;
	e->nxt = BACKEND_ISN + 1;
	e->rwnd = win;
	e->win = our_win;
	e->syn_pending = true;
	f->newest = (int)(e - f->be);
	return e;
}

/* A segment the router sent on port p: checked, and taken by its end. */
static void
inspect(struct fz *f, unsigned p, struct rte_mbuf *m)
{
	static uint8_t buf[RTE_MBUF_DEFAULT_BUF_SIZE * 64];
	const struct rte_ether_hdr *eh;
	const struct rte_ipv4_hdr *ip;
	const struct rte_tcp_hdr *th;
	const uint8_t *payload;
	struct end *e;
	unsigned ihl, thl, plen;
	uint32_t seq;
	uint8_t fl;

	if (m->pkt_len > sizeof(buf) || m->pkt_len < sizeof(*eh))
		abort();
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
	payload = (const uint8_t *)th + thl;
	seq = rte_be_to_cpu_32(th->sent_seq);
	fl = th->tcp_flags;
	if (trace_segs)
		fprintf(stderr, "  t=%lu ms %s %u -> %u flags %#x seq %u ack %u win %u len %u\n",
			(unsigned long)(d.w->now / d.w->sh->tsc_per_ms % 1000000), p ? "be" : "cl",
			rte_be_to_cpu_16(th->src_port), rte_be_to_cpu_16(th->dst_port), fl, seq,
			rte_be_to_cpu_32(th->recv_ack), rte_be_to_cpu_16(th->rx_win), plen);
	if (p == 0) {
		unsigned k = rte_be_to_cpu_16(th->dst_port) - CLIENT_PORT;

		if (k >= N_CLIENT || !f->client[k].up)
			return;
		e = &f->client[k];
	} else {
		if (rte_be_to_cpu_16(th->dst_port) != BACKEND_PORT)
			return;
		e = backend_by_port(f, rte_be_to_cpu_16(th->src_port));
		if ((fl & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) == RTE_TCP_SYN_FLAG) {
			if (e != NULL && !e->dead && e->rcv == seq + 1)
				e->syn_pending = true; /* again: the SYN-ACK again */
			else
				backend_open(f, e, rte_be_to_cpu_16(th->src_port), seq,
					     rte_be_to_cpu_16(th->rx_win), f->be_win);
			return;
		}
		if (e == NULL)
			return; /* an older leg's last words */
	}
	if (e->dead)
		return;
	if (fl & RTE_TCP_RST_FLAG) {
		e->dead = true;
		return;
	}
	if (p == 0 && (fl & RTE_TCP_SYN_FLAG)) {
		/* The SYN-ACK of the handshake */
		e->rcv = seq + 1;
		e->rwnd = rte_be_to_cpu_16(th->rx_win);
		return;
	}
	if (fl & RTE_TCP_ACK_FLAG) {
		uint32_t ack = rte_be_to_cpu_32(th->recv_ack);

		if ((int32_t)(ack - e->una) > 0 && (int32_t)(ack - snd_end(e)) <= 0)
			e->una = ack;
		e->rwnd = rte_be_to_cpu_16(th->rx_win);
	}
	/* Data, or a segment not where we are (a keep-alive probe is one
	 * byte back): an ACK says where. */
	if (plen > 0 || (fl & (RTE_TCP_FIN_FLAG | RTE_TCP_SYN_FLAG)) || seq != e->rcv)
		e->need_ack = true;
	/* In order, and inside the window we gave: taken (and forgotten). */
	if (plen > 0 && (int32_t)(seq - e->rcv) <= 0 && (int32_t)(seq + plen - e->rcv) > 0 &&
	    !e->fin_rcvd) {
		uint32_t skip = e->rcv - seq, n = plen - skip;

		if (n > e->win)
			n = e->win;
		if (e->got < sizeof(e->rx))
			memcpy(e->rx + e->got, payload + skip,
			       RTE_MIN((uint64_t)n, sizeof(e->rx) - e->got));
		e->rcv += n;
		e->got += n;
		if (n < plen - skip)
			return; /* the rest (and a FIN) is not taken */
	}
	if ((fl & RTE_TCP_FIN_FLAG) && seq + plen == e->rcv && !e->fin_rcvd) {
		e->fin_rcvd = true;
		e->rcv++;
		/* The router closes: so do we (a backend at once; a client
		 * too: it has its answer or never will). */
		e->fin_sent = true;
	}
}

/* Take and check everything the worker queued for TX. */
static bool
drain(struct fz *f)
{
	struct sy_worker *w = d.w;
	bool any = false;
	unsigned p, i;

	for (p = 0; p < 2; p++) {
		for (i = 0; i < w->txq[p].n; i++) {
			inspect(f, p, w->txq[p].pkts[i]);
			rte_pktmbuf_free(w->txq[p].pkts[i]);
			any = true;
		}
		w->txq[p].n = 0;
		w->txq[p].bytes = 0;
	}
	return any;
}

/* One of our ends sends what it has to: SYN-ACK, data, FIN, ACK. True
 * when anything went. */
static bool
end_output(struct fz *f, struct end *e)
{
	static const uint8_t mss[] = { 2, 4, 0x05, 0xb4 };
	uint32_t before = snd_end(e);

	if (!e->up || e->dead)
		return false;
	if (e->fin_rcvd && e->fin_out && e->una == snd_end(e) && !e->need_ack) {
		e->dead = true; /* closed both ways: the slot is free */
		return false;
	}
	if (e->syn_pending) {
		e->syn_pending = false;
		send_raw(f, e, RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG, BACKEND_ISN, NULL, 0, mss,
			 sizeof(mss));
		return true;
	}
	send_pending(f, e);
	if (snd_end(e) != before)
		return true;
	if (e->need_ack) {
		send_raw(f, e, 0, snd_end(e), NULL, 0, NULL, 0);
		return true;
	}
	return false;
}

/* Every peer answers what the router sent until it has nothing to say. */
static void
pump(struct fz *f)
{
	unsigned rounds, i;

	for (rounds = 0; rounds < PUMP_MAX; rounds++) {
		bool any = drain(f);

		for (i = 0; i < f->n_be; i++)
			any |= end_output(f, &f->be[i]);
		for (i = 0; i < N_CLIENT; i++)
			any |= end_output(f, &f->client[i]);
		if (!any && !drain(f))
			return;
	}
}

/* Move the clock ms forward in steps of step_ms, timers run at each; then
 * what was not acked is sent again (a retransmission, go-back-N). */
static void
advance(struct fz *f, uint64_t ms, uint64_t step_ms)
{
	struct sy_worker *w = d.w;
	uint64_t target = w->now + sy_ms_to_tsc(w, ms);
	uint64_t step = sy_ms_to_tsc(w, step_ms);
	unsigned i;

	while (w->now < target) {
		w->now = w->now + step < target ? w->now + step : target;
		sy_conn_timers_run(w);
		pump(f);
	}
	if (ms < 200)
		return;
	for (i = 0; i < f->n_be + N_CLIENT; i++) {
		struct end *e = i < f->n_be ? &f->be[i] : &f->client[i - f->n_be];

		if (e->up && !e->dead && e->una != snd_end(e) && e->una - e->base <= e->len) {
			e->nxt = e->una;
			e->fin_out = false;
			if (e->rwnd == 0)
				e->rwnd = 1; /* a window probe */
			send_pending(f, e);
		}
	}
	pump(f);
}

/* Client k, its handshake done on first use (a port that was used and
 * closed is not used again: the router may hold it in TIME_WAIT). */
static struct end *
client(struct fz *f, unsigned k)
{
	static const uint8_t mss[] = { 2, 4, 0x05, 0xb4 };
	struct end *c = &f->client[k];

	if (c->up)
		return c->dead || c->fin_sent ? NULL : c;
	c->up = true;
	c->win = 65535;
	c->lport = (uint16_t)(CLIENT_PORT + k);
	c->rport = 80;
	c->base = c->una = c->nxt = CLIENT_ISN + 1;
	send_raw(f, c, RTE_TCP_SYN_FLAG, CLIENT_ISN, NULL, 0, mss, sizeof(mss));
	drain(f);
	c->need_ack = true;
	pump(f);
	return c;
}

/* Backend leg sel (0: the newest; k: slot k - 1), if it is up. */
static struct end *
backend(struct fz *f, unsigned sel)
{
	struct end *e;

	if (sel == 0)
		e = f->newest >= 0 ? &f->be[f->newest] : NULL;
	else
		e = f->n_be > 0 ? &f->be[(sel - 1) % f->n_be] : NULL;
	return e != NULL && e->up && !e->dead && !e->fin_sent ? e : NULL;
}

/* ------------------------------------------------------------ the input -- */

static void
set_win(struct end *e, uint16_t win)
{
	if (e->up && !e->dead && e->win != win) {
		e->win = win;
		e->need_ack = true; /* a window update */
	}
}

static bool
operation(struct fz *f, const uint8_t **in, size_t *left)
{
	static const uint32_t steps_ms[8] = { 0, 0, 1, 20, 300, 3000, 31000, 301000 };
	static const uint16_t wins[8] = { 65535, 0, 1, 100, 1000, 8192, 16384, 32768 };
	const uint8_t *op = *in;
	uint32_t ms, len;
	uint16_t win;
	struct end *e;
	unsigned i;

	if (*left < 3)
		return false;
	*in += 3;
	*left -= 3;
	ms = steps_ms[op[0] & 7];
	if (ms > 0)
		advance(f, ms, ms > 31000 ? 1000 : ms > 3000 ? 100 : ms > 20 ? 10 : SY_WHEEL_TICK_MS);
	win = wins[(op[0] >> 3) & 7];
	len = (uint32_t)(op[1] | op[2] << 8) & 0x7ff;
	if (len > *left)
		len = (uint32_t)*left;
	switch (op[0] >> 6) {
	case 0:
		for (i = 0; i < N_CLIENT; i++)
			set_win(&f->client[i], win);
		e = client(f, op[2] & 3);
		if (e != NULL) {
			unsigned k = op[1] % N_CANNED;

			e->win = win;
			queue(e, canned[k].text, canned[k].len);
			if (k == BIG_REQ) {
				static uint8_t big[BIG_BODY];

				memset(big, 'b', sizeof(big));
				queue(e, big, sizeof(big));
			}
			f->requests++;
			send_pending(f, e);
		}
		len = 0;
		break;
	case 1:
		f->be_win = win;
		for (i = 0; i < f->n_be; i++)
			set_win(&f->be[i], win);
		e = backend(f, op[2] >> 3);
		if (e != NULL) {
			queue(e, *in, len);
			send_pending(f, e);
		}
		break;
	case 2:
		switch (op[1] & 3) {
		case 0:
		case 1:
			e = backend(f, op[2] >> 3);
			break;
		default:
			e = client(f, op[2] & 3);
			break;
		}
		if (e != NULL) {
			if (op[1] & 1) {
				reset_end(f, e);
			} else {
				e->fin_sent = true;
				send_pending(f, e);
			}
		}
		len = 0;
		break;
	default:
		for (i = 0; i < N_CLIENT; i++)
			set_win(&f->client[i], win);
		e = client(f, (op[2] >> 3) & 3);
		if (e != NULL) {
			e->win = win;
			queue(e, *in, len);
			send_pending(f, e);
		}
		break;
	}
	*in += len;
	*left -= len;
	pump(f);
	return true;
}

/* What a client read (FUZZ_H2_TRACE), its first bytes, escaped. */
static void
trace_client(unsigned k, const struct end *e)
{
	uint64_t i, n = RTE_MIN(e->got, (uint64_t)sizeof(e->rx));

	fprintf(stderr, "  client %u read %lu bytes: ", k, (unsigned long)e->got);
	for (i = 0; i < n; i++) {
		uint8_t ch = e->rx[i];

		if (ch == '\n')
			fprintf(stderr, "\\n");
		else if (ch >= 0x20 && ch < 0x7f && ch != '\\')
			fputc(ch, stderr);
		else if (ch != '\r')
			fprintf(stderr, "\\x%02x", ch);
	}
	fprintf(stderr, "\n");
}

/* The frames a backend leg read (FUZZ_H2_TRACE): after the preface, by
 * type and stream, as far as its first bytes go. */
static void
trace_backend(unsigned k, const struct end *e)
{
	static const char *const names[10] = { "DATA", "HEADERS", "PRIORITY", "RST_STREAM",
					       "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY",
					       "WINDOW_UPDATE", "CONTINUATION" };
	uint64_t n = RTE_MIN(e->got, (uint64_t)sizeof(e->rx)), at = SY_H2_PREFACE_LEN;

	fprintf(stderr, "  backend leg %u (port %u) read %lu bytes:", k, e->rport,
		(unsigned long)e->got);
	if (n < at || memcmp(e->rx, SY_H2_PREFACE, SY_H2_PREFACE_LEN) != 0) {
		fprintf(stderr, " no h2 preface\n");
		return;
	}
	fprintf(stderr, " preface");
	while (at + 9 <= n) {
		uint32_t len = (uint32_t)e->rx[at] << 16 | (uint32_t)e->rx[at + 1] << 8 |
			       e->rx[at + 2];
		uint8_t type = e->rx[at + 3], flags = e->rx[at + 4];
		uint32_t sid = ((uint32_t)e->rx[at + 5] << 24 | (uint32_t)e->rx[at + 6] << 16 |
				(uint32_t)e->rx[at + 7] << 8 | e->rx[at + 8]) & 0x7fffffff;

		fprintf(stderr, " %s", type < 10 ? names[type] : "?");
		fprintf(stderr, "(%u,%#x,%u)", sid, flags, len);
		if (type == 7 && len >= 8 && at + 17 <= n)
			fprintf(stderr, "[code %u]", (unsigned)e->rx[at + 16]);
		at += 9 + len;
	}
	fprintf(stderr, "\n");
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

		if (c->state == 0)
			continue;
		fprintf(stderr, "  record %u: state %u flags %#x timer %s expire in %ld ms", i,
			c->state, c->flags, (c->flags & SY_CF_TIMER) ? "on" : "off",
			(long)(((int64_t)c->expire - (int64_t)w->now) / (int64_t)w->sh->tsc_per_ms));
		if ((c->state == SY_CONN_PROXY || c->state == SY_CONN_PROXY_BE) && px != NULL)
			fprintf(stderr, "; proxy: client tcb %u backend tcb %u", px->c.state,
				px->b.state);
		fprintf(stderr, "\n");
	}
}

/* Every leg reset at what the router expects, then the clock run on
 * until nothing is left (every timeout has an end, the idle pool's
 * included). */
static void
teardown(struct fz *f)
{
	struct sy_worker *w = d.w;
	unsigned i;

	for (i = 0; i < f->n_be + N_CLIENT; i++) {
		reset_end(f, i < f->n_be ? &f->be[i] : &f->client[i - f->n_be]);
		drain(f);
	}
	/* Seconds at a time: a timer may fire up to a second late here. */
	for (i = 0; i < TEARDOWN_S && w->counters.flows_active != 0; i++) {
		w->now += sy_ms_to_tsc(w, 1000);
		sy_conn_timers_run(w);
		drain(f);
	}
	if (w->counters.flows_active != 0) {
		fprintf(stderr, "fuzz_h2_backend: %lu flows left after %u s\n",
			(unsigned long)w->counters.flows_active, TEARDOWN_S);
		dump_records();
		abort();
	}
	if (w->counters.h2_mem_bytes != 0) {
		fprintf(stderr, "fuzz_h2_backend: %lu bytes of h2 sessions left, no flow\n",
			(unsigned long)w->counters.h2_mem_bytes);
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz *f = &fzs;
	const uint8_t *in = data;
	size_t left = size;
	unsigned leaked, i;
	uint64_t unit;

	for (i = 0; i < N_CLIENT; i++)
		end_reset(&f->client[i], true);
	for (i = 0; i < N_BACKEND; i++)
		end_reset(&f->be[i], false);
	f->n_be = 0;
	f->newest = -1;
	f->be_win = 65535;
	f->requests = 0;
	trace = getenv("FUZZ_H2_TRACE") != NULL;
	trace_segs = trace && strcmp(getenv("FUZZ_H2_TRACE"), "2") == 0;
	if (sy_test_dp_worker(&d) < 0)
		abort();
	/* The same phase on every run (fuzz_tcp_input.c). */
	unit = sy_ms_to_tsc(d.w, 65536);
	d.w->now = (d.w->now / unit + 1) * unit;
	sy_conn_timers_run(d.w);
	while (operation(f, &in, &left))
		;
	if (trace) {
		const struct sy_worker_counters *c = &d.w->counters;

		fprintf(stderr,
			"requests sent %u routed %lu backend_conns %lu h2_backend_conns %lu "
			"h2_backend_streams %lu resets %lu errors %lu reused %lu pooled %lu "
			"parked %lu replays %lu no_memory %lu h2_mem %lu flows %lu\n",
			f->requests, (unsigned long)c->proxy_requests,
			(unsigned long)c->proxy_backend_conns, (unsigned long)c->h2_backend_conns,
			(unsigned long)c->h2_backend_streams, (unsigned long)c->h2_backend_resets,
			(unsigned long)c->h2_backend_errors, (unsigned long)c->proxy_backend_reused,
			(unsigned long)c->proxy_backend_pooled, (unsigned long)c->proxy_backend_parked,
			(unsigned long)c->proxy_backend_replays, (unsigned long)c->h2_no_memory,
			(unsigned long)c->h2_mem_bytes, (unsigned long)c->flows_active);
		for (i = 0; i < N_CLIENT; i++)
			if (f->client[i].up)
				trace_client(i, &f->client[i]);
		for (i = 0; i < f->n_be; i++)
			trace_backend(i, &f->be[i]);
	}
	/* Whatever the backend said, an HTTP/1.1 client reads HTTP/1.x: its
	 * first response head (as far as it came) is one. */
	for (i = 0; i < N_CLIENT; i++) {
		const struct end *c = &f->client[i];
		uint32_t n = (uint32_t)RTE_MIN(c->got, (uint64_t)sizeof(c->rx));
		struct sy_px_resp r;

		if (n > 0 && (memcmp(c->rx, "HTTP/1.", RTE_MIN(n, 7u)) != 0 ||
			      sy_px_parse_response(c->rx, n, SY_PROXY_HEAD_MAX, false, false, &r) < 0)) {
			trace_client(i, c);
			fprintf(stderr, "fuzz_h2_backend: client %u read no HTTP/1.x response\n", i);
			abort();
		}
	}
	teardown(f);
	drain(f);
	leaked = sy_test_dp_worker_free(&d);
	if (leaked != 0) {
		fprintf(stderr, "fuzz_h2_backend: %u mbufs not back in the pool\n", leaked);
		abort();
	}
	return 0;
}
