/* SPDX-License-Identifier: BSD-3-Clause */
/* The DNS responder (dns.h): RFC 1035 messages, answered in place. */
#include <stdatomic.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_udp.h>

#include "dns/dns.h"
#include "net/net.h"
#include "sy_dns.h"
#include "vrrp/vrrp.h"
#include "worker.h"

#define DNS_HDR 12
#define T_A 1
#define T_NS 2
#define T_SOA 6
#define T_AAAA 28
#define T_ANY 255
#define C_IN 1
#define RC_NOERROR 0
#define RC_FORMERR 1
#define RC_NXDOMAIN 3
#define RC_NOTIMP 4
#define RC_REFUSED 5
#define DNS_MAX_UDP 512

struct dns_out {
	uint8_t *p;
	unsigned len, room;
	bool full;
};

static void
put(struct dns_out *o, const void *b, unsigned n)
{
	if (o->full || o->len + n > o->room) {
		o->full = true;
		return;
	}
	memcpy(o->p + o->len, b, n);
	o->len += n;
}

static void
put16(struct dns_out *o, uint16_t v)
{
	uint8_t b[2] = { (uint8_t)(v >> 8), (uint8_t)v };

	put(o, b, 2);
}

static void
put32(struct dns_out *o, uint32_t v)
{
	uint8_t b[4] = { (uint8_t)(v >> 24), (uint8_t)(v >> 16), (uint8_t)(v >> 8), (uint8_t)v };

	put(o, b, 4);
}

/* A name in labels: a pointer (compression) to offset `at` of the message,
 * after `prefix` (a label, or NULL). */
static void
put_name_ptr(struct dns_out *o, const char *prefix, unsigned at)
{
	if (prefix != NULL) {
		uint8_t l = (uint8_t)strlen(prefix);

		put(o, &l, 1);
		put(o, prefix, l);
	}
	put16(o, (uint16_t)(0xc000 | at));
}

/* The question's name, lower case with dots, into name (len); the offset
 * after it, or 0 when it is malformed (compression in a question, a label
 * over 63, a name over 253). */
static unsigned
read_qname(const uint8_t *q, unsigned qlen, char *name, unsigned *len)
{
	unsigned off = DNS_HDR, n = 0;

	for (;;) {
		unsigned l, i;

		if (off >= qlen)
			return 0;
		l = q[off++];
		if (l == 0)
			break;
		if (l > 63 || off + l > qlen || n + l + 1 > SY_DNS_NAME_MAX + 1)
			return 0;
		if (n > 0)
			name[n++] = '.';
		for (i = 0; i < l; i++) {
			uint8_t c = q[off + i];

			name[n++] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
		}
		off += l;
	}
	name[n] = '\0';
	*len = n;
	return off;
}

/* The zone name (len) is under or equal to: which zone, and where in name
 * the zone starts (the labels before it are the owner's). */
static const struct sy_dns_zone *
find_zone(const struct sy_dns_table *t, const char *name, unsigned len, unsigned *at)
{
	const struct sy_dns_zone *best = NULL;
	uint32_t i;

	for (i = 0; t != NULL && i < t->n; i++) {
		const struct sy_dns_zone *z = &t->z[i];

		if (z->name_len > len || memcmp(name + len - z->name_len, z->name, z->name_len) != 0)
			continue;
		if (z->name_len < len && name[len - z->name_len - 1] != '.')
			continue; /* "xshard1.test" is not under "shard1.test" */
		if (best == NULL || z->name_len > best->name_len) {
			best = z;
			*at = len - z->name_len;
		}
	}
	return best;
}

/* The zone's apex (its SOA, NS) relative to the question's name: the
 * apex's offset in the message, for compression. */
