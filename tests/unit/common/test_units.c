/* SPDX-License-Identifier: MIT */
/* Unit tests for sizes, durations and rates: values, limits and error messages. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "units.h"

/* Each error must name the text the user wrote and what was wrong with it. */
static void test_units_expect_contains(const char *msg, const char *part)
{
	if (strstr(msg, part) == NULL)
		fail_msg("message \"%s\" does not contain \"%s\"", msg, part);
}

static uint64_t test_units_size(const char *s)
{
	struct error err = {{0}};
	uint64_t v = 12345;

	if (units_parse_size(s, &v, &err) != 0)
		fail_msg("'%s' refused: %s", s, err.msg);
	return v;
}

static void test_units_size_bad(const char *s, const char *part)
{
	struct error err = {{0}};
	uint64_t v = 12345;

	assert_int_equal(units_parse_size(s, &v, &err), -1);
	assert_int_equal(v, 12345); /* untouched on error */
	test_units_expect_contains(err.msg, part);
}

static uint64_t test_units_duration(const char *s)
{
	struct error err = {{0}};
	uint64_t v = 12345;

	if (units_parse_duration(s, &v, &err) != 0)
		fail_msg("'%s' refused: %s", s, err.msg);
	return v;
}

static void test_units_duration_bad(const char *s, const char *part)
{
	struct error err = {{0}};
	uint64_t v = 12345;

	assert_int_equal(units_parse_duration(s, &v, &err), -1);
	assert_int_equal(v, 12345);
	test_units_expect_contains(err.msg, part);
}

static double test_units_rate(const char *s)
{
	struct error err = {{0}};
	double v = -1;

	if (units_parse_rate(s, &v, &err) != 0)
		fail_msg("'%s' refused: %s", s, err.msg);
	return v;
}

static void test_units_rate_bad(const char *s, const char *part)
{
	struct error err = {{0}};
	double v = -1;

	assert_int_equal(units_parse_rate(s, &v, &err), -1);
	test_units_expect_contains(err.msg, part);
}

static void test_size_binary(void **state)
{
	assert_int_equal(test_units_size("4096"), 4096);
	assert_int_equal(test_units_size("0"), 0);
	assert_int_equal(test_units_size("512B"), 512);
	assert_int_equal(test_units_size("8KiB"), 8192);
	assert_int_equal(test_units_size("64KiB"), 65536);
	assert_int_equal(test_units_size("256MiB"), 256ULL << 20);
	assert_int_equal(test_units_size("1GiB"), 1ULL << 30);
	assert_int_equal(test_units_size("1TiB"), 1ULL << 40);
	assert_int_equal(test_units_size("8K"), 8192);
	assert_int_equal(test_units_size("8k"), 8192);
	assert_int_equal(test_units_size("1M"), 1ULL << 20);
	assert_int_equal(test_units_size("1G"), 1ULL << 30);
	/* lowercase as workload names write sizes (randread-1m) and fio takes them */
	assert_int_equal(test_units_size("1m"), 1ULL << 20);
	assert_int_equal(test_units_size("2g"), 2ULL << 30);
	assert_int_equal(test_units_size("1t"), 1ULL << 40);
	assert_int_equal(test_units_size("1.5GiB"), 3ULL << 29);
	assert_int_equal(test_units_size("8 KiB"), 8192);
}

static void test_size_decimal(void **state)
{
	assert_int_equal(test_units_size("8KB"), 8000);
	assert_int_equal(test_units_size("8kB"), 8000);
	assert_int_equal(test_units_size("1MB"), 1000000);
	assert_int_equal(test_units_size("1GB"), 1000000000);
	assert_int_equal(test_units_size("2TB"), 2000000000000ULL);
	assert_int_equal(test_units_size("1.5KB"), 1500);
}

