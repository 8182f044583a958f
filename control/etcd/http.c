/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>

#include "etcd/http.h"

#define CONNECT_TIMEOUT_MS 1000L

struct buf {
	char *p;
	size_t len, cap;
	int overflow;
};

static int
buf_add(struct buf *b, const char *p, size_t n)
{
	if (b->len + n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 4096;
		char *q;

		while (cap < b->len + n + 1)
			cap *= 2;
		/* A range of every object can be large; a line of the watch
		 * stream is one batch of events. 256 MiB is far past both. */
		if (cap > (256u << 20)) {
			b->overflow = 1;
			return -1;
		}
		q = realloc(b->p, cap);
		if (q == NULL)
			return -1;
		b->p = q;
		b->cap = cap;
	}
	memcpy(b->p + b->len, p, n);
	b->len += n;
	b->p[b->len] = '\0';
	return 0;
}

static size_t
collect(char *p, size_t size, size_t nmemb, void *arg)
{
	return buf_add(arg, p, size * nmemb) < 0 ? 0 : size * nmemb;
}

_Static_assert(sizeof(((struct sy_etcd_http *)0)->curl_err) >= CURL_ERROR_SIZE,
	       "CURLOPT_ERRORBUFFER needs CURL_ERROR_SIZE bytes");

int
sy_etcd_http_init(struct sy_etcd_http *h, atomic_int *stop, const struct sy_etcd_tls *tls)
{
	h->stop = stop;
	h->tls = *tls;
	h->curl_err[0] = '\0';
	h->curl = curl_easy_init();
	return h->curl ? 0 : -1;
}

void
sy_etcd_http_fini(struct sy_etcd_http *h)
{
	if (h->curl != NULL)
		curl_easy_cleanup(h->curl);
	h->curl = NULL;
}

/* Called about once a second by libcurl during a transfer: a nonzero
 * return aborts it, so that routerd's shutdown never waits for a timeout. */
static int
stopping(void *arg, curl_off_t dt, curl_off_t dn, curl_off_t ut, curl_off_t un)
{
	return atomic_load((atomic_int *)arg) ? 1 : 0;
}

static struct curl_slist *
prepare(struct sy_etcd_http *h, const char *url, const char *text)
{
	struct curl_slist *hdrs = curl_slist_append(NULL, "Content-Type: application/json");
	CURL *c = h->curl;

	curl_easy_reset(c);
	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_HTTPHEADER, hdrs);
	curl_easy_setopt(c, CURLOPT_POSTFIELDS, text);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, CONNECT_TIMEOUT_MS);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L); /* threads: no SIGALRM for timeouts */
	curl_easy_setopt(c, CURLOPT_PROXY, "");    /* never an http_proxy from the environment */
	curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
	curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, stopping);
	curl_easy_setopt(c, CURLOPT_XFERINFODATA, h->stop);
	/* libcurl's own words for a failure ("SSL certificate problem: unable
	 * to get local issuer certificate"), where curl_easy_strerror only
	 * has the code's generic text. */
	h->curl_err[0] = '\0';
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, h->curl_err);
	/* The defaults, said outright: etcd's certificate must chain to a
	 * trusted CA and name the endpoint's address. Never turned off: a
	 * store that accepts any certificate hands the fleet's routes to
	 * whoever answers on the address. */
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (strncmp(url, "https://", 8) == 0) {
		if (h->tls.ca_file != NULL && h->tls.ca_file[0] != '\0')
			curl_easy_setopt(c, CURLOPT_CAINFO, h->tls.ca_file);
		if (h->tls.cert_file != NULL && h->tls.cert_file[0] != '\0') {
			curl_easy_setopt(c, CURLOPT_SSLCERT, h->tls.cert_file);
			curl_easy_setopt(c, CURLOPT_SSLKEY, h->tls.key_file);
		}
	}
	return hdrs;
}

/* What a failed transfer says: the URL and libcurl's message. */
static void
curl_failed(struct sy_etcd_http *h, const char *url, CURLcode cc, char *err, size_t errlen)
{
	size_t n = strlen(h->curl_err);

	/* The buffer's text may end with a newline (some TLS back ends). */
	while (n > 0 && (h->curl_err[n - 1] == '\n' || h->curl_err[n - 1] == '\r'))
		h->curl_err[--n] = '\0';
	snprintf(err, errlen, "%s: %s", url, n > 0 ? h->curl_err : curl_easy_strerror(cc));
}

static const char *
gateway_error(const json_t *resp)
{
	const json_t *e = json_object_get(resp, "error");

	if (json_is_string(e))
		return json_string_value(e);
	if (json_is_object(e))
		return json_string_value(json_object_get(e, "message"));
	return json_string_value(json_object_get(resp, "message"));
}

