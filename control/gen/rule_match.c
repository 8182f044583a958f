/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Request matching for resolve. The predicates follow Skipper's (predicates/
 * and routing/matcher.go): Header exact on the value, HeaderRegexp and Cookie
 * unanchored regexps (Go's MatchString), JWTPayloadAllKV/AnyKV compare string
 * claims of the unverified payload of `Authorization: Bearer h.p.s`.
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "gen/rule_match.h"
#include "sy_query.h"

uint32_t
sy_rm_method_bit(const char *m, bool any_case)
{
	unsigned i;

	if (!any_case)
		return sy_http_method_bit(m, strlen(m));
	for (i = 0; i < SY_METHODS; i++)
		if (strcasecmp(m, sy_http_method_names[i]) == 0)
			return 1u << i;
	return 0;
}

/* Same rules as dataplane/gen_lookup.c sy_vhost_match_path, one rule at a time. */
bool
sy_rm_path_matches(const struct sy_rule *r, const char *path)
{
	size_t len = strcspn(path, "?#");

	switch (r->match) {
	case SY_PATH_EXACT:
		return r->path_len == len && memcmp(r->path, path, len) == 0;
	case SY_PATH_STRING_PREFIX:
		return r->path_len <= len && memcmp(r->path, path, r->path_len) == 0;
	case SY_PATH_PREFIX:
	default:
		if (r->path_len == 1 && r->path[0] == '/')
			return true;
		if (len < r->path_len || memcmp(r->path, path, r->path_len) != 0)
			return false;
		return len == r->path_len || r->path[r->path_len - 1] == '/' || path[r->path_len] == '/';
	}
}

const char *
sy_rm_header(const json_t *headers, const char *name)
{
	const char *key;
	json_t *v;

	if (headers == NULL)
		return NULL;
	json_object_foreach((json_t *)headers, key, v)
		if (strcasecmp(key, name) == 0 && json_is_string(v))
			return json_string_value(v);
	return NULL;
}

static bool
re_match(const struct sy_predicate *p, const char *s, size_t len)
{
	pcre2_match_data *md;
	int rc;

	if (p->regex == NULL || s == NULL)
		return false; /* a regex that did not compile matches nothing (compile.c) */
	md = pcre2_match_data_create_from_pattern(p->regex, NULL);
	if (md == NULL)
		return false;
	rc = pcre2_match(p->regex, (PCRE2_SPTR)s, len, 0, 0, md, NULL);
	pcre2_match_data_free(md);
	return rc >= 0;
}

/* Skipper's Cookie(name, regexp): the value of the named cookie (the first
 * one, as net/http's Request.Cookie returns it) matches. */
static bool
cookie_matches(const struct sy_predicate *p, const json_t *headers)
{
	const char *c = sy_rm_header(headers, "Cookie");
	size_t nlen = strlen(p->name);

	while (c != NULL && *c) {
		const char *end = strchr(c, ';');
		size_t len = end ? (size_t)(end - c) : strlen(c);

		while (len > 0 && isspace((unsigned char)*c)) {
			c++;
			len--;
		}
		if (len > nlen && strncmp(c, p->name, nlen) == 0 && c[nlen] == '=') {
			const char *v = c + nlen + 1;
			size_t vlen = len - nlen - 1;

			while (vlen > 0 && isspace((unsigned char)v[vlen - 1]))
				vlen--;
			/* net/http strips one pair of double quotes around a value. */
			if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"') {
				v++;
				vlen -= 2;
			}
			return re_match(p, v, vlen);
		}
		c = end ? end + 1 : NULL;
	}
	return false;
}

static int
b64url_val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '-' || c == '+')
		return 62;
	if (c == '_' || c == '/')
		return 63;
	return -1;
}

/* The JSON payload of a Bearer JWT, not verified (Skipper's JWTPayload*
 * predicates do not verify either: they are for routing, not for auth). */
static json_t *
jwt_payload(const json_t *headers)
{
	const char *auth = sy_rm_header(headers, "Authorization");
	const char *p, *dot1, *dot2;
	unsigned char *buf;
	size_t n = 0, i;
	uint32_t acc = 0;
	int bits = 0;
	json_t *j;

	if (auth == NULL || strncmp(auth, "Bearer ", 7) != 0)
		return NULL;
	p = auth + 7;
	dot1 = strchr(p, '.');
	dot2 = dot1 ? strchr(dot1 + 1, '.') : NULL;
	if (dot1 == NULL || dot2 == NULL || strchr(dot2 + 1, '.') != NULL)
		return NULL;
	buf = malloc((size_t)(dot2 - dot1) + 1);
	if (buf == NULL)
		return NULL;
	for (i = 1; dot1 + i < dot2; i++) {
		int v = b64url_val((unsigned char)dot1[i]);

		if (dot1[i] == '=')
			break;
		if (v < 0) {
			free(buf);
			return NULL;
		}
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			buf[n++] = (unsigned char)(acc >> bits);
		}
	}
	j = json_loadb((const char *)buf, n, 0, NULL);
	free(buf);
	if (!json_is_object(j)) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static bool
