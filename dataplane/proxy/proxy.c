/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The proxy mode's lifecycle (proxy.h): take a connection over from PEEK,
 * then for each request: parse its head, route it (proxy_route.c), open or
 * reuse the backend leg, send the head (with the forwarded headers) and the
 * body by its framing, read the response head, send it and its body back;
 * then the next request, or close.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <openssl/ssl.h>
#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_tcp.h>

#include "conn/conn.h"
#include "lb/lb.h"
#include "net/cksum.h"
#include "net/fib.h"
#include "net/net.h"
#include "observe/conn_stats.h"
#include "proxy/proxy.h"
#include "proxy/proxy_internal.h"
#include "proxy/px_h2_backend.h"
#include "proxy/px_mirror.h"
#include "sy_generation.h"
#include "tcp/tcp_opts.h"
#include "tcp/tcp_seq.h"
#include "worker.h"

/* ---------------------------------------------------------------- legs -- */

/* The backend leg goes (RST: its last response was read, or it failed):
 * no TIME_WAIT at the backend for a connection we drop. */
void
px_backend_drop(struct sy_worker *w, struct sy_proxy *px)
{
	struct sy_conn *bc = px->bc;

	sy_mq_free(&px->replay);
	if (bc == NULL) {
		/* A stream on an h2c carrier: it goes, the carrier stays. */
		px_h2b_free(w, px);
		px->backend_idle = false;
		return;
	}
	sy_tcb_abort(w, &px->b);
	px_h2b_free(w, px);
	if (px->btls != NULL) {
		sy_tls_free(px->btls);
		px->btls = NULL;
		px->btls_ctx = NULL;
	}
	bc->px = NULL;
	px->bc = NULL;
	px->backend_idle = false;
	px->leg_used = false;
	sy_conn_free(w, bc);
}

/* Open a backend leg to ip:port (network order), with TLS over it when
 * tls_ctx is not NULL (tls_name: SNI and the name to verify), speaking
 * proto (enum sy_be_proto: h2c has its session from the start). 0, or an
 * answer reason. */
int
px_backend_open(struct sy_worker *w, struct sy_proxy *px, const struct sy_addr *ip, uint16_t port,
		void *tls_ctx, const char *tls_name, uint8_t proto)
{
	struct sy_conn *bc;
	uint16_t mss;
	int why;

	/* h2c: a stream on a connection of the worker's to that endpoint
	 * (px_h2_backend.h, carriers), not a leg of its own. */
	if (proto == SY_BE_H2C && tls_ctx == NULL)
		return px_h2b_join(w, px, ip, port, NULL, NULL);
	if (proto == SY_BE_H2 && tls_ctx != NULL &&
	    (why = px_h2b_join(w, px, ip, port, tls_ctx, tls_name)) != -ENOENT)
		return why; /* on a TLS connection already speaking h2, or not at all */
	why = sy_backend_leg_open(w, ip, port, SY_CONN_PROXY_BE, &px->b, &bc, &mss);
	if (why != 0)
		return why;
	sy_lb_load_set(w, bc, sy_addr_key32(ip), port);
	bc->px = px;
	px->bc = bc;
	px->be_ip = *ip;
	px->be_port = port;
	px->backend_idle = false;
	px->leg_used = false;
	sy_tcb_connect(w, &px->b, mss, SY_PROXY_RCVBUF);
	w->counters.proxy_backend_conns++;
	if (tls_ctx != NULL) {
		/* A failure leaves it FAILED: the request gets 502. */
		px->btls = &px->btls_conn;
		px->btls_ctx = tls_ctx;
		sy_tls_connect(w, px->btls, &px->b, tls_ctx, tls_name);
		/* h2 if the backend offers it, else HTTP/1.1 on this leg
		 * (px_h2_backend.c decides once the handshake is done). */
		if (proto == SY_BE_H2 && px->btls->ssl != NULL)
			SSL_set_alpn_protos(px->btls->ssl, (const unsigned char *)"\x02h2\x08http/1.1", 12);
	}
	px->be_proto = proto;
	if (proto == SY_BE_H2 && px->btls != NULL && !px_h2b_start(w, px, tls_name)) {
		px_backend_drop(w, px);
		return SY_ANSWER_PROXY_BUSY;
	}
	return 0;
}

