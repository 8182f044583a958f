/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * "http2": {"enabled": true, "max_concurrent_streams": 100, ...}: HTTP/2
 * towards clients and its limits (docs/configuration.md, "http2"). Each
 * limit has a floor and a ceiling: a zero stream limit or a 1-byte header
 * list would make every connection fail in ways that look like bugs.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "config/config_h2.h"

void
sy_config_h2_defaults(struct sy_h2_config *h2)
{
	h2->enabled = true;
	h2->max_concurrent_streams = 100;
	h2->max_header_list_size = 65536;
	h2->header_table_size = 4096;
	h2->initial_window_size = 65535;
	h2->max_frame_size = 16384;
	h2->reset_burst = 100;
	h2->reset_per_second = 33;
	h2->flood_burst = 1000;
	h2->flood_per_second = 100;
	h2->idle_timeout_ms = 300000;
}

struct h2_key {
	const char *name;
	size_t off;
	uint32_t min, max;
};

#define K(f, lo, hi) { #f, offsetof(struct sy_h2_config, f), lo, hi }
static const struct h2_key h2_keys[] = {
	K(max_concurrent_streams, 1, 1000),
	K(max_header_list_size, 1024, 1048576),
	K(header_table_size, 0, 65536),
	/* RFC 9113 6.5.2: at most 2^31-1; past 16 MiB a stream's buffer is
	 * not bounded by anything sensible. */
	K(initial_window_size, 1024, 16777216),
	K(max_frame_size, 16384, 16777215),
	K(reset_burst, 1, 100000),
	K(reset_per_second, 1, 100000),
	K(flood_burst, 10, 1000000),
	K(flood_per_second, 1, 1000000),
	K(idle_timeout_ms, 1000, 3600000),
};
#undef K

int
sy_config_parse_h2(const json_t *v, struct sy_config *cfg, char *err, size_t errlen)
{
	const char *key;
	json_t *val;
	size_t i;

	if (!json_is_object(v)) {
		snprintf(err, errlen, "http2: must be an object");
		return -EINVAL;
	}
	json_object_foreach((json_t *)v, key, val) {
		if (strcmp(key, "enabled") == 0) {
			if (!json_is_boolean(val)) {
				snprintf(err, errlen, "http2.enabled: must be true or false");
				return -EINVAL;
			}
			cfg->h2.enabled = json_is_true(val);
			continue;
		}
		for (i = 0; i < sizeof(h2_keys) / sizeof(h2_keys[0]); i++)
			if (strcmp(key, h2_keys[i].name) == 0)
				break;
		if (i == sizeof(h2_keys) / sizeof(h2_keys[0])) {
			snprintf(err, errlen,
				 "http2.%s: unknown key (known: enabled, max_concurrent_streams, "
				 "max_header_list_size, header_table_size, initial_window_size, "
				 "max_frame_size, reset_burst, reset_per_second, flood_burst, "
				 "flood_per_second, idle_timeout_ms)",
				 key);
			return -EINVAL;
		}
		if (!json_is_integer(val) || json_integer_value(val) < h2_keys[i].min ||
		    json_integer_value(val) > h2_keys[i].max) {
			snprintf(err, errlen, "http2.%s: must be an integer from %u to %u", key,
				 h2_keys[i].min, h2_keys[i].max);
			return -EINVAL;
		}
		*(uint32_t *)((char *)&cfg->h2 + h2_keys[i].off) = (uint32_t)json_integer_value(val);
	}
	return 0;
}
