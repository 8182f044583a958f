/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A terminated TCP connection (the proxy mode, docs/architecture.md 4.4 and
 * section 10): the router is one end of it, on the client leg (the handshake
 * was the SYN cookie's) or on a backend leg (the router's SYN, with its own
 * ISN and TSval from tcp_isn.h). No sockets, no callbacks: the owner feeds
 * segments to sy_tcb_input, timers to sy_tcb_timers, moves bytes between the
 * queues and calls sy_tcb_output; after each call it looks at the queues and
 * at `state` / `events` to see what happened.
 *
 * What it does (RFC 9293 unless said): the acceptability test, RST and SYN
 * checks with RFC 5961 challenge ACKs (rate-limited per connection), PAWS
 * (RFC 7323), window scaling, SACK blocks towards the peer for what is held
 * out of order (RFC 2018) and the peer's SACK blocks used to skip what it
 * holds when retransmitting, RTT and RTO per RFC 6298 (timestamps or Karn),
 * exponential backoff, NewReno fast retransmit and recovery (RFC 6582),
 * congestion control by CUBIC (RFC 9438) or NewReno (RFC 5681): tcp_cc.h,
 * delayed ACKs, zero-window
 * probes, keep-alive probes when the owner asks, FIN and RST in every state, a short TIME_WAIT (tcp_isn.h keeps
 * reused 4-tuples safe, so TIME_WAIT holds no port for long).
 *
 * Memory is bounded: the receive queue by the window we advertise (bytes
 * the owner has not taken shrink it: back-pressure towards a fast sender),
 * the out-of-order store by SY_TCB_OOO_MAX segments, the send queue by what
 * the owner puts in (sy_tcb_send_room).
 */
#ifndef SY_TCB_H
#define SY_TCB_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "tcp/mbuf_queue.h"
#include "tcp/tcp_cc.h"
#include "tcp/tcp_out.h"

struct rte_mbuf;
struct sy_worker;

enum sy_tcb_state {
	SY_TCPS_CLOSED = 0,
	SY_TCPS_SYN_SENT,
	SY_TCPS_ESTABLISHED,
	SY_TCPS_FIN_WAIT_1,
	SY_TCPS_FIN_WAIT_2,
	SY_TCPS_CLOSE_WAIT,
	SY_TCPS_CLOSING,
	SY_TCPS_LAST_ACK,
	SY_TCPS_TIME_WAIT,
};

/* What happened since the owner last cleared `events`. */
#define SY_TCB_EV_CONNECTED 0x01 /* SYN-SENT -> ESTABLISHED */
#define SY_TCB_EV_DATA 0x02      /* bytes appended to rcvq */
#define SY_TCB_EV_FIN 0x04       /* the peer's FIN arrived in order */
#define SY_TCB_EV_RESET 0x08     /* the peer reset the connection (CLOSED) */
#define SY_TCB_EV_SENT 0x10      /* sndq bytes were acknowledged: room */
#define SY_TCB_EV_REFUSED 0x20   /* RST to our SYN */
#define SY_TCB_EV_TIMEOUT 0x40   /* retransmissions gave up (CLOSED) */
#define SY_TCB_EV_STALE_ACK 0x80 /* SYN-SENT: an ACK for an older connection */

/* flags */
#define SY_TCB_F_TS 0x0001       /* timestamps in use */
#define SY_TCB_F_SACK 0x0002     /* SACK permitted both ways */
#define SY_TCB_F_ACK_NOW 0x0004  /* send an ACK on the next output */
#define SY_TCB_F_FIN_QUEUED 0x0008 /* the owner closed: FIN after sndq */
#define SY_TCB_F_FIN_SENT 0x0010
#define SY_TCB_F_FIN_RCVD 0x0020
#define SY_TCB_F_RECOVERY 0x0040 /* fast recovery (RFC 6582) */
#define SY_TCB_F_RTT_TIMING 0x0080 /* rtt_seq is being timed (no timestamps) */
#define SY_TCB_F_DELACK 0x0100   /* one in-order segment not yet acknowledged */
#define SY_TCB_F_TLP 0x0200     /* a tail loss probe is out, not yet acknowledged */

#define SY_TCB_OOO_MAX 16
#define SY_TCB_SACK_MAX 8        /* the peer's SACKed ranges kept (tcb_in.c read_sack) */
#define SY_TCB_RTO_MIN_MS 200    /* Linux's floor; RFC 6298 says 1 s */
#define SY_TCB_RTO_INIT_MS 1000
/* A handshake "RTT" longer than RFC 2988's old initial RTO is taken for no
 * sample: more likely a client whose handshake ACK was lost and whose first
 * segment came only when it had a request (a browser's preconnect), and an
 * RTO of three times that would stall its first loss. */
