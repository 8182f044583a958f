/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Kubernetes Ingress (networking.k8s.io/v1), served for the IngressClasses
 * that are ours (control/kinds/ingress_class.c).
 *
 * Which Ingresses: one naming a class (spec.ingressClassName, or the legacy
 * annotation kubernetes.io/ingress.class, taken as a class name) is ours
 * when that IngressClass exists and is ours; one naming none is ours when
 * one of our IngressClasses is marked the default class. Others are ignored:
 * no status, no rules.
 *
 * What is served, as https://kubernetes.io/docs/concepts/services-networking/ingress/
 * describes it:
 *  - rules[].host ("" or absent: every host, the default vhost; "*.foo.com":
 *    exactly one more label), http.paths[] by pathType: Exact, Prefix
 *    (element-wise; a trailing slash of the path is ignored, so "/foo/"
 *    is the prefix "/foo"), ImplementationSpecific (as Prefix; empty: "/").
 *    Precedence: the longest path first, Exact before Prefix at equal
 *    length (the compiler's order, control/gen/compile.c cmp_rule_path).
 *  - Ingresses of one host are merged (as controllers do); a host + path +
 *    match stated twice is the oldest Ingress's.
 *  - spec.defaultBackend serves "/" (Prefix) on the hosts of its Ingress
 *    where no Ingress has a "/" of its own, and "/" of the default vhost
 *    (requests for hosts no object has): the oldest such Ingress's.
 *  - tls[]: hosts (none listed: the hosts of the Ingress's rules) are
 *    terminated here with secretName's kubernetes.io/tls Secret (of the
 *    Ingress's namespace); no secretName, or one that is missing or cannot
 *    serve the host: the router's default certificate (what ingress-nginx
 *    does). The oldest Ingress listing a host decides its certificate.
 *    Plain HTTP to such a host is still served: Ingress itself has no
 *    redirect. The annotation switchyard.io/ssl-redirect: "true" (or
 *    ingress-nginx's nginx.ingress.kubernetes.io/ssl-redirect: "true")
 *    redirects it with 308 instead; ingress-nginx's own default (redirect
 *    whenever TLS is set) is not followed.
 *  - status.loadBalancer.ingress: the router's addresses as [{ip}] (lb_ips).
 *  - resource backends are refused at apply: this router serves Services.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arena.h"
#include "fleet/fleet.h"
#include "gen/compile.h"
#include "kinds.h"
#include "kind_util.h"
#include "store/relations.h"
#include "store/store.h"
#include "sy_config.h"

#define A_CLASS "kubernetes.io/ingress.class"
#define A_SSL_REDIRECT "switchyard.io/ssl-redirect"
#define A_NGINX_SSL_REDIRECT "nginx.ingress.kubernetes.io/ssl-redirect"

static const json_t *
jget(const json_t *o, const char *k)
{
	return json_object_get(o, k);
}

static const char *
jstr(const json_t *o, const char *k)
{
	return json_string_value(json_object_get(o, k));
}

/* ---------------------------------------------------------- validation -- */

/* A host as Ingress takes it: a lower-case DNS name, or "*." and one. */
static bool
host_ok(const char *h)
{
	struct in6_addr a6;
	struct in_addr a4;

	if (inet_pton(AF_INET, h, &a4) == 1 || inet_pton(AF_INET6, h, &a6) == 1)
		return false;
	if (h[0] == '*' && h[1] == '.')
		h += 2;
	return sy_dns1123_subdomain(h);
}

/* IANA_SVC_NAME: lower-case letters, digits and '-', at most 15, a letter
 * somewhere, no '-' at the ends nor two together. */
static bool
port_name_ok(const char *s)
{
	size_t i, n = strlen(s);
	bool letter = false;

	if (n == 0 || n > 15 || s[0] == '-' || s[n - 1] == '-')
		return false;
	for (i = 0; i < n; i++) {
		if (s[i] >= 'a' && s[i] <= 'z')
			letter = true;
		else if (!(s[i] >= '0' && s[i] <= '9') && s[i] != '-')
			return false;
		if (s[i] == '-' && i > 0 && s[i - 1] == '-')
			return false;
	}
	return letter;
}

static int
check_backend(const json_t *b, const char *who, const char *base, struct sy_errors *errs)
{
	const json_t *svc = jget(b, "service"), *res = jget(b, "resource"), *port;
	char f[256];
	int bad = 0;

	if (!json_is_object(b))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	if (svc != NULL && res != NULL)
		return sy_err_add(errs, "invalid", who, base,
				  "must have exactly one of service and resource, not both");
	if (svc == NULL && res == NULL)
		return sy_err_add(errs, "invalid", who, base,
				  "must have a service (or a resource) backend");
	if (res != NULL) {
		snprintf(f, sizeof(f), "%s.resource", base);
		return sy_err_add(errs, "invalid", who, f,
				  "%s%s: resource backends are not served by this router (it "
				  "serves Services: use backend.service)",
				  json_is_string(jget(res, "kind")) ? "kind " : "",
				  json_is_string(jget(res, "kind")) ? jstr(res, "kind") : "a resource");
	}
	if (!json_is_object(svc)) {
		snprintf(f, sizeof(f), "%s.service", base);
		return sy_err_add(errs, "invalid", who, f, "must be an object");
	}
	snprintf(f, sizeof(f), "%s.service.name", base);
	if (sy_kind_check_string(jget(svc, "name"), who, f, errs) < 0) {
		bad = -1;
	} else {
		const char *n = jstr(svc, "name");

		/* A Service name is a DNS-1035 label: a letter first. */
		if (!sy_dns1123_label(n, strlen(n)) || !(n[0] >= 'a' && n[0] <= 'z'))
			bad = sy_err_add(errs, "invalid", who, f,
					 "\"%s\": must be a Service name (DNS-1035 label)", n);
	}
	snprintf(f, sizeof(f), "%s.service.port", base);
	port = jget(svc, "port");
	if (!json_is_object(port))
		return sy_err_add(errs, "invalid", who, f,
				  port == NULL ? "required" : "must be an object");
	if (jget(port, "number") != NULL && jget(port, "name") != NULL)
		return sy_err_add(errs, "invalid", who, f,
				  "must have exactly one of number and name, not both (number %s, "
				  "name %s)",
				  json_is_integer(jget(port, "number")) ? "set" : "given",
				  json_is_string(jget(port, "name")) ? jstr(port, "name") : "given");
	if (jget(port, "number") == NULL && jget(port, "name") == NULL)
		return sy_err_add(errs, "invalid", who, f, "must have a number or a name");
	if (jget(port, "number") != NULL) {
		snprintf(f, sizeof(f), "%s.service.port.number", base);
		if (sy_kind_check_port(jget(port, "number"), true, who, f, errs) < 0)
			bad = -1;
	} else {
		snprintf(f, sizeof(f), "%s.service.port.name", base);
		if (!json_is_string(jget(port, "name")) || !port_name_ok(jstr(port, "name")))
			bad = sy_err_add(errs, "invalid", who, f,
					 "%s%s%s: must be a port name (IANA_SVC_NAME: at most 15 "
					 "lower-case letters, digits and '-', a letter among them)",
					 json_is_string(jget(port, "name")) ? "\"" : "",
					 json_is_string(jget(port, "name")) ? jstr(port, "name")
									    : "not a string",
					 json_is_string(jget(port, "name")) ? "\"" : "");
	}
	return bad;
}

static const char *const bad_sequences[] = { "//", "/./", "/../", "%2f", "%2F", NULL };
static const char *const bad_suffixes[] = { "/..", "/.", NULL };

static int
check_path(const json_t *p, const char *who, const char *base, struct sy_errors *errs)
{
	const json_t *pt = jget(p, "pathType"), *path = jget(p, "path");
	const char *type = json_string_value(pt), *s;
	char f[256];
	int bad = 0;
	size_t k;

	if (!json_is_object(p))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.pathType", base);
	if (pt == NULL)
		return sy_err_add(errs, "invalid", who, f,
				  "required: one of \"Exact\", \"Prefix\", \"ImplementationSpecific\"");
	if (type == NULL || (strcmp(type, "Exact") != 0 && strcmp(type, "Prefix") != 0 &&
			     strcmp(type, "ImplementationSpecific") != 0))
		return sy_err_add(errs, "invalid", who, f,
				  "%s%s%s: must be one of \"Exact\", \"Prefix\", "
				  "\"ImplementationSpecific\"",
				  type ? "\"" : "", type ? type : "not a string", type ? "\"" : "");
	snprintf(f, sizeof(f), "%s.path", base);
	if (path != NULL && !json_is_string(path))
		return sy_err_add(errs, "invalid", who, f, "must be a string");
	s = path ? json_string_value(path) : "";
	if (strcmp(type, "ImplementationSpecific") == 0) {
		if (s[0] != '\0' && s[0] != '/')
			bad = sy_err_add(errs, "invalid", who, f,
					 "\"%s\": must be an absolute path (start with \"/\")", s);
	} else if (s[0] != '/') {
		bad = sy_err_add(errs, "invalid", who, f,
				 "\"%s\": must be an absolute path (start with \"/\") for pathType %s",
				 s, type);
	} else {
		/* The API server's checks for Exact and Prefix paths. */
		for (k = 0; bad_sequences[k] != NULL && bad == 0; k++)
			if (strstr(s, bad_sequences[k]) != NULL)
				bad = sy_err_add(errs, "invalid", who, f, "\"%s\": must not contain '%s'",
						 s, bad_sequences[k]);
		for (k = 0; bad_suffixes[k] != NULL && bad == 0; k++) {
			size_t n = strlen(s), m = strlen(bad_suffixes[k]);

			if (n >= m && strcmp(s + n - m, bad_suffixes[k]) == 0)
				bad = sy_err_add(errs, "invalid", who, f, "\"%s\": cannot end with '%s'",
						 s, bad_suffixes[k]);
		}
	}
	snprintf(f, sizeof(f), "%s.backend", base);
	if (jget(p, "backend") == NULL)
		return sy_err_add(errs, "invalid", who, f, "required");
	if (check_backend(jget(p, "backend"), who, f, errs) < 0)
		bad = -1;
	return bad;
}

static int
check_host(const json_t *h, const char *who, const char *f, struct sy_errors *errs)
{
	if (!json_is_string(h))
		return sy_err_add(errs, "invalid", who, f, "must be a string");
	if (!host_ok(json_string_value(h)))
		return sy_err_add(errs, "invalid", who, f,
				  "\"%s\": must be a lower-case DNS name, optionally \"*.\" and one "
				  "(not an IP address)",
				  json_string_value(h));
	return 0;
}

static int
check_rule(const json_t *rule, size_t i, const char *who, struct sy_errors *errs)
{
	const json_t *http = jget(rule, "http"), *paths = jget(http, "paths"), *p;
	char base[64], f[128];
	size_t j;
	int bad = 0;

	snprintf(base, sizeof(base), "spec.rules[%zu]", i);
	if (!json_is_object(rule))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.host", base);
	if (jget(rule, "host") != NULL && !(json_is_string(jget(rule, "host")) &&
					    json_string_length(jget(rule, "host")) == 0) &&
	    check_host(jget(rule, "host"), who, f, errs) < 0)
		bad = -1;
	if (http == NULL || json_is_null(http))
		return bad;
	snprintf(f, sizeof(f), "%s.http.paths", base);
	if (!json_is_object(http) || !json_is_array(paths) || json_array_size(paths) == 0)
		return sy_err_add(errs, "invalid", who, f, "required: a non-empty list");
	json_array_foreach(paths, j, p) {
		snprintf(f, sizeof(f), "%s.http.paths[%zu]", base, j);
		if (check_path(p, who, f, errs) < 0)
			bad = -1;
	}
	return bad;
}

static int
validate_ingress(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *spec = jget(obj, "spec"), *rules, *tls, *t, *h, *cls, *db;
	const char *ann = jstr(jget(jget(obj, "metadata"), "annotations"), A_CLASS);
	size_t i, j;
	int bad = 0;

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "required");
	rules = jget(spec, "rules");
	tls = jget(spec, "tls");
	cls = jget(spec, "ingressClassName");
	db = jget(spec, "defaultBackend");
	if (cls != NULL && !json_is_null(cls)) {
		if (!json_is_string(cls) || !sy_dns1123_subdomain(json_string_value(cls)))
			bad = sy_err_add(errs, "invalid", who, "spec.ingressClassName",
					 "%s%s%s: must be an IngressClass name (lower-case DNS name)",
					 json_is_string(cls) ? "\"" : "",
					 json_is_string(cls) ? json_string_value(cls) : "not a string",
					 json_is_string(cls) ? "\"" : "");
		else if (ann != NULL && strcmp(ann, json_string_value(cls)) != 0)
			/* The API server's check (ValidateIngressCreate). */
			bad = sy_err_add(errs, "invalid", who,
					 "metadata.annotations." A_CLASS,
					 "\"%s\": can not be set when spec.ingressClassName is also set "
					 "(\"%s\")",
					 ann, json_string_value(cls));
	}
	if ((db == NULL || json_is_null(db)) && json_array_size(rules) == 0)
		bad = sy_err_add(errs, "invalid", who, "spec",
				 "either defaultBackend or rules must be specified");
	if (db != NULL && !json_is_null(db) &&
	    check_backend(db, who, "spec.defaultBackend", errs) < 0)
		bad = -1;
	if (rules != NULL && !json_is_null(rules)) {
		const json_t *rule;

		if (!json_is_array(rules))
			return sy_err_add(errs, "invalid", who, "spec.rules", "must be a list");
		json_array_foreach(rules, i, rule)
			if (check_rule(rule, i, who, errs) < 0)
				bad = -1;
	}
	if (tls != NULL && !json_is_null(tls)) {
		if (!json_is_array(tls))
			return sy_err_add(errs, "invalid", who, "spec.tls", "must be a list");
		json_array_foreach(tls, i, t) {
			char f[96];
			const json_t *hosts = jget(t, "hosts"), *sn = jget(t, "secretName");

			snprintf(f, sizeof(f), "spec.tls[%zu]", i);
			if (!json_is_object(t)) {
				bad = sy_err_add(errs, "invalid", who, f, "must be an object");
				continue;
			}
			snprintf(f, sizeof(f), "spec.tls[%zu].secretName", i);
			if (sn != NULL && !json_is_null(sn) &&
			    (!json_is_string(sn) ||
			     (json_string_length(sn) > 0 && !sy_dns1123_subdomain(json_string_value(sn)))))
				bad = sy_err_add(errs, "invalid", who, f,
						 "must be a Secret name (lower-case DNS name)");
			snprintf(f, sizeof(f), "spec.tls[%zu].hosts", i);
			if (hosts != NULL && !json_is_null(hosts) && !json_is_array(hosts)) {
				bad = sy_err_add(errs, "invalid", who, f, "must be a list");
				continue;
			}
			json_array_foreach(hosts, j, h) {
				snprintf(f, sizeof(f), "spec.tls[%zu].hosts[%zu]", i, j);
				if (check_host(h, who, f, errs) < 0)
					bad = -1;
			}
		}
	}
	return bad;
}

