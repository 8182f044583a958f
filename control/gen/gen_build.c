/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "gen/gen_build.h"
#include "tls/tls_cert.h"
#include "gen/gen_mem.h"
#include "gen/pool.h"

/* Past this many used slots a chunk's probes get long: grow the directory. */
#define CHUNK_FULL (SY_VHOST_CHUNK_SLOTS * 15 / 16)
/* A new table is sized so chunks start two thirds full on average: the
 * fullest of thousands is then still well under CHUNK_FULL. */
#define CHUNK_TARGET (SY_VHOST_CHUNK_SLOTS * 2 / 3)

struct ptr_list {
	void **p;
	size_t n, cap;
};

struct sy_gen_retire {
	/* A successor shares this generation's structure: free only `chunks`
	 * and `vhosts` (what the successor stopped referencing). */
	bool delta;
	struct ptr_list chunks;
	struct ptr_list vhosts;
	/* The vhosts this generation added to the one it was begun from
	 * (kept after commit for the planners, sy_gen_next_added, until a
	 * successor is committed; empty once committed if it was begun
	 * empty: then every vhost is new), and while it is being built what
	 * it replaced in that generation. */
	bool begun_empty;
	uint64_t base_id; /* the generation it was begun from; 0: none */
	struct ptr_list added;
	struct ptr_list replaced_chunks;
	struct ptr_list replaced_vhosts;
	size_t vhost_bytes;
};

static int
list_add(struct ptr_list *l, void *p)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 16;
		void **grown = realloc(l->p, cap * sizeof(*grown));

		if (grown == NULL)
			return -ENOMEM;
		l->p = grown;
		l->cap = cap;
	}
	l->p[l->n++] = p;
	return 0;
}

static void
list_free(struct ptr_list *l)
{
	free(l->p);
	memset(l, 0, sizeof(*l));
}

void
sy_vhost_free(struct sy_vhost *vh)
{
	uint32_t i;

	if (vh == NULL)
		return;
	for (i = 0; i < vh->n_rules; i++) {
		const struct sy_rule_more *m = vh->rules[i].more;

		sy_pool_put(vh->rules[i].pool);
		for (unsigned k = 0; m != NULL && k < m->n_mirrors; k++)
			sy_pool_put(m->mirrors[k].pool);
	}
	if (vh->term != NULL) {
		sy_tls_ctx_put(vh->term->ctx);
		sy_tls_ctx_put(vh->term->backend_ctx);
	}
	sy_arena_free(vh->arena);
}

static uint32_t
chunk_of(const struct sy_generation *g, uint32_t hash)
{
	return g->chunk_shift >= 32 ? 0 : hash >> g->chunk_shift;
}

static uint32_t
shift_for(uint32_t n_chunks)
{
	uint32_t bits = 0;

	while ((1u << bits) < n_chunks)
		bits++;
	return 32 - bits;
}

static void
chunk_free(struct sy_vhost_chunk *c)
{
	sy_gen_mem_free(c, sizeof(*c));
}

static struct sy_vhost_chunk *
new_chunk(const struct sy_generation *g)
{
	struct sy_vhost_chunk *c = sy_gen_mem_alloc(sizeof(*c));

	if (c != NULL) {
		c->owner = g->id;
	}
	return c;
}

/* Wildcards and the default vhost are counted apart (sy_generation). */
static void
count_kind(struct sy_generation *g, const struct sy_vhost *vh, int d)
{
	if (vh->host_len == 0)
		g->n_default_vhosts += (uint32_t)d;
	else if (vh->host[0] == '*') {
		g->n_wildcard_vhosts += (uint32_t)d;
		if (vh->wild_deep)
			g->n_deep_wildcard_vhosts += (uint32_t)d;
	}
}

static void
set_bytes(struct sy_generation *g)
{
	/* Pools are shared between generations: all live ones are counted. */
	g->bytes = sizeof(*g) + g->n_chunks * (sizeof(void *) + sizeof(struct sy_vhost_chunk)) +
		   g->retire->vhost_bytes + sy_pool_live_bytes();
}

