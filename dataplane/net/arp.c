/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>
#include <rte_ring_elem.h>

#include "net/arp.h"
#include "dp_log.h"
#include "net/fib.h"
#include "net/net.h"
#include "vrrp/vrrp.h"
#include "worker.h"

#define SY_ARP_FRAME_LEN (sizeof(struct rte_ether_hdr) + sizeof(struct rte_arp_hdr))
#define SY_ARP_DRAIN_BURST 32

static inline struct sy_arp_entry *
arp_bucket(struct sy_worker *w, uint16_t port, uint32_t ip)
{
	/* Multiplicative hash: neighbours on one subnet differ in the low
	 * bits of the host-order address, which the multiply spreads. */
	uint32_t h = (rte_be_to_cpu_32(ip) ^ ((uint32_t)port << 24)) * 2654435761u;

	return w->arp.e[(h >> 16) & (SY_ARP_BUCKETS - 1)];
}

static struct sy_arp_entry *
arp_find(struct sy_worker *w, uint16_t port, uint32_t ip)
{
	struct sy_arp_entry *b = arp_bucket(w, port, ip);
	unsigned i;

	for (i = 0; i < SY_ARP_WAYS; i++)
		if (b[i].state != SY_ARP_FREE && b[i].ip == ip && b[i].port == port)
			return &b[i];
	return NULL;
}

static void
arp_entry_clear(struct sy_arp_entry *e)
{
	memset(e, 0, sizeof(*e));
}

/* A free way of the bucket, or else the least recently confirmed entry that
 * holds no packets; NULL when every way is resolving with packets queued
 * (those are what bounds memory, so they are never evicted). */
static struct sy_arp_entry *
arp_alloc(struct sy_worker *w, uint16_t port, uint32_t ip)
{
	struct sy_arp_entry *b = arp_bucket(w, port, ip);
	struct sy_arp_entry *victim = NULL;
	unsigned i;

	for (i = 0; i < SY_ARP_WAYS; i++) {
		if (b[i].state == SY_ARP_FREE) {
			victim = &b[i];
			break;
		}
		if (b[i].n_pending == 0 && (victim == NULL || b[i].confirmed < victim->confirmed))
			victim = &b[i];
	}
	if (victim == NULL)
		return NULL;
	arp_entry_clear(victim);
	victim->ip = ip;
	victim->port = port;
	return victim;
}

static void
arp_pending_drop(struct sy_worker *w, struct sy_arp_entry *e, enum sy_drop_reason why)
{
	unsigned i;

	for (i = 0; i < e->n_pending; i++)
		sy_drop(w, e->pending[i], why);
	w->arp.n_pending -= e->n_pending;
	e->n_pending = 0;
}

static void
arp_pending_release(struct sy_worker *w, struct sy_arp_entry *e)
{
	unsigned i;

	for (i = 0; i < e->n_pending; i++) {
		struct rte_mbuf *m = e->pending[i];
		struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

		rte_ether_addr_copy(&e->mac, &eh->dst_addr);
		sy_tx(w, e->port, m);
	}
	w->arp.n_pending -= e->n_pending;
	e->n_pending = 0;
}

/* Our source address for a request to `target`: the port address on the
 * target's subnet, so the neighbour answers (and learns) the right one. */
static uint32_t
arp_source_for(const struct sy_dp_port *p, uint32_t target)
{
	unsigned i;

	for (i = 0; i < p->n_ipv4; i++)
		if ((p->ipv4[i] & p->ipv4_mask[i]) == (target & p->ipv4_mask[i]))
			return p->ipv4[i];
	return p->n_ipv4 ? p->ipv4[0] : 0;
}

