/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routerd's own configuration (the file given with -c), parsed once at start by
 * control/config/config.c. Resources (routes, services...) are not here: they come over
 * the control socket and the journal.
 */
#ifndef SY_CONFIG_H
#define SY_CONFIG_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "sy_addr.h"

#define SY_MAX_PORTS 8
#define SY_MAX_PORT_ADDRS 16 /* also a port's SNAT source addresses (conn/snat.h) */
#define SY_MAX_WORKERS 16
#define SY_MAX_STATIC_ROUTES 64
#define SY_MAX_LISTEN 8
#define SY_MAX_EAL_ARGS 32
#define SY_TLS_TICKETS_MAX 8 /* tls.tickets */
#define SY_MAX_CLIENT_SUBJECT_PATTERNS 16 /* tls.client_certificates.allowed_subject_patterns */

/* tls.client_certificates.policy (control/tls/tls_client_ca.h). */
enum sy_client_cert_policy {
	SY_CLIENT_CERT_OFF = 0, /* no certificate asked for */
	SY_CLIENT_CERT_REQUIRED,
	SY_CLIENT_CERT_OPTIONAL,
};
#define SY_NAME_MAX 32
#define SY_MAX_ROOT_NAMESPACES 64
/* config ingress_controller's default: IngressClass spec.controller of our classes */
#define SY_INGRESS_CONTROLLER_DEFAULT "switchyard.io/ingress-controller"

/* Connection records (flow-table entries) per worker: flows_per_worker.
 * The default keeps the tables of one worker near 8 MB, so a lab's 1 GB of
 * hugepages holds many workers; a million per worker needs about 220 MB
 * each (docs/operations.md, "Capacity"). */
#define SY_PP_FROM_MAX 16 /* listen.proxy_protocol.from prefixes */
#define SY_DRAIN_S_DEFAULT 30
#define SY_DRAIN_S_MAX 3600
#define SY_FLOWS_PER_WORKER_DEFAULT 32768u
#define SY_FLOWS_PER_WORKER_MIN 1024u
#define SY_TX_DRAIN_US_MAX 1000u
/* tx_drain_us "auto", the default: SY_TX_DRAIN_US_SYSCALL_PORTS when the
 * ports are kernel packet sockets or taps (a TX burst is a system call),
 * 0 with a PCI device among them (a burst is a doorbell). */
#define SY_TX_DRAIN_US_AUTO 0xffffffffu
#define SY_TX_DRAIN_US_SYSCALL_PORTS 100u
#define SY_FLOWS_PER_WORKER_MAX 16777216u

enum sy_idle_policy {
	SY_IDLE_BUSY,     /* poll forever: production, one core per worker */
	SY_IDLE_ADAPTIVE, /* back off to short sleeps after empty polls */
};

/* tcp.congestion_control: the proxy mode's TCP (dataplane/tcp/tcp_cc.h).
 * CUBIC is 0, the default, also in a config zeroed without defaults. */
enum sy_tcp_cc {
	SY_TCP_CC_CUBIC = 0,
	SY_TCP_CC_NEWRENO = 1,
};

struct sy_port_addr {
	struct sy_addr addr;
	uint8_t prefix_len;
};

struct sy_port_config {
	char name[SY_NAME_MAX];
	char devargs[256]; /* vdev, e.g. "net_af_packet0,iface=syc0"; empty for pci */
	char pci[64];      /* PCI address; empty for vdev */
	struct sy_port_addr ipv4[SY_MAX_PORT_ADDRS];
	unsigned n_ipv4;
	/* IPv6 addresses (the port also answers on the link-local address
	 * its MAC gives, once it has one of these). */
	struct sy_port_addr ipv6[SY_MAX_PORT_ADDRS];
	unsigned n_ipv6;
	uint16_t mtu; /* 0 = leave the device default (1500) */
};

struct sy_static_route {
	struct sy_addr prefix;
	uint8_t prefix_len;
	struct sy_addr via; /* family 0 = directly connected on `port` */
	unsigned port;      /* index into sy_config.ports */
};

/* Where objects live (control/etcd/store_config.c): the local journal (the
 * default, no "store" key) or an etcd cluster's keys under a prefix. */
#define SY_ETCD_MAX_ENDPOINTS 8
struct sy_store_config {
	bool etcd;                                  /* false: the journal */
	char endpoints[SY_ETCD_MAX_ENDPOINTS][128]; /* "http(s)://ADDRESS:PORT", one scheme */
	unsigned n_endpoints;
	/* https:// only, each "" when not given: the CAs that etcd's certificate
	 * must chain to ("": the system's trust store), and the client
	 * certificate and key (PEM files, both or neither). */
	char ca_file[256], cert_file[256], key_file[256];
	char prefix[128];                           /* ends with '/'; default "/switchyard/" */
	uint32_t lease_ttl_s;                       /* the scheduler leader's lease */
};

