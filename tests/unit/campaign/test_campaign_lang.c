/* SPDX-License-Identifier: MIT */
/* Unit tests for the campaign language: matrices, load modes, rates, stop, SLO metric, labels. */
#include <dirent.h>
#include <limits.h>
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
#include "testlib.h"
#include "loadspec.h"

#define MS 1000000ULL
#define S  1000000000ULL

static void test_lang_names(const struct campaign *c, const char *const *want, size_t n)
{
	assert_int_equal(c->nworkloads, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(c->workloads[i].name, want[i]);
}

/* The example: lists expand in order, read_pct only where it means something. */
static void test_matrix_named(void **state)
{
	static const char *const want[] = {"mix-randread-4k", "mix-randread-8k",
	                                   "mix-randrw-4k-r75", "mix-randrw-8k-r75"};
	struct campaign *c = testlib_campaign_ok(TEST_HEAD "workloads:\n"
	                                                   "  - name: mix\n"
	                                                   "    rw: [randread, randrw]\n"
	                                                   "    block_size: [4KiB, 8KiB]\n"
	                                                   "    read_pct: [75]\n"
	                                                   "    queue_depth: 8\n"
	                                                   "    load: {steps: [1k, 800MiB/s]}\n");
	const struct workload *w = c->workloads;

	test_lang_names(c, want, 4);
	assert_int_equal(w[0].io.rw, RW_RANDREAD);
	assert_int_equal(w[0].io.block_size, 4096);
	assert_int_equal(w[1].io.block_size, 8192);
	assert_int_equal(w[2].io.rw, RW_RANDRW);
	assert_int_equal(w[2].io.read_pct, 75);
	for (size_t i = 0; i < 4; i++) {
		assert_int_equal(w[i].io.queue_depth, 8);
		assert_int_equal(w[i].nsteps, 2);
		/* a bandwidth becomes ops/s through each combination's own block size */
		assert_true(w[i].steps[1].ops == 800.0 * 1048576 / w[i].io.block_size);
	}
	campaign_free(c);
}

static void test_matrix_unnamed(void **state)
{
	static const char *const want[] = {"randrw-8k-r50",   "randrw-8k-r75",    "randrw-8k-r90",
	                                   "randread-4k-qd1", "randread-4k-qd32", "rw-1m",
	                                   "rw-512b",         "rw-1536b"};
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "load: {max: true}\n"
	              "workloads:\n"
	              "  - {rw: randrw, block_size: 8k, read_pct: [50, 75, 90]}\n"
	              "  - {queue_depth: [1, 32]}\n"
	              "  - {rw: rw, block_size: [1MiB, 512, 1536]}\n");

	test_lang_names(c, want, 8);
	assert_int_equal(c->workloads[1].io.read_pct, 75);
	assert_int_equal(c->workloads[4].io.queue_depth, 32);
	assert_int_equal(c->workloads[5].io.read_pct, 50); /* the sequential mix default */
	assert_int_equal(c->workloads[6].io.block_size, 512);
	campaign_free(c);
}

/* Lists at the top level are defaults too: a value of the workload's own hides them. */
static void test_matrix_top_level(void **state)
{
	static const char *const want[] = {"a-4k",
	                                   "a-64k",
	                                   "b",
	                                   "c-randread-4k-qd1",
	                                   "c-randread-4k-qd2",
	                                   "c-randread-64k-qd1",
	                                   "c-randread-64k-qd2",
	                                   "c-randrw-4k-r70-qd1",
	                                   "c-randrw-4k-r70-qd2",
	                                   "c-randrw-4k-r30-qd1",
	                                   "c-randrw-4k-r30-qd2",
	                                   "c-randrw-64k-r70-qd1",
	                                   "c-randrw-64k-r70-qd2",
	                                   "c-randrw-64k-r30-qd1",
	                                   "c-randrw-64k-r30-qd2"};
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "block_size: [4KiB, 64KiB]\n"
	              "read_pct: [70, 30]\n"
	              "load: {steps: [1k]}\n"
	              "workloads:\n"
	              "  - {name: a}\n"
	              "  - {name: b, block_size: 8KiB}\n"
	              "  - {name: c, rw: [randread, randrw], queue_depth: [1, 2]}\n");

	test_lang_names(c, want, 15);
	assert_int_equal(c->workloads[2].io.block_size, 8192);
	assert_int_equal(c->workloads[9].io.read_pct, 30);
	assert_int_equal(c->workloads[9].io.block_size, 4096);
	assert_int_equal(c->workloads[9].io.queue_depth, 1);
	campaign_free(c);
}

