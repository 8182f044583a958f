/* SPDX-License-Identifier: BSD-3-Clause */
/* The settings every server context shares (tls_policy.h). OpenSSL only:
 * perf/tls_floor builds this file without the rest of routerd. */
#include "tls/tls_policy.h"

void
sy_tls_server_policy(SSL_CTX *ctx, unsigned tickets)
{
	/* No renegotiation (a client-driven CPU sink, RFC 9113 forbids it for
	 * h2 anyway), no compression (CRIME), our cipher order. */
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_NO_COMPRESSION |
					 SSL_OP_CIPHER_SERVER_PREFERENCE);
	/* Record buffers go back to OpenSSL's free lists while a connection
	 * is idle: a keep-alive connection holds ~1 KB instead of ~34 KB. */
	SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS);
	/* Sessions are resumed by any worker, from any of our contexts. */
	SSL_CTX_set_session_id_context(ctx, (const unsigned char *)"switchyard", 10);
	/* OpenSSL sends two TLS 1.3 tickets by default, for clients that open
	 * parallel connections with single-use tickets. Ours open on any worker
	 * as often as a client likes until their key retires, so one serves
	 * every later connection; each more costs a session encoding, AES-CBC,
	 * HMAC and a record on every full handshake (tls.tickets). */
	SSL_CTX_set_num_tickets(ctx, tickets);
}
