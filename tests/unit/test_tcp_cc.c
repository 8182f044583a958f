/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Congestion control (dataplane/tcp/tcp_cc.c) on a bare TCB and a worker
 * whose clock the test sets: the reductions of NewReno and CUBIC, CUBIC's
 * K and curve against RFC 9438's equations in floating point, the
 * Reno-friendly estimate, the timeout and an idle spell. (The scenarios
 * px_cubic_*.pkt show the same through the wire.)
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "tcp/tcb.h"
#include "tcp/tcp_cc.h"
#include "worker.h"

#define MSS 1448u

static struct sy_dp_shared sh;
static struct sy_worker w;

/* The worker's clock at `ms` (one TSC tick per microsecond). */
static void
at_ms(double ms)
{
	w.now = (uint64_t)(ms * 1000.0 + 0.5);
}

/* A TCB in `algo` with `flight_segs` full segments in flight. */
static void
tcb_with_flight(struct sy_tcb *t, uint8_t algo, unsigned flight_segs)
{
	memset(t, 0, sizeof(*t));
	sh.tsc_per_ms = 1000;
	sh.tcp_cc = algo;
	w.sh = &sh;
	t->mss = MSS;
	sy_cc_init(&w, t);
	t->snd_una = 1000;
	t->snd_max = t->snd_nxt = 1000 + flight_segs * MSS;
}

/* RFC 9438 eq. 1 in bytes, t and K in seconds. */
static double
w_cubic(double t, double k, double w_max)
{
	return 0.4 * pow(t - k, 3) * MSS + w_max;
}

static void
test_init(void **state)
{
	struct sy_tcb t;

	(void)state;
	tcb_with_flight(&t, SY_TCP_CC_CUBIC, 0);
	assert_int_equal(t.cwnd, 10 * MSS); /* RFC 6928 */
	assert_int_equal(t.cc.algo, SY_TCP_CC_CUBIC);
	tcb_with_flight(&t, SY_TCP_CC_NEWRENO, 0);
	assert_int_equal(t.cc.algo, SY_TCP_CC_NEWRENO);
}

/* Three duplicate ACKs with ten segments in flight: half (NewReno), 0.7
 * (CUBIC), then three segments more for the ones that left. */
static void
test_reduction(void **state)
{
	struct sy_tcb t;

	(void)state;
	tcb_with_flight(&t, SY_TCP_CC_NEWRENO, 10);
	sy_cc_on_recovery_start(&w, &t);
	assert_int_equal(t.ssthresh, 5 * MSS);
	assert_int_equal(t.cwnd, 8 * MSS);
	tcb_with_flight(&t, SY_TCP_CC_CUBIC, 10);
	sy_cc_on_recovery_start(&w, &t);
	assert_int_equal(t.ssthresh, 7 * MSS);
	assert_int_equal(t.cwnd, 10 * MSS);
	assert_int_equal(t.cc.cubic.w_max, 10 * MSS);
	assert_int_equal(t.cc.cubic.cwnd_prior, 10 * MSS);
	/* Never below two segments. */
	tcb_with_flight(&t, SY_TCP_CC_CUBIC, 1);
	sy_cc_on_recovery_start(&w, &t);
	assert_int_equal(t.ssthresh, 2 * MSS);
}

/* A loss below the last W_max: W_max = cwnd (1 + 0.7) / 2 (RFC 9438 4.7). */
static void
test_fast_convergence(void **state)
{
	struct sy_tcb t;

	(void)state;
	tcb_with_flight(&t, SY_TCP_CC_CUBIC, 10);
	t.cc.cubic.w_max = 20 * MSS;
	sy_cc_on_recovery_start(&w, &t);
	assert_int_equal(t.cc.cubic.w_max, 10 * MSS * 17 / 20);
}

/*
 * RFC 9438 4.2-4.5 in floating point, one ACK at a time: the model the
 * integer code must follow (within rounding).
 */
struct model {
	double cwnd, w_max, w_est, cwnd_prior, k, epoch;
	bool in_epoch;
};

static void
model_ack(struct model *m, double now_s, double rtt_s, double acked)
{
	double t, target, alpha;

	if (!m->in_epoch) {
		m->in_epoch = true;
		m->epoch = now_s;
		m->w_est = m->cwnd;
		if (m->w_max <= m->cwnd) {
			m->w_max = m->cwnd;
			m->k = 0;
		} else {
			m->k = cbrt((m->w_max - m->cwnd) / MSS / 0.4);
		}
	}
	t = now_s - m->epoch;
	target = w_cubic(t + rtt_s, m->k, m->w_max);
	target = fmin(fmax(target, m->cwnd), 1.5 * m->cwnd);
	alpha = m->w_est >= m->cwnd_prior ? 1.0 : 9.0 / 17.0;
	m->w_est += alpha * MSS * acked / m->cwnd;
	if (w_cubic(t, m->k, m->w_max) < m->w_est)
		m->cwnd = fmax(m->cwnd, m->w_est);
	else
		m->cwnd += (target - m->cwnd) * acked / m->cwnd;
}

/*
 * The curve: W_max 100 segments, congestion avoidance from 70: K =
 * cbrt(30 / 0.4) = 4.217 s, RTT 100 ms, one ACK per round for the whole
 * window. cwnd must follow the model within a few bytes: concave up to
 * W_max, flat around K, convex after.
 */
