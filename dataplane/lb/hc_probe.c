/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One health check on the wire (hc_probe.h): connect, ask, read the status
 * line, reset. Everything a backend leg of the proxy has (SYN retries,
 * retransmission, window, RST handling) comes from the TCB; this file only
 * writes the request and reads the answer's first line.
 */
#include <stdio.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "conn/conn.h"
#include "conn/conn_ops.h"
#include "lb/hc_probe.h"
#include "lb/lb.h"
#include "net/fib.h"
#include "observe/conn_stats.h"
#include "sy_dataplane.h"
#include "tcp/tcb.h"
#include "worker.h"

/* What we read of the answer: "HTTP/1.1 200" is 12 bytes; a status line
 * longer than this without its status is not one. */
#define HC_STATUS_LINE_MAX 64
#define HC_RCVBUF (16 * 1024)

struct sy_hc_probe {
	struct sy_tcb b;
	struct sy_conn *bc;
	struct sy_hc_job *job;
	uint64_t deadline; /* TSC: the job's timeout */
	bool sent;                  /* the request is queued */
	struct sy_hc_probe *next;   /* free list */
};

struct sy_hc_table {
	struct sy_hc_probe *free;
	struct sy_hc_probe slot[SY_HC_JOBS_MAX];
};

const char *
sy_hc_result_name(enum sy_hc_result r)
{
	static const char *const names[SY_HC_N_RESULTS] = {
		[SY_HC_ANSWERED] = "answered",   [SY_HC_REFUSED] = "refused",
		[SY_HC_TIMEOUT] = "timeout",     [SY_HC_RESET] = "reset",
		[SY_HC_BAD_ANSWER] = "bad_answer", [SY_HC_NO_ROUTE] = "no_route",
		[SY_HC_NO_RESOURCES] = "no_resources",
	};

	return (unsigned)r < SY_HC_N_RESULTS ? names[r] : "?";
}

int
sy_hc_init(struct sy_worker *w)
{
	struct sy_hc_table *t;
	unsigned i;

	/* Only the probing worker has probes. */
	if (w->id != 0)
		return 0;
	t = rte_zmalloc_socket("sy_hc", sizeof(*t), RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	if (t == NULL)
		return -1;
	for (i = 0; i < SY_HC_JOBS_MAX; i++) {
		t->slot[i].next = t->free;
		t->free = &t->slot[i];
	}
	w->tcp.hc = t;
	return 0;
}

void
sy_hc_fini(struct sy_worker *w)
{
	/* Live probe records are on the wheel: sy_conn_free_all freed them. */
	rte_free(w->tcp.hc);
	w->tcp.hc = NULL;
}

/* The job goes back with its result; the record is freed (RST first when
 * the connection is open). */
static void
finish(struct sy_worker *w, struct sy_hc_probe *p, enum sy_hc_result r, uint16_t status)
{
	struct sy_hc_job *job = p->job;

	p->job = NULL;
	job->result = (uint8_t)r;
	job->status = status;
	if (r == SY_HC_ANSWERED)
		w->counters.hc_answered++;
	else
		w->counters.hc_failed++;
	/* Never full: it has room for every job in flight. */
	rte_ring_sp_enqueue(w->sh->hc_done, job);
	if (p->bc != NULL) {
		sy_tcb_abort(w, &p->b);
		sy_conn_free(w, p->bc); /* sy_hc_release */
	}
}

/* A job the worker cannot start: back at once. */
static void
refuse(struct sy_worker *w, struct sy_hc_job *job, enum sy_hc_result r)
{
	job->result = (uint8_t)r;
	job->status = 0;
	w->counters.hc_failed++;
	rte_ring_sp_enqueue(w->sh->hc_done, job);
}

static void
arm(struct sy_worker *w, struct sy_hc_probe *p)
{
	uint64_t when = p->deadline, t = sy_tcb_next_timer(&p->b);

	if (t != 0 && t < when)
		when = t;
	sy_conn_timer_set(w, p->bc, when);
}

static void
start(struct sy_worker *w, struct sy_hc_job *job)
{
	struct sy_hc_table *t = w->tcp.hc;
	struct sy_hc_probe *p;
	struct sy_conn *bc;
	uint16_t mss;
	int why;

	if (t == NULL || t->free == NULL) {
		refuse(w, job, SY_HC_NO_RESOURCES);
		return;
	}
	p = t->free;
	why = sy_backend_leg_open(w, &job->addr, job->port, SY_CONN_HEALTH_PROBE, &p->b, &bc, &mss);
	if (why != 0) {
		refuse(w, job, why == SY_ANSWER_BACKEND_NO_ROUTE ? SY_HC_NO_ROUTE : SY_HC_NO_RESOURCES);
		return;
	}
	t->free = p->next;
	p->next = NULL;
	p->job = job;
	p->bc = bc;
	p->sent = false;
	p->deadline = w->now + w->sh->tsc_per_ms * (job->timeout_ms ? job->timeout_ms : 1);
	bc->probe = p;
	sy_tcb_connect(w, &p->b, mss, HC_RCVBUF);
	w->counters.hc_sent++;
	arm(w, p);
}

unsigned
sy_hc_drain(struct sy_worker *w)
{
	void *jobs[16];
	unsigned n, i;

	n = rte_ring_sc_dequeue_burst(w->sh->hc_jobs, jobs, RTE_DIM(jobs), NULL);
	for (i = 0; i < n; i++)
		start(w, jobs[i]);
	return n;
}

/* The status of an HTTP/1.x status line at the start of buf (len bytes):
 * > 0 the status, 0 not all there yet, -1 not a status line. */
static int
status_of(const char *buf, uint32_t len)
{
	static const char proto[] = "HTTP/1.";
	int st = 0, i;

	for (i = 0; i < 7 && (uint32_t)i < len; i++)
		if (buf[i] != proto[i])
			return -1;
	if (len < 13)
		return len >= HC_STATUS_LINE_MAX ? -1 : 0;
	if ((buf[7] != '0' && buf[7] != '1') || buf[8] != ' ')
		return -1;
	for (i = 9; i < 12; i++) {
		if (buf[i] < '0' || buf[i] > '9')
			return -1;
		st = st * 10 + (buf[i] - '0');
	}
	/* After the three digits: the reason phrase's space, or the line's end. */
	if (buf[12] != ' ' && buf[12] != '\r' && buf[12] != '\n')
		return -1;
	return st >= 100 ? st : -1;
}

/* After input or timers: connected -> send the request; an answer or the
 * end -> finish; else output and the timer again. */
static void
step(struct sy_worker *w, struct sy_hc_probe *p)
{
	struct sy_tcb *b = &p->b;
	uint8_t ev = b->events;

	b->events = 0;
	if (ev & SY_TCB_EV_REFUSED) {
		finish(w, p, SY_HC_REFUSED, 0);
		return;
	}
	if (!p->sent && b->state == SY_TCPS_ESTABLISHED) {
		char req[SY_HC_PATH_MAX + SY_HC_HOST_MAX + 96];
		int n = snprintf(req, sizeof(req),
				 "GET %s HTTP/1.1\r\nHost: %s\r\nUser-Agent: switchyard-health-check\r\n"
				 "Connection: close\r\n\r\n",
				 p->job->path, p->job->host);

		if (n <= 0 || (size_t)n >= sizeof(req) ||
		    sy_mq_append_bytes(&b->sndq, req, (uint32_t)n, w->sh->pool) < 0) {
			finish(w, p, SY_HC_NO_RESOURCES, 0);
			return;
		}
		p->sent = true;
	}
	if (b->rcvq.bytes > 0) {
		char line[HC_STATUS_LINE_MAX];
		uint32_t len = RTE_MIN(b->rcvq.bytes, (uint32_t)sizeof(line));
		int st;

		sy_mq_copy(&b->rcvq, 0, len, line);
		st = status_of(line, len);
		if (st > 0) {
			finish(w, p, SY_HC_ANSWERED, (uint16_t)st);
			return;
		}
		if (st < 0) {
			finish(w, p, SY_HC_BAD_ANSWER, 0);
			return;
		}
	}
	if ((ev & (SY_TCB_EV_RESET | SY_TCB_EV_FIN)) || b->state == SY_TCPS_CLOSED ||
	    (b->flags & SY_TCB_F_FIN_RCVD)) {
		/* TIMEOUT: the SYN's or the request's retransmissions gave up. */
		finish(w, p, (ev & SY_TCB_EV_TIMEOUT) ? SY_HC_TIMEOUT : SY_HC_RESET, 0);
		return;
	}
	sy_tcb_output(w, b);
	b->events = 0;
	arm(w, p);
}

void
sy_hc_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m)
{
	struct sy_hc_probe *p = c->probe;

	if (p == NULL || p->job == NULL) {
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}
	if (sy_backend_leg_input(w, c, &p->b, m))
		step(w, p);
}

