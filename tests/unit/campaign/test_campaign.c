/* SPDX-License-Identifier: MIT */
/* Unit tests for campaign YAML: values, defaults, and errors with file:line:column. */
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

#define MS 1000000ULL
#define S  1000000000ULL

static const char test_campaign_demo[] =
    "campaign: demo\n"
    "agents: {local: 2}\n"
    "target: {path: /tmp/iocurve-demo, size: 256MiB, direct: true}\n"
    "workers: 2            # per agent\n"
    "queue_depth: 16       # per worker\n"
    "interval: 1s\n"
    "warmup: 1s\n"
    "measure: 3s\n"
    "slo: {latency: 1ms}\n"
    "workloads:\n"
    "  - {name: randread-8k, rw: randread, block_size: 8KiB, load: {steps: [1000, 2000, "
    "4000]}}\n";

static void test_demo(void **state)
{
	struct campaign *c = testlib_campaign_ok(test_campaign_demo);
	const struct workload *w = &c->workloads[0];

	assert_string_equal(c->name, "demo");
	assert_string_equal(c->path, "test.yaml");
	assert_int_equal(c->text_len, strlen(test_campaign_demo));
	assert_memory_equal(c->text, test_campaign_demo, c->text_len);
	assert_int_equal(c->agents_mode, CAMPAIGN_AGENTS_LOCAL);
	assert_int_equal(c->agents_count, 2);
	assert_string_equal(c->targets[0].path, "/tmp/iocurve-demo");
	assert_int_equal(c->targets[0].size, 256ULL << 20);
	assert_true(c->targets[0].direct);
	assert_int_equal(c->slo_latency_ns, 1 * MS);
	assert_int_equal(c->nworkloads, 1);
	assert_string_equal(w->name, "randread-8k");
	assert_int_equal(w->io.rw, RW_RANDREAD);
	assert_int_equal(w->io.block_size, 8192);
	assert_int_equal(w->io.workers, 2);
	assert_int_equal(w->io.queue_depth, 16);
	assert_int_equal(w->interval_ns, 1 * S);
	assert_int_equal(w->warmup_ns, 1 * S);
	assert_int_equal(w->measure_ns, 3 * S);
	assert_int_equal(w->nsteps, 3);
	assert_true(w->steps[0].ops == 1000.0);
	assert_true(w->steps[1].ops == 2000.0);
	assert_true(w->steps[2].ops == 4000.0);
	campaign_free(c);
}

static void test_defaults(void **state)
{
	struct campaign *c = testlib_campaign_ok("campaign: t\n"
	                                         "agents: {local: 1}\n"
	                                         "target: {path: /tmp/x, size: 1MiB}\n"
	                                         "workloads:\n"
	                                         "  - name: a\n"
	                                         "    load: {steps: [1k]}\n");
	const struct workload *w = &c->workloads[0];

	assert_true(c->targets[0].direct);
	assert_int_equal(c->slo_latency_ns, 1 * MS);
	/* the SLO judges the storage's latency unless slo.from says due */
	assert_false(c->slo_from_due);
	assert_int_equal(w->io.rw, RW_RANDREAD);
	assert_int_equal(w->io.block_size, 4096);
	assert_int_equal(w->io.workers, 1);
	/* sized from the load: 2 x 1,000 ops/s x 1 ms + 16 */
	assert_true(w->qd_sized);
	assert_int_equal(w->io.queue_depth, 18);
	assert_int_equal(w->interval_ns, 1 * S);
	assert_int_equal(w->warmup_ns, 1 * S);
	assert_int_equal(w->measure_ns, 5 * S);
	/* steady: a straddling step runs on up to 3 x its 5 measured intervals, 20 s in all */
	assert_int_equal(w->steady_extend, 15);
	assert_int_equal(w->steady_budget_ns, 20 * S);
	assert_int_equal(w->nsteps, 1);
	assert_true(w->steps[0].ops == 1000.0);
	campaign_free(c);
}

