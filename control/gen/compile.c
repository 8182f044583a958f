/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "arena.h"
#include "gen/compile.h"
#include "tls/tls_cert.h"
#include "gen/gen_build.h"
#include "gen/pool.h"
#include "gen/source_allow.h"
#include "kinds/kinds.h"
#include "strmap.h"

int
sy_rule_in_reserve(struct sy_compile_ctx *cx, struct sy_rule_in *r)
{
	r->preds = sy_arena_alloc(cx->scratch, SY_RULE_PREDS_MAX * sizeof(*r->preds));
	r->filters = sy_arena_alloc(cx->scratch, SY_RULE_FILTERS_MAX * sizeof(*r->filters));
	return r->preds != NULL && r->filters != NULL ? 0 : -ENOMEM;
}

int
sy_compile_add_rule(struct sy_compile_ctx *cx, const struct sy_rule_in *r)
{
	if (cx->n_rules == cx->cap) {
		size_t cap = cx->cap ? cx->cap * 2 : 64;
		struct sy_rule_in *grown = realloc(cx->rules, cap * sizeof(*grown));

		if (grown == NULL) {
			free(r->host);
			return -ENOMEM;
		}
		cx->rules = grown;
		cx->cap = cap;
	}
	cx->rules[cx->n_rules] = *r;
	/* A rule that says nothing of forwarded headers gets the config's. */
	if (r->fwd_policy == SY_FWD_DEFAULT)
		cx->rules[cx->n_rules].fwd_policy = cx->opts && cx->opts->cfg && cx->opts->cfg->forwarded_headers ?
							    cx->opts->cfg->forwarded_headers :
							    SY_FWD_APPEND;
	cx->n_rules++;
	return 0;
}

/* Longest path first (OpenShift sorts its map so the longest prefix wins);
 * exact matches before prefixes of the same length; then the kind's own
 * priority (Skipper: more predicates first). */
static int
cmp_rule_path(const void *a, const void *b)
{
	const struct sy_rule_in *x = *(struct sy_rule_in *const *)a;
	const struct sy_rule_in *y = *(struct sy_rule_in *const *)b;
	size_t lx = strlen(x->path), ly = strlen(y->path);

	if (lx != ly)
		return lx > ly ? -1 : 1;
	if (x->match != y->match)
		return x->match == SY_PATH_EXACT ? -1 : 1;
	if (x->priority != y->priority)
		return x->priority > y->priority ? -1 : 1;
	return strcmp(x->path, y->path);
}

static void
free_regex(void *p)
{
	pcre2_code_free(p);
}

/* A Go duration as Skipper's filters take it ("1s", "1m", "1h30m", "500ms"):
 * milliseconds, or 0 when it is not one. */
static uint64_t
duration_ms(const char *d)
{
	double total = 0;

	if (d == NULL || *d == '\0')
		return 0;
	while (*d) {
		char *end;
		double v = strtod(d, &end);

		if (end == d || v < 0)
			return 0;
		d = end;
		if (strncmp(d, "ms", 2) == 0) {
			total += v;
			d += 2;
		} else if (*d == 's') {
			total += v * 1000;
			d++;
		} else if (*d == 'm') {
			total += v * 60000;
			d++;
		} else if (*d == 'h') {
			total += v * 3600000;
			d++;
		} else {
			return 0;
		}
	}
	return (uint64_t)total;
}

int
sy_fwd_policy_parse(const char *s)
{
	if (strcmp(s, "append") == 0)
		return SY_FWD_APPEND;
	if (strcmp(s, "replace") == 0)
		return SY_FWD_REPLACE;
	if (strcmp(s, "never") == 0)
		return SY_FWD_NEVER;
	if (strcmp(s, "if-none") == 0)
		return SY_FWD_IF_NONE;
	return -1;
}

/* FNV-1a over a string, continuing from h. */
static uint64_t
fnv1a(uint64_t h, const char *s)
{
	for (; s != NULL && *s; s++) {
		h ^= (uint8_t)*s;
		h *= 0x100000001b3ull;
	}
	return h;
}

