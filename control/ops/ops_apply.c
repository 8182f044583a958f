/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * apply and delete: the only ops that change state. Both are all or nothing:
 * every object is validated first; then the change is journaled (fsync) and
 * only then does the store change and a new generation get published. A
 * rejected request leaves the store, the journal and the live generation as
 * they were.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_log.h>

#include "etcd/sync.h"
#include "fleet/fleet.h"
#include "kinds/kinds.h"
#include "router.h"
#include "strmap.h"

/* One object of an apply, decoded. */
struct staged {
	const struct sy_kind *kind;
	const char *ns;
	const char *name;
	json_t *obj; /* clean copy to store, owned */
	const char *action;
	char who[400];
};

/* Decode the identity of objects[i]; add errors naming what is wrong. */
static int
decode_one(const json_t *o, size_t i, struct staged *s, struct sy_errors *errs)
{
	const char *api = json_string_value(json_object_get(o, "apiVersion"));
	const char *kind = json_string_value(json_object_get(o, "kind"));
	const json_t *md = json_object_get(o, "metadata");
	const json_t *ns = json_object_get(md, "namespace");
	const json_t *name = json_object_get(md, "name");
	const json_t *ts = json_object_get(md, "creationTimestamp");
	const json_t *uid = json_object_get(md, "uid");
	struct sy_time when;
	char where[48];

	snprintf(where, sizeof(where), "objects[%zu]", i);
	if (!json_is_object(o))
		return sy_err_add(errs, "bad_request", where, NULL, "must be a JSON object");
	if (api == NULL)
		return sy_err_add(errs, "invalid", where, "apiVersion", "required");
	if (kind == NULL)
		return sy_err_add(errs, "invalid", where, "kind", "required");
	if (!json_is_object(md))
		return sy_err_add(errs, "invalid", where, "metadata", "required (with a name)");
	if (!json_is_string(name) || json_string_length(name) == 0)
		return sy_err_add(errs, "invalid", where, "metadata.name", "required");
	if (ns != NULL && (!json_is_string(ns) || json_string_length(ns) == 0))
		return sy_err_add(errs, "invalid", where, "metadata.namespace",
				  "must be a non-empty string (omit it for \"default\")");
	s->name = json_string_value(name);
	s->ns = ns ? json_string_value(ns) : "default";
	snprintf(s->who, sizeof(s->who), "%s %s/%s", kind, s->ns, s->name);
	s->kind = sy_kind_for_object(api, kind);
	if (s->kind == NULL) {
		const struct sy_kind *const *k;
		char known[512] = "";

		for (k = sy_kinds; *k; k++)
			snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s %s",
				 k == sy_kinds ? "" : ", ", (*k)->api_versions[0], (*k)->kind);
		return sy_err_add(errs, "unknown_kind", s->who, "kind",
				  "no kind \"%s\" in apiVersion \"%s\" (known: %s)", kind, api, known);
	}
	if (!sy_dns1123_subdomain(s->name))
		return sy_err_add(errs, "invalid", s->who, "metadata.name",
				  "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
				  "characters, '-' or '.', and must start and end with an alphanumeric "
				  "character");
	if (s->kind->cluster_scoped) {
		/* Cluster-scoped: a namespace given is ignored, as kubectl does. */
		s->ns = "";
		snprintf(s->who, sizeof(s->who), "%s %s", kind, s->name);
	} else if (!sy_dns1123_label(s->ns, strlen(s->ns)))
		return sy_err_add(errs, "invalid", s->who, "metadata.namespace",
				  "must be a lowercase RFC 1123 label of at most 63 characters");
	if (ts != NULL && (!json_is_string(ts) || sy_rfc3339_parse(json_string_value(ts), &when) < 0))
		return sy_err_add(errs, "invalid", s->who, "metadata.creationTimestamp",
				  "must be an RFC 3339 time like \"2026-01-02T03:04:05Z\"");
	if (uid != NULL && (!json_is_string(uid) || json_string_length(uid) == 0 ||
			    json_string_length(uid) >= 40))
		return sy_err_add(errs, "invalid", s->who, "metadata.uid",
				  "must be a non-empty string of at most 39 characters");
	return s->kind->validate(o, s->who, errs);
}

