/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VIP failover on a real worker (dataplane/vrrp/vrrp.c, with net/eth.c,
 * ipv4.c, arp.c and the TCP listen check): crafted frames go in through
 * sy_eth_input, the clock is moved by hand, and what worker 0 sends is read
 * from its TX buffer. Node 1 of 3 with two VIPs: .80 (preferred on node 0,
 * ours at 240) and .81 (ours at 250). Checks: the group MAC accepted only
 * with vrrp on; each malformed advert dropped with its counter; a peer's
 * advert keeps us backup and names the master; no ARP answer and no TCP
 * for a VIP we do not hold; after master-down we advertise (group MAC, TTL
 * 255, our priority) and announce the VIP by gratuitous ARP; then ARP is
 * answered with our MAC and a SYN to the VIP gets a cookie; a resignation
 * sends priority 0; a VIP the control thread withdraws is released.
 *
 * The same node with IPv6 VIPs (2001:2::80 and ::81; the port has
 * 2001:2::12/64): adverts to ff02::12 accepted from a link-local source;
 * a bad hop limit, a global source, an unknown VRID, another VIP and an
 * IPv4 advert for an IPv6 VIP's VRID dropped by name; no neighbour
 * advertisement and no TCP for the VIP while backup; after master-down an
 * advert over IPv6 (33:33:00:00:00:12, hop limit 255, from our link-local
 * address, checksum over the pseudo-header) and an unsolicited neighbour
 * advertisement (Override, not Solicited, to ff02::1, our MAC as the
 * target's); then solicitations for the VIP are answered and a SYN to it
 * gets a cookie.
 *
 * A drain on the master of both VIPs (drain.c, docs/operations.md
 * "Stopping"): it lasts at least the master-down interval; the sweep
 * resigns both (two adverts); then a SYN to a VIP is still taken (a
 * cookie: the client's ARP still names us) while one to the node's own
 * address gets a RST, each counted.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_tcp.h>

#include "net/nd.h"
#include "net/net.h"
#include "sy_counters.h"
#include "test_eal.h"
#include "drain.h"
#include "test_frames.h"
#include "vrrp/vrrp.h"
#include "worker.h"

#define NB_MBUF 511

static struct rte_mempool *mp;
static struct sy_config cfg;
static struct sy_dp_shared *sh;
static struct sy_worker *w;

static const struct rte_ether_addr mac_p0 = { { 0x02, 0, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr mac_peer = { { 0x02, 0xaa, 0, 0, 0, 0x0c } };
static const struct rte_ether_addr mac_client = { { 0x02, 0xcc, 0, 0, 0, 0x02 } };
static const struct rte_ether_addr mac_group = { { 0x01, 0x00, 0x5e, 0x00, 0x00, 0x12 } };
static const struct rte_ether_addr mac_bcast = { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };

/* Node 1 of 3 on port 0 (and an IPv6 address there when six), the two
 * VIPs published. */
static int
node_setup(bool six, const struct sy_addr *vip0, const struct sy_addr *vip1)
{
	char err[256] = "";
	struct sy_vrrp_vips *t;

	memset(&cfg, 0, sizeof(cfg));
	cfg.n_workers = 1;
	cfg.n_ports = 2;
	cfg.http_port = 80;
	cfg.https_port = 443;
	snprintf(cfg.ports[0].name, SY_NAME_MAX, "client");
	add_port_addr(&cfg.ports[0], "198.18.0.12/24");
	if (six) {
		struct sy_port_addr *pa = &cfg.ports[0].ipv6[cfg.ports[0].n_ipv6++];

		if (sy_prefix_parse("2001:2::12/64", &pa->addr, &pa->prefix_len) < 0)
			return -1;
	}
	snprintf(cfg.ports[1].name, SY_NAME_MAX, "backend");
	add_port_addr(&cfg.ports[1], "198.18.1.3/24");
	cfg.listen[0] = (struct sy_addr){ .family = AF_INET, .v4 = ip4("198.18.0.12") };
	cfg.n_listen = 1;
	cfg.vrrp = (struct sy_vrrp_config){ .enabled = true, .port = 0, .node = 1, .nodes = 3,
					    .advert_ms = 100, .vrid_base = 1, .preempt = true };
	if (sy_dp_shared_create(&cfg, mp, 1, &sh, err, sizeof(err)) < 0) {
		fprintf(stderr, "sy_dp_shared_create: %s\n", err);
		return -1;
	}
	sh->ports[0].mac = mac_p0;
	w = sy_worker_create(sh, 0, rte_get_main_lcore());
	if (w == NULL || sh->vrrp == NULL)
		return -1;
	w->now = 1000 * sh->tsc_per_ms;
	/* What the control thread publishes (sy_dp_vrrp_publish). */
	t = calloc(1, sizeof(*t));
	t->n = 2;
	t->vip[0] = *vip0;
	t->vip[1] = *vip1;
	atomic_store(&sh->vrrp->vips, t);
	return 0;
}

static int
setup(void **state)
{
	struct sy_addr a = sy_addr_v4(ip4("198.18.0.80")), b = sy_addr_v4(ip4("198.18.0.81"));

	(void)state;
	return node_setup(false, &a, &b);
}

static int
setup6(void **state)
{
	struct sy_addr a, b;

	(void)state;
	if (sy_addr_parse("2001:2::80", &a) < 0 || sy_addr_parse("2001:2::81", &b) < 0)
		return -1;
	return node_setup(true, &a, &b);
}

static int
teardown(void **state)
{
	(void)state;
	sy_worker_destroy(w);
	sy_dp_shared_free(sh);
	assert_int_equal(rte_mempool_avail_count(mp), NB_MBUF);
	return 0;
}

static void
txq_clear(void)
{
	unsigned i;

	for (i = 0; i < w->txq[0].n; i++)
		rte_pktmbuf_free(w->txq[0].pkts[i]);
	w->txq[0].n = 0;
	w->txq[0].bytes = 0;
}

static void
advance_ms(unsigned ms)
{
	w->now += (uint64_t)ms * sh->tsc_per_ms;
	sy_vrrp_poll(w);
}

/* An advert from 198.18.0.11 as a peer sends it, then spoiled per `kind`. */
enum spoil { GOOD, BAD_TTL, BAD_VERSION, BAD_LENGTH, BAD_CHECKSUM };

static struct rte_mbuf *
mk_advert(uint8_t vrid, uint8_t prio, const char *addr, enum spoil kind)
{
	struct sy_vrrp_advert a = { .vrid = vrid, .priority = prio, .interval_cs = 10, .n_addrs = 1 };
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	uint8_t *v;

	assert_non_null(m);
	a.addr[0] = ip4(addr);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, 14 + 20 + 12);
	eh->dst_addr = mac_group;
	eh->src_addr = mac_peer;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = RTE_BE16(32);
	ip->time_to_live = kind == BAD_TTL ? 64 : 255;
	ip->next_proto_id = 112;
	ip->src_addr = ip4("198.18.0.11");
	ip->dst_addr = ip4("224.0.0.18");
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	v = (uint8_t *)(ip + 1);
	assert_int_equal(sy_vrrp_encode(&a, ip->src_addr, v, 12), 12);
	if (kind == BAD_VERSION)
		v[0] = 0x21;
	if (kind == BAD_LENGTH)
		v[3] = 3;
	if (kind == BAD_CHECKSUM)
		v[7] ^= 1;
	return m;
}

static struct rte_mbuf *
mk_arp_request(const char *tip)
{
	return t_arp_frame(mp, RTE_ARP_OP_REQUEST, &mac_bcast, &mac_client, "198.18.0.2", tip);
}

static struct rte_mbuf *
mk_syn(const char *dst)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_tcp_hdr *th;

	assert_non_null(m);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, 14 + 20 + 20);
	eh->dst_addr = mac_p0;
	eh->src_addr = mac_client;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	memset(ip, 0, 40);
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = RTE_BE16(40);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = ip4("198.18.0.2");
	ip->dst_addr = ip4(dst);
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	th = (struct rte_tcp_hdr *)(ip + 1);
	th->src_port = RTE_BE16(40000);
	th->dst_port = RTE_BE16(80);
	th->sent_seq = RTE_BE32(1000);
	th->data_off = 5 << 4;
	th->tcp_flags = RTE_TCP_SYN_FLAG;
	th->rx_win = RTE_BE16(65535);
	th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	return m;
}

static void
test_dataplane(void **state)
{
	uint64_t *drops = w->counters.drops;
	const struct rte_ether_hdr *eh;
	const struct rte_ipv4_hdr *ip;
	const struct rte_arp_hdr *arp;
	struct sy_vrrp_advert a;
	bool saw_advert = false, saw_garp = false;
	unsigned i;

	(void)state;
	sy_vrrp_poll(w); /* takes the published VIPs: both backup */
	assert_int_equal(sy_vrrp_vip_state(sh->vrrp, ip4("198.18.0.80")), SY_VRRP_BACKUP);
	assert_int_equal(sy_vrrp_vip_state(sh->vrrp, ip4("198.18.0.81")), SY_VRRP_BACKUP);
	assert_int_equal(sy_vrrp_vip_state(sh->vrrp, ip4("198.18.0.82")), -1);

	/* Each malformed or foreign advert: dropped, counted by name. */
	sy_eth_input(w, 0, mk_advert(1, 250, "198.18.0.80", BAD_TTL));
	assert_int_equal(drops[SY_DROP_VRRP_BAD_TTL], 1);
	sy_eth_input(w, 0, mk_advert(1, 250, "198.18.0.80", BAD_VERSION));
	assert_int_equal(drops[SY_DROP_VRRP_BAD_VERSION], 1);
	sy_eth_input(w, 0, mk_advert(1, 250, "198.18.0.80", BAD_LENGTH));
	assert_int_equal(drops[SY_DROP_VRRP_BAD_LENGTH], 1);
	sy_eth_input(w, 0, mk_advert(1, 250, "198.18.0.80", BAD_CHECKSUM));
	assert_int_equal(drops[SY_DROP_VRRP_BAD_CHECKSUM], 1);
	sy_eth_input(w, 0, mk_advert(9, 250, "198.18.0.80", GOOD));
	assert_int_equal(drops[SY_DROP_VRRP_UNKNOWN_VRID], 1);
	sy_eth_input(w, 0, mk_advert(1, 250, "198.18.0.99", GOOD));
	assert_int_equal(drops[SY_DROP_VRRP_ADDRESS_MISMATCH], 1);
	sy_eth_input(w, 1, mk_advert(1, 250, "198.18.0.80", GOOD));
	assert_int_equal(drops[SY_DROP_VRRP_OFF], 1); /* the backend port has no vrrp */
	assert_int_equal(w->counters.vrrp_adverts_received, 0);

	/* Node 0's advert for .80 (250 > our 240): it is the master. */
	sy_eth_input(w, 0, mk_advert(1, 250, "198.18.0.80", GOOD));
	assert_int_equal(w->counters.vrrp_adverts_received, 1);
	assert_true(atomic_load(&sh->vrrp->pub[0].master) == ip4("198.18.0.11"));
	assert_int_equal(drops[SY_DROP_ETH_NOT_OURS], 0);

	/* Not ours yet: no ARP answer, no TCP. */
	sy_eth_input(w, 0, mk_arp_request("198.18.0.81"));
	assert_int_equal(drops[SY_DROP_ARP_NOT_OURS], 1);
	sy_eth_input(w, 0, mk_syn("198.18.0.81"));
	assert_int_equal(drops[SY_DROP_VRRP_VIP_NOT_MASTER], 1);
	assert_int_equal(w->txq[0].n, 0);

	/* 250 ms on, node 0 still advertising .80; .81 (ours at 250) has
	 * heard nobody for its master-down interval (302 ms) at 310 ms. */
	advance_ms(250);
	sy_eth_input(w, 0, mk_advert(1, 250, "198.18.0.80", GOOD));
	advance_ms(60);
	assert_int_equal(sy_vrrp_vip_state(sh->vrrp, ip4("198.18.0.80")), SY_VRRP_BACKUP);
	assert_int_equal(sy_vrrp_vip_state(sh->vrrp, ip4("198.18.0.81")), SY_VRRP_MASTER);
	for (i = 0; i < w->txq[0].n; i++) {
		struct rte_mbuf *m = w->txq[0].pkts[i];

		eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
		assert_true(rte_is_same_ether_addr(&eh->src_addr, &mac_p0));
		if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV4)) {
			ip = (const struct rte_ipv4_hdr *)(eh + 1);
			assert_true(rte_is_same_ether_addr(&eh->dst_addr, &mac_group));
			assert_int_equal(ip->time_to_live, 255);
			assert_int_equal(ip->next_proto_id, 112);
			assert_int_equal(rte_ipv4_cksum(ip), 0);
			assert_int_equal(sy_vrrp_parse((const uint8_t *)(ip + 1), 12, ip->src_addr,
						       ip->dst_addr, 255, &a),
					 SY_VRRP_OK);
			assert_int_equal(a.vrid, 2);
			assert_int_equal(a.priority, 250);
			assert_true(a.addr[0] == ip4("198.18.0.81"));
			saw_advert = true;
		} else {
			arp = (const struct rte_arp_hdr *)(eh + 1);
			assert_true(rte_is_broadcast_ether_addr(&eh->dst_addr));
			assert_true(arp->arp_data.arp_sip == ip4("198.18.0.81"));
			assert_true(arp->arp_data.arp_tip == ip4("198.18.0.81"));
			saw_garp = true;
		}
	}
	assert_true(saw_advert && saw_garp);
	txq_clear();

	/* Ours now: ARP answered with our MAC, a SYN gets a cookie. */
	sy_eth_input(w, 0, mk_arp_request("198.18.0.81"));
	assert_int_equal(w->txq[0].n, 1);
	arp = rte_pktmbuf_mtod_offset(w->txq[0].pkts[0], const struct rte_arp_hdr *, 14);
	assert_int_equal(arp->arp_opcode, RTE_BE16(RTE_ARP_OP_REPLY));
	assert_true(arp->arp_data.arp_sip == ip4("198.18.0.81"));
	assert_true(rte_is_same_ether_addr(&arp->arp_data.arp_sha, &mac_p0));
	txq_clear();
	assert_true(sy_is_listen(sh, ip4("198.18.0.81"), RTE_BE16(80)));
	assert_false(sy_is_listen(sh, ip4("198.18.0.80"), RTE_BE16(80)));
	sy_eth_input(w, 0, mk_syn("198.18.0.81"));
	assert_int_equal(w->counters.syn_cookies_sent, 1);
	txq_clear();

	/* A lower master for .81 (both took over): we assert ourselves. */
	sy_eth_input(w, 0, mk_advert(2, 240, "198.18.0.81", GOOD));
	assert_int_equal(sy_vrrp_vip_state(sh->vrrp, ip4("198.18.0.81")), SY_VRRP_MASTER);
	assert_int_equal(w->txq[0].n, 2); /* an advert and a gratuitous ARP */
	txq_clear();

	/* The control thread withdraws .81: released (priority 0), gone. */
	{
		struct sy_vrrp_vips *t = calloc(1, sizeof(*t)), *old;

		t->n = 1;
		t->vip[0] = sy_addr_v4(ip4("198.18.0.80"));
		old = (struct sy_vrrp_vips *)atomic_exchange(&sh->vrrp->vips, t);
		free(old);
	}
	advance_ms(2);
	assert_int_equal(sy_vrrp_vip_state(sh->vrrp, ip4("198.18.0.81")), -1);
	assert_int_equal(w->txq[0].n, 1);
	ip = rte_pktmbuf_mtod_offset(w->txq[0].pkts[0], const struct rte_ipv4_hdr *, 14);
	assert_int_equal(sy_vrrp_parse((const uint8_t *)(ip + 1), 12, ip->src_addr, ip->dst_addr,
				       255, &a),
			 SY_VRRP_OK);
	assert_int_equal(a.priority, 0);
	txq_clear();
}

