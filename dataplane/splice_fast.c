/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The established-flow fast path: one RX burst at a time, the segments of
 * spliced connections are forwarded without going through the per-packet
 * layers (eth -> ipv4 -> tcp -> flow -> splice -> xlate -> output).
 *
 * What it handles, and only that: an IPv4 frame to the port's own MAC with
 * a 20-byte IPv4 header (no IP options) whose checksum is right, TTL not 0,
 * not a fragment, TCP with a well-formed header, flags ACK without SYN, RST
 * or FIN (PSH, URG, ECE, CWR may be set), belonging to a connection in
 * SPLICED state on which neither side has sent a FIN yet. For those, it does
 * exactly what the per-packet path does (splice.c forward(): last_seen,
 * translation, next hop) and nothing else.
 *
 * Everything else goes to sy_eth_input() unchanged, in its place in the
 * burst: ARP, ICMP, broadcast frames, anything malformed (it is dropped
 * there, with its reason), handshakes, PEEK, CONNECTING, ANSWER, LINGER,
 * FIN and RST (they change state), segments after a FIN (the close logic
 * looks at their ACK), segments for no connection or another worker's.
 *
 * Why the checks the per-packet path makes and this one skips are implied:
 *   - destination is ours, source is not martian, this worker owns the
 *     flow: the segment matches, field for field, a leg of a record in this
 *     worker's tables. That record was made from a segment that passed
 *     those checks (cookie ACK, backend SYN-ACK) with the same tuple, and
 *     ports, addresses and worker count do not change while routerd runs.
 *     A backend segment to a listen address and port is looked up as a
 *     client one (as the ownership rule in tcp_in.c treats it), and falls
 *     back if that misses.
 *   - the TCP checksum: the per-packet path does not verify it on a spliced
 *     flow either; incremental updates carry a bad one through.
 *
 * How: three passes over the burst.
 *   1. Classify each frame and compute where its record is: a client
 *      segment's hash and its flow-cache pair, a backend segment's SNAT
 *      port slot (both prefetched).
 *   2. Client keys through the flow cache (flow.h: one load each), the
 *      rest in one rte_hash_lookup_with_hash_bulk_data(); read the slots;
 *      prefetch every record found.
 *   3. In burst order: re-check the record (a segment earlier in the burst,
 *      on the slow path, may have closed or freed it), translate in place
 *      with incremental checksums, write the Ethernet header from the cached
 *      next hop's MAC, queue for TX. A frame without a usable record goes to
 *      sy_eth_input() here, so the order of a flow's segments is kept.
 *
 * Translation: the common layouts are done inline on whole 32-bit words (no
 * TCP options, or NOP NOP TS as Linux and the BSDs send it); any other
 * option list (SACK blocks, odd offsets) goes through sy_xlate_tcp4(), the
 * same function the per-packet path uses.
 */
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_tcp.h>

#include "arp.h"
#include "flow.h"
#include "l3.h"
#include "splice.h"
#include "worker.h"

#define FAST_PREFETCH_AHEAD 4

/* Frame layout the fast path accepts: Ethernet, 20-byte IPv4, TCP. */
#define FAST_L2 ((unsigned)sizeof(struct rte_ether_hdr))
#define FAST_L3 ((unsigned)sizeof(struct rte_ipv4_hdr))
#define FAST_TH ((unsigned)sizeof(struct rte_tcp_hdr))

/* The first option word of NOP NOP TS(10), and that layout's length. */
#define FAST_TS_WORD RTE_BE32(0x0101080a)
#define FAST_TS_HLEN (FAST_TH + 12)

enum fast_leg {
	LEG_SLOW = 0, /* sy_eth_input() */
	LEG_CLIENT,   /* client -> backend, looked up in the hash */
	LEG_BACKEND,  /* backend -> client, looked up by SNAT port */
};

static inline uint32_t
load32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

/*
 * Ones' complement sums over raw words as they sit in memory: the sum is
 * independent of byte order (RFC 1071 2.(B)), so nothing is swapped. A
 * 32-bit word counts as its two 16-bit halves once folded.
 */
static inline uint16_t
fold(uint64_t s)
{
	uint32_t t;

	/* Adding a word to itself rotated by half its width leaves, in the
	 * upper half, the two halves' sum with the end-around carry (Linux's
	 * csum_fold): 64 to 32 bits, then 32 to 16, three operations each. */
	s = (s + ((s << 32) | (s >> 32))) >> 32;
	t = (uint32_t)s;
	return (uint16_t)((t + ((t << 16) | (t >> 16))) >> 16);
}

/* RFC 1624 eqn. 3, HC' = ~(~HC + sum of (~m + m')), acc holding the sum. */
static inline uint16_t
csum_apply(uint16_t csum, uint64_t acc)
{
	return (uint16_t)~fold((uint16_t)~csum + acc);
}