/* ------------------------------------------------------------- compile -- */

/* The class an Ingress names ("" for none). */
static const char *
class_of(const struct sy_object *o)
{
	const char *c = jstr(jget(o->obj, "spec"), "ingressClassName");

	if (c == NULL)
		c = jstr(jget(jget(o->obj, "metadata"), "annotations"), A_CLASS);
	return c ? c : "";
}

/* Is one of our IngressClasses the default class? From the relations index
 * (key k: every class) when there is one, else from the store: either way
 * without walking every object when there are no classes. */
static bool
default_class_ours(struct sy_compile_ctx *cx)
{
	const struct sy_relations *rel = cx->opts->rel;
	struct sy_object **classes;
	size_t n = 0, i;
	bool yes = false;

	if (rel != NULL) {
		static const char key[] = { SY_REL_INGRESSCLASSES, '\0' };
		struct sy_rel_key *rk = (struct sy_rel_key *)sy_relations_get(rel, key);
		uint32_t j;

		for (j = 0; rk != NULL && j < rk->n && !yes; j++) {
			struct sy_object *c = sy_rel_objs(rk)[j];

			yes = sy_store_warm(cx->st, c) == 0 && sy_ingressclass_ours(c, cx->opts->cfg) &&
			      sy_ingressclass_is_default(c);
		}
		return yes;
	}
	if (sy_store_count(cx->st, &sy_kind_ingressclass) == 0)
		return false;
	classes = sy_store_list(cx->st, &sy_kind_ingressclass, NULL, &n);
	for (i = 0; classes != NULL && i < n && !yes; i++)
		yes = sy_ingressclass_ours(classes[i], cx->opts->cfg) &&
		      sy_ingressclass_is_default(classes[i]);
	free(classes);
	return yes;
}

