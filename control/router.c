/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>

#include <rte_log.h>

#include "compile.h"
#include "router.h"

void
sy_now_rfc3339(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

void
sy_new_uid(char *buf, size_t len)
{
	uint8_t b[16];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b)) {
		/* No entropy should not stop an apply; uniqueness is what matters. */
		static uint64_t seq;
		uint64_t t = (uint64_t)time(NULL);

		memcpy(b, &t, 8);
		seq++;
		memcpy(b + 8, &seq, 8);
	}
	b[6] = (uint8_t)((b[6] & 0x0f) | 0x40);
	b[8] = (uint8_t)((b[8] & 0x3f) | 0x80);
	snprintf(buf, len,
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
		 b[15]);
}

int
sy_router_recompile(struct sy_router *r)
{
	char now[32];
	struct sy_compile_opts opts = {
		.routing_subdomain = r->cfg.routing_subdomain,
		.router_name = r->cfg.router_name,
		.allow_wildcard_routes = r->cfg.allow_wildcard_routes,
		.cfg = &r->cfg,
		.no_route_status = r->cfg.no_route_status,
		.now = now,
	};
	struct sy_generation *g;

	sy_now_rfc3339(now, sizeof(now));
	g = sy_compile(&r->store, &opts, r->gen_id + 1);
	if (g == NULL) {
		RTE_LOG(ERR, USER1, "compile failed (out of memory); generation %lu stays live\n",
			(unsigned long)r->gen_id);
		return -ENOMEM;
	}
	r->gen_id = g->id;
	sy_gen_publish(&r->slot, g);
	return 0;
}

/* Rewrite the journal as one record per live object, so replay time follows
 * the number of objects, not the number of changes ever made. */
static int
compact(struct sy_router *r)
{
	size_t n, i;
	struct sy_object **all = sy_store_list(&r->store, NULL, NULL, &n);
	json_t *recs = json_array();
	int rc;

	if (all == NULL)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		json_array_append_new(recs, json_pack("{s:s, s:[O]}", "op", "apply", "objects",
						      all[i]->obj));
	rc = sy_journal_rewrite(&r->journal, recs);
	json_decref(recs);
	free(all);
	return rc;
}

int
sy_router_load(struct sy_router *r, char *err, size_t errlen)
{
	int rc, warned = 0;

	r->started = time(NULL);
	if (sy_store_init(&r->store) < 0) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	rc = sy_journal_open(&r->journal, r->cfg.state_dir);
	if (rc < 0) {
		snprintf(err, errlen, "state_dir %s: cannot open the journal: %s", r->cfg.state_dir,
			 strerror(-rc));
		return rc;
	}
	r->journal_open = true;
	rc = sy_journal_replay(&r->journal, sy_ops_replay_record, r, &warned);
	if (rc < 0) {
		snprintf(err, errlen, "%s: cannot replay: %s", r->journal.path, strerror(-rc));
		return rc;
	}
	RTE_LOG(NOTICE, USER1, "journal %s: replayed %d records, %zu objects%s\n", r->journal.path,
		rc, r->store.count, warned ? " (a torn record was skipped)" : "");
	if (r->journal.records > r->store.count) {
		rc = compact(r);
		if (rc < 0)
			RTE_LOG(WARNING, USER1, "journal %s: compaction failed: %s (kept as is)\n",
				r->journal.path, strerror(-rc));
	}
	if (sy_router_recompile(r) < 0) {
		snprintf(err, errlen, "cannot compile the first generation: out of memory");
		return -ENOMEM;
	}
	return 0;
}

void
sy_router_fini(struct sy_router *r)
{
	if (r->journal_open)
		sy_journal_close(&r->journal);
	r->journal_open = false;
	sy_store_fini(&r->store);
}
