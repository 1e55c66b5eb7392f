/* SPDX-License-Identifier: MIT */
/* A campaign's workload through the wire to the worker pool: what the YAML says, the pool gets. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "clock.h"
#include "frame.h"
#include "params.h"
#include "prepare.h"
#include "caps.h"
#include "testlib.h"

/* The campaign takes no clone name the agent could not hold. */
_Static_assert(ACCESS_CLONE_MAX == DATAGEN_CLONE_MAX, "clone name limits");

static struct params_caps test_caps = {1024, 1024, 1u << 30, UINT64_MAX};

/* Build the Prepare, send it through the wire encoding, read it back as pool parameters. */
static void test_prepare_roundtrip(const struct campaign *c, size_t w, struct io_plan *pp,
                                   struct engine_sim_params *sim)
{
	Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *back;
	struct prepare_msg m;
	struct error err;
	size_t len;
	uint8_t *buf;

	prepare_build(&m, c, w);
	prepare_for_agent(&m, 3, 5); /* the fourth of five agents */
	env.body_case = IOCURVE__ENVELOPE__BODY_PREPARE;
	env.prepare = &m.p;
	len = iocurve__envelope__get_packed_size(&env);
	buf = malloc(len);
	iocurve__envelope__pack(&env, buf);
	back = iocurve__envelope__unpack(NULL, len, buf);
	assert_non_null(back);
	assert_int_equal(back->prepare->agent_index, 3);
	assert_string_equal(back->prepare->workload, c->workloads[w].name);
	if (params_from_prepare(back->prepare, "agent1", &test_caps, pp, sim, &err) < 0)
		fail_msg("refused: %s", err.msg);
	/* The pool keeps no pointer into the message but file_prefix and sim. */
	iocurve__envelope__free_unpacked(back, NULL);
	free(buf);
}

static void test_prepare_real_target(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    "campaign: t\n"
	    "agents: {local: 1}\n"
	    "target: {path: /tmp/x, size: 64MiB}\n"
	    "workloads:\n"
	    "  - {name: a, rw: randrw, read_pct: 70, block_size: 8KiB, workers: 3, queue_depth: "
	    "5,\n"
	    "     random: zipf:1.1, arrivals: poisson, data: {compress: 50, dedupe: 20},\n"
	    "     align: 4KiB, working_set: 16MiB, wake_slack: 100us, direct: false,\n"
	    "     timing: precise,\n"
	    "     load: {steps: [1k]}}\n"
	    "  - {name: b, rw: write, block_size: 1MiB, random: hotspot:10/90, load: {steps: "
	    "[1k]}}\n");
	struct engine_sim_params sim = {0};
	struct io_plan pp;

	test_prepare_roundtrip(c, 0, &pp, &sim);
	assert_int_equal(pp.workload_index, 0);
	assert_string_equal(pp.file_prefix, "agent1");
	assert_int_equal(pp.io.rw, RW_RANDRW);
	assert_int_equal(pp.io.block_size, 8192);
	assert_int_equal(pp.io.workers, 3);
	assert_int_equal(pp.io.queue_depth, 5);
	assert_int_equal(pp.file_size, 64u << 20);
	assert_int_equal(pp.io.working_set, 16u << 20);
	assert_false(pp.io.direct);
	assert_int_equal(pp.io.read_pct, 70);
	assert_int_equal(pp.io.align, 4096);
	assert_int_equal(pp.io.dist, PATTERN_ZIPF);
	assert_true(pp.io.zipf_theta > 1.09 && pp.io.zipf_theta < 1.11);
	assert_true(pp.io.poisson);
	assert_int_equal(pp.io.wake_slack_ns, 100000);
	assert_false(pp.io.efficient); /* precise, as asked */
	/* Workers 9..11 of the fleet's 15: their uniform arrivals start 9/15.. of a period in. */
	assert_int_equal(pp.phase_base, 9);
	assert_int_equal(pp.phase_total, 15);
	assert_int_equal(pp.io.compress_pct, 50);
	assert_int_equal(pp.io.dedupe_pct, 20);
	assert_null(pp.sim);

	test_prepare_roundtrip(c, 1, &pp, &sim);
	assert_int_equal(pp.workload_index, 1);
	assert_int_equal(pp.io.rw, RW_WRITE);
	assert_int_equal(pp.io.dist, PATTERN_HOTSPOT);
	assert_true(pp.io.hot_set_pct == 10 && pp.io.hot_ops_pct == 90);
	assert_false(pp.io.poisson);
	/* the default: a worker sleeps in the ring until a completion or its next due time */
	assert_true(pp.io.efficient);
	campaign_free(c);
}

