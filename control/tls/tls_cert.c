/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Certificates for TLS termination (tls_cert.h): checks, the server context
 * cache, and the router's default certificate. Control thread only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <stdbool.h>

#include <openssl/bio.h>
#include <openssl/bn.h>
#include <openssl/rand.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "strmap.h"
#include "sy_config.h"
#include "sy_dataplane.h"
#include "tls/tls_cert.h"
#include "tls/tls_client_ca.h"
#include "tls/tls_policy.h"
#include "tls/tls_ocsp.h"

/* A cached context: found by the digest of what made it, and from the
 * context itself (ex_data) when a vhost gives its reference back. */
struct tls_entry {
	char key[65]; /* hex SHA-256 over min version, certificate, key, chain */
	SSL_CTX *ctx;
	unsigned uses;
};

/*
 * Certificate bytes that passed the checks that depend on the bytes alone
 * (certificate and key parse, the key is the certificate's, the chain
 * parses), by digest, with the parsed certificate for the checks that do
 * not (dates, host). Admission checks every edge route's certificate at
 * every compile, and OpenSSL 3.0 takes about a millisecond to decode one
 * key; routes often share a certificate. At most CHECKED_MAX, the oldest
 * dropped first: bytes a context was made from are known from the context
 * cache anyway (known_cert).
 */
#define CHECKED_MAX 1024
struct checked {
	char key[65];
	X509 *x;
};

static struct {
	char ciphers[512];
	char suites[256];
	uint16_t floor;
	uint8_t tickets;
	struct sy_strmap cache;
	struct sy_strmap checked;
	struct checked *checked_ring[CHECKED_MAX];
	unsigned checked_next;
	int ex_index;
	struct sy_tls_default def;
	char *backend_ca; /* tls.backend_ca's PEM; NULL: the system's store */
	size_t backend_ca_len;
} T = { .ex_index = -1 };

/* Never prompt for a passphrase: an encrypted key is just unusable. */
static int
no_passphrase(char *buf, int size, int rwflag, void *u)
{
	(void)buf;
	(void)size;
	(void)rwflag;
	(void)u;
	return -1;
}

static X509 *
read_cert(const char *pem, size_t len)
{
	BIO *b;
	X509 *x;

	if (pem == NULL || len == 0 || len > INT32_MAX)
		return NULL;
	b = BIO_new_mem_buf(pem, (int)len);
	x = b ? PEM_read_bio_X509(b, NULL, no_passphrase, NULL) : NULL;
	BIO_free(b);
	return x;
}

static EVP_PKEY *
read_key(const char *pem, size_t len)
{
	BIO *b;
	EVP_PKEY *k;

	if (pem == NULL || len == 0 || len > INT32_MAX)
		return NULL;
	b = BIO_new_mem_buf(pem, (int)len);
	k = b ? PEM_read_bio_PrivateKey(b, NULL, no_passphrase, NULL) : NULL;
	BIO_free(b);
	return k;
}

/* Every certificate of a PEM bundle after the first of crt, then the ca
 * field's: the chain the server sends. NULL on a parse error; an empty
 * stack when there is none. */
static STACK_OF(X509) *
read_chain(const char *pem, size_t len, bool skip_first)
{
	STACK_OF(X509) *sk = sk_X509_new_null();
	BIO *b;
	X509 *x;
	bool first = true;

	if (sk == NULL)
		return NULL;
	if (pem == NULL || len == 0)
		return sk;
	if (len > INT32_MAX || (b = BIO_new_mem_buf(pem, (int)len)) == NULL) {
		sk_X509_free(sk);
		return NULL;
	}
	while ((x = PEM_read_bio_X509(b, NULL, no_passphrase, NULL)) != NULL) {
		if (first && skip_first) {
			X509_free(x);
		} else if (!sk_X509_push(sk, x)) {
			X509_free(x);
			break;
		}
		first = false;
	}
	/* The loop ends on "no start line": that is the end, not an error. */
	ERR_clear_error();
	BIO_free(b);
	return sk;
}

