/* SPDX-License-Identifier: BSD-3-Clause */
/* The metrics endpoint (metrics_http.h). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "store/age.h"
#include "observe/metrics.h"
#include "observe/metrics_http.h"
#include "observe/status_page.h"
#include "router.h"

int
sy_metrics_http_open(struct sy_metrics_http *s, uint32_t addr, uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = addr };
	int fd, one = 1, rc;

	memset(s, 0, sizeof(*s));
	s->listen_fd = -1;
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, SY_METRICS_HTTP_BACKLOG) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	s->listen_fd = fd;
	return 0;
}

/* What a path serves: a body made for the request (malloc'd), or a
 * constant one. */
struct page {
	const char *path;
	const char *type;
	char *(*make)(struct sy_router *r, size_t *len);
	const char *fixed;
	const size_t *fixed_len;
};

static const struct page pages[] = {
	{ "/metrics", "text/plain; version=0.0.4; charset=utf-8", sy_metrics_text, NULL, NULL },
	{ "/status.json", "application/json", sy_status_page_json, NULL, NULL },
	{ "/", "text/html; charset=utf-8", NULL, sy_status_page_html, &sy_status_page_html_len },
	{ "/status", "text/html; charset=utf-8", NULL, sy_status_page_html,
	  &sy_status_page_html_len },
};

#define STR_(x) #x
#define STR(x) STR_(x)

#define NOT_SERVED "only GET /metrics, /, /status and /status.json are served here\n"

/* The page the request target names (query ignored), or NULL. */
static const struct page *
page_for(const char *target, size_t len)
{
	size_t n = 0, i;

	while (n < len && target[n] != '?')
		n++;
	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		if (strlen(pages[i].path) == n && memcmp(pages[i].path, target, n) == 0)
			return &pages[i];
	return NULL;
}

static void
drop(struct sy_metrics_http *s, unsigned i)
{
	struct sy_mhttp_conn *c = &s->conns[i];

	s->out_bytes -= sy_conn_out_left(&c->out);
	sy_conn_out_free(&c->out);
	free(c->head);
	close(c->fd);
	*c = s->conns[--s->n];
	s->st.open = s->n;
}

/* The answer, status line to body, into c->out (rendered now, once). */
static void
make_answer(struct sy_metrics_http *s, struct sy_mhttp_conn *c, const char *status, const char *extra,
	    const char *type, const char *body, size_t blen, bool head_only)
{
	char hdr[384];
	int h;

	/* The page's data changes every fetch: no cache may answer for it. */
	h = snprintf(hdr, sizeof(hdr),
		     "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n%s"
		     "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
		     status, type, blen, extra);
	if (head_only)
		blen = 0;
	c->out.buf = malloc((size_t)h + blen);
	if (c->out.buf == NULL)
		return; /* nothing to write: closed as answered */
	memcpy(c->out.buf, hdr, (size_t)h);
	if (blen > 0)
		memcpy(c->out.buf + h, body, blen);
	c->out.len = (size_t)h + blen;
	c->out.off = 0;
	s->out_bytes += c->out.len;
}

/* An answer of ours in plain text. */
static void
text_answer(struct sy_metrics_http *s, struct sy_mhttp_conn *c, const char *status, const char *extra,
	    const char *msg, bool head_only)
{
	make_answer(s, c, status, extra, "text/plain; charset=utf-8", msg, strlen(msg), head_only);
}

/* The head is whole (or the client ended it with its request line): the
 * answer, made once. */
