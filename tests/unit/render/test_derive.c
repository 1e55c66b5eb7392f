/* SPDX-License-Identifier: MIT */
/* Unit tests for the derived JSON files: summary.json and curve-<workload>.json, read back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>
#include <jansson.h>

#include "limit.h"
#include "derive.h"
#include "table.h"
#include "testlib.h"
#include "xalloc.h"

#define DERIVE_TEST_N 3

/*
 * Three steps at 1000, 2000, 3000 ops/s with mean latencies 300us (as a sum
 * that is not exactly 0.3 ms), 600us and 1.5ms: the 1ms SLO falls between
 * steps 2 and 3, at 2000 + (1000 - 600) / (1500 - 600) * 1000 = 2444.4 ops/s.
 */
static void derive_test_points(struct step_point *pts)
{
	static const double mean_ns[DERIVE_TEST_N] = {(0.1 + 0.2) * 1e6, 600e3, 1500e3};

	memset(pts, 0, DERIVE_TEST_N * sizeof(*pts));
	for (uint32_t i = 0; i < DERIVE_TEST_N; i++) {
		struct step_point *p = &pts[i];

		p->step = i;
		p->offered_ops = 1000.0 * (i + 1);
		p->achieved_ops = p->offered_ops - 0.04;
		p->mib_s = p->achieved_ops * 4096 / (1 << 20);
		p->mean_ns = mean_ns[i];
		p->slo_due = true; /* judged on mean_ns */
		p->p50_ns = (uint64_t)mean_ns[i];
		p->p90_ns = p->p99_ns = p->p999_ns = p->max_ns = 2 * (uint64_t)mean_ns[i];
		/* the storage's latency: half the response's */
		p->svc_mean_ns = mean_ns[i] / 2;
		p->svc_p50_ns = p->p50_ns / 2;
		p->svc_p90_ns = p->svc_p99_ns = p->svc_p999_ns = p->svc_max_ns = p->p99_ns / 2;
		p->ops = 2000 * (i + 1);
		p->missed = i;
		p->measured_s = 2;
		p->intervals = 5;
		p->steady = true;
		p->client.host_cpu_pct = 100.0 / 3.0;
		p->nagents = 1;
	}
}

static char *derive_test_slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	char *buf = xcalloc(1, 1 << 16);

	assert_non_null(f);
	assert_true(fread(buf, 1, (1 << 16) - 1, f) > 0);
	fclose(f);
	return buf;
}

static json_t *derive_test_load(const char *dir, const char *name, char **text)
{
	char *path = xasprintf("%s/%s", dir, name);
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);

	if (root == NULL)
		fail_msg("%s: %s (line %d)", path, jerr.text, jerr.line);
	*text = derive_test_slurp(path);
	unlink(path);
	free(path);
	return root;
}

static double derive_test_real(json_t *o, const char *key)
{
	json_t *v = json_object_get(o, key);

	if (!json_is_real(v))
		fail_msg("\"%s\" is not a real", key);
	return json_real_value(v);
}

