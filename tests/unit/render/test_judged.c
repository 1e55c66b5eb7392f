/* SPDX-License-Identifier: MIT */
/* The judged curve: the rules of curve.c and verdict.c once per update, and what reads it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "judged.h"
#include "limit.h"
#include "report.h"
#include "table.h"
#include "testlib.h"

#include "judged_test.h"

/* Over points in run order, the update gives what each rule gives over the sorted points. */
static void test_judged_rules_once(void **state)
{
	struct campaign *c = judged_campaign();
	const struct workload *w = &c->workloads[0];
	/* run order, not curve order: a max step first, a refinement step last */
	struct step_point pts[] = {
	    judged_pt(0, 0, 1, 9000),      judged_pt(1, 4000, 1, 500),
	    judged_pt(2, 1000, 1, 300),    judged_pt(3, 8000, 0.8, 5000),
	    judged_pt(4, 6000, 0.99, 800), judged_pt(5, 7000, 1, 1500),
	};
	size_t n = JUDGED_N(pts);
	struct step_point *s = curve_sorted(pts, n);
	struct knee k = curve_knee(c, w, s, n);
	struct judged_curve j = {0};
	char limit[160 + RECORD_PATH_MAX], prec[160], words[160 + RECORD_PATH_MAX];

	(void)state;
	judged_update(&j, c, w, pts, n);
	assert_int_equal(j.n, n);
	assert_ptr_equal(j.c, c);
	assert_ptr_equal(j.w, w);
	/* the points in curve order, each with its own verdict */
	for (size_t i = 0; i < n; i++) {
		char sat[128] = "";
		bool saturated = verdict_saturated(c, &s[i], sat, sizeof(sat));

		assert_int_equal(j.sorted[i].step, s[i].step);
		assert_int_equal(j.v[i].reasons, verdict_point(&s[i]));
		assert_int_equal(j.v[i].valid, verdict_valid(&s[i]));
		assert_int_equal(j.v[i].violates, verdict_violates(c, &s[i]));
		assert_int_equal(j.v[i].meets, verdict_meets(c, &s[i]));
		assert_int_equal(j.v[i].slo, verdict_judge(c, &s[i]));
		assert_int_equal(j.v[i].saturated, saturated);
		assert_string_equal(j.v[i].why, sat);
		verdict_words(&s[i], verdict_point(&s[i]), words, sizeof(words));
		/* a judged step in one word; one not judged by its reasons, after "violated; "
		 * when it could not deliver its load and was wholly over the SLO all the same */
		if (j.v[i].valid)
			assert_string_equal(j.v[i].words, verdict_slo_word(j.v[i].slo));
		else if (j.v[i].slo == VERDICT_VIOLATED)
			assert_true(strncmp(j.v[i].words, "violated; ", 10) == 0 &&
			            strcmp(j.v[i].words + 10, words) == 0);
		else
			assert_string_equal(j.v[i].words, words);
		assert_true(j.v[i].tp == curve_throughput(w, &s[i]));
		assert_true(j.v[i].offered_tp == curve_offered_tp(w, &s[i]));
	}
	/* 1000, 4000, 6000, 7000, 8000, then the max step */
	assert_int_equal(j.sorted[0].step, 2);
	assert_int_equal(j.sorted[n - 1].step, 0);
	/* 8000: behind, but wholly over the SLO all the same: violated */
	assert_true(j.v[4].violates);
	assert_int_equal(j.v[4].slo, VERDICT_VIOLATED);
	assert_int_equal(j.v[4].reasons, VERDICT_BEHIND);
	assert_string_equal(j.v[4].words, "violated; behind (80% of due)");
	assert_true(j.v[3].violates); /* 7000: over the SLO */
	assert_true(j.v[3].valid);
	assert_string_equal(j.v[3].words, "violated");
	assert_false(j.v[2].violates); /* 6000: under, 99% of due */
	assert_true(j.v[2].meets);
	assert_string_equal(j.v[2].words, "met");
	/* the max step (nothing completed): closed loop, not judged */
	assert_false(j.v[n - 1].violates);
	assert_int_equal(j.v[n - 1].slo, VERDICT_NOT_JUDGED);
	assert_string_equal(j.v[n - 1].words, "closed loop, nothing completed");
	/* the knee and its band */
	assert_int_equal(j.knee.kind, k.kind);
	assert_true(j.knee.throughput == k.throughput);
	assert_int_equal(j.knee.below, k.below);
	assert_int_equal(j.knee.above, k.above);
	assert_int_equal(j.knee.over, k.over);
	assert_true(j.knee.bracket_lo == k.bracket_lo && j.knee.bracket_hi == k.bracket_hi);
	assert_int_equal(j.knee.confirmed, k.confirmed);
	assert_int_equal(j.knee.non_monotonic, k.non_monotonic);
	assert_int_equal(j.sorted[j.knee.below].step, 4); /* 6000 under the SLO */
	assert_int_equal(j.sorted[j.knee.over].step, 5);  /* 7000, the lowest violation */
	assert_true(j.width == curve_band_width(&k));
	assert_int_equal(j.digits, curve_knee_digits(&k));
	assert_string_equal(j.kind, curve_knee_kind(&k));
	curve_knee_precision(c, w, &k, s, n, prec, sizeof(prec));
	assert_string_equal(j.precision, prec);
	assert_int_equal(j.capped, curve_capped(&k, s, n));
	/* peak, sustained, limit */
	assert_non_null(j.peak);
	assert_int_equal(j.peak->step, curve_peak(w, s, n)->step);
	assert_true(j.peak_tp == curve_throughput(w, curve_peak(w, s, n)));
	assert_int_equal(j.sustained->step, curve_sustained(w, s, n)->step);
	assert_true(j.max_achieved == curve_max_achieved(s, n));
	limit_judge(c, w, s, n, NULL, limit, sizeof(limit));
	assert_string_equal(j.limit, limit);
	/* the point run last is the refinement step, wherever it sorts */
	assert_int_equal(j.sorted[j.last].step, 5);
	assert_int_equal(j.errors, 0);
	assert_null(j.first_error);
	assert_int_equal(j.repeats.n, 0);

	/* an update replaces all of it: one step fewer, the 7000 gone */
	judged_update(&j, c, w, pts, n - 1);
	assert_int_equal(j.n, n - 1);
	assert_int_equal(j.sorted[j.last].step, 4);
	/*
	 * 8000 is now the lowest violation (behind, wholly over): the knee lies between
	 * 6000 (5940 sustained, 800 us) and it, its bracket's top the highest achieved
	 * (6400, not the 8000 offered); 7.7% wide, so interpolated in latency towards
	 * 8000's 6400 at 5 ms: 5940 + 200 / 4200 x 460
	 */
	assert_int_equal(j.knee.kind, KNEE_INTERPOLATED);
	assert_int_equal(j.sorted[j.knee.over].step, 3);
	assert_int_equal(j.sorted[j.knee.below].step, 4);
	assert_true(j.knee.bracket_lo == 5940 && j.knee.bracket_hi == 6400);
	assert_true(fabs(j.knee.throughput - (5940 + 200.0 / 4200 * 460)) < 1e-6);
	assert_true(j.knee.band_lo == 5940 && j.knee.band_hi == 6400);
	/* the same 8000 under the SLO: behind, not judged; nothing violated, so the
	 * storage saturated under the SLO: the knee at the peak, its band up to it */
	pts[3].mean_ns = pts[3].svc_mean_ns = 900e3;
	judged_update(&j, c, w, pts, n - 1);
	assert_int_equal(j.v[3].slo, VERDICT_NOT_JUDGED);
	assert_string_equal(j.v[3].words, "behind (80% of due)");
	assert_int_equal(j.knee.kind, KNEE_AT_PEAK);
	assert_string_equal(j.kind, "at_peak");
	assert_int_equal(j.sorted[j.knee.over].step, 3);
	assert_true(j.knee.throughput == 5940);
	assert_true(j.knee.bracket_lo == 5940 && j.knee.bracket_hi == 6400);
	assert_true(j.knee.band_lo == 5940 && j.knee.band_hi == 6400);
	judged_free(&j);
	assert_int_equal(j.n, 0);
	assert_null(j.sorted);
	free(s);
	campaign_free(c);
}

