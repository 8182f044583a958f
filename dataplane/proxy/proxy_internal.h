/* SPDX-License-Identifier: BSD-3-Clause */
/* What the proxy's files share (proxy.c: legs and lifecycle; proxy_http.c:
 * requests and responses; proxy_route.c: per-request routing). */
#ifndef SY_PROXY_INTERNAL_H
#define SY_PROXY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "proxy/proxy.h"
#include "proxy/px_h2_backend.h"
#include "proxy/px_msg.h"
#include "sy_counters.h"
#include "tcp/tcb.h"
#include "tls/tls.h"
#include "worker.h"

struct sy_generation;
struct sy_worker;

struct sy_rule;
struct rte_mbuf;

/* Where a request goes: an endpoint, or the router's own answer. */
struct px_target {
	const struct sy_rule *rule; /* the rule it matched (this call only), or NULL */
	struct sy_addr ip;  /* the endpoint, either family */
	uint16_t port;      /* network order */
	uint16_t status;    /* != 0: answer this instead */
	enum sy_answer_reason why;
	uint32_t retry_after_s; /* 429 */
	bool loopback;      /* the rule's backend is loopback: route the changed request again */
	void *tls_ctx;      /* TLS to the backend: the client SSL_CTX, or NULL */
	const char *set_cookie; /* sticky sessions: send this cookie (name) ... */
	uint64_t cookie_tok;    /* ... with this token (lb/lb.h) */
	const char *tls_name; /* ... and the name to verify (this call only), or NULL */
	struct sy_addr alt_ip; /* plain HTTP: the endpoint a failed connect retries (family 0: none) */
	uint16_t alt_port;
	uint16_t be_slot, alt_slot; /* the two endpoints' counters (sy_backend_stats.h) */
	uint8_t proto;      /* the endpoint's service port speaks it (enum sy_be_proto) */
	char location[384]; /* a redirect's */
	char body[256];     /* a static answer's */
	/* The rule gave the answer a body, possibly empty (an HTTPProxy's
	 * direct response, as Envoy's): sent as it is, no page of ours. */
	bool rule_body;
};

/*
 * A leg's byte stream as the HTTP layer sees it: the TCP leg's own queues,
 * or the plaintext of TLS over them (tls: NULL for plain TCP). `in`: bytes
 * received, not yet taken; `out`: bytes to send. fin: the peer will send no
 * more; closing: we close after `out`. px_c* are the client leg's, px_b*
 * the backend leg's (TLS there for re-encrypt and https:// backends).
 */
static inline struct sy_mq *
px_s_in(struct sy_tcb *t, struct sy_tls_conn *tls)
{
	return tls != NULL ? &tls->in : &t->rcvq;
}

static inline struct sy_mq *
px_s_out(struct sy_tcb *t, struct sy_tls_conn *tls)
{
	return tls != NULL ? &tls->out : &t->sndq;
}

static inline bool
px_s_fin(const struct sy_tcb *t, const struct sy_tls_conn *tls)
{
	return tls != NULL ? tls->eof || tls->state == SY_TLS_FAILED
			   : (t->flags & SY_TCB_F_FIN_RCVD) != 0;
}

static inline bool
px_s_closing(const struct sy_tcb *t, const struct sy_tls_conn *tls)
{
	return tls != NULL ? tls->close_wanted || tls->closed : (t->flags & SY_TCB_F_FIN_QUEUED) != 0;
}

static inline uint32_t
px_s_room(const struct sy_tcb *t, const struct sy_tls_conn *tls)
{
	return tls != NULL ? sy_tls_send_room(tls, SY_PROXY_SNDBUF) : sy_tcb_send_room(t, SY_PROXY_SNDBUF);
}

/* The HTTP layer took bytes from `in`: the TCP window opens (for TLS the
 * pump does that as OpenSSL reads). */
static inline void
px_s_consumed(struct sy_worker *w, struct sy_tcb *t, struct sy_tls_conn *tls)
{
	if (tls == NULL)
		sy_tcb_consumed(w, t);
}

