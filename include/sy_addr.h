/* SPDX-License-Identifier: BSD-3-Clause */
/* An IP address that holds IPv4 or IPv6, so no table or flow key bakes in IPv4. */
#ifndef SY_ADDR_H
#define SY_ADDR_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
#include <sys/socket.h>

struct sy_addr {
	uint8_t family; /* AF_INET or AF_INET6; 0 = unset */
	uint8_t pad[3];
	union {
		uint32_t v4;    /* network byte order */
		uint8_t v6[16];
	};
};

/* Longest text form of any sy_addr, with the NUL ("ffff:...:255.255.255.255"). */
#define SY_ADDR_STRLEN 46

static inline struct sy_addr
sy_addr_v4(uint32_t be)
{
	struct sy_addr a = { .family = AF_INET };
	a.v4 = be;
	return a;
}

static inline struct sy_addr
sy_addr_v6(const uint8_t a[16])
{
	struct sy_addr r = { .family = AF_INET6 };
	memcpy(r.v6, a, 16);
	return r;
}

static inline bool
sy_addr_eq(const struct sy_addr *a, const struct sy_addr *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return a->v4 == b->v4;
	return memcmp(a->v6, b->v6, 16) == 0;
}

/* 32 bits of an IPv6 address, mixed (a 64-bit multiply-xorshift over both
 * halves): what stands for it where the data plane keys on 32 bits (a
 * connection record's address fields, load-balancing slots, rate limits). */
static inline uint32_t
sy_addr6_fold(const uint8_t a[16])
{
	uint64_t x, y, h;

	memcpy(&x, a, 8);
	memcpy(&y, a + 8, 8);
	h = (x ^ (y * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (uint32_t)h ^ (uint32_t)(h >> 32);
}

/* The address itself for IPv4 (network order), its fold for IPv6. */
static inline uint32_t
sy_addr_key32(const struct sy_addr *a)
{
	return a->family == AF_INET6 ? sy_addr6_fold(a->v6) : a->v4;
}

/* Parse "198.18.0.1" or "2001:db8::1". Returns 0 or -EINVAL. */
int sy_addr_parse(const char *s, struct sy_addr *out);
/* Parse "198.18.0.1/24" (a bare address means /32 or /128). Returns 0 or -EINVAL. */
int sy_prefix_parse(const char *s, struct sy_addr *out, uint8_t *len);
/* "ADDRESS:PORT", with an IPv6 address in brackets (RFC 3986 3.2.2), into
 * buf (at least SY_ADDR_PORT_STRLEN bytes); port in host order. Returns buf. */
#define SY_ADDR_PORT_STRLEN (SY_ADDR_STRLEN + 8)
const char *sy_addr_port_format(const struct sy_addr *a, unsigned port, char *buf, size_t size);
/* Write the text form into buf (at least SY_ADDR_STRLEN bytes); returns buf. */
const char *sy_addr_format(const struct sy_addr *a, char *buf, size_t size);

#endif
