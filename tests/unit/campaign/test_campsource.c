/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the campaign language over files: --set, ${NAME} from the
 * environment, include:, the effective campaign plan.yaml keeps, and agents.caps.
 */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "campaign.h"
#include "campsource.h"
#include "testlib.h"

static char test_dir[PATH_MAX];

/* The campaign every test starts from, as demo.yaml in the test directory. */
#define DEMO                                                                                       \
	"campaign: demo\n"                                                                         \
	"agents: {local: 1}\n"                                                                     \
	"target: {sim: {servers: 2, service_time: 200us}}\n"                                       \
	"load: {steps: [100]}\n"                                                                   \
	"workloads:\n"                                                                             \
	"  - {name: rr, rw: randread, queue_depth: 2}\n"                                           \
	"  - {name: sw, rw: write, load: {steps: [1MiB/s]}}\n"

/* A fake environment: NAME=VALUE pairs the test gives, nothing of the process's. */
static const char *test_env[8];

static const char *test_getenv(void *arg, const char *name)
{
	size_t n = strlen(name);

	for (size_t i = 0; test_env[i] != NULL; i++)
		if (strncmp(test_env[i], name, n) == 0 && test_env[i][n] == '=')
			return test_env[i] + n + 1;
	return NULL;
}

static const char *test_write(const char *name, const char *text)
{
	static char path[PATH_MAX + 64];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", test_dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return path;
}

/* Load name from the test directory with the --set arguments (NULL-terminated). */
static int test_load(const char *name, struct campaign **c, struct error *err, ...)
{
	const char *sets[8];
	struct campsource src = {.sets = sets, .getenv = test_getenv};
	char path[PATH_MAX + 64];
	va_list ap;

	va_start(ap, err);
	while ((sets[src.nsets] = va_arg(ap, const char *)) != NULL)
		src.nsets++;
	va_end(ap);
	snprintf(path, sizeof(path), "%s/%s", test_dir, name);
	return campaign_load_source(path, &src, c, err);
}

/* err must read "DIR/" + want (want names a file of the test directory) or want itself. */
static void test_err(const struct error *err, const char *want)
{
	char full[PATH_MAX + 1200];

	snprintf(full, sizeof(full), "%s/%s", test_dir, want);
	if (strcmp(err->msg, want) != 0 && strcmp(err->msg, full) != 0)
		fail_msg("got \"%s\"\nwant \"%s\"", err->msg, want);
}

static int test_setup(void **state)
{
	snprintf(test_dir, sizeof(test_dir), "/tmp/iocurve-test-campsource.XXXXXX");
	assert_non_null(mkdtemp(test_dir));
	memset(test_env, 0, sizeof(test_env));
	return 0;
}

static int test_teardown(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", test_dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* A file with none of the language is kept as written: plan.yaml is the file. */
static void test_plain_file_verbatim(void **state)
{
	struct campaign *c;
	struct error err;

	test_write("demo.yaml", "# mine\n" DEMO);
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), 0);
	assert_false(c->text_generated);
	assert_string_equal(c->text, "# mine\n" DEMO);
	campaign_free(c);
}

static void test_set_paths(void **state)
{
	struct campaign *c;
	struct error err;

	test_write("demo.yaml", DEMO);
	assert_int_equal(test_load("demo.yaml", &c, &err, "target.sim.servers=3",
	                           "workloads.rr.queue_depth=8", "slo.latency=2ms",
	                           "workloads.sw.load={steps: [10, 20]}", NULL),
	                 0);
	assert_true(c->text_generated);
	assert_int_equal(c->targets[0].sim.servers, 3);
	assert_int_equal(c->workloads[0].io.queue_depth, 8);
	/* untouched: sized from its load, 2 x 20 ops/s x 2 ms rounded up, + 16 */
	assert_int_equal(c->workloads[1].io.queue_depth, 17);
	/* slo: was not in the file: a known key is added */
	assert_int_equal(c->slo_latency_ns, 2000000);
	assert_int_equal(c->workloads[1].nsteps, 2);
	assert_true(c->workloads[1].steps[1].ops == 20);
	assert_non_null(
	    strstr(c->text, "queue_depth: 8  # from --set workloads.rr.queue_depth=8\n"));
	assert_non_null(strstr(c->text, "servers: 3  # from --set target.sim.servers=3\n"));
	campaign_free(c);
}

