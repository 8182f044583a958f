/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The access log's record (config `access_log`): made on a worker, one per
 * request in proxy mode and one per connection in splice mode (when it is
 * handed to its backend, or answered by the router), put on the worker's
 * own ring (dataplane/observe/access_rec.h) and formatted and written by the
 * control thread (control/observe/access_log.h). A full ring drops the
 * record and counts it (access_log_dropped); a worker never waits for the
 * writer.
 */
#ifndef SY_ACCESS_LOG_H
#define SY_ACCESS_LOG_H

#include <stdint.h>

#define SY_ALOG_RING 4096 /* records a worker's ring holds (a power of two) */

enum sy_alog_mode {
	SY_ALOG_PROXY = 0, /* a request of a proxied connection */
	SY_ALOG_SPLICE,    /* a connection spliced to its backend */
	SY_ALOG_ANSWER,    /* a connection the splice path answered itself */
};

#define SY_ALOG_V6_CLIENT 0x01
#define SY_ALOG_V6_BACKEND 0x02
/* The listen address is IPv6 (vip6). Apart from the client's: a PROXY
 * protocol header may name a client of the other family. */
#define SY_ALOG_V6_VIP 0x04

#define SY_ALOG_NO_REASON 0xff
#define SY_ALOG_NO_TIME UINT32_MAX

struct sy_access_rec {
	uint64_t tsc;        /* the request's head complete (proxy), the splice or answer (splice) */
	uint64_t bytes_out;  /* to the client: the answer's head and body (proxy) */
	uint64_t bytes_in;   /* from the client: the request's head and body (proxy) */
	uint32_t total_us;   /* to the end of the exchange (proxy), or SY_ALOG_NO_TIME */
	uint32_t resp_us;    /* to the backend's response head (proxy), or SY_ALOG_NO_TIME */
	uint32_t connect_us; /* from the first SYN to the backend's SYN-ACK (splice), or SY_ALOG_NO_TIME */
	uint32_t client_ip, vip, backend_ip; /* network order; backend 0: none */
	uint8_t client6[16], vip6[16]; /* SY_ALOG_V6_CLIENT, _VIP: these instead */
	uint8_t backend6[16];          /* SY_ALOG_V6_BACKEND: this instead */
	uint8_t v6;                    /* SY_ALOG_V6_*: the legs that are IPv6 */
	uint16_t client_port, vip_port, backend_port;
	uint16_t status;     /* 0: none (a spliced connection: the backend's, unseen) */
	uint8_t mode;        /* enum sy_alog_mode */
	uint8_t why;         /* enum sy_answer_reason of the router's own answer, or SY_ALOG_NO_REASON */
	uint8_t worker;
	uint8_t tls;         /* 1: TLS (terminated, or passthrough by SNI) */
	uint8_t version;     /* the request's HTTP version x 10 (10, 11, 20), 0 unknown (splice) */
	char method[12];
	char host[64];       /* Host or SNI as the client sent it, truncated */
	char route[64];      /* the rule's object, "Kind ns/name", truncated; "" none */
	char target[100];    /* request target, truncated (proxy) */
};

#endif
