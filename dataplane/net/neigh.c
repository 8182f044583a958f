/* SPDX-License-Identifier: BSD-3-Clause */
/* Neighbour tables (net/neigh.h): the states, the held packets, the timers
 * and the updates between workers, for ARP and IPv6 alike. */
#include <string.h>

#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring_elem.h>

#include "net/arp.h"
#include "net/nd.h"
#include "net/neigh.h"
#include "net/net.h"
#include "worker.h"

#define SY_NEIGH_DRAIN_BURST 32

void
sy_neigh_init(struct sy_neigh_table *t, uint8_t family)
{
	memset(t, 0, sizeof(*t));
	t->family = family;
}

static inline struct sy_neigh_table *
table_of(struct sy_worker *w, uint8_t family)
{
	return family == AF_INET6 ? &w->nd : &w->arp;
}

static inline struct sy_neigh_entry *
neigh_bucket(struct sy_neigh_table *t, uint16_t port, const uint8_t addr[16])
{
	uint32_t lo, hi;

	/* Multiplicative hash of the address's last eight bytes (IPv4: the
	 * first four): neighbours on one subnet differ in the low bits,
	 * which the multiply spreads. */
	memcpy(&lo, addr, 4);
	memcpy(&hi, addr + 12, 4);
	lo ^= hi ^ ((uint32_t)addr[11] << 8) ^ ((uint32_t)port << 24);
	lo = __builtin_bswap32(lo) * 2654435761u;
	return t->e[(lo >> 16) & (SY_NEIGH_BUCKETS - 1)];
}

struct sy_neigh_entry *
sy_neigh_find(struct sy_neigh_table *t, uint16_t port, const uint8_t addr[16])
{
	struct sy_neigh_entry *b = neigh_bucket(t, port, addr);
	unsigned i;

	for (i = 0; i < SY_NEIGH_WAYS; i++)
		if (b[i].state != SY_NEIGH_FREE && b[i].port == port &&
		    memcmp(b[i].addr, addr, 16) == 0)
			return &b[i];
	return NULL;
}

static void
neigh_entry_clear(struct sy_neigh_entry *e)
{
	memset(e, 0, sizeof(*e));
}

/* A free way of the bucket, or else the least recently confirmed entry that
 * holds no packets; NULL when every way is resolving with packets queued
 * (those are what bounds memory, so they are never evicted). */
static struct sy_neigh_entry *
neigh_alloc(struct sy_neigh_table *t, uint16_t port, const uint8_t addr[16])
{
	struct sy_neigh_entry *b = neigh_bucket(t, port, addr);
	struct sy_neigh_entry *victim = NULL;
	unsigned i;

	for (i = 0; i < SY_NEIGH_WAYS; i++) {
		if (b[i].state == SY_NEIGH_FREE) {
			victim = &b[i];
			break;
		}
		if (b[i].n_pending == 0 && (victim == NULL || b[i].confirmed < victim->confirmed))
			victim = &b[i];
	}
	if (victim == NULL)
		return NULL;
	neigh_entry_clear(victim);
	memcpy(victim->addr, addr, 16);
	victim->port = port;
	return victim;
}

static enum sy_drop_reason
pending_full_reason(const struct sy_neigh_table *t)
{
	return t->family == AF_INET6 ? SY_DROP_ND_PENDING_FULL : SY_DROP_ARP_PENDING_FULL;
}

static enum sy_drop_reason
unresolved_reason(const struct sy_neigh_table *t)
{
	return t->family == AF_INET6 ? SY_DROP_ND_UNRESOLVED : SY_DROP_ARP_UNRESOLVED;
}

static void
neigh_pending_drop(struct sy_worker *w, struct sy_neigh_table *t, struct sy_neigh_entry *e)
{
	unsigned i;

	for (i = 0; i < e->n_pending; i++)
		sy_drop(w, e->pending[i], unresolved_reason(t));
	t->n_pending -= e->n_pending;
	e->n_pending = 0;
}

