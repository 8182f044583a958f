/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway API Gateway (gateway.networking.k8s.io/v1): listeners (name,
 * hostname, port, protocol HTTP / HTTPS / TLS, tls, allowedRoutes) that
 * routes attach to. Ours when its gatewayClassName names a GatewayClass of
 * ours (gateway_class.c). A listener is served only on routerd's own ports:
 * HTTP on listen.http, HTTPS (Terminate) and TLS (Passthrough) on
 * listen.https; any other port is not programmed (PortUnavailable).
 *
 * Its compile runs the Gateway API: builds the listeners of all our
 * Gateways (gateway_common.c: few, whatever the scope), has the HTTPRoutes
 * and TLSRoutes of the compile (all, or the scope's) attach and add their
 * rules, then writes the statuses of the compile's Gateways. Their
 * listeners' attachedRoutes are counted at `get` (sy_gw_status_live), so
 * that one route's change compiles that route alone.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway_common.h"
#include "gen/compile.h"
#include "store/relations.h"
#include "store/store.h"

static const char *
jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static int
check_tls(const json_t *l, const char *proto, const char *base, const char *who,
	  struct sy_errors *errs)
{
	const json_t *tls = json_object_get(l, "tls");
	const json_t *mode, *refs, *r;
	char f[128];
	size_t i;

	snprintf(f, sizeof(f), "%s.tls", base);
	if (tls == NULL) {
		if (strcmp(proto, "HTTPS") == 0 || strcmp(proto, "TLS") == 0)
			return sy_err_add(errs, "invalid", who, f, "required for protocol %s", proto);
		return 0;
	}
	if (strcmp(proto, "HTTP") == 0)
		return sy_err_add(errs, "invalid", who, f, "must not be set for protocol HTTP");
	if (!json_is_object(tls))
		return sy_err_add(errs, "invalid", who, f, "must be an object");
	mode = json_object_get(tls, "mode");
	snprintf(f, sizeof(f), "%s.tls.mode", base);
	if (mode != NULL && (!json_is_string(mode) ||
			     (strcmp(json_string_value(mode), "Terminate") != 0 &&
			      strcmp(json_string_value(mode), "Passthrough") != 0)))
		return sy_err_add(errs, "invalid", who, f, "\"%s\": must be Terminate or Passthrough",
				  json_is_string(mode) ? json_string_value(mode) : "");
	if (strcmp(proto, "HTTPS") == 0 && json_is_string(mode) &&
	    strcmp(json_string_value(mode), "Passthrough") == 0)
		return sy_err_add(errs, "invalid", who, f,
				  "\"Passthrough\": protocol HTTPS terminates TLS (use protocol TLS)");
	refs = json_object_get(tls, "certificateRefs");
	snprintf(f, sizeof(f), "%s.tls.certificateRefs", base);
	if (refs != NULL && (!json_is_array(refs) || json_array_size(refs) > 64))
		return sy_err_add(errs, "invalid", who, f, "must be a list");
	if ((!json_is_string(mode) || strcmp(json_string_value(mode), "Terminate") == 0) &&
	    json_array_size(refs) == 0)
		return sy_err_add(errs, "invalid", who, f, "required for tls.mode Terminate");
	json_array_foreach(refs, i, r) {
		snprintf(f, sizeof(f), "%s.tls.certificateRefs[%zu].name", base, i);
		if (sy_gw_check_name(json_object_get(r, "name"), true, who, f, errs) < 0)
			return -1;
	}
	return 0;
}

static int
check_listener(const json_t *l, size_t i, json_t *names, const char *who, struct sy_errors *errs)
{
	const json_t *name = json_object_get(l, "name"), *port = json_object_get(l, "port");
	const json_t *proto = json_object_get(l, "protocol"), *host = json_object_get(l, "hostname");
	const json_t *ar = json_object_get(l, "allowedRoutes"), *from, *sel, *kinds;
	char base[48], f[128];
	int bad = 0;

	snprintf(base, sizeof(base), "spec.listeners[%zu]", i);
	if (!json_is_object(l))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.name", base);
	if (sy_gw_check_name(name, true, who, f, errs) < 0) {
		bad = -1;
	} else if (json_object_get(names, json_string_value(name)) != NULL) {
		bad = sy_err_add(errs, "invalid", who, f, "\"%s\": listener names must be unique",
				 json_string_value(name));
	} else {
		json_object_set_new(names, json_string_value(name), json_true());
	}
	snprintf(f, sizeof(f), "%s.port", base);
	if (port == NULL)
		bad = sy_err_add(errs, "invalid", who, f, "required");
	else if (!json_is_integer(port) || json_integer_value(port) < 1 ||
		 json_integer_value(port) > 65535)
		bad = sy_err_add(errs, "invalid", who, f, "must be a port number 1-65535");
	snprintf(f, sizeof(f), "%s.protocol", base);
	if (proto == NULL)
		return sy_err_add(errs, "invalid", who, f, "required");
	if (!json_is_string(proto) || json_string_length(proto) == 0)
		return sy_err_add(errs, "invalid", who, f, "must be a protocol name (HTTP, HTTPS, TLS)");
	snprintf(f, sizeof(f), "%s.hostname", base);
	if (host != NULL && (!json_is_string(host) || !sy_gw_hostname_valid(json_string_value(host))))
		bad = sy_err_add(errs, "invalid", who, f,
				 "\"%s\": must be a DNS name, optionally prefixed by \"*.\"",
				 json_is_string(host) ? json_string_value(host) : "");
	if (check_tls(l, json_string_value(proto), base, who, errs) < 0)
		bad = -1;
	if (ar == NULL)
		return bad;
	snprintf(f, sizeof(f), "%s.allowedRoutes", base);
	if (!json_is_object(ar))
		return sy_err_add(errs, "invalid", who, f, "must be an object");
	from = json_object_get(json_object_get(ar, "namespaces"), "from");
	sel = json_object_get(json_object_get(ar, "namespaces"), "selector");
	snprintf(f, sizeof(f), "%s.allowedRoutes.namespaces.from", base);
	if (from != NULL && (!json_is_string(from) ||
			     (strcmp(json_string_value(from), "Same") != 0 &&
			      strcmp(json_string_value(from), "All") != 0 &&
			      strcmp(json_string_value(from), "Selector") != 0)))
		bad = sy_err_add(errs, "invalid", who, f, "\"%s\": must be Same, All or Selector",
				 json_is_string(from) ? json_string_value(from) : "");
	snprintf(f, sizeof(f), "%s.allowedRoutes.namespaces.selector", base);
	if (json_is_string(from) && strcmp(json_string_value(from), "Selector") == 0 && sel == NULL)
		bad = sy_err_add(errs, "invalid", who, f, "required when from is Selector");
	else if (sel != NULL && sy_gw_selector_check(sel, who, f, errs) < 0)
		bad = -1;
	kinds = json_object_get(ar, "kinds");
	snprintf(f, sizeof(f), "%s.allowedRoutes.kinds", base);
	if (kinds != NULL && !json_is_array(kinds))
		bad = sy_err_add(errs, "invalid", who, f, "must be a list");
	else {
		const json_t *k;
		size_t j;

		json_array_foreach(kinds, j, k) {
			snprintf(f, sizeof(f), "%s.allowedRoutes.kinds[%zu].kind", base, j);
			if (sy_gw_check_name(json_object_get(k, "kind"), true, who, f, errs) < 0)
				bad = -1;
		}
	}
	return bad;
}

static int
validate_gateway(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *ls, *l;
	json_t *names;
	size_t i;
	int bad = 0;

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "required");
	if (sy_gw_check_name(json_object_get(spec, "gatewayClassName"), true, who,
			     "spec.gatewayClassName", errs) < 0)
		bad = -1;
	ls = json_object_get(spec, "listeners");
	if (ls == NULL)
		return sy_err_add(errs, "invalid", who, "spec.listeners", "required");
	if (!json_is_array(ls) || json_array_size(ls) == 0 ||
	    json_array_size(ls) > SY_GW_LISTENERS_MAX)
		return sy_err_add(errs, "invalid", who, "spec.listeners",
				  "must be a list of 1 to %d listeners", SY_GW_LISTENERS_MAX);
	names = json_object();
	json_array_foreach(ls, i, l)
		if (check_listener(l, i, names, who, errs) < 0)
			bad = -1;
	json_decref(names);
	return bad;
}

