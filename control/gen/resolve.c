/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * resolve: what would the live generation do with a request for this URL,
 * method and headers? It runs on the same generation the workers read: the
 * vhost lookup they run (sy_gen_find_vhost), then the per-request rule match
 * (control/gen/rule_match.c: path, method, predicates). Traffic predicates are
 * not rolled: every candidate of a traffic split is reported with its share.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "gen/upstream_protocol.h"
#include "gen/lb_tables.h"
#include "router.h"
#include "gen/rule_match.h"
#include "sy_generation.h"
#include "sy_redirect.h"

const char *const sy_tls_names[] = {
	[SY_TLS_NONE] = "none",
	[SY_TLS_EDGE] = "edge",
	[SY_TLS_REENCRYPT] = "reencrypt",
	[SY_TLS_PASSTHROUGH] = "passthrough",
};

/* Split "scheme://authority/path?query" without copying. */
struct url_parts {
	char scheme[16];
	char host[512];
	char path[2048];
};

static int
parse_url(const char *url, struct url_parts *u)
{
	const char *p = strstr(url, "://");
	const char *auth, *slash;
	size_t n;

	snprintf(u->scheme, sizeof(u->scheme), "http");
	if (p != NULL) {
		n = (size_t)(p - url);
		if (n == 0 || n >= sizeof(u->scheme))
			return -1;
		memcpy(u->scheme, url, n);
		u->scheme[n] = '\0';
		auth = p + 3;
	} else {
		auth = url;
	}
	slash = auth + strcspn(auth, "/?#");
	n = (size_t)(slash - auth);
	if (n == 0 || n >= sizeof(u->host))
		return -1;
	memcpy(u->host, auth, n);
	u->host[n] = '\0';
	if (strchr(u->host, '@') != NULL) /* user info is not part of the host */
		memmove(u->host, strchr(u->host, '@') + 1, strlen(strchr(u->host, '@') + 1) + 1);
	snprintf(u->path, sizeof(u->path), "%s%s", *slash == '/' ? "" : "/", slash);
	return 0;
}

#define HITS_MAX 64

/* A route's retry policy as resolve shows it: {"count", "on", "codes"},
 * and "per_try_timeout_ms" when it has one. */
static json_t *
retry_json(const struct sy_rule_more *m)
{
	json_t *on = json_array(), *codes = json_array(), *o;
	unsigned i;

	if (m->retry_on & SY_RETRY_5XX)
		json_array_append_new(on, json_string("5xx"));
	if (m->retry_on & SY_RETRY_GATEWAY_ERROR)
		json_array_append_new(on, json_string("gateway-error"));
	if (m->retry_on & SY_RETRY_4XX)
		json_array_append_new(on, json_string("retriable-4xx"));
	if (m->retry_on & SY_RETRY_CODES)
		json_array_append_new(on, json_string("retriable-status-codes"));
	for (i = 0; i < SY_RETRY_CODES_MAX && m->retry_codes[i] != 0; i++)
		json_array_append_new(codes, json_integer(m->retry_codes[i]));
	o = json_pack("{s:i, s:o, s:o}", "count", m->retry_count, "on", on, "codes", codes);

	/* perTryTimeout: each try's time to its response head */
	if (o != NULL && m->per_try_timeout_ms != 0)
		json_object_set_new(o, "per_try_timeout_ms", json_integer(m->per_try_timeout_ms));
	return o;
}

/*
 * A redirect's Location for this request, as the data plane makes it
 * (proxy_route.c): a fixed one as it is; a template (sy_redirect.h) with
 * the request's host and its path under the rule's setPath and prefix
 * replacement (the path filters a redirect rule can carry), then its query.
 */