static void digest_hex(const struct sy_pem *p, uint16_t min_version, uint64_t epoch,
		       const char *client_ca, size_t client_ca_len, char out[65]);

/*
 * The certificate of bytes p already checked (one reference for the caller),
 * or NULL, with sum their digest for remember_cert. A context made from them
 * (at the floor: routes without a minimum of their own) is proof enough:
 * SSL_CTX_use_PrivateKey refuses a key that is not the certificate's.
 */
static X509 *
known_cert(const struct sy_pem *p, char sum[65])
{
	struct tls_entry *e;
	struct checked *c;
	X509 *x = NULL;

	digest_hex(p, T.floor, sy_ocsp_epoch(), NULL, 0, sum);
	e = sy_strmap_get(&T.cache, sum);
	if (e != NULL)
		x = SSL_CTX_get0_certificate(e->ctx);
	if (x == NULL) {
		digest_hex(p, 0, 0, NULL, 0, sum);
		c = sy_strmap_get(&T.checked, sum);
		x = c != NULL ? c->x : NULL;
	}
	if (x != NULL)
		X509_up_ref(x);
	return x;
}

/* Bytes with digest sum passed the byte checks; x is their certificate. */
static void
remember_cert(const char sum[65], X509 *x)
{
	struct checked *c = T.checked_ring[T.checked_next];

	if (sy_strmap_get(&T.checked, sum) != NULL)
		return;
	if (c != NULL) {
		sy_strmap_remove(&T.checked, c->key);
		X509_free(c->x);
	} else if ((c = malloc(sizeof(*c))) == NULL) {
		return;
	}
	memcpy(c->key, sum, sizeof(c->key));
	c->x = x;
	if (sy_strmap_put(&T.checked, c->key, c) < 0) {
		free(c);
		T.checked_ring[T.checked_next] = NULL;
		return;
	}
	X509_up_ref(x);
	T.checked_ring[T.checked_next] = c;
	T.checked_next = (T.checked_next + 1) % CHECKED_MAX;
}

static void
checked_fini(void)
{
	unsigned i;

	for (i = 0; i < CHECKED_MAX; i++)
		if (T.checked_ring[i] != NULL) {
			X509_free(T.checked_ring[i]->x);
			free(T.checked_ring[i]);
			T.checked_ring[i] = NULL;
		}
	T.checked_next = 0;
	sy_strmap_fini(&T.checked);
}

enum sy_cert_problem
sy_cert_check(const struct sy_pem *p, const char *host)
{
	char sum[65];
	X509 *x = known_cert(p, sum);
	bool known = x != NULL;
	EVP_PKEY *k = NULL;
	enum sy_cert_problem why = SY_CERT_OK;

	/* Bytes not known yet: parsed here, and the key matched below. */
	if (!known && (x = read_cert(p->crt, p->crt_len)) == NULL) {
		why = SY_CERT_BAD_CERT;
		goto out;
	}
	if (!known && (k = read_key(p->key, p->key_len)) == NULL) {
		why = SY_CERT_BAD_KEY;
		goto out;
	}
	/* Checked in any case: a context is made from a chain that holds no
	 * certificate too. */
	if (p->ca != NULL && p->ca_len > 0) {
		STACK_OF(X509) *sk = read_chain(p->ca, p->ca_len, false);

		if (sk == NULL || sk_X509_num(sk) == 0)
			why = SY_CERT_BAD_CA;
		sk_X509_pop_free(sk, X509_free);
		if (why != SY_CERT_OK)
			goto out;
	}
	if (!known && X509_check_private_key(x, k) != 1) {
		why = SY_CERT_KEY_MISMATCH;
		goto out;
	}
	if (!known)
		remember_cert(sum, x);
	if (X509_cmp_current_time(X509_get0_notAfter(x)) <= 0) {
		why = SY_CERT_EXPIRED;
		goto out;
	}
	if (X509_cmp_current_time(X509_get0_notBefore(x)) >= 0) {
		why = SY_CERT_NOT_YET_VALID;
		goto out;
	}
	if (host != NULL && host[0]) {
		char probe[300];

		/* A wildcard vhost needs a certificate for any one label under
		 * its domain: ask for a name no exact certificate would carry. */
		if (host[0] == '*')
			snprintf(probe, sizeof(probe), "sy-wildcard-check%s", host + 1);
		else
			snprintf(probe, sizeof(probe), "%s", host);
		if (X509_check_host(x, probe, 0, 0, NULL) != 1)
			why = SY_CERT_WRONG_HOST;
	}
out:
	X509_free(x);
	EVP_PKEY_free(k);
	ERR_clear_error();
	return why;
}

