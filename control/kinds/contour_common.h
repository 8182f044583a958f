/* SPDX-License-Identifier: BSD-3-Clause */
/* What Contour's kinds (IngressRoute v1beta1, HTTPProxy v1, Route v1alpha1) share. */
#ifndef SY_CONTOUR_COMMON_H
#define SY_CONTOUR_COMMON_H

#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "ops/errors.h"
#include "sy_generation.h"

/* The cookie Envoy's session affinity uses for Contour's Cookie strategy. */
#define SY_CONTOUR_AFFINITY_COOKIE "X-Contour-Session-Affinity"

/* RoundRobin (the default), WeightedLeastRequest, Random, Cookie. */
enum sy_lb_strategy sy_contour_strategy(const char *s);
/* A healthCheck / lbHealthCheck block: path required, starting with "/"; the
 * integer fields from min_int to 86400; host, when set, a name. */
int sy_contour_check_health(const json_t *hc, const char *who, const char *base,
			    struct sy_errors *errs, int min_int);
/* How one of Contour's kinds says how to balance: its strategies (NULL
 * ended) and the sentence that lists them, whether an empty strategy means
 * the default, and where its health check lives. The two kinds'
 * differences, so one check serves both. */
struct sy_contour_lb_dialect {
	const char *const *strategies;
	const char *strategies_msg; /* "must be one of ..." */
	bool empty_strategy_ok;
	const char *hc_key; /* "healthCheck" (IngressRoute), "lbHealthCheck" (Route) */
	int hc_min_int;     /* sy_contour_check_health's min_int */
};
/* o's `strategy` and health check, fields named under base ("spec",
 * "spec.routes[2]", ...). 0, or -1 with the errors added. */
int sy_contour_check_lb(const json_t *o, const char *base, const struct sy_contour_lb_dialect *d,
			const char *who, struct sy_errors *errs);
/* Fill out from a health check block; unset (0) fields take the defaults:
 * interval `interval_s`, timeout 2 s, unhealthy after 3, healthy after 2
 * (Contour v0.15 internal/envoy/healthcheck.go; the Route CRD draft says an
 * interval of 5 s, v0.15's code 10 s). */
void sy_contour_health(const json_t *hc, uint32_t interval_s, struct sy_health_check *out);

struct sy_compile_opts;
struct sy_object;

/* Roots may live in ns: the config's ingressroute_root_namespaces (Contour's
 * --root-namespaces, for IngressRoute and HTTPProxy alike) lists it, or is
 * empty (any namespace). */
bool sy_contour_root_allowed(const struct sy_compile_opts *opts, const char *ns);
/* NULL, "" or only white space (Contour's isBlank). */
bool sy_contour_blank(const char *s);
/* builder.go validIngressRoutes / validHTTPProxies: an fqdn on more than
 * one root makes every one of them invalid (no oldest-wins: contour#601,
 * PR#7268 closed). fqdns[i] is objs[i]'s lower-cased fqdn, NULL for a
 * non-root. For each root of such a group, mark(arg, i, msg) with msg
 * "fqdn \"x\" is used in multiple <plural>: ns/a, ns/b" (sorted, as
 * Contour). 0 or -ENOMEM. */
int sy_contour_mark_duplicates(struct sy_object *const *objs, char *const *fqdns, size_t n,
			       const char *plural,
			       void (*mark)(void *arg, size_t i, const char *msg), void *arg);

/* Field checks both kinds' schemas make: true/false, a string; absent or
 * null is fine. 0, or -1 with the error added. */
int sy_contour_check_bool(const json_t *v, const char *who, const char *field,
			  struct sy_errors *errs);
int sy_contour_check_opt_string(const json_t *v, const char *who, const char *field,
				struct sy_errors *errs);

/* A reference {name (required), namespace} to another object of the kind:
 * an IngressRoute's delegate, an HTTPProxy's include. */
