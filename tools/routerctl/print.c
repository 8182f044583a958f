/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "age.h"
#include "print.h"

/* kubectl shows three endpoints and counts the rest, so the column stays
 * readable for services with hundreds of pods. */
#define RCTL_MAX_ENDPOINTS_SHOWN 3

#define RCTL_MAX_COLS 16

/* The value at a dotted path ("spec.tls.termination"), or NULL. */
static json_t *
at(const json_t *v, const char *path)
{
	char key[128];
	const char *dot;
	size_t n;

	while (v != NULL && *path != '\0') {
		dot = strchr(path, '.');
		n = dot ? (size_t)(dot - path) : strlen(path);
		if (n >= sizeof(key))
			return NULL;
		memcpy(key, path, n);
		key[n] = '\0';
		v = json_object_get(v, key);
		path += n + (dot != NULL);
	}
	return (json_t *)v;
}

static const char *
str_at(const json_t *v, const char *path)
{
	return json_string_value(at(v, path));
}

/* Strings as they are, numbers as numbers: targetPort is an IntOrString. */
static void
scalar_text(const json_t *v, char *buf, size_t len)
{
	if (json_is_string(v))
		snprintf(buf, len, "%s", json_string_value(v));
	else if (json_is_integer(v))
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
	else if (json_is_real(v))
		snprintf(buf, len, "%g", json_real_value(v));
	else if (json_is_boolean(v))
		snprintf(buf, len, "%s", json_is_true(v) ? "true" : "false");
	else
		buf[0] = '\0';
}

/* Admitted condition of one status.ingress entry: 1 True, 0 False, -1 none. */
static int
ingress_admitted(const json_t *ingress, const char **reason)
{
	const json_t *cond;
	const char *status;
	size_t i;

	json_array_foreach(json_object_get(ingress, "conditions"), i, cond) {
		if (str_at(cond, "type") == NULL || strcmp(str_at(cond, "type"), "Admitted") != 0)
			continue;
		status = str_at(cond, "status");
		if (status != NULL && strcmp(status, "True") == 0)
			return 1;
		if (status != NULL && strcmp(status, "False") == 0) {
			*reason = str_at(cond, "reason");
			return 0;
		}
	}
	return -1;
}

char *
rctl_route_host(const json_t *route)
{
	const json_t *ingresses = at(route, "status.ingress");
	const char *host = str_at(route, "spec.host");
	const char *reason = NULL, *ihost;
	int admitted = 0, errors = 0, matched = 0;
	const json_t *ingress;
	char *out = NULL;
	size_t i;

	/* A generated host (empty spec.host) is only known from the status:
	 * this router's, else the fleet's DNS name for it. */
	if ((host == NULL || host[0] == '\0') && json_array_size(ingresses) > 0)
		host = str_at(json_array_get(ingresses, 0), "host");
	if ((host == NULL || host[0] == '\0') && str_at(route, "status.dns") != NULL)
		host = str_at(route, "status.dns");
	if (host == NULL)
		host = "";
	json_array_foreach(ingresses, i, ingress) {
		switch (ingress_admitted(ingress, &reason)) {
		case 1:
			admitted++;
			ihost = str_at(ingress, "host");
			matched |= ihost != NULL && strcmp(ihost, host) == 0;
			break;
		case 0:
			errors++;
			break;
		}
	}
	/* The same cases as oc's printRoute, in the same order. */
	if (!json_is_array(ingresses))
		out = strdup(host);
	else if (admitted == 0 && errors > 0)
		out = strdup(reason ? reason : "Rejected");
	else if (errors > 0) {
		if (asprintf(&out, "%s ... %d rejected", host, errors) < 0)
			out = NULL;
	} else if (admitted == 0)
		out = strdup("Pending");
	else if (!matched) {
		if (asprintf(&out, "%s ... requested", host) < 0)
			out = NULL;
	} else
		out = strdup(host);
	return out;
}

