/* SPDX-License-Identifier: BSD-3-Clause */
/* Active health checks: plan, send, judge, publish (health.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_log.h>

#include "gen/gen_build.h"
#include "health.h"
#include "sy_generation.h"

#define HC_DEFAULT_HOST "contour-envoy-healthcheck"
#define HC_JITTER_PERCENT 10   /* of the interval, each way (Envoy's interval_jitter_percent) */
#define HC_FIRST_SPREAD_MS 1000 /* a new target's first check: within this */
/* Past this many targets gone in one plan, one pass over all finds them. */
#define GONE_BY_SEARCH 64

const char *
sy_health_state_name(enum sy_health_state s)
{
	switch (s) {
	case SY_HEALTH_HEALTHY:
		return "healthy";
	case SY_HEALTH_UNHEALTHY:
		return "unhealthy";
	default:
		return "unknown";
	}
}

bool
sy_health_observe(struct sy_health_target *t, enum sy_hc_result r, uint16_t status)
{
	enum sy_health_state was = t->state;
	bool pass = r == SY_HC_ANSWERED && status == 200;

	t->checks++;
	t->last_result = (uint8_t)r;
	t->last_status = r == SY_HC_ANSWERED ? status : 0;
	if (pass) {
		t->fails = 0;
		t->passes++;
		if (t->state == SY_HEALTH_UNKNOWN ||
		    (t->state == SY_HEALTH_UNHEALTHY && t->passes >= t->healthy_threshold))
			t->state = SY_HEALTH_HEALTHY;
	} else {
		t->failed++;
		t->passes = 0;
		t->fails++;
		if (t->state != SY_HEALTH_UNHEALTHY &&
		    ((r == SY_HC_ANSWERED && status == 503) || t->fails >= t->unhealthy_threshold))
			t->state = SY_HEALTH_UNHEALTHY;
	}
	return t->state != was;
}

