/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP input: which worker owns a segment, which connection it belongs to, and
 * the stateless listening side (SYN cookies). docs/architecture.md 4.3-4.4.
 *
 * Ownership: a client-side flow belongs to the worker its 4-tuple hashes to;
 * a backend-side flow to the worker its SNAT port names (port % workers). A
 * segment that lands on another worker's queue (single-queue devices, the
 * kernel's own spreading on af_packet) is passed to the owner over its ring.
 */
#include <string.h>
#include <sys/socket.h>

#include <rte_byteorder.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_tcp.h>

#include "conn/conn.h"
#include "conn/conn_ops.h"
#include "net/cksum.h"
#include "net/net.h"
#include "splice/splice.h"
#include "tcp/tcp.h"
#include "tcp/tcp_out.h"
#include "tcp/tcp_seg.h"
#include "tcp/tcp_syncookie.h"
#include "vrrp/vrrp.h"
#include "worker.h"

static inline unsigned
client_owner(const struct sy_dp_shared *sh, uint32_t client_ip, uint16_t client_port)
{
	uint32_t h = rte_hash_crc_4byte(client_ip, 0x5eed);

	return rte_hash_crc_2byte(client_port, h) % sh->n_workers;
}

/* The 4-tuple of a segment as the client sent it, either family. */
unsigned
sy_tcp6_owner(const struct sy_dp_shared *sh, const uint8_t ours[16], uint16_t our_port,
	      const uint8_t peer[16], uint16_t peer_port)
{
	uint32_t h;

	if (sh->n_workers == 1)
		return 0;
	if (!sy_is_listen6(sh, ours, our_port))
		return rte_be_to_cpu_16(our_port) % sh->n_workers; /* a SNAT port */
	/* A client leg: its address and port, as client_owner. */
	h = rte_hash_crc(peer, 16, 0x5eed);
	return rte_hash_crc_2byte(peer_port, h) % sh->n_workers;
}

static void
cookie_tuple(struct sy_cookie_tuple *t, const struct rte_mbuf *m, const struct rte_tcp_hdr *th)
{
	memset(t, 0, sizeof(*t));
	if (sy_seg_is_v6(m)) {
		const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);

		t->saddr = sy_addr_v6(ip6->src_addr);
		t->daddr = sy_addr_v6(ip6->dst_addr);
	} else {
		const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);

		t->saddr = sy_addr_v4(ip->src_addr);
		t->daddr = sy_addr_v4(ip->dst_addr);
	}
	t->sport = th->src_port;
	t->dport = th->dst_port;
}

static inline uint32_t
cookie_now(const struct sy_worker *w)
{
	return sy_cookie_counter(w->now / (w->sh->tsc_per_ms * 1000));
}

/*
 * A segment of ours in the place of the one received (m, its TCP header th
 * written already, total bytes from the IP header on): addresses swapped,
 * lengths and checksums set, sent. Either family.
 */
static void
reply_in_place(struct sy_worker *w, struct rte_mbuf *m, struct rte_tcp_hdr *th, uint16_t total)
{
	const uint32_t l3len = sy_seg_l3_len(m);

	th->cksum = 0;
	if (sy_seg_is_v6(m)) {
		struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
		uint8_t a[16];

		memcpy(a, ip6->src_addr, 16);
		memcpy(ip6->src_addr, ip6->dst_addr, 16);
		memcpy(ip6->dst_addr, a, 16);
		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)(total - l3len));
		ip6->hop_limits = SY_IPV4_DEFAULT_TTL;
		th->cksum = (uint16_t)~sy_cksum_fold(sy_cksum_add(
			sy_l3_phdr_sum(ip6, IPPROTO_TCP, total - l3len), th, total - l3len));
		sy_ipv6_output(w, (uint16_t)m->hash.usr, m);
	} else {
		struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
		uint32_t addr = ip->src_addr;

		ip->src_addr = ip->dst_addr;
		ip->dst_addr = addr;
		ip->total_length = rte_cpu_to_be_16(total);
		ip->time_to_live = SY_IPV4_DEFAULT_TTL;
		ip->packet_id = 0;
		ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
		th->cksum = rte_ipv4_udptcp_cksum(ip, th);
		sy_ipv4_output(w, m);
	}
}

/*
 * Answer a SYN with a cookie, no state kept (docs/architecture.md 9.4): the
 * SYN-ACK is the SYN's own mbuf turned around, which also keeps the cost of a
 * flood down to the packet itself.
 */
