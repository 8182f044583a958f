/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OpenShift Route (route.openshift.io/v1, and the legacy bare v1).
 * Validation follows library-go's validateRoute, with its messages, so that an
 * object OpenShift's API server rejects is rejected here for the same reason.
 * Admission (who owns a host) is not validation: it happens at compile time
 * (control/gen/compile.c) and is reported in status.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kinds.h"
#include "tls/tls_cert.h"
#include "kind_util.h"
#include "arena.h"
#include "gen/compile.h"
#include "kinds/label_selector.h"
#include "kinds/route_edge_policy.h"
#include "kinds/route_headers.h"
#include "store/relations.h"
#include "store/store.h"
#include "fleet/fleet.h"

static int
check_backend(const json_t *b, const char *who, const char *base, struct sy_errors *errs)
{
	char f[96];
	const json_t *kind = json_object_get(b, "kind");
	const json_t *weight = json_object_get(b, "weight");
	int bad = 0;

	if (!json_is_object(b))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.name", base);
	if (sy_kind_check_string(json_object_get(b, "name"), who, f, errs) < 0)
		bad = -1;
	snprintf(f, sizeof(f), "%s.kind", base);
	if (kind != NULL && !(json_is_string(kind) && (strcmp(json_string_value(kind), "Service") == 0 ||
						       json_string_length(kind) == 0)))
		bad = sy_err_add(errs, "invalid", who, f, "must reference a Service");
	snprintf(f, sizeof(f), "%s.weight", base);
	if (weight != NULL && !json_is_null(weight) &&
	    (!json_is_integer(weight) || json_integer_value(weight) < 0 ||
	     json_integer_value(weight) > 256))
		bad = sy_err_add(errs, "invalid", who, f, "weight must be an integer between 0 and 256");
	return bad;
}

static int
check_host(const char *host, const char *who, struct sy_errors *errs)
{
	const char *p = host;

	for (;;) {
		const char *dot = strchr(p, '.');
		size_t l = dot ? (size_t)(dot - p) : strlen(p);

		if (l > 63)
			return sy_err_add(errs, "invalid", who, "spec.host",
					  "Invalid value: \"%s\": must be no more than 63 characters", host);
		if (dot == NULL)
			break;
		p = dot + 1;
	}
	if (!sy_dns1123_subdomain(host))
		return sy_err_add(errs, "invalid", who, "spec.host",
				  "host must conform to DNS 952 subdomain conventions");
	return 0;
}

/* route.openshift.io/allow-non-dns-compliant-host: "true" lifts the API's
 * label checks; the router still applies its own (InvalidHost). */
static bool
allow_non_dns_host(const json_t *obj)
{
	const json_t *a = json_object_get(json_object_get(json_object_get(obj, "metadata"),
							  "annotations"),
					  "route.openshift.io/allow-non-dns-compliant-host");

	return json_is_string(a) && strcmp(json_string_value(a), "true") == 0;
}

/*
 * The template's `cookie NAME insert indirect nocache httponly`: every
 * route but passthrough, unless haproxy.router.openshift.io/disable_cookies
 * is true; NAME is router.openshift.io/cookie_name when it matches
 * [a-zA-Z0-9_-]+, else an opaque name of the route (OpenShift's is its
 * routing key's hash; ours: 32 hex digits of FNV-1a over "namespace:name").
 * Only proxied vhosts can set and read a cookie (compile.c).
 */
static const char *
sticky_cookie(struct sy_compile_ctx *cx, const struct sy_object *o)
{
	const json_t *ann = json_object_get(json_object_get(o->obj, "metadata"), "annotations");
	const char *off = json_string_value(
		json_object_get(ann, "haproxy.router.openshift.io/disable_cookies"));
	const char *name = json_string_value(json_object_get(ann, "router.openshift.io/cookie_name"));
	uint64_t h1 = 0xcbf29ce484222325ull, h2 = 0x84222325cbf29ce4ull;
	char buf[40];
	const char *p;

	if (off != NULL && (strcasecmp(off, "true") == 0 || strcmp(off, "1") == 0 ||
			    strcasecmp(off, "y") == 0 || strcasecmp(off, "yes") == 0))
		return NULL;
	if (name != NULL && name[0] && strspn(name, "abcdefghijklmnopqrstuvwxyz"
						"ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-") ==
					       strlen(name))
		return name;
	for (p = o->ns; *p; p++) {
		h1 = (h1 ^ (uint8_t)*p) * 0x100000001b3ull;
		h2 = (h2 ^ (uint8_t)*p) * 0x100000001b3ull;
	}
	h1 = (h1 ^ ':') * 0x100000001b3ull;
	h2 = (h2 ^ ':') * 0x100000001b3ull;
	for (p = o->name; *p; p++) {
		h1 = (h1 ^ (uint8_t)*p) * 0x100000001b3ull;
		h2 = (h2 ^ (uint8_t)*p) * 0x100000001b3ull;
	}
	snprintf(buf, sizeof(buf), "%016llx%016llx", (unsigned long long)h1,
		 (unsigned long long)h2);
	return sy_arena_strdup(cx->scratch, buf);
}

/*
 * haproxy.router.openshift.io/balance: roundrobin, leastconn, source or
 * random; anything else is the default, as the template's matchValues
 * makes it: source for passthrough and re-encrypt (the TLS session stays on
 * one backend; the routes doc's sticky sessions), random for the rest
 * (OpenShift 4's ROUTER_LOAD_BALANCE_ALGORITHM).
 */
static enum sy_lb_strategy
balance(const json_t *obj, enum sy_tls_mode tls)
{
	const json_t *a = json_object_get(json_object_get(json_object_get(obj, "metadata"),
							  "annotations"),
					  "haproxy.router.openshift.io/balance");
	const char *v = json_is_string(a) ? json_string_value(a) : "";

	if (strcmp(v, "roundrobin") == 0)
		return SY_LB_ROUND_ROBIN;
	if (strcmp(v, "leastconn") == 0)
		return SY_LB_LEAST_REQUESTS;
	if (strcmp(v, "source") == 0)
		return SY_LB_SOURCE;
	if (strcmp(v, "random") == 0)
		return SY_LB_RANDOM;
	return tls == SY_TLS_PASSTHROUGH || tls == SY_TLS_REENCRYPT ? SY_LB_SOURCE : SY_LB_RANDOM;
}

