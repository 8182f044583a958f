/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "store/store.h"

static size_t
key_hash(const struct sy_kind *kind, const char *ns, const char *name)
{
	/* FNV-1a over kind pointer, namespace and name. */
	uint64_t h = 1469598103934665603ull ^ (uintptr_t)kind;
	const char *parts[2] = { ns, name };
	int i;

	for (i = 0; i < 2; i++) {
		const unsigned char *p = (const unsigned char *)parts[i];

		for (; *p; p++)
			h = (h ^ *p) * 1099511628211ull;
		h = (h ^ 0xff) * 1099511628211ull;
	}
	return (size_t)h;
}

int
sy_store_init(struct sy_store *st)
{
	memset(st, 0, sizeof(*st));
	st->n_buckets = 1024;
	st->count = 0;
	st->buckets = calloc(st->n_buckets, sizeof(*st->buckets));
	return st->buckets ? 0 : -ENOMEM;
}

void
sy_store_fini(struct sy_store *st)
{
	size_t i;

	for (i = 0; i < st->n_buckets; i++) {
		struct sy_object *o = st->buckets[i], *next;

		for (; o != NULL; o = next) {
			next = o->hnext;
			sy_object_free(o);
		}
	}
	free(st->buckets);
	st->buckets = NULL;
	st->count = 0;
	st->n_kinds = 0;
	st->other_kinds = 0;
	free(st->warm);
	st->warm = NULL;
	st->n_warm = st->cap_warm = 0;
}

static struct sy_object **
find_link(const struct sy_store *st, const struct sy_kind *kind, const char *ns, const char *name)
{
	struct sy_object **link = &st->buckets[key_hash(kind, ns, name) & (st->n_buckets - 1)];

	for (; *link != NULL; link = &(*link)->hnext)
		if ((*link)->kind == kind && strcmp((*link)->ns, ns) == 0 &&
		    strcmp((*link)->name, name) == 0)
			return link;
	return link;
}

/* The warm list belongs to the store, which callers see as const when they
 * only look things up: warming is a cache fill, not a change. */
static int
warm_add(struct sy_store *st, struct sy_object *o)
{
	if (st->n_warm == st->cap_warm) {
		size_t cap = st->cap_warm ? st->cap_warm * 2 : 256;
		struct sy_object **grown = realloc(st->warm, cap * sizeof(*grown));

		if (grown == NULL)
			return -ENOMEM;
		st->warm = grown;
		st->cap_warm = cap;
	}
	st->warm[st->n_warm++] = o;
	o->warm = true;
	return 0;
}

static void
warm_forget(struct sy_store *st, struct sy_object *o)
{
	size_t i;

	if (!o->warm)
		return;
	for (i = st->n_warm; i-- > 0;)
		if (st->warm[i] == o) {
			st->warm[i] = st->warm[--st->n_warm];
			break;
		}
	o->warm = false;
}

int
sy_store_warm(const struct sy_store *cst, struct sy_object *o)
{
	struct sy_store *st = (struct sy_store *)cst;

	if (o->warm) {
		/* Listed warm, its tree shed (sy_store_shed): parse it again. */
		if (o->obj == NULL && (o->obj = sy_unpack_object(&o->packed)) == NULL)
			return -ENOMEM;
		return 0;
	}
	if (o->obj == NULL) {
		o->obj = sy_unpack_object(&o->packed);
		if (o->obj == NULL)
			return -ENOMEM; /* we packed it: only memory can fail */
		json_decref(o->status);
		o->status = sy_unpack_status(&o->packed);
		if (o->status == NULL && o->packed.status_len > 0) {
			json_decref(o->obj);
			o->obj = NULL;
			return -ENOMEM;
		}
	}
	if (warm_add(st, o) < 0) {
		/* Unlisted, it would never be cooled: keep it as text. */
		json_decref(o->obj);
		json_decref(o->status);
		o->obj = NULL;
		o->status = NULL;
		return -ENOMEM;
	}
	return 0;
}