struct sy_generation *
sy_gen_begin(struct sy_generation *prev, uint64_t id, size_t expected, uint16_t no_route_status)
{
	struct sy_generation *g = calloc(1, sizeof(*g));
	uint32_t i;

	if (g == NULL)
		return NULL;
	g->retire = calloc(1, sizeof(*g->retire));
	g->id = id;
	g->no_route_status = no_route_status;
	if (g->retire == NULL)
		goto fail;
	g->retire->begun_empty = prev == NULL;
	if (prev != NULL) {
		g->retire->base_id = prev->id;
		g->n_chunks = prev->n_chunks;
		g->chunk_shift = prev->chunk_shift;
		g->n_vhosts = prev->n_vhosts;
		g->n_rules = prev->n_rules;
		g->n_wildcard_vhosts = prev->n_wildcard_vhosts;
		g->n_deep_wildcard_vhosts = prev->n_deep_wildcard_vhosts;
		g->n_default_vhosts = prev->n_default_vhosts;
		g->retire->vhost_bytes = prev->retire->vhost_bytes;
		g->chunks = malloc(g->n_chunks * sizeof(*g->chunks));
		if (g->chunks == NULL)
			goto fail;
		memcpy(g->chunks, prev->chunks, g->n_chunks * sizeof(*g->chunks));
	} else {
		g->n_chunks = 1;
		while ((size_t)g->n_chunks * CHUNK_TARGET < expected)
			g->n_chunks <<= 1;
		g->chunk_shift = shift_for(g->n_chunks);
		g->chunks = calloc(g->n_chunks, sizeof(*g->chunks));
		if (g->chunks == NULL)
			goto fail;
		for (i = 0; i < g->n_chunks; i++)
			if ((g->chunks[i] = new_chunk(g)) == NULL)
				goto fail;
	}
	set_bytes(g);
	return g;
fail:
	if (g->chunks != NULL && prev == NULL)
		for (i = 0; i < g->n_chunks; i++)
			chunk_free(g->chunks[i]);
	free(g->chunks);
	free(g->retire);
	free(g);
	return NULL;
}

/* The chunk for `hash`, copied first if g still shares it. */
static struct sy_vhost_chunk *
writable_chunk(struct sy_generation *g, uint32_t hash)
{
	uint32_t ci = chunk_of(g, hash);
	struct sy_vhost_chunk *c = g->chunks[ci], *copy;

	if (c->owner == g->id)
		return c;
	copy = sy_gen_mem_alloc(sizeof(*copy));
	if (copy == NULL || list_add(&g->retire->replaced_chunks, c) < 0) {
		chunk_free(copy);
		return NULL;
	}
	memcpy(copy, c, sizeof(*copy));
	copy->owner = g->id;
	g->chunks[ci] = copy;
	return copy;
}

static void
chunk_put(struct sy_vhost_chunk *c, const struct sy_vhost *vh)
{
	uint32_t j = vh->hash % SY_VHOST_CHUNK_SLOTS;

	while (c->slots[j] != 0)
		j = (j + 1) % SY_VHOST_CHUNK_SLOTS;
	c->slots[j] = sy_vhost_slot_tag(vh->hash) | (uint64_t)(uintptr_t)vh;
	c->used++;
}

/* Twice the chunks, everything re-placed: every old chunk is replaced. */
static int
grow(struct sy_generation *g)
{
	uint32_t n = g->n_chunks * 2, i, j;
	size_t listed;
	struct sy_vhost_chunk **dir = calloc(n, sizeof(*dir));
	struct sy_generation ng = { .id = g->id, .n_chunks = n, .chunk_shift = shift_for(n) };

	if (dir == NULL)
		return -ENOMEM;
	ng.chunks = dir;
	for (i = 0; i < n; i++)
		if ((dir[i] = new_chunk(g)) == NULL)
			goto fail;
	for (i = 0; i < g->n_chunks; i++)
		for (j = 0; j < SY_VHOST_CHUNK_SLOTS; j++) {
			sy_vhost_slot s = g->chunks[i]->slots[j];
			const struct sy_vhost *vh = sy_vhost_slot_vhost(s);

			if (s != 0)
				chunk_put(dir[chunk_of(&ng, vh->hash)], vh);
		}
	listed = g->retire->replaced_chunks.n;
	for (i = 0; i < g->n_chunks; i++)
		if (g->chunks[i]->owner != g->id &&
		    list_add(&g->retire->replaced_chunks, g->chunks[i]) < 0) {
			g->retire->replaced_chunks.n = listed;
			goto fail;
		}
	for (i = 0; i < g->n_chunks; i++)
		if (g->chunks[i]->owner == g->id)
			chunk_free(g->chunks[i]);
	free(g->chunks);
	g->chunks = dir;
	g->n_chunks = n;
	g->chunk_shift = ng.chunk_shift;
	set_bytes(g);
	return 0;
fail:
	for (i = 0; i < n; i++)
		chunk_free(dir[i]);
	free(dir);
	return -ENOMEM;
}

int
sy_gen_remove_host(struct sy_generation *g, const char *host, size_t len)
{
	uint32_t h = sy_host_hash(host, len), i, j;
	struct sy_vhost_chunk *c = g->chunks[chunk_of(g, h)];
	const struct sy_vhost *vh = NULL;

	for (i = h % SY_VHOST_CHUNK_SLOTS; c->slots[i] != 0; i = (i + 1) % SY_VHOST_CHUNK_SLOTS) {
		const struct sy_vhost *in = sy_vhost_slot_vhost(c->slots[i]);

		if (in->hash == h && in->host_len == len && memcmp(in->host, host, len) == 0) {
			vh = in;
			break;
		}
	}
	if (vh == NULL)
		return 0;
	c = writable_chunk(g, h);
	if (c == NULL || list_add(&g->retire->replaced_vhosts, (void *)vh) < 0)
		return -ENOMEM;
	/* Backward-shift deletion inside the chunk (probes never leave it). */
	for (j = (i + 1) % SY_VHOST_CHUNK_SLOTS; c->slots[j] != 0;
	     j = (j + 1) % SY_VHOST_CHUNK_SLOTS) {
		uint32_t home = sy_vhost_slot_vhost(c->slots[j])->hash % SY_VHOST_CHUNK_SLOTS;
		bool movable = j > i ? (home <= i || home > j) : (home <= i && home > j);

		if (movable) {
			c->slots[i] = c->slots[j];
			i = j;
		}
	}
	c->slots[i] = 0;
	c->used--;
	g->n_vhosts--;
	g->n_rules -= vh->n_rules;
	count_kind(g, vh, -1);
	g->retire->vhost_bytes -= vh->bytes;
	set_bytes(g);
	return 0;
}

