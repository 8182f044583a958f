/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The established-flow fast path: one RX burst at a time, the segments of
 * spliced connections are forwarded without going through the per-packet
 * layers (eth -> ipv4 -> tcp -> flow -> splice -> xlate -> output).
 *
 * What it handles, and only that: an IPv4 frame to the port's own MAC with
 * a 20-byte IPv4 header (no IP options) whose checksum is right, TTL not 0,
 * not a fragment, or an IPv6 frame to it and to one of the port's IPv6
 * addresses whose fixed header is followed by TCP (no extension headers)
 * and whose payload fits the frame; TCP with a well-formed header, flags ACK without
 * SYN, RST or FIN (PSH, URG, ECE, CWR may be set), belonging to a
 * connection in SPLICED state on which neither side has sent a FIN yet.
 * Either leg of the connection may be of either family: 4to4, 6to6, 6to4,
 * 4to6. For those, it does exactly what the per-packet path does (splice.c
 * forward() and xlate_send(): last_seen, translation, next hop) and nothing
 * else; the hop limit, like the TTL, is left as it came.
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
 *     A segment to a listen port is looked up as a client one (as the
 *     ownership rule in tcp_in.c treats it); records exist only for listen
 *     addresses, so one to another address misses and falls back, and so
 *     does one to a listen port that is also some record's SNAT port.
 *   - the TCP checksum: the per-packet path does not verify it on a spliced
 *     flow either; incremental updates carry a bad one through.
 *
 * How: one loop over the burst, three stages a few frames apart, so what a
 * stage prefetched has arrived when the next one reads it:
 *   1. Classify frame i with a few word loads and one branch, and compute
 *      where its record is: a client segment's hash (CRC-32C of the two
 *      words a flow key is made of, loaded straight from the headers) and
 *      its flow-cache pair, a backend segment's SNAT port slot; prefetch it.
 *      An IPv6 frame (by its ethertype, on a port and worker with IPv6
 *      legs: the IPv4 lane pays that compare, and an IPv6 frame no IPv4
 *      checks) is classified the same way: to a SNAT port,
 *      its slot (the row of the destination's index among the port's
 *      IPv6 addresses, conn/snat.h); else its 48-byte key hashed from the
 *      words loaded from the headers (CRC-32C, as the IPv6 hash does; the
 *      key is written out only if the cache misses) and its flow-cache
 *      pair.
 *   2. FAST_RESOLVE_LAG frames behind: read that pair (conn/flow_table.h: one load; a
 *      key the cache does not have goes to the hash of its family) or slot,
 *      and prefetch the record (and its IPv6 side, the next line, for an IPv6
 *      frame, or an IPv4 backend frame whose slot says the record has an
 *      IPv6 leg: conn/flow_table.h, SY_SNAT_SLOT_V6).
 *   3. Twice that behind, in burst order: check the record (a frame earlier
 *      in the burst, on the slow path, may have closed or freed it, or
 *      reused it for another flow), translate in place with incremental
 *      checksums, write the Ethernet header from the next hop's, queue for
 *      TX. A frame without a usable record goes to sy_eth_input() here, so
 *      the order of a flow's segments is kept. What stage 2 read before
 *      such a frame ran can only be stale towards "not on the fast path".
 *      A record with an IPv6 leg (SY_CF_V6) fails the IPv4 check and is
 *      checked again by the frame's family: an IPv4 frame on an IPv4 leg
 *      (fast_conn4to6_ok), an IPv6 frame on an IPv6 leg (fast_conn6_ok;
 *      which one: the 16-byte addresses and ports, the client leg's first,
 *      as sy_tcp6_input).
 *
 * Legs: a record keeps each leg's (source, destination) addresses and ports
 * as that leg's segments carry them (conn.h). A segment matches its leg with
 * one 8-byte and one 4-byte compare, and its translated addresses and ports
 * are the other leg's, swapped: client -> listen becomes snat -> backend,
 * backend -> snat becomes listen -> client. A swap leaves a ones' complement
 * sum unchanged, so the checksum change of rewriting all four fields is the
 * same for every segment of a leg: the record keeps it (csum_ip, csum_tcp),
 * and the other leg's is its complement.
 *
 * Translation: the common layouts are done inline on whole 32-bit words (no
 * TCP options, or NOP NOP TS as Linux and the BSDs send it); any other
 * option list (SACK blocks, odd offsets) goes through sy_xlate_tcp4() or,
 * with an IPv6 leg, splice_xlate46.c's functions, the ones the per-packet
 * path uses.
 *
 * IPv6 legs: a record's IPv6 addresses are in its IPv6 side, the lines after
 * it (conn/conn_t.h, struct sy_conn_v6; conn/conn_tables_t.h: one slot, so
 * that the two lines a segment reads are neighbours, not two misses apart),
 * each leg's pair as one 32-byte run,
 * both legs' in one line, so the same "other leg's pair, swapped" holds
 * (a leg's next hop is its peer unless SY_V6_*_GW says it is in the next
 * line: on-link legs, the usual case, touch one line of it); its
 * csum_tcp counts them (the two families' pseudo-headers differ only in
 * the addresses), so the TCP checksum changes by the record's number whichever families the legs
 * are. Within IPv6 the addresses are rewritten in place; across the
 * families the IP header is replaced by the layout splice_xlate.h builds
 * for both paths (sy_xlate_ipv4_hdr, sy_xlate_ipv6_hdr), the frame 20 bytes
 * shorter or longer, the TCP header left where it is. The next hop's
 * Ethernet address comes from ARP or neighbour discovery by the outgoing
 * leg's family. An IPv6 frame with an inline layout has a lane of its own
 * inlined into the burst loop, fast_forward6to6: through fast_forward46's
 * general code 6to6 cost 58 cycles a packet where IPv4 costs 52, inline 50
 * (perf/journal/splice_bench.md). 6to4 and 4to6 have functions of their
 * own (fast_forward6to4, fast_forward4to6), called.
 */
#include <rte_byteorder.h>
#include <rte_common.h>
#include <rte_ether.h>
#include <rte_hash.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_prefetch.h>
#include <rte_tcp.h>
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_1__)
#include <smmintrin.h>
#endif

#include "net/arp.h"
#include "net/fib.h"
#include "net/nd.h"
#include "conn/conn.h"
#include "net/net.h"
#include "proxy/proxy.h"
#include "splice/splice.h"
#include "tcp/tcp.h"
#include "worker.h"

/* The helpers the IPv4 lane shares with the IPv6 one are always inlined:
 * with two callers gcc otherwise calls them, and the IPv4 lane must cost
 * what it did alone. The IPv6 lane's forwarding (fast_forward46) is never
 * inlined, so the loop holds little of the IPv6 lane's code. */
#define FAST_PREFETCH_AHEAD 4
/* sy_splice_rx_burst keeps a bit a frame in one word. */
_Static_assert(SY_RX_BURST <= 64, "a burst's frames fit a 64-bit mask");
/* Frames between the stages (How, above). */
#define FAST_RESOLVE_LAG 8u

