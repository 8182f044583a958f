/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway API GRPCRoute (gateway.networking.k8s.io/v1). A gRPC call is an
 * HTTP/2 POST to /<service>/<method>, so a GRPCRoute is an HTTPRoute whose
 * method matches are path matches: this file checks the spec and turns its
 * rules into HTTPRoute's form; httproute.c does the rest (parentRefs and
 * listeners, hostnames, headers, filters, backendRefs and ReferenceGrants,
 * statuses):
 *
 *   method Exact, service and method  -> path Exact /<service>/<method>
 *   method Exact, service only        -> path prefix /<service>
 *   method Exact, method only         -> path regex /[^/]+/<method>
 *   method RegularExpression          -> path regex /(?:<service>)/(?:<method>),
 *                                        an absent part [^/]+
 *   no method                         -> every path
 *   headers                           -> as HTTPRoute's
 *
 * Any HTTP method matches (gRPC's is POST). Its backends speak h2c (the
 * listener's side may be HTTP/1.1, h2c or h2: the proxy translates), unless
 * the Service's annotation says h2 over TLS.
 */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "gateway_common.h"
#include "gen/compile.h"
#include "sy_generation.h"

#define GR_MATCHES_MAX 8
#define GR_FILTERS_MAX 16
#define GR_NAME_MAX 1024

static const char *
jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* An identifier: [A-Za-z_][A-Za-z_0-9]*; its length in s, 0 when none. */
static size_t
ident_len(const char *s)
{
	size_t n = 0;

	if (!isalpha((unsigned char)s[0]) && s[0] != '_')
		return 0;
	while (isalnum((unsigned char)s[n]) || s[n] == '_')
		n++;
	return n;
}

/* The spec's service name: an optional leading '.', then identifiers
 * joined by '.' ("pkg.v1.Svc"). */
static bool
service_ok(const char *s)
{
	size_t n;

	if (strlen(s) > GR_NAME_MAX)
		return false;
	if (*s == '.')
		s++;
	for (;;) {
		if ((n = ident_len(s)) == 0)
			return false;
		s += n;
		if (*s == '\0')
			return true;
		if (*s++ != '.')
			return false;
	}
}

static bool
method_ok(const char *s)
{
	return strlen(s) <= GR_NAME_MAX && ident_len(s) > 0 && s[ident_len(s)] == '\0';
}

/* ---------------------------------------------------------- validation -- */

static int
check_method(const json_t *mm, const char *base, const char *who, struct sy_errors *errs)
{
	const json_t *t = json_object_get(mm, "type");
	const char *type = t ? json_string_value(t) : "Exact";
	static const char *const parts[] = { "service", "method" };
	char f[192], why[128];
	size_t k;
	bool re;

	if (!json_is_object(mm))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.type", base);
	if (type == NULL || (strcmp(type, "Exact") != 0 && strcmp(type, "RegularExpression") != 0))
		return sy_err_add(errs, "invalid", who, f,
				  "\"%s\": must be Exact or RegularExpression", type ? type : "");
	re = strcmp(type, "RegularExpression") == 0;
	if (json_object_get(mm, "service") == NULL && json_object_get(mm, "method") == NULL)
		return sy_err_add(errs, "invalid", who, base,
				  "one of service and method is required");
	for (k = 0; k < 2; k++) {
		const json_t *v = json_object_get(mm, parts[k]);
		const char *s = json_string_value(v);

		if (v == NULL)
			continue;
		snprintf(f, sizeof(f), "%s.%s", base, parts[k]);
		if (s == NULL || s[0] == '\0' || strlen(s) > GR_NAME_MAX)
			return sy_err_add(errs, "invalid", who, f,
					  "must be a string of 1 to %d bytes", GR_NAME_MAX);
		if (re && !sy_gw_regex_ok(s, why, sizeof(why)))
			return sy_err_add(errs, "invalid", who, f,
					  "\"%s\": not a regular expression: %s", s, why);
		if (re && strchr(s, '/') != NULL)
			return sy_err_add(errs, "invalid", who, f, "\"%s\": must not contain '/'", s);
		if (!re && k == 0 && !service_ok(s))
			return sy_err_add(errs, "invalid", who, f,
					  "\"%s\": must be a gRPC service name (pkg.Service)", s);
		if (!re && k == 1 && !method_ok(s))
			return sy_err_add(errs, "invalid", who, f,
					  "\"%s\": must be a gRPC method name", s);
	}
	return 0;
}

static int
check_rule(const json_t *rule, size_t i, const char *who, struct sy_errors *errs)
{
	const json_t *ms = json_object_get(rule, "matches"), *fs = json_object_get(rule, "filters");
	const json_t *bs = json_object_get(rule, "backendRefs"), *e;
	char base[160];
	size_t j;
	int bad = 0;

	snprintf(base, sizeof(base), "spec.rules[%zu]", i);
	if (!json_is_object(rule))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(base, sizeof(base), "spec.rules[%zu].matches", i);
	if (ms != NULL && (!json_is_array(ms) || json_array_size(ms) > GR_MATCHES_MAX))
		return sy_err_add(errs, "invalid", who, base, "must be a list of at most %d matches",
				  GR_MATCHES_MAX);
	json_array_foreach(ms, j, e) {
		const json_t *mm = json_object_get(e, "method");

		snprintf(base, sizeof(base), "spec.rules[%zu].matches[%zu]", i, j);
		if (!json_is_object(e)) {
			bad = sy_err_add(errs, "invalid", who, base, "must be an object");
			continue;
		}
		snprintf(base, sizeof(base), "spec.rules[%zu].matches[%zu].method", i, j);
		if (mm != NULL && check_method(mm, base, who, errs) < 0)
			bad = -1;
		snprintf(base, sizeof(base), "spec.rules[%zu].matches[%zu].headers", i, j);
		if (sy_gw_check_kv_matches(json_object_get(e, "headers"), base, true, who, errs) < 0)
			bad = -1;
	}
	snprintf(base, sizeof(base), "spec.rules[%zu].filters", i);
	if (fs != NULL && (!json_is_array(fs) || json_array_size(fs) > GR_FILTERS_MAX))
		return sy_err_add(errs, "invalid", who, base, "must be a list of at most %d filters",
				  GR_FILTERS_MAX);
	json_array_foreach(fs, j, e) {
		const char *type = jstr(e, "type");

		snprintf(base, sizeof(base), "spec.rules[%zu].filters[%zu]", i, j);
		/* a GRPCRoute has no redirect nor rewrite */
		if (json_is_object(e) && strcmp(type, "RequestHeaderModifier") != 0 &&
		    strcmp(type, "ResponseHeaderModifier") != 0 &&
		    strcmp(type, "RequestMirror") != 0 && strcmp(type, "ExtensionRef") != 0) {
			snprintf(base, sizeof(base), "spec.rules[%zu].filters[%zu].type", i, j);
			bad = sy_err_add(errs, "invalid", who, base,
					 "\"%s\": must be RequestHeaderModifier, "
					 "ResponseHeaderModifier, RequestMirror or ExtensionRef",
					 type);
		} else if (sy_gw_check_filter(e, base, false, who, errs) < 0) {
			bad = -1;
		}
	}
	return sy_gw_check_backend_refs(bs, i, who, errs) < 0 ? -1 : bad;
}

static int
validate_grpcroute(const json_t *obj, const char *who, struct sy_errors *errs)
{
	return sy_gw_validate_http_route(obj, who, errs, check_rule);
}

/* ------------------------------------------------------------- compile -- */

/* A match's path, HTTPRoute's form (see the top of this file). The names
 * of an Exact match are checked identifiers: no quoting needed. */
static json_t *
match_path(const json_t *mm)
{
	const char *svc = json_string_value(json_object_get(mm, "service"));
	const char *meth = json_string_value(json_object_get(mm, "method"));
	char v[2 * GR_NAME_MAX + 32];

	if (mm == NULL || (svc == NULL && meth == NULL))
		return json_pack("{s:s, s:s}", "type", "PathPrefix", "value", "/");
	if (strcmp(json_object_get(mm, "type") ? jstr(mm, "type") : "Exact", "Exact") != 0) {
		snprintf(v, sizeof(v), "/(?:%s)/(?:%s)", svc ? svc : "[^/]+", meth ? meth : "[^/]+");
		return json_pack("{s:s, s:s}", "type", "RegularExpression", "value", v);
	}
	if (svc != NULL && meth != NULL) {
		snprintf(v, sizeof(v), "/%s/%s", svc, meth);
		return json_pack("{s:s, s:s}", "type", "Exact", "value", v);
	}
	if (svc != NULL) {
		snprintf(v, sizeof(v), "/%s", svc);
		return json_pack("{s:s, s:s}", "type", "PathPrefix", "value", v);
	}
	snprintf(v, sizeof(v), "/[^/]+/%s", meth);
	return json_pack("{s:s, s:s}", "type", "RegularExpression", "value", v);
}

/* spec.rules with their matches as HTTPRoute's. New reference. */
static json_t *
http_rules(const json_t *spec)
{
	const json_t *rules = json_object_get(spec, "rules"), *rule, *m;
	json_t *out = json_array();
	size_t i, j;

	json_array_foreach(rules, i, rule) {
		json_t *r = json_copy((json_t *)rule), *ms;

		if (r == NULL || out == NULL) {
			json_decref(r);
			continue;
		}
		if (json_array_size(json_object_get(rule, "matches")) > 0) {
			ms = json_array();
			json_array_foreach(json_object_get(rule, "matches"), j, m) {
				json_t *hm = json_object();

				json_object_set_new(hm, "path",
						    match_path(json_object_get(m, "method")));
				if (json_object_get(m, "headers") != NULL)
					json_object_set(hm, "headers", json_object_get(m, "headers"));
				json_array_append_new(ms, hm);
			}
			json_object_set_new(r, "matches", ms);
		}
		json_array_append_new(out, r);
	}
	return out;
}

int
sy_grpcroute_compile_all(struct sy_gw_set *set)
{
	static const struct sy_gw_http_kind k = { &sy_kind_grpcroute, SY_GW_KIND_GRPCROUTE,
						  SY_BE_H2C, http_rules };

	return sy_gw_http_compile_all(set, &k);
}

const struct sy_kind sy_kind_grpcroute = {
	.kind = "GRPCRoute",
	.group = SY_GW_GROUP,
	.api_versions = (const char *const[]){ "gateway.networking.k8s.io/v1", NULL },
	.names = (const char *const[]){ "grpcroute", "grpcroutes",
					"grpcroutes.gateway.networking.k8s.io", NULL },
	.generation = true,
	.validate = validate_grpcroute,
	.compile = sy_gw_route_compile_noop,
	.relations = sy_gw_route_relations,
	.displaced = sy_gw_route_displaced,
};
