/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/service_endpoints.h"
#include "kinds/kinds.h"
#include "store/relations.h"
#include "store/store.h"

static bool
is_slice_of(const struct sy_object *o, const char *svc)
{
	const char *l = json_string_value(json_object_get(
		json_object_get(json_object_get(o->obj, "metadata"), "labels"), SY_SLICE_SERVICE_LABEL));

	return l != NULL && strcmp(l, svc) == 0;
}

static int
by_name(const void *a, const void *b)
{
	const struct sy_object *x = *(const struct sy_object *const *)a;
	const struct sy_object *y = *(const struct sy_object *const *)b;

	return strcmp(x->name, y->name);
}

/* The slices of ns/svc, sorted by name (the pool's order must not depend
 * on the order they were applied in: a restart replays the journal).
 * malloc'd (NULL with *n 0 when there are none or out of memory). */
static struct sy_object **
slices_of(struct sy_store *st, const struct sy_relations *rel, const char *ns, const char *svc,
	  size_t *n)
{
	struct sy_object **out = NULL;
	size_t i, k = 0;

	*n = 0;
	if (rel != NULL) {
		char key[512];
		const struct sy_rel_key *rk;
		struct sy_object **objs;

		snprintf(key, sizeof(key), "%c%s/%s", SY_REL_SLICE, ns, svc);
		rk = sy_relations_get(rel, key);
		if (rk == NULL || rk->n == 0)
			return NULL;
		objs = sy_rel_objs((struct sy_rel_key *)rk);
		out = malloc(rk->n * sizeof(*out));
		if (out == NULL)
			return NULL;
		for (i = 0; i < rk->n; i++)
			if (objs[i]->kind == &sy_kind_endpointslice && sy_store_warm(st, objs[i]) == 0)
				out[k++] = objs[i];
	} else {
		size_t all = 0;

		/* Without the index a listing walks the whole store: not for
		 * every Service of a store without slices (a full compile at
		 * 1M routes spent hours here, once per RouteGroup backend). */
		if (sy_store_count(st, &sy_kind_endpointslice) == 0)
			return NULL;
		out = sy_store_list(st, &sy_kind_endpointslice, ns, &all);
		for (i = 0; out != NULL && i < all; i++)
			if (is_slice_of(out[i], svc))
				out[k++] = out[i];
	}
	if (k == 0) {
		free(out);
		return NULL;
	}
	qsort(out, k, sizeof(*out), by_name);
	*n = k;
	return out;
}

static bool
cond(const json_t *conds, const char *key, bool unset)
{
	const json_t *v = json_object_get(conds, key);

	return json_is_boolean(v) ? json_is_true(v) : unset;
}

/* One group's addresses, handed to fn (the strings are the objects'). */
struct ip_list {
	const char **ips;
	size_t n, cap;
};

static int
ip_push(struct ip_list *l, const char *ip)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		const char **grown = realloc(l->ips, cap * sizeof(*grown));

		if (grown == NULL)
			return -1;
		l->ips = grown;
		l->cap = cap;
	}
	l->ips[l->n++] = ip;
	return 0;
}

size_t
sy_service_endpoints_each(struct sy_store *st, const struct sy_relations *rel, const char *ns,
			  const char *svc, sy_service_addr_fn fn, void *arg)
{
	size_t n_slices, i, j, given = 0;
	struct sy_object **slices = slices_of(st, rel, ns, svc, &n_slices);
	struct ip_list l = { 0 };
	const json_t *subset, *addr, *ep;

	if (n_slices > 0) {
		for (i = 0; i < n_slices; i++) {
			const json_t *obj = slices[i]->obj;
			const char *type = json_string_value(json_object_get(obj, "addressType"));

			if (type == NULL || strcmp(type, "FQDN") == 0)
				continue;
			l.n = 0;
			json_array_foreach(json_object_get(obj, "endpoints"), j, ep) {
				const json_t *conds = json_object_get(ep, "conditions");
				const char *ip = json_string_value(
					json_array_get(json_object_get(ep, "addresses"), 0));

				if (ip != NULL && cond(conds, "ready", true) &&
				    !cond(conds, "terminating", false) && ip_push(&l, ip) < 0)
					break;
			}
			if (l.n > 0)
				fn(arg, l.ips, l.n, json_object_get(obj, "ports"));
			given += l.n;
		}
		free(slices);
		free(l.ips);
		return given;
	}
	{
		struct sy_object *eps = sy_store_find(st, &sy_kind_endpoints, ns, svc);

		json_array_foreach(eps ? json_object_get(eps->obj, "subsets") : NULL, i, subset) {
			l.n = 0;
			json_array_foreach(json_object_get(subset, "addresses"), j, addr) {
				const char *ip = json_string_value(json_object_get(addr, "ip"));

				if (ip != NULL && ip_push(&l, ip) < 0)
					break;
			}
			if (l.n > 0)
				fn(arg, l.ips, l.n, json_object_get(subset, "ports"));
			given += l.n;
		}
	}
	free(l.ips);
	return given;
}
