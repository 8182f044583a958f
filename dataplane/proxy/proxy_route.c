/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Routing one request of a proxied connection (every request on its own):
 * the vhost by Host, then the first of its rules (most specific first, as
 * the compiler ordered them) whose path, methods and predicates all hold,
 * then an endpoint of its pool. Predicates read the head in place.
 * Skipper's semantics (PEER-SEMANTICS.md, control/gen/rule_match.c for resolve):
 * Header exact, HeaderRegexp/Cookie/PathRegexp/HostRegexp unanchored,
 * Traffic rolled per request.
 */
#include <string.h>
#include <strings.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <rte_byteorder.h>
#include <rte_per_lcore.h>

#include "lb/lb.h"
#include "proxy/proxy_internal.h"
#include "sy_generation.h"
#include "sy_query.h"
#include "sy_redirect.h"
#include "tls/tls_client_cert.h"
#include "worker.h"

/* One match-data block per lcore, made once (the data path does not
 * allocate): ovector room for the groups we never read. */
static RTE_DEFINE_PER_LCORE(pcre2_match_data *, px_md);

static bool
re_match(const struct sy_predicate *p, const uint8_t *s, size_t len)
{
	pcre2_match_data *md = RTE_PER_LCORE(px_md);

	if (p->regex == NULL)
		return false;
	if (md == NULL) {
		/* First use on this lcore (at most once per worker). */
		md = pcre2_match_data_create(4, NULL);
		if (md == NULL)
			return false;
		RTE_PER_LCORE(px_md) = md;
	}
	return pcre2_match(p->regex, (PCRE2_SPTR)s, len, 0, 0, md, NULL) >= 0;
}

const uint8_t *
px_header_value(const uint8_t *head, uint32_t head_len, const char *name, uint32_t *vlen)
{
	size_t nlen = strlen(name);
	uint32_t i = 0;

	/* Skip the request line. */
	while (i + 1 < head_len && !(head[i] == '\r' && head[i + 1] == '\n'))
		i++;
	i += 2;
	while (i + 1 < head_len && !(head[i] == '\r' && head[i + 1] == '\n')) {
		uint32_t eol = i, v;

		while (eol + 1 < head_len && !(head[eol] == '\r' && head[eol + 1] == '\n'))
			eol++;
		if (eol - i > nlen && head[i + nlen] == ':' &&
		    strncasecmp((const char *)head + i, name, nlen) == 0) {
			uint32_t ve = eol;

			for (v = i + (uint32_t)nlen + 1; v < eol && (head[v] == ' ' || head[v] == '\t'); v++)
				;
			while (ve > v && (head[ve - 1] == ' ' || head[ve - 1] == '\t'))
				ve--;
			*vlen = ve - v;
			return head + v;
		}
		i = eol + 2;
	}
	return NULL;
}

static bool
cookie_matches(const struct sy_predicate *p, const uint8_t *head, uint32_t head_len)
{
	uint32_t len, nlen = (uint32_t)strlen(p->name);
	const uint8_t *c = px_header_value(head, head_len, "Cookie", &len), *end;

	if (c == NULL)
		return false;
	end = c + len;
	while (c < end) {
		const uint8_t *semi = memchr(c, ';', (size_t)(end - c));
		const uint8_t *stop = semi ? semi : end;

		while (c < stop && (*c == ' ' || *c == '\t'))
			c++;
		if ((uint32_t)(stop - c) > nlen && memcmp(c, p->name, nlen) == 0 && c[nlen] == '=') {
			const uint8_t *v = c + nlen + 1;
			size_t vlen = (size_t)(stop - v);

			if (vlen >= 2 && v[0] == '"' && v[vlen - 1] == '"') {
				v++;
				vlen -= 2;
			}
			return re_match(p, v, vlen);
		}
		c = stop + 1;
	}
	return false;
}

