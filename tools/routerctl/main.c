/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routerctl: the command-line client of routerd's control socket
 * (docs/protocol.md). It parses the command line, builds one request,
 * and turns the reply into kubectl-like output. Exit status: 0 done,
 * 1 the router rejected the request, 2 usage or connection problem.
 */
#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "apply.h"
#include "client.h"
#include "describe.h"
#include "input.h"
#include "print.h"
#include "report.h"
#include "top.h"
#include "yaml_emit.h"

#define EXIT_REJECTED 1
#define EXIT_USAGE 2

#define DEFAULT_SOCKET "/run/switchyard/routerd.sock"
#define MAX_ARGS 8

enum opt_bit {
	OPT_FILE = 1 << 0,
	OPT_NAMESPACE = 1 << 1,
	OPT_OUTPUT = 1 << 2,
	OPT_METHOD = 1 << 3,
	OPT_HEADER = 1 << 4,
	OPT_ALL_NS = 1 << 5,
};

struct cli {
	const char *socket;
	const char *file;
	const char *ns;
	const char *output;
	const char *method;
	json_t *headers;
	json_t *objects; /* apply: parsed before connecting */
	double started;  /* apply: when reading the file began (monotonic s) */
	unsigned seen; /* enum opt_bit of the options given */
	const char *args[MAX_ARGS];
	size_t nargs;
};

struct command {
	const char *name;
	/* Work that needs no router (reading files), done first so that a bad
	 * file is reported even when the router is down. May be NULL. */
	int (*prepare)(struct cli *cli);
	int (*run)(struct rctl_client *c, struct cli *cli);
	unsigned opts;		/* options the command accepts */
	const char *outputs[5]; /* accepted -o values */
	size_t min_args, max_args;
	const char *synopsis;
};

static const char *prog = "routerctl";

static void __attribute__((format(printf, 1, 2)))
errmsg(const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "%s: ", prog);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/* Every error of a rejected request, one line each, so that a failed apply
 * of many objects shows all the problems at once. */
static int
print_rejection(const json_t *reply)
{
	const json_t *errors = json_object_get(reply, "errors"), *e;
	size_t i;

	if (json_array_size(errors) == 0) {
		errors = json_pack("[O]", json_object_get(reply, "error"));
		if (errors == NULL || json_is_null(json_array_get(errors, 0)))
			fprintf(stderr, "error: the router rejected the request\n");
	} else {
		json_incref((json_t *)errors);
	}
	json_array_foreach(errors, i, e) {
		const char *object = json_string_value(json_object_get(e, "object"));
		const char *field = json_string_value(json_object_get(e, "field"));
		const char *msg = json_string_value(json_object_get(e, "message"));
		const char *code = json_string_value(json_object_get(e, "code"));

		if (!json_is_object(e))
			continue;
		fprintf(stderr, "error: ");
		if (object != NULL && object[0] != '\0')
			fprintf(stderr, "%s: ", object);
		if (field != NULL && field[0] != '\0')
			fprintf(stderr, "%s: ", field);
		fprintf(stderr, "%s\n", msg ? msg : code ? code : "rejected");
	}
	json_decref((json_t *)errors);
	return EXIT_REJECTED;
}

/* Sends req (stolen) and returns the reply; on a transport problem prints
 * it and returns NULL. */
static json_t *
call(struct rctl_client *c, json_t *req)
{
	char err[512];
	json_t *reply;

	if (req == NULL) {
		errmsg("out of memory");
		return NULL;
	}
	reply = rctl_client_request(c, req, err, sizeof(err));
	json_decref(req);
	if (reply == NULL)
		errmsg("%s", err);
	return reply;
}

static int
print_structured(const json_t *v, const char *format)
{
	char err[256];

	if (strcmp(format, "yaml") == 0) {
		if (rctl_yaml_emit(stdout, v, err, sizeof(err)) < 0) {
			errmsg("%s", err);
			return EXIT_USAGE;
		}
		return 0;
	}
	/* kubectl indents JSON by four spaces. */
	if (json_dumpf(v, stdout, JSON_INDENT(4)) < 0) {
		errmsg("cannot write JSON");
		return EXIT_USAGE;
	}
	fputc('\n', stdout);
	return 0;
}

