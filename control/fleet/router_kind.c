/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * route.openshift.io/v1 Router: one shard of the fleet (the sharding
 * proposal's Router resource), cluster-scoped:
 *
 *   spec.description        free text
 *   spec.dns                the shard's DNS suffix: generated hosts of the
 *                           routes bound to it are <name>-<namespace>.<dns>,
 *                           and its zone file (zone.c) is for <dns>.
 *   spec.routeSelector      label selectors (selector.c): routes they both
 *   spec.namespaceSelector  match are bound here by the scheduler without
 *                           asking the strategy (the proposal's Label)
 *   spec.vips               IPv4 and IPv6 addresses the shard answers on:
 *                           the wildcard A and AAAA records of its zone (DNS
 *                           round robin); VRRP fails over only the IPv4 ones
 *                           (vips.c)
 *
 * A routerd is the Router named by its config's router_name. Routers have
 * no status of their own; `get` adds status.routes, the number of routes
 * bound to it (computed, never stored), for the admin's view of shards.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fleet/fleet.h"
#include "kinds/kinds.h"
#include "kinds/label_selector.h"

int
sy_fleet_vip_parse(const json_t *v, struct sy_fleet_vip *out)
{
	const char *s = json_string_value(v);

	memset(out, 0, sizeof(*out));
	if (s == NULL)
		return -EINVAL;
	if (inet_pton(AF_INET, s, out->addr) == 1)
		out->family = AF_INET;
	else if (inet_pton(AF_INET6, s, out->addr) == 1)
		out->family = AF_INET6;
	return out->family != 0 ? 0 : -EINVAL;
}

const char *
sy_fleet_vip_text(const struct sy_fleet_vip *vip, char *buf, size_t len)
{
	if (vip->family == 0 || inet_ntop(vip->family, vip->addr, buf, (socklen_t)len) == NULL)
		snprintf(buf, len, "?");
	return buf;
}

/* Each entry an address of either family, each address once: compared
 * parsed, so "2001:2::5" and "2001:2:0::5" are the same VIP. */
static int
check_vips(const json_t *vips, const char *who, struct sy_errors *errs)
{
	const json_t *v;
	size_t i, j;
	int bad = 0;

	if (!json_is_array(vips))
		return sy_err_add(errs, "invalid", who, "spec.vips",
				  "must be a list of IPv4 or IPv6 addresses like "
				  "[\"198.18.0.80\", \"2001:2::80\"]");
	json_array_foreach(vips, i, v) {
		struct sy_fleet_vip a, b;
		char f[48];

		snprintf(f, sizeof(f), "spec.vips[%zu]", i);
		if (!json_is_string(v)) {
			bad = sy_err_add(errs, "invalid", who, f,
					 "must be a string: an IPv4 or IPv6 address like "
					 "\"198.18.0.80\" or \"2001:2::80\"");
			continue;
		}
		if (sy_fleet_vip_parse(v, &a) < 0) {
			bad = sy_err_add(errs, "invalid", who, f, "\"%s\" is not an IPv4 or IPv6 address",
					 json_string_value(v));
			continue;
		}
		/* ::ffff:a.b.c.d would be an A record's address in a AAAA
		 * record, and a second spelling of the IPv4 VIP. */
		if (a.family == AF_INET6 && IN6_IS_ADDR_V4MAPPED((const struct in6_addr *)a.addr)) {
			bad = sy_err_add(errs, "invalid", who, f,
					 "\"%s\" is an IPv4-mapped IPv6 address: list the IPv4 "
					 "address itself",
					 json_string_value(v));
			continue;
		}
		for (j = 0; j < i; j++)
			if (sy_fleet_vip_parse(json_array_get(vips, j), &b) == 0 &&
			    memcmp(&a, &b, sizeof(a)) == 0)
				bad = sy_err_add(errs, "invalid", who, f,
						 "\"%s\" is listed twice (also spec.vips[%zu], \"%s\")",
						 json_string_value(v), j,
						 json_string_value(json_array_get(vips, j)));
	}
	return bad;
}

static int
validate_router(const json_t *obj, const char *who, struct sy_errors *errs)
{
	static const char *const sels[] = { "routeSelector", "namespaceSelector" };
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *dns, *desc, *vips;
	size_t i;
	int bad = 0;

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "required (with at least spec.dns)");
	dns = json_object_get(spec, "dns");
	desc = json_object_get(spec, "description");
	vips = json_object_get(spec, "vips");
	if (dns == NULL)
		bad = sy_err_add(errs, "invalid", who, "spec.dns",
				 "required: the shard's DNS suffix, like shard1.apps.example.com");
	else if (!json_is_string(dns) || !sy_dns1123_subdomain(json_string_value(dns)))
		bad = sy_err_add(errs, "invalid", who, "spec.dns",
				 "must be a lowercase DNS name (RFC 1123 labels joined by dots, no "
				 "trailing dot), like shard1.apps.example.com");
	if (desc != NULL && !json_is_string(desc))
		bad = sy_err_add(errs, "invalid", who, "spec.description", "must be a string");
	if (vips != NULL && check_vips(vips, who, errs) < 0)
		bad = -1;
	for (i = 0; i < sizeof(sels) / sizeof(sels[0]); i++) {
		struct sy_label_selector *ls = NULL;
		char why[256], f[48];

		snprintf(f, sizeof(f), "spec.%s", sels[i]);
		if (sy_fleet_selector_parse(json_object_get(spec, sels[i]), &ls, why, sizeof(why)) < 0)
			bad = sy_err_add(errs, "invalid", who, f, "%s", why);
		sy_label_selector_free(ls);
	}
	return bad;
}

const struct sy_kind sy_kind_router = {
	.kind = "Router",
	.group = "route.openshift.io",
	.api_versions = (const char *const[]){ "route.openshift.io/v1", NULL },
	.names = (const char *const[]){ "router", "routers", "routers.route.openshift.io", NULL },
	.cluster_scoped = true,
	.validate = validate_router,
};
