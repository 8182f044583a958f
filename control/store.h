/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The object store: every applied resource as it was applied, with its age
 * (creationTimestamp, uid) and the status the last compile gave it. Control
 * thread only. The data plane never sees it: it sees the generation.
 */
#ifndef SY_STORE_H
#define SY_STORE_H

#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "kinds/kinds.h"

struct sy_object {
	const struct sy_kind *kind;
	char *ns;
	char *name;
	json_t *obj;     /* as applied, with metadata.creationTimestamp and metadata.uid set */
	json_t *status;  /* set by compile; NULL for kinds without status */
	char created[32]; /* RFC 3339 UTC, seconds: orders claims (oldest wins) */
	char uid[40];
	struct sy_object *hnext;
	/* Its keys in the router's relations index (control/relations.h). */
	struct sy_rel_key **rel;
	uint32_t n_rel;
	uint32_t mark; /* scope walks (control/scope.c) */
};

struct sy_store {
	struct sy_object **buckets;
	size_t n_buckets;
	size_t count;
};

int sy_store_init(struct sy_store *st);
void sy_store_fini(struct sy_store *st);
struct sy_object *sy_store_find(const struct sy_store *st, const struct sy_kind *kind,
				const char *ns, const char *name);
/* Insert, or replace the object with the same identity (the old one is
 * returned, detached, for the caller to free or to put back). */
struct sy_object *sy_store_put(struct sy_store *st, struct sy_object *o);
/* Detach and return the object, or NULL. */
struct sy_object *sy_store_remove(struct sy_store *st, const struct sy_kind *kind,
				  const char *ns, const char *name);
/* Objects of a kind (NULL = all kinds), in namespace ns (NULL = all), sorted
 * by namespace then name. The array is malloc'd; *n its length. */
struct sy_object **sy_store_list(const struct sy_store *st, const struct sy_kind *kind,
				 const char *ns, size_t *n);
/* Sort objects as sy_store_list does (kind, namespace, name). */
void sy_store_sort(struct sy_object **arr, size_t n);
size_t sy_store_count(const struct sy_store *st, const struct sy_kind *kind);

/* A new detached object from an applied JSON (takes a reference to obj). */
struct sy_object *sy_object_new(const struct sy_kind *kind, const char *ns, const char *name,
				json_t *obj, const char *created, const char *uid);
void sy_object_free(struct sy_object *o);
/* The object as `get` shows it: applied object plus status. New reference. */
json_t *sy_object_view(const struct sy_object *o);

#endif
