/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VIP failover's pure halves (dataplane/vrrp/): the VRRPv3 advertisement on
 * the wire (encode, parse, every refusal) and one virtual router's state
 * machine on a virtual clock (microseconds): backup -> master after the
 * master-down interval, a master's adverts, preemption by a higher
 * priority, a lower one ignored by a backup and answered by a master, priority 0 -> takeover after the skew,
 * equal priorities broken by the higher primary address, no preemption,
 * the active-VIP rule the DNS uses, and the priorities of active/active
 * and active/passive.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include "vrrp/vrrp.h"

#define MS 1000ull
#define VIP inet_addr("198.18.0.80")
#define A1 inet_addr("198.18.0.1")
#define A3 inet_addr("198.18.0.3")
#define A4 inet_addr("198.18.0.4")
/* An IPv4 address as the state machine takes it. */
#define V4(a) ((struct sy_addr){ .family = AF_INET, .v4 = (a) })

static struct sy_vrrp_advert
advert(uint8_t vrid, uint8_t prio)
{
	struct sy_vrrp_advert a = { .vrid = vrid, .priority = prio, .interval_cs = 10, .n_addrs = 1 };

	a.addr[0] = VIP;
	return a;
}

/* What advert(7, 240) and advert6(7, 240) say on the wire (p) and once
 * parsed (b), the address aside. */
static void
check_7_240(const uint8_t *p, const struct sy_vrrp_advert *b)
{
	assert_int_equal(p[0], 0x31); /* version 3, type 1 */
	assert_int_equal(p[1], 7);
	assert_int_equal(p[2], 240);
	assert_int_equal(p[3], 1);
	assert_int_equal(p[4] << 8 | p[5], 10); /* centiseconds */
	assert_int_equal(b->vrid, 7);
	assert_int_equal(b->priority, 240);
	assert_int_equal(b->interval_cs, 10);
	assert_int_equal(b->n_addrs, 1);
}

static void
test_wire(void **state)
{
	struct sy_vrrp_advert a = advert(7, 240), b;
	uint8_t p[64];
	unsigned n;

	(void)state;
	n = sy_vrrp_encode(&a, A1, p, sizeof(p));
	assert_int_equal(n, 12);
	assert_int_equal(sy_vrrp_parse(p, n, A1, SY_VRRP_GROUP, 255, &b), SY_VRRP_OK);
	check_7_240(p, &b);
	assert_true(b.addr[0] == VIP);
	/* The checksum covers the pseudo-header: another source fails it. */
	assert_int_equal(sy_vrrp_parse(p, n, A3, SY_VRRP_GROUP, 255, &b), SY_VRRP_BAD_CHECKSUM);
	/* This advert's checksum as an independent RFC 1071 sum (a few lines
	 * of Python) gives it over the pseudo-header 198.18.0.1 > 224.0.0.18,
	 * protocol 112, length 12, and the message. */
	assert_int_equal(p[6] << 8 | p[7], 0x71e7);
	/* Too short for room: nothing written. */
	assert_int_equal(sy_vrrp_encode(&a, A1, p, 11), 0);
}

