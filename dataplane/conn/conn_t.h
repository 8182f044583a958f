/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A connection's record and its states, as types only (docs/architecture.md
 * section 9): whatever mode owns a record (splice, proxy, a health probe,
 * a proxied leg's TIME_WAIT), it is this struct, in the tables of conn/
 * (conn/conn.h), and the mode's operations are found by its state
 * (conn/conn_ops.h). No functions here beyond small inlines on the types,
 * and no includes but the C library's: any header may include this one.
 *
 * A record is reachable from both legs (conn/flow_table.h): the client tuple
 * (as the client's packets carry it) through the flow table's hash, the
 * backend tuple (as the backend's packets carry it) through its SNAT port's
 * slot. Everything forwarding needs is in the record by value: no pointer
 * into a generation survives the burst that bound it.
 */
#ifndef SY_CONN_T_H
#define SY_CONN_T_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rte_mbuf;
struct sy_proxy;
struct px_idle;
struct sy_hc_probe;
struct px_mirror;
struct px_h2b;

enum sy_conn_state {
	SY_CONN_PEEK = 1,    /* holding the client's first bytes, unacknowledged */
	SY_CONN_CONNECTING,  /* backend SYN sent with our ISN and TSval and the client's options */
	SY_CONN_SPLICED,     /* every packet translated both ways */
	SY_CONN_ANSWER,      /* the router answers itself (4xx/5xx, TLS alert), then closes */
	SY_CONN_LINGER,      /* closed; late packets still translated until the timer fires */
	SY_CONN_PROXY,       /* terminated client leg (proxy/proxy.h) */
	SY_CONN_PROXY_BE,    /* a terminated backend leg of a proxied connection */
	SY_CONN_PROXY_IDLE,  /* a backend leg parked in the worker's idle pool (proxy/px_idle.c) */
	SY_CONN_PROXY_TIME_WAIT, /* a proxied client leg in TIME_WAIT: `tw` only (proxy/px_time_wait.c) */
	SY_CONN_HEALTH_PROBE, /* an active health check's connection (lb/hc_probe.h) */
	SY_CONN_PROXY_MIRROR, /* a request mirror's leg (proxy/px_mirror.h) */
	SY_CONN_PROXY_H2,     /* an h2c connection carrying exchanges' streams (proxy/px_h2_backend.h) */
	SY_CONN_STATES       /* how many: the size of the ops table (conn/conn_ops.h) */
};

/* The two legs of a connection, as the record's per-leg arrays index them. */
enum sy_leg {
	SY_LEG_CLIENT = 0, /* client <-> listen address */
	SY_LEG_BACKEND = 1, /* backend <-> our SNAT address */
};

/* last_seen's clock: the TSC in units of 2^16 cycles (26 us at 2.5 GHz).
 * 32 bits of it wrap after a day or more, far beyond any idle timeout, and
 * are compared by wrapping difference; they leave the record's first line
 * room for the backend leg's deltas. */
#define SY_CONN_SEEN_SHIFT 16

static inline uint32_t
sy_conn_seen(uint64_t tsc)
{
	return (uint32_t)(tsc >> SY_CONN_SEEN_SHIFT);
}

enum sy_conn_proto {
	SY_CONN_HTTP,
	SY_CONN_TLS,
};

/*
 * Flow-table key: a packet's (src, dst) as it arrives. 16 bytes, so rte_hash
 * compares it with its vector compare and hashes two words. The flow table
 * keeps one hash table per address family: IPv6 flows have their own, with
 * the 48-byte struct sy_flow_key6, so this one stays as fast.
 */
struct sy_flow_key {
	uint32_t saddr; /* network order */
	uint32_t daddr;
	uint16_t sport;
	uint16_t dport;
	uint32_t zero;  /* padding, always 0 */
} __attribute__((aligned(8)));

/*
 * The flow-table key of an IPv6 leg, in the worker's second hash
 * (conn/flow_table.h), so IPv4 keys stay 16 bytes. 48, not the 36 it holds:
 * rte_hash compares keys of 16, 32, 48... bytes with vector compares, and
 * any other length with memcmp (a tenth of an IPv6 spliced segment's cost
 * in splice_bench's profile).
 */
struct sy_flow_key6 {
	uint8_t saddr[16];
	uint8_t daddr[16];
	uint16_t sport;
	uint16_t dport;
	uint32_t zero[3]; /* padding, always 0 */
} __attribute__((aligned(8)));
_Static_assert(sizeof(struct sy_flow_key6) == 48, "sy_flow_key6: a length rte_hash compares fast");

/*
 * The IPv6 side of a record with an IPv6 leg (SY_CF_V6): the two lines after
 * the record, in its slot of the arena, which has them only when a port has
 * an IPv6 address (conn/conn_tables_t.h; conn/flow_table.h, sy_conn_v6_of).
 * The record itself keeps its IPv4
 * layout: for an IPv6 leg its address fields hold 32-bit folds of these
 * (sy_addr6_fold), which is all that load balancing, rate limiting and the
 * counters' slots key on, and an IPv4 flow reads the same cache lines as
 * before.
 */
struct sy_conn_v6 {
	/* Line 0: both legs' addresses, all that a spliced segment compares
	 * and writes when its legs' next hops are their peers (on-link). */
	uint8_t client[16];     /* SY_V6_CLIENT: the client's address */
	uint8_t vip[16];        /* ... the listen address it reached */
	uint8_t backend[16];    /* SY_V6_BACKEND: the backend's address */
	uint8_t snat[16];       /* ... our source address towards it */
	/* Line 1: the next hops, read on the fast path only for a leg whose
	 * next hop is a gateway (SY_V6_CLIENT_GW, SY_V6_BACKEND_GW). */
	uint8_t client_nh[16] __attribute__((aligned(64))); /* towards the client (client_if) */
	uint8_t backend_nh[16]; /* towards the backend (backend_if) */
	uint8_t snat_k;         /* the index of snat among its port's addresses (conn/snat.h) */
} __attribute__((aligned(64)));

/* Each IPv6 leg's (source, destination) as its segments carry them is one
 * 32-byte run, and both legs share one line: the fast path compares one
 * leg's run and writes the other's (splice_fast.c), so a 6to6 segment
 * touches the record's line and this one, a 6to4 or 4to6 one the same.
 * The next hops had each been beside its leg's run, a line a leg: three
 * lines a 6to6 segment where IPv4 takes one (perf/journal/pktgen.md). */
_Static_assert(offsetof(struct sy_conn_v6, client) == 0 &&
		       offsetof(struct sy_conn_v6, vip) == 16 &&
		       offsetof(struct sy_conn_v6, backend) == 32 &&
		       offsetof(struct sy_conn_v6, snat) == 48 &&
		       offsetof(struct sy_conn_v6, client_nh) == 64 && sizeof(struct sy_conn_v6) == 128,
	       "sy_conn_v6: both legs' addresses in line 0");


/* Client bytes held during PEEK and CONNECTING: a separate object so an
 * established connection does not pay for it. */
#define SY_PEEK_MAX_SEGS 48
#define SY_PEEK_MAX_OOO 8
#define SY_PEEK_MAX_BYTES (64 * 1024)

struct sy_peek_buf {
	struct rte_mbuf *seg[SY_PEEK_MAX_SEGS]; /* in order, data at the IPv4 header */
	struct rte_mbuf *ooo[SY_PEEK_MAX_OOO];  /* out of order, waiting for the gap */
	uint8_t n_seg;
	uint8_t n_ooo;
	uint32_t bytes; /* payload bytes held in seg[] */

	/* Handshake state that only PEEK, CONNECTING and ANSWER need: kept
	 * here so an established connection's record stays small. */
	uint32_t isn_c;      /* client ISN */
	uint32_t isn_r;      /* our cookie ISN */
	uint32_t isn_rb;     /* our ISN on the backend leg (tcp_isn.h) */
	uint32_t tsval_rb;   /* our backend SYN's TSval (the same on every retry) */
	uint32_t peek_next;  /* next client sequence number expected */
	uint32_t ts_recent;  /* client's latest TSval */
	uint32_t ts_first;   /* client's oldest TSval we forward (its handshake ACK's) */
	uint32_t tsval_r0;   /* our SYN-ACK TSval, as the client echoed it */
	uint32_t hs_rtt_ms;  /* our SYN-ACK to its ACK, from that echo, at least 1 (0: no sample) */
	uint32_t answer_len; /* bytes of our answer (its FIN follows them) */
	uint16_t mss;        /* what the client may receive (cookie), lowered to the backend link's */
	uint16_t client_win; /* last raw window from the client */
	uint16_t answer_status; /* HTTP status being answered; 0 = TLS alert */
	uint16_t lb_first;   /* endpoint index of the first pick (retries walk on) */
	uint16_t stat_slot;  /* the matched rule's route counters (sy_route_stats.h), 0 none */
	uint16_t be_slot;    /* the picked endpoint's counters (sy_backend_stats.h), 0 none */
	uint8_t ws_c;        /* client window scale, SY_TCP_WS_NONE if not offered */
	uint8_t sack_ok;
	uint8_t ts_ok;
	uint8_t retx;        /* SYNs sent to this endpoint / answers sent */
	uint8_t tries;       /* backend endpoints tried */
	uint8_t stale_acks;  /* stale ACKs answered with RST + SYN for this endpoint */
	uint64_t connect_deadline; /* TSC: give up on every endpoint */
	/* The router's own answer when a rule or policy says what it is: a
	 * redirect's Location, a static body (copied: the generation it came
	 * from may be gone by the retransmission). */
	uint8_t answer_custom;
	uint8_t answer_empty; /* close with a bare FIN: nothing to say */
	/* listen.proxy_protocol: a header is expected first (SY_PP_WANTED)
	 * or was read (SY_PP_READ: pp_skip bytes of it, which the peekers,
	 * the backend and the proxy never see). */
	uint8_t pp_state;
	uint16_t pp_skip;
	char answer_location[384];
	char answer_body[256];
};

enum sy_pp_state { SY_PP_NONE, SY_PP_WANTED, SY_PP_READ };

/*
 * What a proxied client leg keeps in TIME_WAIT (proxy/px_time_wait.c), in
 * the place of the translation deltas, which only a spliced record uses:
 * enough to acknowledge a retransmitted FIN as the TCB would have, and to
 * judge a new SYN on the 4-tuple (RFC 6191). 16 bytes.
 */
struct sy_conn_time_wait {
	uint32_t snd_nxt;   /* after our FIN */
	uint32_t rcv_nxt;   /* after the client's FIN */
	uint32_t ts_recent; /* the client's latest TSval (with ts) */
	uint16_t win;       /* the window field of our last ACK, as it went out */
	uint8_t ts;         /* timestamps in use (our TSval: the ms clock, as the client leg's) */
	uint8_t acks;       /* ACKs this record sent (a budget: px_time_wait.c) */
};

/* Flags */
#define SY_CF_FIN_CLIENT 0x01   /* client sent FIN (fin_c is its seq) */
#define SY_CF_FIN_BACKEND 0x02  /* backend sent FIN (fin_b, client seq space) */
#define SY_CF_ANSWER_FIN_ACKED 0x04
#define SY_CF_TIMER 0x08        /* on the timer wheel */
#define SY_CF_BACKEND_KEY 0x10  /* backend leg findable: its SNAT port slot names it */
#define SY_CF_SPLICED 0x20      /* deltas valid: translate (also in LINGER) */
#define SY_CF_LB_COUNTED 0x40   /* counted in its backend's open connections (lb/lb.h) */
#define SY_CF_V6 0x80           /* a leg is IPv6 (which: `v6`): its addresses in struct sy_conn_v6 */

/* Which legs are IPv6 (sy_conn.v6), with SY_CF_V6 set: a leg's bit is
 * 1 << its enum sy_leg (the fast path shifts by the leg). */
#define SY_V6_CLIENT 0x01
#define SY_V6_BACKEND 0x02
/* An IPv6 leg whose next hop is not its peer (a gateway): its next hop is
 * struct sy_conn_v6's client_nh / backend_nh, in the line the fast path
 * otherwise leaves alone, and, when it came from the FIB, the FIB's entry
 * for it in the leg's IPv4 next-hop field (sy_conn_v6_set_nh, sy_conn_v6_nh). */
#define SY_V6_CLIENT_GW 0x04
#define SY_V6_BACKEND_GW 0x08
#define SY_V6_LEGS (SY_V6_CLIENT | SY_V6_BACKEND)

_Static_assert(SY_V6_CLIENT == 1u << SY_LEG_CLIENT && SY_V6_BACKEND == 1u << SY_LEG_BACKEND,
	       "sy_conn: a leg's IPv6 bit");

/*
 * The record of a connection: two cache lines, the first all that
 * forwarding an established segment reads and writes. Translation
 * parameters are kept as the two deltas and the window shifts; the per
 * direction struct sy_xlate is rebuilt on the stack per packet from them and
 * the tuples (a few stores, cheaper than the cache misses a bigger record
 * costs at 100k flows).
 */
struct sy_conn {
	uint8_t state;   /* enum sy_conn_state */
	uint8_t proto;   /* enum sy_conn_proto */
	uint8_t flags;
	uint8_t win_shift_b; /* backend's window scale (0: none in force) */
	uint8_t win_shift_r; /* ours towards the client (0: none in force) */
	uint8_t client_if, backend_if; /* port indexes of the next hops */
	uint8_t v6;      /* SY_V6_*: the legs that are IPv6 (SY_CF_V6 says whether any is) */
	/* Sequence and timestamp translation by the leg a segment arrives on
	 * (enum sy_leg; docs/architecture.md 9.3, "Numbers to translate"): a
	 * segment from leg L gets seq += seq_delta[L] and TSval += ts_delta[L], and its
	 * ack, SACK edges and TSecr -= the other leg's.
	 *   seq_delta[CLIENT] = isn_rb - isn_c     (our ISN on the backend leg)
	 *   seq_delta[BACKEND] = isn_r - isn_b     (our cookie ISN)
	 *   ts_delta[CLIENT] = tsval_rb0 - tsval_c (our first backend TSval)
	 *   ts_delta[BACKEND] = tsval_r0 - tsval_b0
	 * A proxied record translates nothing: in TIME_WAIT the same bytes
	 * hold what its last ACK needs (`tw`). */
	union {
		struct {
			uint32_t seq_delta[2];
			uint32_t ts_delta[2];
		};
		struct sy_conn_time_wait tw; /* SY_CONN_PROXY_TIME_WAIT */
	};

	/* -- tuples (network order) -- each leg's (source, destination) as
	 * that leg's packets carry them, the client leg first: the fast path
	 * compares a leg with one 8-byte and one 4-byte load, and writes the
	 * other leg's pair, swapped, as the translated one (splice_fast.c). */
	uint32_t client_ip, vip;        /* client leg: client -> listen address */
	uint32_t backend_ip, snat_ip;   /* backend leg: backend -> our SNAT address */
	uint16_t client_port, vip_port;
	uint16_t backend_port, snat_port;
	/* Next hops, from the FIB once (it does not change while routerd
	 * runs): the address ARP resolves on client_if / backend_if. An IPv6
	 * leg through a gateway keeps the FIB's entry of the route here
	 * instead, plus 1 (0: none; sy_conn_v6_set_nh). */
	uint32_t client_nh, backend_nh;
	uint32_t last_seen;  /* sy_conn_seen() of the last packet either way (idle timeout) */
	/* The checksum change, ~m + m' folded to 16 bits, of translating the
	 * client leg's addresses (IPv4 header) and addresses and ports (TCP)
	 * into the backend leg's; the other way is its complement. Set with
	 * the deltas (sy_conn_csum_deltas, splice.h): the fast path's part of
	 * both checksums that does not depend on the segment. With an IPv6
	 * leg (SY_CF_V6) csum_tcp counts that leg's real addresses (the two
	 * families' pseudo-headers differ only in them); csum_ip is, with one
	 * leg of each family, the part of the checksum of the IPv4 header
	 * built towards the IPv4 leg that the connection fixes
	 * (splice_xlate.h, sy_xlate_ipv4_sum_base), and with both IPv6 unused. */
	uint16_t csum_ip, csum_tcp;
	/* -- end of what forwarding an established segment touches (64 B) -- */

	uint32_t fin_c;      /* client FIN seq (client space) */
	uint32_t fin_b;      /* backend FIN seq, translated into client space */

	struct sy_peek_buf *peek; /* PEEK, CONNECTING and ANSWER only */
	struct sy_proxy *px;      /* PROXY and PROXY_BE: the shared proxy state */
	/* The owner of a record that is a backend leg alone, by its state
	 * (one at a time: 128 bytes hold no more pointers). */
	union {
		struct px_idle *idle;       /* PROXY_IDLE: its slot in the idle pool */
		struct sy_hc_probe *probe;  /* HEALTH_PROBE: its slot in the probe table */
		struct px_mirror *mirror;   /* PROXY_MIRROR: its leg (proxy/px_mirror.c) */
		struct px_h2b *h2c;         /* PROXY_H2: its session (proxy/px_h2_backend.c) */
	};

	/* -- timer wheel -- */
	uint64_t expire; /* TSC */
	struct sy_conn *tnext; /* also the free list's link (conn/conn_tables_t.h) */
	struct sy_conn **tprev;
} __attribute__((aligned(64)));

/* Two lines: the first holds everything forwarding reads (splice_fast.c). */
_Static_assert(sizeof(struct sy_conn) == 128, "sy_conn: two cache lines");
_Static_assert(sizeof(struct sy_conn_time_wait) == 16, "sy_conn: tw in the deltas' place");
_Static_assert(offsetof(struct sy_conn, csum_tcp) + 2 <= 64, "sy_conn: forwarding fields");

/* The layout the fast path's leg loads rely on (above). */
_Static_assert(offsetof(struct sy_conn, vip) == offsetof(struct sy_conn, client_ip) + 4 &&
		       offsetof(struct sy_conn, backend_ip) == offsetof(struct sy_conn, client_ip) + 8 &&
		       offsetof(struct sy_conn, snat_ip) == offsetof(struct sy_conn, client_ip) + 12,
	       "sy_conn: leg addresses");
_Static_assert(offsetof(struct sy_conn, vip_port) == offsetof(struct sy_conn, client_port) + 2 &&
		       offsetof(struct sy_conn, backend_port) ==
			       offsetof(struct sy_conn, client_port) + 4 &&
		       offsetof(struct sy_conn, snat_port) == offsetof(struct sy_conn, client_port) + 6,
	       "sy_conn: leg ports");

/* The client leg, the backend leg is IPv6 (its addresses in struct sy_conn_v6). */
static inline bool
sy_conn_client_v6(const struct sy_conn *c)
{
	return (c->v6 & SY_V6_CLIENT) != 0;
}

static inline bool
sy_conn_backend_v6(const struct sy_conn *c)
{
	return (c->v6 & SY_V6_BACKEND) != 0;
}

/* Sets an IPv6 leg's next hop (its peer's address already set) and
 * whether it is a gateway. fib_nh: the FIB's entry for a gateway plus 1
 * (struct sy_fib_result's nh_id + 1), 0 for none. The fast path reads a
 * gateway's address from the FIB's entries, a few hot lines every flow
 * shares, rather than from line 1 of the record's IPv6 side: at 100,000
 * flows in process that line cost IPv6 about 40 cycles a packet (clients
 * behind a gateway: splice_bench --client-gateway,
 * perf/journal/splice_bench.md). Line 1
 * keeps the address too, for the other readers. */
static inline void
sy_conn_v6_set_nh(struct sy_conn *c, struct sy_conn_v6 *a, enum sy_leg leg, const uint8_t *nh,
		  uint32_t fib_nh)
{
	const uint8_t gw = (uint8_t)(SY_V6_CLIENT_GW << leg);
	uint8_t *to = leg == SY_LEG_CLIENT ? a->client_nh : a->backend_nh;
	uint32_t *id = leg == SY_LEG_CLIENT ? &c->client_nh : &c->backend_nh;

	memcpy(to, nh, 16);
	if (memcmp(nh, leg == SY_LEG_CLIENT ? a->client : a->backend, 16) != 0) {
		c->v6 |= gw;
		*id = fib_nh;
	} else {
		c->v6 &= (uint8_t)~gw;
		*id = 0;
	}
}

/* An IPv6 leg's next hop: its peer's address (line 0) unless it is a
 * gateway (line 1; the fast path looks in the FIB first). */
static inline const uint8_t *
sy_conn_v6_nh(const struct sy_conn *c, const struct sy_conn_v6 *a, unsigned leg)
{
	if (c->v6 & (SY_V6_CLIENT_GW << leg))
		return leg == SY_LEG_CLIENT ? a->client_nh : a->backend_nh;
	return leg == SY_LEG_CLIENT ? a->client : a->backend;
}

#endif
