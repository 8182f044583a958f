/* SPDX-License-Identifier: BSD-3-Clause */
#include "sy_counters.h"

const char *const sy_drop_reason_names[SY_DROP__COUNT] = {
#define SY_X(sym, name) [SY_DROP_##sym] = name,
	SY_DROP_REASONS(SY_X)
#undef SY_X
};

const char *const sy_answer_reason_names[SY_ANSWER__COUNT] = {
#define SY_X(sym, name) [SY_ANSWER_##sym] = name,
	SY_ANSWER_REASONS(SY_X)
#undef SY_X
};