static void
answer(struct sy_metrics_http *s, struct sy_mhttp_conn *c, struct sy_router *r)
{
	const char *line = c->head, *eol = memchr(c->head, '\n', c->head_len);
	size_t llen = eol ? (size_t)(eol - line) : c->head_len;
	const char *sp = memchr(line, ' ', llen), *target, *tend;
	const struct page *pg;
	bool head_only;

	c->phase = SY_MHTTP_ANSWER;
	if (llen > 0 && line[llen - 1] == '\r')
		llen--;
	if (sp == NULL || sp == line) {
		s->st.refused[SY_CONN_BAD_REQUEST]++;
		text_answer(s, c, "400 Bad Request", "",
			    "not an HTTP request line (METHOD TARGET VERSION)\n", false);
		return;
	}
	head_only = sp - line == 4 && memcmp(line, "HEAD", 4) == 0;
	if (!head_only && !(sp - line == 3 && memcmp(line, "GET", 3) == 0)) {
		text_answer(s, c, "405 Method Not Allowed", "Allow: GET, HEAD\r\n", NOT_SERVED, false);
		return;
	}
	target = sp + 1;
	tend = memchr(target, ' ', (size_t)(line + llen - target));
	pg = page_for(target, (size_t)((tend ? tend : line + llen) - target));
	if (pg == NULL) {
		text_answer(s, c, "404 Not Found", "", NOT_SERVED, head_only);
	} else if (pg->make == NULL) {
		make_answer(s, c, "200 OK", "", pg->type, pg->fixed, *pg->fixed_len, head_only);
	} else if (s->out_bytes >= SY_METRICS_HTTP_OUT_MAX) {
		/* Slow readers hold what answers may: no page is rendered
		 * until they took theirs or timed out. */
		s->st.refused[SY_CONN_BUSY]++;
		text_answer(s, c, "503 Service Unavailable", "Retry-After: 1\r\n",
			    "answers to slow readers fill the buffers\n", false);
	} else {
		size_t blen = 0;
		char *body = pg->make(r, &blen);

		/* What a page warmed goes back to rest, as after a control
		 * request (store.h). */
		sy_store_cool(&r->store);
		if (body != NULL)
			make_answer(s, c, "200 OK", "", pg->type, body, blen, head_only);
		else
			text_answer(s, c, "500 Internal Server Error", "", "", false);
		free(body);
	}
}

/* The head ends at its blank line; only the bytes new since `from` need a
 * look (a byte a read must not cost a scan of the whole head). */
static bool
head_whole(const char *h, size_t len, size_t from)
{
	size_t i = from > 3 ? from - 3 : 0;

	for (; i + 1 < len; i++)
		if (h[i] == '\n' && (h[i + 1] == '\n' ||
				     (h[i + 1] == '\r' && i + 2 < len && h[i + 2] == '\n')))
			return true;
	return false;
}

/* The head is whole: the answer is made in the next round (render_round),
 * and taken whole within SY_METRICS_HTTP_ANSWER_MS. */
static void
ready(struct sy_metrics_http *s, struct sy_mhttp_conn *c, uint64_t now_ms)
{
	c->phase = SY_MHTTP_READY;
	c->ready_seq = ++s->ready_seq;
	c->deadline_ms = now_ms + SY_METRICS_HTTP_ANSWER_MS;
}

/* Read what the client sent. 0: go on, -1: close it (counted). */
static int
read_head(struct sy_metrics_http *s, struct sy_mhttp_conn *c, uint64_t now_ms)
{
	for (;;) {
		size_t from = c->head_len;
		/* One byte past the limit: a head that fills it exactly and
		 * goes on is over it. */
		ssize_t n = recv(c->fd, c->head + c->head_len, SY_METRICS_HTTP_HEAD_MAX + 1 - c->head_len,
				 MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n == 0 && memchr(c->head, '\n', c->head_len) != NULL) {
			/* Ended after its request line (`printf 'GET /metrics\n' |
			 * nc -N`): answered as if whole. */
			c->last_ms = now_ms;
			ready(s, c, now_ms);
			return 0;
		}
		if (n <= 0) {
			s->st.aborted++;
			return -1;
		}
		c->head_len += (size_t)n;
		c->last_ms = now_ms;
		if (head_whole(c->head, c->head_len, from)) {
			ready(s, c, now_ms);
			return 0;
		}
		if (c->head_len > SY_METRICS_HTTP_HEAD_MAX) {
			s->st.refused[SY_CONN_TOO_LARGE]++;
			c->phase = SY_MHTTP_ANSWER;
			c->deadline_ms = now_ms + SY_METRICS_HTTP_ANSWER_MS;
			text_answer(s, c, "431 Request Header Fields Too Large", "",
				    "request head longer than " STR(SY_METRICS_HTTP_HEAD_MAX) " bytes\n",
				    false);
			return 0;
		}
	}
}

/* Write what the client takes of the answer; once all of it is, shut our
 * side and linger. 0: go on, -1: close it. */
