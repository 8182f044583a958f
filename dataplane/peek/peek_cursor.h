/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A read cursor over a peek's fragment list (peek.h), shared by the HTTP and
 * TLS peekers. It never reads at or past `limit` (min(total held, max_len)),
 * so every byte access is inside a fragment.
 */
#ifndef SY_PEEK_CURSOR_H
#define SY_PEEK_CURSOR_H

#include <stdbool.h>
#include <stdint.h>

#include "peek/peek.h"

struct sy_peek_cur {
	const struct sy_frag *frags;
	unsigned fi;    /* current fragment */
	uint32_t off;   /* offset in frags[fi] */
	uint32_t pos;   /* stream offset of the next byte */
	uint32_t limit; /* bytes of the stream this call may look at */
};

/* The next byte, or -1 at the limit. */
static inline int
cur_next(struct sy_peek_cur *c)
{
	if (c->pos >= c->limit)
		return -1;
	/* pos < limit <= total: a later fragment holds the byte, so this loop
	 * stops before running off the list (empty fragments are skipped). */
	while (c->off >= c->frags[c->fi].len) {
		c->fi++;
		c->off = 0;
	}
	c->pos++;
	return c->frags[c->fi].data[c->off++];
}

/* Skip n bytes; false (nothing moved) if fewer than n are left. */
static inline bool
cur_skip(struct sy_peek_cur *c, uint32_t n)
{
	uint32_t room;

	if (c->limit - c->pos < n)
		return false;
	c->pos += n;
	while (n > 0) {
		room = c->frags[c->fi].len - c->off;
		if (room == 0) {
			c->fi++;
			c->off = 0;
			continue;
		}
		if (room > n)
			room = n;
		c->off += room;
		n -= room;
	}
	return true;
}

#endif
