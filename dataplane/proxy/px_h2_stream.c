/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One h2 stream's exchange (px_h2.h): the stream's HEADERS become an
 * HTTP/1.1 request head in the exchange's pipe, its DATA the body (chunked
 * when the client gave no content-length, RFC 9113 8.1); the exchange's
 * HTTP/1.1 response becomes HEADERS (the connection-specific fields
 * dropped, RFC 9113 8.2.2) and DATA (a chunked body decoded).
 *
 * nghttp2 has checked the request by then (RFC 9113 8.2 and 8.3: field
 * names lowercase, no connection-specific fields, pseudo-headers first and
 * once each, :method, :scheme and :path present, content-length against
 * the DATA). What the HTTP/1.1 head needs from it: :authority as Host (a
 * Host field only when there is no :authority), the cookie crumbs joined
 * into one field (8.2.3), and a framing the backend reads the same way.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include <rte_mempool.h>

#include "proxy/proxy.h"
#include "proxy/proxy_internal.h"
#include "proxy/px_h2.h"
#include "proxy/px_h2_backend.h"
#include "proxy/px_h2_internal.h"
#include "proxy/px_msg.h"
#include "worker.h"

static struct sy_proxy *
stream_ex(struct px_h2 *h2, int32_t id)
{
	return h2->s != NULL ? nghttp2_session_get_stream_user_data(h2->s, id) : NULL;
}

/* Append to the request pipe; false (the stream is reset) without mbufs. */
static bool
pipe_put(struct px_h2 *h2, struct sy_proxy *ex, const void *p, uint32_t len)
{
	if (len == 0)
		return true;
	if (sy_mq_append_bytes(&ex->strm->in, p, len, h2->w->sh->pool) != 0) {
		h2->w->counters.h2_no_memory++;
		px_client_abort(h2->w, ex);
		return false;
	}
	ex->strm->in_total += len;
	return true;
}

/* The router answers the stream itself (a head it could not carry): an
 * HTTP/1.1 response in the pipe, converted as the exchange's would be. */
static void
answer(struct px_h2 *h2, struct sy_proxy *ex, uint16_t status)
{
	char buf[96];
	int n = snprintf(buf, sizeof(buf), "HTTP/1.1 %u %s\r\ncontent-length: 0\r\n\r\n", status,
			 status == 431 ? "Request Header Fields Too Large" : "Not Implemented");

	if (sy_mq_append_bytes(&ex->strm->out, buf, (uint32_t)n, h2->w->sh->pool) != 0) {
		px_client_abort(h2->w, ex);
		return;
	}
	ex->strm->in_fin = true;
	ex->strm->out_closed = true;
	/* The exchange has nothing to read: it ends its side. */
	ex->req_state = SY_PX_REQ_DONE;
	ex->resp_state = SY_PX_RESP_NONE;
}

/* ----------------------------------------------------------- requests -- */

