/* SPDX-License-Identifier: BSD-3-Clause */
/* What px_h2.c (the session) and px_h2_stream.c (a stream's exchange)
 * share. */
#ifndef SY_PX_H2_INTERNAL_H
#define SY_PX_H2_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <nghttp2/nghttp2.h>

#include "proxy/proxy.h"
#include "sy_config.h"

/* The header block being received (one at a time on a connection: HEADERS
 * and its CONTINUATIONs are never interleaved with other frames). The
 * request's pseudo-headers and regular fields are kept in hb as they come,
 * the regular ones as HTTP/1.1 field lines, then written out as one
 * HTTP/1.1 head at END_HEADERS. */
struct px_h2_block {
	char *hb;                 /* from the session's allocator, SY_PROXY_HEAD_MAX */
	uint32_t hb_len;
	uint32_t wire;            /* HEADERS + CONTINUATION bytes, frame headers included */
	uint32_t fields;          /* decoded: name + value + 32 a field (RFC 9113 6.5.2) */
	uint32_t method, method_len, path, path_len, auth, auth_len; /* offsets in hb */
	uint32_t pseudo_end;      /* the field lines start here */
	bool has_auth, has_cl, too_big, over;
};

/* nghttp2's own state per session: its HPACK tables (4 KiB each way by
 * default), ~300 bytes a stream, the frames it queues. */
#define SY_H2_MEM_MAX (1024 * 1024)

/* A chunked body in a pipe's `out`: where the decoder is (px_h2_body.c). */
enum {
	DC_SIZE,     /* a chunk-size line */
	DC_DATA,     /* chunk data, `left` bytes of it */
	DC_DATA_END, /* the CRLF after it */
	DC_TRAILER,  /* trailer lines, to the empty one */
	DC_DONE,
};

/* A field name nghttp2 gave (lowercase: it checks) is s. */
static inline bool
px_h2_name_is(const uint8_t *name, size_t nlen, const char *s)
{
	return nlen == strlen(s) && memcmp(name, s, nlen) == 0;
}

/* A session's memory account (px_h2_mem.c). */
struct px_h2_mem {
	struct sy_worker *w;
	size_t used;              /* bytes nghttp2 holds for this session */
};

struct px_h2 {
	nghttp2_session *s;
	struct sy_worker *w;      /* the worker, for the callbacks of this step */
	struct sy_proxy *px;      /* the connection */
	struct sy_proxy *streams; /* the exchanges, linked by strm->next and prev */
	uint32_t n_streams;
	struct px_h2_mem mem;
	double reset_tokens, flood_tokens;
	uint64_t bucket_tsc;
	uint64_t idle_since;      /* TSC: the last stream closed (n_streams 0) */
	struct px_h2_block blk;
	/* RFC 9113 5.1.1: a HEADERS below the highest stream id opened, on
	 * an id never opened, is a connection error (nghttp2 ignores it):
	 * the highest id, and the last ids opened (older ones: not judged). */
	int32_t max_id;
	int32_t opened[32];
	uint32_t n_opened;
	/* WINDOW_UPDATEs the client may send without spending the flood
	 * bucket: two for each DATA frame we sent (what reading it needs). */
	uint32_t wu_credit;
	bool nghttp2_ended;       /* counted: nghttp2 ended the session itself */
	bool fatal;               /* a GOAWAY for an error is queued: close after it */
	bool draining;            /* a graceful GOAWAY: no new streams */
};

/* routerd's http2 config (px_h2.c). */
extern struct sy_h2_config px_h2_cfg;

/* The workers' allocator, uncounted (a session's own struct). */
void *px_h2_raw_alloc(size_t n);
void px_h2_raw_free(void *p);
/* A session's allocator, counted and bounded at SY_H2_MEM_MAX; hooks:
 * nghttp2's, over it. */
void *px_h2_mem_alloc(struct px_h2_mem *m, size_t n);
void px_h2_mem_free(struct px_h2_mem *m, void *p);
void px_h2_mem_hooks(nghttp2_mem *mem, struct px_h2_mem *m);

static inline void *
px_h2_alloc(struct px_h2 *h2, size_t n)
{
	return px_h2_mem_alloc(&h2->mem, n);
}

static inline void
px_h2_free_mem(struct px_h2 *h2, void *p)
{
	px_h2_mem_free(&h2->mem, p);
}

/* A connection error: GOAWAY with code, counted, the connection closes
 * once it is sent. */
void px_h2_fail(struct px_h2 *h2, uint32_t code, uint64_t *counter);

/* px_h2_body.c: an HTTP/1.1 message in a pipe's `out` as h2 frames. The
 * data source of a stream whose body is in st->out (src->ptr: st; its
 * framing, left and dc_state set from the head): DATA, then the kept
 * trailers as HEADERS. */
ssize_t px_h2_read_body(nghttp2_session *s, int32_t id, uint8_t *buf, size_t length,
			uint32_t *flags, nghttp2_data_source *src, void *ud);
/* Connection-specific fields (RFC 9113 8.2.2) an HTTP/1.1 message may
 * carry and an h2 one must not. */
bool px_h2_hop_by_hop(const char *n, size_t len);
/* A field the caller leaves out (or carries otherwise). */
typedef bool (*px_h2_field_skip)(const char *name, size_t len);
/* The field lines of an HTTP/1.1 head from byte `at` to its blank line as
 * h2 fields in nv[k..max): names lowercased into `names` (head_len bytes
 * of room), values pointing into head; connection-specific ones and those
 * skip says left out. The new count. */
size_t px_h2_head_fields(const uint8_t *head, uint32_t at, uint32_t head_len, nghttp2_nv *nv,
			 size_t k, size_t max, char *names, px_h2_field_skip skip);

/* px_h2_stream.c: nghttp2's callbacks for one stream, and the exchange. */
int px_h2s_begin(struct px_h2 *h2, const nghttp2_frame *frame);
int px_h2s_header(struct px_h2 *h2, const nghttp2_frame *frame, const uint8_t *name, size_t nlen,
		  const uint8_t *value, size_t vlen);
int px_h2s_headers_done(struct px_h2 *h2, const nghttp2_frame *frame);
int px_h2s_data(struct px_h2 *h2, int32_t id, const uint8_t *data, size_t len);
void px_h2s_end_stream(struct px_h2 *h2, int32_t id);
/* Run one stream's exchange, then carry what it did to the session:
 * window credit for the body it took, its response's HEADERS, DATA
 * resumed. True when anything moved. */
bool px_h2s_run(struct px_h2 *h2, struct sy_proxy *ex);
/* The exchange goes (its stream closed, or the connection did). */
void px_h2s_free(struct px_h2 *h2, struct sy_proxy *ex);

#endif
