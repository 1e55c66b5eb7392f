/* SPDX-License-Identifier: MIT */
/* Unit tests for the step point's field table: its rows, and the files and event built from it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "events.h"
#include "judged.h"
#include "pointfields.h"

/*
 * curve.csv's point columns as the first results format wrote them (after the workload's),
 * then the second's: the client's health, retries and stalls; then the third's: the
 * storage's latency by percentile, the client's delay and its part in the metric.
 */
#define TEST_HEALTH_KEYS                                                                           \
	"health_known,issue_late_us,slot_wait_us,reap_delay_us,nivcsw_s,steal_pct,late_over_us,"   \
	"late_pct,retries,client_stalls"
#define TEST_STORAGE_KEYS                                                                          \
	"service_p50_us,service_p99_us,service_max_us,client_delay_us,client_slo_us"
/* The kernel's view of the device (format 5): both CSVs, empty when not read. */
#define TEST_KERNEL_KEYS                                                                           \
	",device,device_service_us,device_gap_us,device_util_pct,device_queue,device_ops_ratio,"   \
	"device_shared,nfs_rtt_us,nfs_exec_us"
#define TEST_KERNEL_NONE ",,,,,,,,,"
/* The judged latency, named (curve-*.csv's last columns, curve-*.json's last keys). */
#define TEST_SLO_KEYS ",slo_metric,slo_metric_us,slo_metric_lo_us,slo_metric_hi_us"
#define TEST_CURVE_HEADER                                                                          \
	"step,load,offered_ops,achieved_ops,mib_s,mean_us,p50_us,p90_us,p99_us,p999_us,max_us,"    \
	"service_mean_us,ops,reads,errors,measured_s,cpu_pct,host_cpu_pct,lag_mean_us,lag_max_us," \
	"missed,lag_share,client_bound,missed_charged," TEST_HEALTH_KEYS                           \
	",metric_lo_us,metric_hi_us," TEST_STORAGE_KEYS TEST_KERNEL_KEYS
#define TEST_CSV_HEADER                                                                            \
	"step,offered_ops,achieved_ops,achieved_mibps,mean_us,p50_us,p90_us,p99_us,p999_us,"       \
	"max_us,steady,errors,agents,agents_lost,lost_at_interval" TEST_KERNEL_KEYS TEST_SLO_KEYS
/* curve-*.json's step keys, in the order written. */
#define TEST_JSON_KEYS                                                                             \
	"step,offered_ops,achieved_ops,achieved_mibps,mean_us,p50_us,p90_us,p99_us,p999_us,"       \
	"max_us,steady,errors,agents,client_cpu_pct,qd_full_pct,missed,percentiles_us,"            \
	"first_error,valid,verdict,service_mean_us,lag_mean_us,lag_share,client_bound,"            \
	"missed_charged,left_out,missed_before,cooldown_ms,cooldown," TEST_HEALTH_KEYS             \
	",metric_lo_us,metric_hi_us," TEST_STORAGE_KEYS ",slo_verdict,mismatches,slo_metric,"      \
	"slo_metric_us"

/* A point whose every figure differs from the others, so a column in the wrong place shows. */
static struct step_point test_point(void)
{
	struct step_point p;

