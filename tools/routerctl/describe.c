/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "age.h"
#include "describe.h"
#include "print.h"
#include "yaml_emit.h"

static const json_t *
get(const json_t *v, const char *k)
{
	return json_object_get(v, k);
}

static const char *
str(const json_t *v, const char *k)
{
	return json_string_value(json_object_get(v, k));
}

static const char *
or_none(const char *s)
{
	return s && s[0] ? s : "<none>";
}

/* "5m ago" of an RFC 3339 timestamp. */
static void
ago(const char *ts, time_t now, char *buf, size_t len)
{
	char age[32];

	rctl_format_age(ts, now, age, sizeof(age));
	if (strcmp(age, "<unknown>") == 0)
		snprintf(buf, len, "%s", age);
	else
		snprintf(buf, len, "%s ago", age);
}

static void
header(FILE *out, const json_t *obj, time_t now)
{
	const json_t *md = get(obj, "metadata");
	char when[48];
	char *labels = rctl_labels(obj);
	char *ann;

	ago(str(md, "creationTimestamp"), now, when, sizeof(when));
	fprintf(out, "Name:\t\t\t%s\n", or_none(str(md, "name")));
	if (str(md, "namespace") != NULL)
		fprintf(out, "Namespace:\t\t%s\n", str(md, "namespace"));
	fprintf(out, "Created:\t\t%s\n", when);
	fprintf(out, "Labels:\t\t\t%s\n", labels ? labels : "<none>");
	free(labels);
	{
		json_t *tmp = json_pack("{s:{s:O}}", "metadata", "labels",
					get(md, "annotations") ? (json_t *)get(md, "annotations")
							       : json_null());

		ann = tmp ? rctl_labels(tmp) : NULL;
		json_decref(tmp);
	}
	fprintf(out, "Annotations:\t\t%s\n", ann ? ann : "<none>");
	free(ann);
}

static const json_t *
admitted_cond(const json_t *ingress)
{
	const json_t *c;
	size_t i;

	json_array_foreach(get(ingress, "conditions"), i, c) {
		if (str(c, "type") && strcmp(str(c, "type"), "Admitted") == 0)
			return c;
	}
	return NULL;
}

/* What the router knows of each endpoint (status.backends of an Endpoints
 * object: load, passive ejection, active health), a line each. */
static void
backend_states(FILE *out, const json_t *ep)
{
	const json_t *b;
	size_t i;

	json_array_foreach(get(get(ep, "status"), "backends"), i, b) {
		const json_t *h = get(b, "health");
		json_int_t ej = json_integer_value(get(b, "ejected_workers"));

		fprintf(out, "  %s:%lld\t%lld open", or_none(str(b, "ip")),
			(long long)json_integer_value(get(b, "port")),
			(long long)json_integer_value(get(b, "open_connections")));
		if (h != NULL)
			fprintf(out, ", %s (GET %s: %lld checks, %lld failed, last %s)",
				or_none(str(h, "state")), or_none(str(h, "path")),
				(long long)json_integer_value(get(h, "checks")),
				(long long)json_integer_value(get(h, "failed")), or_none(str(h, "last")));
		else
			fprintf(out, ", not health checked");
		if (ej > 0)
			fprintf(out, ", ejected on %lld worker%s", (long long)ej, ej == 1 ? "" : "s");
		fputc('\n', out);
	}
}

