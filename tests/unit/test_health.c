/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Active health checks, the control thread's side (control/health.c): the
 * state machine against scripted answers (thresholds, the 503 that takes an
 * endpoint out at once, one pass at startup), and the plan: one target per
 * endpoint however many routes check it, the seed's defaults, state carried
 * into a new generation's copies of the endpoint, targets that go with
 * their pools. No data plane: nothing is sent (sy_dp_hc_submit has no
 * workers); results are fed to sy_health_observe directly.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <arpa/inet.h>

#include <cmocka.h>

#include "health.h"
#include "sy_generation.h"
#include "test_eal.h"
#include "test_router.h"

static struct sy_health_target
target(uint32_t unhealthy, uint32_t healthy)
{
	struct sy_health_target t;

	memset(&t, 0, sizeof(t));
	t.unhealthy_threshold = unhealthy;
	t.healthy_threshold = healthy;
	return t;
}

/* A script: 'p' a 200, 'f' a timeout, 'r' refused, '5' a 503, '4' a 404;
 * the state after each step ('u' unknown, 'H' healthy, 'D' unhealthy). */
static void
run_script(uint32_t unhealthy, uint32_t healthy, const char *script, const char *states)
{
	struct sy_health_target t = target(unhealthy, healthy);
	size_t i;

	assert_int_equal(strlen(script), strlen(states));
	for (i = 0; script[i] != '\0'; i++) {
		enum sy_hc_result r = SY_HC_ANSWERED;
		uint16_t status = 200;
		char got;

		switch (script[i]) {
		case 'f': r = SY_HC_TIMEOUT; status = 0; break;
		case 'r': r = SY_HC_REFUSED; status = 0; break;
		case '5': status = 503; break;
		case '4': status = 404; break;
		default: break;
		}
		sy_health_observe(&t, r, status);
		got = t.state == SY_HEALTH_HEALTHY ? 'H' : t.state == SY_HEALTH_UNHEALTHY ? 'D' : 'u';
		if (got != states[i])
			fail_msg("script %s (unhealthy %u, healthy %u): after step %zu '%c' the state is "
				 "'%c', expected '%c'",
				 script, unhealthy, healthy, i + 1, script[i], got, states[i]);
	}
	assert_int_equal(t.checks, strlen(script));
}

static void
test_state_machine(void **state)
{
	(void)state;
	/* Startup: one pass makes a new endpoint healthy. */
	run_script(3, 2, "p", "H");
	/* Failures at startup: unhealthy after the threshold, not before. */
	run_script(3, 2, "ffp", "uuH");
	run_script(3, 2, "fff", "uuD");
	/* Healthy -> unhealthy after 3 in a row; a pass in between resets the run. */
	run_script(3, 2, "pffpfff", "HHHHHHD");
	/* Any failure kind counts: refused, timeout, a non-200 status. */
	run_script(3, 2, "pr4f", "HHHD");
	/* 503 takes it out at once, whatever the threshold. */
	run_script(3, 2, "p5", "HD");
	run_script(10, 2, "5", "D");
	/* Back after the healthy threshold of passes in a row; a failure restarts the count. */
	run_script(3, 2, "p5pfpp", "HDDDDH");
	run_script(2, 3, "pffppfppp", "HHDDDDDDH");
	/* Thresholds of 1. */
	run_script(1, 1, "pfpfp", "HDHDH");
}

/* An IngressRoute over Service s (one endpoint 198.18.1.10:8080) with a health check. */
#define T_IR_HC(name, fqdn, hc)                                                                   \
	"{\"apiVersion\":\"contour.heptio.com/v1beta1\",\"kind\":\"IngressRoute\",\"metadata\":"     \
	"{\"name\":\"" name "\",\"namespace\":\"n\"},\"spec\":{\"virtualhost\":{\"fqdn\":\"" fqdn "\"}," \
	"\"routes\":[{\"match\":\"/\",\"services\":[{\"name\":\"s\",\"port\":80" hc "}]}]}}"

static const struct sy_endpoint *
endpoint_of(struct sy_router *r, const char *host)
{
	struct sy_generation *g = sy_gen_acquire(&r->slot);
	const struct sy_vhost *vh = sy_gen_find_vhost(g, host, strlen(host));

	assert_non_null(vh);
	assert_true(vh->n_rules >= 1);
	assert_non_null(vh->rules[0].pool);
	assert_int_equal(vh->rules[0].pool->n_endpoints, 1);
	return &vh->rules[0].pool->endpoints[0];
}

