/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers the data-plane unit tests share (test_l3.c, test_ipv6.c,
 * test_vrrp_dp.c): addresses that must parse, port addresses for a hand-built config, and an
 * ARP frame as a peer sends it. Include after cmocka.h.
 */
#ifndef SY_TEST_FRAMES_H
#define SY_TEST_FRAMES_H

#include <stdio.h>
#include <string.h>
#include <arpa/inet.h>

#include <rte_arp.h>
#include <rte_ether.h>
#include <rte_mbuf.h>

#include "sy_addr.h"
#include "sy_config.h"
#include "worker.h"

/* A dotted quad in network order; the test fails if it does not parse. */
static inline uint32_t
ip4(const char *s)
{
	struct sy_addr a;

	assert_int_equal(sy_addr_parse(s, &a), 0);
	return a.v4;
}

/* An IPv6 address's 16 bytes; the test fails if it does not parse. */
static inline void
ip6(const char *s, uint8_t out[16])
{
	assert_int_equal(inet_pton(AF_INET6, s, out), 1);
}

static inline void
add_port_addr(struct sy_port_config *pc, const char *cidr)
{
	struct sy_port_addr *pa = &pc->ipv4[pc->n_ipv4++];

	assert_int_equal(sy_prefix_parse(cidr, &pa->addr, &pa->prefix_len), 0);
}

/* An ARP request or reply (op) from sha/sip for tip, to eth_dst, padded to
 * the 60-byte minimum frame (so a reply path must cut the padding). */
static inline struct rte_mbuf *
t_arp_frame(struct rte_mempool *mp, uint16_t op, const struct rte_ether_addr *eth_dst,
	    const struct rte_ether_addr *sha, const char *sip, const char *tip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *a;

	assert_non_null(m);
	assert_non_null(rte_pktmbuf_append(m, 60));
	memset(rte_pktmbuf_mtod(m, uint8_t *), 0, m->data_len);
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	eh->dst_addr = *eth_dst;
	eh->src_addr = *sha;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	a = (struct rte_arp_hdr *)(eh + 1);
	a->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = 6;
	a->arp_plen = 4;
	a->arp_opcode = rte_cpu_to_be_16(op);
	a->arp_data.arp_sha = *sha;
	a->arp_data.arp_sip = ip4(sip);
	if (op == RTE_ARP_OP_REPLY)
		a->arp_data.arp_tha = *eth_dst;
	a->arp_data.arp_tip = ip4(tip);
	return m;
}

/* The data plane's shared state for cfg with n workers, and the ports'
 * MACs (macs[i] for port i); NULL, with the reason on stderr, if it cannot
 * be made. */
static inline struct sy_dp_shared *
t_dp_shared(const struct sy_config *cfg, struct rte_mempool *mp, unsigned n,
	    const struct rte_ether_addr *const *macs, unsigned n_macs)
{
	struct sy_dp_shared *sh;
	char err[256] = "";
	unsigned i;

	if (sy_dp_shared_create(cfg, mp, n, &sh, err, sizeof(err)) < 0) {
		fprintf(stderr, "sy_dp_shared_create: %s\n", err);
		return NULL;
	}
	for (i = 0; i < n_macs; i++)
		sh->ports[i].mac = *macs[i];
	return sh;
}

#endif
