/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pktgen_flows: open N spliced flows through a running routerd and write a pcap of
 * their data segments, for pktgen to replay at rate (perf/pktgen, P1).
 *
 * Pktgen cannot answer a cookie SYN-ACK, so it cannot open a connection through the
 * router. This helper can, once, at its own pace: it is a DPDK process with two
 * net_memif client ports facing routerd's two memif server ports, and plays both
 * peers. On port 0 it is the client (CLIENT_IP): SYN to VIP:80, the cookie SYN-ACK,
 * then ACK + "GET /<flow> HTTP/1.1" with the route's Host. On port 1 it is the backend
 * (BACKEND_IP:80): it answers routerd's SYN with a SYN-ACK and takes the request routerd
 * then sends, which makes the flow SPLICED. It answers ARP for both addresses.
 *
 * Then it writes two pcaps (perf/pktgen passes them as pktgen -s 0:... -s 1:...):
 *   client.pcap   one data segment per flow (64 bytes of payload; --payload N: N, up to
 *                 PAYLOAD_MAX), client -> VIP, with the
 *                 sequence number after the request and the cookie's ack
 *   backend.pcap  one per flow, backend -> routerd's SNAT address and port, acking the
 *                 request
 * in a shuffled flow order. Replayed over and over, every copy is a valid in-window
 * segment of an established spliced flow (the router does not track data sequence
 * numbers: docs/architecture.md 9.3), so routerd forwards each through its fast path.
 * The MACs are the ones pktgen uses on the same ports (mac= in both processes'
 * devargs), so
 * routerd's ARP entries stay right when pktgen takes the ports over.
 *
 * --family 6 (issue 36) makes the client IPv6 (2001:2:2::2 to the VIP 2001:2:2::1, the
 * address of routerd's port it faces: IPv6 is taken on the receiving port only), and
 * --backend-family 6 the backend (2001:2:3::10, routerd's SNAT sources then 2001:2:3::1
 * and ::2 in turn):
 * 6to6 with both, 6to4 with --family 6 alone (the backend family defaults to 4). It
 * answers neighbour solicitations for its IPv6 addresses as it answers ARP, and its
 * IPv6 frames carry no extension headers, so routerd's TCP finds the header at 40 bytes.
 * --pair 1 takes the lab's second memif pair instead (perf/pktgen --only p1x: routerd's
 * ports "pktgen-b" and "pktgen-b-backend"): every address and MAC above with its third
 * octet (its third group over IPv6) two higher, client 198.18.4.2 or 2001:2:4::2 to the
 * VIP 198.18.0.1 or 2001:2:4::1, backend 198.18.5.10 or 2001:2:5::10, so that one pktgen
 * can replay an IPv4 set on one pair and an IPv6 set on the other, in turns.
 * Before writing, it checks every frame it wrote: TCP checksum over the family's
 * pseudo-header, addresses and ports of the flow (a wrong pcap would measure drops).
 *
 * Exit 0 when every flow is spliced, 1 otherwise (with what is missing on stderr).
 * Bounded: --timeout seconds (default 60).
 */
#include <arpa/inet.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_arp.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_ethdev.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#define BURST 32
#define WINDOW 256      /* handshakes in flight */
#define PAYLOAD 64      /* the replayed segments' payload, unless --payload */
#define PAYLOAD_MAX 160 /* the frame buffer holds the headers and this */
#define RETRY_MS 500

/* An address of either family: v4 in host order, v6 as on the wire. */
struct addr {
	uint8_t v6;
	uint32_t v4;
	uint8_t a6[16];
};

static struct {
	struct addr vip, client_ip, backend_ip;
	uint32_t client4, backend4; /* ARP is answered for these whatever the families */
	uint8_t client6[16], backend6[16]; /* and neighbour solicitations for these */
	uint8_t vip6[16], router6[2][16];  /* routerd's IPv6 addresses on the pair's ports */
	struct rte_ether_addr router_mac[2], my_mac[2];
	const char *host, *out_client, *out_backend;
	unsigned flows, timeout_s, port_base, payload;
} O;

enum { F_NONE, F_SYN, F_REQ, F_SPLICED };

static struct flow {
	uint8_t state;
	uint64_t sent_at;
	uint32_t isn_r;     /* the cookie */
	struct addr snat_ip; /* backend leg, as routerd sends it */
	uint16_t snat_port;
	uint32_t req_end;   /* routerd's seq after the request on the backend leg */
} *F;

static struct rte_mempool *pool;
static uint64_t hz;

