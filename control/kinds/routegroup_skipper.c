/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Skipper RouteGroup (zalando.org/v1). Validation copies Skipper's
 * dataclients/kubernetes/definitions/routegroupvalidator.go and
 * routegroups.go with their messages: the first problem of the basic checks
 * (spec, backends, backend references, routes), then every filter,
 * predicate, network address and host problem. Any error rejects the whole
 * group, as Skipper's webhook does.
 *
 * Compilation copies dataclients/kubernetes/routegroup.go: one rule per
 * route x backend reference (methods kept as a bit set, which is what
 * Skipper's one-route-per-method amounts to), the traffic split as Skipper's
 * Traffic() + True() chain (traffic.go), a shunt catch-all per host when no
 * route of the group is Host-only, and Skipper's route priority (path tree
 * first, then the number of predicates) as rule priority. Routes whose
 * Service is missing are dropped ("Ignoring route: ..."), the rest stay.
 * network and lb backends send to the addresses their URLs name (a pool of
 * its own, control/gen/pool.c). Unlike Skipper, the group gets a status:
 * {valid, errors, routes}, and backendErrors when some of those URLs are
 * not served (refused, a host name that did not resolve).
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "arena.h"
#include "gen/backend_url.h"
#include "gen/compile.h"
#include "kinds/eskip.h"
#include "kind_util.h"
#include "kinds.h"
#include "store/relations.h"
#include "gen/rule_match.h"
#include "gen/service_endpoints.h"

/* ---------------------------------------------------------- validation -- */

/* eskip.BackendTypeFromString plus the RouteGroup's own "service" ("" is service). */
static bool
backend_type_known(const char *t)
{
	static const char *const types[] = { "", "service", "network", "shunt", "loopback",
					     "dynamic", "lb", "forward", NULL };
	int i;

	for (i = 0; types[i] != NULL; i++)
		if (strcmp(t, types[i]) == 0)
			return true;
	return false;
}

/* loadbalancer.AlgorithmFromString ("" = the default, roundRobin). */
static int
lb_strategy(const char *a, enum sy_lb_strategy *out)
{
	static const struct {
		const char *name;
		enum sy_lb_strategy s;
	} algs[] = {
		{ "", SY_LB_ROUND_ROBIN },
		{ "roundRobin", SY_LB_ROUND_ROBIN },
		{ "weightedRoundRobin", SY_LB_ROUND_ROBIN },
		{ "random", SY_LB_RANDOM },
		{ "consistentHash", SY_LB_CONSISTENT_HASH },
		{ "powerOfRandomNChoices", SY_LB_POWER_OF_RANDOM_N },
		{ "leastRequests", SY_LB_LEAST_REQUESTS },
	};
	size_t i;

	for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++)
		if (strcmp(a, algs[i].name) == 0) {
			*out = algs[i].s;
			return 0;
		}
	return -1;
}

/*
 * Skipper decodes RouteGroups with Go's encoding/json, which matches field
 * names case-insensitively ("backendname" is BackendName; Skipper's own
 * fixtures rely on it): the exact key first, then any case.
 */
static json_t *
rg_get(const json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);
	const char *k;
	json_t *val;

	if (v != NULL || !json_is_object(o))
		return v;
	json_object_foreach((json_t *)o, k, val)
		if (strcasecmp(k, key) == 0)
			return val;
	return NULL;
}

static const char *
jstr(const json_t *o, const char *key)
{
	const char *s = json_string_value(rg_get(o, key));

	return s ? s : "";
}

/* SkipperBackend.validate(), wrapped by invalidBackend(). */
static int
check_backend(const json_t *b, const char *name, const char *base, const char *who,
	      struct sy_errors *errs)
{
	const char *type = jstr(b, "type");
	const json_t *port = rg_get(b, "servicePort");
	enum sy_lb_strategy s;
	char f[128];

	/* The algorithm is parsed after the type; its error wins (UnmarshalJSON). */
	snprintf(f, sizeof(f), "%.100s.algorithm", base);
	if (lb_strategy(jstr(b, "algorithm"), &s) < 0)
		return sy_err_add(errs, "invalid", who, f, "invalid backend: %s, unsupported algorithm", name);
	snprintf(f, sizeof(f), "%.100s.type", base);
	if (!backend_type_known(type))
		return sy_err_add(errs, "invalid", who, f,
				  "invalid backend: %s, unsupported backend type: %s", name, type);
	snprintf(f, sizeof(f), "%.100s.name", base);
	if (name[0] == '\0')
		return sy_err_add(errs, "invalid", who, f, "invalid backend: , unnamed backend");
	if (strcmp(type, "network") == 0 && jstr(b, "address")[0] == '\0') {
		snprintf(f, sizeof(f), "%.100s.address", base);
		return sy_err_add(errs, "invalid", who, f,
				  "invalid backend: %s, address missing in backend: %s", name, name);
	}
	if (type[0] == '\0' || strcmp(type, "service") == 0) {
		json_int_t p = json_is_integer(port) ? json_integer_value(port) : 0;

		if (jstr(b, "serviceName")[0] == '\0') {
			snprintf(f, sizeof(f), "%.100s.serviceName", base);
			return sy_err_add(errs, "invalid", who, f,
					  "invalid backend: %s, service name missing in backend: %s", name,
					  name);
		}
		if (p <= 0 || p > 65535) {
			snprintf(f, sizeof(f), "%.100s.servicePort", base);
			return sy_err_add(errs, "invalid", who, f,
					  "invalid backend: %s, invalid service port in backend: %s, %lld",
					  name, name, (long long)p);
		}
	}
	if (strcmp(type, "lb") == 0 && json_array_size(rg_get(b, "endpoints")) == 0) {
		snprintf(f, sizeof(f), "%.100s.endpoints", base);
		return sy_err_add(errs, "invalid", who, f,
				  "invalid backend: %s, missing LB endpoints in backend: %s", name, name);
	}
	return 0;
}

/* BackendReferences.validate(): duplicates first, then each reference. */
static int
check_refs(const json_t *refs, const json_t *names, const char *base, const char *who,
	   struct sy_errors *errs)
{
	json_t *seen = json_object();
	const json_t *ref;
	size_t i;
	int rc = 0;
	char f[128];

