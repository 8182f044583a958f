/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * IPv6 input of the data plane without ports (net/ipv6.c, net/icmp6.c):
 * crafted frames go into sy_eth_input of a worker, and what it would send
 * is read back from its TX buffer. Echo and neighbour discovery for the
 * port's addresses, the extension-header walk and its bounds, and a drop
 * with its named reason for everything else. Checksums are checked
 * against a reference computed here byte by byte, not with the code under
 * test. Every test checks at the end that each mbuf went back to the pool.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "net/nd.h"
#include "net/neigh.h"
#include "net/net.h"
#include "sy_counters.h"
#include "test_eal.h"
#include "test_frames.h"
#include "worker.h"

#define NB_MBUF 255

static struct rte_mempool *mp;
static struct sy_config cfg;
static struct sy_dp_shared *sh;
static struct sy_worker *w0;

static const struct rte_ether_addr mac_p0 = { { 0x02, 0, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr mac_peer = { { 0x02, 0xaa, 0, 0, 0, 0x01 } };
static const struct rte_ether_addr mac_other = { { 0x02, 0xbb, 0, 0, 0, 0x07 } };
/* port 0's link-local address: fe80:: + modified EUI-64 of mac_p0 */
#define LL_P0 "fe80::ff:fe00:1"

/* port 0 "client": 198.18.0.1/24, 2001:2::1/64 and 2001:2:0:1::1/64
 * port 1 "backend": 198.19.0.1/24, no IPv6
 * route 2001:2:5::/64 via 2001:2::fe on port 0 */
static int
group_setup(void **state)
{
	struct sy_port_addr *pa;

	(void)state;
	if (sy_test_eal_init("test_ipv6") < 0)
		return -1;
	mp = rte_pktmbuf_pool_create("test_ipv6", NB_MBUF, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				     SOCKET_ID_ANY);
	if (mp == NULL)
		return -1;
	memset(&cfg, 0, sizeof(cfg));
	cfg.n_workers = 1;
	cfg.idle = SY_IDLE_ADAPTIVE;
	cfg.n_ports = 2;
	snprintf(cfg.ports[0].name, SY_NAME_MAX, "client");
	add_port_addr(&cfg.ports[0], "198.18.0.1/24");
	pa = &cfg.ports[0].ipv6[cfg.ports[0].n_ipv6++];
	assert_int_equal(sy_prefix_parse("2001:2::1/64", &pa->addr, &pa->prefix_len), 0);
	pa = &cfg.ports[0].ipv6[cfg.ports[0].n_ipv6++];
	assert_int_equal(sy_prefix_parse("2001:2:0:1::1/64", &pa->addr, &pa->prefix_len), 0);
	snprintf(cfg.ports[1].name, SY_NAME_MAX, "backend");
	add_port_addr(&cfg.ports[1], "198.19.0.1/24");
	cfg.n_routes = 1;
	assert_int_equal(sy_prefix_parse("2001:2:5::/64", &cfg.routes[0].prefix,
					 &cfg.routes[0].prefix_len), 0);
	assert_int_equal(sy_addr_parse("2001:2::fe", &cfg.routes[0].via), 0);
	cfg.routes[0].port = 0;
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
	static const struct rte_ether_addr *const macs[] = { &mac_p0, &mac_other };

	(void)state;
	if ((sh = t_dp_shared(&cfg, mp, 1, macs, 2)) == NULL)
		return -1;
	w0 = sy_worker_create(sh, 0, rte_get_main_lcore());
	return w0 == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	unsigned p, i;

	(void)state;
	for (p = 0; p < SY_MAX_PORTS; p++) {
		for (i = 0; i < w0->txq[p].n; i++)
			rte_pktmbuf_free(w0->txq[p].pkts[i]);
		w0->txq[p].n = 0;
	}
	sy_worker_destroy(w0);
	sy_dp_shared_free(sh);
	assert_int_equal(rte_mempool_avail_count(mp), NB_MBUF);
	return 0;
}

/* ---- the reference checksum (RFC 4443 2.3, RFC 8200 8.1) ---- */

static uint32_t
ref_add(uint32_t sum, const uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		sum += i % 2 == 0 ? (uint32_t)p[i] << 8 : p[i];
	return sum;
}

/* The checksum field's value for an ICMPv6 message (its own checksum
 * field taken as zero). */
static uint16_t
ref_icmp6_cksum(const uint8_t src[16], const uint8_t dst[16], const uint8_t *msg, size_t len)
{
	uint8_t ph[8] = { (uint8_t)(len >> 24), (uint8_t)(len >> 16), (uint8_t)(len >> 8),
			  (uint8_t)len, 0, 0, 0, IPPROTO_ICMPV6 };
	uint32_t sum = 0;
	size_t i;

	sum = ref_add(sum, src, 16);
	sum = ref_add(sum, dst, 16);
	sum = ref_add(sum, ph, 8);
	for (i = 0; i < len; i++)
		if (i != 2 && i != 3)
			sum += i % 2 == 0 ? (uint32_t)msg[i] << 8 : msg[i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* ---- frames ---- */

struct ext {
	uint8_t type;    /* 0 hop-by-hop, 43 routing, 44 fragment, 60 destination options */
	uint8_t len8;    /* header length in 8-byte units beyond the first */
	uint8_t opt;     /* an option type to put first (0: padding only) */
	uint8_t seg_left; /* routing */
};

struct spec6 {
	const char *src, *dst;
	const struct rte_ether_addr *eth_dst;
	uint8_t hop;      /* 0: 64 */
	uint8_t proto;    /* after the extension headers; 0: ICMPv6 */
	const uint8_t *msg;
	size_t msg_len;
	struct ext ext[10];
	unsigned n_ext;
	bool bad_cksum;
};

static struct rte_mbuf *
mk6(const struct spec6 *s)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	size_t ext_len = 0, flen, off;
	struct rte_ether_hdr *eh;
	struct rte_ipv6_hdr *ip;
	uint8_t *p, nh;
	unsigned i;

	assert_non_null(m);
	for (i = 0; i < s->n_ext; i++)
		ext_len += (s->ext[i].len8 + 1u) * 8;
	flen = RTE_MAX(sizeof(*eh) + sizeof(*ip) + ext_len + s->msg_len, (size_t)60);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)flen);
	assert_non_null(eh);
	memset(eh, 0, flen);
	eh->dst_addr = s->eth_dst ? *s->eth_dst : mac_p0;
	eh->src_addr = mac_peer;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip = (struct rte_ipv6_hdr *)(eh + 1);
	ip->vtc_flow = RTE_BE32(6u << 28);
	ip->payload_len = rte_cpu_to_be_16((uint16_t)(ext_len + s->msg_len));
	ip->hop_limits = s->hop ? s->hop : 64;
	ip6(s->src, ip->src_addr);
	ip6(s->dst, ip->dst_addr);
	nh = s->proto ? s->proto : IPPROTO_ICMPV6;
	p = (uint8_t *)(ip + 1);
	off = 0;
	for (i = 0; i < s->n_ext; i++) {
		uint8_t *h = p + off;
		size_t hl = (s->ext[i].len8 + 1u) * 8;

		h[0] = i + 1 < s->n_ext ? s->ext[i + 1].type : nh;
		h[1] = s->ext[i].len8;
		if (s->ext[i].type == 43) {
			h[2] = 0; /* routing type 0 */
			h[3] = s->ext[i].seg_left;
		} else if (s->ext[i].type != 44) {
			/* options: the one asked for (with 0 bytes of data),
			 * then PadN over the rest */
			size_t o = 2;

			if (s->ext[i].opt != 0) {
				h[o] = s->ext[i].opt;
				h[o + 1] = 0;
				o += 2;
			}
			h[o] = 1;
			h[o + 1] = (uint8_t)(hl - o - 2);
		}
		off += hl;
	}
	ip->proto = s->n_ext ? s->ext[0].type : nh;
	memcpy(p + off, s->msg, s->msg_len);
	if (nh == IPPROTO_ICMPV6 && s->msg_len >= 4) {
		uint16_t c = ref_icmp6_cksum(ip->src_addr, ip->dst_addr, p + off, s->msg_len);

		if (s->bad_cksum)
			c ^= 0x0101;
		p[off + 2] = (uint8_t)(c >> 8);
		p[off + 3] = (uint8_t)c;
	}
	return m;
}

/* An echo request: id 0xbeef, seq 7, 56 bytes of data. */
static size_t
echo_msg(uint8_t *b)
{
	size_t i;

	memset(b, 0, 64);
	b[0] = 128;
	b[4] = 0xbe;
	b[5] = 0xef;
	b[7] = 7;
	for (i = 8; i < 64; i++)
		b[i] = (uint8_t)i;
	return 64;
}

/* A neighbour solicitation for target, with a source link-layer option
 * naming sll (NULL: none). */
static size_t
ns_msg(uint8_t *b, const char *target, const struct rte_ether_addr *sll)
{
	memset(b, 0, 32);
	b[0] = 135;
	ip6(target, b + 8);
	if (sll == NULL)
		return 24;
	b[24] = 1;
	b[25] = 1;
	memcpy(b + 26, sll->addr_bytes, 6);
	return 32;
}

/* The one frame w0 sent on port 0: its IPv6 header and ICMPv6 message,
 * with the checksum checked against the reference. */
static const uint8_t *
sent(const struct rte_ether_addr *eth_dst, struct rte_ipv6_hdr *ip_out, size_t *len)
{
	struct rte_mbuf *m;
	const struct rte_ether_hdr *eh;
	const struct rte_ipv6_hdr *ip;
	const uint8_t *msg;

	assert_int_equal(w0->txq[0].n, 1);
	m = w0->txq[0].pkts[0];
	assert_true(rte_pktmbuf_is_contiguous(m));
	eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	assert_int_equal(eh->ether_type, RTE_BE16(RTE_ETHER_TYPE_IPV6));
	assert_true(rte_is_same_ether_addr(&eh->dst_addr, eth_dst));
	assert_true(rte_is_same_ether_addr(&eh->src_addr, &mac_p0));
	ip = (const struct rte_ipv6_hdr *)(eh + 1);
	assert_int_equal(rte_be_to_cpu_32(ip->vtc_flow) >> 28, 6);
	assert_int_equal(ip->proto, IPPROTO_ICMPV6); /* no extension headers */
	*len = rte_be_to_cpu_16(ip->payload_len);
	assert_int_equal(m->pkt_len, sizeof(*eh) + sizeof(*ip) + *len);
	msg = (const uint8_t *)(ip + 1);
	assert_int_equal((msg[2] << 8) | msg[3], ref_icmp6_cksum(ip->src_addr, ip->dst_addr, msg, *len));
	*ip_out = *ip;
	return msg;
}

static void
assert_addr(const uint8_t a[16], const char *want)
{
	uint8_t b[16];

	ip6(want, b);
	assert_memory_equal(a, b, 16);
}

static uint64_t
drops(enum sy_drop_reason r)
{
	return w0->counters.drops[r];
}

/* ---- tests ---- */

/* A neighbour the worker already knows (as a solicitation from it, or
 * another worker's update, would have taught it). */
static void
know(const char *addr, const struct rte_ether_addr *mac)
{
	uint8_t a[16];

	ip6(addr, a);
	sy_neigh_confirm(w0, &w0->nd, 0, a, mac);
}

static void
txq_clear(void)
{
	unsigned i;

	for (i = 0; i < w0->txq[0].n; i++)
		rte_pktmbuf_free(w0->txq[0].pkts[i]);
	w0->txq[0].n = 0;
}

/* The solicitation w0 sent for target, to the solicited-node group (or
 * to `unicast`), from `src`, with our MAC as its source link-layer address. */
static void
assert_solicitation(const char *target, const char *src, const struct rte_ether_addr *unicast)
{
	struct rte_ether_addr group = { { 0x33, 0x33, 0xff } };
	struct rte_ipv6_hdr ip;
	uint8_t t[16], want_dst[16] = { 0xff, 0x02, [11] = 1, [12] = 0xff };
	const uint8_t *ns;
	size_t len;

	ip6(target, t);
	memcpy(&group.addr_bytes[3], t + 13, 3);
	memcpy(want_dst + 13, t + 13, 3);
	ns = sent(unicast ? unicast : &group, &ip, &len);
	assert_int_equal(len, 32);
	assert_int_equal(ns[0], 135);
	assert_int_equal(ns[1], 0);
	assert_memory_equal(ns + 8, t, 16);
	assert_int_equal(ns[24], 1); /* source link-layer address */
	assert_int_equal(ns[25], 1);
	assert_memory_equal(ns + 26, mac_p0.addr_bytes, 6);
	assert_int_equal(ip.hop_limits, 255);
	assert_addr(ip.src_addr, src);
	assert_memory_equal(ip.dst_addr, unicast ? t : want_dst, 16);
}

/* A neighbour advertisement from mac_peer for target with flags (0x40
 * solicited, 0x20 override) and a target link-layer option naming tll. */
static struct rte_mbuf *
mk_advert(const char *target, const char *dst, uint8_t flags, const struct rte_ether_addr *tll)
{
	uint8_t na[32];
	struct spec6 s = { .src = target, .dst = dst, .hop = 255, .msg = na, .msg_len = 32 };

	memset(na, 0, sizeof(na));
	na[0] = 136;
	na[4] = flags;
	ip6(target, na + 8);
	na[24] = 2;
	na[25] = 1;
	memcpy(na + 26, tll->addr_bytes, 6);
	if (strncmp(dst, "ff02", 4) == 0) {
		static const struct rte_ether_addr all_mac = { { 0x33, 0x33, 0, 0, 0, 1 } };

		s.eth_dst = &all_mac;
	}
	return mk6(&s);
}

/* Echo from a neighbour not yet known: the reply waits while a
 * solicitation asks for it, and goes when the advertisement comes. */
static void
test_echo(void **state)
{
	uint8_t req[64], want[64];
	struct spec6 s = { .src = "2001:2::2", .dst = "2001:2::1", .msg = req };
	struct rte_ipv6_hdr ip;
	const uint8_t *r;
	size_t len;

	(void)state;
	s.msg_len = echo_msg(req);
	sy_eth_input(w0, 0, mk6(&s));
	assert_solicitation("2001:2::2", "2001:2::1", NULL);
	txq_clear();
	assert_int_equal(w0->nd.n_pending, 1);
	assert_int_equal(w0->counters.nd_solicits_sent, 1);

	sy_eth_input(w0, 0, mk_advert("2001:2::2", "2001:2::1", 0x40 | 0x20, &mac_peer));
	assert_int_equal(w0->nd.n_pending, 0);
	r = sent(&mac_peer, &ip, &len);
	assert_int_equal(len, 64);
	assert_int_equal(r[0], 129);
	assert_int_equal(r[1], 0);
	memcpy(want, req, sizeof(want));
	assert_memory_equal(r + 4, want + 4, 60); /* id, seq and data echoed */
	assert_addr(ip.src_addr, "2001:2::1");
	assert_addr(ip.dst_addr, "2001:2::2");
	assert_int_equal(ip.hop_limits, 64);
	assert_int_equal(w0->counters.icmp6_echo_replies, 1);
	assert_int_equal(drops(SY_DROP_ND_ADVERT_IGNORED), 0);
}

/* Off the link: the reply goes to the static route's gateway, which is
 * what gets solicited; with no route it is dropped as ipv6_no_route. */
static void
test_echo_off_link(void **state)
{
	uint8_t req[64];
	struct spec6 s = { .src = "2001:2:5::9", .dst = "2001:2::1", .msg = req };
	struct rte_ipv6_hdr ip;
	size_t len;

	(void)state;
	s.msg_len = echo_msg(req);
	sy_eth_input(w0, 0, mk6(&s));
	assert_solicitation("2001:2::fe", "2001:2::1", NULL);
	txq_clear();
	sy_eth_input(w0, 0, mk_advert("2001:2::fe", "2001:2::1", 0x40, &mac_other));
	assert_int_equal(sent(&mac_other, &ip, &len)[0], 129);
	assert_addr(ip.dst_addr, "2001:2:5::9");
	txq_clear();

	s.src = "2001:2:6::9";
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_IPV6_NO_ROUTE), 1);
	assert_int_equal(w0->txq[0].n, 0);
}