#define SY_TCB_HS_RTT_MAX_MS 3000
#define SY_TCB_RTO_SYN_LOST_MS 3000 /* RFC 6298 5.7 */
#define SY_TCB_RTO_MAX_MS 60000
#define SY_TCB_RETRIES 8         /* RTOs in a row before giving up */
#define SY_TCB_SYN_RETRIES 3
#define SY_TCB_DELACK_MS 40
#define SY_TCB_TLP_MIN_MS 2      /* the probe timeout's floor: Linux's (TCP_TIMEOUT_MIN), the timer wheel's tick */
#define SY_TCB_REO_MIN_MS 1      /* the reordering window's floor (RFC 8985 6.2 step 4) */
#define SY_TCB_TIME_WAIT_MS 2000
#define SY_TCB_CHALLENGE_PER_S 10 /* challenge ACKs per connection per second */
#define SY_TCB_KA_INTERVAL_MS 10000 /* keep-alive probes: between unanswered ones */
#define SY_TCB_KA_PROBES 5       /* unanswered in a row before giving up */

struct sy_tcb {
	/* Who we are on this leg, and where segments go. */
	uint32_t saddr, daddr; /* network order */
	uint16_t sport, dport; /* network order */
	uint16_t out_if;
	uint32_t nh;           /* next hop on out_if */
	/* An IPv6 leg (v6 set): these instead of saddr, daddr and nh. */
	bool v6;
	uint8_t saddr6[16], daddr6[16], nh6[16];

	uint8_t state;         /* enum sy_tcb_state */
	uint8_t snd_ws, rcv_ws; /* window shifts in force */
	uint8_t dupacks;
	uint8_t backoff;       /* RTOs in a row */
	uint8_t probes;        /* zero-window probes in a row (their backoff) */
	uint8_t probes_unanswered; /* of them, sent since the peer's last ACK */
	uint8_t ka_sent;       /* keep-alive probes since the peer's last segment */
	uint8_t events;        /* SY_TCB_EV_*, cleared by the owner */
	uint16_t flags;        /* SY_TCB_F_* */
	uint16_t mss;          /* payload bytes per segment we send */
	uint16_t rcv_mss;      /* what we announced (window rounding) */

	uint32_t iss, snd_una, snd_nxt, snd_max, snd_wnd, snd_wl1, snd_wl2;
	uint32_t max_snd_wnd;  /* largest window the peer offered (RFC 5961 5.2) */
	uint32_t irs, rcv_nxt, rcv_adv; /* rcv_adv: right edge we advertised */
	uint32_t last_ack_sent; /* RFC 7323 4.3's Last.ACK.sent */
	uint32_t ooo_recent;    /* sequence number of the last segment held out of order */
	uint32_t rcvbuf;       /* most bytes held in rcvq + ooo */
	uint32_t ts_recent, ts_off; /* ts_off: our TSval = ms clock + ts_off */
	uint32_t cwnd, ssthresh, recover; /* cwnd, ssthresh: tcp_cc.c's (a TLP borrows one segment) */
	struct sy_cc cc;       /* the congestion control algorithm and its state */
	uint32_t rexmit_nxt;   /* in recovery: where the search for the next hole starts */
	uint32_t rexmit_round; /* snd_max when the current round of hole retransmissions began */
	uint32_t rtt_seq;      /* without timestamps: the segment being timed */
	uint32_t rtt_ms_start;
	uint32_t srtt8, rttvar4; /* ms, scaled by 8 and 4 (RFC 6298 as BSD keeps it) */
	uint32_t rto_ms;
	uint32_t challenge_sec; /* second of the last challenge ACKs */
	uint32_t ka_idle_ms;   /* keep-alive: probe after this long without a segment (0: off) */
	uint8_t challenge_n;
	uint8_t n_ooo;
	uint8_t n_sack;

	/* Timers (TSC; 0 = off). The owner arms its record's timer at
	 * sy_tcb_next_timer(). reo_at: the reordering window of a hole
	 * below SACKed data (tcb_out.c sy_tcb_arm_reo). */
	uint64_t rto_at, delack_at, persist_at, tw_at, tlp_at, ka_at, reo_at;

	struct sy_mq sndq; /* from snd_una: unacknowledged, then unsent */
	struct sy_mq rcvq; /* in order, not yet taken by the owner */
	struct {
		struct rte_mbuf *m; /* payload only */
		uint32_t seq, len;
		bool fin;
	} ooo[SY_TCB_OOO_MAX];
	struct {
		uint32_t start, end;
	} sack[SY_TCB_SACK_MAX]; /* the peer holds these (sequence space) */
};

/* The client leg after the cookie handshake: our ISN isn_r, theirs isn_c,
 * the options the cookie kept. `ts_recent` and `tsval_r0` from the ACK. */
struct sy_tcb_accept {
	uint32_t isn_c, isn_r;
	uint16_t mss;      /* what the client may receive */
	uint8_t ws_c;      /* SY_TCP_WS_NONE: no scaling */
	uint8_t ws_r;      /* ours (announced in the SYN-ACK) */
	bool sack_ok, ts_ok;
	uint32_t ts_recent;
	uint32_t tsval_r0; /* our SYN-ACK's TSval (echoed) */
	uint16_t win;      /* the client's last raw window */
	uint32_t rtt_ms;   /* the handshake's RTT sample, at least 1 (0: none) */
};

void sy_tcb_init_accepted(struct sy_worker *w, struct sy_tcb *t, const struct sy_tcb_accept *a,
			  uint32_t rcvbuf);