/* The first failure is the one the run met first, not the lowest offered rate's. */
static void test_judged_first_error_run_order(void **state)
{
	struct campaign *c = judged_campaign();
	struct step_point pts[] = {judged_pt(0, 4000, 1, 500), judged_pt(1, 1000, 1, 300)};
	struct judged_curve j = {0};

	(void)state;
	pts[0].errors = 3;
	pts[0].err_errno = 5;
	snprintf(pts[0].err_path, sizeof(pts[0].err_path), "/dev/a");
	pts[1].errors = 2;
	pts[1].err_errno = 5;
	snprintf(pts[1].err_path, sizeof(pts[1].err_path), "/dev/b");
	judged_update(&j, c, &c->workloads[0], pts, 2);
	assert_int_equal(j.errors, 5);
	assert_non_null(j.first_error);
	assert_int_equal(j.first_error->step, 0);
	assert_string_equal(j.first_error->err_path, "/dev/a");
	assert_int_equal(j.sorted[0].step, 1);
	/* errors, not capacity: how many of all the operations failed, then the first */
	assert_string_equal(j.limit, "I/O errors: 5 of 25,005 operations failed (0.02%), the first "
	                             "EIO on /dev/a");
	judged_free(&j);
	campaign_free(c);
}

/*
 * A step that lost an agent says so first in its verdict; short of its rate for that,
 * it neither violates the SLO nor saturates (its figures are not the target's).
 */
