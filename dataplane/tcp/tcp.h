/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * TCP on the workers: the face of tcp/. A segment for one of our listen
 * addresses or SNAT ports comes in through sy_tcp_input (net/ipv4.c): SYNs
 * are answered with cookies (tcp_syncookie.h), a cookie ACK opens a
 * connection, every other segment goes to the connection its 4-tuple names
 * (conn/flow_table.h), on the worker that owns it (a segment on another worker's
 * queue is handed over through a ring). The router's own segments are built
 * by tcp_out.h; its ISNs and timestamps on backend legs by tcp_isn.h.
 */
#ifndef SY_TCP_H
#define SY_TCP_H

#include <stdint.h>

struct rte_mbuf;
struct sy_worker;

/* An IPv4 TCP segment for us, data at the IPv4 header. Consumes m. */
void sy_tcp_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);
/* An IPv6 TCP segment for us, data at the IPv6 header, its extension
 * headers stripped (net/ipv6.c): a client leg's, or an IPv6 backend leg's.
 * Consumes m. */
void sy_tcp6_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);
struct sy_dp_shared;
/* The worker that owns the IPv6 connection between our address and port
 * and a peer's (network order): a client leg's worker by the client's
 * address and port when ours is a listen address and port, else the SNAT
 * port's (docs/architecture.md 4.3). */
unsigned sy_tcp6_owner(const struct sy_dp_shared *sh, const uint8_t ours[16], uint16_t our_port,
		       const uint8_t peer[16], uint16_t peer_port);
/* ICMPv6 Packet Too Big (net/icmp6.c; data at the IPv6 header, the message
 * at off, len bytes, its checksum checked) for a segment of ours: the
 * connection it quotes learns the path's MTU (tcp_pmtu.c), on its owner's
 * worker. Consumes m. */
void sy_tcp_ptb6_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m, uint32_t off,
		       uint32_t len);
/* The same message, handed over from another worker (m->hash.usr: the
 * port, m->l3_len: where the message starts). */
void sy_tcp_ptb6_handed_off(struct sy_worker *w, struct rte_mbuf *m);
/* Segments handed to this worker by others. Returns how many. */
unsigned sy_tcp_handoff_drain(struct sy_worker *w);

#endif
