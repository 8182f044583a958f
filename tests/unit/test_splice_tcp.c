/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Splice TCP building blocks without EAL: option parsing/writing
 * (tcp_opts.c), SipHash-2-4 and SYN cookies (tcp_syncookie.c), and the
 * per-packet translation (splice_xlate.c) on TCP/IPv4 packets built in plain
 * byte buffers. Every translated packet is checked field by field and its
 * checksums against a full recomputation (rte_ipv4_cksum,
 * rte_ipv4_udptcp_cksum), over thousands of random values chosen to cross
 * 2^32 both ways, with options at aligned and odd offsets.
 *
 * Random tests use a fixed-seed xorshift so a failure reproduces; the seed
 * can be changed with SY_TEST_SEED.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_tcp.h>

#include "splice/splice_xlate.h"
#include "sy_addr.h"
#include "tcp/tcp_isn.h"
#include "tcp/tcp_opts.h"
#include "tcp/tcp_seq.h"
#include "tcp/tcp_syncookie.h"

/* ---- helpers ---------------------------------------------------------- */

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;

static uint64_t
rnd64(void)
{
	/* xorshift64* (Vigna): enough for test inputs, reproducible. */
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545f4914f6cdd1dull;
}

static uint32_t
rnd32(void)
{
	return (uint32_t)(rnd64() >> 32);
}

static uint32_t
rnd_below(uint32_t n)
{
	return (uint32_t)(rnd64() % n);
}

/* A 32-bit value biased towards the edges of the sequence space, so sums
 * and differences cross 2^32 often. */
static uint32_t
rnd_seq(void)
{
	switch (rnd_below(4)) {
	case 0:
		return 0xffffffffu - rnd_below(4096);
	case 1:
		return rnd_below(4096);
	case 2:
		return 0x80000000u + rnd_below(4096) - 2048;
	default:
		return rnd32();
	}
}

static uint32_t
get_be32(const uint8_t *p)
{
	return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}

static uint16_t
get_be16(const uint8_t *p)
{
	return (uint16_t)((p[0] << 8) | p[1]);
}

static void
put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

static void
put_be16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* A TCP header (20 bytes, zeroed) followed by opts in a buffer big enough
 * for any data_off. */
struct th_buf {
	union {
		struct rte_tcp_hdr th;
		uint8_t b[60];
	};
};

static void
th_with_opts(struct th_buf *tb, const uint8_t *opts, unsigned n)
{
	assert_true(n <= 40 && n % 4 == 0);
	memset(tb, 0, sizeof(*tb));
	if (n > 0)
		memcpy(tb->b + 20, opts, n);
	tb->th.data_off = (uint8_t)(((20 + n) / 4) << 4);
}

/* ---- options ---------------------------------------------------------- */

static void
test_opts_linux_layouts(void **state)
{
	struct sy_tcp_syn_opts o = { .mss = 1460, .wscale = 7, .sack_ok = true, .ts_ok = true,
				     .tsval = 0x11223344, .tsecr = 0x55667788 };
	uint8_t buf[40];
	/* What Linux 6.x puts in a SYN: tcpdump "mss 1460,sackOK,TS val .. ecr ..,nop,wscale 7" */
	static const uint8_t all[] = { 0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a, 0x11, 0x22,
				       0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x01, 0x03, 0x03, 0x07 };
	static const uint8_t no_sack[] = { 0x02, 0x04, 0x05, 0xb4, 0x01, 0x01, 0x08, 0x0a,
					   0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,
					   0x01, 0x03, 0x03, 0x07 };
	/* net.ipv4.tcp_timestamps=0: "mss 1460,nop,nop,sackOK,nop,wscale 7" */
	static const uint8_t no_ts[] = { 0x02, 0x04, 0x05, 0xb4, 0x01, 0x01, 0x04, 0x02,
					 0x01, 0x03, 0x03, 0x07 };
	static const uint8_t mss_only[] = { 0x02, 0x04, 0x05, 0xb4 };
	static const uint8_t no_ws[] = { 0x02, 0x04, 0x05, 0xb4, 0x04, 0x02, 0x08, 0x0a,
					 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88 };
	static const uint8_t ts_opt[] = { 0x01, 0x01, 0x08, 0x0a, 0xde, 0xad, 0xbe, 0xef,
					  0x00, 0x00, 0x00, 0x01 };
	(void)state;

	assert_int_equal(sy_tcp_write_syn_opts(buf, &o), sizeof(all));
	assert_memory_equal(buf, all, sizeof(all));
	o.sack_ok = false;
	assert_int_equal(sy_tcp_write_syn_opts(buf, &o), sizeof(no_sack));
	assert_memory_equal(buf, no_sack, sizeof(no_sack));
	o.sack_ok = true;
	o.ts_ok = false;
	assert_int_equal(sy_tcp_write_syn_opts(buf, &o), sizeof(no_ts));
	assert_memory_equal(buf, no_ts, sizeof(no_ts));
	o.sack_ok = false;
	o.wscale = SY_TCP_WS_NONE;
	assert_int_equal(sy_tcp_write_syn_opts(buf, &o), sizeof(mss_only));
	assert_memory_equal(buf, mss_only, sizeof(mss_only));
	o.sack_ok = o.ts_ok = true;
	assert_int_equal(sy_tcp_write_syn_opts(buf, &o), sizeof(no_ws));
	assert_memory_equal(buf, no_ws, sizeof(no_ws));

	assert_int_equal(sy_tcp_write_ts_opt(buf, 0xdeadbeef, 1), sizeof(ts_opt));
	assert_memory_equal(buf, ts_opt, sizeof(ts_opt));
}

static void
test_opts_round_trip_all(void **state)
{
	static const uint16_t msss[] = { 0, 536, 1220, 1460, 8960, 65535 };
	struct th_buf tb;
	unsigned m, ws, f, n;
	(void)state;

	for (m = 0; m < sizeof(msss) / sizeof(msss[0]); m++)
		for (ws = 0; ws <= 15; ws++)
			for (f = 0; f < 4; f++) {
				struct sy_tcp_syn_opts in = {
					.mss = msss[m],
					.wscale = ws == 15 ? SY_TCP_WS_NONE : (uint8_t)ws,
					.sack_ok = f & 1,
					.ts_ok = f & 2,
					.tsval = (f & 2) ? rnd32() : 0,
					.tsecr = (f & 2) ? rnd32() : 0,
				};
				struct sy_tcp_syn_opts out;
				uint8_t opts[40];
				uint32_t tv, te;

				memset(opts, 0xee, sizeof(opts));
				n = sy_tcp_write_syn_opts(opts, &in);
				assert_true(n <= 40);
				assert_int_equal(n % 4, 0);
				th_with_opts(&tb, opts, n);
				assert_int_equal(sy_tcp_parse_syn_opts(&tb.th, &out), 0);
				assert_int_equal(out.mss, in.mss);
				assert_int_equal(out.wscale, in.wscale);
				assert_int_equal(out.sack_ok, in.sack_ok);
				assert_int_equal(out.ts_ok, in.ts_ok);
				assert_int_equal(out.tsval, in.tsval);
				assert_int_equal(out.tsecr, in.tsecr);
				assert_int_equal(sy_tcp_find_ts(&tb.th, &tv, &te), in.ts_ok);
				if (in.ts_ok) {
					assert_int_equal(tv, in.tsval);
					assert_int_equal(te, in.tsecr);
				}
			}
}

