/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VRRPv3 advertisement (RFC 5798 5.2), IPv4:
 *
 *    0                   1                   2                   3
 *   |Version| Type  | Virtual Rtr ID|   Priority    |Count IPvX Addr|
 *   |(rsvd) |     Max Adver Int     |          Checksum             |
 *   |                      IPv4 Address(es)                         |
 *
 * No DPDK here: the unit test calls both directions on plain buffers.
 */
#include <string.h>

#include "vrrp/vrrp.h"

/* One's complement sum (RFC 1071) of the IPv4 pseudo-header for protocol
 * 112 and the message; a correct message sums to 0xffff. */
static uint16_t
vrrp_sum(const uint8_t *p, unsigned len, uint32_t src, uint32_t dst)
{
	const uint8_t *s = (const uint8_t *)&src, *d = (const uint8_t *)&dst;
	uint32_t sum = 0;
	unsigned i;

	sum += (uint32_t)(s[0] << 8 | s[1]) + (uint32_t)(s[2] << 8 | s[3]);
	sum += (uint32_t)(d[0] << 8 | d[1]) + (uint32_t)(d[2] << 8 | d[3]);
	sum += SY_IPPROTO_VRRP + len;
	for (i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(p[i] << 8 | p[i + 1]);
	if (len & 1)
		sum += (uint32_t)(p[len - 1] << 8);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

unsigned
sy_vrrp_encode(const struct sy_vrrp_advert *a, uint32_t src, uint8_t *out, unsigned room)
{
	unsigned len = SY_VRRP_HDR_LEN + 4u * a->n_addrs;
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
	memcpy(out + SY_VRRP_HDR_LEN, a->addr, 4u * a->n_addrs);
	ck = (uint16_t)~vrrp_sum(out, len, src, SY_VRRP_GROUP);
	out[6] = (uint8_t)(ck >> 8);
	out[7] = (uint8_t)ck;
	return len;
}

enum sy_vrrp_bad
sy_vrrp_parse(const uint8_t *p, unsigned len, uint32_t src, uint32_t dst, uint8_t ttl,
	      struct sy_vrrp_advert *a)
{
	unsigned n;

	/* The TTL first: a packet from off the segment is not to be
	 * believed in any other field. */
	if (ttl != SY_VRRP_TTL)
		return SY_VRRP_BAD_TTL;
	if (len < SY_VRRP_HDR_LEN)
		return SY_VRRP_BAD_LENGTH;
	if (p[0] != (SY_VRRP_VERSION << 4 | SY_VRRP_TYPE_ADVERT))
		return SY_VRRP_BAD_VERSION;
	n = p[3];
	/* At least one address, and exactly the count (RFC 5798 7.1: the
	 * length must match the count). */
	if (n == 0 || len != SY_VRRP_HDR_LEN + 4u * n)
		return SY_VRRP_BAD_LENGTH;
	if (vrrp_sum(p, len, src, dst) != 0xffff)
		return SY_VRRP_BAD_CHECKSUM;
	a->vrid = p[1];
	a->priority = p[2];
	a->interval_cs = (uint16_t)((p[4] & 0x0f) << 8 | p[5]);
	a->n_addrs = (uint8_t)(n < SY_VRRP_ADDRS_MAX ? n : SY_VRRP_ADDRS_MAX);
	memcpy(a->addr, p + SY_VRRP_HDR_LEN, 4u * a->n_addrs);
	return SY_VRRP_OK;
}
