/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The workers' half of VIP failover (vrrp.h): adverts in on any worker,
 * checked there and posted to worker 0; worker 0 runs the state machines,
 * sends adverts and gratuitous ARP (IPv6: unsolicited neighbour
 * advertisements), and publishes each VIP's state.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>
#include <rte_ethdev.h>
#include <rte_ip.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_ring_elem.h>

#include "dp_log.h"
#include "net/arp.h"
#include "net/nd.h"
#include "net/net.h"
#include "vrrp/vrrp.h"
#include "worker.h"

/* 01:00:5e:00:00:12, the group's MAC (RFC 5798 5.1.1.2). */
static const struct rte_ether_addr vrrp_group_mac = { { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x12 } };
/* 33:33:00:00:00:12, ff02::12's (RFC 2464 7). */
static const struct rte_ether_addr vrrp_group6_mac = { { 0x33, 0x33, 0x00, 0x00, 0x00, 0x12 } };

/* A checked advert on its way to worker 0 (32 bytes: ring elements are a
 * multiple of 4). */
struct vrrp_post {
	struct sy_addr src; /* the sender's primary address, of the VIP's family */
	uint8_t vrid, priority;
	uint16_t interval_cs;
	uint64_t tsc; /* when it arrived */
};

bool
sy_vrrp_is_group_mac(const struct rte_ether_addr *a)
{
	return rte_is_same_ether_addr(a, &vrrp_group_mac);
}

void
sy_vrrp_port_join(const struct sy_dp_port *p)
{
	struct rte_ether_addr group = vrrp_group_mac;
	int rc;

	if (p->port_id == SY_PORT_NONE)
		return;
	/* A NIC filters multicast: ask for the group's MAC, or for every
	 * multicast frame. net_af_packet on a veth has no filter (it sees
	 * what the kernel interface sees) and refuses both: that is fine.
	 * A port with IPv6 asks for every multicast frame first: IPv6 VIPs
	 * want ff02::12 and each VIP's solicited-node group, which come and
	 * go with the Router's VIPs. */
	rc = p->n_ipv6 > 0 ? -ENOTSUP : rte_eth_dev_set_mc_addr_list(p->port_id, &group, 1);
	if (rc == 0) {
		SY_DP_LOG(INFO, "port %s: receives the VRRP group 01:00:5e:00:00:12", p->name);
		return;
	}
	rc = rte_eth_allmulticast_enable(p->port_id);
	if (rc == 0)
		SY_DP_LOG(INFO, "port %s: all-multicast on for VRRP", p->name);
	else
		SY_DP_LOG(NOTICE,
			  "port %s: neither a multicast filter nor all-multicast (%s): VRRP adverts "
			  "arrive only if the device passes multicast by itself (af_packet does)",
			  p->name, rte_strerror(-rc));
}

int
sy_vrrp_create(const struct sy_config *cfg, struct sy_dp_shared *sh, unsigned set, char *err,
	       size_t errlen)
{
	const struct sy_vrrp_config *c = &cfg->vrrp;
	char name[RTE_RING_NAMESIZE];
	struct sy_vrrp *v;

	sh->vrrp = NULL;
	if (!c->enabled)
		return 0;
	if (c->port >= sh->n_ports ||
	    (sh->ports[c->port].n_ipv4 == 0 && sh->ports[c->port].n_ipv6 == 0)) {
		snprintf(err, errlen, "vrrp: port %u has no address", c->port);
		return -EINVAL;
	}
	v = rte_zmalloc("sy_vrrp", sizeof(*v), RTE_CACHE_LINE_SIZE);
	if (v == NULL) {
		snprintf(err, errlen, "vrrp: out of memory");
		return -ENOMEM;
	}
	v->port = (uint16_t)c->port;
	v->node = c->node;
	v->nodes = c->nodes;
	v->vrid_base = c->vrid_base;
	v->preempt = c->preempt;
	v->interval_cs = (uint16_t)(c->advert_ms / 10);
	/* The IPv4 adverts' source; an IPv6-only port has IPv6 VIPs only
	 * (control/fleet/vips.c refuses the others). */
	v->self = sh->ports[c->port].n_ipv4 > 0 ? sh->ports[c->port].ipv4[0] : 0;
	v->ipv6 = sh->ports[c->port].n_ipv6 > 0;
	v->tsc_per_us = sh->tsc_per_ms / 1000 ? sh->tsc_per_ms / 1000 : 1;
	atomic_init(&v->vips, NULL);
	snprintf(name, sizeof(name), "sy_vr_%u", set);
	/* Any worker posts, worker 0 takes. */
	v->rx = rte_ring_create_elem(name, sizeof(struct vrrp_post), SY_VRRP_RING_SIZE,
				     SOCKET_ID_ANY, RING_F_SC_DEQ);
	if (v->rx == NULL) {
		snprintf(err, errlen, "vrrp: ring %s: %s", name, rte_strerror(rte_errno));
		rte_free(v);
		return -ENOMEM;
	}
	sh->vrrp = v;
	return 0;
}