static void
test_opts_parse_cases(void **state)
{
	struct sy_tcp_syn_opts o;
	struct th_buf tb;
	uint32_t tv, te;
	(void)state;

	/* No options at all: the RFC 9293 defaults. */
	th_with_opts(&tb, NULL, 0);
	assert_int_equal(sy_tcp_parse_syn_opts(&tb.th, &o), 0);
	assert_int_equal(o.mss, 0);
	assert_int_equal(o.wscale, SY_TCP_WS_NONE);
	assert_false(o.sack_ok || o.ts_ok);
	assert_false(sy_tcp_find_ts(&tb.th, &tv, &te));

	/* RFC 7323 2.3: a shift above 14 is used as 14. */
	{
		const uint8_t a[] = { 3, 3, 15, 1, 3, 3, 200, 0 };

		th_with_opts(&tb, a, sizeof(a));
		assert_int_equal(sy_tcp_parse_syn_opts(&tb.th, &o), 0);
		assert_int_equal(o.wscale, 14);
	}
	/* Unknown options (TFO cookie 34, MD5 19, experimental 254) skipped by
	 * length, the known ones after them still found; TS at an odd offset. */
	{
		const uint8_t a[] = { 34, 6, 1, 2, 3, 4, 2, 4, 0x05, 0x78, 254, 2, 1,
				      8, 10, 0, 0, 0, 5, 0, 0, 0, 6, 4, 2, 0, 0, 0 };

		th_with_opts(&tb, a, sizeof(a));
		assert_int_equal(sy_tcp_parse_syn_opts(&tb.th, &o), 0);
		assert_int_equal(o.mss, 1400);
		assert_true(o.ts_ok && o.sack_ok);
		assert_int_equal(o.tsval, 5);
		assert_int_equal(o.tsecr, 6);
		assert_true(sy_tcp_find_ts(&tb.th, &tv, &te));
		assert_int_equal(tv, 5);
		assert_int_equal(te, 6);
	}
	/* EOL ends the list: what follows is padding, even if it looks like options. */
	{
		const uint8_t a[] = { 2, 4, 0x05, 0xb4, 0, 3, 3, 7, 8, 10, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0 };

		th_with_opts(&tb, a, sizeof(a));
		assert_int_equal(sy_tcp_parse_syn_opts(&tb.th, &o), 0);
		assert_int_equal(o.mss, 1460);
		assert_int_equal(o.wscale, SY_TCP_WS_NONE);
		assert_false(o.ts_ok);
		assert_false(sy_tcp_find_ts(&tb.th, &tv, &te));
	}
	/* Known kinds with impossible lengths are ignored, not misread. */
	{
		const uint8_t a[] = { 2, 3, 0x05, 3, 2, 4, 3, 1, 8, 6, 1, 2, 3, 4, 1, 1 };

		th_with_opts(&tb, a, sizeof(a));
		assert_int_equal(sy_tcp_parse_syn_opts(&tb.th, &o), 0);
		assert_int_equal(o.mss, 0);
		assert_int_equal(o.wscale, SY_TCP_WS_NONE);
		assert_false(o.sack_ok || o.ts_ok);
	}
	/* Malformed: length 0, length 1, running past the header, a kind
	 * without its length byte, data_off < 5. */
	{
		const uint8_t l0[] = { 1, 1, 30, 0 };
		const uint8_t l1[] = { 30, 1, 1, 1 };
		const uint8_t past[] = { 1, 1, 8, 10, 0, 0, 0, 0 };
		const uint8_t nolen[] = { 1, 1, 1, 2 };
		const uint8_t past_ts[] = { 8, 10, 1, 2, 3, 4, 5, 6 };

		th_with_opts(&tb, l0, sizeof(l0));
		assert_int_equal(sy_tcp_parse_syn_opts(&tb.th, &o), -1);
		assert_false(sy_tcp_find_ts(&tb.th, &tv, &te));
		th_with_opts(&tb, l1, sizeof(l1));
		assert_int_equal(sy_tcp_parse_syn_opts(&tb.th, &o), -1);
		th_with_opts(&tb, past, sizeof(past));
		assert_int_equal(sy_tcp_parse_syn_opts(&tb.th, &o), -1);
		assert_false(sy_tcp_find_ts(&tb.th, &tv, &te));
		th_with_opts(&tb, nolen, sizeof(nolen));
		assert_int_equal(sy_tcp_parse_syn_opts(&tb.th, &o), -1);
		th_with_opts(&tb, past_ts, sizeof(past_ts));
		assert_int_equal(sy_tcp_parse_syn_opts(&tb.th, &o), -1);
		assert_false(sy_tcp_find_ts(&tb.th, &tv, &te));
		th_with_opts(&tb, NULL, 0);
		tb.th.data_off = 4 << 4;
		assert_int_equal(sy_tcp_parse_syn_opts(&tb.th, &o), -1);
		assert_false(sy_tcp_find_ts(&tb.th, &tv, &te));
	}
}

/* ---- SipHash ---------------------------------------------------------- */

static void
test_siphash_vectors(void **state)
{
	/* veorq/SipHash vectors.h: key 00..0f, message 00..(len-1). */
	static const struct {
		size_t len;
		uint64_t h;
	} v[] = {
		{ 0, 0x726fdb47dd0e0e31ull }, { 1, 0x74f839c593dc67fdull },
		{ 7, 0xab0200f58b01d137ull }, { 8, 0x93f5f5799a932462ull },
		{ 9, 0x9e0082df0ba9e4b0ull }, { 15, 0xa129ca6149be45e5ull }, /* the paper's example */
	};
	uint8_t key[16], msg[16];
	unsigned i;
	(void)state;

	for (i = 0; i < 16; i++)
		key[i] = msg[i] = (uint8_t)i;
	for (i = 0; i < sizeof(v) / sizeof(v[0]); i++)
		assert_true(sy_siphash24(key, msg, v[i].len) == v[i].h);
}

/* ---- SYN cookies ------------------------------------------------------ */

static struct sy_cookie_keys keys;

static void
rnd_key(uint8_t k[16])
{
	unsigned i;

	for (i = 0; i < 16; i++)
		k[i] = (uint8_t)rnd64();
}

static struct sy_cookie_tuple
tuple4(void)
{
	struct sy_cookie_tuple t = {
		.saddr = sy_addr_v4(rnd32()),
		.daddr = sy_addr_v4(rnd32()),
		.sport = (uint16_t)rnd32(),
		.dport = rte_cpu_to_be_16(443),
	};
	return t;
}

static struct sy_cookie_tuple
tuple6(void)
{
	struct sy_cookie_tuple t = { .sport = (uint16_t)rnd32(), .dport = rte_cpu_to_be_16(443) };
	unsigned i;

	t.saddr.family = t.daddr.family = AF_INET6;
	for (i = 0; i < 16; i++) {
		t.saddr.v6[i] = (uint8_t)rnd64();
		t.daddr.v6[i] = (uint8_t)rnd64();
	}
	return t;
}

static int
cookie_setup(void **state)
{
	(void)state;
	rnd_key(keys.key[0]);
	rnd_key(keys.key[1]);
	return 0;
}

