/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * discovery.k8s.io/v1 EndpointSlice (control/kinds/endpoint_slice.c,
 * control/gen/service_endpoints.c): joined to its Service by the label
 * kubernetes.io/service-name, several slices to a Service, both address
 * families; not-ready and terminating endpoints take no new connections;
 * slices win over the Service's Endpoints; each change is compiled in scope
 * (SY_COMPILE_VERIFY compares every one with a full compile); bad slices
 * are refused naming the field and the value.
 */
#include <setjmp.h>
#include <stdbool.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "test_eal.h"
#include "test_router.h"

#define SLICE(name, svc, type, eps, ports)                                                        \
	"{\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"metadata\":{\"name\":\"" \
	name "\",\"namespace\":\"s\",\"labels\":{\"kubernetes.io/service-name\":\"" svc "\"}},"     \
	"\"addressType\":\"" type "\",\"endpoints\":[" eps "],\"ports\":[" ports "]}"
#define EP(ip) "{\"addresses\":[\"" ip "\"]}"
#define EPC(ip, conds) "{\"addresses\":[\"" ip "\"],\"conditions\":{" conds "}}"
#define HTTP_PORT "{\"name\":\"http\",\"port\":8080}"

/* The endpoints resolve lists for url, space-separated, in pool order. */
static const char *
endpoints_of(struct sy_router *r, const char *url, char *buf, size_t len)
{
	char req[256];
	json_t *rep, *e;
	size_t i;

	snprintf(req, sizeof(req), "{\"op\":\"resolve\",\"url\":\"%s\"}", url);
	rep = ops_call(r, req);
	assert_true(reply_ok(rep));
	buf[0] = '\0';
	json_array_foreach(json_object_get(rep, "endpoints"), i, e) {
		const char *a = json_string_value(json_object_get(e, "address"));
		bool v6 = a != NULL && strchr(a, ':') != NULL;

		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s%s%s:%lld", i ? " " : "",
			 v6 ? "[" : "", a ? a : "?", v6 ? "]" : "",
			 (long long)json_integer_value(json_object_get(e, "port")));
	}
	json_decref(rep);
	return buf;
}

static void
apply_bad(struct sy_router *r, const char *obj, const char *field, const char *msg)
{
	char *req = NULL;

	assert_true(asprintf(&req, "{\"op\":\"apply\",\"objects\":[%s]}", obj) > 0);
	expect_error(ops_call(r, req), "invalid", field, msg);
	free(req);
}

static void
delete_ok(struct sy_router *r, const char *req)
{
	json_t *rep = ops_call(r, req);

	assert_true(reply_ok(rep));
	json_decref(rep);
}

static void
test_slices_serve(void **state)
{
	struct sy_router r;
	char buf[512];

	(void)state;
	setenv("SY_COMPILE_VERIFY", "1", 1);
	router_start(&r);
	ops_apply_ok(&r, T_SVC("s", "web") "," T_EPS("s", "web", "198.18.9.1") ","
		     T_ROUTE("s", "web", "web.test", "web"));
	/* Endpoints alone: they serve */
	assert_string_equal(endpoints_of(&r, "http://web.test/", buf, sizeof(buf)), "198.18.9.1:8080");

	/* a slice for the Service: it wins over the Endpoints */
	ops_apply_ok(&r, SLICE("web-a", "web", "IPv4", EP("198.18.9.10") "," EP("198.18.9.11"),
			       HTTP_PORT));
	assert_string_equal(endpoints_of(&r, "http://web.test/", buf, sizeof(buf)),
			    "198.18.9.10:8080 198.18.9.11:8080");

	/* a second slice, IPv6, with a not-ready, a terminating and an unset
	 * endpoint, and one repeated from the first slice */
	ops_apply_ok(&r, SLICE("web-b", "web", "IPv6",
			       EPC("2001:2::10", "\"ready\":true") ","
			       EPC("2001:2::11", "\"ready\":false") ","
			       EPC("2001:2::12", "\"ready\":false,\"serving\":true,\"terminating\":true") ","
			       EP("2001:2::13"),
			       HTTP_PORT));
	assert_string_equal(endpoints_of(&r, "http://web.test/", buf, sizeof(buf)),
			    "198.18.9.10:8080 198.18.9.11:8080 [2001:2::10]:8080 [2001:2::13]:8080");
	ops_apply_ok(&r, SLICE("web-c", "web", "IPv4", EP("198.18.9.11") "," EP("198.18.9.12"),
			       HTTP_PORT));
	assert_string_equal(endpoints_of(&r, "http://web.test/", buf, sizeof(buf)),
			    "198.18.9.10:8080 198.18.9.11:8080 [2001:2::10]:8080 [2001:2::13]:8080 "
			    "198.18.9.12:8080");

	/* an endpoint of web-a starts terminating: it takes no new connections */
	ops_apply_ok(&r, SLICE("web-a", "web", "IPv4",
			       EPC("198.18.9.10", "\"ready\":false,\"terminating\":true") ","
			       EP("198.18.9.11"),
			       HTTP_PORT));
	assert_string_equal(endpoints_of(&r, "http://web.test/", buf, sizeof(buf)),
			    "198.18.9.11:8080 [2001:2::10]:8080 [2001:2::13]:8080 198.18.9.12:8080");
	/* a slice's change is compiled in scope: its Service's readers only */
	assert_true(r.last_compile_incremental);
	assert_int_equal(r.last_compile_objects, 1);

	/* a slice relabelled to another Service leaves this one (its old
	 * Service's routes are recompiled too) */
	ops_apply_ok(&r, T_SVC("s", "api") "," T_ROUTE("s", "api", "api.test", "api"));
	assert_string_equal(endpoints_of(&r, "http://api.test/", buf, sizeof(buf)), "");
	ops_apply_ok(&r, SLICE("web-c", "api", "IPv4", EP("198.18.9.11") "," EP("198.18.9.12"),
			       HTTP_PORT));
	assert_string_equal(endpoints_of(&r, "http://web.test/", buf, sizeof(buf)),
			    "198.18.9.11:8080 [2001:2::10]:8080 [2001:2::13]:8080");
	assert_string_equal(endpoints_of(&r, "http://api.test/", buf, sizeof(buf)),
			    "198.18.9.11:8080 198.18.9.12:8080");

	/* a route without a port takes every port a slice names; one whose
	 * targetPort is "http" only the slices' ports of that name */
	ops_apply_ok(&r, "{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":"
		     "{\"name\":\"webp\",\"namespace\":\"s\"},\"spec\":{\"host\":\"webp.test\","
		     "\"port\":{\"targetPort\":\"http\"},\"to\":{\"kind\":\"Service\",\"name\":\"web\"}}}");
	ops_apply_ok(&r, SLICE("web-b", "web", "IPv6", EP("2001:2::10"), "{\"name\":\"metrics\",\"port\":9090}"));
	assert_string_equal(endpoints_of(&r, "http://web.test/", buf, sizeof(buf)),
			    "198.18.9.11:8080 [2001:2::10]:9090");
	assert_string_equal(endpoints_of(&r, "http://webp.test/", buf, sizeof(buf)), "198.18.9.11:8080");

	/* the last slices gone: the Endpoints serve again */
	delete_ok(&r, "{\"op\":\"delete\",\"kind\":\"EndpointSlice\",\"namespace\":\"s\",\"name\":\"web-a\"}");
	delete_ok(&r, "{\"op\":\"delete\",\"kind\":\"endpointslices\",\"namespace\":\"s\",\"name\":\"web-b\"}");
	assert_string_equal(endpoints_of(&r, "http://web.test/", buf, sizeof(buf)), "198.18.9.1:8080");
	router_stop(&r);
	unsetenv("SY_COMPILE_VERIFY");
}

