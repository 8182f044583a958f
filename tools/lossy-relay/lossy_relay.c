// SPDX-License-Identifier: BSD-3-Clause
// sy-lossy-relay: a transparent two-port Ethernet bridge that drops, duplicates, reorders
// and delays frames on purpose. The test kernel has no netem, so this is how TCP recovery
// through routerd is tested (docs/architecture.md section 8). Plain C on AF_PACKET sockets,
// no DPDK: it must run anywhere the lab runs.
//
// Determinism: every impaired frame draws exactly three numbers (drop, dup, reorder) from
// its direction's own PRNG, whatever the outcome. So frame n of a direction meets the same
// fate in every run with the same seed, independently of the other direction's traffic and
// of the other probabilities (raising --dup does not change which frames are dropped).
//
// Counters, per direction (printed as one JSON line on stderr):
//   received     frames read from the input port (outgoing copies excluded)
//   forwarded    frames passed on, each original once, counted when decided (so including
//                those still held) and whether or not the kernel then took it
//   dropped      frames thrown away on purpose
//   duplicated   extra copies sent (a duplicated frame goes out twice)
//   reordered    frames held back until the next frame (or --reorder-delay-ms) went out
//   delayed      frames held for --delay-ms
//   held         forwarded frames still in the hold queue at the time of the report
//   hold_full    frames that should have been held but went out at once (queue full)
//   exempt       frames not impaired (non-TCP with --only-tcp, or the other --direction)
//   oversize     frames longer than the input port's MTU + Ethernet header (offloads on?)
//   csum_partial frames the kernel marked as carrying a partial checksum (offloads on?)
//   truncated    frames larger than the receive buffer (forwarded cut short: a bug report)
//   sent         frames the kernel accepted for transmission (originals and copies)
//   send_errors  sends the kernel refused
// Invariants: received == forwarded + dropped at any time, and at exit (the queue is flushed
// then, held == 0) sent + send_errors == forwarded + duplicated.

// ppoll() is a GNU extension; the project defines this too, the guard keeps a lone build working.
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif

#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>
#include <math.h>
#include <net/if.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define RELAY_NAME "sy-lossy-relay"
// Jumbo frames (9216) plus room for a VLAN tag put back from the auxdata. Anything larger
// is a GSO super-frame from a port with offloads on: read it whole (up to 64 KiB) so it can
// be counted and still forwarded (the kernel will refuse it if it exceeds the MTU).
#define RELAY_JUMBO 9216
#define RELAY_BUF_SIZE (65536 + 4)
// At most this many frames wait in the hold queue (both directions together); beyond it a
// frame goes out at once and is counted in hold_full, so memory stays bounded.
#define RELAY_MAX_HELD 4096
// Frames read from one port before looking at the other, so a flood on one side cannot
// starve the other direction.
#define RELAY_RX_BATCH 64
#define NSEC_PER_SEC 1000000000LL
#define NSEC_PER_MSEC 1000000LL

#ifndef PACKET_IGNORE_OUTGOING
#define PACKET_IGNORE_OUTGOING 23
#endif

enum relay_dir { DIR_A2B = 0, DIR_B2A = 1, DIR_COUNT = 2 };

static const char *const dir_names[DIR_COUNT] = { "a2b", "b2a" };

struct relay_counters {
	uint64_t received;
	uint64_t forwarded;
	uint64_t dropped;
	uint64_t duplicated;
	uint64_t reordered;
	uint64_t delayed;
	uint64_t held;
	uint64_t hold_full;
	uint64_t exempt;
	uint64_t oversize;
	uint64_t csum_partial;
	uint64_t truncated;
	uint64_t sent;
	uint64_t send_errors;
};

struct relay_port {
	const char *name;
	int ifindex;
	int mtu;
	int fd;
};

// One frame waiting in the hold queue. The queue is a doubly linked list sorted by due
// time (ties keep arrival order), so the head is always the next frame to send.
struct held_frame {
	struct held_frame *prev;
	struct held_frame *next;
	int64_t due_ns;
	uint64_t seq;      // arrival number within its direction
	enum relay_dir dir;
	bool reorder;      // also released as soon as a later frame of its direction goes out
	bool dup;          // send twice when released
	size_t len;
	unsigned char data[];
};

