/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The splice lifecycle (docs/architecture.md section 9): hold the client's
 * first bytes without acknowledging them, find Host / SNI, pick a backend,
 * open the backend leg with the client's options but our own ISN and TSval
 * (tcp_isn.h), send the held bytes, then translate every packet both ways
 * until both sides have closed.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "conn/conn.h"
#include "conn/src_limit.h"
#include "conn/conn_ops.h"
#include "lb/lb.h"
#include "observe/access_rec.h"
#include "net/cksum.h"
#include "net/fib.h"
#include "net/net.h"
#include "observe/conn_stats.h"
#include "peek/peek.h"
#include "proxy/proxy.h"
#include "proxy/px_h2.h"
#include "splice/splice.h"
#include "sy_generation.h"
#include "sy_route_stats.h"
#include "tcp/tcp_isn.h"
#include "tcp/tcp_out.h"
#include "tcp/tcp_seg.h"
#include "tcp/tcp_seq.h"
#include "worker.h"

/* Our window scale towards clients that offer scaling. 7 (x128) lets a
 * 16-bit field say 8 MB, plenty for a spliced flow. */
#define SY_WS_ROUTER 7

static inline struct rte_tcp_hdr *
tcp_hdr(struct rte_mbuf *m)
{
	return sy_seg_tcp(m);
}

static inline uint32_t
tcp_payload_len(struct rte_mbuf *m)
{
	return sy_seg_payload_len(m);
}

/* Sequence space a segment occupies: payload, plus one for SYN and FIN. */
static inline uint32_t
tcp_seg_len(struct rte_mbuf *m)
{
	struct rte_tcp_hdr *th = tcp_hdr(m);

	return tcp_payload_len(m) + !!(th->tcp_flags & RTE_TCP_SYN_FLAG) +
	       !!(th->tcp_flags & RTE_TCP_FIN_FLAG);
}

static void
conn_key_client(const struct sy_conn *c, struct sy_flow_key *k)
{
	sy_flow_key_v4(k, c->client_ip, c->vip, c->client_port, c->vip_port);
}

static inline void
timer_in(struct sy_worker *w, struct sy_conn *c, uint64_t ms)
{
	sy_conn_timer_set(w, c, w->now + sy_ms_to_tsc(w, ms));
}

static void
enter_linger(struct sy_worker *w, struct sy_conn *c)
{
	c->state = SY_CONN_LINGER;
	/* Both sides closed: no longer an open connection to the backend for
	 * least-connections (the record only waits for stray segments). */
	sy_lb_load_clear(w, c);
	/* Nor bound to its route any more; its bytes are counted. */
	sy_conn_stats_end(w, c);
	timer_in(w, c, SY_LINGER_MS);
}

/* ---------------------------------------------------------------- open -- */

/* Where segments to the client go: its port and next hop, from the FIB
 * once (it does not change while routerd runs). With no route back (the
 * cookie ACK came, so there was one) the record is kept and output counts
 * the drop. A link-local IPv6 client is on the port it came in on. */
static void
client_route(struct sy_worker *w, struct sy_conn *c, const struct rte_mbuf *m)
{
	struct sy_fib_result fr;
	struct sy_addr dst;

	if (sy_conn_client_v6(c)) {
		struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);

		dst.family = AF_INET6;
		memcpy(dst.v6, a->client, 16);
		sy_conn_v6_set_nh(c, a, SY_LEG_CLIENT, a->client, 0);
		c->client_if = (uint8_t)m->hash.usr;
		if (sy_fib_lookup(w->sh->fib, &dst, &fr) == 0) {
			c->client_if = (uint8_t)fr.port;
			sy_conn_v6_set_nh(c, a, SY_LEG_CLIENT, fr.nexthop.v6, fr.nh_id + 1);
		}
		return;
	}
	dst = sy_addr_v4(c->client_ip);
	if (sy_fib_lookup(w->sh->fib, &dst, &fr) == 0) {
		c->client_if = (uint8_t)fr.port;
		c->client_nh = fr.nexthop.v4;
	}
}

void
sy_splice_open(struct sy_worker *w, struct rte_mbuf *m, const struct sy_tcp_syn_opts *syn)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	struct rte_tcp_hdr *th = tcp_hdr(m);
	struct sy_flow_key k;
	struct sy_conn *c;
	uint32_t tsval, tsecr, rtt;
	int rc;

	c = sy_conn_alloc(w);
	if (c == NULL) {
		/* Every one of flows_per_worker records is in use: refuse this
		 * one, counted, and leave the open ones alone. Nothing is kept,
		 * so the client's retransmission (or next data segment) carries
		 * the same cookie proof and opens once a record is free. */
		sy_drop(w, m, SY_DROP_FLOW_TABLE_FULL);
		return;
	}
	c->peek = sy_peek_alloc(w);
	c->client_port = th->src_port;
	c->vip_port = th->dst_port;
	if (sy_seg_is_v6(m)) {
		const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
		struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);

		c->flags |= SY_CF_V6;
		c->v6 |= SY_V6_CLIENT;
		memcpy(a->client, ip6->src_addr, 16);
		memcpy(a->vip, ip6->dst_addr, 16);
		c->client_ip = sy_addr6_fold(a->client);
		c->vip = sy_addr6_fold(a->vip);
		rc = c->peek != NULL ? sy_flow_add6(w, c, ip6->src_addr, ip6->dst_addr) : 0;
	} else {
		c->client_ip = ip->src_addr;
		c->vip = ip->dst_addr;
		conn_key_client(c, &k);
		rc = c->peek != NULL ? sy_flow_add(w, &k, c) : 0;
	}
	if (c->peek == NULL || rc < 0) {
		/* No PEEK buffer (SY_PEEK_BUFS handshakes at once), or the hash
		 * refused the key (it holds one per record: not expected). */
		enum sy_drop_reason why = c->peek == NULL ? SY_DROP_CONN_POOL_EMPTY : SY_DROP_FLOW_TABLE_FULL;

		/* Not in the table: nothing to delete. */
		c->client_ip = 0;
		c->flags &= (uint8_t)~SY_CF_V6;
		c->v6 = 0;
		sy_conn_free(w, c);
		sy_drop(w, m, why);
		return;
	}
	client_route(w, c, m);
	c->state = SY_CONN_PEEK;
	c->proto = th->dst_port == w->sh->https_port ? SY_CONN_TLS : SY_CONN_HTTP;
	if (w->sh->pp_on) {
		/* A front balancer's connection starts with a PROXY protocol
		 * header (all of them, or those from listen.proxy_protocol.from). */
		struct sy_addr src = sy_conn_client_addr(&w->tcp, c);

		if (w->sh->pp_from.n4 + w->sh->pp_from.n6 == 0 || sy_source_allowed(&w->sh->pp_from, &src))
			c->peek->pp_state = SY_PP_WANTED;
	}
	c->peek->isn_c = rte_be_to_cpu_32(th->sent_seq) - 1;
	c->peek->isn_r = rte_be_to_cpu_32(th->recv_ack) - 1;
	c->peek->peek_next = c->peek->isn_c + 1;
	c->peek->mss = syn->mss;
	/* What an IPv6 client may receive, as an IPv4 backend will send it:
	 * with 20 bytes more of header, so no more than its port's MTU takes
	 * (docs/architecture.md 9.3, MSS). */
	if (sy_conn_client_v6(c))
		c->peek->mss = (uint16_t)RTE_MIN(c->peek->mss, w->sh->ports[c->client_if].mtu - 60);
	c->peek->ws_c = syn->wscale;
	c->peek->sack_ok = syn->sack_ok;
	c->peek->ts_ok = syn->ts_ok;
	if (c->peek->ts_ok && sy_tcp_find_ts(th, &tsval, &tsecr)) {
		c->peek->ts_recent = tsval;
		c->peek->ts_first = tsval;
		c->peek->tsval_r0 = tsecr; /* the client echoes our SYN-ACK's TSval */
		/* That TSval is our plain ms clock (tcp_in.c): the handshake's
		 * RTT, the first sample of a proxied leg (RFC 6298 2.2), taken
		 * now because the request that makes it one may come later. An
		 * echo from the future or from long ago is no sample. */
		rtt = sy_tcp_ts_now(w) - tsecr;
		if (rtt < SY_TCB_HS_RTT_MAX_MS)
			c->peek->hs_rtt_ms = RTE_MAX(rtt, 1u); /* a sample under 1 ms is 1 ms */
	}
	c->peek->client_win = rte_be_to_cpu_16(th->rx_win);
	c->last_seen = sy_conn_seen(w->now);
	timer_in(w, c, SY_PEEK_TIMEOUT_MS);
	sy_splice_segment(w, c, m, true);
}