int
px_h2s_begin(struct px_h2 *h2, const nghttp2_frame *frame)
{
	struct sy_worker *w = h2->w;
	struct sy_proxy *px = h2->px, *ex;
	int32_t id = frame->hd.stream_id;
	void *obj;

	h2->blk.hb_len = 0;
	h2->blk.fields = 0;
	h2->blk.has_auth = h2->blk.has_cl = h2->blk.too_big = h2->blk.over = false;
	h2->blk.method_len = h2->blk.path_len = h2->blk.auth_len = h2->blk.pseudo_end = 0;
	if (frame->headers.cat != NGHTTP2_HCAT_REQUEST) {
		/* Trailers: after the last chunk, before the empty line. */
		ex = stream_ex(h2, id);
		if (ex != NULL && ex->strm->chunked_req && !ex->strm->trailers) {
			ex->strm->trailers = true;
			pipe_put(h2, ex, "0\r\n", 3);
		}
		return 0;
	}
	if (h2->draining || h2->fatal || rte_mempool_get(w->tcp.proxies, &obj) < 0) {
		w->counters.h2_streams_refused++;
		nghttp2_submit_rst_stream(h2->s, NGHTTP2_FLAG_NONE, id, NGHTTP2_REFUSED_STREAM);
		return 0;
	}
	ex = obj;
	memset(ex, 0, sizeof(*ex));
	ex->parent = px;
	ex->strm = &ex->strm_s;
	sy_mq_init(&ex->strm->in);
	sy_mq_init(&ex->strm->out);
	ex->strm->id = id;
	ex->strm->mem = &h2->mem;
	/* The connection's client, addresses and TLS, for routing, the
	 * access log and X-Forwarded-*; its own client leg is the pipe. */
	ex->cc = px->cc;
	ex->client = px->client;
	ex->tls = px->tls;
	ex->c.saddr = px->c.saddr;
	ex->c.daddr = px->c.daddr;
	ex->c.sport = px->c.sport;
	ex->c.dport = px->c.dport;
	ex->c.v6 = px->c.v6;
	memcpy(ex->c.saddr6, px->c.saddr6, 16);
	memcpy(ex->c.daddr6, px->c.daddr6, 16);
	ex->c.state = SY_TCPS_ESTABLISHED;
	ex->h2_decided = true;
	ex->server_ms = SY_PROXY_TIMEOUT_SERVER_MS;
	ex->tunnel_ms = SY_PROXY_TIMEOUT_TUNNEL_MS;
	ex->req_state = SY_PX_REQ_HEAD;
	ex->resp_state = SY_PX_RESP_NONE;
	ex->deadline = px_in_ms(w, SY_PROXY_TIMEOUT_HTTP_REQUEST_MS);
	/* The first stream is the connection's first request: admitted
	 * against the route's connection limits once (px_request_head). */
	ex->requests = px->requests++; /* the connection's: its streams so far (routerctl conns) */
	ex->strm->next = h2->streams;
	if (h2->streams != NULL)
		h2->streams->strm->prev = ex;
	h2->streams = ex;
	h2->n_streams++;
	w->counters.h2_streams_open++;
	nghttp2_session_set_stream_user_data(h2->s, id, ex);
	w->counters.h2_streams++;
	return 0;
}

/* A field line for the head, or a pseudo-header's value, into hb. */
static uint32_t
hb_put(struct px_h2 *h2, const char *p1, size_t l1, const char *p2, size_t l2, const char *p3,
       size_t l3)
{
	struct px_h2_block *b = &h2->blk;
	uint32_t at = b->hb_len;

	if (b->hb == NULL) {
		b->hb = px_h2_alloc(h2, SY_PROXY_HEAD_MAX);
		if (b->hb == NULL) {
			b->too_big = true;
			return 0;
		}
	}
	if (l1 + l2 + l3 > SY_PROXY_HEAD_MAX - b->hb_len) {
		b->too_big = true;
		return 0;
	}
	memcpy(b->hb + b->hb_len, p1, l1);
	if (l2 > 0)
		memcpy(b->hb + b->hb_len + l1, p2, l2);
	if (l3 > 0)
		memcpy(b->hb + b->hb_len + l1 + l2, p3, l3);
	b->hb_len += (uint32_t)(l1 + l2 + l3);
	return at;
}

