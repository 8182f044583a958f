/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * splice_bench: the "Splice fast path" performance figures, measured in one
 * run, on one core, on net_ring or net_memif ports driven by an in-process
 * generator (no kernel in the path), printed as a table beside the
 * machine's reference (dpdk-testpmd macswap on the same port kind) and the
 * issue's targets. perf/README.md says what each figure means and how to
 * read it.
 *
 * How it measures: one thread. The generator (client and backend peers)
 * writes frames into the RX rings of two ring ports (or sends them from the
 * other end of two memif pairs) and reads what the worker transmitted from
 * their TX rings (the memif peers' RX); the worker is the real one
 * (sy_worker_poll: RX burst, L2/L3, TCP, splice, TX burst). Only the cycles
 * inside sy_worker_poll are counted (rdtsc around it); the generator's work
 * is outside. Every figure is the median over several chunks of the run, so
 * a chunk the hypervisor or another process stole the core from does not
 * decide it. The worker clock (w->now) is the TSC plus an offset the
 * harness may advance (the lifecycle phase moves time 2 ms per poll so that
 * LINGER records expire as they would in production).
 *
 * --family 6 (issue 36): the client side of every phase is IPv6 (the client
 * port gets 2001:2::1/64, the client is 2001:2::2, its neighbour entry
 * seeded as ARP's is and its solicitations answered), the backends stay
 * IPv4: the worker splices across the families, established segments on
 * the burst fast path (splice_fast.c, 6to4 and 4to6). --family both runs each
 * phase over IPv4 and then over IPv6 in the same process, on the same
 * ports (the client port has both addresses for both rows), and prints the
 * ratio IPv6 / IPv4 against the "within 10% of IPv4".
 * --backend-family 6: the backend side of every phase is IPv6 (the
 * backend port gets 2001:2:1::1/64, the backend is [2001:2:1::10]:80, its
 * neighbour entry seeded and checked as the client's): the IPv6 rows are
 * 6to6 (the backend's segments found by their SNAT slot, as IPv4's), the
 * IPv4 rows 4to6. --backend-family same: the client side's in each phase,
 * so --family both compares 6to6 with 4to4 (the backend port dual-stack
 * for both, as the client port).
 * --client-gateway: the client is behind a gateway (a static route), as
 * P1's clients are: an IPv6 leg's next hop is then not its peer.
 *
 * Not a test: it prints numbers and verdicts and exits 0 unless the harness
 * itself failed (a generator check, a drop, a stall), which exits 1.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <rte_arp.h>
#include <rte_byteorder.h>
#include <rte_cycles.h>
#include <rte_dev.h>
#include <rte_eal.h>
#include <rte_eth_ring.h>
#include <rte_ethdev.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_tcp.h>

#include "gen/compile.h"
#include "conn/conn.h"
#include "net/arp.h"
#include "net/nd.h"
#include "net/neigh.h"
#include "net/net.h"
#include "port.h"
#include "splice/splice.h"
#include "store/store.h"
#include "sy_addr.h"
#include "sy_gen_slot.h"
#include "sy_generation.h"
#include "tcp/tcp_opts.h"
#include "worker.h"

#define CPORT_MIN 1024u
#define N_CPORTS 65536u
#define BENCH_RING_SIZE 8192
#define BENCH_MBUFS 32767
#define BENCH_BURST 32
#define PORT_CLIENT 0
#define PORT_BACKEND 1
#define LC_INFLIGHT 128     /* lifecycle: connections in flight at once */
#define EST_INFLIGHT 256    /* establishing flows for the forwarding phase */
#define LC_TICK_MS 2        /* lifecycle: worker time advanced per poll */
#define STREAM_PAYLOAD 64   /* bytes of payload in a forwarded data segment */
#define MAX_CHUNKS 64
/* Flows that carry traffic in (1): one client address, one SNAT address and
 * one backend, so at most the client ports and the SNAT ports one worker
 * owns (conn/snat.h: a backend leg is found by its SNAT port). Past that a run of
 * N flows fills the rest of the table with idle flows (fill_table). */
#define FWD_CARRY_MAX 60000u
#define FLOWS_MAX (1u << 20)

static const char REQUEST[] = "GET / HTTP/1.1\r\nHost: bench.test\r\nUser-Agent: splice-bench\r\n"
			      "Accept: */*\r\n\r\n";
static const char RESPONSE[] = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Type: text/plain\r\n"
			       "\r\nok";
#define REQ_LEN ((uint32_t)sizeof(REQUEST) - 1)
#define RESP_LEN ((uint32_t)sizeof(RESPONSE) - 1)

/* What the generator knows of one connection (indexed by client port). */
enum gstate {
	G_FREE,
	G_SYN,      /* SYN sent, waiting for the cookie SYN-ACK */
	G_REQ,      /* ACK + request sent, waiting for the backend SYN */
	G_BSYNACK,  /* backend SYN-ACK sent, waiting for the request at the backend */
	G_EST,      /* request delivered (forwarding phase: streams from here) */
	G_RESP,     /* response sent by the backend, waiting for it at the client */
	G_CFIN,     /* client FIN sent, waiting for it at the backend */
	G_BFIN,     /* backend FIN sent, waiting for it at the client */
	G_LAST,     /* client's last ACK sent, waiting for it at the backend */
	G_CLOSED,   /* done; the tuple rests until the router's LINGER is over */
};

struct gconn {
	uint8_t st;
	uint16_t snat;      /* host order */
	uint32_t isn_c, isn_r, isn_b;
	uint32_t isn_rb;    /* the router's ISN on the backend leg (its SYN's seq) */
	uint32_t ts_r;      /* router's TSval, as the client last saw it */
	uint32_t ts_c;      /* client's TSval, as the backend last saw it */
	uint32_t c_off, b_off; /* payload bytes streamed each way */
	uint64_t closed_at; /* worker time */
};

enum gmode { MODE_ESTABLISH, MODE_LIFECYCLE };

struct chunkset {
	double v[MAX_CHUNKS];
	unsigned n;
};

static struct {
	/* options */
	bool quick, huge, run_testpmd;
	bool do_macswap, do_syn, do_fwd, do_life;
	unsigned core, tp_main_core;
	const char *testpmd;
	unsigned flows[4], n_flows;
	unsigned table_default; /* flows_per_worker outside (1) */
	unsigned chunks;
	uint64_t stream_pkts, syns, conns, macswap_pkts;
	unsigned tp_secs, tp_runs;
	bool memif; /* --port-kind memif: memif pairs instead of ring ports */
	unsigned fam_mask; /* --family: bit 0 IPv4 rows, bit 1 IPv6 rows */
	unsigned fi;       /* the family being measured: 0 IPv4, 1 IPv6 */
	bool v6;           /* fi == 1: the client side speaks IPv6 */
	bool b6;           /* the backend side speaks IPv6 (the phase being measured) */
	int b_fam;         /* --backend-family: 4, 6, or 0 (same: the client side's) */
	unsigned fwd_burst; /* --fwd-burst: frames a port a poll in (1) (default 32) */
	size_t evict_bytes; /* --fwd-evict: bytes written between polls in (1) */
	bool fwd_no_ts;     /* --fwd-no-ts: (1)'s segments without the timestamp option */
	bool client_gw;     /* --client-gateway: the client behind a gateway (nb4, nb6) */
	unsigned fwd_carry; /* --fwd-carry: flows that carry (1)'s traffic (0: as many as fit) */
	bool fwd_in_order;  /* --fwd-in-order: (1)'s flows in port order, as P1's pcaps */
	uint8_t *evict;

	/* DPDK */
	uint64_t hz;
	struct rte_mempool *pool;
	struct rte_ring *rx[2], *tx[2]; /* rx: generator -> worker, tx: worker -> generator */
	uint16_t pid[2];
	/* memif: the generator's end of each pair, its socket, frames sent */
	uint16_t gpid[2];
	char sock[2][108];
	uint64_t gsent[2];
	struct sy_config cfg;
	struct sy_dp_shared *sh;
	struct sy_gen_slot slot;
	struct sy_store store;
	struct sy_generation *gen[2]; /* the route to an IPv4 backend, to an IPv6 one (b6) */
	struct sy_worker *w;
	struct rte_ether_addr rmac[2], pmac[2];
	uint32_t rip[2], pip[2]; /* router and peer addresses, network order */
	uint8_t rip6[16], pip6[16]; /* the client port's IPv6 and the client's */
	uint8_t rip6b[16], pip6b[16]; /* --backend-family 6: the backend port's and the backend's */
	char prefix[64];

	/* generator */
	enum gmode mode;
	struct gconn *gc;
	uint16_t *snat2c;
	uint64_t toff; /* added to the TSC for the worker's clock */
	uint16_t ip_id;
	uint32_t lc_next_port;
	uint64_t n_est, n_done, n_started, n_fwd_seen;
	uint64_t unexpected, verify_err, gen_nombuf, gen_ring_full, arp_answered, nd_answered;
	uint64_t sample;
	struct rte_mbuf *q[2][BENCH_RING_SIZE];
	unsigned nq[2];
	uint8_t data[1500];
	uint64_t rng;
	bool failed;
} B;

/* Results */
static struct {
	double tp_cpp[8];
	unsigned tp_n;
	double tp_mhz;
	char tp_err[256];
	/* best chunk (the figure used) and median chunk of each */
	double macswap_cpp, macswap_med;
	char load[64];
	size_t sz_conn, conn_obj, peek_obj, peek_pool_total, mbuf_obj, worker_total;
	/* (4) per table size: flows[i]'s table (table_size()) */
	struct {
		unsigned table;
		size_t hash, conns, snat, cache;
		size_t conns6; /* the arena with an IPv6 port: each record's IPv6 side in its slot */
	} mem[4];
} R;

/* Results of (1), (2), (3), one set per client family (F[0] IPv4, F[1]
 * IPv6); RF is the family being measured. */
static struct famres {
	double fwd_cpp[4], fwd_med[4], fwd_wall_mpps[4], est_cpc[4], fwd_fast_share[4];
	/* (1) less the port drivers' RX and TX calls, as perf/pktgen's P1 "own" */
	double fwd_own[4], fwd_own_med[4];
	unsigned carried[4]; /* flows that carried traffic in (1) */
	double syn_cps, syn_med, syn_wall;
	double lc_cpc, lc_med, lc_wall, lc_avg_cpc;
	uint64_t lc_done, lc_flows_end, lc_closed;
} F[2];
#define RF F[B.fi]

/* The flows_per_worker a run of n flows uses: n, at least the config's
 * minimum. */
static unsigned
table_size(unsigned n)
{
	return n < SY_FLOWS_PER_WORKER_MIN ? SY_FLOWS_PER_WORKER_MIN : n;
}

static void
fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "splice_bench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	B.failed = true;
}

static uint64_t
xrand(void)
{
	B.rng ^= B.rng << 13;
	B.rng ^= B.rng >> 7;
	B.rng ^= B.rng << 17;
	return B.rng;
}

static double
median(struct chunkset *c)
{
	unsigned i, j;

	if (c->n == 0)
		return 0;
	for (i = 1; i < c->n; i++)
		for (j = i; j > 0 && c->v[j - 1] > c->v[j]; j--) {
			double t = c->v[j];

			c->v[j] = c->v[j - 1];
			c->v[j - 1] = t;
		}
	return c->n % 2 ? c->v[c->n / 2] : (c->v[c->n / 2 - 1] + c->v[c->n / 2]) / 2;
}

/* Smallest chunk: the figure with the least interference (preemption only
 * ever adds cycles). */
static double
best(const struct chunkset *c)
{
	double b = 0;
	unsigned i;

	for (i = 0; i < c->n; i++)
		if (i == 0 || c->v[i] < b)
			b = c->v[i];
	return b;
}

static void
chunk_add(struct chunkset *c, double v)
{
	if (c->n < MAX_CHUNKS)
		c->v[c->n++] = v;
}

static double
wall_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* ------------------------------------------------------------ testpmd -- */

/*
 * dpdk-testpmd, macswap forwarding, one net_ring port (a net_ring vdev loops
 * its TX back into its RX), 32 packets of 64 bytes circulating (--tx-first),
 * forwarding on the same core the bench uses. --record-core-cycles makes it
 * print its own busy cycles per packet (cycles of bursts that received
 * something / packets), which is what we compare with.
 */
static void
testpmd_once(unsigned run)
{
	char cmd[1024], line[512], dir[128];
	double cpp = -1, mhz = 0;
	FILE *f;

	char vdevs[256], sock[108] = "";

	snprintf(B.prefix, sizeof(B.prefix), "sy-bench-tp-%ld-%u", (long)getpid(), run);
	if (B.memif) {
		/* A memif pair in the one process: what one forwards, the other
		 * receives, as with the bench's pairs (same defaults). */
		snprintf(sock, sizeof(sock), "/tmp/%s.sock", B.prefix);
		snprintf(vdevs, sizeof(vdevs),
			 "--vdev net_memif0,role=server,id=0,socket=%s"
			 " --vdev net_memif1,role=client,id=0,socket=%s",
			 sock, sock);
	} else {
		snprintf(vdevs, sizeof(vdevs), "--vdev net_ring0");
	}
	snprintf(cmd, sizeof(cmd),
		 "timeout -k 5 -s INT %u %s -l %u,%u --no-pci %s --no-shconf --file-prefix %s"
		 " %s --no-telemetry --log-level='*:error' --"
		 " --forward-mode=macswap --tx-first --record-core-cycles --stats-period 1"
		 " --total-num-mbufs 8192 </dev/null 2>&1",
		 B.tp_secs + 1, B.testpmd, B.tp_main_core, B.core,
		 B.huge ? "--huge-unlink -m 256" : "--no-huge -m 512", B.prefix, vdevs);
	f = popen(cmd, "r");
	if (f == NULL) {
		snprintf(R.tp_err, sizeof(R.tp_err), "popen: %s", strerror(errno));
		return;
	}
	while (fgets(line, sizeof(line), f) != NULL) {
		const char *p = strstr(line, "CPU cycles/packet=");
		const char *q;

		if (p == NULL)
			continue;
		cpp = strtod(p + strlen("CPU cycles/packet="), NULL);
		q = strstr(line, " at ");
		if (q != NULL)
			mhz = strtod(q + 4, NULL);
	}
	(void)pclose(f);
	/* EAL leaves its (empty, with --no-shconf) runtime directory. */
	snprintf(dir, sizeof(dir), "/var/run/dpdk/%s", B.prefix);
	(void)rmdir(dir);
	if (sock[0])
		(void)unlink(sock);
	if (cpp <= 0) {
		snprintf(R.tp_err, sizeof(R.tp_err), "no \"CPU cycles/packet\" in its output");
		fprintf(stderr, "splice_bench: testpmd gave no figure; try by hand: %s\n", cmd);
		return;
	}
	R.tp_cpp[R.tp_n++] = cpp;
	R.tp_mhz = mhz;
}

/* ------------------------------------------------------------- frames -- */

struct seg_spec {
	uint32_t saddr, daddr; /* network order */
	uint16_t sport, dport; /* network order */
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t win;
	const struct sy_tcp_syn_opts *syn;
	bool ts;
	uint32_t tsval, tsecr;
	const void *payload;
	uint16_t len;
	bool tagged;  /* first 4 payload bytes := tag (to check translation) */
	uint32_t tag;
};

/* Does the peer on `port` speak IPv6, and its address and the router's
 * there. */
static bool
port_v6(unsigned port)
{
	return port == PORT_CLIENT ? B.v6 : B.b6;
}

static const uint8_t *
peer6(unsigned port)
{
	return port == PORT_CLIENT ? B.pip6 : B.pip6b;
}

static const uint8_t *
router6(unsigned port)
{
	return port == PORT_CLIENT ? B.rip6 : B.rip6b;
}

/* A frame from the peer on `port` to the router, checksums complete. Over
 * IPv6 when that peer speaks it (port_v6): from peer6(port) to
 * router6(port) (saddr and daddr unused), its TCP checksum over the IPv6
 * pseudo-header. */
static struct rte_mbuf *
mk_seg(unsigned port, const struct seg_spec *s)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(B.pool);
	struct rte_ether_hdr *eh;
	struct rte_ipv4_hdr *ip;
	struct rte_ipv6_hdr *ip6 = NULL;
	struct rte_tcp_hdr *th;
	uint8_t opts[40];
	unsigned olen = 0;
	uint16_t iplen;
	const bool v6 = port_v6(port);

	if (m == NULL) {
		B.gen_nombuf++;
		return NULL;
	}
	if (s->syn != NULL)
		olen = sy_tcp_write_syn_opts(opts, s->syn);
	else if (s->ts)
		olen = sy_tcp_write_ts_opt(opts, s->tsval, s->tsecr);
	iplen = (uint16_t)((v6 ? sizeof(*ip6) : sizeof(*ip)) + sizeof(*th) + olen + s->len);
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, (uint16_t)(sizeof(*eh) + iplen));
	rte_ether_addr_copy(&B.rmac[port], &eh->dst_addr);
	rte_ether_addr_copy(&B.pmac[port], &eh->src_addr);
	if (v6) {
		eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
		ip = NULL;
		ip6 = (struct rte_ipv6_hdr *)(eh + 1);
		memset(ip6, 0, sizeof(*ip6));
		ip6->vtc_flow = RTE_BE32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)(iplen - sizeof(*ip6)));
		ip6->proto = IPPROTO_TCP;
		ip6->hop_limits = 64;
		memcpy(ip6->src_addr, peer6(port), 16);
		memcpy(ip6->dst_addr, router6(port), 16);
		th = (struct rte_tcp_hdr *)(ip6 + 1);
		goto tcp;
	}
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	ip = (struct rte_ipv4_hdr *)(eh + 1);
	memset(ip, 0, sizeof(*ip));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16(iplen);
	ip->packet_id = rte_cpu_to_be_16(B.ip_id++);
	ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
	ip->time_to_live = 64;
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = s->saddr;
	ip->dst_addr = s->daddr;
	th = (struct rte_tcp_hdr *)(ip + 1);