/* A spliced connection's idle timeout: its route's timeout-tunnel (an
 * OpenShift annotation: passthrough and other spliced routes), or
 * SY_IDLE_TIMEOUT_MS. */
static uint64_t
splice_idle_ms(struct sy_worker *w, const struct sy_conn *c)
{
	const struct sy_conn_stat *cs = sy_conn_stat(w, c);

	return cs != NULL && cs->idle_ms != 0 ? cs->idle_ms : SY_IDLE_TIMEOUT_MS;
}

/* ---------------------------------------------------------------- peek -- */

/*
 * Cut `n` bytes off the front of a held segment's payload (a retransmission
 * that overlaps what we hold): move the headers forward, fix seq and length,
 * recompute the checksums. Rare, so full recomputation is fine.
 */
static void
trim_front(struct rte_mbuf *m, uint32_t n)
{
	uint16_t hl = (uint16_t)sy_seg_hdr_len(m);
	uint8_t *l3 = rte_pktmbuf_mtod(m, uint8_t *);
	struct rte_tcp_hdr *th;

	memmove(l3 + n, l3, hl);
	rte_pktmbuf_adj(m, (uint16_t)n);
	if (n & 7) {
		/* Back to the alignment the frame had (n bytes of headroom
		 * were just made): the headers' structs want it. */
		uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

		memmove(d - (n & 7), d, m->data_len);
		m->data_off = (uint16_t)(m->data_off - (n & 7));
	}
	th = tcp_hdr(m);
	if (sy_seg_is_v6(m)) {
		struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);

		ip6->payload_len = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(ip6->payload_len) - n));
	} else {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);

		ip->total_length = rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(ip->total_length) - n));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	th->sent_seq = rte_cpu_to_be_32(rte_be_to_cpu_32(th->sent_seq) + n);
	sy_tcp_cksum_set(m);
}

/* Append an in-order segment to the held list; pull in held out-of-order
 * ones the gap was waiting for. Returns false if it did not fit. */
static bool
peek_append(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m)
{
	struct sy_peek_buf *p = c->peek;
	uint32_t len = tcp_payload_len(m);
	bool progress = true;
	unsigned i;

	if (p->n_seg == SY_PEEK_MAX_SEGS || p->bytes + len > SY_PEEK_MAX_BYTES)
		return false;
	p->seg[p->n_seg++] = m;
	p->bytes += len;
	c->peek->peek_next += tcp_seg_len(m);
	while (progress) {
		progress = false;
		for (i = 0; i < p->n_ooo; i++) {
			struct rte_mbuf *o = p->ooo[i];
			uint32_t seq = rte_be_to_cpu_32(tcp_hdr(o)->sent_seq);
			uint32_t end = seq + tcp_seg_len(o);

			if (SEQ_GT(seq, c->peek->peek_next))
				continue;
			p->ooo[i] = p->ooo[--p->n_ooo];
			if (SEQ_LEQ(end, c->peek->peek_next)) {
				sy_drop(w, o, SY_DROP_PEEK_DUPLICATE);
			} else {
				if (SEQ_LT(seq, c->peek->peek_next))
					trim_front(o, c->peek->peek_next - seq);
				if (p->n_seg == SY_PEEK_MAX_SEGS ||
				    p->bytes + tcp_payload_len(o) > SY_PEEK_MAX_BYTES) {
					sy_drop(w, o, SY_DROP_PEEK_OVERFLOW);
				} else {
					p->seg[p->n_seg++] = o;
					p->bytes += tcp_payload_len(o);
					c->peek->peek_next += tcp_seg_len(o);
				}
			}
			progress = true;
			break;
		}
	}
	return true;
}

/* Hold a client segment (PEEK or CONNECTING). Returns true if m was kept. */
static bool
peek_hold(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m)
{
	struct sy_peek_buf *p = c->peek;
	uint32_t seq = rte_be_to_cpu_32(tcp_hdr(m)->sent_seq);
	uint32_t end = seq + tcp_seg_len(m);

	if (SEQ_LEQ(end, c->peek->peek_next)) {
		/* A retransmission of what we hold: the client's RTO fired
		 * during a slow bind. */
		sy_drop(w, m, SY_DROP_PEEK_DUPLICATE);
		return false;
	}
	if (SEQ_LT(seq, c->peek->peek_next))
		trim_front(m, c->peek->peek_next - seq);
	else if (SEQ_GT(seq, c->peek->peek_next)) {
		if (seq - c->peek->peek_next >= SY_PEEK_MAX_BYTES || p->n_ooo == SY_PEEK_MAX_OOO) {
			sy_drop(w, m, SY_DROP_PEEK_OUT_OF_WINDOW);
			return false;
		}
		p->ooo[p->n_ooo++] = m;
		return true;
	}
	if (!peek_append(w, c, m)) {
		/* Beyond the bound: the client retransmits it after binding. */
		sy_drop(w, m, SY_DROP_PEEK_OVERFLOW);
		return false;
	}
	return true;
}

/* The held payload as fragments for the peekers (past a PROXY protocol
 * header once it is read). */
static unsigned
peek_frags(const struct sy_peek_buf *p, struct sy_frag *f, unsigned max, bool *fin)
{
	unsigned i, n = 0;

	uint32_t skip = p->pp_state == SY_PP_READ ? p->pp_skip : 0;

	*fin = false;
	for (i = 0; i < p->n_seg && n < max; i++) {
		struct rte_mbuf *m = p->seg[i];
		struct rte_tcp_hdr *th = tcp_hdr(m);
		uint32_t off = sy_seg_hdr_len(m);
		uint32_t len = tcp_payload_len(m);

		if (th->tcp_flags & RTE_TCP_FIN_FLAG)
			*fin = true;
		/* A PROXY protocol header read already is not the stream's. */
		if (skip > 0) {
			uint32_t k = RTE_MIN(skip, len);

			off += k;
			len -= k;
			skip -= k;
		}
		/* Walk a chained mbuf segment by segment. */
		for (; m != NULL && len > 0 && n < max; m = m->next) {
			uint32_t take;

			if (off >= m->data_len) {
				off -= m->data_len;
				continue;
			}
			take = RTE_MIN(len, (uint32_t)m->data_len - off);
			f[n].data = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
			f[n].len = take;
			n++;
			len -= take;
			off = 0;
		}
	}
	return n;
}

