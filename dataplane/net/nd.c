/* SPDX-License-Identifier: BSD-3-Clause */
/* IPv6 neighbour discovery, the asking side (net/nd.h). */
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>

#include "net/fib.h"
#include "net/nd.h"
#include "net/neigh.h"
#include "net/net.h"
#include "worker.h"

static bool
is_link_local(const uint8_t a[16])
{
	return a[0] == 0xfe && (a[1] & 0xc0) == 0x80;
}

/* One message of ours with one link-layer address option (our MAC), from
 * src to dst (whose MAC is `to`); false when no buffer was to be had
 * (nothing was dropped yet, but the message is lost: the caller's timer
 * sends another). */
static bool
nd_send(struct sy_worker *w, uint16_t port, uint8_t type, uint8_t flags, const uint8_t target[16],
	const uint8_t src[16], const uint8_t dst[16], const struct rte_ether_addr *to)
{
	const struct sy_dp_port *p = &w->sh->ports[port];
	struct rte_ipv6_hdr *ip6;
	struct sy_nd_msg_ll *msg;
	struct rte_mbuf *m;

	m = rte_pktmbuf_alloc(w->sh->pool);
	if (unlikely(m == NULL)) {
		w->counters.drops[SY_DROP_NO_MBUF]++;
		return false;
	}
	ip6 = (struct rte_ipv6_hdr *)rte_pktmbuf_append(m, sizeof(*ip6) + sizeof(*msg));
	if (unlikely(ip6 == NULL)) {
		rte_pktmbuf_free(m);
		w->counters.drops[SY_DROP_NO_MBUF]++;
		return false;
	}
	memset(ip6, 0, sizeof(*ip6) + sizeof(*msg));
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
	ip6->payload_len = rte_cpu_to_be_16(sizeof(*msg));
	ip6->proto = IPPROTO_ICMPV6;
	ip6->hop_limits = SY_ND_HOP_LIMIT;
	memcpy(ip6->src_addr, src, 16);
	memcpy(ip6->dst_addr, dst, 16);
	msg = (struct sy_nd_msg_ll *)(ip6 + 1);
	msg->msg.type = type;
	msg->msg.flags = flags;
	memcpy(msg->msg.target, target, 16);
	/* A solicitation names its source's MAC, an advertisement its
	 * target's: ours either way. */
	msg->opt_type = type == SY_ND_SOLICIT ? SY_ND_OPT_SOURCE_LL : SY_ND_OPT_TARGET_LL;
	msg->opt_len = 1;
	memcpy(msg->mac, p->mac.addr_bytes, sizeof(msg->mac));
	msg->msg.cksum = (uint16_t)~sy_icmp6_sum(m, sizeof(*ip6), sizeof(*msg));
	sy_ipv6_send_to(w, port, m, to);
	return true;
}

void
sy_nd_solicit(struct sy_worker *w, uint16_t port, const uint8_t target[16],
	      const struct rte_ether_addr *unicast)
{
	uint8_t src[16], dst[16];
	struct rte_ether_addr to;

	sy_ipv6_source_for(&w->sh->ports[port], target, src);
	if (unicast != NULL) {
		memcpy(dst, target, 16);
		to = *unicast;
	} else {
		/* ff02::1:ffXX:XXXX and its MAC 33:33:ff:XX:XX:XX (RFC 2464). */
		static const uint8_t group[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };

		memcpy(dst, group, sizeof(group));
		memcpy(dst + 13, target + 13, 3);
		to.addr_bytes[0] = 0x33;
		to.addr_bytes[1] = 0x33;
		memcpy(&to.addr_bytes[2], dst + 12, 4);
	}
	if (nd_send(w, port, SY_ND_SOLICIT, 0, target, src, dst, &to))
		w->counters.nd_solicits_sent++;
}

bool
sy_nd_announce(struct sy_worker *w, uint16_t port, const uint8_t addr[16])
{
	static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 0x01 };
	static const struct rte_ether_addr all_nodes_mac = { { 0x33, 0x33, 0, 0, 0, 0x01 } };

	/* RFC 4861 7.2.6: unsolicited (S clear), Override set so that every
	 * cache replaces the old MAC, from the address itself to all nodes. */
	return nd_send(w, port, SY_ND_ADVERT, SY_ND_FLAG_OVERRIDE, addr, addr, all_nodes,
		       &all_nodes_mac);
}

