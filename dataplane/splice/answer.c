/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ANSWER (docs/architecture.md 9.1): the one place the router is a TCP
 * endpoint in splice mode. It acknowledges what it held, sends a short
 * response and FIN in one segment, retransmits it until acknowledged or
 * SY_ANSWER_TRIES pass, answers the client's FIN, then frees the connection.
 * The response is rebuilt from the status on each send, so the record stores
 * nothing but the status.
 */
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "conn/conn.h"
#include "splice/splice.h"
#include "sy_route_stats.h"
#include "tcp/tcp_out.h"
#include "tcp/tcp_seg.h"
#include "tcp/tcp_seq.h"
#include "worker.h"

struct answer_text {
	uint16_t status;
	const char *reason;
	const char *body;
};

/* OpenShift's router answers an unknown host with 503 and a small page. */
static const struct answer_text answers[] = {
	{ 400, "Bad Request", "Your browser sent a request that this server could not understand." },
	{ 404, "Not Found", "The application is currently not serving requests at this endpoint." },
	{ 408, "Request Timeout", "Your browser didn't send a complete request in time." },
	{ 414, "URI Too Long", "The request target is too long." },
	{ 431, "Request Header Fields Too Large", "The request header is too large." },
	{ 503, "Service Unavailable",
	  "The application is currently not serving requests at this endpoint. "
	  "It may not have been started or is still starting." },
};

/* TLS alert record: fatal (2), unrecognized_name (112), RFC 6066 3. */
static const uint8_t tls_alert_unrecognized_name[] = { 0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 0x70 };

static const struct answer_text *
answer_text(uint16_t status)
{
	static const struct answer_text redirects[] = {
		{ 200, "OK", "" },
		{ 301, "Moved Permanently", "" },
		{ 302, "Found", "" },
		{ 307, "Temporary Redirect", "" },
		{ 308, "Permanent Redirect", "" },
		{ 403, "Forbidden", "" },
		{ 429, "Too Many Requests", "" },
		{ 500, "Internal Server Error", "" },
		{ 502, "Bad Gateway", "" },
	};
	size_t i;

	for (i = 0; i < RTE_DIM(answers); i++)
		if (answers[i].status == status)
			return &answers[i];
	for (i = 0; i < RTE_DIM(redirects); i++)
		if (redirects[i].status == status)
			return &redirects[i];
	return NULL;
}

/* The answer, rebuilt identically on every (re)transmission: one segment
 * (the buffer is smaller than any MSS we announce). */
static uint16_t
answer_payload(const struct sy_conn *c, char *buf, size_t len)
{
	const struct sy_peek_buf *p = c->peek;
	const struct answer_text *a = answer_text(p->answer_status);
	const char *reason = a ? a->reason : "Status";
	char body[400];
	const char *type = "text/html";
	int n;

	if (p->answer_empty)
		return 0;
	if (p->answer_status == 0) {
		memcpy(buf, tls_alert_unrecognized_name, sizeof(tls_alert_unrecognized_name));
		return sizeof(tls_alert_unrecognized_name);
	}
	if (p->answer_location[0] != '\0') {
		body[0] = '\0'; /* a redirect says it all in Location */
	} else if (p->answer_custom) {
		snprintf(body, sizeof(body), "%s", p->answer_body); /* a rule's static answer */
		type = "text/plain";
	} else {
		snprintf(body, sizeof(body), "<html><body><h1>%u %s</h1>\n%s\n</body></html>\n",
			 p->answer_status, reason, a ? a->body : "");
	}
	n = snprintf(buf, len,
		     "HTTP/1.1 %u %s\r\n"
		     "%s%s%s"
		     "Content-Type: %s\r\n"
		     "Content-Length: %zu\r\n"
		     "Cache-Control: private, max-age=0, no-cache, no-store\r\n"
		     "Connection: close\r\n"
		     "\r\n"
		     "%s",
		     p->answer_status, reason, p->answer_location[0] ? "Location: " : "",
		     p->answer_location, p->answer_location[0] ? "\r\n" : "", type, strlen(body), body);
	return (uint16_t)RTE_MIN((size_t)n, len - 1);
}

/* Our window towards the client, in its scale. */
static uint16_t
answer_window(const struct sy_conn *c)
{
	return c->peek->ws_c != SY_TCP_WS_NONE ? (uint16_t)(65535 >> 7) : 65535;
}

static void
answer_send(struct sy_worker *w, struct sy_conn *c, bool with_payload)
{
	char buf[1200];
	uint16_t len = with_payload ? answer_payload(c, buf, sizeof(buf)) : 0;
	struct sy_seg s;

	sy_seg_on_leg(&w->tcp, c, SY_LEG_CLIENT, &s);
	s.ack = c->peek->peek_next;
	s.win = answer_window(c);
	s.ts = c->peek->ts_ok;
	s.tsval = sy_tcp_ts_now(w);
	s.tsecr = c->peek->ts_recent;
	if (with_payload) {
		s.seq = c->peek->isn_r + 1;
		s.flags = RTE_TCP_ACK_FLAG | RTE_TCP_FIN_FLAG | (len ? RTE_TCP_PSH_FLAG : 0);
		s.payload = buf;
		s.len = len;
	} else {
		/* A bare ACK after our FIN. */
		s.seq = c->peek->isn_r + 1 + c->peek->answer_len + 1;
		s.flags = RTE_TCP_ACK_FLAG;
	}
	sy_tcp_send(w, &s);
}

