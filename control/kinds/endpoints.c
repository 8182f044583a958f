/* SPDX-License-Identifier: BSD-3-Clause */
/* v1 Endpoints: the addresses and ports behind a Service, by subset. */
#include "kinds.h"
#include "kind_util.h"
#include "sy_addr.h"

static int
validate_endpoints(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *subsets = json_object_get(obj, "subsets");
	const json_t *s;
	size_t i;
	int bad = 0;

	if (subsets == NULL)
		return 0; /* no endpoints yet: legal, the pool is just empty */
	if (!json_is_array(subsets))
		return sy_err_add(errs, "invalid", who, "subsets", "must be a list");
	json_array_foreach(subsets, i, s) {
		const json_t *addrs = json_object_get(s, "addresses");
		const json_t *ports = json_object_get(s, "ports");
		const json_t *a;
		size_t j;
		char f[80];

		if (addrs != NULL && !json_is_array(addrs)) {
			snprintf(f, sizeof(f), "subsets[%zu].addresses", i);
			bad = sy_err_add(errs, "invalid", who, f, "must be a list");
			continue;
		}
		json_array_foreach(addrs, j, a) {
			struct sy_addr ad;
			const json_t *ip = json_object_get(a, "ip");

			snprintf(f, sizeof(f), "subsets[%zu].addresses[%zu].ip", i, j);
			if (!json_is_string(ip) || sy_addr_parse(json_string_value(ip), &ad) < 0)
				bad = sy_err_add(errs, "invalid", who, f,
						 "must be an IPv4 or IPv6 address");
		}
		if (ports != NULL && !json_is_array(ports)) {
			snprintf(f, sizeof(f), "subsets[%zu].ports", i);
			bad = sy_err_add(errs, "invalid", who, f, "must be a list");
			continue;
		}
		json_array_foreach(ports, j, a) {
			snprintf(f, sizeof(f), "subsets[%zu].ports[%zu].port", i, j);
			if (sy_kind_check_port(json_object_get(a, "port"), true, who, f, errs) < 0)
				bad = -1;
		}
	}
	return bad;
}

const struct sy_kind sy_kind_endpoints = {
	.kind = "Endpoints",
	.group = "",
	.api_versions = (const char *const[]){ "v1", NULL },
	.names = (const char *const[]){ "endpoints", "ep", NULL },
	.validate = validate_endpoints,
};
