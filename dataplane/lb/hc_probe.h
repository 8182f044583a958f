/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Active health checks on the wire (sy_dataplane.h, "Active health
 * checks"; the control thread's side is control/health.h). Worker 0 takes
 * jobs from sh->hc_jobs and for each opens a TCP connection of its own to
 * the endpoint, from one of its SNAT ports (so the answer comes back to it
 * like any backend leg's), sends
 *
 *     GET <path> HTTP/1.1
 *     Host: <host>
 *     User-Agent: switchyard-health-check
 *     Connection: close
 *
 * reads the status line, and ends the connection with a RST (the backend
 * keeps no TIME_WAIT for it, the SNAT port is free again at once). The job
 * goes back on sh->hc_done with the status or why there is none.
 *
 * A probe is a connection record of its own (SY_CONN_HEALTH_PROBE, found by
 * its SNAT port, on the timer wheel) with its TCP state in a slot of the
 * worker's probe table: SY_HC_JOBS_MAX slots, allocated when the worker
 * starts, so a probe costs no allocation on the data path.
 */
#ifndef SY_HC_PROBE_H
#define SY_HC_PROBE_H

struct rte_mbuf;
struct sy_conn;
struct sy_worker;

int sy_hc_init(struct sy_worker *w);
void sy_hc_fini(struct sy_worker *w);
/* Start the jobs waiting on the ring (worker 0): how many. */
unsigned sy_hc_drain(struct sy_worker *w);
/* A segment of a probe's connection; its record's timer; the record freed. */
void sy_hc_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m);
void sy_hc_timeout(struct sy_worker *w, struct sy_conn *c);
void sy_hc_release(struct sy_worker *w, struct sy_conn *c);
/* SY_CONN_HEALTH_PROBE records go to the three above from here on
 * (conn/conn_ops.h). Before workers run. */
void sy_hc_register_ops(void);

#endif
