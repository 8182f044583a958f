/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway API: listeners of our Gateways and how routes attach to them
 * (gateway_common.h). Semantics from the Gateway API v1 reference
 * (apis/v1/gateway_types.go, httproute_types.go, shared_types.go).
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "gateway_common.h"
#include "gen/compile.h"
#include "store/relations.h"
#include "store/store.h"

const char *
sy_gw_controller(const struct sy_compile_ctx *cx)
{
	const struct sy_config *cfg = cx->opts ? cx->opts->cfg : NULL;

	return cfg != NULL && cfg->gateway_controller[0] ? cfg->gateway_controller
							  : "switchyard.io/gateway-controller";
}

const json_t *
sy_gw_generation(const struct sy_object *o)
{
	const json_t *g = json_object_get(json_object_get(o->obj, "metadata"), "generation");

	return json_is_integer(g) ? g : NULL;
}

json_t *
sy_gw_condition(const json_t *prev, const char *type, bool ok, const char *reason,
		const char *message, const char *now, const json_t *generation)
{
	const char *status = ok ? "True" : "False";
	const char *since = now ? now : "";
	const json_t *c;
	size_t i;
	json_t *out;

	json_array_foreach(prev, i, c) {
		const char *t = json_string_value(json_object_get(c, "type"));
		const char *s = json_string_value(json_object_get(c, "status"));
		const char *l = json_string_value(json_object_get(c, "lastTransitionTime"));

		if (t && s && l && strcmp(t, type) == 0 && strcmp(s, status) == 0)
			since = l;
	}
	out = json_pack("{s:s, s:s, s:s, s:s, s:s}", "type", type, "status", status, "reason",
			reason, "message", message ? message : "", "lastTransitionTime", since);
	if (out != NULL && generation != NULL)
		json_object_set(out, "observedGeneration", (json_t *)generation);
	return out;
}

/* ------------------------------------------------------------ hostnames -- */

bool
sy_gw_hostname_valid(const char *h)
{
	char lc[SY_GW_HOST_MAX];
	size_t i;

	if (h == NULL || strlen(h) >= sizeof(lc) || strchr(h, ':') != NULL)
		return false;
	if (strncmp(h, "*.", 2) == 0)
		h += 2;
	for (i = 0; h[i]; i++)
		lc[i] = (char)tolower((unsigned char)h[i]);
	lc[i] = '\0';
	/* IP addresses are not hostnames (the spec's pattern refuses them
	 * only by convention; a name of digits and dots is one). */
	if (strspn(lc, "0123456789.") == strlen(lc))
		return false;
	return sy_dns1123_subdomain(lc);
}

/* Does wildcard "*.d" cover name (a name or a narrower wildcard)? The
 * spec's wildcard covers any number of labels. */
static bool
wild_covers(const char *wild, const char *name)
{
	const char *d = wild + 1; /* ".d" */
	size_t ld = strlen(d), ln = strlen(name);

	if (name[0] == '*')
		name++, ln--; /* "*.a.d" under "*.d"; ".d" itself too */
	return ln > ld && strcmp(name + ln - ld, d) == 0 && (name[0] != '.' || ln > ld);
}

bool
sy_gw_host_intersect(const char *listener, const char *route, char *out, size_t len)
{
	if (route == NULL)
		route = "";
	if (listener == NULL || listener[0] == '\0') {
		snprintf(out, len, "%s", route);
		return true;
	}
	if (route[0] == '\0' || strcmp(listener, route) == 0) {
		snprintf(out, len, "%s", listener);
		return true;
	}
	/* The narrower of the two, when one covers the other. */
	if (listener[0] == '*' && wild_covers(listener, route)) {
		snprintf(out, len, "%s", route);
		return true;
	}
	if (route[0] == '*' && wild_covers(route, listener)) {
		snprintf(out, len, "%s", listener);
		return true;
	}
	return false;
}

/* -------------------------------------------------------------- selectors -- */

static bool
label_in(const json_t *labels, const char *key, const json_t *values, bool *present)
{
	const char *v = json_string_value(json_object_get(labels, key));
	const json_t *x;
	size_t i;

	*present = v != NULL;
	if (v == NULL)
		return false;
	json_array_foreach(values, i, x)
		if (json_is_string(x) && strcmp(json_string_value(x), v) == 0)
			return true;
	return false;
}

bool
sy_gw_selector_matches(const json_t *sel, const json_t *labels)
{
	const json_t *ml = json_object_get(sel, "matchLabels");
	const json_t *me = json_object_get(sel, "matchExpressions");
	const json_t *v, *e;
	const char *k;
	size_t i;

	if (!json_is_object(sel))
		return false;
	json_object_foreach((json_t *)ml, k, v) {
		const char *have = json_string_value(json_object_get(labels, k));

		if (have == NULL || !json_is_string(v) || strcmp(have, json_string_value(v)) != 0)
			return false;
	}
	json_array_foreach(me, i, e) {
		const char *key = json_string_value(json_object_get(e, "key"));
		const char *op = json_string_value(json_object_get(e, "operator"));
		const json_t *vals = json_object_get(e, "values");
		bool present, in;

		if (key == NULL || op == NULL)
			return false;
		in = label_in(labels, key, vals, &present);
		if (strcmp(op, "In") == 0 ? !in
		    : strcmp(op, "NotIn") == 0 ? in
		    : strcmp(op, "Exists") == 0 ? !present
		    : strcmp(op, "DoesNotExist") == 0 ? present
		    : true)
			return false;
	}
	return true;
}