/* ------------------------------------------------------------- compile -- */

/* Does the scope hold a Gateway API object that compiles (a Gateway, a
 * route)? Without one, nothing here changes: the listeners are not built. */
static bool
scope_has_gateway_api(const struct sy_compile_ctx *cx)
{
	size_t i;

	for (i = 0; i < cx->scope->n; i++)
		if (cx->scope->objs[i]->kind == &sy_kind_gateway ||
		    cx->scope->objs[i]->kind == &sy_kind_httproute ||
		    cx->scope->objs[i]->kind == &sy_kind_grpcroute ||
		    cx->scope->objs[i]->kind == &sy_kind_tlsroute)
			return true;
	return false;
}

static int
compile_gateway_api(struct sy_compile_ctx *cx)
{
	struct sy_gw_set set;
	int rc;

	if (cx->scope != NULL && !scope_has_gateway_api(cx))
		return 0;
	rc = sy_gw_set_build(cx, &set);

	if (rc == 0)
		rc = sy_httproute_compile_all(&set);
	if (rc == 0)
		rc = sy_grpcroute_compile_all(&set);
	if (rc == 0)
		rc = sy_tlsroute_compile_all(&set);
	if (rc == 0)
		sy_gw_set_status(&set);
	sy_gw_set_fini(&set);
	return rc;
}