static void
test_malformed(void **state)
{
	struct sy_vrrp_advert a = advert(7, 240), b;
	uint8_t p[64], q[64];
	unsigned n;

	(void)state;
	n = sy_vrrp_encode(&a, A1, p, sizeof(p));
	/* TTL other than 255: from off the segment. */
	assert_int_equal(sy_vrrp_parse(p, n, A1, SY_VRRP_GROUP, 254, &b), SY_VRRP_BAD_TTL);
	assert_int_equal(sy_vrrp_parse(p, n, A1, SY_VRRP_GROUP, 64, &b), SY_VRRP_BAD_TTL);
	/* Version 2 and an unknown type. */
	memcpy(q, p, n);
	q[0] = 0x21;
	assert_int_equal(sy_vrrp_parse(q, n, A1, SY_VRRP_GROUP, 255, &b), SY_VRRP_BAD_VERSION);
	q[0] = 0x32;
	assert_int_equal(sy_vrrp_parse(q, n, A1, SY_VRRP_GROUP, 255, &b), SY_VRRP_BAD_VERSION);
	/* Lengths: a header only, a count that says two, no address at all. */
	assert_int_equal(sy_vrrp_parse(p, 7, A1, SY_VRRP_GROUP, 255, &b), SY_VRRP_BAD_LENGTH);
	assert_int_equal(sy_vrrp_parse(p, 8, A1, SY_VRRP_GROUP, 255, &b), SY_VRRP_BAD_LENGTH);
	memcpy(q, p, n);
	q[3] = 2;
	assert_int_equal(sy_vrrp_parse(q, n, A1, SY_VRRP_GROUP, 255, &b), SY_VRRP_BAD_LENGTH);
	q[3] = 0;
	assert_int_equal(sy_vrrp_parse(q, 8, A1, SY_VRRP_GROUP, 255, &b), SY_VRRP_BAD_LENGTH);
	/* One bit flipped anywhere: the checksum. */
	memcpy(q, p, n);
	q[2] ^= 1;
	assert_int_equal(sy_vrrp_parse(q, n, A1, SY_VRRP_GROUP, 255, &b), SY_VRRP_BAD_CHECKSUM);
	memcpy(q, p, n);
	q[11] ^= 0x80;
	assert_int_equal(sy_vrrp_parse(q, n, A1, SY_VRRP_GROUP, 255, &b), SY_VRRP_BAD_CHECKSUM);
}

/* VRRPv3 over IPv6 (RFC 5798 5.2): 16-byte addresses, the checksum over
 * the IPv6 pseudo-header, from a link-local address to ff02::12. */
static const uint8_t LL1[16] = { 0xfe, 0x80, [8] = 0x02, 0x00, 0x5e, 0xff, 0xfe, 0x00, 0x01, 0x01 };
static const uint8_t LL3[16] = { 0xfe, 0x80, [8] = 0x02, 0x00, 0x5e, 0xff, 0xfe, 0x00, 0x01, 0x03 };
static const uint8_t VIP6[16] = { 0x20, 0x01, 0x00, 0x02, [15] = 0x80 };
static const uint8_t GLOBAL6[16] = { 0x20, 0x01, 0x00, 0x02, [15] = 0x01 };

static struct sy_vrrp_advert
advert6(uint8_t vrid, uint8_t prio)
{
	struct sy_vrrp_advert a = { .vrid = vrid, .priority = prio, .interval_cs = 10, .n_addrs = 1 };

	memcpy(a.addr6[0], VIP6, 16);
	return a;
}

static void
test_wire6(void **state)
{
	struct sy_vrrp_advert a = advert6(7, 240), b;
	uint8_t p[64];
	unsigned n;

	(void)state;
	n = sy_vrrp_encode6(&a, LL1, p, sizeof(p));
	assert_int_equal(n, 24);
	assert_memory_equal(p + 8, VIP6, 16);
	assert_int_equal(sy_vrrp_parse6(p, n, LL1, sy_vrrp_group6, 255, &b), SY_VRRP_OK);
	check_7_240(p, &b);
	assert_memory_equal(b.addr6[0], VIP6, 16);
	/* The checksum covers the IPv6 pseudo-header (RFC 8200 8.1): another
	 * source, or another destination, fails it. */
	assert_int_equal(sy_vrrp_parse6(p, n, LL3, sy_vrrp_group6, 255, &b), SY_VRRP_BAD_CHECKSUM);
	assert_int_equal(sy_vrrp_parse6(p, n, LL1, VIP6, 255, &b), SY_VRRP_BAD_CHECKSUM);
	/* The reference: an independent RFC 1071 sum (Python: struct.unpack
	 * of the 16-bit words) over fe80::200:5eff:fe00:101 > ff02::12, the
	 * 32-bit length 24, three zero bytes and next header 112, and the
	 * message. */
	assert_int_equal(p[6] << 8 | p[7], 0x604a);
	/* Too short for room: nothing written. */
	assert_int_equal(sy_vrrp_encode6(&a, LL1, p, 23), 0);
}