tcp:
	th->src_port = s->sport;
	th->dst_port = s->dport;
	th->sent_seq = rte_cpu_to_be_32(s->seq);
	th->recv_ack = rte_cpu_to_be_32(s->ack);
	th->data_off = (uint8_t)(((sizeof(*th) + olen) / 4) << 4);
	th->tcp_flags = s->flags;
	th->rx_win = rte_cpu_to_be_16(s->win);
	th->cksum = 0;
	th->tcp_urp = 0;
	memcpy(th + 1, opts, olen);
	if (s->len) {
		uint8_t *pl = (uint8_t *)(th + 1) + olen;

		memcpy(pl, s->payload, s->len);
		if (s->tagged && s->len >= 4) {
			uint32_t t = rte_cpu_to_be_32(s->tag);

			memcpy(pl, &t, 4);
		}
	}
	if (v6) {
		th->cksum = rte_ipv6_udptcp_cksum(ip6, th);
		return m;
	}
	ip->hdr_checksum = rte_ipv4_cksum(ip);
	th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	return m;
}

struct tcpv {
	bool v6;                  /* IPv6: ip6 set, ip NULL */
	struct rte_ipv4_hdr *ip;
	struct rte_ipv6_hdr *ip6;
	struct rte_tcp_hdr *th;
	const uint8_t *payload;
	uint16_t plen;
	uint32_t seq, ack;
	uint8_t fl;
};

static int
parse_tcp(struct rte_mbuf *m, struct tcpv *v)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	unsigned ihl, thl, tl;

	if (eh->ether_type == RTE_BE16(RTE_ETHER_TYPE_IPV6)) {
		/* What the router sends over IPv6: the fixed header, TCP right
		 * after it (no extension headers). */
		v->v6 = true;
		v->ip = NULL;
		v->ip6 = (struct rte_ipv6_hdr *)(eh + 1);
		if (m->data_len < sizeof(*eh) + sizeof(*v->ip6) + sizeof(*v->th) ||
		    (rte_be_to_cpu_32(v->ip6->vtc_flow) >> 28) != 6 || v->ip6->proto != IPPROTO_TCP)
			return -1;
		ihl = sizeof(*v->ip6);
		v->th = (struct rte_tcp_hdr *)(v->ip6 + 1);
		tl = ihl + rte_be_to_cpu_16(v->ip6->payload_len);
	} else {
		if (eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV4))
			return -1;
		v->v6 = false;
		v->ip6 = NULL;
		v->ip = (struct rte_ipv4_hdr *)(eh + 1);
		if (v->ip->next_proto_id != IPPROTO_TCP)
			return -1;
		ihl = rte_ipv4_hdr_len(v->ip);
		v->th = (struct rte_tcp_hdr *)((uint8_t *)v->ip + ihl);
		tl = rte_be_to_cpu_16(v->ip->total_length);
	}
	thl = (v->th->data_off >> 4) * 4u;
	if (tl < ihl + thl || m->data_len < sizeof(*eh) + tl)
		return -1;
	v->payload = (const uint8_t *)v->th + thl;
	v->plen = (uint16_t)(tl - ihl - thl);
	v->seq = rte_be_to_cpu_32(v->th->sent_seq);
	v->ack = rte_be_to_cpu_32(v->th->recv_ack);
	v->fl = v->th->tcp_flags;
	return 0;
}

static uint32_t
tag_of(const struct tcpv *v)
{
	uint32_t t;

	memcpy(&t, v->payload, 4);
	return rte_be_to_cpu_32(t);
}

/* Every 16th frame the worker sends: are both checksums right? */
static void
check_sums(const struct tcpv *v)
{
	if ((++B.sample & 15) != 0)
		return;
	if (v->v6) {
		if (rte_ipv6_udptcp_cksum_verify(v->ip6, v->th) != 0)
			B.verify_err++;
		return;
	}
	if (rte_raw_cksum(v->ip, rte_ipv4_hdr_len(v->ip)) != 0xffff ||
	    rte_ipv4_udptcp_cksum_verify(v->ip, v->th) != 0)
		B.verify_err++;
}

static void
gen_push(unsigned port, struct rte_mbuf *m)
{
	if (m == NULL)
		return;
	if (B.nq[port] == BENCH_RING_SIZE) {
		rte_pktmbuf_free(m);
		B.gen_ring_full++;
		return;
	}
	B.q[port][B.nq[port]++] = m;
}

/* Frames to the worker's port p: into its RX ring, or sent from the memif
 * peer. Returns how many were taken. */
static unsigned
to_worker(unsigned p, struct rte_mbuf **m, unsigned n)
{
	if (!B.memif)
		return rte_ring_enqueue_burst(B.rx[p], (void **)m, n, NULL);
	n = rte_eth_tx_burst(B.gpid[p], 0, m, (uint16_t)n);
	B.gsent[p] += n;
	return n;
}

/* What the worker sent on its port p: from its TX ring, or received by
 * the memif peer. */
static unsigned
from_worker(unsigned p, struct rte_mbuf **m, unsigned n)
{
	if (!B.memif)
		return rte_ring_dequeue_burst(B.tx[p], (void **)m, n, NULL);
	return rte_eth_rx_burst(B.gpid[p], 0, m, (uint16_t)n);
}

/* Frames waiting for the worker on its port p. */
static uint64_t
worker_backlog(unsigned p)
{
	struct rte_eth_stats st;

	if (!B.memif)
		return rte_ring_count(B.rx[p]);
	if (rte_eth_stats_get(B.pid[p], &st) != 0)
		return 0;
	return B.gsent[p] - st.ipackets;
}

static void
gen_flush(void)
{
	unsigned p, n;

	for (p = 0; p < 2; p++) {
		if (B.nq[p] == 0)
			continue;
		n = to_worker(p, B.q[p], B.nq[p]);
		if (n < B.nq[p]) {
			B.gen_ring_full += B.nq[p] - n;
			rte_pktmbuf_free_bulk(&B.q[p][n], B.nq[p] - n);
		}
		B.nq[p] = 0;
	}
}

/* --client-gateway: the client (198.18.128.2, 2001:2:80::2) is behind a
 * gateway on the client port (198.18.0.254, 2001:2::fe, the client's MAC),
 * as P2's SYN flood is behind 198.18.2.2 and 2001:2:2::2 (perf/pktgen; P1's
 * clients are those two addresses, on-link): the gateway is the neighbour
 * the router resolves. */
#define CLIENT_GW4 "198.18.0.254"
#define CLIENT_GW6 "2001:2::fe"
static uint32_t gw4;
static uint8_t gw6[16];

/* The neighbour the router resolves on port: the peer, or its gateway. */
static inline uint32_t
nb4(unsigned port)
{
	return B.client_gw && port == PORT_CLIENT ? gw4 : B.pip[port];
}

static inline const uint8_t *
nb6(unsigned port)
{
	return B.client_gw && port == PORT_CLIENT ? gw6 : peer6(port);
}

/* An ARP frame from the peer on `port` to the router. */
static struct rte_mbuf *
mk_arp(unsigned port, uint16_t op, uint32_t tip)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(B.pool);
	struct rte_ether_hdr *eh;
	struct rte_arp_hdr *a;

	if (m == NULL) {
		B.gen_nombuf++;
		return NULL;
	}
	eh = (struct rte_ether_hdr *)rte_pktmbuf_append(m, sizeof(*eh) + sizeof(*a));
	rte_ether_addr_copy(&B.rmac[port], &eh->dst_addr);
	rte_ether_addr_copy(&B.pmac[port], &eh->src_addr);
	eh->ether_type = RTE_BE16(RTE_ETHER_TYPE_ARP);
	a = (struct rte_arp_hdr *)(eh + 1);
	a->arp_hardware = RTE_BE16(RTE_ARP_HRD_ETHER);
	a->arp_protocol = RTE_BE16(RTE_ETHER_TYPE_IPV4);
	a->arp_hlen = RTE_ETHER_ADDR_LEN;
	a->arp_plen = 4;
	a->arp_opcode = rte_cpu_to_be_16(op);
	rte_ether_addr_copy(&B.pmac[port], &a->arp_data.arp_sha);
	a->arp_data.arp_sip = nb4(port);
	rte_ether_addr_copy(&B.rmac[port], &a->arp_data.arp_tha);
	a->arp_data.arp_tip = tip;
	return m;
}

/* The peers answer the router's ARP requests (a neighbour gone stale). */
static bool
gen_arp(unsigned port, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_arp_hdr *a = (struct rte_arp_hdr *)(eh + 1);

	if (eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_ARP))
		return false;
	if (a->arp_opcode == RTE_BE16(RTE_ARP_OP_REQUEST) && a->arp_data.arp_tip == nb4(port)) {
		gen_push(port, mk_arp(port, RTE_ARP_OP_REPLY, a->arp_data.arp_sip));
		B.arp_answered++;
	}
	return true;
}

/* An IPv6 peer (the client, or the backend with --backend-family 6)
 * answers the router's neighbour solicitations for its address (a
 * neighbour gone stale or not yet known: RFC 4861 7.2.4), as the peers
 * answer ARP. Any other ICMPv6 the router sends it is a wrong frame.
 * Returns whether m was ICMPv6. */
static bool
gen_nd(unsigned port, struct rte_mbuf *m)
{
	struct rte_ether_hdr *eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(eh + 1), *rip6;
	const struct sy_nd_msg *ns = (const struct sy_nd_msg *)(ip6 + 1);
	struct sy_nd_msg_ll *na;
	struct rte_ether_hdr *reh;
	struct rte_mbuf *r;

	if (eh->ether_type != RTE_BE16(RTE_ETHER_TYPE_IPV6) || ip6->proto != IPPROTO_ICMPV6)
		return false;
	if (m->data_len < sizeof(*eh) + sizeof(*ip6) + sizeof(*ns) || ns->type != SY_ND_SOLICIT ||
	    ip6->hop_limits != SY_ND_HOP_LIMIT || memcmp(ns->target, nb6(port), 16) != 0 ||
	    rte_ipv6_udptcp_cksum_verify(ip6, ns) != 0) {
		if (B.unexpected++ < 5)
			fprintf(stderr, "splice_bench: unexpected ICMPv6 type %u at the %s\n",
				m->data_len > sizeof(*eh) + sizeof(*ip6) ? ns->type : 0,
				port == PORT_CLIENT ? "client" : "backend");
		return true;
	}
	r = rte_pktmbuf_alloc(B.pool);
	if (r == NULL) {
		B.gen_nombuf++;
		return true;
	}
	reh = (struct rte_ether_hdr *)rte_pktmbuf_append(r, sizeof(*reh) + sizeof(*rip6) + sizeof(*na));
	memset(reh, 0, sizeof(*reh) + sizeof(*rip6) + sizeof(*na));
	rte_ether_addr_copy(&eh->src_addr, &reh->dst_addr);
	rte_ether_addr_copy(&B.pmac[port], &reh->src_addr);
	reh->ether_type = RTE_BE16(RTE_ETHER_TYPE_IPV6);
	rip6 = (struct rte_ipv6_hdr *)(reh + 1);
	rip6->vtc_flow = RTE_BE32(6u << 28);
	rip6->payload_len = rte_cpu_to_be_16(sizeof(*na));
	rip6->proto = IPPROTO_ICMPV6;
	rip6->hop_limits = SY_ND_HOP_LIMIT;
	memcpy(rip6->src_addr, nb6(port), 16);
	memcpy(rip6->dst_addr, ip6->src_addr, 16);
	na = (struct sy_nd_msg_ll *)(rip6 + 1);
	na->msg.type = SY_ND_ADVERT;
	na->msg.flags = SY_ND_FLAG_SOLICITED | SY_ND_FLAG_OVERRIDE;
	memcpy(na->msg.target, nb6(port), 16);
	na->opt_type = SY_ND_OPT_TARGET_LL;
	na->opt_len = 1;
	memcpy(na->mac, B.pmac[port].addr_bytes, sizeof(na->mac));
	na->msg.cksum = rte_ipv6_udptcp_cksum(rip6, na);
	gen_push(port, r);
	B.nd_answered++;
	return true;
}

