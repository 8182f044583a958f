/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A control plane without a data plane, for unit tests of the ops: a struct
 * sy_router on a fresh state directory, driven through sy_ops_handle. Include
 * after cmocka.h; the test's setup/teardown are fresh_state/remove_state.
 * (Marked unused: each test uses the helpers it needs.)
 */
#ifndef SY_TEST_ROUTER_H
#define SY_TEST_ROUTER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen/compile.h"
#include "router.h"

/* Objects as tests apply them. */
#define T_SVC(ns, name) \
	"{\"apiVersion\":\"v1\",\"kind\":\"Service\",\"metadata\":{\"name\":\"" name "\",\"namespace\":\"" ns "\"}," \
	"\"spec\":{\"ports\":[{\"name\":\"http\",\"port\":80}]}}"
#define T_EPS(ns, name, ip) \
	"{\"apiVersion\":\"v1\",\"kind\":\"Endpoints\",\"metadata\":{\"name\":\"" name "\",\"namespace\":\"" ns "\"}," \
	"\"subsets\":[{\"addresses\":[{\"ip\":\"" ip "\"}],\"ports\":[{\"name\":\"http\",\"port\":8080}]}]}"
#define T_ROUTE(ns, name, host, svc) \
	"{\"apiVersion\":\"route.openshift.io/v1\",\"kind\":\"Route\",\"metadata\":{\"name\":\"" name "\"," \
	"\"namespace\":\"" ns "\"},\"spec\":{\"host\":\"" host "\",\"to\":{\"kind\":\"Service\",\"name\":\"" svc "\"}}}"

static char state_dir[64];

__attribute__((unused)) static void
gen_free(struct sy_generation *g)
{
	sy_generation_free(g);
}

/* Start a router with this config (JSON) on the current state directory. */
__attribute__((unused)) static void
router_start_with(struct sy_router *r, const char *config)
{
	char err[256];

	memset(r, 0, sizeof(*r));
	if (sy_config_parse(config, &r->cfg, err, sizeof(err)) != 0)
		fail_msg("config: %s", err);
	snprintf(r->cfg.state_dir, sizeof(r->cfg.state_dir), "%s", state_dir);
	assert_int_equal(sy_gen_slot_init(&r->slot, 1, gen_free), 0);
	if (sy_router_load(r, err, sizeof(err)) != 0)
		fail_msg("load: %s", err);
}

__attribute__((unused)) static void
router_start(struct sy_router *r)
{
	router_start_with(r, "{\"routing_subdomain\": \"apps.test\"}");
}

__attribute__((unused)) static void
router_stop(struct sy_router *r)
{
	sy_router_fini(r);
	sy_gen_slot_fini(&r->slot);
	sy_config_free(&r->cfg);
}

__attribute__((unused)) static int
fresh_state(void **state)
{
	snprintf(state_dir, sizeof(state_dir), "/tmp/sy-test-router-XXXXXX");
	return mkdtemp(state_dir) == NULL ? -1 : 0;
}

__attribute__((unused)) static int
remove_state(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", state_dir);
	return system(cmd) == 0 ? 0 : -1;
}

__attribute__((unused)) static bool
reply_ok(const json_t *reply)
{
	return json_is_true(json_object_get(reply, "ok"));
}

/* Assert a failed reply whose first error has this code (and field, and a
 * message containing msg_part); takes the reply. */
__attribute__((unused)) static void
expect_error(json_t *reply, const char *code, const char *field, const char *msg_part)
{
	const json_t *e = json_object_get(reply, "error");
	char *dump = json_dumps(reply, 0);

	if (reply_ok(reply) || !json_is_object(e))
		fail_msg("expected error %s, got %s", code, dump);
	if (strcmp(json_string_value(json_object_get(e, "code")), code) != 0)
		fail_msg("expected code %s, got %s", code, dump);
	if (field && (!json_is_string(json_object_get(e, "field")) ||
		      strcmp(json_string_value(json_object_get(e, "field")), field) != 0))
		fail_msg("expected field %s, got %s", field, dump);
	if (msg_part && strstr(json_string_value(json_object_get(e, "message")), msg_part) == NULL)
		fail_msg("expected message with \"%s\", got %s", msg_part, dump);
	free(dump);
	json_decref(reply);
}

/* One request through sy_ops_handle; the reply is the caller's. */
__attribute__((unused)) static json_t *
ops_call(struct sy_router *r, const char *req_text)
{
	json_error_t jerr;
	json_t *req = json_loads(req_text, 0, &jerr);
	json_t *reply;

	if (req == NULL)
		fail_msg("bad test request: %s", jerr.text);
	reply = sy_ops_handle(r, req);
	json_decref(req);
	return reply;
}

/* Apply a JSON list body ("{...},{...}"); fail the test with the reply if
 * it is refused. */
__attribute__((unused)) static void
ops_apply_ok(struct sy_router *r, const char *objects)
{
	char *req = NULL;
	json_t *rep;

	assert_true(asprintf(&req, "{\"op\":\"apply\",\"objects\":[%s]}", objects) > 0);
	rep = ops_call(r, req);
	if (!reply_ok(rep)) {
		char *d = json_dumps(rep, 0);

		fail_msg("apply failed: %s", d);
	}
	json_decref(rep);
	free(req);
}

/* The "object" resolve names for url, or "(none)". */
__attribute__((unused)) static const char *
ops_resolve_object(struct sy_router *r, const char *url, char *buf, size_t len)
{
	char req[512];
	json_t *rep;

	snprintf(req, sizeof(req), "{\"op\":\"resolve\",\"url\":\"%s\"}", url);
	rep = ops_call(r, req);
	assert_true(reply_ok(rep));
	snprintf(buf, len, "%s", json_is_string(json_object_get(rep, "object"))
					 ? json_string_value(json_object_get(rep, "object"))
					 : "(none)");
	json_decref(rep);
	return buf;
}

#endif
