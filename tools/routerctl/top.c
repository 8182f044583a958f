/* SPDX-License-Identifier: BSD-3-Clause */
/* `routerctl top` (top.h). */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "client.h"
#include "top.h"

#define TOP_INTERVAL_MS 1000
#define TOP_ROWS_DEFAULT 20 /* backends shown when the height is unknown */

static volatile sig_atomic_t stop_requested;

static void
on_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* One backend as a frame shows it. */
struct top_backend {
	char key[192]; /* "ns/name ip:port": the Endpoints object and the address */
	double rate;     /* connections opened per second since the last frame */
	double req_rate; /* proxied requests sent to it per second, the same */
	json_int_t open, total, requests;
	const char *health;
	bool ejected;
};

static double
monotonic_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static json_int_t
ival(const json_t *o, const char *k)
{
	return json_integer_value(json_object_get(o, k));
}

/* The per-second rate of counter k between two samples (-1: no earlier one). */
static double
per_s(const json_t *cur, const json_t *old, const char *k, double dt)
{
	json_int_t d;

	if (old == NULL || dt <= 0)
		return -1;
	d = ival(cur, k) - ival(old, k);
	return d > 0 ? (double)d / dt : 0;
}

static void
put_rate(FILE *out, int width, double v)
{
	if (v < 0)
		fprintf(out, " %*s", width, "-");
	else if (v >= 1e6)
		fprintf(out, " %*.2fM", width - 1, v / 1e6);
	else if (v >= 1e4)
		fprintf(out, " %*.1fk", width - 1, v / 1e3);
	else
		fprintf(out, " %*.1f", width, v);
}

static int
cmp_backends(const void *a, const void *b)
{
	const struct top_backend *x = a, *y = b;

	if (x->rate + x->req_rate != y->rate + y->req_rate)
		return x->rate + x->req_rate < y->rate + y->req_rate ? 1 : -1;
	if (x->open != y->open)
		return x->open < y->open ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->key, y->key);
}

static void
workers_frame(FILE *out, const json_t *stats, const json_t *old, double dt)
{
	const json_t *w, *ow, *t = json_object_get(stats, "total");
	const json_t *ot = old ? json_object_get(old, "total") : NULL;
	size_t i;

	fprintf(out, "%-8s %7s %10s %10s %9s %9s %10s %8s\n", "WORKER", "BUSY", "RX PKT/S",
		"TX PKT/S", "CONN/S", "REQ/S", "ANSWERS/S", "FLOWS");
	json_array_foreach(json_object_get(stats, "workers"), i, w) {
		json_int_t busy = ival(w, "busy_cycles"), idle = ival(w, "idle_cycles");

		ow = old ? json_array_get(json_object_get(old, "workers"), i) : NULL;
		/* Busy share of the loop's time since the last frame (since
		 * start on the first). */
		if (ow != NULL) {
			busy -= ival(ow, "busy_cycles");
			idle -= ival(ow, "idle_cycles");
		}
		fprintf(out, "%-8zu %6.1f%%", i, busy + idle > 0 ? 100.0 * (double)busy / (double)(busy + idle) : 0.0);
		put_rate(out, 10, per_s(w, ow, "rx_packets", dt));
		put_rate(out, 10, per_s(w, ow, "tx_packets", dt));
		put_rate(out, 9, per_s(w, ow, "conns_opened", dt));
		put_rate(out, 9, per_s(w, ow, "proxy_requests", dt));
		put_rate(out, 10, per_s(w, ow, "conns_answered", dt));
		fprintf(out, " %8lld\n", (long long)ival(w, "flows_active"));
	}
	fprintf(out, "%-8s %7s", "all", "");
	put_rate(out, 10, per_s(t, ot, "rx_packets", dt));
	put_rate(out, 10, per_s(t, ot, "tx_packets", dt));
	put_rate(out, 9, per_s(t, ot, "conns_opened", dt));
	put_rate(out, 9, per_s(t, ot, "proxy_requests", dt));
	put_rate(out, 10, per_s(t, ot, "conns_answered", dt));
	fprintf(out, " %8lld\n", (long long)ival(t, "flows_active"));
}

