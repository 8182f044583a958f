/* SPDX-License-Identifier: BSD-3-Clause */
/* The age of the objects the router creates (age.h). */
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "age.h"

#define SEQ_MAX 0xfffu /* rand_a: 12 bits */

void
sy_age_next(struct sy_age_clock *c, uint64_t now_ms, char ts[SY_AGE_TS_LEN],
	    char uid[SY_AGE_UID_LEN])
{
	uint8_t b[16];
	time_t secs;
	struct tm tm;

	if (!c->any || now_ms > c->last_ms) {
		c->last_ms = now_ms;
		c->seq = 0;
	} else if (c->seq < SEQ_MAX) {
		/* The same millisecond, or the wall clock went back: on from
		 * the last one, never before it. */
		c->seq++;
	} else {
		c->last_ms++;
		c->seq = 0;
	}
	c->any = true;

	/* rand_b: what keeps uids unique across routers and restarts. */
	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		uint64_t x = now_ms ^ ((uint64_t)c->seq << 48) ^ (uint64_t)clock();

		memcpy(b, &x, 8);
		memcpy(b + 8, &x, 8);
	}
	b[0] = (uint8_t)(c->last_ms >> 40);
	b[1] = (uint8_t)(c->last_ms >> 32);
	b[2] = (uint8_t)(c->last_ms >> 24);
	b[3] = (uint8_t)(c->last_ms >> 16);
	b[4] = (uint8_t)(c->last_ms >> 8);
	b[5] = (uint8_t)c->last_ms;
	b[6] = (uint8_t)(0x70 | (c->seq >> 8)); /* version 7 */
	b[7] = (uint8_t)c->seq;
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* variant 10 */
	snprintf(uid, SY_AGE_UID_LEN,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
		 b[15]);
	secs = (time_t)(c->last_ms / 1000);
	gmtime_r(&secs, &tm);
	strftime(ts, SY_AGE_TS_LEN, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void
sy_age_now(struct sy_age_clock *c, char ts[SY_AGE_TS_LEN], char uid[SY_AGE_UID_LEN])
{
	struct timespec t;

	clock_gettime(CLOCK_REALTIME, &t);
	sy_age_next(c, (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000, ts, uid);
}

static int
hexval(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

bool
sy_age_uid_parse(const char *uid, uint64_t *ms, uint32_t *seq)
{
	uint64_t v = 0;
	uint32_t s = 0;
	unsigned i, nib = 0;

	if (strlen(uid) != 36 || uid[8] != '-' || uid[13] != '-' || uid[18] != '-' ||
	    uid[23] != '-' || uid[14] != '7' || hexval(uid[19]) < 8 || hexval(uid[19]) > 11)
		return false;
	for (i = 0; i < 36; i++) {
		int h;

		if (i == 8 || i == 13 || i == 18 || i == 23)
			continue;
		h = hexval(uid[i]);
		if (h < 0)
			return false;
		if (nib < 12)
			v = v << 4 | (uint64_t)h;
		else if (nib >= 13 && nib < 16)
			s = s << 4 | (uint32_t)h;
		nib++;
	}
	*ms = v;
	*seq = s;
	return true;
}

void
sy_age_seen(struct sy_age_clock *c, const char *uid)
{
	uint64_t ms;
	uint32_t seq;

	if (uid == NULL || !sy_age_uid_parse(uid, &ms, &seq))
		return;
	if (!c->any || ms > c->last_ms || (ms == c->last_ms && seq > c->seq)) {
		c->last_ms = ms;
		c->seq = seq;
		c->any = true;
	}
}
