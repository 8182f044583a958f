/* SPDX-License-Identifier: BSD-3-Clause */
/* Prometheus metrics (metrics.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <arpa/inet.h>

#include <jansson.h>
#include <rte_cycles.h>

#include "kinds/kinds.h"
#include "observe/access_log.h"
#include "observe/backend_stats.h"
#include "observe/metrics.h"
#include "observe/route_state.h"
#include "fleet/fleet.h"
#include "router.h"
#include "ops/stream_conn.h"
#include "observe/route_stats.h"
#include "strmap.h"
#include "sy_counters.h"
#include "sy_dataplane.h"
#include "sy_generation.h"

void
sy_prom_head(FILE *f, const char *name, const char *type, const char *help)
{
	fprintf(f, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A label value, escaped as the format wants (backslash, quote, newline). */
void
sy_prom_label(FILE *f, const char *v)
{
	for (; v != NULL && *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', f);
		if (*v == '\n') {
			fputs("\\n", f);
			continue;
		}
		fputc(*v, f);
	}
}

/* ------------------------------------------------------------ control -- */

/* One IngressRoute's part in the Contour seed's gauges. */
struct ir_count {
	unsigned total, orphaned, root;
};

static void
contour_gauges(FILE *f, struct sy_router *r)
{
	static const char *const states[] = { "valid", "invalid" };
	size_t n, i, s;
	struct sy_object **irs = sy_store_list(&r->store, &sy_kind_ingressroute_contour, NULL, &n);
	struct timespec now;

	/* By namespace: objects come sorted by namespace, so a run is one. */
	sy_prom_head(f, "contour_ingressroute_total", "gauge",
	     "IngressRoute objects regardless of status (valid + invalid + orphaned).");
	for (i = 0; i < n;) {
		size_t j = i;

		while (j < n && strcmp(irs[j]->ns, irs[i]->ns) == 0)
			j++;
		fprintf(f, "contour_ingressroute_total{namespace=\"");
		sy_prom_label(f, irs[i]->ns);
		fprintf(f, "\"} %zu\n", j - i);
		i = j;
	}
	sy_prom_head(f, "contour_ingressroute_orphaned_total", "gauge",
	     "Orphaned IngressRoute objects: no root delegates to them.");
	sy_prom_head(f, "contour_ingressroute_root_total", "gauge",
	     "Root IngressRoute objects (one per vhost).");
	for (s = 0; s < 2; s++) {
		for (i = 0; i < n;) {
			size_t j = i, c = 0;

			for (; j < n && strcmp(irs[j]->ns, irs[i]->ns) == 0; j++) {
				const char *st = json_string_value(
					json_object_get(irs[j]->status, "currentStatus"));
				bool root = json_object_get(json_object_get(irs[j]->obj, "spec"),
							    "virtualhost") != NULL;

				c += s == 0 ? (st && strcmp(st, "orphaned") == 0) : root;
			}
			fprintf(f, "%s{namespace=\"",
				s == 0 ? "contour_ingressroute_orphaned_total"
				       : "contour_ingressroute_root_total");
			sy_prom_label(f, irs[i]->ns);
			fprintf(f, "\"} %zu\n", c);
			i = j;
		}
	}
	/* Valid and invalid by namespace and vhost (a root's fqdn; delegates,
	 * whose vhost is their root's, have none of their own). */
	for (s = 0; s < 2; s++) {
		struct sy_strmap seen;

		sy_prom_head(f, s == 0 ? "contour_ingressroute_valid_total" : "contour_ingressroute_invalid_total",
		     "gauge", s == 0 ? "Valid IngressRoute objects." : "Invalid IngressRoute objects.");
		if (sy_strmap_init(&seen, n ? n : 1) < 0)
			continue;
		for (i = 0; i < n; i++) {
			const char *st = json_string_value(json_object_get(irs[i]->status, "currentStatus"));
			const char *fq = json_string_value(json_object_get(
				json_object_get(json_object_get(irs[i]->obj, "spec"), "virtualhost"), "fqdn"));
			char key[640];
			size_t j, c = 0;

			if (st == NULL || strcmp(st, states[s]) != 0)
				continue;
			snprintf(key, sizeof(key), "%s\n%s", irs[i]->ns, fq ? fq : "");
			if (sy_strmap_get(&seen, key) != NULL)
				continue;
			sy_strmap_put(&seen, key, (void *)1);
			for (j = i; j < n; j++) {
				const char *st2 = json_string_value(
					json_object_get(irs[j]->status, "currentStatus"));
				const char *fq2 = json_string_value(json_object_get(
					json_object_get(json_object_get(irs[j]->obj, "spec"), "virtualhost"),
					"fqdn"));

				if (st2 && strcmp(st2, states[s]) == 0 && strcmp(irs[j]->ns, irs[i]->ns) == 0 &&
				    strcmp(fq2 ? fq2 : "", fq ? fq : "") == 0)
					c++;
			}
			fprintf(f, "%s{namespace=\"",
				s == 0 ? "contour_ingressroute_valid_total" : "contour_ingressroute_invalid_total");
			sy_prom_label(f, irs[i]->ns);
			fprintf(f, "\",vhost=\"");
			sy_prom_label(f, fq ? fq : "");
			fprintf(f, "\"} %zu\n", c);
		}
		sy_strmap_fini(&seen);
	}
	sy_prom_head(f, "contour_ingressroute_dagrebuild_timestamp", "gauge",
	     "Unix time of the last rebuild (compile and publish) of the configuration.");
	clock_gettime(CLOCK_REALTIME, &now);
	fprintf(f, "contour_ingressroute_dagrebuild_timestamp %.3f\n",
		r->last_publish_time ? r->last_publish_time : (double)now.tv_sec);
	free(irs);
}

