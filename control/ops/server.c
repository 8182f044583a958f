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

#include "store/age.h"
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
	if (listen(fd, SY_SERVER_BACKLOG) < 0) {
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
	/* Not while full of clients none of which may be closed yet: the
	 * backlog waits (accept_clients). */
	pfds[n++] = (struct pollfd){ .fd = s->listen_fd, .events = s->accept_at_ms ? 0 : POLLIN };
	/* A client whose reply is being written, or whose request waits for
	 * etcd, is not read meanwhile: its replies stay in the order of its
	 * requests, and one that never reads holds one reply. */
	for (i = 0; i < s->n_clients && n < max; i++) {
		const struct sy_client *c = &s->clients[i];

		pfds[n++] = (struct pollfd){ .fd = c->fd,
					     .events = c->out.buf != NULL ? POLLOUT
						       : c->pending  ? 0
								     : POLLIN };
	}
	return n;
}

static void
drop_client(struct sy_server *s, unsigned i)
{
	close(s->clients[i].fd);
	free(s->clients[i].buf);
	sy_conn_out_free(&s->clients[i].out);
	s->clients[i] = s->clients[--s->n_clients];
	s->st.open = s->n_clients;
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

/* Write what the client takes of its reply. -1: drop it. */
static int
flush_reply(struct sy_server *s, struct sy_client *c, uint64_t now_ms)
{
	size_t left = sy_conn_out_left(&c->out);
	int rc = sy_conn_out_flush(c->fd, &c->out);

	if (sy_conn_out_left(&c->out) < left)
		c->last_ms = now_ms;
	if (rc < 0) {
		s->st.aborted++;
		return -1;
	}
	s->st.answers += rc > 0;
	return 0;
}

/* The reply, written as far as the client takes it now; the rest waits
 * for POLLOUT. -1: drop the client. */
static int
send_reply(struct sy_server *s, struct sy_client *c, json_t *reply, uint64_t now_ms)
{
	char *text = json_dumps(reply, JSON_COMPACT);
	size_t len;

	json_decref(reply);
	if (text == NULL)
		return -1;
	len = strlen(text);
	text[len++] = '\n'; /* overwrite the NUL: json_dumps output is NUL-terminated */
	c->out = (struct sy_conn_out){ .buf = text, .len = len };
	c->last_ms = now_ms;
	return flush_reply(s, c, now_ms);
}

static int
handle_line(struct sy_server *s, struct sy_router *r, struct sy_client *c, const char *line,
	    size_t len, uint64_t now_ms)
{
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
	return send_reply(s, c, reply, now_ms);
}

/* A line over SY_REQUEST_MAX: refused, not parsed. */
static int
refuse_too_large(struct sy_server *s, struct sy_client *c, uint64_t now_ms)
{
	s->st.refused[SY_CONN_TOO_LARGE]++;
	return send_reply(s, c,
			  sy_err_reply1("too_large", NULL, NULL,
					"request longer than %u bytes; split it into several applies",
					SY_REQUEST_MAX),
			  now_ms);
}

/* Answer the next whole line read, if nothing waits (a reply being
 * written, a request parked for etcd). One request a client a turn: a
 * client's pipeline of costly requests delays the others by one of them at
 * most. 1: a request was answered (or parked), 0: no whole line yet, -1:
 * drop the client. */
static int
handle_next(struct sy_server *s, struct sy_router *r, struct sy_client *c, uint64_t now_ms)
{
	while (c->pending == 0 && c->out.buf == NULL) {
		char *nl = c->len > c->scanned ? memchr(c->buf + c->scanned, '\n', c->len - c->scanned)
					       : NULL;
		bool request = true;
		size_t take;
		int rc = 0;

		if (nl == NULL) {
			c->scanned = c->len;
			break;
		}
		take = (size_t)(nl - c->buf) + 1;
		if (c->discarding) {
			request = false; /* the end of a line over the limit */
			c->discarding = 0;
		} else if (take - 1 > SY_REQUEST_MAX) {
			rc = refuse_too_large(s, c, now_ms);
		} else {
			rc = handle_line(s, r, c, c->buf, take - 1, now_ms);
		}
		memmove(c->buf, c->buf + take, c->len - take);
		c->len -= take;
		c->scanned = 0;
		if (rc < 0)
			return -1;
		if (request)
			return 1;
	}
	if (c->scanned < c->len)
		return 0; /* a reply or etcd first */
	if (c->discarding) {
		c->len = c->scanned = 0; /* more of the line over the limit */
	} else if (c->len > SY_REQUEST_MAX) {
		/* Refused once, before its end: the rest is dropped as it
		 * comes. */
		c->discarding = 1;
		c->len = c->scanned = 0;
		return refuse_too_large(s, c, now_ms) < 0 ? -1 : 1;
	}
	return 0;
}

/* A request is whole (or over the limit) and nothing waits before it. */
static bool
has_request(const struct sy_client *c)
{
	return c->pending == 0 && c->out.buf == NULL &&
	       (c->scanned < c->len || (c->len > SY_REQUEST_MAX && !c->discarding));
}

/* Read until a whole line is there, or nothing more is now; the line is
 * answered by sy_server_handle's round. -1: drop the client. */
static int
read_client(struct sy_client *c, uint64_t now_ms)
{
	while (c->pending == 0 && c->out.buf == NULL) {
		ssize_t n;

		if (c->len > c->scanned && memchr(c->buf + c->scanned, '\n', c->len - c->scanned) != NULL)
			return 0;
		c->scanned = c->len;
		if (c->discarding)
			c->len = c->scanned = 0; /* more of the line over the limit */
		else if (c->len > SY_REQUEST_MAX)
			return 0; /* refused in the round */
		if (c->cap - c->len < 65536) {
			size_t cap = c->cap ? c->cap * 2 : 65536 * 2;
			char *b = realloc(c->buf, cap);

			if (b == NULL)
				return -1;
			c->buf = b;
			c->cap = cap;
		}
		n = recv(c->fd, c->buf + c->len, c->cap - c->len, MSG_DONTWAIT);
		if (n == 0)
			return -1;
		if (n < 0)
			return (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) ? 0 : -1;
		c->len += (size_t)n;
		c->last_ms = now_ms;
	}
	return 0;
}

/* Full: the client to close for a new one (stream_conn.h), or -1 with
 * *at_ms when one may be (0: every client waits for etcd). */
static int
idle_longest(const struct sy_server *s, uint64_t now_ms, uint64_t *at_ms)
{
	struct sy_conn_age v[SY_SERVER_MAX_CLIENTS];
	unsigned i;

	for (i = 0; i < s->n_clients; i++) {
		const struct sy_client *c = &s->clients[i];

		v[i] = (struct sy_conn_age){ .last_ms = c->last_ms, .accepted_ms = c->accepted_ms,
					     .silent = c->len == 0 && c->served_ms == 0 && !c->discarding,
					     .hold = c->pending != 0 ? SY_CONN_PARKED
						     : has_request(c) ? SY_CONN_ANSWER
								      : SY_CONN_FREE };
	}
	return sy_conn_victim(v, s->n_clients, now_ms, at_ms);
}

/* New clients, each read at once: a request that came with the connection
 * (routerctl's) is answered in this turn's round. While the table has room
 * or a client to close, twice the table a turn at most; else the rest of a
 * flood waits in the backlog, not polled, until a client may be closed. */
static void
accept_clients(struct sy_server *s, uint64_t now_ms)
{
	unsigned k;

	for (k = 0; k < 2 * SY_SERVER_MAX_CLIENTS; k++) {
		bool full = s->n_clients == SY_SERVER_MAX_CLIENTS;
		uint64_t at = 0;
		int old = full ? idle_longest(s, now_ms, &at) : -1, fd;

		if (full && old < 0 && (s->accept_at_ms = at) != 0)
			return;
		fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			return;
		if (!peer_allowed(fd)) {
			RTE_LOG(WARNING, USER1, "control: refused a connection (peer is not root or our user)\n");
			s->st.refused[SY_CONN_PEER]++;
			close(fd);
			continue;
		}
		if (full && old < 0) {
			RTE_LOG(WARNING, USER1, "control: refused a connection (%u clients wait for etcd)\n",
				s->n_clients);
			s->st.refused[SY_CONN_FULL]++;
			close(fd);
			continue;
		}
		if (full) {
			s->st.refused[SY_CONN_EVICTED]++;
			drop_client(s, (unsigned)old);
		}
		s->clients[s->n_clients++] = (struct sy_client){ .fd = fd, .last_ms = now_ms,
								 .accepted_ms = now_ms };
		s->st.connections++;
		s->st.open = s->n_clients;
		if (read_client(&s->clients[s->n_clients - 1], now_ms) < 0)
			drop_client(s, s->n_clients - 1);
	}
}

/* The round of requests of a turn: one a client, those served longest ago
 * first (a fresh `routerctl` before the pipelines of busy clients), until
 * SY_SERVER_ROUND_MS have gone (the rest at the next turn, where they come
 * after the fresh ones again): a client that keeps the server busy costs
 * another's request a round at most, and the control thread's other work a
 * few ms a turn. */
static void
request_round(struct sy_server *s, struct sy_router *r, uint64_t now_ms)
{
	unsigned order[SY_SERVER_MAX_CLIENTS], k = 0, i, j;
	uint64_t t0 = sy_mono_ms();

	for (i = 0; i < s->n_clients; i++) {
		if (!has_request(&s->clients[i]))
			continue;
		/* By served_ms, insertion: 64 at most. */
		for (j = k++; j > 0 && s->clients[order[j - 1]].served_ms > s->clients[i].served_ms; j--)
			order[j] = order[j - 1];
		order[j] = i;
	}
	for (i = 0; i < k; i++) {
		struct sy_client *c = &s->clients[order[i]];
		int rc;

		if (i > 0 && sy_mono_ms() - t0 >= SY_SERVER_ROUND_MS)
			break;
		rc = handle_next(s, r, c, now_ms);
		if (rc > 0)
			c->served_ms = now_ms;
		if (rc < 0)
			c->gone = true; /* dropped after the round: the order stays true */
	}
	for (i = s->n_clients; i-- > 0;)
		if (s->clients[i].gone)
			drop_client(s, i);
}

void
sy_server_handle(struct sy_server *s, struct sy_router *r, const struct pollfd *pfds, unsigned n,
		 uint64_t now_ms)
{
	unsigned i;

	/* Walk backwards: drop_client moves the last client into the hole. */
	for (i = n; i-- > 1;) {
		unsigned ci = i - 1;
		struct sy_client *c = &s->clients[ci];
		int rc = 0;

		if (pfds[i].revents == 0 || ci >= s->n_clients || c->fd != pfds[i].fd)
			continue;
		if (c->out.buf != NULL)
			rc = flush_reply(s, c, now_ms);
		else if (c->pending == 0)
			rc = read_client(c, now_ms);
		else if (pfds[i].revents & (POLLHUP | POLLERR))
			rc = -1; /* gone while etcd has its request: the reply goes nowhere */
		if (rc < 0)
			drop_client(s, ci);
	}
	for (i = s->n_clients; i-- > 0;)
		if (s->clients[i].out.buf != NULL && now_ms - s->clients[i].last_ms >= SY_SERVER_SEND_MS) {
			s->st.timed_out[SY_CONN_TIMEOUT_ANSWER]++;
			drop_client(s, i);
		}
	/* New clients after the events, so that an eviction moves none of
	 * the clients above under its pollfd; before the round, which answers
	 * what they brought. */
	if (s->accept_at_ms != 0 && now_ms >= s->accept_at_ms) {
		s->accept_at_ms = 0;
		accept_clients(s, now_ms); /* what waited in the backlog */
	} else if (n > 0 && (pfds[0].revents & POLLIN)) {
		accept_clients(s, now_ms);
	}
	request_round(s, r, now_ms);
}

int
sy_server_timeout_ms(const struct sy_server *s, uint64_t now_ms)
{
	int64_t t = -1;
	unsigned i;

	if (s->accept_at_ms != 0)
		t = s->accept_at_ms > now_ms ? (int64_t)(s->accept_at_ms - now_ms) : 0;

	for (i = 0; i < s->n_clients; i++) {
		const struct sy_client *c = &s->clients[i];

		if (c->out.buf != NULL) {
			int64_t d = (int64_t)(c->last_ms + SY_SERVER_SEND_MS) - (int64_t)now_ms;

			if (t < 0 || d < t)
				t = d < 0 ? 0 : d;
		} else if (has_request(c)) {
			return 0;
		}
	}
	return (int)t;
}

void
sy_server_complete(struct sy_server *s, uint64_t id, json_t *reply)
{
	unsigned i;

	for (i = 0; i < s->n_clients; i++)
		if (s->clients[i].pending == id) {
			s->clients[i].pending = 0;
			/* Requests read after it are answered at the next turn
			 * (sy_server_timeout_ms is 0 then). */
			if (send_reply(s, &s->clients[i], reply, sy_mono_ms()) < 0)
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
