/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "contour_common.h"
#include "gen/compile.h"
#include "kind_util.h"
#include "kinds.h"
#include "store/relations.h"
#include "store/store.h"

enum sy_lb_strategy
sy_contour_strategy(const char *s)
{
	if (s == NULL || strcmp(s, "RoundRobin") == 0)
		return SY_LB_ROUND_ROBIN; /* Contour's (and Envoy's) default */
	if (strcmp(s, "WeightedLeastRequest") == 0)
		return SY_LB_WEIGHTED_LEAST_REQUEST;
	if (strcmp(s, "Random") == 0)
		return SY_LB_RANDOM;
	if (strcmp(s, "Cookie") == 0)
		return SY_LB_COOKIE;
	/* HTTPProxy: hashed on the client's address (the hash policies'
	 * headers and query parameters are not carried). */
	if (strcmp(s, "RequestHash") == 0)
		return SY_LB_CONSISTENT_HASH;
	return SY_LB_ROUND_ROBIN;
}

int
sy_contour_check_health(const json_t *hc, const char *who, const char *base,
			struct sy_errors *errs, int min_int)
{
	static const char *const ints[] = { "intervalSeconds", "timeoutSeconds",
					    "unhealthyThresholdCount", "healthyThresholdCount",
					    NULL };
	const json_t *path = json_object_get(hc, "path");
	char f[192];
	int i, bad = 0;

	if (hc == NULL || json_is_null(hc))
		return 0;
	if (!json_is_object(hc))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.path", base);
	if (path == NULL)
		bad = sy_err_add(errs, "invalid", who, f, "required");
	else if (!json_is_string(path) || json_string_value(path)[0] != '/')
		bad = sy_err_add(errs, "invalid", who, f, "must be a string starting with \"/\"");
	/* It goes into a request line as written. */
	else if (strlen(json_string_value(path)) > 255 ||
		 strpbrk(json_string_value(path), " \t\r\n") != NULL)
		bad = sy_err_add(errs, "invalid", who, f,
				 "must be at most 255 characters, without spaces or line breaks");
	{
		const json_t *host = json_object_get(hc, "host");

		snprintf(f, sizeof(f), "%s.host", base);
		if (host != NULL && !json_is_null(host) &&
		    (!json_is_string(host) || strlen(json_string_value(host)) > 253 ||
		     strpbrk(json_string_value(host), " \t\r\n") != NULL))
			bad = sy_err_add(errs, "invalid", who, f,
					 "must be a host name of at most 253 characters");
	}
	for (i = 0; ints[i] != NULL; i++) {
		const json_t *v = json_object_get(hc, ints[i]);

		snprintf(f, sizeof(f), "%s.%s", base, ints[i]);
		if (v != NULL && (!json_is_integer(v) || json_integer_value(v) < min_int ||
				  json_integer_value(v) > 86400))
			bad = sy_err_add(errs, "invalid", who, f,
					 "must be an integer between %d and 86400", min_int);
	}
	return bad;
}

static uint32_t
int_or(const json_t *hc, const char *key, uint32_t dflt)
{
	json_int_t v = json_integer_value(json_object_get(hc, key));

	return v > 0 ? (uint32_t)v : dflt;
}

void
sy_contour_health(const json_t *hc, uint32_t interval_s, struct sy_health_check *out)
{
	const char *host = json_string_value(json_object_get(hc, "host"));

	out->path = json_string_value(json_object_get(hc, "path"));
	/* Empty or unset: the seed's default, "contour-envoy-healthcheck". */
	out->host = host != NULL && host[0] != '\0' ? host : NULL;
	out->interval_s = int_or(hc, "intervalSeconds", interval_s);
	out->timeout_s = int_or(hc, "timeoutSeconds", 2);
	out->unhealthy_threshold = int_or(hc, "unhealthyThresholdCount", 3);
	out->healthy_threshold = int_or(hc, "healthyThresholdCount", 2);
}

int
sy_contour_check_lb(const json_t *o, const char *base, const struct sy_contour_lb_dialect *d,
		    const char *who, struct sy_errors *errs)
{
	const json_t *v = json_object_get(o, "strategy");
	const char *const *s;
	char f[160];
	int bad = 0;

	snprintf(f, sizeof(f), "%s.strategy", base);
	if (v != NULL && !json_is_null(v) &&
	    !(d->empty_strategy_ok && json_is_string(v) && json_string_length(v) == 0)) {
		for (s = d->strategies; json_is_string(v) && *s != NULL; s++)
			if (strcmp(json_string_value(v), *s) == 0)
				break;
		if (!json_is_string(v) || *s == NULL)
			bad = sy_err_add(errs, "invalid", who, f, "%s", d->strategies_msg);
	}
	snprintf(f, sizeof(f), "%s.%s", base, d->hc_key);
	if (sy_contour_check_health(json_object_get(o, d->hc_key), who, f, errs, d->hc_min_int) < 0)
		bad = -1;
	return bad;
}

