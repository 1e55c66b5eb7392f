/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the text exposition format (promtext.h): node_exporter's own
 * spellings, labels with escapes, counters told by TYPE or name, and a page nobody
 * vouches for (malformed lines, NaN, 1e308, a NUL) skipped or refused by name.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "promtext.h"

static void test_promtext_scan(const char *page, const char *selector, struct promtext_result *r)
{
	struct promtext_selector sel;
	struct error err = {{0}};

	if (promtext_selector_parse(selector, &sel, &err) < 0)
		fail_msg("selector '%s' refused: %s", selector, err.msg);
	promtext_scan(page, strlen(page), &sel, r);
}

/* A page as node_exporter 1.5 writes it: HELP, TYPE, labels, exponents. */
static const char test_promtext_node[] =
    "# HELP node_disk_io_time_seconds_total Total seconds spent doing I/Os.\n"
    "# TYPE node_disk_io_time_seconds_total counter\n"
    "node_disk_io_time_seconds_total{device=\"vda\"} 3001.244\n"
    "node_disk_io_time_seconds_total{device=\"zram0\"} 0\n"
    "# HELP node_load1 1m load average.\n"
    "# TYPE node_load1 gauge\n"
    "node_load1 0.42\n"
    "# TYPE node_cpu_seconds_total counter\n"
    "node_cpu_seconds_total{cpu=\"0\",mode=\"idle\"} 1.5e+06\n"
    "node_cpu_seconds_total{cpu=\"1\",mode=\"idle\"} 2.5e+06\n"
    "node_cpu_seconds_total{cpu=\"1\",mode=\"user\"} 7\n"
    "# TYPE http_request_duration_seconds histogram\n"
    "http_request_duration_seconds_bucket{le=\"+Inf\"} 10\n"
    "http_request_duration_seconds_sum 2.5\n"
    "http_request_duration_seconds_count 10\n";

static void test_promtext_node_page(void **state)
{
	struct promtext_result r;

	(void)state;
	test_promtext_scan(test_promtext_node, "node_disk_io_time_seconds_total{device=\"vda\"}",
	                   &r);
	assert_int_equal(r.matched, 1);
	assert_true(r.value == 3001.244);
	assert_true(r.counter);
	assert_int_equal(r.bad_lines, 0);
	assert_int_equal(r.lines, 15);
	/* a gauge is as written */
	test_promtext_scan(test_promtext_node, "node_load1", &r);
	assert_int_equal(r.matched, 1);
	assert_false(r.counter);
	assert_true(r.value == 0.42);
	/* several samples of a selector are summed (the CPUs' idle time) */
	test_promtext_scan(test_promtext_node, "node_cpu_seconds_total{mode=\"idle\"}", &r);
	assert_int_equal(r.matched, 2);
	assert_true(r.value == 4e6);
	/* without labels: every sample of the name */
	test_promtext_scan(test_promtext_node, "node_cpu_seconds_total", &r);
	assert_int_equal(r.matched, 3);
	/* a label the sample lacks: no match */
	test_promtext_scan(test_promtext_node, "node_load1{device=\"vda\"}", &r);
	assert_int_equal(r.matched, 0);
	/* a histogram's count grows: a counter; so does its sum */
	test_promtext_scan(test_promtext_node, "http_request_duration_seconds_count", &r);
	assert_true(r.counter);
	assert_true(r.value == 10);
}

static void test_promtext_escapes(void **state)
{
	struct promtext_result r;
	const char *page = "m{path=\"a\\\"b\\\\c\\nd\",x=\"1\",} 5 1700000000000\n"
	                   "m{path=\"other\"} 6\n";

	(void)state;
	test_promtext_scan(page, "m{path=\"a\\\"b\\\\c\\nd\"}", &r);
	assert_int_equal(r.bad_lines, 0);
	assert_int_equal(r.matched, 1);
	assert_true(r.value == 5);
	/* untyped and no _total: a gauge */
	assert_false(r.counter);
}

