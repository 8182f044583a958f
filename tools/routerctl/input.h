/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The objects of `apply -f`: a file (or stdin) of YAML documents, JSON
 * values, arrays and `kind: List` objects, flattened into one list.
 */
#ifndef RCTL_INPUT_H
#define RCTL_INPUT_H

#include <stddef.h>

#include <jansson.h>

/* Read all of path ("-" for standard input). Returns a malloc'd buffer with
 * a NUL after the *len bytes, or NULL with "path: strerror" in err. */
char *rctl_read_file(const char *path, size_t *len, char *err, size_t errlen);

/*
 * Parse buf as JSON when it starts with '{' or '[' and is valid JSON (one or
 * several concatenated values), otherwise as a YAML stream. Returns a new
 * array of objects with empty documents dropped and arrays and Lists
 * expanded, or NULL with "name:line:column: problem" in err.
 */
json_t *rctl_parse_objects(const char *name, const char *buf, size_t len, char *err,
			   size_t errlen);

#endif