static void test_size_errors(void **state)
{
	test_units_size_bad("12XB", "'12XB' is not a size (expected a number with B, KiB, MiB, "
	                            "GiB, TiB, KB, MB, GB");
	test_units_size_bad("", "'' is not a size");
	test_units_size_bad("KiB", "'KiB' is not a size");
	test_units_size_bad("-1", "'-1' is not a size: sizes cannot be negative");
	test_units_size_bad("-4KiB", "cannot be negative");
	test_units_size_bad("8KiBx", "'8KiBx' is not a size");
	test_units_size_bad("8 KiB ", "is not a size");
	test_units_size_bad(" 8KiB", "is not a size");
	test_units_size_bad("0x10", "'0x10' is not a size");
	test_units_size_bad("1e3", "'1e3' is not a size");
	test_units_size_bad("18446744073709551616", "'18446744073709551616' is too large");
	test_units_size_bad("99999999999999999999999KiB", "is too large for a size");
	test_units_size_bad("16777216TiB", "'16777216TiB' is too large");
	test_units_size_bad("1.3B", "'1.3B' is not a whole number of bytes");
	test_units_size_bad("0.0001KiB", "not a whole number of bytes");
}

static void test_size_limits(void **state)
{
	assert_int_equal(test_units_size("18446744073709551615"), UINT64_MAX);
	assert_int_equal(test_units_size("16777215TiB"), 16777215ULL << 40);
	/* fraction digits beyond 18 are fine when they are zeros */
	assert_int_equal(test_units_size("1.0000000000000000000000KiB"), 1024);
}

static void test_duration_units(void **state)
{
	assert_int_equal(test_units_duration("10ns"), 10);
	assert_int_equal(test_units_duration("500us"), 500000);
	assert_int_equal(test_units_duration("200ms"), 200000000);
	assert_int_equal(test_units_duration("1s"), 1000000000);
	assert_int_equal(test_units_duration("1.5s"), 1500000000);
	assert_int_equal(test_units_duration("1.1s"), 1100000000); /* exact, no float error */
	assert_int_equal(test_units_duration("2m"), 120000000000ULL);
	assert_int_equal(test_units_duration("1h"), 3600000000000ULL);
	assert_int_equal(test_units_duration("0s"), 0);
	assert_int_equal(test_units_duration("0.25ms"), 250000);
	assert_int_equal(test_units_duration("2.5us"), 2500);
}

static void test_duration_errors(void **state)
{
	test_units_duration_bad("5", "'5' is not a duration: add a unit");
	test_units_duration_bad("0", "add a unit");
	test_units_duration_bad("1.5", "add a unit");
	test_units_duration_bad("", "'' is not a duration (expected a number with ns, us, ms");
	test_units_duration_bad("1sec", "'1sec' is not a duration");
	test_units_duration_bad("1sx", "'1sx' is not a duration");
	test_units_duration_bad("abc", "'abc' is not a duration");
	test_units_duration_bad("-1s", "'-1s' is not a duration: durations cannot be negative");
	test_units_duration_bad("1.5ns", "'1.5ns' is finer than a nanosecond");
	test_units_duration_bad("6000000h", "'6000000h' is too long for a duration");
	test_units_duration_bad("99999999999999999999999s", "too long for a duration");
}

static void test_rate(void **state)
{
	assert_true(test_units_rate("20000") == 20000.0);
	assert_true(test_units_rate("20k") == 20000.0);
	assert_true(test_units_rate("20K") == 20000.0);
	assert_true(test_units_rate("1.5M") == 1500000.0);
	assert_true(test_units_rate("2G") == 2e9);
	assert_true(test_units_rate("0.5") == 0.5);
	assert_true(test_units_rate("0") == 0.0);
}

static void test_rate_errors(void **state)
{
	test_units_rate_bad("", "'' is not a rate");
	test_units_rate_bad("fast", "'fast' is not a rate (expected ops/s");
	test_units_rate_bad("20kk", "'20kk' is not a rate");
	test_units_rate_bad("20KiB", "'20KiB' is not a rate");
	test_units_rate_bad("-5", "'-5' is not a rate: rates cannot be negative");
	test_units_rate_bad("inf", "'inf' is not a rate");
	test_units_rate_bad("nan", "'nan' is not a rate");
	test_units_rate_bad("0x10", "'0x10' is not a rate");
	test_units_rate_bad("1e3", "'1e3' is not a rate");
	test_units_rate_bad("2000000G", "'2000000G' is too large for a rate");
	test_units_rate_bad("99999999999999999999999999", "too large for a rate");
}

