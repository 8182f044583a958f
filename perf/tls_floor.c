/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * tls_floor: what OpenSSL itself spends on the server's side of one TLS 1.3
 * handshake, in process: no network, no TCP, no router, no HAProxy. A client
 * and a server SSL talk through a BIO pair in one thread, and only the
 * server's calls are timed (SSL_new, every SSL_do_handshake, SSL_free), in
 * thread CPU time.
 *
 * perf/tls prints this beside the two proxies' figures: a server built on
 * this library cannot spend less per handshake than this, whatever it does
 * around it, so it bounds what any router linking Debian's libssl3 can reach
 * against HAProxy (which links the same library).
 *
 *   tls_floor [--cert CERT.pem --key KEY.pem] [--handshakes N] [--tickets "0 1 2"]
 *             [--suite TLS_AES_128_GCM_SHA256] [--alloc libc|switchyard]
 *             [--paced-by-cpu CPU [--clients K]] [--gap-us N]
 *
 * Back to back, the client's steps run on the server's core just before the
 * server's, on the same code and tables, so each server step finds them warm.
 * A network server's steps are paced by clients elsewhere: it waits for the
 * next flight, and its caches hold what it did last. --paced-by-cpu measures
 * that: K client processes (default 4, as perf/tls's s_time clients) pinned
 * to CPU, each over its own socket pair (one message per flight); the server,
 * on the calling thread's CPU, sleeps in poll() until a flight arrives, as an
 * event-driven server does, and only its calls are timed, as back to back.
 *
 * --gap-us N (back to back only) spins N us of wall time, touching no memory,
 * before each of the server's calls: the time apart a paced server's steps
 * are, without a client elsewhere or any sleep. On a VM whose vCPU is taken
 * away now and then (perf/vcpu_gaps), what runs in the meantime empties the
 * caches, and a step that follows finds them cold.
 *
 * Without --cert and --key it makes a self-signed ECDSA P-256 certificate in
 * memory. --alloc switchyard gives OpenSSL routerd's allocator
 * (dataplane/tls/tls_alloc.c), as routerd does outside sanitizer builds.
 *
 * Prints one row per ticket count: full and resumed handshakes, server CPU
 * per handshake (median of 10 batches) and the share spent in SSL_new and
 * SSL_free; --paced-by-cpu prints the same table under a line saying so.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* sched_setaffinity */
#endif
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "tls/tls_alloc.h"
#include "tls/tls_policy.h"

#define BATCHES 10
#define MAX_CLIENTS 16

static double
thread_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void
die(const char *what)
{
	fprintf(stderr, "tls_floor: %s\n", what);
	ERR_print_errors_fp(stderr);
	exit(1);
}

/* Server CPU of one handshake, split into its parts. */
static double gap_us; /* --gap-us */

/* Spin gap_us of wall time (the clock is read from the vDSO: no system call). */
static void
gap(void)
{
	struct timespec a, b;

	if (gap_us <= 0)
		return;
	clock_gettime(CLOCK_MONOTONIC, &a);
	do
		clock_gettime(CLOCK_MONOTONIC, &b);
	while ((b.tv_sec - a.tv_sec) * 1e6 + (b.tv_nsec - a.tv_nsec) / 1e3 < gap_us);
}

struct cost {
	double new_us, hs_us, free_us;
};

/* A client SSL over rbio/wbio for floor.test, offering sess unless NULL. */
static SSL *
new_client(SSL_CTX *cctx, BIO *rbio, BIO *wbio, SSL_SESSION *sess)
{
	SSL *cl = SSL_new(cctx);

	if (cl == NULL || rbio == NULL || wbio == NULL)
		die("client SSL or its BIOs");
	SSL_set_bio(cl, rbio, wbio);
	SSL_set_connect_state(cl);
	SSL_set_tlsext_host_name(cl, "floor.test");
	if (sess != NULL)
		SSL_set_session(cl, sess);
	return cl;
}

/*
 * One handshake: the client offers sess (NULL: a full handshake) and keeps
 * the first ticket it gets in *out (when out is not NULL). Returns whether
 * the server resumed; dies when the handshake fails.
 */
static int
handshake(SSL_CTX *sctx, SSL_CTX *cctx, SSL_SESSION *sess, SSL_SESSION **out, struct cost *c)
{
	SSL *cl, *sv;
	BIO *cb, *sb;
	double t;
	int cdone = 0, sdone = 0, rounds = 0, resumed;
	char buf[256];

	if (BIO_new_bio_pair(&cb, 0, &sb, 0) != 1)
		die("BIO pair");
	cl = new_client(cctx, cb, cb, sess);

	gap();
	t = thread_us();
	sv = SSL_new(sctx);
	if (sv == NULL)
		die("server SSL_new");
	SSL_set_bio(sv, sb, sb);
	SSL_set_accept_state(sv);
	c->new_us += thread_us() - t;

	while (!(cdone && sdone)) {
		int r;

		if (++rounds > 20)
			die("handshake did not finish in 20 rounds");
		if (!cdone) {
			r = SSL_do_handshake(cl);
			if (r == 1)
				cdone = 1;
			else if (SSL_get_error(cl, r) != SSL_ERROR_WANT_READ)
				die("client handshake");
		}
		if (!sdone) {
			gap();
			t = thread_us();
			r = SSL_do_handshake(sv);
			c->hs_us += thread_us() - t;
			if (r == 1)
				sdone = 1;
			else if (SSL_get_error(sv, r) != SSL_ERROR_WANT_READ)
				die("server handshake");
		}
	}
	/* The client reads what the server sent after its Finished: the
	 * tickets (nothing else is coming, so the read wants more). */
	if (SSL_read(cl, buf, sizeof(buf)) > 0)
		die("unexpected application data");
	resumed = SSL_session_reused(sv);
	if (out != NULL)
		*out = SSL_get1_session(cl);
	/* As openssl s_time leaves: no close_notify either way (SSL_free
	 * would mark an unshut session not resumable). */
	SSL_set_shutdown(cl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);

	gap();
	t = thread_us();
	SSL_free(sv);
	c->free_us += thread_us() - t;
	SSL_free(cl);
	return resumed;
}

/* Certificate and key from PEM files, or a self-signed ECDSA P-256 pair made
 * here (the kind perf/tls gives both proxies). */
static void
server_identity(SSL_CTX *sctx, const char *crt, const char *key)
{
	EVP_PKEY *k;
	X509 *x;

	if (crt != NULL) {
		if (SSL_CTX_use_certificate_chain_file(sctx, crt) != 1 ||
		    SSL_CTX_use_PrivateKey_file(sctx, key, SSL_FILETYPE_PEM) != 1)
			die("could not load --cert / --key");
		return;
	}
	k = EVP_EC_gen("P-256");
	x = X509_new();
	if (k == NULL || x == NULL || X509_set_version(x, 2) != 1 ||
	    ASN1_INTEGER_set(X509_get_serialNumber(x), 1) != 1 ||
	    X509_gmtime_adj(X509_getm_notBefore(x), -60) == NULL ||
	    X509_gmtime_adj(X509_getm_notAfter(x), 86400) == NULL ||
	    X509_NAME_add_entry_by_txt(X509_get_subject_name(x), "CN", MBSTRING_ASC,
				       (const unsigned char *)"floor.test", -1, -1, 0) != 1 ||
	    X509_set_issuer_name(x, X509_get_subject_name(x)) != 1 || X509_set_pubkey(x, k) != 1 ||
	    X509_sign(x, k, EVP_sha256()) == 0 || SSL_CTX_use_certificate(sctx, x) != 1 ||
	    SSL_CTX_use_PrivateKey(sctx, k) != 1)
		die("could not make a self-signed P-256 certificate");
	X509_free(x);
	EVP_PKEY_free(k);
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median_of_batches(double per[BATCHES])
{
	qsort(per, BATCHES, sizeof(per[0]), cmp_double);
	return (per[BATCHES / 2 - 1] + per[BATCHES / 2]) / 2;
}

/* Median over BATCHES batches of n handshakes: us per handshake, and the
 * shares of SSL_new and SSL_free in it. */
static void
measure(SSL_CTX *sctx, SSL_CTX *cctx, int n, int resume, double *med, double *newp,
	double *freep)
{
	double per[BATCHES], news = 0, frees = 0, all = 0;
	SSL_SESSION *sess = NULL;
	int b, i;

	if (resume) {
		struct cost warm = { 0 };

		handshake(sctx, cctx, NULL, &sess, &warm);
		if (sess == NULL || !SSL_SESSION_is_resumable(sess))
			die("no resumable session from the full handshake (tickets 0?)");
	}
	for (b = 0; b < BATCHES; b++) {
		struct cost c = { 0 };

		for (i = 0; i < n; i++)
			if (handshake(sctx, cctx, sess, NULL, &c) != resume)
				die(resume ? "the server did not resume" : "the server resumed");
		per[b] = (c.new_us + c.hs_us + c.free_us) / n;
		news += c.new_us;
		frees += c.free_us;
		all += c.new_us + c.hs_us + c.free_us;
	}
	SSL_SESSION_free(sess);
	*med = median_of_batches(per);
	*newp = 100 * news / all;
	*freep = 100 * frees / all;
}

/* ------------------------------------------------------------- paced -- */

static unsigned char flight[65536];

/* One flight: whatever the SSL wrote into its memory BIO, as one message
 * (possibly empty). */
static void
send_flight(int fd, BIO *wbio)
{
	int n = BIO_read(wbio, flight, sizeof(flight));

	if (n < 0)
		n = 0;
	if (send(fd, flight, (size_t)n, MSG_NOSIGNAL) != n)
		die("send a flight");
}

static int
recv_flight(int fd)
{
	ssize_t n = recv(fd, flight, sizeof(flight), 0);

	if (n < 0)
		die("recv a flight");
	return (int)n;
}

/* A client process: n handshakes over fd, each ended by reading the
 * server's last flight (its tickets). resume: one full handshake first,
 * then n resuming its ticket, as s_time -reuse. */
static void
client_process(SSL_CTX *cctx, int fd, int cpu, int n, int resume)
{
	SSL_SESSION *sess = NULL;
	cpu_set_t set;
	int i;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) != 0)
		die("--paced-by-cpu: cannot run on that CPU");
	for (i = 0; i < n + resume; i++) {
		BIO *r = BIO_new(BIO_s_mem()), *w = BIO_new(BIO_s_mem());
		SSL *cl = new_client(cctx, r, w, sess);
		char buf[256];
		int rc;

		while ((rc = SSL_do_handshake(cl)) != 1) {
			if (SSL_get_error(cl, rc) != SSL_ERROR_WANT_READ)
				die("client handshake");
			send_flight(fd, w);
			BIO_write(r, flight, recv_flight(fd));
		}
		send_flight(fd, w); /* the client's Finished */
		BIO_write(r, flight, recv_flight(fd)); /* the tickets */
		if (SSL_read(cl, buf, sizeof(buf)) > 0)
			die("unexpected application data");
		if (resume && sess == NULL)
			sess = SSL_get1_session(cl);
		SSL_set_shutdown(cl, SSL_SENT_SHUTDOWN | SSL_RECEIVED_SHUTDOWN);
		SSL_free(cl);
	}
	SSL_SESSION_free(sess);
	_exit(0);
}

