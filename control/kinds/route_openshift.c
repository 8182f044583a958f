/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * OpenShift Route (route.openshift.io/v1, and the legacy bare v1).
 * Validation follows library-go's validateRoute, with its messages, so that an
 * object OpenShift's API server rejects is rejected here for the same reason.
 * Admission (who owns a host) is not validation: it happens at compile time
 * (control/compile.c) and is reported in status.
 */
#include <string.h>

#include "kinds.h"
#include "kind_util.h"

static int
check_backend(const json_t *b, const char *who, const char *base, struct sy_errors *errs)
{
	char f[96];
	const json_t *kind = json_object_get(b, "kind");
	const json_t *weight = json_object_get(b, "weight");
	int bad = 0;

	if (!json_is_object(b))
		return sy_err_add(errs, "invalid", who, base, "must be an object");
	snprintf(f, sizeof(f), "%s.name", base);
	if (sy_kind_check_string(json_object_get(b, "name"), who, f, errs) < 0)
		bad = -1;
	snprintf(f, sizeof(f), "%s.kind", base);
	if (kind != NULL && !(json_is_string(kind) && (strcmp(json_string_value(kind), "Service") == 0 ||
						       json_string_length(kind) == 0)))
		bad = sy_err_add(errs, "invalid", who, f, "must reference a Service");
	snprintf(f, sizeof(f), "%s.weight", base);
	if (weight != NULL && !json_is_null(weight) &&
	    (!json_is_integer(weight) || json_integer_value(weight) < 0 ||
	     json_integer_value(weight) > 256))
		bad = sy_err_add(errs, "invalid", who, f, "weight must be an integer between 0 and 256");
	return bad;
}

static int
check_host(const char *host, const char *who, struct sy_errors *errs)
{
	const char *p = host;

	for (;;) {
		const char *dot = strchr(p, '.');
		size_t l = dot ? (size_t)(dot - p) : strlen(p);

		if (l > 63)
			return sy_err_add(errs, "invalid", who, "spec.host",
					  "Invalid value: \"%s\": must be no more than 63 characters", host);
		if (dot == NULL)
			break;
		p = dot + 1;
	}
	if (!sy_dns1123_subdomain(host))
		return sy_err_add(errs, "invalid", who, "spec.host",
				  "host must conform to DNS 952 subdomain conventions");
	return 0;
}

static int
check_tls(const json_t *tls, bool has_path, const char *who, struct sy_errors *errs)
{
	static const char *const cert_fields[] = { "certificate", "key", "caCertificate",
						   "destinationCACertificate", "externalCertificate",
						   NULL };
	const json_t *term = json_object_get(tls, "termination");
	const json_t *insecure = json_object_get(tls, "insecureEdgeTerminationPolicy");
	const char *t = json_is_string(term) ? json_string_value(term) : "";
	const char *ins = json_is_string(insecure) ? json_string_value(insecure) : "";
	int bad = 0;
	int i;

	if (!json_is_object(tls))
		return sy_err_add(errs, "invalid", who, "spec.tls", "must be an object");
	if ((term != NULL && !json_is_string(term)) ||
	    (t[0] && strcmp(t, "edge") && strcmp(t, "passthrough") && strcmp(t, "reencrypt")))
		return sy_err_add(errs, "invalid", who, "spec.tls.termination",
				  "invalid value for termination, acceptable values are edge, "
				  "passthrough, reencrypt, or empty (no tls specified)");
	if ((insecure != NULL && !json_is_string(insecure)) ||
	    (ins[0] && strcmp(ins, "None") && strcmp(ins, "Allow") && strcmp(ins, "Redirect")))
		bad = sy_err_add(errs, "invalid", who, "spec.tls.insecureEdgeTerminationPolicy",
				 "invalid value for InsecureEdgeTerminationPolicy option, acceptable "
				 "values are None, Allow, Redirect, or empty");
	if (strcmp(t, "passthrough") == 0) {
		for (i = 0; cert_fields[i] != NULL; i++) {
			const json_t *c = json_object_get(tls, cert_fields[i]);

			if (c != NULL && !(json_is_string(c) && json_string_length(c) == 0)) {
				char f[64];

				snprintf(f, sizeof(f), "spec.tls.%s", cert_fields[i]);
				bad = sy_err_add(errs, "invalid", who, f,
						 "passthrough termination does not support certificates");
			}
		}
		if (strcmp(ins, "Allow") == 0)
			bad = sy_err_add(errs, "invalid", who, "spec.tls.insecureEdgeTerminationPolicy",
					 "Allow is not supported for passthrough termination");
		if (has_path)
			bad = sy_err_add(errs, "invalid", who, "spec.path",
					 "passthrough termination does not support paths");
	}
	if (strcmp(t, "edge") == 0 && json_object_get(tls, "destinationCACertificate") != NULL)
		bad = sy_err_add(errs, "invalid", who, "spec.tls.destinationCACertificate",
				 "edge termination does not support destination certificates");
	return bad;
}

