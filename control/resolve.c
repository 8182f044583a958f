/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * resolve: what would the live generation do with a request for this URL? It
 * runs the same lookups a worker runs (sy_gen_find_vhost, sy_vhost_match_path)
 * on the same generation, so the answer is what traffic gets.
 */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "router.h"
#include "sy_generation.h"

static const char *const tls_names[] = {
	[SY_TLS_NONE] = "none",
	[SY_TLS_EDGE] = "edge",
	[SY_TLS_REENCRYPT] = "reencrypt",
	[SY_TLS_PASSTHROUGH] = "passthrough",
};

/* Split "scheme://authority/path?query" without copying. */
struct url_parts {
	char scheme[16];
	char host[512];
	char path[2048];
};

static int
parse_url(const char *url, struct url_parts *u)
{
	const char *p = strstr(url, "://");
	const char *auth, *slash;
	size_t n;

	snprintf(u->scheme, sizeof(u->scheme), "http");
	if (p != NULL) {
		n = (size_t)(p - url);
		if (n == 0 || n >= sizeof(u->scheme))
			return -1;
		memcpy(u->scheme, url, n);
		u->scheme[n] = '\0';
		auth = p + 3;
	} else {
		auth = url;
	}
	slash = auth + strcspn(auth, "/?#");
	n = (size_t)(slash - auth);
	if (n == 0 || n >= sizeof(u->host))
		return -1;
	memcpy(u->host, auth, n);
	u->host[n] = '\0';
	if (strchr(u->host, '@') != NULL) /* user info is not part of the host */
		memmove(u->host, strchr(u->host, '@') + 1, strlen(strchr(u->host, '@') + 1) + 1);
	snprintf(u->path, sizeof(u->path), "%s%s", *slash == '/' ? "" : "/", slash);
	return 0;
}

static json_t *
pool_json(const struct sy_pool *pool, json_t **endpoints)
{
	json_t *services = json_array();
	uint32_t i;
	char buf[SY_ADDR_STRLEN];

	*endpoints = json_array();
	for (i = 0; i < pool->n_services; i++) {
		uint64_t w = 0;
		uint32_t k;

		for (k = 0; k < pool->n_endpoints; k++)
			if (pool->endpoints[k].service == i)
				w += pool->endpoints[k].weight;
		json_array_append_new(services,
				      json_pack("{s:s, s:s, s:i, s:i, s:f}", "namespace",
						pool->services[i].ns, "name", pool->services[i].name,
						"weight", (int)pool->services[i].weight, "endpoints",
						(int)pool->services[i].n_endpoints, "share",
						pool->total_weight ? (double)w / (double)pool->total_weight : 0.0));
	}
	for (i = 0; i < pool->n_endpoints; i++) {
		const struct sy_endpoint *e = &pool->endpoints[i];
		char svc[300];

		snprintf(svc, sizeof(svc), "%s/%s", pool->services[e->service].ns,
			 pool->services[e->service].name);
		json_array_append_new(*endpoints,
				      json_pack("{s:s, s:i, s:s, s:i, s:f}", "address",
						sy_addr_format(&e->addr, buf, sizeof(buf)), "port",
						(int)e->port, "service", svc, "weight", (int)e->weight,
						"share",
						pool->total_weight ? (double)e->weight / (double)pool->total_weight
								   : 0.0));
	}
	return services;
}