static void
neigh_pending_release(struct sy_worker *w, struct sy_neigh_table *t, struct sy_neigh_entry *e)
{
	unsigned i;

	for (i = 0; i < e->n_pending; i++) {
		struct rte_mbuf *m = e->pending[i];
		struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

		rte_ether_addr_copy(&e->mac, &eh->dst_addr);
		sy_tx(w, e->port, m);
	}
	t->n_pending -= e->n_pending;
	e->n_pending = 0;
}

/* Ask who has e's address: an ARP request, or a neighbour solicitation
 * (to the solicited-node group while INCOMPLETE, to the MAC we hold while
 * STALE, as RFC 4861 7.3.3's PROBE does). */
static void
neigh_ask(struct sy_worker *w, const struct sy_neigh_table *t, const struct sy_neigh_entry *e)
{
	if (t->family == AF_INET6) {
		sy_nd_solicit(w, e->port, e->addr,
			      e->state == SY_NEIGH_STALE ? &e->mac : NULL);
	} else {
		uint32_t ip;

		memcpy(&ip, e->addr, sizeof(ip));
		sy_arp_request(w, e->port, ip);
	}
}

/* Record a confirmed mapping and send what waited for it. */
static void
neigh_learn(struct sy_worker *w, struct sy_neigh_table *t, uint16_t port, const uint8_t addr[16],
	    const struct rte_ether_addr *mac)
{
	struct sy_neigh_entry *e = sy_neigh_find(t, port, addr);

	if (e == NULL)
		e = neigh_alloc(t, port, addr);
	if (e == NULL)
		return; /* bucket busy resolving: it will be learned again */
	rte_ether_addr_copy(mac, &e->mac);
	e->state = SY_NEIGH_REACHABLE;
	e->confirmed = w->now;
	e->probes = 0;
	neigh_pending_release(w, t, e);
}

/* Tell the other workers; a full ring loses the update, and that worker
 * resolves the neighbour itself when it needs it. */
static void
neigh_post_update(struct sy_worker *w, const struct sy_neigh_table *t, uint16_t port,
		  const uint8_t addr[16], const struct rte_ether_addr *mac)
{
	struct sy_neigh_update u = { .port = port, .family = t->family };
	unsigned i;

	memcpy(u.addr, addr, 16);
	rte_ether_addr_copy(mac, &u.mac);
	for (i = 0; i < w->sh->n_workers; i++)
		if (i != w->id && w->sh->nb_ring[i] != NULL)
			(void)rte_ring_mp_enqueue_elem(w->sh->nb_ring[i], &u, sizeof(u));
}

void
sy_neigh_confirm(struct sy_worker *w, struct sy_neigh_table *t, uint16_t port,
		 const uint8_t addr[16], const struct rte_ether_addr *mac)
{
	neigh_learn(w, t, port, addr, mac);
	neigh_post_update(w, t, port, addr, mac);
}

void
sy_neigh_output(struct sy_worker *w, struct sy_neigh_table *t, uint16_t port,
		const uint8_t addr[16], struct rte_mbuf *m)
{
	struct sy_neigh_entry *e = sy_neigh_find(t, port, addr);

	if (likely(e != NULL && e->state != SY_NEIGH_INCOMPLETE)) {
		/* REACHABLE, or STALE: keep using the old MAC while the timer
		 * asks again. */
		struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

		rte_ether_addr_copy(&e->mac, &eh->dst_addr);
		sy_tx(w, port, m);
		return;
	}
	if (e == NULL) {
		e = neigh_alloc(t, port, addr);
		if (e == NULL) {
			sy_drop(w, m, pending_full_reason(t));
			return;
		}
		e->state = SY_NEIGH_INCOMPLETE;
		e->probes = 1;
		e->deadline = w->now + sy_ms_to_tsc(w, SY_NEIGH_RETRY_MS);
		neigh_ask(w, t, e);
	}
	if (e->n_pending >= SY_NEIGH_PENDING_PER_NH || t->n_pending >= SY_NEIGH_PENDING_MAX) {
		sy_drop(w, m, pending_full_reason(t));
		return;
	}
	e->pending[e->n_pending++] = m;
	t->n_pending++;
}

