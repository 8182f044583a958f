/* SPDX-License-Identifier: BSD-3-Clause */
/* Client certificates, the control thread's part (tls_client_ca.h). */
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/x509.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "config/config_client_certs.h"
#include "sy_config.h"
#include "sy_dataplane.h"
#include "tls/tls_client_ca.h"

static struct {
	int mode;                    /* SSL_VERIFY_*; 0: off */
	X509_STORE *store;           /* the CAs of ca_file */
	STACK_OF(X509_NAME) *names;  /* their subjects, sent in the CertificateRequest */
	struct sy_tls_client_policy policy;
} C;

int
sy_tls_client_ca_setup(const struct sy_config *cfg, char *err, size_t errlen)
{
	STACK_OF(X509) *sk;
	char why[128];
	unsigned i;
	int n;

	sy_tls_client_ca_teardown();
	if (cfg->tls_client_cert_policy == SY_CLIENT_CERT_OFF)
		return 0;
	/* Read again (the config check read it too): the file may have
	 * changed in between, and what is used must be what parses. */
	sk = sy_config_read_ca_file(cfg->tls_client_ca_file, why, sizeof(why));
	if (sk == NULL) {
		snprintf(err, errlen, "tls.client_certificates.ca_file: \"%s\": %s",
			 cfg->tls_client_ca_file, why);
		return -1;
	}
	C.store = X509_STORE_new();
	C.names = sk_X509_NAME_new_null();
	for (n = 0; C.store != NULL && C.names != NULL && n < sk_X509_num(sk); n++) {
		X509 *x = sk_X509_value(sk, n);
		X509_NAME *name = X509_NAME_dup(X509_get_subject_name(x));

		X509_STORE_add_cert(C.store, x);
		if (name == NULL || !sk_X509_NAME_push(C.names, name))
			X509_NAME_free(name);
	}
	sk_X509_pop_free(sk, X509_free);
	ERR_clear_error();
	if (C.store == NULL || C.names == NULL) {
		snprintf(err, errlen, "tls.client_certificates: out of memory");
		sy_tls_client_ca_teardown();
		return -1;
	}
	for (i = 0; i < cfg->n_tls_client_subject_patterns; i++) {
		int code;
		PCRE2_SIZE off;
		pcre2_code *re = pcre2_compile((PCRE2_SPTR)cfg->tls_client_subject_patterns[i],
					       PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);

		if (re == NULL) { /* the config check compiled it already */
			snprintf(err, errlen,
				 "tls.client_certificates.allowed_subject_patterns[%u]: \"%s\" does "
				 "not compile", i, cfg->tls_client_subject_patterns[i]);
			sy_tls_client_ca_teardown();
			return -1;
		}
		/* Matched once per handshake: JIT when the platform has it. */
		pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
		C.policy.patterns[C.policy.n_patterns++] = (struct pcre2_real_code_8 *)re;
	}
	/* Required: no certificate, no handshake (HAProxy's `verify required`).
	 * Optional: none is fine, a bad one is not (`verify optional`). */
	C.mode = SSL_VERIFY_PEER;
	if (cfg->tls_client_cert_policy == SY_CLIENT_CERT_REQUIRED)
		C.mode |= SSL_VERIFY_FAIL_IF_NO_PEER_CERT;
	sy_dp_tls_client_policy_set(&C.policy);
	return 0;
}

void
sy_tls_client_ca_apply(SSL_CTX *ctx)
{
	if (C.mode == 0)
		return;
	SSL_CTX_set_verify(ctx, C.mode, NULL);
	SSL_CTX_set1_verify_cert_store(ctx, C.store);
	SSL_CTX_set_client_CA_list(ctx, SSL_dup_CA_list(C.names));
}

void
sy_tls_client_ca_teardown(void)
{
	unsigned i;

	sy_dp_tls_client_policy_set(NULL);
	for (i = 0; i < C.policy.n_patterns; i++)
		pcre2_code_free((pcre2_code *)C.policy.patterns[i]);
	X509_STORE_free(C.store);
	sk_X509_NAME_pop_free(C.names, X509_NAME_free);
	memset(&C, 0, sizeof(C));
}
