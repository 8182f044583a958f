/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * routes_bench: the "Route semantics" performance figures. For generated
 * sets of routes (10k, 100k and, with --huge-sizes, 1M) it measures, with the
 * real control code:
 *
 *  (a) loading them through the control op (sy_ops_handle {"op":"apply"} in
 *      batches: validate, journal + fsync, store, compile, publish), and one
 *      full compile alone (sy_compile, with its stage-1 kinds timed apart);
 *  (b) memory per route: heap held by the store and the live generation
 *      (mallinfo2 delta), the generation's own g->bytes, and the RSS delta;
 *  (c) lookup time per request: sy_gen_find_vhost + sy_vhost_match_path over
 *      random known hosts and paths, unknown hosts, and known hosts with a
 *      path no rule serves, in a tight loop (rdtsc / TSC Hz);
 *  (d) with N routes loaded, the time from calling sy_ops_handle with one
 *      changed route to a reader thread (RCU-registered, as a worker is)
 *      seeing the new generation from sy_gen_acquire, broken into journal
 *      append + fsync, compile and publish.
 *
 * Objects: per namespace, 10 Services (each with Endpoints, 2 addresses) and
 * 100 routes, each route on its own host; one route in four has a path. The
 * kinds: 80 % OpenShift Routes, 10 % Contour IngressRoutes, 10 % Skipper
 * RouteGroups when those kinds are built in and serve a probe object; a kind
 * that is not is replaced by OpenShift Routes (the table says which).
 *
 * Features (--edge-certs, --health-checks, --sticky, --fleet; --features is
 * all four) change what is generated so that what they add to a compile is
 * really done, and checked served: edge termination with inline
 * certificates (one per namespace), IngressRoute health checks, sticky
 * cookies, fleet mode (a Router and a RouteBinding per OpenShift Route).
 *
 * Not a test: prints a table with the targets and verdicts. Exits 1
 * only if the harness saw something wrong (an apply refused, a lookup that
 * found the wrong object, a change never seen); then the figures are void.
 * perf/README.md describes each figure.
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <malloc.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>

#include <jansson.h>
#include <rte_cycles.h>
#include <rte_eal.h>
#include <rte_pause.h>
#include <rte_rcu_qsbr.h>

#include "arena.h"
#include "malloc_thp.h"
#include "fleet/fleet.h"
#include "gen/compile.h"
#include "gen/gen_mem.h"
#include "gen/pool.h"
#include "kinds/contour_common.h"
#include "kinds/kinds.h"
#include "router.h"
#include "store/journal.h"
#include "store/store.h"
#include "sy_gen_slot.h"
#include "sy_generation.h"
#include "tls/tls_cert.h"

#define TS "2026-01-01T00:00:00Z"
#define ROUTES_PER_SVC 10
#define SVCS_PER_NS 10
#define ROUTES_PER_NS (ROUTES_PER_SVC * SVCS_PER_NS)
#define MAX_SIZES 8
#define MAX_REPS 1024

/*
 * The guard (--guard, run by CI as the unit test routes_guard): small runs
 * that fail when the control thread's promise is broken, by ratios and
 * sizes measured in this process, never by wall-clock bounds. Each size is
 * run twice: the plain mix, and with every feature (F_ALL), so that a
 * feature's planning is covered too.
 *  - One change of each kind (compile, counter slots' and health checks'
 *    plans, publish) costs at most GUARD_CHANGE_SHARE percent of a full
 *    recompile on the same path, at GUARD_ROUTES. Issue 34 asked for 1/50;
 *    this is 1/200, because a change that walks everything loaded once
 *    costs a share that does not shrink with the size: at 71fcc81 the
 *    per-route metrics' walk made it 2.7 % at 2,000 routes (5 % at 10k,
 *    where a slot search also grew), while a scoped change costs 0.01-0.05 %.
 *  - The least of its changes grows at most GUARD_CHANGE_GROWTH times from
 *    GUARD_ROUTES_SMALL to GUARD_ROUTES routes. A lighter walk of everything
 *    loaded hides in the share, as a full recompile grows with the routes
 *    too: sy_health_plan made to walk both generations (as before the plans
 *    followed sy_gen_next_added/_dropped) moved the share from 0.05 % to
 *    0.17 % at 2,000 routes, but the growth from 250 to 4,000 from at most
 *    1.9 (scoped, all kinds, with features or not) to 5.6-34 (2026-11-28).
 *  - The generation holds at most GUARD_GEN_BYTES per route (2,000 routes
 *    of the bench's mix: 2026-11-28, 430 B; fc995ad's generation had 383
 *    B at 10k). Whatever a feature adds to every rule, vhost or pool shows
 *    here first.
 */
#define GUARD_CHANGE_SHARE 0.5
#define GUARD_CHANGE_GROWTH 3.0
#define GUARD_GEN_BYTES 480
#define GUARD_ROUTES 4000
#define GUARD_ROUTES_SMALL 250

/*
 * Features: what each adds to the generated objects.
 *  F_EDGE    OpenShift Routes: spec.tls edge with an inline certificate and
 *            key, one self-signed ECDSA P-256 pair per namespace for
 *            *.ns<N>.apps.bench.test (the router checks the host against
 *            it); a namespace's routes share one TLS context.
 *  F_HC      IngressRoutes: their service has a healthCheck, so every
 *            endpoint of a Service is a health target (r->health).
 *  F_STICKY  OpenShift Routes: router.openshift.io/cookie_name; IngressRoutes:
 *            strategy Cookie. Only proxied vhosts keep a cookie (gen/compile.c).
 *  F_FLEET   fleet mode: router_name "bench", a Router "bench" and a
 *            RouteBinding per OpenShift Route binding it there.
 */
enum { F_EDGE = 1, F_HC = 2, F_STICKY = 4, F_FLEET = 8, F_ALL = 15 };
static const struct {
	unsigned bit;
	const char *opt;
	char letter;
} feat_names[] = {
	{ F_EDGE, "edge-certs", 'e' },
	{ F_HC, "health-checks", 'h' },
	{ F_STICKY, "sticky", 's' },
	{ F_FLEET, "fleet", 'f' },
};
#define N_FEATS (sizeof(feat_names) / sizeof(feat_names[0]))
#define STICKY_NAME "bench_sticky"
#define HC_PATH "/healthz"
#define FLEET_ROUTER "bench"
#define FLEET_DNS "apps.bench.test"
/*
 * The guard's columns with every feature on: their own bound on the
 * generation's bytes per route (4,000 routes, 2026-11-28, with the vhost's
 * TLS and the rule's cookie in side structs: 474 B, the plain mix 378 B in
 * the same run; what the features add: the edge vhosts' TLS side struct,
 * sticky cookies' names, health checks in their pools).
 */
#define GUARD_GEN_BYTES_FEATURES 560

/* Route kinds in the mix: one in ten each of the others (route_kind), the
 * rest OpenShift Routes. Today's APIs (issue 38) need a class and, for
 * HTTPRoutes, a Gateway: sent once, first (prelude_next). */
enum rkind { K_OPENSHIFT, K_IR, K_RG, K_HP, K_HR, K_ING, K_N };

static const char *const kind_label[K_N] = { "OpenShift Route", "Contour IngressRoute",
					     "Skipper RouteGroup", "Contour HTTPProxy",
					     "Gateway API HTTPRoute", "Ingress v1" };
static const char *const kind_plural[K_N] = { "OpenShift Routes", "Contour IngressRoutes",
					      "Skipper RouteGroups", "Contour HTTPProxies",
					      "Gateway API HTTPRoutes", "Ingresses (v1)" };
static const char *const kind_short[K_N] = { "OS", "IR", "RG", "HP", "HR", "Ing" };
static const char *const kind_api[K_N] = { "route.openshift.io/v1", "contour.heptio.com/v1beta1",
					   "zalando.org/v1", "projectcontour.io/v1",
					   "gateway.networking.k8s.io/v1", "networking.k8s.io/v1" };
static const char *const kind_name[K_N] = { "Route", "IngressRoute", "RouteGroup", "HTTPProxy",
					    "HTTPRoute", "Ingress" };
#define BENCH_CLASS "switchyard"
#define BENCH_GW_NS "gw"
#define BENCH_GW "bench"

static struct {
	size_t sizes[MAX_SIZES];
	unsigned n_sizes;
	size_t batch;      /* 0: automatic */
	size_t apply_max;  /* larger sizes are loaded from a journal, the last batch applied */
	size_t queries;    /* lookups per set */
	unsigned changes;  /* change-latency repetitions */
	unsigned core, reader_core;
	bool quick, openshift_only, changes_set, guard, lookups_only;
	char state_dir[256];
	char disk_dir[256];
	bool own_state_dir;
	bool malloc_thp; /* glibc's heap on huge pages (control/malloc_thp.h) */
	double hz;
	bool kind_on[K_N];
	const char *kind_why[K_N];
	int harness_errors;
	unsigned feat_opt; /* the feature options given */
	unsigned feat;     /* those of the set being generated (struct res feat) */
} B;

/* One size's figures. Times in seconds unless named otherwise. */
struct res {
	unsigned feat; /* F_* of this column */
	size_t routes, services, objects, applies, batch, by_kind[K_N];
	double apply_total, apply_compile_est, apply_last, apply_last_objects, reclaim_total;
	double jrn_batch_tmpfs, jrn_batch_disk;
	double compile_min, compile_med, stage1[K_N], stage2, publish, free_old;
	double compile_warm; /* the same compile with every object already parsed */
	double recompile_med; /* sy_router_recompile forced full: compile, plans, publish */
	size_t gen_bytes, heap_delta, rss_delta, n_vhosts, n_rules;
	double lk_hit, lk_hostmiss, lk_pathmiss; /* ns */
	double lk_floor; /* ns: this machine's floor for lk_hit (floor_ns) */
	double lk_floor1; /* ns: the same, the vhost's block alone */
	size_t lk_wrong;
	double chg_med, chg_min, chg_max, chg_ret_med; /* handle call -> reader saw it; -> return */
	double chg_jrn_tmpfs, chg_jrn_disk, chg_reclaim, chg_compile, chg_scope;
	double chg_kind_med[K_N], chg_kind_scope[K_N]; /* other kinds' changes (IR, RG) */
	double chg_kind_compile[K_N];
	/* The least compile + publish of one change (preemption only adds):
	 * the guard's growth check compares it across sizes. */
	double chg_compile_min, chg_kind_compile_min[K_N];
	/* What the features made, in the loaded generation (and r->health). */
	size_t n_edge_ctx, n_proxy, n_sticky, n_hc_targets, n_tls_ctx, n_bindings;
	unsigned chg_n, chg_bad;
	bool ran, via_journal;
	double restart; /* sy_router_load: journal replay + first compile */
	size_t tail;    /* objects applied through the op after a journal load */
};

/* ---------------------------------------------------------------- util -- */

static double
now_s(void)
{
	return (double)rte_rdtsc_precise() / B.hz;
}

static int
cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
median(double *v, unsigned n)
{
	if (n == 0)
		return 0;
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static size_t
heap_bytes(void)
{
	struct mallinfo2 mi = mallinfo2();

	/* Generation blocks and the store's packs and records live outside
	 * malloc (control/region_heap.h). */
	return mi.uordblks + mi.hblkhd + sy_gen_mem_bytes() + sy_store_heap_bytes();
}

/*
 * Where the store's and the generation's bytes go (SY_BENCH_MEM=1): a
 * walk of the store and the relations index, per kind, each block as
 * its heap rounds it. For finding what to cut; not a figure of the table.
 */
static size_t
round16(size_t n)
{
	return (n + 15) & ~(size_t)15;
}

static void
mem_breakdown(const struct sy_router *r, size_t routes)
{
	struct {
		const char *name;
		size_t n, rec, obj, status, rel_arr;
	} k[SY_STORE_KINDS_MAX + 1];
	unsigned nk = 0, i;
	size_t b, keys = 0, key_bytes = 0, many = 0, slot = 0;
	const char *key;
	void *v;
	const struct sy_generation *g = sy_gen_acquire((struct sy_gen_slot *)&r->slot);

	memset(k, 0, sizeof(k));
	for (b = 0; b < r->store.n_buckets; b++) {
		const struct sy_object *o;

		for (o = r->store.buckets[b]; o != NULL; o = o->hnext) {
			for (i = 0; i < nk && k[i].name != o->kind->names[0]; i++)
				;
			if (i == nk && nk < SY_STORE_KINDS_MAX) {
				k[nk++].name = o->kind->names[0];
				if (getenv("SY_BENCH_MEM_SAMPLES") != NULL) {
					json_t *st = sy_unpack_status(&o->packed);
					char *t = st ? json_dumps(st, JSON_COMPACT) : NULL;
					size_t len;
					const char *ot = sy_unpack_object_text(&o->packed, &len);

					fprintf(stderr, "sample: %.*s\nsample-status: %s\n",
						(int)(ot ? len : 0), ot ? ot : "", t ? t : "");
					free(t);
					json_decref(st);
				}
			}
			k[i].n++;
			k[i].rec += round16(sizeof(*o) + strlen(o->ns) + 1 + strlen(o->name) + 1);
			k[i].obj += o->packed.obj_len;
			k[i].status += o->packed.status_len;
			k[i].rel_arr += o->rel != o->rel_inline && o->rel != NULL ?
						malloc_usable_size(o->rel) + 8 : 0;
		}
	}
	fprintf(stderr, "mem: per route (%zu routes): kind, objects, record, packed object, "
		"packed status (unrounded), rel arrays\n", routes);
	for (i = 0; i < nk; i++)
		fprintf(stderr, "mem:   %-16s %8zu  %6.1f %6.1f %6.1f %6.1f   (a one: %.0f %.0f %.0f)\n",
			k[i].name, k[i].n, (double)k[i].rec / routes, (double)k[i].obj / routes,
			(double)k[i].status / routes, (double)k[i].rel_arr / routes,
			(double)k[i].rec / k[i].n, (double)k[i].obj / k[i].n,
			(double)k[i].status / k[i].n);
	while (sy_strmap_next(&r->rel.index, &slot, &key, &v)) {
		const struct sy_rel_key *rk = v;

		keys++;
		key_bytes += round16(sizeof(*rk) + strlen(rk->key) + 1);
		if (rk->cap > 1)
			many += round16(rk->cap * sizeof(void *));
	}
	fprintf(stderr, "mem: store buckets %.1f; store heap %.1f; relations: %zu keys, "
		"slots %.1f, keys %.1f, arrays %.1f; gen %.1f (vhosts %u, rules %u; pools %.1f)\n",
		(double)r->store.n_buckets * 8 / routes, (double)sy_store_heap_bytes() / routes,
		keys, (double)(r->rel.index.mask + 1) * 16 / routes, (double)key_bytes / routes,
		(double)many / routes, (double)g->bytes / routes, g->n_vhosts, g->n_rules,
		(double)sy_pool_live_bytes() / routes);
}

static size_t
rss_bytes(void)
{
	FILE *f = fopen("/proc/self/statm", "r");
	unsigned long size = 0, rss = 0;

	if (f == NULL)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &rss) != 2)
		rss = 0;
	fclose(f);
	return rss * (size_t)sysconf(_SC_PAGESIZE);
}

