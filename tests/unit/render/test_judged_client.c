/* SPDX-License-Identifier: MIT */
/* The judged curve with a disturbed client: a lower bound, the limit naming the client. */
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
#include "judged_test.h"
#include "limit.h"
#include "table.h"
#include "testlib.h"

/*
 * A client-bound step (disturbed after its retries) neither meets nor violates: above
 * the last valid step and below the first violation it makes the knee a lower bound,
 * measured at that step (not interpolated across it), never confirmed, and the limit
 * names what the client could measure. Below the knee's step it changes nothing.
 */
static void test_judged_client_bound(void **state)
{
	struct campaign *c = judged_campaign();
	const struct workload *w = &c->workloads[0];
	struct step_point pts[] = {
	    judged_pt(0, 1000, 1, 300),
	    judged_pt(1, 2000, 1, 400),
	    judged_pt(2, 3000, 1, 2500),
	    judged_pt(3, 4000, 1, 3000),
	};
	struct judged_curve j = {0};
	char knee[1024];

	(void)state;
	pts[2].client.bound = true; /* 3000: over the SLO, but the client's doing */
	judged_update(&j, c, w, pts, JUDGED_N(pts));
	assert_true(j.v[2].reasons & VERDICT_CLIENT_BOUND);
	assert_false(j.v[2].violates);
	assert_false(j.v[2].meets);
	assert_non_null(strstr(j.v[2].words, "client-bound"));
	assert_int_equal(j.knee.kind, KNEE_AT_STEP);
	assert_true(j.knee.throughput == pts[1].achieved_ops);
	assert_false(j.knee.confirmed);
	assert_true(j.client_bound == 3000 && j.client_measured == 2000);
	assert_string_equal(j.limit, "client-bound: this client could not measure above 2000 "
	                             "ops/s (disturbed from 3000 ops/s)");
	table_knee_text(&j, knee, sizeof(knee));
	assert_non_null(strstr(knee, ">= 2"));
	assert_non_null(strstr(knee, "the knee is a lower bound"));

	/* disturbed below the knee's step: the knee stands as measured */
	pts[2].client.bound = false;
	pts[0].client.bound = true;
	judged_update(&j, c, w, pts, JUDGED_N(pts));
	assert_true(j.client_bound == 0);
	assert_null(strstr(j.limit, "client-bound"));

	/* disturbed from the first step: nothing measured */
	pts[1].client.bound = pts[2].client.bound = pts[3].client.bound = true;
	judged_update(&j, c, w, pts, JUDGED_N(pts));
	assert_string_equal(j.limit, "client-bound: this client could not measure even 1000 "
	                             "ops/s, the lowest rate offered");
	judged_free(&j);
	campaign_free(c);
}

/*
 * CI's nfs_knees at ad1079f: 18,000 met; 20,000, 24,000 and 32,000 fell behind their
 * rates (74-87% of due) with the host, shared with the NFS server, 100% busy, so
 * client-bound. A step that fell behind on a busy client is not the storage saturating:
 * it read "at the peak (the storage saturated under the SLO)", limit "storage
 * saturated"; the knee is a lower bound, and the limit names the client.
 */