/* ---- IPv6 VIPs ---- */
static const struct rte_ether_addr mac_group6 = { { 0x33, 0x33, 0, 0, 0, 0x12 } };
static const struct rte_ether_addr mac_all_nodes = { { 0x33, 0x33, 0, 0, 0, 0x01 } };
/* The peer's link-local address (node 0, whose MAC is mac_peer). */
#define PEER_LL "fe80::aa:ff:fe00:c"

/* An IPv6 frame from mac_client (mac_peer for next header 112) to eth_dst:
 * hop limit hop, msg (len bytes) after the fixed header; an ICMPv6
 * message gets its checksum. */
static struct rte_mbuf *
frame6(const struct rte_ether_addr *eth_dst, const char *src, const char *dst, uint8_t hop,
       uint8_t proto, const uint8_t *msg, uint16_t len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eh;
	struct rte_ipv6_hdr *ip;

	assert_non_null(m);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)(14 + 40 + len));
	eh->dst_addr = *eth_dst;
	eh->src_addr = proto == 112 ? mac_peer : mac_client;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(eh + 1);
	memset(ip, 0, sizeof(*ip));
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16(len);
	ip->proto = proto;
	ip->hop_limits = hop;
	ip6(src, ip->src_addr);
	ip6(dst, ip->dst_addr);
	memcpy(ip + 1, msg, len);
	/* The checksum's place: ICMPv6 at 2, TCP at 16; the sum is over
	 * the pseudo-header with that field zero. */
	if (proto == IPPROTO_ICMPV6 || proto == IPPROTO_TCP) {
		uint8_t *ck = (uint8_t *)(ip + 1) + (proto == IPPROTO_TCP ? 16 : 2);
		uint16_t c;

		memset(ck, 0, 2);
		c = rte_ipv6_udptcp_cksum(ip, ip + 1);
		memcpy(ck, &c, 2);
	}
	return m;
}

