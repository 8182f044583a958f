/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HTTP/2 session of a proxied connection (px_h2.h): it reads the
 * client's bytes into nghttp2, runs every stream's exchange, writes what
 * nghttp2 has to send, and enforces the limits of routerd's "http2" config
 * (docs/configuration.md), each with a counter:
 *
 * - concurrent streams: SETTINGS_MAX_CONCURRENT_STREAMS. Past it nghttp2
 *   refuses a stream (RST_STREAM REFUSED_STREAM) until the client has
 *   acknowledged the limit, and ends the connection (GOAWAY PROTOCOL_ERROR,
 *   h2_protocol_errors) after; a stream with no exchange state free, or
 *   one during a drain, is refused (h2_streams_refused);
 * - the header block: its bytes on the wire (HEADERS and CONTINUATION
 *   frames, their 9-byte headers included, so empty CONTINUATIONs count)
 *   past max_header_list_size end the connection (GOAWAY
 *   ENHANCE_YOUR_CALM, h2_header_list_too_large): the block can not be
 *   skipped without decoding it all, and an endless CONTINUATION sequence
 *   is an attack. Decoded fields past it reset the stream only;
 * - streams the client resets, a token bucket (reset_burst, refilled at
 *   reset_per_second): rapid reset, CVE-2023-44487 (h2_goaway_rapid_reset);
 * - frames that cost work and carry no request, a second bucket (SETTINGS,
 *   PING, PRIORITY, empty DATA without END_STREAM, and WINDOW_UPDATE past
 *   two for each DATA frame we sent: a client reading a large body sends
 *   one per window it opens, and that costs it nothing): h2_goaway_flood;
 * - the HPACK table (header_table_size), windows, frame size: settings
 *   nghttp2 enforces (COMPRESSION_ERROR, FLOW_CONTROL_ERROR, ...);
 * - memory: nghttp2's allocations come from the workers' allocator
 *   (tls/tls_alloc.h) and are counted; a session past SY_H2_MEM_MAX gets
 *   no more (GOAWAY, h2_no_memory);
 * - idle: no stream for idle_timeout_ms, GOAWAY NO_ERROR and close.
 * After any of them the worker serves the next connection as ever: the
 * state is the connection's alone.
 */
#include <stdlib.h>
#include <string.h>

#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>

#include "proxy/proxy.h"
#include "proxy/proxy_internal.h"
#include "proxy/px_h2.h"
#include "proxy/px_h2_backend.h"
#include "proxy/px_h2_internal.h"
#include "worker.h"

/* The connection's receive window: request bodies of all streams together
 * (each stream's is initial_window_size). */
#define SY_H2_CONN_WINDOW (1024 * 1024)

struct sy_h2_config px_h2_cfg;
static bool h2_on;
static nghttp2_session_callbacks *h2_cbs;
static nghttp2_option *h2_opt;

/* ------------------------------------------------------------- limits -- */

static void
buckets_refill(struct px_h2 *h2)
{
	struct sy_worker *w = h2->w;
	uint64_t ms = (w->now - h2->bucket_tsc) / w->sh->tsc_per_ms;
	double r, f;

	if (ms == 0)
		return;
	h2->bucket_tsc += ms * w->sh->tsc_per_ms;
	r = h2->reset_tokens + (double)ms * px_h2_cfg.reset_per_second / 1000.0;
	f = h2->flood_tokens + (double)ms * px_h2_cfg.flood_per_second / 1000.0;
	h2->reset_tokens = r < px_h2_cfg.reset_burst ? r : px_h2_cfg.reset_burst;
	h2->flood_tokens = f < px_h2_cfg.flood_burst ? f : px_h2_cfg.flood_burst;
}

void
px_h2_fail(struct px_h2 *h2, uint32_t code, uint64_t *counter)
{
	if (h2->fatal)
		return;
	h2->fatal = true;
	if (counter != NULL)
		(*counter)++;
	nghttp2_session_terminate_session(h2->s, code);
}