/*
 * What gets stored: the object as applied minus status (ours is computed),
 * with namespace, creationTimestamp and uid filled in. Age is never reset: an
 * existing object keeps its own; a new one keeps what it was given (objects
 * imported from a cluster keep their age) and gets the rest from the clock,
 * so that objects are as old as the order in which they were accepted
 * (control/store/age.h): call this in the order of the request.
 */
static json_t *
clean_copy(const json_t *o, const struct staged *s, const struct sy_object *existing,
	   struct sy_age_clock *clock)
{
	/* Only the top level and metadata change: those are copied, the rest
	 * (spec, often most of the object) is shared with the request by
	 * reference. Nothing writes into a stored object's tree (status lives
	 * beside it), and the request's tree is only read after this. At a
	 * million routes a deep copy was a fifth of an apply. */
	json_t *c = json_copy((json_t *)o);
	json_t *md = json_copy(json_object_get(c, "metadata"));
	const char *ts, *uid;
	char created[SY_RFC3339_LEN], newuid[SY_UID_LEN], exuid[SY_UID_LEN];

	if (c != NULL && md != NULL)
		json_object_set_new(c, "metadata", md);
	else
		md = json_object_get(c, "metadata");
	ts = json_string_value(json_object_get(md, "creationTimestamp"));
	uid = json_string_value(json_object_get(md, "uid"));

	json_object_del(c, "status");
	json_object_del(md, "resourceVersion");
	json_object_del(md, "generation");
	json_object_del(md, "managedFields");
	if (s->kind->cluster_scoped)
		json_object_del(md, "namespace");
	else
		json_object_set_new(md, "namespace", json_string(s->ns));
	if (existing != NULL) {
		ts = json_string_value(
			json_object_get(json_object_get(existing->obj, "metadata"), "creationTimestamp"));
		uid = sy_object_uid(existing, exuid);
	}
	if (ts == NULL || uid == NULL) {
		sy_age_stamp(clock, sy_wall_ms(), created, newuid);
		ts = ts ? ts : created;
		uid = uid ? uid : newuid;
	}
	json_object_set_new(md, "creationTimestamp", json_string(ts));
	json_object_set_new(md, "uid", json_string(uid));
	if (s->kind->generation) {
		const json_t *was = existing ? json_object_get(json_object_get(existing->obj, "metadata"),
							       "generation")
					     : NULL;
		json_int_t gen = json_is_integer(was) ? json_integer_value(was) : 0;

		if (gen == 0 || !json_equal(json_object_get(existing->obj, "spec"),
					    json_object_get(c, "spec")))
			gen++;
		json_object_set_new(md, "generation", json_integer(gen));
	}
	return c;
}

static struct sy_object *
object_from_stored(const struct sy_kind *kind, json_t *obj)
{
	const json_t *md = json_object_get(obj, "metadata");

	const char *ns = json_string_value(json_object_get(md, "namespace"));

	return sy_object_new(kind, kind->cluster_scoped || ns == NULL ? "" : ns,
			     json_string_value(json_object_get(md, "name")), obj,
			     json_string_value(json_object_get(md, "creationTimestamp")),
			     json_string_value(json_object_get(md, "uid")));
}

/* An object's compact JSON, printed once per apply: the journal's record
 * is made of these, and the store packs each object from its own
 * (sy_pack_object_text). Printing every object twice was a tenth of an
 * apply at a million routes. */
struct printed {
	char *text;
	size_t len;
};

static void
texts_free(struct printed *t, size_t n)
{
	size_t i;

	for (i = 0; t != NULL && i < n; i++)
		free(t[i].text);
	free(t);
}