static int
validate_route(const json_t *obj, const char *who, struct sy_errors *errs)
{
	const json_t *spec = json_object_get(obj, "spec");
	const json_t *host, *path, *alts, *port, *wp, *tls, *b;
	const char *wps;
	size_t i;
	int bad = 0;

	if (!json_is_object(spec))
		return sy_err_add(errs, "invalid", who, "spec", "required");
	host = json_object_get(spec, "host");
	path = json_object_get(spec, "path");
	alts = json_object_get(spec, "alternateBackends");
	port = json_object_get(spec, "port");
	wp = json_object_get(spec, "wildcardPolicy");
	tls = json_object_get(spec, "tls");

	if (host != NULL && !json_is_string(host))
		bad = sy_err_add(errs, "invalid", who, "spec.host", "must be a string");
	else if (host != NULL && json_string_length(host) > 0 &&
		 check_host(json_string_value(host), who, errs) < 0)
		bad = -1;
	if (path != NULL && !json_is_string(path)) {
		bad = sy_err_add(errs, "invalid", who, "spec.path", "must be a string");
	} else if (path != NULL && json_string_length(path) > 0) {
		const char *p = json_string_value(path);

		if (p[0] != '/')
			bad = sy_err_add(errs, "invalid", who, "spec.path", "path must begin with /");
		else if (strpbrk(p, "# ") != NULL)
			bad = sy_err_add(errs, "invalid", who, "spec.path", "cannot contain # or spaces");
	}
	if (json_object_get(spec, "to") == NULL)
		bad = sy_err_add(errs, "invalid", who, "spec.to.name", "required");
	else if (check_backend(json_object_get(spec, "to"), who, "spec.to", errs) < 0)
		bad = -1;
	if (alts != NULL && !json_is_array(alts)) {
		bad = sy_err_add(errs, "invalid", who, "spec.alternateBackends", "must be a list");
	} else if (json_array_size(alts) > 3) {
		bad = sy_err_add(errs, "invalid", who, "spec.alternateBackends",
				 "cannot specify more than 3 alternate backends");
	} else {
		json_array_foreach(alts, i, b) {
			char f[64];

			snprintf(f, sizeof(f), "spec.alternateBackends[%zu]", i);
			if (check_backend(b, who, f, errs) < 0)
				bad = -1;
		}
	}
	if (port != NULL && (!json_is_object(port) ||
			     sy_kind_check_int_or_name(json_object_get(port, "targetPort"), who,
						       "spec.port.targetPort", errs) < 0))
		bad = -1;
	wps = json_is_string(wp) ? json_string_value(wp) : "";
	if ((wp != NULL && !json_is_string(wp)) ||
	    (wps[0] && strcmp(wps, "None") && strcmp(wps, "Subdomain")))
		bad = sy_err_add(errs, "invalid", who, "spec.wildcardPolicy",
				 "must be None or Subdomain");
	else if (strcmp(wps, "Subdomain") == 0 && (!json_is_string(host) || json_string_length(host) == 0))
		bad = sy_err_add(errs, "invalid", who, "spec.wildcardPolicy",
				 "host name not specified for wildcard policy");
	if (tls != NULL && !json_is_null(tls) &&
	    check_tls(tls, json_is_string(path) && json_string_length(path) > 0, who, errs) < 0)
		bad = -1;
	return bad;
}

const struct sy_kind sy_kind_route = {
	.kind = "Route",
	.group = "route.openshift.io",
	.api_versions = (const char *const[]){ "route.openshift.io/v1", "v1", NULL },
	/* Bare "route" is OpenShift's, as the issue on route semantics settles. */
	.names = (const char *const[]){ "route", "routes", "route.route.openshift.io",
					"routes.route.openshift.io", NULL },
	.validate = validate_route,
};
