/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pick tables (lb_tables.h). Control thread only; the workers read them
 * through the generation, and write only their own rr_pos line.
 */
#include <stdlib.h>
#include <string.h>

#include "gen/gen_mem.h"
#include "sy_mix.h"
#include "gen/lb_tables.h"

/* ------------------------------------------------------------ alias -- */

/*
 * Vose's alias method in integers: endpoint i's share scaled by n is
 * w_i * n against the total W. A "small" one (below W) keeps its own part
 * of a column and lends the rest to a "large" one; exact up to the 2^-32
 * of the draw.
 */
int
sy_lb_alias_build(const uint32_t *w, uint32_t n, struct sy_lb_alias *out)
{
	uint64_t *s = malloc((size_t)n * sizeof(*s)), total = 0;
	uint32_t *small = malloc((size_t)n * sizeof(*small));
	uint32_t *large = malloc((size_t)n * sizeof(*large));
	uint32_t i, ns = 0, nl = 0;
	int rc = -1;

	if (s == NULL || small == NULL || large == NULL || n == 0)
		goto out;
	for (i = 0; i < n; i++)
		total += w[i];
	if (total == 0)
		goto out;
	for (i = 0; i < n; i++) {
		s[i] = (uint64_t)w[i] * n;
		if (s[i] < total)
			small[ns++] = i;
		else
			large[nl++] = i;
	}
	while (ns > 0 && nl > 0) {
		uint32_t l = small[--ns], g = large[--nl];

		out[l].prob = (uint32_t)((s[l] << 32) / total);
		out[l].alias = g;
		s[g] = s[g] + s[l] - total;
		if (s[g] < total)
			small[ns++] = g;
		else
			large[nl++] = g;
	}
	/* What is left holds a whole column (exactly, in integers). */
	while (nl > 0) {
		i = large[--nl];
		out[i] = (struct sy_lb_alias){ .prob = UINT32_MAX, .alias = i };
	}
	while (ns > 0) {
		i = small[--ns];
		out[i] = (struct sy_lb_alias){ .prob = UINT32_MAX, .alias = i };
	}
	rc = 0;
out:
	free(s);
	free(small);
	free(large);
	return rc;
}

/* -------------------------------------------------------- round robin -- */

static uint32_t
gcd(uint32_t a, uint32_t b)
{
	while (b != 0) {
		uint32_t t = a % b;

		a = b;
		b = t;
	}
	return a;
}

struct rr_slot {
	uint32_t ep, k, r; /* endpoint ep's k-th of r turns */
};

/* Turn k of r sits at (k + 1/2) / r of the period: ordered by
 * (2k+1) * r' against (2k'+1) * r, endpoint index on ties. */
static int
rr_cmp(const void *a, const void *b)
{
	const struct rr_slot *x = a, *y = b;
	uint64_t l = (2ull * x->k + 1) * y->r, r = (2ull * y->k + 1) * x->r;

	if (l != r)
		return l < r ? -1 : 1;
	return x->ep < y->ep ? -1 : x->ep > y->ep;
}

uint32_t *
sy_lb_rr_build(const uint32_t *w, uint32_t n, uint32_t *len)
{
	uint32_t *turns = calloc(n ? n : 1, sizeof(*turns)), *out = NULL;
	struct rr_slot *slots = NULL;
	uint64_t total = 0, l = 0;
	uint32_t i, k, g = 0, live = 0, at = 0;

	if (turns == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		if (w[i] == 0)
			continue;
		g = gcd(w[i], g);
		total += w[i];
		live++;
	}
	if (live == 0 || live > SY_LB_RR_MAX)
		goto out;
	for (i = 0; i < n; i++)
		l += turns[i] = w[i] / g;
	if (l > SY_LB_RR_MAX) {
		/* Too long: the shares to within 1/SY_LB_RR_MAX, each live
		 * endpoint at least once. */
		for (l = 0, i = 0; i < n; i++) {
			turns[i] = w[i] == 0 ? 0
					     : (uint32_t)((uint64_t)w[i] * SY_LB_RR_MAX / total);
			if (w[i] != 0 && turns[i] == 0)
				turns[i] = 1;
			l += turns[i];
		}
	}
	slots = malloc(l * sizeof(*slots));
	out = malloc(l * sizeof(*out));
	if (slots == NULL || out == NULL) {
		free(out);
		out = NULL;
		goto out;
	}
	for (i = 0; i < n; i++)
		for (k = 0; k < turns[i]; k++)
			slots[at++] = (struct rr_slot){ .ep = i, .k = k, .r = turns[i] };
	qsort(slots, l, sizeof(*slots), rr_cmp);
	for (i = 0; i < l; i++)
		out[i] = slots[i].ep;
	*len = (uint32_t)l;
out:
	free(slots);
	free(turns);
	return out;
}

