/* SPDX-License-Identifier: BSD-3-Clause */
/* The etcd store, control-thread side (sync.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_log.h>

#include "etcd/cache.h"
#include "etcd/codec.h"
#include "etcd/keys.h"
#include "etcd/link.h"
#include "etcd/sync.h"
#include "fleet/fleet.h"
#include "fleet/scheduler.h"
#include "kinds/gateway_common.h"
#include "router.h"

/* etcd takes at most this many operations in one txn (its --max-txn-ops):
 * larger applies and status write-backs are split into txns this large. */
#define TXN_MAX_OPS SY_ETCD_TXN_MAX_OPS

struct pending {
	uint64_t id;        /* the reply's (its first txn's id) */
	uint64_t txn_id;    /* the txn on its way */
	json_t *ops;        /* apply: every put; written TXN_MAX_OPS a txn, in order */
	size_t next_op;     /* the first op not acknowledged yet */
	size_t n;
	const struct sy_kind **kinds; /* apply: the objects; delete: n == 0 */
	json_t **objs;
	json_t *results;
	const struct sy_kind *kind; /* delete */
	char *ns, *name;
	int64_t acked_rev;  /* etcd took it at this revision */
	uint64_t acked_ms;
	struct pending *next;
};

/* A txn of status writes on its way: its keys, for a retry of just those
 * should it fail. */
struct status_txn {
	uint64_t id;
	json_t *keys;
	struct status_txn *next;
};

/*
 * The last watch event that changed the store, on its way to the live
 * generation (status's "last_change"; perf/etcd_change reads it): when the
 * watch thread had it, when the control thread took it, the decode +
 * validation + store of its objects, when the generation that has it was
 * published, and the status write-back queued after that. Times are
 * CLOCK_MONOTONIC seconds, comparable with a client's on this host.
 */
struct last_change {
	int64_t revision;  /* the newest mod_revision among them; 0: none yet */
	size_t kvs;        /* keys in the events drained together */
	double received;   /* the oldest of those events, watch thread */
	double posted;     /* it was queued for the control thread */
	double taken;      /* the control thread took them */
	double ingested;   /* decoded, validated, stored */
	double live;       /* published (sy_router_recompile returned) */
	double statuses;   /* the status write-back queued */
	/* The control thread's own CPU time at taken, ingested and live: what
	 * the code took, where the wall times also count what the machine ran
	 * instead on its CPU. */
	double taken_cpu, ingested_cpu, live_cpu;
};


struct sy_etcd_sync {
	struct sy_etcd_link link;
	struct pending *pending; /* submitted, not answered by etcd yet */
	struct pending *acked;   /* answered; the reply waits for the watch (drain) */
	const struct sy_sched_strategy *strategy; /* run while leader */
	bool leader;
	bool synced;             /* a full read was applied */
	int64_t applied_rev;     /* last revision applied to the store */
	size_t refused;          /* objects in etcd that did not validate */
	char last_refusal[1024];
	json_t *status_written;  /* status key -> the JSON text last written */
	json_t *status_gone;     /* status keys of objects deleted, to delete */
	json_t *status_retry;    /* status keys whose txn failed: looked at again */
	struct status_txn *status_txns; /* status txns not answered yet */
	uint64_t retry_ms;       /* when status_retry was last written */
	int64_t written_rev;     /* the newest revision etcd gave one of our writes */
	struct last_change last; /* status's store.last_change */
};

static void status_gone(struct sy_router *r, const struct sy_kind *kind, const char *ns,
			const char *name);

uint64_t
sy_etcd_pending_id(const json_t *reply)
{
	return (uint64_t)json_integer_value(json_object_get(reply, "_pending"));
}

static bool
sched_taken(const json_t *reply)
{
	return sy_etcd_pending_id(reply) != 0;
}

/* The scheduler's writes go through apply and delete, which write through
 * to etcd and answer later (fleet/scheduler.h). */
static const struct sy_sched_sink etcd_sched_sink = {
	.apply = sy_ops_apply,
	.del = sy_ops_delete,
	.taken = sched_taken,
	.settled = sy_etcd_sync_settled,
	.max_per_apply = TXN_MAX_OPS,
};

