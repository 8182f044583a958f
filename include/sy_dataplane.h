/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the control thread (control/main.c) asks of the data plane. The
 * dataplane owns mempools, ports, the FIB and the workers; the control thread
 * owns configuration and the generation slot.
 */
#ifndef SY_DATAPLANE_H
#define SY_DATAPLANE_H

#include <stdint.h>

#include "sy_config.h"
#include "sy_counters.h"
#include "sy_gen_slot.h"

/* The kernel's counters of a net_af_xdp port's AF_XDP sockets, which the
 * driver does not report (dataplane/xsk_stats.h). */
struct sy_xsk_stats {
	unsigned sockets;        /* the port's AF_XDP sockets (one per queue) */
	uint64_t rx_dropped;     /* dropped in the kernel (the driver's imissed) */
	uint64_t rx_invalid;     /* RX descriptors the kernel found invalid */
	uint64_t rx_ring_full;   /* dropped: the RX ring was full */
	uint64_t fill_empty;     /* times the fill ring had no buffer */
	uint64_t tx_invalid;     /* TX descriptors refused (an mbuf outside the UMEM) */
	uint64_t tx_ring_empty;  /* kicks with nothing to send (not a drop) */
};

struct sy_port_info {
	char name[SY_NAME_MAX];
	uint16_t port_id;
	uint8_t mac[6];
	uint16_t mtu;
	uint64_t ipackets, opackets, ibytes, obytes, imissed, ierrors, oerrors, rx_nombuf;
	bool af_xdp; /* xsk holds the kernel's counters */
	struct sy_xsk_stats xsk;
};

/* The tx_drain_us a config means: "auto" resolved by its ports' kinds
 * (dataplane/worker.c). */
unsigned sy_tx_drain_us(const struct sy_config *cfg);

/* After rte_eal_init: mempools, ports (one RX and one TX queue per worker on
 * every port), FIB from the ports' connected prefixes and cfg->routes, per
 * worker state. Registers each worker as RCU reader i on slot->qs.
 * Returns 0 or -errno with a message in err. */
int sy_dp_init(const struct sy_config *cfg, struct sy_gen_slot *slot, char *err, size_t errlen);
/* Launch the workers on their lcores. */
int sy_dp_start(void);
/* Ask workers to stop, wait for them, stop and close ports, free dataplane state. */
void sy_dp_stop(void);
/* A graceful drain (dataplane/drain.c): from now on the workers refuse new
 * connections and close idle ones; sy_dp_conns_in_flight says how many are
 * left to finish (a count taken from the workers' records, a moment old).
 * Returns how many milliseconds the drain lasts at least: while this node
 * was master of a VIP, a standby takes it over within Master_Down_Interval,
 * and until then clients still reach this node through their ARP caches
 * (0 without VIPs mastered). */
unsigned sy_dp_drain_begin(void);
unsigned sy_dp_conns_in_flight(void);
/* New SYN cookie secret (the previous one stays valid): call every
 * SY_DP_COOKIE_ROTATE_S seconds from the control thread. */
#define SY_DP_COOKIE_ROTATE_S 180
void sy_dp_rotate_cookie_secret(void);
unsigned sy_dp_n_workers(void);
/* Worker i's clock now (dataplane/worker_clock.h): the TSC less what jumps
 * of it (a VM resumed from a snapshot) left out. The worker's stamps (a
 * connection's last segment, an access log record, VRRP's master_seen) are
 * on that clock, so ages are taken against this, not rte_rdtsc(). 0 when
 * there is no such worker. */
uint64_t sy_dp_worker_clock(unsigned i);
/* TLS termination (dataplane/tls/tls.h). A server context the control
 * thread built gets the workers' callbacks: certificate by SNI, ALPN, session
 * tickets and the per-worker session cache. */
struct ssl_ctx_st;
void sy_dp_tls_ctx_prepare(struct ssl_ctx_st *ctx);
/* Staple this DER OCSP response (checked by the control thread) to every
 * handshake on ctx whose client asks for one; once per context, before it
 * is published. 0, or -1 (no memory, or it has one already). */