static void
describe_route(FILE *out, const json_t *route, const json_t *endpoints, time_t now)
{
	const json_t *spec = get(route, "spec");
	const json_t *tls = get(spec, "tls");
	const json_t *ingresses = json_object_get(get(route, "status"), "ingress");
	const json_t *ing, *b, *port = json_object_get(get(spec, "port"), "targetPort");
	const json_t *backends[8];
	const char *host = str(spec, "host");
	const char *wp = str(spec, "wildcardPolicy");
	size_t nb = 0, i;
	long long total = 0;
	int any = 0;
	char when[48];

	header(out, route, now);
	if ((host == NULL || host[0] == '\0') && json_array_size(ingresses) > 0)
		host = str(json_array_get(ingresses, 0), "host");
	if (wp != NULL && strcmp(wp, "Subdomain") == 0 && host != NULL && strchr(host, '.'))
		fprintf(out, "Requested Host:\t\t*.%s\n", strchr(host, '.') + 1);
	else
		fprintf(out, "Requested Host:\t\t%s\n", or_none(host));
	json_array_foreach(ingresses, i, ing) {
		const json_t *c = admitted_cond(ing);
		const char *rn = or_none(str(ing, "routerName"));

		if (c == NULL)
			continue;
		any = 1;
		ago(str(c, "lastTransitionTime"), now, when, sizeof(when));
		if (str(c, "status") && strcmp(str(c, "status"), "True") == 0) {
			const char *canon = str(ing, "routerCanonicalHostname");

			fprintf(out, "\t\t\t  exposed on router %s (host %s) %s\n", rn,
				canon && canon[0] ? canon : or_none(str(ing, "host")), when);
		} else {
			fprintf(out, "\t\t\t  rejected by router %s: %s (%s)\n", rn,
				or_none(str(c, "reason")), when);
			if (str(c, "message") && str(c, "message")[0])
				fprintf(out, "\t\t\t    %s\n", str(c, "message"));
		}
	}
	if (!any)
		fprintf(out, "\t\t\t  Not yet admitted\n");
	fprintf(out, "Path:\t\t\t%s\n", or_none(str(spec, "path")));
	fprintf(out, "\nTLS Termination:\t%s\n", or_none(str(tls, "termination")));
	fprintf(out, "Insecure Policy:\t%s\n", or_none(str(tls, "insecureEdgeTerminationPolicy")));
	if (json_is_string(port) && json_string_length(port) > 0)
		fprintf(out, "Endpoint Port:\t\t%s\n", json_string_value(port));
	else if (json_is_integer(port))
		fprintf(out, "Endpoint Port:\t\t%" JSON_INTEGER_FORMAT "\n", json_integer_value(port));
	else
		fprintf(out, "Endpoint Port:\t\t<all endpoint ports>\n");

	if (get(spec, "to") != NULL)
		backends[nb++] = get(spec, "to");
	json_array_foreach(get(spec, "alternateBackends"), i, b) {
		if (nb < sizeof(backends) / sizeof(backends[0]))
			backends[nb++] = b;
	}
	for (i = 0; i < nb; i++) {
		const json_t *w = get(backends[i], "weight");

		/* library-go defaults a missing weight to 100. */
		total += json_is_integer(w) ? json_integer_value(w) : 100;
	}
	for (i = 0; i < nb; i++) {
		const json_t *w = get(backends[i], "weight");
		const char *name = or_none(str(backends[i], "name"));
		long long wv = json_is_integer(w) ? json_integer_value(w) : 100;
		const json_t *ep = json_object_get(endpoints, name);
		char *list = ep ? rctl_endpoints_list(ep) : NULL;

		fprintf(out, "\nService:\t%s\n", name);
		if (nb > 1 || json_is_integer(w))
			fprintf(out, "Weight:\t\t%lld (%lld%%)\n", wv, total ? wv * 100 / total : 0);
		fprintf(out, "Endpoints:\t%s\n", list ? list : "<none>");
		free(list);
		backend_states(out, ep);
	}
}