void
sy_vrrp_free(struct sy_dp_shared *sh)
{
	struct sy_vrrp *v = sh->vrrp;

	if (v == NULL)
		return;
	rte_ring_free(v->rx);
	free((void *)atomic_load(&v->vips));
	rte_free(v);
	sh->vrrp = NULL;
}

static uint64_t
now_us(const struct sy_vrrp *v, uint64_t tsc)
{
	return tsc / v->tsc_per_us;
}

/* The advert in m over IPv4: to 224.0.0.18 from our primary address. */
static bool
advert_frame4(struct sy_worker *w, struct sy_vrrp *v, struct rte_mbuf *m, struct sy_vrrp_advert *a,
	      uint32_t vip)
{
	const unsigned vlen = SY_VRRP_HDR_LEN + 4;
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;

	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eh) + sizeof(*ip) + vlen);
	if (unlikely(eh == NULL))
		return false;
	rte_ether_addr_copy(&vrrp_group_mac, &eh->dst_addr);
	rte_ether_addr_copy(&w->sh->ports[v->port].mac, &eh->src_addr);
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->type_of_service = 0xc0; /* network control, as routers send theirs */
	ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + vlen));
	ip->time_to_live = SY_VRRP_TTL;
	ip->next_proto_id = SY_IPPROTO_VRRP;
	ip->src_addr = v->self;
	ip->dst_addr = SY_VRRP_GROUP;
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	a->addr[0] = vip;
	(void)sy_vrrp_encode(a, v->self, (uint8_t *)(ip + 1), vlen);
	m->l2_len = sizeof(*eh);
	m->l3_len = sizeof(*ip);
	sy_tx(w, v->port, m);
	return true;
}

/* The advert in m over IPv6: to ff02::12 from our link-local address
 * (RFC 5798 5.1.2). */
static bool
advert_frame6(struct sy_worker *w, struct sy_vrrp *v, struct rte_mbuf *m, struct sy_vrrp_advert *a,
	      const uint8_t vip[16])
{
	const unsigned vlen = SY_VRRP_HDR_LEN + 16;
	struct rte_ipv6_hdr *ip6;

	ip6 = (struct rte_ipv6_hdr *)rte_pktmbuf_append(m, sizeof(*ip6) + vlen);
	if (unlikely(ip6 == NULL))
		return false;
	memset(ip6, 0, sizeof(*ip6));
	/* Traffic class network control, as for IPv4. */
	ip6->vtc_flow = rte_cpu_to_be_32(6u << 28 | 0xc0u << 20);
	ip6->payload_len = rte_cpu_to_be_16((uint16_t)vlen);
	ip6->proto = SY_IPPROTO_VRRP;
	ip6->hop_limits = SY_VRRP_HOP_LIMIT;
	memcpy(ip6->src_addr, v->self6, 16);
	memcpy(ip6->dst_addr, sy_vrrp_group6, 16);
	memcpy(a->addr6[0], vip, 16);
	(void)sy_vrrp_encode6(a, v->self6, (uint8_t *)(ip6 + 1), vlen);
	sy_ipv6_send_to(w, v->port, m, &vrrp_group6_mac);
	return true;
}

static void
send_advert(struct sy_worker *w, struct sy_vrrp *v, const struct sy_vrrp_vr *vr, uint8_t prio)
{
	struct sy_vrrp_advert a = { .vrid = vr->vrid, .priority = prio,
				    .interval_cs = vr->interval_cs, .n_addrs = 1 };
	struct rte_mbuf *m;
	bool sent;

	m = rte_pktmbuf_alloc(w->sh->pool);
	if (unlikely(m == NULL)) {
		w->counters.drops[SY_DROP_NO_MBUF]++; /* the next interval sends one */
		return;
	}
	sent = vr->vip.family == AF_INET6 ? advert_frame6(w, v, m, &a, vr->vip.v6)
					  : advert_frame4(w, v, m, &a, vr->vip.v4);
	if (unlikely(!sent)) {
		sy_drop(w, m, SY_DROP_NO_MBUF);
		return;
	}
	w->counters.vrrp_adverts_sent++;
}

