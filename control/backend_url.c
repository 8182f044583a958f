/* SPDX-License-Identifier: BSD-3-Clause */
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "backend_url.h"

int
sy_backend_url_parse(const char *url, struct sy_addr *addr, uint16_t *port, char *why,
		     size_t whylen)
{
	const char *sep = strstr(url, "://"), *auth, *end, *colon, *c;
	size_t scheme_len, host_len;
	unsigned long p = 80;
	char host[SY_ADDR_STRLEN];

	if (sep == NULL || sep == url) {
		snprintf(why, whylen, "not a URL like http://198.18.1.10:8080");
		return -1;
	}
	scheme_len = (size_t)(sep - url);
	if (scheme_len == 5 && strncasecmp(url, "https", 5) == 0) {
		snprintf(why, whylen, "TLS to the backend needs the proxy mode, which this router "
				      "does not have yet");
		return -1;
	}
	if (scheme_len != 4 || strncasecmp(url, "http", 4) != 0) {
		snprintf(why, whylen, "the scheme \"%.*s\" is not http", (int)scheme_len, url);
		return -1;
	}
	auth = sep + 3;
	end = auth + strcspn(auth, "/?#");
	/* Go's transport turns user:password@ into an Authorization header:
	 * a change to the request, which splice does not make. */
	if (memchr(auth, '@', (size_t)(end - auth)) != NULL) {
		snprintf(why, whylen, "credentials in the URL need the proxy mode, which this "
				      "router does not have yet");
		return -1;
	}
	if (*auth == '[') {
		snprintf(why, whylen, "IPv6 backends are not reached by the splice path yet");
		return -1;
	}
	colon = memchr(auth, ':', (size_t)(end - auth));
	if (colon != NULL && colon + 1 < end) {
		/* Go's url package takes digits only; an empty port is the
		 * scheme's default. */
		for (p = 0, c = colon + 1; c < end; c++) {
			if (*c < '0' || *c > '9' || p > 65535) {
				p = 0;
				break;
			}
			p = p * 10 + (unsigned long)(*c - '0');
		}
		if (p == 0 || p > 65535) {
			snprintf(why, whylen, "\"%.*s\" is not a port number",
				 (int)(end - colon - 1), colon + 1);
			return -1;
		}
	}
	host_len = (size_t)((colon ? colon : end) - auth);
	if (host_len == 0) {
		snprintf(why, whylen, "the URL has no host");
		return -1;
	}
	if (host_len < sizeof(host)) {
		memcpy(host, auth, host_len);
		host[host_len] = '\0';
		if (sy_addr_parse(host, addr) == 0 && addr->family == AF_INET) {
			*port = (uint16_t)p;
			return 0;
		}
	}
	snprintf(why, whylen, "a host name needs DNS, which this router does not resolve");
	return -1;
}
