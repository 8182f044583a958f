/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * One terminated TLS connection over our TCP (tls.h). OpenSSL reads
 * ciphertext through a BIO of ours straight from the TCP leg's receive
 * queue and writes records onto its send queue; decrypted bytes land in
 * mbufs of the worker's pool (one copy: the decryption's output), and the
 * proxy's plaintext is gathered into records of up to 16 KB.
 */
#include <stdio.h>
#include <string.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <rte_cycles.h>
#include <rte_mbuf.h>
#include <rte_per_lcore.h>

#include "tcp/tcb.h"
#include "tls/tls.h"
#include "tls/tls_client_cert.h"
#include "tls/tls_internal.h"
#include "worker.h"

#define SY_TLS_RECORD_PLAIN 16384

static RTE_DEFINE_PER_LCORE(uint8_t, tls_gather[SY_TLS_RECORD_PLAIN]);
static SSL_CTX *tls_default_ctx; /* set before the workers start */

void
sy_dp_tls_set_default(SSL_CTX *ctx)
{
	tls_default_ctx = ctx;
}

SSL_CTX *
sy_dp_tls_default_ctx(void)
{
	return tls_default_ctx;
}

/*
 * OpenSSL wants the thread's error queue empty before an I/O call, since
 * SSL_get_error reads it. ERR_clear_error walks all sixteen slots (~200 ns
 * here, about 25 times a handshake); looking first costs ~25 ns, and the
 * queue is nearly always empty already. SSL_get_error itself only looks
 * with ERR_peek_error, so "peek says empty" is all it needs.
 */
static inline void
tls_errors_reset(void)
{
	if (ERR_peek_error() != 0)
		ERR_clear_error();
}

/* ------------------------------------------------------------- the BIO -- */

static int
bio_write(BIO *b, const char *buf, int len)
{
	struct sy_tls_conn *tc = BIO_get_data(b);

	BIO_clear_retry_flags(b);
	if (len <= 0)
		return 0;
	if (sy_mq_append_bytes(&tc->t->sndq, buf, (uint32_t)len, tc->w->sh->pool) < 0) {
		/* No mbufs: OpenSSL keeps the record and tries again. */
		BIO_set_retry_write(b);
		return -1;
	}
	return len;
}

static int
bio_read(BIO *b, char *buf, int len)
{
	struct sy_tls_conn *tc = BIO_get_data(b);
	struct sy_mq *q = &tc->t->rcvq;
	uint32_t n;

	BIO_clear_retry_flags(b);
	if (len <= 0)
		return 0;
	if (q->bytes == 0) {
		if (tc->t->flags & SY_TCB_F_FIN_RCVD)
			return 0; /* end of the stream */
		BIO_set_retry_read(b);
		return -1;
	}
	n = q->bytes < (uint32_t)len ? q->bytes : (uint32_t)len;
	sy_mq_copy(q, 0, n, buf);
	sy_mq_drop(q, n);
	return (int)n;
}

static long
bio_ctrl(BIO *b, int cmd, long num, void *ptr)
{
	struct sy_tls_conn *tc = BIO_get_data(b);

	(void)num;
	(void)ptr;
	switch (cmd) {
	case BIO_CTRL_FLUSH:
		return 1;
	case BIO_CTRL_PENDING:
		return tc != NULL ? (long)tc->t->rcvq.bytes : 0;
	case BIO_CTRL_WPENDING:
		return 0;
	default:
		return 0;
	}
}

static int
bio_create(BIO *b)
{
	BIO_set_init(b, 1);
	return 1;
}

int
sy_tls_worker_init(struct sy_worker *w)
{
	struct sy_tls_worker *tw = calloc(1, sizeof(*tw));

	if (tw == NULL)
		return -1;
	tw->w = w;
	tw->bio_method = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK, "switchyard tcp");
	if (tw->bio_method == NULL) {
		free(tw);
		return -1;
	}
	BIO_meth_set_write(tw->bio_method, bio_write);
	BIO_meth_set_read(tw->bio_method, bio_read);
	BIO_meth_set_ctrl(tw->bio_method, bio_ctrl);
	BIO_meth_set_create(tw->bio_method, bio_create);
	w->tcp.tls = tw;
	return 0;
}

