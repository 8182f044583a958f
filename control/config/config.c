/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routerd's config file (JSON). Strict: an unknown key is an error, because a
 * misspelt key silently ignored is how a router ends up serving the wrong thing.
 * Every error names the key and what was wrong with it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "etcd/store_config.h"
#include "fleet/scheduler.h"
#include "kinds/kinds.h"
#include "kinds/label_selector.h"
#include "sy_config.h"
#include "config/config_client_certs.h"
#include "config/config_h2.h"
#include "config/config_error.h"
#include "config/config_vrrp.h"
#include "sy_generation.h"

int
sy_config_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}
#define fail sy_config_fail /* this file's short name for it */

static int
copy_string(json_t *v, const char *key, char *dst, size_t dstlen, char *err, size_t errlen)
{
	const char *s;

	if (!json_is_string(v))
		return fail(err, errlen, "%s: must be a string", key);
	s = json_string_value(v);
	if (strlen(s) >= dstlen)
		return fail(err, errlen, "%s: longer than %zu characters", key, dstlen - 1);
	strcpy(dst, s);
	return 0;
}

/*
 * "ingress_controller": what an IngressClass's spec.controller must say for
 * the class to be ours. Kubernetes wants a domain-prefixed path of at most
 * 250 characters ("example.com/ingress"): a class naming anything else
 * could never be applied, so neither may the router's own setting.
 */
static int
parse_ingress_controller(json_t *v, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *s = json_string_value(v), *slash;
	char domain[254];

	if (s == NULL || strlen(s) > 250)
		return fail(err, errlen, "ingress_controller: must be a string of at most 250 characters");
	slash = strchr(s, '/');
	if (slash == NULL || slash == s || slash[1] == '\0' || (size_t)(slash - s) >= sizeof(domain))
		return fail(err, errlen,
			    "ingress_controller: \"%s\" is not a domain-prefixed path (such as "
			    "\"example.com/ingress-controller\")", s);
	memcpy(domain, s, (size_t)(slash - s));
	domain[slash - s] = '\0';
	if (!sy_dns1123_subdomain(domain))
		return fail(err, errlen,
			    "ingress_controller: \"%s\": the domain \"%s\" is not a lower-case DNS "
			    "name", s, domain);
	strcpy(cfg->ingress_controller, s);
	return 0;
}

static int
parse_port_number(json_t *v, const char *key, uint16_t *out, char *err, size_t errlen)
{
	if (!json_is_integer(v) || json_integer_value(v) < 1 || json_integer_value(v) > 65535)
		return fail(err, errlen, "%s: must be an integer from 1 to 65535", key);
	*out = (uint16_t)json_integer_value(v);
	return 0;
}

static int
parse_workers(json_t *v, struct sy_config *cfg, char *err, size_t errlen)
{
	size_t i;
	json_t *e;

	if (json_is_integer(v)) {
		json_int_t n = json_integer_value(v);

		if (n < 1 || n > SY_MAX_WORKERS)
			return fail(err, errlen, "workers: count must be from 1 to %d", SY_MAX_WORKERS);
		cfg->n_workers = (unsigned)n;
		for (i = 0; i < cfg->n_workers; i++)
			cfg->worker_lcores[i] = (unsigned)i + 1; /* lcore 0 is the control thread */
		return 0;
	}
	if (!json_is_array(v) || json_array_size(v) == 0 || json_array_size(v) > SY_MAX_WORKERS)
		return fail(err, errlen, "workers: must be a count or a list of 1 to %d lcore ids",
			    SY_MAX_WORKERS);
	json_array_foreach(v, i, e) {
		size_t j;

		if (!json_is_integer(e) || json_integer_value(e) < 1 ||
		    json_integer_value(e) >= 128)
			return fail(err, errlen,
				    "workers[%zu]: lcore id must be an integer from 1 to 127 "
				    "(lcore 0 is the control thread)", i);
		cfg->worker_lcores[i] = (unsigned)json_integer_value(e);
		for (j = 0; j < i; j++)
			if (cfg->worker_lcores[j] == cfg->worker_lcores[i])
				return fail(err, errlen, "workers[%zu]: lcore %u listed twice", i,
					    cfg->worker_lcores[i]);
	}
	cfg->n_workers = (unsigned)json_array_size(v);
	return 0;
}

/* ports[].ipv4 or ports[].ipv6 (key k): a list of "ADDRESS/LEN" of that
 * family; an IPv6 one must be unicast and global (the port's link-local
 * address comes from its MAC). */