static void
test_cookie_round_trip(void **state)
{
	unsigned fam, m, ws, f;
	(void)state;

	for (fam = 0; fam < 2; fam++)
		for (m = 0; m < 8; m++)
			for (ws = 0; ws <= 15; ws++)
				for (f = 0; f < 4; f++) {
					struct sy_cookie_tuple t = fam ? tuple6() : tuple4();
					struct sy_tcp_syn_opts syn = {
						.mss = sy_cookie_mss_table[m],
						.wscale = ws == 15 ? SY_TCP_WS_NONE : (uint8_t)ws,
						.sack_ok = f & 1,
						.ts_ok = f & 2,
					};
					struct sy_tcp_syn_opts out;
					uint32_t isn = rnd32(), ctr = rnd32();
					uint32_t c = sy_cookie_make(&keys, &t, isn, ctr, &syn, 0);

					memset(&out, 0xa5, sizeof(out));
					assert_true(sy_cookie_check(&keys, &t, isn, c, ctr, &out));
					assert_int_equal(out.tsval, 0);
					assert_int_equal(out.tsecr, 0);
					assert_int_equal(out.mss, syn.mss);
					assert_int_equal(out.wscale, syn.wscale);
					assert_int_equal(out.sack_ok, syn.sack_ok);
					assert_int_equal(out.ts_ok, syn.ts_ok);
				}

	/* An out-of-range shift is encoded as 14 (RFC 7323 2.3), never as "none". */
	{
		struct sy_cookie_tuple t = tuple4();
		struct sy_tcp_syn_opts syn = { .mss = 1460, .wscale = 30 }, out;
		uint32_t c = sy_cookie_make(&keys, &t, 1, 100, &syn, 0);

		assert_true(sy_cookie_check(&keys, &t, 1, c, 100, &out));
		assert_int_equal(out.wscale, 14);
	}
}

static void
test_cookie_mss_rounding(void **state)
{
	static const uint16_t clamps[] = { 0, 536, 600, 1219, 1220, 1300, 1459, 1460, 9000 };
	struct sy_cookie_tuple t = tuple4();
	unsigned c, mss;
	(void)state;

	for (c = 0; c < sizeof(clamps) / sizeof(clamps[0]); c++)
		for (mss = 0; mss <= 65535; mss += (mss < 2000 ? 1 : 97)) {
			struct sy_tcp_syn_opts syn = { .mss = (uint16_t)mss, .wscale = 7 }, out;
			uint32_t eff = mss ? mss : 536, want = 0;
			uint32_t ck;
			unsigned i;

			if (clamps[c] && clamps[c] < eff)
				eff = clamps[c];
			for (i = 0; i < 8; i++)
				if (sy_cookie_mss_table[i] <= eff)
					want = sy_cookie_mss_table[i];
			if (want == 0)
				want = 536; /* below the table: the RFC 9293 minimum */
			ck = sy_cookie_make(&keys, &t, mss, 7, &syn, clamps[c]);
			assert_true(sy_cookie_check(&keys, &t, mss, ck, 7, &out));
			assert_int_equal(out.mss, want);
			/* Never up, and within the clamp, whenever 536 allows it. */
			if (eff >= 536) {
				assert_true(out.mss <= eff);
				if (clamps[c])
					assert_true(out.mss <= clamps[c]);
				if (mss)
					assert_true(out.mss <= mss);
			}
		}
}

/*
 * A MAC bit flipped can never pass under the key that made the cookie (the
 * MAC is a function of everything else), so that is asserted exactly, with
 * the same key in both slots. Anything else that changes the MAC input (an
 * option or counter bit, another tuple) or a second key gives a fresh
 * 18-bit value, which matches with probability 2^-18: asserted as "at most
 * one in the whole run" (expected ~0.01), so no seed is flaky in practice.
 */
static void
test_cookie_forgery(void **state)
{
	struct sy_cookie_keys one;
	unsigned n, bit, trials = 0, accepted = 0;
	(void)state;

	memcpy(one.key[0], keys.key[0], 16);
	memcpy(one.key[1], keys.key[0], 16);
	for (n = 0; n < 64; n++) {
		struct sy_cookie_tuple t = n & 1 ? tuple6() : tuple4();
		struct sy_tcp_syn_opts syn = { .mss = 1460, .wscale = (uint8_t)(n % 15),
					       .sack_ok = n & 2, .ts_ok = n & 4 },
				       out;
		uint32_t isn = rnd32(), ctr = rnd32();
		uint32_t c = sy_cookie_make(&keys, &t, isn, ctr, &syn, 0);
		struct sy_cookie_tuple o[6];
		unsigned i, n_o = 0;

		assert_true(sy_cookie_check(&keys, &t, isn, c, ctr, &out));
		assert_true(sy_cookie_check(&one, &t, isn, c, ctr, &out));
		for (bit = 0; bit < 18; bit++) {
			assert_false(sy_cookie_check(&one, &t, isn, c ^ (1u << bit), ctr, &out));
			trials++;
			accepted += sy_cookie_check(&keys, &t, isn, c ^ (1u << bit), ctr, &out);
		}
		/* Option bits (26..18) and counter bits (31..27). */
		for (bit = 18; bit < 32; bit++) {
			trials++;
			accepted += sy_cookie_check(&keys, &t, isn, c ^ (1u << bit), ctr, &out);
		}

		/* Another tuple: each of saddr, daddr, sport, dport changed. */
		o[n_o] = t;
		if (t.saddr.family == AF_INET6)
			o[n_o++].saddr.v6[15] ^= 1;
		else
			o[n_o++].saddr.v4 ^= rte_cpu_to_be_32(1);
		o[n_o] = t;
		if (t.daddr.family == AF_INET6)
			o[n_o++].daddr.v6[0] ^= 0x80;
		else
			o[n_o++].daddr.v4 ^= rte_cpu_to_be_32(0x80000000u);
		o[n_o] = t;
		o[n_o++].sport ^= 1;
		o[n_o] = t;
		o[n_o++].dport ^= rte_cpu_to_be_16(1);
		/* Addresses swapped (a reflected packet). */
		o[n_o] = t;
		o[n_o].saddr = t.daddr;
		o[n_o++].daddr = t.saddr;
		/* A v4 tuple's cookie says nothing about the v6 tuple with the same bytes. */
		if (t.saddr.family == AF_INET) {
			o[n_o] = t;
			o[n_o].saddr.family = o[n_o].daddr.family = AF_INET6;
			memset(o[n_o].saddr.v6, 0, 16);
			memset(o[n_o].daddr.v6, 0, 16);
			memcpy(o[n_o].saddr.v6, &t.saddr.v4, 4);
			memcpy(o[n_o].daddr.v6, &t.daddr.v4, 4);
			n_o++;
		}
		for (i = 0; i < n_o; i++) {
			trials++;
			accepted += sy_cookie_check(&keys, &o[i], isn, c, ctr, &out);
		}
		/* Another client ISN. */
		trials += 2;
		accepted += sy_cookie_check(&keys, &t, isn + 1, c, ctr, &out);
		accepted += sy_cookie_check(&keys, &t, isn ^ 0x80000000u, c, ctr, &out);
	}
	assert_true(trials >= 64 * 39);
	assert_true(accepted <= 1);

	/* Blind guessing: a random ISN in the ACK passes with probability about
	 * 3/32 (age) * 2 (keys) * 2^-18; 400k guesses expect ~0.3. */
	{
		struct sy_cookie_tuple t = tuple4();
		struct sy_tcp_syn_opts out;

		accepted = 0;
		for (n = 0; n < 400000; n++)
			accepted += sy_cookie_check(&keys, &t, 12345, rnd32(), 1000, &out);
		assert_true(accepted <= 4);
	}
}

