/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The Internet checksum (dataplane/net/cksum.h) against RFC 1071's plain
 * 16-bit loop, on buffers, on mbuf chains cut at odd places and on whole
 * IPv4/TCP segments; and the send queue's clone of a byte range
 * (dataplane/tcp/mbuf_queue.h), whose walk starts where the last one began,
 * against the bytes that were queued, while the front is acknowledged away.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_tcp.h>

#include "net/cksum.h"
#include "tcp/mbuf_queue.h"
#include "test_eal.h"

#define NB_MBUF 4095

static struct rte_mempool *mp;

/* RFC 1071 4.1: 16-bit words in host order, an odd last byte padded. */
static uint16_t
ref_sum(const uint8_t *p, size_t len, uint32_t sum)
{
	while (len > 1) {
		uint16_t v;

		memcpy(&v, p, 2);
		sum += v;
		p += 2;
		len -= 2;
	}
	if (len > 0) {
		uint16_t v = 0;

		memcpy(&v, p, 1);
		sum += v;
	}
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)sum;
}

static void
fill(uint8_t *p, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		p[i] = (uint8_t)rand();
}

/* A chain holding data[0..n) in pieces of 1..max bytes, the first at least
 * `first_min` (or all there is). */
static struct rte_mbuf *
chain_of(const uint8_t *data, size_t n, unsigned max, size_t first_min)
{
	struct rte_mbuf *first = NULL;
	size_t at = 0;

	while (at < n || first == NULL) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		size_t take = 1 + (size_t)rand() % max;

		assert_non_null(m);
		if (first == NULL && take < first_min)
			take = first_min;
		if (take > n - at)
			take = n - at;
		memcpy(rte_pktmbuf_append(m, (uint16_t)take), data + at, take);
		at += take;
		if (first == NULL) {
			first = m;
		} else {
			assert_int_equal(rte_pktmbuf_chain(first, m), 0);
		}
	}
	return first;
}

static void
test_buffers(void **state)
{
	static uint8_t buf[9100];
	size_t len, align;

	(void)state;
	srand(1);
	for (len = 0; len <= 300; len++)
		for (align = 0; align < 8; align++) {
			fill(buf + align, len);
			assert_int_equal(sy_cksum_fold(sy_cksum_add(0, buf + align, len)),
					 ref_sum(buf + align, len, 0));
		}
	for (len = 1400; len <= 1500; len++) {
		fill(buf + 3, len);
		assert_int_equal(sy_cksum_fold(sy_cksum_add(0x1234, buf + 3, len)),
				 ref_sum(buf + 3, len, 0x1234));
	}
	/* All ones: the largest words, carries everywhere. */
	memset(buf, 0xff, sizeof(buf));
	assert_int_equal(sy_cksum_fold(sy_cksum_add(0xffffffffull, buf, 9000)),
			 ref_sum(buf, 9000, 0xffff));
	/* And agrees with DPDK's own. */
	fill(buf, 1448);
	assert_int_equal(sy_cksum_fold(sy_cksum_add(0, buf, 1448)), rte_raw_cksum(buf, 1448));
}

static void
test_chains(void **state)
{
	static uint8_t data[4000];
	unsigned round;

	(void)state;
	srand(2);
	for (round = 0; round < 400; round++) {
		size_t n = (size_t)rand() % sizeof(data), skip, len;
		struct rte_mbuf *c;

		fill(data, n);
		c = chain_of(data, n, round % 2 ? 7 : 1500, 1);
		skip = n > 0 ? (size_t)rand() % (rte_pktmbuf_data_len(c) + 1) : 0;
		len = n - skip > 0 ? (size_t)rand() % (n - skip + 1) : 0;
		assert_int_equal(sy_cksum_chain(0, c, (uint32_t)skip, (uint32_t)len),
				 ref_sum(data + skip, len, 0));
		assert_int_equal(sy_cksum_chain(0, c, 0, UINT32_MAX), ref_sum(data, n, 0));
		rte_pktmbuf_free(c);
	}
}

