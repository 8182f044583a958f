/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Choosing a backend endpoint at bind time (DESIGN.md 4.7). Weighted random:
 * with per-endpoint weights as the compiler spread them (OpenShift's
 * calculateServiceWeights), the share of connections each endpoint gets
 * converges on its weight / total.
 */
#include "lb/lb.h"
#include "splice/splice.h"
#include "sy_generation.h"

static inline uint64_t
xorshift64(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*s = x;
	return x;
}

int
sy_lb_pick(const struct sy_pool *p, uint64_t *rng, uint16_t *first, unsigned tries)
{
	uint32_t i, n = p->n_endpoints;

	if (p->total_weight == 0 || n == 0)
		return -1;
	if (tries == 0) {
		uint64_t r = xorshift64(rng) % p->total_weight;

		for (i = 0; i < n; i++) {
			if (r < p->endpoints[i].weight)
				break;
			r -= p->endpoints[i].weight;
		}
		*first = (uint16_t)(i < n ? i : n - 1);
		return *first;
	}
	/* A retry: the next endpoint with weight after the first pick, so each
	 * is tried at most once per connection. */
	{
		unsigned seen = 0;

		for (i = 1; i < n; i++) {
			const struct sy_endpoint *e = &p->endpoints[(*first + i) % n];

			if (e->weight == 0)
				continue;
			if (++seen == tries)
				return (int)((*first + i) % n);
		}
	}
	return -1;
}
