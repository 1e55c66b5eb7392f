/* SPDX-License-Identifier: MIT */
/* Unit tests for the SVG curve and report.html: markers, labels, escaping, well-formedness. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "plot.h"
#include "report.h"
#include "table.h"

#define PLOT_TEST_N      6
#define PLOT_TEST_SLO_NS 1000000ull

/* Six steps: flat, bending, over the SLO at step 5, and step 6 saturated at 100x the SLO. */
static void plot_test_points(struct step_point *pts, double scale)
{
	static const double offered[PLOT_TEST_N] = {10e3, 20e3, 30e3, 40e3, 50e3, 60e3};
	static const double achieved[PLOT_TEST_N] = {10e3, 20e3, 30e3, 40e3, 48.5e3, 49e3};
	static const double mean_us[PLOT_TEST_N] = {200, 250, 350, 600, 1500, 100000};

	memset(pts, 0, PLOT_TEST_N * sizeof(*pts));
	for (size_t i = 0; i < PLOT_TEST_N; i++) {
		struct step_point *p = &pts[i];

		p->step = (uint32_t)i;
		p->offered_ops = offered[i] * scale;
		p->achieved_ops = achieved[i] * scale;
		p->mib_s = p->achieved_ops * 4096 / (1 << 20);
		p->mean_ns = mean_us[i] * 1e3;
		p->slo_due = true;
		p->p50_ns = (uint64_t)(p->mean_ns * 0.9);
		p->p90_ns = (uint64_t)(p->mean_ns * 1.5);
		p->p99_ns = (uint64_t)(p->mean_ns * 3);
		p->p999_ns = (uint64_t)(p->mean_ns * 5);
		p->max_ns = (uint64_t)(p->mean_ns * 9);
		p->svc_mean_ns = p->mean_ns * 0.5;
		p->hist[8 + i] = 300; /* 10 us and up, a bin further each step */
		p->hist[12 + i] = 100;
		p->ops = (uint64_t)(p->achieved_ops * 2);
		p->missed = (uint64_t)((p->offered_ops - p->achieved_ops) * 2);
		p->measured_s = 2;
		p->intervals = 5;
		p->steady = i < 5;
		/* one warm-up interval, then the measured ones, as the point averages them */
		p->nticks = 3;
		for (uint32_t k = 0; k < 3; k++)
			p->ticks[k] = (struct step_tick){.seconds = 1,
			                                 .ops_s = p->achieved_ops * (k ? 1 : 0.9),
			                                 .mean_ns = p->mean_ns,
			                                 .p50_ns = p->p50_ns,
			                                 .p99_ns = p->p99_ns,
			                                 .warmup = k == 0,
			                                 .measured = k > 0};
		p->client.host_cpu_pct = 10 + 5.0 * (double)i;
		p->nagents = 2;
		for (uint32_t a = 0; a < 2; a++) {
			snprintf(p->agents[a].name, sizeof(p->agents[a].name), "local-%u", a);
			p->agents[a].achieved_ops = p->achieved_ops / 2;
			p->agents[a].mean_ns = p->mean_ns;
		}
	}
}

static struct workload plot_test_workload(const char *name, enum rw_mode rw)
{
	struct workload w = {0};

	w.name = (char *)name;
	w.io.rw = rw;
	w.io.block_size = rw_is_random(rw) ? 4096 : 65536;
	w.io.workers = 1;
	w.io.queue_depth = 8;
	w.interval_ns = 1000000000ull;
	w.measure_ns = 2000000000ull;
	w.io.direct = true;
	return w;
}

static struct campaign plot_test_campaign(struct workload *w, size_t nw)
{
	struct campaign c = {0};
	static char text[] = "campaign: demo\n# load: a < b & c > \"d\"\n";
	static struct campaign_target target;

