/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer entry for the HTTP/2 session of a proxied connection
 * (dataplane/proxy/px_h2.c, px_h2_stream.c): h2c with prior knowledge on the
 * plain listener, every stream an exchange of the HTTP/1.1 proxy towards
 * px.test's service. One fresh worker of the in-process data plane per input
 * (tests/lib/dp_env.h), on a virtual clock, as fuzz_tcp_input.c; http2 on
 * with routerd's defaults (sy_config_h2_defaults) but for the reset and
 * flood bursts (RESET_BURST, FLOOD_BURST: small enough to be emptied by an
 * input). Built by meson with
 * -Dfuzz=true and clang (tests/fuzz/meson.build), run in CI on the seeds in
 * tests/fuzz/corpus/fuzz_h2/ (made by tests/fuzz/fuzz_h2_seeds.py with
 * python3-h2); by hand:
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
 *   ninja -C build-fuzz tests/fuzz/fuzz_h2
 *   cp -r tests/fuzz/corpus/fuzz_h2 /tmp/c && build-fuzz/tests/fuzz/fuzz_h2 -max_total_time=300 /tmp/c
 *   meson test -C build-fuzz --suite fuzz fuzz_h2 -v    (what CI runs: 30 s on a copy)
 *
 * The client (198.18.0.2) does the handshake and sends the h2c preface
 * (SY_H2_PREFACE); the rest of its byte stream is the input's. It ACKs
 * what the router sends with the window the input chooses (0 too: the
 * router's queues and the streams' pipes fill), and retransmits what the
 * router did not take once the clock moves. The backend (198.18.1.10:8080)
 * accepts every SYN of the router, reads the HTTP/1.1 requests it gets
 * (heads, then Content-Length or chunked bodies) and answers each head with
 * a canned response chosen by the input.
 *
 * Input: byte 0 the first canned response, byte 1 the step to the next
 * one's (request i gets canned[(b0 + i * b1) % N]), then operations of 3
 * bytes and their payload:
 *
 *   c0  bits 0-2 clock step before it (0 to 301 s), bits 3-5 the client's
 *       window from here on (0 to 65535), bits 6-7 what:
 *         0, 1  client: the payload as the next segment (none: a bare ACK
 *               with the new window)
 *         2     client: the payload, then FIN
 *         3     backend, the newest leg: FIN (c1 bit 0 clear) or RST
 *   c1-2 payload length (11 bits), taken from the input (3: none)
 *
 * FUZZ_H2_TRACE=1 prints what each input reached (counters, and the frames
 * the client read by type) before teardown.
 *
 * Checked: no crash or sanitizer report; every segment the router sends is
 * IPv4/TCP with right checksums and its headers inside the frame; after the
 * input, every leg reset and the clock run on, the flow table is empty
 * (flows_active 0) and, the worker gone, every mbuf is back in the pool.
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
#include "peek/peek.h"
#include "proxy/proxy.h"
#include "proxy/px_h2.h"
#include "proxy/px_msg.h"
#include "conn/conn.h"
#include "splice/splice.h"
#include "worker.h"

#define CLIENT_PORT 40000
#define BACKEND_PORT 8080
#define CLIENT_ISN 1000u
#define BACKEND_ISN 7000u
#define MSS 1460u
#define N_BACKEND 16
/* Long enough for every timeout (h2 idle: 300 s; tunnel: 1 h) to run out. */
#define TEARDOWN_S 7300
/* What one side keeps of its byte stream, sent and not yet acked. */
#define SND_MAX (64 * 1024)
/* What the backend holds of a request it has not framed yet. */
#define RCV_MAX (SY_PROXY_HEAD_MAX + 1024)
/* The http2 budgets of the session (the rest is routerd's defaults). */
#define RESET_BURST 10
#define FLOOD_BURST 50
/* ACKs and answers in a row before the harness stops to look (a loop). */
#define PUMP_MAX 4096