int
sy_etcd_sync_open(struct sy_router *r, char *err, size_t errlen)
{
	struct sy_etcd_sync *s = calloc(1, sizeof(*s));
	char self[128], host[64] = "", tls[640] = "";
	int rc;

	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->status_written = json_object();
	s->status_gone = json_array();
	s->status_retry = json_object();
	if (r->cfg.scheduler)
		s->strategy = sy_sched_strategy_by_name(r->cfg.scheduler_strategy);
	gethostname(host, sizeof(host) - 1);
	/* Unique per process: two routerds of one name never both lead. */
	snprintf(self, sizeof(self), "%s@%s/%d", r->cfg.router_name, host, (int)getpid());
	rc = sy_etcd_link_start(&s->link, &r->cfg.store, self, r->cfg.scheduler);
	if (rc < 0) {
		snprintf(err, errlen, "store.etcd: cannot start its threads: %s", strerror(-rc));
		json_decref(s->status_written);
		json_decref(s->status_gone);
		json_decref(s->status_retry);
		free(s);
		return rc;
	}
	r->etcd = s;
	r->sched.sink = &etcd_sched_sink;
	if (strncmp(r->cfg.store.endpoints[0], "https://", 8) == 0)
		snprintf(tls, sizeof(tls), ", TLS verified against %s%s%s",
			 r->cfg.store.ca_file[0] ? r->cfg.store.ca_file : "the system's trust store",
			 r->cfg.store.cert_file[0] ? ", client certificate " : "",
			 r->cfg.store.cert_file);
	RTE_LOG(NOTICE, USER1, "store: etcd %s, prefix %s (%u endpoint(s))%s%s\n",
		r->cfg.store.endpoints[0], r->cfg.store.prefix, r->cfg.store.n_endpoints, tls,
		r->cfg.scheduler ? ", campaigning for the scheduler" : "");
	return 0;
}

static void
pending_free(struct pending *p)
{
	size_t i;

	for (i = 0; i < p->n; i++)
		json_decref(p->objs[i]);
	free(p->kinds);
	free(p->objs);
	json_decref(p->results);
	json_decref(p->ops);
	free(p->ns);
	free(p->name);
	free(p);
}

void
sy_etcd_sync_close(struct sy_router *r)
{
	struct sy_etcd_sync *s = r->etcd;

	if (s == NULL)
		return;
	sy_etcd_link_stop(&s->link);
	while (s->pending != NULL || s->acked != NULL) {
		struct pending **head = s->pending ? &s->pending : &s->acked;
		struct pending *p = *head;

		*head = p->next;
		pending_free(p);
	}
	while (s->status_txns != NULL) {
		struct status_txn *t = s->status_txns;

		s->status_txns = t->next;
		json_decref(t->keys);
		free(t);
	}
	json_decref(s->status_written);
	json_decref(s->status_gone);
	json_decref(s->status_retry);
	free(s);
	r->etcd = NULL;
	r->sched.sink = NULL;
}

int
sy_etcd_sync_fd(const struct sy_router *r)
{
	return r->etcd ? sy_etcd_link_fd(&r->etcd->link) : -1;
}

/* Refused unless etcd answers now: an apply never waits for a reconnect. */
json_t *
sy_etcd_sync_unreachable(struct sy_router *r)
{
	struct sy_etcd_sync *s = r->etcd;
	struct sy_etcd_state st;

	sy_etcd_link_state(&s->link, &st);
	/* Before the first full read is stored here, an apply would be
	 * checked against an empty store ("created" over existing objects,
	 * their age stamped again). */
	if (st.connected && !s->synced)
		return sy_err_reply1("unavailable", NULL, NULL,
				     "etcd %s: the objects are not read yet; try again", st.endpoint);
	if (st.connected)
		return NULL;
	return sy_err_reply1("unavailable", NULL, NULL,
			     "etcd %s is unreachable (%s); nothing was changed (this router "
			     "keeps serving its last good generation)",
			     st.endpoint, st.last_error);
}

/* One txn's share of a: its elements from at, at most TXN_MAX_OPS (new
 * references), or NULL (out of memory). */
static json_t *
txn_slice(const json_t *a, size_t at)
{
	json_t *out = json_array();
	size_t i;

	for (i = at; out != NULL && i < json_array_size(a) && i < at + TXN_MAX_OPS; i++)
		if (json_array_append(out, json_array_get(a, i)) < 0) {
			json_decref(out);
			out = NULL;
		}
	return out;
}

