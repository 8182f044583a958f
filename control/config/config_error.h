/* SPDX-License-Identifier: BSD-3-Clause */
/* The error every config parser returns (config.c, config_vrrp.c, etcd/store_config.c). */
#ifndef SY_CONFIG_ERROR_H
#define SY_CONFIG_ERROR_H

#include <stddef.h>

/* The message into err (the key first, then what is wrong); returns -EINVAL. */
int sy_config_fail(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
