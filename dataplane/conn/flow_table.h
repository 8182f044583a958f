/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The flow table (conn/flow_table.c) finds a connection from either leg's tuple:
 *   - client leg: an rte_hash keyed by the client 4-tuple (one writer, so no
 *     locks);
 *   - backend leg: the destination port of a backend's segment is the SNAT
 *     port this worker gave the connection, and a SNAT port belongs to one
 *     connection at a time, so an array indexed by port finds the record
 *     without hashing; the record's backend tuple is then compared in full.
 * One hash key per connection instead of two halves the hash (memory, and
 * cache footprint at 32k flows) and takes the hashing off backend segments.
 *
 * In front of the hash, a client-leg cache for the established-flow fast
 * path (splice_fast.c): the key's hash picks a pair of slots, each holding a
 * record pointer tagged with 16 more bits of the hash. A burst's client
 * segments (IPv6 ones too, below) find their records with
 * one load each instead of an rte_hash lookup (bucket, then key store). It
 * is only a hint: a tag that
 * misses (the pair was full, or the record was evicted) goes to the hash,
 * and a record found through it is used only if its client tuple matches the
 * segment's field for field, as a hash key would. The fast path puts a
 * record it found through the hash, and whose client tuple matched, back in
 * its pair (sy_flow_cache_put): a flow a later one evicted comes back on its
 * next segment instead of paying the hash on every segment it has left.
 * Records leave it when they are freed, so it never points at a free record.
 */
#ifndef SY_FLOW_TABLE_H
#define SY_FLOW_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <rte_common.h>
#include <rte_hash.h>
#include <rte_hash_crc.h>
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_2__)
#include <nmmintrin.h>
#endif

#include "conn/conn_tables_t.h"
#include "conn/snat.h"
#include "sy_access_log.h"
#include "sy_addr.h"

struct sy_worker;

/* Client-leg cache slots: a power of two, two per pair, at least two per
 * flow. Past 32,768 flows the bits that pick a pair overlap the tag's: it
 * only tells fewer records apart, and a hit is checked field by field. */
static inline uint32_t
sy_flow_cache_slots(uint32_t flows)
{
	return rte_align32pow2(2u * flows);
}

static inline void
sy_flow_key_v4(struct sy_flow_key *k, uint32_t saddr, uint32_t daddr, uint16_t sport,
	       uint16_t dport)
{
	k->saddr = saddr;
	k->daddr = daddr;
	k->sport = sport;
	k->dport = dport;
	k->zero = 0;
}

/*
 * The hash the flow table uses (conn.c gives rte_hash rte_hash_crc and this
 * init value): the same two 8-byte CRC steps rte_hash_crc() takes over the
 * 16-byte key, computed from the tuple's values, so a burst hashes its keys
 * without indirect calls and without a key in memory. Reading a key back as
 * 8-byte words right after writing it as 4- and 2-byte fields stalls (no
 * store forwarding), and through rte_hash_crc()'s uint64_t pointer it breaks
 * C's aliasing rules: inlined, gcc -O2 hashed a stale stack slot (a unit
 * test got the same hash for every port).
 */
#define SY_FLOW_HASH_INIT 0

/* The same hash from the key's two 8-byte words as a load sees them: the
 * first is (saddr, daddr) as they lie in an IPv4 header, the second (sport,
 * dport, 0) (splice_fast.c loads them from the packet). CRC32-C either way;
 * where the compiler may use the instruction, without rte_hash_crc's check
 * of which implementation to call. */
static inline hash_sig_t
sy_flow_hash_words(uint64_t w0, uint64_t w1)
{
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_2__)
	return (hash_sig_t)_mm_crc32_u64(_mm_crc32_u64(SY_FLOW_HASH_INIT, w0), w1);
#else
	return rte_hash_crc_8byte(w1, rte_hash_crc_8byte(w0, SY_FLOW_HASH_INIT));
#endif
}

static inline hash_sig_t
sy_flow_hash_v4(uint32_t saddr, uint32_t daddr, uint16_t sport, uint16_t dport)
{
	struct sy_flow_key k;
	uint64_t w[2];

	/* Through memcpy, not a cast: the words are read as the key's bytes
	 * (gcc turns this into shifts and ors on registers). */
	sy_flow_key_v4(&k, saddr, daddr, sport, dport);
	memcpy(w, &k, sizeof(w));
	return sy_flow_hash_words(w[0], w[1]);
}