int
sy_gw_selector_check(const json_t *sel, const char *who, const char *field,
		     struct sy_errors *errs)
{
	const json_t *ml, *me, *v, *e;
	const char *k;
	char f[256];
	size_t i;

	if (!json_is_object(sel))
		return sy_err_add(errs, "invalid", who, field, "must be a label selector object");
	ml = json_object_get(sel, "matchLabels");
	me = json_object_get(sel, "matchExpressions");
	if (ml != NULL && !json_is_object(ml))
		return sy_err_add(errs, "invalid", who, field, "matchLabels: must be an object");
	json_object_foreach((json_t *)ml, k, v)
		if (!json_is_string(v)) {
			snprintf(f, sizeof(f), "%s.matchLabels.%s", field, k);
			return sy_err_add(errs, "invalid", who, f, "must be a string");
		}
	if (me != NULL && !json_is_array(me))
		return sy_err_add(errs, "invalid", who, field, "matchExpressions: must be a list");
	json_array_foreach(me, i, e) {
		const char *op = json_string_value(json_object_get(e, "operator"));
		const json_t *vals = json_object_get(e, "values");
		bool needs;

		snprintf(f, sizeof(f), "%s.matchExpressions[%zu]", field, i);
		if (!json_is_string(json_object_get(e, "key")))
			return sy_err_add(errs, "invalid", who, f, "key: required");
		if (op == NULL || (strcmp(op, "In") != 0 && strcmp(op, "NotIn") != 0 &&
				   strcmp(op, "Exists") != 0 && strcmp(op, "DoesNotExist") != 0))
			return sy_err_add(errs, "invalid", who, f,
					  "operator: \"%s\": must be In, NotIn, Exists or DoesNotExist",
					  op ? op : "");
		needs = strcmp(op, "In") == 0 || strcmp(op, "NotIn") == 0;
		if (needs && (!json_is_array(vals) || json_array_size(vals) == 0))
			return sy_err_add(errs, "invalid", who, f, "values: required for %s", op);
		if (!needs && json_array_size(vals) > 0)
			return sy_err_add(errs, "invalid", who, f, "values: must be empty for %s", op);
	}
	return 0;
}

/* ------------------------------------------------------------- checks -- */

int
sy_gw_check_name(const json_t *v, bool required, const char *who, const char *field,
		 struct sy_errors *errs)
{
	if (v == NULL || json_is_null(v))
		return required ? sy_err_add(errs, "invalid", who, field, "required") : 0;
	if (!json_is_string(v) || json_string_length(v) == 0 || json_string_length(v) > 253)
		return sy_err_add(errs, "invalid", who, field,
				  "must be a non-empty string of at most 253 bytes");
	return 0;
}

int
sy_gw_check_parent_refs(const json_t *refs, const char *who, struct sy_errors *errs)
{
	const json_t *r, *port;
	char f[96];
	size_t i;
	int bad = 0;

	if (refs == NULL)
		return 0;
	if (!json_is_array(refs) || json_array_size(refs) > 32)
		return sy_err_add(errs, "invalid", who, "spec.parentRefs",
				  "must be a list of at most 32 references");
	json_array_foreach(refs, i, r) {
		snprintf(f, sizeof(f), "spec.parentRefs[%zu]", i);
		if (!json_is_object(r)) {
			bad = sy_err_add(errs, "invalid", who, f, "must be an object");
			continue;
		}
		snprintf(f, sizeof(f), "spec.parentRefs[%zu].name", i);
		if (sy_gw_check_name(json_object_get(r, "name"), true, who, f, errs) < 0)
			bad = -1;
		snprintf(f, sizeof(f), "spec.parentRefs[%zu].sectionName", i);
		if (sy_gw_check_name(json_object_get(r, "sectionName"), false, who, f, errs) < 0)
			bad = -1;
		snprintf(f, sizeof(f), "spec.parentRefs[%zu].namespace", i);
		if (sy_gw_check_name(json_object_get(r, "namespace"), false, who, f, errs) < 0)
			bad = -1;
		port = json_object_get(r, "port");
		snprintf(f, sizeof(f), "spec.parentRefs[%zu].port", i);
		if (port != NULL && (!json_is_integer(port) || json_integer_value(port) < 1 ||
				     json_integer_value(port) > 65535))
			bad = sy_err_add(errs, "invalid", who, f, "must be a port number 1-65535");
	}
	return bad;
}

int
sy_gw_check_hostnames(const json_t *hosts, const char *who, struct sy_errors *errs)
{
	const json_t *h;
	char f[64];
	size_t i;
	int bad = 0;

	if (hosts == NULL)
		return 0;
	if (!json_is_array(hosts) || json_array_size(hosts) > 16)
		return sy_err_add(errs, "invalid", who, "spec.hostnames",
				  "must be a list of at most 16 hostnames");
	json_array_foreach(hosts, i, h) {
		snprintf(f, sizeof(f), "spec.hostnames[%zu]", i);
		if (!json_is_string(h) || !sy_gw_hostname_valid(json_string_value(h)))
			bad = sy_err_add(errs, "invalid", who, f,
					 "\"%s\": must be a DNS name, optionally prefixed by \"*.\"",
					 json_is_string(h) ? json_string_value(h) : "");
	}
	return bad;
}