static struct printed *
print_objects(json_t *const *objs, size_t n)
{
	struct printed *t = calloc(n ? n : 1, sizeof(*t));
	size_t i;

	for (i = 0; t != NULL && i < n; i++) {
		if ((t[i].text = json_dumps(objs[i], JSON_COMPACT)) == NULL) {
			texts_free(t, n);
			return NULL;
		}
		t[i].len = strlen(t[i].text);
	}
	return t;
}

/* The apply's journal record, {"op":"apply","time":now,"objects":[...]},
 * as json_dumps(JSON_COMPACT) would print it, from the objects' texts. */
static int
journal_apply(struct sy_journal *j, const char *now, const struct printed *t, size_t n)
{
	size_t cap = 64 + strlen(now), at, i;
	char *rec;
	int rc;

	for (i = 0; i < n; i++)
		cap += t[i].len + 1;
	if ((rec = malloc(cap)) == NULL)
		return -ENOMEM;
	/* now is RFC 3339: digits and "-:.TZ", nothing to escape. */
	at = (size_t)snprintf(rec, cap, "{\"op\":\"apply\",\"time\":\"%s\",\"objects\":[", now);
	for (i = 0; i < n; i++) {
		if (i > 0)
			rec[at++] = ',';
		memcpy(rec + at, t[i].text, t[i].len);
		at += t[i].len;
	}
	rec[at++] = ']';
	rec[at++] = '}';
	rc = sy_journal_append_text(j, rec, at);
	free(rec);
	return rc;
}

/* Put stored-form objects into the store; old versions keep their status so
 * condition transition times survive an update. revs: etcd's create_revision
 * of each (control/etcd/sync.h), or NULL. */
static int
commit(struct sy_router *r, const struct sy_kind *const *kinds, json_t *const *objs,
       const int64_t *revs, const struct printed *texts, size_t n)
{
	char uid[SY_UID_LEN];
	size_t i;

	for (i = 0; i < n; i++) {
		struct sy_object *o = object_from_stored(kinds[i], objs[i]);
		struct sy_object *old;

		if (o == NULL)
			return -ENOMEM;
		o->create_rev = revs ? revs[i] : 0;
		/* Packed from the journal's text now; cooling then only adds
		 * the status. Out of memory: packed when cooled, as before. */
		if (texts != NULL)
			(void)sy_pack_object_text(texts[i].text, texts[i].len, &o->packed);
		/* After a restart the clock resumes after every stamp the
		 * journal holds, even if the wall clock went back. */
		sy_age_observe(&r->clock, sy_object_uid(o, uid));
		old = sy_router_put(r, o);
		if (old != NULL) {
			o->status = json_incref(old->status);
			sy_object_free(old);
		}
	}
	return 0;
}

int
sy_ops_commit(struct sy_router *r, const struct sy_kind *const *kinds, json_t *const *objs,
	      const int64_t *revs, size_t n)
{
	return commit(r, kinds, objs, revs, NULL, n);
}

/* An object's identity in the apply's index: kinds are told apart by
 * their descriptor's address. asprintf'd, or NULL. */
static char *
batch_key(const struct sy_kind *kind, const char *ns, const char *name)
{
	char *k;

	return asprintf(&k, "%p/%s/%s", (const void *)kind, ns, name) < 0 ? NULL : k;
}

const json_t *
sy_apply_batch_find(const struct sy_apply_batch *b, const struct sy_kind *kind, const char *ns,
		    const char *name)
{
	char *k = batch_key(kind, kind->cluster_scoped ? "" : ns, name);
	uintptr_t at = k ? (uintptr_t)sy_strmap_get(b->index, k) : 0;

	free(k);
	return at ? json_array_get(b->objects, at - 1) : NULL;
}

