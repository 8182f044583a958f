/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway API HTTPRoute (gateway.networking.k8s.io/v1). A route attaches to
 * listeners of our Gateways through spec.parentRefs (gateway_common.c); on
 * each host it gets there (its hostnames intersected with the listener's)
 * every rule's every match becomes one rule candidate:
 *
 *   path Exact / PathPrefix      -> SY_PATH_EXACT / SY_PATH_PREFIX (element-wise,
 *                                   a trailing '/' ignored)
 *   path RegularExpression       -> "/" + SY_PRED_PATH_REGEXP, anchored ^(?:re)$
 *   headers Exact / RegularExpr. -> SY_PRED_HEADER / SY_PRED_HEADER_REGEXP (anchored)
 *   queryParams Exact / RegularExpr. -> SY_PRED_QUERY / SY_PRED_QUERY_REGEXP (anchored)
 *   method                       -> sy_rule_in.methods
 *   filters                      -> SY_FILTER_* (set/add/remove headers, URL rewrite);
 *                                   RequestRedirect -> the rule's own answer
 *   backendRefs (weights)        -> SY_WEIGHTS_PER_SERVICE; none valid -> 500
 *
 * Precedence (the spec's, across rules and routes of a host): the compiler
 * orders a host's rules by path length, Exact before prefix, then by
 * `priority` (control/gen/compile.c), which carries the rest: a method
 * match, then the number of header matches, then of query matches, then
 * the oldest route (creationTimestamp, then namespace/name), then the
 * rule's position in its route.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "arena.h"
#include "gateway_common.h"
#include "gen/compile.h"
#include "gen/upstream_protocol.h"
#include "sy_generation.h"
#include "sy_redirect.h"
#include "store/relations.h"
#include "store/store.h"

#define HR_RULES_MAX 16
#define HR_MATCHES_MAX 8
#define HR_FILTERS_MAX 16
#define HR_ATTACH_MAX 64

static const char *
jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* ---------------------------------------------------------- validation -- */

bool
sy_gw_regex_ok(const char *re, char *why, size_t len)
{
	int err;
	PCRE2_SIZE off;
	pcre2_code *c = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, 0, &err, &off, NULL);

	if (c != NULL) {
		pcre2_code_free(c);
		return true;
	}
	pcre2_get_error_message(err, (PCRE2_UCHAR *)why, len);
	return false;
}

static bool
header_name_ok(const char *s)
{
	size_t i;

	if (s[0] == '\0' || strlen(s) > 256)
		return false;
	for (i = 0; s[i]; i++)
		if (!isalnum((unsigned char)s[i]) && strchr("!#$%&'*+-.^_`|~", s[i]) == NULL)
			return false;
	return true;
}

static bool
header_value_ok(const char *s)
{
	for (; *s; s++)
		if (*s == '\r' || *s == '\n' || *s == '\0')
			return false;
	return true;
}

/* headers / queryParams of a match: [{type, name, value}]. */
int
sy_gw_check_kv_matches(const json_t *l, const char *base, bool header, const char *who,
		 struct sy_errors *errs)
{
	const json_t *m;
	char f[192], why[128];
	size_t i;

	if (l == NULL)
		return 0;
	if (!json_is_array(l) || json_array_size(l) > 16)
		return sy_err_add(errs, "invalid", who, base, "must be a list of at most 16 matches");
	json_array_foreach(l, i, m) {
		const json_t *t = json_object_get(m, "type");
		const char *type = t ? json_string_value(t) : "Exact";

		snprintf(f, sizeof(f), "%s[%zu].type", base, i);
		if (type == NULL || (strcmp(type, "Exact") != 0 &&
				     strcmp(type, "RegularExpression") != 0))
			return sy_err_add(errs, "invalid", who, f,
					  "\"%s\": must be Exact or RegularExpression",
					  type ? type : "");
		snprintf(f, sizeof(f), "%s[%zu].name", base, i);
		if (!json_is_string(json_object_get(m, "name")) ||
		    !header_name_ok(jstr(m, "name")))
			return sy_err_add(errs, "invalid", who, f, "\"%s\": must be a %s name",
					  jstr(m, "name"), header ? "header" : "query parameter");
		snprintf(f, sizeof(f), "%s[%zu].value", base, i);
		if (!json_is_string(json_object_get(m, "value")) ||
		    json_string_length(json_object_get(m, "value")) == 0)
			return sy_err_add(errs, "invalid", who, f, "required");
		if (strcmp(type, "RegularExpression") == 0 && !sy_gw_regex_ok(jstr(m, "value"), why,
									sizeof(why)))
			return sy_err_add(errs, "invalid", who, f, "\"%s\": not a regular expression: %s",
					  jstr(m, "value"), why);
	}
	return 0;
}

static int
check_match(const json_t *m, const char *base, const char *who, struct sy_errors *errs)
{
	const json_t *path = json_object_get(m, "path"), *meth = json_object_get(m, "method");
	char f[192], why[128];

	if (!json_is_object(m))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	if (path != NULL) {
		const json_t *t = json_object_get(path, "type");
		const char *type = t ? json_string_value(t) : "PathPrefix";
		const json_t *v = json_object_get(path, "value");

		snprintf(f, sizeof(f), "%s.path.type", base);
		if (type == NULL || (strcmp(type, "Exact") != 0 && strcmp(type, "PathPrefix") != 0 &&
				     strcmp(type, "RegularExpression") != 0))
			return sy_err_add(errs, "invalid", who, f,
					  "\"%s\": must be Exact, PathPrefix or RegularExpression",
					  type ? type : "");
		snprintf(f, sizeof(f), "%s.path.value", base);
		if (v != NULL && (!json_is_string(v) || json_string_length(v) == 0 ||
				  json_string_length(v) > 1024))
			return sy_err_add(errs, "invalid", who, f, "must be a string of 1 to 1024 bytes");
		if (strcmp(type, "RegularExpression") == 0) {
			if (v != NULL && !sy_gw_regex_ok(json_string_value(v), why, sizeof(why)))
				return sy_err_add(errs, "invalid", who, f,
						  "\"%s\": not a regular expression: %s",
						  json_string_value(v), why);
		} else if (v != NULL) {
			const char *p = json_string_value(v);

			/* the spec's validation: absolute, no "//", no "/./"
			 * or "/../", no '#', no '?' */
			if (p[0] != '/' || strstr(p, "//") || strstr(p, "/./") || strstr(p, "/../") ||
			    strchr(p, '#') || strchr(p, '?') || strchr(p, ' '))
				return sy_err_add(errs, "invalid", who, f,
						  "\"%s\": must be an absolute path without \"//\", "
						  "\"/./\", \"/../\", '#', '?' or spaces", p);
		}
	}
	snprintf(f, sizeof(f), "%s.headers", base);
	if (sy_gw_check_kv_matches(json_object_get(m, "headers"), f, true, who, errs) < 0)
		return -1;
	snprintf(f, sizeof(f), "%s.queryParams", base);
	if (sy_gw_check_kv_matches(json_object_get(m, "queryParams"), f, false, who, errs) < 0)
		return -1;
	snprintf(f, sizeof(f), "%s.method", base);
	if (meth != NULL && (!json_is_string(meth) ||
			     sy_http_method_bit(json_string_value(meth), json_string_length(meth)) == 0))
		return sy_err_add(errs, "invalid", who, f,
				  "\"%s\": must be GET, HEAD, POST, PUT, DELETE, CONNECT, OPTIONS, "
				  "TRACE or PATCH",
				  json_is_string(meth) ? json_string_value(meth) : "");
	return 0;
}

static int
check_header_modifier(const json_t *hm, const char *base, const char *who, struct sy_errors *errs)
{
	static const char *const ops[] = { "set", "add" };
	const json_t *e;
	char f[192];
	size_t i, k;

	if (!json_is_object(hm))
		return sy_err_add(errs, "invalid", who, base, "required for this filter type");
	for (k = 0; k < 2; k++) {
		const json_t *l = json_object_get(hm, ops[k]);

		snprintf(f, sizeof(f), "%s.%s", base, ops[k]);
		if (l != NULL && (!json_is_array(l) || json_array_size(l) > 16))
			return sy_err_add(errs, "invalid", who, f, "must be a list of at most 16");
		json_array_foreach(l, i, e) {
			snprintf(f, sizeof(f), "%s.%s[%zu].name", base, ops[k], i);
			if (!json_is_string(json_object_get(e, "name")) ||
			    !header_name_ok(jstr(e, "name")))
				return sy_err_add(errs, "invalid", who, f, "\"%s\": must be a header name",
						  jstr(e, "name"));
			snprintf(f, sizeof(f), "%s.%s[%zu].value", base, ops[k], i);
			if (!json_is_string(json_object_get(e, "value")) ||
			    !header_value_ok(jstr(e, "value")))
				return sy_err_add(errs, "invalid", who, f,
						  "required, a header value (no CR or LF)");
		}
	}
	snprintf(f, sizeof(f), "%s.remove", base);
	e = json_object_get(hm, "remove");
	if (e != NULL && (!json_is_array(e) || json_array_size(e) > 16))
		return sy_err_add(errs, "invalid", who, f, "must be a list of at most 16 names");
	for (i = 0; i < json_array_size(e); i++) {
		const char *n = json_string_value(json_array_get(e, i));

		snprintf(f, sizeof(f), "%s.remove[%zu]", base, i);
		if (n == NULL || !header_name_ok(n))
			return sy_err_add(errs, "invalid", who, f, "\"%s\": must be a header name",
					  n ? n : "");
	}
	return 0;
}

/* A path modifier {type, replaceFullPath | replacePrefixMatch}. */
static int
check_path_modifier(const json_t *p, const char *base, bool prefix_ok, const char *who,
		    struct sy_errors *errs)
{
	const char *type = jstr(p, "type");
	const char *key;
	char f[192];

	if (p == NULL)
		return 0;
	snprintf(f, sizeof(f), "%s.path.type", base);
	if (strcmp(type, "ReplaceFullPath") == 0)
		key = "replaceFullPath";
	else if (strcmp(type, "ReplacePrefixMatch") == 0)
		key = "replacePrefixMatch";
	else
		return sy_err_add(errs, "invalid", who, f,
				  "\"%s\": must be ReplaceFullPath or ReplacePrefixMatch", type);
	if (strcmp(key, "replacePrefixMatch") == 0 && !prefix_ok)
		return sy_err_add(errs, "invalid", who, f,
				  "ReplacePrefixMatch needs the rule to have exactly one match, of "
				  "path type PathPrefix");
	snprintf(f, sizeof(f), "%s.path.%s", base, key);
	if (!json_is_string(json_object_get(p, key)) || jstr(p, key)[0] != '/' ||
	    !header_value_ok(jstr(p, key)) || strchr(jstr(p, key), ' ') != NULL)
		return sy_err_add(errs, "invalid", who, f, "required, an absolute path");
	return 0;
}

/* A RequestMirror's requestMirror: its backendRef as a backendRef is
 * checked (without weight), and at most one of percent (0-100) and
 * fraction (numerator <= denominator, denominator > 0). */
static int
check_request_mirror(const json_t *rm, const char *base, const char *who, struct sy_errors *errs)
{
	const json_t *pct = json_object_get(rm, "percent"), *fr = json_object_get(rm, "fraction");
	const json_t *b = json_object_get(rm, "backendRef");
	char f[192];

	if (!json_is_object(rm))
		return sy_err_add(errs, "invalid", who, base,
				  "requestMirror: required for this filter type");
	snprintf(f, sizeof(f), "%s.requestMirror.backendRef", base);
	if (b == NULL)
		return sy_err_add(errs, "invalid", who, f, "required");
	if (json_object_get(b, "weight") != NULL)
		return sy_err_add(errs, "invalid", who, f, "weight: not a field of a mirror's backendRef");
	if (sy_gw_check_backend_ref(b, f, who, errs) < 0)
		return -1;
	snprintf(f, sizeof(f), "%s.requestMirror", base);
	if (pct != NULL && fr != NULL)
		return sy_err_add(errs, "invalid", who, f, "only one of percent and fraction may be set");
	snprintf(f, sizeof(f), "%s.requestMirror.percent", base);
	if (pct != NULL && (!json_is_integer(pct) || json_integer_value(pct) < 0 ||
			    json_integer_value(pct) > 100))
		return sy_err_add(errs, "invalid", who, f, "must be an integer from 0 to 100");
	if (fr != NULL) {
		const json_t *num = json_object_get(fr, "numerator");
		const json_t *den = json_object_get(fr, "denominator");

		snprintf(f, sizeof(f), "%s.requestMirror.fraction.numerator", base);
		if (!json_is_integer(num) || json_integer_value(num) < 0)
			return sy_err_add(errs, "invalid", who, f, "must be an integer of 0 or more");
		snprintf(f, sizeof(f), "%s.requestMirror.fraction.denominator", base);
		if (den != NULL && (!json_is_integer(den) || json_integer_value(den) < 1))
			return sy_err_add(errs, "invalid", who, f, "must be an integer of 1 or more");
		if (json_integer_value(num) > (den != NULL ? json_integer_value(den) : 100))
			return sy_err_add(errs, "invalid", who, f,
					  "must not be less than the numerator (%lld)",
					  (long long)json_integer_value(num));
	}
	return 0;
}

int
sy_gw_check_filter(const json_t *flt, const char *base, bool prefix_ok, const char *who,
	     struct sy_errors *errs)
{
	const char *type = jstr(flt, "type");
	char f[192];

	if (!json_is_object(flt))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.type", base);
	if (strcmp(type, "RequestHeaderModifier") == 0) {
		snprintf(f, sizeof(f), "%s.requestHeaderModifier", base);
		return check_header_modifier(json_object_get(flt, "requestHeaderModifier"), f, who,
					     errs);
	}
	if (strcmp(type, "ResponseHeaderModifier") == 0) {
		snprintf(f, sizeof(f), "%s.responseHeaderModifier", base);
		return check_header_modifier(json_object_get(flt, "responseHeaderModifier"), f, who,
					     errs);
	}
	if (strcmp(type, "RequestRedirect") == 0) {
		const json_t *rr = json_object_get(flt, "requestRedirect");
		const json_t *sc, *port, *host;

		snprintf(f, sizeof(f), "%s.requestRedirect", base);
		if (!json_is_object(rr))
			return sy_err_add(errs, "invalid", who, f, "required for this filter type");
		sc = json_object_get(rr, "scheme");
		snprintf(f, sizeof(f), "%s.requestRedirect.scheme", base);
		if (sc != NULL && (!json_is_string(sc) || (strcmp(json_string_value(sc), "http") != 0 &&
							   strcmp(json_string_value(sc), "https") != 0)))
			return sy_err_add(errs, "invalid", who, f, "\"%s\": must be http or https",
					  json_is_string(sc) ? json_string_value(sc) : "");
		host = json_object_get(rr, "hostname");
		snprintf(f, sizeof(f), "%s.requestRedirect.hostname", base);
		if (host != NULL && (!json_is_string(host) || json_string_value(host)[0] == '*' ||
				     !sy_gw_hostname_valid(json_string_value(host))))
			return sy_err_add(errs, "invalid", who, f, "\"%s\": must be a DNS name",
					  json_is_string(host) ? json_string_value(host) : "");
		port = json_object_get(rr, "port");
		snprintf(f, sizeof(f), "%s.requestRedirect.port", base);
		if (port != NULL && (!json_is_integer(port) || json_integer_value(port) < 1 ||
				     json_integer_value(port) > 65535))
			return sy_err_add(errs, "invalid", who, f, "must be a port number 1-65535");
		sc = json_object_get(rr, "statusCode");
		snprintf(f, sizeof(f), "%s.requestRedirect.statusCode", base);
		if (sc != NULL && (!json_is_integer(sc) || (json_integer_value(sc) != 301 &&
							    json_integer_value(sc) != 302)))
			return sy_err_add(errs, "invalid", who, f, "must be 301 or 302");
		snprintf(f, sizeof(f), "%s.requestRedirect", base);
		return check_path_modifier(json_object_get(rr, "path"), f, prefix_ok, who, errs);
	}
	if (strcmp(type, "URLRewrite") == 0) {
		const json_t *uw = json_object_get(flt, "urlRewrite");
		const json_t *host;

		snprintf(f, sizeof(f), "%s.urlRewrite", base);
		if (!json_is_object(uw))
			return sy_err_add(errs, "invalid", who, f, "required for this filter type");
		host = json_object_get(uw, "hostname");
		snprintf(f, sizeof(f), "%s.urlRewrite.hostname", base);
		if (host != NULL && (!json_is_string(host) || json_string_value(host)[0] == '*' ||
				     !sy_gw_hostname_valid(json_string_value(host))))
			return sy_err_add(errs, "invalid", who, f, "\"%s\": must be a DNS name",
					  json_is_string(host) ? json_string_value(host) : "");
		snprintf(f, sizeof(f), "%s.urlRewrite", base);
		return check_path_modifier(json_object_get(uw, "path"), f, prefix_ok, who, errs);
	}
	if (strcmp(type, "RequestMirror") == 0)
		return check_request_mirror(json_object_get(flt, "requestMirror"), base, who, errs);
	if (strcmp(type, "ExtensionRef") == 0) {
		snprintf(f, sizeof(f), "%s.extensionRef", base);
		if (!json_is_object(json_object_get(flt, "extensionRef")))
			return sy_err_add(errs, "invalid", who, f, "required for this filter type");
		return 0;
	}
	return sy_err_add(errs, "invalid", who, f,
			  "\"%s\": must be RequestHeaderModifier, ResponseHeaderModifier, "
			  "RequestRedirect, URLRewrite, RequestMirror or ExtensionRef",
			  type);
}

int
sy_gw_check_backend_ref(const json_t *b, const char *base, const char *who, struct sy_errors *errs)
{
	const json_t *w = json_object_get(b, "weight"), *port = json_object_get(b, "port");
	const char *kind = json_object_get(b, "kind") ? jstr(b, "kind") : "Service";
	const char *group = jstr(b, "group");
	char f[192];

	if (!json_is_object(b))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.name", base);
	if (sy_gw_check_name(json_object_get(b, "name"), true, who, f, errs) < 0)
		return -1;
	snprintf(f, sizeof(f), "%s.weight", base);
	if (w != NULL && (!json_is_integer(w) || json_integer_value(w) < 0 ||
			  json_integer_value(w) > 1000000))
		return sy_err_add(errs, "invalid", who, f, "must be an integer from 0 to 1000000");
	snprintf(f, sizeof(f), "%s.port", base);
	if (port != NULL && (!json_is_integer(port) || json_integer_value(port) < 1 ||
			     json_integer_value(port) > 65535))
		return sy_err_add(errs, "invalid", who, f, "must be a port number 1-65535");
	/* the spec's CEL rule: a Service reference needs its port */
	if (port == NULL && group[0] == '\0' && strcmp(kind, "Service") == 0)
		return sy_err_add(errs, "invalid", who, f, "required when kind is Service");
	return 0;
}

static int
check_rule(const json_t *rule, size_t i, const char *who, struct sy_errors *errs)
{
	const json_t *ms = json_object_get(rule, "matches"), *fs = json_object_get(rule, "filters");
	const json_t *bs = json_object_get(rule, "backendRefs"), *e;
	const json_t *m0 = json_array_get(ms, 0);
	bool prefix_ok;
	char base[160];
	size_t j;
	int bad = 0;

	snprintf(base, sizeof(base), "spec.rules[%zu]", i);
	if (!json_is_object(rule))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(base, sizeof(base), "spec.rules[%zu].matches", i);
	if (ms != NULL && (!json_is_array(ms) || json_array_size(ms) > HR_MATCHES_MAX))
		return sy_err_add(errs, "invalid", who, base, "must be a list of at most %d matches",
				  HR_MATCHES_MAX);
	json_array_foreach(ms, j, e) {
		snprintf(base, sizeof(base), "spec.rules[%zu].matches[%zu]", i, j);
		if (check_match(e, base, who, errs) < 0)
			bad = -1;
	}
	/* ReplacePrefixMatch: one match, a PathPrefix one */
	prefix_ok = json_array_size(ms) == 1 && json_object_get(m0, "path") != NULL &&
		    (json_object_get(json_object_get(m0, "path"), "type") == NULL ||
		     strcmp(jstr(json_object_get(m0, "path"), "type"), "PathPrefix") == 0);
	snprintf(base, sizeof(base), "spec.rules[%zu].filters", i);
	if (fs != NULL && (!json_is_array(fs) || json_array_size(fs) > HR_FILTERS_MAX))
		return sy_err_add(errs, "invalid", who, base, "must be a list of at most %d filters",
				  HR_FILTERS_MAX);
	{
		int n_redirect = 0, n_rewrite = 0;

		json_array_foreach(fs, j, e) {
			snprintf(base, sizeof(base), "spec.rules[%zu].filters[%zu]", i, j);
			if (sy_gw_check_filter(e, base, prefix_ok, who, errs) < 0)
				bad = -1;
			n_redirect += strcmp(jstr(e, "type"), "RequestRedirect") == 0;
			n_rewrite += strcmp(jstr(e, "type"), "URLRewrite") == 0;
		}
		snprintf(base, sizeof(base), "spec.rules[%zu].filters", i);
		if (n_redirect > 0 && n_rewrite > 0)
			return sy_err_add(errs, "invalid", who, base,
					  "RequestRedirect and URLRewrite cannot both be set");
		if (n_redirect > 0 && json_array_size(bs) > 0)
			return sy_err_add(errs, "invalid", who, base,
					  "RequestRedirect and backendRefs cannot both be set");
	}
	return sy_gw_check_backend_refs(bs, i, who, errs) < 0 ? -1 : bad;
}

int
sy_gw_check_backend_refs(const json_t *bs, size_t i, const char *who, struct sy_errors *errs)
{
	const json_t *e;
	char base[160];
	size_t j;
	int bad = 0;

	snprintf(base, sizeof(base), "spec.rules[%zu].backendRefs", i);
	if (bs != NULL && (!json_is_array(bs) || json_array_size(bs) > SY_RULE_BACKENDS_MAX))
		return sy_err_add(errs, "invalid", who, base, "must be a list of at most %d",
				  SY_RULE_BACKENDS_MAX);
	json_array_foreach(bs, j, e) {
		snprintf(base, sizeof(base), "spec.rules[%zu].backendRefs[%zu]", i, j);
		if (sy_gw_check_backend_ref(e, base, who, errs) < 0)
			bad = -1;
	}
	return bad;
}

int
sy_gw_validate_http_route(const json_t *obj, const char *who, struct sy_errors *errs,
			  int (*check)(const json_t *rule, size_t i, const char *who,
				       struct sy_errors *errs))
{
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *rules, *r;
	size_t i;
	int bad = 0;

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "required");
	if (sy_gw_check_parent_refs(json_object_get(spec, "parentRefs"), who, errs) < 0)
		bad = -1;
	if (sy_gw_check_hostnames(json_object_get(spec, "hostnames"), who, errs) < 0)
		bad = -1;
	rules = json_object_get(spec, "rules");
	if (rules != NULL && (!json_is_array(rules) || json_array_size(rules) > HR_RULES_MAX))
		return sy_err_add(errs, "invalid", who, "spec.rules",
				  "must be a list of at most %d rules", HR_RULES_MAX);
	json_array_foreach(rules, i, r)
		if (check(r, i, who, errs) < 0)
			bad = -1;
	return bad;
}

