/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the control thread's two stream servers share: the control socket
 * (server.h) and the metrics address (observe/metrics_http.h). Neither may
 * ever wait for a peer, since every second the control thread spends waiting
 * is a second applies, the etcd watch, health-check results and VRRP
 * decisions wait too. So both:
 *
 *  - read and write only what the kernel has or takes now (non-blocking
 *    sockets in the control loop's poll), keeping the rest per connection;
 *  - write an answer made once, from a buffer, as the peer reads it
 *    (sy_conn_out), reading nothing more from that peer meanwhile;
 *  - hold a bounded number of connections: when full, the connection idle
 *    longest (its last byte either way the oldest) is closed for the new one;
 *  - count what they refused, what timed out and who left early
 *    (sy_conn_stats: `routerctl stats`, the Prometheus exposition).
 */
#ifndef SY_STREAM_CONN_H
#define SY_STREAM_CONN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <jansson.h>

/* An answer being written: buf[off..len) is still to go. */
struct sy_conn_out {
	char *buf; /* malloc'd */
	size_t len, off;
};

/* Write what the peer takes now (never waits). 1: all of it is written
 * (buf freed), 0: some is left (poll for POLLOUT), -1: the peer is gone. */
int sy_conn_out_flush(int fd, struct sy_conn_out *o);
void sy_conn_out_free(struct sy_conn_out *o);
static inline size_t
sy_conn_out_left(const struct sy_conn_out *o)
{
	return o->len - o->off;
}

/*
 * Which connection a full table closes for a new one: the one idle longest
 * (its last byte either way the oldest), one that has sent nothing yet only
 * if no other, and not in its first SY_CONN_GRACE_MS (routerctl or a scrape
 * between its connect and its request, which a loaded machine may stretch,
 * however many connections a flood makes meanwhile); never one with a
 * request to answer, nor one waiting for etcd.
 */
#define SY_CONN_GRACE_MS 100

enum sy_conn_hold {
	SY_CONN_FREE,    /* may be closed for a new one */
	SY_CONN_ANSWER,  /* a request to answer: in this turn's round */
	SY_CONN_PARKED,  /* its request waits for etcd */
};

struct sy_conn_age {
	uint64_t last_ms, accepted_ms;
	bool silent;     /* has sent nothing yet */
	enum sy_conn_hold hold;
};

/* The connection of v[0..n) to close for a new one, or -1 when none may be
 * now; then *at_ms is when one may (the next ms after this turn's answers,
 * or when a silent one's grace ends), 0 when all are parked (a new one is
 * refused then, not kept waiting). */
int sy_conn_victim(const struct sy_conn_age *v, unsigned n, uint64_t now_ms, uint64_t *at_ms);

/* Why a connection or its request was turned away. */
enum sy_conn_refusal {
	SY_CONN_PEER,        /* the control socket's peer is neither root nor our user */
	SY_CONN_FULL,        /* every slot is taken and none can be given up */
	SY_CONN_EVICTED,     /* closed, idle longest, to make room for a new one */
	SY_CONN_TOO_LARGE,   /* a request over the limit (HTTP 431) */
	SY_CONN_BAD_REQUEST, /* not a request at all (HTTP 400) */
	SY_CONN_BUSY,        /* answers waiting for slow readers hold the memory allowed (HTTP 503) */
	SY_CONN_REFUSAL__COUNT
};

enum sy_conn_timeout {
	SY_CONN_TIMEOUT_REQUEST, /* the request was not whole in time */
	SY_CONN_TIMEOUT_ANSWER,  /* the answer was not taken in time */
	SY_CONN_TIMEOUT__COUNT
};

extern const char *const sy_conn_refusal_names[SY_CONN_REFUSAL__COUNT];
extern const char *const sy_conn_timeout_names[SY_CONN_TIMEOUT__COUNT];

/* A server's counters since start (its open connections: a gauge). */
struct sy_conn_stats {
	uint64_t connections; /* accepted */
	uint64_t answers;     /* answers written whole */
	uint64_t refused[SY_CONN_REFUSAL__COUNT];
	uint64_t timed_out[SY_CONN_TIMEOUT__COUNT];
	uint64_t aborted;     /* the peer closed or reset before its answer was whole */
	uint64_t open;        /* connections now */
};

/* {"connections","open","answers","refused":{reason: n},"timed_out":{"request","answer"},
 * "aborted"} */
json_t *sy_conn_stats_json(const struct sy_conn_stats *st);
/* The switchyard_control_* series of n servers, each labelled server="names[i]"
 * (st[i] NULL: a server not running, left out). */
void sy_conn_stats_metrics(FILE *f, const char *const *names, const struct sy_conn_stats *const *st,
			   unsigned n);

#endif
