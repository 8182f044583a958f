/* SPDX-License-Identifier: BSD-3-Clause */
/* The access log's writer (access_log.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
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

static struct {
	bool on, syslog, json;
	char path[256];
	FILE *f;
	dev_t dev;
	ino_t ino;
	time_t checked; /* the last look for a rotated file */
} L;

static int
open_file(char *err, size_t errlen)
{
	struct stat st;
	int fd = open(L.path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0640);

	if (fd < 0) {
		snprintf(err, errlen, "access_log: %s: %s", L.path, strerror(errno));
		return -errno;
	}
	L.f = fdopen(fd, "a");
	if (L.f == NULL) {
		int e = errno;

		close(fd);
		snprintf(err, errlen, "access_log: %s: %s", L.path, strerror(e));
		return -e;
	}
	if (fstat(fd, &st) == 0) {
		L.dev = st.st_dev;
		L.ino = st.st_ino;
	}
	return 0;
}

int
sy_alog_open(const struct sy_config *cfg, char *err, size_t errlen)
{
	memset(&L, 0, sizeof(L));
	if (cfg->access_log_to[0] == '\0')
		return 0;
	L.json = cfg->access_log_json;
	if (strcmp(cfg->access_log_to, "syslog") == 0) {
		openlog("routerd", LOG_NDELAY | LOG_PID, LOG_LOCAL0);
		L.syslog = true;
		L.on = true;
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

void
sy_alog_close(void)
{
	if (L.f != NULL)
		fclose(L.f);
	if (L.syslog)
		closelog();
	memset(&L, 0, sizeof(L));
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
	if (stat(L.path, &st) == 0 && st.st_dev == L.dev && st.st_ino == L.ino)
		return;
	if (L.f != NULL)
		fclose(L.f);
	L.f = NULL;
	(void)open_file(err, sizeof(err)); /* none: lines are lost until it can be made */
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

size_t
sy_alog_format(const struct sy_access_rec *r, bool json, double when, char *buf, size_t len)
{
	char client[32], front[32], back[32], tc[16], tr[16], ta[16], date[64];
	long long msec = (long long)(when * 1000.0 + 0.5); /* 654.9999 ms is 655 */
	time_t secs = (time_t)(msec / 1000);
	int frac = (int)(msec % 1000);
	struct tm tm;
	int n;

	ip_port(client, sizeof(client), r->client_ip, r->client_port);
	ip_port(front, sizeof(front), r->vip, r->vip_port);
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
			      "s:b, s:s, s:s, s:s, s:i}",
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
			      "worker", (int)r->worker);
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
		n = snprintf(buf, len, "%s [%s] %s %s %s %s/%s/%s %s %llu %llu %s %s%s {%s} \"%s %s\"",
			     client, date, front, r->route[0] ? r->route : "-", back, tc, tr, ta,
			     status, (unsigned long long)r->bytes_out,
			     (unsigned long long)r->bytes_in, termination(r), mode_name(r->mode),
			     r->tls ? "+tls" : "", r->host, r->method[0] ? r->method : "-",
			     r->target[0] ? r->target : "-");
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
	tsc = rte_rdtsc();
	for (w = 0; w < sy_dp_n_workers(); w++) {
		while ((n = sy_dp_alog_take(w, recs, ALOG_BATCH)) > 0) {
			for (i = 0; i < n; i++) {
				/* Its time: now, less how long ago its TSC was. */
				double when = (double)now.tv_sec + (double)now.tv_nsec / 1e9 -
					      (tsc > recs[i].tsc ? (double)(tsc - recs[i].tsc) / (double)hz : 0);
				size_t len = sy_alog_format(&recs[i], L.json, when, line, sizeof(line));

				if (L.syslog)
					syslog(LOG_INFO, "%.*s", (int)len, line);
				else if (L.f != NULL)
					fprintf(L.f, "%.*s\n", (int)len, line);
			}
			total += n;
			if (n < ALOG_BATCH)
				break;
		}
	}
	if (L.f != NULL && total > 0)
		fflush(L.f);
	return total;
}