	memset(&p, 0, sizeof(p));
	p.step = 2;
	p.offered_ops = 1500;
	p.achieved_ops = 1498.5;
	p.mib_s = 1498.5 * 4096 / (1 << 20); /* 5.853515625 */
	p.mean_ns = 812345;
	p.p50_ns = 700000;
	p.p90_ns = 900000;
	p.p99_ns = 1500000;
	p.p999_ns = 2000000;
	p.max_ns = 2500000;
	p.svc_mean_ns = 600000;
	p.svc_p50_ns = 550000;
	p.svc_p90_ns = 800000;
	p.svc_p99_ns = 1100000;
	p.svc_p999_ns = 1700000;
	p.svc_max_ns = 1900000;
	p.client.slo_ns = 2500;
	p.metric_lo_ns = 790000;
	p.metric_hi_ns = 845000;
	p.ops = 2997;
	p.reads = 1500;
	p.errors = 2;
	p.measured_s = 2;
	p.client.cpu_pct = 12.5;
	p.client.host_cpu_pct = 33.3;
	p.client.known = true;
	p.client.issue_late_ns = 41000;
	p.client.slot_wait_ns = 7000;
	p.client.reap_delay_ns = 3000;
	p.client.nivcsw_s = 12.5;
	p.client.steal_pct = 1.5;
	p.client.late_over_ns = 100000;
	p.client.late_pct = 0.625;
	p.client.retries = 2;
	p.client.lag_mean_ns = 1234;
	p.client.lag_max_ns = 5000;
	p.missed = 4;
	p.client.lag_share = 0.25;
	p.client.bound = true;
	p.missed_charged = 1;
	p.nagents = 3;
	p.agents_lost = 1;
	p.lost_at = 4;
	p.intervals = 5;
	return p;
}

/* What fn writes to a stream, malloc'd. */
static char *test_text(void (*fn)(FILE *f, unsigned out, const struct step_point *p,
                                  const struct judged_point *jp),
                       unsigned out, const struct step_point *p)
{
	char *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	assert_non_null(m);
	fn(m, out, p, NULL);
	fclose(m);
	return text;
}

static void test_header_fn(FILE *f, unsigned out, const struct step_point *p,
                           const struct judged_point *jp)
{
	(void)p;
	(void)jp;
	pfield_csv_header(f, out, p != NULL && p->mixed);
}

/* A point's row, with the read and write apart columns when it is a mixed workload's. */
static void test_row_fn(FILE *f, unsigned out, const struct step_point *p,
                        const struct judged_point *jp)
{
	pfield_csv_row(f, out, p->mixed, p, jp);
}

/* The names output out gives its fields (keys; event members; titles), comma separated. */
static void test_names_fn(FILE *f, unsigned out, const struct step_point *p,
                          const struct judged_point *jp)
{
	const struct pfield *list[PFIELD_MAX];
	size_t n = pfield_list(out, list);

	(void)p;
	(void)jp;
	for (size_t i = 0; i < n; i++)
		fprintf(f, "%s%s", i ? "," : "",
		        out == PF_EVENT ? pfield_event_key(list[i])
		        : out & (PF_STEPS_MD | PF_STEPS_HTML)
		            ? (list[i]->title ? list[i]->title : "pN")
		            : pfield_key(list[i]));
}

static void test_rows(void **state)
{
	size_t n;
	const struct pfield *t = pfield_table(&n);
	size_t shared = 0;

	(void)state;
	assert_true(n > 0 && n <= PFIELD_MAX);
	for (size_t i = 0; i < n; i++) {
		const struct pfield *f = &t[i];

		assert_non_null(f->name);
		assert_non_null(f->unit);
		assert_true(f->since >= 1);
		assert_true(f->out != 0);
		assert_ptr_equal(pfield_find(f->name), f);
		/* a value comes from a member or a function, as its kind needs */
		if (f->kind == PF_TEXT)
			assert_non_null(f->text);
		else if (f->member == PF_M_GET && f->kind != PF_PCTS)
			assert_non_null(f->get);
		assert_true(f->kind != PF_REAL || f->decimals <= 6);
		/* in the step tables: a column of its own, headed (the percentiles head theirs) */
		if (f->out & (PF_STEPS_MD | PF_STEPS_HTML)) {
			assert_true(f->col > 0);
			assert_true(f->title != NULL || f->kind == PF_PCTS);
		}
		for (size_t j = 0; j < i; j++) {
			const struct pfield *g = &t[j];

			assert_string_not_equal(f->name, g->name);
			if (f->out & g->out & (PF_CSV | PF_JSON))
				assert_string_not_equal(pfield_key(f), pfield_key(g));
			if (f->out & g->out & PF_EVENT)
				assert_string_not_equal(pfield_event_key(f), pfield_event_key(g));
			/*
			 * A column number is given once (pfield_list_kinds says so). The
			 * client's delay was given the storage mean's 6, and a replay's speed
			 * the offered rate's 2: the step tables order each pair by the table's
			 * order (test_layouts, test_speed hold that); any other pair sharing a
			 * column fails.
			 */
			if ((f->out & g->out & (PF_STEPS_MD | PF_STEPS_HTML)) && f->col == g->col) {
				bool speed = strcmp(f->name, "speed") == 0;

				assert_string_equal(g->name,
				                    speed ? "offered_ops" : "service_mean_us");
				if (!speed)
					assert_string_equal(f->name, "client_delay_us");
				shared++;
			}
		}
	}
	assert_true(shared <= 2);
	assert_null(pfield_find("no_such_field"));
}