/* Frame layout the fast path accepts: Ethernet, 20-byte IPv4, TCP. Offsets
 * from the start of the frame. */
#define FAST_L2 14u
#define FAST_L3 20u
#define FAST_TH 20u
#define OFF_ETHERTYPE 12u                   /* ethertype, version/IHL, TOS */
#define OFF_FRAG (FAST_L2 + 6)              /* fragment field, TTL, protocol */
#define OFF_ADDRS (FAST_L2 + 12)            /* source, destination address */
#define OFF_PORTS (FAST_L2 + FAST_L3)       /* source, destination port */
#define OFF_DATA_OFF (FAST_L2 + FAST_L3 + 12) /* data offset, flags */

/* The IPv6 layout: the same Ethernet header, a 40-byte IPv6 header with TCP
 * as its next header (no extension headers), TCP. */
#define FAST_L3_6 40u
#define OFF6_PLEN (FAST_L2 + 4)                 /* payload length, next header, hop limit */
#define OFF6_ADDRS (FAST_L2 + 8)                /* source, destination address */
#define OFF6_PORTS (FAST_L2 + FAST_L3_6)        /* source, destination port */
#define OFF6_DATA_OFF (FAST_L2 + FAST_L3_6 + 12) /* data offset, flags */

/* The first option word of NOP NOP TS(10), and that layout's length. */
#define FAST_TS_WORD RTE_BE32(0x0101080a)
#define FAST_TS_HLEN (FAST_TH + 12)

/* What the words above must hold, under their masks (network order):
 * IPv4 without options; not a fragment, TCP; ACK without SYN, RST, FIN. */
#define ETH_IP_MASK RTE_BE32(0xffffff00)
#define ETH_IP_WANT RTE_BE32((RTE_ETHER_TYPE_IPV4 << 16) | (RTE_IPV4_VHL_DEF << 8))
#define FRAG_PROTO_MASK RTE_BE32(0x3fff00ff)
#define FRAG_PROTO_WANT RTE_BE32(IPPROTO_TCP)
#define TTL_MASK RTE_BE32(0x0000ff00)
/* IPv6: the ethertype and the version; next header TCP. */
#define ETH_IP6_MASK RTE_BE32(0xfffff000)
#define ETH_IP6_WANT RTE_BE32(((uint32_t)RTE_ETHER_TYPE_IPV6 << 16) | (6u << 12))
#define NH_MASK RTE_BE32(0x0000ff00)
#define NH_WANT RTE_BE32(IPPROTO_TCP << 8)
#define FLAGS_MASK \
	RTE_BE16(RTE_TCP_SYN_FLAG | RTE_TCP_RST_FLAG | RTE_TCP_FIN_FLAG | RTE_TCP_ACK_FLAG)
#define FLAGS_WANT RTE_BE16(RTE_TCP_ACK_FLAG)

/* Legs: the index of the leg's pair in the record (conn.h), client first. */
enum fast_leg {
	LEG_CLIENT = SY_LEG_CLIENT,   /* client -> listen address: the hash */
	LEG_BACKEND = SY_LEG_BACKEND, /* backend -> SNAT address: the SNAT port's slot */
	LEG_SLOW,                     /* sy_eth_input() */
	LEG_V6,                       /* an IPv6 frame, either leg: the IPv6 hash */
	LEG_V6_SNAT,                  /* an IPv6 frame to a SNAT port: that port's slot */
};

static inline uint16_t
load16(const void *p)
{
	uint16_t v;

	memcpy(&v, p, 2);
	return v;
}

