/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "region_heap.h"

#include "gen/compile.h"
#include "store/pack.h"
#include "store/relations.h"
#include "store/store.h"

void
sy_rel_add(struct sy_rel_keys *out, char type, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL, *body = NULL;
	size_t i;

	va_start(ap, fmt);
	if (vasprintf(&body, fmt, ap) < 0)
		body = NULL;
	va_end(ap);
	if (body == NULL || asprintf(&s, "%c%s", type, body) < 0) {
		free(body);
		out->err = -ENOMEM;
		return;
	}
	free(body);
	for (i = 0; !out->dups && i < out->n; i++)
		if (strcmp(out->keys[i], s) == 0) {
			free(s);
			return;
		}
	if (out->n == out->cap) {
		size_t cap = out->cap ? out->cap * 2 : 8;
		char **grown = realloc(out->keys, cap * sizeof(*grown));

		if (grown == NULL) {
			free(s);
			out->err = -ENOMEM;
			return;
		}
		out->keys = grown;
		out->cap = cap;
	}
	out->keys[out->n++] = s;
}

void
sy_rel_add_host(struct sy_rel_keys *out, const char *host)
{
	char *low = strdup(host);
	size_t i;

	if (low == NULL) {
		out->err = -ENOMEM;
		return;
	}
	for (i = 0; low[i] != '\0'; i++)
		if ((unsigned)(low[i] - 'A') < 26u)
			low[i] = (char)(low[i] | 0x20);
	sy_rel_add(out, SY_REL_HOST, "%s", low);
	free(low);
}

void
sy_rel_keys_fini(struct sy_rel_keys *k)
{
	size_t i;

	for (i = 0; i < k->n; i++)
		free(k->keys[i]);
	free(k->keys);
	memset(k, 0, sizeof(*k));
}

/*
 * Keys and their object arrays live as long as the objects that state
 * them, a million or more of each: they come from the store's heap
 * (region_heap.h), as the objects' records do. glibc's 8-byte header and
 * its rounding made a host key (16 bytes and some 35 of name) an 80-byte
 * chunk; here it is 64 (perf/README.md, "routes": 1M routes of six kinds).
 */
static size_t
rel_key_size(const char *key)
{
	return sizeof(struct sy_rel_key) + strlen(key) + 1;
}

/* The few long arrays (a Gateway's routes, a Service's) stay in malloc,
 * where the region heap would put them anyway, and where malloc's
 * statistics count them (the region heap counts its own blocks only). */
static struct sy_object **
objs_alloc(uint32_t cap)
{
	size_t size = cap * sizeof(struct sy_object *);

	return size <= SY_REGION_HEAP_SMALL_MAX ? sy_region_alloc(&sy_store_heap, size) :
						  malloc(size);
}

static void
objs_free(struct sy_object **objs, uint32_t cap)
{
	size_t size = cap * sizeof(*objs);

	if (size <= SY_REGION_HEAP_SMALL_MAX)
		sy_region_free(&sy_store_heap, objs, size);
	else
		free(objs);
}

static int
index_one(struct sy_relations *rel, struct sy_object *o, char *key)
{
	struct sy_rel_key *rk = sy_strmap_get(&rel->index, key);

	if (rk == NULL) {
		size_t len = strlen(key) + 1;

		rk = sy_region_alloc(&sy_store_heap, sizeof(*rk) + len);
		if (rk == NULL) {
			free(key);
			return -ENOMEM;
		}
		memcpy(rk->key, key, len);
		if (sy_strmap_put(&rel->index, rk->key, rk) < 0) {
			free(key);
			sy_region_free(&sy_store_heap, rk, sizeof(*rk) + len);
			return -ENOMEM;
		}
	}
	free(key);
	if (rk->n == 1 && rk->cap <= 1) {
		/* A second object: move to an array. */
		struct sy_object **many = objs_alloc(4);

		if (many == NULL)
			return -ENOMEM;
		many[0] = rk->u.one;
		rk->u.many = many;
		rk->cap = 4;
	} else if (rk->cap > 1 && rk->n == rk->cap) {
		uint32_t cap = rk->cap * 2;
		struct sy_object **grown = objs_alloc(cap);

		if (grown == NULL)
			return -ENOMEM;
		memcpy(grown, rk->u.many, rk->n * sizeof(*grown));
		objs_free(rk->u.many, rk->cap);
		rk->u.many = grown;
		rk->cap = cap;
	}
	sy_rel_objs(rk)[rk->n++] = o;
	o->rel[o->n_rel++] = rk;
	return 0;
}

static void
rel_key_free(struct sy_rel_key *rk)
{
	if (rk->cap > 1)
		objs_free(rk->u.many, rk->cap);
	sy_region_free(&sy_store_heap, rk, rel_key_size(rk->key));
}

int
sy_relations_add(struct sy_relations *rel, struct sy_object *o, const struct sy_compile_opts *opts)
{
	struct sy_rel_keys k = { 0 };
	size_t i;
	int rc = 0;

	if (o->kind->relations == NULL)
		return 0;
	o->kind->relations(o, opts, &k);
	if (k.err == 0 && k.n > 0) {
		/* Most objects state two keys (a host, a service): no malloc. */
		o->rel = k.n <= 2 ? o->rel_inline : calloc(k.n, sizeof(*o->rel));
		if (o->rel == NULL)
			k.err = -ENOMEM;
	}
	if (k.err < 0) {
		sy_rel_keys_fini(&k);
		return k.err;
	}
	for (i = 0; i < k.n; i++) {
		if (rc == 0)
			rc = index_one(rel, o, k.keys[i]); /* takes the string */
		else
			free(k.keys[i]);
	}
	free(k.keys);
	return rc;
}

void
sy_relations_remove(struct sy_relations *rel, struct sy_object *o, struct sy_rel_keys *keep)
{
	uint32_t i, j;

	for (i = 0; i < o->n_rel; i++) {
		struct sy_rel_key *rk = o->rel[i];

		if (keep != NULL)
			sy_rel_add(keep, rk->key[0], "%s", rk->key + 1);
		struct sy_object **objs = sy_rel_objs(rk);

		for (j = 0; j < rk->n; j++)
			if (objs[j] == o) {
				objs[j] = objs[--rk->n];
				break;
			}
		if (rk->n == 0) {
			sy_strmap_remove(&rel->index, rk->key);
			rel_key_free(rk);
		}
	}
	if (o->rel != o->rel_inline)
		free(o->rel);
	o->rel = NULL;
	o->n_rel = 0;
}

const struct sy_rel_key *
sy_relations_get(const struct sy_relations *rel, const char *key)
{
	return sy_strmap_get(&rel->index, key);
}

void
sy_relations_fini(struct sy_relations *rel)
{
	size_t i = 0;
	const char *key;
	void *v;

	while (sy_strmap_next(&rel->index, &i, &key, &v)) {
		rel_key_free(v);
	}
	sy_strmap_fini(&rel->index);
}