static void
put_soa(struct dns_out *o, const struct sy_dns_table *t, unsigned apex)
{
	unsigned rdlen_at;

	put_name_ptr(o, NULL, apex);
	put16(o, T_SOA);
	put16(o, C_IN);
	put32(o, SY_DNS_TTL);
	rdlen_at = o->len;
	put16(o, 0);
	put_name_ptr(o, "ns1", apex);
	put_name_ptr(o, "hostmaster", apex);
	put32(o, t->serial);
	put32(o, 3600);  /* refresh */
	put32(o, 600);   /* retry */
	put32(o, 86400); /* expire */
	put32(o, SY_DNS_TTL); /* negative answers' TTL (RFC 2308) */
	if (!o->full) {
		unsigned rdlen = o->len - rdlen_at - 2;

		o->p[rdlen_at] = (uint8_t)(rdlen >> 8);
		o->p[rdlen_at + 1] = (uint8_t)rdlen;
	}
}

static void
put_a(struct dns_out *o, unsigned owner, uint32_t addr_be)
{
	put_name_ptr(o, NULL, owner);
	put16(o, T_A);
	put16(o, C_IN);
	put32(o, SY_DNS_TTL);
	put16(o, 4);
	put(o, &addr_be, 4);
}

static void
put_aaaa(struct dns_out *o, unsigned owner, const uint8_t addr[16])
{
	put_name_ptr(o, NULL, owner);
	put16(o, T_AAAA);
	put16(o, C_IN);
	put32(o, SY_DNS_TTL);
	put16(o, 16);
	put(o, addr, 16);
}

static void
set_counts(uint8_t *h, unsigned an, unsigned ns, unsigned ar)
{
	h[6] = (uint8_t)(an >> 8);
	h[7] = (uint8_t)an;
	h[8] = (uint8_t)(ns >> 8);
	h[9] = (uint8_t)ns;
	h[10] = (uint8_t)(ar >> 8);
	h[11] = (uint8_t)ar;
}

unsigned
sy_dns_answer(const uint8_t *q, unsigned qlen, const struct sy_dns_table *t, uint32_t self,
	      unsigned rot, uint8_t *out, unsigned room)
{
	struct sy_dns_self s = { .v4 = self };

	return sy_dns_answer_active(q, qlen, t, &s, rot, NULL, NULL, out, room);
}

