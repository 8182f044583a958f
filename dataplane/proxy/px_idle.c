/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The worker's idle backend connections (proxy.h, "Idle pools"): a backend
 * leg whose last response was read to its end, kept-alive by the backend,
 * outlives the client connection it served and waits here, per endpoint,
 * for the next request any client of this worker sends to that endpoint.
 * A connection per client request then costs the backend no handshake and
 * leaves it no TIME_WAIT.
 *
 * A parked leg is a record of its own (SY_CONN_PROXY_IDLE, still found by
 * its SNAT port) with its TCP state moved into a slot of the pool (the TCB
 * is copied in and out: its queues are empty, and a copy of a few hundred
 * bytes is nothing next to a handshake). While parked it only listens: the
 * backend's FIN or RST, or any byte from it (an unasked-for answer, such as
 * a 408), ends it with a RST; so does SY_PROXY_IDLE_BACKEND_MS without use,
 * kept below the 5 s idle timeouts common backends close at (Apache httpd,
 * Node.js), so that a request rarely meets a connection being closed. The
 * one that does is sent again on a new connection (proxy_http.c, replay).
 *
 * Taken newest first: the most recently used connection is the one most
 * surely still open at the backend. Memory is bounded: SY_PX_IDLE_MAX legs
 * per worker, allocated when the worker starts.
 */
#include <string.h>

#include <rte_common.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "net/cksum.h"
#include "proxy/proxy.h"
#include "proxy/proxy_internal.h"
#include "conn/conn.h"
#include "worker.h"

#define SY_PX_IDLE_BUCKETS 256 /* endpoint chains: a power of two */

struct px_idle {
	struct sy_tcb b;
	struct sy_conn *bc;
	struct px_idle *next, **pprev; /* its endpoint's chain (newest first), or the free list */
	uint64_t expires;              /* TSC: closed if not taken by then */
	struct sy_addr ip;             /* endpoint, either family */
	uint16_t port;
};

struct px_idle_pool {
	struct px_idle *free;
	uint32_t n_parked;
	struct px_idle *chain[SY_PX_IDLE_BUCKETS];
	struct px_idle slot[SY_PX_IDLE_MAX];
};

static inline struct px_idle **
chain_of(struct px_idle_pool *p, const struct sy_addr *addr, uint16_t port)
{
	uint32_t ip = sy_addr_key32(addr);
	uint32_t h = (ip ^ ((uint32_t)port << 16) ^ (ip >> 13)) * 0x9e3779b1u;

	return &p->chain[h >> 24 & (SY_PX_IDLE_BUCKETS - 1)];
}