static void
test_cookie_expiry(void **state)
{
	static const uint32_t base[] = { 1000, 31, 32, 0xffffffffu, 0xfffffffeu, 0 };
	struct sy_tcp_syn_opts syn = { .mss = 1400, .wscale = 9, .sack_ok = true }, out;
	unsigned b;
	uint32_t a;
	(void)state;

	for (b = 0; b < sizeof(base) / sizeof(base[0]); b++) {
		struct sy_cookie_tuple t = tuple4();
		uint32_t c = sy_cookie_make(&keys, &t, 77, base[b], &syn, 0);

		for (a = 0; a <= SY_COOKIE_MAX_AGE; a++)
			assert_true(sy_cookie_check(&keys, &t, 77, c, base[b] + a, &out));
		assert_false(sy_cookie_check(&keys, &t, 77, c, base[b] + SY_COOKIE_MAX_AGE + 1, &out));
		/* From the future (clock went back, or a forger guessing ahead). */
		assert_false(sy_cookie_check(&keys, &t, 77, c, base[b] - 1, &out));
		/* Same 5 low bits, 32 ticks later: the MAC has the full counter. */
		assert_false(sy_cookie_check(&keys, &t, 77, c, base[b] + 32, &out));
		assert_false(sy_cookie_check(&keys, &t, 77, c, base[b] + 33, &out));
		for (a = SY_COOKIE_MAX_AGE + 1; a < 64; a++)
			assert_false(sy_cookie_check(&keys, &t, 77, c, base[b] + a, &out));
	}
	assert_int_equal(sy_cookie_counter(0), 0);
	assert_int_equal(sy_cookie_counter(63), 0);
	assert_int_equal(sy_cookie_counter(64), 1);
}

static void
test_cookie_rotation(void **state)
{
	struct sy_cookie_keys k;
	struct sy_tcp_syn_opts syn = { .mss = 1460, .wscale = 7, .sack_ok = true, .ts_ok = true },
			       out;
	struct sy_cookie_tuple t4 = tuple4(), t6 = tuple6();
	uint32_t c4, c6;
	(void)state;

	rnd_key(k.key[0]);
	rnd_key(k.key[1]);
	c4 = sy_cookie_make(&k, &t4, 5, 500, &syn, 0);
	c6 = sy_cookie_make(&k, &t6, 6, 500, &syn, 0);
	/* First rotation: the key that made the cookies is now the previous one. */
	memcpy(k.key[1], k.key[0], 16);
	rnd_key(k.key[0]);
	assert_true(sy_cookie_check(&k, &t4, 5, c4, 501, &out));
	assert_int_equal(out.mss, 1460);
	assert_true(sy_cookie_check(&k, &t6, 6, c6, 501, &out));
	/* Second rotation: gone. */
	memcpy(k.key[1], k.key[0], 16);
	rnd_key(k.key[0]);
	assert_false(sy_cookie_check(&k, &t4, 5, c4, 501, &out));
	assert_false(sy_cookie_check(&k, &t6, 6, c6, 501, &out));
}

/* ---- translation: packet builder -------------------------------------- */

enum opt_item { OI_NOP, OI_TS, OI_SACK1, OI_SACK2, OI_SACK3, OI_SACK4, OI_MSS, OI_WS, OI_EOL };

struct pkt {
	union {
		struct rte_ipv4_hdr ip;
		uint8_t b[20 + 60 + 64];
	};
	unsigned len;  /* whole IPv4 packet */
	unsigned hlen; /* TCP header with options */
	/* Where the options landed, relative to the TCP header; 0 = absent. */
	unsigned ts_off, mss_off, n_sack, sack_off[4], sack_blocks[4];
};

static struct rte_tcp_hdr *
pkt_th(struct pkt *p)
{
	return (struct rte_tcp_hdr *)(p->b + 20);
}

/* Lay the items out (then NOP-pad to 4, or EOL-pad if an EOL was used);
 * false if they do not fit in 40 bytes. */
static bool
pkt_build(struct pkt *p, const enum opt_item *it, unsigned n_it, uint8_t flags, unsigned paylen)
{
	uint8_t *t = p->b + 20;
	unsigned o = 20, i, j;
	bool eol = false;

	memset(p, 0, sizeof(*p));
	for (i = 0; i < n_it; i++) {
		unsigned need = it[i] == OI_NOP || it[i] == OI_EOL ? 1
				: it[i] == OI_TS			? 10
				: it[i] == OI_MSS			? 4
				: it[i] == OI_WS			? 3
									: 2 + 8 * (it[i] - OI_SACK1 + 1);

		if (o + need > 60)
			return false;
		switch (it[i]) {
		case OI_NOP:
			t[o++] = 1;
			break;
		case OI_EOL:
			t[o++] = 0;
			eol = true;
			break;
		case OI_TS:
			if (!eol)
				p->ts_off = o;
			t[o] = 8;
			t[o + 1] = 10;
			put_be32(t + o + 2, rnd_seq());
			put_be32(t + o + 6, rnd_seq());
			o += 10;
			break;
		case OI_MSS:
			if (!eol)
				p->mss_off = o;
			t[o] = 2;
			t[o + 1] = 4;
			put_be16(t + o + 2, (uint16_t)(500 + rnd_below(9000)));
			o += 4;
			break;
		case OI_WS:
			t[o] = 3;
			t[o + 1] = 3;
			t[o + 2] = (uint8_t)rnd_below(15);
			o += 3;
			break;
		default:
			if (!eol) {
				p->sack_off[p->n_sack] = o;
				p->sack_blocks[p->n_sack++] = it[i] - OI_SACK1 + 1;
			}
			t[o] = 5;
			t[o + 1] = (uint8_t)need;
			for (j = 2; j < need; j += 4)
				put_be32(t + o + j, rnd_seq());
			o += need;
			break;
		}
	}
	while (o % 4)
		t[o++] = eol ? 0 : 1;
	p->hlen = o;
	p->len = 20 + o + paylen;
	for (i = 0; i < paylen; i++)
		t[o + i] = (uint8_t)rnd64();

	p->ip.version_ihl = 0x45;
	p->ip.total_length = rte_cpu_to_be_16((uint16_t)p->len);
	p->ip.packet_id = (uint16_t)rnd32();
	p->ip.time_to_live = 64;
	p->ip.next_proto_id = IPPROTO_TCP;
	p->ip.src_addr = rnd32();
	p->ip.dst_addr = rnd32();
	pkt_th(p)->src_port = (uint16_t)rnd32();
	pkt_th(p)->dst_port = (uint16_t)rnd32();
	pkt_th(p)->sent_seq = rte_cpu_to_be_32(rnd_seq());
	pkt_th(p)->recv_ack = rte_cpu_to_be_32(rnd_seq());
	pkt_th(p)->data_off = (uint8_t)((o / 4) << 4);
	pkt_th(p)->tcp_flags = flags;
	pkt_th(p)->rx_win = rte_cpu_to_be_16((uint16_t)rnd32());
	pkt_th(p)->tcp_urp = 0;
	p->ip.hdr_checksum = rte_ipv4_cksum(&p->ip);
	pkt_th(p)->cksum = rte_ipv4_udptcp_cksum(&p->ip, pkt_th(p));
	return true;
}

/* Both checksums equal a full recomputation. */
static void
assert_csums(struct pkt *p)
{
	struct rte_tcp_hdr *th = pkt_th(p);
	uint16_t ic = p->ip.hdr_checksum, tc = th->cksum;

	p->ip.hdr_checksum = 0;
	assert_int_equal(ic, rte_ipv4_cksum(&p->ip));
	p->ip.hdr_checksum = ic;
	th->cksum = 0;
	assert_int_equal(tc, rte_ipv4_udptcp_cksum(&p->ip, th));
	th->cksum = tc;
}