/* ----------------------------------------------------------- the set -- */

static const char *
jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

/* Is port one routerd listens on for proto? HTTP is served plain on
 * listen.http, HTTPS and TLS on listen.https. */
static bool
port_served(const struct sy_compile_ctx *cx, enum sy_gw_proto p, long port)
{
	const struct sy_config *cfg = cx->opts ? cx->opts->cfg : NULL;
	long http = cfg ? cfg->http_port : 80, https = cfg ? cfg->https_port : 443;

	return p == SY_GW_HTTP ? port == http : port == https;
}

static void
listener_certs(struct sy_gw_set *set, const struct sy_gw_gateway *gw, struct sy_gw_listener *l,
	       const json_t *tls)
{
	struct sy_compile_ctx *cx = set->cx;
	const json_t *refs = json_object_get(tls, "certificateRefs");
	const json_t *ref = json_array_get(refs, 0);
	const char *ns, *name, *group, *kind;
	struct sy_object *sec;
	enum sy_cert_problem why;
	char *keep;

	if (ref == NULL) {
		l->refs_reason = "InvalidCertificateRef";
		snprintf(l->refs_msg, sizeof(l->refs_msg),
			 "a Terminate listener needs tls.certificateRefs");
		return;
	}
	group = jstr(ref, "group");
	kind = json_object_get(ref, "kind") ? jstr(ref, "kind") : "Secret";
	name = jstr(ref, "name");
	ns = json_object_get(ref, "namespace") ? jstr(ref, "namespace") : gw->o->ns;
	if (group[0] != '\0' || strcmp(kind, "Secret") != 0) {
		l->refs_reason = "InvalidCertificateRef";
		snprintf(l->refs_msg, sizeof(l->refs_msg),
			 "certificateRefs[0]: %s%s%s is not a Secret", group, group[0] ? "/" : "",
			 kind);
		return;
	}
	if (!sy_gw_ref_granted(cx->st, "Gateway", gw->o->ns, "", "Secret", ns, name)) {
		l->refs_reason = "RefNotPermitted";
		snprintf(l->refs_msg, sizeof(l->refs_msg),
			 "certificateRefs[0]: Secret %s/%s: no ReferenceGrant in \"%s\" allows it",
			 ns, name, ns);
		return;
	}
	sec = sy_store_find(cx->st, &sy_kind_secret, ns, name);
	why = sy_secret_tls_check(sec, NULL, cx->scratch, &l->pem);
	if (why != SY_CERT_OK) {
		l->refs_reason = "InvalidCertificateRef";
		snprintf(l->refs_msg, sizeof(l->refs_msg), "certificateRefs[0]: Secret %s/%s: %s",
			 ns, name,
			 sec == NULL ? "not found"
				     : why == SY_CERT_BAD_CERT ? "not a kubernetes.io/tls Secret "
								 "with a certificate"
								 : sy_cert_problem_text(why));
		l->pem = NULL;
		return;
	}
	keep = sy_arena_alloc(cx->scratch, strlen(ns) + strlen(name) + 2);
	if (keep != NULL) {
		sprintf(keep, "%s/%s", ns, name);
		l->secret = keep;
	}
}

static void
build_listener(struct sy_gw_set *set, struct sy_gw_gateway *gw, const json_t *j,
	       struct sy_gw_listener *l)
{
	const char *proto = jstr(j, "protocol");
	const json_t *tls = json_object_get(j, "tls");
	const json_t *ar = json_object_get(j, "allowedRoutes");
	const json_t *nsf = json_object_get(json_object_get(ar, "namespaces"), "from");
	const json_t *kinds = json_object_get(ar, "kinds"), *k;
	const char *host = json_string_value(json_object_get(j, "hostname"));
	char *lc;
	size_t i;