static void test_set_errors(void **state)
{
	struct campaign *c;
	struct error err;

	test_write("demo.yaml", DEMO);
	assert_int_equal(test_load("demo.yaml", &c, &err, "workloads.rr.queue_dept=8", NULL), -1);
	assert_non_null(strstr(err.msg, "--set workloads.rr.queue_dept=8: unknown key 'queue_dept' "
	                                "in workload 'rr' (known: name, rw,"));
	assert_non_null(strstr(err.msg, "did you mean 'queue_depth'?"));
	assert_int_equal(test_load("demo.yaml", &c, &err, "workloads.rx.queue_depth=8", NULL), -1);
	test_err(&err, "--set workloads.rx.queue_depth=8: no item named 'rx' in 'workloads' "
	               "(names: rr, sw)");
	assert_int_equal(test_load("demo.yaml", &c, &err, "target.sim.servers=0", NULL), -1);
	test_err(&err, "--set target.sim.servers=0: target.sim.servers: expected a whole number "
	               "1..1024, got '0'");
	assert_int_equal(test_load("demo.yaml", &c, &err, "workers", NULL), -1);
	test_err(&err, "--set workers: expected KEY=VALUE such as target.path=/mnt/test or "
	               "workloads.NAME.queue_depth=8");
	assert_int_equal(test_load("demo.yaml", &c, &err, "campaign.x=1", NULL), -1);
	test_err(&err, "--set campaign.x=1: 'campaign' holds a value ('demo'), not keys");
	assert_int_equal(test_load("demo.yaml", &c, &err, "load.steps.x=1", NULL), -1);
	test_err(&err, "--set load.steps.x=1: 'load.steps' is a list whose items have no name: "
	               "set it whole (--set 'load.steps=[...]')");
	assert_int_equal(test_load("demo.yaml", &c, &err, "slo.latency=[1", NULL), -1);
	assert_non_null(strstr(err.msg, "--set slo.latency=[1: VALUE:2:1: did not find expected"));
	/* a path that does not exist is refused unless it adds a known key */
	assert_int_equal(test_load("demo.yaml", &c, &err, "foo.bar=1", NULL), -1);
	assert_non_null(strstr(err.msg, "--set foo.bar=1: unknown key 'foo' in campaign (known:"));
}

static void test_env_vars(void **state)
{
	struct campaign *c;
	struct error err;

	test_write("demo.yaml", "campaign: demo\n"
	                        "agents: {local: 1}\n"
	                        "target:\n"
	                        "  path: ${DISK}/t\n"
	                        "  size: ${SIZE:-1MiB}\n"
	                        "load: {steps: [100]}\n"
	                        "workloads:\n"
	                        "  - {name: rr, rw: randread, queue_depth: 2}\n");
	test_env[0] = "DISK=/mnt/fast";
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), 0);
	assert_string_equal(c->targets[0].path, "/mnt/fast/t");
	assert_int_equal(c->targets[0].size, 1 << 20);
	assert_non_null(strstr(c->text, "path: /mnt/fast/t  # from ${DISK}\n"));
	assert_non_null(strstr(c->text, "size: 1MiB  # from ${SIZE:-1MiB}\n"));
	campaign_free(c);
	test_env[1] = "SIZE=2MiB";
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), 0);
	assert_int_equal(c->targets[0].size, 2 << 20);
	campaign_free(c);
	/* the value is checked as if written there, and the message says where it came from */
	test_env[0] = "DISK=relative";
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), -1);
	test_err(&err, "demo.yaml:4:9: target.path: expected an absolute path such as /mnt/test, "
	               "got 'relative/t' (from ${DISK})");
	test_env[0] = "OTHER=1";
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), -1);
	test_err(&err, "demo.yaml:4:9: ${DISK} is not set (export DISK=..., or give a default: "
	               "${DISK:-VALUE})");
}

