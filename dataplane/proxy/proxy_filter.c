/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Skipper's filters, applied per request by the proxy (the compiler parsed
 * their arguments: sy_filter in sy_generation.h), and a route's HSTS
 * header (the OpenShift annotation hsts_header: sy_rule_more). Request side: setPath,
 * modPath, setRequestHeader rewrite the head sent to the backend;
 * ratelimit and clientRatelimit answer 429 past their rate. Response side:
 * setResponseHeader, responseCookie and status() over a backend's answer
 * change the response head on its way to the client. redirectTo, status
 * with inlineContent, and shunt are the rule's own answer (the compiler made
 * them REDIRECT/STATIC actions); they never get here.
 *
 * The response's changes are copied out of the generation when the request
 * is routed (px->resp_*): a new generation may replace the rule before the
 * backend answers.
 *
 * Rate limits are token buckets kept by each worker, not shared: with N
 * workers a client whose connections spread over them gets up to N times
 * the rate (docs/operations.md, "Limits today"). A bucket is a slot of a direct-mapped
 * table (SY_PX_BUCKETS) keyed by the filter and, for clientRatelimit, the
 * client; a key that takes a slot over starts full.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <rte_per_lcore.h>

#include "proxy/proxy_internal.h"
#include "sy_generation.h"
#include "sy_mix.h"
#include "sy_redirect.h"
#include "tcp/tcp.h"
#include "worker.h"

static RTE_DEFINE_PER_LCORE(pcre2_match_data *, pxf_md);

/* ------------------------------------------------------------ limits -- */

/* The client a clientRatelimit counts: the named header's value when the
 * filter names one (Skipper: "Authorization"), else the source address. */
static uint64_t
client_key(const struct sy_filter *f, const uint8_t *head, uint32_t head_len, uint32_t client_ip)
{
	uint32_t len;
	const uint8_t *v;
	uint64_t h = 0xcbf29ce484222325ull;

	if (f->s[2] == NULL || (v = px_header_value(head, head_len, f->s[2], &len)) == NULL)
		return sy_mix64(client_ip ^ 0x9e3779b97f4a7c15ull);
	while (len--) {
		h ^= *v++;
		h *= 0x100000001b3ull;
	}
	return h;
}

/* One request against filter f's bucket: true when it may go. */
static bool
bucket_take(struct sy_worker *w, const struct sy_filter *f, uint64_t client)
{
	uint64_t key = sy_mix64(f->key ^ client) | 1; /* 0 marks an empty slot */
	struct px_bucket *b = &w->tcp.buckets[key & (SY_PX_BUCKETS - 1)];
	uint64_t now = w->now / w->sh->tsc_per_ms;
	double rate = f->n[0] / (double)f->period_ms; /* tokens per ms */

	if (b->key != key) {
		b->key = key;
		b->tokens = f->n[0];
		b->last_ms = now;
	}
	b->tokens += (double)(now - b->last_ms) * rate;
	if (b->tokens > f->n[0])
		b->tokens = f->n[0];
	b->last_ms = now;
	if (b->tokens < 1.0)
		return false;
	b->tokens -= 1.0;
	return true;
}

bool
px_filter_ratelimited(struct sy_worker *w, const struct sy_rule *rule, const uint8_t *head,
		      uint32_t head_len, uint32_t client_ip, struct px_target *tg)
{
	uint16_t i;

	for (i = 0; i < rule->n_filters; i++) {
		const struct sy_filter *f = &rule->more->filters[i];
		uint64_t client = 0;

		if (f->type != SY_FILTER_RATELIMIT && f->type != SY_FILTER_CLIENT_RATELIMIT)
			continue;
		if (f->n[0] < 1 || f->period_ms == 0)
			continue;
		if (f->type == SY_FILTER_CLIENT_RATELIMIT)
			client = client_key(f, head, head_len, client_ip);
		if (bucket_take(w, f, client))
			continue;
		tg->status = 429;
		tg->why = SY_ANSWER_RATE_LIMITED;
		/* Retry-After: when the next token is there (Skipper says
		 * so in whole seconds too). */
		tg->retry_after_s = (uint32_t)((double)f->period_ms / f->n[0] / 1000.0) + 1;
		return true;
	}
	return false;
}

/* ----------------------------------------------------------- requests -- */

