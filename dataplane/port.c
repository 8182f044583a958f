/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_ethdev.h>
#include <rte_mbuf.h>

#include "dp_log.h"
#include "port.h"
#include "xsk_stats.h"
#include "worker.h"

int
sy_port_find(const struct sy_port_config *pc, uint16_t *port_id)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	char pci_name[sizeof(pc->pci) + 8];

	if (pc->devargs[0] != '\0') {
		size_t n = strcspn(pc->devargs, ",");

		if (n >= sizeof(name))
			return -ENODEV;
		memcpy(name, pc->devargs, n);
		name[n] = '\0';
		return rte_eth_dev_get_port_by_name(name, port_id) == 0 ? 0 : -ENODEV;
	}
	if (pc->pci[0] == '\0')
		return -ENODEV;
	if (rte_eth_dev_get_port_by_name(pc->pci, port_id) == 0)
		return 0;
	/* EAL names PCI devices with the domain ("0000:03:00.0"); accept the
	 * short form lspci prints. */
	snprintf(pci_name, sizeof(pci_name), "0000:%s", pc->pci);
	return rte_eth_dev_get_port_by_name(pci_name, port_id) == 0 ? 0 : -ENODEV;
}

int
sy_port_setup(const struct sy_port_config *pc, uint16_t n_queues, struct rte_mempool *pool,
	      struct sy_dp_port *p, char *err, size_t errlen)
{
	struct rte_eth_conf conf;
	struct rte_eth_dev_info info;
	struct rte_eth_rxconf rxconf;
	struct rte_eth_txconf txconf;
	struct rte_eth_link link;
	uint16_t nb_rxd = SY_PORT_RX_DESC, nb_txd = SY_PORT_TX_DESC;
	uint16_t pid, q, mtu;
	int socket, rc;
	/* net_af_xdp opens a socket per queue in queue setup: the new ones
	 * are this port's (xsk_stats.h). */
	bool af_xdp = strncmp(pc->devargs, "net_af_xdp", 10) == 0;
	int xsk_before[SY_MAX_PORTS * SY_MAX_WORKERS];
	unsigned n_before = 0;

	rc = sy_port_find(pc, &pid);
	if (rc < 0) {
		snprintf(err, errlen, "port %s: no ethdev for %s (was it given to EAL?)", pc->name,
			 pc->devargs[0] ? pc->devargs : pc->pci);
		return rc;
	}
	p->port_id = pid;
	rc = rte_eth_dev_info_get(pid, &info);
	if (rc < 0) {
		snprintf(err, errlen, "port %s: dev_info: %s", pc->name, strerror(-rc));
		return rc;
	}
	if (n_queues > info.max_rx_queues || n_queues > info.max_tx_queues) {
		snprintf(err, errlen,
			 "port %s: %u workers need %u queue pairs, device has %u rx / %u tx"
			 " (net_af_packet: qpairs=%u)",
			 pc->name, n_queues, n_queues, info.max_rx_queues, info.max_tx_queues,
			 n_queues);
		return -EINVAL;
	}

	memset(&conf, 0, sizeof(conf));
	if (n_queues > 1 && info.flow_type_rss_offloads != 0) {
		conf.rxmode.mq_mode = RTE_ETH_MQ_RX_RSS;
		conf.rx_adv_conf.rss_conf.rss_hf =
			(RTE_ETH_RSS_IP | RTE_ETH_RSS_TCP | RTE_ETH_RSS_UDP) &
			info.flow_type_rss_offloads;
	}
	/* Only what the device has: af_packet and tap have no checksum
	 * offloads, and then ipv4.c computes and checks in software. */
	if (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM)
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_IPV4_CKSUM;
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_IPV4_CKSUM;
	if (pc->mtu > RTE_ETHER_MTU && (info.rx_offload_capa & RTE_ETH_RX_OFFLOAD_SCATTER))
		conf.rxmode.offloads |= RTE_ETH_RX_OFFLOAD_SCATTER;
	if (info.tx_offload_capa & RTE_ETH_TX_OFFLOAD_MULTI_SEGS)
		conf.txmode.offloads |= RTE_ETH_TX_OFFLOAD_MULTI_SEGS;

	rc = rte_eth_dev_configure(pid, n_queues, n_queues, &conf);
	if (rc < 0) {
		snprintf(err, errlen, "port %s: configure: %s", pc->name, strerror(-rc));
		return rc;
	}
	p->rx_ipv4_cksum = (conf.rxmode.offloads & RTE_ETH_RX_OFFLOAD_IPV4_CKSUM) != 0;
	p->tx_ipv4_cksum = (conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_IPV4_CKSUM) != 0;
	p->tx_multi_seg = (conf.txmode.offloads & RTE_ETH_TX_OFFLOAD_MULTI_SEGS) != 0;

