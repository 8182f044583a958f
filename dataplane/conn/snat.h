/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SNAT ports: port % n_workers == worker id, so a backend's reply names its
 * owner in the destination port (docs/architecture.md 4.3, flow ownership). Free
 * ports are reused first-in first-out, so a port rests as long as possible
 * before it meets the same backend again (its TIME_WAIT).
 *
 * Source addresses: every address of the port a backend leg leaves by, of
 * the backend's family, is a SNAT address (config `ports[].ipv4`, `ipv6`). A leg's source is (address
 * index k, port): k < that port's address count, a FIFO of free ports per
 * k, and the next leg starts at the next k, so a port rests k times longer
 * before it meets the same backend from the same address. With A addresses
 * on the backend port a worker holds A x (65536 - 1024) / n_workers legs.
 * The FIFO is the index's, not the address's: the k-th address of every
 * port, of either family, takes ports from it (a port number names one leg
 * of the row at a time, below), so with backends behind several ports A is
 * the most any of them has, and their legs share those ports.
 * The port -> record array has a row per index, of either family; a backend
 * segment's destination address names its row (sy_snat_index for IPv4, the
 * address's place among its port's IPv6 addresses for IPv6).
 */
#ifndef SY_SNAT_H
#define SY_SNAT_H

#include <stddef.h>
#include <stdint.h>

#include <rte_branch_prediction.h>
#include <rte_byteorder.h>
#include <rte_reciprocal.h>

#include "conn/conn_tables_t.h"

struct sy_dp_port;
struct sy_worker;

/* Slots of a row of a worker's SNAT port -> record array: port / n_workers
 * for every port up to 65535 (a worker's own ports are port % n_workers ==
 * id, so they have distinct slots). One row per source address index. */
static inline unsigned
sy_snat_slots(unsigned n_workers)
{
	return 65535u / n_workers + 1;
}

/* The address index of SNAT address addr (network order): its row in
 * snat_conn. One address per port (the common case) needs no search; an
 * address that is not ours gives 0, and the tuple compare then misses. */
static inline unsigned
sy_snat_index(const struct sy_conn_tables *t, uint32_t addr)
{
	unsigned i;

	if (likely(t->n_src == 1))
		return 0;
	for (i = 0; i < t->n_src_addr; i++)
		if (t->src_addr[i] == addr)
			return t->src_k[i];
	return 0;
}

/* The slot of the backend leg of address index k and SNAT port `port`
 * (network order) in snat_conn. Row k serves both families: an IPv4 leg of
 * index k and an IPv6 one take k's ports from one FIFO, so a (k, port) is
 * one leg's at a time. An IPv6 leg's k is its snat_k (conn_t.h), the index
 * of its source among its port's IPv6 addresses: the burst fast path finds
 * it from a backend's segment by the destination address's place there. */
static inline struct sy_conn **
sy_snat_slot_k(const struct sy_conn_tables *t, unsigned k, uint16_t port)
{
	return &t->snat_conn[(size_t)k * t->snat_row +
			     rte_reciprocal_divide(rte_be_to_cpu_16(port), t->snat_div)];
}

/* The slot of IPv4 backend leg (addr, port) (network order): with one
 * address a port (n_src 1), row 0 and the port alone, as before there were
 * rows (every backend segment of the fast path comes here). */
static inline struct sy_conn **
sy_snat_slot(const struct sy_conn_tables *t, uint32_t addr, uint16_t port)
{
	return sy_snat_slot_k(t, likely(t->n_src == 1) ? 0 : sy_snat_index(t, addr), port);
}

/* A source for a backend leg leaving by port `out`: the SNAT port (host
 * order) and *addr (network order), the next address index with a free port;
 * 0 when there is none (SNAT_PORTS_EXHAUSTED). */
uint16_t sy_snat_get(struct sy_worker *w, const struct sy_dp_port *out, uint32_t *addr);
/* The same for an IPv6 backend leg leaving by `out`: its IPv6 addresses
 * taken in turn, *k the index of the one given (the source is
 * out->ipv6[*k]; the fast path finds the leg through row *k of the
 * port -> record array, the per-packet path through its tuple in the IPv6
 * backend hash, conn/flow_table.h). */
uint16_t sy_snat_get6(struct sy_worker *w, const struct sy_dp_port *out, uint8_t *k);
/* c's backend leg is gone: its (address index, port) is free again. */
void sy_snat_release(struct sy_worker *w, const struct sy_conn *c);

#endif
