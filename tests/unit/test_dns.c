/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data plane's DNS responder (dataplane/dns/dns.c, sy_dns_answer):
 * answers from a scripted zone table, parsed back field by field: the VIPs
 * of a shard for any name below it (turned round robin), SOA and NS at the
 * apex, ns1's own address, NODATA with the SOA, NXDOMAIN for a shard
 * without VIPs, REFUSED outside the zones, NOTIMP, FORMERR, and no answer to
 * a response.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include "dns/dns.h"
#include "sy_dns.h"

static struct sy_dns_table *
table(void)
{
	struct sy_dns_table *t = calloc(1, sizeof(*t) + 2 * sizeof(t->z[0]));

	t->serial = 7;
	t->n = 2;
	strcpy(t->z[0].name, "empty.apps.test");
	t->z[0].name_len = (uint16_t)strlen(t->z[0].name);
	strcpy(t->z[1].name, "shard1.apps.test");
	t->z[1].name_len = (uint16_t)strlen(t->z[1].name);
	t->z[1].n_vips = 2;
	t->z[1].vips[0] = inet_addr("198.18.0.80");
	t->z[1].vips[1] = inet_addr("198.18.0.81");
	return t;
}

/* A query for name (dotted), type, with id 0x1234 and RD. */
static unsigned
query(uint8_t *q, const char *name, uint16_t type, uint8_t flags2)
{
	unsigned n = 12;
	const char *p = name;

	memset(q, 0, 12);
	q[0] = 0x12;
	q[1] = 0x34;
	q[2] = flags2;
	q[5] = 1;
	while (*p) {
		const char *dot = strchr(p, '.');
		size_t l = dot ? (size_t)(dot - p) : strlen(p);

		q[n++] = (uint8_t)l;
		memcpy(q + n, p, l);
		n += (unsigned)l;
		p += l + (dot ? 1 : 0);
	}
	q[n++] = 0;
	q[n++] = (uint8_t)(type >> 8);
	q[n++] = (uint8_t)type;
	q[n++] = 0;
	q[n++] = 1;
	return n;
}

static unsigned
rcode(const uint8_t *a)
{
	return a[3] & 0x0f;
}

static unsigned
count(const uint8_t *a, int which) /* 0 answer, 1 authority */
{
	return (unsigned)(a[6 + 2 * which] << 8 | a[7 + 2 * which]);
}

/* The answers' A addresses, in order (after the question of qlen bytes). */
static unsigned
a_records(const uint8_t *a, unsigned len, unsigned qlen, uint32_t *out)
{
	unsigned off = qlen, i, n = count(a, 0), k = 0;

	for (i = 0; i < n && off + 12 <= len; i++) {
		uint16_t type = (uint16_t)(a[off + 2] << 8 | a[off + 3]);
		uint16_t rdlen = (uint16_t)(a[off + 10] << 8 | a[off + 11]);

		assert_int_equal(a[off], 0xc0); /* the owner: a pointer */
		if (type == 1) {
			assert_int_equal(rdlen, 4);
			memcpy(&out[k++], a + off + 12, 4);
		}
		off += 12 + rdlen;
	}
	return k;
}

