/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket (docs/architecture.md section 5): a Unix stream
 * socket, mode 0600, peers checked by credentials, newline-delimited JSON
 * requests and replies.
 * Served from the control thread's poll loop; never touched by workers.
 *
 * It never waits for a client (stream_conn.h): requests are read as they
 * come, answered in rounds of one request a client, those served longest
 * ago first, SY_SERVER_ROUND_MS of requests a turn of the loop (a pipeline
 * of costly requests neither delays a fresh request by more than a round nor
 * the control thread's other work by more than a few ms), a reply is written
 * as the client reads it, and a client's next request is taken only once its
 * reply is gone (a client that asks and never reads holds one reply, not the
 * control thread); a reply not taken for
 * SY_SERVER_SEND_MS closes the connection. A request line may take its time
 * (an idle `routerctl top` is a client too), but when SY_SERVER_MAX_CLIENTS
 * are connected a new one closes the one idle longest (stream_conn.h; never
 * one with a request read and not yet answered, nor one waiting for etcd):
 * when none may be closed, the rest of a flood waits in the backlog. A new
 * connection is read at once, so that the request it came with is answered
 * in the same turn.
 */
#ifndef SY_SERVER_H
#define SY_SERVER_H

#include <poll.h>
#include <stdbool.h>
#include <stdint.h>

#include "router.h"
#include "ops/stream_conn.h"

#define SY_SERVER_MAX_CLIENTS 64
/* Connections waiting for accept: a burst of a flood waits there, costing
 * the control thread nothing, and a routerctl arriving in it is not turned
 * away; the table takes up to SY_SERVER_MAX_CLIENTS of them a turn. */
#define SY_SERVER_BACKLOG 1024
#define SY_SERVER_SEND_MS 5000 /* a reply's next byte taken within this */
#define SY_SERVER_ROUND_MS 5   /* requests of a turn, after the first */

struct sy_client {
	int fd;
	char *buf;      /* bytes read and not handled: the request line being read, and any after it */
	size_t len, cap;
	size_t scanned; /* buf[0..scanned) holds no newline */
	int discarding; /* the current line went over the limit: drop to its newline */
	uint64_t pending; /* a request parked for etcd's answer (control/etcd/sync.h) */
	struct sy_conn_out out; /* the reply being written */
	uint64_t last_ms;   /* its last byte either way */
	uint64_t served_ms; /* when a request of its was last taken (0: never) */
	bool gone;          /* to drop */
	uint64_t accepted_ms;
};

struct sy_server {
	int listen_fd;
	char path[108];
	struct sy_client clients[SY_SERVER_MAX_CLIENTS];
	unsigned n_clients;
	uint64_t accept_at_ms; /* full, none closable: the backlog waits until then (0: not) */
	struct sy_conn_stats st;
};

/* Bind and listen on path (an old socket file is replaced). 0 or -errno. */
int sy_server_open(struct sy_server *s, const char *path);
/* Fill pfds (listen socket first, then clients); returns how many. */
unsigned sy_server_pollfds(struct sy_server *s, struct pollfd *pfds, unsigned max);
/* Handle what poll reported for the fds filled by sy_server_pollfds (n 0:
 * none), then what waits without an event: requests buffered behind a reply
 * that is now gone, replies past their deadline. Call every turn. */
void sy_server_handle(struct sy_server *s, struct sy_router *r, const struct pollfd *pfds,
		      unsigned n, uint64_t now_ms);
/* Milliseconds until the server has something to do without an event (0:
 * buffered requests to answer now), -1: nothing. */
int sy_server_timeout_ms(const struct sy_server *s, uint64_t now_ms);
/* The reply to a parked request (sy_etcd_pending_id): sent to the client
 * that made it, if it is still there. Takes the reply. */
void sy_server_complete(struct sy_server *s, uint64_t id, json_t *reply);
/* Close every connection and the listening socket; remove the socket file. */
void sy_server_close(struct sy_server *s);

#endif
