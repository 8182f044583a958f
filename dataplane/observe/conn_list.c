/* SPDX-License-Identifier: BSD-3-Clause */
#include "observe/conn_list.h"

#include <string.h>

#include <rte_byteorder.h>

#include "proxy/proxy.h"
#include "splice/conn.h"
#include "splice/flow.h"
#include "tcp/tcb.h"
#include "tls/tls.h"

/* names[s], "unknown" past the table or for a hole in it. */
#define NAME_OF(names, s)                                                              \
	((size_t)(s) < sizeof(names) / sizeof((names)[0]) && (names)[s] != NULL ? (names)[s] \
										   : "unknown")

static const char *
kind_name(uint8_t s)
{
	static const char *const names[] = {
		[SY_CONN_PEEK] = "peek",
		[SY_CONN_CONNECTING] = "connecting",
		[SY_CONN_SPLICED] = "spliced",
		[SY_CONN_ANSWER] = "answer",
		[SY_CONN_LINGER] = "linger",
		[SY_CONN_PROXY] = "proxy",
		[SY_CONN_PROXY_BE] = "proxy-backend",
		[SY_CONN_PROXY_IDLE] = "proxy-idle",
		[SY_CONN_PROXY_TIME_WAIT] = "proxy-time-wait",
		[SY_CONN_HEALTH_PROBE] = "health-probe",
	};

	return NAME_OF(names, s);
}

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

	return NAME_OF(names, s);
}

static const char *
request_name(uint8_t s)
{
	static const char *const names[] = {
		[SY_PX_REQ_HEAD] = "head",
		[SY_PX_REQ_BODY] = "body",
		[SY_PX_REQ_DONE] = "sent",
	};

	return NAME_OF(names, s);
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

	return NAME_OF(names, s);
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

/* Milliseconds from now to the TSC t; -1 for 0 (not armed). */
static int64_t
ms_until(const struct sy_worker *w, uint64_t now, uint64_t t)
{
	if (t == 0)
		return -1;
	return ((int64_t)(t - now)) / (int64_t)w->sh->tsc_per_ms;
}

/* The proxy's view of c: both legs, the exchange, the client leg's queues. */
static void
proxy_view(const struct sy_worker *w, uint64_t now, const struct sy_conn *c, struct sy_dp_conn *v)
{
	const struct sy_proxy *px = c->px;

	if (px == NULL)
		return;
	v->client_tcp = tcp_name(px->c.state);
	v->backend_tcp = px->b.state != SY_TCPS_CLOSED ? tcp_name(px->b.state) : "";
	v->request = request_name(px->req_state);
	v->response = response_name(px->resp_state);
	v->tls = tls_name(px->tls);
	v->requests = px->requests;
	v->unacked = px->c.snd_max - px->c.snd_una;
	v->queued = px->c.sndq.bytes > v->unacked ? px->c.sndq.bytes - v->unacked : 0;
	v->deadline_ms = ms_until(w, now, px->deadline);
}

unsigned
sy_conn_list(const struct sy_worker *w, uint64_t now, struct sy_dp_conn *out, unsigned max)
{
	unsigned n = 0;
	uint32_t i;

	for (i = 0; i < w->tcp.conns.n && n < max; i++) {
		const struct sy_conn *c = &w->tcp.conns.rec[i];
		struct sy_dp_conn *v = &out[n];
		uint8_t state = c->state;

		if (state == 0)
			continue; /* free */
		memset(v, 0, sizeof(*v));
		v->kind = kind_name(state);
		v->client_tcp = v->backend_tcp = v->request = v->response = v->tls = "";
		v->timer_ms = (c->flags & SY_CF_TIMER) ? ms_until(w, now, c->expire) : -1;
		v->deadline_ms = -1;
		/* A backend-only record (proxy-idle, health-probe) has
		 * zeros for the client leg. */
		v->client_ip = rte_be_to_cpu_32(c->client_ip);
		v->listen_ip = rte_be_to_cpu_32(c->vip);
		v->client_port = rte_be_to_cpu_16(c->client_port);
		v->listen_port = rte_be_to_cpu_16(c->vip_port);
		v->backend_ip = rte_be_to_cpu_32(c->backend_ip);
		v->snat_ip = rte_be_to_cpu_32(c->snat_ip);
		v->backend_port = rte_be_to_cpu_16(c->backend_port);
		v->snat_port = rte_be_to_cpu_16(c->snat_port);
		if (state == SY_CONN_PROXY || state == SY_CONN_PROXY_BE)
			proxy_view(w, now, c, v);
		n++;
	}
	return n;
}
