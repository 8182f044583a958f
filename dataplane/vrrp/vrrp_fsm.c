/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One virtual router's state machine (RFC 5798 6.4), over a clock in
 * microseconds the caller gives: pure, so the unit test drives it with a
 * virtual clock. The caller sends what the returned SY_VRRP_DO_* ask for.
 */
#include <string.h>

#include "vrrp/vrrp.h"

#define CS_US 10000u

const char *
sy_vrrp_state_name(enum sy_vrrp_state s)
{
	switch (s) {
	case SY_VRRP_BACKUP: return "backup";
	case SY_VRRP_MASTER: return "master";
	default: return "init";
	}
}

uint8_t
sy_vrrp_priority(unsigned i, unsigned node, unsigned nodes)
{
	/* How far this node is after the VIP's preferred one, in the ring. */
	unsigned rank = nodes ? (node + nodes - i % nodes) % nodes : 0;

	return (uint8_t)(SY_VRRP_PRIO_TOP - SY_VRRP_PRIO_STEP * rank);
}

void
sy_vrrp_vr_init(struct sy_vrrp_vr *vr, const struct sy_addr *vip, const struct sy_addr *self,
		uint8_t vrid, uint8_t priority, bool preempt, uint16_t interval_cs)
{
	memset(vr, 0, sizeof(*vr));
	vr->vip = *vip;
	vr->self = *self;
	vr->vrid = vrid;
	vr->priority = priority;
	vr->preempt = preempt;
	vr->interval_cs = interval_cs ? interval_cs : 1;
	vr->master_interval_cs = vr->interval_cs;
	vr->state = SY_VRRP_INIT;
}

uint64_t
sy_vrrp_master_down_us(const struct sy_vrrp_vr *vr)
{
	uint64_t iv = (uint64_t)vr->master_interval_cs * CS_US;

	return 3 * iv + (256 - vr->priority) * iv / 256;
}

/* Skew_Time: how long a backup waits after a priority 0 advert; lower
 * priorities wait longer, so the best standby speaks first. */
static uint64_t
skew_us(const struct sy_vrrp_vr *vr)
{
	return (256 - vr->priority) * (uint64_t)vr->master_interval_cs * CS_US / 256;
}

static unsigned
to_master(struct sy_vrrp_vr *vr, uint64_t now)
{
	vr->state = SY_VRRP_MASTER;
	vr->transitions++;
	vr->master = vr->self;
	vr->master_priority = vr->priority;
	vr->advert_at = now + (uint64_t)vr->interval_cs * CS_US;
	vr->garps_left = SY_VRRP_GARP_COUNT - 1;
	vr->garp_at = now + SY_VRRP_GARP_SPACING_US;
	return SY_VRRP_DO_ADVERT | SY_VRRP_DO_GARP | SY_VRRP_DO_CHANGED;
}

static void
learn_master(struct sy_vrrp_vr *vr, const struct sy_vrrp_advert *a, const struct sy_addr *src,
	     uint64_t now)
{
	vr->master = *src;
	vr->master_priority = a->priority;
	vr->master_interval_cs = a->interval_cs ? a->interval_cs : 1;
	vr->master_seen = now;
}

unsigned
sy_vrrp_start(struct sy_vrrp_vr *vr, uint64_t now)
{
	if (vr->state != SY_VRRP_INIT)
		return 0;
	if (vr->priority == 255)
		return to_master(vr, now);
	vr->state = SY_VRRP_BACKUP;
	vr->transitions++;
	memset(&vr->master, 0, sizeof(vr->master));
	vr->master_priority = 0;
	vr->master_interval_cs = vr->interval_cs;
	vr->down_at = now + sy_vrrp_master_down_us(vr);
	return SY_VRRP_DO_CHANGED;
}

/* RFC 5798 6.4.3: a master yields to a higher priority, or to an equal one
 * with the higher primary address, compared as numbers: an IPv4 one in host
 * order, an IPv6 one (link-local) byte by byte from the first, which is the
 * same for 16 bytes in network order. */
