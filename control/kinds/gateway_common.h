/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway API (gateway.networking.k8s.io) pieces the kinds share: which
 * GatewayClasses are ours (spec.controllerName == config gateway_controller),
 * the listeners of our Gateways as this compile sees them, and how a route's
 * parentRef attaches to them (sectionName, port, allowedRoutes, hostname
 * intersection). The Gateway kind's compile builds the set, has every route
 * kind attach and emit through it, then writes the Gateways' statuses with
 * the attached route counts (gateway.c).
 *
 * Relations (control/store/relations.h): a route states a p key per
 * Gateway it names, which meets nothing (a route reads its Gateways'
 * listeners, as it reads a Service), so one route's change compiles that
 * route alone; a Gateway's change pulls the routes naming it (scope.c's G
 * seed). Every compile builds the listeners of all our Gateways from the
 * store (few), and the one part of a Gateway's status its routes decide,
 * status.listeners[].attachedRoutes, is counted at `get`
 * (sy_gw_status_live), as Routers' status.routes is.
 */
#ifndef SY_GATEWAY_COMMON_H
#define SY_GATEWAY_COMMON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "kinds.h"

#define SY_GW_GROUP "gateway.networking.k8s.io"
#define SY_GW_LISTENERS_MAX 64
#define SY_GW_HOST_MAX 254

extern const struct sy_kind sy_kind_gateway_class;
extern const struct sy_kind sy_kind_gateway;
extern const struct sy_kind sy_kind_httproute;
extern const struct sy_kind sy_kind_grpcroute;
extern const struct sy_kind sy_kind_reference_grant;
extern const struct sy_kind sy_kind_tlsroute;

enum sy_gw_proto {
	SY_GW_HTTP,
	SY_GW_HTTPS,
	SY_GW_TLS,
	SY_GW_PROTO_OTHER,
};

enum sy_gw_from {
	SY_GW_FROM_SAME,
	SY_GW_FROM_ALL,
	SY_GW_FROM_SELECTOR,
};

/* Route kinds a listener takes (bits). */
#define SY_GW_KIND_HTTPROUTE 1u
#define SY_GW_KIND_TLSROUTE 2u
#define SY_GW_KIND_GRPCROUTE 4u

struct sy_compile_ctx;
struct sy_pem;

struct sy_gw_listener {
	const char *name;
	const char *hostname; /* lower case; NULL: any host */
	long port;
	enum sy_gw_proto proto;
	bool passthrough;     /* TLS mode Passthrough */
	enum sy_gw_from from;
	const json_t *selector; /* allowedRoutes.namespaces.selector */
	unsigned kinds;         /* SY_GW_KIND_* it takes */
	bool accepted, programmed;
	/* Why not (NULL when accepted / resolved), for its conditions. */
	const char *accepted_reason;
	char accepted_msg[256];
	const char *refs_reason;
	char refs_msg[256];
	bool bad_kinds; /* allowedRoutes.kinds named a kind we do not serve */
	const struct sy_pem *pem; /* Terminate: the certificate (cx->scratch) */
	const char *secret;       /* "ns/name" of that certificate's Secret */
	long attached;            /* routes attached (counted by sy_gw_status_live) */
};

struct sy_gw_gateway {
	struct sy_object *o;
	bool status; /* in this compile: its status is written */
	struct sy_gw_listener *ls;
	size_t n_ls;
};

struct sy_gw_set {
	struct sy_compile_ctx *cx;
	const char *controller; /* config gateway_controller */
	struct sy_gw_gateway *gws;
	size_t n;
};

/* One listener a parentRef attached to, and the host it serves there (the
 * intersection of the listener's hostname and the route's). */
struct sy_gw_attach {
	const struct sy_gw_gateway *gw;
	struct sy_gw_listener *l;
	char host[SY_GW_HOST_MAX]; /* "" : any host */
};

/* The controller name this compile serves. */
const char *sy_gw_controller(const struct sy_compile_ctx *cx);

/* Build the set from the store: our Gateways' listeners checked (the
 * GatewayClasses' statuses are their own compile's, gateway_class.c).
 * 0 or -ENOMEM. */
int sy_gw_set_build(struct sy_compile_ctx *cx, struct sy_gw_set *set);
void sy_gw_set_fini(struct sy_gw_set *set);
/* Write the status of every Gateway of the compile (all, or the scope's). */
void sy_gw_set_status(struct sy_gw_set *set);

/* `get`: items (the views of Gateways) get status.listeners[].attachedRoutes,
 * counted from the routes naming each (rel's p keys, or the store when rel
 * is NULL) as the compile attaches them. */
struct sy_relations;
void sy_gw_status_live(struct sy_store *st, const struct sy_compile_opts *opts, json_t *items);

/* A route kind's relations (HTTPRoute, TLSRoute): its hostnames (h), the
 * Gateways it names (p), g for those when it takes hosts from their
 * listeners (no hostnames, or a wildcard one), and its backendRefs'
 * Services (s). */
struct sy_rel_keys;
void sy_gw_route_relations(const struct sy_object *o, const struct sy_compile_opts *opts,
			   struct sy_rel_keys *out);