/* Advertisements create nothing (RFC 4861 7.2.5); a group-addressed one
 * claiming to be solicited is malformed; a known MAC changes only with
 * Override. */
static void
test_advert_rules(void **state)
{
	uint8_t a[16];

	(void)state;
	sy_eth_input(w0, 0, mk_advert("2001:2::33", "2001:2::1", 0x40 | 0x20, &mac_peer));
	assert_int_equal(drops(SY_DROP_ND_ADVERT_IGNORED), 1);
	assert_null(sy_nd_lookup(w0, 0, (ip6("2001:2::33", a), a)));

	sy_eth_input(w0, 0, mk_advert("2001:2::33", "ff02::1", 0x40, &mac_peer));
	assert_int_equal(drops(SY_DROP_ND_MALFORMED), 1);

	know("2001:2::33", &mac_peer);
	sy_eth_input(w0, 0, mk_advert("2001:2::33", "ff02::1", 0, &mac_other));
	assert_int_equal(drops(SY_DROP_ND_ADVERT_IGNORED), 2);
	assert_memory_equal(sy_nd_lookup(w0, 0, a), &mac_peer, 6);
	sy_eth_input(w0, 0, mk_advert("2001:2::33", "ff02::1", 0x20, &mac_other));
	assert_memory_equal(sy_nd_lookup(w0, 0, a), &mac_other, 6);
	assert_int_equal(w0->txq[0].n, 0);
}

