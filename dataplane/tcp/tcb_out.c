/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A terminated connection's output side (tcb.h): segments from the send
 * queue (headers in a fresh mbuf, payload as indirect mbufs on the queued
 * bytes: nothing copied), ACKs with SACK blocks, FIN, RST, and the timers
 * that drive them: retransmission (RFC 6298), delayed ACK, zero-window
 * probe, TIME_WAIT.
 */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "net/cksum.h"
#include "net/net.h"
#include "tcp/tcb.h"
#include "tcp/tcp_isn.h"
#include "tcp/tcp_opts.h"
#include "tcp/tcp_out.h"
#include "tcp/tcp_seq.h"
#include "worker.h"

static inline uint64_t
in_ms(const struct sy_worker *w, uint32_t ms)
{
	return w->now + sy_ms_to_tsc(w, ms);
}

static inline uint32_t
our_tsval(const struct sy_worker *w, const struct sy_tcb *t)
{
	return sy_tcp_ts_now(w) + t->ts_off;
}

/* The window we advertise: what rcvbuf leaves, never shrinking the right
 * edge already promised (RFC 9293 3.8.6.2.2), scaled. */
static uint16_t
window_field(struct sy_tcb *t)
{
	uint32_t held = t->rcvq.bytes, room, edge;
	unsigned i;

	for (i = 0; i < t->n_ooo; i++)
		held += t->ooo[i].len;
	room = t->rcvbuf > held ? t->rcvbuf - held : 0;
	/* Silly window avoidance (RFC 9293 3.8.6.2.2): do not open by less
	 * than an MSS unless it opens to everything. */
	if (room < t->rcv_mss && room < t->rcvbuf / 2)
		room = 0;
	edge = t->rcv_nxt + room;
	if (SEQ_LT(edge, t->rcv_adv))
		edge = t->rcv_adv;
	room = edge - t->rcv_nxt;
	room >>= t->rcv_ws;
	if (room > 65535)
		room = 65535;
	t->rcv_adv = t->rcv_nxt + (room << t->rcv_ws);
	return (uint16_t)room;
}

/* SACK blocks for what we hold out of order (RFC 2018): the block holding
 * the segment that arrived last first (4: MUST), then the others as held,
 * up to three (with timestamps). */
static unsigned
write_sack(const struct sy_tcb *t, uint8_t *buf, unsigned max_blocks)
{
	uint32_t start[SY_TCB_OOO_MAX], end[SY_TCB_OOO_MAX];
	unsigned n = 0, i, j, len;

	for (i = 0; i < t->n_ooo; i++) {
		uint32_t s = t->ooo[i].seq, e = s + t->ooo[i].len;
		bool merged = false;

		for (j = 0; j < n; j++) {
			if (SEQ_LEQ(s, end[j]) && SEQ_GEQ(e, start[j])) {
				if (SEQ_LT(s, start[j]))
					start[j] = s;
				if (SEQ_GT(e, end[j]))
					end[j] = e;
				merged = true;
				break;
			}
		}
		if (!merged) {
			start[n] = s;
			end[n] = e;
			n++;
		}
	}
	if (n == 0)
		return 0;
	for (j = 0; j < n; j++) {
		if (SEQ_GEQ(t->ooo_recent, start[j]) && SEQ_LT(t->ooo_recent, end[j])) {
			uint32_t s0 = start[j], e0 = end[j];

			memmove(start + 1, start, j * sizeof(start[0]));
			memmove(end + 1, end, j * sizeof(end[0]));
			start[0] = s0;
			end[0] = e0;
			break;
		}
	}
	if (n > max_blocks)
		n = max_blocks;
	buf[0] = 1; /* NOP NOP, then kind 5 */
	buf[1] = 1;
	buf[2] = 5;
	buf[3] = (uint8_t)(2 + 8 * n);
	len = 4;
	for (i = 0; i < n; i++) {
		uint32_t s = rte_cpu_to_be_32(start[i]), e = rte_cpu_to_be_32(end[i]);

		memcpy(buf + len, &s, 4);
		memcpy(buf + len + 4, &e, 4);
		len += 8;
	}
	return len;
}