/* "Route" -> "route", for the `kind/name` labels kubectl prints. */
static void
lower_kind(const char *kind, char *buf, size_t len)
{
	size_t i;

	for (i = 0; kind[i] != '\0' && i + 1 < len; i++)
		buf[i] = (char)tolower((unsigned char)kind[i]);
	buf[i] = '\0';
}

static double
monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int
load_apply(struct cli *cli)
{
	const char *name = strcmp(cli->file, "-") == 0 ? "<stdin>" : cli->file;
	json_t *objects;
	char err[512];
	size_t len;
	char *buf;

	cli->started = monotonic_s();
	buf = rctl_read_file(cli->file, &len, err, sizeof(err));
	if (buf == NULL) {
		errmsg("%s", err);
		return EXIT_USAGE;
	}
	objects = rctl_parse_objects(name, buf, len, err, sizeof(err));
	free(buf);
	if (objects == NULL) {
		errmsg("%s", err);
		return EXIT_USAGE;
	}
	if (json_array_size(objects) == 0) {
		json_decref(objects);
		errmsg("%s: no objects to apply", name);
		return EXIT_USAGE;
	}
	cli->objects = objects;
	return 0;
}

static int
cmd_apply(struct rctl_client *c, struct cli *cli)
{
	json_t *reply, *res;
	char kind[64], err[512];
	size_t i;

	/* One request for every object: the router applies them all or none.
	 * A terminal on stderr watches it go (apply.h). */
	reply = rctl_apply_send(c, cli->objects, isatty(STDERR_FILENO) ? stderr : NULL, err,
				sizeof(err));
	if (reply == NULL) {
		errmsg("%s", err);
		return EXIT_USAGE;
	}
	if (!json_is_true(json_object_get(reply, "ok"))) {
		print_rejection(reply);
		json_decref(reply);
		return EXIT_REJECTED;
	}
	json_array_foreach(json_object_get(reply, "results"), i, res) {
		const char *k = json_string_value(json_object_get(res, "kind"));
		const char *n = json_string_value(json_object_get(res, "name"));
		const char *a = json_string_value(json_object_get(res, "action"));

		lower_kind(k ? k : "object", kind, sizeof(kind));
		printf("%s/%s %s\n", kind, n ? n : "?", a ? a : "applied");
	}
	rctl_apply_summary(stdout, reply, monotonic_s() - cli->started);
	json_decref(reply);
	return 0;
}

/* KIND NAME, or KIND/NAME as kubectl also accepts. Returns 0 or -1. */
static int
kind_and_name(struct cli *cli, char *kind, size_t klen, const char **name)
{
	const char *slash = strchr(cli->args[0], '/');

	*name = cli->nargs > 1 ? cli->args[1] : NULL;
	if (slash == NULL) {
		snprintf(kind, klen, "%s", cli->args[0]);
		return 0;
	}
	if (cli->nargs > 1 || slash == cli->args[0] || slash[1] == '\0' ||
	    (size_t)(slash - cli->args[0]) >= klen) {
		errmsg("expected KIND NAME or KIND/NAME, got \"%s\"", cli->args[0]);
		return -1;
	}
	memcpy(kind, cli->args[0], (size_t)(slash - cli->args[0]));
	kind[slash - cli->args[0]] = '\0';
	*name = slash + 1;
	return 0;
}

static int
print_get(const struct cli *cli, const json_t *reply, const char *kind, const char *name)
{
	struct rctl_get_opts o = { .with_namespace = cli->ns == NULL && name == NULL,
				   .wide = cli->output && strcmp(cli->output, "wide") == 0,
				   .now = time(NULL) };
	const json_t *items = json_object_get(reply, "items"), *obj;
	struct rctl_table *t;
	char lkind[64];
	json_t *list;
	size_t i;
	int rc;

	if (cli->output && (strcmp(cli->output, "json") == 0 || strcmp(cli->output, "yaml") == 0)) {
		if (name != NULL && json_array_size(items) == 1)
			return print_structured(json_array_get(items, 0), cli->output);
		list = json_pack("{s:s, s:s, s:o}", "apiVersion", "v1", "kind", "List", "items",
				 json_is_array(items) ? json_incref((json_t *)items) : json_array());
		if (list == NULL) {
			errmsg("out of memory");
			return EXIT_USAGE;
		}
		rc = print_structured(list, cli->output);
		json_decref(list);
		return rc;
	}
	if (cli->output && strcmp(cli->output, "name") == 0) {
		lower_kind(kind, lkind, sizeof(lkind));
		json_array_foreach(items, i, obj) {
			printf("%s/%s\n", lkind,
			       json_string_value(json_object_get(json_object_get(obj, "metadata"),
								 "name")));
		}
		return 0;
	}
	t = rctl_get_table(kind, items, &o);
	if (t == NULL) {
		errmsg("out of memory");
		return EXIT_USAGE;
	}
	rctl_table_print(t, stdout);
	if (rctl_table_rows(t) == 0) {
		fflush(stdout);
		if (cli->ns != NULL)
			fprintf(stderr, "No resources found in %s namespace.\n", cli->ns);
		else
			fprintf(stderr, "No resources found\n");
	}
	rctl_table_free(t);
	return 0;
}