bool
px_filter_rewrites_request(const struct sy_rule *rule, const struct sy_px_req *req)
{
	uint16_t i;

	if (rule->fwd_policy == SY_FWD_REPLACE && req->has_forwarded)
		return true; /* the client's forwarded headers go */
	for (i = 0; i < rule->n_filters; i++)
		switch (rule->more->filters[i].type) {
		case SY_FILTER_SET_PATH:
		case SY_FILTER_MOD_PATH:
		case SY_FILTER_SET_REQUEST_HEADER:
		case SY_FILTER_DELETE_REQUEST_HEADER:
		case SY_FILTER_APPEND_REQUEST_HEADER:
		case SY_FILTER_REPLACE_PATH_PREFIX:
			return true;
		default:
			break;
		}
	return false;
}

/* Append len bytes at *at, within room; false when they do not fit. */
static bool
put(uint8_t *out, uint32_t room, uint32_t *at, const void *p, size_t len)
{
	if (*at + len > room)
		return false;
	memcpy(out + *at, p, len);
	*at += (uint32_t)len;
	return true;
}

/* Is the header line at line (name: value) one of the names the rule's
 * setRequestHeader filters set or its Delete actions delete? Those go; the
 * set ones' lines replace them. */
static bool
request_header_replaced(const struct sy_rule *rule, const uint8_t *line, uint32_t len)
{
	uint16_t i;

	if (rule->fwd_policy == SY_FWD_REPLACE &&
	    ((len > 16 && strncasecmp((const char *)line, "X-Forwarded-", 12) == 0) ||
	     (len > 10 && strncasecmp((const char *)line, "Forwarded:", 10) == 0)))
		return true;
	for (i = 0; i < rule->n_filters; i++) {
		const struct sy_filter *f = &rule->more->filters[i];
		size_t n;

		if ((f->type != SY_FILTER_SET_REQUEST_HEADER &&
		     f->type != SY_FILTER_DELETE_REQUEST_HEADER) ||
		    f->s[0] == NULL)
			continue;
		n = strlen(f->s[0]);
		if (len > n && line[n] == ':' && strncasecmp((const char *)line, f->s[0], n) == 0)
			return true;
	}
	return false;
}

/*
 * The path the backend gets: setPath replaces it, modPath replaces every
 * match of its regex (Go's ReplaceAllString, $1 for groups: PCRE2's
 * substitute takes the same), in the rule's order. The query stays.
 * Returns the path's length in buf, 0 when it would not fit.
 */
uint32_t
px_filter_path(const struct sy_rule *rule, const char *target, uint32_t target_len, char *buf,
	       uint32_t room, uint32_t *query_at)
{
	const char *q = memchr(target, '?', target_len);
	uint32_t plen = q ? (uint32_t)(q - target) : target_len, i;
	char tmp[SY_PEEK_PATH_MAX + 1];

	if (plen >= room)
		return 0;
	memcpy(buf, target, plen);
	buf[plen] = '\0';
	for (i = 0; i < rule->n_filters; i++) {
		const struct sy_filter *f = &rule->more->filters[i];

		if (f->type == SY_FILTER_SET_PATH && f->s[0] != NULL) {
			size_t n = strlen(f->s[0]);

			if (n >= room)
				return 0;
			memcpy(buf, f->s[0], n + 1);
			plen = (uint32_t)n;
		} else if (f->type == SY_FILTER_REPLACE_PATH_PREFIX && f->s[0] != NULL &&
			   f->s[1] != NULL) {
			if ((plen = sy_path_replace_prefix(f->s[0], f->s[1], buf, plen, tmp,
							   sizeof(tmp))) == 0 ||
			    plen >= room)
				return 0;
			memcpy(buf, tmp, plen + 1);
		} else if (f->type == SY_FILTER_MOD_PATH && f->regex != NULL && f->s[1] != NULL) {
			pcre2_match_data *md = RTE_PER_LCORE(pxf_md);
			PCRE2_SIZE outlen = sizeof(tmp);
			int rc;

			if (md == NULL) {
				md = pcre2_match_data_create(10, NULL); /* once per lcore */
				if (md == NULL)
					return 0;
				RTE_PER_LCORE(pxf_md) = md;
			}
			rc = pcre2_substitute(f->regex, (PCRE2_SPTR)buf, plen, 0,
					      PCRE2_SUBSTITUTE_GLOBAL, md,
					      NULL, (PCRE2_SPTR)f->s[1], PCRE2_ZERO_TERMINATED,
					      (PCRE2_UCHAR *)tmp, &outlen);
			if (rc > 0) {
				if (outlen >= room)
					return 0;
				memcpy(buf, tmp, outlen + 1);
				plen = (uint32_t)outlen;
			}
		}
	}
	*query_at = q ? (uint32_t)(q - target) : target_len;
	return plen;
}

