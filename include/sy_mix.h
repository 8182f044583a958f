/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * splitmix64's finalizer: 64 bits in, 64 well-mixed bits out. Opaque, not
 * secret: it spreads keys (Maglev's permutations, control/gen/lb_tables.c;
 * the workers' ratelimit buckets, proxy/proxy_filter.c, and per-source
 * slots, conn/src_limit.c) and names endpoints (sticky cookies,
 * dataplane/lb/lb.c), it grants nothing. Both planes use it, so it lives
 * with the contract. Sticky tokens outlive a process: changing it moves
 * every sticky session once.
 */
#ifndef SY_MIX_H
#define SY_MIX_H

#include <stdint.h>

static inline uint64_t
sy_mix64(uint64_t x)
{
	x ^= x >> 30;
	x *= 0xbf58476d1ce4e5b9ull;
	x ^= x >> 27;
	x *= 0x94d049bb133111ebull;
	return x ^ (x >> 31);
}

#endif
