/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "age.h"
#include "report.h"
#include "table.h"

/* Labels of the resolve report are padded past the longest ("predicates:") so
 * that the values form one column. */
#define LABEL "%-12s"

static const char *
str_or(const json_t *v, const char *key, const char *dflt)
{
	const char *s = json_string_value(json_object_get(v, key));

	return s ? s : dflt;
}

/* Scalars as text for generic columns; containers have no cell form. */
static int
cell_text(const json_t *v, char *buf, size_t len)
{
	switch (json_typeof(v)) {
	case JSON_STRING:
		snprintf(buf, len, "%s", json_string_value(v));
		return 0;
	case JSON_INTEGER:
		snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return 0;
	case JSON_REAL:
		snprintf(buf, len, "%g", json_real_value(v));
		return 0;
	case JSON_TRUE:
		snprintf(buf, len, "true");
		return 0;
	case JSON_FALSE:
		snprintf(buf, len, "false");
		return 0;
	case JSON_NULL:
		snprintf(buf, len, "<none>");
		return 0;
	default:
		return -1;
	}
}

/* One line "label: a SEP b SEP c" of a list of strings (eskip-like text) or of
 * objects (compact JSON); nothing when the list is absent or empty. */
static int
print_list(FILE *out, const char *label, const json_t *list, const char *sep)
{
	const json_t *v;
	size_t i;
	char *text;

	if (!json_is_array(list) || json_array_size(list) == 0)
		return 0;
	fprintf(out, LABEL, label);
	json_array_foreach(list, i, v) {
		if (i > 0)
			fputs(sep, out);
		if (json_is_string(v)) {
			fputs(json_string_value(v), out);
			continue;
		}
		/* {"name": "setHeader", "args": [...]} reads as setHeader(...). */
		if (json_is_string(json_object_get(v, "name")) &&
		    json_is_array(json_object_get(v, "args"))) {
			text = json_dumps(json_object_get(v, "args"), JSON_COMPACT);
			if (text == NULL)
				return -1;
			text[strlen(text) - 1] = '\0';
			fprintf(out, "%s(%s)", str_or(v, "name", "?"), text + 1);
			free(text);
			continue;
		}
		text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		if (text == NULL)
			return -1;
		fputs(text, out);
		free(text);
	}
	fputc('\n', out);
	return ferror(out) ? -1 : 0;
}

