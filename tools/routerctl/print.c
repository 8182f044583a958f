/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdbool.h>
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

/* An EndpointSlice's port numbers, as kubectl prints them ("80,443";
 * "<unset>" for none). */
static char *
slice_ports(const json_t *slice)
{
	const json_t *port;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	if (json_array_size(json_object_get(slice, "ports")) == 0)
		return strdup("<unset>");
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	json_array_foreach(json_object_get(slice, "ports"), i, port)
		fprintf(f, "%s%" JSON_INTEGER_FORMAT, i ? "," : "",
			json_integer_value(json_object_get(port, "port")));
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* kubectl's Ingress columns (printIngress): the rules' hosts ("*" for a
 * rule without one; three, then "+ N more..."), the status's addresses, and
 * "80" or "80, 443" with tls. */
static char *
ingress_hosts(const json_t *ing)
{
	const json_t *rules = at(ing, "spec.rules"), *r;
	char *buf = NULL;
	size_t len = 0, i, n = json_array_size(rules);
	FILE *f;

	if (n == 0)
		return strdup("*");
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	json_array_foreach(rules, i, r) {
		const char *h = json_string_value(json_object_get(r, "host"));

		if (i == 3) {
			fprintf(f, " + %zu more...", n - 3);
			break;
		}
		fprintf(f, "%s%s", i ? "," : "", h && h[0] ? h : "*");
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *
ingress_address(const json_t *ing)
{
	const json_t *e;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f = open_memstream(&buf, &len);

	if (f == NULL)
		return NULL;
	json_array_foreach(at(ing, "status.loadBalancer.ingress"), i, e) {
		const char *a = json_string_value(json_object_get(e, "ip"));

		if (a == NULL)
			a = json_string_value(json_object_get(e, "hostname"));
		fprintf(f, "%s%s", i ? "," : "", a ? a : "");
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static char *
ingress_ports(const json_t *ing)
{
	return strdup(json_array_size(at(ing, "spec.tls")) > 0 ? "80, 443" : "80");
}

static char *
slice_endpoints(const json_t *slice)
{
	const json_t *ep;
	char *buf = NULL;
	size_t len = 0, i, n = json_array_size(json_object_get(slice, "endpoints"));
	FILE *f;

	if (n == 0)
		return strdup("<unset>");
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	json_array_foreach(json_object_get(slice, "endpoints"), i, ep) {
		const char *a = json_string_value(json_array_get(json_object_get(ep, "addresses"), 0));

		if (i == 3) {
			fprintf(f, " + %zu more...", n - 3);
			break;
		}
		fprintf(f, "%s%s", i ? "," : "", a ? a : "");
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
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

static char *
service_selector(const json_t *svc)
{
	return join_map(at(svc, "spec.selector"));
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

/* Gateway API (gateway.networking.k8s.io): the status of a condition of a
 * conditions list ("Unknown" when absent), as kubectl's printer columns
 * show them. */
static const char *
condition_status(const json_t *conds, const char *type)
{
	const json_t *c;
	size_t i;

	json_array_foreach(conds, i, c)
		if (str_at(c, "type") != NULL && strcmp(str_at(c, "type"), type) == 0 &&
		    str_at(c, "status") != NULL)
			return str_at(c, "status");
	return "Unknown";
}

static char *
gw_class_accepted(const json_t *o)
{
	return strdup(condition_status(at(o, "status.conditions"), "Accepted"));
}

static char *
gw_programmed(const json_t *o)
{
	return strdup(condition_status(at(o, "status.conditions"), "Programmed"));
}

/* A route's hostnames ("*" when it has none: every host its listeners take). */
static char *
gw_route_hostnames(const json_t *o)
{
	const json_t *h;
	char *buf = NULL;
	size_t len = 0, i;
	FILE *f;

	if (json_array_size(at(o, "spec.hostnames")) == 0)
		return strdup("*");
	f = open_memstream(&buf, &len);
	if (f == NULL)
		return NULL;
	json_array_foreach(at(o, "spec.hostnames"), i, h)
		fprintf(f, "%s%s", i ? "," : "", json_is_string(h) ? json_string_value(h) : "");
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* "accepted/parents" over the route's status.parents[] (ours). */
static char *
gw_route_parents(const json_t *o)
{
	const json_t *p;
	size_t i, ok = 0;
	char *s = NULL;

	json_array_foreach(at(o, "status.parents"), i, p)
		ok += strcmp(condition_status(json_object_get(p, "conditions"), "Accepted"), "True") == 0;
	if (asprintf(&s, "%zu/%zu", ok, json_array_size(at(o, "status.parents"))) < 0)
		return NULL;
	return s;
}

/* The listeners' attached routes, summed. */
static char *
gw_attached(const json_t *o)
{
	const json_t *l;
	size_t i;
	json_int_t n = 0;
	char *s = NULL;

	json_array_foreach(at(o, "status.listeners"), i, l)
		n += json_integer_value(json_object_get(l, "attachedRoutes"));
	if (asprintf(&s, "%lld", (long long)n) < 0)
		return NULL;
	return s;
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
	LAYOUT_ENDPOINTSLICE,
	LAYOUT_INGRESS,
	LAYOUT_INGRESSCLASS,
	LAYOUT_INGRESSROUTE,
	LAYOUT_CONTOUR_ROUTE,
	LAYOUT_ROUTEGROUP,
	LAYOUT_SECRET,
	LAYOUT_NAMESPACE,
	LAYOUT_GATEWAYCLASS,
	LAYOUT_GATEWAY,
	LAYOUT_GATEWAY_ROUTE, /* HTTPRoute, GRPCRoute, TLSRoute */
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
	if (strcmp(kind, "EndpointSlice") == 0)
		return LAYOUT_ENDPOINTSLICE;
	if (strcmp(kind, "Ingress") == 0)
		return LAYOUT_INGRESS;
	if (strcmp(kind, "IngressClass") == 0)
		return LAYOUT_INGRESSCLASS;
	if (strcmp(kind, "IngressRoute") == 0)
		return LAYOUT_INGRESSROUTE;
	if (strcmp(kind, "RouteGroup") == 0)
		return LAYOUT_ROUTEGROUP;
	if (strcmp(kind, "Secret") == 0)
		return LAYOUT_SECRET;
	if (strcmp(kind, "Namespace") == 0)
		return LAYOUT_NAMESPACE;
	if (strcmp(kind, "GatewayClass") == 0)
		return LAYOUT_GATEWAYCLASS;
	if (strcmp(kind, "Gateway") == 0)
		return LAYOUT_GATEWAY;
	if (strcmp(kind, "HTTPRoute") == 0 || strcmp(kind, "GRPCRoute") == 0 ||
	    strcmp(kind, "TLSRoute") == 0)
		return LAYOUT_GATEWAY_ROUTE;
	return LAYOUT_OTHER;
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

/* ------------------------------------------------- the columns of get -- */

/* What a cell that is not plain text needs: the row's AGE, room for a
 * number. */
struct cell_ctx {
	const char *age;
	char num[32];
};

/*
 * One column of a kind's table: its header, when it is shown, and its
 * cell: the string at `path` (`none` when it is absent, and when it is
 * empty too if `empty_is_none`), or what `show` gives (text that lives as
 * long as the row), or what `make` gives (malloc'd, freed after the row).
 */
enum col_when { COL_ALWAYS, COL_WIDE };
struct column {
	const char *header;
	enum col_when when;
	const char *path;
	const char *none;
	bool empty_is_none;
	const char *(*show)(const json_t *obj, struct cell_ctx *cx);
	char *(*make)(const json_t *obj);
};

static const char *
show_age(const json_t *obj, struct cell_ctx *cx)
{
	(void)obj;
	return cx->age;
}

static const char *
show_router_routes(const json_t *obj, struct cell_ctx *cx)
{
	const json_t *v = at(obj, "status.routes");

	snprintf(cx->num, sizeof(cx->num), "%" JSON_INTEGER_FORMAT,
		 json_is_integer(v) ? json_integer_value(v) : 0);
	return cx->num;
}

static const char *
show_rg_valid(const json_t *obj, struct cell_ctx *cx)
{
	const json_t *v = at(obj, "status.valid");

	(void)cx;
	return json_is_boolean(v) ? (json_is_true(v) ? "true" : "false") : "";
}

static const char *
show_rg_errors(const json_t *obj, struct cell_ctx *cx)
{
	snprintf(cx->num, sizeof(cx->num), "%zu", json_array_size(at(obj, "status.errors")));
	return cx->num;
}

static const char *
show_secret_data(const json_t *obj, struct cell_ctx *cx)
{
	snprintf(cx->num, sizeof(cx->num), "%zu", rctl_secret_data_count(obj));
	return cx->num;
}

static const char *
show_ir_first_route(const json_t *obj, struct cell_ctx *cx)
{
	(void)cx;
	return or_empty(str_at(json_array_get(at(obj, "spec.routes"), 0), "match"));
}

static char *
make_router_vips(const json_t *obj)
{
	return join_list(at(obj, "spec.vips"));
}

static char *
make_route_selector(const json_t *obj)
{
	return selector_text(at(obj, "spec.routeSelector"));
}

static char *
make_namespace_selector(const json_t *obj)
{
	return selector_text(at(obj, "spec.namespaceSelector"));
}

#define AGE { "AGE", COL_ALWAYS, NULL, NULL, false, show_age, NULL }
#define AGE_WIDE { "AGE", COL_WIDE, NULL, NULL, false, show_age, NULL }
#define TEXT(h, p) { h, COL_ALWAYS, p, "", false, NULL, NULL }
#define TEXT_OR(h, p, none) { h, COL_ALWAYS, p, none, true, NULL, NULL }
#define SHOW(h, f) { h, COL_ALWAYS, NULL, NULL, false, f, NULL }
#define MAKE(h, f) { h, COL_ALWAYS, NULL, NULL, false, NULL, f }
#define MAKE_WIDE(h, f) { h, COL_WIDE, NULL, NULL, false, NULL, f }
#define END { NULL, COL_ALWAYS, NULL, NULL, false, NULL, NULL }

/* Each kind's columns after NAME (and NAMESPACE before it), by layout:
 * oc's and kubectl's, Contour's and Skipper's CRD printer columns. */
static const struct column *const columns[] = {
	/* oc has no AGE for routes; -o wide adds it for us. */
	[LAYOUT_ROUTE] = (const struct column[]){ MAKE("HOST/PORT", rctl_route_host),
						  TEXT("PATH", "spec.path"),
						  MAKE("SERVICES", rctl_route_services),
						  MAKE("PORT", rctl_route_port),
						  MAKE("TERMINATION", rctl_route_termination),
						  TEXT_OR("WILDCARD", "spec.wildcardPolicy", "None"),
						  AGE_WIDE, END },
	/* A fleet's routes carry status.phase (control/fleet/fleet.h). */
	[LAYOUT_ROUTE_FLEET] = (const struct column[]){ MAKE("HOST/PORT", rctl_route_host),
							TEXT("PATH", "spec.path"),
							MAKE("SERVICES", rctl_route_services),
							MAKE("PORT", rctl_route_port),
							MAKE("TERMINATION", rctl_route_termination),
							TEXT_OR("WILDCARD", "spec.wildcardPolicy", "None"),
							TEXT("PHASE", "status.phase"),
							{ "DNS", COL_ALWAYS, "status.dns", "<none>", false,
							  NULL, NULL },
							AGE_WIDE, END },
	[LAYOUT_ROUTER] = (const struct column[]){ TEXT("DNS", "spec.dns"),
						   MAKE("VIPS", make_router_vips),
						   SHOW("ROUTES", show_router_routes),
						   TEXT_OR("DESCRIPTION", "spec.description", "<none>"),
						   AGE,
						   MAKE_WIDE("ROUTE SELECTOR", make_route_selector),
						   MAKE_WIDE("NAMESPACE SELECTOR", make_namespace_selector),
						   END },
	[LAYOUT_ROUTEBINDING] = (const struct column[]){ TEXT("ROUTE", "spec.routeName"),
							 TEXT("ROUTER", "spec.routerName"),
							 TEXT("DNS", "spec.dns"), AGE, END },
	[LAYOUT_SERVICE] = (const struct column[]){ { "TYPE", COL_ALWAYS, "spec.type", "ClusterIP",
						      false, NULL, NULL },
						    TEXT_OR("CLUSTER-IP", "spec.clusterIP", "<none>"),
						    MAKE("PORT(S)", rctl_service_ports), AGE,
						    MAKE_WIDE("SELECTOR", service_selector), END },
	[LAYOUT_ENDPOINTS] = (const struct column[]){ MAKE("ENDPOINTS", rctl_endpoints_list), AGE,
						      END },
	/* kubectl's: ports by number, the first addresses of the endpoints */
	[LAYOUT_ENDPOINTSLICE] = (const struct column[]){ TEXT("ADDRESSTYPE", "addressType"),
							  MAKE("PORTS", slice_ports),
							  MAKE("ENDPOINTS", slice_endpoints), AGE,
							  END },
	/* kubectl's */
	[LAYOUT_INGRESS] = (const struct column[]){ TEXT_OR("CLASS", "spec.ingressClassName", "<none>"),
						    MAKE("HOSTS", ingress_hosts),
						    MAKE("ADDRESS", ingress_address),
						    MAKE("PORTS", ingress_ports), AGE, END },
	[LAYOUT_INGRESSCLASS] = (const struct column[]){ TEXT("CONTROLLER", "spec.controller"),
							 TEXT_OR("PARAMETERS", "spec.parameters.name",
								 "<none>"),
							 AGE, END },
	/* Contour's CRD printer columns (no AGE among them). */
	[LAYOUT_INGRESSROUTE] = (const struct column[]){ TEXT("FQDN", "spec.virtualhost.fqdn"),
							 TEXT("TLS SECRET",
							      "spec.virtualhost.tls.secretName"),
							 SHOW("FIRST ROUTE", show_ir_first_route),
							 TEXT("STATUS", "status.currentStatus"),
							 TEXT("STATUS DESCRIPTION", "status.description"),
							 AGE_WIDE, END },
	[LAYOUT_CONTOUR_ROUTE] = (const struct column[]){ TEXT("HOST", "spec.host"),
							  TEXT("STATUS", "status.currentStatus"),
							  AGE_WIDE, END },
	[LAYOUT_ROUTEGROUP] = (const struct column[]){ MAKE("HOSTS", rctl_routegroup_hosts),
						       SHOW("VALID", show_rg_valid),
						       SHOW("ERRORS", show_rg_errors), AGE, END },
	[LAYOUT_SECRET] = (const struct column[]){ TEXT_OR("TYPE", "type", "Opaque"),
						   SHOW("DATA", show_secret_data), AGE, END },
	[LAYOUT_NAMESPACE] = (const struct column[]){ MAKE("LABELS", rctl_labels), AGE, END },
	/* The Gateway API CRDs' printer columns, and the routes' parents. */
	[LAYOUT_GATEWAYCLASS] = (const struct column[]){ TEXT("CONTROLLER", "spec.controllerName"),
							 MAKE("ACCEPTED", gw_class_accepted), AGE,
							 { "DESCRIPTION", COL_WIDE, "spec.description",
							   "<none>", true, NULL, NULL },
							 END },
	[LAYOUT_GATEWAY] = (const struct column[]){ TEXT("CLASS", "spec.gatewayClassName"),
						    MAKE("PROGRAMMED", gw_programmed),
						    MAKE("ROUTES", gw_attached), AGE, END },
	[LAYOUT_GATEWAY_ROUTE] = (const struct column[]){ MAKE("HOSTNAMES", gw_route_hostnames),
							  MAKE("ACCEPTED", gw_route_parents), AGE,
							  END },
	[LAYOUT_OTHER] = (const struct column[]){ AGE, END },
};

static bool
shown(const struct column *col, int wide)
{
	return col->when == COL_ALWAYS || wide;
}

/* One column's cell; a made one is added to owned. NULL: out of memory. */
static const char *
cell(const struct column *col, const json_t *obj, struct cell_ctx *cx, char **owned,
     size_t *nowned)
{
	const char *v;
	char *s;

	if (col->make != NULL) {
		if ((s = col->make(obj)) != NULL)
			owned[(*nowned)++] = s;
		return s;
	}
	if (col->show != NULL)
		return col->show(obj, cx);
	v = str_at(obj, col->path);
	return v == NULL || (col->empty_is_none && v[0] == '\0') ? col->none : v;
}

struct rctl_table *
rctl_get_table(const char *kind, const json_t *items, const struct rctl_get_opts *o)
{
	enum kind_layout layout = layout_of(kind, items);
	const struct column *cols = columns[layout], *col;
	const char *h[RCTL_MAX_COLS], *c[RCTL_MAX_COLS];
	char *owned[RCTL_MAX_COLS];
	size_t nh = 0, n, nowned = 0, i;
	struct rctl_table *t;
	const json_t *obj;
	char age[32];
	struct cell_ctx cx = { .age = age };
	/* Namespaces and Routers are not namespaced. */
	bool with_ns = o->with_namespace && layout != LAYOUT_NAMESPACE && layout != LAYOUT_ROUTER &&
		       layout != LAYOUT_INGRESSCLASS && layout != LAYOUT_GATEWAYCLASS;

	if (with_ns)
		h[nh++] = "NAMESPACE";
	h[nh++] = "NAME";
	for (col = cols; col->header != NULL; col++)
		if (shown(col, o->wide))
			h[nh++] = col->header;
	t = rctl_table_new(nh, h);
	if (t == NULL)
		return NULL;
	json_array_foreach(items, i, obj) {
		const char *name = str_at(obj, "metadata.name");
		int rc = 0;

		n = 0;
		if (with_ns)
			c[n++] = str_at(obj, "metadata.namespace") ? str_at(obj, "metadata.namespace")
								  : "default";
		c[n++] = name ? name : "";
		rctl_format_age(str_at(obj, "metadata.creationTimestamp"), o->now, age, sizeof(age));
		for (col = cols; col->header != NULL && rc == 0; col++)
			if (shown(col, o->wide) && (c[n++] = cell(col, obj, &cx, owned, &nowned)) == NULL)
				rc = -1;
		if (rc == 0)
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
