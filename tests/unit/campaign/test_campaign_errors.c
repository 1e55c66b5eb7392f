/* SPDX-License-Identifier: MIT */
/* Unit tests for campaign YAML refused: each error names the problem and its file:line:column. */
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

static void test_unknown_key(void **state)
{
	testlib_campaign_fails(
	    TEST_HEAD "workloads:\n"
	              "  - name: randread-8k\n"
	              "    queue_dept: 4\n"
	              "    load: {steps: [1000]}\n",
	    "test.yaml:6:5: unknown key 'queue_dept' in workload 'randread-8k' "
	    "(known: name, rw, block_size, workers, queue_depth, interval, warmup, "
	    "measure, read_pct, align, working_set, random, arrivals, data, direct, "
	    "wake_slack, timing, units, steady, retry, load, replay, fsync, fdatasync, sync, "
	    "background, verify, mix, fileset, op, zip, targets); did you mean "
	    "'queue_depth'?");
	testlib_campaign_fails(
	    TEST_HEAD "worker: 2\n"
	              "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:4:1: unknown key 'worker' in campaign (known: campaign, "
	    "agents, target, targets, slo, stop, workloads, percentiles, rw, block_size, workers,");
	testlib_campaign_fails(
	    "campaign: t\n"
	    "agents: {local: 1}\n"
	    "target: {path: /tmp/x, size: 1MiB, sise: 2}\n"
	    "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:3:36: unknown key 'sise' in target (known: path, size, direct, sim, nfs)");
	testlib_campaign_fails(TEST_HEAD "slo: {latncy: 1ms}\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:7: unknown key 'latncy' in slo (known: latency, "
	                       "metric, from, part); did you "
	                       "mean 'latency'?");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {step: [1]}}]\n",
	    "test.yaml:4:30: unknown key 'step' in load of workload 'a' (known: "
	    "steps, curve, ramp, max, refine, confirm, repeat, work, rate, think, start, speeds)");
	testlib_campaign_fails(
	    "campaign: t\n"
	    "agents: {select: {count: 1, lables: {a: b}}}\n"
	    "target: {path: /tmp/x, size: 1MiB}\n"
	    "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:2:29: unknown key 'lables' in agents.select (known: count, "
	    "labels); did you mean 'labels'?");
	/* before it has a name, a workload is known by its place in the list */
	testlib_campaign_fails(TEST_HEAD "workloads:\n"
	                                 "  - {name: a, load: {steps: [1]}}\n"
	                                 "  - {nmae: b, load: {steps: [1]}}\n",
	                       "test.yaml:6:6: unknown key 'nmae' in workload 2 (known: name,");
	testlib_campaign_fails(TEST_HEAD "[a]: 1\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:1: keys in campaign must be plain names");
}