static void test_inherit_and_override(void **state)
{
	struct campaign *c =
	    testlib_campaign_ok(TEST_HEAD "rw: write\n"
	                                  "block_size: 64KiB\n"
	                                  "workers: 4\n"
	                                  "queue_depth: 32\n"
	                                  "interval: 500ms\n"
	                                  "warmup: 0s\n"
	                                  "measure: 2s\n"
	                                  "slo: {latency: 500us, from: due}\n"
	                                  "workloads:\n"
	                                  "  - {name: inherits, load: {steps: [10, 20]}}\n"
	                                  "  - name: overrides\n"
	                                  "    rw: read\n"
	                                  "    block_size: 8k\n"
	                                  "    workers: 8\n"
	                                  "    queue_depth: 1\n"
	                                  "    interval: 2s\n"
	                                  "    warmup: 4s\n"
	                                  "    measure: 10s\n"
	                                  "    load:\n"
	                                  "      steps:\n"
	                                  "        - 1.5M\n");
	const struct workload *a = &c->workloads[0], *b = &c->workloads[1];

	assert_int_equal(c->nworkloads, 2);
	assert_int_equal(c->slo_latency_ns, 500000);
	assert_true(c->slo_from_due);
	assert_string_equal(a->name, "inherits");
	assert_int_equal(a->io.rw, RW_WRITE);
	assert_int_equal(a->io.block_size, 65536);
	assert_int_equal(a->io.workers, 4);
	assert_int_equal(a->io.queue_depth, 32);
	assert_int_equal(a->interval_ns, 500 * MS);
	assert_int_equal(a->warmup_ns, 0);
	assert_int_equal(a->measure_ns, 2 * S);
	assert_int_equal(a->nsteps, 2);
	assert_string_equal(b->name, "overrides");
	assert_int_equal(b->io.rw, RW_READ);
	assert_int_equal(b->io.block_size, 8192);
	assert_int_equal(b->io.workers, 8);
	assert_int_equal(b->io.queue_depth, 1);
	assert_int_equal(b->interval_ns, 2 * S);
	assert_int_equal(b->warmup_ns, 4 * S);
	assert_int_equal(b->measure_ns, 10 * S);
	assert_int_equal(b->nsteps, 1);
	assert_true(b->steps[0].ops == 1500000.0);
	campaign_free(c);
}

static void test_select_mode(void **state)
{
	struct campaign *c;

	c = testlib_campaign_ok("campaign: t\n"
	                        "agents: {select: {count: 4}, wait: 30s}\n"
	                        "target: {path: /mnt/nas, size: 1GiB, direct: no}\n"
	                        "workloads: [{name: a, load: {steps: [1]}}]\n");
	assert_int_equal(c->agents_mode, CAMPAIGN_AGENTS_SELECT);
	assert_int_equal(c->agents_count, 4);
	assert_int_equal(c->agents_wait_ns, 30 * S);
	assert_false(c->targets[0].direct);
	campaign_free(c);

	c = testlib_campaign_ok("campaign: t\n"
	                        "agents:\n"
	                        "  select:\n"
	                        "    count: 2\n"
	                        "target: {path: /mnt/nas, size: 1GiB, direct: yes}\n"
	                        "workloads: [{name: a, load: {steps: [1]}}]\n");
	assert_int_equal(c->agents_mode, CAMPAIGN_AGENTS_SELECT);
	assert_int_equal(c->agents_count, 2);
	assert_int_equal(c->agents_wait_ns, 60 * S);
	assert_true(c->targets[0].direct);
	campaign_free(c);
}

/* agents.detail: agents' lines with bins up to 64 agents by default, counts above. */
/* retry: 2 more runs of a disturbed step by default; campaign-wide, per workload, bounded. */
static void test_retry(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    "campaign: t\nagents: {local: 1}\ntarget: {path: /mnt/nas, size: 1GiB}\nretry: 1\n"
	    "workloads: [{name: a, load: {steps: [1]}}, {name: b, retry: 0, load: {steps: "
	    "[1]}}]\n");

	(void)state;
	assert_int_equal(c->workloads[0].retry, 1);
	assert_int_equal(c->workloads[1].retry, 0);
	campaign_free(c);
	c = testlib_campaign_ok("campaign: t\nagents: {local: 1}\n"
	                        "target: {path: /mnt/nas, size: 1GiB}\n"
	                        "workloads: [{name: a, load: {steps: [1]}}]\n");
	assert_int_equal(c->workloads[0].retry, 2);
	campaign_free(c);
	testlib_campaign_fails("campaign: t\nagents: {local: 1}\n"
	                       "target: {path: /mnt/nas, size: 1GiB}\nretry: 11\n"
	                       "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:8: retry");
}