	c.name = (char *)"demo & <friends>";
	c.text = text;
	c.text_len = strlen(text);
	c.agents_mode = CAMPAIGN_AGENTS_LOCAL;
	c.agents_count = 2;
	target.sim.enabled = true;
	target.sim.servers = 2;
	target.sim.service_ns = 1000000;
	c.targets = &target;
	c.ntargets = 1;
	c.slo_latency_ns = PLOT_TEST_SLO_NS;
	c.slo_metric = SLO_MEAN;
	c.stop.min_achieved_pct = 95;
	c.stop.ceiling_ns = 50000000;
	c.workloads = w;
	c.nworkloads = nw;
	return c;
}

/* The document plot_curve_svg writes, as a NUL-terminated string the caller frees. */
static char *plot_test_svg(const struct workload *w, const struct plot_series *s, size_t ns)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	plot_curve_svg(f, w, s, ns, SLO_MEAN, PLOT_TEST_SLO_NS);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static size_t plot_test_count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)) != NULL; p += strlen(needle))
		n++;
	return n;
}

/* Parse with python's XML parser when python3 is there: a browser is as strict for SVG. */
static void plot_test_xml_ok(const char *doc)
{
	char path[] = "/tmp/iocurve-test-plot-XXXXXX", cmd[256];
	int fd, rc;

	if (system("command -v python3 >/dev/null 2>&1") != 0) {
		print_message("python3 not found: well-formedness not checked\n");
		return;
	}
	fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, doc, strlen(doc)), (ssize_t)strlen(doc));
	close(fd);
	snprintf(cmd, sizeof(cmd),
	         "python3 -c 'import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])' %s",
	         path);
	rc = system(cmd);
	if (rc != 0)
		fail_msg("not well-formed XML (kept %s)", path);
	unlink(path);
}

static void test_plot_one_series(void **state)
{
	struct step_point pts[PLOT_TEST_N];
	struct workload w = plot_test_workload("randread-4k", RW_RANDREAD);
	struct campaign c = plot_test_campaign(&w, 1);
	struct knee k;
	struct plot_series s;
	char *svg;

	(void)state;
	plot_test_points(pts, 1);
	k = curve_knee(&c, &w, pts, PLOT_TEST_N);
	assert_int_equal(k.kind, KNEE_INTERPOLATED);
	s = (struct plot_series){.pts = pts, .n = PLOT_TEST_N, .knee = &k};
	svg = plot_test_svg(&w, &s, 1);

	assert_true(strncmp(svg, "<svg", 4) == 0);
	assert_int_equal(plot_test_count(svg, "<circle class=\"step\""), PLOT_TEST_N);
	assert_non_null(strstr(svg, "SLO 1ms (mean)"));
	/* 40k + (1ms - 600us) / (1.5ms - 600us) x 8.5k = 43,778 */
	assert_non_null(strstr(svg, ">knee 43.7k ops/s<"));
	assert_non_null(strstr(svg, "mean latency (ms)"));
	assert_non_null(strstr(svg, "achieved throughput (ops/s)"));
	assert_non_null(strstr(svg, ">randread-4k (randread, 4KiB blocks)<"));
	/* Step 6 at 100x the SLO is drawn at the top edge, its value beside it. */
	assert_int_equal(plot_test_count(svg, "class=\"clipped\""), 1);
	assert_non_null(strstr(svg, ">100ms<"));
	assert_non_null(strstr(svg, "step 6: offered 60k ops/s, achieved 49,000 ops/s"));
	/* One series without a label: no legend. */
	assert_null(strstr(svg, "class=\"legend\""));
	assert_non_null(strstr(svg, "</svg>\n"));
	plot_test_xml_ok(svg);
	free(svg);
}

static void test_plot_deterministic(void **state)
{
	struct step_point pts[PLOT_TEST_N];
	struct workload w = plot_test_workload("randread-4k", RW_RANDREAD);
	struct campaign c = plot_test_campaign(&w, 1);
	struct knee k;
	struct plot_series s;
	char *a, *b;

	(void)state;
	plot_test_points(pts, 1);
	k = curve_knee(&c, &w, pts, PLOT_TEST_N);
	s = (struct plot_series){.label = "run 1", .pts = pts, .n = PLOT_TEST_N, .knee = &k};
	a = plot_test_svg(&w, &s, 1);
	b = plot_test_svg(&w, &s, 1);
	assert_string_equal(a, b);
	free(a);
	free(b);
}

