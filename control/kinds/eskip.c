/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eskip predicate and filter chains, one RouteGroup list item at a time. The
 * lexer copies Skipper's eskip/lexer.go token by token (fixed tokens, `//`
 * comments, "..." and `...` strings where a backslash escapes only the
 * delimiter and itself, /regexp/ literals that may hold `/` inside [...],
 * numbers of digits and one '.', symbols); the grammar is eskip/parser.y's
 * predicate and filter chains. Errors read as Skipper's do: the token lexed
 * last and the offset reached when the parser gave up.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kinds/eskip.h"

enum tok {
	T_EOF,
	T_AND,
	T_ANY,
	T_ARROW,
	T_CLOSE,
	T_COLON,
	T_COMMA,
	T_OPEN,
	T_SEMI,
	T_SHUNT,
	T_LOOPBACK,
	T_STRING,
	T_REGEXP,
	T_NUMBER,
	T_SYMBOL,
};

struct lexer {
	const char *code; /* the whole item */
	size_t len;
	size_t pos;        /* what the lexer has consumed */
	char *last;        /* value of the last token lexed (eskip's lastToken) */
	char *val;         /* value of the current token */
	const char *lexerr; /* set when the lexer failed (the parser then sees EOF) */
	char *err;
	size_t errlen;
	bool failed;
};

static const struct {
	const char *text;
	enum tok id;
} fixed_tokens[] = {
	{ "&&", T_AND },   { "*", T_ANY },	{ "->", T_ARROW },     { ")", T_CLOSE },
	{ ":", T_COLON },  { ",", T_COMMA },	{ "(", T_OPEN },       { ";", T_SEMI },
	{ "<shunt>", T_SHUNT }, { "<loopback>", T_LOOPBACK },
};

/* Scan "..." / `...` / /.../ content from pos (just after the opening
 * delimiter) into a new string; eskip keeps a backslash unless it escapes the
 * delimiter or itself. Regexps may hold an unescaped '/' inside [...]. */
static char *
scan_delimited(struct lexer *l, char delim, bool regexp, bool *complete)
{
	char *out = malloc(l->len - l->pos + 1);
	size_t n = 0;
	bool escaped = false, group = false;

	*complete = false;
	if (out == NULL)
		return NULL;
	while (l->pos < l->len) {
		char c = l->code[l->pos];

		if (regexp && !escaped && !group && c == '[')
			group = true;
		else if (regexp && !escaped && group && c == ']')
			group = false;
		if (escaped) {
			if (c != delim && c != '\\')
				out[n++] = '\\';
			out[n++] = c;
			escaped = false;
		} else if (c == delim && !(regexp && group)) {
			l->pos++;
			*complete = true;
			break;
		} else if (c == '\\') {
			escaped = true;
		} else {
			out[n++] = c;
		}
		l->pos++;
	}
	out[n] = '\0';
	return out;
}

static void
set_token(struct lexer *l, char *val)
{
	free(l->last);
	l->last = val ? strdup(val) : NULL;
	free(l->val);
	l->val = val;
}