static int
validate_httproute(const json_t *obj, const char *who, struct sy_errors *errs)
{
	return sy_gw_validate_http_route(obj, who, errs, check_rule);
}

/* ------------------------------------------------------------- compile -- */

struct hr_route {
	struct sy_object *o;
	size_t rank;
};

static int
cmp_route(const void *a, const void *b)
{
	const struct sy_object *x = ((const struct hr_route *)a)->o;
	const struct sy_object *y = ((const struct hr_route *)b)->o;
	int c;

	/* the spec: the oldest route, then by "{namespace}/{name}" */
	if (x->created.sec != y->created.sec)
		return x->created.sec < y->created.sec ? -1 : 1;
	if (x->created.nsec != y->created.nsec)
		return x->created.nsec < y->created.nsec ? -1 : 1;
	if ((c = strcmp(x->ns, y->ns)) != 0)
		return c;
	return strcmp(x->name, y->name);
}

/* What one rule resolves to, shared by its matches and hosts. */
struct hr_rule {
	struct sy_rule_in base;   /* backends, action, filters */
	const char *refs_reason;  /* NULL: every backendRef resolved */
	char refs_msg[256];
	char note[256];           /* a filter this router cannot apply */
	const json_t *redirect;   /* requestRedirect, built per host and match */
	struct sy_edge_policy_in *edge; /* base.edge, once a mirror is set */
};