struct relay_opts {
	const char *if_a;
	const char *if_b;
	uint64_t seed;
	double drop_pct;
	double dup_pct;
	double reorder_pct;
	int64_t reorder_delay_ns;
	int64_t delay_ns;
	bool only_tcp;
	int64_t stats_interval_ns; // 0: no periodic stats
	int64_t duration_ns;       // 0: run until a signal
	bool impair[DIR_COUNT];
};

struct relay {
	struct relay_opts opt;
	struct relay_port port[2];           // [0] = A, [1] = B
	struct relay_counters cnt[DIR_COUNT];
	uint64_t rng[DIR_COUNT];
	uint64_t seq[DIR_COUNT];
	unsigned held_reorder[DIR_COUNT];    // reorder-flagged frames in the queue
	struct held_frame *head;
	struct held_frame *tail;
	unsigned held_total;
	int64_t start_ns;
	unsigned char buf[RELAY_BUF_SIZE];
};

static volatile sig_atomic_t got_stop;
static volatile sig_atomic_t got_usr1;

static void
on_signal(int sig)
{
	if (sig == SIGUSR1)
		got_usr1 = 1;
	else
		got_stop = sig;
}

static int64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

// splitmix64: turns the user's seed (often a small number like 1) into well-mixed,
// different starting states for the two direction streams.
static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

// xorshift64*: small, fast, and ours, so results do not depend on the libc's rand().
static uint64_t
xorshift64s(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	*s = x;
	return x * 0x2545f4914f6cdd1dULL;
}

// True with probability pct percent. Always consumes one draw (see the header comment).
static bool
chance(uint64_t *s, double pct)
{
	// 53 random bits give a uniform double in [0, 1).
	double u = (double)(xorshift64s(s) >> 11) * (1.0 / 9007199254740992.0);

	return u * 100.0 < pct;
}

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: " RELAY_NAME " -a IFACE_A -b IFACE_B [options]\n"
		"Bridges every Ethernet frame between IFACE_A and IFACE_B, impairing them on purpose.\n"
		"  -a, --iface-a IFACE         first port\n"
		"  -b, --iface-b IFACE         second port\n"
		"      --seed N                PRNG seed (default 1: runs are reproducible)\n"
		"      --drop P                drop P percent of frames (float, 0-100)\n"
		"      --dup P                 send P percent of frames twice\n"
		"      --reorder P             hold P percent back until the next frame went out\n"
		"      --reorder-delay-ms D    ...or until D ms passed, whichever first (default 5)\n"
		"      --delay-ms D            delay every forwarded frame by D ms (default 0)\n"
		"      --only-tcp              impair only TCP (IPv4/IPv6); pass others (ARP...) untouched\n"
		"      --direction DIR         impair both (default), a2b or b2a; the other is bridged as is\n"
		"      --stats-interval S      print stats every S seconds (also on SIGUSR1 and at exit)\n"
		"      --duration S            exit after S seconds (default: run until SIGINT/SIGTERM)\n"
		"  -h, --help                  this text\n"
		"Stats are one JSON line on stderr. Turn offloads off on both ports first:\n"
		"  ethtool -K DEV rx off tx off tso off gso off gro off\n");
}

static int
parse_pct(const char *flag, const char *s, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !isfinite(v) || v < 0.0 || v > 100.0) {
		fprintf(stderr, RELAY_NAME ": %s: '%s' is not a percentage between 0 and 100\n", flag, s);
		return -1;
	}
	*out = v;
	return 0;
}

// A non-negative duration in UNIT_NS units (ms or s, fractions allowed), capped at a day
// so the nanosecond arithmetic cannot overflow.
static int
parse_duration(const char *flag, const char *s, int64_t unit_ns, int64_t *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(s, &end);
	if (errno || end == s || *end != '\0' || !isfinite(v) || v < 0.0 ||
	    v * (double)unit_ns > 86400.0 * NSEC_PER_SEC) {
		fprintf(stderr, RELAY_NAME ": %s: '%s' is not a duration between 0 and one day\n",
			flag, s);
		return -1;
	}
	*out = (int64_t)(v * (double)unit_ns);
	return 0;
}

