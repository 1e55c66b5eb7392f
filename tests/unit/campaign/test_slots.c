/* SPDX-License-Identifier: MIT */
/* Unit tests for the queue depth sized from the load when a campaign gives none. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "campaign.h"
#include "slots.h"
#include "testlib.h"

/* 2 agents x 2 workers, a ramp to 4000 x 2^6 = 256,000 ops/s: 64,000 a worker at 1 ms. */
static void test_ramp_sized(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    "campaign: t\nagents: {local: 2}\ntarget: {path: /tmp/x, size: 1MiB}\n"
	    "workers: 2\nworkloads:\n"
	    "  - {name: a, rw: randread, block_size: 8KiB,\n"
	    "     load: {ramp: {start: 4000, factor: 2, max_steps: 7}}}\n");

	(void)state;
	assert_true(c->workloads[0].qd_sized);
	/* 2 x 64,000 ops/s x 1 ms + 16 */
	assert_int_equal(c->workloads[0].io.queue_depth, 2 * 64 + SLOTS_MIN);
	campaign_free(c);
}

/* A depth given is the workload's, at the top level, in the workload or as a matrix. */
static void test_given_kept(void **state)
{
	struct campaign *c =
	    testlib_campaign_ok(TEST_HEAD "queue_depth: 8\nworkloads:\n"
	                                  "  - {name: a, load: {steps: [100000]}}\n"
	                                  "  - {name: b, queue_depth: [4, 32],\n"
	                                  "     load: {steps: [100000]}}\n");

	(void)state;
	assert_int_equal(c->nworkloads, 3);
	assert_false(c->workloads[0].qd_sized);
	assert_int_equal(c->workloads[0].io.queue_depth, 8);
	assert_int_equal(c->workloads[1].io.queue_depth, 4);
	assert_int_equal(c->workloads[2].io.queue_depth, 32);
	assert_false(c->workloads[2].qd_sized);
	campaign_free(c);
}

/* Closed loop (max, curve, fixed work): the depth is the concurrency, 16 as always. */
static void test_closed_loop(void **state)
{
	struct campaign *c =
	    testlib_campaign_ok(TEST_HEAD "workloads:\n"
	                                  "  - {name: a, load: {max: true}}\n"
	                                  "  - {name: b, load: {curve: [50%, 100%]}}\n"
	                                  "  - {name: c, load: {steps: [1000, max]}}\n"
	                                  "  - {name: d, load: {work: {ops: 100}}}\n");

	(void)state;
	for (size_t i = 0; i < c->nworkloads; i++) {
		assert_false(c->workloads[i].qd_sized);
		assert_int_equal(c->workloads[i].io.queue_depth, SLOTS_MIN);
	}
	campaign_free(c);
}

/* The caps: the agent's default, the local agents' own, the buffers' memory, the SLO. */
static void test_caps(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    "campaign: t\nagents: {local: 1}\ntarget: {path: /tmp/x, size: 64MiB}\n"
	    "slo: {latency: 5ms}\nworkloads:\n"
	    "  - {name: a, load: {steps: [10000000]}}\n"
	    "  - {name: b, block_size: 16MiB, load: {steps: [100000]}}\n"
	    "  - {name: c, load: {steps: [1000]}}\n");

	(void)state;
	assert_int_equal(c->workloads[0].io.queue_depth, SLOTS_MAX);
	/* 256 MiB of 16 MiB buffers */
	assert_int_equal(c->workloads[1].io.queue_depth, 16);
	/* 2 x 1,000 ops/s x 5 ms + 16 */
	assert_int_equal(c->workloads[2].io.queue_depth, 10 + SLOTS_MIN);
	campaign_free(c);
	c = testlib_campaign_ok("campaign: t\nagents: {local: 1, caps: {queue_depth: 40}}\n"
	                        "target: {path: /tmp/x, size: 1MiB}\nworkloads:\n"
	                        "  - {name: a, load: {steps: [100000]}}\n");
	assert_int_equal(c->workloads[0].io.queue_depth, 40);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_ramp_sized),
	    cmocka_unit_test(test_given_kept),
	    cmocka_unit_test(test_closed_loop),
	    cmocka_unit_test(test_caps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
