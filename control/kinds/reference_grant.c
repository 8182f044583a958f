/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway API ReferenceGrant (gateway.networking.k8s.io/v1beta1, also v1):
 * in namespace N, it lets objects of the kinds in spec.from (group, kind,
 * namespace) reference the objects of spec.to (group, kind, optional name)
 * in N. A reference across namespaces without one is refused
 * (RefNotPermitted). It compiles nothing itself: a change to one compiles
 * everything (control/gen/scope.c), which re-reads every reference.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway_common.h"
#include "store/store.h"

static const char *
jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static int
check_list(const json_t *l, const char *field, bool from, const char *who, struct sy_errors *errs)
{
	const json_t *e;
	char f[64];
	size_t i;

	if (l == NULL)
		return sy_err_add(errs, "invalid", who, field, "required");
	if (!json_is_array(l) || json_array_size(l) == 0 || json_array_size(l) > 16)
		return sy_err_add(errs, "invalid", who, field, "must be a list of 1 to 16 entries");
	json_array_foreach(l, i, e) {
		snprintf(f, sizeof(f), "%s[%zu]", field, i);
		if (!json_is_object(e))
			return sy_err_add(errs, "invalid", who, f, "must be an object");
		if (!json_is_string(json_object_get(e, "group")))
			return sy_err_add(errs, "invalid", who, f,
					  "group: required (\"\" for the core group)");
		if (!json_is_string(json_object_get(e, "kind")) || jstr(e, "kind")[0] == '\0')
			return sy_err_add(errs, "invalid", who, f, "kind: required");
		if (from && (!json_is_string(json_object_get(e, "namespace")) ||
			     jstr(e, "namespace")[0] == '\0'))
			return sy_err_add(errs, "invalid", who, f, "namespace: required");
	}
	return 0;
}

static int
validate_reference_grant(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *spec = json_object_get(obj, "spec");
	int bad = 0;

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "required");
	if (check_list(json_object_get(spec, "from"), "spec.from", true, who, errs) < 0)
		bad = -1;
	if (check_list(json_object_get(spec, "to"), "spec.to", false, who, errs) < 0)
		bad = -1;
	return bad;
}

bool
sy_gw_ref_granted(const struct sy_store *st, const char *from_kind, const char *from_ns,
		  const char *to_group, const char *to_kind, const char *to_ns, const char *to_name)
{
	struct sy_object **gs;
	size_t n = 0, i, j, k;
	bool ok = false;

	if (strcmp(from_ns, to_ns) == 0)
		return true;
	if (sy_store_count(st, &sy_kind_reference_grant) == 0)
		return false; /* no store walk for the common case */
	gs = sy_store_list(st, &sy_kind_reference_grant, to_ns, &n);
	for (i = 0; gs != NULL && i < n && !ok; i++) {
		const json_t *spec = json_object_get(gs[i]->obj, "spec");
		const json_t *f, *t;
		bool from_ok = false;

		json_array_foreach(json_object_get(spec, "from"), j, f)
			if (strcmp(jstr(f, "group"), SY_GW_GROUP) == 0 &&
			    strcmp(jstr(f, "kind"), from_kind) == 0 &&
			    strcmp(jstr(f, "namespace"), from_ns) == 0)
				from_ok = true;
		if (!from_ok)
			continue;
		json_array_foreach(json_object_get(spec, "to"), k, t)
			if (strcmp(jstr(t, "group"), to_group) == 0 &&
			    strcmp(jstr(t, "kind"), to_kind) == 0 &&
			    (json_object_get(t, "name") == NULL || jstr(t, "name")[0] == '\0' ||
			     strcmp(jstr(t, "name"), to_name) == 0))
				ok = true;
	}
	free(gs);
	return ok;
}

const struct sy_kind sy_kind_reference_grant = {
	.kind = "ReferenceGrant",
	.group = SY_GW_GROUP,
	.api_versions = (const char *const[]){ "gateway.networking.k8s.io/v1beta1",
					       "gateway.networking.k8s.io/v1", NULL },
	.names = (const char *const[]){ "referencegrant", "referencegrants", "refgrant",
					"referencegrants.gateway.networking.k8s.io", NULL },
	.generation = true,
	.validate = validate_reference_grant,
};
