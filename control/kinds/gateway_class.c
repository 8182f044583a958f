/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway API GatewayClass (gateway.networking.k8s.io/v1, cluster-scoped):
 * ours when spec.controllerName is the config's gateway_controller. Ours get
 * status condition Accepted True (written by the Gateway compile,
 * gateway_common.c); others are left without a status from us, as the spec
 * asks of controllers a class does not name.
 */
#include <string.h>

#include "gateway_common.h"

static int
validate_gateway_class(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *cn = json_object_get(spec, "controllerName");

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "required");
	if (cn == NULL)
		return sy_err_add(errs, "invalid", who, "spec.controllerName", "required");
	/* GatewayController: a domain-prefixed path, at most 253 bytes. */
	if (!json_is_string(cn) || json_string_length(cn) == 0 || json_string_length(cn) > 253 ||
	    strchr(json_string_value(cn), '/') == NULL)
		return sy_err_add(errs, "invalid", who, "spec.controllerName",
				  "\"%s\": must be a domain-prefixed path (example.com/name)",
				  json_is_string(cn) ? json_string_value(cn) : "");
	return 0;
}

const struct sy_kind sy_kind_gateway_class = {
	.kind = "GatewayClass",
	.group = SY_GW_GROUP,
	.api_versions = (const char *const[]){ "gateway.networking.k8s.io/v1",
					       "gateway.networking.k8s.io/v1beta1", NULL },
	.names = (const char *const[]){ "gatewayclass", "gatewayclasses", "gc",
					"gatewayclasses.gateway.networking.k8s.io", NULL },
	.cluster_scoped = true,
	.generation = true,
	.validate = validate_gateway_class,
};