/* An IPv6 address into the pub's two halves. */
static void
store6(_Atomic uint64_t h[2], const uint8_t a[16])
{
	uint64_t x[2];

	sy_vrrp_halves(a, x);
	atomic_store_explicit(&h[0], x[0], memory_order_relaxed);
	atomic_store_explicit(&h[1], x[1], memory_order_relaxed);
}

/* What the other workers and the control thread see of VIP i. */
static void
publish(struct sy_vrrp *v, unsigned i)
{
	const struct sy_vrrp_vr *vr = &v->vr[i];
	struct sy_vrrp_pub *p = &v->pub[i];
	uint64_t seen = 0, until = 0;

	if (vr->state == SY_VRRP_MASTER) {
		until = UINT64_MAX;
	} else if (vr->state == SY_VRRP_BACKUP && vr->master_seen != 0) {
		seen = vr->master_seen * v->tsc_per_us;
		until = seen + sy_vrrp_master_down_us(vr) * v->tsc_per_us;
	}
	if (vr->vip.family == AF_INET6)
		store6(p->master6, vr->master.v6);
	else
		atomic_store_explicit(&p->master, vr->master.v4, memory_order_relaxed);
	atomic_store_explicit(&p->master_priority, vr->master_priority, memory_order_relaxed);
	atomic_store_explicit(&p->transitions, vr->transitions, memory_order_relaxed);
	atomic_store_explicit(&p->master_seen, seen, memory_order_relaxed);
	atomic_store_explicit(&p->active_until, until, memory_order_relaxed);
	atomic_store_explicit(&p->state, vr->state, memory_order_relaxed);
}

static void
act(struct sy_worker *w, struct sy_vrrp *v, unsigned i, unsigned todo)
{
	const struct sy_vrrp_vr *vr = &v->vr[i];

	if (todo & SY_VRRP_DO_ADVERT)
		send_advert(w, v, vr, vr->priority);
	if (todo & SY_VRRP_DO_ADVERT0)
		send_advert(w, v, vr, 0);
	if (todo & SY_VRRP_DO_GARP) {
		if (vr->vip.family == AF_INET6) {
			if (sy_nd_announce(w, v->port, vr->vip.v6))
				w->counters.vrrp_nas_sent++;
		} else {
			sy_arp_announce(w, v->port, vr->vip.v4);
			w->counters.vrrp_garps_sent++;
		}
	}
	if (todo & SY_VRRP_DO_CHANGED)
		w->counters.vrrp_transitions++;
	publish(v, i);
}

/* Follow the published VIPs: a slot whose VIP changed resigns the old one
 * and starts over as backup for the new one (INIT -> BACKUP). */
static void
sync_vips(struct sy_worker *w, struct sy_vrrp *v, uint64_t now)
{
	const struct sy_vrrp_vips *t = atomic_load_explicit(&v->vips, memory_order_acquire);
	unsigned i;

	for (i = 0; i < SY_VRRP_VIPS_MAX; i++) {
		struct sy_addr want = { 0 }, self;
		struct sy_vrrp_vr *vr = &v->vr[i];
		static const uint8_t none6[16];

		if (t != NULL && i < t->n)
			want = t->vip[i];
		/* A port without IPv6 cannot carry an IPv6 VIP (the control
		 * thread refuses one): its slot stays empty. */
		if (want.family == AF_INET6 && !v->ipv6)
			want.family = 0;
		if (vr->vip.family == want.family &&
		    (want.family == 0 || sy_addr_eq(&vr->vip, &want)))
			continue;
		if (vr->vip.family != 0)
			act(w, v, i, sy_vrrp_stop(vr));
		atomic_store_explicit(&v->pub[i].vip, want.family == AF_INET ? want.v4 : 0,
				      memory_order_relaxed);
		store6(v->pub[i].vip6, want.family == AF_INET6 ? want.v6 : none6);
		if (want.family == 0) {
			vr->vip.family = 0;
			continue;
		}
		/* The port's MAC is known once it has started, before
		 * worker 0 runs: its link-local address then. */
		if (want.family == AF_INET6)
			sy_ipv6_link_local(&w->sh->ports[v->port].mac, v->self6);
		self = want.family == AF_INET6 ? sy_addr_v6(v->self6) : sy_addr_v4(v->self);
		sy_vrrp_vr_init(vr, &want, &self, (uint8_t)(v->vrid_base + i),
				sy_vrrp_priority(i, v->node, v->nodes), v->preempt, v->interval_cs);
		act(w, v, i, sy_vrrp_start(vr, now));
	}
}