static char *
sdup(struct sy_compile_ctx *cx, const char *s)
{
	return sy_arena_strdup(cx->scratch, s);
}

/* JSON array text of the strings given, in cx->scratch. */
static const char *
args2(struct sy_compile_ctx *cx, const char *a, const char *b)
{
	json_t *j = b ? json_pack("[s, s]", a, b) : json_pack("[s]", a);
	char *t = j ? json_dumps(j, JSON_COMPACT) : NULL;
	const char *out = t ? sdup(cx, t) : NULL;

	free(t);
	json_decref(j);
	return out;
}

static int
add_filter(struct sy_compile_ctx *cx, struct sy_rule_in *r, enum sy_filter_type t,
	   const char *name, const char *args)
{
	if (r->n_filters >= SY_RULE_FILTERS_MAX || args == NULL)
		return -1;
	r->filters[r->n_filters].type = t;
	r->filters[r->n_filters].name = name;
	r->filters[r->n_filters].args = args;
	r->n_filters++;
	(void)cx;
	return 0;
}

static void
header_filters(struct sy_compile_ctx *cx, struct hr_rule *hr, const json_t *hm, bool request)
{
	struct sy_rule_in *r = &hr->base;
	const json_t *e;
	size_t i;

	json_array_foreach(json_object_get(hm, "set"), i, e)
		add_filter(cx, r, request ? SY_FILTER_SET_REQUEST_HEADER : SY_FILTER_SET_RESPONSE_HEADER,
			   request ? "setRequestHeader" : "setResponseHeader",
			   args2(cx, jstr(e, "name"), jstr(e, "value")));
	for (i = 0; i < json_array_size(json_object_get(hm, "remove")); i++)
		add_filter(cx, r,
			   request ? SY_FILTER_DELETE_REQUEST_HEADER : SY_FILTER_DELETE_RESPONSE_HEADER,
			   request ? "removeRequestHeader" : "removeResponseHeader",
			   args2(cx, json_string_value(json_array_get(json_object_get(hm, "remove"), i)),
				 NULL));
	json_array_foreach(json_object_get(hm, "add"), i, e)
		add_filter(cx, r,
			   request ? SY_FILTER_APPEND_REQUEST_HEADER : SY_FILTER_APPEND_RESPONSE_HEADER,
			   request ? "appendRequestHeader" : "appendResponseHeader",
			   args2(cx, jstr(e, "name"), jstr(e, "value")));
}

