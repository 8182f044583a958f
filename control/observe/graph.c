/* SPDX-License-Identifier: BSD-3-Clause */
/* The configuration as a Graphviz digraph (graph.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kinds/kinds.h"
#include "observe/graph.h"
#include "router.h"
#include "sy_addr.h"
#include "sy_generation.h"

/* A DOT string's contents: quotes and backslashes escaped, newlines as \n. */
static void
q(FILE *f, const char *s)
{
	for (; s != NULL && *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if (*s == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*s, f);
	}
}

static int
cmp_vhost(const void *a, const void *b)
{
	return strcmp((*(const struct sy_vhost *const *)a)->host,
		      (*(const struct sy_vhost *const *)b)->host);
}

static void
endpoint_id(const struct sy_endpoint *e, char *buf, size_t len)
{
	sy_addr_port_format(&e->addr, e->port, buf, len);
}

static void
pool_node(FILE *f, const struct sy_pool *p)
{
	uint32_t i;

	fprintf(f, "  \"pool:%p\" [shape=box3d, label=\"pool", (const void *)p);
	for (i = 0; i < p->n_services; i++) {
		fprintf(f, "\\n");
		q(f, p->services[i].ns);
		fputc('/', f);
		q(f, p->services[i].name);
		fprintf(f, " (weight %u)", p->services[i].weight);
	}
	if (p->needs_proxy)
		fprintf(f, "\\nneeds the proxy mode");
	if (p->backend_tls)
		fprintf(f, "\\nhttps: TLS to the backends");
	fprintf(f, "\"];\n");
	for (i = 0; i < p->n_endpoints; i++) {
		char ep[96];

		endpoint_id(&p->endpoints[i], ep, sizeof(ep));
		fprintf(f, "  \"ep:%s\" [shape=ellipse, label=\"%s\"];\n", ep, ep);
		fprintf(f, "  \"pool:%p\" -> \"ep:%s\" [label=\"weight %u\"];\n", (const void *)p, ep,
			p->endpoints[i].weight);
	}
}

static void
generation(FILE *f, struct sy_router *r)
{
	const struct sy_generation *g = sy_gen_acquire(&r->slot);
	const struct sy_vhost **vhs;
	const struct sy_vhost *vh;
	const struct sy_pool **seen;
	size_t i = 0, n = 0, n_seen = 0, k;
	uint32_t j;

	if (g == NULL)
		return;
	vhs = calloc(g->n_vhosts ? g->n_vhosts : 1, sizeof(*vhs));
	seen = calloc(g->n_rules ? g->n_rules : 1, sizeof(*seen));
	if (vhs == NULL || seen == NULL) {
		free(vhs);
		free(seen);
		return;
	}
	while ((vh = sy_gen_next_vhost(g, &i)) != NULL && n < g->n_vhosts)
		vhs[n++] = vh;
	qsort(vhs, n, sizeof(*vhs), cmp_vhost);
	for (k = 0; k < n; k++) {
		vh = vhs[k];
		fprintf(f, "  \"vhost:");
		q(f, vh->host);
		fprintf(f, "\" [shape=house, label=\"");
		q(f, vh->host[0] ? vh->host : "(default)");
		fprintf(f, "\\n%s, tls %s\"];\n", vh->mode == SY_MODE_SPLICE ? "splice" : "proxy",
			sy_tls_names[vh->tls]);
		for (j = 0; j < vh->n_rules; j++) {
			const struct sy_rule *rule = &vh->rules[j];

			fprintf(f, "  \"rule:");
			q(f, vh->host);
			fprintf(f, "#%u\" [shape=note, label=\"%s %s ", j, rule->kind, rule->object);
			fprintf(f, "\\n%s ", sy_match_names[rule->match]);
			q(f, rule->path);
			fprintf(f, "\\n%s\"];\n", sy_rule_action_name(rule));
			fprintf(f, "  \"vhost:");
			q(f, vh->host);
			fprintf(f, "\" -> \"rule:");
			q(f, vh->host);
			fprintf(f, "#%u\" [label=\"%u\"];\n", j, j + 1);
			if (rule->action != SY_ACTION_BACKEND || rule->pool == NULL)
				continue;
			fprintf(f, "  \"rule:");
			q(f, vh->host);
			fprintf(f, "#%u\" -> \"pool:%p\";\n", j, (const void *)rule->pool);
			for (i = 0; i < n_seen && seen[i] != rule->pool; i++)
				;
			if (i == n_seen && n_seen < g->n_rules) {
				seen[n_seen++] = rule->pool;
				pool_node(f, rule->pool);
			}
		}
	}
	free(vhs);
	free(seen);
}