static enum tok
lex(struct lexer *l)
{
	const char *c;
	size_t i;

	for (;;) {
		while (l->pos < l->len && isspace((unsigned char)l->code[l->pos]))
			l->pos++;
		if (l->pos >= l->len)
			return T_EOF;
		c = l->code + l->pos;
		if (c[0] == '/' && l->pos + 1 < l->len && c[1] == '/') {
			while (l->pos < l->len && l->code[l->pos] != '\n')
				l->pos++;
			continue;
		}
		break;
	}
	for (i = 0; i < sizeof(fixed_tokens) / sizeof(fixed_tokens[0]); i++) {
		size_t n = strlen(fixed_tokens[i].text);

		if (l->len - l->pos >= n && strncmp(c, fixed_tokens[i].text, n) == 0) {
			l->pos += n;
			set_token(l, strdup(fixed_tokens[i].text));
			return fixed_tokens[i].id;
		}
	}
	if (c[0] == '"' || c[0] == '`' || c[0] == '/') {
		bool complete;
		char *s;

		if (c[0] == '/' && l->pos + 1 >= l->len) {
			l->lexerr = "invalid character";
			return T_EOF;
		}
		l->pos++;
		s = scan_delimited(l, c[0], c[0] == '/', &complete);
		if (!complete) {
			free(s);
			l->lexerr = "incomplete token";
			return T_EOF;
		}
		set_token(l, s);
		return c[0] == '/' ? T_REGEXP : T_STRING;
	}
	if (isdigit((unsigned char)c[0]) || c[0] == '.') {
		size_t start = l->pos;
		bool dot = false;

		while (l->pos < l->len) {
			char d = l->code[l->pos];

			if (d == '.' && !dot)
				dot = true;
			else if (!isdigit((unsigned char)d))
				break;
			l->pos++;
		}
		if (l->code[l->pos - 1] == '.') {
			l->lexerr = "incomplete token";
			return T_EOF;
		}
		set_token(l, strndup(l->code + start, l->pos - start));
		return T_NUMBER;
	}
	if (isalpha((unsigned char)c[0]) || c[0] == '_') {
		size_t start = l->pos;

		while (l->pos < l->len &&
		       (isalnum((unsigned char)l->code[l->pos]) || l->code[l->pos] == '_'))
			l->pos++;
		set_token(l, strndup(l->code + start, l->pos - start));
		return T_SYMBOL;
	}
	l->lexerr = "unexpected token";
	return T_EOF;
}

/* eskip's Error(): "parse failed after token %v, position %d: %s". */
static int
parse_error(struct lexer *l, const char *what)
{
	if (!l->failed)
		snprintf(l->err, l->errlen, "parse failed after token %s, position %zu: %s",
			 l->last ? l->last : "<nil>", l->pos, what);
	l->failed = true;
	return -1;
}

static char *
take_val(struct lexer *l)
{
	char *v = l->val;

	l->val = NULL;
	return v;
}

/* name ( [arg {, arg}] ), the name already lexed. */
static int
parse_call(struct lexer *l, struct sy_eskip_call *call)
{
	enum tok t;

	memset(call, 0, sizeof(*call));
	call->name = take_val(l);
	if (lex(l) != T_OPEN)
		return parse_error(l, "syntax error");
	t = lex(l);
	if (t == T_CLOSE)
		return 0;
	for (;;) {
		struct sy_eskip_arg *a;

		if (t != T_STRING && t != T_NUMBER && t != T_REGEXP)
			return parse_error(l, "syntax error");
		if (call->n_args == SY_ESKIP_ARGS_MAX)
			return parse_error(l, "too many arguments");
		a = &call->args[call->n_args++];
		a->type = t == T_STRING ? SY_ESKIP_STRING : t == T_NUMBER ? SY_ESKIP_NUMBER : SY_ESKIP_REGEXP;
		a->text = take_val(l);
		if (a->text == NULL)
			return parse_error(l, "out of memory");
		if (t == T_NUMBER)
			a->number = strtod(a->text, NULL);
		t = lex(l);
		if (t == T_CLOSE)
			return 0;
		if (t != T_COMMA)
			return parse_error(l, "syntax error");
		t = lex(l);
	}
}

/*
 * A chain of calls joined by `sep` (&& for predicates, -> for filters); a
 * predicate chain may also be `*` (no predicate). Returns how many calls the
 * text holds (the first in *first), or -1.
 */
