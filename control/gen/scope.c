/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fleet/fleet.h"
#include "gen/scope.h"
#include "kinds/gateway_common.h"
#include "store/store.h"

/* Does a Gateway state the x key (an HTTPS listener without a hostname),
 * in its old keys or as it is now? */
static bool
gw_https(const struct sy_rel_keys *old_keys, const struct sy_object *now)
{
	size_t i;

	for (i = 0; old_keys != NULL && i < old_keys->n; i++)
		if (old_keys->keys[i][0] == SY_REL_GW_HTTPS)
			return true;
	for (i = 0; now != NULL && i < now->n_rel; i++)
		if (now->rel[i]->key[0] == SY_REL_GW_HTTPS)
			return true;
	return false;
}

/*
 * Seeds are keys in relations.h's form plus these, which name a change
 * rather than a claim:
 *   o<kind>/<ns>/<name>  an object of a compiling kind (pulled in if it exists)
 *   S<ns>/<name>         a Service or Endpoints: objects with s<ns>/<name>
 *   T<ns>/<name>         a Secret: objects with t<ns>/<name>, and the routes
 *                        of the Gateways among them (see expand)
 *   N<name>              a Namespace (labels: sharding): all its objects
 *   R<ns>                a ReferenceGrant of namespace ns: what reads the
 *                        grants of ns (r<ns>)
 *   C<name>              an IngressClass: the Ingresses naming it (c<name>)
 *                        and those naming none (c: whether a default
 *                        class is ours may have changed)
 *   B<ns>/<name>         a RouteBinding: the Route it binds now (its b key), the
 *                        old version's b key being among old_keys
 *   K<name>              a GatewayClass: the Gateways naming it (n<name>),
 *                        which become ours or stop being ours as its
 *                        controllerName changes, and, as for their own
 *                        change, their routes (p) and, for one with an
 *                        HTTPS listener without a hostname, what X pulls
 *   X                    a Gateway with an HTTPS listener without a
 *                        hostname changed (or what it reads: a
 *                        certificate, a grant, its class): such a listener
 *                        terminates every host a route serves over plain
 *                        HTTP only (httproute.c https_cover), so the
 *                        routes of every Gateway with an HTTP listener (l)
 *                        come; those of the others are all served by
 *                        their own HTTPS or TLS listeners, which it does
 *                        not override. The routes' keys then pull what
 *                        shares their hosts
 *   G<ns>/<name>         a Gateway: the routes naming it (p<ns>/<name>): its
 *                        listeners decide where they attach. A route's
 *                        change does not pull its Gateway's other routes
 *                        (p meets nothing): attachedRoutes, the one thing
 *                        of a Gateway's status routes decide, is counted at
 *                        `get` (gateway_common.c, sy_gw_status_live)
 * and b<ns>/<route> (a binding's key, relations.h) pulls in that Route: a
 * binding decides the route's status.phase and dns and whether this router
 * serves it, nothing else (Routers' status.routes is counted at `get`), so a
 * scheduler binding 100,000 routes recompiles them a txn at a time instead
 * of compiling everything for each.
 */