/* A solicitation teaches its sender's MAC (RFC 4861 7.2.3), but only for
 * a neighbour: not for an off-link source. */
static void
test_learn_from_solicitation(void **state)
{
	static const struct rte_ether_addr sn_mac = { { 0x33, 0x33, 0xff, 0, 0, 0x01 } };
	uint8_t ns[32], a[16];
	struct spec6 s = { .src = "2001:2::44", .dst = "ff02::1:ff00:1", .eth_dst = &sn_mac,
			   .hop = 255, .msg = ns };

	(void)state;
	s.msg_len = ns_msg(ns, "2001:2::1", &mac_other);
	sy_eth_input(w0, 0, mk6(&s));
	assert_memory_equal(sy_nd_lookup(w0, 0, (ip6("2001:2::44", a), a)), &mac_other, 6);
	txq_clear();
	s.src = "2001:2:5::44"; /* behind the gateway */
	sy_eth_input(w0, 0, mk6(&s));
	assert_null(sy_nd_lookup(w0, 0, (ip6("2001:2:5::44", a), a)));
}

/* Nobody answers: a solicitation a second, SY_NEIGH_MAX_PROBES in all,
 * then what waited is dropped as nd_unresolved. A known entry grows stale
 * and is asked again at its MAC, then forgotten. */