static void test_plot_two_series(void **state)
{
	struct step_point p1[PLOT_TEST_N], p2[PLOT_TEST_N];
	struct workload w = plot_test_workload("randread-4k", RW_RANDREAD);
	struct campaign c = plot_test_campaign(&w, 1);
	struct knee k1, k2;
	struct plot_series s[2];
	char *svg;

	(void)state;
	plot_test_points(p1, 1);
	plot_test_points(p2, 1.5);
	k1 = curve_knee(&c, &w, p1, PLOT_TEST_N);
	k2 = curve_knee(&c, &w, p2, PLOT_TEST_N);
	s[0] = (struct plot_series){.label = "before", .pts = p1, .n = PLOT_TEST_N, .knee = &k1};
	s[1] = (struct plot_series){.label = "after", .pts = p2, .n = PLOT_TEST_N, .knee = &k2};
	svg = plot_test_svg(&w, s, 2);

	assert_int_equal(plot_test_count(svg, "<circle class=\"step\""), 2 * PLOT_TEST_N);
	assert_int_equal(plot_test_count(svg, "class=\"legend\""), 1);
	assert_non_null(strstr(svg, ">before<"));
	assert_non_null(strstr(svg, ">after<"));
	assert_int_equal(plot_test_count(svg, "class=\"knee\""), 2);
	assert_non_null(strstr(svg, ">knee 43.7k ops/s<"));
	assert_non_null(strstr(svg, ">knee 65.6k ops/s<"));
	assert_int_equal(plot_test_count(svg, "<polyline"), 2);
	plot_test_xml_ok(svg);
	free(svg);
}

static void test_plot_escapes(void **state)
{
	struct step_point pts[PLOT_TEST_N];
	struct workload w = plot_test_workload("a&b <c> \"d\"", RW_RANDREAD);
	struct plot_series s;
	char *svg;

	(void)state;
	plot_test_points(pts, 1);
	s = (struct plot_series){.label = "x<y & 'z'", .pts = pts, .n = PLOT_TEST_N};
	svg = plot_test_svg(&w, &s, 1);
	assert_non_null(strstr(svg, "a&amp;b &lt;c&gt; &quot;d&quot;"));
	assert_null(strstr(svg, "a&b"));
	assert_non_null(strstr(svg, "x&lt;y &amp; &#39;z&#39;"));
	plot_test_xml_ok(svg);
	free(svg);
}

/*
 * A sequential workload in MiB/s, every step under the SLO, with a step that
 * completed nothing: it still gets its marker. The top step's backlog grew: it could
 * not deliver its load, so the knee is at the peak, drawn at the highest met step
 * (48,500 ops/s of 64KiB: 3,031.25 MiB/s); with that backlog flat every step met the
 * SLO ("knee > X", 49,000 ops/s: 3,062.5 MiB/s).
 */
