/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VIP failover between routerds (issue 18; config `vrrp`, include/sy_vrrp.h):
 * VRRPv3 (RFC 5798) advertisements on the data plane, one virtual router per
 * VIP of this routerd's Router (VRID vrid_base + index), IPv4 or IPv6: a
 * virtual router has the one family of its VIP (RFC 5798 allows no mix), so
 * an IPv6 VIP's adverts go over IPv6 (next header 112 to ff02::12 from the
 * port's link-local address, hop limit 255, 16-byte addresses, the checksum
 * over the IPv6 pseudo-header) and an IPv4 VIP's over IPv4. The VRID is
 * the index's whatever the family (include/sy_vrrp.h), so ours never share
 * one across families; a peer's IPv6 advert for the VRID of an IPv4 VIP of
 * ours (or the reverse) is dropped as an unknown VRID.
 *
 * Who does what:
 *   - vrrp_pkt.c: the advertisement on the wire (encode, parse): pure.
 *   - vrrp_fsm.c: one virtual router's state machine (RFC 5798 6.4) over a
 *     clock the caller gives (microseconds): pure, unit-tested with a
 *     virtual clock. Its functions return what to do (SY_VRRP_DO_*).
 *   - vrrp.c: the workers' half. Any worker may receive an advert (af_packet
 *     spreads by the kernel's hash); it checks it and posts it over an MP/SC
 *     ring to worker 0, which owns every state machine, runs their timers,
 *     sends adverts and gratuitous ARP (IPv6: unsolicited neighbour
 *     advertisements, net/nd.h), and publishes each VIP's state and master
 *     as relaxed atomics that every worker reads (ARP and neighbour
 *     solicitations, IPv4 and IPv6 input, TCP listen, DNS) and the control
 *     thread reads for `routerctl status`.
 *
 * Priorities: VIP i is preferred on node i mod nodes (priority 250), the
 * next node 240, and so on down (RFC 5798 keeps 255 for the address owner,
 * which no routerd is). With at least as many VIPs as nodes every node is
 * master of some (active/active); with fewer, the rest stand by.
 *
 * The VIP answers from the node's own MAC (gratuitous ARP or an unsolicited
 * neighbour advertisement with the Override flag moves it), not the virtual
 * MAC 00:00:5e:00:01:VRID (00:00:5e:00:02:VRID for IPv6): the port MAC is
 * the one af_packet sends and receives with; the clients' neighbour caches
 * follow the announcements.
 */
#ifndef SY_DP_VRRP_H
#define SY_DP_VRRP_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include <rte_byteorder.h>

#include "sy_vrrp.h"

struct rte_mbuf;
struct rte_ring;
struct sy_config;
struct sy_worker;
struct sy_dp_shared;

#define SY_IPPROTO_VRRP 112
#define SY_VRRP_GROUP RTE_BE32(0xe0000012) /* 224.0.0.18 */
#define SY_VRRP_TTL 255                    /* sent and required (RFC 5798 5.1.1.3) */
/* ff02::12 (RFC 5798 5.1.2.2), the IPv6 group; its MAC is 33:33:00:00:00:12. */
extern const uint8_t sy_vrrp_group6[16];
#define SY_VRRP_HOP_LIMIT 255 /* sent and required (RFC 5798 5.1.2.3) */
#define SY_VRRP_VERSION 3
#define SY_VRRP_TYPE_ADVERT 1
#define SY_VRRP_HDR_LEN 8
/* An advert carries the one VIP of its virtual router; up to this many are
 * accepted from a peer (the count field is 8 bits). */
#define SY_VRRP_ADDRS_MAX 16
#define SY_VRRP_PRIO_TOP 250
#define SY_VRRP_PRIO_STEP 10
/* Gratuitous ARP (IPv6: unsolicited neighbour advertisements) on becoming
 * master: this many, this far apart (a client that misses one, or ignores
 * one within its ARP locktime, takes the next). */
#define SY_VRRP_GARP_COUNT 3
#define SY_VRRP_GARP_SPACING_US 500000
/* Worker 0 looks at the timers this often: well under the few ms by which
 * the standbys' master-down intervals differ. */