	memset(l, 0, sizeof(*l));
	l->name = jstr(j, "name");
	l->port = (long)json_integer_value(json_object_get(j, "port"));
	l->proto = strcmp(proto, "HTTP") == 0 ? SY_GW_HTTP
		   : strcmp(proto, "HTTPS") == 0 ? SY_GW_HTTPS
		   : strcmp(proto, "TLS") == 0 ? SY_GW_TLS
		   : SY_GW_PROTO_OTHER;
	if (host != NULL && host[0] != '\0' &&
	    (lc = sy_arena_strdup(set->cx->scratch, host)) != NULL) {
		for (i = 0; lc[i]; i++)
			lc[i] = (char)tolower((unsigned char)lc[i]);
		l->hostname = lc;
	}
	l->from = !json_is_string(nsf) || strcmp(json_string_value(nsf), "Same") == 0
			  ? SY_GW_FROM_SAME
		  : strcmp(json_string_value(nsf), "All") == 0 ? SY_GW_FROM_ALL
							       : SY_GW_FROM_SELECTOR;
	l->selector = json_object_get(json_object_get(ar, "namespaces"), "selector");
	l->passthrough = l->proto == SY_GW_TLS &&
			 strcmp(json_object_get(tls, "mode") ? jstr(tls, "mode") : "Terminate",
				"Passthrough") == 0;
	if (json_array_size(kinds) == 0) {
		l->kinds = l->proto == SY_GW_TLS ? SY_GW_KIND_TLSROUTE
			   : l->proto == SY_GW_PROTO_OTHER ? 0
							   : SY_GW_KIND_HTTPROUTE | SY_GW_KIND_GRPCROUTE;
	} else {
		json_array_foreach(kinds, i, k) {
			const char *g = json_object_get(k, "group") ? jstr(k, "group") : SY_GW_GROUP;
			const char *kn = jstr(k, "kind");
			unsigned bit = strcmp(g, SY_GW_GROUP) != 0 ? 0
				       : strcmp(kn, "HTTPRoute") == 0 ? SY_GW_KIND_HTTPROUTE
				       : strcmp(kn, "GRPCRoute") == 0 ? SY_GW_KIND_GRPCROUTE
				       : strcmp(kn, "TLSRoute") == 0 ? SY_GW_KIND_TLSROUTE
								     : 0;

			/* HTTP- and GRPCRoutes on HTTP(S), TLSRoutes on TLS
			 * listeners */
			if ((bit == SY_GW_KIND_HTTPROUTE || bit == SY_GW_KIND_GRPCROUTE) &&
			    l->proto == SY_GW_TLS)
				bit = 0;
			if (bit == SY_GW_KIND_TLSROUTE && l->proto != SY_GW_TLS)
				bit = 0;
			if (bit == 0)
				l->bad_kinds = true;
			l->kinds |= bit;
		}
	}
	l->accepted = true;
	if (l->proto == SY_GW_PROTO_OTHER) {
		l->accepted = false;
		l->accepted_reason = "UnsupportedProtocol";
		snprintf(l->accepted_msg, sizeof(l->accepted_msg),
			 "protocol \"%s\": this router serves HTTP, HTTPS and TLS", proto);
	} else if (l->proto == SY_GW_TLS && !l->passthrough) {
		l->accepted = false;
		l->accepted_reason = "UnsupportedProtocol";
		snprintf(l->accepted_msg, sizeof(l->accepted_msg),
			 "TLS listeners: only tls.mode Passthrough is served (Terminate: use HTTPS)");
	} else if (!port_served(set->cx, l->proto, l->port)) {
		l->accepted = false;
		l->accepted_reason = "PortUnavailable";
		snprintf(l->accepted_msg, sizeof(l->accepted_msg),
			 "port %ld is not routerd's %s port (config listen.%s)", l->port,
			 l->proto == SY_GW_HTTP ? "HTTP" : "HTTPS",
			 l->proto == SY_GW_HTTP ? "http" : "https");
	}
	if (l->bad_kinds) {
		l->refs_reason = "InvalidRouteKinds";
		snprintf(l->refs_msg, sizeof(l->refs_msg),
			 "allowedRoutes.kinds: a kind this listener's protocol cannot serve");
	}
	if (l->proto == SY_GW_HTTPS)
		listener_certs(set, gw, l, tls);
	/* A listener is programmed when it is accepted and its references
	 * resolve (an invalid certificate leaves it unprogrammed). */
	l->programmed = l->accepted && (l->refs_reason == NULL ||
					strcmp(l->refs_reason, "InvalidRouteKinds") == 0);
	if (l->programmed && l->kinds == 0)
		l->programmed = false;
}

/* Is GatewayClass `name` ours? */
static bool
class_ours(struct sy_gw_set *set, const char *name)
{
	struct sy_object *c = sy_store_find(set->cx->st, &sy_kind_gateway_class, "", name);

	return c != NULL &&
	       strcmp(jstr(json_object_get(c->obj, "spec"), "controllerName"), set->controller) == 0;
}

/* Every Gateway, sorted as the store sorts (https_cover takes the first
 * listener that covers a host): from the relations index (key q) when
 * there is one and `indexed` (a scoped compile, a get: they must not walk
 * the store), else from the store (a full compile: it walks it anyway, and
 * stays right should an object have missed the index). */
static struct sy_object **
all_gateways(struct sy_compile_ctx *cx, bool indexed, size_t *n)
{
	const struct sy_relations *rel = indexed && cx->opts ? cx->opts->rel : NULL;
	static const char key[] = { SY_REL_GATEWAYS, '\0' };
	struct sy_rel_key *rk;
	struct sy_object **arr;
	uint32_t i;
	size_t k = 0;

	*n = 0;
	if (rel == NULL)
		return sy_store_list(cx->st, &sy_kind_gateway, NULL, n);
	rk = (struct sy_rel_key *)sy_relations_get(rel, key);
	arr = malloc(((rk ? rk->n : 0) + 1) * sizeof(*arr));
	if (arr == NULL)
		return NULL;
	for (i = 0; rk != NULL && i < rk->n; i++)
		if (sy_store_warm(cx->st, sy_rel_objs(rk)[i]) == 0)
			arr[k++] = sy_rel_objs(rk)[i];
	sy_store_sort(arr, k);
	*n = k;
	return arr;
}

/* Is o one of the objects this compile compiles? */
static bool
compiling(const struct sy_compile_ctx *cx, const struct sy_object *o)
{
	size_t i;

	if (cx->scope == NULL)
		return true;
	for (i = 0; i < cx->scope->n; i++)
		if (cx->scope->objs[i] == o)
			return true;
	return false;
}