static uint16_t
model_win(uint16_t win, unsigned in, unsigned out)
{
	uint64_t bytes = (uint64_t)win << in;
	uint64_t w = bytes / (1ull << out) + (bytes % (1ull << out) != 0);

	return w > 65535 ? 65535 : (uint16_t)w;
}

/* Translate a copy of p with x and check every field against a model. */
static void
check_xlate(const struct pkt *p, const struct sy_xlate *x, struct pkt *q)
{
	const uint8_t *a = p->b + 20;
	const uint8_t *t;
	uint8_t flags = p->b[20 + 13];
	bool syn = flags & RTE_TCP_SYN_FLAG, ack = flags & RTE_TCP_ACK_FLAG;
	unsigned i, j, k;
	/* Bytes the translation may change; everything else must be intact. */
	uint8_t may[sizeof(p->b)];

	*q = *p;
	assert_int_equal(sy_xlate_tcp4(&q->ip, pkt_th(q), x), 0);
	t = q->b + 20;

	assert_true(q->ip.src_addr == x->src_ip);
	assert_true(q->ip.dst_addr == x->dst_ip);
	assert_true(pkt_th(q)->src_port == x->src_port);
	assert_true(pkt_th(q)->dst_port == x->dst_port);
	assert_int_equal(get_be32(t + 4), get_be32(a + 4) + x->seq_delta);
	assert_int_equal(get_be32(t + 8), ack ? get_be32(a + 8) + x->ack_delta : get_be32(a + 8));
	assert_int_equal(get_be16(t + 14), syn ? get_be16(a + 14)
					       : model_win(get_be16(a + 14), x->win_shift_in,
							   x->win_shift_out));
	if (get_be16(a + 14) != 0)
		assert_int_not_equal(get_be16(t + 14), 0);
	if (p->ts_off) {
		assert_int_equal(get_be32(t + p->ts_off + 2), get_be32(a + p->ts_off + 2) + x->tsval_delta);
		assert_int_equal(get_be32(t + p->ts_off + 6),
				 get_be32(a + p->ts_off + 6) + (ack ? x->tsecr_delta : 0));
	}
	for (i = 0; i < p->n_sack; i++)
		for (j = 0; j < 2 * p->sack_blocks[i]; j++) {
			k = p->sack_off[i] + 2 + 4 * j;
			assert_int_equal(get_be32(t + k), get_be32(a + k) + x->sack_delta);
		}
	if (p->mss_off) {
		uint16_t m = get_be16(a + p->mss_off + 2);

		if (syn && x->mss_clamp && m > x->mss_clamp)
			m = x->mss_clamp;
		assert_int_equal(get_be16(t + p->mss_off + 2), m);
	}

	memset(may, 0, sizeof(may));
	memset(may + 10, 1, 2);  /* IPv4 checksum */
	memset(may + 12, 1, 8);  /* addresses */
	memset(may + 20, 1, 12); /* ports, seq, ack */
	memset(may + 34, 1, 4);  /* window, checksum */
	if (p->ts_off)
		memset(may + 20 + p->ts_off + 2, 1, 8);
	if (p->mss_off)
		memset(may + 20 + p->mss_off + 2, 1, 2);
	for (i = 0; i < p->n_sack; i++)
		memset(may + 20 + p->sack_off[i] + 2, 1, 8 * p->sack_blocks[i]);
	for (i = 0; i < p->len; i++)
		if (!may[i] && p->b[i] != q->b[i])
			fail_msg("byte %u changed: %02x -> %02x", i, p->b[i], q->b[i]);

	if (!x->csum_offload)
		assert_csums(q);
}

static void
rnd_xlate(struct sy_xlate *x)
{
	memset(x, 0, sizeof(*x));
	x->src_ip = rnd32();
	x->dst_ip = rnd32();
	x->src_port = (uint16_t)rnd32();
	x->dst_port = (uint16_t)rnd32();
	x->seq_delta = rnd_seq();
	x->ack_delta = rnd_seq();
	x->sack_delta = rnd_seq();
	x->tsval_delta = rnd_seq();
	x->tsecr_delta = rnd_seq();
	x->win_shift_in = (uint8_t)rnd_below(15);
	x->win_shift_out = rnd_below(3) == 0 ? x->win_shift_in : (uint8_t)rnd_below(15);
	x->mss_clamp = rnd_below(2) ? 0 : (uint16_t)(536 + rnd_below(1000));
}

/* Option layouts: aligned (NOP NOP first) and shifted by one NOP so SACK
 * edges and TS values sit at odd offsets, and by three. */
static const struct {
	enum opt_item it[12];
	unsigned n;
} layouts[] = {
	{ { 0 }, 0 },
	{ { OI_NOP, OI_NOP, OI_TS }, 3 },
	{ { OI_NOP, OI_TS }, 2 },
	{ { OI_TS }, 1 },
	{ { OI_NOP, OI_NOP, OI_NOP, OI_TS }, 4 },
	{ { OI_NOP, OI_NOP, OI_SACK1 }, 3 },
	{ { OI_NOP, OI_NOP, OI_SACK2 }, 3 },
	{ { OI_NOP, OI_NOP, OI_SACK3 }, 3 },
	{ { OI_NOP, OI_NOP, OI_SACK4 }, 3 },
	{ { OI_NOP, OI_SACK1 }, 2 },
	{ { OI_NOP, OI_SACK2 }, 2 },
	{ { OI_NOP, OI_SACK3 }, 2 },
	{ { OI_SACK4 }, 1 },
	{ { OI_NOP, OI_NOP, OI_NOP, OI_SACK3 }, 4 },
	{ { OI_NOP, OI_NOP, OI_TS, OI_NOP, OI_NOP, OI_SACK1 }, 6 },
	{ { OI_NOP, OI_NOP, OI_TS, OI_NOP, OI_NOP, OI_SACK2 }, 6 },
	{ { OI_NOP, OI_NOP, OI_TS, OI_NOP, OI_NOP, OI_SACK3 }, 6 },
	{ { OI_NOP, OI_TS, OI_NOP, OI_SACK3 }, 4 },
	{ { OI_TS, OI_SACK3 }, 2 },
	{ { OI_NOP, OI_TS, OI_SACK1, OI_NOP, OI_SACK1 }, 5 },
	{ { OI_MSS, OI_NOP, OI_NOP, OI_TS, OI_NOP, OI_WS }, 6 },
	{ { OI_MSS, OI_NOP, OI_WS, OI_NOP, OI_NOP, OI_TS }, 6 },
	{ { OI_NOP, OI_MSS, OI_WS, OI_TS }, 4 },
	{ { OI_NOP, OI_NOP, OI_TS, OI_EOL, OI_SACK2 }, 5 }, /* after EOL: untouched */
	{ { OI_NOP, OI_TS, OI_EOL, OI_MSS }, 4 },
};

#define N_LAYOUTS (sizeof(layouts) / sizeof(layouts[0]))

static uint8_t
rnd_flags(void)
{
	static const uint8_t f[] = {
		RTE_TCP_ACK_FLAG,
		RTE_TCP_ACK_FLAG | RTE_TCP_PSH_FLAG,
		RTE_TCP_SYN_FLAG,
		RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG,
		RTE_TCP_FIN_FLAG | RTE_TCP_ACK_FLAG,
		RTE_TCP_RST_FLAG,
		RTE_TCP_RST_FLAG | RTE_TCP_ACK_FLAG,
	};
	return f[rnd_below(sizeof(f))];
}

