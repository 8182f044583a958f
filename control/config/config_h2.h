/* SPDX-License-Identifier: BSD-3-Clause */
/* The `http2` key of routerd's config (config_h2.c). */
#ifndef SY_CONFIG_H2_H
#define SY_CONFIG_H2_H

#include <stddef.h>

#include <jansson.h>

#include "sy_config.h"

/* The defaults (docs/configuration.md, "http2"): HAProxy's and nghttp2's
 * where they have one (100 streams, 4 KiB HPACK table, 64 KiB windows),
 * the reset budget of nghttp2's CVE-2023-44487 fix (33 a second). */
void sy_config_h2_defaults(struct sy_h2_config *h2);
/* Parse v into cfg->h2: 0, or -EINVAL naming the key and what it must be. */
int sy_config_parse_h2(const json_t *v, struct sy_config *cfg, char *err, size_t errlen);

#endif