/* No more from us after `out`: FIN (TLS: close_notify first). */
static inline void
px_s_close(struct sy_tcb *t, struct sy_tls_conn *tls)
{
	if (tls != NULL)
		tls->close_wanted = true;
	else
		sy_tcb_close(t);
}

/* The client leg: the connection's (TCP, or TLS over it), or for one h2
 * stream's exchange the pipe px_h2_stream.c fills and drains (px_h2.h). */
#define SY_PX_H2_PIPE_MAX (64 * 1024) /* a stream's response bytes the session has not taken */
static inline uint32_t
px_pipe_room(const struct px_h2_stream *s)
{
	return s->out.bytes < SY_PX_H2_PIPE_MAX ? SY_PX_H2_PIPE_MAX - s->out.bytes : 0;
}
#define px_cin(px) ((px)->strm != NULL ? &(px)->strm->in : px_s_in(&(px)->c, (px)->tls))
#define px_cout(px) ((px)->strm != NULL ? &(px)->strm->out : px_s_out(&(px)->c, (px)->tls))
#define px_client_fin(px) ((px)->strm != NULL ? (px)->strm->in_fin : px_s_fin(&(px)->c, (px)->tls))
#define px_client_closing(px) \
	((px)->strm != NULL ? (px)->strm->out_closed : px_s_closing(&(px)->c, (px)->tls))
#define px_client_room(px) \
	((px)->strm != NULL ? px_pipe_room((px)->strm) : px_s_room(&(px)->c, (px)->tls))
/* A pipe's taken bytes are seen by the session (px_h2_stream.c). */
#define px_client_consumed(w, px)                                  \
	do {                                                       \
		if ((px)->strm == NULL)                            \
			px_s_consumed(w, &(px)->c, (px)->tls);     \
	} while (0)
#define px_client_close(px)                                        \
	do {                                                       \
		if ((px)->strm != NULL)                            \
			(px)->strm->out_closed = true;             \
		else                                               \
			px_s_close(&(px)->c, (px)->tls);           \
	} while (0)

/* The client leg fails: RST (a stream: the session resets it). */
static inline void
px_client_abort(struct sy_worker *w, struct sy_proxy *px)
{
	if (px->strm != NULL) {
		px->c.state = SY_TCPS_CLOSED;
		px->strm->aborted = true;
	}
	else
		sy_tcb_abort(w, &px->c);
}

static inline uint64_t
px_in_ms(const struct sy_worker *w, uint64_t ms)
{
	return w->now + sy_ms_to_tsc(w, ms);
}

/* How long an exchange may stay silent while its response is awaited or
 * carried: the server timeout, or the route's idle timeout (Contour's
 * timeoutPolicy.idle) when that is shorter. */
static inline uint32_t
px_silence_ms(const struct sy_proxy *px)
{
	return px->idle_ms != 0 && px->idle_ms < px->server_ms ? px->idle_ms : px->server_ms;
}

/* The try in flight's perTryTimeout bounds the deadline until its response
 * head arrives (a 1xx head ends the try: the request cannot go again). */
static inline void
px_try_cap(struct sy_proxy *px)
{
	if (px->try_deadline != 0 && px->resp_state == SY_PX_RESP_HEAD && !px->resp_sent &&
	    (px->deadline == 0 || px->try_deadline < px->deadline))
		px->deadline = px->try_deadline;
}

/* A try starts once the whole request is on its way (Envoy arms
 * per_try_timeout when the request is complete): its clock, if the
 * route has a perTryTimeout. */
static inline void
px_try_arm(struct sy_worker *w, struct sy_proxy *px)
{
	px->try_deadline = px->per_try_ms != 0 ? px_in_ms(w, px->per_try_ms) : 0;
	px_try_cap(px);
}

/* The backend leg: TCP (or TLS over it), or for an h2 backend the pipe
 * px_h2_backend.c carries over its session: `in` the response, `out` the
 * request, in_fin the leg can carry no more. */