static int
check_tls(const json_t *tls, bool has_path, const char *who, struct sy_errors *errs)
{
	static const char *const cert_fields[] = { "certificate", "key", "caCertificate",
						   "destinationCACertificate", "externalCertificate",
						   NULL };
	const json_t *term = json_object_get(tls, "termination");
	const json_t *insecure = json_object_get(tls, "insecureEdgeTerminationPolicy");
	const char *t = json_is_string(term) ? json_string_value(term) : "";
	const char *ins = json_is_string(insecure) ? json_string_value(insecure) : "";
	int bad = 0;
	int i;

	if (!json_is_object(tls))
		return sy_err_add(errs, "invalid", who, "spec.tls", "must be an object");
	if ((term != NULL && !json_is_string(term)) ||
	    (t[0] && strcmp(t, "edge") && strcmp(t, "passthrough") && strcmp(t, "reencrypt")))
		return sy_err_add(errs, "invalid", who, "spec.tls.termination",
				  "invalid value for termination, acceptable values are edge, "
				  "passthrough, reencrypt, or empty (no tls specified)");
	if ((insecure != NULL && !json_is_string(insecure)) ||
	    (ins[0] && strcmp(ins, "None") && strcmp(ins, "Allow") && strcmp(ins, "Redirect")))
		bad = sy_err_add(errs, "invalid", who, "spec.tls.insecureEdgeTerminationPolicy",
				 "invalid value for InsecureEdgeTerminationPolicy option, acceptable "
				 "values are None, Allow, Redirect, or empty");
	if (strcmp(t, "passthrough") == 0) {
		for (i = 0; cert_fields[i] != NULL; i++) {
			const json_t *c = json_object_get(tls, cert_fields[i]);

			if (c != NULL && !(json_is_string(c) && json_string_length(c) == 0)) {
				char f[64];

				snprintf(f, sizeof(f), "spec.tls.%s", cert_fields[i]);
				bad = sy_err_add(errs, "invalid", who, f,
						 "passthrough termination does not support certificates");
			}
		}
		if (strcmp(ins, "Allow") == 0)
			bad = sy_err_add(errs, "invalid", who, "spec.tls.insecureEdgeTerminationPolicy",
					 "Allow is not supported for passthrough termination");
		if (has_path)
			bad = sy_err_add(errs, "invalid", who, "spec.path",
					 "passthrough termination does not support paths");
	}
	if (strcmp(t, "edge") == 0 && json_object_get(tls, "destinationCACertificate") != NULL)
		bad = sy_err_add(errs, "invalid", who, "spec.tls.destinationCACertificate",
				 "edge termination does not support destination certificates");
	return bad;
}

static int
validate_route(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *host, *path, *alts, *port, *wp, *tls, *b;
	const char *wps;
	size_t i;
	int bad = 0;

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "required");
	host = json_object_get(spec, "host");
	path = json_object_get(spec, "path");
	alts = json_object_get(spec, "alternateBackends");
	port = json_object_get(spec, "port");
	wp = json_object_get(spec, "wildcardPolicy");
	tls = json_object_get(spec, "tls");

	if (host != NULL && !json_is_string(host))
		bad = sy_err_add(errs, "invalid", who, "spec.host", "must be a string");
	else if (host != NULL && json_string_length(host) > 0 && !allow_non_dns_host(obj) &&
		 check_host(json_string_value(host), who, errs) < 0)
		bad = -1;
	else if ((host == NULL || json_string_length(host) == 0) && !allow_non_dns_host(obj)) {
		/* The generated host's first label is "<name>-<namespace>": the API
		 * server refuses it at create when that is over 63 characters
		 * (openshift-apiserver PR#167). */
		const json_t *md = json_object_get(obj, "metadata");
		const char *name = json_string_value(json_object_get(md, "name"));
		const char *ns = json_string_value(json_object_get(md, "namespace"));
		size_t len = (name ? strlen(name) : 0) + 1 + strlen(ns ? ns : "default");

		if (len > 63)
			bad = sy_err_add(errs, "invalid", who, "spec.host",
					 "Invalid value: \"%s-%s.<routing subdomain>\": must be no more "
					 "than 63 characters", name ? name : "", ns ? ns : "default");
	}
	if (path != NULL && !json_is_string(path)) {
		bad = sy_err_add(errs, "invalid", who, "spec.path", "must be a string");
	} else if (path != NULL && json_string_length(path) > 0) {
		const char *p = json_string_value(path);

		if (p[0] != '/')
			bad = sy_err_add(errs, "invalid", who, "spec.path", "path must begin with /");
		else if (strpbrk(p, "# ") != NULL)
			bad = sy_err_add(errs, "invalid", who, "spec.path", "cannot contain # or spaces");
	}
	if (json_object_get(spec, "to") == NULL)
		bad = sy_err_add(errs, "invalid", who, "spec.to.name", "required");
	else if (check_backend(json_object_get(spec, "to"), who, "spec.to", errs) < 0)
		bad = -1;
	if (alts != NULL && !json_is_array(alts)) {
		bad = sy_err_add(errs, "invalid", who, "spec.alternateBackends", "must be a list");
	} else if (json_array_size(alts) > 3) {
		bad = sy_err_add(errs, "invalid", who, "spec.alternateBackends",
				 "cannot specify more than 3 alternate backends");
	} else {
		json_array_foreach(alts, i, b) {
			char f[64];

			snprintf(f, sizeof(f), "spec.alternateBackends[%zu]", i);
			if (check_backend(b, who, f, errs) < 0)
				bad = -1;
		}
	}
	if (port != NULL && (!json_is_object(port) ||
			     sy_kind_check_int_or_name(json_object_get(port, "targetPort"), who,
						       "spec.port.targetPort", errs) < 0))
		bad = -1;
	wps = json_is_string(wp) ? json_string_value(wp) : "";
	if ((wp != NULL && !json_is_string(wp)) ||
	    (wps[0] && strcmp(wps, "None") && strcmp(wps, "Subdomain")))
		bad = sy_err_add(errs, "invalid", who, "spec.wildcardPolicy",
				 "Unsupported value: \"%s\": supported values: \"None\", \"Subdomain\"",
				 json_is_string(wp) ? wps : "?");
	else if (strcmp(wps, "Subdomain") == 0 && (!json_is_string(host) || json_string_length(host) == 0))
		bad = sy_err_add(errs, "invalid", who, "spec.wildcardPolicy",
				 "host name not specified for wildcard policy");
	if (tls != NULL && !json_is_null(tls) &&
	    check_tls(tls, json_is_string(path) && json_string_length(path) > 0, who, errs) < 0)
		bad = -1;
	if (sy_route_headers_check(json_object_get(spec, "httpHeaders"),
				   json_string_value(json_object_get(tls, "termination")), who, errs) < 0)
		bad = -1;
	return bad;
}

