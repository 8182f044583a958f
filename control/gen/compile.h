/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Compile: every stored object -> one immutable generation, plus each object's
 * status. Admission (which object owns a host) happens here, so the data plane
 * only ever sees the final, conflict-free table (docs/architecture.md
 * section 3).
 *
 * Two stages:
 *  1. Each kind with a `compile` callback (control/kinds/) reads its objects,
 *     applies its own peer's rules (OpenShift host admission, Contour
 *     delegation...), writes their statuses, and adds rule candidates
 *     (struct sy_rule_in) for what it would serve.
 *  2. The common part resolves claims on one host across kinds (the oldest
 *     claim wins: sy_object_age_cmp, OpenShift's RouteLessThan over the
 *     stamps of control/store/age.h; the displaced kind is told, to say so in its
 *     status), orders the rules of each host, resolves services to endpoints
 *     with weights, and lays out the generation.
 */
#ifndef SY_COMPILE_H
#define SY_COMPILE_H

#include <stdbool.h>
#include <stdint.h>

#include "gen/gen_build.h"
#include "store/store.h"
#include "sy_config.h"
#include "sy_generation.h"

struct sy_relations;

struct sy_compile_opts {
	const char *routing_subdomain; /* generated hosts: <name>-<namespace>.<this> */
	const char *router_name;       /* status.ingress[].routerName */
	bool allow_wildcard_routes;
	uint16_t no_route_status;
	const char *now;               /* RFC 3339 time for new condition transitions */
	const struct sy_config *cfg;   /* the router's own settings (shard selectors, root namespaces) */
	/* Fleet mode (control/fleet/fleet.h): some Router object exists, so
	 * OpenShift Routes are served by RouteBinding, not by the config's
	 * selectors, and routing_subdomain is this router's Router spec.dns. */
	bool fleet;
	/* The router's relations index (RouteBindings by route), or NULL
	 * (then bindings are listed from the store). */
	const struct sy_relations *rel;
};

/* How a rule's service weights become endpoint weights. */
enum sy_weight_mode {
	/* openshift/router calculateServiceWeights: weight/endpoints per
	 * endpoint, scaled so the largest is 256; one live service: all 1. */
	SY_WEIGHTS_OPENSHIFT,
	/* Per service (Envoy weighted clusters, Skipper traffic): the service's
	 * share is its weight / total, split evenly over its endpoints. */
	SY_WEIGHTS_PER_SERVICE,
};

#define SY_RULE_BACKENDS_MAX 8

struct sy_backend_in {
	const char *service; /* in the namespace of the rule's object; with urls: the backend's name */
	/* The Service's namespace when it is not the rule object's (a Gateway
	 * API backendRef a ReferenceGrant allows); NULL: the object's. */
	const char *ns;
	/* Endpoints written into the route (Skipper network and lb backends)
	 * instead of the Service's: control/gen/pool.c takes them from here.
	 * NULL for a Service. */
	const struct sy_url_backend *urls;
	uint32_t weight;
	/* This backend's service port when it is not the rule's target_port
	 * (Contour: each service of a route names its own); NULL: the rule's. */
	const json_t *target_port;
	/* The protocol its endpoints speak (enum sy_be_proto) when the kind
	 * says (GRPCRoute: h2c); 0: by the Service's annotations and the port's
	 * appProtocol (gen/upstream_protocol.h). */
	uint8_t proto;
};

#define SY_RULE_PREDS_MAX 16
#define SY_RULE_FILTERS_MAX 16
#define SY_PRED_KV_MAX 16

/* A predicate as a kind states it; regexes are compiled by the compiler. */
struct sy_pred_in {
	enum sy_pred_type type;
	const char *name;
	const char *value;      /* exact value or regex text */
	double fraction;        /* SY_PRED_TRAFFIC */
	const char *kv[SY_PRED_KV_MAX];
	unsigned n_kv;
};

struct sy_filter_in {
	enum sy_filter_type type;
	const char *name;
	const char *args; /* JSON array text */
};

/* A route's edge policies (OpenShift annotations, checked by the kind;
 * sy_rule_more's fields of the same names): NULL or 0 for what it does not
 * set. In cx->scratch. */