json_t *
sy_ops_apply(struct sy_router *r, const json_t *req)
{
	const json_t *objects = json_object_get(req, "objects");
	struct sy_errors errs = { NULL };
	struct staged *st;
	struct sy_strmap seen;
	bool decoded_ok;
	char **keys;
	size_t n, i, j, changed = 0;
	char now[32];
	json_t *results, *reply;
	int rc;

	if (!json_is_array(objects))
		return sy_err_reply1("bad_request", NULL, "objects", "apply needs \"objects\": a list");
	n = json_array_size(objects);
	if (n == 0)
		return sy_err_reply1("bad_request", NULL, "objects", "nothing to apply: the list is empty");
	st = calloc(n, sizeof(*st));
	if (st == NULL)
		return sy_err_reply1("internal", NULL, NULL, "out of memory");
	sy_now_rfc3339(now, sizeof(now));
	/* Identities seen so far: a batch of thousands is checked in one pass. */
	keys = calloc(n, sizeof(*keys));
	if (keys == NULL || sy_strmap_init(&seen, n) < 0) {
		free(keys);
		free(st);
		return sy_err_reply1("internal", NULL, NULL, "out of memory");
	}
	for (i = 0; i < n; i++) {
		uintptr_t prev;

		if (decode_one(json_array_get(objects, i), i, &st[i], &errs) < 0 || st[i].kind == NULL)
			continue;
		if ((keys[i] = batch_key(st[i].kind, st[i].ns, st[i].name)) == NULL) {
			sy_err_add(&errs, "internal", st[i].who, NULL, "out of memory");
			continue;
		}
		prev = (uintptr_t)sy_strmap_get(&seen, keys[i]);
		if (prev != 0) {
			j = prev - 1;
			sy_err_add(&errs, "duplicate", st[i].who, "metadata.name",
				   "objects[%zu] and objects[%zu] are the same object; apply "
				   "each object once",
				   j, i);
		} else if (sy_strmap_put(&seen, keys[i], (void *)(i + 1)) < 0) {
			sy_err_add(&errs, "internal", st[i].who, NULL, "out of memory");
		}
	}
	decoded_ok = sy_err_count(&errs) == 0;
	/* Checks against the store (a RouteBinding's Route and Router, a
	 * Route's status.phase): after every object decoded, before anything
	 * changes, so the apply stays all or nothing. The index of what was
	 * seen is the batch they look in. */
	for (i = 0; decoded_ok && i < n; i++)
		if (st[i].kind->check_stored != NULL)
			st[i].kind->check_stored(&r->store, json_array_get(objects, i),
						 sy_store_find(&r->store, st[i].kind, st[i].ns,
							       st[i].name),
						 &(struct sy_apply_batch){ objects, &seen },
						 st[i].who, &errs);
	/* And against this routerd's config: VIPs it would fail over. */
	for (i = 0; decoded_ok && i < n; i++)
		if (st[i].kind == &sy_kind_router)
			sy_fleet_vips_check(r, json_array_get(objects, i), st[i].name, st[i].who,
					    &errs);
	sy_strmap_fini(&seen);
	for (i = 0; i < n; i++)
		free(keys[i]);
	free(keys);
	if (sy_err_count(&errs) > 0) {
		free(st);
		return sy_err_reply(&errs);
	}
	/* With etcd the local store may be behind: "unchanged" could be
	 * wrong, so nothing is answered while etcd is away. */
	if (r->etcd != NULL && (reply = sy_etcd_sync_unreachable(r)) != NULL) {
		free(st);
		return reply;
	}
	results = json_array();
	for (i = 0; i < n; i++) {
		struct sy_object *ex = sy_store_find(&r->store, st[i].kind, st[i].ns, st[i].name);

		st[i].obj = clean_copy(json_array_get(objects, i), &st[i], ex, &r->clock);
		if (ex == NULL)
			st[i].action = "created";
		else if (json_equal(ex->obj, st[i].obj))
			st[i].action = "unchanged";
		else
			st[i].action = "configured";
		if (strcmp(st[i].action, "unchanged") != 0)
			changed++;
		json_array_append_new(results, json_pack("{s:s, s:s, s:s, s:s}", "kind",
							 st[i].kind->kind, "namespace", st[i].ns,
							 "name", st[i].name, "action", st[i].action));
	}
	reply = NULL;
	if (changed > 0) {
		const struct sy_kind **kinds = calloc(n, sizeof(*kinds));
		json_t **objs = calloc(n, sizeof(*objs));
		struct printed *texts = NULL;
		size_t k = 0;

		for (i = 0; kinds && objs && i < n; i++)
			if (strcmp(st[i].action, "unchanged") != 0) {
				kinds[k] = st[i].kind;
				objs[k++] = st[i].obj;
			}
		if (kinds == NULL || objs == NULL)
			reply = sy_err_reply1("internal", NULL, NULL, "out of memory; nothing was changed");
		else if (r->etcd != NULL)
			/* Written through to etcd in one txn; the reply waits
			 * for its answer (control/etcd/sync.h). */
			reply = sy_etcd_sync_apply(r, kinds, objs, k, results);
		else if ((texts = print_objects(objs, k)) == NULL)
			reply = sy_err_reply1("internal", NULL, NULL, "out of memory; nothing was changed");
		else if ((rc = journal_apply(&r->journal, now, texts, k)) < 0)
			reply = sy_err_reply1("internal", NULL, NULL,
					      "cannot write the journal %s: %s; nothing was changed",
					      r->journal.path, strerror(-rc));
		else {
			if (commit(r, kinds, objs, NULL, texts, k) < 0)
				RTE_LOG(ERR, USER1, "apply: out of memory committing objects\n");
			sy_router_recompile(r);
		}
		texts_free(texts, k);
		free(kinds);
		free(objs);
	}
	if (reply == NULL)
		reply = json_pack("{s:b, s:I, s:O}", "ok", 1, "generation", (json_int_t)r->gen_id,
				  "results", results);
	for (i = 0; i < n; i++)
		json_decref(st[i].obj);
	free(st);
	json_decref(results);
	return reply;
}

