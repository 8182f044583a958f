/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A terminated connection's input side (tcb.h), in RFC 9293 3.10.7's order:
 * SYN-SENT's own rules, then for synchronized states PAWS, acceptability,
 * RST, SYN, ACK (RTT, NewReno recovery, congestion window events to tcp_cc.h,
 * window update, FIN acknowledged), data in order or held out of order, FIN.
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "tcp/tcb.h"
#include "tcp/tcp_seg.h"
#include "tcp/tcp_opts.h"
#include "tcp/tcp_out.h"
#include "tcp/tcp_seq.h"
#include "worker.h"


static inline uint64_t
in_ms(const struct sy_worker *w, uint32_t ms)
{
	return w->now + sy_ms_to_tsc(w, ms);
}

static void rtt_sample(struct sy_tcb *t, uint32_t rtt);

static void
start_window(struct sy_worker *w, struct sy_tcb *t)
{
	sy_cc_init(w, t);
	t->rcv_adv = t->rcv_nxt;
	/* RFC 6582 3.2 step 1: recover starts at the initial sequence
	 * number, so the first recovery is allowed wherever it lies in
	 * sequence space (0 blocked it for half of all ISNs). */
	t->recover = t->iss;
	t->rexmit_nxt = t->rexmit_round = t->iss;
}

void
sy_tcb_init_accepted(struct sy_worker *w, struct sy_tcb *t, const struct sy_tcb_accept *a,
		     uint32_t rcvbuf)
{
	sy_mq_init(&t->sndq);
	sy_mq_init(&t->rcvq);
	t->state = SY_TCPS_ESTABLISHED;
	t->iss = a->isn_r;
	t->snd_una = t->snd_nxt = t->snd_max = a->isn_r + 1;
	t->irs = a->isn_c;
	t->rcv_nxt = a->isn_c + 1;
	t->last_ack_sent = t->rcv_nxt; /* the SYN-ACK's */
	t->mss = a->mss ? a->mss : 536;
	t->rcv_mss = w->sh->mss_max;
	if (a->ws_c != SY_TCP_WS_NONE) {
		t->snd_ws = a->ws_c;
		t->rcv_ws = a->ws_r;
	}
	t->snd_wnd = (uint32_t)a->win << t->snd_ws;
	t->max_snd_wnd = t->snd_wnd;
	t->snd_wl1 = a->isn_c;
	t->snd_wl2 = t->snd_una;
	if (a->sack_ok)
		t->flags |= SY_TCB_F_SACK;
	if (a->ts_ok) {
		t->flags |= SY_TCB_F_TS;
		t->ts_recent = a->ts_recent;
		/* Our SYN-ACK's TSval came from the plain ms clock (the cookie
		 * path), so our clock here has no offset: it stays monotonic. */
		t->ts_off = 0;
		/* Timestamps make room for options in every segment. */
		t->mss = (uint16_t)(t->mss - 12);
	}
	t->rcvbuf = rcvbuf;
	t->rto_ms = SY_TCB_RTO_INIT_MS;
	/* The handshake's RTT (RFC 6298 2.2, as Linux takes it): without
	 * it the first RTO would be 1 s, and neither the tail probe nor the
	 * reordering window (tcb_out.c) could be armed before an ACK of
	 * data timed one. */
	if (a->rtt_ms != 0)
		rtt_sample(t, a->rtt_ms);
	start_window(w, t);
	/* The SYN-ACK advertised 65535 unscaled; the cookie ACK's segment
	 * acknowledged it, so the client may send that much now. */
	t->rcv_adv = t->rcv_nxt + 65535;
}

/* ------------------------------------------------------------ options -- */

/*
 * The peer's SACK blocks (RFC 2018) join what it reported before: the
 * scoreboard, up to SY_TCB_SACK_MAX disjoint ranges above snd_una
 * (RFC 6675 2). A receiver names only its three or four newest blocks in
 * an ACK; with one loss in twenty, a window has more holes than that, and
 * a sender that knew only the last ACK's blocks retransmitted below the
 * newest block alone and left older holes to the RTO (relay_loss.sh's 5 %
 * download: 373 RTOs, 100 s for 100 MB).
 */