/*
 * The TCP checksum of a header in one buffer and a payload chain (our own
 * sum, net/cksum.h: rte_ipv4_udptcp_cksum_mbuf in DPDK 22.11 folds its sum
 * once, and a carry left over made every odd-length payload's checksum one
 * off; and it adds 16 bits at a time).
 */
static uint16_t
tcp_cksum(const void *l3, const struct rte_tcp_hdr *th, uint32_t thlen, uint32_t len,
	  const struct rte_mbuf *payload)
{
	uint64_t sum = sy_cksum_add(sy_l3_phdr_sum(l3, IPPROTO_TCP, thlen + len), th, thlen);

	/* The header is a whole number of 32-bit words: the payload starts
	 * at an even offset. */
	return (uint16_t)~sy_cksum_chain(sum, payload, 0, UINT32_MAX);
}

/*
 * One segment: seq, flags, and `len` payload bytes of sndq from seq (which
 * is at or after snd_una). Returns 0 or -ENOBUFS.
 */
static int
send_segment(struct sy_worker *w, struct sy_tcb *t, uint32_t seq, uint32_t len, uint8_t flags)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->sh->pool), *payload = NULL;
	struct rte_tcp_hdr *th;
	struct sy_seg s;
	uint8_t opts[40];
	unsigned olen = 0, l3len;
	uint16_t hlen;
	void *l3;

	if (m == NULL) {
		w->counters.drops[SY_DROP_NO_MBUF]++;
		return -ENOBUFS;
	}
	if (len > 0) {
		payload = sy_mq_clone_range(&t->sndq, seq - t->snd_una, len, w->sh->pool);
		if (payload == NULL) {
			rte_pktmbuf_free(m);
			w->counters.drops[SY_DROP_NO_MBUF]++;
			return -ENOBUFS;
		}
	}
	if (t->flags & SY_TCB_F_TS)
		olen = sy_tcp_write_ts_opt(opts, our_tsval(w, t), t->ts_recent);
	if ((t->flags & SY_TCB_F_SACK) && t->n_ooo > 0 && !(flags & RTE_TCP_RST_FLAG))
		olen += write_sack(t, opts + olen, (t->flags & SY_TCB_F_TS) ? 3 : 4);
	sy_tcb_seg(t, &s);
	s.seq = seq;
	s.ack = t->rcv_nxt;
	s.flags = flags;
	s.win = (flags & RTE_TCP_RST_FLAG) ? 0 : window_field(t);
	l3len = sy_seg_ip_hdr_len(&s);
	hlen = (uint16_t)(l3len + sizeof(*th) + olen);
	l3 = rte_pktmbuf_append(m, hlen);
	if (l3 == NULL) {
		rte_pktmbuf_free(m);
		rte_pktmbuf_free(payload);
		w->counters.drops[SY_DROP_NO_MBUF]++;
		return -ENOBUFS;
	}
	th = sy_tcp_write_headers(l3, (uint16_t)(hlen + len), &s, opts, olen);
	t->last_ack_sent = t->rcv_nxt;
	th->cksum = tcp_cksum(l3, th, sizeof(*th) + olen, len, payload);
	if (payload != NULL)
		rte_pktmbuf_chain(m, payload);
	m->l3_len = (uint16_t)l3len;
	if (flags & RTE_TCP_ACK_FLAG)
		t->flags &= (uint16_t)~(SY_TCB_F_ACK_NOW | SY_TCB_F_DELACK);
	t->delack_at = 0;
	w->counters.proxy_segs_out++;
	if (t->v6) {
		sy_ipv6_output_nh(w, m, t->out_if, t->nh6);
		return 0;
	}
	/* sy_ipv4_output_nh leaves the IPv4 header as it is (the splice path
	 * adjusts checksums incrementally): ours is new. */
	{
		struct rte_ipv4_hdr *ip = l3;

		ip->hdr_checksum = rte_ipv4_cksum(ip);
	}
	sy_ipv4_output_nh(w, m, t->out_if, t->nh);
	return 0;
}

