/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer entry for the data plane's IPv6 input (dataplane/net/ipv6.c,
 * icmp6.c): the fixed header, the extension-header walk, ICMPv6 echo and
 * neighbour discovery. One fresh worker of the in-process data plane per
 * input (tests/lib/dp_env.h), whose client port has 2001:2::1/64. Built by
 * meson with -Dfuzz=true and clang (tests/fuzz/meson.build), run in CI by
 * tools/test on the seeds in tests/fuzz/corpus/fuzz_ipv6/; by hand:
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true -Db_sanitize=address,undefined -Db_lundef=false
 *   ninja -C build-fuzz tests/fuzz/fuzz_ipv6
 *   cp -r tests/fuzz/corpus/fuzz_ipv6 /tmp/c && build-fuzz/tests/fuzz/fuzz_ipv6 -max_total_time=300 /tmp/c
 *
 * Input: byte 0 says what the harness repairs so that inputs get past the
 * first checks (bit 0: the version nibble; bit 1: payload_len to what
 * follows; bit 2: the ICMPv6 checksum, found by walking the extension
 * headers as the router does; bits 4-5: the destination, kept or made
 * 2001:2::1, the port's link-local address or its solicited-node group;
 * bit 6: the frame to the group's MAC instead of the port's); the rest is
 * the IPv6 packet.
 *
 * Checked: no crash or sanitizer report; every frame the router sends (on
 * either port: the FIB may route an answer by the backend port) is
 * IPv6 carrying an echo reply, a neighbour advertisement or a neighbour
 * solicitation (an echo reply waits for its next hop's, net/nd.c), or TCP
 * (the port's address is a listen address: a SYN gets a cookie SYN-ACK),
 * from one of the router's addresses, with a length that matches the frame and a right
 * checksum (computed here, byte by byte); once the worker is gone every
 * mbuf is back in the pool, the replies held for neighbour discovery too.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "dp_env.h"
#include "net/net.h"
#include "worker.h"

static struct sy_test_dp d;
static const uint8_t ours[16] = { 0x20, 0x01, 0x00, 0x02, [15] = 0x01 }; /* 2001:2::1 */

static void
fini(void)
{
	sy_test_dp_fini(&d);
}

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	if (sy_test_dp_init(&d, "fuzz_ipv6", 1023) < 0)
		abort();
	/* The client port has 2001:2::1/64 (dp_env.h), routed and served
	 * (a SYN gets a cookie). */
	if (d.sh->ports[0].n_ipv6 != 1 || memcmp(d.sh->ports[0].ipv6[0], ours, 16) != 0 ||
	    !sy_is_listen6(d.sh, ours, RTE_BE16(80))) {
		fprintf(stderr, "fuzz_ipv6: dp_env's client port is not 2001:2::1/64, served\n");
		abort();
	}
	atexit(fini);
	return 0;
}

/* The ones' complement sum, byte by byte (RFC 1071), of the pseudo-header
 * (upper layer `proto`) and message: 0xffff when the checksum in it is
 * right. */
static uint16_t
ref_sum_proto(const uint8_t *src_dst, const uint8_t *msg, uint32_t len, uint8_t proto)
{
	uint32_t sum = 0, i;

	for (i = 0; i < 32; i++)
		sum += i % 2 == 0 ? (uint32_t)src_dst[i] << 8 : src_dst[i];
	sum += len >> 16;
	sum += len & 0xffff;
	sum += proto;
	for (i = 0; i < len; i++)
		sum += i % 2 == 0 ? (uint32_t)msg[i] << 8 : msg[i];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static uint16_t
ref_sum(const uint8_t *src_dst, const uint8_t *msg, uint32_t len)
{
	return ref_sum_proto(src_dst, msg, len, IPPROTO_ICMPV6);
}

/* Where the ICMPv6 message starts, walking the extension headers as the
 * router does (0 when there is none to find). */
static uint32_t
icmp6_offset(const uint8_t *p, uint32_t len)
{
	uint32_t off = 40;
	uint8_t nh = p[6];
	unsigned n;

	for (n = 0; n < 16; n++) {
		if (nh == IPPROTO_ICMPV6)
			return off + 4 <= len ? off : 0;
		if (nh != 0 && nh != 43 && nh != 60)
			return 0;
		if (off + 8 > len)
			return 0;
		nh = p[off];
		off += (p[off + 1] + 1u) * 8;
	}
	return 0;
}

/* One of the router's addresses, on either port: an answer routed by the
 * FIB may leave by the other port (a source in its prefix) from the
 * address that was asked. */
static bool
is_ours(const uint8_t a[16])
{
	return sy_ipv6_is_ours(&d.sh->ports[0], a) || sy_ipv6_is_ours(&d.sh->ports[1], a);
}

/* A frame the router sent on `port`. */
static void
check_sent(struct rte_mbuf *m, unsigned port)
{
	const struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, const struct rte_ether_hdr *);
	const struct sy_dp_port *p = &d.sh->ports[port];
	const uint8_t *ip = (const uint8_t *)(eh + 1);
	uint32_t plen;

	if (!rte_pktmbuf_is_contiguous(m) || m->pkt_len < sizeof(*eh) + 40 + 4 ||
	    eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6) || (ip[0] >> 4) != 6 ||
	    (ip[6] != IPPROTO_ICMPV6 && ip[6] != IPPROTO_TCP) ||
	    !rte_is_same_ether_addr(&eh->src_addr, &p->mac)) {
		fprintf(stderr, "fuzz_ipv6: the router sent a frame that is not an ICMPv6 or TCP answer\n");
		abort();
	}
	plen = (uint32_t)ip[4] << 8 | ip[5];
	if (m->pkt_len != sizeof(*eh) + 40 + plen ||
	    ref_sum_proto(ip + 8, ip + 40, plen, ip[6]) != 0xffff) {
		fprintf(stderr, "fuzz_ipv6: an answer's length or checksum is wrong\n");
		abort();
	}
	if (!is_ours(ip + 8)) {
		fprintf(stderr, "fuzz_ipv6: an answer from an address not ours\n");
		abort();
	}
	if (ip[6] == IPPROTO_TCP) {
		/* A SYN cookie's SYN-ACK, or a RST: nothing else without a
		 * connection. */
		uint8_t fl = plen >= 20 ? ip[40 + 13] : 0;

		if (fl != (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG) && !(fl & RTE_TCP_RST_FLAG)) {
			fprintf(stderr, "fuzz_ipv6: a TCP answer with flags 0x%02x\n", fl);
			abort();
		}
		return;
	}
	if (ip[40] != 129 && ip[40] != 135 && ip[40] != 136) {
		fprintf(stderr, "fuzz_ipv6: an answer of type %u\n", ip[40]);
		abort();
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const struct sy_dp_port *port0;
	struct rte_ether_hdr *eh;
	struct rte_mbuf *m;
	uint8_t *ip, how;
	uint32_t len, i, k;

	if (size < 1 + 40 || size > 1 + 1500) /* one frame, one mbuf */
		return 0;
	how = data[0];
	len = (uint32_t)size - 1;
	if (sy_test_dp_worker(&d) < 0)
		abort();
	port0 = &d.sh->ports[0];
	m = rte_pktmbuf_alloc(d.mp);
	if (m == NULL || rte_pktmbuf_append(m, (uint16_t)(sizeof(*eh) + len)) == NULL)
		abort();
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	eh->src_addr = sy_test_mac_client;
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip = (uint8_t *)(eh + 1);
	memcpy(ip, data + 1, len);
	if (how & 0x01)
		ip[0] = (uint8_t)(0x60 | (ip[0] & 0x0f));
	if (how & 0x02) {
		ip[4] = (uint8_t)((len - 40) >> 8);
		ip[5] = (uint8_t)(len - 40);
	}
	switch ((how >> 4) & 3) {
	case 1:
		memcpy(ip + 24, ours, 16);
		break;
	case 2:
		sy_ipv6_link_local(&port0->mac, ip + 24);
		break;
	case 3: /* ff02::1:ff00:1 */
		memset(ip + 24, 0, 16);
		ip[24] = 0xff;
		ip[25] = 0x02;
		ip[35] = 0x01;
		ip[36] = 0xff;
		ip[39] = 0x01;
		break;
	}
	if (how & 0x40) {
		static const struct rte_ether_addr group = { { 0x33, 0x33, 0xff, 0, 0, 0x01 } };

		eh->dst_addr = group;
	} else {
		eh->dst_addr = port0->mac;
	}
	if (how & 0x04) {
		uint32_t off = icmp6_offset(ip, len);

		if (off != 0) {
			uint32_t mlen = len - off;
			uint16_t sum;

			ip[off + 2] = ip[off + 3] = 0;
			sum = (uint16_t)~ref_sum(ip + 8, ip + off, mlen);
			ip[off + 2] = (uint8_t)(sum >> 8);
			ip[off + 3] = (uint8_t)sum;
		}
	}
	sy_eth_input(d.w, 0, m);
	for (k = 0; k < 2; k++)
		for (i = 0; i < d.w->txq[k].n; i++)
			check_sent(d.w->txq[k].pkts[i], k);
	if (sy_test_dp_worker_free(&d) != 0) {
		fprintf(stderr, "fuzz_ipv6: mbufs left out of the pool\n");
		abort();
	}
	return 0;
}
