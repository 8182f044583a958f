/* SPDX-License-Identifier: BSD-3-Clause */
/* The access log's writer (access_log.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#include <jansson.h>
#include <rte_cycles.h>

#include "observe/access_log.h"
#include "sy_access_log.h"
#include "sy_config.h"
#include "sy_counters.h"
#include "sy_dataplane.h"

#define ALOG_BATCH 256
/* What a file (a FIFO's slow reader) has not taken yet, at most: lines
 * beyond it are dropped and counted, never waited for. */
#define ALOG_PENDING_MAX (1u << 20)

const char *sy_alog_syslog_socket = "/dev/log";

static struct {
	bool on, syslog, json;
	char path[256];
	int fd;         /* the file, or the syslog socket (-1: none now) */
	dev_t dev;
	ino_t ino;
	time_t checked; /* the last look for a rotated file, or connect to syslog */
	char *pending;  /* bytes written to the file's fd not yet taken */
	size_t pending_len;
	uint64_t written, dropped; /* lines */
} L = { .fd = -1 };

/*
 * Neither the file nor syslog may hold the control thread: a FIFO whose
 * reader stalls, a syslog daemon that stopped reading /dev/log (glibc's
 * syslog() then blocks in send) would stop applies and the control socket
 * with it. The file is opened O_NONBLOCK (no effect on a regular file; a
 * FIFO takes what its buffer holds), what it does not take waits in
 * `pending`, and syslog is a datagram socket of our own, sent MSG_DONTWAIT:
 * a line nobody takes now is dropped and counted (`routerctl stats`
 * access_log.lines_dropped), never waited for.
 */
static int
open_file(char *err, size_t errlen)
{
	struct stat st;
	int fd = open(L.path, O_WRONLY | O_APPEND | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0640);

	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "access_log: %s: %s%s", L.path, strerror(e),
			 e == ENXIO ? " (a FIFO nobody reads)" : "");
		return -e;
	}
	if (fstat(fd, &st) == 0) {
		L.dev = st.st_dev;
		L.ino = st.st_ino;
	}
	L.fd = fd;
	return 0;
}

/* Connect to the syslog socket (again); lines are dropped while it is not
 * there (the daemon restarting). */
static void
open_syslog(void)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd;

	if (L.fd >= 0)
		close(L.fd);
	L.fd = -1;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sy_alog_syslog_socket);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		close(fd);
		return;
	}
	L.fd = fd;
}

int
sy_alog_open(const struct sy_config *cfg, char *err, size_t errlen)
{
	sy_alog_close();
	if (cfg->access_log_to[0] == '\0')
		return 0;
	L.json = cfg->access_log_json;
	if (strcmp(cfg->access_log_to, "syslog") == 0) {
		L.syslog = true;
		L.on = true;
		L.checked = time(NULL);
		open_syslog();
		return 0;
	}
	snprintf(L.path, sizeof(L.path), "%s", cfg->access_log_to);
	if (open_file(err, errlen) < 0)
		return -EIO;
	L.on = true;
	return 0;
}

bool
sy_alog_enabled(void)
{
	return L.on;
}

/* Lines in n bytes of text. */
static uint64_t
lines_in(const char *p, size_t n)
{
	uint64_t k = 0;

	for (; n > 0; p++, n--)
		k += *p == '\n';
	return k;
}

/* Give the file what it takes now of what is pending. */
static void
flush_pending(void)
{
	size_t off = 0;

	while (L.fd >= 0 && off < L.pending_len) {
		ssize_t w = write(L.fd, L.pending + off, L.pending_len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && errno == EAGAIN)
			break;
		if (w <= 0) {
			/* Gone (a FIFO's reader left: EPIPE; a full disk):
			 * what waited is lost, counted. */
			L.dropped += lines_in(L.pending + off, L.pending_len - off);
			off = L.pending_len;
			break;
		}
		L.written += lines_in(L.pending + off, (size_t)w);
		off += (size_t)w;
	}
	/* (pending is NULL until a line ever had to wait) */
	if (off > 0 && off < L.pending_len)
		memmove(L.pending, L.pending + off, L.pending_len - off);
	L.pending_len -= off;
}

