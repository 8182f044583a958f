/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routerd: the router. The main lcore is the control thread (config, control
 * socket, journal, compile, publish, reclaim); every other lcore is a polling
 * worker (dataplane/). See docs/architecture.md sections 1-3.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/signalfd.h>
#include <time.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_log.h>

#include "gen/gen.h"
#include "config/config.h"
#include "tls/tls_alloc.h"
#include "etcd/cache.h"
#include "etcd/sync.h"
#include "fleet/fleet.h"
#include "observe/metrics_http.h"
#include "malloc_thp.h"
#include "router.h"
#include "ops/ops.h"
#include "tls/tls_cert.h"
#include "tls/tls_ocsp.h"
#include "observe/access_log.h"
#include "sy_dataplane.h"

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: routerd [-c CONFIG.json] [--check]\n"
		"  -c FILE   routerd's configuration (JSON: routerd(8), docs/configuration.md);\n"
		"            without it the built-in defaults: no ports, socket\n"
		"            /run/switchyard/routerd.sock\n"
		"  --check   parse the configuration, print the EAL arguments, and exit\n");
}

static void
free_generation(struct sy_generation *g)
{
	sy_generation_free(g);
}

/* A request parked for etcd's answer gets its reply. */
static void
etcd_reply(void *arg, uint64_t id, json_t *reply)
{
	sy_server_complete(arg, id, reply);
}

/*
 * SIGTERM or SIGINT with drain_s: a graceful drain (dataplane/drain.c). The
 * workers refuse new connections from now on and close idle ones; the
 * control thread keeps serving (status shows the drain) and stops them once
 * nothing is in flight or drain_s has passed. An operator, a service
 * manager's stop timeout or a rolling restart then finds the downloads and
 * requests it carried completed, not cut.
 */
static void
drain_begin(struct sy_router *r, unsigned signo)
{
	r->draining = true;
	r->drain_since_ms = sy_mono_ms();
	r->drain_until_ms = r->drain_since_ms + (uint64_t)r->cfg.drain_s * 1000;
	r->drain_handover_ms = r->drain_since_ms + sy_dp_drain_begin();
	r->drain_conns = sy_dp_conns_in_flight();
	if (r->drain_handover_ms > r->drain_since_ms)
		RTE_LOG(NOTICE, USER1,
			"signal %u: VIPs resigned; on them new connections are taken for %lu ms "
			"at least, while a standby takes them over\n",
			signo, (unsigned long)(r->drain_handover_ms - r->drain_since_ms));
	RTE_LOG(NOTICE, USER1,
		"signal %u: draining: new connections refused, %u in flight get up to %u s "
		"(drain_s); a second signal stops at once\n",
		signo, r->drain_conns, r->cfg.drain_s);
}

/* Whether the drain is over: nothing in flight and the VIPs handed over, or
 * drain_s passed. */
static bool
drain_done(struct sy_router *r)
{
	uint64_t now = sy_mono_ms();

	r->drain_conns = sy_dp_conns_in_flight();
	if (r->drain_conns == 0 && now >= r->drain_handover_ms) {
		RTE_LOG(NOTICE, USER1, "drained in %.1f s: no connection left; shutting down\n",
			(double)(now - r->drain_since_ms) / 1000.0);
		return true;
	}
	if (now >= r->drain_until_ms) {
		if (r->drain_conns == 0)
			RTE_LOG(NOTICE, USER1, "drain_s (%u s) passed before the VIPs' master-down "
				"interval: shutting down\n", r->cfg.drain_s);
		else
			RTE_LOG(NOTICE, USER1, "drain_s (%u s) passed with %u connection(s) in "
				"flight: shutting down\n", r->cfg.drain_s, r->drain_conns);
		return true;
	}
	return false;
}