static void
send_syn(struct sy_worker *w, struct sy_tcb *t)
{
	struct sy_tcp_syn_opts o;
	struct sy_seg s;

	memset(&o, 0, sizeof(o));
	o.mss = t->rcv_mss;
	o.wscale = t->rcv_ws;
	o.sack_ok = true;
	o.ts_ok = true;
	o.tsval = our_tsval(w, t);
	sy_tcb_seg(t, &s);
	s.seq = t->iss;
	s.flags = RTE_TCP_SYN_FLAG;
	s.win = 65535; /* a SYN's window is never scaled */
	s.syn = &o;
	sy_tcp_send(w, &s);
}

void
sy_tcb_connect(struct sy_worker *w, struct sy_tcb *t, uint16_t mss, uint32_t rcvbuf)
{
	const struct sy_leg_clock *lc = &w->sh->leg_clock;

	sy_mq_init(&t->sndq);
	sy_mq_init(&t->rcvq);
	t->iss = sy_backend_isn(lc, w->now, t->saddr, t->daddr, t->sport, t->dport);
	t->ts_off = sy_backend_tsval(lc, w->now, t->saddr, t->daddr) - sy_tcp_ts_now(w);
	t->snd_una = t->snd_nxt = t->snd_max = t->iss;
	t->rcv_mss = mss;
	t->mss = 536;
	t->rcvbuf = rcvbuf;
	/* Enough scale that rcvbuf fits the 16-bit field. */
	t->rcv_ws = 0;
	while ((rcvbuf >> t->rcv_ws) > 65535 && t->rcv_ws < 14)
		t->rcv_ws++;
	t->rto_ms = SY_TCB_RTO_INIT_MS;
	t->state = SY_TCPS_SYN_SENT;
	t->backoff = 0;
	send_syn(w, t);
	t->rto_at = in_ms(w, t->rto_ms);
}

void
sy_tcb_stale_ack_retry(struct sy_worker *w, struct sy_tcb *t)
{
	if (!(t->events & SY_TCB_EV_STALE_ACK))
		return;
	w->counters.backend_stale_acks++;
	t->events &= (uint8_t)~SY_TCB_EV_STALE_ACK;
	if (t->backoff < SY_TCB_SYN_RETRIES) {
		t->backoff++;
		send_syn(w, t);
	}
}

/* Bytes in flight, and the FIN's place (it takes one sequence number). */
static inline uint32_t
data_end(const struct sy_tcb *t)
{
	return t->snd_una + t->sndq.bytes;
}

/* Is seq inside a block the peer said it holds? Then a retransmission
 * skips it (RFC 6675's idea, without its whole pipe accounting). */
static uint32_t
sacked_until(const struct sy_tcb *t, uint32_t seq)
{
	unsigned i, moved;

	/* Blocks come in any order: follow them until none starts at or
	 * before seq and ends beyond it. */
	do {
		moved = 0;
		for (i = 0; i < t->n_sack; i++)
			if (SEQ_GEQ(seq, t->sack[i].start) && SEQ_LT(seq, t->sack[i].end)) {
				seq = t->sack[i].end;
				moved = 1;
			}
	} while (moved);
	return seq;
}

/* The highest byte the peer reported holding, or snd_una. */
static uint32_t
sack_high(const struct sy_tcb *t)
{
	uint32_t high = t->snd_una;
	unsigned i;

	for (i = 0; i < t->n_sack; i++)
		if (SEQ_GT(t->sack[i].end, high))
			high = t->sack[i].end;
	return high;
}

/* Retransmit one segment's worth from seq (fast retransmit / partial ACK). */
void
sy_tcb_retransmit_one(struct sy_worker *w, struct sy_tcb *t, uint32_t seq)
{
	uint32_t end = data_end(t), len;

	seq = sacked_until(t, seq);
	if (SEQ_GEQ(seq, end)) {
		if ((t->flags & SY_TCB_F_FIN_SENT) && seq == end)
			send_segment(w, t, seq, 0, RTE_TCP_FIN_FLAG | RTE_TCP_ACK_FLAG);
		return;
	}
	len = RTE_MIN(end - seq, (uint32_t)t->mss);
	w->counters.proxy_retransmits++;
	send_segment(w, t, seq, len,
		     RTE_TCP_ACK_FLAG | (seq + len == end && (t->flags & SY_TCB_F_FIN_SENT) ?
						 RTE_TCP_FIN_FLAG : 0));
}

