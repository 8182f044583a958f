/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How a route object stands, in one word its dialect uses, read from the
 * status the last compile gave it: OpenShift `admitted`, `rejected`,
 * `not_in_shard` (no status from this router); Contour `valid`, `invalid`,
 * `orphaned`; Skipper `valid`, `invalid`. The metrics count objects by it
 * (`switchyard_routes`) and the status page shows it per object.
 */
#ifndef SY_ROUTE_STATE_H
#define SY_ROUTE_STATE_H

#include <stddef.h>

struct sy_kind;
struct sy_object;

/* The kinds that are routes (they claim hosts), NULL-terminated. */
extern const struct sy_kind *const sy_route_kinds[];

/* o must be warm (store.h). */
const char *sy_route_state(const struct sy_object *o);

#endif