static void
control_metrics(FILE *f, struct sy_router *r)
{
	const struct sy_kind *const *routes = sy_route_kinds;
	struct sy_generation *g = sy_gen_acquire(&r->slot);
	const struct sy_kind *const *k;
	size_t i;

	sy_prom_head(f, "switchyard_generation", "gauge", "Number of the live configuration generation.");
	fprintf(f, "switchyard_generation %lu\n", (unsigned long)r->gen_id);
	sy_prom_head(f, "switchyard_generation_bytes", "gauge", "Memory of the live generation.");
	fprintf(f, "switchyard_generation_bytes %zu\n", g ? (size_t)g->bytes : (size_t)0);
	sy_prom_head(f, "switchyard_generation_vhosts", "gauge", "Virtual hosts in the live generation.");
	fprintf(f, "switchyard_generation_vhosts %zu\n", g ? (size_t)g->n_vhosts : (size_t)0);
	sy_prom_head(f, "switchyard_generation_publish_timestamp_seconds", "gauge",
	     "Unix time the live generation was published.");
	fprintf(f, "switchyard_generation_publish_timestamp_seconds %.3f\n", r->last_publish_time);
	sy_prom_head(f, "switchyard_last_compile_duration_seconds", "gauge",
	     "Compile and publish time of the live generation.");
	fprintf(f, "switchyard_last_compile_duration_seconds %.6f\n", r->last_compile_ms / 1e3);
	sy_prom_head(f, "switchyard_uptime_seconds", "gauge", "Seconds since routerd started.");
	fprintf(f, "switchyard_uptime_seconds %ld\n", (long)(time(NULL) - r->started));

	sy_prom_head(f, "switchyard_objects", "gauge", "Objects in the store, by kind.");
	for (k = sy_kinds; *k != NULL; k++)
		fprintf(f, "switchyard_objects{kind=\"%s\",group=\"%s\"} %zu\n", (*k)->kind,
			(*k)->group, sy_store_count(&r->store, *k));

	sy_prom_head(f, "switchyard_routes", "gauge",
	     "Route objects of every kind by the state their status gives (OpenShift: admitted, "
	     "rejected, not_in_shard; Contour: valid, invalid, orphaned; Skipper: valid, invalid).");
	for (i = 0; routes[i] != NULL; i++) {
		size_t n, j;
		struct sy_object **objs = sy_store_list(&r->store, routes[i], NULL, &n);
		const char *seen[8];
		size_t counts[8], ns = 0, s;

		for (j = 0; j < n; j++) {
			const char *st = sy_route_state(objs[j]);

			for (s = 0; s < ns && strcmp(seen[s], st) != 0; s++)
				;
			if (s == ns && ns < 8) {
				seen[ns] = st;
				counts[ns++] = 0;
			}
			if (s < ns)
				counts[s]++;
		}
		for (s = 0; s < ns; s++)
			fprintf(f, "switchyard_routes{kind=\"%s\",group=\"%s\",state=\"%s\"} %zu\n",
				routes[i]->kind, routes[i]->group, seen[s], counts[s]);
		free(objs);
	}
}

