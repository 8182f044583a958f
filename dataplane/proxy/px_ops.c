/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The proxy mode's operations on its records (conn/conn_ops.h): which of
 * proxy.c, px_idle.c and px_time_wait.c a segment, a fired timer and a
 * release of each proxy state go to, and what `routerctl conns` shows of a
 * proxied connection (observe/conn_list.c).
 */
#include <stdbool.h>
#include <stdint.h>

#include <rte_mbuf.h>

#include "conn/conn.h"
#include "conn/conn_ops.h"
#include "lb/lb.h"
#include "observe/conn_list.h"
#include "observe/conn_stats.h"
#include "proxy/proxy.h"
#include "proxy/proxy_internal.h"
#include "proxy/px_h2_backend.h"
#include "proxy/px_mirror.h"
#include "sy_dataplane.h"
#include "tcp/tcb.h"
#include "tls/tls.h"
#include "worker.h"

/* sy_conn_free of any proxy record: the counts end (its backend's open
 * connection, its route), then whatever of the proxy it holds goes: the
 * shared state and the other leg, its idle pool slot, its TIME_WAIT
 * place. */
static void
proxy_release(struct sy_worker *w, struct sy_conn *c)
{
	sy_lb_load_clear(w, c);
	sy_conn_stats_end(w, c);
	if (c->px != NULL)
		sy_proxy_release(w, c);
	if (c->state == SY_CONN_PROXY_IDLE && c->idle != NULL)
		sy_proxy_idle_release(w, c);
	if (c->state == SY_CONN_PROXY_TIME_WAIT)
		sy_proxy_time_wait_release(w, c);
}

/* A parked backend leg has no client leg: every segment is the backend's. */
static void
idle_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, bool from_client)
{
	(void)from_client;
	sy_proxy_idle_segment(w, c, m);
}

/* A TIME_WAIT record is the client leg's alone. */
static void
time_wait_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, bool from_client)
{
	if (!from_client) {
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}
	sy_proxy_time_wait_segment(w, c, m);
}

/* ------------------------------------------------ routerctl conns -- */

static const char *
tcp_name(uint8_t s)
{
	static const char *const names[] = {
		[SY_TCPS_CLOSED] = "closed",
		[SY_TCPS_SYN_SENT] = "syn-sent",
		[SY_TCPS_ESTABLISHED] = "established",
		[SY_TCPS_FIN_WAIT_1] = "fin-wait-1",
		[SY_TCPS_FIN_WAIT_2] = "fin-wait-2",
		[SY_TCPS_CLOSE_WAIT] = "close-wait",
		[SY_TCPS_CLOSING] = "closing",
		[SY_TCPS_LAST_ACK] = "last-ack",
		[SY_TCPS_TIME_WAIT] = "time-wait",
	};

	return SY_DP_NAME_OF(names, s);
}

static const char *
request_name(uint8_t s)
{
	static const char *const names[] = {
		[SY_PX_REQ_HEAD] = "head",
		[SY_PX_REQ_BODY] = "body",
		[SY_PX_REQ_DONE] = "sent",
	};

	return SY_DP_NAME_OF(names, s);
}

static const char *
response_name(uint8_t s)
{
	static const char *const names[] = {
		[SY_PX_RESP_NONE] = "none",
		[SY_PX_RESP_HEAD] = "head",
		[SY_PX_RESP_BODY] = "body",
		[SY_PX_RESP_OWN] = "own",
	};

	return SY_DP_NAME_OF(names, s);
}

static const char *
tls_name(const struct sy_tls_conn *t)
{
	if (t == NULL)
		return "";
	switch (t->state) {
	case SY_TLS_HANDSHAKE:
		return "handshake";
	case SY_TLS_OPEN:
		return "open";
	case SY_TLS_FAILED:
		return "failed";
	}
	return "unknown";
}

/* The proxy's view of c: both legs, the exchange, the client leg's queues.
 * The proxy state is in the worker's mempool, never unmapped while routerd
 * runs (observe/conn_list.h). */
static void
proxy_describe(const struct sy_worker *w, uint64_t now, const struct sy_conn *c,
	       struct sy_dp_conn *v)
{
	const struct sy_proxy *px = c->px;

	if (px == NULL)
		return;
	v->client_tcp = tcp_name(px->c.state);
	v->backend_tcp = px_backend_state(px) != SY_TCPS_CLOSED ? tcp_name(px_backend_state(px)) : "";
	v->request = request_name(px->req_state);
	v->response = response_name(px->resp_state);
	v->tls = tls_name(px->tls);
	v->requests = px->requests;
	v->protocol = px->h2 != NULL || px->parent != NULL ? "HTTP/2.0" : "HTTP/1.1";
	v->streams = px_h2_streams(px);
	v->unacked = px->c.snd_max - px->c.snd_una;
	v->queued = px->c.sndq.bytes > v->unacked ? px->c.sndq.bytes - v->unacked : 0;
	v->deadline_ms = sy_dp_ms_until(w, now, px->deadline);
}

/* ------------------------------------------------------------ ops -- */

/* The client leg: both legs' TCBs run from its timer. */
static const struct sy_conn_ops proxy_ops = {
	.segment = sy_proxy_segment,
	.timeout = sy_proxy_timeout,
	.release = proxy_release,
	.describe = proxy_describe,
};

/* The current backend leg: the client leg's timer runs both legs' TCBs
 * (proxy.c, px_arm); should one of its own fire, it ends. */
static const struct sy_conn_ops backend_ops = {
	.segment = sy_proxy_segment,
	.timeout = sy_conn_free,
	.release = proxy_release,
	.describe = proxy_describe,
};

static const struct sy_conn_ops idle_ops = {
	.segment = idle_segment,
	.timeout = sy_proxy_idle_timeout,
	.release = proxy_release,
};

/* Its 2 MSL are over when the timer fires. */
static const struct sy_conn_ops time_wait_ops = {
	.segment = time_wait_segment,
	.timeout = sy_conn_free,
	.release = proxy_release,
	.syn = sy_proxy_time_wait_syn,
};

void
sy_proxy_register_ops(void)
{
	sy_conn_ops_register(SY_CONN_PROXY, &proxy_ops);
	sy_conn_ops_register(SY_CONN_PROXY_BE, &backend_ops);
	sy_conn_ops_register(SY_CONN_PROXY_IDLE, &idle_ops);
	sy_conn_ops_register(SY_CONN_PROXY_TIME_WAIT, &time_wait_ops);
	px_mirror_register_ops();
	px_h2b_register_ops();
}