void
sy_store_shed(struct sy_object *o)
{
	/* Only a packed object can be parsed again; a new one not yet
	 * packed (out of memory at apply) keeps its tree. */
	if (!o->warm || o->packed.obj_len == 0)
		return;
	json_decref(o->obj);
	o->obj = NULL;
}

static void
cool_one(struct sy_object *o)
{
	o->warm = false;
	/* The object never changes once stored: packed once. The status may
	 * have: packed again when it did (sy_pack compares). Out of memory:
	 * stay a tree (still correct, just bigger). */
	if (sy_pack(o->obj, o->status, &o->packed) < 0)
		return;
	json_decref(o->obj);
	json_decref(o->status);
	o->obj = NULL;
	o->status = NULL;
}

/*
 * Millions of small trees were just freed (a full compile warms every
 * object). glibc leaves such chunks on its unsorted list and sorts at most
 * 10,000 of them per malloc call that reaches it: the next requests, a
 * one-route change among them, would pay milliseconds for their small
 * mallocs (27 ms a change at a million routes, measured). Pay it now, at the
 * end of the big request: merge the fast bins (malloc_trim), then make
 * enough small mallocs to sort the list.
 */
static void
settle_heap(size_t n_cooled)
{
	enum { BATCH = 1000 };
	void *p[BATCH];
	size_t rounds = n_cooled / 2000 + 4, r, i;

	malloc_trim(0);
	/* Small requests, of the sizes jansson and the compiler use, held
	 * while a batch is made so that each must find a chunk of its own.
	 * Counted, not timed: a timed loop stopped early on this VM. */
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < BATCH; i++)
			p[i] = malloc(24 + (i * 40) % 480);
		for (i = 0; i < BATCH; i++)
			free(p[i]);
	}
}

void
sy_store_cool(struct sy_store *st)
{
	size_t i;

	for (i = 0; i < st->n_warm; i++)
		cool_one(st->warm[i]);
	/* After a full compile the list held every object: give that back. */
	if (st->cap_warm > 4096) {
		free(st->warm);
		st->warm = NULL;
		st->cap_warm = 0;
	}
	if (st->n_warm > 65536)
		settle_heap(st->n_warm);
	st->n_warm = 0;
}

struct sy_object *
sy_store_find(const struct sy_store *st, const struct sy_kind *kind, const char *ns,
	      const char *name)
{
	struct sy_object *o = *find_link(st, kind, ns, name);

	return o != NULL && sy_store_warm(st, o) == 0 ? o : NULL;
}

static void
grow(struct sy_store *st)
{
	size_t n = st->n_buckets * 2, i;
	struct sy_object **b = calloc(n, sizeof(*b));

	if (b == NULL)
		return; /* keep the longer chains; still correct */
	for (i = 0; i < st->n_buckets; i++) {
		struct sy_object *o = st->buckets[i], *next;

		for (; o != NULL; o = next) {
			size_t h = key_hash(o->kind, o->ns, o->name) & (n - 1);

			next = o->hnext;
			o->hnext = b[h];
			b[h] = o;
		}
	}
	free(st->buckets);
	st->buckets = b;
	st->n_buckets = n;
}

/* kind's count (added when new), or NULL past SY_STORE_KINDS_MAX. */
static size_t *
kind_count(struct sy_store *st, const struct sy_kind *kind)
{
	unsigned i;

	for (i = 0; i < st->n_kinds; i++)
		if (st->per_kind[i].kind == kind)
			return &st->per_kind[i].n;
	if (st->n_kinds == SY_STORE_KINDS_MAX)
		return NULL;
	st->per_kind[st->n_kinds].kind = kind;
	st->per_kind[st->n_kinds].n = 0;
	return &st->per_kind[st->n_kinds++].n;
}