/* -1: not known yet (default_class_ours is asked once, if needed). */
static bool
is_ours(struct sy_compile_ctx *cx, const struct sy_object *o, int *default_ours)
{
	const char *c = class_of(o);

	if (c[0] == '\0') {
		if (*default_ours < 0)
			*default_ours = default_class_ours(cx);
		return *default_ours > 0;
	}
	return sy_ingressclass_ours(sy_store_find(cx->st, &sy_kind_ingressclass, "", c),
				    cx->opts->cfg);
}

static void
lb_add(json_t *arr, const struct sy_addr *a)
{
	char buf[SY_ADDR_STRLEN];
	const json_t *e;
	size_t i;

	if (a->family == 0 || sy_addr_format(a, buf, sizeof(buf)) == NULL)
		return;
	json_array_foreach(arr, i, e)
		if (strcmp(jstr(e, "ip"), buf) == 0)
			return;
	json_array_append_new(arr, json_pack("{s:s}", "ip", buf));
}

/*
 * status.loadBalancer.ingress: where clients reach this router. In a fleet,
 * this router's Router object's spec.vips (the addresses VRRP moves); else
 * the config's `listen` addresses; else every address of its ports.
 */
static json_t *
lb_ips(struct sy_compile_ctx *cx)
{
	const struct sy_config *cfg = cx->opts->cfg;
	json_t *arr = json_array();
	struct sy_object *router;
	const json_t *v;
	unsigned i, k;
	size_t j;

	if (arr == NULL || cfg == NULL)
		return arr;
	router = sy_store_find(cx->st, &sy_kind_router, "", cfg->router_name);
	json_array_foreach(router ? jget(jget(router->obj, "spec"), "vips") : NULL, j, v) {
		struct sy_fleet_vip fv;
		char buf[SY_ADDR_STRLEN];

		if (sy_fleet_vip_parse(v, &fv) == 0 && sy_fleet_vip_text(&fv, buf, sizeof(buf)))
			json_array_append_new(arr, json_pack("{s:s}", "ip", buf));
	}
	for (i = 0; json_array_size(arr) == 0 && i < cfg->n_listen; i++)
		lb_add(arr, &cfg->listen[i]);
	if (json_array_size(arr) == 0)
		for (i = 0; i < cfg->n_ports; i++) {
			for (k = 0; k < cfg->ports[i].n_ipv4; k++)
				lb_add(arr, &cfg->ports[i].ipv4[k].addr);
			for (k = 0; k < cfg->ports[i].n_ipv6; k++)
				lb_add(arr, &cfg->ports[i].ipv6[k].addr);
		}
	return arr;
}

