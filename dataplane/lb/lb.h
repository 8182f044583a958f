/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Load balancing on the workers: the face of lb/. Today the splice path's
 * weighted pick at bind time; strategies, stickiness and health come with
 * the pools issue.
 */
#ifndef SY_LB_H
#define SY_LB_H

#include <stdint.h>

struct sy_pool;

/* Weighted pick of a pool endpoint: the first try by weight at random, later
 * tries walk on from it to the next endpoint with weight. -1: none left. */
int sy_lb_pick(const struct sy_pool *p, uint64_t *rng, uint16_t *first, unsigned tries);

#endif