static inline uint32_t
load32(const void *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t
load64(const void *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* The two halves of a word, swapped, as they lie in memory. */
static inline uint64_t
swap_halves64(uint64_t v)
{
	return (v << 32) | (v >> 32);
}

static inline uint32_t
swap_halves32(uint32_t v)
{
	return (v << 16) | (v >> 16);
}

/* A leg's (source, destination) addresses and ports from the record. */
static inline uint64_t
leg_addrs(const struct sy_conn *c, unsigned leg)
{
	return load64((const uint8_t *)&c->client_ip + 8 * leg);
}

static inline uint32_t
leg_ports(const struct sy_conn *c, unsigned leg)
{
	return load32((const uint8_t *)&c->client_port + 4 * leg);
}

/*
 * Ones' complement sums over raw words as they sit in memory: the sum is
 * independent of byte order (RFC 1071 2.(B)), so nothing is swapped. A
 * 32-bit word counts as its two 16-bit halves once folded, a 64-bit word as
 * its four.
 */
static inline uint64_t
oc_add64(uint64_t a, uint64_t b)
{
	uint64_t s;

	/* The end-around carry: add, then add the carry out (add, adc). */
	return s = a + b, s + (s < a);
}

/* 64 bits to 32 with the end-around carry: the upper half of a word plus
 * itself rotated by half its width is the sum of its halves (Linux's
 * csum_fold, one size up). */
static inline uint64_t
fold32(uint64_t s)
{
	return (s + swap_halves64(s)) >> 32;
}

/* 32 bits to 16, the same way. */
static inline uint16_t
fold16(uint32_t t)
{
	return (uint16_t)((t + swap_halves32(t)) >> 16);
}

static inline uint16_t
fold(uint64_t s)
{
	return fold16((uint32_t)fold32(s));
}

/* RFC 1624 eqn. 3, HC' = ~(~HC + sum of (~m + m')), acc holding the sum
 * (below 2^63: a few 32-bit terms). */
static inline uint16_t
csum_apply(uint16_t csum, uint64_t acc)
{
	return (uint16_t)~fold((uint16_t)~csum + acc);
}

/* The same for one 16-bit change d (a record's, conn.h). */
static inline uint16_t
csum_apply16(uint16_t csum, uint16_t d)
{
	return (uint16_t)~fold16((uint32_t)(uint16_t)~csum + d);
}

/* A network-order 32-bit field += d; returns its ~m + m' for acc. */
static inline uint64_t
add32(uint8_t *field, uint32_t d)
{
	uint32_t old_raw = load32(field);
	uint32_t new_raw = rte_cpu_to_be_32(rte_be_to_cpu_32(old_raw) + d);

	memcpy(field, &new_raw, 4);
	return (uint64_t)(uint32_t)~old_raw + new_raw;
}

/* A MAC address as the first six bytes of an 8-byte load would see it;
 * MAC_MASK keeps those six. Built from two loads, not a copy into a zeroed
 * word: reading that word back would wait for both stores to retire. */
#define MAC_MASK RTE_BE64(0xffffffffffff0000ull)

static inline uint64_t
mac_word(const struct rte_ether_addr *mac)
{
	uint64_t lo = load32(mac->addr_bytes), hi = load16(mac->addr_bytes + 4);

#if RTE_BYTE_ORDER == RTE_LITTLE_ENDIAN
	return lo | (hi << 32);
#else
	return (lo << 32) | (hi << 16);
#endif
}

/*
 * Is this frame one the fast path may take? The checks of sy_eth_input,
 * sy_ipv4_input and sy_tcp_input for the layout above, as masked compares of
 * a few words and one branch; any "no" sends the frame there, where it gets
 * its verdict and drop reason.
 */
static inline bool
fast_frame(const struct sy_dp_port *p, uint64_t mac, const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *ip = f + FAST_L2;
	unsigned thl, tlen;
	uint64_t bad, ck;
	uint32_t frag;

	if (unlikely(m->data_len < FAST_L2 + FAST_L3 + FAST_TH))
		return false;
	frag = load32(f + OFF_FRAG);
	bad = ((load64(f) ^ mac) & MAC_MASK) |
	      ((load32(f + OFF_ETHERTYPE) & ETH_IP_MASK) ^ ETH_IP_WANT) |
	      ((frag & FRAG_PROTO_MASK) ^ FRAG_PROTO_WANT) |
	      ((load16(f + OFF_DATA_OFF) & FLAGS_MASK) ^ FLAGS_WANT);
	if (bad != 0 || (frag & TTL_MASK) == 0)
		return false;
	tlen = rte_be_to_cpu_16(load16(ip + 2));
	thl = (f[OFF_DATA_OFF] >> 4) * 4u;
	if (unlikely(thl < FAST_TH || m->data_len < FAST_L2 + FAST_L3 + thl ||
		     tlen < FAST_L3 + thl || tlen > m->pkt_len - FAST_L2))
		return false;
	ck = m->ol_flags & RTE_MBUF_F_RX_IP_CKSUM_MASK;
	if (!p->rx_ipv4_cksum || ck == RTE_MBUF_F_RX_IP_CKSUM_UNKNOWN ||
	    ck == RTE_MBUF_F_RX_IP_CKSUM_NONE) {
		/* A header that includes a correct checksum sums to 0xffff. */
		uint64_t s = oc_add64(load64(ip), load64(ip + 8));

		return fold(oc_add64(s, load32(ip + 16))) == 0xffff;
	}
	return ck == RTE_MBUF_F_RX_IP_CKSUM_GOOD;
}

/* The record, if the segment still belongs on the fast path: an IPv4
 * frame (an IPv6 one's record, whichever family it is, is fast_conn6_ok's:
 * a cache tag or a SNAT slot shared with an IPv4 leg may have found an IPv4
 * record for it), SPLICED, no FIN either way yet, both legs IPv4 (else
 * fast_conn4to6_ok), and the segment is its leg's, field for field. */
static inline bool
fast_conn_ok(const struct sy_conn *c, const uint8_t *f, unsigned leg)
{
	return leg <= LEG_BACKEND && c->state == SY_CONN_SPLICED &&
	       /* A record with an IPv6 leg: fast_conn6_ok, fast_conn4to6_ok. */
	       !(c->flags & (SY_CF_FIN_CLIENT | SY_CF_FIN_BACKEND | SY_CF_V6)) &&
	       leg_addrs(c, leg) == load64(f + OFF_ADDRS) &&
	       leg_ports(c, leg) == load32(f + OFF_PORTS);
}

/*
 * Is this IPv6 frame one the fast path may take? The checks of sy_eth_input,
 * sy_ipv6_input and sy_tcp6_input for the IPv6 layout above, as
 * fast_frame's: to our MAC, version 6, TCP right after the fixed header (a
 * frame with extension headers goes the per-packet way, which takes them
 * out); then (fast_tcp6, below) the payload within the frame, a well-formed
 * TCP header, flags ACK without SYN, RST or FIN. The hop limit is neither
 * checked nor decremented, as on the per-packet path: the router is the
 * segment's end point on either leg, not a hop between them (the IPv4 lane
 * keeps the TTL too).
 */
static inline bool
fast_frame6(uint64_t mac, const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	uint64_t bad;

	if (unlikely(m->data_len < FAST_L2 + FAST_L3_6 + FAST_TH))
		return false;
	bad = ((load64(f) ^ mac) & MAC_MASK) |
	      ((load32(f + OFF_ETHERTYPE) & ETH_IP6_MASK) ^ ETH_IP6_WANT) |
	      ((load32(f + OFF6_PLEN) & NH_MASK) ^ NH_WANT);
	return bad == 0;
}

/* The rest of fast_frame's rule for an IPv6 frame: its TCP header's flags
 * and lengths, in the frame's second cache line (the IPv6 header ends at
 * byte 54). A backend leg's frame (to a SNAT port) has it checked in stage
 * 3, when the line has long arrived: in stage 1 it was the one wait an
 * IPv6 frame had beyond an IPv4 one's, its line just written by the peer's
 * core (perf/journal/pktgen.md). A frame to a listen port has it checked
 * in stage 1, so that a SYN flood costs no lookup. */
static inline bool
fast_tcp6(const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	unsigned thl, plen;

	if ((load16(f + OFF6_DATA_OFF) & FLAGS_MASK) != FLAGS_WANT)
		return false;
	plen = rte_be_to_cpu_16(load16(f + OFF6_PLEN));
	thl = (f[OFF6_DATA_OFF] >> 4) * 4u;
	return likely(thl >= FAST_TH && m->data_len >= FAST_L2 + FAST_L3_6 + thl && plen >= thl &&
		      plen <= m->pkt_len - FAST_L2 - FAST_L3_6);
}

/* 16 and 32 bytes equal: an IPv6 address, a leg's (source, destination)
 * pair. In 16-byte registers where the machine has them: a 6to6 segment
 * compares three addresses and a pair, and as 8-byte words that was about
 * two fifths of the instructions it had beyond an IPv4 one's (callgrind,
 * perf/journal/splice_bench.md). */
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_1__)
static inline __m128i
load128(const uint8_t *p)
{
	return _mm_loadu_si128((const __m128i *)(const void *)p);
}

static inline bool
same16(const uint8_t *a, const uint8_t *b)
{
	const __m128i x = _mm_xor_si128(load128(a), load128(b));

	return _mm_testz_si128(x, x);
}

static inline bool
same32(const uint8_t *a, const uint8_t *b)
{
	const __m128i x = _mm_or_si128(_mm_xor_si128(load128(a), load128(b)),
				       _mm_xor_si128(load128(a + 16), load128(b + 16)));

	return _mm_testz_si128(x, x);
}
#else
static inline bool
same16(const uint8_t *a, const uint8_t *b)
{
	return ((load64(a) ^ load64(b)) | (load64(a + 8) ^ load64(b + 8))) == 0;
}

static inline bool
same32(const uint8_t *a, const uint8_t *b)
{
	return same16(a, b) & same16(a + 16, b + 16);
}
#endif

/* The destination is one of port p's IPv6 addresses: sy_ipv6_input's rule,
 * which is per port (IPv4's is any port's address). A record's leg has one
 * of ours as its destination, but not necessarily this port's; the ones
 * that are not go the per-packet way, to be dropped there. Returns 1 + the
 * address's index among the port's (a backend leg's snat_k, conn/snat.h),
 * 0 when it is none of them. */
static inline unsigned
fast_ours6(const struct sy_dp_port *p, const uint8_t *dst)
{
	unsigned i;

	/* The lane runs only on a port with an address. The first, which a
	 * port's listen address usually is, without the loop's overhead. */
	if (likely(same16(p->ipv6[0], dst)))
		return 1;
	for (i = 1; i < p->n_ipv6; i++)
		if (same16(p->ipv6[i], dst))
			return i + 1;
	return 0;
}

/* The key's fifth word, (sport, dport, zero[0]) as a load sees it. */
static inline uint64_t
fast_ports6_word(const uint8_t *f)
{
	uint64_t pw = load32(f + OFF6_PORTS);

#if RTE_BYTE_ORDER == RTE_BIG_ENDIAN
	pw <<= 32; /* ports, then zero */
#endif
	return pw;
}

/* An IPv6 frame's flow-table key as it arrives (the tuple either leg's key
 * is made of, conn/flow_table.c), for the hash when the cache misses. */
static inline void
fast_key6(struct sy_flow_key6 *k, const uint8_t *f)
{
	const uint64_t pw = fast_ports6_word(f);

	/* 16-byte copies: rte_hash compares a 48-byte key in 16-byte loads. */
	memcpy(k->saddr, f + OFF6_ADDRS, 16);
	memcpy(k->daddr, f + OFF6_ADDRS + 16, 16);
	/* (sport, dport, zero[0]) then (zero[1], zero[2]). */
	memcpy((uint8_t *)k + offsetof(struct sy_flow_key6, sport), &pw, 8);
	memset((uint8_t *)k + offsetof(struct sy_flow_key6, zero[1]), 0, 8);
}

/* Stage 1 of an IPv6 frame: the hash of its key, from the words loaded for
 * it. The key itself is written only when the cache misses (fast_resolve):
 * writing 48 bytes a frame for the rare miss cost every frame its stores. */
static inline hash_sig_t
fast_hash6(const uint8_t *f)
{
	return sy_flow_hash6_words(load64(f + OFF6_ADDRS), load64(f + OFF6_ADDRS + 8),
				   load64(f + OFF6_ADDRS + 16), load64(f + OFF6_ADDRS + 24),
				   fast_ports6_word(f));
}

/*
 * fast_conn_ok for an IPv6 frame, whose record has an IPv6 leg (SY_CF_V6,
 * which fast_conn_ok turns away): SPLICED, no FIN either way yet, and the
 * segment its IPv6 leg's field for field. One found through its SNAT slot
 * (LEG_V6_SNAT, its TCP header not yet checked: fast_tcp6) is the backend
 * leg's; one found through its key (LEG_V6) was either leg's, the client's
 * tried first as sy_tcp6_input does. *leg is set to the leg. Returns the
 * record's IPv6 side, which the lane then reads, or NULL.
 */
static inline const struct sy_conn_v6 *
fast_conn6_ok(const struct sy_conn_tables *t, const struct sy_conn *c, const struct rte_mbuf *m,
	      unsigned *leg)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const struct sy_conn_v6 *a;
	uint32_t ports;

	if (c->state != SY_CONN_SPLICED ||
	    (c->flags & (SY_CF_V6 | SY_CF_FIN_CLIENT | SY_CF_FIN_BACKEND)) != SY_CF_V6 ||
	    (*leg == LEG_V6_SNAT && !fast_tcp6(m)))
		return NULL;
	a = sy_conn_v6_of(t, c);
	ports = load32(f + OFF6_PORTS);
	if (*leg == LEG_V6 && sy_conn_client_v6(c) && leg_ports(c, LEG_CLIENT) == ports &&
	    same32(a->client, f + OFF6_ADDRS)) {
		*leg = LEG_CLIENT;
		return a;
	}
	if (sy_conn_backend_v6(c) && leg_ports(c, LEG_BACKEND) == ports &&
	    same32(a->backend, f + OFF6_ADDRS)) {
		*leg = LEG_BACKEND;
		return a;
	}
	return NULL;
}

