/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ICMPv6 Packet Too Big for a segment of ours (RFC 4443 3.2, RFC 8201):
 * routers never fragment IPv6, so a segment larger than a link on the way
 * is dropped there and its sender told the link's MTU. What the router does
 * with that depends on who made the segment:
 *   - its own TCP (a proxied leg, tcb.h): that leg's MSS comes down to the
 *     MTU less 60 bytes of headers and its options (the MTU never below
 *     IPv6's 1280), and the next segments, retransmissions included, are
 *     cut to it;
 *   - a spliced connection's other endpoint (splice.h): the router cannot
 *     cut someone else's segments, so it tells that endpoint in its own
 *     family, quoting the segment as the endpoint sent it (its addresses,
 *     ports and sequence number before translation, so its stack finds the
 *     connection): a Packet Too Big to an IPv6 endpoint, an ICMPv4
 *     "fragmentation needed" (RFC 1191) with 20 bytes less to an IPv4 one,
 *     whose segments grow by that much on their way into IPv6.
 * The message quotes our segment: the connection is found by that tuple
 * (from the peer's side, as its segments arrive), on its owner's worker.
 * Anything else is dropped with its reason; nothing is ever forwarded.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_ring.h>
#include <rte_tcp.h>

#include "conn/conn.h"
#include "net/cksum.h"
#include "net/net.h"
#include "proxy/proxy.h"
#include "splice/splice.h"
#include "tcp/tcb.h"
#include "tcp/tcp.h"
#include "worker.h"

#define PTB_MIN_MTU 1280 /* IPv6's minimum link MTU (RFC 8200 5) */
#define TCP_MIN_MSS6 (PTB_MIN_MTU - 60)
#define ICMP6_PTB_HDR 8  /* type, code, checksum, MTU */
#define ICMP4_DEST_UNREACH 3
#define ICMP4_FRAG_NEEDED 4

/* Our segment as the message quotes it: its IPv6 header and the first 8
 * bytes of TCP (ports and sequence number), all a router must return. */
struct ptb_quote {
	const struct rte_ipv6_hdr *ip6;
	uint16_t sport, dport; /* ours, the peer's (network order) */
	uint32_t seq;          /* host order */
	uint32_t mtu;
};


/* Lower a TCB's MSS to what the path takes. Its mss counts payload only,
 * the timestamp option's 12 bytes already taken off (tcb_in.c), so here
 * too. */
static void
tcb_lower_mss(struct sy_worker *w, struct sy_tcb *t, uint32_t mtu)
{
	uint32_t mss = RTE_MAX(mtu - 60, (uint32_t)TCP_MIN_MSS6) - ((t->flags & SY_TCB_F_TS) ? 12 : 0);

	if (mss < t->mss) {
		t->mss = (uint16_t)mss;
		w->counters.pmtu_lowered++;
	}
}

/* The quoted first 8 bytes of a TCP header: ports and sequence number. */
static void
put_tcp8(uint8_t *p, uint16_t sport, uint16_t dport, uint32_t seq)
{
	rte_be32_t s = rte_cpu_to_be_32(seq);

	memcpy(p, &sport, 2);
	memcpy(p + 2, &dport, 2);
	memcpy(p + 4, &s, 4);
}

/*
 * Tell the endpoint of leg `o` of spliced connection c that its segment
 * with sequence number seq (its own space) met a path of mtu bytes once
 * translated into IPv6.
 */
static void
relay(struct sy_worker *w, struct sy_conn *c, enum sy_leg o, uint32_t seq, uint32_t mtu)
{
	struct sy_seg s;
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->sh->pool);
	bool v6 = o == SY_LEG_CLIENT ? sy_conn_client_v6(c) : sy_conn_backend_v6(c);
	uint16_t peer_port, our_port;
	uint8_t *p;

	if (m == NULL) {
		w->counters.drops[SY_DROP_NO_MBUF]++;
		return;
	}
	/* Our addresses and ports on leg o, the router as the sender. */
	sy_seg_on_leg(&w->tcp, c, o, &s);
	our_port = s.sport;
	peer_port = s.dport;
	if (v6) {
		struct rte_ipv6_hdr *ip6, *q;
		const uint32_t len = ICMP6_PTB_HDR + sizeof(*q) + 8;

		p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(sizeof(*ip6) + len));
		if (p == NULL) {
			rte_pktmbuf_free(m);
			w->counters.drops[SY_DROP_NO_MBUF]++;
			return;
		}
		memset(p, 0, sizeof(*ip6) + len);
		ip6 = (struct rte_ipv6_hdr *)p;
		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)len);
		ip6->proto = IPPROTO_ICMPV6;
		ip6->hop_limits = 255;
		memcpy(ip6->src_addr, s.saddr6, 16);
		memcpy(ip6->dst_addr, s.daddr6, 16);
		p += sizeof(*ip6);
		p[0] = 2; /* Packet Too Big */
		{
			rte_be32_t v = rte_cpu_to_be_32(mtu);

			memcpy(p + 4, &v, 4);
		}
		/* The endpoint's segment: from it to us, as large as the path
		 * did not take. */
		q = (struct rte_ipv6_hdr *)(p + ICMP6_PTB_HDR);
		q->vtc_flow = rte_cpu_to_be_32(6u << 28);
		q->payload_len = rte_cpu_to_be_16((uint16_t)(mtu + 1 - sizeof(*q)));
		q->proto = IPPROTO_TCP;
		q->hop_limits = 64;
		memcpy(q->src_addr, s.daddr6, 16);
		memcpy(q->dst_addr, s.saddr6, 16);
		put_tcp8((uint8_t *)(q + 1), peer_port, our_port, seq);
		{
			uint16_t sum = sy_icmp6_sum(m, sizeof(*ip6), len);

			sum = (uint16_t)~sum;
			memcpy(p + 2, &sum, 2);
		}
		w->counters.ptb_relayed++;
		sy_ipv6_output(w, s.out_if, m);
		return;
	}
	{
		struct rte_ipv4_hdr *ip, *q;
		struct rte_icmp_hdr *icmp;
		const uint32_t len = sizeof(*icmp) + sizeof(*q) + 8;
		uint32_t mtu4 = mtu - 20; /* its segments grow by 20 bytes into IPv6 */
		uint16_t sum;

		p = (uint8_t *)rte_pktmbuf_append(m, (uint16_t)(sizeof(*ip) + len));
		if (p == NULL) {
			rte_pktmbuf_free(m);
			w->counters.drops[SY_DROP_NO_MBUF]++;
			return;
		}
		memset(p, 0, sizeof(*ip) + len);
		ip = (struct rte_ipv4_hdr *)p;
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + len));
		ip->time_to_live = SY_IPV4_DEFAULT_TTL;
		ip->next_proto_id = IPPROTO_ICMP;
		ip->src_addr = s.saddr;
		ip->dst_addr = s.daddr;
		icmp = (struct rte_icmp_hdr *)(ip + 1);
		icmp->icmp_type = ICMP4_DEST_UNREACH;
		icmp->icmp_code = ICMP4_FRAG_NEEDED;
		/* RFC 1191 4: the next-hop MTU in the low 16 bits of the
		 * second word (icmp_seq_nb's place). */
		icmp->icmp_seq_nb = rte_cpu_to_be_16((uint16_t)mtu4);
		q = (struct rte_ipv4_hdr *)(icmp + 1);
		q->version_ihl = RTE_IPV4_VHL_DEF;
		q->total_length = rte_cpu_to_be_16((uint16_t)(mtu4 + 1));
		q->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
		q->time_to_live = 64;
		q->next_proto_id = IPPROTO_TCP;
		q->src_addr = s.daddr;
		q->dst_addr = s.saddr;
		q->hdr_checksum = rte_ipv4_cksum(q);
		put_tcp8((uint8_t *)(q + 1), peer_port, our_port, seq);
		sum = sy_cksum_fold(sy_cksum_add(0, icmp, len));
		icmp->icmp_cksum = (uint16_t)~sum;
		w->counters.ptb_relayed++;
		sy_ipv4_output(w, m);
	}
}

