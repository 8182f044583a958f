/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A source allowlist's text into the rule's block (include/sy_source_allow.h):
 * "198.18.0.0/24 198.18.1.7 2001:2::/48", separated by spaces (OpenShift's
 * ip_allowlist; tabs and newlines too). Every entry must parse, or none is
 * used: the OpenShift router ignores an invalid list as a whole, and so does
 * the kind that asked (it shows the entry on the route's status).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <arpa/inet.h>

#include "arena.h"
#include "gen/source_allow.h"

#define SEPS " \t\r\n"

/* Calls fn(entry, len) for each entry; stops at the first that fails. */
static int
each_entry(const char *text, int (*fn)(void *ctx, const char *e, size_t len), void *ctx)
{
	const char *p = text;

	for (;;) {
		size_t len;
		int rc;

		p += strspn(p, SEPS);
		if (*p == '\0')
			return 0;
		len = strcspn(p, SEPS);
		if ((rc = fn(ctx, p, len)) != 0)
			return rc;
		p += len;
	}
}

/* One entry as a prefix (a bare address: its whole length). */
static int
entry_prefix(const char *e, size_t len, struct sy_addr *a, uint8_t *plen)
{
	char buf[64];

	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, e, len);
	buf[len] = '\0';
	return sy_prefix_parse(buf, a, plen);
}

struct count_ctx {
	uint32_t n4, n6;
	char *bad;
	size_t badlen;
};

static int
count_entry(void *ctx, const char *e, size_t len)
{
	struct count_ctx *c = ctx;
	struct sy_addr a;
	uint8_t plen;

	if (entry_prefix(e, len, &a, &plen) != 0) {
		if (c->bad != NULL)
			snprintf(c->bad, c->badlen, "%.*s", (int)(len > 64 ? 64 : len), e);
		return -EINVAL;
	}
	if (a.family == AF_INET)
		c->n4++;
	else
		c->n6++;
	return 0;
}

int
sy_source_allow_check(const char *text, char *bad, size_t badlen)
{
	struct count_ctx c = { 0, 0, bad, badlen };
	int rc = each_entry(text, count_entry, &c);

	if (rc == 0 && c.n4 + c.n6 == 0) {
		if (bad != NULL)
			snprintf(bad, badlen, "%s", "");
		return -ENOENT;
	}
	return rc;
}

struct fill_ctx {
	struct sy_prefix4 *v4;
	struct sy_prefix6 *v6;
	uint32_t n4, n6;
};

static int
fill_entry(void *ctx, const char *e, size_t len)
{
	struct fill_ctx *f = ctx;
	struct sy_addr a;
	uint8_t plen;

	if (entry_prefix(e, len, &a, &plen) != 0)
		return -EINVAL;
	if (a.family == AF_INET)
		sy_prefix4_set(&f->v4[f->n4++], a.v4, plen);
	else
		sy_prefix6_set(&f->v6[f->n6++], a.v6, plen);
	return 0;
}

const struct sy_source_allow *
sy_source_allow_build(struct sy_arena *a, const char *text)
{
	struct count_ctx c = { 0, 0, NULL, 0 };
	struct fill_ctx f = { 0 };
	struct sy_source_allow *l;

	if (each_entry(text, count_entry, &c) != 0 || c.n4 + c.n6 == 0)
		return NULL;
	l = sy_arena_alloc(a, sizeof(*l));
	f.v4 = c.n4 ? sy_arena_alloc(a, c.n4 * sizeof(*f.v4)) : NULL;
	f.v6 = c.n6 ? sy_arena_alloc(a, c.n6 * sizeof(*f.v6)) : NULL;
	if (l == NULL || (c.n4 && f.v4 == NULL) || (c.n6 && f.v6 == NULL))
		return NULL;
	(void)each_entry(text, fill_entry, &f);
	l->v4 = f.v4;
	l->v6 = f.v6;
	l->n4 = f.n4;
	l->n6 = f.n6;
	return l;
}
