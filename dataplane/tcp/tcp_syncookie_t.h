/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * SYN cookies' secrets and tuple, as types only (tcp/tcp_syncookie.h is the
 * face, and says what a cookie carries): the secrets are held by value in
 * struct sy_dp_shared (worker_t.h).
 */
#ifndef SY_TCP_SYNCOOKIE_T_H
#define SY_TCP_SYNCOOKIE_T_H

#include <stdint.h>

#include "sy_addr.h"

#define SY_COOKIE_TICK_S 64
#define SY_COOKIE_MAX_AGE 2 /* ticks: a cookie lives 2-3 minutes */

struct sy_cookie_keys {
	uint8_t key[2][16]; /* [0] current, [1] previous */
};

/* The tuple as the client sent it: src = client, dst = router. Ports in
 * network order. */
struct sy_cookie_tuple {
	struct sy_addr saddr;
	struct sy_addr daddr;
	uint16_t sport;
	uint16_t dport;
};

#endif