/* One frame of a flood kind: false (and GOAWAY) when the bucket is empty. */
static int
flood_spend(struct px_h2 *h2)
{
	buckets_refill(h2);
	if (h2->flood_tokens < 1.0) {
		px_h2_fail(h2, NGHTTP2_ENHANCE_YOUR_CALM, &h2->w->counters.h2_goaway_flood);
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	}
	h2->flood_tokens -= 1.0;
	return 0;
}

/* ---------------------------------------------------------- callbacks -- */

/* A HEADERS on stream id: false when RFC 9113 5.1.1 makes it a connection
 * error (an id below one opened since, never opened itself: it is closed
 * without having been used, and nghttp2 would ignore it). */
static bool
stream_id_ok(struct px_h2 *h2, int32_t id)
{
	const uint32_t dim = RTE_DIM(h2->opened);
	uint32_t i;

	if ((id & 1) == 0 || nghttp2_session_find_stream(h2->s, id) != NULL)
		return true; /* nghttp2's to judge */
	if (id > h2->max_id) {
		h2->max_id = id;
		h2->opened[h2->n_opened++ % dim] = id;
		return true;
	}
	for (i = 0; i < dim && i < h2->n_opened; i++)
		if (h2->opened[i] == id)
			return true; /* closed after use: STREAM_CLOSED, nghttp2's */
	/* Never opened, unless older than the ids remembered (not judged). */
	return h2->n_opened >= dim && id < h2->opened[h2->n_opened % dim];
}

static int
on_begin_frame(nghttp2_session *s, const nghttp2_frame_hd *hd, void *ud)
{
	struct px_h2 *h2 = ud;

	(void)s;
	if (h2->fatal)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	if (hd->type == NGHTTP2_HEADERS) {
		h2->blk.wire = 0;
		if (!stream_id_ok(h2, hd->stream_id)) {
			px_h2_fail(h2, NGHTTP2_PROTOCOL_ERROR, &h2->w->counters.h2_protocol_errors);
			return NGHTTP2_ERR_CALLBACK_FAILURE;
		}
	}
	if (hd->type == NGHTTP2_HEADERS || hd->type == NGHTTP2_CONTINUATION) {
		h2->blk.wire += 9 + (uint32_t)hd->length;
		if (h2->blk.wire > px_h2_cfg.max_header_list_size) {
			px_h2_fail(h2, NGHTTP2_ENHANCE_YOUR_CALM,
				   &h2->w->counters.h2_header_list_too_large);
			return NGHTTP2_ERR_CALLBACK_FAILURE;
		}
	}
	return 0;
}

static int
on_begin_headers(nghttp2_session *s, const nghttp2_frame *frame, void *ud)
{
	(void)s;
	return px_h2s_begin(ud, frame);
}

static int
on_header(nghttp2_session *s, const nghttp2_frame *frame, const uint8_t *name, size_t nlen,
	  const uint8_t *value, size_t vlen, uint8_t flags, void *ud)
{
	(void)s;
	(void)flags;
	return px_h2s_header(ud, frame, name, nlen, value, vlen);
}

static int
on_frame_recv(nghttp2_session *s, const nghttp2_frame *frame, void *ud)
{
	struct px_h2 *h2 = ud;
	bool end = (frame->hd.flags & NGHTTP2_FLAG_END_STREAM) != 0;
	int rv = 0;

	(void)s;
	if (h2->fatal)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	switch (frame->hd.type) {
	case NGHTTP2_HEADERS:
		rv = px_h2s_headers_done(h2, frame);
		if (rv == 0 && end)
			px_h2s_end_stream(h2, frame->hd.stream_id);
		break;
	case NGHTTP2_DATA:
		if (end)
			px_h2s_end_stream(h2, frame->hd.stream_id);
		else if (frame->hd.length == 0)
			rv = flood_spend(h2);
		break;
	case NGHTTP2_SETTINGS:
	case NGHTTP2_PING:
		if (!(frame->hd.flags & NGHTTP2_FLAG_ACK))
			rv = flood_spend(h2);
		break;
	case NGHTTP2_PRIORITY:
		rv = flood_spend(h2);
		break;
	case NGHTTP2_WINDOW_UPDATE:
		if (h2->wu_credit > 0)
			h2->wu_credit--;
		else
			rv = flood_spend(h2);
		break;
	case NGHTTP2_RST_STREAM:
		buckets_refill(h2);
		if (h2->reset_tokens < 1.0) {
			px_h2_fail(h2, NGHTTP2_ENHANCE_YOUR_CALM,
				   &h2->w->counters.h2_goaway_rapid_reset);
			rv = NGHTTP2_ERR_CALLBACK_FAILURE;
		} else {
			h2->reset_tokens -= 1.0;
		}
		break;
	default:
		break;
	}
	return rv;
}