static void test_matrix_errors(void **state)
{
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: m, block_size: [], load: {max: true}}]\n",
	    "test.yaml:4:35: block_size: an empty list; give one value, or several to "
	    "make a matrix of workloads");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: m, queue_depth: [1, 2, 01], load: {max: true}}]\n",
	    "test.yaml:4:43: queue_depth: '01' repeats an earlier value of the list "
	    "(give each value once)");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: m, rw: [read, rwx], load: {max: true}}]\n",
	    "test.yaml:4:34: rw: expected read, write, randread, randwrite, rw or "
	    "randrw, got 'rwx'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: m, block_size: [4k, [8k]], load: {max: true}}]\n",
	    "test.yaml:4:40: block_size: expected a size such as 64KiB, got a list");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: m, read_pct: [1, 101], load: {max: true}}]\n",
	    "test.yaml:4:37: read_pct: expected a whole number 0..100, got '101'");
	testlib_campaign_fails(
	    TEST_HEAD "block_size: [4k, 3000]\n"
	              "workloads: [{name: m, load: {max: true}}]\n",
	    "test.yaml:4:18: block_size: expected a multiple of 512B up to 16MiB, "
	    "got '3000'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: m, read_pct: [1, 2], load: {max: true}}]\n",
	    "test.yaml:4:33: read_pct: a list of read shares needs a mix (rw: rw or "
	    "randrw) in workload 'm'; give one value, or make rw a mix");
	/* a generated name against a given one, and against another matrix */
	testlib_campaign_fails(
	    TEST_HEAD "load: {max: true}\n"
	              "workloads:\n"
	              "  - {name: randread-4k}\n"
	              "  - {queue_depth: 4, rw: [write, randread]}\n",
	    "test.yaml:7:5: workload 'randread-4k' from the matrix of workload 2 is "
	    "already defined (names must be unique; rename one)");
	testlib_campaign_fails(TEST_HEAD "load: {max: true}\n"
	                                 "workloads:\n"
	                                 "  - {name: a, block_size: [4k, 8k]}\n"
	                                 "  - {name: a-8k}\n",
	                       "test.yaml:7:12: name: workload 'a-8k' is already defined");
	testlib_campaign_fails(
	    TEST_HEAD "load: {max: true}\n"
	              "workloads:\n"
	              "  - {name: a, block_size: [4k, 8k]}\n"
	              "  - {name: a, block_size: [8k, 16k]}\n",
	    "test.yaml:7:12: name: workload 'a-8k' from the matrix of workload 'a' is "
	    "already defined");
	/* a plain workload still needs its name */
	testlib_campaign_fails(TEST_HEAD "workloads: [{rw: read, load: {max: true}}]\n",
	                       "test.yaml:4:13: workload 1 is missing 'name' (only a matrix");
}

static void test_matrix_limits(void **state)
{
	char list[512], mat[1024], text[2048];
	struct campaign *c;
	int off = 0;

	for (int i = 1; i <= 65; i++)
		off +=
		    snprintf(list + off, sizeof(list) - (size_t)off, "%s%d", i > 1 ? ", " : "", i);
	snprintf(text, sizeof(text),
	         TEST_HEAD "workloads: [{name: m, queue_depth: [%s], load: {max: true}}]\n", list);
	testlib_campaign_fails(text,
	                       "test.yaml:4:36: queue_depth: 65 values; a matrix takes at most 64 "
	                       "per key");
	/* 16 block sizes x 64 queue depths = 1024 workloads fit; one more does not */
	*strrchr(list, ',') = '\0';
	snprintf(mat, sizeof(mat),
	         "  - {name: m, block_size: [4k, 8k, 12k, 16k, 20k, 24k, 28k, 32k, 36k, 40k, 44k, "
	         "48k, 52k, 56k, 60k, 64k], queue_depth: [%s]}\n",
	         list);
	snprintf(text, sizeof(text), TEST_HEAD "load: {max: true}\nworkloads:\n%s", mat);
	c = testlib_campaign_ok(text);
	assert_int_equal(c->nworkloads, 1024);
	assert_string_equal(c->workloads[0].name, "m-4k-qd1");
	assert_string_equal(c->workloads[1023].name, "m-64k-qd64");
	campaign_free(c);
	snprintf(text, sizeof(text), TEST_HEAD "load: {max: true}\nworkloads:\n%s  - {name: x}\n",
	         mat);
	testlib_campaign_fails(
	    text, "test.yaml:7:5: workload 'x': the campaign would have 1025 workloads, "
	          "at most 1024 (a matrix makes one per combination of its lists)");
	/* workers is no matrix key: a list of it is a plain type error */
	testlib_campaign_fails(
	    TEST_HEAD "workers: [1, 2]\nworkloads: [{name: m, load: {max: true}}]\n",
	    "test.yaml:4:10: workers: expected a whole number 1..256, got a list");
}

