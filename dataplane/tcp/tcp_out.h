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

/* Build the segment in a new mbuf and send it (FIB, ARP). Returns 0 or
 * -ENOBUFS (counted NO_MBUF). */
int sy_tcp_send(struct sy_worker *w, const struct sy_seg *s);

struct rte_ipv4_hdr;
struct rte_tcp_hdr;
/* The IPv4 and TCP headers of a segment of ours at ip, followed by olen
 * option bytes: addresses, ports, seq, ack, flags and window from s, the
 * IPv4 datagram `total` bytes long; both checksums left 0 for the caller
 * (over a payload in the same mbuf, or chained after). The one place a
 * segment's headers are written: the router's own segments (sy_tcp_send)
 * and the terminated legs' (tcb_out.c). Returns the TCP header. */
struct rte_tcp_hdr *sy_tcp_write_headers(struct rte_ipv4_hdr *ip, uint16_t total,
					 const struct sy_seg *s, const uint8_t *opts,
					 unsigned olen);

/* The router's timestamp clock: milliseconds, wrapping (RFC 7323 allows
 * 1 ms - 1 s per tick). */
uint32_t sy_tcp_ts_now(const struct sy_worker *w);

#endif
