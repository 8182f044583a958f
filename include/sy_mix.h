/* SPDX-License-Identifier: BSD-3-Clause */
/* A 64-bit mix (MurmurHash3's finaliser): every input bit moves about half
 * the output bits. For keys of direct-mapped tables (rate-limit buckets,
 * per-source slots) whose inputs differ in few bits. */
#ifndef SY_MIX_H
#define SY_MIX_H

#include <stdint.h>

static inline uint64_t
sy_mix64(uint64_t x)
{
	x ^= x >> 33;
	x *= 0xff51afd7ed558ccdull;
	x ^= x >> 33;
	x *= 0xc4ceb9fe1a85ec53ull;
	x ^= x >> 33;
	return x;
}

#endif