static uint32_t
isn_c(unsigned i)
{
	return 0x9e3779b9u * (i + 1);
}

static uint32_t
isn_b(uint16_t port)
{
	return 0x7f4a7c15u * (uint32_t)(port + 1);
}

static unsigned
request(char *buf, size_t n, unsigned i)
{
	return (unsigned)snprintf(buf, n, "GET /%u HTTP/1.1\r\nHost: %s\r\n\r\n", i, O.host);
}

static unsigned
req_len_of(unsigned i)
{
	char b[128];

	return request(b, sizeof(b), i);
}

static int
addr_eq(const struct addr *a, const struct addr *b)
{
	return a->v6 == b->v6 && (a->v6 ? memcmp(a->a6, b->a6, 16) == 0 : a->v4 == b->v4);
}

/* The packet's source or destination address as an addr (ip: its IPv4 or IPv6 header). */
static struct addr
addr_of(const void *ip, int v6, int dst)
{
	struct addr a = { .v6 = (uint8_t)v6 };

	if (v6)
		memcpy(a.a6, dst ? ((const struct rte_ipv6_hdr *)ip)->dst_addr
				 : ((const struct rte_ipv6_hdr *)ip)->src_addr, 16);
	else
		a.v4 = rte_be_to_cpu_32(dst ? ((const struct rte_ipv4_hdr *)ip)->dst_addr
					    : ((const struct rte_ipv4_hdr *)ip)->src_addr);
	return a;
}

/* A whole frame: Ethernet, IPv4 or IPv6 (the addresses' family; no extension headers),
 * TCP (+ MSS option on SYNs), payload, checksums. */
static unsigned
build(uint8_t *f, uint16_t port, const struct addr *sip, const struct addr *dip, uint16_t sport,
      uint16_t dport, uint32_t seq, uint32_t ack, uint8_t flags, const void *data, unsigned len)
{
	struct rte_ether_hdr *eh = (struct rte_ether_hdr *)f;
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(eh + 1);
	unsigned l3 = sip->v6 ? sizeof(*ip6) : sizeof(*ip);
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)((uint8_t *)(eh + 1) + l3);
	unsigned opt = (flags & RTE_TCP_SYN_FLAG) ? 4 : 0;
	uint8_t *p = (uint8_t *)(th + 1);

	eh->dst_addr = O.router_mac[port];
	eh->src_addr = O.my_mac[port];
	if (sip->v6) {
		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6);
		memset(ip6, 0, sizeof(*ip6));
		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)(sizeof(*th) + opt + len));
		ip6->proto = IPPROTO_TCP;
		ip6->hop_limits = 64;
		memcpy(ip6->src_addr, sip->a6, 16);
		memcpy(ip6->dst_addr, dip->a6, 16);
	} else {
		eh->ether_type = rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4);
		memset(ip, 0, sizeof(*ip));
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(sizeof(*ip) + sizeof(*th) + opt + len));
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_TCP;
		ip->src_addr = rte_cpu_to_be_32(sip->v4);
		ip->dst_addr = rte_cpu_to_be_32(dip->v4);
	}
	memset(th, 0, sizeof(*th));
	th->src_port = rte_cpu_to_be_16(sport);
	th->dst_port = rte_cpu_to_be_16(dport);
	th->sent_seq = rte_cpu_to_be_32(seq);
	th->recv_ack = rte_cpu_to_be_32(ack);
	th->data_off = (uint8_t)(((sizeof(*th) + opt) / 4) << 4);
	th->tcp_flags = flags;
	th->rx_win = rte_cpu_to_be_16(65535);
	if (opt) { /* MSS 1460 (1440 would do for IPv6; routerd takes either) */
		p[0] = 2, p[1] = 4, p[2] = 1460 >> 8, p[3] = 1460 & 0xff;
		p += 4;
	}
	if (len)
		memcpy(p, data, len);
	if (sip->v6) {
		th->cksum = rte_ipv6_udptcp_cksum(ip6, th);
	} else {
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	}
	return (unsigned)(sizeof(*eh) + l3 + sizeof(*th) + opt + len);
}

static void
send_frame(uint16_t port, const uint8_t *f, unsigned len)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

	if (m == NULL)
		return; /* retried by the timer */
	memcpy(rte_pktmbuf_append(m, (uint16_t)len), f, len);
	if (rte_eth_tx_burst(port, 0, &m, 1) != 1)
		rte_pktmbuf_free(m); /* ring full: retried by the timer */
}

