/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * ops/: the control socket and its operations (docs/protocol.md). The face
 * of the folder. One concept per file:
 *
 *   server.c     the Unix socket: clients, their buffers and deadlines, in
 *                the control thread's poll loop (never blocking it)
 *   ops_apply.c  apply and delete: validate, journal, store, recompile
 *   ops_query.c  the read-only ops: get, status, stats, resolve, ...
 *   errors.c     the error lists every reply carries
 *
 * The ops themselves are called through sy_ops_handle (router.h): the
 * socket, the etcd watch and the scheduler all apply through it.
 */
#ifndef SY_OPS_H
#define SY_OPS_H

#include "ops/errors.h"
#include "ops/server.h"

#endif