static int
cmd_get(struct rctl_client *c, struct cli *cli)
{
	const char *name, *canon;
	json_t *req, *reply;
	char kind[128];
	int rc;

	if (kind_and_name(cli, kind, sizeof(kind), &name) < 0)
		return EXIT_USAGE;
	/* The protocol names one object by namespace and name; there is no
	 * "this name in every namespace" query to send. */
	if (name != NULL && (cli->seen & OPT_ALL_NS)) {
		errmsg("-A cannot be used with a NAME; use -n NS");
		return EXIT_USAGE;
	}
	req = json_pack("{s:s, s:s}", "op", "get", "kind", kind);
	if (req != NULL && (cli->ns != NULL || name != NULL))
		json_object_set_new(req, "namespace", json_string(cli->ns ? cli->ns : "default"));
	if (req != NULL && name != NULL)
		json_object_set_new(req, "name", json_string(name));
	reply = call(c, req);
	if (reply == NULL)
		return EXIT_USAGE;
	if (!json_is_true(json_object_get(reply, "ok"))) {
		rc = print_rejection(reply);
		json_decref(reply);
		return rc;
	}
	/* The router knows every alias; its canonical name picks the columns. */
	canon = json_string_value(json_object_get(reply, "kind"));
	/* Contour's Route also answers "Route": keep the group for the columns. */
	if (canon != NULL && strcmp(canon, "Route") == 0 && strstr(kind, "contour") != NULL)
		canon = "Route.contour.heptio.com";
	rc = print_get(cli, reply, canon ? canon : kind, name);
	json_decref(reply);
	return rc;
}

static int
cmd_delete(struct rctl_client *c, struct cli *cli)
{
	const char *name;
	char kind[128], lkind[128];
	json_t *reply;
	int rc;

	if (kind_and_name(cli, kind, sizeof(kind), &name) < 0)
		return EXIT_USAGE;
	if (name == NULL) {
		errmsg("delete needs a NAME: %s delete KIND NAME", prog);
		return EXIT_USAGE;
	}
	reply = call(c, json_pack("{s:s, s:s, s:s, s:s}", "op", "delete", "kind", kind,
				  "namespace", cli->ns ? cli->ns : "default", "name", name));
	if (reply == NULL)
		return EXIT_USAGE;
	if (!json_is_true(json_object_get(reply, "ok"))) {
		rc = print_rejection(reply);
		json_decref(reply);
		return rc;
	}
	lower_kind(kind, lkind, sizeof(lkind));
	printf("%s/%s deleted\n", lkind, name);
	json_decref(reply);
	return 0;
}

/* The Endpoints of each backend of an OpenShift Route, by service name; services
 * without Endpoints are left out (describe shows <none>). */