/* ------------------------------------------------------------ workers -- */

struct counter_meta {
	const char *name;   /* metric name */
	const char *type;
	const char *help;
	size_t off;         /* in struct sy_worker_counters */
};

#define C(field, metric, type, help) \
	{ metric, type, help, offsetof(struct sy_worker_counters, field) }

static const struct counter_meta counters[] = {
	C(rx_packets, "switchyard_received_packets_total", "counter", "Packets received by the workers."),
	C(rx_bytes, "switchyard_received_bytes_total", "counter", "Bytes received by the workers."),
	C(tx_packets, "switchyard_transmitted_packets_total", "counter", "Packets sent by the workers."),
	C(tx_bytes, "switchyard_transmitted_bytes_total", "counter", "Bytes sent by the workers."),
	C(clock_jumps, "switchyard_worker_clock_jumps_total", "counter",
	  "TSC jumps between two polls (over 5 s, or backwards: a VM resumed from a snapshot or "
	  "migrated) that the workers' clocks took as 5 s or nothing, so that no timer fired early."),
	C(arp_requests_sent, "switchyard_arp_requests_sent_total", "counter", "ARP requests sent."),
	C(arp_replies_sent, "switchyard_arp_replies_sent_total", "counter", "ARP replies sent."),
	C(icmp_echo_replies, "switchyard_icmp_echo_replies_total", "counter", "ICMP echo replies sent."),
	C(icmp6_echo_replies, "switchyard_icmp6_echo_replies_total", "counter",
	  "ICMPv6 echo replies sent."),
	C(nd_adverts_sent, "switchyard_nd_adverts_sent_total", "counter",
	  "IPv6 neighbour advertisements sent (answers to solicitations, duplicate address defences)."),
	C(nd_solicits_sent, "switchyard_nd_solicits_sent_total", "counter",
	  "IPv6 neighbour solicitations sent (resolving next hops)."),
	C(ptb_received, "switchyard_ptb_received_total", "counter",
	  "ICMPv6 Packet Too Big messages for connections of ours."),
	C(pmtu_lowered, "switchyard_pmtu_lowered_total", "counter",
	  "Proxied legs whose MSS a Packet Too Big lowered."),
	C(ptb_relayed, "switchyard_ptb_relayed_total", "counter",
	  "Packet Too Big passed on to a spliced connection's other endpoint (ICMPv6, or ICMPv4 fragmentation needed)."),
	C(syn_cookies_sent, "switchyard_syn_cookies_sent_total", "counter",
	  "SYN-ACKs with a SYN cookie sent (every SYN to a listen address)."),
	C(conns_opened, "switchyard_connections_opened_total", "counter",
	  "Connections whose cookie was validated (a record made)."),
	C(conns_spliced, "switchyard_connections_spliced_total", "counter",
	  "Connections spliced to a backend (the backend answered)."),
	C(conns_answered, "switchyard_connections_answered_total", "counter",
	  "Connections the router answered itself (switchyard_router_answers_total says why)."),
	C(conns_closed, "switchyard_connections_closed_total", "counter", "Connection records freed."),
	C(flows_active, "switchyard_flows_active", "gauge", "Connection records in use."),
	C(backend_retries, "switchyard_backend_retries_total", "counter",
	  "Another endpoint tried after a failed connect."),
	C(backend_syn_retx, "switchyard_backend_syn_retransmits_total", "counter",
	  "Backend SYNs sent again after their timeout."),
	C(backend_stale_acks, "switchyard_backend_stale_acks_total", "counter",
	  "Backend SYNs answered by an older connection's ACK (answered with RST and the SYN again)."),
	C(handoffs, "switchyard_handoffs_total", "counter", "Packets passed to the worker that owns them."),
	C(fast_forwarded, "switchyard_fast_path_segments_total", "counter",
	  "Spliced segments forwarded by the established-flow fast path."),
};

