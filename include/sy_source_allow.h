/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A route's source allowlist (the OpenShift annotation
 * haproxy.router.openshift.io/ip_allowlist, and its older name
 * ip_whitelist): addresses and prefixes of either family. The control
 * thread parses it into the rule's block (control/gen/source_allow.c); a
 * worker checks a client against it before any backend is chosen: 403 on
 * HTTP, the connection reset on passthrough (docs/routing.md, "Edge
 * policies"). A linear scan: OpenShift's router keeps lists of up to 61
 * entries inline in its HAProxy configuration, and a scan of that many
 * masked compares costs less than the request's header parse.
 */
#ifndef SY_SOURCE_ALLOW_H
#define SY_SOURCE_ALLOW_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <arpa/inet.h>

#include "sy_addr.h"

struct sy_prefix4 {
	uint32_t addr; /* network order, already masked */
	uint32_t mask; /* network order */
};

struct sy_prefix6 {
	uint8_t addr[16]; /* masked */
	uint8_t len;      /* 0..128 */
};

struct sy_source_allow {
	const struct sy_prefix4 *v4;
	const struct sy_prefix6 *v6;
	uint32_t n4, n6;
};

/* A prefix from an address and a length (host bits dropped). */
static inline void
sy_prefix4_set(struct sy_prefix4 *p, uint32_t addr, uint8_t len)
{
	p->mask = len == 0 ? 0 : htonl(~0u << (32 - len));
	p->addr = addr & p->mask;
}

static inline void
sy_prefix6_set(struct sy_prefix6 *p, const uint8_t addr[16], uint8_t len)
{
	unsigned i;

	for (i = 0; i < 16; i++) {
		int keep = (int)len - 8 * (int)i;

		p->addr[i] = keep >= 8 ? addr[i] : keep <= 0 ? 0 : (uint8_t)(addr[i] & (0xff00 >> keep));
	}
	p->len = len;
}

static inline bool
sy_prefix6_has(const struct sy_prefix6 *p, const uint8_t a[16])
{
	unsigned whole = p->len / 8, rest = p->len % 8;

	if (memcmp(p->addr, a, whole) != 0)
		return false;
	return rest == 0 || ((a[whole] ^ p->addr[whole]) & (uint8_t)(0xff00 >> rest)) == 0;
}

/* Is src in the list? */
static inline bool
sy_source_allowed(const struct sy_source_allow *l, const struct sy_addr *src)
{
	uint32_t i;

	if (src->family == AF_INET) {
		for (i = 0; i < l->n4; i++)
			if ((src->v4 & l->v4[i].mask) == l->v4[i].addr)
				return true;
		return false;
	}
	for (i = 0; i < l->n6; i++)
		if (sy_prefix6_has(&l->v6[i], src->v6))
			return true;
	return false;
}

#endif