/* A host's TLS, from the oldest of our Ingresses that lists it. */
struct host_tls {
	const struct sy_pem *pem; /* NULL: the router's default certificate */
	const char *secret;       /* "ns/name", or NULL */
};

struct ing_cx {
	struct sy_compile_ctx *cx;
	json_t *seen;  /* "<host> <match> <path>" -> true: stated already */
	json_t *tls;   /* host -> index into tls_of */
	struct host_tls *tls_of;
	size_t n_tls;
	int rc;
};

static char *
scratch_str(struct sy_compile_ctx *cx, const char *s, size_t len)
{
	char *p = sy_arena_alloc(cx->scratch, len + 1);

	if (p != NULL) {
		memcpy(p, s, len);
		p[len] = '\0';
	}
	return p;
}

static void
tls_hosts_of(struct ing_cx *ic, const struct sy_object *o)
{
	const json_t *spec = jget(o->obj, "spec"), *t, *h, *rule;
	size_t i, j;

	json_array_foreach(jget(spec, "tls"), i, t) {
		const char *secret = jstr(t, "secretName");
		const json_t *hosts = jget(t, "hosts");
		json_t *rule_hosts = NULL;

		if (json_array_size(hosts) == 0) {
			/* No hosts: those of this Ingress's rules. */
			rule_hosts = json_array();
			json_array_foreach(jget(spec, "rules"), j, rule)
				if (jstr(rule, "host") && jstr(rule, "host")[0])
					json_array_append(rule_hosts, json_object_get(rule, "host"));
			hosts = rule_hosts;
		}
		json_array_foreach(hosts, j, h) {
			const char *host = json_string_value(h);
			struct host_tls *ht;

			if (host == NULL || json_object_get(ic->tls, host) != NULL)
				continue;
			ht = &ic->tls_of[ic->n_tls];
			memset(ht, 0, sizeof(*ht));
			if (secret != NULL && secret[0] != '\0') {
				char full[512];
				enum sy_cert_problem why = sy_secret_tls_check(
					sy_store_find(ic->cx->st, &sy_kind_secret, o->ns, secret), host,
					ic->cx->scratch, &ht->pem);

				if (why != SY_CERT_OK)
					ht->pem = NULL; /* the default certificate */
				snprintf(full, sizeof(full), "%s/%s", o->ns, secret);
				ht->secret = why == SY_CERT_OK ? scratch_str(ic->cx, full, strlen(full))
							       : NULL;
				if (why == SY_CERT_OK && ht->secret == NULL)
					ic->rc = -ENOMEM;
			}
			json_object_set_new(ic->tls, host, json_integer((json_int_t)ic->n_tls++));
		}
		json_decref(rule_hosts);
	}
}

