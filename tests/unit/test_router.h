/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A control plane without a data plane, for unit tests of the ops: a struct
 * sy_router on a fresh state directory, driven through sy_ops_handle. Include
 * after cmocka.h; the test's setup/teardown are fresh_state/remove_state.
 */
#ifndef SY_TEST_ROUTER_H
#define SY_TEST_ROUTER_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "router.h"

static char state_dir[64];

static void
gen_free(struct sy_generation *g)
{
	sy_generation_free(g);
}

/* Start a router with this config (JSON) on the current state directory. */
static void
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

static void
router_start(struct sy_router *r)
{
	router_start_with(r, "{\"routing_subdomain\": \"apps.test\"}");
}

static void
router_stop(struct sy_router *r)
{
	sy_router_fini(r);
	sy_gen_slot_fini(&r->slot);
	sy_config_free(&r->cfg);
}

static int
fresh_state(void **state)
{
	snprintf(state_dir, sizeof(state_dir), "/tmp/sy-test-router-XXXXXX");
	return mkdtemp(state_dir) == NULL ? -1 : 0;
}

static int
remove_state(void **state)
{
	char cmd[128];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", state_dir);
	return system(cmd) == 0 ? 0 : -1;
}

#endif