/* steps: rates, bandwidths, shares of the peak and max, in order. */
static void test_steps(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "workloads:\n"
	              "  - name: a\n"
	              "    block_size: 8KiB\n"
	              "    load: {steps: [20000, 20k, 800MiB/s, 1.5GiB/s, 50%, 12.5%, max, 100%]}\n"
	              "  - {name: b, load: {steps: [1k], max: true, refine: 3}}\n"
	              "  - {name: c, load: {max: true}}\n"
	              "  - {name: d, load: {steps: [1k], refine: 3, repeat: 3}}\n");
	const struct workload *w = c->workloads;

	assert_int_equal(w[0].mode, LOAD_STEPS);
	assert_int_equal(w[0].nsteps, 8);
	assert_true(w[0].steps[0].ops == 20000 && w[0].steps[0].peak_pct == 0);
	assert_true(w[0].steps[1].ops == 20000);
	assert_true(w[0].steps[2].ops == 102400);
	assert_true(w[0].steps[3].ops == 196608);
	assert_true(w[0].steps[4].ops == 0 && w[0].steps[4].peak_pct == 50);
	assert_true(w[0].steps[5].peak_pct == 12.5);
	assert_true(w[0].steps[6].ops == 0 && w[0].steps[6].peak_pct == 0);
	assert_true(w[0].steps[7].peak_pct == 100);
	assert_true(loadspec_needs_peak(&w[0]));
	assert_int_equal(loadspec_max_steps(&w[0]), 9); /* the peak first */
	assert_int_equal(w[1].nsteps, 2);
	assert_true(w[1].steps[1].ops == 0 && w[1].steps[1].peak_pct == 0);
	assert_int_equal(w[1].refine, 3);
	assert_false(loadspec_needs_peak(&w[1]));
	assert_int_equal(loadspec_max_steps(&w[1]), 6); /* + the confirmation step */
	assert_int_equal(w[2].nsteps, 1);
	assert_int_equal(w[2].refine, 0);
	assert_int_equal(w[2].repeat, 1); /* the default */
	assert_int_equal(w[3].repeat, 3);
	assert_int_equal(loadspec_max_steps(&w[3]), 7); /* + three confirmation steps */
	campaign_free(c);
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {steps: [1k], repeat: 0}}]\n",
	    "test.yaml:4:51: load.repeat: expected a whole number 1..20, got '0'");

	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {steps: [0%]}}]\n",
	    "test.yaml:4:38: load.steps: expected a share of the peak such as 50% "
	    "(above 0%, at most 100%), got '0%'");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: a, load: {steps: [100.5%]}}]\n",
	                       "test.yaml:4:38: load.steps: expected a share of the peak");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: a, load: {steps: [x%]}}]\n",
	                       "test.yaml:4:38: load.steps: 'x%' is not a percentage");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: a, load: {steps: [1MB/h]}}]\n",
	                       "test.yaml:4:38: load.steps: expected a rate such as 20k");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {steps: [1Mb/s]}}]\n",
	    "test.yaml:4:38: load.steps: '1Mb/s' is not a bandwidth (expected a size "
	    "per second");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {steps: [0GiB/s]}}]\n",
	    "test.yaml:4:38: load.steps: expected a rate above 0 ops/s, or max, got "
	    "'0GiB/s'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {steps: ['']}}]\n",
	    "test.yaml:4:38: load.steps: expected a rate such as 20k, a bandwidth such "
	    "as 800MiB/s, a share of the peak such as 50%, or max, got nothing");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: a, load: {steps: [2000000G]}}]\n",
	                       "test.yaml:4:38: load.steps: '2000000G' is too large for a rate");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: a, load: {max: maybe}}]\n",
	                       "test.yaml:4:35: load.max: expected true or false, got 'maybe'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {max: false}}]\n",
	    "test.yaml:4:29: load of workload 'a' is missing 'steps', 'curve' or "
	    "'ramp' (or max: true)");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: [1k]}]\n",
	    "test.yaml:4:29: load: expected a mapping with steps, curve, ramp, max, "
	    "refine, confirm, repeat, work, rate, think, start, speeds, got a list");
}