const char *
sy_cert_problem_text(enum sy_cert_problem p)
{
	switch (p) {
	case SY_CERT_OK:
		return "ok";
	case SY_CERT_BAD_CERT:
		return "error decoding certificate data";
	case SY_CERT_BAD_KEY:
		return "error decoding key data";
	case SY_CERT_BAD_CA:
		return "error decoding CA certificate data";
	case SY_CERT_KEY_MISMATCH:
		return "private key does not match public key";
	case SY_CERT_EXPIRED:
		return "certificate has expired";
	case SY_CERT_NOT_YET_VALID:
		return "certificate is not yet valid";
	case SY_CERT_WRONG_HOST:
		return "certificate is not valid for host";
	}
	return "unknown problem";
}

/* The cache key: what makes the context, and the OCSP staple epoch (a
 * server context carries its staple, tls_ocsp.h; clients pass 0). */
static void
digest_hex(const struct sy_pem *p, uint16_t min_version, uint64_t epoch, const char *client_ca,
	   size_t client_ca_len, char out[65])
{
	unsigned char md[32];
	unsigned int n = 0;
	EVP_MD_CTX *c = EVP_MD_CTX_new();
	uint8_t v[10] = { (uint8_t)(min_version >> 8), (uint8_t)min_version };
	uint64_t lens[4] = { p->crt_len, p->key_len, p->ca ? p->ca_len : 0,
			     client_ca ? client_ca_len : 0 };
	int i;

	memcpy(v + 2, &epoch, sizeof(epoch));
	memset(md, 0, sizeof(md));
	if (c != NULL && EVP_DigestInit_ex(c, EVP_sha256(), NULL) == 1) {
		/* lengths first: no two field splits give the same input */
		EVP_DigestUpdate(c, v, sizeof(v));
		EVP_DigestUpdate(c, lens, sizeof(lens));
		EVP_DigestUpdate(c, p->crt, p->crt_len);
		EVP_DigestUpdate(c, p->key, p->key_len);
		if (p->ca != NULL)
			EVP_DigestUpdate(c, p->ca, p->ca_len);
		if (client_ca != NULL)
			EVP_DigestUpdate(c, client_ca, client_ca_len);
		EVP_DigestFinal_ex(c, md, &n);
	}
	EVP_MD_CTX_free(c);
	for (i = 0; i < 32; i++)
		snprintf(out + 2 * i, 3, "%02x", md[i]);
}

static int
proto_of(uint16_t v)
{
	return v >= 0x0304 ? TLS1_3_VERSION : TLS1_2_VERSION;
}

/*
 * A vhost's own client CAs (an HTTPProxy's clientValidation): a certificate
 * is required and must chain to one of cas (taken); the CertificateRequest
 * names them. Sessions made on this context resume on it alone (its own
 * session id context, from the CAs' digest): a ticket from a vhost that
 * asked for no certificate must not skip this one's check. 0 or -1.
 */
