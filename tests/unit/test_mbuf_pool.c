/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data plane's mbuf pool (dataplane/mbuf_pool.c) against what DPDK
 * 22.11's net_af_xdp registers as its UMEM: with an af_xdp port, no mbuf
 * the pool hands out may lie outside it. Under --no-huge (4 KiB pages) a
 * default pool pads every page end (2,368-byte objects, one per page), so
 * about two fifths of it would lie outside: the case the quarantine is for.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_mbuf.h>
#include <rte_mempool.h>

#include "mbuf_pool.h"
#include "sy_config.h"
#include "test_eal.h"

#define N 1023

static void
one_port(struct sy_config *cfg, const char *devargs, const char *pci)
{
	struct sy_port_config *p = &cfg->ports[cfg->n_ports++];

	snprintf(p->name, sizeof(p->name), "p%u", cfg->n_ports);
	snprintf(p->devargs, sizeof(p->devargs), "%s", devargs);
	snprintf(p->pci, sizeof(p->pci), "%s", pci);
}

static void
count_outside(struct rte_mempool *mp, void *arg, void *obj, unsigned idx)
{
	(void)idx;
	*(unsigned *)arg += !sy_mbuf_in_af_xdp_umem(mp, obj);
}

/* Takes every mbuf the pool gives, checks each against the UMEM, puts them
 * back; returns how many it got. */
static unsigned
drain_and_check(struct rte_mempool *mp)
{
	static void *objs[N];
	unsigned got = 0, i;

	while (got < N && rte_mempool_get(mp, &objs[got]) == 0)
		got++;
	for (i = 0; i < got; i++)
		assert_true(sy_mbuf_in_af_xdp_umem(mp, objs[i]));
	rte_mempool_put_bulk(mp, objs, got);
	return got;
}

/* The pool for two ports (devargs or PCI address each), with how many of
 * its objects lie outside the af_xdp UMEM. */
static struct rte_mempool *
pool_for(const char *dev0, const char *pci0, const char *dev1, const char *pci1,
	 unsigned *outside)
{
	struct sy_config cfg = { 0 };
	struct rte_mempool *mp;
	char err[256];

	one_port(&cfg, dev0, pci0);
	one_port(&cfg, dev1, pci1);
	mp = sy_mbuf_pool_create(&cfg, N, 0, err, sizeof(err));
	assert_non_null(mp);
	*outside = 0;
	rte_mempool_obj_iter(mp, count_outside, outside);
	return mp;
}

/* af_xdp and nothing that DMAs: one run of objects, nothing outside. */
static void
test_af_xdp_only_pool_is_all_inside(void **state)
{
	unsigned outside;
	struct rte_mempool *mp = pool_for("net_af_xdp0,iface=a", "", "net_af_xdp1,iface=b", "",
					  &outside);

	(void)state;
	assert_true(mp->flags & RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	assert_int_equal(outside, 0);
	assert_int_equal(sy_mbuf_pool_quarantined(), 0);
	assert_int_equal(drain_and_check(mp), N);
	sy_mbuf_pool_free(mp);
}

/* af_xdp beside a PCI port: the default layout (objects within pages), and
 * the mbufs past the driver's range kept out of use. */
static void
test_af_xdp_with_pci_quarantines_the_rest(void **state)
{
	unsigned outside;
	struct rte_mempool *mp = pool_for("net_af_xdp0,iface=a", "", "", "0000:00:00.0", &outside);

	(void)state;
	assert_false(mp->flags & RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	/* 4 KiB pages: a third or more of the objects lie past the range. */
	assert_true(outside > N / 3);
	assert_int_equal(sy_mbuf_pool_quarantined(), outside);
	assert_int_equal(rte_mempool_avail_count(mp), N - outside);
	assert_int_equal(drain_and_check(mp), N - outside);
	sy_mbuf_pool_free(mp);
	assert_int_equal(sy_mbuf_pool_quarantined(), 0);
}

/* No af_xdp port: the pool as rte_pktmbuf_pool_create makes it, all usable. */
static void
test_without_af_xdp_nothing_is_kept(void **state)
{
	struct sy_config cfg = { 0 };
	struct rte_mempool *mp;
	struct rte_mbuf *m;
	char err[256];

	(void)state;
	one_port(&cfg, "net_af_packet0,iface=a", "");
	mp = sy_mbuf_pool_create(&cfg, N, 0, err, sizeof(err));
	assert_non_null(mp);
	assert_false(mp->flags & RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	assert_int_equal(sy_mbuf_pool_quarantined(), 0);
	assert_int_equal(rte_mempool_avail_count(mp), N);
	/* Real pktmbufs: allocated, appended to, freed. */
	m = rte_pktmbuf_alloc(mp);
	assert_non_null(m);
	assert_int_equal(rte_pktmbuf_data_room_size(mp), RTE_MBUF_DEFAULT_BUF_SIZE);
	assert_non_null(rte_pktmbuf_append(m, 1500));
	rte_pktmbuf_free(m);
	sy_mbuf_pool_free(mp);
}

/* The in-use count: what is out of the pool, the lcore's cache counted as
 * in it; an mbuf put back twice takes it below 0 (rte_mempool_in_use_count
 * would cap that at 0 and hide it). */
static void
test_in_use_counts_what_is_out_and_a_double_free(void **state)
{
	struct sy_config cfg = { 0 };
	struct rte_mbuf *m[10];
	struct rte_mempool *mp;
	char err[256];
	unsigned i;

	(void)state;
	one_port(&cfg, "net_af_packet0,iface=a", "");
	mp = sy_mbuf_pool_create(&cfg, N, 32, err, sizeof(err));
	assert_non_null(mp);
	assert_int_equal(sy_mbuf_pool_in_use(mp), 0);
	for (i = 0; i < 10; i++)
		assert_non_null(m[i] = rte_pktmbuf_alloc(mp));
	assert_int_equal(sy_mbuf_pool_in_use(mp), 10);
	for (i = 0; i < 9; i++)
		rte_pktmbuf_free(m[i]);
	assert_int_equal(sy_mbuf_pool_in_use(mp), 1);
	rte_pktmbuf_free(m[9]);
	assert_int_equal(sy_mbuf_pool_in_use(mp), 0);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
	/* The bug the count is there to show: the same mbuf freed again. */
	rte_mempool_put(mp, m[9]);
	assert_int_equal(sy_mbuf_pool_in_use(mp), -1);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
	/* Take the duplicate back out before the pool is freed. */
	assert_non_null(rte_pktmbuf_alloc(mp));
	assert_int_equal(sy_mbuf_pool_in_use(mp), 0);
	sy_mbuf_pool_free(mp);
}

static int
group_setup(void **state)
{
	(void)state;
	return sy_test_eal_init("test_mbuf_pool") < 0 ? -1 : 0;
}

static int
group_teardown(void **state)
{
	(void)state;
	sy_test_eal_fini();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_af_xdp_only_pool_is_all_inside),
		cmocka_unit_test(test_af_xdp_with_pci_quarantines_the_rest),
		cmocka_unit_test(test_without_af_xdp_nothing_is_kept),
		cmocka_unit_test(test_in_use_counts_what_is_out_and_a_double_free),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
