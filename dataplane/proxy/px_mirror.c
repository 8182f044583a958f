/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Request mirrors (px_mirror.h): the legs that carry a copy of a request to
 * a route's mirror and drop the answer. Everything a backend leg needs
 * (SYN retries, retransmission, windows, RST) is the TCB's; this file only
 * feeds the leg the request and reads its answer away, as a health probe
 * (lb/hc_probe.c) does with its own request.
 *
 * Bounded everywhere, whatever the mirror does: SY_PX_MIRROR_MAX legs per
 * worker (a request that finds none free is not mirrored), at most
 * SY_PX_MIRROR_QUEUE bytes of request not yet acknowledged by it (a body
 * the mirror cannot keep up with gives it up, rather than hold mbufs or
 * slow the client), and SY_PX_MIRROR_TIMEOUT_MS of silence.
 */
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_random.h>

#include "conn/conn.h"
#include "conn/conn_ops.h"
#include "lb/lb.h"
#include "observe/conn_stats.h"
#include "proxy/proxy.h"
#include "proxy/proxy_internal.h"
#include "proxy/px_mirror.h"
#include "sy_generation.h"
#include "tcp/tcb.h"
#include "worker.h"

#define MIRROR_RCVBUF (64 * 1024) /* the answer is dropped as it comes: a small window does */

struct px_mirror {
	struct sy_tcb t;
	struct sy_conn *mc;
	struct sy_proxy *px;      /* the exchange still feeding it the request, or NULL */
	uint64_t deadline;        /* TSC: silence ends it */
	bool whole;               /* the request's last byte is queued */
	bool answered;            /* a status line came back (counted once) */
	struct px_mirror *next;   /* free list */
};

struct px_mirror_table {
	struct px_mirror *free;
	struct px_mirror slot[SY_PX_MIRROR_MAX];
};

/* A copy of the head per worker: it gets its Connection header replaced. */
static RTE_DEFINE_PER_LCORE(uint8_t[SY_PROXY_HEAD_MAX + 2048 + 32], mirror_head);

