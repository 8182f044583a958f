/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The inverse of yaml_json.c over libyaml's emitter. libyaml chooses quoting
 * for strings that cannot be plain; we add quoting for strings that could be
 * plain but would read back as another type ("true", "80", "", "1.5").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <yaml.h>

#include "yaml_emit.h"
#include "yaml_json.h"

struct emit_ctx {
	yaml_emitter_t emitter;
	char *err;
	size_t errlen;
};

static int
emit(struct emit_ctx *ctx, yaml_event_t *ev)
{
	if (!yaml_emitter_emit(&ctx->emitter, ev)) {
		snprintf(ctx->err, ctx->errlen, "cannot write YAML: %s",
			 ctx->emitter.problem ? ctx->emitter.problem : "emitter error");
		return -1;
	}
	return 0;
}

/* Shortest text that strtod turns back into the same double, always with a
 * '.' or exponent so that the reader does not take it for an integer. */
static void
format_real(double d, char *buf, size_t len)
{
	int prec;

	for (prec = 15; prec <= 17; prec++) {
		snprintf(buf, len, "%.*g", prec, d);
		if (strtod(buf, NULL) == d)
			break;
	}
	if (strpbrk(buf, ".eE") == NULL && strlen(buf) + 3 <= len)
		strcat(buf, ".0");
}

static int
emit_string(struct emit_ctx *ctx, const char *s, size_t len)
{
	yaml_scalar_style_t style = YAML_ANY_SCALAR_STYLE;
	json_t *as_plain = rctl_yaml_plain_scalar(s, len);
	int plain_ok;
	yaml_event_t ev;

	plain_ok = json_is_string(as_plain) && json_string_length(as_plain) == len;
	json_decref(as_plain);
	/* Certificates and keys in Secrets read best as literal blocks; libyaml
	 * falls back to a quoted style when a literal cannot hold the text. */
	if (memchr(s, '\n', len) != NULL)
		style = YAML_LITERAL_SCALAR_STYLE;
	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)s, (int)len,
					  plain_ok, 1, style))
		return -1;
	return emit(ctx, &ev);
}

static int
emit_plain(struct emit_ctx *ctx, const char *text)
{
	yaml_event_t ev;

	if (!yaml_scalar_event_initialize(&ev, NULL, NULL, (yaml_char_t *)text,
					  (int)strlen(text), 1, 0,
					  YAML_PLAIN_SCALAR_STYLE))
		return -1;
	return emit(ctx, &ev);
}

static int
emit_node(struct emit_ctx *ctx, const json_t *v)
{
	char num[64];
	yaml_event_t ev;
	const char *key;
	json_t *item;
	size_t i;

	switch (json_typeof(v)) {
	case JSON_OBJECT:
		if (!yaml_mapping_start_event_initialize(&ev, NULL, NULL, 1,
							 YAML_BLOCK_MAPPING_STYLE) ||
		    emit(ctx, &ev) < 0)
			return -1;
		json_object_foreach((json_t *)v, key, item) {
			if (emit_string(ctx, key, strlen(key)) < 0 || emit_node(ctx, item) < 0)
				return -1;
		}
		if (!yaml_mapping_end_event_initialize(&ev))
			return -1;
		return emit(ctx, &ev);
	case JSON_ARRAY:
		if (!yaml_sequence_start_event_initialize(&ev, NULL, NULL, 1,
							  YAML_BLOCK_SEQUENCE_STYLE) ||
		    emit(ctx, &ev) < 0)
			return -1;
		json_array_foreach(v, i, item) {
			if (emit_node(ctx, item) < 0)
				return -1;
		}
		if (!yaml_sequence_end_event_initialize(&ev))
			return -1;
		return emit(ctx, &ev);
	case JSON_STRING:
		return emit_string(ctx, json_string_value(v), json_string_length(v));
	case JSON_INTEGER:
		snprintf(num, sizeof(num), "%" JSON_INTEGER_FORMAT, json_integer_value(v));
		return emit_plain(ctx, num);
	case JSON_REAL:
		format_real(json_real_value(v), num, sizeof(num));
		return emit_plain(ctx, num);
	case JSON_TRUE:
		return emit_plain(ctx, "true");
	case JSON_FALSE:
		return emit_plain(ctx, "false");
	case JSON_NULL:
		return emit_plain(ctx, "null");
	}
	return -1;
}

int
rctl_yaml_emit(FILE *out, const json_t *v, char *err, size_t errlen)
{
	struct emit_ctx ctx = { .err = err, .errlen = errlen };
	yaml_event_t ev;
	int rc = -1;

	err[0] = '\0';
	if (!yaml_emitter_initialize(&ctx.emitter)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	yaml_emitter_set_output_file(&ctx.emitter, out);
	yaml_emitter_set_unicode(&ctx.emitter, 1);
	/* Never fold long strings (hosts, paths, PEM lines) across lines. */
	yaml_emitter_set_width(&ctx.emitter, -1);
	yaml_emitter_set_indent(&ctx.emitter, 2);

	if (!yaml_stream_start_event_initialize(&ev, YAML_UTF8_ENCODING) ||
	    emit(&ctx, &ev) < 0)
		goto out;
	if (!yaml_document_start_event_initialize(&ev, NULL, NULL, NULL, 1) ||
	    emit(&ctx, &ev) < 0)
		goto out;
	if (emit_node(&ctx, v) < 0)
		goto out;
	if (!yaml_document_end_event_initialize(&ev, 1) || emit(&ctx, &ev) < 0)
		goto out;
	if (!yaml_stream_end_event_initialize(&ev) || emit(&ctx, &ev) < 0)
		goto out;
	if (!yaml_emitter_flush(&ctx.emitter))
		goto out;
	rc = 0;
out:
	if (rc < 0 && err[0] == '\0')
		snprintf(err, errlen, "cannot write YAML");
	yaml_emitter_delete(&ctx.emitter);
	return rc;
}
