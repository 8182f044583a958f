/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An h2 backend leg (px_h2_backend.h): an nghttp2 client session between
 * the exchange's pipe (HTTP/1.1 both ways) and the leg's TCP or TLS
 * connection.
 *
 * Requests: the pipe's `out` holds what the exchange sends, head then body,
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
 * GOAWAY, the connection lost) ends the leg (the pipe's in_fin): before its
 * head the exchange answers 502 or sends the request again as it does for
 * an HTTP/1.1 leg; after, the client's response is cut.
 *
 * Over TLS the session waits for the handshake: ALPN h2, it goes on; else
 * the pipe dissolves into the TLS queues and the leg is HTTP/1.1.
 *
 * Memory: nghttp2 takes it from the workers' allocator, bounded per session
 * (px_h2_mem.c). The session stops reading the connection while the pipe
 * holds H2B_IN_MAX bytes the exchange has not taken: the TCP window closes,
 * and the backend's flow control holds the rest.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>
#include <rte_common.h>
#include <rte_per_lcore.h>

#include "proxy/proxy.h"
#include "proxy/proxy_internal.h"
#include "proxy/px_h2.h"
#include "proxy/px_h2_backend.h"
#include "proxy/px_h2_internal.h"
#include "proxy/px_msg.h"
#include "worker.h"

#define H2B_IN_MAX (256 * 1024)        /* response bytes in the pipe: reading pauses */
#define H2B_STREAM_WINDOW (256 * 1024) /* a response's receive window */
#define H2B_CONN_WINDOW (1024 * 1024)
#define H2B_FIELDS_MAX 128

struct px_h2b {
	nghttp2_session *s;
	struct px_h2_mem mem;
	struct sy_worker *w;
	struct sy_proxy *px;
	struct px_h2_stream pipe; /* the exchange's backend leg (px->bpipe) */
	/* The response head's field lines, then its trailers', as HTTP/1.1
	 * (SY_PROXY_HEAD_MAX, from the session's allocator). */
	char *hb;
	uint32_t hb_len;
	uint16_t status;
	bool in_stream;    /* pipe.id is open */
	bool head_done;    /* the final response head is in pipe.in */
	bool resp_body;    /* ... with a body to come */
	bool resp_chunked; /* ... sent chunked */
	bool has_cl;       /* the response head has a content-length */
	bool ended;        /* the response's END_STREAM came */
	bool goaway;       /* the backend takes no new stream */
	bool alpn_wait;    /* TLS: the handshake says whether the backend speaks h2 */
};

static nghttp2_session_callbacks *h2b_cbs;
/* A request head being converted: one per lcore, not on the stack. */
static RTE_DEFINE_PER_LCORE(uint8_t[SY_PROXY_HEAD_MAX], h2b_head);
static RTE_DEFINE_PER_LCORE(char[SY_PROXY_HEAD_MAX], h2b_names);

/* The leg can carry no more: the exchange sees its backend finished. */
static void
leg_over(struct px_h2b *hb)
{
	hb->pipe.in_fin = true;
}

/* Bytes for the exchange; without mbufs the response is cut. */
static void
pipe_put(struct px_h2b *hb, const void *p, uint32_t len)
{
	if (len == 0 || hb->pipe.in_fin)
		return;
	if (sy_mq_append_bytes(&hb->pipe.in, p, len, hb->w->sh->pool) != 0) {
		hb->w->counters.h2_no_memory++;
		leg_over(hb);
	}
}

/* ---------------------------------------------------------- responses -- */

static int
on_begin_headers(nghttp2_session *s, const nghttp2_frame *frame, void *ud)
{
	struct px_h2b *hb = ud;

	(void)s;
	if (frame->hd.stream_id == hb->pipe.id)
		hb->hb_len = 0;
	return 0;
}

static int
on_header(nghttp2_session *s, const nghttp2_frame *frame, const uint8_t *name, size_t nlen,
	  const uint8_t *value, size_t vlen, uint8_t flags, void *ud)
{
	struct px_h2b *hb = ud;
	int n;

	(void)s;
	(void)flags;
	if (frame->hd.stream_id != hb->pipe.id)
		return 0;
	if (px_h2_name_is(name, nlen, ":status")) {
		hb->status = vlen == 3 ? (uint16_t)((value[0] - '0') * 100 + (value[1] - '0') * 10 +
						    (value[2] - '0'))
				       : 0;
		return 0;
	}
	if (nlen > 0 && name[0] == ':')
		return 0;
	if (px_h2_name_is(name, nlen, "content-length")) {
		if (hb->head_done)
			return 0; /* in trailers: meaningless */
		hb->has_cl = true;
	}
	if (hb->hb == NULL && (hb->hb = px_h2_mem_alloc(&hb->mem, SY_PROXY_HEAD_MAX)) == NULL)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	n = snprintf(hb->hb + hb->hb_len, SY_PROXY_HEAD_MAX - hb->hb_len, "%.*s: %.*s\r\n",
		     (int)nlen, (const char *)name, (int)vlen, (const char *)value);
	if (n < 0 || (uint32_t)n >= SY_PROXY_HEAD_MAX - hb->hb_len)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* RST_STREAM: the leg ends */
	hb->hb_len += (uint32_t)n;
	return 0;
}

/* The response's head into the pipe, as HTTP/1.1; `end`: END_STREAM came
 * with it. */
static void
response_head(struct px_h2b *hb, bool end)
{
	char line[96];
	int n;

	if (hb->status < 100 || hb->status > 999) {
		leg_over(hb); /* nghttp2 checked :status; 3 digits */
		return;
	}
	n = snprintf(line, sizeof(line), "HTTP/1.1 %03u %s\r\n", hb->status,
		     px_reason_phrase(hb->status));
	pipe_put(hb, line, (uint32_t)n);
	pipe_put(hb, hb->hb, hb->hb_len);
	hb->hb_len = 0;
	if (hb->status < 200) {
		pipe_put(hb, "\r\n", 2); /* 100 Continue and the like: the final one follows */
		return;
	}
	hb->head_done = true;
	if (hb->pipe.is_head || hb->status == 204 || hb->status == 304) {
		/* No body, whatever content-length says (RFC 9110 6.4.1). */
	} else if (end) {
		if (!hb->has_cl)
			pipe_put(hb, "content-length: 0\r\n", 19);
	} else if (!hb->has_cl) {
		/* Chunked: the body's end is its last chunk, trailers ride
		 * in its trailer section. */
		pipe_put(hb, "transfer-encoding: chunked\r\n", 28);
		hb->resp_chunked = true;
		hb->resp_body = true;
	} else {
		hb->resp_body = true;
	}
	pipe_put(hb, "\r\n", 2);
}

/* END_STREAM: a chunked body's last chunk, with the trailers received. */
static void
response_end(struct px_h2b *hb)
{
	hb->ended = true;
	if (!hb->head_done) {
		leg_over(hb); /* only 1xx heads: no response */
		return;
	}
	if (hb->resp_chunked) {
		pipe_put(hb, "0\r\n", 3);
		pipe_put(hb, hb->hb, hb->hb_len);
		pipe_put(hb, "\r\n", 2);
	}
	hb->hb_len = 0;
	if (hb->goaway)
		leg_over(hb); /* after this response: no next stream */
}

static int
on_frame_recv(nghttp2_session *s, const nghttp2_frame *frame, void *ud)
{
	struct px_h2b *hb = ud;
	bool end = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;

	(void)s;
	switch (frame->hd.type) {
	case NGHTTP2_HEADERS:
		if (frame->hd.stream_id != hb->pipe.id)
			break;
		if (!hb->head_done)
			response_head(hb, end);
		if (end)
			response_end(hb);
		break;
	case NGHTTP2_DATA:
		if (end && frame->hd.stream_id == hb->pipe.id)
			response_end(hb);
		break;
	case NGHTTP2_GOAWAY:
		hb->goaway = true;
		if (!hb->in_stream)
			leg_over(hb);
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

	(void)s;
	(void)flags;
	if (id != hb->pipe.id || !hb->resp_body || len == 0)
		return 0;
	if (hb->resp_chunked) {
		char size[24];
		int n = snprintf(size, sizeof(size), "%zx\r\n", len);

		pipe_put(hb, size, (uint32_t)n);
		pipe_put(hb, data, (uint32_t)len);
		pipe_put(hb, "\r\n", 2);
	} else {
		pipe_put(hb, data, (uint32_t)len);
	}
	return 0;
}

static int
on_stream_close(nghttp2_session *s, int32_t id, uint32_t code, void *ud)
{
	struct px_h2b *hb = ud;

	(void)s;
	(void)code;
	if (id != hb->pipe.id)
		return 0;
	hb->in_stream = false;
	if (!hb->ended) {
		/* Reset or refused before its end: the response is cut. */
		hb->w->counters.h2_backend_resets++;
		leg_over(hb);
	}
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
 * the leg ended for it). */
static bool
request_start(struct px_h2b *hb)
{
	struct px_h2_stream *p = &hb->pipe;
	uint8_t *head = RTE_PER_LCORE(h2b_head);
	nghttp2_nv nv[H2B_FIELDS_MAX + 5];
	nghttp2_data_provider prd;
	struct sy_px_req req;
	enum sy_px_msg_status st;
	uint32_t len = p->out.bytes < SY_PROXY_HEAD_MAX ? p->out.bytes : SY_PROXY_HEAD_MAX;
	const uint8_t *eol;
	size_t k = 0, i;
	bool body, grpc = false;
	int32_t id;

	sy_mq_copy(&p->out, 0, len, head);
	st = sy_px_parse_request(head, len, SY_PROXY_HEAD_MAX, &req);
	if (st == SY_PX_MSG_MORE && len < SY_PROXY_HEAD_MAX)
		return false;
	if (st != SY_PX_MSG_DONE || req.is_connect || req.upgrade) {
		/* Ours, so not malformed; a tunnel h2 does not carry here. */
		leg_over(hb);
		return true;
	}
	nv[k++] = (nghttp2_nv){ (uint8_t *)":method", (uint8_t *)req.h.method, 7, req.h.method_len,
				NGHTTP2_NV_FLAG_NONE };
	nv[k++] = hb->px->btls != NULL
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
	id = nghttp2_submit_request(hb->s, NULL, nv, k, body ? &prd : NULL, NULL);
	sy_mq_drop(&p->out, req.h.head_len);
	if (id < 0) {
		leg_over(hb); /* no stream id left, or no memory */
		return true;
	}
	p->id = id;
	hb->in_stream = true;
	hb->head_done = hb->resp_body = hb->resp_chunked = hb->has_cl = hb->ended = false;
	hb->status = 0;
	hb->hb_len = 0;
	hb->w->counters.h2_backend_streams++;
	return true;
}

/* The rest of a request body the backend no longer takes (it answered and
 * closed the stream first): read to its end and dropped, so the next
 * request is found where it starts. */
static bool
request_discard(struct px_h2b *hb)
{
	struct px_h2_stream *p = &hb->pipe;
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

/* ---------------------------------------------------------------- I/O -- */

/* The backend's bytes into nghttp2, while the pipe has room. */
static bool
h2b_recv(struct px_h2b *hb)
{
	struct sy_proxy *px = hb->px;
	struct sy_mq *in = px_s_in(&px->b, px->btls);
	struct sy_frag f[16];
	uint32_t used = 0;
	unsigned n, i;

	if (in->bytes == 0 || hb->pipe.in.bytes >= H2B_IN_MAX)
		return false;
	n = sy_mq_frags(in, 0, in->bytes, f, RTE_DIM(f));
	for (i = 0; i < n && hb->pipe.in.bytes < H2B_IN_MAX; i++) {
		ssize_t rv = nghttp2_session_mem_recv(hb->s, f[i].data, f[i].len);

		if (rv < 0) {
			hb->w->counters.h2_backend_errors++;
			leg_over(hb);
			used = in->bytes;
			break;
		}
		used += (uint32_t)rv;
	}
	sy_mq_drop(in, used);
	px_s_consumed(hb->w, &px->b, px->btls);
	return used > 0;
}

/* nghttp2's frames to the backend, while the leg has room. */
static bool
h2b_send(struct px_h2b *hb)
{
	struct sy_proxy *px = hb->px;
	bool moved = false;

	while (px_s_room(&px->b, px->btls) > 0 && !px_s_closing(&px->b, px->btls)) {
		const uint8_t *p;
		ssize_t n = nghttp2_session_mem_send(hb->s, &p);

		if (n <= 0) {
			if (n < 0) {
				hb->w->counters.h2_no_memory++;
				leg_over(hb);
			}
			break;
		}
		if (sy_mq_append_bytes(px_s_out(&px->b, px->btls), p, (uint32_t)n, hb->w->sh->pool) !=
		    0) {
			/* A frame lost: the session is no longer what the
			 * backend sees. */
			hb->w->counters.h2_no_memory++;
			leg_over(hb);
			px_s_close(&px->b, px->btls);
			break;
		}
		moved = true;
	}
	return moved;
}

/* ALPN did not pick h2: the leg is an HTTP/1.1 one over TLS from here on.
 * The pipe's request goes to TLS as it is, and the pipe goes (px_bin and
 * px_bout are TLS's queues again). */
static void
dissolve(struct sy_worker *w, struct sy_proxy *px)
{
	struct px_h2b *hb = px->bh2;

	if (hb->pipe.out.bytes > 0 &&
	    sy_mq_move(&px->btls->out, &hb->pipe.out, hb->pipe.out.bytes, w->sh->pool) < 0)
		px_s_close(&px->b, px->btls); /* the request is lost: 502 */
	w->counters.h2_backend_conns--; /* it never spoke h2 */
	px_h2b_free(w, px);
}

/* TLS: wait for the handshake, then h2 or HTTP/1.1 by what ALPN picked.
 * False while the leg can not go on yet. */
static bool
alpn_decided(struct sy_worker *w, struct sy_proxy *px)
{
	struct px_h2b *hb = px->bh2;
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
	return true;
}

bool
px_h2b_pump(struct sy_worker *w, struct sy_proxy *px)
{
	struct px_h2b *hb = px->bh2;
	struct px_h2_stream *p = &hb->pipe;
	bool moved = false;

	hb->w = w;
	if (hb->alpn_wait && !alpn_decided(w, px))
		return px->bh2 == NULL; /* dissolved: the exchange goes on */
	if (!p->in_fin) {
		if (!hb->in_stream && !p->eof)
			moved |= request_discard(hb);
		if (!hb->in_stream && p->eof && p->out.bytes > 0 && !hb->goaway)
			moved |= request_start(hb);
		else if (hb->in_stream && p->deferred && (p->out.bytes > 0 || p->out_closed)) {
			p->deferred = false;
			nghttp2_session_resume_data(hb->s, p->id);
			moved = true;
		}
	}
	moved |= h2b_recv(hb);
	moved |= h2b_send(hb);
	if (!p->in_fin && px_s_in(&px->b, px->btls)->bytes == 0 &&
	    (px->b.state == SY_TCPS_CLOSED || px_s_fin(&px->b, px->btls) ||
	     (!nghttp2_session_want_read(hb->s) && !nghttp2_session_want_write(hb->s))))
		leg_over(hb); /* the connection ended: a response in flight is cut */
	return moved;
}

/* -------------------------------------------------------------- setup -- */

int
px_h2b_configure(void)
{
	if (h2b_cbs != NULL)
		return 0;
	if (nghttp2_session_callbacks_new(&h2b_cbs) != 0)
		return -1;
	nghttp2_session_callbacks_set_on_begin_headers_callback(h2b_cbs, on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(h2b_cbs, on_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(h2b_cbs, on_frame_recv);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(h2b_cbs, on_data_chunk);
	nghttp2_session_callbacks_set_on_stream_close_callback(h2b_cbs, on_stream_close);
	return 0;
}

bool
px_h2b_start(struct sy_worker *w, struct sy_proxy *px)
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
	hb->px = px;
	hb->mem.w = w;
	sy_mq_init(&hb->pipe.in);
	sy_mq_init(&hb->pipe.out);
	hb->pipe.mem = &hb->mem;
	hb->pipe.eof = true; /* no request body owed */
	hb->alpn_wait = px->btls != NULL;
	px_h2_mem_hooks(&mem, &hb->mem);
	if (nghttp2_session_client_new3(&hb->s, h2b_cbs, hb, NULL, &mem) != 0) {
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
	px->bh2 = hb;
	px->bpipe = &hb->pipe;
	w->counters.h2_mem_bytes += sizeof(*hb);
	w->counters.h2_backend_conns++;
	return true;
fail:
	w->counters.h2_no_memory++;
	return false;
}

void
px_h2b_session_free(struct sy_worker *w, struct px_h2b *hb)
{
	hb->w = w;
	nghttp2_session_del(hb->s);
	px_h2_mem_free(&hb->mem, hb->hb);
	px_h2_mem_free(&hb->mem, hb->pipe.trl);
	sy_mq_free(&hb->pipe.in);
	sy_mq_free(&hb->pipe.out);
	w->counters.h2_mem_bytes -= sizeof(*hb);
	px_h2_raw_free(hb);
}

void
px_h2b_free(struct sy_worker *w, struct sy_proxy *px)
{
	if (px->bh2 == NULL)
		return;
	px_h2b_session_free(w, px->bh2);
	px->bh2 = NULL;
	px->bpipe = NULL;
}

bool
px_h2b_parkable(const struct sy_proxy *px)
{
	const struct px_h2b *hb = px->bh2;

	return !hb->in_stream && !hb->alpn_wait && !hb->goaway && !hb->pipe.in_fin &&
	       hb->pipe.eof && hb->pipe.in.bytes == 0 && hb->pipe.out.bytes == 0 &&
	       !nghttp2_session_want_write(hb->s);
}

void
px_h2b_park(struct px_h2b *hb)
{
	/* The head buffer comes back with the next response. */
	px_h2_mem_free(&hb->mem, hb->hb);
	hb->hb = NULL;
	hb->hb_len = 0;
}

void
px_h2b_adopt(struct sy_proxy *px, struct px_h2b *hb)
{
	hb->px = px;
	px->bh2 = hb;
	px->bpipe = &hb->pipe;
}