/* Per second from an earlier sample (NULL: none, -1). */
static double
rate_of(json_int_t now, const json_t *before, double dt)
{
	if (before == NULL || dt <= 0 || now < json_integer_value(before))
		return -1;
	return (double)(now - json_integer_value(before)) / dt;
}

/* Backends of every Endpoints object, with their rates against prev (a
 * key -> [connections, requests] object, replaced by this frame's). */
static struct top_backend *
collect_backends(const json_t *eps, json_t **prev, double dt, size_t *n)
{
	const json_t *item, *be;
	json_t *seen = json_object();
	struct top_backend *list = NULL;
	size_t i, j, cap = 0;

	*n = 0;
	json_array_foreach(json_object_get(eps, "items"), i, item) {
		const json_t *md = json_object_get(item, "metadata");

		json_array_foreach(json_object_get(json_object_get(item, "status"), "backends"), j,
				   be) {
			struct top_backend *b;
			const json_t *old;

			if (*n == cap) {
				size_t ncap = cap ? cap * 2 : 64;
				struct top_backend *nl = realloc(list, ncap * sizeof(*nl));

				if (nl == NULL)
					goto done;
				list = nl;
				cap = ncap;
			}
			b = &list[(*n)++];
			snprintf(b->key, sizeof(b->key), "%s/%s %s:%lld",
				 json_string_value(json_object_get(md, "namespace")),
				 json_string_value(json_object_get(md, "name")),
				 json_string_value(json_object_get(be, "ip")),
				 (long long)ival(be, "port"));
			b->open = ival(be, "open_connections");
			b->total = ival(be, "connections");
			b->requests = ival(be, "requests");
			b->ejected = json_is_true(json_object_get(be, "ejected"));
			b->health = json_string_value(
				json_object_get(json_object_get(be, "health"), "state"));
			old = *prev ? json_object_get(*prev, b->key) : NULL;
			b->rate = rate_of(b->total, json_array_get(old, 0), dt);
			b->req_rate = rate_of(b->requests, json_array_get(old, 1), dt);
			json_object_set_new(seen, b->key,
					    json_pack("[I,I]", b->total, b->requests));
		}
	}
done:
	json_decref(*prev);
	*prev = seen;
	qsort(list, *n, sizeof(*list), cmp_backends);
	return list;
}

static void
backends_frame(FILE *out, const struct top_backend *b, size_t n, size_t rows)
{
	size_t i;

	fprintf(out, "\n%-44s %9s %9s %8s %10s %10s %-9s %s\n", "BACKEND (ENDPOINTS ADDRESS:PORT)",
		"CONN/S", "REQ/S", "OPEN", "CONNS", "REQS", "HEALTH", "PASSIVE");
	for (i = 0; i < n && i < rows; i++) {
		fprintf(out, "%-44s", b[i].key);
		put_rate(out, 9, b[i].rate);
		put_rate(out, 9, b[i].req_rate);
		fprintf(out, " %8lld %10lld %10lld %-9s %s\n", (long long)b[i].open,
			(long long)b[i].total, (long long)b[i].requests,
			b[i].health ? b[i].health : "-", b[i].ejected ? "ejected" : "ok");
	}
	if (n == 0)
		fprintf(out, "(no Endpoints applied)\n");
	else if (n > rows)
		fprintf(out, "... %zu more\n", n - rows);
}

/* One route object as a frame shows it (the routes-traffic op). */
struct top_route {
	char key[192];  /* "Kind ns/name" */
	char vhost[128];
	double rate;    /* connections + requests per second since the last frame */
	double errors;  /* 5xx per second */
	json_int_t total;
};

static int
cmp_routes(const void *a, const void *b)
{
	const struct top_route *x = a, *y = b;

	if (x->rate != y->rate)
		return x->rate < y->rate ? 1 : -1;
	if (x->total != y->total)
		return x->total < y->total ? 1 : -1;
	return strcmp(x->key, y->key);
}

