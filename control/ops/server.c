/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <rte_log.h>

#include "etcd/sync.h"
#include "ops/server.h"

int
sy_server_open(struct sy_server *s, const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char dir[108], *slash;
	mode_t old;
	int fd;

	memset(s, 0, sizeof(*s));
	s->listen_fd = -1;
	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	snprintf(s->path, sizeof(s->path), "%s", path);
	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash != NULL && slash != dir) {
		*slash = '\0';
		if (mkdir(dir, 0755) < 0 && errno != EEXIST)
			return -errno;
	}
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	unlink(path);
	/* 0600 from the start: no window in which another user could connect. */
	old = umask(0177);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		int e = errno;

		umask(old);
		close(fd);
		return -e;
	}
	umask(old);
	if (listen(fd, 16) < 0) {
		int e = errno;

		close(fd);
		return -e;
	}
	s->listen_fd = fd;
	return 0;
}

unsigned
sy_server_pollfds(struct sy_server *s, struct pollfd *pfds, unsigned max)
{
	unsigned i, n = 0;

	if (max == 0)
		return 0;
	pfds[n++] = (struct pollfd){ .fd = s->listen_fd, .events = POLLIN };
	/* A client whose request waits for etcd is not read meanwhile, so
	 * that its replies stay in the order of its requests. */
	for (i = 0; i < s->n_clients && n < max; i++)
		pfds[n++] = (struct pollfd){ .fd = s->clients[i].fd,
					     .events = s->clients[i].pending ? 0 : POLLIN };
	return n;
}

static void
drop_client(struct sy_server *s, unsigned i)
{
	close(s->clients[i].fd);
	free(s->clients[i].buf);
	s->clients[i] = s->clients[--s->n_clients];
}

/* Only root and routerd's own user may drive the router. */
static bool
peer_allowed(int fd)
{
	struct ucred cred;
	socklen_t len = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0)
		return false;
	return cred.uid == 0 || cred.uid == geteuid();
}

static void
accept_clients(struct sy_server *s)
{
	for (;;) {
		int fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		struct timeval tv = { .tv_sec = 5 };

		if (fd < 0)
			return;
		if (!peer_allowed(fd) || s->n_clients == SY_SERVER_MAX_CLIENTS) {
			RTE_LOG(WARNING, USER1, "control: refused a connection (%s)\n",
				s->n_clients == SY_SERVER_MAX_CLIENTS ? "too many clients"
								     : "peer is not root or our user");
			close(fd);
			continue;
		}
		/* Replies are written blocking, bounded by a timeout, so a client
		 * that stops reading cannot stall the control thread for long. */
		setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
		s->clients[s->n_clients++] = (struct sy_client){ .fd = fd };
	}
}

static int
send_reply(int fd, json_t *reply)
{
	char *text = json_dumps(reply, JSON_COMPACT);
	size_t len, off = 0;
	int rc = 0;

	json_decref(reply);
	if (text == NULL)
		return -ENOMEM;
	len = strlen(text);
	text[len++] = '\n'; /* overwrite the NUL: json_dumps output is NUL-terminated */
	while (off < len) {
		ssize_t w = send(fd, text + off, len - off, MSG_NOSIGNAL);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			rc = -errno;
			break;
		}
		off += (size_t)w;
	}
	free(text);
	return rc;
}

static int
handle_line(struct sy_router *r, struct sy_client *c, const char *line, size_t len)
{
	int fd = c->fd;
	json_error_t jerr;
	json_t *req, *reply;

	while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
		len--;
	if (len == 0)
		return 0; /* blank lines are not requests */
	req = json_loadb(line, len, JSON_REJECT_DUPLICATES, &jerr);
	if (req == NULL)
		reply = sy_err_reply1("bad_request", NULL, NULL, "not JSON: %s at column %d", jerr.text,
				      jerr.column);
	else
		reply = sy_ops_handle(r, req);
	json_decref(req);
	/* Written through to etcd: the reply comes when etcd answered, and
	 * the control thread serves the others meanwhile. */
	if (sy_etcd_pending_id(reply) != 0) {
		c->pending = sy_etcd_pending_id(reply);
		json_decref(reply);
		return 0;
	}
	return send_reply(fd, reply);
}

/* Read what is there; answer every complete line. Returns -1 to drop. */
static int
read_client(struct sy_client *c, struct sy_router *r)
{
	char chunk[65536];

	for (;;) {
		ssize_t n = recv(c->fd, chunk, sizeof(chunk), MSG_DONTWAIT);
		const char *p = chunk, *end;

		if (n == 0)
			return -1;
		if (n < 0)
			return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : -1;
		end = chunk + n;
		while (p < end) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			size_t take = (size_t)((nl ? nl : end) - p);

			if (c->discarding) {
				if (nl != NULL)
					c->discarding = 0;
			} else if (c->len + take > SY_REQUEST_MAX) {
				c->discarding = nl == NULL;
				c->len = 0;
				if (send_reply(c->fd, sy_err_reply1("too_large", NULL, NULL,
								    "request longer than %u bytes; "
								    "split it into several applies",
								    SY_REQUEST_MAX)) < 0)
					return -1;
			} else {
				if (c->len + take > c->cap) {
					size_t cap = c->cap ? c->cap : 4096;
					char *b;

					while (cap < c->len + take)
						cap *= 2;
					b = realloc(c->buf, cap);
					if (b == NULL)
						return -1;
					c->buf = b;
					c->cap = cap;
				}
				memcpy(c->buf + c->len, p, take);
				c->len += take;
				if (nl != NULL) {
					int rc = handle_line(r, c, c->buf, c->len);

					c->len = 0;
					if (rc < 0)
						return -1;
				}
			}
			p += take + (nl != NULL);
		}
	}
}

void
sy_server_handle(struct sy_server *s, struct sy_router *r, const struct pollfd *pfds, unsigned n)
{
	unsigned i;

	if (n > 0 && (pfds[0].revents & POLLIN))
		accept_clients(s);
	/* Walk backwards: drop_client moves the last client into the hole. */
	for (i = n; i-- > 1;) {
		unsigned ci = i - 1;

		if (pfds[i].revents == 0 || ci >= s->n_clients || s->clients[ci].fd != pfds[i].fd)
			continue;
		if ((pfds[i].revents & (POLLIN | POLLHUP | POLLERR)) && read_client(&s->clients[ci], r) < 0)
			drop_client(s, ci);
	}
}

void
sy_server_complete(struct sy_server *s, uint64_t id, json_t *reply)
{
	unsigned i;

	for (i = 0; i < s->n_clients; i++)
		if (s->clients[i].pending == id) {
			s->clients[i].pending = 0;
			if (send_reply(s->clients[i].fd, reply) < 0)
				drop_client(s, i);
			return;
		}
	json_decref(reply); /* the client left, or the scheduler's own apply */
}

void
sy_server_close(struct sy_server *s)
{
	while (s->n_clients > 0)
		drop_client(s, s->n_clients - 1);
	if (s->listen_fd >= 0) {
		close(s->listen_fd);
		unlink(s->path);
	}
	s->listen_fd = -1;
}