static void bind_backend(struct sy_worker *w, struct sy_conn *c);

/* A vhost the compiler marked for the proxy mode (its rules need each
 * request on its own), served over plain HTTP. */
static bool
wants_proxy(const struct sy_worker *w, const struct sy_http_head *h)
{
	const struct sy_vhost *vh = w->gen ? sy_gen_find_vhost(w->gen, h->host, h->host_len) : NULL;

	return vh != NULL && vh->mode == SY_MODE_PROXY &&
	       (vh->tls == SY_TLS_NONE || vh->insecure == SY_INSECURE_ALLOW);
}

/*
 * A ClientHello is spliced only to a passthrough vhost (its SNI names one);
 * everything else is terminated here (tls/tls.h): edge and re-encrypt
 * vhosts with their certificates, and a name we do not know or no SNI at
 * all with the default certificate, then routed by Host (OpenShift's
 * fe_no_sni and default certificate do the same).
 */
static bool
wants_termination(const struct sy_worker *w, const struct sy_tls_hello *hello)
{
	const struct sy_vhost *vh = w->gen && hello->has_sni
					    ? sy_gen_find_vhost(w->gen, hello->sni, hello->sni_len)
					    : NULL;

	return vh == NULL || vh->tls != SY_TLS_PASSTHROUGH;
}

/*
 * The PROXY protocol header a front balancer sent first (listen.
 * proxy_protocol): the client it names becomes the connection's for
 * allowlists, limits, logs and X-Forwarded-For (conn/flow_table.h,
 * sy_conn_client_addr), and its bytes are skipped from here on. A
 * connection that should carry one and does not is reset, as HAProxy's
 * accept-proxy closes it: a client must not pass for the balancer.
 */
static enum sy_peek_status
pp_read(struct sy_worker *w, struct sy_conn *c, const struct sy_frag *f, unsigned n, bool fin)
{
	struct sy_pp_info pp;
	enum sy_peek_status st = sy_proxy_proto_peek(f, n, &pp);

	if (st == SY_PEEK_MORE && !fin && c->peek->bytes < SY_PP_MAX_LEN)
		return SY_PEEK_MORE;
	if (st != SY_PEEK_DONE) {
		sy_conn_reset_client(w, c, SY_ANSWER_PROXY_PROTOCOL_BAD);
		return SY_PEEK_BAD;
	}
	c->peek->pp_state = SY_PP_READ;
	c->peek->pp_skip = (uint16_t)pp.len;
	w->counters.proxy_protocol_headers++;
	if (pp.has_addr) {
		struct sy_pp_src *s = &w->tcp.pp_src[sy_conn_index(&w->tcp.conns, c)];
		uint32_t v4;

		memcpy(&v4, pp.src, 4);
		s->addr = pp.family == AF_INET6 ? sy_addr_v6(pp.src) : sy_addr_v4(v4);
		s->port = rte_cpu_to_be_16(pp.sport);
		s->set = true;
	}
	return SY_PEEK_DONE;
}

/* Look at what is held: bind, answer, or keep waiting. */
static void
peek_try(struct sy_worker *w, struct sy_conn *c)
{
	struct sy_frag f[SY_PEEK_MAX_SEGS * 2];
	bool fin;
	unsigned n = peek_frags(c->peek, f, RTE_DIM(f), &fin);
	enum sy_peek_status st;

	if (fin && c->peek->bytes == 0) {
		sy_answer_close(w, c);
		return;
	}
	if (c->peek->pp_state == SY_PP_WANTED) {
		switch (pp_read(w, c, f, n, fin)) {
		case SY_PEEK_DONE:
			n = peek_frags(c->peek, f, RTE_DIM(f), &fin);
			break;
		case SY_PEEK_MORE:
			return;
		default:
			return; /* refused: reset */
		}
	}
	if (c->proto == SY_CONN_HTTP) {
		struct sy_http_head h;

		/* h2c with prior knowledge: no Host to splice by, each stream
		 * names its own; the proxy serves it (proxy/px_h2.h). */
		if (sy_dp_h2_on()) {
			st = sy_h2c_preface_peek(f, n);
			if (st == SY_PEEK_MORE && !fin)
				return;
			if (st == SY_PEEK_DONE) {
				if (sy_proxy_start(w, c, false) < 0)
					sy_conn_reset_client(w, c, SY_ANSWER_PROXY_BUSY);
				return;
			}
		}
		st = sy_http_peek(f, n, SY_HTTP_HEAD_MAX, &h);
		switch (st) {
		case SY_PEEK_DONE:
			if (wants_proxy(w, &h)) {
				/* No proxy state free: the router says so. */
				if (sy_proxy_start(w, c, false) < 0)
					sy_answer_start(w, c, 503, SY_ANSWER_PROXY_BUSY);
				return;
			}
			bind_backend(w, c);
			return;
		case SY_PEEK_BAD:
			sy_answer_start(w, c, 400, SY_ANSWER_BAD_REQUEST);
			return;
		case SY_PEEK_TOO_BIG:
			sy_answer_start(w, c, 431, SY_ANSWER_HEAD_TOO_LARGE);
			return;
		case SY_PEEK_URI_TOO_LONG:
			sy_answer_start(w, c, 414, SY_ANSWER_URI_TOO_LONG);
			return;
		default:
			break;
		}
		/* The client closed (or we hold all we can) before a full head. */
		if (fin)
			sy_answer_start(w, c, 400, SY_ANSWER_BAD_REQUEST);
		else if (c->peek->n_seg == SY_PEEK_MAX_SEGS)
			sy_answer_start(w, c, 431, SY_ANSWER_HEAD_TOO_LARGE);
		return;
	}
	{
		struct sy_tls_hello hello;

		st = sy_tls_peek(f, n, SY_TLS_HELLO_MAX, &hello);
		if (st == SY_PEEK_DONE) {
			if (wants_termination(w, &hello)) {
				/* No proxy state free: the router says so. */
				if (sy_proxy_start(w, c, true) < 0)
					sy_answer_start(w, c, 0, SY_ANSWER_PROXY_BUSY);
				return;
			}
			bind_backend(w, c);
			return;
		}
		/* Not TLS, broken, too big, or closed early: nothing to route. */
		if (st != SY_PEEK_MORE || fin || c->peek->n_seg == SY_PEEK_MAX_SEGS)
			sy_conn_reset_client(w, c, SY_ANSWER_NOT_TLS);
	}
}

/* ---------------------------------------------------------------- bind -- */

/*
 * Decide where the held request goes, using the generation held for this
 * burst (the pointer is not kept: the endpoint is copied into c). Answers
 * the client when nothing serves it.
 */
/* A redirect to the same URL over https (status per the vhost's kind: 302
 * for OpenShift's Redirect policy, 301 for Contour's upgrade). */