static void test_wrong_type(void **state)
{
	testlib_campaign_fails(
	    TEST_HEAD "workers: abc\n"
	              "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:4:10: workers: expected a whole number 1..256, got 'abc'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, workers: [1, 2], load: {steps: [1]}}]\n",
	    "test.yaml:4:32: workers: expected a whole number 1..256, got a list");
	testlib_campaign_fails(TEST_HEAD "workers: 0\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:10: workers: expected a whole number 1..256, got '0'");
	testlib_campaign_fails(
	    TEST_HEAD "workers: 257\n"
	              "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:4:10: workers: expected a whole number 1..256, got '257'");
	testlib_campaign_fails(TEST_HEAD "workers: 99999999999999999999999\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:10: workers: expected a whole number 1..256");
	testlib_campaign_fails(
	    TEST_HEAD "workers: 1.5\n"
	              "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:4:10: workers: expected a whole number 1..256, got '1.5'");
	testlib_campaign_fails(TEST_HEAD "slo: {latency: 1ms, from: issue}\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:27: slo.from: expected storage or due, got 'issue'");
	{
		struct campaign *c =
		    testlib_campaign_ok(TEST_HEAD "slo: {latency: 1ms, from: storage}\n"
		                                  "workloads: [{name: a, load: {steps: [1]}}]\n");

		assert_false(c->slo_from_due);
		campaign_free(c);
	}
	testlib_campaign_fails(TEST_HEAD "queue_depth: 4097\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:14: queue_depth: expected a whole number 1..4096, got "
	                       "'4097'");
	testlib_campaign_fails(
	    TEST_HEAD "workers:\n"
	              "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:4:9: workers: expected a whole number 1..256, got nothing");
	testlib_campaign_fails("campaign: [a, b]\n"
	                       "agents: {local: 1}\n"
	                       "target: {path: /tmp/x, size: 1MiB}\n"
	                       "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:1:11: campaign: expected a string, got a list");
	testlib_campaign_fails(
	    "campaign: t\n"
	    "agents: {local: 1}\n"
	    "target: /tmp/x\n"
	    "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:3:9: target: expected a mapping with path, size, direct, sim, nfs, got "
	    "'/tmp/x'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: {name: a}\n",
	    "test.yaml:4:12: workloads: expected a list of one or more workloads, "
	    "got a mapping");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: []\n",
	    "test.yaml:4:12: workloads: expected a list of one or more workloads");
	testlib_campaign_fails(TEST_HEAD "workloads: [a]\n",
	                       "test.yaml:4:13: workloads: expected a mapping with name, rw,");
	testlib_campaign_fails(
	    TEST_HEAD "rw: readwrite\n"
	              "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:4:5: rw: expected read, write, randread, randwrite, rw or "
	    "randrw, got 'readwrite'");
	testlib_campaign_fails(
	    "campaign: t\n"
	    "agents: {local: 1}\n"
	    "target: {path: /tmp/x, size: 1MiB, direct: maybe}\n"
	    "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:3:44: target.direct: expected true or false, got 'maybe'");
	testlib_campaign_fails("campaign: \"a\\0b\"\n"
	                       "agents: {local: 1}\n"
	                       "target: {path: /tmp/x, size: 1MiB}\n"
	                       "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:1:11: campaign: contains a NUL character");
}

static void test_missing_field(void **state)
{
	testlib_campaign_fails(TEST_HEAD "workers: 1\n",
	                       "test.yaml:1:1: campaign is missing 'workloads'");
	testlib_campaign_fails("agents: {local: 1}\n"
	                       "target: {path: /tmp/x, size: 1MiB}\n"
	                       "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:1:1: campaign is missing 'campaign'");
	testlib_campaign_fails("campaign: t\n"
	                       "target: {path: /tmp/x, size: 1MiB}\n"
	                       "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:1:1: campaign is missing 'agents'");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "target: {path: /tmp/x}\n"
	                       "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:3:9: target is missing 'size'");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "target:\n"
	                       "  size: 1MiB\n"
	                       "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:3: target is missing 'path'");
	testlib_campaign_fails(TEST_HEAD "workloads:\n"
	                                 "  - name: a\n"
	                                 "    rw: read\n",
	                       "test.yaml:5:5: workload 'a' is missing 'load'");
	testlib_campaign_fails(TEST_HEAD "workloads:\n"
	                                 "  - rw: read\n"
	                                 "    load: {steps: [1]}\n",
	                       "test.yaml:5:5: workload 1 is missing 'name'");
	testlib_campaign_fails(TEST_HEAD
	                       "workloads: [{name: a, wake_slack: 5ms, load: {max: true}}]\n",
	                       "test.yaml:4:35: wake_slack: expected a duration up to 1ms");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: a, load: {}}]\n",
	                       "test.yaml:4:29: load of workload 'a' is missing 'steps'");
}

