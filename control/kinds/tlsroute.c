/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Gateway API TLSRoute (gateway.networking.k8s.io/v1alpha2): on a TLS
 * listener in Passthrough mode, connections whose SNI is one of the route's
 * hostnames (intersected with the listener's) are spliced, still encrypted,
 * to the backends of its rule (SY_TLS_PASSTHROUGH, as an OpenShift
 * passthrough Route). One rule: the spec allows more, but without matches
 * only the first can ever be chosen.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gateway_common.h"
#include "gen/compile.h"
#include "store/relations.h"
#include "store/store.h"

#define TR_ATTACH_MAX 64

static const char *
jstr(const json_t *o, const char *k)
{
	const char *s = json_string_value(json_object_get(o, k));

	return s ? s : "";
}

static int
validate_tlsroute(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *rules, *r, *b, *port;
	size_t i, j;
	char f[96];
	int bad = 0;

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "required");
	if (sy_gw_check_parent_refs(json_object_get(spec, "parentRefs"), who, errs) < 0)
		bad = -1;
	if (sy_gw_check_hostnames(json_object_get(spec, "hostnames"), who, errs) < 0)
		bad = -1;
	rules = json_object_get(spec, "rules");
	if (rules == NULL)
		return sy_err_add(errs, "invalid", who, "spec.rules", "required");
	if (!json_is_array(rules) || json_array_size(rules) == 0 || json_array_size(rules) > 16)
		return sy_err_add(errs, "invalid", who, "spec.rules", "must be a list of 1 to 16 rules");
	json_array_foreach(rules, i, r) {
		const json_t *bs = json_object_get(r, "backendRefs");

		snprintf(f, sizeof(f), "spec.rules[%zu].backendRefs", i);
		if (!json_is_array(bs) || json_array_size(bs) == 0 ||
		    json_array_size(bs) > SY_RULE_BACKENDS_MAX)
			return sy_err_add(errs, "invalid", who, f, "required, a list of 1 to %d",
					  SY_RULE_BACKENDS_MAX);
		json_array_foreach(bs, j, b) {
			snprintf(f, sizeof(f), "spec.rules[%zu].backendRefs[%zu].name", i, j);
			if (sy_gw_check_name(json_object_get(b, "name"), true, who, f, errs) < 0)
				bad = -1;
			port = json_object_get(b, "port");
			snprintf(f, sizeof(f), "spec.rules[%zu].backendRefs[%zu].port", i, j);
			if (!json_is_integer(port) || json_integer_value(port) < 1 ||
			    json_integer_value(port) > 65535)
				bad = sy_err_add(errs, "invalid", who, f,
						 "required, a port number 1-65535");
		}
	}
	return bad;
}