static int
own_client_cas(SSL_CTX *ctx, STACK_OF(X509) *cas, const char *digest)
{
	X509_STORE *store = X509_STORE_new();
	STACK_OF(X509_NAME) *names = sk_X509_NAME_new_null();
	char sid[32];
	int i, rc = -1;

	if (store == NULL || names == NULL || sk_X509_num(cas) == 0)
		goto out;
	for (i = 0; i < sk_X509_num(cas); i++) {
		X509_NAME *name = X509_NAME_dup(X509_get_subject_name(sk_X509_value(cas, i)));

		if (X509_STORE_add_cert(store, sk_X509_value(cas, i)) != 1 || name == NULL ||
		    !sk_X509_NAME_push(names, name)) {
			X509_NAME_free(name);
			goto out;
		}
	}
	SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
	if (SSL_CTX_set1_verify_cert_store(ctx, store) != 1)
		goto out;
	SSL_CTX_set_client_CA_list(ctx, names);
	names = NULL; /* the context's now */
	snprintf(sid, sizeof(sid), "switchyard-ca-%.16s", digest);
	rc = SSL_CTX_set_session_id_context(ctx, (const unsigned char *)sid,
					    (unsigned int)strlen(sid)) == 1 ? 0 : -1;
out:
	X509_STORE_free(store); /* the context holds its own reference */
	sk_X509_NAME_pop_free(names, X509_NAME_free);
	sk_X509_pop_free(cas, X509_free);
	return rc;
}

/* A server context for cert x, key k, chain sk (taken), or NULL. */
static SSL_CTX *
make_ctx(X509 *x, EVP_PKEY *k, STACK_OF(X509) *sk, uint16_t min_version)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());

	if (ctx == NULL)
		goto fail;
	if (min_version < T.floor)
		min_version = T.floor;
	if (SSL_CTX_set_min_proto_version(ctx, proto_of(min_version)) != 1 ||
	    SSL_CTX_use_certificate(ctx, x) != 1 || SSL_CTX_use_PrivateKey(ctx, k) != 1 ||
	    SSL_CTX_set0_chain(ctx, sk) != 1)
		goto fail;
	sk = NULL; /* the context's now */
	if ((T.ciphers[0] && SSL_CTX_set_cipher_list(ctx, T.ciphers) != 1) ||
	    (T.suites[0] && SSL_CTX_set_ciphersuites(ctx, T.suites) != 1))
		goto fail;
	sy_tls_server_policy(ctx, T.tickets);
	sy_tls_client_ca_apply(ctx); /* the same for every context (tls_client_ca.h) */
	sy_dp_tls_ctx_prepare(ctx);
	return ctx;
fail:
	sk_X509_pop_free(sk, X509_free);
	SSL_CTX_free(ctx);
	ERR_clear_error();
	return NULL;
}

/* The ex_data slot that leads from a context to its cache entry (also for
 * callers that never ran sy_tls_setup: unit tests). */
static void
ensure_index(void)
{
	if (T.ex_index < 0)
		T.ex_index = SSL_CTX_get_ex_new_index(0, NULL, NULL, NULL, NULL);
}

SSL_CTX *
sy_tls_ctx_get(const struct sy_pem *p, uint16_t min_version)
{
	return sy_tls_ctx_get_client_ca(p, min_version, NULL, 0);
}

int
sy_tls_ca_count(const char *pem, size_t len)
{
	STACK_OF(X509) *sk = read_chain(pem, len, false);
	int n = sk != NULL ? sk_X509_num(sk) : -1;

	sk_X509_pop_free(sk, X509_free);
	ERR_clear_error();
	return n;
}

