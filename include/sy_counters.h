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
	X(IPV6_OFF, "ipv6_off")                /* to a port with no IPv6 address */ \
	X(IPV6_TRUNCATED, "ipv6_truncated")                                    \
	X(IPV6_BAD_HEADER, "ipv6_bad_header")                                  \
	X(IPV6_NOT_OURS, "ipv6_not_ours")                                      \
	X(IPV6_MARTIAN_SOURCE, "ipv6_martian_source") /* multicast, loopback or ours */ \
	X(IPV6_EXT_HEADERS, "ipv6_extension_headers") /* too many, or hop-by-hop not first */ \
	X(IPV6_OPTION_DISCARD, "ipv6_option_discard") /* an unknown option that says so */ \
	X(IPV6_ROUTING_HEADER, "ipv6_routing_header") /* segments left: we do not forward */ \
	X(IPV6_FRAGMENT, "ipv6_fragment")                                      \
	X(IPV6_TCP_NOT_SERVED, "ipv6_tcp_not_served") /* TCP to a group or a link-local address */ \
	X(IPV6_UNSUPPORTED_PROTO, "ipv6_unsupported_protocol")                 \
	X(ICMP6_TRUNCATED, "icmp6_truncated")                                  \
	X(ICMP6_BAD_CHECKSUM, "icmp6_bad_checksum")                            \
	X(ICMP6_UNSUPPORTED_TYPE, "icmp6_unsupported_type")                    \
	X(ICMP6_PTB_NOT_OURS, "icmp6_ptb_not_ours") /* Packet Too Big quoting no TCP segment of ours */ \
	X(ICMP6_PTB_NO_FLOW, "icmp6_ptb_no_flow")   /* ... for a connection we no longer have */ \
	X(ND_MALFORMED, "nd_malformed")        /* hop limit not 255, short, a bad option */ \
	X(ND_NOT_OURS, "nd_not_ours")          /* a solicitation for another node's address */ \
	X(ND_ADVERT_IGNORED, "nd_advert_ignored") /* for no entry of ours, or no usable MAC */ \
	X(ND_PENDING_FULL, "nd_pending_full")  /* as ARP_PENDING_FULL, for IPv6 next hops */ \
	X(ND_UNRESOLVED, "nd_unresolved")      /* no advertisement after the solicitations */ \
	X(IPV6_NO_ROUTE, "ipv6_no_route")                                      \
	X(TCP_MALFORMED, "tcp_malformed")                                      \
	X(TCP_BAD_CHECKSUM, "tcp_bad_checksum")                                \
	X(TCP_COOKIE_INVALID, "tcp_cookie_invalid")                            \
	X(TCP_NO_FLOW, "tcp_no_flow")                                          \
	X(TCP_UNEXPECTED, "tcp_unexpected_segment")                            \
	X(TCP_HANDOFF_FULL, "tcp_handoff_ring_full")                           \
	X(FLOW_TABLE_FULL, "flow_table_full")                                  \
	X(CONN_POOL_EMPTY, "conn_pool_empty")                                  \
	X(SNAT_PORTS_EXHAUSTED, "snat_ports_exhausted")                        \
	X(PEEK_DUPLICATE, "peek_duplicate")                                    \
	X(PEEK_OVERFLOW, "peek_overflow")                                      \
	X(PEEK_OUT_OF_WINDOW, "peek_out_of_window")                            \
	X(SPLICE_XLATE_FAILED, "splice_xlate_failed")                          \
	X(LINGER_LATE, "linger_late_segment")                                  \
	X(UDP_NO_SERVICE, "udp_no_service")                                    \
	X(DNS_MALFORMED, "dns_malformed")                                      \
	X(VRRP_OFF, "vrrp_off")                /* an advert where vrrp is not configured */ \
	X(VRRP_BAD_TTL, "vrrp_bad_ttl")        /* not 255: from off the segment */ \
	X(VRRP_BAD_HOP_LIMIT, "vrrp_bad_hop_limit") /* IPv6, not 255: from off the segment */ \
	X(VRRP_BAD_SOURCE, "vrrp_bad_source")  /* IPv6, not from a link-local address */ \
	X(VRRP_BAD_VERSION, "vrrp_bad_version") /* not a v3 advertisement */ \
	X(VRRP_BAD_LENGTH, "vrrp_bad_length")  /* length and address count disagree */ \
	X(VRRP_BAD_CHECKSUM, "vrrp_bad_checksum")                              \
	X(VRRP_UNKNOWN_VRID, "vrrp_unknown_vrid") /* no VIP of ours has that VRID */ \
	X(VRRP_ADDRESS_MISMATCH, "vrrp_address_mismatch") /* its VRID names another VIP */ \
	X(VRRP_RING_FULL, "vrrp_ring_full")    /* worker 0 fell behind */      \
	X(VRRP_VIP_NOT_MASTER, "vrrp_vip_not_master") /* to a VIP another node holds */ \
	X(TX_FULL, "tx_full")                                                  \
	X(NO_MBUF, "no_mbuf")                                                  \
	X(TX_TOO_LONG, "tx_too_long") /* a chain one mbuf cannot hold, for a port that sends single mbufs */ \
	X(PROXY_NOT_ACCEPTABLE, "proxy_seg_not_acceptable") /* outside the window */ \
	X(PROXY_PAWS, "proxy_paws")              /* old timestamp (RFC 7323 5) */ \
	X(PROXY_OOO_FULL, "proxy_ooo_full")      /* out-of-order store full */ \
	X(PROXY_DUPLICATE, "proxy_duplicate")    /* all of it received already */ \
	X(PROXY_POOL_EMPTY, "proxy_pool_empty")  /* no proxy state free */ \
	X(TIME_WAIT_OLD_SYN, "time_wait_old_syn") /* RFC 6191: not newer than the TIME_WAIT */ \
	X(TIME_WAIT_SEGMENT, "time_wait_segment") /* a TIME_WAIT record takes it, answers nothing */