static bool
ssl_redirect(const struct sy_object *o)
{
	const json_t *ann = jget(jget(o->obj, "metadata"), "annotations");
	const char *a = jstr(ann, A_SSL_REDIRECT), *b = jstr(ann, A_NGINX_SSL_REDIRECT);

	return (a != NULL && strcmp(a, "true") == 0) || (b != NULL && strcmp(b, "true") == 0);
}

/* One rule of o for host: path (as stated) by pathType, to backend b. Skipped
 * when an older statement of the same host, match and path exists. */
static void
emit(struct ing_cx *ic, struct sy_object *o, const char *host, const char *path, const char *type,
     const json_t *b)
{
	const json_t *svc = jget(b, "service"), *port = jget(jget(svc, "port"), "number");
	const json_t *ti = json_object_get(ic->tls, host);
	struct sy_rule_in r;
	size_t len = strlen(path);
	char *key;

	if (ic->rc < 0 || svc == NULL)
		return;
	memset(&r, 0, sizeof(r));
	r.o = o;
	if (strcmp(type, "Exact") == 0) {
		r.match = SY_PATH_EXACT;
	} else {
		/* Prefix and ImplementationSpecific: element-wise, a trailing
		 * slash ignored ("/foo/" matches "/foo" too). */
		r.match = SY_PATH_PREFIX;
		while (len > 1 && path[len - 1] == '/')
			len--;
		if (len == 0) {
			path = "/";
			len = 1;
		}
	}
	r.path = scratch_str(ic->cx, path, len);
	if (r.path == NULL || asprintf(&key, "%s %d %s", host, (int)r.match, r.path) < 0) {
		ic->rc = -ENOMEM;
		return;
	}
	if (json_object_get(ic->seen, key) != NULL) {
		free(key);
		return;
	}
	json_object_set_new(ic->seen, key, json_true());
	free(key);
	if (port == NULL)
		port = jget(jget(svc, "port"), "name");
	r.backends[0].service = jstr(svc, "name");
	r.backends[0].weight = 1;
	r.n_backends = 1;
	r.target_port = port;
	r.weights = SY_WEIGHTS_PER_SERVICE;
	r.strategy = SY_LB_ROUND_ROBIN; /* ingress-nginx's default load-balance */
	if (ti != NULL) {
		const struct host_tls *ht = &ic->tls_of[json_integer_value(ti)];

		r.tls = SY_TLS_EDGE;
		r.pem = ht->pem;
		r.tls_secret = ht->secret;
		r.insecure = ssl_redirect(o) ? SY_INSECURE_REDIRECT : SY_INSECURE_ALLOW;
		r.insecure_status = 308;
	}
	r.host = strdup(host);
	if (r.host == NULL || sy_compile_add_rule(ic->cx, &r) < 0)
		ic->rc = -ENOMEM;
}