/* The listeners of all our Gateways, whatever the scope: a route reads
 * those its parentRefs name (and any HTTPS listener covering its hosts),
 * and Gateways are few. Their statuses are written for the compile's
 * Gateways only (gw->status). */
static int
set_build(struct sy_compile_ctx *cx, struct sy_gw_set *set, bool statuses)
{
	size_t ng = 0, i, j;
	struct sy_object **gws = NULL;
	int rc = 0;

	memset(set, 0, sizeof(*set));
	set->cx = cx;
	set->controller = sy_gw_controller(cx);
	gws = all_gateways(cx, cx->scope != NULL || !statuses, &ng);
	set->gws = calloc(ng ? ng : 1, sizeof(*set->gws));
	if (gws == NULL || set->gws == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < ng; i++) {
		const json_t *spec = json_object_get(gws[i]->obj, "spec");
		const json_t *ls = json_object_get(spec, "listeners");
		struct sy_gw_gateway *gw = &set->gws[set->n];

		if (!class_ours(set, jstr(spec, "gatewayClassName")))
			continue; /* not ours (or its class is missing): left alone */
		gw->o = gws[i];
		gw->status = statuses && compiling(cx, gws[i]);
		gw->n_ls = json_array_size(ls);
		gw->ls = sy_arena_alloc(cx->scratch, (gw->n_ls ? gw->n_ls : 1) * sizeof(*gw->ls));
		if (gw->ls == NULL) {
			rc = -ENOMEM;
			goto out;
		}
		for (j = 0; j < gw->n_ls; j++)
			build_listener(set, gw, json_array_get(ls, j), &gw->ls[j]);
		set->n++;
	}
out:
	free(gws);
	return rc;
}

int
sy_gw_set_build(struct sy_compile_ctx *cx, struct sy_gw_set *set)
{
	return set_build(cx, set, true);
}

void
sy_gw_set_fini(struct sy_gw_set *set)
{
	free(set->gws);
	memset(set, 0, sizeof(*set));
}

static json_t *
supported_kinds(const struct sy_gw_listener *l)
{
	json_t *a = json_array();

	if (l->kinds & SY_GW_KIND_HTTPROUTE)
		json_array_append_new(a, json_pack("{s:s, s:s}", "group", SY_GW_GROUP, "kind",
						   "HTTPRoute"));
	if (l->kinds & SY_GW_KIND_GRPCROUTE)
		json_array_append_new(a, json_pack("{s:s, s:s}", "group", SY_GW_GROUP, "kind",
						   "GRPCRoute"));
	if (l->kinds & SY_GW_KIND_TLSROUTE)
		json_array_append_new(a, json_pack("{s:s, s:s}", "group", SY_GW_GROUP, "kind",
						   "TLSRoute"));
	return a;
}

static const json_t *
prev_listener_conds(const struct sy_object *o, const char *name)
{
	const json_t *l;
	size_t i;

	json_array_foreach(json_object_get(o->status, "listeners"), i, l)
		if (strcmp(jstr(l, "name"), name) == 0)
			return json_object_get(l, "conditions");
	return NULL;
}

void
sy_gw_set_status(struct sy_gw_set *set)
{
	const char *now = set->cx->opts->now;
	size_t i, j;

	for (i = 0; i < set->n; i++) {
		struct sy_gw_gateway *gw = &set->gws[i];
		const json_t *gen = sy_gw_generation(gw->o);
		json_t *ls, *conds, *st;
		size_t n_acc = 0, n_prog = 0;

		if (!gw->status)
			continue; /* not in this compile's scope: unchanged */
		ls = json_array();
		conds = json_array();

		for (j = 0; j < gw->n_ls; j++) {
			const struct sy_gw_listener *l = &gw->ls[j];
			const json_t *prev = prev_listener_conds(gw->o, l->name);
			json_t *lc = json_array();

			n_acc += l->accepted;
			n_prog += l->programmed;
			json_array_append_new(
				lc, sy_gw_condition(prev, "Accepted", l->accepted,
						    l->accepted ? "Accepted" : l->accepted_reason,
						    l->accepted ? "" : l->accepted_msg, now, gen));
			json_array_append_new(
				lc, sy_gw_condition(prev, "Programmed", l->programmed,
						    l->programmed ? "Programmed" : "Invalid",
						    l->programmed ? ""
						    : !l->accepted ? l->accepted_msg
						    : l->refs_reason ? l->refs_msg
								     : "no route kind to serve",
						    now, gen));
			json_array_append_new(
				lc, sy_gw_condition(prev, "ResolvedRefs", l->refs_reason == NULL,
						    l->refs_reason ? l->refs_reason : "ResolvedRefs",
						    l->refs_reason ? l->refs_msg : "", now, gen));
			/* attachedRoutes: added at `get` (sy_gw_status_live) */
			json_array_append_new(
				ls, json_pack("{s:s, s:o, s:o}", "name", l->name, "supportedKinds",
					      supported_kinds(l), "conditions", lc));
		}
		{
			const json_t *prev = json_object_get(gw->o->status, "conditions");

			json_array_append_new(
				conds, sy_gw_condition(prev, "Accepted", n_acc > 0 || gw->n_ls == 0,
						       n_acc > 0 || gw->n_ls == 0 ? "Accepted"
										  : "ListenersNotValid",
						       n_acc == gw->n_ls ? ""
									 : "some listeners are not valid",
						       now, gen));
			json_array_append_new(
				conds, sy_gw_condition(prev, "Programmed", n_prog > 0,
						       n_prog > 0 ? "Programmed" : "Invalid",
						       n_prog > 0 ? "" : "no listener is programmed",
						       now, gen));
		}
		st = json_pack("{s:o, s:o}", "conditions", conds, "listeners", ls);
		json_decref(gw->o->status);
		gw->o->status = st;
	}
}

