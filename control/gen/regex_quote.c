/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdlib.h>

#include "gen/regex_quote.h"

static int
is_word(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c >= 0x80;
}

char *
sy_regex_quote(const char *s)
{
	size_t n = 0, i;
	char *out, *o;

	for (i = 0; s[i] != '\0'; i++)
		n += is_word((unsigned char)s[i]) ? 1 : 2;
	out = malloc(n + 1);
	if (out == NULL)
		return NULL;
	for (o = out, i = 0; s[i] != '\0'; i++) {
		/* PCRE2 reads a backslash before anything but a letter or a
		 * digit as that character itself (letters and digits stay bare:
		 * escaped, they would be escapes such as \d). */
		if (!is_word((unsigned char)s[i]))
			*o++ = '\\';
		*o++ = s[i];
	}
	*o = '\0';
	return out;
}
