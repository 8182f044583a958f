/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>
#include <rte_log.h>

#include "store/age.h"
#include "etcd/codec.h"
#include "etcd/http.h"
#include "etcd/keys.h"
#include "etcd/link.h"

#define RANGE_TIMEOUT_MS 10000L /* a page of the full read */
#define RANGE_PAGE 5000         /* keys a page: about 2 MB of answer */
#define CALL_TIMEOUT_MS 3000L   /* one txn, a lease call */
#define BACKOFF_MIN_MS 100u
#define BACKOFF_MAX_MS 2000u

static void
post(struct sy_etcd_link *l, struct sy_etcd_event *ev)
{
	uint64_t one = 1;

	pthread_mutex_lock(&l->mu);
	ev->next = NULL;
	ev->posted = sy_etcd_mono_s();
	*l->ev_tail = ev;
	l->ev_tail = &ev->next;
	pthread_mutex_unlock(&l->mu);
	if (write(l->efd, &one, sizeof(one)) < 0)
		RTE_LOG(ERR, USER1, "etcd: eventfd: %s\n", strerror(errno));
}

static double
clock_s(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double
sy_etcd_mono_s(void)
{
	return clock_s(CLOCK_MONOTONIC);
}

double
sy_etcd_cpu_s(void)
{
	return clock_s(CLOCK_THREAD_CPUTIME_ID);
}

static struct sy_etcd_event *
event_new(enum sy_etcd_ev type)
{
	struct sy_etcd_event *ev = calloc(1, sizeof(*ev));

	if (ev != NULL) {
		ev->type = type;
		ev->received = sy_etcd_mono_s();
	}
	return ev;
}

/* The endpoint to use now (copied: the other thread may move on). */
static void
endpoint(struct sy_etcd_link *l, char *out, size_t len)
{
	pthread_mutex_lock(&l->mu);
	snprintf(out, len, "%s", l->cfg.endpoints[l->ep]);
	pthread_mutex_unlock(&l->mu);
}

/* A call to ep failed: note it, and try the next endpoint from now on. */
/* (Both log after the mutex is released: the control thread takes it for
 * `status` and the events, and a log line is a write that may wait.) */
static void
failed(struct sy_etcd_link *l, const char *ep, const char *err)
{
	bool news;

	pthread_mutex_lock(&l->mu);
	news = l->st.connected || strcmp(l->st.last_error, err) != 0;
	l->st.connected = false;
	snprintf(l->st.last_error, sizeof(l->st.last_error), "%s", err);
	if (strcmp(l->cfg.endpoints[l->ep], ep) == 0)
		l->ep = (l->ep + 1) % l->cfg.n_endpoints;
	snprintf(l->st.endpoint, sizeof(l->st.endpoint), "%s", l->cfg.endpoints[l->ep]);
	pthread_mutex_unlock(&l->mu);
	if (news)
		RTE_LOG(WARNING, USER1, "etcd: %s\n", err);
}

static void
connected(struct sy_etcd_link *l, const char *ep, int64_t revision)
{
	bool news;

	pthread_mutex_lock(&l->mu);
	news = !l->st.connected;
	l->st.connected = true;
	snprintf(l->st.endpoint, sizeof(l->st.endpoint), "%s", ep);
	if (revision > l->st.revision)
		l->st.revision = revision;
	pthread_mutex_unlock(&l->mu);
	if (news)
		RTE_LOG(NOTICE, USER1, "etcd: connected to %s at revision %lld\n", ep,
			(long long)revision);
}

/* Sleep ms in slices, returning early when stopping. */
static void
nap(struct sy_etcd_link *l, unsigned ms)
{
	while (ms > 0 && !atomic_load(&l->stop)) {
		unsigned step = ms < 100 ? ms : 100;
		struct timespec ts = { 0, (long)step * 1000000L };

		nanosleep(&ts, NULL);
		ms -= step;
	}
}

/* ---- the watch thread ---- */

struct watch_ctx {
	struct sy_etcd_link *l;
	const char *ep;
	char objects[192], leader_key[192];
	int64_t last_rev;
	bool need_full;
};

static int
on_watch_msg(const json_t *msg, void *arg)
{
	struct watch_ctx *w = arg;
	struct sy_etcd_watch_msg m;
	struct sy_etcd_event *ev;
	json_t *objs, *kv;
	size_t i, plen = strlen(w->objects);
	const double received = sy_etcd_mono_s();

	if (sy_etcd_decode_watch(msg, &m) < 0) {
		const char *e = sy_etcd_error(msg);

		failed(w->l, w->ep, e ? e : "the watch stream sent something that is not a watch message");
		return 1;
	}
	if (m.compact_revision > 0) {
		/* What happened after last_rev is gone: read everything again
		 * (the control thread deletes what vanished). */
		RTE_LOG(WARNING, USER1, "etcd: revision %lld was compacted (now %lld): reading every "
			"object again\n", (long long)(w->last_rev + 1), (long long)m.compact_revision);
		w->need_full = true;
		json_decref(m.events);
		return 1;
	}
	if (m.canceled) {
		json_decref(m.events);
		return 1;
	}
	objs = json_array();
	json_array_foreach(m.events, i, kv) {
		const char *key = json_string_value(json_object_get(kv, "key"));
		bool del = strcmp(json_string_value(json_object_get(kv, "type")), "DELETE") == 0;

		if (strncmp(key, w->objects, plen) == 0) {
			json_array_append(objs, kv);
		} else if (strcmp(key, w->leader_key) == 0) {
			const char *v = json_string_value(json_object_get(kv, "value"));

			bool mine = v != NULL && strcmp(v, w->l->self_id) == 0;

			pthread_mutex_lock(&w->l->mu);
			if (del || !mine)
				w->l->key_event = del ? 1 : 2;
			snprintf(w->l->st.holder, sizeof(w->l->st.holder), "%s", del ? "" : v ? v : "");
			pthread_cond_signal(&w->l->cond);
			pthread_mutex_unlock(&w->l->mu);
		}
		/* Nothing else is in the watch's range (keys.h). */
	}
	json_decref(m.events);
	if (json_array_size(objs) > 0 && (ev = event_new(SY_ETCD_EV_CHANGES)) != NULL) {
		ev->kvs = objs;
		ev->revision = m.revision;
		ev->received = received;
		post(w->l, ev);
	} else {
		json_decref(objs);
	}
	if (m.revision > w->last_rev)
		w->last_rev = m.revision;
	connected(w->l, w->ep, w->last_rev);
	return 0;
}

/*
 * Every object under from..end, in pages of RANGE_PAGE keys, the later ones
 * at the revision of the first: one consistent snapshot however large, each
 * answer small enough for its timeout (one range of 200,000 objects is not,
 * on a busy machine, and a read that always times out never syncs). A page
 * starts at the last key of the one before, which it skips. NULL with err on
 * failure (all of it is read again).
 */
static json_t *
read_all(struct sy_etcd_link *l, struct sy_etcd_http *h, const char *ep, const char *from,
	 const char *end, int64_t *revision, char *err, size_t errlen)
{
	json_t *all = json_array();
	char *key = strdup(from);
	int64_t at = 0;
	bool more = true;

	err[0] = '\0';
	while (more && key != NULL && all != NULL) {
		json_t *req = sy_etcd_range_page_req(key, end, at, RANGE_PAGE + (at ? 1 : 0));
		json_t *resp = NULL, *kvs = NULL, *kv;
		int64_t rev = 0;
		size_t i, n;

		if (atomic_load(&l->stop) ||
		    sy_etcd_http_post(h, ep, "/v3/kv/range", req, RANGE_TIMEOUT_MS, &resp, err,
				      errlen) < 0 ||
		    (kvs = sy_etcd_decode_range(resp, &rev)) == NULL) {
			if (err[0] == '\0')
				snprintf(err, errlen, "%s/v3/kv/range: %s", ep,
					 resp && sy_etcd_error(resp) ? sy_etcd_error(resp)
								     : "not a range answer");
			json_decref(req);
			json_decref(resp);
			json_decref(all);
			free(key);
			return NULL;
		}
		more = sy_etcd_range_more(resp);
		n = json_array_size(kvs);
		json_array_foreach(kvs, i, kv)
			if (at == 0 || i > 0)
				json_array_append(all, kv);
		if (at == 0)
			at = rev;
		free(key);
		key = n > 0 ? strdup(json_string_value(json_object_get(json_array_get(kvs, n - 1),
									 "key")))
			    : NULL;
		more = more && n > 0;
		json_decref(req);
		json_decref(resp);
		json_decref(kvs);
	}
	free(key);
	*revision = at;
	return all;
}

/* A thread's HTTP handle, with the TLS files of store.etcd (pointers into
 * l->cfg, which outlives both threads). */
static int
http_init(struct sy_etcd_link *l, struct sy_etcd_http *h)
{
	const struct sy_etcd_tls tls = {
		.ca_file = l->cfg.ca_file,
		.cert_file = l->cfg.cert_file,
		.key_file = l->cfg.key_file,
	};

	return sy_etcd_http_init(h, &l->stop, &tls);
}

static void *
watch_main(void *arg)
{
	struct sy_etcd_link *l = arg;
	struct sy_etcd_http h;
	struct watch_ctx w = { .l = l, .need_full = true };
	unsigned backoff = BACKOFF_MIN_MS;
	char ep[128], end[192], err[320], wkey[192], wend[192];

	if (http_init(l, &h) < 0)
		return NULL;
	snprintf(w.objects, sizeof(w.objects), "%sobjects/", l->cfg.prefix);
	snprintf(w.leader_key, sizeof(w.leader_key), "%sleader/scheduler", l->cfg.prefix);
	sy_etcd_range_end(w.objects, end, sizeof(end));
	/* The objects and the leader key, not the statuses (keys.h). */
	if (sy_etcd_watch_range(l->cfg.prefix, wkey, sizeof(wkey), wend, sizeof(wend)) < 0) {
		failed(l, l->cfg.endpoints[0], "store.etcd.prefix is too long for the watch's keys");
		sy_etcd_http_fini(&h);
		return NULL;
	}
	while (!atomic_load(&l->stop)) {
		json_t *req;

		endpoint(l, ep, sizeof(ep));
		w.ep = ep;
		if (w.need_full) {
			json_t *kvs;
			struct sy_etcd_event *ev;

			kvs = read_all(l, &h, ep, w.objects, end, &w.last_rev, err, sizeof(err));
			if (kvs == NULL) {
				failed(l, ep, err);
				nap(l, backoff);
				backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
				continue;
			}
			ev = event_new(SY_ETCD_EV_SNAPSHOT);
			if (ev == NULL) {
				json_decref(kvs);
				continue;
			}
			ev->kvs = kvs;
			ev->revision = w.last_rev;
			post(l, ev);
			w.need_full = false;
			connected(l, ep, w.last_rev);
		}
		req = sy_etcd_watch_req(wkey, wend, w.last_rev + 1);
		err[0] = '\0';
		if (sy_etcd_http_stream(&h, ep, "/v3/watch", req, on_watch_msg, &w, err,
					sizeof(err)) < 0 || err[0] != '\0') {
			failed(l, ep, err[0] ? err : "the watch ended");
		} else if (!w.need_full && !atomic_load(&l->stop)) {
			failed(l, ep, "the watch was canceled");
		}
		json_decref(req);
		if (atomic_load(&l->stop))
			break;
		pthread_mutex_lock(&l->mu);
		bool up = l->st.connected;
		pthread_mutex_unlock(&l->mu);
		if (!up) {
			nap(l, backoff);
			backoff = backoff * 2 > BACKOFF_MAX_MS ? BACKOFF_MAX_MS : backoff * 2;
		} else {
			backoff = BACKOFF_MIN_MS;
		}
	}
	sy_etcd_http_fini(&h);
	return NULL;
}

/* ---- the ops thread: writes and the election ---- */

static void
set_leader(struct sy_etcd_link *l, bool leader)
{
	struct sy_etcd_event *ev = event_new(SY_ETCD_EV_LEADER);

	pthread_mutex_lock(&l->mu);
	l->st.leader = leader;
	if (leader)
		snprintf(l->st.holder, sizeof(l->st.holder), "%s", l->self_id);
	pthread_mutex_unlock(&l->mu);
	RTE_LOG(NOTICE, USER1, "etcd: %s the scheduler leader (%s)\n",
		leader ? "this router is now" : "this router is no longer", l->self_id);
	if (ev != NULL) {
		ev->leader = leader;
		post(l, ev);
	}
}

static void
do_write(struct sy_etcd_link *l, struct sy_etcd_http *h, struct sy_etcd_write *w)
{
	struct sy_etcd_event *ev = event_new(SY_ETCD_EV_WRITE_DONE);
	char ep[128];
	json_t *resp = NULL;

	endpoint(l, ep, sizeof(ep));
	if (ev == NULL)
		return;
	ev->write_id = w->id;
	ev->ok = sy_etcd_http_post(h, ep, "/v3/kv/txn", w->txn, CALL_TIMEOUT_MS, &resp, ev->error,
				   sizeof(ev->error)) == 0;
	ev->resp = resp;
	if (!ev->ok)
		failed(l, ep, ev->error);
	post(l, ev);
}

/* One step the election asked for. */
static void
elect(struct sy_etcd_link *l, struct sy_etcd_http *h, enum sy_elect_action a)
{
	char ep[128], err[320], key[192];
	json_t *req = NULL, *resp = NULL;
	bool changed = false, ok;

	endpoint(l, ep, sizeof(ep));
	snprintf(key, sizeof(key), "%sleader/scheduler", l->cfg.prefix);
	switch (a) {
	case SY_ELECT_GRANT:
		req = sy_etcd_lease_grant_req(l->el.ttl_ms / 1000);
		ok = sy_etcd_http_post(h, ep, "/v3/lease/grant", req, CALL_TIMEOUT_MS, &resp, err,
				       sizeof(err)) == 0;
		changed = sy_election_granted(&l->el, ok, ok ? sy_etcd_int(json_object_get(resp, "ID")) : 0,
					      sy_mono_ms());
		break;
	case SY_ELECT_KEEPALIVE:
		req = sy_etcd_lease_id_req(l->el.lease);
		ok = sy_etcd_http_post(h, ep, "/v3/lease/keepalive", req, CALL_TIMEOUT_MS, &resp, err,
				       sizeof(err)) == 0;
		changed = sy_election_kept(
			&l->el, ok,
			ok ? sy_etcd_int(json_object_get(json_object_get(resp, "result"), "TTL")) : 0,
			sy_mono_ms());
		break;
	case SY_ELECT_CAMPAIGN: {
		bool won = false;
		int64_t rev, revs[1];

		req = sy_etcd_txn_req(json_pack("[o]", sy_etcd_cmp_absent(key)),
				      json_pack("[o]", sy_etcd_op_put(key, l->self_id, l->el.lease)),
				      json_pack("[o]", sy_etcd_op_range(key)));
		ok = sy_etcd_http_post(h, ep, "/v3/kv/txn", req, CALL_TIMEOUT_MS, &resp, err,
				       sizeof(err)) == 0 &&
		     sy_etcd_decode_txn(resp, &won, &rev, revs, 1) >= 0;
		if (ok && !won) {
			/* Taken: by us (a campaign whose answer was lost) or another. */
			const json_t *kvs = json_object_get(
				json_object_get(json_array_get(json_object_get(resp, "responses"), 0),
						"response_range"),
				"kvs");
			json_t *kv = sy_etcd_decode_kv(json_array_get(kvs, 0));
			const char *v = json_string_value(json_object_get(kv, "value"));

			won = v != NULL && strcmp(v, l->self_id) == 0 &&
			      sy_etcd_int(json_object_get(kv, "lease")) == l->el.lease;
			pthread_mutex_lock(&l->mu);
			snprintf(l->st.holder, sizeof(l->st.holder), "%s", v ? v : "");
			pthread_mutex_unlock(&l->mu);
			json_decref(kv);
		}
		changed = sy_election_campaigned(&l->el, ok, won, sy_mono_ms());
		break;
	}
	default:
		return;
	}
	if (!ok && strstr(err, "requested lease not found") != NULL) {
		/* etcd answered: the lease is gone, not etcd. */
		RTE_LOG(WARNING, USER1, "etcd: lease %lld expired: granting a new one\n",
			(long long)l->el.lease);
		changed |= sy_election_lease_gone(&l->el, sy_mono_ms());
	} else if (!ok) {
		failed(l, ep, err);
	}
	json_decref(req);
	json_decref(resp);
	if (changed)
		set_leader(l, l->el.leader);
}

static void *
ops_main(void *arg)
{
	struct sy_etcd_link *l = arg;
	struct sy_etcd_http h;

	if (http_init(l, &h) < 0)
		return NULL;
	while (!atomic_load(&l->stop)) {
		struct sy_etcd_write *w, *next;
		uint64_t wait_ms = 1000;
		enum sy_elect_action a = SY_ELECT_WAIT;
		int key_event;

		pthread_mutex_lock(&l->mu);
		for (;;) {
			if (l->campaign)
				a = sy_election_next(&l->el, sy_mono_ms(), &wait_ms);
			if (l->wr_head != NULL || l->key_event || a != SY_ELECT_WAIT ||
			    atomic_load(&l->stop))
				break;
			struct timespec ts;

			clock_gettime(CLOCK_MONOTONIC, &ts);
			ts.tv_sec += (time_t)(wait_ms / 1000);
			ts.tv_nsec += (long)(wait_ms % 1000) * 1000000L;
			if (ts.tv_nsec >= 1000000000L) {
				ts.tv_sec++;
				ts.tv_nsec -= 1000000000L;
			}
			pthread_cond_timedwait(&l->cond, &l->mu, &ts);
			if (!l->campaign)
				break;
		}
		w = l->wr_head;
		l->wr_head = NULL;
		l->wr_tail = &l->wr_head;
		key_event = l->key_event;
		l->key_event = 0;
		pthread_mutex_unlock(&l->mu);
		if (key_event && l->campaign &&
		    sy_election_key_changed(&l->el, key_event == 1, false))
			set_leader(l, false);
		for (; w != NULL; w = next) {
			next = w->next;
			/* Stopping: what is left is dropped (a write nobody
			 * waits for any more), not made one by one. */
			if (!atomic_load(&l->stop))
				do_write(l, &h, w);
			json_decref(w->txn);
			free(w);
			/* A queue of hundreds of txns (the scheduler binding
			 * 100,000 routes, their statuses) takes longer than
			 * the lease's ttl: the keepalive is not kept waiting
			 * behind it, or the leader would lose its key. */
			if (l->campaign && next != NULL && !atomic_load(&l->stop)) {
				uint64_t ms;
				enum sy_elect_action due = sy_election_next(&l->el, sy_mono_ms(), &ms);

				if (due == SY_ELECT_KEEPALIVE)
					elect(l, &h, due);
			}
		}
		if (l->campaign && (key_event || a != SY_ELECT_WAIT))
			elect(l, &h, sy_election_next(&l->el, sy_mono_ms(), &wait_ms));
	}
	if (l->campaign && l->el.lease != 0) {
		/* Revoke: the key goes now, not ttl from now. This one call
		 * is made while stopping (bounded by its own timeout). */
		static atomic_int go_on;
		char ep[128], err[320];
		json_t *req = sy_etcd_lease_id_req(l->el.lease), *resp = NULL;

		h.stop = &go_on;

		endpoint(l, ep, sizeof(ep));
		sy_etcd_http_post(&h, ep, "/v3/lease/revoke", req, 1000L, &resp, err, sizeof(err));
		json_decref(req);
		json_decref(resp);
	}
	sy_etcd_http_fini(&h);
	return NULL;
}

int
sy_etcd_link_start(struct sy_etcd_link *l, const struct sy_store_config *cfg, const char *self_id,
		   bool campaign)
{
	pthread_condattr_t ca;
	int rc;

	memset(l, 0, sizeof(*l));
	l->cfg = *cfg;
	snprintf(l->self_id, sizeof(l->self_id), "%s", self_id);
	l->campaign = campaign;
	l->ev_tail = &l->ev_head;
	l->wr_tail = &l->wr_head;
	l->next_write_id = 1;
	snprintf(l->st.endpoint, sizeof(l->st.endpoint), "%s", cfg->endpoints[0]);
	sy_election_init(&l->el, cfg->lease_ttl_s);
	/* Once, before the threads: libcurl's implicit global init on a
	 * thread's first easy handle is not safe with two threads. */
	if (curl_global_init(CURL_GLOBAL_DEFAULT) != CURLE_OK)
		return -ENOMEM;
	l->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (l->efd < 0)
		return -errno;
	pthread_mutex_init(&l->mu, NULL);
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&l->cond, &ca);
	pthread_condattr_destroy(&ca);
	rc = pthread_create(&l->watch_thr, NULL, watch_main, l);
	if (rc != 0)
		return -rc;
	rc = pthread_create(&l->ops_thr, NULL, ops_main, l);
	if (rc != 0) {
		atomic_store(&l->stop, 1);
		pthread_join(l->watch_thr, NULL);
		return -rc;
	}
	pthread_setname_np(l->watch_thr, "etcd-watch");
	pthread_setname_np(l->ops_thr, "etcd-ops");
	l->started = true;
	return 0;
}