static int
parse_port_addrs(const json_t *val, const char *k, int family, struct sy_port_addr *out, unsigned *n,
		 char *err, size_t errlen)
{
	static const uint8_t loopback_or_any[15]; /* ::1 and :: */
	const char *fam = family == AF_INET ? "IPv4" : "IPv6";
	size_t i;
	json_t *a;

	if (!json_is_array(val) || json_array_size(val) > SY_MAX_PORT_ADDRS)
		return fail(err, errlen, "%s: must be a list of at most %d CIDRs", k, SY_MAX_PORT_ADDRS);
	json_array_foreach(val, i, a) {
		struct sy_port_addr *pa = &out[i];
		const char *text = json_string_value(a);
		const uint8_t *v6 = pa->addr.v6;

		if (text == NULL || strchr(text, '/') == NULL ||
		    sy_prefix_parse(text, &pa->addr, &pa->prefix_len) < 0 || pa->addr.family != family)
			return fail(err, errlen,
				    "%s[%zu]: \"%s\" is not an %s address with a prefix length from 0 to "
				    "%d, like \"%s\"",
				    k, i, text ? text : "(not a string)", fam, family == AF_INET ? 32 : 128,
				    family == AF_INET ? "198.18.0.1/24" : "2001:2::1/64");
		if (family == AF_INET6 &&
		    (v6[0] == 0xff || (v6[0] == 0xfe && (v6[1] & 0xc0) == 0x80) ||
		     (memcmp(v6, loopback_or_any, sizeof(loopback_or_any)) == 0 && v6[15] <= 1)))
			return fail(err, errlen,
				    "%s[%zu]: \"%s\" is a multicast, link-local, loopback or unspecified "
				    "address; give the port a unicast one",
				    k, i, text);
	}
	*n = (unsigned)json_array_size(val);
	return 0;
}

static int
parse_port(json_t *v, size_t idx, struct sy_config *cfg, char *err, size_t errlen)
{
	struct sy_port_config *p = &cfg->ports[idx];
	const char *key;
	json_t *val;
	char where[48];
	int rc;

	snprintf(where, sizeof(where), "ports[%zu]", idx);
	if (!json_is_object(v))
		return fail(err, errlen, "%s: must be an object", where);
	json_object_foreach(v, key, val) {
		char k[96];

		snprintf(k, sizeof(k), "%s.%s", where, key);
		if (strcmp(key, "name") == 0) {
			rc = copy_string(val, k, p->name, sizeof(p->name), err, errlen);
		} else if (strcmp(key, "devargs") == 0) {
			rc = copy_string(val, k, p->devargs, sizeof(p->devargs), err, errlen);
		} else if (strcmp(key, "pci") == 0) {
			rc = copy_string(val, k, p->pci, sizeof(p->pci), err, errlen);
		} else if (strcmp(key, "mtu") == 0) {
			if (!json_is_integer(val) || json_integer_value(val) < 576 ||
			    json_integer_value(val) > 9702)
				return fail(err, errlen, "%s: must be an integer from 576 to 9702", k);
			p->mtu = (uint16_t)json_integer_value(val);
			rc = 0;
		} else if (strcmp(key, "ipv4") == 0) {
			rc = parse_port_addrs(val, k, AF_INET, p->ipv4, &p->n_ipv4, err, errlen);
		} else if (strcmp(key, "ipv6") == 0) {
			rc = parse_port_addrs(val, k, AF_INET6, p->ipv6, &p->n_ipv6, err, errlen);
		} else {
			return fail(err, errlen, "%s: unknown key (known: name, devargs, pci, ipv4, ipv6, mtu)", k);
		}
		if (rc < 0)
			return rc;
	}
	if (p->name[0] == '\0')
		return fail(err, errlen, "%s.name: required", where);
	if ((p->devargs[0] == '\0') == (p->pci[0] == '\0'))
		return fail(err, errlen, "%s: exactly one of devargs (a vdev) or pci (a NIC) is required",
			    where);
	if (sy_config_port_index(cfg, p->name) != -1)
		return fail(err, errlen, "%s.name: port \"%s\" is defined twice", where, p->name);
	return 0;
}

static int
parse_route(json_t *v, size_t idx, struct sy_config *cfg, char *err, size_t errlen)
{
	struct sy_static_route *r = &cfg->routes[idx];
	json_t *prefix = json_object_get(v, "prefix");
	json_t *via = json_object_get(v, "via");
	json_t *port = json_object_get(v, "port");
	const char *key;
	json_t *val;
	int pi;

	if (!json_is_object(v))
		return fail(err, errlen, "routes[%zu]: must be an object", idx);
	json_object_foreach(v, key, val)
		if (strcmp(key, "prefix") && strcmp(key, "via") && strcmp(key, "port"))
			return fail(err, errlen, "routes[%zu].%s: unknown key (known: prefix, via, port)",
				    idx, key);
	if (!json_is_string(prefix))
		return fail(err, errlen, "routes[%zu].prefix: required, a CIDR like \"198.19.0.0/16\" "
			    "or \"2001:2:5::/64\"", idx);
	if (sy_prefix_parse(json_string_value(prefix), &r->prefix, &r->prefix_len) < 0)
		return fail(err, errlen, "routes[%zu].prefix: \"%s\" is not an IPv4 or IPv6 prefix "
			    "(an address, then a length up to 32 or 128)", idx, json_string_value(prefix));
	if (via != NULL && !json_is_string(via))
		return fail(err, errlen, "routes[%zu].via: must be an address", idx);
	if (via != NULL && (sy_addr_parse(json_string_value(via), &r->via) < 0 ||
			    r->via.family != r->prefix.family))
		return fail(err, errlen, "routes[%zu].via: \"%s\" is not an %s address (the prefix's family)",
			    idx, json_string_value(via), r->prefix.family == AF_INET6 ? "IPv6" : "IPv4");
	if (!json_is_string(port))
		return fail(err, errlen, "routes[%zu].port: required, the name of a port", idx);
	pi = sy_config_port_index(cfg, json_string_value(port));
	if (pi < 0)
		return fail(err, errlen, "routes[%zu].port: no port named \"%s\"", idx,
			    json_string_value(port));
	r->port = (unsigned)pi;
	return 0;
}