int sy_dp_tls_ctx_set_staple(struct ssl_ctx_st *ctx, const unsigned char *der, size_t len);
/* The context every TLS connection starts on (the default certificate),
 * before sy_dp_start; the control thread keeps it alive. */
void sy_dp_tls_set_default(struct ssl_ctx_st *ctx);
/* New session ticket key (the two before it still open tickets): call
 * every cfg->tls_ticket_rotate_s seconds from the control thread. */
void sy_dp_tls_rotate_ticket_keys(void);
/* Client certificates (dataplane/tls/tls_client_cert.h): the subject
 * patterns the control thread compiled (control/tls/tls_client_ca.c),
 * read-only for the workers; 0 patterns: every verified subject is let in. */
struct pcre2_real_code_8;
struct sy_tls_client_policy {
	unsigned n_patterns;
	struct pcre2_real_code_8 *patterns[SY_MAX_CLIENT_SUBJECT_PATTERNS];
};
/* Before the workers start; NULL: client certificates off. */
void sy_dp_tls_client_policy_set(const struct sy_tls_client_policy *p);
/* Counters of worker i (live, read-only for the caller). */
const struct sy_worker_counters *sy_dp_worker_counters(unsigned i);
/* What the workers know of backend endpoint ip:port (network order), for
 * `routerctl get endpoints` (dataplane/lb/lb.h; read while they run, as
 * counters are: a moment's view). */
struct sy_dp_endpoint_state {
	uint64_t open_connections; /* backend connections open to it, all workers */
	uint64_t connections;      /* ... opened to it since start (retries too), all workers */
	unsigned ejected_workers;  /* workers whose picks skip it now (passive health) */
	unsigned failures;         /* the longest run of failures a worker has seen */
};
void sy_dp_endpoint_state(uint32_t ip, uint16_t port, struct sy_dp_endpoint_state *out);

/*
 * Active health checks (control/health.h plans them; dataplane/lb/hc_probe.c
 * sends them). The backend networks are reachable only through the data
 * plane, so one worker (worker 0) sends each check from its own SNAT ports:
 * a job goes to it over a ring and comes back over another with its result.
 * The job's memory is the control thread's; between submit and collect only
 * the worker touches it (but `owner`).
 */
#define SY_HC_PATH_MAX 256
#define SY_HC_HOST_MAX 256
#define SY_HC_JOBS_MAX 256 /* in flight at once: the probing worker's slots */
enum sy_hc_result {
	SY_HC_ANSWERED = 0, /* `status` holds the answer's HTTP status */
	SY_HC_REFUSED,      /* RST to our SYN */
	SY_HC_TIMEOUT,      /* no status line within timeout_ms (connecting included) */
	SY_HC_RESET,        /* reset or closed before a whole status line */
	SY_HC_BAD_ANSWER,   /* not an HTTP/1.x status line */
	SY_HC_NO_ROUTE,     /* no port reaches the address */
	SY_HC_NO_RESOURCES, /* no connection record, SNAT port or probe slot free */
	SY_HC_N_RESULTS
};
struct sy_hc_job {
	/* The control thread's request. */
	struct sy_addr addr; /* either family */
	uint16_t port;       /* network order */
	uint32_t timeout_ms;
	char path[SY_HC_PATH_MAX];
	char host[SY_HC_HOST_MAX];
	/* The worker's answer. */
	uint8_t result; /* enum sy_hc_result */
	uint16_t status;
	/* The control thread's own; the worker never reads it. */
	void *owner;
};
/* Hand a job to the probing worker: 0, or -ENODEV (no workers) or -ENOBUFS
 * (SY_HC_JOBS_MAX in flight). */
int sy_dp_hc_submit(struct sy_hc_job *job);
/* The next job the worker finished, or NULL. */
struct sy_hc_job *sy_dp_hc_collect(void);
const char *sy_hc_result_name(enum sy_hc_result r);

/* Access log records of worker w (sy_access_log.h): up to max taken off its
 * ring into out; how many. 0 when the log is off. */
struct sy_access_rec;
unsigned sy_dp_alog_take(unsigned w, struct sy_access_rec *out, unsigned max);

