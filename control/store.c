/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

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

struct sy_object *
sy_store_find(const struct sy_store *st, const struct sy_kind *kind, const char *ns,
	      const char *name)
{
	return *find_link(st, kind, ns, name);
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

struct sy_object *
sy_store_put(struct sy_store *st, struct sy_object *o)
{
	struct sy_object **link = find_link(st, o->kind, o->ns, o->name);
	struct sy_object *old = *link;

	if (old != NULL) {
		o->hnext = old->hnext;
		old->hnext = NULL;
		*link = o;
		return old;
	}
	o->hnext = NULL;
	*link = o;
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

struct sy_object **
sy_store_list(const struct sy_store *st, const struct sy_kind *kind, const char *ns, size_t *n)
{
	struct sy_object **arr = malloc((st->count + 1) * sizeof(*arr));
	size_t i, k = 0;

	*n = 0;
	if (arr == NULL)
		return NULL;
	for (i = 0; i < st->n_buckets; i++) {
		struct sy_object *o;

		for (o = st->buckets[i]; o != NULL; o = o->hnext)
			if ((kind == NULL || o->kind == kind) && (ns == NULL || strcmp(o->ns, ns) == 0))
				arr[k++] = o;
	}
	qsort(arr, k, sizeof(*arr), cmp_objects);
	*n = k;
	return arr;
}

size_t
sy_store_count(const struct sy_store *st, const struct sy_kind *kind)
{
	size_t i, k = 0;

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
	struct sy_object *o = calloc(1, sizeof(*o));

	if (o == NULL)
		return NULL;
	o->kind = kind;
	o->ns = strdup(ns);
	o->name = strdup(name);
	o->obj = json_incref(obj);
	snprintf(o->created, sizeof(o->created), "%s", created);
	snprintf(o->uid, sizeof(o->uid), "%s", uid);
	if (o->ns == NULL || o->name == NULL) {
		sy_object_free(o);
		return NULL;
	}
	return o;
}

void
sy_object_free(struct sy_object *o)
{
	if (o == NULL)
		return;
	free(o->ns);
	free(o->name);
	json_decref(o->obj);
	json_decref(o->status);
	free(o->rel);
	free(o);
}

json_t *
sy_object_view(const struct sy_object *o)
{
	json_t *v = json_deep_copy(o->obj);

	if (o->status != NULL)
		json_object_set(v, "status", o->status);
	return v;
}