static int
parse_opts(int argc, char **argv, struct relay_opts *o)
{
	enum {
		OPT_SEED = 256, OPT_DROP, OPT_DUP, OPT_REORDER, OPT_REORDER_DELAY, OPT_DELAY,
		OPT_ONLY_TCP, OPT_STATS, OPT_DURATION, OPT_DIRECTION,
	};
	static const struct option longopts[] = {
		{ "iface-a", required_argument, NULL, 'a' },
		{ "iface-b", required_argument, NULL, 'b' },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "drop", required_argument, NULL, OPT_DROP },
		{ "dup", required_argument, NULL, OPT_DUP },
		{ "reorder", required_argument, NULL, OPT_REORDER },
		{ "reorder-delay-ms", required_argument, NULL, OPT_REORDER_DELAY },
		{ "delay-ms", required_argument, NULL, OPT_DELAY },
		{ "only-tcp", no_argument, NULL, OPT_ONLY_TCP },
		{ "stats-interval", required_argument, NULL, OPT_STATS },
		{ "duration", required_argument, NULL, OPT_DURATION },
		{ "direction", required_argument, NULL, OPT_DIRECTION },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	memset(o, 0, sizeof(*o));
	o->seed = 1;
	o->reorder_delay_ns = 5 * NSEC_PER_MSEC;
	o->impair[DIR_A2B] = o->impair[DIR_B2A] = true;

	while ((c = getopt_long(argc, argv, "a:b:h", longopts, NULL)) != -1) {
		char *end;

		switch (c) {
		case 'a':
			o->if_a = optarg;
			break;
		case 'b':
			o->if_b = optarg;
			break;
		case OPT_SEED:
			errno = 0;
			o->seed = strtoull(optarg, &end, 0);
			if (errno || end == optarg || *end != '\0' || optarg[0] == '-') {
				fprintf(stderr, RELAY_NAME ": --seed: '%s' is not an unsigned 64-bit number\n",
					optarg);
				return -1;
			}
			break;
		case OPT_DROP:
			if (parse_pct("--drop", optarg, &o->drop_pct) < 0)
				return -1;
			break;
		case OPT_DUP:
			if (parse_pct("--dup", optarg, &o->dup_pct) < 0)
				return -1;
			break;
		case OPT_REORDER:
			if (parse_pct("--reorder", optarg, &o->reorder_pct) < 0)
				return -1;
			break;
		case OPT_REORDER_DELAY:
			if (parse_duration("--reorder-delay-ms", optarg, NSEC_PER_MSEC,
					   &o->reorder_delay_ns) < 0)
				return -1;
			break;
		case OPT_DELAY:
			if (parse_duration("--delay-ms", optarg, NSEC_PER_MSEC, &o->delay_ns) < 0)
				return -1;
			break;
		case OPT_ONLY_TCP:
			o->only_tcp = true;
			break;
		case OPT_STATS:
			if (parse_duration("--stats-interval", optarg, NSEC_PER_SEC,
					   &o->stats_interval_ns) < 0)
				return -1;
			if (o->stats_interval_ns == 0) {
				fprintf(stderr, RELAY_NAME ": --stats-interval: must be more than 0 seconds\n");
				return -1;
			}
			break;
		case OPT_DURATION:
			if (parse_duration("--duration", optarg, NSEC_PER_SEC, &o->duration_ns) < 0)
				return -1;
			if (o->duration_ns == 0) {
				fprintf(stderr, RELAY_NAME ": --duration: must be more than 0 seconds\n");
				return -1;
			}
			break;
		case OPT_DIRECTION:
			if (strcmp(optarg, "both") == 0) {
				o->impair[DIR_A2B] = o->impair[DIR_B2A] = true;
			} else if (strcmp(optarg, "a2b") == 0) {
				o->impair[DIR_A2B] = true;
				o->impair[DIR_B2A] = false;
			} else if (strcmp(optarg, "b2a") == 0) {
				o->impair[DIR_A2B] = false;
				o->impair[DIR_B2A] = true;
			} else {
				fprintf(stderr, RELAY_NAME ": --direction: '%s' is not both, a2b or b2a\n",
					optarg);
				return -1;
			}
			break;
		case 'h':
			usage(stdout);
			exit(0);
		default:
			usage(stderr);
			return -1;
		}
	}
	if (optind < argc) {
		fprintf(stderr, RELAY_NAME ": unexpected argument '%s' (see --help)\n", argv[optind]);
		return -1;
	}
	if (!o->if_a || !o->if_b) {
		fprintf(stderr, RELAY_NAME ": %s is required (see --help)\n",
			!o->if_a ? "-a IFACE_A" : "-b IFACE_B");
		return -1;
	}
	if (strcmp(o->if_a, o->if_b) == 0) {
		fprintf(stderr, RELAY_NAME ": -a and -b: both name '%s'; a bridge needs two ports\n",
			o->if_a);
		return -1;
	}
	return 0;
}