static void test_prepare_sim_target(void **state)
{
	struct campaign *c =
	    testlib_campaign_ok("campaign: t\n"
	                        "agents: {local: 1}\n"
	                        "target: {sim: {servers: 4, service_time: 200us, jitter: 10%, "
	                        "service: exponential, "
	                        "stall: {after: 1000, for: 100ms}}}\n"
	                        "workloads: [{name: a, rw: randread, load: {steps: [1k]}}]\n");
	struct engine_sim_params sim = {0};
	struct io_plan pp;

	test_prepare_roundtrip(c, 0, &pp, &sim);
	assert_ptr_equal(pp.sim, &sim);
	assert_int_equal(sim.servers, 4);
	assert_int_equal(sim.service_ns, 200000);
	assert_int_equal(sim.jitter_pct, 10);
	assert_true(sim.exponential);
	assert_int_equal(sim.stall_after_ops, 1000);
	assert_int_equal(sim.stall_ns, 100000000);
	assert_int_equal(pp.io.dist, PATTERN_UNIFORM);
	campaign_free(c);
}

/* A fleet-wide rate_limit reaches each worker as its share: 5 agents x 2 workers. */
static void test_prepare_rate_limit(void **state)
{
	struct campaign *c =
	    testlib_campaign_ok("campaign: t\n"
	                        "agents: {local: 1}\n"
	                        "target: {sim: {servers: 8, service_time: 100us, rate_limit: 5k}}\n"
	                        "workers: 2\n"
	                        "workloads: [{name: a, rw: randread, load: {steps: [1k]}}]\n");
	struct engine_sim_params sim = {0};
	struct io_plan pp;
	struct error err;

	(void)state;
	assert_true(c->targets[0].sim.rate_limit == 5000);
	test_prepare_roundtrip(c, 0, &pp, &sim);
	assert_true(fabs(sim.rate_limit - 500) < 1e-9); /* 5000 / (5 agents x 2 workers) */
	/* an agent that would ignore it is refused, one that has it is not */
	assert_int_equal(prepare_check_caps(c, CAPS_OURS, "a1", "0.3.0", &err), 0);
	assert_int_equal(prepare_check_caps(c,
	                                    IOCURVE__CAPABILITY__CAPABILITY_WAKES |
	                                        IOCURVE__CAPABILITY__CAPABILITY_HEALTH,
	                                    "old", "0.2.0", &err),
	                 -1);
	assert_string_equal(err.msg,
	                    "agent old (0.2.0) lacks capability 'rate_limit': it cannot simulate "
	                    "target.sim.rate_limit and would run the device uncapped; run an agent "
	                    "of this release, or leave rate_limit out");
	c->targets[0].sim.rate_limit = 0;
	assert_int_equal(prepare_check_caps(c, 0, "old", "0.1.0", &err), 0);
	campaign_free(c);
}

static void test_prepare_invalid(void **state)
{
	Iocurve__Prepare p = IOCURVE__PREPARE__INIT;
	struct engine_sim_params sim;
	struct io_plan pp;
	struct error err;

	p.workload = "w";
	p.workers = 1;
	p.block_size = 4096;
	p.queue_depth = 1;
	p.rw = (Iocurve__RwMode)RW_MODE_COUNT;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg, "workload w: Prepare field rw 6 is out of its bounds (0..5)");
	p.rw = IOCURVE__RW_MODE__RW_MODE_READ;
	p.random = (Iocurve__RandomDist)3;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	p.random = IOCURVE__RANDOM_DIST__RANDOM_DIST_UNIFORM;
	p.read_pct = 101;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg,
	                    "workload w: Prepare field read_pct 101 is out of its bounds (0..100)");
	p.read_pct = 100;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), 0);
	/* a bool's word travels as an int: the value sent is the one named */
	p.timing = (Iocurve__Timing)2;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg,
	                    "workload w: Prepare field timing 2 is out of its bounds (0..1)");
	p.timing = IOCURVE__TIMING__TIMING_PRECISE;
	p.block_size = 1000;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg,
	                    "workload w: Prepare field block_size 1000 is out of its bounds "
	                    "(1..16777216, a multiple of 512)");
}