static uint64_t
xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static void
harness_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static void
harness_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "routes_bench: HARNESS ERROR: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	B.harness_errors++;
}

/* ------------------------------------------------------------ objects -- */

/* F_EDGE: the certificate and key (PEM) of namespace ns, made at its first
 * use and kept for the run: a changed route carries the same bytes, so it
 * finds its context in the cache (tls/tls_cert.h). NULL: OpenSSL failed. */
struct ns_cert {
	char *crt, *key;
};
static struct {
	struct ns_cert *v;
	size_t n;
} CERTS;

static int
make_cert(size_t ns, struct ns_cert *c)
{
	char cn[64];

	snprintf(cn, sizeof(cn), "*.ns%zu.apps.bench.test", ns);
	return sy_tls_self_signed(NULL, cn, cn, -3600, 10L * 365 * 86400, &c->crt, &c->key);
}

static const struct ns_cert *
ns_cert(size_t ns)
{
	if (ns >= CERTS.n) {
		size_t n = ns + 1 > 2 * CERTS.n ? ns + 1 : 2 * CERTS.n;
		struct ns_cert *v = realloc(CERTS.v, n * sizeof(*v));

		if (v == NULL)
			return NULL;
		memset(v + CERTS.n, 0, (n - CERTS.n) * sizeof(*v));
		CERTS.v = v;
		CERTS.n = n;
	}
	if (CERTS.v[ns].crt == NULL && make_cert(ns, &CERTS.v[ns]) < 0)
		return NULL;
	return &CERTS.v[ns];
}

static void
certs_free(void)
{
	size_t i;

	for (i = 0; i < CERTS.n; i++) {
		free(CERTS.v[i].crt);
		free(CERTS.v[i].key);
	}
	free(CERTS.v);
	memset(&CERTS, 0, sizeof(CERTS));
}

static enum rkind
route_kind(size_t i)
{
	if (i % 10 == 0 && B.kind_on[K_IR])
		return K_IR;
	if (i % 10 == 1 && B.kind_on[K_RG])
		return K_RG;
	if (i % 10 == 2 && B.kind_on[K_HP])
		return K_HP;
	if (i % 10 == 5 && B.kind_on[K_HR])
		return K_HR;
	if (i % 10 == 6 && B.kind_on[K_ING])
		return K_ING;
	return K_OPENSHIFT;
}

static int
route_host(size_t i, char *buf, size_t len)
{
	return snprintf(buf, len, "app%zu.ns%zu.apps.bench.test", i, i / ROUTES_PER_NS);
}

/* One route in four has a path. */
static const char *
route_path(size_t i, char *buf, size_t len)
{
	if (i % 4 != 3)
		return NULL;
	snprintf(buf, len, "/api/v%zu", i % 7 + 1);
	return buf;
}

static json_t *
meta(const char *name, size_t ns)
{
	char n[32];

	snprintf(n, sizeof(n), "ns%zu", ns);
	return json_pack("{s:s, s:s, s:s}", "name", name, "namespace", n, "creationTimestamp", TS);
}

static json_t *
make_service(size_t j)
{
	char name[32];

	snprintf(name, sizeof(name), "svc%zu", j);
	return json_pack("{s:s, s:s, s:o, s:{s:[{s:s, s:i, s:i}]}}", "apiVersion", "v1", "kind",
			 "Service", "metadata", meta(name, j / SVCS_PER_NS), "spec", "ports", "name",
			 "http", "port", 80, "targetPort", 8080);
}

static json_t *
make_endpoints(size_t j)
{
	char name[32], a[32], b[32];
	uint32_t x = (uint32_t)(2 * j + 1), y = (uint32_t)(2 * j + 2);

	snprintf(name, sizeof(name), "svc%zu", j);
	snprintf(a, sizeof(a), "10.%u.%u.%u", (x >> 16) & 255, (x >> 8) & 255, x & 255);
	snprintf(b, sizeof(b), "10.%u.%u.%u", (y >> 16) & 255, (y >> 8) & 255, y & 255);
	return json_pack("{s:s, s:s, s:o, s:[{s:[{s:s}, {s:s}], s:[{s:s, s:i}]}]}", "apiVersion",
			 "v1", "kind", "Endpoints", "metadata", meta(name, j / SVCS_PER_NS),
			 "subsets", "addresses", "ip", a, "ip", b, "ports", "name", "http", "port",
			 8080);
}

/* Route i of kind k, to Service svc (in its namespace). */
static json_t *
make_route_k(size_t i, enum rkind k, size_t svc)
{
	char name[32], host[96], pbuf[32], sname[32];
	const char *path = route_path(i, pbuf, sizeof(pbuf));
	json_t *o, *spec;

	snprintf(name, sizeof(name), "r%zu", i);
	snprintf(sname, sizeof(sname), "svc%zu", svc);
	route_host(i, host, sizeof(host));
	switch (k) {
	case K_IR:
		spec = json_pack("{s:{s:s}, s:[{s:s, s:[{s:s, s:i}]}]}", "virtualhost", "fqdn", host,
				 "routes", "match", path ? path : "/", "services", "name", sname, "port",
				 80);
		break;
	case K_RG:
		spec = json_pack("{s:[s], s:[{s:s, s:s, s:s, s:i}], s:[{s:s}], s:[{s:s}]}", "hosts",
				 host, "backends", "name", "b", "type", "service", "serviceName", sname,
				 "servicePort", 80, "defaultBackends", "backendName", "b", "routes",
				 "pathSubtree", path ? path : "/");
		break;
	case K_HP:
		spec = json_pack("{s:{s:s}, s:[{s:[{s:s}], s:[{s:s, s:i}]}]}", "virtualhost", "fqdn",
				 host, "routes", "conditions", "prefix", path ? path : "/", "services",
				 "name", sname, "port", 80);
		break;
	case K_HR:
		spec = json_pack("{s:[{s:s, s:s}], s:[s], s:[{s:[{s:{s:s, s:s}}], s:[{s:s, s:i}]}]}",
				 "parentRefs", "name", BENCH_GW, "namespace", BENCH_GW_NS, "hostnames",
				 host, "rules", "matches", "path", "type", "PathPrefix", "value",
				 path ? path : "/", "backendRefs", "name", sname, "port", 80);
		break;
	case K_ING:
		spec = json_pack("{s:s, s:[{s:s, s:{s:[{s:s, s:s, s:{s:{s:s, s:{s:i}}}}]}}]}",
				 "ingressClassName", BENCH_CLASS, "rules", "host", host, "http", "paths",
				 "path", path ? path : "/", "pathType", "Prefix", "backend", "service",
				 "name", sname, "port", "number", 80);
		break;
	default:
		spec = json_pack("{s:s, s:{s:s, s:s, s:i}, s:{s:s}}", "host", host, "to", "kind",
				 "Service", "name", sname, "weight", 100, "port", "targetPort", "http");
		if (path != NULL)
			json_object_set_new(spec, "path", json_string(path));
		break;
	}
	o = json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", kind_api[k], "kind", kind_name[k],
		      "metadata", meta(name, i / ROUTES_PER_NS), "spec", spec);
	if (k == K_IR) {
		json_t *to = json_array_get(
			json_object_get(json_array_get(json_object_get(spec, "routes"), 0), "services"), 0);

		if (B.feat & F_HC)
			json_object_set_new(to, "healthCheck",
					    json_pack("{s:s, s:i}", "path", HC_PATH, "intervalSeconds", 10));
		if (B.feat & F_STICKY)
			json_object_set_new(to, "strategy", json_string("Cookie"));
	} else if (k == K_OPENSHIFT) {
		if (B.feat & F_EDGE) {
			const struct ns_cert *c = ns_cert(i / ROUTES_PER_NS);

			if (c == NULL)
				harness_error("cannot make the certificate of namespace ns%zu",
					      i / ROUTES_PER_NS);
			else
				json_object_set_new(spec, "tls",
						    json_pack("{s:s, s:s, s:s}", "termination", "edge",
							      "certificate", c->crt, "key", c->key));
		}
		if (B.feat & F_STICKY)
			json_object_set_new(json_object_get(o, "metadata"), "annotations",
					    json_pack("{s:s}", "router.openshift.io/cookie_name",
						      STICKY_NAME));
	}
	return o;
}

/* What kind k needs before its routes: the classes that make them ours
 * (the config's default controllers) and, for HTTPRoutes, a Gateway whose
 * HTTP listener on port 80 takes routes from every namespace. NULL: no more.
 * `n` counts from 0. */
static json_t *
prelude_k(enum rkind k, unsigned n)
{
	if (k == K_HR && n == 0)
		return json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s}}", "apiVersion",
				 "gateway.networking.k8s.io/v1", "kind", "GatewayClass", "metadata",
				 "name", BENCH_CLASS, "creationTimestamp", TS, "spec",
				 "controllerName", "switchyard.io/gateway-controller");
	if (k == K_HR && n == 1)
		return json_pack("{s:s, s:s, s:{s:s, s:s, s:s}, s:{s:s, s:[{s:s, s:s, s:i, s:{s:{s:s}}}]}}",
				 "apiVersion", "gateway.networking.k8s.io/v1", "kind", "Gateway",
				 "metadata", "name", BENCH_GW, "namespace", BENCH_GW_NS,
				 "creationTimestamp", TS, "spec", "gatewayClassName", BENCH_CLASS,
				 "listeners", "name", "http", "protocol", "HTTP", "port", 80,
				 "allowedRoutes", "namespaces", "from", "All");
	if (k == K_ING && n == 0)
		return json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s}}", "apiVersion",
				 "networking.k8s.io/v1", "kind", "IngressClass", "metadata", "name",
				 BENCH_CLASS, "creationTimestamp", TS, "spec", "controller",
				 "switchyard.io/ingress-controller");
	return NULL;
}

/* How many prelude objects the kinds in the mix need. */
static size_t
prelude_count(void)
{
	size_t c = 0;
	int k;
	unsigned n;

	for (k = 0; k < K_N; k++)
		for (n = 0; B.kind_on[k]; n++) {
			json_t *o = prelude_k((enum rkind)k, n);

			if (o == NULL)
				break;
			json_decref(o);
			c++;
		}
	return c;
}

/* F_FLEET: the Router this routerd is (its config's router_name). */
static json_t *
make_router(void)
{
	return json_pack("{s:s, s:s, s:{s:s, s:s}, s:{s:s, s:s}}", "apiVersion",
			 "route.openshift.io/v1", "kind", "Router", "metadata", "name", FLEET_ROUTER,
			 "creationTimestamp", TS, "spec", "dns", FLEET_DNS, "description",
			 "routes_bench --fleet");
}

/* F_FLEET: route i (an OpenShift Route) bound to it. */
static json_t *
make_binding(size_t i)
{
	char name[32], ns[32];

	snprintf(name, sizeof(name), "r%zu", i);
	snprintf(ns, sizeof(ns), "ns%zu", i / ROUTES_PER_NS);
	return json_pack("{s:s, s:s, s:o, s:{s:s, s:s, s:s, s:s}}", "apiVersion",
			 "route.openshift.io/v1", "kind", "RouteBinding", "metadata",
			 meta(name, i / ROUTES_PER_NS), "spec", "routeNamespace", ns, "routeName", name,
			 "routerName", FLEET_ROUTER, "dns", FLEET_DNS);
}

static json_t *
make_route(size_t i)
{
	return make_route_k(i, route_kind(i), i / ROUTES_PER_SVC);
}

/* The object stream: per namespace, its Services, their Endpoints, its
 * routes, then (F_FLEET) their RouteBindings, after the Router first. */
struct stream {
	size_t n_routes, n_svc;
	size_t ns, pos;
	bool router_sent;
	int pre_kind;      /* the kind whose prelude is being sent */
	unsigned pre_n;    /* its next prelude object */
};