int
rctl_print_resolve(FILE *out, const json_t *r)
{
	const json_t *rule = json_object_get(r, "rule");
	const json_t *status = json_object_get(r, "status");
	const json_t *s;
	size_t i;

	fprintf(out, LABEL "%s\n", "url:", str_or(r, "url", ""));
	if (!json_is_true(json_object_get(r, "match"))) {
		fprintf(out, LABEL "%s\n", "no route:", str_or(r, "reason", "no match"));
		if (json_is_integer(status))
			fprintf(out, LABEL "%" JSON_INTEGER_FORMAT "\n", "status:",
				json_integer_value(status));
		return ferror(out) ? -1 : 0;
	}
	fprintf(out, LABEL "%s (%s, tls %s)\n", "vhost:", str_or(r, "vhost", "-"),
		str_or(r, "mode", "-"), str_or(r, "tls", "-"));
	if (json_is_object(rule))
		fprintf(out, LABEL "%s %s  (%s %s)\n", "rule:", str_or(rule, "match", "-"),
			str_or(rule, "path", "-"), str_or(r, "kind", "-"), str_or(r, "object", "-"));
	if (json_is_string(json_object_get(r, "note")))
		fprintf(out, LABEL "%s\n", "note:", str_or(r, "note", ""));
	if (print_list(out, "predicates:", json_object_get(r, "predicates"), " && ") < 0)
		return -1;
	if (print_list(out, "filters:", json_object_get(r, "filters"), " -> ") < 0)
		return -1;
	fprintf(out, LABEL "%s\n", "action:", str_or(r, "action", "-"));
	if (json_is_integer(status))
		fprintf(out, LABEL "%" JSON_INTEGER_FORMAT "\n", "status:",
			json_integer_value(status));
	if (json_is_string(json_object_get(r, "location")))
		fprintf(out, LABEL "%s\n", "location:", str_or(r, "location", ""));
	if (json_is_string(json_object_get(r, "reason")))
		fprintf(out, LABEL "%s\n", "reason:", str_or(r, "reason", ""));
	/* A redirect or a static answer has no backend to show. */
	if (json_is_string(json_object_get(r, "action")) &&
	    (strcmp(str_or(r, "action", ""), "redirect") == 0 ||
	     strcmp(str_or(r, "action", ""), "static") == 0) &&
	    json_array_size(json_object_get(r, "services")) == 0)
		return ferror(out) ? -1 : 0;

	fprintf(out, LABEL, "services:");
	json_array_foreach(json_object_get(r, "services"), i, s) {
		fprintf(out, "%s%s/%s %" JSON_INTEGER_FORMAT " (%.1f%%)", i ? ", " : "",
			str_or(s, "namespace", "?"), str_or(s, "name", "?"),
			json_integer_value(json_object_get(s, "weight")),
			json_number_value(json_object_get(s, "share")) * 100);
	}
	fprintf(out, "%s\n", json_array_size(json_object_get(r, "services")) ? "" : "<none>");
	/* A backend written into the route as URLs (Skipper network / lb). */
	if (json_is_object(json_object_get(r, "backend"))) {
		const json_t *b = json_object_get(r, "backend");

		fprintf(out, LABEL "%s ", "backend:", str_or(b, "type", "?"));
		if (json_is_string(json_object_get(b, "address")))
			fputs(str_or(b, "address", ""), out);
		else
			fprintf(out, "%s:", str_or(b, "algorithm", "?"));
		json_array_foreach(json_object_get(b, "endpoints"), i, s)
			fprintf(out, " %s", json_is_string(s) ? json_string_value(s) : "?");
		fputc('\n', out);
	}

	fprintf(out, LABEL, "endpoints:");
	json_array_foreach(json_object_get(r, "endpoints"), i, s) {
		const char *addr = str_or(s, "address", "?");

		/* "tls": from an https:// URL, to be reached over TLS. */
		fprintf(out, strchr(addr, ':') ? "%s[%s]:%" JSON_INTEGER_FORMAT "%s (%.1f%%)"
					       : "%s%s:%" JSON_INTEGER_FORMAT "%s (%.1f%%)",
			i ? ", " : "", addr, json_integer_value(json_object_get(s, "port")),
			json_is_true(json_object_get(s, "tls")) ? " tls" : "",
			json_number_value(json_object_get(s, "share")) * 100);
	}
	fprintf(out, "%s\n", json_array_size(json_object_get(r, "endpoints")) ? "" : "<none>");
	return ferror(out) ? -1 : 0;
}