/* fast_conn_ok for an IPv4 frame whose record has an IPv6 leg: the frame
 * on the record's IPv4 leg (4to6). */
static inline bool
fast_conn4to6_ok(const struct sy_conn *c, const uint8_t *f, unsigned leg)
{
	return leg <= LEG_BACKEND && c->state == SY_CONN_SPLICED &&
	       (c->flags & (SY_CF_V6 | SY_CF_FIN_CLIENT | SY_CF_FIN_BACKEND)) == SY_CF_V6 &&
	       !((c->v6 >> leg) & 1) && leg_addrs(c, leg) == load64(f + OFF_ADDRS) &&
	       leg_ports(c, leg) == load32(f + OFF_PORTS);
}

/* The layouts translated inline: no TCP options, or NOP NOP TS as Linux and
 * the BSDs send it; any other goes through the per-packet path's functions. */
static __rte_always_inline bool
fast_tcp_layout(const uint8_t *th, unsigned thl)
{
	return thl == FAST_TH || (thl == FAST_TS_HLEN && load32(th + FAST_TH) == FAST_TS_WORD);
}

/*
 * The TCP header's part of a translation in place, for a layout
 * fast_tcp_layout() accepts (docs/architecture.md 9.3, "Numbers to
 * translate"): ports, and with the record's checksum change for them and
 * the addresses (conn.h csum_tcp, negated the other way), seq and TSval
 * forward by this leg's deltas, ack and TSecr back by the other's; backend
 * leg: the window to our scale. Only for ACK segments without SYN.
 */
static __rte_always_inline void
fast_xlate_tcp(const struct sy_conn *c, uint8_t *th, unsigned thl, unsigned leg)
{
	const bool from_client = leg == LEG_CLIENT;
	uint64_t tcp_acc = from_client ? c->csum_tcp : (uint16_t)~c->csum_tcp;
	uint32_t p_new = swap_halves32(leg_ports(c, !leg));

	memcpy(th, &p_new, 4);
	tcp_acc += add32(th + 4, c->seq_delta[leg]);
	tcp_acc += add32(th + 8, -c->seq_delta[!leg]);
	if (thl == FAST_TS_HLEN) {
		tcp_acc += add32(th + FAST_TH + 4, c->ts_delta[leg]);
		tcp_acc += add32(th + FAST_TH + 8, -c->ts_delta[!leg]);
	}
	if (!from_client && c->win_shift_b != c->win_shift_r) {
		uint16_t old = load16(th + 14);
		uint16_t win = rte_cpu_to_be_16(sy_win_rescale(rte_be_to_cpu_16(old),
							       c->win_shift_b, c->win_shift_r));

		memcpy(th + 14, &win, 2);
		tcp_acc += (uint16_t)~old + (uint64_t)win;
	}
	memcpy(th + 16, &(uint16_t){ csum_apply(load16(th + 16), tcp_acc) }, 2);
}

/*
 * Translate an IPv4 segment of an IPv4-only record in place: the same
 * result as sy_xlate_tcp4() with sy_xlate_from_leg(). Returns -1 when the
 * options are malformed.
 */