/* ------------------------------------------------------------- compile -- */

/*
 * What a route's rule is made of, taken from its tree in the first pass so
 * that the tree can be shed (sy_store_shed) before the next route's is
 * parsed: at a million routes, holding every tree until the rules were
 * built was most of what a full compile cost (their memory, gigabytes
 * fresh from the kernel, read in no order). Strings live in cx->scratch,
 * the target port in sy_compile_keep.
 */
struct route_take {
	const struct sy_pem *pem; /* edge / re-encrypt: the route's own certificate */
	const char *dest_ca;
	size_t dest_ca_len;
	const char *backend_verify_name;
	const char *sticky_cookie;
	const json_t *target_port;
	enum sy_tls_mode tls;
	enum sy_insecure_policy insecure;
	enum sy_lb_strategy strategy;
	uint8_t fwd_policy;
	/* Edge policies (route_edge_policy.h): what applies, and what was
	 * not applied and why (for the status); NULL: none. */
	const struct sy_edge_policy_in *edge;
	const char *edge_problem;
	/* spec.httpHeaders.actions and rewrite-target, as the proxy's filters
	 * (NULL: none). */
	struct sy_filter_in *filters;
	unsigned n_filters;
	unsigned n_backends;
	struct sy_backend_in backends[];
};

/* One Route as admission sees it. */
struct route_in {
	struct sy_object *o;
	char *host;
	const char *path;        /* "/" when the route has none */
	const char *termination; /* "" when no TLS */
	const char *spec_host;   /* spec.host as written (NULL: none) */
	const char *wp;          /* spec.wildcardPolicy (NULL: none) */
	bool wildcard;
	bool out_of_shard;
	bool invalid;            /* the router's own host or certificate checks failed */
	bool admitted;
	const char *reason;
	char *message;           /* malloc'd (route_msg); NULL until a reason is given */
	const struct route_take *take; /* NULL: out of shard or invalid */
};

/* Why a route is not admitted, in the router's words. Few routes have one:
 * kept out of line, the million route_in of a full compile are a tenth of
 * the size. Out of memory: no message. */
static void __attribute__((format(printf, 2, 3)))
route_msg(struct route_in *r, const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	free(r->message);
	r->message = strdup(buf);
}

char *
sy_route_effective_host(const struct sy_object *route, const char *suffix)
{
	const json_t *spec = json_object_get(route->obj, "spec");
	const char *host = json_string_value(json_object_get(spec, "host"));
	char *out, *p;

	if (host != NULL && host[0] != '\0') {
		out = strdup(host);
	} else {
		/* OpenShift's SimpleAllocationPlugin: dots in the name become dashes. */
		if (asprintf(&out, "%s-%s.%s", route->name, route->ns, suffix) < 0)
			return NULL;
		for (p = out; *p && p < out + strlen(route->name); p++)
			if (*p == '.')
				*p = '-';
	}
	if (out == NULL)
		return NULL;
	for (p = out; *p; p++)
		*p = (char)tolower((unsigned char)*p);
	return out;
}

/* OpenShift's RouteLessThan: older creationTimestamp first, then smaller uid
 * (control/store/age.h). */
static int
cmp_route_age(const void *a, const void *b)
{
	const struct route_in *x = a, *y = b;

	return sy_object_age_cmp(x->o, y->o);
}

static bool router_host_invalid(struct route_in *r);

/* The Admitted condition the last compile wrote for o (NULL: none yet). */
static const json_t *
last_condition(const struct sy_object *o)
{
	return json_array_get(
		json_object_get(json_array_get(json_object_get(o->status, "ingress"), 0), "conditions"), 0);
}

static bool
was_admitted(const struct sy_object *o)
{
	const char *st = json_string_value(json_object_get(last_condition(o), "status"));

	return st != NULL && strcmp(st, "True") == 0;
}

/*
 * Why r lost its host to the older `owner`, in the words of the plugin that
 * decides it: with wildcards off only UniqueHost enforces claims (its
 * messages), with wildcards on HostAdmitter does (PEER-SEMANTICS 1.4). A
 * route that was serving until an older one arrived is told it was replaced;
 * the router writes that once and leaves the status alone until the next
 * change, so a later compile that finds the same words keeps them (else a
 * full compile and an incremental one that leaves r out would disagree).
 */
static void
claim_message(struct route_in *r, const struct route_in *owner, bool same_ns,
	      const struct sy_compile_opts *opts)
{
	char replaced[512];
	const char *last = json_string_value(json_object_get(last_condition(r->o), "message"));

	r->reason = "HostAlreadyClaimed";
	snprintf(replaced, sizeof(replaced), "replaced by older route %s", owner->o->name);
	if ((was_admitted(r->o) && !was_admitted(owner->o)) || (last && strcmp(last, replaced) == 0))
		route_msg(r, "%s", replaced);
	else if (!opts->allow_wildcard_routes && same_ns)
		route_msg(r, "route %s already exposes %s and is older", owner->o->name, r->host);
	else if (!opts->allow_wildcard_routes)
		route_msg(r, "a route in another namespace holds %s and is older than %s", r->host,
			  r->o->name);
	else if (same_ns && owner->wildcard)
		route_msg(r, "wildcard route %s/%s has host %s, blocking %s", owner->o->ns,
			  owner->o->name, owner->host, r->spec_host);
	else if (same_ns)
		route_msg(r, "route %s/%s has host %s", owner->o->ns, owner->o->name, owner->host);
	else
		route_msg(r, "a route in another namespace holds host %s", r->host);
}