static struct rte_mbuf *
mk_advert6(uint8_t vrid, uint8_t prio, const char *vip, const char *src, uint8_t hop)
{
	struct sy_vrrp_advert a = { .vrid = vrid, .priority = prio, .interval_cs = 10, .n_addrs = 1 };
	uint8_t s6[16], v[24];

	ip6(vip, a.addr6[0]);
	ip6(src, s6);
	assert_int_equal(sy_vrrp_encode6(&a, s6, v, sizeof(v)), 24);
	return frame6(&mac_group6, src, "ff02::12", hop, 112, v, sizeof(v));
}

/* A solicitation for target from the client, to its solicited-node group
 * (or to the target itself when unicast). */
static struct rte_mbuf *
mk_ns6(const char *target, bool unicast)
{
	struct rte_ether_addr to = unicast ? mac_p0 : (struct rte_ether_addr){ { 0x33, 0x33, 0xff } };
	char group[64];
	uint8_t b[32] = { 135 }, t6[16];

	ip6(target, t6);
	memcpy(b + 8, t6, 16);
	b[24] = 1; /* source link-layer address */
	b[25] = 1;
	memcpy(b + 26, mac_client.addr_bytes, 6);
	snprintf(group, sizeof(group), "ff02::1:ff%02x:%02x%02x", t6[13], t6[14], t6[15]);
	if (!unicast)
		memcpy(&to.addr_bytes[3], t6 + 13, 3); /* 33:33:ff:XX:XX:XX */
	return frame6(&to, "2001:2::2", unicast ? target : group, 255, IPPROTO_ICMPV6, b, sizeof(b));
}