/*
 * In recovery: the next hole from rexmit_nxt that the peer has not SACKed.
 * The first one (at snd_una) always goes; later ones only below the
 * highest SACKed byte, since past it nothing is known to be lost.
 *
 * When every hole went once and the peer goes on SACKing data we sent
 * after that round of retransmissions began (three segments of it), a
 * retransmission that is still missing was lost too (RACK's reasoning,
 * RFC 8985, by sequence instead of by time): the round starts again at
 * snd_una rather than waiting for the RTO.
 */
void
sy_tcb_retransmit_hole(struct sy_worker *w, struct sy_tcb *t)
{
	uint32_t seq = sacked_until(t, SEQ_LT(t->rexmit_nxt, t->snd_una) ? t->snd_una : t->rexmit_nxt);
	uint32_t high = sack_high(t);

	if (seq != t->snd_una && SEQ_GEQ(seq, high)) {
		if (!SEQ_GT(high, t->rexmit_round + 3u * t->mss))
			return;
		t->rexmit_round = t->snd_max;
		seq = sacked_until(t, t->snd_una);
		if (SEQ_GEQ(seq, high))
			return;
	}
	if (seq == t->snd_una && SEQ_LEQ(t->rexmit_nxt, t->snd_una))
		t->rexmit_round = t->snd_max;
	sy_tcb_retransmit_one(w, t, seq);
	t->rexmit_nxt = seq + t->mss;
}

/*
 * Tail loss probe (RFC 8985 7). With a small window a flight draws one or
 * two ACKs; when the last of them is lost, nothing more comes back and
 * only the RTO (200 ms at least) would move the connection on. Two
 * smoothed RTTs of silence send a probe instead: a new segment if the
 * window has one, else the last one again. Its ACK tells what arrived;
 * a real loss then goes to fast recovery by the SACK it draws.
 */
void
sy_tcb_arm_tlp(struct sy_worker *w, struct sy_tcb *t)
{
	uint32_t pto;

	t->tlp_at = 0;
	if (t->srtt8 == 0 || t->snd_una == t->snd_max || t->backoff != 0 ||
	    (t->flags & SY_TCB_F_TLP))
		return;
	if ((t->flags & SY_TCB_F_RECOVERY) && !(t->flags & SY_TCB_F_SACK))
		return;
	pto = RTE_MAX((t->srtt8 >> 3) * 2, (uint32_t)SY_TCB_TLP_MIN_MS);
	if (t->snd_max - t->snd_una <= t->mss)
		pto += SY_TCB_DELACK_MS; /* one segment: the peer may delay its ACK */
	if (pto < t->rto_ms)
		t->tlp_at = in_ms(w, pto);
}

void
sy_tcb_enter_recovery(struct sy_worker *w, struct sy_tcb *t)
{
	sy_cc_on_recovery_start(w, t);
	t->recover = t->snd_max;
	t->flags |= SY_TCB_F_RECOVERY;
	t->flags &= (uint16_t)~SY_TCB_F_RTT_TIMING;
	t->reo_at = 0;
	w->counters.proxy_fast_retransmits++;
	t->rexmit_nxt = t->snd_una;
	sy_tcb_retransmit_hole(w, t);
	t->rto_at = in_ms(w, t->rto_ms);
	sy_tcb_arm_tlp(w, t); /* the recovery probe (tlp_fired) */
}

/*
 * RACK's reordering window (RFC 8985 6.2), by sequence: the peer SACKed
 * data above snd_una, and segments go out in sequence order, so the
 * segment at snd_una left before data that has arrived. Unless it is only
 * reordered, it is lost: a quarter of the smoothed RTT later (1 ms at
 * least) recovery starts. Three duplicate ACKs or three segments' worth
 * SACKed start it sooner; with a window of two or three segments (5 %
 * loss holds a congestion window there) neither ever comes, and the tail
 * probe's SACK alone showed the hole while the RTO (200 ms) waited.
 * Armed once per hole: a later ACK does not push it back.
 */
static inline bool
hole_below_sacked(const struct sy_tcb *t)
{
	return (t->flags & SY_TCB_F_SACK) && !(t->flags & SY_TCB_F_RECOVERY) &&
	       t->snd_una != t->snd_max && t->n_sack != 0;
}