int sy_contour_check_ref(const json_t *ref, const char *who, const char *base,
			 struct sy_errors *errs);
/* spec.virtualhost's common schema: an object, fqdn a string (a blank one
 * is a status, not a schema error), tls an object with secretName a string
 * and passthrough a bool. 0, or -1 with the errors added. */
int sy_contour_check_vhost(const json_t *vh, const char *who, struct sy_errors *errs);
/* How services[] entries are checked beyond name, port and weight. */
struct sy_contour_svc_rules {
	/* HTTPProxy's CRD: port 1-65535 and weight >= 0 are schema errors;
	 * IngressRoute reports them in status instead. */
	bool ranges;
	/* The kind's own fields of one entry (field base "...services[i]");
	 * 0 or -1. NULL: none. */
	int (*each)(const json_t *svc, const char *base, const char *who, struct sy_errors *errs,
		    void *arg);
	void *arg;
};
/* services[] of a route or a tcpproxy: at most SY_RULE_BACKENDS_MAX objects
 * with a name, an integer port and an optional integer weight. */
int sy_contour_check_services(const json_t *svcs, const struct sy_contour_svc_rules *rules,
			      const char *who, const char *base, struct sy_errors *errs);

struct sy_backend_in;
/* internal/envoy/route.go weightedClusters: when no backend has a weight,
 * all get 1 (equal shares); otherwise those without one get none. */
void sy_contour_equal_if_unweighted(struct sy_backend_in *b, unsigned n);

/* "ns/a -> ns/b -> ns/c" into buf: a delegation chain that comes back to
 * dest. chain[i] points at a kind's per-object state whose first member is
 * its struct sy_object * (both kinds' states begin so). */
void sy_contour_cycle_text(const void *const *chain, size_t depth, const void *dest, char *buf,
			   size_t len);

struct sy_rule_in;
struct sy_store;
/* A tcpproxy's rule, but for its host and TLS: services (in namespace ns,
 * by port number) as weighted backends of a "/" rule, round robin. NULL,
 * or the first entry whose Service or port does not exist. */
const json_t *sy_contour_tcp_rule(struct sy_store *st, const char *ns, const json_t *svcs,
				  struct sy_rule_in *r);

struct sy_rel_keys;
/* Relations (store/relations.h) of both kinds: a Secret named "name" or
 * "ns/name" (NULL: none), each service name of a services[] list (in o's
 * namespace), and a reference {name, namespace} to another object of the
 * kind (the delegation key; the namespace defaults to o's). */
void sy_contour_rel_secret(const struct sy_object *o, const char *secret, struct sy_rel_keys *out);
void sy_contour_rel_services(const struct sy_object *o, const json_t *svcs,
			     struct sy_rel_keys *out);
void sy_contour_rel_ref(const struct sy_object *o, const json_t *ref, struct sy_rel_keys *out);

/* One object of a kind's compile: whether it is a root (has
 * spec.virtualhost) and its fqdn lower-cased (malloc'd; NULL for others),
 * and its place i under "ns/name" in index. 0, or -ENOMEM. */
int sy_contour_take(const struct sy_object *o, size_t i, json_t *index, bool *root, char **fqdn);
/* The place of ns/name in index, or -1. */
long sy_contour_find(const json_t *index, const char *ns, const char *name);

struct sy_compile_ctx;
struct sy_kind;
/*
 * A kind's `displaced`: another kind's older claim took host. Each of the
 * kind's roots whose fqdn is host (rule_o itself, and any other still
 * valid; duplicates say so already) gets status(o, desc) with desc
 * "fqdn \"host\" is claimed by Kind ns/name (older)".
 */
void sy_contour_displaced(struct sy_compile_ctx *cx, const struct sy_kind *kind,
			  const struct sy_object *rule_o, const char *host,
			  const struct sy_object *winner,
			  void (*status)(struct sy_object *o, const char *desc));

#endif