#define px_bin(px) ((px)->bpipe != NULL ? &(px)->bpipe->in : px_s_in(&(px)->b, (px)->btls))
#define px_bout(px) ((px)->bpipe != NULL ? &(px)->bpipe->out : px_s_out(&(px)->b, (px)->btls))
#define px_backend_fin(px) ((px)->bpipe != NULL ? (px)->bpipe->in_fin : px_s_fin(&(px)->b, (px)->btls))
#define px_backend_closing(px) \
	((px)->bpipe != NULL ? (px)->bpipe->out_closed : px_s_closing(&(px)->b, (px)->btls))
#define px_backend_room(px) \
	((px)->bpipe != NULL ? px_pipe_room((px)->bpipe) : px_s_room(&(px)->b, (px)->btls))
#define px_backend_consumed(w, px)                                 \
	do {                                                       \
		if ((px)->bpipe == NULL)                           \
			px_s_consumed(w, &(px)->b, (px)->btls);    \
		else                                               \
			px_h2b_touch(px);                          \
	} while (0)
#define px_backend_close(px)                                       \
	do {                                                       \
		if ((px)->bpipe != NULL) {                         \
			(px)->bpipe->out_closed = true;            \
			px_h2b_touch(px);                          \
		} else {                                           \
			px_s_close(&(px)->b, (px)->btls);          \
		}                                                  \
	} while (0)
/* Whether the exchange has a backend leg, and what state it is in: its own
 * TCB's, or for a stream on an h2c carrier (bc NULL) the carrier's
 * (px_h2_backend.h). */
static inline bool
px_has_backend(const struct sy_proxy *px)
{
	return px->bc != NULL || px->bh2 != NULL;
}

static inline uint8_t
px_backend_state(const struct sy_proxy *px)
{
	return px->bc != NULL ? px->b.state : px_h2b_state(px);
}

/* Its connection was refused (RST to the SYN). */
static inline bool
px_backend_refused(const struct sy_proxy *px)
{
	return px->bc != NULL ? (px->b.events & SY_TCB_EV_REFUSED) != 0 : px_h2b_refused(px);
}

/* The request may have reached the backend: any byte of it acknowledged
 * (a SYN alone delivers nothing), or its stream begun and not refused. */
static inline bool
px_backend_delivered(const struct sy_proxy *px)
{
	return px->bc != NULL ? px->b.snd_una != px->b.iss : px_h2b_delivered(px);
}

/* Both TLS and an h2 session move bytes between the backend's TCP leg and
 * the queues the exchange uses (proxy.c). */
bool px_backend_pump(struct sy_worker *w, struct sy_proxy *px);

void px_step(struct sy_worker *w, struct sy_proxy *px);
/* The head (head_len bytes from its request or status line) without its
 * header lines called name (with the colon: "Connection:"); its new
 * length (proxy_http.c). */
uint32_t px_strip_header(uint8_t *head, uint32_t head_len, const char *name);
/* A status code's reason phrase, for a status line we write. */
const char *px_reason_phrase(uint16_t status);
/* The deadline measures silence while a response is awaited or carried
 * (proxy.c). */
void px_refresh_deadline(struct sy_worker *w, struct sy_proxy *px);
/* A bounded writer of header text: ok goes false (and stays) once something
 * did not fit; what did not fit is not written. */
struct hdr_out {
	char *p, *end;
	bool ok;
};

static inline void
put_mem(struct hdr_out *o, const char *s, size_t n)
{
	if (!o->ok || (size_t)(o->end - o->p) < n) {
		o->ok = false;
		return;
	}
	memcpy(o->p, s, n);
	o->p += n;
}
#define PUT_LIT(o, lit) put_mem((o), (lit), sizeof(lit) - 1)

/* Arm the client record's timer at the earliest of both legs' timers and
 * the phase's deadline (proxy.c). */
void px_arm(struct sy_worker *w, struct sy_proxy *px);
/* Within an RX burst (px_out.c): true when px's client output may wait for
 * its end (an h2 connection, open, not closing); px_out_defer queues it
 * (false: it could not, send now); px_out_forget takes a freed one out. */
bool px_out_deferrable(const struct sy_worker *w, const struct sy_proxy *px);
bool px_out_defer(struct sy_worker *w, struct sy_proxy *px);
/* Seal (a TLS seal left for later) and send px's client output, now. */
void px_out_send(struct sy_worker *w, struct sy_proxy *px);
void px_out_forget(struct sy_worker *w, struct sy_proxy *px);
/* The proxy state goes back to the worker's pool with all it holds but
 * the client leg's record (proxy.c; an h2 stream's exchange has none). */