/*
 * HostAdmitter's wildcard blocking (only with wildcards allowed): a wildcard
 * route for *.D and plain routes under D from another namespace exclude each
 * other, the older winning (routes arrive here oldest first).
 */
static void
wildcard_blocks(struct route_in *r, struct route_in *routes, json_t *claims, json_t *by_domain)
{
	const char *dot = strchr(r->host, '.');
	size_t k;
	json_t *v, *list;
	char key[300];

	if (dot == NULL)
		return;
	if (r->wildcard) {
		list = json_object_get(by_domain, dot + 1);
		json_array_foreach(list, k, v) {
			struct route_in *e = &routes[json_integer_value(v)];

			if (strcmp(e->o->ns, r->o->ns) != 0) {
				r->reason = "HostAlreadyClaimed";
				route_msg(r, "a route in another namespace holds host %s", e->host);
				return;
			}
		}
		return;
	}
	snprintf(key, sizeof(key), "*%s", dot);
	list = json_object_get(claims, key);
	json_array_foreach(list, k, v) {
		struct route_in *e = &routes[json_integer_value(v)];

		if (strcmp(e->o->ns, r->o->ns) != 0) {
			r->reason = "HostAlreadyClaimed";
			route_msg(r, "a route in another namespace holds host %s", r->host);
			return;
		}
	}
}

static void
admit(struct route_in *routes, size_t n, const struct sy_compile_opts *opts)
{
	json_t *claims = json_object(); /* host -> [index of admitted route] */
	json_t *by_domain = json_object(); /* domain -> [admitted plain routes under it] */
	size_t i;

	for (i = 0; i < n; i++) {
		struct route_in *r = &routes[i];
		json_t *list = json_object_get(claims, r->host);
		size_t k;
		json_t *v;

		r->admitted = false;
		if (r->out_of_shard)
			continue; /* never seen by this router: claims nothing */
		if (r->invalid) /* router_host_invalid, router_tls_invalid: the first pass */
			continue;
		if (r->wildcard && !opts->allow_wildcard_routes) {
			r->reason = "RouteNotAdmitted";
			route_msg(r, "wildcard routes are not allowed");
			continue;
		}
		json_array_foreach(list, k, v) {
			struct route_in *owner = &routes[json_integer_value(v)];
			bool same_ns = strcmp(owner->o->ns, r->o->ns) == 0;
			bool both_tls = owner->termination[0] && r->termination[0];

			/* The oldest route's namespace owns the whole host; within it,
			 * one route per path (openshift/router hostindex SameNamespace).
			 * Two TLS routes conflict if either is passthrough: SNI alone
			 * carries a passthrough host, so it cannot also be terminated
			 * for a path; a plain route may share it (hostindex_test.go). */
			if (!same_ns || strcmp(owner->path, r->path) == 0 ||
			    (both_tls && (strcmp(owner->termination, "passthrough") == 0 ||
					  strcmp(r->termination, "passthrough") == 0))) {
				claim_message(r, owner, same_ns, opts);
				break;
			}
		}
		if (r->reason == NULL && opts->allow_wildcard_routes)
			wildcard_blocks(r, routes, claims, by_domain);
		if (r->reason != NULL)
			continue;
		{
			/* Index plain hosts by their domain, for wildcard blocking. */
			const char *dot = strchr(r->host, '.');

			if (!r->wildcard && dot != NULL) {
				json_t *dl = json_object_get(by_domain, dot + 1);

				if (dl == NULL) {
					dl = json_array();
					json_object_set_new(by_domain, dot + 1, dl);
				}
				json_array_append_new(dl, json_integer((json_int_t)i));
			}
		}
		if (list == NULL) {
			list = json_array();
			json_object_set_new(claims, r->host, list);
		}
		json_array_append_new(list, json_integer((json_int_t)i));
		r->admitted = true;
	}
	json_decref(claims);
	json_decref(by_domain);
}

/* The time o's condition turned False, when it is False now; else NULL. */
static const char *
false_since(const struct sy_object *o)
{
	const json_t *c = last_condition(o);
	const char *st = json_string_value(json_object_get(c, "status"));

	return st != NULL && strcmp(st, "False") == 0 ?
		       json_string_value(json_object_get(c, "lastTransitionTime")) :
		       NULL;
}

/*
 * Keep lastTransitionTime when the condition did not change. `before` is the
 * condition as the compile found it, not as an earlier step of this compile
 * left it: a route the kind pass admitted and another kind's older claim then
 * displaced (route_displaced) was False all along, and its time stays.
 */
static bool
str_is(const json_t *obj, const char *key, const char *want)
{
	const char *v = json_string_value(json_object_get(obj, key));

	return v != NULL && want != NULL && strcmp(v, want) == 0;
}

/* The status set_route_status would write is there already, word for word
 * and nothing else beside it. A full compile finds most routes as they were:
 * keeping the tree saves building one and freeing one per route (a
 * fourteenth of a full compile at 300k routes). */
static bool
route_status_is(const json_t *old, const struct route_in *r, const char *host, const char *router,
		const char *wp, const char *status, const char *since)
{
	const json_t *ing = json_array_get(json_object_get(old, "ingress"), 0);
	const json_t *conds = json_object_get(ing, "conditions");
	const json_t *c = json_array_get(conds, 0);

	if (json_object_size(old) != 1 || json_array_size(json_object_get(old, "ingress")) != 1 ||
	    json_object_size(ing) != 4 || json_array_size(conds) != 1 ||
	    json_object_size(c) != (r->admitted ? 3u : 5u))
		return false;
	if (!str_is(ing, "host", host) || !str_is(ing, "routerName", router) ||
	    !str_is(ing, "wildcardPolicy", wp) || !str_is(c, "type", "Admitted") ||
	    !str_is(c, "status", status) || !str_is(c, "lastTransitionTime", since))
		return false;
	return r->admitted || (str_is(c, "reason", r->reason) &&
			       str_is(c, "message", r->message ? r->message : ""));
}