static void
answer_redirect_https(struct sy_conn *c, const struct sy_vhost *vh, const struct sy_http_head *h)
{
	size_t hl = sy_host_normalize_len(h->host, h->host_len);

	c->peek->answer_status = vh->insecure_status ? vh->insecure_status : 302;
	/* A path too long for the buffer is cut: the client lands on a
	 * prefix of its URL rather than on nothing. */
	snprintf(c->peek->answer_location, sizeof(c->peek->answer_location), "https://%.*s%.*s",
		 (int)RTE_MIN(hl, (size_t)SY_PEEK_HOST_MAX), h->host,
		 (int)RTE_MIN((size_t)h->path_len, sizeof(c->peek->answer_location) - 8 - SY_PEEK_HOST_MAX - 1),
		 h->path);
	c->peek->answer_body[0] = '\0';
}

/* A rule whose action is the router's own answer: copy what it says (the
 * generation is not ours past this burst). */
static void
answer_from_rule(struct sy_conn *c, const struct sy_rule *rule)
{
	c->peek->answer_status = rule->status ? rule->status : 404;
	snprintf(c->peek->answer_location, sizeof(c->peek->answer_location), "%s",
		 sy_rule_location(rule) ? sy_rule_location(rule) : "");
	snprintf(c->peek->answer_body, sizeof(c->peek->answer_body), "%s",
		 rule->action == SY_ACTION_STATIC && sy_rule_body(rule) ? sy_rule_body(rule) : "");
	c->peek->answer_custom = 1;
}

static const struct sy_pool *
route_lookup(struct sy_worker *w, struct sy_conn *c, uint16_t *status, enum sy_answer_reason *why)
{
	const struct sy_generation *g = w->gen;
	struct sy_frag f[SY_PEEK_MAX_SEGS * 2];
	const struct sy_vhost *vh = NULL;
	const struct sy_rule *rule = NULL;
	bool fin;
	unsigned n = peek_frags(c->peek, f, RTE_DIM(f), &fin);

	*status = g ? g->no_route_status : 503;
	*why = SY_ANSWER_NO_ROUTE;
	if (g == NULL)
		return NULL;
	if (c->proto == SY_CONN_HTTP) {
		struct sy_http_head h;

		if (sy_http_peek(f, n, SY_HTTP_HEAD_MAX, &h) != SY_PEEK_DONE || h.host_len == 0)
			return NULL;
		vh = sy_gen_find_vhost(g, h.host, h.host_len);
		if (vh == NULL)
			return NULL;
		if (vh->tls != SY_TLS_NONE) {
			/* Plain HTTP to a TLS vhost: its insecure policy decides
			 * (OpenShift insecureEdgeTerminationPolicy, Contour
			 * permitInsecure). Passthrough is never served in plain. */
			if (vh->insecure == SY_INSECURE_REDIRECT) {
				answer_redirect_https(c, vh, &h);
				*status = c->peek->answer_status;
				*why = SY_ANSWER_INSECURE_REDIRECT;
				return NULL;
			}
			if (vh->insecure != SY_INSECURE_ALLOW || vh->tls == SY_TLS_PASSTHROUGH) {
				*why = SY_ANSWER_INSECURE_NOT_SERVED;
				return NULL;
			}
		}
		/* Path rules without the proxy: the first request's path picks
		 * the rule for the whole connection (routerctl resolve says so). */
		rule = sy_vhost_match_path(vh, h.path, h.path_len);
		if (rule == NULL)
			return NULL;
		if (rule->methods != 0 && !(rule->methods & sy_http_method_bit(h.method, h.method_len)))
			return NULL;
		if (rule->n_preds > 0) {
			/* Header, cookie and traffic predicates need the proxy
			 * mode; splice must not guess. */
			*status = 503;
			*why = SY_ANSWER_NEEDS_PROXY;
			return NULL;
		}
		if (rule->action != SY_ACTION_BACKEND) {
			/* The rule's own answer (its status/inlineContent filters
			 * are what it says). */
			answer_from_rule(c, rule);
			c->peek->stat_slot = rule->stat_slot;
			sy_conn_stats_bind(w, c, rule->stat_slot);
			*status = c->peek->answer_status;
			*why = SY_ANSWER_RULE_ANSWER;
			return NULL;
		}
		if (rule->n_filters > 0) {
			/* Request and response rewriting needs the proxy mode. */
			*status = 503;
			*why = SY_ANSWER_NEEDS_PROXY;
			return NULL;
		}
	} else {
		struct sy_tls_hello hello;

		*status = 0; /* TLS: alert */
		if (sy_tls_peek(f, n, SY_TLS_HELLO_MAX, &hello) != SY_PEEK_DONE || !hello.has_sni)
			return NULL;
		vh = sy_gen_find_vhost(g, hello.sni, hello.sni_len);
		if (vh == NULL)
			return NULL;
		if (vh->tls != SY_TLS_PASSTHROUGH) {
			/* Edge and re-encrypt need termination (the proxy mode). */
			*why = SY_ANSWER_NEEDS_PROXY;
			return NULL;
		}
		rule = vh->n_rules ? &vh->rules[0] : NULL;
	}
	if (rule == NULL)
		return NULL;
	c->peek->stat_slot = rule->stat_slot;
	sy_conn_stats_bind(w, c, rule->stat_slot);
	{
		/* The route's timeout-tunnel, kept for the connection's life. */
		struct sy_conn_stat *cs = sy_conn_stat(w, c);

		if (cs != NULL)
			cs->idle_ms = rule->more != NULL ? rule->more->tunnel_timeout_ms : 0;
	}
	if (sy_rule_allow(rule) != NULL) {
		/* The route's ip_allowlist, before any backend is chosen:
		 * 403 on HTTP; a passthrough connection is reset. */
		struct sy_addr src = sy_conn_client_addr(&w->tcp, c);

		if (!sy_source_allowed(sy_rule_allow(rule), &src)) {
			*status = 403;
			*why = SY_ANSWER_SOURCE_NOT_ALLOWED;
			return NULL;
		}
	}
	if (rule->more != NULL && (rule->more->conn_max != 0 || rule->more->conn_rate_max != 0)) {
		/* rate-limit-connections: counted on the source from here
		 * until the connection ends; past it, reset. */
		struct sy_addr src = sy_conn_client_addr(&w->tcp, c);

		if (!sy_src_conn_admit(w, c, rule, &src)) {
			*status = 0;
			*why = SY_ANSWER_SOURCE_CONN_LIMITED;
			return NULL;
		}
	}
	if (rule->pool != NULL && rule->pool->backend_tls) {
		/* The compiler leaves https:// backends to the proxy mode;
		 * should one get here, it is not sent in plain text. */
		*status = 503;
		*why = SY_ANSWER_BACKEND_TLS;
		return NULL;
	}
	return rule->pool;
}

void
sy_splice_log(struct sy_worker *w, struct sy_conn *c, bool spliced, uint16_t status,
	      enum sy_answer_reason why)
{
	const struct sy_generation *g = w->gen;
	struct sy_frag f[SY_PEEK_MAX_SEGS * 2];
	const struct sy_vhost *vh = NULL;
	const struct sy_rule *rule = NULL;
	struct sy_access_rec r;
	unsigned n;
	bool fin;

