/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Certificate checks (control/tls/tls_cert.c sy_cert_check) when the bytes were
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

#include "sy_config.h"
#include "test_eal.h"
#include "tls/tls_cert.h"

struct pair {
	char *crt, *key;
	struct sy_pem p;
};

/* A self-signed certificate for san, valid from `from` to `to` seconds
 * from now. */
static void
make_pair(struct pair *pr, const char *san, long from, long to)
{
	assert_int_equal(sy_tls_self_signed(NULL, san, san, from, to, &pr->crt, &pr->key), 0);
	memset(&pr->p, 0, sizeof(pr->p));
	pr->p.crt = pr->crt;
	pr->p.crt_len = strlen(pr->crt);
	pr->p.key = pr->key;
	pr->p.key_len = strlen(pr->key);
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

/* The default certificate: made at the first start (self-signed, one PEM
 * file), the same one loaded at the next. Last: it sets the TLS floor. */
static void
test_default(void **state)
{
	char dir[] = "/tmp/sy-test-tls-XXXXXX", err[256], path[600], sha[65];
	struct sy_config cfg;

	(void)state;
	assert_non_null(mkdtemp(dir));
	assert_int_equal(sy_config_parse("{}", &cfg, err, sizeof(err)), 0);
	snprintf(cfg.state_dir, sizeof(cfg.state_dir), "%s", dir);
	assert_int_equal(sy_tls_setup(&cfg, err, sizeof(err)), 0);
	assert_non_null(sy_tls_default());
	assert_true(sy_tls_default()->generated);
	assert_non_null(strstr(sy_tls_default()->subject, "switchyard default certificate"));
	assert_non_null(strstr(sy_tls_default()->subject, "Switchyard"));
	snprintf(sha, sizeof(sha), "%s", sy_tls_default()->sha256);
	sy_tls_teardown();
	assert_int_equal(sy_tls_setup(&cfg, err, sizeof(err)), 0);
	assert_string_equal(sy_tls_default()->sha256, sha);
	sy_tls_teardown();
	snprintf(path, sizeof(path), "%s/default-tls.pem", dir);
	assert_int_equal(unlink(path), 0);
	snprintf(path, sizeof(path), "%s/ocsp", dir);
	rmdir(path);
	assert_int_equal(rmdir(dir), 0);
	sy_config_free(&cfg);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seen_bytes),
		cmocka_unit_test(test_bad_bytes),
		cmocka_unit_test(test_many),
		cmocka_unit_test(test_default),
	};
	int rc;

	if (sy_test_eal_init("test_tls_cert") < 0)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_tls_teardown();
	sy_test_eal_fini();
	return rc;
}
