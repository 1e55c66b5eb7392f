/* SPDX-License-Identifier: MIT */
/* Unit tests for campaign YAML: targets (several, simulated), their values and refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "campaign.h"
#include "xalloc.h"
#include "testlib.h"

static void test_sim_target(void **state)
{
	struct campaign *c =
	    testlib_campaign_ok("campaign: t\n"
	                        "agents: {local: 1}\n"
	                        "target: {sim: {servers: 4, service_time: 200us, jitter: 10%, "
	                        "stall: {after: 1000, for: 100ms}}}\n"
	                        "workloads: [{name: a, load: {steps: [1k]}}]\n");

	assert_true(c->targets[0].sim.enabled);
	assert_null(c->targets[0].path);
	assert_int_equal(c->targets[0].sim.servers, 4);
	assert_int_equal(c->targets[0].sim.service_ns, 200000);
	assert_int_equal(c->targets[0].sim.jitter_pct, 10);
	assert_int_equal(c->targets[0].sim.stall_after_ops, 1000);
	assert_int_equal(c->targets[0].sim.stall_ns, 100000000);
	assert_int_equal(c->targets[0].size, 1u << 30);
	campaign_free(c);
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "target: {path: /x, sim: {service_time: 1ms}}\n"
	                       "workloads: [{name: a, load: {steps: [1k]}}]\n",
	                       "test.yaml:3:9: target: use either 'path' or 'sim', not both");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "target: {sim: {servers: 2}}\n"
	                       "workloads: [{name: a, load: {steps: [1k]}}]\n",
	                       "test.yaml:3:15: target.sim is missing 'service_time'");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "target: {sim: {service_time: 1ms, jitter: 150%}}\n"
	                       "workloads: [{name: a, load: {steps: [1k]}}]\n",
	                       "test.yaml:3:43: target.sim.jitter: expected a percentage 0..100");
}

/* targets: a pair per (workload, target), named TEST@TARGET, with the target's defaults. */
static void test_targets(void **state)
{
	(void)state;
	struct campaign *c = testlib_campaign_ok(
	    "campaign: t\n"
	    "agents: {select: {count: 3}}\n"
	    "targets:\n"
	    "  - {name: fast, path: /mnt/fast, size: 1GiB, select: {labels: {class: fast}}}\n"
	    "  - {name: slow, path: /mnt/slow, size: 8KiB, direct: false}\n"
	    "  - {name: sim.1, sim: {servers: 2, service_time: 3ms}}\n"
	    "workloads:\n"
	    "  - {name: r, load: {max: true}}\n"
	    "  - {name: w, rw: write, direct: true, targets: [slow, fast], load: {max: true}}\n"
	    "  - {name: m, block_size: [4KiB, 8KiB], targets: sim.1, load: {max: true}}\n");

	assert_true(c->multi_target);
	assert_int_equal(c->ntargets, 3);
	assert_int_equal(c->nworkloads, 7);
	assert_string_equal(c->workloads[0].name, "r@fast");
	assert_string_equal(c->workloads[1].name, "r@slow");
	assert_string_equal(c->workloads[2].name, "r@sim.1");
	/* a workload's targets in the order it names them */
	assert_string_equal(c->workloads[3].name, "w@slow");
	assert_string_equal(c->workloads[4].name, "w@fast");
	assert_string_equal(c->workloads[5].name, "m-4k@sim.1");
	assert_string_equal(c->workloads[6].test, "m-8k");
	assert_string_equal(c->workloads[4].test, "w");
	assert_int_equal(c->workloads[4].target, 0);
	/* the target's direct is the default; the workload's own wins */
	assert_true(c->workloads[0].io.direct);
	assert_false(c->workloads[1].io.direct);
	assert_true(c->workloads[3].io.direct);
	assert_int_equal(c->targets[1].size, 8192);
	assert_int_equal(c->targets[2].size, 1ull << 30);
	assert_int_equal(c->targets[2].sim.service_ns, 3000000);
	assert_int_equal(c->targets[0].nlabels, 1);
	assert_string_equal(c->targets[0].labels[0].value, "fast");
	assert_int_equal(campaign_target_of(c, &c->workloads[2])->sim.servers, 2);
	campaign_free(c);

	/* target: keeps the workload's name as it is, one unnamed target */
	c = testlib_campaign_ok(TEST_HEAD "workloads: [{name: a, load: {max: true}}]\n");
	assert_false(c->multi_target);
	assert_int_equal(c->ntargets, 1);
	assert_null(c->targets[0].name);
	assert_string_equal(c->workloads[0].name, "a");
	assert_string_equal(c->workloads[0].test, "a");
	campaign_free(c);
}

static void test_targets_refused(void **state)
{
	(void)state;
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "targets:\n"
	                       "  - {name: a, sim: {servers: 0, service_time: 1ms}}\n"
	                       "workloads: [{name: r, load: {max: true}}]\n",
	                       "test.yaml:4:30: targets.a.sim.servers:");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "targets:\n"
	                       "  - {name: a, path: rel, size: 1GiB}\n"
	                       "workloads: [{name: r, load: {max: true}}]\n",
	                       "test.yaml:4:21: targets.a.path: expected an absolute path");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "targets: {name: a, path: /x, size: 1GiB}\n"
	                       "workloads: [{name: r, load: {max: true}}]\n",
	                       "test.yaml:3:10: targets: expected a list of 1 to 64 named targets");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "targets:\n"
	                       "  - {path: /x, size: 1GiB}\n"
	                       "workloads: [{name: r, load: {max: true}}]\n",
	                       "test.yaml:4:5: target 1 of targets is missing 'name'");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "targets:\n"
	                       "  - {name: a, path: /x, size: 1GiB, select: {count: 2}}\n"
	                       "workloads: [{name: r, load: {max: true}}]\n",
	                       "test.yaml:4:46: unknown key 'count' in targets.a.select");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "workloads: [{name: r, load: {max: true}}]\n",
	                       "test.yaml:1:1: campaign is missing 'target' (or 'targets'");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "targets:\n"
	                       "  - {name: a, path: /x, size: 1GiB}\n"
	                       "  - {name: b, path: /y, size: 1GiB}\n"
	                       "workloads: [{name: r, targets: [b, b], load: {max: true}}]\n",
	                       "test.yaml:6:36: targets: workload 'r' names target 'b' twice");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_sim_target),
	    cmocka_unit_test(test_targets),
	    cmocka_unit_test(test_targets_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