	if (!sy_alog_on(w) || c->peek == NULL)
		return;
	memset(&r, 0, sizeof(r));
	r.tsc = w->now;
	r.mode = spliced ? SY_ALOG_SPLICE : SY_ALOG_ANSWER;
	r.why = spliced ? SY_ALOG_NO_REASON : (uint8_t)why;
	r.status = status;
	r.total_us = r.resp_us = r.connect_us = SY_ALOG_NO_TIME;
	if (r.mode == SY_ALOG_SPLICE && c->peek->connect_deadline != 0)
		r.connect_us = sy_alog_us_since(
			w, c->peek->connect_deadline - sy_ms_to_tsc(w, SY_CONNECT_TIMEOUT_MS));
	r.client_ip = c->client_ip;
	r.client_port = c->client_port;
	r.vip = c->vip;
	r.vip_port = c->vip_port;
	if (sy_conn_client_v6(c)) {
		r.v6 = SY_ALOG_V6_CLIENT | SY_ALOG_V6_VIP;
		memcpy(r.client6, sy_conn_v6_of(&w->tcp, c)->client, 16);
		memcpy(r.vip6, sy_conn_v6_of(&w->tcp, c)->vip, 16);
	}
	sy_alog_pp_client(&w->tcp, c, &r);
	if (r.mode == SY_ALOG_SPLICE) {
		r.backend_ip = c->backend_ip;
		r.backend_port = c->backend_port;
		if (sy_conn_backend_v6(c)) {
			r.v6 |= SY_ALOG_V6_BACKEND;
			memcpy(r.backend6, sy_conn_v6_of(&w->tcp, c)->backend, 16);
		}
	}
	r.tls = c->proto == SY_CONN_TLS;
	r.bytes_in = c->peek->bytes;
	/* What the held bytes say, read again (route_lookup's walk; only
	 * when the log is on). */
	n = peek_frags(c->peek, f, RTE_DIM(f), &fin);
	if (c->proto == SY_CONN_HTTP) {
		struct sy_http_head h;

		if (sy_http_peek(f, n, SY_HTTP_HEAD_MAX, &h) == SY_PEEK_DONE) {
			sy_alog_text(r.method, sizeof(r.method), h.method, h.method_len);
			sy_alog_text(r.host, sizeof(r.host), h.host, h.host_len);
			sy_alog_text(r.target, sizeof(r.target), h.path, h.path_len);
			vh = g ? sy_gen_find_vhost(g, h.host, h.host_len) : NULL;
			rule = vh ? sy_vhost_match_path(vh, h.path, h.path_len) : NULL;
		}
	} else {
		struct sy_tls_hello hello;

		if (sy_tls_peek(f, n, SY_TLS_HELLO_MAX, &hello) == SY_PEEK_DONE && hello.has_sni) {
			sy_alog_text(r.host, sizeof(r.host), hello.sni, hello.sni_len);
			vh = g ? sy_gen_find_vhost(g, hello.sni, hello.sni_len) : NULL;
			rule = vh && vh->n_rules ? &vh->rules[0] : NULL;
		}
	}
	if (rule != NULL && rule->object != NULL)
		snprintf(r.route, sizeof(r.route), "%s %s", rule->kind ? rule->kind : "", rule->object);
	sy_alog_put(w, &r);
}

static void
connect_backend(struct sy_worker *w, struct sy_conn *c)
{
	struct sy_tcp_syn_opts o;
	struct sy_seg s;

	memset(&o, 0, sizeof(o));
	/* The client's own options, so the backend negotiates what the client
	 * will actually do; MSS no larger than the backend-side link carries. */
	o.mss = c->peek->mss; /* bind_backend lowered it to the backend link's */
	o.wscale = c->peek->ws_c;
	o.sack_ok = c->peek->sack_ok;
	o.ts_ok = c->peek->ts_ok;
	o.tsval = c->peek->tsval_rb;
	o.tsecr = 0;
	sy_seg_on_leg(&w->tcp, c, SY_LEG_BACKEND, &s);
	s.seq = c->peek->isn_rb;
	s.flags = RTE_TCP_SYN_FLAG;
	/* A SYN's window is never scaled. */
	s.win = c->peek->ws_c != SY_TCP_WS_NONE ? 65535 : c->peek->client_win;
	s.syn = &o;
	sy_tcp_send(w, &s);
}

/* The SNAT port of c's earlier try goes back (a retry to the other family,
 * or to a port without that address index). */
static void
snat_release(struct sy_worker *w, struct sy_conn *c)
{
	if (c->snat_port != 0)
		sy_snat_release(w, c);
	c->snat_port = 0;
}

/*
 * The backend leg's addresses for endpoint `ep`: the port the FIB sends it
 * by, the router's own address on that port as the source (so the backend's
 * replies come back to this port), a SNAT port, the next hop, and the MSS
 * lowered to what that port carries. An IPv6 endpoint makes the leg IPv6
 * (SY_V6_BACKEND): its addresses in the record's IPv6 side, its 32-bit
 * fields their folds, its SNAT port from its address index's ports (found
 * by that index's SNAT slot and by its tuple in the IPv6 backend hash,
 * conn/flow_table.h). 0, or why not.
 */
static enum sy_answer_reason
backend_source(struct sy_worker *w, struct sy_conn *c, const struct sy_addr *ep)
{
	struct sy_fib_result fr;
	const struct sy_dp_port *bp;
	const bool v6 = ep->family == AF_INET6;

	if (sy_fib_lookup(w->sh->fib, ep, &fr) < 0)
		return SY_ANSWER_BACKEND_NO_ROUTE;
	bp = &w->sh->ports[fr.port];
	if (v6 ? bp->n_ipv6 == 0 : bp->n_ipv4 == 0)
		return SY_ANSWER_BACKEND_NO_ROUTE;
	if (v6 != sy_conn_backend_v6(c))
		snat_release(w, c);
	if (v6) {
		struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);

		/* A retry keeps its (address index, port) when this port has
		 * that index too, as over IPv4. */
		if (c->snat_port != 0 && a->snat_k >= bp->n_ipv6)
			snat_release(w, c);
		c->flags |= SY_CF_V6;
		c->v6 |= SY_V6_BACKEND;
		if (c->snat_port == 0) {
			uint16_t p = sy_snat_get6(w, bp, &a->snat_k);

			if (p == 0)
				return SY_ANSWER_SNAT_PORTS_EXHAUSTED;
			c->snat_port = rte_cpu_to_be_16(p);
		}
		memcpy(a->backend, ep->v6, 16);
		memcpy(a->snat, bp->ipv6[a->snat_k], 16);
		sy_conn_v6_set_nh(c, a, SY_LEG_BACKEND, fr.nexthop.v6, fr.nh_id + 1);
		c->backend_ip = sy_addr6_fold(a->backend);
		c->snat_ip = 0; /* its SNAT slot is row snat_k's (conn/snat.h) */
		c->backend_if = (uint8_t)fr.port;
		c->peek->mss = RTE_MIN(c->peek->mss, (uint16_t)(bp->mtu - 60));
		return 0;
	}
	c->v6 &= (uint8_t)~(SY_V6_BACKEND | SY_V6_BACKEND_GW);
	if ((c->v6 & SY_V6_LEGS) == 0)
		c->flags &= (uint8_t)~SY_CF_V6;
	c->backend_ip = ep->v4;
	/* A retry keeps its (address index, port) when the port it leaves by
	 * has that index too (conn/snat.h, source addresses). */
	if (c->snat_port != 0 && sy_snat_index(&w->tcp, c->snat_ip) >= bp->n_ipv4)
		snat_release(w, c);
	if (c->snat_port == 0) {
		uint16_t p = sy_snat_get(w, bp, &c->snat_ip);

		if (p == 0)
			return SY_ANSWER_SNAT_PORTS_EXHAUSTED;
		c->snat_port = rte_cpu_to_be_16(p);
	} else {
		c->snat_ip = bp->ipv4[sy_snat_index(&w->tcp, c->snat_ip)];
	}
	c->backend_if = (uint8_t)fr.port;
	c->backend_nh = fr.nexthop.v4;
	/* A segment larger than the backend path allows must never be
	 * produced (docs/architecture.md 9.3, MSS). */
	c->peek->mss = RTE_MIN(c->peek->mss, (uint16_t)(bp->mtu - 40));
	return 0;
}

