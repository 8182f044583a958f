/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdarg.h>
#include <stdio.h>

#include "ops/errors.h"

static json_t *
make_error(const char *code, const char *object, const char *field, const char *fmt, va_list ap)
{
	char msg[1024];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	return json_pack("{s:s, s:s?, s:s?, s:s}", "code", code, "object", object, "field", field,
			 "message", msg);
}

int
sy_err_add(struct sy_errors *e, const char *code, const char *object, const char *field,
	   const char *fmt, ...)
{
	va_list ap;

	if (e->list == NULL)
		e->list = json_array();
	va_start(ap, fmt);
	json_array_append_new(e->list, make_error(code, object, field, fmt, ap));
	va_end(ap);
	return -1;
}

json_t *
sy_err_reply(struct sy_errors *e)
{
	json_t *list = e->list ? e->list : json_array();

	e->list = NULL;
	return json_pack("{s:b, s:O, s:o}", "ok", 0,
			 "error", json_array_size(list) ? json_array_get(list, 0) : json_null(),
			 "errors", list);
}

json_t *
sy_err_reply1(const char *code, const char *object, const char *field, const char *fmt, ...)
{
	struct sy_errors e = { NULL };
	va_list ap;

	e.list = json_array();
	va_start(ap, fmt);
	json_array_append_new(e.list, make_error(code, object, field, fmt, ap));
	va_end(ap);
	return sy_err_reply(&e);
}

void
sy_err_clear(struct sy_errors *e)
{
	json_decref(e->list);
	e->list = NULL;
}