static void
client_send(unsigned i)
{
	uint8_t f[256];
	char req[128];
	unsigned n;
	uint16_t sport = (uint16_t)(O.port_base + i);

	if (F[i].state == F_SYN) {
		n = build(f, 0, &O.client_ip, &O.vip, sport, 80, isn_c(i), 0, RTE_TCP_SYN_FLAG, NULL, 0);
	} else {
		unsigned l = request(req, sizeof(req), i);

		n = build(f, 0, &O.client_ip, &O.vip, sport, 80, isn_c(i) + 1, F[i].isn_r + 1,
			  RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, req, l);
	}
	send_frame(0, f, n);
	F[i].sent_at = rte_rdtsc();
}

static void
arp_answer(uint16_t port, struct rte_mbuf *m, uint32_t mine)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(eh + 1);

	if (m->data_len < sizeof(*eh) + sizeof(*a) ||
	    a->arp_opcode != rte_cpu_to_be_16(RTE_ARP_OP_REQUEST) ||
	    a->arp_data.arp_tip != rte_cpu_to_be_32(mine)) {
		rte_pktmbuf_free(m);
		return;
	}
	eh->dst_addr = eh->src_addr;
	eh->src_addr = O.my_mac[port];
	a->arp_opcode = rte_cpu_to_be_16(RTE_ARP_OP_REPLY);
	a->arp_data.arp_tha = a->arp_data.arp_sha;
	a->arp_data.arp_tip = a->arp_data.arp_sip;
	a->arp_data.arp_sha = O.my_mac[port];
	a->arp_data.arp_sip = rte_cpu_to_be_32(mine);
	if (rte_eth_tx_burst(port, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

/* Write into m, whose Ethernet header's destination is set, a neighbour discovery
 * message from `mine` (port's MAC) to dst about `target`, with our MAC as its one option,
 * and send it: an advertisement (ICMPv6 136, Solicited and Override set, the target
 * link-layer address) or a solicitation (135, the source link-layer address). */
static void
nd_send(uint16_t port, struct rte_mbuf *m, uint8_t type, const uint8_t *mine, const uint8_t *dst,
	const uint8_t *target)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(eh + 1);
	uint8_t *icmp = (uint8_t *)(ip6 + 1); /* type, code, cksum, reserved, target */
	const bool advert = type == 136;

	eh->src_addr = O.my_mac[port];
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	ip6->vtc_flow = RTE_BE32(6u << 28);
	ip6->proto = IPPROTO_ICMPV6;
	memmove(ip6->dst_addr, dst, 16);
	memcpy(ip6->src_addr, mine, 16);
	ip6->hop_limits = 255;
	ip6->payload_len = rte_cpu_to_be_16(32);
	icmp[0] = type, icmp[1] = 0, icmp[2] = icmp[3] = 0;
	icmp[4] = advert ? 0x60 : 0, icmp[5] = icmp[6] = icmp[7] = 0; /* Solicited, Override */
	memmove(icmp + 8, target, 16);
	icmp[24] = advert ? 2 : 1, icmp[25] = 1; /* target / source link-layer address */
	memcpy(icmp + 26, &O.my_mac[port], RTE_ETHER_ADDR_LEN);
	*(uint16_t *)(icmp + 2) = rte_ipv6_udptcp_cksum(ip6, icmp);
	m->data_len = m->pkt_len = (uint32_t)(sizeof(*eh) + sizeof(*ip6) + 32);
	if (rte_eth_tx_burst(port, 0, &m, 1) != 1)
		rte_pktmbuf_free(m);
}

/* A neighbour solicitation (ICMPv6 135, RFC 4861 4.3) for one of our addresses on this
 * port: answered in place with a solicited advertisement, as arp_answer does for ARP. A
 * duplicate address probe (from ::) is not routerd's and is left alone. */
static void
nd_answer(uint16_t port, struct rte_mbuf *m, const uint8_t *mine)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(eh + 1);
	uint8_t *icmp = (uint8_t *)(ip6 + 1);
	static const uint8_t any[16];

	if (m->data_len < sizeof(*eh) + sizeof(*ip6) + 24 || ip6->proto != IPPROTO_ICMPV6 ||
	    icmp[0] != 135 || memcmp(icmp + 8, mine, 16) != 0 || memcmp(ip6->src_addr, any, 16) == 0) {
		rte_pktmbuf_free(m);
		return;
	}
	eh->dst_addr = eh->src_addr;
	nd_send(port, m, 136, mine, ip6->src_addr, mine);
}

