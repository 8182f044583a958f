/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An HTTP/1.1 message in a pipe (struct px_h2_stream, `out`) as h2 frames:
 * its head's field lines as h2 fields, its body as DATA (a content-length
 * one as it is, a chunked one decoded), and a chunked body's trailer
 * section as the stream's trailers. Both sessions use it: towards a client
 * for the exchange's response (px_h2_stream.c), towards an h2 backend for
 * the exchange's request (px_h2_backend.c).
 */
#include <string.h>
#include <strings.h>

#include <rte_common.h>

#include "proxy/px_h2.h"
#include "proxy/px_h2_internal.h"
#include "proxy/px_msg.h"

/* A line of `out` at its start (a chunk size or a trailer): its length
 * without the CRLF, or -1 while it is not all there. */
static int
out_line(const struct sy_mq *q, uint32_t *used)
{
	char buf[SY_PX_CHUNK_LINE_MAX + 2];
	uint32_t n = q->bytes < sizeof(buf) ? q->bytes : (uint32_t)sizeof(buf);
	const char *lf;

	if (n == 0)
		return -1;
	sy_mq_copy(q, 0, n, buf);
	lf = memchr(buf, '\n', n);
	if (lf == NULL)
		return -1;
	*used = (uint32_t)(lf - buf + 1);
	return (int)(lf - buf) - (lf > buf && lf[-1] == '\r' ? 1 : 0);
}

static uint64_t
out_chunk_size(const struct sy_mq *q, uint32_t len)
{
	char buf[SY_PX_CHUNK_DIGITS_MAX + 1];
	uint32_t n = len < sizeof(buf) ? len : (uint32_t)sizeof(buf), i;
	uint64_t v = 0;

	sy_mq_copy(q, 0, n, buf);
	for (i = 0; i < n; i++) {
		char c = buf[i];
		unsigned d;

		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else if (c >= 'A' && c <= 'F')
			d = (unsigned)(c - 'A' + 10);
		else
			break;
		v = v * 16 + d;
	}
	return v;
}

#define H2_TRAILERS_MAX 2048 /* a response's trailer section we carry (gRPC's is ~100 B) */

/* Keep a trailer line (without its CRLF) for the stream's trailers; one
 * past H2_TRAILERS_MAX is dropped. */
static void
trailer_keep(struct px_h2_stream *st, uint32_t len)
{
	if (len == 0 || len + 2 > (uint32_t)(H2_TRAILERS_MAX - st->trl_len))
		return;
	if (st->trl == NULL && (st->trl = px_h2_mem_alloc(st->mem, H2_TRAILERS_MAX)) == NULL)
		return;
	sy_mq_copy(&st->out, 0, len, st->trl + st->trl_len);
	memcpy(st->trl + st->trl_len + len, "\r\n", 2);
	st->trl_len = (uint16_t)(st->trl_len + len + 2);
}

/* Decode a chunked body from `out` into buf (the exchange checked its
 * framing: px_msg.c); its trailer lines are kept (trailer_keep). */
static size_t
dechunk(struct px_h2_stream *st, uint8_t *buf, size_t room, bool *eof)
{
	size_t n = 0;

	while (n < room) {
		uint32_t used = 0;
		int len;

		switch (st->dc_state) {
		case DC_SIZE:
			len = out_line(&st->out, &used);
			if (len < 0)
				return n;
			st->left = out_chunk_size(&st->out, (uint32_t)len);
			sy_mq_drop(&st->out, used);
			st->dc_state = st->left > 0 ? DC_DATA : DC_TRAILER;
			break;
		case DC_DATA: {
			uint64_t k = st->left;

			if (k > room - n)
				k = room - n;
			if (k > st->out.bytes)
				k = st->out.bytes;
			if (k == 0)
				return n;
			sy_mq_copy(&st->out, 0, (uint32_t)k, buf + n);
			sy_mq_drop(&st->out, (uint32_t)k);
			n += k;
			st->left -= k;
			if (st->left == 0)
				st->dc_state = DC_DATA_END;
			break;
		}
		case DC_DATA_END:
			if (st->out.bytes < 2)
				return n;
			sy_mq_drop(&st->out, 2);
			st->dc_state = DC_SIZE;
			break;
		case DC_TRAILER:
			len = out_line(&st->out, &used);
			if (len < 0)
				return n;
			trailer_keep(st, (uint32_t)len);
			sy_mq_drop(&st->out, used);
			if (len == 0)
				st->dc_state = DC_DONE;
			break;
		default:
			*eof = true;
			return n;
		}
	}
	return n;
}

/* The kept trailer lines as the stream's trailers (HEADERS with
 * END_STREAM after the last DATA): gRPC's grpc-status and grpc-message
 * from a chunked HTTP/1.1 response. 0, or nghttp2's error (then the DATA
 * ends the stream itself). */