/* Routes with their rates against prev (key -> [total, 5xx], replaced). */
static struct top_route *
collect_routes(const json_t *reply, json_t **prev, double dt, size_t *n)
{
	const json_t *rt, *list = json_object_get(reply, "routes");
	json_t *seen = json_object();
	struct top_route *out = calloc(json_array_size(list) + 1, sizeof(*out));
	size_t i;

	*n = 0;
	if (out == NULL) {
		json_decref(seen);
		return NULL;
	}
	json_array_foreach(list, i, rt) {
		struct top_route *r = &out[(*n)++];
		json_int_t e5 = json_integer_value(json_array_get(json_object_get(rt, "responses"), 4));
		const json_t *old;

		snprintf(r->key, sizeof(r->key), "%s", json_string_value(json_object_get(rt, "route")));
		snprintf(r->vhost, sizeof(r->vhost), "%s", json_string_value(json_object_get(rt, "vhost")));
		r->total = ival(rt, "connections") + ival(rt, "requests");
		old = *prev ? json_object_get(*prev, r->key) : NULL;
		if (old != NULL && dt > 0) {
			json_int_t t0 = json_integer_value(json_array_get(old, 0));
			json_int_t e0 = json_integer_value(json_array_get(old, 1));

			r->rate = r->total >= t0 ? (double)(r->total - t0) / dt : 0;
			r->errors = e5 >= e0 ? (double)(e5 - e0) / dt : 0;
		} else {
			r->rate = r->errors = -1;
		}
		json_object_set_new(seen, r->key, json_pack("[I,I]", r->total, e5));
	}
	json_decref(*prev);
	*prev = seen;
	qsort(out, *n, sizeof(*out), cmp_routes);
	return out;
}

static void
routes_frame(FILE *out, const struct top_route *r, size_t n, size_t rows)
{
	size_t i;

	fprintf(out, "\n%-40s %-28s %9s %8s %10s\n", "ROUTE (KIND NAMESPACE/NAME)", "VHOST", "REQ/S",
		"5XX/S", "TOTAL");
	for (i = 0; i < n && i < rows; i++) {
		fprintf(out, "%-40.40s %-28.28s", r[i].key, r[i].vhost);
		put_rate(out, 9, r[i].rate);
		put_rate(out, 8, r[i].errors);
		fprintf(out, " %10lld\n", (long long)r[i].total);
	}
	if (n == 0)
		fprintf(out, "(no routes in the generation)\n");
	else if (n > rows)
		fprintf(out, "... %zu more\n", n - rows);
}

/* Wait up to ms for the next frame; true when the user asked to quit. */
static bool
wait_or_quit(int ms, bool keys)
{
	struct pollfd p = { .fd = STDIN_FILENO, .events = POLLIN };
	double end = monotonic_s() + ms / 1e3;

	for (;;) {
		int left = (int)((end - monotonic_s()) * 1e3), rc;
		char ch;

		if (stop_requested)
			return true;
		if (left <= 0)
			return false;
		if (!keys) {
			struct timespec ts = { left / 1000, (long)(left % 1000) * 1000000L };

			nanosleep(&ts, NULL);
			continue;
		}
		rc = poll(&p, 1, left);
		if (rc > 0) {
			ssize_t got = read(STDIN_FILENO, &ch, 1);

			if (got <= 0)
				keys = false; /* stdin closed: just wait */
			else if (ch == 'q' || ch == 'Q')
				return true;
		}
	}
}

static json_t *
ask(struct rctl_client *c, json_t *req, char *err, size_t errlen)
{
	json_t *reply;

	if (req == NULL) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	reply = rctl_client_request(c, req, err, errlen);
	json_decref(req);
	if (reply != NULL && !json_is_true(json_object_get(reply, "ok"))) {
		snprintf(err, errlen, "the router refused: %s",
			 json_string_value(json_object_get(json_object_get(reply, "error"), "message")));
		json_decref(reply);
		return NULL;
	}
	return reply;
}

