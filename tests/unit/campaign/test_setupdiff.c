/* SPDX-License-Identifier: MIT */
/* Unit tests for setupdiff: every key that changes what a figure means is named when it differs. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "campaign.h"
#include "setupdiff.h"
#include "trace.h"

/* The base campaign; each case below changes one line of it. */
static const char *const test_setupdiff_base[] = {
    "campaign: d",
    "agents: {local: 1}",
    "target: {sim: {servers: 4, service_time: 200us}}",
    "slo: {latency: 1ms}",
    "stop: {achieved: 95%, ceiling: 50ms}",
    "cooldown: {margin: 20%, max: 10s}",
    "percentiles: [50, 90, 99, 99.9]",
    "interval: 200ms",
    "warmup: 200ms",
    "measure: 1s",
    "workloads:",
    "  - name: rr",
    "    rw: randread",
    "    data: {compress: 0, dedupe: 0}",
    "    wake_slack: 0us",
    "    load: {steps: [1000, 2000]}",
};
#define TEST_SETUPDIFF_LINES (sizeof(test_setupdiff_base) / sizeof(test_setupdiff_base[0]))

static struct campaign *test_setupdiff_load(size_t line, const char *with)
{
	char text[4096];
	size_t off = 0;
	struct campaign *c = NULL;
	struct error err;

	for (size_t i = 0; i < TEST_SETUPDIFF_LINES; i++)
		off += (size_t)snprintf(text + off, sizeof(text) - off, "%s\n",
		                        i == line && with ? with : test_setupdiff_base[i]);
	if (campaign_parse(text, off, "d.yaml", &c, &err) < 0)
		fail_msg("%s", err.msg);
	return c;
}

static void test_setupdiff_each_key(void **state)
{
	static const struct {
		size_t line;
		const char *with, *named;
	} cases[] = {
	    {2, "target: {sim: {servers: 4, service_time: 300us}}",
	     "sim service_time 200us vs 300us"},
	    {2, "target: {sim: {servers: 4, service_time: 200us, write_service_time: 1ms}}",
	     "sim write_service_time 200us vs 1.00ms"},
	    {4, "stop: {achieved: 90%, ceiling: 50ms}", "stop achieved 95% vs 90%"},
	    {4, "stop: {achieved: 95%, ceiling: 20ms}", "stop ceiling 50.0ms vs 20.0ms"},
	    {5, "cooldown: {margin: 30%, max: 10s}", "cooldown margin 20% vs 30%"},
	    {5, "cooldown: {margin: 20%, max: 0s}", "cooldown max"},
	    {6, "percentiles: [50, 99]", "percentiles 50 90 99 99.9 vs 50 99"},
	    {13, "    data: {compress: 50, dedupe: 0}", "rr: data.compress 0 vs 50"},
	    {13, "    data: {compress: 0, dedupe: 20}", "rr: data.dedupe 0 vs 20"},
	    {14, "    wake_slack: 100us", "rr: wake_slack"},
	    {15, "    load: {steps: [1000, 3000]}", "rr: load steps 1000 2000 vs steps 1000 3000"},
	    {15, "    load: {steps: [1000, 2000], refine: 3}", "rr: refine 0 vs 3"},
	    {15, "    load: {steps: [1000, 2000], repeat: 3}", "rr: repeat 1 vs 3"},
	    {15, "    load: {steps: [1000, 2000, max]}",
	     "rr: load steps 1000 2000 vs steps 1000 2000 max"},
	    {2, "target: {sim: {servers: 4, service_time: 200us, rate_limit: 5k}}",
	     "sim rate_limit 0 vs 5000"},
	};
	struct campaign *a = test_setupdiff_load(SIZE_MAX, NULL);
	char buf[2048];

	(void)state;
	assert_int_equal(setupdiff(a, a, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "");
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct campaign *b = test_setupdiff_load(cases[i].line, cases[i].with);

		if (setupdiff(a, b, buf, sizeof(buf)) == 0 || strstr(buf, cases[i].named) == NULL)
			fail_msg("'%s': \"%s\" does not name \"%s\"", cases[i].with, buf,
			         cases[i].named);
		/* writes' service time only when a run gave one, not with service_time alone */
		if (strstr(cases[i].with, "write_service_time") == NULL &&
		    strstr(buf, "write_service_time") != NULL)
			fail_msg("'%s': \"%s\" names write_service_time", cases[i].with, buf);
		campaign_free(b);
	}
	campaign_free(a);
}