static void
syn_cookie_reply(struct sy_worker *w, struct rte_mbuf *m, struct rte_tcp_hdr *th)
{
	const struct sy_dp_shared *sh = w->sh;
	const bool v6 = sy_seg_is_v6(m);
	const uint32_t l3len = sy_seg_l3_len(m);
	struct sy_tcp_syn_opts syn, out;
	struct sy_cookie_tuple t;
	uint32_t isn = rte_be_to_cpu_32(th->sent_seq);
	uint16_t port, total;
	uint8_t opts[40];
	unsigned olen;

	if (sy_tcp_parse_syn_opts(th, &syn) < 0) {
		sy_drop(w, m, SY_DROP_TCP_MALFORMED);
		return;
	}
	cookie_tuple(&t, m, th);
	memset(&out, 0, sizeof(out));
	out.wscale = syn.wscale != SY_TCP_WS_NONE ? 7 : SY_TCP_WS_NONE;
	out.sack_ok = syn.sack_ok;
	out.ts_ok = syn.ts_ok;
	out.tsval = sy_tcp_ts_now(w);
	out.tsecr = syn.tsval;
	{
		uint32_t cookie = sy_cookie_make(sy_dp_cookie_keys(sh), &t, isn, cookie_now(w), &syn,
						 sh->mss_max);
		/* The cookie keeps what the client may receive (for the backend
		 * SYN); we announce what our ports carry (docs/architecture.md
		 * 9.3, MSS), 20 bytes less over IPv6, whose header is longer. */
		out.mss = (uint16_t)(v6 ? sh->mss_max - 20 : sh->mss_max);
		th->sent_seq = rte_cpu_to_be_32(cookie);
	}
	olen = sy_tcp_write_syn_opts(opts, &out);

	port = th->src_port;
	th->src_port = th->dst_port;
	th->dst_port = port;
	th->recv_ack = rte_cpu_to_be_32(isn + 1);
	th->tcp_flags = RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG;
	th->rx_win = RTE_BE16(65535);
	th->tcp_urp = 0;
	th->data_off = (uint8_t)(((sizeof(*th) + olen) / 4) << 4);
	memcpy(th + 1, opts, olen);
	total = (uint16_t)(l3len + sizeof(*th) + olen);
	/* A SYN may carry data (TFO) or options longer than ours: cut to size. */
	if (m->pkt_len > total)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - total));
	else if (m->pkt_len < total && rte_pktmbuf_append(m, (uint16_t)(total - m->pkt_len)) == NULL) {
		sy_drop(w, m, SY_DROP_NO_MBUF);
		return;
	}
	w->counters.syn_cookies_sent++;
	reply_in_place(w, m, th, total);
}

/*
 * A SYN while draining (drain.c): RST and ACK of it, in its own mbuf, so the
 * client learns at once that this address takes no new connection here
 * (RFC 9293 3.10.7.1: a closed port's answer to a SYN).
 */
static void
syn_refuse_draining(struct sy_worker *w, struct rte_mbuf *m, struct rte_tcp_hdr *th)
{
	const uint32_t l3len = sy_seg_l3_len(m);
	uint32_t ack = rte_be_to_cpu_32(th->sent_seq) + 1;
	uint16_t port = th->src_port, total = (uint16_t)(l3len + sizeof(*th));

	th->src_port = th->dst_port;
	th->dst_port = port;
	th->sent_seq = 0;
	th->recv_ack = rte_cpu_to_be_32(ack);
	th->tcp_flags = RTE_TCP_RST_FLAG | RTE_TCP_ACK_FLAG;
	th->rx_win = 0;
	th->tcp_urp = 0;
	th->data_off = (uint8_t)((sizeof(*th) / 4) << 4);
	if (m->pkt_len > total)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - total));
	w->counters.conns_refused_draining++;
	reply_in_place(w, m, th, total);
}

/*
 * Whether a SYN is to one of the VRRP VIPs. Draining, those are given away
 * (drain.c) but clients whose ARP or neighbour caches still point here keep
 * arriving until the standby's gratuitous ARP: they cannot retry elsewhere,
 * so a RST would fail them. Their connections are taken, and the drain lasts
 * until a standby surely has the VIPs (sy_dp_drain_begin).
 */