static void test_steps_limit(void **state)
{
	char *text = malloc(16384);
	int off;

	assert_non_null(text);
	off = snprintf(text, 16384, TEST_HEAD "workloads: [{name: a, load: {steps: [");
	for (int i = 1; i <= 1001; i++)
		off += snprintf(text + off, 16384 - (size_t)off, "%s%d", i > 1 ? "," : "", i);
	snprintf(text + off, 16384 - (size_t)off, "]}}]\n");
	testlib_campaign_fails(text,
	                       "test.yaml:4:37: load.steps: 1001 entries; at most 1000 (use a ramp "
	                       "for long runs)");
	free(text);
}

static void test_curve(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "workloads:\n"
	              "  - {name: a, load: {curve: [10%, 50%, 70%, 80%, 90%, 100%], refine: 2}}\n"
	              "  - {name: b, load: {curve: [33.3%], max: false}}\n");
	const struct workload *w = c->workloads;

	assert_int_equal(w[0].mode, LOAD_CURVE);
	assert_int_equal(w[0].nsteps, 6);
	assert_true(w[0].steps[0].peak_pct == 10 && w[0].steps[0].ops == 0);
	assert_true(w[0].steps[5].peak_pct == 100);
	assert_int_equal(w[0].refine, 2);
	assert_true(loadspec_needs_peak(&w[0]));
	assert_int_equal(loadspec_max_steps(&w[0]), 1 + 6 + 2 + 1);
	assert_true(w[1].steps[0].peak_pct == 33.3);
	campaign_free(c);

	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {curve: [50%, max]}}]\n",
	    "test.yaml:4:43: load.curve: expected a share of the peak such as 50% "
	    "(above 0%, at most 100%), got 'max'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {curve: [[50%]]}}]\n",
	    "test.yaml:4:38: load.curve: expected a share of the peak such as 50% "
	    "(above 0%, at most 100%), got a list");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: a, load: {curve: [5.5.5%]}}]\n",
	                       "test.yaml:4:38: load.curve: '5.5.5%' is not a percentage");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {curve: 50%}}]\n",
	    "test.yaml:4:37: load.curve: expected a list of shares of the peak like "
	    "[10%, 50%, 90%, 100%], got '50%'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {curve: [50%], ramp: {}}}]\n",
	    "test.yaml:4:50: load.ramp: give one of steps, curve or ramp, not both "
	    "'curve' and 'ramp'");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: a, load: {ramp: {}, max: true}}]\n",
	                       "test.yaml:4:45: load.max: max: true goes with steps only");
}

/*
 * Fixed work: its share per worker (bytes through the block size, or ops), pacing,
 * think time, spread and deadline; one step, measured whole for its deadline.
 */
static void test_work(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "interval: 500ms\n"
	              "warmup: 2s\n"
	              "steady: {extend: 4}\n"
	              "workloads:\n"
	              "  - {name: a, rw: read, block_size: 64KiB,\n"
	              "     load: {work: {bytes: 1MiB, deadline: 1250ms}, think: 1ms,\n"
	              "            start: {spread: 1s}}}\n"
	              "  - {name: b, rw: randread, load: {work: {ops: 500}, rate: 2k}}\n");
	const struct workload *w = c->workloads;

	(void)state;
	assert_true(w[0].work.on);
	assert_int_equal(w[0].work.bytes, 1 << 20);
	assert_int_equal(w[0].work.ops, 16);
	assert_int_equal(w[0].work.think_ns, 1000000);
	assert_int_equal(w[0].work.spread_ns, 1000000000);
	assert_int_equal(w[0].work.deadline_ns, 1250000000);
	/* one closed-loop step, no warm-up, the deadline in whole intervals, never extended */
	assert_int_equal(w[0].nsteps, 1);
	assert_true(w[0].steps[0].ops == 0 && w[0].steps[0].peak_pct == 0);
	assert_int_equal(w[0].warmup_ns, 0);
	assert_int_equal(w[0].measure_ns, 1500000000);
	assert_int_equal(w[0].steady_extend, 0);
	assert_int_equal(w[0].retry, 0);
	assert_int_equal(loadspec_max_steps(&w[0]), 1);
	assert_true(w[1].work.on);
	assert_int_equal(w[1].work.ops, 500);
	assert_int_equal(w[1].work.bytes, 500 * 4096);
	assert_true(w[1].steps[0].ops == 2000);
	assert_int_equal(w[1].work.deadline_ns, 600000000000ull);
	assert_int_equal(w[1].work.spread_ns, 0);
	campaign_free(c);
}