bool
px_backend_pump(struct sy_worker *w, struct sy_proxy *px)
{
	bool moved = false;

	if (px->btls != NULL)
		moved = sy_tls_pump(px->btls);
	if (px->bh2 != NULL)
		moved |= px_h2b_pump(w, px);
	return moved;
}

/* ----------------------------------------------------------- lifecycle -- */

/* proxy_internal.h */
void
px_arm(struct sy_worker *w, struct sy_proxy *px)
{
	uint64_t when = px->deadline, t;

	t = sy_tcb_next_timer(&px->c);
	if (t != 0 && (when == 0 || t < when))
		when = t;
	if (px->bc != NULL) {
		t = sy_tcb_next_timer(&px->b);
		if (t != 0 && (when == 0 || t < when))
			when = t;
	}
	if (px->h2 != NULL) {
		t = px_h2_next_timer(w, px);
		if (t != 0 && (when == 0 || t < when))
			when = t;
	}
	if (when == 0)
		when = px_in_ms(w, SY_PROXY_TIMEOUT_CLIENT_MS);
	sy_conn_timer_set(w, px->cc, when);
}

/* Everything is over for this connection: its backend leg to the idle
 * pool (or closed), then both records freed. */
static void
px_finish(struct sy_worker *w, struct sy_proxy *px)
{
	px_backend_release(w, px);
	sy_conn_free(w, px->cc); /* releases px and a backend leg left */
}

/*
 * While a response is awaited or carried, the deadline measures silence,
 * not the exchange: the connect timeout until the backend answers our SYN,
 * then the server timeout (or the route's shorter idle timeout,
 * px_silence_ms) from the last byte either leg moved (data in, data
 * acknowledged). A 100 MB download to a slow client takes as long as it
 * takes; a backend that stops mid-body is cut after the server timeout.
 * Until the response head, the try's perTryTimeout bounds it whatever
 * moves (px_try_cap). The other phases keep their deadline whole
 * (http-request bounds the time to a complete head, keep-alive the wait
 * for the next one).
 */
void
px_refresh_deadline(struct sy_worker *w, struct sy_proxy *px)
{
	uint8_t ev = px->c.events;

	if (px->resp_state != SY_PX_RESP_HEAD && px->resp_state != SY_PX_RESP_BODY)
		return;
	if (px->bc != NULL && px->b.state != SY_TCPS_SYN_SENT) {
		ev |= px->b.events;
		if (ev & (SY_TCB_EV_CONNECTED | SY_TCB_EV_DATA | SY_TCB_EV_SENT))
			px->deadline = px_in_ms(w, px_silence_ms(px));
	} else if (px->bc == NULL && px->bh2 != NULL && px_h2b_take_activity(px)) {
		px->deadline = px_in_ms(w, px_silence_ms(px)); /* its stream moved */
	}
	px_try_cap(px);
}

/* What every step ends with, HTTP/1.x or h2: send what the windows allow,
 * close what is finished, re-arm the timer. */