/* ------------------------------------------------- the generator peers -- */

static uint32_t
peer_ts(unsigned port)
{
	uint64_t ms = (rte_rdtsc() + B.toff) / (B.hz / 1000);

	return (uint32_t)ms * 3u + (port ? 0x40000000u : 0x12345u);
}

static void
client_send(uint16_t cport, uint32_t seq, uint32_t ack, uint8_t flags, const void *pl, uint16_t len,
	    uint32_t tsecr)
{
	struct seg_spec s = {
		.saddr = B.pip[PORT_CLIENT], .daddr = B.rip[PORT_CLIENT],
		.sport = rte_cpu_to_be_16(cport), .dport = RTE_BE16(80),
		.seq = seq, .ack = ack, .flags = flags, .win = 502,
		.ts = true, .tsval = peer_ts(PORT_CLIENT), .tsecr = tsecr,
		.payload = pl, .len = len,
	};

	gen_push(PORT_CLIENT, mk_seg(PORT_CLIENT, &s));
}

static void
backend_send(const struct gconn *g, uint32_t seq, uint32_t ack, uint8_t flags, const void *pl,
	     uint16_t len)
{
	struct seg_spec s = {
		.saddr = B.pip[PORT_BACKEND], .daddr = B.rip[PORT_BACKEND],
		.sport = RTE_BE16(80), .dport = rte_cpu_to_be_16(g->snat),
		.seq = seq, .ack = ack, .flags = flags, .win = 509,
		.ts = true, .tsval = peer_ts(PORT_BACKEND), .tsecr = g->ts_c,
		.payload = pl, .len = len,
	};

	gen_push(PORT_BACKEND, mk_seg(PORT_BACKEND, &s));
}

static void
client_syn(uint16_t cport)
{
	struct gconn *g = &B.gc[cport];
	struct sy_tcp_syn_opts o = {
		.mss = 1460, .wscale = 7, .sack_ok = true, .ts_ok = true,
		.tsval = peer_ts(PORT_CLIENT), .tsecr = 0,
	};
	struct seg_spec s = {
		.saddr = B.pip[PORT_CLIENT], .daddr = B.rip[PORT_CLIENT],
		.sport = rte_cpu_to_be_16(cport), .dport = RTE_BE16(80),
		.flags = RTE_TCP_SYN_FLAG, .win = 64240, .syn = &o,
	};

	memset(g, 0, sizeof(*g));
	/* The upper client ports make the client leg's sequence numbers
	 * cross 2^32. */
	g->isn_c = ((uint32_t)cport << 16) | (uint32_t)(xrand() & 0xffff);
	s.seq = g->isn_c;
	g->st = G_SYN;
	B.n_started++;
	gen_push(PORT_CLIENT, mk_seg(PORT_CLIENT, &s));
}

static void
unexpected(const char *what, uint16_t cport, const struct tcpv *v)
{
	if (B.unexpected++ < 5)
		fprintf(stderr, "splice_bench: unexpected %s (client port %u, state %u, flags %#x,"
				" seq %u ack %u len %u)\n",
			what, cport, B.gc[cport].st, v->fl, v->seq, v->ack, v->plen);
}

/* Router -> client. */
static void
on_client_frame(struct rte_mbuf *m)
{
	struct tcpv v;
	uint16_t cport;
	struct gconn *g;
	uint32_t tsval, tsecr;

	if (gen_arp(PORT_CLIENT, m) || (B.v6 && gen_nd(PORT_CLIENT, m)))
		return;
	if (parse_tcp(m, &v) < 0) {
		B.unexpected++;
		return;
	}
	cport = rte_be_to_cpu_16(v.th->dst_port);
	g = &B.gc[cport];
	check_sums(&v);
	if (v.v6 != B.v6 || v.th->src_port != RTE_BE16(80))
		B.verify_err++;
	else if (v.v6) {
		/* From the listen address to the client, at the MAC its
		 * neighbour entry holds. */
		if (memcmp(v.ip6->src_addr, B.rip6, 16) != 0 ||
		    memcmp(v.ip6->dst_addr, B.pip6, 16) != 0 ||
		    !rte_is_same_ether_addr(&rte_pktmbuf_mtod(m, struct rte_ether_hdr *)->dst_addr,
					    &B.pmac[PORT_CLIENT]))
			B.verify_err++;
	} else if (v.ip->src_addr != B.rip[PORT_CLIENT] || v.ip->dst_addr != B.pip[PORT_CLIENT])
		B.verify_err++;
	if (sy_tcp_find_ts(v.th, &tsval, &tsecr))
		g->ts_r = tsval;
	switch (g->st) {
	case G_SYN:
		if (v.fl != (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG) || v.ack != g->isn_c + 1) {
			unexpected("cookie SYN-ACK", cport, &v);
			return;
		}
		g->isn_r = v.seq;
		g->st = G_REQ;
		client_send(cport, g->isn_c + 1, g->isn_r + 1, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
			    REQUEST, REQ_LEN, g->ts_r);
		return;
	case G_EST:
		/* Forwarding phase, backend -> client: seq translated by d_seq. */
		if (v.plen < 4 || v.seq != tag_of(&v) + (g->isn_r - g->isn_b) ||
		    v.ack != g->isn_c + 1 + REQ_LEN + g->c_off)
			B.verify_err++;
		B.n_fwd_seen++;
		return;
	case G_RESP:
		if (v.plen != RESP_LEN || v.seq != g->isn_r + 1 || v.ack != g->isn_c + 1 + REQ_LEN) {
			unexpected("response at the client", cport, &v);
			return;
		}
		g->st = G_CFIN;
		client_send(cport, g->isn_c + 1 + REQ_LEN, g->isn_r + 1 + RESP_LEN,
			    RTE_TCP_FIN_FLAG | RTE_TCP_ACK_FLAG, NULL, 0, g->ts_r);
		return;
	case G_BFIN:
		if (!(v.fl & RTE_TCP_FIN_FLAG) || v.seq != g->isn_r + 1 + RESP_LEN ||
		    v.ack != g->isn_c + 2 + REQ_LEN) {
			unexpected("backend FIN at the client", cport, &v);
			return;
		}
		g->st = G_LAST;
		client_send(cport, g->isn_c + 2 + REQ_LEN, g->isn_r + 2 + RESP_LEN, RTE_TCP_ACK_FLAG,
			    NULL, 0, g->ts_r);
		return;
	default:
		unexpected("segment at the client", cport, &v);
		return;
	}
}

/* Router -> backend. */
static void
on_backend_frame(struct rte_mbuf *m)
{
	struct tcpv v;
	uint16_t cport, snat;
	struct gconn *g;
	uint32_t tsval, tsecr;

	if (gen_arp(PORT_BACKEND, m) || (B.b6 && gen_nd(PORT_BACKEND, m)))
		return;
	/* The backend's family is the run's (--backend-family). */
	if (parse_tcp(m, &v) < 0 || v.v6 != B.b6) {
		B.unexpected++;
		return;
	}
	check_sums(&v);
	snat = rte_be_to_cpu_16(v.th->src_port);
	if ((v.v6 ? memcmp(v.ip6->src_addr, B.rip6b, 16) != 0 ||
			    memcmp(v.ip6->dst_addr, B.pip6b, 16) != 0
		  : v.ip->src_addr != B.rip[PORT_BACKEND] || v.ip->dst_addr != B.pip[PORT_BACKEND]) ||
	    v.th->dst_port != RTE_BE16(80))
		B.verify_err++;
	if (v.fl & RTE_TCP_SYN_FLAG) {
		struct sy_tcp_syn_opts o, a;
		struct seg_spec s;

		/* The SYN carries the router's own ISN (tcp_isn.h): the
		 * connection it opens is the one the backend's answer will
		 * find (its SNAT port's slot; an IPv6 leg's tuple). */
		const struct sy_conn *c;

		if (v.v6) {
			struct sy_flow_key6 k;

			sy_flow_key_v6(&k, B.pip6b, B.rip6b, v.th->dst_port, v.th->src_port);
			c = sy_flow_lookup6(B.w, &k);
		} else {
			c = sy_flow_backend_lookup(&B.w->tcp, v.ip->dst_addr, v.ip->src_addr,
						   v.th->dst_port, v.th->src_port);
		}
		if (c == NULL) {
			unexpected("backend SYN (no record)", 0, &v);
			return;
		}
		cport = rte_be_to_cpu_16(c->client_port);
		g = &B.gc[cport];
		if (g->st != G_REQ || sy_tcp_parse_syn_opts(v.th, &o) < 0) {
			unexpected("backend SYN", cport, &v);
			return;
		}
		g->isn_rb = v.seq;
		/* The client's own options (docs/architecture.md 9.3). */
		if (o.wscale != 7 || !o.sack_ok || !o.ts_ok || o.mss == 0 || o.mss > 1460)
			B.verify_err++;
		g->snat = snat;
		g->ts_c = o.tsval;
		B.snat2c[snat] = cport;
		/* Every 4th backend starts just below 2^32: its sequence numbers
		 * (and the translated ones) wrap while the flow streams. */
		g->isn_b = (cport & 3) == 0 ? 0u - 1u - (uint32_t)(xrand() % 4096) : (uint32_t)xrand();
		g->st = G_BSYNACK;
		memset(&a, 0, sizeof(a));
		a.mss = 1460;
		a.wscale = 7;
		a.sack_ok = true;
		a.ts_ok = true;
		a.tsval = peer_ts(PORT_BACKEND);
		a.tsecr = o.tsval;
		memset(&s, 0, sizeof(s));
		s.saddr = B.pip[PORT_BACKEND];
		s.daddr = B.rip[PORT_BACKEND];
		s.sport = RTE_BE16(80);
		s.dport = rte_cpu_to_be_16(snat);
		s.seq = g->isn_b;
		s.ack = g->isn_rb + 1;
		s.flags = RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG;
		s.win = 65160;
		s.syn = &a;
		gen_push(PORT_BACKEND, mk_seg(PORT_BACKEND, &s));
		return;
	}
	cport = B.snat2c[snat];
	g = &B.gc[cport];
	if (sy_tcp_find_ts(v.th, &tsval, &tsecr))
		g->ts_c = tsval;
	switch (g->st) {
	case G_BSYNACK:
		if (v.plen != REQ_LEN || v.seq != g->isn_rb + 1 || v.ack != g->isn_b + 1 ||
		    memcmp(v.payload, REQUEST, REQ_LEN) != 0) {
			unexpected("request at the backend", cport, &v);
			return;
		}
		if (B.mode == MODE_ESTABLISH) {
			g->st = G_EST;
			B.n_est++;
			return;
		}
		g->st = G_RESP;
		backend_send(g, g->isn_b + 1, g->isn_rb + 1 + REQ_LEN, RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
			     RESPONSE, RESP_LEN);
		return;
	case G_EST:
		/* Forwarding phase, client -> backend: ack translated by -d_seq. */
		if (v.plen < 4 || v.ack != tag_of(&v) - (g->isn_r - g->isn_b))
			B.verify_err++;
		B.n_fwd_seen++;
		return;
	case G_CFIN:
		if (!(v.fl & RTE_TCP_FIN_FLAG) || v.seq != g->isn_rb + 1 + REQ_LEN ||
		    v.ack != g->isn_b + 1 + RESP_LEN) {
			unexpected("client FIN at the backend", cport, &v);
			return;
		}
		g->st = G_BFIN;
		backend_send(g, g->isn_b + 1 + RESP_LEN, g->isn_rb + 2 + REQ_LEN,
			     RTE_TCP_FIN_FLAG | RTE_TCP_ACK_FLAG, NULL, 0);
		return;
	case G_LAST:
		if ((v.fl & (RTE_TCP_FIN_FLAG | RTE_TCP_SYN_FLAG | RTE_TCP_RST_FLAG)) || v.plen != 0 ||
		    v.ack != g->isn_b + 2 + RESP_LEN) {
			unexpected("last ACK at the backend", cport, &v);
			return;
		}
		g->st = G_CLOSED;
		g->closed_at = rte_rdtsc() + B.toff;
		B.n_done++;
		return;
	default:
		unexpected("segment at the backend", cport, &v);
		return;
	}
}

/* Everything the worker transmitted: handled by the peers, then freed. */
static unsigned
gen_drain(void)
{
	struct rte_mbuf *pkts[64];
	unsigned p, n, i, total = 0;

	for (p = 0; p < 2; p++) {
		while ((n = from_worker(p, pkts, RTE_DIM(pkts))) > 0) {
			for (i = 0; i < n; i++) {
				if (p == PORT_CLIENT)
					on_client_frame(pkts[i]);
				else
					on_backend_frame(pkts[i]);
			}
			rte_pktmbuf_free_bulk(pkts, n);
			total += n;
		}
	}
	return total;
}

/* Free whatever sits in the rings (between phases). */
static void
rings_purge(void)
{
	struct rte_mbuf *pkts[64];
	unsigned p, n;

	for (p = 0; p < 2; p++) {
		if (B.memif) {
			/* Both ends of the pair: what either has not read yet. */
			while ((n = rte_eth_rx_burst(B.pid[p], 0, pkts, RTE_DIM(pkts))) > 0)
				rte_pktmbuf_free_bulk(pkts, n);
			while ((n = from_worker(p, pkts, RTE_DIM(pkts))) > 0)
				rte_pktmbuf_free_bulk(pkts, n);
			continue;
		}
		if (B.rx[p] == NULL || B.tx[p] == NULL)
			continue;
		while ((n = rte_ring_dequeue_burst(B.rx[p], (void **)pkts, RTE_DIM(pkts), NULL)) > 0)
			rte_pktmbuf_free_bulk(pkts, n);
		while ((n = from_worker(p, pkts, RTE_DIM(pkts))) > 0)
			rte_pktmbuf_free_bulk(pkts, n);
	}
}

