/* SPDX-License-Identifier: BSD-3-Clause */
/* Traffic per route object: slots, bases, the scrape (route_stats.h). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "observe/metrics.h"
#include "gen/gen_build.h"
#include "observe/route_stats.h"
#include "sy_dataplane.h"
#include "sy_generation.h"

static const void *
worker_ctrs(unsigned w)
{
	return sy_dp_route_ctrs(w);
}

/* "Kind ns/name": the name of a rule's object's slot. */
static void
object_key(const struct sy_rule *rule, char *key, size_t len)
{
	snprintf(key, len, "%s %s", rule->kind ? rule->kind : "", rule->object);
}

void
sy_route_stats_plan(struct sy_route_stats *rs, const struct sy_generation *g,
		    const struct sy_generation *prev)
{
	const struct sy_vhost *vh;
	char key[320];
	size_t vi;
	uint32_t r;

	/* The active flows' two counters are the last words: not based, as
	 * flows still bound to a freed slot close on it (the gauge is what
	 * is bound now). */
	if (rs->slots.n == 0 &&
	    sy_stat_slots_init(&rs->slots, SY_ROUTE_STAT_SLOTS, sizeof(struct sy_route_ctr) / 8,
			       worker_ctrs, offsetof(struct sy_route_ctr, flows_opened) / 8) < 0)
		return;
	rs->plan++;
	/* What g added takes its objects' slots first, so that an object
	 * whose vhost was rebuilt keeps its slot; then what g dropped gives
	 * its references back. */
	for (vi = 0; (vh = sy_gen_next_added(g, &vi)) != NULL;) {
		for (r = 0; r < vh->n_rules; r++) {
			/* A vhost g added: no worker reads it yet. */
			struct sy_rule *rule = (struct sy_rule *)&vh->rules[r];
			const char *host = vh->host ? vh->host : "";
			uint16_t slot;

			if (rule->object == NULL) {
				rule->stat_slot = 0;
				continue;
			}
			object_key(rule, key, sizeof(key));
			slot = sy_stat_slots_take(&rs->slots, key);
			rule->stat_slot = slot;
			if (slot == 0) {
				rs->unslotted++;
				continue;
			}
			if (rs->slots.refs[slot] == 1) {
				/* A new slot (an existing one has a reference
				 * from the live generation too): its vhost. */
				free(rs->host[slot]);
				rs->host[slot] = strdup(host);
			} else if (rs->host[slot] != NULL && strcmp(rs->host[slot], host) != 0) {
				/* Where it goes if it leaves the one it has. */
				rs->moved_to[slot] = host;
				rs->moved_plan[slot] = rs->plan;
			}
		}
	}
	for (vi = 0; (vh = sy_gen_next_dropped(g, prev, &vi)) != NULL;) {
		for (r = 0; r < vh->n_rules; r++) {
			const struct sy_rule *rule = &vh->rules[r];
			uint16_t slot = rule->stat_slot;

			if (rule->object == NULL)
				continue;
			if (slot == 0) {
				if (rs->unslotted > 0)
					rs->unslotted--;
				continue;
			}
			sy_stat_slots_put(&rs->slots, slot);
			/* The object left the vhost it is labelled with but
			 * stays on another: that one names it now. */
			if (rs->slots.refs[slot] > 0 && rs->moved_plan[slot] == rs->plan &&
			    rs->host[slot] != NULL && vh->host != NULL &&
			    strcmp(rs->host[slot], vh->host) == 0) {
				char *h = strdup(rs->moved_to[slot]);

				if (h != NULL) {
					free(rs->host[slot]);
					rs->host[slot] = h;
				}
			}
		}
	}
	/* Objects gone from the generation: their slots are free again. */
	sy_stat_slots_end(&rs->slots);
}