static int
submit_trailers(nghttp2_session *s, struct px_h2_stream *st)
{
	nghttp2_nv nv[32];
	char names[H2_TRAILERS_MAX];
	const char *p = st->trl, *end = st->trl + st->trl_len;
	size_t k = 0, nn = 0;
	int rv;

	while (p < end && k < RTE_DIM(nv)) {
		const char *eol = memchr(p, '\r', (size_t)(end - p));
		const char *colon = memchr(p, ':', (size_t)(eol - p));
		const char *v;
		size_t nl, i;

		if (eol == NULL || colon == NULL)
			break;
		nl = (size_t)(colon - p);
		for (v = colon + 1; v < eol && (*v == ' ' || *v == '\t'); v++)
			;
		if (nl > 0 && !px_h2_hop_by_hop(p, nl) && !(nl == 14 && strncasecmp(p, "content-length", 14) == 0)) {
			for (i = 0; i < nl; i++)
				names[nn + i] = (char)(p[i] >= 'A' && p[i] <= 'Z' ? p[i] + 32 : p[i]);
			nv[k++] = (nghttp2_nv){ (uint8_t *)names + nn, (uint8_t *)(uintptr_t)v, nl,
						(size_t)(eol - v), NGHTTP2_NV_FLAG_NONE };
			nn += nl;
		}
		p = eol + 2;
	}
	rv = k > 0 ? nghttp2_submit_trailer(s, st->id, nv, k) : -1;
	px_h2_mem_free(st->mem, st->trl);
	st->trl = NULL;
	st->trl_len = 0;
	return rv;
}

ssize_t
px_h2_read_body(nghttp2_session *s, int32_t id, uint8_t *buf, size_t length, uint32_t *flags,
		nghttp2_data_source *src, void *ud)
{
	struct px_h2_stream *st = src->ptr;
	bool eof = false;
	size_t n = 0;

	(void)id;
	(void)ud;
	if (st->aborted)
		return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* RST_STREAM */
	switch (st->framing) {
	case SY_PX_BODY_LENGTH:
		n = length;
		if (n > st->out.bytes)
			n = st->out.bytes;
		if (n > st->left)
			n = (size_t)st->left;
		sy_mq_copy(&st->out, 0, (uint32_t)n, buf);
		sy_mq_drop(&st->out, (uint32_t)n);
		st->left -= n;
		eof = st->left == 0;
		break;
	case SY_PX_BODY_CHUNKED:
		n = dechunk(st, buf, length, &eof);
		if (st->dc_state == DC_DONE)
			eof = true;
		break;
	default: /* read to the backend's close */
		n = length;
		if (n > st->out.bytes)
			n = st->out.bytes;
		sy_mq_copy(&st->out, 0, (uint32_t)n, buf);
		sy_mq_drop(&st->out, (uint32_t)n);
		eof = st->out.bytes == 0 && st->out_closed;
		break;
	}
	if (eof) {
		*flags |= NGHTTP2_DATA_FLAG_EOF;
		st->eof = true;
		if (st->trl_len > 0 && submit_trailers(s, st) == 0)
			*flags |= NGHTTP2_DATA_FLAG_NO_END_STREAM; /* the trailers end it */
		return (ssize_t)n;
	}
	if (n == 0) {
		if (st->out_closed)
			return NGHTTP2_ERR_TEMPORAL_CALLBACK_FAILURE; /* cut short */
		st->deferred = true;
		return NGHTTP2_ERR_DEFERRED;
	}
	return (ssize_t)n;
}

/* Connection-specific fields (RFC 9113 8.2.2) an HTTP/1.1 response may
 * carry and an h2 one must not. */
bool
px_h2_hop_by_hop(const char *n, size_t len)
{
	static const char *const names[] = { "connection", "keep-alive", "proxy-connection",
					     "transfer-encoding", "upgrade", "te" };
	size_t i;

	for (i = 0; i < RTE_DIM(names); i++)
		if (len == strlen(names[i]) && strncasecmp(n, names[i], len) == 0)
			return true;
	return false;
}

size_t
px_h2_head_fields(const uint8_t *head, uint32_t at, uint32_t head_len, nghttp2_nv *nv, size_t k,
		  size_t max, char *names, px_h2_field_skip skip)
{
	uint32_t nn = 0;

	while (at + 2 < head_len && k < max) {
		const uint8_t *eol = memchr(head + at, '\n', head_len - at);
		const uint8_t *colon;
		uint32_t end, nl, vs, ve, i;

		if (eol == NULL)
			break;
		colon = memchr(head + at, ':', (size_t)(eol - (head + at)));
		end = (uint32_t)(eol - head);
		if (colon == NULL)
			break;
		nl = (uint32_t)(colon - (head + at));
		vs = (uint32_t)(colon - head) + 1;
		ve = end > 0 && head[end - 1] == '\r' ? end - 1 : end;
		while (vs < ve && (head[vs] == ' ' || head[vs] == '\t'))
			vs++;
		while (ve > vs && (head[ve - 1] == ' ' || head[ve - 1] == '\t'))
			ve--;
		if (!px_h2_hop_by_hop((const char *)head + at, nl) &&
		    (skip == NULL || !skip((const char *)head + at, nl))) {
			/* h2 field names are lowercase (RFC 9113 8.2.1). */
			for (i = 0; i < nl; i++) {
				char c = (char)head[at + i];

				names[nn + i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
			}
			nv[k++] = (nghttp2_nv){ (uint8_t *)names + nn, (uint8_t *)(uintptr_t)(head + vs),
						nl, ve - vs, NGHTTP2_NV_FLAG_NONE };
			nn += nl;
		}
		at = end + 1;
	}
	return k;
}
