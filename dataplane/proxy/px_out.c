/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An h2 connection's client output, batched over one RX burst.
 *
 * Each response of an h2 connection comes in on its own backend leg, as
 * that backend's segment, and every segment steps the connection
 * (proxy.c, px_step). Sent at the end of each step, the responses that one
 * burst brings for a connection went out as as many segments (and over TLS
 * as many records): one frame to the client a request, each a TX call's
 * share and a sealing of its own (perf/journal/h2.md). Instead, while
 * sy_splice_rx_burst reads a burst, a step of an open h2 connection leaves
 * its TLS seal and its TCP output for the burst's end, and the connection
 * is listed here once; sy_proxy_out_flush then seals and sends for each,
 * and re-arms its timer for what that sent (the retransmission timer).
 *
 * Only what may wait waits: a connection that closes, fails or is not yet
 * open sends at once, as every HTTP/1.x connection does. A connection freed
 * before the end (a reset later in the burst) leaves the list
 * (px_state_free). The list holds a burst's worth (SY_PX_OUT_MAX); beyond
 * it a connection sends at once. Frames fed to sy_eth_input outside a
 * burst (tests, timers, handoffs) send at once too.
 */
#include <stdbool.h>
#include <stddef.h>

#include "proxy/proxy.h"
#include "proxy/proxy_internal.h"
#include "tls/tls.h"
#include "worker.h"

void
sy_proxy_out_open(struct sy_worker *w)
{
	w->tcp.px_out_open = true;
}

bool
px_out_deferrable(const struct sy_worker *w, const struct sy_proxy *px)
{
	return w->tcp.px_out_open && px->h2 != NULL && px->strm == NULL &&
	       px->c.state == SY_TCPS_ESTABLISHED && !px_client_closing(px) &&
	       (px->tls == NULL || px->tls->state == SY_TLS_OPEN);
}

bool
px_out_defer(struct sy_worker *w, struct sy_proxy *px)
{
	struct sy_conn_tables *t = &w->tcp;

	if (px->out_queued)
		return px_out_deferrable(w, px);
	if (!px_out_deferrable(w, px) || t->n_px_out == SY_PX_OUT_MAX)
		return false;
	t->px_out[t->n_px_out++] = px;
	px->out_queued = true;
	return true;
}

void
px_out_forget(struct sy_worker *w, struct sy_proxy *px)
{
	struct sy_conn_tables *t = &w->tcp;
	unsigned i;

	for (i = 0; i < t->n_px_out; i++)
		if (t->px_out[i] == px)
			t->px_out[i] = NULL;
	px->out_queued = false;
}

void
px_out_send(struct sy_worker *w, struct sy_proxy *px)
{
	if (px->seal_later) {
		px->seal_later = false;
		sy_tls_pump(px->tls);
	}
	sy_tcb_output(w, &px->c);
}

void
sy_proxy_out_flush(struct sy_worker *w)
{
	struct sy_conn_tables *t = &w->tcp;
	unsigned i;

	/* Closed first: what the flush sends steps nothing (no input), and
	 * nothing below may queue again. */
	t->px_out_open = false;
	for (i = 0; i < t->n_px_out; i++) {
		struct sy_proxy *px = t->px_out[i];

		if (px == NULL)
			continue;
		px->out_queued = false;
		px_out_send(w, px);
		px_arm(w, px);
	}
	t->n_px_out = 0;
}
