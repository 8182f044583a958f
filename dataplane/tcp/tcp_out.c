/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <string.h>

#include <rte_byteorder.h>
#include <rte_ip.h>
#include <rte_mbuf.h>
#include <rte_tcp.h>

#include "net/cksum.h"
#include "net/net.h"
#include "tcp/tcp_out.h"
#include "worker.h"

uint32_t
sy_tcp_ts_now(const struct sy_worker *w)
{
	return (uint32_t)(w->now / w->sh->tsc_per_ms);
}

struct rte_tcp_hdr *
sy_tcp_write_headers(void *l3, uint16_t total, const struct sy_seg *s, const uint8_t *opts,
		     unsigned olen)
{
	struct rte_tcp_hdr *th;

	if (s->saddr6 != NULL) {
		struct rte_ipv6_hdr *ip6 = l3;

		memset(ip6, 0, sizeof(*ip6));
		ip6->vtc_flow = rte_cpu_to_be_32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)(total - sizeof(*ip6)));
		ip6->proto = IPPROTO_TCP;
		ip6->hop_limits = SY_IPV4_DEFAULT_TTL;
		memcpy(ip6->src_addr, s->saddr6, 16);
		memcpy(ip6->dst_addr, s->daddr6, 16);
		th = (struct rte_tcp_hdr *)(ip6 + 1);
	} else {
		struct rte_ipv4_hdr *ip = l3;

		memset(ip, 0, sizeof(*ip));
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16(total);
		ip->fragment_offset = RTE_BE16(RTE_IPV4_HDR_DF_FLAG);
		ip->time_to_live = SY_IPV4_DEFAULT_TTL;
		ip->next_proto_id = IPPROTO_TCP;
		ip->src_addr = s->saddr;
		ip->dst_addr = s->daddr;
		th = (struct rte_tcp_hdr *)(ip + 1);
	}
	th->src_port = s->sport;
	th->dst_port = s->dport;
	th->sent_seq = rte_cpu_to_be_32(s->seq);
	th->recv_ack = rte_cpu_to_be_32(s->ack);
	th->data_off = (uint8_t)(((sizeof(*th) + olen) / 4) << 4);
	th->tcp_flags = s->flags;
	th->rx_win = rte_cpu_to_be_16(s->win);
	th->cksum = 0;
	th->tcp_urp = 0;
	memcpy(th + 1, opts, olen);
	return th;
}

int
sy_tcp_send(struct sy_worker *w, const struct sy_seg *s)
{
	struct rte_mbuf *m = rte_pktmbuf_alloc(w->sh->pool);
	struct rte_tcp_hdr *th;
	uint8_t opts[40];
	unsigned olen = 0, l3len = sy_seg_ip_hdr_len(s);
	uint16_t total;
	void *l3;

	if (m == NULL) {
		w->counters.drops[SY_DROP_NO_MBUF]++;
		return -ENOBUFS;
	}
	if (s->syn != NULL)
		olen = sy_tcp_write_syn_opts(opts, s->syn);
	else if (s->ts)
		olen = sy_tcp_write_ts_opt(opts, s->tsval, s->tsecr);
	total = (uint16_t)(l3len + sizeof(*th) + olen + s->len);
	l3 = rte_pktmbuf_append(m, total);
	if (l3 == NULL) {
		rte_pktmbuf_free(m);
		w->counters.drops[SY_DROP_NO_MBUF]++;
		return -ENOBUFS;
	}
	th = sy_tcp_write_headers(l3, total, s, opts, olen);
	if (s->len)
		memcpy((uint8_t *)(th + 1) + olen, s->payload, s->len);
	th->cksum = (uint16_t)~sy_cksum_fold(sy_cksum_add(sy_l3_phdr_sum(l3, IPPROTO_TCP, total - l3len),
							  th, total - l3len));
	m->l3_len = (uint16_t)l3len;
	if (s->saddr6 != NULL)
		sy_ipv6_output(w, s->out_if, m);
	else
		sy_ipv4_output(w, m);
	return 0;
}