static void test_agent_detail(void **state)
{
	static const struct {
		const char *agents;
		bool bins;
	} cases[] = {
	    {"{local: 2}", true},
	    {"{local: 2, detail: counts}", false},
	    {"{select: {count: 64}}", true},
	    {"{select: {count: 65}}", false},
	    {"{select: {count: 5000}, detail: histograms}", true},
	    {"{select: {count: 5000}, detail: auto}", false},
	};
	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *text =
		    xasprintf("campaign: t\nagents: %s\ntarget: {path: /mnt/nas, size: 1GiB}\n"
		              "workloads: [{name: a, load: {steps: [1]}}]\n",
		              cases[i].agents);
		struct campaign *c = testlib_campaign_ok(text);

		assert_int_equal(campaign_agent_histograms(c), cases[i].bins);
		campaign_free(c);
		free(text);
	}
	testlib_campaign_fails("campaign: t\nagents: {local: 2, detail: bins}\n"
	                       "target: {path: /mnt/nas, size: 1GiB}\n"
	                       "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:2:28: agents.detail: 'bins' is not histograms, counts or "
	                       "auto");
}

static void test_sizes(void **state)
{
	testlib_campaign_fails(
	    "campaign: ../../etc\n"
	    "agents: {local: 1}\n"
	    "target: {path: /tmp/x, size: 4MiB}\n"
	    "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:1:11: campaign: expected letters, digits, '.', '_' and '-' "
	    "only");
	testlib_campaign_fails(
	    TEST_HEAD "block_size: 1000\n"
	              "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:4:13: block_size: expected a multiple of 512B up to 16MiB, "
	    "got '1000'");
	testlib_campaign_fails(
	    TEST_HEAD "block_size: 32MiB\n"
	              "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:4:13: block_size: expected a multiple of 512B up to 16MiB");
	testlib_campaign_fails(
	    TEST_HEAD "block_size: 12XB\n"
	              "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:4:13: block_size: '12XB' is not a size (expected a number "
	    "with B, KiB,");
	testlib_campaign_fails(
	    "campaign: t\n"
	    "agents: {local: 1}\n"
	    "target: {path: /tmp/x, size: 6KiB}\n"
	    "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:3:30: target.size: expected a multiple of 4KiB, got '6KiB'");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "target: {path: /tmp/x, size: 0}\n"
	                       "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:3:30: target.size: expected a multiple of 4KiB, got '0'");
	testlib_campaign_fails(
	    "campaign: t\n"
	    "agents: {local: 1}\n"
	    "target: {path: /tmp/x, size: 8KiB}\n"
	    "workloads:\n"
	    "  - {name: a, load: {steps: [1]}}\n"
	    "  - {name: big, block_size: 1MiB, load: {steps: [1]}}\n",
	    "test.yaml:3:30: target.size: 8KiB is smaller than block_size 1MiB of "
	    "workload 'big'");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1}\n"
	                       "target: {path: tmp/x, size: 1MiB}\n"
	                       "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:3:16: target.path: expected an absolute path such as "
	                       "/mnt/test, got 'tmp/x'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: 'a b', load: {steps: [1]}}]\n",
	    "test.yaml:4:20: name: expected letters, digits, '.', '_' and '-' only, "
	    "got 'a b'");
	testlib_campaign_fails(TEST_HEAD "workloads: [{name: ../x, load: {steps: [1]}}]\n",
	                       "test.yaml:4:20: name: expected letters, digits");
}