/* The sticky-session cookie `name` of the request: 16 hex digits. */
static bool
sticky_token(const char *name, const uint8_t *head, uint32_t head_len, uint64_t *tok)
{
	uint32_t len, nlen = (uint32_t)strlen(name);
	const uint8_t *c = px_header_value(head, head_len, "Cookie", &len), *end;

	if (c == NULL)
		return false;
	end = c + len;
	while (c < end) {
		const uint8_t *semi = memchr(c, ';', (size_t)(end - c));
		const uint8_t *stop = semi ? semi : end;

		while (c < stop && (*c == ' ' || *c == '\t'))
			c++;
		if ((uint32_t)(stop - c) == nlen + 17 && memcmp(c, name, nlen) == 0 &&
		    c[nlen] == '=') {
			uint64_t v = 0;
			unsigned k;

			for (k = 0; k < 16; k++) {
				uint8_t d = c[nlen + 1 + k];

				if (d >= '0' && d <= '9')
					v = v << 4 | (uint64_t)(d - '0');
				else if (d >= 'a' && d <= 'f')
					v = v << 4 | (uint64_t)(d - 'a' + 10);
				else
					return false;
			}
			*tok = v;
			return true;
		}
		c = stop + 1;
	}
	return false;
}

static bool
pred_holds(struct sy_worker *w, const struct sy_predicate *p, const struct sy_px_req *req,
	   const uint8_t *head)
{
	uint32_t len;
	const uint8_t *v;

	switch (p->type) {
	case SY_PRED_HEADER:
		v = px_header_value(head, req->h.head_len, p->name, &len);
		return v != NULL && p->value != NULL && len == strlen(p->value) &&
		       memcmp(v, p->value, len) == 0;
	case SY_PRED_HEADER_REGEXP:
		v = px_header_value(head, req->h.head_len, p->name, &len);
		return v != NULL && re_match(p, v, len);
	case SY_PRED_COOKIE:
		return cookie_matches(p, head, req->h.head_len);
	case SY_PRED_PATH_REGEXP:
		return re_match(p, (const uint8_t *)req->h.path, req->h.path_len);
	case SY_PRED_HOST_REGEXP:
		return re_match(p, (const uint8_t *)req->h.host, req->h.host_len);
	case SY_PRED_TRAFFIC: {
		/* Rolled per request (Skipper's Traffic without a cookie). */
		uint64_t x = w->tcp.rng;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		w->tcp.rng = x;
		return (double)(x >> 11) / (double)(1ull << 53) < p->fraction;
	}
	case SY_PRED_TRUE:
		return true;
	case SY_PRED_HEADER_PRESENT:
		return px_header_value(head, req->h.head_len, p->name, &len) != NULL;
	case SY_PRED_HEADER_ABSENT:
		return px_header_value(head, req->h.head_len, p->name, &len) == NULL;
	case SY_PRED_HEADER_NOT_REGEXP:
		v = px_header_value(head, req->h.head_len, p->name, &len);
		return v != NULL && p->regex != NULL && !re_match(p, v, len);
	case SY_PRED_QUERY: {
		size_t ql;
		const char *qv = sy_query_param(req->h.path, req->h.path_len, p->name, &ql);

		return qv != NULL && p->value != NULL && ql == strlen(p->value) &&
		       memcmp(qv, p->value, ql) == 0;
	}
	case SY_PRED_QUERY_REGEXP: {
		size_t ql;
		const char *qv = sy_query_param(req->h.path, req->h.path_len, p->name, &ql);

		return qv != NULL && re_match(p, (const uint8_t *)qv, ql);
	}
	default:
		/* JWT payload predicates are resolve-only for now
		 * (docs/operations.md, "Limits today"): they never match on
		 * the data path. */
		return false;
	}
}