void
sy_tls_worker_fini(struct sy_worker *w)
{
	struct sy_tls_worker *tw = w->tcp.tls;

	if (tw == NULL)
		return;
	sy_tls_sessions_free(tw);
	BIO_meth_free(tw->bio_method);
	free(tw);
	w->tcp.tls = NULL;
}

/* ------------------------------------------------------ a connection -- */

/*
 * Both roles: tc set up over leg t on a new SSL of ctx with our BIO; name
 * (client role only) is the SNI sent and the name the peer's certificate
 * must carry. -1 when OpenSSL has no memory (counted; tc is FAILED).
 */
/* The backend's certificate must be for name. An address literal is
 * matched against the certificate's IP addresses and sent without SNI
 * (RFC 6066 3: "Literal IPv4 and IPv6 addresses are not permitted"). */
static int
tls_name_check(SSL *ssl, const char *name)
{
	/* Dotted IPv4, or IPv6 text (a colon is never in a host name). */
	if (name[strspn(name, "0123456789.")] == '\0' || strchr(name, ':') != NULL)
		return X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1 ? 0 : -1;
	return SSL_set_tlsext_host_name(ssl, name) == 1 && SSL_set1_host(ssl, name) == 1 ? 0 : -1;
}

static int
tls_start(struct sy_worker *w, struct sy_tls_conn *tc, struct sy_tcb *t, SSL_CTX *ctx,
	  bool backend, const char *name)
{
	uint64_t t0;
	BIO *bio;

	memset(tc, 0, sizeof(*tc));
	tc->w = w;
	tc->t = t;
	tc->backend = backend;
	sy_mq_init(&tc->in);
	sy_mq_init(&tc->out);
	tc->state = SY_TLS_HANDSHAKE;
	if (ctx == NULL || w->tcp.tls == NULL)
		goto fail;
	t0 = rte_rdtsc();
	tc->ssl = SSL_new(ctx);
	w->counters.tls_handshake_cycles += rte_rdtsc() - t0;
	if (tc->ssl == NULL)
		goto fail;
	if (name != NULL && name[0] && tls_name_check(tc->ssl, name) < 0)
		goto fail;
	bio = BIO_new(w->tcp.tls->bio_method);
	if (bio == NULL)
		goto fail;
	BIO_set_data(bio, tc);
	SSL_set_bio(tc->ssl, bio, bio);
	SSL_set_app_data(tc->ssl, tc);
	if (backend)
		SSL_set_connect_state(tc->ssl);
	else
		SSL_set_accept_state(tc->ssl);
	return 0;
fail:
	SSL_free(tc->ssl);
	tc->ssl = NULL;
	tc->state = SY_TLS_FAILED;
	ERR_clear_error();
	w->counters.tls_no_memory++;
	return -1;
}

int
sy_tls_accept(struct sy_worker *w, struct sy_tls_conn *tc, struct sy_tcb *t)
{
	return tls_start(w, tc, t, tls_default_ctx, false, NULL);
}

int
sy_tls_connect(struct sy_worker *w, struct sy_tls_conn *tc, struct sy_tcb *t, SSL_CTX *ctx,
	       const char *name)
{
	return tls_start(w, tc, t, ctx, true, name);
}

/* Read back from where tls_name_check put it: the SSL's own verification
 * parameters hold the host name (SSL_set1_host) or the IP address. */
void
sy_tls_conn_name(const struct sy_tls_conn *tc, char *buf, size_t len)
{
	X509_VERIFY_PARAM *vp;
	const char *host;
	char *ip;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (tc->ssl == NULL || (vp = SSL_get0_param(tc->ssl)) == NULL)
		return;
	if ((host = X509_VERIFY_PARAM_get0_host(vp, 0)) != NULL) {
		snprintf(buf, len, "%s", host);
	} else if ((ip = X509_VERIFY_PARAM_get1_ip_asc(vp)) != NULL) {
		snprintf(buf, len, "%s", ip);
		OPENSSL_free(ip);
	}
}