static void test_judged_agent_lost(void **state)
{
	struct campaign *c = judged_campaign();
	struct step_point pts[] = {judged_pt(0, 1000, 1, 300), judged_pt(1, 2000, 0.66, 300)};
	struct judged_curve j = {0};

	(void)state;
	pts[1].nagents = 3;
	pts[1].agents_lost = 1;
	pts[1].lost_at = 3;
	snprintf(pts[1].lost_names, sizeof(pts[1].lost_names), "a3");
	judged_update(&j, c, &c->workloads[0], pts, 2);
	assert_string_equal(j.v[1].words,
	                    "1 of 3 agents lost at interval 4 (agent a3), behind (66% of due)");
	assert_false(j.v[1].valid);
	assert_false(j.v[1].violates);
	assert_false(j.v[1].saturated);
	/* the same step without the loss: behind, not judged, saturated by stop.achieved */
	pts[1].agents_lost = 0;
	judged_update(&j, c, &c->workloads[0], pts, 2);
	assert_false(j.v[1].violates);
	assert_true(j.v[1].saturated);
	judged_free(&j);
	campaign_free(c);
}

/* An empty curve: nothing run yet. */
static void test_judged_empty(void **state)
{
	struct campaign *c = judged_campaign();
	struct judged_curve j = {0};

	(void)state;
	judged_update(&j, c, &c->workloads[0], NULL, 0);
	assert_int_equal(j.n, 0);
	assert_int_equal(j.knee.kind, KNEE_NONE);
	assert_string_equal(j.kind, "none");
	assert_null(j.peak);
	assert_null(j.sustained);
	assert_string_equal(j.limit, "not run");
	judged_free(&j);
	campaign_free(c);
}

/* Whether report.html shades the step table's row of step `step` (from 1). */
static int judged_row_shaded(const char *html, unsigned step)
{
	char over[64], plain[64];

	snprintf(over, sizeof(over), "<tr class=\"over\"><td class=\"n\">%u</td>", step);
	snprintf(plain, sizeof(plain), "<tr><td class=\"n\">%u</td>", step);
	if (strstr(html, over) != NULL)
		return 1;
	if (strstr(html, plain) != NULL)
		return 0;
	fail_msg("no row for step %u", step);
	return -1;
}

/*
 * report.html shades exactly the rows whose points violate the SLO, and the knee lies
 * below the first of them. A step that kept 96% of its operations is behind (under
 * the 97% a judged step keeps) though above the 95% of stop.achieved: under the SLO
 * it is not judged, neither shaded nor capping the knee, which lies between the met
 * step under it and the violation above it; wholly over the SLO all the same, it is
 * violated, shaded, and caps the knee.
 */