/*
 * A backendRef (of the rule's backends, or a mirror's) into *out: true when
 * it names a Service this route may reach (a ReferenceGrant for another
 * namespace) that exists; else the rule's ResolvedRefs reason (the first
 * one) says why not.
 */
static bool
resolve_ref(struct sy_compile_ctx *cx, const struct sy_gw_http_kind *k, const struct sy_object *o,
	    const json_t *b, struct hr_rule *hr, struct sy_backend_in *out)
{
	const char *group = jstr(b, "group");
	const char *kind = json_object_get(b, "kind") ? jstr(b, "kind") : "Service";
	const char *ns = json_object_get(b, "namespace") ? jstr(b, "namespace") : o->ns;
	const char *name = jstr(b, "name");
	const struct sy_object *svc;

	if (group[0] != '\0' || strcmp(kind, "Service") != 0) {
		if (hr->refs_reason == NULL) {
			hr->refs_reason = "InvalidKind";
			snprintf(hr->refs_msg, sizeof(hr->refs_msg),
				 "backendRef %s%s%s %s: only Services are served", group,
				 group[0] ? "/" : "", kind, name);
		}
		return false;
	}
	if (!sy_gw_ref_granted(cx->st, k->kind->kind, o->ns, "", "Service", ns, name)) {
		if (hr->refs_reason == NULL) {
			hr->refs_reason = "RefNotPermitted";
			snprintf(hr->refs_msg, sizeof(hr->refs_msg),
				 "backendRef Service %s/%s: no ReferenceGrant in \"%s\" allows "
				 "it", ns, name, ns);
		}
		return false;
	}
	if ((svc = sy_store_find(cx->st, &sy_kind_service, ns, name)) == NULL) {
		if (hr->refs_reason == NULL) {
			hr->refs_reason = "BackendNotFound";
			snprintf(hr->refs_msg, sizeof(hr->refs_msg),
				 "backendRef Service %s/%s not found", ns, name);
		}
		return false;
	}
	memset(out, 0, sizeof(*out));
	out->service = name;
	out->ns = strcmp(ns, o->ns) != 0 ? ns : NULL;
	out->weight = 1;
	out->target_port = json_object_get(b, "port");
	/* the kind's protocol (GRPCRoute: h2c), unless the Service's
	 * annotation says h2 over TLS */
	out->proto = k->proto != 0 && sy_upstream_protocol(svc->obj, json_object_get(b, "port")) != SY_BE_H2
			     ? k->proto
			     : 0;
	return true;
}

