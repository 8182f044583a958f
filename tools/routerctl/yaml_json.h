/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * YAML text -> jansson values, so that everything after the parser (apply,
 * tests) sees one representation whether the user wrote YAML or JSON.
 */
#ifndef RCTL_YAML_JSON_H
#define RCTL_YAML_JSON_H

#include <stddef.h>

#include <jansson.h>

/*
 * Parse every document of a YAML stream. On success returns a new JSON array
 * with one element per document (an empty document is JSON null) and leaves
 * err untouched. On failure returns NULL and writes
 * "NAME:LINE:COLUMN: problem" (1-based line and column) into err.
 *
 * Plain scalars follow the YAML 1.2 core schema: true/false -> boolean,
 * null/~/empty -> null, decimal/0x/0o integers -> integer, floats -> real,
 * anything else (including .inf/.nan, which JSON cannot hold) -> string.
 * Quoted scalars and scalars tagged !!str or ! are always strings.
 * Aliases are rejected: they would let a short file expand exponentially.
 */
json_t *rctl_yaml_parse(const char *name, const char *buf, size_t len, char *err,
			size_t errlen);

/* The same scalar resolution on its own, for the emitter: returns the JSON
 * value a plain scalar with this text would become (new reference). */
json_t *rctl_yaml_plain_scalar(const char *text, size_t len);

#endif
