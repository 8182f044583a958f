/* SPDX-License-Identifier: BSD-3-Clause */
/* routerd's config file and the EAL command line built from it. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "config/eal_args.h"
#include "tls/tls_cert.h"
#include "sy_config.h"
#include "sy_dataplane.h"
#include "sy_generation.h"

static const char *full_config =
	"{\"workers\": [1, 2], \"idle\": \"adaptive\", \"flows_per_worker\": 1048576, \"tx_drain_us\": 30, \"eal\": [\"--log-level=*:error\"],"
	" \"control_socket\": \"/tmp/x.sock\", \"state_dir\": \"/tmp/state\","
	" \"ports\": [{\"name\": \"client\", \"devargs\": \"net_af_packet0,iface=c0\","
	"              \"ipv4\": [\"198.18.0.1/24\", \"198.18.2.1/24\"], \"ipv6\": [\"2001:2::1/64\"], \"mtu\": 1500},"
	"             {\"name\": \"backend\", \"devargs\": \"net_tap0,iface=b0\", \"ipv4\": [\"198.18.1.1/24\"]}],"
	" \"routes\": [{\"prefix\": \"198.19.0.0/16\", \"via\": \"198.18.1.254\", \"port\": \"backend\"}],"
	" \"listen\": {\"addresses\": [\"198.18.0.1\"], \"http\": 8080, \"https\": 8443},"
	" \"routing_subdomain\": \"apps.example.test\", \"router_name\": \"edge-1\","
	" \"tcp\": {\"congestion_control\": \"newreno\"}}";

static void
test_full_config(void **state)
{
	struct sy_config c;
	char err[256];
	char buf[SY_ADDR_STRLEN];

	assert_int_equal(sy_config_parse(full_config, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_workers, 2);
	assert_int_equal(c.worker_lcores[1], 2);
	assert_int_equal(c.idle, SY_IDLE_ADAPTIVE);
	assert_int_equal(c.flows_per_worker, 1048576);
	assert_int_equal(c.tx_drain_us, 30);
	assert_int_equal(c.n_ports, 2);
	assert_string_equal(c.ports[0].name, "client");
	assert_int_equal(c.ports[0].n_ipv4, 2);
	assert_int_equal(c.ports[0].ipv4[1].prefix_len, 24);
	assert_string_equal(sy_addr_format(&c.ports[0].ipv4[1].addr, buf, sizeof(buf)), "198.18.2.1");
	assert_int_equal(c.ports[0].n_ipv6, 1);
	assert_int_equal(c.ports[0].ipv6[0].prefix_len, 64);
	assert_string_equal(sy_addr_format(&c.ports[0].ipv6[0].addr, buf, sizeof(buf)), "2001:2::1");
	assert_int_equal(c.ports[1].n_ipv6, 0);
	assert_int_equal(c.n_routes, 1);
	assert_int_equal(c.routes[0].port, 1);
	assert_int_equal(c.routes[0].prefix_len, 16);
	assert_int_equal(c.http_port, 8080);
	assert_int_equal(c.https_port, 8443);
	assert_int_equal(c.n_listen, 1);
	assert_string_equal(c.router_name, "edge-1");
	assert_string_equal(c.state_dir, "/tmp/state");
	assert_int_equal(c.tcp_cc, SY_TCP_CC_NEWRENO);
	sy_config_free(&c);
}

/* tx_drain_us "auto" by the ports' kinds; a number is itself. */
static void
test_tx_drain_auto(void **state)
{
	struct sy_config c;

	(void)state;
	memset(&c, 0, sizeof(c));
	c.tx_drain_us = SY_TX_DRAIN_US_AUTO;
	assert_int_equal(sy_tx_drain_us(&c), 0); /* no port */
	c.n_ports = 2;
	snprintf(c.ports[0].devargs, sizeof(c.ports[0].devargs), "net_af_packet0,iface=a");
	snprintf(c.ports[1].devargs, sizeof(c.ports[1].devargs), "net_af_xdp1,iface=b");
	assert_int_equal(sy_tx_drain_us(&c), SY_TX_DRAIN_US_SYSCALL_PORTS);
	snprintf(c.ports[1].devargs, sizeof(c.ports[1].devargs), "net_tap0");
	assert_int_equal(sy_tx_drain_us(&c), SY_TX_DRAIN_US_SYSCALL_PORTS);
	/* A NIC among them: its bursts are doorbells. */
	c.ports[1].devargs[0] = '\0';
	snprintf(c.ports[1].pci, sizeof(c.ports[1].pci), "0000:03:00.0");
	assert_int_equal(sy_tx_drain_us(&c), 0);
	/* Shared memory rings: no system call to share. */
	c.n_ports = 1;
	snprintf(c.ports[0].devargs, sizeof(c.ports[0].devargs), "net_memif0");
	assert_int_equal(sy_tx_drain_us(&c), 0);
	c.tx_drain_us = 30;
	assert_int_equal(sy_tx_drain_us(&c), 30);
	c.tx_drain_us = 0;
	assert_int_equal(sy_tx_drain_us(&c), 0);
}

