/* SPDX-License-Identifier: BSD-3-Clause */
/* Traffic per backend endpoint: slots, bases, the scrape (backend_stats.h). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "gen/gen_build.h"
#include "observe/backend_stats.h"
#include "observe/metrics.h"
#include "sy_dataplane.h"
#include "sy_generation.h"

static const void *
worker_ctrs(unsigned w)
{
	return sy_dp_backend_ctrs(w);
}

/* The name of an endpoint's slot: "address:port", "[address]:port" for
 * IPv6 (port in host order). */
static void
endpoint_key(const struct sy_addr *addr, unsigned port, char *key, size_t len)
{
	sy_addr_port_format(addr, port, key, len);
}

/* Every endpoint copy a vhost's rules send to, once per rule (the unit the
 * references are counted in: a pool two rules share is two). */
#define FOR_EACH_RULE_ENDPOINT(vh, k, e, ep)                                                 \
	for ((k) = 0; (k) < (vh)->n_rules; (k)++)                                            \
		for ((e) = 0; (vh)->rules[(k)].pool != NULL &&                               \
			      (e) < (vh)->rules[(k)].pool->n_endpoints &&                    \
			      ((ep) = (struct sy_endpoint *)&(vh)->rules[(k)].pool->endpoints[(e)], 1); \
		     (e)++)

void
sy_backend_stats_plan(struct sy_backend_stats *bs, const struct sy_generation *g,
		      const struct sy_generation *prev)
{
	const struct sy_vhost *vh;
	struct sy_endpoint *ep;
	size_t vi;
	uint32_t k, e;
	uint16_t s;

	if (bs->slots.n == 0 &&
	    sy_stat_slots_init(&bs->slots, SY_BACKEND_STAT_SLOTS, sizeof(struct sy_backend_ctr) / 8,
			       worker_ctrs, sizeof(struct sy_backend_ctr) / 8) < 0)
		return;
	/* The vhosts g added take their endpoints' slots first (an endpoint
	 * that stays keeps its slot), then those it dropped give theirs back. */
	for (vi = 0; (vh = sy_gen_next_added(g, &vi)) != NULL;) {
		FOR_EACH_RULE_ENDPOINT (vh, k, e, ep) {
			char key[SY_ADDR_STRLEN + 8];

			endpoint_key(&ep->addr, ep->port, key, sizeof(key));
			s = sy_stat_slots_take(&bs->slots, key);
			if (s == 0) {
				bs->unslotted++;
			} else {
				bs->ip[s] = sy_addr_key32(&ep->addr);
				bs->port[s] = htons(ep->port);
			}
			/* A pool the live generation shares already has this
			 * value (an endpoint keeps its slot while it is
			 * referred to): the store changes nothing a worker
			 * reads. */
			if (ep->stat_slot != s)
				ep->stat_slot = s;
		}
	}
	for (vi = 0; (vh = sy_gen_next_dropped(g, prev, &vi)) != NULL;) {
		FOR_EACH_RULE_ENDPOINT (vh, k, e, ep) {
			if (ep->stat_slot != 0)
				sy_stat_slots_put(&bs->slots, ep->stat_slot);
			else if (bs->unslotted > 0)
				bs->unslotted--;
		}
	}
	/* Endpoints gone: their slots are free again. */
	sy_stat_slots_end(&bs->slots);
}

/* A row of the exposition: an endpoint's counters (less its base) and what
 * the workers' load balancing knows of it. */
struct row {
	uint16_t slot;
	struct sy_backend_ctr c;
	struct sy_dp_endpoint_state st;
};

static void
label(FILE *f, const struct sy_backend_stats *bs, const char *name, const struct row *r)
{
	fprintf(f, "%s{endpoint=\"", name);
	sy_prom_label(f, bs->slots.key[r->slot]);
	fputc('"', f);
}

static void
series(FILE *f, const struct sy_backend_stats *bs, const struct row *rows, size_t n,
       const char *name, const char *type, const char *help, size_t off)
{
	size_t i;

	sy_prom_head(f, name, type, help);
	for (i = 0; i < n; i++) {
		label(f, bs, name, &rows[i]);
		fprintf(f, "} %llu\n", (unsigned long long)*(const uint64_t *)((const char *)&rows[i] + off));
	}
}

