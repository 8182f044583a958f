/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kinds/label_selector.h"

#define MAX_TERMS 32
#define MAX_VALUES 16

enum op {
	OP_EQ,
	OP_NE,
	OP_IN,
	OP_NOTIN,
	OP_EXISTS,
	OP_NOT_EXISTS,
};

struct term {
	enum op op;
	char *key;
	char *values[MAX_VALUES];
	unsigned n_values;
};

struct sy_label_selector {
	struct term terms[MAX_TERMS];
	unsigned n_terms;
};

static char *
dup_trim(const char *p, size_t n)
{
	char *s;

	while (n > 0 && isspace((unsigned char)*p)) {
		p++;
		n--;
	}
	while (n > 0 && isspace((unsigned char)p[n - 1]))
		n--;
	s = malloc(n + 1);
	if (s != NULL) {
		memcpy(s, p, n);
		s[n] = '\0';
	}
	return s;
}

static bool
valid_token(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!(isalnum((unsigned char)*s) || *s == '-' || *s == '_' || *s == '.' || *s == '/'))
			return false;
	return true;
}

/* Split on commas that are not inside parentheses. */
static int
parse_term(const char *t, size_t n, struct term *out, char *err, size_t errlen)
{
	char *s = dup_trim(t, n), *p;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	if (s == NULL)
		return -ENOMEM;
	if (s[0] == '!') {
		out->op = OP_NOT_EXISTS;
		out->key = dup_trim(s + 1, strlen(s + 1));
	} else if ((p = strstr(s, "!=")) != NULL) {
		out->op = OP_NE;
		out->key = dup_trim(s, (size_t)(p - s));
		out->values[out->n_values++] = dup_trim(p + 2, strlen(p + 2));
	} else if ((p = strstr(s, "==")) != NULL || (p = strchr(s, '=')) != NULL) {
		size_t skip = p[1] == '=' ? 2 : 1;

		out->op = OP_EQ;
		out->key = dup_trim(s, (size_t)(p - s));
		out->values[out->n_values++] = dup_trim(p + skip, strlen(p + skip));
	} else if ((p = strstr(s, " notin ")) != NULL || (p = strstr(s, " in ")) != NULL) {
		bool notin = strncmp(p, " notin ", 7) == 0;
		char *open = strchr(p, '('), *close = strrchr(p, ')'), *v;

		out->op = notin ? OP_NOTIN : OP_IN;
		out->key = dup_trim(s, (size_t)(p - s));
		if (open == NULL || close == NULL || close < open || close[1] != '\0') {
			snprintf(err, errlen, "\"%s\": a set needs its values in parentheses", s);
			rc = -EINVAL;
			goto out;
		}
		for (v = open + 1; v < close && out->n_values < MAX_VALUES;) {
			char *c = memchr(v, ',', (size_t)(close - v));
			char *end = c ? c : close;

			out->values[out->n_values++] = dup_trim(v, (size_t)(end - v));
			v = end + 1;
		}
	} else {
		out->op = OP_EXISTS;
		out->key = dup_trim(s, strlen(s));
	}
	if (out->key == NULL || !valid_token(out->key)) {
		snprintf(err, errlen, "\"%s\": not a label key", s);
		rc = -EINVAL;
	}
	for (unsigned i = 0; rc == 0 && i < out->n_values; i++)
		if (out->values[i] == NULL || (out->values[i][0] != '\0' && !valid_token(out->values[i]))) {
			snprintf(err, errlen, "\"%s\": not a label value", s);
			rc = -EINVAL;
		}
out:
	free(s);
	return rc;
}

int
sy_label_selector_parse(const char *text, struct sy_label_selector **out, char *err, size_t errlen)
{
	struct sy_label_selector *s = calloc(1, sizeof(*s));
	const char *p = text ? text : "";
	int depth = 0, rc = 0;
	const char *start = p;

	*out = NULL;
	if (s == NULL)
		return -ENOMEM;
	for (;; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')')
			depth--;
		if ((*p == ',' && depth == 0) || *p == '\0') {
			size_t n = (size_t)(p - start);
			const char *q = start;

			while (n > 0 && isspace((unsigned char)*q)) {
				q++;
				n--;
			}
			if (n > 0) {
				if (s->n_terms == MAX_TERMS) {
					snprintf(err, errlen, "more than %d terms", MAX_TERMS);
					rc = -EINVAL;
					break;
				}
				rc = parse_term(q, n, &s->terms[s->n_terms++], err, errlen);
				if (rc < 0)
					break;
			} else if (*p == ',') {
				snprintf(err, errlen, "an empty term before a comma");
				rc = -EINVAL;
				break;
			}
			if (*p == '\0')
				break;
			start = p + 1;
		}
	}
	if (rc < 0) {
		sy_label_selector_free(s);
		return rc;
	}
	*out = s;
	return 0;
}

bool
sy_label_selector_matches(const struct sy_label_selector *s, const json_t *labels)
{
	unsigned i, j;

	if (s == NULL)
		return true;
	for (i = 0; i < s->n_terms; i++) {
		const struct term *t = &s->terms[i];
		const char *v = json_string_value(json_object_get(labels, t->key));
		bool in = false;

		for (j = 0; v != NULL && j < t->n_values; j++)
			if (strcmp(v, t->values[j]) == 0)
				in = true;
		switch (t->op) {
		case OP_EQ:
		case OP_IN:
			if (!in)
				return false;
			break;
		case OP_NE:
		case OP_NOTIN:
			/* Kubernetes: a missing label satisfies != and notin. */
			if (in)
				return false;
			break;
		case OP_EXISTS:
			if (v == NULL)
				return false;
			break;
		case OP_NOT_EXISTS:
			if (v != NULL)
				return false;
			break;
		}
	}
	return true;
}

void
sy_label_selector_free(struct sy_label_selector *s)
{
	unsigned i, j;

	if (s == NULL)
		return;
	for (i = 0; i < s->n_terms; i++) {
		free(s->terms[i].key);
		for (j = 0; j < s->terms[i].n_values; j++)
			free(s->terms[i].values[j]);
	}
	free(s);
}