// Open a packet socket that sees every frame of one interface, in promiscuous mode.
static int
port_open(struct relay_port *p, const char *flag)
{
	struct sockaddr_ll sll;
	struct packet_mreq mr;
	struct ifreq ifr;
	int one = 1;
	int bufsz = 4 << 20;

	p->ifindex = (int)if_nametoindex(p->name);
	if (p->ifindex == 0) {
		fprintf(stderr, RELAY_NAME ": %s %s: no such interface (%s)\n", flag, p->name,
			strerror(errno));
		return -1;
	}
	// Protocol 0 at creation and ETH_P_ALL only at bind: the socket never sees frames of
	// other interfaces in between.
	p->fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);
	if (p->fd < 0) {
		fprintf(stderr, RELAY_NAME ": %s %s: packet socket: %s%s\n", flag, p->name,
			strerror(errno), errno == EPERM ? " (needs root or CAP_NET_RAW)" : "");
		return -1;
	}
	memset(&ifr, 0, sizeof(ifr));
	snprintf(ifr.ifr_name, sizeof(ifr.ifr_name), "%s", p->name);
	if (ioctl(p->fd, SIOCGIFMTU, &ifr) < 0) {
		fprintf(stderr, RELAY_NAME ": %s %s: reading the MTU: %s\n", flag, p->name,
			strerror(errno));
		return -1;
	}
	p->mtu = ifr.ifr_mtu;
	if (ioctl(p->fd, SIOCGIFFLAGS, &ifr) == 0 && !(ifr.ifr_flags & IFF_UP))
		fprintf(stderr, RELAY_NAME ": warning: %s %s is down; nothing will pass until it is up\n",
			flag, p->name);

	// Bursts at line rate must not overflow the default (small) socket buffers: a frame the
	// kernel drops there would be loss we did not choose. FORCE needs CAP_NET_ADMIN; the
	// plain call is the fallback.
	if (setsockopt(p->fd, SOL_SOCKET, SO_RCVBUFFORCE, &bufsz, sizeof(bufsz)) < 0)
		(void)setsockopt(p->fd, SOL_SOCKET, SO_RCVBUF, &bufsz, sizeof(bufsz));
	if (setsockopt(p->fd, SOL_SOCKET, SO_SNDBUFFORCE, &bufsz, sizeof(bufsz)) < 0)
		(void)setsockopt(p->fd, SOL_SOCKET, SO_SNDBUF, &bufsz, sizeof(bufsz));
	// The auxdata tells us about a VLAN tag the kernel stripped and about partial checksums.
	if (setsockopt(p->fd, SOL_PACKET, PACKET_AUXDATA, &one, sizeof(one)) < 0) {
		fprintf(stderr, RELAY_NAME ": %s %s: PACKET_AUXDATA: %s\n", flag, p->name,
			strerror(errno));
		return -1;
	}
	// Older kernels lack it; the sll_pkttype check below is the one that counts.
	(void)setsockopt(p->fd, SOL_PACKET, PACKET_IGNORE_OUTGOING, &one, sizeof(one));

	memset(&sll, 0, sizeof(sll));
	sll.sll_family = AF_PACKET;
	sll.sll_protocol = htons(ETH_P_ALL);
	sll.sll_ifindex = p->ifindex;
	if (bind(p->fd, (struct sockaddr *)&sll, sizeof(sll)) < 0) {
		fprintf(stderr, RELAY_NAME ": %s %s: bind: %s\n", flag, p->name, strerror(errno));
		return -1;
	}
	// A bridge must see frames addressed to the peer's MAC, not only to this port's. The
	// membership belongs to the socket, so the kernel undoes it however we exit.
	memset(&mr, 0, sizeof(mr));
	mr.mr_ifindex = p->ifindex;
	mr.mr_type = PACKET_MR_PROMISC;
	if (setsockopt(p->fd, SOL_PACKET, PACKET_ADD_MEMBERSHIP, &mr, sizeof(mr)) < 0) {
		fprintf(stderr, RELAY_NAME ": %s %s: promiscuous mode: %s\n", flag, p->name,
			strerror(errno));
		return -1;
	}
	return 0;
}

