/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * L2/L3 of the data plane without ports: crafted frames go into sy_eth_input
 * of a worker built from a struct sy_config, and what it would send is read
 * back from its TX buffers. Two workers share one sy_dp_shared so the
 * neighbour-update ring is exercised too. Every test checks at the end that
 * each mbuf went back to the pool.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_arp.h>
#include <rte_eal.h>
#include <rte_ether.h>
#include <rte_icmp.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "net/arp.h"
#include "net/neigh.h"
#include "net/fib.h"
#include "net/net.h"
#include "sy_counters.h"
#include "test_eal.h"
#include "test_frames.h"
#include "worker.h"

#define NB_MBUF 1023

static struct rte_mempool *mp;
static struct sy_config cfg;
static struct sy_dp_shared *sh;
static struct sy_worker *w0, *w1;

static const struct rte_ether_addr mac_p0 = { { 0x02, 0, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr mac_p1 = { { 0x02, 0, 0, 0, 0, 0x02 } };
static const struct rte_ether_addr mac_peer = { { 0x02, 0xaa, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr mac_peer2 = { { 0x02, 0xaa, 0, 0, 0, 0x02 } };
static const struct rte_ether_addr mac_bcast = { { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff } };

static void
add_route_to(struct sy_config *c, const char *prefix, const char *via, unsigned port)
{
	struct sy_static_route *r = &c->routes[c->n_routes++];

	memset(r, 0, sizeof(*r));
	assert_int_equal(sy_prefix_parse(prefix, &r->prefix, &r->prefix_len), 0);
	if (via != NULL)
		assert_int_equal(sy_addr_parse(via, &r->via), 0);
	r->port = port;
}

static void
add_route(const char *prefix, const char *via, unsigned port)
{
	add_route_to(&cfg, prefix, via, port);
}

/* port 0 "client": 198.18.0.1/24 and 198.18.1.1/24
 * port 1 "backend": 198.19.0.1/24
 * 198.18.128.0/17 via 198.18.0.254 (port 0)
 * 198.18.200.0/24 via 198.19.0.254 (port 1): longer, inside the /17
 * 198.19.128.0/17 via 198.19.0.2 (port 1) */
static int
group_setup(void **state)
{
	if (sy_test_eal_init("test_l3") < 0)
		return -1;
	mp = rte_pktmbuf_pool_create("test_l3", NB_MBUF, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	if (mp == NULL)
		return -1;

	memset(&cfg, 0, sizeof(cfg));
	cfg.n_workers = 2;
	cfg.idle = SY_IDLE_ADAPTIVE;
	cfg.n_ports = 2;
	snprintf(cfg.ports[0].name, SY_NAME_MAX, "client");
	add_port_addr(&cfg.ports[0], "198.18.0.1/24");
	add_port_addr(&cfg.ports[0], "198.18.1.1/24");
	snprintf(cfg.ports[1].name, SY_NAME_MAX, "backend");
	add_port_addr(&cfg.ports[1], "198.19.0.1/24");
	add_route("198.18.128.0/17", "198.18.0.254", 0);
	add_route("198.18.200.0/24", "198.19.0.254", 1);
	add_route("198.19.128.0/17", "198.19.0.2", 1);
	(void)state;
	return 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	rte_mempool_free(mp);
	sy_test_eal_fini();
	return 0;
}

static int
setup(void **state)
{
	static const struct rte_ether_addr *const macs[] = { &mac_p0, &mac_p1 };

	(void)state;
	if ((sh = t_dp_shared(&cfg, mp, 2, macs, 2)) == NULL)
		return -1;
	w0 = sy_worker_create(sh, 0, rte_get_main_lcore());
	w1 = sy_worker_create(sh, 1, rte_get_main_lcore());
	if (w0 == NULL || w1 == NULL)
		return -1;
	/* A fixed clock, moved by hand in the timer tests. */
	w0->now = w1->now = 1000 * sh->tsc_per_ms;
	return 0;
}

static int
teardown(void **state)
{
	(void)state;
	/* Drain what was posted so nothing is left in the rings. */
	sy_neigh_drain_updates(w0);
	sy_neigh_drain_updates(w1);
	sy_worker_destroy(w0);
	sy_worker_destroy(w1);
	sy_dp_shared_free(sh);
	/* Every mbuf a test made is back: nothing leaked on any path. */
	assert_int_equal(rte_mempool_avail_count(mp), NB_MBUF);
	return 0;
}

/* ---- frame builders ---- */

static struct rte_mbuf *
mk_arp(uint16_t op, const struct rte_ether_addr *eth_dst, const struct rte_ether_addr *sha,
       const char *sip, const char *tip)
{
	return t_arp_frame(mp, op, eth_dst, sha, sip, tip);
}

struct ipspec {
	const char *src, *dst;
	uint8_t ttl;
	uint8_t proto;
	uint16_t frag;       /* fragment_offset field, host order */
	uint16_t payload;    /* bytes after the ICMP header */
	uint8_t icmp_type;
	bool bad_ip_cksum;
	bool bad_icmp_cksum;
	int16_t len_delta; /* added to total_length after the checksum */
	uint8_t version_ihl;
	uint8_t optlen;    /* IP option bytes (NOPs) */
	const struct rte_ether_addr *eth_dst;
	uint16_t ether_type;
};

static struct rte_mbuf *
mk_ip(const struct ipspec *s)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	uint16_t hlen = (uint16_t)(sizeof(struct rte_ipv4_hdr) + s->optlen);
	uint16_t l4len = (uint16_t)(sizeof(struct rte_icmp_hdr) + s->payload);
	uint16_t tlen = (uint16_t)(hlen + l4len);
	uint16_t flen = (uint16_t)RTE_MAX(sizeof(struct rte_ether_hdr) + tlen, 60u);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_icmp_hdr *ic;
	uint8_t *pl;
	uint16_t i;

	assert_non_null(m);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, flen);
	assert_non_null(eh);
	memset(eh, 0, flen);
	eh->dst_addr = s->eth_dst ? *s->eth_dst : mac_p0;
	eh->src_addr = mac_peer;
	eh->ether_type = rte_cpu_to_be_16(s->ether_type ? s->ether_type : RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	ip->version_ihl = s->version_ihl ? s->version_ihl : (uint8_t)(0x40 | (hlen / 4));
	ip->total_length = rte_cpu_to_be_16(tlen);
	ip->packet_id = RTE_BE16(0x1234);
	ip->fragment_offset = rte_cpu_to_be_16(s->frag);
	ip->time_to_live = s->ttl;
	ip->next_proto_id = s->proto ? s->proto : IPPROTO_ICMP;
	ip->src_addr = ip4(s->src);
	ip->dst_addr = ip4(s->dst);
	memset(ip + 1, RTE_IPV4_HDR_OPT_NOP, s->optlen);
	ic = (struct rte_icmp_hdr *)((uint8_t *)ip + hlen);
	ic->icmp_type = s->icmp_type ? s->icmp_type : RTE_IP_ICMP_ECHO_REQUEST;
	ic->icmp_ident = RTE_BE16(0xbeef);
	ic->icmp_seq_nb = RTE_BE16(7);
	pl = (uint8_t *)(ic + 1);
	for (i = 0; i < s->payload; i++)
		pl[i] = (uint8_t)i;
	ic->icmp_cksum = (uint16_t)~rte_raw_cksum(ic, l4len);
	if (s->bad_icmp_cksum)
		ic->icmp_cksum ^= 0x0101;
	ip->hdr_checksum = (uint16_t)~rte_raw_cksum(ip, hlen);
	if (s->bad_ip_cksum)
		ip->hdr_checksum ^= 0x0101;
	if (s->len_delta) {
		/* Keep the header checksum right so only the length is off. */
		ip->total_length = rte_cpu_to_be_16((uint16_t)(tlen + s->len_delta));
		ip->hdr_checksum = 0;
		ip->hdr_checksum = (uint16_t)~rte_raw_cksum(ip, hlen);
	}
	return m;
}

static struct rte_mbuf *
mk_echo(const char *src, const char *dst)
{
	struct ipspec s = { .src = src, .dst = dst, .ttl = 64, .payload = 56 };

	return mk_ip(&s);
}

/* ---- helpers ---- */

static void
txq_clear(struct sy_worker *w)
{
	unsigned p, i;

	for (p = 0; p < SY_MAX_PORTS; p++) {
		for (i = 0; i < w->txq[p].n; i++)
			rte_pktmbuf_free(w->txq[p].pkts[i]);
		w->txq[p].n = 0;
	}
}

static uint64_t
drops(const struct sy_worker *w, enum sy_drop_reason r)
{
	return w->counters.drops[r];
}

static uint64_t
drops_total(const struct sy_worker *w)
{
	uint64_t n = 0;
	unsigned i;

	for (i = 0; i < SY_DROP__COUNT; i++)
		n += w->counters.drops[i];
	return n;
}

/* Teach w0 the peer's MAC on port 0 (as a request for us would) and forget
 * the reply that produced. */
static void
learn_peer(struct sy_worker *w, const char *peer)
{
	sy_eth_input(w, 0, mk_arp(RTE_ARP_OP_REQUEST, &mac_bcast, &mac_peer, peer, "198.18.0.1"));
	assert_non_null(sy_arp_lookup(w, 0, ip4(peer)));
	txq_clear(w);
}

static const struct rte_arp_hdr *
as_arp(struct rte_mbuf *m, const struct rte_ether_hdr **eh)
{
	*eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	assert_int_equal((*eh)->ether_type, RTE_BE16(RTE_ETHER_TYPE_ARP));
	return (const struct rte_arp_hdr *)(*eh + 1);
}

static void
check_arp_request(struct rte_mbuf *m, const struct rte_ether_addr *src, const char *sip,
		  const char *tip)
{
	const struct rte_ether_hdr *eh;
	const struct rte_arp_hdr *a = as_arp(m, &eh);

	assert_true(rte_is_broadcast_ether_addr(&eh->dst_addr));
	assert_true(rte_is_same_ether_addr(&eh->src_addr, src));
	assert_int_equal(a->arp_opcode, RTE_BE16(RTE_ARP_OP_REQUEST));
	assert_true(rte_is_same_ether_addr(&a->arp_data.arp_sha, src));
	assert_int_equal(a->arp_data.arp_sip, ip4(sip));
	assert_int_equal(a->arp_data.arp_tip, ip4(tip));
}

/* ---- ARP ---- */

static void
test_arp_request_for_us(void **state)
{
	const struct rte_ether_hdr *eh;
	const struct rte_arp_hdr *a;
	struct rte_mbuf *m;

	(void)state;
	/* The port's second address answers too. */
	sy_eth_input(w0, 0,
		     mk_arp(RTE_ARP_OP_REQUEST, &mac_bcast, &mac_peer, "198.18.1.10", "198.18.1.1"));
	assert_int_equal(w0->txq[0].n, 1);
	assert_int_equal(w0->counters.arp_replies_sent, 1);
	assert_int_equal(drops_total(w0), 0);
	m = w0->txq[0].pkts[0];
	assert_int_equal(m->pkt_len, sizeof(struct rte_ether_hdr) + sizeof(struct rte_arp_hdr));
	a = as_arp(m, &eh);
	assert_true(rte_is_same_ether_addr(&eh->dst_addr, &mac_peer));
	assert_true(rte_is_same_ether_addr(&eh->src_addr, &mac_p0));
	assert_int_equal(a->arp_opcode, RTE_BE16(RTE_ARP_OP_REPLY));
	assert_int_equal(a->arp_hardware, RTE_BE16(RTE_ARP_HRD_ETHER));
	assert_int_equal(a->arp_protocol, RTE_BE16(RTE_ETHER_TYPE_IPV4));
	assert_true(rte_is_same_ether_addr(&a->arp_data.arp_sha, &mac_p0));
	assert_int_equal(a->arp_data.arp_sip, ip4("198.18.1.1"));
	assert_true(rte_is_same_ether_addr(&a->arp_data.arp_tha, &mac_peer));
	assert_int_equal(a->arp_data.arp_tip, ip4("198.18.1.10"));
	/* The requester was learned. */
	assert_memory_equal(sy_arp_lookup(w0, 0, ip4("198.18.1.10")), &mac_peer, 6);
	txq_clear(w0);
}

static void
test_arp_request_not_ours(void **state)
{
	(void)state;
	sy_eth_input(w0, 0,
		     mk_arp(RTE_ARP_OP_REQUEST, &mac_bcast, &mac_peer, "198.18.0.10", "198.18.0.99"));
	/* Our address, but asked on the other port: not ours there. */
	sy_eth_input(w0, 1,
		     mk_arp(RTE_ARP_OP_REQUEST, &mac_bcast, &mac_peer, "198.19.0.10", "198.18.0.1"));
	assert_int_equal(w0->txq[0].n, 0);
	assert_int_equal(w0->txq[1].n, 0);
	assert_int_equal(drops(w0, SY_DROP_ARP_NOT_OURS), 2);
	assert_int_equal(drops_total(w0), 2);
	assert_null(sy_arp_lookup(w0, 0, ip4("198.18.0.10")));
}

static void
test_arp_malformed(void **state)
{
	struct rte_mbuf *m;
	struct rte_arp_hdr *a;

	(void)state;
	m = mk_arp(RTE_ARP_OP_REQUEST, &mac_bcast, &mac_peer, "198.18.0.10", "198.18.0.1");
	a = rte_pktmbuf_mtod_offset(m, struct rte_arp_hdr *, sizeof(struct rte_ether_hdr));
	a->arp_hlen = 8;
	sy_eth_input(w0, 0, m);
	m = mk_arp(9, &mac_bcast, &mac_peer, "198.18.0.10", "198.18.0.1");
	sy_eth_input(w0, 0, m);
	/* A broadcast sender MAC would make our reply a broadcast. */
	m = mk_arp(RTE_ARP_OP_REQUEST, &mac_bcast, &mac_bcast, "198.18.0.10", "198.18.0.1");
	sy_eth_input(w0, 0, m);
	assert_int_equal(drops(w0, SY_DROP_ARP_MALFORMED), 3);
	assert_null(sy_arp_lookup(w0, 0, ip4("198.18.0.10")));
	assert_int_equal(w0->txq[0].n, 0);
}

/* An echo reply waits for ARP, then leaves with the learned MAC. */
static void
test_arp_pending_flush(void **state)
{
	const struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_mbuf *m;

	(void)state;
	sy_eth_input(w0, 0, mk_echo("198.18.0.10", "198.18.0.1"));
	assert_int_equal(w0->counters.icmp_echo_replies, 1);
	assert_int_equal(w0->counters.arp_requests_sent, 1);
	assert_int_equal(w0->txq[0].n, 1); /* only the request; the reply waits */
	check_arp_request(w0->txq[0].pkts[0], &mac_p0, "198.18.0.1", "198.18.0.10");
	assert_int_equal(w0->arp.n_pending, 1);
	txq_clear(w0);

	/* The answer (unicast to us) releases it. */
	sy_eth_input(w0, 0, mk_arp(RTE_ARP_OP_REPLY, &mac_p0, &mac_peer, "198.18.0.10", "198.18.0.1"));
	assert_int_equal(w0->arp.n_pending, 0);
	assert_int_equal(w0->txq[0].n, 1);
	m = w0->txq[0].pkts[0];
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	assert_true(rte_is_same_ether_addr(&eh->dst_addr, &mac_peer));
	assert_true(rte_is_same_ether_addr(&eh->src_addr, &mac_p0));
	assert_int_equal(eh->ether_type, RTE_BE16(RTE_ETHER_TYPE_IPV4));
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	assert_int_equal(ip->dst_addr, ip4("198.18.0.10"));
	assert_int_equal(drops_total(w0), 0);
	txq_clear(w0);
}

static void
test_arp_pending_overflow(void **state)
{
	unsigned i;

	(void)state;
	for (i = 0; i < SY_NEIGH_PENDING_PER_NH + 2; i++)
		sy_eth_input(w0, 0, mk_echo("198.18.0.20", "198.18.0.1"));
	assert_int_equal(w0->arp.n_pending, SY_NEIGH_PENDING_PER_NH);
	assert_int_equal(drops(w0, SY_DROP_ARP_PENDING_FULL), 2);
	/* One request per resolution, not one per packet. */
	assert_int_equal(w0->counters.arp_requests_sent, 1);

	/* The worker-wide bound: many next hops, a few packets each. */
	for (i = 0; i < SY_NEIGH_PENDING_MAX; i++) {
		char src[32];

		snprintf(src, sizeof(src), "198.18.0.%u", 30 + i);
		sy_eth_input(w0, 0, mk_echo(src, "198.18.0.1"));
	}
	assert_int_equal(w0->arp.n_pending, SY_NEIGH_PENDING_MAX);
	assert_int_equal(drops(w0, SY_DROP_ARP_PENDING_FULL), 2 + SY_NEIGH_PENDING_PER_NH);
	txq_clear(w0);
}

/* No answer: retries once a second, gives up after SY_NEIGH_MAX_PROBES. */
static void
test_arp_unresolved(void **state)
{
	unsigned i;

	(void)state;
	sy_eth_input(w0, 0, mk_echo("198.18.0.40", "198.18.0.1"));
	sy_eth_input(w0, 0, mk_echo("198.18.0.40", "198.18.0.1"));
	assert_int_equal(w0->counters.arp_requests_sent, 1);
	for (i = 1; i < SY_NEIGH_MAX_PROBES; i++) {
		w0->now += sy_ms_to_tsc(w0, SY_NEIGH_RETRY_MS);
		sy_neigh_timer(w0);
		assert_int_equal(w0->counters.arp_requests_sent, 1 + i);
		assert_int_equal(drops(w0, SY_DROP_ARP_UNRESOLVED), 0);
	}
	check_arp_request(w0->txq[0].pkts[w0->txq[0].n - 1], &mac_p0, "198.18.0.1", "198.18.0.40");
	w0->now += sy_ms_to_tsc(w0, SY_NEIGH_RETRY_MS);
	sy_neigh_timer(w0);
	assert_int_equal(drops(w0, SY_DROP_ARP_UNRESOLVED), 2);
	assert_int_equal(w0->arp.n_pending, 0);
	assert_int_equal(w0->counters.arp_requests_sent, SY_NEIGH_MAX_PROBES);
	txq_clear(w0);
}

/* Reachable, then stale (still used, re-resolved), then forgotten. */
static void
test_arp_aging(void **state)
{
	(void)state;
	learn_peer(w0, "198.18.0.10");
	w0->now += sy_ms_to_tsc(w0, SY_NEIGH_REACHABLE_MS);
	sy_neigh_timer(w0);
	assert_int_equal(w0->counters.arp_requests_sent, 1);
	check_arp_request(w0->txq[0].pkts[0], &mac_p0, "198.18.0.1", "198.18.0.10");
	txq_clear(w0);
	/* Stale: packets still go out with the old MAC, no hold. */
	sy_eth_input(w0, 0, mk_echo("198.18.0.10", "198.18.0.1"));
	assert_int_equal(w0->txq[0].n, 1);
	assert_int_equal(w0->arp.n_pending, 0);
	txq_clear(w0);
	/* A reply confirms it again... */
	sy_eth_input(w0, 0, mk_arp(RTE_ARP_OP_REPLY, &mac_p0, &mac_peer2, "198.18.0.10", "198.18.0.1"));
	assert_memory_equal(sy_arp_lookup(w0, 0, ip4("198.18.0.10")), &mac_peer2, 6);
	/* ...and without one it is forgotten after the stale timeout. */
	w0->now += sy_ms_to_tsc(w0, SY_NEIGH_REACHABLE_MS);
	sy_neigh_timer(w0);
	assert_non_null(sy_arp_lookup(w0, 0, ip4("198.18.0.10")));
	w0->now += sy_ms_to_tsc(w0, SY_NEIGH_STALE_TIMEOUT_MS);
	sy_neigh_timer(w0);
	assert_null(sy_arp_lookup(w0, 0, ip4("198.18.0.10")));
	txq_clear(w0);
}

/* A reply that lands on worker 0 resolves worker 1's next hop too. */
static void
test_arp_neighbour_ring(void **state)
{
	const struct rte_ether_hdr *eh;

	(void)state;
	/* Worker 1 wants the peer: its echo reply waits. */
	sy_eth_input(w1, 0, mk_echo("198.18.0.50", "198.18.0.1"));
	assert_int_equal(w1->arp.n_pending, 1);
	assert_int_equal(w1->txq[0].n, 1); /* the request */
	txq_clear(w1);

	/* The reply comes in on worker 0's queue. */
	sy_eth_input(w0, 0, mk_arp(RTE_ARP_OP_REPLY, &mac_p0, &mac_peer, "198.18.0.50", "198.18.0.1"));
	assert_non_null(sy_arp_lookup(w0, 0, ip4("198.18.0.50")));
	assert_null(sy_arp_lookup(w1, 0, ip4("198.18.0.50")));
	/* Worker 0 does not hear its own update. */
	assert_int_equal(sy_neigh_drain_updates(w0), 0);

	assert_int_equal(sy_neigh_drain_updates(w1), 1);
	assert_memory_equal(sy_arp_lookup(w1, 0, ip4("198.18.0.50")), &mac_peer, 6);
	assert_int_equal(w1->arp.n_pending, 0);
	assert_int_equal(w1->txq[0].n, 1);
	eh = rte_pktmbuf_mtod(w1->txq[0].pkts[0], const struct rte_ether_hdr *);
	assert_true(rte_is_same_ether_addr(&eh->dst_addr, &mac_peer));
	assert_int_equal(drops_total(w0) + drops_total(w1), 0);
	txq_clear(w1);
}

/* ---- ICMP ---- */

static void
check_echo_reply(struct rte_mbuf *m, const char *src, const char *dst,
		 const struct rte_ether_addr *eth_src, const struct rte_ether_addr *eth_dst,
		 uint16_t payload)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eh + 1);
	const struct rte_icmp_hdr *ic = (const struct rte_icmp_hdr *)(ip + 1);
	uint16_t l4len = (uint16_t)(sizeof(*ic) + payload);
	const uint8_t *pl = (const uint8_t *)(ic + 1);
	uint16_t i;

	assert_true(rte_is_same_ether_addr(&eh->dst_addr, eth_dst));
	assert_true(rte_is_same_ether_addr(&eh->src_addr, eth_src));
	assert_int_equal(eh->ether_type, RTE_BE16(RTE_ETHER_TYPE_IPV4));
	assert_int_equal(m->pkt_len, sizeof(*eh) + sizeof(*ip) + l4len);
	assert_int_equal(ip->version_ihl, 0x45);
	assert_int_equal(rte_be_to_cpu_16(ip->total_length), sizeof(*ip) + l4len);
	assert_int_equal(ip->src_addr, ip4(src));
	assert_int_equal(ip->dst_addr, ip4(dst));
	assert_int_equal(ip->time_to_live, SY_IPV4_DEFAULT_TTL);
	assert_int_equal(ip->next_proto_id, IPPROTO_ICMP);
	assert_int_equal(ip->fragment_offset, 0);
	assert_int_equal(rte_raw_cksum(ip, sizeof(*ip)), 0xffff);
	assert_int_equal(ic->icmp_type, RTE_IP_ICMP_ECHO_REPLY);
	assert_int_equal(ic->icmp_code, 0);
	assert_int_equal(ic->icmp_ident, RTE_BE16(0xbeef));
	assert_int_equal(ic->icmp_seq_nb, RTE_BE16(7));
	assert_int_equal(rte_raw_cksum(ic, l4len), 0xffff);
	for (i = 0; i < payload; i++)
		assert_int_equal(pl[i], (uint8_t)i);
}

static void
test_icmp_echo(void **state)
{
	struct ipspec s = { .src = "198.18.0.10", .dst = "198.18.0.1", .ttl = 3, .payload = 56 };

	(void)state;
	learn_peer(w0, "198.18.0.10");
	sy_eth_input(w0, 0, mk_ip(&s));
	assert_int_equal(w0->counters.icmp_echo_replies, 1);
	assert_int_equal(w0->txq[0].n, 1);
	check_echo_reply(w0->txq[0].pkts[0], "198.18.0.1", "198.18.0.10", &mac_p0, &mac_peer, 56);
	txq_clear(w0);

	/* Tiny echo in a padded 60-byte frame: the padding is not echoed. */
	s.payload = 0;
	sy_eth_input(w0, 0, mk_ip(&s));
	assert_int_equal(w0->txq[0].n, 1);
	check_echo_reply(w0->txq[0].pkts[0], "198.18.0.1", "198.18.0.10", &mac_p0, &mac_peer, 0);
	txq_clear(w0);

	/* IP options are not reflected. */
	s.payload = 20;
	s.optlen = 8;
	sy_eth_input(w0, 0, mk_ip(&s));
	assert_int_equal(w0->txq[0].n, 1);
	check_echo_reply(w0->txq[0].pkts[0], "198.18.0.1", "198.18.0.10", &mac_p0, &mac_peer, 20);
	txq_clear(w0);

	/* Pinging the second address answers from it. */
	s.optlen = 0;
	s.dst = "198.18.1.1";
	sy_eth_input(w0, 0, mk_ip(&s));
	assert_int_equal(w0->txq[0].n, 1);
	check_echo_reply(w0->txq[0].pkts[0], "198.18.1.1", "198.18.0.10", &mac_p0, &mac_peer, 20);
	txq_clear(w0);
	assert_int_equal(drops_total(w0), 0);
	assert_int_equal(w0->counters.icmp_echo_replies, 4);
}

/* A reply to a host behind a static route goes to the gateway's MAC on the
 * gateway's port, even when the request came in elsewhere. */
static void
test_icmp_reply_via_gateway(void **state)
{
	(void)state;
	sy_eth_input(w0, 0, mk_echo("198.18.200.7", "198.18.0.1"));
	assert_int_equal(w0->txq[0].n, 0);
	assert_int_equal(w0->txq[1].n, 1);
	check_arp_request(w0->txq[1].pkts[0], &mac_p1, "198.19.0.1", "198.19.0.254");
	txq_clear(w0);
	sy_eth_input(w0, 1, mk_arp(RTE_ARP_OP_REPLY, &mac_p1, &mac_peer2, "198.19.0.254", "198.19.0.1"));
	assert_int_equal(w0->txq[1].n, 1);
	check_echo_reply(w0->txq[1].pkts[0], "198.18.0.1", "198.18.200.7", &mac_p1, &mac_peer2, 56);
	assert_int_equal(drops_total(w0), 0);
	txq_clear(w0);
}

/* ---- drops: each case hits exactly its own counter ---- */

static void
expect_drop(struct rte_mbuf *m, enum sy_drop_reason why)
{
	uint64_t before = drops(w0, why), total = drops_total(w0);

	sy_eth_input(w0, 0, m);
	if (drops(w0, why) != before + 1 || drops_total(w0) != total + 1)
		fail_msg("expected one %s drop", sy_drop_reason_names[why]);
	assert_int_equal(w0->txq[0].n + w0->txq[1].n, 0);
}

static void
test_ipv4_drops(void **state)
{
	struct ipspec base = { .src = "198.18.0.10", .dst = "198.18.0.1", .ttl = 64, .payload = 8 };
	struct ipspec s;
	struct rte_mbuf *m;

	(void)state;
	learn_peer(w0, "198.18.0.10");

	s = base; s.bad_ip_cksum = true;
	expect_drop(mk_ip(&s), SY_DROP_IPV4_BAD_CHECKSUM);
	s = base; s.bad_icmp_cksum = true;
	expect_drop(mk_ip(&s), SY_DROP_ICMP_BAD_CHECKSUM);
	s = base; s.dst = "198.18.0.77";
	expect_drop(mk_ip(&s), SY_DROP_IPV4_NOT_OURS);
	s = base; s.dst = "255.255.255.255";
	expect_drop(mk_ip(&s), SY_DROP_IPV4_NOT_OURS);
	s = base; s.ttl = 0;
	expect_drop(mk_ip(&s), SY_DROP_IPV4_TTL_EXPIRED);
	s = base; s.frag = RTE_IPV4_HDR_MF_FLAG;
	expect_drop(mk_ip(&s), SY_DROP_IPV4_FRAGMENT);
	s = base; s.frag = 100; /* a later fragment */
	expect_drop(mk_ip(&s), SY_DROP_IPV4_FRAGMENT);
	s = base; s.payload = 200; s.len_delta = 100; /* claims more than arrived */
	expect_drop(mk_ip(&s), SY_DROP_IPV4_TRUNCATED);
	s = base; s.payload = 0; s.len_delta = -12; /* 16: shorter than its own header */
	expect_drop(mk_ip(&s), SY_DROP_IPV4_BAD_HEADER);
	s = base; s.version_ihl = 0x65;
	expect_drop(mk_ip(&s), SY_DROP_IPV4_BAD_HEADER);
	s = base; s.version_ihl = 0x44;
	expect_drop(mk_ip(&s), SY_DROP_IPV4_BAD_HEADER);
	s = base; s.src = "224.0.0.5";
	expect_drop(mk_ip(&s), SY_DROP_IPV4_MARTIAN_SOURCE);
	s = base; s.src = "198.19.0.1"; /* our own address */
	expect_drop(mk_ip(&s), SY_DROP_IPV4_MARTIAN_SOURCE);
	s = base; s.proto = IPPROTO_TCP;
	expect_drop(mk_ip(&s), SY_DROP_TCP_MALFORMED); /* no room for a TCP header */
	s = base; s.proto = IPPROTO_UDP;
	expect_drop(mk_ip(&s), SY_DROP_UDP_NO_SERVICE);
	s = base; s.proto = IPPROTO_GRE;
	expect_drop(mk_ip(&s), SY_DROP_IPV4_UNSUPPORTED_PROTO);
	s = base; s.icmp_type = 13; /* timestamp request */
	expect_drop(mk_ip(&s), SY_DROP_ICMP_UNSUPPORTED_TYPE);

	/* 14 + 10 bytes: less than an IPv4 header (no 60-byte padding here). */
	m = rte_pktmbuf_alloc(mp);
	memset(rte_pktmbuf_append(m, 24), 0, 24);
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = mac_p0;
	rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	expect_drop(m, SY_DROP_IPV4_TRUNCATED);
	/* Less than an ethernet header. */
	m = rte_pktmbuf_alloc(mp);
	memset(rte_pktmbuf_append(m, 10), 0, 10);
	expect_drop(m, SY_DROP_ETH_TRUNCATED);

	/* ICMP header cut short (IP length says 4 bytes of ICMP). */
	s = base; s.payload = 0; s.len_delta = -4;
	expect_drop(mk_ip(&s), SY_DROP_ICMP_TRUNCATED);

	/* Ethernet layer. */
	s = base; s.eth_dst = &mac_peer2;
	expect_drop(mk_ip(&s), SY_DROP_ETH_NOT_OURS);
	s = base; s.eth_dst = &mac_p1; /* port 1's MAC arriving on port 0 */
	expect_drop(mk_ip(&s), SY_DROP_ETH_NOT_OURS);
	s = base; s.ether_type = RTE_ETHER_TYPE_IPV6;
	expect_drop(mk_ip(&s), SY_DROP_IPV6_OFF); /* port 0 has no IPv6 address here */
	s = base; s.ether_type = RTE_ETHER_TYPE_VLAN;
	expect_drop(mk_ip(&s), SY_DROP_ETH_UNSUPPORTED_TYPE);
	assert_int_equal(w0->counters.icmp_echo_replies, 0);
}

static void
test_ipv4_no_route(void **state)
{
	struct ipspec s = { .src = "203.0.113.5", .dst = "198.18.0.1", .ttl = 64, .payload = 8 };

	(void)state;
	/* The request arrives (we answer anything addressed to us), but the
	 * reply has nowhere to go. */
	expect_drop(mk_ip(&s), SY_DROP_IPV4_NO_ROUTE);
	assert_int_equal(w0->counters.icmp_echo_replies, 1);
	assert_int_equal(w0->counters.arp_requests_sent, 0);
}

/* ---- FIB ---- */

static void
check_route(const char *dst, int rc, unsigned port, const char *nexthop, bool direct)
{
	struct sy_addr a;
	struct sy_fib_result r;

	assert_int_equal(sy_addr_parse(dst, &a), 0);
	assert_int_equal(sy_fib_lookup(sh->fib, &a, &r), rc);
	if (rc != 0)
		return;
	assert_int_equal(r.port, port);
	assert_int_equal(r.direct, direct);
	assert_int_equal(r.nexthop.family, AF_INET);
	assert_int_equal(r.nexthop.v4, ip4(nexthop));
}

static void
test_fib(void **state)
{
	(void)state;
	check_route("198.18.0.50", 0, 0, "198.18.0.50", true);
	check_route("198.18.1.200", 0, 0, "198.18.1.200", true);
	check_route("198.19.0.9", 0, 1, "198.19.0.9", true);
	check_route("198.18.130.1", 0, 0, "198.18.0.254", false);   /* the /17 */
	check_route("198.18.200.7", 0, 1, "198.19.0.254", false);   /* the /24 inside it */
	check_route("198.18.201.7", 0, 0, "198.18.0.254", false);
	check_route("198.19.130.40", 0, 1, "198.19.0.2", false);
	check_route("203.0.113.1", -ENETUNREACH, 0, NULL, false);
	check_route("198.18.2.1", -ENETUNREACH, 0, NULL, false);
	check_route("2001:2:ff::1", -ENETUNREACH, 0, NULL, false); /* no IPv6 on any port */
}

/* A static route for a connected prefix does not hijack it; a bad route is
 * refused with its index in the message. Runs without setup(): see main(). */
static void
test_fib_config(void **state)
{
	struct sy_config c = cfg;
	struct sy_fib *fib;
	struct sy_fib_result r;
	struct sy_addr a;
	char err[256] = "";

	(void)state;
	c.n_routes = 1;
	assert_int_equal(sy_prefix_parse("198.18.0.0/24", &c.routes[0].prefix,
					 &c.routes[0].prefix_len), 0);
	assert_int_equal(sy_addr_parse("198.19.0.2", &c.routes[0].via), 0);
	c.routes[0].port = 1;
	assert_int_equal(sy_fib_create(&c, &fib, err, sizeof(err)), 0);
	assert_int_equal(sy_addr_parse("198.18.0.9", &a), 0);
	assert_int_equal(sy_fib_lookup(fib, &a, &r), 0);
	assert_int_equal(r.port, 0);
	assert_true(r.direct);
	assert_int_equal(sy_addr_parse("198.19.77.1", &a), 0);
	assert_int_equal(sy_fib_lookup(fib, &a, &r), -ENETUNREACH);
	sy_fib_free(fib);

	/* A default route: what nothing longer takes (rte_lpm has no /0). */
	c.n_routes = 2;
	c.routes[1] = c.routes[0];
	assert_int_equal(sy_prefix_parse("0.0.0.0/0", &c.routes[1].prefix,
					 &c.routes[1].prefix_len), 0);
	assert_int_equal(sy_fib_create(&c, &fib, err, sizeof(err)), 0);
	assert_int_equal(sy_fib_lookup(fib, &a, &r), 0);
	assert_int_equal(r.port, 1);
	assert_false(r.direct);
	assert_int_equal(r.nexthop.v4, ip4("198.19.0.2"));
	assert_int_equal(sy_addr_parse("198.18.0.9", &a), 0);
	assert_int_equal(sy_fib_lookup(fib, &a, &r), 0);
	assert_int_equal(r.port, 0);
	assert_true(r.direct);
	sy_fib_free(fib);

	c.n_routes = 1;
	c.routes[0].port = 5;
	assert_int_equal(sy_fib_create(&c, &fib, err, sizeof(err)), -EINVAL);
	assert_null(fib);
	assert_non_null(strstr(err, "route 0"));
}

/* IPv6 next hops, the same with a few prefixes (the scan, struct sy_fib)
 * as with many (rte_lpm6): longest prefix first, a connected prefix over a
 * static route for the same prefix, the default route last. */
static void
check_route6(const struct sy_fib *fib, const char *dst, unsigned port, const char *nexthop)
{
	struct sy_addr a, want;
	struct sy_fib_result r;

	assert_int_equal(sy_addr_parse(dst, &a), 0);
	if (nexthop == NULL) {
		assert_int_equal(sy_fib_lookup(fib, &a, &r), -ENETUNREACH);
		return;
	}
	assert_int_equal(sy_fib_lookup(fib, &a, &r), 0);
	assert_int_equal(sy_addr_parse(nexthop, &want), 0);
	assert_int_equal(r.port, port);
	assert_int_equal(r.direct, sy_addr_eq(&want, &a));
	assert_memory_equal(r.nexthop.v6, want.v6, 16);
}

static void
fib6_cases(const struct sy_config *c, bool scanned, bool with_default)
{
	struct sy_fib *fib;
	char err[256] = "";

	if (sy_fib_create(c, &fib, err, sizeof(err)) != 0)
		fail_msg("sy_fib_create: %s", err);
	assert_int_equal(fib->n_scan6 <= SY_FIB6_SCAN_MAX, scanned);
	/* rte_lpm6's 64 MB only when the scan cannot do. */
	assert_int_equal(fib->lpm6 == NULL, scanned);
	check_route6(fib, "2001:2::9", 0, "2001:2::9");                 /* connected /64 */
	check_route6(fib, "2001:2:0:1::5", 1, "2001:2:0:1::5");         /* connected /64 */
	check_route6(fib, "2001:2:0:80::1", 0, "2001:2::fe");           /* the /48 */
	check_route6(fib, "2001:2:0:81::1", 1, "2001:2:0:1::fe");       /* the /64 in it */
	check_route6(fib, "2001:2:0:81::77", 0, "2001:2::77");          /* the /128 in that */
	check_route6(fib, "2001:2:0:ff00::1", 0, "2001:2::fe");
	check_route6(fib, "2001:2:1::1", 1, with_default ? "2001:2:0:1::1" : NULL);
	check_route6(fib, "2001:3::1", 1, with_default ? "2001:2:0:1::1" : NULL);
	check_route6(fib, "198.18.0.9", 0, NULL); /* no IPv4 here */
	sy_fib_free(fib);
}


static void
test_fib6_scan_and_lpm6(void **state)
{
	static struct sy_config c;
	unsigned i;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.n_ports = 2;
	snprintf(c.ports[0].name, SY_NAME_MAX, "client");
	snprintf(c.ports[1].name, SY_NAME_MAX, "backend");
	assert_int_equal(sy_prefix_parse("2001:2::1/64", &c.ports[0].ipv6[0].addr,
					 &c.ports[0].ipv6[0].prefix_len), 0);
	assert_int_equal(sy_prefix_parse("2001:2:0:1::1/64", &c.ports[1].ipv6[0].addr,
					 &c.ports[1].ipv6[0].prefix_len), 0);
	c.ports[0].n_ipv6 = c.ports[1].n_ipv6 = 1;
	/* A static route for port 1's own prefix: the connected one wins. */
	add_route_to(&c, "2001:2:0:1::/64", "2001:2::fe", 0);
	add_route_to(&c, "2001:2::/48", "2001:2::fe", 0);
	add_route_to(&c, "2001:2:0:81::/64", "2001:2:0:1::fe", 1);
	add_route_to(&c, "2001:2:0:81::77/128", "2001:2::77", 0);
	fib6_cases(&c, true, false);
	add_route_to(&c, "::/0", "2001:2:0:1::1", 1);
	fib6_cases(&c, true, true);
	/* Prefixes that take none of those destinations, until the scan
	 * gives way to rte_lpm6: the same answers. */
	for (i = 0; i < SY_FIB6_SCAN_MAX; i++) {
		char pfx[64];

		snprintf(pfx, sizeof(pfx), "2001:2:%x::/48", 0x100 + i);
		add_route_to(&c, pfx, "2001:2::fe", 0);
	}
	fib6_cases(&c, false, true);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_arp_request_for_us, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arp_request_not_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arp_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arp_pending_flush, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arp_pending_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arp_unresolved, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arp_aging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_arp_neighbour_ring, setup, teardown),
		cmocka_unit_test_setup_teardown(test_icmp_echo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_icmp_reply_via_gateway, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv4_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ipv4_no_route, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fib, setup, teardown),
		/* Alone: a DIR-24-8 table is 64 MB, two do not fit in -m 128. */
		cmocka_unit_test(test_fib_config),
		cmocka_unit_test(test_fib6_scan_and_lpm6),
	};

	return cmocka_run_group_tests_name("l3", tests, group_setup, group_teardown);
}
