/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The proxy mode (docs/architecture.md 4.5, "Proxy"): the face of proxy/. A
 * connection whose vhost needs more than its first request's Host (path and
 * method rules, predicates, http-level policies) is terminated: the router
 * takes over the client leg from PEEK (the held bytes become received data;
 * tcb.h from then on), routes every request of the keep-alive connection on
 * its own, and carries each to a backend over a backend leg of its own TCP.
 *
 * Two records (conn/conn_t.h) share one struct sy_proxy: the client leg's
 * (state SY_CONN_PROXY, in the flow table, the only one on the timer
 * wheel) and the current backend leg's (SY_CONN_PROXY_BE, found by its SNAT
 * port). A backend leg is kept between requests while the next request goes
 * to the same endpoint and its last response was read to its end; when the
 * client connection ends or moves on, such a leg goes to the worker's idle
 * pool (px_idle.c) for the next request of any client to that endpoint.
 */
#ifndef SY_PROXY_H
#define SY_PROXY_H

#include <stdbool.h>
#include <stdint.h>

#include "proxy/px_h2.h"
#include "proxy/px_msg.h"
#include "sy_access_log.h"
#include "sy_generation.h"
#include "tcp/tcb.h"
#include "tls/tls.h"

struct px_mirror;
struct rte_mbuf;
struct sy_conn;
struct sy_worker;

#define SY_PROXY_MAX 4096              /* proxied connections per worker */
#define SY_PROXY_RCVBUF (256 * 1024)   /* per leg: our window's size */
#define SY_PROXY_SNDBUF (256 * 1024)   /* per leg: bytes queued towards a peer */
#define SY_PROXY_HEAD_MAX (16 * 1024)  /* request and response heads */
#define SY_PROXY_TARGET_MAX 8192       /* request target (414 past it) */
#define SY_PX_LOOPBACK_MAX 9           /* loopback routes one request may take (Skipper's) */
/* A request kept to send again (px_retry, px_try_again in proxy_http.c):
 * its head and body as they went to the backend, kept while they stay
 * within SY_PX_REPLAY_MAX bytes and SY_PX_REPLAY_SEGS_MAX mbufs; past
 * either the copy goes (counted: proxy_replay_too_big) and a failure of
 * that request is answered, as one that could not go again. A retry needs
 * the whole request so far, and a proxy bounds what it holds for that:
 * HAProxy retries only a request that fits its buffer (tune.bufsize,
 * 16 KiB by default), Envoy buffers one up to its per-connection buffer
 * limit. 64 KiB takes any head (SY_PROXY_HEAD_MAX) with the bodies worth a
 * second trip (forms, JSON calls, gRPC unary requests). The copy is
 * indirect mbufs on the bytes sent, never copied bytes, but it holds those
 * mbufs until the response head comes: 64 KiB is 32 to 45 of them (2 KiB
 * buffers, 1448-byte segments) and as many indirect ones, and the segment
 * bound keeps a client sending tiny segments from pinning an mbuf every
 * few bytes. */
#define SY_PX_REPLAY_MAX (64 * 1024)
#define SY_PX_REPLAY_SEGS_MAX 128

/* Timeouts, named as the OpenShift router's (ROUTER_DEFAULT_*_TIMEOUT,
 * HAProxy's timeout client/server/connect/http-request/http-keep-alive/
 * tunnel), in milliseconds. */
#define SY_PROXY_TIMEOUT_CLIENT_MS 30000
#define SY_PROXY_TIMEOUT_SERVER_MS 30000
#define SY_PROXY_TIMEOUT_CONNECT_MS 5000
#define SY_PROXY_TIMEOUT_HTTP_REQUEST_MS 10000
#define SY_PROXY_TIMEOUT_KEEP_ALIVE_MS 300000
#define SY_PROXY_TIMEOUT_TUNNEL_MS 3600000
/* TCP keep-alive probes (tcb.h) on the client leg, and on both legs of a
 * tunnel, after this long without a segment from the peer: a client or
 * backend that vanished (power loss, a NAT that forgot the flow) is found
 * within SY_PROXY_KEEPALIVE_IDLE_MS + 5 probes x 10 s, not after the
 * 300 s keep-alive or 1 h tunnel timeout. HAProxy's clitcpka/srvtcpka do
 * this with the kernel's 2 h default; a router's idle state is worth more. */
#define SY_PROXY_KEEPALIVE_IDLE_MS 60000

/* Idle pools (px_idle.c): backend connections kept between clients, per
 * worker and endpoint, closed after SY_PROXY_IDLE_BACKEND_MS unused. */
#define SY_PX_IDLE_MAX 1024
#define SY_PROXY_IDLE_BACKEND_MS 4000

/* TIME_WAIT on the client leg (px_time_wait.c): a record of the 4-tuple and
 * the numbers its last ACK needs, for the TCB's SY_TCB_TIME_WAIT_MS, again
 * after each retransmitted FIN it answers, up to SY_PX_TIME_WAIT_ACKS of
 * them; at most SY_PX_TIME_WAIT_SHARE of a worker's connection records
 * (flows_per_worker / 8), past which a leg ends without one. */
