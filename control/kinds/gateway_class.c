/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway API GatewayClass (gateway.networking.k8s.io/v1, cluster-scoped):
 * ours when spec.controllerName is the config's gateway_controller. Ours get
 * status condition Accepted True; others are left without a status from
 * us, as the spec asks of controllers a class does not name.
 *
 * Its compile writes those statuses: of every class in a full compile, of
 * the changed class in an incremental one. A class's change compiles the
 * Gateways naming it (they become ours, or stop being ours) and their
 * routes (scope.c's K seed, relations key n), not the store.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "gateway_common.h"
#include "gen/compile.h"
#include "store/relations.h"
#include "store/store.h"

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

/* The statuses of the compile's classes (all, or the scope's): they depend
 * on the class and the config alone. Another controller's class gets no
 * status from us (what it has is left). */
static int
compile_gateway_class(struct sy_compile_ctx *cx)
{
	const char *controller = sy_gw_controller(cx);
	struct sy_object **classes;
	size_t nc = 0, i;

	if (cx->scope == NULL && sy_store_count(cx->st, &sy_kind_gateway_class) == 0)
		return 0;
	classes = sy_compile_list(cx, &sy_kind_gateway_class, &nc);
	if (classes == NULL)
		return -ENOMEM;
	for (i = 0; i < nc; i++) {
		struct sy_object *c = classes[i];
		const json_t *spec = json_object_get(c->obj, "spec");
		const json_t *cn = json_object_get(spec, "controllerName");
		json_t *conds, *prev;

		if (!json_is_string(cn) || strcmp(json_string_value(cn), controller) != 0)
			continue;
		prev = json_object_get(c->status, "conditions");
		conds = json_array();
		json_array_append_new(conds, sy_gw_condition(prev, "Accepted", true, "Accepted",
							     "handled by this router", cx->opts->now,
							     sy_gw_generation(c)));
		json_decref(c->status);
		c->status = json_pack("{s:o}", "conditions", conds);
	}
	free(classes);
	return 0;
}

/* n<name>: the key its Gateways state too (gateway.c). A change of the
 * class seeds K<name> (scope.c), which pulls them; the key itself meets
 * nothing. */
static void
gateway_class_relations(const struct sy_object *o, const struct sy_compile_opts *opts,
			struct sy_rel_keys *out)
{
	(void)opts;
	sy_rel_add(out, SY_REL_GW_CLASS, "%s", o->name);
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
	.compile = compile_gateway_class,
	.relations = gateway_class_relations,
};