static void test_ramp(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "workloads:\n"
	              "  - {name: a, load: {ramp: {start: 1k, factor: 1.5}, refine: 4}}\n"
	              "  - name: b\n"
	              "    block_size: 64KiB\n"
	              "    load:\n"
	              "      ramp: {start: 100MiB/s, increment: 50MiB/s, max_steps: 1000}\n");
	const struct workload *w = c->workloads;

	assert_int_equal(w[0].mode, LOAD_RAMP);
	assert_true(w[0].ramp_start == 1000);
	assert_true(w[0].ramp_factor == 1.5);
	assert_true(w[0].ramp_increment == 0);
	assert_int_equal(w[0].ramp_max_steps, 20);
	assert_int_equal(w[0].refine, 4);
	assert_null(w[0].steps);
	assert_int_equal(w[0].nsteps, 0);
	assert_false(loadspec_needs_peak(&w[0]));
	assert_int_equal(loadspec_max_steps(&w[0]), 25); /* + the confirmation step */
	assert_true(w[1].ramp_start == 1600);
	assert_true(w[1].ramp_factor == 0);
	assert_true(w[1].ramp_increment == 800);
	assert_int_equal(w[1].ramp_max_steps, 1000);
	campaign_free(c);

	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {ramp: {start: 1k, factor: 0x2}}}]\n",
	    "test.yaml:4:56: load.ramp.factor: expected a number above 1 and at most "
	    "100, such as 1.5 or 2, got '0x2'");
	testlib_campaign_fails(TEST_HEAD
	                       "workloads: [{name: a, load: {ramp: {start: 1k, factor: 101}}}]\n",
	                       "test.yaml:4:56: load.ramp.factor: expected a number above 1");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {ramp: {start: 1k, factor: [2]}}}]\n",
	    "test.yaml:4:56: load.ramp.factor: expected a number above 1 and at most "
	    "100, such as 1.5 or 2, got a list");
	testlib_campaign_fails(TEST_HEAD
	                       "workloads: [{name: a, load: {ramp: {start: 50%, factor: 2}}}]\n",
	                       "test.yaml:4:44: load.ramp.start: expected a rate such as 20k or a "
	                       "bandwidth such as 800MiB/s, got '50%'");
	testlib_campaign_fails(TEST_HEAD
	                       "workloads: [{name: a, load: {ramp: {start: max, factor: 2}}}]\n",
	                       "test.yaml:4:44: load.ramp.start: expected a rate such as 20k or a "
	                       "bandwidth such as 800MiB/s, got 'max'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {ramp: {start: 1k, increment: -1k}}}]\n",
	    "test.yaml:4:59: load.ramp.increment: '-1k' is not a rate: rates cannot be "
	    "negative");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {ramp: {start: 1k, factor: 2, max_steps: 0}}}]"
	              "\n",
	    "test.yaml:4:70: load.ramp.max_steps: expected a whole number 1..1000, got "
	    "'0'");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: a, load: {ramp: 1k}}]\n",
	                       "test.yaml:4:36: load.ramp: expected a mapping with start, factor, "
	                       "increment, max_steps, got '1k'");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: a, load: {ramp: {start: 1k}}}]\n",
	                       "test.yaml:4:36: load.ramp is missing 'factor' or 'increment'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {steps: [1], refine: x}}]\n",
	    "test.yaml:4:50: load.refine: expected a whole number 0..20, got 'x'");
}