static void test_plot_mib_all_under(void **state)
{
	struct step_point pts[PLOT_TEST_N];
	struct workload w = plot_test_workload("seqread", RW_READ);
	struct campaign c = plot_test_campaign(&w, 1);
	struct knee k, under;
	struct plot_series s;
	char *svg;

	(void)state;
	plot_test_points(pts, 1);
	for (size_t i = 0; i < PLOT_TEST_N; i++) {
		pts[i].mib_s = pts[i].achieved_ops * 65536 / (1 << 20);
		pts[i].offered_ops = pts[i].achieved_ops;
		pts[i].missed = 0;
		pts[i].mean_ns = 100e3 * (double)(i + 1);
	}
	assert_int_equal(verdict_point(&pts[PLOT_TEST_N - 1]), VERDICT_BACKLOG);
	k = curve_knee(&c, &w, pts, PLOT_TEST_N);
	assert_int_equal(k.kind, KNEE_AT_PEAK);
	assert_int_equal(k.below, PLOT_TEST_N - 2);
	assert_true(k.throughput == 3031.25);
	assert_true(k.band_lo == 3031.25 && k.band_hi == 3062.5);
	pts[PLOT_TEST_N - 1].steady = true;
	under = curve_knee(&c, &w, pts, PLOT_TEST_N);
	assert_int_equal(under.kind, KNEE_ALL_UNDER);
	assert_int_equal(under.below, PLOT_TEST_N - 1);
	assert_true(under.throughput == 3062.5);
	pts[PLOT_TEST_N - 1].steady = false;
	pts[0].ops = 0; /* nothing completed: after the knee, so the knee stays as found */
	pts[0].achieved_ops = pts[0].mib_s = 0;
	s = (struct plot_series){.pts = pts, .n = PLOT_TEST_N, .knee = &k};
	svg = plot_test_svg(&w, &s, 1);
	assert_int_equal(plot_test_count(svg, "<circle class=\"step\""), PLOT_TEST_N);
	assert_non_null(strstr(svg, "achieved throughput (MiB/s)"));
	assert_non_null(strstr(svg, ">knee 3,031 MiB/s<"));
	assert_null(strstr(svg, "knee &gt;"));
	assert_non_null(strstr(svg, "nothing completed"));
	assert_non_null(strstr(svg, "mean latency (ms)"));
	plot_test_xml_ok(svg);
	free(svg);
	/* the lower bound */
	pts[PLOT_TEST_N - 1].steady = true;
	s.knee = &under;
	svg = plot_test_svg(&w, &s, 1);
	assert_int_equal(plot_test_count(svg, "<circle class=\"step\""), PLOT_TEST_N);
	assert_non_null(strstr(svg, ">knee &gt; 3,062 MiB/s<"));
	plot_test_xml_ok(svg);
	free(svg);
}

static char *plot_test_report(const struct campaign *c, const struct step_point *const *pts,
                              const size_t *npts)
{
	struct judged_curve *judged;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	judged = judged_all(c, pts, npts);
	report_html(f, c, pts, npts, judged, NULL);
	judged_free_all(judged, c->nworkloads);
	assert_int_equal(fclose(f), 0);
	return buf;
}