/* Open a backend leg: send the SYN. Addresses and out_if/nh set by the
 * caller; ISN and TSval from tcp_isn.h. */
void sy_tcb_connect(struct sy_worker *w, struct sy_tcb *t, uint16_t mss, uint32_t rcvbuf);
/* After sy_tcb_input: the peer answered our SYN with an ACK of an older
 * connection on this tuple (EV_STALE_ACK; our RST went): the SYN again at
 * once, up to SY_TCB_SYN_RETRIES times (splice.c's backend_stale_ack, with
 * the same reasons). Clears the event; counted as backend_stale_acks. */
void sy_tcb_stale_ack_retry(struct sy_worker *w, struct sy_tcb *t);
/* One segment of this connection (data at the IPv4 header; checksum
 * checked by the caller). Consumes m. */
void sy_tcb_input(struct sy_worker *w, struct sy_tcb *t, struct rte_mbuf *m);
/* Send what the windows allow, a due ACK, a FIN. */
void sy_tcb_output(struct sy_worker *w, struct sy_tcb *t);
/* Run the timers that are due (the owner's record timer fired). */
void sy_tcb_timers(struct sy_worker *w, struct sy_tcb *t);
/* The earliest armed timer, or 0. */
uint64_t sy_tcb_next_timer(const struct sy_tcb *t);
/* Bytes the owner may still queue for sending (bounded send buffer). */
uint32_t sy_tcb_send_room(const struct sy_tcb *t, uint32_t sndbuf);
/* The owner took bytes from rcvq: maybe open the window (an update when
 * it grew by a lot, so a sender that stopped on a zero window resumes). */
void sy_tcb_consumed(struct sy_worker *w, struct sy_tcb *t);
/* Keep-alive probes (RFC 9293 3.8.4, RFC 1122 4.2.3.6) after idle_ms
 * without a segment from the peer, while nothing of ours is in flight
 * (retransmissions watch the peer then): an ACK one byte below SND.NXT,
 * which a live peer answers. SY_TCB_KA_PROBES unanswered, SY_TCB_KA_INTERVAL_MS
 * apart, and the connection is reset (EV_TIMEOUT). 0 turns them off. */
void sy_tcb_keepalive(struct sy_worker *w, struct sy_tcb *t, uint32_t idle_ms);
/* No more data from us: FIN after what is queued. */
void sy_tcb_close(struct sy_tcb *t);
/* RST now (if synchronized) and CLOSED; queues freed. */
void sy_tcb_abort(struct sy_worker *w, struct sy_tcb *t);
/* Free the queues (no segment sent). */
void sy_tcb_release(struct sy_tcb *t);
/* Loss recovery, from the ACK processing (tcb_in.c) to the sender
 * (tcb_out.c): one segment from seq (past what the peer SACKed), and the
 * next SACK hole from rexmit_nxt. */
void sy_tcb_retransmit_one(struct sy_worker *w, struct sy_tcb *t, uint32_t seq);
void sy_tcb_retransmit_hole(struct sy_worker *w, struct sy_tcb *t);
/* Arm the tail loss probe after a send or an ACK (RFC 8985 7.2). */
void sy_tcb_arm_tlp(struct sy_worker *w, struct sy_tcb *t);
/* Fast recovery starts: the first hole goes now (RFC 6675 5.1 with
 * RFC 6582's `recover`); counted as proxy_fast_retransmits. */
void sy_tcb_enter_recovery(struct sy_worker *w, struct sy_tcb *t);
/* After an ACK: data above snd_una SACKed outside recovery arms the
 * reordering window (RFC 8985 6.2), so a hole too small to draw three
 * duplicate ACKs is retransmitted after it instead of after the RTO. */
void sy_tcb_arm_reo(struct sy_worker *w, struct sy_tcb *t);

static inline bool
sy_tcb_synchronized(const struct sy_tcb *t)
{
	return t->state >= SY_TCPS_ESTABLISHED;
}

/* Bytes the peer holds above snd_una by its SACKs (the scoreboard, tcb_in.c). */
static inline uint32_t
sy_tcb_sacked_bytes(const struct sy_tcb *t)
{
	uint32_t n = 0;
	unsigned i;

	for (i = 0; i < t->n_sack; i++)
		n += t->sack[i].end - t->sack[i].start;
	return n;
}

/* Both directions finished (or reset): the owner may let it go. */
static inline bool
sy_tcb_done(const struct sy_tcb *t)
{
	return t->state == SY_TCPS_CLOSED || t->state == SY_TCPS_TIME_WAIT;
}

/* A segment of ours on t's leg (tcp_out.h): zeroed, with its addresses
 * (either family) and ports. */
static inline void
sy_tcb_seg(const struct sy_tcb *t, struct sy_seg *s)
{
	memset(s, 0, sizeof(*s));
	s->saddr = t->saddr;
	s->daddr = t->daddr;
	s->sport = t->sport;
	s->dport = t->dport;
	if (t->v6) {
		s->saddr6 = t->saddr6;
		s->daddr6 = t->daddr6;
		s->out_if = t->out_if;
	}
}

#endif