static int
write_answer(struct sy_metrics_http *s, struct sy_mhttp_conn *c, uint64_t now_ms)
{
	size_t left = sy_conn_out_left(&c->out);
	int rc = c->out.buf == NULL ? 1 : sy_conn_out_flush(c->fd, &c->out);

	s->out_bytes -= left - sy_conn_out_left(&c->out);
	if (sy_conn_out_left(&c->out) < left)
		c->last_ms = now_ms;
	if (rc < 0) {
		s->st.aborted++;
		return -1;
	}
	if (rc > 0) {
		s->st.answers++;
		(void)shutdown(c->fd, SHUT_WR);
		c->phase = SY_MHTTP_LINGER;
		c->deadline_ms = now_ms + SY_METRICS_HTTP_LINGER_MS;
	}
	return 0;
}

/* Read and drop what the client still sends. -1: it closed (or reset):
 * close it. */
static int
linger(struct sy_mhttp_conn *c)
{
	char sink[4096];
	unsigned k;

	/* Bounded a turn: a client sending without end is closed at the
	 * deadline, not served here. */
	for (k = 0; k < 16; k++) {
		ssize_t n = recv(c->fd, sink, sizeof(sink), MSG_DONTWAIT);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0)
			return -1;
	}
	return 0;
}

/* Write what the client takes of connection i's answer, or read what it
 * still sends while lingering. 0: keep it, -1: closed. */
static int
answer_step(struct sy_metrics_http *s, unsigned i, uint64_t now_ms)
{
	struct sy_mhttp_conn *c = &s->conns[i];

	if (c->phase == SY_MHTTP_ANSWER) {
		/* The head is no longer needed: only the answer is kept. */
		free(c->head);
		c->head = NULL;
		if (write_answer(s, c, now_ms) < 0)
			goto close;
	}
	if (c->phase == SY_MHTTP_LINGER && linger(c) < 0)
		goto close;
	return 0;
close:
	drop(s, i);
	return -1;
}

/* Serve connection i for what poll said. */
static void
serve(struct sy_metrics_http *s, unsigned i, uint64_t now_ms)
{
	if (s->conns[i].phase == SY_MHTTP_HEAD && read_head(s, &s->conns[i], now_ms) < 0)
		drop(s, i);
	else
		(void)answer_step(s, i, now_ms);
}

/* The answers of the heads that are whole, made in the order the heads
 * came, SY_METRICS_HTTP_ROUND_MS of them a turn after the first (the rest at
 * the next turn): a burst of scrapes costs the control thread's other work a
 * few ms a turn, not a rendering each. */
static void
render_round(struct sy_metrics_http *s, struct sy_router *r, uint64_t now_ms)
{
	uint64_t t0 = sy_mono_ms();
	unsigned made = 0;

	for (;;) {
		unsigned i, next = s->n;

		for (i = 0; i < s->n; i++)
			if (s->conns[i].phase == SY_MHTTP_READY &&
			    (next == s->n || s->conns[i].ready_seq < s->conns[next].ready_seq))
				next = i;
		if (next == s->n || (made > 0 && sy_mono_ms() - t0 >= SY_METRICS_HTTP_ROUND_MS))
			return;
		answer(s, &s->conns[next], r);
		made++;
		(void)answer_step(s, next, now_ms);
	}
}

/* Full: the connection to close for a new one (stream_conn.h: never one
 * whose page is to be rendered), or -1 with *at_ms when one may be. */
static int
victim(const struct sy_metrics_http *s, uint64_t now_ms, uint64_t *at_ms)
{
	struct sy_conn_age v[SY_METRICS_HTTP_MAX_CONNS];
	unsigned i;

	for (i = 0; i < s->n; i++) {
		const struct sy_mhttp_conn *c = &s->conns[i];

		v[i] = (struct sy_conn_age){ .last_ms = c->last_ms, .accepted_ms = c->accepted_ms,
					     .silent = c->phase == SY_MHTTP_HEAD && c->head_len == 0,
					     .hold = c->phase == SY_MHTTP_READY ? SY_CONN_ANSWER
										: SY_CONN_FREE };
	}
	return sy_conn_victim(v, s->n, now_ms, at_ms);
}

