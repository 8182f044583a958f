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
	uint32_t s;

	memset(ss, 0, sizeof(*ss));
	if (n < 2 || n > 65536)
		return -EINVAL;
	ss->key = calloc(n, sizeof(*ss->key));
	ss->refs = calloc(n, sizeof(*ss->refs));
	ss->base = calloc((size_t)n * words, sizeof(*ss->base));
	ss->free_stack = malloc(n * sizeof(*ss->free_stack));
	ss->gone = malloc(n * sizeof(*ss->gone));
	ss->listed = calloc(n, sizeof(*ss->listed));
	if (ss->key == NULL || ss->refs == NULL || ss->base == NULL || ss->free_stack == NULL ||
	    ss->gone == NULL || ss->listed == NULL || sy_strmap_init(&ss->slot_of, 1024) < 0) {
		sy_stat_slots_fini(ss);
		return -ENOMEM;
	}
	/* Slot 1 on top: slots are given lowest first. */
	for (s = n - 1; s >= 1; s--)
		ss->free_stack[ss->n_free++] = (uint16_t)s;
	ss->n = n;
	ss->words = words;
	ss->at = at;
	ss->gauge_from = gauge_from;
	return 0;
}

uint16_t
sy_stat_slots_take(struct sy_stat_slots *ss, const char *name)
{
	void *v = sy_strmap_get(&ss->slot_of, name);
	uint16_t s;

	if (v != NULL) {
		s = (uint16_t)(uintptr_t)v;
		ss->refs[s]++;
		return s;
	}
	if (ss->n_free == 0)
		return 0;
	s = ss->free_stack[ss->n_free - 1];
	ss->key[s] = strdup(name);
	if (ss->key[s] == NULL || sy_strmap_put(&ss->slot_of, ss->key[s], (void *)(uintptr_t)s) < 0) {
		free(ss->key[s]);
		ss->key[s] = NULL;
		return 0;
	}
	ss->n_free--;
	ss->refs[s] = 1;
	ss->n_used++;
	return s;
}

void
sy_stat_slots_put(struct sy_stat_slots *ss, uint16_t s)
{
	if (s == 0 || s >= ss->n || ss->refs[s] == 0)
		return;
	/* Freed at the plan's end, unless the plan takes it again. */
	if (--ss->refs[s] == 0 && !ss->listed[s]) {
		ss->listed[s] = 1;
		ss->gone[ss->n_gone++] = s;
	}
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
	uint32_t i;

	for (i = 0; i < ss->n_gone; i++) {
		uint16_t s = ss->gone[i];
		uint64_t *b = &ss->base[(size_t)s * ss->words];

		ss->listed[s] = 0;
		/* Taken again after it reached 0: it stays. */
		if (ss->refs[s] != 0)
			continue;
		/* A request still in flight in the old generation may count
		 * here after this: a moment's difference. */
		sum(ss, s, b);
		memset(b + ss->gauge_from, 0, (ss->words - ss->gauge_from) * sizeof(*b));
		sy_strmap_remove(&ss->slot_of, ss->key[s]);
		free(ss->key[s]);
		ss->key[s] = NULL;
		ss->free_stack[ss->n_free++] = s;
		ss->n_used--;
	}
	ss->n_gone = 0;
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
	free(ss->refs);
	free(ss->base);
	free(ss->free_stack);
	free(ss->gone);
	free(ss->listed);
	sy_strmap_fini(&ss->slot_of);
	memset(ss, 0, sizeof(*ss));
}