static void
emit_paths(struct ing_cx *ic, struct sy_object *o)
{
	const json_t *rule, *p;
	size_t i, j;

	json_array_foreach(jget(jget(o->obj, "spec"), "rules"), i, rule) {
		char *host = sy_lower_dup(jstr(rule, "host"));

		if (host == NULL) {
			ic->rc = -ENOMEM;
			return;
		}
		json_array_foreach(jget(jget(rule, "http"), "paths"), j, p)
			emit(ic, o, host, jstr(p, "path") ? jstr(p, "path") : "", jstr(p, "pathType"),
			     jget(p, "backend"));
		free(host);
	}
}

/* defaultBackend: "/" of the default vhost and of each host of o's rules,
 * where nothing older or more specific says "/". */
static void
emit_default(struct ing_cx *ic, struct sy_object *o)
{
	const json_t *spec = jget(o->obj, "spec"), *db = jget(spec, "defaultBackend"), *rule;
	size_t i;

	if (!json_is_object(db))
		return;
	emit(ic, o, "", "/", "Prefix", db);
	json_array_foreach(jget(spec, "rules"), i, rule) {
		char *host = sy_lower_dup(jstr(rule, "host"));

		if (host == NULL) {
			ic->rc = -ENOMEM;
			return;
		}
		emit(ic, o, host, "/", "Prefix", db);
		free(host);
	}
}