static void
px_step_end(struct sy_worker *w, struct sy_proxy *px)
{
	/* A kept leg the backend closed (its keep-alive timeout) or reset
	 * is no use for the next request: it goes now, with a RST in place
	 * of the ACK of its FIN. */
	if (px->bc != NULL && px->backend_idle &&
	    (px->b.state == SY_TCPS_CLOSED || px_backend_fin(px)))
		px_backend_drop(w, px);
	if (px->bc != NULL)
		sy_tcb_output(w, &px->b);
	/* An h2 connection's responses come in one by one, each with its
	 * backend's segment: sent at the end of the burst, those of one
	 * burst share a segment (and a TLS record). */
	if (!px_out_defer(w, px))
		px_out_send(w, px);
	px_refresh_deadline(w, px);
	px->c.events = 0;
	if (px->bc != NULL)
		px->b.events = 0;
	/* TIME_WAIT on the client leg keeps the client record alone, with
	 * what a retransmitted FIN's ACK needs (px_time_wait.c): the proxy
	 * state goes now, so TIME_WAIT never caps new connections at
	 * SY_PROXY_MAX. With the worker's TIME_WAIT records all in use, the
	 * leg ends with none, as a CLOSED one does. */
	if (px->c.state == SY_TCPS_TIME_WAIT && px_time_wait_enter(w, px))
		return;
	if (px->c.state == SY_TCPS_CLOSED || px->c.state == SY_TCPS_TIME_WAIT) {
		px_finish(w, px);
		return;
	}
	if (!px->out_queued)
		px_arm(w, px); /* else once its output went (px_out.c) */
}

/*
 * After anything happened on either leg: make all the progress there is,
 * send what the windows allow, close what is finished, re-arm the timer.
 * An h2 stream's exchange has no timer or client leg of its own: its
 * connection steps (px_h2.c), it and its siblings.
 */
void
px_step(struct sy_worker *w, struct sy_proxy *px)
{
	unsigned rounds = 0;
	bool moved;

	if (px->parent != NULL)
		px = px->parent;
	if (px->in_step) {
		px->step_again = true;
		return;
	}
	px->in_step = true;
	if (px->h2 != NULL) {
		do {
			px->step_again = false;
			px_h2_step(w, px);
		} while (px->step_again && ++rounds < 16);
		px->in_step = false;
		px_step_end(w, px);
		return;
	}
	/* TLS moves bytes between the TCP leg and the plaintext queues the
	 * HTTP layer uses; each side's progress may let the other go on. */
	do {
		moved = px->step_again;
		px->step_again = false;
		moved |= px->tls != NULL && sy_tls_pump(px->tls);
		moved |= px_backend_pump(w, px);
		/* Before its first request: h2 (ALPN, or the h2c preface)? */
		if (!px->h2_decided && px_h2_detect(w, px)) {
			px_h2_step(w, px);
			px->in_step = false;
			px_step_end(w, px);
			return;
		}
		moved |= px_advance(w, px);
	} while (moved && ++rounds < 64);
	if (px->tls != NULL)
		sy_tls_pump(px->tls);
	if (px->bh2 != NULL)
		px_h2b_pump(w, px);
	if (px->btls != NULL)
		sy_tls_pump(px->btls);
	px->in_step = false;
	px_step_end(w, px);
}