SSL_CTX *
sy_tls_ctx_get_client_ca(const struct sy_pem *p, uint16_t min_version, const char *client_ca,
			 size_t client_ca_len)
{
	struct tls_entry *e;
	char key[65];
	X509 *x;
	EVP_PKEY *k;
	STACK_OF(X509) *sk = NULL, *ca;

	ensure_index();
	if (min_version < T.floor)
		min_version = T.floor;
	digest_hex(p, min_version, sy_ocsp_epoch(), client_ca, client_ca_len, key);
	e = sy_strmap_get(&T.cache, key);
	if (e != NULL) {
		e->uses++;
		SSL_CTX_up_ref(e->ctx);
		return e->ctx;
	}
	x = read_cert(p->crt, p->crt_len);
	k = read_key(p->key, p->key_len);
	if (x == NULL || k == NULL)
		goto fail;
	/* The chain: what follows the leaf in the certificate field, then
	 * the CA field (OpenShift's caCertificate). */
	sk = read_chain(p->crt, p->crt_len, true);
	ca = read_chain(p->ca, p->ca ? p->ca_len : 0, false);
	if (sk == NULL || ca == NULL) {
		sk_X509_pop_free(ca, X509_free);
		goto fail;
	}
	while (sk_X509_num(ca) > 0)
		sk_X509_push(sk, sk_X509_shift(ca));
	sk_X509_free(ca);
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		goto fail;
	e->ctx = make_ctx(x, k, sk, min_version);
	sk = NULL;
	if (e->ctx != NULL && client_ca != NULL &&
	    own_client_cas(e->ctx, read_chain(client_ca, client_ca_len, false), key) < 0) {
		SSL_CTX_free(e->ctx);
		e->ctx = NULL;
	}
	if (e->ctx == NULL) {
		free(e);
		goto fail;
	}
	{
		STACK_OF(X509) *chain = NULL;

		SSL_CTX_get0_chain_certs(e->ctx, &chain);
		sy_ocsp_attach(e->ctx, x, chain);
	}
	memcpy(e->key, key, sizeof(key));
	if (sy_strmap_put(&T.cache, e->key, e) < 0) {
		SSL_CTX_free(e->ctx);
		free(e);
		goto fail;
	}
	SSL_CTX_set_ex_data(e->ctx, T.ex_index, e);
	e->uses = 1;
	SSL_CTX_up_ref(e->ctx); /* the cache's reference, plus the caller's */
	X509_free(x);
	EVP_PKEY_free(k);
	return e->ctx;
fail:
	sk_X509_pop_free(sk, X509_free);
	X509_free(x);
	EVP_PKEY_free(k);
	ERR_clear_error();
	return NULL;
}

void
sy_tls_ctx_put(SSL_CTX *ctx)
{
	struct tls_entry *e;

	if (ctx == NULL)
		return;
	e = T.ex_index >= 0 ? SSL_CTX_get_ex_data(ctx, T.ex_index) : NULL;
	if (e != NULL && --e->uses == 0) {
		/* Nobody names it: out of the cache. Connections still using
		 * it hold references of their own. */
		sy_strmap_remove(&T.cache, e->key);
		SSL_CTX_set_ex_data(ctx, T.ex_index, NULL);
		SSL_CTX_free(ctx);
		free(e);
	}
	SSL_CTX_free(ctx);
}

/* A client context, cached: verifying the backend's chain against ca (or
 * the system's store), or (verify false) checking nothing. */
static SSL_CTX *
client_ctx_get(const char *ca, size_t ca_len, bool verify)
{
	struct sy_pem p = { .crt = verify ? "client" : "client-noverify", .crt_len = verify ? 6 : 15,
			    .ca = ca, .ca_len = ca ? ca_len : 0 };
	struct tls_entry *e;
	char key[65];
	SSL_CTX *ctx;

	/* Cached with server contexts: "client" stands where a certificate
	 * would be, which no PEM is. */
	ensure_index();
	digest_hex(&p, 0, 0, NULL, 0, key);
	e = sy_strmap_get(&T.cache, key);
	if (e != NULL) {
		e->uses++;
		SSL_CTX_up_ref(e->ctx);
		return e->ctx;
	}
	ctx = SSL_CTX_new(TLS_client_method());
	if (ctx == NULL)
		goto fail;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_verify(ctx, verify ? SSL_VERIFY_PEER : SSL_VERIFY_NONE, NULL);
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION);
	if (!verify) {
		/* nothing to trust */
	} else if (ca != NULL && ca_len > 0) {
		STACK_OF(X509) *sk = read_chain(ca, ca_len, false);
		X509_STORE *store = SSL_CTX_get_cert_store(ctx);
		int i, n = sk ? sk_X509_num(sk) : 0;

		for (i = 0; i < n; i++)
			X509_STORE_add_cert(store, sk_X509_value(sk, i));
		sk_X509_pop_free(sk, X509_free);
		if (n == 0)
			goto fail;
	} else if (SSL_CTX_set_default_verify_paths(ctx) != 1) {
		goto fail;
	}
	e = calloc(1, sizeof(*e));
	if (e == NULL)
		goto fail;
	memcpy(e->key, key, sizeof(key));
	e->ctx = ctx;
	if (sy_strmap_put(&T.cache, e->key, e) < 0) {
		free(e);
		goto fail;
	}
	SSL_CTX_set_ex_data(ctx, T.ex_index, e);
	e->uses = 1;
	SSL_CTX_up_ref(ctx);
	return ctx;
