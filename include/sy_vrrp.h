/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VIP failover (issue 18; config `vrrp`): what the control thread and the
 * data plane's VRRP half (dataplane/vrrp/vrrp.h) share.
 *
 * The control thread publishes the VIPs of this routerd's Router object
 * (spec.vips, in order) as a struct sy_vrrp_vips; worker 0 runs one
 * virtual router per VIP (VRID vrid_base + index) and publishes each one's
 * state in a struct sy_vrrp_status the control thread reads for `routerctl
 * status`.
 *
 * A VIP is IPv4 or IPv6 (RFC 5798: a virtual router has one address
 * family). Its virtual router's VRID is vrid_base + its index whatever the
 * family, so no two of ours share a VRID even across families (RFC 5798
 * would allow it: IPv4 and IPv6 virtual routers are separate instances),
 * and an IPv6 VIP keeps its VRID when an IPv4 one before it is removed
 * just as an IPv4 one does.
 */
#ifndef SY_VRRP_H
#define SY_VRRP_H

#include <stdint.h>

#include "sy_addr.h"

#define SY_VRRP_VIPS_MAX 16 /* VIPs of one Router that get a virtual router */
#define SY_VRRP_NODES_MAX 16
#define SY_VRRP_ADVERT_MS_DEFAULT 100

enum sy_vrrp_state {
	SY_VRRP_INIT = 0, /* no VIP at this index, or not started */
	SY_VRRP_BACKUP,
	SY_VRRP_MASTER,
};

struct sy_vrrp_vips {
	uint32_t n;
	struct sy_addr vip[SY_VRRP_VIPS_MAX]; /* family 0: no VIP at this index */
};

/* One virtual router as `routerctl status` shows it (a moment's view). */
struct sy_vrrp_status {
	struct sy_addr vip;
	uint8_t vrid;
	uint8_t state;        /* enum sy_vrrp_state */
	uint8_t priority;     /* ours */
	uint8_t master_priority;
	struct sy_addr master; /* the master's primary address (ours while master); family 0: none
				* heard yet. IPv6: its link-local address. */
	uint32_t transitions; /* state changes since start */
	uint64_t master_seen_ms_ago; /* its last advert (UINT64_MAX: never) */
};

const char *sy_vrrp_state_name(enum sy_vrrp_state s);

#endif