static void
test_neighbour_states(void **state)
{
	uint8_t req[64], a[16];
	struct spec6 s = { .src = "2001:2::2", .dst = "2001:2::1", .msg = req };
	unsigned i;

	(void)state;
	s.msg_len = echo_msg(req);
	sy_eth_input(w0, 0, mk6(&s));
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(w0->nd.n_pending, 2);
	assert_int_equal(w0->counters.nd_solicits_sent, 1);
	txq_clear();
	for (i = 1; i < SY_NEIGH_MAX_PROBES; i++) {
		w0->now += sy_ms_to_tsc(w0, SY_NEIGH_RETRY_MS);
		sy_neigh_timer(w0);
		assert_solicitation("2001:2::2", "2001:2::1", NULL);
		txq_clear();
		assert_int_equal(drops(SY_DROP_ND_UNRESOLVED), 0);
	}
	w0->now += sy_ms_to_tsc(w0, SY_NEIGH_RETRY_MS);
	sy_neigh_timer(w0);
	assert_int_equal(drops(SY_DROP_ND_UNRESOLVED), 2);
	assert_int_equal(w0->nd.n_pending, 0);
	assert_int_equal(w0->counters.nd_solicits_sent, SY_NEIGH_MAX_PROBES);
	assert_null(sy_neigh_find(&w0->nd, 0, (ip6("2001:2::2", a), a)));

	know("2001:2::2", &mac_peer);
	w0->now += sy_ms_to_tsc(w0, SY_NEIGH_REACHABLE_MS);
	sy_neigh_timer(w0);
	assert_int_equal(sy_neigh_find(&w0->nd, 0, a)->state, SY_NEIGH_STALE);
	assert_solicitation("2001:2::2", "2001:2::1", &mac_peer); /* unicast */
	txq_clear();
	assert_non_null(sy_nd_lookup(w0, 0, a)); /* still used meanwhile */
	w0->now += sy_ms_to_tsc(w0, SY_NEIGH_STALE_TIMEOUT_MS);
	sy_neigh_timer(w0);
	assert_null(sy_nd_lookup(w0, 0, a));
	txq_clear();
}