fail:
	SSL_CTX_free(ctx);
	ERR_clear_error();
	return NULL;
}

SSL_CTX *
sy_tls_client_ctx_get(const char *ca, size_t ca_len)
{
	return client_ctx_get(ca, ca_len, true);
}

SSL_CTX *
sy_tls_url_backend_ctx_get(void)
{
	return sy_tls_client_ctx_get(T.backend_ca, T.backend_ca_len);
}

SSL_CTX *
sy_tls_upstream_ctx_get(void)
{
	return client_ctx_get(NULL, 0, false);
}

size_t
sy_tls_ctx_cached(void)
{
	return T.cache.count;
}

/* ---------------------------------------------------- default certificate -- */

static int
fail_msg(char *err, size_t errlen, const char *fmt, const char *a, const char *b)
{
	snprintf(err, errlen, fmt, a, b);
	return -1;
}

static char *
bio_text(BIO *b)
{
	char *p = NULL, *out;
	long n = BIO_get_mem_data(b, &p);

	if (n <= 0 || (out = malloc((size_t)n + 1)) == NULL)
		return NULL;
	memcpy(out, p, (size_t)n);
	out[n] = '\0';
	return out;
}

int
sy_tls_self_signed(const char *org, const char *cn, const char *san, long from, long to,
		   char **crt, char **key)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	X509_NAME *n;
	X509_EXTENSION *ext = NULL;
	X509V3_CTX v3;
	BIO *bc = BIO_new(BIO_s_mem()), *bk = BIO_new(BIO_s_mem());
	unsigned char serial[16];
	BIGNUM *bn = NULL;
	char dns[300];
	int rc = -1;

	*crt = *key = NULL;
	if (k == NULL || x == NULL || bc == NULL || bk == NULL)
		goto out;
	if (RAND_bytes(serial, sizeof(serial)) != 1)
		goto out;
	serial[0] &= 0x7f; /* a positive serial */
	bn = BN_bin2bn(serial, sizeof(serial), NULL);
	if (bn == NULL || BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(x)) == NULL)
		goto out;
	X509_set_version(x, 2);
	X509_gmtime_adj(X509_getm_notBefore(x), from);
	X509_gmtime_adj(X509_getm_notAfter(x), to);
	n = X509_get_subject_name(x);
	if (org != NULL)
		X509_NAME_add_entry_by_txt(n, "O", MBSTRING_ASC, (const unsigned char *)org, -1, -1,
					   0);
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
	X509_set_issuer_name(x, n);
	X509_set_pubkey(x, k);
	if (san != NULL) {
		/* X509_check_host reads the names here (a wildcard covers one label). */
		snprintf(dns, sizeof(dns), "DNS:%s", san);
		X509V3_set_ctx_nodb(&v3);
		X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
		ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, dns);
		if (ext == NULL || X509_add_ext(x, ext, -1) != 1)
			goto out;
	}
	if (X509_sign(x, k, EVP_sha256()) == 0 || PEM_write_bio_X509(bc, x) != 1 ||
	    PEM_write_bio_PrivateKey(bk, k, NULL, NULL, 0, NULL, NULL) != 1)
		goto out;
	*crt = bio_text(bc);
	*key = bio_text(bk);
	if (*crt != NULL && *key != NULL)
		rc = 0;
