/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "kinds.h"
#include "fleet/fleet.h"
#include "gateway_common.h"

const struct sy_kind *const sy_kinds[] = {
	&sy_kind_service,
	&sy_kind_endpoints,
	&sy_kind_endpointslice,
	&sy_kind_route,
	&sy_kind_namespace,
	&sy_kind_secret,
	&sy_kind_ingressroute_contour,
	&sy_kind_httpproxy_contour,
	&sy_kind_route_contour,
	&sy_kind_routegroup,
	&sy_kind_router,
	&sy_kind_routebinding,
	&sy_kind_ingressclass,
	&sy_kind_ingress,
	&sy_kind_gateway_class,
	&sy_kind_gateway,
	&sy_kind_httproute,
	&sy_kind_grpcroute,
	&sy_kind_reference_grant,
	&sy_kind_tlsroute,
	NULL,
};

const struct sy_kind *
sy_kind_for_object(const char *api_version, const char *kind)
{
	const struct sy_kind *const *k;

	if (api_version == NULL || kind == NULL)
		return NULL;
	for (k = sy_kinds; *k != NULL; k++) {
		const char *const *v;

		if (strcmp((*k)->kind, kind) != 0)
			continue;
		for (v = (*k)->api_versions; *v != NULL; v++)
			if (strcmp(*v, api_version) == 0)
				return *k;
	}
	return NULL;
}

const struct sy_kind *
sy_kind_by_name(const char *name)
{
	const struct sy_kind *const *k;

	if (name == NULL)
		return NULL;
	for (k = sy_kinds; *k != NULL; k++) {
		const char *const *n;

		/* kubectl matches resource names case-insensitively. */
		for (n = (*k)->names; *n != NULL; n++)
			if (strcasecmp(*n, name) == 0)
				return *k;
	}
	return NULL;
}

bool
sy_dns1123_label(const char *s, size_t len)
{
	size_t i;

	if (len == 0 || len > 63)
		return false;
	for (i = 0; i < len; i++) {
		char c = s[i];

		if (!(islower((unsigned char)c) || isdigit((unsigned char)c) || c == '-'))
			return false;
	}
	return s[0] != '-' && s[len - 1] != '-';
}

bool
sy_dns1123_subdomain(const char *s)
{
	size_t len = strlen(s);
	const char *p = s;

	if (len == 0 || len > 253)
		return false;
	for (;;) {
		const char *dot = strchr(p, '.');
		size_t l = dot ? (size_t)(dot - p) : strlen(p);

		if (!sy_dns1123_label(p, l))
			return false;
		if (dot == NULL)
			return true;
		p = dot + 1;
	}
}
