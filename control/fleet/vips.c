/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VIP failover's control half (include/sy_vrrp.h, dataplane/vrrp/vrrp.h):
 * the VIPs of this routerd's own Router object (router_name), in spec.vips
 * order (index i is VRID vrid_base + i, so every routerd of the Router must
 * list them alike: they read the same object), published to worker 0 when
 * they change; and their state for `routerctl status`. IPv4 only: an
 * apply that gives our Router an IPv6 VIP is refused while vrrp is on
 * (below).
 */
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_log.h>

#include "fleet/fleet.h"
#include "observe/metrics.h"
#include "router.h"
#include "store/store.h"
#include "sy_dataplane.h"
#include "sy_vrrp.h"

/*
 * VRRP here is IPv4 only (VRRPv3 over IPv6, with its neighbour
 * advertisements, is later work), so an IPv6 VIP of our own Router cannot
 * fail over. An apply that gives our Router one is refused while vrrp is on
 * (sy_fleet_vips_check): answering it always, from every node of the
 * Router, would hand clients a dead node's address with nothing to notice.
 * One can still arrive by another way (through etcd from a routerd of
 * another Router or without vrrp, or from the journal after the config
 * turned vrrp on); then its slot stays empty: no virtual router, its VRID
 * unused so that the IPv4 VIPs after it keep theirs (VIP i is VRID
 * vrid_base + i), a warning in the log, and the DNS responder answers it
 * as listed (dataplane/dns/dns.h).
 */

static bool
own_router(const struct sy_router *r, const char *name)
{
	return r->cfg.vrrp.enabled && strcmp(name, r->cfg.router_name) == 0;
}

int
sy_fleet_vips_check(const struct sy_router *r, const json_t *obj, const char *name,
		    const char *who, struct sy_errors *errs)
{
	const json_t *v;
	size_t i;
	int bad = 0;

	if (!own_router(r, name))
		return 0;
	json_array_foreach(json_object_get(json_object_get(obj, "spec"), "vips"), i, v) {
		struct sy_fleet_vip a;
		char f[48];

		if (sy_fleet_vip_parse(v, &a) < 0 || a.family != AF_INET6)
			continue;
		snprintf(f, sizeof(f), "spec.vips[%zu]", i);
		bad = sy_err_add(errs, "invalid", who, f,
				 "\"%s\" is an IPv6 address, and this routerd fails the VIPs of "
				 "Router %s over with VRRP (config vrrp): VRRP over IPv6 is not "
				 "supported yet; list only IPv4 VIPs, or turn vrrp off",
				 json_string_value(v), name);
	}
	return bad;
}

void
sy_fleet_router_vips(const struct sy_store *st, const char *name, struct sy_vrrp_vips *out,
		     unsigned *n6, size_t *first6)
{
	const struct sy_object *o = sy_store_find(st, &sy_kind_router, "", name);
	const json_t *v;
	size_t i;

	memset(out, 0, sizeof(*out));
	*n6 = 0;
	if (o == NULL)
		return;
	json_array_foreach(json_object_get(json_object_get(o->obj, "spec"), "vips"), i, v) {
		struct sy_fleet_vip a;

		/* Past the limit, a VIP has no virtual router
		 * (docs/operations.md, "VIP failover"). */
		if (i >= SY_VRRP_VIPS_MAX || sy_fleet_vip_parse(v, &a) < 0)
			continue;
		out->n = (uint32_t)i + 1;
		if (a.family == AF_INET)
			memcpy(&out->vip[i], a.addr, 4);
		else if ((*n6)++ == 0)
			*first6 = i;
	}
}

void
sy_fleet_vips_publish(struct sy_router *r)
{
	struct sy_vrrp_vips now, *t;
	unsigned n6;
	size_t first6 = 0;

	if (!r->cfg.vrrp.enabled || !r->dataplane_up)
		return;
	sy_fleet_router_vips(&r->store, r->cfg.router_name, &now, &n6, &first6);
	if (r->vrrp_published_set && memcmp(&now, &r->vrrp_published, sizeof(now)) == 0)
		return;
	/* Said once a change, not at every compile. */
	if (n6 > 0)
		RTE_LOG(WARNING, USER1,
			"vrrp: Router %s has %u IPv6 VIP(s) (the first spec.vips[%zu]): VRRP over "
			"IPv6 is not supported yet, so they have no virtual router and are not "
			"failed over; the DNS responder answers them as listed\n",
			r->cfg.router_name, n6, first6);
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