	json_array_foreach(refs, i, ref) {
		const char *n = jstr(ref, "backendName");
		const json_t *w = rg_get(ref, "weight");

		snprintf(f, sizeof(f), "%s[%zu].backendName", base, i);
		if (rg_get(seen, n) != NULL) {
			rc = sy_err_add(errs, "invalid", who, f, "duplicate backend reference: %s", n);
			break;
		}
		json_object_set_new(seen, n, json_true());
		if (n[0] == '\0') {
			rc = sy_err_add(errs, "invalid", who, f, "unnamed backend reference");
			break;
		}
		if (rg_get(names, n) == NULL) {
			rc = sy_err_add(errs, "invalid", who, f, "invalid backend reference: %s", n);
			break;
		}
		if (json_is_integer(w) && json_integer_value(w) < 0) {
			snprintf(f, sizeof(f), "%s[%zu].weight", base, i);
			rc = sy_err_add(errs, "invalid", who, f, "invalid weight in backend: %s, %lld", n,
					(long long)json_integer_value(w));
			break;
		}
	}
	json_decref(seen);
	return rc;
}

/* RouteGroupSpec.validate() and RouteSpec.validate(): the first problem only. */
static int
basic_validation(const json_t *spec, const char *who, struct sy_errors *errs)
{
	const json_t *backends = rg_get(spec, "backends");
	const json_t *defaults = rg_get(spec, "defaultBackends");
	const json_t *routes = rg_get(spec, "routes");
	json_t *names = json_object();
	const json_t *b, *r;
	size_t i, j;
	bool has_default = json_array_size(defaults) > 0;
	int rc = -1;
	char f[128];

	if (!json_is_array(backends) || json_array_size(backends) == 0) {
		sy_err_add(errs, "invalid", who, "spec.backends", "route group without backend");
		goto out;
	}
	json_array_foreach(backends, i, b) {
		const char *name = jstr(b, "name");

		snprintf(f, sizeof(f), "spec.backends[%zu]", i);
		if (rg_get(names, name) != NULL) {
			snprintf(f, sizeof(f), "spec.backends[%zu].name", i);
			sy_err_add(errs, "invalid", who, f, "backends with duplicate name: %s", name);
			goto out;
		}
		json_object_set_new(names, name, json_true());
		if (check_backend(b, name, f, who, errs) < 0)
			goto out;
	}
	if (check_refs(defaults, names, "spec.defaultBackends", who, errs) < 0)
		goto out;
	if (!has_default && json_array_size(routes) == 0) {
		sy_err_add(errs, "invalid", who, "spec.defaultBackends", "missing backend reference");
		goto out;
	}
	json_array_foreach(routes, i, r) {
		const json_t *m;

		if (!json_is_object(r)) {
			snprintf(f, sizeof(f), "spec.routes[%zu]", i);
			sy_err_add(errs, "invalid", who, f, "invalid route spec");
			goto out;
		}
		snprintf(f, sizeof(f), "spec.routes[%zu].backends", i);
		if (!has_default && json_array_size(rg_get(r, "backends")) == 0) {
			sy_err_add(errs, "invalid", who, f, "missing backend reference");
			goto out;
		}
		if (check_refs(rg_get(r, "backends"), names, f, who, errs) < 0)
			goto out;
		if (jstr(r, "path")[0] && jstr(r, "pathSubtree")[0]) {
			snprintf(f, sizeof(f), "spec.routes[%zu].pathSubtree", i);
			sy_err_add(errs, "invalid", who, f, "path and path subtree in the same route");
			goto out;
		}
		json_array_foreach(rg_get(r, "methods"), j, m) {
			if (json_string_length(m) == 0) {
				snprintf(f, sizeof(f), "spec.routes[%zu].methods[%zu]", i, j);
				sy_err_add(errs, "invalid", who, f, "invalid method");
				goto out;
			}
		}
	}
	rc = 0;
out:
	json_decref(names);
	return rc;
}

/* The CRD's hosts pattern ^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$, max 255. */
static bool
host_ok(const char *h)
{
	size_t i, n = strlen(h);

	if (n == 0 || n > 255)
		return false;
	for (i = 0; i < n; i++) {
		char c = h[i];
		bool alnum = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9');

		if (c == '.') {
			if (i == 0 || i + 1 == n || h[i - 1] == '.' || h[i - 1] == '-' || h[i + 1] == '-')
				return false;
		} else if (c == '-') {
			if (i == 0 || i + 1 == n)
				return false;
		} else if (!alnum) {
			return false;
		}
	}
	return true;
}

/* Go's url.Parse, as far as validateBackends looks: scheme, host, path, query. */
static bool
network_address_ok(const char *a)
{
	const char *p = a, *host, *end;

	if (!isalpha((unsigned char)*p))
		return false;
	while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
		p++;
	if (p[0] != ':' || p[1] != '/' || p[2] != '/')
		return false;
	host = p + 3;
	end = host + strcspn(host, "/?#");
	if (end == host)
		return false;
	return *end == '\0' || *end == '#';
}