int
px_h2s_header(struct px_h2 *h2, const nghttp2_frame *frame, const uint8_t *name, size_t nlen,
	      const uint8_t *value, size_t vlen)
{
	struct px_h2_block *b = &h2->blk;
	struct sy_proxy *ex = stream_ex(h2, frame->hd.stream_id);
	const char *n = (const char *)name, *v = (const char *)value;

	if (ex == NULL || h2->fatal)
		return 0;
	b->fields += (uint32_t)(nlen + vlen + 32);
	if (b->fields > px_h2_cfg.max_header_list_size) {
		/* The stream goes (RST_STREAM); the block is still decoded,
		 * so the HPACK table stays right for the next one. */
		if (!b->over)
			h2->w->counters.h2_header_list_too_large++;
		b->over = true;
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE;
	}
	if (frame->headers.cat != NGHTTP2_HCAT_REQUEST) {
		/* Trailers go to a chunked body's trailer section; with a
		 * content-length there is none to put them in. */
		if (ex->strm->trailers && !px_h2_name_is(name, nlen, "content-length")) {
			char line[SY_PX_CHUNK_LINE_MAX];
			int len = snprintf(line, sizeof(line), "%.*s: %.*s\r\n", (int)nlen, n,
					   (int)vlen, v);

			if (len > 0 && (size_t)len < sizeof(line))
				pipe_put(h2, ex, line, (uint32_t)len);
		}
		return 0;
	}
	if (nlen > 0 && name[0] == ':') {
		uint32_t at = hb_put(h2, v, vlen, NULL, 0, NULL, 0);

		if (px_h2_name_is(name, nlen, ":method")) {
			b->method = at;
			b->method_len = (uint32_t)vlen;
		} else if (px_h2_name_is(name, nlen, ":path")) {
			b->path = at;
			b->path_len = (uint32_t)vlen;
		} else if (px_h2_name_is(name, nlen, ":authority")) {
			b->auth = at;
			b->auth_len = (uint32_t)vlen;
			b->has_auth = true;
		}
		b->pseudo_end = b->hb_len;
		return 0; /* :scheme: the connection says it (X-Forwarded-Proto) */
	}
	if (px_h2_name_is(name, nlen, "host")) {
		if (b->has_auth)
			return 0; /* RFC 9113 8.3.1: :authority wins */
		b->auth = hb_put(h2, v, vlen, NULL, 0, NULL, 0);
		b->auth_len = (uint32_t)vlen;
		b->has_auth = true;
		return 0;
	}
	if (px_h2_name_is(name, nlen, "te"))
		return 0; /* "trailers", nghttp2 checked: hop-by-hop */
	if (px_h2_name_is(name, nlen, "content-length"))
		b->has_cl = true;
	if (px_h2_name_is(name, nlen, "content-type") && vlen >= 16 &&
	    strncasecmp(v, "application/grpc", 16) == 0 && (vlen == 16 || v[16] == '+' || v[16] == ';'))
		ex->strm->grpc = true;
	hb_put(h2, n, nlen, ": ", 2, v, vlen);
	hb_put(h2, "\r\n", 2, NULL, 0, NULL, 0);
	return 0;
}

/* Methods whose request without a body still says so (RFC 9110 8.6). */
static bool
method_has_body(const char *m, uint32_t len)
{
	return !((len == 3 && memcmp(m, "GET", 3) == 0) || (len == 4 && memcmp(m, "HEAD", 4) == 0) ||
		 (len == 6 && memcmp(m, "DELETE", 6) == 0) ||
		 (len == 7 && memcmp(m, "OPTIONS", 7) == 0) ||
		 (len == 5 && memcmp(m, "TRACE", 5) == 0));
}

/* The field lines of hb (after the pseudo-headers), cookies apart: lines
 * that are not cookie ones as they are, then the crumbs joined. */
static uint32_t
head_fields(const struct px_h2_block *b, char *out, uint32_t room, bool *fits)
{
	uint32_t n = 0, crumbs = 0;
	const char *p, *end = b->hb + b->hb_len;

	for (int pass = 0; pass < 2; pass++) {
		for (p = b->hb + b->pseudo_end; p < end;) {
			const char *eol = memchr(p, '\n', (size_t)(end - p));
			uint32_t len = (uint32_t)(eol - p + 1);
			bool cookie = len > 8 && memcmp(p, "cookie: ", 8) == 0;

			if (b->has_auth && b->auth_len > 0 && p == b->hb + b->auth) {
				/* a Host field's value kept as the authority */
				p += b->auth_len;
				continue;
			}
			if (pass == 0 && !cookie) {
				if (n + len > room)
					goto full;
				memcpy(out + n, p, len);
				n += len;
			} else if (pass == 1 && cookie) {
				const char *v = p + 8;
				uint32_t vl = len - 8 - 2;

				if (n + vl + 12 > room)
					goto full;
				if (crumbs++ == 0) {
					memcpy(out + n, "cookie: ", 8);
					n += 8;
				} else {
					memcpy(out + n, "; ", 2);
					n += 2;
				}
				memcpy(out + n, v, vl);
				n += vl;
			}
			p = eol + 1;
		}
	}
	if (crumbs > 0) {
		if (n + 2 > room)
			goto full;
		memcpy(out + n, "\r\n", 2);
		n += 2;
	}
	*fits = true;
	return n;
full:
	*fits = false;
	return 0;
}