void
sy_changes_note(struct sy_changes *ch, const struct sy_kind *kind, const char *ns,
		const char *name, struct sy_rel_keys *old_keys, const struct sy_object *now)
{
	size_t i;
	uint32_t j;

	if (ch->full)
		return;
	/* A batch notes many keys; the scope walk ignores repeats anyway. */
	ch->seeds.dups = true;
	for (i = 0; old_keys != NULL && i < old_keys->n; i++)
		sy_rel_add(&ch->seeds, old_keys->keys[i][0], "%s", old_keys->keys[i] + 1);
	if (kind == &sy_kind_gateway && (gw_https(old_keys, NULL) || gw_https(NULL, now)))
		/* An HTTPS listener without a hostname terminates the hosts
		 * any route serves over plain HTTP only (httproute.c
		 * https_cover): the X seed. One with hostnames pulls the
		 * routes on them through its h and y keys as the walk expands
		 * it. */
		sy_rel_add(&ch->seeds, 'X', "%s", "");
	if (kind->compile != NULL && kind->relations != NULL)
		sy_rel_add(&ch->seeds, 'o', "%s/%s/%s", kind->kind, ns, name);
	if ((kind == &sy_kind_httproute || kind == &sy_kind_grpcroute ||
	     kind == &sy_kind_tlsroute) && now == NULL)
		/* A route gone: its Gateways compile (nothing of theirs
		 * changes, but the compile warms them, and the etcd status
		 * write-back then writes their attachedRoutes, etcd/sync.c). */
		for (i = 0; old_keys != NULL && i < old_keys->n; i++)
			if (old_keys->keys[i][0] == SY_REL_GW_PARENT)
				sy_rel_add(&ch->seeds, 'o', "Gateway/%s", old_keys->keys[i] + 1);
	if (kind == &sy_kind_gateway)
		sy_rel_add(&ch->seeds, 'G', "%s/%s", ns, name);
	else if (kind == &sy_kind_gateway_class)
		sy_rel_add(&ch->seeds, 'K', "%s", name);
	else if (kind->compile != NULL && kind->relations != NULL)
		; /* its o seed */
	else if (kind == &sy_kind_service || kind == &sy_kind_endpoints)
		sy_rel_add(&ch->seeds, 'S', "%s/%s", ns, name);
	else if (kind == &sy_kind_secret)
		sy_rel_add(&ch->seeds, 'T', "%s/%s", ns, name);
	else if (kind == &sy_kind_namespace)
		sy_rel_add(&ch->seeds, 'N', "%s", name);
	else if (kind == &sy_kind_routebinding)
		sy_rel_add(&ch->seeds, 'B', "%s/%s", ns, name);
	else if (kind == &sy_kind_endpointslice)
		/* its Service's readers, before (old_keys) and now */
		for (j = 0; now != NULL && j < now->n_rel; j++)
			sy_rel_add(&ch->seeds, now->rel[j]->key[0], "%s", now->rel[j]->key + 1);
	else if (kind == &sy_kind_ingressclass)
		sy_rel_add(&ch->seeds, 'C', "%s", name);
	else if (kind == &sy_kind_reference_grant)
		sy_rel_add(&ch->seeds, 'R', "%s", ns);
	else
		ch->full = true;
	if (ch->seeds.err < 0)
		ch->full = true;
}

void
sy_changes_reset(struct sy_changes *ch)
{
	sy_rel_keys_fini(&ch->seeds);
	ch->full = false;
}

struct walk {
	struct sy_scope *sc;
	const struct sy_relations *rel;
	uint32_t mark;
	size_t limit;
	int err;
	bool covered; /* the X seed's routes are in */
};

static void
push(struct walk *w, struct sy_object *o)
{
	struct sy_compile_scope *cs = &w->sc->cs;

	if (o->kind->compile == NULL || o->mark == w->mark || w->err < 0)
		return;
	o->mark = w->mark;
	if (cs->n == w->limit) {
		w->err = -E2BIG;
		return;
	}
	if (cs->n == w->sc->cap) {
		size_t cap = w->sc->cap ? w->sc->cap * 2 : 64;
		struct sy_object **grown = realloc(cs->objs, cap * sizeof(*grown));

		if (grown == NULL) {
			w->err = -ENOMEM;
			return;
		}
		cs->objs = grown;
		w->sc->cap = cap;
	}
	cs->objs[cs->n++] = o;
}

/* Push every object indexed under <type><name>. */
static void
push_key(struct walk *w, char type, const char *name)
{
	char stack[512];
	size_t len = strlen(name);
	char *key = len + 2 <= sizeof(stack) ? stack : malloc(len + 2);
	const struct sy_rel_key *rk;
	uint32_t i;

	if (key == NULL) {
		w->err = -ENOMEM;
		return;
	}
	key[0] = type;
	memcpy(key + 1, name, len + 1);
	rk = sy_relations_get(w->rel, key);
	for (i = 0; rk != NULL && i < rk->n; i++)
		push(w, sy_rel_objs((struct sy_rel_key *)rk)[i]);
	if (key != stack)
		free(key);
}