// Is this frame TCP over IPv4 or IPv6 (behind up to two VLAN tags)? IPv6 extension headers
// are followed far enough for the common ones; anything odd counts as not TCP.
static bool
frame_is_tcp(const unsigned char *f, size_t len)
{
	size_t off = 12;
	uint16_t type;
	int tags = 0;

	if (len < 14)
		return false;
	type = (uint16_t)(f[off] << 8 | f[off + 1]);
	while ((type == ETH_P_8021Q || type == ETH_P_8021AD) && tags < 2) {
		off += 4;
		if (len < off + 2)
			return false;
		type = (uint16_t)(f[off] << 8 | f[off + 1]);
		tags++;
	}
	off += 2;
	if (type == ETH_P_IP) {
		if (len < off + 20)
			return false;
		return f[off + 9] == IPPROTO_TCP;
	}
	if (type == ETH_P_IPV6) {
		uint8_t nh;
		int hops;

		if (len < off + 40)
			return false;
		nh = f[off + 6];
		off += 40;
		for (hops = 0; hops < 4; hops++) {
			if (nh == IPPROTO_TCP)
				return true;
			if (nh != IPPROTO_HOPOPTS && nh != IPPROTO_ROUTING && nh != IPPROTO_DSTOPTS)
				return false;
			if (len < off + 8)
				return false;
			nh = f[off];
			off += ((size_t)f[off + 1] + 1) * 8;
		}
		return nh == IPPROTO_TCP;
	}
	return false;
}

static void
port_send(struct relay *r, enum relay_dir d, const unsigned char *f, size_t len)
{
	// Out of the other port: A's frames leave through B and B's through A.
	const struct relay_port *out = &r->port[d == DIR_A2B ? 1 : 0];

	for (;;) {
		if (send(out->fd, f, len, 0) >= 0) {
			r->cnt[d].sent++;
			return;
		}
		if (errno != EINTR)
			break;
	}
	// Rate-limit the message: a broken port would otherwise flood stderr once per frame.
	if (r->cnt[d].send_errors < 5)
		fprintf(stderr, RELAY_NAME ": warning: sending %zu bytes on %s: %s\n", len, out->name,
			strerror(errno));
	r->cnt[d].send_errors++;
}

static void
emit(struct relay *r, enum relay_dir d, const unsigned char *f, size_t len, bool dup)
{
	port_send(r, d, f, len);
	if (dup)
		port_send(r, d, f, len);
}

static void
held_unlink(struct relay *r, struct held_frame *h)
{
	if (h->prev)
		h->prev->next = h->next;
	else
		r->head = h->next;
	if (h->next)
		h->next->prev = h->prev;
	else
		r->tail = h->prev;
	r->held_total--;
	r->cnt[h->dir].held--;
	if (h->reorder)
		r->held_reorder[h->dir]--;
}

static void
held_release(struct relay *r, struct held_frame *h)
{
	held_unlink(r, h);
	emit(r, h->dir, h->data, h->len, h->dup);
	free(h);
}

// A frame of direction D that arrived as number SEQ just went out: the reordered frames of
// D that arrived before it have now been overtaken, which was the point; send them.
static void
release_overtaken(struct relay *r, enum relay_dir d, uint64_t seq)
{
	struct held_frame *h, *next;

	if (r->held_reorder[d] == 0)
		return;
	for (h = r->head; h && r->held_reorder[d] > 0; h = next) {
		next = h->next;
		if (h->dir == d && h->reorder && h->seq < seq)
			held_release(r, h);
	}
}

// Queue a frame. Returns false when the queue is full (the caller sends it at once).
static bool
hold(struct relay *r, enum relay_dir d, const unsigned char *f, size_t len, int64_t due,
     uint64_t seq, bool reorder, bool dup)
{
	struct held_frame *h, *at;

	if (r->held_total >= RELAY_MAX_HELD)
		return false;
	h = malloc(sizeof(*h) + len);
	if (!h)
		return false;
	h->due_ns = due;
	h->seq = seq;
	h->dir = d;
	h->reorder = reorder;
	h->dup = dup;
	h->len = len;
	memcpy(h->data, f, len);
	// Search from the tail: with a constant delay nearly every frame goes last.
	for (at = r->tail; at && at->due_ns > due; at = at->prev)
		;
	h->prev = at;
	h->next = at ? at->next : r->head;
	if (h->next)
		h->next->prev = h;
	else
		r->tail = h;
	if (at)
		at->next = h;
	else
		r->head = h;
	r->held_total++;
	r->cnt[d].held++;
	if (reorder)
		r->held_reorder[d]++;
	return true;
}

