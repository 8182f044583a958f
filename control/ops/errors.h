/* SPDX-License-Identifier: BSD-3-Clause */
/* Error lists for control replies: {"code","object","field","message"}. */
#ifndef SY_ERRORS_H
#define SY_ERRORS_H

#include <jansson.h>

struct sy_errors {
	json_t *list; /* array, created on first add */
};

/* object and field may be NULL. Returns -1 so callers can `return sy_err_add(...)`. */
int sy_err_add(struct sy_errors *e, const char *code, const char *object, const char *field,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static inline int
sy_err_count(const struct sy_errors *e)
{
	return e->list ? (int)json_array_size(e->list) : 0;
}
/* Build {"ok":false,"error":first,"errors":all}; takes the list. */
json_t *sy_err_reply(struct sy_errors *e);
/* A one-error reply. */
json_t *sy_err_reply1(const char *code, const char *object, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
void sy_err_clear(struct sy_errors *e);

#endif
