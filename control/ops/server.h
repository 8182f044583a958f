/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control socket (docs/architecture.md section 5): a Unix stream
 * socket, mode 0600, peers checked by credentials, newline-delimited JSON
 * requests and replies.
 * Served from the control thread's poll loop; never touched by workers.
 */
#ifndef SY_SERVER_H
#define SY_SERVER_H

#include <poll.h>
#include <stdint.h>

#include "router.h"

#define SY_SERVER_MAX_CLIENTS 64

struct sy_client {
	int fd;
	char *buf;      /* bytes of the request line being read */
	size_t len, cap;
	int discarding; /* the current line went over the limit: drop to its newline */
	uint64_t pending; /* a request parked for etcd's answer (control/etcd/sync.h) */
};

struct sy_server {
	int listen_fd;
	char path[108];
	struct sy_client clients[SY_SERVER_MAX_CLIENTS];
	unsigned n_clients;
};

/* Bind and listen on path (an old socket file is replaced). 0 or -errno. */
int sy_server_open(struct sy_server *s, const char *path);
/* Fill pfds (listen socket first, then clients); returns how many. */
unsigned sy_server_pollfds(struct sy_server *s, struct pollfd *pfds, unsigned max);
/* Handle what poll reported for the fds filled by sy_server_pollfds. */
void sy_server_handle(struct sy_server *s, struct sy_router *r, const struct pollfd *pfds,
		      unsigned n);
/* The reply to a parked request (sy_etcd_pending_id): sent to the client
 * that made it, if it is still there. Takes the reply. */
void sy_server_complete(struct sy_server *s, uint64_t id, json_t *reply);
/* Close every connection and the listening socket; remove the socket file. */
void sy_server_close(struct sy_server *s);

#endif