static void test_judged_report_shading(void **state)
{
	struct campaign *c = judged_campaign();
	struct step_point pts[] = {
	    judged_pt(0, 1000, 1, 300),
	    judged_pt(1, 2000, 1, 400),
	    judged_pt(2, 3000, 0.96, 600),
	    judged_pt(3, 4000, 0.99, 3000),
	};
	const struct step_point *all[1] = {pts};
	size_t npts[1] = {JUDGED_N(pts)};
	struct judged_curve *j = judged_all(c, all, npts);
	char *html = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&html, &len);
	size_t first = SIZE_MAX;

	(void)state;
	assert_non_null(f);
	report_html(f, c, all, npts, j, NULL);
	assert_int_equal(fclose(f), 0);
	assert_false(verdict_short(c, &pts[2])); /* what the old rule shaded by */
	assert_false(j[0].v[2].violates);
	assert_int_equal(j[0].v[2].slo, VERDICT_NOT_JUDGED);
	assert_string_equal(j[0].v[2].words, "behind (96% of due)");
	assert_true(j[0].v[3].violates);
	for (size_t i = 0; i < j[0].n; i++) {
		assert_int_equal(judged_row_shaded(html, j[0].sorted[i].step + 1),
		                 j[0].v[i].violates);
		if (first == SIZE_MAX && j[0].v[i].violates)
			first = i;
	}
	/* the knee: under the first shaded row, at the highest met step below it (2000),
	 * past the behind step between them */
	assert_int_equal(first, 3);
	assert_int_equal(j[0].knee.over, first);
	assert_int_equal(j[0].knee.below, 1);
	assert_int_equal(judged_row_shaded(html, 4), 1);
	assert_int_equal(judged_row_shaded(html, 3), 0);
	assert_int_equal(judged_row_shaded(html, 2), 0);
	assert_non_null(strstr(html, "the knee lies below the first of them"));
	free(html);
	judged_free_all(j, c->nworkloads);

	/* the behind step wholly over the SLO: violated, shaded, the knee under it */
	pts[2] = judged_pt(2, 3000, 0.96, 2000);
	j = judged_all(c, all, npts);
	html = NULL;
	len = 0;
	f = open_memstream(&html, &len);
	assert_non_null(f);
	report_html(f, c, all, npts, j, NULL);
	assert_int_equal(fclose(f), 0);
	assert_true(j[0].v[2].violates);
	assert_string_equal(j[0].v[2].words, "violated; behind (96% of due)");
	for (size_t i = 0; i < j[0].n; i++)
		assert_int_equal(judged_row_shaded(html, j[0].sorted[i].step + 1),
		                 j[0].v[i].violates);
	assert_int_equal(j[0].knee.over, 2);
	assert_int_equal(j[0].knee.below, 1);
	assert_int_equal(judged_row_shaded(html, 3), 1);
	assert_int_equal(judged_row_shaded(html, 2), 0);
	free(html);
	judged_free_all(j, c->nworkloads);
	campaign_free(c);
}

/* A campaign of SLO mean 1 ms that asks for refinement and its confirmation step. */
static struct campaign *judged_refined(void)
{
	return testlib_campaign_ok(TEST_HEAD
	                           "slo: {latency: 1ms}\n"
	                           "workloads: [{name: rr, rw: randread, load: {ramp: {start: "
	                           "16000, factor: 2}, refine: 6}}]\n");
}

/*
 * The demo's randread: the knee at 56,000 (561 us) and the confirmation step,
 * run last at 56,500, at 7.48 ms. The knee stays the measured step, but it is
 * not confirmed, and its band is the evidence's: 56,000-56,500.
 */