static void
rule_location(const struct sy_rule *r, const char *host, const char *target, char *out,
	      size_t room)
{
	const char *loc = sy_rule_location(r), *q = strchr(target, '?');
	char path[2048], tmp[2048];
	uint32_t plen = (uint32_t)(q ? (size_t)(q - target) : strlen(target));
	uint16_t i;

	if (!sy_location_is_template(loc)) {
		snprintf(out, room, "%s", loc ? loc : "");
		return;
	}
	if (plen >= sizeof(path)) {
		out[0] = '\0';
		return;
	}
	memcpy(path, target, plen);
	path[plen] = '\0';
	for (i = 0; i < r->n_filters; i++) {
		const struct sy_filter *f = &r->more->filters[i];

		if (f->type == SY_FILTER_SET_PATH && f->s[0] != NULL) {
			plen = (uint32_t)strlen(f->s[0]);
			if (plen >= sizeof(path))
				plen = 0; /* does not fit: as the data plane, no Location */
			else
				memcpy(path, f->s[0], plen + 1);
		} else if (f->type == SY_FILTER_REPLACE_PATH_PREFIX && f->s[0] != NULL &&
			   f->s[1] != NULL) {
			plen = sy_path_replace_prefix(f->s[0], f->s[1], path, plen, tmp, sizeof(tmp));
			if (plen == 0)
				break; /* does not fit: no Location */
			memcpy(path, tmp, plen + 1);
		}
	}
	if (plen == 0 || sy_location_expand(loc, host, sy_host_normalize_len(host, strlen(host)), path,
					    plen, q ? q : "", q ? strlen(q) : 0, out, room) == 0)
		out[0] = '\0';
}

/* Skipper's eskip quoting of a string argument. */
static void
append_quoted(char *buf, size_t len, const char *s, char delim)
{
	size_t n = strlen(buf);

	if (n + 1 < len)
		buf[n++] = delim;
	for (; *s && n + 3 < len; s++) {
		if (*s == delim || *s == '\\')
			buf[n++] = '\\';
		buf[n++] = *s;
	}
	if (n + 1 < len)
		buf[n++] = delim;
	buf[n] = '\0';
}

/* "name(args)" of a filter, from its JSON array of arguments. */
static json_t *
filter_text(const struct sy_filter *f)
{
	json_t *args = json_loads(f->args ? f->args : "[]", JSON_DECODE_ANY, NULL);
	char buf[2048];
	const json_t *a;
	size_t i;

	snprintf(buf, sizeof(buf), "%s(", f->name);
	json_array_foreach(args, i, a) {
		if (i > 0)
			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ", ");
		if (json_is_string(a)) {
			append_quoted(buf, sizeof(buf), json_string_value(a), '"');
		} else {
			char *t = json_dumps(a, JSON_ENCODE_ANY);

			snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%s", t ? t : "null");
			free(t);
		}
	}
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ")");
	json_decref(args);
	return json_string(buf);
}

static json_t *
predicate_text(const struct sy_predicate *p)
{
	static const char *const names[] = {
		[SY_PRED_HEADER] = "Header",	       [SY_PRED_HEADER_REGEXP] = "HeaderRegexp",
		[SY_PRED_COOKIE] = "Cookie",	       [SY_PRED_PATH_REGEXP] = "PathRegexp",
		[SY_PRED_HOST_REGEXP] = "Host",	       [SY_PRED_TRAFFIC] = "Traffic",
		[SY_PRED_TRUE] = "True",	       [SY_PRED_JWT_ALL_KV] = "JWTPayloadAllKV",
		[SY_PRED_JWT_ANY_KV] = "JWTPayloadAnyKV",
		[SY_PRED_HEADER_PRESENT] = "HeaderPresent",
		[SY_PRED_HEADER_ABSENT] = "HeaderAbsent",
		[SY_PRED_HEADER_NOT_REGEXP] = "HeaderNotRegexp",
		[SY_PRED_QUERY] = "QueryParam",
		[SY_PRED_QUERY_REGEXP] = "QueryParamRegexp",
	};
	char buf[2048];
	uint32_t i;

	snprintf(buf, sizeof(buf), "%s(", names[p->type]);
	switch (p->type) {
	case SY_PRED_HEADER:
	case SY_PRED_QUERY:
		append_quoted(buf, sizeof(buf), p->name, '"');
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ", ");
		append_quoted(buf, sizeof(buf), p->value, '"');
		break;
	case SY_PRED_HEADER_PRESENT:
	case SY_PRED_HEADER_ABSENT:
		append_quoted(buf, sizeof(buf), p->name, '"');
		break;
	case SY_PRED_HEADER_REGEXP:
	case SY_PRED_HEADER_NOT_REGEXP:
	case SY_PRED_QUERY_REGEXP:
	case SY_PRED_COOKIE:
		append_quoted(buf, sizeof(buf), p->name, '"');
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ", ");
		/* fall through */
	case SY_PRED_PATH_REGEXP:
	case SY_PRED_HOST_REGEXP:
		append_quoted(buf, sizeof(buf), p->value ? p->value : "", '/');
		break;
	case SY_PRED_TRAFFIC:
		snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "%g", p->fraction);
		break;
	case SY_PRED_JWT_ALL_KV:
	case SY_PRED_JWT_ANY_KV:
		for (i = 0; i < p->n_kv; i++) {
			if (i > 0)
				snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ", ");
			append_quoted(buf, sizeof(buf), p->kv[i], '"');
		}
		break;
	default:
		break;
	}
	snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), ")");
	return json_string(buf);
}