	rc = rte_eth_dev_adjust_nb_rx_tx_desc(pid, &nb_rxd, &nb_txd);
	if (rc < 0) {
		snprintf(err, errlen, "port %s: descriptors: %s", pc->name, strerror(-rc));
		return rc;
	}
	if (pc->mtu != 0) {
		rc = rte_eth_dev_set_mtu(pid, pc->mtu);
		if (rc < 0)
			SY_DP_LOG(WARNING, "port %s: set mtu %u: %s (continuing)", pc->name,
				  pc->mtu, strerror(-rc));
	}

	socket = rte_eth_dev_socket_id(pid);
	if (socket < 0)
		socket = SOCKET_ID_ANY;
	rxconf = info.default_rxconf;
	rxconf.offloads = conf.rxmode.offloads;
	txconf = info.default_txconf;
	txconf.offloads = conf.txmode.offloads;
	if (af_xdp)
		n_before = sy_xsk_fds(xsk_before, RTE_DIM(xsk_before));
	for (q = 0; q < n_queues; q++) {
		rc = rte_eth_rx_queue_setup(pid, q, nb_rxd, (unsigned)socket, &rxconf, pool);
		if (rc < 0) {
			snprintf(err, errlen, "port %s: rx queue %u: %s", pc->name, q,
				 strerror(-rc));
			return rc;
		}
		rc = rte_eth_tx_queue_setup(pid, q, nb_txd, (unsigned)socket, &txconf);
		if (rc < 0) {
			snprintf(err, errlen, "port %s: tx queue %u: %s", pc->name, q,
				 strerror(-rc));
			return rc;
		}
	}
	rc = rte_eth_dev_start(pid);
	if (rc < 0) {
		snprintf(err, errlen, "port %s: start: %s", pc->name, strerror(-rc));
		return rc;
	}
	if (af_xdp) {
		int after[SY_MAX_PORTS * SY_MAX_WORKERS];
		unsigned n = sy_xsk_fds(after, RTE_DIM(after));

		n = sy_xsk_fds_new(xsk_before, n_before, after, n);
		p->n_xsk = RTE_MIN(n, (unsigned)RTE_DIM(p->xsk_fd));
		memcpy(p->xsk_fd, after, p->n_xsk * sizeof(after[0]));
		if (p->n_xsk != n_queues)
			SY_DP_LOG(WARNING, "port %s: %u AF_XDP sockets opened for %u queues; "
				  "routerctl stats counts the kernel's drops of those only",
				  pc->name, p->n_xsk, n_queues);
	}

	rc = rte_eth_macaddr_get(pid, &p->mac);
	if (rc < 0)
		SY_DP_LOG(WARNING, "port %s: mac address: %s (continuing)", pc->name,
			  strerror(-rc));
	if (rte_eth_dev_get_mtu(pid, &mtu) == 0)
		p->mtu = mtu;
	else
		SY_DP_LOG(WARNING, "port %s: get mtu failed (continuing with %u)", pc->name,
			  p->mtu);
	/* Informational only: transmit never waits for link up (a moved tap
	 * reads down forever). */
	if (rte_eth_link_get_nowait(pid, &link) == 0)
		SY_DP_LOG(INFO, "port %s: ethdev %u link %s", pc->name, pid,
			  link.link_status ? "up" : "down");
	else
		SY_DP_LOG(WARNING, "port %s: link status unavailable (continuing)", pc->name);
	SY_DP_LOG(INFO, "port %s: ethdev %u %02x:%02x:%02x:%02x:%02x:%02x mtu %u, %u queues,"
		  " rx/tx ipv4 cksum offload %d/%d",
		  pc->name, pid, p->mac.addr_bytes[0], p->mac.addr_bytes[1],
		  p->mac.addr_bytes[2], p->mac.addr_bytes[3], p->mac.addr_bytes[4],
		  p->mac.addr_bytes[5], p->mtu, n_queues, p->rx_ipv4_cksum, p->tx_ipv4_cksum);
	return 0;
}

void
sy_port_close(struct sy_dp_port *p)
{
	if (p->port_id == SY_PORT_NONE)
		return;
	(void)rte_eth_dev_stop(p->port_id);
	(void)rte_eth_dev_close(p->port_id);
	p->port_id = SY_PORT_NONE;
	p->n_xsk = 0; /* the driver closed them: the numbers may be reused */
}