int
px_h2s_headers_done(struct px_h2 *h2, const nghttp2_frame *frame)
{
	struct px_h2_block *b = &h2->blk;
	struct sy_proxy *ex = stream_ex(h2, frame->hd.stream_id);
	bool end = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0, fits = false;
	char head[SY_PROXY_HEAD_MAX];
	struct hdr_out o;
	const char *m;
	int n;

	if (ex == NULL || frame->headers.cat != NGHTTP2_HCAT_REQUEST)
		goto out;
	m = b->hb != NULL ? b->hb + b->method : "";
	if (b->too_big) {
		answer(h2, ex, 431);
		goto out;
	}
	if (b->method_len == 7 && memcmp(m, "CONNECT", 7) == 0) {
		/* No tunnels over a stream (RFC 9113 8.5; RFC 8441 is not
		 * offered). */
		answer(h2, ex, 501);
		goto out;
	}
	/* The request line and host, copied (snprintf cost a request 1 %
	 * of routerd's time, perf/journal/h2.md). */
	o = (struct hdr_out){ head, head + sizeof(head), true };
	put_mem(&o, m, b->method_len);
	PUT_LIT(&o, " ");
	put_mem(&o, b->hb + b->path, b->path_len);
	PUT_LIT(&o, " HTTP/1.1\r\n");
	if (b->has_auth) {
		PUT_LIT(&o, "host: ");
		put_mem(&o, b->hb + b->auth, b->auth_len);
		PUT_LIT(&o, "\r\n");
	}
	if (!o.ok)
		goto big;
	n = (int)(o.p - head);
	n += (int)head_fields(b, head + n, (uint32_t)(sizeof(head) - (size_t)n), &fits);
	if (!fits)
		goto big;
	if (!end && !b->has_cl) {
		static const char te[] = "transfer-encoding: chunked\r\n";

		if ((size_t)n + sizeof(te) - 1 > sizeof(head))
			goto big;
		memcpy(head + n, te, sizeof(te) - 1);
		n += (int)sizeof(te) - 1;
		ex->strm->chunked_req = true;
	} else if (end && !b->has_cl && method_has_body(m, b->method_len)) {
		static const char cl[] = "content-length: 0\r\n";

		if ((size_t)n + sizeof(cl) - 1 > sizeof(head))
			goto big;
		memcpy(head + n, cl, sizeof(cl) - 1);
		n += (int)sizeof(cl) - 1;
	}
	if ((size_t)n + 2 > sizeof(head))
		goto big;
	memcpy(head + n, "\r\n", 2);
	n += 2;
	ex->strm->is_head = b->method_len == 4 && memcmp(m, "HEAD", 4) == 0;
	pipe_put(h2, ex, head, (uint32_t)n);
	goto out;
big:
	answer(h2, ex, 431);
out:
	/* The block's buffer goes back until the next block. */
	px_h2_free_mem(h2, b->hb);
	b->hb = NULL;
	b->hb_len = 0;
	return 0;
}

int
px_h2s_data(struct px_h2 *h2, int32_t id, const uint8_t *data, size_t len)
{
	struct sy_proxy *ex = stream_ex(h2, id);

	if (ex == NULL || ex->c.state == SY_TCPS_CLOSED || ex->strm->in_fin ||
	    ex->req_state == SY_PX_REQ_DONE) {
		/* Nobody reads it: the window opens at once. */
		nghttp2_session_consume(h2->s, id, len);
		return 0;
	}
	if (ex->strm->chunked_req) {
		char line[24];
		int n = snprintf(line, sizeof(line), "%zx\r\n", len);

		if (len == 0)
			return 0; /* a zero-size chunk would end the body */
		if (!pipe_put(h2, ex, line, (uint32_t)n) ||
		    !pipe_put(h2, ex, data, (uint32_t)len) || !pipe_put(h2, ex, "\r\n", 2))
			return 0;
	} else if (!pipe_put(h2, ex, data, (uint32_t)len)) {
		return 0;
	}
	ex->strm->data_owed += len;
	return 0;
}

void
px_h2s_end_stream(struct px_h2 *h2, int32_t id)
{
	struct sy_proxy *ex = stream_ex(h2, id);

	if (ex == NULL || ex->strm->in_fin)
		return;
	if (ex->strm->chunked_req)
		pipe_put(h2, ex, ex->strm->trailers ? "\r\n" : "0\r\n\r\n", ex->strm->trailers ? 2 : 5);
	ex->strm->in_fin = true;
}

/* ---------------------------------------------------------- responses -- */