/* ---------------------------------------------------------- attaching -- */

json_t *
sy_gw_parent_ref(const json_t *ref, const char *route_ns)
{
	json_t *p = json_pack("{s:s, s:s, s:s, s:s}", "group",
			      json_object_get(ref, "group") ? jstr(ref, "group") : SY_GW_GROUP,
			      "kind", json_object_get(ref, "kind") ? jstr(ref, "kind") : "Gateway",
			      "namespace",
			      json_object_get(ref, "namespace") ? jstr(ref, "namespace") : route_ns,
			      "name", jstr(ref, "name"));

	if (p != NULL && json_object_get(ref, "sectionName") != NULL)
		json_object_set(p, "sectionName", json_object_get(ref, "sectionName"));
	if (p != NULL && json_object_get(ref, "port") != NULL)
		json_object_set(p, "port", json_object_get(ref, "port"));
	return p;
}

static bool
ns_allowed(struct sy_gw_set *set, const struct sy_gw_listener *l, const char *gw_ns,
	   const char *route_ns)
{
	struct sy_object *nso;
	json_t *labels;
	bool ok;

	if (l->from == SY_GW_FROM_ALL)
		return true;
	if (l->from == SY_GW_FROM_SAME)
		return strcmp(gw_ns, route_ns) == 0;
	nso = sy_store_find(set->cx->st, &sy_kind_namespace, "", route_ns);
	labels = json_deep_copy(
		json_object_get(json_object_get(nso ? nso->obj : NULL, "metadata"), "labels"));
	if (labels == NULL)
		labels = json_object();
	/* Kubernetes labels every namespace with its name. */
	json_object_set_new(labels, "kubernetes.io/metadata.name", json_string(route_ns));
	ok = sy_gw_selector_matches(l->selector, labels);
	json_decref(labels);
	return ok;
}

int
sy_gw_attach(struct sy_gw_set *set, const json_t *ref, unsigned kind, const char *route_ns,
	     const json_t *hostnames, struct sy_gw_attach *out, size_t max,
	     const char **reason, char *msg, size_t msglen)
{
	const char *group = json_object_get(ref, "group") ? jstr(ref, "group") : SY_GW_GROUP;
	const char *k = json_object_get(ref, "kind") ? jstr(ref, "kind") : "Gateway";
	const char *ns = json_object_get(ref, "namespace") ? jstr(ref, "namespace") : route_ns;
	const char *name = jstr(ref, "name");
	const json_t *sec = json_object_get(ref, "sectionName");
	const json_t *port = json_object_get(ref, "port");
	const struct sy_gw_gateway *gw = NULL;
	size_t i, j, n = 0, matched = 0, allowed = 0;

	if (strcmp(group, SY_GW_GROUP) != 0 || strcmp(k, "Gateway") != 0)
		return -1;
	for (i = 0; i < set->n && gw == NULL; i++)
		if (strcmp(set->gws[i].o->ns, ns) == 0 && strcmp(set->gws[i].o->name, name) == 0)
			gw = &set->gws[i];
	if (gw == NULL)
		return -1;
	for (i = 0; i < gw->n_ls; i++) {
		struct sy_gw_listener *l = &gw->ls[i];
		bool any = false;

		if (json_is_string(sec) && strcmp(json_string_value(sec), l->name) != 0)
			continue;
		if (json_is_integer(port) && json_integer_value(port) != l->port)
			continue;
		matched++;
		if (!l->accepted || !(l->kinds & kind) || !ns_allowed(set, l, gw->o->ns, route_ns))
			continue;
		allowed++;
		if (json_array_size(hostnames) == 0) {
			if (n < max && sy_gw_host_intersect(l->hostname, "", out[n].host,
							    sizeof(out[n].host))) {
				out[n].gw = gw;
				out[n].l = l;
				n++;
				any = true;
			}
		}
		for (j = 0; j < json_array_size(hostnames) && n < max; j++) {
			char lc[SY_GW_HOST_MAX];
			const char *h = json_string_value(json_array_get(hostnames, j));
			size_t c;

			snprintf(lc, sizeof(lc), "%s", h ? h : "");
			for (c = 0; lc[c]; c++)
				lc[c] = (char)tolower((unsigned char)lc[c]);
			if (!sy_gw_host_intersect(l->hostname, lc, out[n].host, sizeof(out[n].host)))
				continue;
			out[n].gw = gw;
			out[n].l = l;
			n++;
			any = true;
		}
		if (any)
			l->attached++;
	}
	if (n > 0)
		return (int)n;
	if (matched == 0) {
		*reason = "NoMatchingParent";
		snprintf(msg, msglen, "Gateway %s/%s has no listener%s%s%s", ns, name,
			 json_is_string(sec) ? " named " : "",
			 json_is_string(sec) ? json_string_value(sec) : "",
			 json_is_integer(port) ? " on that port" : "");
	} else if (allowed == 0) {
		*reason = "NotAllowedByListeners";
		snprintf(msg, msglen,
			 "no listener of Gateway %s/%s allows this route (namespace or kind)", ns,
			 name);
	} else {
		*reason = "NoMatchingListenerHostname";
		snprintf(msg, msglen,
			 "no hostname of the route matches a listener of Gateway %s/%s", ns, name);
	}
	return 0;
}