static json_t *
route_endpoints(struct rctl_client *c, const json_t *route)
{
	const json_t *spec = json_object_get(route, "spec"), *b;
	const char *ns = json_string_value(
		json_object_get(json_object_get(route, "metadata"), "namespace"));
	json_t *out = json_object(), *backends = json_array(), *reply;
	size_t i;

	if (out == NULL || backends == NULL) {
		json_decref(out);
		json_decref(backends);
		return NULL;
	}
	if (json_object_get(spec, "to") != NULL)
		json_array_append(backends, json_object_get(spec, "to"));
	json_array_foreach(json_object_get(spec, "alternateBackends"), i, b)
		json_array_append(backends, (json_t *)b);
	json_array_foreach(backends, i, b) {
		const char *name = json_string_value(json_object_get(b, "name"));

		if (name == NULL || json_object_get(out, name) != NULL)
			continue;
		reply = call(c, json_pack("{s:s, s:s, s:s, s:s}", "op", "get", "kind", "endpoints",
					  "namespace", ns ? ns : "default", "name", name));
		if (reply == NULL)
			break;
		if (json_is_true(json_object_get(reply, "ok")) &&
		    json_array_size(json_object_get(reply, "items")) == 1)
			json_object_set(out, name, json_array_get(json_object_get(reply, "items"), 0));
		json_decref(reply);
	}
	json_decref(backends);
	return out;
}

/* The items of a get (NULL when refused or unreachable): new reference. */
static json_t *
get_items(struct rctl_client *c, const char *kind, const char *ns)
{
	json_t *req = json_pack("{s:s, s:s}", "op", "get", "kind", kind);
	json_t *reply, *items;

	if (req != NULL && ns != NULL)
		json_object_set_new(req, "namespace", json_string(ns));
	reply = call(c, req);
	if (reply == NULL)
		return NULL;
	items = json_incref(json_object_get(reply, "items"));
	json_decref(reply);
	return items;
}

/* The fleet's part of describe (docs/operations.md, "Fleet"): for an OpenShift Route the
 * Routers that serve it and its final DNS name (the sharding proposal's "how
 * is a user notified of a route binding and final dns"); for a Router, the
 * routes bound to it. */
static int
describe_fleet(struct rctl_client *c, const json_t *obj)
{
	const char *kind = json_string_value(json_object_get(obj, "kind"));
	const char *api = json_string_value(json_object_get(obj, "apiVersion"));
	json_t *bindings, *routes;
	int rc = 0;

	if (kind == NULL || api == NULL || strncmp(api, "contour.heptio.com/", 19) == 0)
		return 0;
	if (strcmp(kind, "Route") == 0 &&
	    json_object_get(json_object_get(obj, "status"), "phase") != NULL) {
		const char *ns = json_string_value(
			json_object_get(json_object_get(obj, "metadata"), "namespace"));

		bindings = get_items(c, "routebindings", ns ? ns : "default");
		rc = rctl_describe_route_fleet(stdout, obj, bindings);
		json_decref(bindings);
	} else if (strcmp(kind, "Router") == 0) {
		bindings = get_items(c, "routebindings", NULL);
		routes = get_items(c, "routes", NULL);
		rc = rctl_describe_router_routes(stdout, obj, bindings, routes);
		json_decref(bindings);
		json_decref(routes);
	}
	return rc < 0 ? EXIT_USAGE : 0;
}

static int
cmd_describe(struct rctl_client *c, struct cli *cli)
{
	const char *name;
	json_t *reply, *obj, *eps = NULL;
	char kind[128];
	int rc;

	if (kind_and_name(cli, kind, sizeof(kind), &name) < 0)
		return EXIT_USAGE;
	if (name == NULL) {
		errmsg("describe needs a NAME: %s describe KIND NAME [-n NS]", prog);
		return EXIT_USAGE;
	}
	reply = call(c, json_pack("{s:s, s:s, s:s, s:s}", "op", "get", "kind", kind, "namespace",
				  cli->ns ? cli->ns : "default", "name", name));
	if (reply == NULL)
		return EXIT_USAGE;
	if (!json_is_true(json_object_get(reply, "ok"))) {
		rc = print_rejection(reply);
		json_decref(reply);
		return rc;
	}
	obj = json_array_get(json_object_get(reply, "items"), 0);
	if (obj == NULL) {
		errmsg("the router answered no object");
		json_decref(reply);
		return EXIT_REJECTED;
	}
	if (json_is_string(json_object_get(obj, "kind")) &&
	    strcmp(json_string_value(json_object_get(obj, "kind")), "Route") == 0)
		eps = route_endpoints(c, obj);
	rc = rctl_describe(stdout, obj, eps, time(NULL)) < 0 ? EXIT_USAGE : 0;
	if (rc == 0)
		rc = describe_fleet(c, obj);
	if (rc != 0)
		errmsg("cannot print the object");
	json_decref(eps);
	json_decref(reply);
	return rc;
}