/* "Kind ns/name" -> its three labels. */
static void
labels(FILE *f, const struct sy_route_stats *rs, unsigned s)
{
	const char *k = rs->slots.key[s], *sp = strchr(k, ' '), *sl = sp ? strchr(sp + 1, '/') : NULL;

	char part[256];

	if (sp == NULL || sl == NULL) {
		fputs("route=\"", f);
		sy_prom_label(f, k);
	} else {
		snprintf(part, sizeof(part), "%.*s", (int)(sp - k), k);
		fputs("kind=\"", f);
		sy_prom_label(f, part);
		snprintf(part, sizeof(part), "%.*s", (int)(sl - sp - 1), sp + 1);
		fputs("\",namespace=\"", f);
		sy_prom_label(f, part);
		fputs("\",name=\"", f);
		sy_prom_label(f, sl + 1);
	}
	fputs("\",vhost=\"", f);
	sy_prom_label(f, rs->host[s]);
	fputc('"', f);
}

static void
histogram(FILE *f, const struct sy_route_stats *rs, const char *name, const char *help,
	  size_t off_le, size_t off_sum, const struct sy_route_ctr *tot)
{
	unsigned s, b;

	sy_prom_head(f, name, "histogram", help);
	for (s = 1; s < SY_ROUTE_STAT_SLOTS; s++) {
		const struct sy_route_ctr *t = &tot[s];
		const uint64_t *le = (const uint64_t *)((const char *)t + off_le);
		uint64_t cum = 0;

		if (rs->slots.key[s] == NULL)
			continue;
		for (b = 0; b < SY_ROUTE_LAT_BUCKETS; b++) {
			cum += le[b];
			fprintf(f, "%s_bucket{", name);
			labels(f, rs, s);
			if (b < SY_ROUTE_LAT_BUCKETS - 1)
				fprintf(f, ",le=\"%g\"} %llu\n", sy_route_lat_le_us[b] / 1e6,
					(unsigned long long)cum);
			else
				fprintf(f, ",le=\"+Inf\"} %llu\n", (unsigned long long)cum);
		}
		fprintf(f, "%s_sum{", name);
		labels(f, rs, s);
		fprintf(f, "} %.6f\n%s_count{", *(const uint64_t *)((const char *)t + off_sum) / 1e6,
			name);
		labels(f, rs, s);
		fprintf(f, "} %llu\n", (unsigned long long)cum);
	}
}

static void
counter(FILE *f, const struct sy_route_stats *rs, const char *name, const char *help, size_t off,
	const struct sy_route_ctr *tot)
{
	unsigned s;

	sy_prom_head(f, name, "counter", help);
	for (s = 1; s < SY_ROUTE_STAT_SLOTS; s++) {
		if (rs->slots.key[s] == NULL)
			continue;
		fprintf(f, "%s{", name);
		labels(f, rs, s);
		fprintf(f, "} %llu\n",
			(unsigned long long)*(const uint64_t *)((const char *)&tot[s] + off));
	}
}

/* Every used slot's counters: the workers' totals less its base (malloc'd,
 * SY_ROUTE_STAT_SLOTS of them), or NULL. */
static struct sy_route_ctr *
totals(const struct sy_route_stats *rs)
{
	struct sy_route_ctr *tot;
	unsigned s;

	if (rs->slots.n == 0 || (tot = calloc(SY_ROUTE_STAT_SLOTS, sizeof(*tot))) == NULL)
		return NULL;
	for (s = 1; s < SY_ROUTE_STAT_SLOTS; s++)
		if (rs->slots.key[s] != NULL)
			sy_stat_slots_total(&rs->slots, s, (uint64_t *)&tot[s]);
	return tot;
}

json_t *
sy_route_stats_json(const struct sy_route_stats *rs)
{
	struct sy_route_ctr *tot = totals(rs);
	json_t *list = json_array();
	unsigned s;

	for (s = 1; tot != NULL && s < SY_ROUTE_STAT_SLOTS; s++) {
		const struct sy_route_ctr *t = &tot[s];

		if (rs->slots.key[s] == NULL)
			continue;
		json_array_append_new(
			list, json_pack("{s:s, s:s, s:I, s:I, s:[I,I,I,I,I], s:I, s:I}", "route",
					rs->slots.key[s], "vhost", rs->host[s] ? rs->host[s] : "", "connections",
					(json_int_t)t->connections, "requests", (json_int_t)t->tr.requests,
					"responses", (json_int_t)t->tr.responses[0],
					(json_int_t)t->tr.responses[1], (json_int_t)t->tr.responses[2],
					(json_int_t)t->tr.responses[3], (json_int_t)t->tr.responses[4],
					"bytes_in", (json_int_t)t->tr.bytes_in, "bytes_out",
					(json_int_t)t->tr.bytes_out));
	}
	free(tot);
	return list;
}