/* "metrics": "ADDR:PORT", an IPv4 address of this host (e.g. 127.0.0.1:9180). */
static int
parse_metrics(const json_t *val, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *s = json_string_value(val), *colon;
	char addr[64];
	struct sy_addr a;
	char *end;
	long port;

	if (s == NULL || (colon = strrchr(s, ':')) == NULL || (size_t)(colon - s) >= sizeof(addr))
		return fail(err, errlen, "metrics: must be \"ADDRESS:PORT\", e.g. \"127.0.0.1:9180\"");
	memcpy(addr, s, (size_t)(colon - s));
	addr[colon - s] = '\0';
	port = strtol(colon + 1, &end, 10);
	if (sy_addr_parse(addr, &a) < 0 || a.family != AF_INET)
		return fail(err, errlen, "metrics: \"%s\" is not an IPv4 address", addr);
	if (*end != '\0' || end == colon + 1 || port < 1 || port > 65535)
		return fail(err, errlen, "metrics: port \"%s\" is not 1-65535", colon + 1);
	cfg->metrics_addr = a.v4;
	cfg->metrics_port = (uint16_t)port;
	return 0;
}

/* "dns": {"listen": "ADDR" | ["ADDR", "ADDR"]}: the addresses the data
 * plane answers DNS on (port 53, UDP): at most one of each family, each one
 * of the ports' (checked once they are all read). */
static int
parse_dns(const json_t *val, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *key;
	const json_t *v, *listen, *one;
	size_t i;

	if (!json_is_object(val))
		return fail(err, errlen, "dns: must be an object, e.g. {\"listen\": \"198.18.0.1\"}");
	json_object_foreach((json_t *)val, key, v) {
		if (strcmp(key, "listen") != 0)
			return fail(err, errlen, "dns.%s: unknown key (known: listen)", key);
	}
	listen = json_object_get(val, "listen");
	if (json_is_string(listen)) {
		one = listen;
		listen = NULL;
	} else if (json_is_array(listen) && json_array_size(listen) >= 1 &&
		   json_array_size(listen) <= 2) {
		one = NULL;
	} else {
		return fail(err, errlen, "dns.listen: must be an address of one of the ports, or a "
					 "list of two (one IPv4, one IPv6)");
	}
	for (i = 0; one != NULL || i < json_array_size(listen); i++) {
		const json_t *e = one != NULL ? one : json_array_get(listen, i);
		const char *a = json_string_value(e);
		struct sy_addr addr;

		if (a == NULL || sy_addr_parse(a, &addr) < 0)
			return fail(err, errlen, "dns.listen: \"%s\" is not an IPv4 or IPv6 address",
				    a ? a : "(not a string)");
		if (addr.family == AF_INET) {
			if (cfg->dns_listen != 0)
				return fail(err, errlen, "dns.listen: two IPv4 addresses (at most one "
							 "of each family)");
			cfg->dns_listen = addr.v4;
		} else {
			if (cfg->dns_listen6_on)
				return fail(err, errlen, "dns.listen: two IPv6 addresses (at most one "
							 "of each family)");
			memcpy(cfg->dns_listen6, addr.v6, 16);
			cfg->dns_listen6_on = true;
		}
		if (one != NULL)
			break;
	}
	return 0;
}

/* Each dns.listen address is one of the ports' addresses: the workers only
 * take what is sent to theirs. */
static int
check_dns(const struct sy_config *cfg, char *err, size_t errlen)
{
	unsigned i, j;
	bool v4 = cfg->dns_listen == 0, v6 = !cfg->dns_listen6_on;

	for (i = 0; i < cfg->n_ports; i++) {
		for (j = 0; j < cfg->ports[i].n_ipv4; j++)
			if (cfg->ports[i].ipv4[j].addr.v4 == cfg->dns_listen)
				v4 = true;
		for (j = 0; j < cfg->ports[i].n_ipv6; j++)
			if (memcmp(cfg->ports[i].ipv6[j].addr.v6, cfg->dns_listen6, 16) == 0)
				v6 = true;
	}
	if (!v4)
		return fail(err, errlen, "dns.listen: not an address of any port (ports[].ipv4)");
	if (!v6) {
		char a[SY_ADDR_STRLEN];
		struct sy_addr x = sy_addr_v6(cfg->dns_listen6);

		sy_addr_format(&x, a, sizeof(a));
		return fail(err, errlen, "dns.listen: %s is not an address of any port (ports[].ipv6)",
			    a);
	}
	return 0;
}

