/* SPDX-License-Identifier: BSD-3-Clause */
/* The `tls.client_certificates` key of routerd's config (config_client_certs.c). */
#ifndef SY_CONFIG_CLIENT_CERTS_H
#define SY_CONFIG_CLIENT_CERTS_H

#include <stddef.h>

#include <jansson.h>

#include "sy_config.h"

/*
 * Parse v into cfg->tls_client_*: the policy, the CA file (read and parsed
 * now, so a typo or a file that is not PEM stops the start rather than
 * every handshake), the subject patterns (compiled now for the same reason).
 * 0, or -EINVAL with the key and the value in err.
 */
int sy_config_parse_client_certs(const json_t *v, struct sy_config *cfg, char *err, size_t errlen);

/* The PEM certificates of path, one reference each for the caller, or NULL
 * with why (a message naming neither key nor path) in err. Used by the
 * parser above and by control/tls/tls_client_ca.c, so both agree on what a
 * good CA file is. */
struct stack_st_X509;
struct stack_st_X509 *sy_config_read_ca_file(const char *path, char *why, size_t whylen);

#endif
