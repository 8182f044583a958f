/* SPDX-License-Identifier: BSD-3-Clause */
/* The metrics endpoint (metrics_http.h). */
#include <errno.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include "observe/metrics.h"
#include "observe/metrics_http.h"
#include "observe/status_page.h"
#include "router.h"

#define REQ_MAX 4096

int
sy_metrics_http_open(uint32_t addr, uint16_t port)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = addr };
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0), one = 1, rc;

	if (fd < 0)
		return -errno;
	(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 16) < 0) {
		rc = -errno;
		close(fd);
		return rc;
	}
	return fd;
}

static void
send_all(int fd, const char *p, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, p, n, MSG_NOSIGNAL);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return; /* gone, or too slow: SO_SNDTIMEO */
		p += w;
		n -= (size_t)w;
	}
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

#define NOT_SERVED "only GET /metrics, /, /status and /status.json are served here\n"

/* The page the request line's target names (query ignored), or NULL. */
static const struct page *
page_for(const char *target)
{
	size_t n = strcspn(target, " ?\r\n"), i;

	for (i = 0; i < sizeof(pages) / sizeof(pages[0]); i++)
		if (strlen(pages[i].path) == n && memcmp(pages[i].path, target, n) == 0)
			return &pages[i];
	return NULL;
}

static void
answer(int fd, struct sy_router *r)
{
	char req[REQ_MAX + 1], hdr[320];
	size_t got = 0;
	const char *status = "404 Not Found", *type = "text/plain; charset=utf-8";
	const char *body = NOT_SERVED;
	char *made = NULL;
	size_t blen = strlen(NOT_SERVED);
	const struct page *pg = NULL;
	bool head_only = false, get = false;

	/* The request head, up to its blank line (or the limit). */
	while (got < REQ_MAX && (got < 4 || memcmp(req + got - 4, "\r\n\r\n", 4) != 0)) {
		ssize_t n = recv(fd, req + got, REQ_MAX - got, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
		req[got] = '\0';
		if (strstr(req, "\r\n\r\n") != NULL || strstr(req, "\n\n") != NULL)
			break;
	}
	req[got] = '\0';
	if (strncmp(req, "HEAD ", 5) == 0)
		head_only = true;
	else if (strncmp(req, "GET ", 4) == 0)
		get = true;
	if (get || head_only)
		pg = page_for(req + (get ? 4 : 5));
	else
		status = "405 Method Not Allowed";
	if (pg != NULL && pg->make != NULL) {
		made = pg->make(r, &blen);
		/* What a page warmed goes back to rest, as after a control
		 * request (store.h). */
		sy_store_cool(&r->store);
		if (made != NULL) {
			status = "200 OK";
			type = pg->type;
			body = made;
		} else {
			status = "500 Internal Server Error";
			blen = 0;
		}
	} else if (pg != NULL) {
		status = "200 OK";
		type = pg->type;
		body = pg->fixed;
		blen = *pg->fixed_len;
	}
	/* The page's data changes every fetch: no cache may answer for it. */
	snprintf(hdr, sizeof(hdr),
		 "HTTP/1.1 %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		 "Cache-Control: no-store\r\nConnection: close\r\n\r\n",
		 status, type, blen);
	send_all(fd, hdr, strlen(hdr));
	if (!head_only && blen > 0)
		send_all(fd, body, blen);
	free(made);
}

void
sy_metrics_http_serve(int lfd, struct sy_router *r)
{
	/* Bounded: a flood of connections cannot keep the control thread. */
	unsigned i;

	for (i = 0; i < 16; i++) {
		struct timeval rcv = { .tv_sec = 0, .tv_usec = 200000 }, snd = { .tv_sec = 1 };
		int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);

		if (fd < 0)
			return;
		(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &rcv, sizeof(rcv));
		(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &snd, sizeof(snd));
		answer(fd, r);
		close(fd);
	}
}