/* "access_log": {"to": "/path" | "syslog", "format": "haproxy" | "json"}. */
static int
parse_access_log(const json_t *val, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *key, *to, *format;
	const json_t *v;

	if (!json_is_object(val))
		return fail(err, errlen, "access_log: must be an object, e.g. {\"to\": \"syslog\"}");
	json_object_foreach((json_t *)val, key, v) {
		if (strcmp(key, "to") != 0 && strcmp(key, "format") != 0)
			return fail(err, errlen, "access_log.%s: unknown key (known: to, format)", key);
	}
	to = json_string_value(json_object_get(val, "to"));
	if (to == NULL || (strcmp(to, "syslog") != 0 && to[0] != '/'))
		return fail(err, errlen,
			    "access_log.to: must be \"syslog\" or an absolute file path");
	if (strlen(to) >= sizeof(cfg->access_log_to))
		return fail(err, errlen, "access_log.to: longer than %zu characters",
			    sizeof(cfg->access_log_to) - 1);
	format = json_string_value(json_object_get(val, "format"));
	if (json_object_get(val, "format") != NULL &&
	    (format == NULL || (strcmp(format, "haproxy") != 0 && strcmp(format, "json") != 0)))
		return fail(err, errlen, "access_log.format: must be \"haproxy\" or \"json\"");
	snprintf(cfg->access_log_to, sizeof(cfg->access_log_to), "%s", to);
	cfg->access_log_json = format != NULL && strcmp(format, "json") == 0;
	return 0;
}

/* "proxy_protocol": true | false | {"from": ["CIDR", ...]}: a PROXY protocol
 * header before every connection's bytes, or only before those from the
 * prefixes given (a front balancer's; the rest come straight). */
static int
parse_proxy_protocol(json_t *val, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *key;
	json_t *v, *from;
	size_t i;

	if (json_is_boolean(val)) {
		cfg->proxy_protocol = json_is_true(val);
		cfg->n_pp_from = 0;
		return 0;
	}
	if (!json_is_object(val))
		return fail(err, errlen,
			    "listen.proxy_protocol: must be true, false or {\"from\": [\"CIDR\", ...]}");
	json_object_foreach(val, key, v)
		if (strcmp(key, "from") != 0)
			return fail(err, errlen, "listen.proxy_protocol.%s: unknown key (known: from)", key);
	from = json_object_get(val, "from");
	if (!json_is_array(from) || json_array_size(from) == 0 ||
	    json_array_size(from) > SY_PP_FROM_MAX)
		return fail(err, errlen,
			    "listen.proxy_protocol.from: must be a list of 1 to %d addresses or CIDRs",
			    SY_PP_FROM_MAX);
	json_array_foreach(from, i, v)
		if (!json_is_string(v) ||
		    sy_prefix_parse(json_string_value(v), &cfg->pp_from[i], &cfg->pp_from_len[i]) < 0)
			return fail(err, errlen,
				    "listen.proxy_protocol.from[%zu]: \"%s\" is not an address or CIDR", i,
				    json_is_string(v) ? json_string_value(v) : "?");
	cfg->n_pp_from = (unsigned)json_array_size(from);
	cfg->proxy_protocol = true;
	return 0;
}

