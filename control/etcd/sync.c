/* SPDX-License-Identifier: BSD-3-Clause */
/* The etcd store, control-thread side (sync.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_log.h>

#include "etcd/codec.h"
#include "etcd/keys.h"
#include "etcd/link.h"
#include "etcd/sync.h"
#include "fleet/scheduler.h"
#include "router.h"

/* An apply larger than etcd's --max-txn-ops is refused here with that
 * advice, not split, so that it stays all or nothing. */
#define TXN_MAX_OPS SY_ETCD_TXN_MAX_OPS

struct pending {
	uint64_t id;
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
	bool status_dirty;       /* a status write failed: all again */
	int64_t written_rev;     /* the newest revision etcd gave one of our writes */
};

static void status_gone(struct sy_router *r, const struct sy_kind *kind, const char *ns,
			const char *name);

uint64_t
sy_etcd_pending_id(const json_t *reply)
{
	return (uint64_t)json_integer_value(json_object_get(reply, "_pending"));
}

int
sy_etcd_sync_open(struct sy_router *r, char *err, size_t errlen)
{
	struct sy_etcd_sync *s = calloc(1, sizeof(*s));
	char self[128], host[64] = "";
	int rc;

	if (s == NULL) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->status_written = json_object();
	s->status_gone = json_array();
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
		free(s);
		return rc;
	}
	r->etcd = s;
	RTE_LOG(NOTICE, USER1, "store: etcd %s, prefix %s (%u endpoint(s))%s\n",
		r->cfg.store.endpoints[0], r->cfg.store.prefix, r->cfg.store.n_endpoints,
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
	json_decref(s->status_written);
	json_decref(s->status_gone);
	free(s);
	r->etcd = NULL;
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

static json_t *
park(struct sy_etcd_sync *s, struct pending *p, json_t *txn)
{
	p->id = sy_etcd_link_submit(&s->link, txn);
	if (p->id == 0) {
		pending_free(p);
		return sy_err_reply1("internal", NULL, NULL, "out of memory; nothing was changed");
	}
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
	if (n > TXN_MAX_OPS)
		return sy_err_reply1("too_large", NULL, "objects",
				     "%zu objects change, and etcd takes at most %d operations in one "
				     "transaction (its --max-txn-ops): split the apply; nothing was "
				     "changed", n, TXN_MAX_OPS);
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
	return park(s, p, sy_etcd_txn_req(NULL, ops, NULL));
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
	return park(s, p, sy_etcd_txn_req(NULL, json_pack("[o]", sy_etcd_op_delete(key)), NULL));
}

static struct pending *
take_pending(struct sy_etcd_sync *s, uint64_t id)
{
	struct pending **link;

	for (link = &s->pending; *link != NULL; link = &(*link)->next)
		if ((*link)->id == id) {
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

/* A status key to put (text) or delete (NULL) unless status_written says
 * etcd has that already; status_written follows. */
static void
status_op(struct sy_etcd_sync *s, json_t *ops, const char *key, const char *text)
{
	const json_t *was = json_object_get(s->status_written, key);

	if (text == NULL) {
		if (was == NULL)
			return;
		json_array_append_new(ops, sy_etcd_op_delete(key));
		json_object_del(s->status_written, key);
		return;
	}
	if (json_is_string(was) && strcmp(json_string_value(was), text) == 0)
		return;
	json_array_append_new(ops, sy_etcd_op_put(key, text, 0));
	json_object_set_new(s->status_written, key, json_string(text));
}

/* o's status key, its status to write in text or NULL for none: ops. */
static void
object_status_op(struct sy_router *r, json_t *ops, const struct sy_object *o)
{
	char k[640];
	char *text;

	if (sy_etcd_status_key(r->cfg.store.prefix, r->cfg.router_name, o->kind, o->ns, o->name,
			       k, sizeof(k)) < 0)
		return;
	text = o->status ? json_dumps(o->status, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	status_op(r->etcd, ops, k, text);
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

/*
 * The statuses this router computed that changed since they were last
 * written, and the keys of objects gone: put and deleted, TXN_MAX_OPS a
 * txn, without waiting (a failed one makes the next pass write all).
 *
 * Only the objects warm now are looked at: a compile sets statuses on warm
 * objects only (store.h: a cool one has no status tree to set), so the
 * others have the status last written. A change of one route out of
 * 100,000 costs its scope, not a walk of the whole store; after a failed
 * write (status_dirty) every object is looked at again.
 */
static void
write_statuses(struct sy_router *r)
{
	struct sy_etcd_sync *s = r->etcd;
	struct sy_object **objs, **all = NULL;
	json_t *ops = json_array(), *v;
	size_t i, n, at;

	json_array_foreach(s->status_gone, i, v)
		status_op(s, ops, json_string_value(v), NULL);
	json_array_clear(s->status_gone);
	if (s->status_dirty) {
		json_t *was = s->status_written;
		const char *key;

		/* What etcd holds is not known: everything is put again, and
		 * keys of objects no longer here deleted. */
		s->status_written = json_object();
		s->status_dirty = false;
		all = sy_store_list(&r->store, NULL, NULL, &n);
		for (i = 0; all != NULL && i < n; i++)
			object_status_op(r, ops, all[i]);
		json_object_foreach(was, key, v)
			if (json_object_get(s->status_written, key) == NULL)
				json_array_append_new(ops, sy_etcd_op_delete(key));
		json_decref(was);
		free(all);
	} else {
		/* The warm list (store.h): what this request unpacked. */
		objs = r->store.warm;
		n = r->store.n_warm;
		for (i = 0; i < n; i++)
			object_status_op(r, ops, objs[i]);
	}
	for (at = 0; at < json_array_size(ops); at += TXN_MAX_OPS) {
		json_t *batch = json_array();

		for (i = at; i < json_array_size(ops) && i < at + TXN_MAX_OPS; i++)
			json_array_append(batch, json_array_get(ops, i));
		sy_etcd_link_submit(&s->link, sy_etcd_txn_req(NULL, batch, NULL));
	}
	json_decref(ops);
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
	struct sy_etcd_event *ev = sy_etcd_link_take(&s->link), *next;
	bool changed = false, schedule = false;
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
			json_array_foreach(ev->kvs, i, kv) {
				const char *type = json_string_value(json_object_get(kv, "type"));

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
				/* A status write: written again on failure. */
				if (!ev->ok)
					s->status_dirty = true;
				break;
			}
			if (ev->ok) {
				bool succeeded;

				sy_etcd_decode_txn(ev->resp, &succeeded, &p->acked_rev, NULL, 0);
				if (p->acked_rev > s->written_rev)
					s->written_rev = p->acked_rev;
				p->acked_ms = sy_mono_ms();
				p->next = s->acked;
				s->acked = p;
				break;
			}
			grown = realloc(answers, (n_answers + 1) * sizeof(*answers));
			if (grown != NULL) {
				answers = grown;
				answers[n_answers].id = p->id;
				answers[n_answers].error = sy_err_reply1(
					"unavailable", NULL, NULL,
					"etcd did not acknowledge the write (%s); it is not applied here "
					"(should etcd have taken it after all, the watch brings it)",
					ev->error);
				answers[n_answers++].results = NULL;
			}
			pending_free(p);
			break;
		case SY_ETCD_EV_LEADER:
			s->leader = ev->leader;
			r->sched.strategy = ev->leader ? s->strategy : NULL;
			schedule |= ev->leader;
			break;
		}
		sy_etcd_event_free(ev);
	}
	if (changed)
		sy_router_recompile(r);
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
	if (changed || s->status_dirty || json_array_size(s->status_gone) > 0)
		write_statuses(r);
	if ((changed || schedule || r->sched.due) && r->sched.strategy != NULL)
		sy_scheduler_run(r);
	sy_store_cool(&r->store);
}

json_t *
sy_etcd_sync_status(struct sy_router *r)
{
	struct sy_etcd_sync *s = r->etcd;
	struct sy_etcd_state st;

	sy_etcd_link_state(&s->link, &st);
	return json_pack("{s:s, s:s, s:s, s:b, s:I, s:I, s:s?, s:b, s:s, s:b, s:I, s:s?}", "kind",
			 "etcd", "endpoint", st.endpoint, "prefix", r->cfg.store.prefix, "connected",
			 st.connected, "revision", (json_int_t)st.revision, "applied_revision",
			 (json_int_t)s->applied_rev, "last_error",
			 st.last_error[0] ? st.last_error : NULL, "scheduler_leader", st.leader,
			 "leader", st.holder, "synced", s->synced, "refused",
			 (json_int_t)s->refused, "last_refused",
			 s->last_refusal[0] ? s->last_refusal : NULL);
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
	return r->etcd != NULL && r->etcd->acked != NULL;
}