/* A route kind's compile: nothing (the Gateway compile does the work). */
int sy_gw_route_compile_noop(struct sy_compile_ctx *cx);

/*
 * Attach parentRef ref of a route (kind bit, namespace route_ns, hostnames
 * a JSON list or NULL) to the set's listeners. Returns how many
 * attachments it wrote to out (at most max), or -1 when the parentRef is
 * not a Gateway of ours (no status for it). *reason / msg say why none
 * when 0 is returned: NoMatchingParent, NotAllowedByListeners,
 * NoMatchingListenerHostname.
 */
int sy_gw_attach(struct sy_gw_set *set, const json_t *ref, unsigned kind, const char *route_ns,
		 const json_t *hostnames, struct sy_gw_attach *out, size_t max,
		 const char **reason, char *msg, size_t msglen);

/* The route's parentRef as status.parents[].parentRef shows it (defaults
 * filled in). New reference. */
json_t *sy_gw_parent_ref(const json_t *ref, const char *route_ns);

/* Intersect a listener's hostname (NULL: any) with a route's ("" or NULL:
 * any); the result in out ("" : any). false when they do not meet. */
bool sy_gw_host_intersect(const char *listener, const char *route, char *out, size_t len);

/* Hostname field check (RFC 1123, an optional leading "*."). */
bool sy_gw_hostname_valid(const char *h);

/* A condition {type, status, reason, message, lastTransitionTime,
 * observedGeneration}: the time is kept from prev (the same type in the
 * previous conditions list) when its status did not change. New reference. */
json_t *sy_gw_condition(const json_t *prev, const char *type, bool ok, const char *reason,
			const char *message, const char *now, const json_t *generation);

/* May an object of (from_kind, from_ns) reference (to_group, to_kind,
 * to_ns/to_name)? Same namespace always; else a ReferenceGrant in to_ns
 * must allow it (reference_grant.c). */
bool sy_gw_ref_granted(const struct sy_store *st, const char *from_kind, const char *from_ns,
		       const char *to_group, const char *to_kind, const char *to_ns,
		       const char *to_name);

/* A Kubernetes LabelSelector object ({matchLabels, matchExpressions})
 * against labels. Errors (checked at apply by sy_gw_selector_check) match
 * nothing. */
bool sy_gw_selector_matches(const json_t *sel, const json_t *labels);
int sy_gw_selector_check(const json_t *sel, const char *who, const char *field,
			 struct sy_errors *errs);

/* Shared small checks (each adds an "invalid" error naming field). */
int sy_gw_check_name(const json_t *v, bool required, const char *who, const char *field,
		     struct sy_errors *errs);
int sy_gw_check_parent_refs(const json_t *refs, const char *who, struct sy_errors *errs);
int sy_gw_check_hostnames(const json_t *hosts, const char *who, struct sy_errors *errs);

/* The metadata.generation JSON value, or NULL. */
const json_t *sy_gw_generation(const struct sy_object *o);

/* A route kind's `displaced`: another kind's older claim took a host of
 * the route; its parents' Accepted messages say so. */
struct sy_rule_in;
void sy_gw_route_displaced(struct sy_compile_ctx *cx, const struct sy_rule_in *rule,
			   const char *host, const struct sy_object *winner);

/*
 * The HTTP route kinds (HTTPRoute, GRPCRoute) share attachment, hosts,
 * filters, backendRefs and statuses (httproute.c); a kind says what
 * differs. rules: the route's spec.rules in HTTPRoute's form (a new
 * reference; GRPCRoute turns its method matches into path matches), NULL
 * for spec.rules as they are.
 */
struct sy_gw_http_kind {
	const struct sy_kind *kind;
	unsigned bit;  /* SY_GW_KIND_* */
	uint8_t proto; /* its backends' enum sy_be_proto; 0: the Service's */
	json_t *(*rules)(const json_t *spec);
};
int sy_gw_http_compile_all(struct sy_gw_set *set, const struct sy_gw_http_kind *k);

/* HTTPRoute's checks the other HTTP route kinds share (httproute.c); each
 * adds an "invalid" error naming base's field. */
int sy_gw_check_kv_matches(const json_t *l, const char *base, bool header, const char *who,
			   struct sy_errors *errs);
int sy_gw_check_filter(const json_t *flt, const char *base, bool prefix_ok, const char *who,
		       struct sy_errors *errs);
int sy_gw_check_backend_ref(const json_t *b, const char *base, const char *who,
			    struct sy_errors *errs);
bool sy_gw_regex_ok(const char *re, char *why, size_t len);
/* Rule i's backendRefs. */
int sy_gw_check_backend_refs(const json_t *bs, size_t i, const char *who, struct sy_errors *errs);
/* A route's spec: parentRefs, hostnames, at most 16 rules, each by check. */
int sy_gw_validate_http_route(const json_t *obj, const char *who, struct sy_errors *errs,
			      int (*check)(const json_t *rule, size_t i, const char *who,
					   struct sy_errors *errs));

/* Compile entry points of the route kinds, run by the Gateway compile. */
int sy_httproute_compile_all(struct sy_gw_set *set);
int sy_grpcroute_compile_all(struct sy_gw_set *set);
int sy_tlsroute_compile_all(struct sy_gw_set *set);

#endif