/* load: and steady: at the top level are every workload's defaults. */
static void test_top_level_load(void **state)
{
	struct campaign *c =
	    testlib_campaign_ok(TEST_HEAD "block_size: 64KiB\n"
	                                  "load: {ramp: {start: 64MiB/s, factor: 2}}\n"
	                                  "steady: {extend: 5}\n"
	                                  "workloads:\n"
	                                  "  - {name: a}\n"
	                                  "  - {name: b, block_size: 8KiB}\n"
	                                  "  - {name: c, steady: {extend: 0}, load: {steps: "
	                                  "[1k]}}\n"
	                                  "  - {name: d, steady: {}}\n");
	const struct workload *w = c->workloads;

	assert_int_equal(w[0].mode, LOAD_RAMP);
	assert_true(w[0].ramp_start == 1024);
	assert_true(w[1].ramp_start == 8192); /* the same bandwidth in 8KiB operations */
	assert_int_equal(w[0].steady_extend, 5);
	assert_int_equal(w[2].mode, LOAD_STEPS);
	assert_int_equal(w[2].steady_extend, 0);
	assert_int_equal(w[3].steady_extend, 5);
	campaign_free(c);

	/* checked once, even when no workload uses it */
	testlib_campaign_fails(TEST_HEAD "load: {curve: [10]}\n"
	                                 "workloads: [{name: a, load: {max: true}}]\n",
	                       "test.yaml:4:16: load.curve: expected a share of the peak");
	testlib_campaign_fails(
	    TEST_HEAD "load: {stpes: [1]}\n"
	              "workloads: [{name: a, load: {max: true}}]\n",
	    "test.yaml:4:8: unknown key 'stpes' in load (known: steps, curve, ramp, "
	    "max, refine, confirm, repeat, work, rate, think, start, speeds); did you mean "
	    "'steps'?");
	testlib_campaign_fails(
	    TEST_HEAD "steady: {extend: 1001}\n"
	              "workloads: [{name: a, load: {max: true}}]\n",
	    "test.yaml:4:18: steady.extend: expected a whole number 0..1000, got "
	    "'1001'");
	testlib_campaign_fails(
	    TEST_HEAD "steady: 3\n"
	              "workloads: [{name: a, load: {max: true}}]\n",
	    "test.yaml:4:9: steady: expected a mapping with extend, budget, got '3'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a}]\n",
	    "test.yaml:4:13: workload 'a' is missing 'load' (or give load: at the top "
	    "level, for every workload)");
}