/* Extension headers are walked and not echoed back; each address of the
 * port answers, the link-local one included. */
static void
test_echo_ext_headers_and_link_local(void **state)
{
	uint8_t req[64];
	struct spec6 s = { .src = "2001:2:0:1::9", .dst = "2001:2:0:1::1", .msg = req, .n_ext = 2,
			   .ext = { { .type = 0, .len8 = 0, .opt = 5 }, { .type = 60, .len8 = 1 } } };
	struct rte_ipv6_hdr ip;
	size_t len;

	(void)state;
	know("2001:2:0:1::9", &mac_peer);
	know("fe80::aa", &mac_peer);
	s.msg_len = echo_msg(req);
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(sent(&mac_peer, &ip, &len)[0], 129);
	assert_int_equal(len, 64);
	assert_addr(ip.src_addr, "2001:2:0:1::1");
	w0->txq[0].n = 0;
	rte_pktmbuf_free(w0->txq[0].pkts[0]);

	s = (struct spec6){ .src = "fe80::aa", .dst = LL_P0, .msg = req, .msg_len = 64 };
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(sent(&mac_peer, &ip, &len)[0], 129);
	assert_addr(ip.src_addr, LL_P0);
	assert_addr(ip.dst_addr, "fe80::aa");
	assert_int_equal(w0->counters.icmp6_echo_replies, 2);
}