static int
cmp_age(const void *a, const void *b)
{
	return sy_object_age_cmp(*(struct sy_object *const *)a, *(struct sy_object *const *)b);
}

static int
compile_ingresses(struct sy_compile_ctx *cx)
{
	size_t n = 0, i, j, n_ours = 0, n_tls = 0;
	const json_t *t;
	struct sy_object **objs = sy_compile_list(cx, &sy_kind_ingress, &n);
	struct sy_object **ours = NULL;
	struct ing_cx ic = { .cx = cx };
	int default_ours = -1;
	json_t *lb = NULL;

	if (objs == NULL)
		return -ENOMEM;
	if (n == 0) {
		free(objs); /* most routers: nothing more to look up */
		return 0;
	}
	ours = calloc(n, sizeof(*ours));
	ic.seen = json_object();
	ic.tls = json_object();
	lb = lb_ips(cx);
	if (ours == NULL || ic.seen == NULL || ic.tls == NULL || lb == NULL) {
		ic.rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n; i++) {
		json_decref(objs[i]->status);
		objs[i]->status = NULL;
		if (!is_ours(cx, objs[i], &default_ours))
			continue; /* another controller's: no status, no rules */
		objs[i]->status = json_pack("{s:{s:O}}", "loadBalancer", "ingress", lb);
		if (objs[i]->status == NULL) {
			ic.rc = -ENOMEM;
			goto out;
		}
		ours[n_ours++] = objs[i];
		/* room for every host its tls[] may name */
		json_array_foreach(jget(jget(objs[i]->obj, "spec"), "tls"), j, t)
			n_tls += json_array_size(jget(t, "hosts")) +
				 json_array_size(jget(jget(objs[i]->obj, "spec"), "rules"));
	}
	/* The oldest claim first: it keeps a host's certificate and a path. */
	qsort(ours, n_ours, sizeof(*ours), cmp_age);
	ic.tls_of = sy_arena_alloc(cx->scratch, (n_tls ? n_tls : 1) * sizeof(*ic.tls_of));
	if (ic.tls_of == NULL) {
		ic.rc = -ENOMEM;
		goto out;
	}
	for (i = 0; i < n_ours && ic.rc == 0; i++)
		tls_hosts_of(&ic, ours[i]);
	/* Every path an Ingress states before any defaultBackend: a "/" of
	 * a younger Ingress on a host beats an older one's default. */
	for (i = 0; i < n_ours && ic.rc == 0; i++)
		emit_paths(&ic, ours[i]);
	for (i = 0; i < n_ours && ic.rc == 0; i++)
		emit_default(&ic, ours[i]);
out:
	json_decref(lb);
	json_decref(ic.seen);
	json_decref(ic.tls);
	free(ours);
	free(objs);
	return ic.rc;
}

