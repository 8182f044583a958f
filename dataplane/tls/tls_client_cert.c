/* SPDX-License-Identifier: BSD-3-Clause */
/* Client certificates on the workers (tls_client_cert.h). */
#include <string.h>

#include <openssl/ssl.h>
#include <openssl/x509.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <rte_per_lcore.h>

#include "tls/tls.h"
#include "tls/tls_client_cert.h"
#include "worker.h"

/* Written once by the control thread before any worker runs. */
static const struct sy_tls_client_policy *client_policy;

/* One match-data block per lcore, made at its first use (as proxy_route.c's). */
static RTE_DEFINE_PER_LCORE(pcre2_match_data *, cc_md);

void
sy_dp_tls_client_policy_set(const struct sy_tls_client_policy *p)
{
	client_policy = p;
}

bool
sy_dp_tls_client_certs_on(void)
{
	return client_policy != NULL;
}

size_t
sy_tls_client_dn(const struct sy_tls_conn *tc, char *buf, size_t len)
{
	X509 *x;
	size_t n;

	if (tc == NULL || tc->ssl == NULL || len == 0 ||
	    (x = SSL_get0_peer_certificate(tc->ssl)) == NULL ||
	    SSL_get_verify_result(tc->ssl) != X509_V_OK)
		return 0;
	/* Into our buffer: OpenSSL allocates nothing for it. */
	if (X509_NAME_oneline(X509_get_subject_name(x), buf, (int)len) == NULL)
		return 0;
	n = strlen(buf);
	return n + 1 < len ? n : 0; /* a full buffer may be a cut subject */
}

static bool
subject_allowed(const char *dn, size_t len)
{
	pcre2_match_data *md = RTE_PER_LCORE(cc_md);
	unsigned i;

	if (client_policy->n_patterns == 0)
		return true;
	if (md == NULL) {
		md = pcre2_match_data_create(4, NULL);
		if (md == NULL)
			return false; /* refuse rather than let in unchecked */
		RTE_PER_LCORE(cc_md) = md;
	}
	for (i = 0; i < client_policy->n_patterns; i++)
		if (pcre2_match((const pcre2_code *)client_policy->patterns[i], (PCRE2_SPTR)dn, len,
				0, 0, md, NULL) >= 0)
			return true;
	return false;
}

void
sy_tls_client_cert_judge(struct sy_tls_conn *tc)
{
	char dn[SY_TLS_CLIENT_DN_MAX];
	size_t n;

	tc->client_cert = SY_TLS_CLIENT_CERT_NONE;
	if (client_policy == NULL || tc->backend || SSL_get0_peer_certificate(tc->ssl) == NULL)
		return;
	/* A certificate the handshake took has verified (the verify mode
	 * fails it otherwise); a resumed session keeps its certificate and
	 * its verify result. */
	n = sy_tls_client_dn(tc, dn, sizeof(dn));
	tc->client_cert = n > 0 && subject_allowed(dn, n) ? SY_TLS_CLIENT_CERT_ALLOWED
							  : SY_TLS_CLIENT_CERT_REFUSED;
}