/* An IPv4/TCP segment with `payload` bytes and a right checksum, as a chain. */
static struct rte_mbuf *
segment(uint8_t *pkt, size_t payload, unsigned max)
{
	struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)pkt;
	struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(ip + 1);
	size_t tlen = sizeof(*ip) + sizeof(*th) + payload;

	memset(pkt, 0, sizeof(*ip) + sizeof(*th));
	ip->version_ihl = RTE_IPV4_VHL_DEF;
	ip->total_length = rte_cpu_to_be_16((uint16_t)tlen);
	ip->next_proto_id = IPPROTO_TCP;
	ip->src_addr = rte_cpu_to_be_32(0xc6120002);
	ip->dst_addr = rte_cpu_to_be_32(0xc6120001);
	th->src_port = rte_cpu_to_be_16(40000);
	th->dst_port = rte_cpu_to_be_16(80);
	th->data_off = 5 << 4;
	fill((uint8_t *)(th + 1), payload);
	th->cksum = (uint16_t)~ref_sum((uint8_t *)th, tlen - sizeof(*ip), rte_ipv4_phdr_cksum(ip, 0));
	/* The first piece holds the whole IPv4 header, as after RX. */
	return chain_of(pkt, tlen, max, sizeof(*ip));
}

static void
test_segments(void **state)
{
	static uint8_t pkt[2000];
	size_t payload;

	(void)state;
	srand(3);
	for (payload = 0; payload <= 1460; payload += 1 + (size_t)rand() % 13) {
		struct rte_mbuf *m = segment(pkt, payload, payload % 2 ? 23 : 2000);
		struct rte_mbuf *last = rte_pktmbuf_lastseg(m);

		assert_true(sy_l4_cksum_ok(m));
		if (payload > 0) {
			/* One payload bit wrong. */
			uint8_t *b = rte_pktmbuf_mtod_offset(last, uint8_t *, last->data_len - 1);

			*b ^= 0x10;
			assert_false(sy_l4_cksum_ok(m));
			/* The port's verdict is taken as it is. */
			m->ol_flags |= RTE_MBUF_F_RX_L4_CKSUM_GOOD;
			assert_true(sy_l4_cksum_ok(m));
			*b ^= 0x10;
			m->ol_flags = (m->ol_flags & ~RTE_MBUF_F_RX_L4_CKSUM_MASK) |
				      RTE_MBUF_F_RX_L4_CKSUM_BAD;
			assert_false(sy_l4_cksum_ok(m));
		}
		rte_pktmbuf_free(m);
	}
	/* Bytes past the IPv4 total length (Ethernet padding) are not summed. */
	{
		struct rte_mbuf *m = segment(pkt, 5, 2000);

		memset(rte_pktmbuf_append(m, 9), 0xab, 9);
		assert_true(sy_l4_cksum_ok(m));
		rte_pktmbuf_free(m);
	}
}

static void
expect_range(struct sy_mq *q, const uint8_t *stream, uint32_t base, uint32_t off, uint32_t len)
{
	static uint8_t got[300000];
	struct rte_mbuf *c = sy_mq_clone_range(q, off, len, mp);
	const void *p;

	assert_non_null(c);
	assert_int_equal(c->pkt_len, len);
	p = rte_pktmbuf_read(c, 0, len, got);
	assert_non_null(p);
	assert_memory_equal(p, stream + base + off, len);
	rte_pktmbuf_free(c);
}

