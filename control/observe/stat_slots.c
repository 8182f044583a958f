/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter slots by name (stat_slots.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "observe/stat_slots.h"
#include "sy_dataplane.h"

int
sy_stat_slots_init(struct sy_stat_slots *ss, uint32_t n, size_t words,
		   const void *(*at)(unsigned w), size_t gauge_from)
{
	memset(ss, 0, sizeof(*ss));
	ss->key = calloc(n, sizeof(*ss->key));
	ss->seen = calloc(n, sizeof(*ss->seen));
	ss->base = calloc((size_t)n * words, sizeof(*ss->base));
	if (ss->key == NULL || ss->seen == NULL || ss->base == NULL ||
	    sy_strmap_init(&ss->slot_of, 1024) < 0) {
		free(ss->key);
		free(ss->seen);
		free(ss->base);
		memset(ss, 0, sizeof(*ss));
		return -ENOMEM;
	}
	ss->n = n;
	ss->words = words;
	ss->at = at;
	ss->gauge_from = gauge_from;
	return 0;
}

void
sy_stat_slots_begin(struct sy_stat_slots *ss)
{
	ss->plan++;
}

uint16_t
sy_stat_slots_take(struct sy_stat_slots *ss, const char *name)
{
	void *v = sy_strmap_get(&ss->slot_of, name);
	uint32_t s;

	if (v != NULL) {
		s = (uint32_t)(uintptr_t)v;
		ss->seen[s] = ss->plan;
		return (uint16_t)s;
	}
	for (s = 1; s < ss->n; s++)
		if (ss->key[s] == NULL)
			break;
	if (s >= ss->n)
		return 0;
	ss->key[s] = strdup(name);
	if (ss->key[s] == NULL || sy_strmap_put(&ss->slot_of, ss->key[s], (void *)(uintptr_t)s) < 0) {
		free(ss->key[s]);
		ss->key[s] = NULL;
		return 0;
	}
	ss->seen[s] = ss->plan;
	ss->n_used++;
	return (uint16_t)s;
}

/* The workers' sum of slot s into out. */
static void
sum(const struct sy_stat_slots *ss, unsigned s, uint64_t *out)
{
	unsigned w;
	size_t k;

	memset(out, 0, ss->words * sizeof(*out));
	for (w = 0; ss->at != NULL && w < sy_dp_n_workers(); w++) {
		const uint64_t *a = ss->at(w);

		for (k = 0; a != NULL && k < ss->words; k++)
			out[k] += a[(size_t)s * ss->words + k];
	}
}

void
sy_stat_slots_end(struct sy_stat_slots *ss)
{
	uint32_t s;

	for (s = 1; s < ss->n; s++) {
		uint64_t *b = &ss->base[(size_t)s * ss->words];

		if (ss->key[s] == NULL || ss->seen[s] == ss->plan)
			continue;
		/* A request still in flight in the old generation may count
		 * here after this: a moment's difference. */
		sum(ss, s, b);
		memset(b + ss->gauge_from, 0, (ss->words - ss->gauge_from) * sizeof(*b));
		sy_strmap_remove(&ss->slot_of, ss->key[s]);
		free(ss->key[s]);
		ss->key[s] = NULL;
		ss->n_used--;
	}
}

void
sy_stat_slots_total(const struct sy_stat_slots *ss, unsigned s, uint64_t *out)
{
	const uint64_t *b = &ss->base[(size_t)s * ss->words];
	size_t k;

	sum(ss, s, out);
	/* Never below 0: the workers write while this reads. */
	for (k = 0; k < ss->words; k++)
		out[k] = out[k] >= b[k] ? out[k] - b[k] : 0;
}

void
sy_stat_slots_fini(struct sy_stat_slots *ss)
{
	uint32_t s;

	for (s = 0; ss->key != NULL && s < ss->n; s++)
		free(ss->key[s]);
	free(ss->key);
	free(ss->seen);
	free(ss->base);
	sy_strmap_fini(&ss->slot_of);
	memset(ss, 0, sizeof(*ss));
}