/* An action the rule cannot say itself (Skipper's loopback backend), carried
 * as a "<loopback>" note filter by the kind. */
static const struct sy_filter *
rule_note(const struct sy_rule *r, const char *name)
{
	uint32_t i;

	for (i = 0; i < r->n_filters; i++)
		if (strcmp(r->more->filters[i].name, name) == 0)
			return &r->more->filters[i];
	return NULL;
}

const char *
sy_rule_action_name(const struct sy_rule *r)
{
	switch (r->action) {
	case SY_ACTION_REDIRECT:
		return "redirect";
	case SY_ACTION_STATIC:
		return rule_note(r, "<loopback>") ? "loopback" : "static";
	case SY_ACTION_BACKEND:
	default:
		return "backend";
	}
}

static json_t *
find_entry(json_t *list, const char *key, const char *val)
{
	const json_t *e;
	size_t i;

	json_array_foreach(list, i, e)
		if (strcmp(json_string_value(json_object_get(e, key)), val) == 0)
			return (json_t *)e;
	return NULL;
}

static const char *const url_backend_types[] = {
	[SY_URL_BACKEND_NETWORK] = "network",
	[SY_URL_BACKEND_LB] = "lb",
};

/* What tells two services of a split apart: "ns/name" for a Service; a URL
 * backend is named by its route, so its URLs count too (a Service and a
 * backend of the same name are not one). malloc'd. */
static char *
service_id(const struct sy_pool_service *ps)
{
	const struct sy_url_backend *ub = ps->urls;
	char *id = NULL, *more;
	uint32_t i;

	if (asprintf(&id, "%s/%s", ps->ns, ps->name) < 0)
		return NULL;
	for (i = 0; ub != NULL && i < ub->n_urls; i++) {
		if (asprintf(&more, "%s %s", id, ub->urls[i]) < 0)
			more = NULL;
		free(id);
		if ((id = more) == NULL)
			return NULL;
	}
	return id;
}

/*
 * A pool's services and endpoints, each share scaled by the probability that
 * the rule gets the request, merged into services/endpoints (the same service
 * reached through several rules of a split adds up).
 */