static void test_dollar(void **state)
{
	struct campaign *c, *again;
	struct error err;

	test_write("demo.yaml", "campaign: demo\n"
	                        "agents: {local: 1}\n"
	                        "target: {path: /mnt/a$$b$, size: 1MiB}\n"
	                        "load: {steps: [100]}\n"
	                        "workloads:\n"
	                        "  - {name: rr, rw: randread}\n");
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), 0);
	assert_string_equal(c->targets[0].path, "/mnt/a$b$");
	/* the effective campaign is literal: what a daemon and plan.yaml readers parse */
	assert_true(c->text_generated);
	assert_int_equal(campaign_parse(c->text, c->text_len, "plan.yaml", &again, &err), 0);
	assert_string_equal(again->targets[0].path, "/mnt/a$b$");
	campaign_free(again);
	campaign_free(c);
	test_write("demo.yaml", "campaign: demo\n"
	                        "agents: {local: 1}\n"
	                        "target: {path: /mnt/$DISK, size: 1MiB}\n"
	                        "workloads: [{name: rr, rw: randread, load: {steps: [1]}}]\n");
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), -1);
	test_err(&err, "demo.yaml:3:16: '$DISK' is not expanded: write ${DISK} (or $$ for a "
	               "literal '$')");
	test_write("demo.yaml", "campaign: demo\n"
	                        "agents: {local: 1}\n"
	                        "target:\n"
	                        "  path: /mnt/${DISK\n"
	                        "  size: 1MiB\n"
	                        "workloads: [{name: rr, rw: randread, load: {steps: [1]}}]\n");
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), -1);
	test_err(&err, "demo.yaml:4:9: '${DISK': expected ${NAME} or ${NAME:-default}, NAME of "
	               "letters, digits and '_' (or $$ for a literal '$')");
}

static void test_include(void **state)
{
	struct campaign *c, *again;
	struct error err;

	{
		char d[PATH_MAX + 8];

		snprintf(d, sizeof(d), "%s/conf", test_dir);
		assert_int_equal(mkdir(d, 0755), 0);
	}
	test_write("conf/base.yaml", "include: sim.yaml\n"
	                             "agents: {local: 1}\n"
	                             "workers: 2\n"
	                             "queue_depth: 4\n");
	test_write("conf/sim.yaml", "target: {sim: {servers: 2, service_time: 200us}}\n"
	                            "workers: 3\n");
	test_write("demo.yaml", "include: conf/base.yaml\n"
	                        "campaign: demo\n"
	                        "queue_depth: 8\n"
	                        "target: {sim: {servers: 5}}\n"
	                        "load: {steps: [100]}\n"
	                        "workloads:\n"
	                        "  - {name: rr, rw: randread}\n");
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), 0);
	assert_int_equal(c->workloads[0].io.workers, 2);     /* base over sim */
	assert_int_equal(c->workloads[0].io.queue_depth, 8); /* demo over base */
	assert_int_equal(c->targets[0].sim.servers, 5);      /* merged key by key */
	assert_int_equal(c->targets[0].sim.service_ns, 200000);
	assert_non_null(strstr(c->text, "workers: 2  # from include "));
	assert_non_null(strstr(c->text, "conf/base.yaml:3\n"));
	assert_non_null(strstr(c->text, "service_time: 200us  # from include "));
	assert_null(strstr(c->text, "\ninclude:"));
	assert_int_equal(campaign_parse(c->text, c->text_len, "plan.yaml", &again, &err), 0);
	assert_int_equal(again->workloads[0].io.workers, 2);
	assert_int_equal(again->targets[0].sim.servers, 5);
	campaign_free(again);
	campaign_free(c);
	/* --set applies after the includes, to what came from them too */
	assert_int_equal(test_load("demo.yaml", &c, &err, "target.sim.service_time=1ms", NULL), 0);
	assert_int_equal(c->targets[0].sim.service_ns, 1000000);
	campaign_free(c);
}

