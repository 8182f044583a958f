/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The "store" key of routerd's config: where objects live.
 *
 *     "store": {"etcd": {"endpoints": ["http://198.18.0.1:2379"], "prefix": "/switchyard/",
 *                        "lease_ttl_s": 5}}
 *
 * or, to an etcd that serves TLS and asks for client certificates:
 *
 *     "store": {"etcd": {"endpoints": ["https://198.18.0.1:2379"], "ca_file": "ca.pem",
 *                        "cert_file": "client.pem", "key_file": "client.key"}}
 *
 * Without it, the local journal (control/store/journal.h), the embedded default.
 */
#ifndef SY_ETCD_STORE_CONFIG_H
#define SY_ETCD_STORE_CONFIG_H

#include <stddef.h>

#include <jansson.h>

#include "sy_config.h"

void sy_store_config_defaults(struct sy_store_config *sc);
/* Parse the "store" value into sc. 0, or -EINVAL with a message in err
 * naming the key and what is wrong. The TLS files must exist and be
 * readable now: a typo is a config error at start, not a store that never
 * connects. */
int sy_store_config_parse(const json_t *val, struct sy_store_config *sc, char *err,
			  size_t errlen);

#endif