static void
add_pool(const struct sy_pool *pool, double share, json_t *services, json_t *endpoints)
{
	uint32_t i;
	char buf[SY_ADDR_STRLEN];

	for (i = 0; i < pool->n_services; i++) {
		const struct sy_pool_service *ps = &pool->services[i];
		uint64_t w = 0;
		uint32_t k;
		double s;
		char *id = service_id(ps);
		json_t *e;

		if (id == NULL)
			continue;
		for (k = 0; k < pool->n_endpoints; k++)
			if (pool->endpoints[k].service == i)
				w += pool->endpoints[k].weight;
		s = share * (pool->total_weight ? (double)w / (double)pool->total_weight : 0.0);
		e = find_entry(services, "id", id);
		if (e != NULL) {
			json_object_set_new(e, "share", json_real(json_real_value(json_object_get(e, "share")) + s));
			free(id);
			continue;
		}
		e = json_pack("{s:s, s:s, s:s, s:i, s:i, s:f}", "id", id, "namespace", ps->ns,
			      "name", ps->name, "weight", (int)ps->weight, "endpoints",
			      (int)ps->n_endpoints, "share", s);
		/* Not a Service: a backend of the route's own (Skipper network / lb). */
		if (ps->urls != NULL)
			json_object_set_new(e, "type",
					    json_string(url_backend_types[ps->urls->type]));
		/* What the router speaks to it (upstream-protocol annotations). */
		json_object_set_new(e, "protocol", json_string(sy_be_proto_name(ps->proto)));
		json_array_append_new(services, e);
		free(id);
	}
	for (i = 0; i < pool->n_endpoints; i++) {
		const struct sy_endpoint *ep = &pool->endpoints[i];
		char svc[300];
		json_t *e;

		snprintf(svc, sizeof(svc), "%s/%s", pool->services[ep->service].ns,
			 pool->services[ep->service].name);
		e = json_pack("{s:s, s:i, s:s, s:i, s:f}", "address",
			      sy_addr_format(&ep->addr, buf, sizeof(buf)), "port", (int)ep->port,
			      "service", svc, "weight", (int)ep->weight, "share",
			      share * (pool->total_weight
					       ? (double)ep->weight / (double)pool->total_weight
					       : 0.0));
		/* From an https:// URL: to be reached over TLS (not built yet). */
		if (ep->tls) {
			json_object_set_new(e, "tls", json_true());
			json_object_set_new(e, "tls_name",
					    json_string(pool->tls_names ? pool->tls_names[i] : NULL));
		}
		json_array_append_new(endpoints, e);
	}
}

static void
strip_ids(json_t *services)
{
	json_t *e;
	size_t i;

	json_array_foreach(services, i, e)
		json_object_del(e, "id");
}

/* A rule's request mirrors: what share of the requests each copies, to
 * which services and endpoints (the answers are dropped). */
static json_t *
mirrors_json(const struct sy_rule_more *m)
{
	json_t *out = json_array();
	unsigned k;

	for (k = 0; k < m->n_mirrors; k++) {
		json_t *services = json_array(), *endpoints = json_array();

		add_pool(m->mirrors[k].pool, 1.0, services, endpoints);
		strip_ids(services);
		json_array_append_new(out, json_pack("{s:f, s:o, s:o}", "share",
						     m->mirrors[k].per_10k / 10000.0, "services", services,
						     "endpoints", endpoints));
	}
	return out;
}

static json_t *
rule_filters(const struct sy_rule *r)
{
	json_t *out = json_array();
	uint32_t i;

	for (i = 0; i < r->n_filters; i++)
		if (r->more->filters[i].name[0] != '<')
			json_array_append_new(out, filter_text(&r->more->filters[i]));
	return out;
}

static json_t *
rule_predicates(const struct sy_rule *r)
{
	json_t *out = json_array();
	uint32_t i;

	for (i = 0; i < r->n_preds; i++)
		json_array_append_new(out, predicate_text(&r->more->preds[i]));
	return out;
}

static json_t *
rule_methods(const struct sy_rule *r)
{
	json_t *out = json_array();
	unsigned i;

	for (i = 0; i < SY_METHODS; i++)
		if (r->methods & (1u << i))
			json_array_append_new(out, json_string(sy_http_method_names[i]));
	return out;
}

/* The rule's URL backend (Skipper network / lb), as written; NULL when it
 * sends to Services. */
static const struct sy_url_backend *
rule_url_backend(const struct sy_rule *r)
{
	uint32_t i;

	if (r->action != SY_ACTION_BACKEND)
		return NULL;
	for (i = 0; i < r->pool->n_services; i++)
		if (r->pool->services[i].urls != NULL)
			return r->pool->services[i].urls;
	return NULL;
}

