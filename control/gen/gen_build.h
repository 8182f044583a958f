/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Building generations that share structure (include/sy_generation.h).
 *
 * A build starts empty or from the live generation `prev`: the new one copies
 * prev's chunk directory and points at the same chunks and vhosts. Removing
 * or inserting a vhost copies the one chunk it lands in (once per build).
 * On commit, prev is told what the new generation no longer references (the
 * chunks it copied, the vhosts it replaced): that, and only that, is what
 * prev frees when it is retired after the RCU grace period (control/gen/publish.c).
 * A generation without a successor sharing it frees everything it references.
 */
#ifndef SY_GEN_BUILD_H
#define SY_GEN_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "sy_generation.h"

struct sy_arena;

/* A new generation, empty (prev NULL; sized for `expected` vhosts) or a copy
 * of prev's table. NULL on out of memory. */
struct sy_generation *sy_gen_begin(struct sy_generation *prev, uint64_t id, size_t expected,
				   uint16_t no_route_status);
/* Drop `host`'s vhost from g (if it has one). 0 or -ENOMEM. */
int sy_gen_remove_host(struct sy_generation *g, const char *host, size_t len);
/* Put a vhost (built in its own arena, vh->arena; g takes it over) into g.
 * The host must not be in g. 0 or -ENOMEM (vh is freed). */
int sy_gen_insert(struct sy_generation *g, struct sy_vhost *vh);
/* Finish g: prev (the generation it was begun from, or NULL) learns what to
 * free at retirement. */
void sy_gen_commit(struct sy_generation *g, struct sy_generation *prev);
/*
 * What a committed g changed, for the planners that keep state beside the
 * generation (counter slots, health checks: control/router.c) and must
 * cost what a change touches, not what is loaded. Iterate from *i = 0:
 *  - added: the vhosts g has that the generation it was begun from had
 *    not (every vhost of g when it was begun empty);
 *  - dropped: the vhosts of prev that g no longer has (every vhost of prev
 *    when g was begun empty). prev must be the generation g was begun
 *    from, or, for a g begun empty, the one it replaces (NULL: none).
 * Valid until g's successor is committed; prev's vhosts stay readable
 * until prev is retired and freed.
 */
const struct sy_vhost *sy_gen_next_added(const struct sy_generation *g, size_t *i);
const struct sy_vhost *sy_gen_next_dropped(const struct sy_generation *g,
					   const struct sy_generation *prev, size_t *i);
/* Give up on g before commit: free what it made, leave prev as it was. */
void sy_gen_abort(struct sy_generation *g);
/* Free a retired (or never published) generation: see above. */
void sy_generation_free(struct sy_generation *g);
/* Free one vhost and everything in its block. */
void sy_vhost_free(struct sy_vhost *vh);

#endif