static void
set_route_status(struct route_in *r, const struct sy_compile_opts *opts, const char *before_status,
		 const char *before_since)
{
	const char *wp = r->wp;
	const char *status = r->admitted ? "True" : "False";
	const char *since = opts->now;
	const char *spec_host = r->spec_host;
	/* A wildcard route's status names the host it was given, not "*.domain". */
	const char *host = r->wildcard && spec_host ? spec_host : r->host;
	json_t *cond, *st;

	const char *problem = r->admitted && r->take != NULL ? r->take->edge_problem : NULL;

	if (before_status != NULL && strcmp(before_status, status) == 0 && before_since != NULL)
		since = before_since;
	if (!opts->fleet && problem == NULL &&
	    route_status_is(r->o->status, r, host, opts->router_name, wp && wp[0] ? wp : "None",
			    status, since))
		return;
	cond = json_pack("{s:s, s:s, s:s}", "type", "Admitted", "status", status,
			 "lastTransitionTime", since);
	if (!r->admitted) {
		json_object_set_new(cond, "reason", json_string(r->reason));
		json_object_set_new(cond, "message", json_string(r->message ? r->message : ""));
	}
	st = json_pack("{s:[{s:s, s:s, s:s, s:[o]}]}", "ingress", "host", host, "routerName",
		       opts->router_name, "wildcardPolicy", wp && wp[0] ? wp : "None", "conditions",
		       cond);
	if (problem != NULL && st != NULL) {
		/* Served, without what did not parse: say which (the
		 * OpenShift router only logs it). */
		const json_t *old = json_array_get(
			json_object_get(json_array_get(json_object_get(r->o->status, "ingress"), 0),
					"conditions"),
			1);
		const char *since2 = str_is(old, "type", "EdgePoliciesApplied") &&
					     str_is(old, "message", problem) &&
					     json_is_string(json_object_get(old, "lastTransitionTime"))
					     ? json_string_value(json_object_get(old, "lastTransitionTime"))
					     : opts->now;
		json_t *c2 = json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", "EdgePoliciesApplied",
				       "status", "False", "reason", "InvalidAnnotation", "message",
				       problem, "lastTransitionTime", since2);

		json_array_append_new(json_object_get(json_array_get(json_object_get(st, "ingress"), 0),
						      "conditions"),
				      c2);
	}
	json_decref(r->o->status);
	r->o->status = st;
}

/* The route's own certificate (spec.tls certificate, key, caCertificate),
 * or false when it gives none (edge and re-encrypt then use the router's
 * default certificate, as the OpenShift router does). */
static bool
route_pem(const struct sy_object *o, struct sy_pem *p)
{
	const json_t *tls = json_object_get(json_object_get(o->obj, "spec"), "tls");
	const json_t *crt = json_object_get(tls, "certificate");
	const json_t *key = json_object_get(tls, "key");
	const json_t *ca = json_object_get(tls, "caCertificate");

	memset(p, 0, sizeof(*p));
	if ((!json_is_string(crt) || json_string_length(crt) == 0) &&
	    (!json_is_string(key) || json_string_length(key) == 0))
		return false;
	p->crt = json_string_value(crt);
	p->crt_len = json_string_length(crt);
	p->key = json_string_value(key);
	p->key_len = json_string_length(key);
	if (json_is_string(ca) && json_string_length(ca) > 0) {
		p->ca = json_string_value(ca);
		p->ca_len = json_string_length(ca);
	}
	return true;
}

/*
 * The router's extended validation (openshift/router ExtendedValidator,
 * which runs before host admission): an edge or re-encrypt route whose
 * certificate is unusable is rejected, claims nothing, and its host is
 * served by nobody else's certificate. The messages keep the router's
 * shape, without ever echoing key or certificate bytes.
 */
static bool
router_tls_invalid(struct route_in *r)
{
	struct sy_pem p;
	enum sy_cert_problem why;
	const char *field, *redacted;

	if (strcmp(r->termination, "edge") != 0 && strcmp(r->termination, "reencrypt") != 0)
		return false;
	if (!route_pem(r->o, &p))
		return false;
	why = sy_cert_check(&p, r->host);
	if (why == SY_CERT_OK)
		return false;
	switch (why) {
	case SY_CERT_BAD_KEY:
	case SY_CERT_KEY_MISMATCH:
		field = "spec.tls.key";
		redacted = "redacted key data";
		break;
	case SY_CERT_BAD_CA:
		field = "spec.tls.caCertificate";
		redacted = "redacted ca certificate data";
		break;
	default:
		field = "spec.tls.certificate";
		redacted = "redacted certificate data";
		break;
	}
	r->reason = "ExtendedValidationFailed";
	route_msg(r, "%s: Invalid value: \"%s\": %s%s%s", field, redacted,
		  sy_cert_problem_text(why), why == SY_CERT_WRONG_HOST ? " " : "",
		  why == SY_CERT_WRONG_HOST ? r->host : "");
	return true;
}

/* Router-side host checks (openshift/router UniqueHost): run whatever the API
 * allowed, since an annotation or an older cluster may have let it in. */
static bool
router_host_invalid(struct route_in *r)
{
	const char *p = r->host;
	char why[300] = "";

	if (r->host[0] == '\0') {
		r->reason = "NoHostValue";
		route_msg(r, "no host value was defined for the route");
		return true;
	}
	if (strlen(r->host) > 253)
		snprintf(why, sizeof(why), "must be no more than 253 characters");
	for (; why[0] == '\0';) {
		const char *dot = strchr(p, '.');
		size_t l = dot ? (size_t)(dot - p) : strlen(p);

		if (l > 63)
			snprintf(why, sizeof(why), "must be no more than 63 characters");
		else if (!sy_dns1123_label(p, l) && !(p == r->host && l == 1 && p[0] == '*'))
			snprintf(why, sizeof(why),
				 "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
				 "characters, '-' or '.', and must start and end with an alphanumeric "
				 "character");
		if (dot == NULL)
			break;
		p = dot + 1;
	}
	if (why[0] == '\0')
		return false;
	r->reason = "InvalidHost";
	route_msg(r, "host name validation errors: spec.host: Invalid value: \"%s\": %s", r->host,
		  why);
	return true;
}

/* Is the route in this router's shard? Both selectors must match (the route's
 * labels, its namespace's labels). */