void
sy_gw_route_displaced(struct sy_compile_ctx *cx, const struct sy_rule_in *rule, const char *host,
		      const struct sy_object *winner)
{
	const json_t *p;
	char note[512];
	size_t i, j;

	(void)cx;
	/* The spec has no reason for a host another system serves: the
	 * route stays Accepted for its other hosts; the message says which
	 * host it does not get, and who has it. */
	snprintf(note, sizeof(note), "host \"%s\" is served by %s%s%s %s%s%s (an older claim)",
		 host[0] ? host : "*", winner->kind->kind, winner->kind->group[0] ? "." : "",
		 winner->kind->group, winner->ns, winner->ns[0] ? "/" : "", winner->name);
	json_array_foreach(json_object_get(rule->o->status, "parents"), i, p) {
		json_t *c;

		json_array_foreach(json_object_get(p, "conditions"), j, c) {
			const char *msg = jstr(c, "message");
			char *m = NULL;

			if (strcmp(jstr(c, "type"), "Accepted") != 0 || strstr(msg, note) != NULL)
				continue;
			if (asprintf(&m, "%s%s%s", msg, msg[0] ? "; " : "", note) < 0)
				continue;
			json_object_set_new(c, "message", json_string(m));
			free(m);
		}
	}
}

/* ---------------------------------------------------------- relations -- */

/* The Service a backendRef reads, and the ReferenceGrants of its namespace
 * when it is another's. */
static void
backend_ref_relations(const struct sy_object *o, const json_t *b, struct sy_rel_keys *out)
{
	const char *ns = json_object_get(b, "namespace") ? jstr(b, "namespace") : o->ns;

	if (!json_is_object(b))
		return;
	sy_rel_add(out, SY_REL_SERVICE, "%s/%s", ns, jstr(b, "name"));
	if (strcmp(ns, o->ns) != 0)
		sy_rel_add(out, SY_REL_GRANT, "%s", ns);
}

void
sy_gw_route_relations(const struct sy_object *o, const struct sy_compile_opts *opts,
		      struct sy_rel_keys *out)
{
	const json_t *spec = json_object_get(o->obj, "spec");
	const json_t *hosts = json_object_get(spec, "hostnames"), *h, *ref, *rule, *b;
	bool from_listeners = json_array_size(hosts) == 0;
	size_t i, j;

	(void)opts;
	/* the Services of its backendRefs (both route kinds write them so),
	 * and the ReferenceGrants of other namespaces that allow them */
	json_array_foreach(json_object_get(spec, "rules"), i, rule) {
		json_array_foreach(json_object_get(rule, "backendRefs"), j, b)
			backend_ref_relations(o, b, out);
		/* a RequestMirror's backend is read as a backendRef is */
		json_array_foreach(json_object_get(rule, "filters"), j, b)
			if (strcmp(jstr(b, "type"), "RequestMirror") == 0)
				backend_ref_relations(
					o, json_object_get(json_object_get(b, "requestMirror"), "backendRef"),
					out);
	}

	json_array_foreach(hosts, i, h)
		if (json_is_string(h)) {
			const char *dot = strchr(json_string_value(h), '.');

			sy_rel_add_host(out, json_string_value(h));
			/* an HTTPS listener *.<domain> terminates it for every
			 * domain above it (sy_gw_host_intersect: any number of
			 * labels) */
			for (; json_string_value(h)[0] != '*' && dot != NULL && dot[1] != '\0';
			     dot = strchr(dot + 1, '.'))
				sy_rel_add(out, SY_REL_GW_COVER, "%s", dot + 1);
			/* a wildcard meets a narrower listener hostname: the
			 * host it serves there is the listener's */
			from_listeners = from_listeners || json_string_value(h)[0] == '*';
		}
	json_array_foreach(json_object_get(spec, "parentRefs"), i, ref) {
		const char *group = json_object_get(ref, "group") ? jstr(ref, "group") : SY_GW_GROUP;
		const char *kind = json_object_get(ref, "kind") ? jstr(ref, "kind") : "Gateway";
		const char *ns = json_object_get(ref, "namespace") ? jstr(ref, "namespace") : o->ns;

		if (strcmp(group, SY_GW_GROUP) != 0 || strcmp(kind, "Gateway") != 0)
			continue; /* not a Gateway: no status, nothing read */
		sy_rel_add(out, SY_REL_GW_PARENT, "%s/%s", ns, jstr(ref, "name"));
		if (from_listeners)
			sy_rel_add(out, SY_REL_GW_HOSTS, "%s/%s", ns, jstr(ref, "name"));
	}
}

/* The route kinds are compiled by the Gateway compile (gateway.c); their
 * own compile only makes their objects part of a scope (control/gen/scope.c
 * pushes objects of compiling kinds). */
int
sy_gw_route_compile_noop(struct sy_compile_ctx *cx)
{
	(void)cx;
	return 0;
}

/* ------------------------------------------------------ attachedRoutes -- */