/*
 * --announce: an advertisement of each IPv6 address to routerd's address on its port,
 * as if routerd had asked. pktgen answers ARP but not neighbour solicitations, so while
 * it replays, routerd's entries for these addresses are the ones this process confirmed
 * when it opened the flows, and they expire 5 minutes later (SY_NEIGH_REACHABLE_MS, then
 * SY_NEIGH_STALE_TIMEOUT_MS unanswered): every frame to them is then dropped
 * (nd_pending_full). perf/pktgen runs this before each IPv6 replay. An advertisement
 * only updates an entry routerd has (RFC 4861 7.2.5), and routerd drops an entry whose
 * probes went unanswered: first a solicitation of routerd's address, whose source
 * link-layer option makes routerd learn ours (7.2.3) whether it had an entry or not.
 */
static void
nd_announce(void)
{
	const uint8_t *mine[2] = { O.client6, O.backend6 };
	uint16_t port;

	for (port = 0; port < 2; port++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(pool);

		struct rte_mbuf *m2 = rte_pktmbuf_alloc(pool);

		if (m == NULL || m2 == NULL)
			rte_exit(1, "out of mbufs\n");
		rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr = O.router_mac[port];
		nd_send(port, m, 135, mine[port], O.router6[port], O.router6[port]);
		rte_pktmbuf_mtod(m2, struct rte_ether_hdr *)->dst_addr = O.router_mac[port];
		nd_send(port, m2, 136, mine[port], O.router6[port], mine[port]);
	}
}

/* Port 0: SYN-ACKs for our client flows. */
static void
client_input(const struct addr *src, const struct rte_tcp_hdr *th)
{
	unsigned i = (unsigned)rte_be_to_cpu_16(th->dst_port) - O.port_base;

	if (i >= O.flows || !addr_eq(src, &O.vip))
		return;
	if ((th->tcp_flags & (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) ==
	    (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG) && F[i].state == F_SYN) {
		F[i].isn_r = rte_be_to_cpu_32(th->sent_seq);
		F[i].state = F_REQ;
		client_send(i);
	}
	/* Anything else (the backend's data, none here) is not ours to answer. */
}

/* Port 1: routerd's SYNs to the backend, then the request it forwards. */
static void
backend_input(const struct addr *src, const struct addr *dst, const struct rte_tcp_hdr *th,
	      unsigned plen)
{
	uint16_t sport = rte_be_to_cpu_16(th->src_port);
	uint32_t seq = rte_be_to_cpu_32(th->sent_seq);
	const char *data = (const char *)th + ((th->data_off >> 4) * 4);
	uint8_t f[128];
	unsigned i, n;

	if (rte_be_to_cpu_16(th->dst_port) != 80 || !addr_eq(dst, &O.backend_ip))
		return;
	if (th->tcp_flags & RTE_TCP_SYN_FLAG) {
		/* Same ISN on a retransmitted SYN: the answer is the same. */
		n = build(f, 1, &O.backend_ip, src, 80, sport, isn_b(sport), seq + 1,
			  RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG, NULL, 0);
		send_frame(1, f, n);
		return;
	}
	if (plen < 6 || memcmp(data, "GET /", 5) != 0)
		return;
	i = (unsigned)strtoul(data + 5, NULL, 10);
	if (i >= O.flows || F[i].state == F_SPLICED)
		return;
	F[i].snat_ip = *src;
	F[i].snat_port = sport;
	F[i].req_end = seq + plen;
	F[i].state = F_SPLICED;
}

static void
input(uint16_t port, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	const struct rte_ipv4_hdr *ip = (const struct rte_ipv4_hdr *)(eh + 1);
	const struct rte_ipv6_hdr *ip6 = (const struct rte_ipv6_hdr *)(eh + 1);
	const struct rte_tcp_hdr *th;
	struct addr src, dst;
	unsigned hl, plen;

	if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_ARP)) {
		arp_answer(port, m, port == 0 ? O.client4 : O.backend4);
		return;
	}
	if (eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6)) {
		if (m->data_len < sizeof(*eh) + sizeof(*ip6))
			goto out;
		if (ip6->proto == IPPROTO_ICMPV6) {
			nd_answer(port, m, port == 0 ? O.client6 : O.backend6);
			return;
		}
		/* routerd sends no extension headers: TCP right after the fixed header. */
		if (ip6->proto != IPPROTO_TCP || m->data_len < sizeof(*eh) + sizeof(*ip6) + sizeof(*th))
			goto out;
		th = (const struct rte_tcp_hdr *)(ip6 + 1);
		plen = rte_be_to_cpu_16(ip6->payload_len) - (th->data_off >> 4) * 4u;
		src = addr_of(ip6, 1, 0), dst = addr_of(ip6, 1, 1);
	} else {
		if (eh->ether_type != rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) ||
		    m->data_len < sizeof(*eh) + sizeof(*ip) + sizeof(*th) ||
		    ip->next_proto_id != IPPROTO_TCP)
			goto out;
		hl = (ip->version_ihl & 0xf) * 4u;
		th = (const struct rte_tcp_hdr *)((const uint8_t *)ip + hl);
		plen = rte_be_to_cpu_16(ip->total_length) - hl - (th->data_off >> 4) * 4u;
		src = addr_of(ip, 0, 0), dst = addr_of(ip, 0, 1);
	}
	if (port == 0)
		client_input(&src, th);
	else
		backend_input(&src, &dst, th, plen);