/* The message, on the worker that owns the connection it names. */
static void
ptb_owned(struct sy_worker *w, struct rte_mbuf *m, const struct ptb_quote *q)
{
	struct sy_flow_key6 k;
	struct sy_conn *c;
	enum sy_leg leg;

	/* The connection's tuple as its peer's segments arrive. */
	sy_flow_key_v6(&k, q->ip6->dst_addr, q->ip6->src_addr, q->dport, q->sport);
	c = sy_flow_lookup6(w, &k);
	if (c == NULL) {
		sy_drop(w, m, SY_DROP_ICMP6_PTB_NO_FLOW);
		return;
	}
	leg = sy_conn_client_v6(c) && q->dport == c->client_port &&
			      memcmp(q->ip6->dst_addr, sy_conn_v6_of(&w->tcp, c)->client, 16) == 0
		      ? SY_LEG_CLIENT
		      : SY_LEG_BACKEND;
	w->counters.ptb_received++;
	if (c->state == SY_CONN_PROXY && leg == SY_LEG_CLIENT && c->px != NULL)
		tcb_lower_mss(w, &c->px->c, q->mtu);
	else if (c->state == SY_CONN_PROXY_BE && c->px != NULL)
		tcb_lower_mss(w, &c->px->b, q->mtu);
	else if (c->flags & SY_CF_SPLICED) {
		/* Our segment on `leg` came from the other leg's endpoint, its
		 * sequence number moved by that leg's delta. */
		enum sy_leg o = leg == SY_LEG_CLIENT ? SY_LEG_BACKEND : SY_LEG_CLIENT;

		relay(w, c, o, q->seq - c->seq_delta[o], q->mtu);
	}
	/* Else our own handshake or answer segments, small: nothing to do. */
	rte_pktmbuf_free(m); /* consumed, not dropped */
}