void
sy_tcb_arm_reo(struct sy_worker *w, struct sy_tcb *t)
{
	if (!hole_below_sacked(t) || t->srtt8 == 0) {
		t->reo_at = 0; /* (no RTT yet: the probe and the RTO watch) */
		return;
	}
	if (t->reo_at == 0)
		t->reo_at = in_ms(w, RTE_MAX((t->srtt8 >> 3) / 4, (uint32_t)SY_TCB_REO_MIN_MS));
}

static void
reo_fired(struct sy_worker *w, struct sy_tcb *t)
{
	t->reo_at = 0;
	if (!hole_below_sacked(t))
		return;
	w->counters.proxy_reorder_recoveries++;
	sy_tcb_enter_recovery(w, t);
}

static void
tlp_fired(struct sy_worker *w, struct sy_tcb *t)
{
	uint32_t end = data_end(t);

	t->tlp_at = 0;
	if (t->snd_una == t->snd_max)
		return;
	t->flags |= SY_TCB_F_TLP;
	if (t->flags & SY_TCB_F_RECOVERY) {
		/* In SACK recovery, two smoothed RTTs without an ACK that
		 * moves snd_una: the retransmission at snd_una, or the ACK
		 * it drew, was lost too (RACK's reasoning by time, RFC 8985
		 * 6.2). A Linux receiver compresses its SACKs into few ACKs,
		 * so the duplicates that would show it may never come; the
		 * first hole goes again now, not after the RTO. */
		w->counters.proxy_recovery_probes++;
		t->rexmit_round = t->snd_max;
		t->rexmit_nxt = t->snd_una + t->mss;
		t->flags &= (uint16_t)~SY_TCB_F_RTT_TIMING;
		sy_tcb_retransmit_one(w, t, t->snd_una);
	} else {
		w->counters.proxy_tail_probes++;
		if (SEQ_LT(t->snd_nxt, end) && t->snd_nxt - t->snd_una + t->mss <= t->snd_wnd) {
			/* New data: one segment past the congestion window. */
			uint32_t cwnd = t->cwnd;

			t->cwnd = t->snd_nxt - t->snd_una + t->mss;
			sy_tcb_output(w, t);
			t->cwnd = cwnd;
		} else {
			/* The last segment again (the FIN alone when only it
			 * is out); Karn: its ACK times nothing. */
			t->flags &= (uint16_t)~SY_TCB_F_RTT_TIMING;
			sy_tcb_retransmit_one(w, t,
					      end - RTE_MIN(end - t->snd_una, (uint32_t)t->mss));
		}
	}
	/* The RTO counts from the probe (RFC 8985 7.3), so that the probe's
	 * own ACK has a whole RTO to come back in. */
	t->rto_at = in_ms(w, t->rto_ms);
}

