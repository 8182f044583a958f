/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Internet checksum's 1's complement sum (RFC 1071) over payload-sized
 * buffers and mbuf chains: what a terminated connection computes for every
 * segment it sends and checks for every one it receives, when the port has
 * no checksum offload (af_packet, af_xdp, tap: the lab's ports).
 *
 * DPDK 22.11's rte_raw_cksum adds 16 bits at a time, about a byte a cycle:
 * 0.6 us for a full 1448-byte segment here, 9 % of a TLS bulk worker's samples
 * for the check alone (perf/README.md "tls"). Here four 64-bit accumulators
 * each take two 32-bit words per step, 32 bytes a step; a 64-bit accumulator
 * cannot overflow below 2^32 steps. The folded result equals rte_raw_cksum's
 * (the 16-bit words' sum in host order), so the two mix freely.
 */
#ifndef SY_NET_CKSUM_H
#define SY_NET_CKSUM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct rte_mbuf;

/* acc plus the sum of len bytes at buf; fold with sy_cksum_fold. */
static inline uint64_t
sy_cksum_add(uint64_t acc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	uint64_t a1 = 0, a2 = 0, a3 = 0;

	while (len >= 32) {
		uint32_t v[8];

		memcpy(v, p, sizeof(v));
		acc += (uint64_t)v[0] + v[1];
		a1 += (uint64_t)v[2] + v[3];
		a2 += (uint64_t)v[4] + v[5];
		a3 += (uint64_t)v[6] + v[7];
		p += 32;
		len -= 32;
	}
	while (len >= 4) {
		uint32_t v;

		memcpy(&v, p, sizeof(v));
		acc += v;
		p += 4;
		len -= 4;
	}
	if (len >= 2) {
		uint16_t v;

		memcpy(&v, p, sizeof(v));
		acc += v;
		p += 2;
		len -= 2;
	}
	if (len > 0) {
		/* The odd last byte is the first of a 16-bit word whose
		 * second is zero (RFC 1071 4.1), in host order. */
		uint16_t v = 0;

		memcpy(&v, p, 1);
		acc += v;
	}
	return acc + a1 + a2 + a3;
}

/* The 16-bit 1's complement sum of acc (not complemented). */
static inline uint16_t
sy_cksum_fold(uint64_t acc)
{
	acc = (acc & 0xffffffffu) + (acc >> 32);
	acc = (acc & 0xffffffffu) + (acc >> 32);
	acc = (acc & 0xffff) + (acc >> 16);
	acc = (acc & 0xffff) + (acc >> 16);
	acc = (acc & 0xffff) + (acc >> 16);
	return (uint16_t)acc;
}

/*
 * The folded sum of len bytes of chain m from byte `skip` of its first
 * segment on (fewer if the chain ends first), added to acc. A segment that starts at an odd offset of the
 * stream has its bytes in the other half of each 16-bit word, and its sum is
 * swapped before it is added (RFC 1071 2.(B)).
 */
uint16_t sy_cksum_chain(uint64_t acc, const struct rte_mbuf *m, uint32_t skip, uint32_t len);

/* The folded sum of the pseudo-header of an IPv4 or IPv6 header at l3
 * (its version says which) for an upper layer `proto` of l4_len bytes. */
uint16_t sy_l3_phdr_sum(const void *l3, uint8_t proto, uint32_t l4_len);

/* Whether packet m's TCP or UDP checksum is right: by the port's verdict
 * when it gave one, else summed (the IPv4 header at m's data, options
 * included, or the IPv6 one without extension headers; the segment, as long
 * as the header says, may be a chain). */
bool sy_l4_cksum_ok(const struct rte_mbuf *m);

/* Set the TCP checksum of segment m (either family, data at its IP header,
 * a chain allowed) from scratch. */
void sy_tcp_cksum_set(struct rte_mbuf *m);

#endif