void
sy_route_stats_metrics(FILE *f, const struct sy_route_stats *rs)
{
	struct sy_route_ctr *tot = totals(rs);
	unsigned s, c;

	if (tot == NULL)
		return;
	counter(f, rs, "switchyard_route_connections_total",
		"Client connections a route object's rules carried on the splice path (spliced or "
		"answered by its rule).",
		offsetof(struct sy_route_ctr, connections), tot);
	sy_prom_head(f, "switchyard_route_flows_active", "gauge",
		     "Client connections bound to a route object now: spliced or answered by its rule "
		     "(until both ends closed), proxied with their latest request its.");
	for (s = 1; s < SY_ROUTE_STAT_SLOTS; s++) {
		if (rs->slots.key[s] == NULL)
			continue;
		fputs("switchyard_route_flows_active{", f);
		labels(f, rs, s);
		/* Two counters read apart: a flow that opened and closed
		 * between the reads must not make it negative. */
		fprintf(f, "} %llu\n",
			(unsigned long long)(tot[s].flows_opened > tot[s].flows_closed
						     ? tot[s].flows_opened - tot[s].flows_closed
						     : 0));
	}
	counter(f, rs, "switchyard_route_requests_total",
		"Requests a route object's rules routed in proxy mode.",
		offsetof(struct sy_route_ctr, tr.requests), tot);
	sy_prom_head(f, "switchyard_route_responses_total", "counter",
	     "Responses to a route object's requests by class (the backend's or the router's own).");
	for (s = 1; s < SY_ROUTE_STAT_SLOTS; s++) {
		if (rs->slots.key[s] == NULL)
			continue;
		for (c = 0; c < 5; c++) {
			fprintf(f, "switchyard_route_responses_total{");
			labels(f, rs, s);
			fprintf(f, ",code=\"%uxx\"} %llu\n", c + 1,
				(unsigned long long)tot[s].tr.responses[c]);
		}
	}
	counter(f, rs, "switchyard_route_received_bytes_total",
		"Bytes from clients: proxied requests (heads and bodies), spliced connections' "
		"(counted at their end).",
		offsetof(struct sy_route_ctr, tr.bytes_in), tot);
	counter(f, rs, "switchyard_route_sent_bytes_total",
		"Bytes to clients: proxied responses (heads and bodies), spliced connections' "
		"(counted at their end).",
		offsetof(struct sy_route_ctr, tr.bytes_out), tot);
	histogram(f, rs, "switchyard_route_backend_response_seconds",
		  "Request queued to the backend (connect included) to its response head.",
		  offsetof(struct sy_route_ctr, tr.backend_le), offsetof(struct sy_route_ctr, tr.backend_us_sum),
		  tot);
	histogram(f, rs, "switchyard_route_router_seconds",
		  "Time the router itself spent on a request: head complete to queued for the "
		  "backend, and the response head's way to the client.",
		  offsetof(struct sy_route_ctr, router_le), offsetof(struct sy_route_ctr, router_us_sum),
		  tot);
	sy_prom_head(f, "switchyard_route_objects_unslotted", "gauge",
	     "Route objects past the counted ones (their traffic is not in the route series).");
	fprintf(f, "switchyard_route_objects_unslotted %llu\n", (unsigned long long)rs->unslotted);
	free(tot);
}

void
sy_route_stats_fini(struct sy_route_stats *rs)
{
	unsigned s;

	for (s = 0; s < SY_ROUTE_STAT_SLOTS; s++)
		free(rs->host[s]);
	sy_stat_slots_fini(&rs->slots);
	memset(rs, 0, sizeof(*rs));
}