/* The txn of ops from at submitted: its write id, or 0 (out of memory). */
static uint64_t
submit_slice(struct sy_etcd_sync *s, const json_t *ops, size_t at)
{
	json_t *batch = txn_slice(ops, at);

	return batch ? sy_etcd_link_submit(&s->link, sy_etcd_txn_req(NULL, batch, NULL)) : 0;
}

/* The next txn of p's ops submitted: 0, or -1 (out of memory). */
static int
submit_next(struct sy_etcd_sync *s, struct pending *p)
{
	p->txn_id = submit_slice(s, p->ops, p->next_op);
	return p->txn_id == 0 ? -1 : 0;
}

static json_t *
park(struct sy_etcd_sync *s, struct pending *p)
{
	if (submit_next(s, p) < 0) {
		pending_free(p);
		return sy_err_reply1("internal", NULL, NULL, "out of memory; nothing was changed");
	}
	p->id = p->txn_id;
	p->next = s->pending;
	s->pending = p;
	return json_pack("{s:I}", "_pending", (json_int_t)p->id);
}

json_t *
sy_etcd_sync_apply(struct sy_router *r, const struct sy_kind *const *kinds, json_t *const *objs,
		   size_t n, json_t *results)
{
	struct sy_etcd_sync *s = r->etcd;
	json_t *reply = sy_etcd_sync_unreachable(r), *ops;
	struct pending *p;
	size_t i;

	if (reply != NULL)
		return reply;
	p = calloc(1, sizeof(*p));
	ops = json_array();
	if (p == NULL || (p->kinds = calloc(n, sizeof(*p->kinds))) == NULL ||
	    (p->objs = calloc(n, sizeof(*p->objs))) == NULL) {
		if (p != NULL)
			pending_free(p);
		json_decref(ops);
		return sy_err_reply1("internal", NULL, NULL, "out of memory; nothing was changed");
	}
	for (i = 0; i < n; i++) {
		const json_t *md = json_object_get(objs[i], "metadata");
		const char *ns = json_string_value(json_object_get(md, "namespace"));
		char key[640];
		char *text = json_dumps(objs[i], JSON_COMPACT | JSON_SORT_KEYS);

		if (text == NULL || sy_etcd_object_key(r->cfg.store.prefix, kinds[i], ns ? ns : "",
						       json_string_value(json_object_get(md, "name")),
						       key, sizeof(key)) < 0) {
			free(text);
			pending_free(p);
			json_decref(ops);
			return sy_err_reply1("invalid", NULL, "metadata.name",
					     "the object's etcd key would be too long");
		}
		json_array_append_new(ops, sy_etcd_op_put(key, text, 0));
		free(text);
		p->kinds[i] = kinds[i];
		p->objs[i] = json_incref(objs[i]);
		p->n = i + 1;
	}
	p->results = json_incref(results);
	p->ops = ops;
	return park(s, p);
}

json_t *
sy_etcd_sync_delete(struct sy_router *r, const struct sy_kind *kind, const char *ns,
		    const char *name)
{
	struct sy_etcd_sync *s = r->etcd;
	json_t *reply = sy_etcd_sync_unreachable(r);
	struct pending *p;
	char key[640];

	if (reply != NULL)
		return reply;
	if (sy_etcd_object_key(r->cfg.store.prefix, kind, ns, name, key, sizeof(key)) < 0)
		return sy_err_reply1("invalid", NULL, "name", "the object's etcd key would be too long");
	p = calloc(1, sizeof(*p));
	if (p == NULL || (p->ns = strdup(ns)) == NULL || (p->name = strdup(name)) == NULL) {
		if (p != NULL)
			pending_free(p);
		return sy_err_reply1("internal", NULL, NULL, "out of memory; nothing was changed");
	}
	p->kind = kind;
	p->ops = json_pack("[o]", sy_etcd_op_delete(key));
	return park(s, p);
}

static struct pending *
take_pending(struct sy_etcd_sync *s, uint64_t id)
{
	struct pending **link;

	for (link = &s->pending; *link != NULL; link = &(*link)->next)
		if ((*link)->txn_id == id) {
			struct pending *p = *link;

			*link = p->next;
			return p;
		}
	return NULL;
}