static void test_load_file(void **state)
{
	char path[] = "/tmp/iocurve-test-campaign-XXXXXX";
	struct error err = {{0}};
	struct campaign *c = NULL;
	int fd = mkstemp(path);
	FILE *f;

	assert_true(fd >= 0);
	f = fdopen(fd, "w");
	assert_non_null(f);
	assert_int_equal(fwrite(test_campaign_demo, 1, strlen(test_campaign_demo), f),
	                 strlen(test_campaign_demo));
	fclose(f);
	assert_int_equal(campaign_load(path, &c, &err), 0);
	assert_string_equal(c->path, path);
	assert_string_equal(c->text, test_campaign_demo);
	assert_int_equal(c->workloads[0].nsteps, 3);
	campaign_free(c);

	/* messages from a loaded file carry its path */
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("campaign: t\nbogus: 1\n", f);
	fclose(f);
	assert_int_equal(campaign_load(path, &c, &err), -1);
	assert_null(c);
	assert_true(strncmp(err.msg, path, strlen(path)) == 0);
	assert_non_null(strstr(err.msg, ":2:1: unknown key 'bogus' in campaign"));
	unlink(path);

	assert_int_equal(campaign_load("/nonexistent/x.yaml", &c, &err), -1);
	assert_null(c);
	assert_string_equal(err.msg, "/nonexistent/x.yaml: cannot read: No such file or directory");
	assert_int_equal(campaign_load("/tmp", &c, &err), -1);
	assert_true(strncmp(err.msg, "/tmp: cannot read: Is a directory", 33) == 0);
}

static void test_parse_uses_length(void **state)
{
	struct error err = {{0}};
	struct campaign *c = NULL;
	/* only the demo part is passed: the garbage after it must not be read */
	size_t len = strlen(test_campaign_demo);
	char *text = malloc(len + 8);

	assert_non_null(text);
	memcpy(text, test_campaign_demo, len);
	memcpy(text + len, "junk: [", 8);
	assert_int_equal(campaign_parse(text, len, "mem", &c, &err), 0);
	assert_int_equal(c->text_len, len);
	assert_int_equal(c->text[len], '\0');
	free(text);
	campaign_free(c);
	campaign_free(NULL);
}

/* The I/O engine's keys: mixes, alignment, working set, distributions, data, max steps. */
static void test_access_keys(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "random: zipf:1.1\n"
	              "data: {compress: 50, dedupe: 30}\n"
	              "workloads:\n"
	              "  - {name: mix, rw: randrw, wake_slack: 100us, load: {steps: [1k, max]}}\n"
	              "  - {name: seqmix, rw: rw, read_pct: 70, align: 512, working_set: 512KiB,\n"
	              "     random: hotspot:10/90, arrivals: poisson, direct: false,\n"
	              "     load: {steps: [100], max: true}}\n"
	              "  - {name: peak, rw: read, block_size: 64KiB, load: {max: true}}\n");
	const struct workload *w = c->workloads;

	assert_int_equal(c->nworkloads, 3);
	assert_int_equal(w[0].io.rw, RW_RANDRW);
	assert_int_equal(w[0].io.read_pct, 75); /* the 75/25 default */
	assert_int_equal(w[0].io.wake_slack_ns, 100000);
	assert_int_equal(w[1].io.wake_slack_ns, 0);
	assert_int_equal(w[0].io.dist, ACCESS_ZIPF);
	assert_true(w[0].io.zipf_theta > 1.09 && w[0].io.zipf_theta < 1.11);
	assert_int_equal(w[0].io.compress_pct, 50);
	assert_int_equal(w[0].io.dedupe_pct, 30);
	assert_true(w[0].io.direct);
	assert_false(w[0].io.poisson);
	assert_int_equal(w[0].nsteps, 2);
	assert_true(w[0].steps[0].ops == 1000 && w[0].steps[1].ops == 0);
	assert_int_equal(w[1].io.rw, RW_RW);
	assert_int_equal(w[1].io.read_pct, 70);
	assert_int_equal(w[1].io.align, 512);
	assert_int_equal(w[1].io.working_set, 512 * 1024);
	assert_int_equal(w[1].io.dist, ACCESS_HOTSPOT);
	assert_true(w[1].io.hot_set_pct == 10 && w[1].io.hot_ops_pct == 90);
	assert_true(w[1].io.poisson);
	assert_false(w[1].io.direct);
	assert_int_equal(w[1].nsteps, 2); /* steps, then the closed-loop peak */
	assert_true(w[1].steps[0].ops == 100 && w[1].steps[1].ops == 0);
	assert_int_equal(w[2].nsteps, 1);
	assert_true(w[2].steps[0].ops == 0);
	assert_int_equal(w[2].io.read_pct, 75);
	campaign_free(c);

	testlib_campaign_fails(TEST_HEAD
	                       "workloads: [{name: a, random: zipf:x, load: {steps: [1]}}]\n",
	                       "test.yaml:4:31: random: expected zipf:THETA with THETA above 0");
	testlib_campaign_fails(TEST_HEAD
	                       "workloads: [{name: a, random: hotspot:10, load: {max: true}}]\n",
	                       "test.yaml:4:31: random: expected hotspot:SET/OPS");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, read_pct: 101, load: {max: true}}]\n",
	    "test.yaml:4:33: read_pct: expected a whole number 0..100, got '101'");
	testlib_campaign_fails(
	    TEST_HEAD "working_set: 2MiB\n"
	              "workloads: [{name: a, load: {max: true}}]\n",
	    "test.yaml:4:14: working_set: larger than target.size of workload 'a'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, align: 8KiB, load: {max: true}}]\n",
	    "test.yaml:4:30: align: larger than block_size 4KiB of workload 'a'");
	testlib_campaign_fails(TEST_HEAD
	                       "workloads: [{name: a, data: {zip: 1}, load: {max: true}}]\n",
	                       "test.yaml:4:30: unknown key 'zip' in data");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, arrivals: bursty, load: {max: true}}]\n",
	    "test.yaml:4:33: arrivals: expected uniform or poisson, got 'bursty'");
	testlib_campaign_fails(
	    TEST_HEAD "workloads: [{name: a, load: {}}]\n",
	    "test.yaml:4:29: load of workload 'a' is missing 'steps', 'curve' or 'ramp' (or max: "
	    "true)");
}

