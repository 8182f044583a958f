/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What every server context does on the workers (tls.h): the ClientHello
 * callback that picks the certificate by SNI, ALPN, session tickets sealed
 * with keys all workers share, and the per-worker session cache.
 *
 * The control thread builds the contexts (control/tls/tls_cert.c) and calls
 * sy_dp_tls_ctx_prepare on each; the callbacks run on the workers.
 */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <openssl/ssl.h>
#include <openssl/tls1.h>

#include <rte_malloc.h>

#include "proxy/px_h2.h"
#include "sy_dataplane.h"
#include "sy_generation.h"
#include "tls/tls.h"
#include "tls/tls_internal.h"
#include "worker.h"

/* ------------------------------------------------------ ticket keys -- */

/*
 * Session ticket keys (RFC 5077 layout: 16-byte name, AES-256-CBC key,
 * HMAC-SHA256 key). The control thread writes slot cur+1 and then moves
 * cur to it, as the SYN cookie secrets do (worker.h): a worker reading the
 * current key never sees it rewritten, since the slot written next is the
 * oldest of four. Tickets are sealed with the current key and opened with
 * any of the three newest, so a ticket lives two to three rotations.
 */
#define SY_TICKET_SLOTS 4
struct ticket_key {
	unsigned char name[16];
	unsigned char aes[32];
	unsigned char hmac[32];
};
static struct ticket_key ticket_keys[SY_TICKET_SLOTS];
/* Fetched once by the control thread (sy_dp_tls_ctx_prepare): EVP_aes_256_cbc()
 * would make OpenSSL 3 fetch the cipher from its provider, under a lock and by
 * name, for every ticket sealed or opened. */
static EVP_CIPHER *ticket_cipher;
static atomic_uint ticket_cur;
static atomic_bool ticket_ready;

void
sy_dp_tls_rotate_ticket_keys(void)
{
	unsigned next = atomic_load_explicit(&ticket_cur, memory_order_relaxed) + 1;
	struct ticket_key *k = &ticket_keys[next % SY_TICKET_SLOTS];

	if (RAND_bytes(k->name, sizeof(k->name)) != 1 || RAND_bytes(k->aes, sizeof(k->aes)) != 1 ||
	    RAND_bytes(k->hmac, sizeof(k->hmac)) != 1)
		return; /* keep the current key */
	if (!atomic_load_explicit(&ticket_ready, memory_order_relaxed)) {
		/* The first key: no older ones to keep. */
		atomic_store_explicit(&ticket_cur, next, memory_order_release);
		atomic_store_explicit(&ticket_ready, true, memory_order_release);
		return;
	}
	atomic_store_explicit(&ticket_cur, next, memory_order_release);
}

static int
ticket_cb(SSL *s, unsigned char key_name[16], unsigned char iv[EVP_MAX_IV_LENGTH],
	  EVP_CIPHER_CTX *cctx, EVP_MAC_CTX *hctx, int enc)
{
	unsigned cur = atomic_load_explicit(&ticket_cur, memory_order_acquire);
	OSSL_PARAM params[2];
	const struct ticket_key *k = NULL;
	unsigned age;

	(void)s;
	if (!atomic_load_explicit(&ticket_ready, memory_order_acquire) || ticket_cipher == NULL)
		return enc ? -1 : 0;
	params[1] = OSSL_PARAM_construct_end();
	if (enc) {
		k = &ticket_keys[cur % SY_TICKET_SLOTS];
		if (RAND_bytes(iv, 16) != 1)
			return -1;
		memcpy(key_name, k->name, 16);
		params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
		if (EVP_EncryptInit_ex(cctx, ticket_cipher, NULL, k->aes, iv) != 1 ||
		    EVP_MAC_init(hctx, k->hmac, sizeof(k->hmac), params) != 1)
			return -1;
		return 1;
	}
	for (age = 0; age < SY_TICKET_SLOTS - 1 && age <= cur; age++) {
		const struct ticket_key *c = &ticket_keys[(cur - age) % SY_TICKET_SLOTS];

		if (memcmp(c->name, key_name, 16) == 0) {
			k = c;
			break;
		}
	}
	if (k == NULL)
		return 0; /* unknown or too old: a full handshake */
	params[0] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)"SHA256", 0);
	if (EVP_MAC_init(hctx, k->hmac, sizeof(k->hmac), params) != 1 ||
	    EVP_DecryptInit_ex(cctx, ticket_cipher, NULL, k->aes, iv) != 1)
		return -1;
	/* 2: valid, but sealed with an older key: send a fresh ticket. */
	return age == 0 ? 1 : 2;
}

/* ------------------------------------------------- per-worker sessions -- */

/*
 * TLS 1.2 clients that resume by session ID (no ticket) find their session
 * in the cache of the worker that made it: direct-mapped by the ID's first
 * bytes, a newer session evicting an older one. The internal OpenSSL cache
 * (one per context, under a lock) is off.
 */
static struct sy_tls_worker *
worker_of(SSL *s)
{
	struct sy_tls_conn *tc = SSL_get_app_data(s);

	return tc != NULL && tc->w != NULL ? tc->w->tcp.tls : NULL;
}