/* Another kind's older claim holds host: the Ingress says so in its
 * status (Ingress has no conditions; status.displaced lists the hosts
 * another object serves, and which). */
static void
ingress_displaced(struct sy_compile_ctx *cx, const struct sy_rule_in *rule, const char *host,
		  const struct sy_object *winner)
{
	struct sy_object *o = rule->o;
	json_t *list, *e;
	size_t i;

	(void)cx;
	if (o->status == NULL)
		return;
	list = json_object_get(o->status, "displaced");
	if (list == NULL) {
		list = json_array();
		if (list == NULL || json_object_set_new(o->status, "displaced", list) < 0)
			return;
	}
	json_array_foreach(list, i, e)
		if (strcmp(jstr(e, "host"), host) == 0)
			return;
	{
		char by[512];

		snprintf(by, sizeof(by), "%s%s%s %s/%s", winner->kind->kind,
			 winner->kind->group[0] ? "." : "", winner->kind->group, winner->ns,
			 winner->name);
		json_array_append_new(list, json_pack("{s:s, s:s}", "host", host, "by", by));
	}
}

/*
 * Its hosts (every rule's, every tls host: the oldest Ingress listing one
 * decides its certificate for every Ingress on it; "" for rules without a
 * host and for a defaultBackend), its Services and Secrets, and its class
 * (c<class>, "c" for none: IngressClass changes meet it there).
 */
static void
ingress_relations(const struct sy_object *o, const struct sy_compile_opts *opts,
		  struct sy_rel_keys *out)
{
	const json_t *spec = jget(o->obj, "spec"), *rule, *p, *t, *h, *b;
	size_t i, j;

	(void)opts;
	sy_rel_add(out, SY_REL_CLASS, "%s", class_of(o));
	b = jget(spec, "defaultBackend");
	if (json_is_object(b)) {
		sy_rel_add(out, SY_REL_HOST, "%s", "");
		if (jstr(jget(b, "service"), "name"))
			sy_rel_add(out, SY_REL_SERVICE, "%s/%s", o->ns,
				   jstr(jget(b, "service"), "name"));
	}
	json_array_foreach(jget(spec, "rules"), i, rule) {
		sy_rel_add_host(out, jstr(rule, "host") ? jstr(rule, "host") : "");
		json_array_foreach(jget(jget(rule, "http"), "paths"), j, p)
			if (jstr(jget(jget(p, "backend"), "service"), "name"))
				sy_rel_add(out, SY_REL_SERVICE, "%s/%s", o->ns,
					   jstr(jget(jget(p, "backend"), "service"), "name"));
	}
	json_array_foreach(jget(spec, "tls"), i, t) {
		json_array_foreach(jget(t, "hosts"), j, h)
			if (json_is_string(h))
				sy_rel_add_host(out, json_string_value(h));
		if (jstr(t, "secretName") && jstr(t, "secretName")[0])
			sy_rel_add(out, SY_REL_SECRET, "%s/%s", o->ns, jstr(t, "secretName"));
	}
}

const struct sy_kind sy_kind_ingress = {
	.kind = "Ingress",
	.group = "networking.k8s.io",
	.api_versions = (const char *const[]){ "networking.k8s.io/v1", NULL },
	.names = (const char *const[]){ "ingress", "ingresses", "ing",
					"ingresses.networking.k8s.io", NULL },
	.validate = validate_ingress,
	.compile = compile_ingresses,
	.relations = ingress_relations,
	.displaced = ingress_displaced,
};