void
sy_hc_timeout(struct sy_worker *w, struct sy_conn *c)
{
	struct sy_hc_probe *p = c->probe;

	if (p == NULL || p->job == NULL) {
		sy_conn_free(w, c);
		return;
	}
	if (w->now >= p->deadline) {
		finish(w, p, SY_HC_TIMEOUT, 0);
		return;
	}
	sy_tcb_timers(w, &p->b);
	step(w, p);
}

void
sy_hc_release(struct sy_worker *w, struct sy_conn *c)
{
	struct sy_hc_table *t = w->tcp.hc;
	struct sy_hc_probe *p = c->probe;

	c->probe = NULL;
	if (p == NULL)
		return;
	sy_tcb_release(&p->b);
	if (p->job != NULL) {
		/* Freed from outside (the worker stops): the job still goes
		 * back, so the control thread's count of jobs in flight holds. */
		struct sy_hc_job *job = p->job;

		p->job = NULL;
		refuse(w, job, SY_HC_NO_RESOURCES);
	}
	p->bc = NULL;
	p->next = t->free;
	t->free = p;
}

/* A probe's record is a backend leg alone: a segment from a client leg is
 * not its. */
static void
probe_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, bool from_client)
{
	if (from_client) {
		sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
		return;
	}
	sy_hc_segment(w, c, m);
}

/* sy_conn_free of a probe's record: the counts a record may hold end as
 * any record's do, then the probe goes back to the table. */
static void
probe_release(struct sy_worker *w, struct sy_conn *c)
{
	sy_lb_load_clear(w, c);
	sy_conn_stats_end(w, c);
	if (c->probe != NULL)
		sy_hc_release(w, c);
}

static const struct sy_conn_ops probe_ops = {
	.segment = probe_segment,
	.timeout = sy_hc_timeout,
	.release = probe_release,
};

void
sy_hc_register_ops(void)
{
	sy_conn_ops_register(SY_CONN_HEALTH_PROBE, &probe_ops);
}
