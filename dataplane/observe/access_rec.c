/* SPDX-License-Identifier: BSD-3-Clause */
/* Access log records on the workers (access_rec.h). */
#include <string.h>

#include <rte_ring.h>
#include <rte_ring_elem.h>

#include "observe/access_rec.h"

void
sy_alog_put(struct sy_worker *w, struct sy_access_rec *r)
{
	r->worker = (uint8_t)w->id;
	if (rte_ring_sp_enqueue_elem(w->sh->alog[w->id], r, sizeof(*r)) != 0) {
		w->counters.alog_dropped++;
		return;
	}
	w->counters.alog_records++;
}

void
sy_alog_text(char *dst, size_t n, const void *s, size_t len)
{
	const unsigned char *p = s;
	size_t i;

	if (n == 0)
		return;
	if (len > n - 1)
		len = n - 1;
	for (i = 0; i < len; i++)
		dst[i] = p[i] >= 0x20 && p[i] < 0x7f ? (char)p[i] : '?';
	dst[len] = '\0';
}

uint32_t
sy_alog_tsc_us(const struct sy_worker *w, uint64_t span)
{
	uint64_t us = span * 1000 / w->sh->tsc_per_ms;

	return us >= SY_ALOG_NO_TIME ? SY_ALOG_NO_TIME - 1 : (uint32_t)us;
}

uint32_t
sy_alog_us_since(const struct sy_worker *w, uint64_t from)
{
	if (from == 0 || w->now < from)
		return SY_ALOG_NO_TIME;
	return sy_alog_tsc_us(w, w->now - from);
}
