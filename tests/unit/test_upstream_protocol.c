/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Contour's upstream-protocol annotations (control/gen/upstream_protocol.c):
 * which Service port a route's target selects, and what protocol the
 * annotations give it; then through the control ops, what `resolve` says
 * and that changing the annotation changes the live generation.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <jansson.h>

#include "gen/upstream_protocol.h"
#include "sy_generation.h"
#include "test_eal.h"
#include "test_router.h"

/* A Service with the given annotations object (JSON text) and two ports:
 * grpc 50051 -> 9000, http 80 -> 8080. */
static json_t *
service(const char *annotations)
{
	char text[1024];
	json_error_t e;
	json_t *o;

	snprintf(text, sizeof(text),
		 "{\"kind\":\"Service\",\"metadata\":{\"name\":\"s\",\"namespace\":\"n\","
		 "\"annotations\":%s},\"spec\":{\"ports\":["
		 "{\"name\":\"grpc\",\"port\":50051,\"targetPort\":9000},"
		 "{\"name\":\"http\",\"port\":80,\"targetPort\":8080}]}}",
		 annotations);
	o = json_loads(text, 0, &e);
	if (o == NULL)
		fail_msg("bad JSON: %s", e.text);
	return o;
}

static uint8_t
proto(const char *annotations, json_t *target)
{
	json_t *svc = service(annotations);
	uint8_t p = sy_upstream_protocol(svc, target);

	json_decref(svc);
	json_decref(target);
	return p;
}

static void
test_none(void **state)
{
	(void)state;
	assert_int_equal(proto("{}", json_string("grpc")), SY_BE_HTTP1);
	assert_int_equal(proto("{\"other\":\"grpc\"}", json_string("grpc")), SY_BE_HTTP1);
	assert_int_equal(sy_upstream_protocol(NULL, NULL), SY_BE_HTTP1);
}

static void
test_h2c_by_name_and_number(void **state)
{
	const char *a = "{\"projectcontour.io/upstream-protocol.h2c\":\"grpc\"}";

	(void)state;
	/* The route names the port, or its number, or its targetPort. */
	assert_int_equal(proto(a, json_string("grpc")), SY_BE_H2C);
	assert_int_equal(proto(a, json_integer(50051)), SY_BE_H2C);
	assert_int_equal(proto(a, json_integer(9000)), SY_BE_H2C);
	/* The other port is not listed. */
	assert_int_equal(proto(a, json_string("http")), SY_BE_HTTP1);
	assert_int_equal(proto(a, json_integer(80)), SY_BE_HTTP1);
	/* Listed by number, with blanks around the items. */
	a = "{\"projectcontour.io/upstream-protocol.h2c\":\" 443 , 50051 \"}";
	assert_int_equal(proto(a, json_string("grpc")), SY_BE_H2C);
	assert_int_equal(proto(a, json_string("http")), SY_BE_HTTP1);
	/* Not a number, not a name: nothing. */
	a = "{\"projectcontour.io/upstream-protocol.h2c\":\"50051x,grpcx\"}";
	assert_int_equal(proto(a, json_string("grpc")), SY_BE_HTTP1);
	/* A port the service does not have selects nothing. */
	a = "{\"projectcontour.io/upstream-protocol.h2c\":\"grpc\"}";
	assert_int_equal(proto(a, json_integer(7)), SY_BE_HTTP1);
}

static void
test_kinds_and_spellings(void **state)
{
	(void)state;
	assert_int_equal(proto("{\"contour.heptio.com/upstream-protocol.h2c\":\"50051\"}",
			       json_string("grpc")),
			 SY_BE_H2C);
	assert_int_equal(proto("{\"projectcontour.io/upstream-protocol.h2\":\"grpc\"}",
			       json_string("grpc")),
			 SY_BE_H2);
	assert_int_equal(proto("{\"contour.heptio.com/upstream-protocol.tls\":\"http,grpc\"}",
			       json_integer(80)),
			 SY_BE_TLS);
	/* One port h2c, the other TLS. */
	assert_int_equal(proto("{\"projectcontour.io/upstream-protocol.h2c\":\"grpc\","
			       "\"projectcontour.io/upstream-protocol.tls\":\"http\"}",
			       json_string("http")),
			 SY_BE_TLS);
	assert_string_equal(sy_be_proto_name(SY_BE_H2C), "h2c");
	assert_string_equal(sy_be_proto_name(SY_BE_HTTP1), "http/1.1");
}

/* A port's appProtocol kubernetes.io/h2c (GEP-1911) speaks h2c; the
 * annotations win over it. */
