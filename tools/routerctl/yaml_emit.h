/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * jansson values -> YAML text (`-o yaml`), written so that rctl_yaml_parse
 * reads back exactly the same value.
 */
#ifndef RCTL_YAML_EMIT_H
#define RCTL_YAML_EMIT_H

#include <stdio.h>

#include <jansson.h>

/* Write v as one YAML document (no "---" marker) to out. Returns 0, or -1 with
 * a message in err. */
int rctl_yaml_emit(FILE *out, const json_t *v, char *err, size_t errlen);

#endif