static void
sack_merge(struct sy_tcb *t, uint32_t s, uint32_t e)
{
	unsigned i = 0, top;

	/* Absorb every range that overlaps or touches [s, e). */
	while (i < t->n_sack) {
		if (SEQ_LEQ(t->sack[i].start, e) && SEQ_GEQ(t->sack[i].end, s)) {
			if (SEQ_LT(t->sack[i].start, s))
				s = t->sack[i].start;
			if (SEQ_GT(t->sack[i].end, e))
				e = t->sack[i].end;
			t->sack[i] = t->sack[--t->n_sack];
			continue;
		}
		i++;
	}
	if (t->n_sack == SY_TCB_SACK_MAX) {
		/* Full: forget the highest range. The holes below it are
		 * retransmitted first, and the peer names its newest blocks
		 * again in the ACKs to come. */
		for (top = 0, i = 1; i < t->n_sack; i++)
			if (SEQ_GT(t->sack[i].start, t->sack[top].start))
				top = i;
		if (SEQ_LT(s, t->sack[top].start))
			t->sack[top] = t->sack[--t->n_sack];
		else
			return;
	}
	t->sack[t->n_sack].start = s;
	t->sack[t->n_sack].end = e;
	t->n_sack++;
}

/* snd_una moved: ranges it passed go, one it entered starts at it. */
static void
sack_trim(struct sy_tcb *t)
{
	unsigned i = 0;

	while (i < t->n_sack) {
		if (SEQ_LEQ(t->sack[i].end, t->snd_una)) {
			t->sack[i] = t->sack[--t->n_sack];
			continue;
		}
		if (SEQ_LT(t->sack[i].start, t->snd_una))
			t->sack[i].start = t->snd_una;
		i++;
	}
}

/* True when the segment reported a block of data we still hold as
 * unacknowledged (a block below snd_una is old news and ignored). */
static bool
read_sack(struct sy_tcb *t, const struct rte_tcp_hdr *th)
{
	const uint8_t *p = (const uint8_t *)(th + 1);
	const uint8_t *end = (const uint8_t *)th + (th->data_off >> 4) * 4;

	while (p < end) {
		uint8_t kind = p[0], len;

		if (kind == 0)
			break;
		if (kind == 1) {
			p++;
			continue;
		}
		if (p + 1 >= end || (len = p[1]) < 2 || p + len > end)
			break;
		if (kind == 5 && len >= 10 && (len - 2) % 8 == 0) {
			unsigned n = (len - 2u) / 8u, i;
			bool reported = false;

			for (i = 0; i < n; i++) {
				uint32_t s, e;

				memcpy(&s, p + 2 + 8 * i, 4);
				memcpy(&e, p + 6 + 8 * i, 4);
				s = rte_be_to_cpu_32(s);
				e = rte_be_to_cpu_32(e);
				if (SEQ_LEQ(e, t->snd_una) || SEQ_GEQ(s, e) || SEQ_GT(e, t->snd_max))
					continue;
				if (SEQ_LT(s, t->snd_una))
					s = t->snd_una;
				sack_merge(t, s, e);
				reported = true;
			}
			return reported;
		}
		p += len;
	}
	return false;
}

/* -------------------------------------------------------------- timing -- */

/* RFC 6298 2.2-2.4, with BSD's scaled integers (srtt x8, rttvar x4). */
static void
rtt_sample(struct sy_tcb *t, uint32_t rtt)
{
	if (rtt == 0)
		rtt = 1;
	if (t->srtt8 == 0) {
		t->srtt8 = rtt << 3;
		t->rttvar4 = rtt << 1;
	} else {
		int32_t delta = (int32_t)rtt - (int32_t)(t->srtt8 >> 3);

		t->srtt8 = (uint32_t)((int32_t)t->srtt8 + delta);
		if (delta < 0)
			delta = -delta;
		delta -= (int32_t)(t->rttvar4 >> 2);
		t->rttvar4 = (uint32_t)((int32_t)t->rttvar4 + delta);
	}
	t->rto_ms = (t->srtt8 >> 3) + RTE_MAX(1u, t->rttvar4);
	t->rto_ms = RTE_MAX(t->rto_ms, (uint32_t)SY_TCB_RTO_MIN_MS);
	t->rto_ms = RTE_MIN(t->rto_ms, (uint32_t)SY_TCB_RTO_MAX_MS);
}