static void
test_xlate_random(void **state)
{
	struct pkt p, q;
	struct sy_xlate x;
	unsigned n, l;
	(void)state;

	for (n = 0; n < 40000; n++) {
		l = n % N_LAYOUTS;
		assert_true(pkt_build(&p, layouts[l].it, layouts[l].n, rnd_flags(), rnd_below(48)));
		rnd_xlate(&x);
		check_xlate(&p, &x, &q);
	}
}

static void
test_xlate_wrap(void **state)
{
	static const enum opt_item it[] = { OI_NOP, OI_TS, OI_NOP, OI_SACK3 };
	struct pkt p, q;
	struct sy_xlate x = { .src_ip = 0x01020304, .dst_ip = 0x05060708 };
	uint8_t *t;
	(void)state;

	assert_true(pkt_build(&p, it, 4, RTE_TCP_ACK_FLAG, 10));
	t = p.b + 20;
	/* Upwards across 2^32 on one leg, downwards on the other. */
	put_be32(t + 4, 0xfffffff0u);
	put_be32(t + 8, 0x00000010u);
	put_be32(t + p.ts_off + 2, 0xffffff00u);
	put_be32(t + p.ts_off + 6, 0x00000005u);
	put_be32(t + p.sack_off[0] + 2, 0xfffffff8u); /* block straddling 2^32 */
	put_be32(t + p.sack_off[0] + 6, 0x00000008u);
	pkt_th(&p)->cksum = 0;
	pkt_th(&p)->cksum = rte_ipv4_udptcp_cksum(&p.ip, pkt_th(&p));
	x.seq_delta = 0x20;
	x.ack_delta = (uint32_t)-0x20;
	x.tsval_delta = 0x200;
	x.tsecr_delta = (uint32_t)-0x10;
	x.sack_delta = 0x10;
	check_xlate(&p, &x, &q);
	t = q.b + 20;
	assert_int_equal(get_be32(t + 4), 0x10);
	assert_int_equal(get_be32(t + 8), 0xfffffff0u);
	assert_int_equal(get_be32(t + q.ts_off + 2), 0x100);
	assert_int_equal(get_be32(t + q.ts_off + 6), 0xfffffff5u);
	assert_int_equal(get_be32(t + q.sack_off[0] + 2), 0x8);
	assert_int_equal(get_be32(t + q.sack_off[0] + 6), 0x18);
	assert_true(SEQ_LT(get_be32(t + q.sack_off[0] + 2), get_be32(t + q.sack_off[0] + 6)));
}

static void
test_xlate_window(void **state)
{
	static const struct {
		uint16_t win;
		uint8_t in, out;
		uint16_t want;
	} c[] = {
		{ 1000, 7, 7, 1000 },	{ 1000, 9, 7, 4000 },  { 1000, 7, 9, 250 },
		{ 1001, 7, 9, 251 },	{ 1, 0, 14, 1 },       { 1, 7, 14, 1 },
		{ 0, 14, 0, 0 },	{ 0, 0, 14, 0 },       { 65535, 14, 0, 65535 },
		{ 20000, 3, 0, 65535 }, { 8191, 3, 0, 65528 }, { 8192, 3, 0, 65535 },
		{ 65535, 0, 14, 4 },	{ 65535, 14, 14, 65535 },
	};
	struct pkt p, q;
	struct sy_xlate x;
	unsigned i;
	(void)state;

	for (i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		rnd_xlate(&x);
		x.win_shift_in = c[i].in;
		x.win_shift_out = c[i].out;
		assert_true(pkt_build(&p, NULL, 0, RTE_TCP_ACK_FLAG, 0));
		pkt_th(&p)->rx_win = rte_cpu_to_be_16(c[i].win);
		pkt_th(&p)->cksum = 0;
		pkt_th(&p)->cksum = rte_ipv4_udptcp_cksum(&p.ip, pkt_th(&p));
		check_xlate(&p, &x, &q);
		assert_int_equal(rte_be_to_cpu_16(pkt_th(&q)->rx_win), c[i].want);

		/* A SYN's (and SYN-ACK's) window is never scaled. */
		p.b[20 + 13] = RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG;
		pkt_th(&p)->cksum = 0;
		pkt_th(&p)->cksum = rte_ipv4_udptcp_cksum(&p.ip, pkt_th(&p));
		check_xlate(&p, &x, &q);
		assert_int_equal(rte_be_to_cpu_16(pkt_th(&q)->rx_win), c[i].win);
	}
}

static void
test_xlate_syn(void **state)
{
	static const enum opt_item odd[] = { OI_NOP, OI_MSS, OI_NOP, OI_TS, OI_NOP, OI_WS };
	static const enum opt_item even[] = { OI_MSS, OI_NOP, OI_NOP, OI_TS, OI_NOP, OI_WS };
	struct pkt p, q;
	struct sy_xlate x;
	unsigned v;
	(void)state;

	for (v = 0; v < 2; v++) {
		const enum opt_item *it = v ? odd : even;
		uint8_t *a, *t;

		assert_true(pkt_build(&p, it, 6, RTE_TCP_SYN_FLAG, 0));
		a = p.b + 20;
		put_be16(a + p.mss_off + 2, 1460);
		put_be32(a + p.ts_off + 6, 0); /* a SYN's TSecr */
		pkt_th(&p)->cksum = 0;
		pkt_th(&p)->cksum = rte_ipv4_udptcp_cksum(&p.ip, pkt_th(&p));
		rnd_xlate(&x);
		x.tsecr_delta = 0x12345678;

		/* Lowered... */
		x.mss_clamp = 1400;
		check_xlate(&p, &x, &q);
		t = q.b + 20;
		assert_int_equal(get_be16(t + q.mss_off + 2), 1400);
		/* ... never raised ... */
		x.mss_clamp = 9000;
		check_xlate(&p, &x, &q);
		assert_int_equal(get_be16(t + q.mss_off + 2), 1460);
		/* ... 0 leaves it. */
		x.mss_clamp = 0;
		check_xlate(&p, &x, &q);
		assert_int_equal(get_be16(t + q.mss_off + 2), 1460);
		/* The SYN's TSecr stays 0; its TSval moves. */
		assert_int_equal(get_be32(t + q.ts_off + 6), 0);
		assert_int_equal(get_be32(t + q.ts_off + 2), get_be32(a + p.ts_off + 2) + x.tsval_delta);

		/* A SYN-ACK's TSecr echoes: translated. */
		p.b[20 + 13] = RTE_TCP_SYN_FLAG | RTE_TCP_ACK_FLAG;
		pkt_th(&p)->cksum = 0;
		pkt_th(&p)->cksum = rte_ipv4_udptcp_cksum(&p.ip, pkt_th(&p));
		x.mss_clamp = 1000;
		check_xlate(&p, &x, &q);
		assert_int_equal(get_be32(t + q.ts_off + 6), 0x12345678);
		assert_int_equal(get_be16(t + q.mss_off + 2), 1000);

		/* An MSS option outside a SYN means nothing: left alone. */
		p.b[20 + 13] = RTE_TCP_ACK_FLAG;
		pkt_th(&p)->cksum = 0;
		pkt_th(&p)->cksum = rte_ipv4_udptcp_cksum(&p.ip, pkt_th(&p));
		check_xlate(&p, &x, &q);
		assert_int_equal(get_be16(t + q.mss_off + 2), 1460);
	}
}