/* kind/namespace/name of a get or delete. Returns the kind or NULL with a reply. */
const struct sy_kind *
sy_ops_request_kind(const json_t *req, json_t **reply)
{
	const char *k = json_string_value(json_object_get(req, "kind"));
	const struct sy_kind *kind;
	const struct sy_kind *const *it;
	char known[512] = "";

	if (k == NULL) {
		*reply = sy_err_reply1("bad_request", NULL, "kind", "\"kind\" is required");
		return NULL;
	}
	kind = sy_kind_by_name(k);
	if (kind != NULL)
		return kind;
	for (it = sy_kinds; *it; it++)
		snprintf(known + strlen(known), sizeof(known) - strlen(known), "%s%s",
			 it == sy_kinds ? "" : ", ", (*it)->names[1]);
	*reply = sy_err_reply1("unknown_kind", NULL, "kind",
			       "the server doesn't have a resource type \"%s\" (known: %s)", k, known);
	return NULL;
}

json_t *
sy_ops_delete(struct sy_router *r, const json_t *req)
{
	json_t *reply = NULL;
	const struct sy_kind *kind = sy_ops_request_kind(req, &reply);
	const char *ns = json_string_value(json_object_get(req, "namespace"));
	const char *name = json_string_value(json_object_get(req, "name"));
	json_t *rec;
	char now[32];
	int rc;

	if (kind == NULL)
		return reply;
	if (name == NULL)
		return sy_err_reply1("bad_request", NULL, "name", "delete needs \"name\"");
	if (kind->cluster_scoped)
		ns = "";
	else if (ns == NULL)
		ns = "default";
	if (sy_store_find(&r->store, kind, ns, name) == NULL)
		return sy_err_reply1("not_found", NULL, "name", "%s \"%s\" not found in namespace \"%s\"",
				     kind->kind, name, ns);
	if (r->etcd != NULL)
		return sy_etcd_sync_delete(r, kind, ns, name);
	sy_now_rfc3339(now, sizeof(now));
	/* apiVersion too: two kinds may share a kind name (OpenShift's and
	 * Contour's Route). */
	rec = json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "op", "delete", "time", now, "apiVersion",
			kind->api_versions[0], "kind", kind->kind, "namespace", ns, "name", name);
	rc = sy_journal_append(&r->journal, rec);
	json_decref(rec);
	if (rc < 0)
		return sy_err_reply1("internal", NULL, NULL,
				     "cannot write the journal %s: %s; nothing was changed",
				     r->journal.path, strerror(-rc));
	sy_router_remove(r, kind, ns, name);
	sy_router_recompile(r);
	return json_pack("{s:b, s:I}", "ok", 1, "generation", (json_int_t)r->gen_id);
}

