/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ready addresses of a Service, wherever the cluster states them: its
 * discovery.k8s.io/v1 EndpointSlices (joined by the label
 * kubernetes.io/service-name, any number of them, either address family)
 * when it has any, else its v1 Endpoints. Pools (control/gen/pool.c) and
 * the kinds' statuses (Skipper's "no endpoints") read them through here, so
 * both see the same addresses.
 */
#ifndef SY_SERVICE_ENDPOINTS_H
#define SY_SERVICE_ENDPOINTS_H

#include <stddef.h>

#include <jansson.h>

struct sy_relations;
struct sy_store;

/* A group of ready addresses (n of them, in ips) and the ports they serve
 * on: a list of objects with "port" (a number) and an optional "name", as
 * an Endpoints subset and an EndpointSlice both write them. */
typedef void (*sy_service_addr_fn)(void *arg, const char *const *ips, size_t n,
				   const json_t *ports);

/*
 * Call fn for every group of addresses of Service ns/svc that take new
 * connections: each Endpoints subset, or each EndpointSlice.
 * From slices: an endpoint whose conditions say ready: false or
 * terminating: true is left out (connections already made to it are not
 * touched: they drain), ready unset counts as ready, and of an endpoint's
 * addresses the first is used (Kubernetes: they are fungible); FQDN slices
 * give none. rel is the router's relations index (slices by Service), or
 * NULL to search the namespace. Returns how many addresses were given.
 */
size_t sy_service_endpoints_each(struct sy_store *st, const struct sy_relations *rel,
				 const char *ns, const char *svc, sy_service_addr_fn fn, void *arg);

#endif