static void
test_curve(void **state)
{
	struct model m = { .cwnd = 70.0 * MSS, .w_max = 100.0 * MSS, .cwnd_prior = 100.0 * MSS };
	struct sy_tcb t;
	int i;

	(void)state;
	tcb_with_flight(&t, SY_TCP_CC_CUBIC, 0);
	t.cc.cubic.w_max = 100 * MSS;
	t.cc.cubic.cwnd_prior = 100 * MSS;
	t.cwnd = t.ssthresh = 70 * MSS;
	t.srtt8 = 100 << 3;
	for (i = 0; i <= 80; i++) {
		uint32_t acked = t.cwnd / MSS * MSS;

		at_ms(1000 + i * 100);
		model_ack(&m, 1.0 + i * 0.1, 0.1, acked);
		sy_cc_on_ack(&w, &t, acked);
		if (fabs(t.cwnd - m.cwnd) > 8.0)
			fail_msg("round %d: cwnd %u, the model %.1f", i, t.cwnd, m.cwnd);
		if (i == 0)
			assert_true(fabs(t.cc.cubic.k_ms - m.k * 1000) <= 1.0);
		if (i == 42) /* t = K: at W_max */
			assert_true(fabs(t.cwnd - 100.0 * MSS) < 0.1 * MSS);
	}
	/* Convex by 8 s: 0.4 x (8.1 - 4.217)^3 = 23 segments past W_max. */
	assert_true(t.cwnd > 120 * MSS);
}

/* Short RTT, small window: the curve hardly moves, cwnd follows W_est,
 * alpha 9/17 of a segment per window acknowledged, then 1 past cwnd_prior. */
static void
test_reno_friendly(void **state)
{
	struct model m = { .cwnd = 7.0 * MSS, .w_max = 10.0 * MSS, .cwnd_prior = 10.0 * MSS };
	struct sy_tcb t;
	int i;

	(void)state;
	tcb_with_flight(&t, SY_TCP_CC_CUBIC, 0);
	t.cc.cubic.w_max = t.cc.cubic.cwnd_prior = 10 * MSS;
	t.cwnd = t.ssthresh = 7 * MSS;
	t.srtt8 = 10 << 3;
	for (i = 0; i < 12; i++) {
		uint32_t acked = t.cwnd / MSS * MSS;

		at_ms(5000 + i * 10);
		model_ack(&m, 5.0 + i * 0.01, 0.01, acked);
		sy_cc_on_ack(&w, &t, acked);
		if (fabs(t.cwnd - m.cwnd) > 8.0)
			fail_msg("round %d: cwnd %u, the model %.1f", i, t.cwnd, m.cwnd);
		assert_true(fabs(m.cwnd - m.w_est) < 1e-6); /* Reno's window, not the curve's */
	}
	assert_true(t.cwnd > 11 * MSS);
}

/* A timeout: one segment, 0.7 of the flight, and the next epoch's curve
 * starts at its own first window with K = 0. A second timeout of the same
 * loss holds ssthresh. */
static void
test_rto(void **state)
{
	struct sy_tcb t;

	(void)state;
	tcb_with_flight(&t, SY_TCP_CC_CUBIC, 10);
	t.cc.cubic.w_max = 30 * MSS;
	t.cc.cubic.in_epoch = true;
	sy_cc_on_rto(&w, &t, true);
	assert_int_equal(t.cwnd, MSS);
	assert_int_equal(t.ssthresh, 7 * MSS);
	assert_false(t.cc.cubic.in_epoch);
	t.snd_una += 5 * MSS; /* the flight the second timeout sees is smaller */
	sy_cc_on_rto(&w, &t, false);
	assert_int_equal(t.ssthresh, 7 * MSS);
	tcb_with_flight(&t, SY_TCP_CC_NEWRENO, 10);
	sy_cc_on_rto(&w, &t, true);
	assert_int_equal(t.cwnd, MSS);
	assert_int_equal(t.ssthresh, 5 * MSS);
	/* Slow start back to ssthresh, then K = 0 at W_max = that window. */
	tcb_with_flight(&t, SY_TCP_CC_CUBIC, 10);
	sy_cc_on_rto(&w, &t, true);
	t.cwnd = t.ssthresh;
	at_ms(3000);
	sy_cc_on_ack(&w, &t, MSS);
	assert_int_equal(t.cc.cubic.k_ms, 0);
	assert_int_equal(t.cc.cubic.w_max, 7 * MSS);
	assert_int_equal(t.cc.cubic.cwnd_epoch, 7 * MSS);
}

/* Nothing in flight for a while: the epoch moves forward by the idle
 * time, so t does not count it (RFC 9438 5.8). */
static void
test_idle(void **state)
{
	struct sy_tcb t;
	uint32_t epoch;

	(void)state;
	tcb_with_flight(&t, SY_TCP_CC_CUBIC, 0);
	t.cc.cubic.w_max = 10 * MSS;
	t.cwnd = t.ssthresh = 7 * MSS;
	at_ms(1000);
	sy_cc_on_ack(&w, &t, MSS);
	epoch = t.cc.cubic.epoch_ms;
	at_ms(1200);
	sy_cc_on_ack(&w, &t, MSS); /* the last ACK: the flight is empty from here */
	at_ms(61200);
	sy_cc_on_send_after_idle(&w, &t);
	assert_int_equal(t.cc.cubic.epoch_ms, epoch + 60000);
	/* Called again at once: nothing more to take off. */
	sy_cc_on_send_after_idle(&w, &t);
	assert_int_equal(t.cc.cubic.epoch_ms, epoch + 60000);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_reduction),
		cmocka_unit_test(test_fast_convergence),
		cmocka_unit_test(test_curve),
		cmocka_unit_test(test_reno_friendly),
		cmocka_unit_test(test_rto),
		cmocka_unit_test(test_idle),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