static void
test_slices_survive_restart_in_order(void **state)
{
	struct sy_router r;
	char before[512], after[512];

	(void)state;
	router_start(&r);
	/* applied in the reverse order of their names */
	ops_apply_ok(&r, T_SVC("s", "web") "," T_ROUTE("s", "web", "web.test", "web") ","
		     SLICE("web-z", "web", "IPv4", EP("198.18.9.30"), HTTP_PORT) ","
		     SLICE("web-m", "web", "IPv4", EP("198.18.9.20"), HTTP_PORT) ","
		     SLICE("web-a", "web", "IPv4", EP("198.18.9.10"), HTTP_PORT));
	endpoints_of(&r, "http://web.test/", before, sizeof(before));
	assert_string_equal(before, "198.18.9.10:8080 198.18.9.20:8080 198.18.9.30:8080");
	router_stop(&r);
	router_start(&r); /* the journal replayed */
	assert_string_equal(endpoints_of(&r, "http://web.test/", after, sizeof(after)), before);
	router_stop(&r);
}

static void
test_slice_validation(void **state)
{
	struct sy_router r;

	(void)state;
	router_start(&r);
	apply_bad(&r,
		  "{\"apiVersion\":\"discovery.k8s.io/v1\",\"kind\":\"EndpointSlice\",\"metadata\":"
		  "{\"name\":\"x\",\"namespace\":\"s\"},\"endpoints\":[]}",
		  "addressType", "required");
	apply_bad(&r, SLICE("x", "web", "IPv5", EP("198.18.9.1"), HTTP_PORT), "addressType",
		  "IPv4, IPv6, FQDN");
	apply_bad(&r, SLICE("x", "web", "IPv4", EP("2001:2::1"), HTTP_PORT), "endpoints[0].addresses[0]",
		  "\"2001:2::1\"");
	apply_bad(&r, SLICE("x", "web", "IPv6", EP("198.18.9.1"), HTTP_PORT), "endpoints[0].addresses[0]",
		  "IPv6");
	apply_bad(&r, SLICE("x", "web", "IPv4", "{\"addresses\":[]}", HTTP_PORT), "endpoints[0].addresses",
		  "1 to 100");
	apply_bad(&r, SLICE("x", "web", "IPv4", EPC("198.18.9.1", "\"ready\":\"yes\""), HTTP_PORT),
		  "endpoints[0].conditions.ready", "true or false");
	apply_bad(&r, SLICE("x", "web", "IPv4", EP("198.18.9.1"), "{\"port\":70000}"), "ports[0].port",
		  NULL);
	apply_bad(&r, SLICE("x", "Web_1", "IPv4", EP("198.18.9.1"), HTTP_PORT),
		  "metadata.labels.kubernetes.io/service-name", "Service name");
	/* nothing of it was stored */
	{
		json_t *rep = ops_call(&r, "{\"op\":\"get\",\"kind\":\"endpointslice\",\"namespace\":\"s\"}");

		assert_true(reply_ok(rep));
		assert_int_equal(json_array_size(json_object_get(rep, "items")), 0);
		json_decref(rep);
	}
	router_stop(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_slices_serve, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_slices_survive_restart_in_order, fresh_state,
						remove_state),
		cmocka_unit_test_setup_teardown(test_slice_validation, fresh_state, remove_state),
	};

	int rc;

	if (sy_test_eal_init("test_endpoint_slice") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