/*
 * Its own keys (g: it meets the routes that take their hosts from its
 * listeners; q: the index of every Gateway; n: its class's name, for a
 * change of the class; x: an HTTPS listener without a hostname; l: a
 * listener of protocol HTTP; y: a wildcard HTTPS listener's domain), its
 * listeners' hosts ("" for a listener without one: the default vhost), its
 * certificates' Secrets and, for those in other namespaces, their
 * ReferenceGrants (r). Routes naming it state p (relations.h): a change of
 * it pulls them (scope.c's G seed), a change of one of them does not pull
 * it nor its other routes.
 */
static void
gateway_relations(const struct sy_object *o, const struct sy_compile_opts *opts,
		  struct sy_rel_keys *out)
{
	const json_t *l, *r;
	size_t i, j;
	bool https = false, plain = false;

	(void)opts;
	sy_rel_add(out, SY_REL_GW_HOSTS, "%s/%s", o->ns, o->name);
	sy_rel_add(out, SY_REL_GATEWAYS, "%s", "");
	sy_rel_add(out, SY_REL_GW_CLASS, "%s",
		   jstr(json_object_get(o->obj, "spec"), "gatewayClassName"));
	json_array_foreach(json_object_get(json_object_get(o->obj, "spec"), "listeners"), i, l) {
		const json_t *refs = json_object_get(json_object_get(l, "tls"), "certificateRefs");

		const char *hn = jstr(l, "hostname");

		plain = plain || strcmp(jstr(l, "protocol"), "HTTP") == 0;
		if (strcmp(jstr(l, "protocol"), "HTTPS") == 0) {
			https = https || hn[0] == '\0';
			if (hn[0] == '*' && hn[1] == '.')
				sy_rel_add(out, SY_REL_GW_WILD, "%s", hn + 2);
		}
		sy_rel_add_host(out, hn);
		json_array_foreach(refs, j, r) {
			const char *ns = json_object_get(r, "namespace") ? jstr(r, "namespace") : o->ns;

			sy_rel_add(out, SY_REL_SECRET, "%s/%s", ns, jstr(r, "name"));
			if (strcmp(ns, o->ns) != 0)
				sy_rel_add(out, SY_REL_GRANT, "%s", ns);
		}
	}
	if (https)
		sy_rel_add(out, SY_REL_GW_HTTPS, "%s", "");
	if (plain)
		sy_rel_add(out, SY_REL_GW_PLAIN, "%s", "");
}

const struct sy_kind sy_kind_gateway = {
	.kind = "Gateway",
	.group = SY_GW_GROUP,
	.api_versions = (const char *const[]){ "gateway.networking.k8s.io/v1",
					       "gateway.networking.k8s.io/v1beta1", NULL },
	.names = (const char *const[]){ "gateway", "gateways", "gtw",
					"gateways.gateway.networking.k8s.io", NULL },
	.generation = true,
	.validate = validate_gateway,
	.compile = compile_gateway_api,
	.relations = gateway_relations,
};
