/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The metrics endpoint: `GET /metrics` over HTTP/1.x on the config's
 * `metrics` address, a kernel socket of the control thread (never a worker),
 * and beside it the status page (`GET /`, `/status`, `/status.json`:
 * status_page.h); other paths 404, other methods than GET and HEAD 405.
 * One request per connection, answered and closed.
 *
 * Whoever reaches the address (a management network, a misconfigured
 * scraper) must never hold the control thread, so the server is a state
 * machine per connection in the control loop's poll (stream_conn.h), never a
 * blocking call:
 *
 *  - reading: the request head is read as it comes, whole within
 *    SY_METRICS_HTTP_HEAD_MS of the accept (a deadline for the head, not per
 *    read: a byte every 150 ms does not keep it alive), at most
 *    SY_METRICS_HTTP_HEAD_MAX bytes (431 beyond);
 *  - answering: the page is rendered once, when the head is whole (in the
 *    order heads came, SY_METRICS_HTTP_ROUND_MS of renderings a turn after
 *    the first: a burst of scrapes delays the control thread's other work a
 *    few ms a turn), into a buffer written as the client reads it, taken
 *    whole within
 *    SY_METRICS_HTTP_ANSWER_MS; while the answers waiting for slow readers
 *    hold SY_METRICS_HTTP_OUT_MAX bytes a new request gets 503 instead of a
 *    rendering;
 *  - closing: once the answer is written our side is shut and what the
 *    client still sends is read and dropped until it closes, for at most
 *    SY_METRICS_HTTP_LINGER_MS (closing at once with bytes unread would reset
 *    the connection, and the client could lose its answer: a 431 to a head
 *    still coming);
 *  - at most SY_METRICS_HTTP_MAX_CONNS connections: a new one closes the one
 *    idle longest (stream_conn.h; never one whose answer is to be made):
 *    when none may be closed, the rest of a flood waits in the backlog. A
 *    new connection is read at once, so that a scrape's head, which comes
 *    with it, is answered in the turn it was accepted.
 *
 * What it refused, timed out or lost is counted (st: `routerctl stats`'s
 * control_servers.metrics, switchyard_control_*{server="metrics"}).
 */
#ifndef SY_METRICS_HTTP_H
#define SY_METRICS_HTTP_H

#include <poll.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "ops/stream_conn.h"

#define SY_METRICS_HTTP_MAX_CONNS 64
/* Connections waiting for accept: a burst of a flood waits there, costing
 * the control thread nothing, and a scrape's SYN arriving in it is not
 * dropped (its retransmission would cost it a second). */
#define SY_METRICS_HTTP_BACKLOG 1024
#define SY_METRICS_HTTP_HEAD_MAX 8192
#define SY_METRICS_HTTP_HEAD_MS 5000
#define SY_METRICS_HTTP_ANSWER_MS 30000
#define SY_METRICS_HTTP_LINGER_MS 2000
#define SY_METRICS_HTTP_ROUND_MS 5
#define SY_METRICS_HTTP_OUT_MAX (64u << 20)

struct sy_router;

enum sy_mhttp_phase {
	SY_MHTTP_HEAD,   /* reading the request head */
	SY_MHTTP_READY,  /* the head is whole: its answer is made in the next round */
	SY_MHTTP_ANSWER, /* writing the answer (out) */
	SY_MHTTP_LINGER, /* answered, our side shut: reading to the client's end */
};

struct sy_mhttp_conn {
	int fd;
	enum sy_mhttp_phase phase;
	char *head;           /* the request head so far (SY_METRICS_HTTP_HEAD_MAX + 1), until answered */
	size_t head_len;
	struct sy_conn_out out;
	uint64_t last_ms;     /* its last byte either way: the one idle longest goes first */
	uint64_t deadline_ms; /* of the phase: the head, the whole answer, the lingering */
	uint64_t ready_seq;   /* answers are made in the order heads became whole */
	uint64_t accepted_ms;
};

struct sy_metrics_http {
	int listen_fd;
	struct sy_mhttp_conn conns[SY_METRICS_HTTP_MAX_CONNS];
	unsigned n;
	size_t out_bytes; /* answer bytes not taken yet, all connections */
	uint64_t ready_seq;
	uint64_t accept_at_ms; /* full, none closable: the backlog waits until then (0: not) */
	struct sy_conn_stats st;
};

/* Listen on addr:port (network order), non-blocking. 0 or -errno. */
int sy_metrics_http_open(struct sy_metrics_http *s, uint32_t addr, uint16_t port);
/* A connected socket to serve as if accepted (tests; made non-blocking).
 * 0, or -1: refused (closed). */
int sy_metrics_http_adopt(struct sy_metrics_http *s, int fd, uint64_t now_ms);
/* Fill pfds (listen socket first, then connections); returns how many. */
unsigned sy_metrics_http_pollfds(const struct sy_metrics_http *s, struct pollfd *pfds, unsigned max);
/* Handle what poll reported for the fds sy_metrics_http_pollfds filled
 * (n 0: none), then close the connections past their deadline. Call every
 * turn of the loop. */
void sy_metrics_http_handle(struct sy_metrics_http *s, struct sy_router *r,
			    const struct pollfd *pfds, unsigned n, uint64_t now_ms);
/* Milliseconds until the next deadline (the poll timeout's bound), -1: none. */
int sy_metrics_http_timeout_ms(const struct sy_metrics_http *s, uint64_t now_ms);
/* Close every connection and the listening socket. */
void sy_metrics_http_close(struct sy_metrics_http *s);

#endif