/* Our side of one TCP connection with the router. */
struct end {
	bool up;          /* the connection exists (client: from the start) */
	bool syn_pending; /* backend: the router's SYN, not answered yet */
	bool fin_sent;    /* our FIN is wanted (after what is queued) */
	bool fin_out;     /* it went out (its sequence number is nxt) */
	bool fin_rcvd, dead;
	uint16_t rport;   /* the router's port (backend: the SNAT port) */
	uint32_t rcv;     /* the router's next in-order sequence number */
	uint32_t una;     /* what the router acked of ours */
	uint32_t rwnd;    /* the router's window */
	uint32_t base;    /* sequence number of snd[0] */
	uint32_t nxt;     /* our next sequence number to send */
	uint32_t len;     /* bytes in snd */
	uint16_t win;     /* the window we advertise */
	bool need_ack;
	uint8_t snd[SND_MAX];
	/* backend: the requests it reads */
	uint32_t rlen;
	bool rnew;        /* rbuf has bytes not looked at yet */
	uint8_t state;    /* R_HEAD, R_LENGTH, R_CHUNKED, R_DONE */
	uint64_t body_left;
	struct sy_px_chunked ck;
	uint8_t rbuf[RCV_MAX];
};

enum { R_HEAD, R_LENGTH, R_CHUNKED, R_DONE };

struct fz {
	struct end client;
	struct end be[N_BACKEND];
	unsigned n_be;      /* slots used */
	int newest;         /* the newest backend leg, -1 none */
	unsigned requests;  /* request heads the backend answered */
	uint8_t sel, step;  /* which canned response */
};

static struct sy_test_dp d;
static struct fz fzs;
/* What the client read (FUZZ_H2_TRACE: its frames are counted). */
static uint8_t crx[1 << 20];
static uint32_t crx_len;
static bool trace;

/* The backend's answers. "" is none (the stream waits for its timeout);
 * a response that ends in CLOSE is followed by the backend's FIN. */
static const struct {
	const char *text;
	bool close;
} canned[] = {
	{ "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A: b\r\n\r\nhello", false },
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nConnection: keep-alive\r\n\r\n"
	  "5\r\nhello\r\n3;ext=1\r\nabc\r\n0\r\nX-Trailer: t\r\n\r\n", false },
	{ "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok", false },
	{ "HTTP/1.0 200 OK\r\nContent-Type: text/plain\r\n\r\nuntil close", true },
	{ "HTTP/1.1 204 No Content\r\nKeep-Alive: timeout=5\r\n\r\n", false },
	{ "HTTP/1.1 2x0 Bad\r\nContent-Length: zz\r\n\r\n", true },
	{ "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", true },
	{ "", false },
	{ "HTTP/1.1 304 Not Modified\r\nETag: \"x\"\r\n\r\n", false },
	{ "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Length: 4\r\n\r\nbusy",
	  true },
	{ NULL, false }, /* a body of BIG_BODY bytes (the client's windows) */
	{ "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
	  "4000\r\n", true }, /* a chunk cut short by the close */
};
#define N_CANNED (sizeof(canned) / sizeof(canned[0]))
#define BIG_BODY 40000

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
	if (sy_test_dp_init(&d, "fuzz_h2", 4095) < 0)
		abort();
	/* dp_env's config has http2 off (zeroed): routerd's defaults, but
	 * budgets an input of a few KiB can empty (the default flood burst
	 * is 1000 frames, 9 KiB at least; -max_len is 8 KiB in CI). */
	sy_config_h2_defaults(&h2);
	h2.reset_burst = RESET_BURST;
	h2.flood_burst = FLOOD_BURST;
	sy_dp_h2_configure(&h2);
	if (!sy_dp_h2_on())
		abort();
	atexit(fini);
	return 0;
}

/* ------------------------------------------------------------ segments -- */

static bool drain(struct fz *f);