static int
compile_one(struct sy_gw_set *set, struct sy_object *o)
{
	struct sy_compile_ctx *cx = set->cx;
	const json_t *spec = json_object_get(o->obj, "spec");
	const json_t *rule = json_array_get(json_object_get(spec, "rules"), 0);
	const json_t *ref, *b, *prev = json_object_get(o->status, "parents");
	struct sy_gw_attach *at = calloc(TR_ATTACH_MAX, sizeof(*at));
	json_t *parents = json_array();
	struct sy_rule_in base;
	const char *refs_reason = NULL;
	char refs_msg[256] = "";
	size_t n_at = 0, i, j;
	int rc = 0;

	if (at == NULL || parents == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	memset(&base, 0, sizeof(base));
	base.o = o;
	base.path = "/";
	base.match = SY_PATH_PREFIX;
	base.tls = SY_TLS_PASSTHROUGH;
	base.weights = SY_WEIGHTS_PER_SERVICE;
	json_array_foreach(json_object_get(rule, "backendRefs"), i, b) {
		const char *ns = json_object_get(b, "namespace") ? jstr(b, "namespace") : o->ns;
		const char *kind = json_object_get(b, "kind") ? jstr(b, "kind") : "Service";
		const json_t *w = json_object_get(b, "weight");

		if (jstr(b, "group")[0] != '\0' || strcmp(kind, "Service") != 0) {
			refs_reason = refs_reason ? refs_reason : "InvalidKind";
			continue;
		}
		if (!sy_gw_ref_granted(cx->st, "TLSRoute", o->ns, "", "Service", ns, jstr(b, "name"))) {
			refs_reason = refs_reason ? refs_reason : "RefNotPermitted";
			continue;
		}
		if (sy_store_find(cx->st, &sy_kind_service, ns, jstr(b, "name")) == NULL) {
			if (refs_reason == NULL)
				snprintf(refs_msg, sizeof(refs_msg), "Service %s/%s not found", ns,
					 jstr(b, "name"));
			refs_reason = refs_reason ? refs_reason : "BackendNotFound";
			continue;
		}
		if (w != NULL && json_integer_value(w) == 0)
			continue;
		base.backends[base.n_backends].service = jstr(b, "name");
		base.backends[base.n_backends].ns = strcmp(ns, o->ns) != 0 ? ns : NULL;
		base.backends[base.n_backends].weight = w ? (uint32_t)json_integer_value(w) : 1;
		base.backends[base.n_backends++].target_port = json_object_get(b, "port");
	}
	base.target_port = base.backends[0].target_port;
	json_array_foreach(json_object_get(spec, "parentRefs"), i, ref) {
		const char *reason = NULL;
		char msg[256] = "";
		int got = sy_gw_attach(set, ref, SY_GW_KIND_TLSROUTE, o->ns,
				       json_object_get(spec, "hostnames"), at + n_at,
				       TR_ATTACH_MAX - n_at, &reason, msg, sizeof(msg));
		json_t *pref, *conds;
		const json_t *prevc = NULL, *pp;

		if (got < 0)
			continue;
		for (j = n_at; j < n_at + (size_t)got; j++) {
			struct sy_rule_in r = base;

			/* SNI is a name: a passthrough listener needs one */
			if (!at[j].l->programmed || !at[j].l->passthrough || at[j].host[0] == '\0' ||
			    base.n_backends == 0)
				continue;
			r.host = strdup(at[j].host);
			r.wild_deep = true; /* Gateway API: any number of labels */
			if (r.host == NULL || sy_compile_add_rule(cx, &r) < 0) {
				rc = -ENOMEM;
				goto out;
			}
		}
		n_at += (size_t)got;
		pref = sy_gw_parent_ref(ref, o->ns);
		json_array_foreach(prev, j, pp)
			if (json_equal(json_object_get(pp, "parentRef"), pref))
				prevc = json_object_get(pp, "conditions");
		conds = json_array();
		json_array_append_new(conds, sy_gw_condition(prevc, "Accepted", got > 0,
							     got > 0 ? "Accepted" : reason,
							     got > 0 ? "" : msg, cx->opts->now,
							     sy_gw_generation(o)));
		json_array_append_new(conds, sy_gw_condition(prevc, "ResolvedRefs", refs_reason == NULL,
							     refs_reason ? refs_reason : "ResolvedRefs",
							     refs_msg, cx->opts->now,
							     sy_gw_generation(o)));
		json_array_append_new(parents, json_pack("{s:o, s:s, s:o}", "parentRef", pref,
							 "controllerName", set->controller,
							 "conditions", conds));
	}
	json_decref(o->status);
	o->status = json_pack("{s:O}", "parents", parents);
out:
	free(at);
	json_decref(parents);
	return rc;
}

int
sy_tlsroute_compile_all(struct sy_gw_set *set)
{
	size_t n = 0, i;
	struct sy_object **objs = sy_compile_list(set->cx, &sy_kind_tlsroute, &n);
	int rc = 0;

	if (objs == NULL)
		return -ENOMEM;
	for (i = 0; i < n && rc == 0; i++)
		rc = compile_one(set, objs[i]);
	free(objs);
	return rc;
}

const struct sy_kind sy_kind_tlsroute = {
	.kind = "TLSRoute",
	.group = SY_GW_GROUP,
	.api_versions = (const char *const[]){ "gateway.networking.k8s.io/v1alpha2",
					       "gateway.networking.k8s.io/v1alpha3", NULL },
	.names = (const char *const[]){ "tlsroute", "tlsroutes",
					"tlsroutes.gateway.networking.k8s.io", NULL },
	.generation = true,
	.validate = validate_tlsroute,
	.compile = sy_gw_route_compile_noop,
	.relations = sy_gw_route_relations,
	.displaced = sy_gw_route_displaced,
};
