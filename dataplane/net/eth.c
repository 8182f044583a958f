/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "net/arp.h"
#include "net/net.h"
#include "vrrp/vrrp.h"
#include "worker.h"

static inline bool
is_ipv6_multicast_mac(const struct rte_ether_addr *a)
{
	return a->addr_bytes[0] == 0x33 && a->addr_bytes[1] == 0x33;
}

void
sy_eth_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	const struct sy_dp_port *p = &w->sh->ports[port];
	const struct rte_ether_hdr *eh;
	uint16_t type;

	/* The whole header must be in the first segment to be read in place. */
	if (unlikely(m->data_len < sizeof(*eh))) {
		sy_drop(w, m, SY_DROP_ETH_TRUNCATED);
		return;
	}
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	/* af_packet and tap see everything the kernel interface sees; only
	 * frames for our MAC or broadcast (ARP requests) are ours, and the
	 * VRRP group's when vrrp is on (vrrp/vrrp.h), and IPv6 multicast
	 * carrying IPv6 (33:33:...: neighbour solicitations go to a group,
	 * and VRRP over IPv6 to ff02::12's 33:33:00:00:00:12; net/ipv6.c
	 * keeps only ours). */
	if (unlikely(!rte_is_same_ether_addr(&eh->dst_addr, &p->mac) &&
		     !rte_is_broadcast_ether_addr(&eh->dst_addr) &&
		     !(w->sh->vrrp != NULL && sy_vrrp_is_group_mac(&eh->dst_addr)) &&
		     !(is_ipv6_multicast_mac(&eh->dst_addr) &&
		       eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6)))) {
		sy_drop(w, m, SY_DROP_ETH_NOT_OURS);
		return;
	}
	type = eh->ether_type;
	m->l2_len = sizeof(*eh);
	rte_pktmbuf_adj(m, sizeof(*eh));

	if (likely(type == RTE_BE16(RTE_ETHER_TYPE_IPV4)))
		sy_ipv4_input(w, port, m);
	else if (type == RTE_BE16(RTE_ETHER_TYPE_ARP))
		sy_arp_input(w, port, m);
	else if (type == RTE_BE16(RTE_ETHER_TYPE_IPV6))
		sy_ipv6_input(w, port, m);
	else
		sy_drop(w, m, SY_DROP_ETH_UNSUPPORTED_TYPE);
}

int
sy_eth_prepend(struct sy_worker *w, uint16_t port, struct rte_mbuf *m, uint16_t ether_type)
{
	struct rte_ether_hdr *eh;

	eh = (struct rte_ether_hdr *)rte_pktmbuf_prepend(m, sizeof(*eh));
	if (unlikely(eh == NULL))
		return -ENOSPC;
	memset(&eh->dst_addr, 0, sizeof(eh->dst_addr));
	rte_ether_addr_copy(&w->sh->ports[port].mac, &eh->src_addr);
	eh->ether_type = rte_cpu_to_be_16(ether_type);
	m->l2_len = sizeof(*eh);
	return 0;
}
