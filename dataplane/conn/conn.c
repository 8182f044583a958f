/* SPDX-License-Identifier: BSD-3-Clause */
/* A connection's record through its life (conn/conn.h). */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "conn/conn.h"
#include "conn/src_limit.h"
#include "net/net.h"
#include "conn/conn_ops.h"
#include "drop.h"
#include "net/cksum.h"
#include "net/fib.h"
#include "sy_backend_stats.h"
#include "sy_route_stats.h"
#include "tcp/tcb.h"
#include "worker_t.h"

int
sy_conn_arena_init(struct sy_conn_arena *a, uint32_t n, bool v6, int socket)
{
	uint32_t i;

	a->shift = v6 ? 8 : 7;
	a->mem = rte_zmalloc_socket("sy_conns", (size_t)n << a->shift, 1u << a->shift, socket);
	a->free = NULL;
	a->n = 0;
	if (a->mem == NULL)
		return -ENOMEM;
	a->n = n;
	/* The first records first: a lightly loaded worker keeps its few
	 * records together. */
	for (i = n; i-- > 0;) {
		struct sy_conn *c = sy_conn_at(a, i);

		c->tnext = a->free;
		a->free = c;
	}
	return 0;
}

void
sy_conn_arena_fini(struct sy_conn_arena *a)
{
	rte_free(a->mem);
	a->mem = NULL;
	a->free = NULL;
	a->n = 0;
}

size_t
sy_flow_mem_estimate(uint32_t flows)
{
	/* rte_hash (DPDK 23-24, EXT_TABLE, no lcore cache): as many buckets
	 * of 8 keys (64 B) as the entries rounded up to a power of two, as
	 * many extendable ones, a 24-byte key slot per entry (16-byte key,
	 * data pointer) and two rings of free slot and bucket indexes. */
	size_t p = rte_align32pow2(flows);
	size_t hash = 2 * (p / 8) * 64 + ((size_t)flows + 1) * 24 +
		      4 * (size_t)rte_align32pow2(flows + 1) + 4 * (size_t)rte_align32pow2(p / 8 + 1);

	return (size_t)flows * (sizeof(struct sy_conn) + sizeof(struct sy_conn_stat)) + hash +
	       (size_t)sy_flow_cache_slots(flows) * sizeof(uint64_t) +
	       sy_snat_slots(1) * sizeof(struct sy_conn *) +
	       (size_t)SY_PEEK_BUFS * (sizeof(struct sy_peek_buf) + 64);
}

uint32_t
sy_conn_tables_flows(const struct sy_worker *w)
{
	return w->sh->flows_per_worker != 0 ? w->sh->flows_per_worker : SY_FLOWS_PER_WORKER_DEFAULT;
}