unsigned
sy_dns_answer_active(const uint8_t *q, unsigned qlen, const struct sy_dns_table *t,
		     const struct sy_dns_self *self,
		     unsigned rot, bool (*active)(const void *ctx, const struct sy_addr *vip), const void *ctx,
		     uint8_t *out, unsigned room)
{
	uint32_t vips[SY_DNS_VIPS_MAX];
	const uint8_t *vips6[SY_DNS_VIPS_MAX];
	unsigned n_vips = 0, n_vips6 = 0;
	struct dns_out o = { .p = out, .len = 0, .room = room < DNS_MAX_UDP ? room : DNS_MAX_UDP };
	char name[SY_DNS_NAME_MAX + 2];
	unsigned nlen = 0, qend, zat = 0, an = 0, ns = 0, ar = 0, i;
	const struct sy_dns_zone *z;
	uint16_t qtype, qclass;
	uint8_t rcode = RC_NOERROR;
	bool aa = false;

	if (qlen < DNS_HDR || room < DNS_HDR)
		return 0;
	if (q[2] & 0x80)
		return 0; /* a response: never answered (no loops between servers) */
	memcpy(out, q, DNS_HDR);
	o.len = DNS_HDR;
	out[2] = (uint8_t)(0x80 | (q[2] & 0x79)); /* QR, the opcode and RD back */
	out[3] = 0;
	set_counts(out, 0, 0, 0);
	out[4] = 0;
	out[5] = 0;
	if (((q[2] >> 3) & 0x0f) != 0) {
		out[3] = RC_NOTIMP;
		return DNS_HDR;
	}
	if (q[4] != 0 || q[5] != 1 || (qend = read_qname(q, qlen, name, &nlen)) == 0 ||
	    qend + 4 > qlen) {
		out[3] = RC_FORMERR;
		return DNS_HDR;
	}
	qtype = (uint16_t)(q[qend] << 8 | q[qend + 1]);
	qclass = (uint16_t)(q[qend + 2] << 8 | q[qend + 3]);
	/* The question, as asked (its name keeps the client's case). */
	put(&o, q + DNS_HDR, qend + 4 - DNS_HDR);
	out[5] = 1;
	z = qclass == C_IN ? find_zone(t, name, nlen, &zat) : NULL;
	if (z == NULL) {
		out[3] = RC_REFUSED;
		return o.len;
	}
	aa = true;
	{
		/* Offsets in the message: the question's name at 12; the apex
		 * where its labels start in it. */
		unsigned apex = DNS_HDR + zat;
		bool at_apex = zat == 0;
		bool is_ns1 = zat == 4 && memcmp(name, "ns1.", 4) == 0;

		if (at_apex && (qtype == T_SOA || qtype == T_ANY)) {
			put_soa(&o, t, apex);
			an++;
		}
		if (at_apex && (qtype == T_NS || qtype == T_ANY)) {
			unsigned rd;

			put_name_ptr(&o, NULL, apex);
			put16(&o, T_NS);
			put16(&o, C_IN);
			put32(&o, SY_DNS_TTL);
			rd = o.len;
			put16(&o, 0);
			put_name_ptr(&o, "ns1", apex);
			if (!o.full) {
				out[rd] = 0;
				out[rd + 1] = (uint8_t)(o.len - rd - 2);
			}
			an++;
		}
		if (is_ns1) {
			/* the responder's own addresses, the family asked */
			if ((qtype == T_A || qtype == T_ANY) && self->v4 != 0) {
				put_a(&o, DNS_HDR, self->v4);
				an++;
			}
			if ((qtype == T_AAAA || qtype == T_ANY) && self->v6_on) {
				put_aaaa(&o, DNS_HDR, self->v6);
				an++;
			}
		} else if (!at_apex) {
			/* Only the VIPs a master serves now (VIP failover),
			 * of either family. */
			for (i = 0; i < z->n_vips && i < SY_DNS_VIPS_MAX; i++) {
				struct sy_addr a = sy_addr_v4(z->vips[i]);

				if (active == NULL || active(ctx, &a))
					vips[n_vips++] = z->vips[i];
			}
			for (i = 0; i < z->n_vips6 && i < SY_DNS_VIPS_MAX; i++) {
				struct sy_addr a = sy_addr_v6(z->vips6[i]);

				if (active == NULL || active(ctx, &a))
					vips6[n_vips6++] = z->vips6[i];
			}
			if (n_vips == 0 && n_vips6 == 0) {
				rcode = RC_NXDOMAIN; /* no wildcard record: no such name */
			} else {
				/* Each family turned round alike; a type the
				 * shard has no VIP of is NODATA (below). */
				if (qtype == T_A || qtype == T_ANY)
					for (i = 0; i < n_vips; i++) {
						put_a(&o, DNS_HDR, vips[(i + rot) % n_vips]);
						an++;
					}
				if (qtype == T_AAAA || qtype == T_ANY)
					for (i = 0; i < n_vips6; i++) {
						put_aaaa(&o, DNS_HDR, vips6[(i + rot) % n_vips6]);
						an++;
					}
			}
		}
		if (an == 0) {
			/* NODATA or NXDOMAIN: the SOA says for how long. */
			put_soa(&o, t, apex);
			ns++;
		}
	}
	if (o.full) {
		/* Over 512 bytes: the header and question, TC set. */
		o.len = qend + 4;
		an = ns = ar = 0;
		out[2] |= 0x02;
	}
	out[2] |= aa ? 0x04 : 0;
	out[3] = rcode;
	set_counts(out, an, ns, ar);
	return o.len;
}

/* With vrrp on, a VIP of ours is answered while a master serves it: this
 * node, or a peer heard within the master-down interval. VIPs of other
 * Routers (not ours to watch) are answered as published. */
static bool
dns_vip_active(const void *ctx, const struct sy_addr *vip)
{
	const struct sy_worker *w = ctx;
	const struct sy_vrrp *v = w->sh->vrrp;
	int i = -1;
	unsigned k;

	if (vip->family == AF_INET6) {
		i = sy_vrrp_vip6_index(v, vip->v6);
	} else {
		for (k = 0; k < SY_VRRP_VIPS_MAX && i < 0; k++)
			if (atomic_load_explicit(&v->pub[k].vip, memory_order_relaxed) == vip->v4)
				i = (int)k;
	}
	if (i < 0)
		return true;
	return w->now < atomic_load_explicit(&v->pub[i].active_until, memory_order_relaxed);
}

