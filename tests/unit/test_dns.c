/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data plane's DNS responder (dataplane/dns/dns.c, sy_dns_answer):
 * answers from a scripted zone table, parsed back field by field: the VIPs
 * of a shard for any name below it (turned round robin; IPv4 ones as A,
 * IPv6 ones as AAAA, both for ANY), SOA and NS at the
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
#include "sy_addr.h"
#include "sy_dns.h"

static struct sy_dns_table *
table(void)
{
	struct sy_dns_table *t = calloc(1, sizeof(*t) + 4 * sizeof(t->z[0]));

	t->serial = 7;
	t->n = 4;
	strcpy(t->z[0].name, "empty.apps.test");
	t->z[0].name_len = (uint16_t)strlen(t->z[0].name);
	strcpy(t->z[1].name, "shard1.apps.test");
	t->z[1].name_len = (uint16_t)strlen(t->z[1].name);
	t->z[1].n_vips = 2;
	t->z[1].vips[0] = inet_addr("198.18.0.80");
	t->z[1].vips[1] = inet_addr("198.18.0.81");
	/* Both families, and IPv6 only. */
	strcpy(t->z[2].name, "dual.apps.test");
	t->z[2].name_len = (uint16_t)strlen(t->z[2].name);
	t->z[2].n_vips = 1;
	t->z[2].vips[0] = inet_addr("198.18.0.82");
	t->z[2].n_vips6 = 2;
	assert_int_equal(inet_pton(AF_INET6, "2001:2::80", t->z[2].vips6[0]), 1);
	assert_int_equal(inet_pton(AF_INET6, "2001:2::81", t->z[2].vips6[1]), 1);
	strcpy(t->z[3].name, "six.apps.test");
	t->z[3].name_len = (uint16_t)strlen(t->z[3].name);
	t->z[3].n_vips6 = 1;
	assert_int_equal(inet_pton(AF_INET6, "2001:2::90", t->z[3].vips6[0]), 1);
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

/* The answers' AAAA addresses, in order, as text; the types of all the
 * answers into types (type 28 always with rdlength 16). */
static unsigned
aaaa_records(const uint8_t *a, unsigned len, unsigned qlen, char out[][INET6_ADDRSTRLEN],
	     uint16_t *types)
{
	unsigned off = qlen, i, n = count(a, 0), k = 0;

	for (i = 0; i < n && off + 12 <= len; i++) {
		uint16_t type = (uint16_t)(a[off + 2] << 8 | a[off + 3]);
		uint16_t rdlen = (uint16_t)(a[off + 10] << 8 | a[off + 11]);

		assert_int_equal(a[off], 0xc0); /* the owner: a pointer to the question's name */
		assert_int_equal(a[off + 1], 12);
		assert_int_equal(a[off + 4] << 8 | a[off + 5], 1);                  /* IN */
		assert_int_equal(a[off + 6] << 24 | a[off + 7] << 16 | a[off + 8] << 8 | a[off + 9],
				 SY_DNS_TTL);
		types[i] = type;
		if (type == 28) {
			assert_int_equal(rdlen, 16);
			assert_true(off + 12 + 16 <= len);
			assert_non_null(inet_ntop(AF_INET6, a + off + 12, out[k++], INET6_ADDRSTRLEN));
		}
		off += 12 + rdlen;
	}
	assert_int_equal(off, len); /* nothing after the answers */
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

/* NODATA: NOERROR, no answer, the SOA in authority (after the question). */
static void
expect_nodata(const uint8_t *a, unsigned qlen)
{
	assert_int_equal(rcode(a), 0);
	assert_int_equal(count(a, 0), 0);
	assert_int_equal(count(a, 1), 1);
	assert_int_equal(a[qlen + 3], 6);
}

/* IPv6 VIPs: AAAA answers (type 28, rdlength 16), turned round like A;
 * ANY has both; a family the shard has no VIP of is NODATA. */
static void
test_aaaa(void **state)
{
	struct sy_dns_table *t = table();
	uint8_t q[600], a[600];
	char six[16][INET6_ADDRSTRLEN];
	uint16_t types[32];
	uint32_t ips[16];
	unsigned ql, n;

	(void)state;
	ql = query(q, "www.dual.apps.test", 28, 0x01);
	n = sy_dns_answer(q, ql, t, inet_addr("198.18.0.1"), 0, a, sizeof(a));
	assert_int_equal(rcode(a), 0);
	assert_int_equal(a[2] & 0x04, 0x04); /* AA */
	assert_int_equal(count(a, 0), 2);
	assert_int_equal(count(a, 1), 0);
	assert_int_equal(n, ql + 2 * 28);
	assert_int_equal(aaaa_records(a, n, ql, six, types), 2);
	assert_int_equal(types[0], 28);
	assert_string_equal(six[0], "2001:2::80");
	assert_string_equal(six[1], "2001:2::81");
	/* The address bytes as they are on the wire. */
	assert_memory_equal(a + ql + 12, t->z[2].vips6[0], 16);
	/* The next turn starts at the second. */
	n = sy_dns_answer(q, ql, t, inet_addr("198.18.0.1"), 1, a, sizeof(a));
	assert_int_equal(aaaa_records(a, n, ql, six, types), 2);
	assert_string_equal(six[0], "2001:2::81");
	assert_string_equal(six[1], "2001:2::80");
	/* A at the same name: only the IPv4 VIP. */
	ql = query(q, "www.dual.apps.test", 1, 0);
	n = sy_dns_answer(q, ql, t, inet_addr("198.18.0.1"), 0, a, sizeof(a));
	assert_int_equal(count(a, 0), 1);
	assert_int_equal(a_records(a, n, ql, ips), 1);
	assert_int_equal(ips[0], inet_addr("198.18.0.82"));
	/* ANY: the A records, then the AAAA ones. */
	ql = query(q, "www.dual.apps.test", 255, 0);
	n = sy_dns_answer(q, ql, t, inet_addr("198.18.0.1"), 1, a, sizeof(a));
	assert_int_equal(rcode(a), 0);
	assert_int_equal(count(a, 0), 3);
	assert_int_equal(n, ql + 16 + 2 * 28);
	assert_int_equal(aaaa_records(a, n, ql, six, types), 2);
	assert_int_equal(types[0], 1);
	assert_int_equal(types[1], 28);
	assert_int_equal(types[2], 28);
	assert_string_equal(six[0], "2001:2::81");
	assert_int_equal(a_records(a, n, ql, ips), 1);
	assert_int_equal(ips[0], inet_addr("198.18.0.82"));
	/* IPv6 only: AAAA answered, A is NODATA (no NXDOMAIN: the name
	 * exists), the SOA in authority. */
	ql = query(q, "a.b.six.apps.test", 28, 0);
	n = sy_dns_answer(q, ql, t, 0, 5, a, sizeof(a));
	assert_int_equal(aaaa_records(a, n, ql, six, types), 1);
	assert_string_equal(six[0], "2001:2::90");
	ql = query(q, "www.six.apps.test", 1, 0);
	n = sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a));
	expect_nodata(a, ql);
	/* IPv4 only: AAAA is NODATA with the SOA. */
	ql = query(q, "www.shard1.apps.test", 28, 0);
	n = sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a));
	expect_nodata(a, ql);
	/* ns1 has no AAAA (the responder listens on IPv4): NODATA. */
	ql = query(q, "ns1.dual.apps.test", 28, 0);
	n = sy_dns_answer(q, ql, t, inet_addr("198.18.0.1"), 0, a, sizeof(a));
	expect_nodata(a, ql);
	free(t);
}

