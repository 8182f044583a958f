/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * spec.httpHeaders.actions of an OpenShift Route (route.openshift.io/v1,
 * OpenShift 4.14): request and response headers set or deleted by the
 * router, per route. As the Route API validates them: a header name is an
 * HTTP token (RFC 9110 5.6.2) of at most 255 bytes; type Set with a value
 * of 1 to 16384 bytes, or Delete without one; at most 20 actions a side;
 * and the names OpenShift keeps for itself are refused (proxy, host,
 * strict-transport-security, cookie, set-cookie). So are the hop-by-hop and
 * framing headers, which the proxy owns: changing Connection, Transfer-
 * Encoding or Content-Length from a route would desynchronise it from the
 * backend (the smuggling corpus is made of such requests).
 *
 * Values are literal. OpenShift's HAProxy takes a few sample fetches in a
 * value (%[req.hdr(host)], %[ssl_c_der,base64]); this router does not
 * evaluate them and refuses such a value by name rather than send its text.
 *
 * They become the proxy's filters (setRequestHeader and setResponseHeader,
 * and their Delete twins); a route with any is proxied. Passthrough routes
 * have no HTTP of ours: refused there, as the Route API does.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "arena.h"
#include "kinds/route_headers.h"
#include "ops/errors.h"

#define ACTIONS_MAX 20
#define NAME_MAX_LEN 255
#define VALUE_MAX_LEN 16384

static const char *const reserved[] = {
	/* OpenShift's own */
	"proxy", "host", "strict-transport-security", "cookie", "set-cookie",
	/* hop-by-hop (RFC 9110 7.6.1) and framing: the proxy's */
	"connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
	"upgrade", "content-length",
};

static bool
is_token(const char *s)
{
	static const char extra[] = "!#$%&'*+-.^_`|~";

	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      strchr(extra, *s) != NULL))
			return false;
	return true;
}

static int
check_side(const json_t *list, const char *side, const char *who, struct sy_errors *errs)
{
	const json_t *a;
	size_t i;
	int bad = 0;
	char f[96];

	snprintf(f, sizeof(f), "spec.httpHeaders.actions.%s", side);
	if (list == NULL || json_is_null(list))
		return 0;
	if (!json_is_array(list))
		return sy_err_add(errs, "invalid", who, f, "must be a list");
	if (json_array_size(list) > ACTIONS_MAX)
		return sy_err_add(errs, "invalid", who, f, "Too many: %zu: must have at most %d items",
				  json_array_size(list), ACTIONS_MAX);
	json_array_foreach(list, i, a) {
		const char *name = json_string_value(json_object_get(a, "name"));
		const json_t *act = json_object_get(a, "action");
		const char *type = json_string_value(json_object_get(act, "type"));
		const json_t *set = json_object_get(act, "set");
		const char *value = json_string_value(json_object_get(set, "value"));
		size_t k;

		snprintf(f, sizeof(f), "spec.httpHeaders.actions.%s[%zu]", side, i);
		if (name == NULL || strlen(name) > NAME_MAX_LEN || !is_token(name)) {
			bad = sy_err_add(errs, "invalid", who, f,
					 "name: Invalid value: \"%.64s\": must be an HTTP header name "
					 "(a token of at most %d characters)",
					 name ? name : "", NAME_MAX_LEN);
			continue;
		}
		for (k = 0; k < sizeof(reserved) / sizeof(reserved[0]); k++)
			if (strcasecmp(name, reserved[k]) == 0)
				break;
		if (k < sizeof(reserved) / sizeof(reserved[0])) {
			bad = sy_err_add(errs, "invalid", who, f,
					 "name: Forbidden: \"%s\": the router does not let a route set or "
					 "delete it",
					 name);
			continue;
		}
		if (type == NULL || (strcmp(type, "Set") != 0 && strcmp(type, "Delete") != 0)) {
			bad = sy_err_add(errs, "invalid", who, f,
					 "action.type: Unsupported value: \"%s\": supported values: "
					 "\"Set\", \"Delete\"",
					 type ? type : "");
			continue;
		}
		if (strcmp(type, "Delete") == 0) {
			if (set != NULL && !json_is_null(set))
				bad = sy_err_add(errs, "invalid", who, f,
						 "action.set: Forbidden: only with type Set");
			continue;
		}
		if (value == NULL || value[0] == '\0' || strlen(value) > VALUE_MAX_LEN)
			bad = sy_err_add(errs, "invalid", who, f,
					 "action.set.value: Required: 1 to %d characters", VALUE_MAX_LEN);
		else if (strpbrk(value, "\r\n") != NULL ||
			 json_string_length(json_object_get(set, "value")) != strlen(value))
			bad = sy_err_add(errs, "invalid", who, f,
					 "action.set.value: Invalid value: a header value has no line breaks");
		else if (strstr(value, "%[") != NULL || strstr(value, "%{") != NULL)
			bad = sy_err_add(errs, "invalid", who, f,
					 "action.set.value: Invalid value: \"%.64s\": dynamic values "
					 "(HAProxy sample fetches) are not supported by this router",
					 value);
	}
	return bad;
}