void
sy_alog_write_line(const char *line, size_t len)
{
	if (!L.on)
		return;
	if (L.syslog) {
		/* RFC 3164, as glibc's syslog() sends it: facility local0,
		 * level info. */
		char msg[1200], date[32];
		time_t now = time(NULL);
		struct tm tm;
		int n;

		localtime_r(&now, &tm);
		strftime(date, sizeof(date), "%b %e %H:%M:%S", &tm);
		n = snprintf(msg, sizeof(msg), "<%d>%s routerd[%d]: %.*s", LOG_LOCAL0 | LOG_INFO, date,
			     (int)getpid(), (int)len, line);
		if (n >= (int)sizeof(msg))
			n = (int)sizeof(msg) - 1;
		if (L.fd >= 0 && send(L.fd, msg, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) == n) {
			L.written++;
			return;
		}
		L.dropped++;
		/* Not there (ECONNREFUSED, ENOTCONN after a daemon restart):
		 * connect again, at most once a second. A full queue
		 * (EAGAIN) is only dropped. */
		if (L.fd < 0 || errno != EAGAIN) {
			if (time(NULL) != L.checked) {
				L.checked = time(NULL);
				open_syslog();
			}
		}
		return;
	}
	if (L.pending_len + len + 1 > ALOG_PENDING_MAX) {
		flush_pending();
		if (L.pending_len + len + 1 > ALOG_PENDING_MAX) {
			L.dropped++;
			return;
		}
	}
	if (L.pending == NULL && (L.pending = malloc(ALOG_PENDING_MAX)) == NULL) {
		L.dropped++;
		return;
	}
	memcpy(L.pending + L.pending_len, line, len);
	L.pending[L.pending_len + len] = '\n';
	L.pending_len += len + 1;
}

void
sy_alog_flush(void)
{
	flush_pending();
}

void
sy_alog_counts(uint64_t *written, uint64_t *dropped, size_t *pending)
{
	*written = L.written;
	*dropped = L.dropped;
	*pending = L.pending_len;
}

void
sy_alog_close(void)
{
	if (L.fd >= 0) {
		flush_pending();
		close(L.fd);
	}
	free(L.pending);
	memset(&L, 0, sizeof(L));
	L.fd = -1;
}

/* logrotate moved the file away (or removed it): write to a new one. */
static void
reopen_if_rotated(void)
{
	struct stat st;
	time_t now = time(NULL);
	char err[128];

	if (L.syslog || now == L.checked)
		return;
	L.checked = now;
	if (L.fd >= 0 && stat(L.path, &st) == 0 && st.st_dev == L.dev && st.st_ino == L.ino)
		return;
	if (L.fd >= 0) {
		flush_pending(); /* the old file's last lines, as far as it takes them */
		close(L.fd);
	}
	L.fd = -1;
	/* none: lines wait in pending (then are dropped) until it can be made */
	(void)open_file(err, sizeof(err));
}

static void
ip_port(char *buf, size_t len, uint32_t ip, uint16_t port_be)
{
	char a[INET_ADDRSTRLEN];

	if (ip == 0) {
		snprintf(buf, len, "-");
		return;
	}
	inet_ntop(AF_INET, &ip, a, sizeof(a));
	snprintf(buf, len, "%s:%u", a, ntohs(port_be));
}

/* An IPv6 endpoint as URLs write it (RFC 3986): "[ADDR]:PORT", the address
 * in its canonical text (RFC 5952, inet_ntop's). */
static void
ip6_port(char *buf, size_t len, const uint8_t ip[16], uint16_t port_be)
{
	struct sy_addr a = sy_addr_v6(ip);

	sy_addr_port_format(&a, ntohs(port_be), buf, len);
}

static void
ms(char *buf, size_t len, uint32_t us)
{
	if (us == SY_ALOG_NO_TIME)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%u", (us + 500) / 1000);
}

static const char *
mode_name(uint8_t m)
{
	return m == SY_ALOG_SPLICE ? "splice" : m == SY_ALOG_ANSWER ? "answer" : "proxy";
}

static const char *
termination(const struct sy_access_rec *r)
{
	return r->why < SY_ANSWER__COUNT ? sy_answer_reason_names[r->why] : "--";
}

/* The request's protocol as HAProxy's %HV says it; "-" where the router
 * did not read it (a spliced connection). */
static const char *
protocol(const struct sy_access_rec *r)
{
	switch (r->version) {
	case 20:
		return "HTTP/2.0";
	case 11:
		return "HTTP/1.1";
	case 10:
		return "HTTP/1.0";
	default:
		return "-";
	}
}

