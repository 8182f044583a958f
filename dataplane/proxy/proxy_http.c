/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Requests and responses of a proxied connection (proxy.h): one request at
 * a time towards the backend (pipelined requests wait in the client's
 * receive queue, in order), its response back, then the next. Bodies move
 * between the legs' queues by their framing without being copied; heads are
 * copied once (the request's is rewritten with the forwarded headers).
 */
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>
#include <strings.h>

#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_per_lcore.h>

#include "lb/lb.h"
#include "observe/access_rec.h"
#include "observe/conn_stats.h"
#include "conn/flow_table.h"
#include "conn/src_limit.h"
#include "proxy/proxy_internal.h"
#include "proxy/px_mirror.h"
#include "sy_backend_stats.h"
#include "sy_generation.h"
#include "sy_route_stats.h"
#include "tls/tls_client_cert.h"
#include "worker.h"

/* A head being parsed or rewritten: one per lcore, not on the stack. */
static RTE_DEFINE_PER_LCORE(uint8_t[SY_PROXY_HEAD_MAX + 1024], px_head);
/* A head rewritten by filters (proxy_filter.c): room for added lines. */
static RTE_DEFINE_PER_LCORE(uint8_t[SY_PROXY_HEAD_MAX + 2048], px_out);

const char *
px_reason_phrase(uint16_t status)
{
	switch (status) {
	case 200: return "OK";
	case 301: return "Moved Permanently";
	case 302: return "Found";
	case 307: return "Temporary Redirect";
	case 308: return "Permanent Redirect";
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 408: return "Request Timeout";
	case 413: return "Content Too Large";
	case 414: return "URI Too Long";
	case 421: return "Misdirected Request";
	case 429: return "Too Many Requests";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 501: return "Not Implemented";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	case 505: return "HTTP Version Not Supported";
	default: return "Status";
	}
}

/* ------------------------------------------- a request's record -- */

/*
 * What the exchange in flight keeps for the route's counters (sy_route_
 * stats.h) and the access log (observe/access_rec.h): px->log, open while
 * log.tsc != 0, filled as the exchange goes (status, bytes, times), and
 * counted and logged when it ends. The log's text fields only when the log
 * is on.
 */
static void
request_begin(struct sy_worker *w, struct sy_proxy *px, const struct sy_http_head *h)
{
	struct sy_access_rec *r = &px->log;

	memset(r, 0, offsetof(struct sy_access_rec, method));
	r->method[0] = r->host[0] = r->route[0] = r->target[0] = '\0';
	r->tsc = w->now;
	r->mode = SY_ALOG_PROXY;
	r->why = SY_ALOG_NO_REASON;
	r->resp_us = r->connect_us = SY_ALOG_NO_TIME;
	r->bytes_in = h != NULL ? h->head_len : 0;
	px->stat_slot = 0;
	px->be_stat_slot = 0;
	px->t_queued = 0;
	px->backend_us = SY_ALOG_NO_TIME;
	px->router_us = 0;
	if (!sy_alog_on(w))
		return;
	r->client_ip = px->c.daddr;
	r->client_port = px->c.dport;
	r->vip = px->c.saddr;
	r->vip_port = px->c.sport;
	r->v6 = px->c.v6 ? SY_ALOG_V6_CLIENT | SY_ALOG_V6_VIP : 0;
	if (px->c.v6) {
		memcpy(r->client6, px->c.daddr6, 16);
		memcpy(r->vip6, px->c.saddr6, 16);
	}
	sy_alog_pp_client(&w->tcp, px->cc, r);
	r->tls = px->tls != NULL;
	if (h != NULL) {
		r->version = px->strm != NULL ? 20 : (uint8_t)(10 + h->version_minor);
		sy_alog_text(r->method, sizeof(r->method), h->method, h->method_len);
		sy_alog_text(r->host, sizeof(r->host), h->host, h->host_len);
		sy_alog_text(r->target, sizeof(r->target), h->path, h->path_len);
	}
}

/* The exchange is over (or the connection, first): counted on its route,
 * logged. */
void
px_request_end(struct sy_worker *w, struct sy_proxy *px)
{
	struct sy_access_rec *r = &px->log;
	bool timed = px->backend_us != SY_ALOG_NO_TIME;

	if (r->tsc == 0)
		return;
	r->total_us = sy_alog_us_since(w, r->tsc);
	if (px->stat_slot != 0 && w->tcp.route_ctr != NULL) {
		struct sy_route_ctr *ctr = &w->tcp.route_ctr[px->stat_slot];

		sy_traffic_count(&ctr->tr, r->status, r->bytes_in, r->bytes_out, timed,
				 px->backend_us);
		if (timed) {
			ctr->router_us_sum += px->router_us;
			ctr->router_le[sy_route_lat_bucket(px->router_us)]++;
		}
	}
	/* The endpoint it went to (the last one tried). */
	if (px->be_stat_slot != 0 && w->tcp.backend_ctr != NULL)
		sy_traffic_count(&w->tcp.backend_ctr[px->be_stat_slot].tr, r->status, r->bytes_in,
				 r->bytes_out, timed, px->backend_us);
	if (sy_alog_on(w))
		sy_alog_put(w, r);
	r->tsc = 0;
}

/* The router's own answer, queued to the client; `close` ends the
 * connection after it. custom_body: a static rule's body, sent as it is
 * even when empty (resolve reports it so); NULL: our page for the status. */
static void
px_answer(struct sy_worker *w, struct sy_proxy *px, uint16_t status, enum sy_answer_reason why,
	  const char *location, const char *custom_body, bool close)
{
	char buf[1400], body[512];
	const char *type = "text/html", *extra = px->resp_extra;
	int n, extra_len = px->resp_extra_len;

	if (px->strm != NULL)
		px->strm->own_answer = true; /* a gRPC stream gets it as a gRPC status */
	if (location != NULL && location[0]) {
		body[0] = '\0';
	} else if (custom_body != NULL) {
		snprintf(body, sizeof(body), "%s", custom_body);
		type = "text/plain";
	} else {
		snprintf(body, sizeof(body), "<html><body><h1>%u %s</h1></body></html>\n", status,
			 px_reason_phrase(status));
	}
	/* The matched rule's response filters and a 429's Retry-After
	 * (resp_extra) go on the router's own answers too; say_close's line
	 * does not: this answer has its own. */
	if (extra_len > 0 && strncmp(extra, "Connection:", 11) == 0) {
		const char *nl = memchr(extra, '\n', (size_t)extra_len);

		if (nl != NULL) {
			extra_len -= (int)(nl + 1 - extra);
			extra = nl + 1;
		}
	}
	n = snprintf(buf, sizeof(buf),
		     "HTTP/1.1 %u %s\r\n%s%s%sContent-Type: %s\r\nContent-Length: %zu\r\n"
		     "Cache-Control: private, max-age=0, no-cache, no-store\r\n%.*s"
		     "Connection: %s\r\n\r\n%s",
		     status, px_reason_phrase(status), location && location[0] ? "Location: " : "",
		     location ? location : "", location && location[0] ? "\r\n" : "", type,
		     px->head_req ? (size_t)0 : strlen(body), extra_len, extra,
		     close ? "close" : "keep-alive", px->head_req ? "" : body);
	if (n < 0 || (size_t)n >= sizeof(buf))
		n = (int)strlen(buf);
	w->counters.answers[why]++;
	sy_mq_append_bytes(px_cout(px), buf, (uint32_t)n, w->sh->pool);
	if (px->log.tsc != 0) {
		px->log.status = status;
		px->log.why = (uint8_t)why;
		px->log.bytes_out += (uint64_t)n;
	}
	px->resp_state = SY_PX_RESP_OWN;
	px->resp_sent = true;
	if (close)
		px->close_after = true;
}

/* The backend leg after an exchange: kept for the next request (this
 * client's, or through the idle pool another's) when the backend said
 * keep-alive and it is clean, else dropped. The client's own wish to close
 * does not matter here: its Connection header was not passed on. */
static void
px_backend_settle(struct sy_worker *w, struct sy_proxy *px)
{
	sy_mq_free(&px->replay);
	if (px->bc == NULL) {
		px_h2b_free(w, px); /* a stream on an h2c carrier: done with */
		return;
	}
	if (px->backend_reusable && px->b.state == SY_TCPS_ESTABLISHED && px_bin(px)->bytes == 0) {
		px->backend_idle = true;
		px->leg_used = true;
	} else {
		px_backend_drop(w, px);
	}
}

/* The client's side of the exchange is over too: the next request, or
 * the close. */
static void
px_exchange_done(struct sy_worker *w, struct sy_proxy *px)
{
	px_request_end(w, px);
	px->req_state = SY_PX_REQ_HEAD;
	px_backend_settle(w, px);
	if (px->close_after) {
		px_client_close(px);
		px_backend_release(w, px);
		px->deadline = px_in_ms(w, SY_PROXY_TIMEOUT_CLIENT_MS);
		return;
	}
	px->deadline = px_in_ms(w, SY_PROXY_TIMEOUT_KEEP_ALIVE_MS);
}

/*
 * The response is out. A backend may answer before it has read the whole
 * request body (nginx discards an unwanted body after answering): the body
 * is still carried to its end (to the backend while it reads, else
 * dropped), so the next request is found where it starts.
 */
static void
px_response_done(struct sy_worker *w, struct sy_proxy *px, bool backend_reusable)
{
	px->resp_state = SY_PX_RESP_NONE;
	px->resp_sent = false;
	px->backend_reusable = backend_reusable;
	if (px->req_state == SY_PX_REQ_BODY)
		return; /* px_request_body finishes the exchange */
	px_exchange_done(w, px);
}

/* Our forwarded headers after the request's, by the rule's policy (the
 * OpenShift router's ROUTER_SET_FORWARDED_HEADERS, append by default; a
 * replace policy's removal of the client's is px_filter_request's). */
/* A bounded writer for the headers made per request: printf's format
 * parsing was 2 % of a keep-alive proxy worker's time (perf record). ok
 * turns false once anything did not fit. */
static void
put_str(struct hdr_out *o, const char *s)
{
	put_mem(o, s, strlen(s));
}

static void
put_uint(struct hdr_out *o, unsigned v)
{
	char b[10];
	unsigned i = sizeof(b);

	do
		b[--i] = (char)('0' + v % 10);
	while ((v /= 10) != 0);
	put_mem(o, b + i, sizeof(b) - i);
}

/* 16 lower-case hex digits, as "%016llx" (a sticky session's cookie: a
 * first request without one gets it on every response, so printf here was
 * 1 % of a keep-alive proxy worker's samples). */
static void
put_hex64(struct hdr_out *o, uint64_t v)
{
	static const char digit[] = "0123456789abcdef";
	char b[16];
	int i;

	for (i = 15; i >= 0; i--, v >>= 4)
		b[i] = digit[v & 15];
	put_mem(o, b, sizeof(b));
}

static void
put_ipv4(struct hdr_out *o, const uint8_t ip[4])
{
	put_uint(o, ip[0]);
	PUT_LIT(o, ".");
	put_uint(o, ip[1]);
	PUT_LIT(o, ".");
	put_uint(o, ip[2]);
	PUT_LIT(o, ".");
	put_uint(o, ip[3]);
}

/* The client's address as X-Forwarded-For carries it: dotted IPv4, or IPv6
 * in its canonical text (RFC 5952, inet_ntop's) without brackets. */
static void
put_client(struct hdr_out *o, const struct sy_proxy *px)
{
	char buf[INET6_ADDRSTRLEN];

	if (px->client.family == AF_INET) {
		put_ipv4(o, (const uint8_t *)&px->client.v4);
		return;
	}
	if (inet_ntop(AF_INET6, px->client.v6, buf, sizeof(buf)) == NULL)
		buf[0] = '\0';
	put_str(o, buf);
}

static uint32_t
forwarded_headers(const struct sy_proxy *px, const struct sy_px_req *req, uint8_t policy,
		  char *out, size_t room)
{
	const char *proto = px->tls ? "https" : "http";
	struct hdr_out o = { out, out + room, true };

	if (policy == SY_FWD_NEVER || (policy == SY_FWD_IF_NONE && req->has_forwarded))
		return 0;
	PUT_LIT(&o, "X-Forwarded-For: ");
	put_client(&o, px);
	PUT_LIT(&o, "\r\nX-Forwarded-Host: ");
	put_str(&o, req->h.host);
	PUT_LIT(&o, "\r\nX-Forwarded-Port: ");
	put_uint(&o, rte_be_to_cpu_16(px->cc->vip_port));
	PUT_LIT(&o, "\r\nX-Forwarded-Proto: ");
	put_str(&o, proto);
	PUT_LIT(&o, "\r\nForwarded: for=");
	/* RFC 7239 6: an IPv6 node is "[...]", quoted. */
	if (px->client.family == AF_INET6) {
		PUT_LIT(&o, "\"[");
		put_client(&o, px);
		PUT_LIT(&o, "]\"");
	} else {
		put_client(&o, px);
	}
	PUT_LIT(&o, ";host=");
	put_str(&o, req->h.host);
	PUT_LIT(&o, ";proto=");
	put_str(&o, proto);
	PUT_LIT(&o, "\r\n");
	/* As snprintf was used: nothing unless all of it fits, with room for a NUL. */
	return o.ok && o.p < o.end ? (uint32_t)(o.p - out) : 0;
}

/* With tls.client_certificates: the verified subject of the client's
 * certificate (tls_client_cert.h's form), and whether there was one, as
 * the OpenShift router's X-SSL-Client-* headers; whatever the forwarded
 * policy (the client's own are removed in any case, strip_header). */
static uint32_t
client_cert_headers(const struct sy_proxy *px, char *out, size_t room)
{
	struct hdr_out o = { out, out + room, true };
	char dn[SY_TLS_CLIENT_DN_MAX];
	size_t n;

	if (px->tls == NULL || !sy_dp_tls_client_certs_on())
		return 0;
	n = sy_tls_client_dn(px->tls, dn, sizeof(dn));
	if (n > 0) {
		PUT_LIT(&o, "X-SSL-Client-DN: ");
		put_mem(&o, dn, n);
		PUT_LIT(&o, "\r\nX-SSL-Client-Verify: SUCCESS\r\n");
	} else {
		PUT_LIT(&o, "X-SSL-Client-Verify: NONE\r\n");
	}
	return o.ok && o.p < o.end ? (uint32_t)(o.p - out) : 0;
}

/*
 * Removes the head's lines of header `name` (with its colon, as "Connection:")
 * in place; returns the new head length. A client's "Connection: close" is
 * about its own connection (hop-by-hop, RFC 9110 7.6.1): an HTTP/1.1 backend
 * leg without it stays open for the idle pool. The client-certificate headers
 * are ours to set: a client's would pass for a verified certificate.
 */
uint32_t
px_strip_header(uint8_t *head, uint32_t head_len, const char *name)
{
	uint8_t *end = head + head_len, *p = memchr(head, '\n', head_len);
	size_t n = strlen(name);

	if (p == NULL)
		return head_len;
	for (p++; p < end;) {
		uint8_t *nl = memchr(p, '\n', (size_t)(end - p));
		size_t len = nl ? (size_t)(nl - p + 1) : (size_t)(end - p);

		if (len > n && strncasecmp((const char *)p, name, n) == 0) {
			memmove(p, p + len, (size_t)(end - p - len));
			end -= len;
			continue;
		}
		p += len;
	}
	return (uint32_t)(end - head);
}

/* The request asks to upgrade to h2c (its Upgrade names h2c alone). */
static bool
upgrade_is_h2c(const uint8_t *head, uint32_t head_len)
{
	uint32_t len;
	const uint8_t *v = px_header_value(head, head_len, "Upgrade", &len);

	return v != NULL && len == 3 && strncasecmp((const char *)v, "h2c", 3) == 0;
}

/* The response's Connection header, set by the router in place of
 * whatever the backend's says, as a response filter's header would be
 * (the first of the replacing lines). */
static void
say_connection(struct sy_proxy *px, const char *line)
{
	const size_t n = strlen(line);

	if (px->resp_extra_len + n > sizeof(px->resp_extra))
		return; /* the router closes anyway (close), or the client does */
	memmove(px->resp_extra + n, px->resp_extra, px->resp_extra_len);
	memcpy(px->resp_extra, line, n);
	px->resp_extra_len = (uint16_t)(px->resp_extra_len + n);
	px->resp_n_set++;
}

/* The client asked to close: its response says so (RFC 9112 9.6). */
static void
say_close(struct sy_proxy *px)
{
	say_connection(px, "Connection: close\r\n");
}

/* Methods a client may send again on its own (RFC 9110 9.2.2): a request
 * a kept connection lost unanswered is sent again only if it is one. */
static bool
idempotent(const struct sy_px_req *req)
{
	static const char *const m[] = { "GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE" };
	unsigned i;

	for (i = 0; i < RTE_DIM(m); i++)
		if (strlen(m[i]) == req->h.method_len &&
		    memcmp(m[i], req->h.method, req->h.method_len) == 0)
			return true;
	return false;
}

/*
 * A loopback backend (Skipper's): the request, changed by the matched
 * rule's filters (setPath, modPath, setRequestHeader), is routed again from
 * the top, as if it had come so. The changed head replaces the one in
 * `head` (the client's bytes in the receive queue are dropped by the
 * caller's length, kept apart). false when the changed head does not fit
 * or does not parse.
 */
static bool
px_loopback(struct sy_worker *w, struct sy_px_req *req, uint8_t *head, const struct sy_addr *client,
	    const struct sy_tls_conn *tls, struct px_target *tg)
{
	uint8_t *out = RTE_PER_LCORE(px_out);
	uint32_t start = 0, len;

	while (start + 1 < req->h.head_len && head[start] == '\r' && head[start + 1] == '\n')
		start += 2;
	len = px_filter_request(tg->rule, req, head, start, out, SY_PROXY_HEAD_MAX - 2);
	if (len == 0)
		return false;
	memcpy(out + len, "\r\n", 2);
	len += 2;
	memcpy(head, out, len);
	if (sy_px_parse_request(head, len, SY_PROXY_HEAD_MAX, req) != SY_PX_MSG_DONE)
		return false;
	w->counters.proxy_loopbacks++;
	px_route(w, req, head, client, tls, tg);
	return true;
}

static bool
px_request_head(struct sy_worker *w, struct sy_proxy *px)
{
	uint8_t *head = RTE_PER_LCORE(px_head);
	struct sy_mq *in = px_cin(px);
	struct sy_px_req req;
	struct px_target tg;
	enum sy_px_msg_status st;
	uint32_t n, start = 0, fwd, send_len, consumed, loops;
	const struct sy_rule *chain[SY_PX_LOOPBACK_MAX + 1];
	const uint8_t *send;
	struct sy_addr client;

	if (in->bytes == 0 || px_client_closing(px))
		return false;
	n = RTE_MIN(in->bytes, (uint32_t)SY_PROXY_HEAD_MAX);
	sy_mq_copy(in, 0, n, head);
	st = sy_px_parse_request(head, n, SY_PROXY_HEAD_MAX, &req);
	px_filter_response_prepare(px, NULL, 0); /* nothing of the last request's */
	if (st == SY_PX_MSG_MORE) {
		if (n < SY_PROXY_HEAD_MAX && !px_client_fin(px))
			return false;
		st = n >= SY_PROXY_HEAD_MAX ? SY_PX_MSG_TOO_BIG : SY_PX_MSG_BAD;
	}
	px->head_req = false;
	if (st != SY_PX_MSG_DONE) {
		enum sy_answer_reason why = SY_ANSWER_BAD_REQUEST;

		switch (st) {
		case SY_PX_MSG_TOO_BIG: why = SY_ANSWER_HEAD_TOO_LARGE; break;
		case SY_PX_MSG_URI_TOO_LONG: why = SY_ANSWER_URI_TOO_LONG; break;
		case SY_PX_MSG_TOO_LARGE: why = SY_ANSWER_BODY_TOO_LARGE; break;
		case SY_PX_MSG_BAD_TE: why = SY_ANSWER_TRANSFER_CODING; break;
		case SY_PX_MSG_VERSION: why = SY_ANSWER_HTTP_VERSION; break;
		default: break;
		}

		sy_mq_drop(in, in->bytes);
		px->req_state = SY_PX_REQ_DONE;
		request_begin(w, px, NULL);
		px_answer(w, px, sy_px_msg_http_status(st), why, NULL, NULL, true);
		return true;
	}
	request_begin(w, px, &req.h);
	px_mirror_detach(w, px, false); /* none of the last request's is still fed */
	px->requests++;
	w->counters.proxy_requests++;
	px->head_req = req.is_head;
	/* Draining: this response is the connection's last. */
	px->close_after = !req.keep_alive ||
			  atomic_load_explicit(&w->sh->draining, memory_order_relaxed);
	px->req_framing = (uint8_t)req.framing;
	px->req_left = req.length;
	memset(&px->req_chunk, 0, sizeof(px->req_chunk));
	consumed = req.h.head_len;
	client = px->client;
	px_route(w, &req, head, &client, px->tls, &tg);
	chain[0] = tg.rule;
	for (loops = 0; tg.status == 0 && tg.loopback; loops++) {
		if (loops == SY_PX_LOOPBACK_MAX ||
		    !px_loopback(w, &req, head, &client, px->tls, &tg)) {
			memset(&tg, 0, sizeof(tg));
			tg.status = 500;
			tg.why = SY_ANSWER_LOOPBACK_LIMIT;
			loops = 0; /* the router's own 500: no route's filters */
			chain[0] = NULL;
			break;
		}
		chain[loops + 1] = tg.rule;
	}
	if (tg.proto == SY_BE_H2 && (req.upgrade || req.is_connect))
		tg.proto = SY_BE_TLS; /* a tunnel: HTTP/1.1 (no ALPN h2) */
	if (tg.status == 0 && tg.rule != NULL && tg.rule->more != NULL &&
	    ((px->requests == 1 && !sy_src_conn_admit(w, px->cc, tg.rule, &client)) ||
	     !sy_src_request_admit(w, tg.rule, &client))) {
		/* rate-limit-connections: the OpenShift router's `tcp-request
		 * content reject`, a connection closed without an answer. */
		w->counters.answers[SY_ANSWER_SOURCE_CONN_LIMITED]++;
		sy_mq_drop(in, in->bytes);
		px_request_end(w, px);
		px_backend_drop(w, px);
		px_client_abort(w, px);
		return true;
	}
	/* Every rule the request took answers for the response (Skipper). */
	px_filter_response_prepare(px, chain, loops + 1);
	/* The route's timeouts for this exchange, copied (the rule goes with
	 * its generation; the exchange may outlive it). */
	px->server_ms = tg.rule != NULL && tg.rule->more != NULL && tg.rule->more->server_timeout_ms
				? tg.rule->more->server_timeout_ms
				: SY_PROXY_TIMEOUT_SERVER_MS;
	px->tunnel_ms = tg.rule != NULL && tg.rule->more != NULL && tg.rule->more->tunnel_timeout_ms
				? tg.rule->more->tunnel_timeout_ms
				: SY_PROXY_TIMEOUT_TUNNEL_MS;
	px->idle_ms = tg.rule != NULL && tg.rule->more != NULL ? tg.rule->more->idle_timeout_ms : 0;
	px->per_try_ms = tg.rule != NULL && tg.rule->more != NULL ? tg.rule->more->per_try_timeout_ms : 0;
	px->try_deadline = 0;
	px->retries_left = 0;
	px->unprocessed_left = SY_PX_H2_UNPROCESSED_RETRIES;
	if (tg.rule != NULL && tg.rule->more != NULL && tg.rule->more->retry_count != 0) {
		px->retries_left = tg.rule->more->retry_count;
		px->retry_on = tg.rule->more->retry_on;
		memcpy(px->retry_codes, tg.rule->more->retry_codes, sizeof(px->retry_codes));
	}
	px->stat_slot = tg.rule != NULL ? tg.rule->stat_slot : 0;
	/* The connection's active flow is its latest request's route's. */
	sy_conn_stats_bind(w, px->cc, px->stat_slot);
	if (sy_alog_on(w)) {
		if (tg.rule != NULL && tg.rule->object != NULL)
			snprintf(px->log.route, sizeof(px->log.route), "%s %s",
				 tg.rule->kind ? tg.rule->kind : "", tg.rule->object);
		if (tg.status == 0) {
			px->log.backend_ip = sy_addr_key32(&tg.ip);
			px->log.backend_port = tg.port;
			if (tg.ip.family == AF_INET6) {
				px->log.v6 |= SY_ALOG_V6_BACKEND;
				memcpy(px->log.backend6, tg.ip.v6, 16);
			}
		}
	}
	if (tg.status == 0 && tg.set_cookie != NULL) {
		/* A new sticky session (the OpenShift template's `insert
		 * indirect nocache httponly`, secure over TLS). */
		char *at = px->resp_extra + px->resp_extra_len;
		struct hdr_out o = { at, px->resp_extra + sizeof(px->resp_extra), true };

		PUT_LIT(&o, "Set-Cookie: ");
		put_str(&o, tg.set_cookie);
		PUT_LIT(&o, "=");
		put_hex64(&o, tg.cookie_tok);
		PUT_LIT(&o, "; path=/; HttpOnly");
		if (px->tls)
			PUT_LIT(&o, "; Secure");
		PUT_LIT(&o, "\r\n");
		if (o.ok && o.p < o.end) /* as snprintf did: all of it, with room for a NUL */
			px->resp_extra_len = (uint16_t)(px->resp_extra_len + (o.p - at));
	}
	if (tg.status == 429 && tg.retry_after_s > 0) {
		size_t room = sizeof(px->resp_extra) - px->resp_extra_len;
		int k = snprintf(px->resp_extra + px->resp_extra_len, room, "Retry-After: %u\r\n",
				 tg.retry_after_s);

		if (k > 0 && (size_t)k < room)
			px->resp_extra_len = (uint16_t)(px->resp_extra_len + k);
	}
	if (tg.status == 0 && !(px->bc != NULL && px->backend_idle && sy_addr_eq(&px->be_ip, &tg.ip) &&
				px->be_port == tg.port && px->btls_ctx == tg.tls_ctx &&
				px->be_proto == tg.proto)) {
		int why;

		px_backend_release(w, px); /* another endpoint's: to the pool */
		if (tg.tls_ctx == NULL && tg.proto != SY_BE_H2C &&
		    px_idle_take(w, px, &tg.ip, tg.port, tg.proto)) {
			w->counters.proxy_backend_reused++;
			w->counters.proxy_backend_pooled++;
		} else if ((why = px_backend_open(w, px, &tg.ip, tg.port, tg.tls_ctx, tg.tls_name,
						  tg.proto)) != 0) {
			tg.status = 503;
			tg.why = (enum sy_answer_reason)why;
		}
	} else if (tg.status == 0) {
		w->counters.proxy_backend_reused++;
	}
	if (tg.status != 0) {
		sy_mq_drop(in, consumed);
		/* The body, if any, is read and dropped (REQ_BODY with no
		 * backend leg), so the next request can be found. */
		px->req_state = req.framing == SY_PX_BODY_NONE ? SY_PX_REQ_DONE : SY_PX_REQ_BODY;
		px_answer(w, px, tg.status, tg.why, tg.location, tg.rule_body ? tg.body : NULL,
			  px->close_after);
		px_client_consumed(w, px);
		return true;
	}
	px->backend_idle = false;
	if (sy_dp_tls_client_certs_on()) {
		/* Never trusted from a client (plain HTTP ones too): the
		 * backend reads these as the router's word. */
		req.h.head_len = px_strip_header(head, req.h.head_len, "X-SSL-Client-DN:");
		req.h.head_len = px_strip_header(head, req.h.head_len, "X-SSL-Client-Verify:");
	}
	if (req.upgrade && upgrade_is_h2c(head, req.h.head_len)) {
		/* An h2c Upgrade (RFC 7540 3.2; RFC 9113 dropped it) is
		 * declined: answered in HTTP/1.1, as RFC 9110 7.8 lets a
		 * server. A backend that speaks h2c must not see it and
		 * switch: the connection's later requests would bypass
		 * routing. HTTP/2 here is ALPN h2 or h2c with prior knowledge. */
		req.h.head_len = px_strip_header(head, req.h.head_len, "Upgrade:");
		req.h.head_len = px_strip_header(head, req.h.head_len, "HTTP2-Settings:");
		req.h.head_len = px_strip_header(head, req.h.head_len, "Connection:");
		req.upgrade = false;
		if (!req.keep_alive)
			say_close(px);
	} else if (req.h.version_minor == 1 && !req.keep_alive && !req.upgrade) {
		req.h.head_len = px_strip_header(head, req.h.head_len, "Connection:");
		say_close(px);
	} else if (px->close_after && req.h.version_minor == 1 && !req.upgrade) {
		say_close(px); /* draining: the client learns it with this response */
	}
	/* The head without leading empty lines and without its blank line,
	 * then our headers, then the blank line. */
	while (start + 1 < req.h.head_len && head[start] == '\r' && head[start + 1] == '\n')
		start += 2;
	if (tg.rule != NULL && px_filter_rewrites_request(tg.rule, &req)) {
		/* setPath, modPath, setRequestHeader: a new head, then ours. */
		uint8_t *out = RTE_PER_LCORE(px_out);
		uint32_t room = sizeof(RTE_PER_LCORE(px_out)) - 2, len;

		len = px_filter_request(tg.rule, &req, head, start, out, room);
		if (len == 0) {
			px_backend_drop(w, px);
			sy_mq_drop(in, in->bytes);
			px->req_state = SY_PX_REQ_DONE;
			px_answer(w, px, 431, SY_ANSWER_HEAD_TOO_LARGE, NULL, NULL, true);
			return true;
		}
		fwd = forwarded_headers(px, &req, tg.rule->fwd_policy, (char *)out + len, room - len);
		fwd += client_cert_headers(px, (char *)out + len + fwd, room - len - fwd);
		memcpy(out + len + fwd, "\r\n", 2);
		send = out;
		send_len = len + fwd + 2;
	} else {
		fwd = forwarded_headers(px, &req, tg.rule ? tg.rule->fwd_policy : SY_FWD_APPEND,
					(char *)head + req.h.head_len,
					sizeof(RTE_PER_LCORE(px_head)) - req.h.head_len);
		fwd += client_cert_headers(px, (char *)head + req.h.head_len + fwd,
					   sizeof(RTE_PER_LCORE(px_head)) - req.h.head_len - fwd);
		memmove(head + req.h.head_len - 2, head + req.h.head_len, fwd);
		memcpy(head + req.h.head_len - 2 + fwd, "\r\n", 2);
		send = head + start;
		send_len = req.h.head_len - start + fwd;
	}
	if (sy_mq_append_bytes(px_bout(px), send, send_len, w->sh->pool) < 0) {
		px_backend_drop(w, px);
		sy_mq_drop(in, in->bytes);
		px->req_state = SY_PX_REQ_DONE;
		px_answer(w, px, 503, SY_ANSWER_PROXY_BUSY, NULL, NULL, true);
		return true;
	}
	/* A copy for the rule's mirrors (not of a tunnel: its bytes after
	 * the head are no request). */
	if (tg.rule != NULL && tg.rule->more != NULL && tg.rule->more->n_mirrors > 0 &&
	    !req.upgrade && !req.is_connect)
		px_mirror_start(w, px, tg.rule, send, send_len, req.framing == SY_PX_BODY_NONE);
	/* Queued for the backend: the router's part of the request is done. */
	px->t_queued = sy_worker_clock_read(w);
	px->router_us = sy_alog_tsc_us(w, px->t_queued - w->now);
	/* A copy to send again (px_retry): of a request that can go again,
	 * to a kept leg the backend may be closing (idempotent only), or to
	 * a new one that may be refused (any method: a refused connect
	 * delivered nothing), or that its route's retry policy may send
	 * again on the backend's answer (any method, as Envoy's retry_on
	 * does), or on an h2c stream the backend may refuse unprocessed (any
	 * method, RFC 9113 8.7). The head now; the body as it follows it to
	 * the backend (px_request_body), while the whole stays within
	 * SY_PX_REPLAY_MAX (a content-length past it: no copy at all). Over
	 * TLS too: the new leg is opened like the old one (tls_again). */
	sy_mq_free(&px->replay);
	px->alt_ip = tg.alt_ip;
	px->alt_port = tg.alt_port;
	px->alt_stat_slot = tg.alt_slot;
	px->be_stat_slot = tg.be_slot;
	px->replay_idempotent = idempotent(&req);
	if ((px->replay_idempotent || px->retries_left > 0 ||
	     (!px->leg_used && px->alt_ip.family != 0) || px->bh2 != NULL)) {
		struct sy_mq *q = px_bout(px); /* the TCP leg's, or an h2 leg's pipe */
		struct rte_mbuf *copy;

		if (req.framing == SY_PX_BODY_LENGTH && req.length > SY_PX_REPLAY_MAX - send_len) {
			w->counters.proxy_replay_too_big++;
		} else if ((copy = sy_mq_clone_range(q, q->bytes - send_len, send_len, w->sh->pool)) !=
			   NULL) { /* else no retry: the failure is answered */
			sy_mq_append(&px->replay, copy);
			px->replay_segs = copy->nb_segs;
		}
	}
	sy_mq_drop(in, consumed);
	px_client_consumed(w, px);
	px->req_state = req.framing == SY_PX_BODY_NONE ? SY_PX_REQ_DONE : SY_PX_REQ_BODY;
	px->resp_state = SY_PX_RESP_HEAD;
	px->deadline = px_in_ms(w, px_backend_state(px) == SY_TCPS_SYN_SENT ? SY_PROXY_TIMEOUT_CONNECT_MS :
									       px_silence_ms(px));
	if (px->req_state == SY_PX_REQ_DONE)
		px_try_arm(w, px);
	return true;
}

/*
 * How many of the queue's first `avail` bytes belong to the body being
 * carried (framing, left, chunk state); *done when its end is among them.
 * -1 on a chunked framing error.
 */
static int64_t
body_bytes(const struct sy_mq *q, uint32_t avail, uint8_t framing, uint64_t *left,
	   struct sy_px_chunked *ch, bool *done)
{
	struct sy_frag f[32];
	uint32_t total = 0;
	unsigned n, i;

	*done = false;
	switch (framing) {
	case SY_PX_BODY_LENGTH: {
		uint32_t take = (uint32_t)RTE_MIN((uint64_t)avail, *left);

		*left -= take;
		*done = *left == 0;
		return take;
	}
	case SY_PX_BODY_CHUNKED:
		n = sy_mq_frags(q, 0, avail, f, RTE_DIM(f));
		for (i = 0; i < n; i++) {
			uint32_t used = 0;
			enum sy_px_msg_status st = sy_px_chunked_feed(ch, f[i].data, f[i].len, &used);

			total += used;
			if (st == SY_PX_MSG_BAD)
				return -1;
			if (st == SY_PX_MSG_DONE) {
				*done = true;
				break;
			}
		}
		return total;
	case SY_PX_BODY_CLOSE:
	case SY_PX_BODY_TUNNEL:
		return avail;
	default:
		*done = true;
		return 0;
	}
}

/* The request's copy to send again (px->replay) goes: it outgrew its
 * bounds, a failure of the request is answered. */
static void
replay_too_big(struct sy_worker *w, struct sy_proxy *px)
{
	sy_mq_free(&px->replay);
	w->counters.proxy_replay_too_big++;
}

/* The first n bytes of `in`, body bytes on their way to the backend: a
 * copy of them for the request's copy to send again, if one is kept and
 * it stays within SY_PX_REPLAY_MAX bytes and SY_PX_REPLAY_SEGS_MAX mbufs
 * with them (else the copy goes); NULL when none. The caller appends it
 * once the bytes have moved, so the copy is always what the backend was
 * sent: the body as the exchange forwards it, chunked framing and all. */
static struct rte_mbuf *
replay_body(struct sy_worker *w, struct sy_proxy *px, struct sy_mq *in, uint32_t n)
{
	struct rte_mbuf *copy;

	if (px->replay.bytes == 0 || n == 0)
		return NULL;
	if (n > SY_PX_REPLAY_MAX - px->replay.bytes) {
		replay_too_big(w, px);
		return NULL;
	}
	copy = sy_mq_clone_range(in, 0, n, w->sh->pool);
	if (copy == NULL) {
		sy_mq_free(&px->replay); /* no mbufs: no retry, the failure is answered */
		return NULL;
	}
	if (px->replay_segs + copy->nb_segs > SY_PX_REPLAY_SEGS_MAX) {
		rte_pktmbuf_free(copy);
		replay_too_big(w, px);
		return NULL;
	}
	return copy;
}

static bool
px_request_body(struct sy_worker *w, struct sy_proxy *px)
{
	struct sy_mq *in = px_cin(px), *out;
	uint32_t avail = in->bytes;
	struct sy_px_chunked chunk = px->req_chunk;
	uint64_t left = px->req_left;
	struct rte_mbuf *copy;
	bool done, to_backend;
	int64_t take;

	to_backend = px_has_backend(px) && px->resp_state != SY_PX_RESP_OWN &&
		     (px_backend_state(px) == SY_TCPS_ESTABLISHED ||
		      px_backend_state(px) == SY_TCPS_SYN_SENT);
	if (!to_backend && px->replay.bytes > 0 && px_has_backend(px) &&
	    px->resp_state == SY_PX_RESP_HEAD)
		/* The leg failed and a copy is kept: px_response_head sends
		 * it again (or answers) before another byte of the body
		 * moves, so none is dropped that the copy lacks. */
		return false;
	if (to_backend)
		avail = RTE_MIN(avail, px_backend_room(px));
	if (avail == 0)
		return false;
	/* The framing's state advances on copies, kept only once the bytes
	 * have moved: a move that fails for want of mbufs is tried again
	 * from the same place. */
	take = body_bytes(in, avail, px->req_framing, &left, &chunk, &done);
	if (take < 0) {
		/* A broken chunked body: nothing after it can be trusted. */
		px_mirror_detach(w, px, false);
		px_backend_drop(w, px);
		sy_mq_drop(in, in->bytes);
		px->req_state = SY_PX_REQ_DONE;
		if (!px->resp_sent)
			px_answer(w, px, 400, SY_ANSWER_BAD_REQUEST, NULL, NULL, true);
		else
			px->close_after = true;
		return true;
	}
	if (take == 0 && !done)
		return false;
	if (!to_backend) {
		px_mirror_body(w, px, in, 0, (uint32_t)take);
		sy_mq_drop(in, (uint32_t)take); /* a body nobody will read */
	} else {
		out = px_bout(px);
		copy = replay_body(w, px, in, (uint32_t)take);
		if (sy_mq_move(out, in, (uint32_t)take, w->sh->pool) < 0) {
			rte_pktmbuf_free(copy);
			return false;
		}
		if (copy != NULL) {
			sy_mq_append(&px->replay, copy);
			px->replay_segs = (uint16_t)(px->replay_segs + copy->nb_segs);
		}
		/* The mirrors' copies from where the bytes went: the move
		 * is what can fail. */
		px_mirror_body(w, px, out, out->bytes - (uint32_t)take, (uint32_t)take);
	}
	px->req_left = left;
	px->req_chunk = chunk;
	px->log.bytes_in += (uint64_t)take;
	px_client_consumed(w, px);
	if (done) {
		px->req_state = SY_PX_REQ_DONE;
		px_mirror_detach(w, px, true);
		if (px->resp_state == SY_PX_RESP_NONE)
			px_exchange_done(w, px); /* the response went first */
		else
			px_try_arm(w, px);
	}
	return true;
}

static void
px_backend_failed(struct sy_worker *w, struct sy_proxy *px, uint16_t status,
		  enum sy_answer_reason why)
{
	sy_lb_report(w, sy_addr_key32(&px->be_ip), px->be_port, 0);
	px_backend_drop(w, px);
	if (!px->resp_sent) {
		if (px->req_state == SY_PX_REQ_BODY)
			px->close_after = true;
		px_answer(w, px, status, why, NULL, NULL, px->close_after);
		return;
	}
	/* Part of the response went out: the client must see it cut. */
	px_client_abort(w, px);
}

/*
 * The TLS of the leg a request goes again like (px_replay): the client
 * context and the name the old leg was opened with. The name routing gave
 * (px_target's tls_name) is the generation's, which the exchange may
 * outlive, so it is read back from the old leg's SSL (sy_tls_conn_name) or
 * its h2 carrier; and the context is held (SSL_CTX_up_ref, an atomic
 * count, as SSL_new takes one) while the old leg goes, since its SSL may
 * hold the last reference once the generation that made the context is
 * gone.
 */
struct tls_again {
	SSL_CTX *ctx; /* NULL: in the clear */
	char name[SY_TLS_SNI_MAX + 1];
};

/* False when the leg speaks TLS whose context cannot be known: then the
 * request does not go again (never in the clear in its place). */
static bool
tls_again_keep(const struct sy_proxy *px, struct tls_again *ta)
{
	const void *ctx = NULL;
	const char *name = NULL;

	ta->ctx = NULL;
	ta->name[0] = '\0';
	if (px_h2b_tls(px, &ctx, &name)) {
		snprintf(ta->name, sizeof(ta->name), "%s", name);
	} else if (px->btls != NULL) {
		ctx = px->btls_ctx;
		sy_tls_conn_name(px->btls, ta->name, sizeof(ta->name));
	} else {
		return true;
	}
	if (ctx == NULL || SSL_CTX_up_ref((SSL_CTX *)(uintptr_t)ctx) != 1)
		return false;
	ta->ctx = (SSL_CTX *)(uintptr_t)ctx;
	return true;
}

static void
tls_again_done(struct tls_again *ta)
{
	SSL_CTX_free(ta->ctx); /* NULL: nothing */
	ta->ctx = NULL;
}

/* The request again, on a new connection to ip:port (the copy moves into
 * it, so a request goes again at most once, unless the route's retry
 * policy has tries left: then a copy of it stays). The copy is all that
 * was sent of the request: with its body still coming from the client,
 * the rest follows it on the new leg (px_request_body), and goes on into
 * the copy kept, if there is one. */
static bool
px_replay(struct sy_worker *w, struct sy_proxy *px, const struct sy_addr *ip, uint16_t port)
{
	struct sy_mq r = px->replay;
	uint16_t segs = px->replay_segs;
	struct tls_again ta;
	int why;

	if (!tls_again_keep(px, &ta))
		return false;
	sy_mq_init(&px->replay); /* px_backend_drop frees a replay */
	px_backend_drop(w, px);
	if ((px->retries_left > 0 ||
	     ((px->be_proto == SY_BE_H2C || px->be_proto == SY_BE_H2) && px->unprocessed_left > 0)) &&
	    r.bytes > 0) {
		/* The route's retry policy has tries left, or an h2 stream
		 * may be refused unprocessed again: a copy for the next
		 * (px_try_again, px_retry); without one it is answered. */
		struct rte_mbuf *copy = sy_mq_clone_range(&r, 0, r.bytes, w->sh->pool);

		if (copy != NULL) {
			sy_mq_append(&px->replay, copy);
			px->replay_segs = segs;
		}
	}
	why = px_backend_open(w, px, ip, port, ta.ctx, ta.name, px->be_proto);
	tls_again_done(&ta); /* the new leg's SSL holds its own reference */
	if (why != 0 || sy_mq_move(px_bout(px), &r, r.bytes, w->sh->pool) < 0) {
		sy_mq_free(&r);
		return false;
	}
	w->counters.proxy_backend_replays++;
	px->deadline = px_in_ms(w, SY_PROXY_TIMEOUT_CONNECT_MS);
	/* A new try; its clock starts once the whole request is on its way
	 * (px_request_body arms it when the body is). */
	if (px->req_state == SY_PX_REQ_DONE)
		px_try_arm(w, px);
	else
		px->try_deadline = 0;
	return true;
}

/*
 * The backend leg failed before a byte of the response: send the request
 * again, once, if that is safe (HAProxy's `retry-on conn-failure
 * empty-response` with `option redispatch`):
 *  - a kept leg the backend was closing as we sent: the same endpoint, on a
 *    new connection (idempotent requests only);
 *  - a new leg refused, or not connected in the connect timeout
 *    (`delivered` false): the pick's next endpoint, any method;
 *  - a new leg reset or closed after it took the request: the next endpoint,
 *    or the same one if the pool has no other, idempotent requests only.
 * The failed endpoint is reported to passive health either way.
 */
static bool
px_retry(struct sy_worker *w, struct sy_proxy *px, bool delivered)
{
	const bool alt = px->alt_ip.family != 0;
	struct sy_addr ip = alt ? px->alt_ip : px->be_ip;
	uint16_t port = alt ? px->alt_port : px->be_port;

	if (px->replay.bytes == 0 || px->resp_sent)
		return false;
	if (px->bh2 != NULL && px_h2b_unprocessed(px)) {
		/* The backend refused the stream before processing it
		 * (REFUSED_STREAM, a GOAWAY that left it out): the same
		 * endpoint again on another stream, whatever the method
		 * (RFC 9113 8.7); a few times, not against the budget of
		 * failures. */
		if (px->unprocessed_left == 0)
			return false;
		px->unprocessed_left--;
		ip = px->be_ip;
		port = px->be_port;
		return px_replay(w, px, &ip, port);
	}
	if (px->leg_used) {
		/* A kept leg (or a shared h2 connection) the backend closed
		 * or reset: only a request that may go twice, or that the
		 * route's retry policy sends again (the copy may have been
		 * kept for an unprocessed refusal alone). */
		if (!px->replay_idempotent && px->retries_left == 0)
			return false;
		ip = px->be_ip; /* the endpoint is fine: its connection was not */
		port = px->be_port;
	} else {
		if (delivered && !px->replay_idempotent)
			return false;
		if (!delivered && !alt)
			return false; /* the same refusal again: answer it */
		sy_lb_report(w, sy_addr_key32(&px->be_ip), px->be_port, 0);
		w->counters.backend_retries++;
		if (alt)
			px->be_stat_slot = px->alt_stat_slot; /* counted where it goes now */
	}
	px->alt_ip.family = 0;
	return px_replay(w, px, &ip, port);
}

/*
 * The route's retry policy (Contour's retryPolicy): the try in flight is
 * dropped with its connection and the request goes again, to the pick's
 * next endpoint, then back and forth between the two, up to the policy's
 * count. True when it went again.
 */
static bool
px_try_again(struct sy_worker *w, struct sy_proxy *px)
{
	struct sy_addr ip = px->alt_ip.family != 0 ? px->alt_ip : px->be_ip;
	uint16_t port = px->alt_ip.family != 0 ? px->alt_port : px->be_port;
	uint16_t slot = px->alt_ip.family != 0 ? px->alt_stat_slot : px->be_stat_slot;

	if (px->retries_left == 0 || px->replay.bytes == 0 || px->resp_sent)
		return false;
	px->retries_left--;
	/* the next try's alternative: the endpoint that had this one */
	px->alt_ip = px->be_ip;
	px->alt_port = px->be_port;
	px->alt_stat_slot = px->be_stat_slot;
	px->be_stat_slot = slot;
	if (!px_replay(w, px, &ip, port))
		return false;
	px->deadline = px_in_ms(w, SY_PROXY_TIMEOUT_CONNECT_MS);
	px_try_cap(px);
	return true;
}

/* A response whose status the retry policy names: the request again
 * (px_try_again). Passive health hears of the answer as of any (a 5xx is
 * a failure). True when it went again. */
static bool
px_retry_status(struct sy_worker *w, struct sy_proxy *px, uint16_t status)
{
	if (px->retries_left == 0 || px->replay.bytes == 0 || px->resp_sent ||
	    !sy_retry_status(px->retry_on, px->retry_codes, status))
		return false;
	sy_lb_report(w, sy_addr_key32(&px->be_ip), px->be_port, status < 500);
	w->counters.proxy_status_retries++;
	return px_try_again(w, px);
}

/*
 * A final response the backend closes its leg after, to a client that
 * keeps its connection: true when the client's can stay. Its body must end
 * by its own framing (a body read until the close ends the client's
 * connection too) and the request must be whole: a body still coming
 * would have to be read to its end and dropped to find the next request,
 * and with the backend gone the client is better told by the close. An
 * HTTP/1.x client's connection only: an h2 stream's exchange (parent set)
 * ends with its response whatever the backend says, and its connection
 * never sees the backend's Connection header (px_h2_body.c drops it).
 */
static bool
leg_closes_alone(const struct sy_proxy *px, const struct sy_px_resp *resp)
{
	return !resp->keep_alive && resp->status >= 200 && !px->close_after &&
	       px->parent == NULL && px->req_state == SY_PX_REQ_DONE &&
	       (resp->framing == SY_PX_BODY_LENGTH || resp->framing == SY_PX_BODY_CHUNKED ||
		resp->framing == SY_PX_BODY_NONE);
}

static bool
px_response_head(struct sy_worker *w, struct sy_proxy *px)
{
	uint8_t *head = RTE_PER_LCORE(px_head);
	struct sy_mq *in;
	struct sy_px_resp resp;
	enum sy_px_msg_status st;
	uint32_t n;
	bool client_stays = false;

	if (!px_has_backend(px))
		return false;
	in = px_bin(px);
	if (px->btls != NULL && px->btls->state == SY_TLS_FAILED) {
		/* The backend's certificate did not verify (or its TLS
		 * failed): never a byte of the request in the clear. */
		px_backend_failed(w, px, 502, SY_ANSWER_BACKEND_TLS_FAILED);
		return true;
	}
	if (in->bytes == 0) {
		if (px_backend_refused(px)) {
			if (px_retry(w, px, false))
				return true;
			px_backend_failed(w, px, 503, SY_ANSWER_BACKEND_UNREACHABLE);
			return true;
		}
		if (px_backend_state(px) == SY_TCPS_CLOSED || px_backend_fin(px)) {
			/* Closed or reset before a byte of the response: the
			 * request again if that is safe (px_retry); else 502.
			 * A SYN never acknowledged (its retries gave up)
			 * delivered nothing; nor did an h2 stream the backend
			 * refused. */
			if (px_retry(w, px, px_backend_delivered(px)))
				return true;
			px_backend_failed(w, px, 502, SY_ANSWER_BACKEND_BROKEN);
			return true;
		}
		return false;
	}
	n = RTE_MIN(in->bytes, (uint32_t)SY_PROXY_HEAD_MAX);
	sy_mq_copy(in, 0, n, head);
	st = sy_px_parse_response(head, n, SY_PROXY_HEAD_MAX, px->head_req, false, &resp);
	if (st == SY_PX_MSG_MORE && (px_backend_fin(px) || px_backend_state(px) == SY_TCPS_CLOSED))
		st = SY_PX_MSG_BAD;
	if (st == SY_PX_MSG_MORE)
		return false; /* a copy to send again stays until the status is known */
	if (st == SY_PX_MSG_DONE && px_retry_status(w, px, resp.status))
		return true;
	sy_mq_free(&px->replay); /* it answers */
	if (!px_has_backend(px)) {
		/* The retry policy dropped this try's leg, the answer in
		 * `in` with it, and could not open another (px_replay):
		 * answered as a leg that cannot be opened is. */
		if (px->req_state == SY_PX_REQ_BODY)
			px->close_after = true;
		px_answer(w, px, 503, SY_ANSWER_PROXY_BUSY, NULL, NULL, px->close_after);
		return true;
	}
	if (st != SY_PX_MSG_DONE) {
		px_backend_failed(w, px, 502, SY_ANSWER_BACKEND_BROKEN);
		return true;
	}
	/* Outlier detection counts 5xx answers as failures (Envoy's
	 * consecutive_5xx), everything else as a success. */
	if (resp.status >= 200)
		sy_lb_report(w, sy_addr_key32(&px->be_ip), px->be_port, resp.status < 500);
	if (leg_closes_alone(px, &resp)) {
		/* The backend closes its leg after this response (its
		 * keepalive_requests, its keep-alive timeout, an HTTP/1.0
		 * server): the leg goes (px_backend_settle), the client's
		 * connection stays, as HAProxy and Envoy keep theirs. Its
		 * response says keep-alive in place of the backend's close. */
		say_connection(px, "Connection: keep-alive\r\n");
		client_stays = true;
	}
	if ((px->resp_extra_len > 0 || px->resp_status != 0) && resp.status >= 200) {
		/* Response filters: this head is rewritten (a copy); the
		 * body still moves without one. */
		uint8_t *out = RTE_PER_LCORE(px_out);
		uint32_t len = px_filter_response(px, head, resp.head_len, resp.version_minor,
						  px_reason_phrase(px->resp_status), out,
						  sizeof(RTE_PER_LCORE(px_out)));

		if (len == 0) {
			px_backend_failed(w, px, 502, SY_ANSWER_BACKEND_BROKEN);
			return true;
		}
		if (sy_mq_append_bytes(px_cout(px), out, len, w->sh->pool) < 0)
			return false;
		sy_mq_drop(in, resp.head_len);
		px->log.bytes_out += len;
	} else if (sy_mq_move(px_cout(px), in, resp.head_len, w->sh->pool) < 0) {
		return false;
	} else {
		px->log.bytes_out += resp.head_len;
	}
	if (px->log.tsc != 0 && resp.status >= 200) {
		px->log.status = resp.status;
		px->log.resp_us = sy_alog_us_since(w, px->log.tsc);
		/* The backend's time from when the request was queued to it;
		 * the router's own, to queue it and now to pass this head on. */
		if (px->t_queued != 0 && w->now >= px->t_queued)
			px->backend_us = sy_alog_tsc_us(w, w->now - px->t_queued);
		px->router_us += sy_alog_tsc_us(w, rte_rdtsc() - w->now);
	}
	px->resp_sent = true;
	px_backend_consumed(w, px);
	if (resp.status >= 100 && resp.status < 200 && resp.status != 101)
		return true; /* 100 Continue and friends: the real head follows */
	if (!resp.keep_alive && !client_stays)
		px->close_after = true;
	px->backend_keep_alive = resp.keep_alive;
	px->resp_framing = (uint8_t)resp.framing;
	px->resp_left = resp.length;
	memset(&px->resp_chunk, 0, sizeof(px->resp_chunk));
	if (resp.framing == SY_PX_BODY_TUNNEL) {
		px->tunnel = true;
		if (px->bc != NULL)
			sy_tcb_keepalive(w, &px->b, SY_PROXY_KEEPALIVE_IDLE_MS);
		px->deadline = px_in_ms(w, px->tunnel_ms);
		return true;
	}
	if (resp.framing == SY_PX_BODY_NONE) {
		px_response_done(w, px, resp.keep_alive);
		return true;
	}
	px->resp_state = SY_PX_RESP_BODY;
	return true;
}

static bool
px_response_body(struct sy_worker *w, struct sy_proxy *px)
{
	struct sy_mq *in;
	uint32_t avail;
	bool done;
	int64_t take;
	struct sy_px_chunked chunk;
	uint64_t left;

	if (!px_has_backend(px))
		return false;
	in = px_bin(px);
	avail = RTE_MIN(in->bytes, px_client_room(px));
	if (px->resp_framing == SY_PX_BODY_CLOSE &&
	    (px_backend_state(px) == SY_TCPS_CLOSED || px_backend_fin(px)) && in->bytes == 0) {
		px->close_after = true;
		px_response_done(w, px, false);
		return true;
	}
	if (avail == 0) {
		if (px_backend_state(px) == SY_TCPS_CLOSED || (px_backend_fin(px) && in->bytes == 0)) {
			/* The backend went before the end of the body. */
			px_backend_failed(w, px, 502, SY_ANSWER_BACKEND_BROKEN);
			return true;
		}
		return false;
	}
	left = px->resp_left;
	chunk = px->resp_chunk;
	take = body_bytes(in, avail, px->resp_framing, &left, &chunk, &done);
	if (take < 0) {
		px_backend_failed(w, px, 502, SY_ANSWER_BACKEND_BROKEN);
		return true;
	}
	if (take > 0 && sy_mq_move(px_cout(px), in, (uint32_t)take, w->sh->pool) < 0)
		return false; /* the framing's state kept: tried again from here */
	px->resp_left = left;
	px->resp_chunk = chunk;
	px->log.bytes_out += (uint64_t)take;
	px_backend_consumed(w, px);
	if (done)
		px_response_done(w, px, px->backend_keep_alive);
	return take > 0 || done;
}

/* After a 101 or a CONNECT's 2xx: bytes both ways, FINs passed on. */
static bool
px_tunnel(struct sy_worker *w, struct sy_proxy *px)
{
	bool progress = false;
	uint32_t n;

	if (!px_has_backend(px))
		return false;
	n = RTE_MIN(px_cin(px)->bytes, px_backend_room(px));
	if (n > 0 && sy_mq_move(px_bout(px), px_cin(px), n, w->sh->pool) == 0) {
		px_client_consumed(w, px);
		progress = true;
	}
	n = RTE_MIN(px_bin(px)->bytes, px_client_room(px));
	if (n > 0 && sy_mq_move(px_cout(px), px_bin(px), n, w->sh->pool) == 0) {
		px_backend_consumed(w, px);
		progress = true;
	}
	if (px_client_fin(px) && px_cin(px)->bytes == 0 && !px_backend_closing(px))
		px_backend_close(px);
	if (px_backend_fin(px) && px_bin(px)->bytes == 0 && !px_client_closing(px))
		px_client_close(px);
	if (px_backend_state(px) == SY_TCPS_CLOSED && !px_client_closing(px)) {
		px_client_abort(w, px);
		progress = false;
	}
	if (progress)
		px->deadline = px_in_ms(w, px->tunnel_ms);
	return progress;
}

bool
px_advance(struct sy_worker *w, struct sy_proxy *px)
{
	bool progress = false;

	if (px->c.state == SY_TCPS_CLOSED) {
		px_backend_release(w, px);
		return false;
	}
	if (px->tunnel)
		return px_tunnel(w, px);
	if (px->req_state == SY_PX_REQ_HEAD && px->resp_state == SY_PX_RESP_NONE)
		progress |= px_request_head(w, px);
	if (px->req_state == SY_PX_REQ_BODY)
		progress |= px_request_body(w, px);
	if (px->resp_state == SY_PX_RESP_HEAD)
		progress |= px_response_head(w, px);
	else if (px->resp_state == SY_PX_RESP_BODY)
		progress |= px_response_body(w, px);
	if (px->resp_state == SY_PX_RESP_OWN && px->req_state != SY_PX_REQ_BODY) {
		px_response_done(w, px, true);
		progress = true;
	}
	/* The client closed its side with nothing more to ask. */
	if (px_client_fin(px) && px_cin(px)->bytes == 0 && px->req_state == SY_PX_REQ_HEAD &&
	    px->resp_state == SY_PX_RESP_NONE && !px_client_closing(px)) {
		px_client_close(px);
		px_backend_release(w, px);
		progress = true;
	}
	return progress;
}

void
px_deadline(struct sy_worker *w, struct sy_proxy *px)
{
	px->deadline = 0;
	if (px->tunnel || px_client_closing(px) ||
	    (px->tls != NULL && px->tls->state != SY_TLS_OPEN)) {
		/* Idle tunnel, a close that never finished, or a TLS
		 * handshake that did not finish in the http-request time. */
		if (px->tls != NULL && px->tls->state == SY_TLS_HANDSHAKE)
			w->counters.tls_handshake_timeouts++;
		px_backend_drop(w, px);
		px_client_abort(w, px);
		return;
	}
	switch (px->resp_state) {
	case SY_PX_RESP_HEAD:
		if (px->try_deadline != 0 && px->try_deadline <= w->now && !px->resp_sent) {
			/* perTryTimeout: no response head in time. The try
			 * is abandoned (a failure to passive health) and the
			 * request goes again while the count allows (Envoy
			 * retries a per-try timeout whatever retryOn says);
			 * else 504. */
			w->counters.proxy_per_try_timeouts++;
			px->try_deadline = 0;
			sy_lb_report(w, sy_addr_key32(&px->be_ip), px->be_port, 0);
			if (px_try_again(w, px))
				return;
			px_backend_failed(w, px, 504, SY_ANSWER_BACKEND_TIMEOUT);
			return;
		}
		/* Not connected in the connect timeout: the next endpoint. */
		if (px_has_backend(px) && px_backend_state(px) == SY_TCPS_SYN_SENT &&
		    px_retry(w, px, false)) {
			px->deadline = px_in_ms(w, SY_PROXY_TIMEOUT_CONNECT_MS);
			return;
		}
		/* fall through */
	case SY_PX_RESP_BODY:
		px_backend_failed(w, px, 504, SY_ANSWER_BACKEND_TIMEOUT);
		return;
	default:
		break;
	}
	if (px_cin(px)->bytes > 0 || px->requests == 0) {
		/* http-request: the head did not arrive in time. */
		sy_mq_drop(px_cin(px), px_cin(px)->bytes);
		px->req_state = SY_PX_REQ_DONE;
		px->head_req = false;
		px_answer(w, px, 408, SY_ANSWER_HEAD_TIMEOUT, NULL, NULL, true);
		return;
	}
	/* http-keep-alive: an idle connection between requests. The close
	 * gets a deadline too: a client that stopped answering (a zero window
	 * our FIN waits behind) is aborted then, not probed forever. */
	px_client_close(px);
	px_backend_release(w, px);
	px->deadline = px_in_ms(w, SY_PROXY_TIMEOUT_CLIENT_MS);
}
