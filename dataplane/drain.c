/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A graceful drain (docs/operations.md, "Stopping"): on SIGTERM or SIGINT the
 * control thread sets sh->draining, then waits until no connection is in
 * flight or drain_s has passed, and stops the workers (control/main.c).
 * Meanwhile
 *   - worker 0 resigns the VIPs it is VRRP master of (priority 0 adverts)
 *     and runs their state machines no more, so a peer takes them at once;
 *     what still arrives on them is taken (sy_vip_taken, worker.h);
 *   - each worker refuses new connections: a SYN to a listen address gets a RST
 *     (tcp/tcp_in.c; counted conns_refused_draining), so a client or a
 *     front balancer retries elsewhere at once instead of waiting out a
 *     SYN-ACK whose connection would be cut; but a SYN to a VIP is taken
 *     (conns_taken_draining_vip): its client still reaches us only because
 *     its ARP cache has not yet heard the standby, and it has no elsewhere.
 *     The drain lasts the VIPs' master-down interval at least
 *     (sy_dp_drain_begin), so a standby surely has them when we exit;
 *   - and closes, once, its proxied client connections that sit idle between
 *     requests (the keep-alive close, early), and answers the next request
 *     of a busy one with Connection: close (proxy_http.c);
 *   - carries everything else to its end: spliced connections, requests and
 *     responses in flight, handshakes whose cookie ACK arrives.
 */
#include <stdatomic.h>

#include "conn/conn.h"
#include "drain.h"
#include "proxy/proxy.h"
#include "vrrp/vrrp.h"
#include "worker.h"

void
sy_worker_drain_sweep(struct sy_worker *w)
{
	uint32_t i;

	/* First the VIPs (RFC 5798's priority 0 on shutdown): the standbys
	 * take new connections while this node finishes its own. Worker 0
	 * runs VRRP; it stops answering for the VIPs' state machines too. */
	if (w->id == 0 && w->sh->vrrp != NULL)
		sy_vrrp_resign(w);

	for (i = 0; i < w->tcp.conns.n; i++) {
		struct sy_conn *c = sy_conn_at(&w->tcp.conns, i);

		if (c->state == SY_CONN_PROXY)
			sy_proxy_drain(w, c);
	}
	w->drain_swept = true;
}

bool
sy_conn_in_flight(uint8_t state)
{
	switch (state) {
	case SY_CONN_PEEK:
	case SY_CONN_CONNECTING:
	case SY_CONN_SPLICED:
	case SY_CONN_ANSWER:
	case SY_CONN_PROXY:
		return true;
	default:
		/* Closed ones lingering, backend legs (counted with their
		 * client's), the idle pool, TIME_WAIT, health checks. */
		return false;
	}
}

unsigned
sy_worker_conns_in_flight(const struct sy_worker *w)
{
	unsigned n = 0;
	uint32_t i;

	/* The control thread reads the worker's records as `routerctl conns`
	 * does: one state byte each, read once; a count a record off is
	 * corrected at the next look. */
	for (i = 0; i < w->tcp.conns.n; i++) {
		const struct sy_conn *c = sy_conn_at(&w->tcp.conns, i);

		if (sy_conn_in_flight(__atomic_load_n(&c->state, __ATOMIC_RELAXED)))
			n++;
	}
	return n;
}
