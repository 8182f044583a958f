/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A Router's selectors. Kubernetes writes a label selector as an object
 * (metav1.LabelSelector: matchLabels and matchExpressions, all ANDed); the
 * router's config writes the same thing as text (OpenShift's ROUTE_LABELS,
 * control/kinds/label_selector.h). Both are accepted; the object is turned into
 * the text form so that one matcher serves the config and the fleet.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "kinds/label_selector.h"

/* Append s to buf (len used of cap); -1 when it does not fit. */
static int
put(char *buf, size_t *len, size_t cap, const char *s)
{
	size_t l = strlen(s);

	if (*len + l + 1 > cap)
		return -1;
	memcpy(buf + *len, s, l + 1);
	*len += l;
	return 0;
}

/* The selector text of a LabelSelector object, or -EINVAL naming the field. */
static int
object_text(const json_t *v, char *buf, size_t cap, char *err, size_t errlen)
{
	const json_t *ml = json_object_get(v, "matchLabels");
	const json_t *me = json_object_get(v, "matchExpressions");
	const char *key, *k2;
	const json_t *val, *e, *x;
	size_t len = 0, i, j;

	buf[0] = '\0';
	json_object_foreach((json_t *)v, k2, x)
		if (strcmp(k2, "matchLabels") != 0 && strcmp(k2, "matchExpressions") != 0) {
			snprintf(err, errlen, "unknown field \"%s\" (a label selector has "
				 "matchLabels and matchExpressions)", k2);
			return -EINVAL;
		}
	if (ml != NULL && !json_is_object(ml)) {
		snprintf(err, errlen, "matchLabels: must be an object of label: value strings");
		return -EINVAL;
	}
	json_object_foreach((json_t *)ml, key, val) {
		if (!json_is_string(val)) {
			snprintf(err, errlen, "matchLabels.%s: the value must be a string", key);
			return -EINVAL;
		}
		if ((len && put(buf, &len, cap, ",") < 0) || put(buf, &len, cap, key) < 0 ||
		    put(buf, &len, cap, "=") < 0 || put(buf, &len, cap, json_string_value(val)) < 0)
			goto too_long;
	}
	if (me != NULL && !json_is_array(me)) {
		snprintf(err, errlen, "matchExpressions: must be a list of {key, operator, values}");
		return -EINVAL;
	}
	json_array_foreach(me, i, e) {
		const char *k = json_string_value(json_object_get(e, "key"));
		const char *op = json_string_value(json_object_get(e, "operator"));
		const json_t *vals = json_object_get(e, "values");
		bool set_op = op && (strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0);

		if (k == NULL || k[0] == '\0') {
			snprintf(err, errlen, "matchExpressions[%zu].key: required", i);
			return -EINVAL;
		}
		if (op == NULL || (!set_op && strcmp(op, "Exists") != 0 &&
				   strcmp(op, "DoesNotExist") != 0)) {
			snprintf(err, errlen, "matchExpressions[%zu].operator: must be In, NotIn, "
				 "Exists or DoesNotExist", i);
			return -EINVAL;
		}
		/* metav1's rules: In/NotIn need values, Exists/DoesNotExist none. */
		if (set_op != (json_array_size(vals) > 0) || (vals && !json_is_array(vals))) {
			snprintf(err, errlen, "matchExpressions[%zu].values: %s", i,
				 set_op ? "must be a non-empty list for In and NotIn"
					: "must be empty for Exists and DoesNotExist");
			return -EINVAL;
		}
		if (len && put(buf, &len, cap, ",") < 0)
			goto too_long;
		if (strcmp(op, "DoesNotExist") == 0 && put(buf, &len, cap, "!") < 0)
			goto too_long;
		if (put(buf, &len, cap, k) < 0)
			goto too_long;
		if (!set_op)
			continue;
		if (put(buf, &len, cap, strcmp(op, "In") == 0 ? " in (" : " notin (") < 0)
			goto too_long;
		json_array_foreach(vals, j, x) {
			if (!json_is_string(x)) {
				snprintf(err, errlen, "matchExpressions[%zu].values[%zu]: must be a "
					 "string", i, j);
				return -EINVAL;
			}
			if ((j && put(buf, &len, cap, ",") < 0) ||
			    put(buf, &len, cap, json_string_value(x)) < 0)
				goto too_long;
		}
		if (put(buf, &len, cap, ")") < 0)
			goto too_long;
	}
	return 0;
too_long:
	snprintf(err, errlen, "the selector is longer than %zu characters", cap - 1);
	return -EINVAL;
}

int
sy_fleet_selector_parse(const json_t *v, struct sy_label_selector **out, char *err, size_t errlen)
{
	char text[1024];
	int rc;

	*out = NULL;
	if (v == NULL || json_is_null(v))
		return 0;
	if (json_is_string(v)) {
		snprintf(text, sizeof(text), "%s", json_string_value(v));
	} else if (json_is_object(v)) {
		rc = object_text(v, text, sizeof(text), err, errlen);
		if (rc < 0)
			return rc;
	} else {
		snprintf(err, errlen, "must be a label selector: {matchLabels: {...}, "
			 "matchExpressions: [...]} or text like \"tier=public\"");
		return -EINVAL;
	}
	return sy_label_selector_parse(text, out, err, errlen);
}