/* A RequestMirror filter: its backend, and the share of the requests it
 * copies (percent, or fraction: 100 % without either), in the rule's edge
 * policies. An unresolved backendRef mirrors nothing and says why in
 * ResolvedRefs, as a backendRef does. -1 on out of memory. */
static int
request_mirror(struct sy_compile_ctx *cx, const struct sy_gw_http_kind *k, const struct sy_object *o,
	       const json_t *rm, struct hr_rule *hr)
{
	struct sy_rule_in *r = &hr->base;
	const json_t *pct = json_object_get(rm, "percent"), *fr = json_object_get(rm, "fraction");
	struct sy_backend_in be;
	uint64_t per_10k = 10000;

	if (!resolve_ref(cx, k, o, json_object_get(rm, "backendRef"), hr, &be))
		return 0;
	if (hr->edge == NULL) {
		if ((hr->edge = sy_arena_alloc(cx->scratch, sizeof(*hr->edge))) == NULL)
			return -1;
		memset(hr->edge, 0, sizeof(*hr->edge));
		r->edge = hr->edge;
	}
	if (hr->edge->n_mirrors == SY_RULE_MIRRORS_MAX) {
		if (hr->refs_reason == NULL) {
			hr->refs_reason = "UnsupportedValue";
			snprintf(hr->refs_msg, sizeof(hr->refs_msg),
				 "more than %d RequestMirror filters in a rule: the others mirror nothing",
				 SY_RULE_MIRRORS_MAX);
		}
		return 0;
	}
	if (pct != NULL)
		per_10k = (uint64_t)json_integer_value(pct) * 100;
	else if (fr != NULL) {
		uint64_t den = json_object_get(fr, "denominator")
				       ? (uint64_t)json_integer_value(json_object_get(fr, "denominator"))
				       : 100;

		per_10k = den ? (uint64_t)json_integer_value(json_object_get(fr, "numerator")) * 10000 / den
			      : 0;
	}
	if (per_10k == 0)
		return 0; /* 0 %: no copies */
	hr->edge->mirrors[hr->edge->n_mirrors] = be;
	hr->edge->mirror_per_10k[hr->edge->n_mirrors++] = (uint16_t)(per_10k > 10000 ? 10000 : per_10k);
	return 0;
}

