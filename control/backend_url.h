/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Backend URLs written into a route (Skipper network and lb backends): which
 * ones the splice path can reach, and why not the others. Splice binds a
 * client connection to one address and port and passes its bytes through
 * unchanged, so it reaches "http://" and an IPv4 literal, with a port (80 by
 * default). https needs the router to speak TLS to the backend, and a host
 * name needs a DNS lookup: the splice path does neither.
 *
 * Skipper reads such an address with Go's url.ParseRequestURI and keeps the
 * scheme (lower-cased) and the host with its port; a path is not used. A bare
 * "10.2.0.1:8080" is not a request URI there, so it is not one here either.
 */
#ifndef SY_BACKEND_URL_H
#define SY_BACKEND_URL_H

#include <stddef.h>
#include <stdint.h>

#include "sy_addr.h"

/* 0 with *addr and *port when the splice path can reach url; -1 with why (a
 * phrase that completes "network backend URL: ...") when it cannot. */
int sy_backend_url_parse(const char *url, struct sy_addr *addr, uint16_t *port, char *why,
			 size_t whylen);

#endif