/* ---------------------------------------------------------------- ACKs -- */

/* RFC 5961: answer with an ACK, at most SY_TCB_CHALLENGE_PER_S a second. */
static void
challenge_ack(struct sy_worker *w, struct sy_tcb *t)
{
	uint32_t sec = sy_tcp_ts_now(w) / 1000;

	if (sec != t->challenge_sec) {
		t->challenge_sec = sec;
		t->challenge_n = 0;
	}
	if (t->challenge_n >= SY_TCB_CHALLENGE_PER_S)
		return;
	t->challenge_n++;
	w->counters.proxy_challenge_acks++;
	t->flags |= SY_TCB_F_ACK_NOW;
}

/* Our FIN is acknowledged: the close-side transitions. */
static void
fin_acked(struct sy_worker *w, struct sy_tcb *t)
{
	switch (t->state) {
	case SY_TCPS_FIN_WAIT_1:
		t->state = SY_TCPS_FIN_WAIT_2;
		break;
	case SY_TCPS_CLOSING:
		t->state = SY_TCPS_TIME_WAIT;
		t->tw_at = in_ms(w, SY_TCB_TIME_WAIT_MS);
		break;
	case SY_TCPS_LAST_ACK:
		t->state = SY_TCPS_CLOSED;
		sy_tcb_release(t);
		break;
	default:
		break;
	}
}