static void
test_defaults(void **state)
{
	struct sy_config c;
	char err[256];

	assert_int_equal(sy_config_parse("{}", &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_workers, 1);
	assert_int_equal(c.idle, SY_IDLE_BUSY);
	assert_int_equal(c.flows_per_worker, SY_FLOWS_PER_WORKER_DEFAULT);
	assert_int_equal(c.tx_drain_us, SY_TX_DRAIN_US_AUTO);
	assert_int_equal(c.drain_s, SY_DRAIN_S_DEFAULT);
	sy_config_free(&c);
	assert_int_equal(sy_config_parse("{\"tx_drain_us\": \"auto\"}", &c, err, sizeof(err)), 0);
	assert_int_equal(c.tx_drain_us, SY_TX_DRAIN_US_AUTO);
	sy_config_free(&c);
	assert_int_equal(sy_config_parse("{\"tx_drain_us\": 0}", &c, err, sizeof(err)), 0);
	assert_int_equal(c.tx_drain_us, 0);
	sy_config_free(&c);
	assert_int_equal(sy_config_parse("{}", &c, err, sizeof(err)), 0);
	assert_int_equal(c.http_port, 80);
	assert_int_equal(c.https_port, 443);
	assert_int_equal(c.no_route_status, 503);
	assert_int_equal(c.forwarded_headers, SY_FWD_APPEND);
	assert_string_equal(c.router_name, "default");
	assert_string_equal(c.control_socket, "/run/switchyard/routerd.sock");
	assert_int_equal(c.tcp_cc, SY_TCP_CC_CUBIC);
	/* http2: on, with nghttp2's and HAProxy's limits. */
	assert_true(c.h2.enabled);
	assert_int_equal(c.h2.max_concurrent_streams, 100);
	assert_int_equal(c.h2.max_header_list_size, 65536);
	assert_int_equal(c.h2.reset_per_second, 33);
	assert_int_equal(c.h2.idle_timeout_ms, 300000);
	sy_config_free(&c);
	assert_int_equal(sy_config_parse("{\"http2\": {\"enabled\": false, \"max_concurrent_streams\": 7, "
					 "\"flood_burst\": 50}}",
					 &c, err, sizeof(err)),
			 0);
	assert_false(c.h2.enabled);
	assert_int_equal(c.h2.max_concurrent_streams, 7);
	assert_int_equal(c.h2.flood_burst, 50);
	assert_int_equal(c.h2.reset_burst, 100); /* the others keep their defaults */
}

/* Each bad config is rejected with a message naming the key. */
static void
test_errors_name_the_key(void **state)
{
	static const struct {
		const char *json;
		const char *must_contain;
	} cases[] = {
		{ "{\"wokers\": 1}", "wokers: unknown key" },
		{ "{\"workers\": 0}", "workers: count must be" },
		{ "{\"workers\": [1, 1]}", "workers[1]: lcore 1 listed twice" },
		{ "{\"workers\": [0]}", "lcore 0 is the control thread" },
		{ "{\"idle\": \"lazy\"}", "idle: must be" },
		{ "{\"flows_per_worker\": 1023}", "flows_per_worker: must be an integer from 1024 to 16777216" },
		{ "{\"flows_per_worker\": 16777217}", "flows_per_worker: must be an integer from 1024" },
		{ "{\"flows_per_worker\": \"1M\"}", "flows_per_worker: must be an integer" },
		{ "{\"tx_drain_us\": 1001}", "tx_drain_us: must be \"auto\" or an integer from 0 to 1000" },
		{ "{\"tx_drain_us\": -1}", "tx_drain_us: must be \"auto\" or an integer from 0 to 1000" },
		{ "{\"tx_drain_us\": \"fast\"}", "tx_drain_us: must be \"auto\"" },
		{ "{\"ports\": [{\"name\": \"a\", \"devargs\": \"net_null0\", \"ipv4\": [\"198.18.0.1\"]}]}",
		  "ports[0].ipv4[0]" },
		{ "{\"ports\": [{\"name\": \"a\", \"devargs\": \"net_null0\", \"ipv4\": [\"300.1.1.1/24\"]}]}",
		  "ports[0].ipv4[0]" },
		{ "{\"ports\": [{\"name\": \"a\", \"devargs\": \"net_null0\", \"ipv6\": [\"2001:2::zz/64\"]}]}",
		  "ports[0].ipv6[0]: \"2001:2::zz/64\" is not an IPv6 address" },
		{ "{\"ports\": [{\"name\": \"a\", \"devargs\": \"net_null0\", \"ipv6\": [\"2001:2::1/64\", \"2001:2::2/129\"]}]}",
		  "ports[0].ipv6[1]: \"2001:2::2/129\" is not an IPv6 address with a prefix length from 0 to 128" },
		{ "{\"ports\": [{\"name\": \"a\", \"devargs\": \"net_null0\", \"ipv6\": [\"198.18.0.1/24\"]}]}",
		  "ports[0].ipv6[0]: \"198.18.0.1/24\" is not an IPv6 address" },
		{ "{\"ports\": [{\"name\": \"a\", \"devargs\": \"net_null0\", \"ipv6\": [\"2001:2::1\"]}]}",
		  "ports[0].ipv6[0]: \"2001:2::1\" is not an IPv6 address with a prefix length" },
		{ "{\"ports\": [{\"name\": \"a\", \"devargs\": \"net_null0\", \"ipv6\": [\"fe80::1/64\"]}]}",
		  "ports[0].ipv6[0]: \"fe80::1/64\" is a multicast, link-local, loopback or unspecified address" },
		{ "{\"ports\": [{\"name\": \"a\", \"devargs\": \"net_null0\", \"ipv6\": [\"ff02::1/64\"]}]}",
		  "ports[0].ipv6[0]: \"ff02::1/64\" is a multicast" },
		{ "{\"ports\": [{\"name\": \"a\", \"devargs\": \"net_null0\", \"ipv6\": [7]}]}",
		  "ports[0].ipv6[0]: \"(not a string)\"" },
		{ "{\"ports\": [{\"name\": \"a\"}]}", "exactly one of devargs" },
		{ "{\"ports\": [{\"name\": \"a\", \"devargs\": \"x\"}, {\"name\": \"a\", \"devargs\": \"y\"}]}",
		  "defined twice" },
		{ "{\"ports\": [{\"name\": \"a\", \"devargs\": \"x\", \"speed\": 1}]}", "ports[0].speed: unknown key" },
		{ "{\"routes\": [{\"prefix\": \"198.19.0.0/16\", \"port\": \"nope\"}]}",
		  "routes[0].port: no port named \"nope\"" },
		{ "{\"routes\": [{\"prefix\": \"198.19.0.0/40\", \"port\": \"x\"}]}", "routes[0].prefix" },
		{ "{\"routes\": [{\"prefix\": \"2001:2::zz/64\", \"port\": \"x\"}]}",
		  "routes[0].prefix: \"2001:2::zz/64\" is not an IPv4 or IPv6 prefix" },
		{ "{\"routes\": [{\"prefix\": \"2001:2:5::/129\", \"port\": \"x\"}]}",
		  "routes[0].prefix: \"2001:2:5::/129\"" },
		{ "{\"routes\": [{\"prefix\": \"2001:2:5::/64\", \"via\": \"198.18.0.1\", \"port\": \"x\"}]}",
		  "routes[0].via: \"198.18.0.1\" is not an IPv6 address" },
		{ "{\"listen\": {\"http\": 0}}", "listen.http" },
		{ "{\"no_route_status\": 500}", "no_route_status" },
		{ "{\"forwarded_headers\": \"sometimes\"}",
		  "forwarded_headers: must be append, replace, never or if-none" },
		{ "{\"tcp\": {\"congestion_control\": \"bbr\"}}",
		  "tcp.congestion_control: must be \"cubic\" or \"newreno\"" },
		{ "{\"tcp\": {\"cc\": \"cubic\"}}", "tcp.cc: unknown key" },
		{ "{\"tcp\": \"cubic\"}", "tcp: must be an object" },
		{ "{\"http2\": {\"max_concurrent_streams\": 0}}",
		  "http2.max_concurrent_streams: must be an integer from 1 to 1000" },
		{ "{\"http2\": {\"max_frame_size\": 1000}}",
		  "http2.max_frame_size: must be an integer from 16384 to 16777215" },
		{ "{\"http2\": {\"enabled\": 1}}", "http2.enabled: must be true or false" },
		{ "{\"http2\": {\"push\": true}}", "http2.push: unknown key" },
		{ "{\"http2\": true}", "http2: must be an object" },
		{ "{\"lb_all_ejected\": \"open\"}", "lb_all_ejected: must be \"panic\"" },
		{ "{\"lb_max_ejected_percent\": 101}", "lb_max_ejected_percent: must be an integer from 0 to 100" },
		{ "{\"dns\": {\"listen\": \"198.18.9.9\"}}", "dns.listen: not an address of any port" },
		{ "{\"dns\": {\"listen\": \"nope\"}}", "dns.listen: \"nope\" is not an IPv4 or IPv6 address" },
		{ "{\"dns\": {\"listen\": \"2001:2::99\"}}",
		  "dns.listen: 2001:2::99 is not an address of any port (ports[].ipv6)" },
		{ "{\"dns\": {\"listen\": [\"198.18.9.9\", \"198.18.9.8\"]}}",
		  "dns.listen: two IPv4 addresses" },
		{ "{\"dns\": {\"listen\": [\"2001:2::1\", \"2001:2::2\"]}}",
		  "dns.listen: two IPv6 addresses" },
		{ "{\"dns\": {\"listen\": []}}", "dns.listen: must be an address of one of the ports, or a list of two" },
		{ "{\"dns\": {\"listen\": 53}}", "dns.listen: must be an address" },
		{ "{\"dns\": {\"port\": 53}}", "dns.port: unknown key" },
		{ "{\"access_log\": {\"to\": \"relative.log\"}}", "access_log.to: must be" },
		{ "{\"access_log\": {\"to\": \"syslog\", \"format\": \"xml\"}}", "access_log.format: must be" },
		{ "{\"lb_max_ejected_percent\": \"50\"}", "lb_max_ejected_percent: must be" },
		{ "{\"tls\": {\"tickets\": 9}}", "tls.tickets: must be an integer from 0 to 8" },
		{ "{\"tls\": {\"tickets\": \"1\"}}", "tls.tickets: must be an integer" },
		{ "{\"vrrp\": {\"port\": \"c\", \"node\": 0, \"nodes\": 3}}",
		  "vrrp.port: no port named \"c\"" },
		{ "{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", \"ipv4\": [\"198.18.0.1/24\"]}, {\"name\": \"n\", \"devargs\": \"y\"}], \"vrrp\": {\"node\": 0, \"nodes\": 3}}",
		  "vrrp.port: required" },
		{ "{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", \"ipv4\": [\"198.18.0.1/24\"]}, {\"name\": \"n\", \"devargs\": \"y\"}], \"vrrp\": {\"port\": \"n\", \"node\": 0, \"nodes\": 3}}",
		  "vrrp.port: port \"n\" has no address" },
		{ "{\"drain_s\": 3601}", "drain_s: must be an integer from 0 to 3600" },
		{ "{\"drain_s\": \"30\"}", "drain_s: must be an integer" },
		{ "{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", \"ipv4\": [\"198.18.0.1/24\"]}, {\"name\": \"n\", \"devargs\": \"y\"}], \"vrrp\": {\"port\": \"c\", \"nodes\": 3}}",
		  "vrrp: \"node\"" },
		{ "{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", \"ipv4\": [\"198.18.0.1/24\"]}, {\"name\": \"n\", \"devargs\": \"y\"}], \"vrrp\": {\"port\": \"c\", \"node\": 3, \"nodes\": 3}}",
		  "vrrp.node: 3 is not below vrrp.nodes (3)" },
		{ "{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", \"ipv4\": [\"198.18.0.1/24\"]}, {\"name\": \"n\", \"devargs\": \"y\"}], \"vrrp\": {\"port\": \"c\", \"node\": 0, \"nodes\": 17}}",
		  "vrrp.nodes: must be an integer from 1 to 16" },
		{ "{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", \"ipv4\": [\"198.18.0.1/24\"]}, {\"name\": \"n\", \"devargs\": \"y\"}], \"vrrp\": {\"port\": \"c\", \"node\": 0, \"nodes\": 3, \"advert_interval_ms\": 5}}",
		  "vrrp.advert_interval_ms: must be an integer from 10 to 40950" },
		{ "{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", \"ipv4\": [\"198.18.0.1/24\"]}, {\"name\": \"n\", \"devargs\": \"y\"}], \"vrrp\": {\"port\": \"c\", \"node\": 0, \"nodes\": 3, \"advert_interval_ms\": 105}}",
		  "vrrp.advert_interval_ms: 105 is not a multiple of 10" },
		{ "{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", \"ipv4\": [\"198.18.0.1/24\"]}, {\"name\": \"n\", \"devargs\": \"y\"}], \"vrrp\": {\"port\": \"c\", \"node\": 0, \"nodes\": 3, \"vrid_base\": 0}}",
		  "vrrp.vrid_base: must be an integer from 1 to 240" },
		{ "{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", \"ipv4\": [\"198.18.0.1/24\"]}, {\"name\": \"n\", \"devargs\": \"y\"}], \"vrrp\": {\"port\": \"c\", \"node\": 0, \"nodes\": 3, \"vrid_base\": 241}}",
		  "vrrp.vrid_base: must be an integer from 1 to 240" },
		{ "{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", \"ipv4\": [\"198.18.0.1/24\"]}, {\"name\": \"n\", \"devargs\": \"y\"}], \"vrrp\": {\"port\": \"c\", \"node\": 0, \"nodes\": 3, \"preempt\": 1}}",
		  "vrrp.preempt: must be true or false" },
		{ "{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", \"ipv4\": [\"198.18.0.1/24\"]}, {\"name\": \"n\", \"devargs\": \"y\"}], \"vrrp\": {\"port\": \"c\", \"node\": 0, \"nodes\": 3, \"priority\": 100}}",
		  "vrrp.priority: unknown key" },
		{ "{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", \"ipv4\": [\"198.18.0.1/24\"]}, {\"name\": \"n\", \"devargs\": \"y\"}], \"vrrp\": true}",
		  "vrrp: must be an object" },
		{ "{\"workers\": 1,}", "line 1" },
		{ "[1]", "must be a JSON object" },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct sy_config c;
		char err[512] = "";

		if (sy_config_parse(cases[i].json, &c, err, sizeof(err)) != -EINVAL)
			fail_msg("config %s was accepted", cases[i].json);
		if (strstr(err, cases[i].must_contain) == NULL)
			fail_msg("config %s: error \"%s\" does not mention \"%s\"", cases[i].json, err,
				 cases[i].must_contain);
	}
}

/* tls.client_certificates: a good one read whole; a bad policy, CA file or
 * pattern refused with the key and the value. */
static void
write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void
test_client_certificates(void **state)
{
	char dir[] = "/tmp/sy-test-config-XXXXXX", good[64], notpem[64], broken[64], json[1024];
	char *crt = NULL, *key = NULL, *cut;
	struct sy_config c;
	char err[512] = "";
	size_t i;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sy_tls_self_signed("Test", "test client CA", NULL, -60, 3600, &crt, &key), 0);
	snprintf(good, sizeof(good), "%s/ca.pem", dir);
	snprintf(notpem, sizeof(notpem), "%s/notpem.txt", dir);
	snprintf(broken, sizeof(broken), "%s/broken.pem", dir);
	write_file(good, crt);
	write_file(notpem, "not a certificate\n");
	/* A certificate block with its body cut short: not one. */
	cut = strdup(crt);
	assert_non_null(cut);
	memcpy(strstr(cut, "\n") + 1, "AAAA", 4);
	write_file(broken, cut);

	snprintf(json, sizeof(json),
		 "{\"tls\": {\"client_certificates\": {\"policy\": \"Required\", \"ca_file\": \"%s\","
		 " \"allowed_subject_patterns\": [\"^/O=Test/CN=\", \"CN=other$\"]}}}", good);
	if (sy_config_parse(json, &c, err, sizeof(err)) != 0)
		fail_msg("%s refused: %s", json, err);
	assert_int_equal(c.tls_client_cert_policy, SY_CLIENT_CERT_REQUIRED);
	assert_string_equal(c.tls_client_ca_file, good);
	assert_int_equal(c.n_tls_client_subject_patterns, 2);
	assert_string_equal(c.tls_client_subject_patterns[1], "CN=other$");
	sy_config_free(&c);
	snprintf(json, sizeof(json),
		 "{\"tls\": {\"client_certificates\": {\"policy\": \"Optional\", \"ca_file\": \"%s\"}}}",
		 good);
	assert_int_equal(sy_config_parse(json, &c, err, sizeof(err)), 0);
	assert_int_equal(c.tls_client_cert_policy, SY_CLIENT_CERT_OPTIONAL);
	assert_int_equal(c.n_tls_client_subject_patterns, 0);
	sy_config_free(&c);
	assert_int_equal(sy_config_parse("{}", &c, err, sizeof(err)), 0);
	assert_int_equal(c.tls_client_cert_policy, SY_CLIENT_CERT_OFF);
	sy_config_free(&c);

	{
		const struct {
			const char *body; /* inside client_certificates; %s: the good CA file */
			const char *must_contain;
		} cases[] = {
			{ "\"policy\": \"Required\", \"ca_file\": \"%s\", \"verify_depth\": 3",
			  "tls.client_certificates.verify_depth: unknown key" },
			{ "\"policy\": \"required\", \"ca_file\": \"%s\"",
			  "tls.client_certificates.policy: \"required\" is not \"Required\" or \"Optional\"" },
			{ "\"policy\": \"None\", \"ca_file\": \"%s\"",
			  "tls.client_certificates.policy: \"None\" is not" },
			{ "\"ca_file\": \"%s\"", "tls.client_certificates.policy: required" },
			{ "\"policy\": \"Required\"", "tls.client_certificates.ca_file: required" },
			{ "\"policy\": \"Required\", \"ca_file\": \"/nonexistent/ca.pem\"",
			  "tls.client_certificates.ca_file: \"/nonexistent/ca.pem\": cannot read it" },
			{ "\"policy\": \"Required\", \"ca_file\": \"%s\", \"allowed_subject_patterns\": [\"^/CN=ok\", \"(\"]",
			  "tls.client_certificates.allowed_subject_patterns[1]: \"(\" is not a regular expression" },
			{ "\"policy\": \"Required\", \"ca_file\": \"%s\", \"allowed_subject_patterns\": \"CN=x\"",
			  "tls.client_certificates.allowed_subject_patterns: must be a list" },
		};

		for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
			char body[512];

			snprintf(body, sizeof(body), cases[i].body, good);
			snprintf(json, sizeof(json), "{\"tls\": {\"client_certificates\": {%s}}}", body);
			if (sy_config_parse(json, &c, err, sizeof(err)) != -EINVAL)
				fail_msg("config %s was accepted", json);
			if (strstr(err, cases[i].must_contain) == NULL)
				fail_msg("config %s: error \"%s\" does not mention \"%s\"", json, err,
					 cases[i].must_contain);
		}
	}
	{
		const char *files[2] = { notpem, broken };
		const char *why[2] = { "it holds no PEM certificate",
				      "a PEM block in it does not decode as a certificate" };

		for (i = 0; i < 2; i++) {
			char want[128];

			snprintf(json, sizeof(json),
				 "{\"tls\": {\"client_certificates\": {\"policy\": \"Optional\", \"ca_file\": \"%s\"}}}",
				 files[i]);
			snprintf(want, sizeof(want), "tls.client_certificates.ca_file: \"%s\": %s", files[i],
				 why[i]);
			if (sy_config_parse(json, &c, err, sizeof(err)) != -EINVAL)
				fail_msg("config %s was accepted", json);
			if (strstr(err, want) == NULL)
				fail_msg("config %s: error \"%s\" does not mention \"%s\"", json, err, want);
		}
	}
	unlink(good);
	unlink(notpem);
	unlink(broken);
	rmdir(dir);
	free(cut);
	free(crt);
	free(key);
}

