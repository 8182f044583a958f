/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A small parser for the eskip expressions RouteGroups carry one per list
 * item: `predicates: ["Header(\"X-A\", \"b\")"]`, `filters: ["setPath(\"/x\")"]`.
 * It accepts what Skipper's eskip lexer and grammar accept for a predicate
 * chain (`A() && B()`, `*`) and a filter chain (`a() -> b()`), and reports
 * errors with Skipper's texts (eskip/lexer.go Error(),
 * dataclients/kubernetes/definitions/routegroupvalidator.go), so the same
 * item is refused for the same reason.
 */
#ifndef SY_ESKIP_H
#define SY_ESKIP_H

#include <stddef.h>

#define SY_ESKIP_ARGS_MAX 32

enum sy_eskip_arg_type {
	SY_ESKIP_STRING, /* "..." or `...` */
	SY_ESKIP_NUMBER, /* 42, 0.5, .1 */
	SY_ESKIP_REGEXP, /* /.../ */
};

struct sy_eskip_arg {
	enum sy_eskip_arg_type type;
	char *text;    /* the string or regexp, escapes resolved as eskip does; number as written */
	double number; /* SY_ESKIP_NUMBER */
};

/* One predicate or filter: name(args). */
struct sy_eskip_call {
	char *name;
	struct sy_eskip_arg args[SY_ESKIP_ARGS_MAX];
	unsigned n_args;
};

/*
 * Exactly one predicate (resp. filter) in text. 0, or -1 with Skipper's
 * message in err: `single predicate expected at "..."` (`single filter
 * expected at "..."`) when the text holds none (empty, `*`) or several, or
 * `parse failed after token T, position N: syntax error` (positions count
 * from the start of the item). On success the caller frees out.
 */
int sy_eskip_parse_predicate(const char *text, struct sy_eskip_call *out, char *err, size_t errlen);
int sy_eskip_parse_filter(const char *text, struct sy_eskip_call *out, char *err, size_t errlen);
void sy_eskip_call_free(struct sy_eskip_call *c);

/* The arguments as JSON array text (numbers as numbers, strings and regexps
 * as strings), e.g. ["X-A", 1]. malloc'd; NULL on out of memory. */
char *sy_eskip_args_json(const struct sy_eskip_call *c);

/* Go's %q of a string (what Skipper's messages quote with). malloc'd. */
char *sy_eskip_go_quote(const char *s);

#endif