void
sy_tcb_output(struct sy_worker *w, struct sy_tcb *t)
{
	uint32_t wnd, end, sent = 0, sacked = 0;

	if (t->state == SY_TCPS_CLOSED || t->state == SY_TCPS_SYN_SENT)
		return;
	if (t->state == SY_TCPS_TIME_WAIT) {
		if (t->flags & SY_TCB_F_ACK_NOW)
			send_segment(w, t, t->snd_nxt, 0, RTE_TCP_ACK_FLAG);
		return;
	}
	end = data_end(t);
	if (t->snd_una == t->snd_max && SEQ_LT(t->snd_nxt, end))
		sy_cc_on_send_after_idle(w, t);
	wnd = t->cwnd;
	/* Limited transmit (RFC 3042): the first two duplicate ACKs each let
	 * one new segment go, so a small window still draws the third. */
	if (t->dupacks > 0 && t->dupacks < 3 && !(t->flags & SY_TCB_F_RECOVERY))
		wnd += (uint32_t)t->dupacks * t->mss;
	wnd = RTE_MIN(t->snd_wnd, wnd);
	/* In SACK recovery the window counts the pipe (RFC 6675 5): data the
	 * peer SACKed has left the network. */
	if ((t->flags & (SY_TCB_F_RECOVERY | SY_TCB_F_SACK)) == (SY_TCB_F_RECOVERY | SY_TCB_F_SACK))
		sacked = sy_tcb_sacked_bytes(t);
	for (;;) {
		uint32_t flight = t->snd_nxt - t->snd_una, len;
		uint8_t fl = RTE_TCP_ACK_FLAG;

		flight = flight > sacked ? flight - sacked : 0;

		if (SEQ_GEQ(t->snd_nxt, end))
			break;
		if (flight >= wnd)
			break;
		len = RTE_MIN(end - t->snd_nxt, wnd - flight);
		len = RTE_MIN(len, (uint32_t)t->mss);
		/* Sender-side silly window avoidance: a short segment only
		 * when it is the last of the queue. */
		if (len < t->mss && t->snd_nxt + len != end && flight > 0)
			break;
		if (t->snd_nxt + len == end) {
			fl |= RTE_TCP_PSH_FLAG;
			if ((t->flags & SY_TCB_F_FIN_QUEUED) && !(t->flags & SY_TCB_F_FIN_SENT))
				fl |= RTE_TCP_FIN_FLAG;
		}
		if (send_segment(w, t, t->snd_nxt, len, fl) < 0)
			break;
		if (!(t->flags & (SY_TCB_F_TS | SY_TCB_F_RTT_TIMING)) && t->backoff == 0) {
			t->flags |= SY_TCB_F_RTT_TIMING;
			t->rtt_seq = t->snd_nxt;
			t->rtt_ms_start = sy_tcp_ts_now(w);
		}
		t->snd_nxt += len;
		if (fl & RTE_TCP_FIN_FLAG) {
			t->flags |= SY_TCB_F_FIN_SENT;
			t->snd_nxt++;
		}
		if (SEQ_GT(t->snd_nxt, t->snd_max))
			t->snd_max = t->snd_nxt;
		sent++;
	}
	/* A FIN alone, once everything before it is sent. */
	if ((t->flags & SY_TCB_F_FIN_QUEUED) && !(t->flags & SY_TCB_F_FIN_SENT) &&
	    t->snd_nxt == end) {
		if (send_segment(w, t, t->snd_nxt, 0, RTE_TCP_FIN_FLAG | RTE_TCP_ACK_FLAG) == 0) {
			t->flags |= SY_TCB_F_FIN_SENT;
			t->snd_nxt++;
			if (SEQ_GT(t->snd_nxt, t->snd_max))
				t->snd_max = t->snd_nxt;
			sent++;
		}
	}
	if (sent == 0 && (t->flags & SY_TCB_F_ACK_NOW))
		send_segment(w, t, t->snd_nxt, 0, RTE_TCP_ACK_FLAG);
	if (t->snd_nxt != t->snd_una) {
		t->persist_at = 0;
		if (t->rto_at == 0)
			t->rto_at = in_ms(w, t->rto_ms);
		if (sent > 0)
			sy_tcb_arm_tlp(w, t);
	} else if (SEQ_LT(t->snd_nxt, end) && t->snd_wnd == 0 && t->persist_at == 0) {
		/* Zero window with data waiting: probe (RFC 9293 3.8.6.1). */
		t->persist_at = in_ms(w, t->rto_ms);
	}
}

void
sy_tcb_close(struct sy_tcb *t)
{
	if (t->flags & SY_TCB_F_FIN_QUEUED)
		return;
	t->flags |= SY_TCB_F_FIN_QUEUED;
	if (t->state == SY_TCPS_ESTABLISHED)
		t->state = SY_TCPS_FIN_WAIT_1;
	else if (t->state == SY_TCPS_CLOSE_WAIT)
		t->state = SY_TCPS_LAST_ACK;
}

void
sy_tcb_release(struct sy_tcb *t)
{
	unsigned i;

	sy_mq_free(&t->sndq);
	sy_mq_free(&t->rcvq);
	for (i = 0; i < t->n_ooo; i++)
		rte_pktmbuf_free(t->ooo[i].m);
	t->n_ooo = 0;
	t->rto_at = t->delack_at = t->persist_at = t->tw_at = t->tlp_at = 0;
}