int
sy_metrics_http_adopt(struct sy_metrics_http *s, int fd, uint64_t now_ms)
{
	struct sy_mhttp_conn *c;

	if (s->n == SY_METRICS_HTTP_MAX_CONNS) {
		uint64_t at;
		int old = victim(s, now_ms, &at);

		if (old < 0) {
			s->st.refused[SY_CONN_FULL]++;
			close(fd);
			return -1;
		}
		s->st.refused[SY_CONN_EVICTED]++;
		drop(s, (unsigned)old);
	}
	(void)fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
	c = &s->conns[s->n];
	*c = (struct sy_mhttp_conn){ .fd = fd, .last_ms = now_ms, .accepted_ms = now_ms,
				     .deadline_ms = now_ms + SY_METRICS_HTTP_HEAD_MS };
	c->head = malloc(SY_METRICS_HTTP_HEAD_MAX + 1);
	if (c->head == NULL) {
		close(fd);
		return -1;
	}
	s->n++;
	s->st.connections++;
	s->st.open = s->n;
	return 0;
}

unsigned
sy_metrics_http_pollfds(const struct sy_metrics_http *s, struct pollfd *pfds, unsigned max)
{
	unsigned i, n = 0;

	if (max == 0)
		return 0;
	/* -1 when not listening (poll skips it): connections may still be
	 * adopted. */
	pfds[n++] = (struct pollfd){ .fd = s->listen_fd, .events = s->accept_at_ms ? 0 : POLLIN };
	for (i = 0; i < s->n && n < max; i++)
		pfds[n++] = (struct pollfd){ .fd = s->conns[i].fd,
					     .events = s->conns[i].phase == SY_MHTTP_ANSWER ? POLLOUT
						       : s->conns[i].phase == SY_MHTTP_READY ? 0
											     : POLLIN };
	return n;
}

void
sy_metrics_http_handle(struct sy_metrics_http *s, struct sy_router *r, const struct pollfd *pfds,
		       unsigned n, uint64_t now_ms)
{
	unsigned i;

	/* Walk backwards: drop moves the last connection into the hole. */
	for (i = n; i-- > 1;) {
		unsigned ci = i - 1;

		if (pfds[i].revents == 0 || ci >= s->n || s->conns[ci].fd != pfds[i].fd)
			continue;
		serve(s, ci, now_ms);
	}
	for (i = s->n; i-- > 0;)
		if (now_ms >= s->conns[i].deadline_ms) {
			if (s->conns[i].phase == SY_MHTTP_HEAD)
				s->st.timed_out[SY_CONN_TIMEOUT_REQUEST]++;
			else if (s->conns[i].phase != SY_MHTTP_LINGER)
				s->st.timed_out[SY_CONN_TIMEOUT_ANSWER]++;
			drop(s, i); /* lingering: answered, nothing lost */
		}
	/* New connections after the events, so that an eviction moves none
	 * of the connections above under its pollfd, each read at once: the
	 * head a scrape sent with its connection is answered in this turn's
	 * round, before more of a flood could make it the one idle longest.
	 * While the table has room or a connection to close, twice the table
	 * a turn at most. */
	if (s->accept_at_ms != 0 && now_ms >= s->accept_at_ms)
		s->accept_at_ms = 0; /* what waited in the backlog */
	else if (n == 0 || !(pfds[0].revents & POLLIN))
		goto render;
	for (i = 0; s->listen_fd >= 0 && i < 2 * SY_METRICS_HTTP_MAX_CONNS; i++) {
		uint64_t at;
		int fd;

		/* None may be closed: the rest waits in the backlog, not
		 * polled, until one may. */
		if (s->n == SY_METRICS_HTTP_MAX_CONNS && victim(s, now_ms, &at) < 0) {
			s->accept_at_ms = at;
			break;
		}
		fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);
		if (fd < 0)
			break;
		if (sy_metrics_http_adopt(s, fd, now_ms) == 0 &&
		    read_head(s, &s->conns[s->n - 1], now_ms) < 0)
			drop(s, s->n - 1);
	}
render:
	render_round(s, r, now_ms);
}

int
sy_metrics_http_timeout_ms(const struct sy_metrics_http *s, uint64_t now_ms)
{
	uint64_t next = s->accept_at_ms ? s->accept_at_ms : UINT64_MAX;
	unsigned i;

	for (i = 0; i < s->n; i++) {
		if (s->conns[i].phase == SY_MHTTP_READY)
			return 0; /* its answer is to be made */
		if (s->conns[i].deadline_ms < next)
			next = s->conns[i].deadline_ms;
	}
	if (next == UINT64_MAX)
		return -1;
	return next <= now_ms ? 0 : (int)(next - now_ms);
}

void
sy_metrics_http_close(struct sy_metrics_http *s)
{
	while (s->n > 0)
		drop(s, s->n - 1);
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	s->listen_fd = -1;
}
