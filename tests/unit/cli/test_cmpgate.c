/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for compare --fail-if's expressions (figures, comparisons, thresholds,
 * 'beyond noise', refusals) and its verdict on two figures (bounds, bands, undecided).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>
#include <math.h>

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
	    {"knee < -5% beyond", "unexpected 'beyond'"},
	    {"knee < -5% beyond noise now", "unexpected 'beyond noise now'"},
	    {"knee < -5% beyondnoise", "unexpected 'beyondnoise'"},
	    {"peak < -10% beyond noise", "'peak < -10% beyond noise': the peak figure has no 95%"},
	    {"sustained < -10% beyond noise", "is for knee and latency@RATE"},
	    {"storm > +10% beyond noise", "the storm figure has no 95% interval"},
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

static void test_cmpgate_noise_parsed(void **state)
{
	struct cmpgate g;
	char why[512];

	(void)state;
	assert_int_equal(cmpgate_parse("knee < -5%", &g, why, sizeof(why)), 0);
	assert_false(g.noise);
	assert_int_equal(cmpgate_parse("knee < -20% beyond noise", &g, why, sizeof(why)), 0);
	assert_true(g.noise);
	assert_true(g.below);
	assert_true(g.pct == -20.0);
	assert_string_equal(g.text, "knee < -20% beyond noise");
	assert_int_equal(
	    cmpgate_parse(" latency@5000 >= +10 %  beyond   noise ", &g, why, sizeof(why)), 0);
	assert_int_equal(g.figure, CMPGATE_LATENCY);
	assert_true(g.noise);
	assert_true(g.or_eq);
}

/* A figure: its estimate, bound (1 a lower bound) and 95% interval (none when lo > hi). */
static struct cmpgate_fig fig(double v, int bound, double lo, double hi)
{
	return (struct cmpgate_fig){.v = v, .bound = bound, .band = lo <= hi, .lo = lo, .hi = hi};
}

static struct cmpgate_decision decide(const char *expr, struct cmpgate_fig a, struct cmpgate_fig b)
{
	struct cmpgate g;
	char why[512];

	assert_int_equal(cmpgate_parse(expr, &g, why, sizeof(why)), 0);
	return cmpgate_decide(&g, &a, &b);
}

#define NOBAND 1, 0

/* The case: a base above every step (> 8000) against a slower device's 4000. */
static void test_cmpgate_decide_base_bound(void **state)
{
	struct cmpgate_fig base = fig(8000, 1, NOBAND), slow = fig(4000, 0, 4000, 8000);
	struct cmpgate_decision d;

	(void)state;
	/* a fall of at least 50%: a breach, the bound named */
	d = decide("knee < -20%", base, slow);
	assert_int_equal(d.verdict, CMPGATE_BREACH);
	assert_string_equal(d.word, "breach");
	assert_true(fabs(d.pct + 50.0) < 1e-9);
	assert_int_equal(d.dir, -1);
	assert_non_null(strstr(d.why, "past the threshold for sure"));
	assert_non_null(strstr(d.why, "the base's figure is a lower bound"));
	/* beyond noise asks for two intervals; the bound has none */
	d = decide("knee < -20% beyond noise", base, slow);
	assert_int_equal(d.verdict, CMPGATE_UNDECIDED);
	assert_string_equal(d.word, "undecided");
	assert_false(d.bands);
	assert_non_null(strstr(d.why, "the base's figure has no 95% interval"));
	/* a fall of 12.5% at the estimates could be more than 20%: undecided, not a pass */
	d = decide("knee < -20%", base, fig(7000, 0, 6900, 7100));
	assert_int_equal(d.verdict, CMPGATE_UNDECIDED);
	assert_non_null(strstr(d.why, "may be lower than this and past the threshold"));
	/* exactly -20% at the bound: past '<=' for sure, not '<' */
	assert_int_equal(decide("knee <= -20%", base, fig(6400, 0, NOBAND)).verdict,
	                 CMPGATE_BREACH);
	assert_int_equal(decide("knee < -20%", base, fig(6400, 0, NOBAND)).verdict,
	                 CMPGATE_UNDECIDED);
	/* a '>' gate: the change can only be lower than +5%, so surely not above +10% */
	d = decide("knee > +10%", base, fig(8400, 0, NOBAND));
	assert_int_equal(d.verdict, CMPGATE_PASS);
	assert_non_null(strstr(d.why, "within the threshold for sure"));
	assert_int_equal(decide("knee > +10%", base, fig(9600, 0, NOBAND)).verdict,
	                 CMPGATE_UNDECIDED);
}