static json_t *
stream_next(struct stream *s)
{
	if ((B.feat & F_FLEET) && !s->router_sent) {
		s->router_sent = true;
		return make_router();
	}
	for (; s->pre_kind < K_N; s->pre_kind++, s->pre_n = 0) {
		json_t *o = B.kind_on[s->pre_kind] ? prelude_k((enum rkind)s->pre_kind, s->pre_n) : NULL;

		if (o != NULL) {
			s->pre_n++;
			return o;
		}
	}
	for (;;) {
		size_t s0 = s->ns * SVCS_PER_NS, r0 = s->ns * ROUTES_PER_NS;
		size_t ns_svc = s0 >= s->n_svc ? 0 : (s->n_svc - s0 < SVCS_PER_NS ? s->n_svc - s0 : SVCS_PER_NS);
		size_t ns_rt = r0 >= s->n_routes ? 0 :
			       (s->n_routes - r0 < ROUTES_PER_NS ? s->n_routes - r0 : ROUTES_PER_NS);
		size_t ns_bind = B.feat & F_FLEET ? ns_rt : 0;

		if (ns_svc == 0 && ns_rt == 0)
			return NULL;
		if (s->pos < ns_svc)
			return make_service(s0 + s->pos++);
		if (s->pos < 2 * ns_svc)
			return make_endpoints(s0 + s->pos++ - ns_svc);
		if (s->pos < 2 * ns_svc + ns_rt)
			return make_route(r0 + s->pos++ - 2 * ns_svc);
		if (s->pos < 2 * ns_svc + ns_rt + ns_bind) {
			size_t i = r0 + s->pos++ - 2 * ns_svc - ns_rt;

			if (route_kind(i) == K_OPENSHIFT)
				return make_binding(i);
			continue;
		}
		s->ns++;
		s->pos = 0;
	}
}

/* ------------------------------------------------------------- router -- */

static void
gen_free(struct sy_generation *g)
{
	sy_generation_free(g);
}

static int
rm_state(const char *dir)
{
	char p[512];

	snprintf(p, sizeof(p), "%s/journal", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/journal.tmp", dir);
	unlink(p);
	return rmdir(dir);
}

static int
router_start(struct sy_router *r, const char *dir)
{
	char err[256];

	memset(r, 0, sizeof(*r));
	/* Fleet: this routerd is the Router the stream makes first. */
	if (sy_config_parse(B.feat & F_FLEET ? "{\"routing_subdomain\": \"apps.bench.test\", "
					       "\"router_name\": \"" FLEET_ROUTER "\"}"
					     : "{\"routing_subdomain\": \"apps.bench.test\"}",
			    &r->cfg, err, sizeof(err)) != 0) {
		fprintf(stderr, "config: %s\n", err);
		return -1;
	}
	snprintf(r->cfg.state_dir, sizeof(r->cfg.state_dir), "%s", dir);
	if (sy_gen_slot_init(&r->slot, 1, gen_free) != 0)
		return -1;
	if (sy_router_load(r, err, sizeof(err)) != 0) {
		fprintf(stderr, "load: %s\n", err);
		return -1;
	}
	return 0;
}

static void
router_stop(struct sy_router *r)
{
	sy_router_fini(r);
	sy_gen_slot_fini(&r->slot);
	sy_config_free(&r->cfg);
}

static bool
reply_ok(const json_t *rep, const char *what)
{
	if (json_is_true(json_object_get(rep, "ok")))
		return true;
	{
		char *d = json_dumps(rep, JSON_COMPACT);

		harness_error("%s refused: %.600s", what, d ? d : "?");
		free(d);
	}
	return false;
}

/* Is kind k built in, does it compile, and does a probe object get served? */
static void
probe_kind(enum rkind k)
{
	const struct sy_kind *kind = sy_kind_for_object(kind_api[k], kind_name[k]);
	struct sy_router r;
	char dir[300], host[96];
	json_t *req, *rep;
	const struct sy_vhost *vh;
	const struct sy_rule *rule;
	bool ok;

	B.kind_on[k] = false;
	if (kind == NULL) {
		B.kind_why[k] = "not built in (no such kind in sy_kinds)";
		return;
	}
	if (kind->compile == NULL) {
		B.kind_why[k] = "built in without a compile stage";
		return;
	}
	snprintf(dir, sizeof(dir), "%s/probe", B.state_dir);
	B.feat = 0; /* the kind alone */
	if (router_start(&r, dir) < 0) {
		B.kind_why[k] = "probe router failed";
		return;
	}
	req = json_pack("{s:s, s:[o, o]}", "op", "apply", "objects", make_service(0),
			make_endpoints(0));
	{
		json_t *objs = json_object_get(req, "objects"), *o;
		unsigned n;

		for (n = 0; (o = prelude_k(k, n)) != NULL; n++)
			json_array_append_new(objs, o);
		json_array_append_new(objs, make_route_k(ROUTES_PER_SVC * 0 + 3, k, 0));
	}
	rep = sy_ops_handle(&r, req);
	ok = json_is_true(json_object_get(rep, "ok"));
	route_host(3, host, sizeof(host));
	vh = sy_gen_find_vhost(sy_gen_acquire(&r.slot), host, strlen(host));
	rule = vh ? sy_vhost_match_path(vh, "/api/v4/x", 9) : NULL;
	if (!ok) {
		char *d = json_dumps(rep, JSON_COMPACT);

		fprintf(stderr, "routes_bench: %s probe refused: %.400s\n", kind_label[k], d);
		free(d);
		B.kind_why[k] = "probe object refused at apply";
	} else if (rule == NULL || strcmp(rule->object, "ns0/r3") != 0) {
		B.kind_why[k] = "probe object not served";
	} else {
		B.kind_on[k] = true;
	}
	json_decref(req);
	json_decref(rep);
	router_stop(&r);
	rm_state(dir);
}

/* The vhost and rule that serve route i (path: its own, else /index.html). */
static const struct sy_rule *
served_rule(const struct sy_generation *g, size_t i, const struct sy_vhost **vhp)
{
	char host[96], pbuf[32], path[64];
	const char *p = route_path(i, pbuf, sizeof(pbuf));
	const struct sy_vhost *vh;

	route_host(i, host, sizeof(host));
	snprintf(path, sizeof(path), "%s", p ? p : "/index.html");
	if (p != NULL)
		strncat(path, "/items", sizeof(path) - strlen(path) - 1);
	vh = g ? sy_gen_find_vhost(g, host, strlen(host)) : NULL;
	*vhp = vh;
	return vh ? sy_vhost_match_path(vh, path, strlen(path)) : NULL;
}

/* F_FLEET: route ns<i/100>/r<i>'s status.phase, as `get` answers it ("" if
 * none). */
static void
route_phase(struct sy_router *r, size_t i, char *buf, size_t len)
{
	char ns[32], name[32];
	json_t *req, *rep;
	const char *ph;

	snprintf(ns, sizeof(ns), "ns%zu", i / ROUTES_PER_NS);
	snprintf(name, sizeof(name), "r%zu", i);
	req = json_pack("{s:s, s:s, s:s, s:s}", "op", "get", "kind", "route", "namespace", ns,
			"name", name);
	rep = sy_ops_handle(r, req);
	ph = json_string_value(json_object_get(
		json_object_get(json_array_get(json_object_get(rep, "items"), 0), "status"), "phase"));
	snprintf(buf, len, "%s", ph ? ph : "");
	json_decref(rep);
	json_decref(req);
}

/*
 * What the features put on route i (kind k) and that its vhost and rule
 * must show once it is served: NULL, or what is missing.
 */
static const char *
feature_missing(struct sy_router *r, size_t i, enum rkind k, const struct sy_vhost *vh,
		const struct sy_rule *rule)
{
	char phase[32];

	if (k == K_OPENSHIFT && (B.feat & F_EDGE) && (vh->tls != SY_TLS_EDGE || vh->term == NULL || vh->term->ctx == NULL))
		return "edge termination with the route's own TLS context";
	/* Only a proxied vhost keeps a cookie: with F_STICKY the changed
	 * Route has a path (route_of_kind), so it is proxied. */
	if (k == K_OPENSHIFT && (B.feat & F_STICKY) &&
	    (vh->mode != SY_MODE_PROXY || sy_rule_sticky_cookie(rule) == NULL ||
	     strcmp(sy_rule_sticky_cookie(rule), STICKY_NAME) != 0))
		return "a proxied vhost with the route's sticky cookie " STICKY_NAME;
	if (k == K_IR && (B.feat & F_STICKY) &&
	    (vh->mode != SY_MODE_PROXY || sy_rule_sticky_cookie(rule) == NULL ||
	     strcmp(sy_rule_sticky_cookie(rule), SY_CONTOUR_AFFINITY_COOKIE) != 0))
		return "a proxied vhost with Contour's affinity cookie (strategy Cookie)";
	if (k == K_IR && (B.feat & F_HC) &&
	    (rule->pool->hc == NULL || strcmp(rule->pool->hc->path, HC_PATH) != 0))
		return "the health check " HC_PATH " on its pool";
	if (k == K_OPENSHIFT && (B.feat & F_FLEET)) {
		if (r->fleet_routers != 1)
			return "fleet mode (one Router in the store)";
		route_phase(r, i, phase, sizeof(phase));
		if (strcmp(phase, "scheduled") != 0)
			return "status.phase \"scheduled\" (its RouteBinding)";
	}
	return NULL;
}

struct hc_copy {
	uint32_t ip;
	uint16_t port;
	const struct sy_endpoint *ep;
	uint32_t refs;
};

static int
cmp_hc_copy(const void *a, const void *b)
{
	const struct hc_copy *x = a, *y = b;

	if (x->ip != y->ip)
		return x->ip < y->ip ? -1 : 1;
	if (x->port != y->port)
		return x->port < y->port ? -1 : 1;
	return x->ep < y->ep ? -1 : x->ep > y->ep;
}

/*
 * F_HC: r->health is what a plan of the live generation from scratch would
 * be (control/health.h): one target per checked address and port, one copy
 * per pool it is in, counted once per rule that sends there. Walks the
 * whole generation: never inside a timed part.
 */
static void
health_check(struct sy_router *r, const char *when)
{
	const struct sy_generation *g = sy_gen_acquire(&r->slot);
	const struct sy_vhost *vh;
	struct hc_copy *v = NULL, key;
	size_t n = 0, cap = 0, i, k, keys = 0, copies = 0, vi;
	const char *bad = NULL;

	for (vi = 0; (vh = sy_gen_next_vhost(g, &vi)) != NULL;)
		for (i = 0; i < vh->n_rules; i++) {
			const struct sy_pool *p = vh->rules[i].pool;

			for (k = 0; p != NULL && p->hc != NULL && k < p->n_endpoints; k++) {
				const struct sy_endpoint *e = &p->endpoints[k];

				if (e->addr.family != AF_INET)
					continue;
				if (n == cap) {
					struct hc_copy *nv;

					cap = cap ? 2 * cap : 1024;
					nv = realloc(v, cap * sizeof(*v));
					if (nv == NULL) {
						free(v);
						harness_error("health check: out of memory");
						return;
					}
					v = nv;
				}
				v[n++] = (struct hc_copy){ sy_addr_key32(&e->addr), htons(e->port), e, 1 };
			}
		}
	if (n > 0)
		qsort(v, n, sizeof(*v), cmp_hc_copy);
	/* One copy per endpoint of a pool, its refs the rules through it. */
	for (i = 0, k = 0; i < n; i++) {
		if (k > 0 && v[k - 1].ep == v[i].ep) {
			v[k - 1].refs++;
			continue;
		}
		if (k == 0 || v[k - 1].ip != v[i].ip || v[k - 1].port != v[i].port)
			keys++;
		v[k++] = v[i];
	}
	n = k;
	if (keys != r->health.n)
		bad = "targets are not the generation's checked endpoints";
	for (i = 0; bad == NULL && i < r->health.n; i++) {
		const struct sy_health_target *t = r->health.t[i];

		copies += t->n_eps;
		for (k = 0; bad == NULL && k < t->n_eps; k++) {
			const struct hc_copy *c;

			key = (struct hc_copy){ sy_addr_key32(&t->addr), t->port, t->eps[k].ep, 0 };
			c = bsearch(&key, v, n, sizeof(*v), cmp_hc_copy);
			if (c == NULL)
				bad = "a target's copy is not in the generation";
			else if (c->refs != t->eps[k].refs)
				bad = "a copy's rule count is wrong";
		}
	}
	if (bad == NULL && copies != n)
		bad = "copies in the generation without their target";
	if (bad != NULL)
		harness_error("health targets %s: %s (%zu targets, %zu in the generation; %zu "
			      "copies, %zu)", when, bad, r->health.n, keys, copies, n);
	free(v);
}

/*
 * F_HC, after each change: as many targets as checked endpoints, each
 * Service's 2 while its IngressRoute sends to it (moved: (d)'s IngressRoute
 * sends to the next Service, and its own has no checked pool left). The
 * whole plan is checked against the generation after each series
 * (health_check): walking it between changes would leave the next one's
 * caches cold.
 */
static void
health_count(struct sy_router *r, const struct res *x, bool moved)
{
	size_t want = 2 * x->services - (moved ? 2 : 0);

	if (!(x->feat & F_HC) || !B.kind_on[K_IR])
		return;
	if (r->health.n != want)
		harness_error("after a change: %zu health targets, want %zu", r->health.n, want);
}

/*
 * F_FLEET's rule, checked once in a small router: in fleet mode an OpenShift
 * Route is served only once a RouteBinding binds it to this router's
 * Router (fleet.h), so the bench's bindings are what serve its routes.
 */
static void
probe_fleet(void)
{
	struct sy_router r;
	char dir[300];
	const struct sy_vhost *vh;
	const struct sy_rule *unbound, *bound;
	json_t *req, *rep;
	bool ok;

	snprintf(dir, sizeof(dir), "%s/probe", B.state_dir);
	B.feat = F_FLEET;
	if (router_start(&r, dir) < 0) {
		harness_error("fleet probe: router start failed");
		return;
	}
	req = json_pack("{s:s, s:[o, o, o, o]}", "op", "apply", "objects", make_router(),
			make_service(0), make_endpoints(0), make_route_k(2, K_OPENSHIFT, 0));
	rep = sy_ops_handle(&r, req);
	ok = reply_ok(rep, "fleet probe");
	json_decref(rep);
	json_decref(req);
	unbound = served_rule(sy_gen_acquire(&r.slot), 2, &vh);
	req = json_pack("{s:s, s:[o]}", "op", "apply", "objects", make_binding(2));
	rep = sy_ops_handle(&r, req);
	ok = reply_ok(rep, "fleet probe binding") && ok;
	json_decref(rep);
	json_decref(req);
	bound = served_rule(sy_gen_acquire(&r.slot), 2, &vh);
	if (ok && (unbound != NULL || bound == NULL || strcmp(bound->object, "ns0/r2") != 0))
		harness_error("fleet probe: a Route is served %s its RouteBinding",
			      unbound != NULL ? "without" : "not even with");
	router_stop(&r);
	rm_state(dir);
}

/* ---------------------------------------------------------- journals -- */

/* Median time of sy_journal_append(rec) on a fresh journal in dir. */
static double
journal_cost(const char *dir, const json_t *rec, unsigned reps)
{
	struct sy_journal j;
	double t[MAX_REPS];
	unsigned i;

	if (reps > MAX_REPS)
		reps = MAX_REPS;
	if (sy_journal_open(&j, dir) < 0)
		return -1;
	for (i = 0; i < reps; i++) {
		double t0 = now_s();

		if (sy_journal_append(&j, rec) < 0) {
			sy_journal_close(&j);
			rm_state(dir);
			return -1;
		}
		t[i] = now_s() - t0;
	}
	sy_journal_close(&j);
	rm_state(dir);
	return median(t, reps);
}

/* --------------------------------------------------------- the reader -- */

/* A worker's view of the slot: registered RCU reader 0, acquire once per
 * loop, quiescent at the top of every loop. Records when it first sees a
 * generation with an id above `after`. */
static struct {
	struct sy_gen_slot *slot;
	atomic_bool stop, ready;
	_Atomic uint64_t after;
	_Atomic uint64_t seen_tsc;
	_Atomic uint64_t seen_id;
} R;

static void *
reader_main(void *arg)
{
	cpu_set_t cs;
	const struct timespec nap = { 0, 20000 };

	(void)arg;
	CPU_ZERO(&cs);
	CPU_SET(B.reader_core, &cs);
	pthread_setaffinity_np(pthread_self(), sizeof(cs), &cs);
	rte_rcu_qsbr_thread_register(R.slot->qs, 0);
	atomic_store(&R.ready, true);
	while (!atomic_load_explicit(&R.stop, memory_order_relaxed)) {
		const struct sy_generation *g;

		/* One "burst": online, acquire, look, quiescent, offline. */
		rte_rcu_qsbr_thread_online(R.slot->qs, 0);
		g = sy_gen_acquire(R.slot);
		if (g != NULL && g->id > atomic_load(&R.after) && atomic_load(&R.seen_tsc) == 0) {
			atomic_store(&R.seen_id, g->id);
			atomic_store(&R.seen_tsc, rte_rdtsc());
		}
		rte_rcu_qsbr_quiescent(R.slot->qs, 0);
		rte_rcu_qsbr_thread_offline(R.slot->qs, 0);
		/* Idle between bursts, offline as a sleeping worker is: the
		 * VM has 2 cores, and a spinning reader would take one from
		 * the control thread's neighbours. Adds up to ~0.1 ms. */
		nanosleep(&nap, NULL);
	}
	rte_rcu_qsbr_thread_unregister(R.slot->qs, 0);
	return NULL;
}

/* ------------------------------------------------------------ lookups -- */

struct query {
	const char *host, *path;
	uint32_t hlen, plen;
	uint32_t route; /* expected route index (hits) */
};

struct qset {
	struct query *q;
	char *text;
	size_t n;
};

enum qtype { Q_HIT, Q_HOSTMISS, Q_PATHMISS };

static int
qset_build(struct qset *s, size_t n, size_t routes, enum qtype type, uint64_t seed)
{
	size_t i, off = 0, cap = n * 80;

	s->q = calloc(n, sizeof(*s->q));
	s->text = malloc(cap);
	s->n = n;
	if (s->q == NULL || s->text == NULL)
		return -1;
	for (i = 0; i < n; i++) {
		size_t rt = xorshift(&seed) % routes;
		char pbuf[32];
		const char *path = route_path(rt, pbuf, sizeof(pbuf));
		int hl, pl;

		if (type == Q_PATHMISS) {
			/* a host whose only rule has a path */
			rt = rt - rt % 4 + 3;
			if (rt >= routes)
				rt = 3;
			path = route_path(rt, pbuf, sizeof(pbuf));
		}
		if (type == Q_HOSTMISS)
			hl = snprintf(s->text + off, cap - off, "nx%zu.ns%zu.apps.bench.test", rt,
				      rt / ROUTES_PER_NS);
		else
			hl = route_host(rt, s->text + off, cap - off);
		s->q[i].host = s->text + off;
		s->q[i].hlen = (uint32_t)hl;
		off += (size_t)hl + 1;
		if (type == Q_PATHMISS)
			pl = snprintf(s->text + off, cap - off, "/static/app.js");
		else if (path != NULL)
			pl = snprintf(s->text + off, cap - off, "%s/items/42?x=1", path);
		else
			pl = snprintf(s->text + off, cap - off, "/index.html");
		s->q[i].path = s->text + off;
		s->q[i].plen = (uint32_t)pl;
		off += (size_t)pl + 1;
		s->q[i].route = (uint32_t)rt;
	}
	return 0;
}

static void
qset_free(struct qset *s)
{
	free(s->q);
	free(s->text);
}

static uintptr_t lookup_sink;

static uint64_t __attribute__((noinline))
lookup_pass(const struct sy_generation *g, const struct query *q, size_t n)
{
	uintptr_t acc = 0;
	uint64_t t0 = rte_rdtsc_precise(), t1;
	size_t i;

	for (i = 0; i < n; i++) {
		const struct sy_vhost *vh = sy_gen_find_vhost(g, q[i].host, q[i].hlen);
		const struct sy_rule *r = vh ? sy_vhost_match_path(vh, q[i].path, q[i].plen) : NULL;

		acc += (uintptr_t)r + (uintptr_t)vh;
	}
	t1 = rte_rdtsc_precise();
	lookup_sink += acc;
	return t1 - t0;
}

/* Memory on transparent huge pages, as generation memory is (gen_mem.c). */
static void *
huge_alloc(size_t size)
{
	void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		return NULL;
	(void)madvise(p, size, MADV_HUGEPAGE);
	memset(p, 0, size); /* touched now, not in the timed loop */
	return p;
}

static uint64_t __attribute__((noinline))
floor_pass(char *const *dir, const uint32_t *q, size_t n, char *blocks, size_t block_bytes)
{
	uint64_t last = 0, t0 = rte_rdtsc_precise(), t1;
	uintptr_t acc = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		/* The directory, a chunk's slot, the block it names: read as
		 * find_exact reads them, with its two prefetches. `last` is
		 * always 0 (the blocks are zeroed) but the CPU cannot know:
		 * each pair starts when the one before has ended. With
		 * `blocks`, the block alone: q[2i] names it. */
		const char *blk;

		if (blocks != NULL) {
			blk = blocks + (q[2 * i] + (uint32_t)last) * block_bytes;
		} else {
			const char *slot = dir[q[2 * i] + (uint32_t)last] + q[2 * i + 1];

			blk = (const char *)(uintptr_t)(*(const uint64_t *)slot &
							SY_VHOST_SLOT_ADDR_MASK);
		}

		__builtin_prefetch(blk + 64);
		__builtin_prefetch(blk + 128);
		last = *(const uint64_t *)blk;
		acc += last;
	}
	t1 = rte_rdtsc_precise();
	lookup_sink += acc;
	return t1 - t0;
}

