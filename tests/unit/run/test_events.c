/* SPDX-License-Identifier: MIT */
/* Typed events: their JSON and protobuf forms round-trip, and the dashboard's model reads them. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dashstate.h"
#include "event_json.h"
#include "event_pb.h"
#include "events.h"
#include "curve.h"
#include "judged.h"
#include "testlib.h"

/* Longer than any line buffer the stream ever had (4 KiB). */
#define TEST_LONG 6000

static char test_long[TEST_LONG + 1];

/* An event of kind k with every member set, each to a value of its own. */
static struct event test_full(enum event_kind k)
{
	struct event e = {.kind = k};
	size_t n;
	const struct event_field *f = event_fields(k, &n);

	memset(test_long, 'x', TEST_LONG);
	memcpy(test_long, "a \"quoted\"\n\tline \\ ", 19);
	for (size_t i = 0; i < n; i++) {
		void *p = (char *)&e + f[i].off;

		switch (f[i].type) {
		case EVENT_T_U32:
			*(uint32_t *)p = (uint32_t)(i + 1);
			break;
		case EVENT_T_I32:
			*(int32_t *)p = -(int32_t)i - 1;
			break;
		case EVENT_T_U64:
			*(uint64_t *)p = (1ull << 40) + i;
			break;
		case EVENT_T_DOUBLE:
			*(double *)p = 1000.25 * (double)(i + 1);
			break;
		case EVENT_T_BOOL:
			*(bool *)p = true;
			break;
		case EVENT_T_STR:
			*(const char **)p = test_long;
			break;
		case EVENT_T_ENUM:
			*(int *)p = (int)f[i].nnames - 1;
			break;
		}
	}
	return e;
}

/* Every member of a and b is equal. */
static void test_same(const struct event *a, const struct event *b)
{
	size_t n;
	const struct event_field *f = event_fields(a->kind, &n);

	assert_int_equal(a->kind, b->kind);
	assert_true(n > 0);
	for (size_t i = 0; i < n; i++) {
		const void *pa = (const char *)a + f[i].off, *pb = (const char *)b + f[i].off;

		if (f[i].type == EVENT_T_STR)
			assert_string_equal(*(const char *const *)pa, *(const char *const *)pb);
		else if (f[i].type == EVENT_T_DOUBLE)
			assert_true(*(const double *)pa == *(const double *)pb);
		else if (f[i].type == EVENT_T_BOOL)
			assert_int_equal(*(const bool *)pa, *(const bool *)pb);
		else if (f[i].type == EVENT_T_U64)
			assert_true(*(const uint64_t *)pa == *(const uint64_t *)pb);
		else
			assert_int_equal(*(const uint32_t *)pa, *(const uint32_t *)pb);
	}
}

static void test_json_round_trip(void **state)
{
	struct error err;

	for (int k = 0; k < EVENT_KIND_N; k++) {
		struct event e = test_full((enum event_kind)k), back;
		char *text = event_json_encode(&e);

		assert_non_null(text);
		assert_true(strlen(text) > TEST_LONG || k == EVENT_STEP);
		if (event_json_decode(&back, text, &err) < 0)
			fail_msg("%s: %s", text, err.msg);
		test_same(&e, &back);
		event_clear(&back);
		free(text);
	}
}

static void test_pb_round_trip(void **state)
{
	struct error err;

	if (event_pb_check(&err) < 0)
		fail_msg("%s", err.msg);
	for (int k = 0; k < EVENT_KIND_N; k++) {
		struct event e = test_full((enum event_kind)k), back;
		Iocurve__Envelope env = IOCURVE__ENVELOPE__INIT, *got;
		size_t len;
		uint8_t *buf;

		env.body_case = IOCURVE__ENVELOPE__BODY_EVENT;
		env.event = event_pb_new(&e, 7);
		len = iocurve__envelope__get_packed_size(&env);
		buf = malloc(len);
		iocurve__envelope__pack(&env, buf);
		event_pb_free(env.event);
		got = iocurve__envelope__unpack(NULL, len, buf);
		assert_non_null(got);
		assert_int_equal(got->body_case, IOCURVE__ENVELOPE__BODY_EVENT);
		assert_int_equal(got->event->id, 7);
		if (event_from_pb(&back, got->event, &err) < 0)
			fail_msg("%s", err.msg);
		iocurve__envelope__free_unpacked(got, NULL);
		free(buf);
		test_same(&e, &back);
		event_clear(&back);
	}
}

