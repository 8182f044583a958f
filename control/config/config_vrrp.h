/* SPDX-License-Identifier: BSD-3-Clause */
/* The `vrrp` key of routerd's config (config_vrrp.c). */
#ifndef SY_CONFIG_VRRP_H
#define SY_CONFIG_VRRP_H

#include <stddef.h>

#include <jansson.h>

#include "sy_config.h"
/* Parse v (NULL: vrrp off) into cfg->vrrp; the ports are read already.
 * 0, or -EINVAL with the key and the problem in err. */
int sy_config_parse_vrrp(const json_t *v, struct sy_config *cfg, char *err, size_t errlen);

#endif
