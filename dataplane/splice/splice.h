/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The splice fast path (docs/architecture.md section 9): PEEK -> CONNECTING
 * -> SPLICED -> LINGER, or PEEK -> ANSWER when the router answers itself.
 * tcp_in.c finds the connection a segment belongs to and hands it here.
 */
#ifndef SY_SPLICE_H
#define SY_SPLICE_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "conn/conn_t.h"
#include "conn/flow_table.h"
#include "splice/splice_xlate.h"
#include "sy_counters.h"
#include "tcp/tcp_opts.h"
#include "tcp/tcp_out.h"

struct rte_mbuf;
struct sy_worker;

/* Timers, in milliseconds. */
#define SY_PEEK_TIMEOUT_MS 10000     /* request head / ClientHello must arrive by then */
#define SY_SYN_RTO_MS 500            /* backend SYN retransmission */
#define SY_SYN_TRIES 3               /* SYNs per endpoint before trying the next */
#define SY_STALE_ACK_TRIES 2         /* RST + SYN at once per endpoint for a stale ACK */
#define SY_CONNECT_TIMEOUT_MS 5000   /* all endpoints together */
#define SY_IDLE_TIMEOUT_MS 300000    /* established, no packet either way */
#define SY_HALF_CLOSED_TIMEOUT_MS 60000
#define SY_LINGER_MS 2000            /* after close: late packets still pass */
#define SY_ANSWER_RTO_MS 250
#define SY_ANSWER_TRIES 6

/* Bytes the peekers may wait for before answering 431 / closing. */
#define SY_HTTP_HEAD_MAX (16 * 1024)
/* Bytes of an HTTP head held in PEEK past which a client's retransmission
 * means it is stalled on its window: 431 (splice.c). */
#define SY_PEEK_STALL_BYTES (8 * 1024)
#define SY_TLS_HELLO_MAX (32 * 1024)

/* The translation of each direction, from the record (docs/architecture.md
 * 9.3, "Numbers to translate"): each leg's segments get that leg's seq and
 * TSval deltas, and lose the other leg's from their ack, SACK edges and TSecr;
 * the backend's window is rescaled to our scale towards the client. */
static inline void
sy_xlate_from_leg(const struct sy_conn *c, enum sy_leg leg, struct sy_xlate *x)
{
	const enum sy_leg other = leg == SY_LEG_CLIENT ? SY_LEG_BACKEND : SY_LEG_CLIENT;

	memset(x, 0, sizeof(*x));
	if (leg == SY_LEG_CLIENT) {
		x->src_ip = c->snat_ip;
		x->dst_ip = c->backend_ip;
		x->src_port = c->snat_port;
		x->dst_port = c->backend_port;
	} else {
		x->src_ip = c->vip;
		x->dst_ip = c->client_ip;
		x->src_port = c->vip_port;
		x->dst_port = c->client_port;
		x->win_shift_in = c->win_shift_b;
		x->win_shift_out = c->win_shift_r;
	}
	x->seq_delta = c->seq_delta[leg];
	x->tsval_delta = c->ts_delta[leg];
	x->ack_delta = -c->seq_delta[other];
	x->sack_delta = -c->seq_delta[other];
	x->tsecr_delta = -c->ts_delta[other];
}

static inline void
sy_xlate_to_backend(const struct sy_conn *c, struct sy_xlate *x)
{
	sy_xlate_from_leg(c, SY_LEG_CLIENT, x);
}

static inline void
sy_xlate_to_client(const struct sy_conn *c, struct sy_xlate *x)
{
	sy_xlate_from_leg(c, SY_LEG_BACKEND, x);
}

/* A segment of the router's own on one leg of c (tcp_out.h): zeroed, with
 * that leg's addresses (an IPv6 client leg's from the record's IPv6 side) and
 * ports, the router as the sender. */
static inline void
sy_seg_on_leg(const struct sy_conn_tables *t, const struct sy_conn *c, enum sy_leg leg,
	      struct sy_seg *s)
{
	memset(s, 0, sizeof(*s));
	if (leg == SY_LEG_CLIENT) {
		s->saddr = c->vip;
		s->daddr = c->client_ip;
		s->sport = c->vip_port;
		s->dport = c->client_port;
		if (sy_conn_client_v6(c)) {
			const struct sy_conn_v6 *a = sy_conn_v6_of(t, c);

			s->saddr6 = a->vip;
			s->daddr6 = a->client;
			s->out_if = c->client_if;
		}
	} else {
		s->saddr = c->snat_ip;
		s->daddr = c->backend_ip;
		s->sport = c->snat_port;
		s->dport = c->backend_port;
		if (sy_conn_backend_v6(c)) {
			const struct sy_conn_v6 *a = sy_conn_v6_of(t, c);

			s->saddr6 = a->snat;
			s->daddr6 = a->backend;
			s->out_if = c->backend_if;
		}
	}
}