static bool
in_shard(struct sy_compile_ctx *cx, const struct sy_object *o, struct sy_label_selector *routes,
	 struct sy_label_selector *namespaces)
{
	const json_t *labels = json_object_get(json_object_get(o->obj, "metadata"), "labels");
	const struct sy_object *ns = sy_store_find(cx->st, &sy_kind_namespace, "", o->ns);

	return sy_label_selector_matches(routes, labels) &&
	       sy_label_selector_matches(namespaces,
					 ns ? json_object_get(json_object_get(ns->obj, "metadata"), "labels")
					    : NULL);
}

/* In fleet mode, the route's status.phase and status.dns beside ingress[]
 * (control/fleet/serving.c); nothing otherwise. 0 or -ENOMEM. */
static int
fleet_status(struct sy_compile_ctx *cx, struct sy_object *o)
{
	if (!cx->opts->fleet)
		return 0;
	if (o->status == NULL)
		o->status = json_object();
	if (o->status == NULL)
		return -ENOMEM;
	return sy_fleet_route_status(cx->st, cx->opts->rel, o, o->status);
}

static uint32_t
backend_weight(const json_t *b)
{
	const json_t *w = json_object_get(b, "weight");

	/* library-go defaulting: a nil weight is 100. */
	return json_is_integer(w) ? (uint32_t)json_integer_value(w) : 100;
}

static enum sy_tls_mode
tls_mode(const char *termination)
{
	if (strcmp(termination, "passthrough") == 0)
		return SY_TLS_PASSTHROUGH;
	if (strcmp(termination, "reencrypt") == 0)
		return SY_TLS_REENCRYPT;
	if (strcmp(termination, "edge") == 0)
		return SY_TLS_EDGE;
	return SY_TLS_NONE;
}


/* A copy in the compile's scratch memory (NULL stays NULL). */
static const char *
scratch_copy(struct sy_compile_ctx *cx, const char *v, size_t len, bool *oom)
{
	char *c;

	if (v == NULL)
		return NULL;
	if ((c = sy_arena_strndup(cx->scratch, v, len)) == NULL)
		*oom = true;
	return c;
}

static const char *
scratch_str(struct sy_compile_ctx *cx, const json_t *v, bool *oom)
{
	return json_is_string(v) ? scratch_copy(cx, json_string_value(v), json_string_length(v), oom)
				 : NULL;
}

/* Everything the rule needs from the route's tree (struct route_take). */
static int
take_route(struct sy_compile_ctx *cx, struct route_in *ri)
{
	const json_t *obj = ri->o->obj, *spec = json_object_get(obj, "spec");
	const json_t *tls = json_object_get(spec, "tls"), *to = json_object_get(spec, "to");
	const json_t *alts = json_object_get(spec, "alternateBackends"), *port;
	size_t nb = 1 + json_array_size(alts), j;
	struct route_take *t;
	bool oom = false;

	if (nb > SY_RULE_BACKENDS_MAX)
		nb = SY_RULE_BACKENDS_MAX;
	t = sy_arena_alloc(cx->scratch, sizeof(*t) + nb * sizeof(t->backends[0]));
	if (t == NULL)
		return -ENOMEM;
	t->tls = tls_mode(ri->termination);
	if (t->tls == SY_TLS_EDGE || t->tls == SY_TLS_REENCRYPT) {
		struct sy_pem p, *keep;

		/* admit() checks it (router_tls_invalid); the compile builds
		 * its context. */
		if (route_pem(ri->o, &p)) {
			if ((keep = sy_arena_alloc(cx->scratch, sizeof(*keep))) == NULL)
				return -ENOMEM;
			*keep = p;
			keep->crt = scratch_copy(cx, p.crt, p.crt_len, &oom);
			keep->key = scratch_copy(cx, p.key, p.key_len, &oom);
			keep->ca = scratch_copy(cx, p.ca, p.ca_len, &oom);
			t->pem = keep;
		}
	}
	if (t->tls == SY_TLS_REENCRYPT) {
		const json_t *dca = json_object_get(tls, "destinationCACertificate");

		if (json_is_string(dca) && json_string_length(dca) > 0) {
			/* The chain to this CA is what is checked (the
			 * template's `verify required ca-file`). */
			t->dest_ca = scratch_str(cx, dca, &oom);
			t->dest_ca_len = json_string_length(dca);
		} else {
			/* Without one, OpenShift trusts its service CA and
			 * checks the service's name; we have the system's
			 * trust store and check the same name. */
			char name[320];
			const char *svc = json_string_value(json_object_get(to, "name"));

			snprintf(name, sizeof(name), "%s.%s.svc", svc ? svc : "", ri->o->ns);
			t->backend_verify_name = scratch_copy(cx, name, strlen(name), &oom);
		}
	}
	{
		const char *ins = json_string_value(
			json_object_get(tls, "insecureEdgeTerminationPolicy"));

		t->insecure = ins && strcmp(ins, "Allow") == 0	  ? SY_INSECURE_ALLOW :
			      ins && strcmp(ins, "Redirect") == 0 ? SY_INSECURE_REDIRECT :
								   SY_INSECURE_NONE;
	}
	{
		/* The template's matchValues: anything else is the default. */
		const json_t *a = json_object_get(
			json_object_get(json_object_get(obj, "metadata"), "annotations"),
			"haproxy.router.openshift.io/set-forwarded-headers");
		int pol = json_is_string(a) ? sy_fwd_policy_parse(json_string_value(a)) : -1;

		t->fwd_policy = pol < 0 ? SY_FWD_DEFAULT : (uint8_t)pol;
	}
	t->strategy = balance(obj, t->tls);
	if (sy_route_edge_policy(cx->scratch,
				 json_object_get(json_object_get(obj, "metadata"), "annotations"), t->tls,
				 &t->edge, &t->edge_problem) < 0)
		oom = true;
	{
		const json_t *hh = json_object_get(spec, "httpHeaders");
		const json_t *ann = json_object_get(json_object_get(obj, "metadata"), "annotations");
		bool headers = json_object_size(json_object_get(hh, "actions")) > 0;
		bool rewrite = json_is_string(json_object_get(ann, "haproxy.router.openshift.io/rewrite-target"));
		int rc = 0;

		t->filters = NULL;
		t->n_filters = 0;
		if ((headers || rewrite) &&
		    (t->filters = sy_arena_alloc(cx->scratch, (SY_ROUTE_HEADER_FILTERS_MAX + 1) *
								      sizeof(*t->filters))) == NULL)
			oom = true;
		if (t->filters != NULL && rewrite) {
			rc = sy_route_rewrite_target(cx->scratch, ann, ri->path, t->tls, &t->filters[0],
						     &t->edge_problem);
			if (rc > 0)
				t->n_filters = 1;
		}
		if (t->filters != NULL && headers && t->tls != SY_TLS_PASSTHROUGH &&
		    sy_route_headers_take(cx->scratch, hh, t->filters, &t->n_filters) < 0)
			rc = -ENOMEM;
		if (rc < 0)
			oom = true;
	}
	if (t->tls != SY_TLS_PASSTHROUGH) {
		const char *c = sticky_cookie(cx, ri->o);

		t->sticky_cookie = scratch_copy(cx, c, c ? strlen(c) : 0, &oom);
	}
	port = json_object_get(json_object_get(spec, "port"), "targetPort");
	if (port != NULL && (t->target_port = sy_compile_keep(cx, port)) == NULL)
		oom = true;
	t->backends[0].service = scratch_str(cx, json_object_get(to, "name"), &oom);
	t->backends[0].weight = backend_weight(to);
	for (j = 1; j < nb; j++) {
		const json_t *b = json_array_get(alts, j - 1);

		t->backends[j].service = scratch_str(cx, json_object_get(b, "name"), &oom);
		t->backends[j].weight = backend_weight(b);
	}
	t->n_backends = (unsigned)nb;
	ri->take = t;
	return oom ? -ENOMEM : 0;
}