/* The handshake or a record went wrong: OpenSSL queued its alert (through
 * the BIO, on the TCP send queue); the FIN follows it. */
static void
tls_fail(struct sy_tls_conn *tc, bool handshake)
{
	if (handshake && tc->backend)
		tc->w->counters.tls_backend_handshake_failures++;
	else if (handshake)
		tc->w->counters.tls_handshake_failures++;
	else
		tc->w->counters.tls_record_errors++;
	tc->state = SY_TLS_FAILED;
	ERR_clear_error();
	sy_tcb_close(tc->t);
	tc->closed = true;
}

static bool
tls_handshake(struct sy_tls_conn *tc)
{
	uint64_t t0;
	int r, e;

	tls_errors_reset();
	t0 = rte_rdtsc();
	r = SSL_do_handshake(tc->ssl);
	tc->w->counters.tls_handshake_cycles += rte_rdtsc() - t0;
	if (r == 1) {
		tc->state = SY_TLS_OPEN;
		if (tc->backend) {
			tc->w->counters.tls_backend_handshakes++;
			return true;
		}
		tc->w->counters.tls_handshakes++;
		if (sy_dp_tls_client_certs_on())
			sy_tls_client_cert_judge(tc);
		if (SSL_session_reused(tc->ssl))
			tc->w->counters.tls_resumptions++;
		return true;
	}
	e = SSL_get_error(tc->ssl, r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		if ((tc->t->flags & SY_TCB_F_FIN_RCVD) && tc->t->rcvq.bytes == 0) {
			/* The client left mid-handshake. */
			tc->w->counters.tls_handshake_abandoned++;
			tc->state = SY_TLS_FAILED;
			sy_tcb_close(tc->t);
			tc->closed = true;
			return true;
		}
		return false;
	}
	tls_fail(tc, true);
	return true;
}

/* Decrypt what there is into `in`, up to SY_TLS_IN_MAX held. */
static bool
tls_read(struct sy_tls_conn *tc)
{
	struct rte_mempool *pool = tc->w->sh->pool;
	bool moved = false;

	while (!tc->eof && tc->in.bytes < SY_TLS_IN_MAX) {
		struct rte_mbuf *m;
		size_t got = 0;
		int r, e;

		if (tc->t->rcvq.bytes == 0 && SSL_pending(tc->ssl) == 0 &&
		    !(tc->t->flags & SY_TCB_F_FIN_RCVD))
			break; /* nothing to read: no mbuf taken and given back */
		m = rte_pktmbuf_alloc(pool);
		if (m == NULL)
			break;
		tls_errors_reset();
		r = SSL_read_ex(tc->ssl, rte_pktmbuf_mtod(m, void *), rte_pktmbuf_tailroom(m), &got);
		if (r == 1 && got > 0) {
			m->data_len = (uint16_t)got;
			m->pkt_len = (uint32_t)got;
			sy_mq_append(&tc->in, m);
			moved = true;
			continue;
		}
		rte_pktmbuf_free(m);
		e = SSL_get_error(tc->ssl, r);
		if (e == SSL_ERROR_ZERO_RETURN) {
			tc->eof = true; /* close_notify */
			moved = true;
		} else if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
			if ((tc->t->flags & SY_TCB_F_FIN_RCVD) && tc->t->rcvq.bytes == 0) {
				tc->eof = true; /* FIN without close_notify: HTTP frames its own end */
				moved = true;
			}
		} else if (e == SSL_ERROR_SYSCALL || e == SSL_ERROR_SSL) {
			if ((tc->t->flags & SY_TCB_F_FIN_RCVD) && tc->t->rcvq.bytes == 0 &&
			    ERR_peek_error() == 0) {
				tc->eof = true;
			} else {
				tls_fail(tc, false);
			}
			moved = true;
		}
		break;
	}
	return moved;
}

