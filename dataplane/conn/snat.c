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

static void
snat_put_k(struct sy_worker *w, unsigned k, uint16_t port)
{
	struct sy_conn_tables *t = &w->tcp;

	if (t->port_q[k].count == t->port_cap)
		return;
	t->ports[(size_t)k * t->port_cap + (t->port_q[k].head + t->port_q[k].count) % t->port_cap] =
		port;
	t->port_q[k].count++;
}

uint16_t
sy_snat_get6(struct sy_worker *w, const struct sy_dp_port *out, uint8_t *k_out)
{
	struct sy_conn_tables *t = &w->tcp;
	unsigned n_addr = RTE_MIN((unsigned)out->n_ipv6, (unsigned)t->n_fifo), i;

	for (i = 0; i < n_addr; i++) {
		unsigned k = (t->src_next6 + i) % n_addr;
		uint16_t p;

		if (t->port_q[k].count == 0)
			continue;
		p = t->ports[(size_t)k * t->port_cap + t->port_q[k].head];
		t->port_q[k].head = (t->port_q[k].head + 1) % t->port_cap;
		t->port_q[k].count--;
		t->src_next6 = (uint8_t)((k + 1) % n_addr);
		*k_out = (uint8_t)k;
		return p;
	}
	return 0;
}

void
sy_snat_release(struct sy_worker *w, const struct sy_conn *c)
{
	uint16_t port = rte_be_to_cpu_16(c->snat_port);

	if (sy_conn_backend_v6(c))
		snat_put_k(w, sy_conn_v6_of(&w->tcp, c)->snat_k, port);
	else
		snat_put_k(w, sy_snat_index(&w->tcp, c->snat_ip), port);
}
