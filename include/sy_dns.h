/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The shard zones the data plane's DNS responder answers for (config
 * `dns.listen`; dataplane/dns/dns.h answers, control/fleet/dns_zones.c
 * builds): one zone per Router object with a spec.dns, its VIPs (IPv4 and
 * IPv6, at most SY_DNS_VIPS_MAX of each, in spec.vips order). The
 * control thread publishes a new table when the Routers change; the old one
 * is freed once every worker has passed a quiescent state.
 */
#ifndef SY_DNS_H
#define SY_DNS_H

#include <stdint.h>

#define SY_DNS_NAME_MAX 253
#define SY_DNS_VIPS_MAX 16
#define SY_DNS_TTL 30 /* seconds: short, so a VIP that moves is followed soon */

struct sy_dns_zone {
	char name[SY_DNS_NAME_MAX + 1]; /* lower case, no trailing dot */
	uint16_t name_len;
	uint16_t n_vips;
	uint32_t vips[SY_DNS_VIPS_MAX]; /* network order: the wildcard's A records */
	/* The IPv6 VIPs, after the IPv4 ones so that their layout stays as it
	 * was: the wildcard's AAAA records. */
	uint16_t n_vips6;
	uint8_t vips6[SY_DNS_VIPS_MAX][16]; /* network order */
};

struct sy_dns_table {
	uint32_t serial; /* the SOA serial: the generation that made it */
	uint32_t n;
	struct sy_dns_zone z[];
};

#endif