/* A solicitation to the solicited-node group, with the sender's
 * link-layer address: a solicited advertisement to that address. */
static void
test_neighbor_solicitation(void **state)
{
	static const struct rte_ether_addr sn_mac = { { 0x33, 0x33, 0xff, 0, 0, 0x01 } };
	uint8_t ns[32];
	struct spec6 s = { .src = "2001:2::2", .dst = "ff02::1:ff00:1", .eth_dst = &sn_mac,
			   .hop = 255, .msg = ns };
	struct rte_ipv6_hdr ip;
	const uint8_t *na;
	size_t len;

	(void)state;
	s.msg_len = ns_msg(ns, "2001:2::1", &mac_other);
	sy_eth_input(w0, 0, mk6(&s));
	na = sent(&mac_other, &ip, &len); /* to the option's MAC, not the frame's */
	assert_int_equal(len, 32);
	assert_int_equal(na[0], 136);
	assert_int_equal(na[1], 0);
	assert_int_equal(na[4], 0x40 | 0x20); /* solicited, override; not a router */
	assert_addr(na + 8, "2001:2::1");
	assert_int_equal(na[24], 2); /* target link-layer address */
	assert_int_equal(na[25], 1);
	assert_memory_equal(na + 26, mac_p0.addr_bytes, 6);
	assert_addr(ip.src_addr, "2001:2::1");
	assert_addr(ip.dst_addr, "2001:2::2");
	assert_int_equal(ip.hop_limits, 255);
	assert_int_equal(w0->counters.nd_adverts_sent, 1);
}

/* Unicast, without the option, for the link-local address: answered to
 * the frame's sender. */
static void
test_neighbor_solicitation_unicast_link_local(void **state)
{
	uint8_t ns[32];
	struct spec6 s = { .src = "fe80::aa", .dst = LL_P0, .hop = 255, .msg = ns };
	struct rte_ipv6_hdr ip;
	const uint8_t *na;
	size_t len;

	(void)state;
	s.msg_len = ns_msg(ns, LL_P0, NULL);
	sy_eth_input(w0, 0, mk6(&s));
	na = sent(&mac_peer, &ip, &len);
	assert_int_equal(na[0], 136);
	assert_addr(na + 8, LL_P0);
	assert_addr(ip.dst_addr, "fe80::aa");
}

/* A duplicate address probe (source ::) for our address: defended with an
 * unsolicited advertisement to all nodes. */
