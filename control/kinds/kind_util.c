/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "kind_util.h"
#include "store/store.h"

int
sy_kind_check_port(const json_t *v, bool required, const char *who, const char *field,
		   struct sy_errors *errs)
{
	if (v == NULL)
		return required ? sy_err_add(errs, "invalid", who, field, "required") : 0;
	if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 65535)
		return sy_err_add(errs, "invalid", who, field,
				  "must be an integer between 1 and 65535");
	return 0;
}

int
sy_kind_check_int_or_name(const json_t *v, const char *who, const char *field,
			  struct sy_errors *errs)
{
	if (json_is_string(v) && json_string_length(v) > 0)
		return 0;
	if (json_is_integer(v) && json_integer_value(v) >= 1 && json_integer_value(v) <= 65535)
		return 0;
	return sy_err_add(errs, "invalid", who, field,
			  "must be a port number (1-65535) or a non-empty port name");
}

int
sy_kind_check_string(const json_t *v, const char *who, const char *field, struct sy_errors *errs)
{
	if (v == NULL)
		return sy_err_add(errs, "invalid", who, field, "required");
	if (!json_is_string(v) || json_string_length(v) == 0)
		return sy_err_add(errs, "invalid", who, field, "must be a non-empty string");
	return 0;
}

bool
sy_service_has_port(struct sy_store *st, const char *ns, const char *name, json_int_t port)
{
	struct sy_object *svc = sy_store_find(st, &sy_kind_service, ns, name);
	const json_t *p;
	size_t i;

	if (svc == NULL)
		return false;
	json_array_foreach(json_object_get(json_object_get(svc->obj, "spec"), "ports"), i, p)
		if (json_integer_value(json_object_get(p, "port")) == port)
			return true;
	return false;
}

char *
sy_lower_dup(const char *s)
{
	char *out = strdup(s ? s : ""), *p;

	for (p = out; p && *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

bool
sy_kind_regex_ok(const char *re, char *why, size_t len)
{
	int code;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
	PCRE2_UCHAR buf[256];

	if (c != NULL) {
		pcre2_code_free(c);
		return true;
	}
	pcre2_get_error_message(code, buf, sizeof(buf));
	snprintf(why, len, "%s", (const char *)buf);
	return false;
}
