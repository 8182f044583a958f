/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lb_bench: the cost of one pick per strategy (dataplane/lb/lb.c) at 2, 64
 * and 4,096 endpoints, and of building each strategy's tables (control/
 * lb_tables.c), Maglev's at 4,096 endpoints among them. In-process: its
 * outside twin is tests/integration/lb_strategies.sh (the spread real
 * connections get) and perf/proxy's request rates. See perf/README.md.
 *
 *   build/perf/lb_bench [--picks N]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <rte_cycles.h>

#include "lb/lb.h"
#include "gen/lb_tables.h"
#include "conn/conn_t.h"
#include "sy_generation.h"
#include "worker.h"

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static struct sy_pool *
pool_new(uint32_t n, enum sy_lb_strategy s, uint64_t *seed, double *build_ns)
{
	struct sy_pool *p = calloc(1, sizeof(*p));
	double t0;
	uint32_t i;

	p->endpoints = calloc(n, sizeof(*p->endpoints));
	p->n_endpoints = n;
	p->strategy = s;
	for (i = 0; i < n; i++) {
		*seed = *seed * 6364136223846793005ull + 1442695040888963407ull;
		p->endpoints[i].addr.family = 2;
		p->endpoints[i].addr.v4 = 0x000012c6u | (i << 16);
		p->endpoints[i].port = 8080;
		/* weights as OpenShift spreads them: 1..256 */
		p->endpoints[i].weight = 1 + (uint32_t)((*seed >> 33) % 256);
		p->total_weight += p->endpoints[i].weight;
	}
	t0 = now_ns();
	p->lb = sy_lb_tables_build(p, 2);
	*build_ns = now_ns() - t0;
	return p;
}

int
main(int argc, char **argv)
{
	static const uint32_t sizes[] = { 2, 64, 4096 };
	static const struct {
		enum sy_lb_strategy s;
		const char *name;
	} strategies[] = {
		{ SY_LB_RANDOM, "random (alias)" },
		{ SY_LB_ROUND_ROBIN, "round-robin" },
		{ SY_LB_LEAST_REQUESTS, "least-connections (P2C)" },
		{ SY_LB_SOURCE, "source (Maglev)" },
	};
	unsigned long picks = 20000000;
	struct sy_worker *w = calloc(1, sizeof(*w));
	uint64_t seed = 1;
	volatile uint64_t sink = 0;
	size_t si, ni;

	if (argc == 3 && strcmp(argv[1], "--picks") == 0)
		picks = strtoul(argv[2], NULL, 10);
	else if (argc != 1) {
		fprintf(stderr, "usage: lb_bench [--picks N]\n");
		return 2;
	}
	w->tcp.rng = 0x9e3779b97f4a7c15ull;
	/* Open connections spread as a busy worker would have them. */
	for (unsigned i = 0; i < SY_LB_LOAD_SLOTS; i++)
		w->tcp.lb_load[i] = i % 7;
	printf("| strategy | endpoints | ns per pick | cycles per pick | table build | table bytes |\n");
	printf("|---|---|---|---|---|---|\n");
	for (si = 0; si < sizeof(strategies) / sizeof(strategies[0]); si++) {
		for (ni = 0; ni < sizeof(sizes) / sizeof(sizes[0]); ni++) {
			double build_ns, t0, t1;
			struct sy_pool *p = pool_new(sizes[ni], strategies[si].s, &seed, &build_ns);
			uint64_t c0, c1;
			uint16_t first;
			size_t bytes;
			unsigned long k;

			if (p->lb == NULL) {
				fprintf(stderr, "no tables for %s at %u\n", strategies[si].name,
					sizes[ni]);
				return 1;
			}
			bytes = sy_lb_tables_bytes(p->lb);
			t0 = now_ns();
			c0 = rte_rdtsc();
			for (k = 0; k < picks; k++)
				sink += (uint64_t)sy_lb_pick(p, w, (uint32_t)(k * 2654435761u), &first, 0);
			c1 = rte_rdtsc();
			t1 = now_ns();
			printf("| %s | %u | %.1f | %.1f | %.1f us | %zu |\n", strategies[si].name,
			       sizes[ni], (t1 - t0) / (double)picks, (double)(c1 - c0) / (double)picks,
			       build_ns / 1e3, bytes);
			sy_lb_tables_free(p->lb);
			free(p->endpoints);
			free(p);
		}
	}
	printf("\n%lu picks per row (one core, no other load assumed); sink %llu\n", picks,
	       (unsigned long long)(sink & 1));
	free(w);
	return 0;
}