/* The answer to the query in the UDP datagram at uh (plen bytes after
 * its header) into reply, counted by its rcode; its length, or 0: drop it. */
static unsigned
answer_query(struct sy_worker *w, const struct rte_udp_hdr *uh, unsigned plen,
	     uint8_t reply[DNS_MAX_UDP])
{
	const struct sy_dp_shared *sh = w->sh;
	const struct sy_dns_table *t;
	unsigned n;

	w->counters.dns_queries++;
	t = atomic_load_explicit(&sh->dns_zones, memory_order_acquire);
	n = sy_dns_answer_active((const uint8_t *)(uh + 1), plen, t, &sh->dns_self,
				 (unsigned)w->counters.dns_queries, sh->vrrp ? dns_vip_active : NULL,
				 w, reply, DNS_MAX_UDP);
	if (n == 0)
		return 0;
	switch (reply[3] & 0x0f) {
	case RC_NOERROR: w->counters.dns_noerror++; break;
	case RC_NXDOMAIN: w->counters.dns_nxdomain++; break;
	case RC_REFUSED: w->counters.dns_refused++; break;
	default: w->counters.dns_errors++; break;
	}
	return n;
}

void
sy_udp_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	const struct sy_dp_shared *sh = w->sh;
	struct rte_ipv4_hdr *ip = rte_pktmbuf_mtod(m, struct rte_ipv4_hdr *);
	uint16_t hlen = m->l3_len, ulen;
	struct rte_udp_hdr *uh;
	uint8_t reply[DNS_MAX_UDP];
	unsigned n, plen;
	uint32_t src;
	uint16_t sport;

	(void)port;
	if (sh->dns_self.v4 == 0 || ip->dst_addr != sh->dns_self.v4 ||
	    m->data_len < hlen + sizeof(*uh)) {
		sy_drop(w, m, SY_DROP_UDP_NO_SERVICE);
		return;
	}
	uh = rte_pktmbuf_mtod_offset(m, struct rte_udp_hdr *, hlen);
	if (uh->dst_port != RTE_BE16(53)) {
		sy_drop(w, m, SY_DROP_UDP_NO_SERVICE);
		return;
	}
	ulen = rte_be_to_cpu_16(uh->dgram_len);
	/* One segment (a query is small; the answer is written over it). */
	if (m->nb_segs != 1 || ulen < sizeof(*uh) || hlen + ulen > rte_be_to_cpu_16(ip->total_length) ||
	    hlen + ulen > m->data_len ||
	    (uh->dgram_cksum != 0 && rte_ipv4_udptcp_cksum_verify(ip, uh) != 0)) {
		sy_drop(w, m, SY_DROP_DNS_MALFORMED);
		return;
	}
	plen = ulen - sizeof(*uh);
	n = answer_query(w, uh, plen, reply);
	if (n == 0) {
		sy_drop(w, m, SY_DROP_DNS_MALFORMED);
		return;
	}
	/* The answer in the query's place: no IP options, the addresses and
	 * ports swapped. */
	ip = sy_ipv4_strip_options(m, hlen);
	hlen = sizeof(*ip);
	if (rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - hlen - sizeof(*uh))) != 0 ||
	    rte_pktmbuf_append(m, (uint16_t)n) == NULL) {
		sy_drop(w, m, SY_DROP_NO_MBUF);
		return;
	}
	uh = rte_pktmbuf_mtod_offset(m, struct rte_udp_hdr *, hlen);
	memcpy(uh + 1, reply, n);
	sport = uh->src_port;
	uh->src_port = uh->dst_port;
	uh->dst_port = sport;
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*uh) + n));
	src = ip->src_addr;
	ip->src_addr = ip->dst_addr;
	ip->dst_addr = src;
	ip->total_length = rte_cpu_to_be_16((uint16_t)(hlen + sizeof(*uh) + n));
	ip->time_to_live = SY_IPV4_DEFAULT_TTL;
	ip->fragment_offset = 0;
	ip->hdr_checksum = 0;
	uh->dgram_cksum = 0;
	uh->dgram_cksum = rte_ipv4_udptcp_cksum(ip, uh);
	m->l3_len = hlen;
	sy_ipv4_output(w, m);
}