void px_state_free(struct sy_worker *w, struct sy_proxy *px);
/* The request in flight (if there is one) is over: counted on its route
 * (sy_route_stats.h), logged (observe/access_rec.h). */
void px_request_end(struct sy_worker *w, struct sy_proxy *px);
bool px_advance(struct sy_worker *w, struct sy_proxy *px);
void px_deadline(struct sy_worker *w, struct sy_proxy *px);
int px_backend_open(struct sy_worker *w, struct sy_proxy *px, const struct sy_addr *ip, uint16_t port,
		    void *tls_ctx, const char *tls_name, uint8_t proto);
void px_backend_drop(struct sy_worker *w, struct sy_proxy *px);
/* The backend leg is done with this client: to the idle pool when it is
 * clean and kept alive, else dropped (px_idle.c). */
void px_backend_release(struct sy_worker *w, struct sy_proxy *px);
/* An idle leg to ip:port (network order) that speaks proto (HTTP/1.1 or
 * h2c: an h2c one brings its session) from the pool into px (whose bc is
 * NULL): true when there was one. */
bool px_idle_take(struct sy_worker *w, struct sy_proxy *px, const struct sy_addr *ip,
		  uint16_t port, uint8_t proto);
/* px's client leg reached TIME_WAIT: the proxy state goes back to its
 * pool, the client record stays as a TIME_WAIT record (px_time_wait.c).
 * False when the worker holds time_wait_max already: nothing done. */
bool px_time_wait_enter(struct sy_worker *w, struct sy_proxy *px);
/* Route one parsed request through the worker's generation (client: the
 * client's address, for allowlists, clientRatelimit and the balancers;
 * tls: the connection's TLS, NULL for plain HTTP). */
void px_route(struct sy_worker *w, const struct sy_px_req *req, const uint8_t *head,
	      const struct sy_addr *client, const struct sy_tls_conn *tls, struct px_target *out);
/* The value of the first header called name in a request head, or NULL. */
const uint8_t *px_header_value(const uint8_t *head, uint32_t head_len, const char *name,
			       uint32_t *vlen);

/* Filters (proxy_filter.c). A ratelimit of the rule says no: tg is the 429. */
bool px_filter_ratelimited(struct sy_worker *w, const struct sy_rule *rule, const uint8_t *head,
			   uint32_t head_len, uint32_t client_ip, struct px_target *tg);
/* The rule changes the request line or headers (filters, or a replace
 * policy for forwarded headers the client sent). */
bool px_filter_rewrites_request(const struct sy_rule *rule, const struct sy_px_req *req);
/* The head for the backend with the rule's request filters applied, from
 * byte `start` of head, without the blank line: its length in out, 0 when
 * it does not fit in room. */
uint32_t px_filter_request(const struct sy_rule *rule, const struct sy_px_req *req,
			   const uint8_t *head, uint32_t start, uint8_t *out, uint32_t room);
/* The path a request target becomes under the rule's path filters
 * (setPath, modPath, a prefix replaced), without the query: its length in
 * buf (NUL-terminated; 0: it does not fit room), the query's start in
 * target at *query_at. */
uint32_t px_filter_path(const struct sy_rule *rule, const char *target, uint32_t target_len,
			char *buf, uint32_t room, uint32_t *query_at);
/* Copy the response filters of the rules a request took into px: rules[0]
 * matched the client's request, each next one the request a loopback
 * backend routed again (n 0: none). */
void px_filter_response_prepare(struct sy_proxy *px, const struct sy_rule *const *rules,
				unsigned n);
/* The backend's response head with them applied (a status line of minor
 * version `minor` and `reason` if status() replaces it): length in out, or 0. */
uint32_t px_filter_response(const struct sy_proxy *px, const uint8_t *head, uint32_t head_len,
			    uint8_t minor, const char *reason, uint8_t *out, uint32_t room);

#endif
