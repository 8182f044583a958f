/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data plane's mbuf pool (mbuf_pool.h), and what DPDK 22.11's net_af_xdp
 * needs of it.
 *
 * That driver hands the kernel the pool's memory as a UMEM starting at the
 * page of the pool's first memory chunk and populated_size object sizes
 * long (drivers/net/af_xdp, xdp_umem_configure; later DPDK releases check
 * that the pool is one contiguous range instead). An mbuf whose buffer ends
 * past that range can still be taken from the pool, filled and sent: the
 * kernel then finds the TX descriptor invalid, drops the frame and never
 * completes it, and only its own tx_invalid_descs counter (perf/lib/
 * xsk_stats.py) says so. In the benchmarks that was a 1 s stall (the first
 * RTO) every few hundred thousand frames (perf/README.md, "proxy").
 *
 * Two steps, when a port is net_af_xdp:
 *  - If no port is a PCI device (nothing DMAs from the pool), the pool is
 *    made without IOVA-contiguous objects: no padding at page ends, one run
 *    of objects, which is the layout the driver assumes. A PCI device needs
 *    objects that do not cross pages, so with one the pool keeps the default.
 *  - Whatever the layout, every mbuf the driver's UMEM would not cover is
 *    taken out of the pool once, at creation, and kept until the pool is
 *    freed. With hugepages and the default layout that is a handful.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_mbuf_pool_ops.h>
#include <rte_mempool.h>

#include "dp_log.h"
#include "mbuf_pool.h"

static struct {
	struct rte_mempool *mp;
	void **objs;
	unsigned n;
} quarantine;

int
sy_mbuf_in_af_xdp_umem(const struct rte_mempool *mp, const struct rte_mbuf *m)
{
	const struct rte_mempool_memhdr *first = STAILQ_FIRST(&mp->mem_list);
	uintptr_t page = (uintptr_t)getpagesize();
	uintptr_t base, end, obj, obj_end;

	if (first == NULL)
		return 0;
	/* As the driver computes it: from the first chunk's page, the chunk's
	 * offset in that page plus populated_size whole objects. */
	base = (uintptr_t)first->addr & ~(page - 1);
	end = base + ((uintptr_t)first->addr - base) +
	      (uintptr_t)mp->populated_size *
		      rte_mempool_calc_obj_size(mp->elt_size, mp->flags, NULL);
	obj = (uintptr_t)m - mp->header_size;
	obj_end = (uintptr_t)m + mp->elt_size;
	return obj >= base && obj_end <= end;
}

/* Takes every mbuf out of the fresh pool, puts back those the UMEM covers
 * and keeps the rest. */
static int
quarantine_outside_umem(struct rte_mempool *mp)
{
	unsigned n = mp->populated_size, got = 0, i, bad = 0;
	void **all = calloc(n, sizeof(*all));

	if (all == NULL)
		return -ENOMEM;
	/* In bursts: a bulk get is all or nothing. */
	while (got < n) {
		unsigned k = n - got < 512 ? n - got : 512;

		if (rte_mempool_get_bulk(mp, all + got, k) != 0)
			break;
		got += k;
	}
	while (got < n && rte_mempool_get(mp, &all[got]) == 0)
		got++;
	for (i = 0; i < got; i++) {
		if (sy_mbuf_in_af_xdp_umem(mp, all[i]))
			rte_mempool_put(mp, all[i]);
		else
			all[bad++] = all[i];
	}
	quarantine.mp = mp;
	quarantine.n = bad;
	quarantine.objs = all;
	return 0;
}

struct rte_mempool *
sy_mbuf_pool_create(const struct sy_config *cfg, unsigned n, unsigned cache, char *err,
		    size_t errlen)
{
	struct rte_pktmbuf_pool_private priv = {
		.mbuf_data_room_size = RTE_MBUF_DEFAULT_BUF_SIZE,
		.mbuf_priv_size = 0,
	};
	bool xdp = sy_config_has_driver(cfg, "net_af_xdp");
	unsigned flags = xdp && !sy_config_has_pci(cfg) ? RTE_MEMPOOL_F_NO_IOVA_CONTIG : 0;
	struct rte_mempool *mp;
	int rc;

	/* rte_pktmbuf_pool_create, with the flags it does not take. */
	mp = rte_mempool_create_empty("sy_mbuf", n, sizeof(struct rte_mbuf) + priv.mbuf_data_room_size,
				      cache, sizeof(priv), (int)rte_socket_id(), flags);
	if (mp == NULL) {
		snprintf(err, errlen, "dataplane: mempool of %u mbufs: %s", n,
			 rte_strerror(rte_errno));
		return NULL;
	}
	rc = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL);
	if (rc == 0) {
		rte_pktmbuf_pool_init(mp, &priv);
		rc = rte_mempool_populate_default(mp);
		rc = rc < 0 ? rc : (rc == (int)n ? 0 : -ENOMEM);
	}
	if (rc != 0) {
		snprintf(err, errlen, "dataplane: mempool of %u mbufs: %s", n, rte_strerror(-rc));
		rte_mempool_free(mp);
		return NULL;
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);

	if (xdp) {
		rc = quarantine_outside_umem(mp);
		if (rc != 0) {
			snprintf(err, errlen, "dataplane: mempool of %u mbufs: %s", n,
				 strerror(-rc));
			rte_mempool_free(mp);
			return NULL;
		}
		/* NOTICE: what an operator of an af_xdp router wants to see once. */
		rte_log(quarantine.n ? RTE_LOG_WARNING : RTE_LOG_NOTICE, sy_dp_logtype,
			  "dataplane: mbuf pool: %u mbufs in %u memory chunks%s; %u outside the UMEM "
			  "net_af_xdp registers, kept out of use\n",
			  n, mp->nb_mem_chunks, flags ? " (no page padding)" : "", quarantine.n);
	}
	return mp;
}

unsigned
sy_mbuf_pool_quarantined(void)
{
	return quarantine.n;
}

void
sy_mbuf_pool_free(struct rte_mempool *mp)
{
	if (mp == NULL)
		return;
	if (quarantine.mp == mp) {
		if (quarantine.n > 0)
			rte_mempool_put_bulk(mp, quarantine.objs, quarantine.n);
		free(quarantine.objs);
		memset(&quarantine, 0, sizeof(quarantine));
	}
	rte_mempool_free(mp);
}

long
sy_mbuf_pool_in_use(const struct rte_mempool *mp)
{
	/* get_count is the ring's own count: the accessor rte_mempool.h's
	 * rte_mempool_avail_count uses before it adds the caches and caps. */
	long free_n = (long)rte_mempool_get_ops(mp->ops_index)->get_count(mp);
	unsigned l;

	for (l = 0; mp->cache_size != 0 && l < RTE_MAX_LCORE; l++)
		free_n += mp->local_cache[l].len;
	return (long)mp->size - free_n;
}