/* v as YAML, every line indented by two spaces. */
static int
indented_yaml(FILE *out, const json_t *v)
{
	char *buf = NULL, *line, *save = NULL;
	size_t len = 0;
	char err[128];
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return -1;
	if (rctl_yaml_emit(f, v, err, sizeof(err)) < 0) {
		fclose(f);
		free(buf);
		return -1;
	}
	if (fclose(f) != 0) {
		free(buf);
		return -1;
	}
	for (line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		fprintf(out, "  %s\n", line);
	free(buf);
	return 0;
}

static int
describe_generic(FILE *out, const json_t *obj, time_t now)
{
	const char *key;
	const json_t *v;

	header(out, obj, now);
	fprintf(out, "API Version:\t\t%s\n", or_none(str(obj, "apiVersion")));
	fprintf(out, "Kind:\t\t\t%s\n", or_none(str(obj, "kind")));
	/* Secrets show sizes, not values, as kubectl does. */
	if (str(obj, "kind") && strcmp(str(obj, "kind"), "Secret") == 0) {
		fprintf(out, "Type:\t\t\t%s\n", or_none(str(obj, "type")));
		fprintf(out, "\nData\n====\n");
		json_object_foreach((json_t *)get(obj, "data"), key, v) {
			size_t l = json_is_string(v) ? json_string_length(v) : 0;
			const char *t = json_is_string(v) ? json_string_value(v) : "";
			size_t pad = (l > 0 && t[l - 1] == '=') + (l > 1 && t[l - 2] == '=');

			fprintf(out, "%s:\t%zu bytes\n", key, l / 4 * 3 - pad);
		}
		return ferror(out) ? -1 : 0;
	}
	json_object_foreach((json_t *)obj, key, v) {
		if (strcmp(key, "apiVersion") == 0 || strcmp(key, "kind") == 0 ||
		    strcmp(key, "metadata") == 0 || strcmp(key, "status") == 0)
			continue;
		fprintf(out, "%c%s:\n", key[0] >= 'a' && key[0] <= 'z' ? key[0] - 'a' + 'A' : key[0],
			key + 1);
		if (indented_yaml(out, v) < 0)
			return -1;
	}
	fprintf(out, "Status:\n");
	if (get(obj, "status") == NULL || json_object_size(get(obj, "status")) == 0)
		fprintf(out, "  <none>\n");
	else if (indented_yaml(out, get(obj, "status")) < 0)
		return -1;
	return ferror(out) ? -1 : 0;
}

int
rctl_describe(FILE *out, const json_t *obj, const json_t *endpoints, time_t now)
{
	const char *api = str(obj, "apiVersion");
	const char *kind = str(obj, "kind");

	if (kind && strcmp(kind, "Route") == 0 && api &&
	    (strcmp(api, "route.openshift.io/v1") == 0 || strcmp(api, "v1") == 0)) {
		describe_route(out, obj, endpoints, now);
		return ferror(out) ? -1 : 0;
	}
	return describe_generic(out, obj, now);
}

/* The name route is served under on a shard of DNS suffix dns: its own
 * host, or the generated <name>-<namespace>.<dns> (dots in the name become
 * dashes, as routerd's sy_route_effective_host). malloc'd. */
static char *
served_name(const json_t *route, const char *dns)
{
	const char *host = str(get(route, "spec"), "host");
	const char *name = str(get(route, "metadata"), "name");
	const char *ns = str(get(route, "metadata"), "namespace");
	char *out = NULL, *p;
	size_t ln;

	if (host != NULL && host[0] != '\0')
		return strdup(host);
	if (asprintf(&out, "%s-%s.%s", or_none(name), ns ? ns : "default", dns ? dns : "?") < 0)
		return NULL;
	ln = name ? strlen(name) : 0;
	for (p = out; p < out + ln; p++)
		if (*p == '.')
			*p = '-';
	for (p = out; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return out;
}

int
rctl_describe_route_fleet(FILE *out, const json_t *route, const json_t *bindings)
{
	const json_t *status = get(route, "status"), *b;
	const char *name = str(get(route, "metadata"), "name");
	size_t i;
	int n = 0;

	if (str(status, "phase") == NULL)
		return 0;
	fprintf(out, "\nPhase:\t\t\t%s\n", str(status, "phase"));
	fprintf(out, "DNS:\t\t\t%s\n", or_none(str(status, "dns")));
	json_array_foreach(bindings, i, b) {
		const json_t *spec = get(b, "spec");
		char *dns;

		if (name == NULL || str(spec, "routeName") == NULL ||
		    strcmp(str(spec, "routeName"), name) != 0)
			continue;
		dns = served_name(route, str(spec, "dns"));
		if (dns == NULL)
			return -1;
		fprintf(out, "%s%s (%s)\n", n++ ? "\t\t\t" : "Routers:\t\t",
			or_none(str(spec, "routerName")), dns);
		free(dns);
	}
	if (n == 0)
		fprintf(out, "Routers:\t\t<none> (not scheduled yet)\n");
	return ferror(out) ? -1 : 0;
}

int
rctl_describe_router_routes(FILE *out, const json_t *router, const json_t *bindings,
			    const json_t *routes)
{
	const char *me = str(get(router, "metadata"), "name");
	const json_t *b, *r;
	size_t i, j;
	int n = 0;

	json_array_foreach(bindings, i, b) {
		const json_t *spec = get(b, "spec");
		const char *rns = str(spec, "routeNamespace"), *rn = str(spec, "routeName");
		char *dns = NULL;

		if (me == NULL || str(spec, "routerName") == NULL ||
		    strcmp(str(spec, "routerName"), me) != 0 || rns == NULL || rn == NULL)
			continue;
		json_array_foreach(routes, j, r) {
			const char *ns = str(get(r, "metadata"), "namespace");
			const char *name = str(get(r, "metadata"), "name");

			if (ns && name && strcmp(ns, rns) == 0 && strcmp(name, rn) == 0) {
				dns = served_name(r, str(spec, "dns"));
				break;
			}
		}
		fprintf(out, "%s%s/%s\t%s\n", n++ ? "\t\t\t" : "\nRoutes:\t\t\t", rns, rn,
			dns ? dns : "<route gone>");
		free(dns);
	}
	if (n == 0)
		fprintf(out, "\nRoutes:\t\t\t<none>\n");
	return ferror(out) ? -1 : 0;
}