/* Values: Go's spellings; NaN, Inf and 1e308 refused by name, not summed. */
static void test_promtext_values(void **state)
{
	struct promtext_result r;
	double v;

	(void)state;
	assert_true(promtext_float("+Inf", 4, &v) && isinf(v) && v > 0);
	assert_true(promtext_float("-Inf", 4, &v) && isinf(v) && v < 0);
	assert_true(promtext_float("NaN", 3, &v) && isnan(v));
	assert_true(promtext_float("-1.5e-3", 7, &v) && v == -1.5e-3);
	assert_false(promtext_float("0x10", 4, &v));
	assert_false(promtext_float("nan", 3, &v));
	assert_false(promtext_float("", 0, &v));
	test_promtext_scan("x_total 1\nx_total NaN\nx_total 1e308\nx_total +Inf\n", "x_total", &r);
	assert_int_equal(r.matched, 1);
	assert_true(r.value == 1);
	assert_true(r.counter);
	assert_int_equal(r.refused, 3);
	assert_non_null(strstr(r.refused_why, "x_total: value nan refused (not finite)"));
	test_promtext_scan("y 1e308\n", "y", &r);
	assert_non_null(strstr(r.refused_why, "over 1e15"));
	/* samples each within the bound do not sum past it: 3 x 9e14 give no value at all */
	test_promtext_scan("z{a=\"1\"} 9e14\nz{a=\"2\"} 9e14\nz{a=\"3\"} 9e14\n", "z", &r);
	assert_int_equal(r.matched, 0);
	assert_true(r.value == 0);
	assert_int_equal(r.refused, 2);
	assert_string_equal(r.refused_why, "z: the sum of its samples is over 1e15: refused");
}

/* Malformed lines are skipped, the first named with its number; the rest still read. */
static void test_promtext_malformed(void **state)
{
	struct promtext_result r;
	static const char page[] = "ok 1\n"
	                           "ok{a=\"1\" 2\n"
	                           "ok{a=1} 3\n"
	                           "{a=\"1\"} 4\n"
	                           "ok five\n"
	                           "ok 6 7 8\n"
	                           "ok{a=\"\\q\"} 9\n"
	                           "ok 10\r\n"
	                           "ok 11";
	char nul[] = "ok 1\nok\0 2\nok 3\n";

	(void)state;
	test_promtext_scan(page, "ok", &r);
	assert_int_equal(r.matched, 3); /* 1, 10 (CRLF) and 11 (no last newline) */
	assert_true(r.value == 22);
	assert_int_equal(r.bad_lines, 6);
	assert_int_equal(r.bad_line, 2);
	assert_string_equal(r.bad_why, "labels are not closed with '}'");
	/* a NUL in the page does not cut it short */
	{
		struct promtext_selector sel;
		struct error err;

		assert_int_equal(promtext_selector_parse("ok", &sel, &err), 0);
		promtext_scan(nul, sizeof(nul) - 1, &sel, &r);
		assert_int_equal(r.matched, 2);
		assert_int_equal(r.bad_line, 2);
		assert_string_equal(r.bad_why, "the line holds a NUL byte");
	}
}

static void test_promtext_selectors(void **state)
{
	struct promtext_selector sel;
	struct error err = {{0}};

	(void)state;
	assert_int_equal(promtext_selector_parse("a:b_c{x=\"1\", y = \"2\"}", &sel, &err), 0);
	assert_string_equal(sel.name, "a:b_c");
	assert_int_equal(sel.nlabels, 2);
	assert_string_equal(sel.labels[1].name, "y");
	assert_string_equal(sel.labels[1].value, "2");
	assert_int_equal(promtext_selector_parse("rate(x[5s])", &sel, &err), -1);
	assert_non_null(
	    strstr(err.msg, "'rate(x[5s])': expected '{' after the metric name at byte 5"));
	assert_int_equal(promtext_selector_parse("x{a!=\"1\"}", &sel, &err), -1);
	assert_non_null(strstr(err.msg, "equality is the only matcher"));
	assert_int_equal(promtext_selector_parse("9x", &sel, &err), -1);
	assert_non_null(strstr(err.msg, "does not start with a metric name"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_promtext_node_page), cmocka_unit_test(test_promtext_escapes),
	    cmocka_unit_test(test_promtext_values),    cmocka_unit_test(test_promtext_malformed),
	    cmocka_unit_test(test_promtext_selectors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