static void test_duplicate_key(void **state)
{
	testlib_campaign_fails(
	    TEST_HEAD "campaign: u\n"
	              "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:4:1: duplicate key 'campaign' in campaign (first at line 1");
	testlib_campaign_fails(
	    TEST_HEAD "workloads:\n"
	              "  - name: a\n"
	              "    workers: 1\n"
	              "    workers: 2\n"
	              "    load: {steps: [1]}\n",
	    "test.yaml:7:5: duplicate key 'workers' in workload 'a' (first at line 6");
	testlib_campaign_fails(TEST_HEAD "workloads:\n"
	                                 "  - {name: a, load: {steps: [1]}}\n"
	                                 "  - {name: a, load: {steps: [2]}}\n",
	                       "test.yaml:6:12: name: workload 'a' is already defined");
}

static void test_bad_duration(void **state)
{
	testlib_campaign_fails(TEST_HEAD "interval: 1\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:11: interval: '1' is not a duration: add a unit");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, warmup: 1x, load: {steps: [1]}}]\n",
	    "test.yaml:4:31: warmup: '1x' is not a duration (expected a number with "
	    "ns, us, ms, s, m or h");
	testlib_campaign_fails(TEST_HEAD "interval: 50ms\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:11: interval: expected at least 100ms, got '50ms'");
	testlib_campaign_fails(TEST_HEAD "measure: 0s\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:10: measure: expected a duration above 0s, got '0s'");
	testlib_campaign_fails(
	    TEST_HEAD "slo: {latency: 0ms}\n"
	              "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:4:16: slo.latency: expected a latency above 0 and at most 1h, got '0ms'");
	testlib_campaign_fails(TEST_HEAD "slo: {latency: fast}\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:16: slo.latency: 'fast' is not a duration");
}

static void test_interval_multiples(void **state)
{
	/* the workload's own measure is the line to change */
	testlib_campaign_fails(
	    TEST_HEAD "workloads:\n"
	              "  - name: a\n"
	              "    measure: 2500ms\n"
	              "    load: {steps: [1]}\n",
	    "test.yaml:6:14: measure: 2500ms is not a whole number of intervals "
	    "(interval is 1.00s) in workload 'a'; make measure a multiple of interval");
	/* default measure 5s against a top-level interval: point at the interval */
	testlib_campaign_fails(TEST_HEAD "interval: 2s\n"
	                                 "warmup: 0s\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:11: measure: 5.00s is not a whole number of intervals "
	                       "(interval is 2s) in workload 'a'");
	testlib_campaign_fails(TEST_HEAD "warmup: 1500ms\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:9: warmup: 1500ms is not a whole number of intervals");
	/* a workload's interval against top-level durations points at the workload */
	testlib_campaign_fails(
	    TEST_HEAD "measure: 3s\n"
	              "workloads: [{name: a, interval: 2s, warmup: 2s, load: {steps: [1]}}]\n",
	    "test.yaml:5:33: measure: 3s is not a whole number of intervals "
	    "(interval is 2s)");
}

static void test_bad_rate(void **state)
{
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {steps: [1000, fast]}}]\n",
	    "test.yaml:4:44: load.steps: expected a rate such as 20k, a bandwidth "
	    "such as 800MiB/s, a share of the peak such as 50%, or max, got 'fast'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {steps: [0]}}]\n",
	    "test.yaml:4:38: load.steps: expected a rate above 0 ops/s, or max, got '0'");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: a, load: {steps: [-5]}}]\n",
	                       "test.yaml:4:38: load.steps: '-5' is not a rate: rates cannot be "
	                       "negative");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {steps: []}}]\n",
	    "test.yaml:4:37: load.steps: expected a list of rates like [1000, 2k, "
	    "800MiB/s, 50%, max], got an empty list");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {steps: 1000}}]\n",
	    "test.yaml:4:37: load.steps: expected a list of rates like [1000, 2k, "
	    "800MiB/s, 50%, max], got '1000'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {steps: [[1]]}}]\n",
	    "test.yaml:4:38: load.steps: expected a rate such as 20k, a bandwidth "
	    "such as 800MiB/s, a share of the peak such as 50%, or max, got a list");
}

