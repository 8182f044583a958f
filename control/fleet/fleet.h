/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fleet of routers (issue 18; the OpenShift router sharding proposal):
 * Router objects (shards with a DNS suffix, selectors and VIPs), RouteBinding
 * objects (a Route scheduled onto a Router), the RouteScheduler that makes
 * bindings, and the DNS zone of a shard. This header is the face of
 * control/fleet/; one concept per file:
 *
 *   router_kind.c    route.openshift.io/v1 Router (cluster-scoped)
 *   binding_kind.c   route.openshift.io/v1 RouteBinding (namespaced)
 *   selector.c       a Kubernetes LabelSelector object -> label_selector.h
 *   serving.c        who serves what, and a Route's status.phase / status.dns
 *   scheduler.c      the RouteScheduler (one pass; strategies in scheduler.h)
 *   strategy_*.c     the scheduling strategies
 *   zone.c           a shard's zone file (RFC 1035 master file) and dns-zone
 *   dns_zones.c      the zones the data plane's DNS responder answers
 *   vips.c           this router's VIPs for VRRP failover, and their state
 *
 * THE RULE of who serves what (docs/operations.md, "Fleet"):
 *  - No Router object in the store: today's behaviour. A routerd serves the
 *    OpenShift Routes its config's route_label_selector and
 *    namespace_label_selector match; routes have no status.phase/dns.
 *  - At least one Router object ("fleet mode"): a routerd serves an
 *    OpenShift Route iff a RouteBinding binds it to the Router named by the
 *    routerd's own `router_name` (config). The config's selectors are not
 *    used then: a Router's selectors are, by the scheduler, which binds the
 *    routes they match. A route without spec.host is served under
 *    <name>-<namespace>.<that Router's spec.dns> (the routes doc's generated
 *    host form) instead of routing_subdomain. Every Route gets
 *    status.phase ("new" until some binding names it, then "scheduled") and,
 *    once scheduled, status.dns.
 * Other kinds (Contour, Skipper) are not sharded by Routers.
 */
#ifndef SY_FLEET_H
#define SY_FLEET_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <stdio.h>

#include <jansson.h>

#include "ops/errors.h"

struct sy_kind;
struct sy_object;
struct sy_store;
struct sy_relations;
struct sy_label_selector;
struct sy_router;

extern const struct sy_kind sy_kind_router;
extern const struct sy_kind sy_kind_routebinding;

/* ---- router_kind.c ---- */
/* One entry of a Router's spec.vips, parsed: compared as bytes, so two
 * spellings of one IPv6 address are one VIP. */
struct sy_fleet_vip {
	int family;       /* AF_INET or AF_INET6 */
	uint8_t addr[16]; /* network order: the first 4 bytes for AF_INET */
};
/* v (a JSON string) into *out with inet_pton: 0, or -EINVAL (not a string,
 * or neither an IPv4 nor an IPv6 address). */
int sy_fleet_vip_parse(const json_t *v, struct sy_fleet_vip *out);
/* Its canonical text (inet_ntop: RFC 5952 for IPv6) into buf; buf. */
const char *sy_fleet_vip_text(const struct sy_fleet_vip *vip, char *buf, size_t len);

/* ---- dns_zones.c ---- */
/* The shard zones of the store's Routers (spec.dns, spec.vips), malloc'd,
 * sorted by name, for the data plane's DNS responder (sy_dns.h). */
struct sy_dns_table;
struct sy_dns_table *sy_fleet_dns_table(const struct sy_store *st, uint32_t serial);
/* Publish them to the workers when they changed (config dns.listen set,
 * data plane up). */
void sy_fleet_dns_publish(struct sy_router *r);

/* ---- vips.c ---- */
/* VIP failover (config vrrp): publish this routerd's Router's spec.vips to
 * the data plane when they changed; their virtual routers for `status`
 * (JSON null when vrrp is off). */
void sy_fleet_vips_publish(struct sy_router *r);
/* An apply's check of Router `name` (obj as applied) against this
 * routerd's config: with vrrp on and name its router_name, a VIP of a
 * family the vrrp port has no address of is an "invalid" error naming
 * spec.vips[i] and the VIP. Returns 0 or -1. */