/*
 * Filter i's arguments, parsed once here so a request never reads JSON:
 * texts, numbers, a ratelimit's period, modPath's regex. The kind checked
 * their shape (routegroup_skipper.c); what does not parse stays absent and
 * the data path treats the filter as not applicable.
 */
static int
filter_args(struct sy_arena *a, const struct sy_rule_in *in, unsigned i, struct sy_filter *f)
{
	json_t *args = json_loads(f->args, JSON_DECODE_ANY, NULL);
	size_t k;
	char place[16];

	if (json_is_array(args)) {
		for (k = 0; k < json_array_size(args) && k < 3; k++) {
			json_t *v = json_array_get(args, k);

			if (json_is_string(v)) {
				if ((f->s[k] = sy_arena_strdup(a, json_string_value(v))) == NULL) {
					json_decref(args);
					return -1;
				}
			} else if (json_is_number(v)) {
				f->n[k] = json_number_value(v);
			}
		}
	}
	json_decref(args);
	if (f->type == SY_FILTER_RATELIMIT || f->type == SY_FILTER_CLIENT_RATELIMIT)
		f->period_ms = duration_ms(f->s[1]);
	if (f->type == SY_FILTER_MOD_PATH && f->s[0] != NULL) {
		int err;
		PCRE2_SIZE off;
		pcre2_code *re = pcre2_compile((PCRE2_SPTR)f->s[0], PCRE2_ZERO_TERMINATED, 0, &err,
					       &off, NULL);

		if (re != NULL && sy_arena_on_free(a, free_regex, re) == 0)
			f->regex = re;
	}
	snprintf(place, sizeof(place), "#%u", i);
	f->key = fnv1a(0xcbf29ce484222325ull, in->o ? in->o->kind->kind : "");
	f->key = fnv1a(fnv1a(f->key, in->o ? in->o->ns : ""), in->o ? in->o->name : "");
	f->key = fnv1a(fnv1a(f->key, place), f->name);
	return 0;
}

static int
build_preds(struct sy_arena *a, const struct sy_rule_in *in, struct sy_rule *rule)
{
	unsigned i, j;

	rule->n_preds = in->n_preds;
	if (in->n_preds > 0 &&
	    (rule->more->preds = sy_arena_alloc(a, in->n_preds * sizeof(*rule->more->preds))) == NULL)
		return -1;
	for (i = 0; i < in->n_preds; i++) {
		const struct sy_pred_in *pi = &in->preds[i];
		struct sy_predicate *p = &rule->more->preds[i];

		p->type = pi->type;
		p->name = pi->name ? sy_arena_strdup(a, pi->name) : NULL;
		p->value = pi->value ? sy_arena_strdup(a, pi->value) : NULL;
		p->fraction = pi->fraction;
		if (pi->n_kv > 0) {
			const char **kv = sy_arena_alloc(a, pi->n_kv * sizeof(*kv));

			if (kv == NULL)
				return -1;
			for (j = 0; j < pi->n_kv; j++)
				kv[j] = sy_arena_strdup(a, pi->kv[j]);
			p->kv = kv;
			p->n_kv = pi->n_kv;
		}
		if (sy_pred_is_regex(p->type) &&
		    p->value != NULL) {
			int err;
			PCRE2_SIZE off;
			pcre2_code *re = pcre2_compile((PCRE2_SPTR)p->value, PCRE2_ZERO_TERMINATED, 0,
						       &err, &off, NULL);

			/* The kind validated the regex; one that still fails
			 * matches nothing rather than everything. */
			if (re != NULL && sy_arena_on_free(a, free_regex, re) == 0)
				p->regex = re;
		}
	}
	rule->fwd_policy = in->fwd_policy != SY_FWD_DEFAULT ? in->fwd_policy :
			   SY_FWD_APPEND;
	rule->n_filters = in->n_filters;
	if (in->n_filters > 0 &&
	    (rule->more->filters = sy_arena_alloc(a, in->n_filters * sizeof(*rule->more->filters))) ==
		    NULL)
		return -1;
	for (i = 0; i < in->n_filters; i++) {
		struct sy_filter *f = &rule->more->filters[i];

		f->type = in->filters[i].type;
		f->name = sy_arena_strdup(a, in->filters[i].name ? in->filters[i].name : "");
		f->args = sy_arena_strdup(a, in->filters[i].args ? in->filters[i].args : "[]");
		if (f->name == NULL || f->args == NULL || filter_args(a, in, i, f) < 0)
			return -1;
	}
	return 0;
}

