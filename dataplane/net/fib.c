/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_lpm6.h>
#include <rte_malloc.h>

#include "dp_log.h"
#include "net/fib.h"

/* Room for every connected prefix and static route, with tbl8 groups for
 * each of them being longer than /24 (a /32 host route costs one group). */
#define SY_FIB_MAX_RULES 1024
#define SY_FIB_TBL8S 256
/* rte_lpm6 walks 8 bits a level after the first 24: a /64 costs five
 * groups, a /128 thirteen. */
#define SY_FIB6_TBL8S 2048

/* The IPv6 prefix into the scan list (struct sy_fib), longest first; the
 * same prefix again takes the new next hop, as rte_lpm6_add does. Past
 * SY_FIB6_SCAN_MAX distinct prefixes the list is given up for rte_lpm6. */
static void
scan6_add(struct sy_fib *fib, const uint8_t addr[16], uint8_t len, uint32_t idx)
{
	struct sy_fib6_prefix e = { .nh = idx };
	unsigned i, k;

	for (k = 0; k < 2; k++) {
		unsigned bits = len > 64 * k ? len - 64 * k : 0;
		uint64_t host_mask = bits >= 64 ? ~0ull : bits == 0 ? 0 : ~0ull << (64 - bits);
		uint64_t a;

		e.mask[k] = rte_cpu_to_be_64(host_mask);
		memcpy(&a, addr + 8 * k, 8);
		e.addr[k] = a & e.mask[k];
	}
	if (fib->n_scan6 > SY_FIB6_SCAN_MAX)
		return;
	for (i = 0; i < fib->n_scan6; i++)
		if (fib->scan6[i].addr[0] == e.addr[0] && fib->scan6[i].addr[1] == e.addr[1] &&
		    fib->scan6[i].mask[0] == e.mask[0] && fib->scan6[i].mask[1] == e.mask[1]) {
			fib->scan6[i].nh = idx;
			return;
		}
	if (fib->n_scan6 == SY_FIB6_SCAN_MAX) {
		fib->n_scan6++; /* too many: rte_lpm6 from now on */
		return;
	}
	/* Longer masks first: the first match is the longest. */
	for (i = fib->n_scan6; i > 0; i--) {
		const struct sy_fib6_prefix *p = &fib->scan6[i - 1];
		unsigned plen = (unsigned)__builtin_popcountll(p->mask[0]) +
				(unsigned)__builtin_popcountll(p->mask[1]);

		if (plen >= len)
			break;
		fib->scan6[i] = *p;
	}
	fib->scan6[i] = e;
	fib->n_scan6++;
}

/* Either family: rte_lpm for IPv4, rte_lpm6 for IPv6, one next-hop array. */
static int
fib_add(struct sy_fib *fib, const struct sy_addr *prefix, uint8_t len, const struct sy_fib_nh *nh)
{
	unsigned idx = fib->n_nh;
	int rc;

	if (idx >= SY_FIB_MAX_NH)
		return -ENOSPC;
	fib->nh[idx] = *nh;
	/* rte_lpm and rte_lpm6 take depths from 1: a default route (/0) is
	 * the family's fallback, asked when they have no match. */
	if (len == 0) {
		fib->default_nh[prefix->family == AF_INET6] = idx + 1;
		if (prefix->family == AF_INET6)
			scan6_add(fib, prefix->v6, len, idx);
		fib->n_nh++;
		return 0;
	}
	/* rte_lpm wants host order; both mask the prefix themselves. */
	if (prefix->family == AF_INET6) {
		rc = fib->lpm6 != NULL ? rte_lpm6_add(fib->lpm6, prefix->v6, len, idx) : 0;
		if (rc == 0)
			scan6_add(fib, prefix->v6, len, idx);
	} else
		rc = rte_lpm_add(fib->lpm4, rte_be_to_cpu_32(prefix->v4), len, idx);
	if (rc < 0)
		return rc;
	fib->n_nh++;
	return 0;
}