/* Same path rules as sy_vhost_match_path (gen_lookup.c), one rule. */
static bool
path_matches(const struct sy_rule *r, const char *path, size_t len)
{
	const char *q = memchr(path, '?', len), *frag;
	size_t plain = q != NULL ? (size_t)(q - path) : len;

	frag = memchr(path, '#', plain);
	if (frag != NULL)
		plain = (size_t)(frag - path);
	switch (r->match) {
	case SY_PATH_EXACT:
		return r->path_len == plain && memcmp(r->path, path, plain) == 0;
	case SY_PATH_STRING_PREFIX:
		return r->path_len <= plain && memcmp(r->path, path, r->path_len) == 0;
	default:
		if (r->path_len == 1 && r->path[0] == '/')
			return true;
		if (plain < r->path_len || memcmp(r->path, path, r->path_len) != 0)
			return false;
		return plain == r->path_len || r->path[r->path_len - 1] == '/' ||
		       path[r->path_len] == '/';
	}
}

static void
answer(struct px_target *out, uint16_t status, enum sy_answer_reason why)
{
	out->status = status;
	out->why = why;
}

/* Endpoints a and b of a pool are reached the same way: the same protocol,
 * both in the clear or both over TLS, and, for https:// URLs, their
 * certificates checked for the same name. (Re-encrypt routes and
 * upstream-protocol.tls Services have one context and name for all.) */
static bool
same_way(const struct sy_pool *p, int a, int b)
{
	const struct sy_endpoint *ea = &p->endpoints[a], *eb = &p->endpoints[b];
	const char *na, *nb;

	if (p->services[ea->service].proto != p->services[eb->service].proto || ea->tls != eb->tls)
		return false;
	if (!ea->tls)
		return true;
	na = p->tls_names != NULL ? p->tls_names[a] : NULL;
	nb = p->tls_names != NULL ? p->tls_names[b] : NULL;
	return na == nb || (na != NULL && nb != NULL && strcmp(na, nb) == 0);
}

/* Where the request goes if endpoint ep refuses it (or drops it
 * unanswered; proxy_http.c, px_retry): the strategy's retry, the next
 * endpoint with weight that is not down, when it is reached the same way,
 * since the request goes again over a leg opened like the first one
 * (px_replay). */
static void
route_alt(struct sy_worker *w, const struct sy_pool *p, uint32_t client_ip, int ep,
	  struct px_target *out)
{
	uint16_t f = (uint16_t)ep;
	int alt = sy_lb_pick(p, w, client_ip, &f, 1);

	if (alt < 0 || alt == ep || !same_way(p, ep, alt))
		return;
	out->alt_ip = p->endpoints[alt].addr;
	out->alt_port = rte_cpu_to_be_16(p->endpoints[alt].port);
	out->alt_slot = p->endpoints[alt].stat_slot;
}

