/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * vcpu_gaps: how often, and for how long, this CPU is taken away from a thread
 * that never gives it up. The thread reads the clock in a tight loop (from the
 * vDSO: no system call, no memory traffic) for a few seconds; a step between
 * two reads longer than a few microseconds is time something else ran on the
 * CPU: an interrupt, the guest's own tick or, on a VM, the host running
 * another guest or its own work on the physical core. Whatever ran there
 * also used the caches, which the thread finds colder afterwards
 * (perf/tls_floor --gap-us, perf/README.md "tls").
 *
 *   taskset -c 1 vcpu_gaps [--seconds S]
 *
 * Prints a histogram of the steps and, for those of 10 us and more, how many
 * per second and what share of the wall time they took.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double
now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

int
main(int argc, char **argv)
{
	static const struct {
		double below;
		const char *name;
	} bin[] = {
		{ 2, "< 2 us" },        { 10, "2-10 us" },        { 50, "10-50 us" },
		{ 200, "50-200 us" },   { 1000, "200 us-1 ms" },  { 1e12, ">= 1 ms" },
	};
	enum { NBIN = sizeof(bin) / sizeof(bin[0]) };
	long count[NBIN] = { 0 };
	double total[NBIN] = { 0 }, seconds = 5, start, last, t, away = 0;
	long away_n = 0;
	int i;

	for (i = 1; i < argc; i += 2) {
		if (i + 1 < argc && strcmp(argv[i], "--seconds") == 0)
			seconds = atof(argv[i + 1]);
		else {
			fprintf(stderr, "usage: vcpu_gaps [--seconds S]\n");
			return 2;
		}
	}
	if (seconds <= 0 || seconds > 600) {
		fprintf(stderr, "vcpu_gaps: --seconds: more than 0, at most 600\n");
		return 2;
	}
	start = last = now_us();
	do {
		double step;

		t = now_us();
		step = t - last;
		last = t;
		for (i = 0; step >= bin[i].below; i++)
			;
		count[i]++;
		total[i] += step;
		if (step >= 10) {
			away_n++;
			away += step;
		}
	} while (t - start < seconds * 1e6);

	printf("| step between two clock reads | steps | wall time in them |\n|---|---|---|\n");
	for (i = 0; i < NBIN; i++)
		printf("| %s | %ld | %.1f ms |\n", bin[i].name, count[i], total[i] / 1e3);
	printf("\nTaken away for 10 us or more: %.0f times a second, %.2f%% of the wall time "
	       "(%.1f s measured)\n",
	       away_n / ((t - start) / 1e6), 100 * away / (t - start), (t - start) / 1e6);
	return 0;
}