static uint64_t
counter_at(const struct sy_worker_counters *c, size_t off)
{
	return *(const uint64_t *)((const uint8_t *)c + off);
}

/* A counter by reason: the array at `off` in every worker's counters, summed,
 * one series per name (every reason present, also at 0). */
static void
reason_series(FILE *f, const char *metric, const char *help, const struct sy_worker_counters *snap,
	      unsigned nw, size_t off, const char *const *names, unsigned n)
{
	unsigned k, i;

	sy_prom_head(f, metric, "counter", help);
	for (k = 0; k < n; k++) {
		uint64_t sum = 0;

		for (i = 0; i < nw; i++)
			sum += counter_at(&snap[i], off + k * sizeof(uint64_t));
		fprintf(f, "%s{reason=\"%s\"} %lu\n", metric, names[k], (unsigned long)sum);
	}
}

static void
worker_metrics(FILE *f, struct sy_router *r)
{
	unsigned nw = r->dataplane_up ? sy_dp_n_workers() : 0, i;
	struct sy_worker_counters *snap = calloc(nw ? nw : 1, sizeof(*snap));
	double hz = (double)rte_get_tsc_hz();
	struct sy_dp_mbufs mb;
	size_t k;

	if (snap == NULL)
		return;
	/* One copy per worker, read once: every figure below is from it. */
	for (i = 0; i < nw; i++)
		memcpy(&snap[i], sy_dp_worker_counters(i), sizeof(snap[i]));

	sy_prom_head(f, "switchyard_workers", "gauge", "Worker lcores polling the ports.");
	fprintf(f, "switchyard_workers %u\n", nw);
	if (r->dataplane_up && sy_dp_mbufs(&mb) == 0) {
		sy_prom_head(f, "switchyard_mbufs", "gauge", "Packet buffers in the data plane's pool.");
		fprintf(f, "switchyard_mbufs %u\n", mb.total);
		sy_prom_head(f, "switchyard_mbufs_in_use", "gauge",
		     "Packet buffers out of the pool: on the ports' queues, in connections' "
		     "buffers, in flight; with no traffic it returns to what the queues hold "
		     "(below 0: an mbuf freed twice).");
		fprintf(f, "switchyard_mbufs_in_use %ld\n", mb.in_use);
	}
	sy_prom_head(f, "switchyard_worker_busy_seconds_total", "counter",
	     "Time in worker loop iterations that found work.");
	for (i = 0; i < nw; i++)
		fprintf(f, "switchyard_worker_busy_seconds_total{worker=\"%u\"} %.6f\n", i,
			hz > 0 ? (double)snap[i].busy_cycles / hz : 0.0);
	sy_prom_head(f, "switchyard_worker_idle_seconds_total", "counter",
	     "Time in empty polls and idle sleeps; busy / (busy + idle) is the load.");
	for (i = 0; i < nw; i++)
		fprintf(f, "switchyard_worker_idle_seconds_total{worker=\"%u\"} %.6f\n", i,
			hz > 0 ? (double)snap[i].idle_cycles / hz : 0.0);
	for (k = 0; k < sizeof(counters) / sizeof(counters[0]); k++) {
		uint64_t sum = 0;

		for (i = 0; i < nw; i++)
			sum += counter_at(&snap[i], counters[k].off);
		sy_prom_head(f, counters[k].name, counters[k].type, counters[k].help);
		fprintf(f, "%s %lu\n", counters[k].name, (unsigned long)sum);
	}
	reason_series(f, "switchyard_dropped_packets_total",
		      "Packets dropped by the workers, by reason (every reason present).", snap, nw,
		      offsetof(struct sy_worker_counters, drops), sy_drop_reason_names, SY_DROP__COUNT);
	reason_series(f, "switchyard_router_answers_total",
		      "Connections the router answered itself instead of a backend, by reason.", snap,
		      nw, offsetof(struct sy_worker_counters, answers), sy_answer_reason_names,
		      SY_ANSWER__COUNT);
	free(snap);
}

