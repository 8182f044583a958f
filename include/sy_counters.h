/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Per-worker counters: written only by the owning worker (plain stores, one
 * writer), read by the control thread, which sums them on request. A torn read
 * of a 64-bit counter cannot happen on the 64-bit targets we build for.
 *
 * Every dropped packet has exactly one reason below. Add a reason here and it
 * shows up in `routerctl stats` by itself.
 */
#ifndef SY_COUNTERS_H
#define SY_COUNTERS_H

#include <stdint.h>

#define SY_DROP_REASONS(X)                                                     \
	X(ETH_TRUNCATED, "eth_truncated")                                      \
	X(ETH_NOT_OURS, "eth_not_ours")                                        \
	X(ETH_UNSUPPORTED_TYPE, "eth_unsupported_type")                        \
	X(ARP_MALFORMED, "arp_malformed")                                      \
	X(ARP_NOT_OURS, "arp_not_ours")                                        \
	X(ARP_PENDING_FULL, "arp_pending_full")                                \
	X(ARP_UNRESOLVED, "arp_unresolved")                                    \
	X(IPV4_TRUNCATED, "ipv4_truncated")                                    \
	X(IPV4_BAD_HEADER, "ipv4_bad_header")                                  \
	X(IPV4_BAD_CHECKSUM, "ipv4_bad_checksum")                              \
	X(IPV4_NOT_OURS, "ipv4_not_ours")                                      \
	X(IPV4_TTL_EXPIRED, "ipv4_ttl_expired")                                \
	X(IPV4_FRAGMENT, "ipv4_fragment")                                      \
	X(IPV4_NO_ROUTE, "ipv4_no_route")                                      \
	X(IPV4_UNSUPPORTED_PROTO, "ipv4_unsupported_protocol")                 \
	X(IPV4_MARTIAN_SOURCE, "ipv4_martian_source")                          \
	X(ICMP_BAD_CHECKSUM, "icmp_bad_checksum")                              \
	X(ICMP_UNSUPPORTED_TYPE, "icmp_unsupported_type")                      \
	X(ICMP_TRUNCATED, "icmp_truncated")                                    \
	X(IPV6_UNSUPPORTED, "ipv6_unsupported")                                \
	X(TCP_NO_SERVICE, "tcp_no_service")                                    \
	X(UDP_NO_SERVICE, "udp_no_service")                                    \
	X(TX_FULL, "tx_full")                                                  \
	X(NO_MBUF, "no_mbuf")

enum sy_drop_reason {
#define SY_X(sym, name) SY_DROP_##sym,
	SY_DROP_REASONS(SY_X)
#undef SY_X
	SY_DROP__COUNT
};

/* Text names of the reasons, indexed by enum sy_drop_reason. */
extern const char *const sy_drop_reason_names[SY_DROP__COUNT];

struct sy_worker_counters {
	uint64_t rx_packets;
	uint64_t rx_bytes;
	uint64_t tx_packets;
	uint64_t tx_bytes;
	uint64_t busy_cycles; /* TSC cycles of loop iterations that had work */
	uint64_t idle_cycles; /* TSC cycles of empty polls and sleeps */
	uint64_t loops;
	uint64_t arp_requests_sent;
	uint64_t arp_replies_sent;
	uint64_t icmp_echo_replies;
	uint64_t drops[SY_DROP__COUNT];
} __attribute__((aligned(64)));

#endif