static json_t *
url_backend_json(const struct sy_url_backend *ub)
{
	json_t *eps;
	uint32_t i;

	if (ub->type == SY_URL_BACKEND_NETWORK)
		return json_pack("{s:s, s:s}", "type", "network", "address", ub->urls[0]);
	eps = json_array();
	for (i = 0; i < ub->n_urls; i++)
		json_array_append_new(eps, json_string(ub->urls[i]));
	return json_pack("{s:s, s:s, s:o}", "type", "lb", "algorithm", ub->algorithm, "endpoints",
			 eps);
}

/* Why a pool's URL backend is not (all) served, as found when the pool was
 * built (struct sy_pool_service.problem): not looked up again here, so
 * resolve says what the data plane does. */
static bool
url_problem(const struct sy_pool *pool, char *reason, size_t len)
{
	uint32_t k;

	for (k = 0; k < pool->n_services; k++) {
		if (pool->services[k].problem != NULL) {
			snprintf(reason, len, "%s", pool->services[k].problem);
			return true;
		}
	}
	snprintf(reason, len, "the router cannot reach the backend");
	return false;
}

/* Why a vhost is not spliced, as far as this request can tell. */
static const char *
proxy_note(const struct sy_vhost *vh, const struct sy_rule *rule)
{
	if (vh->tls == SY_TLS_EDGE)
		return "proxy: TLS is terminated here (edge), then each request is routed on its "
		       "own (plain HTTP follows the insecure policy)";
	if (vh->tls == SY_TLS_REENCRYPT)
		return "proxy: TLS is terminated here and each request sent to the backend over "
		       "TLS again (re-encrypt; plain HTTP follows the insecure policy)";
	if (rule->action == SY_ACTION_BACKEND && rule->pool->backend_tls)
		return "proxy: this rule's backend is an https:// URL: each request goes to it "
		       "over TLS, its certificate verified for the URL's host against the "
		       "router's trust store (tls.backend_ca, else the system's)";
	if (rule->action == SY_ACTION_BACKEND && rule->pool->needs_proxy)
		return "proxy: the router does not serve this rule's backend URL (reason says "
		       "why): requests for it get 503";
	for (unsigned i = 0; i < rule->n_filters; i++)
		if (rule->more->filters[i].type == SY_FILTER_OTHER)
			return "proxy: a filter this router does not apply: requests for this rule "
			       "get 503";
	for (unsigned i = 0; i < rule->n_filters; i++)
		if (rule->more->filters[i].type == SY_FILTER_LOOPBACK)
			return "proxy: a loopback backend: the request, changed by the rule's "
			       "filters, is routed again (at most 9 times, then 500)";
	if (rule->n_filters > 0)
		return "proxy: filters are applied to every request and response";
	if (vh->n_rules > 1)
		return "proxy: more than one rule on this host: every request is routed on its own";
	return "proxy: methods, predicates, a path rule or the router's own answer: every "
	       "request is routed on its own";
}

/*
 * Plain HTTP to a vhost that terminates or passes TLS: what the data plane
 * answers before any backend (splice.c route_lookup, proxy_route.c), or 0
 * when the request is served. A proxied vhost whose own policy allows plain
 * HTTP leaves it to the matched rule's (Contour's permitInsecure is per
 * route); everything else follows the vhost's.
 */
