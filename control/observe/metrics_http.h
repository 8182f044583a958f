/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The metrics endpoint: `GET /metrics` over HTTP/1.x on the config's
 * `metrics` address, a kernel socket of the control thread (never a worker),
 * and beside it the status page (`GET /`, `/status`, `/status.json`:
 * status_page.h); other paths 404, other methods than GET and HEAD 405.
 * One request per connection, answered at once and closed: a scrape is a
 * request every few seconds, and the control thread must stay free for the
 * control socket, so a client gets 200 ms to send its request and 1 s to take
 * the answer, then is dropped.
 */
#ifndef SY_METRICS_HTTP_H
#define SY_METRICS_HTTP_H

#include <stdint.h>

struct sy_router;

/* A listening socket on addr:port (network order), non-blocking. Returns the
 * fd or -errno. */
int sy_metrics_http_open(uint32_t addr, uint16_t port);
/* The listening socket is readable: answer every connection waiting. */
void sy_metrics_http_serve(int fd, struct sy_router *r);

#endif
