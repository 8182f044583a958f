/* SPDX-License-Identifier: BSD-3-Clause */
/* Field checks the kinds share. Each adds an "invalid" error naming the field. */
#ifndef SY_KIND_UTIL_H
#define SY_KIND_UTIL_H

#include <stdbool.h>
#include <stdio.h>

#include "kinds.h"

/* An integer 1..65535 (required: missing is an error). */
int sy_kind_check_port(const json_t *v, bool required, const char *who, const char *field,
		       struct sy_errors *errs);
/* A port number 1..65535 or a non-empty port name (Kubernetes IntOrString). */
int sy_kind_check_int_or_name(const json_t *v, const char *who, const char *field,
			      struct sy_errors *errs);
/* A required non-empty string. */
int sy_kind_check_string(const json_t *v, const char *who, const char *field,
			 struct sy_errors *errs);

/* Does Service ns/name exist with this port (by number)? Contour's
 * lookupHTTPService and the Route CRD's upstreams need it. */
struct sy_store;
bool sy_service_has_port(struct sy_store *st, const char *ns, const char *name, json_int_t port);
/* Does re compile (PCRE2)? If not, PCRE2's reason in why. */
bool sy_kind_regex_ok(const char *re, char *why, size_t len);
/* A lower-case malloc'd copy ("" for NULL). */
char *sy_lower_dup(const char *s);

#endif