static uint16_t
insecure_answer(const struct sy_generation *g, const struct sy_vhost *vh,
		const struct sy_rule *rule, const char *host, const char *path, json_t *reply)
{
	/* splice.c wants_proxy: only a proxied vhost that allows plain HTTP
	 * hands it to the proxy; the splice path decides for the others. */
	bool proxied = vh->mode == SY_MODE_PROXY && vh->insecure == SY_INSECURE_ALLOW;
	enum sy_insecure_policy pol = (enum sy_insecure_policy)vh->insecure;
	bool redirect, refuse;
	char loc[2600];

	if (vh->tls == SY_TLS_NONE)
		return 0;
	if (proxied) {
		if (rule != NULL)
			pol = (enum sy_insecure_policy)rule->insecure;
		redirect = pol == SY_INSECURE_REDIRECT && vh->tls != SY_TLS_PASSTHROUGH;
		refuse = !redirect && pol != SY_INSECURE_ALLOW;
	} else {
		redirect = pol == SY_INSECURE_REDIRECT;
		refuse = !redirect && (pol != SY_INSECURE_ALLOW || vh->tls == SY_TLS_PASSTHROUGH);
	}
	if (redirect) {
		uint16_t st = vh->insecure_status ? vh->insecure_status : 302;

		snprintf(loc, sizeof(loc), "https://%.*s%s",
			 (int)sy_host_normalize_len(host, strlen(host)), host, path);
		json_object_set_new(reply, "action", json_string("redirect"));
		json_object_set_new(reply, "status", json_integer(st));
		json_object_set_new(reply, "location", json_string(loc));
		json_object_set_new(reply, "reason",
				    json_string("plain HTTP to a TLS vhost whose insecure policy is "
						"Redirect: the router answers with the https:// URL"));
		return st;
	}
	if (refuse) {
		/* the proxy answers 503, the splice path the no-route status */
		uint16_t st = proxied ? 503 : g->no_route_status;

		json_object_set_new(reply, "action", json_string("none"));
		json_object_set_new(reply, "status", json_integer(st));
		json_object_set_new(reply, "reason",
				    json_string(vh->tls == SY_TLS_PASSTHROUGH
							? "plain HTTP to a TLS passthrough vhost is not served"
							: "plain HTTP to a TLS vhost whose insecure policy is "
							  "None is not served"));
		return st;
	}
	return 0;
}

const char *const sy_match_names[] = {
	[SY_PATH_PREFIX] = "prefix",
	[SY_PATH_EXACT] = "exact",
	[SY_PATH_STRING_PREFIX] = "string-prefix",
};

