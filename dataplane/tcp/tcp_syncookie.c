/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SYN cookies: the layout is in tcp_syncookie.h. Why each piece is there:
 *
 * - The MAC covers both addresses, both ports and the client's ISN, so a
 *   cookie seen on one connection (or sniffed) cannot complete another one,
 *   and a spoofed SYN flood gets nothing it can replay elsewhere.
 * - It covers the full 32-bit counter, not just the 5 bits carried in the
 *   ISN: a cookie from 32 ticks ago (same low bits) fails the MAC instead of
 *   looking fresh again.
 * - It covers the option bits (MSS index, window scale, SACK, timestamps), so
 *   an attacker cannot flip them to make the router announce an MSS or a
 *   window scale the client never offered.
 *
 * No allocation and no locks: the keys are read-only for workers and are
 * replaced whole by the control thread.
 */
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>

#include "tcp/tcp_syncookie.h"

/* Ascending. 536: RFC 9293 default; 1220: IPv6 minimum MTU 1280 - 60; the
 * rest are common tunnel/PPPoE/Ethernet paths (Linux msstab plus a few). */
const uint16_t sy_cookie_mss_table[8] = { 536, 1220, 1300, 1360, 1400, 1440, 1452, 1460 };

#define SY_COOKIE_DEFAULT_MSS 536 /* RFC 9293 3.7.1: no MSS option */

#define CK_CTR_SHIFT 27
#define CK_CTR_MASK 0x1fu
#define CK_MSS_SHIFT 24
#define CK_MSS_MASK 0x7u
#define CK_WS_SHIFT 20
#define CK_WS_MASK 0xfu
#define CK_WS_NONE 15u
#define CK_SACK_BIT (1u << 19)
#define CK_TS_BIT (1u << 18)
#define CK_OPT_SHIFT 18 /* bits 26..18: what the MAC covers besides the tuple */
#define CK_OPT_MASK 0x1ffu
#define CK_MAC_MASK 0x3ffffu

static inline void
put_le32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

static inline unsigned
addr_put(uint8_t *p, const struct sy_addr *a)
{
	if (a->family == AF_INET6) {
		memcpy(p, a->v6, 16);
		return 16;
	}
	memcpy(p, &a->v4, 4);
	return 4;
}

/*
 * 18-bit MAC. The message is fixed-layout bytes, never a struct (padding
 * would leak stack bytes into the hash and differ between builds):
 *   family(s) family(d) sport dport isn counter optbits saddr daddr
 * The families are in so an IPv4 tuple and an IPv6 tuple sharing bytes do
 * not collide.
 */
static uint32_t
cookie_mac(const uint8_t key[16], const struct sy_cookie_tuple *t, uint32_t isn,
	   uint32_t counter, uint32_t optbits)
{
	uint8_t m[2 + 2 + 2 + 4 + 4 + 2 + 16 + 16];
	unsigned n = 0;

	m[n++] = t->saddr.family;
	m[n++] = t->daddr.family;
	memcpy(m + n, &t->sport, 2);
	n += 2;
	memcpy(m + n, &t->dport, 2);
	n += 2;
	put_le32(m + n, isn);
	n += 4;
	put_le32(m + n, counter);
	n += 4;
	m[n++] = (uint8_t)optbits;
	m[n++] = (uint8_t)(optbits >> 8);
	n += addr_put(m + n, &t->saddr);
	n += addr_put(m + n, &t->daddr);
	return (uint32_t)sy_siphash24(key, m, n) & CK_MAC_MASK;
}

/* Largest table entry not above mss. Below 536 there is no entry; index 0
 * (536) is used, as Linux does: RFC 9293 3.7.1 requires every host to take
 * 576-byte datagrams, so 536 is safe whatever a client announced. */
static unsigned
mss_index(uint16_t mss)
{
	unsigned i;

	for (i = 7; i > 0; i--)
		if (sy_cookie_mss_table[i] <= mss)
			break;
	return i;
}

uint32_t
sy_cookie_make(const struct sy_cookie_keys *k, const struct sy_cookie_tuple *t,
	       uint32_t client_isn, uint32_t counter, const struct sy_tcp_syn_opts *syn,
	       uint16_t mss_clamp)
{
	uint16_t mss = syn->mss != 0 ? syn->mss : SY_COOKIE_DEFAULT_MSS;
	uint32_t ws, opt;

	/* 0 = no clamp, as in struct sy_xlate. */
	if (mss_clamp != 0 && mss_clamp < mss)
		mss = mss_clamp;
	if (syn->wscale == SY_TCP_WS_NONE)
		ws = CK_WS_NONE;
	else
		ws = syn->wscale > 14 ? 14 : syn->wscale; /* RFC 7323 2.3 */

	opt = (uint32_t)mss_index(mss) << CK_MSS_SHIFT | ws << CK_WS_SHIFT |
	      (syn->sack_ok ? CK_SACK_BIT : 0) | (syn->ts_ok ? CK_TS_BIT : 0);
	return (counter & CK_CTR_MASK) << CK_CTR_SHIFT | opt |
	       cookie_mac(k->key[0], t, client_isn, counter, opt >> CK_OPT_SHIFT);
}

bool
sy_cookie_check(const struct sy_cookie_keys *k, const struct sy_cookie_tuple *t,
		uint32_t client_isn, uint32_t cookie, uint32_t counter,
		struct sy_tcp_syn_opts *out)
{
	/* The 5 bits say which of counter, counter-1 .. counter-MAX_AGE made the
	 * cookie. A future counter wraps to a large age and is refused with the
	 * expired ones; the MAC over the full counter refuses a cookie 32 ticks
	 * old whose low bits look fresh. */
	uint32_t age = (counter - (cookie >> CK_CTR_SHIFT)) & CK_CTR_MASK;
	uint32_t optbits = (cookie >> CK_OPT_SHIFT) & CK_OPT_MASK;
	uint32_t mac = cookie & CK_MAC_MASK;
	uint32_t ws = (cookie >> CK_WS_SHIFT) & CK_WS_MASK;
	unsigned i;

	if (age > SY_COOKIE_MAX_AGE)
		return false;
	for (i = 0; i < 2; i++) {
		if (cookie_mac(k->key[i], t, client_isn, counter - age, optbits) != mac)
			continue;
		out->mss = sy_cookie_mss_table[(cookie >> CK_MSS_SHIFT) & CK_MSS_MASK];
		out->wscale = ws == CK_WS_NONE ? SY_TCP_WS_NONE : (uint8_t)ws;
		out->sack_ok = (cookie & CK_SACK_BIT) != 0;
		out->ts_ok = (cookie & CK_TS_BIT) != 0;
		/* Not in the cookie: the caller reads them from the ACK. Zeroed
		 * so nothing uninitialised travels into the connection. */
		out->tsval = 0;
		out->tsecr = 0;
		return true;
	}
	return false;
}