static int
on_data_chunk(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data, size_t len,
	      void *ud)
{
	(void)s;
	(void)flags;
	return px_h2s_data(ud, id, data, len);
}

/* RFC 9113 8.1: a complete response before the whole request: the client
 * is asked to stop sending (RST_STREAM NO_ERROR) once the END_STREAM is
 * out, as nghttpx and Envoy do; it would otherwise wait for windows that
 * no one opens. */
static int
on_frame_send(nghttp2_session *s, const nghttp2_frame *frame, void *ud)
{
	struct px_h2 *h2 = ud;
	struct sy_proxy *ex;

	if (frame->hd.type == NGHTTP2_DATA && h2->wu_credit < 2 * 1024)
		h2->wu_credit += 2;
	if (frame->hd.type == NGHTTP2_GOAWAY && frame->goaway.error_code != NGHTTP2_NO_ERROR &&
	    !h2->fatal && !h2->nghttp2_ended) {
		/* nghttp2's own answer to a connection error (ours are
		 * counted where they are decided). */
		h2->nghttp2_ended = true;
		h2->w->counters.h2_protocol_errors++;
	}
	if ((frame->hd.type != NGHTTP2_DATA && frame->hd.type != NGHTTP2_HEADERS) ||
	    !(frame->hd.flags & NGHTTP2_FLAG_END_STREAM))
		return 0;
	ex = nghttp2_session_get_stream_user_data(s, frame->hd.stream_id);
	if (ex != NULL && !ex->strm->in_fin)
		nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, frame->hd.stream_id, NGHTTP2_NO_ERROR);
	return 0;
}

static int
on_stream_close(nghttp2_session *s, int32_t id, uint32_t code, void *ud)
{
	struct sy_proxy *ex = nghttp2_session_get_stream_user_data(s, id);

	(void)code;
	(void)ud;
	if (ex != NULL) {
		/* Freed at the next sweep: the session may still be walking
		 * its streams. */
		ex->strm->closed = true;
		nghttp2_session_set_stream_user_data(s, id, NULL);
	}
	return 0;
}

/* -------------------------------------------------------------- setup -- */

