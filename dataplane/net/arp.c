/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "net/arp.h"
#include "net/neigh.h"
#include "dp_log.h"
#include "net/fib.h"
#include "net/net.h"
#include "vrrp/vrrp.h"
#include "worker.h"

#define SY_ARP_FRAME_LEN (sizeof(struct rte_ether_hdr) + sizeof(struct rte_arp_hdr))

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

void
sy_arp_request(struct sy_worker *w, uint16_t port, uint32_t target)
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
		uint8_t key[16];

		sy_neigh_key_v4(key, sip);
		sy_neigh_confirm(w, &w->arp, port, key, &sha);
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
	uint8_t key[16];

	sy_neigh_key_v4(key, ip);
	sy_neigh_output(w, &w->arp, port, key, m);
}

const struct rte_ether_addr *
sy_arp_lookup(struct sy_worker *w, uint16_t port, uint32_t ip)
{
	uint8_t key[16];

	sy_neigh_key_v4(key, ip);
	return sy_neigh_lookup(&w->arp, port, key);
}