static void test_derive_json(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000, 2000, 3000]}}]\n");
	struct step_point pts[DERIVE_TEST_N];
	const struct step_point *all[1] = {pts};
	size_t npts[1] = {DERIVE_TEST_N};
	char dir[] = "/tmp/iocurve-derive.XXXXXX", limit[160];
	struct error err;
	json_t *sum, *curve, *w, *steps, *s0;
	char *sum_text, *curve_text;
	struct judged_curve *judged;

	assert_non_null(mkdtemp(dir));
	derive_test_points(pts);
	/* step 2's agent measured its client: 41us late to issue, 3us to reap */
	pts[1].client.known = true;
	pts[1].client.issue_late_ns = 41e3;
	pts[1].client.reap_delay_ns = 3e3;
	judged = judged_all(c, all, npts);
	if (derive_all(dir, c, all, npts, judged, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	judged_free_all(judged, c->nworkloads);
	sum = derive_test_load(dir, "summary.json", &sum_text);
	curve = derive_test_load(dir, "curve-rr.json", &curve_text);

	assert_string_equal(json_string_value(json_object_get(sum, "campaign")), "t");
	assert_true(derive_test_real(sum, "slo_us") == 1000.0);
	assert_string_equal(json_string_value(json_object_get(sum, "metric")), "mean");
	w = json_array_get(json_object_get(sum, "workloads"), 0);
	assert_int_equal(json_array_size(json_object_get(sum, "workloads")), 1);
	assert_string_equal(json_string_value(json_object_get(w, "name")), "rr");
	assert_int_equal(json_integer_value(json_object_get(w, "steps")), DERIVE_TEST_N);
	assert_string_equal(json_string_value(json_object_get(w, "knee_kind")), "interpolated");
	assert_true(derive_test_real(w, "knee_ops") == 2444.4);
	assert_true(derive_test_real(w, "knee_mibps") == 9.548); /* 2444.4 * 4096 / 2^20 */
	assert_true(derive_test_real(w, "peak_ops") == 3000.0);
	/* No latency beside the peak: its service time and what was in flight. */
	assert_null(json_object_get(w, "latency_at_peak_us"));
	assert_non_null(json_object_get(w, "peak_service_us"));
	assert_true(derive_test_real(w, "sustained_ops") == 3000.0);
	assert_true(derive_test_real(w, "sustained_latency_us") == 1500.0);
	assert_true(json_is_false(json_object_get(w, "knee_confirmed")));
	assert_true(json_is_false(json_object_get(w, "non_monotonic")));
	assert_true(json_real_value(json_array_get(json_object_get(w, "knee_bracket"), 0)) ==
	            2000.0);
	assert_true(json_real_value(json_array_get(json_object_get(w, "knee_bracket"), 1)) ==
	            3000.0);
	/* the band: the met step to the violation, no step undecided */
	assert_true(json_real_value(json_array_get(json_object_get(w, "knee_band"), 0)) == 2000.0);
	assert_true(json_real_value(json_array_get(json_object_get(w, "knee_band"), 1)) == 3000.0);
	assert_int_equal(json_integer_value(json_object_get(w, "knee_digits")), 2);
	assert_string_equal(json_string_value(json_object_get(w, "knee_precision")),
	                    "band 50.0% wide: no refinement asked (load.refine)");
	limit_judge(c, &c->workloads[0], pts, DERIVE_TEST_N, NULL, limit, sizeof(limit));
	assert_string_equal(json_string_value(json_object_get(w, "limit")), limit);

	assert_string_equal(json_string_value(json_object_get(curve, "unit")), "ops/s");
	assert_true(derive_test_real(curve, "knee_ops") == 2444.4);
	steps = json_object_get(curve, "steps");
	assert_int_equal(json_array_size(steps), DERIVE_TEST_N);
	s0 = json_array_get(steps, 0);
	assert_int_equal(json_integer_value(json_object_get(s0, "step")), 1);
	assert_true(derive_test_real(s0, "offered_ops") == 1000.0);
	assert_true(derive_test_real(s0, "achieved_ops") == 1000.0); /* 999.96, one decimal */
	assert_true(derive_test_real(s0, "achieved_mibps") == 3.906);
	assert_true(derive_test_real(s0, "mean_us") == 300.0);
	assert_true(derive_test_real(s0, "p99_us") == 600.0);
	assert_true(derive_test_real(s0, "client_cpu_pct") == 33.3);
	assert_true(json_is_true(json_object_get(s0, "steady")));
	/* the storage's latency beside the response's */
	assert_true(derive_test_real(s0, "service_mean_us") == 150.0);
	assert_true(derive_test_real(s0, "service_p50_us") == 150.0);
	assert_true(derive_test_real(s0, "service_p99_us") == 300.0);
	assert_true(derive_test_real(s0, "service_max_us") == 300.0);
	/* the client's delay: not measured without the agent's health, null, not 0 */
	assert_true(json_is_null(json_object_get(s0, "client_delay_us")));
	assert_true(derive_test_real(s0, "client_slo_us") == 0.0);
	assert_true(derive_test_real(json_array_get(steps, 1), "client_delay_us") == 44.0);
	/* one verdict per step: met, met, violated; all three judged */
	assert_string_equal(json_string_value(json_object_get(s0, "verdict")), "met");
	assert_string_equal(json_string_value(json_object_get(s0, "slo_verdict")), "met");
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(steps, 1), "slo_verdict")), "met");
	assert_true(json_is_true(json_object_get(json_array_get(steps, 2), "valid")));
	assert_string_equal(json_string_value(json_object_get(json_array_get(steps, 2), "verdict")),
	                    "violated");
	assert_string_equal(
	    json_string_value(json_object_get(json_array_get(steps, 2), "slo_verdict")),
	    "violated");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(steps, 2), "missed")),
	                 2);

	/* Rounded values print as they read: no 0.30000000000000004 or 33.333333333333336. */
	assert_non_null(strstr(sum_text, "\"knee_ops\": 2444.4,"));
	assert_non_null(strstr(curve_text, "\"mean_us\": 300.0,"));
	assert_non_null(strstr(curve_text, "\"client_cpu_pct\": 33.3,"));
	assert_null(strstr(sum_text, "0000"));
	assert_null(strstr(curve_text, "3333"));

	json_decref(sum);
	json_decref(curve);
	free(curve_text);
	campaign_free(c);
	free(sum_text);
	sum_text = xasprintf("rm -r %s", dir);
	assert_int_equal(system(sum_text), 0);
	free(sum_text);
	(void)state;
}

/*
 * Numbers no step should hold: derived files still write, the ones that overflow
 * their rounding as null. Once, 1e308 x 10 overflowed to inf, jansson refused it and
 * the process aborted (serve at a step's end, `report` on such a file).
 */
static void test_derive_huge(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000, 2000, 3000]}}]\n");
	struct step_point pts[DERIVE_TEST_N];
	const struct step_point *all[1] = {pts};
	size_t npts[1] = {DERIVE_TEST_N};
	char dir[] = "/tmp/iocurve-derive.XXXXXX", *text;
	struct judged_curve *judged;
	struct runend end = {.state = "failed"};
	struct error err;
	json_t *curve, *s0;

	assert_non_null(mkdtemp(dir));
	derive_test_points(pts);
	pts[0].client.host_cpu_pct = 1e308;
	pts[1].offered_ops = -1e308;
	pts[2].mean_ns = 1.7976931348623157e308;
	judged = judged_all(c, all, npts);
	if (derive_all(dir, c, all, npts, judged, NULL, &err) < 0)
		fail_msg("%s", err.msg);
	curve = derive_test_load(dir, "curve-rr.json", &text);
	s0 = json_array_get(json_object_get(curve, "steps"), 0);
	assert_true(json_is_null(json_object_get(s0, "client_cpu_pct")));
	json_decref(curve);
	free(text);
	/* Words JSON cannot hold (not UTF-8): that file fails, named; the process goes on. */
	snprintf(end.reason, sizeof(end.reason), "cut \xff\xfe");
	assert_int_equal(derive_all(dir, c, all, npts, judged, &end, &err), -1);
	assert_non_null(strstr(err.msg, "summary.json: cannot write: a value JSON cannot hold"));
	judged_free_all(judged, c->nworkloads);
	campaign_free(c);
	text = xasprintf("rm -r %s", dir);
	assert_int_equal(system(text), 0);
	free(text);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_derive_json),
	    cmocka_unit_test(test_derive_huge),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
