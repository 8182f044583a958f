/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Resource kinds. Each kind is one file in control/kinds/ that fills in a
 * struct sy_kind: its names (as kubectl spells them), the apiVersions it is
 * applied with, and its validation. Compilation into the generation reads the
 * stored objects by kind (control/gen/compile.c).
 */
#ifndef SY_KINDS_H
#define SY_KINDS_H

#include <stdbool.h>

#include <jansson.h>

#include "ops/errors.h"
#include "tls/tls_cert.h"

struct sy_apply_batch;
struct sy_compile_ctx;
struct sy_compile_opts;
struct sy_object;
struct sy_rel_keys;
struct sy_rule_in;
struct sy_store;
struct sy_strmap;

struct sy_kind {
	const char *kind;                 /* canonical, e.g. "Route" */
	const char *group;                /* "" for the core group */
	const char *const *api_versions;  /* NULL-terminated, accepted on apply */
	const char *const *names;         /* NULL-terminated lower-case aliases for get/delete */
	bool cluster_scoped;              /* no namespace (Namespace); stored under "" */
	/* Keeps metadata.generation as the API server does: 1 on create, one
	 * more on each change of spec (Gateway API statuses report it as
	 * observedGeneration). Other kinds store none. */
	bool generation;
	/* Check one object; add errors naming fields (JSON paths) to errs.
	 * `who` is "Kind namespace/name" for messages. Returns 0 or -1. */
	int (*validate)(const json_t *obj, const char *who, struct sy_errors *errs);
	/* Compile stage 1 (control/gen/compile.h): set statuses, add rules. NULL
	 * for kinds that only feed others (Service, Endpoints). */
	int (*compile)(struct sy_compile_ctx *cx);
	/* The keys o meets other objects by (control/store/relations.h), from its
	 * spec alone; every kind with `compile` has one. Errors go in out. */
	void (*relations)(const struct sy_object *o, const struct sy_compile_opts *opts,
			  struct sy_rel_keys *out);
	/* Another kind's older claim took `host` from the object of the rule
	 * this kind added (rule->o): say so in its status. */
	void (*displaced)(struct sy_compile_ctx *cx, const struct sy_rule_in *rule,
			  const char *host, const struct sy_object *winner);
	/* Checks that need the store: other objects (a RouteBinding's Route
	 * and Router), or the stored version `existing` (NULL on create; a
	 * Route's status.phase may not change). `batch` is the apply's whole
	 * list of objects (what it creates counts as existing), looked up with
	 * sy_apply_batch_find. Run by apply after validate, never on journal
	 * replay. NULL for most kinds. Returns 0 or -1. */
	int (*check_stored)(const struct sy_store *st, const json_t *obj,
			    const struct sy_object *existing, const struct sy_apply_batch *batch,
			    const char *who, struct sy_errors *errs);
};

/* The objects of one apply, indexed by identity (control/ops/ops_apply.c): a
 * scheduler pass applies 100,000 RouteBindings at once, and each looks for
 * its Route and Router among them. */
struct sy_apply_batch {
	const json_t *objects;
	const struct sy_strmap *index; /* sy_apply_batch_key -> position + 1 */
};

/* The object of kind, ns ("" for cluster-scoped kinds) and name in the
 * apply, or NULL. */
const json_t *sy_apply_batch_find(const struct sy_apply_batch *b, const struct sy_kind *kind,
				  const char *ns, const char *name);

extern const struct sy_kind sy_kind_service;
extern const struct sy_kind sy_kind_endpoints;
extern const struct sy_kind sy_kind_endpointslice;
/* The label that joins an EndpointSlice to its Service. */
#define SY_SLICE_SERVICE_LABEL "kubernetes.io/service-name"
extern const struct sy_kind sy_kind_route;
extern const struct sy_kind sy_kind_namespace;
extern const struct sy_kind sy_kind_secret;
extern const struct sy_kind sy_kind_ingressroute_contour;
extern const struct sy_kind sy_kind_httpproxy_contour;
extern const struct sy_kind sy_kind_route_contour;
extern const struct sy_kind sy_kind_routegroup;
extern const struct sy_kind sy_kind_ingress;
extern const struct sy_kind sy_kind_ingressclass;

/* control/kinds/secret.c: a kubernetes.io/tls Secret whose tls.crt and
 * tls.key parse as PEM (what Contour keeps in its cache). */
/* A kubernetes.io/tls Secret's certificate for host (control/tls/tls_cert.h's
 * checks): SY_CERT_OK and its PEM (copied into a) in *out, or why not. */
struct sy_arena;
struct sy_pem;
enum sy_cert_problem sy_secret_tls_check(const struct sy_object *secret, const char *host,
					 struct sy_arena *a, const struct sy_pem **out);

/* A Secret's value for key (stringData, else data decoded), NUL-terminated,
 * in a; NULL when it has none (or it is empty). */
const char *sy_secret_value(const struct sy_object *secret, const char *key, struct sy_arena *a,
			    size_t *len);
/* control/kinds/ingress_class.c: IngressClass c (warm) is ours (its
 * spec.controller is cfg's ingress_controller; NULL cfg: the default). */
struct sy_config;
bool sy_ingressclass_ours(const struct sy_object *c, const struct sy_config *cfg);
/* It carries ingressclass.kubernetes.io/is-default-class: "true". */
bool sy_ingressclass_is_default(const struct sy_object *c);

/* Every kind this router knows, NULL-terminated. */
extern const struct sy_kind *const sy_kinds[];

/* The kind an object is applied as, by apiVersion + kind. NULL if unknown. */
const struct sy_kind *sy_kind_for_object(const char *api_version, const char *kind);
/* The kind a user names on the command line ("route", "routes",
 * "routes.route.openshift.io", "svc", "Route"...). NULL if unknown. */
const struct sy_kind *sy_kind_by_name(const char *name);

/* Helpers the kinds share for validating DNS names and fields. */
bool sy_dns1123_label(const char *s, size_t len);
bool sy_dns1123_subdomain(const char *s);

#endif
