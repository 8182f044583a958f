/* SPDX-License-Identifier: BSD-3-Clause */
/* What the proxy's files share (proxy.c: legs and lifecycle; proxy_http.c:
 * requests and responses; proxy_route.c: per-request routing). */
#ifndef SY_PROXY_INTERNAL_H
#define SY_PROXY_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>

#include "proxy/proxy.h"
#include "proxy/px_msg.h"
#include "sy_counters.h"

struct sy_generation;
struct sy_worker;

/* Where a request goes: an endpoint, or the router's own answer. */
struct px_target {
	uint32_t ip;        /* network order */
	uint16_t port;      /* network order */
	uint16_t status;    /* != 0: answer this instead */
	enum sy_answer_reason why;
	char location[384]; /* a redirect's */
	char body[256];     /* a static answer's */
};

void px_step(struct sy_worker *w, struct sy_proxy *px);
bool px_advance(struct sy_worker *w, struct sy_proxy *px);
void px_deadline(struct sy_worker *w, struct sy_proxy *px);
int px_backend_open(struct sy_worker *w, struct sy_proxy *px, uint32_t ip, uint16_t port);
void px_backend_drop(struct sy_worker *w, struct sy_proxy *px);
/* Route one parsed request through the worker's generation. */
void px_route(struct sy_worker *w, const struct sy_px_req *req, const uint8_t *head,
	      struct px_target *out);

#endif