void
sy_udp6_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m)
{
	const struct sy_dp_shared *sh = w->sh;
	struct rte_ipv6_hdr *ip6 = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
	uint16_t off = m->l3_len, ulen;
	struct rte_udp_hdr *uh;
	uint8_t reply[DNS_MAX_UDP], src[16];
	unsigned n;
	uint16_t sport;

	if (!sh->dns_self.v6_on || memcmp(ip6->dst_addr, sh->dns_self.v6, 16) != 0 ||
	    m->nb_segs != 1 || m->data_len < off + sizeof(*uh)) {
		sy_drop(w, m, SY_DROP_UDP_NO_SERVICE);
		return;
	}
	uh = rte_pktmbuf_mtod_offset(m, struct rte_udp_hdr *, off);
	if (uh->dst_port != RTE_BE16(53)) {
		sy_drop(w, m, SY_DROP_UDP_NO_SERVICE);
		return;
	}
	/* The fixed header only from here (extension headers dropped): the
	 * checksum's pseudo-header and the answer both want UDP right after
	 * it. */
	if (off > sizeof(*ip6)) {
		uint16_t ext = (uint16_t)(off - sizeof(*ip6));

		memmove((uint8_t *)ip6 + ext, ip6, sizeof(*ip6));
		rte_pktmbuf_adj(m, ext);
		ip6 = rte_pktmbuf_mtod(m, struct rte_ipv6_hdr *);
		ip6->payload_len =
			rte_cpu_to_be_16((uint16_t)(rte_be_to_cpu_16(ip6->payload_len) - ext));
		ip6->proto = IPPROTO_UDP;
		off = sizeof(*ip6);
		uh = rte_pktmbuf_mtod_offset(m, struct rte_udp_hdr *, off);
	}
	ulen = rte_be_to_cpu_16(uh->dgram_len);
	/* The datagram is the whole payload; a checksum is required over
	 * IPv6 (RFC 8200 8.1: a zero one is dropped). */
	if (ulen < sizeof(*uh) || ulen != rte_be_to_cpu_16(ip6->payload_len) ||
	    off + ulen > m->data_len || uh->dgram_cksum == 0 ||
	    rte_ipv6_udptcp_cksum_verify(ip6, uh) != 0) {
		sy_drop(w, m, SY_DROP_DNS_MALFORMED);
		return;
	}
	n = answer_query(w, uh, ulen - sizeof(*uh), reply);
	if (n == 0) {
		sy_drop(w, m, SY_DROP_DNS_MALFORMED);
		return;
	}
	/* The answer in the query's place, addresses and ports swapped. */
	if (rte_pktmbuf_trim(m, (uint16_t)(m->pkt_len - off - sizeof(*uh))) != 0 ||
	    rte_pktmbuf_append(m, (uint16_t)n) == NULL) {
		sy_drop(w, m, SY_DROP_NO_MBUF);
		return;
	}
	uh = rte_pktmbuf_mtod_offset(m, struct rte_udp_hdr *, off);
	memcpy(uh + 1, reply, n);
	sport = uh->src_port;
	uh->src_port = uh->dst_port;
	uh->dst_port = sport;
	uh->dgram_len = rte_cpu_to_be_16((uint16_t)(sizeof(*uh) + n));
	memcpy(src, ip6->src_addr, 16);
	memcpy(ip6->src_addr, ip6->dst_addr, 16);
	memcpy(ip6->dst_addr, src, 16);
	ip6->payload_len = uh->dgram_len;
	ip6->hop_limits = SY_IPV4_DEFAULT_TTL; /* 64, as icmp6.c's answers */
	uh->dgram_cksum = 0;
	uh->dgram_cksum = rte_ipv6_udptcp_cksum(ip6, uh);
	m->l3_len = sizeof(*ip6);
	sy_ipv6_output(w, port, m);
}