/* Records from `out`, while the TCP send queue has room. */
static bool
tls_write(struct sy_tls_conn *tc, uint32_t sndbuf)
{
	uint8_t *gather = RTE_PER_LCORE(tls_gather);
	bool moved = false;

	while (tc->out.bytes > 0 && tc->t->sndq.bytes < sndbuf && tc->state == SY_TLS_OPEN) {
		uint32_t n = tc->out.bytes < SY_TLS_RECORD_PLAIN ? tc->out.bytes : SY_TLS_RECORD_PLAIN;
		size_t done = 0;
		int r;

		sy_mq_copy(&tc->out, 0, n, gather);
		tls_errors_reset();
		r = SSL_write_ex(tc->ssl, gather, n, &done);
		if (r != 1) {
			int e = SSL_get_error(tc->ssl, r);

			if (e != SSL_ERROR_WANT_WRITE && e != SSL_ERROR_WANT_READ)
				tls_fail(tc, false);
			break; /* no mbufs: again on the next pump, same bytes */
		}
		sy_mq_drop(&tc->out, (uint32_t)done);
		moved = true;
	}
	return moved;
}

bool
sy_tls_pump_in(struct sy_tls_conn *tc)
{
	uint32_t rcv = tc->t->rcvq.bytes, snd = tc->t->sndq.bytes;
	bool moved = false;

	if (tc->state != SY_TLS_OPEN)
		return sy_tls_pump(tc);
	moved = tls_read(tc);
	if (tc->t->rcvq.bytes != rcv)
		sy_tcb_consumed(tc->w, tc->t);
	/* What reading wrote itself (a KeyUpdate's answer) counts. */
	return moved || tc->t->sndq.bytes != snd;
}

bool
sy_tls_pump(struct sy_tls_conn *tc)
{
	uint32_t rcv = tc->t->rcvq.bytes, snd = tc->t->sndq.bytes;
	bool moved = false;

	if (tc->state == SY_TLS_HANDSHAKE)
		moved |= tls_handshake(tc);
	if (tc->state == SY_TLS_OPEN) {
		moved |= tls_read(tc);
		moved |= tls_write(tc, SY_TLS_SNDBUF);
		if (tc->close_wanted && tc->out.bytes == 0 && !tc->closed &&
		    tc->state == SY_TLS_OPEN) {
			tls_errors_reset();
			SSL_shutdown(tc->ssl); /* our close_notify; we do not wait for theirs */
			tls_errors_reset();
			sy_tcb_close(tc->t);
			tc->closed = true;
			moved = true;
		}
	}
	if (tc->t->rcvq.bytes != rcv)
		sy_tcb_consumed(tc->w, tc->t);
	return moved || tc->t->sndq.bytes != snd;
}

uint32_t
sy_tls_send_room(const struct sy_tls_conn *tc, uint32_t sndbuf)
{
	uint32_t used = tc->out.bytes + tc->t->sndq.bytes;

	if (tc->close_wanted || tc->state == SY_TLS_FAILED)
		return 0;
	return used < sndbuf ? sndbuf - used : 0;
}

void
sy_tls_conn_move(struct sy_tls_conn *dst, struct sy_tls_conn *src, struct sy_tcb *t)
{
	*dst = *src;
	dst->t = t;
	if (dst->ssl != NULL) {
		/* The BIO and the callbacks find the connection by these. */
		BIO_set_data(SSL_get_rbio(dst->ssl), dst);
		SSL_set_app_data(dst->ssl, dst);
	}
	memset(src, 0, sizeof(*src));
	sy_mq_init(&src->in);
	sy_mq_init(&src->out);
}

void
sy_tls_free(struct sy_tls_conn *tc)
{
	if (tc->ssl != NULL) {
		uint64_t t0 = rte_rdtsc();

		/* Nothing more is sent: the connection is closed or reset. */
		SSL_free(tc->ssl);
		tc->w->counters.tls_handshake_cycles += rte_rdtsc() - t0;
		tc->ssl = NULL;
	}
	sy_mq_free(&tc->in);
	sy_mq_free(&tc->out);
	tls_errors_reset();
}