/* vrrp: the defaults, and what an operator sets. */
static void
test_vrrp(void **state)
{
	struct sy_config c;
	char err[512] = "";

	(void)state;
	assert_int_equal(sy_config_parse("{}", &c, err, sizeof(err)), 0);
	assert_false(c.vrrp.enabled);
	assert_int_equal(sy_config_parse("{\"ports\": [{\"name\": \"b\", \"devargs\": \"y\", "
					 "\"ipv4\": [\"198.18.1.1/24\"]}, {\"name\": \"c\", "
					 "\"devargs\": \"x\", \"ipv4\": [\"198.18.0.3/24\"]}], "
					 "\"vrrp\": {\"port\": \"c\", \"node\": 1, \"nodes\": 3}}",
					 &c, err, sizeof(err)),
			 0);
	assert_true(c.vrrp.enabled);
	assert_int_equal(c.vrrp.port, 1);
	assert_int_equal(c.vrrp.node, 1);
	assert_int_equal(c.vrrp.nodes, 3);
	assert_int_equal(c.vrrp.advert_ms, 100);
	assert_int_equal(c.vrrp.vrid_base, 1);
	assert_true(c.vrrp.preempt);
	sy_config_free(&c);
	assert_int_equal(sy_config_parse("{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", "
					 "\"ipv4\": [\"198.18.0.3/24\"]}], \"vrrp\": {\"port\": "
					 "\"c\", \"node\": 0, \"nodes\": 1, \"advert_interval_ms\": "
					 "1000, \"vrid_base\": 50, \"preempt\": false}}",
					 &c, err, sizeof(err)),
			 0);
	assert_int_equal(c.vrrp.advert_ms, 1000);
	assert_int_equal(c.vrrp.vrid_base, 50);
	assert_false(c.vrrp.preempt);
	sy_config_free(&c);
	/* An IPv6-only port: VRRPv3 over IPv6 needs no IPv4 address. */
	assert_int_equal(sy_config_parse("{\"ports\": [{\"name\": \"c\", \"devargs\": \"x\", "
					 "\"ipv6\": [\"2001:2::3/64\"]}], \"vrrp\": {\"port\": "
					 "\"c\", \"node\": 0, \"nodes\": 2}}",
					 &c, err, sizeof(err)),
			 0);
	assert_true(c.vrrp.enabled);
	sy_config_free(&c);
}