/* VIP failover (`vrrp`, include/sy_vrrp.h): this node's place among the
 * routerds that share the Router's VIPs on one L2 segment. */
struct sy_vrrp_config {
	bool enabled;
	unsigned port;         /* index into sy_config.ports: where adverts go */
	uint8_t node, nodes;   /* node < nodes <= SY_VRRP_NODES_MAX */
	uint16_t advert_ms;    /* 10..40950, a multiple of 10 (the wire has centiseconds) */
	uint8_t vrid_base;     /* VIP i is VRID vrid_base + i */
	bool preempt;
};

/* "http2" (control/config/config_h2.c, dataplane/proxy/px_h2.c): HTTP/2
 * towards clients (ALPN h2 on terminated vhosts, h2c with prior knowledge
 * on the plain listener) and the limits each connection lives under. */
struct sy_h2_config {
	bool enabled;
	uint32_t max_concurrent_streams;  /* SETTINGS_MAX_CONCURRENT_STREAMS */
	uint32_t max_header_list_size;    /* a header block, CONTINUATIONs included */
	uint32_t header_table_size;       /* the HPACK table the client may make us keep */
	uint32_t initial_window_size;     /* per stream, for request bodies */
	uint32_t max_frame_size;
	/* Token buckets per connection: streams the client resets (rapid
	 * reset, CVE-2023-44487), and frames that cost work and carry no
	 * request (SETTINGS, PING, PRIORITY, WINDOW_UPDATE, empty DATA). */
	uint32_t reset_burst, reset_per_second;
	uint32_t flood_burst, flood_per_second;
	uint32_t idle_timeout_ms;         /* no stream open this long: GOAWAY */
};