jwt_matches(const struct sy_predicate *p, const json_t *headers)
{
	json_t *payload = jwt_payload(headers);
	bool all_ok = true, any_ok = false;
	uint32_t i;

	if (payload == NULL)
		return false;
	for (i = 0; i + 1 < p->n_kv; i += 2) {
		const json_t *claim = json_object_get(payload, p->kv[i]);

		if (json_is_string(claim) && strcmp(json_string_value(claim), p->kv[i + 1]) == 0)
			any_ok = true;
		else
			all_ok = false;
	}
	json_decref(payload);
	return p->type == SY_PRED_JWT_ALL_KV ? all_ok && p->n_kv >= 2 : any_ok;
}

bool
sy_rm_rule_matches(const struct sy_rule *r, const struct sy_rm_request *q)
{
	const char *method = q->method ? q->method : "GET";
	size_t plen = strcspn(q->path, "?#");
	uint32_t i;

	if (r->methods != 0 && (r->methods & sy_rm_method_bit(method, false)) == 0)
		return false;
	for (i = 0; i < r->n_preds; i++) {
		const struct sy_predicate *p = &r->more->preds[i];
		const char *v;
		bool ok;

		switch (p->type) {
		case SY_PRED_HEADER:
			v = sy_rm_header(q->headers, p->name);
			ok = v != NULL && strcmp(v, p->value) == 0;
			break;
		case SY_PRED_HEADER_REGEXP:
			v = sy_rm_header(q->headers, p->name);
			ok = v != NULL && re_match(p, v, strlen(v));
			break;
		case SY_PRED_COOKIE:
			ok = cookie_matches(p, q->headers);
			break;
		case SY_PRED_PATH_REGEXP:
			ok = re_match(p, q->path, plen);
			break;
		case SY_PRED_HOST_REGEXP:
			ok = q->host != NULL && re_match(p, q->host, strlen(q->host));
			break;
		case SY_PRED_JWT_ALL_KV:
		case SY_PRED_JWT_ANY_KV:
			ok = jwt_matches(p, q->headers);
			break;
		case SY_PRED_HEADER_PRESENT:
			ok = sy_rm_header(q->headers, p->name) != NULL;
			break;
		case SY_PRED_HEADER_ABSENT:
			ok = sy_rm_header(q->headers, p->name) == NULL;
			break;
		case SY_PRED_HEADER_NOT_REGEXP:
			v = sy_rm_header(q->headers, p->name);
			ok = v != NULL && p->regex != NULL && !re_match(p, v, strlen(v));
			break;
		case SY_PRED_QUERY:
		case SY_PRED_QUERY_REGEXP: {
			size_t ql;
			const char *qv = sy_query_param(q->path, strlen(q->path), p->name, &ql);

			ok = qv != NULL && (p->type == SY_PRED_QUERY
						    ? p->value != NULL && ql == strlen(p->value) &&
							      memcmp(qv, p->value, ql) == 0
						    : re_match(p, qv, ql));
			break;
		}
		case SY_PRED_TRAFFIC: /* the walk accounts for it */
		case SY_PRED_TRUE:
		default:
			ok = true;
			break;
		}
		if (!ok)
			return false;
	}
	return true;
}

/* The chance a request that satisfies everything else passes r's Traffic
 * predicates (several multiply, as independent dice would). */
static double
traffic_fraction(const struct sy_rule *r)
{
	double f = 1.0;
	uint32_t i;

	for (i = 0; i < r->n_preds; i++)
		if (r->more->preds[i].type == SY_PRED_TRAFFIC)
			f *= r->more->preds[i].fraction < 0   ? 0 :
			     r->more->preds[i].fraction > 1 ? 1 :
							      r->more->preds[i].fraction;
	return f;
}

size_t
sy_rm_match(const struct sy_vhost *vh, const struct sy_rm_request *q, struct sy_rm_hit *hits,
	    size_t max, bool *path_matched)
{
	double left = 1.0;
	size_t n = 0;
	uint32_t i;

	*path_matched = false;
	for (i = 0; i < vh->n_rules && left > 1e-12 && n < max; i++) {
		const struct sy_rule *r = &vh->rules[i];
		double take;

		if (!sy_rm_path_matches(r, q->path))
			continue;
		*path_matched = true;
		if (!sy_rm_rule_matches(r, q))
			continue;
		/* Skipper routes with Traffic(p) see every request that got this
		 * far and keep p of them; the rest go on to the next candidate. */
		take = left * traffic_fraction(r);
		hits[n].rule = r;
		hits[n].share = take;
		n++;
		left -= take;
	}
	return n;
}
