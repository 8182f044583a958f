/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Lookups in a published generation. Read-only, no allocation: the workers call
 * these on the packet path (splice bind) and the control thread for `resolve`.
 */
#include <string.h>

#include "sy_generation.h"

size_t
sy_host_normalize_len(const char *host, size_t len)
{
	size_t i;

	/* "[v6]:port" keeps its brackets' content; a plain host loses ":port". */
	if (len > 0 && host[0] == '[') {
		for (i = 1; i < len && host[i] != ']'; i++)
			;
		return i < len ? i + 1 : len;
	}
	{
		const char *colon = memchr(host, ':', len); /* vectorised, not a byte loop */

		if (colon != NULL)
			len = (size_t)(colon - host);
	}
	if (len > 0 && host[len - 1] == '.')
		len--;
	return len;
}

/*
 * The vhost table's hash, the same on both sides (control builds, workers
 * look up): eight bytes at a time, each byte OR 0x20, which lower-cases
 * letters and maps everything else consistently (a few non-letters share a
 * value; the compare after it is exact). A byte at a time, as FNV does, the
 * hash was a chain of 30 dependent multiplies for a typical host: longer
 * than the rest of a lookup, and it kept the CPU from starting the next
 * lookup's memory accesses early.
 */
#define FOLD_CASE 0x2020202020202020ull
#define HASH_MUL 0x9e3779b97f4a7c15ull

static inline uint64_t
mix(uint64_t h, uint64_t w)
{
	h = (h ^ w) * HASH_MUL;
	return h ^ (h >> 29);
}

static uint32_t
hash_bytes(uint64_t h, const char *p, size_t len)
{
	uint64_t w;

	for (; len >= 8; p += 8, len -= 8) {
		memcpy(&w, p, 8);
		h = mix(h, w | FOLD_CASE);
	}
	if (len > 0) {
		w = 0;
		memcpy(&w, p, len);
		/* Only the bytes that are there get the case bit. */
		h = mix(h, w | (FOLD_CASE >> (8 * (8 - len))));
	}
	h ^= h >> 32;
	return (uint32_t)h;
}

uint32_t
sy_host_hash(const char *host, size_t len)
{
	return hash_bytes(HASH_MUL ^ len, host, len);
}

/* Eight bytes at once, ASCII upper case to lower (SWAR): a byte gets 0x20
 * where it is 'A'..'Z'. */
static inline uint64_t
lower8(uint64_t w)
{
	uint64_t h = w & 0x7f7f7f7f7f7f7f7full;
	uint64_t ge_a = h + 0x3f3f3f3f3f3f3f3full;  /* bit 7 set where h >= 'A' */
	uint64_t gt_z = h + 0x2525252525252525ull;  /* bit 7 set where h > 'Z' */
	uint64_t upper = (ge_a ^ gt_z) & ~w & 0x8080808080808080ull;

	return w | (upper >> 2);
}

/* a (any case) equals lower_host (lower case already), len bytes. */
static bool
host_eq(const char *a, const char *lower_host, size_t len)
{
	uint64_t x, y;

	for (; len >= 8; a += 8, lower_host += 8, len -= 8) {
		memcpy(&x, a, 8);
		memcpy(&y, lower_host, 8);
		if (lower8(x) != y)
			return false;
	}
	if (len > 0) {
		x = 0;
		y = 0;
		memcpy(&x, a, len);
		memcpy(&y, lower_host, len);
		if (lower8(x) != y)
			return false;
	}
	return true;
}

/* The vhost at slot s, if its host is `host` (wildcard: "*." + host). */
static inline const struct sy_vhost *
slot_host_is(sy_vhost_slot s, const char *host, size_t len, bool wildcard)
{
	const struct sy_vhost *vh = sy_vhost_slot_vhost(s);

	/* Ask for the block's first three lines at once: the compare and
	 * the path match read them (vhost, host, paths, the rules' heads;
	 * control/gen/compile.c packs them so) one after the other, which
	 * would be a miss each. Fetching more lines than that costs: at 1M
	 * routes the lookup is bound by lines in flight (five lines:
	 * 185-230 ns, three: 139 ns). */
	__builtin_prefetch((const char *)vh + 64);
	__builtin_prefetch((const char *)vh + 128);
	if (wildcard)
		return vh->host_len == len + 2 && vh->host[0] == '*' && vh->host[1] == '.' &&
				       host_eq(host, vh->host + 2, len) ?
			       vh :
			       NULL;
	return vh->host_len == len && host_eq(host, vh->host, len) ? vh : NULL;
}

static const struct sy_vhost *
find_exact(const struct sy_generation *g, const char *host, size_t len, bool wildcard)
{
	/* A wildcard is stored as "*." + domain: hash that string. */
	char star[2 + 256];
	uint32_t h, i, j;
	uint64_t tag;
	const struct sy_vhost_chunk *c;

	if (wildcard) {
		if (len > 256)
			return NULL; /* no host name is that long */
		star[0] = '*';
		star[1] = '.';
		memcpy(star + 2, host, len);
		h = sy_host_hash(star, len + 2);
	} else {
		h = sy_host_hash(host, len);
	}
	c = g->chunks[g->chunk_shift >= 32 ? 0 : h >> g->chunk_shift];
	tag = sy_vhost_slot_tag(h);
	j = h % SY_VHOST_CHUNK_SLOTS;
	for (i = 0; i < SY_VHOST_CHUNK_SLOTS; i++) {
		sy_vhost_slot s = c->slots[j];
		const struct sy_vhost *vh;

		if (s == 0)
			return NULL;
		if ((s & ~SY_VHOST_SLOT_ADDR_MASK) == tag && (vh = slot_host_is(s, host, len, wildcard)) != NULL)
			return vh;
		j = j + 1 == SY_VHOST_CHUNK_SLOTS ? 0 : j + 1;
	}
	return NULL;
}