/*
 * As measure(), with the handshakes paced by k client processes on cpu:
 * n handshakes in all, the server's cost of each in the order they
 * finished, then the median of BATCHES consecutive batches' means.
 */
static void
measure_paced(SSL_CTX *sctx, SSL_CTX *cctx, int n, int resume, int cpu, int k, double *med,
	      double *newp, double *freep)
{
	struct {
		SSL *sv;
		BIO *rbio, *wbio;
		struct cost c;
		int warm; /* resume: this client's first, full handshake is not counted */
	} conn[MAX_CLIENTS];
	struct pollfd pf[MAX_CLIENTS];
	pid_t pid[MAX_CLIENTS];
	double *each = calloc((size_t)n, sizeof(*each)), per[BATCHES], news = 0, frees = 0, all = 0;
	int j, done = 0, open_fds = k, b;

	if (each == NULL)
		die("no memory");
	fflush(stdout);
	for (j = 0; j < k; j++) {
		int sp[2];

		if (socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sp) != 0)
			die("socketpair");
		pid[j] = fork();
		if (pid[j] < 0)
			die("fork");
		if (pid[j] == 0) {
			close(sp[1]);
			client_process(cctx, sp[0], cpu, n / k + (j < n % k), resume);
		}
		close(sp[0]);
		pf[j].fd = sp[1];
		pf[j].events = POLLIN;
		conn[j].sv = NULL;
		conn[j].warm = resume;
	}
	while (open_fds > 0) {
		if (poll(pf, (nfds_t)k, -1) < 0 && errno != EINTR)
			die("poll");
		for (j = 0; j < k; j++) {
			double t;
			int m, r;

			if (pf[j].fd < 0 || !(pf[j].revents & (POLLIN | POLLHUP)))
				continue;
			m = recv_flight(pf[j].fd);
			if (m == 0 && conn[j].sv == NULL) { /* this client is done */
				close(pf[j].fd);
				pf[j].fd = -1;
				open_fds--;
				continue;
			}
			if (m == 0) /* a client's flights are never empty: it left */
				die("a client process quit in the middle of a handshake");
			if (conn[j].sv == NULL) {
				memset(&conn[j].c, 0, sizeof(conn[j].c));
				conn[j].rbio = BIO_new(BIO_s_mem());
				conn[j].wbio = BIO_new(BIO_s_mem());
				if (conn[j].rbio == NULL || conn[j].wbio == NULL)
					die("server BIOs");
				t = thread_us();
				conn[j].sv = SSL_new(sctx);
				if (conn[j].sv == NULL)
					die("server SSL_new");
				SSL_set_bio(conn[j].sv, conn[j].rbio, conn[j].wbio);
				SSL_set_accept_state(conn[j].sv);
				conn[j].c.new_us += thread_us() - t;
			}
			BIO_write(conn[j].rbio, flight, m);
			t = thread_us();
			r = SSL_do_handshake(conn[j].sv);
			conn[j].c.hs_us += thread_us() - t;
			if (r != 1 && SSL_get_error(conn[j].sv, r) != SSL_ERROR_WANT_READ)
				die("server handshake");
			send_flight(pf[j].fd, conn[j].wbio);
			if (r != 1)
				continue;
			if (SSL_session_reused(conn[j].sv) != (resume && !conn[j].warm))
				die(resume ? "the server did not resume" : "the server resumed");
			t = thread_us();
			SSL_free(conn[j].sv);
			conn[j].c.free_us += thread_us() - t;
			conn[j].sv = NULL;
			if (conn[j].warm) {
				conn[j].warm = 0;
				continue;
			}
			if (done < n) {
				struct cost *c = &conn[j].c;

				each[done++] = c->new_us + c->hs_us + c->free_us;
				news += c->new_us;
				frees += c->free_us;
				all += c->new_us + c->hs_us + c->free_us;
			}
		}
	}
	for (j = 0; j < k; j++) {
		int st;

		if (waitpid(pid[j], &st, 0) != pid[j] || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
			die("a client process failed");
	}
	if (done != n)
		die("fewer handshakes than asked");
	for (b = 0; b < BATCHES; b++) {
		int lo = b * n / BATCHES, hi = (b + 1) * n / BATCHES, i;

		per[b] = 0;
		for (i = lo; i < hi; i++)
			per[b] += each[i];
		per[b] /= hi - lo;
	}
	free(each);
	*med = median_of_batches(per);
	*newp = 100 * news / all;
	*freep = 100 * frees / all;
}