char *
rctl_route_services(const json_t *route)
{
	const json_t *alt = at(route, "spec.alternateBackends");
	const json_t *backends[64];
	const json_t *w;
	size_t n = 0, i;
	double total = 0;
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	if (at(route, "spec.to") != NULL)
		backends[n++] = at(route, "spec.to");
	json_array_foreach(alt, i, w) {
		if (n < sizeof(backends) / sizeof(backends[0]))
			backends[n++] = w;
	}
	for (i = 0; i < n; i++)
		total += json_number_value(json_object_get(backends[i], "weight"));

	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	for (i = 0; i < n; i++) {
		const char *name = str_at(backends[i], "name");

		w = json_object_get(backends[i], "weight");
		if (i > 0)
			fputc(',', f);
		/* oc's rules: no weight, or a lone backend, is just its name;
		 * percentages are truncated, as oc's integer division does. */
		if (!json_is_number(w) || (n == 1 && total != 0))
			fprintf(f, "%s", name ? name : "");
		else if (total == 0)
			fprintf(f, "%s(0%%)", name ? name : "");
		else
			fprintf(f, "%s(%lld%%)", name ? name : "",
				(long long)(json_number_value(w) * 100 / total));
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *
rctl_route_port(const json_t *route)
{
	const json_t *port = at(route, "spec.port.targetPort");
	char buf[64];

	if (port == NULL || json_is_null(port))
		return strdup("<all>");
	scalar_text(port, buf, sizeof(buf));
	return strdup(buf);
}

char *
rctl_route_termination(const json_t *route)
{
	const char *term = str_at(route, "spec.tls.termination");
	const char *policy = str_at(route, "spec.tls.insecureEdgeTerminationPolicy");
	char *out;

	if (term == NULL)
		return strdup("");
	/* oc shows any insecure policy ("edge/Redirect", "edge/Allow"). */
	if (policy == NULL || policy[0] == '\0')
		return strdup(term);
	if (asprintf(&out, "%s/%s", term, policy) < 0)
		return NULL;
	return out;
}

char *
rctl_service_ports(const json_t *svc)
{
	const json_t *port;
	const char *proto;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	if (json_array_size(at(svc, "spec.ports")) == 0)
		return strdup("<none>");
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	json_array_foreach(at(svc, "spec.ports"), i, port) {
		proto = str_at(port, "protocol");
		if (i > 0)
			fputc(',', f);
		fprintf(f, "%" JSON_INTEGER_FORMAT,
			json_integer_value(json_object_get(port, "port")));
		if (json_integer_value(json_object_get(port, "nodePort")) != 0)
			fprintf(f, ":%" JSON_INTEGER_FORMAT,
				json_integer_value(json_object_get(port, "nodePort")));
		fprintf(f, "/%s", proto ? proto : "TCP");
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Appends one endpoint to the list unless the list is full. */
static void
add_endpoint(FILE *f, size_t *shown, int *more, const char *ip, const json_t *port)
{
	if (*shown == RCTL_MAX_ENDPOINTS_SHOWN) {
		*more = 1;
		return;
	}
	if ((*shown)++ > 0)
		fputc(',', f);
	if (port == NULL)
		fputs(ip, f);
	else if (strchr(ip, ':') != NULL) /* IPv6, bracketed like JoinHostPort */
		fprintf(f, "[%s]:%" JSON_INTEGER_FORMAT, ip, json_integer_value(port));
	else
		fprintf(f, "%s:%" JSON_INTEGER_FORMAT, ip, json_integer_value(port));
}

char *
rctl_endpoints_list(const json_t *ep)
{
	const json_t *subset, *addr, *port;
	size_t count = 0, shown = 0, i, j, k;
	char *buf = NULL, *out;
	size_t len = 0;
	int more = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	json_array_foreach(json_object_get(ep, "subsets"), i, subset) {
		const json_t *addrs = json_object_get(subset, "addresses");
		const json_t *ports = json_object_get(subset, "ports");

		/* Headless services have addresses without ports. */
		if (json_array_size(ports) == 0) {
			count += json_array_size(addrs);
			json_array_foreach(addrs, j, addr) {
				add_endpoint(f, &shown, &more, str_at(addr, "ip") ? str_at(addr, "ip") : "",
					     NULL);
			}
			continue;
		}
		json_array_foreach(ports, k, port) {
			count += json_array_size(addrs);
			json_array_foreach(addrs, j, addr) {
				add_endpoint(f, &shown, &more, str_at(addr, "ip") ? str_at(addr, "ip") : "",
					     json_object_get(port, "port"));
			}
		}
	}
	if (more)
		fprintf(f, " + %zu more...", count - RCTL_MAX_ENDPOINTS_SHOWN);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	if (buf[0] != '\0')
		return buf;
	free(buf);
	out = strdup("<none>");
	return out;
}

static char *
service_selector(const json_t *svc)
{
	const json_t *sel = at(svc, "spec.selector");
	const char *key;
	const json_t *v;
	char *buf = NULL;
	size_t len = 0, n = 0;
	char val[256];
	FILE *f;

	if (json_object_size(sel) == 0)
		return strdup("<none>");
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	json_object_foreach((json_t *)sel, key, v) {
		scalar_text(v, val, sizeof(val));
		fprintf(f, "%s%s=%s", n++ ? "," : "", key, val);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* "a=b,c=d" of an object of strings, or "<none>". */
static char *
join_map(const json_t *m)
{
	const char *key;
	const json_t *v;
	char *buf = NULL;
	size_t len = 0, n = 0;
	char val[256];
	FILE *f;

	if (json_object_size(m) == 0)
		return strdup("<none>");
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	json_object_foreach((json_t *)m, key, v) {
		scalar_text(v, val, sizeof(val));
		fprintf(f, "%s%s=%s", n++ ? "," : "", key, val);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

char *
rctl_labels(const json_t *obj)
{
	return join_map(at(obj, "metadata.labels"));
}

char *
rctl_routegroup_hosts(const json_t *rg)
{
	const json_t *h;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	if (json_array_size(at(rg, "spec.hosts")) == 0)
		return strdup("");
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	json_array_foreach(at(rg, "spec.hosts"), i, h)
		fprintf(f, "%s%s", i ? "," : "", json_is_string(h) ? json_string_value(h) : "");
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

size_t
rctl_secret_data_count(const json_t *secret)
{
	return json_object_size(json_object_get(secret, "data")) +
	       json_object_size(json_object_get(secret, "stringData"));
}

enum kind_layout {
	LAYOUT_ROUTE,
	LAYOUT_ROUTE_FLEET, /* Routes with status.phase: PHASE and DNS columns too */
	LAYOUT_ROUTER,
	LAYOUT_ROUTEBINDING,
	LAYOUT_SERVICE,
	LAYOUT_ENDPOINTS,
	LAYOUT_INGRESSROUTE,
	LAYOUT_CONTOUR_ROUTE,
	LAYOUT_ROUTEGROUP,
	LAYOUT_SECRET,
	LAYOUT_NAMESPACE,
	LAYOUT_OTHER,
};

int
rctl_is_contour_route(const char *kind, const json_t *items)
{
	const char *api = str_at(json_array_get(items, 0), "apiVersion");

	/* Both Route kinds answer "Route"; the group says which one. */
	if (strncmp(kind, "Route.contour.heptio.com", 24) == 0)
		return 1;
	return strcmp(kind, "Route") == 0 && api != NULL &&
	       strncmp(api, "contour.heptio.com/", 19) == 0;
}

static enum kind_layout
layout_of(const char *kind, const json_t *items)
{
	if (rctl_is_contour_route(kind, items))
		return LAYOUT_CONTOUR_ROUTE;
	if (strcmp(kind, "Route") == 0) {
		const json_t *it;
		size_t i;

		/* A fleet's routes carry status.phase (control/fleet/fleet.h);
		 * without a Router the table stays oc's. */
		json_array_foreach(items, i, it)
			if (str_at(it, "status.phase") != NULL)
				return LAYOUT_ROUTE_FLEET;
		return LAYOUT_ROUTE;
	}
	if (strcmp(kind, "Router") == 0)
		return LAYOUT_ROUTER;
	if (strcmp(kind, "RouteBinding") == 0)
		return LAYOUT_ROUTEBINDING;
	if (strcmp(kind, "Service") == 0)
		return LAYOUT_SERVICE;
	if (strcmp(kind, "Endpoints") == 0)
		return LAYOUT_ENDPOINTS;
	if (strcmp(kind, "IngressRoute") == 0)
		return LAYOUT_INGRESSROUTE;
	if (strcmp(kind, "RouteGroup") == 0)
		return LAYOUT_ROUTEGROUP;
	if (strcmp(kind, "Secret") == 0)
		return LAYOUT_SECRET;
	if (strcmp(kind, "Namespace") == 0)
		return LAYOUT_NAMESPACE;
	return LAYOUT_OTHER;
}

/* Header names of the layout after the optional NAMESPACE; returns the count. */
static size_t
headers_of(enum kind_layout layout, int wide, const char **h)
{
	size_t n = 0;

	h[n++] = "NAME";
	switch (layout) {
	case LAYOUT_ROUTE:
	case LAYOUT_ROUTE_FLEET:
		/* oc has no AGE for routes; -o wide adds it for us. */
		h[n++] = "HOST/PORT";
		h[n++] = "PATH";
		h[n++] = "SERVICES";
		h[n++] = "PORT";
		h[n++] = "TERMINATION";
		h[n++] = "WILDCARD";
		if (layout == LAYOUT_ROUTE_FLEET) {
			h[n++] = "PHASE";
			h[n++] = "DNS";
		}
		if (wide)
			h[n++] = "AGE";
		break;
	case LAYOUT_ROUTER:
		h[n++] = "DNS";
		h[n++] = "VIPS";
		h[n++] = "ROUTES";
		h[n++] = "DESCRIPTION";
		h[n++] = "AGE";
		if (wide) {
			h[n++] = "ROUTE SELECTOR";
			h[n++] = "NAMESPACE SELECTOR";
		}
		break;
	case LAYOUT_ROUTEBINDING:
		h[n++] = "ROUTE";
		h[n++] = "ROUTER";
		h[n++] = "DNS";
		h[n++] = "AGE";
		break;
	case LAYOUT_SERVICE:
		h[n++] = "TYPE";
		h[n++] = "CLUSTER-IP";
		h[n++] = "PORT(S)";
		h[n++] = "AGE";
		if (wide)
			h[n++] = "SELECTOR";
		break;
	case LAYOUT_ENDPOINTS:
		h[n++] = "ENDPOINTS";
		h[n++] = "AGE";
		break;
	case LAYOUT_INGRESSROUTE:
		/* Contour's CRD printer columns (no AGE among them). */
		h[n++] = "FQDN";
		h[n++] = "TLS SECRET";
		h[n++] = "FIRST ROUTE";
		h[n++] = "STATUS";
		h[n++] = "STATUS DESCRIPTION";
		if (wide)
			h[n++] = "AGE";
		break;
	case LAYOUT_CONTOUR_ROUTE:
		h[n++] = "HOST";
		h[n++] = "STATUS";
		if (wide)
			h[n++] = "AGE";
		break;
	case LAYOUT_ROUTEGROUP:
		h[n++] = "HOSTS";
		h[n++] = "VALID";
		h[n++] = "ERRORS";
		h[n++] = "AGE";
		break;
	case LAYOUT_SECRET:
		h[n++] = "TYPE";
		h[n++] = "DATA";
		h[n++] = "AGE";
		break;
	case LAYOUT_NAMESPACE:
		h[n++] = "LABELS";
		h[n++] = "AGE";
		break;
	case LAYOUT_OTHER:
		h[n++] = "AGE";
		break;
	}
	return n;
}

/* Fills the cells of one row; cells that need memory are added to owned so
 * the caller frees them. Returns the number of cells, 0 when out of memory. */
static const char *
or_empty(const char *s)
{
	return s ? s : "";
}

/* "a,b" of a list of strings, "<none>" when empty. */
static char *
join_list(const json_t *list)
{
	char *out = NULL;
	size_t len = 0, i;
	const json_t *v;
	FILE *f;

	if (json_array_size(list) == 0)
		return strdup("<none>");
	f = open_memstream(&out, &len);
	if (f == NULL)
		return NULL;
	json_array_foreach(list, i, v)
		fprintf(f, "%s%s", i ? "," : "", json_is_string(v) ? json_string_value(v) : "?");
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

/* A Router's selector as text: the text form as given, or an object's
 * matchLabels and matchExpressions as kubectl's describe writes them. */
static char *
selector_text(const json_t *sel)
{
	char *out = NULL;
	size_t len = 0, i, j;
	const char *k;
	const json_t *v, *e, *x;
	int first = 1;
	FILE *f;

	if (sel == NULL)
		return strdup("<none>");
	if (json_is_string(sel))
		return strdup(json_string_length(sel) ? json_string_value(sel) : "<all>");
	f = open_memstream(&out, &len);
	if (f == NULL)
		return NULL;
	json_object_foreach((json_t *)json_object_get(sel, "matchLabels"), k, v) {
		fprintf(f, "%s%s=%s", first ? "" : ",", k, json_is_string(v) ? json_string_value(v) : "?");
		first = 0;
	}
	json_array_foreach(json_object_get(sel, "matchExpressions"), i, e) {
		const char *op = str_at(e, "operator");

		fprintf(f, "%s%s%s", first ? "" : ",",
			op && strcmp(op, "DoesNotExist") == 0 ? "!" : "", or_empty(str_at(e, "key")));
		first = 0;
		if (op == NULL || (strcmp(op, "In") != 0 && strcmp(op, "NotIn") != 0))
			continue;
		fprintf(f, " %s (", strcmp(op, "In") == 0 ? "in" : "notin");
		json_array_foreach(json_object_get(e, "values"), j, x)
			fprintf(f, "%s%s", j ? "," : "", json_is_string(x) ? json_string_value(x) : "?");
		fprintf(f, ")");
	}
	if (first)
		fprintf(f, "<all>");
	if (fclose(f) != 0) {
		free(out);
		return NULL;
	}
	return out;
}

static size_t
row_of(enum kind_layout layout, const json_t *obj, const struct rctl_get_opts *o,
       const char **c, char **owned, size_t *nowned, char *age, size_t agelen,
       char *num, size_t numlen)
{
	const char *name = str_at(obj, "metadata.name");
	const json_t *v;
	size_t n = 0, i;
	char *s;

	rctl_format_age(str_at(obj, "metadata.creationTimestamp"), o->now, age, agelen);
	c[n++] = name ? name : "";
#define OWN(expr)                                                              \
	do {                                                                   \
		s = (expr);                                                    \
		if (s == NULL)                                                 \
			goto nomem;                                            \
		owned[(*nowned)++] = s;                                        \
		c[n++] = s;                                                    \
	} while (0)
	switch (layout) {
	case LAYOUT_ROUTE:
	case LAYOUT_ROUTE_FLEET:
		OWN(rctl_route_host(obj));
		c[n++] = str_at(obj, "spec.path") ? str_at(obj, "spec.path") : "";
		OWN(rctl_route_services(obj));
		OWN(rctl_route_port(obj));
		OWN(rctl_route_termination(obj));
		c[n++] = str_at(obj, "spec.wildcardPolicy") && str_at(obj, "spec.wildcardPolicy")[0]
				 ? str_at(obj, "spec.wildcardPolicy")
				 : "None";
		if (layout == LAYOUT_ROUTE_FLEET) {
			c[n++] = or_empty(str_at(obj, "status.phase"));
			c[n++] = str_at(obj, "status.dns") ? str_at(obj, "status.dns") : "<none>";
		}
		if (o->wide)
			c[n++] = age;
		break;
	case LAYOUT_ROUTER:
		c[n++] = or_empty(str_at(obj, "spec.dns"));
		OWN(join_list(at(obj, "spec.vips")));
		v = at(obj, "status.routes");
		snprintf(num, numlen, "%" JSON_INTEGER_FORMAT, json_is_integer(v) ? json_integer_value(v) : 0);
		c[n++] = num;
		c[n++] = str_at(obj, "spec.description") && str_at(obj, "spec.description")[0]
				 ? str_at(obj, "spec.description")
				 : "<none>";
		c[n++] = age;
		if (o->wide) {
			OWN(selector_text(at(obj, "spec.routeSelector")));
			OWN(selector_text(at(obj, "spec.namespaceSelector")));
		}
		break;
	case LAYOUT_ROUTEBINDING:
		c[n++] = or_empty(str_at(obj, "spec.routeName"));
		c[n++] = or_empty(str_at(obj, "spec.routerName"));
		c[n++] = or_empty(str_at(obj, "spec.dns"));
		c[n++] = age;
		break;
	case LAYOUT_SERVICE:
		c[n++] = str_at(obj, "spec.type") ? str_at(obj, "spec.type") : "ClusterIP";
		c[n++] = str_at(obj, "spec.clusterIP") && str_at(obj, "spec.clusterIP")[0]
				 ? str_at(obj, "spec.clusterIP")
				 : "<none>";
		OWN(rctl_service_ports(obj));
		c[n++] = age;
		if (o->wide)
			OWN(service_selector(obj));
		break;
	case LAYOUT_ENDPOINTS:
		OWN(rctl_endpoints_list(obj));
		c[n++] = age;
		break;
	case LAYOUT_INGRESSROUTE:
		c[n++] = or_empty(str_at(obj, "spec.virtualhost.fqdn"));
		c[n++] = or_empty(str_at(obj, "spec.virtualhost.tls.secretName"));
		c[n++] = or_empty(str_at(json_array_get(at(obj, "spec.routes"), 0), "match"));
		c[n++] = or_empty(str_at(obj, "status.currentStatus"));
		c[n++] = or_empty(str_at(obj, "status.description"));
		if (o->wide)
			c[n++] = age;
		break;
	case LAYOUT_CONTOUR_ROUTE:
		c[n++] = or_empty(str_at(obj, "spec.host"));
		c[n++] = or_empty(str_at(obj, "status.currentStatus"));
		if (o->wide)
			c[n++] = age;
		break;
	case LAYOUT_ROUTEGROUP:
		OWN(rctl_routegroup_hosts(obj));
		v = at(obj, "status.valid");
		c[n++] = json_is_boolean(v) ? (json_is_true(v) ? "true" : "false") : "";
		snprintf(num, numlen, "%zu", json_array_size(at(obj, "status.errors")));
		c[n++] = num;
		c[n++] = age;
		break;
	case LAYOUT_SECRET:
		c[n++] = str_at(obj, "type") && str_at(obj, "type")[0] ? str_at(obj, "type") : "Opaque";
		snprintf(num, numlen, "%zu", rctl_secret_data_count(obj));
		c[n++] = num;
		c[n++] = age;
		break;
	case LAYOUT_NAMESPACE:
		OWN(rctl_labels(obj));
		c[n++] = age;
		break;
	case LAYOUT_OTHER:
		c[n++] = age;
		break;
	}
#undef OWN
	return n;
nomem:
	for (i = 0; i < *nowned; i++)
		free(owned[i]);
	*nowned = 0;
	return 0;
}

struct rctl_table *
rctl_get_table(const char *kind, const json_t *items, const struct rctl_get_opts *o)
{
	enum kind_layout layout = layout_of(kind, items);
	const char *h[RCTL_MAX_COLS], *c[RCTL_MAX_COLS];
	char *owned[RCTL_MAX_COLS];
	size_t nh, nowned, i, off = o->with_namespace ? 1 : 0;
	struct rctl_table *t;
	const json_t *obj;
	char age[32], num[32];
	int rc;

	h[0] = "NAMESPACE";
	/* Namespaces and Routers are not namespaced. */
	if (layout == LAYOUT_NAMESPACE || layout == LAYOUT_ROUTER)
		off = 0;
	nh = headers_of(layout, o->wide, h + off) + off;
	t = rctl_table_new(nh, h);
	if (t == NULL)
		return NULL;
	json_array_foreach(items, i, obj) {
		nowned = 0;
		if (off)
			c[0] = str_at(obj, "metadata.namespace") ? str_at(obj, "metadata.namespace")
								  : "default";
		if (row_of(layout, obj, o, c + off, owned, &nowned, age, sizeof(age), num,
			   sizeof(num)) == 0) {
			rctl_table_free(t);
			return NULL;
		}
		rc = rctl_table_add_row(t, c);
		while (nowned > 0)
			free(owned[--nowned]);
		if (rc != 0) {
			rctl_table_free(t);
			return NULL;
		}
	}
	return t;
}