static void
count_kind(struct sy_store *st, const struct sy_kind *kind, int d)
{
	size_t *n = kind_count(st, kind);

	if (n != NULL)
		*n += (size_t)(ssize_t)d;
	else
		st->other_kinds += (size_t)(ssize_t)d;
}

struct sy_object *
sy_store_put(struct sy_store *st, struct sy_object *o)
{
	struct sy_object **link = find_link(st, o->kind, o->ns, o->name);
	struct sy_object *old = *link;

	if (!o->warm && o->obj != NULL && warm_add(st, o) < 0)
		cool_one(o); /* no room on the list: rest as text right away */
	if (old != NULL) {
		o->hnext = old->hnext;
		old->hnext = NULL;
		*link = o;
		/* The caller may read its status (kept across versions). */
		sy_store_warm(st, old);
		warm_forget(st, old);
		return old;
	}
	o->hnext = NULL;
	*link = o;
	count_kind(st, o->kind, 1);
	if (++st->count > st->n_buckets)
		grow(st);
	return NULL;
}

struct sy_object *
sy_store_remove(struct sy_store *st, const struct sy_kind *kind, const char *ns, const char *name)
{
	struct sy_object **link = find_link(st, kind, ns, name);
	struct sy_object *o = *link;

	if (o == NULL)
		return NULL;
	*link = o->hnext;
	o->hnext = NULL;
	st->count--;
	count_kind(st, kind, -1);
	warm_forget(st, o);
	return o;
}

static int
cmp_objects(const void *a, const void *b)
{
	const struct sy_object *x = *(struct sy_object *const *)a;
	const struct sy_object *y = *(struct sy_object *const *)b;
	int c = strcmp(x->kind->kind, y->kind->kind);

	if (c == 0)
		c = strcmp(x->ns, y->ns);
	return c ? c : strcmp(x->name, y->name);
}

void
sy_store_sort(struct sy_object **arr, size_t n)
{
	qsort(arr, n, sizeof(*arr), cmp_objects);
}

static struct sy_object **
list(const struct sy_store *st, const struct sy_kind *kind, const char *ns, size_t *n, bool warm)
{
	struct sy_object **arr = malloc((st->count + 1) * sizeof(*arr));
	size_t i, k = 0;

	*n = 0;
	if (arr == NULL)
		return NULL;
	for (i = 0; i < st->n_buckets; i++) {
		struct sy_object *o;

		for (o = st->buckets[i]; o != NULL; o = o->hnext)
			if ((kind == NULL || o->kind == kind) && (ns == NULL || strcmp(o->ns, ns) == 0) &&
			    (!warm || sy_store_warm(st, o) == 0))
				arr[k++] = o;
	}
	qsort(arr, k, sizeof(*arr), cmp_objects);
	*n = k;
	return arr;
}

struct sy_object **
sy_store_list(const struct sy_store *st, const struct sy_kind *kind, const char *ns, size_t *n)
{
	return list(st, kind, ns, n, true);
}

struct sy_object **
sy_store_list_cool(const struct sy_store *st, const struct sy_kind *kind, size_t *n)
{
	return list(st, kind, NULL, n, false);
}

bool
sy_store_has(const struct sy_store *st, const struct sy_kind *kind, const char *ns,
	     const char *name)
{
	return *find_link(st, kind, ns, name) != NULL;
}

