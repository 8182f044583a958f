/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tls/: the control thread's TLS (the workers' is dataplane/tls/). One
 * concept per file: tls_cert.c (this header: certificates checked and their
 * server contexts shared), tls_ocsp.c (stapled OCSP responses),
 * tls_policy.c (protocol versions and ciphers, for both planes),
 * tls_client_ca.c (client certificates asked for and verified).
 *
 * Certificates for TLS termination (issue 14), on the control thread: check
 * what a route or a Secret gives (PEM that parses, a key that matches, dates,
 * the host), and build one server SSL_CTX per certificate, which the workers
 * share read-only (OpenSSL counts references atomically: a connection keeps
 * its context alive past the generation that named it).
 *
 * Contexts are cached by content (certificate, key, chain, minimum version):
 * a vhost rebuilt for an unrelated change keeps its context, and a changed
 * Secret gets a new one for new connections while open ones keep theirs.
 */
#ifndef SY_TLS_CERT_H
#define SY_TLS_CERT_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/ssl.h>

struct sy_config;

/* PEM text as the object gives it (not NUL-terminated; lengths count). */
struct sy_pem {
	const char *crt;
	size_t crt_len;
	const char *key;
	size_t key_len;
	const char *ca; /* the chain sent after crt (OpenShift caCertificate); may be NULL */
	size_t ca_len;
};

enum sy_cert_problem {
	SY_CERT_OK = 0,
	SY_CERT_BAD_CERT,      /* no certificate in the PEM */
	SY_CERT_BAD_KEY,       /* no private key in the PEM (or one with a passphrase) */
	SY_CERT_BAD_CA,        /* caCertificate given and not PEM */
	SY_CERT_KEY_MISMATCH,
	SY_CERT_EXPIRED,
	SY_CERT_NOT_YET_VALID,
	SY_CERT_WRONG_HOST,
};

/* Is p usable for host ("*.example.com" for a wildcard vhost; NULL: any)? */
enum sy_cert_problem sy_cert_check(const struct sy_pem *p, const char *host);
/* The problem as the OpenShift router words it ("certificate has expired"). */
const char *sy_cert_problem_text(enum sy_cert_problem p);

/* TLS versions a vhost may ask for: TLS 1.2 is the floor (RFC 8996; OpenSSL 3
 * refuses 1.0 and 1.1 at its default security level anyway). */
#define SY_TLS_MIN_VERSION_FLOOR 0x0303

/*
 * The server context for p at minimum version min_version (0: the floor),
 * one reference for the caller (sy_tls_ctx_put gives it back). NULL when p
 * does not make one (sy_cert_check says why).
 */
SSL_CTX *sy_tls_ctx_get(const struct sy_pem *p, uint16_t min_version);
/* The same for a vhost with client CAs of its own (client_ca: PEM, one or
 * more certificates; an HTTPProxy's clientValidation.caSecret): clients
 * must present a certificate that chains to one of them. */
SSL_CTX *sy_tls_ctx_get_client_ca(const struct sy_pem *p, uint16_t min_version,
				  const char *client_ca, size_t client_ca_len);
/* How many certificates PEM holds (0: none), -1 when it does not parse. */
int sy_tls_ca_count(const char *pem, size_t len);
void sy_tls_ctx_put(SSL_CTX *ctx);
/* The client context towards backends that verifies their chain against
 * ca (PEM; NULL: the system's trust store), one reference for the caller
 * (sy_tls_ctx_put). NULL when ca holds no certificate. */
SSL_CTX *sy_tls_client_ctx_get(const char *ca, size_t ca_len);
/* The client context towards https:// URL backends (Skipper network and lb
 * backends): their chain is verified against the config's tls.backend_ca,
 * else the system's store (which honours SSL_CERT_FILE / SSL_CERT_DIR), as
 * Skipper's Go transport does with the system's roots. One reference for
 * the caller. */
SSL_CTX *sy_tls_url_backend_ctx_get(void);
/* The client context towards Service ports annotated upstream-protocol.tls
 * or .h2 (Contour's): TLS that checks no certificate, as Contour's Envoy
 * does without an upstream validation. One reference for the caller. */
SSL_CTX *sy_tls_upstream_ctx_get(void);
/* Contexts cached, for stats and tests. */
size_t sy_tls_ctx_cached(void);

/*
 * A self-signed ECDSA P-256 certificate: subject O=org (NULL: none), CN=cn;
 * subjectAltName DNS:san when san is not NULL; valid from `from` to `to`
 * seconds from now; a random serial. The certificate and its key (PKCS#8)
 * as PEM text, malloc'd into *crt and *key. 0, or -1 (OpenSSL failed).
 * The default certificate is one; benchmarks and tests make theirs so.
 */
int sy_tls_self_signed(const char *org, const char *cn, const char *san, long from, long to,
		       char **crt, char **key);

/* The router's default certificate: what a ClientHello without a known
 * name gets. */
struct sy_tls_default {
	SSL_CTX *ctx;
	char subject[256];
	char not_after[32];  /* "2036-11-25T10:00:00Z" */
	char sha256[65];     /* of the DER certificate, lower-case hex */
	char path[512];      /* the PEM file it came from */
	int generated;       /* routerd made it (the config names none) */
};

/*
 * Set up TLS for the control thread: the cipher settings from cfg, and the
 * default certificate: cfg's tls.default_certificate (certificate and key in
 * one PEM file) or, without one, <state_dir>/default-tls.pem, generated at the
 * first start (ECDSA P-256, self-signed, 10 years) and kept from then on.
 * 0, or -1 with a message in err.
 */
int sy_tls_setup(const struct sy_config *cfg, char *err, size_t errlen);
const struct sy_tls_default *sy_tls_default(void);
void sy_tls_teardown(void);

#endif
