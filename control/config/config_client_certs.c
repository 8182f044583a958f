/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tls.client_certificates: the OpenShift IngressController's clientTLS
 * (clientCertificatePolicy, clientCA, allowedSubjectPatterns). What the
 * settings do is control/tls/tls_client_ca.c's and dataplane/tls/
 * tls_client_cert.c's; here they are only read and checked.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include "config/config_client_certs.h"
#include "config/config_error.h"

#define KEY "tls.client_certificates"

STACK_OF(X509) *
sy_config_read_ca_file(const char *path, char *why, size_t whylen)
{
	STACK_OF(X509) *sk;
	BIO *b = BIO_new_file(path, "r");
	X509 *x;
	unsigned long e;

	if (b == NULL) {
		snprintf(why, whylen, "cannot read it: %s", strerror(errno ? errno : ENOENT));
		ERR_clear_error();
		return NULL;
	}
	sk = sk_X509_new_null();
	while (sk != NULL && (x = PEM_read_bio_X509(b, NULL, NULL, NULL)) != NULL)
		if (!sk_X509_push(sk, x))
			X509_free(x);
	/* The loop ends on "no start line" past the last certificate; any
	 * other error is a block that does not decode. */
	e = ERR_peek_last_error();
	BIO_free(b);
	ERR_clear_error();
	if (sk == NULL || sk_X509_num(sk) == 0 ||
	    !(ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE)) {
		snprintf(why, whylen, "%s",
			 ERR_GET_LIB(e) == ERR_LIB_PEM && ERR_GET_REASON(e) == PEM_R_NO_START_LINE
				 ? "it holds no PEM certificate"
				 : "a PEM block in it does not decode as a certificate");
		sk_X509_pop_free(sk, X509_free);
		return NULL;
	}
	return sk;
}

static int
parse_policy(const json_t *v, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *s = json_string_value(v);

	/* OpenShift's spelling (ClientCertificatePolicy), exactly. */
	if (s != NULL && strcmp(s, "Required") == 0)
		cfg->tls_client_cert_policy = SY_CLIENT_CERT_REQUIRED;
	else if (s != NULL && strcmp(s, "Optional") == 0)
		cfg->tls_client_cert_policy = SY_CLIENT_CERT_OPTIONAL;
	else
		return sy_config_fail(err, errlen,
				      KEY ".policy: \"%s\" is not \"Required\" or \"Optional\"",
				      s != NULL ? s : "(not a string)");
	return 0;
}

static int
parse_ca_file(const json_t *v, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *s = json_string_value(v);
	STACK_OF(X509) *sk;
	char why[128];

	if (s == NULL || s[0] == '\0')
		return sy_config_fail(err, errlen, KEY ".ca_file: must be the path of a PEM file");
	if (strlen(s) >= sizeof(cfg->tls_client_ca_file))
		return sy_config_fail(err, errlen, KEY ".ca_file: \"%s\" is longer than %zu characters",
				      s, sizeof(cfg->tls_client_ca_file) - 1);
	sk = sy_config_read_ca_file(s, why, sizeof(why));
	if (sk == NULL)
		return sy_config_fail(err, errlen, KEY ".ca_file: \"%s\": %s", s, why);
	sk_X509_pop_free(sk, X509_free);
	snprintf(cfg->tls_client_ca_file, sizeof(cfg->tls_client_ca_file), "%s", s);
	return 0;
}

static int
parse_patterns(const json_t *v, struct sy_config *cfg, char *err, size_t errlen)
{
	size_t i;
	const json_t *p;

	if (!json_is_array(v) || json_array_size(v) > SY_MAX_CLIENT_SUBJECT_PATTERNS)
		return sy_config_fail(err, errlen,
				      KEY ".allowed_subject_patterns: must be a list of at most %d "
				      "regular expressions", SY_MAX_CLIENT_SUBJECT_PATTERNS);
	json_array_foreach(v, i, p) {
		const char *s = json_string_value(p);
		pcre2_code *re;
		PCRE2_SIZE off = 0;
		int code = 0;
		PCRE2_UCHAR msg[120];

		if (s == NULL)
			return sy_config_fail(err, errlen,
					      KEY ".allowed_subject_patterns[%zu]: must be a string", i);
		re = pcre2_compile((PCRE2_SPTR)s, PCRE2_ZERO_TERMINATED, 0, &code, &off, NULL);
		if (re == NULL) {
			pcre2_get_error_message(code, msg, sizeof(msg));
			return sy_config_fail(err, errlen,
					      KEY ".allowed_subject_patterns[%zu]: \"%s\" is not a "
					      "regular expression (PCRE2): %s at offset %zu",
					      i, s, (const char *)msg, (size_t)off);
		}
		pcre2_code_free(re);
		cfg->tls_client_subject_patterns[cfg->n_tls_client_subject_patterns++] = strdup(s);
	}
	return 0;
}

int
sy_config_parse_client_certs(const json_t *v, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *key;
	json_t *val;
	int rc = 0;

	if (!json_is_object(v))
		return sy_config_fail(err, errlen,
				      KEY ": must be an object, e.g. {\"policy\": \"Required\", "
				      "\"ca_file\": \"/etc/switchyard/client-ca.pem\"}");
	json_object_foreach((json_t *)v, key, val) {
		if (strcmp(key, "policy") == 0)
			rc = parse_policy(val, cfg, err, errlen);
		else if (strcmp(key, "ca_file") == 0)
			rc = parse_ca_file(val, cfg, err, errlen);
		else if (strcmp(key, "allowed_subject_patterns") == 0)
			rc = parse_patterns(val, cfg, err, errlen);
		else
			return sy_config_fail(err, errlen,
					      "tls.client_certificates.%s: unknown key (known: policy, "
					      "ca_file, allowed_subject_patterns)", key);
		if (rc < 0)
			return rc;
	}
	if (cfg->tls_client_cert_policy == SY_CLIENT_CERT_OFF)
		return sy_config_fail(err, errlen,
				      KEY ".policy: required, \"Required\" or \"Optional\"");
	if (cfg->tls_client_ca_file[0] == '\0')
		return sy_config_fail(err, errlen,
				      KEY ".ca_file: required, the CAs a client certificate must "
				      "chain to (PEM)");
	return 0;
}
