/* SPDX-License-Identifier: BSD-3-Clause */
/* The control thread's stream connections (stream_conn.h). */
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "observe/metrics.h"
#include "ops/stream_conn.h"

const char *const sy_conn_refusal_names[SY_CONN_REFUSAL__COUNT] = {
	[SY_CONN_PEER] = "peer",           [SY_CONN_FULL] = "full",
	[SY_CONN_EVICTED] = "evicted",     [SY_CONN_TOO_LARGE] = "too_large",
	[SY_CONN_BAD_REQUEST] = "bad_request", [SY_CONN_BUSY] = "busy",
};

const char *const sy_conn_timeout_names[SY_CONN_TIMEOUT__COUNT] = {
	[SY_CONN_TIMEOUT_REQUEST] = "request",
	[SY_CONN_TIMEOUT_ANSWER] = "answer",
};

int
sy_conn_out_flush(int fd, struct sy_conn_out *o)
{
	while (o->off < o->len) {
		ssize_t w = send(fd, o->buf + o->off, o->len - o->off, MSG_NOSIGNAL | MSG_DONTWAIT);

		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (w <= 0)
			return -1;
		o->off += (size_t)w;
	}
	sy_conn_out_free(o);
	return 1;
}

void
sy_conn_out_free(struct sy_conn_out *o)
{
	free(o->buf);
	*o = (struct sy_conn_out){ 0 };
}

int
sy_conn_victim(const struct sy_conn_age *v, unsigned n, uint64_t now_ms, uint64_t *at_ms)
{
	uint64_t at = UINT64_MAX;
	bool parked = true;
	int old = -1;
	unsigned i;

	for (i = 0; i < n; i++) {
		const struct sy_conn_age *c = &v[i], *o = old < 0 ? NULL : &v[old];

		if (c->hold == SY_CONN_PARKED)
			continue;
		parked = false;
		if (c->hold == SY_CONN_ANSWER) {
			at = now_ms + 1;
			continue;
		}
		if (c->silent && now_ms - c->accepted_ms < SY_CONN_GRACE_MS) {
			if (c->accepted_ms + SY_CONN_GRACE_MS < at)
				at = c->accepted_ms + SY_CONN_GRACE_MS;
			continue;
		}
		if (o == NULL || (o->silent && !c->silent) ||
		    (o->silent == c->silent && c->last_ms < o->last_ms))
			old = (int)i;
	}
	*at_ms = parked ? 0 : at == UINT64_MAX || at <= now_ms ? now_ms + 1 : at;
	return old;
}

json_t *
sy_conn_stats_json(const struct sy_conn_stats *st)
{
	json_t *refused = json_object(), *timed = json_object();
	int i;

	for (i = 0; i < SY_CONN_REFUSAL__COUNT; i++)
		json_object_set_new(refused, sy_conn_refusal_names[i],
				    json_integer((json_int_t)st->refused[i]));
	for (i = 0; i < SY_CONN_TIMEOUT__COUNT; i++)
		json_object_set_new(timed, sy_conn_timeout_names[i],
				    json_integer((json_int_t)st->timed_out[i]));
	return json_pack("{s:I, s:I, s:I, s:o, s:o, s:I}", "connections", (json_int_t)st->connections,
			 "open", (json_int_t)st->open, "answers", (json_int_t)st->answers, "refused",
			 refused, "timed_out", timed, "aborted", (json_int_t)st->aborted);
}

/* The series of one counter per server. */
struct conn_series {
	const char *name, *type, *help;
	size_t off; /* in struct sy_conn_stats */
};

#define SERIES(field, name, type, help) { name, type, help, offsetof(struct sy_conn_stats, field) }

static const struct conn_series series[] = {
	SERIES(connections, "switchyard_control_connections_total", "counter",
	       "Connections accepted by the control thread's servers (control socket, metrics address)."),
	SERIES(open, "switchyard_control_connections_open", "gauge",
	       "Connections the control thread's servers hold now."),
	SERIES(answers, "switchyard_control_answers_total", "counter",
	       "Answers the control thread's servers wrote whole."),
	SERIES(aborted, "switchyard_control_aborted_total", "counter",
	       "Connections whose peer closed or reset them before the answer was whole."),
};

/* A counter by reason: `label`="names[i]" for each of the n in the array
 * at `off`. */
static void
reason_series(FILE *f, const char *metric, const char *help, const char *label, const char *const *names,
	      unsigned n, size_t off, const char *const *servers, const struct sy_conn_stats *const *st,
	      unsigned ns)
{
	unsigned s, i;

	sy_prom_head(f, metric, "counter", help);
	for (s = 0; s < ns; s++)
		for (i = 0; st[s] != NULL && i < n; i++)
			fprintf(f, "%s{server=\"%s\",%s=\"%s\"} %llu\n", metric, servers[s], label, names[i],
				(unsigned long long)((const uint64_t *)((const char *)st[s] + off))[i]);
}

void
sy_conn_stats_metrics(FILE *f, const char *const *names, const struct sy_conn_stats *const *st,
		      unsigned n)
{
	size_t k;
	unsigned s;

	for (k = 0; k < sizeof(series) / sizeof(series[0]); k++) {
		sy_prom_head(f, series[k].name, series[k].type, series[k].help);
		for (s = 0; s < n; s++)
			if (st[s] != NULL)
				fprintf(f, "%s{server=\"%s\"} %llu\n", series[k].name, names[s],
					(unsigned long long)*(const uint64_t *)((const char *)st[s] +
										series[k].off));
	}
	reason_series(f, "switchyard_control_refused_total",
		      "Connections or requests the control thread's servers turned away, by reason.",
		      "reason", sy_conn_refusal_names, SY_CONN_REFUSAL__COUNT,
		      offsetof(struct sy_conn_stats, refused), names, st, n);
	reason_series(f, "switchyard_control_timeouts_total",
		      "Connections closed because a request was not whole, or an answer not taken, in time.",
		      "phase", sy_conn_timeout_names, SY_CONN_TIMEOUT__COUNT,
		      offsetof(struct sy_conn_stats, timed_out), names, st, n);
}