/* An ARP request for target from sip on port, broadcast. */
static void
arp_send(struct sy_worker *w, uint16_t port, uint32_t sip, uint32_t target)
{
	const struct sy_dp_port *p = &w->sh->ports[port];
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *a;
	struct rte_mbuf *m;

	m = rte_pktmbuf_alloc(w->sh->pool);
	if (unlikely(m == NULL)) {
		/* Nothing was dropped yet, but the request is lost: the retry
		 * timer sends another one. */
		w->counters.drops[SY_DROP_NO_MBUF]++;
		return;
	}
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, SY_ARP_FRAME_LEN);
	memset(&eh->dst_addr, 0xff, sizeof(eh->dst_addr));
	rte_ether_addr_copy(&p->mac, &eh->src_addr);
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	a = (struct rte_arp_hdr *)(eh + 1);
	a->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = sizeof(uint32_t);
	a->arp_opcode = RTE_BE16(RTE_ARP_OP_REQUEST);
	rte_ether_addr_copy(&p->mac, &a->arp_data.arp_sha);
	a->arp_data.arp_sip = sip;
	memset(&a->arp_data.arp_tha, 0, sizeof(a->arp_data.arp_tha));
	a->arp_data.arp_tip = target;
	m->l2_len = sizeof(*eh);
	sy_tx(w, port, m);
	w->counters.arp_requests_sent++;
}

static void
arp_send_request(struct sy_worker *w, uint16_t port, uint32_t target)
{
	arp_send(w, port, arp_source_for(&w->sh->ports[port], target), target);
}

void
sy_arp_announce(struct sy_worker *w, uint16_t port, uint32_t ip)
{
	/* A request for itself (RFC 5227's announcement): every neighbour
	 * that has ip in its cache updates it to our MAC. */
	arp_send(w, port, ip, ip);
}

/* Record a confirmed mapping and send what waited for it. */
static void
arp_learn(struct sy_worker *w, uint16_t port, uint32_t ip, const struct rte_ether_addr *mac)
{
	struct sy_arp_entry *e = arp_find(w, port, ip);

	if (e == NULL)
		e = arp_alloc(w, port, ip);
	if (e == NULL)
		return; /* bucket busy resolving: it will be learned again */
	rte_ether_addr_copy(mac, &e->mac);
	e->state = SY_ARP_REACHABLE;
	e->confirmed = w->now;
	e->probes = 0;
	arp_pending_release(w, e);
}

/* Tell the other workers; a full ring loses the update, and that worker
 * resolves the neighbour itself when it needs it. */
static void
arp_post_update(struct sy_worker *w, uint16_t port, uint32_t ip, const struct rte_ether_addr *mac)
{
	struct sy_arp_update u = { .ip = ip, .port = port };
	unsigned i;

	rte_ether_addr_copy(mac, &u.mac);
	for (i = 0; i < w->sh->n_workers; i++)
		if (i != w->id && w->sh->nb_ring[i] != NULL)
			(void)rte_ring_mp_enqueue_elem(w->sh->nb_ring[i], &u, sizeof(u));
}

/* Only learn what could be a neighbour on this port: an address the FIB puts
 * on-link here (the MAC was checked on input). Stops a peer from filling the
 * table with off-link mappings. */
static bool
arp_learnable(struct sy_worker *w, uint16_t port, uint32_t ip, const struct rte_ether_addr *mac)
{
	struct sy_addr a = sy_addr_v4(ip);
	struct sy_fib_result r;

	if (sy_fib_lookup(w->sh->fib, &a, &r) < 0 || !r.direct || r.port != port)
		return false;
	return sy_port_addr_index(&w->sh->ports[port], ip) < 0;
}