/* A port's counter, one series per port. */
static void
port_series(FILE *f, const char *name, const char *help, const struct sy_port_info *pi,
	    unsigned n, size_t off)
{
	unsigned i;

	sy_prom_head(f, name, "counter", help);
	for (i = 0; i < n; i++) {
		fprintf(f, "%s{port=\"", name);
		sy_prom_label(f, pi[i].name);
		fprintf(f, "\"} %lu\n", (unsigned long)*(const uint64_t *)((const char *)&pi[i] + off));
	}
}

/* The ports as their drivers count them (rte_eth_stats), and what never
 * reached a worker: the driver's missed and errored frames and, on af_xdp
 * ports, the kernel's own drops (dataplane/xsk_stats.h). The workers' own
 * drops are switchyard_dropped_packets_total. */
static void
port_metrics(FILE *f, struct sy_router *r)
{
	unsigned n = r->dataplane_up ? sy_dp_n_ports() : 0, k = 0, i;
	struct sy_port_info *pi = calloc(n ? n : 1, sizeof(*pi));
	const char *drop = "switchyard_port_dropped_packets_total";

	if (pi == NULL)
		return;
	for (i = 0; i < n; i++)
		if (sy_dp_port_info(i, &pi[k]) == 0)
			k++;
	port_series(f, "switchyard_port_received_packets_total", "Frames a port received.", pi, k,
		    offsetof(struct sy_port_info, ipackets));
	port_series(f, "switchyard_port_sent_packets_total", "Frames a port sent.", pi, k,
		    offsetof(struct sy_port_info, opackets));
	port_series(f, "switchyard_port_received_bytes_total", "Bytes a port received.", pi, k,
		    offsetof(struct sy_port_info, ibytes));
	port_series(f, "switchyard_port_sent_bytes_total", "Bytes a port sent.", pi, k,
		    offsetof(struct sy_port_info, obytes));
	sy_prom_head(f, drop, "counter",
		     "Frames a port dropped before a worker saw them or after it sent them, by "
		     "reason: missed (its RX queue was full; on af_xdp the kernel's rx_dropped), "
		     "rx_errors, rx_no_mbuf, tx_errors, and on af_xdp ports the kernel's "
		     "af_xdp_rx_ring_full, af_xdp_rx_invalid_descs, af_xdp_tx_invalid_descs.");
	for (i = 0; i < k; i++) {
		const struct {
			const char *reason;
			uint64_t v;
			bool af_xdp;
		} rs[] = {
			{ "missed", pi[i].imissed, false },
			{ "rx_errors", pi[i].ierrors, false },
			{ "rx_no_mbuf", pi[i].rx_nombuf, false },
			{ "tx_errors", pi[i].oerrors, false },
			{ "af_xdp_rx_ring_full", pi[i].xsk.rx_ring_full, true },
			{ "af_xdp_rx_invalid_descs", pi[i].xsk.rx_invalid, true },
			{ "af_xdp_tx_invalid_descs", pi[i].xsk.tx_invalid, true },
		};
		size_t j;

		for (j = 0; j < sizeof(rs) / sizeof(rs[0]); j++) {
			if (rs[j].af_xdp && !pi[i].af_xdp)
				continue;
			fprintf(f, "%s{port=\"", drop);
			sy_prom_label(f, pi[i].name);
			fprintf(f, "\",reason=\"%s\"} %lu\n", rs[j].reason, (unsigned long)rs[j].v);
		}
	}
	free(pi);
}