/* The control thread's loop: control socket, signals, reclaiming retired
 * generations. Returns when SIGINT or SIGTERM arrives. Nothing in it waits
 * for a peer: the control socket and the metrics address are served a
 * non-blocking step at a time (stream_conn.h), etcd by threads of its own
 * (etcd/link.h), the access log as far as its reader takes it
 * (observe/access_log.c); the journal's fsync on apply is the one
 * deliberate wait, on the local disk (journal.c). */
static void
control_loop(struct sy_router *r, struct sy_server *srv, int sigfd, struct sy_metrics_http *mh)
{
	struct pollfd pfds[1 + SY_SERVER_MAX_CLIENTS + 1 + SY_METRICS_HTTP_MAX_CONNS + 1 + 1];
	time_t next_rotation = time(NULL) + SY_DP_COOKIE_ROTATE_S;
	time_t next_ticket_rotation = time(NULL) + r->cfg.tls_ticket_rotate_s;

	for (;;) {
		unsigned n = sy_server_pollfds(srv, pfds + 1, SY_SERVER_MAX_CLIENTS + 1);
		/* The metrics endpoint, after it (observe/metrics_http.h). */
		const unsigned mi = n + 1;
		const unsigned mn = sy_metrics_http_pollfds(mh, pfds + mi, SY_METRICS_HTTP_MAX_CONNS + 1);
		/* The etcd threads' events, last (control/etcd/sync.h). */
		const unsigned ei = mi + mn;

		/* Poll often while old generations wait for the workers, and
		 * when health checks are due or out (health.h). */
		int timeout = r->slot.n_retired ? 10 : 1000;
		int hc_ms = sy_health_tick(&r->health, sy_mono_ms());
		/* The servers' deadlines are kept to the ms; requests read
		 * behind a reply that is gone are answered at once. */
		int mh_ms = sy_metrics_http_timeout_ms(mh, sy_mono_ms());
		int srv_ms = sy_server_timeout_ms(srv, sy_mono_ms());
		int rc;

		if (hc_ms < timeout)
			timeout = hc_ms;
		if (mh_ms >= 0 && mh_ms < timeout)
			timeout = mh_ms;
		if (srv_ms >= 0 && srv_ms < timeout)
			timeout = srv_ms;
		/* The access log's rings: emptied every turn, at least every
		 * 100 ms (a ring holds 4096 records a worker); a drain looks
		 * at what is left as often. */
		if ((sy_alog_enabled() || r->draining) && timeout > 100)
			timeout = 100;

		pfds[0] = (struct pollfd){ .fd = sigfd, .events = POLLIN };
		pfds[ei] = (struct pollfd){ .fd = sy_etcd_sync_fd(r), .events = POLLIN };
		rc = poll(pfds, ei + 1, timeout);
		if (rc < 0 && errno != EINTR) {
			RTE_LOG(ERR, USER1, "poll: %s\n", strerror(errno));
			return;
		}
		if (rc > 0 && (pfds[0].revents & POLLIN)) {
			struct signalfd_siginfo si;

			if (read(sigfd, &si, sizeof(si)) == sizeof(si)) {
				if (r->draining || r->cfg.drain_s == 0) {
					RTE_LOG(NOTICE, USER1, "signal %u: shutting down%s\n", si.ssi_signo,
						r->draining ? " now (a second signal ends the drain)" : "");
					return;
				}
				drain_begin(r, si.ssi_signo);
			}
		}
		if (r->draining && drain_done(r))
			return;
		/* Every turn: requests that waited behind a reply, and
		 * deadlines, need no event. */
		sy_server_handle(srv, r, pfds + 1, rc > 0 ? n : 0, sy_mono_ms());
		/* Every turn: its deadlines pass with no event. */
		sy_metrics_http_handle(mh, r, pfds + mi, rc > 0 ? mn : 0, sy_mono_ms());
		if ((rc > 0 && (pfds[ei].revents & POLLIN)) || sy_etcd_sync_waiting(r))
			sy_etcd_sync_drain(r, etcd_reply, srv);
		sy_etcd_cache_tick(r);
		sy_gen_reclaim(&r->slot);
		sy_alog_drain();
		if (time(NULL) >= next_rotation) {
			sy_dp_rotate_cookie_secret();
			next_rotation = time(NULL) + SY_DP_COOKIE_ROTATE_S;
		}
		if (sy_ocsp_rescan(time(NULL))) {
			/* New staples: every server context is built again
			 * (their cache key has the staple epoch). */
			RTE_LOG(NOTICE, USER1, "OCSP staples changed: compiling everything\n");
			r->changes.full = true;
			sy_router_recompile(r);
		}
		/* The route scheduler's retry of routes no Router took yet
		 * (control/fleet/scheduler.h); it also runs after each change. */
		if (r->sched.strategy != NULL && time(NULL) >= r->sched.next_retry) {
			sy_scheduler_run(r);
			r->sched.next_retry = time(NULL) + r->cfg.scheduler_retry_s;
		}
		if (time(NULL) >= next_ticket_rotation) {
			sy_dp_tls_rotate_ticket_keys();
			next_ticket_rotation = time(NULL) + r->cfg.tls_ticket_rotate_s;
		}
	}
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "config", required_argument, NULL, 'c' },
		{ "check", no_argument, NULL, 'k' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	static struct sy_router router;
	struct sy_router *r = &router;
	struct sy_server srv = { .listen_fd = -1 };
	static struct sy_metrics_http mh = { .listen_fd = -1 };
	struct sy_eal_args eal;
	char *eal_argv[SY_EAL_ARGV_MAX + 1];
	const char *config_path = NULL;
	bool check = false;
	char err[512];
	char runtime_dir[PATH_MAX];
	sigset_t sigs;
	int opt, rc, sigfd, i, exit_code = 1;

	/* Before anything else: may run routerd again, same PID and arguments,
	 * with glibc's heap on huge pages (malloc_thp.h). */
	(void)sy_malloc_thp_reexec(argv);
	/* Before anything touches OpenSSL (dataplane/tls/tls_alloc.h). */
	sy_tls_alloc_install();
	while ((opt = getopt_long(argc, argv, "c:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'c':
			config_path = optarg;
			break;
		case 'k':
			check = true;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (optind != argc) {
		usage(stderr);
		return 2;
	}
	rc = config_path ? sy_config_load(config_path, &r->cfg, err, sizeof(err))
			 : sy_config_parse("{}", &r->cfg, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "routerd: config: %s\n", err);
		return 2;
	}
	if (sy_eal_args_build(&r->cfg, &eal, -1, 0) < 0) {
		fprintf(stderr, "routerd: too many EAL arguments\n");
		return 2;
	}
	if (check) {
		for (i = 0; i < eal.argc; i++)
			printf("%s%s", i ? " " : "", eal.argv[i]);
		printf("\n");
		sy_eal_args_free(&eal);
		sy_config_free(&r->cfg);
		return 0;
	}

	/* Block the signals before EAL starts its threads, so they inherit the
	 * mask and only the control thread sees SIGINT/SIGTERM (via signalfd). */
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	signal(SIGPIPE, SIG_IGN);
	sigfd = signalfd(-1, &sigs, SFD_CLOEXEC);

	/* What earlier routerds that were killed left behind (root's EAL
	 * runtime directory; ours are named by the default --file-prefix). */
	if (geteuid() == 0)
		sy_eal_remove_stale_runtime_dirs("/var/run/dpdk", "sy-routerd-");
	/* rte_eal_init may permute its argv: give it a copy of the pointers. */
	memcpy(eal_argv, eal.argv, sizeof(eal_argv));
	if (rte_eal_init(eal.argc, eal_argv) < 0) {
		fprintf(stderr, "routerd: EAL init failed: %s\n", rte_strerror(rte_errno));
		sy_eal_args_free(&eal);
		sy_config_free(&r->cfg);
		return 1;
	}
	for (i = 0; i < (int)r->cfg.n_workers; i++)
		if (!rte_lcore_is_enabled(r->cfg.worker_lcores[i]) ||
		    r->cfg.worker_lcores[i] == rte_get_main_lcore()) {
			fprintf(stderr, "routerd: workers: lcore %u is not a worker lcore of this EAL\n",
				r->cfg.worker_lcores[i]);
			goto out_eal;
		}

	if (sy_gen_slot_init(&r->slot, r->cfg.n_workers, free_generation) < 0) {
		fprintf(stderr, "routerd: cannot allocate the RCU state\n");
		goto out_eal;
	}
	/* Before the journal is compiled: routes' certificates need the
	 * cipher settings, and every connection the default certificate. */
	if (sy_tls_setup(&r->cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "routerd: %s\n", err);
		goto out_slot;
	}
	sy_dp_tls_set_default(sy_tls_default()->ctx);
	if (sy_router_load(r, err, sizeof(err)) < 0) {
		fprintf(stderr, "routerd: %s\n", err);
		goto out_slot;
	}
	if (sy_dp_init(&r->cfg, &r->slot, err, sizeof(err)) < 0) {
		fprintf(stderr, "routerd: dataplane: %s\n", err);
		goto out_router;
	}
	rc = sy_server_open(&srv, r->cfg.control_socket);
	if (rc < 0) {
		fprintf(stderr, "routerd: control socket %s: %s\n", r->cfg.control_socket, strerror(-rc));
		sy_dp_stop();
		goto out_router;
	}
	if (sy_dp_start() < 0) {
		fprintf(stderr, "routerd: cannot start the workers\n");
		sy_dp_stop();
		goto out_server;
	}
	if (sy_alog_open(&r->cfg, err, sizeof(err)) < 0) {
		fprintf(stderr, "routerd: %s\n", err);
		sy_dp_stop();
		goto out_server;
	}
	if (r->cfg.metrics_port != 0) {
		rc = sy_metrics_http_open(&mh, r->cfg.metrics_addr, r->cfg.metrics_port);
		if (rc < 0) {
			fprintf(stderr, "routerd: metrics: cannot listen on port %u: %s\n",
				r->cfg.metrics_port, strerror(-rc));
			sy_dp_stop();
			goto out_server;
		}
	}
	r->dataplane_up = true;
	sy_fleet_dns_publish(r); /* the zones of the Routers the journal held */
	sy_fleet_vips_publish(r); /* and our Router's VIPs */
	RTE_LOG(NOTICE, USER1,
		"routerd up: %u worker(s), %u port(s), generation %lu, control %s, tx_drain_us %u%s\n",
		r->cfg.n_workers, r->cfg.n_ports, (unsigned long)r->gen_id, r->cfg.control_socket,
		sy_tx_drain_us(&r->cfg), r->cfg.tx_drain_us == SY_TX_DRAIN_US_AUTO ? " (auto)" : "");

	/* What `stats` and the exposition count of the two servers. */
	r->control_conns = &srv.st;
	r->metrics_conns = mh.listen_fd >= 0 ? &mh.st : NULL;
	control_loop(r, &srv, sigfd, &mh);
	r->control_conns = r->metrics_conns = NULL;
	sy_metrics_http_close(&mh);
	exit_code = 0;

	r->dataplane_up = false;
	sy_alog_drain(); /* what the workers logged last */
	sy_dp_stop();
	sy_alog_close();
out_server:
	sy_server_close(&srv);
out_router:
	sy_router_fini(r);
out_slot:
	sy_gen_slot_fini(&r->slot); /* retired generations give their vhosts' contexts back */
	sy_tls_teardown();
out_eal:
	snprintf(runtime_dir, sizeof(runtime_dir), "%s", rte_eal_get_runtime_dir());
	rte_eal_cleanup();
	sy_eal_remove_runtime_dir(runtime_dir);
	sy_eal_args_free(&eal);
	sy_config_free(&r->cfg);
	if (sigfd >= 0)
		close(sigfd);
	return exit_code;
}