#define SY_PX_TIME_WAIT_SHARE 8
#define SY_PX_TIME_WAIT_ACKS 8

enum sy_proxy_req_state {
	SY_PX_REQ_HEAD,  /* waiting for (the next) request head */
	SY_PX_REQ_BODY,  /* forwarding its body */
	SY_PX_REQ_DONE,  /* sent; waiting for the response to finish */
};

enum sy_proxy_resp_state {
	SY_PX_RESP_NONE,  /* no request outstanding */
	SY_PX_RESP_HEAD,  /* waiting for the response head */
	SY_PX_RESP_BODY,  /* forwarding its body */
	SY_PX_RESP_OWN,   /* the router's own answer is in the client's queue */
};

struct sy_proxy {
	struct sy_conn *cc; /* client record */
	/* The client: its connection's source, or the one a PROXY protocol
	 * header named (conn/flow_table.h, sy_conn_client_addr). */
	struct sy_addr client;
	struct sy_conn *bc; /* backend record, or NULL */
	struct sy_tcb c, b;
	uint8_t req_state, resp_state;
	bool tunnel;        /* after a 101 (Upgrade) or a CONNECT's 2xx */
	bool close_after;   /* close the client leg once this response is out */
	bool backend_idle;  /* bc finished its last response: reusable */
	bool head_req;      /* the request in flight is HEAD */
	bool resp_sent;     /* bytes of the current response reached the client queue */
	bool backend_reusable; /* the last response left the backend leg reusable */
	bool backend_keep_alive; /* the response in flight: the backend keeps the connection */
	bool leg_used;      /* the backend leg carried an exchange before this request */
	struct sy_mq replay; /* the request again: px_retry (proxy_http.c) */
	uint16_t replay_segs; /* its mbufs (SY_PX_REPLAY_SEGS_MAX), while replay.bytes > 0 */
	/* Retrying the request in flight once (px_retry): where to (the pick's
	 * next endpoint; 0 none), and whether it may go again after the
	 * backend may have read it (an idempotent method). */
	struct sy_addr alt_ip; /* family 0: none */
	uint16_t alt_port;
	uint16_t alt_stat_slot; /* its counters (sy_backend_stats.h) */
	bool replay_idempotent;
	/* The route's retry policy for the request in flight (sy_rule_more,
	 * copied: the exchange may outlive its generation): tries left, and
	 * the statuses that use one. */
	uint8_t retries_left, retry_on;
	/* An h2 stream refused unprocessed goes again this many more times
	 * (SY_PX_H2_UNPROCESSED_RETRIES, px_retry). */
	uint8_t unprocessed_left;
	uint16_t retry_codes[SY_RETRY_CODES_MAX];
	/* The request in flight's mirror legs still fed its body (px_mirror.h;
	 * NULL: none, or it has the whole request and goes on alone). */
	struct px_mirror *mirror[SY_RULE_MIRRORS_MAX];
	uint8_t req_framing, resp_framing; /* enum sy_px_framing */
	uint64_t req_left, resp_left;      /* LENGTH: body bytes still to forward */
	struct sy_px_chunked req_chunk, resp_chunk;
	struct sy_addr be_ip; /* current backend endpoint, either family */
	uint16_t be_port;
	uint64_t deadline;  /* TSC: the timeout of the current phase */
	/* The request in flight's server and tunnel timeouts (ms): the
	 * route's (its timeout and timeout-tunnel annotations), else
	 * SY_PROXY_TIMEOUT_SERVER_MS and SY_PROXY_TIMEOUT_TUNNEL_MS. */
	uint32_t server_ms, tunnel_ms;
	/* The route's timeoutPolicy.idle and retryPolicy.perTryTimeout (ms,
	 * 0: none), copied too; try_deadline: TSC by which the try in flight
	 * must have its response head (0: none running). */
	uint32_t idle_ms, per_try_ms;
	uint64_t try_deadline;
	uint32_t requests;  /* on this client connection */
	/* The response filters of the request in flight (proxy_filter.c),
	 * copied out of the generation when it was routed: status() over the
	 * backend's, and header lines to add; the first resp_n_set of them
	 * replace the backend's headers of the same name. */
	uint16_t resp_status;
	uint16_t resp_extra_len;
	uint8_t resp_n_set;
	char resp_extra[384];
	/* Response headers the route deletes (spec.httpHeaders' Delete):
	 * names, each ended by '\n'. */
	uint16_t resp_del_len;
	char resp_del[160];
	/* TLS terminated on the client leg (tls/tls.h): &tls_conn, else NULL
	 * and the HTTP layer reads and writes the TCP leg's queues. */
	struct sy_tls_conn *tls;
	struct sy_tls_conn tls_conn;
	/* TLS on the backend leg (re-encrypt, https:// backends): &btls_conn,
	 * or NULL; btls_ctx: the client context it was opened with (a kept
	 * leg serves a next request only for the same one). */
	struct sy_tls_conn *btls;
	struct sy_tls_conn btls_conn;
	const void *btls_ctx;
	/* The record of the request in flight (proxy_http.c, request_begin):
	 * filled as it goes, counted on its route and put on the access log
	 * when the exchange is done (or the connection ends first); log.tsc 0:
	 * none open. */
	struct sy_access_rec log;
	/* The route's counters (sy_route_stats.h) for that request: its slot,
	 * when it was queued to the backend (TSC), the backend's time to its
	 * response head and the router's own, in microseconds. */
	uint16_t stat_slot;
	uint16_t be_stat_slot; /* the endpoint it was sent to (sy_backend_stats.h), 0 none */
	uint64_t t_queued;
	uint32_t backend_us, router_us;
	/* HTTP/2 (px_h2.h). On the connection: h2, its session once it
	 * speaks h2; h2_decided once it is known whether it does. On one
	 * stream's exchange: parent, the connection, and strm, the pipe that
	 * is its client leg (&strm_s). */
	struct px_h2 *h2;
	bool h2_decided;
	struct sy_proxy *parent;
	struct px_h2_stream *strm;
	struct px_h2_stream strm_s;
	/* An h2 backend leg (px_h2_backend.h): the exchange's stream, and
	 * its pipe that is the exchange's backend leg, or NULL for HTTP/1.1.
	 * On an h2c carrier the exchange has no TCP leg (bc NULL); over TLS
	 * the session rides its own (bc, b, btls). be_proto: what the leg
	 * was opened for (enum sy_be_proto). */
	struct px_h2b_strm *bh2;
	struct px_h2_stream *bpipe;
	uint8_t be_proto;
	/* px_step is running for this connection: a step asked meanwhile
	 * (an h2c carrier waking one of its exchanges) makes it go round
	 * again instead of nesting. */
	bool in_step, step_again;
	/* An h2 connection's client output waits for the end of the RX burst
	 * (px_out.c): out_queued, it is in the worker's list; seal_later, its
	 * last TLS seal was left for then too. */
	bool out_queued, seal_later;
};