static bool
has_arg(const struct sy_eal_args *a, const char *s)
{
	int i;

	for (i = 0; i < a->argc; i++)
		if (strcmp(a->argv[i], s) == 0)
			return true;
	return false;
}

static void
test_eal_args(void **state)
{
	struct sy_config c;
	struct sy_eal_args a;
	char err[256];

	assert_int_equal(sy_config_parse(full_config, &c, err, sizeof(err)), 0);
	assert_int_equal(sy_eal_args_build(&c, &a, 0, 2), 0);
	/* No PCI port: the host's NIC must never be probed. */
	assert_true(has_arg(&a, "--no-pci"));
	/* No hugepages: fall back to --no-huge with some memory. */
	assert_true(has_arg(&a, "--no-huge"));
	assert_false(has_arg(&a, "--in-memory"));
	/* 2 CPUs: control on 0, both workers on CPU 1. */
	assert_true(has_arg(&a, "0@0,1@1,2@1"));
	/* af_packet gets a queue pair per worker. */
	assert_true(has_arg(&a, "net_af_packet0,iface=c0,qpairs=2"));
	assert_true(has_arg(&a, "net_tap0,iface=b0"));
	assert_true(has_arg(&a, "--file-prefix"));
	/* The operator's own arguments come last, so they win. */
	assert_string_equal(a.argv[a.argc - 1], "--log-level=*:error");
	sy_eal_args_free(&a);

	/* af_xdp: a socket on a queue of the device per worker, unless the
	 * operator said how many. */
	snprintf(c.ports[1].devargs, sizeof(c.ports[1].devargs), "net_af_xdp1,iface=b0,busy_budget=0");
	assert_int_equal(sy_eal_args_build(&c, &a, 0, 2), 0);
	assert_true(has_arg(&a, "net_af_xdp1,iface=b0,busy_budget=0,queue_count=2"));
	sy_eal_args_free(&a);
	snprintf(c.ports[1].devargs, sizeof(c.ports[1].devargs), "net_af_xdp1,iface=b0,queue_count=1");
	assert_int_equal(sy_eal_args_build(&c, &a, 0, 2), 0);
	assert_true(has_arg(&a, "net_af_xdp1,iface=b0,queue_count=1"));
	sy_eal_args_free(&a);
	snprintf(c.ports[1].devargs, sizeof(c.ports[1].devargs), "net_tap0,iface=b0");

	assert_int_equal(sy_eal_args_build(&c, &a, 64, 2), 0);
	assert_false(has_arg(&a, "--no-huge"));
	assert_true(has_arg(&a, "--in-memory"));
	sy_eal_args_free(&a);
	sy_config_free(&c);

	assert_int_equal(sy_config_parse("{\"ports\": [{\"name\": \"nic\", \"pci\": \"0000:03:00.0\"}]}",
					 &c, err, sizeof(err)), 0);
	assert_int_equal(sy_eal_args_build(&c, &a, 64, 4), 0);
	assert_false(has_arg(&a, "--no-pci"));
	assert_true(has_arg(&a, "0000:03:00.0"));
	sy_eal_args_free(&a);
	sy_config_free(&c);
}