/*
 * Why the router answered a client itself instead of splicing it to a
 * backend (splice.c, answer.c): one count per connection, by reason, so
 * every 4xx/5xx, redirect, TLS alert and RST of the router's own has a name
 * in `routerctl stats`. The status it gives is in the comment (no_route:
 * the configured no_route_status; TLS: an unrecognized_name alert).
 */
#define SY_ANSWER_REASONS(X)                                                   \
	X(NO_ROUTE, "no_route")                 /* 503/404, TLS alert */        \
	X(INSECURE_NOT_SERVED, "insecure_not_served") /* 503 */                \
	X(INSECURE_REDIRECT, "insecure_redirect") /* 302/301 to https */       \
	X(RULE_ANSWER, "rule_answer")           /* a rule's redirect/static */  \
	X(NEEDS_PROXY, "needs_proxy_mode")      /* 503 */                       \
	X(BACKEND_TLS, "backend_tls")           /* 503: a TLS backend without a client context */ \
	X(NO_ENDPOINT, "no_endpoint")           /* 503, TLS: RST */             \
	X(BACKEND_UNREACHABLE, "backend_unreachable") /* 503, TLS: RST */      \
	X(BACKEND_NO_ROUTE, "backend_no_route") /* 503, TLS: alert */           \
	X(SNAT_PORTS_EXHAUSTED, "snat_ports_exhausted") /* 503, TLS: alert */  \
	X(BAD_REQUEST, "bad_request")           /* 400 */                       \
	X(URI_TOO_LONG, "uri_too_long")         /* 414 */                       \
	X(HEAD_TOO_LARGE, "head_too_large")     /* 431 */                       \
	X(BODY_TOO_LARGE, "body_too_large")     /* 413: Content-Length past SY_PX_BODY_MAX */ \
	X(TRANSFER_CODING, "transfer_coding_not_supported") /* 501 */          \
	X(HTTP_VERSION, "http_version_not_supported") /* 505 */               \
	X(HEAD_TIMEOUT, "head_timeout")         /* 408, TLS: RST */             \
	X(NOT_TLS, "tls_not_a_client_hello")    /* RST */                       \
	X(CLIENT_CLOSED_EMPTY, "client_closed_empty") /* FIN before a byte: FIN */ \
	X(PROXY_BUSY, "proxy_busy")             /* 503: no proxy state or mbufs */ \
	X(BACKEND_TIMEOUT, "backend_timeout")   /* 504: no response in time */  \
	X(BACKEND_BROKEN, "backend_broken")     /* 502: reset, closed or garbled */ \
	X(RATE_LIMITED, "rate_limited")         /* 429: a ratelimit filter's bucket is empty */ \
	X(LOOPBACK_LIMIT, "loopback_limit")     /* 500: loopback routes past SY_PX_LOOPBACK_MAX */ \
	X(MISDIRECTED, "misdirected")           /* 421: Host names another vhost than the SNI */ \
	X(BACKEND_TLS_FAILED, "backend_tls_failed") /* 502: the backend's certificate did not verify */ \
	X(FLOW_TABLE_FULL, "flow_table_full")   /* 503: no record left for a proxied backend leg */ \
	X(SOURCE_NOT_ALLOWED, "source_not_allowed") /* 403, or reset on passthrough: not in the route's ip_allowlist */ \
	X(SOURCE_CONN_LIMITED, "source_conn_limited") /* reset: past the route's rate-limit-connections for this source */ \
	X(PROXY_PROTOCOL_BAD, "proxy_protocol_bad") /* reset: no valid PROXY protocol header first (listen.proxy_protocol) */ \
	X(CLIENT_CERT_NOT_ALLOWED, "client_cert_not_allowed") /* 403: a verified client certificate whose subject matches no allowed_subject_patterns */