/* ------------------------------------------------------------- worker -- */

static inline uint64_t
poll_measured(void)
{
	uint64_t t0, t1;

	B.w->now = rte_rdtsc() + B.toff;
	t0 = rte_rdtsc();
	sy_worker_poll(B.w);
	t1 = rte_rdtsc();
	return t1 - t0;
}

/* --fwd-evict: what the worker's core does between two polls outside
 * (the memif driver's copies of other frames, a nap in which the host
 * runs something else on the core) as writes to a buffer of that size, so
 * that a poll finds some of its lines gone, as routerd's do at P1's
 * equal rates (perf/pktgen). Not counted: it is outside poll_measured. */
static void
evict_caches(void)
{
	size_t i;

	for (i = 0; i < B.evict_bytes; i += RTE_CACHE_LINE_SIZE)
		B.evict[i]++;
}

static uint64_t
drops_total(const struct sy_worker_counters *c)
{
	uint64_t d = 0;
	unsigned i;

	for (i = 0; i < SY_DROP__COUNT; i++)
		d += c->drops[i];
	return d;
}

static void
report_drops(const char *phase)
{
	const struct sy_worker_counters *c = &B.w->counters;
	unsigned i;

	if (drops_total(c) == 0)
		return;
	for (i = 0; i < SY_DROP__COUNT; i++)
		if (c->drops[i])
			fprintf(stderr, "splice_bench: %s: worker dropped %" PRIu64 " (%s)\n", phase,
				c->drops[i], sy_drop_reason_names[i]);
	B.failed = true;
}

static void
generator_reset(void)
{
	memset(B.gc, 0, N_CPORTS * sizeof(*B.gc));
	memset(B.snat2c, 0, N_CPORTS * sizeof(*B.snat2c));
	B.n_est = B.n_done = B.n_started = B.n_fwd_seen = 0;
	B.lc_next_port = CPORT_MIN;
}

/*
 * An IPv6 peer's side of neighbour discovery (the client's, the backend's
 * with --backend-family 6), once per fresh worker and outside the measured
 * polls: its entry seeded as an advertisement would (net/neigh.h), then
 * re-confirmed by the worker (a unicast solicitation, as for a stale one),
 * the peer answers (gen_nd), the worker takes the advertisement through its
 * real input. Any drop or a missing answer fails the harness.
 */
static int
nd_check(unsigned port)
{
	const char *who = port == PORT_CLIENT ? "client" : "backend";
	struct rte_mbuf *pkts[8];
	uint64_t answered = B.nd_answered, drops = drops_total(&B.w->counters);
	unsigned n = 0, i, tries;

	sy_neigh_confirm(B.w, &B.w->nd, (uint16_t)port, nb6(port), &B.pmac[port]);
	if (sy_nd_lookup(B.w, (uint16_t)port, nb6(port)) == NULL) {
		fail("neighbour seeding for the IPv6 %s failed", who);
		return -1;
	}
	sy_nd_solicit(B.w, (uint16_t)port, nb6(port), &B.pmac[port]);
	for (tries = 0; n == 0 && tries < 1000; tries++) {
		B.w->now = rte_rdtsc() + B.toff;
		sy_worker_poll(B.w);
		n = from_worker(port, pkts, RTE_DIM(pkts));
	}
	for (i = 0; i < n; i++)
		if (!gen_nd(port, pkts[i]))
			B.unexpected++;
	rte_pktmbuf_free_bulk(pkts, n);
	gen_flush();
	for (tries = 0; tries < 1000 && worker_backlog(port) > 0; tries++) {
		B.w->now = rte_rdtsc() + B.toff;
		sy_worker_poll(B.w);
	}
	if (B.nd_answered != answered + 1 || worker_backlog(port) > 0 ||
	    drops_total(&B.w->counters) != drops ||
	    sy_nd_lookup(B.w, (uint16_t)port, nb6(port)) == NULL) {
		fail("neighbour discovery with the IPv6 %s: %u frame(s) from the worker, %" PRIu64
		     " solicitation(s) answered, %" PRIu64 " drop(s)",
		     who, n, B.nd_answered - answered, drops_total(&B.w->counters) - drops);
		report_drops("neighbour discovery");
		return -1;
	}
	return 0;
}

/* A new worker (empty tables) that already knows both peers' MACs. */
static int
worker_fresh(void)
{
	unsigned p;

	if (B.w != NULL)
		sy_worker_destroy(B.w);
	rings_purge();
	B.w = sy_worker_create(B.sh, 0, rte_lcore_id());
	if (B.w == NULL) {
		fail("sy_worker_create failed");
		return -1;
	}
	B.w->now = rte_rdtsc() + B.toff;
	/* ARP replies through the real input path: no resolution is ever in
	 * the measured path. */
	for (p = 0; p < 2; p++) {
		struct rte_mbuf *m = mk_arp(p, RTE_ARP_OP_REPLY, B.rip[p]);

		if (m == NULL)
			return -1;
		sy_eth_input(B.w, (uint16_t)p, m);
		if (sy_arp_lookup(B.w, (uint16_t)p, nb4(p)) == NULL) {
			fail("ARP seeding for port %u failed", p);
			return -1;
		}
	}
	/* The IPv6 peers' neighbour entries; a solicitation when one goes
	 * stale is answered by gen_nd. */
	if ((B.fam_mask & 2) && nd_check(PORT_CLIENT) < 0)
		return -1;
	if (B.b6 && nd_check(PORT_BACKEND) < 0)
		return -1;
	generator_reset();
	return 0;
}

/* ---------------------------------------------------------------- setup -- */

static void
put_obj(const struct sy_kind *kind, const char *ns, const char *name, json_t *obj)
{
	char uid[64];

	snprintf(uid, sizeof(uid), "uid-%s-%s", ns, name);
	json_object_set_new(obj, "metadata", json_pack("{s:s, s:s}", "name", name, "namespace", ns));
	sy_object_free(sy_store_put(&B.store, sy_object_new(kind, ns, name, obj, "2026-01-01T00:00:00Z",
							     uid)));
	json_decref(obj);
}

/* Route bench.test -> Service bench, Endpoints 198.18.1.10:80 (b6 0) or
 * [2001:2:1::10]:80 (b6 1): B.gen[b6]. */
static int
build_generation(unsigned b6)
{
	static const struct sy_compile_opts opts = {
		.routing_subdomain = "apps.bench",
		.router_name = "default",
		.no_route_status = 503,
		.now = "2026-01-01T00:00:00Z",
	};
	const struct sy_vhost *vh;

	put_obj(&sy_kind_endpoints, "bench", "bench",
		json_pack("{s:s, s:s, s:[{s:[{s:s}], s:[{s:s, s:i}]}]}", "apiVersion", "v1", "kind",
			  "Endpoints", "subsets", "addresses", "ip", b6 ? "2001:2:1::10" : "198.18.1.10",
			  "ports", "name", "http", "port", 80));
	put_obj(&sy_kind_route, "bench", "bench",
		json_pack("{s:s, s:s, s:{s:s, s:{s:s, s:s}}}", "apiVersion", "route.openshift.io/v1",
			  "kind", "Route", "spec", "host", "bench.test", "to", "kind", "Service", "name",
			  "bench"));
	B.gen[b6] = sy_compile(&B.store, &opts, 1);
	if (B.gen[b6] == NULL) {
		fail("sy_compile failed");
		return -1;
	}
	vh = sy_gen_find_vhost(B.gen[b6], "bench.test", strlen("bench.test"));
	if (vh == NULL || vh->mode != SY_MODE_SPLICE || vh->n_rules == 0 ||
	    vh->rules[0].pool->n_endpoints != 1) {
		fail("generation: bench.test is not a spliced vhost with one endpoint");
		return -1;
	}
	return 0;
}

/* The backend side for client family f (0 IPv4, 1 IPv6): --backend-family,
 * or the client's; the live generation the one that routes to it. Between
 * phases: no worker polls. */
static void
backend_family_set(unsigned f)
{
	B.b6 = B.b_fam == 6 || (B.b_fam == 0 && f == 1);
	atomic_store(&B.slot.live, B.gen[B.b6]);
}

/* Port pc's IPv6 address `router` (a /64) and its peer's `peer` there. */
static void
port_ipv6(struct sy_port_config *pc, const char *router, const char *peer, uint8_t rip[16],
	  uint8_t pip[16])
{
	struct sy_port_addr *pa = &pc->ipv6[pc->n_ipv6++];
	char cidr[64];
	struct sy_addr a;

	snprintf(cidr, sizeof(cidr), "%s/64", router);
	(void)sy_prefix_parse(cidr, &pa->addr, &pa->prefix_len);
	(void)sy_addr_parse(router, &a);
	memcpy(rip, a.v6, 16);
	(void)sy_addr_parse(peer, &a);
	memcpy(pip, a.v6, 16);
}

/* A static route on the client port: prefix through gateway via. */
static void
client_route(const char *prefix, const char *via)
{
	struct sy_static_route *r = &B.cfg.routes[B.cfg.n_routes++];

	(void)sy_prefix_parse(prefix, &r->prefix, &r->prefix_len);
	(void)sy_addr_parse(via, &r->via);
	r->port = PORT_CLIENT;
}

static void
port_config(struct sy_port_config *pc, const char *name, const char *dev, const char *cidr)
{
	snprintf(pc->name, sizeof(pc->name), "%s", name);
	snprintf(pc->devargs, sizeof(pc->devargs), "%s", dev);
	(void)sy_prefix_parse(cidr, &pc->ipv4[0].addr, &pc->ipv4[0].prefix_len);
	pc->n_ipv4 = 1;
}

static size_t
heap_used(void)
{
	struct rte_malloc_socket_stats st;
	size_t total = 0;
	unsigned i;

	for (i = 0; i < rte_socket_count(); i++)
		if (rte_malloc_get_socket_stats(rte_socket_id_by_idx(i), &st) == 0)
			total += st.heap_allocsz_bytes;
	return total;
}

/*
 * (4) Memory: build the same tables conn/conn.c builds for a table of `table`
 * flows (flows_per_worker), one at a time, and see what the heap gives them.
 * All of it is allocated up front, so the cost of one connection is its
 * share of the tables sized for flows_per_worker.
 */