void
sy_arp_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	const struct sy_dp_port *p = &w->sh->ports[port];
	struct rte_ether_addr sha;
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *a;
	uint32_t sip, tip;

	if (unlikely(m->data_len < sizeof(*a))) {
		sy_drop(w, m, SY_DROP_ARP_MALFORMED);
		return;
	}
	a = rte_pktmbuf_mtod(m, struct rte_arp_hdr *);
	if (unlikely(a->arp_hardware != RTE_BE16(RTE_ARP_HRD_ETHER) ||
		     a->arp_protocol != RTE_BE16(RTE_ETHER_TYPE_IPV4) ||
		     a->arp_hlen != RTE_ETHER_ADDR_LEN || a->arp_plen != sizeof(uint32_t))) {
		sy_drop(w, m, SY_DROP_ARP_MALFORMED);
		return;
	}
	if (a->arp_opcode != RTE_BE16(RTE_ARP_OP_REQUEST) &&
	    a->arp_opcode != RTE_BE16(RTE_ARP_OP_REPLY)) {
		sy_drop(w, m, SY_DROP_ARP_MALFORMED);
		return;
	}
	sip = a->arp_data.arp_sip;
	tip = a->arp_data.arp_tip;
	rte_ether_addr_copy(&a->arp_data.arp_sha, &sha);
	/* A sender claiming a broadcast, multicast or zero MAC is bogus, and
	 * answering it would broadcast our reply. */
	if (unlikely(!rte_is_valid_assigned_ether_addr(&sha))) {
		sy_drop(w, m, SY_DROP_ARP_MALFORMED);
		return;
	}
	/* Only traffic addressed to us teaches us anything (RFC 826 would
	 * also refresh existing entries from any request; we do not, so a
	 * broadcast storm of requests for others costs nothing). */
	if (sy_port_addr_index(p, tip) < 0 &&
	    !(w->sh->vrrp != NULL && port == w->sh->vrrp->port && sy_vrrp_is_master(w->sh->vrrp, tip))) {
		/* A VIP (vrrp/vrrp.h) is ours only while we are its master. */
		sy_drop(w, m, SY_DROP_ARP_NOT_OURS);
		return;
	}
	/* sip 0 is an RFC 5227 probe: answer it, learn nothing. */
	if (sip != 0 && arp_learnable(w, port, sip, &sha)) {
		arp_learn(w, port, sip, &sha);
		arp_post_update(w, port, sip, &sha);
	}
	if (a->arp_opcode == RTE_BE16(RTE_ARP_OP_REPLY)) {
		rte_pktmbuf_free(m); /* consumed, not dropped */
		return;
	}

	/* Turn the request into the reply in place. */
	a->arp_opcode = RTE_BE16(RTE_ARP_OP_REPLY);
	rte_ether_addr_copy(&sha, &a->arp_data.arp_tha);
	a->arp_data.arp_tip = sip;
	rte_ether_addr_copy(&p->mac, &a->arp_data.arp_sha);
	a->arp_data.arp_sip = tip;
	/* The ethernet header is still in the headroom eth input skipped. */
	eh = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, sizeof(*eh));
	if (unlikely(eh == NULL)) {
		sy_drop(w, m, SY_DROP_NO_MBUF);
		return;
	}
	rte_ether_addr_copy(&sha, &eh->dst_addr);
	rte_ether_addr_copy(&p->mac, &eh->src_addr);
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	if (m->pkt_len > SY_ARP_FRAME_LEN && m->nb_segs == 1)
		rte_pktmbuf_trim(m, m->pkt_len - SY_ARP_FRAME_LEN); /* drop padding */
	m->ol_flags &= RTE_MBUF_F_INDIRECT | RTE_MBUF_F_EXTERNAL;
	sy_tx(w, port, m);
	w->counters.arp_replies_sent++;
}

