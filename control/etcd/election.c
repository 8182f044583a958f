/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "etcd/election.h"

#define RETRY_MS 500u /* after a failed call: etcd is down or slow */

void
sy_election_init(struct sy_election *e, uint32_t ttl_s)
{
	memset(e, 0, sizeof(*e));
	e->ttl_ms = (uint64_t)ttl_s * 1000u;
}

static enum sy_elect_action
due(uint64_t at, uint64_t now, uint64_t *wait_ms, enum sy_elect_action a)
{
	if (at <= now)
		return a;
	*wait_ms = at - now;
	return SY_ELECT_WAIT;
}

enum sy_elect_action
sy_election_next(const struct sy_election *e, uint64_t now_ms, uint64_t *wait_ms)
{
	*wait_ms = e->ttl_ms / 3;
	if (e->lease == 0)
		return due(e->next_grant_ms, now_ms, wait_ms, SY_ELECT_GRANT);
	if (e->next_keepalive_ms <= now_ms)
		return SY_ELECT_KEEPALIVE;
	if (!e->leader && (e->holder_gone || e->next_campaign_ms <= now_ms))
		return SY_ELECT_CAMPAIGN;
	*wait_ms = e->next_keepalive_ms - now_ms;
	if (!e->leader && e->next_campaign_ms - now_ms < *wait_ms)
		*wait_ms = e->next_campaign_ms - now_ms;
	return SY_ELECT_WAIT;
}

static bool
step_down(struct sy_election *e, uint64_t now_ms)
{
	bool was = e->leader;

	e->leader = false;
	e->lease = 0;
	e->next_grant_ms = now_ms + RETRY_MS;
	return was;
}

bool
sy_election_granted(struct sy_election *e, bool ok, int64_t lease, uint64_t now_ms)
{
	if (!ok || lease == 0)
		return step_down(e, now_ms);
	e->lease = lease;
	e->next_keepalive_ms = now_ms + e->ttl_ms / 3;
	e->next_campaign_ms = now_ms; /* a new lease campaigns at once */
	return false;
}

/* etcd did not answer: not leader any more (we cannot know we still hold
 * the key), but the lease may well live: keep it and keep trying, so that
 * when etcd answers again within its ttl we lead again at once (the key is
 * ours, on our lease) instead of waiting for our own old key to expire. */
static bool
unsure(struct sy_election *e, uint64_t now_ms)
{
	bool was = e->leader;

	e->leader = false;
	e->next_keepalive_ms = now_ms + RETRY_MS;
	e->next_campaign_ms = now_ms + RETRY_MS;
	return was;
}

bool
sy_election_kept(struct sy_election *e, bool ok, int64_t ttl_left, uint64_t now_ms)
{
	if (!ok)
		return unsure(e, now_ms);
	/* ttl_left 0: the lease expired (etcd answers so for an unknown id). */
	if (ttl_left <= 0)
		return step_down(e, now_ms);
	e->next_keepalive_ms = now_ms + e->ttl_ms / 3;
	return false;
}

bool
sy_election_lease_gone(struct sy_election *e, uint64_t now_ms)
{
	return step_down(e, now_ms);
}

bool
sy_election_campaigned(struct sy_election *e, bool ok, bool won, uint64_t now_ms)
{
	if (!ok)
		return unsure(e, now_ms);
	e->holder_gone = false;
	e->next_campaign_ms = now_ms + e->ttl_ms / 3;
	if (won == e->leader)
		return false;
	e->leader = won;
	return true;
}

bool
sy_election_key_changed(struct sy_election *e, bool deleted, bool mine)
{
	bool was = e->leader;

	if (deleted) {
		e->holder_gone = true;
		e->leader = false;
		return was;
	}
	if (!mine && e->leader) {
		e->leader = false;
		return true;
	}
	return false;
}
