/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VIP failover's control half (include/sy_vrrp.h, dataplane/vrrp/vrrp.h):
 * the VIPs of this routerd's own Router object (router_name), in spec.vips
 * order (index i is VRID vrid_base + i, so every routerd of the Router must
 * list them alike: they read the same object), published to worker 0 when
 * they change; and their state for `routerctl status`. A VIP is IPv4 or
 * IPv6 (VRRPv3 over either, dataplane/vrrp/vrrp.h); the vrrp port must have
 * an address of its family (below).
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
 * A VIP of a family the vrrp port has no address of cannot fail over: the
 * port does not speak that family (a port speaks IPv6 only once its config
 * gives it an IPv6 address, and its adverts come from the link-local
 * address that then answers), so its adverts could be neither sent nor
 * heard. An apply that gives our Router one is refused while vrrp is on
 * (sy_fleet_vips_check). One can still arrive by another way (through etcd
 * from a routerd of another Router or without vrrp, or from the journal
 * after the config changed); then its slot stays empty: no virtual router,
 * its VRID unused so that the VIPs after it keep theirs (VIP i is VRID
 * vrid_base + i), a warning in the log, and the DNS responder answers it
 * as listed (dataplane/dns/dns.h).
 */

static bool
own_router(const struct sy_router *r, const char *name)
{
	return r->cfg.vrrp.enabled && strcmp(name, r->cfg.router_name) == 0;
}

static bool
port_has_family(const struct sy_port_config *port, int family)
{
	return family == AF_INET6 ? port->n_ipv6 > 0 : port->n_ipv4 > 0;
}

int
sy_fleet_vips_check(const struct sy_router *r, const json_t *obj, const char *name,
		    const char *who, struct sy_errors *errs)
{
	const struct sy_port_config *port = &r->cfg.ports[r->cfg.vrrp.port];
	const json_t *v;
	size_t i;
	int bad = 0;

	if (!own_router(r, name))
		return 0;
	json_array_foreach(json_object_get(json_object_get(obj, "spec"), "vips"), i, v) {
		const char *fam;
		struct sy_fleet_vip a;
		char f[48];

		if (sy_fleet_vip_parse(v, &a) < 0 || port_has_family(port, a.family))
			continue;
		fam = a.family == AF_INET6 ? "IPv6" : "IPv4";
		snprintf(f, sizeof(f), "spec.vips[%zu]", i);
		bad = sy_err_add(errs, "invalid", who, f,
				 "\"%s\" is an %s address, and port \"%s\" (config vrrp.port), "
				 "where this routerd fails the VIPs of Router %s over with VRRP, has "
				 "no %s address: give the port one (ports[].%s) or list only VIPs "
				 "of the families it has",
				 json_string_value(v), fam, port->name, name, fam,
				 a.family == AF_INET6 ? "ipv6" : "ipv4");
	}
	return bad;
}

void
sy_fleet_router_vips(const struct sy_store *st, const char *name, const struct sy_port_config *port,
		     struct sy_vrrp_vips *out, unsigned *n_off, size_t *first_off)
{
	const struct sy_object *o = sy_store_find(st, &sy_kind_router, "", name);
	const json_t *v;
	size_t i;

	memset(out, 0, sizeof(*out));
	*n_off = 0;
	if (o == NULL)
		return;
	json_array_foreach(json_object_get(json_object_get(o->obj, "spec"), "vips"), i, v) {
		struct sy_fleet_vip a;

		/* Past the limit, a VIP has no virtual router
		 * (docs/operations.md, "VIP failover"). */
		if (i >= SY_VRRP_VIPS_MAX || sy_fleet_vip_parse(v, &a) < 0)
			continue;
		out->n = (uint32_t)i + 1;
		if (port != NULL && !port_has_family(port, a.family)) {
			if ((*n_off)++ == 0)
				*first_off = i;
			continue;
		}
		if (a.family == AF_INET6) {
			out->vip[i] = sy_addr_v6(a.addr);
		} else {
			uint32_t v4;

			memcpy(&v4, a.addr, 4);
			out->vip[i] = sy_addr_v4(v4);
		}
	}
}

void
sy_fleet_vips_publish(struct sy_router *r)
{
	const struct sy_port_config *port = &r->cfg.ports[r->cfg.vrrp.port];
	struct sy_vrrp_vips now, *t;
	unsigned n_off;
	size_t first_off = 0;

	if (!r->cfg.vrrp.enabled || !r->dataplane_up)
		return;
	sy_fleet_router_vips(&r->store, r->cfg.router_name, port, &now, &n_off, &first_off);
	if (r->vrrp_published_set && memcmp(&now, &r->vrrp_published, sizeof(now)) == 0)
		return;
	/* Said once a change, not at every compile. */
	if (n_off > 0)
		RTE_LOG(WARNING, USER1,
			"vrrp: Router %s has %u VIP(s) of a family port %s has no address of (the "
			"first spec.vips[%zu]): they have no virtual router and are not failed "
			"over; the DNS responder answers them as listed\n",
			r->cfg.router_name, n_off, port->name, first_off);
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
		char vip[SY_ADDR_STRLEN], master[SY_ADDR_STRLEN];

		if (sy_dp_vrrp_status(i, &s) < 0)
			continue;
		/* RFC 5952 text for IPv6 (sy_addr_format). */
		sy_addr_format(&s.vip, vip, sizeof(vip));
		sy_addr_format(&s.master, master, sizeof(master));
		json_array_append_new(
			list, json_pack("{s:s, s:i, s:s, s:i, s:s, s:i, s:I, s:o}", "vip", vip, "vrid",
					s.vrid, "state", sy_vrrp_state_name(s.state), "priority",
					s.priority, "master", s.master.family != 0 ? master : "", "master_priority",
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
	char vip[SY_VRRP_VIPS_MAX][SY_ADDR_STRLEN];
	bool have[SY_VRRP_VIPS_MAX];
	unsigned i;

	if (!r->cfg.vrrp.enabled)
		return;
	for (i = 0; i < SY_VRRP_VIPS_MAX; i++) {
		have[i] = sy_dp_vrrp_status(i, &s[i]) == 0;
		if (have[i])
			sy_addr_format(&s[i].vip, vip[i], sizeof(vip[i]));
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
