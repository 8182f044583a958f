/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "strmap.h"

/* FNV-1a: host names and "ns/name" keys, short and varied. */
uint32_t
sy_strmap_hash(const char *s, size_t len)
{
	uint32_t h = 2166136261u;
	size_t i;

	for (i = 0; i < len; i++)
		h = (h ^ (uint8_t)s[i]) * 16777619u;
	return h;
}

static uint32_t
key_hash(const char *key)
{
	return sy_strmap_hash(key, strlen(key));
}

static int
resize(struct sy_strmap *m, size_t size)
{
	struct sy_strmap_slot *old = m->slots;
	size_t old_size = old ? m->mask + 1 : 0, i;

	m->slots = calloc(size, sizeof(*m->slots));
	if (m->slots == NULL) {
		m->slots = old;
		return -ENOMEM;
	}
	m->mask = size - 1;
	for (i = 0; i < old_size; i++) {
		size_t j;

		if (old[i].key == NULL)
			continue;
		for (j = key_hash(old[i].key) & m->mask; m->slots[j].key != NULL; j = (j + 1) & m->mask)
			;
		m->slots[j] = old[i];
	}
	free(old);
	return 0;
}

int
sy_strmap_init(struct sy_strmap *m, size_t expected)
{
	size_t size = 16;

	memset(m, 0, sizeof(*m));
	while (size < expected * 2)
		size <<= 1;
	return resize(m, size);
}

void
sy_strmap_fini(struct sy_strmap *m)
{
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static struct sy_strmap_slot *
find(const struct sy_strmap *m, const char *key, size_t len, uint32_t h)
{
	size_t j;

	if (m->slots == NULL)
		return NULL;
	for (j = h & m->mask; m->slots[j].key != NULL; j = (j + 1) & m->mask)
		if (strncmp(m->slots[j].key, key, len) == 0 && m->slots[j].key[len] == '\0')
			return &m->slots[j];
	return NULL;
}

void *
sy_strmap_getn(const struct sy_strmap *m, const char *key, size_t len)
{
	struct sy_strmap_slot *s = find(m, key, len, sy_strmap_hash(key, len));

	return s ? s->value : NULL;
}

void *
sy_strmap_get(const struct sy_strmap *m, const char *key)
{
	return sy_strmap_getn(m, key, strlen(key));
}

int
sy_strmap_put(struct sy_strmap *m, const char *key, void *value)
{
	size_t len = strlen(key), j;
	uint32_t h = sy_strmap_hash(key, len);
	struct sy_strmap_slot *s = find(m, key, len, h);

	if (s != NULL) {
		s->key = key;
		s->value = value;
		return 0;
	}
	/* Keep the load at or under three quarters: probes stay short, and a
	 * million keys do not cost four million slots. */
	if (m->slots == NULL || (m->count + 1) * 4 > (m->mask + 1) * 3)
		if (resize(m, m->slots ? (m->mask + 1) * 2 : 16) < 0)
			return -ENOMEM;
	for (j = h & m->mask; m->slots[j].key != NULL; j = (j + 1) & m->mask)
		;
	m->slots[j] = (struct sy_strmap_slot){ .key = key, .value = value };
	m->count++;
	return 0;
}

void *
sy_strmap_remove(struct sy_strmap *m, const char *key)
{
	size_t len = strlen(key);
	struct sy_strmap_slot *s = find(m, key, len, sy_strmap_hash(key, len));
	size_t i, j;
	void *v;

	if (s == NULL)
		return NULL;
	v = s->value;
	/* Backward-shift: move later entries of the probe run into the hole
	 * when their home slot allows it, so lookups need no tombstones. */
	i = (size_t)(s - m->slots);
	for (j = (i + 1) & m->mask; m->slots[j].key != NULL; j = (j + 1) & m->mask) {
		size_t home = key_hash(m->slots[j].key) & m->mask;

		/* j's entry may move to i if home is not within (i, j]. */
		if ((j > i && (home <= i || home > j)) || (j < i && (home <= i && home > j))) {
			m->slots[i] = m->slots[j];
			i = j;
		}
	}
	m->slots[i] = (struct sy_strmap_slot){ 0 };
	m->count--;
	return v;
}

int
sy_strmap_next(const struct sy_strmap *m, size_t *i, const char **key, void **value)
{
	if (m->slots == NULL)
		return 0;
	for (; *i <= m->mask; (*i)++)
		if (m->slots[*i].key != NULL) {
			*key = m->slots[*i].key;
			*value = m->slots[*i].value;
			(*i)++;
			return 1;
		}
	return 0;
}
