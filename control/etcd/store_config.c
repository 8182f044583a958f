/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "config/config_error.h"
#include "etcd/store_config.h"

#define fail sy_config_fail /* this file's short name for it */

void
sy_store_config_defaults(struct sy_store_config *sc)
{
	memset(sc, 0, sizeof(*sc));
	strcpy(sc->prefix, "/switchyard/");
	sc->lease_ttl_s = 5;
}

/* "http://HOST:PORT" or "https://HOST:PORT" with nothing after the port: the
 * gateway's paths are appended to it. 0 (plain) or 1 (TLS), or -EINVAL. */
static int
check_endpoint(const char *s, char *err, size_t errlen)
{
	const char *host, *colon;
	int tls;
	char *end;
	long port;

	if (strncmp(s, "http://", 7) == 0)
		tls = 0, host = s + 7;
	else if (strncmp(s, "https://", 8) == 0)
		tls = 1, host = s + 8;
	else
		return fail(err, errlen, "store.etcd.endpoints: \"%s\": must start with http:// "
			    "or https://", s);
	colon = strrchr(host, ':');
	if (colon == NULL || colon == host)
		return fail(err, errlen, "store.etcd.endpoints: \"%s\": must be %s://ADDRESS:PORT",
			    s, tls ? "https" : "http");
	port = strtol(colon + 1, &end, 10);
	if (*end != '\0' || port < 1 || port > 65535)
		return fail(err, errlen, "store.etcd.endpoints: \"%s\": the port must be a number "
			    "from 1 to 65535 and end the URL", s);
	return tls;
}

/* store.etcd.KEY, a PEM file for TLS to etcd, into dst. Checked here, at
 * start, because libcurl would only read it at the first connection, and
 * its error then is a store that never connects rather than a config
 * error naming the key. */
static int
tls_file(const json_t *etcd, const char *key, bool tls, char *dst, size_t dstlen, char *err,
	 size_t errlen)
{
	const json_t *v = json_object_get(etcd, key);
	const char *path;
	struct stat st;
	int fd;

	if (v == NULL)
		return 0;
	if (!tls)
		return fail(err, errlen, "store.etcd.%s: only with https:// endpoints", key);
	path = json_string_value(v);
	if (path == NULL || path[0] == '\0')
		return fail(err, errlen, "store.etcd.%s: must be the path of a PEM file", key);
	if (strlen(path) >= dstlen)
		return fail(err, errlen, "store.etcd.%s: longer than %zu characters", key, dstlen - 1);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return fail(err, errlen, "store.etcd.%s: %s: %s", key, path, strerror(errno));
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
		close(fd);
		return fail(err, errlen, "store.etcd.%s: %s: not a regular file", key, path);
	}
	close(fd);
	strcpy(dst, path);
	return 0;
}

int
sy_store_config_parse(const json_t *val, struct sy_store_config *sc, char *err, size_t errlen)
{
	const json_t *etcd = json_object_get(val, "etcd"), *eps, *v;
	const char *key;
	int scheme, tls = 0;
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
		    strcmp(key, "lease_ttl_s") != 0 && strcmp(key, "ca_file") != 0 &&
		    strcmp(key, "cert_file") != 0 && strcmp(key, "key_file") != 0)
			return fail(err, errlen, "store.etcd.%s: unknown key (known: endpoints, "
				    "prefix, lease_ttl_s, ca_file, cert_file, key_file)", key);
	eps = json_object_get(etcd, "endpoints");
	if (!json_is_array(eps) || json_array_size(eps) == 0)
		return fail(err, errlen, "store.etcd.endpoints: must be a non-empty list of "
			    "\"http://ADDRESS:PORT\" or \"https://ADDRESS:PORT\"");
	if (json_array_size(eps) > SY_ETCD_MAX_ENDPOINTS)
		return fail(err, errlen, "store.etcd.endpoints: at most %d endpoints",
			    SY_ETCD_MAX_ENDPOINTS);
	json_array_foreach(eps, i, v) {
		if (!json_is_string(v))
			return fail(err, errlen, "store.etcd.endpoints[%zu]: must be a string", i);
		if (json_string_length(v) >= sizeof(sc->endpoints[0]))
			return fail(err, errlen, "store.etcd.endpoints[%zu]: longer than %zu characters",
				    i, sizeof(sc->endpoints[0]) - 1);
		scheme = check_endpoint(json_string_value(v), err, errlen);
		if (scheme < 0)
			return -EINVAL;
		/* One TLS setup serves every endpoint: a list that mixes
		 * would send the store in the clear to some members. */
		if (i > 0 && scheme != tls)
			return fail(err, errlen, "store.etcd.endpoints: \"%s\" and \"%s\" mix http:// "
				    "and https:// (every endpoint must use the same one)",
				    sc->endpoints[0], json_string_value(v));
		tls = scheme;
		snprintf(sc->endpoints[i], sizeof(sc->endpoints[i]), "%s", json_string_value(v));
	}
	sc->n_endpoints = (unsigned)json_array_size(eps);
	if (tls_file(etcd, "ca_file", tls, sc->ca_file, sizeof(sc->ca_file), err, errlen) < 0 ||
	    tls_file(etcd, "cert_file", tls, sc->cert_file, sizeof(sc->cert_file), err, errlen) < 0 ||
	    tls_file(etcd, "key_file", tls, sc->key_file, sizeof(sc->key_file), err, errlen) < 0)
		return -EINVAL;
	if ((sc->cert_file[0] != '\0') != (sc->key_file[0] != '\0'))
		return fail(err, errlen, "store.etcd.%s: needs store.etcd.%s too (a client "
			    "certificate and its key go together)",
			    sc->cert_file[0] ? "cert_file" : "key_file",
			    sc->cert_file[0] ? "key_file" : "cert_file");
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
