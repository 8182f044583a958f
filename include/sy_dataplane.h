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

struct sy_port_info {
	char name[SY_NAME_MAX];
	uint16_t port_id;
	uint8_t mac[6];
	uint16_t mtu;
	uint64_t ipackets, opackets, ibytes, obytes, imissed, ierrors, oerrors, rx_nombuf;
};

/* After rte_eal_init: mempools, ports (one RX and one TX queue per worker on
 * every port), FIB from the ports' connected prefixes and cfg->routes, per
 * worker state. Registers each worker as RCU reader i on slot->qs.
 * Returns 0 or -errno with a message in err. */
int sy_dp_init(const struct sy_config *cfg, struct sy_gen_slot *slot, char *err, size_t errlen);
/* Launch the workers on their lcores. */
int sy_dp_start(void);
/* Ask workers to stop, wait for them, stop and close ports, free dataplane state. */
void sy_dp_stop(void);
/* New SYN cookie secret (the previous one stays valid): call every
 * SY_DP_COOKIE_ROTATE_S seconds from the control thread. */
#define SY_DP_COOKIE_ROTATE_S 180
void sy_dp_rotate_cookie_secret(void);
unsigned sy_dp_n_workers(void);
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
/* Counters of worker i (live, read-only for the caller). */
const struct sy_worker_counters *sy_dp_worker_counters(unsigned i);
/* What the workers know of backend endpoint ip:port (network order), for
 * `routerctl get endpoints` (dataplane/lb/lb.h; read while they run, as
 * counters are: a moment's view). */
struct sy_dp_endpoint_state {
	uint64_t open_connections; /* backend connections open to it, all workers */
	unsigned ejected_workers;  /* workers whose picks skip it now (passive health) */
	unsigned failures;         /* the longest run of failures a worker has seen */
};
void sy_dp_endpoint_state(uint32_t ip, uint16_t port, struct sy_dp_endpoint_state *out);
unsigned sy_dp_n_ports(void);
int sy_dp_port_info(unsigned i, struct sy_port_info *out);

#endif
