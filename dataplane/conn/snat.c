/* SPDX-License-Identifier: BSD-3-Clause */
/* SNAT source ports and addresses of a worker's backend legs (conn/snat.h). */
#include <stdint.h>

#include <rte_common.h>

#include "conn/conn.h"
#include "worker_t.h"

uint16_t
sy_snat_get(struct sy_worker *w, const struct sy_dp_port *out, uint32_t *addr)
{
	struct sy_conn_tables *t = &w->tcp;
	unsigned n_addr = RTE_MIN((unsigned)out->n_ipv4, (unsigned)t->n_src), i;

	for (i = 0; i < n_addr; i++) {
		unsigned k = (t->src_next + i) % n_addr;
		uint16_t p;

		if (t->port_q[k].count == 0)
			continue;
		p = t->ports[(size_t)k * t->port_cap + t->port_q[k].head];
		t->port_q[k].head = (t->port_q[k].head + 1) % t->port_cap;
		t->port_q[k].count--;
		/* The next leg from the next address: each (address, port)
		 * rests as long as possible before it is used again. */
		t->src_next = (uint8_t)((k + 1) % n_addr);
		*addr = out->ipv4[k];
		return p;
	}
	return 0;
}

void
sy_snat_put(struct sy_worker *w, uint32_t addr, uint16_t port)
{
	struct sy_conn_tables *t = &w->tcp;
	unsigned k = sy_snat_index(t, addr);

	if (t->port_q[k].count == t->port_cap)
		return;
	t->ports[(size_t)k * t->port_cap + (t->port_q[k].head + t->port_q[k].count) % t->port_cap] =
		port;
	t->port_q[k].count++;
}

uint16_t
sy_snat_get_index0(struct sy_worker *w, uint32_t *addr)
{
	struct sy_conn_tables *t = &w->tcp;
	uint16_t p;

	*addr = 0;
	if (t->port_q[0].count == 0)
		return 0;
	p = t->ports[t->port_q[0].head];
	t->port_q[0].head = (t->port_q[0].head + 1) % t->port_cap;
	t->port_q[0].count--;
	return p;
}