/* ~old + new of a 32-bit word: what to add to acc for that change. */
static inline uint64_t
delta32(uint32_t old_raw, uint32_t new_raw)
{
	return (uint64_t)(uint32_t)~old_raw + new_raw;
}

/* A network-order 32-bit field += d; returns its contribution to acc. */
static inline uint64_t
add32(void *field, uint32_t d)
{
	uint32_t old_raw = load32(field);
	uint32_t new_raw = rte_cpu_to_be_32(rte_be_to_cpu_32(old_raw) + d);

	memcpy(field, &new_raw, 4);
	return delta32(old_raw, new_raw);
}

/*
 * Is this frame one the fast path may take? Mirrors the checks of
 * sy_eth_input, sy_ipv4_input and sy_tcp_input for the layout above; any
 * "no" sends the frame there, where it gets its verdict and drop reason.
 */
static inline bool
fast_frame(const struct sy_dp_port *p, const struct rte_mbuf *m)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eh + 1);
	const struct rte_tcp_hdr *th = (const struct rte_tcp_hdr *)(ip + 1);
	unsigned tlen, thl;
	uint64_t ck;

	if (unlikely(m->data_len < FAST_L2 + FAST_L3 + FAST_TH))
		return false;
	if (unlikely(!rte_is_same_ether_addr(&eh->dst_addr, &p->mac) ||
		     eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4)))
		return false;
	if (unlikely(ip->version_ihl != RTE_IPV4_VHL_DEF || ip->next_proto_id != IPPROTO_TCP))
		return false;
	/* Handshakes and closes leave first: the rest is their cost twice. */
	if ((th->tcp_flags & (RTE_TCP_SYN_FLAG | RTE_TCP_RST_FLAG | RTE_TCP_FIN_FLAG |
			      RTE_TCP_ACK_FLAG)) != RTE_TCP_ACK_FLAG)
		return false;
	if (unlikely(ip->time_to_live == 0 ||
		     (ip->fragment_offset & RTE_BE16(RTE_IPV4_HDR_MF_FLAG | RTE_IPV4_HDR_OFFSET_MASK))))
		return false;
	tlen = rte_be_to_cpu_16(ip->total_length);
	thl = (th->data_off >> 4) * 4u;
	if (unlikely(thl < FAST_TH || m->data_len < FAST_L2 + FAST_L3 + thl ||
		     tlen < FAST_L3 + thl || tlen > m->pkt_len - FAST_L2))
		return false;
	ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	if (!p->rx_ipv4_cksum || ck == RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN ||
	    ck == RTE_MBUF_F_RX_IP_CKSUM_NONE) {
		/* A header that includes a correct checksum sums to 0xffff. */
		const uint8_t *h = (const uint8_t *)ip;

		if (unlikely(fold((uint64_t)load32(h) + load32(h + 4) + load32(h + 8) +
				  load32(h + 12) + load32(h + 16)) != 0xffff))
			return false;
	} else if (unlikely(ck != RTE_MBUF_F_RX_IP_CKSUM_GOOD)) {
		return false;
	}
	return true;
}

/* The record, if the segment still belongs on the fast path. */
static inline bool
fast_conn_ok(const struct sy_conn *c, const struct rte_ipv4_hdr *ip, const struct rte_tcp_hdr *th,
	     enum fast_leg leg)
{
	if (c->state != SY_CONN_SPLICED || (c->flags & (SY_CF_FIN_CLIENT | SY_CF_FIN_BACKEND)))
		return false;
	if (leg == LEG_CLIENT)
		return c->client_ip == ip->src_addr && c->client_port == th->src_port &&
		       c->vip == ip->dst_addr && c->vip_port == th->dst_port;
	return c->backend_ip == ip->src_addr && c->backend_port == th->src_port &&
	       c->snat_ip == ip->dst_addr && c->snat_port == th->dst_port;
}

/*
 * Translate in place (SPLICE.md, "Numbers to translate"): the same result as
 * sy_xlate_tcp4() with sy_xlate_to_backend() / sy_xlate_to_client(). Only
 * for ACK segments without SYN (fast_frame). Returns -1 when the options
 * are malformed.
 */