static void
test_app_protocol(void **state)
{
	json_t *svc = json_loads("{\"kind\":\"Service\",\"metadata\":{\"name\":\"s\"},"
				 "\"spec\":{\"ports\":[{\"name\":\"grpc\",\"port\":50051,"
				 "\"appProtocol\":\"kubernetes.io/h2c\"},{\"name\":\"http\","
				 "\"port\":80,\"appProtocol\":\"http\"}]}}", 0, NULL);
	json_t *grpc = json_string("grpc"), *http = json_string("http");

	(void)state;
	assert_non_null(svc);
	assert_int_equal(sy_upstream_protocol(svc, grpc), SY_BE_H2C);
	assert_int_equal(sy_upstream_protocol(svc, http), SY_BE_HTTP1);
	json_object_set_new(json_object_get(svc, "metadata"), "annotations",
			    json_pack("{s:s}", "projectcontour.io/upstream-protocol.h2", "grpc"));
	assert_int_equal(sy_upstream_protocol(svc, grpc), SY_BE_H2);
	json_decref(grpc);
	json_decref(http);
	json_decref(svc);
}

static void
test_no_target(void **state)
{
	json_error_t e;
	json_t *one = json_loads("{\"metadata\":{\"annotations\":{\"projectcontour.io/"
				 "upstream-protocol.h2c\":\"80\"}},\"spec\":{\"ports\":[{\"port\":80}]}}",
				 0, &e);

	(void)state;
	/* A route without a port: a Service's only port. */
	assert_non_null(one);
	assert_int_equal(sy_upstream_protocol(one, NULL), SY_BE_H2C);
	json_decref(one);
	/* With two ports, none is chosen. */
	assert_int_equal(proto("{\"projectcontour.io/upstream-protocol.h2c\":\"grpc,http\"}", NULL),
			 SY_BE_HTTP1);
}

/* The protocol resolve says the route's service speaks, and the vhost's
 * mode: an h2c service is proxied (an HTTP/1.1 client's bytes must not be
 * spliced to it). */
static char *
resolved_protocol(struct sy_router *r, const char *url, const char *mode)
{
	char req[256];
	json_t *rep, *svc;
	char *p;

	snprintf(req, sizeof(req), "{\"op\":\"resolve\",\"url\":\"%s\"}", url);
	rep = ops_call(r, req);
	svc = json_array_get(json_object_get(json_object_get(rep, "result"), "services"), 0);
	if (svc == NULL)
		svc = json_array_get(json_object_get(rep, "services"), 0);
	if (json_string_value(json_object_get(svc, "protocol")) == NULL) {
		char *d = json_dumps(rep, 0);

		fail_msg("resolve %s: no services[0].protocol: %s", url, d);
	}
	p = strdup(json_string_value(json_object_get(svc, "protocol")));
	assert_string_equal(json_string_value(json_object_get(rep, "mode")), mode);
	json_decref(rep);
	return p;
}

#define GRPC_SVC(ann)                                                                          \
	"{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"g\",\"namespace\":" \
	"\"demo\",\"annotations\":" ann "},\"spec\":{\"ports\":[{\"name\":\"grpc\",\"port\":50051}]}}"

/* Through the ops: resolve names the protocol, and a Service changed alone
 * (an incremental compile) changes what its routes speak. */
static void
test_resolve_and_change(void **state)
{
	struct sy_router r;
	char *p;

	(void)state;
	router_start(&r);
	ops_apply_ok(&r, GRPC_SVC("{\"projectcontour.io/upstream-protocol.h2c\":\"grpc\"}") ","
		     "{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":{\"name\":\"g\","
		     "\"namespace\":\"demo\"},\"subsets\":[{\"addresses\":[{\"ip\":\"198.18.1.10\"}],"
		     "\"ports\":[{\"name\":\"grpc\",\"port\":50051}]}]}," T_ROUTE("demo", "g", "g.apps.test", "g"));
	p = resolved_protocol(&r, "http://g.apps.test/", "proxy");
	assert_string_equal(p, "h2c");
	free(p);
	ops_apply_ok(&r, GRPC_SVC("{}"));
	p = resolved_protocol(&r, "http://g.apps.test/", "splice");
	assert_string_equal(p, "http/1.1");
	free(p);
	ops_apply_ok(&r, GRPC_SVC("{\"contour.heptio.com/upstream-protocol.h2\":\"50051\"}"));
	p = resolved_protocol(&r, "http://g.apps.test/", "proxy");
	assert_string_equal(p, "h2");
	free(p);
	router_stop(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_h2c_by_name_and_number),
		cmocka_unit_test(test_kinds_and_spellings),
		cmocka_unit_test(test_app_protocol),
		cmocka_unit_test(test_no_target),
		cmocka_unit_test_setup_teardown(test_resolve_and_change, fresh_state, remove_state),
	};
	int rc;

	if (sy_test_eal_init("test_upstream_protocol") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
