/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where things are in etcd, under the configured prefix P (docs/operations.md, "Store on etcd"):
 *
 *     P objects/<kind>/<namespace>/<name>   an object's JSON, as apply stores it
 *     P objects/<kind>/<name>               the same, for cluster-scoped kinds
 *     P status/<router_name>/<kind>/<namespace>/<name>   a router's status of it
 *     P leader/scheduler                    the scheduler leader's id, on its lease
 *
 * <kind> is the kind in lower case, qualified by its group when it has one
 * ("route.route.openshift.io", "route.contour.heptio.com", "service"): two
 * kinds share the name Route, and a key must say which.
 */
#ifndef SY_ETCD_KEYS_H
#define SY_ETCD_KEYS_H

#include <stddef.h>

struct sy_kind;

/* The key segment of a kind ("route.route.openshift.io"); len >= 96. */
void sy_etcd_kind_segment(const struct sy_kind *kind, char *out, size_t len);
/* P objects/... of an object (ns ignored for cluster-scoped kinds). Returns
 * the length, or -1 when it does not fit. */
int sy_etcd_object_key(const char *prefix, const struct sy_kind *kind, const char *ns,
		       const char *name, char *out, size_t len);
/* P status/<router>/... of an object. */
int sy_etcd_status_key(const char *prefix, const char *router, const struct sy_kind *kind,
		       const char *ns, const char *name, char *out, size_t len);
/* Split an object key: its kind, namespace ("" for cluster-scoped kinds)
 * and name. 0, or -1 when key is not an object key of a known kind (why in
 * err). */
int sy_etcd_parse_object_key(const char *prefix, const char *key, const struct sy_kind **kind,
			     char *ns, size_t nslen, char *name, size_t namelen, char *err,
			     size_t errlen);
/* The same for a status key of router (P status/<router>/...). */
int sy_etcd_parse_status_key(const char *prefix, const char *router, const char *key,
			     const struct sy_kind **kind, char *ns, size_t nslen, char *name,
			     size_t namelen, char *err, size_t errlen);
/* The end of the range of keys that start with p (etcd's range_end: p with
 * its last byte plus one). len >= strlen(p) + 1. */
void sy_etcd_range_end(const char *p, char *out, size_t len);
/* The range a router watches: from P leader/scheduler to the end of
 * P objects/ ("leader/" < "objects/" < "status/"), so the objects and the
 * leader key, not P status/: every router's status write-back (a key per
 * object; 100,000 at start with 100,000 routes, and in a fleet every
 * router's) is never sent to the watch to be decoded and dropped. 0, or -1
 * when it does not fit (keylen, endlen >= strlen(prefix) + 17). */
int sy_etcd_watch_range(const char *prefix, char *key, size_t keylen, char *end, size_t endlen);

#endif