static bool
syn_to_vip(const struct sy_worker *w, const struct rte_mbuf *m)
{
	const struct sy_vrrp *v = w->sh->vrrp;

	if (v == NULL)
		return false;
	if (sy_seg_is_v6(m))
		return sy_vrrp_vip6_state(
			       v, rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *)->dst_addr) >= 0;
	return sy_vrrp_vip_state(v, rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *)->dst_addr) >= 0;
}

/* A segment for a listen address with no connection: a SYN, or the ACK that
 * completes a cookie handshake (possibly with the first data). */
static void
listen_input(struct sy_worker *w, struct rte_mbuf *m, struct rte_tcp_hdr *th)
{
	uint8_t fl = th->tcp_flags;
	struct sy_cookie_tuple t;
	struct sy_tcp_syn_opts syn;
	uint32_t tsval, tsecr;

	/* Handshake segments are trusted for what they set up: check them. */
	if (!sy_l4_cksum_ok(m)) {
		sy_drop(w, m, SY_DROP_TCP_BAD_CHECKSUM);
		return;
	}
	if ((fl & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG | RTE_TCP_RST_FLAG | RTE_TCP_FIN_FLAG)) ==
	    RTE_TCP_SYN_FLAG) {
		if (unlikely(atomic_load_explicit(&w->sh->draining, memory_order_relaxed))) {
			if (!syn_to_vip(w, m)) {
				syn_refuse_draining(w, m, th);
				return;
			}
			w->counters.conns_taken_draining_vip++;
		}
		syn_cookie_reply(w, m, th);
		return;
	}
	if ((fl & (RTE_TCP_SYN_FLAG | RTE_TCP_RST_FLAG | RTE_TCP_ACK_FLAG)) != RTE_TCP_ACK_FLAG) {
		sy_drop(w, m, SY_DROP_TCP_NO_FLOW);
		return;
	}
	cookie_tuple(&t, m, th);
	if (!sy_cookie_check(sy_dp_cookie_keys(w->sh), &t, rte_be_to_cpu_32(th->sent_seq) - 1,
			     rte_be_to_cpu_32(th->recv_ack) - 1, cookie_now(w), &syn)) {
		/* Forged, stale, or a later segment of a connection we no
		 * longer have. */
		sy_drop(w, m, SY_DROP_TCP_COOKIE_INVALID);
		return;
	}
	/* The client uses timestamps only if it put one in this ACK too. */
	if (syn.ts_ok && !sy_tcp_find_ts(th, &tsval, &tsecr))
		syn.ts_ok = false;
	sy_splice_open(w, m, &syn);
}

/*
 * A segment of connection c's (from its client leg or not): to the mode its
 * state names (conn/conn_ops.h). False when it is for no connection any
 * more: a new SYN on a tuple whose record is closing (a lingering splice, a
 * proxied leg's TIME_WAIT), which that mode has let go of; the listening
 * side takes it then.
 */
static bool
conn_input(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m,
	   const struct rte_tcp_hdr *th, bool from_client)
{
	const struct sy_conn_ops *ops;
	bool syn;

	/* The common state without the table: a direct call, as before
	 * there was one (conn/conn_ops.h, the hot path). */
	if (likely(c->state == SY_CONN_SPLICED)) {
		sy_splice_segment(w, c, m, from_client);
		return true;
	}
	ops = sy_conn_ops_of(c);
	syn = from_client &&
	      (th->tcp_flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) == RTE_TCP_SYN_FLAG;
	if (!syn || ops->syn == NULL) {
		ops->segment(w, c, m, from_client);
		return true;
	}
	return !ops->syn(w, c, m);
}

/*
 * An IPv6 segment owned by this worker: a client leg's or an IPv6 backend
 * leg's, both keyed in the IPv6 flow table by the tuple as it arrives, or
 * the listening side.
 */
static void
tcp6_input_owned(struct sy_worker *w, struct rte_mbuf *m)
{
	const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(ip6 + 1);
	struct sy_flow_key6 k;
	struct sy_conn *c;

	sy_flow_key_v6(&k, ip6->src_addr, ip6->dst_addr, th->src_port, th->dst_port);
	c = sy_flow_lookup6(w, &k);
	/* The client's tuple, or else the backend leg's (the key was one of
	 * the two). */
	if (c != NULL &&
	    conn_input(w, c, m, th,
		       sy_conn_client_v6(c) && th->src_port == c->client_port &&
			       memcmp(ip6->src_addr, sy_conn_v6_of(&w->tcp, c)->client, 16) == 0))
		return;
	if (sy_is_listen6(w->sh, ip6->dst_addr, th->dst_port)) {
		listen_input(w, m, th);
		return;
	}
	sy_drop(w, m, SY_DROP_TCP_NO_FLOW);
}