/* zip pairs lists by position: the four corners are four workloads, not eight. */
static void test_zip(void **state)
{
	struct campaign *c =
	    testlib_campaign_ok(TEST_HEAD "workloads:\n"
	                                  "  - name: 4c\n"
	                                  "    rw: [read, write, randread, randwrite]\n"
	                                  "    block_size: [64KiB, 64KiB, 8KiB, 8KiB]\n"
	                                  "    zip: [rw, block_size]\n"
	                                  "    queue_depth: [8, 32]\n"
	                                  "    load: {steps: [100MiB/s]}\n");
	static const char *const names[] = {
	    "4c-read-64k-qd8",     "4c-read-64k-qd32",     "4c-write-64k-qd8",
	    "4c-write-64k-qd32",   "4c-randread-8k-qd8",   "4c-randread-8k-qd32",
	    "4c-randwrite-8k-qd8", "4c-randwrite-8k-qd32",
	};

	assert_int_equal(c->nworkloads, 8); /* 4 pairs x 2 queue depths */
	for (size_t i = 0; i < 8; i++)
		assert_string_equal(c->workloads[i].name, names[i]);
	assert_int_equal(c->workloads[4].io.block_size, 8192);
	assert_int_equal(c->workloads[1].io.queue_depth, 32);
	campaign_free(c);
	c = testlib_campaign_ok(TEST_HEAD "workloads:\n"
	                                  "  - rw: [read, write, randread, randwrite]\n"
	                                  "    block_size: [64KiB, 64KiB, 8KiB, 8KiB]\n"
	                                  "    zip: [block_size, rw]\n"
	                                  "    load: {steps: [100MiB/s]}\n");
	assert_int_equal(c->nworkloads, 4);
	assert_string_equal(c->workloads[3].name, "randwrite-8k");
	campaign_free(c);
	testlib_campaign_fails(
	    TEST_HEAD "workloads:\n"
	              "  - name: a\n"
	              "    rw: [read, write]\n"
	              "    block_size: [64KiB, 8KiB, 4KiB]\n"
	              "    zip: [rw, block_size]\n"
	              "    load: {steps: [1]}\n",
	    "test.yaml:8:15: zip: block_size has 3 values and rw 2; zipped lists "
	    "pair by position and must be as long");
	testlib_campaign_fails(TEST_HEAD "workloads:\n"
	                                 "  - name: a\n"
	                                 "    rw: [read, write]\n"
	                                 "    block_size: 8KiB\n"
	                                 "    zip: [rw, block_size]\n"
	                                 "    load: {steps: [1]}\n",
	                       "test.yaml:8:15: zip: block_size is not a list in workload 'a'");
	testlib_campaign_fails(TEST_HEAD "workloads:\n"
	                                 "  - name: a\n"
	                                 "    rw: [read, write]\n"
	                                 "    zip: [rw]\n"
	                                 "    load: {steps: [1]}\n",
	                       "test.yaml:7:10: zip: expected a list of two or more");
}