static void
test_dad_probe_defended(void **state)
{
	static const struct rte_ether_addr sn_mac = { { 0x33, 0x33, 0xff, 0, 0, 0x01 } };
	static const struct rte_ether_addr all_mac = { { 0x33, 0x33, 0, 0, 0, 0x01 } };
	uint8_t ns[32];
	struct spec6 s = { .src = "::", .dst = "ff02::1:ff00:1", .eth_dst = &sn_mac, .hop = 255,
			   .msg = ns };
	struct rte_ipv6_hdr ip;
	const uint8_t *na;
	size_t len;

	(void)state;
	s.msg_len = ns_msg(ns, "2001:2::1", NULL);
	sy_eth_input(w0, 0, mk6(&s));
	na = sent(&all_mac, &ip, &len);
	assert_int_equal(na[4], 0x20); /* override only: not solicited */
	assert_addr(ip.dst_addr, "ff02::1");
	assert_addr(ip.src_addr, "2001:2::1");
}

/* Everything else: dropped, each for its named reason, nothing sent. */
static void
test_drops(void **state)
{
	static const struct rte_ether_addr sn_mac = { { 0x33, 0x33, 0xff, 0, 0, 0x01 } };
	uint8_t req[64], ns[32], na[32];
	struct spec6 echo = { .src = "2001:2::2", .dst = "2001:2::1", .msg = req, .msg_len = 64 };
	struct spec6 sol = { .src = "2001:2::2", .dst = "ff02::1:ff00:1", .eth_dst = &sn_mac,
			     .hop = 255, .msg = ns };
	struct spec6 s;
	unsigned i;

	(void)state;
	echo_msg(req);
	sol.msg_len = ns_msg(ns, "2001:2::1", &mac_other);

	s = echo; s.bad_cksum = true;
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_ICMP6_BAD_CHECKSUM), 1);
	s = echo; s.dst = "2001:2::77";
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_IPV6_NOT_OURS), 1);
	s = echo; s.src = "ff02::1";
	sy_eth_input(w0, 0, mk6(&s));
	s = echo; s.src = "2001:2::1"; /* our own */
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_IPV6_MARTIAN_SOURCE), 2);
	/* Port 1 has no IPv6 address. */
	s = echo; s.eth_dst = &mac_other;
	sy_eth_input(w0, 1, mk6(&s));
	assert_int_equal(drops(SY_DROP_IPV6_OFF), 1);
	/* TCP to the link-local address is no service; to a global one it
	 * is TCP's (tcp/tcp.h, where this one is no connection). */
	s = echo; s.proto = IPPROTO_TCP; s.dst = LL_P0;
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_IPV6_TCP_NOT_SERVED), 1);
	s = echo; s.proto = IPPROTO_TCP;
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_IPV6_TCP_NOT_SERVED), 1);
	assert_int_equal(drops(SY_DROP_TCP_NO_FLOW) + drops(SY_DROP_TCP_MALFORMED) +
				 drops(SY_DROP_TCP_BAD_CHECKSUM), 1);
	/* UDP is the DNS responder's (dns/dns.h); none is configured here:
	 * no service, as over IPv4. A protocol we do not speak is dropped
	 * by its own name. */
	s = echo; s.proto = IPPROTO_UDP;
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_UDP_NO_SERVICE), 1);
	s = echo; s.proto = 132; /* SCTP */
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_IPV6_UNSUPPORTED_PROTO), 1);

	/* Extension headers: a fragment; a routing header with segments
	 * left; hop-by-hop not first; an unknown option whose type says
	 * "discard"; a chain longer than the walk's bound. */
	s = echo; s.n_ext = 1; s.ext[0] = (struct ext){ .type = 44 };
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_IPV6_FRAGMENT), 1);
	s = echo; s.n_ext = 1; s.ext[0] = (struct ext){ .type = 43, .seg_left = 1 };
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_IPV6_ROUTING_HEADER), 1);
	s = echo; s.n_ext = 2; s.ext[0] = (struct ext){ .type = 60 }; s.ext[1] = (struct ext){ .type = 0 };
	sy_eth_input(w0, 0, mk6(&s));
	s = echo; s.n_ext = 9;
	for (i = 0; i < 9; i++)
		s.ext[i] = (struct ext){ .type = 60 };
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_IPV6_EXT_HEADERS), 2);
	s = echo; s.n_ext = 1; s.ext[0] = (struct ext){ .type = 60, .opt = 0x42 };
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_IPV6_OPTION_DISCARD), 1);
	/* ... an unknown option whose type says "skip" is skipped. */
	s = echo; s.n_ext = 1; s.ext[0] = (struct ext){ .type = 60, .opt = 0x1e };
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(w0->counters.icmp6_echo_replies, 1);

	/* Neighbour discovery: not from the link (hop limit), for another
	 * node, an option of length 0, an advertisement. */
	s = sol; s.hop = 64;
	sy_eth_input(w0, 0, mk6(&s));
	memcpy(ns + 25, "\0", 1);
	s = sol;
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_ND_MALFORMED), 2);
	sol.msg_len = ns_msg(ns, "2001:2::5", &mac_other);
	sy_eth_input(w0, 0, mk6(&sol));
	assert_int_equal(drops(SY_DROP_ND_NOT_OURS), 1);
	memset(na, 0, sizeof(na));
	na[0] = 136;
	ip6("2001:2::2", na + 8);
	s = (struct spec6){ .src = "2001:2::2", .dst = "2001:2::1", .hop = 255, .msg = na, .msg_len = 24 };
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_ND_ADVERT_IGNORED), 1);
	/* A router advertisement is not ours to use. */
	na[0] = 134;
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_ICMP6_UNSUPPORTED_TYPE), 1);

	assert_int_equal(w0->counters.nd_adverts_sent, 0);
	assert_int_equal(w0->txq[0].n, 1); /* only the echo with a skippable option */
	assert_int_equal(w0->txq[1].n, 0);
}