static double test_units_bandwidth(const char *s)
{
	struct error err = {{0}};
	double v = -1;

	if (units_parse_bandwidth(s, &v, &err) != 0)
		fail_msg("'%s' refused: %s", s, err.msg);
	return v;
}

static void test_units_bandwidth_bad(const char *s, const char *part)
{
	struct error err = {{0}};
	double v = -1;

	assert_int_equal(units_parse_bandwidth(s, &v, &err), -1);
	assert_true(v == -1); /* untouched on error */
	test_units_expect_contains(err.msg, part);
}

static void test_bandwidth(void **state)
{
	assert_true(test_units_bandwidth("800MiB/s") == 800.0 * 1048576);
	assert_true(test_units_bandwidth("1.5GiB/s") == 1.5 * 1073741824);
	assert_true(test_units_bandwidth("100MB/s") == 1e8);
	assert_true(test_units_bandwidth("4096B/s") == 4096.0);
	assert_true(test_units_bandwidth("64KiB/s") == 65536.0);
	assert_true(test_units_bandwidth("64k/s") == 65536.0); /* as sizes read it */
	assert_true(test_units_bandwidth("2 GiB/s") == 2.0 * 1073741824);
	assert_true(test_units_bandwidth("1TB/s") == 1e12);
	assert_true(test_units_bandwidth("0MiB/s") == 0.0);
}

static void test_bandwidth_errors(void **state)
{
	test_units_bandwidth_bad("", "'' is not a bandwidth (expected a size per second");
	test_units_bandwidth_bad("800", "'800' is not a bandwidth");
	test_units_bandwidth_bad("800/s", "'800/s' is not a bandwidth");
	test_units_bandwidth_bad("800MiB", "'800MiB' is not a bandwidth");
	test_units_bandwidth_bad("800XB/s", "'800XB/s' is not a bandwidth");
	test_units_bandwidth_bad("MiB/s", "'MiB/s' is not a bandwidth");
	test_units_bandwidth_bad("/s", "'/s' is not a bandwidth");
	test_units_bandwidth_bad("800MiB/h", "'800MiB/h' is not a bandwidth");
	test_units_bandwidth_bad("-1MiB/s", "'-1MiB/s' is not a bandwidth: bandwidths cannot be "
	                                    "negative");
	test_units_bandwidth_bad("inf/s", "'inf/s' is not a bandwidth");
	test_units_bandwidth_bad("1e3B/s", "'1e3B/s' is not a bandwidth");
	test_units_bandwidth_bad("2000000TiB/s", "'2000000TiB/s' is too large for a bandwidth");
	test_units_bandwidth_bad("99999999999999999999999B/s", "too large for a bandwidth");
}

static double test_units_percent(const char *s)
{
	struct error err = {{0}};
	double v = -1;

	if (units_parse_percent(s, &v, &err) != 0)
		fail_msg("'%s' refused: %s", s, err.msg);
	return v;
}

static void test_units_percent_bad(const char *s, const char *part)
{
	struct error err = {{0}};
	double v = -1;

	assert_int_equal(units_parse_percent(s, &v, &err), -1);
	assert_true(v == -1);
	test_units_expect_contains(err.msg, part);
}

static void test_percent(void **state)
{
	assert_true(test_units_percent("50%") == 50.0);
	assert_true(test_units_percent("12.5%") == 12.5);
	assert_true(test_units_percent("100%") == 100.0);
	assert_true(test_units_percent("0%") == 0.0);
	assert_true(test_units_percent("95") == 95.0);
	assert_true(test_units_percent("95 %") == 95.0);
	assert_true(test_units_percent("150%") == 150.0); /* the caller checks the range */
	test_units_percent_bad("", "'' is not a percentage (expected a percentage such as 50%");
	test_units_percent_bad("%", "'%' is not a percentage");
	test_units_percent_bad("half", "'half' is not a percentage");
	test_units_percent_bad("50%%", "'50%%' is not a percentage");
	test_units_percent_bad("50k", "'50k' is not a percentage");
	test_units_percent_bad("-5%", "'-5%' is not a percentage: percentages cannot be negative");
	test_units_percent_bad("99999999999999999999999%",
	                       "'99999999999999999999999%' is too large");
}

