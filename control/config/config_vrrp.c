/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The `vrrp` key of routerd's config (VIP failover, include/sy_vrrp.h):
 *
 *   "vrrp": {"port": "client", "node": 0, "nodes": 3,
 *            "advert_interval_ms": 100, "vrid_base": 1, "preempt": true}
 *
 * Read after the ports (it names one). Every routerd sharing a Router's VIPs
 * has the same nodes, interval and vrid_base, and its own node.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "config/config_error.h"
#include "config/config_vrrp.h"
#include "sy_vrrp.h"

/* An integer key in [lo, hi], or the default when absent. */
static int
int_key(const json_t *o, const char *key, long lo, long hi, long dflt, long *out, char *err,
	size_t errlen)
{
	const json_t *v = json_object_get(o, key);

	if (v == NULL) {
		*out = dflt;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < lo || json_integer_value(v) > hi)
		return sy_config_fail(err, errlen, "vrrp.%s: must be an integer from %ld to %ld", key, lo, hi);
	*out = (long)json_integer_value(v);
	return 0;
}

int
sy_config_parse_vrrp(const json_t *v, struct sy_config *cfg, char *err, size_t errlen)
{
	static const char *const known[] = { "port", "node", "nodes", "advert_interval_ms",
					     "vrid_base", "preempt", NULL };
	struct sy_vrrp_config *c = &cfg->vrrp;
	const char *key, *port;
	const json_t *val;
	long nodes, node, ms, base;
	int pi, rc;
	size_t i;

	memset(c, 0, sizeof(*c));
	if (v == NULL)
		return 0;
	if (!json_is_object(v))
		return sy_config_fail(err, errlen,
			     "vrrp: must be an object, e.g. {\"port\": \"client\", \"node\": 0, \"nodes\": 3}");
	json_object_foreach((json_t *)v, key, val) {
		for (i = 0; known[i] != NULL && strcmp(known[i], key) != 0; i++)
			;
		if (known[i] == NULL)
			return sy_config_fail(err, errlen,
				     "vrrp.%s: unknown key (known: port, node, nodes, advert_interval_ms, "
				     "vrid_base, preempt)",
				     key);
	}
	port = json_string_value(json_object_get(v, "port"));
	if (port == NULL)
		return sy_config_fail(err, errlen, "vrrp.port: required, the name of the port the VIPs live on");
	pi = sy_config_port_index(cfg, port);
	if (pi < 0)
		return sy_config_fail(err, errlen, "vrrp.port: no port named \"%s\"", port);
	if (cfg->ports[pi].n_ipv4 == 0 && cfg->ports[pi].n_ipv6 == 0)
		return sy_config_fail(err, errlen,
			     "vrrp.port: port \"%s\" has no address (its first IPv4 one is the IPv4 "
			     "adverts' source; IPv6 adverts come from its link-local address)", port);
	if (json_object_get(v, "nodes") == NULL || json_object_get(v, "node") == NULL)
		return sy_config_fail(err, errlen,
			     "vrrp: \"node\" (this routerd, from 0) and \"nodes\" (how many share "
			     "the VIPs) are required");
	if ((rc = int_key(v, "nodes", 1, SY_VRRP_NODES_MAX, 0, &nodes, err, errlen)) < 0 ||
	    (rc = int_key(v, "node", 0, SY_VRRP_NODES_MAX - 1, 0, &node, err, errlen)) < 0 ||
	    (rc = int_key(v, "advert_interval_ms", 10, 40950, SY_VRRP_ADVERT_MS_DEFAULT, &ms, err,
			  errlen)) < 0 ||
	    (rc = int_key(v, "vrid_base", 1, 256 - SY_VRRP_VIPS_MAX, 1, &base, err, errlen)) < 0)
		return rc;
	if (node >= nodes)
		return sy_config_fail(err, errlen, "vrrp.node: %ld is not below vrrp.nodes (%ld)", node, nodes);
	if (ms % 10 != 0)
		return sy_config_fail(err, errlen,
			     "vrrp.advert_interval_ms: %ld is not a multiple of 10 (adverts carry "
			     "centiseconds)", ms);
	val = json_object_get(v, "preempt");
	if (val != NULL && !json_is_boolean(val))
		return sy_config_fail(err, errlen, "vrrp.preempt: must be true or false");
	c->enabled = true;
	c->port = (unsigned)pi;
	c->node = (uint8_t)node;
	c->nodes = (uint8_t)nodes;
	c->advert_ms = (uint16_t)ms;
	c->vrid_base = (uint8_t)base;
	c->preempt = val == NULL || json_is_true(val);
	return 0;
}