struct sy_edge_policy_in {
	const char *allow; /* source allowlist text (gen/source_allow.h) */
	const char *hsts;  /* Strict-Transport-Security value */
	uint32_t server_timeout_ms;
	uint32_t tunnel_timeout_ms;
	uint32_t conn_max, conn_rate_max, http_rate_max; /* rate-limit-connections */
	uint32_t pod_max_conns; /* pod-concurrent-connections: the pool's max_conns */
	uint8_t retry_count;    /* Contour's retryPolicy (sy_rule_more); 0: none */
	uint8_t retry_on;
	uint16_t retry_codes[SY_RETRY_CODES_MAX];
	/* Request mirrors (sy_rule_more.mirrors): each one backend, its pool
	 * built as a one-backend rule's, and the share of the requests copied
	 * to it, in 1/10000. */
	struct sy_backend_in mirrors[SY_RULE_MIRRORS_MAX];
	uint16_t mirror_per_10k[SY_RULE_MIRRORS_MAX];
	unsigned n_mirrors;
	uint32_t per_try_timeout_ms; /* retryPolicy.perTryTimeout; 0: none */
	uint32_t idle_timeout_ms;    /* timeoutPolicy.idle; 0: none */
};

/* A rule a kind would serve, before claims across kinds are settled. All
 * strings must live until sy_compile returns (the objects' JSON does). */
struct sy_rule_in {
	struct sy_object *o;  /* the object it comes from: its age is the claim's age */
	char *host;           /* lower case; malloc'd, freed by the compiler. A
			       * wildcard is "*.example.com" (exactly one more label) */
	const char *path;     /* "/" for everything */
	enum sy_path_match match;
	uint32_t methods;     /* SY_METHOD_* bits; 0 = any */
	/* Room for SY_RULE_PREDS_MAX / SY_RULE_FILTERS_MAX entries when the
	 * kind reserved it (sy_rule_in_reserve); NULL for rules without any,
	 * so the common rule candidate stays small at a million routes. */
	struct sy_pred_in *preds;
	unsigned n_preds;
	struct sy_filter_in *filters;
	unsigned n_filters;
	int priority;         /* within a host and path: higher first (Skipper: predicate count) */
	enum sy_rule_action action;
	uint16_t status;      /* REDIRECT / STATIC */
	const char *location; /* REDIRECT */
	/* Sticky sessions: the cookie naming the endpoint, set on responses
	 * and honoured on requests, when the vhost is proxied (NULL: none). */
	const char *sticky_cookie;
	const char *body;     /* STATIC */
	enum sy_tls_mode tls;
	enum sy_insecure_policy insecure;
	uint16_t insecure_status; /* the redirect's status: 302 OpenShift, 301 Contour */
	const char *tls_secret;   /* "namespace/name" */
	/* Edge / re-encrypt: the certificate (checked by the kind), or NULL:
	 * the router's default certificate. Lives in cx->scratch or the
	 * object's JSON. */
	const struct sy_pem *pem;
	/* Re-encrypt: the CA the backends' certificates must chain to (PEM;
	 * NULL: the system's trust store), and the name they must carry (NULL:
	 * none checked). */
	const char *dest_ca;
	size_t dest_ca_len;
	const char *backend_verify_name;
	/* Edge: the CAs (PEM) a client's certificate must chain to, on this
	 * vhost alone (an HTTPProxy's clientValidation); NULL: none of its
	 * own (tls.client_certificates still applies). */
	const char *client_ca;
	size_t client_ca_len;
	uint16_t min_tls_version;
	const json_t *target_port; /* service port (name or number); NULL: every port */
	struct sy_backend_in backends[SY_RULE_BACKENDS_MAX];
	unsigned n_backends;
	enum sy_weight_mode weights;
	enum sy_lb_strategy strategy;
	struct sy_health_check hc;   /* hc.path NULL: none */
	bool displaced;       /* set by the compiler: another kind owns the host */
	/* A wildcard host covers any number of labels (Gateway API's), not
	 * exactly one (sy_vhost.wild_deep). */
	bool wild_deep;
	/* What the kind wants its displaced() to know, in cx->scratch (OpenShift:
	 * since when the route was not admitted, before this compile). */
	const char *kind_note;
	uint8_t fwd_policy;   /* enum sy_fwd_policy; DEFAULT: the config's */
	const struct sy_edge_policy_in *edge; /* NULL: none (most routes) */
};