/*
 * This machine's latency floors for (c). A lookup of a known host makes two
 * dependent reads at random places: a slot in one of the table's 4 KB
 * chunks, then the vhost's block. At a million routes each is a cache and
 * TLB miss. `reads` 2: the same two reads over as many chunks and blocks
 * of the same size, on huge pages, without hashing or comparing anything,
 * one pair at a time. That is what one lookup costs in memory alone on
 * this machine: a VM's memory latency is the host's plus the nested page
 * walk. `reads` 1: the block alone, the floor of any table that must read
 * the vhost to know the host is there. The lookup loop can beat these only
 * by overlapping one lookup's misses with the next's. ns a lookup, best
 * of 3.
 */
static double
floor_ns(size_t n_chunks, size_t n_blocks, size_t block_bytes, size_t n, int reads)
{
	size_t chunk_bytes = n_chunks * 4096, blocks_bytes = n_blocks * block_bytes, i;
	char *chunks = huge_alloc(chunk_bytes), *blocks = huge_alloc(blocks_bytes);
	char **dir = calloc(n_chunks, sizeof(*dir));
	uint32_t *q = malloc(2 * n * sizeof(*q));
	uint64_t x = 0x9e3779b97f4a7c15ull, best = UINT64_MAX;
	double ns = 0;

	if (chunks == NULL || blocks == NULL || dir == NULL || q == NULL)
		goto out;
	/* Chunks laid out as struct sy_vhost_chunk: a 16-byte head, then
	 * eight-byte slots. */
	for (i = 0; i < n_chunks; i++) {
		size_t j;

		dir[i] = chunks + i * 4096;
		for (j = 0; j < SY_VHOST_CHUNK_SLOTS; j++) {
			x ^= x << 13, x ^= x >> 7, x ^= x << 17;
			*(uint64_t *)(dir[i] + 16 + 8 * j) =
				(uint64_t)(uintptr_t)(blocks + (x % n_blocks) * block_bytes);
		}
	}
	for (i = 0; i < n; i++) {
		x ^= x << 13, x ^= x >> 7, x ^= x << 17;
		q[2 * i] = (uint32_t)(x % (reads == 1 ? n_blocks : n_chunks));
		q[2 * i + 1] = (uint32_t)(16 + 8 * ((x >> 32) % SY_VHOST_CHUNK_SLOTS));
	}
	floor_pass(dir, q, n, reads == 1 ? blocks : NULL, block_bytes);
	for (i = 0; i < 3; i++) {
		uint64_t c = floor_pass(dir, q, n, reads == 1 ? blocks : NULL, block_bytes);

		if (c < best)
			best = c;
	}
	ns = (double)best / (double)n / B.hz * 1e9;
out:
	if (chunks != NULL)
		munmap(chunks, chunk_bytes);
	if (blocks != NULL)
		munmap(blocks, blocks_bytes);
	free(dir);
	free(q);
	return ns;
}

/* ns per lookup: one warm pass, then the best of 3. */
static double
lookup_ns(const struct sy_generation *g, const struct qset *s)
{
	uint64_t best = UINT64_MAX;
	int i;

	lookup_pass(g, s->q, s->n);
	for (i = 0; i < 3; i++) {
		uint64_t c = lookup_pass(g, s->q, s->n);

		if (c < best)
			best = c;
	}
	return (double)best / (double)s->n / B.hz * 1e9;
}

static size_t
lookup_check(const struct sy_generation *g, const struct qset *s)
{
	size_t i, wrong = 0;

	for (i = 0; i < s->n; i++) {
		const struct sy_vhost *vh = sy_gen_find_vhost(g, s->q[i].host, s->q[i].hlen);
		const struct sy_rule *r = vh ? sy_vhost_match_path(vh, s->q[i].path, s->q[i].plen) : NULL;
		char want[64];

		snprintf(want, sizeof(want), "ns%u/r%u", s->q[i].route / ROUTES_PER_NS, s->q[i].route);
		if (r == NULL || strcmp(r->object, want) != 0) {
			if (wrong++ < 3)
				fprintf(stderr, "routes_bench: lookup %.*s%.*s -> %s, want %s\n",
					(int)s->q[i].hlen, s->q[i].host, (int)s->q[i].plen,
					s->q[i].path, r ? r->object : "(none)", want);
		}
	}
	return wrong;
}

/* -------------------------------------------------------------- phases -- */

static void
compile_opts(struct sy_router *r, struct sy_compile_opts *o, char *now, size_t len)
{
	/* routerd's own, the relations index included: without it a compile
	 * takes other paths (a Service's EndpointSlices found by listing the
	 * store), and the figure would not be routerd's. */
	if (len < 32)
		abort();
	sy_router_compile_opts(r, o, now);
}

