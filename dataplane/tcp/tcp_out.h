/* SPDX-License-Identifier: BSD-3-Clause */
/* Segments the router makes itself: SYN-ACK cookies, backend SYNs, answers, RSTs. */
#ifndef SY_TCP_OUT_H
#define SY_TCP_OUT_H

#include <stdbool.h>
#include <stdint.h>

#include "tcp/tcp_opts.h"

struct sy_worker;

struct sy_seg {
	uint32_t saddr, daddr; /* network order */
	/* Both set: an IPv6 segment, these its addresses (saddr, daddr
	 * unused), and out_if the port for a link-local destination. */
	const uint8_t *saddr6, *daddr6;
	uint16_t out_if;
	uint16_t sport, dport; /* network order */
	uint32_t seq, ack;     /* host order */
	uint8_t flags;         /* RTE_TCP_*_FLAG */
	uint16_t win;          /* host order, as it goes on the wire */
	bool ts;               /* add a timestamp option */
	uint32_t tsval, tsecr;
	const struct sy_tcp_syn_opts *syn; /* SYN options instead of ts (SYN, SYN-ACK) */
	const void *payload;
	uint16_t len;
};

/* Build the segment in a new mbuf and send it (FIB, then ARP or neighbour
 * discovery). Returns 0 or -ENOBUFS (counted NO_MBUF). */
int sy_tcp_send(struct sy_worker *w, const struct sy_seg *s);

struct rte_tcp_hdr;
/* Bytes of IP header a segment of s's family takes (20 or 40). */
static inline unsigned
sy_seg_ip_hdr_len(const struct sy_seg *s)
{
	return s->saddr6 != NULL ? 40 : 20;
}
/* The IP (IPv4, or IPv6 when s says so) and TCP headers of a segment of
 * ours at l3, followed by olen option bytes: addresses, ports, seq, ack,
 * flags and window from s, the datagram `total` bytes long; the TCP
 * checksum (and IPv4's) left 0 for the caller (over a payload in the same
 * mbuf, or chained after). The one place a segment's headers are written:
 * the router's own segments (sy_tcp_send) and the terminated legs'
 * (tcb_out.c). Returns the TCP header. */
struct rte_tcp_hdr *sy_tcp_write_headers(void *l3, uint16_t total, const struct sy_seg *s,
					 const uint8_t *opts, unsigned olen);

/* The router's timestamp clock: milliseconds, wrapping (RFC 7323 allows
 * 1 ms - 1 s per tick). */
uint32_t sy_tcp_ts_now(const struct sy_worker *w);

#endif