/* The rule's filters (except a redirect: built per host) and backends. */
static int
resolve_rule(struct sy_compile_ctx *cx, const struct sy_gw_http_kind *k, struct sy_object *o,
	     const json_t *rule, struct hr_rule *hr)
{
	struct sy_rule_in *r = &hr->base;
	const json_t *f, *b;
	size_t i;
	size_t n_refs = json_array_size(json_object_get(rule, "backendRefs"));

	memset(hr, 0, sizeof(*hr));
	r->o = o;
	r->weights = SY_WEIGHTS_PER_SERVICE;
	if (sy_rule_in_reserve(cx, r) < 0)
		return -ENOMEM;
	json_array_foreach(json_object_get(rule, "filters"), i, f) {
		const char *type = jstr(f, "type");

		if (strcmp(type, "RequestHeaderModifier") == 0) {
			header_filters(cx, hr, json_object_get(f, "requestHeaderModifier"), true);
		} else if (strcmp(type, "ResponseHeaderModifier") == 0) {
			header_filters(cx, hr, json_object_get(f, "responseHeaderModifier"), false);
		} else if (strcmp(type, "RequestRedirect") == 0) {
			hr->redirect = json_object_get(f, "requestRedirect");
		} else if (strcmp(type, "URLRewrite") == 0) {
			const json_t *uw = json_object_get(f, "urlRewrite");
			const json_t *p = json_object_get(uw, "path");

			if (json_is_string(json_object_get(uw, "hostname")))
				add_filter(cx, r, SY_FILTER_SET_REQUEST_HEADER, "setRequestHeader",
					   args2(cx, "Host", jstr(uw, "hostname")));
			if (strcmp(jstr(p, "type"), "ReplaceFullPath") == 0)
				add_filter(cx, r, SY_FILTER_SET_PATH, "setPath",
					   args2(cx, jstr(p, "replaceFullPath"), NULL));
			/* ReplacePrefixMatch: per match (its prefix), in emit */
		} else if (strcmp(type, "RequestMirror") == 0) {
			/* with the backends, below */
		} else {
			/* ExtensionRef: not done here */
			add_filter(cx, r, SY_FILTER_OTHER, sdup(cx, type), args2(cx, type, NULL));
			snprintf(hr->note, sizeof(hr->note),
				 "filter %s is not supported: requests for this rule get 503", type);
		}
	}
	if (hr->redirect != NULL && hr->note[0] != '\0') {
		hr->redirect = NULL; /* 503 below, as the data plane answers */
	} else if (hr->redirect != NULL) {
		r->action = SY_ACTION_REDIRECT;
		return 0;
	}
	json_array_foreach(json_object_get(rule, "backendRefs"), i, b) {
		const json_t *w = json_object_get(b, "weight");

		if (!resolve_ref(cx, k, o, b, hr, &r->backends[r->n_backends]))
			continue;
		if (w != NULL && json_integer_value(w) == 0)
			continue; /* weight 0: no traffic */
		r->backends[r->n_backends].weight = w ? (uint32_t)json_integer_value(w) : 1;
		r->n_backends++;
	}
	json_array_foreach(json_object_get(rule, "filters"), i, f)
		if (strcmp(jstr(f, "type"), "RequestMirror") == 0 &&
		    request_mirror(cx, k, o, json_object_get(f, "requestMirror"), hr) < 0)
			return -ENOMEM;
	if (hr->note[0] != '\0') {
		/* A filter this router does not apply: the data plane answers
		 * 503 for the rule (SY_FILTER_OTHER); said so as the rule's own
		 * answer too, so that resolve tells what requests get. */
		r->action = SY_ACTION_STATIC;
		r->status = 503;
		return 0;
	}
	if (r->n_backends > 0) {
		r->target_port = r->backends[0].target_port;
		return 0;
	}
	/* "If all entries in BackendRefs are invalid, and there are also no
	 * filters specified in this route rule, all traffic which matches this
	 * rule MUST receive a 500 status code"; none given answers so too.
	 * No body of ours: the data plane's own page for the status. */
	(void)n_refs;
	r->action = SY_ACTION_STATIC;
	r->status = 500;
	return 0;
}

/*
 * A RequestRedirect's Location (a template, sy_redirect.h, when it depends
 * on the request). Scheme and port default to the listener's; the hostname
 * to the request's (fixed when the rule's host is a name); the path to the
 * request's, with its query: ReplaceFullPath fixes it, ReplacePrefixMatch
 * replaces the match's prefix (a filter of the rule, added by emit_match).
 */
static const char *
redirect_location(struct sy_compile_ctx *cx, const json_t *rr, const char *host,
		  const struct sy_gw_listener *l)
{
	const char *scheme = json_object_get(rr, "scheme") ? jstr(rr, "scheme")
			     : l->proto == SY_GW_HTTP ? "http" : "https";
	const char *h = json_object_get(rr, "hostname") ? jstr(rr, "hostname") : host;
	const json_t *pm = json_object_get(rr, "path"), *port = json_object_get(rr, "port");
	long p;
	char path[1100], portbuf[16] = "", out[1400];

	if (h[0] == '\0' || h[0] == '*')
		h = SY_LOC_HOST_S;
	if (strcmp(jstr(pm, "type"), "ReplaceFullPath") == 0)
		snprintf(path, sizeof(path), "%s", jstr(pm, "replaceFullPath"));
	else
		snprintf(path, sizeof(path), "%s", SY_LOC_PATH_S);
	/* the port: the filter's; else the scheme's well-known one when the
	 * filter names a scheme; else the listener's */
	p = port ? (long)json_integer_value(port) : json_object_get(rr, "scheme") ? 0 : l->port;
	if (p != 0 && !((strcmp(scheme, "http") == 0 && p == 80) ||
			(strcmp(scheme, "https") == 0 && p == 443)))
		snprintf(portbuf, sizeof(portbuf), ":%ld", p);
	snprintf(out, sizeof(out), "%s://%s%s%s", scheme, h, portbuf, path);
	return sdup(cx, out);
}

static const char *
anchored(struct sy_compile_ctx *cx, const char *re)
{
	size_t n = strlen(re) + 8;
	char *s = sy_arena_alloc(cx->scratch, n);

	if (s != NULL)
		snprintf(s, n, "^(?:%s)$", re);
	return s;
}

/* How the host is served: TLS terminated with the listener's certificate
 * when an HTTPS listener takes it, plain HTTP as well when an HTTP one
 * does. */
struct hr_host {
	char host[SY_GW_HOST_MAX];
	bool http, https;
	const struct sy_gw_listener *http_l, *https_l;
};

