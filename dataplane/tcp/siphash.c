/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SipHash-2-4 (Aumasson, Bernstein, "SipHash: a fast short-input PRF", 2012).
 * A keyed PRF rather than a plain hash because the SYN cookie's MAC must not
 * be computable by an attacker who can choose tuples and ISNs: with a
 * non-cryptographic hash he could forge cookies and open connections
 * (and backend SYNs) from spoofed addresses.
 *
 * Words are read little-endian as the paper specifies, byte by byte, so the
 * result is the same on every host and no unaligned load is made.
 */
#include <stddef.h>
#include <stdint.h>

#include "tcp/tcp_syncookie.h"

#define ROTL64(x, b) (((x) << (b)) | ((x) >> (64 - (b))))

#define SIPROUND(v0, v1, v2, v3)                                                                   \
	do {                                                                                       \
		v0 += v1;                                                                          \
		v1 = ROTL64(v1, 13);                                                               \
		v1 ^= v0;                                                                          \
		v0 = ROTL64(v0, 32);                                                               \
		v2 += v3;                                                                          \
		v3 = ROTL64(v3, 16);                                                               \
		v3 ^= v2;                                                                          \
		v0 += v3;                                                                          \
		v3 = ROTL64(v3, 21);                                                               \
		v3 ^= v0;                                                                          \
		v2 += v1;                                                                          \
		v1 = ROTL64(v1, 17);                                                               \
		v1 ^= v2;                                                                          \
		v2 = ROTL64(v2, 32);                                                               \
	} while (0)

static inline uint64_t
load_le64(const uint8_t *p)
{
	uint64_t v = 0;
	int i;

	for (i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

uint64_t
sy_siphash24(const uint8_t key[16], const void *data, size_t len)
{
	const uint8_t *in = data;
	const uint64_t k0 = load_le64(key), k1 = load_le64(key + 8);
	uint64_t v0 = 0x736f6d6570736575ULL ^ k0;
	uint64_t v1 = 0x646f72616e646f6dULL ^ k1;
	uint64_t v2 = 0x6c7967656e657261ULL ^ k0;
	uint64_t v3 = 0x7465646279746573ULL ^ k1;
	uint64_t b = (uint64_t)len << 56, m;
	size_t i, left = len & 7;

	for (i = 0; i + 8 <= len; i += 8) {
		m = load_le64(in + i);
		v3 ^= m;
		SIPROUND(v0, v1, v2, v3);
		SIPROUND(v0, v1, v2, v3);
		v0 ^= m;
	}
	/* Last block: the remaining 0..7 bytes, length in the top byte. */
	while (left > 0) {
		left--;
		b |= (uint64_t)in[i + left] << (8 * left);
	}
	v3 ^= b;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	v0 ^= b;

	v2 ^= 0xff;
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	SIPROUND(v0, v1, v2, v3);
	return v0 ^ v1 ^ v2 ^ v3;
}