#define SY_VRRP_TICK_US 1000
/* Adverts posted to worker 0 (a few VIPs x peers every interval). */
#define SY_VRRP_RING_SIZE 256

/* ---- the wire (vrrp_pkt.c) ---- */
struct sy_vrrp_advert {
	uint8_t vrid;
	uint8_t priority;
	uint16_t interval_cs; /* Max Adver Int, centiseconds (12 bits) */
	uint8_t n_addrs;
	union { /* the family the advert came in (or goes out) over */
		uint32_t addr[SY_VRRP_ADDRS_MAX]; /* IPv4, network order */
		uint8_t addr6[SY_VRRP_ADDRS_MAX][16];
	};
};

/* Why an advert is refused (each a drop reason of sy_counters.h). */
enum sy_vrrp_bad {
	SY_VRRP_OK = 0,
	SY_VRRP_BAD_TTL,      /* TTL or hop limit not 255: it crossed a router (RFC 5798 7.1) */
	SY_VRRP_BAD_VERSION,  /* version not 3, or type not advertisement */
	SY_VRRP_BAD_LENGTH,   /* shorter than its header and addresses */
	SY_VRRP_BAD_CHECKSUM,
	SY_VRRP_BAD_SOURCE,   /* IPv6: not from a link-local address (RFC 5798 5.1.2.1) */
};

/* The VRRP message for a (n_addrs from a) from src to the group, checksum
 * over the IPv4 pseudo-header (as keepalived and Wireshark do for v3), into
 * out (room bytes): its length, or 0 when it does not fit. */
unsigned sy_vrrp_encode(const struct sy_vrrp_advert *a, uint32_t src, uint8_t *out, unsigned room);
/* Check and read the VRRP message p (len bytes, the IP payload) that src
 * sent to dst with ttl: SY_VRRP_OK and *a, or why not. */
enum sy_vrrp_bad sy_vrrp_parse(const uint8_t *p, unsigned len, uint32_t src, uint32_t dst,
			       uint8_t ttl, struct sy_vrrp_advert *a);
/* The same over IPv6: a->addr6, from src (link-local) to ff02::12, the
 * checksum over the IPv6 pseudo-header (RFC 5798 5.2.8, RFC 8200 8.1). */
unsigned sy_vrrp_encode6(const struct sy_vrrp_advert *a, const uint8_t src[16], uint8_t *out,
			 unsigned room);
enum sy_vrrp_bad sy_vrrp_parse6(const uint8_t *p, unsigned len, const uint8_t src[16],
				const uint8_t dst[16], uint8_t hop_limit, struct sy_vrrp_advert *a);

/* ---- one virtual router (vrrp_fsm.c) ---- */
enum {
	SY_VRRP_DO_ADVERT = 1u << 0,  /* send an advert (priority vr->priority) */
	SY_VRRP_DO_ADVERT0 = 1u << 1, /* send an advert with priority 0: we resign */
	SY_VRRP_DO_GARP = 1u << 2,    /* announce the VIP: gratuitous ARP, or IPv6 unsolicited NA */
	SY_VRRP_DO_CHANGED = 1u << 3, /* the state changed */
};

struct sy_vrrp_vr {
	struct sy_addr vip;  /* family 0: no VIP in this slot */
	struct sy_addr self; /* our primary address on the segment (IPv6: link-local) */
	uint8_t vrid, priority;
	bool preempt;
	uint8_t state; /* enum sy_vrrp_state */
	uint16_t interval_cs;        /* ours */
	uint16_t master_interval_cs; /* the master's, learned from its adverts */
	struct sy_addr master;       /* its primary address (ours while master) */
	uint8_t master_priority;
	uint8_t garps_left;
	uint32_t transitions;
	uint64_t advert_at;   /* master: next advert due */
	uint64_t down_at;     /* backup: Master_Down_Timer fires */
	uint64_t garp_at;     /* master: next gratuitous ARP */
	uint64_t master_seen; /* last advert from the master (0: never) */
};