static void
test_answers(void **state)
{
	struct sy_dns_table *t = table();
	uint8_t q[600], a[600];
	uint32_t ips[16];
	unsigned ql, n;

	(void)state;
	/* A name below the shard: both VIPs, authoritative, the id and RD back. */
	ql = query(q, "www.Shard1.apps.test", 1, 0x01);
	n = sy_dns_answer(q, ql, t, inet_addr("198.18.0.1"), 0, a, sizeof(a));
	assert_true(n > ql);
	assert_int_equal(a[0], 0x12);
	assert_int_equal(a[1], 0x34);
	assert_int_equal(a[2] & 0x80, 0x80);  /* QR */
	assert_int_equal(a[2] & 0x04, 0x04);  /* AA */
	assert_int_equal(a[2] & 0x01, 0x01);  /* RD copied */
	assert_int_equal(rcode(a), 0);
	assert_int_equal(count(a, 0), 2);
	assert_int_equal(a_records(a, n, ql, ips), 2);
	assert_int_equal(ips[0], inet_addr("198.18.0.80"));
	assert_int_equal(ips[1], inet_addr("198.18.0.81"));
	/* The next turn starts at the second VIP. */
	n = sy_dns_answer(q, ql, t, inet_addr("198.18.0.1"), 1, a, sizeof(a));
	assert_int_equal(a_records(a, n, ql, ips), 2);
	assert_int_equal(ips[0], inet_addr("198.18.0.81"));
	/* ns1: the responder's own address. */
	ql = query(q, "ns1.shard1.apps.test", 1, 0);
	n = sy_dns_answer(q, ql, t, inet_addr("198.18.0.1"), 0, a, sizeof(a));
	assert_int_equal(a_records(a, n, ql, ips), 1);
	assert_int_equal(ips[0], inet_addr("198.18.0.1"));
	/* The apex: SOA, NS; its A is NODATA (the SOA in authority). */
	ql = query(q, "shard1.apps.test", 6, 0);
	n = sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a));
	assert_int_equal(rcode(a), 0);
	assert_int_equal(count(a, 0), 1);
	assert_int_equal(a[ql + 3], 6);
	ql = query(q, "shard1.apps.test", 2, 0);
	n = sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a));
	assert_int_equal(count(a, 0), 1);
	assert_int_equal(a[ql + 3], 2);
	ql = query(q, "shard1.apps.test", 1, 0);
	n = sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a));
	assert_int_equal(rcode(a), 0);
	assert_int_equal(count(a, 0), 0);
	assert_int_equal(count(a, 1), 1);
	/* AAAA below: NODATA. */
	ql = query(q, "www.shard1.apps.test", 28, 0);
	n = sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a));
	assert_int_equal(rcode(a), 0);
	assert_int_equal(count(a, 0), 0);
	assert_int_equal(count(a, 1), 1);
	/* A shard without VIPs: no wildcard, NXDOMAIN with the SOA. */
	ql = query(q, "www.empty.apps.test", 1, 0);
	n = sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a));
	assert_int_equal(rcode(a), 3);
	assert_int_equal(count(a, 1), 1);
	/* Outside every zone, and a name that only ends like one: REFUSED. */
	ql = query(q, "www.example.com", 1, 0);
	n = sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a));
	assert_int_equal(rcode(a), 5);
	assert_int_equal(a[2] & 0x04, 0);
	ql = query(q, "xshard1.apps.test", 1, 0);
	n = sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a));
	assert_int_equal(rcode(a), 5);
	/* No table yet: REFUSED. */
	ql = query(q, "www.shard1.apps.test", 1, 0);
	n = sy_dns_answer(q, ql, NULL, 0, 0, a, sizeof(a));
	assert_int_equal(rcode(a), 5);
	/* Not a query (opcode 2, STATUS): NOTIMP. A response: no answer. */
	ql = query(q, "www.shard1.apps.test", 1, 2 << 3);
	n = sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a));
	assert_int_equal(n, 12);
	assert_int_equal(rcode(a), 4);
	ql = query(q, "www.shard1.apps.test", 1, 0x80);
	assert_int_equal(sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a)), 0);
	/* Malformed: a label running past the end; two questions. */
	ql = query(q, "www.shard1.apps.test", 1, 0);
	q[12] = 60;
	n = sy_dns_answer(q, 20, t, 0, 0, a, sizeof(a));
	assert_int_equal(rcode(a), 1);
	ql = query(q, "www.shard1.apps.test", 1, 0);
	q[5] = 2;
	n = sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a));
	assert_int_equal(rcode(a), 1);
	assert_int_equal(sy_dns_answer(q, 5, t, 0, 0, a, sizeof(a)), 0);
	free(t);
}

/* VIP failover: only the VIPs a master serves are answered (vrrp/vrrp.h). */
static bool
only_81(const void *ctx, uint32_t vip)
{
	(void)ctx;
	return vip == inet_addr("198.18.0.81");
}

static bool
none(const void *ctx, uint32_t vip)
{
	(void)ctx;
	(void)vip;
	return false;
}

static void
test_active_vips(void **state)
{
	struct sy_dns_table *t = table();
	uint8_t q[600], a[600];
	uint32_t ips[16];
	unsigned ql, n, rot;

	(void)state;
	ql = query(q, "www.shard1.apps.test", 1, 0);
	for (rot = 0; rot < 3; rot++) {
		n = sy_dns_answer_active(q, ql, t, inet_addr("198.18.0.1"), rot, only_81, NULL, a,
					 sizeof(a));
		assert_int_equal(rcode(a), 0);
		assert_int_equal(a_records(a, n, ql, ips), 1);
		assert_true(ips[0] == inet_addr("198.18.0.81"));
	}
	/* None active: as a shard without VIPs. */
	n = sy_dns_answer_active(q, ql, t, inet_addr("198.18.0.1"), 0, none, NULL, a, sizeof(a));
	assert_int_equal(rcode(a), 3);
	assert_int_equal(count(a, 0), 0);
	free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_active_vips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