static int
emit_match(struct sy_compile_ctx *cx, const struct hr_rule *hr, const json_t *rule,
	   const json_t *m, int prio_rank, const struct hr_host *hh)
{
	struct sy_rule_in r = hr->base;
	const json_t *p = json_object_get(m, "path"), *e;
	const char *ptype = p && json_object_get(p, "type") ? jstr(p, "type") : "PathPrefix";
	const char *pval = p && json_object_get(p, "value") ? jstr(p, "value") : "/";
	unsigned n_h = 0, n_q = 0, k;
	size_t i;
	bool regex = false;
	char *path = NULL;

	/* room of our own: filters differ per match (ReplacePrefixMatch) */
	r.preds = NULL;
	r.filters = NULL;
	r.n_preds = 0;
	r.n_filters = 0;
	if (sy_rule_in_reserve(cx, &r) < 0)
		return -ENOMEM;
	for (k = 0; k < hr->base.n_filters; k++)
		r.filters[r.n_filters++] = hr->base.filters[k];
	if (strcmp(ptype, "Exact") == 0) {
		r.match = SY_PATH_EXACT;
		/* a copy: a kind's rules (GRPCRoute's) may be built for the
		 * compile and gone after it */
		r.path = sdup(cx, pval);
		if (r.path == NULL)
			return -ENOMEM;
	} else if (strcmp(ptype, "RegularExpression") == 0) {
		r.match = SY_PATH_PREFIX;
		r.path = "/";
		r.preds[r.n_preds].type = SY_PRED_PATH_REGEXP;
		r.preds[r.n_preds++].value = anchored(cx, pval);
		regex = true;
	} else {
		size_t n = strlen(pval);

		/* element-wise; "/foo/" is "/foo" */
		path = sdup(cx, pval);
		while (path != NULL && n > 1 && path[n - 1] == '/')
			path[--n] = '\0';
		r.match = SY_PATH_PREFIX;
		r.path = path ? path : pval;
	}
	json_array_foreach(json_object_get(m, "headers"), i, e) {
		bool re = strcmp(json_object_get(e, "type") ? jstr(e, "type") : "Exact",
				 "RegularExpression") == 0;

		if (r.n_preds >= SY_RULE_PREDS_MAX)
			break;
		r.preds[r.n_preds].type = re ? SY_PRED_HEADER_REGEXP : SY_PRED_HEADER;
		r.preds[r.n_preds].name = jstr(e, "name");
		r.preds[r.n_preds++].value = re ? anchored(cx, jstr(e, "value")) : jstr(e, "value");
		n_h++;
	}
	json_array_foreach(json_object_get(m, "queryParams"), i, e) {
		bool re = strcmp(json_object_get(e, "type") ? jstr(e, "type") : "Exact",
				 "RegularExpression") == 0;

		if (r.n_preds >= SY_RULE_PREDS_MAX)
			break;
		r.preds[r.n_preds].type = re ? SY_PRED_QUERY_REGEXP : SY_PRED_QUERY;
		r.preds[r.n_preds].name = jstr(e, "name");
		r.preds[r.n_preds++].value = re ? anchored(cx, jstr(e, "value")) : jstr(e, "value");
		n_q++;
	}
	if (json_is_string(json_object_get(m, "method")))
		r.methods = sy_http_method_bit(jstr(m, "method"), strlen(jstr(m, "method")));
	/* URLRewrite's and RequestRedirect's ReplacePrefixMatch: this match's
	 * prefix (validation allows it only with one PathPrefix match) goes;
	 * "/" as "" so that the replacement keeps the path's own leading '/' */
	json_array_foreach(json_object_get(rule, "filters"), i, e) {
		const json_t *pm = json_object_get(json_object_get(e, "urlRewrite"), "path");

		if (strcmp(jstr(e, "type"), "RequestRedirect") == 0)
			pm = json_object_get(json_object_get(e, "requestRedirect"), "path");
		else if (strcmp(jstr(e, "type"), "URLRewrite") != 0)
			continue;
		if (strcmp(jstr(pm, "type"), "ReplacePrefixMatch") != 0 ||
		    r.n_filters >= SY_RULE_FILTERS_MAX || r.match != SY_PATH_PREFIX || regex)
			continue;
		r.filters[r.n_filters].type = SY_FILTER_REPLACE_PATH_PREFIX;
		r.filters[r.n_filters].name = "replacePrefixMatch";
		r.filters[r.n_filters++].args =
			args2(cx, strcmp(r.path, "/") == 0 ? "" : r.path, jstr(pm, "replacePrefixMatch"));
	}
	/* precedence within a host and path (see the top of this file) */
	r.priority = (regex ? 1 << 30 : 0) | (r.methods ? 1 << 29 : 0) |
		     (int)((n_h > 15 ? 15 : n_h) << 25) | (int)((n_q > 15 ? 15 : n_q) << 21) |
		     ((1 << 21) - 1 - (prio_rank > (1 << 21) - 1 ? (1 << 21) - 1 : prio_rank));
	if (hh->https) {
		r.tls = SY_TLS_EDGE;
		r.pem = hh->https_l->pem;
		r.tls_secret = hh->https_l->secret;
		r.insecure = hh->http ? SY_INSECURE_ALLOW : SY_INSECURE_NONE;
	} else {
		r.tls = SY_TLS_NONE;
	}
	if (hr->redirect != NULL) {
		const struct sy_gw_listener *l = hh->http ? hh->http_l : hh->https_l;
		const json_t *sc = json_object_get(hr->redirect, "statusCode");

		r.status = sc ? (uint16_t)json_integer_value(sc) : 302;
		r.location = redirect_location(cx, hr->redirect, hh->host, l);
		if (r.location == NULL)
			return -ENOMEM;
	}
	r.host = strdup(hh->host);
	r.wild_deep = true; /* "*.example.com" covers any number of labels */
	if (r.host == NULL || sy_compile_add_rule(cx, &r) < 0)
		return -ENOMEM;
	return 0;
}

/* A programmed HTTPS listener of any of our Gateways that covers host
 * (its hostname is host or a wildcard over it; none: any host), or NULL.
 * All Gateways share routerd's ports: one vhost per host, terminated when
 * any HTTPS listener takes the host. */
static const struct sy_gw_listener *
https_cover(const struct sy_gw_set *set, const char *host)
{
	char out[SY_GW_HOST_MAX];
	size_t i, j;

	for (i = 0; i < set->n; i++)
		for (j = 0; j < set->gws[i].n_ls; j++) {
			const struct sy_gw_listener *l = &set->gws[i].ls[j];

			if (l->proto == SY_GW_HTTPS && l->programmed &&
			    (l->hostname == NULL ||
			     (host[0] != '\0' && sy_gw_host_intersect(l->hostname, host, out, sizeof(out)) &&
			      strcmp(out, host) == 0)))
				return l;
		}
	return NULL;
}

/* The attachments' hosts, each once, with the listeners that serve it
 * (programmed ones only). A host this route takes over plain HTTP only
 * that an HTTPS listener (of another route) terminates: that listener's
 * certificate, the route's rules served over both. */
static size_t
hosts_of(const struct sy_gw_set *set, const struct sy_gw_attach *at, size_t n_at,
	 struct hr_host *hs)
{
	size_t n = 0, i, j;

	for (i = 0; i < n_at; i++) {
		const struct sy_gw_listener *l = at[i].l;

		if (!l->programmed)
			continue;
		for (j = 0; j < n && strcmp(hs[j].host, at[i].host) != 0; j++)
			;
		if (j == n) {
			memset(&hs[n], 0, sizeof(hs[n]));
			snprintf(hs[n].host, sizeof(hs[n].host), "%s", at[i].host);
			n++;
		}
		if (l->proto == SY_GW_HTTP && !hs[j].http) {
			hs[j].http = true;
			hs[j].http_l = l;
		} else if (l->proto == SY_GW_HTTPS && !hs[j].https) {
			hs[j].https = true;
			hs[j].https_l = l;
		}
	}
	for (j = 0; j < n; j++)
		if (!hs[j].https && (hs[j].https_l = https_cover(set, hs[j].host)) != NULL)
			hs[j].https = true;
	return n;
}