/* Sends {"op": op} or the given request, then prints the reply either
 * structured (minus "ok", which the exit status already says) or through
 * the human printer. */
static int
query(struct rctl_client *c, struct cli *cli, json_t *req, int (*human)(FILE *, const json_t *))
{
	json_t *reply = call(c, req);
	int rc;

	if (reply == NULL)
		return EXIT_USAGE;
	if (!json_is_true(json_object_get(reply, "ok"))) {
		rc = print_rejection(reply);
		json_decref(reply);
		return rc;
	}
	if (cli->output != NULL) {
		json_object_del(reply, "ok");
		rc = print_structured(reply, cli->output);
	} else {
		rc = human(stdout, reply) < 0 ? EXIT_USAGE : 0;
		if (rc != 0)
			errmsg("cannot print the reply");
	}
	json_decref(reply);
	return rc;
}

static int
cmd_stats(struct rctl_client *c, struct cli *cli)
{
	return query(c, cli, json_pack("{s:s}", "op", "stats"), rctl_print_stats);
}

static int
cmd_status(struct rctl_client *c, struct cli *cli)
{
	return query(c, cli, json_pack("{s:s}", "op", "status"), rctl_print_status);
}

/* The Prometheus exposition, as the metrics endpoint serves it. */
static int
print_metrics(FILE *out, const json_t *reply)
{
	const char *text = json_string_value(json_object_get(reply, "text"));

	if (text == NULL)
		return -1;
	fputs(text, out);
	return ferror(out) ? -1 : 0;
}

static int
cmd_metrics(struct rctl_client *c, struct cli *cli)
{
	return query(c, cli, json_pack("{s:s}", "op", "metrics"), print_metrics);
}

/* graph's -o: "dot" (or none) prints the DOT text, "svg" pipes it through
 * graphviz's dot. Neither is a structured format, so cmd_graph takes it out of
 * cli before query() and print_graph reads it here. */
static const char *graph_format;

static int
print_graph(FILE *out, const json_t *reply)
{
	const char *dot = json_string_value(json_object_get(reply, "dot"));
	FILE *p;

	if (dot == NULL)
		return -1;
	if (graph_format == NULL || strcmp(graph_format, "dot") == 0) {
		fputs(dot, out);
		return ferror(out) ? -1 : 0;
	}
	fflush(out);
	p = popen("dot -Tsvg", "w");
	if (p == NULL || fputs(dot, p) < 0 || pclose(p) != 0) {
		errmsg("graphviz's dot could not draw the graph (apt-get install graphviz; "
		       "without -o svg the DOT text is printed)");
		return -1;
	}
	return 0;
}

static int
cmd_graph(struct rctl_client *c, struct cli *cli)
{
	graph_format = cli->output;
	cli->output = NULL;
	return query(c, cli, json_pack("{s:s}", "op", "graph"), print_graph);
}

/* top's -n is a count of frames, as top(1)'s (the command has no namespace). */
static int
cmd_top(struct rctl_client *c, struct cli *cli)
{
	unsigned long frames = 0;
	char err[512], *end;

	if (cli->ns != NULL) {
		errno = 0;
		frames = strtoul(cli->ns, &end, 10);
		if (errno != 0 || *end != '\0' || frames == 0 || cli->ns[0] == '-') {
			errmsg("top: -n needs a number of refreshes above 0, got \"%s\"", cli->ns);
			return EXIT_USAGE;
		}
	}
	if (rctl_top(c, stdout, frames, err, sizeof(err)) < 0) {
		errmsg("%s", err);
		return EXIT_USAGE;
	}
	return 0;
}

/* The zone text as it is, for a name server to load. */
static int
print_zone(FILE *out, const json_t *reply)
{
	const char *z = json_string_value(json_object_get(reply, "zone"));

	if (z == NULL)
		return -1;
	fputs(z, out);
	return ferror(out) ? -1 : 0;
}

static int
cmd_dns_zone(struct rctl_client *c, struct cli *cli)
{
	return query(c, cli,
		     json_pack("{s:s, s:s}", "op", "dns-zone", "router", cli->args[0]),
		     print_zone);
}