static inline hash_sig_t
sy_flow_hash(const struct sy_flow_key *k)
{
	return sy_flow_hash_v4(k->saddr, k->daddr, k->sport, k->dport);
}

/* The IPv6 table's hash (conn.c gives it rte_hash_crc too, over the
 * 48-byte key) from the key's six words as a load sees them: the four of
 * the addresses as they lie in an IPv6 header (a0..a3), (sport, dport, 0)
 * and 0. Words as values, not an array: splice_fast.c hashes what it
 * loaded from the frame, kept in registers. */
static inline hash_sig_t
sy_flow_hash6_words(uint64_t a0, uint64_t a1, uint64_t a2, uint64_t a3, uint64_t ports)
{
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_2__)
	uint64_t h = _mm_crc32_u64(_mm_crc32_u64(SY_FLOW_HASH_INIT, a0), a1);

	h = _mm_crc32_u64(_mm_crc32_u64(h, a2), a3);
	return (hash_sig_t)_mm_crc32_u64(_mm_crc32_u64(h, ports), 0);
#else
	hash_sig_t h = rte_hash_crc_8byte(a1, rte_hash_crc_8byte(a0, SY_FLOW_HASH_INIT));

	h = rte_hash_crc_8byte(a3, rte_hash_crc_8byte(a2, h));
	return rte_hash_crc_8byte(0, rte_hash_crc_8byte(ports, h));
#endif
}

static inline hash_sig_t
sy_flow_hash6(const struct sy_flow_key6 *k)
{
	uint64_t w[6];

	memcpy(w, k, sizeof(w));
	return sy_flow_hash6_words(w[0], w[1], w[2], w[3], w[4]);
}

/* Client leg: the hash. */
struct sy_conn *sy_flow_lookup(struct sy_worker *w, const struct sy_flow_key *k);
/* Adds c under k (its client tuple) to the hash and the cache. */
int sy_flow_add(struct sy_worker *w, const struct sy_flow_key *k, struct sy_conn *c);
/* Removes c, under k, from both. */
void sy_flow_del(struct sy_worker *w, const struct sy_flow_key *k, const struct sy_conn *c);

/* The pair a key's hash picks: its low bits. CRC-32C is linear over GF(2),
 * so keys that differ in the client port alone reach them through a linear
 * map; for IPv4 keys its rank over the low 17 bits is 15, and one client's
 * consecutive ports fill both slots of the pairs they use, two by two. The
 * next flows to land there evict them, and the fast path puts them back
 * (sy_flow_cache_put) when it finds them through the hash. Mixing the hash
 * first (a multiply) spread such keys at random instead: more pairs with
 * three or more, 25-45 cycles a packet more at 100,000 flows in process
 * (perf/journal/splice_bench.md). */
static inline uint32_t
sy_flow_cache_index(const struct sy_conn_tables *t, hash_sig_t sig)
{
	return sig & (t->cache_mask >> 1);
}

/* The cache pair for a key's hash, and what a slot holds: the record's
 * address in the low 48 bits (user-space addresses fit), 16 bits of the hash
 * that did not pick the pair above them. */
static inline uint64_t *
sy_flow_cache_pair(const struct sy_conn_tables *t, hash_sig_t sig)
{
	return &t->client_cache[2 * (size_t)sy_flow_cache_index(t, sig)];
}

static inline uint64_t
sy_flow_cache_tag(hash_sig_t sig)
{
	return (uint64_t)(sig >> 16) << 48;
}

/* c into pair under sig: an empty slot, else the first (the record it held
 * is still found through the hash, and comes back on its next segment).
 * Not again if it is there: two segments of a flow in one burst both find
 * it through the hash, and the second copy would take the other slot. A
 * record above the 48 bits a slot holds is left out: only the hash has it. */
static inline void
sy_flow_cache_put(uint64_t *pair, hash_sig_t sig, const struct sy_conn *c)
{
	uint64_t e = (uint64_t)(uintptr_t)c | sy_flow_cache_tag(sig);

	if (((uintptr_t)c >> 48) != 0 || pair[0] == e || pair[1] == e)
		return;
	if (pair[0] == 0)
		pair[0] = e;
	else if (pair[1] == 0)
		pair[1] = e;
	else
		pair[0] = e;
}

/* The record in pair whose tag is sig's, or NULL. */
static inline struct sy_conn *
sy_flow_cache_find(const uint64_t *pair, hash_sig_t sig)
{
	const uint64_t addr = (1ull << 48) - 1, tag = sy_flow_cache_tag(sig);
	unsigned i;

	for (i = 0; i < 2; i++)
		if (pair[i] != 0 && (pair[i] & ~addr) == tag)
			return (struct sy_conn *)(uintptr_t)(pair[i] & addr);
	return NULL;
}