/*
 * A write etcd acknowledged is not stored from its answer: the watch brings
 * it, in revision order with every other router's changes, so an older
 * answer can never overwrite a newer version. The reply waits until the
 * watch has applied the write's revision (normally milliseconds), at most
 * ACK_WAIT_MS: after that the write is acknowledged all the same (it is in
 * etcd), only not served here yet.
 */
#define ACK_WAIT_MS 3000u

static void
refuse(struct sy_etcd_sync *s, const char *key, const char *why)
{
	s->refused++;
	snprintf(s->last_refusal, sizeof(s->last_refusal), "%.500s: %.400s", key, why);
	RTE_LOG(WARNING, USER1, "etcd: refused %s: %s (the rest is served)\n", key, why);
}

/* One kv that was put: 1 stored, 0 unchanged or refused. */
static int
ingest_kv(struct sy_router *r, const json_t *kv)
{
	const char *key = json_string_value(json_object_get(kv, "key"));
	const char *val = json_string_value(json_object_get(kv, "value"));
	const struct sy_kind *kind;
	char ns[256], name[512], err[400];
	json_error_t jerr;
	json_t *obj;
	int rc;

	if (sy_etcd_parse_object_key(r->cfg.store.prefix, key, &kind, ns, sizeof(ns), name,
				     sizeof(name), err, sizeof(err)) < 0) {
		refuse(r->etcd, key, err);
		return 0;
	}
	obj = val ? json_loads(val, JSON_REJECT_DUPLICATES, &jerr) : NULL;
	if (obj == NULL) {
		refuse(r->etcd, key, val ? jerr.text : "the value is not UTF-8 text");
		return 0;
	}
	if (!kind->cluster_scoped && json_object_get(json_object_get(obj, "metadata"),
						     "namespace") == NULL)
		json_object_set_new(json_object_get(obj, "metadata"), "namespace", json_string(ns));
	rc = sy_ops_ingest(r, obj, sy_etcd_int(json_object_get(kv, "create_revision")), kind, ns,
			   name, err, sizeof(err));
	json_decref(obj);
	if (rc < 0)
		refuse(r->etcd, key, err);
	return rc > 0;
}

static bool
remove_key(struct sy_router *r, const char *key)
{
	const struct sy_kind *kind;
	char ns[256], name[512], err[400];

	if (sy_etcd_parse_object_key(r->cfg.store.prefix, key, &kind, ns, sizeof(ns), name,
				     sizeof(name), err, sizeof(err)) < 0)
		return false;
	status_gone(r, kind, ns, name);
	return sy_router_remove(r, kind, ns, name) == 0;
}

/* A full read: every key stored, and what the store has that etcd no
 * longer does deleted (it vanished while we were not watching). */
static bool
snapshot(struct sy_router *r, const json_t *kvs)
{
	json_t *seen = json_object(), *kv;
	struct sy_object **all;
	size_t i, n;
	bool changed = false;

	json_array_foreach(kvs, i, kv) {
		changed |= ingest_kv(r, kv) > 0;
		json_object_set_new(seen, json_string_value(json_object_get(kv, "key")), json_true());
	}
	all = sy_store_list(&r->store, NULL, NULL, &n);
	for (i = 0; all != NULL && i < n; i++) {
		char key[640];

		if (sy_etcd_object_key(r->cfg.store.prefix, all[i]->kind, all[i]->ns, all[i]->name,
				       key, sizeof(key)) >= 0 &&
		    json_object_get(seen, key) == NULL) {
			RTE_LOG(NOTICE, USER1, "etcd: %s is gone: deleted here too\n", key);
			status_gone(r, all[i]->kind, all[i]->ns, all[i]->name);
			/* all[i] is freed: the list is not read past it. */
			changed |= sy_router_remove(r, all[i]->kind, all[i]->ns, all[i]->name) == 0;
		}
	}
	free(all);
	json_decref(seen);
	r->etcd->synced = true;
	return changed;
}

/* Status operations on their way into txns, with the key of each (the ops
 * hold it in base64): a failed txn's keys are retried. */
struct status_ops {
	json_t *ops;
	json_t *keys;
};

