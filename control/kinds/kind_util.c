/* SPDX-License-Identifier: BSD-3-Clause */
#include "kind_util.h"

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