out:
	if (rc < 0) {
		free(*crt);
		free(*key);
		*crt = *key = NULL;
	}
	X509_EXTENSION_free(ext);
	BN_free(bn);
	BIO_free(bc);
	BIO_free(bk);
	X509_free(x);
	EVP_PKEY_free(k);
	ERR_clear_error();
	return rc;
}

/* A self-signed ECDSA P-256 certificate and key, as one PEM file (0600). */
static int
generate_default(const char *path, char *err, size_t errlen)
{
	char *crt, *key;
	FILE *f = NULL;
	int fd, rc = -1;

	if (sy_tls_self_signed("Switchyard", "switchyard default certificate", NULL, -3600,
			       10L * 365 * 86400, &crt, &key) < 0)
		return fail_msg(err, errlen, "tls: cannot generate the default certificate %s%s",
				path, "");
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
		if (fd >= 0)
			close(fd);
		rc = fail_msg(err, errlen, "tls: cannot create %s: %s", path, strerror(errno));
		goto out;
	}
	if (fputs(crt, f) == EOF || fputs(key, f) == EOF || fflush(f) != 0 ||
	    fsync(fileno(f)) != 0) {
		rc = fail_msg(err, errlen, "tls: cannot write %s: %s", path, strerror(errno));
		fclose(f);
		unlink(path);
		goto out;
	}
	fclose(f);
	rc = 0;
out:
	OPENSSL_cleanse(key, strlen(key));
	free(crt);
	free(key);
	return rc;
}

static char *
slurp(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	long n;

	if (f == NULL)
		return NULL;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) > 0 && n < (1 << 20) &&
	    fseek(f, 0, SEEK_SET) == 0 && (buf = malloc((size_t)n + 1)) != NULL) {
		if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
			free(buf);
			buf = NULL;
		} else {
			buf[n] = '\0';
			*len = (size_t)n;
		}
	}
	fclose(f);
	return buf;
}