int
sy_route_headers_check(const json_t *hh, const char *termination, const char *who,
		       struct sy_errors *errs)
{
	const json_t *actions = json_object_get(hh, "actions");
	int bad = 0;

	if (hh == NULL || json_is_null(hh))
		return 0;
	if (!json_is_object(hh) || (actions != NULL && !json_is_null(actions) && !json_is_object(actions)))
		return sy_err_add(errs, "invalid", who, "spec.httpHeaders", "must be an object");
	if (json_object_size(actions) > 0 && termination != NULL &&
	    strcmp(termination, "passthrough") == 0)
		return sy_err_add(errs, "invalid", who, "spec.httpHeaders.actions",
				  "Forbidden: passthrough routes carry no HTTP the router can change");
	if (check_side(json_object_get(actions, "request"), "request", who, errs) < 0)
		bad = -1;
	if (check_side(json_object_get(actions, "response"), "response", who, errs) < 0)
		bad = -1;
	return bad;
}

static const char *
str(const json_t *v)
{
	return json_is_string(v) ? json_string_value(v) : "";
}

/* One side's actions, the last on each name only. */
static int
take_side(struct sy_arena *a, const json_t *list, bool request, struct sy_filter_in *filters,
	  unsigned *n)
{
	size_t i, j;

	for (i = 0; i < json_array_size(list); i++) {
		const json_t *x = json_array_get(list, i);
		const char *name = json_string_value(json_object_get(x, "name"));
		const json_t *act = json_object_get(x, "action");
		bool del = strcmp(str(json_object_get(act, "type")), "Delete") == 0;
		const char *value = json_string_value(json_object_get(json_object_get(act, "set"), "value"));
		json_t *args;
		char *text;

		for (j = i + 1; j < json_array_size(list); j++)
			if (strcasecmp(str(json_object_get(json_array_get(list, j), "name")), name) == 0)
				break;
		if (j < json_array_size(list))
			continue; /* a later action on the name decides */
		args = del ? json_pack("[s]", name) : json_pack("[s, s]", name, value ? value : "");
		text = args ? json_dumps(args, JSON_COMPACT) : NULL;
		json_decref(args);
		if (text == NULL)
			return -ENOMEM;
		filters[*n].args = sy_arena_strdup(a, text);
		free(text);
		filters[*n].type = request ? (del ? SY_FILTER_DELETE_REQUEST_HEADER : SY_FILTER_SET_REQUEST_HEADER)
					   : (del ? SY_FILTER_DELETE_RESPONSE_HEADER : SY_FILTER_SET_RESPONSE_HEADER);
		filters[*n].name = request ? (del ? "httpHeaders.request.Delete" : "httpHeaders.request.Set")
					   : (del ? "httpHeaders.response.Delete" : "httpHeaders.response.Set");
		if (filters[*n].args == NULL)
			return -ENOMEM;
		(*n)++;
	}
	return 0;
}

int
sy_route_headers_take(struct sy_arena *a, const json_t *hh, struct sy_filter_in *filters, unsigned *n)
{
	const json_t *actions = json_object_get(hh, "actions");

	if (take_side(a, json_object_get(actions, "request"), true, filters, n) < 0 ||
	    take_side(a, json_object_get(actions, "response"), false, filters, n) < 0)
		return -ENOMEM;
	return 0;
}