/* A route's edge policies into its rule's block. HSTS only where TLS ends
 * here (RFC 6797 7.2: never over plain HTTP; a passthrough route's
 * responses are the backend's bytes). -1 on out of memory. */
static int
edge_policies(struct sy_arena *a, const struct sy_edge_policy_in *e, const struct sy_vhost *vh,
	      struct sy_rule *rule)
{
	struct sy_rule_more *m = rule->more;

	if (e->allow != NULL && (m->allow = sy_source_allow_build(a, e->allow)) == NULL)
		return -1; /* the kind checked the text: only memory fails here */
	if (e->hsts != NULL && (vh->tls == SY_TLS_EDGE || vh->tls == SY_TLS_REENCRYPT) &&
	    (m->hsts = sy_arena_strdup(a, e->hsts)) == NULL)
		return -1;
	m->server_timeout_ms = e->server_timeout_ms;
	m->tunnel_timeout_ms = e->tunnel_timeout_ms;
	m->conn_max = e->conn_max;
	m->conn_rate_max = e->conn_rate_max;
	m->http_rate_max = e->http_rate_max;
	m->retry_count = e->retry_count;
	m->retry_on = e->retry_on;
	memcpy(m->retry_codes, e->retry_codes, sizeof(m->retry_codes));
	m->per_try_timeout_ms = e->per_try_timeout_ms;
	m->idle_timeout_ms = e->idle_timeout_ms;
	return 0;
}

/* A rule's mirrors, their pools taken (one reference each, the vhost's). */
static int
rule_mirrors(struct sy_arena *a, const struct sy_edge_policy_in *e, const struct sy_pool **mpools,
	     struct sy_rule *rule)
{
	struct sy_mirror *m = sy_arena_alloc(a, e->n_mirrors * sizeof(*m));
	unsigned k;

	if (m == NULL)
		return -1;
	for (k = 0; k < e->n_mirrors; k++) {
		m[k].pool = mpools[k];
		m[k].per_10k = e->mirror_per_10k[k];
	}
	rule->more->mirrors = m;
	rule->more->n_mirrors = (uint8_t)e->n_mirrors;
	return 0;
}

/* The pools of rule r's mirrors into out (SY_RULE_MIRRORS_MAX of them,
 * NULL past its own): each its backend alone, as a rule with that one
 * backend would have it, without the rule's strategy, health checks or
 * connection bound (they are about its own backends). -1 on out of
 * memory, those taken left in out for the caller to give back. */
static int
mirror_pools(struct sy_pool_cache *pc, struct sy_store *st, const struct sy_rule_in *r,
	     const struct sy_pool **out)
{
	struct sy_rule_in *m;
	unsigned k;
	int rc = 0;

	if (r->edge == NULL || r->edge->n_mirrors == 0)
		return 0;
	if ((m = malloc(sizeof(*m))) == NULL)
		return -1;
	*m = *r;
	m->edge = NULL;
	memset(&m->hc, 0, sizeof(m->hc));
	m->strategy = SY_LB_DEFAULT;
	m->sticky_cookie = NULL;
	m->weights = SY_WEIGHTS_PER_SERVICE;
	m->n_backends = 1;
	for (k = 0; k < r->edge->n_mirrors && rc == 0; k++) {
		m->backends[0] = r->edge->mirrors[k];
		m->backends[0].weight = 1;
		m->target_port = m->backends[0].target_port;
		if ((out[k] = sy_pool_get(pc, st, m)) == NULL)
			rc = -1;
	}
	free(m);
	return rc;
}