struct sy_arena;
struct sy_strmap;


/*
 * An incremental compile (control/gen/scope.c picks it): only these objects are
 * compiled, and only these hosts' vhosts are rebuilt; everything else is
 * shared with the previous generation. It must be closed: every object that
 * could claim one of the hosts, or share a delegation, is in it.
 */
struct sy_compile_scope {
	struct sy_object **objs;
	size_t n;
	const struct sy_strmap *hosts; /* host -> anything non-NULL */
};

struct sy_compile_ctx {
	struct sy_store *st;
	const struct sy_compile_opts *opts;
	const struct sy_compile_scope *scope; /* NULL: every object */
	struct sy_rule_in *rules;
	size_t n_rules, cap;
	struct sy_arena *scratch; /* lives for this compile only */
	/* jansson values rules point to that outlive the tree they came from
	 * (sy_compile_keep): an object whose tree a kind has shed. */
	json_t *kept;
};

/* Add a candidate (copied; r->host is taken over). 0 or -ENOMEM. */
int sy_compile_add_rule(struct sy_compile_ctx *cx, const struct sy_rule_in *r);
/* Give r room for predicates and filters, from this compile's scratch memory
 * (copies of r share it). 0 or -ENOMEM. */
int sy_rule_in_reserve(struct sy_compile_ctx *cx, struct sy_rule_in *r);

/* A kind's objects to compile, sorted as sy_store_list sorts: all of the
 * store's, or the scope's. malloc'd; NULL on out of memory. */
struct sy_object **sy_compile_list(struct sy_compile_ctx *cx, const struct sy_kind *kind,
				   size_t *n);

/* The same without warming them: the kind warms each in turn and may shed
 * its tree (sy_store_shed) once it has taken what its rules need. */
struct sy_object **sy_compile_list_cool(struct sy_compile_ctx *cx, const struct sy_kind *kind,
					size_t *n);
/* A copy of v that lives until the compile ends (NULL for NULL, or out of
 * memory): for a json value a rule points to (a target port) when the tree
 * it came from is shed. Equal small values share one copy. */
const json_t *sy_compile_keep(struct sy_compile_ctx *cx, const json_t *v);

/* Build generation `id` from the store and set every object's status. NULL on
 * out of memory (statuses may then be partly updated; the live generation
 * stays). */
struct sy_generation *sy_compile(struct sy_store *st, const struct sy_compile_opts *opts,
				 uint64_t id);
/* The same for a scope: compile only scope->objs and build generation `id`
 * from prev (the live one) with scope->hosts' vhosts rebuilt. Statuses of
 * the scope's objects are set. NULL with *err -ENOMEM, or -ESRCH when the
 * scope was not closed (a rule for a host outside it): compile all then. */
struct sy_generation *sy_compile_scoped(struct sy_store *st, const struct sy_compile_opts *opts,
					uint64_t id, struct sy_generation *prev,
					const struct sy_compile_scope *scope, int *err);

/* Checking incremental compiles (control/gen/compile_verify.c): take a copy of
 * every status before the incremental compile, then compile in full from
 * those statuses and compare both the statuses and g: abort() on any
 * difference. sy_compile_verify frees the snapshot. */
struct sy_status_snapshot;
struct sy_status_snapshot *sy_compile_verify_prepare(struct sy_store *st);
void sy_compile_verify(struct sy_store *st, const struct sy_compile_opts *opts,
		       const struct sy_generation *g, struct sy_status_snapshot *sn);

/* The host a Route is served on: spec.host lower-cased, or the generated
 * "<name with . -> ->-<namespace>.<suffix>" when empty. malloc'd. */
char *sy_route_effective_host(const struct sy_object *route, const char *suffix);

#endif