size_t
sy_alog_format(const struct sy_access_rec *r, bool json, double when, char *buf, size_t len)
{
	char client[INET6_ADDRSTRLEN + 8], front[INET6_ADDRSTRLEN + 8], back[INET6_ADDRSTRLEN + 8];
	char tc[16], tr[16], ta[16], date[64];
	long long msec = (long long)(when * 1000.0 + 0.5); /* 654.9999 ms is 655 */
	time_t secs = (time_t)(msec / 1000);
	int frac = (int)(msec % 1000);
	struct tm tm;
	int n;

	if (r->v6 & SY_ALOG_V6_CLIENT)
		ip6_port(client, sizeof(client), r->client6, r->client_port);
	else
		ip_port(client, sizeof(client), r->client_ip, r->client_port);
	if (r->v6 & SY_ALOG_V6_VIP)
		ip6_port(front, sizeof(front), r->vip6, r->vip_port);
	else
		ip_port(front, sizeof(front), r->vip, r->vip_port);
	if (r->v6 & SY_ALOG_V6_BACKEND)
		ip6_port(back, sizeof(back), r->backend6, r->backend_port);
	else
		ip_port(back, sizeof(back), r->backend_ip, r->backend_port);
	ms(tc, sizeof(tc), r->connect_us);
	ms(tr, sizeof(tr), r->resp_us);
	ms(ta, sizeof(ta), r->total_us);
	if (json) {
		json_t *o;
		char *s;

		gmtime_r(&secs, &tm);
		n = (int)strftime(date, sizeof(date), "%Y-%m-%dT%H:%M:%S", &tm);
		snprintf(date + n, sizeof(date) - (size_t)n, ".%03dZ", frac);
		o = json_pack("{s:s, s:s, s:s, s:s, s:s, s:o, s:o, s:o, s:o, s:I, s:I, s:s, s:s, "
			      "s:b, s:s, s:s, s:s, s:s, s:i}",
			      "time", date, "client", client, "frontend", front, "route",
			      r->route[0] ? r->route : "-", "backend", back, "connect_ms",
			      r->connect_us == SY_ALOG_NO_TIME ? json_null() : json_real(r->connect_us / 1e3),
			      "response_ms",
			      r->resp_us == SY_ALOG_NO_TIME ? json_null() : json_real(r->resp_us / 1e3),
			      "total_ms",
			      r->total_us == SY_ALOG_NO_TIME ? json_null() : json_real(r->total_us / 1e3),
			      "status", r->status ? json_integer(r->status) : json_null(), "bytes_out",
			      (json_int_t)r->bytes_out, "bytes_in", (json_int_t)r->bytes_in,
			      "termination", termination(r), "mode", mode_name(r->mode), "tls",
			      r->tls != 0, "host", r->host, "method", r->method, "target", r->target,
			      "protocol", protocol(r), "worker", (int)r->worker);
		s = o ? json_dumps(o, JSON_COMPACT) : NULL;
		n = snprintf(buf, len, "%s", s ? s : "{}");
		free(s);
		json_decref(o);
	} else {
		char status[8];

		localtime_r(&secs, &tm);
		n = (int)strftime(date, sizeof(date), "%d/%b/%Y:%H:%M:%S", &tm);
		snprintf(date + n, sizeof(date) - (size_t)n, ".%03d", frac);
		if (r->status)
			snprintf(status, sizeof(status), "%u", r->status);
		else
			snprintf(status, sizeof(status), "-");
		n = snprintf(buf, len, "%s [%s] %s %s %s %s/%s/%s %s %llu %llu %s %s%s {%s} \"%s %s%s\"",
			     client, date, front, r->route[0] ? r->route : "-", back, tc, tr, ta,
			     status, (unsigned long long)r->bytes_out,
			     (unsigned long long)r->bytes_in, termination(r), mode_name(r->mode),
			     r->tls ? "+tls" : "", r->host, r->method[0] ? r->method : "-",
			     r->target[0] ? r->target : "-", r->version == 20 ? " HTTP/2.0" : "");
	}
	if (n < 0)
		return 0;
	return (size_t)n < len ? (size_t)n : len - 1;
}

unsigned
sy_alog_drain(void)
{
	static struct sy_access_rec recs[ALOG_BATCH];
	unsigned w, n, i, total = 0;
	struct timespec now;
	uint64_t tsc, hz = rte_get_tsc_hz();
	char line[1024];

	if (!L.on)
		return 0;
	reopen_if_rotated();
	clock_gettime(CLOCK_REALTIME, &now);
	for (w = 0; w < sy_dp_n_workers(); w++) {
		/* The worker's stamps are on its clock (sy_dp_worker_clock). */
		tsc = sy_dp_worker_clock(w);
		while ((n = sy_dp_alog_take(w, recs, ALOG_BATCH)) > 0) {
			for (i = 0; i < n; i++) {
				/* Its time: now, less how long ago its TSC was. */
				double when = (double)now.tv_sec + (double)now.tv_nsec / 1e9 -
					      (tsc > recs[i].tsc ? (double)(tsc - recs[i].tsc) / (double)hz : 0);
				size_t len = sy_alog_format(&recs[i], L.json, when, line, sizeof(line));

				sy_alog_write_line(line, len);
			}
			total += n;
			if (n < ALOG_BATCH)
				break;
		}
	}
	if (L.pending_len > 0)
		flush_pending();
	return total;
}