void
sy_tcb_abort(struct sy_worker *w, struct sy_tcb *t)
{
	if (t->state != SY_TCPS_CLOSED && t->state != SY_TCPS_TIME_WAIT) {
		struct sy_seg s;

		sy_tcb_seg(t, &s);
		/* In SYN-SENT our SYN took iss: a backend that got it (in
		 * SYN-RECEIVED) accepts a RST at iss + 1 only. */
		s.seq = t->state == SY_TCPS_SYN_SENT ? t->iss + 1 : t->snd_nxt;
		s.ack = t->rcv_nxt;
		s.flags = RTE_TCP_RST_FLAG | (t->state == SY_TCPS_SYN_SENT ? 0 : RTE_TCP_ACK_FLAG);
		sy_tcp_send(w, &s);
	}
	t->state = SY_TCPS_CLOSED;
	sy_tcb_release(t);
}

void
sy_tcb_consumed(struct sy_worker *w, struct sy_tcb *t)
{
	uint32_t held = t->rcvq.bytes, room, adv;

	if (!sy_tcb_synchronized(t) || (t->flags & SY_TCB_F_FIN_RCVD))
		return;
	room = t->rcvbuf > held ? t->rcvbuf - held : 0;
	/* Compared as the window field can say it: without scaling a
	 * 256 KB buffer still shows as 65535, and "it grew" would be true
	 * after every segment (no delayed ACK on such a leg). */
	room = RTE_MIN(room, (uint32_t)65535 << t->rcv_ws);
	adv = t->rcv_adv - t->rcv_nxt;
	/* Tell the peer when the window grew by two segments or half the
	 * buffer (RFC 9293 3.8.6.2.2's receiver side). */
	if (room >= adv + 2u * t->rcv_mss || (adv == 0 && room >= t->rcv_mss) ||
	    room - adv >= t->rcvbuf / 2)
		t->flags |= SY_TCB_F_ACK_NOW;
}

uint32_t
sy_tcb_send_room(const struct sy_tcb *t, uint32_t sndbuf)
{
	if (t->flags & SY_TCB_F_FIN_QUEUED)
		return 0;
	return t->sndq.bytes < sndbuf ? sndbuf - t->sndq.bytes : 0;
}

uint64_t
sy_tcb_next_timer(const struct sy_tcb *t)
{
	uint64_t when = 0, at[] = { t->rto_at, t->delack_at, t->persist_at,
				    t->tw_at, t->tlp_at, t->ka_at, t->reo_at };
	unsigned i;

	for (i = 0; i < RTE_DIM(at); i++)
		if (at[i] != 0 && (when == 0 || at[i] < when))
			when = at[i];
	return when;
}

static void
rto_fired(struct sy_worker *w, struct sy_tcb *t)
{
	t->rto_at = t->tlp_at = t->reo_at = 0;
	if (t->snd_una == t->snd_max && t->state != SY_TCPS_SYN_SENT)
		return; /* everything was acknowledged meanwhile */
	t->backoff++;
	w->counters.proxy_rto++;
	if (t->state == SY_TCPS_SYN_SENT ? t->backoff >= SY_TCB_SYN_RETRIES
					 : t->backoff > SY_TCB_RETRIES) {
		t->events |= SY_TCB_EV_TIMEOUT;
		sy_tcb_abort(w, t);
		return;
	}
	t->rto_ms = RTE_MIN(t->rto_ms * 2, (uint32_t)SY_TCB_RTO_MAX_MS);
	if (t->state == SY_TCPS_SYN_SENT) {
		send_syn(w, t);
		t->rto_at = in_ms(w, t->rto_ms);
		return;
	}
	/* RFC 5681 3.1: after a loss by timeout, slow start from one segment
	 * (the algorithm sets ssthresh); RFC 6582: recovery ends; go back to
	 * snd_una (what the peer SACKed is skipped by sy_tcb_retransmit_one's
	 * rule when sent again). */
	sy_cc_on_rto(w, t, t->backoff == 1);
	t->flags &= (uint16_t)~(SY_TCB_F_RECOVERY | SY_TCB_F_RTT_TIMING);
	t->dupacks = 0;
	t->recover = t->snd_max;
	/* Karn: a retransmitted segment's ACK does not time it. */
	t->snd_nxt = t->snd_una;
	if (t->flags & SY_TCB_F_FIN_SENT) {
		/* The FIN goes again with the data that precedes it. */
		t->flags &= (uint16_t)~SY_TCB_F_FIN_SENT;
	}
	w->counters.proxy_retransmits++;
	sy_tcb_output(w, t);
	if (t->rto_at == 0)
		t->rto_at = in_ms(w, t->rto_ms);
}