static void test_judged_confirmation_violated(void **state)
{
	struct campaign *c = judged_refined();
	struct step_point pts[] = {
	    judged_pt(0, 16000, 1, 300),    judged_pt(1, 32000, 1, 420),
	    judged_pt(2, 64000, 0.8, 9000), judged_pt(3, 48000, 1, 500),
	    judged_pt(4, 56000, 1, 561),    judged_pt(5, 60000, 1, 2500),
	    judged_pt(6, 58000, 1, 1900),   judged_pt(7, 57000, 1, 1400),
	    judged_pt(8, 56500, 1, 7480),
	};
	struct judged_curve j = {0};
	char text[1024];

	(void)state;
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_int_equal(j.knee.kind, KNEE_AT_STEP);
	assert_true(j.knee.throughput == 56000);
	assert_false(j.knee.confirmed);
	assert_true(j.knee.band_lo == 56000 && j.knee.band_hi == 56500);
	assert_int_equal(j.digits, 4); /* 0.9% wide */
	assert_string_equal(j.precision,
	                    "band 0.9% wide: the step run last (offered 56500 ops/s) violated");
	table_knee_text(&j, text, sizeof(text));
	assert_string_equal(
	    text, "Performance @ 1.00ms (storage mean): 56,000 ops/s (95% band 56,000-56,500) "
	          "(measured at step 5, not confirmed: band 0.9% wide: the step "
	          "run last (offered 56500 ops/s) violated; peak 60000 ops/s)");
	/* the same step met at the knee and run last: confirmed */
	pts[8] = judged_pt(8, 56000, 1, 570);
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_true(j.knee.confirmed);
	assert_int_equal(j.sorted[j.knee.below].step, 8);
	judged_free(&j);
	campaign_free(c);
}

/*
 * The demo's randwrite: the knee 64,000 under violations at 64,549-66,195, and
 * steps at 68,390 and 70,585 that met the SLO above them. The band runs to the
 * highest of those (over 10% wide: two digits), and the knee is not confirmed.
 */
static void test_judged_band_non_monotonic(void **state)
{
	struct campaign *c = judged_refined();
	struct step_point pts[] = {
	    judged_pt(0, 16000, 1, 300),  judged_pt(1, 32000, 1, 400), judged_pt(2, 70585, 1, 950),
	    judged_pt(3, 66195, 1, 1300), judged_pt(4, 68390, 1, 796), judged_pt(5, 65000, 1, 1100),
	    judged_pt(6, 64549, 1, 1050), judged_pt(7, 64000, 1, 700),
	};
	struct judged_curve j = {0};
	char text[1024];

	(void)state;
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_int_equal(j.knee.kind, KNEE_AT_STEP);
	assert_true(j.knee.throughput == 64000);
	assert_true(j.knee.non_monotonic);
	assert_false(j.knee.confirmed);
	assert_true(j.knee.bracket_lo == 64000 && j.knee.bracket_hi == 64549);
	assert_true(j.knee.band_lo == 64000 && j.knee.band_hi == 70585);
	assert_true(j.width > 0.10);
	assert_int_equal(j.digits, 2);
	assert_string_equal(j.precision,
	                    "band 10.3% wide: a step above the violation met the SLO, the band "
	                    "reaches 70585");
	/* printed as measured: the band's top is 70,585, not rounded up to 71,000 */
	table_knee_text(&j, text, sizeof(text));
	assert_non_null(
	    strstr(text, ": 64,000 ops/s (95% band 64,000-70,585) (measured at step 8"));
	assert_null(strstr(text, "71,000"));
	assert_non_null(strstr(text, ". NON-MONOTONIC: a step met the SLO above one that "
	                             "violated it; the knee stays below the violation"));
	judged_free(&j);
	campaign_free(c);
}

/*
 * Each step's verdict from its own 95% interval of the metric: a step whose interval
 * straddles the SLO is undecided, neither the knee's met step nor its violation, and
 * widens the band up to its offered rate; only an interval wholly over violates.
 */