bool
sy_contour_root_allowed(const struct sy_compile_opts *opts, const char *ns)
{
	const struct sy_config *cfg = opts->cfg;
	unsigned i;

	/* ingressroute_root_namespaces unset (or no config: unit tests): any. */
	if (cfg == NULL || cfg->n_ingressroute_root_namespaces == 0)
		return true;
	for (i = 0; i < cfg->n_ingressroute_root_namespaces; i++)
		if (cfg->ingressroute_root_namespaces[i] != NULL &&
		    strcmp(cfg->ingressroute_root_namespaces[i], ns) == 0)
			return true;
	return false;
}

bool
sy_contour_blank(const char *s)
{
	if (s == NULL)
		return true;
	for (; *s; s++)
		if (!isspace((unsigned char)*s))
			return false;
	return true;
}

static int
cmp_string_ptr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One group of roots sharing fqdn: say so to each. */
static int
mark_group(struct sy_object *const *objs, const json_t *list, const char *fqdn, const char *plural,
	   void (*mark)(void *arg, size_t i, const char *msg), void *arg)
{
	size_t n = json_array_size(list), j, off;
	char **names = calloc(n, sizeof(*names));
	char msg[1024];
	const json_t *v;
	int rc = 0;

	if (names == NULL)
		return -ENOMEM;
	json_array_foreach(list, j, v) {
		const struct sy_object *o = objs[json_integer_value(v)];

		if (asprintf(&names[j], "%s/%s", o->ns, o->name) < 0) {
			names[j] = NULL;
			rc = -ENOMEM;
		}
	}
	if (rc == 0) {
		qsort(names, n, sizeof(*names), cmp_string_ptr);
		off = (size_t)snprintf(msg, sizeof(msg), "fqdn \"%s\" is used in multiple %s: ", fqdn,
				       plural);
		for (j = 0; j < n && off < sizeof(msg); j++)
			off += (size_t)snprintf(msg + off, sizeof(msg) - off, "%s%s", j ? ", " : "",
						names[j]);
		json_array_foreach(list, j, v)
			mark(arg, (size_t)json_integer_value(v), msg);
	}
	for (j = 0; j < n; j++)
		free(names[j]);
	free(names);
	return rc;
}

int
sy_contour_mark_duplicates(struct sy_object *const *objs, char *const *fqdns, size_t n,
			   const char *plural,
			   void (*mark)(void *arg, size_t i, const char *msg), void *arg)
{
	json_t *by_fqdn = json_object(); /* fqdn -> [index] */
	const char *fqdn;
	json_t *list;
	size_t i;
	int rc = 0;

	if (by_fqdn == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		if (fqdns[i] == NULL)
			continue;
		list = json_object_get(by_fqdn, fqdns[i]);
		if (list == NULL) {
			list = json_array();
			if (list == NULL || json_object_set_new(by_fqdn, fqdns[i], list) < 0) {
				json_decref(by_fqdn);
				return -ENOMEM;
			}
		}
		if (json_array_append_new(list, json_integer((json_int_t)i)) < 0) {
			json_decref(by_fqdn);
			return -ENOMEM;
		}
	}
	json_object_foreach(by_fqdn, fqdn, list)
		if (json_array_size(list) > 1 && rc == 0)
			rc = mark_group(objs, list, fqdn, plural, mark, arg);
	json_decref(by_fqdn);
	return rc;
}

int
sy_contour_check_bool(const json_t *v, const char *who, const char *field, struct sy_errors *errs)
{
	if (v != NULL && !json_is_null(v) && !json_is_boolean(v))
		return sy_err_add(errs, "invalid", who, field, "must be true or false");
	return 0;
}

int
sy_contour_check_opt_string(const json_t *v, const char *who, const char *field,
			    struct sy_errors *errs)
{
	if (v != NULL && !json_is_null(v) && !json_is_string(v))
		return sy_err_add(errs, "invalid", who, field, "must be a string");
	return 0;
}

void
sy_contour_equal_if_unweighted(struct sy_backend_in *b, unsigned n)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (b[i].weight > 0)
			return;
	for (i = 0; i < n; i++)
		b[i].weight = 1;
}

/* The object of a kind's per-object state (its first member). */
static const struct sy_object *
state_object(const void *state)
{
	return *(struct sy_object *const *)state;
}