/* IngressRoutes: each with its status; delegation edges; roots to their vhost. */
static void
delegation(FILE *f, struct sy_router *r)
{
	size_t n, i, k;
	struct sy_object **irs = sy_store_list(&r->store, &sy_kind_ingressroute_contour, NULL, &n);

	if (irs == NULL)
		return;
	if (n > 0)
		fprintf(f, "  subgraph cluster_delegation {\n    label=\"IngressRoute delegation\";\n");
	for (i = 0; i < n; i++) {
		const char *st = json_string_value(json_object_get(irs[i]->status, "currentStatus"));

		fprintf(f, "    \"ir:");
		q(f, irs[i]->ns);
		fputc('/', f);
		q(f, irs[i]->name);
		fprintf(f, "\" [shape=component, color=%s, label=\"IngressRoute ",
			st && strcmp(st, "valid") == 0 ? "darkgreen" : st && strcmp(st, "orphaned") == 0 ? "gray" : "red");
		q(f, irs[i]->ns);
		fputc('/', f);
		q(f, irs[i]->name);
		fprintf(f, "\\n");
		q(f, st ? st : "no status");
		fprintf(f, "\"];\n");
	}
	if (n > 0)
		fprintf(f, "  }\n");
	for (i = 0; i < n; i++) {
		const json_t *spec = json_object_get(irs[i]->obj, "spec");
		const char *fqdn = json_string_value(json_object_get(json_object_get(spec, "virtualhost"), "fqdn"));
		const json_t *rt;

		if (fqdn != NULL) {
			char *lower = strdup(fqdn);

			for (k = 0; lower != NULL && lower[k]; k++)
				lower[k] = (char)(lower[k] >= 'A' && lower[k] <= 'Z' ? lower[k] + 32 : lower[k]);
			fprintf(f, "  \"ir:");
			q(f, irs[i]->ns);
			fputc('/', f);
			q(f, irs[i]->name);
			fprintf(f, "\" -> \"vhost:");
			q(f, lower);
			fprintf(f, "\" [style=dashed, label=\"root of\"];\n");
			free(lower);
		}
		json_array_foreach(json_object_get(spec, "routes"), k, rt) {
			const json_t *del = json_object_get(rt, "delegate");
			const char *dn = json_string_value(json_object_get(del, "name"));
			const char *dns = json_string_value(json_object_get(del, "namespace"));

			if (dn == NULL)
				continue;
			fprintf(f, "  \"ir:");
			q(f, irs[i]->ns);
			fputc('/', f);
			q(f, irs[i]->name);
			fprintf(f, "\" -> \"ir:");
			q(f, dns ? dns : irs[i]->ns);
			fputc('/', f);
			q(f, dn);
			fprintf(f, "\" [label=\"delegates ");
			q(f, json_string_value(json_object_get(rt, "match")));
			fprintf(f, "\"];\n");
		}
	}
	free(irs);
}

char *
sy_graph_dot(struct sy_router *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (f == NULL)
		return NULL;
	fprintf(f, "digraph switchyard {\n  rankdir=LR;\n  node [fontname=\"Helvetica\"];\n"
		   "  edge [fontname=\"Helvetica\", fontsize=10];\n"
		   "  label=\"routerd %s, generation %lu\";\n",
		r->cfg.router_name, (unsigned long)r->gen_id);
	generation(f, r);
	delegation(f, r);
	fprintf(f, "}\n");
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