/* Worker w's traffic counters per route object (sy_route_stats.h), live,
 * read-only for the caller; NULL when there is no such worker. */
struct sy_route_ctr;
const struct sy_route_ctr *sy_dp_route_ctrs(unsigned w);
/* ... and per backend endpoint (sy_backend_stats.h). */
struct sy_backend_ctr;
const struct sy_backend_ctr *sy_dp_backend_ctrs(unsigned w);

/* The DNS responder's shard zones (sy_dns.h): t (malloc'd) replaces the
 * table the workers read; the old one is freed once each worker has passed
 * a quiescent state (this waits for that: microseconds, at a Router
 * change). 0, or -ENODEV (no data plane: t is freed). */
struct sy_dns_table;
int sy_dp_dns_publish(struct sy_dns_table *t);

/* VIP failover (sy_vrrp.h): t (malloc'd) replaces the VIPs worker 0 runs
 * virtual routers for, the old one freed as sy_dp_dns_publish does. 0, or
 * -ENODEV (vrrp not configured or no data plane: t is freed). */
struct sy_vrrp_vips;
struct sy_vrrp_status;
int sy_dp_vrrp_publish(struct sy_vrrp_vips *t);
/* VIP index i's virtual router now: 0, or -ENOENT (no VIP there). */
int sy_dp_vrrp_status(unsigned i, struct sy_vrrp_status *out);

unsigned sy_dp_n_ports(void);
int sy_dp_port_info(unsigned i, struct sy_port_info *out);

/* The packet buffers (one pool for every port and worker): how many there
 * are, how many are out of the pool now (on the ports' queues, in the
 * flows' and connections' buffers, in flight between workers) and how many
 * of those are kept out of use for good (sy_mbuf_pool_quarantined). With no
 * traffic, in_use comes back to what the ports' queues hold: a figure that
 * keeps growing is a leak, one below 0 an mbuf freed twice. Read while the
 * workers run: a gauge, exact at rest. -ENODEV without a data plane. */
struct sy_dp_mbufs {
	unsigned total, quarantined;
	long in_use;
};
int sy_dp_mbufs(struct sy_dp_mbufs *out);

/* One live connection record of a worker (`routerctl conns`,
 * observe/conn_list.h). Names are static strings, "" where they do not
 * apply; addresses and ports in host order, 0 where the record has none. */
struct sy_dp_conn {
	const char *kind;        /* peek, connecting, spliced, answer, linger, proxy,
				  * proxy-backend, proxy-idle, proxy-time-wait, health-probe */
	const char *client_tcp;  /* proxy: each leg's TCP state (established, ...) */
	const char *backend_tcp;
	const char *request;     /* proxy: head, body, sent */
	const char *response;    /* proxy: none, head, body, own */
	const char *tls;         /* terminated here: handshake, open, failed */
	uint32_t client_ip, listen_ip, backend_ip, snat_ip;
	uint16_t client_port, listen_port, backend_port, snat_port;
	bool v6;                 /* an IPv6 client leg: these instead of client_ip, listen_ip */
	uint8_t client6[16], listen6[16];
	bool backend_v6;         /* an IPv6 backend leg: these instead of backend_ip, snat_ip */
	uint8_t backend6[16], snat6[16];
	const char *protocol;    /* proxy: "HTTP/1.1", or "HTTP/2.0" once it speaks h2 */
	uint32_t requests;       /* proxy: requests on this client connection (h2: its streams) */
	uint32_t streams;        /* proxy over h2: the streams open now */
	uint32_t unacked;        /* proxy: bytes sent to the client, not yet acknowledged */
	uint32_t queued;         /* ... and bytes waiting to be sent to it */
	int64_t timer_ms;        /* until the record's timer fires; -1: none */
	int64_t deadline_ms;     /* proxy: until the current phase's timeout; -1: none */
};
/* Up to max of worker i's live records into out; how many. Read while the
 * worker runs, without a lock: a busy connection's line may mix two moments
 * (observe/conn_list.h says why that is safe). 0 without a data plane. */
unsigned sy_dp_conns(unsigned i, struct sy_dp_conn *out, unsigned max);

#endif