struct hr_parent {
	const json_t *ref;
	int n;              /* attachments, 0: not accepted */
	const char *reason; /* when n == 0 */
	char msg[256];
};

static int
compile_one(struct sy_gw_set *set, const struct sy_gw_http_kind *kd, struct sy_object *o,
	    size_t rank)
{
	struct sy_compile_ctx *cx = set->cx;
	const json_t *spec = json_object_get(o->obj, "spec");
	const json_t *refs = json_object_get(spec, "parentRefs");
	/* a kind's own rules live for this call: what the rules keep of them
	 * is copied (emit_match) or is the object's (json_copy is shallow) */
	json_t *rules = kd->rules ? kd->rules(spec) : json_incref(json_object_get(spec, "rules"));
	const json_t *ref, *rule, *m;
	struct sy_gw_attach *at = calloc(HR_ATTACH_MAX, sizeof(*at));
	struct hr_host *hs = calloc(HR_ATTACH_MAX, sizeof(*hs));
	struct hr_parent ps[32];
	struct hr_rule *hr = calloc(HR_RULES_MAX, sizeof(*hr));
	const char *refs_reason = NULL, *refs_msg = "";
	json_t *notes = json_object(), *parents = json_array(), *prev;
	size_t n_at = 0, n_ps = 0, nh, i, j, k;
	int rc = 0;

	if (at == NULL || hs == NULL || hr == NULL || notes == NULL || parents == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	json_array_foreach(refs, i, ref) {
		struct hr_parent *p = &ps[n_ps];
		int got;

		if (n_ps >= sizeof(ps) / sizeof(ps[0]))
			break;
		p->reason = NULL;
		got = sy_gw_attach(set, ref, kd->bit, o->ns,
				   json_object_get(spec, "hostnames"), at + n_at, HR_ATTACH_MAX - n_at,
				   &p->reason, p->msg, sizeof(p->msg));
		if (got < 0)
			continue; /* not a Gateway of ours */
		p->ref = ref;
		p->n = got;
		n_at += (size_t)got;
		n_ps++;
	}
	if (n_ps == 0)
		goto status;
	json_array_foreach(rules, i, rule) {
		if ((rc = resolve_rule(cx, kd, o, rule, &hr[i])) < 0)
			goto out;
		if (refs_reason == NULL && hr[i].refs_reason != NULL) {
			refs_reason = hr[i].refs_reason;
			refs_msg = hr[i].refs_msg;
		}
		if (hr[i].note[0] != '\0')
			json_object_set_new(notes, hr[i].note, json_true());
	}
	nh = hosts_of(set, at, n_at, hs);
	for (j = 0; j < nh; j++)
		json_array_foreach(rules, i, rule) {
			const json_t *ms = json_object_get(rule, "matches");

			if (json_array_size(ms) == 0)
				rc = emit_match(cx, &hr[i], rule, NULL, (int)(rank * 16 + i), &hs[j]);
			json_array_foreach(ms, k, m)
				if (rc == 0)
					rc = emit_match(cx, &hr[i], rule, m, (int)(rank * 16 + i), &hs[j]);
			if (rc < 0)
				goto out;
		}
status:
	prev = json_object_get(o->status, "parents");
	for (i = 0; i < n_ps; i++) {
		const json_t *prevc = NULL, *pp;
		json_t *pref = sy_gw_parent_ref(ps[i].ref, o->ns), *conds = json_array();
		char msg[1024] = "";
		const char *key;
		json_t *v;

		json_array_foreach(prev, j, pp)
			if (json_equal(json_object_get(pp, "parentRef"), pref))
				prevc = json_object_get(pp, "conditions");
		json_object_foreach(notes, key, v) {
			size_t len = strlen(msg);

			snprintf(msg + len, sizeof(msg) - len, "%s%s", len ? "; " : "", key);
		}
		json_array_append_new(conds,
				      sy_gw_condition(prevc, "Accepted", ps[i].n > 0,
						      ps[i].n > 0 ? "Accepted" : ps[i].reason,
						      ps[i].n > 0 ? msg : ps[i].msg, cx->opts->now,
						      sy_gw_generation(o)));
		json_array_append_new(conds,
				      sy_gw_condition(prevc, "ResolvedRefs", refs_reason == NULL,
						      refs_reason ? refs_reason : "ResolvedRefs",
						      refs_msg, cx->opts->now, sy_gw_generation(o)));
		json_array_append_new(parents, json_pack("{s:o, s:s, s:o}", "parentRef", pref,
							 "controllerName", set->controller,
							 "conditions", conds));
	}
	json_decref(o->status);
	o->status = json_pack("{s:O}", "parents", parents);
out:
	free(at);
	free(hs);
	free(hr);
	json_decref(rules);
	json_decref(notes);
	json_decref(parents);
	return rc;
}

int
sy_gw_http_compile_all(struct sy_gw_set *set, const struct sy_gw_http_kind *k)
{
	size_t n = 0, i;
	struct sy_object **objs = sy_compile_list(set->cx, k->kind, &n);
	struct hr_route *rs = calloc(n ? n : 1, sizeof(*rs));
	int rc = 0;

	if (objs == NULL || rs == NULL) {
		free(objs);
		free(rs);
		return -ENOMEM;
	}
	for (i = 0; i < n; i++)
		rs[i].o = objs[i];
	qsort(rs, n, sizeof(*rs), cmp_route);
	for (i = 0; i < n && rc == 0; i++)
		rc = compile_one(set, k, rs[i].o, i);
	free(objs);
	free(rs);
	return rc;
}

int
sy_httproute_compile_all(struct sy_gw_set *set)
{
	static const struct sy_gw_http_kind k = { &sy_kind_httproute, SY_GW_KIND_HTTPROUTE, 0,
						  NULL };

	return sy_gw_http_compile_all(set, &k);
}

const struct sy_kind sy_kind_httproute = {
	.kind = "HTTPRoute",
	.group = SY_GW_GROUP,
	.api_versions = (const char *const[]){ "gateway.networking.k8s.io/v1",
					       "gateway.networking.k8s.io/v1beta1", NULL },
	.names = (const char *const[]){ "httproute", "httproutes",
					"httproutes.gateway.networking.k8s.io", NULL },
	.generation = true,
	.validate = validate_httproute,
	.compile = sy_gw_route_compile_noop,
	.relations = sy_gw_route_relations,
	.displaced = sy_gw_route_displaced,
};
