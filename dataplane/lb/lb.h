/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load balancing on the workers: the face of lb/. A pool's endpoint is
 * picked by its strategy with the tables the control thread built
 * (struct sy_lb_tables, control/gen/lb_tables.h):
 *   random (and the default)  weighted, O(1) by the alias table;
 *   round robin               the interleaved schedule, per worker;
 *   least request / leastconn power of two weighted random choices, the
 *                             one with fewer open backend connections on
 *                             this worker per unit of weight;
 *   source / consistentHash   Maglev over the client's address.
 * Retries (tries > 0) walk on from the first pick to the next endpoint
 * with weight, so each is tried at most once per connection.
 *
 * Open backend connections per endpoint are counted per worker in a small
 * table keyed by a hash of (address, port) (collisions share a count: an
 * approximation P2C tolerates); a record counts from the moment it names
 * its backend until it is freed (sy_lb_load_set / sy_lb_load_clear); on
 * a shared h2 connection, each stream counts instead (sy_lb_load_stream).
 */
#ifndef SY_LB_H
#define SY_LB_H

#include <stdbool.h>
#include <stdint.h>

#include "lb/lb_t.h"

struct sy_pool;
struct sy_worker;
struct sy_conn;
struct sy_endpoint;

/* An endpoint of p for a client at client_ip (network order; the key of
 * source affinity); -1: none (left). *first keeps the first pick. */
int sy_lb_pick(const struct sy_pool *p, struct sy_worker *w, uint32_t client_ip,
	       uint16_t *first, unsigned tries);

/* What became of a connection or request to ip:port (network order): passive
 * health, ejections (lb/lb_t.h). */
void sy_lb_report(struct sy_worker *w, uint32_t ip, uint16_t port, int ok);

/*
 * Sticky sessions by cookie (proxied vhosts; sy_rule.sticky_cookie): the
 * cookie's value is an opaque token of the endpoint's address and port
 * (the same on every worker and router, and after a configuration change
 * while the endpoint stays); a request whose token names a usable endpoint
 * of the pool (weight, not ejected) goes there, any other gets the
 * strategy's pick and a new cookie.
 */
uint64_t sy_lb_cookie_token(const struct sy_endpoint *e);
int sy_lb_cookie_find(const struct sy_pool *p, struct sy_worker *w, uint64_t tok);

/* The slot of ip:port (network order) in lb_load and lb_health. */
uint32_t sy_lb_slot(uint32_t ip, uint16_t port);

/* c now goes to ip:port (network order): its count moves there. */
void sy_lb_load_set(struct sy_worker *w, struct sy_conn *c, uint32_t ip, uint16_t port);
/* c is freed: its count goes. */
void sy_lb_load_clear(struct sy_worker *w, struct sy_conn *c);
/* A stream on a shared h2 backend connection to ip:port (network order)
 * begins, or ends: it counts as a connection does (least connections,
 * max_conns), the connection itself not at all, as HAProxy counts an h2
 * server's streams. */
void sy_lb_load_stream(struct sy_worker *w, uint32_t ip, uint16_t port, bool begin);

#endif