/* (a) load every object through the apply op. */
static int
phase_apply(struct sy_router *r, struct res *x, struct stream *s)
{
	json_t *objs = json_array(), *o;
	size_t n = 0, total = 0;
	bool done = false;

	while (!done) {
		o = stream_next(s);
		if (o != NULL) {
			json_array_append_new(objs, o);
			n++;
		}
		done = o == NULL;
		if (n == x->batch || (done && n > 0)) {
			json_t *req = json_pack("{s:s, s:o}", "op", "apply", "objects", objs);
			double t0 = now_s(), t1, t2;
			json_t *rep = sy_ops_handle(r, req);
			bool ok = reply_ok(rep, "apply");

			json_decref(rep);
			t1 = now_s();
			sy_gen_reclaim(&r->slot);
			t2 = now_s();
			x->apply_total += t1 - t0;
			x->reclaim_total += t2 - t1;
			x->apply_last = t1 - t0;
			x->apply_last_objects = (double)n;
			x->applies++;
			total += n;
			if (!ok) {
				json_decref(req);
				return -1;
			}
			/* The journal cost of a batch this size: the same record,
			 * appended to a scratch journal on tmpfs and on disk. */
			if (x->applies == 1) {
				json_t *rec = json_pack("{s:s, s:s, s:O}", "op", "apply", "time", TS,
							"objects", json_object_get(req, "objects"));
				char d[300];

				snprintf(d, sizeof(d), "%s/jprobe", B.state_dir);
				x->jrn_batch_tmpfs = journal_cost(d, rec, 3);
				snprintf(d, sizeof(d), "%s/jprobe", B.disk_dir);
				x->jrn_batch_disk = journal_cost(d, rec, 3);
				json_decref(rec);
			}
			json_decref(req);
			objs = json_array();
			n = 0;
			fprintf(stderr, "\r  apply: %zu/%zu objects, %zu applies, %.1f s", total,
				x->via_journal ? x->tail : x->objects, x->applies, x->apply_total);
		}
	}
	json_decref(objs);
	fprintf(stderr, "\n");
	return 0;
}

/*
 * Sizes above --apply-max (default: 2M, so never in the standard runs; a
 * faster way to load a set for the other figures): the first objects - tail go
 * straight into the journal, in stored form (uid and creationTimestamp set,
 * as sy_ops_apply stores them), and sy_router_load replays it. Not timed.
 */
static int
write_journal(const char *dir, struct stream *s, size_t n)
{
	struct sy_journal j;
	size_t done = 0, uid = 0;
	int rc = 0;

	if (sy_journal_open(&j, dir) < 0)
		return -1;
	while (done < n && rc == 0) {
		json_t *rec = json_pack("{s:s, s:s, s:[]}", "op", "apply", "time", TS, "objects");
		json_t *arr = json_object_get(rec, "objects");
		size_t k;

		for (k = 0; k < 10000 && done < n; k++, done++) {
			json_t *o = stream_next(s);
			char u[40];

			if (o == NULL)
				break;
			/* uids are at most 39 characters (sy_ops_apply checks) */
			snprintf(u, sizeof(u), "00000000-0000-4000-8000-%012zx",
				 (size_t)(++uid & 0xffffffffffffull));
			json_object_set_new(json_object_get(o, "metadata"), "uid", json_string(u));
			json_array_append_new(arr, o);
		}
		rc = sy_journal_append(&j, rec);
		json_decref(rec);
		fprintf(stderr, "\r  journal: %zu/%zu objects written", done, n);
	}
	fprintf(stderr, "\n");
	sy_journal_close(&j);
	return rc;
}

/* (a) full compile alone, then publish and free the old one: what
 * sy_router_recompile does, step by step. Also stage 1 per kind. */
static void
phase_compile(struct sy_router *r, struct res *x, unsigned reps)
{
	double t[MAX_REPS], pub[MAX_REPS], fr[MAX_REPS], rt[MAX_REPS];
	struct sy_gen_slot scratch;
	unsigned i;
	char now[32];
	struct sy_compile_opts o;
	struct sy_compile_ctx cx;
	const struct sy_kind *const *k;
	unsigned alone;

	if (reps > MAX_REPS)
		reps = MAX_REPS;
	/* The guard reads the recompiles on routerd's path only. */
	alone = B.guard ? 1 : reps;
	/* Published in a slot of its own: a generation published in r's
	 * behind sy_router_recompile's back would leave the router's plans
	 * (health targets, counter slots) pointing into a generation it never
	 * planned, and every later change planned against that. */
	if (sy_gen_slot_init(&scratch, 1, gen_free) != 0) {
		harness_error("cannot make a generation slot");
		return;
	}
	for (i = 0; i < alone; i++) {
		struct sy_generation *g;
		double t0, t1, t2, t3;

		compile_opts(r, &o, now, sizeof(now));
		/* As after a request: objects rest as text, so the compile
		 * parses them (store.h), as routerd's would. */
		sy_store_cool(&r->store);
		t0 = now_s();
		g = sy_compile(&r->store, &o, r->gen_id + 1);
		t1 = now_s();
		if (g == NULL) {
			harness_error("sy_compile: out of memory");
			sy_gen_slot_fini(&scratch);
			return;
		}
		sy_gen_publish(&scratch, g);
		t2 = now_s();
		sy_gen_reclaim(&scratch);
		t3 = now_s();
		t[i] = t1 - t0;
		pub[i] = t2 - t1;
		/* The first publish retires nothing: its free is timed at the end. */
		if (i > 0)
			fr[i - 1] = t3 - t2;
		fprintf(stderr, "\r  compile %u/%u: %.1f ms", i + 1, alone, t[i] * 1e3);
	}
	{
		double t0 = now_s();

		sy_gen_slot_fini(&scratch);
		fr[alone - 1] = now_s() - t0;
	}
	fprintf(stderr, "\n");
	/* The same through routerd's path (sy_router_recompile made to
	 * compile everything): the compile, the counter slots' and health
	 * checks' plans, the publish. What (d)'s one change is set against. */
	for (i = 0; i < reps; i++) {
		sy_store_cool(&r->store);
		r->changes.full = true;
		if (sy_router_recompile(r) < 0) {
			harness_error("sy_router_recompile: out of memory");
			return;
		}
		sy_gen_reclaim(&r->slot);
		rt[i] = r->last_compile_ms / 1e3;
		fprintf(stderr, "\r  full recompile %u/%u: %.1f ms", i + 1, reps, r->last_compile_ms);
	}
	fprintf(stderr, "\n");
	/* Once more with every object still parsed from the recompile just
	 * made: what the compile costs without unpacking the store (the
	 * difference is parsing, and the memory the trees take). */
	{
		struct sy_generation *g;
		double t0;

		compile_opts(r, &o, now, sizeof(now));
		t0 = now_s();
		g = sy_compile(&r->store, &o, r->gen_id + 1);
		x->compile_warm = now_s() - t0;
		if (g == NULL) {
			harness_error("sy_compile: out of memory");
			return;
		}
		gen_free(g); /* never published */
	}
	x->recompile_med = median(rt, reps);
	x->publish = median(pub, alone);
	x->free_old = median(fr, alone);
	x->compile_med = median(t, alone);
	x->compile_min = t[0]; /* sorted by median() */
	/* Stage 1 alone, kind by kind, as sy_compile runs it (the objects
	 * are warm from the last compile: this is the kinds' own work). */
	compile_opts(r, &o, now, sizeof(now));
	memset(&cx, 0, sizeof(cx));
	cx.st = &r->store;
	cx.opts = &o;
	cx.scratch = sy_arena_new(); /* as sy_compile gives it to the kinds */
	for (k = sy_kinds; *k != NULL; k++) {
		double t0;
		int e;

		if ((*k)->compile == NULL)
			continue;
		t0 = now_s();
		(*k)->compile(&cx);
		for (e = 0; e < K_N; e++)
			if (sy_kind_for_object(kind_api[e], kind_name[e]) == *k)
				x->stage1[e] += now_s() - t0;
	}
	for (i = 0; i < cx.n_rules; i++)
		free(cx.rules[i].host);
	free(cx.rules);
	sy_arena_free(cx.scratch);
	json_decref(cx.kept);
	sy_store_cool(&r->store);
	{
		double s1 = 0;
		int e;

		for (e = 0; e < K_N; e++)
			s1 += x->stage1[e];
		x->stage2 = x->compile_warm - s1;
	}
}

static void
phase_lookup(struct sy_router *r, struct res *x)
{
	const struct sy_generation *g = sy_gen_acquire(&r->slot);
	struct qset hit, hm, pm;
	size_t n = B.queries;

	memset(&hit, 0, sizeof(hit));
	memset(&hm, 0, sizeof(hm));
	memset(&pm, 0, sizeof(pm));
	if (qset_build(&hit, n, x->routes, Q_HIT, 0x9e3779b97f4a7c15ull) < 0 ||
	    qset_build(&hm, n, x->routes, Q_HOSTMISS, 0x2545f4914f6cdd1dull) < 0 ||
	    qset_build(&pm, n, x->routes, Q_PATHMISS, 0x853c49e6748fea9bull) < 0) {
		harness_error("out of memory for queries");
		goto out;
	}
	x->n_vhosts = g->n_vhosts;
	x->n_rules = g->n_rules;
	{
		const struct sy_vhost *vh;
		size_t vi, i;

		for (vi = 0; (vh = sy_gen_next_vhost(g, &vi)) != NULL;) {
			x->n_edge_ctx += vh->tls == SY_TLS_EDGE && vh->term != NULL && vh->term->ctx != NULL;
			x->n_proxy += vh->mode == SY_MODE_PROXY;
			for (i = 0; i < vh->n_rules; i++)
				x->n_sticky += sy_rule_sticky_cookie(&vh->rules[i]) != NULL;
		}
		x->n_hc_targets = r->health.n;
		x->n_tls_ctx = sy_tls_ctx_cached();
		x->n_bindings = sy_store_count(&r->store, &sy_kind_routebinding);
	}
	/* Each feature made what it should (what is served: lookup_check). */
	if ((x->feat & F_EDGE) && x->n_edge_ctx != x->by_kind[K_OPENSHIFT])
		harness_error("%zu edge vhosts with a TLS context, want %zu (the OpenShift Routes)",
			      x->n_edge_ctx, x->by_kind[K_OPENSHIFT]);
	if ((x->feat & F_HC) && (x->n_hc_targets == 0 || (B.kind_on[K_IR] &&
							  x->n_hc_targets != 2 * x->services)))
		harness_error("%zu health targets, want %zu (each Service's 2 endpoints)",
			      x->n_hc_targets, B.kind_on[K_IR] ? 2 * x->services : 1);
	if ((x->feat & F_STICKY) && x->n_sticky == 0)
		harness_error("no rule has a sticky cookie");
	if ((x->feat & F_FLEET) && (r->fleet_routers != 1 || x->n_bindings != x->by_kind[K_OPENSHIFT]))
		harness_error("fleet: %zu Routers and %zu RouteBindings, want 1 and %zu",
			      r->fleet_routers, x->n_bindings, x->by_kind[K_OPENSHIFT]);
	if (x->feat & F_HC)
		health_check(r, "after loading");
	x->lk_wrong = lookup_check(g, &hit);
	if (x->lk_wrong)
		harness_error("%zu of %zu lookups found the wrong object", x->lk_wrong, n);
	x->lk_hit = lookup_ns(g, &hit);
	x->lk_hostmiss = lookup_ns(g, &hm);
	x->lk_pathmiss = lookup_ns(g, &pm);
	{
		size_t blk = g->n_vhosts ? ((g->bytes - (size_t)g->n_chunks * 4096) / g->n_vhosts + 15) &
						   ~(size_t)15 :
					   64;

		x->lk_floor = floor_ns(g->n_chunks, g->n_vhosts, blk, n, 2);
		x->lk_floor1 = floor_ns(g->n_chunks, g->n_vhosts, blk, n, 1);
	}
out:
	qset_free(&hit);
	qset_free(&hm);
	qset_free(&pm);
}

/* (d) one changed route, N loaded: sy_ops_handle -> the reader sees it. */
/*
 * One change of route rt (kind k) to Service `svc`, timed from the apply call
 * to the reader seeing the new generation. Returns the latency in seconds
 * (-1: never seen or served wrong) and the parts in *ret (until the call
 * returned), *compile (compile + publish inside it), *scope (objects
 * compiled), *reclaim (freeing the old generation after).
 */
static double
one_change(struct sy_router *r, size_t rt, enum rkind k, size_t svc, double *ret, double *compile,
	   double *scope, double *reclaim)
{
	json_t *req = json_pack("{s:s, s:[o]}", "op", "apply", "objects", make_route_k(rt, k, svc));
	uint64_t t0, t1, seen, before = r->gen_id, spin = 0;
	json_t *rep;
	const struct sy_vhost *vh;
	const struct sy_rule *rule;
	const char *missing = NULL;
	char want[32];
	double t2;

	atomic_store(&R.after, before);
	atomic_store(&R.seen_tsc, 0);
	t0 = rte_rdtsc_precise();
	rep = sy_ops_handle(r, req);
	t1 = rte_rdtsc_precise();
	for (;;) {
		seen = atomic_load(&R.seen_tsc);
		if (seen != 0 && atomic_load(&R.seen_id) > before && seen >= t0)
			break;
		if (seen != 0) /* stale: seen before `after` was set; re-arm */
			atomic_store(&R.seen_tsc, 0);
		if (spin++ > 200000000ull) {
			seen = 0;
			break;
		}
		rte_pause();
	}
	reply_ok(rep, "change apply");
	json_decref(rep);
	json_decref(req);
	*ret = (double)(t1 - t0) / B.hz;
	*compile = r->last_compile_ms / 1e3;
	*scope = r->last_compile_incremental ? (double)r->last_compile_objects : -1;
	snprintf(want, sizeof(want), "svc%zu", svc);
	rule = served_rule(sy_gen_acquire(&r->slot), rt, &vh);
	if (seen == 0 || rule == NULL || rule->action != SY_ACTION_BACKEND ||
	    strcmp(rule->pool->services[0].name, want) != 0) {
		harness_error("change of %s %zu: not seen or not served (want %s)", kind_name[k], rt,
			      want);
		seen = 0;
	} else if ((missing = feature_missing(r, rt, k, vh, rule)) != NULL) {
		harness_error("change of %s %zu: served without %s", kind_name[k], rt, missing);
		seen = 0;
	}

	t2 = now_s();
	while (sy_gen_reclaim(&r->slot) > 0)
		rte_pause();
	*reclaim = now_s() - t2;
	return seen ? (double)(seen - t0) / B.hz : -1;
}