/* Set up for vip with our priority and interval; state INIT. */
void sy_vrrp_vr_init(struct sy_vrrp_vr *vr, const struct sy_addr *vip, const struct sy_addr *self,
		     uint8_t vrid, uint8_t priority, bool preempt, uint16_t interval_cs);
/* Our priority for VIP index i as node `node` of `nodes`. */
uint8_t sy_vrrp_priority(unsigned i, unsigned node, unsigned nodes);
/* Master_Down_Interval (RFC 5798 6.1) in microseconds: 3 x the master's
 * interval + Skew_Time ((256 - priority) x interval / 256). */
uint64_t sy_vrrp_master_down_us(const struct sy_vrrp_vr *vr);
/* Startup event (INIT -> BACKUP, or MASTER at priority 255). */
unsigned sy_vrrp_start(struct sy_vrrp_vr *vr, uint64_t now);
/* A checked advert for this VRID from src (of the VIP's family). */
unsigned sy_vrrp_on_advert(struct sy_vrrp_vr *vr, const struct sy_vrrp_advert *a,
			   const struct sy_addr *src, uint64_t now);
/* Timers due at now: Master_Down (take over), Adver (send), gratuitous ARP. */
unsigned sy_vrrp_on_timer(struct sy_vrrp_vr *vr, uint64_t now);
/* Shutdown event: back to INIT; a master resigns (DO_ADVERT0). */
unsigned sy_vrrp_stop(struct sy_vrrp_vr *vr);
/* A master is serving the VIP: we are it, or one advertised within the
 * master-down interval (the DNS answers only those). */
bool sy_vrrp_active(const struct sy_vrrp_vr *vr, uint64_t now);

/* ---- the workers' half (vrrp.c) ---- */
/* What every worker may read of VIP index i (worker 0 writes). An IPv6
 * address is two relaxed 64-bit halves: it changes only when the control
 * thread publishes another VIP for the slot, and the slot is in INIT or
 * BACKUP while it does (sync_vips), so a reader that sees half of each
 * finds no master of either. */
struct sy_vrrp_pub {
	_Atomic uint32_t vip;     /* IPv4 VIP, network order; 0: none (or IPv6) */
	_Atomic uint64_t vip6[2]; /* IPv6 VIP; 0: none (or IPv4) */
	_Atomic uint8_t state;
	_Atomic uint8_t master_priority;
	_Atomic uint32_t master;     /* IPv4 */
	_Atomic uint64_t master6[2]; /* IPv6 (link-local) */
	_Atomic uint32_t transitions;
	_Atomic uint64_t active_until; /* TSC: a master serves it until then (DNS) */
	_Atomic uint64_t master_seen;  /* TSC of its last advert, 0: never */
};

struct sy_vrrp {
	/* From the config, fixed. */
	uint16_t port; /* port index */
	uint8_t node, nodes, vrid_base;
	bool preempt;
	uint16_t interval_cs;
	uint32_t self;
	/* IPv6 VIPs: the port has an IPv6 address (without one it does not
	 * speak IPv6, and the control thread refuses them); self6 is its
	 * link-local address, the adverts' source (set by worker 0 when it
	 * starts an IPv6 VIP: the MAC is not read yet at sy_vrrp_create). */
	bool ipv6;
	uint8_t self6[16];
	/* The VIPs the control thread publishes (RCU: sy_dp_vrrp_publish);
	 * worker 0 reads them on its tick. */
	_Atomic(const struct sy_vrrp_vips *) vips;
	struct rte_ring *rx; /* checked adverts, any worker -> worker 0 */
	/* Worker 0's own. */
	struct sy_vrrp_vr vr[SY_VRRP_VIPS_MAX];
	uint64_t last_tick;
	uint64_t tsc_per_us;
	struct sy_vrrp_pub pub[SY_VRRP_VIPS_MAX];
};

struct rte_ether_addr;
/* 01:00:5e:00:00:12: the ethernet layer takes it when vrrp is on. */
bool sy_vrrp_is_group_mac(const struct rte_ether_addr *a);
/* Make the port receive the group's frames (a NIC's multicast filter; a
 * port with IPv6: every multicast frame, for ff02::12 and the VIPs'
 * solicited-node groups). */