static int
parse_listen(json_t *v, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *key;
	json_t *val;
	int rc = 0;

	if (!json_is_object(v))
		return fail(err, errlen, "listen: must be an object");
	json_object_foreach(v, key, val) {
		if (strcmp(key, "http") == 0) {
			rc = parse_port_number(val, "listen.http", &cfg->http_port, err, errlen);
		} else if (strcmp(key, "https") == 0) {
			rc = parse_port_number(val, "listen.https", &cfg->https_port, err, errlen);
		} else if (strcmp(key, "addresses") == 0) {
			size_t i;
			json_t *a;

			if (!json_is_array(val) || json_array_size(val) > SY_MAX_LISTEN)
				return fail(err, errlen, "listen.addresses: must be a list of at most %d addresses",
					    SY_MAX_LISTEN);
			json_array_foreach(val, i, a)
				if (!json_is_string(a) || sy_addr_parse(json_string_value(a), &cfg->listen[i]) < 0)
					return fail(err, errlen, "listen.addresses[%zu]: not an IP address", i);
			cfg->n_listen = (unsigned)json_array_size(val);
		} else if (strcmp(key, "proxy_protocol") == 0) {
			rc = parse_proxy_protocol(val, cfg, err, errlen);
		} else {
			return fail(err, errlen,
				    "listen.%s: unknown key (known: addresses, http, https, proxy_protocol)",
				    key);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* "tls": {"default_certificate": PEM file, "backend_ca": PEM file, "ocsp_dir": dir,
 * "ocsp_rescan_s": N, "ciphers": ..., "ciphersuites": ..., "min_version": "1.2" | "1.3",
 * "ticket_key_rotate_s": N, "tickets": N, "client_certificates": {...}} */
static int
parse_tls(json_t *val, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *key;
	json_t *v;
	int rc = 0;

	if (!json_is_object(val))
		return fail(err, errlen, "tls: must be an object");
	json_object_foreach(val, key, v) {
		if (strcmp(key, "default_certificate") == 0) {
			rc = copy_string(v, "tls.default_certificate", cfg->tls_default_certificate,
					 sizeof(cfg->tls_default_certificate), err, errlen);
		} else if (strcmp(key, "backend_ca") == 0) {
			rc = copy_string(v, "tls.backend_ca", cfg->tls_backend_ca,
					 sizeof(cfg->tls_backend_ca), err, errlen);
		} else if (strcmp(key, "ocsp_dir") == 0) {
			rc = copy_string(v, "tls.ocsp_dir", cfg->tls_ocsp_dir,
					 sizeof(cfg->tls_ocsp_dir), err, errlen);
		} else if (strcmp(key, "ocsp_rescan_s") == 0) {
			if (!json_is_integer(v) || json_integer_value(v) < 1 ||
			    json_integer_value(v) > 86400)
				return fail(err, errlen,
					    "tls.ocsp_rescan_s: must be an integer from 1 to 86400");
			cfg->tls_ocsp_rescan_s = (uint32_t)json_integer_value(v);
		} else if (strcmp(key, "ciphers") == 0) {
			rc = copy_string(v, "tls.ciphers", cfg->tls_ciphers, sizeof(cfg->tls_ciphers),
					 err, errlen);
		} else if (strcmp(key, "ciphersuites") == 0) {
			rc = copy_string(v, "tls.ciphersuites", cfg->tls_ciphersuites,
					 sizeof(cfg->tls_ciphersuites), err, errlen);
		} else if (strcmp(key, "min_version") == 0) {
			const char *s = json_string_value(v);

			if (s != NULL && strcmp(s, "1.2") == 0)
				cfg->tls_min_version = 0x0303;
			else if (s != NULL && strcmp(s, "1.3") == 0)
				cfg->tls_min_version = 0x0304;
			else
				return fail(err, errlen,
					    "tls.min_version: must be \"1.2\" or \"1.3\" (1.0 and 1.1 "
					    "are never offered, RFC 8996)");
		} else if (strcmp(key, "ticket_key_rotate_s") == 0) {
			if (!json_is_integer(v) || json_integer_value(v) < 60 ||
			    json_integer_value(v) > 7 * 86400)
				return fail(err, errlen,
					    "tls.ticket_key_rotate_s: must be an integer from 60 to 604800");
			cfg->tls_ticket_rotate_s = (uint32_t)json_integer_value(v);
		} else if (strcmp(key, "tickets") == 0) {
			if (!json_is_integer(v) || json_integer_value(v) < 0 ||
			    json_integer_value(v) > SY_TLS_TICKETS_MAX)
				return fail(err, errlen, "tls.tickets: must be an integer from 0 to %d",
					    SY_TLS_TICKETS_MAX);
			cfg->tls_tickets = (uint8_t)json_integer_value(v);
		} else if (strcmp(key, "client_certificates") == 0) {
			rc = sy_config_parse_client_certs(v, cfg, err, errlen);
		} else {
			return fail(err, errlen,
				    "tls.%s: unknown key (known: default_certificate, backend_ca, "
				    "ocsp_dir, ocsp_rescan_s, ciphers, ciphersuites, min_version, "
				    "ticket_key_rotate_s, tickets, client_certificates)", key);
		}
		if (rc < 0)
			return rc;
	}
	return 0;
}

/* "tcp": {"congestion_control": "cubic" | "newreno"}: the proxy mode's
 * terminating TCP (dataplane/tcp/tcp_cc.h); the splice path's endpoints
 * run their own. */
static int
parse_tcp(json_t *val, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *key;
	json_t *v;

	if (!json_is_object(val))
		return fail(err, errlen, "tcp: must be an object");
	json_object_foreach(val, key, v) {
		if (strcmp(key, "congestion_control") == 0) {
			const char *s = json_string_value(v);

			if (s != NULL && strcmp(s, "cubic") == 0)
				cfg->tcp_cc = SY_TCP_CC_CUBIC;
			else if (s != NULL && strcmp(s, "newreno") == 0)
				cfg->tcp_cc = SY_TCP_CC_NEWRENO;
			else
				return fail(err, errlen,
					    "tcp.congestion_control: must be \"cubic\" or \"newreno\"");
		} else {
			return fail(err, errlen, "tcp.%s: unknown key (known: congestion_control)", key);
		}
	}
	return 0;
}

static int
parse_top(json_t *root, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *key;
	json_t *val;
	json_t *ports, *routes;
	size_t i;
	int rc = 0;

	if (!json_is_object(root))
		return fail(err, errlen, "the config must be a JSON object");
	/* Ports first: static routes refer to them by name. */
	ports = json_object_get(root, "ports");
	if (ports != NULL) {
		json_t *p;

		if (!json_is_array(ports) || json_array_size(ports) > SY_MAX_PORTS)
			return fail(err, errlen, "ports: must be a list of at most %d ports", SY_MAX_PORTS);
		json_array_foreach(ports, i, p) {
			if ((rc = parse_port(p, i, cfg, err, errlen)) < 0)
				return rc;
			cfg->n_ports++;
		}
	}
	json_object_foreach(root, key, val) {
		if (strcmp(key, "ports") == 0) {
			continue;
		} else if (strcmp(key, "workers") == 0) {
			rc = parse_workers(val, cfg, err, errlen);
		} else if (strcmp(key, "idle") == 0) {
			if (json_is_string(val) && strcmp(json_string_value(val), "busy") == 0)
				cfg->idle = SY_IDLE_BUSY;
			else if (json_is_string(val) && strcmp(json_string_value(val), "adaptive") == 0)
				cfg->idle = SY_IDLE_ADAPTIVE;
			else
				return fail(err, errlen, "idle: must be \"busy\" or \"adaptive\"");
		} else if (strcmp(key, "flows_per_worker") == 0) {
			if (!json_is_integer(val) ||
			    json_integer_value(val) < SY_FLOWS_PER_WORKER_MIN ||
			    json_integer_value(val) > SY_FLOWS_PER_WORKER_MAX)
				return fail(err, errlen,
					    "flows_per_worker: must be an integer from %u to %u "
					    "(connection records per worker)",
					    SY_FLOWS_PER_WORKER_MIN, SY_FLOWS_PER_WORKER_MAX);
			cfg->flows_per_worker = (uint32_t)json_integer_value(val);
		} else if (strcmp(key, "drain_s") == 0) {
			if (!json_is_integer(val) || json_integer_value(val) < 0 ||
			    json_integer_value(val) > SY_DRAIN_S_MAX)
				return fail(err, errlen,
					    "drain_s: must be an integer from 0 to %u (seconds a SIGTERM "
					    "lets connections in flight finish; 0: exit at once)",
					    SY_DRAIN_S_MAX);
			cfg->drain_s = (uint32_t)json_integer_value(val);
		} else if (strcmp(key, "tx_drain_us") == 0) {
			if (json_is_string(val) && strcmp(json_string_value(val), "auto") == 0)
				cfg->tx_drain_us = SY_TX_DRAIN_US_AUTO;
			else if (!json_is_integer(val) || json_integer_value(val) < 0 ||
				 json_integer_value(val) > SY_TX_DRAIN_US_MAX)
				return fail(err, errlen,
					    "tx_drain_us: must be \"auto\" or an integer from 0 to %u "
					    "(microseconds a worker may hold a busy port's frames to send "
					    "them in one burst)",
					    SY_TX_DRAIN_US_MAX);
			else
				cfg->tx_drain_us = (uint32_t)json_integer_value(val);
		} else if (strcmp(key, "eal") == 0) {
			json_t *a;

			if (!json_is_array(val) || json_array_size(val) > SY_MAX_EAL_ARGS)
				return fail(err, errlen, "eal: must be a list of at most %d strings",
					    SY_MAX_EAL_ARGS);
			json_array_foreach(val, i, a) {
				if (!json_is_string(a))
					return fail(err, errlen, "eal[%zu]: must be a string", i);
				cfg->eal_args[cfg->n_eal_args++] = strdup(json_string_value(a));
			}
		} else if (strcmp(key, "control_socket") == 0) {
			rc = copy_string(val, key, cfg->control_socket, sizeof(cfg->control_socket), err,
					 errlen);
		} else if (strcmp(key, "metrics") == 0) {
			rc = parse_metrics(val, cfg, err, errlen);
		} else if (strcmp(key, "access_log") == 0) {
			rc = parse_access_log(val, cfg, err, errlen);
		} else if (strcmp(key, "dns") == 0) {
			rc = parse_dns(val, cfg, err, errlen);
		} else if (strcmp(key, "state_dir") == 0) {
			rc = copy_string(val, key, cfg->state_dir, sizeof(cfg->state_dir), err, errlen);
		} else if (strcmp(key, "routes") == 0 || strcmp(key, "vrrp") == 0) {
			continue; /* after the loop: needs every port */
		} else if (strcmp(key, "listen") == 0) {
			rc = parse_listen(val, cfg, err, errlen);
		} else if (strcmp(key, "routing_subdomain") == 0) {
			rc = copy_string(val, key, cfg->routing_subdomain, sizeof(cfg->routing_subdomain),
					 err, errlen);
		} else if (strcmp(key, "router_name") == 0) {
			rc = copy_string(val, key, cfg->router_name, sizeof(cfg->router_name), err, errlen);
		} else if (strcmp(key, "gateway_controller") == 0) {
			if (!json_is_string(val) || json_string_length(val) == 0 ||
			    strchr(json_string_value(val), '/') == NULL)
				return fail(err, errlen,
					    "gateway_controller: must be a domain-prefixed path, e.g. "
					    "\"switchyard.io/gateway-controller\"");
			rc = copy_string(val, key, cfg->gateway_controller,
					 sizeof(cfg->gateway_controller), err, errlen);
		} else if (strcmp(key, "allow_wildcard_routes") == 0) {
			if (!json_is_boolean(val))
				return fail(err, errlen, "allow_wildcard_routes: must be true or false");
			cfg->allow_wildcard_routes = json_is_true(val);
		} else if (strcmp(key, "scheduler") == 0) {
			if (!json_is_boolean(val))
				return fail(err, errlen, "scheduler: must be true or false");
			cfg->scheduler = json_is_true(val);
		} else if (strcmp(key, "scheduler_strategy") == 0) {
			if (!json_is_string(val) || sy_sched_strategy_by_name(json_string_value(val)) == NULL)
				return fail(err, errlen,
					    "scheduler_strategy: must be \"round-robin\" or \"least-loaded\"");
			snprintf(cfg->scheduler_strategy, sizeof(cfg->scheduler_strategy), "%s",
				 json_string_value(val));
		} else if (strcmp(key, "scheduler_retry_s") == 0) {
			if (!json_is_integer(val) || json_integer_value(val) < 1 ||
			    json_integer_value(val) > 3600)
				return fail(err, errlen, "scheduler_retry_s: must be an integer from 1 to 3600");
			cfg->scheduler_retry_s = (uint32_t)json_integer_value(val);
		} else if (strcmp(key, "route_label_selector") == 0) {
			rc = copy_string(val, key, cfg->route_label_selector,
					 sizeof(cfg->route_label_selector), err, errlen);
		} else if (strcmp(key, "namespace_label_selector") == 0) {
			rc = copy_string(val, key, cfg->namespace_label_selector,
					 sizeof(cfg->namespace_label_selector), err, errlen);
		} else if (strcmp(key, "ingressroute_root_namespaces") == 0) {
			json_t *a;

			if (!json_is_array(val) || json_array_size(val) > SY_MAX_ROOT_NAMESPACES)
				return fail(err, errlen,
					    "ingressroute_root_namespaces: must be a list of at most %d "
					    "namespaces", SY_MAX_ROOT_NAMESPACES);
			json_array_foreach(val, i, a) {
				if (!json_is_string(a) || json_string_length(a) == 0)
					return fail(err, errlen,
						    "ingressroute_root_namespaces[%zu]: must be a namespace name", i);
				cfg->ingressroute_root_namespaces[cfg->n_ingressroute_root_namespaces++] =
					strdup(json_string_value(a));
			}
		} else if (strcmp(key, "ingress_controller") == 0) {
			rc = parse_ingress_controller(val, cfg, err, errlen);
		} else if (strcmp(key, "forwarded_headers") == 0) {
			int pol = json_is_string(val) ? sy_fwd_policy_parse(json_string_value(val)) : -1;

			if (pol < 0)
				return fail(err, errlen,
					    "forwarded_headers: must be append, replace, never or if-none");
			cfg->forwarded_headers = (uint8_t)pol;
		} else if (strcmp(key, "tls") == 0) {
			rc = parse_tls(val, cfg, err, errlen);
		} else if (strcmp(key, "tcp") == 0) {
			rc = parse_tcp(val, cfg, err, errlen);
		} else if (strcmp(key, "http2") == 0) {
			rc = sy_config_parse_h2(val, cfg, err, errlen);
		} else if (strcmp(key, "lb_all_ejected") == 0) {
			const char *s = json_string_value(val);

			if (s != NULL && strcmp(s, "panic") == 0)
				cfg->lb_fail_closed = false;
			else if (s != NULL && strcmp(s, "fail") == 0)
				cfg->lb_fail_closed = true;
			else
				return fail(err, errlen,
					    "lb_all_ejected: must be \"panic\" (use the endpoints anyway) "
					    "or \"fail\" (503)");
		} else if (strcmp(key, "lb_max_ejected_percent") == 0) {
			if (!json_is_integer(val) || json_integer_value(val) < 0 ||
			    json_integer_value(val) > 100)
				return fail(err, errlen,
					    "lb_max_ejected_percent: must be an integer from 0 to 100");
			cfg->lb_max_ejected_percent = (uint8_t)json_integer_value(val);
		} else if (strcmp(key, "store") == 0) {
			rc = sy_store_config_parse(val, &cfg->store, err, errlen);
		} else if (strcmp(key, "no_route_status") == 0) {
			if (!json_is_integer(val) ||
			    (json_integer_value(val) != 503 && json_integer_value(val) != 404))
				return fail(err, errlen, "no_route_status: must be 503 or 404");
			cfg->no_route_status = (uint16_t)json_integer_value(val);
		} else {
			return fail(err, errlen,
				    "%s: unknown key (known: workers, idle, flows_per_worker, drain_s, tx_drain_us, eal, control_socket, metrics, state_dir, "
				    "ports, routes, listen, routing_subdomain, router_name, gateway_controller, no_route_status, "
				    "forwarded_headers, tls, tcp, http2, lb_all_ejected, lb_max_ejected_percent, access_log, dns, "
				    "allow_wildcard_routes, route_label_selector, namespace_label_selector, "
				    "ingressroute_root_namespaces, scheduler, scheduler_strategy, "
				    "scheduler_retry_s, store, vrrp, ingress_controller)",
				    key);
		}
		if (rc < 0)
			return rc;
	}
	{
		/* Shard selectors: refuse one the router could not apply. */
		const char *sels[2] = { cfg->route_label_selector, cfg->namespace_label_selector };
		const char *names[2] = { "route_label_selector", "namespace_label_selector" };
		struct sy_label_selector *ls;
		char why[200];

		for (i = 0; i < 2; i++) {
			if (sy_label_selector_parse(sels[i], &ls, why, sizeof(why)) < 0)
				return fail(err, errlen, "%s: %s", names[i], why);
			sy_label_selector_free(ls);
		}
	}
	routes = json_object_get(root, "routes");
	if (routes != NULL) {
		json_t *r;

		if (!json_is_array(routes) || json_array_size(routes) > SY_MAX_STATIC_ROUTES)
			return fail(err, errlen, "routes: must be a list of at most %d routes",
				    SY_MAX_STATIC_ROUTES);
		json_array_foreach(routes, i, r) {
			if ((rc = parse_route(r, i, cfg, err, errlen)) < 0)
				return rc;
			cfg->n_routes++;
		}
	}
	return 0;
}

static void
set_defaults(struct sy_config *cfg)
{
	memset(cfg, 0, sizeof(*cfg));
	cfg->n_workers = 1;
	cfg->worker_lcores[0] = 1;
	cfg->idle = SY_IDLE_BUSY;
	cfg->flows_per_worker = SY_FLOWS_PER_WORKER_DEFAULT;
	cfg->drain_s = SY_DRAIN_S_DEFAULT;
	cfg->tx_drain_us = SY_TX_DRAIN_US_AUTO;
	strcpy(cfg->control_socket, "/run/switchyard/routerd.sock");
	strcpy(cfg->state_dir, "/var/lib/switchyard");
	cfg->http_port = 80;
	cfg->https_port = 443;
	strcpy(cfg->routing_subdomain, "apps.switchyard.local");
	strcpy(cfg->router_name, "default");
	strcpy(cfg->ingress_controller, SY_INGRESS_CONTROLLER_DEFAULT);
	strcpy(cfg->gateway_controller, "switchyard.io/gateway-controller");
	strcpy(cfg->scheduler_strategy, "round-robin");
	cfg->scheduler_retry_s = 10;
	sy_store_config_defaults(&cfg->store);
	cfg->no_route_status = 503;
	cfg->lb_max_ejected_percent = 50;
	cfg->forwarded_headers = SY_FWD_APPEND;
	/* The OpenShift router's "intermediate" TLS profile (Mozilla's). */
	strcpy(cfg->tls_ciphers, "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
				 "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
				 "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305");
	strcpy(cfg->tls_ciphersuites,
	       "TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256");
	cfg->tls_min_version = 0x0303;
	cfg->tls_ticket_rotate_s = 3600;
	cfg->tls_tickets = 1;
	cfg->tls_ocsp_rescan_s = 60;
	cfg->tcp_cc = SY_TCP_CC_CUBIC;
	sy_config_h2_defaults(&cfg->h2);
}

int
sy_config_parse(const char *text, struct sy_config *cfg, char *err, size_t errlen)
{
	json_error_t jerr;
	json_t *root;
	int rc;

	set_defaults(cfg);
	root = json_loads(text, JSON_REJECT_DUPLICATES, &jerr);
	if (root == NULL)
		return fail(err, errlen, "line %d column %d: %s", jerr.line, jerr.column, jerr.text);
	rc = parse_top(root, cfg, err, errlen);
	if (rc == 0)
		rc = check_dns(cfg, err, errlen);
	if (rc == 0)
		rc = sy_config_parse_vrrp(json_object_get(root, "vrrp"), cfg, err, errlen);
	json_decref(root);
	if (rc < 0)
		sy_config_free(cfg);
	return rc;
}

int
sy_config_load(const char *path, struct sy_config *cfg, char *err, size_t errlen)
{
	char inner[400];
	FILE *f = fopen(path, "r");
	char *text;
	long n;
	int rc;

	if (f == NULL)
		return fail(err, errlen, "%s: %s", path, strerror(errno));
	if (fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || n > (1 << 24) ||
	    fseek(f, 0, SEEK_SET) != 0) {
		fclose(f);
		return fail(err, errlen, "%s: cannot read (or larger than 16 MiB)", path);
	}
	text = malloc((size_t)n + 1);
	if (text == NULL || fread(text, 1, (size_t)n, f) != (size_t)n) {
		free(text);
		fclose(f);
		return fail(err, errlen, "%s: read failed", path);
	}
	text[n] = '\0';
	fclose(f);
	rc = sy_config_parse(text, cfg, inner, sizeof(inner));
	free(text);
	if (rc < 0)
		return fail(err, errlen, "%s: %s", path, inner);
	return 0;
}

void
sy_config_free(struct sy_config *cfg)
{
	unsigned i;

	for (i = 0; i < cfg->n_eal_args; i++)
		free(cfg->eal_args[i]);
	cfg->n_eal_args = 0;
	for (i = 0; i < cfg->n_ingressroute_root_namespaces; i++)
		free(cfg->ingressroute_root_namespaces[i]);
	cfg->n_ingressroute_root_namespaces = 0;
	for (i = 0; i < cfg->n_tls_client_subject_patterns; i++)
		free(cfg->tls_client_subject_patterns[i]);
	cfg->n_tls_client_subject_patterns = 0;
}

int
sy_config_port_index(const struct sy_config *cfg, const char *name)
{
	unsigned i;

	for (i = 0; i < cfg->n_ports; i++)
		if (strcmp(cfg->ports[i].name, name) == 0)
			return (int)i;
	return -1;
}