static void
test_malformed6(void **state)
{
	struct sy_vrrp_advert a = advert6(7, 240), b;
	uint8_t p[64], q[64], g[64];
	unsigned n;

	(void)state;
	n = sy_vrrp_encode6(&a, LL1, p, sizeof(p));
	/* Hop limit other than 255: from off the link. */
	assert_int_equal(sy_vrrp_parse6(p, n, LL1, sy_vrrp_group6, 254, &b), SY_VRRP_BAD_TTL);
	assert_int_equal(sy_vrrp_parse6(p, n, LL1, sy_vrrp_group6, 1, &b), SY_VRRP_BAD_TTL);
	memcpy(q, p, n);
	q[0] = 0x21;
	assert_int_equal(sy_vrrp_parse6(q, n, LL1, sy_vrrp_group6, 255, &b), SY_VRRP_BAD_VERSION);
	/* Lengths: an IPv4-sized address, a count of two, a header only. */
	assert_int_equal(sy_vrrp_parse6(p, 12, LL1, sy_vrrp_group6, 255, &b), SY_VRRP_BAD_LENGTH);
	memcpy(q, p, n);
	q[3] = 2;
	assert_int_equal(sy_vrrp_parse6(q, n, LL1, sy_vrrp_group6, 255, &b), SY_VRRP_BAD_LENGTH);
	assert_int_equal(sy_vrrp_parse6(p, 8, LL1, sy_vrrp_group6, 255, &b), SY_VRRP_BAD_LENGTH);
	memcpy(q, p, n);
	q[23] ^= 1;
	assert_int_equal(sy_vrrp_parse6(q, n, LL1, sy_vrrp_group6, 255, &b), SY_VRRP_BAD_CHECKSUM);
	/* A correct advert from a global address: not the link's router. */
	assert_int_equal(sy_vrrp_encode6(&a, GLOBAL6, g, sizeof(g)), n);
	assert_int_equal(sy_vrrp_parse6(g, n, GLOBAL6, sy_vrrp_group6, 255, &b), SY_VRRP_BAD_SOURCE);
	/* An IPv4 advert is not an IPv6 one: the lengths disagree. */
	assert_int_equal(sy_vrrp_encode(&(struct sy_vrrp_advert){ .vrid = 7, .priority = 240,
								  .n_addrs = 1 },
					A1, q, sizeof(q)),
			 12);
	assert_int_equal(sy_vrrp_parse6(q, 12, LL1, sy_vrrp_group6, 255, &b), SY_VRRP_BAD_LENGTH);
}

/* An IPv6 virtual router: its master compared by link-local address when
 * priorities tie, byte by byte; it learns the master's address as sent. */
static void
test_fsm6(void **state)
{
	struct sy_vrrp_vr vr;
	struct sy_vrrp_advert same = advert6(1, 240);
	struct sy_addr vip = sy_addr_v6(VIP6), ll1 = sy_addr_v6(LL1), ll3 = sy_addr_v6(LL3);
	uint64_t down;

	(void)state;
	sy_vrrp_vr_init(&vr, &vip, &ll1, 1, 240, true, 10);
	assert_int_equal(sy_vrrp_start(&vr, 0), SY_VRRP_DO_CHANGED);
	down = sy_vrrp_master_down_us(&vr);
	/* Takes over after the master-down interval: advert and the
	 * announcement (unsolicited NA for IPv6) at once, and the rest
	 * SY_VRRP_GARP_SPACING_US apart. */
	assert_int_equal(sy_vrrp_on_timer(&vr, down),
			 SY_VRRP_DO_ADVERT | SY_VRRP_DO_GARP | SY_VRRP_DO_CHANGED);
	assert_true(sy_addr_eq(&vr.master, &ll1));
	assert_true(sy_vrrp_on_timer(&vr, down + SY_VRRP_GARP_SPACING_US) & SY_VRRP_DO_GARP);
	/* Equal priority from fe80::...:103, above ours (...:101): we yield. */
	assert_int_equal(sy_vrrp_on_advert(&vr, &same, &ll3, down + 600 * MS), SY_VRRP_DO_CHANGED);
	assert_int_equal(vr.state, SY_VRRP_BACKUP);
	assert_true(sy_addr_eq(&vr.master, &ll3));
	/* The other way round: the higher address stays master. */
	sy_vrrp_vr_init(&vr, &vip, &ll3, 1, 240, true, 10);
	sy_vrrp_start(&vr, 0);
	sy_vrrp_on_timer(&vr, down);
	assert_int_equal(sy_vrrp_on_advert(&vr, &same, &ll1, down + 10 * MS),
			 SY_VRRP_DO_ADVERT | SY_VRRP_DO_GARP);
	assert_int_equal(vr.state, SY_VRRP_MASTER);
}