void
px_route(struct sy_worker *w, const struct sy_px_req *req, const uint8_t *head,
	 const struct sy_addr *client, const struct sy_tls_conn *tls, struct px_target *out)
{
	uint32_t client_ip = sy_addr_key32(client);
	const struct sy_generation *g = w->gen;
	const struct sy_vhost *vh;
	const struct sy_rule *rule = NULL;
	uint32_t method = sy_http_method_bit(req->h.method, req->h.method_len), i, k;
	uint16_t first = 0;
	int ep;

	memset(out, 0, sizeof(*out));
	if (tls != NULL && tls->client_cert == SY_TLS_CLIENT_CERT_REFUSED) {
		/* tls.client_certificates.allowed_subject_patterns: every
		 * request of the connection, whatever its route (the OpenShift
		 * router's frontend-wide `http-request deny`). */
		answer(out, 403, SY_ANSWER_CLIENT_CERT_NOT_ALLOWED);
		return;
	}
	if (g == NULL) {
		answer(out, 503, SY_ANSWER_NO_ROUTE);
		return;
	}
	vh = req->h.host_len ? sy_gen_find_vhost(g, req->h.host, req->h.host_len) : NULL;
	if (vh == NULL) {
		answer(out, g->no_route_status, SY_ANSWER_NO_ROUTE);
		return;
	}
	if (tls != NULL) {
		/* Terminated here: only vhosts terminated here are served
		 * (plain-HTTP routes are not on 443, passthrough ones are
		 * never decrypted). A Host that names another vhost than the
		 * SNI did is served when this connection is what its vhost
		 * would have negotiated and its certificate names the host
		 * (browsers reuse connections so); otherwise 421 (RFC 9110
		 * 15.5.20), and the client connects again with that name. */
		if (vh->tls != SY_TLS_EDGE && vh->tls != SY_TLS_REENCRYPT) {
			answer(out, g->no_route_status, SY_ANSWER_NO_ROUTE);
			return;
		}
		if (!sy_tls_conn_serves(tls, g, vh, req->h.host,
					sy_host_normalize_len(req->h.host, req->h.host_len))) {
			answer(out, 421, SY_ANSWER_MISDIRECTED);
			return;
		}
	}
	for (i = 0; i < vh->n_rules && rule == NULL; i++) {
		const struct sy_rule *r = &vh->rules[i];

		if (!path_matches(r, req->h.path, req->h.path_len))
			continue;
		if (r->methods != 0 && !(r->methods & method))
			continue;
		for (k = 0; k < r->n_preds; k++)
			if (!pred_holds(w, &r->more->preds[k], req, head))
				break;
		if (k == r->n_preds)
			rule = r;
	}
	if (tls == NULL && vh->tls != SY_TLS_NONE &&
	    (rule != NULL ? rule->insecure : vh->insecure) != SY_INSECURE_ALLOW) {
		/* Plain HTTP to a TLS vhost: the matched rule's policy
		 * (OpenShift's insecureEdgeTerminationPolicy, Contour's
		 * permitInsecure, which is per route). */
		if ((rule != NULL ? rule->insecure : vh->insecure) == SY_INSECURE_REDIRECT &&
		    vh->tls != SY_TLS_PASSTHROUGH) {
			size_t hl = sy_host_normalize_len(req->h.host, req->h.host_len);

			memset(out, 0, sizeof(*out));
			answer(out, vh->insecure_status ? vh->insecure_status : 302,
			       SY_ANSWER_INSECURE_REDIRECT);
			snprintf(out->location, sizeof(out->location), "https://%.*s%.*s", (int)hl,
				 req->h.host, (int)RTE_MIN((size_t)req->h.path_len, (size_t)120),
				 req->h.path);
			return;
		}
		answer(out, 503, SY_ANSWER_INSECURE_NOT_SERVED);
		return;
	}
	if (rule == NULL) {
		answer(out, g->no_route_status, SY_ANSWER_NO_ROUTE);
		return;
	}
	out->rule = rule;
	if (sy_rule_allow(rule) != NULL && !sy_source_allowed(sy_rule_allow(rule), client)) {
		/* The route's ip_allowlist, before any backend is chosen. */
		answer(out, 403, SY_ANSWER_SOURCE_NOT_ALLOWED);
		return;
	}
	if (rule->n_filters > 0 &&
	    px_filter_ratelimited(w, rule, head, req->h.head_len, client_ip, out))
		return;
	for (k = 0; k < rule->n_filters; k++) {
		if (rule->more->filters[k].type == SY_FILTER_LOOPBACK)
			out->loopback = true;
		if (rule->more->filters[k].type == SY_FILTER_OTHER) {
			/* A filter this router does not apply (loopback, and
			 * Skipper's others): refusing beats serving a request
			 * the route says must be changed (docs/operations.md, "Limits today"). */
			answer(out, 503, SY_ANSWER_NEEDS_PROXY);
			return;
		}
	}
	if (out->loopback)
		return; /* proxy_http.c routes the filtered request again */
	if (rule->action != SY_ACTION_BACKEND) {
		answer(out, rule->status ? rule->status : 404, SY_ANSWER_RULE_ANSWER);
		if (sy_location_is_template(sy_rule_location(rule))) {
			/* The request's host and path (after the rule's
			 * prefix replacement) in it (sy_redirect.h). */
			char path[SY_PEEK_PATH_MAX + 1];
			uint32_t qat, plen = px_filter_path(rule, req->h.path, req->h.path_len,
							    path, sizeof(path), &qat);

			if (plen == 0 ||
			    sy_location_expand(sy_rule_location(rule), req->h.host,
					       sy_host_normalize_len(req->h.host, req->h.host_len),
					       path, plen, req->h.path + qat, req->h.path_len - qat,
					       out->location, sizeof(out->location)) == 0) {
				answer(out, 414, SY_ANSWER_RULE_ANSWER);
				out->location[0] = '\0';
			}
		} else {
			snprintf(out->location, sizeof(out->location), "%s",
				 sy_rule_location(rule) ? sy_rule_location(rule) : "");
		}
		snprintf(out->body, sizeof(out->body), "%s",
			 rule->action == SY_ACTION_STATIC && sy_rule_body(rule) ? sy_rule_body(rule) : "");
		out->rule_body = rule->action == SY_ACTION_STATIC && sy_rule_body(rule) != NULL;
		return;
	}
	ep = -1;
	if (sy_rule_sticky_cookie(rule) != NULL) {
		uint64_t tok;

		if (sticky_token(sy_rule_sticky_cookie(rule), head, req->h.head_len, &tok))
			ep = sy_lb_cookie_find(rule->pool, w, tok);
	}
	if (ep < 0) {
		ep = sy_lb_pick(rule->pool, w, client_ip, &first, 0);
		if (ep >= 0 && sy_rule_sticky_cookie(rule) != NULL) {
			out->set_cookie = sy_rule_sticky_cookie(rule);
			out->cookie_tok = sy_lb_cookie_token(&rule->pool->endpoints[ep]);
		}
	}
	if (ep < 0) {
		answer(out, 503, rule->pool->needs_proxy ? SY_ANSWER_NEEDS_PROXY : SY_ANSWER_NO_ENDPOINT);
		return;
	}
	out->ip = rule->pool->endpoints[ep].addr;
	out->port = rte_cpu_to_be_16(rule->pool->endpoints[ep].port);
	out->be_slot = rule->pool->endpoints[ep].stat_slot;
	out->proto = rule->pool->services[rule->pool->endpoints[ep].service].proto;
	route_alt(w, rule->pool, client_ip, ep, out);
	if (out->proto == SY_BE_H2 || out->proto == SY_BE_TLS) {
		/* A Service port annotated upstream-protocol.h2 or .tls: TLS
		 * to its endpoints, their certificates not checked (as
		 * Contour, unless told to). */
		if (rule->pool->svc_tls_ctx == NULL) {
			answer(out, 503, SY_ANSWER_BACKEND_TLS);
			return;
		}
		out->tls_ctx = rule->pool->svc_tls_ctx;
		return;
	}
	if (rule->pool->endpoints[ep].tls) {
		/* An https:// URL: TLS to it, its certificate checked for the
		 * URL's host. Never in the clear when that cannot be had. */
		if (rule->pool->tls_ctx == NULL) {
			answer(out, 503, SY_ANSWER_BACKEND_TLS);
			return;
		}
		out->tls_ctx = rule->pool->tls_ctx;
		out->tls_name = rule->pool->tls_names ? rule->pool->tls_names[ep] : NULL;
		out->proto = SY_BE_H2; /* by ALPN, if the backend offers it */
		return;
	}
	if (vh->tls == SY_TLS_REENCRYPT) {
		if (vh->term == NULL || vh->term->backend_ctx == NULL) {
			answer(out, 503, SY_ANSWER_BACKEND_TLS);
			return;
		}
		out->tls_ctx = vh->term->backend_ctx;
		out->tls_name = vh->term->backend_name;
		out->proto = SY_BE_H2; /* by ALPN, if the backend offers it */
	}
}