void
sy_backend_stats_metrics(FILE *f, const struct sy_backend_stats *bs)
{
	static const char hist[] = "switchyard_backend_response_seconds";
	struct row *rows;
	size_t n = 0, i;
	unsigned s, k;

	if (bs->slots.n == 0 || (rows = calloc(bs->slots.n_used + 1, sizeof(*rows))) == NULL)
		return;
	for (s = 1; s < SY_BACKEND_STAT_SLOTS && n < bs->slots.n_used; s++) {
		if (bs->slots.key[s] == NULL)
			continue;
		rows[n].slot = (uint16_t)s;
		sy_stat_slots_total(&bs->slots, s, (uint64_t *)&rows[n].c);
		sy_dp_endpoint_state(bs->ip[s], bs->port[s], &rows[n].st);
		n++;
	}
	/* What load balancing knows (the workers' tables keyed by a hash of
	 * address and port: endpoints whose hashes collide share these). */
	series(f, bs, rows, n, "switchyard_backend_open_connections", "gauge",
	       "Backend connections open to the endpoint, all workers.",
	       offsetof(struct row, st.open_connections));
	series(f, bs, rows, n, "switchyard_backend_connections_total", "counter",
	       "Backend connections opened to the endpoint (retries too), all workers.",
	       offsetof(struct row, st.connections));
	sy_prom_head(f, "switchyard_backend_ejected_workers", "gauge",
		     "Workers whose passive health ejects the endpoint now.");
	for (i = 0; i < n; i++) {
		label(f, bs, "switchyard_backend_ejected_workers", &rows[i]);
		fprintf(f, "} %u\n", rows[i].st.ejected_workers);
	}
	/* The endpoint's own traffic counters (its slot). */
	series(f, bs, rows, n, "switchyard_backend_spliced_connections_total", "counter",
	       "Client connections spliced to the endpoint.", offsetof(struct row, c.connections));
	series(f, bs, rows, n, "switchyard_backend_requests_total", "counter",
	       "Proxied requests sent to the endpoint (a retried one: the last endpoint tried).",
	       offsetof(struct row, c.tr.requests));
	sy_prom_head(f, "switchyard_backend_responses_total", "counter",
		     "Answers to the requests sent to the endpoint by class (the router's own when it "
		     "failed them).");
	for (i = 0; i < n; i++) {
		for (k = 0; k < 5; k++) {
			label(f, bs, "switchyard_backend_responses_total", &rows[i]);
			fprintf(f, ",code=\"%uxx\"} %llu\n", k + 1,
				(unsigned long long)rows[i].c.tr.responses[k]);
		}
	}
	series(f, bs, rows, n, "switchyard_backend_sent_bytes_total", "counter",
	       "Bytes towards the endpoint: proxied requests (heads and bodies as the client sent "
	       "them), spliced connections' client bytes (counted at their end).",
	       offsetof(struct row, c.tr.bytes_in));
	series(f, bs, rows, n, "switchyard_backend_received_bytes_total", "counter",
	       "Bytes from the endpoint: proxied responses (heads and bodies), spliced "
	       "connections' backend bytes (counted at their end).",
	       offsetof(struct row, c.tr.bytes_out));
	sy_prom_head(f, hist, "histogram",
		     "Proxied request queued to the endpoint (connect included) to its response head.");
	for (i = 0; i < n; i++) {
		uint64_t cum = 0;

		for (k = 0; k < SY_ROUTE_LAT_BUCKETS; k++) {
			cum += rows[i].c.tr.backend_le[k];
			label(f, bs, "switchyard_backend_response_seconds_bucket", &rows[i]);
			if (k < SY_ROUTE_LAT_BUCKETS - 1)
				fprintf(f, ",le=\"%g\"} %llu\n", sy_route_lat_le_us[k] / 1e6,
					(unsigned long long)cum);
			else
				fprintf(f, ",le=\"+Inf\"} %llu\n", (unsigned long long)cum);
		}
		label(f, bs, "switchyard_backend_response_seconds_sum", &rows[i]);
		fprintf(f, "} %.6f\n", rows[i].c.tr.backend_us_sum / 1e6);
		label(f, bs, "switchyard_backend_response_seconds_count", &rows[i]);
		fprintf(f, "} %llu\n", (unsigned long long)cum);
	}
	sy_prom_head(f, "switchyard_backend_endpoints_unslotted", "gauge",
		     "Endpoints of the live generation's pools (each copy) past the counted ones (not in "
		     "the backend series).");
	fprintf(f, "switchyard_backend_endpoints_unslotted %llu\n", (unsigned long long)bs->unslotted);
	free(rows);
}

int
sy_backend_stats_get(const struct sy_backend_stats *bs, uint16_t slot, struct sy_backend_ctr *out)
{
	memset(out, 0, sizeof(*out));
	if (slot == 0 || slot >= bs->slots.n || bs->slots.key[slot] == NULL)
		return -ENOENT;
	sy_stat_slots_total(&bs->slots, slot, (uint64_t *)out);
	return 0;
}

int
sy_backend_stats_of(const struct sy_backend_stats *bs, const struct sy_addr *addr, uint16_t port,
		    struct sy_backend_ctr *out)
{
	char key[SY_ADDR_STRLEN + 8];
	void *v;

	endpoint_key(addr, port, key, sizeof(key)); /* the name the plan gave its slot */
	v = bs->slots.slot_of.slots != NULL ? sy_strmap_get(&bs->slots.slot_of, key) : NULL;
	return sy_backend_stats_get(bs, (uint16_t)(uintptr_t)v, out);
}

void
sy_backend_stats_fini(struct sy_backend_stats *bs)
{
	sy_stat_slots_fini(&bs->slots);
	memset(bs, 0, sizeof(*bs));
}