/*
 * One vhost in arena a: the vhost, its host and rules (rs, sorted), rule i
 * sending to pools[i] (shared, control/gen/pool.c) and mirroring to
 * mpools[i * SY_RULE_MIRRORS_MAX + k]. NULL on out of memory (the
 * caller frees a).
 */
static struct sy_vhost *
build_vhost_in(struct sy_arena *a, const char *host, struct sy_rule_in **rs,
	       const struct sy_pool **pools, const struct sy_pool **mpools, size_t n)
{
	struct sy_vhost *vh = sy_arena_alloc(a, sizeof(*vh));
	size_t i;
	bool plain_paths = true, reachable = true;

	if (vh == NULL)
		goto fail;
	vh->arena = a;
	vh->host = sy_arena_strdup(a, host);
	vh->host_len = (uint32_t)strlen(host);
	vh->hash = sy_host_hash(host, vh->host_len);
	vh->tls = rs[0]->tls;
	/* Plain HTTP enters the vhost when any of its rules allows it; each
	 * rule then says what it does with it (rule->insecure). */
	vh->insecure = rs[0]->insecure;
	for (i = 0; i < n; i++)
		if (rs[i]->insecure == SY_INSECURE_ALLOW)
			vh->insecure = SY_INSECURE_ALLOW;
	vh->insecure_status = rs[0]->insecure_status;
	vh->min_tls_version = rs[0]->min_tls_version;
	vh->wild_deep = host[0] == '*' && rs[0]->wild_deep;
	/* A lookup reads the vhost, its host, the rules' paths and the head of
	 * each rule it tries (path, length, match: sy_rule's first 16 bytes):
	 * laid out in that order right after the vhost, they share as few
	 * cache lines as they can (three for a one-rule vhost, not five). */
	{
		const char *few[16], **paths = n <= 16 ? few : malloc(n * sizeof(*paths));
		bool ok = paths != NULL && vh->host != NULL;

		for (i = 0; ok && i < n; i++)
			ok = (paths[i] = sy_arena_strdup(a, rs[i]->path)) != NULL;
		vh->rules = ok ? sy_arena_alloc(a, n * sizeof(*vh->rules)) : NULL;
		for (i = 0; vh->rules != NULL && i < n; i++) {
			vh->rules[i].path = paths[i];
			vh->rules[i].path_len = (uint32_t)strlen(rs[i]->path);
		}
		if (paths != few)
			free(paths);
		if (vh->rules == NULL)
			goto fail;
	}
	vh->n_rules = (uint32_t)n;
	if (vh->tls == SY_TLS_EDGE || vh->tls == SY_TLS_REENCRYPT || rs[0]->tls_secret != NULL) {
		/* The contexts are taken by build_vhost, in the final block. */
		vh->term = sy_arena_alloc(a, sizeof(*vh->term));
		if (vh->term == NULL)
			goto fail;
		memset(vh->term, 0, sizeof(*vh->term));
		vh->term->secret = rs[0]->tls_secret ? sy_arena_strdup(a, rs[0]->tls_secret) : NULL;
		vh->term->backend_name = vh->tls == SY_TLS_REENCRYPT && rs[0]->backend_verify_name
						 ? sy_arena_strdup(a, rs[0]->backend_verify_name)
						 : NULL;
		vh->term->client_ca = vh->tls == SY_TLS_EDGE && rs[0]->client_ca != NULL;
	}
	for (i = 0; i < n; i++)
		if (rs[i]->n_preds > 0 || rs[i]->methods != 0 || rs[i]->n_filters > 0 ||
		    rs[i]->action != SY_ACTION_BACKEND)
			plain_paths = false;
	/* A route's server, per-try and idle timeouts are answered 504 when
	 * they pass, its rate-http counts every request of a keep-alive
	 * connection, its retry policy reads each response's status and its
	 * mirrors copy each request, which only the proxy mode can; a passthrough route keeps splice (there is
	 * no HTTP to answer in). An allowlist and the connection limits are
	 * checked by either mode. */
	for (i = 0; i < n; i++)
		if (rs[i]->edge != NULL &&
		    (rs[i]->edge->server_timeout_ms != 0 || rs[i]->edge->http_rate_max != 0 ||
		     rs[i]->edge->retry_count != 0 || rs[i]->edge->per_try_timeout_ms != 0 ||
		     rs[i]->edge->idle_timeout_ms != 0 || rs[i]->edge->n_mirrors != 0))
			plain_paths = false;
	for (i = 0; i < n; i++)
		if (pools[i]->needs_proxy || pools[i]->backend_tls)
			reachable = false;
	/* A Service port that speaks h2 or TLS (upstream-protocol
	 * annotations) gets what the client sends converted: the proxy's. A
	 * passthrough route splices the client's TLS whatever they say. */
	for (i = 0; i < n; i++)
		for (uint32_t k = 0; k < pools[i]->n_services; k++)
			if (pools[i]->services[k].proto != SY_BE_HTTP1 && vh->tls != SY_TLS_PASSTHROUGH)
				plain_paths = false;
	/* Contour's Cookie strategy asks for stickiness by cookie, which only
	 * a proxied vhost can set and read. */
	for (i = 0; i < n; i++)
		if (rs[i]->strategy == SY_LB_COOKIE)
			plain_paths = false;
	/* Splice carries a connection to one backend for its life, so only a
	 * vhost whose every request goes where the first goes is spliced: one
	 * rule for "/" without methods, predicates, filters or answers of the
	 * router's own, and no TLS termination. Path rules (a keep-alive client
	 * asks for / then /api), the rest, and URL backends the router does not
	 * serve (https, credentials: each request answered 503 with its reason)
	 * take the proxy mode (proxy/proxy.h), which routes each request. A
	 * host name resolved at compile time is only addresses: spliced. */
	vh->mode = (vh->tls == SY_TLS_NONE || vh->tls == SY_TLS_PASSTHROUGH) && plain_paths &&
			   reachable && (vh->tls == SY_TLS_PASSTHROUGH ||
					 (n == 1 && strcmp(rs[0]->path, "/") == 0))
			   ? SY_MODE_SPLICE
			   : SY_MODE_PROXY;
	vh->bind_by_first_path = false;
	for (i = 0; i < n; i++) {
		struct sy_rule *rule = &vh->rules[i];
		char who[512];

		const char *location = rs[i]->action == SY_ACTION_REDIRECT ? rs[i]->location : NULL;
		const char *sticky = rs[i]->action == SY_ACTION_BACKEND && vh->mode == SY_MODE_PROXY
					     ? rs[i]->sticky_cookie
					     : NULL;

		rule->match = (uint8_t)rs[i]->match;
		rule->methods = rs[i]->methods;
		rule->insecure = (uint8_t)rs[i]->insecure;
		rule->kind = rs[i]->o->kind->kind;
		rule->action = (uint8_t)rs[i]->action;
		rule->status = rs[i]->status;
		if (rs[i]->n_preds > 0 || rs[i]->n_filters > 0 || location != NULL || sticky != NULL ||
		    rs[i]->body != NULL || rs[i]->edge != NULL) {
			rule->more = sy_arena_alloc(a, sizeof(*rule->more));
			if (rule->more == NULL)
				goto fail;
			if (location != NULL)
				rule->more->location = sy_arena_strdup(a, location);
			else if (sticky != NULL)
				rule->more->sticky_cookie = sy_arena_strdup(a, sticky);
			rule->more->body = rs[i]->body ? sy_arena_strdup(a, rs[i]->body) : NULL;
			if (rs[i]->edge != NULL && edge_policies(a, rs[i]->edge, vh, rule) < 0)
				goto fail;
			if (rs[i]->edge != NULL && rs[i]->edge->n_mirrors > 0 &&
			    rule_mirrors(a, rs[i]->edge, &mpools[i * SY_RULE_MIRRORS_MAX], rule) < 0)
				goto fail;
		}
		snprintf(who, sizeof(who), "%s/%s", rs[i]->o->ns, rs[i]->o->name);
		rule->object = sy_arena_strdup(a, who);
		rule->pool = pools[i];
		if (rule->object == NULL || build_preds(a, rs[i], rule) < 0)
			goto fail;
	}
	vh->bytes = (uint32_t)sy_arena_bytes(a);
	return vh;
fail:
	return NULL;
}