static void test_units_size_is(uint64_t bytes, const char *want)
{
	char buf[32];

	units_format_size(bytes, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_format_size(void **state)
{
	test_units_size_is(0, "0B");
	test_units_size_is(512, "512B");
	test_units_size_is(1023, "1023B");
	test_units_size_is(8192, "8KiB");
	test_units_size_is(256ULL << 20, "256MiB");
	test_units_size_is(3ULL << 29, "1.5GiB");
	test_units_size_is(1ULL << 40, "1TiB");
	test_units_size_is(1536, "1.5KiB");
	test_units_size_is(1000, "1000B");
	test_units_size_is(1ULL << 60, "1EiB");
	test_units_size_is(UINT64_MAX, "16EiB");
}

static void test_units_duration_is(uint64_t ns, const char *want)
{
	char buf[32];

	units_format_duration(ns, buf, sizeof(buf));
	assert_string_equal(buf, want);
}

static void test_format_duration(void **state)
{
	test_units_duration_is(0, "0ns");
	test_units_duration_is(850, "850ns");
	test_units_duration_is(999, "999ns");
	test_units_duration_is(1000, "1.00us");
	test_units_duration_is(12300, "12.3us");
	test_units_duration_is(123456, "123us");
	test_units_duration_is(999400, "999us");
	test_units_duration_is(999600, "1.00ms"); /* not "1000us" */
	test_units_duration_is(1250000, "1.25ms");
	test_units_duration_is(3000000000ULL, "3.00s");
	test_units_duration_is(90000000000ULL, "90.0s");
}

static void test_format_short_buffer(void **state)
{
	char buf[4];

	units_format_size(256ULL << 20, buf, sizeof(buf));
	assert_string_equal(buf, "256");
	units_format_duration(1250000, buf, sizeof(buf));
	assert_string_equal(buf, "1.2");
	units_format_size(1, buf, 0); /* must not write */
}

/* Counts group their digits by thousands: errors of operations read at a glance. */
static void test_format_count(void **state)
{
	char buf[32];

	(void)state;
	units_format_count(0, buf, sizeof(buf));
	assert_string_equal(buf, "0");
	units_format_count(999, buf, sizeof(buf));
	assert_string_equal(buf, "999");
	units_format_count(5000, buf, sizeof(buf));
	assert_string_equal(buf, "5,000");
	units_format_count(1234567, buf, sizeof(buf));
	assert_string_equal(buf, "1,234,567");
}

/* Everything the formatter prints must parse back to something close. */
static void test_round_trip(void **state)
{
	static const uint64_t sizes[] = {
	    512, 4096, 8192, 65536, 1ULL << 20, 256ULL << 20, 1ULL << 30, 3ULL << 29, 1ULL << 40};

	for (size_t i = 0; i < sizeof(sizes) / sizeof(sizes[0]); i++) {
		char buf[32];

		units_format_size(sizes[i], buf, sizeof(buf));
		assert_int_equal(test_units_size(buf), sizes[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_size_binary),
	    cmocka_unit_test(test_size_decimal),
	    cmocka_unit_test(test_size_errors),
	    cmocka_unit_test(test_size_limits),
	    cmocka_unit_test(test_duration_units),
	    cmocka_unit_test(test_duration_errors),
	    cmocka_unit_test(test_rate),
	    cmocka_unit_test(test_rate_errors),
	    cmocka_unit_test(test_bandwidth),
	    cmocka_unit_test(test_bandwidth_errors),
	    cmocka_unit_test(test_percent),
	    cmocka_unit_test(test_format_size),
	    cmocka_unit_test(test_format_duration),
	    cmocka_unit_test(test_format_short_buffer),
	    cmocka_unit_test(test_format_count),
	    cmocka_unit_test(test_round_trip),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