static inline int
fast_xlate(const struct sy_conn *c, struct rte_ipv4_hdr *ip, struct rte_tcp_hdr *th, unsigned thl,
	   bool from_client)
{
	uint8_t *t = (uint8_t *)th;
	uint32_t before, new_src, new_dst;
	uint64_t ip_acc, tcp_acc;
	struct sy_xlate x;

	if (thl != FAST_TH && (thl != FAST_TS_HLEN || load32(t + FAST_TH) != FAST_TS_WORD)) {
		/* SACK blocks and other layouts: the general translation. */
		if (from_client)
			sy_xlate_to_backend(c, &x);
		else
			sy_xlate_to_client(c, &x);
		return sy_xlate_tcp4(ip, th, &x);
	}

	new_src = from_client ? c->snat_ip : c->vip;
	new_dst = from_client ? c->backend_ip : c->client_ip;
	/* Addresses: in the IPv4 header and the TCP pseudo-header alike. */
	ip_acc = delta32(ip->src_addr, new_src) + delta32(ip->dst_addr, new_dst);
	ip->src_addr = new_src;
	ip->dst_addr = new_dst;
	ip->hdr_checksum = csum_apply(ip->hdr_checksum, ip_acc);

	before = load32(t);
	if (from_client) {
		th->src_port = c->snat_port;
		th->dst_port = c->backend_port;
	} else {
		th->src_port = c->vip_port;
		th->dst_port = c->client_port;
	}
	tcp_acc = ip_acc + delta32(before, load32(t));

	if (from_client) {
		/* ack and TSecr back into the backend's spaces. */
		tcp_acc += add32(&th->recv_ack, -c->d_seq);
		if (thl == FAST_TS_HLEN)
			tcp_acc += add32(t + FAST_TH + 8, -c->d_ts);
	} else {
		/* seq and TSval forward into ours; the window to our scale. */
		tcp_acc += add32(&th->sent_seq, c->d_seq);
		if (thl == FAST_TS_HLEN)
			tcp_acc += add32(t + FAST_TH + 4, c->d_ts);
		if (c->win_shift_b != c->win_shift_r) {
			uint16_t old = th->rx_win;

			th->rx_win = rte_cpu_to_be_16(sy_win_rescale(rte_be_to_cpu_16(old),
								     c->win_shift_b,
								     c->win_shift_r));
			tcp_acc += (uint16_t)~old + (uint64_t)th->rx_win;
		}
	}
	th->cksum = csum_apply(th->cksum, tcp_acc);
	return 0;
}

/* A record's forwarding fields (its first line's worth, conn.h): records are
 * packed in their pool, so they may straddle two lines. */
static inline void
prefetch_record(const void *c)
{
	rte_prefetch0(c);
	rte_prefetch0((const uint8_t *)c + 63);
}

/* The next hop's MAC, remembered per output port for the rest of the
 * burst (ARP changes only on the slow path, which forgets it). */
struct nh_memo {
	uint32_t ip;
	const struct rte_ether_addr *mac;
};

/* Returns 1 when m was forwarded (or is held by ARP), 0 when dropped. */
static inline unsigned
fast_forward(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, bool from_client,
	     struct nh_memo *memo)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(ip + 1);
	uint16_t tlen = rte_be_to_cpu_16(ip->total_length);
	uint16_t out = from_client ? c->backend_if : c->client_if;
	uint32_t nh = from_client ? c->backend_nh : c->client_nh;
	struct nh_memo *mm = &memo[out];

	c->last_seen = w->now;
	if (unlikely(fast_xlate(c, ip, th, (th->data_off >> 4) * 4u, from_client) < 0)) {
		sy_drop(w, m, SY_DROP_SPLICE_XLATE_FAILED);
		return 0;
	}
	/* As sy_ipv4_input and sy_ipv4_output_nh leave it: padding cut, the
	 * headers' lengths, only the buffer ownership flags. */
	if (m->pkt_len > FAST_L2 + tlen)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - FAST_L2 - tlen));
	m->l2_len = FAST_L2;
	m->l3_len = FAST_L3;
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	rte_ether_addr_copy(&w->sh->ports[out].mac, &eh->src_addr);
	if (mm->mac == NULL || mm->ip != nh) {
		mm->ip = nh;
		mm->mac = sy_arp_lookup(w, out, nh);
		if (mm->mac == NULL) {
			/* Unresolved: ARP holds it and asks, as on the slow path.
			 * That may take over a table entry another port's memo
			 * points at: forget them all. */
			memset(&eh->dst_addr, 0, sizeof(eh->dst_addr));
			sy_arp_output(w, out, nh, m);
			memset(memo, 0, sizeof(*memo) * SY_MAX_PORTS);
			return 1;
		}
	}
	rte_ether_addr_copy(mm->mac, &eh->dst_addr);
	sy_tx(w, out, m);
	return 1;
}