/* The index of a route of kind k near the middle of the set: with F_STICKY,
 * an OpenShift Route with a path (a proxied vhost, which keeps its cookie;
 * a plain one is spliced unless it terminates TLS). */
static size_t
route_of_kind(size_t routes, enum rkind k)
{
	size_t i = routes / 2 - (routes / 2) % 10;
	bool with_path = k == K_OPENSHIFT && (B.feat & F_STICKY);

	for (; i < routes; i++)
		if (route_kind(i) == k && (!with_path || i % 4 == 3))
			return i;
	return SIZE_MAX;
}

static void
phase_change(struct sy_router *r, struct res *x)
{
	pthread_t th;
	double lat[MAX_REPS], ret[MAX_REPS], rec_t[MAX_REPS], cmp[MAX_REPS], scope[MAX_REPS];
	unsigned i, n = B.changes > MAX_REPS ? MAX_REPS : B.changes;
	size_t rt = route_of_kind(x->routes, K_OPENSHIFT);
	char d[300];
	json_t *rec;
	enum rkind k;
	bool ir_moved = false;

	if (rt == SIZE_MAX) {
		harness_error("no OpenShift Route to change");
		return;
	}
	memset(&R, 0, sizeof(R));
	R.slot = &r->slot;
	if (pthread_create(&th, NULL, reader_main, NULL) != 0) {
		harness_error("cannot start the reader thread");
		return;
	}
	while (!atomic_load(&R.ready))
		rte_pause();
	x->chg_n = n;
	for (i = 0; i < n; i++) {
		size_t svc = (rt / ROUTES_PER_SVC) ^ ((i & 1) ? 0 : 1);

		lat[i] = one_change(r, rt, K_OPENSHIFT, svc, &ret[i], &cmp[i], &scope[i], &rec_t[i]);
		if (lat[i] < 0)
			x->chg_bad++;
		health_count(r, x, ir_moved);
		fprintf(stderr, "\r  change %u/%u: %.2f ms (call %.2f, compile %.2f, scope %.0f)", i + 1,
			n, lat[i] * 1e3, ret[i] * 1e3, cmp[i] * 1e3, scope[i]);
	}
	fprintf(stderr, "\n");
	/* The other kinds: an IngressRoute root and a RouteGroup, 5 changes each. */
	for (k = K_IR; k < K_N; k++) {
		double l[5], c[5], rt2, sc, rc;
		size_t ri = route_of_kind(x->routes, k);
		unsigned m = 0;

		if (!B.kind_on[k] || ri == SIZE_MAX)
			continue;
		if (x->feat & F_HC)
			health_check(r, "after a series of changes");
		for (i = 0; i < 5; i++) {
			size_t svc = (ri / ROUTES_PER_SVC) ^ ((i & 1) ? 0 : 1);

			l[m] = one_change(r, ri, k, svc, &rt2, &c[m], &sc, &rc);
			if (l[m] < 0)
				x->chg_bad++;
			else
				m++;
			if (k == K_IR)
				ir_moved = svc != ri / ROUTES_PER_SVC;
			health_count(r, x, ir_moved);
		}
		x->chg_kind_med[k] = m ? median(l, m) : -1;
		x->chg_kind_compile[k] = m ? median(c, m) : -1;
		x->chg_kind_compile_min[k] = m ? c[0] : -1; /* sorted by median() */
		x->chg_kind_scope[k] = sc;
	}
	atomic_store(&R.stop, true);
	pthread_join(th, NULL);
	if (x->feat & F_HC)
		health_check(r, "after the changes");
	/* A changed route finds its namespace's context (tls_cert.h caches
	 * them by content): none made, none left behind. */
	if ((x->feat & F_EDGE) && sy_tls_ctx_cached() != x->n_tls_ctx)
		harness_error("%zu TLS contexts cached after the changes, %zu before",
			      sy_tls_ctx_cached(), x->n_tls_ctx);
	x->chg_scope = median(scope, n);
	x->chg_med = median(lat, n);
	x->chg_min = lat[0];
	x->chg_max = lat[n - 1];
	x->chg_ret_med = median(ret, n);
	x->chg_reclaim = median(rec_t, n);
	x->chg_compile = median(cmp, n);
	x->chg_compile_min = cmp[0];
	/* The journal part of one change: the same record on tmpfs / disk. */
	rec = json_pack("{s:s, s:s, s:[o]}", "op", "apply", "time", TS, "objects",
			make_route_k(rt, K_OPENSHIFT, rt / ROUTES_PER_SVC));
	snprintf(d, sizeof(d), "%s/jprobe", B.state_dir);
	x->chg_jrn_tmpfs = journal_cost(d, rec, 20);
	snprintf(d, sizeof(d), "%s/jprobe", B.disk_dir);
	x->chg_jrn_disk = journal_cost(d, rec, 20);
	json_decref(rec);
}

static void
run_size(struct res *x)
{
	struct sy_router r;
	struct stream s;
	char dir[300];
	size_t heap0, rss0, i;
	double t0;
	int k;

	B.feat = x->feat;
	x->services = (x->routes + ROUTES_PER_SVC - 1) / ROUTES_PER_SVC;
	for (k = 0; k < K_N; k++)
		x->by_kind[k] = 0;
	for (i = 0; i < x->routes; i++)
		x->by_kind[route_kind(i)]++;
	/* Fleet: the Router and a RouteBinding per OpenShift Route. */
	x->objects = x->routes + 2 * x->services + prelude_count() +
		     (x->feat & F_FLEET ? 1 + x->by_kind[K_OPENSHIFT] : 0);
	x->batch = B.batch ? B.batch : (x->objects / 100 > 1000 ? x->objects / 100 : 1000);
	x->via_journal = x->routes > B.apply_max && x->objects > x->batch;
	memset(&s, 0, sizeof(s));
	s.n_routes = x->routes;
	s.n_svc = x->services;
	snprintf(dir, sizeof(dir), "%s/state-%zu", B.state_dir, x->routes);
	fprintf(stderr, "routes_bench: %zu routes (%zu Services + Endpoints), %s\n", x->routes,
		x->services, x->via_journal ? "journal load + last batch applied" : "all applied");
	if (x->via_journal) {
		x->tail = x->batch;
		if (write_journal(dir, &s, x->objects - x->tail) < 0) {
			harness_error("cannot write the journal");
			rm_state(dir);
			return;
		}
	}
	malloc_trim(0);
	heap0 = heap_bytes();
	rss0 = rss_bytes();
	t0 = now_s();
	if (router_start(&r, dir) < 0) {
		harness_error("router start failed");
		return;
	}
	if (x->via_journal)
		x->restart = now_s() - t0;
	if (phase_apply(&r, x, &s) < 0)
		goto out;
	sy_gen_reclaim(&r.slot);
	malloc_trim(0);
	x->heap_delta = heap_bytes() - heap0;
	x->rss_delta = rss_bytes() - rss0;
	x->gen_bytes = sy_gen_acquire(&r.slot)->bytes;
	if (getenv("SY_BENCH_MEM") != NULL)
		mem_breakdown(&r, x->routes);
	if (!x->via_journal && !B.guard) {
		/* What a restart costs with these objects in the journal (not
		 * for the guard: it reads no restart). */
		router_stop(&r);
		malloc_trim(0);
		t0 = now_s();
		if (router_start(&r, dir) < 0) {
			harness_error("router restart failed");
			return;
		}
		x->restart = now_s() - t0;
		fprintf(stderr, "  restart (replay + compile): %.2f s\n", x->restart);
	}
	/* --lookups-only: (c) alone, for working on the lookup at a size
	 * whose full run takes minutes. */
	if (!B.lookups_only)
		phase_compile(&r, x, x->routes >= 1000000 ? 1 : B.quick ? 2 : 3);
	phase_lookup(&r, x);
	if (!B.lookups_only)
		phase_change(&r, x);
	x->ran = true;
out:
	router_stop(&r);
	rm_state(dir);
	malloc_trim(0);
}

/* -------------------------------------------------------------- table -- */

static const char *
size_name(size_t n, char *buf, size_t len)
{
	if (n >= 1000000 && n % 1000000 == 0)
		snprintf(buf, len, "%zuM", n / 1000000);
	else if (n >= 1000 && n % 1000 == 0)
		snprintf(buf, len, "%zuk", n / 1000);
	else
		snprintf(buf, len, "%zu", n);
	return buf;
}

/* "edge-certs health-checks" (sep between), or "none". */
static const char *
feat_list(unsigned f, const char *sep, char *buf, size_t len)
{
	size_t i, off = 0;

	buf[0] = '\0';
	for (i = 0; i < N_FEATS; i++)
		if ((f & feat_names[i].bit) && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? sep : "",
						feat_names[i].opt);
	if (off == 0)
		snprintf(buf, len, "none");
	return buf;
}

/* A column's name: its size, and "+ehsf" for the features it runs with. */
static const char *
column_name(const struct res *x, char *buf, size_t len)
{
	size_t i, off;

	size_name(x->routes, buf, len);
	off = strlen(buf);
	if (x->feat != 0 && off + 1 < len)
		buf[off++] = '+';
	for (i = 0; i < N_FEATS && off + 1 < len; i++)
		if (x->feat & feat_names[i].bit)
			buf[off++] = feat_names[i].letter;
	buf[off] = '\0';
	return buf;
}

#define ROWF "%-46s"
#define COLW 12

static void
row(const char *label, const struct res *xs, unsigned n, double (*get)(const struct res *),
    const char *fmt, const char *target, const char *verdict)
{
	unsigned i;

	printf(ROWF, label);
	for (i = 0; i < n; i++) {
		char cell[32];

		if (!xs[i].ran)
			snprintf(cell, sizeof(cell), "-");
		else if (isnan(get(&xs[i])))
			snprintf(cell, sizeof(cell), "n/a");
		else
			snprintf(cell, sizeof(cell), fmt, get(&xs[i]));
		printf(" | %*s", COLW, cell);
	}
	printf(" | %-14s | %s\n", target ? target : "", verdict ? verdict : "");
}

#define GETTER(name, expr) \
	static double name(const struct res *x) { return (expr); }

GETTER(g_apply_total, x->via_journal ? NAN : x->apply_total)
GETTER(g_apply_per_obj, x->via_journal ? NAN : x->apply_total / (double)x->objects * 1e6)
GETTER(g_apply_last, x->apply_last * 1e3)
GETTER(g_applies, x->via_journal ? NAN : (double)x->applies)
GETTER(g_batch, (double)x->batch)
GETTER(g_reclaim_total, x->via_journal ? NAN : x->reclaim_total)
GETTER(g_restart, B.guard && !x->via_journal ? NAN : x->restart)
GETTER(g_jb_tmpfs, x->jrn_batch_tmpfs * 1e3)
GETTER(g_jb_disk, x->jrn_batch_disk * 1e3)
GETTER(g_compile, x->compile_med * 1e3)
GETTER(g_compile_per_route, x->compile_med / (double)x->routes * 1e6)
GETTER(g_parse, (x->compile_med - x->compile_warm) * 1e3)
GETTER(g_recompile, x->recompile_med * 1e3)
/* One change's compile + plans + publish as a share of a full one's. */
GETTER(g_chg_share, x->recompile_med > 0 ? x->chg_compile / x->recompile_med * 100 : NAN)
GETTER(g_s1_os, x->stage1[K_OPENSHIFT] * 1e3)
/* The kind print_table is printing a row of (rows per kind). */
static enum rkind row_kind;
GETTER(g_s1_k, x->stage1[row_kind] * 1e3)
GETTER(g_s2, x->stage2 * 1e3)
GETTER(g_publish, x->publish * 1e6)
GETTER(g_free_old, x->free_old * 1e3)
GETTER(g_mem_total, (double)x->heap_delta / (double)x->routes)
GETTER(g_mem_gen, (double)x->gen_bytes / (double)x->routes)
GETTER(g_mem_store, ((double)x->heap_delta - (double)x->gen_bytes) / (double)x->routes)
GETTER(g_mem_rss, (double)x->rss_delta / (double)x->routes)
GETTER(g_mem_heap_mb, (double)x->heap_delta / 1048576.0)
GETTER(g_lk_hit, x->lk_hit)
GETTER(g_lk_floor, x->lk_floor)
GETTER(g_lk_floor1, x->lk_floor1)
GETTER(g_lk_hm, x->lk_hostmiss)
GETTER(g_lk_pm, x->lk_pathmiss)
GETTER(g_chg_med, x->chg_med * 1e3)
GETTER(g_chg_min, x->chg_min * 1e3)
GETTER(g_chg_max, x->chg_max * 1e3)
GETTER(g_chg_ret, x->chg_ret_med * 1e3)
GETTER(g_chg_jt, x->chg_jrn_tmpfs * 1e3)
GETTER(g_chg_jd, x->chg_jrn_disk * 1e3)
GETTER(g_chg_compile, x->chg_compile * 1e3)
GETTER(g_chg_rest, (x->chg_ret_med - x->chg_jrn_tmpfs - x->chg_compile) * 1e3)
GETTER(g_chg_scope, x->chg_scope)
GETTER(g_chg_k, x->chg_kind_med[row_kind] * 1e3)
GETTER(g_chg_compile_min, x->chg_compile_min * 1e3)
GETTER(g_chg_k_compile_min, x->chg_kind_compile_min[row_kind] * 1e3)
GETTER(g_chg_k_compile, x->chg_kind_compile[row_kind] * 1e3)
GETTER(g_chg_k_scope, x->chg_kind_scope[row_kind])
GETTER(g_chg_k_share, x->recompile_med > 0 ? x->chg_kind_compile[row_kind] / x->recompile_med * 100 : NAN)
GETTER(g_f_edge, (double)x->n_edge_ctx)
GETTER(g_f_tls_ctx, (double)x->n_tls_ctx)
GETTER(g_f_proxy, (double)x->n_proxy)
GETTER(g_f_sticky, (double)x->n_sticky)
GETTER(g_f_hc, (double)x->n_hc_targets)
GETTER(g_f_bind, (double)x->n_bindings)
GETTER(g_chg_seen, (x->chg_med - x->chg_ret_med) * 1e6)
GETTER(g_chg_reclaim, x->chg_reclaim * 1e3)

