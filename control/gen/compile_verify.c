/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Checking an incremental compile against a full one (SY_COMPILE_VERIFY=1,
 * set by the integration and conformance tests): both must give the same
 * vhosts, rules and pools, and every object the same status. A difference
 * means a scope was not closed (control/gen/scope.c): it is logged and routerd
 * aborts, so the test that caused it fails.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_log.h>

#include "gen/compile.h"

static int
cmp_vhost(const void *a, const void *b)
{
	return strcmp((*(const struct sy_vhost *const *)a)->host,
		      (*(const struct sy_vhost *const *)b)->host);
}

static void
dump_pool(FILE *f, const struct sy_pool *p)
{
	uint32_t i;

	fprintf(f, "  pool strategy=%d total=%llu hc=%s needs_proxy=%d backend_tls=%d\n",
		(int)p->strategy, (unsigned long long)p->total_weight,
		p->hc ? p->hc->path : "-", (int)p->needs_proxy, (int)p->backend_tls);
	for (i = 0; i < p->n_services; i++) {
		const struct sy_url_backend *ub = p->services[i].urls;
		uint32_t k;

		fprintf(f, "   svc %s/%s w=%u eps=%u problem=%s\n", p->services[i].ns,
			p->services[i].name, p->services[i].weight, p->services[i].n_endpoints,
			p->services[i].problem ? p->services[i].problem : "-");
		for (k = 0; ub != NULL && k < ub->n_urls; k++)
			fprintf(f, "    url %d %s %s\n", (int)ub->type,
				ub->algorithm ? ub->algorithm : "-", ub->urls[k]);
	}
	for (i = 0; i < p->n_endpoints; i++) {
		char a[64];

		sy_addr_format(&p->endpoints[i].addr, a, sizeof(a));
		fprintf(f, "   ep %s:%u svc=%u w=%u tls=%d\n", a, p->endpoints[i].port,
			p->endpoints[i].service, p->endpoints[i].weight, (int)p->endpoints[i].tls);
	}
}

/* Everything a lookup or `resolve` can see, in a stable order. malloc'd. */
static char *
dump_generation(const struct sy_generation *g)
{
	const struct sy_vhost **all = calloc(g->n_vhosts + 1, sizeof(*all));
	const struct sy_vhost *vh;
	size_t i = 0, n = 0, len;
	char *text = NULL;
	FILE *f = open_memstream(&text, &len);
	uint32_t j, k;

	if (all == NULL || f == NULL) {
		free(all);
		if (f != NULL)
			fclose(f);
		free(text);
		return NULL;
	}
	while ((vh = sy_gen_next_vhost(g, &i)) != NULL && n < g->n_vhosts)
		all[n++] = vh;
	qsort(all, n, sizeof(*all), cmp_vhost);
	fprintf(f, "vhosts %u (wildcards %u, deep %u, default %u) rules %u no_route %u\n", g->n_vhosts,
		g->n_wildcard_vhosts, g->n_deep_wildcard_vhosts, g->n_default_vhosts, g->n_rules,
		g->no_route_status);
	for (i = 0; i < n; i++) {
		vh = all[i];
		fprintf(f, "vhost '%s' tls=%d mode=%d insecure=%d/%u secret=%s min=%u first_path=%d deep=%d\n",
			vh->host, (int)vh->tls, (int)vh->mode, (int)vh->insecure,
			vh->insecure_status, vh->term && vh->term->secret ? vh->term->secret : "-",
			vh->min_tls_version, (int)vh->bind_by_first_path, (int)vh->wild_deep);
		for (j = 0; j < vh->n_rules; j++) {
			const struct sy_rule *r = &vh->rules[j];

			fprintf(f, " rule %d '%s' methods=%u action=%d status=%u loc=%s body=%s %s %s\n",
				(int)r->match, r->path, r->methods, (int)r->action, r->status,
				sy_rule_location(r) ? sy_rule_location(r) : "-",
				sy_rule_body(r) ? sy_rule_body(r) : "-", r->kind,
				r->object);
			for (k = 0; k < r->n_preds; k++)
				fprintf(f, "  pred %d %s %s %g\n", (int)r->more->preds[k].type,
					r->more->preds[k].name ? r->more->preds[k].name : "-",
					r->more->preds[k].value ? r->more->preds[k].value : "-",
					r->more->preds[k].fraction);
			for (k = 0; k < r->n_filters; k++)
				fprintf(f, "  filter %s %s\n", r->more->filters[k].name, r->more->filters[k].args);
			if (r->action == SY_ACTION_BACKEND)
				dump_pool(f, r->pool);
			for (k = 0; r->more != NULL && k < r->more->n_mirrors; k++) {
				fprintf(f, "  mirror %u\n", r->more->mirrors[k].per_10k);
				dump_pool(f, r->more->mirrors[k].pool);
			}
		}
	}
	fclose(f);
	free(all);
	return text;
}