/* A TCP segment owned by this worker. */
static void
tcp_input_owned(struct sy_worker *w, struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)((uint8_t *)ip + rte_ipv4_hdr_len(ip));
	struct sy_conn *c;
	bool from_client;

	if (sy_seg_is_v6(m)) {
		tcp6_input_owned(w, m);
		return;
	}
	c = sy_flow_find(w, ip->src_addr, ip->dst_addr, th->src_port, th->dst_port, &from_client);
	if (c != NULL && conn_input(w, c, m, th, from_client))
		return;
	if (sy_is_listen(w->sh, ip->dst_addr, th->dst_port)) {
		listen_input(w, m, th);
		return;
	}
	sy_drop(w, m, SY_DROP_TCP_NO_FLOW);
}

void
sy_tcp_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	uint16_t ihl = (uint16_t)rte_ipv4_hdr_len(ip);
	struct rte_tcp_hdr *th;
	unsigned owner, thl;

	/* Headers (with options) are read in place: first segment only. */
	if (unlikely(m->data_len < ihl + sizeof(*th))) {
		sy_drop(w, m, SY_DROP_TCP_MALFORMED);
		return;
	}
	th = (struct rte_tcp_hdr *)((uint8_t *)ip + ihl);
	thl = (th->data_off >> 4) * 4u;
	if (unlikely(thl < sizeof(*th) || m->data_len < ihl + thl ||
		     rte_be_to_cpu_16(ip->total_length) < ihl + thl)) {
		sy_drop(w, m, SY_DROP_TCP_MALFORMED);
		return;
	}
	if (w->sh->n_workers == 1)
		owner = 0;
	else if (sy_is_listen(w->sh, ip->dst_addr, th->dst_port))
		owner = client_owner(w->sh, ip->src_addr, th->src_port);
	else
		owner = rte_be_to_cpu_16(th->dst_port) % w->sh->n_workers;
	if (owner != w->id) {
		m->hash.usr = port;
		if (rte_ring_mp_enqueue(w->sh->handoff[owner], m) != 0) {
			sy_drop(w, m, SY_DROP_TCP_HANDOFF_FULL);
			return;
		}
		w->counters.handoffs++;
		return;
	}
	tcp_input_owned(w, m);
}

void
sy_tcp6_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	struct rte_tcp_hdr *th;
	unsigned owner, thl;

	if (unlikely(m->data_len < sizeof(*ip6) + sizeof(*th))) {
		sy_drop(w, m, SY_DROP_TCP_MALFORMED);
		return;
	}
	th = (struct rte_tcp_hdr *)(ip6 + 1);
	thl = (th->data_off >> 4) * 4u;
	if (unlikely(thl < sizeof(*th) || m->data_len < sizeof(*ip6) + thl ||
		     rte_be_to_cpu_16(ip6->payload_len) < thl)) {
		sy_drop(w, m, SY_DROP_TCP_MALFORMED);
		return;
	}
	/* The port it came in on: a link-local client is answered there. */
	m->hash.usr = port;
	owner = sy_tcp6_owner(w->sh, ip6->dst_addr, th->dst_port, ip6->src_addr, th->src_port);
	if (owner != w->id) {
		if (rte_ring_mp_enqueue(w->sh->handoff[owner], m) != 0) {
			sy_drop(w, m, SY_DROP_TCP_HANDOFF_FULL);
			return;
		}
		w->counters.handoffs++;
		return;
	}
	tcp6_input_owned(w, m);
}

unsigned
sy_tcp_handoff_drain(struct sy_worker *w)
{
	struct rte_mbuf *pkts[SY_RX_BURST];
	unsigned n, i;

	n = rte_ring_sc_dequeue_burst(w->sh->handoff[w->id], (void **)pkts, SY_RX_BURST, NULL);
	for (i = 0; i < n; i++) {
		const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(pkts[i], const struct rte_ipv6_hdr *);

		/* A Packet Too Big for one of this worker's connections
		 * (tcp_pmtu.c), else a segment. */
		if (sy_seg_is_v6(pkts[i]) && ip6->proto == IPPROTO_ICMPV6)
			sy_tcp_ptb6_handed_off(w, pkts[i]);
		else
			tcp_input_owned(w, pkts[i]);
	}
	return n;
}
