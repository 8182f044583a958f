/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Scheduler leader election on an etcd lease: the state machine, without
 * I/O (link.c makes the calls it asks for and reports their outcome).
 *
 *   no lease --grant--> lease --campaign--> leader (holds P leader/scheduler)
 *
 * A lease of ttl seconds is granted and kept alive every ttl/3. Campaigning
 * is one txn: "if P leader/scheduler does not exist, put our id there on our
 * lease". The key dies with the lease, so a leader that stops keeping it
 * alive (killed, cut off) is replaced within ttl. A follower campaigns at
 * once when the watch sees the key deleted, and every ttl/3 anyway (a
 * watch event can be missed across a reconnect).
 *
 * A leader steps down as soon as one keepalive fails: it cannot know it
 * still holds the key, and a second scheduler is worse than none for a
 * moment (bindings are retried). It keeps the lease and keeps it alive
 * when etcd answers again; a lease etcd no longer knows (ttl 0) is granted
 * anew. A campaign that finds the key holding our id on our lease wins
 * (the answer to an earlier one was lost).
 */
#ifndef SY_ETCD_ELECTION_H
#define SY_ETCD_ELECTION_H

#include <stdbool.h>
#include <stdint.h>

enum sy_elect_action {
	SY_ELECT_WAIT,      /* nothing due */
	SY_ELECT_GRANT,     /* POST /v3/lease/grant */
	SY_ELECT_KEEPALIVE, /* POST /v3/lease/keepalive */
	SY_ELECT_CAMPAIGN,  /* the create-if-absent txn */
};

struct sy_election {
	uint64_t ttl_ms;
	int64_t lease;          /* 0: none granted */
	bool leader;
	bool holder_gone;       /* the watch saw the key deleted: campaign now */
	uint64_t next_grant_ms, next_keepalive_ms, next_campaign_ms;
};

void sy_election_init(struct sy_election *e, uint32_t ttl_s);
/* What to do at now_ms; for SY_ELECT_WAIT, *wait_ms says for how long. */
enum sy_elect_action sy_election_next(const struct sy_election *e, uint64_t now_ms,
				      uint64_t *wait_ms);
/* Outcomes. Each returns true when leadership changed (e->leader says how). */
bool sy_election_granted(struct sy_election *e, bool ok, int64_t lease, uint64_t now_ms);
bool sy_election_kept(struct sy_election *e, bool ok, int64_t ttl_left, uint64_t now_ms);
bool sy_election_campaigned(struct sy_election *e, bool ok, bool won, uint64_t now_ms);
/* etcd says it does not know our lease (it expired while calls were slow):
 * not leader, and a new lease is granted, instead of campaigning and
 * keeping alive with the dead one for ever. */
bool sy_election_lease_gone(struct sy_election *e, uint64_t now_ms);
/* The watch saw the leader key deleted (holder_id NULL) or set to another
 * holder than us (mine false). */
bool sy_election_key_changed(struct sy_election *e, bool deleted, bool mine);

#endif