static void test_yaml_syntax(void **state)
{
	testlib_campaign_fails(
	    "campaign: demo\n"
	    "agents: {local: 2\n"
	    "target: x\n",
	    "test.yaml:3:7: did not find expected ',' or '}' (while parsing a flow "
	    "mapping at line 2 column 9)");
	testlib_campaign_fails("campaign: demo\n"
	                       "  agents: 2\n",
	                       "test.yaml:2:9: mapping values are not allowed in this context");
	testlib_campaign_fails("campaign: 'demo\n",
	                       "test.yaml:2:1: found unexpected end of stream");
	testlib_campaign_fails("campaign: *x\n", "test.yaml:1:11: found undefined alias");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: a, load: {steps: [1]}}]\n"
	                                 "---\n"
	                                 "campaign: u\n",
	                       "test.yaml:6:1: a second YAML document; a campaign file holds one");
	testlib_campaign_fails("", "test.yaml: the campaign is empty");
	testlib_campaign_fails("# nothing but a comment\n", "test.yaml: the campaign is empty");
	testlib_campaign_fails("just text\n", "test.yaml:1:1: campaign file: expected a mapping");
	testlib_campaign_fails("campaign: \xff\n",
	                       "test.yaml: byte 10: invalid leading UTF-8 octet");
}