/* The working set lies within the file: past its end the workers would grow it. */
static void test_prepare_working_set(void **state)
{
	Iocurve__Prepare p = IOCURVE__PREPARE__INIT;
	struct engine_sim_params sim;
	struct io_plan pp;
	struct error err;

	(void)state;
	p.workload = "w";
	p.workers = 1;
	p.block_size = 4096;
	p.queue_depth = 1;
	p.file_size = 1 << 20;
	p.working_set = (1 << 20) + 4096;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), 0);
	assert_int_equal(params_check_target(&pp, 0, &err), -1);
	assert_string_equal(err.msg,
	                    "Prepare field working_set 1052672 is over its bound: file_size "
	                    "1048576 (the working set lies within each worker's file)");
	p.working_set = 1 << 20;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), 0);
	assert_int_equal(params_check_target(&pp, 0, &err), 0);
	/* a device's file_size is its bound */
	pp.device = true;
	assert_int_equal(params_check_target(&pp, 4096, &err), -1);
}

/* A step's fields: the interval's floor and ceiling, its count, sums that wrap. */
static void test_prepare_step_bounds(void **state)
{
	Iocurve__StartStep s = IOCURVE__START_STEP__INIT;
	double rates[1] = {0};
	uint64_t now = 1000ull * NSEC_PER_SEC;
	struct error err;

	(void)state;
	s.n_worker_rate = 1;
	s.worker_rate = rates;
	s.interval_ns = SETTING_MIN_INTERVAL_NS;
	s.measure_ns = (uint64_t)SETTING_MAX_STEP_INTERVALS * s.interval_ns;
	assert_int_equal(params_check_step(&s, 1, now, now, &err), 0);
	s.measure_ns += s.interval_ns;
	assert_int_equal(params_check_step(&s, 1, now, now, &err), -1);
	s.measure_ns = s.interval_ns;
	s.interval_ns = 1;
	s.measure_ns = 1;
	assert_int_equal(params_check_step(&s, 1, now, now, &err), -1);
	assert_non_null(strstr(err.msg, "StartStep field interval_ns 1 is out of its bounds"));
	s.interval_ns = s.measure_ns = 100 * NSEC_PER_MSEC;
	s.warmup_ns = UINT64_MAX - 99 * NSEC_PER_MSEC; /* wraps to one interval */
	assert_int_equal(params_check_step(&s, 1, now, now, &err), -1);
	s.warmup_ns = 0;
	assert_int_equal(params_check_step(&s, 2, now, now, &err), -1);
	assert_int_equal(params_check_step(&s, 1, now, now + 61 * NSEC_PER_SEC, &err), -1);
	rates[0] = -1;
	assert_int_equal(params_check_step(&s, 1, now, now, &err), -1);
}