static void test_stop_and_slo(void **state)
{
	struct campaign *c =
	    testlib_campaign_ok(TEST_HEAD "workloads: [{name: a, load: {max: true}}]\n");

	assert_true(c->stop.min_achieved_pct == 95);
	assert_int_equal(c->stop.ceiling_ns, 50 * MS);
	assert_true(c->stop.errors_pct == 1);
	assert_false(c->stop.allow_errors);
	assert_int_equal(c->slo_metric, SLO_MEAN);
	assert_string_equal(campaign_slo_metric_name(c->slo_metric), "mean");
	campaign_free(c);

	c = testlib_campaign_ok(TEST_HEAD "slo: {latency: 2ms, metric: p99.9}\n"
	                                  "stop: {achieved: 90%, ceiling: 1s, errors: false}\n"
	                                  "workloads: [{name: a, load: {max: true}}]\n");
	assert_int_equal(c->slo_latency_ns, 2 * MS);
	assert_int_equal(c->slo_metric, SLO_P999);
	assert_string_equal(campaign_slo_metric_name(c->slo_metric), "p99.9");
	assert_true(c->stop.min_achieved_pct == 90);
	assert_int_equal(c->stop.ceiling_ns, 1 * S);
	assert_true(c->stop.errors_pct < 0);
	assert_false(c->stop.allow_errors);
	campaign_free(c);

	/* errors: a share, true (any), allow (never stops, may end complete) */
	c = testlib_campaign_ok(TEST_HEAD "stop: {errors: 5%}\n"
	                                  "workloads: [{name: a, load: {max: true}}]\n");
	assert_true(c->stop.errors_pct == 5);
	campaign_free(c);
	c = testlib_campaign_ok(TEST_HEAD "stop: {errors: true}\n"
	                                  "workloads: [{name: a, load: {max: true}}]\n");
	assert_true(c->stop.errors_pct == 0);
	campaign_free(c);
	c = testlib_campaign_ok(TEST_HEAD "stop: {errors: allow}\n"
	                                  "workloads: [{name: a, load: {max: true}}]\n");
	assert_true(c->stop.errors_pct < 0);
	assert_true(c->stop.allow_errors);
	campaign_free(c);

	static const struct {
		const char *metric;
		enum slo_metric want;
	} metrics[] = {{"mean", SLO_MEAN}, {"p50", SLO_P50}, {"p90", SLO_P90}, {"p99", SLO_P99}};
	for (size_t i = 0; i < sizeof(metrics) / sizeof(metrics[0]); i++) {
		char text[256];

		snprintf(text, sizeof(text),
		         TEST_HEAD "slo: {metric: %s}\nstop: {achieved: 99.5}\n"
		                   "workloads: [{name: a, load: {max: true}}]\n",
		         metrics[i].metric);
		c = testlib_campaign_ok(text);
		assert_int_equal(c->slo_metric, metrics[i].want);
		assert_int_equal(c->slo_latency_ns, 1 * MS);
		assert_true(c->stop.min_achieved_pct == 99.5);
		campaign_free(c);
	}

	testlib_campaign_fails(
	    TEST_HEAD "slo: {metric: [p99]}\n"
	              "workloads: [{name: a, load: {max: true}}]\n",
	    "test.yaml:4:15: slo.metric: expected mean, p50, p90, p99 or p99.9, got a "
	    "list");
	testlib_campaign_fails(
	    TEST_HEAD "slo: {metric: P99}\n"
	              "workloads: [{name: a, load: {max: true}}]\n",
	    "test.yaml:4:15: slo.metric: expected mean, p50, p90, p99 or p99.9, got "
	    "'P99'");
	testlib_campaign_fails(
	    TEST_HEAD "stop: {achieved: 101%}\n"
	              "workloads: [{name: a, load: {max: true}}]\n",
	    "test.yaml:4:18: stop.achieved: expected a percentage of the offered rate "
	    "1%..100% such as 95%, got '101%'");
	testlib_campaign_fails(
	    TEST_HEAD "stop: {achieved: 0.5%}\n"
	              "workloads: [{name: a, load: {max: true}}]\n",
	    "test.yaml:4:18: stop.achieved: expected a percentage of the offered rate");
	testlib_campaign_fails(TEST_HEAD "stop: {achieved: [95%]}\n"
	                                 "workloads: [{name: a, load: {max: true}}]\n",
	                       "test.yaml:4:18: stop.achieved: expected a string, got a list");
	testlib_campaign_fails(TEST_HEAD "stop: {ceiling: 5}\n"
	                                 "workloads: [{name: a, load: {max: true}}]\n",
	                       "test.yaml:4:17: stop.ceiling: '5' is not a duration: add a unit");
	testlib_campaign_fails(
	    TEST_HEAD "stop: true\n"
	              "workloads: [{name: a, load: {max: true}}]\n",
	    "test.yaml:4:7: stop: expected a mapping with achieved, ceiling, errors, "
	    "got 'true'");
}

static void test_labels(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    "campaign: t\n"
	    "agents:\n"
	    "  select: {count: 3, labels: {zone: eu-1, rack: 7, tier: 'fast nvme'}}\n"
	    "  wait: 2m\n"
	    "target: {path: /mnt/x, size: 1GiB}\n"
	    "workloads: [{name: a, load: {max: true}}]\n");

	assert_int_equal(c->agents_mode, CAMPAIGN_AGENTS_SELECT);
	assert_int_equal(c->agents_count, 3);
	assert_int_equal(c->agents_wait_ns, 120 * S);
	assert_int_equal(c->nlabels, 3);
	assert_string_equal(c->labels[0].key, "zone");
	assert_string_equal(c->labels[0].value, "eu-1");
	assert_string_equal(c->labels[1].key, "rack");
	assert_string_equal(c->labels[1].value, "7");
	assert_string_equal(c->labels[2].value, "fast nvme");
	campaign_free(c);

	c = testlib_campaign_ok("campaign: t\n"
	                        "agents: {select: {count: 1, labels: {}}}\n"
	                        "target: {path: /mnt/x, size: 1GiB}\n"
	                        "workloads: [{name: a, load: {max: true}}]\n");
	assert_int_equal(c->nlabels, 0);
	campaign_free(c);

	static const struct {
		const char *agents;
		const char *want;
	} cases[] = {
	    {"agents: {select: {count: 1, labels: zone}}\n",
	     "test.yaml:2:37: agents.select.labels: expected a mapping of label names to values "
	     "such as {zone: a}, got 'zone'"},
	    {"agents: {select: {count: 1, labels: {[a]: b}}}\n",
	     "test.yaml:2:38: agents.select.labels: expected a string, got a list"},
	    {"agents: {select: {count: 1, labels: {'a b': c}}}\n",
	     "test.yaml:2:38: agents.select.labels: expected label names of letters, digits"},
	    {"agents: {select: {count: 1, labels: {a: }}}\n",
	     "test.yaml:2:41: agents.select.labels.a: expected a string, got nothing"},
	    {"agents: {select: {count: 1, labels: {a: x, b: y, a: z}}}\n",
	     "test.yaml:2:50: agents.select.labels: duplicate label 'a' (keep one)"},
	};
	char many[2048] = "agents: {select: {count: 1, labels: {";
	char text[2560];

	for (int i = 0; i < 65; i++)
		snprintf(many + strlen(many), sizeof(many) - strlen(many), "%sk%d: v",
		         i ? ", " : "", i);
	strcat(many, "}}}\n");
	snprintf(text, sizeof(text),
	         "campaign: t\n%starget: {path: /mnt/x, size: 1GiB}\n"
	         "workloads: [{name: a, load: {max: true}}]\n",
	         many);
	testlib_campaign_fails(text, "test.yaml:2:37: agents.select.labels: 65 labels; at most 64");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text),
		         "campaign: t\n%starget: {path: /mnt/x, size: 1GiB}\n"
		         "workloads: [{name: a, load: {max: true}}]\n",
		         cases[i].agents);
		testlib_campaign_fails(text, cases[i].want);
	}
}