static void
test_clone_range_walks_on(void **state)
{
	static uint8_t stream[300000];
	struct sy_mq q;
	uint32_t queued = 0, acked = 0, round;

	(void)state;
	srand(4);
	fill(stream, sizeof(stream));
	sy_mq_init(&q);
	for (round = 0; round < 300; round++) {
		uint32_t add = (uint32_t)rand() % 3000, off, mss = 1 + (uint32_t)rand() % 1448;

		/* The application writes (in pieces up to a record's 2 KB). */
		if (queued + add > sizeof(stream))
			break;
		assert_int_equal(sy_mq_append_bytes(&q, stream + queued, add, mp), 0);
		queued += add;
		/* A window goes out at rising offsets... */
		for (off = 0; off < q.bytes; off += mss)
			expect_range(&q, stream, acked, off,
				     q.bytes - off < mss ? q.bytes - off : mss);
		/* ...a retransmission from the front and one from the middle... */
		if (q.bytes > 0) {
			expect_range(&q, stream, acked, 0, q.bytes < mss ? q.bytes : mss);
			off = (uint32_t)rand() % q.bytes;
			expect_range(&q, stream, acked, off, q.bytes - off);
		}
		/* ...and part of it is acknowledged, at odd places. */
		if (q.bytes > 0) {
			uint32_t n = (uint32_t)rand() % (q.bytes + 1);

			sy_mq_drop(&q, n);
			acked += n;
		}
		assert_int_equal(q.bytes, queued - acked);
	}
	/* Moving the front away (a proxy hands bytes on) keeps the walk right. */
	{
		struct sy_mq dst;

		sy_mq_init(&dst);
		if (q.bytes > 0)
			expect_range(&q, stream, acked, q.bytes / 2, q.bytes - q.bytes / 2);
		assert_int_equal(sy_mq_move(&dst, &q, q.bytes / 3, mp), 0);
		acked += dst.bytes;
		if (q.bytes > 0)
			expect_range(&q, stream, acked, q.bytes / 2, q.bytes - q.bytes / 2);
		sy_mq_free(&dst);
	}
	sy_mq_free(&q);
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

/* A queue of three 1000-byte segments of stream, its front at off. */
static void
three_segments(struct sy_mq *q, const uint8_t *stream, uint32_t off)
{
	unsigned i;

	sy_mq_init(q);
	for (i = 0; i < 3; i++) {
		struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
		char *d;

		assert_non_null(m);
		d = rte_pktmbuf_append(m, 1000);
		assert_non_null(d);
		memcpy(d, stream + i * 1000, 1000);
		sy_mq_append(q, m);
	}
	sy_mq_drop(q, off);
}

/* All of the pool's free mbufs but `keep` taken, into held; their count. */
static unsigned
hold_all_but(struct rte_mbuf **held, unsigned keep)
{
	unsigned n = 0;

	while ((held[n] = rte_pktmbuf_alloc(mp)) != NULL)
		n++;
	while (keep-- > 0 && n > 0)
		rte_pktmbuf_free(held[--n]);
	return n;
}

/* A move that needs more parts than the pool has moves nothing (the proxy
 * counts a request body's framing as its bytes move, and tries a failed
 * move again from the same place); with the parts it moves all of it. */
static void
test_move_all_or_nothing(void **state)
{
	static struct rte_mbuf *held[NB_MBUF];
	static uint8_t stream[3000], got[3000];
	const struct {
		uint32_t off, n;
		unsigned parts;
	} cases[] = {
		{ 0, 2500, 1 },   /* two whole segments, then part of the third */
		{ 200, 2500, 2 }, /* part of the first, the second, part of the third */
		{ 200, 300, 1 },  /* inside the first */
	};
	unsigned c, n, i;

	(void)state;
	fill(stream, sizeof(stream));
	for (c = 0; c < RTE_DIM(cases); c++) {
		struct sy_mq q, dst;

		three_segments(&q, stream, cases[c].off);
		sy_mq_init(&dst);
		n = hold_all_but(held, cases[c].parts - 1);
		assert_int_equal(sy_mq_move(&dst, &q, cases[c].n, mp), -ENOBUFS);
		assert_int_equal(dst.bytes, 0);
		assert_int_equal(q.bytes, 3000 - cases[c].off);
		sy_mq_copy(&q, 0, q.bytes, got);
		assert_memory_equal(got, stream + cases[c].off, q.bytes);
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(held[i]);
		n = hold_all_but(held, cases[c].parts);
		assert_int_equal(sy_mq_move(&dst, &q, cases[c].n, mp), 0);
		assert_int_equal(dst.bytes, cases[c].n);
		assert_int_equal(q.bytes, 3000 - cases[c].off - cases[c].n);
		sy_mq_copy(&dst, 0, dst.bytes, got);
		assert_memory_equal(got, stream + cases[c].off, cases[c].n);
		sy_mq_copy(&q, 0, q.bytes, got);
		assert_memory_equal(got, stream + cases[c].off + cases[c].n, q.bytes);
		for (i = 0; i < n; i++)
			rte_pktmbuf_free(held[i]);
		sy_mq_free(&q);
		sy_mq_free(&dst);
	}
	assert_int_equal(rte_mempool_in_use_count(mp), 0);
}

static int
setup(void **state)
{
	(void)state;
	if (sy_test_eal_init("test_cksum") < 0)
		return -1;
	mp = rte_pktmbuf_pool_create("cksum", NB_MBUF, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	return mp == NULL ? -1 : 0;
}

static int
teardown(void **state)
{
	(void)state;
	rte_mempool_free(mp);
	sy_test_eal_fini();
	return 0;
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buffers),
		cmocka_unit_test(test_chains),
		cmocka_unit_test(test_segments),
		cmocka_unit_test(test_clone_range_walks_on),
		cmocka_unit_test(test_move_all_or_nothing),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