int
sy_proxy_start(struct sy_worker *w, struct sy_conn *c, bool tls)
{
	struct sy_peek_buf *p = c->peek;
	struct sy_tcb_accept a;
	struct sy_proxy *px;
	void *obj;
	unsigned i;

	if (rte_mempool_get(w->tcp.proxies, &obj) < 0) {
		w->counters.drops[SY_DROP_PROXY_POOL_EMPTY]++;
		return -ENOBUFS;
	}
	px = obj;
	memset(px, 0, sizeof(*px));
	px->cc = c;
	px->client = sy_conn_client_addr(&w->tcp, c);
	px->server_ms = SY_PROXY_TIMEOUT_SERVER_MS; /* each request sets its route's */
	px->tunnel_ms = SY_PROXY_TIMEOUT_TUNNEL_MS;
	memset(&a, 0, sizeof(a));
	a.isn_c = p->isn_c;
	a.isn_r = p->isn_r;
	a.mss = p->mss;
	a.ws_c = p->ws_c;
	a.ws_r = p->ws_c != SY_TCP_WS_NONE ? 7 : 0; /* the SYN-ACK's (tcp_in.c) */
	a.sack_ok = p->sack_ok;
	a.ts_ok = p->ts_ok;
	/* The held segments are fed again as received, oldest timestamp
	 * first, so PAWS takes them all. */
	a.ts_recent = p->ts_first;
	a.tsval_r0 = p->tsval_r0;
	a.rtt_ms = p->hs_rtt_ms;
	a.win = p->client_win;
	px->c.saddr = c->vip;
	px->c.daddr = c->client_ip;
	px->c.sport = c->vip_port;
	px->c.dport = c->client_port;
	px->c.out_if = c->client_if;
	px->c.nh = c->client_nh;
	if (sy_conn_client_v6(c)) {
		const struct sy_conn_v6 *v6 = sy_conn_v6_of(&w->tcp, c);

		px->c.v6 = true;
		memcpy(px->c.saddr6, v6->vip, 16);
		memcpy(px->c.daddr6, v6->client, 16);
		memcpy(px->c.nh6, v6->client_nh, 16);
	}
	sy_tcb_init_accepted(w, &px->c, &a, SY_PROXY_RCVBUF);
	sy_tcb_keepalive(w, &px->c, SY_PROXY_KEEPALIVE_IDLE_MS);
	if (tls) {
		/* A failure leaves the state FAILED: the connection closes. */
		px->tls = &px->tls_conn;
		sy_tls_accept(w, px->tls, &px->c);
	}
	c->state = SY_CONN_PROXY;
	c->px = px;
	c->peek = NULL;
	w->counters.conns_proxied++;
	px->req_state = SY_PX_REQ_HEAD;
	px->resp_state = SY_PX_RESP_NONE;
	px->deadline = px_in_ms(w, SY_PROXY_TIMEOUT_HTTP_REQUEST_MS);
	/* The bytes PEEK held, in order, then the out-of-order ones: the
	 * connection's first segments as our TCP would have seen them. */
	for (i = 0; i < p->n_seg; i++)
		sy_tcb_input(w, &px->c, p->seg[i]);
	for (i = 0; i < p->n_ooo; i++)
		sy_tcb_input(w, &px->c, p->ooo[i]);
	if (p->pp_state == SY_PP_READ) {
		/* The PROXY protocol header (splice.c, pp_read) is the
		 * balancer's: neither HTTP nor TLS sees it. */
		sy_mq_drop(&px->c.rcvq, p->pp_skip);
		sy_tcb_consumed(w, &px->c);
	}
	p->n_seg = 0;
	p->n_ooo = 0;
	sy_peek_free(w, p);
	px_step(w, px);
	return 0;
}

/* Checked here: the proxy reads payload (splice forwards it and lets the
 * endpoints check). */
void
sy_proxy_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, bool from_client)
{
	struct sy_proxy *px = c->px;

	if (px == NULL) {
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}
	if (!sy_l4_cksum_ok(m)) {
		sy_drop(w, m, SY_DROP_TCP_BAD_CHECKSUM);
		return;
	}
	c->last_seen = sy_conn_seen(w->now);
	if (from_client) {
		sy_tcb_input(w, &px->c, m);
	} else {
		sy_tcb_input(w, &px->b, m);
		sy_tcb_stale_ack_retry(w, &px->b);
	}
	px_step(w, px);
}

void
sy_proxy_timeout(struct sy_worker *w, struct sy_conn *c)
{
	struct sy_proxy *px = c->px;

	if (px == NULL) {
		sy_conn_free(w, c);
		return;
	}
	sy_tcb_timers(w, &px->c);
	if (px->bc != NULL)
		sy_tcb_timers(w, &px->b);
	if (px->h2 != NULL)
		px_h2_timers(w, px);
	else if (px->deadline != 0 && px->deadline <= w->now)
		px_deadline(w, px);
	if (c->state != SY_CONN_PROXY || c->px != px)
		return;
	px_step(w, px);
}