out:
	rte_pktmbuf_free(m);
}

/* pcap (microsecond timestamps, Ethernet): what pktgen -s reads. */
static FILE *
pcap_open(const char *path)
{
	struct { uint32_t magic; uint16_t vmaj, vmin; int32_t tz; uint32_t sig, snap, link; } h = {
		0xa1b2c3d4, 2, 4, 0, 0, 65535, 1 };
	FILE *f = fopen(path, "wb");

	if (f == NULL || fwrite(&h, sizeof(h), 1, f) != 1) {
		perror(path);
		exit(1);
	}
	return f;
}

static void
pcap_add(FILE *f, const uint8_t *frame, unsigned len)
{
	uint32_t r[4] = { 0, 0, len, len };

	if (fwrite(r, sizeof(r), 1, f) != 1 || fwrite(frame, len, 1, f) != 1) {
		perror("pcap");
		exit(1);
	}
}

/* A frame about to be written, read back as a receiver would: the family's ethertype,
 * lengths, addresses, ports, and the TCP checksum verified over the pseudo-header. A
 * frame routerd would drop (tcp_bad_checksum) would make the replay measure drops. */
static void
frame_check(const uint8_t *f, unsigned len, const struct addr *s, const struct addr *d,
	    uint16_t sport, uint16_t dport)
{
	const struct rte_ether_hdr *eh = (const struct rte_ether_hdr *)f;
	const void *ip = eh + 1;
	const struct rte_tcp_hdr *th;
	int ok;

	if (s->v6) {
		const struct rte_ipv6_hdr *ip6 = ip;

		th = (const struct rte_tcp_hdr *)(ip6 + 1);
		ok = eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV6) &&
		     ip6->proto == IPPROTO_TCP && (rte_be_to_cpu_32(ip6->vtc_flow) >> 28) == 6 &&
		     sizeof(*eh) + sizeof(*ip6) + rte_be_to_cpu_16(ip6->payload_len) == len &&
		     rte_ipv6_udptcp_cksum_verify(ip6, th) == 0;
	} else {
		const struct rte_ipv4_hdr *ip4 = ip;

		th = (const struct rte_tcp_hdr *)(ip4 + 1);
		ok = eh->ether_type == rte_cpu_to_be_16(RTE_ETHER_TYPE_IPV4) &&
		     ip4->next_proto_id == IPPROTO_TCP &&
		     sizeof(*eh) + rte_be_to_cpu_16(ip4->total_length) == len &&
		     rte_ipv4_cksum(ip4) == 0 && rte_ipv4_udptcp_cksum_verify(ip4, th) == 0;
	}
	if (!ok)
		goto bad;
	{
		struct addr a = addr_of(ip, s->v6, 0), b = addr_of(ip, s->v6, 1);

		if (addr_eq(&a, s) && addr_eq(&b, d) && rte_be_to_cpu_16(th->src_port) == sport &&
		    rte_be_to_cpu_16(th->dst_port) == dport)
			return;
	}
bad:
	fprintf(stderr, "pktgen_flows: a frame of the pcap does not read back right (IPv%d, port %u)\n",
		s->v6 ? 6 : 4, sport);
	exit(1);
}