/* The attachments one route makes, as its kind's compile makes them
 * (httproute.c, tlsroute.c compile_one: parentRefs in order, at most 32
 * Gateways of ours, 64 attachments in all): each listener it attaches to
 * counts it once (sy_gw_attach). */
#define LIVE_ATTACH_MAX 64
#define LIVE_PARENTS_MAX 32

static void
count_route(struct sy_gw_set *set, const struct sy_object *o, unsigned kind,
	    struct sy_gw_attach *at)
{
	const json_t *spec = json_object_get(o->obj, "spec"), *ref;
	size_t i, n_at = 0, n_ps = 0;

	json_array_foreach(json_object_get(spec, "parentRefs"), i, ref) {
		const char *reason = NULL;
		char msg[256];
		int got;

		if (n_ps >= LIVE_PARENTS_MAX)
			break;
		got = sy_gw_attach(set, ref, kind, o->ns, json_object_get(spec, "hostnames"),
				   at + n_at, LIVE_ATTACH_MAX - n_at, &reason, msg, sizeof(msg));
		if (got < 0)
			continue;
		n_at += (size_t)got;
		n_ps++;
	}
}

/* Count the routes naming gw (key p<ns>/<name>) on gw's listeners. */
static void
count_gateway(struct sy_gw_set *set, struct sy_gw_gateway *gw, struct sy_gw_attach *at)
{
	const struct sy_relations *rel = set->cx->opts->rel;
	struct sy_store *st = set->cx->st;
	size_t i;

	for (i = 0; i < gw->n_ls; i++)
		gw->ls[i].attached = 0;
	if (rel != NULL) {
		char *key = NULL;
		struct sy_rel_key *rk;
		uint32_t j;

		if (asprintf(&key, "%c%s/%s", SY_REL_GW_PARENT, gw->o->ns, gw->o->name) < 0)
			return;
		rk = (struct sy_rel_key *)sy_relations_get(rel, key);
		free(key);
		for (j = 0; rk != NULL && j < rk->n; j++) {
			struct sy_object *o = sy_rel_objs(rk)[j];

			if (sy_store_warm(st, o) != 0)
				continue;
			if (o->kind == &sy_kind_httproute)
				count_route(set, o, SY_GW_KIND_HTTPROUTE, at);
			else if (o->kind == &sy_kind_grpcroute)
				count_route(set, o, SY_GW_KIND_GRPCROUTE, at);
			else if (o->kind == &sy_kind_tlsroute)
				count_route(set, o, SY_GW_KIND_TLSROUTE, at);
		}
		return;
	}
	{
		static const struct {
			const struct sy_kind *kind;
			unsigned bit;
		} kinds[] = { { &sy_kind_httproute, SY_GW_KIND_HTTPROUTE },
			      { &sy_kind_grpcroute, SY_GW_KIND_GRPCROUTE },
			      { &sy_kind_tlsroute, SY_GW_KIND_TLSROUTE } };
		size_t k;

		for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
			size_t n = 0;
			struct sy_object **rs;

			if (sy_store_count(st, kinds[k].kind) == 0)
				continue;
			rs = sy_store_list(st, kinds[k].kind, NULL, &n);
			for (i = 0; rs != NULL && i < n; i++)
				count_route(set, rs[i], kinds[k].bit, at);
			free(rs);
		}
	}
}

void
sy_gw_status_live(struct sy_store *st, const struct sy_compile_opts *opts, json_t *items)
{
	struct sy_compile_ctx cx = { .st = st, .opts = opts };
	struct sy_gw_attach *at = calloc(LIVE_ATTACH_MAX, sizeof(*at));
	struct sy_gw_set set;
	const json_t *item;
	size_t i, j, k;

	memset(&set, 0, sizeof(set));
	cx.scratch = sy_arena_new();
	if (at == NULL || cx.scratch == NULL || set_build(&cx, &set, false) < 0)
		goto out;
	json_array_foreach(items, i, item) {
		const json_t *md = json_object_get(item, "metadata");
		const char *ns = jstr(md, "namespace"), *name = jstr(md, "name");
		json_t *ls = json_object_get(json_object_get(item, "status"), "listeners"), *l, *copy;
		struct sy_gw_gateway *gw = NULL;

		for (j = 0; j < set.n && gw == NULL; j++)
			if (strcmp(set.gws[j].o->ns, ns) == 0 && strcmp(set.gws[j].o->name, name) == 0)
				gw = &set.gws[j];
		if (gw == NULL || !json_is_array(ls))
			continue; /* not ours: no status from us */
		/* the view shares the stored status: counts go in a copy */
		copy = json_deep_copy(json_object_get(item, "status"));
		if (copy == NULL)
			continue;
		json_object_set_new((json_t *)item, "status", copy);
		ls = json_object_get(copy, "listeners");
		count_gateway(&set, gw, at);
		json_array_foreach(ls, j, l)
			for (k = 0; k < gw->n_ls; k++)
				if (strcmp(jstr(l, "name"), gw->ls[k].name) == 0) {
					json_object_set_new(l, "attachedRoutes",
							    json_integer(gw->ls[k].attached));
					break;
				}
	}
out:
	sy_gw_set_fini(&set);
	free(at);
	if (cx.scratch != NULL)
		sy_arena_free(cx.scratch);
}
