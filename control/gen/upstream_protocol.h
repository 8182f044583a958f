/* SPDX-License-Identifier: BSD-3-Clause */
/* Which protocol a Service port speaks: Contour's upstream-protocol
 * annotations (upstream_protocol.c). */
#ifndef SY_GEN_UPSTREAM_PROTOCOL_H
#define SY_GEN_UPSTREAM_PROTOCOL_H

#include <stdint.h>

#include <jansson.h>

/* enum sy_be_proto for the port of Service svc (its object, NULL: none)
 * that a route's target port (a name, a number, or NULL) selects. */
uint8_t sy_upstream_protocol(const json_t *svc, const json_t *target);
/* Its name, as routerctl resolve says it: http/1.1, h2c, h2, tls. */
const char *sy_be_proto_name(uint8_t proto);

#endif