void
sy_dp_h2_configure(const struct sy_h2_config *cfg)
{
	px_h2_cfg = *cfg;
	h2_on = cfg->enabled;
	/* h2 to backends, whatever is said of clients (without its
	 * callbacks an h2 leg fails to open: h2_no_memory). */
	px_h2b_configure();
	if (!h2_on || h2_cbs != NULL)
		return;
	/* Shared by every session on every worker: read only from here on
	 * (a session copies the callbacks it is made with). */
	if (nghttp2_session_callbacks_new(&h2_cbs) != 0 || nghttp2_option_new(&h2_opt) != 0) {
		h2_on = false;
		return;
	}
	nghttp2_session_callbacks_set_on_begin_frame_callback(h2_cbs, on_begin_frame);
	nghttp2_session_callbacks_set_on_begin_headers_callback(h2_cbs, on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(h2_cbs, on_header);
	nghttp2_session_callbacks_set_on_frame_recv_callback(h2_cbs, on_frame_recv);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(h2_cbs, on_data_chunk);
	nghttp2_session_callbacks_set_on_stream_close_callback(h2_cbs, on_stream_close);
	nghttp2_session_callbacks_set_on_frame_send_callback(h2_cbs, on_frame_send);
	/* The window opens as the exchange takes a body, not as nghttp2
	 * reads it: a slow backend slows its client, nothing piles up. */
	nghttp2_option_set_no_auto_window_update(h2_opt, 1);
	nghttp2_option_set_max_deflate_dynamic_table_size(h2_opt, 4096);
}

bool
sy_dp_h2_on(void)
{
	return h2_on;
}

static bool
h2_start(struct sy_worker *w, struct sy_proxy *px)
{
	nghttp2_settings_entry iv[5] = {
		{ NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, px_h2_cfg.max_concurrent_streams },
		{ NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, px_h2_cfg.max_header_list_size },
		{ NGHTTP2_SETTINGS_HEADER_TABLE_SIZE, px_h2_cfg.header_table_size },
		{ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, px_h2_cfg.initial_window_size },
		{ NGHTTP2_SETTINGS_MAX_FRAME_SIZE, px_h2_cfg.max_frame_size },
	};
	struct px_h2 *h2 = px_h2_raw_alloc(sizeof(*h2));
	nghttp2_mem mem;

	if (h2 == NULL)
		goto fail;
	memset(h2, 0, sizeof(*h2));
	h2->w = w;
	h2->px = px;
	h2->reset_tokens = px_h2_cfg.reset_burst;
	h2->flood_tokens = px_h2_cfg.flood_burst;
	h2->bucket_tsc = w->now;
	h2->idle_since = w->now;
	h2->mem.w = w;
	px_h2_mem_hooks(&mem, &h2->mem);
	if (nghttp2_session_server_new3(&h2->s, h2_cbs, h2, h2_opt, &mem) != 0) {
		px_h2_raw_free(h2);
		goto fail;
	}
	if (nghttp2_submit_settings(h2->s, NGHTTP2_FLAG_NONE, iv, 5) != 0 ||
	    nghttp2_session_set_local_window_size(h2->s, NGHTTP2_FLAG_NONE, 0, SY_H2_CONN_WINDOW) !=
		    0) {
		nghttp2_session_del(h2->s);
		px_h2_raw_free(h2);
		goto fail;
	}
	px->h2 = h2;
	w->counters.h2_mem_bytes += sizeof(*h2);
	px->deadline = 0; /* the session's idle timeout and the streams' from here on */
	w->counters.h2_conns++;
	return true;
fail:
	w->counters.h2_no_memory++;
	sy_tcb_abort(w, &px->c);
	return false;
}

bool
px_h2_detect(struct sy_worker *w, struct sy_proxy *px)
{
	if (!h2_on || px->requests > 0) {
		px->h2_decided = true;
		return false;
	}
	if (px->tls != NULL) {
		const unsigned char *p = NULL;
		unsigned len = 0;

		if (px->tls->state != SY_TLS_OPEN)
			return false; /* the handshake decides */
		px->h2_decided = true;
		SSL_get0_alpn_selected(px->tls->ssl, &p, &len);
		if (len != 2 || memcmp(p, "h2", 2) != 0)
			return false;
	} else {
		static const char preface[] = SY_H2_PREFACE;
		struct sy_mq *in = px_cin(px);
		uint8_t head[SY_H2_PREFACE_LEN];
		uint32_t n = in->bytes < SY_H2_PREFACE_LEN ? in->bytes : SY_H2_PREFACE_LEN;

		if (n == 0)
			return false;
		sy_mq_copy(in, 0, n, head);
		if (memcmp(head, preface, n) != 0) {
			px->h2_decided = true;
			return false;
		}
		if (n < SY_H2_PREFACE_LEN)
			return false;
		px->h2_decided = true;
	}
	return h2_start(w, px);
}

/* ---------------------------------------------------------------- I/O -- */

/* The client's bytes into nghttp2, as many as it wants. */
static bool
h2_recv(struct px_h2 *h2)
{
	struct sy_proxy *px = h2->px;
	struct sy_mq *in = px_cin(px);
	struct sy_frag f[16];
	uint32_t used = 0;
	unsigned n, i;

	if (h2->fatal || in->bytes == 0 || !nghttp2_session_want_read(h2->s))
		return false;
	n = sy_mq_frags(in, 0, in->bytes, f, RTE_DIM(f));
	for (i = 0; i < n; i++) {
		ssize_t rv = nghttp2_session_mem_recv(h2->s, f[i].data, f[i].len);

		if (rv < 0) {
			if (rv == NGHTTP2_ERR_NOMEM)
				px_h2_fail(h2, NGHTTP2_INTERNAL_ERROR, &h2->w->counters.h2_no_memory);
			else if (rv == NGHTTP2_ERR_FLOODED)
				px_h2_fail(h2, NGHTTP2_ENHANCE_YOUR_CALM,
					   &h2->w->counters.h2_goaway_flood);
			else
				px_h2_fail(h2, NGHTTP2_PROTOCOL_ERROR,
					   &h2->w->counters.h2_protocol_errors);
			used = in->bytes; /* nothing more is read */
			break;
		}
		used += (uint32_t)rv;
	}
	sy_mq_drop(in, used);
	px_client_consumed(h2->w, px);
	return used > 0;
}

/* nghttp2's frames to the client, while its queue has room. */
static bool
h2_send(struct px_h2 *h2)
{
	struct sy_proxy *px = h2->px;
	bool moved = false;

	while (px_client_room(px) > 0 && !px_client_closing(px)) {
		const uint8_t *p;
		ssize_t n = nghttp2_session_mem_send(h2->s, &p);

		if (n <= 0) {
			if (n < 0) {
				/* Only NOMEM: nothing more can be said. */
				h2->w->counters.h2_no_memory++;
				sy_tcb_abort(h2->w, &px->c);
			}
			break;
		}
		if (sy_mq_append_bytes(px_cout(px), p, (uint32_t)n, h2->w->sh->pool) != 0) {
			/* No mbufs: the frame is lost, and with it the
			 * session's state as the client sees it. */
			h2->w->counters.h2_no_memory++;
			sy_tcb_abort(h2->w, &px->c);
			break;
		}
		moved = true;
	}
	return moved;
}

/* --------------------------------------------------------------- step -- */

/* Free the exchanges whose streams nghttp2 closed. */
static void
h2_sweep(struct px_h2 *h2)
{
	struct sy_proxy *ex = h2->streams, *next;

	for (; ex != NULL; ex = next) {
		next = ex->strm->next;
		if (ex->strm->closed)
			px_h2s_free(h2, ex);
	}
	if (h2->n_streams == 0 && h2->idle_since == 0)
		h2->idle_since = h2->w->now;
}

void
px_h2_step(struct sy_worker *w, struct sy_proxy *px)
{
	struct px_h2 *h2 = px->h2;
	unsigned rounds = 0;
	bool moved;

	h2->w = w;
	do {
		struct sy_proxy *ex;

		/* Within an RX burst an open connection seals once, at its
		 * end (px_out.c): here only what came in is read. */
		moved = px->tls != NULL && (px_out_deferrable(w, px) ? sy_tls_pump_in(px->tls)
								     : sy_tls_pump(px->tls));
		moved |= h2_recv(h2);
		for (ex = h2->streams; ex != NULL; ex = ex->strm->next)
			moved |= px_h2s_run(h2, ex);
		moved |= h2_send(h2);
	} while (moved && ++rounds < 64 && px->c.state != SY_TCPS_CLOSED);
	h2_sweep(h2);
	if (h2->n_streams > 0)
		h2->idle_since = 0;
	/* Done: a GOAWAY went out (ours, an error's, or the end of a drain
	 * with no stream left), or the client closed with nothing open. */
	if (!px_client_closing(px) &&
	    ((!nghttp2_session_want_read(h2->s) && !nghttp2_session_want_write(h2->s)) ||
	     (h2->fatal && !nghttp2_session_want_write(h2->s)) ||
	     (h2->draining && h2->n_streams == 0 && !nghttp2_session_want_write(h2->s)) ||
	     (px_client_fin(px) && h2->n_streams == 0))) {
		px_client_close(px);
		/* A client that stops reading is not waited for forever. */
		px->deadline = px_in_ms(w, SY_PROXY_TIMEOUT_CLIENT_MS);
	}
	/* Last: TLS seals what the session wrote, and the close_notify of
	 * a close just decided (the FIN follows it); within an RX burst, an
	 * open connection's seal waits for its end (px_out.c), so that the
	 * burst's responses share a record. */
	if (px->tls != NULL) {
		if (px_out_deferrable(w, px))
			px->seal_later = true;
		else
			sy_tls_pump(px->tls);
	}
}

uint64_t
px_h2_next_timer(struct sy_worker *w, const struct sy_proxy *px)
{
	const struct px_h2 *h2 = px->h2;
	const struct sy_proxy *ex;
	uint64_t when = 0, t;

	for (ex = h2->streams; ex != NULL; ex = ex->strm->next) {
		t = ex->deadline;
		if (ex->bc != NULL) {
			uint64_t b = sy_tcb_next_timer(&ex->b);

			if (b != 0 && (t == 0 || b < t))
				t = b;
		}
		if (t != 0 && (when == 0 || t < when))
			when = t;
	}
	if (h2->n_streams == 0 && h2->idle_since != 0 && !px_client_closing(px)) {
		t = h2->idle_since + sy_ms_to_tsc(w, px_h2_cfg.idle_timeout_ms);
		if (when == 0 || t < when)
			when = t;
	}
	return when;
}

void
px_h2_timers(struct sy_worker *w, struct sy_proxy *px)
{
	struct px_h2 *h2 = px->h2;
	struct sy_proxy *ex;

	h2->w = w;
	if (px->deadline != 0 && px->deadline <= w->now) {
		/* Closing, and the client did not read the rest. */
		px->deadline = 0;
		sy_tcb_abort(w, &px->c);
		return;
	}
	for (ex = h2->streams; ex != NULL; ex = ex->strm->next) {
		if (ex->strm->closed)
			continue;
		if (ex->bc != NULL)
			sy_tcb_timers(w, &ex->b);
		if (ex->deadline != 0 && ex->deadline <= w->now)
			px_deadline(w, ex);
	}
	if (h2->n_streams == 0 && h2->idle_since != 0 && !h2->fatal && !h2->draining &&
	    w->now >= h2->idle_since + sy_ms_to_tsc(w, px_h2_cfg.idle_timeout_ms)) {
		/* http-keep-alive for h2: nothing asked for this long. */
		h2->draining = true;
		nghttp2_session_terminate_session(h2->s, NGHTTP2_NO_ERROR);
	}
}

void
px_h2_drain(struct sy_worker *w, struct sy_proxy *px)
{
	struct px_h2 *h2 = px->h2;

	h2->w = w;
	if (h2->draining || h2->fatal)
		return;
	/* The streams the client opened so far are served; no new ones. */
	h2->draining = true;
	nghttp2_submit_goaway(h2->s, NGHTTP2_FLAG_NONE, nghttp2_session_get_last_proc_stream_id(h2->s),
			      NGHTTP2_NO_ERROR, NULL, 0);
}

void
px_h2_free(struct sy_worker *w, struct sy_proxy *px)
{
	struct px_h2 *h2 = px->h2;

	h2->w = w;
	/* nghttp2 first: it calls nothing back as it goes, and its data
	 * sources point at the exchanges. */
	nghttp2_session_del(h2->s);
	h2->s = NULL;
	while (h2->streams != NULL)
		px_h2s_free(h2, h2->streams);
	px_h2_free_mem(h2, h2->blk.hb);
	w->counters.h2_mem_bytes -= sizeof(*h2);
	px_h2_raw_free(h2);
	px->h2 = NULL;
}

uint32_t
px_h2_streams(const struct sy_proxy *px)
{
	return px->h2 != NULL ? px->h2->n_streams : 0;
}