uint32_t
px_filter_request(const struct sy_rule *rule, const struct sy_px_req *req, const uint8_t *head,
		  uint32_t start, uint8_t *out, uint32_t room)
{
	const uint8_t *p = head + start, *end = head + req->h.head_len - 2;
	const uint8_t *eol = memchr(p, '\n', (size_t)(end - p));
	char path[SY_PEEK_PATH_MAX + 1];
	uint32_t at = 0, plen, qat, i;
	static const char *const versions[] = { " HTTP/1.0\r\n", " HTTP/1.1\r\n" };

	if (eol == NULL)
		return 0;
	/* The request line, origin-form: the Host header says the rest. */
	plen = px_filter_path(rule, req->h.path, req->h.path_len, path, sizeof(path), &qat);
	if (plen == 0 || !put(out, room, &at, req->h.method, req->h.method_len) ||
	    !put(out, room, &at, " ", 1) || !put(out, room, &at, path, plen) ||
	    !put(out, room, &at, req->h.path + qat, req->h.path_len - qat) ||
	    !put(out, room, &at, versions[req->h.version_minor ? 1 : 0], 11))
		return 0;
	/* The headers, but those a setRequestHeader replaces. */
	for (p = eol + 1; p < end;) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p) + 1);
		uint32_t len = nl ? (uint32_t)(nl - p + 1) : (uint32_t)(end - p);

		if (!request_header_replaced(rule, p, len) && !put(out, room, &at, p, len))
			return 0;
		p += len;
	}
	/* Then the set lines and the appended ones, in the rule's order. */
	for (i = 0; i < rule->n_filters; i++) {
		const struct sy_filter *f = &rule->more->filters[i];

		if ((f->type != SY_FILTER_SET_REQUEST_HEADER &&
		     f->type != SY_FILTER_APPEND_REQUEST_HEADER) ||
		    f->s[0] == NULL)
			continue;
		if (!put(out, room, &at, f->s[0], strlen(f->s[0])) || !put(out, room, &at, ": ", 2) ||
		    !put(out, room, &at, f->s[1] ? f->s[1] : "", f->s[1] ? strlen(f->s[1]) : 0) ||
		    !put(out, room, &at, "\r\n", 2))
			return 0;
	}
	return at;
}

/* ---------------------------------------------------------- responses -- */

/* Does the backend's header line (name: value) have the name of one of the
 * first resp_n_set lines of resp_extra, or of a header the route deletes? */
static bool
response_header_replaced(const struct sy_proxy *px, const uint8_t *line, uint32_t len)
{
	const char *e = px->resp_extra;
	unsigned k;

	for (k = 0; k < px->resp_n_set; k++) {
		const char *colon = strchr(e, ':');
		size_t n = (size_t)(colon - e);

		if (len > n && line[n] == ':' && strncasecmp((const char *)line, e, n) == 0)
			return true;
		e = strchr(e, '\n') + 1;
	}
	for (e = px->resp_del; e < px->resp_del + px->resp_del_len;) {
		const char *nl = memchr(e, '\n', (size_t)(px->resp_del + px->resp_del_len - e));
		size_t n = (size_t)(nl - e);

		if (len > n && line[n] == ':' && strncasecmp((const char *)line, e, n) == 0)
			return true;
		e = nl + 1;
	}
	return false;
}

/* One rule's response filters of one pass (0: setResponseHeader, 1:
 * appended headers, responseCookie and status) appended to resp_extra at
 * *at. The appended lines come after the first resp_n_set, so they replace
 * nothing of the backend's. */