#define H2_RESP_FIELDS_MAX 128

/* The gRPC status for an HTTP status (gRPC's "HTTP to gRPC Status Code
 * Mapping", as Envoy applies it). */
static unsigned
grpc_status_of(uint16_t status)
{
	switch (status) {
	case 400:
		return 13; /* INTERNAL */
	case 401:
		return 16; /* UNAUTHENTICATED */
	case 403:
		return 7; /* PERMISSION_DENIED */
	case 404:
		return 12; /* UNIMPLEMENTED */
	case 429:
	case 502:
	case 503:
	case 504:
		return 14; /* UNAVAILABLE */
	default:
		return 2; /* UNKNOWN */
	}
}

/*
 * The router's own error answer to a gRPC request (no route, no endpoint,
 * a backend that failed before its response head, a timeout) as a gRPC
 * client can read it: a trailers-only response, HTTP 200 with grpc-status
 * and grpc-message, as Envoy sends (a gRPC client reads an HTML 503 as
 * "protocol error", not as UNAVAILABLE it may retry).
 */
static bool
grpc_answer(struct px_h2 *h2, struct sy_proxy *ex, const struct sy_px_resp *resp)
{
	struct px_h2_stream *st = ex->strm;
	char code[4], msg[32];
	uint32_t drop;
	nghttp2_nv nv[4];
	int n;

	snprintf(code, sizeof(code), "%u", grpc_status_of(resp->status));
	n = snprintf(msg, sizeof(msg), "routerd: HTTP status %u", resp->status % 1000u);
	nv[0] = (nghttp2_nv){ (uint8_t *)":status", (uint8_t *)"200", 7, 3, NGHTTP2_NV_FLAG_NONE };
	nv[1] = (nghttp2_nv){ (uint8_t *)"content-type", (uint8_t *)"application/grpc", 12, 16,
			      NGHTTP2_NV_FLAG_NONE };
	nv[2] = (nghttp2_nv){ (uint8_t *)"grpc-status", (uint8_t *)code, 11, strlen(code),
			      NGHTTP2_NV_FLAG_NONE };
	nv[3] = (nghttp2_nv){ (uint8_t *)"grpc-message", (uint8_t *)msg, 12, (size_t)n,
			      NGHTTP2_NV_FLAG_NONE };
	/* Its body (our page) goes: the answer was queued whole. */
	drop = resp->head_len + (resp->framing == SY_PX_BODY_LENGTH ? (uint32_t)resp->length : 0);
	sy_mq_drop(&st->out, drop < st->out.bytes ? drop : st->out.bytes);
	if (nghttp2_submit_response(h2->s, st->id, nv, RTE_DIM(nv), NULL) != 0) {
		px_client_abort(h2->w, ex);
		return true;
	}
	st->head_sent = true;
	st->eof = true;
	return true;
}

/* The exchange's response head, if all of it is in `out`: HEADERS. */
static bool
response_head(struct px_h2 *h2, struct sy_proxy *ex)
{
	struct px_h2_stream *st = ex->strm;
	uint8_t head[SY_PROXY_HEAD_MAX];
	char names[SY_PROXY_HEAD_MAX], status[8];
	nghttp2_nv nv[H2_RESP_FIELDS_MAX + 1];
	nghttp2_data_provider prd;
	struct sy_px_resp resp;
	enum sy_px_msg_status ps;
	uint32_t len, at;
	size_t k = 0;
	bool body;

again:
	len = st->out.bytes < sizeof(head) ? st->out.bytes : (uint32_t)sizeof(head);
	if (len == 0)
		return false;
	sy_mq_copy(&st->out, 0, len, head);
	ps = sy_px_parse_response(head, len, sizeof(head), st->is_head, false, &resp);
	if (ps == SY_PX_MSG_MORE && !st->out_closed && len < sizeof(head))
		return false;
	if (ps != SY_PX_MSG_DONE) {
		px_client_abort(h2->w, ex);
		return true;
	}
	if (resp.status < 200) {
		/* 100 Continue and the like: the final one follows. */
		sy_mq_drop(&st->out, resp.head_len);
		goto again;
	}
	if (st->grpc && st->own_answer && resp.status >= 300)
		return grpc_answer(h2, ex, &resp);
	snprintf(status, sizeof(status), "%03u", resp.status % 1000u);
	nv[k++] = (nghttp2_nv){ (uint8_t *)":status", (uint8_t *)status, 7, 3, NGHTTP2_NV_FLAG_NONE };
	/* The status line, then "name: value" lines to the blank one. */
	at = (uint32_t)((const uint8_t *)memchr(head, '\n', resp.head_len) - head) + 1;
	k = px_h2_head_fields(head, at, resp.head_len, nv, k, RTE_DIM(nv), names, NULL);
	sy_mq_drop(&st->out, resp.head_len);
	st->framing = (uint8_t)resp.framing;
	st->left = resp.length;
	st->dc_state = DC_SIZE;
	body = resp.framing != SY_PX_BODY_NONE &&
	       !(resp.framing == SY_PX_BODY_LENGTH && resp.length == 0);
	prd.source.ptr = st;
	prd.read_callback = px_h2_read_body;
	if (nghttp2_submit_response(h2->s, st->id, nv, k, body ? &prd : NULL) != 0) {
		px_client_abort(h2->w, ex);
		return true;
	}
	st->head_sent = true;
	st->eof = !body;
	return true;
}

