/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tcp_scenario: a packetdrill-style runner of our own. Each script drives one
 * worker (tests/lib/dp_env.h) through its real input with segments whose
 * every field it states, expects the segments the worker sends field by
 * field, on a virtual clock, and checks counters. Scripts live in
 * tests/tcp/scenarios/ (their README says the format); the runner prints TAP
 * and exits 1 if any script fails.
 *
 *   tcp_scenario FILE.pkt|DIR...     (a directory: its *.pkt files, sorted)
 *
 * Timing: a line's time (absolute seconds, or +seconds after the previous
 * line) is reached in steps of one timer-wheel tick, running the worker's
 * timers at each step, so a timer re-armed by another fires when it would
 * in a running router. Frames the worker sends wait in a queue in the order
 * sent, each with the time it was sent; an outbound line takes the oldest
 * one for its leg, which must have been sent at the line's time give or take
 * the tolerance, and an inbound line, a `quiet` line or the end of the
 * script with frames still waiting is an error ("unexpected segment"), as in
 * packetdrill. SCENARIO_TRACE=1 prints every frame sent, in the scripts'
 * notation.
 */
#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ether.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "dp_env.h"
#include "proxy/proxy.h"
#include "conn/conn.h"
#include "splice/splice.h"
#include "sy_counters.h"
#include "tcp/tcp_opts.h"
#include "tcp/tcp_syncookie.h"
#include "worker.h"

#define MAX_VARS 32
#define MAX_OPTS 8
#define MAX_QUEUE 1024
#define MAX_DATA 4096
#define MAX_FRAME 16384
/* How late an expected segment may come: a timer fires on the wheel's tick
 * (2 ms) at or after its time, and one re-armed from there drifts by as
 * much again (three backend SYNs: up to 6 ms). `tolerance MS` changes it
 * for the lines after it (a chain of backed-off RTOs drifts a tick each). */
#define TOLERANCE_MS 10
#define MAX_REPEAT 512

/* The legs a line names: who sends to whom. */
enum peer { PEER_CLIENT, PEER_BACKEND, PEER_DEAD, PEER__N };
static const char *const peer_ip[PEER__N] = { SY_TEST_CLIENT, SY_TEST_BACKEND, SY_TEST_DEAD };
static const char peer_letter[PEER__N] = { 'c', 'b', 'd' };

struct var {
	char name[24];
	uint32_t val;
};

/* A number as a script writes it: a literal, $var, $var+N, $var-N, or *. */
struct num {
	bool any;
	bool has_var;
	char var[24];
	int64_t add;
};

enum opt_kind { OPT_MSS, OPT_SACKOK, OPT_TS, OPT_NOP, OPT_WSCALE, OPT_SACK, OPT_EOL };

#define MAX_SACK 4

struct opt {
	enum opt_kind kind;
	struct num a, b;        /* mss/wscale value; TS val/ecr; SACK's first block */
	struct num more[MAX_SACK - 1][2]; /* SACK: the blocks after the first */
	unsigned n_blocks;      /* SACK: blocks in the option */
};

struct seg_line {
	bool inbound;           /* peer -> router */
	enum peer peer;
	uint8_t flags;
	struct num seq, end;
	uint32_t len;
	bool len_any;           /* (*): outbound, any payload length */
	bool has_ack, has_win, has_opts;
	struct num ack, win;
	struct opt opts[MAX_OPTS];
	unsigned n_opts;
	char data[MAX_DATA];    /* inbound: the payload; outbound: a prefix to match */
	unsigned data_len;
	bool has_data;
	bool pad;               /* "..."...: inbound, the rest of LEN is 'x' */
	unsigned repeat;        /* repeat N: N segments, each LEN further on */
	uint32_t ack_step;      /* repeat N ack+K: and each ack K further on */
	bool bad_cksum;         /* bad_cksum: inbound, the TCP checksum made wrong */
};

struct run {
	const char *file;
	unsigned line;
	struct sy_test_dp *d;
	uint64_t t0;            /* TSC at time 0 */
	double now;             /* script seconds */
	struct var vars[MAX_VARS];
	unsigned n_vars;
	uint16_t client_port, listen_port;
	bool v6;                /* client_family 6: the client leg is IPv6 */
	uint8_t client6[16], vip6[16];
	struct rte_mbuf *q[MAX_QUEUE];
	uint8_t q_port[MAX_QUEUE];
	double q_time[MAX_QUEUE];  /* script seconds when it was taken from the worker */
	unsigned nq;
	bool drop_checked[SY_DROP__COUNT]; /* drops the script expects */
	bool trace;             /* SCENARIO_TRACE: print what the worker sends */
	unsigned tolerance_ms;  /* how late (or early) an outbound segment may be */
	struct rte_mbuf **held; /* mbufs_spare: the pool's mbufs the script holds */
	unsigned n_held;
	char err[512];
};