static void
bind_backend(struct sy_worker *w, struct sy_conn *c)
{
	enum sy_answer_reason why;
	uint16_t status;
	const struct sy_pool *pool = route_lookup(w, c, &status, &why);
	int i;

	if (pool == NULL) {
		if ((c->proto == SY_CONN_TLS && why == SY_ANSWER_SOURCE_NOT_ALLOWED) ||
		    why == SY_ANSWER_SOURCE_CONN_LIMITED)
			sy_conn_reset_client(w, c, why); /* as OpenShift's tcp-request reject */
		else
			sy_answer_start(w, c, c->proto == SY_CONN_TLS ? 0 : status, why);
		return;
	}
	{
		/* Source affinity by the client a PROXY protocol header named,
		 * if one did (the fold of an IPv6 one, as c->client_ip is). */
		struct sy_addr src = sy_conn_client_addr(&w->tcp, c);

		i = sy_lb_pick(pool, w, sy_addr_key32(&src), &c->peek->lb_first, c->peek->tries);
	}
	if (i < 0) {
		/* No endpoint (left) to try: OpenShift answers 503. */
		why = c->peek->tries == 0 ? SY_ANSWER_NO_ENDPOINT : SY_ANSWER_BACKEND_UNREACHABLE;
		if (c->proto == SY_CONN_TLS)
			sy_conn_reset_client(w, c, why);
		else
			sy_answer_start(w, c, 503, why);
		return;
	}
	if (c->flags & SY_CF_BACKEND_KEY)
		sy_flow_backend_del(w, c);
	sy_lb_load_set(w, c, sy_addr_key32(&pool->endpoints[i].addr),
		       rte_cpu_to_be_16(pool->endpoints[i].port));
	c->backend_port = rte_cpu_to_be_16(pool->endpoints[i].port);
	c->peek->be_slot = pool->endpoints[i].stat_slot;
	why = backend_source(w, c, &pool->endpoints[i].addr);
	if (why != 0) {
		sy_answer_start(w, c, c->proto == SY_CONN_HTTP ? 503 : 0, why);
		return;
	}
	/* The SNAT port is this record's alone: the backend leg cannot
	 * collide (conn/snat.h). */
	sy_flow_backend_add(w, c);
	/* Our ISN and TSval for this tuple: past what a TIME_WAIT the backend
	 * may still hold on it saw (tcp_isn.h). Client data and timestamps
	 * move into them by the client leg's deltas. The SYN's TSval stands
	 * for the oldest client TSval we forward, so no held segment arrives
	 * older than the SYN and fails the backend's PAWS check (RFC 7323 5). */
	c->peek->isn_rb = sy_backend_isn(&w->sh->leg_clock, w->now, c->snat_ip, c->backend_ip,
					 c->snat_port, c->backend_port);
	c->peek->tsval_rb = sy_backend_tsval(&w->sh->leg_clock, w->now, c->snat_ip, c->backend_ip);
	c->peek->stale_acks = 0;
	/* A PROXY protocol header's bytes are the balancer's, not the
	 * backend's: the client's stream maps to the backend's past them. */
	c->seq_delta[SY_LEG_CLIENT] = c->peek->isn_rb - c->peek->isn_c -
				      (c->peek->pp_state == SY_PP_READ ? c->peek->pp_skip : 0);
	c->ts_delta[SY_LEG_CLIENT] = c->peek->ts_ok ? c->peek->tsval_rb - c->peek->ts_first : 0;
	if (c->state == SY_CONN_PEEK)
		c->peek->connect_deadline = w->now + sy_ms_to_tsc(w, SY_CONNECT_TIMEOUT_MS);
	c->state = SY_CONN_CONNECTING;
	c->peek->retx = 1;
	connect_backend(w, c);
	if (c->state == SY_CONN_CONNECTING)
		timer_in(w, c, SY_SYN_RTO_MS);
}

/* The endpoint refused or did not answer: the next one, within the connect
 * timeout; else tell the client. */
static void
retry_backend(struct sy_worker *w, struct sy_conn *c)
{
	sy_lb_report(w, c->backend_ip, c->backend_port, 0);
	if (w->now >= c->peek->connect_deadline) {
		if (c->proto == SY_CONN_TLS)
			sy_conn_reset_client(w, c, SY_ANSWER_BACKEND_UNREACHABLE);
		else
			sy_answer_start(w, c, 503, SY_ANSWER_BACKEND_UNREACHABLE);
		return;
	}
	c->peek->tries++;
	w->counters.backend_retries++;
	bind_backend(w, c);
}

/*
 * Segment m of c, already accounted for, translated by x and sent to the
 * other leg: to the backend (to_backend) or to the client. Within IPv4 the
 * header is edited (splice_xlate.h); with an IPv6 leg the segment changes
 * family on the way, or is translated within IPv6 (splice_xlate46.c).
 */
static void
xlate_send(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, bool to_backend,
	   const struct sy_xlate *x)
{
	const struct sy_conn_v6 *a;
	bool in6, out6;
	int rc;

	if (likely(!(c->flags & SY_CF_V6))) {
		rc = sy_xlate_tcp4(rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *), tcp_hdr(m), x);
		if (unlikely(rc < 0)) {
			sy_drop(w, m, SY_DROP_SPLICE_XLATE_FAILED);
			return;
		}
		if (to_backend)
			sy_ipv4_output_nh(w, m, c->backend_if, c->backend_nh);
		else
			sy_ipv4_output_nh(w, m, c->client_if, c->client_nh);
		return;
	}
	a = sy_conn_v6_of(&w->tcp, c);
	in6 = to_backend ? sy_conn_client_v6(c) : sy_conn_backend_v6(c);
	out6 = to_backend ? sy_conn_backend_v6(c) : sy_conn_client_v6(c);
	if (!out6)
		rc = in6 ? sy_xlate_6to4(m, x)
			 : sy_xlate_tcp4(rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *), tcp_hdr(m), x);
	else if (in6)
		rc = sy_xlate_6to6(m, x, to_backend ? a->snat : a->vip, to_backend ? a->backend : a->client);
	else
		rc = sy_xlate_4to6(m, x, to_backend ? a->snat : a->vip, to_backend ? a->backend : a->client);
	if (unlikely(rc < 0)) {
		sy_drop(w, m, SY_DROP_SPLICE_XLATE_FAILED);
		return;
	}
	if (out6)
		sy_ipv6_output_nh(w, m, to_backend ? c->backend_if : c->client_if,
				  to_backend ? a->backend_nh : a->client_nh);
	else if (to_backend)
		sy_ipv4_output_nh(w, m, c->backend_if, c->backend_nh);
	else
		sy_ipv4_output_nh(w, m, c->client_if, c->client_nh);
}