static void test_judged_client_bound_behind(void **state)
{
	struct campaign *c = judged_campaign();
	const struct workload *w = &c->workloads[0];
	struct step_point pts[] = {
	    judged_pt(0, 16000, 1, 200),    judged_pt(1, 32000, 0.78, 174000),
	    judged_pt(2, 24000, 0.74, 2e5), judged_pt(3, 20000, 0.87, 142000),
	    judged_pt(4, 18000, 1, 390),
	};
	struct judged_curve j = {0};
	char knee[1024];

	(void)state;
	for (size_t i = 1; i <= 3; i++)
		pts[i].client.bound = true;
	judged_update(&j, c, w, pts, JUDGED_N(pts));
	assert_true(j.v[1].meets); /* 18,000, second by rate */
	assert_int_equal(j.knee.kind, KNEE_ALL_UNDER);
	assert_string_not_equal(j.kind, "at_peak");
	assert_true(j.client_bound == 20000 && j.client_measured == 18000);
	assert_string_equal(j.limit, "client-bound: this client could not measure above 18000 "
	                             "ops/s (disturbed from 20000 ops/s)");
	table_knee_text(&j, knee, sizeof(knee));
	assert_non_null(strstr(knee, "the knee is a lower bound"));
	assert_null(strstr(knee, "saturated"));

	/*
	 * The same steps with a client that kept up: behind, and their storage wholly over
	 * the SLO, they violated it; the knee lies between 18,000 and 20,000, the storage's.
	 */
	for (size_t i = 1; i <= 3; i++)
		pts[i].client.bound = false;
	judged_update(&j, c, w, pts, JUDGED_N(pts));
	assert_true(j.v[2].violates);
	assert_true(j.knee.kind == KNEE_INTERPOLATED || j.knee.kind == KNEE_AT_STEP);
	assert_true(j.client_bound == 0);
	assert_true(j.knee.bracket_lo == 18000 && j.knee.bracket_hi == 20000);
	assert_null(strstr(j.limit, "client"));
	/* behind with the storage within the SLO, the client keeping up: a peak */
	for (size_t i = 1; i <= 3; i++)
		pts[i].mean_ns = pts[i].svc_mean_ns = 450e3;
	judged_update(&j, c, w, pts, JUDGED_N(pts));
	assert_int_equal(j.knee.kind, KNEE_AT_PEAK);
	assert_non_null(strstr(j.limit, "storage saturated"));
	judged_free(&j);
	campaign_free(c);
}

/*
 * What disturbed a client-bound client, said from its own figures: the hypervisor
 * (steal), its own pacing (workers busy), other work on its host, or stalls of an idle
 * host; the limit names it and the advice's change follows it, never "start lower".
 */
static void test_judged_client_cause(void **state)
{
	struct campaign *c = judged_campaign();
	const struct workload *w = &c->workloads[0];
	struct step_point pts[] = {judged_pt(0, 1000, 1, 1300), judged_pt(1, 2000, 1, 1400)};
	struct judged_curve j = {0};
	static const struct {
		double cpu_pct, host_pct, steal_pct;
		const char *cause, *change;
	} cases[] = {
	    {6, 3, 0,
	     "; its workers stalled while its host had CPU to spare (at most 3% busy, its "
	     "workers 3% of a core each): the kernel or the hypervisor held them, not the load",
	     "Change: measure again, or on a quieter client (the stalls were not the load's)"},
	    {190, 100, 0, "; its own pacing kept its workers busy (95% of a core each)",
	     "Change: spread the rate over more workers or agents"},
	    {20, 96, 0,
	     "; other work shared its host (96% of its CPUs busy, its workers 10% of a core "
	     "each)",
	     "Change: a client with nothing else to run"},
	    {20, 50, 25, "; the hypervisor took 25% of its CPU (steal)",
	     "Change: a client whose CPUs are not shared (steal 25%)"},
	};

	(void)state;
	for (size_t i = 0; i < JUDGED_N(cases); i++) {
		for (size_t k = 0; k < JUDGED_N(pts); k++) {
			pts[k].client.bound = pts[k].client.known = true;
			pts[k].workers = 2;
			pts[k].client.cpu_pct = cases[i].cpu_pct;
			pts[k].client.host_cpu_pct = cases[i].host_pct;
			pts[k].client.steal_pct = cases[i].steal_pct;
		}
		judged_update(&j, c, w, pts, JUDGED_N(pts));
		assert_non_null(strstr(j.limit, "client-bound: this client could not measure even "
		                                "1000 ops/s, the lowest rate offered"));
		assert_string_equal(strstr(j.limit, "; "), cases[i].cause);
		assert_non_null(strstr(j.advice, cases[i].change));
		assert_null(strstr(j.advice, "start lower"));
	}
	/* without the client's health (an old agent), no cause is guessed */
	pts[0].client.known = pts[1].client.known = false;
	judged_update(&j, c, w, pts, JUDGED_N(pts));
	assert_string_equal(j.limit, "client-bound: this client could not measure even 1000 "
	                             "ops/s, the lowest rate offered");
	judged_free(&j);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_judged_client_bound),
	    cmocka_unit_test(test_judged_client_bound_behind),
	    cmocka_unit_test(test_judged_client_cause),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