/* Verdict at 1M: measured if 1M ran; else the change latency is extrapolated
 * linearly from the largest size run (labelled so), the others judged there. */
static const char *
verdict(const struct res *xs, unsigned n, double (*get)(const struct res *), double limit,
	bool scales, const char *unit, char *buf, size_t len)
{
	int i, big = -1;
	double v;

	for (i = 0; i < (int)n; i++)
		if (xs[i].ran && (big < 0 || xs[i].routes > xs[big].routes))
			big = i;
	if (big < 0)
		return "-";
	v = get(&xs[big]);
	if (xs[big].routes >= 1000000) {
		snprintf(buf, len, "%s at 1M", v <= limit ? "PASS" : "FAIL");
		return buf;
	}
	if (!scales) {
		/* lookups, memory per route and changes are not extrapolated */
		snprintf(buf, len, "%s at %zu (1M not run)", v <= limit ? "PASS" : "FAIL",
			 xs[big].routes);
		return buf;
	}
	v *= 1e6 / (double)xs[big].routes;
	snprintf(buf, len, "%s at 1M, EXTRAPOLATED (linear from %zu): %.0f %s",
		 v <= limit ? "PASS" : "FAIL", xs[big].routes, v, unit);
	return buf;
}

static void
print_table(const struct res *xs, unsigned n)
{
	unsigned i;
	char buf[160], sn[32];
	int k;

	printf("\nroutes_bench: TSC %.0f MHz; kinds:", B.hz / 1e6);
	for (k = 0; k < K_N; k++)
		printf(" %s %s%s%s;", kind_label[k], B.kind_on[k] ? "on" : "OFF",
		       B.kind_on[k] ? "" : " - ", B.kind_on[k] ? "" : B.kind_why[k]);
	printf("\nfeatures:");
	for (i = 0; i < n; i++)
		printf(" %s%s %s", i ? "; " : "", column_name(&xs[i], sn, sizeof(sn)),
		       feat_list(xs[i].feat, ", ", buf, sizeof(buf)));
	printf(" (e edge-certs, h health-checks, s sticky, f fleet)");
	printf("\nmalloc heap on huge pages (glibc.malloc.hugetlb=1, as routerd): %s",
	       B.malloc_thp ? "yes" : "no (SY_MALLOC_THP=0, THP never, or ASan)");
	printf("\nstate dir (journal) %s; disk probe %s\n\n", B.state_dir, B.disk_dir);
	printf(ROWF, "metric \\ routes loaded");
	for (i = 0; i < n; i++)
		printf(" | %*s", COLW, column_name(&xs[i], sn, sizeof(sn)));
	printf(" | %-14s | %s\n", "target", "verdict");
	for (k = 0; k < K_N; k++) {
		char label[64];

		if (!B.kind_on[k])
			continue;
		snprintf(label, sizeof(label), "    routes: %s (%s)", kind_plural[k], kind_short[k]);
		printf(ROWF, label);
		for (i = 0; i < n; i++)
			printf(" | %*zu", COLW, xs[i].by_kind[k]);
		printf(" |\n");
	}
	row("(a) apply all objects in batches, total [s]", xs, n, g_apply_total, "%.2f", "", "");
	row("      number of applies", xs, n, g_applies, "%.0f", "", "");
	row("      objects per apply", xs, n, g_batch, "%.0f", "", "");
	row("      per object [us]", xs, n, g_apply_per_obj, "%.1f", "<= 50 us",
	    verdict(xs, n, g_apply_per_obj, 50, false, "us", buf, sizeof(buf)));
	row("      last apply (one batch, N loaded) [ms]", xs, n, g_apply_last, "%.1f", "", "");
	row("      reclaim (free old gens), total [s]", xs, n, g_reclaim_total, "%.2f", "", "");
	row("      journal of one batch, tmpfs [ms]", xs, n, g_jb_tmpfs, "%.2f", "", "");
	row("      journal of one batch, disk fsync [ms]", xs, n, g_jb_disk, "%.2f", "", "");
	row("(a) restart: journal replay + compile [s]", xs, n, g_restart, "%.2f", "", "");
	row("(a) full compile, sy_compile alone [ms]", xs, n, g_compile, "%.1f", "", "");
	row("      per route [us]", xs, n, g_compile_per_route, "%.2f", "<= 30 us",
	    verdict(xs, n, g_compile_per_route, 30, false, "us", buf, sizeof(buf)));
	row("      unpacking stored objects [ms]", xs, n, g_parse, "%.1f", "", "");
	row("      stage 1: OpenShift Routes [ms]", xs, n, g_s1_os, "%.1f", "", "");
	for (k = K_IR; k < K_N; k++) {
		char label[64];

		if (!B.kind_on[k])
			continue;
		row_kind = (enum rkind)k;
		snprintf(label, sizeof(label), "      stage 1: %s [ms]", kind_plural[k]);
		row(label, xs, n, g_s1_k, "%.1f", "", "");
	}
	row("      stage 2: claims, vhosts, pools [ms]", xs, n, g_s2, "%.1f", "", "");
	row("      publish (pointer swap) [us]", xs, n, g_publish, "%.2f", "", "");
	row("      free the old generation [ms]", xs, n, g_free_old, "%.1f", "", "");
	row("(a) full recompile, routerd's path [ms]", xs, n, g_recompile, "%.1f", "", "");
	row("(b) memory per route: store + gen [B]", xs, n, g_mem_total, "%.0f", "<= 1024 B",
	    verdict(xs, n, g_mem_total, 1024, false, "B", buf, sizeof(buf)));
	row("      generation (g->bytes / routes) [B]", xs, n, g_mem_gen, "%.0f", "", "");
	row("      store (heap delta - gen) [B]", xs, n, g_mem_store, "%.0f", "", "");
	row("      RSS delta / routes [B]", xs, n, g_mem_rss, "%.0f", "", "");
	row("      heap delta, total [MiB]", xs, n, g_mem_heap_mb, "%.1f", "", "");
	row("(c) lookup, known host + path [ns]", xs, n, g_lk_hit, "%.1f", "<= 200 ns",
	    verdict(xs, n, g_lk_hit, 200, false, "ns", buf, sizeof(buf)));
	row("      floor here: chunk, then block, serial [ns]", xs, n, g_lk_floor, "%.1f", "", "");
	row("      floor here: the block alone, serial [ns]", xs, n, g_lk_floor1, "%.1f", "", "");
	row("      unknown host [ns]", xs, n, g_lk_hm, "%.1f", "", "");
	row("      known host, no rule for the path [ns]", xs, n, g_lk_pm, "%.1f", "", "");
	/* Not extrapolated: an incremental change costs what it touches, not N. */
	row("(d) one change live: apply -> reader [ms]", xs, n, g_chg_med, "%.2f", "< 1 ms",
	    verdict(xs, n, g_chg_med, 1, false, "ms", buf, sizeof(buf)));
	row("      min / max [ms]", xs, n, g_chg_min, "%.2f", "", "");
	row("", xs, n, g_chg_max, "%.2f", "", "");
	row("      sy_ops_handle returned [ms]", xs, n, g_chg_ret, "%.2f", "", "");
	row("      = journal append + fsync, tmpfs [ms]", xs, n, g_chg_jt, "%.3f", "", "");
	row("      + compile + publish, incremental [ms]", xs, n, g_chg_compile, "%.3f", "", "");
	row("        least of the changes [ms]", xs, n, g_chg_compile_min, "%.3f", "", "");
	row("        objects compiled (the scope)", xs, n, g_chg_scope, "%.0f", "", "");
	row("        share of a full recompile [%]", xs, n, g_chg_share, "%.3f", "<= 0.5 % (guard)",
	    verdict(xs, n, g_chg_share, GUARD_CHANGE_SHARE, false, "%", buf, sizeof(buf)));
	row("      + the rest (validate, store, reply) [ms]", xs, n, g_chg_rest, "%.2f", "", "");
	row("      reader saw it, after the return [us]", xs, n, g_chg_seen, "%.1f", "", "");
	row("      journal fsync on disk instead [ms]", xs, n, g_chg_jd, "%.3f", "", "");
	for (k = K_IR; k < K_N; k++) {
		char label[64];

		if (!B.kind_on[k])
			continue;
		row_kind = (enum rkind)k;
		snprintf(label, sizeof(label), "    one %s changed [ms]", kind_label[k]);
		row(label, xs, n, g_chg_k, "%.2f", "< 1 ms",
		    verdict(xs, n, g_chg_k, 1, false, "ms", buf, sizeof(buf)));
		row("      compile + publish [ms]", xs, n, g_chg_k_compile, "%.3f", "", "");
		row("        least of the changes [ms]", xs, n, g_chg_k_compile_min, "%.3f", "", "");
		row("      objects compiled (the scope)", xs, n, g_chg_k_scope, "%.0f", "", "");
		row("      share of a full recompile [%]", xs, n, g_chg_k_share, "%.3f",
		    "<= 0.5 % (guard)",
		    verdict(xs, n, g_chg_k_share, GUARD_CHANGE_SHARE, false, "%", buf, sizeof(buf)));
	}
	row("      after: old generation freed [ms]", xs, n, g_chg_reclaim, "%.1f", "", "");
	row("features, as loaded: edge vhosts + TLS ctx", xs, n, g_f_edge, "%.0f", "", "");
	row("      TLS contexts cached", xs, n, g_f_tls_ctx, "%.0f", "", "");
	row("      proxied vhosts", xs, n, g_f_proxy, "%.0f", "", "");
	row("      rules with a sticky cookie", xs, n, g_f_sticky, "%.0f", "", "");
	row("      health targets (r->health.n)", xs, n, g_f_hc, "%.0f", "", "");
	row("      RouteBindings (fleet mode)", xs, n, g_f_bind, "%.0f", "", "");
	for (i = 0; i < n; i++)
		if (xs[i].ran && xs[i].via_journal)
			printf("\n%zu routes: loaded from a journal of %zu objects (sy_router_load: "
			       "replay + first compile), then the last %zu objects applied; \"n/a\": "
			       "not applied in batches (--apply-max)", xs[i].routes,
			       xs[i].objects - xs[i].tail, xs[i].tail);
	printf("\nlookups: %zu per set, best of 3 passes after a warm one; (d): median over the "
	       "changes.\n",
	       B.queries);
	for (i = 0; i < n; i++)
		if (xs[i].ran)
			printf("%zu routes: %zu objects in applies of %zu; %zu vhosts, %zu rules (pools shared by rules with the same backends), "
			       "generation %.1f MiB; %u changes timed\n",
			       xs[i].routes, xs[i].objects, xs[i].batch, xs[i].n_vhosts,
			       xs[i].n_rules, (double)xs[i].gen_bytes / 1048576.0, xs[i].chg_n);
}

/* One of the guard's share checks: true when it holds. */
static bool
guard_share(const struct res *x, const char *what, double chg_s)
{
	char cn[32];
	double share = x->recompile_med > 0 ? chg_s / x->recompile_med * 100 : NAN;
	bool ok = !isnan(share) && share <= GUARD_CHANGE_SHARE;

	printf("guard, %s: %s: compile + plans + publish %.3f ms = %.3f %% of a full recompile "
	       "(%.1f ms; bound %.1f %%): %s\n",
	       column_name(x, cn, sizeof(cn)), what, chg_s * 1e3, share, x->recompile_med * 1e3,
	       GUARD_CHANGE_SHARE, ok ? "PASS" : "FAIL");
	return ok;
}

/* The least compile + publish of one change of kind k in column x (s). */
static double
chg_least(const struct res *x, enum rkind k)
{
	return k == K_OPENSHIFT ? x->chg_compile_min : x->chg_kind_compile_min[k];
}

/*
 * The guard's checks, per feature set (plain, and with the features): at
 * its largest size, each kind's one change against a full recompile (an
 * IngressRoute's is the one that plans health checks and Contour's cookie;
 * an OpenShift Route's its TLS context, its cookie and its binding) and the
 * generation's bytes per route; from its smallest size to its largest, how
 * much each kind's change grew. 0, or 3 when one fails.
 */