static void
test_xlate_malformed(void **state)
{
	static const uint8_t bad[][8] = {
		{ 1, 1, 8, 10, 0, 0, 0, 0 }, /* TS running past the header */
		{ 1, 1, 5, 0, 0, 0, 0, 0 },  /* length 0: would loop forever */
		{ 1, 5, 1, 0, 0, 0, 0, 0 },  /* length 1 */
		{ 1, 1, 1, 1, 1, 1, 1, 5 },  /* kind without length byte */
	};
	struct pkt p, q;
	struct sy_xlate x;
	unsigned i;
	(void)state;

	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_true(pkt_build(&p, NULL, 0, RTE_TCP_ACK_FLAG, 0));
		memcpy(p.b + 40, bad[i], 8);
		pkt_th(&p)->data_off = 7 << 4;
		p.len += 8;
		p.ip.total_length = rte_cpu_to_be_16((uint16_t)p.len);
		rnd_xlate(&x);
		q = p;
		assert_int_equal(sy_xlate_tcp4(&q.ip, pkt_th(&q), &x), -1);
		assert_memory_equal(q.b, p.b, sizeof(p.b)); /* untouched */
	}
	assert_true(pkt_build(&p, NULL, 0, RTE_TCP_ACK_FLAG, 0));
	pkt_th(&p)->data_off = 4 << 4;
	q = p;
	assert_int_equal(sy_xlate_tcp4(&q.ip, pkt_th(&q), &x), -1);
	assert_memory_equal(q.b, p.b, sizeof(p.b));

	/* A SACK whose length is not 2 + 8n is ignored by receivers (Linux,
	 * FreeBSD); it is forwarded as is, with valid checksums. */
	{
		static const uint8_t odd_sack[] = { 1, 1, 5, 7, 1, 2, 3, 4, 5, 1, 1, 1 };

		assert_true(pkt_build(&p, NULL, 0, RTE_TCP_ACK_FLAG, 5));
		memmove(p.b + 40 + 12, p.b + 40, 5);
		memcpy(p.b + 40, odd_sack, 12);
		pkt_th(&p)->data_off = 8 << 4;
		p.len += 12;
		p.ip.total_length = rte_cpu_to_be_16((uint16_t)p.len);
		p.ip.hdr_checksum = 0;
		p.ip.hdr_checksum = rte_ipv4_cksum(&p.ip);
		pkt_th(&p)->cksum = 0;
		pkt_th(&p)->cksum = rte_ipv4_udptcp_cksum(&p.ip, pkt_th(&p));
		q = p;
		assert_int_equal(sy_xlate_tcp4(&q.ip, pkt_th(&q), &x), 0);
		assert_memory_equal(q.b + 40, odd_sack, 12);
		assert_csums(&q);
	}
}

/* Client -> backend with the deltas, then back with their negation: the
 * original bytes, checksums included. */
static void
test_xlate_round_trip(void **state)
{
	struct pkt p, q, r;
	struct sy_xlate f, b;
	unsigned n, l;
	(void)state;

	for (n = 0; n < 20000; n++) {
		l = n % N_LAYOUTS;
		assert_true(pkt_build(&p, layouts[l].it, layouts[l].n, rnd_flags(), rnd_below(48)));
		rnd_xlate(&f);
		f.mss_clamp = 0;
		/* Exact inverse only when scaling loses nothing: same scale, or a
		 * larger one on the way out with a small enough window. */
		if (rnd_below(2)) {
			f.win_shift_out = f.win_shift_in;
		} else {
			f.win_shift_in = (uint8_t)(4 + rnd_below(11));
			f.win_shift_out = (uint8_t)rnd_below(f.win_shift_in - 3);
			pkt_th(&p)->rx_win = rte_cpu_to_be_16((uint16_t)rnd_below(
				65536u >> (f.win_shift_in - f.win_shift_out)));
			pkt_th(&p)->cksum = 0;
			pkt_th(&p)->cksum = rte_ipv4_udptcp_cksum(&p.ip, pkt_th(&p));
		}
		check_xlate(&p, &f, &q);

		b = f;
		b.src_ip = p.ip.src_addr;
		b.dst_ip = p.ip.dst_addr;
		b.src_port = pkt_th(&p)->src_port;
		b.dst_port = pkt_th(&p)->dst_port;
		b.seq_delta = -f.seq_delta;
		b.ack_delta = -f.ack_delta;
		b.sack_delta = -f.sack_delta;
		b.tsval_delta = -f.tsval_delta;
		b.tsecr_delta = -f.tsecr_delta;
		b.win_shift_in = f.win_shift_out;
		b.win_shift_out = f.win_shift_in;
		check_xlate(&q, &b, &r);
		assert_memory_equal(r.b, p.b, p.len);
	}
}

static void
test_xlate_csum_offload(void **state)
{
	static const enum opt_item it[] = { OI_NOP, OI_TS, OI_NOP, OI_SACK2 };
	struct pkt p, q;
	struct sy_xlate x;
	(void)state;

	assert_true(pkt_build(&p, it, 4, RTE_TCP_ACK_FLAG, 17));
	rnd_xlate(&x);
	x.csum_offload = true;
	check_xlate(&p, &x, &q);
	assert_int_equal(q.ip.hdr_checksum, 0);
	assert_int_equal(pkt_th(&q)->cksum, rte_ipv4_phdr_cksum(&q.ip, 0));
}

/*
 * Random option bytes with the TCP header ending exactly at a page followed
 * by a PROT_NONE page (picohttpparser's trick): any read past data_off
 * crashes. Parser and translator must agree on what is malformed, and
 * whatever the translator accepts must come out with exact checksums.
 */
static void
test_opts_fuzz_guard_page(void **state)
{
	long pg = sysconf(_SC_PAGESIZE);
	uint8_t *map = mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	unsigned n, i, ok = 0;
	(void)state;

	assert_true(map != MAP_FAILED);
	assert_int_equal(mprotect(map + pg, (size_t)pg, PROT_NONE), 0);
	for (n = 0; n < 200000; n++) {
		unsigned hlen = 20 + 4 * rnd_below(11);
		uint8_t *tb = map + pg - hlen;
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(tb - 20);
		struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)tb;
		struct sy_tcp_syn_opts o;
		struct sy_xlate x;
		uint32_t tv, te;
		uint8_t before[80];
		int rp, rx;

		memset(ip, 0, 20);
		ip->version_ihl = 0x45;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(20 + hlen));
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_TCP;
		ip->src_addr = rnd32();
		ip->dst_addr = rnd32();
		for (i = 0; i < hlen; i++)
			tb[i] = (uint8_t)rnd64();
		/* Bias towards kinds that matter and walkable lengths. */
		for (i = 20; i < hlen; i++) {
			uint32_t r = rnd_below(16);

			if (r < 3)
				tb[i] = 1;
			else if (r < 5)
				tb[i] = (uint8_t)(rnd_below(2) ? 5 : 8);
			else if (r < 7)
				tb[i] = (uint8_t)(rnd_below(2) ? 10 : 2 + 8 * rnd_below(5));
		}
		th->data_off = (uint8_t)((hlen / 4) << 4);
		th->tcp_flags = rnd_flags();
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		th->cksum = 0;
		th->cksum = rte_ipv4_udptcp_cksum(ip, th);

		rp = sy_tcp_parse_syn_opts(th, &o);
		(void)sy_tcp_find_ts(th, &tv, &te);
		rnd_xlate(&x);
		memcpy(before, tb - 20, 20 + hlen);
		rx = sy_xlate_tcp4(ip, th, &x);
		assert_int_equal(rp, rx);
		if (rx < 0) {
			assert_memory_equal(before, tb - 20, 20 + hlen);
			continue;
		}
		ok++;
		{
			uint16_t ic = ip->hdr_checksum, tc = th->cksum;

			ip->hdr_checksum = 0;
			assert_int_equal(ic, rte_ipv4_cksum(ip));
			th->cksum = 0;
			assert_int_equal(tc, rte_ipv4_udptcp_cksum(ip, th));
		}
	}
	assert_true(ok > 1000); /* the bias produced enough valid lists */
	munmap(map, (size_t)pg * 2);
}