/* The agent's own caps hold whatever the plan says, and the refusal names field, value, cap. */
static void test_prepare_caps(void **state)
{
	Iocurve__Prepare p = IOCURVE__PREPARE__INIT;
	struct params_caps caps;
	struct engine_sim_params sim = {0};
	struct io_plan pp;
	struct error err;

	(void)state;
	params_caps_default(&caps);
	assert_true(caps.workers >= PARAMS_WORKERS_PER_CPU &&
	            caps.workers % PARAMS_WORKERS_PER_CPU == 0);
	assert_int_equal(caps.queue_depth, 1024);
	assert_int_equal(caps.block_size, 16u << 20);
	assert_true(caps.file_size == 1ull << 40);
	caps.workers = 8;
	p.workload = "w";
	p.workers = 8;
	p.block_size = 16u << 20;
	p.queue_depth = 1024;
	p.file_size = 1ull << 40;
	assert_int_equal(params_from_prepare(&p, "a", &caps, &pp, &sim, &err), 0);
	p.workers = 9;
	assert_int_equal(params_from_prepare(&p, "a", &caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg, "workload w: workers 9 is over this agent's cap of 8 "
	                             "(--max-workers)");
	p.workers = 8;
	p.queue_depth = 1025;
	assert_int_equal(params_from_prepare(&p, "a", &caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg, "workload w: queue_depth 1025 is over this agent's cap of "
	                             "1024 (--max-queue-depth)");
	p.queue_depth = 1;
	p.block_size = (16u << 20) + 512;
	assert_int_equal(params_from_prepare(&p, "a", &caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg, "workload w: block_size 16777728 is over this agent's cap of "
	                             "16777216 (--max-block-size)");
	p.block_size = 4096;
	p.file_size = (1ull << 40) + 1;
	assert_int_equal(params_from_prepare(&p, "a", &caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg, "workload w: file_size 1099511627777 is over this agent's cap "
	                             "of 1099511627776 (--max-file-size)");
}

/*
 * background: true travels in Prepare field 140 and reaches the agent's plan; an agent
 * without capability 'background' is refused by name and version (it would stop the
 * background's workers at the next workload's Prepare), one with it is not.
 */
static void test_prepare_background(void **state)
{
	struct campaign *c = testlib_campaign_ok("campaign: t\n"
	                                         "agents: {local: 1}\n"
	                                         "target: {sim: {servers: 4, service_time: 1ms}}\n"
	                                         "workloads:\n"
	                                         "  - {name: backup, rw: write, background: true, "
	                                         "load: {steps: [1k]}}\n"
	                                         "  - {name: reads, rw: randread, load: {steps: "
	                                         "[1k]}}\n");
	struct engine_sim_params sim = {0};
	struct io_plan pp;
	struct error err;

	(void)state;
	test_prepare_roundtrip(c, 0, &pp, &sim);
	assert_true(pp.io.background);
	test_prepare_roundtrip(c, 1, &pp, &sim);
	assert_false(pp.io.background);
	assert_int_equal(
	    prepare_check_caps(c, IOCURVE__CAPABILITY__CAPABILITY_BACKGROUND, "a1", "0.3.0", &err),
	    0);
	assert_int_equal(
	    prepare_check_caps(c, IOCURVE__CAPABILITY__CAPABILITY_WAKES, "old", "0.1.0", &err), -1);
	assert_string_equal(err.msg,
	                    "agent old (0.1.0) lacks capability 'background': workload 'backup' "
	                    "is a background (background: true), whose workers it would stop at "
	                    "the next workload's Prepare; run an agent of this release, or leave "
	                    "background out");
	campaign_free(c);
}

/*
 * data.clone travels in Prepare field 90 and reaches the layout's data config; the
 * agent refuses a clone name the campaign would not take and a clone written to
 * (a coordinator that let one through); an agent without capability 'clone' is
 * refused by name and version, one with it, or a campaign without a clone, is not.
 */
static void test_prepare_clone(void **state)
{
	struct campaign *c = testlib_campaign_ok("campaign: t\n"
	                                         "agents: {local: 1}\n"
	                                         "target: {path: /tmp/x, size: 64MiB}\n"
	                                         "workloads:\n"
	                                         "  - {name: boot, rw: read, data: {clone: "
	                                         "golden, compress: 40}, load: {steps: [1k]}}\n"
	                                         "  - {name: plain, rw: randread, load: {steps: "
	                                         "[1k]}}\n");
	uint64_t all =
	    IOCURVE__CAPABILITY__CAPABILITY_CLONE | IOCURVE__CAPABILITY__CAPABILITY_WAKES;
	Iocurve__Prepare p = IOCURVE__PREPARE__INIT;
	struct engine_sim_params sim = {0};
	struct io_plan pp;
	struct error err;

	(void)state;
	test_prepare_roundtrip(c, 0, &pp, &sim);
	assert_string_equal(pp.io.clone, "golden");
	assert_int_equal(pp.io.compress_pct, 40);
	test_prepare_roundtrip(c, 1, &pp, &sim);
	assert_string_equal(pp.io.clone, "");

	assert_int_equal(prepare_check_caps(c, all, "a1", "0.2.0", &err), 0);
	assert_int_equal(
	    prepare_check_caps(c, IOCURVE__CAPABILITY__CAPABILITY_WAKES, "old", "0.1.0", &err), -1);
	assert_string_equal(
	    err.msg, "agent old (0.1.0) lacks capability 'clone': workload 'boot' reads "
	             "clone 'golden', which it would lay out as files of their own data, not "
	             "one image; run an agent of this release, or leave data.clone out");
	c->workloads[0].io.clone[0] = '\0';
	assert_int_equal(prepare_check_caps(c, 0, "old", "0.1.0", &err), 0);
	campaign_free(c);

	p.workload = "w";
	p.workers = 1;
	p.block_size = 4096;
	p.queue_depth = 1;
	p.rw = IOCURVE__RW_MODE__RW_MODE_READ;
	p.clone = "../golden";
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_non_null(strstr(err.msg, "workload w: invalid clone name in Prepare"));
	p.clone = "golden";
	p.rw = IOCURVE__RW_MODE__RW_MODE_RANDRW;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg,
	                    "workload w: clone 'golden' is read-only, and rw randrw writes: "
	                    "the files would no longer be the same image");
	p.rw = IOCURVE__RW_MODE__RW_MODE_RANDREAD;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), 0);
	assert_string_equal(pp.io.clone, "golden");
}

/*
 * verify: crc32 travels in Prepare and back; the agent refuses it where a header
 * cannot hold (blocks not of 4KiB, dedupe, a sim), naming the field; an agent without
 * capability 'verify' is refused by name and version.
 */
static void test_prepare_verify(void **state)
{
	struct campaign *c = testlib_campaign_ok("campaign: t\n"
	                                         "agents: {local: 1}\n"
	                                         "target: {path: /tmp/x, size: 64MiB}\n"
	                                         "workloads:\n"
	                                         "  - {name: v, rw: randrw, block_size: 8KiB, "
	                                         "verify: crc32, load: {steps: [1k]}}\n"
	                                         "  - {name: plain, rw: randread, load: {steps: "
	                                         "[1k]}}\n");
	Iocurve__Prepare p = IOCURVE__PREPARE__INIT;
	struct engine_sim_params sim = {0};
	Iocurve__SimTarget st = IOCURVE__SIM_TARGET__INIT;
	struct io_plan pp;
	struct error err;

	(void)state;
	test_prepare_roundtrip(c, 0, &pp, &sim);
	assert_true(pp.io.verify);
	test_prepare_roundtrip(c, 1, &pp, &sim);
	assert_false(pp.io.verify);
	assert_int_equal(
	    prepare_check_caps(c, IOCURVE__CAPABILITY__CAPABILITY_VERIFY, "a1", "0.2.0", &err), 0);
	assert_int_equal(prepare_check_caps(c, 0, "old", "0.1.0", &err), -1);
	assert_string_equal(err.msg,
	                    "agent old (0.1.0) lacks capability 'verify': workload 'v' verifies "
	                    "its data, which it would neither stamp nor check; run an agent of "
	                    "this release, or leave verify out");
	campaign_free(c);

	/*
	 * verify: xxh64 travels as VERIFY_XXH64; an agent with 'verify' but not
	 * 'verify-xxh64' is refused it by name, one with both is not
	 */
	c = testlib_campaign_ok("campaign: t\n"
	                        "agents: {local: 1}\n"
	                        "target: {path: /tmp/x, size: 64MiB}\n"
	                        "workloads:\n"
	                        "  - {name: x, rw: randrw, block_size: 8KiB, "
	                        "verify: xxh64, load: {steps: [1k]}}\n");
	test_prepare_roundtrip(c, 0, &pp, &sim);
	assert_int_equal(pp.io.verify, IOCURVE__VERIFY_METHOD__VERIFY_XXH64);
	assert_int_equal(prepare_check_caps(c,
	                                    IOCURVE__CAPABILITY__CAPABILITY_VERIFY |
	                                        IOCURVE__CAPABILITY__CAPABILITY_VERIFY_XXH,
	                                    "a1", "0.3.0", &err),
	                 0);
	assert_int_equal(
	    prepare_check_caps(c, IOCURVE__CAPABILITY__CAPABILITY_VERIFY, "a2", "0.2.0", &err), -1);
	assert_string_equal(err.msg,
	                    "agent a2 (0.2.0) lacks capability 'verify-xxh64': workload 'x' "
	                    "verifies its data with xxh64, which it can neither stamp nor check; "
	                    "run an agent of this release, or use verify: crc32");
	campaign_free(c);

	p.workload = "w";
	p.workers = 1;
	p.block_size = 4096;
	p.queue_depth = 1;
	p.rw = IOCURVE__RW_MODE__RW_MODE_RANDRW;
	p.verify = IOCURVE__VERIFY_METHOD__VERIFY_CRC32;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), 0);
	assert_true(pp.io.verify);
	p.verify = IOCURVE__VERIFY_METHOD__VERIFY_XXH64;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), 0);
	assert_int_equal(pp.io.verify, IOCURVE__VERIFY_METHOD__VERIFY_XXH64);
	p.verify = 3;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_non_null(strstr(err.msg, "Prepare field verify 3 is out of its bounds"));
	p.verify = 7;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_non_null(strstr(err.msg, "Prepare field verify 7 is out of its bounds"));
	p.verify = IOCURVE__VERIFY_METHOD__VERIFY_CRC32;
	p.block_size = 512;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg, "workload w: Prepare field verify needs block_size and "
	                             "align multiples of 4096 (they are 512 and 512)");
	p.block_size = 4096;
	p.dedupe_pct = 10;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg, "workload w: Prepare field verify cannot go with dedupe_pct "
	                             "(a block's header names its offset)");
	p.dedupe_pct = 0;
	st.servers = 1;
	st.service_ns = 100000;
	p.sim = &st;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg, "workload w: Prepare field verify cannot go with a "
	                             "simulated device (no data)");
}