/* Each output's columns and keys, in its order: what its readers rely on. */
static void test_layouts(void **state)
{
	static const struct {
		unsigned out;
		void (*fn)(FILE *, unsigned, const struct step_point *,
		           const struct judged_point *);
		const char *want;
	} cases[] = {
	    {PF_CURVE, test_header_fn, TEST_CURVE_HEADER},
	    {PF_CSV, test_header_fn, TEST_CSV_HEADER},
	    {PF_JSON, test_names_fn, TEST_JSON_KEYS},
	    {PF_EVENT, test_names_fn,
	     "offered_ops,achieved_ops,mib_s,mean_us,p50_us,p99_us,steady,errors,client_cpu_pct"},
	    {PF_STEPS_MD, test_names_fn,
	     "Step,Offered ops/s,Achieved ops/s,MiB/s,Response mean,Storage mean,Client delay,pN,"
	     "Max,Verdict,Errors,Client CPU"},
	    {PF_STEPS_HTML, test_names_fn,
	     "Step,Offered ops/s,Achieved ops/s,MiB/s,Response mean,Storage mean,Client delay,pN,"
	     "Max,Verdict,Errors,Client CPU"},
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = test_text(cases[i].fn, cases[i].out, NULL);

		assert_string_equal(got, cases[i].want);
		free(got);
	}
}

/*
 * One point's rows of curve.csv and curve-*.csv, as the first results format wrote them,
 * then the later formats' columns: the client's delay is issue lateness plus reap delay.
 */
static void test_rows_text(void **state)
{
	struct step_point p = test_point();
	char *got = test_text(test_row_fn, PF_CURVE, &p);

	(void)state;
	assert_string_equal(got, "3,rate,1500.0,1498.5,5.854,812.3,700.0,900.0,1500.0,2000.0,"
	                         "2500.0,600.0,2997,1500,2,2.000,12.5,33.3,1.2,5.0,4,0.250,true,1,"
	                         "true,41.0,7.0,3.0,12.5,1.5,100.0,0.625,2,0,790.0,845.0,550.0,"
	                         "1100.0,1900.0,44.0,2.5" TEST_KERNEL_NONE);
	free(got);
	got = test_text(test_row_fn, PF_CSV, &p);
	assert_string_equal(got,
	                    "3,1500.0,1498.5,5.854,812.3,700.0,900.0,1500.0,2000.0,2500.0,"
	                    "false,2,3,1,5" TEST_KERNEL_NONE ",storage mean,600.0,790.0,845.0");
	free(got);

	/* a closed-loop step with no agent lost: "max", and an empty lost_at_interval */
	p.offered_ops = 0;
	p.agents_lost = 0;
	p.client.bound = false;
	got = test_text(test_row_fn, PF_CURVE, &p);
	assert_true(strncmp(got, "3,max,0.0,", 10) == 0);
	assert_true(strstr(got, ",false,1") != NULL);
	free(got);
	/* without the client's health (an agent of 0.1.0) its delay is not measured: empty */
	p.client.known = false;
	got = test_text(test_row_fn, PF_CURVE, &p);
	assert_non_null(strstr(got, ",550.0,1100.0,1900.0,,2.5"));
	free(got);
	p.client.known = true;
	got = test_text(test_row_fn, PF_CSV, &p);
	/* no agent lost: lost_at_interval empty, before the kernel's and the judged latency's */
	assert_non_null(strstr(got, ",3,0," TEST_KERNEL_NONE ",storage mean,"));
	free(got);
}

