/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The etcd threads and their hand-off to the control thread.
 *
 * etcd's I/O blocks (HTTP with timeouts, a watch stream that waits for
 * changes), so it never runs on the control thread, which must answer the
 * control socket while etcd is slow or gone, nor on a worker. Two threads:
 *
 *  - the watch thread reads every object under P objects/ in one range (at
 *    start, and again when its revision was compacted away), then watches
 *    the whole prefix from the revision after it, reconnecting with backoff
 *    and resuming from the last revision it saw;
 *  - the ops thread makes the writes the control thread submits (one txn
 *    each) and runs the leader election (election.h).
 *
 * They hand events to the control thread through a queue under a mutex and
 * an eventfd the control loop polls (sy_etcd_link_fd). What `status` shows
 * (connected, revision, last error, leader) is kept under the same mutex;
 * nobody holds it across I/O.
 */
#ifndef SY_ETCD_LINK_H
#define SY_ETCD_LINK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <jansson.h>

#include "etcd/election.h"
#include "sy_config.h"

enum sy_etcd_ev {
	SY_ETCD_EV_SNAPSHOT,   /* kvs: every object key-value (codec.h's form); revision */
	SY_ETCD_EV_CHANGES,    /* kvs: watch events, each a kv with "type" PUT or DELETE */
	SY_ETCD_EV_WRITE_DONE, /* write_id, ok, resp (the txn response) or error */
	SY_ETCD_EV_LEADER,     /* leader: this router runs the scheduler from now on, or not */
};

struct sy_etcd_event {
	enum sy_etcd_ev type;
	json_t *kvs;
	json_t *resp;
	int64_t revision;
	uint64_t write_id;
	bool ok, leader;
	char error[320];
	double received; /* CLOCK_MONOTONIC s: when its thread had it (a watch
			  * message: as the stream delivered it) */
	double posted;   /* and when it was queued for the control thread */
	struct sy_etcd_event *next;
};

struct sy_etcd_write {
	uint64_t id;
	json_t *txn;
	struct sy_etcd_write *next;
};

/* What `status` shows. */
struct sy_etcd_state {
	char endpoint[128]; /* the one in use */
	bool connected;
	int64_t revision;   /* last revision seen */
	char last_error[320];
	bool leader;
	char holder[128];   /* who holds P leader/scheduler, "" unknown */
};

struct sy_etcd_link {
	struct sy_store_config cfg;
	char self_id[128]; /* our value in P leader/scheduler */
	bool campaign;     /* this routerd may run the scheduler */
	pthread_t watch_thr, ops_thr;
	bool started;
	atomic_int stop;
	int efd;
	pthread_mutex_t mu;
	pthread_cond_t cond; /* the ops thread waits on it */
	/* Under mu. */
	struct sy_etcd_event *ev_head, **ev_tail;
	struct sy_etcd_write *wr_head, **wr_tail;
	uint64_t next_write_id;
	unsigned ep;
	struct sy_etcd_state st;
	int key_event; /* 1 deleted, 2 another holder: for the election */
	struct sy_election el; /* ops thread only */
};

/* Start both threads. 0, or -errno. */
int sy_etcd_link_start(struct sy_etcd_link *l, const struct sy_store_config *cfg,
		       const char *self_id, bool campaign);
/* Stop and join them (a leader revokes its lease first, so the next one
 * need not wait for it to expire). */
void sy_etcd_link_stop(struct sy_etcd_link *l);
int sy_etcd_link_fd(const struct sy_etcd_link *l);
/* Every queued event, oldest first (the caller frees each). */
struct sy_etcd_event *sy_etcd_link_take(struct sy_etcd_link *l);
void sy_etcd_event_free(struct sy_etcd_event *ev);
/* Queue a txn (steals it); its WRITE_DONE carries the returned id. */
uint64_t sy_etcd_link_submit(struct sy_etcd_link *l, json_t *txn);
void sy_etcd_link_state(struct sy_etcd_link *l, struct sy_etcd_state *out);
/* The control thread's poll of the fd returns at once (no event queued). */
void sy_etcd_link_wake(struct sy_etcd_link *l);
/* CLOCK_MONOTONIC in seconds (python's time.monotonic() reads the same). */
double sy_etcd_mono_s(void);
/* The calling thread's CPU time in seconds (CLOCK_THREAD_CPUTIME_ID): what
 * it ran, where a wall time also counts what the machine ran instead. */
double sy_etcd_cpu_s(void);

#endif