static int
guard_verdict(const struct res *xs, unsigned n)
{
	bool ok = true, any = false;
	unsigned i, j;
	int k;

	printf("\n");
	for (i = 0; i < n; i++) {
		const struct res *x = &xs[i], *small = NULL;
		unsigned bound = x->feat ? GUARD_GEN_BYTES_FEATURES : GUARD_GEN_BYTES;
		double per_route = g_mem_gen(x);
		char cn[32], sn[32];
		bool largest = x->ran;

		for (j = 0; j < n; j++)
			if (xs[j].ran && xs[j].feat == x->feat) {
				if (xs[j].routes > x->routes)
					largest = false;
				if (small == NULL || xs[j].routes < small->routes)
					small = &xs[j];
			}
		if (!largest)
			continue;
		any = true;
		ok = guard_share(x, "one OpenShift Route changed", x->chg_compile) && ok;
		for (k = K_IR; k < K_N; k++)
			if (B.kind_on[k] && x->chg_kind_compile[k] >= 0) {
				char what[64];

				snprintf(what, sizeof(what), "one %s changed", kind_label[k]);
				ok = guard_share(x, what, x->chg_kind_compile[k]) && ok;
			}
		printf("guard, %s: generation %.0f B per route (bound %u B): %s\n",
		       column_name(x, cn, sizeof(cn)), per_route, bound,
		       per_route <= bound ? "PASS" : "FAIL");
		ok = per_route <= bound && ok;
		if (small == x)
			continue;
		for (k = 0; k < K_N; k++) {
			double a = chg_least(small, (enum rkind)k), b = chg_least(x, (enum rkind)k);
			double growth = a > 0 ? b / a : NAN;
			bool good = !isnan(growth) && growth <= GUARD_CHANGE_GROWTH;

			if (!B.kind_on[k])
				continue;
			printf("guard, %s -> %s: one %s changed, least of its changes %.3f -> %.3f ms: "
			       "x %.2f (bound x %.1f): %s\n",
			       column_name(small, sn, sizeof(sn)), column_name(x, cn, sizeof(cn)),
			       kind_label[k], a * 1e3, b * 1e3, growth, GUARD_CHANGE_GROWTH,
			       good ? "PASS" : "FAIL");
			ok = good && ok;
		}
	}
	if (!any)
		printf("guard: no size ran\n");
	return any && ok ? 0 : 3;
}

/* --------------------------------------------------------------- main -- */

static void
usage(FILE *f)
{
	fprintf(f,
		"usage: routes_bench [--quick] [--huge-sizes] [--sizes 10000,100000]\n"
		"                    [--batch N] [--apply-max N] [--queries N] [--changes N]\n"
		"                    [--openshift-only] [--guard] [--lookups-only]\n"
		"                    [--edge-certs] [--health-checks] [--sticky] [--fleet] [--features]\n"
		"                    [--state-dir DIR] [--disk-dir DIR] [--core N] [--reader-core N]\n"
		"  --quick           sizes 1000,10000, fewer lookups and changes (seconds)\n"
		"  --huge-sizes      add 1,000,000 routes (minutes; several GB of memory)\n"
		"  --sizes LIST      route counts (default 10000,100000)\n"
		"  --batch N         objects per apply (default: objects/100, at least 1000)\n"
		"  --apply-max N     larger sizes: all but the last batch loaded from a journal\n"
		"                    (sy_router_load), the last batch applied (default 200000)\n"
		"  --queries N       lookups per set (default 1048576)\n"
		"  --changes N       one-route changes timed for (d) (default 15, at most %d)\n"
		"  --openshift-only  OpenShift Routes only, even if other kinds are built in\n"
		"  --lookups-only    load the routes and time (c) alone: no timed compiles,\n"
		"                    no changes (for work on the lookup at 1M routes)\n"
		"  --guard           CI's check (%d and %d routes unless --sizes), each once\n"
		"                    plain and once with --features (or the features given):\n"
		"                    exit 3 when one change of any kind costs over %.1f %% of\n"
		"                    a full recompile, or grows over %.1f times from the\n"
		"                    smaller size, or the generation passes %d B per route\n"
		"                    (%d with features)\n"
		"  --edge-certs      OpenShift Routes: edge TLS with an inline certificate and key\n"
		"                    (ECDSA P-256, one per namespace, *.nsN.apps.bench.test)\n"
		"  --health-checks   IngressRoutes: a healthCheck on their service (every\n"
		"                    endpoint a health target)\n"
		"  --sticky          OpenShift Routes: router.openshift.io/cookie_name;\n"
		"                    IngressRoutes: strategy Cookie; (d) changes a path Route\n"
		"  --fleet           fleet mode: router_name bench, a Router bench and a\n"
		"                    RouteBinding per OpenShift Route\n"
		"  --features        all four\n"
		"  --state-dir DIR   journal directory; should be tmpfs (default /dev/shm/...)\n"
		"  --disk-dir DIR    where the disk fsync probe writes (default /var/tmp/...)\n"
		"  --core N          control thread core (default 1); --reader-core (default 0)\n",
		MAX_REPS, GUARD_ROUTES_SMALL, GUARD_ROUTES, GUARD_CHANGE_SHARE,
		GUARD_CHANGE_GROWTH, GUARD_GEN_BYTES, GUARD_GEN_BYTES_FEATURES);
}

static void
cleanup(void)
{
	char d[300];

	snprintf(d, sizeof(d), "%s/jprobe", B.disk_dir);
	rm_state(d);
	rmdir(B.disk_dir);
	if (B.own_state_dir)
		rmdir(B.state_dir);
}

int
main(int argc, char **argv)
{
	static const struct option lo[] = {
		{ "quick", no_argument, NULL, 'q' },	 { "huge-sizes", no_argument, NULL, 'H' },
		{ "sizes", required_argument, NULL, 's' }, { "batch", required_argument, NULL, 'b' },
		{ "queries", required_argument, NULL, 'Q' }, { "changes", required_argument, NULL, 'c' },
		{ "openshift-only", no_argument, NULL, 'o' }, { "lookups-only", no_argument, NULL, 'L' },
		{ "state-dir", required_argument, NULL, 'S' },
		{ "disk-dir", required_argument, NULL, 'D' }, { "core", required_argument, NULL, 'C' },
		{ "reader-core", required_argument, NULL, 'R' }, { "help", no_argument, NULL, 'h' },
		{ "apply-max", required_argument, NULL, 'A' },
		{ "guard", no_argument, NULL, 'G' },
		{ "edge-certs", no_argument, NULL, 0x100 + F_EDGE },
		{ "health-checks", no_argument, NULL, 0x100 + F_HC },
		{ "sticky", no_argument, NULL, 0x100 + F_STICKY },
		{ "fleet", no_argument, NULL, 0x100 + F_FLEET },
		{ "features", no_argument, NULL, 0x100 + F_ALL },
		{ NULL, 0, NULL, 0 },
	};
	struct res xs[2 * MAX_SIZES];
	unsigned n_runs = 0;
	bool huge = false, sizes_set = false, q_set = false, c_set = false;
	char prefix[64], lcores[32];
	char *eal[16];
	int opt, ne = 0;
	unsigned i;
	time_t t = time(NULL);
	char date[64];

	/* As routerd runs (control/malloc_thp.h); SY_MALLOC_THP=0 to compare. */
	B.malloc_thp = sy_malloc_thp_reexec(argv);
	B.core = 1;
	B.reader_core = 0;
	B.queries = 1u << 20;
	B.apply_max = 2000000;
	B.changes = 15;
	snprintf(B.state_dir, sizeof(B.state_dir), "/dev/shm/sy-routes-bench-%ld", (long)getpid());
	snprintf(B.disk_dir, sizeof(B.disk_dir), "/var/tmp/sy-routes-bench-%ld", (long)getpid());
	B.own_state_dir = true;
	while ((opt = getopt_long(argc, argv, "h", lo, NULL)) != -1) {
		switch (opt) {
		case 'q':
			B.quick = true;
			break;
		case 'H':
			huge = true;
			break;
		case 's': {
			char *p = optarg, *end;

			sizes_set = true;
			B.n_sizes = 0;
			while (*p && B.n_sizes < MAX_SIZES) {
				unsigned long long v = strtoull(p, &end, 10);

				if (end == p || v < 100) {
					usage(stderr);
					return 2;
				}
				B.sizes[B.n_sizes++] = (size_t)v;
				p = *end == ',' ? end + 1 : end;
			}
			break;
		}
		case 'b':
			B.batch = strtoul(optarg, NULL, 10);
			break;
		case 'A':
			B.apply_max = strtoul(optarg, NULL, 10);
			break;
		case 'Q':
			B.queries = strtoul(optarg, NULL, 10);
			q_set = true;
			break;
		case 'c':
			B.changes = (unsigned)strtoul(optarg, NULL, 10);
			c_set = true;
			B.changes_set = true;
			break;
		case 'o':
			B.openshift_only = true;
			break;
		case 'G':
			B.guard = true;
			break;
		case 'L':
			B.lookups_only = true;
			break;
		case 'S':
			snprintf(B.state_dir, sizeof(B.state_dir), "%s", optarg);
			B.own_state_dir = false;
			break;
		case 'D':
			snprintf(B.disk_dir, sizeof(B.disk_dir), "%s", optarg);
			break;
		case 'C':
			B.core = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'R':
			B.reader_core = (unsigned)strtoul(optarg, NULL, 10);
			break;
		case 'h':
			usage(stdout);
			return 0;
		case 0x100 + F_EDGE:
		case 0x100 + F_HC:
		case 0x100 + F_STICKY:
		case 0x100 + F_FLEET:
		case 0x100 + F_ALL:
			B.feat_opt |= (unsigned)opt - 0x100;
			break;
		default:
			usage(stderr);
			return 2;
		}
	}
	if (B.changes == 0 || B.changes > MAX_REPS || B.queries == 0) {
		usage(stderr);
		return 2;
	}
	if (!sizes_set && B.guard) {
		B.sizes[0] = GUARD_ROUTES_SMALL;
		B.sizes[1] = GUARD_ROUTES;
		B.n_sizes = 2;
	} else if (!sizes_set) {
		if (B.quick) {
			B.sizes[0] = 1000;
			B.sizes[1] = 10000;
		} else {
			B.sizes[0] = 10000;
			B.sizes[1] = 100000;
		}
		B.n_sizes = 2;
	}
	if (huge && B.n_sizes < MAX_SIZES)
		B.sizes[B.n_sizes++] = 1000000;
	if (B.quick && !q_set)
		B.queries = 1u << 16;
	if (B.quick && !c_set)
		B.changes = 5;
	if (B.guard && !q_set)
		B.queries = 1u << 12;

	snprintf(prefix, sizeof(prefix), "sy-routes-bench-%ld", (long)getpid());
	snprintf(lcores, sizeof(lcores), "0@%u", B.core);
	eal[ne++] = argv[0];
	eal[ne++] = "--no-huge";
	eal[ne++] = "--no-pci";
	eal[ne++] = "--no-shconf";
	eal[ne++] = "-m";
	eal[ne++] = "64";
	eal[ne++] = "--file-prefix";
	eal[ne++] = prefix;
	eal[ne++] = "--no-telemetry";
	eal[ne++] = "--log-level=*:error";
	eal[ne++] = "--lcores";
	eal[ne++] = lcores;
	eal[ne] = NULL;
	if (rte_eal_init(ne, eal) < 0) {
		fprintf(stderr, "routes_bench: EAL init failed\n");
		return 1;
	}
	B.hz = (double)rte_get_tsc_hz();
	if (mkdir(B.state_dir, 0700) < 0 && errno != EEXIST) {
		fprintf(stderr, "routes_bench: %s: %s\n", B.state_dir, strerror(errno));
		return 1;
	}
	mkdir(B.disk_dir, 0700);
	atexit(cleanup);
	B.kind_on[K_OPENSHIFT] = true;
	for (i = K_IR; i < K_N; i++) {
		if (B.openshift_only) {
			B.kind_why[i] = "--openshift-only";
			continue;
		}
		probe_kind((enum rkind)i);
		fprintf(stderr, "routes_bench: %s: %s\n", kind_label[i],
			B.kind_on[i] ? "mixed in" : B.kind_why[i]);
	}
	if (B.feat_opt & F_FLEET || B.guard)
		probe_fleet();
	/* A column per size; the guard runs each size plain and with features,
	 * so that CI sees a regression in any feature's planning too. */
	memset(xs, 0, sizeof(xs));
	for (i = 0; i < B.n_sizes; i++) {
		xs[n_runs].routes = B.sizes[i];
		xs[n_runs++].feat = B.guard ? 0 : B.feat_opt;
		if (B.guard) {
			xs[n_runs].routes = B.sizes[i];
			xs[n_runs++].feat = B.feat_opt ? B.feat_opt : F_ALL;
		}
	}
	for (i = 0; i < n_runs; i++)
		run_size(&xs[i]);
	strftime(date, sizeof(date), "%Y-%m-%d %H:%M UTC", gmtime(&t));
	{
		char fl[96];

		printf("routes_bench %s, %s, features: %s\n", date, B.quick ? "--quick" : "full",
		       feat_list(B.guard ? B.feat_opt | F_ALL : B.feat_opt, " ", fl, sizeof(fl)));
	}
	print_table(xs, n_runs);
	certs_free();
	{
		char d[300];

		snprintf(d, sizeof(d), "%s/probe", B.state_dir);
		rmdir(d);
		/* EAL leaves its (empty, with --no-shconf) runtime directory. */
		snprintf(d, sizeof(d), "%s", rte_eal_get_runtime_dir());
		rte_eal_cleanup();
		rmdir(d);
	}
	if (B.harness_errors > 0) {
		printf("\nHARNESS ERRORS: %d (see stderr); the figures are not valid\n",
		       B.harness_errors);
		return 1;
	}
	return B.guard ? guard_verdict(xs, n_runs) : 0;
}