int
px_idle_init(struct sy_worker *w)
{
	struct px_idle_pool *p;
	unsigned i;

	p = rte_zmalloc_socket("sy_px_idle", sizeof(*p), RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	if (p == NULL)
		return -1;
	for (i = 0; i < SY_PX_IDLE_MAX; i++) {
		p->slot[i].next = p->free;
		p->free = &p->slot[i];
	}
	w->tcp.idle = p;
	return 0;
}

void
px_idle_fini(struct sy_worker *w)
{
	/* Parked records are on the wheel: sy_conn_free_all freed them. */
	rte_free(w->tcp.idle);
	w->tcp.idle = NULL;
}

static void
unlink_idle(struct px_idle *e)
{
	*e->pprev = e->next;
	if (e->next != NULL)
		e->next->pprev = e->pprev;
	e->next = NULL;
	e->pprev = NULL;
}

/* Out of its endpoint's chain (taken or closed). */
static void
unpark(struct px_idle_pool *p, struct px_idle *e)
{
	unlink_idle(e);
	p->n_parked--;
	e->bc = NULL;
	e->next = p->free;
	p->free = e;
}

/* The parked record's timer: its TCP timers (a delayed ACK) or its end. */
static void
arm(struct sy_worker *w, struct px_idle *e)
{
	uint64_t when = e->expires, t = sy_tcb_next_timer(&e->b);

	if (t != 0 && t < when)
		when = t;
	sy_conn_timer_set(w, e->bc, when);
}

/* After input or timers: what is owed (an ACK), then the timer again. */
static void
settle(struct sy_worker *w, struct px_idle *e)
{
	sy_tcb_output(w, &e->b);
	e->b.events = 0;
	arm(w, e);
}

/* Is px's backend leg fit to serve someone else? Everything it was sent
 * acknowledged, nothing unread, no FIN either way, no recovery going on. */
static bool
parkable(const struct sy_proxy *px)
{
	const struct sy_tcb *b = &px->b;

	/* A TLS leg is not pooled: its session is bound to the route that
	 * opened it (CA, name), and a parked record has no TLS state. An h2
	 * leg is never here: h2c connections are carriers of their own
	 * (px_h2_backend.h), and h2 rides TLS. */
	if (px->bc == NULL || !px->backend_idle || px->btls != NULL || px->bh2 != NULL ||
	    b->state != SY_TCPS_ESTABLISHED ||
	    (b->flags & (SY_TCB_F_FIN_RCVD | SY_TCB_F_FIN_QUEUED | SY_TCB_F_RECOVERY)) ||
	    b->rcvq.bytes != 0 || b->n_ooo != 0)
		return false;
	return b->sndq.bytes == 0 && b->snd_una == b->snd_max;
}

void
px_backend_release(struct sy_worker *w, struct sy_proxy *px)
{
	struct px_idle_pool *p = w->tcp.idle;
	struct px_idle *e, **head;
	struct sy_conn *bc = px->bc;

	if (bc == NULL)
		return;
	if (!parkable(px) || p == NULL) {
		px_backend_drop(w, px);
		return;
	}
	if (p->free == NULL) {
		w->counters.proxy_idle_full++;
		px_backend_drop(w, px);
		return;
	}
	e = p->free;
	p->free = e->next;
	e->b = px->b;
	memset(&px->b, 0, sizeof(px->b));
	e->b.events = 0;
	e->bc = bc;
	e->ip = px->be_ip;
	e->port = px->be_port;
	e->expires = w->now + sy_ms_to_tsc(w, SY_PROXY_IDLE_BACKEND_MS);
	head = chain_of(p, &e->ip, e->port);
	e->next = *head;
	if (e->next != NULL)
		e->next->pprev = &e->next;
	e->pprev = head;
	*head = e;
	p->n_parked++;
	bc->px = NULL;
	bc->idle = e;
	bc->state = SY_CONN_PROXY_IDLE;
	px->bc = NULL;
	px->backend_idle = false;
	w->counters.proxy_backend_parked++;
	settle(w, e); /* an ACK still owed */
}

bool
px_idle_take(struct sy_worker *w, struct sy_proxy *px, const struct sy_addr *ip, uint16_t port,
	     uint8_t proto)
{
	struct px_idle_pool *p = w->tcp.idle;
	struct px_idle *e;
	struct sy_conn *bc;

	if (p == NULL || p->n_parked == 0 || proto == SY_BE_H2C)
		return false; /* h2c: a stream on a carrier (px_h2b_join) */
	for (e = *chain_of(p, ip, port); e != NULL; e = e->next)
		if (sy_addr_eq(&e->ip, ip) && e->port == port)
			break;
	if (e == NULL)
		return false;
	bc = e->bc;
	sy_conn_timer_cancel(w, bc); /* the client record's timer covers both legs */
	px->b = e->b;
	px->b.events = 0;
	bc->idle = NULL;
	bc->px = px;
	bc->state = SY_CONN_PROXY_BE;
	px->bc = bc;
	px->be_ip = *ip;
	px->be_port = port;
	px->backend_idle = false;
	px->leg_used = true;
	px->be_proto = proto;
	unpark(p, e);
	return true;
}

/* Close a parked leg: RST (the backend frees the connection at once and
 * keeps no TIME_WAIT for it), then the record goes. */
static void
idle_close(struct sy_worker *w, struct sy_conn *bc)
{
	struct px_idle *e = bc->idle;

	sy_tcb_abort(w, &e->b);
	sy_conn_free(w, bc); /* sy_proxy_idle_release */
}

void
sy_proxy_idle_segment(struct sy_worker *w, struct sy_conn *bc, struct rte_mbuf *m)
{
	struct px_idle *e = bc->idle;

	if (e == NULL) {
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}
	if (!sy_l4_cksum_ok(m)) {
		sy_drop(w, m, SY_DROP_TCP_BAD_CHECKSUM);
		return;
	}
	bc->last_seen = sy_conn_seen(w->now);
	sy_tcb_input(w, &e->b, m);
	if (e->b.state != SY_TCPS_ESTABLISHED || (e->b.flags & SY_TCB_F_FIN_RCVD) ||
	    e->b.rcvq.bytes > 0) {
		/* The backend closed it (its keep-alive timeout), reset it,
		 * or said something nobody asked for. */
		w->counters.proxy_idle_closed_by_backend++;
		idle_close(w, bc);
		return;
	}
	settle(w, e);
}

void
sy_proxy_idle_timeout(struct sy_worker *w, struct sy_conn *bc)
{
	struct px_idle *e = bc->idle;

	if (e == NULL) {
		sy_conn_free(w, bc);
		return;
	}
	sy_tcb_timers(w, &e->b);
	if (e->expires <= w->now || e->b.state != SY_TCPS_ESTABLISHED) {
		if (e->expires <= w->now)
			w->counters.proxy_idle_expired++;
		idle_close(w, bc);
		return;
	}
	settle(w, e);
}

void
sy_proxy_idle_release(struct sy_worker *w, struct sy_conn *bc)
{
	struct px_idle_pool *p = w->tcp.idle;
	struct px_idle *e = bc->idle;

	bc->idle = NULL;
	if (e == NULL)
		return;
	sy_tcb_release(&e->b);
	unpark(p, e);
}
