/* SPDX-License-Identifier: BSD-3-Clause */
/* The control thread's stream connections (stream_conn.h). */
#include <errno.h>
#include <stdlib.h>
#include <sys/socket.h>

#include "observe/metrics.h"
#include "stream_conn.h"

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

void
sy_conn_stats_metrics(FILE *f, const char *const *names, const struct sy_conn_stats *const *st,
		      unsigned n)
{
	unsigned s;
	int i;

	sy_prom_head(f, "switchyard_control_connections_total", "counter",
		     "Connections accepted by the control thread's servers (control socket, metrics address).");
	for (s = 0; s < n; s++)
		if (st[s] != NULL)
			fprintf(f, "switchyard_control_connections_total{server=\"%s\"} %llu\n", names[s],
				(unsigned long long)st[s]->connections);
	sy_prom_head(f, "switchyard_control_connections_open", "gauge",
		     "Connections the control thread's servers hold now.");
	for (s = 0; s < n; s++)
		if (st[s] != NULL)
			fprintf(f, "switchyard_control_connections_open{server=\"%s\"} %u\n", names[s],
				st[s]->open);
	sy_prom_head(f, "switchyard_control_answers_total", "counter",
		     "Answers the control thread's servers wrote whole.");
	for (s = 0; s < n; s++)
		if (st[s] != NULL)
			fprintf(f, "switchyard_control_answers_total{server=\"%s\"} %llu\n", names[s],
				(unsigned long long)st[s]->answers);
	sy_prom_head(f, "switchyard_control_refused_total", "counter",
		     "Connections or requests the control thread's servers turned away, by reason.");
	for (s = 0; s < n; s++)
		for (i = 0; st[s] != NULL && i < SY_CONN_REFUSAL__COUNT; i++)
			fprintf(f, "switchyard_control_refused_total{server=\"%s\",reason=\"%s\"} %llu\n",
				names[s], sy_conn_refusal_names[i], (unsigned long long)st[s]->refused[i]);
	sy_prom_head(f, "switchyard_control_timeouts_total", "counter",
		     "Connections closed because a request was not whole, or an answer not taken, in time.");
	for (s = 0; s < n; s++)
		for (i = 0; st[s] != NULL && i < SY_CONN_TIMEOUT__COUNT; i++)
			fprintf(f, "switchyard_control_timeouts_total{server=\"%s\",phase=\"%s\"} %llu\n",
				names[s], sy_conn_timeout_names[i], (unsigned long long)st[s]->timed_out[i]);
	sy_prom_head(f, "switchyard_control_aborted_total", "counter",
		     "Connections whose peer closed or reset them before the answer was whole.");
	for (s = 0; s < n; s++)
		if (st[s] != NULL)
			fprintf(f, "switchyard_control_aborted_total{server=\"%s\"} %llu\n", names[s],
				(unsigned long long)st[s]->aborted);
}
