/* SPDX-License-Identifier: BSD-3-Clause */
/* A literal as a PCRE2 pattern, for kinds that turn exact, prefix, suffix
 * and contains conditions into the regex predicates (Gateway API,
 * HTTPProxy). */
#ifndef SY_REGEX_QUOTE_H
#define SY_REGEX_QUOTE_H

/* s with every ASCII character other than a letter, a digit or '_'
 * backslash-escaped (PCRE2 takes an escaped non-alphanumeric literally), so
 * the result matches s and nothing else; bytes above 0x7f are kept as they
 * are. malloc'd; NULL on out of memory. */
char *sy_regex_quote(const char *s);

#endif