// One frame read from the input port of direction D: decide its fate.
static void
handle_frame(struct relay *r, enum relay_dir d, const unsigned char *f, size_t len)
{
	struct relay_counters *c = &r->cnt[d];
	uint64_t seq = ++r->seq[d];
	bool drop, dup, reorder;
	int64_t now;

	c->received++;
	if (!r->opt.impair[d] || (r->opt.only_tcp && !frame_is_tcp(f, len))) {
		// Untouched, and not counted as overtaking a reordered frame either: with
		// --only-tcp an ARP frame going by is no reordering of the TCP stream.
		c->exempt++;
		c->forwarded++;
		port_send(r, d, f, len);
		return;
	}
	// Always three draws, in this order (see the header comment).
	drop = chance(&r->rng[d], r->opt.drop_pct);
	dup = chance(&r->rng[d], r->opt.dup_pct);
	reorder = chance(&r->rng[d], r->opt.reorder_pct);
	if (drop) {
		c->dropped++;
		return;
	}
	c->forwarded++;
	if (dup)
		c->duplicated++;
	if (reorder || r->opt.delay_ns > 0) {
		now = now_ns();
		if (hold(r, d, f, len, now + r->opt.delay_ns + (reorder ? r->opt.reorder_delay_ns : 0),
			 seq, reorder, dup)) {
			if (reorder)
				c->reordered++;
			if (r->opt.delay_ns > 0)
				c->delayed++;
			return;
		}
		c->hold_full++;
	}
	emit(r, d, f, len, dup);
	release_overtaken(r, d, seq);
}

// Send every held frame that is due. A delayed (not reordered) frame going out also
// releases the reordered frames it overtook.
static void
release_due(struct relay *r, int64_t now)
{
	while (r->head && r->head->due_ns <= now) {
		struct held_frame *h = r->head;
		enum relay_dir d = h->dir;
		uint64_t seq = h->seq;
		bool was_reorder = h->reorder;

		held_release(r, h);
		if (!was_reorder)
			release_overtaken(r, d, seq);
	}
}