/*
 * One vhost in its own block (so a later generation can keep it or drop it
 * alone). Built twice: once to learn its size, then in one block of exactly
 * that size, since a million vhosts in fixed-size blocks waste a third. Its
 * rules' pools come from the compile's pool cache, one reference each (the
 * vhost gives them back when it is freed, gen_build.c).
 */
static struct sy_vhost *
build_vhost(struct sy_arena *trial, struct sy_pool_cache *pc, struct sy_store *st,
	    const char *host, struct sy_rule_in **rs, size_t n)
{
	const struct sy_pool **pools = calloc(n ? n : 1, sizeof(*pools));
	const struct sy_pool **mpools = NULL;
	struct sy_arena *a = NULL;
	struct sy_vhost *vh = NULL;
	size_t i, size;
	bool mirrors = false;

	if (pools == NULL)
		return NULL;
	qsort(rs, n, sizeof(*rs), cmp_rule_path);
	for (i = 0; i < n; i++)
		mirrors |= rs[i]->edge != NULL && rs[i]->edge->n_mirrors > 0;
	if (mirrors && (mpools = calloc(n * SY_RULE_MIRRORS_MAX, sizeof(*mpools))) == NULL)
		goto fail;
	for (i = 0; i < n; i++)
		if ((pools[i] = sy_pool_get(pc, st, rs[i])) == NULL ||
		    (mpools != NULL && mirror_pools(pc, st, rs[i], &mpools[i * SY_RULE_MIRRORS_MAX]) < 0))
			goto fail;
	vh = build_vhost_in(trial, host, rs, pools, mpools, n);
	size = vh ? sy_arena_used(trial) : 0;
	sy_arena_reset(trial);
	if (vh == NULL)
		goto fail;
	a = sy_arena_new_exact(size);
	vh = a ? build_vhost_in(a, host, rs, pools, mpools, n) : NULL;
	if (vh == NULL)
		goto fail;
	if ((vh->tls == SY_TLS_EDGE || vh->tls == SY_TLS_REENCRYPT) && rs[0]->pem != NULL)
		/* The kind checked the certificate; NULL here only when
		 * OpenSSL has no memory: the default certificate then. */
		vh->term->ctx = rs[0]->client_ca != NULL
					? sy_tls_ctx_get_client_ca(rs[0]->pem, vh->min_tls_version,
								   rs[0]->client_ca, rs[0]->client_ca_len)
					: sy_tls_ctx_get(rs[0]->pem, vh->min_tls_version);
	if (vh->tls == SY_TLS_REENCRYPT)
		/* NULL only when OpenSSL has no memory: requests get 503. */
		vh->term->backend_ctx = sy_tls_client_ctx_get(rs[0]->dest_ca, rs[0]->dest_ca_len);
	free(pools);
	free(mpools);
	return vh;
fail:
	sy_arena_free(a);
	for (i = 0; i < n; i++)
		sy_pool_put(pools[i]); /* NULL: none taken */
	for (i = 0; mpools != NULL && i < n * SY_RULE_MIRRORS_MAX; i++)
		sy_pool_put(mpools[i]);
	free(pools);
	free(mpools);
	return NULL;
}