static unsigned
sess_slot(const unsigned char *id, unsigned len)
{
	uint32_t h = 2166136261u;
	unsigned i;

	for (i = 0; i < len; i++)
		h = (h ^ id[i]) * 16777619u;
	return h & (SY_TLS_SESS_CACHE - 1);
}

static int
sess_new_cb(SSL *s, SSL_SESSION *sess)
{
	struct sy_tls_worker *tw = worker_of(s);
	unsigned len;
	const unsigned char *id = SSL_SESSION_get_id(sess, &len);
	unsigned slot;

	/* TLS 1.3 resumes by ticket, never by session ID: OpenSSL still
	 * reports each ticket's session here, whose ID is a dummy. Caching
	 * them would cost a session free per full handshake and push the
	 * TLS 1.2 sessions this cache is for out of their slots. */
	if (tw == NULL || len == 0 || SSL_SESSION_get_protocol_version(sess) >= TLS1_3_VERSION)
		return 0;
	slot = sess_slot(id, len);
	if (tw->sess[slot] != NULL)
		SSL_SESSION_free(tw->sess[slot]);
	tw->sess[slot] = sess;
	tw->w->counters.tls_sessions_cached++;
	return 1; /* we keep the reference OpenSSL gave us */
}

static SSL_SESSION *
sess_get_cb(SSL *s, const unsigned char *id, int len, int *copy)
{
	struct sy_tls_worker *tw = worker_of(s);
	SSL_SESSION *sess;
	unsigned have;
	const unsigned char *sid;

	*copy = 1; /* OpenSSL takes a reference of its own */
	if (tw == NULL || len <= 0)
		return NULL;
	sess = tw->sess[sess_slot(id, (unsigned)len)];
	if (sess == NULL)
		return NULL;
	sid = SSL_SESSION_get_id(sess, &have);
	if (have != (unsigned)len || memcmp(sid, id, have) != 0)
		return NULL;
	return sess;
}

static void
sess_remove_cb(SSL_CTX *ctx, SSL_SESSION *sess)
{
	(void)ctx;
	(void)sess;
	/* A session OpenSSL drops (timed out, a failed handshake) stays in
	 * the slot until it is evicted: its own timeout refuses it on get,
	 * and the callback has no worker to look into. */
}

void
sy_tls_sessions_free(struct sy_tls_worker *tw)
{
	unsigned i;

	for (i = 0; i < SY_TLS_SESS_CACHE; i++) {
		SSL_SESSION_free(tw->sess[i]);
		tw->sess[i] = NULL;
	}
}

/* ------------------------------------------------------- ClientHello -- */

/* The server_name extension's host_name, or len 0 (RFC 6066 3). */
static size_t
hello_sni(SSL *s, const unsigned char **name)
{
	const unsigned char *p;
	size_t len, list, n;

	if (SSL_client_hello_get0_ext(s, TLSEXT_TYPE_server_name, &p, &len) != 1 || len < 5)
		return 0;
	list = ((size_t)p[0] << 8) | p[1];
	if (list + 2 != len || p[2] != TLSEXT_NAMETYPE_host_name)
		return 0;
	n = ((size_t)p[3] << 8) | p[4];
	if (n == 0 || n + 5 > len || n > SY_TLS_SNI_MAX)
		return 0;
	*name = p + 5;
	return n;
}

/*
 * Pick the certificate: the SNI's vhost (exact name, then wildcard, as
 * sy_gen_find_vhost looks) when it is terminated here and has a certificate
 * of its own, else the default context the connection started on. The SNI
 * is kept for the proxy's 421 check (proxy_route.c).
 */
static int
client_hello_cb(SSL *s, int *alert, void *arg)
{
	struct sy_tls_conn *tc = SSL_get_app_data(s);
	const unsigned char *name = NULL;
	size_t len = hello_sni(s, &name), i;
	const struct sy_vhost *vh;

	(void)arg;
	if (tc == NULL)
		return SSL_CLIENT_HELLO_SUCCESS;
	if (len > 0 && name[len - 1] == '.')
		len--; /* "example.com." is example.com */
	for (i = 0; i < len; i++) {
		unsigned char c = name[i];

		if (c <= 0x20 || c >= 0x7f) {
			/* No name of ours has such bytes. */
			*alert = SSL_AD_UNRECOGNIZED_NAME;
			tc->w->counters.tls_handshake_failures++;
			return SSL_CLIENT_HELLO_ERROR;
		}
		tc->sni[i] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
	}
	tc->sni[len] = '\0';
	tc->sni_len = (uint8_t)len;
	vh = len > 0 && tc->w->gen != NULL ? sy_gen_find_vhost(tc->w->gen, tc->sni, len) : NULL;
	if (vh != NULL && (vh->tls == SY_TLS_EDGE || vh->tls == SY_TLS_REENCRYPT)) {
		if (vh->term != NULL && vh->term->ctx != NULL &&
		    SSL_set_SSL_CTX(s, vh->term->ctx) == NULL) {
			*alert = SSL_AD_INTERNAL_ERROR;
			return SSL_CLIENT_HELLO_ERROR;
		}
		/* SSL_set_SSL_CTX carries the certificate, not the verify
		 * mode: the SSL keeps the default context's. Every context
		 * is made with the same (tls.client_certificates), and the
		 * vhost's is the one that counts. */
		if (vh->term != NULL && vh->term->ctx != NULL)
			SSL_set_verify(s, SSL_CTX_get_verify_mode(vh->term->ctx), NULL);
		if (vh->min_tls_version >= 0x0304)
			SSL_set_min_proto_version(s, TLS1_3_VERSION);
	}
	return SSL_CLIENT_HELLO_SUCCESS;
}