static void test_report_html(void **state)
{
	struct step_point p1[PLOT_TEST_N], p2[PLOT_TEST_N];
	struct workload w[3] = {plot_test_workload("randread-4k", RW_RANDREAD),
	                        plot_test_workload("read-64k", RW_READ),
	                        plot_test_workload("never", RW_WRITE)};
	struct campaign c = plot_test_campaign(w, 3);
	const struct step_point *pts[3] = {p1, p2, NULL};
	const size_t npts[3] = {PLOT_TEST_N, PLOT_TEST_N, 0};
	char *a, *b;

	(void)state;
	plot_test_points(p1, 1);
	plot_test_points(p2, 0.25);
	a = plot_test_report(&c, pts, npts);
	b = plot_test_report(&c, pts, npts);
	assert_string_equal(a, b);

	assert_true(strncmp(a, "<!DOCTYPE html>", 15) == 0);
	assert_non_null(strstr(a, "<title>iocurve: demo &amp; &lt;friends&gt;</title>"));
	assert_non_null(strstr(a, "<table class=\"summary\">"));
	assert_non_null(strstr(a, "<th>Workload</th><th>Performance @ 1.00ms storage mean</th>"
	                          "<th>95% band</th>"));
	/*
	 * the knee as measured (43,777.8 cut, never raised) and its band, whose top is the
	 * highest rate achieved (49,000), not the violation's 50,000 offered: a figure a cell
	 */
	assert_non_null(strstr(a, "<tr><td>randread-4k</td><td class=\"n\">43,777 ops/s</td>"
	                          "<td class=\"n\">40,000-49,000</td>"));
	assert_non_null(strstr(
	    a,
	    "<tr><td>read-64k</td><td class=\"n\">42.7 MiB/s</td><td class=\"n\">39.0-47.8</td>"));
	assert_non_null(strstr(a, "<tr><td>never</td><td class=\"n\">not run</td>"));
	/* One curve and one plot over time per workload that ran. */
	assert_int_equal(plot_test_count(a, "<svg"), 4 + 2 * PLOT_TEST_N);
	/* a latency histogram per step, folded: two bars each, 75% and 25% */
	assert_int_equal(plot_test_count(a, "<details class=\"hist\"><summary>show</summary><svg"),
	                 2 * PLOT_TEST_N);
	assert_int_equal(plot_test_count(a, "<rect class=\"bin\""), 2 * 2 * PLOT_TEST_N);
	assert_int_equal(plot_test_count(a, "<title>75.00% of operations</title>"),
	                 2 * PLOT_TEST_N);
	assert_int_equal(
	    plot_test_count(a, "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeplot\""), 2);
	/* over time: a line each for throughput, mean and p99, a band per interval, steps shaded */
	assert_int_equal(plot_test_count(a, "<polyline class=\"tput\""), 2);
	assert_int_equal(plot_test_count(a, "<polyline class=\"p99\""), 2);
	assert_int_equal(plot_test_count(a, "<rect class=\"warmup\""), 2 * PLOT_TEST_N);
	assert_int_equal(plot_test_count(a, "<rect class=\"measured\""), 2 * 2 * PLOT_TEST_N);
	assert_int_equal(plot_test_count(a, "<line class=\"offered\""), 2 * PLOT_TEST_N);
	assert_non_null(strstr(a, "<figure id=\"time-1\">"));
	/* the curve's companions: p99 beside the mean SLO, and the service time */
	assert_int_equal(plot_test_count(a, "<polyline class=\"companion-stat\""), 2);
	assert_int_equal(plot_test_count(a, "<polyline class=\"companion-svc\""), 2);
	assert_int_equal(plot_test_count(a, "dashed: p99 latency; dotted: service time"), 2);
	assert_int_equal(plot_test_count(a, "<circle class=\"step\""), 2 * PLOT_TEST_N);
	/* Per workload: steps, per-agent shares; the plan at the end, escaped. */
	assert_int_equal(plot_test_count(a, "<table class=\"steps\">"), 2);
	assert_int_equal(plot_test_count(a, "<table class=\"agents\">"), 2);
	assert_non_null(strstr(a, "<th colspan=\"3\">local-1</th>"));
	assert_non_null(strstr(a, "# load: a &lt; b &amp; c &gt; &quot;d&quot;"));
	assert_null(strstr(a, "a < b"));
	assert_non_null(strstr(a, "Performance @ 1.00ms (storage mean): 43,777 ops/s (95% band "
	                          "40,000-49,000) (interpolated between steps 4 and 5, not "
	                          "confirmed: band 22.5% wide: no refinement asked (load.refine); "
	                          "peak 49000 ops/s)"));
	/* the step tables: the response's mean, the storage's, the client's delay */
	assert_int_equal(plot_test_count(a, "<th>Response mean</th><th>Storage mean</th><th>Client "
	                                    "delay</th>"),
	                 2);
	/* step 5 violated; step 6 behind, its backlog growing, wholly over all the same */
	assert_int_equal(plot_test_count(a, "<td>violated</td>"), 2);
	assert_int_equal(plot_test_count(a, "<td>violated; behind (82% of due), backlog growing ("),
	                 2);
	assert_non_null(strstr(a, "<td>violated; behind (82% of due), backlog growing (22000 due, "
	                          "not issued, at its end)</td>"));
	assert_int_equal(plot_test_count(a, "<tr class=\"over\">"), 4);
	/* Self-contained: nothing to fetch (the SVG namespace is a name, not a request). */
	assert_null(strstr(a, "src="));
	assert_null(strstr(a, "href="));
	assert_null(strstr(a, "url("));
	assert_non_null(strstr(a, "</html>\n"));
	free(a);
	free(b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_plot_one_series),    cmocka_unit_test(test_plot_deterministic),
	    cmocka_unit_test(test_plot_two_series),    cmocka_unit_test(test_plot_escapes),
	    cmocka_unit_test(test_plot_mib_all_under), cmocka_unit_test(test_report_html),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
