/* SPDX-License-Identifier: BSD-3-Clause */
/* An in-process data plane for tests (dp_env.h). */
#include <stdio.h>
#include <string.h>

#include <jansson.h>
#include <rte_ip.h>
#include <rte_lcore.h>
#include <rte_mbuf.h>
#include <rte_mempool.h>
#include <rte_ring.h>
#include <rte_tcp.h>

#include "gen/compile.h"
#include "dp_env.h"
#include "kinds/kinds.h"
#include "net/arp.h"
#include "net/neigh.h"
#include "sy_addr.h"
#include "test_eal.h"
#include "worker.h"

const struct rte_ether_addr sy_test_mac_port[2] = { { { 0x02, 0, 0, 0, 0, 0x01 } },
						    { { 0x02, 0, 0, 0, 0, 0x02 } } };
const struct rte_ether_addr sy_test_mac_client = { { 0x02, 0xcc, 0, 0, 0, 0x01 } };
const struct rte_ether_addr sy_test_mac_backend = { { 0x02, 0xbb, 0, 0, 0, 0x01 } };

uint32_t
sy_test_ip4(const char *s)
{
	struct sy_addr a;

	return sy_addr_parse(s, &a) == 0 && a.family == AF_INET ? a.v4 : 0;
}

void
sy_test_random_words(uint64_t *state, uint32_t *out, unsigned n)
{
	unsigned k;

	for (k = 0; k < n; k++) {
		*state ^= *state << 13;
		*state ^= *state >> 7;
		*state ^= *state << 17;
		out[k] = (uint32_t)(*state >> 16);
	}
}

static void
put(struct sy_store *st, const struct sy_kind *kind, const char *name, json_t *obj)
{
	/* The scenarios script every byte of a response: no sticky-session
	 * cookie (OpenShift's default on proxied routes) in them. */
	json_object_set_new(obj, "metadata",
			    json_pack("{s:s, s:s, s:{s:s}}", "name", name, "namespace", "t",
				      "annotations", "haproxy.router.openshift.io/disable_cookies",
				      "true"));
	sy_object_free(sy_store_put(st, sy_object_new(kind, "t", name, obj, "2026-01-01T00:00:00Z",
						      name)));
	json_decref(obj);
}

static void
put_endpoints(struct sy_store *st, const char *svc, const char *ip)
{
	put(st, &sy_kind_endpoints, svc,
	    json_pack("{s:s, s:s, s:[{s:[{s:s}], s:[{s:i}]}]}", "apiVersion", "v1", "kind",
		      "Endpoints", "subsets", "addresses", "ip", ip, "ports", "port", 8080));
}

/* An OpenShift Route for host (and path, if not NULL) to service svc. */
static void
put_route_path(struct sy_store *st, const char *name, const char *host, const char *path,
	       const char *svc)
{
	json_t *spec = json_pack("{s:s, s:{s:s}}", "host", host, "to", "name", svc);

	if (path != NULL)
		json_object_set_new(spec, "path", json_string(path));
	put(st, &sy_kind_route, name,
	    json_pack("{s:s, s:s, s:o}", "apiVersion", "route.openshift.io/v1", "kind", "Route",
		      "spec", spec));
}

static void
put_route(struct sy_store *st, const char *name, const char *host, const char *svc,
	  const char *ip)
{
	put_endpoints(st, svc, ip);
	put_route_path(st, name, host, NULL, svc);
}

/* A Service of one port, 8080 named "h2c", that speaks h2 with prior
 * knowledge (Contour's upstream-protocol.h2c annotation naming that port). */
static void
put_h2c_service(struct sy_store *st, const char *name)
{
	json_t *obj = json_pack("{s:s, s:s, s:{s:[{s:s, s:i, s:i}]}}", "apiVersion", "v1", "kind",
				"Service", "spec", "ports", "name", "h2c", "port", 8080,
				"targetPort", 8080);

	json_object_set_new(obj, "metadata",
			    json_pack("{s:s, s:s, s:{s:s, s:s}}", "name", name, "namespace", "t",
				      "annotations", "haproxy.router.openshift.io/disable_cookies",
				      "true", "projectcontour.io/upstream-protocol.h2c", "h2c"));
	sy_object_free(sy_store_put(st, sy_object_new(&sy_kind_service, "t", name, obj,
						      "2026-01-01T00:00:00Z", name)));
	json_decref(obj);
}

/* A static route for prefix through gateway gw on port (the FIB's). */
static void
static_route(struct sy_config *cfg, const char *prefix, const char *gw, unsigned port)
{
	struct sy_static_route *r = &cfg->routes[cfg->n_routes++];

	sy_prefix_parse(prefix, &r->prefix, &r->prefix_len);
	sy_addr_parse(gw, &r->via);
	r->port = port;
}