int
sy_conn_tables_init(struct sy_worker *w)
{
	struct sy_conn_tables *t = &w->tcp;
	static unsigned seq;
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t flows = sy_conn_tables_flows(w);
	struct rte_hash_parameters hp = {
		.entries = flows,
		.key_len = sizeof(struct sy_flow_key),
		.hash_func = rte_hash_crc, /* = sy_flow_hash() */
		.hash_func_init_val = SY_FLOW_HASH_INIT,
		.socket_id = (int)rte_socket_id(),
		/* One writer (this worker) and no concurrent reader: no locks.
		 * The extendable table keeps an unlucky bucket from refusing a key. */
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	unsigned n = w->sh->n_workers, p, k, set = __atomic_fetch_add(&seq, 1, __ATOMIC_RELAXED);
	bool v6 = false;
	int rc;

	/* IPv6 clients or backends: a hash of their own, and each record's
	 * IPv6 side beside it, only when a port speaks IPv6. */
	for (p = 0; p < w->sh->n_ports; p++)
		v6 |= w->sh->ports[p].n_ipv6 > 0;
	snprintf(name, sizeof(name), "sy_flows_%u_%u", set, w->id);
	hp.name = name;
	t->flows = rte_hash_create(&hp);
	rc = sy_conn_arena_init(&t->conns, flows, v6, (int)rte_socket_id());
	snprintf(name, sizeof(name), "sy_peek_%u_%u", set, w->id);
	/* No per-lcore cache: only this worker gets and puts. */
	t->peeks = rte_mempool_create(name, SY_PEEK_BUFS, sizeof(struct sy_peek_buf), 0, 0, NULL,
				      NULL, NULL, NULL, (int)rte_socket_id(),
				      RTE_MEMPOOL_F_SP_PUT | RTE_MEMPOOL_F_SC_GET);
	/* Source address indexes: the most IPv4 addresses a port has (what
	 * sy_snat_index searches), and the most of either family (the
	 * free-port FIFOs and the rows of the port -> record array: an IPv6
	 * leg of index k takes k's ports and k's row, snat.h). */
	t->n_src = 1;
	t->n_fifo = 1;
	t->n_src_addr = 0;
	for (p = 0; p < w->sh->n_ports; p++) {
		const struct sy_dp_port *dp = &w->sh->ports[p];

		if (dp->n_ipv4 > t->n_src)
			t->n_src = (uint8_t)dp->n_ipv4;
		if (dp->n_ipv4 > t->n_fifo)
			t->n_fifo = (uint8_t)dp->n_ipv4;
		if (dp->n_ipv6 > t->n_fifo)
			t->n_fifo = (uint8_t)dp->n_ipv6;
		for (k = 0; k < dp->n_ipv4; k++) {
			t->src_addr[t->n_src_addr] = dp->ipv4[k];
			t->src_k[t->n_src_addr++] = (uint8_t)k;
		}
	}
	t->port_cap = (65536 - SY_SNAT_PORT_MIN) / n + 1;
	t->ports = rte_malloc("sy_snat_ports", (size_t)t->n_fifo * t->port_cap * sizeof(uint16_t), 0);
	t->snat_row = sy_snat_slots(n);
	t->snat_conn = rte_zmalloc_socket("sy_snat_conn",
					  (size_t)t->n_fifo * t->snat_row * sizeof(*t->snat_conn),
					  RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	t->snat_div = rte_reciprocal_value(n);
	t->route_ctr = rte_zmalloc_socket("sy_route_ctr",
					  SY_ROUTE_STAT_SLOTS * sizeof(struct sy_route_ctr),
					  RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	t->backend_ctr = rte_zmalloc_socket("sy_backend_ctr",
					    SY_BACKEND_STAT_SLOTS * sizeof(struct sy_backend_ctr),
					    RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	t->conn_stats = rte_zmalloc_socket("sy_conn_stats", (size_t)flows * sizeof(*t->conn_stats),
					   RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	t->src_slots = rte_zmalloc_socket("sy_src_slots", SY_SRC_SLOTS * sizeof(*t->src_slots),
					  RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	if (w->sh->pp_on &&
	    (t->pp_src = rte_zmalloc_socket("sy_pp_src", (size_t)flows * sizeof(*t->pp_src),
					    RTE_CACHE_LINE_SIZE, (int)rte_socket_id())) == NULL)
		return -ENOMEM;
	if (v6) {
		struct rte_hash_parameters hp6 = hp;

		snprintf(name, sizeof(name), "sy_flows6_%u_%u", set, w->id);
		hp6.name = name;
		hp6.key_len = sizeof(struct sy_flow_key6);
		/* A record may have two IPv6 keys, its client leg's and its
		 * backend leg's: a table each, of a key a record. One table of
		 * two (as before) had twice the buckets for every SYN's lookup
		 * to miss in (the IPv6 SYN cost 1.3 to 2 times IPv4's from
		 * outside, its time in rte_hash 3 times as large, measured). */
		t->flows6 = rte_hash_create(&hp6);
		snprintf(name, sizeof(name), "sy_flows6b_%u_%u", set, w->id);
		t->flows6_b = rte_hash_create(&hp6);
		if (t->flows6 == NULL || t->flows6_b == NULL)
			return -ENOMEM;
	}
	t->cache_mask = sy_flow_cache_slots(flows) - 1;
	t->client_cache = rte_zmalloc_socket("sy_flow_cache",
					     ((size_t)t->cache_mask + 1) * sizeof(*t->client_cache),
					     RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	if (t->flows == NULL || rc != 0 || t->peeks == NULL || t->ports == NULL ||
	    t->snat_conn == NULL || t->route_ctr == NULL || t->backend_ctr == NULL ||
	    t->conn_stats == NULL || t->src_slots == NULL || t->client_cache == NULL)
		return -ENOMEM; /* the caller's sy_conn_tables_fini frees the rest */
	for (k = 0; k < t->n_fifo; k++) {
		uint16_t *q = t->ports + (size_t)k * t->port_cap;

		t->port_q[k].head = 0;
		t->port_q[k].count = 0;
		for (p = SY_SNAT_PORT_MIN; p < 65536; p++)
			if (p % n == w->id)
				q[t->port_q[k].count++] = (uint16_t)p;
	}
	t->tick_tsc = w->sh->tsc_per_ms * SY_WHEEL_TICK_MS;
	/* The wheel starts at the worker's clock, not at the end of this setup: allocating the
	 * tables can take milliseconds, and a wheel ahead of w->now would fire timers late. */
	t->wheel_tick = w->now / t->tick_tsc;
	t->rng = 0x9e3779b97f4a7c15ull ^ ((uint64_t)w->id << 32) ^ rte_rdtsc();
	return 0;
}

void
sy_conn_free_all(struct sy_worker *w)
{
	struct sy_conn_tables *t = &w->tcp;
	unsigned i;

	/* Free every live record (and so its held mbufs) through the wheel:
	 * every record has a timer in every state. */
	for (i = 0; i < SY_WHEEL_SLOTS; i++)
		while (t->wheel[i] != NULL)
			sy_conn_free(w, t->wheel[i]);
}

void
sy_conn_tables_fini(struct sy_worker *w)
{
	struct sy_conn_tables *t = &w->tcp;

	sy_conn_free_all(w);
	rte_hash_free(t->flows);
	rte_hash_free(t->flows6);
	rte_hash_free(t->flows6_b);
	sy_conn_arena_fini(&t->conns);
	rte_mempool_free(t->peeks);
	rte_free(t->ports);
	rte_free(t->snat_conn);
	rte_free(t->client_cache);
	rte_free(t->route_ctr);
	t->route_ctr = NULL;
	rte_free(t->backend_ctr);
	t->backend_ctr = NULL;
	rte_free(t->conn_stats);
	t->conn_stats = NULL;
	rte_free(t->src_slots);
	t->src_slots = NULL;
	rte_free(t->pp_src);
	t->pp_src = NULL;
	memset(t, 0, sizeof(*t));
}
struct sy_conn *
sy_conn_alloc(struct sy_worker *w)
{
	struct sy_conn *c = w->tcp.conns.free;

	if (c == NULL)
		return NULL;
	w->tcp.conns.free = c->tnext;
	memset(c, 0, sizeof(*c));
	w->counters.flows_active++;
	w->counters.conns_opened++;
	return c;
}

struct sy_peek_buf *
sy_peek_alloc(struct sy_worker *w)
{
	void *obj;

	if (rte_mempool_get(w->tcp.peeks, &obj) < 0)
		return NULL;
	memset(obj, 0, sizeof(struct sy_peek_buf));
	return obj;
}

void
sy_peek_release_segments(struct sy_worker *w, struct sy_peek_buf *p)
{
	unsigned i;

	for (i = 0; i < p->n_seg; i++)
		rte_pktmbuf_free(p->seg[i]);
	for (i = 0; i < p->n_ooo; i++)
		rte_pktmbuf_free(p->ooo[i]);
	p->n_seg = 0;
	p->n_ooo = 0;
	p->bytes = 0;
}

void
sy_peek_free(struct sy_worker *w, struct sy_peek_buf *p)
{
	if (p == NULL)
		return;
	sy_peek_release_segments(w, p);
	rte_mempool_put(w->tcp.peeks, p);
}

void
sy_conn_free(struct sy_worker *w, struct sy_conn *c)
{
	struct sy_flow_key k;

	if (sy_conn_client_v6(c)) {
		sy_flow_del6(w, c);
	} else {
		sy_flow_key_v4(&k, c->client_ip, c->vip, c->client_port, c->vip_port);
		sy_flow_del(w, &k, c);
	}
	if (c->flags & SY_CF_BACKEND_KEY)
		sy_flow_backend_del(w, c);
	if (c->snat_port != 0)
		sy_snat_release(w, c);
	sy_conn_timer_cancel(w, c);
	sy_peek_free(w, c->peek);
	c->peek = NULL;
	if (w->tcp.pp_src != NULL)
		w->tcp.pp_src[sy_conn_index(&w->tcp.conns, c)].set = false;
	/* What the mode holds for c: its state, the other leg, the counts
	 * (conn/conn_ops.h, release). */
	sy_conn_ops_of(c)->release(w, c);
	/* A segment later in the burst may still hold c (splice_fast.c): state
	 * 0 tells it the record is gone. */
	c->state = 0;
	c->tnext = w->tcp.conns.free;
	w->tcp.conns.free = c;
	w->counters.flows_active--;
	w->counters.conns_closed++;
}

bool
sy_backend_leg_input(struct sy_worker *w, struct sy_conn *c, struct sy_tcb *t, struct rte_mbuf *m)
{
	if (!sy_l4_cksum_ok(m)) {
		sy_drop(w, m, SY_DROP_TCP_BAD_CHECKSUM);
		return false;
	}
	c->last_seen = sy_conn_seen(w->now);
	sy_tcb_input(w, t, m);
	sy_tcb_stale_ack_retry(w, t);
	return true;
}

int
sy_backend_leg_open(struct sy_worker *w, const struct sy_addr *ip, uint16_t port, uint8_t state,
		    struct sy_tcb *t, struct sy_conn **out, uint16_t *mss)
{
	const bool v6 = ip->family == AF_INET6;
	struct sy_fib_result fr;
	const struct sy_dp_port *bp;
	struct sy_conn *bc;
	uint16_t p;

	if (sy_fib_lookup(w->sh->fib, ip, &fr) < 0 ||
	    (v6 ? w->sh->ports[fr.port].n_ipv6 : w->sh->ports[fr.port].n_ipv4) == 0)
		return SY_ANSWER_BACKEND_NO_ROUTE;
	bc = sy_conn_alloc(w);
	if (bc == NULL)
		return SY_ANSWER_FLOW_TABLE_FULL; /* all flows_per_worker records in use */
	bp = &w->sh->ports[fr.port];
	if (v6) {
		bc->flags |= SY_CF_V6;
		bc->v6 = SY_V6_BACKEND;
	}
	/* An IPv6 leg: one of the port's IPv6 addresses, in turn, and a
	 * port of its index (conn/snat.h, sy_snat_get6). */
	p = v6 ? sy_snat_get6(w, bp, &sy_conn_v6_of(&w->tcp, bc)->snat_k)
	       : sy_snat_get(w, bp, &bc->snat_ip);
	if (p == 0) {
		sy_conn_free(w, bc);
		return SY_ANSWER_SNAT_PORTS_EXHAUSTED;
	}
	bc->snat_port = rte_cpu_to_be_16(p);
	bc->backend_port = port;
	bc->backend_if = (uint8_t)fr.port;
	bc->state = state;
	bc->proto = SY_CONN_HTTP;
	memset(t, 0, sizeof(*t));
	if (v6) {
		struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, bc);

		memcpy(a->backend, ip->v6, 16);
		memcpy(a->snat, bp->ipv6[a->snat_k], 16);
		sy_conn_v6_set_nh(bc, a, SY_LEG_BACKEND, fr.nexthop.v6, fr.nh_id + 1);
		bc->backend_ip = sy_addr6_fold(a->backend);
		t->v6 = true;
		memcpy(t->saddr6, a->snat, 16);
		memcpy(t->daddr6, a->backend, 16);
		memcpy(t->nh6, a->backend_nh, 16);
		*mss = (uint16_t)(bp->mtu - 60);
	} else {
		bc->backend_ip = ip->v4;
		bc->backend_nh = fr.nexthop.v4;
		t->nh = fr.nexthop.v4;
		*mss = (uint16_t)(bp->mtu - 40);
	}
	sy_flow_backend_add(w, bc);
	t->saddr = bc->snat_ip;
	t->daddr = bc->backend_ip;
	t->sport = bc->snat_port;
	t->dport = port;
	t->out_if = fr.port;
	*out = bc;
	return 0;
}
