/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config_error.h"
#include "etcd/store_config.h"

#define fail sy_config_fail /* this file's short name for it */

void
sy_store_config_defaults(struct sy_store_config *sc)
{
	memset(sc, 0, sizeof(*sc));
	strcpy(sc->prefix, "/switchyard/");
	sc->lease_ttl_s = 5;
}

/* "http://HOST:PORT" with nothing after the port: the gateway's paths are
 * appended to it. https would need client certificates we do not configure
 * yet, so it is refused rather than half supported. */
static int
check_endpoint(const char *s, char *err, size_t errlen)
{
	const char *host = s + 7, *colon;
	char *end;
	long port;

	if (strncmp(s, "http://", 7) != 0)
		return fail(err, errlen, "store.etcd.endpoints: \"%s\": must start with http:// "
			    "(https is not supported yet)", s);
	colon = strrchr(host, ':');
	if (colon == NULL || colon == host)
		return fail(err, errlen, "store.etcd.endpoints: \"%s\": must be http://ADDRESS:PORT", s);
	port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || port < 1 || port > 65535)
		return fail(err, errlen, "store.etcd.endpoints: \"%s\": the port must be a number "
			    "from 1 to 65535 and end the URL", s);
	return 0;
}

int
sy_store_config_parse(const json_t *val, struct sy_store_config *sc, char *err, size_t errlen)
{
	const json_t *etcd = json_object_get(val, "etcd"), *eps, *v;
	const char *key;
	size_t i;

	if (!json_is_object(val))
		return fail(err, errlen, "store: must be an object like {\"etcd\": {\"endpoints\": "
			    "[\"http://ADDRESS:PORT\"]}}");
	json_object_foreach((json_t *)val, key, v)
		if (strcmp(key, "etcd") != 0)
			return fail(err, errlen, "store.%s: unknown key (known: etcd; without "
				    "\"store\" the local journal is used)", key);
	if (!json_is_object(etcd))
		return fail(err, errlen, "store.etcd: must be an object with \"endpoints\"");
	json_object_foreach((json_t *)etcd, key, v)
		if (strcmp(key, "endpoints") != 0 && strcmp(key, "prefix") != 0 &&
		    strcmp(key, "lease_ttl_s") != 0)
			return fail(err, errlen, "store.etcd.%s: unknown key (known: endpoints, "
				    "prefix, lease_ttl_s)", key);
	eps = json_object_get(etcd, "endpoints");
	if (!json_is_array(eps) || json_array_size(eps) == 0)
		return fail(err, errlen, "store.etcd.endpoints: must be a non-empty list of "
			    "\"http://ADDRESS:PORT\"");
	if (json_array_size(eps) > SY_ETCD_MAX_ENDPOINTS)
		return fail(err, errlen, "store.etcd.endpoints: at most %d endpoints",
			    SY_ETCD_MAX_ENDPOINTS);
	json_array_foreach(eps, i, v) {
		if (!json_is_string(v))
			return fail(err, errlen, "store.etcd.endpoints[%zu]: must be a string", i);
		if (json_string_length(v) >= sizeof(sc->endpoints[0]))
			return fail(err, errlen, "store.etcd.endpoints[%zu]: longer than %zu characters",
				    i, sizeof(sc->endpoints[0]) - 1);
		if (check_endpoint(json_string_value(v), err, errlen) < 0)
			return -EINVAL;
		snprintf(sc->endpoints[i], sizeof(sc->endpoints[i]), "%s", json_string_value(v));
	}
	sc->n_endpoints = (unsigned)json_array_size(eps);
	v = json_object_get(etcd, "prefix");
	if (v != NULL) {
		const char *p = json_string_value(v);
		size_t len = p ? strlen(p) : 0;

		/* The prefix is a key range's start: "/a/" must not also take
		 * "/a-b/...", hence the closing slash. */
		if (p == NULL || len < 2 || p[0] != '/' || p[len - 1] != '/' ||
		    len >= sizeof(sc->prefix))
			return fail(err, errlen, "store.etcd.prefix: must be a string that starts and "
				    "ends with '/' (like \"/switchyard/\"), at most %zu characters",
				    sizeof(sc->prefix) - 1);
		strcpy(sc->prefix, p);
	}
	v = json_object_get(etcd, "lease_ttl_s");
	if (v != NULL) {
		if (!json_is_integer(v) || json_integer_value(v) < 2 || json_integer_value(v) > 60)
			return fail(err, errlen, "store.etcd.lease_ttl_s: must be an integer from 2 to 60");
		sc->lease_ttl_s = (uint32_t)json_integer_value(v);
	}
	sc->etcd = true;
	return 0;
}
