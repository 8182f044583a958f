/* SPDX-License-Identifier: BSD-3-Clause */
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

#include "dp_log.h"
#include "observe/conn_stats.h"
#include "sy_backend_stats.h"
#include "sy_route_stats.h"
#include "net/fib.h"
#include "tcp/tcb.h"
#include "proxy/proxy.h"
#include "splice/flow.h"
#include "tls/tls.h"
#include "splice/splice.h"
#include "worker.h"
#include "lb/hc_probe.h"
#include "lb/lb.h"

int
sy_conn_arena_init(struct sy_conn_arena *a, uint32_t n, int socket)
{
	uint32_t i;

	a->rec = rte_zmalloc_socket("sy_conns", (size_t)n * sizeof(struct sy_conn),
				    RTE_CACHE_LINE_SIZE, socket);
	a->free = NULL;
	a->n = 0;
	if (a->rec == NULL)
		return -ENOMEM;
	a->n = n;
	/* The first records first: a lightly loaded worker keeps its few
	 * records together. */
	for (i = n; i-- > 0;) {
		a->rec[i].tnext = a->free;
		a->free = &a->rec[i];
	}
	return 0;
}

void
sy_conn_arena_fini(struct sy_conn_arena *a)
{
	rte_free(a->rec);
	a->rec = NULL;
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

int
sy_tcp_worker_init(struct sy_worker *w)
{
	struct sy_tcp_worker *t = &w->tcp;
	static unsigned seq;
	char name[RTE_MEMPOOL_NAMESIZE];
	uint32_t flows = w->sh->flows_per_worker != 0 ? w->sh->flows_per_worker
						      : SY_FLOWS_PER_WORKER_DEFAULT;
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
	int rc;

	snprintf(name, sizeof(name), "sy_flows_%u_%u", set, w->id);
	hp.name = name;
	t->flows = rte_hash_create(&hp);
	rc = sy_conn_arena_init(&t->conns, flows, (int)rte_socket_id());
	snprintf(name, sizeof(name), "sy_peek_%u_%u", set, w->id);
	/* No per-lcore cache: only this worker gets and puts. */
	t->peeks = rte_mempool_create(name, SY_PEEK_BUFS, sizeof(struct sy_peek_buf), 0, 0, NULL,
				      NULL, NULL, NULL, (int)rte_socket_id(),
				      RTE_MEMPOOL_F_SP_PUT | RTE_MEMPOOL_F_SC_GET);
	snprintf(name, sizeof(name), "sy_px_%u", w->id);
	t->proxies = rte_mempool_create(name, SY_PROXY_MAX, sizeof(struct sy_proxy), 0, 0, NULL,
					NULL, NULL, NULL, (int)rte_socket_id(),
					RTE_MEMPOOL_F_SP_PUT | RTE_MEMPOOL_F_SC_GET);
	/* Source address indexes: the most IPv4 addresses a port has. */
	t->n_src = 1;
	t->n_src_addr = 0;
	for (p = 0; p < w->sh->n_ports; p++) {
		const struct sy_dp_port *dp = &w->sh->ports[p];

		if (dp->n_ipv4 > t->n_src)
			t->n_src = (uint8_t)dp->n_ipv4;
		for (k = 0; k < dp->n_ipv4; k++) {
			t->src_addr[t->n_src_addr] = dp->ipv4[k];
			t->src_k[t->n_src_addr++] = (uint8_t)k;
		}
	}
	t->port_cap = (65536 - SY_SNAT_PORT_MIN) / n + 1;
	t->ports = rte_malloc("sy_snat_ports", (size_t)t->n_src * t->port_cap * sizeof(uint16_t), 0);
	t->snat_row = sy_snat_slots(n);
	t->snat_conn = rte_zmalloc_socket("sy_snat_conn",
					  (size_t)t->n_src * t->snat_row * sizeof(*t->snat_conn),
					  RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	t->snat_div = rte_reciprocal_value(n);
	t->buckets = rte_zmalloc_socket("sy_px_buckets", SY_PX_BUCKETS * sizeof(*t->buckets),
					RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	t->route_ctr = rte_zmalloc_socket("sy_route_ctr",
					  SY_ROUTE_STAT_SLOTS * sizeof(struct sy_route_ctr),
					  RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	t->backend_ctr = rte_zmalloc_socket("sy_backend_ctr",
					    SY_BACKEND_STAT_SLOTS * sizeof(struct sy_backend_ctr),
					    RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	t->conn_stats = rte_zmalloc_socket("sy_conn_stats", (size_t)flows * sizeof(*t->conn_stats),
					   RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	t->cache_mask = sy_flow_cache_slots(flows) - 1;
	t->client_cache = rte_zmalloc_socket("sy_flow_cache",
					     ((size_t)t->cache_mask + 1) * sizeof(*t->client_cache),
					     RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	if (t->flows == NULL || rc != 0 || t->peeks == NULL || t->proxies == NULL ||
	    t->ports == NULL || t->buckets == NULL || t->snat_conn == NULL || t->route_ctr == NULL ||
	    t->backend_ctr == NULL || t->conn_stats == NULL ||
	    t->client_cache == NULL || px_idle_init(w) < 0 || sy_tls_worker_init(w) < 0 || sy_hc_init(w) < 0) {
		SY_DP_LOG(ERR,
			  "worker %u: connection tables for flows_per_worker %u (about %zu MB): %s",
			  w->id, flows, sy_flow_mem_estimate(flows) >> 20, rte_strerror(rte_errno));
		sy_tcp_worker_fini(w);
		return -ENOMEM;
	}
	for (k = 0; k < t->n_src; k++) {
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
	t->time_wait_max = flows / SY_PX_TIME_WAIT_SHARE;
	return 0;
}

void
sy_tcp_worker_fini(struct sy_worker *w)
{
	struct sy_tcp_worker *t = &w->tcp;
	unsigned i;

	/* Free every live record (and so its held mbufs) through the wheel:
	 * every record has a timer in every state. */
	for (i = 0; i < SY_WHEEL_SLOTS; i++)
		while (t->wheel[i] != NULL)
			sy_conn_free(w, t->wheel[i]);
	rte_hash_free(t->flows);
	sy_conn_arena_fini(&t->conns);
	rte_mempool_free(t->peeks);
	rte_mempool_free(t->proxies);
	rte_free(t->ports);
	rte_free(t->snat_conn);
	rte_free(t->client_cache);
	rte_free(t->buckets);
	t->buckets = NULL;
	rte_free(t->route_ctr);
	t->route_ctr = NULL;
	rte_free(t->backend_ctr);
	t->backend_ctr = NULL;
	rte_free(t->conn_stats);
	t->conn_stats = NULL;
	px_idle_fini(w);
	sy_tls_worker_fini(w);
	sy_hc_fini(w);
	memset(t, 0, sizeof(*t));
}

struct sy_conn *
sy_flow_lookup(struct sy_worker *w, const struct sy_flow_key *k)
{
	void *data;

	if (rte_hash_lookup_data(w->tcp.flows, k, &data) < 0)
		return NULL;
	return data;
}

int
sy_flow_add(struct sy_worker *w, const struct sy_flow_key *k, struct sy_conn *c)
{
	hash_sig_t sig = sy_flow_hash(k);
	uint64_t *pair = sy_flow_cache_pair(&w->tcp, sig);
	uint64_t e = (uint64_t)(uintptr_t)c | sy_flow_cache_tag(sig);
	int rc = rte_hash_add_key_with_hash_data(w->tcp.flows, k, sig, c);

	if (rc < 0 || ((uintptr_t)c >> 48) != 0)
		return rc;
	/* An empty slot of the pair, else the first: the record it held is
	 * still found through the hash. */
	if (pair[0] == 0)
		pair[0] = e;
	else if (pair[1] == 0)
		pair[1] = e;
	else
		pair[0] = e;
	return 0;
}

void
sy_flow_del(struct sy_worker *w, const struct sy_flow_key *k, const struct sy_conn *c)
{
	hash_sig_t sig = sy_flow_hash(k);
	uint64_t *pair = sy_flow_cache_pair(&w->tcp, sig);
	uint64_t e = (uint64_t)(uintptr_t)c | sy_flow_cache_tag(sig);

	if (pair[0] == e)
		pair[0] = 0;
	if (pair[1] == e)
		pair[1] = 0;
	(void)rte_hash_del_key_with_hash(w->tcp.flows, k, sig);
}

void
sy_flow_backend_add(struct sy_worker *w, struct sy_conn *c)
{
	*sy_snat_slot(&w->tcp, c->snat_ip, c->snat_port) = c;
	c->flags |= SY_CF_BACKEND_KEY;
}

void
sy_flow_backend_del(struct sy_worker *w, struct sy_conn *c)
{
	struct sy_conn **slot = sy_snat_slot(&w->tcp, c->snat_ip, c->snat_port);

	if (*slot == c)
		*slot = NULL;
	c->flags &= (uint8_t)~SY_CF_BACKEND_KEY;
}

struct sy_conn *
sy_flow_find(struct sy_worker *w, uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport,
	     bool *from_client)
{
	struct sy_flow_key k;
	struct sy_conn *c;

	/* A backend leg first: no hashing. A client segment whose port
	 * happens to be in the SNAT range fails the full tuple compare. */
	c = sy_flow_backend_lookup(&w->tcp, saddr, daddr, sport, dport);
	if (c != NULL) {
		*from_client = false;
		return c;
	}
	sy_flow_key_v4(&k, saddr, daddr, sport, dport);
	*from_client = true;
	return sy_flow_lookup(w, &k);
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

	sy_flow_key_v4(&k, c->client_ip, c->vip, c->client_port, c->vip_port);
	sy_flow_del(w, &k, c);
	if (c->flags & SY_CF_BACKEND_KEY)
		sy_flow_backend_del(w, c);
	if (c->snat_port != 0)
		sy_snat_put(w, c->snat_ip, rte_be_to_cpu_16(c->snat_port));
	sy_lb_load_clear(w, c);
	sy_conn_stats_end(w, c);
	sy_conn_timer_cancel(w, c);
	sy_peek_free(w, c->peek);
	c->peek = NULL;
	if (c->px != NULL)
		sy_proxy_release(w, c);
	if (c->idle != NULL)
		sy_proxy_idle_release(w, c);
	if (c->state == SY_CONN_PROXY_TIME_WAIT)
		sy_proxy_time_wait_release(w, c);
	if (c->probe != NULL)
		sy_hc_release(w, c);
	/* A segment later in the burst may still hold c (splice_fast.c): state
	 * 0 tells it the record is gone. */
	c->state = 0;
	c->tnext = w->tcp.conns.free;
	w->tcp.conns.free = c;
	w->counters.flows_active--;
	w->counters.conns_closed++;
}

int
sy_backend_leg_open(struct sy_worker *w, uint32_t ip, uint16_t port, uint8_t state,
		    struct sy_tcb *t, struct sy_conn **out, uint16_t *mss)
{
	struct sy_fib_result fr;
	struct sy_addr dst = sy_addr_v4(ip);
	const struct sy_dp_port *bp;
	struct sy_conn *bc;
	uint16_t p;

	if (sy_fib_lookup(w->sh->fib, &dst, &fr) < 0 || w->sh->ports[fr.port].n_ipv4 == 0)
		return SY_ANSWER_BACKEND_NO_ROUTE;
	bc = sy_conn_alloc(w);
	if (bc == NULL)
		return SY_ANSWER_FLOW_TABLE_FULL; /* all flows_per_worker records in use */
	bp = &w->sh->ports[fr.port];
	p = sy_snat_get(w, bp, &bc->snat_ip);
	if (p == 0) {
		sy_conn_free(w, bc);
		return SY_ANSWER_SNAT_PORTS_EXHAUSTED;
	}
	bc->snat_port = rte_cpu_to_be_16(p);
	bc->backend_ip = ip;
	bc->backend_port = port;
	bc->backend_if = (uint8_t)fr.port;
	bc->backend_nh = fr.nexthop.v4;
	bc->state = state;
	bc->proto = SY_CONN_HTTP;
	sy_flow_backend_add(w, bc);
	memset(t, 0, sizeof(*t));
	t->saddr = bc->snat_ip;
	t->daddr = ip;
	t->sport = bc->snat_port;
	t->dport = port;
	t->out_if = fr.port;
	t->nh = fr.nexthop.v4;
	*mss = (uint16_t)(bp->mtu - 40);
	*out = bc;
	return 0;
}

uint16_t
sy_snat_get(struct sy_worker *w, const struct sy_dp_port *out, uint32_t *addr)
{
	struct sy_tcp_worker *t = &w->tcp;
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
	struct sy_tcp_worker *t = &w->tcp;
	unsigned k = sy_snat_index(t, addr);

	if (t->port_q[k].count == t->port_cap)
		return;
	t->ports[(size_t)k * t->port_cap + (t->port_q[k].head + t->port_q[k].count) % t->port_cap] =
		port;
	t->port_q[k].count++;
}

void
sy_conn_timer_cancel(struct sy_worker *w, struct sy_conn *c)
{
	if (!(c->flags & SY_CF_TIMER))
		return;
	*c->tprev = c->tnext;
	if (c->tnext != NULL)
		c->tnext->tprev = c->tprev;
	c->tnext = NULL;
	c->tprev = NULL;
	c->flags &= (uint8_t)~SY_CF_TIMER;
}

void
sy_conn_timer_set(struct sy_worker *w, struct sy_conn *c, uint64_t when)
{
	struct sy_tcp_worker *t = &w->tcp;
	/* Round up: the slot is visited once its tick has begun, and by then
	 * `when` must have passed, or the entry would wait a whole lap. */
	uint64_t tick = (when + t->tick_tsc - 1) / t->tick_tsc;
	struct sy_conn **slot;

	sy_conn_timer_cancel(w, c);
	/* Never behind the hand: a past deadline fires on the next run. */
	if (tick < t->wheel_tick)
		tick = t->wheel_tick;
	slot = &t->wheel[tick & (SY_WHEEL_SLOTS - 1)];
	c->expire = when;
	c->tnext = *slot;
	if (*slot != NULL)
		(*slot)->tprev = &c->tnext;
	c->tprev = slot;
	*slot = c;
	c->flags |= SY_CF_TIMER;
}

unsigned
sy_tcp_timers_run(struct sy_worker *w)
{
	struct sy_tcp_worker *t = &w->tcp;
	uint64_t now_tick = w->now / t->tick_tsc;
	unsigned fired = 0, steps = 0;

	/* Bounded catch-up: after a long stall, one lap covers every slot. */
	while (t->wheel_tick <= now_tick && steps++ < SY_WHEEL_SLOTS) {
		struct sy_conn **slot = &t->wheel[t->wheel_tick & (SY_WHEEL_SLOTS - 1)];
		struct sy_conn *c = *slot, *next;

		for (; c != NULL; c = next) {
			next = c->tnext;
			if (c->expire > w->now)
				continue; /* a later lap: stays in its slot */
			sy_conn_timer_cancel(w, c);
			/* May free c, or re-arm it (into another slot, or
			 * this one at the head: `next` is already saved). */
			sy_splice_timeout(w, c);
			fired++;
		}
		t->wheel_tick++;
	}
	if (t->wheel_tick <= now_tick)
		t->wheel_tick = now_tick; /* skipped laps: everything was visited once */
	return fired;
}
