/* SPDX-License-Identifier: BSD-3-Clause */
/* `routerctl apply`'s request, progress and summary (apply.h). */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "apply.h"
#include "client.h"

#define PROGRESS_EVERY_S 0.1 /* a redraw at most this often: a terminal is slow too */

static double
monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The progress line, drawn over itself (\r, then clear to the end). */
static void
progress_line(FILE *f, size_t done, size_t total, size_t bytes, double waited)
{
	if (done < total)
		fprintf(f, "\r\033[Ksending objects %zu/%zu (%.1f MB)", done, total, bytes / 1e6);
	else
		fprintf(f, "\r\033[Kapplying %zu objects (%.1f MB sent): the router is validating, "
			   "journaling and compiling, %.1f s",
			total, bytes / 1e6, waited);
	fflush(f);
}

json_t *
rctl_apply_send(struct rctl_client *c, const json_t *objects, FILE *progress, char *err,
		size_t errlen)
{
	static const char head[] = "{\"op\":\"apply\",\"objects\":[", tail[] = "]}\n";
	size_t total = json_array_size(objects), i, bytes = 0;
	double last = 0, sent_at;
	const json_t *o;
	json_t *reply;
	int rc;

	/* The same one line a single json_dumps would make, in pieces: the
	 * router sees no difference. */
	if (rctl_client_send(c, head, sizeof(head) - 1, err, errlen) < 0)
		return NULL;
	json_array_foreach(objects, i, o) {
		char *text = json_dumps(o, JSON_COMPACT);
		size_t len;

		if (text == NULL) {
			snprintf(err, errlen, "out of memory");
			return NULL;
		}
		len = strlen(text);
		rc = (i > 0 ? rctl_client_send(c, ",", 1, err, errlen) : 0);
		if (rc == 0)
			rc = rctl_client_send(c, text, len, err, errlen);
		free(text);
		if (rc < 0)
			return NULL;
		bytes += len + 1;
		if (progress != NULL && monotonic_s() - last >= PROGRESS_EVERY_S) {
			last = monotonic_s();
			progress_line(progress, i + 1, total, bytes, 0);
		}
	}
	if (rctl_client_send(c, tail, sizeof(tail) - 1, err, errlen) < 0)
		return NULL;
	sent_at = monotonic_s();
	if (progress != NULL) {
		progress_line(progress, total, total, bytes, 0);
		while (rctl_client_wait(c, 100) == 0)
			progress_line(progress, total, total, bytes, monotonic_s() - sent_at);
	}
	reply = rctl_client_reply(c, err, errlen);
	if (progress != NULL) {
		fputs("\r\033[K", progress);
		fflush(progress);
	}
	return reply;
}

void
rctl_apply_summary(FILE *out, const json_t *reply, double seconds)
{
	const json_t *results = json_object_get(reply, "results"), *res;
	json_t *kinds = json_object(); /* kind -> count, in the order met */
	size_t i, created = 0, configured = 0, unchanged = 0, other = 0;
	const char *k;
	json_t *v;
	bool first = true;

	json_array_foreach(results, i, res) {
		const char *kind = json_string_value(json_object_get(res, "kind"));
		const char *a = json_string_value(json_object_get(res, "action"));

		kind = kind ? kind : "object";
		json_object_set_new(kinds, kind,
				    json_integer(json_integer_value(json_object_get(kinds, kind)) + 1));
		if (a != NULL && strcmp(a, "created") == 0)
			created++;
		else if (a != NULL && strcmp(a, "configured") == 0)
			configured++;
		else if (a != NULL && strcmp(a, "unchanged") == 0)
			unchanged++;
		else
			other++;
	}
	fprintf(out, "applied %zu object%s (", json_array_size(results),
		json_array_size(results) == 1 ? "" : "s");
	json_object_foreach(kinds, k, v) {
		fprintf(out, "%s%s %lld", first ? "" : ", ", k, (long long)json_integer_value(v));
		first = false;
	}
	fprintf(out, ") in %.2f s, generation %lld: %zu created, %zu configured, %zu unchanged", seconds,
		(long long)json_integer_value(json_object_get(reply, "generation")), created,
		configured, unchanged);
	if (other > 0)
		fprintf(out, ", %zu other", other);
	fputc('\n', out);
	json_decref(kinds);
}
