/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "yaml_json.h"

/* Lists inside lists are legal (kubectl flattens them); the bound only stops
 * unbounded recursion on a hostile file. */
#define RCTL_LIST_MAX_DEPTH 16

char *
rctl_read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	int is_stdin = strcmp(path, "-") == 0;
	FILE *f = is_stdin ? stdin : fopen(path, "r");
	size_t cap = 0, n = 0, got;
	char *buf = NULL, *nbuf;

	if (f == NULL) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		if (cap - n < 4096 + 1) {
			cap = cap ? cap * 2 : 65536;
			nbuf = realloc(buf, cap);
			if (nbuf == NULL) {
				snprintf(err, errlen, "%s: out of memory", path);
				goto fail;
			}
			buf = nbuf;
		}
		got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (ferror(f)) {
		snprintf(err, errlen, "%s: %s", is_stdin ? "<stdin>" : path, strerror(errno));
		goto fail;
	}
	buf[n] = '\0';
	*len = n;
	if (!is_stdin)
		fclose(f);
	return buf;
fail:
	free(buf);
	if (!is_stdin)
		fclose(f);
	return NULL;
}

static const char *
type_name(const json_t *v)
{
	switch (json_typeof(v)) {
	case JSON_OBJECT:
		return "an object";
	case JSON_ARRAY:
		return "an array";
	case JSON_STRING:
		return "a string";
	case JSON_INTEGER:
	case JSON_REAL:
		return "a number";
	case JSON_TRUE:
	case JSON_FALSE:
		return "a boolean";
	case JSON_NULL:
		return "null";
	}
	return "unknown";
}

static int
flatten(const char *name, size_t docno, json_t *v, json_t *out, unsigned depth,
	char *err, size_t errlen)
{
	json_t *items, *item;
	size_t i;

	if (depth > RCTL_LIST_MAX_DEPTH) {
		snprintf(err, errlen, "%s: document %zu: lists nested too deep", name, docno);
		return -1;
	}
	if (json_is_null(v))
		return 0; /* an empty document, e.g. after a trailing "---" */
	if (json_is_array(v)) {
		json_array_foreach(v, i, item) {
			if (flatten(name, docno, item, out, depth + 1, err, errlen) < 0)
				return -1;
		}
		return 0;
	}
	if (!json_is_object(v)) {
		snprintf(err, errlen, "%s: document %zu is %s, not an object", name, docno,
			 type_name(v));
		return -1;
	}
	items = json_object_get(v, "items");
	if (json_is_string(json_object_get(v, "kind")) &&
	    strcmp(json_string_value(json_object_get(v, "kind")), "List") == 0) {
		if (!json_is_array(items) && !json_is_null(items) && items != NULL) {
			snprintf(err, errlen, "%s: document %zu: a List's items must be an array",
				 name, docno);
			return -1;
		}
		return items ? flatten(name, docno, items, out, depth + 1, err, errlen) : 0;
	}
	if (json_array_append(out, v) < 0) {
		snprintf(err, errlen, "%s: out of memory", name);
		return -1;
	}
	return 0;
}

/* A JSON stream: values one after another, as `kubectl apply -f` takes.
 * Parsing starts at off; error positions are reported over the whole buf. */
static json_t *
parse_json_stream(const char *name, const char *buf, size_t len, size_t off, char *err,
		  size_t errlen)
{
	json_t *docs = json_array(), *v;
	json_error_t jerr;
	int line, col;
	size_t i;

	while (docs != NULL) {
		while (off < len && strchr(" \t\r\n", buf[off]) != NULL)
			off++;
		if (off == len)
			return docs;
		v = json_loadb(buf + off, len - off,
			       JSON_DISABLE_EOF_CHECK | JSON_REJECT_DUPLICATES | JSON_DECODE_ANY,
			       &jerr);
		if (v == NULL) {
			/* jansson counts from the start of this value. */
			line = 1;
			col = 0;
			for (i = 0; i < off; i++) {
				col = buf[i] == '\n' ? 0 : col + 1;
				line += buf[i] == '\n';
			}
			snprintf(err, errlen, "%s:%d:%d: %s", name, line + jerr.line - 1,
				 jerr.line == 1 ? col + jerr.column : jerr.column, jerr.text);
			json_decref(docs);
			return NULL;
		}
		off += jerr.position;
		if (json_array_append_new(docs, v) < 0)
			break;
	}
	json_decref(docs);
	snprintf(err, errlen, "%s: out of memory", name);
	return NULL;
}

json_t *
rctl_parse_objects(const char *name, const char *buf, size_t len, char *err, size_t errlen)
{
	char yerr[512];
	json_t *docs = NULL, *out, *doc;
	size_t i = 0;

	/* A UTF-8 byte order mark is legal in YAML but not in JSON. */
	if (len >= 3 && memcmp(buf, "\xef\xbb\xbf", 3) == 0)
		i = 3;
	while (i < len && strchr(" \t\r\n", buf[i]) != NULL)
		i++;
	if (i < len && (buf[i] == '{' || buf[i] == '[')) {
		/* JSON is (nearly) YAML flow syntax, so a file that fails as
		 * JSON may still be YAML such as `{kind: Route}`; when both
		 * fail, the JSON message is the one that explains the mistake. */
		docs = parse_json_stream(name, buf, len, i, err, errlen);
		if (docs == NULL) {
			docs = rctl_yaml_parse(name, buf, len, yerr, sizeof(yerr));
			if (docs == NULL)
				return NULL;
			err[0] = '\0';
		}
	} else {
		docs = rctl_yaml_parse(name, buf, len, err, errlen);
		if (docs == NULL)
			return NULL;
	}
	out = json_array();
	if (out == NULL) {
		snprintf(err, errlen, "%s: out of memory", name);
		json_decref(docs);
		return NULL;
	}
	json_array_foreach(docs, i, doc) {
		if (flatten(name, i + 1, doc, out, 0, err, errlen) < 0) {
			json_decref(out);
			out = NULL;
			break;
		}
	}
	json_decref(docs);
	return out;
}
