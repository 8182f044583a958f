/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TIME_WAIT on a proxied client leg (proxy.h). When the router closed
 * first, the client's FIN is answered by our last ACK; if that ACK is lost,
 * the client (in LAST_ACK) sends its FIN again, and RFC 9293 3.6.1 keeps
 * TIME_WAIT for exactly this: "acknowledge it, and restart the 2 MSL
 * timeout" (3.10.7.4). Without it the FIN finds no connection, fails the
 * SYN-cookie check and dies silently, and the client retransmits it until
 * its own retries give up, holding its socket for minutes.
 *
 * The proxy state (two TCBs, queues, TLS) does not wait that long: it goes
 * back to its pool as soon as the leg enters TIME_WAIT. What stays is the
 * client record itself - 128 bytes, already in the flow table under the
 * 4-tuple - in state SY_CONN_PROXY_TIME_WAIT, holding in `tw` the numbers
 * the ACK needs (conn.h), as the splice path's LINGER record holds what a
 * late segment's translation needs. So TIME_WAIT costs no proxy state and
 * cannot exhaust any:
 *   - lifetime: the TCB's SY_TCB_TIME_WAIT_MS (tcp_isn.h keeps a reused
 *     4-tuple safe on the backend side; a client's new SYN is judged by
 *     RFC 6191 below), restarted by each retransmitted FIN answered, at
 *     most SY_PX_TIME_WAIT_ACKS answers: bounded whatever the client does;
 *   - count: flows_per_worker / SY_PX_TIME_WAIT_SHARE records per worker, an eighth of its
 *     connection records; past it a leg ends with no record, as before
 *     (proxy_time_wait_full counts those).
 * Segments it answers (with the ACK: a retransmitted FIN, anything outside
 * the window) or takes (an RST at RCV.NXT ends it) are counted; those it
 * leaves unanswered are drops with a reason (time_wait_segment), as is a
 * SYN RFC 6191 does not let reopen the tuple (time_wait_old_syn).
 */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "net/cksum.h"
#include "proxy/proxy.h"
#include "proxy/proxy_internal.h"
#include "conn/conn.h"
#include "splice/splice.h"
#include "tcp/tcp_opts.h"
#include "tcp/tcp_out.h"
#include "tcp/tcp_seg.h"
#include "tcp/tcp_seq.h"
#include "worker.h"

static inline struct rte_tcp_hdr *
tcp_hdr_of(struct rte_mbuf *m, uint32_t *plen)
{
	*plen = sy_seg_payload_len(m);
	return sy_seg_tcp(m);
}

static void
set_gauge(struct sy_worker *w)
{
	w->counters.proxy_time_wait = w->tcp.n_time_wait;
}

bool
px_time_wait_enter(struct sy_worker *w, struct sy_proxy *px)
{
	const struct sy_tcb *t = &px->c;
	struct sy_conn *c = px->cc;
	struct sy_conn_time_wait tw;
	uint32_t win;

	if (w->tcp.n_time_wait >= w->tcp.time_wait_max) {
		w->counters.proxy_time_wait_full++;
		return false;
	}
	memset(&tw, 0, sizeof(tw));
	tw.snd_nxt = t->snd_nxt;
	tw.rcv_nxt = t->rcv_nxt;
	tw.ts = (t->flags & SY_TCB_F_TS) != 0;
	tw.ts_recent = t->ts_recent;
	/* The window our last ACK said (window_field in tcb_out.c left
	 * rcv_adv at its edge): the same ACK again says the same. */
	win = (t->rcv_adv - t->rcv_nxt) >> t->rcv_ws;
	tw.win = (uint16_t)RTE_MIN(win, 65535u);
	/* The client leg's TSvals are the plain ms clock (ts_off 0: the
	 * cookie's SYN-ACK set it, tcb_in.c), so tw needs no offset. */
	px_backend_release(w, px);
	sy_proxy_release(w, c); /* px, its queues and TLS go back: c->px = NULL */
	c->state = SY_CONN_PROXY_TIME_WAIT;
	c->tw = tw;
	w->tcp.n_time_wait++;
	set_gauge(w);
	sy_conn_timer_set(w, c, w->now + sy_ms_to_tsc(w, SY_TCB_TIME_WAIT_MS));
	return true;
}

void
sy_proxy_time_wait_release(struct sy_worker *w, struct sy_conn *c)
{
	(void)c;
	w->tcp.n_time_wait--;
	set_gauge(w);
}

/* Our last ACK again, as the TCB sent it in TIME_WAIT (tcb_out.c). */
static void
send_ack(struct sy_worker *w, struct sy_conn *c)
{
	struct sy_seg s;

	sy_seg_on_leg(&w->tcp, c, SY_LEG_CLIENT, &s);
	s.seq = c->tw.snd_nxt;
	s.ack = c->tw.rcv_nxt;
	s.flags = RTE_TCP_ACK_FLAG;
	s.win = c->tw.win;
	s.ts = c->tw.ts;
	s.tsval = sy_tcp_ts_now(w);
	s.tsecr = c->tw.ts_recent;
	c->tw.acks++;
	w->counters.proxy_time_wait_acks++;
	sy_tcp_send(w, &s);
}