static void
persist_fired(struct sy_worker *w, struct sy_tcb *t)
{
	t->persist_at = 0;
	if (t->snd_wnd != 0 || t->snd_nxt != t->snd_una || t->sndq.bytes == 0)
		return;
	/* A zero-length segment with an old sequence number draws an ACK with
	 * the current window; backoff as the RTO does. */
	/* A peer that answers its probes may keep its window shut as long as
	 * it likes (RFC 9293 3.8.6.1); one that answers none is gone. */
	if (++t->probes_unanswered > SY_TCB_RETRIES) {
		t->events |= SY_TCB_EV_TIMEOUT;
		sy_tcb_abort(w, t);
		return;
	}
	send_segment(w, t, t->snd_una - 1, 0, RTE_TCP_ACK_FLAG);
	w->counters.proxy_window_probes++;
	/* The probes' own backoff: answered probes are not lost segments,
	 * and must not use up the retransmissions' budget (RFC 6298 5.5). */
	t->probes = (uint8_t)RTE_MIN(t->probes + 1, 12);
	t->persist_at = in_ms(w, RTE_MIN(t->rto_ms << t->probes, (uint32_t)SY_TCB_RTO_MAX_MS));
}

void
sy_tcb_keepalive(struct sy_worker *w, struct sy_tcb *t, uint32_t idle_ms)
{
	t->ka_idle_ms = idle_ms;
	t->ka_sent = 0;
	t->ka_at = idle_ms ? in_ms(w, idle_ms) : 0;
}

static void
keepalive_fired(struct sy_worker *w, struct sy_tcb *t)
{
	t->ka_at = 0;
	if (t->ka_idle_ms == 0 ||
	    (t->state != SY_TCPS_ESTABLISHED && t->state != SY_TCPS_CLOSE_WAIT))
		return;
	if (t->snd_una != t->snd_max || t->persist_at != 0) {
		/* Ours in flight: the RTO (or the window probes) will
		 * find out whether the peer is there. */
		t->ka_sent = 0;
		t->ka_at = in_ms(w, t->ka_idle_ms);
		return;
	}
	if (t->ka_sent >= SY_TCB_KA_PROBES) {
		t->events |= SY_TCB_EV_TIMEOUT;
		sy_tcb_abort(w, t);
		return;
	}
	/* SEG.SEQ = SND.NXT - 1: outside the peer's window, so it answers
	 * with an ACK (RFC 9293 3.10.7.4) and delivers nothing. */
	send_segment(w, t, t->snd_nxt - 1, 0, RTE_TCP_ACK_FLAG);
	w->counters.proxy_keepalive_probes++;
	t->ka_sent++;
	t->ka_at = in_ms(w, SY_TCB_KA_INTERVAL_MS);
}

void
sy_tcb_timers(struct sy_worker *w, struct sy_tcb *t)
{
	if (t->tw_at != 0 && t->tw_at <= w->now) {
		t->tw_at = 0;
		t->state = SY_TCPS_CLOSED;
		sy_tcb_release(t);
		return;
	}
	if (t->reo_at != 0 && t->reo_at <= w->now)
		reo_fired(w, t);
	if (t->tlp_at != 0 && t->tlp_at <= w->now)
		tlp_fired(w, t);
	if (t->rto_at != 0 && t->rto_at <= w->now)
		rto_fired(w, t);
	if (t->state == SY_TCPS_CLOSED)
		return;
	if (t->persist_at != 0 && t->persist_at <= w->now)
		persist_fired(w, t);
	if (t->ka_at != 0 && t->ka_at <= w->now) {
		keepalive_fired(w, t);
		if (t->state == SY_TCPS_CLOSED)
			return;
	}
	if (t->delack_at != 0 && t->delack_at <= w->now) {
		t->delack_at = 0;
		t->flags |= SY_TCB_F_ACK_NOW;
		sy_tcb_output(w, t);
	}
}