int
rctl_top(struct rctl_client *c, FILE *out, unsigned long iterations, char *err, size_t errlen)
{
	bool tty = isatty(fileno(out)), keys = tty && isatty(STDIN_FILENO);
	struct sigaction sa = { .sa_handler = on_signal }, old_int, old_term;
	json_t *prev_stats = NULL, *prev_backends = NULL, *prev_routes = NULL;
	struct termios saved, raw;
	double prev_t = 0;
	unsigned long i;
	int rc = 0;

	/* Keys without Enter, not echoed; ISIG stays, so Ctrl-C comes here
	 * as SIGINT and the terminal is put back before exit. */
	if (keys && tcgetattr(STDIN_FILENO, &saved) == 0) {
		raw = saved;
		raw.c_lflag &= (tcflag_t) ~(ICANON | ECHO);
		raw.c_cc[VMIN] = 1;
		raw.c_cc[VTIME] = 0;
		tcsetattr(STDIN_FILENO, TCSANOW, &raw);
	} else {
		keys = false;
	}
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, &old_int);
	sigaction(SIGTERM, &sa, &old_term);
	for (i = 0; iterations == 0 || i < iterations; i++) {
		json_t *stats = ask(c, json_pack("{s:s}", "op", "stats"), err, errlen), *eps, *rts;
		double t = monotonic_s(), dt = prev_stats ? t - prev_t : 0;
		struct top_backend *bs;
		struct top_route *rs;
		size_t nb, nr, rows = TOP_ROWS_DEFAULT;
		struct winsize ws;
		time_t now = time(NULL);
		char clock[16];

		if (stats == NULL) {
			rc = -1;
			break;
		}
		eps = ask(c, json_pack("{s:s, s:s}", "op", "get", "kind", "endpoints"), err, errlen);
		if (eps == NULL) {
			json_decref(stats);
			rc = -1;
			break;
		}
		rts = ask(c, json_pack("{s:s}", "op", "routes-traffic"), err, errlen);
		if (rts == NULL) {
			json_decref(stats);
			json_decref(eps);
			rc = -1;
			break;
		}
		bs = collect_backends(eps, &prev_backends, dt, &nb);
		rs = collect_routes(rts, &prev_routes, dt, &nr);
		/* The backends get what the screen has left under the workers. */
		if (tty && ioctl(fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_row > 0) {
			size_t used = 6 + json_array_size(json_object_get(stats, "workers"));

			/* Half each to the routes and the backends. */
			rows = ws.ws_row > used + 8 ? (ws.ws_row - used - 6) / 2 : 3;
		}
		strftime(clock, sizeof(clock), "%H:%M:%S", localtime(&now));
		if (tty)
			fputs("\033[H\033[2J", out);
		else if (i > 0)
			fputc('\n', out);
		fprintf(out, "routerctl top - %s, generation %lld, %zu workers, every %d s%s\n\n", clock,
			(long long)ival(stats, "generation"),
			json_array_size(json_object_get(stats, "workers")), TOP_INTERVAL_MS / 1000,
			keys ? " (q quits)" : "");
		workers_frame(out, stats, prev_stats, dt);
		routes_frame(out, rs, nr, rows);
		backends_frame(out, bs, nb, rows);
		fflush(out);
		free(bs);
		free(rs);
		json_decref(rts);
		json_decref(eps);
		json_decref(prev_stats);
		prev_stats = stats;
		prev_t = t;
		if ((iterations != 0 && i + 1 >= iterations) || wait_or_quit(TOP_INTERVAL_MS, keys))
			break;
	}
	json_decref(prev_stats);
	json_decref(prev_backends);
	json_decref(prev_routes);
	if (keys)
		tcsetattr(STDIN_FILENO, TCSANOW, &saved);
	sigaction(SIGINT, &old_int, NULL);
	sigaction(SIGTERM, &old_term, NULL);
	return rc;
}