int
sy_gen_insert(struct sy_generation *g, struct sy_vhost *vh)
{
	struct sy_vhost_chunk *c;

	/* A slot keeps the address in 48 bits (sy_generation.h). */
	if (((uint64_t)(uintptr_t)vh & ~SY_VHOST_SLOT_ADDR_MASK) != 0 ||
	    list_add(&g->retire->added, vh) < 0)
		goto fail;
	if (g->chunks[chunk_of(g, vh->hash)]->used >= CHUNK_FULL && grow(g) < 0) {
		g->retire->added.n--;
		goto fail;
	}
	c = writable_chunk(g, vh->hash);
	if (c == NULL) {
		g->retire->added.n--;
		goto fail;
	}
	chunk_put(c, vh);
	g->n_vhosts++;
	g->n_rules += vh->n_rules;
	count_kind(g, vh, 1);
	g->retire->vhost_bytes += vh->bytes;
	set_bytes(g);
	return 0;
fail:
	sy_vhost_free(vh);
	return -ENOMEM;
}

void
sy_gen_commit(struct sy_generation *g, struct sy_generation *prev)
{
	struct sy_gen_retire *rt = g->retire;

	if (prev != NULL) {
		/* prev keeps its own lists empty until now: it had no successor. */
		list_free(&prev->retire->chunks);
		list_free(&prev->retire->vhosts);
		prev->retire->delta = true;
		prev->retire->chunks = rt->replaced_chunks;
		prev->retire->vhosts = rt->replaced_vhosts;
		memset(&rt->replaced_chunks, 0, sizeof(rt->replaced_chunks));
		memset(&rt->replaced_vhosts, 0, sizeof(rt->replaced_vhosts));
		/* prev's own additions were planned when it was published. */
		list_free(&prev->retire->added);
	}
	/* Begun empty, every vhost is new: the planners walk the table. */
	if (rt->begun_empty)
		list_free(&rt->added);
}

const struct sy_vhost *
sy_gen_next_added(const struct sy_generation *g, size_t *i)
{
	const struct sy_gen_retire *rt = g->retire;

	if (rt->begun_empty)
		return sy_gen_next_vhost(g, i);
	return *i < rt->added.n ? rt->added.p[(*i)++] : NULL;
}

const struct sy_vhost *
sy_gen_next_dropped(const struct sy_generation *g, const struct sy_generation *prev, size_t *i)
{
	if (prev == NULL)
		return NULL;
	if (g->retire->begun_empty)
		return sy_gen_next_vhost(prev, i);
	/* Committed against prev: prev frees what g replaced. */
	if (g->retire->base_id != prev->id || !prev->retire->delta)
		return NULL;
	return *i < prev->retire->vhosts.n ? prev->retire->vhosts.p[(*i)++] : NULL;
}

/* The generation itself: its lists, directory and header. */
static void
free_shell(struct sy_generation *g)
{
	struct sy_gen_retire *rt = g->retire;

	list_free(&rt->chunks);
	list_free(&rt->vhosts);
	list_free(&rt->added);
	list_free(&rt->replaced_chunks);
	list_free(&rt->replaced_vhosts);
	free(rt);
	free(g->chunks);
	free(g);
}

void
sy_gen_abort(struct sy_generation *g)
{
	struct sy_gen_retire *rt = g->retire;
	size_t i;

	for (i = 0; i < rt->added.n; i++)
		sy_vhost_free(rt->added.p[i]);
	for (i = 0; i < g->n_chunks; i++)
		if (g->chunks[i]->owner == g->id)
			chunk_free(g->chunks[i]);
	free_shell(g);
}

void
sy_generation_free(struct sy_generation *g)
{
	struct sy_gen_retire *rt;
	size_t i, j;

	if (g == NULL)
		return;
	rt = g->retire;
	if (rt->delta) {
		for (i = 0; i < rt->chunks.n; i++)
			chunk_free(rt->chunks.p[i]);
		for (i = 0; i < rt->vhosts.n; i++)
			sy_vhost_free(rt->vhosts.p[i]);
	} else {
		for (i = 0; i < g->n_chunks; i++) {
			for (j = 0; j < SY_VHOST_CHUNK_SLOTS; j++)
				sy_vhost_free((struct sy_vhost *)sy_vhost_slot_vhost(
					g->chunks[i]->slots[j]));
			chunk_free(g->chunks[i]);
		}
	}
	free_shell(g);
}