static void
send_raw(struct fz *f, struct end *e, uint8_t flags, uint32_t seq, const void *data, unsigned len,
	 const uint8_t *opts, unsigned optlen)
{
	bool client = e == &f->client;
	struct sy_test_seg t = {
		.saddr = sy_test_ip4(client ? SY_TEST_CLIENT : SY_TEST_BACKEND),
		.daddr = sy_test_ip4(client ? SY_TEST_VIP : SY_TEST_SNAT),
		.sport = rte_cpu_to_be_16(client ? CLIENT_PORT : BACKEND_PORT),
		.dport = rte_cpu_to_be_16(client ? 80 : e->rport),
		.seq = seq, .ack = e->rcv, .flags = flags, .win = e->win,
		.opts = opts, .optlen = optlen, .data = data, .len = len,
	};
	struct rte_mbuf *m;

	if (!(flags & RTE_TCP_SYN_FLAG) || (flags & RTE_TCP_ACK_FLAG))
		t.flags |= RTE_TCP_ACK_FLAG;
	if (flags & RTE_TCP_RST_FLAG)
		t.flags = RTE_TCP_RST_FLAG;
	m = sy_test_frame(d.mp, client ? 0 : 1, &t);
	if (m == NULL)
		return; /* the pool is short: what the router holds, not a bug here */
	if (!(flags & RTE_TCP_RST_FLAG))
		e->need_ack = false;
	sy_splice_rx_burst(d.w, client ? 0 : 1, &m, 1);
	drain(f); /* what it answers, before its TX queue fills */
}

/* Send what is queued and fits the router's window, MSS at a time, and
 * our FIN once all is sent. */
