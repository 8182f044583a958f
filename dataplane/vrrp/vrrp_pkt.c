/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VRRPv3 advertisement (RFC 5798 5.2), over IPv4 or IPv6:
 *
 *    0                   1                   2                   3
 *   |Version| Type  | Virtual Rtr ID|   Priority    |Count IPvX Addr|
 *   |(rsvd) |     Max Adver Int     |          Checksum             |
 *   |                 IPvX Address(es): 4 or 16 bytes each          |
 *
 * The two families differ only in the address size and the pseudo-header
 * the checksum covers: one encoder and one parser take both as arguments.
 * No DPDK here: the unit test calls both directions on plain buffers.
 */
#include <string.h>

#include "vrrp/vrrp.h"

const uint8_t sy_vrrp_group6[16] = { 0xff, 0x02, [15] = 0x12 };

static uint32_t
sum16(const uint8_t *p, unsigned len, uint32_t sum)
{
	unsigned i;

	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)(p[len - 1] << 8);
	return sum;
}

/* One's complement sum (RFC 1071) of the pseudo-header for next header 112
 * (the addresses, alen bytes each, and the message's length and protocol:
 * RFC 768's layout for IPv4, RFC 8200 8.1's for IPv6, which sum alike for a
 * message this short) and the message; a correct message sums to 0xffff. */
static uint16_t
vrrp_sum(const uint8_t *p, unsigned len, const uint8_t *src, const uint8_t *dst, unsigned alen)
{
	uint32_t sum = sum16(src, alen, 0);

	sum = sum16(dst, alen, sum);
	sum += SY_IPPROTO_VRRP + len;
	sum = sum16(p, len, sum);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static unsigned
encode(const struct sy_vrrp_advert *a, const void *addrs, unsigned alen, const uint8_t *src,
       const uint8_t *dst, uint8_t *out, unsigned room)
{
	unsigned len = SY_VRRP_HDR_LEN + alen * a->n_addrs;
	uint16_t ck;

	if (len > room || a->n_addrs > SY_VRRP_ADDRS_MAX)
		return 0;
	out[0] = SY_VRRP_VERSION << 4 | SY_VRRP_TYPE_ADVERT;
	out[1] = a->vrid;
	out[2] = a->priority;
	out[3] = a->n_addrs;
	out[4] = (uint8_t)((a->interval_cs >> 8) & 0x0f); /* the 4 reserved bits are 0 */
	out[5] = (uint8_t)a->interval_cs;
	out[6] = 0;
	out[7] = 0;
	memcpy(out + SY_VRRP_HDR_LEN, addrs, alen * a->n_addrs);
	ck = (uint16_t)~vrrp_sum(out, len, src, dst, alen);
	out[6] = (uint8_t)(ck >> 8);
	out[7] = (uint8_t)ck;
	return len;
}

unsigned
sy_vrrp_encode(const struct sy_vrrp_advert *a, uint32_t src, uint8_t *out, unsigned room)
{
	const uint32_t group = SY_VRRP_GROUP;

	return encode(a, a->addr, 4, (const uint8_t *)&src, (const uint8_t *)&group, out, room);
}

unsigned
sy_vrrp_encode6(const struct sy_vrrp_advert *a, const uint8_t src[16], uint8_t *out, unsigned room)
{
	return encode(a, a->addr6, 16, src, sy_vrrp_group6, out, room);
}

static enum sy_vrrp_bad
parse(const uint8_t *p, unsigned len, const uint8_t *src, const uint8_t *dst, unsigned alen,
      uint8_t ttl, struct sy_vrrp_advert *a, void *addrs)
{
	unsigned n;

	/* The TTL (hop limit) first: a packet from off the segment is not
	 * to be believed in any other field. */
	if (ttl != SY_VRRP_TTL)
		return SY_VRRP_BAD_TTL;
	if (len < SY_VRRP_HDR_LEN)
		return SY_VRRP_BAD_LENGTH;
	if (p[0] != (SY_VRRP_VERSION << 4 | SY_VRRP_TYPE_ADVERT))
		return SY_VRRP_BAD_VERSION;
	n = p[3];
	/* At least one address, and exactly the count (RFC 5798 7.1: the
	 * length must match the count). */
	if (n == 0 || len != SY_VRRP_HDR_LEN + alen * n)
		return SY_VRRP_BAD_LENGTH;
	if (vrrp_sum(p, len, src, dst, alen) != 0xffff)
		return SY_VRRP_BAD_CHECKSUM;
	a->vrid = p[1];
	a->priority = p[2];
	a->interval_cs = (uint16_t)((p[4] & 0x0f) << 8 | p[5]);
	a->n_addrs = (uint8_t)(n < SY_VRRP_ADDRS_MAX ? n : SY_VRRP_ADDRS_MAX);
	memcpy(addrs, p + SY_VRRP_HDR_LEN, alen * a->n_addrs);
	return SY_VRRP_OK;
}

enum sy_vrrp_bad
sy_vrrp_parse(const uint8_t *p, unsigned len, uint32_t src, uint32_t dst, uint8_t ttl,
	      struct sy_vrrp_advert *a)
{
	return parse(p, len, (const uint8_t *)&src, (const uint8_t *)&dst, 4, ttl, a, a->addr);
}

enum sy_vrrp_bad
sy_vrrp_parse6(const uint8_t *p, unsigned len, const uint8_t src[16], const uint8_t dst[16],
	       uint8_t hop_limit, struct sy_vrrp_advert *a)
{
	enum sy_vrrp_bad bad = parse(p, len, src, dst, 16, hop_limit, a, a->addr6);

	/* From the sender's link-local address (RFC 5798 5.1.2.1): the one
	 * every router on the link compares when priorities tie. */
	if (bad == SY_VRRP_OK && !(src[0] == 0xfe && (src[1] & 0xc0) == 0x80))
		return SY_VRRP_BAD_SOURCE;
	return bad;
}