static int test_lang_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * Every file in tests/campaigns names its own error on its first line
 * ("# expect: FILE:L:C: message"); loading it must fail with that message.
 * The files are loaded by bare name from inside the directory, so the
 * message carries the name as given, as a user would see it.
 */
static void test_bad_files(void **state)
{
	const char *src = getenv("IOCURVE_SOURCE");
	char dir[PATH_MAX], cwd[PATH_MAX], *names[512];
	struct dirent *de;
	size_t n = 0;
	DIR *d;

	if (src == NULL) {
		printf("# IOCURVE_SOURCE not set (run through meson test)\n");
		skip();
	}
	snprintf(dir, sizeof(dir), "%s/tests/campaigns", src);
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	assert_int_equal(chdir(dir), 0);
	d = opendir(".");
	assert_non_null(d);
	while ((de = readdir(d)) != NULL) {
		size_t len = strlen(de->d_name);

		if (len > 5 && strcmp(de->d_name + len - 5, ".yaml") == 0 && n < 512)
			names[n++] = strdup(de->d_name);
	}
	closedir(d);
	qsort(names, n, sizeof(names[0]), test_lang_cmp);
	for (size_t i = 0; i < n; i++) {
		struct error err = {{0}};
		struct campaign *c = NULL;
		char line[1024], *want, *nl;
		FILE *f = fopen(names[i], "r");

		assert_non_null(f);
		if (fgets(line, sizeof(line), f) == NULL)
			line[0] = '\0';
		fclose(f);
		if ((nl = strchr(line, '\n')) != NULL)
			*nl = '\0';
		if (strncmp(line, "# expect: ", 10) != 0)
			fail_msg("%s: the first line must be '# expect: MESSAGE'", names[i]);
		want = line + 10;
		if (strncmp(want, names[i], strlen(names[i])) != 0 || want[strlen(names[i])] != ':')
			fail_msg("%s: the expected message must start with the file's name",
			         names[i]);
		if (campaign_load(names[i], &c, &err) == 0) {
			campaign_free(c);
			fail_msg("%s: accepted, expected \"%s\"", names[i], want);
		}
		if (strncmp(err.msg, want, strlen(want)) != 0)
			fail_msg("%s: message \"%s\" does not start with \"%s\"", names[i], err.msg,
			         want);
		free(names[i]);
	}
	printf("# %zu bad campaigns fail as documented\n", n);
	assert_true(n >= 60);
	assert_int_equal(chdir(cwd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_matrix_named),
	    cmocka_unit_test(test_matrix_unnamed),
	    cmocka_unit_test(test_matrix_top_level),
	    cmocka_unit_test(test_matrix_errors),
	    cmocka_unit_test(test_matrix_limits),
	    cmocka_unit_test(test_steps),
	    cmocka_unit_test(test_steps_limit),
	    cmocka_unit_test(test_curve),
	    cmocka_unit_test(test_ramp),
	    cmocka_unit_test(test_work),
	    cmocka_unit_test(test_top_level_load),
	    cmocka_unit_test(test_stop_and_slo),
	    cmocka_unit_test(test_labels),
	    cmocka_unit_test(test_bad_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