/* Returns false when the segment must go no further. */
static bool
ack_input(struct sy_worker *w, struct sy_tcb *t, const struct rte_tcp_hdr *th, uint32_t seq,
	  uint32_t plen, bool has_ts, uint32_t tsecr)
{
	uint32_t ack = rte_be_to_cpu_32(th->recv_ack);
	uint32_t win = (uint32_t)rte_be_to_cpu_16(th->rx_win) << t->snd_ws;
	uint32_t fin_seq = t->snd_una + t->sndq.bytes; /* where our FIN sits */
	bool fin_in_flight = (t->flags & SY_TCB_F_FIN_SENT) != 0;

	/* RFC 5961 5.2: an ACK beyond what we sent, or older than the
	 * largest window back, gets a challenge. */
	if (SEQ_GT(ack, t->snd_max) ||
	    SEQ_LT(ack, t->snd_una - RTE_MAX(t->max_snd_wnd, 65535u))) {
		challenge_ack(w, t);
		return false;
	}
	bool sacked = false;

	t->probes_unanswered = 0; /* the peer is there */
	if ((t->flags & SY_TCB_F_SACK) && (th->data_off >> 4) > 5)
		sacked = read_sack(t, th);
	if (SEQ_GT(ack, t->snd_una)) {
		uint32_t acked = ack - t->snd_una;
		uint32_t data = RTE_MIN(acked, t->sndq.bytes);

		/* RTT: the echoed timestamp (RFC 7323 4), else Karn's one
		 * timed segment. */
		if (has_ts && tsecr != 0 && t->backoff == 0)
			rtt_sample(t, sy_tcp_ts_now(w) + t->ts_off - tsecr);
		else if ((t->flags & SY_TCB_F_RTT_TIMING) && SEQ_GT(ack, t->rtt_seq)) {
			t->flags &= (uint16_t)~SY_TCB_F_RTT_TIMING;
			rtt_sample(t, sy_tcp_ts_now(w) - t->rtt_ms_start);
		}
		t->backoff = 0;
		sy_mq_drop(&t->sndq, data);
		t->snd_una = ack;
		if (SEQ_LT(t->snd_nxt, t->snd_una))
			t->snd_nxt = t->snd_una;
		t->events |= SY_TCB_EV_SENT;
		if (t->flags & SY_TCB_F_RECOVERY) {
			if (SEQ_GEQ(ack, t->recover)) {
				/* Full ACK: leave recovery (RFC 6582 3.2 step 3). */
				t->flags &= (uint16_t)~SY_TCB_F_RECOVERY;
				sy_cc_on_recovery_end(w, t);
			} else {
				/* Partial ACK: the next hole goes now, the window
				 * deflates by what was acknowledged. */
				if (SEQ_LEQ(t->rexmit_nxt, t->snd_una))
					t->rexmit_nxt = t->snd_una;
				sy_tcb_retransmit_hole(w, t);
				sy_cc_on_recovery_partial_ack(t, acked);
			}
		} else {
			sy_cc_on_ack(w, t, acked);
		}
		t->dupacks = 0;
		sack_trim(t);
		t->rto_at = t->snd_una == t->snd_max ? 0 : in_ms(w, t->rto_ms);
		t->flags &= (uint16_t)~SY_TCB_F_TLP;
		sy_tcb_arm_tlp(w, t);
		if (fin_in_flight && SEQ_GT(ack, fin_seq))
			fin_acked(w, t);
	} else if (ack == t->snd_una && plen == 0 && (win == t->snd_wnd || sacked) &&
		   t->snd_max != t->snd_una && !(th->tcp_flags & RTE_TCP_FIN_FLAG)) {
		/* A duplicate ACK (RFC 5681 2). One that reports SACKed data
		 * counts even when the window moved (RFC 6675 2, "DupAck"):
		 * a receiver that grows its buffer as it goes (Linux) changes
		 * the window in nearly every ACK, and without this the losses
		 * it reports would wait for the RTO. */
		t->dupacks++;
		/* RFC 6582 4.1 keeps duplicate ACKs from before `recover` (those
		 * a go-back-N resend after an RTO draws) from starting another
		 * recovery; one that SACKs data above snd_una reports a real
		 * hole, and waiting for the next RTO to fill it would cost
		 * 200 ms per loss in the resent window. */
		/* Three duplicates, or (RFC 6675 4, IsLost) three segments'
		 * worth SACKed above snd_una: a Linux receiver compresses
		 * its SACKs (tcp_comp_sack_nr), one ACK for many segments
		 * held out of order, so the count alone can stay below
		 * three while the whole window but its first segment
		 * arrived. */
		if ((t->dupacks == 3 || (sacked && sy_tcb_sacked_bytes(t) >= 3u * t->mss)) &&
		    !(t->flags & SY_TCB_F_RECOVERY) && (SEQ_GT(ack, t->recover - 1) || sacked)) {
			sy_tcb_enter_recovery(w, t);
		} else if (t->flags & SY_TCB_F_RECOVERY) {
			sy_cc_on_recovery_dupack(t);
			/* With SACK the peer says which segments are missing
			 * beyond the first: each further duplicate ACK sends
			 * the next hole below its highest SACKed byte, instead
			 * of one hole per round trip (RFC 6675's recovery,
			 * paced by the ACKs rather than its pipe estimate). */
			if (sacked)
				sy_tcb_retransmit_hole(w, t);
		}
	}
	sy_tcb_arm_reo(w, t);
	/* Window update (RFC 9293 3.10.7.4, SND.WL1/WL2). */
	if (SEQ_LT(t->snd_wl1, seq) || (t->snd_wl1 == seq && SEQ_LEQ(t->snd_wl2, ack))) {
		if (win > t->snd_wnd)
			t->events |= SY_TCB_EV_SENT;
		t->snd_wnd = win;
		t->snd_wl1 = seq;
		t->snd_wl2 = ack;
		if (win > t->max_snd_wnd)
			t->max_snd_wnd = win;
		if (win > 0) {
			t->persist_at = 0;
			t->probes = 0;
		}
	}
	return true;
}

/* ---------------------------------------------------------------- data -- */

/* Payload of m only, from byte `skip` of it, `len` bytes: headers off. */
static struct rte_mbuf *
payload_of(struct rte_mbuf *m, uint32_t hlen, uint32_t skip, uint32_t len)
{
	struct rte_mbuf *seg;
	uint32_t keep;

	if (rte_pktmbuf_adj(m, (uint16_t)(hlen + skip)) == NULL)
		return NULL;
	/* Trailing bytes past the payload (Ethernet padding, a window cut). */
	if (m->pkt_len > len)
		rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - len));
	/* Chains: drop empty segments the trim left is not needed; the queue
	 * counts data_len only, which trim kept consistent. */
	keep = 0;
	for (seg = m; seg != NULL; seg = seg->next)
		keep += seg->data_len;
	return keep == len ? m : NULL;
}