void
sy_contour_cycle_text(const void *const *chain, size_t depth, const void *dest, char *buf,
		      size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < depth && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s/%s -> ", state_object(chain[i])->ns,
					state_object(chain[i])->name);
	if (off < len)
		snprintf(buf + off, len - off, "%s/%s", state_object(dest)->ns,
			 state_object(dest)->name);
}

void
sy_contour_rel_secret(const struct sy_object *o, const char *secret, struct sy_rel_keys *out)
{
	if (secret != NULL && strchr(secret, '/') != NULL)
		sy_rel_add(out, SY_REL_SECRET, "%s", secret);
	else if (secret != NULL)
		sy_rel_add(out, SY_REL_SECRET, "%s/%s", o->ns, secret);
}

void
sy_contour_rel_services(const struct sy_object *o, const json_t *svcs, struct sy_rel_keys *out)
{
	const json_t *svc;
	size_t i;

	json_array_foreach(svcs, i, svc)
		if (json_is_string(json_object_get(svc, "name")))
			sy_rel_add(out, SY_REL_SERVICE, "%s/%s", o->ns,
				   json_string_value(json_object_get(svc, "name")));
}

void
sy_contour_rel_ref(const struct sy_object *o, const json_t *ref, struct sy_rel_keys *out)
{
	const char *ns = json_string_value(json_object_get(ref, "namespace"));

	if (json_is_string(json_object_get(ref, "name")))
		sy_rel_add(out, SY_REL_DELEGATION, "%s/%s", ns && ns[0] ? ns : o->ns,
			   json_string_value(json_object_get(ref, "name")));
}

void
sy_contour_displaced(struct sy_compile_ctx *cx, const struct sy_kind *kind,
		     const struct sy_object *rule_o, const char *host,
		     const struct sy_object *winner,
		     void (*status)(struct sy_object *o, const char *desc))
{
	size_t n = 0, i;
	struct sy_object **objs = sy_compile_list(cx, kind, &n);
	char desc[512];

	if (objs == NULL)
		return;
	snprintf(desc, sizeof(desc), "fqdn \"%s\" is claimed by %s %s/%s (older)", host,
		 winner->kind->kind, winner->ns, winner->name);
	for (i = 0; i < n; i++) {
		const char *fqdn = json_string_value(json_object_get(
			json_object_get(json_object_get(objs[i]->obj, "spec"), "virtualhost"), "fqdn"));
		const char *cur = json_string_value(json_object_get(objs[i]->status, "currentStatus"));

		if (fqdn == NULL || strcasecmp(fqdn, host) != 0)
			continue;
		if (objs[i] != rule_o && (cur == NULL || strcmp(cur, "valid") != 0))
			continue;
		status(objs[i], desc);
	}
	free(objs);
}

int
sy_contour_check_ref(const json_t *ref, const char *who, const char *base, struct sy_errors *errs)
{
	char f[192];
	int bad = 0;

	if (!json_is_object(ref))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.name", base);
	if (sy_kind_check_string(json_object_get(ref, "name"), who, f, errs) < 0)
		bad = -1;
	snprintf(f, sizeof(f), "%s.namespace", base);
	if (sy_contour_check_opt_string(json_object_get(ref, "namespace"), who, f, errs) < 0)
		bad = -1;
	return bad;
}

/* One services[] entry's port and weight. */
static int
check_port_weight(const json_t *s, bool ranges, const char *who, const char *base,
		  struct sy_errors *errs)
{
	const json_t *port = json_object_get(s, "port");
	const json_t *weight = json_object_get(s, "weight");
	json_int_t p = json_integer_value(port), w = json_integer_value(weight);
	char f[256];
	int bad = 0;

	snprintf(f, sizeof(f), "%s.port", base);
	if (port == NULL)
		bad = sy_err_add(errs, "invalid", who, f, "required");
	else if (!json_is_integer(port))
		bad = sy_err_add(errs, "invalid", who, f, "must be an integer");
	else if (ranges && (p < 1 || p > 65535))
		bad = sy_err_add(errs, "invalid", who, f,
				 "must be an integer between 1 and 65535, not %lld", (long long)p);
	snprintf(f, sizeof(f), "%s.weight", base);
	if (weight == NULL || json_is_null(weight))
		return bad;
	if (!json_is_integer(weight) || w > UINT32_MAX / 16)
		bad = sy_err_add(errs, "invalid", who, f, "must be an integer");
	else if (ranges && w < 0)
		bad = sy_err_add(errs, "invalid", who, f,
				 "must be an integer greater than or equal to zero, not %lld",
				 (long long)w);
	return bad;
}