/* Sixteen IPv6 VIPs: a short name's AAAA answer fits in 512 bytes; a long
 * name's does not and is sent truncated (TC, no records). */
static void
test_aaaa_sixteen(void **state)
{
	struct sy_dns_table *t = table();
	uint8_t q[600], a[600];
	char six[16][INET6_ADDRSTRLEN];
	uint16_t types[32];
	unsigned ql, n, i;

	(void)state;
	t->z[3].n_vips6 = SY_DNS_VIPS_MAX;
	for (i = 0; i < SY_DNS_VIPS_MAX; i++) {
		t->z[3].vips6[i][0] = 0x20;
		t->z[3].vips6[i][1] = 0x01;
		t->z[3].vips6[i][3] = 0x02;
		t->z[3].vips6[i][15] = (uint8_t)(0x80 + i);
	}
	ql = query(q, "www.six.apps.test", 28, 0);
	n = sy_dns_answer(q, ql, t, 0, 3, a, sizeof(a));
	assert_true(n <= 512);
	assert_int_equal(a[2] & 0x02, 0);
	assert_int_equal(aaaa_records(a, n, ql, six, types), SY_DNS_VIPS_MAX);
	assert_string_equal(six[0], "2001:2::83");
	assert_string_equal(six[15], "2001:2::82");
	ql = query(q, "a-rather-long-label-of-the-client.and-one-more.six.apps.test", 28, 0);
	n = sy_dns_answer(q, ql, t, 0, 0, a, sizeof(a));
	assert_int_equal(n, ql);
	assert_int_equal(a[2] & 0x02, 0x02); /* TC */
	assert_int_equal(count(a, 0), 0);
	free(t);
}

/* VIP failover: only the VIPs a master serves are answered (vrrp/vrrp.h),
 * IPv4 and IPv6 alike. */
static bool
only_81(const void *ctx, const struct sy_addr *vip)
{
	struct sy_addr six;

	(void)ctx;
	if (vip->family == AF_INET6)
		return sy_addr_parse("2001:2::81", &six) == 0 && sy_addr_eq(vip, &six);
	return vip->v4 == inet_addr("198.18.0.81");
}

static bool
none(const void *ctx, const struct sy_addr *vip)
{
	(void)ctx;
	(void)vip;
	return false;
}

static bool
six_only(const void *ctx, const struct sy_addr *vip)
{
	(void)ctx;
	return vip->family == AF_INET6;
}