/* The keys and words of the JSON form are what scripts read: "event" first, in table order. */
static void test_json_text(void **state)
{
	struct event e = {.kind = EVENT_DONE,
	                  .done = {.status = 0,
	                           .message = "campaign complete",
	                           .results = "r/x",
	                           .summary = "rr: 2 steps\n"}};
	struct event a = {.kind = EVENT_AGENT,
	                  .agent = {.name = "n1", .state = EVENT_AGENT_LOST, .reason = "gone é"}};
	char *t = event_json_encode(&e);

	assert_string_equal(t, "{\"event\":\"done\",\"status\":0,\"message\":\"campaign "
	                       "complete\",\"results\":\"r/x\",\"summary\":\"rr: 2 steps\\n\"}");
	free(t);
	t = event_json_encode(&a);
	assert_string_equal(t, "{\"event\":\"agent\",\"name\":\"n1\",\"state\":\"lost\",\"n\":0,"
	                       "\"of\":0,\"reason\":\"gone é\"}");
	free(t);
}

static void test_json_refused(void **state)
{
	struct event e;
	struct error err;

	assert_int_equal(event_json_decode(&e, "not json", &err), -1);
	assert_non_null(strstr(err.msg, "not JSON"));
	assert_int_equal(event_json_decode(&e, "{\"event\":\"nope\"}", &err), -1);
	assert_string_equal(err.msg, "not an event: no known \"event\" kind");
	assert_int_equal(event_json_decode(&e, "{\"event\":\"step\",\"step\":\"3\"}", &err), -1);
	assert_string_equal(err.msg, "step event: \"step\" has the wrong type or range");
	assert_int_equal(event_json_decode(&e, "{\"event\":\"agent\",\"state\":\"asleep\"}", &err),
	                 -1);
	assert_string_equal(err.msg, "agent event: \"state\" has the wrong type or range");
	/* Missing members are zero, strings empty; unknown ones are ignored. */
	assert_int_equal(event_json_decode(&e, "{\"event\":\"done\",\"extra\":[1]}", &err), 0);
	assert_int_equal(e.done.status, 0);
	assert_string_equal(e.done.message, "");
	event_clear(&e);
}

/* The sample the dashboard test plays is made of events this version reads. */
static void test_sample_file(void **state)
{
	char path[4096], *line = NULL;
	size_t cap = 0, n = 0;
	struct error err;
	struct event e;
	FILE *f;

	snprintf(path, sizeof(path), "%s/tests/dashboard-events.txt", getenv("IOCURVE_SOURCE"));
	assert_non_null(f = fopen(path, "r"));
	while (getline(&line, &cap, f) > 0) {
		n++;
		if (event_json_decode(&e, line, &err) < 0)
			fail_msg("dashboard-events.txt line %zu: %s", n, err.msg);
		event_clear(&e);
	}
	free(line);
	fclose(f);
	assert_true(n > 100);
}

/* An event kept past its emit call (the daemon's history) is a copy of its own. */
static void test_copy(void **state)
{
	char name[16] = "agent-1";
	struct event e = {.kind = EVENT_LAYOUT, .layout = {.agent = name, .done = 5, .total = 10}};
	struct event c;

	event_copy(&c, &e);
	name[0] = 'X';
	assert_string_equal(c.layout.agent, "agent-1");
	assert_true(c.layout.total == 10);
	event_clear(&c);
	assert_null(c.layout.agent);
}

static void test_point(struct dashstate *s, uint32_t step, double offered, double achieved,
                       double us, struct event_knee k)
{
	struct event e = {.kind = EVENT_POINT,
	                  .point = {.step = step,
	                            .offered_ops = offered,
	                            .achieved_ops = achieved,
	                            .metric_us = us,
	                            .saturated = "",
	                            .knee = k}};

	assert_true(dashstate_event(s, &e));
}

/*
 * The dashboard shows the knee the events carry. Step 2 fell short of its
 * rate (the runner's rules: never under the SLO), so the knee is step 1's
 * throughput, although latency alone would put a crossing past it.
 */
static void test_dashstate_takes_the_knee(void **state)
{
	struct dashstate s;
	struct event wl = {.kind = EVENT_WORKLOAD,
	                   .workload = {.workload = 0, .of = 1, .name = "rr", .rw = "randread"}};
	struct event c = {
	    .kind = EVENT_CAMPAIGN,
	    .campaign = {.name = "t", .results = "", .metric = "p99", .slo_us = 1000}};
	struct event_knee k1 = {.kind = EVENT_KNEE_ABOVE_PEAK, .tp = 1000};
	struct event_knee k2 = {.kind = EVENT_KNEE_MEASURED, .tp = 1000};
	struct event done = {.kind = EVENT_WORKLOAD_DONE,
	                     .workload_done = {.name = "rr",
	                                       .knee_text = "Performance @ 1ms (p99): 1000 ops/s",
	                                       .knee = k2,
	                                       .peak_tp = 1500,
	                                       .why = "saturated"}};

	dashstate_init(&s);
	assert_true(dashstate_event(&s, &c));
	assert_true(dashstate_event(&s, &wl));
	test_point(&s, 0, 1000, 1000, 500, k1);
	assert_int_equal(s.wl[0].knee.kind, EVENT_KNEE_ABOVE_PEAK);
	test_point(&s, 1, 2000, 1500, 800, k2);
	assert_int_equal(s.wl[0].npts, 2);
	assert_int_equal(s.wl[0].knee.kind, EVENT_KNEE_MEASURED);
	assert_true(s.wl[0].knee.tp == 1000);
	assert_true(s.wl[0].pts[1].x == 1500);
	assert_false(s.wl[0].done);
	assert_true(dashstate_event(&s, &done));
	assert_true(s.wl[0].done);
	assert_true(s.wl[0].knee.tp == 1000);
	assert_true(s.wl[0].peak_tp == 1500);
	assert_string_equal(s.wl[0].knee_text, "Performance @ 1ms (p99): 1000 ops/s");
	assert_string_equal(s.wl[0].unit, "ops/s");
	dashstate_free(&s);
}

