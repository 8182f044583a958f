/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Request mirrors (docs/routing.md, "Request mirrors"): a route's RequestMirror
 * filter (Gateway API) or mirror service (Contour's HTTPProxy) sends a copy
 * of each request it samples to an endpoint of the mirror's pool, and drops
 * whatever that endpoint answers. Fire and forget: the client's exchange
 * never waits for a mirror, and a mirror that cannot keep up, fails or
 * times out is given up without touching it.
 *
 * A mirror leg is a backend leg of its own (SY_CONN_PROXY_MIRROR, found by
 * its SNAT port, on the timer wheel), from a bounded table per worker. It
 * gets the request head as the primary backend got it, with
 * "Connection: close", then the body as the exchange forwards it; once the
 * request is whole the exchange lets go and the leg reads and drops the
 * answer until the backend closes (so the backend, not we, keeps the
 * TIME_WAIT), or its silence timeout ends it with a RST.
 */
#ifndef SY_PX_MIRROR_H
#define SY_PX_MIRROR_H

#include <stdbool.h>
#include <stdint.h>

struct sy_conn;
struct sy_mq;
struct sy_proxy;
struct sy_rule;
struct sy_worker;

#define SY_PX_MIRROR_MAX 256               /* mirror legs per worker */
#define SY_PX_MIRROR_QUEUE (256 * 1024)    /* request bytes one may have unsent before it is given up */
#define SY_PX_MIRROR_TIMEOUT_MS 10000      /* silence a leg is allowed (connect, answer, close) */

int px_mirror_init(struct sy_worker *w);
void px_mirror_fini(struct sy_worker *w);

/* The request whose head (as forwarded to the primary backend, ending in
 * its blank line) was just queued: a leg for each of the rule's mirrors
 * that samples it. whole: the request has no body. */
void px_mirror_start(struct sy_worker *w, struct sy_proxy *px, const struct sy_rule *rule,
		     const uint8_t *head, uint32_t len, bool whole);
/* The n bytes of q from off are the request's body, forwarded (or
 * dropped): a copy to each mirror still attached. */
void px_mirror_body(struct sy_worker *w, struct sy_proxy *px, struct sy_mq *q, uint32_t off,
		    uint32_t n);
/* The request is over for the exchange: complete (its last byte went to
 * the mirrors, which now read their answers alone) or cut (they are given
 * up: a partial request must not reach a backend as if whole). */
void px_mirror_detach(struct sy_worker *w, struct sy_proxy *px, bool complete);

/* The records' operations (conn/conn_ops.h), registered with the proxy's. */
void px_mirror_register_ops(void);

#endif
