/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef SY_TLS_POLICY_H
#define SY_TLS_POLICY_H

#include <openssl/ssl.h>

/*
 * What every server context of ours does the same way, whatever its
 * certificate: no renegotiation or compression, our cipher order, record
 * buffers released while idle, one session ID context for all, `tickets`
 * TLS 1.3 tickets per full handshake. control/tls/tls_cert.c applies it to the
 * contexts routerd serves with; perf/tls_floor to the one it measures, so
 * that the library floor it prints is the cost of routerd's settings.
 */
void sy_tls_server_policy(SSL_CTX *ctx, unsigned tickets);

#endif