/* Active health checks (health.h): endpoints by state, checks and their
 * failures, state changes. Per endpoint: 1 while its checks say it is up. */
static void
health_metrics(FILE *f, const struct sy_health *h)
{
	static const enum sy_health_state states[] = { SY_HEALTH_HEALTHY, SY_HEALTH_UNHEALTHY,
						       SY_HEALTH_UNKNOWN };
	uint64_t checks = 0, failed = 0;
	size_t i, k;

	sy_prom_head(f, "switchyard_health_check_endpoints", "gauge",
	     "Endpoints the active health checks watch, by state.");
	for (k = 0; k < sizeof(states) / sizeof(states[0]); k++) {
		size_t n = 0;

		for (i = 0; i < h->n; i++)
			n += h->t[i]->state == states[k];
		fprintf(f, "switchyard_health_check_endpoints{state=\"%s\"} %zu\n",
			sy_health_state_name(states[k]), n);
	}
	for (i = 0; i < h->n; i++) {
		checks += h->t[i]->checks;
		failed += h->t[i]->failed;
	}
	sy_prom_head(f, "switchyard_health_checks_total", "counter",
	     "Active health checks judged (of endpoints still watched).");
	fprintf(f, "switchyard_health_checks_total %llu\n", (unsigned long long)checks);
	sy_prom_head(f, "switchyard_health_check_failures_total", "counter",
	     "Active health checks that failed (of endpoints still watched).");
	fprintf(f, "switchyard_health_check_failures_total %llu\n", (unsigned long long)failed);
	sy_prom_head(f, "switchyard_health_check_transitions_total", "counter",
	     "Endpoints that changed state (healthy, unhealthy) by their checks.");
	fprintf(f, "switchyard_health_check_transitions_total %llu\n",
		(unsigned long long)h->transitions);
	sy_prom_head(f, "switchyard_health_check_up", "gauge",
	     "1 while the endpoint's active health checks say it is up (healthy or not yet checked).");
	for (i = 0; i < h->n; i++) {
		char a[SY_ADDR_PORT_STRLEN];

		/* An IPv6 endpoint as URLs write it: [ADDR]:PORT (RFC 5952 text). */
		fprintf(f, "switchyard_health_check_up{endpoint=\"%s\"} %d\n",
			sy_addr_port_format(&h->t[i]->addr, ntohs(h->t[i]->port), a, sizeof(a)),
			h->t[i]->state != SY_HEALTH_UNHEALTHY);
	}
}

char *
sy_metrics_text(struct sy_router *r, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (f == NULL)
		return NULL;
	control_metrics(f, r);
	contour_gauges(f, r);
	health_metrics(f, &r->health);
	sy_fleet_vips_metrics(f, r); /* VIP failover (fleet/vips.c) */
	sy_route_stats_metrics(f, &r->route_stats);
	if (r->dataplane_up)
		sy_backend_stats_metrics(f, &r->backend_stats);
	worker_metrics(f, r);
	port_metrics(f, r);
	if (sy_alog_enabled()) {
		uint64_t written, dropped;
		size_t pending;

		sy_alog_counts(&written, &dropped, &pending);
		sy_prom_head(f, "switchyard_access_log_lines_written_total", "counter",
			     "Access log lines the file or syslog took.");
		fprintf(f, "switchyard_access_log_lines_written_total %llu\n", (unsigned long long)written);
		sy_prom_head(f, "switchyard_access_log_lines_dropped_total", "counter",
			     "Access log lines dropped because the file's reader or syslog did not take them "
			     "(never waited for).");
		fprintf(f, "switchyard_access_log_lines_dropped_total %llu\n", (unsigned long long)dropped);
	}
	/* The control socket's and this address's own clients (stream_conn.h). */
	sy_conn_stats_metrics(f, (const char *const[]){ "control", "metrics" },
			      (const struct sy_conn_stats *const[]){ r->control_conns, r->metrics_conns }, 2);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}
