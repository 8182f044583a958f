/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scopes for incremental compiles: from what changed since the live
 * generation (objects applied or deleted, with the keys their old versions
 * had) to the closed set of objects to recompile and hosts to rebuild
 * (struct sy_compile_scope, control/gen/compile.h).
 *
 * Closed means: for every host any object in the scope claims (now or
 * before the change), every object that claims it is in the scope; and the
 * same for wildcard domains and IngressRoute delegation links (relations.h
 * lists which keys meet which). Objects outside the scope then compile
 * exactly as they did, so their statuses and vhosts are kept as they are.
 */
#ifndef SY_SCOPE_H
#define SY_SCOPE_H

#include <stdbool.h>
#include <stddef.h>

#include "gen/compile.h"
#include "store/relations.h"
#include "strmap.h"

struct sy_store;

/* What changed since the last compile. */
struct sy_changes {
	bool full;               /* something only a full compile handles */
	struct sy_rel_keys seeds; /* keys to start from (see sy_changes_note) */
};

/* Note that kind/ns/name changed (applied or deleted). `old_keys` are the
 * keys the replaced or deleted version had (relations_remove's `keep`); the
 * new version `now` (NULL on delete) is in the store and indexed already
 * (an EndpointSlice's keys name the Service whose readers it changes). */
void sy_changes_note(struct sy_changes *ch, const struct sy_kind *kind, const char *ns,
		     const char *name, struct sy_rel_keys *old_keys, const struct sy_object *now);
void sy_changes_reset(struct sy_changes *ch);

struct sy_scope {
	struct sy_compile_scope cs;
	struct sy_strmap hosts;
	struct sy_rel_keys host_names; /* the strings `hosts` points at */
	size_t cap;
};

/* Build the closed scope of ch. 0; -E2BIG when it would hold more than
 * `limit` objects (compile everything instead); -ENOMEM. */
int sy_scope_build(struct sy_scope *sc, const struct sy_changes *ch, struct sy_store *st,
		   const struct sy_relations *rel, size_t limit);
void sy_scope_fini(struct sy_scope *sc);

#endif