struct sy_dp_port;
void sy_vrrp_port_join(const struct sy_dp_port *p);
/* sh->vrrp from cfg->vrrp (NULL when off); `set` makes the ring's name
 * unique. 0 or -errno with a message in err. */
int sy_vrrp_create(const struct sy_config *cfg, struct sy_dp_shared *sh, unsigned set, char *err,
		   size_t errlen);
void sy_vrrp_free(struct sy_dp_shared *sh);
/* IP protocol 112 to 224.0.0.18 (data at the IPv4 header, l3_len set). */
void sy_vrrp_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);
/* Next header 112 to ff02::12 (data at the IPv6 header, l3_len: up to the
 * VRRP message, past any extension headers). */
void sy_vrrp6_input(struct sy_worker *w, uint16_t port, struct rte_mbuf *m);
/* Worker 0, every loop: posted adverts, timers. Returns work done. */
unsigned sy_vrrp_poll(struct sy_worker *w);
/* Worker 0, leaving: resign every VIP it is master of (priority 0 adverts,
 * sent now), so a standby takes over at once. */
void sy_vrrp_resign(struct sy_worker *w);
/* How long after resigning a standby has surely taken this node's VIPs
 * (Master_Down_Interval, in ms; any thread), 0 when it is master of none.
 * Until then clients whose ARP or neighbour caches still point here keep
 * arriving: a drain lasts at least this long and takes their connections. */
unsigned sy_vrrp_handover_ms(const struct sy_vrrp *v);

/* The state of VIP ip (network order), or -1 when it is none of ours. */
static inline int
sy_vrrp_vip_state(const struct sy_vrrp *v, uint32_t ip)
{
	unsigned i;

	if (v == NULL || ip == 0)
		return -1;
	for (i = 0; i < SY_VRRP_VIPS_MAX; i++)
		if (atomic_load_explicit(&v->pub[i].vip, memory_order_relaxed) == ip)
			return atomic_load_explicit(&v->pub[i].state, memory_order_relaxed);
	return -1;
}

static inline bool
sy_vrrp_is_master(const struct sy_vrrp *v, uint32_t ip)
{
	return sy_vrrp_vip_state(v, ip) == SY_VRRP_MASTER;
}

/* An IPv6 address in the pub's form: two 64-bit halves as they lie in memory. */
static inline void
sy_vrrp_halves(const uint8_t a[16], uint64_t h[2])
{
	memcpy(&h[0], a, 8);
	memcpy(&h[1], a + 8, 8);
}

/* Index of IPv6 VIP ip, or -1 when it is none of ours. */
static inline int
sy_vrrp_vip6_index(const struct sy_vrrp *v, const uint8_t ip[16])
{
	uint64_t h[2];
	unsigned i;

	if (v == NULL)
		return -1;
	sy_vrrp_halves(ip, h);
	if ((h[0] | h[1]) == 0)
		return -1;
	for (i = 0; i < SY_VRRP_VIPS_MAX; i++)
		if (atomic_load_explicit(&v->pub[i].vip6[0], memory_order_relaxed) == h[0] &&
		    atomic_load_explicit(&v->pub[i].vip6[1], memory_order_relaxed) == h[1])
			return (int)i;
	return -1;
}

/* The state of IPv6 VIP ip, or -1 when it is none of ours. */
static inline int
sy_vrrp_vip6_state(const struct sy_vrrp *v, const uint8_t ip[16])
{
	int i = sy_vrrp_vip6_index(v, ip);

	return i < 0 ? -1 : atomic_load_explicit(&v->pub[i].state, memory_order_relaxed);
}

/* group is the solicited-node group (ff02::1:ffXX:XXXX) of an IPv6 VIP we
 * are master of: neighbour solicitations for it arrive there. */
bool sy_vrrp_master6_solicited(const struct sy_vrrp *v, const uint8_t group[16]);

#endif