static __rte_always_inline int
fast_xlate(const struct sy_conn *c, uint8_t *ip, unsigned thl, unsigned leg)
{
	uint8_t *th = ip + FAST_L3;
	uint64_t a_new;
	uint16_t ip_d;
	struct sy_xlate x;

	if (!fast_tcp_layout(th, thl)) {
		/* SACK blocks and other layouts: the general translation. */
		sy_xlate_from_leg(c, (enum sy_leg)leg, &x);
		return sy_xlate_tcp4((struct rte_ipv4_hdr *)ip, (struct rte_tcp_hdr *)th, &x);
	}

	/* Addresses, in the IPv4 header and the TCP pseudo-header alike, and
	 * ports: the other leg's, swapped. Their checksum change is the
	 * record's (conn.h), negated the other way. */
	a_new = swap_halves64(leg_addrs(c, !leg));
	memcpy(ip + 12, &a_new, 8);
	ip_d = leg == LEG_CLIENT ? c->csum_ip : (uint16_t)~c->csum_ip;
	memcpy(ip + 10, &(uint16_t){ csum_apply16(load16(ip + 10), ip_d) }, 2);
	fast_xlate_tcp(c, th, thl, leg);
	return 0;
}

/* A frame's headers: its first line, and the second, where an IPv6 frame's
 * TCP header (its flags, read in stage 1) and an IPv4 one's timestamp
 * option lie. */
static inline void
fast_prefetch_frame(const struct rte_mbuf *m)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);

	rte_prefetch0(f);
	rte_prefetch0(f + RTE_CACHE_LINE_SIZE);
}

/* A record's forwarding fields: its first line (conn.h). */
static inline void
prefetch_record(const struct sy_conn *c)
{
	rte_prefetch0(c);
}

/* The Ethernet addresses towards a next hop, kept per output port and
 * family for the rest of the burst (ARP and neighbour discovery change only
 * on the slow path, which forgets them): destination and source as the
 * frame carries them. */
struct nh_memo {
	union {
		uint32_t ip4;
		uint8_t ip6[16];
	};
	uint8_t eth[2 * RTE_ETHER_ADDR_LEN];
};

/* Both families' (index: 1 for IPv6), and which ports' entries are good. */
struct nh_memos {
	struct nh_memo m[2][SY_MAX_PORTS];
	uint32_t ok[2];
};

/* Frame f (data at its Ethernet header) to next hop nh4 (IPv4) or nh6
 * (v6) on port out: its Ethernet addresses, queued for TX. Always 1 (sent,
 * or held by ARP or neighbour discovery). */
static __rte_always_inline unsigned
fast_send(struct sy_worker *w, struct rte_mbuf *m, uint8_t *f, uint16_t out, bool v6,
	  uint32_t nh4, const uint8_t *nh6, struct nh_memos *mo)
{
	struct nh_memo *mm = &mo->m[v6][out];

	if (unlikely(!(mo->ok[v6] & (1u << out)) ||
		     (v6 ? !same16(mm->ip6, nh6) : mm->ip4 != nh4))) {
		const struct rte_ether_addr *mac =
			v6 ? sy_nd_lookup(w, out, nh6) : sy_arp_lookup(w, out, nh4);

		if (mac == NULL) {
			/* Unresolved: ARP or ND holds it and asks, as on the
			 * slow path. That may take over a table entry another
			 * port's memo points at: forget them all. */
			memset(f, 0, RTE_ETHER_ADDR_LEN);
			memcpy(f + RTE_ETHER_ADDR_LEN, &w->sh->ports[out].mac, RTE_ETHER_ADDR_LEN);
			if (v6)
				sy_nd_output(w, out, nh6, m);
			else
				sy_arp_output(w, out, nh4, m);
			mo->ok[v6] = 0;
			return 1;
		}
		if (v6)
			memcpy(mm->ip6, nh6, 16);
		else
			mm->ip4 = nh4;
		memcpy(mm->eth, mac, RTE_ETHER_ADDR_LEN);
		memcpy(mm->eth + RTE_ETHER_ADDR_LEN, &w->sh->ports[out].mac, RTE_ETHER_ADDR_LEN);
		mo->ok[v6] |= 1u << out;
	}
	memcpy(f, mm->eth, sizeof(mm->eth));
	sy_tx(w, out, m);
	return 1;
}

/* An IPv6 leg's next hop: a gateway's address from the FIB's entry for it
 * when the record has one (sy_conn_v6_set_nh: a few lines every flow shares,
 * where line 1 of the record's IPv6 side is one a flow, cold at 100,000
 * flows), else sy_conn_v6_nh. */
static __rte_always_inline const uint8_t *
fast_nh6(const struct sy_worker *w, const struct sy_conn *c, const struct sy_conn_v6 *a,
	 unsigned leg)
{
	const uint32_t id = leg == SY_LEG_CLIENT ? c->client_nh : c->backend_nh;

	if ((c->v6 & (SY_V6_CLIENT_GW << leg)) && id != 0)
		return w->sh->fib->nh[id - 1].gw.v6;
	return sy_conn_v6_nh(c, a, leg);
}

/* Returns 1 when m was forwarded (or is held by ARP), 0 when dropped. */
static __rte_always_inline unsigned
fast_forward(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, unsigned leg,
	     struct nh_memos *mo)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	unsigned tlen = rte_be_to_cpu_16(load16(f + FAST_L2 + 2));

	c->last_seen = sy_conn_seen(w->now);
	if (unlikely(fast_xlate(c, f + FAST_L2, (f[OFF_DATA_OFF] >> 4) * 4u, leg) < 0)) {
		sy_drop(w, m, SY_DROP_SPLICE_XLATE_FAILED);
		return 0;
	}
	/* As sy_ipv4_input and sy_ipv4_output_nh leave it: padding cut, the
	 * headers' lengths (in one store: no offload asks for the rest), only
	 * the buffer ownership flags. */
	if (unlikely(m->pkt_len > FAST_L2 + tlen))
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - FAST_L2 - tlen));
	m->tx_offload = rte_mbuf_tx_offload(FAST_L2, FAST_L3, 0, 0, 0, 0, 0);
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	if (leg == LEG_CLIENT)
		return fast_send(w, m, f, c->backend_if, false, c->backend_nh, NULL, mo);
	return fast_send(w, m, f, c->client_if, false, c->client_nh, NULL, mo);
}

/*
 * A segment of a record with an IPv6 leg (SY_CF_V6), arriving on leg `leg`
 * (in its family) and leaving on the other (in that one's), with a TCP
 * option layout the inline lanes do not take (SACK blocks, odd offsets;
 * fast_forward6to6, fast_forward6to4 and fast_forward4to6 have the rest):
 * splice_xlate46.c's translations on the IP header, as splice.c's xlate_send. Within IPv6 the
 * addresses are rewritten in place; across the families the IP header is
 * replaced (splice_xlate.h's layouts), 20 bytes shorter (6to4: the TCP
 * header stays where it is, the Ethernet and IPv4 headers start 20 bytes
 * later) or longer (4to6: 20 bytes of headroom taken). The same result as
 * the per-packet path. Never inlined: the loop holds the common layouts only.
 * Returns 1 when m was forwarded (or is held by ARP / ND), 0 when dropped.
 */