static void
handle(struct sy_worker *w, struct sy_vrrp *v, const struct vrrp_post *p)
{
	unsigned i = (unsigned)(p->vrid - v->vrid_base);
	struct sy_vrrp_advert a = { .vrid = p->vrid, .priority = p->priority,
				    .interval_cs = p->interval_cs };

	/* The slot may have changed VIP (or family) since the post was
	 * checked. */
	if (i >= SY_VRRP_VIPS_MAX || v->vr[i].vip.family != p->src.family) {
		w->counters.drops[SY_DROP_VRRP_UNKNOWN_VRID]++;
		return;
	}
	act(w, v, i, sy_vrrp_on_advert(&v->vr[i], &a, &p->src, now_us(v, p->tsc)));
}

/* Why sy_vrrp_parse refused, as the drop reason; hop_limit: the IPv6
 * name for a bad TTL. */
static enum sy_drop_reason
refusal(enum sy_vrrp_bad bad, enum sy_drop_reason hop_limit)
{
	switch (bad) {
	case SY_VRRP_BAD_TTL: return hop_limit;
	case SY_VRRP_BAD_VERSION: return SY_DROP_VRRP_BAD_VERSION;
	case SY_VRRP_BAD_LENGTH: return SY_DROP_VRRP_BAD_LENGTH;
	case SY_VRRP_BAD_SOURCE: return SY_DROP_VRRP_BAD_SOURCE;
	default: return SY_DROP_VRRP_BAD_CHECKSUM;
	}
}

/* An advert a from src as parsed (bad: how; hop_limit: the family's name
 * for a bad TTL): for a VIP of ours by its VRID and family, naming that
 * VIP, it is posted to worker 0 (or handled, on worker 0). Consumes m. */
static void
accept_advert(struct sy_worker *w, struct sy_vrrp *v, struct rte_mbuf *m, enum sy_vrrp_bad bad,
	      enum sy_drop_reason hop_limit, const struct sy_vrrp_advert *a,
	      const struct sy_addr *src)
{
	uint32_t vip = 0;
	uint64_t vip6[2] = { 0, 0 }, h[2];
	struct vrrp_post p;
	unsigned i, k;

	if (bad != SY_VRRP_OK) {
		sy_drop(w, m, refusal(bad, hop_limit));
		return;
	}
	i = (unsigned)(a->vrid - v->vrid_base);
	if (i < SY_VRRP_VIPS_MAX && a->vrid >= v->vrid_base) {
		vip = atomic_load_explicit(&v->pub[i].vip, memory_order_relaxed);
		vip6[0] = atomic_load_explicit(&v->pub[i].vip6[0], memory_order_relaxed);
		vip6[1] = atomic_load_explicit(&v->pub[i].vip6[1], memory_order_relaxed);
	}
	/* None at that VRID, or one of the other family: a virtual router
	 * has one family (RFC 5798), so this is not ours. */
	if (src->family == AF_INET6 ? (vip6[0] | vip6[1]) == 0 : vip == 0) {
		sy_drop(w, m, SY_DROP_VRRP_UNKNOWN_VRID);
		return;
	}
	/* The peer must mean the same VIP by this VRID (RFC 5798 7.1 lets a
	 * mismatch be dropped: two configs disagree, and following it would
	 * hand over the wrong address). */
	for (k = 0; k < a->n_addrs; k++) {
		if (src->family != AF_INET6) {
			if (a->addr[k] == vip)
				break;
			continue;
		}
		sy_vrrp_halves(a->addr6[k], h);
		if (h[0] == vip6[0] && h[1] == vip6[1])
			break;
	}
	if (k == a->n_addrs) {
		sy_drop(w, m, SY_DROP_VRRP_ADDRESS_MISMATCH);
		return;
	}
	p = (struct vrrp_post){ .src = *src, .vrid = a->vrid, .priority = a->priority,
				.interval_cs = a->interval_cs, .tsc = w->now };
	if (w->id != 0 && rte_ring_mp_enqueue_elem(v->rx, &p, sizeof(p)) != 0) {
		sy_drop(w, m, SY_DROP_VRRP_RING_FULL);
		return;
	}
	w->counters.vrrp_adverts_received++;
	rte_pktmbuf_free(m); /* consumed */
	if (w->id == 0)
		handle(w, v, &p);
}

/* An advert over IPv4 or IPv6 (six), data at the IP header, m->l3_len up
 * to the VRRP message: on the vrrp port, in the first segment, checked
 * (sy_vrrp_parse, sy_vrrp_parse6) and accepted or dropped. */
