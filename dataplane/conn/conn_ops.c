/* SPDX-License-Identifier: BSD-3-Clause */
/* The table of what each state's mode does (conn/conn_ops.h). */
#include <rte_mbuf.h>

#include "conn/conn.h"
#include "conn/conn_ops.h"
#include "drop.h"
#include "worker_t.h"

/* A state no mode registered (0 too: a freed record): what the dispatch's
 * default did before there was a table. */
static void
unowned_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m, bool from_client)
{
	(void)c;
	(void)from_client;
	sy_drop(w, m, SY_DROP_TCP_UNEXPECTED);
}

static void
unowned_release(struct sy_worker *w, struct sy_conn *c)
{
	(void)w;
	(void)c;
}

static const struct sy_conn_ops unowned_ops = {
	.segment = unowned_segment,
	.timeout = sy_conn_free,
	.release = unowned_release,
};

const struct sy_conn_ops *sy_conn_ops[SY_CONN_STATES] = {
	[0 ... SY_CONN_STATES - 1] = &unowned_ops,
};

void
sy_conn_ops_register(enum sy_conn_state state, const struct sy_conn_ops *ops)
{
	if ((unsigned)state < SY_CONN_STATES && ops != NULL)
		sy_conn_ops[state] = ops;
}