static __rte_noinline unsigned
fast_forward46(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, unsigned leg,
	       struct nh_memos *mo)
{
	const struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);
	const bool in6 = (c->v6 >> leg) & 1, out6 = (c->v6 >> !leg) & 1;
	const bool to_backend = leg == LEG_CLIENT;
	/* The other leg's (source, destination) pair is the new one, swapped. */
	const uint8_t *src6 = to_backend ? a->snat : a->vip;
	const uint8_t *dst6 = to_backend ? a->backend : a->client;
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	const unsigned tlen = in6 ? FAST_L3_6 + rte_be_to_cpu_16(load16(f + OFF6_PLEN))
				  : rte_be_to_cpu_16(load16(f + FAST_L2 + 2));
	uint16_t out = to_backend ? c->backend_if : c->client_if;
	struct sy_xlate x;
	int rc;

	c->last_seen = sy_conn_seen(w->now);
	/* As sy_ipv4_input / sy_ipv6_input leave it: padding cut. */
	if (unlikely(m->pkt_len > FAST_L2 + tlen))
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - FAST_L2 - tlen));
	sy_xlate_from_leg(c, (enum sy_leg)leg, &x);
	rte_pktmbuf_adj(m, FAST_L2);
	if (!out6)
		rc = sy_xlate_6to4(m, &x);
	else if (in6)
		rc = sy_xlate_6to6(m, &x, src6, dst6);
	else
		rc = sy_xlate_4to6(m, &x, src6, dst6);
	if (unlikely(rc < 0)) {
		sy_drop(w, m, SY_DROP_SPLICE_XLATE_FAILED);
		return 0;
	}
	/* The Ethernet header's room: the 14 bytes just stepped over, or after
	 * 4to6 what is left of the headroom they were part of. */
	f = (uint8_t *)rte_pktmbuf_prepend(m, FAST_L2);
	if (unlikely(f == NULL)) {
		sy_drop(w, m, SY_DROP_NO_MBUF);
		return 0;
	}
	m->tx_offload = rte_mbuf_tx_offload(FAST_L2, out6 ? FAST_L3_6 : FAST_L3, 0, 0, 0, 0, 0);
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	memcpy(f + OFF_ETHERTYPE,
	       &(uint16_t){ out6 ? RTE_BE16(RTE_ETHER_TYPE_IPV6) : RTE_BE16(RTE_ETHER_TYPE_IPV4) }, 2);
	return fast_send(w, m, f, out, out6, to_backend ? c->backend_nh : c->client_nh,
			 out6 ? fast_nh6(w, c, a, !leg) : NULL, mo);
}

/*
 * An IPv4 segment on the IPv4 leg of a record whose other leg is IPv6
 * (4to6; fast_conn4to6_ok said which leg), with a layout fast_tcp_layout()
 * takes: the IPv6 header written over the IPv4 one and 20 bytes of
 * headroom (the TCP header stays where it is), the TCP header as
 * fast_xlate's. fast_forward46's general setup (both families, both
 * directions) cost a 4to6 segment about 50 of its 220 instructions
 * (callgrind, perf/journal/splice_bench.md). Not inlined either: inlined,
 * it saved 20 more, and the IPv4 lane, compiled around it, ran 3 more.
 * Returns -1 for any other layout (fast_forward46 then), else as
 * fast_forward46.
 */
static __rte_noinline int
fast_forward4to6(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, unsigned leg,
		 struct nh_memos *mo)
{
	const struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);
	const bool to_backend = leg == LEG_CLIENT;
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *th = f + FAST_L2 + FAST_L3;
	const unsigned thl = (th[12] >> 4) * 4u;
	const unsigned tlen = rte_be_to_cpu_16(load16(f + FAST_L2 + 2));
	uint8_t tos, ttl;

	if (!fast_tcp_layout(th, thl))
		return -1;
	c->last_seen = sy_conn_seen(w->now);
	if (unlikely(m->pkt_len > FAST_L2 + tlen))
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - FAST_L2 - tlen));
	/* What the IPv6 header carries over, read before it overwrites the
	 * IPv4 one. */
	tos = f[FAST_L2 + 1];
	ttl = f[FAST_L2 + 8];
	f = (uint8_t *)rte_pktmbuf_prepend(m, FAST_L3_6 - FAST_L3);
	if (unlikely(f == NULL)) {
		sy_drop(w, m, SY_DROP_SPLICE_XLATE_FAILED);
		return 0;
	}
	/* The other leg's (source, destination) pair, swapped. */
	sy_xlate_ipv6_hdr((struct rte_ipv6_hdr *)(f + FAST_L2), tos, ttl,
			  (uint16_t)(tlen - FAST_L3), to_backend ? a->snat : a->vip,
			  to_backend ? a->backend : a->client);
	memcpy(f + OFF_ETHERTYPE, &(uint16_t){ RTE_BE16(RTE_ETHER_TYPE_IPV6) }, 2);
	fast_xlate_tcp(c, th, thl, leg);
	m->tx_offload = rte_mbuf_tx_offload(FAST_L2, FAST_L3_6, 0, 0, 0, 0, 0);
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	if (to_backend)
		return (int)fast_send(w, m, f, c->backend_if, true, 0,
				      fast_nh6(w, c, a, SY_LEG_BACKEND), mo);
	return (int)fast_send(w, m, f, c->client_if, true, 0, fast_nh6(w, c, a, SY_LEG_CLIENT),
			      mo);
}

/*
 * What both lanes of an IPv6 frame do first: false for a TCP option layout
 * they do not take (fast_forward46 then); else the record's clock and the
 * frame's padding cut, *thl and *tcp_len set.
 */
static __rte_always_inline bool
fast_begin6(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, unsigned *thl,
	    uint16_t *tcp_len)
{
	const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
	const uint8_t *th = f + FAST_L2 + FAST_L3_6;

	*thl = (th[12] >> 4) * 4u;
	*tcp_len = rte_be_to_cpu_16(load16(f + OFF6_PLEN));
	if (!fast_tcp_layout(th, *thl))
		return false;
	c->last_seen = sy_conn_seen(w->now);
	if (unlikely(m->pkt_len > FAST_L2 + FAST_L3_6 + *tcp_len))
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - FAST_L2 - FAST_L3_6 - *tcp_len));
	return true;
}

/*
 * An IPv6 segment to an IPv6 leg (6to6; fast_conn6_ok matched it and gave
 * the record's IPv6 side, a) with a layout fast_tcp_layout() takes, inline:
 * the addresses rewritten in place (the other leg's pair, swapped, one
 * 32-byte run), the TCP header as fast_xlate's. Both legs' family is known
 * here, so nothing below asks it again (when one function took 6to4 too,
 * its family tests and a second lookup of the record's IPv6 side were about
 * a third of what a 6to6 segment ran beyond an IPv4 one: callgrind,
 * perf/journal/splice_bench.md). Returns -1 for any other layout
 * (fast_forward46 then), else as fast_forward46.
 */