static void
test_priorities(void **state)
{
	(void)state;
	/* Active/active, 3 VIPs over 3 nodes: VIP i is preferred on node i. */
	assert_int_equal(sy_vrrp_priority(0, 0, 3), 250);
	assert_int_equal(sy_vrrp_priority(0, 1, 3), 240);
	assert_int_equal(sy_vrrp_priority(0, 2, 3), 230);
	assert_int_equal(sy_vrrp_priority(1, 1, 3), 250);
	assert_int_equal(sy_vrrp_priority(1, 2, 3), 240);
	assert_int_equal(sy_vrrp_priority(1, 0, 3), 230);
	assert_int_equal(sy_vrrp_priority(2, 2, 3), 250);
	/* More VIPs than nodes: VIP 3 goes round to node 0 again. */
	assert_int_equal(sy_vrrp_priority(3, 0, 3), 250);
	/* Every VIP has one preferred node and distinct priorities. */
	for (unsigned i = 0; i < 5; i++) {
		unsigned top = 0;

		for (unsigned n = 0; n < 3; n++)
			top += sy_vrrp_priority(i, n, 3) == 250;
		assert_int_equal(top, 1);
	}
	/* 16 nodes keep every priority above 0 (0 is "resigning"). */
	assert_true(sy_vrrp_priority(0, 15, 16) >= 100);
}

static void
test_backup_to_master(void **state)
{
	struct sy_vrrp_vr vr;
	unsigned todo;
	uint64_t t = 1000 * MS, down;

	(void)state;
	sy_vrrp_vr_init(&vr, &V4(VIP), &V4(A3), 1, 240, true, 10);
	assert_int_equal(vr.state, SY_VRRP_INIT);
	todo = sy_vrrp_start(&vr, t);
	assert_int_equal(vr.state, SY_VRRP_BACKUP);
	assert_true(todo & SY_VRRP_DO_CHANGED);
	/* RFC 5798 6.1: 3 x 100 ms + (256 - 240) x 100 ms / 256. */
	down = sy_vrrp_master_down_us(&vr);
	assert_int_equal(down, 300 * MS + 6250);
	assert_false(sy_vrrp_active(&vr, t));
	/* Nothing until the interval has passed... */
	assert_int_equal(sy_vrrp_on_timer(&vr, t + down - 1), 0);
	assert_int_equal(vr.state, SY_VRRP_BACKUP);
	/* ...then master: an advert and a gratuitous ARP at once. */
	todo = sy_vrrp_on_timer(&vr, t + down);
	assert_int_equal(vr.state, SY_VRRP_MASTER);
	assert_true(todo & SY_VRRP_DO_ADVERT);
	assert_true(todo & SY_VRRP_DO_GARP);
	assert_true(vr.master.v4 == A3);
	assert_true(sy_vrrp_active(&vr, t + down));
	/* Adverts every interval; the gratuitous ARPs spaced, then none. */
	t += down;
	assert_int_equal(sy_vrrp_on_timer(&vr, t + 99 * MS), 0);
	assert_int_equal(sy_vrrp_on_timer(&vr, t + 100 * MS), SY_VRRP_DO_ADVERT);
	todo = sy_vrrp_on_timer(&vr, t + SY_VRRP_GARP_SPACING_US);
	assert_true(todo & SY_VRRP_DO_GARP);
	todo = sy_vrrp_on_timer(&vr, t + 2 * SY_VRRP_GARP_SPACING_US);
	assert_true(todo & SY_VRRP_DO_GARP);
	todo = sy_vrrp_on_timer(&vr, t + 3 * SY_VRRP_GARP_SPACING_US);
	assert_false(todo & SY_VRRP_DO_GARP);
	assert_int_equal(vr.transitions, 2);
}

