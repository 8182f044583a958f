/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The configuration as a Graphviz digraph (`routerctl graph`; the sharding
 * proposal asks how users and admins see what routes became): the live
 * generation's vhosts -> their rules, in order -> the pools they send to (a
 * pool several rules share is one node) -> endpoints with their weights; and
 * the IngressRoute delegation DAG from the store, each object with its
 * status, roots pointing at the vhost they serve. Deterministic: vhosts by
 * name, objects by namespace and name, so two graphs of one configuration
 * are the same text.
 */
#ifndef SY_GRAPH_H
#define SY_GRAPH_H

#include <stddef.h>

struct sy_router;

/* DOT text, malloc'd and NUL-terminated (*len its length), or NULL. */
char *sy_graph_dot(struct sy_router *r, size_t *len);

#endif