static void
u64_cell(const json_t *o, const char *key, char *buf, size_t len)
{
	snprintf(buf, len, "%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(o, key)));
}

static void
busy_cell(const json_t *o, char *buf, size_t len)
{
	double busy = json_number_value(json_object_get(o, "busy_cycles"));
	double idle = json_number_value(json_object_get(o, "idle_cycles"));

	if (busy + idle <= 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1f", busy * 100 / (busy + idle));
}

static int
add_counter_row(struct rctl_table *t, const char *label, const json_t *o)
{
	char cells[5][32];
	const char *row[6];

	u64_cell(o, "rx_packets", cells[0], sizeof(cells[0]));
	u64_cell(o, "rx_bytes", cells[1], sizeof(cells[1]));
	u64_cell(o, "tx_packets", cells[2], sizeof(cells[2]));
	u64_cell(o, "tx_bytes", cells[3], sizeof(cells[3]));
	busy_cell(o, cells[4], sizeof(cells[4]));
	row[0] = label;
	row[1] = cells[0];
	row[2] = cells[1];
	row[3] = cells[2];
	row[4] = cells[3];
	row[5] = cells[4];
	return rctl_table_add_row(t, row);
}

static int
print_workers(FILE *out, const json_t *reply)
{
	static const char *const h[] = { "WORKER",  "RX PKTS",	"RX BYTES",
					 "TX PKTS", "TX BYTES", "BUSY%" };
	struct rctl_table *t = rctl_table_new(6, h);
	const json_t *w, *id;
	char label[32];
	size_t i;
	int rc = -1;

	if (t == NULL)
		return -1;
	json_array_foreach(json_object_get(reply, "workers"), i, w) {
		/* The router may name its workers by lcore; else by position. */
		id = json_object_get(w, "lcore");
		if (id == NULL)
			id = json_object_get(w, "id");
		if (id == NULL || cell_text(id, label, sizeof(label)) < 0)
			snprintf(label, sizeof(label), "%zu", i);
		if (add_counter_row(t, label, w) < 0)
			goto out;
	}
	if (json_is_object(json_object_get(reply, "total")) &&
	    add_counter_row(t, "total", json_object_get(reply, "total")) < 0)
		goto out;
	rc = rctl_table_print(t, out);
out:
	rctl_table_free(t);
	return rc;
}

/* One "reason -> count" object of the total as a two-column table, only the
 * reasons that fired (all of them are in -o json); `none` when none did. */
static int
print_reasons(FILE *out, const json_t *reply, const char *key, const char *const h[2],
	      const char *none)
{
	const json_t *reasons = json_object_get(json_object_get(reply, "total"), key);
	struct rctl_table *t;
	const char *reason;
	const json_t *n;
	const char *row[2];
	char count[32];
	int rc = -1;

	t = rctl_table_new(2, h);
	if (t == NULL)
		return -1;
	json_object_foreach((json_t *)reasons, reason, n) {
		if (json_integer_value(n) == 0)
			continue;
		snprintf(count, sizeof(count), "%" JSON_INTEGER_FORMAT, json_integer_value(n));
		row[0] = reason;
		row[1] = count;
		if (rctl_table_add_row(t, row) < 0)
			goto out;
	}
	if (rctl_table_rows(t) == 0) {
		fprintf(out, "%s\n", none);
		rc = ferror(out) ? -1 : 0;
	} else {
		rc = rctl_table_print(t, out);
	}
out:
	rctl_table_free(t);
	return rc;
}

/* Ports carry whatever the data plane reports; show every scalar field of
 * the first port as a column, named by its key. */
static int
print_ports(FILE *out, const json_t *reply)
{
	const json_t *ports = json_object_get(reply, "ports");
	const json_t *first = json_array_get(ports, 0), *port, *v;
	const char *keys[16], *row[16];
	char headers[16][32], cells[16][64];
	struct rctl_table *t;
	size_t nk = 0, i, k, j;
	const char *key;
	int rc = -1;

	if (!json_is_object(first))
		return 0;
	json_object_foreach((json_t *)first, key, v) {
		if (json_is_object(v) || json_is_array(v) || nk == 16)
			continue;
		keys[nk] = key;
		for (j = 0; key[j] != '\0' && j + 1 < sizeof(headers[nk]); j++)
			headers[nk][j] = (char)(key[j] == '_' ? ' ' : toupper((unsigned char)key[j]));
		headers[nk][j] = '\0';
		row[nk] = headers[nk];
		nk++;
	}
	if (nk == 0)
		return 0;
	t = rctl_table_new(nk, row);
	if (t == NULL)
		return -1;
	json_array_foreach(ports, i, port) {
		for (k = 0; k < nk; k++) {
			v = json_object_get(port, keys[k]);
			if (v == NULL || cell_text(v, cells[k], sizeof(cells[k])) < 0)
				snprintf(cells[k], sizeof(cells[k]), "-");
			row[k] = cells[k];
		}
		if (rctl_table_add_row(t, row) < 0)
			goto out;
	}
	rc = rctl_table_print(t, out);
out:
	rctl_table_free(t);
	return rc;
}

/* One of the control thread's servers (README, "Slow clients"): its
 * connections, what it turned away and what timed out, reasons at 0 left
 * out. */
static void
print_conns(FILE *out, const char *label, const json_t *c)
{
	const char *key;
	const json_t *v;

	if (!json_is_object(c))
		return;
	fprintf(out, "%-21s%" JSON_INTEGER_FORMAT " connections, %" JSON_INTEGER_FORMAT " open, %"
		JSON_INTEGER_FORMAT " answers, %" JSON_INTEGER_FORMAT " aborted", label,
		json_integer_value(json_object_get(c, "connections")),
		json_integer_value(json_object_get(c, "open")),
		json_integer_value(json_object_get(c, "answers")),
		json_integer_value(json_object_get(c, "aborted")));
	json_object_foreach((json_t *)json_object_get(c, "refused"), key, v)
		if (json_integer_value(v) > 0)
			fprintf(out, ", refused %s %" JSON_INTEGER_FORMAT, key, json_integer_value(v));
	json_object_foreach((json_t *)json_object_get(c, "timed_out"), key, v)
		if (json_integer_value(v) > 0)
			fprintf(out, ", timed out (%s) %" JSON_INTEGER_FORMAT, key, json_integer_value(v));
	fputc('\n', out);
}

int
rctl_print_stats(FILE *out, const json_t *reply)
{
	static const char *const drop_heads[] = { "DROP REASON", "PACKETS" };
	static const char *const answer_heads[] = { "ANSWER REASON", "CONNECTIONS" };

	const json_t *mb = json_object_get(reply, "mbufs");

	fprintf(out, "generation %" JSON_INTEGER_FORMAT " (%" JSON_INTEGER_FORMAT " bytes)\n",
		json_integer_value(json_object_get(reply, "generation")),
		json_integer_value(json_object_get(reply, "generation_bytes")));
	if (json_integer_value(json_object_get(mb, "total")) > 0)
		fprintf(out, "mbufs in use %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT " (%" JSON_INTEGER_FORMAT
			" kept out of use)\n",
			json_integer_value(json_object_get(mb, "in_use")),
			json_integer_value(json_object_get(mb, "total")),
			json_integer_value(json_object_get(mb, "quarantined")));
	print_conns(out, "control socket:", json_object_get(json_object_get(reply, "control_servers"),
							    "control_socket"));
	print_conns(out, "metrics address:", json_object_get(json_object_get(reply, "control_servers"),
							     "metrics"));
	if (json_is_true(json_object_get(json_object_get(reply, "access_log"), "on")))
		fprintf(out, "%-21s%" JSON_INTEGER_FORMAT " lines written, %" JSON_INTEGER_FORMAT
			" dropped (not taken by the file's reader or syslog)\n", "access log:",
			json_integer_value(json_object_get(json_object_get(reply, "access_log"), "lines_written")),
			json_integer_value(json_object_get(json_object_get(reply, "access_log"), "lines_dropped")));
	fputc('\n', out);
	if (print_workers(out, reply) < 0)
		return -1;
	fputc('\n', out);
	if (print_reasons(out, reply, "drops", drop_heads, "no drops") < 0)
		return -1;
	/* Why the router answered clients itself (docs/operations.md, "Answers instead of
	 * silence"): every status of its own has a reason here. */
	fputc('\n', out);
	if (print_reasons(out, reply, "answers", answer_heads, "no answers of the router's own") < 0)
		return -1;
	if (json_array_size(json_object_get(reply, "ports")) > 0) {
		fputc('\n', out);
		if (print_ports(out, reply) < 0)
			return -1;
	}
	return ferror(out) ? -1 : 0;
}

/* Where the objects live (docs/operations.md, "Store on etcd"): one line, two while
 * etcd is away (the error says why). */
static void
print_store(FILE *out, const json_t *st)
{
	const char *err = str_or(st, "last_error", NULL);

	if (!json_is_object(st))
		return;
	if (strcmp(str_or(st, "kind", ""), "etcd") != 0) {
		fprintf(out, "%-21s%s %s\n", "store:", str_or(st, "kind", "-"), str_or(st, "path", ""));
		return;
	}
	fprintf(out, "%-21setcd %s %s, %s, revision %" JSON_INTEGER_FORMAT ", %s\n", "store:",
		str_or(st, "endpoint", "-"), str_or(st, "prefix", ""),
		json_is_true(json_object_get(st, "connected")) ? "connected" : "DISCONNECTED",
		json_integer_value(json_object_get(st, "revision")),
		json_is_true(json_object_get(st, "scheduler_leader")) ? "scheduler leader"
								       : "not the scheduler leader");
	if (!json_is_true(json_object_get(st, "connected")) && err != NULL)
		fprintf(out, "%-21s%s\n", "  last error:", err);
}

/* VIP failover (docs/operations.md, "VIP failover"): one row per VIP of this router. */
static int
print_vrrp(FILE *out, const json_t *v)
{
	static const char *const h[] = { "VIP", "VRID", "STATE", "PRIORITY", "MASTER",
					 "MASTER PRIORITY", "TRANSITIONS", "LAST ADVERT" };
	char vrid[16], prio[16], mprio[16], trans[32], seen[32];
	const char *row[8];
	struct rctl_table *t;
	const json_t *e;
	size_t i;
	int rc = -1;

	fprintf(out, "%-21snode %" JSON_INTEGER_FORMAT " of %" JSON_INTEGER_FORMAT
		     ", adverts every %" JSON_INTEGER_FORMAT " ms, preempt %s\n",
		"vrrp:", json_integer_value(json_object_get(v, "node")),
		json_integer_value(json_object_get(v, "nodes")),
		json_integer_value(json_object_get(v, "advert_interval_ms")),
		json_is_true(json_object_get(v, "preempt")) ? "on" : "off");
	if (json_array_size(json_object_get(v, "vips")) == 0) {
		fprintf(out, "%-21s%s\n", "", "no VIPs (the Router named router_name has none)");
		return ferror(out) ? -1 : 0;
	}
	t = rctl_table_new(8, h);
	if (t == NULL)
		return -1;
	json_array_foreach(json_object_get(v, "vips"), i, e) {
		const json_t *ago = json_object_get(e, "master_seen_ms_ago");

		snprintf(vrid, sizeof(vrid), "%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(e, "vrid")));
		snprintf(prio, sizeof(prio), "%" JSON_INTEGER_FORMAT, json_integer_value(json_object_get(e, "priority")));
		snprintf(mprio, sizeof(mprio), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(e, "master_priority")));
		snprintf(trans, sizeof(trans), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(e, "transitions")));
		if (json_is_integer(ago))
			snprintf(seen, sizeof(seen), "%" JSON_INTEGER_FORMAT " ms ago", json_integer_value(ago));
		else
			snprintf(seen, sizeof(seen), "-");
		row[0] = str_or(e, "vip", "-");
		row[1] = vrid;
		row[2] = str_or(e, "state", "-");
		row[3] = prio;
		row[4] = *str_or(e, "master", "") ? str_or(e, "master", "-") : "-";
		row[5] = mprio;
		row[6] = trans;
		row[7] = seen;
		if (rctl_table_add_row(t, row) < 0)
			goto out;
	}
	rc = rctl_table_print(t, out);
out:
	rctl_table_free(t);
	return rc;
}

int
rctl_print_status(FILE *out, const json_t *r)
{
	static const char *const h[] = { "KIND", "OBJECTS" };
	struct rctl_table *t;
	const char *row[2];
	const char *kind;
	const json_t *n;
	char uptime[32], count[32];
	int rc = -1;

	rctl_format_duration((long long)json_number_value(json_object_get(r, "uptime_s")), uptime,
			     sizeof(uptime));
	fprintf(out, "%-21s%s\n", "router:", str_or(r, "router_name", "-"));
	fprintf(out, "%-21s%" JSON_INTEGER_FORMAT "\n", "generation:",
		json_integer_value(json_object_get(r, "generation")));
	fprintf(out, "%-21s%s\n", "uptime:", uptime);
	{
		const json_t *d = json_object_get(r, "drain");

		if (json_is_object(d))
			fprintf(out, "%-21s%.1f s, %.1f s left, %" JSON_INTEGER_FORMAT
				     " connection(s) in flight\n",
				"draining:", json_number_value(json_object_get(d, "seconds")),
				json_number_value(json_object_get(d, "seconds_left")),
				json_integer_value(json_object_get(d, "connections")));
	}
	fprintf(out, "%-21s%" JSON_INTEGER_FORMAT "\n", "retired generations:",
		json_integer_value(json_object_get(r, "retired_generations")));
	{
		const json_t *lc = json_object_get(r, "last_compile");

		if (json_is_object(lc))
			fprintf(out, "%-21s%s, %" JSON_INTEGER_FORMAT " objects, %.2f ms\n",
				"last compile:",
				json_is_true(json_object_get(lc, "incremental")) ? "incremental"
										: "everything",
				json_integer_value(json_object_get(lc, "objects")),
				json_number_value(json_object_get(lc, "ms")));
	}
	print_store(out, json_object_get(r, "store"));
	{
		const json_t *dc = json_object_get(json_object_get(r, "tls"), "default_certificate");

		if (json_is_object(dc))
			fprintf(out, "%-21s%s, until %s%s\n%-21s%s\n", "default certificate:",
				str_or(dc, "subject", "-"), str_or(dc, "not_after", "-"),
				json_is_true(json_object_get(dc, "generated")) ? " (generated)" : "",
				"  sha256:", str_or(dc, "sha256", "-"));
	}
	if (json_is_object(json_object_get(r, "vrrp")) && print_vrrp(out, json_object_get(r, "vrrp")) < 0)
		return -1;
	if (json_object_size(json_object_get(r, "objects")) == 0)
		return ferror(out) ? -1 : 0;
	fputc('\n', out);
	t = rctl_table_new(2, h);
	if (t == NULL)
		return -1;
	json_object_foreach(json_object_get(r, "objects"), kind, n) {
		snprintf(count, sizeof(count), "%" JSON_INTEGER_FORMAT, json_integer_value(n));
		row[0] = kind;
		row[1] = count;
		if (rctl_table_add_row(t, row) < 0)
			goto out;
	}
	rc = rctl_table_print(t, out);
out:
	rctl_table_free(t);
	return rc;
}

/* A string field, "-" when empty or absent (null legs, "" states). */
static const char *
dash(const json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));

	return s != NULL && s[0] != '\0' ? s : "-";
}

