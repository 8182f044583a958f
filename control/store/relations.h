/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Relations: which objects meet at compile time. Every object of a compiling
 * kind states keys, derived from its spec alone (the kind's `relations`
 * callback): the hosts it claims, the delegations it takes part in, the
 * Services and Secrets it reads. The router keeps an index key -> objects,
 * updated on every apply and delete, so that a change recompiles only the
 * objects it can affect (control/gen/scope.c) instead of the whole store.
 *
 * A key is a type letter followed by a name:
 *   h<host>        claims host (a wildcard route: also "h*.<domain>")
 *   u<domain>      a plain host directly under domain (meets w<domain>)
 *   w<domain>      a wildcard route for *.<domain> (meets u and w <domain>)
 *   i<ns>/<name>   an IngressRoute itself, or one it delegates to (meets i)
 *   s<ns>/<name>   reads Service / Endpoints ns/name (met by their changes)
 *   e<ns>/<name>   an EndpointSlice of Service ns/name (an index for
 *                  control/gen/service_endpoints.c; as a seed, what reads
 *                  the Service)
 *   t<ns>/<name>   reads Secret ns/name (met by its changes)
 *   c<class>       an Ingress of IngressClass <class>; "c" alone: one naming
 *                  no class (the default class's). Met by IngressClass
 *                  changes (scope.c's C seed), never by other Ingresses
 *   k              every IngressClass (an index for control/kinds/ingress.c,
 *                  which looks for our default class without walking the
 *                  store; meets nothing: classes do not compile)
 *   b<ns>/<route>  a RouteBinding of Route ns/route (an index for
 *                  control/fleet/serving.c; meets nothing: bindings do
 *                  not compile, a change of one compiles everything)
 *   p<ns>/<name>   a Gateway API route naming Gateway ns/name in a parentRef
 *                  (meets nothing: a route reads its Gateways' listeners as
 *                  a route reads a Service; a Gateway change seeds G and
 *                  pulls these, scope.c)
 *   g<ns>/<name>   Gateway ns/name itself, and each of its routes that take
 *                  their hosts from its listeners (no spec.hostnames, or a
 *                  wildcard one a narrower listener hostname cuts down):
 *                  they meet (g), since such a route serves the vhosts of
 *                  the listener hostnames the Gateway states (h keys)
 *   q              every Gateway (an index for gateway_common.c, which
 *                  builds the listeners of all our Gateways in every
 *                  compile; meets nothing)
 *   x              a Gateway with an HTTPS listener without a hostname
 *                  (meets nothing). Such a listener terminates every host
 *                  any route serves over plain HTTP only (httproute.c
 *                  https_cover): a change of the Gateway (or of what its
 *                  listeners read: certificate, grant, class) seeds X,
 *                  which pulls the routes of every Gateway stating l
 *                  (scope.c), not the store. One with hostnames states
 *                  their h keys and, for a wildcard *.<domain>, y<domain>
 *   l              a Gateway with a listener of protocol HTTP (an index
 *                  for scope.c's X seed: the routes of Gateways without
 *                  one are all served by their own HTTPS or TLS
 *                  listeners, which no other listener covers; meets
 *                  nothing)
 *   n<class>       a Gateway whose spec.gatewayClassName is <class>, and
 *                  GatewayClass <class> itself (meets nothing: Gateways of
 *                  one class do not read each other; a GatewayClass's
 *                  change seeds K<class>, which pulls them and their
 *                  routes, scope.c)
 *   y<domain>      a Gateway with an HTTPS listener *.<domain>: when it is
 *                  in a scope, the Gateway API routes with a host
 *                  directly under <domain> (v<domain>) come too, since the
 *                  listener terminates their hosts (httproute.c
 *                  https_cover)
 *   v<domain>      a Gateway API route with a host under <domain>, one key
 *                  for each domain above the host (meets nothing by
 *                  itself: a route's change must not pull the Gateways
 *                  covering it, only the reverse)
 *   r<ns>          reads a ReferenceGrant of namespace ns: a route with a
 *                  backendRef, or a Gateway with a certificateRef, into
 *                  another namespace (meets nothing; a ReferenceGrant's
 *                  change seeds R<ns>, scope.c)
 */
#ifndef SY_RELATIONS_H
#define SY_RELATIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "strmap.h"

struct sy_object;
struct sy_compile_opts;

enum {
	SY_REL_HOST = 'h',
	SY_REL_UNDER = 'u',
	SY_REL_WILDCARD = 'w',
	SY_REL_DELEGATION = 'i',
	SY_REL_SERVICE = 's',
	SY_REL_SLICE = 'e',
	SY_REL_SECRET = 't',
	SY_REL_BINDING = 'b',
	SY_REL_CLASS = 'c',
	SY_REL_INGRESSCLASSES = 'k',
	SY_REL_GW_PARENT = 'p',
	SY_REL_GW_HOSTS = 'g',
	SY_REL_GATEWAYS = 'q',
	SY_REL_GW_HTTPS = 'x',
	SY_REL_GW_WILD = 'y',
	SY_REL_GW_COVER = 'v',
	SY_REL_GRANT = 'r',
	SY_REL_GW_PLAIN = 'l',
	SY_REL_GW_CLASS = 'n',
};

/* One key and the objects that state it. Most keys (a host) have one
 * object: it is kept inline, and the key's bytes follow the struct. */
struct sy_rel_key {
	union {
		struct sy_object *one;   /* cap <= 1 */
		struct sy_object **many; /* cap > 1 */
	} u;
	uint32_t n, cap;
	char key[];
};

static inline struct sy_object **
sy_rel_objs(struct sy_rel_key *rk)
{
	return rk->cap <= 1 ? &rk->u.one : rk->u.many;
}

/* Keys being collected for one object (the kinds' callback fills it). */
struct sy_rel_keys {
	char **keys;
	size_t n, cap;
	int err;
	bool dups; /* keep duplicates (long lists: no linear check per add) */
};

/* Add key <type><printf...>; host names are lower-cased by the caller. */
void sy_rel_add(struct sy_rel_keys *out, char type, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Add h<host>, lower-cased (compile lower-cases hosts the same way). */
void sy_rel_add_host(struct sy_rel_keys *out, const char *host);
void sy_rel_keys_fini(struct sy_rel_keys *k);

struct sy_relations {
	struct sy_strmap index; /* key -> struct sy_rel_key */
};

/* Index o under its kind's keys (none for kinds without `relations`).
 * 0 or -ENOMEM. */
int sy_relations_add(struct sy_relations *rel, struct sy_object *o,
		     const struct sy_compile_opts *opts);
/* Take o out of the index; its keys' names are appended to `keep` (when not
 * NULL) for the caller to seed a scope with. */
void sy_relations_remove(struct sy_relations *rel, struct sy_object *o, struct sy_rel_keys *keep);
/* The objects under key, or NULL. */
const struct sy_rel_key *sy_relations_get(const struct sy_relations *rel, const char *key);
void sy_relations_fini(struct sy_relations *rel);

#endif