int
main(int argc, char **argv)
{
	const char *crt = NULL, *key = NULL, *suite = "TLS_AES_128_GCM_SHA256", *tickets = "0 1 2";
	int n = 300, i, alloc_sy = 0, paced_cpu = -1, clients = 4;
	SSL_CTX *cctx;

	for (i = 1; i < argc; i += 2) {
		if (i + 1 >= argc)
			die("usage: tls_floor [--cert CERT.pem --key KEY.pem] [--handshakes N] "
			    "[--tickets \"0 1 2\"] [--suite S] [--alloc libc|switchyard] "
			    "[--paced-by-cpu CPU [--clients K]] [--gap-us N]");
		if (strcmp(argv[i], "--cert") == 0)
			crt = argv[i + 1];
		else if (strcmp(argv[i], "--key") == 0)
			key = argv[i + 1];
		else if (strcmp(argv[i], "--handshakes") == 0)
			n = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--tickets") == 0)
			tickets = argv[i + 1];
		else if (strcmp(argv[i], "--suite") == 0)
			suite = argv[i + 1];
		else if (strcmp(argv[i], "--alloc") == 0 && strcmp(argv[i + 1], "switchyard") == 0)
			alloc_sy = 1;
		else if (strcmp(argv[i], "--alloc") == 0 && strcmp(argv[i + 1], "libc") == 0)
			alloc_sy = 0;
		else if (strcmp(argv[i], "--paced-by-cpu") == 0)
			paced_cpu = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--clients") == 0)
			clients = atoi(argv[i + 1]);
		else if (strcmp(argv[i], "--gap-us") == 0)
			gap_us = atof(argv[i + 1]);
		else
			die("unknown argument (see the usage at the top of perf/tls_floor.c)");
	}
	if ((crt == NULL) != (key == NULL))
		die("--cert and --key go together");
	if (n < 10 || n > 100000)
		die("--handshakes: 10 to 100000");
	if (clients < 1 || clients > MAX_CLIENTS)
		die("--clients: 1 to 16");
	if (gap_us < 0 || gap_us > 100000 || (gap_us > 0 && paced_cpu >= 0))
		die("--gap-us: 0 to 100000, back to back only");

	/* routerd's allocator (dataplane/tls/tls_alloc.c) or glibc's malloc. */
	if (alloc_sy && !sy_tls_alloc_install())
		die("could not install the switchyard allocator");
	cctx = SSL_CTX_new(TLS_client_method());
	if (cctx == NULL || SSL_CTX_set_min_proto_version(cctx, TLS1_3_VERSION) != 1 ||
	    SSL_CTX_set_ciphersuites(cctx, suite) != 1)
		die("client context");
	SSL_CTX_set_session_cache_mode(cctx, SSL_SESS_CACHE_OFF);
	SSL_CTX_set_verify(cctx, SSL_VERIFY_NONE, NULL);

	if (gap_us > 0)
		printf("Back to back, %.0f us of wall time spun before each of the server's calls:\n\n",
		       gap_us);
	if (paced_cpu >= 0)
		printf("Paced by %d client process%s on CPU %d, the server sleeping in poll() between "
		       "its steps:\n\n", clients, clients > 1 ? "es" : "", paced_cpu);
	printf("| tickets per full handshake | full: server CPU per handshake | in SSL_new / SSL_free "
	       "| resumed: server CPU per handshake | in SSL_new / SSL_free |\n");
	printf("|---|---|---|---|---|\n");
	for (const char *p = tickets; *p;) {
		char *end;
		long t = strtol(p, &end, 10);
		double full, fnew, ffree, res = 0, rnew = 0, rfree = 0;
		SSL_CTX *sctx;

		if (end == p || t < 0 || t > 8)
			die("--tickets: numbers 0 to 8");
		p = end + strspn(end, " ,");
		/* routerd's server settings (control/tls/tls_policy.c), with
		 * OpenSSL's own ticket keys in place of the workers' shared ones. */
		sctx = SSL_CTX_new(TLS_server_method());
		if (sctx == NULL || SSL_CTX_set_ciphersuites(sctx, suite) != 1)
			die("server context or --suite");
		server_identity(sctx, crt, key);
		sy_tls_server_policy(sctx, (unsigned)t);

		if (paced_cpu >= 0) {
			measure_paced(sctx, cctx, n, 0, paced_cpu, clients, &full, &fnew, &ffree);
			if (t > 0)
				measure_paced(sctx, cctx, n, 1, paced_cpu, clients, &res, &rnew, &rfree);
		} else {
			measure(sctx, cctx, n, 0, &full, &fnew, &ffree);
			if (t > 0)
				measure(sctx, cctx, n, 1, &res, &rnew, &rfree);
		}
		if (t > 0)
			printf("| %ld | %.1f us | %.0f%% / %.0f%% | %.1f us | %.0f%% / %.0f%% |\n", t, full,
			       fnew, ffree, res, rnew, rfree);
		else
			printf("| %ld | %.1f us | %.0f%% / %.0f%% | (no ticket, no resumption) | |\n", t,
			       full, fnew, ffree);
		fflush(stdout);
		SSL_CTX_free(sctx);
	}
	SSL_CTX_free(cctx);
	return 0;
}