enum sy_answer_reason {
#define SY_X(sym, name) SY_ANSWER_##sym,
	SY_ANSWER_REASONS(SY_X)
#undef SY_X
	SY_ANSWER__COUNT
};

extern const char *const sy_answer_reason_names[SY_ANSWER__COUNT];

enum sy_drop_reason {
#define SY_X(sym, name) SY_DROP_##sym,
	SY_DROP_REASONS(SY_X)
#undef SY_X
	SY_DROP__COUNT
};

/* Text names of the reasons, indexed by enum sy_drop_reason. */
extern const char *const sy_drop_reason_names[SY_DROP__COUNT];

/* Every counter other than drops, with the name `routerctl stats` shows. */
#define SY_COUNTER_FIELDS(X)                                                   \
	X(rx_packets)                                                          \
	X(rx_bytes)                                                            \
	X(tx_packets)                                                          \
	X(tx_bytes)                                                            \
	X(busy_cycles) /* TSC cycles of loop iterations that had work */       \
	X(idle_cycles) /* TSC cycles of empty polls and sleeps */              \
	X(loops)                                                               \
	X(busy_loops)  /* loop iterations that had work */                    \
	X(clock_jumps) /* TSC steps between two polls beyond SY_CLOCK_STEP_MAX_MS, or backwards, left out of the worker's clock (worker_clock.h) */ \
	X(tx_bursts)   /* TX calls to the ports' drivers (tx_packets / tx_bursts: frames per call) */ \
	/* TSC cycles inside those calls, always counted (two TSC reads a call). \
	 * With kernel-socket ports (af_packet, af_xdp, tap) this is mostly the \
	 * kernel transmitting the frames, which a NIC does in hardware. */     \
	X(tx_call_cycles)                                                      \
	/* TSC cycles inside the drivers' RX calls that returned frames, always \
	 * counted: the driver's own work (memif and af_packet copy every frame) \
	 * that busy_cycles - rx_call_cycles - tx_call_cycles leaves out. */     \
	X(rx_call_cycles)                                                      \
	/* Where busy loops' cycles went, in a -Dpoll_phases=true build only (0	\
	 * otherwise); the five add up to busy_cycles. */                      \
	X(poll_pre_cycles)   /* rings: neighbour updates, hand-offs, health checks, VRRP */ \
	X(poll_rx_cycles)    /* the drivers' RX calls */                      \
	X(poll_input_cycles) /* our processing of what they returned */       \
	X(poll_timer_cycles) /* TCP and neighbour timers */                         \
	X(poll_tx_cycles)    /* the drivers' TX calls and freeing what they refused */ \
	X(arp_requests_sent)                                                   \
	X(arp_replies_sent)                                                    \
	X(icmp_echo_replies)                                                   \
	X(icmp6_echo_replies)                                                  \
	X(nd_adverts_sent) /* neighbour advertisements: answers and DAD defences */ \
	X(nd_solicits_sent) /* neighbour solicitations for IPv6 next hops (net/nd.h) */ \
	X(ptb_received)    /* ICMPv6 Packet Too Big for a connection of ours (tcp/tcp_pmtu.c) */ \
	X(pmtu_lowered)    /* ... that lowered a proxied leg's MSS */ \
	X(ptb_relayed)     /* ... passed on to a spliced connection's other endpoint */ \
	X(syn_cookies_sent)                                                    \
	X(conns_opened)    /* cookie validated: a connection record made */    \
	X(conns_spliced)   /* backend answered, held bytes sent */             \
	X(conns_answered)  /* the router answered itself: `answers` says why */ \
	X(conns_refused_draining) /* SYNs answered RST: a graceful drain was on (drain.c) */ \
	X(conns_taken_draining_vip) /* SYNs to a VIP given away, taken: a drain was on (tcp_in.c) */ \
	X(proxy_protocol_headers) /* PROXY protocol headers read (listen.proxy_protocol) */ \
	X(src_limit_untracked) /* rate-limit-connections: a source's slot was another's, not limited (conn/src_limit.h) */ \
	X(conns_closed)    /* records freed */                                 \
	X(flows_active)    /* gauge: connection records in use */              \
	X(backend_retries) /* another endpoint tried after a failed connect */ \
	X(proxy_status_retries) /* requests sent again on a status the route's retryPolicy names */ \
	X(proxy_mirror_requests) /* requests copied to a route's mirror (proxy/px_mirror.c) */ \
	X(proxy_mirror_answered) /* ... whose mirror answered with a status line (the answer is dropped) */ \
	X(proxy_mirror_failed)   /* ... whose mirror leg failed: refused, reset, silent past its timeout */ \
	X(proxy_mirror_skipped)  /* mirrors not sent: no endpoint, no free leg, a tunnel, not HTTP/1.1 in the clear */ \
	X(proxy_mirror_dropped)  /* mirrors given up mid-request: the body outran the leg, or the request was cut */ \
	X(proxy_per_try_timeouts) /* tries without a response head in the route's perTryTimeout */ \
	X(lb_ejections)    /* endpoints ejected: consecutive failures (lb/lb.h) */ \
	X(lb_ejected_avoided) /* picks that skipped an ejected endpoint */      \
	X(lb_panic_picks)  /* picks that found only ejected endpoints: used anyway */ \
	X(lb_all_full)     /* picks that found every endpoint at its pool's max_conns: 503 (lb/lb.c) */ \
	X(lb_all_ejected)  /* ... refused instead (lb_all_ejected "fail"): 503 */ \
	X(lb_eject_bound_ignored) /* picks of an ejected endpoint: too much of its pool is (lb/lb.h) */ \
	X(lb_hc_down_avoided) /* picks that skipped an endpoint its health checks put down */ \
	X(dns_queries)     /* DNS queries to dns.listen (dns/dns.h) */         \
	X(dns_noerror)     /* ... answered: records, or NODATA */              \
	X(dns_nxdomain)    /* ... no such name (a shard without VIPs) */       \
	X(dns_refused)     /* ... for a name in no shard zone */               \
	X(dns_errors)      /* ... FORMERR, NOTIMP */                           \
	X(vrrp_adverts_sent)     /* VRRP advertisements (worker 0; vrrp/vrrp.h) */ \
	X(vrrp_adverts_received) /* ... from peers, checked */                 \
	X(vrrp_garps_sent)       /* gratuitous ARP for VIPs taken over */      \
	X(vrrp_nas_sent)         /* unsolicited neighbour adverts for IPv6 VIPs taken over */ \
	X(vrrp_transitions)      /* VIP state changes (init, backup, master) */ \
	X(alog_records)    /* access log records put on the worker's ring */ \
	X(alog_dropped)    /* ... not: the ring was full (the writer fell behind) */ \
	X(hc_sent)         /* active health checks started (worker 0, lb/hc_probe.h) */ \
	X(hc_answered)     /* ... that got a status line (any status) */     \
	X(hc_failed)       /* ... that did not: refused, timeout, reset, no route */ \
	X(backend_syn_retx) /* backend SYNs sent again after their RTO */     \
	X(backend_stale_acks) /* SYN answered by an older conn's ACK: RST + SYN */ \
	X(handoffs)        /* packets passed to the owning worker */         \
	X(fast_forwarded)  /* spliced segments the burst fast path forwarded */ \
	X(conns_proxied)   /* connections carried by the proxy mode */        \
	X(proxy_requests)  /* requests routed one by one (proxy mode) */      \
	X(proxy_loopbacks) /* of them, routed again by a loopback backend */   \
	X(proxy_backend_conns) /* backend connections the proxy opened */     \
	X(proxy_backend_reused) /* requests sent on a kept backend connection */ \
	X(proxy_backend_pooled) /* of them, on one taken from the worker's idle pool */ \
	X(proxy_backend_parked) /* backend connections put in the idle pool */ \
	X(proxy_backend_replays) /* requests sent again: a kept connection closed unanswered */ \
	X(proxy_replay_too_big) /* requests past SY_PX_REPLAY_MAX: no copy kept to send again */ \
	X(proxy_idle_expired) /* idle pool: closed unused (SY_PROXY_IDLE_BACKEND_MS) */ \
	X(proxy_idle_closed_by_backend) /* idle pool: the backend closed or spoke */ \
	X(proxy_idle_full) /* idle pool full: a reusable connection closed */ \
	X(proxy_segs_out)  /* segments our TCP sent (proxy legs) */           \
	X(proxy_retransmits) /* of them, sent again (RTO, fast retransmit) */ \
	X(proxy_rto)       /* retransmission timeouts */                      \
	X(proxy_fast_retransmits) /* fast recoveries: three duplicate ACKs, three segments SACKed, or RACK */ \
	X(proxy_reorder_recoveries) /* of them, started by RACK's reordering window (RFC 8985 6.2) */ \
	X(proxy_window_probes) /* zero-window probes */                       \
	X(proxy_keepalive_probes) /* TCP keep-alive probes (idle client legs, tunnels) */ \
	X(proxy_tail_probes) /* RFC 8985 tail loss probes (the flight's last ACK lost) */ \
	X(proxy_recovery_probes) /* in SACK recovery, the first hole again after 2 SRTTs without progress */ \
	X(proxy_challenge_acks) /* RFC 5961 challenge ACKs */                \
	X(proxy_time_wait) /* gauge: proxied client legs held in TIME_WAIT (a small record each) */ \
	X(proxy_time_wait_full) /* TIME_WAIT with no record: the worker's cap was reached */ \
	X(proxy_time_wait_acks) /* ACKs a TIME_WAIT record sent (a retransmitted FIN) */ \
	X(proxy_time_wait_reused) /* a newer SYN took a TIME_WAIT tuple over (RFC 6191) */ \
	X(h2_conns)        /* connections that spoke HTTP/2 (ALPN h2 or h2c) */ \
	X(h2_streams)      /* streams opened by clients (each one request) */ \
	X(h2_streams_refused) /* RST_STREAM REFUSED_STREAM: over the limit, or no exchange state free */ \
	X(h2_goaway_rapid_reset) /* GOAWAY ENHANCE_YOUR_CALM: streams reset past http2.reset_* */ \
	X(h2_goaway_flood) /* GOAWAY ENHANCE_YOUR_CALM: control frames past http2.flood_* */ \
	X(h2_header_list_too_large) /* GOAWAY: a header block past http2.max_header_list_size */ \
	X(h2_protocol_errors) /* connections ended by a protocol error (GOAWAY from nghttp2) */ \
	X(h2_no_memory)    /* a session over its memory bound: GOAWAY, closed */ \
	X(h2_mem_bytes)    /* gauge: bytes the worker's h2 sessions hold (nghttp2's and ours) */ \
	X(h2_streams_open) /* gauge: streams open now, each with its exchange's proxy state */ \
	X(h2_backend_conns) /* backend legs that spoke HTTP/2 (h2c annotation, ALPN h2) */ \
	X(h2_backend_streams) /* requests sent to backends as h2 streams */  \
	X(h2_backend_resets) /* of them, reset or refused by the backend before their end */ \
	X(h2_backend_streams_shared) /* of them, put on an h2c connection carrying others */ \
	X(h2_backend_errors) /* backend h2 sessions ended by a protocol error */ \
	X(h2_backend_carriers_full) /* h2c connections not opened: SY_PX_H2C_MAX in use */ \
	X(h2_backend_alpn_fallbacks) /* streams that joined a TLS leg whose ALPN then said http/1.1: sent again on legs of their own */ \
	X(tls_handshakes)  /* TLS handshakes completed (terminated here) */    \
	X(tls_resumptions) /* of them, resumed (ticket or session ID) */       \
	X(tls_handshake_failures) /* refused: bad ClientHello, version, ciphers */ \
	X(tls_handshake_abandoned) /* the client closed mid-handshake */       \
	X(tls_handshake_timeouts) /* no finished handshake in http-request time */ \
	X(tls_record_errors) /* bad records after the handshake: alert, close */ \
	X(tls_no_memory)   /* OpenSSL had no memory for a connection */        \
	X(tls_sessions_cached) /* TLS 1.2 sessions put in a worker's cache */ \
	X(tls_ocsp_stapled) /* handshakes that sent an OCSP staple */         \
	X(tls_backend_handshakes) /* TLS to backends (re-encrypt, https://) */ \
	X(tls_backend_handshake_failures) /* of them refused: certificate not verified, or TLS failed */ \
	X(tls_handshake_cycles) /* TSC cycles inside OpenSSL's SSL_new, SSL_do_handshake, SSL_free */

struct sy_worker_counters {
#define SY_X(name) uint64_t name;
	SY_COUNTER_FIELDS(SY_X)
#undef SY_X
	uint64_t drops[SY_DROP__COUNT];
	uint64_t answers[SY_ANSWER__COUNT];
} __attribute__((aligned(64)));

#endif