static void
test_plan(void **state)
{
	struct sy_router r;
	struct sy_health_target *t;
	uint32_t ip = inet_addr("198.18.1.10");
	uint16_t port = htons(8080);

	(void)state;
	router_start(&r);
	ops_apply_ok(&r, T_SVC("n", "s") "," T_EPS("n", "s", "198.18.1.10") ","
		     T_IR_HC("one", "one.test", ",\"healthCheck\":{\"path\":\"/healthz\"}") ","
		     T_IR_HC("two", "two.test",
			     ",\"healthCheck\":{\"path\":\"/healthz\",\"intervalSeconds\":7}") ","
		     T_IR_HC("none", "none.test", ""));
	/* Two routes check the endpoint (in two pools: their checks differ): one target. */
	assert_int_equal(r.health.n, 1);
	t = r.health.t[0];
	assert_int_equal(t->addr.family, AF_INET);
	assert_int_equal(t->addr.v4, ip);
	assert_int_equal(t->port, port);
	assert_string_equal(t->path, "/healthz");
	assert_string_equal(t->host, "contour-envoy-healthcheck");
	assert_int_equal(t->timeout_ms, 2000);
	assert_int_equal(t->unhealthy_threshold, 3);
	assert_int_equal(t->healthy_threshold, 2);
	assert_int_equal(t->n_eps, 2);
	assert_ptr_equal(sy_health_find(&r.health, &t->addr, port), t);
	assert_null(sy_health_find(&r.health, &t->addr, htons(8081)));

	/* Down: both checked copies say so, the unchecked pool's does not. */
	assert_true(sy_health_observe(t, SY_HC_ANSWERED, 503));
	{
		size_t i;

		for (i = 0; i < t->n_eps; i++)
			__atomic_store_n(&t->eps[i].ep->hc_down, 1, __ATOMIC_RELAXED);
	}
	assert_int_equal(endpoint_of(&r, "one.test")->hc_down, 1);
	assert_int_equal(endpoint_of(&r, "two.test")->hc_down, 1);
	assert_int_equal(endpoint_of(&r, "none.test")->hc_down, 0);

	/* A new generation (another route added): the target and its state
	 * stay, the new copies start down. */
	ops_apply_ok(&r, T_IR_HC("three", "three.test",
				 ",\"healthCheck\":{\"path\":\"/healthz\",\"host\":\"hc.example\"}"));
	assert_int_equal(r.health.n, 1);
	assert_ptr_equal(r.health.t[0], t);
	assert_int_equal(t->state, SY_HEALTH_UNHEALTHY);
	assert_int_equal(t->n_eps, 3);
	assert_int_equal(endpoint_of(&r, "three.test")->hc_down, 1);
	assert_int_equal(endpoint_of(&r, "one.test")->hc_down, 1);

	/* No route checks it any more: the target goes. */
	{
		json_t *rep;

		rep = ops_call(&r, "{\"op\":\"delete\",\"kind\":\"IngressRoute\",\"namespace\":\"n\",\"name\":\"one\"}");
		json_decref(rep);
		rep = ops_call(&r, "{\"op\":\"delete\",\"kind\":\"IngressRoute\",\"namespace\":\"n\",\"name\":\"two\"}");
		json_decref(rep);
		rep = ops_call(&r, "{\"op\":\"delete\",\"kind\":\"IngressRoute\",\"namespace\":\"n\",\"name\":\"three\"}");
		json_decref(rep);
	}
	assert_int_equal(r.health.n, 0);
	router_stop(&r);
}

/* A refused apply whose error names a field ending in `field` and says `msg_part`. */
static void
expect_field_error(json_t *rep, const char *field, const char *msg_part)
{
	const json_t *e = json_object_get(rep, "error");
	const char *f = json_string_value(json_object_get(e, "field"));
	char *dump = json_dumps(rep, 0);

	if (reply_ok(rep) || f == NULL || strlen(f) < strlen(field) ||
	    strcmp(f + strlen(f) - strlen(field), field) != 0)
		fail_msg("expected an error on ...%s, got %s", field, dump);
	free(dump);
	expect_error(rep, "invalid", f, msg_part);
}

/* Bad health check blocks get clear errors naming the field. */
static void
test_validation(void **state)
{
	struct sy_router r;
	json_t *rep;

	(void)state;
	router_start(&r);
	rep = ops_call(&r, "{\"op\":\"apply\",\"objects\":[" T_IR_HC(
				   "bad", "bad.test",
				   ",\"healthCheck\":{\"path\":\"/a b\"}") "]}");
	expect_field_error(rep, "healthCheck.path", "without spaces");
	rep = ops_call(&r, "{\"op\":\"apply\",\"objects\":[" T_IR_HC(
				   "bad", "bad.test",
				   ",\"healthCheck\":{\"path\":\"/\",\"host\":7}") "]}");
	expect_field_error(rep, "healthCheck.host", "host name");
	router_stop(&r);
}

int
main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_state_machine),
		cmocka_unit_test_setup_teardown(test_plan, fresh_state, remove_state),
		cmocka_unit_test_setup_teardown(test_validation, fresh_state, remove_state),
	};

	int rc;

	if (sy_test_eal_init("test_health") < 0) {
		fprintf(stderr, "EAL init failed\n");
		return 1;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	sy_test_eal_fini();
	return rc;
}
