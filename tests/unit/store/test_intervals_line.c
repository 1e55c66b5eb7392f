/* SPDX-License-Identifier: MIT */
/*
 * The record line written by hand is what jansson writes: each line is read back
 * and written again through jansson with the writer's flags, to the same bytes.
 */
#include <jansson.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "aggregate.h"
#include "intervals.h"
#include "xalloc.h"

#define LINE_FLAGS (JSON_COMPACT | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17))

/*
 * line, parsed and dumped again by jansson, newline added: the same bytes; its
 * doubles read back as reals (or null), never as integers.
 */
static void line_is_jansson(char *line)
{
	json_error_t jerr;
	json_t *o = json_loads(line, 0, &jerr);
	char *again;

	if (o == NULL)
		fail_msg("not JSON: %s: %s", jerr.text, line);
	assert_true(json_is_real(json_object_get(o, "offered_ops")));
	assert_true(json_is_real(json_object_get(o, "host_cpu_pct")) ||
	            json_is_null(json_object_get(o, "host_cpu_pct")));
	again = json_dumps(o, LINE_FLAGS);
	assert_non_null(again);
	assert_int_equal(strlen(line), strlen(again) + 1);
	assert_memory_equal(line, again, strlen(again));
	assert_int_equal(line[strlen(again)], '\n');
	free(again);
	json_decref(o);
	free(line);
}

static void test_line_as_jansson_writes_it(void **state)
{
	struct agg_record *a = xcalloc(1, sizeof(*a));
	const double offered[] = {0, 1000, 0.1 + 0.2, 1e21, 123456789012345678.0, 1e-7, 2.5e-300};
	uint64_t *c = (uint64_t *)&a->rec;

	(void)state;
	agg_record_init(a);
	for (size_t i = 0; i < offsetof(struct record, err_errno) / sizeof(uint64_t); i++)
		c[i] = (i * 7919u) << (i % 40);
	a->agents = 3;
	a->workers = 12;
	a->duration_ns = 1000000000;
	a->host_cpu_pct = 100.0 / 3;
	for (uint64_t v = 1; v < 5000000; v = v * 3 + 17)
		hist_record(&a->rec.latency, v);
	hist_record(&a->rec.service, 250000);
	for (size_t i = 0; i < sizeof(offered) / sizeof(offered[0]); i++) {
		line_is_jansson(
		    intervals_record_line("rr-4k", 2, offered[i], 5, "swarm-00001", a, i % 2 == 0));
		line_is_jansson(intervals_record_line("rr-4k", 2, offered[i], 5, NULL, a, false));
	}
	/* kinds, sync writes, a mix's parts, the device and a first error with its cause */
	hist_record(&a->rec.read_latency, 100);
	hist_record(&a->rec.write_latency, 90000);
	hist_record(&a->rec.sync_latency, 3000000);
	record_parts_use(&a->rec, 2);
	a->rec.parts[1].ops = 5;
	a->rec.parts[1].errors = 1;
	hist_record(&a->rec.parts[1].latency, 777);
	hist_record(&a->rec.parts[1].service, 700);
	snprintf(a->rec.kernel_dev, sizeof(a->rec.kernel_dev), "nfs 127.0.0.1:/srv/x");
	a->rec.err_errno = 5;
	a->rec.err_offset = 8192;
	snprintf(a->rec.err_path, sizeof(a->rec.err_path), "/mnt/t \"q\"\\x");
	snprintf(a->rec.err_cause, sizeof(a->rec.err_cause), "short read\t(4096 of 8192)");
	snprintf(a->err_agent, sizeof(a->err_agent), "swarm-00001");
	a->host_cpu_pct = NAN; /* written null */
	line_is_jansson(intervals_record_line("mix", 0, 1e6, 0, "a.b-c_d", a, true));
	line_is_jansson(intervals_record_line("mix", 0, 1e6, 0, NULL, a, true));
	agg_record_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_line_as_jansson_writes_it),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