json_t *
sy_ops_resolve(struct sy_router *r, const json_t *req)
{
	const char *url = json_string_value(json_object_get(req, "url"));
	const char *method = json_string_value(json_object_get(req, "method"));
	const json_t *headers = json_object_get(req, "headers");
	struct sy_generation *g = sy_gen_acquire(&r->slot);
	const struct sy_vhost *vh;
	const struct sy_rule *rule;
	struct url_parts u;
	const char *host, *key;
	json_t *reply, *val, *endpoints;
	char reason[700];

	if (url == NULL)
		return sy_err_reply1("bad_request", NULL, "url", "resolve needs \"url\"");
	if (parse_url(url, &u) < 0)
		return sy_err_reply1("bad_request", NULL, "url",
				     "cannot parse \"%s\" as a URL like http://host/path", url);
	if (headers != NULL && !json_is_object(headers))
		return sy_err_reply1("bad_request", NULL, "headers", "must be an object of name: value");
	host = u.host;
	json_object_foreach((json_t *)headers, key, val)
		if (strcasecmp(key, "host") == 0 && json_is_string(val))
			host = json_string_value(val); /* a Host header wins, as on the wire */
	reply = json_pack("{s:b, s:I, s:s, s:s, s:s, s:s, s:s}", "ok", 1, "generation",
			  (json_int_t)(g ? g->id : 0), "url", url, "scheme", u.scheme, "host", host,
			  "path", u.path, "method", method ? method : "GET");
	vh = sy_gen_find_vhost(g, host, strlen(host));
	rule = vh ? sy_vhost_match_path(vh, u.path, strlen(u.path)) : NULL;
	if (rule == NULL) {
		if (vh == NULL)
			snprintf(reason, sizeof(reason), "no route serves host \"%.*s\"",
				 (int)sy_host_normalize_len(host, strlen(host)), host);
		else
			snprintf(reason, sizeof(reason), "host \"%s\" has no rule for path \"%s\"",
				 vh->host, u.path);
		json_object_set_new(reply, "match", json_false());
		json_object_set_new(reply, "object", json_null());
		json_object_set_new(reply, "kind", json_null());
		json_object_set_new(reply, "action", json_string("none"));
		json_object_set_new(reply, "services", json_array());
		json_object_set_new(reply, "status", json_integer(g ? g->no_route_status : 503));
		json_object_set_new(reply, "reason", json_string(reason));
		if (vh != NULL)
			json_object_set_new(reply, "vhost", json_string(vh->host));
		return reply;
	}
	json_object_set_new(reply, "match", json_true());
	json_object_set_new(reply, "vhost", json_string(vh->host));
	json_object_set_new(reply, "mode", json_string(vh->mode == SY_MODE_SPLICE ? "splice" : "proxy"));
	json_object_set_new(reply, "tls", json_string(tls_names[vh->tls]));
	if (vh->mode == SY_MODE_PROXY) {
		json_object_set_new(reply, "binding", json_string("request"));
		json_object_set_new(reply, "note",
				    json_string("TLS termination needs the proxy mode, which this "
						"router does not have yet: connections to this host "
						"are not served"));
	} else if (vh->bind_by_first_path) {
		json_object_set_new(reply, "binding", json_string("first-request-path"));
		json_object_set_new(reply, "note",
				    json_string("spliced: the first request's path picks the rule "
						"for the whole connection (per-request routing needs "
						"the proxy mode)"));
	} else {
		json_object_set_new(reply, "binding", json_string("connection"));
	}
	json_object_set_new(reply, "rule",
			    json_pack("{s:s, s:s}", "match",
				      rule->match == SY_PATH_EXACT ? "exact" : "prefix", "path", rule->path));
	json_object_set_new(reply, "kind", json_string(rule->kind));
	json_object_set_new(reply, "object", json_string(rule->object));
	json_object_set_new(reply, "action", json_string("backend"));
	json_object_set_new(reply, "services", pool_json(&g->pools[rule->pool], &endpoints));
	json_object_set_new(reply, "endpoints", endpoints);
	if (g->pools[rule->pool].total_weight == 0) {
		/* OpenShift answers 503 when no backend can take the request. */
		json_object_set_new(reply, "status", json_integer(503));
		json_object_set_new(reply, "reason",
				    json_string("the pool has no endpoint with a weight above 0"));
	} else {
		json_object_set_new(reply, "status", json_null());
	}
	return reply;
}