int
sy_test_dp_init(struct sy_test_dp *d, const char *name, unsigned n_mbufs)
{
	static const struct sy_compile_opts opts = {
		.routing_subdomain = "apps.test",
		.router_name = "default",
		.no_route_status = 503,
		.now = "2026-01-01T00:00:00Z",
	};
	char err[256];
	struct sy_port_addr *pa;
	unsigned i;

	memset(d, 0, sizeof(*d));
	if (sy_test_eal_init(name) < 0) {
		fprintf(stderr, "%s: EAL init failed\n", name);
		return -1;
	}
	d->n_mbufs = n_mbufs;
	d->mp = rte_pktmbuf_pool_create("t_dp_env", n_mbufs, 0, 0, RTE_MBUF_DEFAULT_BUF_SIZE,
					SOCKET_ID_ANY);
	d->cfg.n_workers = 1;
	d->cfg.n_ports = 2;
	d->cfg.http_port = 80;
	d->cfg.https_port = 443;
	snprintf(d->cfg.ports[0].name, SY_NAME_MAX, "client");
	pa = &d->cfg.ports[0].ipv4[d->cfg.ports[0].n_ipv4++];
	sy_prefix_parse(SY_TEST_VIP "/24", &pa->addr, &pa->prefix_len);
	pa = &d->cfg.ports[0].ipv6[d->cfg.ports[0].n_ipv6++];
	sy_prefix_parse(SY_TEST_VIP6 "/64", &pa->addr, &pa->prefix_len);
	snprintf(d->cfg.ports[1].name, SY_NAME_MAX, "backend");
	pa = &d->cfg.ports[1].ipv4[d->cfg.ports[1].n_ipv4++];
	sy_prefix_parse(SY_TEST_SNAT "/24", &pa->addr, &pa->prefix_len);
	pa = &d->cfg.ports[1].ipv6[d->cfg.ports[1].n_ipv6++];
	sy_prefix_parse(SY_TEST_SNAT6 "/64", &pa->addr, &pa->prefix_len);
	pa = &d->cfg.ports[1].ipv6[d->cfg.ports[1].n_ipv6++];
	sy_prefix_parse(SY_TEST_SNAT6B "/64", &pa->addr, &pa->prefix_len);
	static_route(&d->cfg, SY_TEST_ROUTED6_CLIENT, SY_TEST_GW6_CLIENT, 0);
	static_route(&d->cfg, SY_TEST_ROUTED6_BACKEND, SY_TEST_GW6_BACKEND, 1);
	if (d->mp == NULL || sy_dp_shared_create(&d->cfg, d->mp, 1, &d->sh, err, sizeof(err)) < 0) {
		fprintf(stderr, "%s: data plane: %s\n", name, d->mp ? err : "no mempool");
		return -1;
	}
	for (i = 0; i < 2; i++)
		d->sh->ports[i].mac = sy_test_mac_port[i];

	sy_store_init(&d->store);
	put_route(&d->store, "web", "web.test", "s", SY_TEST_BACKEND);
	put_route(&d->store, "dead", "dead.test", "dead", SY_TEST_DEAD);
	put_route(&d->store, "web6", "web6.test", "s6", SY_TEST_BACKEND6);
	/* Two path rules: the compiler proxies px.test (control/gen/compile.c). */
	put_route_path(&d->store, "px-root", SY_TEST_PROXIED, "/", "s");
	put_route_path(&d->store, "px-api", SY_TEST_PROXIED, "/api", "s");
	/* One rule, but its Service port speaks h2c: proxied all the same. */
	put_h2c_service(&d->store, "g");
	put_route(&d->store, "h2c", SY_TEST_H2C, "g", SY_TEST_BACKEND);
	d->gen = sy_compile(&d->store, &opts, 1);
	if (d->gen == NULL) {
		fprintf(stderr, "%s: the test routes do not compile\n", name);
		return -1;
	}
	return 0;
}

void
sy_test_dp_fini(struct sy_test_dp *d)
{
	sy_generation_free(d->gen);
	sy_store_fini(&d->store);
	sy_dp_shared_free(d->sh);
	rte_mempool_free(d->mp);
	sy_test_eal_fini();
	memset(d, 0, sizeof(*d));
}

/* A peer's MAC, as another worker would post it. */
static void
learn_peer(struct sy_test_dp *d, const char *ip, uint16_t port, const struct rte_ether_addr *mac)
{
	struct sy_neigh_update u = sy_neigh_update_v4(sy_test_ip4(ip), port, mac);

	rte_ring_enqueue_elem(d->sh->nb_ring[0], &u, sizeof(u));
	sy_neigh_drain_updates(d->w);
}