static bool
beats_us(const struct sy_vrrp_vr *vr, uint8_t prio, const struct sy_addr *src)
{
	if (prio != vr->priority)
		return prio > vr->priority;
	if (src->family == AF_INET6)
		return memcmp(src->v6, vr->self.v6, 16) > 0;
	return rte_be_to_cpu_32(src->v4) > rte_be_to_cpu_32(vr->self.v4);
}

unsigned
sy_vrrp_on_advert(struct sy_vrrp_vr *vr, const struct sy_vrrp_advert *a, const struct sy_addr *src,
		  uint64_t now)
{
	switch (vr->state) {
	case SY_VRRP_BACKUP:
		if (a->priority == 0) {
			/* The master resigns: the best standby takes over after
			 * its skew alone. */
			vr->master_seen = 0;
			vr->down_at = now + skew_us(vr);
			return 0;
		}
		if (!vr->preempt || a->priority >= vr->priority) {
			learn_master(vr, a, src, now);
			vr->down_at = now + sy_vrrp_master_down_us(vr);
		}
		/* Else a lower priority with preemption on: ignored, so our
		 * Master_Down_Timer fires and we take the VIP back. */
		return 0;
	case SY_VRRP_MASTER:
		if (a->priority == 0) {
			/* Another master resigned (a split brain healing):
			 * assert ourselves at once. */
			vr->advert_at = now + (uint64_t)vr->interval_cs * CS_US;
			return SY_VRRP_DO_ADVERT;
		}
		if (beats_us(vr, a->priority, src)) {
			vr->state = SY_VRRP_BACKUP;
			vr->transitions++;
			learn_master(vr, a, src, now);
			vr->down_at = now + sy_vrrp_master_down_us(vr);
			return SY_VRRP_DO_CHANGED;
		}
		/* A lower one that thinks it is master: both took over in
		 * the same few milliseconds (skews differ by ~4 ms at 100 ms
		 * adverts), and its gratuitous ARP may have reached the
		 * clients after ours. Advertise now, so it yields, and
		 * announce the VIP again (keepalived's
		 * vrrp_garp_lower_prio_repeat does the same). */
		vr->advert_at = now + (uint64_t)vr->interval_cs * CS_US;
		return SY_VRRP_DO_ADVERT | SY_VRRP_DO_GARP;
	default:
		return 0;
	}
}

unsigned
sy_vrrp_on_timer(struct sy_vrrp_vr *vr, uint64_t now)
{
	unsigned todo = 0;

	switch (vr->state) {
	case SY_VRRP_BACKUP:
		if (now >= vr->down_at)
			todo |= to_master(vr, now);
		break;
	case SY_VRRP_MASTER:
		if (now >= vr->advert_at) {
			todo |= SY_VRRP_DO_ADVERT;
			vr->advert_at = now + (uint64_t)vr->interval_cs * CS_US;
		}
		if (vr->garps_left > 0 && now >= vr->garp_at) {
			todo |= SY_VRRP_DO_GARP;
			vr->garps_left--;
			vr->garp_at = now + SY_VRRP_GARP_SPACING_US;
		}
		break;
	default:
		break;
	}
	return todo;
}

unsigned
sy_vrrp_stop(struct sy_vrrp_vr *vr)
{
	unsigned todo = 0;

	if (vr->state == SY_VRRP_MASTER)
		todo = SY_VRRP_DO_ADVERT0;
	if (vr->state != SY_VRRP_INIT) {
		vr->state = SY_VRRP_INIT;
		vr->transitions++;
		todo |= SY_VRRP_DO_CHANGED;
	}
	return todo;
}

bool
sy_vrrp_active(const struct sy_vrrp_vr *vr, uint64_t now)
{
	if (vr->state == SY_VRRP_MASTER)
		return true;
	return vr->state == SY_VRRP_BACKUP && vr->master_seen != 0 &&
	       now - vr->master_seen < sy_vrrp_master_down_us(vr);
}
