/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data plane's packet buffers: one mbuf mempool for every port and
 * worker, made so that each port's driver can use every mbuf in it.
 *
 * The one driver that needs care is net_af_xdp (DPDK 22.11): it registers
 * the pool with the kernel as its UMEM, from the first memory chunk's page
 * for populated_size objects, as if the objects lay back to back. A pool
 * spread over hugepages has a little padding at each page end (objects do
 * not cross pages), so its last few mbufs lie past that range; the kernel
 * refuses a frame sent from one of them (an invalid TX descriptor, counted
 * nowhere DPDK reports) and the connection waits out a retransmission
 * timeout. See mbuf_pool.c for what is done about it.
 */
#ifndef SY_MBUF_POOL_H
#define SY_MBUF_POOL_H

#include <stddef.h>

#include <rte_mempool.h>

#include "sy_config.h"

/* The pool of n mbufs for cfg's ports; NULL with err set on failure. */
struct rte_mempool *sy_mbuf_pool_create(const struct sy_config *cfg, unsigned n,
					unsigned cache, char *err, size_t errlen);

/* Frees the pool (and the mbufs kept out of use). */
void sy_mbuf_pool_free(struct rte_mempool *mp);

/*
 * How many of mp's mbufs are out of it now: its size less its ring and every
 * lcore's cache, read while others allocate and free (a gauge; exact at
 * rest). Not rte_mempool_in_use_count, which caps the free count at the
 * pool's size: an mbuf freed twice sits in the ring twice, and this then
 * says so by going below 0.
 */
long sy_mbuf_pool_in_use(const struct rte_mempool *mp);

/* How many of the pool's mbufs are kept out of use because net_af_xdp's
 * UMEM would not cover them (0 without af_xdp ports). */
unsigned sy_mbuf_pool_quarantined(void);

/* Whether the mbuf's whole buffer lies inside the UMEM DPDK 22.11's
 * net_af_xdp registers for mp (exposed for tests). */
int sy_mbuf_in_af_xdp_umem(const struct rte_mempool *mp, const struct rte_mbuf *m);

#endif
