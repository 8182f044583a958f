/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Certificate checks (control/tls_cert.c sy_cert_check) when the bytes were
 * seen before: from the memo of checked bytes and from a context made of
 * them, the dates, the host and the chain are still checked at every call,
 * and bytes that failed are never taken as checked.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "test_eal.h"
#include "tls_cert.h"

struct pair {
	char *crt, *key;
	struct sy_pem p;
};

static char *
bio_text(BIO *b)
{
	char *d = NULL, *out;
	long n = BIO_get_mem_data(b, &d);

	out = malloc((size_t)n + 1);
	assert_non_null(out);
	memcpy(out, d, (size_t)n);
	out[n] = '\0';
	return out;
}

/* A self-signed P-256 certificate for san, valid from `from` to `to`
 * seconds from now. */
static void
make_pair(struct pair *pr, const char *san, long from, long to)
{
	EVP_PKEY *k = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	X509V3_CTX v3;
	X509_EXTENSION *ext;
	BIO *bc = BIO_new(BIO_s_mem()), *bk = BIO_new(BIO_s_mem());
	static long serial;
	char dns[128];

	assert_non_null(k);
	assert_non_null(x);
	snprintf(dns, sizeof(dns), "DNS:%s", san);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), ++serial);
	X509_gmtime_adj(X509_getm_notBefore(x), from);
	X509_gmtime_adj(X509_getm_notAfter(x), to);
	X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
				   (const unsigned char *)san, -1, -1, 0);
	X509_set_issuer_name(x, X509_get_subject_name(x));
	X509_set_pubkey(x, k);
	X509V3_set_ctx_nodb(&v3);
	X509V3_set_ctx(&v3, x, x, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &v3, NID_subject_alt_name, dns);
	assert_non_null(ext);
	assert_int_equal(X509_add_ext(x, ext, -1), 1);
	assert_true(X509_sign(x, k, EVP_sha256()) > 0);
	assert_int_equal(PEM_write_bio_X509(bc, x), 1);
	assert_int_equal(PEM_write_bio_PrivateKey(bk, k, NULL, NULL, 0, NULL, NULL), 1);
	pr->crt = bio_text(bc);
	pr->key = bio_text(bk);
	memset(&pr->p, 0, sizeof(pr->p));
	pr->p.crt = pr->crt;
	pr->p.crt_len = strlen(pr->crt);
	pr->p.key = pr->key;
	pr->p.key_len = strlen(pr->key);
	X509_EXTENSION_free(ext);
	BIO_free(bc);
	BIO_free(bk);
	X509_free(x);
	EVP_PKEY_free(k);
}

static void
free_pair(struct pair *pr)
{
	free(pr->crt);
	free(pr->key);
}

/* Checked bytes: the host and the dates are checked again every time. */
static void
test_seen_bytes(void **state)
{
	struct pair a, old;
	SSL_CTX *ctx;
	int i;

	(void)state;
	make_pair(&a, "*.a.test", -3600, 86400);
	for (i = 0; i < 2; i++) {
		assert_int_equal(sy_cert_check(&a.p, "x.a.test"), SY_CERT_OK);
		assert_int_equal(sy_cert_check(&a.p, "x.b.test"), SY_CERT_WRONG_HOST);
		assert_int_equal(sy_cert_check(&a.p, NULL), SY_CERT_OK);
	}
	/* Known from its context now. */
	ctx = sy_tls_ctx_get(&a.p, 0);
	assert_non_null(ctx);
	assert_int_equal(sy_cert_check(&a.p, "y.a.test"), SY_CERT_OK);
	assert_int_equal(sy_cert_check(&a.p, "y.c.test"), SY_CERT_WRONG_HOST);
	sy_tls_ctx_put(ctx);

	make_pair(&old, "old.test", -2 * 86400, -86400);
	for (i = 0; i < 2; i++)
		assert_int_equal(sy_cert_check(&old.p, "old.test"), SY_CERT_EXPIRED);
	free_pair(&old);
	make_pair(&old, "new.test", 86400, 2 * 86400);
	for (i = 0; i < 2; i++)
		assert_int_equal(sy_cert_check(&old.p, "new.test"), SY_CERT_NOT_YET_VALID);
	free_pair(&old);
	free_pair(&a);
}

/* Bytes that failed stay failed; a chain that holds no certificate fails
 * even when a context was made of the same bytes. */
static void
test_bad_bytes(void **state)
{
	struct pair a, b;
	struct sy_pem p;
	SSL_CTX *ctx;
	int i;

	(void)state;
	make_pair(&a, "a.test", -3600, 86400);
	make_pair(&b, "b.test", -3600, 86400);
	p = a.p;
	p.key = b.key;
	p.key_len = strlen(b.key);
	for (i = 0; i < 2; i++)
		assert_int_equal(sy_cert_check(&p, "a.test"), SY_CERT_KEY_MISMATCH);
	p.key = "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----\n";
	p.key_len = strlen(p.key);
	for (i = 0; i < 2; i++)
		assert_int_equal(sy_cert_check(&p, "a.test"), SY_CERT_BAD_KEY);
	p = a.p;
	p.ca = "not a certificate";
	p.ca_len = strlen(p.ca);
	ctx = sy_tls_ctx_get(&p, 0);
	for (i = 0; i < 2; i++)
		assert_int_equal(sy_cert_check(&p, "a.test"), SY_CERT_BAD_CA);
	sy_tls_ctx_put(ctx);
	assert_int_equal(sy_cert_check(&a.p, "a.test"), SY_CERT_OK);
	free_pair(&a);
	free_pair(&b);
}

/* More bytes than the memo keeps: the oldest are checked from scratch. */
static void
test_many(void **state)
{
	struct pair *v = calloc(1100, sizeof(*v));
	char san[64];
	int i;

	(void)state;
	assert_non_null(v);
	for (i = 0; i < 1100; i++) {
		snprintf(san, sizeof(san), "h%d.many.test", i);
		make_pair(&v[i], san, -3600, 86400);
		assert_int_equal(sy_cert_check(&v[i].p, san), SY_CERT_OK);
	}
	for (i = 0; i < 1100; i += 99) {
		snprintf(san, sizeof(san), "h%d.many.test", i);
		assert_int_equal(sy_cert_check(&v[i].p, san), SY_CERT_OK);
		assert_int_equal(sy_cert_check(&v[i].p, "h.other.test"), SY_CERT_WRONG_HOST);
	}
	for (i = 0; i < 1100; i++)
		free_pair(&v[i]);
	free(v);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seen_bytes),
		cmocka_unit_test(test_bad_bytes),
		cmocka_unit_test(test_many),
	};
	int rc;

	if (sy_test_eal_init("test_tls_cert") < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_tls_teardown();
	sy_test_eal_fini();
	return rc;
}