int
px_mirror_init(struct sy_worker *w)
{
	struct px_mirror_table *t;
	unsigned i;

	t = rte_zmalloc_socket("sy_px_mirror", sizeof(*t), RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	if (t == NULL)
		return -1;
	for (i = 0; i < SY_PX_MIRROR_MAX; i++) {
		t->slot[i].next = t->free;
		t->free = &t->slot[i];
	}
	w->tcp.mirror = t;
	return 0;
}

void
px_mirror_fini(struct sy_worker *w)
{
	/* Live legs are on the wheel: sy_conn_free_all freed them. */
	rte_free(w->tcp.mirror);
	w->tcp.mirror = NULL;
}

/* m no longer belongs to its exchange (if it did). */
static void
unlink_px(struct px_mirror *m)
{
	unsigned i;

	if (m->px == NULL)
		return;
	for (i = 0; i < RTE_DIM(m->px->mirror); i++)
		if (m->px->mirror[i] == m)
			m->px->mirror[i] = NULL;
	m->px = NULL;
}

/* The leg ends: RST unless it closed, the record freed (release below). */
static void
end(struct sy_worker *w, struct px_mirror *m)
{
	unlink_px(m);
	if (m->t.state != SY_TCPS_CLOSED && m->t.state != SY_TCPS_TIME_WAIT)
		sy_tcb_abort(w, &m->t);
	sy_conn_free(w, m->mc);
}

static void
refresh(struct sy_worker *w, struct px_mirror *m)
{
	m->deadline = px_in_ms(w, SY_PX_MIRROR_TIMEOUT_MS);
}

static void
arm(struct sy_worker *w, struct px_mirror *m)
{
	uint64_t when = m->deadline, t = sy_tcb_next_timer(&m->t);

	if (t != 0 && t < when)
		when = t;
	sy_conn_timer_set(w, m->mc, when);
}

/* A status line's start: "HTTP/1." and a digit; enough to say the mirror
 * answered (what it answered is nobody's business). */
static bool
status_line(const struct sy_mq *q)
{
	char b[9];

	if (q->bytes < sizeof(b))
		return false;
	sy_mq_copy(q, 0, sizeof(b), b);
	return memcmp(b, "HTTP/1.", 7) == 0 && b[8] == ' ';
}

/* After input, timers or queued bytes: drop what came back, close once the
 * backend has answered and closed, send what the window allows. */
static void
step(struct sy_worker *w, struct px_mirror *m)
{
	struct sy_tcb *t = &m->t;
	uint8_t ev = t->events;

	t->events = 0;
	if (ev & (SY_TCB_EV_CONNECTED | SY_TCB_EV_DATA | SY_TCB_EV_SENT))
		refresh(w, m);
	if (ev & (SY_TCB_EV_REFUSED | SY_TCB_EV_RESET | SY_TCB_EV_TIMEOUT)) {
		w->counters.proxy_mirror_failed++;
		end(w, m);
		return;
	}
	if (t->rcvq.bytes > 0) {
		if (!m->answered && status_line(&t->rcvq)) {
			m->answered = true;
			w->counters.proxy_mirror_answered++;
		}
		sy_mq_drop(&t->rcvq, t->rcvq.bytes);
		sy_tcb_consumed(w, t);
	}
	if (t->flags & SY_TCB_F_FIN_RCVD) {
		if (!m->whole) {
			/* Closed before it had the whole request: it will never
			 * read the rest. */
			w->counters.proxy_mirror_failed++;
			end(w, m);
			return;
		}
		if (!(t->flags & SY_TCB_F_FIN_QUEUED))
			sy_tcb_close(t); /* our FIN after the request: LAST_ACK */
	}
	sy_tcb_output(w, t);
	t->events = 0;
	if (t->state == SY_TCPS_CLOSED || t->state == SY_TCPS_TIME_WAIT) {
		if (!m->answered)
			w->counters.proxy_mirror_failed++;
		end(w, m);
		return;
	}
	arm(w, m);
}

/* A leg for the request to an endpoint of pool, its head queued; NULL when
 * none can be had (counted). */
static struct px_mirror *
open_leg(struct sy_worker *w, struct sy_proxy *px, const struct sy_pool *pool, const uint8_t *head,
	 uint32_t len)
{
	struct px_mirror_table *tb = w->tcp.mirror;
	const struct sy_endpoint *ep;
	struct px_mirror *m;
	struct sy_conn *mc;
	uint16_t first = 0, mss;
	int i;

	if (tb == NULL || tb->free == NULL || pool == NULL)
		return NULL;
	i = sy_lb_pick(pool, w, sy_addr_key32(&px->client), &first, 0);
	if (i < 0)
		return NULL;
	ep = &pool->endpoints[i];
	/* A copy goes as it came, HTTP/1.1 in the clear: an endpoint that
	 * wants TLS or h2 gets none. */
	if (ep->tls || pool->services[ep->service].proto != SY_BE_HTTP1)
		return NULL;
	m = tb->free;
	if (sy_backend_leg_open(w, &ep->addr, rte_cpu_to_be_16(ep->port), SY_CONN_PROXY_MIRROR, &m->t,
				&mc, &mss) != 0)
		return NULL;
	tb->free = m->next;
	m->next = NULL;
	m->mc = mc;
	m->px = px;
	m->whole = false;
	m->answered = false;
	mc->mirror = m;
	sy_tcb_connect(w, &m->t, mss, MIRROR_RCVBUF);
	if (sy_mq_append_bytes(&m->t.sndq, head, len, w->sh->pool) < 0) {
		m->px = NULL;
		end(w, m);
		return NULL;
	}
	refresh(w, m);
	return m;
}

void
px_mirror_start(struct sy_worker *w, struct sy_proxy *px, const struct sy_rule *rule,
		const uint8_t *head, uint32_t len, bool whole)
{
	static const char close_line[] = "Connection: close\r\n\r\n";
	uint8_t *copy = RTE_PER_LCORE(mirror_head);
	const struct sy_rule_more *more = rule != NULL ? rule->more : NULL;
	uint32_t n;
	unsigned i, k = 0;

	if (more == NULL || more->n_mirrors == 0)
		return;
	/* The head with "Connection: close" in place of the client's: the
	 * mirror closes once it has answered, and keeps the TIME_WAIT. */
	if (len < 4 || len - 2 + sizeof(close_line) > sizeof(RTE_PER_LCORE(mirror_head)))
		return;
	memcpy(copy, head, len - 2); /* without its blank line */
	n = px_strip_header(copy, len - 2, "Connection:");
	memcpy(copy + n, close_line, sizeof(close_line) - 1);
	n += (uint32_t)sizeof(close_line) - 1;
	for (i = 0; i < more->n_mirrors && k < RTE_DIM(px->mirror); i++) {
		const struct sy_mirror *mr = &more->mirrors[i];
		struct px_mirror *m;

		if (mr->per_10k < 10000 && rte_rand_max(10000) >= mr->per_10k)
			continue; /* not sampled */
		while (k < RTE_DIM(px->mirror) && px->mirror[k] != NULL)
			k++;
		if (k == RTE_DIM(px->mirror) || (m = open_leg(w, px, mr->pool, copy, n)) == NULL) {
			w->counters.proxy_mirror_skipped++;
			continue;
		}
		w->counters.proxy_mirror_requests++;
		px->mirror[k] = m;
		if (whole) {
			m->whole = true;
			unlink_px(m);
		}
		sy_tcb_output(w, &m->t);
		m->t.events = 0;
		arm(w, m);
	}
}

void
px_mirror_body(struct sy_worker *w, struct sy_proxy *px, struct sy_mq *q, uint32_t off,
	       uint32_t n)
{
	unsigned i;

	if (n == 0)
		return;
	for (i = 0; i < RTE_DIM(px->mirror); i++) {
		struct px_mirror *m = px->mirror[i];
		struct rte_mbuf *copy;

		if (m == NULL)
			continue;
		if (m->t.sndq.bytes + n > SY_PX_MIRROR_QUEUE ||
		    (copy = sy_mq_clone_range(q, off, n, w->sh->pool)) == NULL) {
			/* It cannot keep up (or no mbufs): given up, never
			 * waited for. */
			w->counters.proxy_mirror_dropped++;
			end(w, m);
			continue;
		}
		sy_mq_append(&m->t.sndq, copy);
		sy_tcb_output(w, &m->t);
		m->t.events = 0;
		arm(w, m);
	}
}

void
px_mirror_detach(struct sy_worker *w, struct sy_proxy *px, bool complete)
{
	unsigned i;

	for (i = 0; i < RTE_DIM(px->mirror); i++) {
		struct px_mirror *m = px->mirror[i];

		if (m == NULL)
			continue;
		if (!complete) {
			w->counters.proxy_mirror_dropped++;
			end(w, m);
			continue;
		}
		m->whole = true;
		unlink_px(m);
		/* A backend that answered and closed before the last body
		 * byte went can be closed now. */
		step(w, m);
	}
}

/* ------------------------------------------------------ the records -- */

static void
mirror_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, bool from_client)
{
	struct px_mirror *mr = c->mirror;

	if (from_client || mr == NULL) {
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}
	if (sy_backend_leg_input(w, c, &mr->t, m))
		step(w, mr);
}

