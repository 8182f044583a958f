/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The protocol a Service port's endpoints speak, from Contour's
 * annotations on the Service (docs/routing.md, "Backend protocols"):
 *
 *   projectcontour.io/upstream-protocol.h2c: "grpc,8080"  h2, cleartext
 *   projectcontour.io/upstream-protocol.h2:  "https"      h2 over TLS
 *   projectcontour.io/upstream-protocol.tls: "443"        HTTP/1.1 over TLS
 *
 * and the same under contour.heptio.com/, the older spelling. The value
 * names the Service's ports by name or number, comma-separated (blanks
 * around the items are ignored). A port in none of them speaks HTTP/1.1,
 * unless its appProtocol is kubernetes.io/h2c (Gateway API's standard
 * way, GEP-1911): then h2c. The annotations win over appProtocol.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/upstream_protocol.h"
#include "sy_generation.h"

/* Is the Service port (name, number) among the list's items? */
static bool
listed(const char *list, const char *name, json_int_t number)
{
	const char *p = list;

	while (*p != '\0') {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		char item[64];

		while (len > 0 && (*p == ' ' || *p == '\t')) {
			p++;
			len--;
		}
		while (len > 0 && (p[len - 1] == ' ' || p[len - 1] == '\t'))
			len--;
		if (len > 0 && len < sizeof(item)) {
			char *stop;
			long v;

			memcpy(item, p, len);
			item[len] = '\0';
			if (name != NULL && strcmp(item, name) == 0)
				return true;
			v = strtol(item, &stop, 10);
			if (*stop == '\0' && number > 0 && v == number)
				return true;
		}
		if (end == NULL)
			break;
		p = end + 1;
	}
	return false;
}

/* The Service port the route's target selects: by name, or by number (its
 * port, else its targetPort); with no target, a Service's only port. */
static const json_t *
service_port(const json_t *svc, const json_t *target)
{
	const json_t *ports = json_object_get(json_object_get(svc, "spec"), "ports");
	const json_t *sp;
	size_t i;

	if (!json_is_array(ports) || json_array_size(ports) == 0)
		return NULL;
	if (target == NULL)
		return json_array_size(ports) == 1 ? json_array_get(ports, 0) : NULL;
	json_array_foreach(ports, i, sp) {
		const char *name = json_string_value(json_object_get(sp, "name"));

		if (json_is_string(target) && name != NULL &&
		    strcmp(name, json_string_value(target)) == 0)
			return sp;
		if (json_is_integer(target) &&
		    json_integer_value(json_object_get(sp, "port")) == json_integer_value(target))
			return sp;
	}
	json_array_foreach(ports, i, sp) {
		const json_t *tp = json_object_get(sp, "targetPort");

		if ((json_is_integer(target) && json_is_integer(tp) &&
		     json_integer_value(tp) == json_integer_value(target)) ||
		    (json_is_string(target) && json_is_string(tp) &&
		     strcmp(json_string_value(tp), json_string_value(target)) == 0))
			return sp;
	}
	return NULL;
}

const char *
sy_be_proto_name(uint8_t proto)
{
	switch (proto) {
	case SY_BE_H2C: return "h2c";
	case SY_BE_H2: return "h2";
	case SY_BE_TLS: return "tls";
	default: return "http/1.1";
	}
}

uint8_t
sy_upstream_protocol(const json_t *svc, const json_t *target)
{
	static const struct {
		const char *suffix;
		uint8_t proto;
	} kinds[] = { { "h2c", SY_BE_H2C }, { "h2", SY_BE_H2 }, { "tls", SY_BE_TLS } };
	static const char *const prefixes[] = { "projectcontour.io", "contour.heptio.com" };
	const json_t *ann, *sp;
	const char *name, *v;
	json_int_t number;
	size_t i, j;

	if (svc == NULL)
		return SY_BE_HTTP1;
	ann = json_object_get(json_object_get(svc, "metadata"), "annotations");
	if ((sp = service_port(svc, target)) == NULL)
		return SY_BE_HTTP1;
	name = json_string_value(json_object_get(sp, "name"));
	number = json_integer_value(json_object_get(sp, "port"));
	for (i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
		for (j = 0; j < sizeof(prefixes) / sizeof(prefixes[0]); j++) {
			char key[64];

			snprintf(key, sizeof(key), "%s/upstream-protocol.%s", prefixes[j], kinds[i].suffix);
			v = json_string_value(json_object_get(ann, key));
			if (v != NULL && listed(v, name, number))
				return kinds[i].proto;
		}
	v = json_string_value(json_object_get(sp, "appProtocol"));
	if (v != NULL && strcmp(v, "kubernetes.io/h2c") == 0)
		return SY_BE_H2C;
	return SY_BE_HTTP1;
}