static __rte_always_inline int
fast_forward6to6(struct sy_worker *w, struct sy_conn *c, const struct sy_conn_v6 *a,
		 struct rte_mbuf *m, unsigned leg, struct nh_memos *mo)
{
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *th = f + FAST_L2 + FAST_L3_6;
	unsigned thl;
	uint16_t tcp_len;

	if (!fast_begin6(w, c, m, &thl, &tcp_len))
		return -1;
	m->tx_offload = rte_mbuf_tx_offload(FAST_L2, FAST_L3_6, 0, 0, 0, 0, 0);
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	if (leg == LEG_CLIENT) {
		memcpy(f + OFF6_ADDRS, a->snat, 16);
		memcpy(f + OFF6_ADDRS + 16, a->backend, 16);
		fast_xlate_tcp(c, th, thl, LEG_CLIENT);
		return (int)fast_send(w, m, f, c->backend_if, true, 0,
				      fast_nh6(w, c, a, SY_LEG_BACKEND), mo);
	}
	memcpy(f + OFF6_ADDRS, a->vip, 16);
	memcpy(f + OFF6_ADDRS + 16, a->client, 16);
	fast_xlate_tcp(c, th, thl, LEG_BACKEND);
	return (int)fast_send(w, m, f, c->client_if, true, 0, fast_nh6(w, c, a, SY_LEG_CLIENT), mo);
}

/*
 * An IPv6 segment to an IPv4 leg (6to4) with a layout fast_tcp_layout()
 * takes: the IPv4 header written over the IPv6 one's last 20 bytes (the TCP
 * header stays where it is), the TCP header as fast_xlate's. Not inlined, as
 * fast_forward4to6. Returns -1 for any other layout (fast_forward46 then),
 * else as fast_forward46.
 */
static __rte_noinline int
fast_forward6to4(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, unsigned leg,
		 struct nh_memos *mo)
{
	const bool to_backend = leg == LEG_CLIENT;
	uint8_t *f = rte_pktmbuf_mtod(m, uint8_t *);
	uint8_t *th = f + FAST_L2 + FAST_L3_6;
	/* What the IPv4 header carries over, read before it overwrites the
	 * IPv6 one's last 20 bytes. */
	const uint8_t tc = (uint8_t)(rte_be_to_cpu_32(load32(f + FAST_L2)) >> 20);
	const uint8_t hop = f[OFF6_PLEN + 3];
	unsigned thl;
	uint16_t tcp_len;

	if (!fast_begin6(w, c, m, &thl, &tcp_len))
		return -1;
	f = (uint8_t *)rte_pktmbuf_adj(m, FAST_L3_6 - FAST_L3);
	sy_xlate_ipv4_hdr_base((struct rte_ipv4_hdr *)(f + FAST_L2), tc, hop, tcp_len,
			       to_backend ? c->snat_ip : c->vip,
			       to_backend ? c->backend_ip : c->client_ip, c->csum_ip);
	memcpy(f + OFF_ETHERTYPE, &(uint16_t){ RTE_BE16(RTE_ETHER_TYPE_IPV4) }, 2);
	fast_xlate_tcp(c, th, thl, leg);
	m->tx_offload = rte_mbuf_tx_offload(FAST_L2, FAST_L3, 0, 0, 0, 0, 0);
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	if (to_backend)
		return (int)fast_send(w, m, f, c->backend_if, false, c->backend_nh, NULL, mo);
	return (int)fast_send(w, m, f, c->client_if, false, c->client_nh, NULL, mo);
}

/* Stage 2 for frame i (below): its record through the flow cache (the hash
 * when the cache does not have it: the IPv6 one, with the key made here from
 * the frame, for an IPv6 frame) or its SNAT port's slot; prefetched (an IPv6
 * leg's addresses too, in the record's IPv6 side: for an IPv4 backend segment the
 * slot says whether its record has one, conn/flow_table.h). Returns true when
 * the record came from the hash, not the cache: stage 3 puts it back in its
 * pair if it is the segment's client leg. */
static inline bool
fast_resolve(struct sy_conn_tables *t, struct rte_mbuf *m, unsigned leg, void *where,
	     hash_sig_t sig, struct sy_conn **conn)
{
	bool hashed = false;
	struct sy_conn *c;

	if (leg == LEG_CLIENT) {
		c = sy_flow_cache_find(where, sig);
		if (unlikely(c == NULL)) {
			const uint8_t *f = rte_pktmbuf_mtod(m, const uint8_t *);
			struct sy_flow_key k;
			void *data;

			sy_flow_key_v4(&k, load32(f + OFF_ADDRS), load32(f + OFF_ADDRS + 4),
				       load16(f + OFF_PORTS), load16(f + OFF_PORTS + 2));
			if (rte_hash_lookup_with_hash_data(t->flows, &k, sig, &data) < 0)
				return false;
			c = data;
			hashed = true;
		}
	} else if (leg == LEG_BACKEND) {
		const struct sy_conn *v = *(struct sy_conn *const *)where;

		c = sy_snat_slot_conn(v);
		if (c == NULL)
			return false;
		/* 4to6: what the client's IPv6 leg needs (client, listen
		 * address, and the next hop when that is the client: the
		 * entry's first line). */
		if (unlikely((uintptr_t)v & SY_SNAT_SLOT_V6))
			rte_prefetch0(sy_conn_v6_of(t, c));
	} else if (leg == LEG_V6 || leg == LEG_V6_SNAT) {
		const uint8_t *a;

		if (leg == LEG_V6_SNAT) {
			c = sy_snat_slot_conn(*(struct sy_conn *const *)where);
			if (c == NULL)
				return false;
		} else if (unlikely((c = sy_flow_cache_find(where, sig)) == NULL)) {
			struct sy_flow_key6 k;

			fast_key6(&k, rte_pktmbuf_mtod(m, const uint8_t *));
			if ((c = sy_flow6_find(t, &k, sig)) == NULL)
				return false;
			hashed = true;
		}
		/* Both legs' addresses, one line (conn_t.h): 6to6 compares
		 * one leg's and writes the other's. A gateway next hop comes
		 * from the FIB (fast_nh6). */
		a = (const uint8_t *)sy_conn_v6_of(t, c);
		rte_prefetch0(a);
	} else {
		return false;
	}
	*conn = c;
	prefetch_record(c);
	return hashed;
}