void
sy_proxy_release(struct sy_worker *w, struct sy_conn *c)
{
	struct sy_proxy *px = c->px;

	c->px = NULL;
	if (px == NULL)
		return;
	if (c->state == SY_CONN_PROXY_BE) {
		/* The backend leg alone (px_backend_drop frees it this way). */
		if (px->bc == c)
			px->bc = NULL;
		return;
	}
	/* Every stream's exchange first: they log, and their backend legs
	 * go, as a connection's own would. */
	if (px->h2 != NULL)
		px_h2_free(w, px);
	px_request_end(w, px);
	sy_conn_stats_end(w, c);
	px_state_free(w, px);
}

/* A request still in flight (a tunnel, a connection that ended
 * mid-exchange) is logged as far as it got; the backend leg is freed (the
 * connection leaves its route before: its record may live on in
 * TIME_WAIT). */
void
px_state_free(struct sy_worker *w, struct sy_proxy *px)
{
	if (px->out_queued)
		px_out_forget(w, px);
	px_request_end(w, px);
	px_mirror_detach(w, px, false); /* a request cut short is not mirrored whole */
	px_h2b_free(w, px); /* its stream (reset if open), or its own session */
	if (px->bc != NULL) {
		struct sy_conn *bc = px->bc;

		sy_tcb_release(&px->b);
		bc->px = NULL;
		px->bc = NULL;
		sy_conn_free(w, bc);
	}
	if (px->btls != NULL)
		sy_tls_free(px->btls);
	sy_mq_free(&px->replay);
	if (px->strm != NULL) {
		/* A stream's exchange: its client leg is the pipe; the
		 * connection's TLS is the connection's. */
		sy_mq_free(&px->strm->in);
		sy_mq_free(&px->strm->out);
	} else {
		if (px->tls != NULL)
			sy_tls_free(px->tls);
		sy_tcb_release(&px->c);
	}
	rte_mempool_put(w->tcp.proxies, px);
}

int
sy_proxy_worker_init(struct sy_worker *w)
{
	struct sy_conn_tables *t = &w->tcp;
	char name[RTE_MEMPOOL_NAMESIZE];

	snprintf(name, sizeof(name), "sy_px_%u", w->id);
	/* No per-lcore cache: only this worker gets and puts. */
	t->proxies = rte_mempool_create(name, SY_PROXY_MAX, sizeof(struct sy_proxy), 0, 0, NULL,
					NULL, NULL, NULL, (int)rte_socket_id(),
					RTE_MEMPOOL_F_SP_PUT | RTE_MEMPOOL_F_SC_GET);
	t->buckets = rte_zmalloc_socket("sy_px_buckets", SY_PX_BUCKETS * sizeof(*t->buckets),
					RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	if (t->proxies == NULL || t->buckets == NULL || px_idle_init(w) < 0 || px_mirror_init(w) < 0 ||
	    px_h2b_worker_init(w) < 0)
		return -ENOMEM;
	t->time_wait_max = sy_conn_tables_flows(w) / SY_PX_TIME_WAIT_SHARE;
	return 0;
}

void
sy_proxy_worker_fini(struct sy_worker *w)
{
	struct sy_conn_tables *t = &w->tcp;

	rte_mempool_free(t->proxies);
	t->proxies = NULL;
	rte_free(t->buckets);
	t->buckets = NULL;
	px_idle_fini(w);
	px_mirror_fini(w);
	px_h2b_worker_fini(w);
}

void
sy_proxy_drain(struct sy_worker *w, struct sy_conn *c)
{
	struct sy_proxy *px = c->px;

	if (px != NULL && px->h2 != NULL) {
		px_h2_drain(w, px);
		px_step(w, px);
		return;
	}
	if (px == NULL || px->tunnel || px->req_state != SY_PX_REQ_HEAD ||
	    px->resp_state != SY_PX_RESP_NONE || px_cin(px)->bytes > 0 || px_client_closing(px))
		return; /* busy: px_request_head made its response the last */
	/* Between requests: the close a keep-alive timeout would make, now
	 * (the client sees a FIN and opens its next connection elsewhere). */
	px_client_close(px);
	px_backend_release(w, px);
	px->deadline = px_in_ms(w, SY_PROXY_TIMEOUT_CLIENT_MS);
	px_step(w, px);
}