static void
send_pending(struct fz *f, struct end *e)
{
	while (e->up && !e->dead) {
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
	if (e->up && !e->dead && e->fin_sent && !e->fin_out && e->nxt - e->base == e->len) {
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

/* The router opens a backend leg: a slot (e's if it had this port, a free
 * one, or none: the SYN goes unanswered and the router's connect timeout
 * runs). */
static struct end *
backend_open(struct fz *f, struct end *e, uint16_t port, uint32_t seq, uint16_t win)
{
	unsigned i;

	for (i = 0; i < f->n_be && e == NULL; i++)
		if (!f->be[i].up || f->be[i].dead)
			e = &f->be[i];
	if (e == NULL && f->n_be < N_BACKEND)
		e = &f->be[f->n_be++];
	if (e == NULL)
		return NULL;
	memset(e, 0, offsetof(struct end, snd));
	e->rlen = 0;
	e->rnew = false;
	e->state = R_HEAD;
	e->body_left = 0;
	memset(&e->ck, 0, sizeof(e->ck));
	e->up = true;
	e->rport = port;
	e->rcv = seq + 1;
	e->base = e->una = BACKEND_ISN + 1;
	e->nxt = BACKEND_ISN + 1;
	e->rwnd = win;
	e->win = 65535;
	e->syn_pending = true;
	f->newest = (int)(e - f->be);
	return e;
}

/* The backend's answer to request head number i. */
static void
answer(struct fz *f, struct end *e)
{
	unsigned k = (f->sel + f->requests++ * (unsigned)f->step) % N_CANNED;

	if (canned[k].text == NULL) {
		static char big[BIG_BODY];
		char head[64];
		int n = snprintf(head, sizeof(head), "HTTP/1.1 200 OK\r\nContent-Length: %u\r\n\r\n",
				 (unsigned)BIG_BODY);

		memset(big, 'b', sizeof(big));
		queue(e, head, (uint32_t)n);
		queue(e, big, sizeof(big));
	} else {
		queue(e, canned[k].text, (uint32_t)strlen(canned[k].text));
	}
	if (canned[k].close) {
		e->fin_sent = true;
		e->state = R_DONE;
	}
}

/* The backend reads what it got: request heads (each answered), their
 * bodies skipped by their framing. */
static void
backend_read(struct fz *f, struct end *e)
{
	for (;;) {
		struct sy_px_req req;
		enum sy_px_msg_status st;
		uint32_t used = 0;

		if (e->rlen == 0 || e->state == R_DONE)
			return;
		switch (e->state) {
		case R_HEAD:
			st = sy_px_parse_request(e->rbuf, e->rlen, SY_PROXY_HEAD_MAX, &req);
			if (st == SY_PX_MSG_MORE) {
				if (e->rlen >= SY_PROXY_HEAD_MAX)
					goto bad;
				return;
			}
			if (st != SY_PX_MSG_DONE)
				goto bad;
			used = req.h.head_len;
			answer(f, e);
			if (e->state == R_DONE)
				break;
			if (req.framing == SY_PX_BODY_LENGTH) {
				e->state = R_LENGTH;
				e->body_left = req.length;
			} else if (req.framing == SY_PX_BODY_CHUNKED) {
				e->state = R_CHUNKED;
				memset(&e->ck, 0, sizeof(e->ck));
			}
			break;
		case R_LENGTH:
			used = e->body_left < e->rlen ? (uint32_t)e->body_left : e->rlen;
			e->body_left -= used;
			if (e->body_left == 0)
				e->state = R_HEAD;
			break;
		case R_CHUNKED:
			st = sy_px_chunked_feed(&e->ck, e->rbuf, e->rlen, &used);
			if (st == SY_PX_MSG_DONE)
				e->state = R_HEAD;
			else if (st != SY_PX_MSG_MORE)
				goto bad;
			break;
		default:
			return;
		}
		memmove(e->rbuf, e->rbuf + used, e->rlen - used);
		e->rlen -= used;
		if (used == 0 && e->state != R_HEAD)
			return;
	}
bad:
	/* Not a request this backend can frame: it closes. */
	e->state = R_DONE;
	e->fin_sent = true;
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
	if (p == 0) {
		if (rte_be_to_cpu_16(th->dst_port) != CLIENT_PORT)
			return;
		e = &f->client;
	} else {
		if (rte_be_to_cpu_16(th->dst_port) != BACKEND_PORT)
			return;
		e = backend_by_port(f, rte_be_to_cpu_16(th->src_port));
		if ((fl & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) == RTE_TCP_SYN_FLAG) {
			if (e != NULL && !e->dead && e->rcv == seq + 1)
				e->syn_pending = true; /* again: the SYN-ACK again */
			else
				backend_open(f, e, rte_be_to_cpu_16(th->src_port), seq,
					     rte_be_to_cpu_16(th->rx_win));
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
	/* In order, and (the client) inside the window we gave. */
	if (plen > 0 && (int32_t)(seq - e->rcv) <= 0 && (int32_t)(seq + plen - e->rcv) > 0 &&
	    !e->fin_rcvd) {
		uint32_t skip = e->rcv - seq, n = plen - skip;

		if (p == 0) {
			if (n > e->win)
				n = e->win;
		} else if (e->state != R_DONE && n > RCV_MAX - e->rlen) {
			n = RCV_MAX - e->rlen;
		}
		if (p == 0 && trace && n <= sizeof(crx) - crx_len) {
			memcpy(crx + crx_len, payload + skip, n);
			crx_len += n;
		}
		if (p == 1 && e->state != R_DONE) {
			memcpy(e->rbuf + e->rlen, payload + skip, n);
			e->rlen += n;
			e->rnew = true;
		}
		e->rcv += n;
		if (n < plen - skip)
			return; /* the rest (and a FIN) is not taken */
	}
	if ((fl & RTE_TCP_FIN_FLAG) && seq + plen == e->rcv && !e->fin_rcvd) {
		e->fin_rcvd = true;
		e->rcv++;
		if (p == 1) {
			/* The router closes a pooled leg: so does the backend. */
			e->fin_sent = true;
			e->state = R_DONE;
		}
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
	if (e->rnew) {
		e->rnew = false;
		backend_read(f, e);
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

/* Both peers answer what the router sent until it has nothing to say. */
static void
pump(struct fz *f)
{
	unsigned rounds, i;

	for (rounds = 0; rounds < PUMP_MAX; rounds++) {
		bool any = drain(f);

		for (i = 0; i < f->n_be; i++)
			any |= end_output(f, &f->be[i]);
		any |= end_output(f, &f->client);
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
	for (i = 0; i <= f->n_be; i++) {
		struct end *e = i < f->n_be ? &f->be[i] : &f->client;

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

/* ------------------------------------------------------------ the input -- */

static bool
operation(struct fz *f, const uint8_t **in, size_t *left)
{
	static const uint32_t steps_ms[8] = { 0, 0, 1, 20, 300, 3000, 31000, 301000 };
	static const uint16_t wins[8] = { 0, 1, 100, 1000, 8192, 16384, 32768, 65535 };
	const uint8_t *op = *in;
	uint32_t ms, len;
	struct end *c = &f->client;

	if (*left < 3)
		return false;
	*in += 3;
	*left -= 3;
	ms = steps_ms[op[0] & 7];
	if (ms > 0)
		advance(f, ms, ms > 31000 ? 1000 : ms > 3000 ? 100 : ms > 20 ? 10 : SY_WHEEL_TICK_MS);
	c->win = wins[(op[0] >> 3) & 7];
	len = (uint32_t)(op[1] | op[2] << 8) & 0x7ff;
	if (len > *left)
		len = (uint32_t)*left;
	switch (op[0] >> 6) {
	case 3:
		if (f->newest >= 0) {
			struct end *e = &f->be[f->newest];

			if (e->up && !e->dead) {
				if (op[1] & 1) {
					reset_end(f, e);
				} else {
					e->fin_sent = true;
					e->state = R_DONE;
					send_pending(f, e);
				}
			}
		}
		len = 0;
		break;
	case 2:
		if (!c->fin_sent)
			queue(c, *in, len);
		c->fin_sent = true;
		break;
	default:
		if (len == 0 && !c->dead)
			c->need_ack = true; /* a window update */
		if (!c->fin_sent)
			queue(c, *in, len);
		break;
	}
	*in += len;
	*left -= len;
	send_pending(f, c);
	pump(f);
	return true;
}

static void
handshake(struct fz *f)
{
	static const uint8_t mss[] = { 2, 4, 0x05, 0xb4 };
	static const char preface[] = SY_H2_PREFACE;
	struct end *c = &f->client;

	c->up = true;
	c->win = 65535;
	c->base = c->una = c->nxt = CLIENT_ISN + 1;
	send_raw(f, c, RTE_TCP_SYN_FLAG, CLIENT_ISN, NULL, 0, mss, sizeof(mss));
	drain(f);
	c->need_ack = true;
	pump(f);
	queue(c, preface, SY_H2_PREFACE_LEN);
	send_pending(f, c);
	pump(f);
}

/* The frames the router sent the client, by type (FUZZ_H2_TRACE). */
static void
trace_frames(void)
{
	static const char *const names[10] = { "DATA", "HEADERS", "PRIORITY", "RST_STREAM",
					       "SETTINGS", "PUSH_PROMISE", "PING", "GOAWAY",
					       "WINDOW_UPDATE", "CONTINUATION" };
	unsigned count[10] = { 0 }, i;
	uint32_t at = 0, goaway = UINT32_MAX;

	while (at + 9 <= crx_len) {
		uint32_t len = (uint32_t)crx[at] << 16 | (uint32_t)crx[at + 1] << 8 | crx[at + 2];
		uint8_t type = crx[at + 3];

		if (at + 9 + len > crx_len)
			break;
		if (type < 10)
			count[type]++;
		if (type == 7 && len >= 8)
			goaway = (uint32_t)crx[at + 13] << 24 | (uint32_t)crx[at + 14] << 16 |
				 (uint32_t)crx[at + 15] << 8 | crx[at + 16];
		at += 9 + len;
	}
	fprintf(stderr, "  client read %u bytes:", crx_len);
	for (i = 0; i < 10; i++)
		if (count[i])
			fprintf(stderr, " %s %u", names[i], count[i]);
	if (goaway != UINT32_MAX)
		fprintf(stderr, " (GOAWAY code %u)", goaway);
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

		if (c->state == 0 || c->state > SY_CONN_PROXY_BE)
			continue;
		fprintf(stderr, "  record %u: state %u flags %#x timer %s expire in %ld ms", i,
			c->state, c->flags, (c->flags & SY_CF_TIMER) ? "on" : "off",
			(long)(((int64_t)c->expire - (int64_t)w->now) / (int64_t)w->sh->tsc_per_ms));
		if ((c->state == SY_CONN_PROXY || c->state == SY_CONN_PROXY_BE) && px != NULL)
			fprintf(stderr, "; proxy: client tcb %u backend tcb %u h2 streams %u",
				px->c.state, px->b.state, px_h2_streams(px));
		fprintf(stderr, "\n");
	}
}

/* Every leg reset at what the router expects, then the clock run on
 * until nothing is left (every timeout has an end). */
static void
teardown(struct fz *f)
{
	struct sy_worker *w = d.w;
	unsigned i;

	for (i = 0; i <= f->n_be; i++) {
		reset_end(f, i < f->n_be ? &f->be[i] : &f->client);
		drain(f);
	}
	/* Seconds at a time: a timer may fire up to a second late here. */
	for (i = 0; i < TEARDOWN_S && w->counters.flows_active != 0; i++) {
		w->now += sy_ms_to_tsc(w, 1000);
		sy_conn_timers_run(w);
		drain(f);
	}
	if (w->counters.flows_active != 0) {
		fprintf(stderr, "fuzz_h2: %lu flows left after %u s\n",
			(unsigned long)w->counters.flows_active, TEARDOWN_S);
		dump_records();
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fz *f = &fzs;
	const uint8_t *in = data + 2;
	size_t left = size >= 2 ? size - 2 : 0;
	unsigned leaked;
	uint64_t unit;

	if (size < 2)
		return 0;
	memset(f, 0, offsetof(struct fz, client.snd));
	f->client.len = 0;
	for (unsigned i = 0; i < N_BACKEND; i++)
		f->be[i].up = false;
	f->n_be = 0;
	f->newest = -1;
	f->requests = 0;
	trace = getenv("FUZZ_H2_TRACE") != NULL;
	crx_len = 0;
	f->sel = data[0];
	f->step = data[1];
	if (sy_test_dp_worker(&d) < 0)
		abort();
	/* The same phase on every run (fuzz_tcp_input.c). */
	unit = sy_ms_to_tsc(d.w, 65536);
	d.w->now = (d.w->now / unit + 1) * unit;
	sy_conn_timers_run(d.w);
	handshake(f);
	while (operation(f, &in, &left))
		;
	if (trace) {
		const struct sy_worker_counters *c = &d.w->counters;

		fprintf(stderr,
			"h2_conns %lu streams %lu refused %lu rapid_reset %lu flood %lu "
			"too_large %lu protocol_errors %lu no_memory %lu requests %lu "
			"backend_conns %lu backend_answers %u flows %lu\n",
			(unsigned long)c->h2_conns, (unsigned long)c->h2_streams,
			(unsigned long)c->h2_streams_refused, (unsigned long)c->h2_goaway_rapid_reset,
			(unsigned long)c->h2_goaway_flood, (unsigned long)c->h2_header_list_too_large,
			(unsigned long)c->h2_protocol_errors, (unsigned long)c->h2_no_memory,
			(unsigned long)c->proxy_requests, (unsigned long)c->proxy_backend_conns,
			f->requests, (unsigned long)c->flows_active);
		trace_frames();
	}
	teardown(f);
	drain(f);
	leaked = sy_test_dp_worker_free(&d);
	if (leaked != 0) {
		fprintf(stderr, "fuzz_h2: %u mbufs not back in the pool\n", leaked);
		abort();
	}
	return 0;
}