/*
 * IPv6 legs (SY_V6_CLIENT, SY_V6_BACKEND): their own hashes, w->tcp.flows6
 * (client legs) and flows6_b (backend legs), with 48-byte keys, so an IPv4
 * key stays 16 bytes. A client leg's key is in the cache above too, under
 * its IPv6 hash (the burst fast path looks an IPv6 client segment's key up
 * there as an IPv4 one's; what it finds is checked field for field, so a
 * record of the other family under a tag is only a miss). A backend leg is
 * also in its SNAT slot (snat.h, row snat_k), where the fast path finds it
 * without hashing, as an IPv4 backend leg. A worker without IPv6 legs puts
 * nothing of theirs anywhere. A record's IPv6 addresses are in its IPv6
 * side (struct sy_conn_v6), right after it in its slot of the arena, which
 * has that room only when a port speaks IPv6 (conn/conn_tables_t.h).
 */
static inline struct sy_conn_v6 *
sy_conn_v6_of(const struct sy_conn_tables *t, const struct sy_conn *c)
{
	RTE_ASSERT(t->conns.shift == 8);
	(void)t;
	return (struct sy_conn_v6 *)((uintptr_t)c ^ sizeof(*c));
}

/* The key in three 16-byte stores, the ports and padding composed in a
 * register: built field by field (2-byte ports beside an 8-byte pad), it
 * is read back wider than it was written (its hash's 8-byte words,
 * rte_hash's 16-byte compares and copy), which the store buffer cannot
 * forward, so each such load waited for every older store to reach the
 * cache: on a new connection, the stores to the record's lines that had
 * just missed (some 150 cycles a new IPv6 connection, measured). */
static inline void
sy_flow_key_v6(struct sy_flow_key6 *k, const uint8_t saddr[16], const uint8_t daddr[16],
	       uint16_t sport, uint16_t dport)
{
	uint8_t *b = (uint8_t *)k;

	_Static_assert(offsetof(struct sy_flow_key6, sport) == 32 &&
			       offsetof(struct sy_flow_key6, dport) == 34,
		       "sy_flow_key6: the ports open its third 16 bytes");
#if defined(RTE_ARCH_X86_64) && defined(__SSE4_2__)
	_mm_storeu_si128((__m128i *)(void *)b, _mm_loadu_si128((const __m128i *)(const void *)saddr));
	_mm_storeu_si128((__m128i *)(void *)(b + 16),
			 _mm_loadu_si128((const __m128i *)(const void *)daddr));
	/* Little-endian: sport in the word's low half, as memory has it. */
	_mm_storeu_si128((__m128i *)(void *)(b + 32),
			 _mm_cvtsi32_si128((int)((uint32_t)sport | (uint32_t)dport << 16)));
#else
	memcpy(b, saddr, 16);
	memcpy(b + 16, daddr, 16);
	k->sport = sport;
	k->dport = dport;
	memset(k->zero, 0, sizeof(k->zero));
#endif
}

/* The record of an IPv6 segment's tuple k (as it arrives; sig its
 * sy_flow_hash6), either leg's, or NULL. A backend leg's destination port
 * is a SNAT port, never below SY_SNAT_PORT_MIN: a tuple to such a port is
 * tried as a backend leg's first (as IPv4's SNAT slot is), then as a
 * client's; one to a lower port, a listen port (every SYN to 80 or 443),
 * costs the client table's lookup alone. */
static inline struct sy_conn *
sy_flow6_find(const struct sy_conn_tables *t, const struct sy_flow_key6 *k, hash_sig_t sig)
{
	void *data;

	if (rte_be_to_cpu_16(k->dport) >= SY_SNAT_PORT_MIN &&
	    rte_hash_lookup_with_hash_data(t->flows6_b, k, sig, &data) >= 0)
		return data;
	if (rte_hash_lookup_with_hash_data(t->flows6, k, sig, &data) >= 0)
		return data;
	return NULL;
}

/* The record of an IPv6 segment's tuple (as it arrives), or NULL. */
struct sy_conn *sy_flow_lookup6(struct sy_worker *w, const struct sy_flow_key6 *k);
/* Adds c (SY_V6_CLIENT, ports set) under its client tuple, whose addresses
 * are given as the segment that opens it carries them (client, vip):
 * read from the frame, still in cache, not back from the record's
 * sy_conn_v6 line, just written and not there yet (a miss on every new
 * IPv6 connection, measured). 0 or the hash's error. */
