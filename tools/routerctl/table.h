/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Aligned columns, as kubectl prints them: upper-case header, every column as
 * wide as its widest cell, columns two spaces apart, nothing after the last.
 */
#ifndef RCTL_TABLE_H
#define RCTL_TABLE_H

#include <stddef.h>
#include <stdio.h>

struct rctl_table;

/* A table with ncols columns named by headers (copied). NULL when out of memory. */
struct rctl_table *rctl_table_new(size_t ncols, const char *const *headers);

/* Append a row of ncols cells (copied; NULL prints as empty). Returns 0 or -1. */
int rctl_table_add_row(struct rctl_table *t, const char *const *cells);

size_t rctl_table_rows(const struct rctl_table *t);

/* Print the header and the rows. Returns 0, or -1 if out could not be written. */
int rctl_table_print(const struct rctl_table *t, FILE *out);

void rctl_table_free(struct rctl_table *t);

/* Columns a UTF-8 string takes on a terminal, counting each code point as one
 * (our cells are names, addresses and numbers; no wide characters). */
size_t rctl_display_width(const char *s);

#endif