/* The backend answered our SYN: compute the deltas, send what we held. */
static void
backend_established(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *synack)
{
	struct rte_tcp_hdr *th = tcp_hdr(synack);
	struct sy_tcp_syn_opts bo;
	struct sy_peek_buf *p = c->peek;
	uint32_t d_ts = 0;
	uint8_t ws_b = 0, ws_r = 0;
	struct sy_xlate x;
	unsigned i;

	if (sy_tcp_parse_syn_opts(th, &bo) < 0) {
		sy_drop(w, synack, SY_DROP_TCP_MALFORMED);
		return;
	}
	sy_lb_report(w, c->backend_ip, c->backend_port, 1);
	sy_splice_log(w, c, true, 0, SY_ANSWER_NO_ROUTE /* unused when spliced */);
	if (c->peek->stat_slot != 0 && w->tcp.route_ctr != NULL)
		w->tcp.route_ctr[c->peek->stat_slot].connections++;
	sy_conn_stats_spliced(w, c, c->peek->be_slot, c->peek->isn_c, c->peek->isn_r);
	if (c->peek->ts_ok && bo.ts_ok)
		d_ts = c->peek->tsval_r0 - bo.tsval;
	/* Scaling is in force only when both ends offered it (RFC 7323 2.2). */
	if (c->peek->ws_c != SY_TCP_WS_NONE) {
		ws_r = SY_WS_ROUTER;
		ws_b = bo.wscale != SY_TCP_WS_NONE ? bo.wscale : 0;
	}
	c->seq_delta[SY_LEG_BACKEND] = c->peek->isn_r - rte_be_to_cpu_32(th->sent_seq); /* isn_r - isn_b */
	c->ts_delta[SY_LEG_BACKEND] = d_ts;
	c->win_shift_b = ws_b;
	c->win_shift_r = ws_r;
	sy_conn_csum_deltas(&w->tcp, c);
	c->flags |= SY_CF_SPLICED;
	sy_xlate_to_backend(c, &x);
	rte_pktmbuf_free(synack); /* the client had its handshake with us */

	/* The held segments, in order; the first one's ACK (of our cookie)
	 * translates into the ACK of the backend's SYN-ACK. A PROXY protocol
	 * header is cut off their front (a segment it filled goes as an ACK). */
	{
		uint32_t skip = p->pp_state == SY_PP_READ ? p->pp_skip : 0;

		for (i = 0; i < p->n_seg && skip > 0; i++) {
			uint32_t k = RTE_MIN(skip, tcp_payload_len(p->seg[i]));

			if (k > 0)
				trim_front(p->seg[i], k);
			skip -= k;
		}
	}
	for (i = 0; i < p->n_seg; i++) {
		struct rte_mbuf *m = p->seg[i];
		struct rte_tcp_hdr *sth = tcp_hdr(m);

		if (sth->tcp_flags & RTE_TCP_FIN_FLAG) {
			c->flags |= SY_CF_FIN_CLIENT;
			c->fin_c = rte_be_to_cpu_32(sth->sent_seq) + tcp_payload_len(m);
		}
		xlate_send(w, c, m, true, &x);
	}
	p->n_seg = 0;
	for (i = 0; i < p->n_ooo; i++)
		xlate_send(w, c, p->ooo[i], true, &x);
	p->n_ooo = 0;
	sy_peek_free(w, p);
	c->peek = NULL;
	c->state = SY_CONN_SPLICED;
	c->last_seen = sy_conn_seen(w->now);
	w->counters.conns_spliced++;
	timer_in(w, c, (c->flags & SY_CF_FIN_CLIENT) ? SY_HALF_CLOSED_TIMEOUT_MS : splice_idle_ms(w, c));
}

/* ------------------------------------------------------------ forward -- */

static void
forward(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, bool from_client)
{
	struct rte_tcp_hdr *th = tcp_hdr(m);
	uint8_t fl = th->tcp_flags;
	struct sy_xlate x;

	c->last_seen = sy_conn_seen(w->now);
	if (fl & RTE_TCP_RST_FLAG) {
		if (c->state != SY_CONN_LINGER)
			enter_linger(w, c);
	} else if (from_client) {
		if ((fl & RTE_TCP_FIN_FLAG) && !(c->flags & SY_CF_FIN_CLIENT)) {
			c->flags |= SY_CF_FIN_CLIENT;
			c->fin_c = rte_be_to_cpu_32(th->sent_seq) + tcp_payload_len(m);
		}
		/* The client acknowledges the backend's FIN: both directions are
		 * done once the client has closed too. */
		if ((c->flags & SY_CF_FIN_BACKEND) && (c->flags & SY_CF_FIN_CLIENT) &&
		    (fl & RTE_TCP_ACK_FLAG) &&
		    SEQ_GT(rte_be_to_cpu_32(th->recv_ack), c->fin_b) && c->state == SY_CONN_SPLICED)
			enter_linger(w, c);
	} else {
		if ((fl & RTE_TCP_FIN_FLAG) && !(c->flags & SY_CF_FIN_BACKEND)) {
			c->flags |= SY_CF_FIN_BACKEND;
			c->fin_b = rte_be_to_cpu_32(th->sent_seq) + c->seq_delta[SY_LEG_BACKEND] +
				   tcp_payload_len(m);
		}
		/* The backend acknowledges in our backend leg's space; fin_c is
		 * in the client's. */
		if ((c->flags & SY_CF_FIN_CLIENT) && (c->flags & SY_CF_FIN_BACKEND) &&
		    (fl & RTE_TCP_ACK_FLAG) &&
		    SEQ_GT(rte_be_to_cpu_32(th->recv_ack) - c->seq_delta[SY_LEG_CLIENT], c->fin_c) &&
		    c->state == SY_CONN_SPLICED)
			enter_linger(w, c);
	}
	if (from_client)
		sy_xlate_to_backend(c, &x);
	else
		sy_xlate_to_client(c, &x);
	xlate_send(w, c, m, from_client, &x);
}

/*
 * The backend answered our SYN with an ACK that is not for it: it still
 * holds an older connection on this 4-tuple (TIME_WAIT that did not take the
 * SYN, or one it thinks is open) and acknowledges that one. RFC 793 (SYN-SENT,
 * "the ACK is unacceptable") answers with <SEQ=SEG.ACK><CTL=RST>: that RST
 * is exactly in the old connection's window, so the backend drops it (Linux
 * kills a TIME_WAIT on it unless tcp_rfc1337 is set; RFC 5961 takes it for
 * an open one). The SYN goes again at once rather than after its RTO; Linux
 * rate-limits these ACKs (one per 500 ms per socket), so waiting for another
 * would cost half a second. Bounded per endpoint; the SYN timer goes on.
 */
static void
backend_stale_ack(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m)
{
	struct rte_tcp_hdr *th = tcp_hdr(m);
	struct sy_seg s;

	sy_seg_on_leg(&w->tcp, c, SY_LEG_BACKEND, &s);
	s.seq = rte_be_to_cpu_32(th->recv_ack);
	s.flags = RTE_TCP_RST_FLAG;
	rte_pktmbuf_free(m);
	w->counters.backend_stale_acks++;
	sy_tcp_send(w, &s);
	if (c->peek->stale_acks >= SY_STALE_ACK_TRIES)
		return;
	c->peek->stale_acks++;
	connect_backend(w, c);
}

