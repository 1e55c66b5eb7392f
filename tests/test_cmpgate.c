/* SPDX-License-Identifier: MIT */
/* Unit tests for compare --fail-if's expressions: figures, comparisons, thresholds, refusals. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "cmpgate.h"

static void test_cmpgate_knee(void **state)
{
	struct cmpgate g;
	char why[512];

	(void)state;
	assert_int_equal(cmpgate_parse("knee < -5%", &g, why, sizeof(why)), 0);
	assert_int_equal(g.figure, CMPGATE_KNEE);
	assert_true(g.below);
	assert_false(g.or_eq);
	assert_true(g.pct == -5.0);
	assert_true(cmpgate_past(&g, -12.0));
	assert_false(cmpgate_past(&g, -5.0));
	assert_false(cmpgate_past(&g, 3.0));
	assert_string_equal(g.text, "knee < -5%");
}

static void test_cmpgate_others(void **state)
{
	struct cmpgate g;
	char why[512], name[48];

	(void)state;
	assert_int_equal(cmpgate_parse("  latency@5000>=+10 %  ", &g, why, sizeof(why)), 0);
	assert_int_equal(g.figure, CMPGATE_LATENCY);
	assert_true(g.rate == 5000.0);
	assert_false(g.below);
	assert_true(g.or_eq);
	assert_true(cmpgate_past(&g, 10.0));
	assert_false(cmpgate_past(&g, 9.9));
	assert_string_equal(cmpgate_figure_name(&g, name, sizeof(name)), "latency@5000");
	assert_int_equal(cmpgate_parse("peak <= -10.5%", &g, why, sizeof(why)), 0);
	assert_int_equal(g.figure, CMPGATE_PEAK);
	assert_true(cmpgate_past(&g, -10.5));
	assert_int_equal(cmpgate_parse("sustained > 0%", &g, why, sizeof(why)), 0);
	assert_int_equal(g.figure, CMPGATE_SUSTAINED);
	assert_string_equal(cmpgate_figure_name(&g, name, sizeof(name)), "sustained");
	assert_int_equal(cmpgate_parse("storm > +10%", &g, why, sizeof(why)), 0);
	assert_int_equal(g.figure, CMPGATE_STORM);
	assert_false(g.below);
	assert_true(cmpgate_past(&g, 19.0));
	assert_false(cmpgate_past(&g, 10.0));
	assert_string_equal(cmpgate_figure_name(&g, name, sizeof(name)), "storm");
}

static void test_cmpgate_refused(void **state)
{
	static const struct {
		const char *expr, *part;
	} bad[] = {
	    {"iops < -5%", "unknown figure"},
	    {"iops < -5%", "latency@RATE or storm"},
	    {"knee = -5%", "no comparison"},
	    {"knee < %", "no change"},
	    {"knee < -5", "a percentage"},
	    {"knee < -5% and more", "unexpected 'and more'"},
	    {"latency@ > 1%", "latency@ needs a rate"},
	    {"latency@-3 > 1%", "latency@ needs a rate"},
	    {"", "unknown figure"},
	};
	struct cmpgate g;
	char why[512];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(cmpgate_parse(bad[i].expr, &g, why, sizeof(why)), -1);
		if (strstr(why, bad[i].part) == NULL)
			fail_msg("'%s': \"%s\" does not say \"%s\"", bad[i].expr, why, bad[i].part);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cmpgate_knee),
	    cmocka_unit_test(test_cmpgate_others),
	    cmocka_unit_test(test_cmpgate_refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
