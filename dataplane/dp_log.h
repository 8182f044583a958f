/* SPDX-License-Identifier: BSD-3-Clause */
/* One log type for the data plane ("switchyard.dataplane"). */
#ifndef SY_DP_LOG_H
#define SY_DP_LOG_H

#include <rte_log.h>

extern int sy_dp_logtype;

#define SY_DP_LOG(level, fmt, ...)                                             \
	rte_log(RTE_LOG_##level, sy_dp_logtype, "dataplane: " fmt "\n", ##__VA_ARGS__)

/* For worker code: compiled out above RTE_LOG_DP_LEVEL, so the loop never
 * formats strings in a production build. */
#define SY_DP_LOG_DP(level, fmt, ...)                                          \
	do {                                                                   \
		if (RTE_LOG_##level <= RTE_LOG_DP_LEVEL)                       \
			SY_DP_LOG(level, fmt, ##__VA_ARGS__);                  \
	} while (0)

#endif
