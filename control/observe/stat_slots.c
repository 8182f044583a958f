/* SPDX-License-Identifier: BSD-3-Clause */
/* Counter slots by name (stat_slots.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "observe/stat_slots.h"

int
sy_stat_slots_init(struct sy_stat_slots *ss, uint32_t n)
{
	memset(ss, 0, sizeof(*ss));
	ss->key = calloc(n, sizeof(*ss->key));
	ss->seen = calloc(n, sizeof(*ss->seen));
	if (ss->key == NULL || ss->seen == NULL || sy_strmap_init(&ss->slot_of, 1024) < 0) {
		free(ss->key);
		free(ss->seen);
		memset(ss, 0, sizeof(*ss));
		return -ENOMEM;
	}
	ss->n = n;
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

uint16_t
sy_stat_slots_next_stale(const struct sy_stat_slots *ss, uint32_t *s)
{
	for (; *s < ss->n; (*s)++)
		if (ss->key[*s] != NULL && ss->seen[*s] != ss->plan)
			return (uint16_t)(*s)++;
	return 0;
}

void
sy_stat_slots_free(struct sy_stat_slots *ss, uint16_t s)
{
	if (s == 0 || s >= ss->n || ss->key[s] == NULL)
		return;
	sy_strmap_remove(&ss->slot_of, ss->key[s]);
	free(ss->key[s]);
	ss->key[s] = NULL;
	ss->n_used--;
}

void
sy_stat_slots_fini(struct sy_stat_slots *ss)
{
	uint32_t s;

	for (s = 0; ss->key != NULL && s < ss->n; s++)
		free(ss->key[s]);
	free(ss->key);
	free(ss->seen);
	sy_strmap_fini(&ss->slot_of);
	memset(ss, 0, sizeof(*ss));
}