static void
describe_default(X509 *x)
{
	unsigned char md[32];
	unsigned int n = 0, i;
	struct tm tm;

	X509_NAME_oneline(X509_get_subject_name(x), T.def.subject, sizeof(T.def.subject));
	X509_digest(x, EVP_sha256(), md, &n);
	for (i = 0; i < n && i < 32; i++)
		snprintf(T.def.sha256 + 2 * i, 3, "%02x", md[i]);
	if (ASN1_TIME_to_tm(X509_get0_notAfter(x), &tm) == 1)
		strftime(T.def.not_after, sizeof(T.def.not_after), "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int
load_default(const char *path, char *err, size_t errlen)
{
	size_t len = 0;
	char *pem = slurp(path, &len);
	struct sy_pem p;
	X509 *x;
	enum sy_cert_problem why;

	if (pem == NULL)
		return fail_msg(err, errlen, "tls: cannot read the default certificate %s: %s", path,
				strerror(errno ? errno : EINVAL));
	memset(&p, 0, sizeof(p));
	p.crt = p.key = pem;
	p.crt_len = p.key_len = len;
	why = sy_cert_check(&p, NULL);
	if (why != SY_CERT_OK) {
		free(pem);
		return fail_msg(err, errlen, "tls: the default certificate %s: %s", path,
				sy_cert_problem_text(why));
	}
	T.def.ctx = sy_tls_ctx_get(&p, 0);
	x = read_cert(pem, len);
	if (x != NULL)
		describe_default(x);
	X509_free(x);
	OPENSSL_cleanse(pem, len);
	free(pem);
	if (T.def.ctx == NULL)
		return fail_msg(err, errlen, "tls: the default certificate %s: %s", path,
				"OpenSSL refused it");
	snprintf(T.def.path, sizeof(T.def.path), "%s", path);
	return 0;
}

int
sy_tls_setup(const struct sy_config *cfg, char *err, size_t errlen)
{
	char path[512];

	snprintf(T.ciphers, sizeof(T.ciphers), "%s", cfg->tls_ciphers);
	snprintf(T.suites, sizeof(T.suites), "%s", cfg->tls_ciphersuites);
	T.tickets = cfg->tls_tickets;
	T.floor = cfg->tls_min_version >= SY_TLS_MIN_VERSION_FLOOR ? cfg->tls_min_version
								  : SY_TLS_MIN_VERSION_FLOOR;
	ensure_index();
	{
		/* The cipher strings are checked once here, with a clear error,
		 * rather than per certificate. */
		SSL_CTX *probe = SSL_CTX_new(TLS_server_method());
		bool bad_ciphers = probe && T.ciphers[0] && SSL_CTX_set_cipher_list(probe, T.ciphers) != 1;
		bool bad_suites = probe && T.suites[0] && SSL_CTX_set_ciphersuites(probe, T.suites) != 1;

		SSL_CTX_free(probe);
		ERR_clear_error();
		if (bad_ciphers)
			return fail_msg(err, errlen, "tls.ciphers: OpenSSL knows none of \"%s\"%s",
					T.ciphers, "");
		if (bad_suites)
			return fail_msg(err, errlen, "tls.ciphersuites: OpenSSL knows none of \"%s\"%s",
					T.suites, "");
	}
	{
		char dir[512];

		/* Staples first: the default certificate is built below. */
		if (cfg->tls_ocsp_dir[0])
			snprintf(dir, sizeof(dir), "%s", cfg->tls_ocsp_dir);
		else
			snprintf(dir, sizeof(dir), "%s/ocsp", cfg->state_dir);
		sy_ocsp_configure(dir, cfg->tls_ocsp_rescan_s);
	}
	free(T.backend_ca);
	T.backend_ca = NULL;
	if (cfg->tls_backend_ca[0]) {
		/* Read once: a compile must not depend on a file that can
		 * change under it. Checked here, so a typo fails the start. */
		SSL_CTX *probe;

		T.backend_ca = slurp(cfg->tls_backend_ca, &T.backend_ca_len);
		if (T.backend_ca == NULL)
			return fail_msg(err, errlen, "tls.backend_ca: cannot read %s: %s",
					cfg->tls_backend_ca, strerror(errno));
		probe = sy_tls_client_ctx_get(T.backend_ca, T.backend_ca_len);
		if (probe == NULL)
			return fail_msg(err, errlen, "tls.backend_ca: %s holds no PEM certificate%s",
					cfg->tls_backend_ca, "");
		sy_tls_ctx_put(probe);
	}
	/* Before the default context is made: it asks for client
	 * certificates as every other does. */
	if (sy_tls_client_ca_setup(cfg, err, errlen) < 0)
		return -1;
	if (cfg->tls_default_certificate[0]) {
		T.def.generated = 0;
		return load_default(cfg->tls_default_certificate, err, errlen);
	}
	snprintf(path, sizeof(path), "%s/default-tls.pem", cfg->state_dir);
	if (access(path, F_OK) != 0) {
		/* The journal makes the directory too, later; we come first. */
		if (mkdir(cfg->state_dir, 0700) < 0 && errno != EEXIST)
			return fail_msg(err, errlen, "tls: cannot create state_dir %s: %s",
					cfg->state_dir, strerror(errno));
		if (generate_default(path, err, errlen) < 0)
			return -1;
	}
	T.def.generated = 1;
	return load_default(path, err, errlen);
}

const struct sy_tls_default *
sy_tls_default(void)
{
	return T.def.ctx != NULL ? &T.def : NULL;
}

void
sy_tls_teardown(void)
{
	if (T.def.ctx != NULL)
		sy_tls_ctx_put(T.def.ctx);
	T.def.ctx = NULL;
	free(T.backend_ca);
	T.backend_ca = NULL;
	sy_ocsp_fini();
	sy_tls_client_ca_teardown();
	checked_fini();
	/* Every vhost and pool gave its contexts back before (sy_router_fini). */
	sy_strmap_fini(&T.cache);
}
