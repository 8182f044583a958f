/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-worker state and the state every worker shares read-only, as types
 * only (worker.h has the functions): a file that reads a worker's fields
 * includes this, without the ports', ARP's and TCP's functions. The tables
 * a worker holds by value come as types too (conn/conn_tables_t.h,
 * net/neigh_t.h, tcp/tcp_syncookie_t.h, tcp/tcp_isn.h); what it points to is
 * declared, not included.
 *
 * struct sy_dp_shared is built at init (sy_dp_shared_create, then the ports
 * are filled in by dataplane.c) and never written while workers run, except
 * `stop`. struct sy_worker belongs to one worker lcore; the control thread
 * only reads its counters.
 */
#ifndef SY_WORKER_T_H
#define SY_WORKER_T_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <rte_common.h>
#include <rte_ether.h>

#include "conn/conn_tables_t.h"
#include "dns/dns.h"
#include "net/neigh_t.h"
#include "sy_config.h"
#include "sy_source_allow.h"
#include "sy_counters.h"
#include "worker_clock.h"
#include "tcp/tcp_isn.h"
#include "tcp/tcp_syncookie_t.h"

struct rte_mbuf;
struct rte_mempool;
struct rte_ring;
struct sy_dns_table;
struct sy_fib;
struct sy_gen_slot;
struct sy_generation;
struct sy_vrrp;

/* No ethdev behind this port (unit tests): TX buffers are only filled. */
#define SY_PORT_NONE UINT16_MAX

#define SY_RX_BURST 32
/* TX buffer per port: a full RX burst from every port can land on one port,
 * plus released ARP queues; flushed early when full. */
#define SY_TX_BUF 64
/* With tx_drain_us: a port's queue is sent once it holds this many. */
#define SY_TX_DRAIN_BURST 32
/* With tx_drain_us: a port holds frames only while busy, that is when it
 * queued at least this many in the last tx_drain_us window. */
#define SY_TX_DRAIN_BUSY 4

struct sy_dp_port {
	char name[SY_NAME_MAX];
	uint16_t port_id; /* ethdev id, or SY_PORT_NONE */
	uint16_t mtu;
	struct rte_ether_addr mac;
	uint32_t ipv4[SY_MAX_PORT_ADDRS]; /* network order */
	uint32_t ipv4_mask[SY_MAX_PORT_ADDRS]; /* network order */
	unsigned n_ipv4;
	/* IPv6 (net/ipv6.c): the configured addresses. With at least one, the
	 * port also answers on the link-local address its MAC gives
	 * (sy_ipv6_link_local); with none it drops IPv6 (ipv6_off). */
	uint8_t ipv6[SY_MAX_PORT_ADDRS][16];
	uint8_t ipv6_prefix[SY_MAX_PORT_ADDRS]; /* their prefix lengths */
	unsigned n_ipv6;
	bool rx_ipv4_cksum; /* RX offload enabled: trust the mbuf flags */
	bool tx_ipv4_cksum; /* TX offload enabled: let the NIC fill it */
	/* The PMD sends mbuf chains. Those that do not (net_af_xdp) would
	 * send only the first segment's bytes, so sy_tx makes a chain one
	 * mbuf first: the proxy sends its headers and payload as a chain. */
	bool tx_multi_seg;
	/* net_af_xdp: the AF_XDP sockets its queue setup opened, whose kernel
	 * counters the control thread reads (xsk_stats.h); else none. */
	int xsk_fd[SY_MAX_WORKERS];
	unsigned n_xsk;
};

