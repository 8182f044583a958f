/* SPDX-License-Identifier: BSD-3-Clause */
/* Sequence-number arithmetic: every comparison wraps at 2^32 (RFC 793, 1982). */
#ifndef SY_TCP_SEQ_H
#define SY_TCP_SEQ_H

#include <stdint.h>

#define SEQ_LT(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) < 0)
#define SEQ_LEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) <= 0)
#define SEQ_GT(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) > 0)
#define SEQ_GEQ(a, b) ((int32_t)((uint32_t)(a) - (uint32_t)(b)) >= 0)

#endif