int
sy_test_dp_worker(struct sy_test_dp *d)
{
	d->w = sy_worker_create(d->sh, 0, rte_get_main_lcore());
	if (d->w == NULL)
		return -1;
	d->w->gen = d->gen;
	learn_peer(d, SY_TEST_CLIENT, 0, &sy_test_mac_client);
	learn_peer(d, SY_TEST_BACKEND, 1, &sy_test_mac_backend);
	learn_peer(d, SY_TEST_DEAD, 1, &sy_test_mac_backend);
	{
		struct sy_addr c6;

		sy_addr_parse(SY_TEST_CLIENT6, &c6);
		sy_neigh_confirm(d->w, &d->w->nd, 0, c6.v6, &sy_test_mac_client);
		sy_addr_parse(SY_TEST_BACKEND6, &c6);
		sy_neigh_confirm(d->w, &d->w->nd, 1, c6.v6, &sy_test_mac_backend);
	}
	return sy_arp_lookup(d->w, 0, sy_test_ip4(SY_TEST_CLIENT)) &&
			       sy_arp_lookup(d->w, 1, sy_test_ip4(SY_TEST_BACKEND))
		       ? 0
		       : -1;
}

unsigned
sy_test_dp_worker_free(struct sy_test_dp *d)
{
	sy_worker_destroy(d->w);
	d->w = NULL;
	return d->n_mbufs - rte_mempool_avail_count(d->mp);
}

struct rte_mbuf *
sy_test_frame(struct rte_mempool *mp, unsigned port, const struct sy_test_seg *s)
{
	const bool v6 = s->saddr6 != NULL;
	const unsigned l3len = v6 ? 40 : 20;
	unsigned total = (unsigned)sizeof(struct rte_ether_hdr) + l3len + 20 + s->optlen + s->len;
	struct rte_mbuf *m = rte_pktmbuf_alloc(mp);
	struct rte_ether_hdr *eh;
	struct rte_tcp_hdr *th;

	if (m == NULL || rte_pktmbuf_append(m, (uint16_t)total) == NULL) {
		rte_pktmbuf_free(m);
		return NULL;
	}
	eh = rte_pktmbuf_mtod(m, struct rte_ether_hdr *);
	eh->dst_addr = sy_test_mac_port[port];
	eh->src_addr = port == 0 ? sy_test_mac_client : sy_test_mac_backend;
	eh->ether_type = v6 ? RTE_BE16(RTE_ETHER_TYPE_IPV6) : RTE_BE16(RTE_ETHER_TYPE_IPV4);
	th = (struct rte_tcp_hdr *)((uint8_t *)(eh + 1) + l3len);
	memset(th, 0, sizeof(*th));
	th->src_port = s->sport;
	th->dst_port = s->dport;
	th->sent_seq = rte_cpu_to_be_32(s->seq);
	th->recv_ack = rte_cpu_to_be_32(s->ack);
	th->data_off = (uint8_t)(((20 + s->optlen) / 4) << 4);
	th->tcp_flags = s->flags;
	th->rx_win = rte_cpu_to_be_16(s->win);
	if (s->optlen)
		memcpy(th + 1, s->opts, s->optlen);
	if (s->len)
		memcpy((uint8_t *)(th + 1) + s->optlen, s->data, s->len);
	if (v6) {
		struct rte_ipv6_hdr *ip6 = (struct rte_ipv6_hdr *)(eh + 1);

		memset(ip6, 0, sizeof(*ip6));
		ip6->vtc_flow = RTE_BE32(6u << 28);
		ip6->payload_len = rte_cpu_to_be_16((uint16_t)(total - sizeof(*eh) - l3len));
		ip6->proto = IPPROTO_TCP;
		ip6->hop_limits = 64;
		memcpy(ip6->src_addr, s->saddr6, 16);
		memcpy(ip6->dst_addr, s->daddr6, 16);
		th->cksum = rte_ipv6_udptcp_cksum(ip6, th);
	} else {
		struct rte_ipv4_hdr *ip = (struct rte_ipv4_hdr *)(eh + 1);

		memset(ip, 0, sizeof(*ip));
		ip->version_ihl = RTE_IPV4_VHL_DEF;
		ip->total_length = rte_cpu_to_be_16((uint16_t)(total - sizeof(*eh)));
		ip->time_to_live = 64;
		ip->next_proto_id = IPPROTO_TCP;
		ip->src_addr = s->saddr;
		ip->dst_addr = s->daddr;
		ip->hdr_checksum = rte_ipv4_cksum(ip);
		th->cksum = rte_ipv4_udptcp_cksum(ip, th);
	}
	return m;
}
