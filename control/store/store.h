/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * store/: what the control thread keeps of the objects. One concept per
 * file: store.c (this header: the objects, their ages and statuses),
 * journal.c (every accepted change on disk before it is acknowledged),
 * pack.c (objects at rest, compressed), age.c (creationTimestamp and uid:
 * the order of claims), relations.c (the keys a change's scope walks).
 *
 * The object store: every applied resource as it was applied, with its age
 * (creationTimestamp, uid: control/store/age.h) and the status the last compile
 * gave it. Control thread only. The data plane never sees it: it sees the
 * generation.
 *
 * Memory: a million routes as jansson trees take 6 KB each. So an object
 * rests packed (`packed`: compact JSON compressed against a built-in
 * dictionary, control/store/pack.h) and is unpacked into
 * `obj` / `status` ("warm") only while a request or a compile uses it:
 * sy_store_find and sy_store_list warm what they return; sy_store_cool, at
 * the end of each request, packs statuses again and drops the trees.
 * Anything that reads `obj` or `status` must have the object from those
 * calls, in the same request.
 */
#ifndef SY_STORE_H
#define SY_STORE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "store/age.h"
#include "kinds/kinds.h"
#include "store/pack.h"

struct sy_object {
	const struct sy_kind *kind;
	char *name;      /* in ns[], after the namespace */
	json_t *obj;     /* as applied, with metadata.creationTimestamp and metadata.uid set
			  * (NULL while cool: see above) */
	json_t *status;  /* set by compile; NULL for kinds without status (and while cool) */
	struct sy_packed packed; /* obj and status; empty until first cooled */
	struct sy_object *hnext;
	/* Its keys in the router's relations index (control/store/relations.h). */
	struct sy_rel_key **rel; /* rel_inline when it has at most two */
	struct sy_rel_key *rel_inline[2];
	uint32_t n_rel : 30;
	uint32_t uid_text : 1; /* the uid is text after the name, not uid_bin (sy_object_uid) */
	uint32_t warm : 1; /* obj / status are the live copies, listed in the store's warm list */
	uint32_t mark; /* scope walks (control/gen/scope.c) */
	struct sy_time created; /* metadata.creationTimestamp, then uid: the age that orders
				 * claims (sy_object_age_cmp) */
	/* etcd's create_revision of its key when the store is etcd
	 * (control/etcd/sync.h), 0 otherwise: the age every router of a fleet
	 * agrees on, so it decides before created (sy_object_age_cmp). */
	int64_t create_rev;
	/* metadata.uid, when it is a lower-case 8-4-4-4-12 UUID (every uid
	 * the router stamps, and Kubernetes'): its 16 bytes (age.h,
	 * sy_uid_pack). Any other uid (uid_text) is text after the name. A
	 * record of a million was 176 bytes with the 40 of text, now 144
	 * (perf/README.md, "routes"). */
	uint8_t uid_bin[SY_UID_BIN_LEN];
	char ns[];       /* the namespace, then the name (then a text uid): one allocation */
};

/* o's metadata.uid as text: in buf, or the record's own. */
const char *sy_object_uid(const struct sy_object *o, char buf[SY_UID_LEN]);

/* Kinds the store counts apart (sy_kinds has a dozen). */
#define SY_STORE_KINDS_MAX 32

struct sy_store {
	struct sy_object **buckets;
	size_t n_buckets;
	size_t count;
	/* Objects per kind, kept by put and remove: `status`, the metrics and
	 * the status page ask often, and a walk of a million objects each
	 * time held the control thread 30-130 ms at 100k. */
	struct {
		const struct sy_kind *kind;
		size_t n;
	} per_kind[SY_STORE_KINDS_MAX];
	unsigned n_kinds;
	size_t other_kinds; /* objects of kinds past SY_STORE_KINDS_MAX (never, today) */
	struct sy_object **warm; /* objects whose trees are parsed */
	size_t n_warm, cap_warm;
};

int sy_store_init(struct sy_store *st);
void sy_store_fini(struct sy_store *st);
/* The object (warm), or NULL. */
struct sy_object *sy_store_find(const struct sy_store *st, const struct sy_kind *kind,
				const char *ns, const char *name);
/* Unpack o's trees if it rests packed. 0, or -ENOMEM (o->obj stays NULL). */
int sy_store_warm(const struct sy_store *st, struct sy_object *o);
/* Drop a warm object's tree (obj) before the end of the request, keeping
 * its status: a pass over a million routes that has taken what it needs
 * from each then holds one tree at a time, not a million (the memory they
 * take is most of what a full compile costs). It stays listed warm; the
 * next sy_store_warm, sy_store_find or sy_store_list parses it again. A
 * pointer into the tree taken before is invalid after. */
void sy_store_shed(struct sy_object *o);
/* Every warm object back to rest: statuses packed, trees dropped. */
void sy_store_cool(struct sy_store *st);
/* Insert, or replace the object with the same identity (the old one is
 * returned, detached, for the caller to free or to put back). */
struct sy_object *sy_store_put(struct sy_store *st, struct sy_object *o);
/* Detach and return the object, or NULL. */
struct sy_object *sy_store_remove(struct sy_store *st, const struct sy_kind *kind,
				  const char *ns, const char *name);
/* Objects of a kind (NULL = all kinds), in namespace ns (NULL = all), sorted
 * by namespace then name, warm. The array is malloc'd; *n its length. */
struct sy_object **sy_store_list(const struct sy_store *st, const struct sy_kind *kind,
				 const char *ns, size_t *n);
/* The same without warming them: only their identity, age and relation keys
 * may be read (a pass over 100,000 routes that needs no more). */
struct sy_object **sy_store_list_cool(const struct sy_store *st, const struct sy_kind *kind,
				      size_t *n);
/* The object exists (it is not warmed). */
bool sy_store_has(const struct sy_store *st, const struct sy_kind *kind, const char *ns,
		  const char *name);
/* The first max objects of a kind in sy_store_list's order, warm, without
 * warming or sorting the rest (a page of a million routes); *total is how
 * many the kind has. malloc'd; *n its length. */
struct sy_object **sy_store_first(const struct sy_store *st, const struct sy_kind *kind,
				  size_t max, size_t *n, size_t *total);
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