void
sy_etcd_link_stop(struct sy_etcd_link *l)
{
	struct sy_etcd_event *ev;

	if (!l->started)
		return;
	atomic_store(&l->stop, 1);
	pthread_mutex_lock(&l->mu);
	pthread_cond_signal(&l->cond);
	pthread_mutex_unlock(&l->mu);
	pthread_join(l->ops_thr, NULL);
	pthread_join(l->watch_thr, NULL);
	while ((ev = sy_etcd_link_take(l)) != NULL) {
		while (ev != NULL) {
			struct sy_etcd_event *next = ev->next;

			sy_etcd_event_free(ev);
			ev = next;
		}
	}
	while (l->wr_head != NULL) {
		struct sy_etcd_write *w = l->wr_head;

		l->wr_head = w->next;
		json_decref(w->txn);
		free(w);
	}
	close(l->efd);
	curl_global_cleanup();
	pthread_cond_destroy(&l->cond);
	pthread_mutex_destroy(&l->mu);
	l->started = false;
}

int
sy_etcd_link_fd(const struct sy_etcd_link *l)
{
	return l->efd;
}

void
sy_etcd_link_wake(struct sy_etcd_link *l)
{
	uint64_t one = 1;

	if (write(l->efd, &one, sizeof(one)) < 0)
		RTE_LOG(ERR, USER1, "etcd: eventfd: %s\n", strerror(errno));
}