static void
write_pcaps(void)
{
	unsigned *order = malloc(O.flows * sizeof(*order)), i, j, n;
	FILE *fc = pcap_open(O.out_client), *fb = pcap_open(O.out_backend);
	uint8_t payload[PAYLOAD_MAX], f[256];

	memset(payload, 'x', sizeof(payload));
	for (i = 0; i < O.flows; i++)
		order[i] = i;
	srand(1);
	for (i = O.flows - 1; i > 0; i--) { /* a fixed shuffle: no flow's turns in a row */
		unsigned t;

		j = (unsigned)rand() % (i + 1);
		t = order[i], order[i] = order[j], order[j] = t;
	}
	for (j = 0; j < O.flows; j++) {
		struct flow *fl = &F[order[j]];

		i = order[j];
		n = build(f, 0, &O.client_ip, &O.vip, (uint16_t)(O.port_base + i), 80,
			  isn_c(i) + 1 + req_len_of(i), fl->isn_r + 1, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
			  payload, O.payload);
		frame_check(f, n, &O.client_ip, &O.vip, (uint16_t)(O.port_base + i), 80);
		pcap_add(fc, f, n);
		n = build(f, 1, &O.backend_ip, &fl->snat_ip, 80, fl->snat_port, isn_b(fl->snat_port) + 1,
			  fl->req_end, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, payload, O.payload);
		frame_check(f, n, &O.backend_ip, &fl->snat_ip, 80, fl->snat_port);
		pcap_add(fb, f, n);
	}
	if (fclose(fc) != 0 || fclose(fb) != 0) {
		perror("pcap");
		exit(1);
	}
	free(order);
}

static int
parse_mac(const char *s, struct rte_ether_addr *a)
{
	return rte_ether_unformat_addr(s, a);
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s EAL-ARGS -- --flows N --client-pcap PATH --backend-pcap PATH\n"
		"          [--host NAME] [--timeout S] [--port-base P (client ports P.., default 1024)]\n"
		"           [--router-mac0 MAC] [--router-mac1 MAC]\n"
		"          [--mac0 MAC] [--mac1 MAC] [--family 4|6] [--backend-family 4|6]\n"
		"          [--payload N (the replayed segments' payload bytes, 1-160, default 64)]\n"
		"          [--pair 0|1 (the lab's memif pair: 1 adds 2 to every address's third\n"
		"          octet or group and MAC's fifth byte; default 0)]\n"
		"       %s EAL-ARGS -- [--pair 0|1] --announce (advertise the IPv6 client and\n"
		"          backend to routerd, which pktgen does not answer for, and exit)\n"
		"EAL-ARGS must make two ports: 0 facing routerd's client-side memif port, 1 its\n"
		"backend-side one. Addresses: client 198.18.2.2, VIP 198.18.0.1, backend\n"
		"198.18.3.10:80; with --family 6 client 2001:2:2::2, VIP 2001:2:2::1, with\n"
		"--backend-family 6 backend [2001:2:3::10]:80 (perf/pktgen.routerd.json,\n"
		"perf/pktgen-routes.yaml).\n",
		prog, prog);
	exit(2);
}

/*
 * The lab's addresses of memif pair PAIR (perf/pktgen.routerd.json): pair 0 is routerd's
 * ports "pktgen" (198.18.2.0/24, 2001:2:2::/64) and "pktgen-backend" (198.18.3.0/24,
 * 2001:2:3::/64), pair 1 "pktgen-b" and "pktgen-b-backend", two higher. The IPv4 VIP is
 * 198.18.0.1 on both (routerd takes IPv4 to any of its addresses on any port); the IPv6
 * VIP is routerd's address on the client-side port (IPv6 is taken on the receiving port
 * only). MACs given on the command line (MACS_GIVEN) stay.
 */
static void
lab_pair_addresses(unsigned pair, unsigned macs_given)
{
	const uint8_t cnet = (uint8_t)(2 + 2 * pair), bnet = (uint8_t)(3 + 2 * pair);
	struct rte_ether_addr *mac[4] = { &O.router_mac[0], &O.router_mac[1], &O.my_mac[0], &O.my_mac[1] };
	const uint8_t mac_net[4] = { cnet, bnet, cnet, bnet }, mac_host[4] = { 1, 1, 2, 2 };
	uint8_t *a6[6] = { O.client6, O.backend6, O.vip6, O.router6[0], O.router6[1], NULL };
	const uint8_t a6_net[5] = { cnet, bnet, cnet, cnet, bnet }, a6_host[5] = { 2, 0x10, 1, 1, 1 };
	unsigned k;

	O.client4 = RTE_IPV4(198, 18, cnet, 2);
	O.backend4 = RTE_IPV4(198, 18, bnet, 10);
	for (k = 0; a6[k] != NULL; k++) { /* 2001:2:NET::HOST */
		memset(a6[k], 0, 16);
		a6[k][0] = 0x20, a6[k][1] = 0x01, a6[k][3] = 0x02;
		a6[k][5] = a6_net[k];
		a6[k][15] = a6_host[k];
	}
	for (k = 0; k < 4; k++) /* 02:53:59:00:NET:HOST */
		if (!(macs_given & (1u << k)))
			*mac[k] = (struct rte_ether_addr){ { 0x02, 0x53, 0x59, 0x00, mac_net[k], mac_host[k] } };
}