static struct rte_mbuf *
mk_syn6(const char *dst)
{
	struct rte_tcp_hdr th = { .src_port = RTE_BE16(40000), .dst_port = RTE_BE16(80),
				  .sent_seq = RTE_BE32(1000), .data_off = 5 << 4,
				  .tcp_flags = RTE_TCP_SYN_FLAG, .rx_win = RTE_BE16(65535) };

	return frame6(&mac_p0, "2001:2::2", dst, 64, IPPROTO_TCP, (const uint8_t *)&th, sizeof(th));
}

static void
test_dataplane6(void **state)
{
	uint64_t *drops = w->counters.drops;
	uint8_t v80[16], v81[16], ll[16], peer[16];
	bool saw_advert = false, saw_na = false;
	struct sy_vrrp_advert a;
	uint64_t h[2];
	unsigned i;

	(void)state;
	ip6("2001:2::80", v80);
	ip6("2001:2::81", v81);
	ip6(PEER_LL, peer);
	sy_vrrp_poll(w);
	assert_int_equal(sy_vrrp_vip6_state(sh->vrrp, v80), SY_VRRP_BACKUP);
	assert_int_equal(sy_vrrp_vip6_state(sh->vrrp, v81), SY_VRRP_BACKUP);
	assert_int_equal(sy_vrrp_vip_state(sh->vrrp, ip4("198.18.0.80")), -1);

	/* Each malformed or foreign advert: dropped, counted by name. */
	sy_eth_input(w, 0, mk_advert6(1, 250, "2001:2::80", PEER_LL, 64));
	assert_int_equal(drops[SY_DROP_VRRP_BAD_HOP_LIMIT], 1);
	sy_eth_input(w, 0, mk_advert6(1, 250, "2001:2::80", "2001:2::11", 255));
	assert_int_equal(drops[SY_DROP_VRRP_BAD_SOURCE], 1);
	sy_eth_input(w, 0, mk_advert6(9, 250, "2001:2::80", PEER_LL, 255));
	assert_int_equal(drops[SY_DROP_VRRP_UNKNOWN_VRID], 1);
	sy_eth_input(w, 0, mk_advert6(1, 250, "2001:2::99", PEER_LL, 255));
	assert_int_equal(drops[SY_DROP_VRRP_ADDRESS_MISMATCH], 1);
	/* VRID 1 is an IPv6 virtual router: an IPv4 advert for it is not. */
	sy_eth_input(w, 0, mk_advert(1, 250, "198.18.0.80", GOOD));
	assert_int_equal(drops[SY_DROP_VRRP_UNKNOWN_VRID], 2);
	assert_int_equal(w->counters.vrrp_adverts_received, 0);

	/* Node 0's advert for ::80 (250 > our 240): it is the master. */
	sy_eth_input(w, 0, mk_advert6(1, 250, "2001:2::80", PEER_LL, 255));
	assert_int_equal(w->counters.vrrp_adverts_received, 1);
	h[0] = atomic_load(&sh->vrrp->pub[0].master6[0]);
	h[1] = atomic_load(&sh->vrrp->pub[0].master6[1]);
	assert_memory_equal(h, peer, 16);

	/* Not ours yet: no neighbour advertisement, no TCP. */
	sy_eth_input(w, 0, mk_ns6("2001:2::81", false));
	assert_int_equal(drops[SY_DROP_IPV6_NOT_OURS], 1); /* its group is not ours yet */
	sy_eth_input(w, 0, mk_ns6("2001:2::81", true));
	assert_int_equal(drops[SY_DROP_VRRP_VIP_NOT_MASTER], 1);
	sy_eth_input(w, 0, mk_syn6("2001:2::81"));
	assert_int_equal(drops[SY_DROP_VRRP_VIP_NOT_MASTER], 2);
	assert_false(sy_is_listen6(sh, v81, RTE_BE16(80)));
	assert_int_equal(w->txq[0].n, 0);

	/* ::81 (ours at 250) hears nobody for its master-down interval. */
	advance_ms(250);
	sy_eth_input(w, 0, mk_advert6(1, 250, "2001:2::80", PEER_LL, 255));
	advance_ms(60);
	assert_int_equal(sy_vrrp_vip6_state(sh->vrrp, v80), SY_VRRP_BACKUP);
	assert_int_equal(sy_vrrp_vip6_state(sh->vrrp, v81), SY_VRRP_MASTER);
	sy_ipv6_link_local(&mac_p0, ll);
	for (i = 0; i < w->txq[0].n; i++) {
		const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(w->txq[0].pkts[i], const void *);
		const struct rte_ipv6_hdr *ip = (const struct rte_ipv6_hdr *)(eh + 1);
		const struct sy_nd_msg_ll *na = (const struct sy_nd_msg_ll *)(ip + 1);

		assert_true(rte_is_same_ether_addr(&eh->src_addr, &mac_p0));
		assert_int_equal(eh->ether_type, RTE_BE16(RTE_ETHER_TYPE_IPV6));
		assert_int_equal(ip->hop_limits, 255);
		if (ip->proto == 112) {
			assert_true(rte_is_same_ether_addr(&eh->dst_addr, &mac_group6));
			assert_memory_equal(ip->src_addr, ll, 16);
			assert_memory_equal(ip->dst_addr, sy_vrrp_group6, 16);
			assert_int_equal(rte_be_to_cpu_16(ip->payload_len), 24);
			assert_int_equal(sy_vrrp_parse6((const uint8_t *)(ip + 1), 24, ip->src_addr,
							ip->dst_addr, ip->hop_limits, &a),
					 SY_VRRP_OK);
			assert_int_equal(a.vrid, 2);
			assert_int_equal(a.priority, 250);
			assert_memory_equal(a.addr6[0], v81, 16);
			saw_advert = true;
		} else {
			assert_int_equal(ip->proto, IPPROTO_ICMPV6);
			assert_true(rte_is_same_ether_addr(&eh->dst_addr, &mac_all_nodes));
			assert_int_equal(ip->dst_addr[0], 0xff);
			assert_int_equal(ip->dst_addr[15], 0x01);
			assert_memory_equal(ip->src_addr, v81, 16);
			assert_int_equal(na->msg.type, SY_ND_ADVERT);
			assert_int_equal(na->msg.flags, SY_ND_FLAG_OVERRIDE); /* not solicited */
			assert_memory_equal(na->msg.target, v81, 16);
			assert_int_equal(na->opt_type, SY_ND_OPT_TARGET_LL);
			assert_memory_equal(na->mac, mac_p0.addr_bytes, 6);
			assert_int_equal(rte_ipv6_udptcp_cksum_verify(ip, na), 0);
			saw_na = true;
		}
	}
	assert_true(saw_advert && saw_na);
	assert_int_equal(w->counters.vrrp_nas_sent, 1);
	txq_clear();

	/* Ours now: a solicitation to the VIP's group is answered with our
	 * MAC, and a SYN gets a cookie. */
	sy_eth_input(w, 0, mk_ns6("2001:2::81", false));
	assert_int_equal(w->txq[0].n, 1);
	{
		const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(w->txq[0].pkts[0], const void *);
		const struct sy_nd_msg_ll *na =
			(const struct sy_nd_msg_ll *)((const uint8_t *)(eh + 1) + 40);

		assert_int_equal(na->msg.type, SY_ND_ADVERT);
		assert_true(na->msg.flags & SY_ND_FLAG_SOLICITED);
		assert_memory_equal(na->msg.target, v81, 16);
		assert_memory_equal(na->mac, mac_p0.addr_bytes, 6);
	}
	txq_clear();
	assert_true(sy_is_listen6(sh, v81, RTE_BE16(80)));
	assert_false(sy_is_listen6(sh, v80, RTE_BE16(80)));
	sy_eth_input(w, 0, mk_syn6("2001:2::81"));
	assert_int_equal(w->counters.syn_cookies_sent, 1);
	txq_clear();
}