/* Sum of the two 16-bit words of a 32-bit one, as they lie in memory. */
static inline uint32_t
sy_csum_halves(uint32_t raw)
{
	return (raw & 0xffff) + (raw >> 16);
}

/* Sum of the 16-bit words of n bytes of addresses, as they lie in memory,
 * each complemented (the ~m of RFC 1624) or not. */
static inline uint32_t
sy_csum_addr_words(const uint8_t *p, unsigned n, bool complement)
{
	uint32_t s = 0;
	unsigned i;

	for (i = 0; i < n; i += 2) {
		uint16_t v;

		memcpy(&v, p + i, 2);
		s += complement ? (uint16_t)~v : v;
	}
	return s;
}

/* c->csum_ip and c->csum_tcp from its tuples (conn.h); an IPv6 leg's
 * addresses from the record's IPv6 side. Ones' complement sums do not depend on
 * byte order (RFC 1071 2.(B)): raw words throughout. */
static inline void
sy_conn_csum_deltas(const struct sy_conn_tables *t, struct sy_conn *c)
{
	uint32_t ip = sy_csum_halves(~c->client_ip) + sy_csum_halves(~c->vip) +
		      sy_csum_halves(c->snat_ip) + sy_csum_halves(c->backend_ip);
	uint32_t tcp;

	ip = (ip & 0xffff) + (ip >> 16);
	ip = (ip & 0xffff) + (ip >> 16);
	tcp = ip;
	if (c->flags & SY_CF_V6) {
		const struct sy_conn_v6 *a = sy_conn_v6_of(t, c);

		tcp = sy_conn_client_v6(c) ? sy_csum_addr_words(a->client, 32, true)
					   : sy_csum_halves(~c->client_ip) + sy_csum_halves(~c->vip);
		tcp += sy_conn_backend_v6(c) ? sy_csum_addr_words(a->backend, 32, false)
					     : sy_csum_halves(c->snat_ip) + sy_csum_halves(c->backend_ip);
	}
	tcp += (uint16_t)~c->client_port + (uint16_t)~c->vip_port + c->snat_port + c->backend_port;
	tcp = (tcp & 0xffff) + (tcp >> 16);
	tcp = (tcp & 0xffff) + (tcp >> 16);
	c->csum_ip = (uint16_t)ip;
	if ((c->flags & SY_CF_V6) && sy_conn_client_v6(c) != sy_conn_backend_v6(c))
		/* Across the families the IPv4 header is built, not edited:
		 * towards the IPv4 leg, its checksum's part this connection
		 * fixes (conn_t.h). */
		c->csum_ip = sy_conn_client_v6(c) ? sy_xlate_ipv4_sum_base(c->snat_ip, c->backend_ip)
						  : sy_xlate_ipv4_sum_base(c->vip, c->client_ip);
	c->csum_tcp = (uint16_t)tcp;
}

/* A received burst (data at the Ethernet headers) from port index `port`,
 * n <= SY_RX_BURST: established spliced segments forwarded directly, every
 * other frame through sy_eth_input, in burst order (splice_fast.c). */
void sy_splice_rx_burst(struct sy_worker *w, uint16_t port, struct rte_mbuf **pkts, uint16_t n);

/* A client ACK whose cookie validated: make the connection (PEEK) and take
 * the segment (it may carry data). `syn` is what the cookie encoded. */
void sy_splice_open(struct sy_worker *w, struct rte_mbuf *m, const struct sy_tcp_syn_opts *syn);
/* A segment of connection c (a splice state), from the client leg or the
 * backend leg. Data at the IPv4 header. Consumes m. tcp_in.c calls it
 * directly for SY_CONN_SPLICED, the conn ops table for the others. */
void sy_splice_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m,
		       bool from_client);
/* c's timer fired. */
void sy_splice_timeout(struct sy_worker *w, struct sy_conn *c);
/* The splice mode's states (PEEK, CONNECTING, SPLICED, ANSWER, LINGER)
 * take their segments, timers and releases from here on
 * (conn/conn_ops.h). Before workers run. */
void sy_splice_register_ops(void);

/* The router answers the client itself (answer.c): an HTTP status, or with
 * status 0 a TLS alert (unrecognized_name), then FIN. */
/* The access log's record of c, spliced (its backend answered) or answered
 * by the router (status, why), from the bytes it holds; only when the log
 * is on. */
void sy_splice_log(struct sy_worker *w, struct sy_conn *c, bool spliced, uint16_t status,
		   enum sy_answer_reason why);
void sy_answer_start(struct sy_worker *w, struct sy_conn *c, uint16_t status,
		     enum sy_answer_reason why);
void sy_answer_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m);
void sy_answer_timeout(struct sy_worker *w, struct sy_conn *c);
/* The client closed before sending a byte: FIN back, no payload. */
void sy_answer_close(struct sy_worker *w, struct sy_conn *c);
/* RST to the client for everything held, and free c. */
void sy_conn_reset_client(struct sy_worker *w, struct sy_conn *c, enum sy_answer_reason why);

#endif