const struct rte_ether_addr *
sy_neigh_lookup(struct sy_neigh_table *t, uint16_t port, const uint8_t addr[16])
{
	struct sy_neigh_entry *e = sy_neigh_find(t, port, addr);

	if (e == NULL || e->state == SY_NEIGH_INCOMPLETE)
		return NULL;
	return &e->mac;
}

unsigned
sy_neigh_drain_updates(struct sy_worker *w)
{
	struct sy_neigh_update u[SY_NEIGH_DRAIN_BURST];
	struct rte_ring *r = w->sh->nb_ring[w->id];
	unsigned n, i;

	if (r == NULL)
		return 0;
	n = rte_ring_sc_dequeue_burst_elem(r, u, sizeof(u[0]), SY_NEIGH_DRAIN_BURST, NULL);
	/* The posting worker already checked the mapping; not re-posted, so
	 * an update crosses the ring once. */
	for (i = 0; i < n; i++)
		neigh_learn(w, table_of(w, u[i].family), u[i].port, u[i].addr, &u[i].mac);
	return n;
}

static void
table_timer(struct sy_worker *w, struct sy_neigh_table *t)
{
	const uint64_t retry = sy_ms_to_tsc(w, SY_NEIGH_RETRY_MS);
	const uint64_t reachable = sy_ms_to_tsc(w, SY_NEIGH_REACHABLE_MS);
	const uint64_t stale = sy_ms_to_tsc(w, SY_NEIGH_STALE_TIMEOUT_MS);
	const uint64_t now = w->now;
	unsigned b, i;

	for (b = 0; b < SY_NEIGH_BUCKETS; b++) {
		for (i = 0; i < SY_NEIGH_WAYS; i++) {
			struct sy_neigh_entry *e = &t->e[b][i];

			switch (e->state) {
			case SY_NEIGH_INCOMPLETE:
				if (now < e->deadline)
					break;
				if (e->probes >= SY_NEIGH_MAX_PROBES) {
					neigh_pending_drop(w, t, e);
					neigh_entry_clear(e);
					break;
				}
				e->probes++;
				e->deadline = now + retry;
				neigh_ask(w, t, e);
				break;
			case SY_NEIGH_REACHABLE:
				if (now - e->confirmed < reachable)
					break;
				e->state = SY_NEIGH_STALE;
				e->probes = 1;
				e->deadline = now + retry;
				neigh_ask(w, t, e);
				break;
			case SY_NEIGH_STALE:
				if (now - e->confirmed >= reachable + stale) {
					neigh_entry_clear(e);
					break;
				}
				if (now < e->deadline)
					break;
				e->probes++;
				e->deadline = now + retry;
				neigh_ask(w, t, e);
				break;
			default:
				break;
			}
		}
	}
}

void
sy_neigh_timer(struct sy_worker *w)
{
	table_timer(w, &w->arp);
	table_timer(w, &w->nd);
}

static void
table_flush(struct sy_worker *w, struct sy_neigh_table *t)
{
	unsigned b, i;

	for (b = 0; b < SY_NEIGH_BUCKETS; b++)
		for (i = 0; i < SY_NEIGH_WAYS; i++) {
			struct sy_neigh_entry *e = &t->e[b][i];

			if (e->n_pending)
				neigh_pending_drop(w, t, e);
			neigh_entry_clear(e);
		}
}

void
sy_neigh_flush_all(struct sy_worker *w)
{
	table_flush(w, &w->arp);
	table_flush(w, &w->nd);
}
