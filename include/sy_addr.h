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

static inline bool
sy_addr_eq(const struct sy_addr *a, const struct sy_addr *b)
{
	if (a->family != b->family)
		return false;
	if (a->family == AF_INET)
		return a->v4 == b->v4;
	return memcmp(a->v6, b->v6, 16) == 0;
}

/* Parse "198.18.0.1" or "2001:db8::1". Returns 0 or -EINVAL. */
int sy_addr_parse(const char *s, struct sy_addr *out);
/* Parse "198.18.0.1/24" (a bare address means /32 or /128). Returns 0 or -EINVAL. */
int sy_prefix_parse(const char *s, struct sy_addr *out, uint8_t *len);
/* Write the text form into buf (at least SY_ADDR_STRLEN bytes); returns buf. */
const char *sy_addr_format(const struct sy_addr *a, char *buf, size_t size);

#endif
