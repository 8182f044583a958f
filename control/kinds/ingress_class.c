/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IngressClass (networking.k8s.io/v1, cluster-scoped): which controller
 * serves the Ingresses that name it. Ours when spec.controller is the
 * config's `ingress_controller`; one of ours annotated
 * ingressclass.kubernetes.io/is-default-class: "true" makes the Ingresses
 * that name no class ours too (control/kinds/ingress.c).
 *
 * It compiles nothing itself: a change of one recompiles the Ingresses that
 * name it and those that name none (control/gen/scope.c, seed C<name>).
 */
#include <string.h>

#include "kinds.h"
#include "kind_util.h"
#include "store/relations.h"
#include "store/store.h"
#include "sy_config.h"

#define IS_DEFAULT_CLASS "ingressclass.kubernetes.io/is-default-class"

static int
validate_ingressclass(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *ctl = json_object_get(spec, "controller");
	const json_t *params = json_object_get(spec, "parameters");
	const char *name = json_string_value(json_object_get(json_object_get(obj, "metadata"), "name"));
	int bad = 0;

	if (name != NULL && !sy_dns1123_subdomain(name))
		bad = sy_err_add(errs, "invalid", who, "metadata.name",
				 "\"%s\": must be a lower-case DNS name (RFC 1123 subdomain)", name);
	if (spec != NULL && !json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "must be an object");
	/* The API server's validation: a domain-prefixed path, at most 250
	 * characters ("example.com/ingress-controller"). */
	if (ctl == NULL) {
		bad = sy_err_add(errs, "invalid", who, "spec.controller", "required");
	} else {
		const char *s = json_string_value(ctl), *slash = s ? strchr(s, '/') : NULL;
		char domain[254];

		if (s == NULL || strlen(s) > 250 || slash == NULL || slash == s || slash[1] == '\0' ||
		    (size_t)(slash - s) >= sizeof(domain)) {
			bad = sy_err_add(errs, "invalid", who, "spec.controller",
					 "%s%s%s: must be a domain-prefixed path of at most 250 "
					 "characters (such as \"example.com/ingress-controller\")",
					 s ? "\"" : "", s ? s : "not a string", s ? "\"" : "");
		} else {
			memcpy(domain, s, (size_t)(slash - s));
			domain[slash - s] = '\0';
			if (!sy_dns1123_subdomain(domain))
				bad = sy_err_add(errs, "invalid", who, "spec.controller",
						 "\"%s\": \"%s\" is not a lower-case DNS name", s,
						 domain);
		}
	}
	/* parameters are the controller's business; only their shape is
	 * checked (we have none to read). */
	if (params != NULL && !json_is_null(params) &&
	    (!json_is_object(params) ||
	     !json_is_string(json_object_get(params, "kind")) ||
	     !json_is_string(json_object_get(params, "name"))))
		bad = sy_err_add(errs, "invalid", who, "spec.parameters",
				 "must be an object with string kind and name");
	return bad;
}

bool
sy_ingressclass_ours(const struct sy_object *c, const struct sy_config *cfg)
{
	const char *ctl;

	if (c == NULL || c->obj == NULL)
		return false;
	ctl = json_string_value(json_object_get(json_object_get(c->obj, "spec"), "controller"));
	return ctl != NULL &&
	       strcmp(ctl, cfg && cfg->ingress_controller[0] ? cfg->ingress_controller
							     : SY_INGRESS_CONTROLLER_DEFAULT) == 0;
}

bool
sy_ingressclass_is_default(const struct sy_object *c)
{
	const json_t *ann = json_object_get(json_object_get(c->obj, "metadata"), "annotations");
	const char *v = json_string_value(json_object_get(ann, IS_DEFAULT_CLASS));

	/* Kubernetes compares with "true" exactly (IsDefaultClass). */
	return v != NULL && strcmp(v, "true") == 0;
}

/* Every class under one key, so that ingress.c finds the default classes
 * in the relations index instead of walking the whole store. */
static void
ingressclass_relations(const struct sy_object *o, const struct sy_compile_opts *opts,
		       struct sy_rel_keys *out)
{
	(void)o;
	(void)opts;
	sy_rel_add(out, SY_REL_INGRESSCLASSES, "%s", "");
}

const struct sy_kind sy_kind_ingressclass = {
	.kind = "IngressClass",
	.group = "networking.k8s.io",
	.api_versions = (const char *const[]){ "networking.k8s.io/v1", NULL },
	.names = (const char *const[]){ "ingressclass", "ingressclasses",
					"ingressclasses.networking.k8s.io", NULL },
	.cluster_scoped = true,
	.validate = validate_ingressclass,
	.relations = ingressclass_relations,
};