static int
fail(struct run *r, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(r->err, sizeof(r->err), "%s:%u: ", r->file, r->line);

	va_start(ap, fmt);
	vsnprintf(r->err + n, sizeof(r->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -1;
}

static struct var *
var_find(struct run *r, const char *name)
{
	unsigned i;

	for (i = 0; i < r->n_vars; i++)
		if (strcmp(r->vars[i].name, name) == 0)
			return &r->vars[i];
	return NULL;
}

/* ---------------------------------------------------------- parsing -- */

static const char *
skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static int
parse_num(struct run *r, const char **pp, struct num *n)
{
	const char *p = skip_ws(*pp);
	char *end;

	memset(n, 0, sizeof(*n));
	if (*p == '*') {
		n->any = true;
		*pp = p + 1;
		return 0;
	}
	if (*p == '$') {
		size_t k = 0;

		p++;
		while ((isalnum((unsigned char)*p) || *p == '_') && k + 1 < sizeof(n->var))
			n->var[k++] = *p++;
		if (k == 0)
			return fail(r, "a variable name after $");
		n->has_var = true;
		if (*p == '+' || *p == '-') {
			bool neg = *p == '-';

			n->add = (int64_t)strtoull(p + 1, &end, 0);
			if (end == p + 1)
				return fail(r, "a number after $%s%c", n->var, *p);
			if (neg)
				n->add = -n->add;
			p = end;
		}
		*pp = p;
		return 0;
	}
	errno = 0;
	n->add = (int64_t)strtoull(p, &end, 0);
	if (end == p || errno != 0)
		return fail(r, "a number, $var or * expected at '%.20s'", p);
	*pp = end;
	return 0;
}

/* The value of n; false when it names a variable not bound yet. */
static bool
num_value(struct run *r, const struct num *n, uint32_t *v)
{
	const struct var *x;

	if (!n->has_var) {
		*v = (uint32_t)n->add;
		return true;
	}
	x = var_find(r, n->var);
	if (x == NULL)
		return false;
	*v = x->val + (uint32_t)n->add;
	return true;
}

/* Outbound: does `got` match n? An unbound $var is bound to got - add. */
static bool
num_match(struct run *r, const struct num *n, uint32_t got)
{
	uint32_t want;

	if (n->any)
		return true;
	if (!num_value(r, n, &want)) {
		struct var *x;

		if (r->n_vars == MAX_VARS)
			return false;
		x = &r->vars[r->n_vars++];
		snprintf(x->name, sizeof(x->name), "%s", n->var);
		x->val = got - (uint32_t)n->add;
		return true;
	}
	return want == got;
}

static void
num_str(struct run *r, const struct num *n, char *buf, size_t len)
{
	uint32_t v;

	if (n->any)
		snprintf(buf, len, "*");
	else if (num_value(r, n, &v))
		snprintf(buf, len, "%" PRIu32, v);
	else
		snprintf(buf, len, "$%s", n->var);
}

static int
parse_flags(struct run *r, const char **pp, uint8_t *flags)
{
	const char *p = skip_ws(*pp);

	*flags = 0;
	for (; *p != '\0' && *p != ' ' && *p != '\t'; p++) {
		switch (*p) {
		case 'S': *flags |= RTE_TCP_SYN_FLAG; break;
		case 'F': *flags |= RTE_TCP_FIN_FLAG; break;
		case 'R': *flags |= RTE_TCP_RST_FLAG; break;
		case 'P': *flags |= RTE_TCP_PSH_FLAG; break;
		case 'U': *flags |= RTE_TCP_URG_FLAG; break;
		case 'E': *flags |= RTE_TCP_ECE_FLAG; break;
		case 'W': *flags |= RTE_TCP_CWR_FLAG; break;
		case '.': *flags |= RTE_TCP_ACK_FLAG; break;
		default: return fail(r, "unknown TCP flag '%c'", *p);
		}
	}
	*pp = p;
	return 0;
}

static int
parse_opts(struct run *r, const char **pp, struct seg_line *s)
{
	const char *p = skip_ws(*pp) + 1; /* after '<' */

	s->has_opts = true;
	for (;;) {
		struct opt *o;

		p = skip_ws(p);
		if (*p == '>') {
			*pp = p + 1;
			return 0;
		}
		if (s->n_opts == MAX_OPTS)
			return fail(r, "more than %d options", MAX_OPTS);
		o = &s->opts[s->n_opts++];
		memset(o, 0, sizeof(*o));
		if (strncmp(p, "mss ", 4) == 0) {
			o->kind = OPT_MSS;
			p += 4;
			if (parse_num(r, &p, &o->a) < 0)
				return -1;
		} else if (strncmp(p, "sackOK", 6) == 0) {
			o->kind = OPT_SACKOK;
			p += 6;
		} else if (strncmp(p, "TS val ", 7) == 0) {
			o->kind = OPT_TS;
			p += 7;
			if (parse_num(r, &p, &o->a) < 0)
				return -1;
			p = skip_ws(p);
			if (strncmp(p, "ecr ", 4) != 0)
				return fail(r, "TS val X ecr Y");
			p += 4;
			if (parse_num(r, &p, &o->b) < 0)
				return -1;
		} else if (strncmp(p, "nop", 3) == 0) {
			o->kind = OPT_NOP;
			p += 3;
		} else if (strncmp(p, "eol", 3) == 0) {
			o->kind = OPT_EOL;
			p += 3;
		} else if (strncmp(p, "wscale ", 7) == 0) {
			o->kind = OPT_WSCALE;
			p += 7;
			if (parse_num(r, &p, &o->a) < 0)
				return -1;
		} else if (strncmp(p, "sack ", 5) == 0) {
			o->kind = OPT_SACK;
			p += 5;
			if (parse_num(r, &p, &o->a) < 0)
				return -1;
			if (*p != ':')
				return fail(r, "sack LEFT:RIGHT [LEFT:RIGHT...]");
			p++;
			if (parse_num(r, &p, &o->b) < 0)
				return -1;
			o->n_blocks = 1;
			/* More blocks in the same option, separated by spaces. */
			for (p = skip_ws(p); *p != ',' && *p != '>' && *p != '\0'; p = skip_ws(p)) {
				struct num *bl;

				if (o->n_blocks == MAX_SACK)
					return fail(r, "more than %d SACK blocks", MAX_SACK);
				bl = o->more[o->n_blocks - 1];
				if (parse_num(r, &p, &bl[0]) < 0)
					return -1;
				if (*p != ':')
					return fail(r, "sack LEFT:RIGHT [LEFT:RIGHT...]");
				p++;
				if (parse_num(r, &p, &bl[1]) < 0)
					return -1;
				o->n_blocks++;
			}
		} else {
			return fail(r, "unknown option at '%.20s'", p);
		}
		p = skip_ws(p);
		if (*p == ',')
			p++;
		else if (*p != '>')
			return fail(r, "',' or '>' expected in the options at '%.20s'", p);
	}
}

/* A C string literal: "..." with \r \n \t \\ \" \xHH. */
static int
parse_string(struct run *r, const char **pp, char *out, unsigned max, unsigned *len)
{
	const char *p = skip_ws(*pp) + 1;

	*len = 0;
	while (*p != '"') {
		char c = *p++;

		if (c == '\0')
			return fail(r, "unterminated string");
		if (c == '\\') {
			c = *p++;
			switch (c) {
			case 'r': c = '\r'; break;
			case 'n': c = '\n'; break;
			case 't': c = '\t'; break;
			case '0': c = '\0'; break;
			case 'x': {
				char hex[3] = { p[0], p[0] ? p[1] : 0, 0 };

				c = (char)strtoul(hex, NULL, 16);
				p += 2;
				break;
			}
			case '\\': case '"': break;
			default: return fail(r, "unknown escape \\%c", c);
			}
		}
		if (*len == max)
			return fail(r, "string longer than %u bytes", max);
		out[(*len)++] = c;
	}
	*pp = p + 1;
	return 0;
}

/* "c>r", "r>b" ... */
static int
parse_leg(struct run *r, const char *w, struct seg_line *s)
{
	unsigned i;

	if (strlen(w) != 3 || w[1] != '>')
		return -1;
	for (i = 0; i < PEER__N; i++) {
		if (w[0] == peer_letter[i] && w[2] == 'r') {
			s->inbound = true;
			s->peer = i;
			return 0;
		}
		if (w[0] == 'r' && w[2] == peer_letter[i]) {
			s->inbound = false;
			s->peer = i;
			return 0;
		}
	}
	return -1;
}

/* SEQ:END(LEN) [ack N] [win N] [<opts>] ["data"] */
static int
parse_segment(struct run *r, const char *p, struct seg_line *s)
{
	if (parse_flags(r, &p, &s->flags) < 0 || parse_num(r, &p, &s->seq) < 0)
		return -1;
	if (*p != ':')
		return fail(r, "SEQ:END(LEN) expected");
	p++;
	if (parse_num(r, &p, &s->end) < 0)
		return -1;
	if (*p != '(')
		return fail(r, "SEQ:END(LEN) expected");
	if (p[1] == '*' && !s->inbound) {
		s->len_any = true;
		p += 2;
	} else {
		s->len = (uint32_t)strtoul(p + 1, (char **)&p, 10);
	}
	if (*p != ')')
		return fail(r, "SEQ:END(LEN) expected");
	p++;
	for (;;) {
		p = skip_ws(p);
		if (*p == '\0' || *p == '#')
			break;
		if (strncmp(p, "ack ", 4) == 0) {
			p += 4;
			s->has_ack = true;
			if (parse_num(r, &p, &s->ack) < 0)
				return -1;
		} else if (strncmp(p, "win ", 4) == 0) {
			p += 4;
			s->has_win = true;
			if (parse_num(r, &p, &s->win) < 0)
				return -1;
		} else if (*p == '<') {
			if (parse_opts(r, &p, s) < 0)
				return -1;
		} else if (*p == '"') {
			s->has_data = true;
			if (parse_string(r, &p, s->data, sizeof(s->data), &s->data_len) < 0)
				return -1;
			if (strncmp(p, "...", 3) == 0) {
				s->pad = true;
				p += 3;
			}
		} else if (strncmp(p, "bad_cksum", 9) == 0) {
			s->bad_cksum = true;
			p = skip_ws(p + 9);
		} else if (strncmp(p, "repeat ", 7) == 0) {
			char *e;

			s->repeat = (unsigned)strtoul(p + 7, &e, 10);
			if (e == p + 7 || s->repeat == 0 || s->repeat > MAX_REPEAT)
				return fail(r, "repeat N (1..%d)", MAX_REPEAT);
			p = skip_ws(e);
			if (strncmp(p, "ack+", 4) == 0) {
				s->ack_step = (uint32_t)strtoul(p + 4, &e, 0);
				if (e == p + 4)
					return fail(r, "repeat N ack+K");
				p = e;
			}
		} else {
			return fail(r, "unexpected '%.20s'", p);
		}
	}
	if (s->inbound && s->has_data && (s->pad ? s->data_len > s->len : s->data_len != s->len))
		return fail(r, "the payload has %u bytes, the segment says (%u)", s->data_len, s->len);
	if (s->repeat == 0)
		s->repeat = 1;
	return 0;
}

/* ---------------------------------------------------------- frames -- */

static uint16_t
router_port(const struct run *r, enum peer p)
{
	return p == PEER_CLIENT ? r->listen_port : 0;
}

static unsigned
write_opts(struct run *r, const struct seg_line *s, uint8_t *o)
{
	unsigned n = 0, i;
	uint32_t a = 0, b = 0;

	for (i = 0; i < s->n_opts; i++) {
		const struct opt *x = &s->opts[i];

		num_value(r, &x->a, &a);
		num_value(r, &x->b, &b);
		switch (x->kind) {
		case OPT_MSS: o[n++] = 2; o[n++] = 4; o[n++] = (uint8_t)(a >> 8); o[n++] = (uint8_t)a; break;
		case OPT_SACKOK: o[n++] = 4; o[n++] = 2; break;
		case OPT_TS:
			o[n++] = 8; o[n++] = 10;
			a = rte_cpu_to_be_32(a); b = rte_cpu_to_be_32(b);
			memcpy(o + n, &a, 4); memcpy(o + n + 4, &b, 4);
			n += 8;
			break;
		case OPT_NOP: o[n++] = 1; break;
		case OPT_EOL: o[n++] = 0; break;
		case OPT_WSCALE: o[n++] = 3; o[n++] = 3; o[n++] = (uint8_t)a; break;
		case OPT_SACK: {
			unsigned k;

			o[n++] = 5;
			o[n++] = (uint8_t)(2 + 8 * x->n_blocks);
			for (k = 0; k < x->n_blocks; k++) {
				if (k > 0) {
					num_value(r, &x->more[k - 1][0], &a);
					num_value(r, &x->more[k - 1][1], &b);
				}
				a = rte_cpu_to_be_32(a); b = rte_cpu_to_be_32(b);
				memcpy(o + n, &a, 4); memcpy(o + n + 4, &b, 4);
				n += 8;
			}
			break;
		}
		}
	}
	while (n % 4)
		o[n++] = 0; /* EOL padding */
	return n;
}

/* A frame's IP header (either family, from its ethertype), TCP header and
 * payload length. */
static const struct rte_tcp_hdr *
frame_tcp(const uint8_t *fr, const uint8_t **l3, bool *v6, unsigned *plen)
{
	const struct rte_tcp_hdr *th;
	unsigned l3len, tlen;

	*l3 = fr + 14;
	*v6 = fr[12] == 0x86 && fr[13] == 0xdd;
	if (*v6) {
		l3len = 40;
		tlen = (unsigned)((*l3)[4] << 8 | (*l3)[5]);
	} else {
		l3len = rte_ipv4_hdr_len((const struct rte_ipv4_hdr *)*l3);
		tlen = rte_be_to_cpu_16(((const struct rte_ipv4_hdr *)*l3)->total_length) - l3len;
	}
	th = (const struct rte_tcp_hdr *)(*l3 + l3len);
	*plen = tlen - (th->data_off >> 4) * 4u;
	return th;
}

static int
inject(struct run *r, const struct seg_line *s, uint32_t shift, uint32_t ack_shift)
{
	struct sy_test_dp *d = r->d;
	uint8_t opts[40];
	unsigned olen, port = s->peer == PEER_CLIENT ? 0 : 1;
	struct rte_mbuf *m;
	uint32_t seq, ack = 0, win = 502, snat;
	const struct var *sv = var_find(r, "snat");

	if (!num_value(r, &s->seq, &seq) || (s->has_ack && !num_value(r, &s->ack, &ack)) ||
	    (s->has_win && !num_value(r, &s->win, &win)))
		return fail(r, "an inbound segment uses a variable not bound yet");
	if (s->peer != PEER_CLIENT && sv == NULL)
		return fail(r, "a backend segment before the router's SYN to it ($snat not bound)");
	snat = sv ? sv->val : 0;
	seq += shift;
	ack += ack_shift;
	olen = write_opts(r, s, opts);
	if (olen > 40)
		return fail(r, "options longer than 40 bytes");
	{
		static uint8_t payload[MAX_DATA];
		struct sy_test_seg t = {
			.saddr = sy_test_ip4(peer_ip[s->peer]),
			.daddr = sy_test_ip4(port == 0 ? SY_TEST_VIP : SY_TEST_SNAT),
			.sport = rte_cpu_to_be_16(port == 0 ? r->client_port : 8080),
			.dport = rte_cpu_to_be_16(port == 0 ? router_port(r, s->peer) : (uint16_t)snat),
			.seq = seq, .ack = ack, .flags = s->flags, .win = (uint16_t)win,
			.opts = opts, .optlen = olen,
			.data = payload, .len = s->len,
		};

		if (port == 0 && r->v6) {
			t.saddr6 = r->client6;
			t.daddr6 = r->vip6;
		}
		if (s->len > sizeof(payload))
			return fail(r, "a payload longer than %d bytes", MAX_DATA);
		memset(payload, 'x', s->len);
		if (s->has_data)
			memcpy(payload, s->data, s->data_len);
		m = sy_test_frame(d->mp, port, &t);
		if (m == NULL)
			return fail(r, "out of mbufs");
		if (s->bad_cksum) {
			const uint8_t *l3;
			unsigned plen;
			bool v6;
			struct rte_tcp_hdr *th = (struct rte_tcp_hdr *)(uintptr_t)frame_tcp(
				rte_pktmbuf_mtod(m, const uint8_t *), &l3, &v6, &plen);

			th->cksum ^= 0x0101;
		}
	}
	/* The burst entry: the fast path takes it if it may, else the
	 * per-packet path, as on a running worker. */
	sy_splice_rx_burst(d->w, (uint16_t)port, &m, 1);
	return 0;
}

/* The frame's bytes in one piece: the proxy's segments are a header mbuf
 * with the payload chained on as indirect mbufs (tcb_out.c). */
static const uint8_t *
flat(const struct rte_mbuf *m, uint8_t buf[MAX_FRAME])
{
	if (m->pkt_len > MAX_FRAME)
		return NULL;
	return rte_pktmbuf_read(m, 0, m->pkt_len, buf);
}

/* SCENARIO_TRACE=1: every segment the worker sends, on stderr, in the
 * script's notation (for writing a script; not a check). */
static void
trace(const struct run *r, const struct rte_mbuf *m, unsigned port)
{
	static uint8_t buf[MAX_FRAME];
	const uint8_t *fr = flat(m, buf), *l3;
	const struct rte_tcp_hdr *th;
	const uint8_t *o;
	unsigned olen, plen, i = 0, k;
	uint32_t seq;
	char fl[10], *f = fl;
	static const char letters[] = "FSRPA UEW";
	bool v6;

	if (fr == NULL) {
		fprintf(stderr, "#trace a frame of %u bytes\n", m->pkt_len);
		return;
	}
	th = frame_tcp(fr, &l3, &v6, &plen);
	o = (const uint8_t *)(th + 1);
	olen = (th->data_off >> 4) * 4u - 20;
	seq = rte_be_to_cpu_32(th->sent_seq);
	for (k = 0; k < 8; k++)
		if (th->tcp_flags & (1u << k))
			*f++ = k == 4 ? '.' : letters[k];
	*f = '\0';
	fprintf(stderr, "#trace %.3f r>%c %s %" PRIu32 ":%" PRIu32 "(%u) ack %" PRIu32 " win %u <",
		(double)(r->d->w->now - r->t0) / 1000.0 / (double)r->d->sh->tsc_per_ms,
		port == 0 ? 'c'
		: ((const struct rte_ipv4_hdr *)l3)->dst_addr == sy_test_ip4(SY_TEST_DEAD) ? 'd'
											     : 'b',
		fl, seq,
		seq + plen, plen, rte_be_to_cpu_32(th->recv_ack), rte_be_to_cpu_16(th->rx_win));
	while (i < olen && o[i] != 0) {
		uint32_t a, b;

		if (o[i] == 1) {
			fprintf(stderr, "%snop", i ? "," : "");
			i++;
			continue;
		}
		if (i + 1 >= olen || o[i + 1] < 2)
			break;
		fprintf(stderr, "%s", i ? "," : "");
		switch (o[i]) {
		case 2: fprintf(stderr, "mss %u", o[i + 2] << 8 | o[i + 3]); break;
		case 3: fprintf(stderr, "wscale %u", o[i + 2]); break;
		case 4: fprintf(stderr, "sackOK"); break;
		case 8:
			memcpy(&a, o + i + 2, 4);
			memcpy(&b, o + i + 6, 4);
			fprintf(stderr, "TS val %" PRIu32 " ecr %" PRIu32, rte_be_to_cpu_32(a),
				rte_be_to_cpu_32(b));
			break;
		case 5:
			fprintf(stderr, "sack");
			for (k = 2; k + 8 <= o[i + 1]; k += 8) {
				memcpy(&a, o + i + k, 4);
				memcpy(&b, o + i + k + 4, 4);
				fprintf(stderr, " %" PRIu32 ":%" PRIu32, rte_be_to_cpu_32(a),
					rte_be_to_cpu_32(b));
			}
			break;
		default: fprintf(stderr, "kind %u", o[i]); break;
		}
		i += o[i + 1];
	}
	fprintf(stderr, ">");
	if (plen > 0) {
		const uint8_t *d = (const uint8_t *)(th + 1) + olen;
		unsigned n = plen;

		fprintf(stderr, " \"");
		for (k = 0; k < n && k < 40; k++)
			fprintf(stderr, isprint(d[k]) && d[k] != '"' && d[k] != '\\' ? "%c" : "\\x%02x",
				d[k]);
		fprintf(stderr, "%s\"", n > 40 ? "..." : "");
	}
	fprintf(stderr, "\n");
}

/* Move what the worker queued for TX into the run's queue, in order. */
static int
collect(struct run *r)
{
	struct sy_worker *w = r->d->w;
	unsigned p, i;

	for (p = 0; p < 2; p++) {
		for (i = 0; i < w->txq[p].n; i++) {
			if (r->nq == MAX_QUEUE)
				return fail(r, "more than %d segments waiting", MAX_QUEUE);
			if (r->trace)
				trace(r, w->txq[p].pkts[i], p);
			if (!r->d->sh->ports[p].tx_multi_seg && w->txq[p].pkts[i]->nb_segs != 1)
				return fail(r, "a frame of %u segments queued for a port that sends "
					       "single mbufs", w->txq[p].pkts[i]->nb_segs);
			r->q[r->nq] = w->txq[p].pkts[i];
			r->q_time[r->nq] = (double)(w->now - r->t0) / 1000.0 /
					   (double)r->d->sh->tsc_per_ms;
			r->q_port[r->nq++] = (uint8_t)p;
		}
		w->txq[p].n = 0;
		w->txq[p].bytes = 0;
	}
	return 0;
}

static void
describe(const struct rte_mbuf *m, char *buf, size_t len)
{
	static uint8_t fbuf[MAX_FRAME];
	const uint8_t *fr = flat(m, fbuf), *l3;
	const struct rte_tcp_hdr *th;
	unsigned plen;
	bool v6;

	if (fr == NULL) {
		snprintf(buf, len, "a frame of %u bytes", m->pkt_len);
		return;
	}
	th = frame_tcp(fr, &l3, &v6, &plen);

	snprintf(buf, len, "flags %#x seq %" PRIu32 " ack %" PRIu32 " win %u len %u to port %u",
		 th->tcp_flags, rte_be_to_cpu_32(th->sent_seq), rte_be_to_cpu_32(th->recv_ack),
		 rte_be_to_cpu_16(th->rx_win), plen, rte_be_to_cpu_16(th->dst_port));
}

static int
expect_none(struct run *r, const char *when)
{
	char d[160];

	if (collect(r) < 0)
		return -1;
	if (r->nq == 0)
		return 0;
	describe(r->q[0], d, sizeof(d));
	return fail(r, "unexpected segment %s: %s", when, d);
}

/* Compare the options of th with the line's, in order. */
static int
match_opts(struct run *r, const struct seg_line *s, const struct rte_tcp_hdr *th)
{
	const uint8_t *o = (const uint8_t *)(th + 1);
	unsigned n = (th->data_off >> 4) * 4u - 20, i = 0, k;

	for (k = 0; k < s->n_opts; k++) {
		const struct opt *x = &s->opts[k];
		static const uint8_t kinds[] = { [OPT_MSS] = 2, [OPT_SACKOK] = 4, [OPT_TS] = 8,
						 [OPT_NOP] = 1, [OPT_WSCALE] = 3, [OPT_SACK] = 5,
						 [OPT_EOL] = 0 };
		uint32_t a, b;

		if (i >= n || o[i] != kinds[x->kind])
			return fail(r, "option %u: kind %u expected, got %d", k + 1, kinds[x->kind],
				    i < n ? o[i] : -1);
		if (x->kind == OPT_NOP || x->kind == OPT_EOL) {
			i++;
			continue;
		}
		if (i + 1 >= n || o[i + 1] < 2 || i + o[i + 1] > n)
			return fail(r, "option %u: bad length", k + 1);
		switch (x->kind) {
		case OPT_MSS:
			if (!num_match(r, &x->a, (uint32_t)(o[i + 2] << 8 | o[i + 3])))
				return fail(r, "mss %u", o[i + 2] << 8 | o[i + 3]);
			break;
		case OPT_WSCALE:
			if (!num_match(r, &x->a, o[i + 2]))
				return fail(r, "wscale %u", o[i + 2]);
			break;
		case OPT_SACK: {
			unsigned nb = (o[i + 1] - 2u) / 8u, j;

			if (nb != x->n_blocks || o[i + 1] != 2 + 8 * nb)
				return fail(r, "option %u: %u SACK blocks, not %u", k + 1, nb,
					    x->n_blocks);
			for (j = 0; j < nb; j++) {
				const struct num *l = j ? &x->more[j - 1][0] : &x->a;
				const struct num *rr = j ? &x->more[j - 1][1] : &x->b;

				memcpy(&a, o + i + 2 + 8 * j, 4);
				memcpy(&b, o + i + 6 + 8 * j, 4);
				a = rte_be_to_cpu_32(a);
				b = rte_be_to_cpu_32(b);
				if (!num_match(r, l, a) || !num_match(r, rr, b))
					return fail(r, "sack block %u is %" PRIu32 ":%" PRIu32, j + 1, a,
						    b);
			}
			break;
		}
		case OPT_TS:
			memcpy(&a, o + i + 2, 4);
			memcpy(&b, o + i + 6, 4);
			a = rte_be_to_cpu_32(a);
			b = rte_be_to_cpu_32(b);
			if (!num_match(r, &x->a, a) || !num_match(r, &x->b, b))
				return fail(r, "TS val %" PRIu32 " ecr %" PRIu32, a, b);
			break;
		default:
			break;
		}
		i += o[i + 1];
	}
	for (; i < n; i++)
		if (o[i] != 0)
			return fail(r, "more options than the line states (kind %u)", o[i]);
	return 0;
}

static int
expect(struct run *r, const struct seg_line *s)
{
	unsigned port = s->peer == PEER_CLIENT ? 0 : 1, i;
	const struct rte_ipv4_hdr *ip;
	const struct rte_tcp_hdr *th;
	const uint8_t *l3 = NULL;
	struct rte_mbuf *m = NULL;
	unsigned plen, waited;
	bool v6 = false;
	char want[32], got[160];
	double sent_at = 0;
	int rc = 0;

	for (waited = 0;; waited += SY_WHEEL_TICK_MS) {
		if (collect(r) < 0)
			return -1;
		for (i = 0; i < r->nq; i++)
			if (r->q_port[i] == port) {
				m = r->q[i];
				sent_at = r->q_time[i];
				memmove(&r->q[i], &r->q[i + 1], (r->nq - i - 1) * sizeof(r->q[0]));
				memmove(&r->q_time[i], &r->q_time[i + 1],
					(r->nq - i - 1) * sizeof(r->q_time[0]));
				memmove(&r->q_port[i], &r->q_port[i + 1], r->nq - i - 1);
				r->nq--;
				break;
			}
		if (m != NULL)
			break;
		if (waited >= r->tolerance_ms)
			return fail(r, "expected a segment to %s by %.3f s (+%u ms), none was sent",
				    peer_ip[s->peer], r->now, r->tolerance_ms);
		/* A little later, as a timer on the wheel's tick would send it. */
		r->d->w->now += r->d->sh->tsc_per_ms * SY_WHEEL_TICK_MS;
		sy_conn_timers_run(r->d->w);
	}
	{
		static uint8_t fbuf[MAX_FRAME];
		const uint8_t *fr = flat(m, fbuf);

		if (fr == NULL) {
			rte_pktmbuf_free(m);
			return fail(r, "a frame longer than %d bytes", MAX_FRAME);
		}
		th = frame_tcp(fr, &l3, &v6, &plen);
	}
	ip = (const struct rte_ipv4_hdr *)l3;
	describe(m, got, sizeof(got));
	/* Not early either: sent at the line's time, give or take the tolerance
	 * (what a later line's time says must not have come long before). */
	if (sent_at * 1000.0 + r->tolerance_ms < r->now * 1000.0 - 1e-6)
		rc = fail(r, "sent at %.3f s, before the line's %.3f s: %s", sent_at, r->now, got);
	else if (v6 != (port == 0 && r->v6))
		rc = fail(r, "an IPv%c segment where IPv%c was expected: %s", v6 ? '6' : '4',
			  v6 ? '4' : '6', got);
	else if (v6 && rte_ipv6_udptcp_cksum_verify((const struct rte_ipv6_hdr *)l3, th) != 0)
		rc = fail(r, "bad checksum: %s", got);
	else if (v6 && (memcmp(l3 + 24, r->client6, 16) != 0 || memcmp(l3 + 8, r->vip6, 16) != 0))
		rc = fail(r, "wrong addresses: %s", got);
	else if (!v6 && (rte_raw_cksum(ip, rte_ipv4_hdr_len(ip)) != 0xffff ||
			 rte_ipv4_udptcp_cksum_verify(ip, th) != 0))
		rc = fail(r, "bad checksum: %s", got);
	else if (!v6 && (ip->dst_addr != sy_test_ip4(peer_ip[s->peer]) ||
			 ip->src_addr != sy_test_ip4(port == 0 ? SY_TEST_VIP : SY_TEST_SNAT)))
		rc = fail(r, "wrong addresses: %s", got);
	else if (port == 0 && (th->dst_port != rte_cpu_to_be_16(r->client_port) ||
			       th->src_port != rte_cpu_to_be_16(r->listen_port)))
		rc = fail(r, "wrong ports: %s", got);
	else if (port == 1 && th->dst_port != RTE_BE16(8080))
		rc = fail(r, "wrong backend port: %s", got);
	else if (port == 1 && !num_match(r, &(struct num){ .has_var = true, .var = "snat" },
					 rte_be_to_cpu_16(th->src_port)))
		rc = fail(r, "the source port is not $snat: %s", got);
	else if (th->tcp_flags != s->flags)
		rc = fail(r, "flags %#x expected: %s", s->flags, got);
	else if (!num_match(r, &s->seq, rte_be_to_cpu_32(th->sent_seq)))
		num_str(r, &s->seq, want, sizeof(want)), rc = fail(r, "seq %s expected: %s", want, got);
	else if (!s->len_any && plen != s->len)
		rc = fail(r, "payload length %u expected: %s", s->len, got);
	else if (!num_match(r, &s->end, rte_be_to_cpu_32(th->sent_seq) + plen))
		rc = fail(r, "SEQ:END does not add up: %s", got);
	else if (s->has_ack && !num_match(r, &s->ack, rte_be_to_cpu_32(th->recv_ack)))
		num_str(r, &s->ack, want, sizeof(want)), rc = fail(r, "ack %s expected: %s", want, got);
	else if (s->has_win && !num_match(r, &s->win, rte_be_to_cpu_16(th->rx_win)))
		num_str(r, &s->win, want, sizeof(want)), rc = fail(r, "win %s expected: %s", want, got);
	else if (s->has_opts && match_opts(r, s, th) < 0)
		rc = -1;
	else if (s->has_data && (plen < s->data_len ||
				 memcmp((const uint8_t *)th + (th->data_off >> 4) * 4u, s->data,
					s->data_len) != 0))
		rc = fail(r, "the payload does not start with the line's string: %s", got);
	rte_pktmbuf_free(m);
	return rc;
}

/* ---------------------------------------------------------- clock -- */

static int
advance_to(struct run *r, double t)
{
	struct sy_worker *w = r->d->w;
	const uint64_t step = w->sh->tsc_per_ms * SY_WHEEL_TICK_MS;
	/* Whole microseconds first: 0.021 s must be 21 ms of TSC exactly, not a
	 * cycle short (the ms clock of TSvals would read one less where the
	 * worker's clock starts on a millisecond, as after cookie_clock). */
	uint64_t us = (uint64_t)(t * 1e6 + 0.5); /* t >= 0 */
	uint64_t target = r->t0 + us / 1000 * w->sh->tsc_per_ms + us % 1000 * w->sh->tsc_per_ms / 1000;

	if (t < r->now)
		return fail(r, "time goes back (%.3f after %.3f)", t, r->now);
	while (w->now < target) {
		w->now = w->now + step < target ? w->now + step : target;
		sy_conn_timers_run(w);
		if (collect(r) < 0)
			return -1;
	}
	r->now = t;
	return 0;
}

/* ---------------------------------------------------------- checks -- */

/* The client's record, by its 4-tuple in the script's family. */
static struct sy_conn *
client_conn(struct run *r)
{
	bool from_client;

	if (r->v6) {
		struct sy_flow_key6 k;

		sy_flow_key_v6(&k, r->client6, r->vip6, rte_cpu_to_be_16(r->client_port),
			       rte_cpu_to_be_16(r->listen_port));
		return sy_flow_lookup6(r->d->w, &k);
	}
	return sy_flow_find(r->d->w, sy_test_ip4(SY_TEST_CLIENT), sy_test_ip4(SY_TEST_VIP),
			    rte_cpu_to_be_16(r->client_port), rte_cpu_to_be_16(r->listen_port),
			    &from_client);
}

/* state client|backend == NAME: a proxied connection's TCP state on that
 * leg (tcb.h; a client leg's TIME_WAIT record, px_time_wait.c, is
 * TIME_WAIT), `none` when there is no such leg (no record, not proxied, no
 * backend leg now). */
static int
check_state(struct run *r, const char *p)
{
	static const char *const names[] = {
		[SY_TCPS_CLOSED] = "CLOSED",	     [SY_TCPS_SYN_SENT] = "SYN_SENT",
		[SY_TCPS_ESTABLISHED] = "ESTABLISHED", [SY_TCPS_FIN_WAIT_1] = "FIN_WAIT_1",
		[SY_TCPS_FIN_WAIT_2] = "FIN_WAIT_2",   [SY_TCPS_CLOSE_WAIT] = "CLOSE_WAIT",
		[SY_TCPS_CLOSING] = "CLOSING",	     [SY_TCPS_LAST_ACK] = "LAST_ACK",
		[SY_TCPS_TIME_WAIT] = "TIME_WAIT",
	};
	char leg[16], want[16];
	const char *got = "none";
	struct sy_conn *c;

	if (sscanf(p, "%15s == %15s", leg, want) != 2 ||
	    (strcmp(leg, "client") != 0 && strcmp(leg, "backend") != 0))
		return fail(r, "check state client|backend == NAME");
	c = client_conn(r);
	if (c != NULL && c->state == SY_CONN_PROXY && c->px != NULL) {
		const struct sy_tcb *t = leg[0] == 'c' ? &c->px->c : c->px->bc ? &c->px->b : NULL;

		if (t != NULL)
			got = t->state < RTE_DIM(names) ? names[t->state] : "?";
	} else if (c != NULL && c->state == SY_CONN_PROXY_TIME_WAIT && leg[0] == 'c') {
		got = names[SY_TCPS_TIME_WAIT]; /* the record that outlives the proxy state */
	}
	if (strcmp(got, want) != 0)
		return fail(r, "the %s leg is %s, not %s", leg, got, want);
	return 0;
}

/* cwnd|ssthresh client|backend == BYTES: a proxied connection's congestion
 * window or slow-start threshold on that leg (tcp_cc.h). */
static int
check_window(struct run *r, const char *p)
{
	char what[16], leg[16];
	unsigned long long want, got;
	const struct sy_tcb *t = NULL;
	struct sy_conn *c;

	if (sscanf(p, "%15s %15s == %llu", what, leg, &want) != 3 ||
	    (strcmp(what, "cwnd") != 0 && strcmp(what, "ssthresh") != 0) ||
	    (strcmp(leg, "client") != 0 && strcmp(leg, "backend") != 0))
		return fail(r, "check cwnd|ssthresh client|backend == BYTES");
	c = client_conn(r);
	if (c != NULL && c->state == SY_CONN_PROXY && c->px != NULL)
		t = leg[0] == 'c' ? &c->px->c : c->px->bc ? &c->px->b : NULL;
	if (t == NULL)
		return fail(r, "no %s leg to check the %s of", leg, what);
	got = what[0] == 'c' ? t->cwnd : t->ssthresh;
	if (got != want)
		return fail(r, "the %s leg's %s is %llu, not %llu", leg, what, got, want);
	return 0;
}

/* counter NAME == N | drop NAME == N | answer NAME == N | flows == N */
static int
check_counter(struct run *r, const char *p)
{
	const struct sy_worker_counters *c = &r->d->w->counters;
	char kind[16], name[48];
	unsigned long long want, got = ~0ull;
	int i;

	if (strncmp(p, "cwnd ", 5) == 0 || strncmp(p, "ssthresh ", 9) == 0)
		return check_window(r, p);
	if (sscanf(p, "%15s %47s == %llu", kind, name, &want) == 3) {
		if (strcmp(kind, "drop") == 0) {
			for (i = 0; i < SY_DROP__COUNT; i++)
				if (strcmp(sy_drop_reason_names[i], name) == 0) {
					got = c->drops[i];
					r->drop_checked[i] = true;
				}
		} else if (strcmp(kind, "answer") == 0) {
			for (i = 0; i < SY_ANSWER__COUNT; i++)
				if (strcmp(sy_answer_reason_names[i], name) == 0)
					got = c->answers[i];
		} else if (strcmp(kind, "counter") == 0) {
#define SY_X(f) if (strcmp(name, #f) == 0) got = c->f;
			SY_COUNTER_FIELDS(SY_X)
#undef SY_X
		} else {
			return fail(r, "counter, drop or answer expected");
		}
		if (got == ~0ull)
			return fail(r, "no %s named %s", kind, name);
		if (got != want)
			return fail(r, "%s %s is %llu, not %llu", kind, name, got, want);
		return 0;
	}
	if (strncmp(p, "state ", 6) == 0)
		return check_state(r, p + 6);

	if (sscanf(p, "flows == %llu", &want) == 1) {
		if (c->flows_active != want)
			return fail(r, "%" PRIu64 " flows active, not %llu", c->flows_active, want);
		return 0;
	}
	return fail(r, "bad check '%s'", p);
}

/* ---------------------------------------------------------- script -- */

/*
 * cookie_clock N: move the worker's clock forward, before anything happens,
 * to 8 s into a cookie time tick whose counter is N (mod 32). The counter is
 * the top five bits of the router's SYN-ACK sequence number
 * (tcp_syncookie.h), so a script can pin the half of the sequence space the
 * client leg's ISN falls in.
 */
static int
cookie_clock(struct run *r, unsigned n)
{
	struct sy_worker *w = r->d->w;
	const uint64_t tsc_s = w->sh->tsc_per_ms * 1000;
	uint64_t tick = w->now / tsc_s / SY_COOKIE_TICK_S;
	uint64_t want;

	if (r->nq != 0 || r->n_vars != 0 || r->now != 0)
		return fail(r, "cookie_clock comes before the first segment");
	tick += ((n % 32) + 32 - tick % 32) % 32;
	want = (tick * SY_COOKIE_TICK_S + 8) * tsc_s;
	if (want < w->now)
		want += 32 * SY_COOKIE_TICK_S * tsc_s;
	w->now = want;
	w->arp.last_timer = want;
	w->tcp.wheel_tick = want / w->tcp.tick_tsc;
	r->t0 = want;
	return 0;
}

/*
 * congestion_control cubic|newreno: the algorithm of the connections the
 * script opens (the config's tcp.congestion_control; tcp_cc.h). Before the
 * first segment; without it a script gets the router's default, CUBIC.
 */
static int
congestion_control(struct run *r, const char *name)
{
	if (r->nq != 0 || r->n_vars != 0 || r->now != 0)
		return fail(r, "congestion_control comes before the first segment");
	if (strcmp(name, "cubic") == 0)
		r->d->sh->tcp_cc = SY_TCP_CC_CUBIC;
	else if (strcmp(name, "newreno") == 0)
		r->d->sh->tcp_cc = SY_TCP_CC_NEWRENO;
	else
		return fail(r, "congestion_control cubic|newreno");
	return 0;
}

/* The mbufs a script held (mbufs_spare) back in the pool. */
static void
mbufs_release(struct run *r)
{
	while (r->n_held > 0)
		rte_pktmbuf_free(r->held[--r->n_held]);
}

/* mbufs_spare N: all of the pool's free mbufs but N held by the script, so
 * the worker runs out where a test wants it to (an inbound segment takes
 * one); mbufs_spare all: given back. */
static int
mbufs_spare(struct run *r, const char *arg)
{
	struct rte_mbuf *m;
	unsigned keep;

	mbufs_release(r);
	if (strcmp(arg, "all") == 0)
		return 0;
	keep = (unsigned)atoi(arg);
	if (r->held == NULL && (r->held = calloc(r->d->n_mbufs, sizeof(*r->held))) == NULL)
		return fail(r, "mbufs_spare: no memory");
	while (r->n_held < r->d->n_mbufs && (m = rte_pktmbuf_alloc(r->d->mp)) != NULL)
		r->held[r->n_held++] = m;
	while (keep-- > 0 && r->n_held > 0)
		rte_pktmbuf_free(r->held[--r->n_held]);
	return 0;
}

static int
run_line(struct run *r, char *line)
{
	char *p = line, word[16];
	struct seg_line s;
	double t;
	int n;

	while (*p == ' ' || *p == '\t')
		p++;
	p[strcspn(p, "\r\n")] = '\0';
	if (*p == '\0' || *p == '#')
		return 0;
	if (strncmp(p, "client_port ", 12) == 0) {
		r->client_port = (uint16_t)atoi(p + 12);
		return 0;
	}
	if (strncmp(p, "listen_port ", 12) == 0) {
		r->listen_port = (uint16_t)atoi(p + 12);
		return 0;
	}
	if (strcmp(p, "client_family 6") == 0) {
		/* The client leg over IPv6: dp_env's 2001:2::2 to 2001:2::1. */
		struct sy_addr a;

		r->v6 = true;
		sy_addr_parse(SY_TEST_CLIENT6, &a);
		memcpy(r->client6, a.v6, 16);
		sy_addr_parse(SY_TEST_VIP6, &a);
		memcpy(r->vip6, a.v6, 16);
		return 0;
	}
	if (strncmp(p, "cookie_clock ", 13) == 0)
		return cookie_clock(r, (unsigned)atoi(p + 13));
	if (strncmp(p, "congestion_control ", 19) == 0)
		return congestion_control(r, p + 19);
	if (strncmp(p, "time_wait_max ", 14) == 0) {
		/* The worker's cap on TIME_WAIT records (px_time_wait.c),
		 * so a script can fill it with a few connections. */
		r->d->w->tcp.time_wait_max = (uint32_t)atoi(p + 14);
		return 0;
	}
	if (strcmp(p, "single_segment_tx") == 0) {
		/* Both ports send single mbufs only (net_af_xdp): the
		 * worker must hand them each frame in one piece. */
		r->d->sh->ports[0].tx_multi_seg = false;
		r->d->sh->ports[1].tx_multi_seg = false;
		return 0;
	}
	if (strncmp(p, "mbufs_spare ", 12) == 0)
		return mbufs_spare(r, p + 12);
	if (strcmp(p, "new_backend_leg") == 0) {
		/* The next segment to a backend opens another leg: it binds
		 * $snat anew (the old leg's port is forgotten). */
		struct var *v = var_find(r, "snat");

		if (v != NULL)
			*v = r->vars[--r->n_vars];
		return 0;
	}
	if (strncmp(p, "tolerance ", 10) == 0) {
		r->tolerance_ms = (unsigned)atoi(p + 10);
		return 0;
	}
	if (strncmp(p, "check ", 6) == 0)
		return check_counter(r, p + 6);
	/* TIME LEG SEGMENT */
	if (*p == '+') {
		t = r->now + strtod(p + 1, &p);
	} else {
		char *e;

		t = strtod(p, &e);
		if (e == p)
			return fail(r, "a time, 'check', 'client_port' or 'listen_port' expected");
		p = e;
	}
	if (sscanf(p, " %15s%n", word, &n) != 1)
		return fail(r, "a leg (c>r, r>c, r>b, b>r, r>d) or 'quiet' expected");
	p += n;
	if (strcmp(word, "quiet") == 0) {
		/* Nothing sent until this time. */
		if (advance_to(r, t) < 0)
			return -1;
		return expect_none(r, "before the time the line says is quiet");
	}
	memset(&s, 0, sizeof(s));
	if (parse_leg(r, word, &s) < 0)
		return fail(r, "unknown leg '%s'", word);
	if (parse_segment(r, p, &s) < 0)
		return -1;
	if (advance_to(r, t) < 0)
		return -1;
	if (s.inbound) {
		unsigned i;

		if (expect_none(r, "before this inbound segment") < 0)
			return -1;
		/* What the router answers between the repeats waits for the
		 * lines after this one. */
		for (i = 0; i < s.repeat; i++)
			if (inject(r, &s, i * s.len, i * s.ack_step) < 0 || collect(r) < 0)
				return -1;
		return 0;
	}
	{
		unsigned i;

		for (i = 0; i < s.repeat; i++) {
			struct seg_line x = s;

			if (i > 0) {
				x.seq.add += (int64_t)i * s.len;
				x.end.add += (int64_t)i * s.len;
				x.ack.add += (int64_t)i * s.ack_step;
			}
			if (expect(r, &x) < 0)
				return -1;
		}
	}
	return 0;
}

static int
run_file(struct sy_test_dp *d, const char *file, char *err, size_t errlen)
{
	struct run r;
	char line[8192];
	FILE *f = fopen(file, "r");
	int rc = 0;
	unsigned leaked, i;

	memset(&r, 0, sizeof(r));
	r.file = file;
	r.d = d;
	r.client_port = 40000;
	r.listen_port = 80;
	r.trace = getenv("SCENARIO_TRACE") != NULL;
	r.tolerance_ms = TOLERANCE_MS;
	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", file, strerror(errno));
		return -1;
	}
	if (sy_test_dp_worker(d) < 0) {
		fclose(f);
		snprintf(err, errlen, "%s: no worker", file);
		return -1;
	}
	/* Each script starts with the router's default algorithm. */
	d->sh->tcp_cc = d->cfg.tcp_cc;
	/* Time 0 is the worker's clock as created: its timer wheel starts there. */
	r.t0 = d->w->now;
	while (rc == 0 && fgets(line, sizeof(line), f) != NULL) {
		r.line++;
		rc = run_line(&r, line);
	}
	fclose(f);
	if (rc == 0) {
		r.line++;
		rc = expect_none(&r, "at the end of the script");
	}
	/* Every drop must be one the script checked for. */
	for (i = 0; i < SY_DROP__COUNT && rc == 0; i++)
		if (d->w->counters.drops[i] != 0 && !r.drop_checked[i])
			rc = fail(&r, "%" PRIu64 " segments dropped as %s (say so with 'check drop')",
				  d->w->counters.drops[i], sy_drop_reason_names[i]);
	mbufs_release(&r);
	free(r.held);
	for (i = 0; i < r.nq; i++)
		rte_pktmbuf_free(r.q[i]);
	leaked = sy_test_dp_worker_free(d);
	if (rc == 0 && leaked != 0)
		rc = fail(&r, "%u mbufs not back in the pool after the worker is gone", leaked);
	if (rc < 0)
		snprintf(err, errlen, "%s", r.err);
	return rc;
}

int
main(int argc, char **argv)
{
	struct sy_test_dp d;
	glob_t g;
	size_t i;
	int a, failed = 0, flags = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: tcp_scenario FILE.pkt|DIR...\n");
		return 2;
	}
	memset(&g, 0, sizeof(g));
	for (a = 1; a < argc; a++) {
		char pat[4096];
		FILE *f;

		snprintf(pat, sizeof(pat), "%s/*.pkt", argv[a]);
		f = fopen(argv[a], "r");
		if (f != NULL && fgetc(f) != EOF) /* a file (a directory reads nothing) */
			snprintf(pat, sizeof(pat), "%s", argv[a]);
		if (f != NULL)
			fclose(f);
		if (glob(pat, flags, NULL, &g) != 0) {
			fprintf(stderr, "tcp_scenario: nothing matches %s\n", pat);
			return 2;
		}
		flags = GLOB_APPEND;
	}
	if (sy_test_dp_init(&d, "tcp_scenario", 2047) < 0)
		return 1;
	printf("1..%zu\n", g.gl_pathc);
	for (i = 0; i < g.gl_pathc; i++) {
		char err[600] = "";
		const char *file = g.gl_pathv[i];
		const char *name = strrchr(file, '/') ? strrchr(file, '/') + 1 : file;

		if (run_file(&d, file, err, sizeof(err)) == 0) {
			printf("ok %zu - %s\n", i + 1, name);
		} else {
			printf("not ok %zu - %s\n#   %s\n", i + 1, name, err);
			failed++;
		}
	}
	sy_test_dp_fini(&d);
	printf("# %zu passed, %d failed\n", g.gl_pathc - (size_t)failed, failed);
	globfree(&g);
	return failed ? 1 : 0;
}