int sy_fleet_vips_check(const struct sy_router *r, const json_t *obj, const char *name,
			const char *who, struct sy_errors *errs);
/* The VIPs of Router `name` as worker 0 gets them: VIP i of spec.vips in
 * slot i (VRID vrid_base + i), the first SY_VRRP_VIPS_MAX, IPv4 or IPv6;
 * one of a family `port` (the vrrp port; NULL: any) has no address of
 * leaves its slot empty (no virtual router): how many did into *n_off, the
 * first one's index into *first_off. No Router: none. */
struct sy_vrrp_vips;
struct sy_port_config;
void sy_fleet_router_vips(const struct sy_store *st, const char *name,
			  const struct sy_port_config *port, struct sy_vrrp_vips *out,
			  unsigned *n_off, size_t *first_off);
json_t *sy_fleet_vips_status(const struct sy_router *r);
/* The Prometheus series of VIP failover (nothing when vrrp is off): per VIP,
 * 1 while this router is its master, its state changes, its master's last
 * advert's age. */
void sy_fleet_vips_metrics(FILE *f, const struct sy_router *r);

/* ---- selector.c ---- */
/* A Router's spec.routeSelector / spec.namespaceSelector: a Kubernetes
 * LabelSelector object ({matchLabels, matchExpressions}) or the selector
 * text the config takes ("tier=public,env in (a,b)"). NULL (absent) gives
 * *out NULL: "no selector". 0, or -EINVAL with why in err. */
int sy_fleet_selector_parse(const json_t *v, struct sy_label_selector **out, char *err,
			    size_t errlen);

/* ---- serving.c ---- */
/* Fleet mode: does the store hold at least one Router? */
bool sy_fleet_active(const struct sy_store *st);
/* The spec.dns of Router `name`, or NULL (no such Router). Valid while the
 * object is warm (this request). */
const char *sy_fleet_router_dns(const struct sy_store *st, const char *name);
/* RouteBindings of Route ns/name, oldest first (sy_object_age_cmp); rel may
 * be NULL (then the namespace's bindings are listed). malloc'd array (NULL
 * with *n 0 when none); -ENOMEM as NULL with *n (size_t)-1. */
struct sy_object **sy_fleet_bindings_of(const struct sy_store *st, const struct sy_relations *rel,
					const char *ns, const char *name, size_t *n);
/* Does some binding of the route name Router `router`? */
bool sy_fleet_bound_to(const struct sy_store *st, const struct sy_relations *rel, const char *ns,
		       const char *name, const char *router);
/* status.phase and status.dns of an OpenShift Route in fleet mode, added to
 * status (an object): phase "new" or "scheduled"; dns: spec.host, or
 * <name>-<namespace>.<dns of its oldest binding>. 0 or -ENOMEM. */
int sy_fleet_route_status(const struct sy_store *st, const struct sy_relations *rel,
			  const struct sy_object *route, json_t *status);
/* An apply of a Route may not set status.phase / status.dns (create) nor
 * change them (update; `existing` is the stored version or NULL): the
 * proposal's Route REST API rule. Adds "invalid" errors naming the field. */
int sy_fleet_check_route_status(const json_t *obj, const struct sy_object *existing,
				const char *who, struct sy_errors *errs);

/* ---- zone.c ---- */
/* The zone file of a Router (obj: the object as stored): $ORIGIN <dns>.,
 * $TTL, SOA (serial), NS ns_name with its address when in the zone, and
 * "* IN A <vip>" for every VIP (DNS round robin). ns_name NULL: "ns1"
 * (in the zone), ns_addr NULL: 127.0.0.1 (the proposal's example: a DNS
 * server beside the router). malloc'd text, NULL on out of memory. */
char *sy_fleet_zone_text(const json_t *router_obj, uint32_t serial, const char *ns_name,
			 const char *ns_addr);
/* {"op":"dns-zone","router":NAME,"ns":?,"ns_address":?} */
json_t *sy_ops_dns_zone(struct sy_router *r, const json_t *req);

#endif