static void
measure_memory(unsigned idx, unsigned table)
{
	struct rte_hash_parameters hp = {
		.name = "sy_bench_memhash",
		.entries = table,
		.key_len = sizeof(struct sy_flow_key),
		.hash_func = rte_hash_crc,
		.socket_id = (int)rte_socket_id(),
		.extra_flag = RTE_HASH_EXTRA_FLAGS_EXT_TABLE,
	};
	struct rte_hash *h;
	struct rte_mempool *mp;
	struct sy_conn_arena arena;
	void *snat;
	size_t before;

	R.sz_conn = sizeof(struct sy_conn);
	R.mem[idx].table = table;
	before = heap_used();
	h = rte_hash_create(&hp);
	R.mem[idx].hash = heap_used() - before;
	rte_hash_free(h);

	/* The backend legs' SNAT port -> record array, as conn/conn.c sizes it for
	 * this run's single worker (the largest it gets). */
	before = heap_used();
	snat = rte_zmalloc_socket("sy_bench_memsnat", sy_snat_slots(1) * sizeof(struct sy_conn *),
				  RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	R.mem[idx].snat = heap_used() - before;
	rte_free(snat);

	/* The client legs' cache in front of the hash (conn/flow_table.h). */
	before = heap_used();
	snat = rte_zmalloc_socket("sy_bench_memcache",
				  (size_t)sy_flow_cache_slots(table) * sizeof(uint64_t),
				  RTE_CACHE_LINE_SIZE, (int)rte_socket_id());
	R.mem[idx].cache = heap_used() - before;
	rte_free(snat);

	/* The records, as conn/conn.c allocates them. */
	before = heap_used();
	if (sy_conn_arena_init(&arena, table, false, (int)rte_socket_id()) == 0) {
		R.mem[idx].conns = heap_used() - before;
		R.conn_obj = sizeof(struct sy_conn);
		sy_conn_arena_fini(&arena);
	}
	before = heap_used();
	if (sy_conn_arena_init(&arena, table, true, (int)rte_socket_id()) == 0) {
		R.mem[idx].conns6 = heap_used() - before;
		sy_conn_arena_fini(&arena);
	}
	before = heap_used();
	mp = rte_mempool_create("sy_bench_mempeek", SY_PEEK_BUFS, sizeof(struct sy_peek_buf), 0, 0,
				NULL, NULL, NULL, NULL, (int)rte_socket_id(),
				RTE_MEMPOOL_F_SP_PUT | RTE_MEMPOOL_F_SC_GET);
	R.peek_pool_total = heap_used() - before;
	if (mp != NULL) {
		R.peek_obj = mp->header_size + mp->elt_size + mp->trailer_size;
		rte_mempool_free(mp);
	}
	R.mbuf_obj = B.pool->header_size + B.pool->elt_size + B.pool->trailer_size;
	if (h == NULL || snat == NULL || R.conn_obj == 0 || R.peek_obj == 0)
		fail("memory: could not build the tables to measure them");
}

/*
 * memif pair p: the generator's end (server, started here) and the
 * worker's (client, left for sy_port_setup to configure and start, as
 * routerd would). Returns the worker end's ethdev id, or -1.
 */
static int
memif_pair(unsigned p)
{
	struct rte_eth_conf conf;
	char gname[32], wname[32], args[192];
	uint16_t id;
	int rc;

	memset(&conf, 0, sizeof(conf));
	snprintf(B.sock[p], sizeof(B.sock[p]), "/tmp/sy-bench-%ld-%u.sock", (long)getpid(), p);
	(void)unlink(B.sock[p]);
	snprintf(gname, sizeof(gname), "net_memif_sybench_g%u", p);
	snprintf(wname, sizeof(wname), "net_memif_sybench_w%u", p);
	snprintf(args, sizeof(args), "%s,role=server,id=0,socket=%s", gname, B.sock[p]);
	if (rte_dev_probe(args) != 0 || rte_eth_dev_get_port_by_name(gname, &id) != 0) {
		fail("memif %s: %s", gname, rte_strerror(rte_errno));
		return -1;
	}
	B.gpid[p] = id;
	rc = rte_eth_dev_configure(id, 1, 1, &conf);
	if (rc == 0)
		rc = rte_eth_rx_queue_setup(id, 0, 1024, rte_socket_id(), NULL, B.pool);
	if (rc == 0)
		rc = rte_eth_tx_queue_setup(id, 0, 1024, rte_socket_id(), NULL);
	if (rc == 0)
		rc = rte_eth_dev_start(id);
	if (rc != 0) {
		fail("memif %s: setup: %s", gname, rte_strerror(-rc));
		return -1;
	}
	snprintf(args, sizeof(args), "%s,role=client,id=0,socket=%s", wname, B.sock[p]);
	if (rte_dev_probe(args) != 0 || rte_eth_dev_get_port_by_name(wname, &id) != 0) {
		fail("memif %s: %s", wname, rte_strerror(rte_errno));
		return -1;
	}
	return id;
}

/* Both ends of both pairs connected (the control thread does the memif
 * handshake). */
static int
memif_wait_up(void)
{
	double t0 = wall_now();
	unsigned p;

	while (wall_now() - t0 < 10) {
		unsigned up = 0;

		for (p = 0; p < 2; p++) {
			struct rte_eth_link lw, lg;

			if (rte_eth_link_get_nowait(B.pid[p], &lw) == 0 &&
			    rte_eth_link_get_nowait(B.gpid[p], &lg) == 0 &&
			    lw.link_status == RTE_ETH_LINK_UP && lg.link_status == RTE_ETH_LINK_UP)
				up++;
		}
		if (up == 2)
			return 0;
		rte_delay_us_sleep(10000);
	}
	fail("memif pairs did not connect within 10 s");
	return -1;
}

static int
setup(void)
{
	static const struct rte_ether_addr rmac[2] = {
		{ { 0x02, 0x53, 0x59, 0x00, 0x00, 0x01 } },
		{ { 0x02, 0x53, 0x59, 0x00, 0x01, 0x01 } },
	};
	static const struct rte_ether_addr pmac[2] = {
		{ { 0x02, 0x43, 0x4c, 0x00, 0x00, 0x02 } },
		{ { 0x02, 0x42, 0x45, 0x00, 0x01, 0x0a } },
	};
	static const char *const devs[2] = { "net_ring_sybench_c", "net_ring_sybench_b" };
	char err[256], name[RTE_RING_NAMESIZE], ethname[RTE_ETH_NAME_MAX_LEN];
	struct sy_addr a;
	size_t before;
	unsigned p;
	int rc;

	B.hz = rte_get_tsc_hz();
	B.pool = rte_pktmbuf_pool_create("sy_bench_mbuf", BENCH_MBUFS, 256, 0,
					 RTE_MBUF_DEFAULT_BUF_SIZE, (int)rte_socket_id());
	if (B.pool == NULL) {
		fail("mbuf pool: %s", rte_strerror(rte_errno));
		return -1;
	}
	for (p = 0; p < B.n_flows; p++)
		measure_memory(p, table_size(B.flows[p]));

	memset(&B.cfg, 0, sizeof(B.cfg));
	B.cfg.n_workers = 1;
	B.cfg.worker_lcores[0] = rte_lcore_id();
	B.cfg.idle = SY_IDLE_BUSY;
	B.cfg.http_port = 80;
	B.cfg.https_port = 443;
	B.cfg.no_route_status = 503;
	B.cfg.n_ports = 2;
	port_config(&B.cfg.ports[0], "client", devs[0], "198.18.0.1/24");
	port_config(&B.cfg.ports[1], "backend", devs[1], "198.18.1.1/24");
	(void)sy_addr_parse("198.18.0.1", &a);
	B.rip[0] = a.v4;
	(void)sy_addr_parse("198.18.1.1", &a);
	B.rip[1] = a.v4;
	(void)sy_addr_parse(B.client_gw ? "198.18.128.2" : "198.18.0.2", &a);
	B.pip[0] = a.v4;
	(void)sy_addr_parse(CLIENT_GW4, &a);
	gw4 = a.v4;
	(void)sy_addr_parse(CLIENT_GW6, &a);
	memcpy(gw6, a.v6, 16);
	if (B.client_gw) {
		client_route("198.18.128.0/17", CLIENT_GW4);
		client_route("2001:2:80::/48", CLIENT_GW6);
	}
	(void)sy_addr_parse("198.18.1.10", &a);
	B.pip[1] = a.v4;
	/* The client side over IPv6 (issue 36), the backend side in some
	 * phase (--backend-family): lab addresses. */
	if (B.fam_mask & 2)
		port_ipv6(&B.cfg.ports[0], "2001:2::1", B.client_gw ? "2001:2:80::2" : "2001:2::2",
			  B.rip6, B.pip6);
	if (B.b_fam == 6 || (B.b_fam == 0 && (B.fam_mask & 2)))
		port_ipv6(&B.cfg.ports[1], "2001:2:1::1", "2001:2:1::10", B.rip6b, B.pip6b);

	rc = sy_dp_shared_create(&B.cfg, B.pool, 1, &B.sh, err, sizeof(err));
	if (rc == 0)
		B.table_default = B.sh->flows_per_worker;
	if (rc < 0) {
		fail("%s", err);
		return -1;
	}
	for (p = 0; p < 2; p++) {
		int id;

		if (B.memif) {
			id = memif_pair(p);
			if (id < 0)
				return -1;
			goto port_up;
		}
		snprintf(name, sizeof(name), "sy_bench_rx%u", p);
		B.rx[p] = rte_ring_create(name, BENCH_RING_SIZE, (int)rte_socket_id(),
					  RING_F_SP_ENQ | RING_F_SC_DEQ);
		snprintf(name, sizeof(name), "sy_bench_tx%u", p);
		B.tx[p] = rte_ring_create(name, BENCH_RING_SIZE, (int)rte_socket_id(),
					  RING_F_SP_ENQ | RING_F_SC_DEQ);
		if (B.rx[p] == NULL || B.tx[p] == NULL) {
			fail("rings: %s", rte_strerror(rte_errno));
			return -1;
		}
		id = rte_eth_from_rings(devs[p], &B.rx[p], 1, &B.tx[p], 1, rte_socket_id());
		if (id < 0) {
			fail("rte_eth_from_rings(%s): %s", devs[p], rte_strerror(rte_errno));
			return -1;
		}
port_up:
		B.pid[p] = (uint16_t)id;
		/* sy_port_setup finds the ethdev by the name EAL gave it. */
		if (rte_eth_dev_get_name_by_port(B.pid[p], ethname) == 0)
			snprintf(B.cfg.ports[p].devargs, sizeof(B.cfg.ports[p].devargs), "%s", ethname);
		fprintf(stderr, "splice_bench: port %s is ethdev %u \"%s\"\n", B.cfg.ports[p].name,
			B.pid[p], B.cfg.ports[p].devargs);
		rc = sy_port_setup(&B.cfg.ports[p], 1, B.pool, &B.sh->ports[p], err, sizeof(err));
		if (rc < 0) {
			fail("%s", err);
			return -1;
		}
		B.rmac[p] = rmac[p];
		B.pmac[p] = pmac[p];
		(void)rte_eth_dev_default_mac_addr_set(B.pid[p], &B.rmac[p]);
		B.sh->ports[p].mac = B.rmac[p];
	}
	if (B.memif && memif_wait_up() < 0)
		return -1;
	sy_store_init(&B.store);
	memset(&B.slot, 0, sizeof(B.slot));
	if ((B.b_fam != 6 && build_generation(0) < 0) ||
	    ((B.b_fam == 6 || (B.b_fam == 0 && (B.fam_mask & 2))) && build_generation(1) < 0))
		return -1;
	B.sh->slot = &B.slot;

	B.gc = calloc(N_CPORTS, sizeof(*B.gc));
	B.snat2c = calloc(N_CPORTS, sizeof(*B.snat2c));
	if (B.gc == NULL || B.snat2c == NULL) {
		fail("out of memory");
		return -1;
	}
	before = heap_used();
	if (worker_fresh() < 0)
		return -1;
	R.worker_total = heap_used() - before;
	return 0;
}

static void
teardown(void)
{
	unsigned p;

	if (B.w != NULL)
		sy_worker_destroy(B.w);
	B.w = NULL;
	rings_purge();
	for (p = 0; B.memif && p < 2; p++) {
		if (B.sock[p][0] == '\0')
			continue;
		(void)rte_eth_dev_stop(B.gpid[p]);
		(void)rte_eth_dev_close(B.gpid[p]);
		(void)unlink(B.sock[p]);
	}
	/* memif: the control thread handles the peers' disconnection before
	 * the worker's ends close. */
	if (B.memif)
		rte_delay_us_sleep(100000);
	if (B.sh != NULL)
		for (p = 0; p < B.sh->n_ports; p++)
			sy_port_close(&B.sh->ports[p]);
	sy_dp_shared_free(B.sh);
	for (p = 0; p < 2; p++)
		if (B.gen[p] != NULL)
			sy_generation_free(B.gen[p]);
	sy_store_fini(&B.store);
	free(B.gc);
	free(B.snat2c);
}

/* -------------------------------------------------- reference: macswap -- */

/*
 * testpmd's macswap, in the harness, on our ring port: RX burst, swap the
 * MACs, TX burst back out of the same port; the generator puts what went
 * out back on the RX ring (what a net_ring vdev does by itself).
 */
static void
phase_macswap(void)
{
	struct rte_mbuf *pkts[BENCH_BURST];
	struct chunkset cs = { .n = 0 };
	uint16_t pid = B.pid[PORT_CLIENT];
	unsigned c, i;

	rings_purge();
	for (i = 0; i < BENCH_BURST; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(B.pool);

		if (m == NULL || rte_pktmbuf_append(m, 64) == NULL) {
			fail("macswap: no mbufs");
			return;
		}
		memset(rte_pktmbuf_mtod(m, void *), 0x5a, 64);
		if (to_worker(PORT_CLIENT, &m, 1) != 1)
			rte_pktmbuf_free(m);
	}
	for (c = 0; c < B.chunks; c++) {
		uint64_t cyc = 0, done = 0;

		while (done < B.macswap_pkts / B.chunks) {
			uint64_t t0 = rte_rdtsc();
			uint16_t n = rte_eth_rx_burst(pid, 0, pkts, BENCH_BURST), k, sent;

			for (k = 0; k < n; k++) {
				struct rte_ether_hdr *eh = rte_pktmbuf_mtod(pkts[k], struct rte_ether_hdr *);
				struct rte_ether_addr t;

				if (k + 1 < n)
					rte_prefetch0(rte_pktmbuf_mtod(pkts[k + 1], void *));
				rte_ether_addr_copy(&eh->src_addr, &t);
				rte_ether_addr_copy(&eh->dst_addr, &eh->src_addr);
				rte_ether_addr_copy(&t, &eh->dst_addr);
				pkts[k]->ol_flags = 0;
				pkts[k]->l2_len = sizeof(*eh);
			}
			sent = rte_eth_tx_burst(pid, 0, pkts, n);
			cyc += rte_rdtsc() - t0;
			if (sent < n)
				rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
			done += n;
			/* The loop back, outside the measured part. */
			n = (uint16_t)from_worker(PORT_CLIENT, pkts, BENCH_BURST);
			sent = (uint16_t)to_worker(PORT_CLIENT, pkts, n);
			if (sent < n)
				rte_pktmbuf_free_bulk(&pkts[sent], n - sent);
		}
		chunk_add(&cs, (double)cyc / (double)done);
	}
	rings_purge();
	R.macswap_cpp = best(&cs);
	R.macswap_med = median(&cs);
}

/* ------------------------------------------------------ (2) SYN cookies -- */

static void
phase_syn(void)
{
	struct chunkset cs = { .n = 0 };
	struct sy_tcp_syn_opts o = { .mss = 1460, .wscale = 7, .sack_ok = true, .ts_ok = true };
	struct seg_spec s = {
		.saddr = B.pip[PORT_CLIENT], .daddr = B.rip[PORT_CLIENT], .dport = RTE_BE16(80),
		.flags = RTE_TCP_SYN_FLAG, .win = 64240, .syn = &o,
	};
	uint32_t sport = CPORT_MIN;
	uint64_t total = 0;
	double t_start;
	unsigned c;

	if (worker_fresh() < 0)
		return;
	t_start = wall_now();
	for (c = 0; c < B.chunks; c++) {
		uint64_t cyc = 0, got = 0;

		while (got < B.syns / B.chunks) {
			struct rte_mbuf *pkts[64];
			unsigned i, n;

			if (worker_backlog(PORT_CLIENT) < BENCH_BURST) {
				for (i = 0; i < BENCH_BURST; i++) {
					s.sport = rte_cpu_to_be_16((uint16_t)sport);
					s.seq = (uint32_t)xrand();
					o.tsval = (uint32_t)xrand();
					sport = sport == 65535 ? CPORT_MIN : sport + 1;
					gen_push(PORT_CLIENT, mk_seg(PORT_CLIENT, &s));
				}
				gen_flush();
			}
			cyc += poll_measured();
			while ((n = from_worker(PORT_CLIENT, pkts, RTE_DIM(pkts))) > 0) {
				for (i = 0; i < n; i++) {
					struct tcpv v;

					if (parse_tcp(pkts[i], &v) < 0 || v.v6 != B.v6 ||
					    v.fl != (RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG)) {
						B.unexpected++;
						continue;
					}
					check_sums(&v);
					got++;
				}
				rte_pktmbuf_free_bulk(pkts, n);
			}
		}
		chunk_add(&cs, (double)cyc / (double)got);
		total += got;
	}
	RF.syn_wall = (double)total / (wall_now() - t_start);
	RF.syn_cps = best(&cs);
	RF.syn_med = median(&cs);
	if (B.w->counters.syn_cookies_sent != total)
		fail("SYN: %" PRIu64 " SYN-ACKs seen, worker counted %" PRIu64, total,
		     B.w->counters.syn_cookies_sent);
	report_drops("SYN cookies");
}

/* ------------------------------------------ (1) forwarding, established -- */

/*
 * A table of `table` flows where only `carried` will carry traffic: every
 * record taken and keyed (client 10.a.b.c:1 -> the listen address, the
 * keys a million clients would bring), then `carried` of them, evenly
 * spread over the arena and the hash, given back for the spliced flows
 * establish() opens. The idle flows have no timer and no backend leg (the
 * SNAT ports are all the carried flows'); they go with the worker. With the
 * client side over IPv6 the keys are IPv6 ones (client 2001:2::a00:0 + i),
 * in the IPv6 hash the carried flows' go to, their addresses in the cold
 * array, as splice.c opens a record.
 */
static int
fill_table(unsigned table, unsigned carried)
{
	struct sy_worker *w = B.w;
	/* --fwd-in-order: side by side, as P1 opens its flows one after another. */
	unsigned i, step = B.fwd_in_order ? 1 : table / carried, back = 0;
	struct sy_flow_key k;
	struct sy_conn *c;

	for (i = 0; i < table; i++) {
		c = sy_conn_alloc(w);
		if (c == NULL) {
			fail("fill: record %u of %u: table full", i, table);
			return -1;
		}
		c->client_ip = rte_cpu_to_be_32(0x0a000000u + i);
		c->vip = B.rip[0];
		c->client_port = RTE_BE16(1);
		c->vip_port = RTE_BE16(80);
		c->state = SY_CONN_LINGER;
		if (B.v6) {
			struct sy_conn_v6 *a = sy_conn_v6_of(&w->tcp, c);

			c->flags |= SY_CF_V6;
			c->v6 |= SY_V6_CLIENT;
			memcpy(a->client, B.pip6, 12);
			memcpy(a->client + 12, &c->client_ip, 4);
			memcpy(a->vip, B.rip6, 16);
			c->client_ip = sy_addr6_fold(a->client);
			c->vip = sy_addr6_fold(a->vip);
			if (sy_flow_add6(w, c, a->client, a->vip) < 0) {
				fail("fill: IPv6 flow %u of %u: the hash refused it", i, table);
				return -1;
			}
			continue;
		}
		sy_flow_key_v4(&k, c->client_ip, c->vip, c->client_port, c->vip_port);
		if (sy_flow_add(w, &k, c) < 0) {
			fail("fill: flow %u of %u: the hash refused it", i, table);
			return -1;
		}
	}
	/* The carried flows' records, spread: the last one taken back first
	 * (the free list is LIFO), so they open in arena order. */
	for (i = table; i-- > 0 && back < carried;) {
		if (i % step != 0 || i / step >= carried)
			continue;
		c = sy_conn_at(&w->tcp.conns, i);
		if (B.v6) {
			sy_flow_del6(w, c);
		} else {
			sy_flow_key_v4(&k, c->client_ip, c->vip, c->client_port, c->vip_port);
			sy_flow_del(w, &k, c);
		}
		c->state = 0;
		c->tnext = w->tcp.conns.free;
		w->tcp.conns.free = c;
		w->counters.flows_active--;
		back++;
	}
	if (back != carried) {
		fail("fill: %u records given back, want %u", back, carried);
		return -1;
	}
	return 0;
}

static int
establish(unsigned nflows, unsigned table, double *cyc_per_conn)
{
	uint32_t next = CPORT_MIN, last = CPORT_MIN + nflows;
	uint64_t cyc = 0, idle = 0, active0;

	B.sh->flows_per_worker = table_size(table);
	if (worker_fresh() < 0)
		return -1;
	if (table > nflows && fill_table(table, nflows) < 0)
		return -1;
	active0 = B.w->counters.flows_active;
	B.mode = MODE_ESTABLISH;
	while (B.n_est < nflows) {
		while (next < last && B.n_started - B.n_est < EST_INFLIGHT)
			client_syn((uint16_t)next++);
		gen_flush();
		cyc += poll_measured();
		if (gen_drain() == 0 && ++idle > 100000) {
			fail("establish: stalled at %" PRIu64 " of %u flows", B.n_est, nflows);
			report_drops("establish");
			return -1;
		}
		gen_flush();
	}
	*cyc_per_conn = (double)cyc / nflows;
	if (B.w->counters.flows_active - active0 != nflows ||
	    B.w->counters.conns_spliced != nflows) {
		fail("establish: %" PRIu64 " flows active, %" PRIu64 " spliced, want %u",
		     B.w->counters.flows_active - active0, B.w->counters.conns_spliced, nflows);
		return -1;
	}
	if (table > nflows && B.w->counters.flows_active != table) {
		fail("establish: %" PRIu64 " flows in the table, want %u", B.w->counters.flows_active,
		     table);
		return -1;
	}
	report_drops("establish");
	return 0;
}

/* One data segment each way per flow slot: client -> backend and back. */
static void
stream_fill(const uint16_t *order, unsigned nflows, unsigned *ic, unsigned *ib)
{
	unsigned i;

	if (worker_backlog(PORT_CLIENT) < B.fwd_burst)
		for (i = 0; i < B.fwd_burst; i++) {
			uint16_t cport = order[*ic];
			struct gconn *g = &B.gc[cport];
			uint32_t ack = g->isn_r + 1 + g->b_off;
			struct seg_spec s = {
				.saddr = B.pip[PORT_CLIENT], .daddr = B.rip[PORT_CLIENT],
				.sport = rte_cpu_to_be_16(cport), .dport = RTE_BE16(80),
				.seq = g->isn_c + 1 + REQ_LEN + g->c_off, .ack = ack,
				.flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, .win = 502,
				.ts = !B.fwd_no_ts, .tsval = g->c_off, .tsecr = g->ts_r,
				.payload = B.data, .len = STREAM_PAYLOAD, .tagged = true, .tag = ack,
			};

			g->c_off += STREAM_PAYLOAD;
			*ic = *ic + 1 == nflows ? 0 : *ic + 1;
			gen_push(PORT_CLIENT, mk_seg(PORT_CLIENT, &s));
		}
	if (worker_backlog(PORT_BACKEND) < B.fwd_burst)
		for (i = 0; i < B.fwd_burst; i++) {
			uint16_t cport = order[*ib];
			struct gconn *g = &B.gc[cport];
			uint32_t seq = g->isn_b + 1 + g->b_off;
			struct seg_spec s = {
				.saddr = B.pip[PORT_BACKEND], .daddr = B.rip[PORT_BACKEND],
				.sport = RTE_BE16(80), .dport = rte_cpu_to_be_16(g->snat),
				.seq = seq, .ack = g->isn_rb + 1 + REQ_LEN + g->c_off,
				.flags = RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG, .win = 509,
				.ts = !B.fwd_no_ts, .tsval = g->b_off, .tsecr = g->ts_c,
				.payload = B.data, .len = STREAM_PAYLOAD, .tagged = true, .tag = seq,
			};

			g->b_off += STREAM_PAYLOAD;
			*ib = *ib + 1 == nflows ? 0 : *ib + 1;
			gen_push(PORT_BACKEND, mk_seg(PORT_BACKEND, &s));
		}
	gen_flush();
}

static void
phase_forward(unsigned idx, unsigned table)
{
	struct chunkset cs = { .n = 0 }, os = { .n = 0 };
	const unsigned carry = B.fwd_carry != 0 ? B.fwd_carry : FWD_CARRY_MAX;
	unsigned nflows = table < carry ? table : carry;
	uint16_t *order;
	unsigned i, c, ic = 0, ib;
	uint64_t total = 0, tx0, fast0, drops0;
	double t_start;
	int rc = establish(nflows, table, &RF.est_cpc[idx]);

	/* The other phases: the config's default table. */
	B.sh->flows_per_worker = B.table_default;
	if (rc < 0)
		return;
	RF.carried[idx] = nflows;
	order = malloc(nflows * sizeof(*order));
	if (order == NULL) {
		fail("out of memory");
		return;
	}
	/* Flows in random order, so neither the records nor the hash buckets
	 * are walked in the order they were allocated (--fwd-in-order: in
	 * port order, as perf/pktgen's pcaps are). */
	for (i = 0; i < nflows; i++)
		order[i] = (uint16_t)(CPORT_MIN + i);
	for (i = nflows - 1; !B.fwd_in_order && i > 0; i--) {
		unsigned j = (unsigned)(xrand() % (i + 1));
		uint16_t t = order[i];

		order[i] = order[j];
		order[j] = t;
	}
	ib = nflows / 2;
	/* The backend side's flows' response: the client acks nothing more
	 * than the request's answer it never got, which is fine for a
	 * forwarder that does not track sequence state. */
	tx0 = B.w->counters.tx_packets;
	fast0 = B.w->counters.fast_forwarded;
	drops0 = drops_total(&B.w->counters);
	B.n_fwd_seen = 0;
	t_start = wall_now();
	for (c = 0; c < B.chunks; c++) {
		uint64_t cyc = 0, t0 = B.w->counters.tx_packets, n;
		uint64_t calls0 = B.w->counters.rx_call_cycles + B.w->counters.tx_call_cycles;

		while (B.w->counters.tx_packets - t0 < B.stream_pkts / B.chunks) {
			stream_fill(order, nflows, &ic, &ib);
			evict_caches();
			cyc += poll_measured();
			(void)gen_drain();
		}
		n = B.w->counters.tx_packets - t0;
		chunk_add(&cs, (double)cyc / (double)n);
		chunk_add(&os, (double)(cyc - (B.w->counters.rx_call_cycles +
					       B.w->counters.tx_call_cycles - calls0)) /
				       (double)n);
		total += n;
	}
	RF.fwd_wall_mpps[idx] = (double)total / (wall_now() - t_start) / 1e6;
	RF.fwd_fast_share[idx] = (double)(B.w->counters.fast_forwarded - fast0) /
				(double)(B.w->counters.tx_packets - tx0);
	RF.fwd_cpp[idx] = best(&cs);
	RF.fwd_med[idx] = median(&cs);
	RF.fwd_own[idx] = best(&os);
	RF.fwd_own_med[idx] = median(&os);
	if (B.n_fwd_seen != B.w->counters.tx_packets - tx0)
		fail("forward: generator saw %" PRIu64 " forwarded segments, worker sent %" PRIu64,
		     B.n_fwd_seen, B.w->counters.tx_packets - tx0);
	if (drops_total(&B.w->counters) != drops0)
		report_drops("forward");
	free(order);
}

/* ------------------------------------------ (3) connection lifecycle -- */

/* The next client port that is free, or whose connection's LINGER at the
 * router is certainly over; 0 if the next one in turn is not ready. */
static uint16_t
lc_next_port(uint64_t now)
{
	uint32_t p = B.lc_next_port;
	struct gconn *g = &B.gc[p];

	if (g->st != G_FREE &&
	    !(g->st == G_CLOSED && now - g->closed_at > (uint64_t)(SY_LINGER_MS + 500) * (B.hz / 1000)))
		return 0;
	B.lc_next_port = p == 65535 ? CPORT_MIN : p + 1;
	return (uint16_t)p;
}

static void
phase_lifecycle(void)
{
	struct chunkset cs = { .n = 0 };
	const uint64_t tick = (B.hz / 1000) * LC_TICK_MS;
	uint64_t per_chunk = B.conns / B.chunks, all_cyc = 0, polls = 0, stall = 0;
	double t_start;
	unsigned c;

	if (worker_fresh() < 0)
		return;
	B.mode = MODE_LIFECYCLE;
	t_start = wall_now();
	for (c = 0; c < B.chunks && !B.failed; c++) {
		uint64_t cyc = 0, d0 = B.n_done;

		while (B.n_done - d0 < per_chunk) {
			uint64_t now = rte_rdtsc() + B.toff, done = B.n_done;
			unsigned k;

			for (k = 0; k < BENCH_BURST && B.n_started - B.n_done < LC_INFLIGHT; k++) {
				uint16_t p = lc_next_port(now);

				if (p == 0)
					break;
				client_syn(p);
			}
			gen_flush();
			B.toff += tick;
			cyc += poll_measured();
			polls++;
			(void)gen_drain();
			gen_flush();
			if (B.n_done == done && ++stall > 100000) {
				fail("lifecycle: stalled after %" PRIu64 " connections", B.n_done);
				report_drops("lifecycle");
				return;
			}
			if (B.n_done != done)
				stall = 0;
		}
		chunk_add(&cs, (double)cyc / (double)(B.n_done - d0));
		all_cyc += cyc;
	}
	/* The last ones: let every LINGER run out (worker time), counting the
	 * polls that free them. */
	{
		uint64_t end = rte_rdtsc() + B.toff + (uint64_t)(SY_LINGER_MS + 200) * (B.hz / 1000);

		while (rte_rdtsc() + B.toff < end || B.n_started != B.n_done) {
			B.toff += tick;
			all_cyc += poll_measured();
			(void)gen_drain();
			gen_flush();
			if (++stall > 1000000)
				break;
		}
	}
	RF.lc_wall = (double)B.n_done / (wall_now() - t_start);
	RF.lc_cpc = best(&cs);
	RF.lc_med = median(&cs);
	RF.lc_avg_cpc = (double)all_cyc / (double)B.n_done;
	RF.lc_done = B.n_done;
	RF.lc_flows_end = B.w->counters.flows_active;
	RF.lc_closed = B.w->counters.conns_closed;
	if (RF.lc_flows_end != 0)
		fail("lifecycle: %" PRIu64 " flows still active after every LINGER ran out",
		     RF.lc_flows_end);
	report_drops("lifecycle");
	(void)polls;
}

/* --------------------------------------------------------------- table -- */

static void
row(const char *metric, const char *ours, const char *ref, const char *verdict)
{
	printf("%-42s | %-24s | %-24s | %s\n", metric, ours, ref, verdict);
}

/* ", IPv6" after a figure's name, when the run has IPv6 rows. */
static const char *
fam_tag(unsigned f)
{
	if (B.fam_mask == 1)
		return "";
	return f == 1 ? ", IPv6" : ", IPv4";
}

/* IPv6 / IPv4 of a figure (--family both): r of the best chunks, med of
 * the medians; `cycles`: r is cycles/packet's (target <= 1.10), else a
 * rate's (target >= 0.90). */
static char v6_summary[512]; /* each ratio and its verdict, for the line under the table */

static void
ratio_row(const char *what, double r, double med, bool cycles, unsigned *failed)
{
	char m[96], o[96], v[128];
	bool ok = cycles ? r <= 1.10 : r >= 0.90;
	size_t used = strlen(v6_summary);

	snprintf(v6_summary + used, sizeof(v6_summary) - used, "%s%s %.2fx %s", used ? "; " : "",
		 what, r, ok ? "PASS" : "FAIL");
	snprintf(m, sizeof(m), "      %s IPv6 / IPv4 [%s]", what, cycles ? "cyc/pkt" : "rate");
	snprintf(o, sizeof(o), "%.2fx (%.2fx)", r, med);
	snprintf(v, sizeof(v), "%s (within 10%% of IPv4, issue 36)", ok ? "PASS" : "FAIL");
	row(m, o, cycles ? "<= 1.10x" : ">= 0.90x", v);
	if (!ok)
		(*failed)++;
}

static void
print_table(void)
{
	char o[96], r[96], v[128], m[96];
	double tp = 0, tp_med = 0, tsc_mhz = (double)B.hz / 1e6;
	struct chunkset tps = { .n = 0 };
	unsigned i, f, v6_fail = 0;
	double peek_share = (double)R.peek_pool_total / SY_PEEK_BUFS;
	time_t now = time(NULL);
	char date[64];

	for (i = 0; i < R.tp_n; i++)
		chunk_add(&tps, R.tp_cpp[i]);
	tp = best(&tps);
	tp_med = median(&tps);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M:%S %Z", localtime(&now));
	printf("\nSwitchyard splice fast path benchmark, %s\n", date);
	printf("core %u, TSC %.0f MHz, %s ports, %s, %s mode, load average at start %s\n",
	       B.core, tsc_mhz, B.memif ? "net_memif" : "net_ring", B.huge ? "hugepages" : "no hugepages (--no-huge)",
	       B.quick ? "quick" : "full", R.load);
	if (B.fam_mask != 1 || B.b6)
		printf("client side: %s; backends %s\n",
		       B.fam_mask == 3 ? "IPv4 198.18.0.2 -> 198.18.0.1:80, then IPv6 2001:2::2 ->"
					 " [2001:2::1]:80, each phase in turn, one worker, the same ports"
		       : B.fam_mask == 2 ? "IPv6 2001:2::2 -> [2001:2::1]:80"
					 : "IPv4 198.18.0.2 -> 198.18.0.1:80",
		       B.b6 ? "IPv6 [2001:2:1::10]:80 from 2001:2:1::1 (IPv6 clients: 6to6 in place;"
			      " IPv4 clients: across the families, splice_xlate46.c)"
			    : "IPv4 198.18.1.10:80 (the IPv6 rows: spliced across the families,"
			      " splice_xlate46.c)");
	printf("ours = TSC cycles inside sy_worker_poll (RX burst .. TX burst) per unit: best of %u"
	       " chunks (median in brackets)\n\n",
	       B.chunks);
	row("metric", "ours", "reference", "ratio / verdict");
	printf("%.*s\n", 42 + 3 + 24 + 3 + 24 + 3 + 30,
	       "--------------------------------------------------------------------------------"
	       "--------------------------------------------------------------------------------");

	if (R.tp_n > 0)
		snprintf(r, sizeof(r), "testpmd macswap %.1f", tp);
	else
		snprintf(r, sizeof(r), "testpmd: not run");
	for (i = 0; i < B.n_flows; i++) {
		for (f = 0; f < 2; f++) {
			const struct famres *X = &F[f];

			if (!(B.fam_mask & (1u << f)) || X->fwd_cpp[i] <= 0)
				continue;
			if (X->carried[i] < B.flows[i])
				snprintf(m, sizeof(m), "(1) fwd, %u flows (%u carry)%s [cyc/pkt]",
					 B.flows[i], X->carried[i], fam_tag(f));
			else
				snprintf(m, sizeof(m), "(1) fwd, %u flows%s [cycles/packet]", B.flows[i],
					 fam_tag(f));
			snprintf(o, sizeof(o), "%.1f (%.1f)", X->fwd_cpp[i], X->fwd_med[i]);
			if (R.tp_n > 0)
				snprintf(v, sizeof(v), "%.1fx testpmd: %s (<= 3x)", X->fwd_cpp[i] / tp,
					 X->fwd_cpp[i] / tp <= 3.0 ? "PASS" : "FAIL");
			else
				snprintf(v, sizeof(v), "-");
			row(m, o, r, v);
			snprintf(o, sizeof(o), "%.2f Mpps", (double)B.hz / X->fwd_cpp[i] / 1e6);
			snprintf(v, sizeof(v), "wall %.2f Mpps incl. generator", X->fwd_wall_mpps[i]);
			row("      same, per core", o, "", v);
			snprintf(o, sizeof(o), "%.1f %%", 100.0 * X->fwd_fast_share[i]);
			row("      of them by the burst fast path", o, "",
			    "splice_fast.c; the rest per packet");
			snprintf(o, sizeof(o), "%.1f (%.1f)", X->fwd_own[i], X->fwd_own_med[i]);
			row("      own: less the RX and TX calls", o, "",
			    "the port driver's copies out (perf/pktgen P1's \"own\")");
		}
		if (B.fam_mask == 3 && F[0].fwd_cpp[i] > 0 && F[1].fwd_cpp[i] > 0) {
			snprintf(m, sizeof(m), "(1) %u fl.", B.flows[i]);
			ratio_row(m, F[1].fwd_cpp[i] / F[0].fwd_cpp[i],
				  F[1].fwd_med[i] / F[0].fwd_med[i], true, &v6_fail);
			snprintf(m, sizeof(m), "      (1) %u fl. own, IPv6 / IPv4", B.flows[i]);
			snprintf(o, sizeof(o), "%.2fx (%.2fx)", F[1].fwd_own[i] / F[0].fwd_own[i],
				 F[1].fwd_own_med[i] / F[0].fwd_own_med[i]);
			row(m, o, "", "beside, not judged: the same cycles less the driver calls");
		}
	}
	if (R.macswap_cpp > 0) {
		snprintf(o, sizeof(o), "%.1f (%.1f)", R.macswap_cpp, R.macswap_med);
		if (R.tp_n > 0)
			snprintf(v, sizeof(v), "%.2fx testpmd", R.macswap_cpp / tp);
		else
			snprintf(v, sizeof(v), "-");
		row("    harness macswap, our ports [cyc/pkt]", o, r, v);
	}
	if (R.tp_n > 0) {
		snprintf(o, sizeof(o), "%.1f (%.1f)", tp, tp_med);
		snprintf(v, sizeof(v), "%.0f Mpps per core", (double)B.hz / tp / 1e6);
		row(B.memif ? "    testpmd macswap, memif pair [cyc/pkt]"
			    : "    testpmd macswap, net_ring0 [cyc/pkt]",
		    o, "(reference)", v);
	}

	for (f = 0; f < 2; f++) {
		const struct famres *X = &F[f];

		if (!(B.fam_mask & (1u << f)) || X->syn_cps <= 0)
			continue;
		snprintf(o, sizeof(o), "%.2f M (%.0f cyc/SYN)", (double)B.hz / X->syn_cps / 1e6,
			 X->syn_cps);
		snprintf(v, sizeof(v), "%s; median %.2f M; wall %.2f M/s",
			 (double)B.hz / X->syn_cps >= 5e6 ? "PASS" : "FAIL",
			 (double)B.hz / X->syn_med / 1e6, X->syn_wall / 1e6);
		snprintf(m, sizeof(m), "(2) SYN-ACK cookies / s / core%s", fam_tag(f));
		row(m, o, ">= 5 M", v);
	}
	if (B.fam_mask == 3 && F[0].syn_cps > 0 && F[1].syn_cps > 0)
		ratio_row("(2)", F[0].syn_cps / F[1].syn_cps, F[0].syn_med / F[1].syn_med, false,
			  &v6_fail);

	for (f = 0; f < 2; f++) {
		const struct famres *X = &F[f];

		if (!(B.fam_mask & (1u << f)) || X->lc_cpc <= 0)
			continue;
		snprintf(o, sizeof(o), "%.0f k (%.0f cyc/conn)", (double)B.hz / X->lc_cpc / 1e3,
			 X->lc_cpc);
		snprintf(v, sizeof(v), "%s; median %.0f k; wall %.0f k/s",
			 (double)B.hz / X->lc_cpc >= 3e5 ? "PASS" : "FAIL", (double)B.hz / X->lc_med / 1e3,
			 X->lc_wall / 1e3);
		snprintf(m, sizeof(m), "(3) new spliced conns / s / core%s", fam_tag(f));
		row(m, o, ">= 300 k", v);
		snprintf(o, sizeof(o), "%.0f cyc/conn", X->lc_avg_cpc);
		snprintf(v, sizeof(v), "%" PRIu64 " conns; flows_active after: %" PRIu64, X->lc_done,
			 X->lc_flows_end);
		row("      whole run incl. ramp, last LINGERs", o, "", v);
	}
	if (B.fam_mask == 3 && F[0].lc_cpc > 0 && F[1].lc_cpc > 0)
		ratio_row("(3)", F[0].lc_cpc / F[1].lc_cpc, F[0].lc_med / F[1].lc_med, false,
			  &v6_fail);
	for (i = 0; i < B.n_flows; i++)
		for (f = 0; f < 2; f++) {
			const struct famres *X = &F[f];

			if (!(B.fam_mask & (1u << f)) || X->est_cpc[i] <= 0)
				continue;
			snprintf(m, sizeof(m), "      open only, %u flows (no close)%s", X->carried[i],
				 fam_tag(f));
			snprintf(o, sizeof(o), "%.0f cyc/conn", X->est_cpc[i]);
			snprintf(v, sizeof(v), "%.0f k/s per core", (double)B.hz / X->est_cpc[i] / 1e3);
			row(m, o, "", v);
		}

	for (i = 0; i < B.n_flows; i++) {
		double n = R.mem[i].table;
		double conn_share = (double)R.mem[i].conns / n;
		double per_key = (double)R.mem[i].hash / n;
		double snat_share = (double)R.mem[i].snat / n;
		double cache_share = (double)R.mem[i].cache / n;
		double flow_mem = conn_share + per_key + snat_share + cache_share;
		double held_mem = conn_share + per_key + cache_share + peek_share + (double)R.mbuf_obj;

		snprintf(m, sizeof(m), "(4) memory per flow, %u-flow table", R.mem[i].table);
		snprintf(o, sizeof(o), "%.0f B", flow_mem);
		snprintf(v, sizeof(v), "%s; tables %.1f MB (flows_per_worker %u)",
			 flow_mem <= 256 ? "PASS" : "FAIL",
			 (double)(R.mem[i].conns + R.mem[i].hash + R.mem[i].snat + R.mem[i].cache) /
				 1048576.0,
			 R.mem[i].table);
		row(m, o, "<= 256 B", v);
		snprintf(o, sizeof(o), "%.0f B", conn_share);
		snprintf(v, sizeof(v), "sizeof(struct sy_conn) %zu, aligned to a cache line", R.sz_conn);
		row("      record (conn arena / flows)", o, "", v);
		snprintf(o, sizeof(o), "%.0f B", (double)R.mem[i].conns6 / n);
		row("      same, with an IPv6 port", o, "",
		    "the record and its IPv6 side (struct sy_conn_v6) in one slot; not in the sum");
		snprintf(o, sizeof(o), "%.0f B", per_key);
		snprintf(v, sizeof(v), "rte_hash %.1f MB / %u entries, key %zu B",
			 (double)R.mem[i].hash / 1048576.0, R.mem[i].table, sizeof(struct sy_flow_key));
		row("      flow-table key (client leg)", o, "", v);
		snprintf(o, sizeof(o), "%.1f B", snat_share);
		snprintf(v, sizeof(v), "SNAT port -> record array %.0f KB / flows",
			 (double)R.mem[i].snat / 1024.0);
		row("      backend leg (SNAT port slot)", o, "", v);
		snprintf(o, sizeof(o), "%.0f B", cache_share);
		snprintf(v, sizeof(v), "client-leg cache %.0f KB (%u slots) / flows",
			 (double)R.mem[i].cache / 1024.0, sy_flow_cache_slots(R.mem[i].table));
		row("      client leg (cache slots)", o, "", v);
		snprintf(o, sizeof(o), "%.0f B", held_mem);
		snprintf(v, sizeof(v), "record + 1 key + its cache slots + peek buf %.0f B + mbuf %zu B",
			 peek_share, R.mbuf_obj);
		row("      memory per held conn (PEEK, 1 seg)", o, "-", v);
	}
	snprintf(o, sizeof(o), "%.1f MB", (double)R.worker_total / 1048576.0);
	snprintf(v, sizeof(v), "%u records, %u PEEK buffers", B.table_default, SY_PEEK_BUFS);
	row("      per worker, allocated at start", o, "", v);

	if (R.tp_n > 0) {
		printf("\nreference: %s, %u run(s) of %u s, forwarding on core %u (testpmd: %.0f MHz):",
		       B.testpmd, R.tp_n, B.tp_secs, B.core, R.tp_mhz);
		for (i = 0; i < R.tp_n; i++)
			printf(" %.1f", R.tp_cpp[i]);
		printf(" cycles/packet (its --record-core-cycles)\n");
	}
	if (R.tp_err[0])
		printf("\ntestpmd: %s\n", R.tp_err);
	if (B.fam_mask == 3 && B.b_fam == 4)
		printf("\nIPv6 / IPv4 (issue 36: the IPv6 client side within 10%% of IPv4: cycles/packet"
		       " <= 1.10x, rates >= 0.90x): %s: %s\n"
		       "note: the IPv6 rows' spliced segments cross the families (IPv6 client, IPv4"
		       " backend): the burst fast path (splice_fast.c) replaces the IP header\n"
		       "      each way (\"of them by the burst fast path\" says how many it took). The"
		       " IPv4 rows ran with the client port dual-stack\n"
		       "      (2001:2::1/64 too: the worker's IPv6 hash and cold array allocated).\n",
		       v6_summary, v6_fail ? "FAIL" : "PASS");
	else if (B.fam_mask == 3)
		printf("\nIPv6 / IPv4 (issue 36: the IPv6 client side within 10%% of IPv4: cycles/packet"
		       " <= 1.10x, rates >= 0.90x): %s: %s\n"
		       "note: the backend side %s (--backend-family %s); both ports dual-stack"
		       " in every row\n",
		       v6_summary, v6_fail ? "FAIL" : "PASS",
		       B.b_fam == 0 ? "is the client side's family: 4to4 against 6to6"
				    : "is IPv6: 4to6 against 6to6",
		       B.b_fam == 0 ? "same" : "6");
	printf("generator checks: %" PRIu64 " translation/checksum errors, %" PRIu64
	       " unexpected segments, %" PRIu64 " generator mbuf/ring shortfalls, %" PRIu64
	       " ARP requests answered",
	       B.verify_err, B.unexpected, B.gen_nombuf + B.gen_ring_full, B.arp_answered);
	if (B.fam_mask & 2)
		printf(", %" PRIu64 " neighbour solicitations answered", B.nd_answered);
	printf("\n");
	fflush(stdout);
}

/* ---------------------------------------------------------------- main -- */

/* Measure the client family f (0 IPv4, 1 IPv6) from now on, if --family
 * asked for it. */
static bool
family_set(unsigned f)
{
	if (!(B.fam_mask & (1u << f)))
		return false;
	B.fi = f;
	B.v6 = f == 1;
	backend_family_set(f);
	return true;
}

/* ", IPv6 clients" in the progress lines, when not the default. */
static const char *
fam_note(void)
{
	if (B.fam_mask == 1)
		return "";
	return B.v6 ? ", IPv6 clients" : ", IPv4 clients";
}

static void
usage(const char *prog)
{
	fprintf(stderr,
		"usage: %s [--quick] [--core N] [--testpmd-main-core N] [--flows N[,N...]]\n"
		"          [--huge] [--no-testpmd] [--testpmd PATH] [--only LIST]\n"
		"          [--port-kind ring|memif] [--family 4|6|both] [--backend-family 4|6]\n"
		"          [--fwd-burst N] [--fwd-evict KB] [--fwd-no-ts] [--client-gateway]\n"
		"          [--fwd-carry N] [--fwd-in-order]\n"
		"  --quick            smoke run (a few seconds)\n"
		"  --core N           core for the worker and for testpmd's forwarding (default 1)\n"
		"  --testpmd-main-core N  testpmd's main (stats) core (default 0)\n"
		"  --flows LIST       flows per worker for (1) and (4) (default 1000,100000,1000000;\n"
		"                     at most %u): the worker's table holds that many, at most\n"
		"                     %u of them carry traffic (one client and SNAT address),\n"
		"                     the rest are idle flows in the table\n"
		"  --huge             hugepages for both the bench and testpmd (default --no-huge)\n"
		"  --no-testpmd       skip the dpdk-testpmd reference\n"
		"  --testpmd PATH     default /usr/bin/dpdk-testpmd\n"
		"  --only LIST        some of macswap,syn,fwd,life (profiling)\n"
		"  --port-kind KIND   ring (default): net_ring ports; memif: net_memif pairs,\n"
		"                     testpmd on a memif pair too\n"
		"  --family F         the client side of (1), (2), (3): 4 (default), 6 (IPv6\n"
		"                     client 2001:2::2 to 2001:2::1), or both: each phase\n"
		"                     over IPv4 then IPv6, and the ratio\n"
		"  --backend-family F the backend side: 4 (default, 198.18.1.10), 6\n"
		"                     ([2001:2:1::10]), or same: the client side's in each\n"
		"                     phase (with --family both: 4to4 against 6to6)\n"
		"  --fwd-burst N      (1): N segments a port a poll (default %u; P1 outside\n"
		"                     sees a few at its equal rates)\n"
		"  --fwd-evict KB     (1): write KB kilobytes between polls, uncounted, so that\n"
		"                     a poll finds caches as a napping worker does (default 0)\n"
		"  --fwd-no-ts        (1): data segments without the timestamp option, as\n"
		"                     perf/pktgen's P1 replays them (an IPv4 frame's headers\n"
		"                     then end in its first cache line, an IPv6 one's do not)\n"
		"  --client-gateway   the client behind a gateway on the client port, as a\n"
		"                     router's clients mostly are (198.18.128.2 via\n"
		"                     198.18.0.254, 2001:2:80::2 via 2001:2::fe): the\n"
		"                     router's next hop is not the peer (perf/pktgen's P1\n"
		"                     clients are on-link)\n"
		"  --fwd-carry N      (1): N flows carry traffic (default: as many as fit),\n"
		"                     the rest of the table idle: --flows 65536 --fwd-carry\n"
		"                     1000 is perf/pktgen P1's table (flows_per_worker 65536)\n"
		"  --fwd-in-order     (1): the flows' segments in port order, as P1's pcaps\n"
		"                     replay them (default: random order)\n",
		prog, FLOWS_MAX, FWD_CARRY_MAX, BENCH_BURST);
}

static int
parse_args(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "quick", no_argument, NULL, 'q' },
		{ "core", required_argument, NULL, 'c' },
		{ "testpmd-main-core", required_argument, NULL, 'm' },
		{ "flows", required_argument, NULL, 'f' },
		{ "huge", no_argument, NULL, 'H' },
		{ "no-testpmd", no_argument, NULL, 'n' },
		{ "testpmd", required_argument, NULL, 't' },
		{ "only", required_argument, NULL, 'o' },
		{ "port-kind", required_argument, NULL, 'k' },
		{ "family", required_argument, NULL, 'F' },
		{ "backend-family", required_argument, NULL, 'B' },
		{ "fwd-burst", required_argument, NULL, 'b' },
		{ "fwd-evict", required_argument, NULL, 'e' },
		{ "fwd-no-ts", no_argument, NULL, 'T' },
		{ "client-gateway", no_argument, NULL, 'G' },
		{ "fwd-carry", required_argument, NULL, 'C' },
		{ "fwd-in-order", no_argument, NULL, 'O' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	B.core = 1;
	B.tp_main_core = 0;
	B.run_testpmd = true;
	B.testpmd = "/usr/bin/dpdk-testpmd";
	B.flows[0] = 1000;
	B.flows[1] = 100000;
	B.flows[2] = 1000000;
	B.n_flows = 3;
	B.do_macswap = B.do_syn = B.do_fwd = B.do_life = true;
	B.fam_mask = 1;
	B.b_fam = 4;
	B.fwd_burst = BENCH_BURST;
	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 'q':
			B.quick = true;
			break;
		case 'c':
			B.core = (unsigned)atoi(optarg);
			break;
		case 'm':
			B.tp_main_core = (unsigned)atoi(optarg);
			break;
		case 'f': {
			char *s = optarg, *end;

			B.n_flows = 0;
			while (*s && B.n_flows < RTE_DIM(B.flows)) {
				unsigned long n = strtoul(s, &end, 10);

				if (end == s || n == 0 || n > FLOWS_MAX) {
					fprintf(stderr, "--flows: 1..%u each (flows per worker)\n",
						FLOWS_MAX);
					return -1;
				}
				B.flows[B.n_flows++] = (unsigned)n;
				s = *end == ',' ? end + 1 : end;
				if (*end != ',' && *end != '\0')
					return -1;
			}
			break;
		}
		case 'H':
			B.huge = true;
			break;
		case 'n':
			B.run_testpmd = false;
			break;
		case 't':
			B.testpmd = optarg;
			break;
		case 'k':
			if (strcmp(optarg, "ring") != 0 && strcmp(optarg, "memif") != 0) {
				fprintf(stderr, "--port-kind: ring or memif\n");
				return -1;
			}
			B.memif = strcmp(optarg, "memif") == 0;
			break;
		case 'F':
			if (strcmp(optarg, "4") == 0)
				B.fam_mask = 1;
			else if (strcmp(optarg, "6") == 0)
				B.fam_mask = 2;
			else if (strcmp(optarg, "both") == 0)
				B.fam_mask = 3;
			else {
				fprintf(stderr, "--family: 4, 6 or both\n");
				return -1;
			}
			break;
		case 'B':
			if (strcmp(optarg, "4") == 0 || strcmp(optarg, "6") == 0)
				B.b_fam = atoi(optarg);
			else if (strcmp(optarg, "same") == 0)
				B.b_fam = 0;
			else {
				fprintf(stderr, "--backend-family: 4, 6 or same\n");
				return -1;
			}
			break;
		case 'b':
			B.fwd_burst = (unsigned)atoi(optarg);
			if (B.fwd_burst < 1 || B.fwd_burst > BENCH_BURST) {
				fprintf(stderr, "--fwd-burst: 1..%u\n", BENCH_BURST);
				return -1;
			}
			break;
		case 'e': {
			long kb = atol(optarg);

			if (kb < 0 || kb > 1 << 20) {
				fprintf(stderr, "--fwd-evict: 0..%u KB\n", 1u << 20);
				return -1;
			}
			B.evict_bytes = (size_t)kb * 1024;
			if (B.evict_bytes != 0 && (B.evict = calloc(1, B.evict_bytes)) == NULL) {
				fprintf(stderr, "--fwd-evict: out of memory\n");
				return -1;
			}
			break;
		}
		case 'T':
			B.fwd_no_ts = true;
			break;
		case 'C':
			B.fwd_carry = (unsigned)atoi(optarg);
			if (B.fwd_carry < 1 || B.fwd_carry > FWD_CARRY_MAX) {
				fprintf(stderr, "--fwd-carry: 1..%u\n", FWD_CARRY_MAX);
				return -1;
			}
			break;
		case 'O':
			B.fwd_in_order = true;
			break;
		case 'G':
			B.client_gw = true;
			break;
		case 'o':
			B.do_macswap = strstr(optarg, "macswap") != NULL;
			B.do_syn = strstr(optarg, "syn") != NULL;
			B.do_fwd = strstr(optarg, "fwd") != NULL;
			B.do_life = strstr(optarg, "life") != NULL;
			break;
		default:
			usage(argv[0]);
			return -1;
		}
	}
	if (B.core == B.tp_main_core) {
		fprintf(stderr, "--core and --testpmd-main-core must differ\n");
		return -1;
	}
	if (B.quick) {
		B.chunks = 5;
		B.stream_pkts = 1000000;
		B.macswap_pkts = 5000000;
		B.syns = 500000;
		B.conns = 50000;
		B.tp_secs = 3;
		B.tp_runs = 1;
	} else {
		B.chunks = 11;
		B.stream_pkts = 11000000;
		B.macswap_pkts = 55000000;
		B.syns = 5500000;
		B.conns = 440000;
		B.tp_secs = 5;
		B.tp_runs = 3;
	}
	return 0;
}

