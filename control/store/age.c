/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

#include "store/age.h"
#include "store/store.h"

#define SEQ_BITS 30

static bool
two_digits(const char *p, int *v)
{
	if (!isdigit((unsigned char)p[0]) || !isdigit((unsigned char)p[1]))
		return false;
	*v = (p[0] - '0') * 10 + (p[1] - '0');
	return true;
}

int
sy_rfc3339_parse(const char *s, struct sy_time *t)
{
	struct tm tm;
	const char *end;
	uint32_t scale = 100000000, nsec = 0;
	int64_t sec;
	int oh, om;

	memset(&tm, 0, sizeof(tm));
	/* strptime skips spaces before a number; RFC 3339 has none. */
	if (s == NULL || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	end = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
	if (end == NULL || end - s != 19)
		return -EINVAL;
	if (*end == '.') {
		if (!isdigit((unsigned char)end[1]))
			return -EINVAL;
		/* Past nanoseconds a digit cannot change the order of two
		 * instants Kubernetes could tell apart. */
		for (end++; isdigit((unsigned char)*end); end++, scale /= 10)
			nsec += (uint32_t)(*end - '0') * scale;
	}
	sec = (int64_t)timegm(&tm);
	if ((end[0] == 'Z' || end[0] == 'z') && end[1] == '\0') {
		/* UTC */
	} else if ((end[0] == '+' || end[0] == '-') && two_digits(end + 1, &oh) && end[3] == ':' &&
		   two_digits(end + 4, &om) && end[6] == '\0' && oh < 24 && om < 60) {
		/* 01:00+01:00 is 00:00Z: an offset is subtracted. */
		sec -= (end[0] == '+' ? 1 : -1) * (int64_t)(oh * 3600 + om * 60);
	} else {
		return -EINVAL;
	}
	t->sec = sec;
	t->nsec = nsec;
	return 0;
}

void
sy_rfc3339_format(int64_t sec, char *buf, size_t len)
{
	time_t t = (time_t)sec;
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static uint64_t
clock_ms(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

uint64_t
sy_wall_ms(void)
{
	return clock_ms(CLOCK_REALTIME);
}

uint64_t
sy_mono_ms(void)
{
	return clock_ms(CLOCK_MONOTONIC);
}

/*
 * The uid's 128 bits, most significant first (RFC 9562 5.7 and 6.2 method
 * 1, a fixed-length dedicated counter):
 *   48 unix_ts_ms | 4 version (7) | 12 counter high | 2 variant (10) |
 *   18 counter low | 44 random
 * The version and variant bits are the same in every uid, so the text,
 * compared byte by byte, orders by millisecond, then counter.
 */
void
sy_age_stamp(struct sy_age_clock *c, uint64_t now_ms, char created[SY_RFC3339_LEN],
	     char uid[SY_UID_LEN])
{
	uint8_t b[16];
	uint64_t ms;
	uint32_t seq;
	int i;

	if (now_ms > c->last_ms) {
		c->last_ms = now_ms;
		c->seq = 0;
	} else if (++c->seq >> SEQ_BITS) {
		/* A billion stamps in one millisecond: borrow the next one
		 * (RFC 9562 6.2 allows it); the creationTimestamp follows. */
		c->last_ms++;
		c->seq = 0;
	}
	ms = c->last_ms;
	seq = c->seq;
	/* The random bits only keep uids of different routers apart; one
	 * router's are unique by millisecond and counter. */
	if (c->rnd_used == 0 || (size_t)c->rnd_used + 6 > sizeof(c->rnd)) {
		if (getrandom(c->rnd, sizeof(c->rnd), GRND_NONBLOCK) != (ssize_t)sizeof(c->rnd))
			memset(c->rnd, 0, sizeof(c->rnd));
		c->rnd_used = 0;
	}
	memcpy(b + 10, c->rnd + c->rnd_used, 6);
	c->rnd_used = (uint16_t)(c->rnd_used + 6);
	for (i = 0; i < 6; i++)
		b[i] = (uint8_t)(ms >> (40 - 8 * i));
	b[6] = (uint8_t)(0x70 | ((seq >> 26) & 0x0f));
	b[7] = (uint8_t)(seq >> 18);
	b[8] = (uint8_t)(0x80 | ((seq >> 12) & 0x3f));
	b[9] = (uint8_t)(seq >> 4);
	b[10] = (uint8_t)(((seq & 0x0f) << 4) | (b[10] & 0x0f));
	/* 8-4-4-4-12 hex digits: a table, not snprintf's 16 conversions. */
	{
		static const char hex[] = "0123456789abcdef";
		char *u = uid;

		for (i = 0; i < 16; i++) {
			if (i == 4 || i == 6 || i == 8 || i == 10)
				*u++ = '-';
			*u++ = hex[b[i] >> 4];
			*u++ = hex[b[i] & 0x0f];
		}
		*u = '\0';
	}
	if (c->text_sec != (int64_t)(ms / 1000) + 1) {
		sy_rfc3339_format((int64_t)(ms / 1000), c->text, sizeof(c->text));
		c->text_sec = (int64_t)(ms / 1000) + 1;
	}
	memcpy(created, c->text, SY_RFC3339_LEN);
}

static int
hex_nibble(char ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

bool
sy_uid_pack(const char *uid, uint8_t out[SY_UID_BIN_LEN])
{
	int i, k = 0;

	if (strlen(uid) != 36)
		return false;
	for (i = 0; i < 36; i++) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (uid[i] != '-')
				return false;
			continue;
		}
		hi = hex_nibble(uid[i]);
		lo = hex_nibble(uid[++i]);
		if (hi < 0 || lo < 0)
			return false;
		out[k++] = (uint8_t)(hi << 4 | lo);
	}
	return true;
}

void
sy_uid_unpack(const uint8_t b[SY_UID_BIN_LEN], char uid[SY_UID_LEN])
{
	snprintf(uid, SY_UID_LEN,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
		 b[15]);
}

void
sy_age_observe(struct sy_age_clock *c, const char *uid)
{
	uint8_t b[16];
	uint64_t ms = 0;
	uint32_t seq;
	int i, k = 0;

	/* Only the lower-case form sy_age_stamp writes: 8-4-4-4-12. */
	if (uid == NULL || strlen(uid) != 36)
		return;
	for (i = 0; i < 36; i++) {
		int hi, lo;

		if (i == 8 || i == 13 || i == 18 || i == 23) {
			if (uid[i] != '-')
				return;
			continue;
		}
		hi = hex_nibble(uid[i]);
		lo = hex_nibble(uid[++i]);
		if (hi < 0 || lo < 0)
			return;
		b[k++] = (uint8_t)(hi << 4 | lo);
	}
	if ((b[6] & 0xf0) != 0x70 || (b[8] & 0xc0) != 0x80)
		return;
	for (i = 0; i < 6; i++)
		ms = ms << 8 | b[i];
	seq = (uint32_t)(b[6] & 0x0f) << 26 | (uint32_t)b[7] << 18 | (uint32_t)(b[8] & 0x3f) << 12 |
	      (uint32_t)b[9] << 4 | (uint32_t)(b[10] >> 4);
	if (ms > c->last_ms || (ms == c->last_ms && seq > c->seq)) {
		c->last_ms = ms;
		c->seq = seq;
	}
}

static int
cmp_str(const char *a, const char *b)
{
	int c = strcmp(a, b);

	return (c > 0) - (c < 0);
}

int
sy_object_age_cmp(const struct sy_object *a, const struct sy_object *b)
{
	int c;

	/* Both from etcd: the revision that created each key orders them the
	 * same on every router, whatever the clocks of the routers that
	 * stamped them (control/etcd/sync.h). */
	if (a->create_rev > 0 && b->create_rev > 0 && a->create_rev != b->create_rev)
		return a->create_rev < b->create_rev ? -1 : 1;
	if (a->created.sec != b->created.sec)
		return a->created.sec < b->created.sec ? -1 : 1;
	if (a->created.nsec != b->created.nsec)
		return a->created.nsec < b->created.nsec ? -1 : 1;
	/* Go compares strings byte by byte, as strcmp does; two uids kept
	 * as bytes compare the same by memcmp (sy_uid_pack). */
	if (!a->uid_text && !b->uid_text)
		c = memcmp(a->uid_bin, b->uid_bin, SY_UID_BIN_LEN);
	else {
		char ua[SY_UID_LEN], ub[SY_UID_LEN];

		c = strcmp(sy_object_uid(a, ua), sy_object_uid(b, ub));
	}
	if (c != 0)
		return (c > 0) - (c < 0);
	/* The same age and uid: objects written by hand (or copied). Still
	 * a total order, so that no decision depends on the order in which
	 * a compile happened to read them. */
	if ((c = cmp_str(a->kind->group, b->kind->group)) != 0 ||
	    (c = cmp_str(a->kind->kind, b->kind->kind)) != 0 || (c = cmp_str(a->ns, b->ns)) != 0)
		return c;
	return cmp_str(a->name, b->name);
}