static void test_judged_band_intervals(void **state)
{
	struct campaign *c = judged_refined();
	struct step_point pts[] = {
	    judged_pt(0, 16000, 1, 300),  judged_pt(1, 32000, 1, 600),  judged_pt(2, 48000, 1, 950),
	    judged_pt(3, 64000, 1, 1050), judged_pt(4, 80000, 1, 3000),
	};
	struct judged_curve j = {0};
	char text[1024];

	(void)state;
	pts[2].metric_lo_ns = 900e3;
	pts[2].metric_hi_ns = 1010e3;
	pts[3].metric_lo_ns = 980e3;
	pts[3].metric_hi_ns = 1120e3;
	pts[4].metric_lo_ns = 2500e3;
	pts[4].metric_hi_ns = 3500e3;
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_int_equal(j.v[1].slo, VERDICT_MET);
	assert_int_equal(j.v[2].slo, VERDICT_UNDECIDED); /* 900-1010 us */
	assert_int_equal(j.v[3].slo, VERDICT_UNDECIDED); /* 980-1120 us */
	assert_int_equal(j.v[4].slo, VERDICT_VIOLATED);  /* 2500-3500 us */
	assert_string_equal(j.v[2].words, "undecided");
	/*
	 * the met step 32000 (600 us) and the violation 80000 (3000 us): 150% wide, so
	 * interpolated in latency where the steps' metric crosses the SLO: between the
	 * undecided 48000 (950 us) and 64000 (1050 us), 48000 + 50 / 100 x 16000 = 56000
	 */
	assert_int_equal(j.knee.kind, KNEE_INTERPOLATED);
	assert_int_equal(j.sorted[j.knee.below].step, 1);
	assert_int_equal(j.sorted[j.knee.over].step, 4);
	assert_true(j.knee.bracket_lo == 32000 && j.knee.bracket_hi == 80000);
	assert_true(fabs(j.knee.throughput - 56000) < 1e-6);
	assert_true(j.knee.band_lo == 32000 && j.knee.band_hi == 80000);
	/* the lowest undecided (48000: 950 us, 900-1010) would decide measured (5s) x
	 * (ln(950/900) / ln(1000/950))^2 = 7.13 s */
	assert_string_equal(j.precision, "band 150.0% wide: 2 steps above the knee undecided "
	                                 "(its 95% interval holds the SLO); at 48000 ops/s, "
	                                 "measured 5s, it would need about 7.13s to decide "
	                                 "(steady: {budget})");
	/* the knee's 48000 wholly under (900-990 us): met, the knee's low step */
	pts[2].metric_hi_ns = 990e3;
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_int_equal(j.v[2].slo, VERDICT_MET);
	assert_int_equal(j.sorted[j.knee.below].step, 2);
	assert_true(j.knee.bracket_lo == 48000 && j.knee.bracket_hi == 80000);
	/* through the undecided 64000 (1050 us), not the chord to 80000 (3000 us) */
	assert_true(fabs(j.knee.throughput - 56000) < 1e-6);
	/* the undecided 64000 still widens the band to its offered rate; the violation
	 * holds the top */
	assert_true(j.knee.band_lo == 48000 && j.knee.band_hi == 80000);
	/* 64000 at 1050 us (980-1120): 5 s x (ln(1050/980) / ln(1050/1000))^2 = 10 s */
	assert_string_equal(j.precision, "band 66.7% wide: 1 step above the knee undecided "
	                                 "(its 95% interval holds the SLO); at 64000 ops/s, "
	                                 "measured 5s, it would need about 10.0s to decide "
	                                 "(steady: {budget})");
	/* the violation's interval reaching under the SLO: undecided, nothing violated and
	 * nothing fell behind, so the knee is a lower bound at the met step */
	pts[4].metric_lo_ns = 990e3;
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_int_equal(j.v[4].slo, VERDICT_UNDECIDED);
	assert_int_equal(j.knee.kind, KNEE_ALL_UNDER);
	assert_true(j.knee.throughput == 48000);
	assert_true(j.knee.band_lo == 48000 && j.knee.band_hi == 0);
	table_knee_text(&j, text, sizeof(text));
	assert_non_null(strstr(text, "(storage mean): >= 48,000 ops/s: no step violated the SLO"));
	judged_free(&j);
	campaign_free(c);
}

/*
 * Steps of 2 s (2 intervals each, 5 needed): no knee, and the advice names that
 * rule for each step and the change, not "start lower".
 */
/*
 * A stall at 2000 ops/s left that step undecided (1.17 ms, 930-1480 us) under steps that
 * met the SLO: the band reaches down to the met step under it, and the words say which
 * step pulled it there and how long it would need, not that refinement ran out.
 */
