/* SPDX-License-Identifier: BSD-3-Clause */
/* Port setup: find the ethdev EAL created for a configured port, give it one
 * RX and one TX queue per worker, start it. */
#ifndef SY_PORT_H
#define SY_PORT_H

#include <stddef.h>
#include <stdint.h>

#include "sy_config.h"

struct rte_mempool;
struct sy_dp_port;

/* Descriptors asked for per queue (the PMD may adjust them); the mempool is
 * sized from these. RX holds what arrives while a worker is away: asleep
 * under the adaptive idle policy (up to 1 ms) or off its core. 2,048 frames
 * is a millisecond at 2 Mpps and net_af_xdp's own default; at 512 an 8 MB
 * download's burst on veth overran the kernel's AF_XDP RX ring under load
 * (xsk_stats.h counts those drops). */
#define SY_PORT_RX_DESC 2048
#define SY_PORT_TX_DESC 512

/* Ethdev id of a configured port: for a vdev the name is devargs up to the
 * first comma, for PCI the address. Returns 0 or -ENODEV. */
int sy_port_find(const struct sy_port_config *pc, uint16_t *port_id);
/* Configure and start; fills p->port_id, mac, mtu and offload flags. Link,
 * MTU and MAC failures only warn (net_tap moved to another namespace fails
 * them: docs/architecture.md section 8). Returns 0 or -errno with a message
 * in err. */
int sy_port_setup(const struct sy_port_config *pc, uint16_t n_queues, struct rte_mempool *pool,
		  struct sy_dp_port *p, char *err, size_t errlen);
/* Stop and close; failures ignored (the same tap problems). */
void sy_port_close(struct sy_dp_port *p);

#endif