/* A clone (files only) against data of each file's own, and against another clone. */
static void test_setupdiff_clone(void **state)
{
	static const char *const text[] = {
	    "campaign: d\nagents: {local: 1}\ntarget: {path: /tmp/x, size: 1MiB}\n"
	    "workloads: [{name: boot, rw: read, load: {steps: [100]}}]\n",
	    "campaign: d\nagents: {local: 1}\ntarget: {path: /tmp/x, size: 1MiB}\n"
	    "workloads: [{name: boot, rw: read, data: {clone: golden}, load: {steps: [100]}}]\n",
	    "campaign: d\nagents: {local: 1}\ntarget: {path: /tmp/x, size: 1MiB}\n"
	    "workloads: [{name: boot, rw: read, data: {clone: other}, load: {steps: [100]}}]\n",
	};
	struct campaign *c[3];
	struct error err;
	char buf[2048];

	(void)state;
	for (int i = 0; i < 3; i++)
		if (campaign_parse(text[i], strlen(text[i]), "d.yaml", &c[i], &err) < 0)
			fail_msg("%s", err.msg);
	assert_true(setupdiff(c[0], c[1], buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "boot: data.clone none vs golden"));
	assert_true(setupdiff(c[1], c[2], buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "boot: data.clone golden vs other"));
	assert_int_equal(setupdiff(c[1], c[1], buf, sizeof(buf)), 0);
	for (int i = 0; i < 3; i++)
		campaign_free(c[i]);
}

/* A background against none, and against the same one at another rate. */
static void test_setupdiff_background(void **state)
{
	static const char *const text[] = {
	    "campaign: d\nagents: {local: 1}\ntarget: {sim: {service_time: 1ms}}\n"
	    "workloads: [{name: reads, load: {steps: [100]}}]\n",
	    "campaign: d\nagents: {local: 1}\ntarget: {sim: {service_time: 1ms}}\n"
	    "workloads: [{name: backup, rw: write, background: true, load: {steps: [50]}},\n"
	    "            {name: reads, load: {steps: [100]}}]\n",
	    "campaign: d\nagents: {local: 1}\ntarget: {sim: {service_time: 1ms}}\n"
	    "workloads: [{name: backup, rw: write, background: true, load: {steps: [80]}},\n"
	    "            {name: reads, load: {steps: [100]}}]\n",
	};
	struct campaign *c[3];
	struct error err;
	char buf[2048];

	(void)state;
	for (int i = 0; i < 3; i++)
		if (campaign_parse(text[i], strlen(text[i]), "d.yaml", &c[i], &err) < 0)
			fail_msg("%s", err.msg);
	assert_true(setupdiff(c[0], c[1], buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "background none vs backup (steps 50)"));
	assert_true(setupdiff(c[1], c[2], buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "background backup (steps 50) vs backup (steps 80)"));
	assert_int_equal(setupdiff(c[1], c[1], buf, sizeof(buf)), 0);
	for (int i = 0; i < 3; i++)
		campaign_free(c[i]);
}

/* Sync writes: fsync, fdatasync and sync: dsync each named when two setups differ. */
static void test_setupdiff_sync(void **state)
{
	static const char *const text[] = {
	    "campaign: d\nagents: {local: 1}\ntarget: {path: /tmp/x, size: 1MiB}\n"
	    "workloads: [{name: log, rw: write, load: {steps: [100]}}]\n",
	    "campaign: d\nagents: {local: 1}\ntarget: {path: /tmp/x, size: 1MiB}\n"
	    "workloads: [{name: log, rw: write, fsync: 4, load: {steps: [100]}}]\n",
	    "campaign: d\nagents: {local: 1}\ntarget: {path: /tmp/x, size: 1MiB}\n"
	    "workloads: [{name: log, rw: write, fdatasync: 1, sync: dsync, load: {steps: "
	    "[100]}}]\n",
	};
	struct campaign *c[3];
	struct error err;
	char buf[2048];

	(void)state;
	for (int i = 0; i < 3; i++)
		if (campaign_parse(text[i], strlen(text[i]), "d.yaml", &c[i], &err) < 0)
			fail_msg("%s", err.msg);
	assert_true(setupdiff(c[0], c[1], buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "log: fsync 0 vs 4"));
	assert_true(setupdiff(c[1], c[2], buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "log: fsync 4 vs 0"));
	assert_non_null(strstr(buf, "log: fdatasync 0 vs 1"));
	assert_non_null(strstr(buf, "log: sync none vs dsync"));
	assert_int_equal(setupdiff(c[2], c[2], buf, sizeof(buf)), 0);
	for (int i = 0; i < 3; i++)
		campaign_free(c[i]);
}

