/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * h2 backend legs (px_h2_backend.h): nghttp2 client sessions between the
 * exchanges' pipes (HTTP/1.1 both ways) and a TCP or TLS connection.
 *
 * Requests: a pipe's `out` holds what its exchange sends, head then body,
 * as it would send it to an HTTP/1.1 backend. A whole head becomes the
 * stream's HEADERS (:authority from Host, :scheme from the leg, the
 * connection-specific fields left out, "te: trailers" for gRPC, which
 * requires it); the body follows as DATA and a chunked body's trailers as
 * HEADERS (px_h2_body.c), under the backend's windows.
 *
 * Responses: the stream's HEADERS become an HTTP/1.1 head in the pipe's
 * `in`, its DATA the body: as it is when the backend gave a content-length,
 * else chunked, so that trailers (gRPC's grpc-status) ride in the chunked
 * trailer section to an h2 client of ours (px_h2_stream.c turns them back
 * into HEADERS) or to an HTTP/1.1 one. A response cut short (RST_STREAM,
 * GOAWAY, the connection lost) ends the pipe (in_fin): before its head the
 * exchange answers 502 or sends the request again as it does for an
 * HTTP/1.1 leg; after, the client's response is cut.
 *
 * Carriers (h2c): the session owns its TCP leg and record. Its segments
 * and timers come here; after each, the exchanges whose streams moved are
 * stepped (a wake list, walked after the session has read what there
 * was: never from inside nghttp2's callbacks). An exchange that writes to
 * its pipe pumps the carrier itself; a pump already running (the exchange
 * is being stepped by it) goes round again instead of nesting.
 *
 * Flow control is per stream: nghttp2 returns no window by itself
 * (no_auto_window_update). The connection's window goes back as DATA is
 * read into a pipe; a stream's only once its exchange has taken the pipe
 * below H2B_IN_MAX. A slow client thus stops its own stream at its window
 * (H2B_STREAM_WINDOW) and never the others on the connection.
 *
 * Over TLS the session waits for the handshake: ALPN h2, it goes on; else
 * the pipe dissolves into the TLS queues and the leg is HTTP/1.1. A leg
 * still handshaking is offered to the exchanges that want the same
 * endpoint the same way (pending, in its endpoint's chain): the first that
 * joins makes it a carrier then, and the carrier waits for ALPN itself;
 * if that says http/1.1, every stream on it is refused unprocessed and
 * goes again on a leg of its own, and the endpoint is remembered for a
 * while as one that does not speak h2 (no_h2), whose new legs nobody waits
 * on.
 *
 * Memory: nghttp2 takes it from the workers' allocator, bounded per session
 * (px_h2_mem.c); a stream's own buffers are counted on its stream, which
 * may outlive the session.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>
#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_per_lcore.h>

#include "conn/conn.h"
#include "conn/conn_ops.h"
#include "conn/timer_wheel.h"
#include "lb/lb.h"
#include "observe/conn_stats.h"
#include "proxy/proxy.h"
#include "proxy/proxy_internal.h"
#include "proxy/px_h2.h"
#include "proxy/px_h2_backend.h"
#include "proxy/px_h2_internal.h"
#include "proxy/px_msg.h"
#include "worker.h"

#define H2B_IN_MAX (256 * 1024)        /* response bytes in a pipe: its window waits */
#define H2B_STREAM_WINDOW (256 * 1024) /* a response's receive window */
#define H2B_CONN_WINDOW (16 * 1024 * 1024)
#define H2B_FIELDS_MAX 128
#define H2C_BUCKETS 256 /* endpoint chains: a power of two */
#define H2B_NO_H2_SLOTS 64 /* endpoints remembered as not speaking h2: a power of two */
#define H2B_NO_H2_MS 10000 /* ... for this long after their ALPN said so */

struct px_h2b;

/* One exchange's stream: the pipe that is its backend leg. */
struct px_h2b_strm {
	struct px_h2b *sess;     /* NULL once the session is gone */
	struct sy_proxy *px;
	struct px_h2_stream pipe;
	struct px_h2_mem mem;    /* hb and the pipe's trailers */
	/* The response head's field lines, then its trailers', as HTTP/1.1
	 * (SY_PROXY_HEAD_MAX). */
	char *hb;
	uint32_t hb_len;
	uint32_t unacked;        /* DATA read into the pipe, its window not given back */
	uint16_t status;
	bool in_stream;          /* pipe.id is open */
	bool head_done;          /* the final response head is in pipe.in */
	bool resp_body;          /* ... with a body to come */
	bool resp_chunked;       /* ... sent chunked */
	bool has_cl;             /* the response head has a content-length */
	bool ended;              /* the response's END_STREAM came */
	bool sent;               /* its HEADERS were submitted */
	bool refused;            /* the backend did not process it (RFC 9113 8.7) */
	bool unopened;           /* its connection never opened */
	bool activity;           /* anything moved since the exchange last asked */
	bool lb_counted;         /* counted on its endpoint's load (carriers' streams) */
	bool woken;              /* on its session's wake list */
	bool dirty;              /* on its session's list of streams to look at */
	struct px_h2b_strm *next, **pprev; /* its session's streams */
	struct px_h2b_strm *wake_next;
	struct px_h2b_strm *dirty_next, **dirty_pprev;
	struct sy_addr lb_ip;    /* the endpoint it is counted on */
	uint16_t lb_port;
};

/* A session. Owned (TLS): owner's leg carries it, one stream at a time.
 * A carrier (h2c): its own TCP leg and record, streams of any exchange. */
struct px_h2b {
	nghttp2_session *s;
	struct px_h2_mem mem;
	struct sy_worker *w;
	struct sy_proxy *owner;   /* the exchange whose leg it is; NULL: a carrier */
	struct px_h2b_strm *strms;
	uint32_t n_strms;
	uint32_t n_joined;        /* a carrier's streams in all (SY_PX_H2C_REQUESTS_MAX) */
	bool goaway;              /* the backend takes no new stream */
	bool alpn_wait;           /* TLS: the handshake says whether the backend speaks h2 */
	/* A carrier's: */
	struct sy_tcb b;
	struct sy_conn *bc;
	struct sy_addr ip;
	uint16_t port;
	/* TLS (h2 by ALPN): the connection's, the client context and name
	 * it was verified with (a stream joins only for the same), and
	 * whether there is one. An owned leg keeps its name here until it
	 * becomes a carrier. */
	bool has_tls;
	struct sy_tls_conn tls;
	const void *tls_ctx;
	char tls_name[SY_TLS_SNI_MAX + 1];
	bool chained;             /* in its endpoint's chain: takes streams (an
				   * owned leg: pending, see carrier_takes) */
	bool established;         /* its connection opened once */
	bool dead;                /* it ends once this pump is over */
	bool pumping, again;
	uint64_t connect_by;      /* TSC: opened by then, or it fails */
	uint64_t idle_since;      /* TSC: its last stream went (n_strms 0) */
	struct px_h2b *next, **pprev;
	struct px_h2b_strm *wake;
	/* The streams whose requests may have moved (stream_requests): ones
	 * their exchange wrote to, read from or closed, ones the backend
	 * moved (wake), a session whose ALPN just said h2. A pump looks at
	 * these, not at every stream: with a hundred on a connection, the
	 * walk over all of them twice a pump was a third of routerd's time
	 * (perf/h2 --backend h2c). */
	struct px_h2b_strm *dirty;
};

/* An endpoint whose TLS picked http/1.1 by ALPN, with that client context:
 * until `until` (TSC), a new leg to it is not offered to others while it
 * handshakes. Direct-mapped: a collision forgets the older one. */
struct px_h2b_no_h2 {
	struct sy_addr ip;
	uint16_t port;
	const void *ctx;
	uint64_t until;
};

struct px_h2c_table {
	uint32_t n;
	struct px_h2b *chain[H2C_BUCKETS];
	struct px_h2b_no_h2 no_h2[H2B_NO_H2_SLOTS];
};

static nghttp2_session_callbacks *h2b_cbs;
static nghttp2_option *h2b_opts;
/* A request head being converted: one per lcore, not on the stack. */
static RTE_DEFINE_PER_LCORE(uint8_t[SY_PROXY_HEAD_MAX], h2b_head);
static RTE_DEFINE_PER_LCORE(char[SY_PROXY_HEAD_MAX], h2b_names);

static void carrier_end(struct sy_worker *w, struct px_h2b *hb);
static void chain(struct px_h2c_table *t, struct px_h2b *hb);

/* The TCP leg and TLS under a session. */
static inline struct sy_tcb *
leg_tcb(struct px_h2b *hb)
{
	return hb->owner != NULL ? &hb->owner->b : &hb->b;
}

static inline struct sy_tls_conn *
leg_tls(struct px_h2b *hb)
{
	if (hb->owner != NULL)
		return hb->owner->btls;
	return hb->has_tls ? &hb->tls : NULL;
}

static struct px_h2b_strm *
strm_of(struct px_h2b *hb, int32_t id)
{
	return id > 0 ? nghttp2_session_get_stream_user_data(hb->s, id) : NULL;
}

/* The session looks at st's requests on its next pass (requests_pass). */
static void
mark(struct px_h2b_strm *st)
{
	struct px_h2b *hb = st->sess;

	if (st->dirty || hb == NULL)
		return;
	st->dirty = true;
	st->dirty_next = hb->dirty;
	if (st->dirty_next != NULL)
		st->dirty_next->dirty_pprev = &st->dirty_next;
	st->dirty_pprev = &hb->dirty;
	hb->dirty = st;
}

static void
unmark(struct px_h2b_strm *st)
{
	if (!st->dirty)
		return;
	*st->dirty_pprev = st->dirty_next;
	if (st->dirty_next != NULL)
		st->dirty_next->dirty_pprev = st->dirty_pprev;
	st->dirty = false;
	st->dirty_next = NULL;
	st->dirty_pprev = NULL;
}

/* Every stream of hb: its ALPN said h2, they may all begin. */
static void
mark_all(struct px_h2b *hb)
{
	struct px_h2b_strm *st;

	for (st = hb->strms; st != NULL; st = st->next)
		mark(st);
}

/* Its exchange steps once the session has read what there was. */
static void
wake(struct px_h2b_strm *st)
{
	mark(st); /* what moved it may let its request or window go on */
	st->activity = true;
	if (st->woken || st->sess == NULL)
		return;
	st->woken = true;
	st->wake_next = st->sess->wake;
	st->sess->wake = st;
}

static void
unwake(struct px_h2b_strm *st)
{
	struct px_h2b_strm **pp;

	if (!st->woken || st->sess == NULL)
		return;
	for (pp = &st->sess->wake; *pp != NULL; pp = &(*pp)->wake_next)
		if (*pp == st) {
			*pp = st->wake_next;
			break;
		}
	st->woken = false;
}

/* A carrier's stream counts on its endpoint's load while its exchange
 * holds it (lb.h: as HAProxy counts an h2 server's streams). */
static void
lb_count(struct sy_worker *w, struct px_h2b_strm *st, const struct sy_addr *ip, uint16_t port)
{
	if (st->lb_counted)
		return;
	st->lb_ip = *ip;
	st->lb_port = port;
	st->lb_counted = true;
	sy_lb_load_stream(w, sy_addr_key32(ip), port, true);
}

static void
lb_uncount(struct sy_worker *w, struct px_h2b_strm *st)
{
	if (!st->lb_counted)
		return;
	st->lb_counted = false;
	sy_lb_load_stream(w, sy_addr_key32(&st->lb_ip), st->lb_port, false);
}

/* The stream can carry no more: the exchange sees its backend finished. */
static void
leg_over(struct px_h2b_strm *st)
{
	st->pipe.in_fin = true;
	wake(st);
}

/* Bytes for the exchange; without mbufs the response is cut. */
static void
pipe_put(struct px_h2b_strm *st, struct sy_worker *w, const void *p, uint32_t len)
{
	if (len == 0 || st->pipe.in_fin)
		return;
	if (sy_mq_append_bytes(&st->pipe.in, p, len, w->sh->pool) != 0) {
		w->counters.h2_no_memory++;
		leg_over(st);
	}
	wake(st);
}

/* ---------------------------------------------------------- responses -- */

static int
on_begin_headers(nghttp2_session *s, const nghttp2_frame *frame, void *ud)
{
	struct px_h2b_strm *st = strm_of(ud, frame->hd.stream_id);

	(void)s;
	if (st != NULL)
		st->hb_len = 0;
	return 0;
}

static int
on_header(nghttp2_session *s, const nghttp2_frame *frame, const uint8_t *name, size_t nlen,
	  const uint8_t *value, size_t vlen, uint8_t flags, void *ud)
{
	struct px_h2b_strm *st = strm_of(ud, frame->hd.stream_id);
	int n;

	(void)s;
	(void)flags;
	if (st == NULL)
		return 0; /* its exchange is gone: the stream was reset */
	if (px_h2_name_is(name, nlen, ":status")) {
		st->status = vlen == 3 ? (uint16_t)((value[0] - '0') * 100 + (value[1] - '0') * 10 +
						    (value[2] - '0'))
				       : 0;
		return 0;
	}
	if (nlen > 0 && name[0] == ':')
		return 0;
	if (px_h2_name_is(name, nlen, "content-length")) {
		if (st->head_done)
			return 0; /* in trailers: meaningless */
		st->has_cl = true;
	}
	if (st->hb == NULL && (st->hb = px_h2_mem_alloc(&st->mem, SY_PROXY_HEAD_MAX)) == NULL)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	n = snprintf(st->hb + st->hb_len, SY_PROXY_HEAD_MAX - st->hb_len, "%.*s: %.*s\r\n",
		     (int)nlen, (const char *)name, (int)vlen, (const char *)value);
	if (n < 0 || (uint32_t)n >= SY_PROXY_HEAD_MAX - st->hb_len)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* RST_STREAM: the stream ends */
	st->hb_len += (uint32_t)n;
	return 0;
}

/* The response's head into the pipe, as HTTP/1.1; `end`: END_STREAM came
 * with it. */
static void
response_head(struct px_h2b_strm *st, struct sy_worker *w, bool end)
{
	char line[96];
	int n;

	if (st->status < 100 || st->status > 999) {
		leg_over(st); /* nghttp2 checked :status; 3 digits */
		return;
	}
	n = snprintf(line, sizeof(line), "HTTP/1.1 %03u %s\r\n", st->status,
		     px_reason_phrase(st->status));
	pipe_put(st, w, line, (uint32_t)n);
	pipe_put(st, w, st->hb, st->hb_len);
	st->hb_len = 0;
	if (st->status < 200) {
		pipe_put(st, w, "\r\n", 2); /* 100 Continue and the like: the final one follows */
		return;
	}
	st->head_done = true;
	if (st->pipe.is_head || st->status == 204 || st->status == 304) {
		/* No body, whatever content-length says (RFC 9110 6.4.1). */
	} else if (end) {
		if (!st->has_cl)
			pipe_put(st, w, "content-length: 0\r\n", 19);
	} else if (!st->has_cl) {
		/* Chunked: the body's end is its last chunk, trailers ride
		 * in its trailer section. */
		pipe_put(st, w, "transfer-encoding: chunked\r\n", 28);
		st->resp_chunked = true;
		st->resp_body = true;
	} else {
		st->resp_body = true;
	}
	pipe_put(st, w, "\r\n", 2);
}

/* END_STREAM: a chunked body's last chunk, with the trailers received. */
static void
response_end(struct px_h2b_strm *st, struct sy_worker *w)
{
	st->ended = true;
	if (!st->head_done) {
		leg_over(st); /* only 1xx heads: no response */
		return;
	}
	if (st->resp_chunked) {
		pipe_put(st, w, "0\r\n", 3);
		pipe_put(st, w, st->hb, st->hb_len);
		pipe_put(st, w, "\r\n", 2);
	}
	st->hb_len = 0;
	/* An owned leg after a GOAWAY: no next stream on it. */
	if (st->sess->goaway && st->sess->owner != NULL)
		leg_over(st);
	wake(st);
}

/* A carrier takes no more streams (GOAWAY, failure): out of its chain. */
static void
unchain(struct px_h2b *hb)
{
	if (!hb->chained)
		return;
	*hb->pprev = hb->next;
	if (hb->next != NULL)
		hb->next->pprev = hb->pprev;
	hb->next = NULL;
	hb->pprev = NULL;
	hb->chained = false;
}

static int
on_frame_recv(nghttp2_session *s, const nghttp2_frame *frame, void *ud)
{
	struct px_h2b *hb = ud;
	struct px_h2b_strm *st = strm_of(hb, frame->hd.stream_id);
	bool end = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;

	(void)s;
	switch (frame->hd.type) {
	case NGHTTP2_HEADERS:
		if (st == NULL)
			break;
		if (!st->head_done)
			response_head(st, hb->w, end);
		if (end)
			response_end(st, hb->w);
		break;
	case NGHTTP2_DATA:
		if (end && st != NULL)
			response_end(st, hb->w);
		break;
	case NGHTTP2_GOAWAY:
		/* Streams above its last id are closed by nghttp2 (refused);
		 * those below finish. */
		hb->goaway = true;
		unchain(hb);
		/* A stream not yet begun never will be here: it goes again,
		 * on another connection. */
		for (st = hb->strms; st != NULL; st = st->next)
			if (!st->in_stream && !st->pipe.in_fin) {
				st->refused = !st->sent;
				leg_over(st);
			}
		break;
	default:
		break;
	}
	return 0;
}

static int
on_data_chunk(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data, size_t len,
	      void *ud)
{
	struct px_h2b *hb = ud;
	struct px_h2b_strm *st = strm_of(hb, id);

	(void)flags;
	/* The connection's window comes back at once: what a stream may
	 * hold is bounded by its own. */
	nghttp2_session_consume_connection(s, len);
	if (st == NULL || !st->resp_body || len == 0)
		return 0;
	st->unacked += (uint32_t)len;
	if (st->resp_chunked) {
		char size[24];
		int n = snprintf(size, sizeof(size), "%zx\r\n", len);

		pipe_put(st, hb->w, size, (uint32_t)n);
		pipe_put(st, hb->w, data, (uint32_t)len);
		pipe_put(st, hb->w, "\r\n", 2);
	} else {
		pipe_put(st, hb->w, data, (uint32_t)len);
	}
	return 0;
}

static int
on_stream_close(nghttp2_session *s, int32_t id, uint32_t code, void *ud)
{
	struct px_h2b *hb = ud;
	struct px_h2b_strm *st = strm_of(hb, id);

	(void)s;
	if (st == NULL)
		return 0;
	st->in_stream = false;
	if (!st->ended) {
		/* Reset or refused before its end: the response is cut. A
		 * stream the backend refused (or a GOAWAY left out) was not
		 * processed: it may go again, any method (RFC 9113 8.7). */
		if (code == NGHTTP2_REFUSED_STREAM)
			st->refused = true;
		hb->w->counters.h2_backend_resets++;
		leg_over(st);
	}
	wake(st);
	return 0;
}

/* ----------------------------------------------------------- requests -- */

/* Fields the request's head carries that its HEADERS carry otherwise. */
static bool
request_skip(const char *name, size_t len)
{
	return (len == 4 && strncasecmp(name, "host", 4) == 0) ||
	       (len == 14 && strncasecmp(name, "http2-settings", 14) == 0);
}

/* A whole request head in the pipe: its stream. True when one began (or
 * the stream ended for it). */
static bool
request_start(struct px_h2b *hb, struct px_h2b_strm *st)
{
	struct px_h2_stream *p = &st->pipe;
	uint8_t *head = RTE_PER_LCORE(h2b_head);
	nghttp2_nv nv[H2B_FIELDS_MAX + 5];
	nghttp2_data_provider prd;
	struct sy_px_req req;
	enum sy_px_msg_status status;
	uint32_t len = p->out.bytes < SY_PROXY_HEAD_MAX ? p->out.bytes : SY_PROXY_HEAD_MAX;
	const uint8_t *eol;
	size_t k = 0, i;
	bool body, grpc = false;
	int32_t id;

	sy_mq_copy(&p->out, 0, len, head);
	status = sy_px_parse_request(head, len, SY_PROXY_HEAD_MAX, &req);
	if (status == SY_PX_MSG_MORE && len < SY_PROXY_HEAD_MAX)
		return false;
	if (status != SY_PX_MSG_DONE || req.is_connect || req.upgrade) {
		/* Ours, so not malformed; a tunnel h2 does not carry here. */
		leg_over(st);
		return true;
	}
	nv[k++] = (nghttp2_nv){ (uint8_t *)":method", (uint8_t *)req.h.method, 7, req.h.method_len,
				NGHTTP2_NV_FLAG_NONE };
	nv[k++] = leg_tls(hb) != NULL
			  ? (nghttp2_nv){ (uint8_t *)":scheme", (uint8_t *)"https", 7, 5, NGHTTP2_NV_FLAG_NONE }
			  : (nghttp2_nv){ (uint8_t *)":scheme", (uint8_t *)"http", 7, 4, NGHTTP2_NV_FLAG_NONE };
	if (req.h.host_len > 0)
		nv[k++] = (nghttp2_nv){ (uint8_t *)":authority", (uint8_t *)req.h.host, 10,
					req.h.host_len, NGHTTP2_NV_FLAG_NONE };
	nv[k++] = (nghttp2_nv){ (uint8_t *)":path", (uint8_t *)req.h.path, 5, req.h.path_len,
				NGHTTP2_NV_FLAG_NONE };
	eol = memchr(head, '\n', req.h.head_len);
	k = px_h2_head_fields(head, (uint32_t)(eol - head) + 1, req.h.head_len, nv, k,
			      RTE_DIM(nv) - 1, RTE_PER_LCORE(h2b_names), request_skip);
	for (i = 0; i < k; i++)
		if (nv[i].namelen == 12 && memcmp(nv[i].name, "content-type", 12) == 0 &&
		    nv[i].valuelen >= 16 && strncasecmp((const char *)nv[i].value, "application/grpc", 16) == 0)
			grpc = true;
	if (grpc) /* gRPC servers want it (and h2 allows this one TE) */
		nv[k++] = (nghttp2_nv){ (uint8_t *)"te", (uint8_t *)"trailers", 2, 8, NGHTTP2_NV_FLAG_NONE };
	body = req.framing == SY_PX_BODY_CHUNKED || (req.framing == SY_PX_BODY_LENGTH && req.length > 0);
	p->framing = (uint8_t)req.framing;
	p->left = req.length;
	p->dc_state = DC_SIZE;
	p->eof = !body;
	p->deferred = false;
	p->is_head = req.is_head;
	prd.source.ptr = p;
	prd.read_callback = px_h2_read_body;
	/* nghttp2 copies the fields: head and names may go. */
	id = nghttp2_submit_request(hb->s, NULL, nv, k, body ? &prd : NULL, st);
	sy_mq_drop(&p->out, req.h.head_len);
	if (id < 0) {
		leg_over(st); /* no stream id left, or no memory */
		return true;
	}
	p->id = id;
	st->in_stream = true;
	st->sent = true;
	st->head_done = st->resp_body = st->resp_chunked = st->has_cl = st->ended = false;
	st->status = 0;
	st->hb_len = 0;
	hb->w->counters.h2_backend_streams++;
	if (hb->owner == NULL && hb->n_strms > 1)
		hb->w->counters.h2_backend_streams_shared++;
	return true;
}

/* The rest of a request body the backend no longer takes (it answered and
 * closed the stream first): read to its end and dropped, so the next
 * request is found where it starts. */
static bool
request_discard(struct px_h2b *hb, struct px_h2b_strm *st)
{
	struct px_h2_stream *p = &st->pipe;
	nghttp2_data_source src = { .ptr = p };
	uint8_t scratch[4096];
	bool moved = false;

	while (!p->eof && p->out.bytes > 0) {
		uint32_t flags = 0;
		ssize_t n = px_h2_read_body(hb->s, p->id, scratch, sizeof(scratch), &flags, &src, NULL);

		if (n <= 0)
			break;
		moved = true;
	}
	p->deferred = false;
	return moved;
}

/* What a stream's exchange put in its pipe: its request's HEADERS, the
 * rest of its body; its window back once it took what it was given. */
static bool
stream_requests(struct px_h2b *hb, struct px_h2b_strm *st)
{
	struct px_h2_stream *p = &st->pipe;
	bool moved = false;

	if (!p->in_fin) {
		if (!st->in_stream && !p->eof)
			moved |= request_discard(hb, st);
		if (!st->in_stream && p->eof && p->out.bytes > 0 && !hb->goaway)
			moved |= request_start(hb, st);
		else if (st->in_stream && p->deferred && (p->out.bytes > 0 || p->out_closed)) {
			p->deferred = false;
			nghttp2_session_resume_data(hb->s, p->id);
			moved = true;
		}
	}
	if (st->unacked > 0 && st->in_stream && p->in.bytes < H2B_IN_MAX) {
		nghttp2_session_consume_stream(hb->s, p->id, st->unacked);
		st->unacked = 0;
		moved = true;
	}
	return moved;
}

/* stream_requests for the streams marked since the last pass. The list is
 * taken whole first: what this pass marks again waits for the next, and a
 * stream let go of meanwhile leaves it as it would the session's. */
static bool
requests_pass(struct px_h2b *hb)
{
	struct px_h2b_strm *list = hb->dirty, *st;
	bool moved = false;

	if (list == NULL)
		return false;
	hb->dirty = NULL;
	list->dirty_pprev = &list;
	while ((st = list) != NULL) {
		unmark(st);
		moved |= stream_requests(hb, st);
	}
	return moved;
}

/* ---------------------------------------------------------------- I/O -- */

/* The backend's bytes into nghttp2. False, and the session failed, on a
 * protocol error. */
static bool
h2b_recv(struct px_h2b *hb, bool *moved)
{
	struct sy_tcb *t = leg_tcb(hb);
	struct sy_tls_conn *tls = leg_tls(hb);
	struct sy_mq *in = px_s_in(t, tls);
	struct sy_frag f[16];
	uint32_t used = 0;
	unsigned n, i;

	if (in->bytes == 0)
		return true;
	n = sy_mq_frags(in, 0, in->bytes, f, RTE_DIM(f));
	for (i = 0; i < n; i++) {
		ssize_t rv = nghttp2_session_mem_recv(hb->s, f[i].data, f[i].len);

		if (rv < 0) {
			hb->w->counters.h2_backend_errors++;
			sy_mq_drop(in, in->bytes);
			px_s_consumed(hb->w, t, tls);
			*moved = true;
			return false;
		}
		used += (uint32_t)rv;
	}
	sy_mq_drop(in, used);
	px_s_consumed(hb->w, t, tls);
	*moved |= used > 0;
	return true;
}

/* nghttp2's frames to the backend, while the leg has room. False, and the
 * session failed, when a frame was lost. */
static bool
h2b_send(struct px_h2b *hb, bool *moved)
{
	struct sy_tcb *t = leg_tcb(hb);
	struct sy_tls_conn *tls = leg_tls(hb);

	while (px_s_room(t, tls) > 0 && !px_s_closing(t, tls)) {
		const uint8_t *p;
		ssize_t n = nghttp2_session_mem_send(hb->s, &p);

		if (n <= 0) {
			if (n < 0) {
				hb->w->counters.h2_no_memory++;
				return false;
			}
			break;
		}
		if (sy_mq_append_bytes(px_s_out(t, tls), p, (uint32_t)n, hb->w->sh->pool) != 0) {
			/* A frame lost: the session is no longer what the
			 * backend sees. */
			hb->w->counters.h2_no_memory++;
			px_s_close(t, tls);
			return false;
		}
		*moved = true;
	}
	return true;
}

/* The connection under the session ended (or the session failed): no
 * stream goes on. */
static bool
leg_ended(struct px_h2b *hb)
{
	struct sy_tcb *t = leg_tcb(hb);
	struct sy_tls_conn *tls = leg_tls(hb);

	return px_s_in(t, tls)->bytes == 0 &&
	       (t->state == SY_TCPS_CLOSED || px_s_fin(t, tls) ||
		(!nghttp2_session_want_read(hb->s) && !nghttp2_session_want_write(hb->s)));
}

/* Every stream of a session ends (its connection is gone, or it failed). */
static void
streams_over(struct px_h2b *hb)
{
	struct px_h2b_strm *st;

	for (st = hb->strms; st != NULL; st = st->next) {
		if (!hb->established)
			st->unopened = true; /* nothing was delivered */
		if (!st->pipe.in_fin)
			leg_over(st);
	}
}

/* A carrier can go on no more: its streams are over (their exchanges are
 * woken), and it ends once the pump that steps them is done. */
static void
carrier_fail(struct px_h2b *hb)
{
	hb->dead = true;
	unchain(hb);
	streams_over(hb);
}

/* Read, write, give windows back. False when the session can go on no
 * more (its streams are over). */
static bool
session_io(struct px_h2b *hb, bool *moved)
{
	struct sy_tls_conn *tls = hb->owner == NULL ? leg_tls(hb) : NULL;
	bool ok;

	/* A carrier's TLS: records in, before the session reads. (An owned
	 * leg's is its exchange's to pump.) */
	if (tls != NULL)
		*moved |= sy_tls_pump(tls);
	*moved |= requests_pass(hb);
	ok = h2b_recv(hb, moved);
	/* What the read closed or drained: windows, resumed bodies. */
	if (ok)
		*moved |= requests_pass(hb);
	ok = ok && h2b_send(hb, moved);
	if (tls != NULL)
		*moved |= sy_tls_pump(tls); /* what the session wrote, sealed */
	if (!ok || leg_ended(hb) || (tls != NULL && tls->state == SY_TLS_FAILED)) {
		streams_over(hb);
		return false;
	}
	return true;
}

/* ------------------------------------------- endpoints without h2 -- */

static uint32_t
endpoint_hash(const struct sy_addr *addr, uint16_t port)
{
	uint32_t ip = sy_addr_key32(addr);

	return (ip ^ ((uint32_t)port << 16) ^ (ip >> 13)) * 0x9e3779b1u;
}

static struct px_h2b_no_h2 *
no_h2_slot(struct px_h2c_table *t, const struct sy_addr *ip, uint16_t port)
{
	return &t->no_h2[endpoint_hash(ip, port) >> 24 & (H2B_NO_H2_SLOTS - 1)];
}

static struct px_h2b **chain_of(struct px_h2c_table *t, const struct sy_addr *addr, uint16_t port);

/* The leg to ip:port with ctx heard http/1.1 from ALPN. The other legs to
 * it still handshaking take no more streams either: what this one's
 * streams send again would only be refused there too. */
static void
no_h2_note(struct sy_worker *w, const struct sy_addr *ip, uint16_t port, const void *ctx)
{
	struct px_h2c_table *t = w->tcp.h2c;
	struct px_h2b_no_h2 *e;
	struct px_h2b *hb, *next;

	if (t == NULL)
		return;
	e = no_h2_slot(t, ip, port);
	e->ip = *ip;
	e->port = port;
	e->ctx = ctx;
	e->until = w->now + sy_ms_to_tsc(w, H2B_NO_H2_MS);
	for (hb = *chain_of(t, ip, port); hb != NULL; hb = next) {
		next = hb->next;
		if (hb->alpn_wait && hb->tls_ctx == ctx && hb->port == port && sy_addr_eq(&hb->ip, ip))
			unchain(hb);
	}
}

static bool
no_h2_known(struct sy_worker *w, const struct sy_addr *ip, uint16_t port, const void *ctx)
{
	const struct px_h2b_no_h2 *e = no_h2_slot(w->tcp.h2c, ip, port);

	return e->until > w->now && e->ctx == ctx && e->port == port && sy_addr_eq(&e->ip, ip);
}

/* -------------------------------------------------- owned (TLS) legs -- */

/* ALPN did not pick h2: the leg is an HTTP/1.1 one over TLS from here on.
 * The pipe's request goes to TLS as it is, and the session goes (px_bin
 * and px_bout are TLS's queues again). */
static void
dissolve(struct sy_worker *w, struct sy_proxy *px)
{
	struct px_h2b_strm *st = px->bh2;

	no_h2_note(w, &px->be_ip, px->be_port, px->btls_ctx);

	if (st->pipe.out.bytes > 0 &&
	    sy_mq_move(&px->btls->out, &st->pipe.out, st->pipe.out.bytes, w->sh->pool) < 0)
		px_s_close(&px->b, px->btls); /* the request is lost: 502 */
	w->counters.h2_backend_conns--; /* it never spoke h2 */
	px_h2b_free(w, px);
}

/* TLS: wait for the handshake, then h2 or HTTP/1.1 by what ALPN picked.
 * False while the leg can not go on yet. */
static bool
alpn_decided(struct sy_worker *w, struct sy_proxy *px)
{
	struct px_h2b *hb = px->bh2->sess;
	const unsigned char *sel = NULL;
	unsigned len = 0;

	if (px->btls->state != SY_TLS_OPEN)
		return false; /* handshaking; failed: the exchange answers 502 */
	SSL_get0_alpn_selected(px->btls->ssl, &sel, &len);
	if (len != 2 || memcmp(sel, "h2", 2) != 0) {
		dissolve(w, px);
		return false;
	}
	hb->alpn_wait = false;
	mark_all(hb);
	return true;
}

static bool carrier_promote(struct sy_worker *w, struct sy_proxy *px, struct px_h2b *hb);
static bool carrier_pump(struct sy_worker *w, struct px_h2b *hb, struct px_h2b_strm *self);

static bool
owned_pump(struct sy_worker *w, struct sy_proxy *px, struct px_h2b *hb)
{
	bool moved = false;

	if (hb->alpn_wait && !alpn_decided(w, px))
		return px->bh2 == NULL; /* dissolved: the exchange goes on */
	hb->established = true;
	/* It speaks h2: the connection becomes one the worker's exchanges
	 * share (its TCB, TLS and record move to the session). */
	if (carrier_promote(w, px, hb)) {
		carrier_pump(w, hb, px->bh2);
		return true;
	}
	unchain(hb); /* no room for another carrier: it stays px's alone */
	if (!session_io(hb, &moved) && !px->bh2->pipe.in_fin)
		leg_over(px->bh2);
	hb->wake = NULL; /* its one stream is px's, being stepped */
	px->bh2->woken = false;
	return moved;
}

/* --------------------------------------------------------- carriers -- */

static struct px_h2b **
chain_of(struct px_h2c_table *t, const struct sy_addr *addr, uint16_t port)
{
	return &t->chain[endpoint_hash(addr, port) >> 24 & (H2C_BUCKETS - 1)];
}

/* The streams a carrier may have open: the backend's
 * SETTINGS_MAX_CONCURRENT_STREAMS (100 until its SETTINGS come, as RFC
 * 9113 6.5.2 advises), at most ours. */
static uint32_t
carrier_room(const struct px_h2b *hb)
{
	uint32_t max = nghttp2_session_get_remote_settings(hb->s,
							   NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS);

	if (max > SY_PX_H2C_STREAMS_MAX)
		max = SY_PX_H2C_STREAMS_MAX;
	if (hb->n_joined >= SY_PX_H2C_REQUESTS_MAX)
		return 0;
	return hb->n_strms < max ? max - hb->n_strms : 0;
}

/* The carrier's timer: its TCP timers, the connect deadline, the idle
 * close. */
static void
carrier_arm(struct sy_worker *w, struct px_h2b *hb)
{
	uint64_t when = 0, t = sy_tcb_next_timer(&hb->b);

	if (!hb->established)
		when = hb->connect_by;
	else if (hb->n_strms == 0)
		when = hb->idle_since + sy_ms_to_tsc(w, SY_PROXY_IDLE_BACKEND_MS);
	if (t != 0 && (when == 0 || t < when))
		when = t;
	if (when == 0)
		when = w->now + sy_ms_to_tsc(w, SY_PROXY_IDLE_BACKEND_MS);
	sy_conn_timer_set(w, hb->bc, when);
}

/*
 * A carrier made while its TLS handshake ran (streams joined a pending leg,
 * px_h2b_join): it waits for ALPN. h2: true, the session goes on. Else
 * false: still handshaking, or it ended (dead): its TLS failed or its
 * connection went, or ALPN picked http/1.1, and then every stream on it is
 * refused unprocessed (RFC 9113 8.7: nothing of it was sent) and goes again
 * on a leg of its own (px_retry, proxy_http.c), no longer offered to others
 * (no_h2).
 */
static bool
carrier_alpn(struct sy_worker *w, struct px_h2b *hb, bool *moved)
{
	struct sy_tls_conn *tls = &hb->tls;
	const unsigned char *sel = NULL;
	unsigned len = 0;
	struct px_h2b_strm *st;

	*moved |= sy_tls_pump(tls);
	if (tls->state == SY_TLS_HANDSHAKE && !leg_ended(hb))
		return false;
	if (tls->state != SY_TLS_OPEN) {
		carrier_fail(hb); /* its streams answer as for a failed leg */
		return false;
	}
	SSL_get0_alpn_selected(tls->ssl, &sel, &len);
	if (len == 2 && memcmp(sel, "h2", 2) == 0) {
		hb->alpn_wait = false;
		mark_all(hb);
		return true;
	}
	no_h2_note(w, &hb->ip, hb->port, hb->tls_ctx);
	w->counters.h2_backend_conns--; /* it never spoke h2 */
	for (st = hb->strms; st != NULL; st = st->next) {
		st->refused = true; /* then ended as any failed carrier's */
		w->counters.h2_backend_alpn_fallbacks++;
	}
	carrier_fail(hb);
	*moved = true;
	return false;
}

/*
 * Read and write what there is, then step the exchanges whose streams
 * moved; again while stepping them gave the session more to do. `self`:
 * the stream whose exchange asked (being stepped: not stepped again).
 * True when anything moved for self's exchange.
 */
static bool
carrier_pump(struct sy_worker *w, struct px_h2b *hb, struct px_h2b_strm *self)
{
	unsigned rounds = 0;
	bool moved = false, self_moved = false;

	if (hb->pumping) {
		hb->again = true;
		return false;
	}
	hb->pumping = true;
	hb->w = w;
	do {
		struct px_h2b_strm *st;

		hb->again = false;
		if (hb->b.state == SY_TCPS_ESTABLISHED)
			hb->established = true;
		if (!hb->dead && (!hb->alpn_wait || carrier_alpn(w, hb, &moved)) &&
		    !session_io(hb, &moved))
			carrier_fail(hb);
		while ((st = hb->wake) != NULL) {
			hb->wake = st->wake_next;
			st->woken = false;
			if (st == self) {
				self_moved = true;
				continue;
			}
			if (st->px != NULL)
				px_step(w, st->px); /* may let go of st */
		}
	} while (hb->again && !hb->dead && ++rounds < 16);
	hb->pumping = false;
	if (hb->dead) {
		carrier_end(w, hb);
		return true;
	}
	sy_tcb_output(w, &hb->b);
	hb->b.events = 0;
	if (hb->again)
		sy_conn_timer_set(w, hb->bc, w->now); /* more to do: soon, not nested deeper */
	else
		carrier_arm(w, hb);
	return self_moved || moved;
}

/* Let go of a carrier: its streams see it gone, its connection is reset
 * (the backend keeps no TIME_WAIT for it), its record and session go. */
static void
carrier_end(struct sy_worker *w, struct px_h2b *hb)
{
	struct px_h2c_table *t = w->tcp.h2c;
	struct px_h2b_strm *st;
	struct sy_conn *bc = hb->bc;

	unchain(hb);
	streams_over(hb);
	/* Their exchanges find it out when they step (they were woken). */
	while ((st = hb->strms) != NULL) {
		hb->strms = st->next;
		unmark(st);
		st->next = NULL;
		st->pprev = NULL;
		st->woken = false;
		st->sess = NULL;
	}
	for (st = hb->wake; st != NULL; st = st->wake_next)
		st->woken = false;
	hb->wake = NULL;
	hb->n_strms = 0;
	if (hb->has_tls) {
		sy_tls_free(&hb->tls); /* no close_notify: the connection is reset */
		hb->has_tls = false;
	}
	if (bc != NULL) {
		bc->h2c = NULL;
		hb->bc = NULL;
		sy_tcb_abort(w, &hb->b);
		sy_tcb_release(&hb->b);
		sy_conn_free(w, bc);
	}
	nghttp2_session_del(hb->s);
	w->counters.h2_mem_bytes -= sizeof(*hb);
	t->n--;
	px_h2_raw_free(hb);
}

/* The carrier's segment, timer and release (conn/conn_ops.h). */
static void
carrier_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, bool from_client)
{
	struct px_h2b *hb = c->h2c;

	if (from_client || hb == NULL) {
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}
	if (sy_backend_leg_input(w, c, &hb->b, m))
		carrier_pump(w, hb, NULL);
}

static void
carrier_timeout(struct sy_worker *w, struct sy_conn *c)
{
	struct px_h2b *hb = c->h2c;

	if (hb == NULL) {
		sy_conn_free(w, c);
		return;
	}
	sy_tcb_timers(w, &hb->b);
	if (!hb->established && hb->b.state != SY_TCPS_ESTABLISHED && w->now >= hb->connect_by) {
		carrier_fail(hb); /* not connected in the connect timeout */
	} else if (hb->established && hb->n_strms == 0 &&
		   w->now >= hb->idle_since + sy_ms_to_tsc(w, SY_PROXY_IDLE_BACKEND_MS)) {
		w->counters.proxy_idle_expired++;
		carrier_fail(hb);
	} else if (!hb->chained && hb->n_strms == 0) {
		carrier_fail(hb); /* retired (its requests, a GOAWAY) and done */
	}
	carrier_pump(w, hb, NULL);
}

static void
carrier_release(struct sy_worker *w, struct sy_conn *c)
{
	struct px_h2b *hb = c->h2c;

	sy_lb_load_clear(w, c);
	sy_conn_stats_end(w, c);
	c->h2c = NULL;
	if (hb == NULL)
		return;
	/* The worker stops (sy_conn_free_all), or the flow table lets go
	 * of it: the record is already going. */
	hb->bc = NULL;
	sy_tcb_release(&hb->b);
	carrier_end(w, hb);
}

static const struct sy_conn_ops carrier_ops = {
	.segment = carrier_segment,
	.timeout = carrier_timeout,
	.release = carrier_release,
};

/* ------------------------------------------------------------ setup -- */

void
px_h2b_register_ops(void)
{
	sy_conn_ops_register(SY_CONN_PROXY_H2, &carrier_ops);
}

int
px_h2b_configure(void)
{
	if (h2b_cbs != NULL)
		return 0;
	if (nghttp2_session_callbacks_new(&h2b_cbs) != 0 || nghttp2_option_new(&h2b_opts) != 0)
		return -1;
	nghttp2_session_callbacks_set_on_begin_headers_callback(h2b_cbs, on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(h2b_cbs, on_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(h2b_cbs, on_frame_recv);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(h2b_cbs, on_data_chunk);
	nghttp2_session_callbacks_set_on_stream_close_callback(h2b_cbs, on_stream_close);
	/* Windows go back as pipes drain (stream_requests), not as DATA
	 * is read. */
	nghttp2_option_set_no_auto_window_update(h2b_opts, 1);
	return 0;
}

int
px_h2b_worker_init(struct sy_worker *w)
{
	w->tcp.h2c = rte_zmalloc_socket("sy_px_h2c", sizeof(struct px_h2c_table),
					RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	return w->tcp.h2c != NULL ? 0 : -1;
}

void
px_h2b_worker_fini(struct sy_worker *w)
{
	/* Carriers are records: sy_conn_free_all freed them. */
	rte_free(w->tcp.h2c);
	w->tcp.h2c = NULL;
}

/* A session and its first settings; NULL (counted) without memory. */
static struct px_h2b *
session_new(struct sy_worker *w, struct sy_proxy *owner)
{
	nghttp2_settings_entry iv[] = {
		{ NGHTTP2_SETTINGS_ENABLE_PUSH, 0 },
		{ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, H2B_STREAM_WINDOW },
	};
	struct px_h2b *hb;
	nghttp2_mem mem;

	if (h2b_cbs == NULL || (hb = px_h2_raw_alloc(sizeof(*hb))) == NULL)
		goto fail;
	memset(hb, 0, sizeof(*hb));
	hb->w = w;
	hb->owner = owner;
	hb->mem.w = w;
	px_h2_mem_hooks(&mem, &hb->mem);
	if (nghttp2_session_client_new3(&hb->s, h2b_cbs, hb, h2b_opts, &mem) != 0) {
		px_h2_raw_free(hb);
		goto fail;
	}
	/* The preface and our SETTINGS go first, as soon as the leg can
	 * carry them (h2c with prior knowledge: RFC 9113 3.3). */
	if (nghttp2_submit_settings(hb->s, NGHTTP2_FLAG_NONE, iv, RTE_DIM(iv)) != 0 ||
	    nghttp2_session_set_local_window_size(hb->s, NGHTTP2_FLAG_NONE, 0, H2B_CONN_WINDOW) != 0) {
		nghttp2_session_del(hb->s);
		px_h2_raw_free(hb);
		goto fail;
	}
	w->counters.h2_mem_bytes += sizeof(*hb);
	w->counters.h2_backend_conns++;
	return hb;
fail:
	w->counters.h2_no_memory++;
	return NULL;
}

/* px's stream on hb. */
static struct px_h2b_strm *
stream_new(struct sy_worker *w, struct px_h2b *hb, struct sy_proxy *px)
{
	struct px_h2b_strm *st = px_h2_raw_alloc(sizeof(*st));

	if (st == NULL) {
		w->counters.h2_no_memory++;
		return NULL;
	}
	memset(st, 0, sizeof(*st));
	st->sess = hb;
	st->px = px;
	st->mem.w = w;
	sy_mq_init(&st->pipe.in);
	sy_mq_init(&st->pipe.out);
	st->pipe.mem = &st->mem;
	st->pipe.eof = true; /* no request body owed */
	st->next = hb->strms;
	if (st->next != NULL)
		st->next->pprev = &st->next;
	st->pprev = &hb->strms;
	hb->strms = st;
	hb->n_strms++;
	mark(st);
	if (hb->owner == NULL) {
		lb_count(w, st, &hb->ip, hb->port);
		if (++hb->n_joined >= SY_PX_H2C_REQUESTS_MAX)
			unchain(hb); /* its last: it closes once these are done */
	}
	px->bh2 = st;
	px->bpipe = &st->pipe;
	w->counters.h2_mem_bytes += sizeof(*st);
	return st;
}

bool
px_h2b_start(struct sy_worker *w, struct sy_proxy *px, const char *tls_name)
{
	struct px_h2b *hb = session_new(w, px);

	if (hb == NULL)
		return false;
	hb->alpn_wait = px->btls != NULL;
	hb->ip = px->be_ip;
	hb->port = px->be_port;
	hb->tls_ctx = px->btls_ctx;
	snprintf(hb->tls_name, sizeof(hb->tls_name), "%s", tls_name != NULL ? tls_name : "");
	if (stream_new(w, hb, px) == NULL) {
		nghttp2_session_del(hb->s);
		w->counters.h2_mem_bytes -= sizeof(*hb);
		px_h2_raw_free(hb);
		return false;
	}
	/* Pending: the exchanges that want this endpoint the same way while
	 * it handshakes join it (px_h2b_join), rather than each opening a leg
	 * of its own; not where ALPN said http/1.1 lately. */
	if (hb->alpn_wait && w->tcp.h2c != NULL && !no_h2_known(w, &hb->ip, hb->port, hb->tls_ctx))
		chain(w->tcp.h2c, hb);
	return true;
}

/* A carrier takes streams: into its endpoint's chain. */
static void
chain(struct px_h2c_table *t, struct px_h2b *hb)
{
	struct px_h2b **head = chain_of(t, &hb->ip, hb->port);

	hb->next = *head;
	if (hb->next != NULL)
		hb->next->pprev = &hb->next;
	hb->pprev = head;
	*head = hb;
	hb->chained = true;
}

/* A new carrier to ip:port: its connection opened. 0 or an answer reason. */
static int
carrier_open(struct sy_worker *w, const struct sy_addr *ip, uint16_t port, struct px_h2b **out)
{
	struct px_h2c_table *t = w->tcp.h2c;
	struct px_h2b *hb;
	struct sy_conn *bc;
	uint16_t mss;
	int why;

	if (t == NULL || t->n >= SY_PX_H2C_MAX) {
		w->counters.h2_backend_carriers_full++;
		return SY_ANSWER_PROXY_BUSY;
	}
	if ((hb = session_new(w, NULL)) == NULL)
		return SY_ANSWER_PROXY_BUSY;
	why = sy_backend_leg_open(w, ip, port, SY_CONN_PROXY_H2, &hb->b, &bc, &mss);
	if (why != 0) {
		w->counters.h2_backend_conns--;
		nghttp2_session_del(hb->s);
		w->counters.h2_mem_bytes -= sizeof(*hb);
		px_h2_raw_free(hb);
		return why;
	}
	t->n++;
	bc->h2c = hb; /* counted on the endpoint's load by its streams, not itself */
	hb->bc = bc;
	hb->ip = *ip;
	hb->port = port;
	hb->connect_by = w->now + sy_ms_to_tsc(w, SY_PROXY_TIMEOUT_CONNECT_MS);
	hb->idle_since = w->now;
	sy_tcb_connect(w, &hb->b, mss, SY_PROXY_RCVBUF);
	w->counters.proxy_backend_conns++;
	chain(t, hb);
	*out = hb;
	return 0;
}

/* An exchange's own TLS leg whose ALPN said h2, or a pending one another
 * exchange joins (ALPN still to come: the carrier waits for it,
 * carrier_alpn): its TCB, TLS and record move into the session, which
 * becomes a carrier others join; the exchange keeps its stream. False (it
 * stays the exchange's, one stream at a time) when the worker has
 * SY_PX_H2C_MAX carriers. */
static bool
carrier_promote(struct sy_worker *w, struct sy_proxy *px, struct px_h2b *hb)
{
	struct px_h2c_table *t = w->tcp.h2c;
	struct sy_conn *bc = px->bc;

	if (t == NULL || bc == NULL || px->btls == NULL || t->n >= SY_PX_H2C_MAX)
		return false;
	t->n++;
	hb->b = px->b; /* its queues move with it */
	memset(&px->b, 0, sizeof(px->b));
	sy_tls_conn_move(&hb->tls, px->btls, &hb->b);
	hb->has_tls = true;
	hb->tls_ctx = px->btls_ctx;
	px->btls = NULL;
	px->btls_ctx = NULL;
	bc->px = NULL;
	bc->h2c = hb;
	bc->state = SY_CONN_PROXY_H2;
	sy_lb_load_clear(w, bc); /* its streams count from here */
	if (hb->strms != NULL)
		lb_count(w, hb->strms, &px->be_ip, px->be_port);
	hb->bc = bc;
	px->bc = NULL;
	px->backend_idle = false;
	hb->ip = px->be_ip;
	hb->port = px->be_port;
	hb->owner = NULL;
	/* Before ALPN the connection may not be up yet: the carrier's
	 * connect timeout holds from here (carrier_timeout). */
	hb->established = !hb->alpn_wait || hb->b.state == SY_TCPS_ESTABLISHED;
	hb->connect_by = w->now + sy_ms_to_tsc(w, SY_PROXY_TIMEOUT_CONNECT_MS);
	hb->idle_since = w->now;
	hb->n_joined = hb->n_strms;
	if (!hb->chained)
		chain(t, hb);
	return true;
}

/* hb takes a stream for ip:port, in the clear (tls_ctx NULL) or over TLS
 * checked with tls_ctx for tls_name: a carrier, or a pending exchange's
 * leg still handshaking (owner set). */
static bool
carrier_takes(const struct px_h2b *hb, const struct sy_addr *ip, uint16_t port, const void *tls_ctx,
	      const char *tls_name)
{
	if (!sy_addr_eq(&hb->ip, ip) || hb->port != port || hb->goaway || hb->dead)
		return false;
	if (tls_ctx == NULL ? hb->has_tls || hb->owner != NULL
			    : hb->tls_ctx != tls_ctx || strcmp(hb->tls_name, tls_name) != 0)
		return false;
	if (hb->owner != NULL && !hb->alpn_wait)
		return false;
	return carrier_room(hb) > 0;
}

int
px_h2b_join(struct sy_worker *w, struct sy_proxy *px, const struct sy_addr *ip, uint16_t port,
	    const void *tls_ctx, const char *tls_name)
{
	struct px_h2c_table *t = w->tcp.h2c;
	struct px_h2b *hb = NULL;
	int why;

	if (tls_name == NULL)
		tls_name = "";
	if (t != NULL)
		for (hb = *chain_of(t, ip, port); hb != NULL; hb = hb->next)
			if (carrier_takes(hb, ip, port, tls_ctx, tls_name))
				break;
	if (hb != NULL && hb->owner != NULL) {
		/* A pending leg: a carrier from now on, ALPN to come. */
		if (carrier_promote(w, hb->owner, hb))
			sy_conn_timer_set(w, hb->bc, w->now); /* it pumps on its own */
		else
			hb = NULL;
	}
	if (hb == NULL && tls_ctx != NULL)
		return -ENOENT; /* TLS: the caller opens a leg of its own (ALPN decides) */
	px->be_ip = *ip;
	px->be_port = port;
	px->backend_idle = false;
	px->be_proto = tls_ctx != NULL ? SY_BE_H2 : SY_BE_H2C;
	if (hb != NULL) {
		/* Its connection is up (or coming): the request is as good as
		 * on a kept leg, so a refusal sends it again (px_retry). */
		px->leg_used = true;
		w->counters.proxy_backend_reused++;
	} else {
		px->leg_used = false;
		if ((why = carrier_open(w, ip, port, &hb)) != 0)
			return why;
	}
	if (stream_new(w, hb, px) == NULL) {
		if (hb->n_strms == 0)
			hb->idle_since = w->now;
		return SY_ANSWER_PROXY_BUSY;
	}
	return 0;
}

void
px_h2b_touch(struct sy_proxy *px)
{
	if (px->bh2 != NULL)
		mark(px->bh2);
}

bool
px_h2b_pump(struct sy_worker *w, struct sy_proxy *px)
{
	struct px_h2b_strm *st = px->bh2;
	struct px_h2b *hb = st->sess;

	if (hb == NULL)
		return false; /* its carrier is gone: the pipe said so */
	hb->w = w;
	st->mem.w = w;
	mark(st); /* its exchange wrote, read or closed: look at its requests */
	if (hb->owner != NULL)
		return owned_pump(w, px, hb);
	return carrier_pump(w, hb, st);
}

void
px_h2b_free(struct sy_worker *w, struct sy_proxy *px)
{
	struct px_h2b_strm *st = px->bh2;
	struct px_h2b *hb;

	if (st == NULL)
		return;
	px->bh2 = NULL;
	px->bpipe = NULL;
	st->mem.w = w;
	if ((hb = st->sess) != NULL) {
		hb->w = w;
		unwake(st);
		unmark(st);
		if (st->in_stream) {
			/* Its exchange is gone mid-response: the backend
			 * stops sending it. */
			nghttp2_submit_rst_stream(hb->s, NGHTTP2_FLAG_NONE, st->pipe.id,
						  NGHTTP2_CANCEL);
			nghttp2_session_set_stream_user_data(hb->s, st->pipe.id, NULL);
		}
		*st->pprev = st->next;
		if (st->next != NULL)
			st->next->pprev = st->pprev;
		hb->n_strms--;
		if (hb->owner != NULL) {
			unchain(hb); /* pending: nobody joined it */
			nghttp2_session_del(hb->s);
			w->counters.h2_mem_bytes -= sizeof(*hb);
			px_h2_raw_free(hb);
		} else {
			if (hb->n_strms == 0)
				hb->idle_since = w->now;
			/* Its RST_STREAM, or the idle timer: the carrier
			 * runs on its own timer, now (never from here,
			 * inside whatever let go of the stream), or goes
			 * round again if it is running. */
			if (hb->pumping)
				hb->again = true;
			else if (hb->bc != NULL)
				sy_conn_timer_set(w, hb->bc, w->now);
		}
	}
	lb_uncount(w, st);
	px_h2_mem_free(&st->mem, st->hb);
	px_h2_mem_free(&st->mem, st->pipe.trl);
	sy_mq_free(&st->pipe.in);
	sy_mq_free(&st->pipe.out);
	w->counters.h2_mem_bytes -= sizeof(*st);
	px_h2_raw_free(st);
}

uint8_t
px_h2b_state(const struct sy_proxy *px)
{
	const struct px_h2b_strm *st = px->bh2;

	if (st == NULL || st->sess == NULL)
		return SY_TCPS_CLOSED;
	return leg_tcb(st->sess)->state;
}

bool
px_h2b_refused(const struct sy_proxy *px)
{
	const struct px_h2b_strm *st = px->bh2;

	return st != NULL && st->unopened;
}

bool
px_h2b_delivered(const struct sy_proxy *px)
{
	const struct px_h2b_strm *st = px->bh2;

	return st != NULL && st->sent && !st->refused && !st->unopened;
}

bool
px_h2b_tls(const struct sy_proxy *px, const void **ctx, const char **name)
{
	const struct px_h2b_strm *st = px->bh2;
	struct px_h2b *hb;

	if (st == NULL || (hb = st->sess) == NULL || leg_tls(hb) == NULL)
		return false;
	*ctx = hb->tls_ctx;
	*name = hb->tls_name;
	return true;
}

bool
px_h2b_unprocessed(const struct sy_proxy *px)
{
	const struct px_h2b_strm *st = px->bh2;

	return st != NULL && st->refused;
}

bool
px_h2b_take_activity(struct sy_proxy *px)
{
	struct px_h2b_strm *st = px->bh2;
	bool a = st != NULL && st->activity;

	if (st != NULL)
		st->activity = false;
	return a;
}