/* First pass, one route at a time: its host and claim, the router's own
 * checks, and what its rule needs; then its tree is shed (in a fleet the
 * status pass reads the route's spec again, so it is kept there). */
static int
route_first_pass(struct sy_compile_ctx *cx, struct route_in *ri, struct sy_label_selector *sel_routes,
		 struct sy_label_selector *sel_ns)
{
	const struct sy_compile_opts *opts = cx->opts;
	const json_t *spec, *tls;
	const char *path, *term, *wp;
	bool oom = false;

	if (sy_store_warm(cx->st, ri->o) < 0)
		return -ENOMEM;
	spec = json_object_get(ri->o->obj, "spec");
	tls = json_object_get(spec, "tls");
	path = json_string_value(json_object_get(spec, "path"));
	term = json_string_value(json_object_get(tls, "termination"));
	wp = json_string_value(json_object_get(spec, "wildcardPolicy"));
	ri->host = sy_route_effective_host(ri->o, opts->routing_subdomain);
	if (ri->host == NULL)
		return -ENOMEM;
	ri->path = path && path[0] ? scratch_copy(cx, path, strlen(path), &oom) : "/";
	/* An empty termination with a tls block means edge (library-go defaulting). */
	ri->termination = term && term[0]		 ? scratch_copy(cx, term, strlen(term), &oom) :
			  tls != NULL && !json_is_null(tls) ? "edge" :
							      "";
	ri->spec_host = scratch_str(cx, json_object_get(spec, "host"), &oom);
	ri->wp = wp ? scratch_copy(cx, wp, strlen(wp), &oom) : NULL;
	ri->wildcard = wp && strcmp(wp, "Subdomain") == 0;
	/* Fleet mode (control/fleet/fleet.h): a RouteBinding to this
	 * router decides, not the config's selectors. */
	ri->out_of_shard = opts->fleet ? !sy_fleet_bound_to(cx->st, opts->rel, ri->o->ns, ri->o->name,
							    opts->router_name)
				       : !in_shard(cx, ri->o, sel_routes, sel_ns);
	if (ri->wildcard && opts->allow_wildcard_routes) {
		/* Subdomain: www.example.com serves *.example.com. */
		const char *dot = strchr(ri->host, '.');
		char *w = NULL;

		if (dot != NULL && asprintf(&w, "*%s", dot) >= 0) {
			free(ri->host);
			ri->host = w;
		}
	}
	if (oom)
		return -ENOMEM;
	if (!ri->out_of_shard) {
		ri->invalid = router_host_invalid(ri) || router_tls_invalid(ri);
		if (!ri->invalid && take_route(cx, ri) < 0)
			return -ENOMEM;
	}
	if (!opts->fleet)
		sy_store_shed(ri->o);
	return 0;
}