/* ------------------------------------------------------------- maglev -- */

/* At least 1024 slots an endpoint. Small tables move clients between the
 * endpoints that stay when one is added: growing two endpoints to three,
 * over 300 random key sets, moved on average 0.51% of the slots between the
 * two at 1,031 slots (at worst 6.7%; the lab's addresses at 257: 6.6%),
 * 0.23% (worst 7.4%) at 4,099, 0.07% (worst 0.61%) at 16,411. The cost is
 * 32 KB a pool with source affinity (OpenShift's default for passthrough). */
static const uint32_t maglev_primes[] = { 16411, 65537 };

uint32_t
sy_lb_maglev_len(uint32_t n)
{
	size_t i;

	for (i = 0; i + 1 < sizeof(maglev_primes) / sizeof(maglev_primes[0]); i++)
		if (maglev_primes[i] >= 1024ull * n)
			return maglev_primes[i];
	return maglev_primes[i];
}

/*
 * Maglev (Eisenbud et al., NSDI 2016, section 3.4): each endpoint walks its
 * own permutation of the slots (offset, skip from its key) and takes the
 * next free one in turn. Weighted as Envoy does it: in round `it` an
 * endpoint takes a turn only while it * w_i / max_w has not fallen behind
 * the turns it took, so the heaviest takes one every round.
 */
int
sy_lb_maglev_build(const uint64_t *keys, const uint32_t *w, uint32_t n, uint16_t *table,
		   uint32_t m)
{
	uint64_t *next = calloc(n ? n : 1, sizeof(*next));
	uint64_t *turns = calloc(n ? n : 1, sizeof(*turns));
	uint32_t i, filled = 0, wmax = 0;
	uint64_t it;

	if (next == NULL || turns == NULL || n == 0 || n > UINT16_MAX) {
		free(next);
		free(turns);
		return -1;
	}
	for (i = 0; i < n; i++)
		wmax = w[i] > wmax ? w[i] : wmax;
	if (wmax == 0) {
		free(next);
		free(turns);
		return -1;
	}
	memset(table, 0xff, (size_t)m * sizeof(*table));
	for (it = 1; filled < m; it++) {
		for (i = 0; i < n && filled < m; i++) {
			uint64_t h = sy_mix64(keys[i]), offset = h % m, skip = (h >> 32) % (m - 1) + 1;
			uint64_t c;

			/* Took turns * wmax so far; may take one more while
			 * that stays within it * w_i. */
			if (w[i] == 0 || turns[i] * wmax > it * w[i])
				continue;
			turns[i]++;
			do {
				c = (offset + next[i]++ * skip) % m;
			} while (table[c] != UINT16_MAX);
			table[c] = (uint16_t)i;
			filled++;
		}
	}
	free(next);
	free(turns);
	return 0;
}

/* ------------------------------------------------------------- a pool -- */

/* Places for `workers` workers: a power of two, 1..SY_LB_WORKER_SLOTS. */
static uint32_t
rr_places(unsigned workers)
{
	uint32_t n = 1;

	while (n < workers && n < SY_LB_WORKER_SLOTS)
		n <<= 1;
	return n;
}

/* The parts' offsets in one block: the header, the alias table, the round
 * robin schedule, the Maglev table, then the round-robin places: one word
 * for one worker, else a cache line each (64-byte aligned: up to 48 bytes
 * of padding, as the block is 16-byte aligned). */
struct layout {
	size_t alias, rr, maglev, rr_pos, size;
};

static size_t
up16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

static void
lay_out(struct layout *l, uint32_t n, uint32_t rr_len, uint32_t maglev_len, uint32_t places)
{
	l->alias = up16(sizeof(struct sy_lb_tables));
	l->rr = l->alias + up16((size_t)n * sizeof(struct sy_lb_alias));
	l->maglev = l->rr + up16((size_t)rr_len * sizeof(uint32_t));
	l->rr_pos = l->maglev + up16((size_t)maglev_len * sizeof(uint16_t));
	l->size = l->rr_pos + (places == 0   ? 0 :
			       places == 1 ? sizeof(uint32_t) :
					     48 + (size_t)places * SY_LB_RR_STRIDE * sizeof(uint32_t));
}