/* A drain on a node that masters both VIPs. */
static void
test_drain(void **state)
{
	uint64_t adverts;

	(void)state;
	sy_vrrp_poll(w);
	assert_int_equal(sy_vrrp_handover_ms(sh->vrrp), 0); /* backup of both */
	advance_ms(400);                                     /* nobody else advertises */
	assert_int_equal(sy_vrrp_vip_state(sh->vrrp, ip4("198.18.0.81")), SY_VRRP_MASTER);
	/* Master_Down_Interval for 100 ms adverts, skew rounded up to one. */
	assert_int_equal(sy_vrrp_handover_ms(sh->vrrp), 400);
	txq_clear();

	/* The sweep resigns both and sends the priority 0 adverts at once
	 * (flushed to the port, so only counted here). */
	adverts = w->counters.vrrp_adverts_sent;
	atomic_store(&sh->draining, true);
	sy_worker_drain_sweep(w);
	assert_int_equal(sy_vrrp_vip_state(sh->vrrp, ip4("198.18.0.80")), SY_VRRP_INIT);
	assert_int_equal(sy_vrrp_vip_state(sh->vrrp, ip4("198.18.0.81")), SY_VRRP_INIT);
	assert_int_equal(w->counters.vrrp_adverts_sent, adverts + 2);
	assert_int_equal(sy_vrrp_handover_ms(sh->vrrp), 0);
	/* Given away, still taken: a cookie, not a RST. */
	assert_true(sy_is_listen(sh, ip4("198.18.0.81"), RTE_BE16(80)));
	sy_eth_input(w, 0, mk_syn("198.18.0.81"));
	assert_int_equal(w->counters.conns_taken_draining_vip, 1);
	assert_int_equal(w->counters.syn_cookies_sent, 1);
	assert_int_equal(w->counters.conns_refused_draining, 0);
	txq_clear(); /* the client's MAC asked for (sy_ipv4_output) */
	/* The node's own address: refused. */
	sy_eth_input(w, 0, mk_syn("198.18.0.12"));
	assert_int_equal(w->counters.conns_refused_draining, 1);
	assert_int_equal(w->counters.syn_cookies_sent, 1);
	assert_int_equal(w->counters.conns_taken_draining_vip, 1);
	txq_clear();
	/* Once the drain is over (not draining), the VIP is not ours. */
	atomic_store(&sh->draining, false);
	assert_false(sy_is_listen(sh, ip4("198.18.0.81"), RTE_BE16(80)));
}

