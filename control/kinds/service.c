/* SPDX-License-Identifier: BSD-3-Clause */
/* v1 Service: what routes name as their backends; its ports map names to numbers. */
#include "kinds.h"
#include "kind_util.h"

static int
validate_service(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *ports = json_object_get(json_object_get(obj, "spec"), "ports");
	const json_t *p;
	size_t i;
	int bad = 0;

	if (ports == NULL)
		return 0; /* a Service without ports is legal (headless, selector-less) */
	if (!json_is_array(ports))
		return sy_err_add(errs, "invalid", who, "spec.ports", "must be a list");
	json_array_foreach(ports, i, p) {
		char f[64];
		const json_t *name = json_object_get(p, "name");

		snprintf(f, sizeof(f), "spec.ports[%zu].port", i);
		if (sy_kind_check_port(json_object_get(p, "port"), true, who, f, errs) < 0)
			bad = -1;
		snprintf(f, sizeof(f), "spec.ports[%zu].targetPort", i);
		if (json_object_get(p, "targetPort") != NULL &&
		    sy_kind_check_int_or_name(json_object_get(p, "targetPort"), who, f, errs) < 0)
			bad = -1;
		if (name != NULL && !json_is_string(name)) {
			snprintf(f, sizeof(f), "spec.ports[%zu].name", i);
			bad = sy_err_add(errs, "invalid", who, f, "must be a string");
		}
		if (name == NULL && json_array_size(ports) > 1) {
			snprintf(f, sizeof(f), "spec.ports[%zu].name", i);
			bad = sy_err_add(errs, "invalid", who, f,
					 "required when the service has more than one port");
		}
	}
	return bad;
}

const struct sy_kind sy_kind_service = {
	.kind = "Service",
	.group = "",
	.api_versions = (const char *const[]){ "v1", NULL },
	.names = (const char *const[]){ "service", "services", "svc", NULL },
	.validate = validate_service,
};