void
sy_answer_start(struct sy_worker *w, struct sy_conn *c, uint16_t status, enum sy_answer_reason why)
{
	char buf[1200];

	/* A connection closed without a byte is not a request (HAProxy's
	 * dontlognull). */
	if (why != SY_ANSWER_CLIENT_CLOSED_EMPTY)
		sy_splice_log(w, c, false, status, why);
	if (c->peek->stat_slot != 0 && w->tcp.route_ctr != NULL) {
		/* A rule's own answer (a redirect, a static body): its route's. */
		struct sy_route_ctr *ctr = &w->tcp.route_ctr[c->peek->stat_slot];

		ctr->connections++;
		if (status >= 100 && status < 600)
			ctr->tr.responses[status / 100 - 1]++;
	}
	/* What we held is now consumed: acknowledged by the answer. The
	 * buffer itself stays: it has the sequence numbers we answer with. */
	sy_peek_release_segments(w, c->peek);
	c->state = SY_CONN_ANSWER;
	c->peek->answer_status = status;
	c->peek->answer_len = answer_payload(c, buf, sizeof(buf));
	c->peek->retx = 1;
	w->counters.conns_answered++;
	w->counters.answers[why]++;
	answer_send(w, c, true);
	sy_conn_timer_set(w, c, w->now + sy_ms_to_tsc(w, SY_ANSWER_RTO_MS));
}

void
sy_answer_close(struct sy_worker *w, struct sy_conn *c)
{
	/* A client that connects and closes without a byte (a port check,
	 * a load tool's last connections) gets its close acknowledged and
	 * ours, not a 400: there is no request to answer, as HAProxy and
	 * nginx see it too. */
	c->peek->answer_empty = 1;
	sy_answer_start(w, c, 0, SY_ANSWER_CLIENT_CLOSED_EMPTY);
}

void
sy_conn_reset_client(struct sy_worker *w, struct sy_conn *c, enum sy_answer_reason why)
{
	struct sy_seg s;

	sy_seg_on_leg(&w->tcp, c, SY_LEG_CLIENT, &s);
	s.seq = c->peek->isn_r + 1;
	s.ack = c->peek->peek_next;
	s.flags = RTE_TCP_RST_FLAG | RTE_TCP_ACK_FLAG;
	sy_tcp_send(w, &s);
	w->counters.conns_answered++;
	w->counters.answers[why]++;
	sy_conn_free(w, c);
}

void
sy_answer_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m)
{
	struct rte_tcp_hdr *th = sy_seg_tcp(m);
	uint8_t fl = th->tcp_flags;
	uint32_t seq = rte_be_to_cpu_32(th->sent_seq);
	uint32_t len = sy_seg_payload_len(m);
	uint32_t our_end = c->peek->isn_r + 1 + c->peek->answer_len + 1; /* after our FIN */

	if (fl & RTE_TCP_RST_FLAG) {
		rte_pktmbuf_free(m);
		sy_conn_free(w, c);
		return;
	}
	if (c->peek->ts_ok) {
		uint32_t tsval, tsecr;

		/* RFC 7323 4.3: echo the newest in-window TSval, or the
		 * client measures our ACK of its FIN against an old one. */
		if (sy_tcp_find_ts(th, &tsval, &tsecr) && SEQ_LEQ(seq, c->peek->peek_next) &&
		    SEQ_GEQ(tsval, c->peek->ts_recent))
			c->peek->ts_recent = tsval;
	}
	if ((fl & RTE_TCP_ACK_FLAG) && SEQ_GEQ(rte_be_to_cpu_32(th->recv_ack), our_end) &&
	    !(c->flags & SY_CF_ANSWER_FIN_ACKED)) {
		/* Delivered: stop retransmitting, give the client a moment to close. */
		c->flags |= SY_CF_ANSWER_FIN_ACKED;
		sy_conn_timer_set(w, c, w->now + sy_ms_to_tsc(w, SY_LINGER_MS));
	}
	/* Data or FIN past what we acknowledged: take it in (we are closing
	 * anyway) so the client's close completes. */
	if (SEQ_GEQ(seq + len + !!(fl & RTE_TCP_FIN_FLAG), c->peek->peek_next) &&
	    (len > 0 || (fl & RTE_TCP_FIN_FLAG)) && SEQ_LEQ(seq, c->peek->peek_next)) {
		c->peek->peek_next = seq + len + !!(fl & RTE_TCP_FIN_FLAG);
		if (fl & RTE_TCP_FIN_FLAG)
			c->flags |= SY_CF_FIN_CLIENT;
		answer_send(w, c, !(c->flags & SY_CF_ANSWER_FIN_ACKED));
	}
	rte_pktmbuf_free(m);
	if ((c->flags & SY_CF_ANSWER_FIN_ACKED) && (c->flags & SY_CF_FIN_CLIENT) &&
	    c->state == SY_CONN_ANSWER) {
		/* Both closed: linger briefly for a retransmitted FIN. */
		c->state = SY_CONN_LINGER;
		sy_conn_timer_set(w, c, w->now + sy_ms_to_tsc(w, SY_LINGER_MS));
	}
}

void
sy_answer_timeout(struct sy_worker *w, struct sy_conn *c)
{
	if (c->flags & SY_CF_ANSWER_FIN_ACKED) {
		/* Our side is done; the client did not close in time. */
		sy_conn_free(w, c);
		return;
	}
	if (c->peek->retx >= SY_ANSWER_TRIES) {
		sy_conn_free(w, c);
		return;
	}
	c->peek->retx++;
	answer_send(w, c, true);
	sy_conn_timer_set(w, c, w->now + sy_ms_to_tsc(w, (uint64_t)SY_ANSWER_RTO_MS << (c->peek->retx - 1)));
}