/* Short and malformed headers. */
static void
test_truncated(void **state)
{
	uint8_t req[64];
	struct spec6 s = { .src = "2001:2::2", .dst = "2001:2::1", .msg = req, .msg_len = 64 };
	struct rte_mbuf *m;
	struct rte_ipv6_hdr *ip;

	(void)state;
	echo_msg(req);
	/* payload_len past the frame */
	m = mk6(&s);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, sizeof(struct rte_ether_hdr));
	ip->payload_len = RTE_BE16(200);
	sy_eth_input(w0, 0, m);
	assert_int_equal(drops(SY_DROP_IPV6_TRUNCATED), 1);
	/* version 4 in an IPv6 frame */
	m = mk6(&s);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, sizeof(struct rte_ether_hdr));
	ip->vtc_flow = RTE_BE32(4u << 28);
	sy_eth_input(w0, 0, m);
	assert_int_equal(drops(SY_DROP_IPV6_BAD_HEADER), 1);
	/* an extension header that runs past the payload */
	s.n_ext = 1;
	s.ext[0] = (struct ext){ .type = 60, .len8 = 0 };
	m = mk6(&s);
	ip = rte_pktmbuf_mtod_offset(m, struct rte_ipv6_hdr *, sizeof(struct rte_ether_hdr));
	((uint8_t *)(ip + 1))[1] = 40;
	sy_eth_input(w0, 0, m);
	assert_int_equal(drops(SY_DROP_IPV6_TRUNCATED), 2);
	/* an ICMPv6 message of 2 bytes */
	s = (struct spec6){ .src = "2001:2::2", .dst = "2001:2::1", .msg = req, .msg_len = 2 };
	sy_eth_input(w0, 0, mk6(&s));
	assert_int_equal(drops(SY_DROP_ICMP6_TRUNCATED), 1);
	assert_int_equal(w0->txq[0].n, 0);
}

static void
test_link_local_of_mac(void **state)
{
	uint8_t ll[16];

	(void)state;
	sy_ipv6_link_local(&mac_peer, ll); /* 02:aa:00:00:00:01 */
	assert_addr(ll, "fe80::aa:ff:fe00:1");
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_echo, setup, teardown),
		cmocka_unit_test_setup_teardown(test_echo_off_link, setup, teardown),
		cmocka_unit_test_setup_teardown(test_advert_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(test_learn_from_solicitation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_neighbour_states, setup, teardown),
		cmocka_unit_test_setup_teardown(test_echo_ext_headers_and_link_local, setup, teardown),
		cmocka_unit_test_setup_teardown(test_neighbor_solicitation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_neighbor_solicitation_unicast_link_local, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_dad_probe_defended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_drops, setup, teardown),
		cmocka_unit_test_setup_teardown(test_truncated, setup, teardown),
		cmocka_unit_test(test_link_local_of_mac),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
