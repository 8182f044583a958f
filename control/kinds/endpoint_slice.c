/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * discovery.k8s.io/v1 EndpointSlice: the addresses behind a Service, in
 * slices joined to it by the label kubernetes.io/service-name (a Service
 * may have several, one per address family at least). Where a Service has
 * slices, they are used and its v1 Endpoints are not
 * (control/gen/service_endpoints.c).
 */
#include <string.h>

#include "kinds.h"
#include "kind_util.h"
#include "store/relations.h"
#include "store/store.h"
#include "sy_addr.h"

static const char *
service_name_label(const json_t *obj)
{
	return json_string_value(json_object_get(
		json_object_get(json_object_get(obj, "metadata"), "labels"), SY_SLICE_SERVICE_LABEL));
}

static int
check_bool(const json_t *conds, const char *key, const char *who, const char *base,
	   struct sy_errors *errs)
{
	const json_t *v = json_object_get(conds, key);
	char f[96];

	if (v == NULL || json_is_null(v) || json_is_boolean(v))
		return 0;
	snprintf(f, sizeof(f), "%s.%s", base, key);
	return sy_err_add(errs, "invalid", who, f, "must be true or false");
}

static int
validate_endpoint_slice(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *type = json_object_get(obj, "addressType");
	const json_t *eps = json_object_get(obj, "endpoints");
	const json_t *ports = json_object_get(obj, "ports");
	const json_t *label = json_object_get(
		json_object_get(json_object_get(obj, "metadata"), "labels"), SY_SLICE_SERVICE_LABEL);
	const char *t;
	const json_t *e, *a;
	size_t i, j;
	int bad = 0;

	if (type == NULL)
		return sy_err_add(errs, "invalid", who, "addressType", "required");
	t = json_string_value(type);
	if (t == NULL || (strcmp(t, "IPv4") != 0 && strcmp(t, "IPv6") != 0 && strcmp(t, "FQDN") != 0))
		return sy_err_add(errs, "invalid", who, "addressType",
				  "must be one of IPv4, IPv6, FQDN");
	if (label != NULL && (!json_is_string(label) || !sy_dns1123_label(json_string_value(label),
									     json_string_length(label))))
		bad = sy_err_add(errs, "invalid", who, "metadata.labels." SY_SLICE_SERVICE_LABEL,
				 "must be a Service name (RFC 1123 label)");
	if (eps != NULL && !json_is_null(eps) && !json_is_array(eps))
		return sy_err_add(errs, "invalid", who, "endpoints", "must be a list");
	json_array_foreach(eps, i, e) {
		const json_t *addrs = json_object_get(e, "addresses");
		const json_t *conds = json_object_get(e, "conditions");
		char f[96];

		snprintf(f, sizeof(f), "endpoints[%zu].addresses", i);
		if (!json_is_array(addrs) || json_array_size(addrs) == 0 ||
		    json_array_size(addrs) > 100) {
			bad = sy_err_add(errs, "invalid", who, f, "must be a list of 1 to 100 addresses");
			continue;
		}
		json_array_foreach(addrs, j, a) {
			struct sy_addr ad;
			bool ok = json_is_string(a);

			if (ok && strcmp(t, "FQDN") != 0)
				ok = sy_addr_parse(json_string_value(a), &ad) == 0 &&
				     (ad.family == AF_INET6) == (strcmp(t, "IPv6") == 0);
			if (!ok) {
				snprintf(f, sizeof(f), "endpoints[%zu].addresses[%zu]", i, j);
				bad = sy_err_add(errs, "invalid", who, f, "must be an %s address%s%s%s", t,
						 json_is_string(a) ? " (\"" : "",
						 json_is_string(a) ? json_string_value(a) : "",
						 json_is_string(a) ? "\" is not)" : "");
			}
		}
		if (conds != NULL && !json_is_object(conds)) {
			snprintf(f, sizeof(f), "endpoints[%zu].conditions", i);
			bad = sy_err_add(errs, "invalid", who, f, "must be an object");
			continue;
		}
		snprintf(f, sizeof(f), "endpoints[%zu].conditions", i);
		if (check_bool(conds, "ready", who, f, errs) < 0 ||
		    check_bool(conds, "serving", who, f, errs) < 0 ||
		    check_bool(conds, "terminating", who, f, errs) < 0)
			bad = -1;
	}
	if (ports != NULL && !json_is_null(ports) && !json_is_array(ports))
		return sy_err_add(errs, "invalid", who, "ports", "must be a list");
	json_array_foreach(ports, i, e) {
		const json_t *name = json_object_get(e, "name");
		char f[64];

		snprintf(f, sizeof(f), "ports[%zu].port", i);
		/* a port left out means "all ports" to Kubernetes; we serve a
		 * slice by its numbered ports only */
		if (sy_kind_check_port(json_object_get(e, "port"), true, who, f, errs) < 0)
			bad = -1;
		if (name != NULL && !json_is_null(name) && !json_is_string(name)) {
			snprintf(f, sizeof(f), "ports[%zu].name", i);
			bad = sy_err_add(errs, "invalid", who, f, "must be a string");
		}
	}
	return bad;
}

/* Its Service: pool.c finds a Service's slices by this key, and a change
 * of the slice recompiles what reads that Service (scope.c). */
static void
endpoint_slice_relations(const struct sy_object *o, const struct sy_compile_opts *opts,
			 struct sy_rel_keys *out)
{
	const char *svc = service_name_label(o->obj);

	(void)opts;
	if (svc != NULL)
		sy_rel_add(out, SY_REL_SLICE, "%s/%s", o->ns, svc);
}

const struct sy_kind sy_kind_endpointslice = {
	.kind = "EndpointSlice",
	.group = "discovery.k8s.io",
	.api_versions = (const char *const[]){ "discovery.k8s.io/v1", NULL },
	.names = (const char *const[]){ "endpointslice", "endpointslices",
					"endpointslices.discovery.k8s.io", NULL },
	.validate = validate_endpoint_slice,
	.relations = endpoint_slice_relations,
};