/*
 * Our ISN and TSval on a backend leg (tcp_isn.h) across reuse of one
 * 4-tuple. A Linux backend holding the last connection on it in TIME_WAIT
 * takes the next SYN only if its TSval is newer than the last it saw, or
 * (without timestamps) its seq is past the old connection's (RFC 6191): for
 * any gap and any old connection the clocks outran, both must hold. Also:
 * the ISN steps 15,625 a millisecond (64 ns), the TSval 1; other tuples get
 * unrelated ISNs, other address pairs unrelated TSvals; a restart that loads
 * the keys file gives the same numbers for the same wall-clock time.
 */
static void
test_backend_isn_reuse(void **state)
{
	const uint64_t ms = 2500000; /* TSC cycles per ms here: 2.5 GHz */
	const uint32_t snat = RTE_BE32(0xc6120101), be = RTE_BE32(0xc612010a);
	const uint16_t sport = RTE_BE16(40000), dport = RTE_BE16(80);
	char path[] = "/tmp/sy_leg_keyXXXXXX";
	struct sy_leg_clock a, b;
	uint32_t isn0, ts0;
	uint64_t t0;
	unsigned i;
	int fd;

	(void)state;
	assert_int_equal(sy_leg_clock_init(&a, ms), 0);
	t0 = a.base_tsc + 1000 * ms;
	isn0 = sy_backend_isn(&a, t0, snat, be, sport, dport);
	ts0 = sy_backend_tsval(&a, t0, snat, be);
	assert_int_equal(sy_backend_isn(&a, t0 + ms, snat, be, sport, dport) - isn0, 15625);
	assert_int_equal(sy_backend_tsval(&a, t0 + ms, snat, be) - ts0, 1);
	/* Hours later the clock has not overflowed: still 15,625 a ms. */
	assert_int_equal(sy_backend_isn(&a, t0 + 3600000ull * 5 * ms + ms, snat, be, sport, dport) -
				 sy_backend_isn(&a, t0 + 3600000ull * 5 * ms, snat, be, sport, dport),
			 15625);

	/* An old connection on the tuple: opened at t0, it lasted `life` ms
	 * of a client clock ticking at 1 kHz (its TSvals, translated, end at
	 * ts0 + life), carried `bytes` towards the backend, and closed; the
	 * backend's TIME_WAIT (60 s on Linux) keeps rcv_nxt (after our FIN) and
	 * the last TSval. The next SYN on the tuple comes `gap` ms later.
	 * Timestamps: newer for any life. Sequence numbers (what is left when
	 * the client has no timestamps): past, while the old connection sent
	 * less than the clock moved and life + gap < 2^31 steps of 64 ns
	 * (137 s), as with Linux's own ISNs. */
	for (i = 0; i < 4000; i++) {
		uint64_t life = rnd32() % (i & 1 ? 8 * 3600000u : 77000u), gap = 1 + rnd32() % 60000;
		uint64_t moved = (life + gap) * 15625;
		uint64_t t1 = t0 + (life + gap) * ms;
		uint32_t ts_recent = ts0 + (uint32_t)life;

		assert_true(SEQ_GT(sy_backend_tsval(&a, t1, snat, be), ts_recent));
		if (!(i & 1)) {
			uint32_t bytes = (uint32_t)(rnd32() % (moved - 2));
			uint32_t rcv_nxt = isn0 + 1 + bytes + 1;

			/* Linux: after(seq, rcv_nxt) */
			assert_true(SEQ_GT(sy_backend_isn(&a, t1, snat, be, sport, dport), rcv_nxt));
		}
	}

	/* Another port of the same pair: another ISN, the same TSval clock. */
	assert_int_not_equal(sy_backend_isn(&a, t0, snat, be, RTE_BE16(40001), dport), isn0);
	assert_int_equal(sy_backend_tsval(&a, t0, snat, be), ts0);
	assert_int_not_equal(sy_backend_tsval(&a, t0, snat, RTE_BE32(0xc612010b)), ts0);

	/* Restart: the keys come back from the file the first run wrote. */
	fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	unlink(path);
	assert_int_equal(sy_leg_clock_keys_file(&a, path), 0); /* first start: written */
	assert_int_equal(sy_leg_clock_init(&b, ms), 0);
	assert_memory_not_equal(b.isn_key, a.isn_key, 16);
	assert_int_equal(sy_leg_clock_keys_file(&b, path), 0); /* restart: read */
	assert_memory_equal(b.isn_key, a.isn_key, 16);
	assert_memory_equal(b.ts_key, a.ts_key, 16);
	/* The same wall-clock instant on the new run's TSC gives the same
	 * numbers, so a later one gives later ones. */
	b.base_ns = a.base_ns + 7 * 1000000ull;
	b.base_tsc = 12345;
	assert_int_equal(sy_backend_isn(&b, b.base_tsc + 993 * ms, snat, be, sport, dport), isn0);
	assert_int_equal(sy_backend_tsval(&b, b.base_tsc + 993 * ms, snat, be), ts0);
	/* A file of another size is an error, not replaced. */
	fd = open(path, O_WRONLY | O_TRUNC);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "short", 5), 5);
	close(fd);
	assert_int_equal(sy_leg_clock_keys_file(&b, path), -EINVAL);
	unlink(path);
}

int
main(void)
{
	const char *seed = getenv("SY_TEST_SEED");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_opts_linux_layouts),
		cmocka_unit_test(test_backend_isn_reuse),
		cmocka_unit_test(test_opts_round_trip_all),
		cmocka_unit_test(test_opts_parse_cases),
		cmocka_unit_test(test_siphash_vectors),
		cmocka_unit_test_setup(test_cookie_round_trip, cookie_setup),
		cmocka_unit_test_setup(test_cookie_mss_rounding, cookie_setup),
		cmocka_unit_test_setup(test_cookie_forgery, cookie_setup),
		cmocka_unit_test_setup(test_cookie_expiry, cookie_setup),
		cmocka_unit_test(test_cookie_rotation),
		cmocka_unit_test(test_xlate_random),
		cmocka_unit_test(test_xlate_wrap),
		cmocka_unit_test(test_xlate_window),
		cmocka_unit_test(test_xlate_syn),
		cmocka_unit_test(test_xlate_malformed),
		cmocka_unit_test(test_xlate_round_trip),
		cmocka_unit_test(test_xlate_csum_offload),
		cmocka_unit_test(test_opts_fuzz_guard_page),
	};

	if (seed != NULL && strtoull(seed, NULL, 0) != 0)
		rng_state = strtoull(seed, NULL, 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