static void
mirror_timeout(struct sy_worker *w, struct sy_conn *c)
{
	struct px_mirror *m = c->mirror;

	if (m == NULL) {
		sy_conn_free(w, c);
		return;
	}
	if (w->now >= m->deadline) {
		/* Silent: a failure, unless it answered and only kept the
		 * connection open past our Connection: close. */
		if (!m->answered)
			w->counters.proxy_mirror_failed++;
		end(w, m);
		return;
	}
	sy_tcb_timers(w, &m->t);
	step(w, m);
}

/* sy_conn_free of a mirror's record (by end(), or the worker stopping):
 * the leg's state and its slot go back. */
static void
mirror_release(struct sy_worker *w, struct sy_conn *c)
{
	struct px_mirror_table *tb = w->tcp.mirror;
	struct px_mirror *m = c->mirror;

	sy_lb_load_clear(w, c);
	sy_conn_stats_end(w, c);
	c->mirror = NULL;
	if (m == NULL)
		return;
	unlink_px(m);
	sy_tcb_release(&m->t);
	m->mc = NULL;
	m->next = tb->free;
	tb->free = m;
}

static const struct sy_conn_ops mirror_ops = {
	.segment = mirror_segment,
	.timeout = mirror_timeout,
	.release = mirror_release,
};

void
px_mirror_register_ops(void)
{
	sy_conn_ops_register(SY_CONN_PROXY_MIRROR, &mirror_ops);
}