/* The quote of a message (data at its IPv6 header; the ICMPv6 message at
 * off, len bytes): 0, or -1 when it names no TCP segment of ours. */
static int
ptb_quote(struct sy_worker *w, uint16_t port, const struct rte_mbuf *m, uint32_t off, uint32_t len,
	  struct ptb_quote *q)
{
	const uint8_t *icmp = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	const uint8_t *th;
	rte_be32_t v;

	if (len < ICMP6_PTB_HDR + sizeof(struct rte_ipv6_hdr) + 8 ||
	    m->data_len < off + ICMP6_PTB_HDR + sizeof(struct rte_ipv6_hdr) + 8)
		return -1;
	memcpy(&v, icmp + 4, 4);
	/* RFC 8201 4: a path never goes below IPv6's minimum. */
	q->mtu = RTE_MAX(rte_be_to_cpu_32(v), (uint32_t)PTB_MIN_MTU);
	q->ip6 = (const struct rte_ipv6_hdr *)(icmp + ICMP6_PTB_HDR);
	/* Our segments carry no extension headers. */
	if ((rte_be_to_cpu_32(q->ip6->vtc_flow) >> 28) != 6 || q->ip6->proto != IPPROTO_TCP ||
	    !sy_ipv6_is_ours(&w->sh->ports[port], q->ip6->src_addr))
		return -1;
	th = (const uint8_t *)(q->ip6 + 1);
	memcpy(&q->sport, th, 2);
	memcpy(&q->dport, th + 2, 2);
	memcpy(&v, th + 4, 4);
	q->seq = rte_be_to_cpu_32(v);
	return 0;
}

void
sy_tcp_ptb6_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m, uint32_t off,
		  uint32_t len)
{
	struct ptb_quote q;
	unsigned owner;

	if (ptb_quote(w, port, m, off, len, &q) < 0) {
		sy_drop(w, m, SY_DROP_ICMP6_PTB_NOT_OURS);
		return;
	}
	/* Our segment's source is ours, its destination the peer. */
	owner = sy_tcp6_owner(w->sh, q.ip6->src_addr, q.sport, q.ip6->dst_addr, q.dport);
	if (owner != w->id) {
		/* The owner's hand-off ring: its drain tells an ICMPv6
		 * message from a segment (sy_tcp_handoff_drain). */
		m->hash.usr = port;
		m->l3_len = (uint16_t)off;
		if (rte_ring_mp_enqueue(w->sh->handoff[owner], m) != 0) {
			sy_drop(w, m, SY_DROP_TCP_HANDOFF_FULL);
			return;
		}
		w->counters.handoffs++;
		return;
	}
	ptb_owned(w, m, &q);
}

void
sy_tcp_ptb6_handed_off(struct sy_worker *w, struct rte_mbuf *m)
{
	const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	struct ptb_quote q;

	if (ptb_quote(w, (uint16_t)m->hash.usr, m, m->l3_len,
		      sizeof(*ip6) + rte_be_to_cpu_16(ip6->payload_len) - m->l3_len, &q) < 0) {
		sy_drop(w, m, SY_DROP_ICMP6_PTB_NOT_OURS);
		return;
	}
	ptb_owned(w, m, &q);
}