static void
status_ops_add(struct status_ops *so, json_t *op, const char *key)
{
	json_array_append_new(so->ops, op);
	json_array_append_new(so->keys, json_string(key));
}

/* A status key to put (text) or delete (NULL) unless status_written says
 * etcd has that already; status_written follows. */
static void
status_op(struct sy_etcd_sync *s, struct status_ops *so, const char *key, const char *text)
{
	const json_t *was = json_object_get(s->status_written, key);

	if (text == NULL) {
		if (was == NULL)
			return;
		status_ops_add(so, sy_etcd_op_delete(key), key);
		json_object_del(s->status_written, key);
		return;
	}
	if (json_is_string(was) && strcmp(json_string_value(was), text) == 0)
		return;
	status_ops_add(so, sy_etcd_op_put(key, text, 0), key);
	json_object_set_new(s->status_written, key, json_string(text));
}

/*
 * Whether this router speaks for o's status. In a fleet a Route's status key
 * is written by the routers it is bound to, which admit and serve it; the
 * phase and dns every other router computes for it are the same everywhere
 * (each router's `get` shows them), and ten routers writing them for
 * 100,000 routes were 1,000,000 keys that loaded etcd enough to delay
 * applies by many seconds (perf/README.md, "fleet").
 */
static bool
status_is_ours(struct sy_router *r, const struct sy_object *o)
{
	return o->kind != &sy_kind_route || r->fleet_routers == 0 ||
	       sy_fleet_bound_to(&r->store, &r->rel, o->ns, o->name, r->cfg.router_name);
}

