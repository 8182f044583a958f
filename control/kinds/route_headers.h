/* SPDX-License-Identifier: BSD-3-Clause */
/* An OpenShift Route's spec.httpHeaders.actions (route_headers.c). */
#ifndef SY_ROUTE_HEADERS_H
#define SY_ROUTE_HEADERS_H

#include <jansson.h>

#include "gen/compile.h"

struct sy_arena;
struct sy_errors;

/* At apply: spec.httpHeaders (NULL: none) as the Route API validates it,
 * errors added to errs naming the field and the value. 0 or -1. */
int sy_route_headers_check(const json_t *http_headers, const char *termination, const char *who,
			   struct sy_errors *errs);
/* How many filters sy_route_headers_take may append, at most. */
#define SY_ROUTE_HEADER_FILTERS_MAX 40
/* At compile: the actions as filters (the last action on a name wins, as
 * HAProxy's in-order set-header/del-header leaves it) appended to
 * filters[*n] (room for SY_ROUTE_HEADER_FILTERS_MAX more), their strings in
 * a. Checked already. 0, or -ENOMEM. */
int sy_route_headers_take(struct sy_arena *a, const json_t *http_headers,
			  struct sy_filter_in *filters, unsigned *n);

#endif