static uint64_t
xorshift(uint64_t *s)
{
	uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

/* Every copy of t's endpoint in the live generation follows t's state. */
static void
publish_state(const struct sy_health_target *t)
{
	uint8_t down = t->state == SY_HEALTH_UNHEALTHY;
	size_t i;

	for (i = 0; i < t->n_eps; i++)
		__atomic_store_n(&t->eps[i].ep->hc_down, down, __ATOMIC_RELAXED);
}

/* IPv4 before IPv6, then the address's bytes (network order sorts as the
 * numbers do), then the port. */
static int
cmp_key(const struct sy_addr *a, uint16_t port_a, const struct sy_addr *b, uint16_t port_b)
{
	int c;

	if (a->family != b->family)
		return a->family < b->family ? -1 : 1;
	c = a->family == AF_INET6 ? memcmp(a->v6, b->v6, 16) : memcmp(&a->v4, &b->v4, 4);
	if (c != 0)
		return c < 0 ? -1 : 1;
	return ntohs(port_a) < ntohs(port_b) ? -1 : ntohs(port_a) > ntohs(port_b);
}

/* Index of ip:port in h->t, or where it would go (*found false). */
static size_t
search(const struct sy_health *h, const struct sy_addr *addr, uint16_t port, bool *found)
{
	size_t lo = 0, hi = h->n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = cmp_key(&h->t[mid]->addr, h->t[mid]->port, addr, port);

		if (c == 0) {
			*found = true;
			return mid;
		}
		if (c < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	*found = false;
	return lo;
}

void
sy_health_last_text(const struct sy_health_target *t, char *buf, size_t len)
{
	if (t->checks == 0)
		snprintf(buf, len, "none yet");
	else if (t->last_result == SY_HC_ANSWERED)
		snprintf(buf, len, "%u", t->last_status);
	else
		snprintf(buf, len, "%s", sy_hc_result_name((enum sy_hc_result)t->last_result));
}

const struct sy_health_target *
sy_health_find(const struct sy_health *h, const struct sy_addr *addr, uint16_t port)
{
	bool found;
	size_t i = search(h, addr, port, &found);

	return found ? h->t[i] : NULL;
}

static void
target_from_pool(struct sy_health_target *t, const struct sy_pool *p)
{
	const struct sy_health_check *hc = p->hc;

	snprintf(t->path, sizeof(t->path), "%s", hc->path);
	snprintf(t->host, sizeof(t->host), "%s", hc->host ? hc->host : HC_DEFAULT_HOST);
	t->interval_ms = (hc->interval_s ? hc->interval_s : 5) * 1000u;
	t->timeout_ms = (hc->timeout_s ? hc->timeout_s : 2) * 1000u;
	t->unhealthy_threshold = hc->unhealthy_threshold ? hc->unhealthy_threshold : 3;
	t->healthy_threshold = hc->healthy_threshold ? hc->healthy_threshold : 2;
}

/* The target of e's address and port: found, or made (with p's settings)
 * and put in order. NULL on out of memory. */
static struct sy_health_target *
target_for(struct sy_health *h, const struct sy_pool *p, const struct sy_endpoint *e)
{
	uint16_t port = htons(e->port);
	struct sy_health_target *t;
	bool found;
	size_t i = search(h, &e->addr, port, &found);

	if (found)
		return h->t[i];
	if (h->n == h->cap) {
		size_t cap = h->cap ? h->cap * 2 : 64;
		struct sy_health_target **nt = realloc(h->t, cap * sizeof(*nt));

		if (nt == NULL)
			return NULL;
		h->t = nt;
		h->cap = cap;
	}
	t = calloc(1, sizeof(*t));
	if (t == NULL)
		return NULL;
	t->addr = e->addr;
	t->port = port;
	target_from_pool(t, p);
	t->next_ms = 0; /* set by the next tick: within HC_FIRST_SPREAD_MS */
	memmove(&h->t[i + 1], &h->t[i], (h->n - i) * sizeof(*h->t));
	h->t[i] = t;
	h->n++;
	return t;
}

/* t has no copy left: it goes at the plan's end. A target that cannot be
 * listed (no memory) is still counted, and the end finds it by a pass. */
static void
gone(struct sy_health *h, struct sy_health_target *t)
{
	if (h->n_gone == h->cap_gone) {
		size_t cap = h->cap_gone ? h->cap_gone * 2 : 16;
		struct sy_health_target **ng = realloc(h->gone, cap * sizeof(*ng));

		if (ng != NULL) {
			h->gone = ng;
			h->cap_gone = cap;
		}
	}
	if (h->n_gone < h->cap_gone)
		h->gone[h->n_gone] = t;
	h->n_gone++;
}

/* A rule of a vhost the new generation added sends to e (in pool p, which
 * checks it): one reference more to e's copy in its target. */
static int
plan_take(struct sy_health *h, const struct sy_pool *p, struct sy_endpoint *e)
{
	struct sy_health_target *t = target_for(h, p, e);
	size_t i;

	if (t == NULL)
		return -ENOMEM;
	/* The same pool reached through several rules: one copy, counted. */
	for (i = 0; i < t->n_eps; i++)
		if (t->eps[i].ep == e) {
			t->eps[i].refs++;
			return 0;
		}
	if (t->n_eps == t->cap_eps) {
		size_t cap = t->cap_eps ? t->cap_eps * 2 : 4;
		struct sy_health_copy *ne = realloc(t->eps, cap * sizeof(*ne));

		if (ne == NULL) {
			if (t->n_eps == 0)
				gone(h, t); /* a new target without a copy */
			return -ENOMEM;
		}
		t->eps = ne;
		t->cap_eps = cap;
	}
	t->eps[t->n_eps++] = (struct sy_health_copy){ .ep = e, .pool = p, .refs = 1 };
	/* A copy no worker reads yet: it starts in its target's state. */
	__atomic_store_n(&e->hc_down, (uint8_t)(t->state == SY_HEALTH_UNHEALTHY), __ATOMIC_RELAXED);
	return 0;
}

/* A rule of a vhost the new generation dropped sent to e: one reference
 * less; a copy without any leaves its target, and a target without copies
 * is counted to go (h->n_gone). */
static void
plan_put(struct sy_health *h, const struct sy_endpoint *e)
{
	bool found;
	size_t i = search(h, &e->addr, htons(e->port), &found), k;
	struct sy_health_target *t;

	if (!found)
		return;
	t = h->t[i];
	for (k = 0; k < t->n_eps && t->eps[k].ep != e; k++)
		;
	if (k == t->n_eps || --t->eps[k].refs > 0)
		return;
	t->eps[k] = t->eps[--t->n_eps];
	if (t->n_eps == 0)
		gone(h, t);
	else if (k == 0)
		/* Its settings come from its first copy's pool. */
		target_from_pool(t, t->eps[0].pool);
}

static void
target_free(struct sy_health_target *t)
{
	if (t->job != NULL) {
		/* The worker still has it: it goes back to the free jobs when
		 * it comes back, owned by nobody. */
		t->job->owner = NULL;
		t->job = NULL;
	}
	free(t->eps);
	free(t);
}

/* Every endpoint copy, once per rule, that a vhost's rules send to through
 * a pool with a health check. */
#define FOR_EACH_CHECKED_ENDPOINT(vh, r, k, p, e)                                               \
	for ((r) = 0; (r) < (vh)->n_rules; (r)++)                                               \
		for ((p) = (vh)->rules[(r)].pool, (k) = 0;                                      \
		     (p) != NULL && (p)->hc != NULL && (k) < (p)->n_endpoints &&                   \
		     ((e) = (struct sy_endpoint *)&(p)->endpoints[(k)], 1);                      \
		     (k)++)                                                                     \
			if ((e)->addr.family == AF_INET || (e)->addr.family == AF_INET6)

int
sy_health_plan(struct sy_health *h, const struct sy_generation *g, const struct sy_generation *prev)
{
	const struct sy_vhost *vh;
	const struct sy_pool *p;
	struct sy_endpoint *e;
	size_t vi, i, kept;
	uint32_t r, k;
	int rc = 0;

	/* The copies g added first (a target that stays keeps its state),
	 * then those it dropped. A copy g added that could not be taken (no
	 * memory) is not checked; the drops run in any case, as their copies
	 * go with prev. */
	for (vi = 0; (vh = sy_gen_next_added(g, &vi)) != NULL;)
		FOR_EACH_CHECKED_ENDPOINT (vh, r, k, p, e)
			if (plan_take(h, p, e) < 0)
				rc = -ENOMEM;
	for (vi = 0; (vh = sy_gen_next_dropped(g, prev, &vi)) != NULL;)
		FOR_EACH_CHECKED_ENDPOINT (vh, r, k, p, e)
			plan_put(h, e);
	/* Targets no pool checks any more go. A few are found where they
	 * stand (the array is sorted; moving pointers reads no target); many,
	 * or one that could not be listed, in one pass over all. */
	if (h->n_gone > 0 && h->n_gone <= h->cap_gone && h->n_gone <= GONE_BY_SEARCH) {
		for (i = 0; i < h->n_gone; i++) {
			struct sy_health_target *t = h->gone[i];
			bool found;
			size_t at = search(h, &t->addr, t->port, &found);

			if (!found || h->t[at] != t)
				continue;
			memmove(&h->t[at], &h->t[at + 1], (h->n - at - 1) * sizeof(*h->t));
			h->n--;
			target_free(t);
		}
	} else if (h->n_gone > 0) {
		for (i = 0, kept = 0; i < h->n; i++) {
			struct sy_health_target *t = h->t[i];

			if (t->n_eps > 0)
				h->t[kept++] = t;
			else
				target_free(t);
		}
		h->n = kept;
	}
	h->n_gone = 0;
	return rc;
}

static uint64_t
next_due(struct sy_health *h, const struct sy_health_target *t, uint64_t now_ms)
{
	uint64_t span = (uint64_t)t->interval_ms * HC_JITTER_PERCENT / 100;
	uint64_t j = span ? xorshift(&h->rng) % (2 * span + 1) : 0;

	return now_ms + t->interval_ms - span + j;
}

static void
collect(struct sy_health *h, uint64_t now_ms)
{
	struct sy_hc_job *job;
	char a[SY_ADDR_STRLEN];

	while ((job = sy_dp_hc_collect()) != NULL) {
		struct sy_health_target *t = job->owner;

		h->in_flight--;
		h->free_jobs[h->n_free++] = job;
		if (t == NULL) /* its target went while the check was out */
			continue;
		t->job = NULL;
		t->next_ms = next_due(h, t, now_ms);
		if (sy_health_observe(t, (enum sy_hc_result)job->result, job->status)) {
			h->transitions++;
			publish_state(t);
			sy_addr_format(&t->addr, a, sizeof(a));
			RTE_LOG(NOTICE, USER1,
				"health: %s:%u is %s (GET %s, Host %s: %s%s%.0u; %u in a row)\n", a,
				ntohs(t->port), sy_health_state_name(t->state), t->path, t->host,
				sy_hc_result_name((enum sy_hc_result)job->result),
				job->result == SY_HC_ANSWERED ? " " : "", job->status,
				t->state == SY_HEALTH_HEALTHY ? t->passes : t->fails);
		}
	}
}

int
sy_health_tick(struct sy_health *h, uint64_t now_ms)
{
	uint64_t soonest = UINT64_MAX;
	size_t i;

	if (h->jobs == NULL && h->n > 0) {
		h->jobs = calloc(SY_HC_JOBS_MAX, sizeof(*h->jobs));
		h->free_jobs = calloc(SY_HC_JOBS_MAX, sizeof(*h->free_jobs));
		if (h->jobs == NULL || h->free_jobs == NULL) {
			free(h->jobs);
			free(h->free_jobs);
			h->jobs = NULL;
			h->free_jobs = NULL;
			return 1000;
		}
		for (i = 0; i < SY_HC_JOBS_MAX; i++)
			h->free_jobs[h->n_free++] = &h->jobs[i];
	}
	if (h->jobs == NULL)
		return 1000;
	collect(h, now_ms);
	for (i = 0; i < h->n; i++) {
		struct sy_health_target *t = h->t[i];
		struct sy_hc_job *job;

		if (t->job != NULL)
			continue;
		if (t->next_ms == 0)
			t->next_ms = now_ms + xorshift(&h->rng) % HC_FIRST_SPREAD_MS;
		if (t->next_ms > now_ms) {
			if (t->next_ms < soonest)
				soonest = t->next_ms;
			continue;
		}
		if (h->n_free == 0)
			break; /* SY_HC_JOBS_MAX out: the rest when they come back */
		job = h->free_jobs[--h->n_free];
		memset(job, 0, sizeof(*job));
		job->addr = t->addr;
		job->port = t->port;
		job->timeout_ms = t->timeout_ms;
		memcpy(job->path, t->path, sizeof(job->path));
		memcpy(job->host, t->host, sizeof(job->host));
		job->owner = t;
		if (sy_dp_hc_submit(job) < 0) {
			/* No workers (yet), or the ring is full: next interval. */
			h->free_jobs[h->n_free++] = job;
			t->next_ms = next_due(h, t, now_ms);
			continue;
		}
		t->job = job;
		h->in_flight++;
	}
	/* Results come back within a timeout: look often while any is out. */
	if (h->in_flight > 0)
		return 20;
	if (soonest == UINT64_MAX)
		return 1000;
	return soonest - now_ms > 1000 ? 1000 : (int)(soonest - now_ms);
}

void
sy_health_fini(struct sy_health *h)
{
	size_t i;

	for (i = 0; i < h->n; i++)
		target_free(h->t[i]);
	free(h->t);
	free(h->gone);
	/* After the workers stopped (the jobs they held are nobody's now). */
	free(h->jobs);
	free(h->free_jobs);
	memset(h, 0, sizeof(*h));
}