void
sy_splice_rx_burst(struct sy_worker *w, uint16_t port, struct rte_mbuf **pkts, uint16_t n)
{
	const struct sy_dp_shared *sh = w->sh;
	const struct sy_dp_port *p = &sh->ports[port];
	const uint64_t mac = mac_word(&p->mac);
	struct sy_conn_tables *t = &w->tcp;
	/* IPv6 frames: on a port with an IPv6 address (sy_ipv6_input drops the
	 * rest), to a worker whose tables have IPv6 legs. */
	const bool lane6 = t->flows6 != NULL && p->n_ipv6 != 0;
	hash_sig_t sig[SY_RX_BURST];
	/* A client leg's or an IPv6 frame's cache pair, a backend leg's slot. */
	void *where[SY_RX_BURST];
	struct sy_conn *conn[SY_RX_BURST];
	uint8_t leg[SY_RX_BURST];
	/* Frames whose record came from the hash (fast_resolve), a bit each. */
	uint64_t hashed = 0;
	struct nh_memos memo;
	uint64_t bytes = 0;
	unsigned i, fast = 0;

	memo.ok[0] = 0;
	memo.ok[1] = 0;
	sy_proxy_out_open(w);

	RTE_ASSERT(n <= SY_RX_BURST);
	for (i = 0; i < n && i < FAST_PREFETCH_AHEAD; i++)
		fast_prefetch_frame(pkts[i]);

	for (i = 0; i < n + 2 * FAST_RESOLVE_LAG; i++) {
		struct rte_mbuf *m;
		const uint8_t *f;
		uint16_t dport;

		/* Stage 2 for frame i - FAST_RESOLVE_LAG, stage 3 for frame
		 * i - 2 * FAST_RESOLVE_LAG, then stage 1 for frame i. */
		if (i >= FAST_RESOLVE_LAG && i - FAST_RESOLVE_LAG < n) {
			unsigned j = i - FAST_RESOLVE_LAG;

			if (unlikely(fast_resolve(t, pkts[j], leg[j], where[j], sig[j], &conn[j])))
				hashed |= 1ull << j;
		}
		if (i >= 2 * FAST_RESOLVE_LAG) {
			unsigned j = i - 2 * FAST_RESOLVE_LAG;
			struct sy_conn *c = conn[j];

			const struct sy_conn_v6 *a6;
			unsigned lg = leg[j];
			int r;

			m = pkts[j];
			f = rte_pktmbuf_mtod(m, const uint8_t *);
			if (c != NULL && likely(fast_conn_ok(c, f, lg))) {
				/* Found through the hash: its client leg back
				 * in the cache (only client legs hash there). */
				if (unlikely((hashed >> j) & 1))
					sy_flow_cache_put(where[j], sig[j], c);
				fast += fast_forward(w, c, m, lg, &memo);
			} else if (c != NULL && lg >= LEG_V6 &&
				   (a6 = fast_conn6_ok(t, c, m, &lg)) != NULL) {
				/* An IPv6 frame found through the hash may be
				 * a backend leg's: only a client leg's goes
				 * back in the cache, under its client key. */
				if (unlikely((hashed >> j) & 1) && lg == LEG_CLIENT)
					sy_flow_cache_put(where[j], sig[j], c);
				r = (c->v6 >> !lg) & 1 ? fast_forward6to6(w, c, a6, m, lg, &memo)
						       : fast_forward6to4(w, c, m, lg, &memo);
				fast += r >= 0 ? (unsigned)r : fast_forward46(w, c, m, lg, &memo);
			} else if (c != NULL && fast_conn4to6_ok(c, f, lg)) {
				/* An IPv4 frame on a record's IPv4 leg, the
				 * other IPv6. */
				if (unlikely((hashed >> j) & 1))
					sy_flow_cache_put(where[j], sig[j], c);
				r = fast_forward4to6(w, c, m, lg, &memo);
				fast += r >= 0 ? (unsigned)r : fast_forward46(w, c, m, lg, &memo);
			} else {
				sy_eth_input(w, port, m);
				/* It may have been ARP or ND: look the next hops
				 * up again. */
				memo.ok[0] = 0;
				memo.ok[1] = 0;
			}
		}
		/* Stage 1 for frame i. */
		if (i >= n)
			continue;
		m = pkts[i];
		if (i + FAST_PREFETCH_AHEAD < n)
			fast_prefetch_frame(pkts[i + FAST_PREFETCH_AHEAD]);
		bytes += m->pkt_len;
		conn[i] = NULL;
		leg[i] = LEG_SLOW;
		f = rte_pktmbuf_mtod(m, const uint8_t *);
		if (lane6 && load16(f + OFF_ETHERTYPE) == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
			unsigned a6;

			if (!fast_frame6(mac, m) ||
			    (a6 = fast_ours6(p, f + OFF6_ADDRS + 16)) == 0)
				continue;
			/* As an IPv4 frame: to a SNAT port (not a listen port),
			 * the slot of that port and of the address's index; else
			 * the key's hash and its cache pair. */
			dport = load16(f + OFF6_PORTS + 2);
			if (dport != sh->http_port && dport != sh->https_port &&
			    rte_be_to_cpu_16(dport) >= SY_SNAT_PORT_MIN) {
				leg[i] = LEG_V6_SNAT; /* fast_tcp6 in stage 3 */
				where[i] = sy_snat_slot_k(t, a6 - 1, dport);
			} else if (!fast_tcp6(m)) {
				continue;
			} else {
				leg[i] = LEG_V6;
				sig[i] = fast_hash6(f);
				where[i] = sy_flow_cache_pair(t, sig[i]);
			}
			rte_prefetch0(where[i]);
			continue;
		}
		if (!fast_frame(p, mac, m))
			continue;
		dport = load16(f + OFF_PORTS + 2);
		if (dport == sh->http_port || dport == sh->https_port) {
			/* A client leg if a record has this tuple as its client
			 * leg. A listen port that is also some record's SNAT
			 * port: sy_flow_find() decides, as it tries that leg
			 * first. */
			uint16_t dp = rte_be_to_cpu_16(dport);
			uint64_t w1 = load32(f + OFF_PORTS);

			if (unlikely(dp >= SY_SNAT_PORT_MIN &&
				     *sy_snat_slot(t, (uint32_t)load32(f + OFF_ADDRS + 4), dport) != NULL))
				continue;
#if RTE_BYTE_ORDER == RTE_BIG_ENDIAN
			w1 <<= 32; /* the key's second word: ports, then zero */
#endif
			leg[i] = LEG_CLIENT;
			sig[i] = sy_flow_hash_words(load64(f + OFF_ADDRS), w1);
			where[i] = sy_flow_cache_pair(t, sig[i]);
			rte_prefetch0(where[i]);
		} else if (likely(rte_be_to_cpu_16(dport) >= SY_SNAT_PORT_MIN)) {
			leg[i] = LEG_BACKEND;
			/* The destination address names the row (conn/snat.h). */
			where[i] = sy_snat_slot(t, (uint32_t)load32(f + OFF_ADDRS + 4), dport);
			rte_prefetch0(where[i]);
		}
	}
	/* What the burst's frames made h2 connections write (proxy/px_out.c). */
	if (t->n_px_out != 0)
		sy_proxy_out_flush(w);
	t->px_out_open = false;
	w->counters.rx_bytes += bytes;
	w->counters.fast_forwarded += fast;
}