static void
input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m, bool six)
{
	struct sy_vrrp *v = w->sh->vrrp;
	const struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, const struct rte_ipv4_hdr *);
	const struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, const struct rte_ipv6_hdr *);
	uint32_t off = m->l3_len, tlen;
	const uint8_t *msg = rte_pktmbuf_mtod_offset(m, const uint8_t *, off);
	struct sy_vrrp_advert a;
	struct sy_addr src;
	enum sy_vrrp_bad bad;

	tlen = six ? sizeof(*ip6) + rte_be_to_cpu_16(ip6->payload_len)
		   : rte_be_to_cpu_16(ip->total_length);
	if (v == NULL || port != v->port) {
		sy_drop(w, m, SY_DROP_VRRP_OFF);
		return;
	}
	if (m->data_len < tlen || tlen < off) {
		sy_drop(w, m, SY_DROP_VRRP_BAD_LENGTH); /* one segment: adverts are small */
		return;
	}
	if (six) {
		bad = sy_vrrp_parse6(msg, tlen - off, ip6->src_addr, ip6->dst_addr, ip6->hop_limits, &a);
		src = sy_addr_v6(ip6->src_addr);
	} else {
		bad = sy_vrrp_parse(msg, tlen - off, ip->src_addr, ip->dst_addr, ip->time_to_live, &a);
		src = sy_addr_v4(ip->src_addr);
	}
	accept_advert(w, v, m, bad, six ? SY_DROP_VRRP_BAD_HOP_LIMIT : SY_DROP_VRRP_BAD_TTL, &a,
		      &src);
}

void
sy_vrrp_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	input(w, port, m, false);
}

void
sy_vrrp6_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	input(w, port, m, true);
}

bool
sy_vrrp_master6_solicited(const struct sy_vrrp *v, const uint8_t group[16])
{
	static const uint8_t prefix[13] = { 0xff, 0x02, [11] = 0x01, [12] = 0xff };
	unsigned i;

	if (v == NULL || memcmp(group, prefix, sizeof(prefix)) != 0)
		return false;
	for (i = 0; i < SY_VRRP_VIPS_MAX; i++) {
		uint64_t lo = atomic_load_explicit(&v->pub[i].vip6[1], memory_order_relaxed);
		uint8_t b[8];

		memcpy(b, &lo, 8);
		if (lo != 0 && memcmp(b + 5, group + 13, 3) == 0 &&
		    atomic_load_explicit(&v->pub[i].state, memory_order_relaxed) == SY_VRRP_MASTER)
			return true;
	}
	return false;
}

unsigned
sy_vrrp_poll(struct sy_worker *w)
{
	struct sy_vrrp *v = w->sh->vrrp;
	struct vrrp_post p[32];
	unsigned n, i, work = 0;
	uint64_t now;

	if (v == NULL)
		return 0;
	n = rte_ring_sc_dequeue_burst_elem(v->rx, p, sizeof(p[0]), RTE_DIM(p), NULL);
	for (i = 0; i < n; i++)
		handle(w, v, &p[i]);
	work += n;
	if (w->now - v->last_tick < SY_VRRP_TICK_US * v->tsc_per_us)
		return work;
	v->last_tick = w->now;
	now = now_us(v, w->now);
	sync_vips(w, v, now);
	for (i = 0; i < SY_VRRP_VIPS_MAX; i++) {
		unsigned todo;

		if (v->vr[i].vip.family == 0)
			continue;
		todo = sy_vrrp_on_timer(&v->vr[i], now);
		if (todo != 0) {
			act(w, v, i, todo);
			work++;
		}
	}
	return work;
}

void
sy_vrrp_resign(struct sy_worker *w)
{
	struct sy_vrrp *v = w->sh->vrrp;
	unsigned i;

	if (v == NULL)
		return;
	for (i = 0; i < SY_VRRP_VIPS_MAX; i++)
		if (v->vr[i].vip.family != 0)
			act(w, v, i, sy_vrrp_stop(&v->vr[i]));
	sy_worker_tx_flush(w, v->port);
}

unsigned
sy_vrrp_handover_ms(const struct sy_vrrp *v)
{
	unsigned i;

	if (v == NULL)
		return 0;
	for (i = 0; i < SY_VRRP_VIPS_MAX; i++)
		if (atomic_load_explicit(&v->pub[i].state, memory_order_relaxed) == SY_VRRP_MASTER)
			/* 3 adverts and a skew of under one: the standbys' wait
			 * if the priority 0 advert is lost. */
			return 4u * v->interval_cs * 10u;
	return 0;
}