static void
port_init(uint16_t port)
{
	struct rte_eth_conf conf;
	struct rte_eth_link link;
	unsigned n;

	memset(&conf, 0, sizeof(conf));
	if (rte_eth_dev_configure(port, 1, 1, &conf) < 0 ||
	    rte_eth_rx_queue_setup(port, 0, 1024, (unsigned)rte_socket_id(), NULL, pool) < 0 ||
	    rte_eth_tx_queue_setup(port, 0, 1024, (unsigned)rte_socket_id(), NULL) < 0 ||
	    rte_eth_dev_start(port) < 0)
		rte_exit(1, "port %u: setup failed\n", port);
	for (n = 0; n < 100; n++) { /* memif: up once the server has taken us */
		if (rte_eth_link_get_nowait(port, &link) == 0 && link.link_status)
			return;
		rte_delay_ms(100);
	}
	rte_exit(1, "port %u: memif link not up within 10 s (is routerd running?)\n", port);
}

int
main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "flows", required_argument, NULL, 'n' },
		{ "client-pcap", required_argument, NULL, 'c' },
		{ "backend-pcap", required_argument, NULL, 'b' },
		{ "host", required_argument, NULL, 'H' },
		{ "timeout", required_argument, NULL, 't' },
		{ "port-base", required_argument, NULL, 'p' },
		{ "router-mac0", required_argument, NULL, '0' },
		{ "router-mac1", required_argument, NULL, '1' },
		{ "mac0", required_argument, NULL, 'x' },
		{ "mac1", required_argument, NULL, 'y' },
		{ "family", required_argument, NULL, 'f' },
		{ "backend-family", required_argument, NULL, 'B' },
		{ "payload", required_argument, NULL, 'P' },
		{ "announce", no_argument, NULL, 'A' },
		{ "pair", required_argument, NULL, 'R' },
		{ NULL, 0, NULL, 0 },
	};
	struct rte_mbuf *pkts[BURST];
	unsigned next = 0, spliced = 0, i, inflight;
	uint64_t deadline, last_retry = 0, retry;
	uint16_t port, k, nb;
	int c, ret, family = 4, bfamily = 4, pair = 0;
	unsigned macs_given = 0; /* bit k: the k-th of router-mac0, router-mac1, mac0, mac1 */
	char a6[INET6_ADDRSTRLEN];
	bool announce = false;

	ret = rte_eal_init(argc, argv);
	if (ret < 0)
		rte_exit(1, "EAL init failed\n");
	argc -= ret, argv += ret;
	O.host = "bench.pktgen.test";
	O.timeout_s = 60;
	O.port_base = 1024;
	O.payload = PAYLOAD;
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1) {
		switch (c) {
		case 'n': O.flows = (unsigned)atoi(optarg); break;
		case 'c': O.out_client = optarg; break;
		case 'b': O.out_backend = optarg; break;
		case 'H': O.host = optarg; break;
		case 't': O.timeout_s = (unsigned)atoi(optarg); break;
		case 'p': O.port_base = (unsigned)atoi(optarg); break;
		case '0': if (parse_mac(optarg, &O.router_mac[0]) < 0) usage(argv[0]); macs_given |= 1; break;
		case '1': if (parse_mac(optarg, &O.router_mac[1]) < 0) usage(argv[0]); macs_given |= 2; break;
		case 'x': if (parse_mac(optarg, &O.my_mac[0]) < 0) usage(argv[0]); macs_given |= 4; break;
		case 'y': if (parse_mac(optarg, &O.my_mac[1]) < 0) usage(argv[0]); macs_given |= 8; break;
		case 'R': pair = atoi(optarg); break;
		case 'f': family = atoi(optarg); break;
		case 'B': bfamily = atoi(optarg); break;
		case 'P': O.payload = (unsigned)atoi(optarg); break;
		case 'A': announce = true; break;
		default: usage(argv[0]);
		}
	}
	if ((family != 4 && family != 6) || (bfamily != 4 && bfamily != 6) || O.payload == 0 ||
	    O.payload > PAYLOAD_MAX || (pair != 0 && pair != 1))
		usage(argv[0]);
	lab_pair_addresses((unsigned)pair, macs_given);
	if (family == 6) {
		O.client_ip = (struct addr){ .v6 = 1 };
		memcpy(O.client_ip.a6, O.client6, 16);
		O.vip = (struct addr){ .v6 = 1 };
		memcpy(O.vip.a6, O.vip6, 16);
	} else {
		O.client_ip = (struct addr){ .v4 = O.client4 };
		O.vip = (struct addr){ .v4 = RTE_IPV4(198, 18, 0, 1) };
	}
	if (bfamily == 6) {
		O.backend_ip = (struct addr){ .v6 = 1 };
		memcpy(O.backend_ip.a6, O.backend6, 16);
	} else {
		O.backend_ip = (struct addr){ .v4 = O.backend4 };
	}
	if (!announce && (O.flows == 0 || O.port_base < 1024 || O.port_base + O.flows > 65536 || !O.out_client ||
	    !O.out_backend))
		usage(argv[0]);
	if (rte_eth_dev_count_avail() != 2)
		rte_exit(1, "need exactly 2 ports (two --vdev net_memif...,role=client)\n");
	F = calloc(O.flows + 1, sizeof(*F));
	pool = rte_pktmbuf_pool_create("flows", 8191, 256, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
				       (int)rte_socket_id());
	if (F == NULL || pool == NULL)
		rte_exit(1, "out of memory\n");
	port_init(0);
	port_init(1);
	hz = rte_get_tsc_hz();
	if (announce) {
		nd_announce();
		/* A moment for routerd to take them, answering what it asks meanwhile. */
		for (deadline = rte_rdtsc() + hz / 5; rte_rdtsc() < deadline;)
			for (port = 0; port < 2; port++) {
				nb = rte_eth_rx_burst(port, 0, pkts, BURST);
				for (k = 0; k < nb; k++)
					input(port, pkts[k]);
			}
		printf("pktgen_flows: %s and ", inet_ntop(AF_INET6, O.client6, a6, sizeof(a6)));
		printf("%s announced to routerd\n", inet_ntop(AF_INET6, O.backend6, a6, sizeof(a6)));
		rte_eth_dev_stop(0);
		rte_eth_dev_stop(1);
		rte_eal_cleanup();
		return 0;
	}
	retry = hz * RETRY_MS / 1000;
	deadline = rte_rdtsc() + hz * O.timeout_s;
	inflight = 0;
	while (spliced < O.flows && rte_rdtsc() < deadline) {
		/* New handshakes, at most WINDOW at a time. */
		while (next < O.flows && inflight < WINDOW) {
			F[next].state = F_SYN;
			client_send(next++);
			inflight++;
		}
		for (port = 0; port < 2; port++) {
			nb = rte_eth_rx_burst(port, 0, pkts, BURST);
			for (k = 0; k < nb; k++)
				input(port, pkts[k]);
		}
		/* Lost frames (a full ring on either side) are sent again; the router
		 * retransmits its own backend SYN. */
		if (rte_rdtsc() - last_retry > retry / 4) {
			uint64_t now = rte_rdtsc();

			last_retry = now;
			spliced = inflight = 0;
			for (i = 0; i < next; i++) {
				if (F[i].state == F_SPLICED) {
					spliced++;
					continue;
				}
				inflight++;
				if (now - F[i].sent_at > retry)
					client_send(i);
			}
		}
	}
	for (spliced = 0, i = 0; i < O.flows; i++)
		spliced += F[i].state == F_SPLICED;
	if (spliced < O.flows) {
		unsigned syn = 0, req = 0;

		for (i = 0; i < O.flows; i++)
			syn += F[i].state == F_SYN, req += F[i].state == F_REQ;
		fprintf(stderr, "pktgen_flows: %u of %u flows spliced in %u s (%u without a SYN-ACK, "
			"%u without the request at the backend)\n", spliced, O.flows, O.timeout_s, syn, req);
		return 1;
	}
	write_pcaps();
	printf("pktgen_flows: %u flows spliced (IPv%d client, IPv%d backend); %s, %s written and read back\n",
	       O.flows, family, bfamily, O.out_client, O.out_backend);
	rte_eth_dev_stop(0);
	rte_eth_dev_stop(1);
	rte_eal_cleanup();
	return 0;
}