static void test_invalid_agents(void **state)
{
	static const char tail[] = "target: {path: /tmp/x, size: 1MiB}\n"
	                           "workloads: [{name: a, load: {steps: [1]}}]\n";
	static const struct {
		const char *agents;
		const char *want;
	} cases[] = {
	    {"agents: {local: 0}\n",
	     "test.yaml:2:17: agents.local: expected a whole number 1..64, got '0'"},
	    {"agents: {local: 65}\n",
	     "test.yaml:2:17: agents.local: expected a whole number 1..64, got '65'"},
	    {"agents: {local: two}\n", "test.yaml:2:17: agents.local: expected a whole number"},
	    {"agents: {local: 1, select: {count: 1}}\n",
	     "test.yaml:2:9: agents: use either 'local' or 'select', not both"},
	    {"agents: {wait: 5s}\n", "test.yaml:2:9: agents is missing 'local' or 'select'"},
	    {"agents: {local: 1, wait: 5s}\n",
	     "test.yaml:2:26: agents.wait: only applies to 'select'"},
	    {"agents: {select: {}}\n", "test.yaml:2:18: agents.select is missing 'count'"},
	    {"agents: {select: {count: x}}\n",
	     "test.yaml:2:26: agents.select.count: expected a whole number 1..16384, got 'x'"},
	    {"agents: {select: 3}\n",
	     "test.yaml:2:18: agents.select: expected a mapping with count, labels, got '3'"},
	    {"agents: {select: {count: 1}, wait: soon}\n",
	     "test.yaml:2:36: agents.wait: 'soon' is not a duration"},
	    {"agents: 2\n", "test.yaml:2:9: agents: expected a mapping with local, select, wait"},
	    {"agents: {lokal: 2}\n", "test.yaml:2:10: unknown key 'lokal' in agents"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[512];

		snprintf(text, sizeof(text), "campaign: t\n%s%s", cases[i].agents, tail);
		testlib_campaign_fails(text, cases[i].want);
	}
}

static void test_did_you_mean(void **state)
{
	struct error err = {{0}};
	struct campaign *c = NULL;
	const char *text =
	    TEST_HEAD "queue_dept: 4\n"
	              "workloads: [{name: a, blok_size: 8KiB, load: {steps: [1]}}]\n";

	assert_int_equal(campaign_parse(text, strlen(text), "test.yaml", &c, &err), -1);
	assert_non_null(strstr(err.msg, "test.yaml:4:1: unknown key 'queue_dept'"));
	assert_non_null(strstr(err.msg, "; did you mean 'queue_depth'?"));
	text = TEST_HEAD "workloads: [{name: a, blok_size: 8KiB, load: {steps: [1]}}]\n";
	assert_int_equal(campaign_parse(text, strlen(text), "test.yaml", &c, &err), -1);
	assert_non_null(strstr(err.msg, "did you mean 'block_size'?"));
	/* Nothing close: no guess. */
	text = TEST_HEAD "colour: blue\n"
	                 "workloads: [{name: a, load: {steps: [1]}}]\n";
	assert_int_equal(campaign_parse(text, strlen(text), "test.yaml", &c, &err), -1);
	assert_null(strstr(err.msg, "did you mean"));
}

/* The campaign is refused and the message ends with the hint. */
static void test_fio_hint(const char *text, const char *hint)
{
	struct error err = {{0}};
	struct campaign *c = NULL;
	size_t n, h = strlen(hint);

	assert_int_equal(campaign_parse(text, strlen(text), "test.yaml", &c, &err), -1);
	n = strlen(err.msg);
	if (n < h || strcmp(err.msg + n - h, hint) != 0)
		fail_msg("\"%s\" does not end with \"%s\"", err.msg, hint);
}

/* fio's job options are named with their iocurve keys, at the top and in a workload. */
static void test_fio_vocabulary(void **state)
{
	static const char *const cases[][2] = {
	    {"bs: 8KiB", "'bs' is fio's name: iocurve calls it 'block_size'"},
	    {"iodepth: 4", "'iodepth' is fio's name: iocurve calls it 'queue_depth'"},
	    {"numjobs: 2", "'numjobs' is fio's name: iocurve calls it 'workers'"},
	    {"runtime: 30s", "'runtime' is fio's name: iocurve calls it 'measure'"},
	    {"ramp_time: 5s", "'ramp_time' is fio's name: iocurve calls it 'warmup'"},
	    {"rwmixread: 75", "'rwmixread' is fio's name: iocurve calls it 'read_pct'"},
	    {"ioengine: libaio",
	     "'ioengine' is fio's: leave it out, iocurve always drives io_uring"},
	    {"rate_iops: 500", "'rate_iops' is fio's: give the rates as load: {steps: [OPS, ...]}"},
	};
	char text[512], want[256];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		snprintf(text, sizeof(text),
		         TEST_HEAD "workloads: [{name: a, %s, load: {steps: [1]}}]\n", cases[i][0]);
		snprintf(want, sizeof(want), "test.yaml:4:23: unknown key '%.*s' in workload 'a'",
		         (int)strcspn(cases[i][0], ":"), cases[i][0]);
		testlib_campaign_fails(text, want);
		test_fio_hint(text, cases[i][1]);
		/* the same at the top, where settings for every workload go */
		snprintf(text, sizeof(text),
		         TEST_HEAD "%s\nworkloads: [{name: a, load: {steps: [1]}}]\n", cases[i][0]);
		test_fio_hint(text, cases[i][1]);
	}
	/* fio's sizes: kilo is 1024 there, so "8kb" is offered as 8KiB */
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, block_size: 8kb, load: {steps: "
	              "[1]}}]\n",
	    "test.yaml:4:35: block_size: '8kb' is not a size; did you mean '8KiB'? (KiB is 1024 "
	    "bytes, KB 1000)");
	test_fio_hint(TEST_HEAD "workloads: [{name: a, block_size: 64kib, load: {steps: [1]}}]\n",
	              "did you mean '64KiB'? (KiB is 1024 bytes, KB 1000)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_unknown_key),    cmocka_unit_test(test_wrong_type),
	    cmocka_unit_test(test_missing_field),  cmocka_unit_test(test_duplicate_key),
	    cmocka_unit_test(test_bad_duration),   cmocka_unit_test(test_interval_multiples),
	    cmocka_unit_test(test_bad_rate),       cmocka_unit_test(test_yaml_syntax),
	    cmocka_unit_test(test_invalid_agents), cmocka_unit_test(test_did_you_mean),
	    cmocka_unit_test(test_fio_vocabulary),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
