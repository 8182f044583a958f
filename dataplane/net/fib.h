/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The FIB: connected prefixes of every port plus the configured static
 * routes, IPv4 on rte_lpm; IPv6 on a short scan list, or on rte_lpm6 past
 * SY_FIB6_SCAN_MAX prefixes. Built once at init from struct sy_config and
 * read-only afterwards, so every worker reads it without synchronization.
 */
#ifndef SY_FIB_H
#define SY_FIB_H

#include <stdbool.h>
#include <stdint.h>

#include "sy_addr.h"
#include "sy_config.h"

struct rte_lpm;
struct rte_lpm6;

/* What a route resolves to, in either family. */
struct sy_fib_nh {
	struct sy_addr gw; /* family 0 when the destination is on-link */
	uint16_t port;     /* index into sy_config.ports */
};

struct sy_fib_result {
	uint16_t port;        /* index into sy_config.ports */
	bool direct;          /* on-link: nexthop == destination */
	struct sy_addr nexthop; /* address to resolve (ARP, neighbour discovery) */
	uint32_t nh_id;         /* the route's entry: nexthop is fib->nh[nh_id].gw unless direct */
};

#define SY_FIB_MAX_NH (2 * SY_MAX_PORTS * SY_MAX_PORT_ADDRS + SY_MAX_STATIC_ROUTES)

/* An IPv6 prefix as two masked 64-bit words (as they lie in memory). */
struct sy_fib6_prefix {
	uint64_t addr[2], mask[2];
	uint32_t nh; /* index into nh[] */
};
/* Up to this many IPv6 prefixes, a lookup scans them, longest first. */
#define SY_FIB6_SCAN_MAX 8

struct sy_fib {
	struct rte_lpm *lpm4;
	struct rte_lpm6 *lpm6; /* NULL while the scan below holds every IPv6 prefix */
	struct sy_fib_nh nh[SY_FIB_MAX_NH]; /* rte_lpm next hop = index here */
	unsigned n_nh;
	/* The IPv6 prefixes, longest first, while there are at most
	 * SY_FIB6_SCAN_MAX of them (n_scan6 > SY_FIB6_SCAN_MAX: rte_lpm6 is
	 * asked instead). A router host has a few connected prefixes and a
	 * default route; rte_lpm6 walks a level per byte past the first 24
	 * bits, six dependent loads for a /64, where the scan is a few
	 * masked compares on one or two cache lines (every SYN-ACK and
	 * answer of the per-packet path looks its destination up). */
	struct sy_fib6_prefix scan6[SY_FIB6_SCAN_MAX];
	unsigned n_scan6;
	/* The default route (/0) of IPv4 [0] and IPv6 [1]: its index in nh[]
	 * plus 1, 0 for none (rte_lpm and rte_lpm6 take no /0). */
	uint32_t default_nh[2];
};

/* Build from the ports' ipv4 and ipv6 CIDRs and cfg->routes. Returns 0 or -errno and a
 * message naming the offending route in err. */
int sy_fib_create(const struct sy_config *cfg, struct sy_fib **out, char *err, size_t errlen);
void sy_fib_free(struct sy_fib *fib);
/* 0 and *res filled, or -ENETUNREACH (no route) / -EAFNOSUPPORT (family unset). */
int sy_fib_lookup(const struct sy_fib *fib, const struct sy_addr *dst, struct sy_fib_result *res);

#endif