static bool
route_ok(const struct sy_config *cfg, const struct sy_static_route *r)
{
	uint8_t max = r->prefix.family == AF_INET6 ? 128 : 32;

	if (r->prefix.family != AF_INET && r->prefix.family != AF_INET6)
		return false;
	if (r->prefix_len > max || r->port >= cfg->n_ports)
		return false;
	return r->via.family == 0 || r->via.family == r->prefix.family;
}

/* The connected prefixes of one port, of one family. */
static int
add_connected(struct sy_fib *fib, const struct sy_port_config *pc, unsigned port,
	      const struct sy_port_addr *addrs, unsigned n, uint8_t family, char *err,
	      size_t errlen)
{
	char buf[SY_ADDR_STRLEN];
	unsigned j;
	int rc;

	for (j = 0; j < n; j++) {
		const struct sy_port_addr *pa = &addrs[j];
		struct sy_fib_nh nh = { .port = (uint16_t)port };

		if (pa->addr.family != family || pa->prefix_len > (family == AF_INET ? 32 : 128)) {
			snprintf(err, errlen, "fib: port %s: address %u is not %s", pc->name, j,
				 family == AF_INET ? "IPv4" : "IPv6");
			return -EINVAL;
		}
		rc = fib_add(fib, &pa->addr, pa->prefix_len, &nh);
		if (rc < 0) {
			snprintf(err, errlen, "fib: port %s: %s/%u: %s", pc->name,
				 sy_addr_format(&pa->addr, buf, sizeof(buf)), pa->prefix_len,
				 strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* The IPv6 prefixes cfg gives the FIB, the default route and repeats
 * included: at least as many as the scan list will hold. */
static unsigned
ipv6_prefixes(const struct sy_config *cfg)
{
	unsigned i, n = 0;

	for (i = 0; i < cfg->n_routes; i++)
		n += cfg->routes[i].prefix.family == AF_INET6;
	for (i = 0; i < cfg->n_ports; i++)
		n += cfg->ports[i].n_ipv6;
	return n;
}

int
sy_fib_create(const struct sy_config *cfg, struct sy_fib **out, char *err, size_t errlen)
{
	/* rte_lpm names are global to the process: tests build several FIBs. */
	static atomic_uint seq;
	struct rte_lpm_config lc = {
		.max_rules = SY_FIB_MAX_RULES,
		.number_tbl8s = SY_FIB_TBL8S,
	};
	struct rte_lpm6_config lc6 = {
		.max_rules = SY_FIB_MAX_RULES,
		.number_tbl8s = SY_FIB6_TBL8S,
	};
	char name[RTE_LPM_NAMESIZE];
	char buf[SY_ADDR_STRLEN];
	struct sy_fib *fib;
	unsigned i;
	int rc;

	*out = NULL;
	fib = rte_zmalloc("sy_fib", sizeof(*fib), 0);
	if (fib == NULL) {
		snprintf(err, errlen, "fib: out of memory");
		return -ENOMEM;
	}
	snprintf(name, sizeof(name), "sy_fib4_%u", atomic_fetch_add(&seq, 1));
	fib->lpm4 = rte_lpm_create(name, SOCKET_ID_ANY, &lc);
	if (fib->lpm4 == NULL) {
		rc = -rte_errno;
		snprintf(err, errlen, "fib: rte_lpm_create: %s", rte_strerror(rte_errno));
		goto fail;
	}
	/* rte_lpm6 only when the scan cannot hold every IPv6 prefix: its
	 * first level alone is 2^24 entries, 64 MB of hugepage memory that a
	 * router with a few IPv6 prefixes (or none) would never read, and
	 * that a small -m (the etcd and fleet benchmarks' 128 MB) cannot
	 * give beside rte_lpm's own 64 MB. */
	snprintf(name, sizeof(name), "sy_fib6_%u", atomic_fetch_add(&seq, 1));
	if (ipv6_prefixes(cfg) > SY_FIB6_SCAN_MAX &&
	    (fib->lpm6 = rte_lpm6_create(name, SOCKET_ID_ANY, &lc6)) == NULL) {
		rc = -rte_errno;
		snprintf(err, errlen, "fib: rte_lpm6_create: %s", rte_strerror(rte_errno));
		goto fail;
	}

	/* Static routes first, connected prefixes last: on an identical prefix
	 * rte_lpm_add replaces the next hop, and a connected prefix must win
	 * over a route that would send its own subnet to a gateway. */
	for (i = 0; i < cfg->n_routes; i++) {
		const struct sy_static_route *r = &cfg->routes[i];
		struct sy_fib_nh nh = { .port = (uint16_t)r->port };

		if (!route_ok(cfg, r)) {
			snprintf(err, errlen, "fib: route %u (%s/%u): bad prefix, port or via", i,
				 sy_addr_format(&r->prefix, buf, sizeof(buf)), r->prefix_len);
			rc = -EINVAL;
			goto fail;
		}
		nh.gw = r->via;
		rc = fib_add(fib, &r->prefix, r->prefix_len, &nh);
		if (rc < 0) {
			snprintf(err, errlen, "fib: route %u (%s/%u): %s", i,
				 sy_addr_format(&r->prefix, buf, sizeof(buf)), r->prefix_len,
				 strerror(-rc));
			goto fail;
		}
	}
	for (i = 0; i < cfg->n_ports; i++) {
		const struct sy_port_config *pc = &cfg->ports[i];

		rc = add_connected(fib, pc, i, pc->ipv4, pc->n_ipv4, AF_INET, err, errlen);
		if (rc == 0)
			rc = add_connected(fib, pc, i, pc->ipv6, pc->n_ipv6, AF_INET6, err, errlen);
		if (rc < 0)
			goto fail;
	}
	*out = fib;
	return 0;
fail:
	sy_fib_free(fib);
	return rc;
}

void
sy_fib_free(struct sy_fib *fib)
{
	if (fib == NULL)
		return;
	rte_lpm_free(fib->lpm4);
	if (fib->lpm6 != NULL)
		rte_lpm6_free(fib->lpm6);
	rte_free(fib);
}

int
sy_fib_lookup(const struct sy_fib *fib, const struct sy_addr *dst, struct sy_fib_result *res)
{
	const struct sy_fib_nh *nh;
	uint32_t idx;

	if (dst->family == AF_INET) {
		if (rte_lpm_lookup(fib->lpm4, rte_be_to_cpu_32(dst->v4), &idx) != 0) {
			if (fib->default_nh[0] == 0)
				return -ENETUNREACH;
			idx = fib->default_nh[0] - 1;
		}
	} else if (dst->family == AF_INET6) {
		if (fib->n_scan6 <= SY_FIB6_SCAN_MAX) {
			uint64_t d0, d1;
			unsigned i;

			memcpy(&d0, dst->v6, 8);
			memcpy(&d1, dst->v6 + 8, 8);
			for (i = 0; i < fib->n_scan6; i++) {
				const struct sy_fib6_prefix *p = &fib->scan6[i];

				if (((d0 & p->mask[0]) ^ p->addr[0]) == 0 &&
				    ((d1 & p->mask[1]) ^ p->addr[1]) == 0)
					break;
			}
			if (i == fib->n_scan6)
				return -ENETUNREACH;
			idx = fib->scan6[i].nh;
		} else if (rte_lpm6_lookup(fib->lpm6, dst->v6, &idx) != 0) {
			if (fib->default_nh[1] == 0)
				return -ENETUNREACH;
			idx = fib->default_nh[1] - 1;
		}
	} else {
		return -EAFNOSUPPORT;
	}
	nh = &fib->nh[idx];
	res->port = nh->port;
	res->direct = nh->gw.family == 0;
	res->nexthop = res->direct ? *dst : nh->gw;
	res->nh_id = idx;
	return 0;
}