/* Statuses without the times a compile stamps on what it processed. */
static char *
dump_status(const struct sy_object *o)
{
	json_t *s = o->status ? json_deep_copy(o->status) : NULL;
	char *text;

	if (s == NULL)
		return strdup("null");
	json_object_del(s, "lastProcessTime");
	text = json_dumps(s, JSON_SORT_KEYS | JSON_COMPACT);
	json_decref(s);
	return text;
}

/* The first line where a and b differ, for the log. */
static void
log_first_difference(const char *what, const char *a, const char *b)
{
	size_t line = 1;

	while (*a != '\0' && *a == *b) {
		if (*a == '\n')
			line++;
		a++;
		b++;
	}
	RTE_LOG(ERR, USER1, "compile verify: %s differ at line %zu: incremental \"%.200s\" vs full "
			    "\"%.200s\"\n", what, line, a, b);
}

struct sy_status_snapshot {
	struct sy_object **objs;
	json_t **status;
	size_t n;
};

struct sy_status_snapshot *
sy_compile_verify_prepare(struct sy_store *st)
{
	struct sy_status_snapshot *sn = calloc(1, sizeof(*sn));
	size_t i;

	if (sn == NULL)
		return NULL;
	sn->objs = sy_store_list(st, NULL, NULL, &sn->n);
	sn->status = calloc(sn->n + 1, sizeof(*sn->status));
	if (sn->objs == NULL || sn->status == NULL) {
		free(sn->objs);
		free(sn->status);
		free(sn);
		return NULL;
	}
	for (i = 0; i < sn->n; i++)
		sn->status[i] = sn->objs[i]->status ? json_deep_copy(sn->objs[i]->status) : NULL;
	return sn;
}

static void
snapshot_free(struct sy_status_snapshot *sn)
{
	size_t i;

	for (i = 0; i < sn->n; i++)
		json_decref(sn->status[i]);
	free(sn->status);
	free(sn->objs);
	free(sn);
}

void
sy_compile_verify(struct sy_store *st, const struct sy_compile_opts *opts,
		  const struct sy_generation *g, struct sy_status_snapshot *sn)
{
	size_t n = 0, i;
	struct sy_object **objs = sy_store_list(st, NULL, NULL, &n);
	char **incr = calloc(n + 1, sizeof(*incr));
	struct sy_generation *full;
	char *a, *b;
	bool bad = false;

	if (objs == NULL || incr == NULL || sn == NULL) {
		free(objs);
		free(incr);
		if (sn != NULL)
			snapshot_free(sn);
		return;
	}
	for (i = 0; i < n; i++)
		incr[i] = dump_status(objs[i]);
	/* The full compile starts from the statuses the incremental one started
	 * from: messages depend on them ("replaced by older route"). The
	 * snapshot was taken after the change was stored, so it lists the same
	 * objects. */
	for (i = 0; i < sn->n; i++) {
		json_decref(sn->objs[i]->status);
		sn->objs[i]->status = sn->status[i];
		sn->status[i] = NULL;
	}
	if (g == NULL) {
		/* The incremental compile gave up: the full one runs next. */
		for (i = 0; i < n; i++)
			free(incr[i]);
		free(incr);
		free(objs);
		snapshot_free(sn);
		return;
	}
	full = sy_compile(st, opts, g->id);
	for (i = 0; i < n && full != NULL; i++) {
		char *after = dump_status(objs[i]);

		if (incr[i] && after && strcmp(incr[i], after) != 0) {
			RTE_LOG(ERR, USER1, "compile verify: status of %s %s/%s: incremental %s, "
					    "full %s\n", objs[i]->kind->kind, objs[i]->ns,
				objs[i]->name, incr[i], after);
			bad = true;
		}
		free(after);
	}
	a = dump_generation(g);
	b = full ? dump_generation(full) : NULL;
	if (a != NULL && b != NULL && strcmp(a, b) != 0) {
		log_first_difference("generations", a, b);
		bad = true;
	}
	free(a);
	free(b);
	for (i = 0; i < n; i++)
		free(incr[i]);
	free(incr);
	free(objs);
	snapshot_free(sn);
	sy_generation_free(full);
	if (bad)
		abort();
}