/*
 * One host, rules from several kinds: the kind whose oldest object on the
 * host is the oldest of all (sy_object_age_cmp) keeps the host; the other
 * kinds' rules for it are dropped and their kinds told (each kind has
 * settled claims among its own objects already, by its own peer's rules).
 */
static void
settle_cross_kind(struct sy_compile_ctx *cx, struct sy_rule_in **rs, size_t n, const char *host)
{
	const struct sy_object *winner = NULL;
	size_t i;

	for (i = 0; i < n; i++)
		if (winner == NULL || sy_object_age_cmp(rs[i]->o, winner) < 0)
			winner = rs[i]->o;
	for (i = 0; i < n; i++) {
		if (rs[i]->o->kind == winner->kind)
			continue;
		rs[i]->displaced = true;
		if (rs[i]->o->kind->displaced != NULL)
			rs[i]->o->kind->displaced(cx, rs[i], host, winner);
	}
}

/* The scope's objects of a kind, sorted; warmed (those that cannot be are
 * left out) or not. */
static struct sy_object **
scope_list(struct sy_compile_ctx *cx, const struct sy_kind *kind, size_t *n, bool warm)
{
	struct sy_object **arr;
	size_t i, k = 0;

	*n = 0;
	arr = malloc((cx->scope->n + 1) * sizeof(*arr));
	if (arr == NULL)
		return NULL;
	for (i = 0; i < cx->scope->n; i++)
		if (cx->scope->objs[i]->kind == kind &&
		    (!warm || sy_store_warm(cx->st, cx->scope->objs[i]) == 0))
			arr[k++] = cx->scope->objs[i];
	sy_store_sort(arr, k);
	*n = k;
	return arr;
}