static void test_judged_band_undecided_under(void **state)
{
	struct campaign *c = judged_campaign();
	struct step_point pts[] = {judged_pt(0, 1000, 1, 300), judged_pt(1, 2000, 1, 1170),
	                           judged_pt(2, 3000, 1, 500), judged_pt(3, 4000, 1, 3000)};
	struct judged_curve j = {0};

	(void)state;
	pts[1].metric_lo_ns = 930e3;
	pts[1].metric_hi_ns = 1480e3;
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_int_equal(j.v[1].slo, VERDICT_UNDECIDED);
	assert_true(j.knee.band_lo == 1000 && j.knee.bracket_lo == 3000);
	/* 5 s x (ln(1170/930) / ln(1.17))^2 = 10.7 s */
	assert_string_equal(j.precision,
	                    "band 300.0% wide: a step under the knee undecided (its 95% interval "
	                    "holds the SLO); at 2000 ops/s, measured 5s, it would need about "
	                    "10.7s to decide (steady: {budget})");
	judged_free(&j);
	campaign_free(c);
}

static void test_judged_advice_few_intervals(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "measure: 2s\nslo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000, 2000, 4000]}}]\n");
	struct step_point pts[] = {
	    judged_pt(0, 1000, 1, 300),
	    judged_pt(1, 2000, 1, 400),
	    judged_pt(2, 4000, 1, 3000),
	};
	struct judged_curve j = {0};
	char text[1024];

	(void)state;
	for (size_t i = 0; i < JUDGED_N(pts); i++)
		pts[i].intervals = 2;
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_int_equal(j.knee.kind, KNEE_ALL_OVER);
	assert_non_null(strstr(j.advice, "step 1 (1000 ops/s): 2 intervals, too few to judge; "
	                                 "step 2 (2000 ops/s): 2 intervals"));
	assert_non_null(
	    strstr(j.advice, "steps of 2s give 2 measured intervals, 5 are needed: measure: 5s"));
	table_knee_text(&j, text, sizeof(text));
	assert_null(strstr(text, "start lower"));
	assert_non_null(strstr(text, "measure: 5s"));
	/* the lowest step violated: then starting lower is the change */
	pts[0] = judged_pt(0, 1000, 1, 3000);
	pts[1] = judged_pt(1, 2000, 1, 3000);
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_non_null(
	    strstr(j.advice, "lowest step (1000 ops/s) already violated the SLO: start lower"));
	judged_free(&j);
	campaign_free(c);
}

/*
 * A step above the highest met one whose backlog grew could not deliver its load: the
 * storage saturated under the SLO, the knee at the peak (no advice). One kept out by
 * its queues instead makes a lower bound: the advice names it and the change.
 */