int
sy_ops_replay_record(json_t *rec, void *arg)
{
	struct sy_router *r = arg;
	const char *op = json_string_value(json_object_get(rec, "op"));
	size_t i;
	json_t *o;

	if (op != NULL && strcmp(op, "apply") == 0) {
		json_array_foreach(json_object_get(rec, "objects"), i, o) {
			const struct sy_kind *kind =
				sy_kind_for_object(json_string_value(json_object_get(o, "apiVersion")),
						   json_string_value(json_object_get(o, "kind")));

			if (kind == NULL || json_object_get(json_object_get(o, "metadata"), "uid") == NULL) {
				RTE_LOG(WARNING, USER1, "journal: skipping an object of unknown kind\n");
				continue;
			}
			if (sy_ops_commit(r, &kind, &o, NULL, 1) < 0)
				return -ENOMEM;
		}
		return 0;
	}
	if (op != NULL && strcmp(op, "delete") == 0) {
		const struct sy_kind *kind =
			sy_kind_for_object(json_string_value(json_object_get(rec, "apiVersion")),
					   json_string_value(json_object_get(rec, "kind")));

		if (kind != NULL)
			sy_router_remove(r, kind, json_string_value(json_object_get(rec, "namespace")),
					 json_string_value(json_object_get(rec, "name")));
		return 0;
	}
	RTE_LOG(WARNING, USER1, "journal: skipping a record with unknown op\n");
	return -1;
}

int
sy_ops_ingest(struct sy_router *r, const json_t *obj, int64_t create_rev, const struct sy_kind *kind,
	      const char *ns, const char *name, char *err, size_t errlen)
{
	struct sy_errors errs = { NULL };
	struct staged s = { 0 };
	struct sy_object *ex;
	json_t *c, *md, *copy = NULL;
	const json_t *e;

	if (decode_one(obj, 0, &s, &errs) < 0 || sy_err_count(&errs) > 0) {
		e = json_array_get(errs.list, 0);
		snprintf(err, errlen, "%s: %s: %s",
			 json_string_value(json_object_get(e, "object")) ?: "object",
			 json_string_value(json_object_get(e, "field")) ?: "",
			 json_string_value(json_object_get(e, "message")) ?: "invalid");
		sy_err_clear(&errs);
		return -1;
	}
	if (s.kind != kind || strcmp(s.ns, ns) != 0 || strcmp(s.name, name) != 0) {
		snprintf(err, errlen, "%s: its key must name it (the key says %s %s/%s)", s.who,
			 kind->kind, ns, name);
		return -1;
	}
	/* Written by hand without a uid (etcdctl put): one every router
	 * derives alike from the key's revision, not from its own clock. */
	md = json_object_get(obj, "metadata");
	if (json_object_get(md, "uid") == NULL) {
		char uid[SY_UID_LEN];

		copy = json_deep_copy(obj);
		snprintf(uid, sizeof(uid), "etcd-%lld", (long long)create_rev);
		json_object_set_new(json_object_get(copy, "metadata"), "uid", json_string(uid));
		obj = copy;
	}
	ex = sy_store_find(&r->store, s.kind, s.ns, s.name);
	c = clean_copy(obj, &s, ex, &r->clock);
	json_decref(copy);
	if (ex != NULL && ex->create_rev == create_rev && json_equal(ex->obj, c)) {
		json_decref(c);
		return 0;
	}
	if (sy_ops_commit(r, &s.kind, &c, &create_rev, 1) < 0) {
		json_decref(c);
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	json_decref(c);
	return 1;
}