static int
validate_routegroup(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *spec = rg_get(obj, "spec");
	const json_t *r, *v, *b, *hosts;
	json_t *seen;
	size_t i, j;
	int bad = 0;
	char f[128], msg[512];

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "route group without spec");
	if (basic_validation(spec, who, errs) < 0)
		return -1;
	/* validateFilters, validatePredicates: every item, exactly one each. */
	json_array_foreach(rg_get(spec, "routes"), i, r) {
		json_array_foreach(rg_get(r, "filters"), j, v) {
			struct sy_eskip_call c;

			snprintf(f, sizeof(f), "spec.routes[%zu].filters[%zu]", i, j);
			if (sy_eskip_parse_filter(json_is_string(v) ? json_string_value(v) : "", &c, msg,
						  sizeof(msg)) < 0)
				bad = sy_err_add(errs, "invalid", who, f, "%s", msg);
			else
				sy_eskip_call_free(&c);
		}
		json_array_foreach(rg_get(r, "predicates"), j, v) {
			struct sy_eskip_call c;

			snprintf(f, sizeof(f), "spec.routes[%zu].predicates[%zu]", i, j);
			if (sy_eskip_parse_predicate(json_is_string(v) ? json_string_value(v) : "", &c,
						     msg, sizeof(msg)) < 0)
				bad = sy_err_add(errs, "invalid", who, f, "%s", msg);
			else
				sy_eskip_call_free(&c);
		}
		/* The CRD's methods enum (Skipper upper-cases them). */
		json_array_foreach(rg_get(r, "methods"), j, v) {
			const char *m = json_is_string(v) ? json_string_value(v) : "";

			if (sy_rm_method_bit(m, true) == 0) {
				snprintf(f, sizeof(f), "spec.routes[%zu].methods[%zu]", i, j);
				bad = sy_err_add(errs, "invalid", who, f,
						 "Unsupported value: \"%s\": supported values: \"GET\", "
						 "\"HEAD\", \"PATCH\", \"POST\", \"PUT\", \"DELETE\", "
						 "\"CONNECT\", \"OPTIONS\", \"TRACE\"",
						 m);
			}
		}
	}
	json_array_foreach(rg_get(spec, "backends"), i, b) {
		const char *addr = jstr(b, "address");

		if (strcmp(jstr(b, "type"), "network") != 0 || network_address_ok(addr))
			continue;
		snprintf(f, sizeof(f), "spec.backends[%zu].address", i);
		{
			char *q = sy_eskip_go_quote(addr);

			bad = sy_err_add(errs, "invalid", who, f,
					 "backend address %s does not match scheme://host format",
					 q ? q : addr);
			free(q);
		}
	}
	hosts = rg_get(spec, "hosts");
	seen = json_object();
	json_array_foreach(hosts, i, v) {
		const char *h = json_is_string(v) ? json_string_value(v) : "";

		snprintf(f, sizeof(f), "spec.hosts[%zu]", i);
		if (rg_get(seen, h) != NULL) {
			char *q = sy_eskip_go_quote(h);

			bad = sy_err_add(errs, "invalid", who, f, "duplicate host %s", q ? q : h);
			free(q);
		} else if (!host_ok(h)) {
			bad = sy_err_add(errs, "invalid", who, f,
					 "Invalid value: \"%s\": %s in body should match "
					 "'^[a-z0-9]([-a-z0-9]*[a-z0-9])?([.][a-z0-9]([-a-z0-9]*[a-z0-9])?)*$'",
					 h, f);
		}
		json_object_set_new(seen, h, json_true());
	}
	json_decref(seen);
	return bad;
}

/* ------------------------------------------------------------- compile -- */

/*
 * Strings rule candidates point to (parsed predicate and filter arguments)
 * must live until sy_compile returns; the generation copies them. They are
 * kept here until the next compile.
 */
static json_t *rg_strings;
/* "ns/name host" -> rules that group put on the host (for `displaced`). */
static json_t *rg_host_rules;

static void
drop_rg_json(void *p)
{
	json_decref(p);
	if (rg_strings == p)
		rg_strings = NULL;
	if (rg_host_rules == p)
		rg_host_rules = NULL;
}

static const char *
keep(const char *s)
{
	json_t *j = json_string(s ? s : "");

	if (j == NULL || json_array_append_new(rg_strings, j) < 0)
		return NULL;
	return json_string_value(j);
}

static const char *
keep_owned(char *s)
{
	const char *k = s ? keep(s) : NULL;

	free(s);
	return k;
}

/* One group being compiled. */
struct rg_ctx {
	struct sy_compile_ctx *cx;
	struct sy_object *o;
	const json_t *spec;
	json_t *errors;            /* status errors: {field, message} */
	struct sy_rule_in *rules;  /* host-less; copied per host when emitted */
	size_t n_rules, cap;
	bool host_only;            /* some rule has only the Host predicate */
};