// Read what is waiting on port IN (at most a batch) and pass it on.
static void
port_drain(struct relay *r, int in)
{
	enum relay_dir d = in == 0 ? DIR_A2B : DIR_B2A;
	const struct relay_port *p = &r->port[in];
	int i;

	for (i = 0; i < RELAY_RX_BATCH; i++) {
		union {
			struct cmsghdr align;
			char buf[CMSG_SPACE(sizeof(struct tpacket_auxdata))];
		} ctl;
		struct sockaddr_ll from;
		struct iovec iov;
		struct msghdr msg;
		struct cmsghdr *cm;
		struct tpacket_auxdata *aux = NULL;
		// Leave 4 bytes in front for a VLAN tag to put back.
		unsigned char *f = r->buf + 4;
		size_t cap = sizeof(r->buf) - 4;
		size_t len, limit;
		ssize_t n;

		iov.iov_base = f;
		iov.iov_len = cap;
		memset(&msg, 0, sizeof(msg));
		msg.msg_name = &from;
		msg.msg_namelen = sizeof(from);
		msg.msg_iov = &iov;
		msg.msg_iovlen = 1;
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		n = recvmsg(p->fd, &msg, MSG_DONTWAIT | MSG_TRUNC);
		if (n < 0) {
			if (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
				fprintf(stderr, RELAY_NAME ": warning: reading from %s: %s\n", p->name,
					strerror(errno));
			return;
		}
		// Our own transmissions (and the kernel's) show up as outgoing: never send them back.
		if (from.sll_pkttype == PACKET_OUTGOING)
			continue;
		len = (size_t)n;
		if (len > cap) {
			r->cnt[d].truncated++;
			len = cap;
		}
		for (cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
			if (cm->cmsg_level == SOL_PACKET && cm->cmsg_type == PACKET_AUXDATA &&
			    cm->cmsg_len >= CMSG_LEN(sizeof(*aux)))
				aux = (struct tpacket_auxdata *)CMSG_DATA(cm);
		}
		limit = (size_t)p->mtu + ETH_HLEN;
		if (aux && (aux->tp_status & TP_STATUS_CSUMNOTREADY)) {
			// Forwarded as is, the peer drops such a frame for its bad checksum: TCP
			// then fails in a way that looks like the router's fault. Say why, once.
			if (r->cnt[d].csum_partial++ == 0)
				fprintf(stderr, RELAY_NAME ": warning: %s hands over frames with partial"
					" checksums; turn offloads off on it and its peer (ethtool -K DEV rx"
					" off tx off tso off gso off gro off)\n", p->name);
		}
		// The kernel strips a VLAN tag into the auxdata on receive; a transparent bridge
		// must put it back or tagged traffic would leave untagged.
		// The 4 bytes of headroom in front of f make room for it.
		if (aux && (aux->tp_status & TP_STATUS_VLAN_VALID) && len >= 2 * ETH_ALEN) {
			uint16_t tpid = (aux->tp_status & TP_STATUS_VLAN_TPID_VALID) ? aux->tp_vlan_tpid
										     : ETH_P_8021Q;

			memmove(f - 4, f, 2 * ETH_ALEN);
			f -= 4;
			f[12] = (unsigned char)(tpid >> 8);
			f[13] = (unsigned char)tpid;
			f[14] = (unsigned char)(aux->tp_vlan_tci >> 8);
			f[15] = (unsigned char)aux->tp_vlan_tci;
			len += 4;
		}
		if (len >= 14 && (f[12] << 8 | f[13]) == ETH_P_8021Q)
			limit += 4;
		if (len > limit && r->cnt[d].oversize++ == 0)
			fprintf(stderr, RELAY_NAME ": warning: %zu-byte frame on %s (MTU %d): a"
				" super-frame from an offload; turn offloads off\n", len, p->name, p->mtu);
		handle_frame(r, d, f, len);
	}
}

static void
print_stats(struct relay *r, const char *reason)
{
	int d;

	fprintf(stderr,
		"{\"relay\":\"" RELAY_NAME "\",\"reason\":\"%s\",\"uptime_s\":%.3f,"
		"\"seed\":%" PRIu64 ",\"a\":\"%s\",\"b\":\"%s\","
		"\"drop_pct\":%g,\"dup_pct\":%g,\"reorder_pct\":%g,\"only_tcp\":%s",
		reason, (double)(now_ns() - r->start_ns) / NSEC_PER_SEC, r->opt.seed,
		r->port[0].name, r->port[1].name, r->opt.drop_pct, r->opt.dup_pct,
		r->opt.reorder_pct, r->opt.only_tcp ? "true" : "false");
	for (d = 0; d < DIR_COUNT; d++) {
		const struct relay_counters *c = &r->cnt[d];

		fprintf(stderr,
			",\"%s\":{\"impaired\":%s,\"received\":%" PRIu64 ",\"forwarded\":%" PRIu64
			",\"dropped\":%" PRIu64 ",\"duplicated\":%" PRIu64 ",\"reordered\":%" PRIu64
			",\"delayed\":%" PRIu64 ",\"held\":%" PRIu64 ",\"hold_full\":%" PRIu64
			",\"exempt\":%" PRIu64 ",\"oversize\":%" PRIu64 ",\"csum_partial\":%" PRIu64
			",\"truncated\":%" PRIu64 ",\"sent\":%" PRIu64 ",\"send_errors\":%" PRIu64 "}",
			dir_names[d], r->opt.impair[d] ? "true" : "false", c->received, c->forwarded,
			c->dropped, c->duplicated, c->reordered, c->delayed, c->held, c->hold_full,
			c->exempt, c->oversize, c->csum_partial, c->truncated, c->sent, c->send_errors);
	}
	fprintf(stderr, "}\n");
	fflush(stderr);
}

// ppoll timeout until DEADLINE (or forever when DEADLINE < 0).
static void
set_timeout(struct timespec *ts, int64_t now, int64_t deadline)
{
	int64_t left = deadline - now;

	if (left < 0)
		left = 0;
	ts->tv_sec = (time_t)(left / NSEC_PER_SEC);
	ts->tv_nsec = (long)(left % NSEC_PER_SEC);
}

static int
run(struct relay *r)
{
	struct pollfd pfd[2];
	sigset_t blocked, waitmask;
	int64_t now = now_ns();
	int64_t next_stats = r->opt.stats_interval_ns ? now + r->opt.stats_interval_ns : -1;
	int64_t end = r->opt.duration_ns ? now + r->opt.duration_ns : -1;
	const char *reason = "exit";

	// The signals stay blocked except inside ppoll, so a signal can never slip in between
	// checking the flags and going to sleep.
	sigemptyset(&blocked);
	sigaddset(&blocked, SIGINT);
	sigaddset(&blocked, SIGTERM);
	sigaddset(&blocked, SIGUSR1);
	sigprocmask(SIG_BLOCK, &blocked, &waitmask);
	sigdelset(&waitmask, SIGINT);
	sigdelset(&waitmask, SIGTERM);
	sigdelset(&waitmask, SIGUSR1);

	pfd[0].fd = r->port[0].fd;
	pfd[1].fd = r->port[1].fd;
	pfd[0].events = pfd[1].events = POLLIN;

	fprintf(stderr, RELAY_NAME ": bridging %s (mtu %d) <-> %s (mtu %d), seed %" PRIu64
		", drop %g%%, dup %g%%, reorder %g%%, delay %.3f ms%s\n",
		r->port[0].name, r->port[0].mtu, r->port[1].name, r->port[1].mtu, r->opt.seed,
		r->opt.drop_pct, r->opt.dup_pct, r->opt.reorder_pct,
		(double)r->opt.delay_ns / NSEC_PER_MSEC, r->opt.only_tcp ? ", only TCP" : "");
	fflush(stderr);

	for (;;) {
		int64_t wake = -1;
		struct timespec ts;
		int n, i;

		if (got_stop)
			break;
		if (got_usr1) {
			got_usr1 = 0;
			print_stats(r, "signal");
		}
		now = now_ns();
		if (end >= 0 && now >= end) {
			reason = "duration";
			break;
		}
		if (next_stats >= 0 && now >= next_stats) {
			print_stats(r, "interval");
			// Skip missed ticks rather than print a burst after a stall.
			while (next_stats <= now)
				next_stats += r->opt.stats_interval_ns;
		}
		release_due(r, now);

		if (r->head)
			wake = r->head->due_ns;
		if (next_stats >= 0 && (wake < 0 || next_stats < wake))
			wake = next_stats;
		if (end >= 0 && (wake < 0 || end < wake))
			wake = end;
		if (wake >= 0)
			set_timeout(&ts, now, wake);
		n = ppoll(pfd, 2, wake >= 0 ? &ts : NULL, &waitmask);
		if (n < 0) {
			if (errno == EINTR)
				continue;
			fprintf(stderr, RELAY_NAME ": poll: %s\n", strerror(errno));
			return 1;
		}
		for (i = 0; i < 2; i++) {
			if (pfd[i].revents & (POLLERR | POLLNVAL)) {
				fprintf(stderr, RELAY_NAME ": port %s failed (was it deleted?)\n",
					r->port[i].name);
				reason = "port-error";
				goto out;
			}
			if (pfd[i].revents & POLLIN)
				port_drain(r, i);
		}
	}
	if (got_stop)
		reason = got_stop == SIGINT ? "sigint" : "sigterm";
out:
	// Send what is still held so every frame that was not dropped has left, and the
	// counters add up (received == forwarded + dropped).
	while (r->head)
		held_release(r, r->head);
	print_stats(r, reason);
	return strcmp(reason, "port-error") == 0 ? 1 : 0;
}

int
main(int argc, char **argv)
{
	static struct relay relay; // static: the 64 KiB receive buffer stays off the stack
	struct relay *r = &relay;
	struct sigaction sa;
	uint64_t sm;
	int d, rc;

	if (parse_opts(argc, argv, &r->opt) < 0)
		return 2;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);

	// Each direction its own stream, both derived from the one seed.
	sm = r->opt.seed;
	for (d = 0; d < DIR_COUNT; d++) {
		r->rng[d] = splitmix64(&sm);
		if (r->rng[d] == 0) // xorshift's one fixed point
			r->rng[d] = 0x9e3779b97f4a7c15ULL;
	}

	r->port[0].name = r->opt.if_a;
	r->port[1].name = r->opt.if_b;
	r->port[0].fd = r->port[1].fd = -1;
	if (port_open(&r->port[0], "-a") < 0 || port_open(&r->port[1], "-b") < 0) {
		rc = 1;
		goto done;
	}
	if (r->port[0].mtu > RELAY_JUMBO || r->port[1].mtu > RELAY_JUMBO)
		fprintf(stderr, RELAY_NAME ": warning: an MTU above %d; such frames are forwarded"
			" but were never tested\n", RELAY_JUMBO);
	r->start_ns = now_ns();
	rc = run(r);
done:
	// Closing the sockets drops the promiscuous memberships: the ports are as we found them.
	if (r->port[0].fd >= 0)
		close(r->port[0].fd);
	if (r->port[1].fd >= 0)
		close(r->port[1].fd);
	return rc;
}