/*
 * The knee's band in the events is the judged curve's (summary.json's knee_band). A
 * knee at 16,000 under a violation offered 32,000 that achieved 20,000: the band
 * stops at the highest rate achieved, lo 16000, hi 20000, where the events gave 0 and 0.
 */
/* The stream's knee kind is summary.json's word for every kind of knee (at_peak too). */
static void test_knee_kind_as_summary(void **state)
{
	static const enum knee_kind kinds[] = {KNEE_NONE,     KNEE_INTERPOLATED, KNEE_ALL_UNDER,
	                                       KNEE_ALL_OVER, KNEE_AT_STEP,      KNEE_AT_PEAK};
	(void)state;
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		struct judged_curve j = {.knee = {.kind = kinds[i], .throughput = 100}};
		double peak;
		struct event_knee ek = event_knee_of(&j, &peak);

		assert_string_equal(event_knee_kind_name(ek.kind), curve_knee_kind(&j.knee));
	}
}

static void test_knee_band(void **state)
{
	struct campaign *c = testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [16000, 32000]}}]\n");
	struct step_point pts[2] = {0};
	struct judged_curve j = {0};
	struct event_knee k;
	double peak;

	(void)state;
	for (uint32_t i = 0; i < 2; i++) {
		pts[i].step = i;
		pts[i].offered_ops = pts[i].achieved_ops = 16000.0 * (i + 1);
		pts[i].ops = (uint64_t)(pts[i].offered_ops * 5);
		pts[i].mean_ns = i ? 3e6 : 5e5;
		pts[i].slo_due = true;
		pts[i].measured_s = 5;
		pts[i].intervals = 5;
		pts[i].steady = true;
		pts[i].workers = 1;
	}
	/*
	 * the violation fell behind (62.5% of due) but was wholly over the SLO all the
	 * same: violated. Its bracket's top is the 20000 it achieved; 25% wide, so the
	 * knee is interpolated in latency: 16000 + (1000 - 500) / (3000 - 500) x 4000
	 */
	pts[1].achieved_ops = 20000;
	pts[1].ops = 100000;
	pts[1].missed = 60000;
	judged_update(&j, c, &c->workloads[0], pts, 2);
	assert_int_equal(j.v[1].slo, VERDICT_VIOLATED);
	k = event_knee_of(&j, &peak);
	assert_int_equal(k.kind, EVENT_KNEE_INTERPOLATED);
	assert_true(fabs(k.tp - 16800) < 1e-6);
	assert_true(k.lo == 16000 && k.hi == 20000);
	assert_true(k.lo == j.knee.band_lo && k.hi == j.knee.band_hi);
	assert_true(peak == 20000);
	/*
	 * under the SLO (900 us) it is behind, not judged: nothing violated, the storage
	 * saturated under the SLO; the knee at the peak (at_peak, as summary.json says),
	 * its band up to the peak
	 */
	pts[1].mean_ns = 9e5;
	judged_update(&j, c, &c->workloads[0], pts, 2);
	assert_int_equal(j.knee.kind, KNEE_AT_PEAK);
	k = event_knee_of(&j, &peak);
	assert_int_equal(k.kind, EVENT_KNEE_AT_PEAK);
	assert_true(k.tp == 16000 && k.lo == 16000 && k.hi == 20000);
	assert_true(k.lo == j.knee.band_lo && k.hi == j.knee.band_hi);
	judged_free(&j);
	campaign_free(c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_json_round_trip),
	    cmocka_unit_test(test_knee_kind_as_summary),
	    cmocka_unit_test(test_pb_round_trip),
	    cmocka_unit_test(test_json_text),
	    cmocka_unit_test(test_json_refused),
	    cmocka_unit_test(test_sample_file),
	    cmocka_unit_test(test_copy),
	    cmocka_unit_test(test_dashstate_takes_the_knee),
	    cmocka_unit_test(test_knee_band),
	};

	return cmocka_run_group_tests_name("events", tests, NULL, NULL);
}