/* Without vrrp the group MAC is not ours, as before. */
static void
test_off(void **state)
{
	struct sy_dp_shared *sh2;
	struct sy_worker *w2;
	char err[256];
	struct sy_config c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.n_workers = 1;
	c.n_ports = 1;
	snprintf(c.ports[0].name, SY_NAME_MAX, "client");
	add_port_addr(&c.ports[0], "198.18.0.12/24");
	assert_int_equal(sy_dp_shared_create(&c, mp, 1, &sh2, err, sizeof(err)), 0);
	assert_null(sh2->vrrp);
	sh2->ports[0].mac = mac_p0;
	w2 = sy_worker_create(sh2, 0, rte_get_main_lcore());
	assert_non_null(w2);
	sy_eth_input(w2, 0, mk_advert(1, 250, "198.18.0.80", GOOD));
	assert_int_equal(w2->counters.drops[SY_DROP_ETH_NOT_OURS], 1);
	sy_worker_destroy(w2);
	sy_dp_shared_free(sh2);
	assert_int_equal(rte_mempool_avail_count(mp), NB_MBUF);
}

static int
group_setup(void **state)
{
	(void)state;
	if (sy_test_eal_init("test_vrrp_dp") < 0)
		return -1;
	mp = rte_pktmbuf_pool_create("test_vrrp_dp", NB_MBUF, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	return mp == NULL ? -1 : 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	rte_mempool_free(mp);
	sy_test_eal_fini();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dataplane, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dataplane6, setup6, teardown),
		cmocka_unit_test_setup_teardown(test_drain, setup, teardown),
		cmocka_unit_test(test_off),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