json_t *
sy_ops_resolve(struct sy_router *r, const json_t *req)
{
	const char *url = json_string_value(json_object_get(req, "url"));
	const json_t *mj = json_object_get(req, "method");
	const char *method = json_is_string(mj) ? json_string_value(mj) : "GET";
	const json_t *headers = json_object_get(req, "headers");
	struct sy_generation *g = sy_gen_acquire(&r->slot);
	const struct sy_vhost *vh;
	const struct sy_rule *rule = NULL;
	struct sy_rm_hit hits[HITS_MAX];
	struct sy_rm_request q;
	struct url_parts u;
	const char *host, *key;
	json_t *reply, *val, *services, *endpoints;
	const struct sy_url_backend *ub;
	char reason[3200];
	bool path_matched = false;
	size_t n = 0, i, primary = 0;

	if (url == NULL)
		return sy_err_reply1("bad_request", NULL, "url", "resolve needs \"url\"");
	if (parse_url(url, &u) < 0)
		return sy_err_reply1("bad_request", NULL, "url",
				     "cannot parse \"%s\" as a URL like http://host/path", url);
	if (mj != NULL && (!json_is_string(mj) || json_string_length(mj) == 0))
		return sy_err_reply1("bad_request", NULL, "method", "must be a method name like \"GET\"");
	if (headers != NULL && !json_is_object(headers))
		return sy_err_reply1("bad_request", NULL, "headers", "must be an object of name: value");
	host = u.host;
	json_object_foreach((json_t *)headers, key, val)
		if (strcasecmp(key, "host") == 0 && json_is_string(val))
			host = json_string_value(val); /* a Host header wins, as on the wire */
	reply = json_pack("{s:b, s:I, s:s, s:s, s:s, s:s, s:s}", "ok", 1, "generation",
			  (json_int_t)(g ? g->id : 0), "url", url, "scheme", u.scheme, "host", host,
			  "path", u.path, "method", method);
	vh = sy_gen_find_vhost(g, host, strlen(host));
	if (vh != NULL) {
		q.host = host;
		q.method = method;
		q.path = u.path;
		q.headers = headers;
		n = sy_rm_match(vh, &q, hits, HITS_MAX, &path_matched);
		/* The rule that gets the request when no dice are rolled: the
		 * first with a chance (a Traffic(0) candidate never gets it). */
		for (primary = 0; primary < n && hits[primary].share <= 0; primary++)
			;
		rule = primary < n ? hits[primary].rule : NULL;
	}
	if (vh != NULL && strcasecmp(u.scheme, "http") == 0 &&
	    insecure_answer(g, vh, rule, host, u.path, reply) != 0) {
		json_object_set_new(reply, "match", json_boolean(rule != NULL));
		json_object_set_new(reply, "vhost", json_string(vh->host));
		json_object_set_new(reply, "mode",
				    json_string(vh->mode == SY_MODE_SPLICE ? "splice" : "proxy"));
		json_object_set_new(reply, "tls", json_string(sy_tls_names[vh->tls]));
		json_object_set_new(reply, "kind", rule ? json_string(rule->kind) : json_null());
		json_object_set_new(reply, "object", rule ? json_string(rule->object) : json_null());
		json_object_set_new(reply, "services", json_array());
		return reply;
	}
	if (rule == NULL) {
		if (vh == NULL)
			snprintf(reason, sizeof(reason), "no route serves host \"%.*s\"",
				 (int)sy_host_normalize_len(host, strlen(host)), host);
		else if (!path_matched)
			snprintf(reason, sizeof(reason), "host \"%s\" has no rule for path \"%s\"",
				 vh->host, u.path);
		else
			snprintf(reason, sizeof(reason),
				 "host \"%s\" has rules for path \"%s\", but none whose method and "
				 "predicates match this %s request",
				 vh->host, u.path, method);
		json_object_set_new(reply, "match", json_false());
		json_object_set_new(reply, "object", json_null());
		json_object_set_new(reply, "kind", json_null());
		json_object_set_new(reply, "action", json_string("none"));
		json_object_set_new(reply, "services", json_array());
		json_object_set_new(reply, "status", json_integer(g ? g->no_route_status : 503));
		json_object_set_new(reply, "reason", json_string(reason));
		if (vh != NULL)
			json_object_set_new(reply, "vhost", json_string(vh->host));
		return reply;
	}
	json_object_set_new(reply, "match", json_true());
	json_object_set_new(reply, "vhost", json_string(vh->host));
	json_object_set_new(reply, "mode", json_string(vh->mode == SY_MODE_SPLICE ? "splice" : "proxy"));
	json_object_set_new(reply, "tls", json_string(sy_tls_names[vh->tls]));
	if (vh->term != NULL && vh->term->client_ca && strcasecmp(u.scheme, "https") == 0)
		/* An HTTPProxy's clientValidation: the handshake fails without a
		 * certificate of the vhost's CAs (tls_cert.c), so only a client
		 * that has one gets the answer below. */
		json_object_set_new(reply, "client_certificate", json_string("required"));
	if (vh->mode == SY_MODE_PROXY) {
		json_object_set_new(reply, "binding", json_string("request"));
		json_object_set_new(reply, "note", json_string(proxy_note(vh, rule)));
	} else if (vh->bind_by_first_path) {
		json_object_set_new(reply, "binding", json_string("first-request-path"));
		json_object_set_new(reply, "note",
				    json_string("spliced: the first request's path picks the rule "
						"for the whole connection (per-request routing needs "
						"the proxy mode)"));
	} else {
		json_object_set_new(reply, "binding", json_string("connection"));
	}
	json_object_set_new(reply, "rule",
			    json_pack("{s:s, s:s}", "match", sy_match_names[rule->match], "path", rule->path));
	json_object_set_new(reply, "kind", json_string(rule->kind));
	json_object_set_new(reply, "object", json_string(rule->object));
	json_object_set_new(reply, "action", json_string(sy_rule_action_name(rule)));
	json_object_set_new(reply, "methods", rule_methods(rule));
	json_object_set_new(reply, "predicates", rule_predicates(rule));
	json_object_set_new(reply, "filters", rule_filters(rule));
	/* Services across the traffic split: each rule's pool, scaled by the
	 * chance the rule gets the request. */
	services = json_array();
	endpoints = json_array();
	for (i = 0; i < n; i++)
		if (hits[i].rule->action == SY_ACTION_BACKEND)
			add_pool(hits[i].rule->pool, hits[i].share, services, endpoints);
	strip_ids(services);
	json_object_set_new(reply, "services", services);
	json_object_set_new(reply, "endpoints", endpoints);
	if (rule->action == SY_ACTION_BACKEND)
		json_object_set_new(reply, "strategy",
				    json_string(sy_lb_strategy_name(rule->pool->strategy)));
	if (rule->action == SY_ACTION_BACKEND && rule->more != NULL &&
	    (rule->more->retry_count != 0 || rule->more->per_try_timeout_ms != 0))
		json_object_set_new(reply, "retry", retry_json(rule->more));
	if (rule->action == SY_ACTION_BACKEND && rule->more != NULL && rule->more->n_mirrors > 0)
		json_object_set_new(reply, "mirrors", mirrors_json(rule->more));
	/* timeoutPolicy.idle: how long the exchange may be silent both ways */
	if (rule->action == SY_ACTION_BACKEND && rule->more != NULL && rule->more->idle_timeout_ms != 0)
		json_object_set_new(reply, "idle_timeout_ms", json_integer(rule->more->idle_timeout_ms));
	ub = rule_url_backend(rule);
	if (ub != NULL)
		json_object_set_new(reply, "backend", url_backend_json(ub));
	if (n > 1) {
		json_t *split = json_array();

		for (i = 0; i < n; i++) {
			const struct sy_rule *h = hits[i].rule;
			json_t *hs = json_array(), *he = json_array();

			if (h->action == SY_ACTION_BACKEND)
				add_pool(h->pool, hits[i].share, hs, he);
			strip_ids(hs);
			json_decref(he);
			json_array_append_new(split,
					      json_pack("{s:f, s:s, s:s, s:o, s:o}", "share", hits[i].share,
							"object", h->object, "action", sy_rule_action_name(h),
							"predicates", rule_predicates(h), "services", hs));
		}
		json_object_set_new(reply, "split", split);
	}
	if (rule->action == SY_ACTION_REDIRECT) {
		json_object_set_new(reply, "status", json_integer(rule->status));
		char loc[2600];

		rule_location(rule, host, u.path, loc, sizeof(loc));
		json_object_set_new(reply, "location", json_string(loc));
	} else if (rule->action == SY_ACTION_STATIC && rule_note(rule, "<loopback>") == NULL) {
		json_object_set_new(reply, "status", json_integer(rule->status));
		json_object_set_new(reply, "body", sy_rule_body(rule) ? json_string(sy_rule_body(rule)) : json_null());
	} else if (rule->action == SY_ACTION_STATIC) {
		json_object_set_new(reply, "status", json_null());
		json_object_set_new(reply, "reason",
				    json_string("loopback: the request goes through the routing table "
						"again after the route's filters (not followed here)"));
	} else if (rule->pool->backend_tls && rule->pool->tls_ctx == NULL) {
		/* The data plane answers 503 backend_tls (proxy_route.c). */
		json_object_set_new(reply, "status", json_integer(503));
		json_object_set_new(reply, "reason",
				    json_string("https:// backend: no TLS client context could be "
						"built (out of memory, or no trust store)"));
	} else if (rule->pool->needs_proxy) {
		url_problem(rule->pool, reason, sizeof(reason));
		json_object_set_new(reply, "status", json_null());
		json_object_set_new(reply, "reason", json_string(reason));
	} else if (rule->pool->total_weight == 0) {
		/* OpenShift answers 503 when no backend can take the request. */
		json_object_set_new(reply, "status", json_integer(503));
		if (!url_problem(rule->pool, reason, sizeof(reason)))
			snprintf(reason, sizeof(reason),
				 "the pool has no endpoint with a weight above 0");
		json_object_set_new(reply, "reason", json_string(reason));
	} else {
		json_object_set_new(reply, "status", json_null());
	}
	return reply;
}