/* ------------------------------------------------------------ dispatch -- */

void
sy_splice_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, bool from_client)
{
	struct rte_tcp_hdr *th = tcp_hdr(m);
	uint8_t fl = th->tcp_flags;

	switch (c->state) {
	case SY_CONN_SPLICED:
		forward(w, c, m, from_client);
		return;
	case SY_CONN_LINGER:
		if (c->flags & SY_CF_SPLICED) {
			forward(w, c, m, from_client);
			return;
		}
		if (from_client) {
			sy_answer_segment(w, c, m);
			return;
		}
		sy_drop(w, m, SY_DROP_LINGER_LATE);
		return;
	case SY_CONN_ANSWER:
		if (from_client) {
			sy_answer_segment(w, c, m);
			return;
		}
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	case SY_CONN_PEEK:
	case SY_CONN_CONNECTING:
		break;
	default:
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}

	if (!from_client) {
		uint32_t ack = rte_be_to_cpu_32(th->recv_ack);

		if (c->state != SY_CONN_CONNECTING || !(fl & RTE_TCP_ACK_FLAG)) {
			sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
			return;
		}
		if (ack != c->peek->isn_rb + 1) {
			if (!(fl & (RTE_TCP_SYN_FLAG | RTE_TCP_RST_FLAG))) {
				backend_stale_ack(w, c, m);
				return;
			}
			sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
			return;
		}
		if (fl & RTE_TCP_RST_FLAG) {
			rte_pktmbuf_free(m);
			retry_backend(w, c);
			return;
		}
		if ((fl & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) == (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) {
			backend_established(w, c, m);
			return;
		}
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}

	/* From the client, before the splice: what is held is parsed and
	 * routed on (and a proxy takes it as the request), so it must be
	 * what the client sent. */
	if (!sy_l4_cksum_ok(m)) {
		sy_drop(w, m, SY_DROP_TCP_BAD_CHECKSUM);
		return;
	}
	if (fl & RTE_TCP_RST_FLAG) {
		rte_pktmbuf_free(m);
		sy_conn_free(w, c);
		return;
	}
	if (fl & RTE_TCP_SYN_FLAG) {
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}
	c->last_seen = sy_conn_seen(w->now);
	c->peek->client_win = rte_be_to_cpu_16(th->rx_win);
	if (c->peek->ts_ok) {
		uint32_t tsval, tsecr;

		if (sy_tcp_find_ts(th, &tsval, &tsecr)) {
			if (SEQ_GEQ(tsval, c->peek->ts_recent))
				c->peek->ts_recent = tsval;
			/* Reordered before the bind: the oldest still anchors
			 * the backend leg's timestamps (bind_backend). */
			if (c->state == SY_CONN_PEEK && SEQ_LT(tsval, c->peek->ts_first))
				c->peek->ts_first = tsval;
		}
	}
	if (tcp_seg_len(m) == 0) {
		/* A bare ACK or window update: nothing to hold. */
		rte_pktmbuf_free(m);
		return;
	}
	if (!peek_hold(w, c, m)) {
		/*
		 * A client stalled on an HTTP head PEEK cannot finish: it
		 * has sent all its congestion window allows (ten segments,
		 * RFC 6928, less than SY_HTTP_HEAD_MAX at a 1460-byte MSS),
		 * nothing of it is acknowledged until the bind, and its RTO
		 * now sends the first segment again. A head that big is
		 * refused now (431) rather than after the http-request
		 * timeout (408). A small head waiting on a lost segment does
		 * not get here: its client's tail loss probe or RTO resends
		 * what is missing, not only what is held.
		 */
		if (c->state == SY_CONN_PEEK && c->proto == SY_CONN_HTTP &&
		    c->peek->bytes >= SY_PEEK_STALL_BYTES)
			sy_answer_start(w, c, 431, SY_ANSWER_HEAD_TOO_LARGE);
		return;
	}
	if (c->state == SY_CONN_PEEK)
		peek_try(w, c);
}

void
sy_splice_timeout(struct sy_worker *w, struct sy_conn *c)
{
	uint64_t idle, since;

	switch (c->state) {
	case SY_CONN_PEEK:
		/* The head or hello did not arrive in time. */
		if (c->proto == SY_CONN_HTTP)
			sy_answer_start(w, c, 408, SY_ANSWER_HEAD_TIMEOUT);
		else
			sy_conn_reset_client(w, c, SY_ANSWER_HEAD_TIMEOUT);
		return;
	case SY_CONN_CONNECTING:
		if (c->peek->retx < SY_SYN_TRIES && w->now < c->peek->connect_deadline) {
			c->peek->retx++;
			w->counters.backend_syn_retx++;
			connect_backend(w, c);
			timer_in(w, c, (uint64_t)SY_SYN_RTO_MS << (c->peek->retx - 1));
			return;
		}
		retry_backend(w, c);
		return;
	case SY_CONN_SPLICED:
		idle = sy_ms_to_tsc(w, (c->flags & (SY_CF_FIN_CLIENT | SY_CF_FIN_BACKEND))
					       ? SY_HALF_CLOSED_TIMEOUT_MS
					       : splice_idle_ms(w, c));
		since = (uint64_t)(uint32_t)(sy_conn_seen(w->now) - c->last_seen) << SY_CONN_SEEN_SHIFT;
		if (since < idle) {
			/* Traffic since the timer was set: re-arm from it rather
			 * than touch the wheel on every packet. */
			sy_conn_timer_set(w, c, w->now - since + idle);
			return;
		}
		sy_conn_free(w, c);
		return;
	case SY_CONN_ANSWER:
		sy_answer_timeout(w, c);
		return;
	case SY_CONN_LINGER:
	default:
		sy_conn_free(w, c);
		return;
	}
}

/* sy_conn_free of a splice record: its backend's open connection and its
 * route's count end (nothing else of the mode outlives the record). */
static void
splice_release(struct sy_worker *w, struct sy_conn *c)
{
	sy_lb_load_clear(w, c);
	sy_conn_stats_end(w, c);
}

/* A new SYN on a tuple still lingering: the client reused its port (port
 * exhaustion under load). The old connection is over; this is a new one. */
static bool
linger_syn(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m)
{
	(void)m;
	sy_conn_free(w, c);
	return true;
}

static const struct sy_conn_ops splice_ops = {
	.segment = sy_splice_segment,
	.timeout = sy_splice_timeout,
	.release = splice_release,
};

static const struct sy_conn_ops linger_ops = {
	.segment = sy_splice_segment,
	.timeout = sy_splice_timeout,
	.release = splice_release,
	.syn = linger_syn,
};

void
sy_splice_register_ops(void)
{
	sy_conn_ops_register(SY_CONN_PEEK, &splice_ops);
	sy_conn_ops_register(SY_CONN_CONNECTING, &splice_ops);
	sy_conn_ops_register(SY_CONN_SPLICED, &splice_ops);
	sy_conn_ops_register(SY_CONN_ANSWER, &splice_ops);
	sy_conn_ops_register(SY_CONN_LINGER, &linger_ops);
}