/* Chain b after a (both payload chains; a's tail found by walking). The
 * queues count data_len per segment, so pkt_len/nb_segs are not kept. */
static void
chain_append(struct rte_mbuf *a, struct rte_mbuf *b)
{
	while (a->next != NULL)
		a = a->next;
	a->next = b;
}

/* Drop the first `cut` bytes of a payload chain; what is left, or NULL. */
static struct rte_mbuf *
chain_trim_front(struct rte_mbuf *m, uint32_t cut)
{
	while (m != NULL && cut >= m->data_len) {
		struct rte_mbuf *next = m->next;

		cut -= m->data_len;
		m->next = NULL;
		m->nb_segs = 1;
		rte_pktmbuf_free_seg(m);
		m = next;
	}
	if (m != NULL && cut > 0) {
		m->data_off = (uint16_t)(m->data_off + cut);
		m->data_len = (uint16_t)(m->data_len - cut);
	}
	return m;
}

/*
 * Hold an out-of-order segment. One that continues a held run (ends where
 * it starts, or starts where it ends) joins that run's chain, so the
 * entries count holes, not segments: after one loss a whole window of
 * segments arrives behind the hole, and SY_TCB_OOO_MAX runs hold it all.
 */
static void
ooo_insert(struct sy_worker *w, struct sy_tcb *t, struct rte_mbuf *m, uint32_t seq, uint32_t len,
	   bool fin)
{
	unsigned i, j;

	t->ooo_recent = seq; /* its block is the first SACK block (RFC 2018 4) */

	for (i = 0; i < t->n_ooo; i++) {
		/* Already held (a duplicate): keep the first copy. */
		if (SEQ_LEQ(t->ooo[i].seq, seq) &&
		    SEQ_GEQ(t->ooo[i].seq + t->ooo[i].len, seq + len)) {
			sy_drop(w, m, SY_DROP_PROXY_DUPLICATE);
			return;
		}
	}
	for (i = 0; i < t->n_ooo; i++) {
		if (t->ooo[i].seq + t->ooo[i].len == seq && !t->ooo[i].fin) {
			chain_append(t->ooo[i].m, m);
			t->ooo[i].len += len;
			t->ooo[i].fin = fin;
			break;
		}
		if (seq + len == t->ooo[i].seq && !fin) {
			chain_append(m, t->ooo[i].m);
			t->ooo[i].m = m;
			t->ooo[i].seq = seq;
			t->ooo[i].len += len;
			break;
		}
	}
	if (i < t->n_ooo) {
		/* The run may now touch the next one: join them. */
		for (j = 0; j < t->n_ooo; j++) {
			if (j == i || t->ooo[i].fin ||
			    t->ooo[i].seq + t->ooo[i].len != t->ooo[j].seq)
				continue;
			chain_append(t->ooo[i].m, t->ooo[j].m);
			t->ooo[i].len += t->ooo[j].len;
			t->ooo[i].fin = t->ooo[j].fin;
			t->ooo[j] = t->ooo[--t->n_ooo];
			break;
		}
		return;
	}
	if (t->n_ooo == SY_TCB_OOO_MAX) {
		sy_drop(w, m, SY_DROP_PROXY_OOO_FULL);
		return;
	}
	t->ooo[t->n_ooo].m = m;
	t->ooo[t->n_ooo].seq = seq;
	t->ooo[t->n_ooo].len = len;
	t->ooo[t->n_ooo].fin = fin;
	t->n_ooo++;
}

static void
fin_received(struct sy_worker *w, struct sy_tcb *t)
{
	t->rcv_nxt++;
	t->flags |= SY_TCB_F_FIN_RCVD | SY_TCB_F_ACK_NOW;
	t->events |= SY_TCB_EV_FIN;
	switch (t->state) {
	case SY_TCPS_ESTABLISHED:
		t->state = SY_TCPS_CLOSE_WAIT;
		break;
	case SY_TCPS_FIN_WAIT_1:
		/* Our FIN not acknowledged yet: simultaneous close. */
		t->state = SY_TCPS_CLOSING;
		break;
	case SY_TCPS_FIN_WAIT_2:
		t->state = SY_TCPS_TIME_WAIT;
		t->tw_at = in_ms(w, SY_TCB_TIME_WAIT_MS);
		t->rto_at = t->persist_at = t->tlp_at = 0;
		break;
	default:
		break;
	}
}

