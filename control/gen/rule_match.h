/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Which rule of a vhost a request gets, for `resolve`: path, method and every
 * predicate (header, header regexp, cookie, path/host regexp, JWT payload),
 * evaluated on the published generation. Traffic predicates are not rolled:
 * the walk returns each candidate with the probability that it gets the
 * request, as Skipper's Traffic() chain hands it out (a rule with Traffic(p)
 * takes p of what the rules before it left over).
 */
#ifndef SY_RULE_MATCH_H
#define SY_RULE_MATCH_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "sy_generation.h"

struct sy_rm_request {
	const char *host;      /* as sent, port included (Host predicates see it so) */
	const char *method;    /* NULL: GET */
	const char *path;      /* may carry ?query */
	const json_t *headers; /* object name -> string value; NULL: none */
};

struct sy_rm_hit {
	const struct sy_rule *rule;
	double share; /* probability that this rule gets the request */
};

/* SY_METHOD_* bit of a method name (case-sensitive, as on the wire); 0 if unknown. */
uint32_t sy_rm_method_bit(const char *method, bool any_case);

/* Path part of rule r matches path (query ignored)? */
bool sy_rm_path_matches(const struct sy_rule *r, const char *path);

/* Methods and every predicate of r except Traffic hold for q? */
bool sy_rm_rule_matches(const struct sy_rule *r, const struct sy_rm_request *q);

/*
 * Walk vh's rules in order; fill hits (at most max) with the rules that may
 * get q and their probabilities, first the one that gets it when no Traffic
 * predicate is involved. Returns the number of hits; 0 when no rule matches.
 * *path_matched tells whether some rule's path matched at all.
 */
size_t sy_rm_match(const struct sy_vhost *vh, const struct sy_rm_request *q, struct sy_rm_hit *hits,
		   size_t max, bool *path_matched);

/* A header's value (name case-insensitive); NULL when absent. */
const char *sy_rm_header(const json_t *headers, const char *name);

#endif