/* A net_memif port facing a traffic generator (perf/pktgen.routerd.json): beside
 * net_af_packet ports, its devargs reach EAL unchanged (memif negotiates its queues with
 * the peer, so no qpairs= is added), --no-pci stays, and a static route may point at it. */
static void
test_memif_port(void **state)
{
	static const char *cfg =
		"{\"workers\": 1, \"ports\": ["
		" {\"name\": \"client\", \"devargs\": \"net_af_packet0,iface=c0\", \"ipv4\": [\"198.18.0.1/24\"]},"
		" {\"name\": \"pktgen\", \"devargs\": \"net_memif0,role=server,id=0,socket=/tmp/m.sock,"
		"mac=02:53:59:00:02:01\", \"ipv4\": [\"198.18.2.1/24\"], \"mtu\": 1500}],"
		" \"routes\": [{\"prefix\": \"198.18.128.0/17\", \"via\": \"198.18.2.2\", \"port\": \"pktgen\"}],"
		" \"listen\": {\"addresses\": [\"198.18.0.1\"]}}";
	struct sy_config c;
	struct sy_eal_args a;
	char err[256];

	(void)state;
	assert_int_equal(sy_config_parse(cfg, &c, err, sizeof(err)), 0);
	assert_int_equal(c.n_ports, 2);
	assert_int_equal(c.n_routes, 1);
	assert_int_equal(c.routes[0].port, 1);
	assert_int_equal(sy_eal_args_build(&c, &a, 0, 2), 0);
	assert_true(has_arg(&a, "--no-pci"));
	assert_true(has_arg(&a, "net_af_packet0,iface=c0,qpairs=1"));
	assert_true(has_arg(&a, "net_memif0,role=server,id=0,socket=/tmp/m.sock,mac=02:53:59:00:02:01"));
	sy_eal_args_free(&a);
	sy_config_free(&c);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_full_config),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_tx_drain_auto),
		cmocka_unit_test(test_errors_name_the_key),
		cmocka_unit_test(test_client_certificates),
		cmocka_unit_test(test_vrrp),
		cmocka_unit_test(test_eal_args),
		cmocka_unit_test(test_memif_port),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