/* h2 first when the client offers it and routerd serves it (proxy/px_h2.h),
 * else http/1.1; a client offering neither gets no ALPN answer and speaks
 * HTTP/1.1 (RFC 7301 3.2 lets the server ignore). */
static int
alpn_cb(SSL *s, const unsigned char **out, unsigned char *outlen, const unsigned char *in,
	unsigned int inlen, void *arg)
{
	const unsigned char *h1 = NULL;
	unsigned i = 0;

	(void)s;
	(void)arg;
	while (i < inlen) {
		unsigned n = in[i];

		if (i + 1 + n > inlen)
			break;
		if (n == 2 && memcmp(in + i + 1, "h2", 2) == 0 && sy_dp_h2_on()) {
			*out = in + i + 1;
			*outlen = 2;
			return SSL_TLSEXT_ERR_OK;
		}
		if (n == 8 && memcmp(in + i + 1, "http/1.1", 8) == 0 && h1 == NULL)
			h1 = in + i + 1;
		i += 1 + n;
	}
	if (h1 != NULL) {
		*out = h1;
		*outlen = 8;
		return SSL_TLSEXT_ERR_OK;
	}
	return SSL_TLSEXT_ERR_NOACK;
}

/*
 * OCSP stapling. The control thread hands a context the DER response it
 * checked (control/tls/tls_ocsp.c); the bytes live in the context's ex_data,
 * immutable, and go with the context's last reference, so a connection
 * that switched to it in the ClientHello callback can always read them.
 * OpenSSL calls staple_cb on the context the connection ended up on, for
 * a client that asked (status_request), and frees what it is given.
 */
struct staple {
	size_t len;
	unsigned char der[];
};

static int staple_index = -1;

static void
staple_free(void *parent, void *ptr, CRYPTO_EX_DATA *ad, int idx, long argl, void *argp)
{
	(void)parent;
	(void)ad;
	(void)idx;
	(void)argl;
	(void)argp;
	free(ptr);
}

static int
staple_cb(SSL *s, void *arg)
{
	const struct staple *st = SSL_CTX_get_ex_data(SSL_get_SSL_CTX(s), staple_index);
	struct sy_tls_worker *tw = worker_of(s);
	unsigned char *copy;

	(void)arg;
	if (st == NULL)
		return SSL_TLSEXT_ERR_NOACK;
	copy = OPENSSL_memdup(st->der, st->len);
	if (copy == NULL || SSL_set_tlsext_status_ocsp_resp(s, copy, (long)st->len) != 1) {
		OPENSSL_free(copy);
		return SSL_TLSEXT_ERR_NOACK; /* the handshake goes on without it */
	}
	if (tw != NULL)
		tw->w->counters.tls_ocsp_stapled++;
	return SSL_TLSEXT_ERR_OK;
}

int
sy_dp_tls_ctx_set_staple(SSL_CTX *ctx, const unsigned char *der, size_t len)
{
	struct staple *st;

	if (staple_index < 0)
		staple_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, staple_free);
	if (staple_index < 0 || SSL_CTX_get_ex_data(ctx, staple_index) != NULL ||
	    (st = malloc(sizeof(*st) + len)) == NULL)
		return -1;
	st->len = len;
	memcpy(st->der, der, len);
	if (SSL_CTX_set_ex_data(ctx, staple_index, st) != 1) {
		free(st);
		return -1;
	}
	SSL_CTX_set_tlsext_status_cb(ctx, staple_cb);
	return 0;
}

void
sy_dp_tls_ctx_prepare(SSL_CTX *ctx)
{
	if (!atomic_load(&ticket_ready))
		sy_dp_tls_rotate_ticket_keys();
	if (ticket_cipher == NULL)
		ticket_cipher = EVP_CIPHER_fetch(NULL, "AES-256-CBC", NULL);
	SSL_CTX_set_client_hello_cb(ctx, client_hello_cb, NULL);
	SSL_CTX_set_alpn_select_cb(ctx, alpn_cb, NULL);
	SSL_CTX_set_tlsext_ticket_key_evp_cb(ctx, ticket_cb);
	SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_SERVER | SSL_SESS_CACHE_NO_INTERNAL);
	SSL_CTX_sess_set_new_cb(ctx, sess_new_cb);
	SSL_CTX_sess_set_get_cb(ctx, sess_get_cb);
	SSL_CTX_sess_set_remove_cb(ctx, sess_remove_cb);
	/* Sessions and tickets live as long as their ticket key can open them. */
	SSL_CTX_set_timeout(ctx, 2 * 3600);
}
