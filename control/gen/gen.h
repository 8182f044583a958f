/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * gen/: from the store to a published generation (docs/architecture.md
 * section 3, section 11). The face of the folder: what the rest of control/
 * uses of it. One concept per file:
 *
 *   compile.c         the objects -> one immutable generation and their
 *                     statuses (the kinds' stage 1, hosts, vhosts)
 *   scope.c           what a change can affect: the closed set of objects
 *                     and hosts an incremental compile rebuilds
 *   gen_build.c       generations that share structure; what one added and
 *                     dropped (the planners' input)
 *   gen_mem.c         generation memory on huge pages
 *   pool.c            rules' backends -> shared, weighted endpoint pools
 *   lb_tables.c       a pool's pick tables (alias, round robin, Maglev)
 *   backend_url.c     backend URLs written into a route
 *   publish.c         the RCU slot: publish, retire, reclaim
 *   resolve.c         `routerctl resolve`: what a request would get
 *   rule_match.c      which rule a request gets, for resolve
 *   compile_verify.c  SY_COMPILE_VERIFY: an incremental compile against a full one
 */
#ifndef SY_GEN_H
#define SY_GEN_H

#include "gen/compile.h"
#include "gen/gen_build.h"
#include "gen/scope.h"

#endif