static void
add_host(struct walk *w, const char *host)
{
	struct sy_scope *sc = w->sc;
	size_t before = sc->host_names.n;

	if (sy_strmap_get(&sc->hosts, host) != NULL)
		return;
	sc->host_names.dups = true; /* unique already: the map says so */
	sy_rel_add(&sc->host_names, 'h', "%s", host);
	if (sc->host_names.err < 0 || sc->host_names.n == before ||
	    sy_strmap_put(&sc->hosts, sc->host_names.keys[before] + 1, (void *)1) < 0)
		w->err = -ENOMEM;
}

/* The routes naming Gateway gw (p keys): a change of what its listeners
 * read (a certificate, a grant) is a change of the Gateway for them. */
static void
push_gateway_routes(struct walk *w, const struct sy_object *gw)
{
	char gname[512];

	snprintf(gname, sizeof(gname), "%s/%s", gw->ns, gw->name);
	push_key(w, SY_REL_GW_PARENT, gname);
}

/*
 * The X seed: the routes a hostless HTTPS listener may terminate (those of
 * every Gateway with an HTTP listener, l), once a walk. Gateways are few;
 * their routes are what a change of such a listener really affects.
 */
static void
push_https_covered(struct walk *w)
{
	static const char key[] = { SY_REL_GW_PLAIN, '\0' };
	const struct sy_rel_key *rk;
	uint32_t i;

	if (w->covered)
		return;
	w->covered = true;
	rk = sy_relations_get(w->rel, key);
	for (i = 0; rk != NULL && i < rk->n && w->err == 0; i++)
		push_gateway_routes(w, sy_rel_objs((struct sy_rel_key *)rk)[i]);
}

/*
 * The Gateways among the objects stating <type><name> (which read what
 * changed: a certificate, a grant, their class): as for a change of the
 * Gateway, their routes (p) come, and through the Gateway's own keys as
 * the walk expands it the routes on the hosts it covers; for one with an
 * HTTPS listener without a hostname, what the X seed pulls.
 */
static void
push_readers_gateways(struct walk *w, char type, const char *name)
{
	char key[512];
	const struct sy_rel_key *rk;
	uint32_t i;

	snprintf(key, sizeof(key), "%c%s", type, name);
	rk = sy_relations_get(w->rel, key);
	for (i = 0; rk != NULL && i < rk->n && w->err == 0; i++) {
		const struct sy_object *gw = sy_rel_objs((struct sy_rel_key *)rk)[i];

		if (gw->kind != &sy_kind_gateway)
			continue;
		push_gateway_routes(w, gw);
		if (gw_https(NULL, gw))
			push_https_covered(w);
	}
}

/* "<ns>/<name>": the namespace into ns, the name returned (NULL: no '/'). */
static const char *
split_ns(const char *s, char *ns, size_t len)
{
	const char *slash = strchr(s, '/');

	if (slash == NULL || (size_t)(slash - s) >= len)
		return NULL;
	memcpy(ns, s, (size_t)(slash - s));
	ns[slash - s] = '\0';
	return slash + 1;
}