static void
test_adverts_keep_backup(void **state)
{
	struct sy_vrrp_vr vr;
	struct sy_vrrp_advert a = advert(1, 250);
	uint64_t t = 0;
	unsigned k;

	(void)state;
	sy_vrrp_vr_init(&vr, &V4(VIP), &V4(A3), 1, 240, true, 10);
	sy_vrrp_start(&vr, t);
	/* A higher master advertising every 100 ms: we stay backup. */
	for (k = 0; k < 20; k++) {
		t += 100 * MS;
		assert_int_equal(sy_vrrp_on_advert(&vr, &a, &V4(A1), t), 0);
		assert_int_equal(sy_vrrp_on_timer(&vr, t + 1), 0);
	}
	assert_int_equal(vr.state, SY_VRRP_BACKUP);
	assert_true(vr.master.v4 == A1);
	assert_int_equal(vr.master_priority, 250);
	/* The master is active for DNS while heard within master-down. */
	assert_true(sy_vrrp_active(&vr, t + 300 * MS));
	/* It dies: master-down later, we are master. */
	assert_int_equal(sy_vrrp_on_timer(&vr, t + 300 * MS), 0);
	assert_false(sy_vrrp_active(&vr, t + 306 * MS + 250));
	assert_true(sy_vrrp_on_timer(&vr, t + 306 * MS + 250) & SY_VRRP_DO_CHANGED);
	assert_int_equal(vr.state, SY_VRRP_MASTER);
}

static void
test_priority_zero(void **state)
{
	struct sy_vrrp_vr vr;
	struct sy_vrrp_advert a = advert(1, 250), zero = advert(1, 0);
	uint64_t t = 0;

	(void)state;
	sy_vrrp_vr_init(&vr, &V4(VIP), &V4(A3), 1, 240, true, 10);
	sy_vrrp_start(&vr, t);
	t += 100 * MS;
	sy_vrrp_on_advert(&vr, &a, &V4(A1), t);
	/* The master resigns: we take over after Skew_Time (6.25 ms), not
	 * after the whole master-down interval. */
	t += 10 * MS;
	assert_int_equal(sy_vrrp_on_advert(&vr, &zero, &V4(A1), t), 0);
	assert_int_equal(sy_vrrp_on_timer(&vr, t + 6249), 0);
	assert_true(sy_vrrp_on_timer(&vr, t + 6250) & SY_VRRP_DO_ADVERT);
	assert_int_equal(vr.state, SY_VRRP_MASTER);
	/* A master that hears a priority 0 advert asserts itself at once. */
	assert_int_equal(sy_vrrp_on_advert(&vr, &zero, &V4(A4), t + 10 * MS), SY_VRRP_DO_ADVERT);
	assert_int_equal(vr.state, SY_VRRP_MASTER);
	/* Our own shutdown: resign with priority 0. */
	assert_true(sy_vrrp_stop(&vr) & SY_VRRP_DO_ADVERT0);
	assert_int_equal(vr.state, SY_VRRP_INIT);
	assert_int_equal(sy_vrrp_stop(&vr), 0);
}