static void
test_active_vips(void **state)
{
	const struct sy_dns_self self4 = { .v4 = inet_addr("198.18.0.1") };
	struct sy_dns_table *t = table();
	uint8_t q[600], a[600];
	char six[16][INET6_ADDRSTRLEN];
	uint16_t types[32];
	uint32_t ips[16];
	unsigned ql, n, rot;

	(void)state;
	ql = query(q, "www.shard1.apps.test", 1, 0);
	for (rot = 0; rot < 3; rot++) {
		n = sy_dns_answer_active(q, ql, t, &self4, rot, only_81, NULL, a,
					 sizeof(a));
		assert_int_equal(rcode(a), 0);
		assert_int_equal(a_records(a, n, ql, ips), 1);
		assert_true(ips[0] == inet_addr("198.18.0.81"));
	}
	/* None active: as a shard without VIPs. */
	n = sy_dns_answer_active(q, ql, t, &self4, 0, none, NULL, a, sizeof(a));
	assert_int_equal(rcode(a), 3);
	assert_int_equal(count(a, 0), 0);
	/* IPv6 VIPs follow their masters as IPv4 ones do: AAAA has only the
	 * active one, in every turn. */
	ql = query(q, "www.dual.apps.test", 28, 0);
	for (rot = 0; rot < 3; rot++) {
		n = sy_dns_answer_active(q, ql, t, &self4, rot, only_81, NULL, a,
					 sizeof(a));
		assert_int_equal(rcode(a), 0);
		assert_int_equal(aaaa_records(a, n, ql, six, types), 1);
		assert_string_equal(six[0], "2001:2::81");
	}
	/* None of either family active: as a shard without VIPs. */
	n = sy_dns_answer_active(q, ql, t, &self4, 0, none, NULL, a, sizeof(a));
	assert_int_equal(rcode(a), 3);
	assert_int_equal(count(a, 0), 0);
	/* An IPv6 VIP active and no IPv4 one: the name is there, A is
	 * NODATA (not NXDOMAIN) with the SOA. */
	ql = query(q, "www.six.apps.test", 1, 0);
	n = sy_dns_answer_active(q, ql, t, &self4, 0, six_only, NULL, a, sizeof(a));
	assert_int_equal(rcode(a), 0);
	assert_int_equal(count(a, 0), 0);
	assert_int_equal(count(a, 1), 1);
	ql = query(q, "www.six.apps.test", 28, 0);
	n = sy_dns_answer_active(q, ql, t, &self4, 0, six_only, NULL, a, sizeof(a));
	assert_int_equal(aaaa_records(a, n, ql, six, types), 1);
	assert_string_equal(six[0], "2001:2::90");
	free(t);
}

/* ns1.<zone> names the responder's own addresses, of the family asked:
 * an IPv6-only responder answers AAAA and NODATA for A, a dual one both. */
static void
test_ns1_families(void **state)
{
	struct sy_dns_table *t = table();
	struct sy_dns_self six = { .v6_on = true }, dual = { .v4 = inet_addr("198.18.0.1"),
							       .v6_on = true };
	uint8_t q[600], a[600];
	char addrs[16][INET6_ADDRSTRLEN];
	uint16_t types[32];
	uint32_t ips[16];
	unsigned ql, n;

	(void)state;
	assert_int_equal(inet_pton(AF_INET6, "2001:2::53", six.v6), 1);
	memcpy(dual.v6, six.v6, 16);
	ql = query(q, "ns1.shard1.apps.test", 28, 0);
	n = sy_dns_answer_active(q, ql, t, &six, 0, NULL, NULL, a, sizeof(a));
	assert_int_equal(rcode(a), 0);
	assert_int_equal(aaaa_records(a, n, ql, addrs, types), 1);
	assert_string_equal(addrs[0], "2001:2::53");
	ql = query(q, "ns1.shard1.apps.test", 1, 0);
	n = sy_dns_answer_active(q, ql, t, &six, 0, NULL, NULL, a, sizeof(a));
	assert_int_equal(rcode(a), 0);
	assert_int_equal(count(a, 0), 0); /* NODATA: no IPv4 address */
	assert_int_equal(count(a, 1), 1);
	ql = query(q, "ns1.shard1.apps.test", 255, 0);
	n = sy_dns_answer_active(q, ql, t, &dual, 0, NULL, NULL, a, sizeof(a));
	assert_int_equal(count(a, 0), 2);
	assert_int_equal(aaaa_records(a, n, ql, addrs, types), 1);
	assert_int_equal(types[0], 1);
	assert_int_equal(types[1], 28);
	assert_string_equal(addrs[0], "2001:2::53");
	ql = query(q, "ns1.shard1.apps.test", 1, 0);
	n = sy_dns_answer_active(q, ql, t, &dual, 0, NULL, NULL, a, sizeof(a));
	assert_int_equal(a_records(a, n, ql, ips), 1);
	assert_int_equal(ips[0], inet_addr("198.18.0.1"));
	free(t);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_answers),
		cmocka_unit_test(test_aaaa),
		cmocka_unit_test(test_aaaa_sixteen),
		cmocka_unit_test(test_active_vips),
		cmocka_unit_test(test_ns1_families),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