/* o's status key, its status to write in text or NULL for none: ops. */
static void
object_status_op(struct sy_router *r, struct status_ops *so, const struct sy_object *o)
{
	char k[640];
	char *text;

	if (sy_etcd_status_key(r->cfg.store.prefix, r->cfg.router_name, o->kind, o->ns, o->name,
			       k, sizeof(k)) < 0)
		return;
	if (o->kind == &sy_kind_gateway && o->status != NULL) {
		/* with its listeners' attachedRoutes, counted as `get` counts
		 * them (never stored: gateway_common.h) */
		json_t *items = json_array();
		struct sy_compile_opts opts;
		char now[32];

		json_array_append_new(items, sy_object_view(o));
		sy_router_compile_opts(r, &opts, now);
		sy_gw_status_live(&r->store, &opts, items);
		text = json_dumps(json_object_get(json_array_get(items, 0), "status"),
				  JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(items);
	} else {
		text = o->status && status_is_ours(r, o)
			       ? json_dumps(o->status, JSON_COMPACT | JSON_SORT_KEYS)
			       : NULL;
	}
	status_op(r->etcd, so, k, text);
	free(text);
}

/* An object left the store: its status key goes too (written next pass). */
static void
status_gone(struct sy_router *r, const struct sy_kind *kind, const char *ns, const char *name)
{
	char k[640];

	if (json_object_size(r->etcd->status_written) > 0 &&
	    sy_etcd_status_key(r->cfg.store.prefix, r->cfg.router_name, kind, ns, name, k,
			       sizeof(k)) == 0 &&
	    json_object_get(r->etcd->status_written, k) != NULL)
		json_array_append_new(r->etcd->status_gone, json_string(k));
}

/* A status txn failed (or timed out, and etcd may have it after all): what
 * etcd holds for its keys is unknown, so they are written again from the
 * objects as they are now, and deleted where there is nothing to write. */
static void
retry_statuses(struct sy_router *r, struct status_ops *so)
{
	struct sy_etcd_sync *s = r->etcd;
	const char *key;
	json_t *v;

	json_object_foreach(s->status_retry, key, v) {
		const struct sy_kind *kind;
		char ns[256], name[512], err[400];
		struct sy_object *o = NULL;

		if (sy_etcd_parse_status_key(r->cfg.store.prefix, r->cfg.router_name, key, &kind, ns,
					     sizeof(ns), name, sizeof(name), err, sizeof(err)) == 0)
			o = sy_store_find(&r->store, kind, ns, name);
		if (o != NULL)
			object_status_op(r, so, o);
		if (json_object_get(s->status_written, key) == NULL)
			status_ops_add(so, sy_etcd_op_delete(key), key);
	}
	json_object_clear(s->status_retry);
	s->retry_ms = sy_mono_ms();
}

/* What etcd holds for these status keys is unknown (their txn failed, or
 * was never sent): looked at again (retry_statuses). */
static void
status_keys_unknown(struct sy_etcd_sync *s, const json_t *keys)
{
	size_t i;
	json_t *k;

	json_array_foreach(keys, i, k) {
		json_object_del(s->status_written, json_string_value(k));
		json_object_set(s->status_retry, json_string_value(k), json_true());
	}
}

/* The status txn of id, taken off the list, or NULL. */
static struct status_txn *
take_status_txn(struct sy_etcd_sync *s, uint64_t id)
{
	struct status_txn **link;

	for (link = &s->status_txns; *link != NULL; link = &(*link)->next)
		if ((*link)->id == id) {
			struct status_txn *t = *link;

			*link = t->next;
			return t;
		}
	return NULL;
}

/* Failed status txns are retried once etcd answers again, at most once a
 * second. */
static bool
status_retry_due(struct sy_etcd_sync *s)
{
	struct sy_etcd_state st;

	sy_etcd_link_state(&s->link, &st);
	return st.connected && sy_mono_ms() - s->retry_ms >= 1000;
}

/*
 * The statuses this router computed that changed since they were last
 * written, the keys of objects gone, and the keys of failed status txns:
 * put and deleted, TXN_MAX_OPS a txn, without waiting.
 *
 * Only the objects warm now are looked at: a compile sets statuses on warm
 * objects only (store.h: a cool one has no status tree to set), so the
 * others have the status last written. A change of one route out of
 * 100,000 costs its scope, not a walk of the whole store.
 */
static void
write_statuses(struct sy_router *r)
{
	struct sy_etcd_sync *s = r->etcd;
	struct status_ops so = { json_array(), json_array() };
	json_t *v;
	size_t i, at;

	json_array_foreach(s->status_gone, i, v)
		status_op(s, &so, json_string_value(v), NULL);
	json_array_clear(s->status_gone);
	if (json_object_size(s->status_retry) > 0 && status_retry_due(s))
		retry_statuses(r, &so);
	/* The warm list (store.h): what this request unpacked. */
	for (i = 0; i < r->store.n_warm; i++)
		object_status_op(r, &so, r->store.warm[i]);
	for (at = 0; at < json_array_size(so.ops); at += TXN_MAX_OPS) {
		struct status_txn *t = calloc(1, sizeof(*t));
		json_t *keys = txn_slice(so.keys, at);

		if (t != NULL && keys != NULL)
			t->id = submit_slice(s, so.ops, at);
		if (t == NULL || t->id == 0) {
			/* Not sent (out of memory): looked at again later. */
			status_keys_unknown(s, keys ? keys : so.keys);
			json_decref(keys);
			free(t);
			continue;
		}
		t->keys = keys;
		t->next = s->status_txns;
		s->status_txns = t;
	}
	json_decref(so.ops);
	json_decref(so.keys);
}

/* The error reply of a write etcd did not acknowledge. An apply larger than
 * one txn is written in order, a txn at a time: those before the failed one
 * are in etcd (and served once the watch brings them), the rest not. */
static json_t *
write_failed(const struct pending *p, const char *why)
{
	size_t first = p->next_op < p->n ? p->next_op : 0;

	if (p->next_op == 0 || p->n == 0)
		return sy_err_reply1("unavailable", NULL, NULL,
				     "etcd did not acknowledge the write (%s); it is not applied here "
				     "(should etcd have taken it after all, the watch brings it)",
				     why);
	return sy_err_reply1(
		"unavailable", NULL, NULL,
		"etcd took the first %zu of the %zu objects (txns of %d, in order) and did not "
		"acknowledge the next txn (%s): from object %zu (%s %s) on nothing is known to be "
		"written (should etcd have taken that txn after all, the watch brings it); "
		"apply again to finish",
		p->next_op, p->n, TXN_MAX_OPS, why, first + 1, p->kinds[first]->kind,
		json_string_value(json_object_get(json_object_get(p->objs[first], "metadata"),
						  "name")));
}

/* A parked request answered: its reply is made once the change compiled,
 * so that it names the generation that has it. */
struct answer {
	uint64_t id;
	json_t *error;   /* or NULL: ok */
	json_t *results; /* apply's, or NULL (delete) */
};

void
sy_etcd_sync_drain(struct sy_router *r, void (*reply)(void *arg, uint64_t id, json_t *reply),
		   void *arg)
{
	struct sy_etcd_sync *s = r->etcd;
	const double taken = sy_etcd_mono_s();
	struct sy_etcd_event *ev = sy_etcd_link_take(&s->link), *next;
	bool changed = false, schedule = false, watched = false;
	struct last_change lc = { .taken = taken, .taken_cpu = sy_etcd_cpu_s() };
	struct answer *answers = NULL;
	struct pending **link;
	size_t n_answers = 0, i;
	json_t *kv;

	for (; ev != NULL; ev = next) {
		struct pending *p;
		struct answer *grown;

		next = ev->next;
		switch (ev->type) {
		case SY_ETCD_EV_SNAPSHOT:
			changed |= snapshot(r, ev->kvs);
			s->applied_rev = ev->revision;
			break;
		case SY_ETCD_EV_CHANGES:
			if (!watched || ev->received < lc.received) {
				lc.received = ev->received;
				lc.posted = ev->posted;
			}
			watched = true;
			lc.kvs += json_array_size(ev->kvs);
			json_array_foreach(ev->kvs, i, kv) {
				const char *type = json_string_value(json_object_get(kv, "type"));
				int64_t mod = sy_etcd_int(json_object_get(kv, "mod_revision"));

				if (mod > lc.revision)
					lc.revision = mod;

				if (strcmp(type, "DELETE") == 0)
					changed |= remove_key(r, json_string_value(json_object_get(kv, "key")));
				else
					changed |= ingest_kv(r, kv) > 0;
			}
			s->applied_rev = ev->revision;
			break;
		case SY_ETCD_EV_WRITE_DONE:
			p = take_pending(s, ev->write_id);
			if (p == NULL) {
				struct status_txn *t = take_status_txn(s, ev->write_id);

				/* A status write: its keys again on failure. */
				if (t != NULL && !ev->ok)
					status_keys_unknown(s, t->keys);
				if (t != NULL) {
					json_decref(t->keys);
					free(t);
				}
				break;
			}
			if (ev->ok) {
				bool succeeded;

				sy_etcd_decode_txn(ev->resp, &succeeded, &p->acked_rev, NULL, 0);
				if (p->acked_rev > s->written_rev)
					s->written_rev = p->acked_rev;
				p->next_op += TXN_MAX_OPS;
				if (p->next_op < json_array_size(p->ops)) {
					/* The next txn of a large apply: one at a
					 * time, so that a failure leaves a prefix. */
					if (submit_next(s, p) == 0) {
						p->next = s->pending;
						s->pending = p;
						break;
					}
					snprintf(ev->error, sizeof(ev->error), "out of memory");
				} else {
					p->acked_ms = sy_mono_ms();
					p->next = s->acked;
					s->acked = p;
					break;
				}
			}
			grown = realloc(answers, (n_answers + 1) * sizeof(*answers));
			if (grown != NULL) {
				answers = grown;
				answers[n_answers].id = p->id;
				answers[n_answers].error = write_failed(p, ev->error);
				answers[n_answers++].results = NULL;
			}
			pending_free(p);
			break;
		case SY_ETCD_EV_LEADER:
			s->leader = ev->leader;
			r->sched.strategy = ev->leader ? s->strategy : NULL;
			/* A new leader's first pass looks at everything. */
			r->sched.tidy_all |= ev->leader;
			schedule |= ev->leader;
			break;
		}
		sy_etcd_event_free(ev);
	}
	lc.ingested = sy_etcd_mono_s();
	lc.ingested_cpu = sy_etcd_cpu_s();
	if (changed) {
		sy_etcd_cache_changed(r); /* before anything reads the store again */
		sy_router_recompile(r);
	}
	lc.live = sy_etcd_mono_s();
	lc.live_cpu = sy_etcd_cpu_s();
	/* Acknowledged writes the watch has brought (or that waited long
	 * enough): answered now, with the generation that has them. */
	for (link = &s->acked; *link != NULL;) {
		struct pending *p = *link;
		struct answer *grown;

		if (p->acked_rev > s->applied_rev && sy_mono_ms() - p->acked_ms < ACK_WAIT_MS) {
			link = &p->next;
			continue;
		}
		*link = p->next;
		grown = realloc(answers, (n_answers + 1) * sizeof(*answers));
		if (grown != NULL) {
			answers = grown;
			answers[n_answers].id = p->id;
			answers[n_answers].error = NULL;
			answers[n_answers++].results = json_incref(p->results);
		}
		pending_free(p);
	}
	for (i = 0; i < n_answers; i++) {
		json_t *rep = answers[i].error;

		if (rep == NULL && answers[i].results != NULL)
			rep = json_pack("{s:b, s:I, s:O}", "ok", 1, "generation", (json_int_t)r->gen_id,
					"results", answers[i].results);
		else if (rep == NULL)
			rep = json_pack("{s:b, s:I}", "ok", 1, "generation", (json_int_t)r->gen_id);
		json_decref(answers[i].results);
		reply(arg, answers[i].id, rep);
	}
	free(answers);
	/* Statuses first: the scheduler's pass warms every route. */
	if (changed || json_array_size(s->status_gone) > 0 ||
	    (json_object_size(s->status_retry) > 0 && status_retry_due(s)))
		write_statuses(r);
	if (changed && watched) {
		lc.statuses = sy_etcd_mono_s();
		s->last = lc;
	}
	if ((changed || schedule || r->sched.due) && r->sched.strategy != NULL)
		sy_scheduler_run(r);
	sy_store_cool(&r->store);
}

static json_t *
last_change_json(const struct last_change *lc)
{
	if (lc->revision == 0)
		return json_null();
	return json_pack("{s:I, s:I, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f, s:f}", "revision",
			 (json_int_t)lc->revision, "kvs", (json_int_t)lc->kvs, "received_mono",
			 lc->received, "live_mono", lc->live, "read_to_live_ms",
			 (lc->live - lc->received) * 1e3, "watch_ms",
			 (lc->posted - lc->received) * 1e3, "handoff_ms",
			 (lc->taken - lc->posted) * 1e3, "ingest_ms",
			 (lc->ingested - lc->taken) * 1e3, "compile_ms", (lc->live - lc->ingested) * 1e3,
			 "statuses_ms", (lc->statuses - lc->live) * 1e3, "ingest_cpu_ms",
			 (lc->ingested_cpu - lc->taken_cpu) * 1e3, "compile_cpu_ms",
			 (lc->live_cpu - lc->ingested_cpu) * 1e3);
}

json_t *
sy_etcd_sync_status(struct sy_router *r)
{
	struct sy_etcd_sync *s = r->etcd;
	struct sy_etcd_state st;
	json_t *reply;

	sy_etcd_link_state(&s->link, &st);
	reply = json_pack("{s:s, s:s, s:s, s:b, s:I, s:I, s:s?, s:b, s:s, s:b, s:I, s:s?}", "kind",
			 "etcd", "endpoint", st.endpoint, "prefix", r->cfg.store.prefix, "connected",
			 st.connected, "revision", (json_int_t)st.revision, "applied_revision",
			 (json_int_t)s->applied_rev, "last_error",
			 st.last_error[0] ? st.last_error : NULL, "scheduler_leader", st.leader,
			 "leader", st.holder, "synced", s->synced, "refused",
			 (json_int_t)s->refused, "last_refused",
			 s->last_refusal[0] ? s->last_refusal : NULL);
	if (reply != NULL)
		json_object_set_new(reply, "last_change", last_change_json(&s->last));
	return reply;
}

void
sy_etcd_sync_wake(struct sy_router *r)
{
	if (r->etcd != NULL)
		sy_etcd_link_wake(&r->etcd->link);
}

bool
sy_etcd_sync_settled(const struct sy_router *r)
{
	const struct sy_etcd_sync *s = r->etcd;

	return s->pending == NULL && s->acked == NULL && s->applied_rev >= s->written_rev;
}

bool
sy_etcd_sync_waiting(const struct sy_router *r)
{
	return r->etcd != NULL && (r->etcd->acked != NULL || json_object_size(r->etcd->status_retry) > 0);
}