bool
px_h2s_run(struct px_h2 *h2, struct sy_proxy *ex)
{
	struct sy_worker *w = h2->w;
	struct px_h2_stream *st = ex->strm;
	unsigned rounds = 0;
	uint64_t taken;
	bool moved = false, m;

	if (st->closed)
		return false;
	/* The exchange, as px_step runs a connection's, without a client
	 * leg of its own to send on. */
	do {
		m = px_backend_pump(w, ex);
		m |= px_advance(w, ex);
		moved |= m;
	} while (m && ++rounds < 64);
	if (ex->bh2 != NULL)
		px_h2b_pump(w, ex);
	if (ex->btls != NULL)
		sy_tls_pump(ex->btls);
	if (ex->bc != NULL && ex->backend_idle &&
	    (ex->b.state == SY_TCPS_CLOSED || px_backend_fin(ex)))
		px_backend_drop(w, ex);
	if (ex->bc != NULL) {
		sy_tcb_output(w, &ex->b);
		px_refresh_deadline(w, ex);
		ex->b.events = 0;
	}
	/* The body it took opens the client's window again. */
	taken = st->in_total - st->in.bytes - st->in_taken;
	if (taken > 0) {
		uint64_t credit = taken < st->data_owed ? taken : st->data_owed;

		st->in_taken += taken;
		if (credit > 0) {
			nghttp2_session_consume(h2->s, st->id, (size_t)credit);
			st->data_owed -= credit;
			moved = true;
		}
	}
	if (ex->c.state == SY_TCPS_CLOSED) {
		/* The exchange failed past answering: the stream is reset. */
		if (!st->eof) {
			nghttp2_submit_rst_stream(h2->s, NGHTTP2_FLAG_NONE, st->id,
						  NGHTTP2_INTERNAL_ERROR);
			st->eof = true;
			moved = true;
		}
		return moved;
	}
	if (!st->head_sent)
		moved |= response_head(h2, ex);
	else if (st->deferred && (st->out.bytes > 0 || st->out_closed)) {
		st->deferred = false;
		nghttp2_session_resume_data(h2->s, st->id);
		moved = true;
	}
	/* The response is all read: its backend leg may serve the next
	 * stream (the exchange never gets another request). */
	if (st->head_sent && ex->bc != NULL && ex->req_state == SY_PX_REQ_HEAD &&
	    ex->resp_state == SY_PX_RESP_NONE)
		px_backend_release(w, ex);
	return moved;
}

void
px_h2s_free(struct px_h2 *h2, struct sy_proxy *ex)
{
	struct px_h2_stream *st = ex->strm;

	if (st->prev != NULL)
		st->prev->strm->next = st->next;
	else
		h2->streams = st->next;
	if (st->next != NULL)
		st->next->strm->prev = st->prev;
	h2->n_streams--;
	h2->w->counters.h2_streams_open--;
	px_h2_free_mem(h2, st->trl);
	st->trl = NULL;
	if (h2->s != NULL && !st->closed)
		nghttp2_session_set_stream_user_data(h2->s, st->id, NULL);
	px_backend_release(h2->w, ex);
	px_state_free(h2->w, ex);
}