void
sy_nd_output(struct sy_worker *w, uint16_t port, const uint8_t addr[16], struct rte_mbuf *m)
{
	sy_neigh_output(w, &w->nd, port, addr, m);
}

const struct rte_ether_addr *
sy_nd_lookup(struct sy_worker *w, uint16_t port, const uint8_t addr[16])
{
	return sy_neigh_lookup(&w->nd, port, addr);
}

/* Only learn what could be a neighbour on this port: a link-local address,
 * or one the FIB puts on-link here, never one of ours. Stops a peer from
 * filling the table with off-link mappings, as ARP does (net/arp.c). */
static bool
nd_learnable(struct sy_worker *w, uint16_t port, const uint8_t a[16])
{
	const struct sy_dp_port *p = &w->sh->ports[port];
	struct sy_addr dst = sy_addr_v6(a);
	struct sy_fib_result r;

	if (a[0] == 0xff || sy_ipv6_is_ours(p, a))
		return false;
	if (is_link_local(a))
		return true;
	return sy_fib_lookup(w->sh->fib, &dst, &r) == 0 && r.direct && r.port == port;
}

void
sy_nd_learn_from_solicit(struct sy_worker *w, uint16_t port, const uint8_t src[16],
			 const struct rte_ether_addr *mac)
{
	if (rte_is_valid_assigned_ether_addr(mac) && nd_learnable(w, port, src))
		sy_neigh_confirm(w, &w->nd, port, src, mac);
}

void
sy_nd_advert_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m, uint32_t len)
{
	const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	const struct sy_nd_msg *na;
	const struct rte_ether_addr *tll = NULL;
	struct sy_neigh_entry *e;
	uint32_t off;

	if (unlikely(ip6->hop_limits != SY_ND_HOP_LIMIT || len < sizeof(*na) ||
		     m->data_len < m->l3_len + len)) {
		sy_drop(w, m, SY_DROP_ND_MALFORMED);
		return;
	}
	na = rte_pktmbuf_mtod_offset(m, const struct sy_nd_msg *, m->l3_len);
	/* RFC 4861 7.1.2: code 0, a unicast target, and no Solicited flag on
	 * an advertisement to a group. */
	if (unlikely(na->code != 0 || na->target[0] == 0xff ||
		     (ip6->dst_addr[0] == 0xff && (na->flags & SY_ND_FLAG_SOLICITED)))) {
		sy_drop(w, m, SY_DROP_ND_MALFORMED);
		return;
	}
	for (off = sizeof(*na); off < len;) {
		const uint8_t *o = (const uint8_t *)na + off;

		if (unlikely(off + 2 > len || o[1] == 0 || off + o[1] * 8u > len)) {
			sy_drop(w, m, SY_DROP_ND_MALFORMED);
			return;
		}
		if (o[0] == SY_ND_OPT_TARGET_LL && o[1] == 1)
			tll = (const struct rte_ether_addr *)(o + 2);
		off += o[1] * 8u;
	}
	/* 7.2.5: an advertisement creates nothing; it completes or updates an
	 * entry we have. Without the option a link-layer address cannot be
	 * learnt (an INCOMPLETE entry needs it; a known one would only be
	 * re-confirmed, which we leave to the next solicitation). */
	e = sy_neigh_find(&w->nd, port, na->target);
	if (e == NULL || tll == NULL || !rte_is_valid_assigned_ether_addr(tll)) {
		sy_drop(w, m, SY_DROP_ND_ADVERT_IGNORED);
		return;
	}
	/* An unsolicited one without Override must not change a known MAC. */
	if (e->state != SY_NEIGH_INCOMPLETE && !(na->flags & SY_ND_FLAG_OVERRIDE) &&
	    !rte_is_same_ether_addr(&e->mac, tll)) {
		sy_drop(w, m, SY_DROP_ND_ADVERT_IGNORED);
		return;
	}
	sy_neigh_confirm(w, &w->nd, port, na->target, tll);
	rte_pktmbuf_free(m); /* consumed, not dropped */
}
