/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "client.h"

/* A get of every object of a large configuration is big, but a reply without
 * a newline after this much is a broken peer, not data. */
#define RCTL_MAX_REPLY ((size_t)1 << 30)
/* A request's bytes gathered before they are sent. */
#define RCTL_SEND_BUF ((size_t)256 << 10)

int
rctl_client_connect(struct rctl_client *c, const char *path, char *err, size_t errlen)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int rc;

	memset(c, 0, sizeof(*c));
	c->fd = -1;
	c->path = path;
	if (strlen(path) >= sizeof(sun.sun_path)) {
		snprintf(err, errlen, "cannot connect to %s: socket path longer than %zu bytes",
			 path, sizeof(sun.sun_path) - 1);
		return -ENAMETOOLONG;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	c->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot connect to %s: %s", path, strerror(errno));
		return rc;
	}
	do
		rc = connect(c->fd, (struct sockaddr *)&sun, sizeof(sun));
	while (rc < 0 && errno == EINTR);
	if (rc < 0) {
		rc = -errno;
		snprintf(err, errlen, "cannot connect to %s: %s", path, strerror(errno));
		close(c->fd);
		c->fd = -1;
		return rc;
	}
	return 0;
}

static int
send_all(int fd, const char *p, size_t len)
{
	ssize_t n;

	while (len > 0) {
		/* MSG_NOSIGNAL: a router that went away is an error message,
		 * not a silent death by SIGPIPE. */
		n = send(fd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Returns the length of the line (without '\n') at the start of c->buf,
 * reading more as needed; -errno, or -EPIPE when the peer closed first. */
static ssize_t
read_line(struct rctl_client *c)
{
	char *nl, *nbuf;
	ssize_t n;

	for (;;) {
		nl = c->len ? memchr(c->buf, '\n', c->len) : NULL;
		if (nl != NULL)
			return nl - c->buf;
		if (c->len >= RCTL_MAX_REPLY)
			return -EMSGSIZE;
		if (c->cap - c->len < 65536) {
			size_t ncap = c->cap ? c->cap * 2 : 131072;

			nbuf = realloc(c->buf, ncap);
			if (nbuf == NULL)
				return -ENOMEM;
			c->buf = nbuf;
			c->cap = ncap;
		}
		n = recv(c->fd, c->buf + c->len, c->cap - c->len, 0);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			return -EPIPE;
		c->len += (size_t)n;
	}
}

/* Send what rctl_client_send gathered. */
static int
flush_out(struct rctl_client *c, char *err, size_t errlen)
{
	int rc = c->out_len > 0 ? send_all(c->fd, c->out, c->out_len) : 0;

	c->out_len = 0;
	if (rc < 0 && err != NULL)
		snprintf(err, errlen, "cannot send to %s: %s", c->path, strerror(-rc));
	return rc;
}

int
rctl_client_send(struct rctl_client *c, const char *p, size_t len, char *err, size_t errlen)
{
	/* Gathered, up to RCTL_SEND_BUF, and sent in one piece: a request
	 * that comes whole with its connection is read at once by the
	 * router, which closes the connections idle longest when a flood
	 * fills its table (control/ops/server.h). */
	if (c->out_len + len > RCTL_SEND_BUF) {
		int rc = flush_out(c, err, errlen);

		if (rc < 0)
			return rc;
		if (len >= RCTL_SEND_BUF) {
			rc = send_all(c->fd, p, len);
			if (rc < 0)
				snprintf(err, errlen, "cannot send to %s: %s", c->path, strerror(-rc));
			return rc;
		}
	}
	if (c->out == NULL && (c->out = malloc(RCTL_SEND_BUF)) == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	memcpy(c->out + c->out_len, p, len);
	c->out_len += len;
	return 0;
}

int
rctl_client_wait(struct rctl_client *c, int ms)
{
	struct pollfd p = { .fd = c->fd, .events = POLLIN };
	int rc = flush_out(c, NULL, 0);

	if (rc < 0)
		return rc;
	/* A reply already read in part counts as there. */
	if (c->len > 0)
		return 1;
	do
		rc = poll(&p, 1, ms);
	while (rc < 0 && errno == EINTR);
	return rc < 0 ? -errno : rc > 0;
}

json_t *
rctl_client_reply(struct rctl_client *c, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *reply;
	ssize_t line;

	if (flush_out(c, err, errlen) < 0)
		return NULL;
	line = read_line(c);
	if (line < 0) {
		if (line == -EPIPE)
			snprintf(err, errlen, "%s: the router closed the connection without replying",
				 c->path);
		else if (line == -EMSGSIZE)
			snprintf(err, errlen, "%s: reply longer than %zu bytes", c->path,
				 RCTL_MAX_REPLY);
		else
			snprintf(err, errlen, "cannot read from %s: %s", c->path,
				 strerror((int)-line));
		return NULL;
	}
	reply = json_loadb(c->buf, (size_t)line, 0, &jerr);
	memmove(c->buf, c->buf + line + 1, c->len - (size_t)line - 1);
	c->len -= (size_t)line + 1;
	if (reply == NULL) {
		snprintf(err, errlen, "%s: reply is not JSON: %s", c->path, jerr.text);
		return NULL;
	}
	if (!json_is_object(reply) || !json_is_boolean(json_object_get(reply, "ok"))) {
		snprintf(err, errlen, "%s: reply is not an object with \"ok\"", c->path);
		json_decref(reply);
		return NULL;
	}
	return reply;
}

json_t *
rctl_client_request(struct rctl_client *c, const json_t *req, char *err, size_t errlen)
{
	char *text;
	int rc;

	text = json_dumps(req, JSON_COMPACT);
	if (text == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	/* The protocol is line-framed: jansson's compact output never holds a
	 * raw newline (it escapes those inside strings), so appending one is
	 * the whole framing. */
	rc = rctl_client_send(c, text, strlen(text), err, errlen);
	if (rc == 0)
		rc = rctl_client_send(c, "\n", 1, err, errlen);
	free(text);
	if (rc < 0)
		return NULL;
	return rctl_client_reply(c, err, errlen);
}

void
rctl_client_close(struct rctl_client *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->buf);
	c->buf = NULL;
	c->len = c->cap = 0;
	free(c->out);
	c->out = NULL;
	c->out_len = 0;
}