/* In-order bytes arrived: pull in what was held beyond them. */
static void
ooo_drain(struct sy_worker *w, struct sy_tcb *t)
{
	bool progress = true;

	while (progress && !(t->flags & SY_TCB_F_FIN_RCVD)) {
		unsigned i;

		progress = false;
		for (i = 0; i < t->n_ooo; i++) {
			uint32_t s = t->ooo[i].seq, e = s + t->ooo[i].len;
			struct rte_mbuf *m = t->ooo[i].m;
			bool fin = t->ooo[i].fin;

			if (SEQ_GT(s, t->rcv_nxt))
				continue;
			t->ooo[i] = t->ooo[--t->n_ooo];
			progress = true;
			if (SEQ_LEQ(e, t->rcv_nxt) && !(fin && e == t->rcv_nxt)) {
				rte_pktmbuf_free(m);
				break;
			}
			if (SEQ_LT(s, t->rcv_nxt)) {
				uint32_t cut = t->rcv_nxt - s;

				m = chain_trim_front(m, cut);
				s += cut;
			}
			if (e != s && m != NULL) {
				sy_mq_append(&t->rcvq, m);
				t->rcv_nxt = e;
				t->events |= SY_TCB_EV_DATA;
			} else {
				rte_pktmbuf_free(m);
			}
			if (fin)
				fin_received(w, t);
			break;
		}
	}
	t->flags |= SY_TCB_F_ACK_NOW; /* a gap filled: tell at once (RFC 5681 4.2) */
}

/* ---------------------------------------------------------------- input -- */

static void
syn_sent_input(struct sy_worker *w, struct sy_tcb *t, struct rte_mbuf *m,
	       const struct rte_tcp_hdr *th)
{
	uint8_t fl = th->tcp_flags;
	uint32_t ack = rte_be_to_cpu_32(th->recv_ack);
	struct sy_tcp_syn_opts o;

	if (!(fl & RTE_TCP_ACK_FLAG) || ack != t->iss + 1) {
		if ((fl & RTE_TCP_ACK_FLAG) && !(fl & RTE_TCP_RST_FLAG)) {
			/* An ACK for an older connection on this tuple (the
			 * splice path's stale ACK, splice.c): RST for it. */
			struct sy_seg s;

			sy_tcb_seg(t, &s);
			s.seq = ack;
			s.flags = RTE_TCP_RST_FLAG;
			sy_tcp_send(w, &s);
			t->events |= SY_TCB_EV_STALE_ACK;
		}
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}
	if (fl & RTE_TCP_RST_FLAG) {
		t->events |= SY_TCB_EV_REFUSED;
		t->state = SY_TCPS_CLOSED;
		sy_tcb_release(t);
		rte_pktmbuf_free(m);
		return;
	}
	if (!(fl & RTE_TCP_SYN_FLAG) || sy_tcp_parse_syn_opts(th, &o) < 0) {
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}
	t->irs = rte_be_to_cpu_32(th->sent_seq);
	t->rcv_nxt = t->irs + 1;
	t->last_ack_sent = t->rcv_nxt; /* our ACK of the SYN-ACK goes next */
	t->snd_una = t->snd_nxt = t->snd_max = ack;
	t->mss = RTE_MIN(o.mss ? o.mss : 536, t->rcv_mss);
	if (o.wscale == SY_TCP_WS_NONE) {
		t->rcv_ws = 0;
		t->snd_ws = 0;
	} else {
		t->snd_ws = RTE_MIN(o.wscale, 14);
	}
	if (!o.sack_ok)
		t->flags &= (uint16_t)~SY_TCB_F_SACK;
	else
		t->flags |= SY_TCB_F_SACK;
	if (o.ts_ok) {
		t->flags |= SY_TCB_F_TS;
		t->ts_recent = o.tsval;
		t->mss = (uint16_t)(t->mss - 12);
		if (t->backoff == 0 && o.tsecr != 0)
			rtt_sample(t, sy_tcp_ts_now(w) + t->ts_off - o.tsecr);
	}
	t->snd_wnd = rte_be_to_cpu_16(th->rx_win); /* never scaled in a SYN */
	t->max_snd_wnd = t->snd_wnd;
	t->snd_wl1 = t->irs;
	t->snd_wl2 = ack;
	/* RFC 6298 5.7: a SYN that had to go again leaves no RTT sample
	 * and a backed-off timer; data starts from a 3 s RTO. */
	if (t->backoff > 0 && t->srtt8 == 0)
		t->rto_ms = RTE_MAX(t->rto_ms, (uint32_t)SY_TCB_RTO_SYN_LOST_MS);
	else if (t->backoff > 0)
		t->rto_ms = SY_TCB_RTO_INIT_MS;
	t->backoff = 0;
	t->rto_at = 0;
	start_window(w, t);
	t->state = SY_TCPS_ESTABLISHED;
	t->events |= SY_TCB_EV_CONNECTED;
	t->flags |= SY_TCB_F_ACK_NOW;
	rte_pktmbuf_free(m);
}