struct sy_config {
	/* Worker lcore ids (the main lcore is 0, the control thread). */
	unsigned worker_lcores[SY_MAX_WORKERS];
	unsigned n_workers;
	enum sy_idle_policy idle;
	/* Connection records per worker (SY_FLOWS_PER_WORKER_MIN..MAX); 0 in
	 * a config built by hand (tests): the default. */
	uint32_t flows_per_worker;
	/* How long a worker may hold frames for a busy port to send more of
	 * them in one TX burst (0..SY_TX_DRAIN_US_MAX microseconds; 0: every
	 * poll sends what it made; SY_TX_DRAIN_US_AUTO: by port kind). See
	 * sy_worker_poll. */
	uint32_t tx_drain_us;
	char *eal_args[SY_MAX_EAL_ARGS]; /* extra EAL arguments, owned */
	unsigned n_eal_args;
	char control_socket[108]; /* sun_path size */
	/* Prometheus metrics on a kernel socket of the control thread
	 * ("ADDR:PORT", IPv4); metrics_port 0: none. */
	uint32_t metrics_addr; /* network order */
	uint16_t metrics_port;
	/* The access log (control/observe/access_log.h): access_log_to "" off,
	 * "syslog", or a file's path; JSON lines instead of HAProxy's format. */
	char access_log_to[256];
	bool access_log_json;
	/* The DNS responder for the shard zones (dataplane/dns/dns.h): one of
	 * the ports' IPv4 addresses (network order; 0: none) and one of their
	 * IPv6 addresses (dns_listen6_on); off when neither is set. */
	uint32_t dns_listen;
	uint8_t dns_listen6[16];
	bool dns_listen6_on;
	struct sy_vrrp_config vrrp;
	char state_dir[256];
	struct sy_port_config ports[SY_MAX_PORTS];
	unsigned n_ports;
	struct sy_static_route routes[SY_MAX_STATIC_ROUTES];
	unsigned n_routes;
	struct sy_addr listen[SY_MAX_LISTEN]; /* addresses served; empty = all port addresses */
	unsigned n_listen;
	/* listen.proxy_protocol: connections start with a PROXY protocol
	 * header (dataplane/peek/proxy_proto.c); with pp_from, only those
	 * from these prefixes (a front balancer's), others are served as they
	 * come. */
	bool proxy_protocol;
	struct sy_addr pp_from[SY_PP_FROM_MAX];
	uint8_t pp_from_len[SY_PP_FROM_MAX];
	unsigned n_pp_from;
	uint16_t http_port;  /* default 80 */
	uint16_t https_port; /* default 443 */
	char routing_subdomain[254];
	char router_name[64]; /* name in route statuses; default "default" */
	/* Gateway API: the GatewayClass spec.controllerName this router
	 * implements (default "switchyard.io/gateway-controller"). */
	char gateway_controller[254];
	uint16_t no_route_status; /* HTTP status for an unknown host: 503 (OpenShift) or 404 */
	uint8_t forwarded_headers; /* enum sy_fwd_policy: the proxy's default (append) */
	/* Route semantics (the route-semantics issue) */
	bool allow_wildcard_routes;      /* admit wildcardPolicy Subdomain (OpenShift 4: false) */
	char route_label_selector[512];  /* this router's shard: Kubernetes label selector */
	char namespace_label_selector[512];
	/* Fleet (control/fleet/): this routerd runs the route scheduler. */
	bool scheduler;
	char scheduler_strategy[32];   /* "round-robin" (default) or "least-loaded" */
	uint32_t scheduler_retry_s;    /* unscheduled routes are tried again this often */
	char *ingressroute_root_namespaces[SY_MAX_ROOT_NAMESPACES]; /* empty: any */
	unsigned n_ingressroute_root_namespaces;
	/* Kubernetes Ingress v1 (control/kinds/ingress.c): the IngressClasses
	 * whose spec.controller is this are ours. */
	char ingress_controller[251];
	/* TLS termination (control/tls/tls_cert.h). */
	char tls_default_certificate[256]; /* PEM file, certificate and key; "": generated */
	char tls_backend_ca[256];          /* CAs for https:// URL backends; "": the system's */
	char tls_ocsp_dir[256];            /* DER OCSP responses to staple; "": <state_dir>/ocsp */
	uint32_t tls_ocsp_rescan_s;        /* that directory is looked at this often */
	char tls_ciphers[512];             /* TLS 1.2 cipher list (OpenSSL syntax) */
	char tls_ciphersuites[256];        /* TLS 1.3 suites */
	uint16_t tls_min_version;          /* 0x0303 or 0x0304: the floor for every vhost */
	uint32_t tls_ticket_rotate_s;      /* session ticket keys rotated this often */
	/* tls.client_certificates (config_client_certs.c): enum sy_client_cert_policy,
	 * the CAs a client's certificate must chain to, and the subjects let in. */
	uint8_t tls_client_cert_policy;
	char tls_client_ca_file[256];
	char *tls_client_subject_patterns[SY_MAX_CLIENT_SUBJECT_PATTERNS]; /* owned */
	unsigned n_tls_client_subject_patterns;
	/* SIGTERM / SIGINT: connections in flight get this long to finish
	 * (dataplane/drain.c); 0: stop at once. */
	uint32_t drain_s;
	uint8_t tls_tickets;               /* TLS 1.3 tickets sent per handshake, <= SY_TLS_TICKETS_MAX */
	uint8_t tcp_cc;                    /* enum sy_tcp_cc: for connections the proxy terminates */
	bool lb_fail_closed;               /* every endpoint tried ejected: 503, not panic */
	/* Passive ejections are honoured in a pool while at most this share of
	 * it (and always one endpoint) is ejected on a worker (lb/lb.h). */
	uint8_t lb_max_ejected_percent;
	struct sy_store_config store;
	struct sy_h2_config h2;
};

/*
 * Parse a JSON config from text. On error returns -EINVAL and writes a message
 * naming the key and the problem into err.
 */
int sy_config_parse(const char *json_text, struct sy_config *cfg, char *err, size_t errlen);
int sy_config_load(const char *path, struct sy_config *cfg, char *err, size_t errlen);
void sy_config_free(struct sy_config *cfg);
/* Index of the port with this name, or -1. */
int sy_config_port_index(const struct sy_config *cfg, const char *name);
/*
 * What the ports are, read by both planes (the control thread's EAL
 * arguments, the data plane's mbuf pool and TX drain): defined here, with
 * the struct, so that the data plane calls nothing of the control
 * thread's.
 */
/* True when some port names a PCI device (else routerd adds --no-pci). */
static inline bool
sy_config_has_pci(const struct sy_config *cfg)
{
	unsigned i;

	for (i = 0; i < cfg->n_ports; i++)
		if (cfg->ports[i].pci[0] != '\0')
			return true;
	return false;
}

/* True when some port is a vdev of this driver (devargs "net_af_xdp0,..."
 * for driver "net_af_xdp"). */
static inline bool
sy_config_has_driver(const struct sy_config *cfg, const char *driver)
{
	size_t n = strlen(driver);
	unsigned i;

	for (i = 0; i < cfg->n_ports; i++)
		if (cfg->ports[i].pci[0] == '\0' && strncmp(cfg->ports[i].devargs, driver, n) == 0)
			return true;
	return false;
}

#endif