struct sy_etcd_event *
sy_etcd_link_take(struct sy_etcd_link *l)
{
	struct sy_etcd_event *ev;
	uint64_t n;

	if (read(l->efd, &n, sizeof(n)) < 0 && errno != EAGAIN)
		RTE_LOG(ERR, USER1, "etcd: eventfd: %s\n", strerror(errno));
	pthread_mutex_lock(&l->mu);
	ev = l->ev_head;
	l->ev_head = NULL;
	l->ev_tail = &l->ev_head;
	pthread_mutex_unlock(&l->mu);
	return ev;
}

void
sy_etcd_event_free(struct sy_etcd_event *ev)
{
	json_decref(ev->kvs);
	json_decref(ev->resp);
	free(ev);
}

uint64_t
sy_etcd_link_submit(struct sy_etcd_link *l, json_t *txn)
{
	struct sy_etcd_write *w = calloc(1, sizeof(*w));
	uint64_t id;

	if (w == NULL) {
		json_decref(txn);
		return 0;
	}
	w->txn = txn;
	pthread_mutex_lock(&l->mu);
	id = w->id = l->next_write_id++;
	*l->wr_tail = w;
	l->wr_tail = &w->next;
	pthread_cond_signal(&l->cond);
	pthread_mutex_unlock(&l->mu);
	return id;
}

void
sy_etcd_link_state(struct sy_etcd_link *l, struct sy_etcd_state *out)
{
	pthread_mutex_lock(&l->mu);
	*out = l->st;
	pthread_mutex_unlock(&l->mu);
}
