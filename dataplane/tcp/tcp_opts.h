/* SPDX-License-Identifier: BSD-3-Clause */
/* TCP options the router reads and writes: MSS, window scale, SACK, timestamps. */
#ifndef SY_TCP_OPTS_H
#define SY_TCP_OPTS_H

#include <stdbool.h>
#include <stdint.h>

#include <rte_tcp.h>

#define SY_TCP_WS_NONE 0xff

/* What a SYN (or SYN-ACK) offered. */
struct sy_tcp_syn_opts {
	uint16_t mss;     /* 0: not present (RFC 9293 default 536 applies) */
	uint8_t wscale;   /* SY_TCP_WS_NONE: not offered; else 0..14 */
	bool sack_ok;
	bool ts_ok;
	uint32_t tsval;   /* host order */
	uint32_t tsecr;
};

/* Parse the options of a TCP header (th->data_off says how long they are).
 * Malformed options (length running past the header) return -1. */
int sy_tcp_parse_syn_opts(const struct rte_tcp_hdr *th, struct sy_tcp_syn_opts *out);
/* Find the timestamp option in any segment; false if absent. */
bool sy_tcp_find_ts(const struct rte_tcp_hdr *th, uint32_t *tsval, uint32_t *tsecr);
/* Write options for a SYN or SYN-ACK into buf (at most 40 bytes), 4-byte
 * padded: MSS, then SACK-permitted + timestamps, window scale, in the order
 * Linux uses so middleboxes see nothing odd. Returns the length written. */
unsigned sy_tcp_write_syn_opts(uint8_t *buf, const struct sy_tcp_syn_opts *o);
/* Timestamp option (NOP NOP TS) for a non-SYN segment: 12 bytes. */
unsigned sy_tcp_write_ts_opt(uint8_t *buf, uint32_t tsval, uint32_t tsecr);

#endif
