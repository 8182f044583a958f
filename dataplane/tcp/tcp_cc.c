/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control (tcp_cc.h): NewReno (RFC 5681, RFC 6582) and CUBIC
 * (RFC 9438), called by the TCB at each congestion event.
 *
 * CUBIC's arithmetic is integer: windows in bytes, time in milliseconds,
 * C = 0.4 and beta = 0.7 as exact fractions (2/5, 7/10). The curve
 *
 *     W_cubic(t) = C (t - K)^3 + W_max                  (RFC 9438 4.2, eq. 1)
 *
 * is computed per ACK in congestion avoidance with one 64-bit cube (no
 * division by the clock's rate in the hot path but one by a constant);
 * K = cbrt((W_max - cwnd_epoch) / C) once per congestion event, by an exact
 * integer cube root (cube_root() below). No floating point on the workers:
 * the result is the same on every CPU and in the scenario runner.
 */
#include <string.h>

#include <rte_common.h>

#include "tcp/tcb.h"
#include "tcp/tcp_cc.h"
#include "tcp/tcp_out.h"
#include "worker.h"

/* Initial window: RFC 6928's ten segments. */
#define SY_CC_IW_SEGS 10

/* RFC 9438 5.1: beta_cubic 0.7, C 0.4; alpha_cubic for the Reno-friendly
 * estimate, 3 (1 - beta) / (1 + beta) = 0.9 / 1.7 = 9/17 (4.3). */
#define CUBIC_BETA_NUM 7
#define CUBIC_BETA_DEN 10
#define CUBIC_ALPHA_NUM 9
#define CUBIC_ALPHA_DEN 17
/* C = 2/5 segments per second cubed; with t in ms, in bytes:
 *     C t^3 MSS = (2 t_ms^3 / 5) x MSS / 10^9. */
#define CUBIC_C_NUM 2ull
#define CUBIC_C_DEN 5ull
#define CUBIC_MS3_PER_S3 1000000000ull
/* |t - K| past this is clamped (65 s: the curve is then ~110,000
 * segments from W_max, far beyond the 1.5 x cwnd cap on the target), so
 * (2 t^3 / 5) x MSS stays inside 64 bits (2^47 x 2^16). */
#define CUBIC_T_MAX_MS 65535u
/* cwnd's ceiling under CUBIC: the target's 1.5 x must fit 32 bits. */
#define CUBIC_CWND_MAX (UINT32_MAX / 2)

static inline uint32_t
flight(const struct sy_tcb *t)
{
	return t->snd_max - t->snd_una;
}

/* ------------------------------------------------------------ NewReno -- */

/* RFC 5681 3.1 eq. 4: half the flight, at least two segments. */
static uint32_t
newreno_ssthresh(const struct sy_tcb *t)
{
	return RTE_MAX(flight(t) / 2, 2u * t->mss);
}

/* Congestion avoidance: one segment per window's worth of ACKs (RFC 5681
 * 3.1 eq. 3), at least a byte. */
static void
newreno_avoid(struct sy_tcb *t)
{
	t->cwnd += RTE_MAX(1u, (uint32_t)t->mss * t->mss / t->cwnd);
}

/* -------------------------------------------------------------- CUBIC -- */

/*
 * floor(cbrt(x)), exact, for any 64-bit x: one result bit per step from
 * the top, 22 steps of shifts, adds and a multiply (Hacker's Delight 11-2).
 * Linux's tcp_cubic.c starts Newton's method from a table to save steps;
 * this runs once per congestion event, not per packet, and is exact with
 * no table to keep right.
 */
static uint32_t
cube_root(uint64_t x)
{
	uint64_t y = 0;
	int s;

	for (s = 63; s >= 0; s -= 3) {
		uint64_t b;

		y *= 2;
		b = 3 * y * (y + 1) + 1;
		if ((x >> s) >= b) {
			x -= b << s;
			y++;
		}
	}
	return (uint32_t)y;
}

/* K = cbrt((W_max - cwnd_epoch) / C) (RFC 9438 4.2 eq. 2), in ms: with
 * the window difference in segments d, K_ms = cbrt(d x 2.5 x 10^9). */
static uint32_t
cubic_k_ms(uint32_t diff, uint16_t mss)
{
	uint64_t x = (uint64_t)diff * 500000000ull / mss; /* d x 5 x 10^8 (diff < 2^32: no overflow) */

	if (x > UINT64_MAX / 5)
		return UINT32_MAX;
	return cube_root(x * 5);
}

/* W_cubic(t) in bytes, t in ms since the epoch (eq. 1); 0 when the curve
 * is below zero there. */
static uint64_t
cubic_w(const struct sy_cc_cubic *c, uint32_t t_ms, uint16_t mss)
{
	bool before = t_ms < c->k_ms;
	uint64_t d = before ? c->k_ms - t_ms : t_ms - c->k_ms;
	uint64_t delta;

	if (d > CUBIC_T_MAX_MS)
		d = CUBIC_T_MAX_MS;
	delta = d * d * d * CUBIC_C_NUM / CUBIC_C_DEN * mss / CUBIC_MS3_PER_S3;
	if (before)
		return delta < c->w_max ? c->w_max - delta : 0;
	return c->w_max + delta;
}

/* RFC 9438 4.6, 4.7: a congestion event. W_max is the window it came at,
 * lowered to (1 + beta) / 2 of it when that is below the last W_max (fast
 * convergence: a flow whose share is shrinking gives some of it up to a
 * newcomer). The next congestion avoidance stage starts a new epoch. */
static void
cubic_congestion(struct sy_tcb *t)
{
	struct sy_cc_cubic *c = &t->cc.cubic;

	if (t->cwnd < c->w_max)
		c->w_max = (uint32_t)((uint64_t)t->cwnd * (CUBIC_BETA_DEN + CUBIC_BETA_NUM) /
				      (2 * CUBIC_BETA_DEN));
	else
		c->w_max = t->cwnd;
	c->cwnd_prior = t->cwnd;
	c->in_epoch = false;
}

/* ssthresh = flight_size x beta_cubic, at least two segments (4.6). */
static uint32_t
cubic_ssthresh(const struct sy_tcb *t)
{
	return RTE_MAX((uint32_t)((uint64_t)flight(t) * CUBIC_BETA_NUM / CUBIC_BETA_DEN),
		       2u * t->mss);
}

/*
 * Congestion avoidance (RFC 9438 4.2-4.5), on an ACK of `acked` bytes.
 *
 * The epoch begins at the stage's first ACK: K from how far below W_max
 * the window starts, or 0 with W_max = cwnd when it is not below it (after
 * an RTO, 4.8, W_max is 0 for this: the curve then rises from where slow
 * start left off). The window aims one RTT ahead on the curve, at
 * target = W_cubic(t + RTT) kept within [cwnd, 1.5 cwnd] (4.2), and moves
 * (target - cwnd) / cwnd per segment acknowledged: concave below W_max,
 * convex past it (4.4, 4.5). W_est grows as Reno's would, alpha_cubic per
 * window of ACKs, 1 once it passes cwnd_prior (4.3); where the curve is
 * below it (short RTTs, small windows) the window is W_est.
 */
static void
cubic_avoid(const struct sy_worker *w, struct sy_tcb *t, uint32_t acked)
{
	struct sy_cc_cubic *c = &t->cc.cubic;
	uint32_t now = sy_tcp_ts_now(w), elapsed, rtt = t->srtt8 >> 3;
	uint64_t cwnd = t->cwnd, target, w_now, grow;
	uint32_t a_num = CUBIC_ALPHA_NUM, a_den = CUBIC_ALPHA_DEN;

	if (!c->in_epoch) {
		c->in_epoch = true;
		c->epoch_ms = now;
		c->cwnd_epoch = t->cwnd;
		c->w_est = t->cwnd;
		c->w_est_frac = 0;
		if (c->w_max <= t->cwnd) {
			c->w_max = t->cwnd;
			c->k_ms = 0;
		} else {
			c->k_ms = cubic_k_ms(c->w_max - t->cwnd, t->mss);
		}
	}
	elapsed = now - c->epoch_ms;
	target = cubic_w(c, elapsed + rtt, t->mss);
	target = RTE_MAX(target, cwnd);
	target = RTE_MIN(target, cwnd + cwnd / 2);
	if (c->w_est >= c->cwnd_prior)
		a_num = a_den = 1;
	/* W_est += alpha x MSS x acked / cwnd, in 1/256 bytes. */
	grow = c->w_est_frac + ((uint64_t)t->mss * acked * a_num << 8) / ((uint64_t)a_den * cwnd);
	c->w_est_frac = (uint8_t)grow;
	c->w_est = (uint32_t)RTE_MIN(c->w_est + (grow >> 8), (uint64_t)CUBIC_CWND_MAX);
	w_now = cubic_w(c, elapsed, t->mss);
	if (w_now < c->w_est)
		cwnd = RTE_MAX(cwnd, (uint64_t)c->w_est); /* Reno-friendly region */
	else
		cwnd += (target - cwnd) * acked / cwnd;
	t->cwnd = (uint32_t)RTE_MIN(cwnd, (uint64_t)CUBIC_CWND_MAX);
}

/* ------------------------------------------------------------- events -- */

void
sy_cc_init(const struct sy_worker *w, struct sy_tcb *t)
{
	t->cwnd = SY_CC_IW_SEGS * (uint32_t)t->mss;
	t->ssthresh = UINT32_MAX / 2;
	memset(&t->cc, 0, sizeof(t->cc));
	t->cc.algo = w->sh->tcp_cc;
}

void
sy_cc_on_ack(const struct sy_worker *w, struct sy_tcb *t, uint32_t acked)
{
	if (t->cc.algo == SY_TCP_CC_CUBIC)
		t->cc.cubic.last_ack_ms = sy_tcp_ts_now(w);
	if (t->cwnd < t->ssthresh) {
		/* Slow start (RFC 5681 3.1 eq. 2), for both: RFC 9438 4.10
		 * keeps Reno's (HyStart++ is optional and not done). */
		t->cwnd += RTE_MIN(acked, (uint32_t)t->mss);
		return;
	}
	if (t->cc.algo == SY_TCP_CC_CUBIC)
		cubic_avoid(w, t, acked);
	else
		newreno_avoid(t);
}

void
sy_cc_on_recovery_start(const struct sy_worker *w, struct sy_tcb *t)
{
	(void)w;
	if (t->cc.algo == SY_TCP_CC_CUBIC) {
		cubic_congestion(t);
		t->ssthresh = cubic_ssthresh(t);
	} else {
		t->ssthresh = newreno_ssthresh(t);
	}
	/* With SACK the window stays at ssthresh and what may go is the
	 * window less the pipe: the flight less what the peer SACKed
	 * (RFC 6675 5; sy_tcb_output). Without, NewReno's inflation by the
	 * three segments that left (RFC 6582 3.2 step 2). */
	t->cwnd = (t->flags & SY_TCB_F_SACK) ? t->ssthresh : t->ssthresh + 3u * t->mss;
}

void
sy_cc_on_recovery_dupack(struct sy_tcb *t)
{
	if (!(t->flags & SY_TCB_F_SACK))
		t->cwnd += t->mss; /* each one says a segment left */
}

void
sy_cc_on_recovery_partial_ack(struct sy_tcb *t, uint32_t acked)
{
	/* With SACK the pipe shrinks by itself. Else deflate by what was
	 * acknowledged, add back one segment (RFC 6582 3.2 step 5). */
	if (t->flags & SY_TCB_F_SACK)
		return;
	t->cwnd = t->cwnd > acked ? t->cwnd - acked + t->mss : t->mss;
}

void
sy_cc_on_recovery_end(const struct sy_worker *w, struct sy_tcb *t)
{
	/* With SACK: ssthresh (RFC 5681 3.2 step 6, RFC 6937's end of
	 * recovery, as Linux does; CUBIC's reduction, RFC 9438 4.6). Most of
	 * a window that ended in recovery is often SACKed already when its
	 * last hole fills, so the flight is small: RFC 6582's burst guard
	 * below cut the window to two or three segments after nearly every
	 * recovery, and at 5 % loss such a window draws too few ACKs for
	 * the next loss to be found before the RTO (relay_loss.sh's 5 %
	 * download: 22 s, 45 RTOs; with ssthresh 12 s, 21). Without SACK
	 * (NewReno): RFC 6582 3.2 step 3, option (1), so the exit sends no
	 * burst. */
	if (t->flags & SY_TCB_F_SACK) {
		t->cwnd = t->ssthresh;
	} else {
		uint32_t left = RTE_MAX(flight(t), (uint32_t)t->mss);

		t->cwnd = RTE_MIN(t->ssthresh, left + t->mss);
	}
	if (t->cc.algo == SY_TCP_CC_CUBIC)
		t->cc.cubic.last_ack_ms = sy_tcp_ts_now(w);
}

void
sy_cc_on_rto(const struct sy_worker *w, struct sy_tcb *t, bool first)
{
	(void)w;
	if (t->cc.algo == SY_TCP_CC_CUBIC) {
		struct sy_cc_cubic *c = &t->cc.cubic;

		/* RFC 9438 4.8: Reno's one segment, beta_cubic's ssthresh,
		 * and the next congestion avoidance stage starts a curve of
		 * its own (K = 0, W_max = its first window). A second RTO of
		 * the same loss holds ssthresh (RFC 5681 3.1, after eq. 4). */
		if (first) {
			c->cwnd_prior = t->cwnd;
			t->ssthresh = cubic_ssthresh(t);
		}
		c->w_max = 0;
		c->in_epoch = false;
	} else {
		t->ssthresh = newreno_ssthresh(t);
	}
	t->cwnd = t->mss;
}

void
sy_cc_on_send_after_idle(const struct sy_worker *w, struct sy_tcb *t)
{
	struct sy_cc_cubic *c = &t->cc.cubic;
	uint32_t now, idle;

	if (t->cc.algo != SY_TCP_CC_CUBIC || !c->in_epoch)
		return;
	/* Move the epoch forward by the idle spell, as Linux's
	 * CA_EVENT_TX_START does: the curve resumes where it was. */
	now = sy_tcp_ts_now(w);
	idle = now - c->last_ack_ms;
	if ((int32_t)idle <= 0)
		return;
	c->epoch_ms += idle;
	if ((int32_t)(c->epoch_ms - now) > 0)
		c->epoch_ms = now;
	c->last_ack_ms = now;
}
