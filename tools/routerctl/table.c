/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>
#include <string.h>

#include "table.h"

struct rctl_table {
	size_t ncols;
	size_t nrows;
	size_t cap;
	char **cells; /* (nrows + 1) * ncols: row 0 is the header */
};

size_t
rctl_display_width(const char *s)
{
	size_t w = 0;

	/* Count every byte that does not continue a UTF-8 sequence. */
	for (; *s != '\0'; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			w++;
	return w;
}

static int
add(struct rctl_table *t, const char *const *cells)
{
	char **ncells;
	size_t i, base;

	if (t->nrows + 1 >= t->cap) {
		size_t ncap = t->cap ? t->cap * 2 : 16;

		ncells = realloc(t->cells, ncap * t->ncols * sizeof(*ncells));
		if (ncells == NULL)
			return -1;
		t->cells = ncells;
		t->cap = ncap;
	}
	base = t->nrows * t->ncols;
	for (i = 0; i < t->ncols; i++) {
		t->cells[base + i] = strdup(cells[i] ? cells[i] : "");
		if (t->cells[base + i] == NULL) {
			while (i-- > 0)
				free(t->cells[base + i]);
			return -1;
		}
	}
	t->nrows++;
	return 0;
}

struct rctl_table *
rctl_table_new(size_t ncols, const char *const *headers)
{
	struct rctl_table *t = calloc(1, sizeof(*t));

	if (t == NULL)
		return NULL;
	t->ncols = ncols;
	if (ncols == 0 || add(t, headers) < 0) {
		free(t);
		return NULL;
	}
	return t;
}

int
rctl_table_add_row(struct rctl_table *t, const char *const *cells)
{
	return add(t, cells);
}

size_t
rctl_table_rows(const struct rctl_table *t)
{
	return t->nrows - 1;
}

int
rctl_table_print(const struct rctl_table *t, FILE *out)
{
	size_t *width = calloc(t->ncols, sizeof(*width));
	size_t r, c, w;
	const char *cell;

	if (width == NULL)
		return -1;
	for (r = 0; r < t->nrows; r++)
		for (c = 0; c < t->ncols; c++) {
			w = rctl_display_width(t->cells[r * t->ncols + c]);
			if (w > width[c])
				width[c] = w;
		}
	for (r = 0; r < t->nrows; r++) {
		for (c = 0; c < t->ncols; c++) {
			cell = t->cells[r * t->ncols + c];
			fputs(cell, out);
			/* No padding after the last column: trailing blanks
			 * upset diffs and `cut`. */
			if (c + 1 < t->ncols)
				fprintf(out, "%*s", (int)(width[c] - rctl_display_width(cell) + 2),
					"");
		}
		fputc('\n', out);
	}
	free(width);
	return ferror(out) ? -1 : 0;
}

void
rctl_table_free(struct rctl_table *t)
{
	size_t i;

	if (t == NULL)
		return;
	for (i = 0; i < t->nrows * t->ncols; i++)
		free(t->cells[i]);
	free(t->cells);
	free(t);
}
