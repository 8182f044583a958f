/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * `routerctl get` tables: the columns of each kind, copied from what `oc get
 * routes` and `kubectl get services,endpoints` print, so that people who know
 * those tools read ours without a legend.
 */
#ifndef RCTL_PRINT_H
#define RCTL_PRINT_H

#include <time.h>

#include <jansson.h>

#include "table.h"

struct rctl_get_opts {
	int with_namespace; /* a NAMESPACE first column (listing all namespaces) */
	int wide;	    /* -o wide: extra columns where the kind has them */
	time_t now;	    /* the AGE reference, passed in so tests are stable */
};

/* A table of items (objects of canonical kind `kind`); NULL when out of memory. */
struct rctl_table *rctl_get_table(const char *kind, const json_t *items,
				  const struct rctl_get_opts *o);

/*
 * Cells of the Route columns, each a malloc'd string (NULL when out of memory).
 * HOST/PORT: spec.host (or the admitted host), or the reason it was rejected.
 * SERVICES: "web" alone, else "web(80%),canary(20%)" of the total weight.
 */
char *rctl_route_host(const json_t *route);
char *rctl_route_services(const json_t *route);
char *rctl_route_port(const json_t *route);
char *rctl_route_termination(const json_t *route);

/* "80/TCP,443:30443/TCP", or "<none>". */
char *rctl_service_ports(const json_t *svc);

/* "198.18.9.1:80,198.18.9.2:80,198.18.9.3:80 + 2 more...", or "<none>". */
char *rctl_endpoints_list(const json_t *ep);

/* "app=web,tier=front" of metadata.labels, or "<none>". */
char *rctl_labels(const json_t *obj);

/* RouteGroup HOSTS: "a.example.org,b.example.org". */
char *rctl_routegroup_hosts(const json_t *rg);

/* Secret DATA: keys of data and stringData. */
size_t rctl_secret_data_count(const json_t *secret);

/* Whether kind+items are Contour's Route (contour.heptio.com), not OpenShift's: both
 * answer kind "Route"; "Route.contour.heptio.com" names it explicitly. */
int rctl_is_contour_route(const char *kind, const json_t *items);

#endif
