/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>

#include <rte_byteorder.h>
#include <rte_errno.h>
#include <rte_lpm.h>
#include <rte_malloc.h>

#include "dp_log.h"
#include "net/fib.h"

/* Room for every connected prefix and static route, with tbl8 groups for
 * each of them being longer than /24 (a /32 host route costs one group). */
#define SY_FIB_MAX_RULES 1024
#define SY_FIB_TBL8S 256

static int
fib_add(struct sy_fib *fib, uint32_t prefix_be, uint8_t len, const struct sy_fib_nh *nh)
{
	unsigned idx = fib->n_nh;
	int rc;

	if (idx >= SY_FIB_MAX_NH)
		return -ENOSPC;
	fib->nh[idx] = *nh;
	/* rte_lpm wants host order and masks the prefix itself. */
	rc = rte_lpm_add(fib->lpm4, rte_be_to_cpu_32(prefix_be), len, idx);
	if (rc < 0)
		return rc;
	fib->n_nh++;
	return 0;
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
	char name[RTE_LPM_NAMESIZE];
	char buf[SY_ADDR_STRLEN];
	struct sy_fib *fib;
	unsigned i, j;
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

	/* Static routes first, connected prefixes last: on an identical prefix
	 * rte_lpm_add replaces the next hop, and a connected prefix must win
	 * over a route that would send its own subnet to a gateway. */
	for (i = 0; i < cfg->n_routes; i++) {
		const struct sy_static_route *r = &cfg->routes[i];
		struct sy_fib_nh nh = { .port = (uint16_t)r->port };

		if (r->prefix.family == AF_INET6) {
			SY_DP_LOG(WARNING, "fib: route %s/%u skipped: IPv6 not supported yet",
				  sy_addr_format(&r->prefix, buf, sizeof(buf)), r->prefix_len);
			continue;
		}
		if (r->prefix.family != AF_INET || r->prefix_len > 32 || r->port >= cfg->n_ports ||
		    (r->via.family != 0 && r->via.family != AF_INET)) {
			snprintf(err, errlen, "fib: route %u (%s/%u): bad prefix, port or via", i,
				 sy_addr_format(&r->prefix, buf, sizeof(buf)), r->prefix_len);
			rc = -EINVAL;
			goto fail;
		}
		nh.gw = r->via;
		rc = fib_add(fib, r->prefix.v4, r->prefix_len, &nh);
		if (rc < 0) {
			snprintf(err, errlen, "fib: route %u (%s/%u): %s", i,
				 sy_addr_format(&r->prefix, buf, sizeof(buf)), r->prefix_len,
				 strerror(-rc));
			goto fail;
		}
	}
	for (i = 0; i < cfg->n_ports; i++) {
		const struct sy_port_config *pc = &cfg->ports[i];

		for (j = 0; j < pc->n_ipv4; j++) {
			const struct sy_port_addr *pa = &pc->ipv4[j];
			struct sy_fib_nh nh = { .port = (uint16_t)i };

			if (pa->addr.family != AF_INET || pa->prefix_len > 32) {
				snprintf(err, errlen, "fib: port %s: address %u is not IPv4",
					 pc->name, j);
				rc = -EINVAL;
				goto fail;
			}
			rc = fib_add(fib, pa->addr.v4, pa->prefix_len, &nh);
			if (rc < 0) {
				snprintf(err, errlen, "fib: port %s: %s/%u: %s", pc->name,
					 sy_addr_format(&pa->addr, buf, sizeof(buf)),
					 pa->prefix_len, strerror(-rc));
				goto fail;
			}
		}
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
	rte_free(fib);
}

int
sy_fib_lookup(const struct sy_fib *fib, const struct sy_addr *dst, struct sy_fib_result *res)
{
	const struct sy_fib_nh *nh;
	uint32_t idx;

	if (dst->family != AF_INET)
		return -EAFNOSUPPORT;
	if (rte_lpm_lookup(fib->lpm4, rte_be_to_cpu_32(dst->v4), &idx) != 0)
		return -ENETUNREACH;
	nh = &fib->nh[idx];
	res->port = nh->port;
	res->direct = nh->gw.family == 0;
	res->nexthop = res->direct ? *dst : nh->gw;
	return 0;
}