/* One POST of body to endpoint + path, its answer to fn(arg); timeout_ms 0
 * for a stream (no limit; TCP keepalive instead). *status: the HTTP status. */
static CURLcode
perform(struct sy_etcd_http *h, const char *endpoint, const char *path, const json_t *body,
	long timeout_ms, curl_write_callback fn, void *arg, long *status, char *url, size_t urllen)
{
	char *text = json_dumps(body, JSON_COMPACT);
	struct curl_slist *hdrs;
	CURLcode cc;

	*status = 0;
	snprintf(url, urllen, "%s%s", endpoint, path);
	if (text == NULL)
		return CURLE_OUT_OF_MEMORY;
	hdrs = prepare(h, url, text);
	curl_easy_setopt(h->curl, CURLOPT_WRITEFUNCTION, fn);
	curl_easy_setopt(h->curl, CURLOPT_WRITEDATA, arg);
	if (timeout_ms > 0) {
		curl_easy_setopt(h->curl, CURLOPT_TIMEOUT_MS, timeout_ms);
	} else {
		/* A watch is quiet while nothing changes; TCP keepalive
		 * finds a peer that vanished without a reset. */
		curl_easy_setopt(h->curl, CURLOPT_TCP_KEEPALIVE, 1L);
		curl_easy_setopt(h->curl, CURLOPT_TCP_KEEPIDLE, 5L);
		curl_easy_setopt(h->curl, CURLOPT_TCP_KEEPINTVL, 2L);
	}
	cc = curl_easy_perform(h->curl);
	curl_easy_getinfo(h->curl, CURLINFO_RESPONSE_CODE, status);
	curl_slist_free_all(hdrs);
	free(text);
	return cc;
}

int
sy_etcd_http_post(struct sy_etcd_http *h, const char *endpoint, const char *path,
		  const json_t *body, long timeout_ms, json_t **resp, char *err, size_t errlen)
{
	struct buf b = { 0 };
	char url[512];
	json_error_t jerr;
	long status;
	CURLcode cc = perform(h, endpoint, path, body, timeout_ms, collect, &b, &status, url,
			      sizeof(url));
	int rc = -1;

	*resp = NULL;
	if (cc != CURLE_OK) {
		curl_failed(h, url, cc, err, errlen);
	} else if ((*resp = b.p ? json_loadb(b.p, b.len, 0, &jerr) : NULL) == NULL) {
		snprintf(err, errlen, "%s: HTTP %ld, not JSON", url, status);
	} else if (status != 200 || gateway_error(*resp) != NULL) {
		snprintf(err, errlen, "%s: HTTP %ld: %s", url, status,
			 gateway_error(*resp) ? gateway_error(*resp) : "error");
		json_decref(*resp);
		*resp = NULL;
	} else {
		rc = 0;
	}
	free(b.p);
	return rc;
}

struct stream {
	struct buf b;
	int (*on_msg)(const json_t *msg, void *arg);
	void *arg;
	int ended; /* on_msg asked to stop */
};

static size_t
stream_write(char *p, size_t size, size_t nmemb, void *arg)
{
	struct stream *s = arg;
	size_t n = size * nmemb;
	char *nl;

	if (buf_add(&s->b, p, n) < 0)
		return 0;
	/* The gateway ends each message with a newline. */
	while ((nl = memchr(s->b.p, '\n', s->b.len)) != NULL) {
		size_t line = (size_t)(nl - s->b.p);
		json_t *msg = line ? json_loadb(s->b.p, line, 0, NULL) : NULL;
		int stop = msg ? s->on_msg(msg, s->arg) : 0;

		json_decref(msg);
		memmove(s->b.p, nl + 1, s->b.len - line - 1);
		s->b.len -= line + 1;
		if (stop) {
			s->ended = 1;
			return 0;
		}
	}
	return n;
}

int
sy_etcd_http_stream(struct sy_etcd_http *h, const char *endpoint, const char *path,
		    const json_t *body, int (*on_msg)(const json_t *msg, void *arg), void *arg,
		    char *err, size_t errlen)
{
	struct stream s = { .on_msg = on_msg, .arg = arg };
	char url[512];
	long status;
	CURLcode cc = perform(h, endpoint, path, body, 0, stream_write, &s, &status, url,
			      sizeof(url));
	int rc = -1;

	if (s.ended || atomic_load(h->stop))
		rc = 0;
	else if (cc != CURLE_OK)
		curl_failed(h, url, cc, err, errlen);
	else
		snprintf(err, errlen, "%s: the stream ended (HTTP %ld)", url, status);
	free(s.b.p);
	return rc;
}