struct sy_object **
sy_store_first(const struct sy_store *st, const struct sy_kind *kind, size_t max, size_t *n,
	       size_t *total)
{
	struct sy_object **arr = malloc((max + 1) * sizeof(*arr));
	size_t i, k = 0, all = 0;

	*n = 0;
	if (total != NULL)
		*total = 0;
	if (arr == NULL)
		return NULL;
	/* Insertion into a sorted array of at most max: after the first few
	 * hundred objects most are past the last kept and cost a compare, so
	 * the walk is linear in the store and never sorts all of it. */
	for (i = 0; i < st->n_buckets; i++) {
		struct sy_object *o;

		for (o = st->buckets[i]; o != NULL; o = o->hnext) {
			size_t lo = 0, hi = k;

			if (o->kind != kind)
				continue;
			all++;
			if (max == 0 || (k == max && cmp_objects(&o, &arr[k - 1]) >= 0))
				continue;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;

				if (cmp_objects(&arr[mid], &o) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			if (k == max)
				k--;
			memmove(&arr[lo + 1], &arr[lo], (k - lo) * sizeof(*arr));
			arr[lo] = o;
			k++;
		}
	}
	/* Warm only what is returned; one that cannot be is left out. */
	for (i = 0; i < k;) {
		if (sy_store_warm(st, arr[i]) == 0) {
			i++;
			continue;
		}
		memmove(&arr[i], &arr[i + 1], (k - i - 1) * sizeof(*arr));
		k--;
	}
	*n = k;
	if (total != NULL)
		*total = all;
	return arr;
}

size_t
sy_store_count(const struct sy_store *st, const struct sy_kind *kind)
{
	size_t i, k = 0;

	for (i = 0; i < st->n_kinds; i++)
		if (st->per_kind[i].kind == kind)
			return st->per_kind[i].n;
	if (st->other_kinds == 0)
		return 0;
	/* A kind past the table: walk (never, with today's kinds). */
	for (i = 0; i < st->n_buckets; i++) {
		struct sy_object *o;

		for (o = st->buckets[i]; o != NULL; o = o->hnext)
			if (o->kind == kind)
				k++;
	}
	return k;
}

struct sy_object *
sy_object_new(const struct sy_kind *kind, const char *ns, const char *name, json_t *obj,
	      const char *created, const char *uid)
{
	size_t lns = strlen(ns) + 1, lname = strlen(name) + 1, luid = 0;
	uint8_t bin[SY_UID_BIN_LEN];
	bool text;
	struct sy_object *o;

	if (uid == NULL)
		uid = "";
	text = !sy_uid_pack(uid, bin);
	if (text)
		luid = strnlen(uid, SY_UID_LEN - 1) + 1;
	/* The names (and a uid that is not a UUID) live in the same
	 * allocation (a million objects: two mallocs fewer each). */
	o = sy_region_alloc(&sy_store_heap, sizeof(*o) + lns + lname + luid);
	if (o == NULL)
		return NULL;
	o->kind = kind;
	memcpy(o->ns, ns, lns);
	o->name = o->ns + lns;
	memcpy(o->name, name, lname);
	o->uid_text = text;
	if (text) {
		memcpy(o->name + lname, uid, luid - 1);
		o->name[lname + luid - 1] = '\0';
	} else
		memcpy(o->uid_bin, bin, sizeof(bin));
	o->obj = json_incref(obj);
	/* Stored objects were validated (or stamped) on apply: a time that
	 * does not parse cannot get here, and would only count as oldest. */
	if (created == NULL || sy_rfc3339_parse(created, &o->created) < 0)
		o->created = (struct sy_time){ 0, 0 };
	return o;
}

const char *
sy_object_uid(const struct sy_object *o, char buf[SY_UID_LEN])
{
	if (o->uid_text)
		return o->name + strlen(o->name) + 1;
	sy_uid_unpack(o->uid_bin, buf);
	return buf;
}

void
sy_object_free(struct sy_object *o)
{
	if (o == NULL)
		return;
	json_decref(o->obj);
	json_decref(o->status);
	sy_packed_free(&o->packed);
	if (o->rel != o->rel_inline)
		free(o->rel);
	size_t lname = strlen(o->name) + 1;

	sy_region_free(&sy_store_heap, o,
		       sizeof(*o) + strlen(o->ns) + 1 + lname +
			       (o->uid_text ? strlen(o->name + lname) + 1 : 0));
}

json_t *
sy_object_view(const struct sy_object *o)
{
	json_t *v = json_deep_copy(o->obj);

	if (o->status != NULL)
		json_object_set(v, "status", o->status);
	return v;
}
