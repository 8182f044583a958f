/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control of a terminated connection (tcb.h): how big the
 * congestion window is. The TCB's input and output sides (tcb_in.c,
 * tcb_out.c) say what happened - new data acknowledged, loss found by
 * duplicate ACKs or SACK, recovery over, a retransmission timeout, sending
 * after an idle spell - and the algorithm in force sets cwnd and ssthresh.
 * Loss recovery itself (which segment goes again, RFC 6582's window
 * inflation by duplicate ACKs and deflation by partial ACKs) is the same
 * for every algorithm: only the reduction and the growth differ.
 *
 *   newreno  RFC 5681 slow start and congestion avoidance, ssthresh half
 *            the flight at a loss (RFC 6582 recovery).
 *   cubic    RFC 9438 (the default, as on Linux): beta 0.7, C 0.4, the
 *            cubic curve through W_max, the Reno-friendly estimate W_est,
 *            fast convergence; slow start as Reno's (no HyStart).
 *
 * The algorithm is chosen per connection when it opens, from the config's
 * tcp.congestion_control (sy_dp_shared.tcp_cc), so a change of the knob
 * never switches a connection midway.
 */
#ifndef SY_TCP_CC_H
#define SY_TCP_CC_H

#include <stdbool.h>
#include <stdint.h>

#include "sy_config.h" /* enum sy_tcp_cc: the knob's values */

struct sy_tcb;
struct sy_worker;

/*
 * CUBIC's state (RFC 9438 4). Windows in bytes, times on the TCB's
 * millisecond clock (sy_tcp_ts_now: the worker's TSC, which the scenario
 * runner drives, so runs are deterministic). 32 bytes a connection.
 */
struct sy_cc_cubic {
	uint32_t w_max;      /* W_max: cwnd at the last reduction (after fast convergence); 0: none */
	uint32_t cwnd_prior; /* cwnd when ssthresh was last set: W_est's alpha goes to 1 past it */
	uint32_t cwnd_epoch; /* cwnd when this congestion avoidance stage began */
	uint32_t w_est;      /* W_est: the window Reno would have now */
	uint32_t epoch_ms;   /* when this congestion avoidance stage began (valid with in_epoch) */
	uint32_t k_ms;       /* K: from the epoch to the curve's plateau at W_max */
	uint32_t last_ack_ms; /* last ACK of new data: with nothing in flight, idle since */
	bool in_epoch;       /* false until the first ACK of a congestion avoidance stage */
	uint8_t w_est_frac;  /* W_est's 1/256 bytes: its growth is summed ACK by ACK, and a
			      * byte lost to rounding each time would add up to segments */
};

/* The TCB's congestion control, kept in the TCB (tcb.h). */
struct sy_cc {
	uint8_t algo; /* enum sy_tcp_cc */
	struct sy_cc_cubic cubic;
};

/* The connection opened (handshake over, MSS known): the initial window
 * (RFC 6928's ten segments), ssthresh "arbitrarily high" (RFC 5681 3.1),
 * the algorithm the worker is configured with. */
void sy_cc_init(const struct sy_worker *w, struct sy_tcb *t);
/* `acked` bytes of new data acknowledged outside recovery: slow start or
 * congestion avoidance. */
void sy_cc_on_ack(const struct sy_worker *w, struct sy_tcb *t, uint32_t acked);
/* The third duplicate ACK (or SACKed loss) starts fast recovery: the
 * reduction (ssthresh), then cwnd = ssthresh + 3 segments (RFC 6582 3.2
 * step 2's inflation by the three that left). */
void sy_cc_on_recovery_start(const struct sy_worker *w, struct sy_tcb *t);
/* In recovery: another duplicate ACK (one more segment left the network),
 * a partial ACK of `acked` bytes (RFC 6582 3.2 step 5's deflation). */
void sy_cc_on_recovery_dupack(struct sy_tcb *t);
void sy_cc_on_recovery_partial_ack(struct sy_tcb *t, uint32_t acked);
/* A full ACK ended recovery (RFC 6582 3.2 step 3). */
void sy_cc_on_recovery_end(const struct sy_worker *w, struct sy_tcb *t);
/* A retransmission timeout: one segment (RFC 5681 3.1), ssthresh from the
 * flight. `first`: the first timeout of a row (later ones of the same loss
 * keep what the first learnt). */
void sy_cc_on_rto(const struct sy_worker *w, struct sy_tcb *t, bool first);
/* New data is about to go out with nothing in flight: the time since the
 * ACK that emptied the flight was idle (the application had nothing to
 * send) and does not count into CUBIC's t (RFC 9438 5.8). */
void sy_cc_on_send_after_idle(const struct sy_worker *w, struct sy_tcb *t);

#endif
