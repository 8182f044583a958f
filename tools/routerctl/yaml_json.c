/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libyaml's event parser driven by recursive descent: one function per node,
 * which consumes exactly the events of that node. The tree is built straight
 * into jansson values; there is no intermediate YAML document.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "yaml_json.h"

/* Real objects nest a dozen levels; the limit only stops a hostile file from
 * exhausting the stack through our recursion. */
#define RCTL_YAML_MAX_DEPTH 512

struct yaml_ctx {
	yaml_parser_t parser;
	const char *name;
	const char *buf;
	size_t len;
	char *err;
	size_t errlen;
};

static void __attribute__((format(printf, 3, 4)))
fail_at(struct yaml_ctx *ctx, const yaml_mark_t *mark, const char *fmt, ...)
{
	size_t n;
	va_list ap;

	n = (size_t)snprintf(ctx->err, ctx->errlen, "%s:%zu:%zu: ", ctx->name,
			     mark->line + 1, mark->column + 1);
	if (n >= ctx->errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(ctx->err + n, ctx->errlen - n, fmt, ap);
	va_end(ap);
}

/* The reader reports a byte offset rather than a mark (bad UTF-8, NUL bytes);
 * turn it into line and column so every error points the same way. */
static void
offset_to_mark(const char *buf, size_t len, size_t offset, yaml_mark_t *mark)
{
	size_t i;

	memset(mark, 0, sizeof(*mark));
	for (i = 0; i < offset && i < len; i++) {
		if (buf[i] == '\n') {
			mark->line++;
			mark->column = 0;
		} else {
			mark->column++;
		}
	}
}

static void
fail_parser(struct yaml_ctx *ctx)
{
	const yaml_parser_t *p = &ctx->parser;
	yaml_mark_t mark;

	switch (p->error) {
	case YAML_MEMORY_ERROR:
		snprintf(ctx->err, ctx->errlen, "%s: out of memory", ctx->name);
		return;
	case YAML_READER_ERROR:
		offset_to_mark(ctx->buf, ctx->len, p->problem_offset, &mark);
		fail_at(ctx, &mark, "%s", p->problem ? p->problem : "cannot read input");
		return;
	default:
		break;
	}
	if (p->context != NULL)
		fail_at(ctx, &p->problem_mark, "%s (%s at line %zu column %zu)",
			p->problem ? p->problem : "syntax error", p->context,
			p->context_mark.line + 1, p->context_mark.column + 1);
	else
		fail_at(ctx, &p->problem_mark, "%s",
			p->problem ? p->problem : "syntax error");
}

static int
next_event(struct yaml_ctx *ctx, yaml_event_t *ev)
{
	if (!yaml_parser_parse(&ctx->parser, ev)) {
		fail_parser(ctx);
		return -1;
	}
	return 0;
}

static int
all_in(const char *s, size_t len, const char *set)
{
	size_t i;

	if (len == 0)
		return 0;
	for (i = 0; i < len; i++)
		if (s[i] == '\0' || strchr(set, s[i]) == NULL)
			return 0;
	return 1;
}

static int
text_is(const char *s, size_t len, const char *word)
{
	return strlen(word) == len && memcmp(s, word, len) == 0;
}

/* [-+]? ( \. [0-9]+ | [0-9]+ ( \. [0-9]* )? ) ( [eE] [-+]? [0-9]+ )?
 * which, unlike strtod, refuses hex floats, "inf", "nan" and trailing junk. */
static int
is_core_float(const char *s, size_t len)
{
	size_t i = 0, digits = 0;

	if (i < len && (s[i] == '-' || s[i] == '+'))
		i++;
	while (i < len && s[i] >= '0' && s[i] <= '9') {
		i++;
		digits++;
	}
	if (i < len && s[i] == '.') {
		i++;
		while (i < len && s[i] >= '0' && s[i] <= '9') {
			i++;
			digits++;
		}
	}
	if (digits == 0)
		return 0;
	if (i < len && (s[i] == 'e' || s[i] == 'E')) {
		i++;
		if (i < len && (s[i] == '-' || s[i] == '+'))
			i++;
		if (i == len)
			return 0;
		while (i < len && s[i] >= '0' && s[i] <= '9')
			i++;
	}
	return i == len;
}

json_t *
rctl_yaml_plain_scalar(const char *text, size_t len)
{
	char tmp[128];
	const char *digits = text;
	size_t ndigits = len;
	int base = 10;
	char *end;

	if (len == 0 || text_is(text, len, "~") || text_is(text, len, "null") ||
	    text_is(text, len, "Null") || text_is(text, len, "NULL"))
		return json_null();
	if (text_is(text, len, "true") || text_is(text, len, "True") ||
	    text_is(text, len, "TRUE"))
		return json_true();
	if (text_is(text, len, "false") || text_is(text, len, "False") ||
	    text_is(text, len, "FALSE"))
		return json_false();
	/* Numbers are short; anything longer is certainly a string. */
	if (len >= sizeof(tmp))
		return json_stringn(text, len);

	if (len > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
		base = text[1] == 'x' ? 16 : 8;
		digits = text + 2;
		ndigits = len - 2;
		if (!all_in(digits, ndigits, base == 16 ? "0123456789abcdefABCDEF" : "01234567"))
			return json_stringn(text, len);
	} else if (!(all_in(text, len, "0123456789") ||
		     (len > 1 && (text[0] == '-' || text[0] == '+') &&
		      all_in(text + 1, len - 1, "0123456789")))) {
		if (is_core_float(text, len)) {
			memcpy(tmp, text, len);
			tmp[len] = '\0';
			return json_real(strtod(tmp, NULL));
		}
		return json_stringn(text, len);
	}

	memcpy(tmp, digits, ndigits);
	tmp[ndigits] = '\0';
	errno = 0;
	if (base == 10) {
		long long v = strtoll(tmp, &end, 10);

		/* JSON numbers have no size limit; a real keeps the magnitude
		 * where int64 cannot, as kubectl's YAML decoder does. */
		if (errno == ERANGE)
			return json_real(strtod(tmp, NULL));
		return json_integer(v);
	} else {
		unsigned long long v = strtoull(tmp, &end, base);

		if (errno == ERANGE || v > (unsigned long long)INT64_MAX)
			return json_stringn(text, len);
		return json_integer((json_int_t)v);
	}
}

static json_t *
scalar_value(struct yaml_ctx *ctx, const yaml_event_t *ev)
{
	const char *text = (const char *)ev->data.scalar.value;
	size_t len = ev->data.scalar.length;
	const char *tag = (const char *)ev->data.scalar.tag;
	json_t *v;

	if (tag == NULL)
		return ev->data.scalar.style == YAML_PLAIN_SCALAR_STYLE
			       ? rctl_yaml_plain_scalar(text, len)
			       : json_stringn(text, len);
	/* "!" is the non-specific tag: YAML says it means "string". */
	if (strcmp(tag, "!") == 0 || strcmp(tag, YAML_STR_TAG) == 0)
		return json_stringn(text, len);

	v = rctl_yaml_plain_scalar(text, len);
	if ((strcmp(tag, YAML_NULL_TAG) == 0 && json_is_null(v)) ||
	    (strcmp(tag, YAML_BOOL_TAG) == 0 && json_is_boolean(v)) ||
	    (strcmp(tag, YAML_INT_TAG) == 0 && json_is_integer(v)) ||
	    (strcmp(tag, YAML_FLOAT_TAG) == 0 && json_is_number(v))) {
		if (json_is_integer(v) && strcmp(tag, YAML_FLOAT_TAG) == 0) {
			json_t *r = json_real((double)json_integer_value(v));

			json_decref(v);
			return r;
		}
		return v;
	}
	json_decref(v);
	if (strncmp(tag, "tag:yaml.org,2002:", 18) == 0 &&
	    (strcmp(tag, YAML_NULL_TAG) == 0 || strcmp(tag, YAML_BOOL_TAG) == 0 ||
	     strcmp(tag, YAML_INT_TAG) == 0 || strcmp(tag, YAML_FLOAT_TAG) == 0))
		fail_at(ctx, &ev->start_mark, "\"%.*s\" is not a valid !!%s", (int)len,
			text, tag + 18);
	else
		fail_at(ctx, &ev->start_mark, "unsupported tag %s", tag);
	return NULL;
}

static json_t *parse_node(struct yaml_ctx *ctx, yaml_event_t *ev, unsigned depth);

static json_t *
parse_sequence(struct yaml_ctx *ctx, unsigned depth)
{
	json_t *arr = json_array();
	yaml_event_t ev;
	json_t *item;

	if (arr == NULL)
		return NULL;
	for (;;) {
		if (next_event(ctx, &ev) < 0)
			goto fail;
		if (ev.type == YAML_SEQUENCE_END_EVENT) {
			yaml_event_delete(&ev);
			return arr;
		}
		item = parse_node(ctx, &ev, depth + 1);
		if (item == NULL || json_array_append_new(arr, item) < 0)
			goto fail;
	}
fail:
	json_decref(arr);
	return NULL;
}

static json_t *
parse_mapping(struct yaml_ctx *ctx, unsigned depth)
{
	json_t *obj = json_object();
	yaml_event_t ev;
	json_t *val;
	char *key;

	if (obj == NULL)
		return NULL;
	for (;;) {
		if (next_event(ctx, &ev) < 0)
			goto fail;
		if (ev.type == YAML_MAPPING_END_EVENT) {
			yaml_event_delete(&ev);
			return obj;
		}
		/* JSON object keys are strings; a sequence or mapping as a key
		 * has no JSON form, and neither has an embedded NUL. */
		if (ev.type != YAML_SCALAR_EVENT) {
			fail_at(ctx, &ev.start_mark, "%s",
				ev.type == YAML_ALIAS_EVENT
					? "aliases are not supported"
					: "mapping keys must be scalars");
			yaml_event_delete(&ev);
			goto fail;
		}
		key = (char *)ev.data.scalar.value;
		if (strlen(key) != ev.data.scalar.length) {
			fail_at(ctx, &ev.start_mark, "mapping key contains a NUL character");
			yaml_event_delete(&ev);
			goto fail;
		}
		/* YAML requires unique keys; silently keeping one of two values
		 * would apply something the user did not read. */
		if (json_object_get(obj, key) != NULL) {
			fail_at(ctx, &ev.start_mark, "duplicate key \"%s\"", key);
			yaml_event_delete(&ev);
			goto fail;
		}
		key = strdup(key);
		yaml_event_delete(&ev);
		if (key == NULL)
			goto fail;
		if (next_event(ctx, &ev) < 0) {
			free(key);
			goto fail;
		}
		val = parse_node(ctx, &ev, depth + 1);
		if (val == NULL || json_object_set_new(obj, key, val) < 0) {
			free(key);
			goto fail;
		}
		free(key);
	}
fail:
	json_decref(obj);
	return NULL;
}

/* Consumes ev (and every event of the node it starts). */
static json_t *
parse_node(struct yaml_ctx *ctx, yaml_event_t *ev, unsigned depth)
{
	json_t *v = NULL;

	if (depth > RCTL_YAML_MAX_DEPTH) {
		fail_at(ctx, &ev->start_mark, "nested more than %d levels deep",
			RCTL_YAML_MAX_DEPTH);
		yaml_event_delete(ev);
		return NULL;
	}
	switch (ev->type) {
	case YAML_SCALAR_EVENT:
		v = scalar_value(ctx, ev);
		break;
	case YAML_SEQUENCE_START_EVENT:
		v = parse_sequence(ctx, depth);
		break;
	case YAML_MAPPING_START_EVENT:
		v = parse_mapping(ctx, depth);
		break;
	case YAML_ALIAS_EVENT:
		/* Expanding aliases lets a few lines become gigabytes (the
		 * "billion laughs"); objects for a router never need them. */
		fail_at(ctx, &ev->start_mark,
			"aliases (*%s) are not supported; repeat the value instead",
			(const char *)ev->data.alias.anchor);
		break;
	default:
		fail_at(ctx, &ev->start_mark, "unexpected YAML event %d", (int)ev->type);
		break;
	}
	yaml_event_delete(ev);
	if (v == NULL && ctx->err[0] == '\0')
		snprintf(ctx->err, ctx->errlen, "%s: out of memory", ctx->name);
	return v;
}

json_t *
rctl_yaml_parse(const char *name, const char *buf, size_t len, char *err, size_t errlen)
{
	struct yaml_ctx ctx = {
		.name = name, .buf = buf, .len = len, .err = err, .errlen = errlen,
	};
	json_t *docs = json_array();
	yaml_event_t ev;
	json_t *doc;
	int done = 0;

	if (errlen > 0)
		err[0] = '\0';
	if (docs == NULL || !yaml_parser_initialize(&ctx.parser)) {
		snprintf(err, errlen, "%s: out of memory", name);
		json_decref(docs);
		return NULL;
	}
	yaml_parser_set_input_string(&ctx.parser, (const unsigned char *)buf, len);
	while (!done) {
		if (next_event(&ctx, &ev) < 0)
			goto fail;
		switch (ev.type) {
		case YAML_STREAM_START_EVENT:
		case YAML_DOCUMENT_END_EVENT:
			yaml_event_delete(&ev);
			break;
		case YAML_STREAM_END_EVENT:
			yaml_event_delete(&ev);
			done = 1;
			break;
		case YAML_DOCUMENT_START_EVENT:
			yaml_event_delete(&ev);
			if (next_event(&ctx, &ev) < 0)
				goto fail;
			doc = parse_node(&ctx, &ev, 0);
			if (doc == NULL || json_array_append_new(docs, doc) < 0)
				goto fail;
			break;
		default:
			fail_at(&ctx, &ev.start_mark, "unexpected YAML event %d", (int)ev.type);
			yaml_event_delete(&ev);
			goto fail;
		}
	}
	yaml_parser_delete(&ctx.parser);
	return docs;
fail:
	if (err[0] == '\0')
		snprintf(err, errlen, "%s: out of memory", name);
	yaml_parser_delete(&ctx.parser);
	json_decref(docs);
	return NULL;
}
