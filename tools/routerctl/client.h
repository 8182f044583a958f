/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One connection to routerd's control socket: a JSON object per line each
 * way (docs/protocol.md).
 */
#ifndef RCTL_CLIENT_H
#define RCTL_CLIENT_H

#include <stddef.h>

#include <jansson.h>

struct rctl_client {
	int fd;
	const char *path;
	char *buf; /* bytes received after the last reply's newline */
	size_t len;
	size_t cap;
	char *out; /* bytes of the request not sent yet (rctl_client_send) */
	size_t out_len;
};

/* Connect to the socket at path. Returns 0, or -errno with
 * "cannot connect to PATH: strerror" in err. */
int rctl_client_connect(struct rctl_client *c, const char *path, char *err, size_t errlen);

/* Send req as one line and wait for the reply line. Returns the parsed
 * reply (new reference), or NULL with the reason in err. */
json_t *rctl_client_request(struct rctl_client *c, const json_t *req, char *err,
			    size_t errlen);

/* The parts of one request, for a caller that sends a large one piece by
 * piece (apply's progress): raw bytes (the caller ends the line with its
 * newline), then the reply. send returns 0 or -errno (the bytes go out in
 * pieces of 256 KiB, the last by wait or reply: a small request in one);
 * wait returns 1 when the reply has begun to arrive, 0 after ms without, or
 * -errno. */
int rctl_client_send(struct rctl_client *c, const char *p, size_t len, char *err, size_t errlen);
int rctl_client_wait(struct rctl_client *c, int ms);
json_t *rctl_client_reply(struct rctl_client *c, char *err, size_t errlen);

void rctl_client_close(struct rctl_client *c);

#endif