/* The live connection records; LIMIT (default the router's, 1000) at most. */
static int
cmd_conns(struct rctl_client *c, struct cli *cli)
{
	json_t *req = json_pack("{s:s}", "op", "conns");

	if (cli->nargs == 1) {
		char *end;
		long n = strtol(cli->args[0], &end, 10);

		if (*cli->args[0] == '\0' || *end != '\0' || n < 1) {
			errmsg("conns: LIMIT must be a whole number from 1, not '%s'", cli->args[0]);
			json_decref(req);
			return EXIT_USAGE;
		}
		json_object_set_new(req, "limit", json_integer(n));
	}
	return query(c, cli, req, rctl_print_conns);
}

static int
cmd_resolve(struct rctl_client *c, struct cli *cli)
{
	const char *url = cli->args[0];
	json_t *req;
	char *full = NULL;
	int rc;

	/* Like curl, a bare host[/path] means http. */
	if (strstr(url, "://") == NULL) {
		if (asprintf(&full, "http://%s", url) < 0) {
			errmsg("out of memory");
			return EXIT_USAGE;
		}
		url = full;
	}
	req = json_pack("{s:s, s:s, s:s, s:o}", "op", "resolve", "url", url, "method",
			cli->method ? cli->method : "GET", "headers",
			cli->headers ? json_incref(cli->headers) : json_object());
	free(full);
	rc = query(c, cli, req, rctl_print_resolve);
	return rc;
}

/* -H 'Name: value' into cli->headers. Names are case-insensitive in HTTP, so
 * they are lowercased; a repeated header is joined with ", " as RFC 9110
 * allows for list-valued fields. */
static int
add_header(struct cli *cli, const char *arg)
{
	const char *colon = strchr(arg, ':'), *value;
	char name[256];
	const char *old;
	char *joined;
	size_t i, n;

	if (colon == NULL || colon == arg || (size_t)(colon - arg) >= sizeof(name)) {
		errmsg("-H needs 'Name: value', got \"%s\"", arg);
		return -1;
	}
	n = (size_t)(colon - arg);
	for (i = 0; i < n; i++) {
		if (!isgraph((unsigned char)arg[i]) || strchr("()<>@,;\\\"/[]?={}", arg[i])) {
			errmsg("-H: \"%.*s\" is not a valid header name", (int)n, arg);
			return -1;
		}
		name[i] = (char)tolower((unsigned char)arg[i]);
	}
	name[n] = '\0';
	value = colon + 1;
	while (*value == ' ' || *value == '\t')
		value++;
	if (cli->headers == NULL && (cli->headers = json_object()) == NULL)
		return -1;
	old = json_string_value(json_object_get(cli->headers, name));
	if (old == NULL)
		return json_object_set_new(cli->headers, name, json_string(value));
	if (asprintf(&joined, "%s, %s", old, value) < 0)
		return -1;
	n = (size_t)json_object_set_new(cli->headers, name, json_string(joined));
	free(joined);
	return n ? -1 : 0;
}

static const struct command commands[] = {
	{ "apply", load_apply, cmd_apply, OPT_FILE, { NULL }, 0, 0, "apply -f FILE|-" },
	{ "get", NULL, cmd_get, OPT_NAMESPACE | OPT_OUTPUT | OPT_ALL_NS,
	  { "json", "yaml", "wide", "name", NULL }, 1, 2,
	  "get KIND [NAME] [-n NS | -A] [-o json|yaml|wide|name]" },
	{ "describe", NULL, cmd_describe, OPT_NAMESPACE, { NULL }, 1, 2,
	  "describe KIND NAME [-n NS]" },
	{ "delete", NULL, cmd_delete, OPT_NAMESPACE, { NULL }, 1, 2, "delete KIND NAME [-n NS]" },
	{ "stats", NULL, cmd_stats, OPT_OUTPUT, { "json", "yaml", NULL }, 0, 0, "stats [-o json|yaml]" },
	{ "resolve", NULL, cmd_resolve, OPT_OUTPUT | OPT_METHOD | OPT_HEADER, { "json", "yaml", NULL },
	  1, 1, "resolve URL [-X METHOD] [-H 'Name: value']... [-o json|yaml]" },
	{ "status", NULL, cmd_status, OPT_OUTPUT, { "json", "yaml", NULL }, 0, 0,
	  "status [-o json|yaml]" },
	{ "metrics", NULL, cmd_metrics, 0, { NULL }, 0, 0, "metrics" },
	{ "graph", NULL, cmd_graph, OPT_OUTPUT, { "dot", "svg", NULL }, 0, 0, "graph [-o dot|svg]" },
	{ "top", NULL, cmd_top, OPT_NAMESPACE, { NULL }, 0, 0, "top [-n REFRESHES]" },
	{ "dns-zone", NULL, cmd_dns_zone, OPT_OUTPUT, { "json", "yaml", NULL }, 1, 1,
	  "dns-zone ROUTER [-o json|yaml]   # the shard's zone file" },
	{ "conns", NULL, cmd_conns, OPT_OUTPUT, { "json", "yaml", NULL }, 0, 1,
	  "conns [LIMIT] [-o json|yaml]   # live connection records" },
};

