/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The access log's writer (config `access_log`; the records are made on the
 * workers, sy_access_log.h). The control thread takes them off the workers'
 * rings every turn of its loop (at least every 100 ms while the log is on),
 * formats them and writes them to a file (appended; reopened when it was
 * moved away, as logrotate does) or to syslog (LOG_LOCAL0, LOG_INFO), as far
 * as they take them now: it never waits for a reader (access_log.c).
 *
 * The line, modelled on HAProxy's HTTP log (option httplog):
 *
 *   198.18.0.2:40312 [26/Nov/2026:11:13:14.655] 198.18.0.1:80 Route demo/web
 *     198.18.1.10:80 -/2/3 200 612 78 -- proxy {web.lab.switchyard.test} "GET /api"
 *
 *   client:port [accept date, local time] frontend route-or-"-" backend-or-"-"
 *   Tc/Tr/Ta status-or-"-" bytes-to-client bytes-from-client termination mode
 *   {host} "method target"
 *
 * Tc the backend connect (splice), Tr to the backend's response head, Ta the
 * whole exchange, in milliseconds, "-" when not known. termination is "--"
 * when the backend answered (or the connection was spliced), else why the
 * router answered itself (the `answers` reason in stats, e.g. no_route).
 * mode is proxy, splice or answer, "+tls" when the client spoke TLS. A
 * spliced connection has one line, written when it is handed to its backend:
 * its status and bytes are the backend's business from then on ("-", and
 * the bytes it held). With "format": "json", one JSON object a line with the
 * same fields by name.
 */
#ifndef SY_OBSERVE_ACCESS_LOG_H
#define SY_OBSERVE_ACCESS_LOG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct sy_config;
struct sy_access_rec;

/* Open what cfg->access_log_to names (nothing when it is empty): 0, or
 * -errno with a message in err. */
int sy_alog_open(const struct sy_config *cfg, char *err, size_t errlen);
/* Take every worker's records and write them: how many. */
unsigned sy_alog_drain(void);
/* Whether the log is on (the control loop polls at least every 100 ms). */
bool sy_alog_enabled(void);
void sy_alog_close(void);
/* The writer under sy_alog_drain (and tests): one line (no newline) to the
 * file or syslog, never waiting: a file's line waits, with what its reader
 * has not taken, up to 1 MiB; past that, and a syslog line the socket does
 * not take now, it is dropped and counted. sy_alog_flush gives the file what
 * it takes now. */
void sy_alog_write_line(const char *line, size_t len);
void sy_alog_flush(void);
/* Lines written and dropped since start, bytes waiting for the file. */
void sy_alog_counts(uint64_t *written, uint64_t *dropped, size_t *pending);
/* Where syslog listens ("/dev/log"; tests point it elsewhere). */
extern const char *sy_alog_syslog_socket;
/* One record as a line (no newline) into buf; its wall-clock time is `when`
 * (Unix seconds). The line's length (truncated to len - 1). */
size_t sy_alog_format(const struct sy_access_rec *r, bool json, double when, char *buf,
		      size_t len);

#endif