void
sy_tcb_input(struct sy_worker *w, struct sy_tcb *t, struct rte_mbuf *m)
{
	struct rte_tcp_hdr *th = sy_seg_tcp(m);
	uint32_t hlen = sy_seg_hdr_len(m);
	uint32_t plen = sy_seg_ip_len(m) - hlen;
	uint32_t seq = rte_be_to_cpu_32(th->sent_seq);
	uint8_t fl = th->tcp_flags;
	uint32_t tsval = 0, tsecr = 0, wnd, seg_len, skip = 0;
	bool has_ts = false, fin = (fl & RTE_TCP_FIN_FLAG) != 0;

	if (t->state == SY_TCPS_CLOSED) {
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}
	if (t->state == SY_TCPS_SYN_SENT) {
		syn_sent_input(w, t, m, th);
		return;
	}
	if (t->ka_idle_ms != 0) {
		/* Any segment says the peer is there (RFC 1122 4.2.3.6). */
		t->ka_sent = 0;
		t->ka_at = w->now + sy_ms_to_tsc(w, t->ka_idle_ms);
	}
	if (t->flags & SY_TCB_F_TS)
		has_ts = sy_tcp_find_ts(th, &tsval, &tsecr);
	/* PAWS (RFC 7323 5.3): an older timestamp is an old duplicate. */
	if (has_ts && !(fl & RTE_TCP_RST_FLAG) && SEQ_LT(tsval, t->ts_recent)) {
		t->flags |= SY_TCB_F_ACK_NOW;
		sy_drop(w, m, SY_DROP_PROXY_PAWS);
		sy_tcb_output(w, t);
		return;
	}
	/* Acceptability (RFC 9293 3.10.7.4). */
	wnd = t->rcv_adv - t->rcv_nxt;
	seg_len = plen + (fin ? 1 : 0);
	{
		bool ok;

		if (seg_len == 0)
			ok = wnd == 0 ? seq == t->rcv_nxt :
					SEQ_GEQ(seq, t->rcv_nxt) && SEQ_LT(seq, t->rcv_nxt + wnd);
		else
			ok = wnd != 0 &&
			     ((SEQ_GEQ(seq, t->rcv_nxt) && SEQ_LT(seq, t->rcv_nxt + wnd)) ||
			      (SEQ_GEQ(seq + seg_len - 1, t->rcv_nxt) &&
			       SEQ_LT(seq + seg_len - 1, t->rcv_nxt + wnd)));
		/* A zero window still takes a bare ACK at rcv_nxt, and ACK
		 * processing of a segment that only repeats old data. */
		if (!ok && wnd == 0 && seq == t->rcv_nxt)
			ok = true;
		if (!ok) {
			if (!(fl & RTE_TCP_RST_FLAG)) {
				/* Old data (a retransmission we had): ACK it, and
				 * still look at its ACK field. */
				if (SEQ_LT(seq, t->rcv_nxt) && (fl & RTE_TCP_ACK_FLAG) &&
				    !(fl & RTE_TCP_SYN_FLAG))
					ack_input(w, t, th, seq, 0, has_ts, tsecr);
				t->flags |= SY_TCB_F_ACK_NOW;
			}
			sy_drop(w, m, SEQ_LT(seq + seg_len, t->rcv_nxt + 1) ?
					      SY_DROP_PROXY_DUPLICATE : SY_DROP_PROXY_NOT_ACCEPTABLE);
			sy_tcb_output(w, t);
			return;
		}
	}
	/* RST (RFC 5961 3.2): exactly at rcv_nxt resets, elsewhere in the
	 * window draws a challenge. */
	if (fl & RTE_TCP_RST_FLAG) {
		if (seq == t->rcv_nxt) {
			t->events |= SY_TCB_EV_RESET;
			t->state = SY_TCPS_CLOSED;
			sy_tcb_release(t);
			rte_pktmbuf_free(m);
			return;
		}
		challenge_ack(w, t);
		rte_pktmbuf_free(m);
		sy_tcb_output(w, t);
		return;
	}
	/* SYN in a synchronized state (RFC 5961 4.2): challenge. */
	if (fl & RTE_TCP_SYN_FLAG) {
		challenge_ack(w, t);
		rte_pktmbuf_free(m);
		sy_tcb_output(w, t);
		return;
	}
	if (!(fl & RTE_TCP_ACK_FLAG)) {
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}
	/* RFC 7323 4.3 (2): ts_recent from a segment that starts at or
	 * before the last ACK we sent, so an ACK that covers two segments
	 * echoes the earlier one's TSval (the peer's RTT then includes the
	 * time we held the ACK). */
	if (has_ts && SEQ_LEQ(seq, t->last_ack_sent))
		t->ts_recent = tsval;
	if (!ack_input(w, t, th, seq, plen, has_ts, tsecr)) {
		rte_pktmbuf_free(m);
		sy_tcb_output(w, t);
		return;
	}
	if (t->state == SY_TCPS_CLOSED) {
		rte_pktmbuf_free(m);
		return;
	}
	/* Data and FIN are for states that still receive. */
	if (t->flags & SY_TCB_F_FIN_RCVD) {
		if (seg_len > 0)
			t->flags |= SY_TCB_F_ACK_NOW; /* a retransmitted FIN */
		rte_pktmbuf_free(m);
		sy_tcb_output(w, t);
		return;
	}
	if (seg_len == 0) {
		rte_pktmbuf_free(m);
		sy_tcb_output(w, t);
		return;
	}
	/* Trim to the window: what we already have, what is past the edge. */
	if (SEQ_LT(seq, t->rcv_nxt)) {
		skip = t->rcv_nxt - seq;
		if (skip > plen) {
			skip = plen; /* only the FIN is new */
		}
		seq += skip;
		plen -= skip;
	}
	if (SEQ_GT(seq + plen, t->rcv_nxt + wnd)) {
		plen = t->rcv_nxt + wnd - seq;
		fin = false;
	}
	if (seq != t->rcv_nxt) {
		/* Out of order: hold it, tell the peer what we miss. */
		struct rte_mbuf *p = plen ? payload_of(m, hlen, skip, plen) : NULL;

		if (p == NULL) {
			sy_drop(w, m, SY_DROP_TCP_MALFORMED);
		} else {
			ooo_insert(w, t, p, seq, plen, fin);
		}
		t->flags |= SY_TCB_F_ACK_NOW;
		sy_tcb_output(w, t);
		return;
	}
	if (plen > 0) {
		struct rte_mbuf *p = payload_of(m, hlen, skip, plen);

		if (p == NULL) {
			sy_drop(w, m, SY_DROP_TCP_MALFORMED);
			return;
		}
		sy_mq_append(&t->rcvq, p);
		t->rcv_nxt += plen;
		t->events |= SY_TCB_EV_DATA;
		m = NULL;
	}
	if (fin)
		fin_received(w, t);
	if (t->n_ooo > 0)
		ooo_drain(w, t);
	if (m != NULL)
		rte_pktmbuf_free(m);
	/* Delayed ACK (RFC 9293 3.8.6.3): every second full segment at once,
	 * else within SY_TCB_DELACK_MS, or with the owner's reply. */
	if (!(t->flags & SY_TCB_F_ACK_NOW)) {
		if (t->flags & SY_TCB_F_DELACK) {
			t->flags |= SY_TCB_F_ACK_NOW;
		} else {
			t->flags |= SY_TCB_F_DELACK;
			t->delack_at = in_ms(w, SY_TCB_DELACK_MS);
		}
	}
}