static void
rule_response_lines(struct sy_proxy *px, const struct sy_rule *rule, int pass, uint32_t *at)
{
	uint16_t i;

	if (pass == 0 && px->tls != NULL && rule->more != NULL && rule->more->hsts != NULL) {
		/* The route's hsts_header: over TLS only (RFC 6797 7.2), in
		 * place of the backend's own, as the OpenShift router's
		 * `http-response set-header` does. */
		static const char name[] = "Strict-Transport-Security:";
		size_t room = sizeof(px->resp_extra) - *at;
		int n;

		if (!response_header_replaced(px, (const uint8_t *)name, sizeof(name) - 1)) {
			n = snprintf(px->resp_extra + *at, room, "Strict-Transport-Security: %s\r\n",
				     rule->more->hsts);
			if (n > 0 && (size_t)n < room) {
				*at += (uint32_t)n;
				px->resp_n_set++;
			}
		}
	}

	for (i = 0; i < rule->n_filters; i++) {
		const struct sy_filter *f = &rule->more->filters[i];
		size_t room = sizeof(px->resp_extra) - *at;
		int n = 0;

		if (pass == 0 && f->type == SY_FILTER_DELETE_RESPONSE_HEADER && f->s[0] != NULL) {
			size_t k = strlen(f->s[0]);

			if (px->resp_del_len + k + 1 <= sizeof(px->resp_del)) {
				memcpy(px->resp_del + px->resp_del_len, f->s[0], k);
				px->resp_del[px->resp_del_len + k] = '\n';
				px->resp_del_len = (uint16_t)(px->resp_del_len + k + 1);
			}
			continue;
		}
		if (pass == 0 && f->type == SY_FILTER_SET_RESPONSE_HEADER && f->s[0] != NULL) {
			char name[128];
			int k = snprintf(name, sizeof(name), "%s:", f->s[0]);

			if (k > 0 && response_header_replaced(px, (const uint8_t *)name, (uint32_t)k))
				continue; /* an outer route of the chain set it */
			n = snprintf(px->resp_extra + *at, room, "%s: %s\r\n", f->s[0],
				     f->s[1] ? f->s[1] : "");
			if (n > 0 && (size_t)n < room)
				px->resp_n_set++;
		} else if (pass == 1 && f->type == SY_FILTER_APPEND_RESPONSE_HEADER &&
			   f->s[0] != NULL) {
			n = snprintf(px->resp_extra + *at, room, "%s: %s\r\n", f->s[0],
				     f->s[1] ? f->s[1] : "");
		} else if (pass == 1 && f->type == SY_FILTER_RESPONSE_COOKIE && f->s[0] != NULL) {
			if (f->n[2] > 0)
				n = snprintf(px->resp_extra + *at, room,
					     "Set-Cookie: %s=%s; Path=/; Max-Age=%.0f\r\n", f->s[0],
					     f->s[1] ? f->s[1] : "", f->n[2]);
			else
				n = snprintf(px->resp_extra + *at, room, "Set-Cookie: %s=%s; Path=/\r\n",
					     f->s[0], f->s[1] ? f->s[1] : "");
		} else if (pass == 1 && f->type == SY_FILTER_STATUS && f->n[0] >= 100 &&
			   f->n[0] < 600) {
			px->resp_status = (uint16_t)f->n[0];
		}
		if (n > 0 && (size_t)n < room)
			*at += (uint32_t)n;
	}
}

/*
 * A loopback chain is Skipper's recursion: the innermost route's response
 * filters run first and each outer route's after them, so an outer
 * setResponseHeader or status() has the last word. Here the replacing
 * lines come first (their names drop the backend's), built outermost first
 * with a name already set not set again; then cookies and status innermost
 * first (an outer status() overrides; cookies in the order Skipper adds
 * them).
 */
void
px_filter_response_prepare(struct sy_proxy *px, const struct sy_rule *const *rules, unsigned nr)
{
	uint32_t at = 0;
	unsigned r;

	px->resp_status = 0;
	px->resp_extra_len = 0;
	px->resp_n_set = 0;
	px->resp_del_len = 0;
	for (r = 0; r < nr; r++)
		if (rules[r] != NULL)
			rule_response_lines(px, rules[r], 0, &at);
	for (r = nr; r-- > 0;)
		if (rules[r] != NULL)
			rule_response_lines(px, rules[r], 1, &at);
	px->resp_extra_len = (uint16_t)at;
}

uint32_t
px_filter_response(const struct sy_proxy *px, const uint8_t *head, uint32_t head_len,
		   uint8_t minor, const char *reason, uint8_t *out, uint32_t room)
{
	const uint8_t *p = memchr(head, '\n', head_len), *end = head + head_len - 2;
	uint32_t at = 0;

	if (p == NULL)
		return 0;
	if (px->resp_status != 0) {
		char line[64];
		int n = snprintf(line, sizeof(line), "HTTP/1.%u %u %s\r\n", minor, px->resp_status,
				 reason);

		if (n < 0 || !put(out, room, &at, line, (size_t)n))
			return 0;
	} else if (!put(out, room, &at, head, (size_t)(p - head + 1))) {
		return 0;
	}
	for (p++; p < end;) {
		const uint8_t *nl = memchr(p, '\n', (size_t)(end - p) + 1);
		uint32_t len = nl ? (uint32_t)(nl - p + 1) : (uint32_t)(end - p);

		if (!response_header_replaced(px, p, len) && !put(out, room, &at, p, len))
			return 0;
		p += len;
	}
	if (!put(out, room, &at, px->resp_extra, px->resp_extra_len) ||
	    !put(out, room, &at, "\r\n", 2))
		return 0;
	return at;
}