void
sy_arp_output(struct sy_worker *w, uint16_t port, uint32_t ip, struct rte_mbuf *m)
{
	struct sy_arp_entry *e = arp_find(w, port, ip);

	if (likely(e != NULL && e->state != SY_ARP_INCOMPLETE)) {
		/* REACHABLE, or STALE: keep using the old MAC while the timer
		 * re-resolves it. */
		struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);

		rte_ether_addr_copy(&e->mac, &eh->dst_addr);
		sy_tx(w, port, m);
		return;
	}
	if (e == NULL) {
		e = arp_alloc(w, port, ip);
		if (e == NULL) {
			sy_drop(w, m, SY_DROP_ARP_PENDING_FULL);
			return;
		}
		e->state = SY_ARP_INCOMPLETE;
		e->probes = 1;
		e->deadline = w->now + sy_ms_to_tsc(w, SY_ARP_RETRY_MS);
		arp_send_request(w, port, ip);
	}
	if (e->n_pending >= SY_ARP_PENDING_PER_NH || w->arp.n_pending >= SY_ARP_PENDING_MAX) {
		sy_drop(w, m, SY_DROP_ARP_PENDING_FULL);
		return;
	}
	e->pending[e->n_pending++] = m;
	w->arp.n_pending++;
}

unsigned
sy_arp_drain_updates(struct sy_worker *w)
{
	struct sy_arp_update u[SY_ARP_DRAIN_BURST];
	struct rte_ring *r = w->sh->nb_ring[w->id];
	unsigned n, i;

	if (r == NULL)
		return 0;
	n = rte_ring_sc_dequeue_burst_elem(r, u, sizeof(u[0]), SY_ARP_DRAIN_BURST, NULL);
	/* The posting worker already checked the mapping; not re-posted, so
	 * an update crosses the ring once. */
	for (i = 0; i < n; i++)
		arp_learn(w, u[i].port, u[i].ip, &u[i].mac);
	return n;
}

void
sy_arp_timer(struct sy_worker *w)
{
	const uint64_t retry = sy_ms_to_tsc(w, SY_ARP_RETRY_MS);
	const uint64_t reachable = sy_ms_to_tsc(w, SY_ARP_REACHABLE_MS);
	const uint64_t stale = sy_ms_to_tsc(w, SY_ARP_STALE_TIMEOUT_MS);
	const uint64_t now = w->now;
	unsigned b, i;

	for (b = 0; b < SY_ARP_BUCKETS; b++) {
		for (i = 0; i < SY_ARP_WAYS; i++) {
			struct sy_arp_entry *e = &w->arp.e[b][i];

			switch (e->state) {
			case SY_ARP_INCOMPLETE:
				if (now < e->deadline)
					break;
				if (e->probes >= SY_ARP_MAX_PROBES) {
					arp_pending_drop(w, e, SY_DROP_ARP_UNRESOLVED);
					arp_entry_clear(e);
					break;
				}
				e->probes++;
				e->deadline = now + retry;
				arp_send_request(w, e->port, e->ip);
				break;
			case SY_ARP_REACHABLE:
				if (now - e->confirmed < reachable)
					break;
				e->state = SY_ARP_STALE;
				e->probes = 1;
				e->deadline = now + retry;
				arp_send_request(w, e->port, e->ip);
				break;
			case SY_ARP_STALE:
				if (now - e->confirmed >= reachable + stale) {
					arp_entry_clear(e);
					break;
				}
				if (now < e->deadline)
					break;
				e->probes++;
				e->deadline = now + retry;
				arp_send_request(w, e->port, e->ip);
				break;
			default:
				break;
			}
		}
	}
}

const struct rte_ether_addr *
sy_arp_lookup(struct sy_worker *w, uint16_t port, uint32_t ip)
{
	struct sy_arp_entry *e = arp_find(w, port, ip);

	if (e == NULL || e->state == SY_ARP_INCOMPLETE)
		return NULL;
	return &e->mac;
}

void
sy_arp_flush_all(struct sy_worker *w)
{
	unsigned b, i;

	for (b = 0; b < SY_ARP_BUCKETS; b++)
		for (i = 0; i < SY_ARP_WAYS; i++) {
			struct sy_arp_entry *e = &w->arp.e[b][i];

			if (e->n_pending)
				arp_pending_drop(w, e, SY_DROP_ARP_UNRESOLVED);
			arp_entry_clear(e);
		}
}
