/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An in-process data plane for tests: EAL without hugepages or PCI, a
 * mempool, the shared state of a router with two ports ("client"
 * 198.18.0.1/24 and 2001:2::1/64, "backend" 198.18.1.1/24, 2001:2:1::1/64 and
 * 2001:2:1::2/64), a generation compiled from a few
 * routes, and a fresh worker that already knows the peers' MACs. Frames go
 * in through the worker's real input (sy_eth_input, sy_splice_rx_burst) and
 * what it sends waits in w->txq[port].
 *
 * Routes (namespace t):
 *   web.test  -> service s    -> 198.18.1.10:8080
 *   dead.test -> service dead -> 198.18.1.12:8080 (a peer nobody plays)
 *   web6.test -> service s6   -> [2001:2:1::10]:8080
 *   px.test   /    -> service s  (two path rules: the proxy mode)
 *             /api -> service s
 *   h2c.test  -> service g    -> 198.18.1.10:8080 over h2c (its Service port is
 *                                annotated projectcontour.io/upstream-protocol.h2c)
 */
#ifndef SY_TEST_DP_ENV_H
#define SY_TEST_DP_ENV_H

#include <stdint.h>

#include <rte_ether.h>

#include "store/store.h"
#include "sy_config.h"

struct rte_mempool;
struct sy_dp_shared;
struct sy_worker;
struct sy_generation;

#define SY_TEST_CLIENT "198.18.0.2"
#define SY_TEST_CLIENT6 "2001:2::2"
#define SY_TEST_VIP6 "2001:2::1"
#define SY_TEST_SNAT6 "2001:2:1::1"
#define SY_TEST_SNAT6B "2001:2:1::2" /* the backend port's second IPv6 address */
/* Static routes through a gateway on each port (IPv6): clients in
 * SY_TEST_ROUTED6_CLIENT behind SY_TEST_GW6_CLIENT, backends in
 * SY_TEST_ROUTED6_BACKEND behind SY_TEST_GW6_BACKEND. */
#define SY_TEST_GW6_CLIENT "2001:2::fe"
#define SY_TEST_GW6_BACKEND "2001:2:1::fe"
#define SY_TEST_ROUTED6_CLIENT "2001:2:80::/48"
#define SY_TEST_ROUTED6_BACKEND "2001:2:81::/48"
#define SY_TEST_BACKEND6 "2001:2:1::10"
#define SY_TEST_VIP "198.18.0.1"
#define SY_TEST_SNAT "198.18.1.1"
#define SY_TEST_BACKEND "198.18.1.10"
#define SY_TEST_DEAD "198.18.1.12"
#define SY_TEST_PROXIED "px.test"  /* proxied: path rules / and /api */
#define SY_TEST_H2C "h2c.test"     /* proxied, h2c to the backend */

extern const struct rte_ether_addr sy_test_mac_port[2];  /* the router's ports */
extern const struct rte_ether_addr sy_test_mac_client;
extern const struct rte_ether_addr sy_test_mac_backend;  /* every backend-side peer */

struct sy_test_dp {
	struct rte_mempool *mp;
	unsigned n_mbufs;
	struct sy_config cfg;
	struct sy_dp_shared *sh;
	struct sy_store store;
	struct sy_generation *gen;
	struct sy_worker *w;
};

/* EAL (named `name`), mempool of n_mbufs, shared state, routes, generation.
 * Returns 0, or -1 with a message on stderr. */
int sy_test_dp_init(struct sy_test_dp *d, const char *name, unsigned n_mbufs);
void sy_test_dp_fini(struct sy_test_dp *d);

/* A fresh worker (d->w) holding d->gen, with the client's (both families)
 * and every backend's MAC learnt. Returns 0 or -1. */
int sy_test_dp_worker(struct sy_test_dp *d);
/* Destroy it; returns the mbufs still out of the pool (0 = nothing leaked). */
unsigned sy_test_dp_worker_free(struct sy_test_dp *d);

/* A TCP segment as a peer sends it to the router's port `port` (0: client
 * side, 1: backend side): Ethernet from that side's peer MAC, IPv4 (or IPv6
 * with saddr6 and daddr6), TCP with
 * `opts` and `len` bytes of `data`, both checksums right. Addresses and ports
 * network order, numbers host order. NULL when the pool is empty. */
struct sy_test_seg {
	uint32_t saddr, daddr;
	const uint8_t *saddr6, *daddr6; /* both set: an IPv6 segment instead */
	uint16_t sport, dport;
	uint32_t seq, ack;
	uint8_t flags;
	uint16_t win;
	const uint8_t *opts;
	unsigned optlen;
	const void *data;
	unsigned len;
};
struct rte_mbuf *sy_test_frame(struct rte_mempool *mp, unsigned port, const struct sy_test_seg *s);

/* A dotted quad in network order (0 if it does not parse). */
uint32_t sy_test_ip4(const char *s);

/* n pseudo-random words from *state (xorshift64 with a fixed seed in the
 * caller: a failing random test reproduces). */
void sy_test_random_words(uint64_t *state, uint32_t *out, unsigned n);

#endif