struct sy_object **
sy_compile_list(struct sy_compile_ctx *cx, const struct sy_kind *kind, size_t *n)
{
	return cx->scope == NULL ? sy_store_list(cx->st, kind, NULL, n) : scope_list(cx, kind, n, true);
}

struct sy_object **
sy_compile_list_cool(struct sy_compile_ctx *cx, const struct sy_kind *kind, size_t *n)
{
	return cx->scope == NULL ? sy_store_list_cool(cx->st, kind, n) : scope_list(cx, kind, n, false);
}

const json_t *
sy_compile_keep(struct sy_compile_ctx *cx, const json_t *v)
{
	char key[80];
	json_t *copy;

	if (v == NULL)
		return NULL;
	if (cx->kept == NULL && (cx->kept = json_object()) == NULL)
		return NULL;
	/* A port is a name or a number, the same in most routes: one copy
	 * each. Anything else gets a copy of its own. */
	if (json_is_string(v) && json_string_length(v) < sizeof(key) - 2 &&
	    strlen(json_string_value(v)) == json_string_length(v))
		snprintf(key, sizeof(key), "s%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(key, sizeof(key), "i%lld", (long long)json_integer_value(v));
	else
		key[0] = '\0';
	if (key[0] != '\0' && (copy = json_object_get(cx->kept, key)) != NULL)
		return copy;
	if ((copy = json_deep_copy(v)) == NULL)
		return NULL;
	if (key[0] == '\0')
		snprintf(key, sizeof(key), "p%p", (void *)copy);
	if (json_object_set_new(cx->kept, key, copy) < 0)
		return NULL;
	return copy;
}

/* Rules grouped by host: the first rule of each host, and a chain through
 * the others in the order the kinds added them. */
struct host_groups {
	struct sy_strmap first; /* host -> rule index + 1 */
	size_t *next;           /* rule index -> next index of the same host + 1, 0 = end */
	size_t *last;           /* host's first rule index -> its last */
	/* Each host's first rule index, in rule order: the vhosts are built
	 * in the order the kinds added their rules, so the rules and the
	 * strings they point to are read front to back, not in the map's
	 * hash order (at a million routes, a cache and TLB miss each). */
	size_t *order;
	size_t n_hosts;
};

static int
group_by_host(struct sy_compile_ctx *cx, struct host_groups *hg)
{
	size_t i;

	if (sy_strmap_init(&hg->first, cx->n_rules) < 0)
		return -ENOMEM;
	hg->next = calloc(cx->n_rules + 1, sizeof(*hg->next));
	hg->last = calloc(cx->n_rules + 1, sizeof(*hg->last));
	hg->order = malloc((cx->n_rules + 1) * sizeof(*hg->order));
	if (hg->next == NULL || hg->last == NULL || hg->order == NULL)
		return -ENOMEM;
	for (i = 0; i < cx->n_rules; i++) {
		uintptr_t f = (uintptr_t)sy_strmap_get(&hg->first, cx->rules[i].host);

		if (f == 0) {
			if (sy_strmap_put(&hg->first, cx->rules[i].host, (void *)(i + 1)) < 0)
				return -ENOMEM;
			hg->last[i] = i;
			hg->order[hg->n_hosts++] = i;
		} else {
			hg->next[hg->last[f - 1]] = i + 1;
			hg->last[f - 1] = i;
		}
	}
	return 0;
}

static void
host_groups_fini(struct host_groups *hg)
{
	sy_strmap_fini(&hg->first);
	free(hg->next);
	free(hg->last);
	free(hg->order);
}

static void
free_candidates(struct sy_compile_ctx *cx)
{
	size_t i;

	for (i = 0; i < cx->n_rules; i++)
		free(cx->rules[i].host);
	free(cx->rules);
	sy_arena_free(cx->scratch);
	json_decref(cx->kept);
}

struct sy_generation *
sy_compile_scoped(struct sy_store *st, const struct sy_compile_opts *opts, uint64_t id,
		  struct sy_generation *prev, const struct sy_compile_scope *scope, int *err)
{
	struct sy_compile_ctx cx = { .st = st, .opts = opts, .scope = scope };
	struct sy_arena *trial = sy_arena_new_sized(16384);
	struct sy_pool_cache pc;
	const struct sy_kind *const *k;
	struct host_groups hg = { { 0 } };
	struct sy_rule_in **by_host = NULL;
	struct sy_generation *g = NULL;
	const char *host;
	void *first;
	size_t i;

	*err = -ENOMEM;
	sy_pool_cache_init(&pc, opts->cfg ? opts->cfg->n_workers : 0);
	pc.rel = opts->rel;
	cx.scratch = sy_arena_new();
	if (cx.scratch == NULL || trial == NULL)
		goto fail;
	for (k = sy_kinds; *k != NULL; k++)
		if ((*k)->compile != NULL && (*k)->compile(&cx) < 0)
			goto fail;
	by_host = calloc(cx.n_rules ? cx.n_rules : 1, sizeof(*by_host));
	if (by_host == NULL || group_by_host(&cx, &hg) < 0)
		goto fail;
	if (scope != NULL) {
		/* Every vhost the scope makes must be one it may replace:
		 * otherwise the scope missed an object that shares a host. */
		for (i = 0; sy_strmap_next(&hg.first, &i, &host, &first);)
			if (sy_strmap_get(scope->hosts, host) == NULL) {
				*err = -ESRCH;
				goto fail;
			}
	}
	g = sy_gen_begin(scope ? prev : NULL, id, hg.first.count, opts->no_route_status);
	if (g == NULL)
		goto fail;
	if (scope != NULL)
		for (i = 0; sy_strmap_next(scope->hosts, &i, &host, &first);)
			if (sy_gen_remove_host(g, host, strlen(host)) < 0)
				goto fail;
	for (i = 0; i < hg.n_hosts; i++) {
		size_t j, m = 0, live = 0;
		struct sy_vhost *vh;

		host = cx.rules[hg.order[i]].host;
		for (j = hg.order[i] + 1; j != 0; j = hg.next[j - 1])
			by_host[m++] = &cx.rules[j - 1];
		settle_cross_kind(&cx, by_host, m, host);
		for (j = 0; j < m; j++)
			if (!by_host[j]->displaced)
				by_host[live++] = by_host[j];
		vh = build_vhost(trial, &pc, st, host, by_host, live);
		if (vh == NULL || sy_gen_insert(g, vh) < 0)
			goto fail;
	}
	sy_gen_commit(g, scope ? prev : NULL);
	sy_pool_cache_fini(&pc);
	sy_arena_free(trial);
	host_groups_fini(&hg);
	free(by_host);
	free_candidates(&cx);
	*err = 0;
	return g;
fail:
	if (g != NULL)
		sy_gen_abort(g);
	sy_pool_cache_fini(&pc);
	sy_arena_free(trial);
	host_groups_fini(&hg);
	free(by_host);
	free_candidates(&cx);
	return NULL;
}

struct sy_generation *
sy_compile(struct sy_store *st, const struct sy_compile_opts *opts, uint64_t id)
{
	int err;

	return sy_compile_scoped(st, opts, id, NULL, NULL, &err);
}
