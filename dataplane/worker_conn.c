/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A worker's connections set up and torn down: the tables of conn/ and then
 * each mode's, and the operations each mode registers for the states it
 * owns (conn/conn_ops.h). The one place that names every mode: conn/ names
 * none, and the modes do not name each other's tables.
 */
#include <errno.h>

#include <rte_errno.h>

#include "conn/conn.h"
#include "dp_log.h"
#include "lb/hc_probe.h"
#include "proxy/proxy.h"
#include "splice/splice.h"
#include "tls/tls.h"
#include "worker_conn.h"
#include "worker_t.h"

int
sy_worker_conn_init(struct sy_worker *w)
{
	/* The same table for every worker: written again with the same
	 * values, before any worker runs (sy_worker_create). */
	sy_splice_register_ops();
	sy_proxy_register_ops();
	sy_hc_register_ops();
	if (sy_conn_tables_init(w) < 0 || sy_proxy_worker_init(w) < 0 ||
	    sy_tls_worker_init(w) < 0 || sy_hc_init(w) < 0) {
		uint32_t flows = sy_conn_tables_flows(w);

		SY_DP_LOG(ERR,
			  "worker %u: connection tables for flows_per_worker %u (about %zu MB): %s",
			  w->id, flows, sy_flow_mem_estimate(flows) >> 20, rte_strerror(rte_errno));
		sy_worker_conn_fini(w);
		return -ENOMEM;
	}
	return 0;
}

void
sy_worker_conn_fini(struct sy_worker *w)
{
	/* Records first, each through its mode's release while the modes'
	 * tables are there; the conn tables last (they clear w->tcp). */
	sy_conn_free_all(w);
	sy_proxy_worker_fini(w);
	sy_tls_worker_fini(w);
	sy_hc_fini(w);
	sy_conn_tables_fini(w);
}