int
sy_contour_check_services(const json_t *svcs, const struct sy_contour_svc_rules *rules,
			  const char *who, const char *base, struct sy_errors *errs)
{
	const json_t *s;
	size_t i;
	char f[192], n[200];
	int bad = 0;

	if (svcs == NULL || json_is_null(svcs))
		return 0;
	if (!json_is_array(svcs))
		return sy_err_add(errs, "invalid", who, base, "must be a list");
	if (json_array_size(svcs) > SY_RULE_BACKENDS_MAX)
		return sy_err_add(errs, "invalid", who, base, "at most %d services per route",
				  SY_RULE_BACKENDS_MAX);
	json_array_foreach(svcs, i, s) {
		snprintf(f, sizeof(f), "%s[%zu]", base, i);
		if (!json_is_object(s)) {
			bad = sy_err_add(errs, "invalid", who, f, "must be an object");
			continue;
		}
		snprintf(n, sizeof(n), "%s.name", f);
		if (sy_kind_check_string(json_object_get(s, "name"), who, n, errs) < 0)
			bad = -1;
		if (check_port_weight(s, rules->ranges, who, f, errs) < 0)
			bad = -1;
		if (rules->each != NULL && rules->each(s, f, who, errs, rules->arg) < 0)
			bad = -1;
	}
	return bad;
}

const json_t *
sy_contour_tcp_rule(struct sy_store *st, const char *ns, const json_t *svcs, struct sy_rule_in *r)
{
	const json_t *svc;
	size_t i;

	json_array_foreach(svcs, i, svc) {
		const char *name = json_string_value(json_object_get(svc, "name"));
		json_int_t port = json_integer_value(json_object_get(svc, "port"));
		json_int_t weight = json_integer_value(json_object_get(svc, "weight"));

		if (port < 1 || port > 65535 || !sy_service_has_port(st, ns, name, port))
			return svc;
		r->backends[r->n_backends].service = name;
		r->backends[r->n_backends].target_port = json_object_get(svc, "port");
		r->backends[r->n_backends++].weight = weight > 0 ? (uint32_t)weight : 0;
	}
	sy_contour_equal_if_unweighted(r->backends, r->n_backends);
	r->path = "/";
	r->match = SY_PATH_PREFIX;
	r->target_port = json_object_get(json_array_get(svcs, 0), "port");
	r->weights = SY_WEIGHTS_PER_SERVICE;
	r->strategy = SY_LB_ROUND_ROBIN;
	return NULL;
}

int
sy_contour_take(const struct sy_object *o, size_t i, json_t *index, bool *root, char **fqdn)
{
	const json_t *vh = json_object_get(json_object_get(o->obj, "spec"), "virtualhost");
	char key[512];

	*root = json_is_object(vh);
	*fqdn = NULL;
	/* Duplicates are found case-insensitively (contour#3230). */
	if (*root && (*fqdn = sy_lower_dup(json_string_value(json_object_get(vh, "fqdn")))) == NULL)
		return -ENOMEM;
	snprintf(key, sizeof(key), "%s/%s", o->ns, o->name);
	return json_object_set_new(index, key, json_integer((json_int_t)i)) < 0 ? -ENOMEM : 0;
}

long
sy_contour_find(const json_t *index, const char *ns, const char *name)
{
	char key[512];
	const json_t *v;

	snprintf(key, sizeof(key), "%s/%s", ns, name);
	v = json_object_get(index, key);
	return v != NULL ? (long)json_integer_value(v) : -1;
}

int
sy_contour_check_vhost(const json_t *vh, const char *who, struct sy_errors *errs)
{
	const json_t *tls = json_object_get(vh, "tls");
	int bad = 0;

	if (!json_is_object(vh))
		return sy_err_add(errs, "invalid", who, "spec.virtualhost", "must be an object");
	if (sy_contour_check_opt_string(json_object_get(vh, "fqdn"), who, "spec.virtualhost.fqdn",
					errs) < 0)
		bad = -1;
	if (tls == NULL || json_is_null(tls))
		return bad;
	if (!json_is_object(tls))
		return sy_err_add(errs, "invalid", who, "spec.virtualhost.tls", "must be an object");
	if (sy_contour_check_opt_string(json_object_get(tls, "secretName"), who,
					"spec.virtualhost.tls.secretName", errs) < 0)
		bad = -1;
	if (sy_contour_check_bool(json_object_get(tls, "passthrough"), who,
				  "spec.virtualhost.tls.passthrough", errs) < 0)
		bad = -1;
	return bad;
}