static void test_include_errors(void **state)
{
	struct campaign *c;
	struct error err;

	test_write("base.yaml", "agents: {local: 1}\n"
	                        "workers: 0\n");
	test_write("demo.yaml", "include: base.yaml\n" DEMO);
	/* a value from an included file is checked there, and named there */
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), -1);
	test_err(&err, "base.yaml:2:10: workers: expected a whole number 1..256, got '0'");
	test_write("base.yaml", "agents: {local: 1\n");
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), -1);
	assert_non_null(strstr(err.msg, "base.yaml:2:1: did not find expected ',' or '}'"));
	test_write("base.yaml", "include: demo.yaml\n");
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), -1);
	assert_non_null(strstr(err.msg, "base.yaml:1:10: include cycle: "));
	assert_non_null(strstr(err.msg, "demo.yaml -> "));
	assert_non_null(strstr(err.msg, "base.yaml -> "));
	test_write("base.yaml", "- a\n");
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), -1);
	test_err(&err, "base.yaml:1:1: an included file holds a mapping of campaign keys (such "
	               "as target: and workers:)");
	test_write("demo.yaml", "include: nope.yaml\n" DEMO);
	assert_int_equal(test_load("demo.yaml", &c, &err, NULL), -1);
	assert_non_null(strstr(err.msg, "demo.yaml:1:10: include: "));
	assert_non_null(strstr(err.msg, "/nope.yaml: cannot read: No such file or directory"));
}

/* agents: {local: N, caps: {...}}: the local agents' --max-* options. */
static void test_caps(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    "campaign: t\n"
	    "agents: {local: 2, caps: {workers: 64, queue_depth: 2048, block_size: 32MiB, "
	    "file_size: 2TiB}}\n"
	    "target: {path: /tmp/x, size: 1MiB}\n"
	    "workers: 50\n"
	    "workloads: [{name: rr, rw: randread, load: {steps: [1]}}]\n");

	assert_int_equal(c->local_caps.workers, 64);
	assert_int_equal(c->local_caps.queue_depth, 2048);
	assert_int_equal(c->local_caps.block_size, 32u << 20);
	assert_true(c->local_caps.file_size == 2ull << 40);
	campaign_free(c);
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {select: {count: 1}, caps: {workers: 64}}\n"
	                       "target: {path: /tmp/x, size: 1MiB}\n"
	                       "workloads: [{name: rr, rw: randread, load: {steps: [1]}}]\n",
	                       "test.yaml:2:36: agents.caps: only applies to 'local'");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1, caps: {workers: 257}}\n"
	                       "target: {path: /tmp/x, size: 1MiB}\n"
	                       "workloads: [{name: rr, rw: randread, load: {steps: [1]}}]\n",
	                       "test.yaml:2:36: agents.caps.workers: expected a whole number "
	                       "1..256, got '257'");
	testlib_campaign_fails("campaign: t\n"
	                       "agents: {local: 1, caps: {cpus: 2}}\n"
	                       "target: {path: /tmp/x, size: 1MiB}\n"
	                       "workloads: [{name: rr, rw: randread, load: {steps: [1]}}]\n",
	                       "test.yaml:2:27: unknown key 'cpus' in agents.caps (known: workers, "
	                       "queue_depth, block_size, file_size)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test_setup_teardown(test_plain_file_verbatim, test_setup, test_teardown),
	    cmocka_unit_test_setup_teardown(test_set_paths, test_setup, test_teardown),
	    cmocka_unit_test_setup_teardown(test_set_errors, test_setup, test_teardown),
	    cmocka_unit_test_setup_teardown(test_env_vars, test_setup, test_teardown),
	    cmocka_unit_test_setup_teardown(test_dollar, test_setup, test_teardown),
	    cmocka_unit_test_setup_teardown(test_include, test_setup, test_teardown),
	    cmocka_unit_test_setup_teardown(test_include_errors, test_setup, test_teardown),
	    cmocka_unit_test(test_caps),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
