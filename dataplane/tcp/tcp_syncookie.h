/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SYN cookies (docs/architecture.md 9.4, "The cookie"): the SYN-ACK's ISN
 * carries what the router must remember without state.
 *
 *   bits 31..27  time counter (64 s units, mod 32)
 *   bits 26..24  MSS index into sy_cookie_mss_table
 *   bits 23..20  client window scale (0..14; 15 = not offered)
 *   bit  19      SACK permitted
 *   bit  18      timestamps in use
 *   bits 17..0   SipHash-2-4(secret, addresses, ports, client ISN, counter,
 *                bits 26..18) truncated to 18 bits
 *
 * Two secrets are valid at once (current and previous), so a rotation never
 * rejects a handshake in flight; a cookie older than SY_COOKIE_MAX_AGE counter
 * ticks is rejected. Secrets are per router process, shared read-only by all
 * workers, rotated by the control thread (struct sy_cookie_keys is swapped
 * as a whole through the generation or an atomic pointer).
 */
#ifndef SY_TCP_SYNCOOKIE_H
#define SY_TCP_SYNCOOKIE_H

#include <stdbool.h>
#include <stdint.h>

#include "sy_addr.h"
#include "tcp/tcp_opts.h"
#include "tcp/tcp_syncookie_t.h"

extern const uint16_t sy_cookie_mss_table[8];

/* Counter for a time in seconds (monotonic clock is fine). */
static inline uint32_t
sy_cookie_counter(uint64_t seconds)
{
	return (uint32_t)(seconds / SY_COOKIE_TICK_S);
}

/* The ISN for our SYN-ACK. `syn` is what the client offered; the MSS is
 * rounded down to the table (never up: a larger MSS than the client allows
 * must never be produced) after clamping to mss_clamp. */
uint32_t sy_cookie_make(const struct sy_cookie_keys *k, const struct sy_cookie_tuple *t,
			uint32_t client_isn, uint32_t counter, const struct sy_tcp_syn_opts *syn,
			uint16_t mss_clamp);
/* Check the cookie an ACK returns (ack_seq - 1) for the client's ISN
 * (seq - 1). On success fills mss, wscale, sack_ok, ts_ok in *out (tsval and
 * tsecr set to 0) and returns true; on failure *out is untouched. Rejects
 * forgeries, other tuples and expired counters. */
bool sy_cookie_check(const struct sy_cookie_keys *k, const struct sy_cookie_tuple *t,
		     uint32_t client_isn, uint32_t cookie, uint32_t counter, struct sy_tcp_syn_opts *out);

/* SipHash-2-4 (Aumasson, Bernstein), 16-byte key. */
uint64_t sy_siphash24(const uint8_t key[16], const void *data, size_t len);

#endif
