/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contour IngressRoute (contour.heptio.com/v1beta1).
 *
 * Apply checks the schema only (types, required fields), as the CRD's
 * OpenAPI validation does; everything Contour reports in status is decided
 * at compile time by a copy of Contour v0.15.3's builder
 * (internal/dag/builder.go: validIngressRoutes, computeIngressRoute,
 * processRoutes, processTCPProxy), with its status strings verbatim
 * (PEER-SEMANTICS.md 2.2), so tools that read .status.currentStatus and
 * .status.description keep working.
 *
 * Deliberate differences from v0.15 (each marked where it is made):
 *  - routes match as segment-aware prefixes (SY_PATH_PREFIX); Contour v0.x
 *    emitted a plain string prefix, so "/foo" also served "/foobar" (later
 *    regarded as a bug: contour PR#3471, #4092);
 *  - fqdns are compared case-insensitively when looking for duplicates
 *    (contour#3230: case-only duplicates broke Envoy);
 *  - a TLS root whose secret is bad serves nothing (v1.0 behaviour; v0.15
 *    went on serving its routes on port 80 without the redirect);
 *  - a secret in another namespace ("ns/name") needs a
 *    TLSCertificateDelegation, a kind we do not have: refused with v1.0's
 *    "certificate delegation not permitted".
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "arena.h"
#include "gen/compile.h"
#include "kinds.h"
#include "contour_common.h"
#include "kind_util.h"
#include "store/relations.h"
#include "store/store.h"

#define SY_IR_DEPTH_MAX 64       /* delegation chain length we follow */
#define SY_IR_VISITS_MAX 100000  /* objects processed per compile (diamonds multiply) */

/* ------------------------------------------------------------ validate -- */

static const struct sy_contour_lb_dialect ir_lb = {
	.strategies = (const char *const[]){ "RoundRobin", "WeightedLeastRequest", "Random",
					     "Cookie", NULL },
	.strategies_msg = "must be one of RoundRobin, WeightedLeastRequest, Random, Cookie",
	.empty_strategy_ok = true,
	.hc_key = "healthCheck",
	.hc_min_int = 0,
};

static bool
in_list(const char *s, const char *const *list)
{
	for (; *list != NULL; list++)
		if (strcmp(s, *list) == 0)
			return true;
	return false;
}

/* A service's strategy and health check (v1beta1 has them per service). */
static int
check_service_lb(const json_t *svc, const char *base, const char *who, struct sy_errors *errs,
		 void *arg)
{
	(void)arg;
	return sy_contour_check_lb(svc, base, &ir_lb, who, errs);
}

/* services[] of a route or a tcpproxy. Port range and negative weights are
 * not schema errors: Contour reports them in status, so do we. */
static int
check_services(const json_t *svcs, const char *who, const char *base, struct sy_errors *errs)
{
	static const struct sy_contour_svc_rules rules = { .each = check_service_lb };

	return sy_contour_check_services(svcs, &rules, who, base, errs);
}

static int
check_route(const json_t *rt, size_t i, const char *who, struct sy_errors *errs)
{
	const json_t *match = json_object_get(rt, "match");
	const json_t *d = json_object_get(rt, "delegate");
	char f[128], base[64];
	int bad = 0;

	snprintf(base, sizeof(base), "spec.routes[%zu]", i);
	if (!json_is_object(rt))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.match", base);
	if (match == NULL)
		bad = sy_err_add(errs, "invalid", who, f, "required");
	else if (!json_is_string(match) || json_string_value(match)[0] != '/')
		bad = sy_err_add(errs, "invalid", who, f, "must be a string starting with \"/\"");
	snprintf(f, sizeof(f), "%s.services", base);
	if (check_services(json_object_get(rt, "services"), who, f, errs) < 0)
		bad = -1;
	snprintf(f, sizeof(f), "%s.delegate", base);
	if (d != NULL && !json_is_null(d) && sy_contour_check_ref(d, who, f, errs) < 0)
		bad = -1;
	snprintf(f, sizeof(f), "%s.permitInsecure", base);
	if (sy_contour_check_bool(json_object_get(rt, "permitInsecure"), who, f, errs) < 0)
		bad = -1;
	snprintf(f, sizeof(f), "%s.enableWebsockets", base);
	if (sy_contour_check_bool(json_object_get(rt, "enableWebsockets"), who, f, errs) < 0)
		bad = -1;
	snprintf(f, sizeof(f), "%s.prefixRewrite", base);
	if (sy_contour_check_opt_string(json_object_get(rt, "prefixRewrite"), who, f, errs) < 0)
		bad = -1;
	if (sy_contour_check_lb(rt, base, &ir_lb, who, errs) < 0)
		bad = -1;
	return bad;
}

static int
check_vhost(const json_t *vh, const char *who, struct sy_errors *errs)
{
	const json_t *tls = json_object_get(vh, "tls");
	const json_t *mpv = json_object_get(tls, "minimumProtocolVersion");
	int bad = 0;

	if (sy_contour_check_vhost(vh, who, errs) < 0)
		return -1;
	if (!json_is_object(tls))
		return bad;
	/* The v1beta1 CRD's enum. */
	if (mpv != NULL && !json_is_null(mpv) &&
	    !(json_is_string(mpv) && (json_string_length(mpv) == 0 ||
				      in_list(json_string_value(mpv),
					      (const char *const[]){ "1.3", "1.2", "1.1", NULL }))))
		bad = sy_err_add(errs, "invalid", who, "spec.virtualhost.tls.minimumProtocolVersion",
				 "must be \"1.3\", \"1.2\" or \"1.1\"");
	return bad;
}

static int
validate_ingressroute(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *vh, *routes, *tcp, *rt;
	size_t i;
	int bad = 0;

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "required");
	vh = json_object_get(spec, "virtualhost");
	routes = json_object_get(spec, "routes");
	tcp = json_object_get(spec, "tcpproxy");
	if (vh != NULL && !json_is_null(vh) && check_vhost(vh, who, errs) < 0)
		bad = -1;
	if (routes != NULL && !json_is_null(routes) && !json_is_array(routes)) {
		bad = sy_err_add(errs, "invalid", who, "spec.routes", "must be a list");
	} else {
		json_array_foreach(routes, i, rt)
			if (check_route(rt, i, who, errs) < 0)
				bad = -1;
	}
	if (tcp != NULL && !json_is_null(tcp)) {
		const json_t *d = json_object_get(tcp, "delegate");

		if (!json_is_object(tcp))
			bad = sy_err_add(errs, "invalid", who, "spec.tcpproxy", "must be an object");
		else if (check_services(json_object_get(tcp, "services"), who,
					"spec.tcpproxy.services", errs) < 0 ||
			 (d != NULL && !json_is_null(d) &&
			  sy_contour_check_ref(d, who, "spec.tcpproxy.delegate", errs) < 0))
			bad = -1;
	}
	if (sy_contour_check_lb(spec, "spec", &ir_lb, who, errs) < 0)
		bad = -1;
	return bad;
}

/* ------------------------------------------------------------- compile -- */

/* One IngressRoute during a compile. */
struct ir_state {
	struct sy_object *o;   /* first: sy_contour_cycle_text reads it so */
	const char *current;   /* "valid" / "invalid" / "orphaned"; NULL: none yet */
	char desc[512];
	bool root;
	bool orphan;           /* delegate not (yet) reached from a root */
	bool dup;              /* fqdn shared with another root */
	char *fqdn;            /* roots: spec.virtualhost.fqdn lower-cased (malloc'd) */
};

/* What every route under one root shares. */
struct ir_root {
	const char *host;          /* lower case */
	enum sy_tls_mode tls;
	bool enforce_tls;          /* valid secret: port 80 gets the 301 upgrade */
	const char *tls_secret;    /* "ns/name" (lives in ir_strings) */
	const struct sy_pem *pem;  /* its certificate (in the compile's scratch) */
	uint16_t min_tls_version;
};

struct ir_ctx {
	struct sy_compile_ctx *cx;
	struct ir_state *s;
	size_t n;
	json_t *index;   /* "ns/name" -> index into s */
	json_t *served;  /* "host path" -> index into cx->rules: the last one written wins */
	size_t visits;
	int rc;          /* -ENOMEM */
};

/*
 * Strings a rule points at that are not in any object's JSON ("ns/name" of a
 * secret): struct sy_rule_in requires them to live until sy_compile returns,
 * which is after this kind's callback. Freed with the compile's scratch
 * arena (the control thread is the only caller).
 */
static json_t *ir_strings;

static void
drop_ir_strings(void *p)
{
	json_decref(p);
	if (ir_strings == p)
		ir_strings = NULL;
}

static const char *
keep_string(const char *s)
{
	json_t *v = json_string(s);

	if (v == NULL || json_array_append_new(ir_strings, v) < 0)
		return NULL;
	return json_string_value(v);
}

/* Contour's setStatus keeps the first status written for an object. */
static void __attribute__((format(printf, 3, 4)))
set_status(struct ir_state *st, const char *current, const char *fmt, ...)
{
	va_list ap;

	if (st->current != NULL)
		return;
	st->current = current;
	va_start(ap, fmt);
	vsnprintf(st->desc, sizeof(st->desc), fmt, ap);
	va_end(ap);
}

static struct ir_state *
find_ir(struct ir_ctx *ic, const char *ns, const char *name)
{
	long i = sy_contour_find(ic->index, ns, name);

	return i >= 0 ? &ic->s[i] : NULL;
}

/* Contour v0.15 builder.go matchesPathPrefix: segment-aware. */
static bool
matches_path_prefix(const char *path, const char *prefix)
{
	size_t lp = strlen(prefix), l = strlen(path);

	if (lp == 0)
		return true;
	if (l == 0)
		return false;
	if (prefix[lp - 1] == '/')
		lp--;
	if (path[l - 1] == '/')
		l--;
	/* path + "/" has prefix + "/" as a prefix */
	return l >= lp && strncmp(path, prefix, lp) == 0 && (l == lp || path[lp] == '/');
}

/* Contour internal/dag builder.go lookupHTTPService: the Service must exist
 * in the route's namespace and have this port (by number). */
/* Contour v0.15 internal/envoy/healthcheck.go: unset (0) fields take
 * hcTimeout 2s, hcInterval 10s, hcUnhealthyThreshold 3, hcHealthyThreshold
 * 2 (the design document said 5 s for the interval; the code says 10). */
/* Add r, or replace an earlier rule for the same host and path: Contour's
 * virtual host keeps its routes in a map by prefix, the last one added wins. */
static int
add_or_replace(struct ir_ctx *ic, struct sy_rule_in *r)
{
	struct sy_compile_ctx *cx = ic->cx;
	char *key;
	const json_t *v;

	if (r->host == NULL || asprintf(&key, "%s %s", r->host, r->path) < 0) {
		free(r->host);
		return -ENOMEM;
	}
	v = json_object_get(ic->served, key);
	if (v != NULL) {
		struct sy_rule_in *old = &cx->rules[json_integer_value(v)];

		free(old->host);
		*old = *r;
		free(key);
		return 0;
	}
	if (sy_compile_add_rule(cx, r) < 0) {
		free(key);
		return -ENOMEM;
	}
	json_object_set_new(ic->served, key, json_integer((json_int_t)(cx->n_rules - 1)));
	free(key);
	return 0;
}

/*
 * The rule for one route with services. Kept out of process_routes so the
 * (large) struct sy_rule_in is not on every frame of the recursion.
 * Returns 0, or the index of the first bad service + 1 with *why set.
 */
static int __attribute__((noinline))
route_rule(struct ir_ctx *ic, struct ir_state *st, const json_t *route, const struct ir_root *root)
{
	const json_t *spec = json_object_get(st->o->obj, "spec");
	const json_t *svcs = json_object_get(route, "services");
	const char *match = json_string_value(json_object_get(route, "match"));
	const json_t *svc;
	const char *strategy = NULL;
	const json_t *hc = NULL;
	struct sy_rule_in r;
	size_t i;

	memset(&r, 0, sizeof(r));
	json_array_foreach(svcs, i, svc) {
		const char *name = json_string_value(json_object_get(svc, "name"));
		json_int_t port = json_integer_value(json_object_get(svc, "port"));
		json_int_t weight = json_integer_value(json_object_get(svc, "weight"));

		/* builder.go processRoutes, in its order: port, weight, lookup. */
		if (port < 1 || port > 65535) {
			set_status(st, "invalid",
				   "route \"%s\": service \"%s\": port must be in the range 1-65535",
				   match, name);
			return -1;
		}
		if (weight < 0) {
			set_status(st, "invalid",
				   "route \"%s\": service \"%s\": weight must be greater than or equal "
				   "to zero",
				   match, name);
			return -1;
		}
		if (!sy_service_has_port(ic->cx->st, st->o->ns, name, port)) {
			set_status(st, "invalid", "Service [%s:%lld] is invalid or missing", name,
				   (long long)port);
			return -1;
		}
		r.backends[r.n_backends].service = name;
		r.backends[r.n_backends].target_port = json_object_get(svc, "port");
		r.backends[r.n_backends++].weight = (uint32_t)weight;
		if (strategy == NULL)
			strategy = json_string_value(json_object_get(svc, "strategy"));
		if (hc == NULL && json_is_object(json_object_get(svc, "healthCheck")))
			hc = json_object_get(svc, "healthCheck");
	}
	/* internal/envoy/route.go weightedClusters: no weight set anywhere
	 * means equal shares; otherwise unset ones get 0 (contour#477, PR#487). */
	sy_contour_equal_if_unweighted(r.backends, r.n_backends);
	/* A pool has one strategy and one health check: the first service that
	 * sets one wins, then the route, then the spec (the design document's
	 * "defaults for all services"). */
	if (strategy == NULL || strategy[0] == '\0')
		strategy = json_string_value(json_object_get(route, "strategy"));
	if (strategy == NULL || strategy[0] == '\0')
		strategy = json_string_value(json_object_get(spec, "strategy"));
	if (hc == NULL && json_is_object(json_object_get(route, "healthCheck")))
		hc = json_object_get(route, "healthCheck");
	if (hc == NULL && json_is_object(json_object_get(spec, "healthCheck")))
		hc = json_object_get(spec, "healthCheck");

	r.o = st->o;
	r.host = strdup(root->host);
	r.path = match;
	/* Segment-aware: our documented choice. Contour v0.x emitted an Envoy
	 * string prefix ("/foo" also served "/foobar"). */
	r.match = SY_PATH_PREFIX;
	r.tls = root->tls;
	r.tls_secret = root->tls_secret;
	r.pem = root->pem;
	r.min_tls_version = root->min_tls_version;
	if (root->enforce_tls) {
		/* builder.go routeEnforceTLS: HTTPSUpgrade (Envoy https_redirect,
		 * 301) unless the route says permitInsecure: per route (the
		 * proxy mode applies each rule's own; control/gen/compile.c). */
		r.insecure = json_is_true(json_object_get(route, "permitInsecure"))
				     ? SY_INSECURE_ALLOW
				     : SY_INSECURE_REDIRECT;
		r.insecure_status = 301;
	}
	/* Each service its own port (backends[].target_port); the rule's is
	 * the first service's, for what reads one per rule. */
	r.target_port = json_object_get(json_array_get(svcs, 0), "port");
	r.weights = SY_WEIGHTS_PER_SERVICE;
	r.strategy = sy_contour_strategy(strategy && strategy[0] ? strategy : NULL);
	if (r.strategy == SY_LB_COOKIE)
		r.sticky_cookie = SY_CONTOUR_AFFINITY_COOKIE;
	if (hc != NULL)
		sy_contour_health(hc, 10, &r.hc);
	if (add_or_replace(ic, &r) < 0)
		ic->rc = -ENOMEM;
	return 0;
}

/* Follow a delegate {name, namespace}: NULL when there is no such
 * IngressRoute (the parent stays valid: contour#490, #510). */
static struct ir_state *
delegate_target(struct ir_ctx *ic, const struct ir_state *st, const json_t *d)
{
	const char *ns = json_string_value(json_object_get(d, "namespace"));
	const char *name = json_string_value(json_object_get(d, "name"));

	if (name == NULL)
		return NULL;
	/* the namespace defaults to the delegating object's */
	return find_ir(ic, ns && ns[0] ? ns : st->o->ns, name);
}

static bool
over_budget(struct ir_ctx *ic, struct ir_state *st, size_t depth)
{
	if (++ic->visits <= SY_IR_VISITS_MAX && depth < SY_IR_DEPTH_MAX)
		return false;
	/* Our limit, not Contour's (it had none): a fan-out of delegations
	 * multiplies the work with every level. */
	set_status(st, "invalid", "delegation chain too long or too wide (more than %d levels or "
				  "%d visits)",
		   SY_IR_DEPTH_MAX, SY_IR_VISITS_MAX);
	return true;
}

/* builder.go processRoutes. visited[0..depth) is the chain from the root. */
static void
process_routes(struct ir_ctx *ic, struct ir_state *st, const char *prefix,
	       struct ir_state **visited, size_t depth, const struct ir_root *root)
{
	const json_t *routes = json_object_get(json_object_get(st->o->obj, "spec"), "routes");
	const json_t *route;
	size_t i, j;

	if (over_budget(ic, st, depth))
		return;
	visited[depth++] = st;
	json_array_foreach(routes, i, route) {
		const char *match = json_string_value(json_object_get(route, "match"));
		const json_t *svcs = json_object_get(route, "services");
		const json_t *d = json_object_get(route, "delegate");
		size_t nsvc = json_array_size(svcs);
		struct ir_state *dest;

		if (json_is_null(d))
			d = NULL;
		if (nsvc > 0 && d != NULL) {
			set_status(st, "invalid",
				   "route \"%s\": cannot specify services and delegate in the same route",
				   match);
			return;
		}
		/* contour#732: Envoy cannot upgrade to websockets on a weighted route. */
		if (nsvc > 1 && json_is_true(json_object_get(route, "enableWebsockets"))) {
			set_status(st, "invalid",
				   "route \"%s\": cannot specify multiple services and enable websockets",
				   match);
			return;
		}
		if (nsvc > 0) {
			if (!matches_path_prefix(match, prefix)) {
				set_status(st, "invalid",
					   "the path prefix \"%s\" does not match the parent's path "
					   "prefix \"%s\"",
					   match, prefix);
				return;
			}
			/* Validation stops at the first bad route: routes before it
			 * stay served (v0.15 partial application). */
			if (route_rule(ic, st, route, root) < 0)
				return;
			continue;
		}
		if (d == NULL)
			continue;
		dest = delegate_target(ic, st, d);
		if (dest == NULL)
			continue;
		dest->orphan = false;
		for (j = 0; j < depth; j++)
			if (visited[j] == dest) {
				char path[400];

				/* reported on the object that closes the cycle */
				sy_contour_cycle_text((const void *const *)visited, depth, dest, path, sizeof(path));
				set_status(st, "invalid", "route creates a delegation cycle: %s", path);
				return;
			}
		process_routes(ic, dest, match, visited, depth, root);
	}
	set_status(st, "valid", "valid IngressRoute");
}

/* The rule for a tcpproxy's services: SNI passthrough, or TLS terminated and
 * then (until the proxy mode has a TCP action) served like a "/" route. */
static int __attribute__((noinline))
tcpproxy_rule(struct ir_ctx *ic, struct ir_state *st, const json_t *tcp, const struct ir_root *root)
{
	struct sy_rule_in r;
	const json_t *bad;

	memset(&r, 0, sizeof(r));
	bad = sy_contour_tcp_rule(ic->cx->st, st->o->ns, json_object_get(tcp, "services"), &r);
	if (bad != NULL) {
		set_status(st, "invalid", "tcpproxy: service %s/%s/%lld: not found", st->o->ns,
			   json_string_value(json_object_get(bad, "name")),
			   (long long)json_integer_value(json_object_get(bad, "port")));
		return -1;
	}
	r.o = st->o;
	r.host = strdup(root->host);
	r.tls = root->tls;
	r.tls_secret = root->tls_secret;
	r.pem = root->pem;
	r.min_tls_version = root->min_tls_version;
	if (add_or_replace(ic, &r) < 0)
		ic->rc = -ENOMEM;
	return 0;
}

/* builder.go processTCPProxy. */
static void
process_tcpproxy(struct ir_ctx *ic, struct ir_state *st, struct ir_state **visited, size_t depth,
		 const struct ir_root *root)
{
	const json_t *tcp = json_object_get(json_object_get(st->o->obj, "spec"), "tcpproxy");
	const json_t *d = json_object_get(tcp, "delegate");
	struct ir_state *dest;
	size_t j;

	if (!json_is_object(tcp) || over_budget(ic, st, depth))
		return;
	if (json_is_null(d))
		d = NULL;
	visited[depth++] = st;
	if (json_array_size(json_object_get(tcp, "services")) > 0 && d != NULL) {
		set_status(st, "invalid",
			   "tcpproxy: cannot specify services and delegate in the same tcpproxy");
		return;
	}
	if (json_array_size(json_object_get(tcp, "services")) > 0) {
		if (tcpproxy_rule(ic, st, tcp, root) == 0)
			set_status(st, "valid", "valid IngressRoute");
		return;
	}
	if (d == NULL)
		return;
	dest = delegate_target(ic, st, d);
	if (dest != NULL) {
		dest->orphan = false;
		for (j = 0; j < depth; j++)
			if (visited[j] == dest) {
				char path[400];

				sy_contour_cycle_text((const void *const *)visited, depth, dest, path, sizeof(path));
				set_status(st, "invalid", "tcpproxy creates a delegation cycle: %s", path);
				return;
			}
		process_tcpproxy(ic, dest, visited, depth, root);
	}
	set_status(st, "valid", "valid IngressRoute");
}

/* builder.go computeIngressRoute, for one root. */
static void
compute_root(struct ir_ctx *ic, struct ir_state *st, struct ir_state **visited)
{
	const json_t *spec = json_object_get(st->o->obj, "spec");
	const json_t *vh = json_object_get(spec, "virtualhost");
	const json_t *tls = json_object_get(vh, "tls");
	const json_t *tcp = json_object_get(spec, "tcpproxy");
	const char *fqdn = json_string_value(json_object_get(vh, "fqdn"));
	struct ir_root root;
	bool passthrough = false;

	memset(&root, 0, sizeof(root));
	if (!sy_contour_root_allowed(ic->cx->opts, st->o->ns)) {
		set_status(st, "invalid", "root IngressRoute cannot be defined in this namespace");
		return;
	}
	if (fqdn == NULL || sy_contour_blank(fqdn)) {
		set_status(st, "invalid", "Spec.VirtualHost.Fqdn must be specified");
		return;
	}
	if (strchr(fqdn, '*') != NULL) {
		set_status(st, "invalid", "Spec.VirtualHost.Fqdn \"%s\" cannot use wildcards", fqdn);
		return;
	}
	root.host = st->fqdn;
	if (json_is_object(tls)) {
		const char *secret = json_string_value(json_object_get(tls, "secretName"));
		const char *mpv = json_string_value(json_object_get(tls, "minimumProtocolVersion"));
		const char *slash = secret ? strchr(secret, '/') : NULL;
		char ns[256], full[512];
		bool ok = false;
		enum sy_cert_problem why = SY_CERT_BAD_CERT;

		if (secret != NULL && !sy_contour_blank(secret)) {
			snprintf(ns, sizeof(ns), "%.*s", slash ? (int)(slash - secret) : 255,
				 slash ? secret : st->o->ns);
			if (slash != NULL && strcmp(ns, st->o->ns) != 0) {
				/* Contour v1.0's string: v0.15 needed a
				 * TLSCertificateDelegation, which we do not have. */
				set_status(st, "invalid", "%s: certificate delegation not permitted",
					   secret);
				return;
			}
			snprintf(full, sizeof(full), "%s/%s", ns, slash ? slash + 1 : secret);
			why = sy_secret_tls_check(
				sy_store_find(ic->cx->st, &sy_kind_secret, ns, slash ? slash + 1 : secret),
				st->fqdn, ic->cx->scratch, &root.pem);
			ok = why == SY_CERT_OK;
			if (ok) {
				root.tls = SY_TLS_EDGE;
				root.enforce_tls = true;
				root.tls_secret = keep_string(full);
				if (root.tls_secret == NULL) {
					ic->rc = -ENOMEM;
					return;
				}
				/* internal/envoy MinProtoVersion: anything else is TLS 1.1. */
				root.min_tls_version = mpv && strcmp(mpv, "1.3") == 0	 ? 0x0304 :
						       mpv && strcmp(mpv, "1.2") == 0 ? 0x0303 :
											0x0302;
			}
		}
		/* passthrough: no secretName and tls.passthrough true */
		passthrough = (secret == NULL || sy_contour_blank(secret)) &&
			      json_is_true(json_object_get(tls, "passthrough"));
		if (!ok && !passthrough) {
			/* v1.0 stops here; v0.15 went on serving port 80
			 * without the redirect, which exposes what the owner
			 * meant to be TLS only. Contour's words for a secret
			 * it cannot load; ours for one that loads and cannot
			 * serve this host now (Envoy would serve it, and
			 * every client would refuse it). */
			if (why == SY_CERT_EXPIRED || why == SY_CERT_NOT_YET_VALID ||
			    why == SY_CERT_WRONG_HOST)
				set_status(st, "invalid", "TLS Secret [%s] cannot be used: %s%s%s",
					   secret ? secret : "", sy_cert_problem_text(why),
					   why == SY_CERT_WRONG_HOST ? " " : "",
					   why == SY_CERT_WRONG_HOST ? st->fqdn : "");
			else
				set_status(st, "invalid", "TLS Secret [%s] not found or is malformed",
					   secret ? secret : "");
			return;
		}
	}
	if (json_is_object(tcp) && (passthrough || root.enforce_tls)) {
		if (passthrough)
			root.tls = SY_TLS_PASSTHROUGH;
		process_tcpproxy(ic, st, visited, 0, &root);
	} else if (json_is_array(json_object_get(spec, "routes"))) {
		process_routes(ic, st, "", visited, 0, &root);
	}
	/* A root with neither (nothing to serve) gets no status in Contour;
	 * say it is valid rather than show nothing. */
	set_status(st, "valid", "valid IngressRoute");
}

static void
mark_dup(void *arg, size_t i, const char *msg)
{
	struct ir_ctx *ic = arg;

	ic->s[i].dup = true;
	set_status(&ic->s[i], "invalid", "%s", msg);
}

/* builder.go validIngressRoutes: roots sharing an fqdn are all invalid. */
static int
mark_duplicates(struct ir_ctx *ic, struct sy_object **objs)
{
	char **fqdns = calloc(ic->n ? ic->n : 1, sizeof(*fqdns));
	size_t i;
	int rc;

	if (fqdns == NULL)
		return ic->rc = -ENOMEM;
	for (i = 0; i < ic->n; i++)
		fqdns[i] = ic->s[i].root ? ic->s[i].fqdn : NULL;
	rc = sy_contour_mark_duplicates(objs, fqdns, ic->n, "IngressRoutes", mark_dup, ic);
	free(fqdns);
	if (rc < 0)
		ic->rc = rc;
	return ic->rc;
}

static void
write_status(struct ir_state *st)
{
	const json_t *old = st->o->status;
	const char *cur = json_string_value(json_object_get(old, "currentStatus"));
	const char *desc = json_string_value(json_object_get(old, "description"));

	/* Unchanged, as most are in a full compile: keep the tree. */
	if (json_object_size(old) == 2 && cur != NULL && desc != NULL && st->current != NULL &&
	    strcmp(cur, st->current) == 0 && strcmp(desc, st->desc) == 0)
		return;
	json_decref(st->o->status);
	st->o->status = json_pack("{s:s, s:s}", "currentStatus", st->current, "description",
				  st->desc);
}

static int
compile_ingressroutes(struct sy_compile_ctx *cx)
{
	struct ir_ctx ic = { .cx = cx };
	struct sy_object **objs = sy_compile_list(cx, &sy_kind_ingressroute_contour, &ic.n);
	struct ir_state **visited = NULL;
	size_t i;

	/* Freed with the compile's scratch memory, when sy_compile returns. */
	ir_strings = json_array();
	if (ir_strings != NULL)
		sy_arena_on_free(cx->scratch, drop_ir_strings, ir_strings);
	ic.s = calloc(ic.n ? ic.n : 1, sizeof(*ic.s));
	visited = calloc(SY_IR_DEPTH_MAX + 1, sizeof(*visited));
	ic.index = json_object();
	ic.served = json_object();
	if (objs == NULL || ic.s == NULL || visited == NULL || ic.index == NULL ||
	    ic.served == NULL || ir_strings == NULL) {
		ic.rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ic.n; i++) {
		ic.s[i].o = objs[i];
		if (sy_contour_take(objs[i], i, ic.index, &ic.s[i].root, &ic.s[i].fqdn) < 0) {
			ic.rc = -ENOMEM;
			goto out;
		}
		/* (2) every delegate starts orphaned until a root reaches it */
		ic.s[i].orphan = !ic.s[i].root;
	}
	/* (1) one fqdn, several roots: all invalid */
	if (mark_duplicates(&ic, objs) < 0)
		goto out;
	/* (3) roots in namespace/name order (Contour walked a Go map: any
	 * order; "first status wins" makes the order matter, so fix one). */
	for (i = 0; i < ic.n && ic.rc == 0; i++)
		if (ic.s[i].root && !ic.s[i].dup)
			compute_root(&ic, &ic.s[i], visited);
	/* (4) delegates no root reached */
	for (i = 0; i < ic.n; i++) {
		if (ic.s[i].orphan)
			set_status(&ic.s[i], "orphaned",
				   "this IngressRoute is not part of a delegation chain from a root "
				   "IngressRoute");
		/* reached from a root yet nothing said (a tcpproxy-less delegate
		 * of a tcpproxy): valid as far as Contour is concerned */
		set_status(&ic.s[i], "valid", "valid IngressRoute");
		write_status(&ic.s[i]);
	}
out:
	for (i = 0; i < ic.n && ic.s != NULL; i++)
		free(ic.s[i].fqdn);
	free(ic.s);
	free(visited);
	free(objs);
	json_decref(ic.index);
	json_decref(ic.served);
	return ic.rc;
}

/*
 * An older claim by another kind (an OpenShift Route, say) holds the host.
 * Contour has no such case (it is alone on its Envoy); we say which object
 * won, on the root that asked for the fqdn. Delegates keep their status: they
 * may serve other roots' hosts.
 */
static void
ir_status_displaced(struct sy_object *o, const char *desc)
{
	json_decref(o->status);
	o->status = json_pack("{s:s, s:s}", "currentStatus", "invalid", "description", desc);
}

static void
ir_displaced(struct sy_compile_ctx *cx, const struct sy_rule_in *rule, const char *host,
	     const struct sy_object *winner)
{
	sy_contour_displaced(cx, &sy_kind_ingressroute_contour, rule->o, host, winner,
			     ir_status_displaced);
}

/* Delegation (itself, and every object it delegates to), services of
 * a routes[] or tcpproxy entry (in its own namespace). */
static void
ir_relations_routes(const struct sy_object *o, const json_t *entry, struct sy_rel_keys *out)
{
	sy_contour_rel_ref(o, json_object_get(entry, "delegate"), out);
	sy_contour_rel_services(o, json_object_get(entry, "services"), out);
}

/* A root's fqdn and TLS Secret; its delegation links (the DAG joins roots
 * and delegates); its services. */
static void
ir_relations(const struct sy_object *o, const struct sy_compile_opts *opts,
	     struct sy_rel_keys *out)
{
	const json_t *spec = json_object_get(o->obj, "spec");
	const json_t *vh = json_object_get(spec, "virtualhost");
	const char *fqdn = json_string_value(json_object_get(vh, "fqdn"));
	const char *secret =
		json_string_value(json_object_get(json_object_get(vh, "tls"), "secretName"));
	const json_t *rt;
	size_t i;

	(void)opts;
	if (fqdn != NULL)
		sy_rel_add_host(out, fqdn);
	sy_contour_rel_secret(o, secret, out);
	sy_rel_add(out, SY_REL_DELEGATION, "%s/%s", o->ns, o->name);
	json_array_foreach(json_object_get(spec, "routes"), i, rt)
		ir_relations_routes(o, rt, out);
	ir_relations_routes(o, json_object_get(spec, "tcpproxy"), out);
}

const struct sy_kind sy_kind_ingressroute_contour = {
	.kind = "IngressRoute",
	.group = "contour.heptio.com",
	.api_versions = (const char *const[]){ "contour.heptio.com/v1beta1", NULL },
	.names = (const char *const[]){ "ingressroute", "ingressroutes", "ir",
					"ingressroute.contour.heptio.com",
					"ingressroutes.contour.heptio.com", NULL },
	.validate = validate_ingressroute,
	.compile = compile_ingressroutes,
	.relations = ir_relations,
	.displaced = ir_displaced,
};