/* targets: each target against the one of its name; one only one run has is named. */
static void test_setupdiff_targets(void **state)
{
	static const char *const fmt = "campaign: d\n"
	                               "agents: {local: 1}\n"
	                               "targets:\n"
	                               "  - {name: a, sim: {servers: 4, service_time: %s}}\n"
	                               "  - {name: %s, sim: {servers: 4, service_time: 1ms}}\n"
	                               "workloads: [{name: rr, load: {max: true}}]\n";
	struct campaign *c[3];
	const char *svc[3] = {"200us", "300us", "200us"}, *second[3] = {"b", "b", "c"};
	struct error err;
	char text[1024], buf[2048];

	(void)state;
	for (int i = 0; i < 3; i++) {
		int n = snprintf(text, sizeof(text), fmt, svc[i], second[i]);

		if (campaign_parse(text, (size_t)n, "d.yaml", &c[i], &err) < 0)
			fail_msg("%s", err.msg);
	}
	assert_int_equal(setupdiff(c[0], c[0], buf, sizeof(buf)), 0);
	assert_int_not_equal(setupdiff(c[0], c[1], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "target a: sim service_time 200us vs 300us");
	assert_int_not_equal(setupdiff(c[0], c[2], buf, sizeof(buf)), 0);
	assert_string_equal(buf, "target b only in the first; target c only in the second");
	for (int i = 0; i < 3; i++)
		campaign_free(c[i]);
}

/* A trace of n operations over period_ns, with its file's bytes and digest (no operations). */
static struct trace *test_setupdiff_trace(uint32_t n, uint64_t period_ns, uint64_t bytes,
                                          char digit)
{
	struct trace *t = calloc(1, sizeof(*t));

	assert_non_null(t);
	t->n = n;
	t->period_ns = period_ns;
	t->bytes = bytes;
	memset(t->sha256, digit, 64);
	return t;
}

/*
 * A replay's trace, key by key by its content, and its load in speeds: the same speeds
 * of a trace of another rate are the same load, other speeds are named as speeds.
 */
static void test_setupdiff_replay(void **state)
{
	struct campaign *c[3];
	char buf[2048];

	(void)state;
	for (int i = 0; i < 3; i++)
		c[i] = test_setupdiff_load(0, NULL);
	/* as replayspec.c leaves them: each speed times the x1 rate (500, then 600 ops/s) */
	c[0]->workloads[0].replay = test_setupdiff_trace(1000, 2000000000ull, 28333, 'a');
	c[0]->workloads[0].steps[0].ops = 500;
	c[0]->workloads[0].steps[1].ops = 1000;
	c[1]->workloads[0].replay = test_setupdiff_trace(1200, 2000000000ull, 33993, 'b');
	c[1]->workloads[0].steps[0].ops = 600;
	c[1]->workloads[0].steps[1].ops = 1200;
	assert_int_equal(setupdiff(c[0], c[0], buf, sizeof(buf)), 0);
	assert_int_equal(setupdiff(c[0], c[1], buf, sizeof(buf)), 4);
	assert_string_equal(buf, "rr: replay.sha256 aaaaaaaaaaaa vs bbbbbbbbbbbb; rr: replay.size "
	                         "27.67KiB vs 33.2KiB; rr: replay.operations 1000 vs 1200; rr: "
	                         "replay.x1 500 ops/s vs 600 ops/s");
	/* the same trace at other speeds; a workload of rates against a replay */
	c[1]->workloads[0].replay->n = 1000;
	c[1]->workloads[0].replay->bytes = 28333;
	memset(c[1]->workloads[0].replay->sha256, 'a', 64);
	c[1]->workloads[0].steps[0].ops = 500;
	c[1]->workloads[0].steps[1].ops = 2000;
	assert_int_equal(setupdiff(c[0], c[1], buf, sizeof(buf)), 1);
	assert_string_equal(buf, "rr: load speeds x1 x2 vs speeds x1 x4");
	assert_int_equal(setupdiff(c[0], c[2], buf, sizeof(buf)), 2);
	assert_string_equal(buf, "rr: replay sha256 aaaaaaaaaaaa vs none; rr: load speeds x1 x2 "
	                         "vs steps 1000 2000");
	for (int i = 0; i < 3; i++)
		campaign_free(c[i]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_setupdiff_each_key), cmocka_unit_test(test_setupdiff_clone),
	    cmocka_unit_test(test_setupdiff_sync),     cmocka_unit_test(test_setupdiff_background),
	    cmocka_unit_test(test_setupdiff_targets),  cmocka_unit_test(test_setupdiff_replay),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