/* A top-level rate in ops/s is not silently a bandwidth for a sequential workload. */
static void test_inherited_rate_unit(void **state)
{
	struct campaign *c;

	testlib_campaign_fails(
	    TEST_HEAD "load: {ramp: {start: 2000, factor: 1.5}}\n"
	              "workloads:\n"
	              "  - {name: rr, rw: randread, block_size: 8KiB}\n"
	              "  - {name: sr, rw: read, block_size: 64KiB}\n",
	    "test.yaml:4:22: load.ramp.start: 2000 is a rate in ops/s, but "
	    "workload 'sr' is sequential and judged in MiB/s, where it would mean "
	    "125MiB/s (2000 ops of 64KiB); give that workload its own load, or "
	    "write the rate as a bandwidth");
	/* a bandwidth says what it means for both; its own load wins */
	c = testlib_campaign_ok(TEST_HEAD
	                        "load: {ramp: {start: 100MiB/s, factor: 1.5}}\n"
	                        "workloads:\n"
	                        "  - {name: rr, rw: randread, block_size: 8KiB}\n"
	                        "  - {name: sr, rw: read, block_size: 64KiB}\n"
	                        "  - {name: sw, rw: write, block_size: 64KiB, load: {steps: "
	                        "[200]}}\n");
	assert_true(c->workloads[0].ramp_start == 12800);
	assert_true(c->workloads[1].ramp_start == 1600);
	assert_int_equal(c->nworkloads, 3);
	campaign_free(c);
}

/* percentiles: the tables' latency columns, ascending, inside (0, 100). */
static void test_percentiles(void **state)
{
	struct campaign *c = testlib_campaign_ok(TEST_HEAD "percentiles: [50, 99, 99.9, 99.99]\n"
	                                                   "workloads: [{name: a, load: {steps: "
	                                                   "[1]}}]\n");

	assert_int_equal(c->npercentiles, 4);
	assert_true(c->percentiles[3] == 99.99);
	campaign_free(c);
	c = testlib_campaign_ok(TEST_HEAD "workloads: [{name: a, load: {steps: [1]}}]\n");
	assert_int_equal(c->npercentiles, 4); /* p50, p90, p99, p99.9 */
	assert_true(c->percentiles[1] == 90 && c->percentiles[3] == 99.9);
	campaign_free(c);
	testlib_campaign_fails(
	    TEST_HEAD "percentiles: [99, 50]\n"
	              "workloads: [{name: a, load: {steps: [1]}}]\n",
	    "test.yaml:4:19: percentiles: expected a list of percentiles such as "
	    "[50, 90, 99, 99.9, 99.99], ascending");
	testlib_campaign_fails(TEST_HEAD "percentiles: [50, 100]\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:19: percentiles: expected");
	testlib_campaign_fails(TEST_HEAD "percentiles: 99\n"
	                                 "workloads: [{name: a, load: {steps: [1]}}]\n",
	                       "test.yaml:4:14: percentiles: expected");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_demo),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_inherit_and_override),
	    cmocka_unit_test(test_select_mode),
	    cmocka_unit_test(test_agent_detail),
	    cmocka_unit_test(test_retry),
	    cmocka_unit_test(test_sizes),
	    cmocka_unit_test(test_load_file),
	    cmocka_unit_test(test_parse_uses_length),
	    cmocka_unit_test(test_access_keys),
	    cmocka_unit_test(test_zip),
	    cmocka_unit_test(test_inherited_rate_unit),
	    cmocka_unit_test(test_percentiles),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
