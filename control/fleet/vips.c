/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VIP failover's control half (include/sy_vrrp.h, dataplane/vrrp/vrrp.h):
 * the VIPs of this routerd's own Router object (router_name), in spec.vips
 * order (index i is VRID vrid_base + i, so every routerd of the Router must
 * list them alike: they read the same object), published to worker 0 when
 * they change; and their state for `routerctl status`.
 */
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include "fleet/fleet.h"
#include "observe/metrics.h"
#include "router.h"
#include "store/store.h"
#include "sy_dataplane.h"
#include "sy_vrrp.h"

static void
router_vips(const struct sy_store *st, const char *name, struct sy_vrrp_vips *out)
{
	const struct sy_object *o = sy_store_find(st, &sy_kind_router, "", name);
	const json_t *v;
	size_t i;

	memset(out, 0, sizeof(*out));
	if (o == NULL)
		return;
	json_array_foreach(json_object_get(json_object_get(o->obj, "spec"), "vips"), i, v) {
		struct in_addr a;

		/* The Router's validation took only IPv4 addresses; past the
		 * limit, a VIP has no virtual router (docs/operations.md, "VIP failover"). */
		if (out->n < SY_VRRP_VIPS_MAX && json_is_string(v) &&
		    inet_pton(AF_INET, json_string_value(v), &a) == 1)
			out->vip[out->n++] = a.s_addr;
	}
}

void
sy_fleet_vips_publish(struct sy_router *r)
{
	struct sy_vrrp_vips now, *t;

	if (!r->cfg.vrrp.enabled || !r->dataplane_up)
		return;
	router_vips(&r->store, r->cfg.router_name, &now);
	if (r->vrrp_published_set && memcmp(&now, &r->vrrp_published, sizeof(now)) == 0)
		return;
	t = malloc(sizeof(*t));
	if (t == NULL)
		return; /* the next change tries again */
	*t = now;
	if (sy_dp_vrrp_publish(t) == 0) { /* takes t */
		r->vrrp_published = now;
		r->vrrp_published_set = true;
	}
}

json_t *
sy_fleet_vips_status(const struct sy_router *r)
{
	json_t *list;
	unsigned i;

	if (!r->cfg.vrrp.enabled)
		return json_null();
	list = json_array();
	for (i = 0; i < SY_VRRP_VIPS_MAX; i++) {
		struct sy_vrrp_status s;
		char vip[INET_ADDRSTRLEN], master[INET_ADDRSTRLEN];

		if (sy_dp_vrrp_status(i, &s) < 0)
			continue;
		inet_ntop(AF_INET, &s.vip, vip, sizeof(vip));
		inet_ntop(AF_INET, &s.master, master, sizeof(master));
		json_array_append_new(
			list, json_pack("{s:s, s:i, s:s, s:i, s:s, s:i, s:I, s:o}", "vip", vip, "vrid",
					s.vrid, "state", sy_vrrp_state_name(s.state), "priority",
					s.priority, "master", s.master ? master : "", "master_priority",
					s.master_priority, "transitions", (json_int_t)s.transitions,
					"master_seen_ms_ago",
					s.master_seen_ms_ago == UINT64_MAX
						? json_null()
						: json_integer((json_int_t)s.master_seen_ms_ago)));
	}
	return json_pack("{s:i, s:i, s:i, s:b, s:o}", "node", r->cfg.vrrp.node, "nodes",
			 r->cfg.vrrp.nodes, "advert_interval_ms", r->cfg.vrrp.advert_ms, "preempt",
			 r->cfg.vrrp.preempt, "vips", list);
}

void
sy_fleet_vips_metrics(FILE *f, const struct sy_router *r)
{
	struct sy_vrrp_status s[SY_VRRP_VIPS_MAX];
	char vip[SY_VRRP_VIPS_MAX][INET_ADDRSTRLEN];
	bool have[SY_VRRP_VIPS_MAX];
	unsigned i;

	if (!r->cfg.vrrp.enabled)
		return;
	for (i = 0; i < SY_VRRP_VIPS_MAX; i++) {
		have[i] = sy_dp_vrrp_status(i, &s[i]) == 0;
		if (have[i])
			inet_ntop(AF_INET, &s[i].vip, vip[i], sizeof(vip[i]));
	}
	sy_prom_head(f, "switchyard_vrrp_master", "gauge",
		     "1 while this router holds the VIP (VRRP master), else 0.");
	for (i = 0; i < SY_VRRP_VIPS_MAX; i++)
		if (have[i])
			fprintf(f, "switchyard_vrrp_master{vip=\"%s\",vrid=\"%u\"} %d\n", vip[i],
				s[i].vrid, s[i].state == SY_VRRP_MASTER);
	sy_prom_head(f, "switchyard_vrrp_transitions_total", "counter",
		     "State changes of the VIP's virtual router on this router since it started.");
	for (i = 0; i < SY_VRRP_VIPS_MAX; i++)
		if (have[i])
			fprintf(f, "switchyard_vrrp_transitions_total{vip=\"%s\",vrid=\"%u\"} %u\n",
				vip[i], s[i].vrid, s[i].transitions);
	sy_prom_head(f, "switchyard_vrrp_master_advert_age_seconds", "gauge",
		     "Time since the VIP's master last advertised (0 while this router is it).");
	for (i = 0; i < SY_VRRP_VIPS_MAX; i++)
		if (have[i] && s[i].master_seen_ms_ago != UINT64_MAX)
			fprintf(f, "switchyard_vrrp_master_advert_age_seconds{vip=\"%s\",vrid=\"%u\"} %.3f\n",
				vip[i], s[i].vrid,
				s[i].state == SY_VRRP_MASTER ? 0.0 : (double)s[i].master_seen_ms_ago / 1e3);
}