const struct sy_vhost *
sy_gen_next_vhost(const struct sy_generation *g, size_t *i)
{
	size_t total = (size_t)g->n_chunks * SY_VHOST_CHUNK_SLOTS;

	for (; *i < total; (*i)++) {
		const struct sy_vhost *vh = sy_vhost_slot_vhost(
			g->chunks[*i / SY_VHOST_CHUNK_SLOTS]->slots[*i % SY_VHOST_CHUNK_SLOTS]);

		if (vh != NULL) {
			(*i)++;
			return vh;
		}
	}
	return NULL;
}

const struct sy_vhost *
sy_gen_find_vhost(const struct sy_generation *g, const char *host, size_t len)
{
	const struct sy_vhost *vh;
	const char *dot;

	if (g == NULL || g->n_vhosts == 0)
		return NULL;
	len = sy_host_normalize_len(host, len);
	vh = find_exact(g, host, len, false);
	if (vh != NULL)
		return vh;
	/* An exact host beats a wildcard; a wildcard covers exactly one more
	 * label (OpenShift's Subdomain policy: *.example.com serves
	 * a.example.com, not a.b.example.com), unless it is a deep one
	 * (Gateway API's: any number of labels), found by the longer
	 * suffixes after: the most specific wildcard wins. */
	dot = g->n_wildcard_vhosts > 0 ? memchr(host, '.', len) : NULL;
	if (dot != NULL && dot != host) {
		const char *d = dot + 1, *end = host + len;

		vh = find_exact(g, d, (size_t)(end - d), true);
		if (vh != NULL)
			return vh;
		while (g->n_deep_wildcard_vhosts > 0 && d < end &&
		       (d = memchr(d, '.', (size_t)(end - d))) != NULL && ++d < end) {
			vh = find_exact(g, d, (size_t)(end - d), true);
			if (vh != NULL && vh->wild_deep)
				return vh;
		}
	}
	/* Last, the default vhost "" (rules that match any host, such as a
	 * Skipper RouteGroup without hosts), if there is one. */
	return len > 0 && g->n_default_vhosts > 0 ? find_exact(g, host, 0, false) : NULL;
}

/*
 * Segment-aware prefix: "/foo" matches "/foo", "/foo/" and "/foo/bar" but not
 * "/foobar" (OpenShift's and Contour's rule). A prefix ending in '/' matches
 * anything below it.
 */
static bool
path_prefix_match(const char *prefix, size_t plen, const char *path, size_t len)
{
	if (plen == 1 && prefix[0] == '/')
		return true;
	if (len < plen || memcmp(prefix, path, plen) != 0)
		return false;
	return len == plen || prefix[plen - 1] == '/' || path[plen] == '/' ||
	       path[plen] == '?';
}

const struct sy_rule *
sy_vhost_match_path(const struct sy_vhost *vh, const char *path, size_t len)
{
	size_t plain;
	uint32_t i;
	const char *q = memchr(path, '?', len), *frag;

	/* The query string (and a fragment) is not part of the path a rule
	 * matches. memchr is vectorised; a byte loop was most of the match. */
	plain = q != NULL ? (size_t)(q - path) : len;
	frag = memchr(path, '#', plain);
	if (frag != NULL)
		plain = (size_t)(frag - path);
	for (i = 0; i < vh->n_rules; i++) {
		const struct sy_rule *r = &vh->rules[i];

		if (r->match == SY_PATH_EXACT) {
			if (r->path_len == plain && memcmp(r->path, path, plain) == 0)
				return r;
		} else if (r->match == SY_PATH_STRING_PREFIX) {
			if (r->path_len <= plain && memcmp(r->path, path, r->path_len) == 0)
				return r;
		} else if (path_prefix_match(r->path, r->path_len, path, plain)) {
			return r;
		}
	}
	return NULL;
}

/* The one method table: the data plane matches requests against it, the
 * control thread's kinds, resolve and rule_match.c name bits with it. */
const char *const sy_http_method_names[SY_METHODS] = {
	"GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "CONNECT", "OPTIONS", "TRACE",
};
_Static_assert(SY_METHOD_GET == 1u << 0 && SY_METHOD_HEAD == 1u << 1 && SY_METHOD_POST == 1u << 2 &&
		       SY_METHOD_PUT == 1u << 3 && SY_METHOD_PATCH == 1u << 4 &&
		       SY_METHOD_DELETE == 1u << 5 && SY_METHOD_CONNECT == 1u << 6 &&
		       SY_METHOD_OPTIONS == 1u << 7 && SY_METHOD_TRACE == 1u << 8,
	       "sy_http_method_names: bit i is name i");

uint32_t
sy_http_method_bit(const char *m, size_t len)
{
	unsigned i;

	for (i = 0; i < SY_METHODS; i++)
		if (strlen(sy_http_method_names[i]) == len &&
		    memcmp(sy_http_method_names[i], m, len) == 0)
			return 1u << i;
	return 0;
}