/* Milliseconds as the table shows them: "-" for -1 (none), else seconds. */
static void
ms_cell(const json_t *o, const char *key, char *buf, size_t len)
{
	json_int_t ms = json_integer_value(json_object_get(o, key));

	if (ms < 0)
		snprintf(buf, len, "-");
	else
		snprintf(buf, len, "%.1fs", (double)ms / 1000.0);
}

/* The live connection records (the conns op), one a line, and how many
 * were not listed. */
int
rctl_print_conns(FILE *out, const json_t *reply)
{
	static const char *const h[] = { "WORKER", "KIND",     "CLIENT",  "LISTEN", "BACKEND",
					 "SOURCE", "TCP C/B",  "REQ/RESP", "TLS",    "REQS",
					 "UNACKED", "QUEUED",  "TIMER",   "DEADLINE" };
	struct rctl_table *t = rctl_table_new(14, h);
	const json_t *c, *conns = json_object_get(reply, "conns");
	char worker[16], tcp[48], ex[32], reqs[16], unacked[16], queued[16], timer[24], deadline[24];
	size_t i;
	int rc = -1;

	if (t == NULL)
		return -1;
	json_array_foreach(conns, i, c) {
		const char *cells[14];

		snprintf(worker, sizeof(worker), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(c, "worker")));
		snprintf(tcp, sizeof(tcp), "%s/%s", dash(c, "client_tcp"), dash(c, "backend_tcp"));
		snprintf(ex, sizeof(ex), "%s/%s", dash(c, "request"), dash(c, "response"));
		snprintf(reqs, sizeof(reqs), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(c, "requests")));
		snprintf(unacked, sizeof(unacked), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(c, "unacked")));
		snprintf(queued, sizeof(queued), "%" JSON_INTEGER_FORMAT,
			 json_integer_value(json_object_get(c, "queued")));
		ms_cell(c, "timer_ms", timer, sizeof(timer));
		ms_cell(c, "deadline_ms", deadline, sizeof(deadline));
		cells[0] = worker;
		cells[1] = dash(c, "kind");
		cells[2] = dash(c, "client");
		cells[3] = dash(c, "listen");
		cells[4] = dash(c, "backend");
		cells[5] = dash(c, "source");
		cells[6] = strcmp(tcp, "-/-") == 0 ? "-" : tcp;
		cells[7] = strcmp(ex, "-/-") == 0 ? "-" : ex;
		cells[8] = dash(c, "tls");
		cells[9] = reqs;
		cells[10] = unacked;
		cells[11] = queued;
		cells[12] = timer;
		cells[13] = deadline;
		if (rctl_table_add_row(t, cells) < 0)
			goto out;
	}
	if (rctl_table_rows(t) == 0) {
		rc = fprintf(out, "No connections.\n") < 0 ? -1 : 0;
		goto out;
	}
	rc = rctl_table_print(t, out);
	if (rc == 0 && json_is_true(json_object_get(reply, "truncated")))
		rc = fprintf(out, "(%zu listed of %" JSON_INTEGER_FORMAT " live: routerctl conns LIMIT for more)\n",
			     json_array_size(conns),
			     json_integer_value(json_object_get(reply, "flows_active"))) < 0 ? -1 : 0;
out:
	rctl_table_free(t);
	return rc;
}