struct sy_dp_shared {
	struct sy_dp_port ports[SY_MAX_PORTS];
	unsigned n_ports;
	struct sy_fib *fib;
	struct rte_mempool *pool; /* for packets a worker makes (ARP requests) */
	struct rte_ring *nb_ring[SY_MAX_WORKERS]; /* neighbour updates, per worker */
	unsigned n_workers;
	struct sy_gen_slot *slot; /* NULL in tests */
	/* TCP service: where clients connect (network order). */
	uint32_t listen_ip[SY_MAX_LISTEN + SY_MAX_PORTS * SY_MAX_PORT_ADDRS];
	unsigned n_listen;
	uint8_t listen_ip6[SY_MAX_LISTEN + SY_MAX_PORTS * SY_MAX_PORT_ADDRS][16];
	unsigned n_listen6;
	uint16_t http_port, https_port;
	/* listen.proxy_protocol (peek/proxy_proto.c): expected before the
	 * bytes of connections from pp_from (n4 + n6 == 0: from every source). */
	bool pp_on;
	struct sy_source_allow pp_from;
	struct sy_prefix4 pp_from4[SY_PP_FROM_MAX];
	struct sy_prefix6 pp_from6[SY_PP_FROM_MAX];
	uint16_t mss_max; /* MSS we announce at most: smallest port MTU - 40 */
	struct rte_ring *handoff[SY_MAX_WORKERS]; /* segments for their owner */
	/* Active health checks (sy_dataplane.h): jobs to worker 0, results
	 * back (single producer, single consumer each). NULL in tests. */
	struct rte_ring *hc_jobs, *hc_done;
	/* The access log (observe/access_rec.h): each worker's ring of
	 * records for the control thread, or NULL (the log is off). */
	struct rte_ring *alog[SY_MAX_WORKERS];
	/* The DNS responder (dns/dns.h): its addresses (IPv4 network order,
	 * 0: none; IPv6 when v6_on) and the shard zones it answers for (ctl:
	 * publishes, sy_dp_dns_publish; workers: read at each query). */
	struct sy_dns_self dns_self;
	_Atomic(const struct sy_dns_table *) dns_zones;
	/* VIP failover (vrrp/vrrp.h), or NULL (vrrp not configured). */
	struct sy_vrrp *vrrp;
	/* SYN cookie secrets: three buffers so a rotation never rewrites the
	 * one a worker may still be reading (ctl: wo via sy_dp_cookie_rotate,
	 * workers: ro). */
	struct sy_cookie_keys cookie_keys[3];
	atomic_uint cookie_cur;
	/* Our ISN and TSval on backend legs (tcp_isn.h): set at init, keys
	 * from the state directory (dataplane.c). */
	struct sy_leg_clock leg_clock;
	enum sy_idle_policy idle;
	/* A port's frames wait at most this long (TSC) for more to share their
	 * TX burst; 0: sent at the end of every poll. */
	uint64_t tx_drain_tsc;
	unsigned flows_per_worker; /* connection records per worker (conn/conn_tables_t.h) */
	uint8_t tcp_cc; /* enum sy_tcp_cc: new proxied connections take it (tcp_cc.h) */
	bool lb_fail_closed; /* lb_all_ejected "fail": no pick when all tried are ejected */
	uint8_t lb_max_ejected_pct; /* lb_max_ejected_percent (lb/lb.h) */
	uint64_t tsc_per_ms;
	atomic_bool stop; /* ctl: wo (sy_dp_stop), workers: ro */
	/* A graceful drain is on (sy_dp_drain_begin; docs/operations.md,
	 * "Stopping"): new connections refused, idle ones closed, the rest
	 * finish. ctl: wo, workers: ro. */
	atomic_bool draining;
};

struct sy_txq {
	uint16_t n;
	bool busy;           /* tx_drain: SY_TX_DRAIN_BUSY or more in the last window */
	uint32_t win_frames; /* tx_drain: frames queued in this window */
	uint64_t win_start;  /* tx_drain: w->now when this window began */
	uint64_t since; /* w->now when pkts[0] was queued (tx_drain_tsc) */
	uint64_t bytes; /* of pkts[0..n), counted as they are queued */
	struct rte_mbuf *pkts[SY_TX_BUF];
};

struct sy_worker {
	unsigned id; /* worker index == RCU reader id == RX/TX queue id */
	unsigned lcore;
	uint16_t queue;
	struct sy_dp_shared *sh; /* read-only */
	uint64_t now;            /* the worker's clock at the top of this loop
	                          * iteration: the TSC less what jumps left
	                          * out (worker_clock.h) */
	struct sy_clock clock;   /* worker: rw; what `now` is kept from */
	_Atomic uint64_t clock_skip; /* worker: wo (on a jump), ctl: ro: clock.skip */
	/* The generation held for the current burst; NULL between bursts. The
	 * splice path reads it; nothing may keep it past the iteration. */
	struct sy_generation *gen;
	struct sy_txq txq[SY_MAX_PORTS];
	unsigned tx_held; /* frames the last poll kept for a later burst */
	bool drain_swept; /* this worker closed its idle connections for the drain */
	/* A -Dpoll_phases=true build's marks in this poll (TSC), added to the
	 * poll_*_cycles counters by sy_worker_main when the poll was busy. */
	struct {
		uint64_t rx_begin, input_end, timers_end, rx_calls;
	} phase;
	struct sy_worker_counters counters; /* worker: wo, ctl: ro */
	struct sy_neigh_table arp; /* IPv4 next hops (net/arp.c) */
	struct sy_neigh_table nd;  /* IPv6 next hops (net/nd.c) */
	struct sy_conn_tables tcp;
} __rte_cache_aligned;

#endif