/* Values: in the field's unit, computed ones from the point, none where there is none. */
static void test_values(void **state)
{
	struct step_point p = test_point();
	struct judged_point jp = {.valid = false, .words = "1 errors (as judged)"};
	char buf[PFIELD_TEXT_MAX];
	struct pfield_val v;

	(void)state;
	v = pfield_value(pfield_find("mean_us"), &p, NULL);
	assert_true(v.d == 812345 / 1e3 && v.raw == 812345);
	v = pfield_value(pfield_find("p99_us"), &p, NULL);
	assert_true(v.d == 1500.0 && v.u == 1500000);
	v = pfield_value(pfield_find("step"), &p, NULL);
	assert_true(v.u == 3 && !v.none);
	v = pfield_value(pfield_find("first_error"), &p, NULL);
	assert_true(v.none);
	p.err_errno = 5;
	v = pfield_value(pfield_find("first_error"), &p, NULL);
	assert_true(!v.none && v.u == 5);
	/* valid and the verdict are the judged curve's, never judged again from the point */
	v = pfield_value(pfield_find("valid"), &p, &jp);
	assert_false(v.none);
	assert_false(v.b);
	assert_true(pfield_format(pfield_find("verdict"), &p, &jp, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "1 errors (as judged)");
	/* the one verdict on the SLO, in a word: not judged, met, undecided, violated */
	jp.slo = VERDICT_NOT_JUDGED;
	assert_true(pfield_format(pfield_find("slo_verdict"), &p, &jp, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "not judged");
	jp.slo = VERDICT_UNDECIDED;
	assert_true(pfield_format(pfield_find("slo_verdict"), &p, &jp, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "undecided");
	jp.valid = true;
	assert_true(pfield_value(pfield_find("valid"), &p, &jp).b);
	/* without a judged curve they have no value */
	assert_true(pfield_value(pfield_find("valid"), &p, NULL).none);
	assert_int_equal(pfield_format(pfield_find("verdict"), &p, NULL, buf, sizeof(buf)), 0);
	assert_int_equal(pfield_format(pfield_find("slo_verdict"), &p, NULL, buf, sizeof(buf)), 0);
	/* the storage's latency, the client's delay (issue lateness + reap delay) and part */
	v = pfield_value(pfield_find("service_p99_us"), &p, NULL);
	assert_true(v.d == 1100.0 && v.u == 1100000);
	v = pfield_value(pfield_find("client_delay_us"), &p, NULL);
	assert_true(!v.none && v.d == 44.0);
	v = pfield_value(pfield_find("client_slo_us"), &p, NULL);
	assert_true(v.d == 2.5);
	p.client.known = false;
	assert_true(pfield_value(pfield_find("client_delay_us"), &p, NULL).none);
	/* truncated, never overrun */
	assert_int_equal(pfield_format(pfield_find("offered_ops"), &p, NULL, buf, 4), 3);
	assert_string_equal(buf, "150");
}

/* The point event's members come from the rows: each exists in the event, values as before. */
static void test_event(void **state)
{
	const struct pfield *list[PFIELD_MAX];
	size_t n = pfield_list(PF_EVENT, list), nf;
	const struct event_field *ef = event_fields(EVENT_POINT, &nf);
	struct step_point p = test_point();
	struct event e;

	(void)state;
	for (size_t i = 0; i < n; i++) {
		bool found = false;

		for (size_t k = 0; k < nf; k++)
			if (strcmp(ef[k].key, pfield_event_key(list[i])) == 0)
				found = ef[k].type == EVENT_T_DOUBLE || ef[k].type == EVENT_T_U64 ||
				        ef[k].type == EVENT_T_BOOL || ef[k].type == EVENT_T_U32;
		if (!found)
			fail_msg("point field %s: no number member %s in the point event",
			         list[i]->name, pfield_event_key(list[i]));
	}
	event_point_fill(&e, &p);
	assert_int_equal(e.kind, EVENT_POINT);
	assert_true(e.point.offered_ops == p.offered_ops);
	assert_true(e.point.achieved_ops == p.achieved_ops);
	assert_true(e.point.mib_s == p.mib_s);
	assert_true(e.point.mean_us == p.mean_ns / 1e3);
	assert_true(e.point.p50_us == (double)p.p50_ns / 1e3);
	assert_true(e.point.p99_us == (double)p.p99_ns / 1e3);
	assert_true(e.point.steady == p.steady);
	assert_true(e.point.errors == p.errors);
	assert_true(e.point.client_cpu_pct == p.client.host_cpu_pct);
	/* the runner's own: not from the point */
	assert_true(e.point.step == 0 && e.point.metric_us == 0 && e.point.saturated == NULL);
}

/* Read and write apart: a mixed workload's columns at the end, null when not measured. */
static void test_kinds(void **state)
{
	struct step_point p = test_point();
	char *pure_head = test_text(test_header_fn, PF_CSV, &p), *got;
	const struct pfield *list[PFIELD_MAX];
	size_t pure_n = pfield_list(PF_JSON, list);

	(void)state;
	/* a pure workload's outputs are as before: no read or write columns */
	assert_null(strstr(pure_head, "read_ops"));
	assert_int_equal(pfield_list_kinds(PF_JSON, false, list), pure_n);
	p.mixed = true;
	p.kinds.known = true;
	p.kinds.read_ops_s = 1049.5;
	p.kinds.write_ops_s = 449;
	p.kinds.read_mib_s = 4.1;
	p.kinds.write_mib_s = 1.754;
	p.kinds.read_mean_ns = 500;
	p.kinds.write_mean_ns = 1500;
	p.kinds.read_p50_ns = 450;
	p.kinds.write_p50_ns = 1400;
	p.kinds.read_p99_ns = 900;
	p.kinds.write_p99_ns = 2500;
	p.kinds.read_max_ns = 1000;
	p.kinds.write_max_ns = 3000;
	got = test_text(test_header_fn, PF_CSV, &p);
	/* after every point's columns, before the kernel's (the rows that came after them) */
	pure_head[strlen(pure_head) - strlen(TEST_KERNEL_KEYS TEST_SLO_KEYS)] = '\0';
	assert_int_equal(strncmp(got, pure_head, strlen(pure_head)), 0);
	assert_string_equal(got + strlen(pure_head),
	                    ",read_ops,write_ops,read_mibps,write_mibps,read_mean_us,write_mean_us,"
	                    "read_p50_us,write_p50_us,read_p99_us,write_p99_us,read_max_us,"
	                    "write_max_us" TEST_KERNEL_KEYS TEST_SLO_KEYS);
	free(got);
	got = test_text(test_row_fn, PF_CSV, &p);
	assert_non_null(strstr(got, ",1049.5,449.0,4.100,1.754,0.5,1.5,0.5,1.4,0.9,2.5,1.0,3.0"));
	free(got);
	/* an agent without the kinds: ops/s (from reads) stay, the rest is not measured */
	p.kinds.known = false;
	got = test_text(test_row_fn, PF_CSV, &p);
	assert_non_null(strstr(got, ",1049.5,449.0,,,,,,,,,,"));
	/* ...up to the judged latency's columns, the last */
	assert_non_null(strstr(got, ",,,,,,,,,," TEST_KERNEL_NONE ",storage mean,"));
	free(got);
	/* the step tables: per-kind columns for a mixed workload only */
	assert_int_equal(pfield_list_kinds(PF_STEPS_MD, true, list),
	                 pfield_list(PF_STEPS_MD, list) + 6);
	free(pure_head);
}

/*
 * The kernel's view: the device's time beside ours and the gap, its busy share and queue,
 * shared said when it completed more than 1.2x the workers' ops; in the step tables only
 * for a workload whose points have it.
 */
/*
 * A replay's speed: the offered rate over the trace's x1 rate, after every other column of
 * the files and beside the offered rate in the step tables; none for a workload of rates.
 */
static void test_speed(void **state)
{
	struct step_point p = test_point();
	const struct pfield *list[PFIELD_MAX];
	char *plain = test_text(test_header_fn, PF_CURVE, &p), buf[32];
	size_t n;
	struct pfield_val v;

	(void)state;
	assert_null(strstr(plain, "speed"));
	free(plain);
	/* a workload of rates: no value, in no output of its own */
	v = pfield_value(pfield_find("speed"), &p, NULL);
	assert_true(v.none);
	n = pfield_list_kinds(PF_JSON, pfield_show_point(&p), list);
	for (size_t i = 0; i < n; i++)
		assert_string_not_equal(list[i]->name, "speed");
	/* a trace of 500 ops/s at x1 offered 1500 ops/s: x3 */
	p.replay_x1 = 500;
	assert_true(pfield_show_point(&p) & PF_SHOW_REPLAY);
	v = pfield_value(pfield_find("speed"), &p, NULL);
	assert_true(!v.none && v.d == 3.0);
	assert_true(pfield_format(pfield_find("speed"), &p, NULL, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "3.000");
	n = pfield_list_kinds(PF_JSON, PF_SHOW_REPLAY, list);
	/* the last row but the judged latency's two, which came after it */
	assert_string_equal(list[n - 3]->name, "speed");
	n = pfield_list_kinds(PF_CURVE, PF_SHOW_REPLAY, list);
	assert_string_equal(list[n - 1]->name, "speed");
	n = pfield_list_kinds(PF_STEPS_MD, PF_SHOW_REPLAY, list);
	assert_string_equal(list[1]->name, "offered_ops");
	assert_string_equal(list[2]->name, "speed");
	assert_string_equal(list[3]->name, "achieved_ops");
	/* a closed-loop step has no speed */
	p.offered_ops = 0;
	assert_true(pfield_value(pfield_find("speed"), &p, NULL).none);
}

static void test_kernel(void **state)
{
	struct step_point p = test_point();
	const struct pfield *list[PFIELD_MAX];
	char *got;

	(void)state;
	p.kernel.known = true;
	snprintf(p.kernel.dev, sizeof(p.kernel.dev), "vda");
	p.kernel.dev_service_ns = 80000;
	p.kernel.dev_util_pct = 45.5;
	p.kernel.dev_queue = 1.25;
	p.kernel.dev_ops_ratio = 1.5;
	got = test_text(test_row_fn, PF_CSV, &p);
	assert_non_null(
	    strstr(got, ",vda (shared: 1.5x the workers' ops),80.0,520.0,45.5,1.25,1.50,true,,"));
	free(got);
	p.kernel.dev_ops_ratio = 1.1; /* within the workers' own: not shared */
	got = test_text(test_row_fn, PF_CSV, &p);
	assert_non_null(strstr(got, ",vda,80.0,520.0,45.5,1.25,1.10,false,,"));
	free(got);
	assert_int_equal(pfield_show_kernel(&p, 1), PF_SHOW_KERNEL);
	p.kernel.known = false;
	assert_int_equal(pfield_show_kernel(&p, 1), 0);
	/* NFS: its RTT and execution time, no device counters */
	p.kernel.nfs_known = true;
	p.kernel.nfs_rtt_ns = 350000;
	p.kernel.nfs_exec_ns = 420000;
	snprintf(p.kernel.dev, sizeof(p.kernel.dev), "nfs srv:/export");
	got = test_text(test_row_fn, PF_CSV, &p);
	assert_non_null(strstr(got, ",nfs srv:/export,,,,,,,350.0,420.0"));
	free(got);
	/* Device, Device time, Gap us, Device busy, Device queue, NFS RTT */
	assert_int_equal(pfield_list_kinds(PF_STEPS_MD, PF_SHOW_KERNEL, list),
	                 pfield_list(PF_STEPS_MD, list) + 6);
	assert_int_equal(pfield_list_kinds(PF_STEPS_HTML, PF_SHOW_MIXED | PF_SHOW_KERNEL, list),
	                 pfield_list(PF_STEPS_HTML, list) + 12);
}

/*
 * Load under load: the background's columns in both CSVs with PF_SHOW_BACKGROUND only
 * (after the kernel's), a verdict holding a comma quoted, and the point event's bg_ops
 * (NaN without a background: null in JSON) and bg_kept_up.
 */
static void test_background(void **state)
{
	struct step_point p = test_point();
	char *text = NULL, *plain;
	size_t len = 0;
	FILE *m;
	struct event e;

	(void)state;
	plain = test_text(test_header_fn, PF_CSV, &p);
	assert_null(strstr(plain, "bg_"));
	free(plain);
	m = open_memstream(&text, &len);
	pfield_csv_header(m, PF_CSV, PF_SHOW_BACKGROUND);
	fclose(m);
	assert_non_null(strstr(text, TEST_KERNEL_KEYS
	                       ",bg_asked_ops_s,bg_ops_s,bg_mibps,"
	                       "bg_mean_us,bg_p99_us,bg_missed,bg_kept_up,bg_verdict"));
	free(text);
	/* a campaign with a background, a point of it that fell behind */
	p.bg.on = true;
	p.bg.asked_ops = 1000;
	p.bg.ops = 444.4;
	p.bg.mib_s = 27.775;
	p.bg.mean_ns = 120500;
	p.bg.p99_ns = 622854100;
	p.bg.missed = 3;
	p.bg.intervals = 10;
	m = open_memstream(&text, &len);
	pfield_csv_row(m, PF_CURVE, PF_SHOW_BACKGROUND, &p, NULL);
	fclose(m);
	assert_non_null(strstr(text, TEST_KERNEL_NONE
	                       ",1000.0,444.4,27.775,120.5,622854.1,3,false,"
	                       "\"fell behind: 444 of 1000 ops/s asked (44%), operations "
	                       "missed\""));
	free(text);
	/*
	 * A value on a half of its last decimal (3,573,950 ns: the double 3573.9499...)
	 * reads in the CSV as in the JSON (stepjson_num rounds it to 3574.0): the files
	 * once said 3573.9 and 3574.0 for the same step.
	 */
	{
		char buf[32];

		p.bg.p99_ns = 3573950;
		pfield_format(pfield_find("bg_p99_us"), &p, NULL, buf, sizeof(buf));
		assert_string_equal(buf, "3574.0");
	}
	event_point_fill(&e, &p);
	assert_true(e.point.bg_ops == 444.4);
	assert_false(e.point.bg_kept_up);
	p.bg.ops = 990;
	event_point_fill(&e, &p);
	assert_true(e.point.bg_kept_up);
	p.bg.on = false;
	event_point_fill(&e, &p);
	assert_true(isnan(e.point.bg_ops));
	assert_false(e.point.bg_kept_up);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_rows),       cmocka_unit_test(test_layouts),
	    cmocka_unit_test(test_rows_text),  cmocka_unit_test(test_values),
	    cmocka_unit_test(test_event),      cmocka_unit_test(test_kinds),
	    cmocka_unit_test(test_kernel),     cmocka_unit_test(test_speed),
	    cmocka_unit_test(test_background),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