void
sy_proxy_time_wait_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m)
{
	struct sy_conn_time_wait *tw = &c->tw;
	uint32_t plen, seq, tsval = 0, tsecr;
	struct rte_tcp_hdr *th = tcp_hdr_of(m, &plen);
	uint8_t fl = th->tcp_flags;
	bool fin, has_ts;

	if (!sy_l4_cksum_ok(m)) {
		sy_drop(w, m, SY_DROP_TCP_BAD_CHECKSUM);
		return;
	}
	seq = rte_be_to_cpu_32(th->sent_seq);
	if (fl & RTE_TCP_RST_FLAG) {
		/* RFC 5961 3.2: exactly at RCV.NXT it ends the record (the
		 * client holds nothing more: nor need we); elsewhere it is
		 * no proof of anything. */
		if (seq == tw->rcv_nxt) {
			rte_pktmbuf_free(m);
			sy_conn_free(w, c);
			return;
		}
		sy_drop(w, m, SY_DROP_TIME_WAIT_SEGMENT);
		return;
	}
	/* A SYN alone was judged before (sy_proxy_time_wait_syn); a SYN with
	 * other flags, or no ACK at all, is nothing a closing peer sends. */
	if ((fl & RTE_TCP_SYN_FLAG) || !(fl & RTE_TCP_ACK_FLAG)) {
		sy_drop(w, m, SY_DROP_TIME_WAIT_SEGMENT);
		return;
	}
	fin = (fl & RTE_TCP_FIN_FLAG) && seq + plen + 1 == tw->rcv_nxt;
	/* An ACK at RCV.NXT with nothing in it asks for nothing (RFC 9293
	 * 3.10.7.4: acceptable, and TIME-WAIT has no data to take). */
	if (!fin && seq == tw->rcv_nxt && plen == 0) {
		sy_drop(w, m, SY_DROP_TIME_WAIT_SEGMENT);
		return;
	}
	/* The FIN again: "acknowledge it, and restart the 2 MSL timeout";
	 * anything else is outside the window: "send an acknowledgment in
	 * reply" (3.10.7.4). Both from a budget, so a peer cannot keep the
	 * record, or draw ACKs from it, for ever. */
	if (tw->acks >= SY_PX_TIME_WAIT_ACKS) {
		sy_drop(w, m, SY_DROP_TIME_WAIT_SEGMENT);
		return;
	}
	has_ts = tw->ts && sy_tcp_find_ts(th, &tsval, &tsecr);
	/* RFC 7323 4.3: TS.Recent from a segment at or before our last ACK,
	 * and never backwards (an old one is PAWS's: ACKed, not believed). */
	if (has_ts && SEQ_LEQ(seq, tw->rcv_nxt) && SEQ_GEQ(tsval, tw->ts_recent))
		tw->ts_recent = tsval;
	rte_pktmbuf_free(m);
	send_ack(w, c);
	if (fin)
		sy_conn_timer_set(w, c, w->now + sy_ms_to_tsc(w, SY_TCB_TIME_WAIT_MS));
}

/*
 * RFC 6191 4: a SYN may reopen a 4-tuple in TIME_WAIT when it cannot be an
 * old duplicate of the connection that ended. With timestamps on both, its
 * TSval must be newer than the last one seen (or equal, with a sequence
 * number past RCV.NXT); a SYN without them after a connection with them is
 * a new incarnation too (a stack that timestamps does not forget to); with
 * no timestamps to go by, the sequence number must be past RCV.NXT. Any
 * other SYN is dropped and the record stays. Linux's tcp_timewait_state_process
 * makes the same choice.
 */
bool
sy_proxy_time_wait_syn(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m)
{
	uint32_t plen, seq, tsval, tsecr;
	struct rte_tcp_hdr *th = tcp_hdr_of(m, &plen);
	bool has_ts, newer;

	/* It is about to free a record: believe only a whole segment. */
	if (!sy_l4_cksum_ok(m)) {
		sy_drop(w, m, SY_DROP_TCP_BAD_CHECKSUM);
		return false;
	}
	seq = rte_be_to_cpu_32(th->sent_seq);
	has_ts = sy_tcp_find_ts(th, &tsval, &tsecr);
	if (c->tw.ts && has_ts)
		newer = SEQ_GT(tsval, c->tw.ts_recent) ||
			(tsval == c->tw.ts_recent && SEQ_GT(seq, c->tw.rcv_nxt));
	else if (c->tw.ts)
		newer = true;
	else
		newer = SEQ_GT(seq, c->tw.rcv_nxt);
	if (!newer) {
		sy_drop(w, m, SY_DROP_TIME_WAIT_OLD_SYN);
		return false;
	}
	w->counters.proxy_time_wait_reused++;
	sy_conn_free(w, c);
	return true;
}