int sy_flow_add6(struct sy_worker *w, struct sy_conn *c, const uint8_t client[16],
		 const uint8_t vip[16]);
void sy_flow_del6(struct sy_worker *w, const struct sy_conn *c);

/* Backend leg: c->snat_port (set) now finds c, or no longer does: through
 * its SNAT port's slot, or for an IPv6 backend leg (SY_V6_BACKEND) through
 * the IPv6 hash, keyed by the backend's tuple. Sets and clears
 * SY_CF_BACKEND_KEY. */
void sy_flow_backend_add(struct sy_worker *w, struct sy_conn *c);
void sy_flow_backend_del(struct sy_worker *w, struct sy_conn *c);

/*
 * What an IPv4 backend leg's SNAT port slot holds: its record's address,
 * with bit 0 set when the record has an IPv6 leg (its client's): the burst
 * fast path's hint to prefetch the record's IPv6 addresses (the cold array)
 * with the record, before it can read the record's flags. Only a hint: the
 * record's own flags decide. Records are 64-byte aligned, so bit 0 is free.
 */
#define SY_SNAT_SLOT_V6 ((uintptr_t)1)

static inline struct sy_conn *
sy_snat_slot_value(const struct sy_conn *c)
{
	return (struct sy_conn *)((uintptr_t)c | ((c->flags & SY_CF_V6) ? SY_SNAT_SLOT_V6 : 0));
}

static inline struct sy_conn *
sy_snat_slot_conn(const struct sy_conn *v)
{
	return (struct sy_conn *)((uintptr_t)v & ~SY_SNAT_SLOT_V6);
}

/* The record whose backend leg is exactly (saddr:sport -> daddr:dport), all
 * network order, or NULL. No hashing: the address and port name the slot. */
static inline struct sy_conn *
sy_flow_backend_lookup(const struct sy_conn_tables *t, uint32_t saddr, uint32_t daddr,
		       uint16_t sport, uint16_t dport)
{
	struct sy_conn *c = sy_snat_slot_conn(*sy_snat_slot(t, daddr, dport));

	/* The slot may hold an IPv6 leg of the same index and port, whose
	 * address fields are only folds (conn_t.h): never this segment's. */
	if (c != NULL && c->snat_port == dport && c->backend_port == sport &&
	    c->backend_ip == saddr && c->snat_ip == daddr && !sy_conn_backend_v6(c))
		return c;
	return NULL;
}

/* The record a segment (saddr:sport -> daddr:dport) belongs to, and which
 * leg it came on; NULL if none. */
struct sy_conn *sy_flow_find(struct sy_worker *w, uint32_t saddr, uint32_t daddr, uint16_t sport,
			     uint16_t dport, bool *from_client);

/* What a PROXY protocol header said of c's client, when the config asks
 * for the header (listen.proxy_protocol), else NULL. */
static inline const struct sy_pp_src *
sy_conn_pp_src(const struct sy_conn_tables *t, const struct sy_conn *c)
{
	return t->pp_src != NULL ? &t->pp_src[sy_conn_index(&t->conns, c)] : NULL;
}

/* A record's client address, either family (allowlists, rate limits, logs,
 * X-Forwarded-For): the one a PROXY protocol header named, if any, else the
 * connection's own. */
static inline struct sy_addr
sy_conn_client_addr(const struct sy_conn_tables *t, const struct sy_conn *c)
{
	const struct sy_pp_src *s = sy_conn_pp_src(t, c);

	if (s != NULL && s->set)
		return s->addr;
	return sy_conn_client_v6(c) ? sy_addr_v6(sy_conn_v6_of(t, c)->client) : sy_addr_v4(c->client_ip);
}

/* An access log record's client, as a PROXY protocol header named it
 * (when one did): address and port in the record's fields. */
static inline void
sy_alog_pp_client(const struct sy_conn_tables *t, const struct sy_conn *c, struct sy_access_rec *r)
{
	const struct sy_pp_src *s = sy_conn_pp_src(t, c);

	if (s == NULL || !s->set)
		return;
	r->client_port = s->port;
	if (s->addr.family == AF_INET6) {
		r->v6 |= SY_ALOG_V6_CLIENT;
		memcpy(r->client6, s->addr.v6, 16);
	} else {
		r->v6 &= (uint8_t)~SY_ALOG_V6_CLIENT;
		r->client_ip = s->addr.v4;
	}
}

#endif