#define N_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static void
usage(FILE *out)
{
	size_t i;

	fprintf(out, "usage: %s [-s SOCKET] COMMAND [ARGS] [OPTIONS]\n\ncommands:\n", prog);
	for (i = 0; i < N_COMMANDS; i++)
		fprintf(out, "  %s %s\n", prog, commands[i].synopsis);
	fprintf(out,
		"\noptions (before or after the arguments):\n"
		"  -s, --socket PATH        control socket (default $ROUTERCTL_SOCKET, else "
		DEFAULT_SOCKET ")\n"
		"  -f, --filename FILE      YAML or JSON objects to apply; - reads stdin\n"
		"  -n, --namespace NS       one namespace (get lists all namespaces without it);\n"
		"                           top: the number of refreshes, then exit\n"
		"  -A, --all-namespaces     every namespace (the default of get KIND)\n"
		"  -o, --output FORMAT      json, yaml, wide or name (get); json or yaml (others)\n"
		"  -X, --request METHOD     resolve: the request method (default GET)\n"
		"  -H, --header 'N: V'      resolve: a request header; repeatable\n"
		"  -h, --help               this help\n"
		"\nexit status: 0 ok, 1 rejected by the router, 2 usage or connection error\n");
}

static const char *
opt_name(unsigned bit)
{
	switch (bit) {
	case OPT_FILE:
		return "-f";
	case OPT_NAMESPACE:
		return "-n";
	case OPT_OUTPUT:
		return "-o";
	case OPT_METHOD:
		return "-X";
	case OPT_HEADER:
		return "-H";
	case OPT_ALL_NS:
		return "-A";
	}
	return "?";
}

/* Checks the parsed command line against what cmd accepts. */
static int
validate(const struct command *cmd, const struct cli *cli)
{
	unsigned bit;
	size_t i;

	for (bit = 1; bit <= OPT_ALL_NS; bit <<= 1) {
		if ((cli->seen & bit) && !(cmd->opts & bit)) {
			errmsg("%s does not take %s (usage: %s %s)", cmd->name, opt_name(bit), prog,
			       cmd->synopsis);
			return -1;
		}
	}
	if (cli->nargs - 1 < cmd->min_args || cli->nargs - 1 > cmd->max_args) {
		errmsg("wrong number of arguments (usage: %s %s)", prog, cmd->synopsis);
		return -1;
	}
	if ((cmd->opts & OPT_FILE) && cli->file == NULL) {
		errmsg("%s needs -f FILE (usage: %s %s)", cmd->name, prog, cmd->synopsis);
		return -1;
	}
	if ((cli->seen & OPT_ALL_NS) && cli->ns != NULL) {
		errmsg("-A and -n cannot be used together");
		return -1;
	}
	if (cli->output != NULL) {
		for (i = 0; cmd->outputs[i] != NULL; i++)
			if (strcmp(cli->output, cmd->outputs[i]) == 0)
				return 0;
		errmsg("%s: unknown output format \"%s\" (usage: %s %s)", cmd->name, cli->output,
		       prog, cmd->synopsis);
		return -1;
	}
	return 0;
}

