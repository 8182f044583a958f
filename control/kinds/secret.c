/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * v1 Secret: what TLS vhosts take their certificate and key from.
 *
 * Apply checks what the Kubernetes API server checks for the built-in
 * kubernetes.io/tls type (both keys present; data values base64), nothing
 * more: a Secret whose PEM does not parse is a legal object, and the kinds
 * that use it say so in their status (Contour: "TLS Secret [name] not found
 * or is malformed"). No message ever contains a data value.
 *
 * `get` shows stored Secrets as applied, data included: there is no per-kind
 * view hook in store.c yet to redact them.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>

#include "kinds.h"
#include "kind_util.h"
#include "store.h"

static int
b64_value(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * Standard base64 with padding, as encoding/json writes []byte (what the API
 * server accepts in Secret.data). Returns the decoded length, or -1. out
 * needs len * 3 / 4 + 1 bytes; NULL only checks.
 */
static long
b64_decode(const char *in, size_t len, unsigned char *out)
{
	size_t i, n = 0;
	uint32_t acc = 0;
	unsigned bits = 0, pad = 0;

	if (len % 4 != 0)
		return -1;
	for (i = 0; i < len; i++) {
		int v;

		if (in[i] == '=') {
			/* at most two, only at the end */
			if (i < len - 2 || (i == len - 2 && in[len - 1] != '='))
				return -1;
			pad++;
			continue;
		}
		v = b64_value((unsigned char)in[i]);
		if (v < 0)
			return -1;
		acc = (acc << 6) | (uint32_t)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (out != NULL)
				out[n] = (unsigned char)(acc >> bits);
			n++;
		}
	}
	(void)pad;
	return (long)n;
}

static int
check_data_map(const json_t *m, const char *field, bool base64, const char *who,
	       struct sy_errors *errs)
{
	const char *key;
	json_t *v;
	int bad = 0;

	if (m == NULL || json_is_null(m))
		return 0;
	if (!json_is_object(m))
		return sy_err_add(errs, "invalid", who, field, "must be an object of key: value");
	json_object_foreach((json_t *)m, key, v) {
		char f[320];

		snprintf(f, sizeof(f), "%s[\"%s\"]", field, key);
		if (!json_is_string(v))
			bad = sy_err_add(errs, "invalid", who, f, "must be a string");
		else if (base64 && b64_decode(json_string_value(v), json_string_length(v), NULL) < 0)
			/* never echo the value: it is secret */
			bad = sy_err_add(errs, "invalid", who, f, "must be base64 (standard, padded)");
	}
	return bad;
}

static bool
has_key(const json_t *obj, const char *key)
{
	return json_is_string(json_object_get(json_object_get(obj, "data"), key)) ||
	       json_is_string(json_object_get(json_object_get(obj, "stringData"), key));
}

static int
validate_secret(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *type = json_object_get(obj, "type");
	int bad = 0;

	if (type != NULL && !json_is_string(type))
		return sy_err_add(errs, "invalid", who, "type", "must be a string");
	if (check_data_map(json_object_get(obj, "data"), "data", true, who, errs) < 0)
		bad = -1;
	if (check_data_map(json_object_get(obj, "stringData"), "stringData", false, who, errs) < 0)
		bad = -1;
	/* k8s.io/kubernetes pkg/apis/core/validation ValidateSecret, SecretTypeTLS. */
	if (json_is_string(type) && strcmp(json_string_value(type), "kubernetes.io/tls") == 0) {
		if (!has_key(obj, "tls.crt"))
			bad = sy_err_add(errs, "invalid", who, "data[\"tls.crt\"]", "required");
		if (!has_key(obj, "tls.key"))
			bad = sy_err_add(errs, "invalid", who, "data[\"tls.key\"]", "required");
	}
	return bad;
}

/* stringData wins over data, as the API server merges them on write. */
static unsigned char *
secret_value(const json_t *obj, const char *key, size_t *len)
{
	const json_t *s = json_object_get(json_object_get(obj, "stringData"), key);
	const json_t *d = json_object_get(json_object_get(obj, "data"), key);
	unsigned char *out;
	long n;

	if (json_is_string(s)) {
		*len = json_string_length(s);
		out = malloc(*len + 1);
		if (out != NULL)
			memcpy(out, json_string_value(s), *len + 1);
		return out;
	}
	if (!json_is_string(d))
		return NULL;
	out = malloc(json_string_length(d) * 3 / 4 + 1);
	if (out == NULL)
		return NULL;
	n = b64_decode(json_string_value(d), json_string_length(d), out);
	if (n < 0) {
		free(out);
		return NULL;
	}
	*len = (size_t)n;
	return out;
}

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

bool
sy_secret_tls_valid(const struct sy_object *secret)
{
	const char *type;
	unsigned char *crt = NULL, *key = NULL;
	size_t crt_len = 0, key_len = 0;
	BIO *bio;
	X509 *x = NULL;
	EVP_PKEY *pk = NULL;
	bool ok = false;

	if (secret == NULL)
		return false;
	type = json_string_value(json_object_get(secret->obj, "type"));
	/* Contour v0.15 internal/dag/cache.go: only kubernetes.io/tls secrets
	 * are kept for serving certificates. */
	if (type == NULL || strcmp(type, "kubernetes.io/tls") != 0)
		return false;
	crt = secret_value(secret->obj, "tls.crt", &crt_len);
	key = secret_value(secret->obj, "tls.key", &key_len);
	if (crt == NULL || key == NULL || crt_len == 0 || key_len == 0 || crt_len > INT32_MAX ||
	    key_len > INT32_MAX)
		goto out;
	bio = BIO_new_mem_buf(crt, (int)crt_len);
	if (bio != NULL) {
		x = PEM_read_bio_X509(bio, NULL, no_passphrase, NULL);
		BIO_free(bio);
	}
	bio = BIO_new_mem_buf(key, (int)key_len);
	if (bio != NULL) {
		pk = PEM_read_bio_PrivateKey(bio, NULL, no_passphrase, NULL);
		BIO_free(bio);
	}
	ok = x != NULL && pk != NULL;
	X509_free(x);
	EVP_PKEY_free(pk);
	ERR_clear_error();
out:
	/* the key material does not outlive the check */
	if (key != NULL)
		OPENSSL_cleanse(key, key_len);
	free(crt);
	free(key);
	return ok;
}

const struct sy_kind sy_kind_secret = {
	.kind = "Secret",
	.group = "",
	.api_versions = (const char *const[]){ "v1", NULL },
	.names = (const char *const[]){ "secret", "secrets", NULL },
	.validate = validate_secret,
};