/* A worker's ratelimit token bucket (proxy_filter.c). */
#define SY_PX_BUCKETS 8192 /* a power of two */
struct px_bucket {
	uint64_t key;      /* filter x client; 0 = free */
	uint64_t last_ms;
	double tokens;
};

/* c (PEEK) goes to the proxy: take the held bytes and go on; tls: they
 * are a ClientHello, and TLS is terminated first. -ENOBUFS, c untouched,
 * when the worker has no proxy state free (counted: proxy_pool_empty);
 * the caller answers the client. */
int sy_proxy_start(struct sy_worker *w, struct sy_conn *c, bool tls);
/* A segment for either leg's record. Consumes m. */
void sy_proxy_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m,
		      bool from_client);
/* A graceful drain began (drain.c): close the client connection if it is
 * idle between requests; one in an exchange closes after its response. */
void sy_proxy_drain(struct sy_worker *w, struct sy_conn *c);
/* An RX burst is read between these (splice/splice_fast.c): the h2
 * connections it steps send once, at the end, what all its frames made them
 * write (px_out.c). */
void sy_proxy_out_open(struct sy_worker *w);
void sy_proxy_out_flush(struct sy_worker *w);
/* The client record's timer fired. */
void sy_proxy_timeout(struct sy_worker *w, struct sy_conn *c);
/* sy_conn_free of a proxy record: free the proxy state and the other leg. */
void sy_proxy_release(struct sy_worker *w, struct sy_conn *c);

/* The proxy's states (PROXY, PROXY_BE, PROXY_IDLE, PROXY_TIME_WAIT) take
 * their segments, timers and releases from here on (px_ops.c,
 * conn/conn_ops.h). Before workers run. */
void sy_proxy_register_ops(void);
/* The proxy's tables on a worker (the proxy states' mempool, ratelimit
 * buckets, the idle pool): 0 or -ENOMEM (the caller calls the fini);
 * fini after every record is freed (sy_conn_free_all). */
int sy_proxy_worker_init(struct sy_worker *w);
void sy_proxy_worker_fini(struct sy_worker *w);

/* TIME_WAIT on the client leg (px_time_wait.c). A segment from the client
 * for a TIME_WAIT record. Consumes m. */
void sy_proxy_time_wait_segment(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m);
/* A SYN (no ACK) for a TIME_WAIT record's 4-tuple: true when RFC 6191 lets
 * it open a new connection (the record is freed: the SYN goes to the
 * listener); false when it was dropped (m consumed). */
bool sy_proxy_time_wait_syn(struct sy_worker *w, struct sy_conn *c, struct rte_mbuf *m);
/* sy_conn_free of a TIME_WAIT record. */
void sy_proxy_time_wait_release(struct sy_worker *w, struct sy_conn *c);

/* The idle pool (px_idle.c): set up with the worker's tables; a parked
 * record's segment, its timer, and its sy_conn_free. */
int px_idle_init(struct sy_worker *w);
void px_idle_fini(struct sy_worker *w);
void sy_proxy_idle_segment(struct sy_worker *w, struct sy_conn *bc, struct rte_mbuf *m);
void sy_proxy_idle_timeout(struct sy_worker *w, struct sy_conn *bc);
void sy_proxy_idle_release(struct sy_worker *w, struct sy_conn *bc);

#endif
