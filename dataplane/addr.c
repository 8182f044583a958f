/* SPDX-License-Identifier: BSD-3-Clause */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "sy_addr.h"

int
sy_addr_parse(const char *s, struct sy_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (s == NULL)
		return -EINVAL;
	if (inet_pton(AF_INET, s, &out->v4) == 1) {
		out->family = AF_INET;
		return 0;
	}
	if (inet_pton(AF_INET6, s, out->v6) == 1) {
		out->family = AF_INET6;
		return 0;
	}
	return -EINVAL;
}

int
sy_prefix_parse(const char *s, struct sy_addr *out, uint8_t *len)
{
	char buf[64];
	const char *slash = s ? strchr(s, '/') : NULL;
	size_t n = slash ? (size_t)(slash - s) : (s ? strlen(s) : 0);
	char *end;
	long plen;

	if (s == NULL || n == 0 || n >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, s, n);
	buf[n] = '\0';
	if (sy_addr_parse(buf, out) < 0)
		return -EINVAL;
	if (slash == NULL) {
		*len = out->family == AF_INET ? 32 : 128;
		return 0;
	}
	errno = 0;
	plen = strtol(slash + 1, &end, 10);
	if (errno != 0 || end == slash + 1 || *end != '\0' || plen < 0 ||
	    plen > (out->family == AF_INET ? 32 : 128))
		return -EINVAL;
	*len = (uint8_t)plen;
	return 0;
}

const char *
sy_addr_format(const struct sy_addr *a, char *buf, size_t size)
{
	if (a->family == AF_INET)
		inet_ntop(AF_INET, &a->v4, buf, size);
	else if (a->family == AF_INET6)
		inet_ntop(AF_INET6, a->v6, buf, size);
	else
		snprintf(buf, size, "-");
	return buf;
}

const char *
sy_addr_port_format(const struct sy_addr *a, unsigned port, char *buf, size_t size)
{
	char t[SY_ADDR_STRLEN];

	sy_addr_format(a, t, sizeof(t));
	if (a->family == AF_INET6)
		snprintf(buf, size, "[%s]:%u", t, port);
	else
		snprintf(buf, size, "%s:%u", t, port);
	return buf;
}
