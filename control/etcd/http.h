/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The HTTP half of the etcd client: JSON POSTs to etcd's gRPC gateway with
 * libcurl, one request at a time, and the /v3/watch stream.
 *
 * Why the gateway and libcurl: Debian has no maintained C client for etcd's
 * v3 API (the v3 API is gRPC; the C clients around are v2-only or
 * unmaintained, and gRPC's C core is a large dependency for seven calls).
 * The gateway, which every etcd since 3.3 serves under /v3/, speaks the same
 * messages as JSON over HTTP/1.1, and libcurl (libcurl4-openssl-dev) is the
 * HTTP client every Debian system has.
 *
 * Blocking calls with timeouts: only the etcd threads (control/etcd/link.h)
 * make them, never the control thread or a worker.
 */
#ifndef SY_ETCD_HTTP_H
#define SY_ETCD_HTTP_H

#include <stdatomic.h>
#include <stddef.h>

#include <jansson.h>

/* For https:// endpoints (store.etcd's ca_file, cert_file, key_file): PEM
 * files, NULL or "" when not given. etcd's certificate is always verified,
 * its chain and that it names the endpoint's address: against ca_file, else
 * the system's trust store. */
struct sy_etcd_tls {
	const char *ca_file;
	const char *cert_file, *key_file; /* the client certificate, both or neither */
};

struct sy_etcd_http {
	void *curl;       /* CURL *, one per thread */
	atomic_int *stop; /* set: calls end within a second (routerd stops) */
	struct sy_etcd_tls tls;
	char curl_err[256]; /* CURLOPT_ERRORBUFFER (CURL_ERROR_SIZE) */
};

/* tls's strings must outlive h (they are read at each call). */
int sy_etcd_http_init(struct sy_etcd_http *h, atomic_int *stop, const struct sy_etcd_tls *tls);
void sy_etcd_http_fini(struct sy_etcd_http *h);
/* POST body to endpoint + path; the response's JSON in *resp. 0, or -1 with
 * what went wrong in err (connection or TLS, in libcurl's words, HTTP status,
 * not JSON, or the gateway's own error text). */
int sy_etcd_http_post(struct sy_etcd_http *h, const char *endpoint, const char *path,
		      const json_t *body, long timeout_ms, json_t **resp, char *err, size_t errlen);
/* POST body and read the response as a stream of JSON messages, one a line,
 * calling on_msg for each, until the server ends it, on_msg returns nonzero,
 * or h->stop is set. Returns 0 when on_msg or stop ended it, -1 with err
 * otherwise. */
int sy_etcd_http_stream(struct sy_etcd_http *h, const char *endpoint, const char *path,
			const json_t *body, int (*on_msg)(const json_t *msg, void *arg), void *arg,
			char *err, size_t errlen);

#endif