static int
parse_chain(const char *text, enum tok sep, struct sy_eskip_call *first, char *err, size_t errlen)
{
	struct lexer l = { .code = text, .len = strlen(text), .err = err, .errlen = errlen };
	int n = 0, rc = -1;
	enum tok t = lex(&l);

	memset(first, 0, sizeof(*first));
	if (t == T_EOF) {
		rc = l.lexerr ? parse_error(&l, l.lexerr) : 0;
		goto out;
	}
	if (sep == T_AND && t == T_ANY) {
		t = lex(&l);
		rc = t == T_EOF && l.lexerr == NULL ? 0 : parse_error(&l, t == T_EOF && l.lexerr ? l.lexerr : "syntax error");
		goto out;
	}
	for (;;) {
		struct sy_eskip_call call, *into = n == 0 ? first : &call;

		if (t != T_SYMBOL) {
			parse_error(&l, "syntax error");
			goto out;
		}
		if (parse_call(&l, into) < 0) {
			if (into == &call)
				sy_eskip_call_free(&call);
			goto out;
		}
		if (into == &call)
			sy_eskip_call_free(&call);
		n++;
		t = lex(&l);
		if (t == T_EOF) {
			rc = l.lexerr ? parse_error(&l, l.lexerr) : n;
			goto out;
		}
		if (t != sep) {
			parse_error(&l, "syntax error");
			goto out;
		}
		t = lex(&l);
	}
out:
	if (rc < 0)
		sy_eskip_call_free(first);
	free(l.last);
	free(l.val);
	return rc;
}

static int
parse_one(const char *text, enum tok sep, const char *what, struct sy_eskip_call *out, char *err,
	  size_t errlen)
{
	int n = parse_chain(text, sep, out, err, errlen);

	if (n == 1)
		return 0;
	if (n > 1)
		sy_eskip_call_free(out);
	if (n >= 0) {
		char *q = sy_eskip_go_quote(text);

		/* routegroupvalidator.go: fmt.Errorf("%w at %q", errSingle...Expected, s) */
		snprintf(err, errlen, "single %s expected at %s", what, q ? q : "\"\"");
		free(q);
	}
	return -1;
}

int
sy_eskip_parse_predicate(const char *text, struct sy_eskip_call *out, char *err, size_t errlen)
{
	return parse_one(text, T_AND, "predicate", out, err, errlen);
}

int
sy_eskip_parse_filter(const char *text, struct sy_eskip_call *out, char *err, size_t errlen)
{
	return parse_one(text, T_ARROW, "filter", out, err, errlen);
}

void
sy_eskip_call_free(struct sy_eskip_call *c)
{
	unsigned i;

	free(c->name);
	for (i = 0; i < c->n_args; i++)
		free(c->args[i].text);
	memset(c, 0, sizeof(*c));
}

char *
sy_eskip_args_json(const struct sy_eskip_call *c)
{
	json_t *a = json_array();
	char *s;
	unsigned i;

	if (a == NULL)
		return NULL;
	for (i = 0; i < c->n_args; i++) {
		const struct sy_eskip_arg *x = &c->args[i];

		if (x->type != SY_ESKIP_NUMBER)
			json_array_append_new(a, json_string(x->text));
		else if (x->number == (double)(json_int_t)x->number && strchr(x->text, '.') == NULL)
			json_array_append_new(a, json_integer((json_int_t)x->number));
		else
			json_array_append_new(a, json_real(x->number));
	}
	s = json_dumps(a, JSON_ENCODE_ANY);
	json_decref(a);
	return s;
}

char *
sy_eskip_go_quote(const char *s)
{
	size_t n = strlen(s);
	char *out = malloc(4 * n + 3), *p = out;

	if (out == NULL)
		return NULL;
	*p++ = '"';
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '"': *p++ = '\\'; *p++ = '"'; break;
		case '\\': *p++ = '\\'; *p++ = '\\'; break;
		case '\n': *p++ = '\\'; *p++ = 'n'; break;
		case '\t': *p++ = '\\'; *p++ = 't'; break;
		case '\r': *p++ = '\\'; *p++ = 'r'; break;
		default:
			if (c < 0x20 || c == 0x7f)
				p += sprintf(p, "\\x%02x", c);
			else
				*p++ = (char)c;
		}
	}
	*p++ = '"';
	*p = '\0';
	return out;
}
