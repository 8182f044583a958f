/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * v1 Namespace: cluster-scoped; only its labels matter here, for router
 * sharding by namespace label selector (OpenShift's NAMESPACE_LABELS).
 */
#include "kinds.h"

static int
validate_namespace(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *labels = json_object_get(json_object_get(obj, "metadata"), "labels");
	const char *key;
	json_t *v;

	if (labels == NULL)
		return 0;
	if (!json_is_object(labels))
		return sy_err_add(errs, "invalid", who, "metadata.labels", "must be an object of strings");
	json_object_foreach((json_t *)labels, key, v)
		if (!json_is_string(v))
			return sy_err_add(errs, "invalid", who, "metadata.labels",
					  "label \"%s\": the value must be a string", key);
	return 0;
}

const struct sy_kind sy_kind_namespace = {
	.kind = "Namespace",
	.group = "",
	.api_versions = (const char *const[]){ "v1", NULL },
	.names = (const char *const[]){ "namespace", "namespaces", "ns", NULL },
	.cluster_scoped = true,
	.validate = validate_namespace,
};