static void test_cmpgate_decide_later_bound(void **state)
{
	struct cmpgate_fig base = fig(8000, 0, 7800, 8200);
	struct cmpgate_decision d;

	(void)state;
	/* a later run above every step can only be higher: '<' passes, '>' breaches */
	d = decide("knee < -20%", base, fig(9000, 1, NOBAND));
	assert_int_equal(d.verdict, CMPGATE_PASS);
	assert_int_equal(d.dir, 1);
	assert_non_null(strstr(d.why, "the later run's figure is a lower bound"));
	assert_int_equal(decide("knee > +10%", base, fig(9600, 1, NOBAND)).verdict, CMPGATE_BREACH);
	/* the bound the wrong way: it may be higher than -50%, or than +5% */
	assert_int_equal(decide("knee < -20%", base, fig(4000, 1, NOBAND)).verdict,
	                 CMPGATE_UNDECIDED);
	assert_int_equal(decide("knee > +10%", base, fig(8400, 1, NOBAND)).verdict,
	                 CMPGATE_UNDECIDED);
	/* both lower bounds: nothing is known of the change */
	d = decide("knee < -20%", fig(8000, 1, NOBAND), fig(4000, 1, NOBAND));
	assert_int_equal(d.verdict, CMPGATE_UNDECIDED);
	assert_int_equal(d.dir, 2);
	assert_non_null(strstr(d.why, "both figures are lower bounds"));
	assert_int_equal(decide("knee > +10%", fig(8000, 1, NOBAND), fig(9600, 1, NOBAND)).verdict,
	                 CMPGATE_UNDECIDED);
}

static void test_cmpgate_decide_measured(void **state)
{
	struct cmpgate_fig base = fig(8000, 0, 7800, 8200);
	struct cmpgate_decision d;

	(void)state;
	d = decide("knee < -20%", base, fig(7900, 0, 7700, 8100));
	assert_int_equal(d.verdict, CMPGATE_PASS);
	assert_int_equal(d.dir, 0);
	assert_string_equal(d.why, "within the threshold");
	/* the threshold alone decides by default, bands or not */
	assert_int_equal(decide("knee < -20%", base, fig(4000, 0, 3000, 9000)).verdict,
	                 CMPGATE_BREACH);
	assert_int_equal(decide("peak < -20%", fig(8000, 0, NOBAND), fig(4000, 0, NOBAND)).verdict,
	                 CMPGATE_BREACH);
	/* beyond noise: the intervals apart breach, overlapping are within noise (a pass) */
	d = decide("knee < -20% beyond noise", base, fig(4000, 0, 3900, 4100));
	assert_int_equal(d.verdict, CMPGATE_BREACH);
	assert_true(d.bands);
	assert_string_equal(d.why, "past the threshold and beyond noise");
	d = decide("knee < -20% beyond noise", base, fig(4000, 0, 3000, 9000));
	assert_int_equal(d.verdict, CMPGATE_PASS);
	assert_string_equal(d.word, "within noise");
	assert_true(d.bands);
	/* within the threshold: noise is not asked */
	d = decide("knee < -20% beyond noise", base, fig(7900, 0, NOBAND));
	assert_int_equal(d.verdict, CMPGATE_PASS);
	assert_false(d.bands);
	d = decide("latency@800 > +10% beyond noise", fig(900, 0, 850, 950), fig(1200, 0, NOBAND));
	assert_int_equal(d.verdict, CMPGATE_UNDECIDED);
	assert_non_null(strstr(d.why, "the later run's figure has no 95% interval"));
	/* no base figure above 0: no change in % */
	d = decide("latency@800 > +10%", fig(0, 0, NOBAND), fig(5, 0, NOBAND));
	assert_int_equal(d.verdict, CMPGATE_UNDECIDED);
	assert_true(isnan(d.pct));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_cmpgate_knee),
	    cmocka_unit_test(test_cmpgate_others),
	    cmocka_unit_test(test_cmpgate_refused),
	    cmocka_unit_test(test_cmpgate_noise_parsed),
	    cmocka_unit_test(test_cmpgate_decide_base_bound),
	    cmocka_unit_test(test_cmpgate_decide_later_bound),
	    cmocka_unit_test(test_cmpgate_decide_measured),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