/* Returns -1 on a usage error, 1 when help was asked for, else 0. */
static int
parse_args(int argc, char **argv, struct cli *cli)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "filename", required_argument, NULL, 'f' },
		{ "namespace", required_argument, NULL, 'n' },
		{ "output", required_argument, NULL, 'o' },
		{ "request", required_argument, NULL, 'X' },
		{ "header", required_argument, NULL, 'H' },
		{ "all-namespaces", no_argument, NULL, 'A' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	opterr = 0;
	/* The leading '-' returns positional arguments in place (as 1), so
	 * options may come before or after them even under POSIXLY_CORRECT. */
	while ((opt = getopt_long(argc, argv, "-:s:f:n:o:X:H:Ah", longopts, NULL)) != -1) {
		switch (opt) {
		case 1:
			if (cli->nargs == MAX_ARGS) {
				errmsg("too many arguments");
				return -1;
			}
			cli->args[cli->nargs++] = optarg;
			break;
		case 's':
			cli->socket = optarg;
			break;
		case 'f':
			cli->file = optarg;
			cli->seen |= OPT_FILE;
			break;
		case 'n':
			if (optarg[0] == '\0') {
				errmsg("-n needs a namespace");
				return -1;
			}
			cli->ns = optarg;
			cli->seen |= OPT_NAMESPACE;
			break;
		case 'o':
			cli->output = optarg;
			cli->seen |= OPT_OUTPUT;
			break;
		case 'X':
			cli->method = optarg;
			cli->seen |= OPT_METHOD;
			break;
		case 'H':
			if (add_header(cli, optarg) < 0)
				return -1;
			cli->seen |= OPT_HEADER;
			break;
		case 'A':
			cli->seen |= OPT_ALL_NS;
			break;
		case 'h':
			return 1;
		case ':':
			if (optopt != 0)
				errmsg("-%c needs an argument", optopt);
			else
				errmsg("%s needs an argument", argv[optind - 1]);
			return -1;
		default:
			/* optopt names a bad short option even inside "-Az". */
			if (optopt != 0)
				errmsg("unknown option -%c", optopt);
			else
				errmsg("unknown option %s", argv[optind - 1]);
			return -1;
		}
	}
	/* Whatever follows "--" is positional. */
	for (; optind < argc; optind++) {
		if (cli->nargs == MAX_ARGS) {
			errmsg("too many arguments");
			return -1;
		}
		cli->args[cli->nargs++] = argv[optind];
	}
	return 0;
}

int
main(int argc, char **argv)
{
	struct cli cli = { 0 };
	const struct command *cmd = NULL;
	struct rctl_client client;
	char err[512];
	size_t i;
	int rc;

	rc = parse_args(argc, argv, &cli);
	if (rc != 0 || cli.nargs == 0 || strcmp(cli.args[0], "help") == 0) {
		json_decref(cli.headers);
		if (rc == 1 || (rc == 0 && cli.nargs > 0)) {
			usage(stdout);
			return 0;
		}
		if (rc == 0)
			usage(stderr);
		return EXIT_USAGE;
	}
	for (i = 0; i < N_COMMANDS; i++)
		if (strcmp(cli.args[0], commands[i].name) == 0)
			cmd = &commands[i];
	if (cmd == NULL) {
		errmsg("unknown command \"%s\" (try %s --help)", cli.args[0], prog);
		json_decref(cli.headers);
		return EXIT_USAGE;
	}
	if (validate(cmd, &cli) < 0) {
		json_decref(cli.headers);
		return EXIT_USAGE;
	}
	/* The command's own arguments, without its name. */
	memmove(cli.args, cli.args + 1, (cli.nargs - 1) * sizeof(cli.args[0]));
	cli.nargs--;

	if (cmd->prepare != NULL && (rc = cmd->prepare(&cli)) != 0) {
		json_decref(cli.headers);
		return rc;
	}
	if (cli.socket == NULL) {
		cli.socket = getenv("ROUTERCTL_SOCKET");
		if (cli.socket == NULL || cli.socket[0] == '\0')
			cli.socket = DEFAULT_SOCKET;
	}
	if (rctl_client_connect(&client, cli.socket, err, sizeof(err)) < 0) {
		errmsg("%s", err);
		json_decref(cli.headers);
		json_decref(cli.objects);
		return EXIT_USAGE;
	}
	rc = cmd->run(&client, &cli);
	rctl_client_close(&client);
	json_decref(cli.headers);
	json_decref(cli.objects);
	if (fflush(stdout) != 0 || ferror(stdout)) {
		errmsg("cannot write the output");
		return EXIT_USAGE;
	}
	return rc;
}
