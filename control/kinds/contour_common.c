/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "contour_common.h"
#include "gen/compile.h"
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