/*
 * Sync writes travel in Prepare fields 100-102 and reach the worker's plan; an agent
 * without capability 'sync' is refused by name, and the agent itself refuses fsync with
 * fdatasync, a sync of a workload that does not write and a count past its bound.
 */
static void test_prepare_sync(void **state)
{
	struct campaign *c = testlib_campaign_ok("campaign: t\n"
	                                         "agents: {local: 1}\n"
	                                         "target: {path: /tmp/x, size: 64MiB}\n"
	                                         "workloads:\n"
	                                         "  - {name: log, rw: write, fdatasync: 3, "
	                                         "sync: dsync, load: {steps: [1k]}}\n"
	                                         "  - {name: db, rw: randrw, fsync: 1, load: "
	                                         "{steps: [1k]}}\n");
	Iocurve__Prepare p = IOCURVE__PREPARE__INIT;
	struct engine_sim_params sim = {0};
	struct io_plan pp;
	struct error err;

	(void)state;
	test_prepare_roundtrip(c, 0, &pp, &sim);
	assert_int_equal(pp.io.fsync, 0);
	assert_int_equal(pp.io.fdatasync, 3);
	assert_true(pp.io.dsync);
	test_prepare_roundtrip(c, 1, &pp, &sim);
	assert_int_equal(pp.io.fsync, 1);
	assert_false(pp.io.dsync);
	assert_int_equal(prepare_check_caps(c, CAPS_OURS, "a1", "0.3.0", &err), 0);
	assert_int_equal(
	    prepare_check_caps(c, CAPS_OURS & ~(uint64_t)IOCURVE__CAPABILITY__CAPABILITY_SYNC,
	                       "old", "0.2.0", &err),
	    -1);
	assert_string_equal(err.msg,
	                    "agent old (0.2.0) lacks capability 'sync': workload 'log' asks for "
	                    "fdatasync, which it would ignore and write without syncing; run an "
	                    "agent of this release, or leave fsync, fdatasync and sync out");
	campaign_free(c);

	p.workload = "w";
	p.workers = 1;
	p.block_size = 4096;
	p.queue_depth = 1;
	p.rw = IOCURVE__RW_MODE__RW_MODE_WRITE;
	p.fsync = 2;
	p.fdatasync = 2;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_string_equal(err.msg, "workload w: Prepare fields fsync 2 and fdatasync 2 are both "
	                             "set: a worker syncs one way");
	p.fdatasync = 0;
	p.rw = IOCURVE__RW_MODE__RW_MODE_RANDREAD;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_string_equal(
	    err.msg, "workload w: Prepare field fsync is set, and rw randread does not write");
	p.rw = IOCURVE__RW_MODE__RW_MODE_WRITE;
	p.fsync = 1000001;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), -1);
	assert_non_null(strstr(err.msg, "fsync 1000001 is out of its bounds"));
	p.fsync = 1000000;
	assert_int_equal(params_from_prepare(&p, "a", &test_caps, &pp, &sim, &err), 0);
	assert_int_equal(pp.io.fsync, 1000000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_prepare_real_target), cmocka_unit_test(test_prepare_sim_target),
	    cmocka_unit_test(test_prepare_rate_limit),  cmocka_unit_test(test_prepare_invalid),
	    cmocka_unit_test(test_prepare_working_set), cmocka_unit_test(test_prepare_step_bounds),
	    cmocka_unit_test(test_prepare_caps),        cmocka_unit_test(test_prepare_clone),
	    cmocka_unit_test(test_prepare_sync),        cmocka_unit_test(test_prepare_background),
	    cmocka_unit_test(test_prepare_verify),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
