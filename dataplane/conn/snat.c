/* SPDX-License-Identifier: BSD-3-Clause */
/* SNAT source ports and addresses of a worker's backend legs (conn/snat.h). */
#include <stdint.h>

#include <rte_common.h>

#include "conn/conn.h"
#include "worker_t.h"

/*
 * A free port of the first of n_addr address indexes, from *next on, that
 * has one; *k its index, and *next the index after it: the next leg starts
 * from the next address, so each (address, port) rests as long as possible
 * before it is used again. 0 when none has a free port.
 */
static uint16_t
take_port(struct sy_conn_tables *t, unsigned n_addr, uint8_t *next, unsigned *k)
{
	unsigned i;

	for (i = 0; i < n_addr; i++) {
		uint16_t p;

		*k = (*next + i) % n_addr;
		if (t->port_q[*k].count == 0)
			continue;
		p = t->ports[(size_t)*k * t->port_cap + t->port_q[*k].head];
		t->port_q[*k].head = (t->port_q[*k].head + 1) % t->port_cap;
		t->port_q[*k].count--;
		*next = (uint8_t)((*k + 1) % n_addr);
		return p;
	}
	return 0;
}

uint16_t
sy_snat_get(struct sy_worker *w, const struct sy_dp_port *out, uint32_t *addr)
{
	struct sy_conn_tables *t = &w->tcp;
	unsigned k;
	uint16_t p = take_port(t, RTE_MIN((unsigned)out->n_ipv4, (unsigned)t->n_src), &t->src_next, &k);

	if (p != 0)
		*addr = out->ipv4[k];
	return p;
}

uint16_t
sy_snat_get6(struct sy_worker *w, const struct sy_dp_port *out, uint8_t *k_out)
{
	struct sy_conn_tables *t = &w->tcp;
	unsigned k;
	uint16_t p = take_port(t, RTE_MIN((unsigned)out->n_ipv6, (unsigned)t->n_fifo), &t->src_next6, &k);

	if (p != 0)
		*k_out = (uint8_t)k;
	return p;
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

void
sy_snat_release(struct sy_worker *w, const struct sy_conn *c)
{
	uint16_t port = rte_be_to_cpu_16(c->snat_port);

	if (sy_conn_backend_v6(c))
		snat_put_k(w, sy_conn_v6_of(&w->tcp, c)->snat_k, port);
	else
		snat_put_k(w, sy_snat_index(&w->tcp, c->snat_ip), port);
}