static void
test_preemption(void **state)
{
	struct sy_vrrp_vr vr;
	struct sy_vrrp_advert low = advert(1, 240), high = advert(1, 250);
	uint64_t t = 0;
	unsigned k;

	(void)state;
	/* The preferred node (250) comes back while the standby (240) holds
	 * the VIP: it ignores the lower adverts and takes over. */
	sy_vrrp_vr_init(&vr, &V4(VIP), &V4(A1), 1, 250, true, 10);
	sy_vrrp_start(&vr, t);
	for (k = 0; k < 2; k++) {
		t += 100 * MS;
		assert_int_equal(sy_vrrp_on_advert(&vr, &low, &V4(A3), t), 0);
	}
	assert_true(vr.master.v4 != A3); /* not learned: ignored */
	assert_true(sy_vrrp_on_timer(&vr, sy_vrrp_master_down_us(&vr)) & SY_VRRP_DO_CHANGED);
	assert_int_equal(vr.state, SY_VRRP_MASTER);
	/* A master stays master on a lower advert, and asserts itself at
	 * once (advert, gratuitous ARP again): the other took over too. */
	assert_int_equal(sy_vrrp_on_advert(&vr, &low, &V4(A3), t + 400 * MS),
			 SY_VRRP_DO_ADVERT | SY_VRRP_DO_GARP);
	assert_int_equal(vr.state, SY_VRRP_MASTER);
	assert_true(vr.master.v4 == A1);

	/* The standby side: a master at 240 hears 250 and steps down. */
	sy_vrrp_vr_init(&vr, &V4(VIP), &V4(A3), 1, 240, true, 10);
	sy_vrrp_start(&vr, 0);
	sy_vrrp_on_timer(&vr, 400 * MS);
	assert_int_equal(vr.state, SY_VRRP_MASTER);
	assert_int_equal(sy_vrrp_on_advert(&vr, &high, &V4(A1), 450 * MS), SY_VRRP_DO_CHANGED);
	assert_int_equal(vr.state, SY_VRRP_BACKUP);
	assert_true(vr.master.v4 == A1);
	assert_int_equal(vr.transitions, 3);

	/* Without preemption a backup follows any master, even a lower one. */
	sy_vrrp_vr_init(&vr, &V4(VIP), &V4(A1), 1, 250, false, 10);
	sy_vrrp_start(&vr, 0);
	for (t = 100 * MS; t < 2000 * MS; t += 100 * MS) {
		sy_vrrp_on_advert(&vr, &low, &V4(A3), t);
		assert_int_equal(sy_vrrp_on_timer(&vr, t + 1), 0);
	}
	assert_int_equal(vr.state, SY_VRRP_BACKUP);
	assert_true(vr.master.v4 == A3);
}

static void
test_tie_break(void **state)
{
	struct sy_vrrp_vr vr;
	struct sy_vrrp_advert same = advert(1, 240);

	(void)state;
	/* Two masters at one priority: the higher primary address stays
	 * (198.18.0.4 > 198.18.0.3, as numbers, not as bytes in memory). */
	sy_vrrp_vr_init(&vr, &V4(VIP), &V4(A3), 1, 240, true, 10);
	sy_vrrp_start(&vr, 0);
	sy_vrrp_on_timer(&vr, 400 * MS);
	assert_int_equal(vr.state, SY_VRRP_MASTER);
	assert_int_equal(sy_vrrp_on_advert(&vr, &same, &V4(A1), 410 * MS), SY_VRRP_DO_ADVERT | SY_VRRP_DO_GARP);
	assert_int_equal(vr.state, SY_VRRP_MASTER);
	assert_int_equal(sy_vrrp_on_advert(&vr, &same, &V4(A4), 420 * MS), SY_VRRP_DO_CHANGED);
	assert_int_equal(vr.state, SY_VRRP_BACKUP);
	assert_true(vr.master.v4 == A4);
	/* 198.18.0.255 vs 198.18.1.0: the address compared as a number. */
	sy_vrrp_vr_init(&vr, &V4(VIP), &V4(inet_addr("198.18.1.0")), 1, 240, true, 10);
	sy_vrrp_start(&vr, 0);
	sy_vrrp_on_timer(&vr, 400 * MS);
	assert_int_equal(sy_vrrp_on_advert(&vr, &same, &V4(inet_addr("198.18.0.255")), 410 * MS),
			 SY_VRRP_DO_ADVERT | SY_VRRP_DO_GARP);
	assert_int_equal(vr.state, SY_VRRP_MASTER);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wire),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_wire6),
		cmocka_unit_test(test_malformed6),
		cmocka_unit_test(test_fsm6),
		cmocka_unit_test(test_priorities),
		cmocka_unit_test(test_backup_to_master),
		cmocka_unit_test(test_adverts_keep_backup),
		cmocka_unit_test(test_priority_zero),
		cmocka_unit_test(test_preemption),
		cmocka_unit_test(test_tie_break),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