static int
compile_routes(struct sy_compile_ctx *cx)
{
	const struct sy_compile_opts *opts = cx->opts;
	size_t n = 0, i, j;
	struct sy_object **objs = sy_compile_list_cool(cx, &sy_kind_route, &n);
	struct route_in *routes = calloc(n ? n : 1, sizeof(*routes));
	struct sy_label_selector *sel_routes = NULL, *sel_ns = NULL;
	int rc = 0;

	if (objs == NULL || routes == NULL) {
		free(objs);
		free(routes);
		return -ENOMEM;
	}
	if (cx->opts->cfg != NULL) {
		char why[200];

		/* Checked at config load; a failure here leaves the shard open. */
		if (sy_label_selector_parse(cx->opts->cfg->route_label_selector, &sel_routes, why,
					    sizeof(why)) < 0)
			sel_routes = NULL;
		if (sy_label_selector_parse(cx->opts->cfg->namespace_label_selector, &sel_ns, why,
					    sizeof(why)) < 0)
			sel_ns = NULL;
	}
	for (i = 0; i < n; i++) {
		routes[i].o = objs[i];
		if (route_first_pass(cx, &routes[i], sel_routes, sel_ns) < 0) {
			rc = -ENOMEM;
			goto out;
		}
	}
	qsort(routes, n, sizeof(*routes), cmp_route_age);
	admit(routes, n, opts);
	for (i = 0; i < n && rc == 0; i++) {
		const struct route_take *t = routes[i].take;
		struct sy_rule_in r;
		const char *note;

		if (routes[i].out_of_shard) {
			/* Not this router's: it writes no ingress status, serves
			 * nothing. In a fleet the route's phase and DNS are the
			 * fleet's, the same on every router. */
			json_decref(routes[i].o->status);
			routes[i].o->status = NULL;
			if (opts->fleet && fleet_status(cx, routes[i].o) < 0)
				rc = -ENOMEM;
			continue;
		}
		{
			const json_t *c = last_condition(routes[i].o);
			const char *since = false_since(routes[i].o);

			/* route_displaced's view of the status before this compile */
			note = since ? sy_arena_strdup(cx->scratch, since) : NULL;
			set_route_status(&routes[i], opts,
					 json_string_value(json_object_get(c, "status")),
					 json_string_value(json_object_get(c, "lastTransitionTime")));
			if (fleet_status(cx, routes[i].o) < 0)
				rc = -ENOMEM;
		}
		if (!routes[i].admitted)
			continue;
		memset(&r, 0, sizeof(r));
		r.o = routes[i].o;
		r.kind_note = note;
		r.host = strdup(routes[i].host);
		r.path = routes[i].path;
		r.match = SY_PATH_PREFIX;
		r.tls = t->tls;
		r.pem = t->pem;
		r.dest_ca = t->dest_ca;
		r.dest_ca_len = t->dest_ca_len;
		r.backend_verify_name = t->backend_verify_name;
		r.insecure_status = 302; /* the HAProxy template's secure_redirect */
		r.insecure = t->insecure;
		r.fwd_policy = t->fwd_policy;
		r.edge = t->edge;
		r.filters = t->filters;
		r.n_filters = t->n_filters;
		r.strategy = t->strategy;
		r.sticky_cookie = t->sticky_cookie;
		r.target_port = t->target_port;
		r.weights = SY_WEIGHTS_OPENSHIFT;
		for (j = 0; j < t->n_backends; j++)
			r.backends[j] = t->backends[j];
		r.n_backends = t->n_backends;
		if (r.host == NULL || sy_compile_add_rule(cx, &r) < 0)
			rc = -ENOMEM;
	}
out:
	for (i = 0; i < n; i++) {
		free(routes[i].host);
		free(routes[i].message);
	}
	free(routes);
	free(objs);
	sy_label_selector_free(sel_routes);
	sy_label_selector_free(sel_ns);
	return rc;
}

/* Another kind's older claim holds the host: not admitted by this router. */
static void
route_displaced(struct sy_compile_ctx *cx, const struct sy_rule_in *rule, const char *host,
		const struct sy_object *winner)
{
	struct route_in r;

	memset(&r, 0, sizeof(r));
	r.o = rule->o;
	/* Its tree was shed after the first pass: back for the status. */
	if (sy_store_warm(cx->st, r.o) < 0)
		return; /* out of memory: the status stays as it was */
	r.spec_host = json_string_value(json_object_get(json_object_get(r.o->obj, "spec"), "host"));
	r.wp = json_string_value(json_object_get(json_object_get(r.o->obj, "spec"), "wildcardPolicy"));
	r.host = (char *)host;
	r.reason = "HostAlreadyClaimed";
	route_msg(&r, "%s %s/%s holds host %s", winner->kind->kind, winner->ns, winner->name,
		  host);
	/* kind_note: when it was False before this compile (NULL: it was not) */
	set_route_status(&r, cx->opts, rule->kind_note ? "False" : NULL, rule->kind_note);
	fleet_status(cx, r.o);
	free(r.message);
}

/* Its host; the wildcard domain it claims or lives under (HostAdmitter's
 * blocking joins them); its services. */
static void
route_relations(const struct sy_object *o, const struct sy_compile_opts *opts,
		struct sy_rel_keys *out)
{
	const json_t *spec = json_object_get(o->obj, "spec");
	const char *wp = json_string_value(json_object_get(spec, "wildcardPolicy"));
	char *host = sy_route_effective_host(o, opts->routing_subdomain);
	const char *dot;
	const json_t *b;
	size_t i;

	if (host == NULL) {
		out->err = -ENOMEM;
		return;
	}
	sy_rel_add(out, SY_REL_HOST, "%s", host);
	dot = strchr(host, '.');
	/* Plain and wildcard routes meet only where wildcards are admitted
	 * (HostAdmitter): without them, no domain keys. */
	if (!opts->allow_wildcard_routes)
		dot = NULL;
	if (dot != NULL && wp != NULL && strcmp(wp, "Subdomain") == 0) {
		sy_rel_add(out, SY_REL_HOST, "*%s", dot);
		sy_rel_add(out, SY_REL_WILDCARD, "%s", dot + 1);
	} else if (dot != NULL) {
		sy_rel_add(out, SY_REL_UNDER, "%s", dot + 1);
	}
	free(host);
	if (json_is_string(json_object_get(json_object_get(spec, "to"), "name")))
		sy_rel_add(out, SY_REL_SERVICE, "%s/%s", o->ns,
			   json_string_value(json_object_get(json_object_get(spec, "to"), "name")));
	json_array_foreach(json_object_get(spec, "alternateBackends"), i, b)
		if (json_is_string(json_object_get(b, "name")))
			sy_rel_add(out, SY_REL_SERVICE, "%s/%s", o->ns,
				   json_string_value(json_object_get(b, "name")));
}

/* status.phase and status.dns are the route scheduler's (the proposal's
 * Route REST API: not set on create, never changed on update). */
static int
route_check_stored(const struct sy_store *st, const json_t *obj, const struct sy_object *existing,
		   const struct sy_apply_batch *batch, const char *who, struct sy_errors *errs)
{
	(void)st;
	(void)batch;
	return sy_fleet_check_route_status(obj, existing, who, errs);
}

const struct sy_kind sy_kind_route = {
	.kind = "Route",
	.group = "route.openshift.io",
	.api_versions = (const char *const[]){ "route.openshift.io/v1", "v1", NULL },
	/* Bare "route" is OpenShift's, as the issue on route semantics settles. */
	.names = (const char *const[]){ "route", "routes", "route.route.openshift.io",
					"routes.route.openshift.io", NULL },
	.validate = validate_route,
	.compile = compile_routes,
	.relations = route_relations,
	.displaced = route_displaced,
	.check_stored = route_check_stored,
};