void
sy_splice_rx_burst(struct sy_worker *w, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	const struct sy_dp_shared *sh = w->sh;
	const struct sy_dp_port *p = &sh->ports[port];
	struct sy_tcp_worker *t = &w->tcp;
	struct sy_flow_key keys[SY_RX_BURST];
	const void *keyp[SY_RX_BURST];
	hash_sig_t sig[SY_RX_BURST];
	void *found[SY_RX_BURST];
	struct sy_conn **slot[SY_RX_BURST];
	uint64_t *pair[SY_RX_BURST];
	struct sy_conn *conn[SY_RX_BURST];
	uint8_t leg[SY_RX_BURST], key_of[SY_RX_BURST];
	struct nh_memo memo[SY_MAX_PORTS] = { { 0, NULL } };
	uint64_t bytes = 0, hits = 0;
	unsigned i, nk = 0, nm = 0, fast = 0;
	bool memo_stale = false;

	RTE_ASSERT(n <= SY_RX_BURST);
	for (i = 0; i < n && i < FAST_PREFETCH_AHEAD; i++)
		rte_prefetch0(rte_pktmbuf_mtod(pkts[i], void *));

	/* 1: classify; where each record is. */
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		const struct rte_ipv4_hdr *ip;
		const struct rte_tcp_hdr *th;

		if (i + FAST_PREFETCH_AHEAD < n)
			rte_prefetch0(rte_pktmbuf_mtod(pkts[i + FAST_PREFETCH_AHEAD], void *));
		bytes += m->pkt_len;
		conn[i] = NULL;
		if (!fast_frame(p, m)) {
			leg[i] = LEG_SLOW;
			continue;
		}
		ip = rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, FAST_L2);
		th = (const struct rte_tcp_hdr *)(ip + 1);
		slot[i] = NULL;
		if (rte_be_to_cpu_16(th->dst_port) >= SY_SNAT_PORT_MIN)
			slot[i] = &t->snat_conn[rte_reciprocal_divide(rte_be_to_cpu_16(th->dst_port),
								      t->snat_div)];
		if (sy_is_listen(sh, ip->dst_addr, th->dst_port)) {
			/* A listen port in the SNAT range that is some record's
			 * SNAT port: sy_flow_find() decides, as it tries that
			 * leg first. */
			if (unlikely(slot[i] != NULL && *slot[i] != NULL)) {
				leg[i] = LEG_SLOW;
				continue;
			}
			leg[i] = LEG_CLIENT;
			sig[nk] = sy_flow_hash_v4(ip->src_addr, ip->dst_addr, th->src_port,
						  th->dst_port);
			pair[nk] = sy_flow_cache_pair(t, sig[nk]);
			rte_prefetch0(pair[nk]);
			key_of[nk++] = (uint8_t)i;
		} else if (likely(slot[i] != NULL)) {
			leg[i] = LEG_BACKEND;
			rte_prefetch0(slot[i]);
		} else {
			leg[i] = LEG_SLOW; /* not a SNAT port: no record has it */
		}
	}
	w->counters.rx_bytes += bytes;

	/* 2: the records, fetched while the next pass starts. Client keys
	 * through the cache (flow.h); those it does not have, through the
	 * hash in one bulk lookup. */
	for (i = 0; i < nk; i++) {
		struct sy_conn *c = sy_flow_cache_find(pair[i], sig[i]);

		if (c != NULL) {
			conn[key_of[i]] = c;
			prefetch_record(c);
			continue;
		}
		{
			/* The key, for the hash: only for those the cache missed. */
			const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod_offset(
				pkts[key_of[i]], const struct rte_ipv4_hdr *, FAST_L2);
			const struct rte_tcp_hdr *th = (const struct rte_tcp_hdr *)(ip + 1);

			sy_flow_key_v4(&keys[nm], ip->src_addr, ip->dst_addr, th->src_port,
				       th->dst_port);
		}
		keyp[nm] = &keys[nm];
		sig[nm] = sig[i];
		key_of[nm++] = key_of[i];
	}
	if (nm > 0 && rte_hash_lookup_with_hash_bulk_data(t->flows, keyp, sig, nm, &hits, found) > 0) {
		for (i = 0; i < nm; i++)
			if (hits & (1ull << i)) {
				conn[key_of[i]] = found[i];
				prefetch_record(found[i]);
			}
	}
	for (i = 0; i < n; i++)
		if (leg[i] == LEG_BACKEND && (conn[i] = *slot[i]) != NULL)
			prefetch_record(conn[i]);

	/* 3: in order. */
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		struct sy_conn *c = conn[i];

		if (c != NULL) {
			const struct rte_ipv4_hdr *ip =
				rte_pktmbuf_mtod_offset(m, const struct rte_ipv4_hdr *, FAST_L2);

			if (likely(fast_conn_ok(c, ip, (const struct rte_tcp_hdr *)(ip + 1),
						(enum fast_leg)leg[i]))) {
				if (unlikely(memo_stale)) {
					memset(memo, 0, sizeof(memo));
					memo_stale = false;
				}
				fast += fast_forward(w, c, m, leg[i] == LEG_CLIENT, memo);
				continue;
			}
		}
		sy_eth_input(w, port, m);
		/* It may have been ARP: look the next hops up again. */
		memo_stale = true;
	}
	w->counters.fast_forwarded += fast;
}