static void
status_error(struct rg_ctx *g, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void
status_error(struct rg_ctx *g, const char *field, const char *fmt, ...)
{
	char msg[1024];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	json_array_append_new(g->errors, json_pack("{s:s, s:s}", "field", field, "message", msg));
}

/* trafficPredicateCalculator (traffic.go): Traffic(w_i / what is left),
 * n-i-2 True() so earlier backends sort first, none for the last backend with
 * a weight; zero weights get Traffic(0). Unset weights are 0; all unset: 1. */
static void
traffic_calc(const json_t *refs, double *value, int *balance, uint32_t *weight)
{
	size_t n = json_array_size(refs), i, last = 0;
	double sum = 0;

	for (i = 0; i < n; i++) {
		const json_t *w = rg_get(json_array_get(refs, i), "weight");

		weight[i] = json_is_integer(w) && json_integer_value(w) > 0
				    ? (uint32_t)json_integer_value(w)
				    : 0;
		sum += weight[i];
	}
	if (sum == 0) {
		for (i = 0; i < n; i++)
			weight[i] = 1;
		sum = (double)n;
	}
	for (i = 0; i < n; i++)
		if (weight[i] > 0)
			last = i;
	for (i = 0; i < n; i++) {
		if (i == last)
			value[i] = 1.0;
		else if (weight[i] == 0)
			value[i] = 0;
		else
			value[i] = weight[i] / sum;
		sum -= weight[i];
		balance[i] = (int)n - (int)i - 2;
	}
}

static bool
regex_ok(const char *re, char *err, size_t errlen)
{
	char why[256];

	if (sy_kind_regex_ok(re, why, sizeof(why)))
		return true;
	snprintf(err, errlen, "error parsing regexp: %s: `%s`", why, re);
	return false;
}

static bool
arg_is_text(const struct sy_eskip_call *c, unsigned i)
{
	return i < c->n_args && c->args[i].type != SY_ESKIP_NUMBER;
}

/* Where a rule stands: Skipper's leaf weight (routing/matcher.go: host,
 * path regexps, method, headers and other predicates each count one;
 * Weight(n) adds n). */
struct rule_build {
	struct sy_rule_in *r;
	int weight;
	bool has_path;
	bool has_method;
	int status;        /* status() filter, 0 if none */
	const char *body;  /* inlineContent() */
	bool redirect;
};

static int
add_pred(struct rule_build *rb, enum sy_pred_type type, const char *name, const char *value,
	 char *err, size_t errlen)
{
	struct sy_pred_in *p;

	if (rb->r->n_preds == SY_RULE_PREDS_MAX) {
		snprintf(err, errlen, "too many predicates (this router keeps at most %d per route)",
			 SY_RULE_PREDS_MAX);
		return -1;
	}
	p = &rb->r->preds[rb->r->n_preds++];
	memset(p, 0, sizeof(*p));
	p->type = type;
	p->name = name;
	p->value = value;
	rb->weight++;
	return 0;
}

/* A user predicate (routegroup.go appends them after Path, PathRegexp, Host, Method). */
static int
apply_predicate(struct rule_build *rb, const struct sy_eskip_call *c, char *err, size_t errlen)
{
	const char *n = c->name;
	struct sy_rule_in *r = rb->r;
	unsigned i;

	if (strcmp(n, "Path") == 0 || strcmp(n, "PathSubtree") == 0) {
		if (c->n_args != 1 || !arg_is_text(c, 0))
			goto bad_args;
		if (rb->has_path) {
			snprintf(err, errlen, "duplicate path tree predicate");
			return -1;
		}
		rb->has_path = true;
		r->match = n[4] == '\0' ? SY_PATH_EXACT : SY_PATH_PREFIX;
		r->path = keep(c->args[0].text);
		return r->path ? 0 : -ENOMEM;
	}
	if (strcmp(n, "Method") == 0) {
		if (c->n_args != 1 || !arg_is_text(c, 0))
			goto bad_args;
		if (rb->has_method) {
			snprintf(err, errlen, "duplicate method predicate");
			return -1;
		}
		rb->has_method = true;
		rb->weight++;
		r->methods = sy_rm_method_bit(c->args[0].text, true);
		if (r->methods == 0)
			r->methods = 1u << 31; /* a method no request has */
		return 0;
	}
	if (strcmp(n, "Weight") == 0) {
		if (c->n_args != 1 || c->args[0].type != SY_ESKIP_NUMBER)
			goto bad_args;
		rb->weight += (int)c->args[0].number;
		return 0;
	}
	if (strcmp(n, "True") == 0)
		return c->n_args ? (snprintf(err, errlen, "invalid predicate parameters"), -1)
				 : add_pred(rb, SY_PRED_TRUE, NULL, NULL, err, errlen);
	if (strcmp(n, "Traffic") == 0) {
		if ((c->n_args != 1 && c->n_args != 3) || c->args[0].type != SY_ESKIP_NUMBER)
			goto bad_args;
		if (add_pred(rb, SY_PRED_TRAFFIC, NULL, NULL, err, errlen) < 0)
			return -1;
		r->preds[r->n_preds - 1].fraction = c->args[0].number;
		return 0;
	}
	if (strcmp(n, "Header") == 0) {
		if (c->n_args != 2 || !arg_is_text(c, 0) || !arg_is_text(c, 1))
			goto bad_args;
		return add_pred(rb, SY_PRED_HEADER, keep(c->args[0].text), keep(c->args[1].text), err, errlen);
	}
	if (strcmp(n, "HeaderRegexp") == 0 || strcmp(n, "Cookie") == 0) {
		if (c->n_args != 2 || !arg_is_text(c, 0) || !arg_is_text(c, 1))
			goto bad_args;
		if (!regex_ok(c->args[1].text, err, errlen))
			return -1;
		return add_pred(rb, n[0] == 'C' ? SY_PRED_COOKIE : SY_PRED_HEADER_REGEXP,
				keep(c->args[0].text), keep(c->args[1].text), err, errlen);
	}
	if (strcmp(n, "PathRegexp") == 0 || strcmp(n, "Host") == 0) {
		if (c->n_args != 1 || !arg_is_text(c, 0))
			goto bad_args;
		if (!regex_ok(c->args[0].text, err, errlen))
			return -1;
		return add_pred(rb, n[0] == 'P' ? SY_PRED_PATH_REGEXP : SY_PRED_HOST_REGEXP, NULL,
				keep(c->args[0].text), err, errlen);
	}
	if (strcmp(n, "QueryParam") == 0) {
		/* QueryParam("name"): present; QueryParam("name", "regexp"). An
		 * empty regex matches any value, so one predicate says both. */
		if (c->n_args < 1 || c->n_args > 2 || !arg_is_text(c, 0) ||
		    (c->n_args == 2 && !arg_is_text(c, 1)))
			goto bad_args;
		if (c->n_args == 2 && !regex_ok(c->args[1].text, err, errlen))
			return -1;
		return add_pred(rb, SY_PRED_QUERY_REGEXP, keep(c->args[0].text),
				c->n_args == 2 ? keep(c->args[1].text) : "", err, errlen);
	}
	if (strcmp(n, "JWTPayloadAllKV") == 0 || strcmp(n, "JWTPayloadAnyKV") == 0) {
		struct sy_pred_in *p;

		if (c->n_args == 0 || c->n_args % 2 != 0 || c->n_args > SY_PRED_KV_MAX)
			goto bad_args;
		for (i = 0; i < c->n_args; i++)
			if (!arg_is_text(c, i))
				goto bad_args;
		if (add_pred(rb, strstr(n, "All") ? SY_PRED_JWT_ALL_KV : SY_PRED_JWT_ANY_KV, NULL, NULL,
			     err, errlen) < 0)
			return -1;
		p = &r->preds[r->n_preds - 1];
		for (i = 0; i < c->n_args; i++)
			p->kv[i] = keep(c->args[i].text);
		p->n_kv = c->n_args;
		return 0;
	}
	/* routing: a route naming a predicate the router does not have is dropped. */
	snprintf(err, errlen, "predicate not found: '%s'", n);
	return -1;
bad_args:
	snprintf(err, errlen, "invalid predicate parameters");
	return -1;
}

static enum sy_filter_type
filter_type(const char *n)
{
	static const struct {
		const char *name;
		enum sy_filter_type t;
	} types[] = {
		{ "redirectTo", SY_FILTER_REDIRECT_TO },
		{ "modPath", SY_FILTER_MOD_PATH },
		{ "setPath", SY_FILTER_SET_PATH },
		{ "setRequestHeader", SY_FILTER_SET_REQUEST_HEADER },
		{ "setResponseHeader", SY_FILTER_SET_RESPONSE_HEADER },
		{ "appendRequestHeader", SY_FILTER_APPEND_REQUEST_HEADER },
		{ "appendResponseHeader", SY_FILTER_APPEND_RESPONSE_HEADER },
		{ "dropRequestHeader", SY_FILTER_DELETE_REQUEST_HEADER },
		{ "dropResponseHeader", SY_FILTER_DELETE_RESPONSE_HEADER },
		{ "responseCookie", SY_FILTER_RESPONSE_COOKIE },
		{ "status", SY_FILTER_STATUS },
		{ "inlineContent", SY_FILTER_INLINE_CONTENT },
		{ "ratelimit", SY_FILTER_RATELIMIT },
		{ "clientRatelimit", SY_FILTER_CLIENT_RATELIMIT },
	};
	size_t i;

	for (i = 0; i < sizeof(types) / sizeof(types[0]); i++)
		if (strcmp(n, types[i].name) == 0)
			return types[i].t;
	return SY_FILTER_OTHER;
}

static int
add_filter(struct sy_rule_in *r, enum sy_filter_type t, const char *name, const char *args,
	   char *err, size_t errlen)
{
	if (r->n_filters == SY_RULE_FILTERS_MAX) {
		snprintf(err, errlen, "too many filters (this router keeps at most %d per route)",
			 SY_RULE_FILTERS_MAX);
		return -1;
	}
	r->filters[r->n_filters].type = t;
	r->filters[r->n_filters].name = name;
	r->filters[r->n_filters].args = args;
	r->n_filters++;
	return 0;
}

static int
apply_filter(struct rule_build *rb, const struct sy_eskip_call *c, char *err, size_t errlen)
{
	enum sy_filter_type t = filter_type(c->name);
	struct sy_rule_in *r = rb->r;

	switch (t) {
	case SY_FILTER_REDIRECT_TO:
		/* filters/builtin/redirect.go: redirectTo(code, location). */
		if (c->n_args != 2 || c->args[0].type != SY_ESKIP_NUMBER || !arg_is_text(c, 1))
			goto bad_args;
		if (!rb->redirect) {
			rb->redirect = true;
			r->status = (uint16_t)c->args[0].number;
			r->location = keep(c->args[1].text);
		}
		break;
	case SY_FILTER_STATUS:
		if (c->n_args != 1 || c->args[0].type != SY_ESKIP_NUMBER)
			goto bad_args;
		rb->status = (int)c->args[0].number;
		break;
	case SY_FILTER_INLINE_CONTENT:
		if (c->n_args < 1 || c->n_args > 2 || !arg_is_text(c, 0))
			goto bad_args;
		rb->body = keep(c->args[0].text);
		break;
	default:
		break;
	}
	return add_filter(r, t, keep(c->name), keep_owned(sy_eskip_args_json(c)), err, errlen);
bad_args:
	snprintf(err, errlen, "invalid filter parameters");
	return -1;
}

/* The addresses of the groups (Endpoints subsets, EndpointSlices) that
 * serve the Service port named pname / targeting `target`. */
struct rg_port_count {
	const char *pname;
	json_int_t target;
	int n;
};

static void
count_group(void *arg, const char *const *ips, size_t n_ips, const json_t *ports)
{
	struct rg_port_count *c = arg;
	const json_t *ep;
	bool match = false;
	size_t j;

	(void)ips;
	json_array_foreach(ports, j, ep) {
		const char *en = json_string_value(rg_get(ep, "name"));

		if ((c->pname && en && strcmp(c->pname, en) == 0) ||
		    json_integer_value(rg_get(ep, "port")) == c->target ||
		    (c->pname == NULL && en == NULL))
			match = true;
	}
	if (match)
		c->n += (int)n_ips;
}

/* Ready endpoint addresses of the Service port `port` (by number) in ns:
 * -1 when the Service is missing or has no such port (err says which, with
 * Skipper's words), else the count. */
static int
service_endpoints(struct sy_compile_ctx *cx, const char *ns, const char *svc, json_int_t port,
		  char *err, size_t errlen)
{
	struct sy_object *s = sy_store_find(cx->st, &sy_kind_service, ns, svc);
	const json_t *sp = NULL, *p;
	struct rg_port_count c = { 0 };
	const char *type;
	size_t i;

	if (s == NULL) {
		snprintf(err, errlen, "service not found: %s/%s", ns, svc);
		return -1;
	}
	type = json_string_value(rg_get(rg_get(s->obj, "spec"), "type"));
	if (type != NULL && strcasecmp(type, "ClusterIP") != 0) {
		snprintf(err, errlen, "not supported service type in service/%s/%s: %s", ns, svc, type);
		return -1;
	}
	json_array_foreach(rg_get(rg_get(s->obj, "spec"), "ports"), i, p)
		if (json_integer_value(rg_get(p, "port")) == port)
			sp = p;
	if (sp == NULL) {
		snprintf(err, errlen, "target port not found: %s:%lld", svc, (long long)port);
		return -1;
	}
	c.pname = json_string_value(rg_get(sp, "name"));
	c.target = json_is_integer(rg_get(sp, "targetPort"))
			   ? json_integer_value(rg_get(sp, "targetPort"))
			   : port;
	sy_service_endpoints_each(cx->st, cx->opts->rel, ns, svc, count_group, &c);
	return c.n;
}

/*
 * A network backend's address or an lb backend's endpoints, as written
 * (Skipper's eskip network backend and <algorithm, endpoints...> lb
 * backend). They point into the group's JSON and the compile's scratch
 * memory, which last until sy_compile returns. NULL on out of memory.
 */
static const struct sy_url_backend *
url_backend(struct rg_ctx *g, const json_t *be, const char *type)
{
	const json_t *eps = rg_get(be, "endpoints"), *v;
	struct sy_url_backend *ub = sy_arena_alloc(g->cx->scratch, sizeof(*ub));
	const char **urls;
	size_t i;

	if (ub == NULL)
		return NULL;
	if (strcmp(type, "network") == 0) {
		ub->type = SY_URL_BACKEND_NETWORK;
		ub->n_urls = 1;
	} else {
		ub->type = SY_URL_BACKEND_LB;
		ub->n_urls = (uint32_t)json_array_size(eps);
		ub->algorithm = jstr(be, "algorithm")[0] ? jstr(be, "algorithm") : "roundRobin";
	}
	urls = sy_arena_alloc(g->cx->scratch, ub->n_urls * sizeof(*urls));
	if (urls == NULL)
		return NULL;
	if (ub->type == SY_URL_BACKEND_NETWORK)
		urls[0] = jstr(be, "address");
	else
		json_array_foreach(eps, i, v)
			urls[i] = json_string_value(v) ? json_string_value(v) : "";
	ub->urls = urls;
	return ub;
}

/*
 * One rule: route (NULL for an implicit route), its methods, one backend
 * reference with its traffic share. 0, -1 with err (the route is dropped),
 * or -ENOMEM.
 */
static int
make_rule(struct rg_ctx *g, const json_t *route, const json_t *be, double traffic, int balance,
	  uint32_t weight, struct sy_rule_in *r, char *err, size_t errlen)
{
	struct rule_build rb = { .r = r };
	const char *type = jstr(be, "type");
	const json_t *v;
	size_t i;
	int k;

	memset(r, 0, sizeof(*r));
	if (sy_rule_in_reserve(g->cx, r) < 0)
		return -ENOMEM;
	r->o = g->o;
	r->path = "/";
	r->match = SY_PATH_PREFIX;
	r->weights = SY_WEIGHTS_PER_SERVICE;
	rb.weight = 1; /* the Host predicate (groups without hosts are not served) */
	if (route != NULL) {
		const char *path = jstr(route, "path"), *sub = jstr(route, "pathSubtree");
		const char *rx = jstr(route, "pathRegexp");

		/* Path preferred over PathSubtree, "because it is more specific". */
		if (path[0]) {
			r->path = path;
			r->match = SY_PATH_EXACT;
			rb.has_path = true;
		} else if (sub[0]) {
			size_t n = strlen(sub);

			/* PathSubtree ignores a trailing slash. */
			while (n > 1 && sub[n - 1] == '/')
				n--;
			r->path = n == strlen(sub) ? sub : keep_owned(strndup(sub, n));
			rb.has_path = true;
		}
		if (rx[0]) {
			if (!regex_ok(rx, err, errlen))
				return -1;
			if (add_pred(&rb, SY_PRED_PATH_REGEXP, NULL, rx, err, errlen) < 0)
				return -1;
		}
		json_array_foreach(rg_get(route, "methods"), i, v)
			r->methods |= sy_rm_method_bit(json_string_value(v), true);
		if (r->methods) {
			rb.has_method = true;
			rb.weight++;
		}
		json_array_foreach(rg_get(route, "predicates"), i, v) {
			struct sy_eskip_call c;
			int rc;

			if (sy_eskip_parse_predicate(json_string_value(v), &c, err, errlen) < 0)
				return -1;
			rc = apply_predicate(&rb, &c, err, errlen);
			sy_eskip_call_free(&c);
			if (rc < 0)
				return rc;
		}
		json_array_foreach(rg_get(route, "filters"), i, v) {
			struct sy_eskip_call c;
			int rc;

			if (sy_eskip_parse_filter(json_string_value(v), &c, err, errlen) < 0)
				return -1;
			rc = apply_filter(&rb, &c, err, errlen);
			sy_eskip_call_free(&c);
			if (rc < 0)
				return rc;
		}
	}
	/* Backend (routegroup.go applyBackend). */
	if (type[0] == '\0' || strcmp(type, "service") == 0) {
		const json_t *port = rg_get(be, "servicePort");
		int n = service_endpoints(g->cx, g->o->ns, jstr(be, "serviceName"),
					  json_integer_value(port), err, errlen);

		if (n < 0)
			return -1;
		lb_strategy(jstr(be, "algorithm"), &r->strategy);
		if (n == 0) {
			/* No endpoints: status(502) -> inlineContent("no endpoints") -> <shunt>,
			 * the user's filters dropped. */
			r->n_filters = 0;
			rb.redirect = false;
			rb.status = 502;
			rb.body = "no endpoints";
			type = "shunt";
			if (add_filter(r, SY_FILTER_STATUS, "status", "[502]", err, errlen) < 0 ||
			    add_filter(r, SY_FILTER_INLINE_CONTENT, "inlineContent", "[\"no endpoints\"]",
				       err, errlen) < 0)
				return -1;
		} else {
			r->action = SY_ACTION_BACKEND;
			r->backends[0].service = jstr(be, "serviceName");
			r->backends[0].weight = weight;
			r->n_backends = 1;
			r->target_port = port;
		}
	} else if (strcmp(type, "network") == 0 || strcmp(type, "lb") == 0) {
		/* The URLs are the pool's endpoints (control/gen/pool.c); one splice
		 * cannot reach leaves the vhost to the proxy mode. */
		if ((r->backends[0].urls = url_backend(g, be, type)) == NULL)
			return -ENOMEM;
		if (type[0] == 'l')
			lb_strategy(jstr(be, "algorithm"), &r->strategy);
		r->action = SY_ACTION_BACKEND;
		r->backends[0].service = jstr(be, "name");
		r->backends[0].weight = weight;
		r->n_backends = 1;
	} else if (strcmp(type, "loopback") == 0) {
		r->action = SY_ACTION_STATIC;
		if (add_filter(r, SY_FILTER_LOOPBACK, "<loopback>", "[]", err, errlen) < 0)
			return -1;
	} else if (strcmp(type, "shunt") != 0) {
		snprintf(err, errlen, "%s backends are not supported by this router", type);
		return -1;
	}
	/* What the request gets: a redirect filter answers before any backend;
	 * inlineContent serves without one; a shunt answers 404 unless a
	 * status() filter says otherwise. */
	if (rb.redirect) {
		r->action = SY_ACTION_REDIRECT;
	} else if (rb.body != NULL || strcmp(type, "shunt") == 0) {
		r->action = SY_ACTION_STATIC;
		r->body = rb.body;
		r->status = (uint16_t)(rb.status ? rb.status : rb.body ? 200 : 404);
	}
	/* trafficPredicate.apply: nothing for the backend that takes the rest. */
	if (traffic != 1.0) {
		if (add_pred(&rb, SY_PRED_TRAFFIC, NULL, NULL, err, errlen) < 0)
			return -1;
		r->preds[r->n_preds - 1].fraction = traffic;
		for (k = 0; k < balance; k++)
			if (add_pred(&rb, SY_PRED_TRUE, NULL, NULL, err, errlen) < 0)
				return -1;
	}
	/* Path tree first (compile.c orders by path), then the leaf weight;
	 * x2+1 leaves room below for the catch-all, which ties with Host-only
	 * routes in Skipper (unspecified there; the route wins here). */
	r->priority = rb.weight * 2 + 1;
	if (rb.weight == 1 && !rb.has_path)
		g->host_only = true;
	return 0;
}

static int
push_rule(struct rg_ctx *g, const struct sy_rule_in *r)
{
	if (g->n_rules == g->cap) {
		size_t cap = g->cap ? g->cap * 2 : 16;
		struct sy_rule_in *grown = realloc(g->rules, cap * sizeof(*grown));

		if (grown == NULL)
			return -ENOMEM;
		g->rules = grown;
		g->cap = cap;
	}
	g->rules[g->n_rules++] = *r;
	return 0;
}

/* Rules of one route (or the implicit routes): all its backends, or none. */
static int
route_rules(struct rg_ctx *g, const json_t *route, size_t idx, const json_t *refs)
{
	const json_t *backends = rg_get(g->spec, "backends");
	size_t n = json_array_size(refs), i, j, mark = g->n_rules;
	double *value = calloc(n ? n : 1, sizeof(*value));
	int *balance = calloc(n ? n : 1, sizeof(*balance));
	uint32_t *weight = calloc(n ? n : 1, sizeof(*weight));
	bool host_only = g->host_only;
	int rc = 0;
	char err[600], field[64];

	if (value == NULL || balance == NULL || weight == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	traffic_calc(refs, value, balance, weight);
	for (i = 0; i < n; i++) {
		const char *name = jstr(json_array_get(refs, i), "backendName");
		const json_t *be = NULL, *b;
		struct sy_rule_in r;

		json_array_foreach(backends, j, b)
			if (strcmp(jstr(b, "name"), name) == 0)
				be = b;
		rc = make_rule(g, route, be, value[i], balance[i], weight[i], &r, err, sizeof(err));
		if (rc == -1) {
			/* explicitGroupRoutes: "Ignoring route", the whole route;
			 * implicitGroupRoutes: the whole group. */
			if (route != NULL) {
				snprintf(field, sizeof(field), "spec.routes[%zu]", idx);
				status_error(g, field, "Ignoring route: %s", err);
			} else {
				snprintf(field, sizeof(field), "spec.defaultBackends[%zu]", i);
				status_error(g, field, "%s", err);
			}
			g->n_rules = mark;
			g->host_only = host_only;
			rc = 0;
			goto out;
		}
		if (rc < 0 || (rc = push_rule(g, &r)) < 0)
			goto out;
	}
out:
	free(value);
	free(balance);
	free(weight);
	return rc;
}

/* One URL of a network / lb backend into backend_errors when the router
 * does not serve it, with the words resolve uses (backend_url.h). */
static void
url_status(json_t *out, const char *field, const char *url)
{
	struct sy_backend_url bu;
	char why[320], msg[800];
	enum sy_backend_url_rc rc = sy_backend_url_resolve(url, &bu, why, sizeof(why));

	if (rc == SY_BACKEND_URL_OK)
		return;
	snprintf(msg, sizeof(msg), "%s: %s; %s", url, why,
		 rc == SY_BACKEND_URL_UNRESOLVED
			 ? "it adds no endpoint (looked up again when a change compiles this group)"
			 : "requests for it get 503");
	json_array_append_new(out, json_pack("{s:s, s:s}", "field", field, "message", msg));
}

/*
 * Not Skipper's: what the router cannot serve among the group's network and
 * lb URLs now (a URL it refuses, a host name that did not resolve, with the
 * resolver's words), so `routerctl describe` shows it without a resolve.
 * The names are looked up when this compile builds the pools anyway; the
 * cache (backend_url.c) makes it one lookup for both.
 */
static json_t *
backend_errors(const json_t *spec)
{
	json_t *out = json_array();
	const json_t *b, *u;
	size_t i, j;
	char field[128];

	json_array_foreach(rg_get(spec, "backends"), i, b) {
		if (strcmp(jstr(b, "type"), "network") == 0) {
			snprintf(field, sizeof(field), "spec.backends[%zu].address", i);
			url_status(out, field, jstr(b, "address"));
		} else if (strcmp(jstr(b, "type"), "lb") == 0) {
			json_array_foreach(rg_get(b, "endpoints"), j, u) {
				snprintf(field, sizeof(field), "spec.backends[%zu].endpoints[%zu]", i, j);
				url_status(out, field, json_is_string(u) ? json_string_value(u) : "");
			}
		}
	}
	return out;
}

static void
set_status(struct sy_object *o, json_t *errors, size_t routes, json_t *backend_errs)
{
	const json_t *old = o->status;
	bool has_be = json_array_size(backend_errs) > 0;

	/* Unchanged, as most are in a full compile: keep the tree. */
	if (json_object_size(old) == (has_be ? 4u : 3u) &&
	    json_is_boolean(json_object_get(old, "valid")) &&
	    json_boolean_value(json_object_get(old, "valid")) == (json_array_size(errors) == 0) &&
	    json_is_integer(json_object_get(old, "routes")) &&
	    json_integer_value(json_object_get(old, "routes")) == (json_int_t)routes &&
	    json_equal(json_object_get(old, "errors"), errors) &&
	    (!has_be || json_equal(json_object_get(old, "backendErrors"), backend_errs)))
		return;
	json_decref(o->status);
	o->status = json_pack("{s:b, s:O, s:I}", "valid", json_array_size(errors) == 0, "errors",
			      errors, "routes", (json_int_t)routes);
	/* Only when there is something to say: most groups have nothing. */
	if (o->status != NULL && json_array_size(backend_errs) > 0)
		json_object_set(o->status, "backendErrors", backend_errs);
}

static int
compile_one(struct sy_compile_ctx *cx, struct sy_object *o)
{
	struct rg_ctx g = { .cx = cx, .o = o, .spec = rg_get(o->obj, "spec") };
	const json_t *routes = rg_get(g.spec, "routes");
	const json_t *hosts = rg_get(g.spec, "hosts");
	json_t *seen = json_object();
	json_t *any_host = NULL, *backend_errs;
	const json_t *r, *h;
	size_t i, j, emitted = 0;
	int rc = 0;

	g.errors = json_array();
	if (json_array_size(hosts) == 0) {
		/* Skipper: no Host predicate, so every host. Here: the default
		 * vhost "", which serves a host no other vhost has. */
		any_host = json_pack("[s]", "");
		hosts = any_host;
	}
	if (json_array_size(routes) == 0) {
		rc = route_rules(&g, NULL, 0, rg_get(g.spec, "defaultBackends"));
		if (json_array_size(g.errors) > 0)
			g.n_rules = 0; /* the whole group fails */
	} else {
		json_array_foreach(routes, i, r) {
			const json_t *refs = json_array_size(rg_get(r, "backends"))
						     ? rg_get(r, "backends")
						     : rg_get(g.spec, "defaultBackends");

			if ((rc = route_rules(&g, r, i, refs)) < 0)
				break;
		}
	}
	json_array_foreach(hosts, i, h) {
		const char *host = json_string_value(h);
		char key[600];
		size_t before = emitted;

		if (rc < 0 || host == NULL || rg_get(seen, host) != NULL || g.n_rules == 0)
			continue;
		json_object_set_new(seen, host, json_true());
		for (j = 0; j <= g.n_rules && rc == 0; j++) {
			struct sy_rule_in copy;

			if (j == g.n_rules) {
				/* hostCatchAllRoutes: Host(...) -> <shunt> when no route
				 * of the group is Host-only (none without hosts: there
				 * is no Host predicate to catch). */
				if (g.host_only || host[0] == '\0')
					break;
				memset(&copy, 0, sizeof(copy));
				copy.o = o;
				copy.path = "/";
				copy.match = SY_PATH_PREFIX;
				copy.action = SY_ACTION_STATIC;
				copy.status = 404;
				copy.priority = 2;
				copy.weights = SY_WEIGHTS_PER_SERVICE;
			} else {
				copy = g.rules[j];
			}
			copy.host = strdup(host);
			if (copy.host == NULL || sy_compile_add_rule(cx, &copy) < 0)
				rc = -ENOMEM;
			else
				emitted++;
		}
		snprintf(key, sizeof(key), "%s/%s %s", o->ns, o->name, host);
		json_object_set_new(rg_host_rules, key, json_integer((json_int_t)(emitted - before)));
	}
	backend_errs = g.n_rules > 0 ? backend_errors(g.spec) : NULL; /* served at all */
	set_status(o, g.errors, emitted, backend_errs);
	json_decref(backend_errs);
	json_decref(g.errors);
	json_decref(seen);
	json_decref(any_host);
	free(g.rules);
	return rc;
}

static int
compile_routegroups(struct sy_compile_ctx *cx)
{
	size_t n = 0, i;
	struct sy_object **objs;
	int rc = 0;

	/* Both live until sy_compile returns (rules point at the strings; the
	 * displaced callback reads the map), freed with its scratch memory. */
	rg_strings = json_array();
	rg_host_rules = json_object();
	if (rg_strings != NULL)
		sy_arena_on_free(cx->scratch, drop_rg_json, rg_strings);
	if (rg_host_rules != NULL)
		sy_arena_on_free(cx->scratch, drop_rg_json, rg_host_rules);
	objs = sy_compile_list(cx, &sy_kind_routegroup, &n);
	if (rg_strings == NULL || rg_host_rules == NULL || (objs == NULL && n > 0)) {
		free(objs);
		return -ENOMEM;
	}
	for (i = 0; i < n && rc == 0; i++)
		rc = compile_one(cx, objs[i]);
	free(objs);
	return rc;
}

/* Skipper has no host ownership; here an older object of another kind keeps
 * the host (compile.c), and the group says which. Called once per rule. */
static void
routegroup_displaced(struct sy_compile_ctx *cx, const struct sy_rule_in *rule, const char *host,
		     const struct sy_object *winner)
{
	struct sy_object *o = rule->o;
	json_t *errors = rg_get(o->status, "errors");
	const json_t *e;
	char msg[700], key[600];
	size_t i;
	json_int_t lost;

	if (!json_is_array(errors))
		return;
	snprintf(msg, sizeof(msg), "host %s is served by %s %s/%s, whose claim is older", host,
		 winner->kind->kind, winner->ns, winner->name);
	json_array_foreach(errors, i, e)
		if (strcmp(jstr(e, "message"), msg) == 0)
			return;
	json_array_append_new(errors, json_pack("{s:s, s:s}", "field", "spec.hosts", "message", msg));
	json_object_set_new(o->status, "valid", json_false());
	snprintf(key, sizeof(key), "%s/%s %s", o->ns, o->name, host);
	lost = json_integer_value(rg_get(rg_host_rules, key));
	json_object_set_new(o->status, "routes",
			    json_integer(json_integer_value(rg_get(o->status, "routes")) - lost));
}

/* Its hosts (none: the default vhost "") and its backends' services. */
static void
rg_relations(const struct sy_object *o, const struct sy_compile_opts *opts,
	     struct sy_rel_keys *out)
{
	const json_t *spec = rg_get(o->obj, "spec");
	const json_t *hosts = rg_get(spec, "hosts"), *h, *b;
	size_t i;

	(void)opts;
	json_array_foreach(hosts, i, h)
		if (json_is_string(h))
			sy_rel_add_host(out, json_string_value(h));
	if (json_array_size(hosts) == 0)
		sy_rel_add(out, SY_REL_HOST, "%s", "");
	json_array_foreach(rg_get(spec, "backends"), i, b)
		if (jstr(b, "serviceName")[0] != '\0')
			sy_rel_add(out, SY_REL_SERVICE, "%s/%s", o->ns, jstr(b, "serviceName"));
}

const struct sy_kind sy_kind_routegroup = {
	.kind = "RouteGroup",
	.group = "zalando.org",
	.api_versions = (const char *const[]){ "zalando.org/v1", NULL },
	.names = (const char *const[]){ "routegroup", "routegroups", "rg", "routegroup.zalando.org",
					"routegroups.zalando.org", NULL },
	.validate = validate_routegroup,
	.compile = compile_routegroups,
	.relations = rg_relations,
	.displaced = routegroup_displaced,
};
