/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The router's own initial sequence number and timestamp clock on backend
 * legs (docs/architecture.md 9.3, "Numbers to translate"; docs/operations.md,
 * "Connection churn").
 *
 * Why the router does not reuse the client's ISN and TSval there: a backend
 * leg's 4-tuple (snat:port -> backend:port) comes round while the backend
 * still holds the previous connection on it in TIME_WAIT, and Linux takes a
 * SYN for a 4-tuple in TIME_WAIT only when its timestamp is newer than the
 * last one it saw there, or, without timestamps, when its sequence number is
 * past the old connection's (RFC 6191; tcp_timewait_state_process()). A
 * client's random ISN and per-connection TSval pass that about half the
 * time. So:
 *
 *   ISN   = SipHash(isn_key; snat, backend, ports) + wall clock / 64 ns
 *           (RFC 6528, as Linux's secure_tcp_seq()): one 4-tuple's ISNs
 *           advance 15.6 M a second, past any request a reused tuple carried;
 *   TSval = SipHash(ts_key; snat, backend) + wall clock in ms
 *           (RFC 7323 5.4, one clock per address pair as Linux keeps it): a
 *           reused tuple's first TSval is at least the old one's last.
 *
 * The clock is the wall clock at start plus the TSC since, and the keys live
 * in the state directory, so a restarted routerd keeps both moving forward
 * against the TIME_WAITs its previous run left on the backends.
 */
#ifndef SY_TCP_ISN_H
#define SY_TCP_ISN_H

#include <stddef.h>
#include <stdint.h>

struct sy_leg_clock {
	uint8_t isn_key[16];
	uint8_t ts_key[16];
	uint64_t base_ns;    /* CLOCK_REALTIME at base_tsc */
	uint64_t base_tsc;
	uint64_t tsc_per_ms;
};

/* Keys from getrandom(), the clock from now. Returns 0, or -errno. */
int sy_leg_clock_init(struct sy_leg_clock *lc, uint64_t tsc_per_ms);
/* Keys from (or, the first time, into) FILE: 32 bytes, mode 0600. Returns
 * 0, or -errno (the keys are then left as they were). */
int sy_leg_clock_keys_file(struct sy_leg_clock *lc, const char *path);

/* Nanoseconds of the wall clock at TSC `tsc`. */
uint64_t sy_leg_clock_ns(const struct sy_leg_clock *lc, uint64_t tsc);

/* The ISN of our SYN on the backend leg (addresses and ports network order). */
uint32_t sy_backend_isn(const struct sy_leg_clock *lc, uint64_t tsc, uint32_t saddr,
			uint32_t daddr, uint16_t sport, uint16_t dport);
/* The TSval of our SYN on the backend leg. */
uint32_t sy_backend_tsval(const struct sy_leg_clock *lc, uint64_t tsc, uint32_t saddr,
			  uint32_t daddr);

#endif
