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

#include "arena.h"
#include "kinds.h"
#include "kind_util.h"
#include "store/store.h"

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

/* A copy of the value in arena a (NUL-terminated), or NULL. */
static const char *
value_in(struct sy_arena *a, const json_t *obj, const char *key, size_t *len)
{
	unsigned char *v = secret_value(obj, key, len);
	char *out = NULL;

	if (v == NULL)
		return NULL;
	if (*len > 0 && (out = sy_arena_alloc(a, *len + 1)) != NULL) {
		memcpy(out, v, *len);
		out[*len] = '\0';
	}
	OPENSSL_cleanse(v, *len);
	free(v);
	return out;
}

const char *
sy_secret_value(const struct sy_object *secret, const char *key, struct sy_arena *a, size_t *len)
{
	*len = 0;
	return secret != NULL ? value_in(a, secret->obj, key, len) : NULL;
}

enum sy_cert_problem
sy_secret_tls_check(const struct sy_object *secret, const char *host, struct sy_arena *a,
		    const struct sy_pem **out)
{
	const char *type;
	struct sy_pem p, *keep;
	enum sy_cert_problem why;

	*out = NULL;
	if (secret == NULL)
		return SY_CERT_BAD_CERT;
	type = json_string_value(json_object_get(secret->obj, "type"));
	/* Contour v0.15 internal/dag/cache.go: only kubernetes.io/tls secrets
	 * are kept for serving certificates. */
	if (type == NULL || strcmp(type, "kubernetes.io/tls") != 0)
		return SY_CERT_BAD_CERT;
	memset(&p, 0, sizeof(p));
	p.crt = value_in(a, secret->obj, "tls.crt", &p.crt_len);
	p.key = value_in(a, secret->obj, "tls.key", &p.key_len);
	if (p.crt == NULL)
		return SY_CERT_BAD_CERT;
	if (p.key == NULL)
		return SY_CERT_BAD_KEY;
	why = sy_cert_check(&p, host);
	if (why != SY_CERT_OK)
		return why;
	keep = sy_arena_alloc(a, sizeof(*keep));
	if (keep == NULL)
		return SY_CERT_BAD_CERT;
	*keep = p;
	*out = keep;
	return SY_CERT_OK;
}

const struct sy_kind sy_kind_secret = {
	.kind = "Secret",
	.group = "",
	.api_versions = (const char *const[]){ "v1", NULL },
	.names = (const char *const[]){ "secret", "secrets", NULL },
	.validate = validate_secret,
};