static void test_judged_advice_lower_bound(void **state)
{
	struct campaign *c = judged_campaign();
	struct step_point pts[] = {judged_pt(0, 1000, 1, 300), judged_pt(1, 2000, 1, 400)};
	struct judged_curve j = {0};
	char text[1024];

	(void)state;
	pts[1].steady = false; /* the backlog grew */
	pts[1].missed = 120;
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_int_equal(j.v[1].reasons, VERDICT_BACKLOG);
	assert_string_equal(j.v[1].words, "backlog growing (120 due, not issued, at its end)");
	assert_int_equal(j.knee.kind, KNEE_AT_PEAK);
	assert_true(j.knee.throughput == 1000);
	assert_true(j.knee.bracket_lo == 1000 && j.knee.bracket_hi == 2000);
	assert_true(j.knee.band_lo == 1000 && j.knee.band_hi == 2000);
	assert_string_equal(j.advice, "");
	assert_string_equal(j.precision,
	                    "band 100.0% wide: the storage saturated under the SLO; the steps "
	                    "between the knee and the peak could not deliver their load");
	table_knee_text(&j, text, sizeof(text));
	assert_non_null(strstr(text, ": 1,000 ops/s (95% band 1,000-2,000) at the peak (the "
	                             "storage saturated under the SLO; measured at step 1, not "
	                             "confirmed"));
	/* queue-bound instead (an old agent: queues full 20% of the time): a lower bound */
	pts[1].steady = true;
	pts[1].missed = 0;
	pts[1].client.qd_full_pct = 20;
	pts[1].queue_depth = 16;
	pts[1].slo_ns = 1e6;
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_int_equal(j.v[1].reasons, VERDICT_QUEUE_BOUND);
	assert_int_equal(j.knee.kind, KNEE_ALL_UNDER);
	assert_string_equal(
	    j.advice, "step 2 (2000 ops/s): queue-bound: all 16 slots held 20% of the time; "
	              "at 2000 ops/s and a 1000us SLO a worker holds 2 in flight, more in the "
	              "bursts that filled them: raise "
	              "queue_depth above 16. "
	              "Change: the queues held operations back: raise queue_depth (16 per "
	              "worker now)");
	table_knee_text(&j, text, sizeof(text));
	assert_non_null(strstr(text,
	                       ">= 1,000 ops/s: no step violated the SLO, the knee lies at or "
	                       "above the highest step that met it (peak 2000 ops/s); step 2"));
	/*
	 * errors and an agent lost too: said in the rule table's order, and the change is
	 * the first row's that has one (an agent lost: keep the agents up, not "start lower")
	 */
	pts[1].errors = 3;
	pts[1].agents_lost = 1;
	pts[1].nagents = 2;
	pts[1].lost_at = 2;
	snprintf(pts[1].lost_names, sizeof(pts[1].lost_names), "a2");
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_int_equal(j.v[1].reasons,
	                 VERDICT_AGENTS_LOST | VERDICT_ERRORS | VERDICT_QUEUE_BOUND);
	assert_non_null(strstr(j.advice, "step 2 (2000 ops/s): 1 of 2 agents lost at interval 3 "
	                                 "(agent a2), 3 errors, queue-bound: all 16 slots"));
	assert_non_null(strstr(j.advice, "Change: keep every agent up through a step (lost: a2)"));
	pts[1].agents_lost = 0;
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_non_null(strstr(j.advice, "Change: make the target stop failing"));
	pts[1].errors = 0;
	/* every step judged: raise the load */
	pts[1].client.qd_full_pct = 0;
	judged_update(&j, c, &c->workloads[0], pts, JUDGED_N(pts));
	assert_int_equal(j.knee.kind, KNEE_ALL_UNDER);
	assert_string_equal(j.advice, "");
	table_knee_text(&j, text, sizeof(text));
	assert_non_null(strstr(text, ">= 2,000 ops/s: no step violated the SLO"));
	assert_non_null(strstr(text, "raise the load to find it"));
	judged_free(&j);
	campaign_free(c);
}

/* repeat: N gives Student's t interval of the mean: 3 repeats, t(0.975, 2) = 4.303. */
/*
 * A band's printed ends hold the band: rounded outward to the knee's digits (the
 * demo's 56,000-128,000 at 1 digit printed "60000-100000", above its low end).
 */
static void test_judged_band_rounding(void **state)
{
	(void)state;
	assert_true(curve_round_out(56000, 1, -1) == 50000);
	assert_true(curve_round_out(128000, 1, 1) == 200000);
	assert_true(curve_round_out(64000, 2, -1) == 64000);
	assert_true(curve_round_out(64000, 2, 1) == 64000);
	assert_true(curve_round_out(70585, 2, 1) == 71000);
	assert_true(curve_round_out(70585, 0, 1) == 70585);
}

static void test_judged_t95(void **state)
{
	(void)state;
	assert_true(fabs(agg_t95(2) - 4.303) < 1e-9);
	assert_true(fabs(agg_t95(1) - 12.706) < 1e-9);
	assert_true(fabs(agg_t95(3) - 3.182) < 1e-9);
	assert_true(fabs(agg_t95(9) - 2.262) < 1e-9);
	assert_true(agg_t95(1000) == 1.96);
	assert_true(isinf(agg_t95(0)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_judged_rules_once),
	    cmocka_unit_test(test_judged_first_error_run_order),
	    cmocka_unit_test(test_judged_agent_lost),
	    cmocka_unit_test(test_judged_empty),
	    cmocka_unit_test(test_judged_report_shading),
	    cmocka_unit_test(test_judged_confirmation_violated),
	    cmocka_unit_test(test_judged_band_non_monotonic),
	    cmocka_unit_test(test_judged_band_intervals),
	    cmocka_unit_test(test_judged_band_undecided_under),
	    cmocka_unit_test(test_judged_advice_few_intervals),
	    cmocka_unit_test(test_judged_advice_lower_bound),
	    cmocka_unit_test(test_judged_band_rounding),
	    cmocka_unit_test(test_judged_t95),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