/*
 * One block of generation memory (gen_mem.h: huge pages, where the pools
 * are) holds everything: a pick reads the header and one table entry, and
 * a million routes' pools do not pay malloc's headers four times each.
 */
struct sy_lb_tables *
sy_lb_tables_build(const struct sy_pool *p, unsigned workers)
{
	struct sy_lb_tables *t = NULL;
	uint32_t *w, *rr = NULL, rr_len = 0, maglev_len = 0, places = 0, i, n = p->n_endpoints;
	uint16_t *maglev = NULL;
	uint64_t *keys = NULL;
	struct layout l;
	uintptr_t at;

	if (n == 0 || p->total_weight == 0)
		return NULL;
	w = malloc(n * sizeof(*w));
	if (w == NULL)
		return NULL;
	for (i = 0; i < n; i++)
		w[i] = p->endpoints[i].weight;
	switch (p->strategy) {
	case SY_LB_ROUND_ROBIN:
		rr = sy_lb_rr_build(w, n, &rr_len);
		if (rr == NULL)
			goto out;
		places = rr_places(workers);
		break;
	case SY_LB_SOURCE:
	case SY_LB_CONSISTENT_HASH:
		if (n > UINT16_MAX)
			break; /* weighted random */
		keys = malloc(n * sizeof(*keys));
		maglev_len = sy_lb_maglev_len(n);
		maglev = malloc(maglev_len * sizeof(*maglev));
		if (keys == NULL || maglev == NULL)
			goto out;
		for (i = 0; i < n; i++) {
			const struct sy_endpoint *e = &p->endpoints[i];

			/* An IPv6 address by its fold over all 16 bytes. */
			keys[i] = ((uint64_t)sy_addr_key32(&e->addr) << 16 | e->port) ^
				  ((uint64_t)e->addr.family << 48);
		}
		if (sy_lb_maglev_build(keys, w, n, maglev, maglev_len) < 0)
			goto out;
		break;
	default:
		break;
	}
	lay_out(&l, n, rr_len, maglev_len, places);
	t = sy_gen_mem_alloc(l.size);
	if (t == NULL)
		goto out;
	t->bytes = (uint32_t)l.size;
	t->alias = (struct sy_lb_alias *)((char *)t + l.alias);
	if (sy_lb_alias_build(w, n, t->alias) < 0) {
		sy_gen_mem_free(t, l.size);
		t = NULL;
		goto out;
	}
	if (rr != NULL) {
		t->rr = (uint32_t *)((char *)t + l.rr);
		t->rr_len = rr_len;
		memcpy(t->rr, rr, rr_len * sizeof(*rr));
		at = (uintptr_t)t + l.rr_pos;
		t->rr_pos = (uint32_t *)(places == 1 ? at : (at + 63) & ~(uintptr_t)63);
		t->rr_mask = places - 1;
		/* Workers start spread over the schedule, so they do not all
		 * send their first connection to the same endpoint. */
		for (i = 0; i < places; i++)
			t->rr_pos[i * SY_LB_RR_STRIDE] = (uint32_t)((uint64_t)rr_len * i / places);
	}
	if (maglev_len > 0) {
		t->maglev = (uint16_t *)((char *)t + l.maglev);
		t->maglev_len = maglev_len;
		memcpy(t->maglev, maglev, maglev_len * sizeof(*maglev));
	}
out:
	free(w);
	free(rr);
	free(keys);
	free(maglev);
	return t;
}

const char *
sy_lb_strategy_name(enum sy_lb_strategy s)
{
	switch (s) {
	case SY_LB_DEFAULT:
	case SY_LB_RANDOM:
		return "random";
	case SY_LB_COOKIE:
		return "random (cookie stickiness not built yet)";
	case SY_LB_ROUND_ROBIN:
		return "round-robin";
	case SY_LB_WEIGHTED_LEAST_REQUEST:
	case SY_LB_POWER_OF_RANDOM_N:
	case SY_LB_LEAST_REQUESTS:
		return "least-connections (power of two choices)";
	case SY_LB_CONSISTENT_HASH:
	case SY_LB_SOURCE:
		return "source (Maglev over the client address)";
	}
	return "random";
}

void
sy_lb_tables_free(struct sy_lb_tables *t)
{
	if (t != NULL)
		sy_gen_mem_free(t, t->bytes);
}

size_t
sy_lb_tables_bytes(const struct sy_lb_tables *t)
{
	return t != NULL ? (t->bytes + 15) & ~(size_t)15 : 0;
}