int
main(int argc, char **argv)
{
	char prefix[64], lcores[16], dir[128], mem[24];
	char *eal[24];
	int n = 0, rc;
	unsigned i, fam;

	if (parse_args(argc, argv) < 0)
		return 2;
	B.rng = 0x9e3779b97f4a7c15ull ^ (uint64_t)getpid();
	memset(B.data, 0xab, sizeof(B.data));

	{
		FILE *f = fopen("/proc/loadavg", "r");

		if (f == NULL || fgets(R.load, sizeof(R.load), f) == NULL)
			snprintf(R.load, sizeof(R.load), "?");
		R.load[strcspn(R.load, "\n")] = '\0';
		/* The three averages only. */
		{
			char *sp = R.load;
			int k;

			for (k = 0; k < 3 && sp != NULL; k++)
				sp = strchr(sp + 1, ' ');
			if (sp != NULL)
				*sp = '\0';
		}
		if (f != NULL)
			fclose(f);
	}
	/* The reference first, while this process holds no core. */
	if (B.run_testpmd && !B.do_macswap)
		B.run_testpmd = false;
	if (B.run_testpmd) {
		if (access(B.testpmd, X_OK) != 0)
			snprintf(R.tp_err, sizeof(R.tp_err), "%s: not found (package dpdk-dev)",
				 B.testpmd);
		else
			for (i = 0; i < B.tp_runs; i++) {
				fprintf(stderr, "splice_bench: testpmd run %u/%u (%u s)...\n", i + 1,
					B.tp_runs, B.tp_secs);
				testpmd_once(i);
			}
	}

	snprintf(prefix, sizeof(prefix), "sy-bench-%ld", (long)getpid());
	snprintf(lcores, sizeof(lcores), "%u", B.core);
	eal[n++] = argv[0];
	eal[n++] = "-l";
	eal[n++] = lcores;
	eal[n++] = "--no-pci";
	eal[n++] = "--no-shconf";
	eal[n++] = "--no-telemetry";
	eal[n++] = "--file-prefix";
	eal[n++] = prefix;
	eal[n++] = "--log-level=*:warning";
	/* The largest table twice (the worker's, and (4) building its own),
	 * with room on top of what the bench needed with 32k flows. */
	{
		size_t big = 0, v6 = 0;

		for (i = 0; i < B.n_flows; i++)
			if (sy_flow_mem_estimate(table_size(B.flows[i])) > big)
				big = sy_flow_mem_estimate(table_size(B.flows[i]));
		/* IPv6 clients: the worker's two IPv6 hashes (a 48-byte key
		 * each a record) and its cold array (128 B a record), under
		 * 384 B a flow. */
		for (i = 0; ((B.fam_mask & 2) || B.b_fam == 6) && i < B.n_flows; i++)
			if ((size_t)table_size(B.flows[i]) * 384 > v6)
				v6 = (size_t)table_size(B.flows[i]) * 384;
		snprintf(mem, sizeof(mem), "%zu",
			 (B.huge ? 512 : 1024) + 2 * (big >> 20) + (v6 >> 20) + 64);
	}
	eal[n++] = "-m";
	eal[n++] = mem;
	if (B.huge)
		eal[n++] = "--huge-unlink";
	else
		eal[n++] = "--no-huge";
	eal[n] = NULL;
	rc = rte_eal_init(n, eal);
	if (rc < 0) {
		fprintf(stderr, "splice_bench: EAL: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	fprintf(stderr, "splice_bench: EAL up on core %u, TSC %" PRIu64 " Hz\n", B.core, rte_get_tsc_hz());

	if (setup() == 0) {
		if (B.do_macswap) {
			fprintf(stderr, "splice_bench: reference macswap in the harness...\n");
			phase_macswap();
		}
		/* Each phase over each family asked for, IPv4 first. */
		for (fam = 0; B.do_syn && fam < 2; fam++) {
			if (!family_set(fam))
				continue;
			fprintf(stderr, "splice_bench: (2) SYN cookies%s...\n", fam_note());
			phase_syn();
		}
		for (i = 0; B.do_fwd && i < B.n_flows && !B.failed; i++)
			for (fam = 0; fam < 2 && !B.failed; fam++) {
				if (!family_set(fam))
					continue;
				fprintf(stderr,
					"splice_bench: (1) forwarding on %u established flows%s...\n",
					B.flows[i], fam_note());
				phase_forward(i, B.flows[i]);
			}
		for (fam = 0; B.do_life && fam < 2 && !B.failed; fam++) {
			if (!family_set(fam))
				continue;
			fprintf(stderr, "splice_bench: (3) connection lifecycle%s...\n", fam_note());
			phase_lifecycle();
		}
		print_table();
	}
	if (B.verify_err || B.unexpected || B.gen_nombuf || B.gen_ring_full)
		B.failed = true;
	teardown();
	snprintf(dir, sizeof(dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	(void)rmdir(dir);
	if (B.failed)
		fprintf(stderr, "splice_bench: the harness saw errors (above): figures are not valid\n");
	return B.failed ? 1 : 0;
}