/* What a key of an object in the scope (or a seed) pulls in. */
static void
expand(struct walk *w, struct sy_store *st, const char *key)
{
	const char *name = key + 1;

	switch (key[0]) {
	case SY_REL_HOST:
		add_host(w, name);
		push_key(w, SY_REL_HOST, name);
		break;
	case SY_REL_UNDER:
		push_key(w, SY_REL_WILDCARD, name);
		break;
	case SY_REL_WILDCARD:
		push_key(w, SY_REL_WILDCARD, name);
		push_key(w, SY_REL_UNDER, name);
		break;
	case SY_REL_DELEGATION:
		push_key(w, SY_REL_DELEGATION, name);
		break;
	case 'S':
	case SY_REL_SLICE: /* a seed only: slices do not compile */
		push_key(w, SY_REL_SERVICE, name);
		break;
	case 'T':
		/* A Gateway's certificate decides whether its HTTPS listener is
		 * programmed, which the hosts of its routes and of other
		 * Gateways' routes read. */
		push_key(w, SY_REL_SECRET, name);
		push_readers_gateways(w, SY_REL_SECRET, name);
		break;
	case SY_REL_GW_WILD:
		push_key(w, SY_REL_GW_COVER, name);
		break;
	case 'R':
		/* what reads the grants of namespace name: routes, and Gateways
		 * whose certificates are there */
		push_key(w, SY_REL_GRANT, name);
		push_readers_gateways(w, SY_REL_GRANT, name);
		break;
	case SY_REL_GW_HOSTS:
		push_key(w, SY_REL_GW_HOSTS, name);
		break;
	case 'G':
		push_key(w, SY_REL_GW_PARENT, name);
		break;
	case 'X':
		push_https_covered(w);
		break;
	case 'K':
		/* the class itself (its status) and its Gateways, then their
		 * routes */
		push_key(w, SY_REL_GW_CLASS, name);
		push_readers_gateways(w, SY_REL_GW_CLASS, name);
		break;
	case 'C':
		push_key(w, SY_REL_CLASS, name);
		push_key(w, SY_REL_CLASS, "");
		break;
	case 'N': {
		size_t n = 0, i;
		struct sy_object **all = sy_store_list(st, NULL, name, &n);

		if (all == NULL) {
			w->err = -ENOMEM;
			break;
		}
		for (i = 0; i < n; i++)
			push(w, all[i]);
		free(all);
		break;
	}
	case 'o': {
		/* <kind>/<ns>/<name>: kind names have no '/', namespaces neither. */
		const char *s1 = strchr(name, '/'), *s2 = s1 ? strchr(s1 + 1, '/') : NULL;
		const struct sy_kind *const *k;

		if (s2 == NULL)
			break;
		for (k = sy_kinds; *k != NULL; k++) {
			char ns[256];
			struct sy_object *o;

			if ((*k)->compile == NULL || strlen((*k)->kind) != (size_t)(s1 - name) ||
			    memcmp((*k)->kind, name, (size_t)(s1 - name)) != 0 ||
			    (size_t)(s2 - s1 - 1) >= sizeof(ns))
				continue;
			memcpy(ns, s1 + 1, (size_t)(s2 - s1 - 1));
			ns[s2 - s1 - 1] = '\0';
			/* Two kinds share the name Route: try both. */
			o = sy_store_find(st, *k, ns, s2 + 1);
			if (o != NULL)
				push(w, o);
		}
		break;
	}
	case 'B': {
		char ns[256];
		const char *n = split_ns(name, ns, sizeof(ns));
		struct sy_object *b = n ? sy_store_find(st, &sy_kind_routebinding, ns, n) : NULL;
		uint32_t j;

		for (j = 0; b != NULL && j < b->n_rel && w->err == 0; j++)
			expand(w, st, b->rel[j]->key);
		break;
	}
	case SY_REL_BINDING: {
		char ns[256];
		const char *n = split_ns(name, ns, sizeof(ns));
		struct sy_object *o = n ? sy_store_find(st, &sy_kind_route, ns, n) : NULL;

		if (o != NULL)
			push(w, o);
		break;
	}
	default: /* s, t, c, k, p, q, x, l, n, v, r: reading a Service or Secret joins nothing */
		break;
	}
}

int
sy_scope_build(struct sy_scope *sc, const struct sy_changes *ch, struct sy_store *st,
	       const struct sy_relations *rel, size_t limit)
{
	static uint32_t marks;
	struct walk w = { .sc = sc, .rel = rel, .mark = ++marks, .limit = limit };
	size_t i;
	uint32_t j;

	memset(sc, 0, sizeof(*sc));
	if (w.mark == 0)
		w.mark = ++marks; /* 0 is every new object's mark */
	if (sy_strmap_init(&sc->hosts, 64) < 0)
		return -ENOMEM;
	sc->cs.hosts = &sc->hosts;
	for (i = 0; i < ch->seeds.n && w.err == 0; i++)
		expand(&w, st, ch->seeds.keys[i]);
	/* Breadth first: the array is the queue. */
	for (i = 0; i < sc->cs.n && w.err == 0; i++)
		for (j = 0; j < sc->cs.objs[i]->n_rel && w.err == 0; j++)
			expand(&w, st, sc->cs.objs[i]->rel[j]->key);
	return w.err;
}

void
sy_scope_fini(struct sy_scope *sc)
{
	free(sc->cs.objs);
	sy_strmap_fini(&sc->hosts);
	sy_rel_keys_fini(&sc->host_names);
	memset(sc, 0, sizeof(*sc));
}
