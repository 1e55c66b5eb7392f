/* SPDX-License-Identifier: MIT */
/* iocurve compare DIR DIR...: overlay the curves of several runs and say how the knee moved. */
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd.h"
#include "cmpgate.h"
#include "fsutil.h"
#include "kinds.h"
#include "markup.h"
#include "plot.h"
#include "replay.h"
#include "setupdiff.h"
#include "table.h"
#include "xalloc.h"

/* One run being compared: its points and their judged curves (rp.judged), per workload. */
struct compare_run {
	const char *dir;
	struct replay rp;
};

/* One row of the change table: cells[0] the workload, then per run its knee, change, noise. */
#define COMPARE_MAX_RUNS 16
struct compare_row {
	char cells[1 + 3 * COMPARE_MAX_RUNS][96];
	size_t n;
};

static ssize_t compare_find(const struct campaign *c, const char *name)
{
	for (size_t i = 0; i < c->nworkloads; i++)
		if (strcmp(c->workloads[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

static void compare_print_figures(FILE *f, bool html, struct compare_run *runs, size_t nruns);

/* The base run's workloads, each overlaid with the same workload of every other run. */
static void compare_write(FILE *html, const char *out, struct compare_run *runs, size_t nruns,
                          const struct compare_row *rows, char *const *diff)
{
	const struct campaign *base = runs[0].rp.campaign;

	fprintf(html, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>iocurve "
	              "compare</title><style>body{font-family:sans-serif;margin:2em}table{border-"
	              "collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:"
	              "right}p.warn{background:#fff4e5;border:1px solid #e0b070;padding:6px "
	              "10px}</style></head><body>\n<h1>iocurve compare</h1>\n<ol>\n");
	for (size_t r = 0; r < nruns; r++) {
		fputs("<li>", html);
		markup_escape(html, runs[r].dir);
		fputs("</li>\n", html);
	}
	fputs("</ol>\n", html);
	for (size_t r = 1; r < nruns; r++) {
		if (diff[r] == NULL)
			continue;
		fprintf(html, "<p class=\"warn\">Setups differ, run %zu against run 1: ", r + 1);
		markup_escape(html, diff[r]);
		fputs("</p>\n", html);
	}
	fputs("<h2>Knees</h2>\n<table id=\"changes\"><tr><th>workload</th><th>run 1</th>", html);
	for (size_t r = 1; r < nruns; r++)
		fprintf(html, "<th>run %zu</th><th>change</th><th>noise</th>", r + 1);
	fputs("</tr>\n", html);
	for (size_t w = 0; w < base->nworkloads; w++) {
		fputs("<tr>", html);
		for (size_t k = 0; k < rows[w].n; k++) {
			fputs(k == 0 ? "<td style=\"text-align:left\">" : "<td>", html);
			markup_escape(html, rows[w].cells[k]);
			fputs("</td>", html);
		}
		fputs("</tr>\n", html);
	}
	fputs("</table>\n", html);
	compare_print_figures(html, true, runs, nruns);
	for (size_t w = 0; w < base->nworkloads; w++) {
		const struct workload *wl = &base->workloads[w];
		struct plot_series *ser = xcalloc(nruns, sizeof(*ser));
		size_t n = 0;
		char *path = xasprintf("%s/compare-%s.svg", out, wl->name);
		FILE *svg = fopen(path, "w");
		char *mem = NULL;
		size_t memlen = 0;
		FILE *m = open_memstream(&mem, &memlen);

		for (size_t r = 0; r < nruns; r++) {
			ssize_t i = compare_find(runs[r].rp.campaign, wl->name);

			if (i < 0 || runs[r].rp.npts[i] == 0)
				continue;
			ser[n].label = runs[r].dir;
			ser[n].pts = runs[r].rp.judged[i].sorted;
			ser[n].n = runs[r].rp.judged[i].n;
			ser[n].knee = &runs[r].rp.judged[i].knee;
			n++;
		}
		plot_curve_svg(m, wl, ser, n, base->slo_metric, base->slo_latency_ns);
		fclose(m);
		if (svg != NULL) {
			fwrite(mem, 1, memlen, svg);
			fclose(svg);
		}
		fputs("<h2>", html);
		markup_escape(html, wl->name);
		fputs("</h2>\n", html);
		fwrite(mem, 1, memlen, html);
		free(mem);
		free(path);
		free(ser);
	}
	fputs("</body></html>\n", html);
}

/*
 * A run's knee for workload w: the mean of its repeats when it has them (r->n > 0).
 * bound: 0 a value, 1 a lower bound (every step met the SLO), -1 no knee.
 */
static void compare_knee(const struct compare_run *run, size_t w, struct curve_repeats *r,
                         double *knee, int *bound)
{
	const struct knee *k = &run->rp.judged[w].knee;

	*r = run->rp.judged[w].repeats;
	*knee = r->n ? r->mean : k->throughput;
	*bound = r->n                                               ? 0
	         : k->kind == KNEE_ALL_UNDER                        ? 1
	         : k->kind == KNEE_NONE || k->kind == KNEE_ALL_OVER ? -1
	                                                            : 0;
}

struct compare_text {
	char s[96];
};

/*
 * "45200.0 (44000.0-46000.0)": the knee and its 95% interval (curve_knee_interval),
 * "> 45200.0" (a lower bound), "none"; with repeats the mean and "(3 repeats)".
 */
static struct compare_text compare_fmt(const struct knee *k, const struct curve_repeats *r,
                                       double knee, int bound)
{
	struct compare_text t;
	double lo, hi;

	if (bound < 0)
		snprintf(t.s, sizeof(t.s), "none");
	else if (bound > 0)
		snprintf(t.s, sizeof(t.s), "> %.1f", knee);
	else if (curve_knee_interval(k, r, &lo, &hi) && r->n)
		snprintf(t.s, sizeof(t.s), "%.1f (%.1f-%.1f, %zu repeats)", knee, lo, hi, r->n);
	else if (curve_knee_interval(k, r, &lo, &hi))
		snprintf(t.s, sizeof(t.s), "%.1f (%.1f-%.1f)", knee, lo, hi);
	else
		snprintf(t.s, sizeof(t.s), "%.1f", knee);
	return t;
}

/*
 * The change from the base knee k0 to k1, keeping what a bound allows: the true
 * base is at least k0 when it is a lower bound, so the change is at most
 * (k1 - k0) / k0; a lower bound in the other run makes it at least that.
 */
static struct compare_text compare_change(double k0, int b0, double k1, int b1)
{
	struct compare_text t;
	double pct = k0 > 0 ? 100.0 * (k1 - k0) / k0 : 0;

	if (b0 < 0 || b1 < 0 || k0 <= 0)
		snprintf(t.s, sizeof(t.s), "n/a");
	else if (b0 > 0 && b1 > 0)
		snprintf(t.s, sizeof(t.s), "n/a (both lower bounds)");
	else if (b0 > 0)
		snprintf(t.s, sizeof(t.s), "\xe2\x89\xa4 %+.1f%%", pct);
	else if (b1 > 0)
		snprintf(t.s, sizeof(t.s), "\xe2\x89\xa5 %+.1f%%", pct);
	else
		snprintf(t.s, sizeof(t.s), "%+.1f%%", pct);
	return t;
}

static const char *compare_noise_text(const struct knee *ka, const struct curve_repeats *a,
                                      const struct knee *kb, const struct curve_repeats *b, int b0,
                                      int b1)
{
	if (b0 < 0 || b1 < 0)
		return "no knee to compare";
	if (b0 != 0 || b1 != 0)
		return "spread unknown: a bound is not a measurement";
	switch (curve_compare_noise(ka, a, kb, b)) {
	case CURVE_NOISE_WITHIN:
		return "within noise";
	case CURVE_NOISE_BEYOND:
		return "beyond noise";
	default:
		break;
	}
	return "spread unknown: a knee without a band";
}

static void compare_cell(struct compare_row *row, const char *s)
{
	if (row->n < sizeof(row->cells) / sizeof(row->cells[0]))
		snprintf(row->cells[row->n++], sizeof(row->cells[0]), "%s", s);
}

/* The change table, a row per workload of the base run. */
static struct compare_row *compare_rows(struct compare_run *runs, size_t nruns)
{
	const struct campaign *c0 = runs[0].rp.campaign;
	struct compare_row *rows = xcalloc(c0->nworkloads, sizeof(*rows));

	for (size_t w = 0; w < c0->nworkloads; w++) {
		struct curve_repeats r0, rr;
		double k0, k;
		int b0, b;

		const struct knee *kn0 = &runs[0].rp.judged[w].knee, *kn;

		compare_knee(&runs[0], w, &r0, &k0, &b0);
		compare_cell(&rows[w], c0->workloads[w].name);
		compare_cell(&rows[w], compare_fmt(kn0, &r0, k0, b0).s);
		for (size_t r = 1; r < nruns; r++) {
			ssize_t i = compare_find(runs[r].rp.campaign, c0->workloads[w].name);

			if (i < 0) {
				compare_cell(&rows[w], "-");
				compare_cell(&rows[w], "-");
				compare_cell(&rows[w], "-");
				continue;
			}
			compare_knee(&runs[r], (size_t)i, &rr, &k, &b);
			kn = &runs[r].rp.judged[i].knee;
			compare_cell(&rows[w], compare_fmt(kn, &rr, k, b).s);
			compare_cell(&rows[w], compare_change(k0, b0, k, b).s);
			compare_cell(&rows[w], compare_noise_text(kn0, &r0, kn, &rr, b0, b));
		}
	}
	return rows;
}

/* Each later run's setup against the base: what differs, or NULL. */
static char **compare_setups(struct compare_run *runs, size_t nruns)
{
	char **diff = xcalloc(nruns, sizeof(*diff));

	for (size_t r = 1; r < nruns; r++) {
		char buf[8192];

		if (setupdiff(runs[0].rp.campaign, runs[r].rp.campaign, buf, sizeof(buf)) > 0)
			diff[r] = xstrdup(buf);
	}
	return diff;
}

/*
 * A run's figures for one workload, in the workload's unit: the knee (compare_knee),
 * the peak (capacity, valid or not), the sustained figure (the best valid step, with
 * its SLO metric) and the best closed-loop (max) step.
 */
struct compare_fig {
	bool present;
	const struct knee *k;
	struct curve_repeats r;
	double knee;
	int bound;
	bool band;
	double lo, hi;
	bool has_peak, has_sus, has_max;
	double peak, sus, sus_lat_ns, max;
	/* fixed work: the storm (first start to last finish) and the workers' p90, seconds;
	 * storm_run when its step ran, has_storm when every worker finished */
	bool storm_run, has_storm;
	uint32_t finished, workers;
	double storm_s, worker_p90_s;
};

static struct compare_fig compare_figures(const struct compare_run *run, const char *name)
{
	struct compare_fig f = {0};
	ssize_t i = compare_find(run->rp.campaign, name);
	const struct judged_curve *j;

	if (i < 0)
		return f;
	j = &run->rp.judged[i];
	f.present = true;
	f.k = &j->knee;
	compare_knee(run, (size_t)i, &f.r, &f.knee, &f.bound);
	f.band = f.bound == 0 && curve_knee_interval(f.k, &f.r, &f.lo, &f.hi);
	if (j->peak != NULL) {
		f.has_peak = true;
		f.peak = j->peak_tp;
	}
	if (j->sustained != NULL) {
		f.has_sus = true;
		f.sus = curve_throughput(j->w, j->sustained);
		f.sus_lat_ns = step_metric(j->sustained, j->c->slo_metric);
	}
	if (j->w->work.on && j->n > 0 && j->sorted[0].storm.on) {
		const struct storm *s = &j->sorted[0].storm;

		f.storm_run = true;
		f.finished = s->finished;
		f.workers = s->workers;
		f.has_storm = s->workers > 0 && s->finished == s->workers;
		f.storm_s = s->storm_s;
		f.worker_p90_s = s->worker.p90_s;
	}
	for (size_t p = 0; p < j->n; p++)
		if (j->sorted[p].offered_ops <= 0) {
			double tp = curve_throughput(j->w, &j->sorted[p]);

			if (!f.has_max || tp > f.max)
				f.max = tp;
			f.has_max = true;
		}
	return f;
}

/* The step of run offered rate ops/s (within 0.5%), the last run; NULL when none. */
static const struct step_point *compare_at_rate(const struct compare_run *run, const char *name,
                                                double rate)
{
	ssize_t i = compare_find(run->rp.campaign, name);
	const struct step_point *best = NULL;

	if (i < 0)
		return NULL;
	for (size_t p = 0; p < run->rp.judged[i].n; p++) {
		const struct step_point *q = &run->rp.judged[i].sorted[p];

		if (q->offered_ops > 0 && fabs(q->offered_ops - rate) <= 0.005 * rate &&
		    (best == NULL || q->step > best->step))
			best = q;
	}
	return best;
}

/* "45,000" (grouped, whole) from 1,000 up, else "812.5". */
static struct compare_text compare_num(double v)
{
	struct compare_text t;
	char raw[64], *o = t.s;
	size_t n, lead;

	if (fabs(v) < 1000) {
		snprintf(t.s, sizeof(t.s), "%.1f", v);
		return t;
	}
	snprintf(raw, sizeof(raw), "%.0f", fabs(v));
	n = strlen(raw);
	lead = n % 3 ? n % 3 : 3;
	if (v < 0)
		*o++ = '-';
	for (size_t i = 0; i < n; i++) {
		if (i >= lead && (i - lead) % 3 == 0)
			*o++ = ',';
		*o++ = raw[i];
	}
	*o = '\0';
	return t;
}

static double compare_pct(double a, double b)
{
	return a > 0 ? 100.0 * (b - a) / a : NAN;
}

/* One cell of the figures table: a markdown cell, or an HTML one. */
static void compare_fig_cell(FILE *f, bool html, bool left, const char *text)
{
	if (!html) {
		fprintf(f, " %s |", text);
		return;
	}
	fputs(left ? "<td style=\"text-align:left\">" : "<td>", f);
	markup_escape(f, text);
	fputs("</td>", f);
}

/* Workload name's peak step in run, NULL when it has none (or no such workload). */
static const struct step_point *compare_peak(const struct compare_run *run, const char *name)
{
	ssize_t i = compare_find(run->rp.campaign, name);

	return i < 0 ? NULL : run->rp.judged[i].peak;
}

/*
 * A mixed workload's read and write rows at each run's peak: ops/s, MiB/s, mean
 * and p99 per kind, each later run with the change of its ops/s and mean.
 */
static void compare_print_kinds(FILE *f, bool html, struct compare_run *runs, size_t nruns,
                                const char *name)
{
	for (int k = 0; k < KINDS_N; k++) {
		const struct step_point *p0 = compare_peak(&runs[0], name);
		struct kinds_fig f0 = p0 ? kinds_of(p0, (enum kinds_kind)k) : (struct kinds_fig){0};
		char what[32];

		snprintf(what, sizeof(what), "%s at peak", kinds_name((enum kinds_kind)k));
		fputs(html ? "<tr>" : "|", f);
		compare_fig_cell(f, html, true, name);
		compare_fig_cell(f, html, true, what);
		for (size_t r = 0; r < nruns; r++) {
			const struct step_point *p = compare_peak(&runs[r], name);
			struct kinds_fig fr;
			char cell[192];

			if (p == NULL || !p->mixed) {
				compare_fig_cell(f, html, false, p == NULL ? "none" : "-");
				if (r > 0)
					compare_fig_cell(f, html, false, "n/a");
				continue;
			}
			fr = kinds_of(p, (enum kinds_kind)k);
			kinds_text(&fr, cell, sizeof(cell));
			compare_fig_cell(f, html, false, cell);
			if (r == 0)
				continue;
			if (p0 == NULL || !p0->mixed || !(f0.ops_s > 0))
				snprintf(cell, sizeof(cell), "n/a");
			else if (fr.known && f0.known && f0.mean_ns > 0)
				snprintf(cell, sizeof(cell), "%+.1f%% ops/s, %+.1f%% mean",
				         compare_pct(f0.ops_s, fr.ops_s),
				         compare_pct(f0.mean_ns, fr.mean_ns));
			else
				snprintf(cell, sizeof(cell), "%+.1f%% ops/s",
				         compare_pct(f0.ops_s, fr.ops_s));
			compare_fig_cell(f, html, false, cell);
		}
		fputs(html ? "</tr>\n" : "\n", f);
	}
}

/*
 * Fixed work's rows: the storm (first start to last finish) and the workers' p90
 * completion time, seconds, each later run with its change (a longer storm is +).
 * A run whose workers did not all finish has no storm: "k of n finished".
 */
static void compare_print_storm(FILE *f, bool html, const struct compare_fig *fg, size_t nruns,
                                const char *name)
{
	static const char *const what[] = {"storm (s)", "worker p90 (s)"};

	for (int fig = 0; fig < 2; fig++) {
		double v0 = fig == 0 ? fg[0].storm_s : fg[0].worker_p90_s;

		fputs(html ? "<tr>" : "|", f);
		compare_fig_cell(f, html, true, name);
		compare_fig_cell(f, html, true, what[fig]);
		for (size_t r = 0; r < nruns; r++) {
			double v = fig == 0 ? fg[r].storm_s : fg[r].worker_p90_s;
			char cell[128];

			if (fg[r].has_storm)
				snprintf(cell, sizeof(cell), "%.3f", v);
			else if (fg[r].storm_run)
				snprintf(cell, sizeof(cell), "%u of %u finished", fg[r].finished,
				         fg[r].workers);
			else
				snprintf(cell, sizeof(cell), "%s", fg[r].present ? "none" : "-");
			compare_fig_cell(f, html, false, cell);
			if (r == 0)
				continue;
			if (fg[r].has_storm && fg[0].has_storm && v0 > 0)
				snprintf(cell, sizeof(cell), "%+.1f%%", compare_pct(v0, v));
			else
				snprintf(cell, sizeof(cell), "n/a");
			compare_fig_cell(f, html, false, cell);
		}
		fputs(html ? "</tr>\n" : "\n", f);
	}
}

/*
 * The peak / sustained / max rows: a figure of every run, each later one with its
 * change; in markdown (stdout) or as the HTML table of compare.html.
 */
static void compare_print_figures(FILE *f, bool html, struct compare_run *runs, size_t nruns)
{
	const struct campaign *c0 = runs[0].rp.campaign;

	if (html) {
		fputs("<h2>Peak, sustained, closed-loop</h2>\n<table id=\"figures\"><tr><th>"
		      "workload</th><th>figure</th><th>run 1</th>",
		      f);
		for (size_t r = 1; r < nruns; r++)
			fprintf(f, "<th>run %zu</th><th>change</th>", r + 1);
		fputs("</tr>\n", f);
	} else {
		fprintf(f, "\n| Workload | Figure | %s |", runs[0].dir);
		for (size_t r = 1; r < nruns; r++)
			fprintf(f, " %s | change |", runs[r].dir);
		fprintf(f, "\n|---|---|---:|");
		for (size_t r = 1; r < nruns; r++)
			fprintf(f, "---:|---:|");
		fprintf(f, "\n");
	}
	for (size_t w = 0; w < c0->nworkloads; w++) {
		const char *name = c0->workloads[w].name;
		struct compare_fig *fg = xcalloc(nruns, sizeof(*fg));
		bool any_max = false, any_storm = false;

		for (size_t r = 0; r < nruns; r++) {
			fg[r] = compare_figures(&runs[r], name);
			any_max = any_max || fg[r].has_max;
			any_storm = any_storm || fg[r].storm_run;
		}
		for (int fig = 0; fig < 3; fig++) {
			static const char *const what[] = {"peak", "sustained",
			                                   "max (closed-loop)"};
			bool has0 = fig == 0   ? fg[0].has_peak
			            : fig == 1 ? fg[0].has_sus
			                       : fg[0].has_max;
			double v0 = fig == 0 ? fg[0].peak : fig == 1 ? fg[0].sus : fg[0].max;

			if (fig == 2 && !any_max)
				continue;
			fputs(html ? "<tr>" : "|", f);
			compare_fig_cell(f, html, true, name);
			compare_fig_cell(f, html, true, what[fig]);
			for (size_t r = 0; r < nruns; r++) {
				bool has = fig == 0   ? fg[r].has_peak
				           : fig == 1 ? fg[r].has_sus
				                      : fg[r].has_max;
				double v = fig == 0 ? fg[r].peak : fig == 1 ? fg[r].sus : fg[r].max;
				char cell[128];

				if (!has)
					snprintf(cell, sizeof(cell), "%s",
					         fg[r].present ? "none" : "-");
				else if (fig == 1)
					snprintf(cell, sizeof(cell), "%s at %.1f us",
					         compare_num(v).s, fg[r].sus_lat_ns / 1e3);
				else
					snprintf(cell, sizeof(cell), "%s", compare_num(v).s);
				compare_fig_cell(f, html, false, cell);
				if (r == 0)
					continue;
				if (has && has0 && v0 > 0)
					snprintf(cell, sizeof(cell), "%+.1f%%", compare_pct(v0, v));
				else
					snprintf(cell, sizeof(cell), "n/a");
				compare_fig_cell(f, html, false, cell);
			}
			fputs(html ? "</tr>\n" : "\n", f);
		}
		if (any_storm)
			compare_print_storm(f, html, fg, nruns, name);
		free(fg);
		if (agg_mixed(&c0->workloads[w]))
			compare_print_kinds(f, html, runs, nruns, name);
	}
	if (html)
		fputs("</table>\n", f);
}

/* compare --table: the runs as columns, a row per workload of the base run. */
static void compare_print_table(struct compare_run *runs, size_t nruns)
{
	const struct campaign *c0 = runs[0].rp.campaign;

	printf("| Workload | unit |");
	for (size_t r = 0; r < nruns; r++)
		printf(" %s |", runs[r].dir);
	printf("\n|---|---|");
	for (size_t r = 0; r < nruns; r++)
		printf("---|");
	printf("\n");
	for (size_t w = 0; w < c0->nworkloads; w++) {
		const struct workload *wl = &c0->workloads[w];

		printf("| %s | %s |", wl->name, curve_uses_mib(wl) ? "MiB/s" : "ops/s");
		for (size_t r = 0; r < nruns; r++) {
			struct compare_fig f = compare_figures(&runs[r], wl->name);

			if (!f.present) {
				printf(" - |");
				continue;
			}
			printf(" knee %s", compare_fmt(f.k, &f.r, f.knee, f.bound).s);
			printf("; peak %s", f.has_peak ? compare_num(f.peak).s : "none");
			if (f.has_sus)
				printf("; sustained %s at %.1f us", compare_num(f.sus).s,
				       f.sus_lat_ns / 1e3);
			else
				printf("; sustained none");
			if (f.has_max)
				printf("; max %s", compare_num(f.max).s);
			if (f.has_storm)
				printf("; storm %.3f s", f.storm_s);
			else if (f.storm_run)
				printf("; storm: %u of %u finished", f.finished, f.workers);
			printf(" |");
		}
		printf("\n");
	}
	printf("\nknee with its 95%% band; peak the best step valid or not (capacity); "
	       "sustained the best valid step with its %s latency; max the best closed-loop "
	       "step; storm (fixed work) the first start to the last finish\n",
	       campaign_slo_metric_name(c0->slo_metric));
}

/* A gate's verdict on one workload of one run against the base. */
struct compare_verdict {
	bool breach;
	const char *word; /* "breach", "pass", "within noise", "spread unknown", "n/a" */
	char msg[512];
};

/*
 * Whether run r breaches gate g on workload name: the change passes the threshold
 * and the bands say it is not noise (knee: curve_compare_noise; latency: the two
 * steps' 95% intervals of the SLO metric do not overlap). Peak and sustained have
 * no band: the threshold alone decides, said so.
 */
static struct compare_verdict compare_gate_one(const struct cmpgate *g, struct compare_run *runs,
                                               size_t r, const char *name)
{
	struct compare_verdict v = {.word = "pass"};
	char fn[48];
	double a = 0, b = 0, alo = 0, ahi = 0, blo = 0, bhi = 0;
	bool has_a = false, has_b = false, bands = false, sure = true;
	enum curve_noise noise = CURVE_NOISE_UNKNOWN;
	const char *unit = "";

	cmpgate_figure_name(g, fn, sizeof(fn));
	if (g->figure == CMPGATE_LATENCY) {
		const struct step_point *p = compare_at_rate(&runs[0], name, g->rate),
		                        *q = compare_at_rate(&runs[r], name, g->rate);
		enum slo_metric m = runs[0].rp.campaign->slo_metric;

		unit = " us";
		if (p != NULL) {
			has_a = true;
			a = step_metric(p, m) / 1e3;
			alo = p->metric_lo_ns / 1e3;
			ahi = p->metric_hi_ns / 1e3;
		}
		if (q != NULL) {
			has_b = true;
			b = step_metric(q, m) / 1e3;
			blo = q->metric_lo_ns / 1e3;
			bhi = q->metric_hi_ns / 1e3;
		}
		bands = has_a && has_b && ahi > 0 && bhi > 0;
		if (bands)
			noise = ahi < blo || bhi < alo ? CURVE_NOISE_BEYOND : CURVE_NOISE_WITHIN;
	} else {
		struct compare_fig f0 = compare_figures(&runs[0], name),
		                   f1 = compare_figures(&runs[r], name);

		if (!f1.present) {
			v.word = "n/a";
			snprintf(v.msg, sizeof(v.msg), "%s: not in %s", name, runs[r].dir);
			return v;
		}
		if (g->figure == CMPGATE_KNEE) {
			has_a = f0.bound >= 0;
			has_b = f1.bound >= 0;
			a = f0.knee;
			b = f1.knee;
			if (f0.bound > 0 && f1.bound > 0) {
				v.word = "n/a";
				snprintf(v.msg, sizeof(v.msg),
				         "%s: knee n/a: both are lower bounds", name);
				return v;
			}
			/* a lower bound: the change is only sure in the bound's direction */
			if (f0.bound > 0)
				sure = g->below;
			else if (f1.bound > 0)
				sure = !g->below;
			if (f0.band && f1.band) {
				bands = true;
				alo = f0.lo, ahi = f0.hi, blo = f1.lo, bhi = f1.hi;
				noise = curve_compare_noise(f0.k, &f0.r, f1.k, &f1.r);
			}
		} else if (g->figure == CMPGATE_PEAK) {
			has_a = f0.has_peak, has_b = f1.has_peak, a = f0.peak, b = f1.peak;
		} else if (g->figure == CMPGATE_STORM) {
			if (!f0.storm_run) {
				v.word = "n/a";
				snprintf(v.msg, sizeof(v.msg), "%s: storm n/a: not fixed work",
				         name);
				return v;
			}
			unit = " s";
			has_a = f0.has_storm, has_b = f1.has_storm, a = f0.storm_s, b = f1.storm_s;
		} else {
			has_a = f0.has_sus, has_b = f1.has_sus, a = f0.sus, b = f1.sus;
		}
	}
	if (!has_a) {
		v.word = "n/a";
		snprintf(v.msg, sizeof(v.msg), "%s: %s n/a: %s has none", name, fn, runs[0].dir);
		return v;
	}
	if (!has_b) {
		/*
		 * a figure that vanished is a fall of 100%: a breach of a '<' gate; a
		 * storm whose workers did not all finish is endless: any '>' gate's
		 */
		v.breach =
		    g->figure == CMPGATE_STORM ? !g->below : g->below && cmpgate_past(g, -100.0);
		v.word = v.breach ? "breach" : "n/a";
		if (g->figure == CMPGATE_STORM)
			snprintf(v.msg, sizeof(v.msg), "%s: storm %.3f s -> unfinished in %s", name,
			         a, runs[r].dir);
		else
			snprintf(v.msg, sizeof(v.msg), "%s: %s %s -> none in %s", name, fn,
			         compare_num(a).s, runs[r].dir);
		return v;
	}
	{
		double pct = compare_pct(a, b);
		struct compare_text ta = compare_num(a), tb = compare_num(b);
		int k;

		/* a storm in milliseconds: its seconds to three places */
		if (g->figure == CMPGATE_STORM) {
			snprintf(ta.s, sizeof(ta.s), "%.3f", a);
			snprintf(tb.s, sizeof(tb.s), "%.3f", b);
		}
		k = snprintf(v.msg, sizeof(v.msg), "%s: %s %+.1f%% (%s%s -> %s%s)", name, fn, pct,
		             ta.s, unit, tb.s, unit);
		size_t off = k > 0 ? (size_t)k : 0;
		char ba[200], bb[200];

		if (!isfinite(pct) || !cmpgate_past(g, pct) || !sure) {
			snprintf(v.msg + off, sizeof(v.msg) - off, ", %s",
			         sure ? "within the threshold"
			              : "a lower bound: not sure to pass it");
			return v;
		}
		snprintf(ba, sizeof(ba), "%s-%s", compare_num(alo).s, compare_num(ahi).s);
		snprintf(bb, sizeof(bb), "%s-%s", compare_num(blo).s, compare_num(bhi).s);
		if (g->figure == CMPGATE_PEAK || g->figure == CMPGATE_SUSTAINED ||
		    g->figure == CMPGATE_STORM) {
			v.breach = true;
			v.word = "breach";
			snprintf(
			    v.msg + off, sizeof(v.msg) - off,
			    ", past the threshold (a %s has no band: the threshold alone decides)",
			    fn);
		} else if (noise == CURVE_NOISE_BEYOND) {
			v.breach = true;
			v.word = "breach";
			snprintf(v.msg + off, sizeof(v.msg) - off,
			         ", beyond noise: bands %s and %s do not overlap", ba, bb);
		} else if (noise == CURVE_NOISE_WITHIN) {
			v.word = "within noise";
			snprintf(v.msg + off, sizeof(v.msg) - off,
			         ", past the threshold but within noise: bands %s and %s overlap",
			         ba, bb);
		} else {
			v.word = "spread unknown";
			snprintf(
			    v.msg + off, sizeof(v.msg) - off,
			    ", past the threshold but the spread is unknown (%s): not a breach",
			    bands ? "no band" : "a figure without a band");
		}
	}
	return v;
}

/* Every gate on every workload of every later run; the number of breaches. */
static size_t compare_gates(const struct cmpgate *gates, size_t ngates, struct compare_run *runs,
                            size_t nruns, json_t *jgate, bool text)
{
	const struct campaign *c0 = runs[0].rp.campaign;
	size_t breaches = 0;

	for (size_t g = 0; g < ngates; g++)
		for (size_t r = 1; r < nruns; r++)
			for (size_t w = 0; w < c0->nworkloads; w++) {
				struct compare_verdict v =
				    compare_gate_one(&gates[g], runs, r, c0->workloads[w].name);

				breaches += v.breach;
				if (text || v.breach)
					fprintf(text ? stdout : stderr,
					        "fail-if '%s': %s%s: %s: %s\n", gates[g].text,
					        v.breach ? "BREACH " : "", runs[r].dir, v.word,
					        v.msg);
				json_array_append_new(
				    jgate, json_pack("{s:s,s:s,s:s,s:s,s:b,s:s}", "expression",
				                     gates[g].text, "run", runs[r].dir, "workload",
				                     c0->workloads[w].name, "verdict", v.word,
				                     "breach", (int)v.breach, "message", v.msg));
			}
	return breaches;
}

static json_t *compare_jnum(bool has, double v)
{
	return has && isfinite(v) ? json_real(round(v * 10) / 10) : json_null();
}

/* A kind's figures at the peak for compare --json: null where not measured. */
static json_t *compare_kind_json(const struct step_point *p, enum kinds_kind k)
{
	struct kinds_fig f;

	if (p == NULL || !p->mixed)
		return json_null();
	f = kinds_of(p, k);
	return json_pack("{s:o,s:o,s:o,s:o}", "ops", compare_jnum(true, f.ops_s), "mibps",
	                 f.known ? json_real(round(f.mib_s * 1000) / 1000) : json_null(), "mean_us",
	                 compare_jnum(f.known, f.mean_ns / 1e3), "p99_us",
	                 compare_jnum(f.known, (double)f.p99_ns / 1e3));
}

static json_t *compare_jpct(bool has, double a, double b)
{
	double p = compare_pct(a, b);

	return has && isfinite(p) ? json_real(round(p * 10) / 10) : json_null();
}

/* One document: every workload with every run's figures and changes, the setup diffs, the gate. */
static json_t *compare_json(struct compare_run *runs, size_t nruns, char *const *diff,
                            json_t *jgate, size_t breaches, size_t ngates)
{
	const struct campaign *c0 = runs[0].rp.campaign;
	json_t *jr = json_array(), *jw = json_array(), *jd = json_array();

	for (size_t r = 0; r < nruns; r++)
		json_array_append_new(jr, json_string(runs[r].dir));
	for (size_t w = 0; w < c0->nworkloads; w++) {
		const struct workload *wl = &c0->workloads[w];
		struct compare_fig f0 = compare_figures(&runs[0], wl->name);
		json_t *rs = json_array();

		for (size_t r = 0; r < nruns; r++) {
			struct compare_fig f = compare_figures(&runs[r], wl->name);
			json_t *o =
			    json_pack("{s:s,s:b}", "dir", runs[r].dir, "present", (int)f.present);

			if (f.present) {
				json_object_set_new(o, "knee", compare_jnum(f.bound >= 0, f.knee));
				json_object_set_new(o, "knee_lower_bound",
				                    json_boolean(f.bound > 0));
				json_object_set_new(o, "knee_band",
				                    f.band ? json_pack("[o,o]",
				                                       compare_jnum(true, f.lo),
				                                       compare_jnum(true, f.hi))
				                           : json_null());
				json_object_set_new(o, "knee_repeats",
				                    json_integer((json_int_t)f.r.n));
				json_object_set_new(
				    o, "knee_text",
				    json_string(compare_fmt(f.k, &f.r, f.knee, f.bound).s));
				json_object_set_new(o, "peak", compare_jnum(f.has_peak, f.peak));
				json_object_set_new(o, "sustained", compare_jnum(f.has_sus, f.sus));
				json_object_set_new(o, "sustained_latency_us",
				                    compare_jnum(f.has_sus, f.sus_lat_ns / 1e3));
				json_object_set_new(o, "max", compare_jnum(f.has_max, f.max));
				if (f.storm_run) {
					json_object_set_new(o, "storm_s",
					                    compare_jnum(f.has_storm, f.storm_s));
					json_object_set_new(
					    o, "storm_worker_p90_s",
					    compare_jnum(f.has_storm, f.worker_p90_s));
				}
				/* read and write apart at the peak: a mixed workload's only */
				if (agg_mixed(wl)) {
					const struct step_point *pk =
					    compare_peak(&runs[r], wl->name);

					json_object_set_new(o, "read_at_peak",
					                    compare_kind_json(pk, KINDS_READ));
					json_object_set_new(o, "write_at_peak",
					                    compare_kind_json(pk, KINDS_WRITE));
				}
			}
			if (r > 0 && f.present) {
				json_t *ch = json_object();

				json_object_set_new(ch, "knee_pct",
				                    compare_jpct(f0.bound >= 0 && f.bound >= 0 &&
				                                     !(f0.bound > 0 && f.bound > 0),
				                                 f0.knee, f.knee));
				json_object_set_new(
				    ch, "knee_change",
				    json_string(
				        compare_change(f0.knee, f0.bound, f.knee, f.bound).s));
				json_object_set_new(
				    ch, "knee_noise",
				    json_string(compare_noise_text(f0.k, &f0.r, f.k, &f.r, f0.bound,
				                                   f.bound)));
				json_object_set_new(
				    ch, "peak_pct",
				    compare_jpct(f0.has_peak && f.has_peak, f0.peak, f.peak));
				json_object_set_new(
				    ch, "sustained_pct",
				    compare_jpct(f0.has_sus && f.has_sus, f0.sus, f.sus));
				json_object_set_new(
				    ch, "max_pct",
				    compare_jpct(f0.has_max && f.has_max, f0.max, f.max));
				json_object_set_new(o, "change", ch);
			}
			json_array_append_new(rs, o);
		}
		json_array_append_new(jw, json_pack("{s:s,s:s,s:o}", "name", wl->name, "unit",
		                                    curve_uses_mib(wl) ? "MiB/s" : "ops/s", "runs",
		                                    rs));
	}
	for (size_t r = 1; r < nruns; r++) {
		json_t *items = json_array();

		for (char *p = diff[r]; p != NULL && *p;) {
			char *e = strstr(p, "; ");
			size_t n = e ? (size_t)(e - p) : strlen(p);

			json_array_append_new(items, json_stringn(p, n));
			p = e ? e + 2 : p + n;
		}
		json_array_append_new(jd, json_pack("{s:s,s:s,s:o}", "run", runs[r].dir, "base",
		                                    runs[0].dir, "differences", items));
	}
	return json_pack("{s:i,s:o,s:s,s:o,s:o,s:{s:i,s:b,s:I,s:o}}", "format", 1, "runs", jr,
	                 "slo_metric", campaign_slo_metric_name(c0->slo_metric), "workloads", jw,
	                 "setup_diff", jd, "gate", "exit_status",
	                 breaches ? CMPGATE_EXIT_BREACH : 0, "breached", (int)(breaches > 0),
	                 "expressions", (json_int_t)ngates, "results", json_incref(jgate));
}

/* Every --fail-if given (args keeps only the last value of an option). */
static size_t compare_parse_gates(const struct args *a, struct cmpgate *gates, size_t max, int *bad)
{
	size_t n = 0;

	*bad = 0;
	for (int i = 1; i < a->argc && n < max; i++) {
		const char *v = NULL;

		if (strcmp(a->argv[i], "--") == 0)
			break;
		if (strcmp(a->argv[i], "--fail-if") == 0 && i + 1 < a->argc)
			v = a->argv[++i];
		else if (strncmp(a->argv[i], "--fail-if=", 10) == 0)
			v = a->argv[i] + 10;
		if (v == NULL)
			continue;
		{
			char why[512];

			if (cmpgate_parse(v, &gates[n], why, sizeof(why)) < 0) {
				fprintf(stderr, "iocurve compare: --fail-if %s\n", why);
				*bad = 1;
				return n;
			}
			n++;
		}
	}
	return n;
}

#define COMPARE_MAX_GATES 32

static int compare_exec(const struct args *a)
{
	struct compare_run *runs;
	const char *out = args_get(a, "out");
	bool json = args_has(a, "json"), table = args_has(a, "table");
	struct cmpgate gates[COMPARE_MAX_GATES];
	size_t ngates, breaches = 0;
	char outbuf[64];
	struct error err;
	size_t nruns;
	int rc = 1, bad;
	FILE *html;
	struct compare_row *rows = NULL;
	char **diff = NULL;
	json_t *jgate = json_array();

	nruns = (size_t)a->noperands;
	if (nruns > COMPARE_MAX_RUNS) {
		fprintf(stderr, "iocurve compare: %zu runs; at most %d in one table\n", nruns,
		        COMPARE_MAX_RUNS);
		json_decref(jgate);
		return 2;
	}
	ngates = compare_parse_gates(a, gates, COMPARE_MAX_GATES, &bad);
	if (bad) {
		json_decref(jgate);
		return 2;
	}
	runs = xcalloc(nruns, sizeof(*runs));
	for (size_t r = 0; r < nruns; r++) {
		runs[r].dir = a->operands[r];
		if (replay_load(runs[r].dir, &runs[r].rp, &err) < 0) {
			fprintf(stderr, "iocurve compare: %s\n", err.msg);
			goto done;
		}
	}
	if (out == NULL) {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(outbuf, sizeof(outbuf), "iocurve-results/compare-%Y%m%dT%H%M%SZ", &tm);
		out = outbuf;
	}
	if (fs_mkdir_p(out, 0755, &err) < 0) {
		fprintf(stderr, "iocurve compare: %s\n", err.msg);
		goto done;
	}
	rows = compare_rows(runs, nruns);
	diff = compare_setups(runs, nruns);
	{
		char *path = xasprintf("%s/compare.html", out);

		html = fopen(path, "w");
		if (html == NULL) {
			fprintf(stderr, "iocurve compare: %s: cannot create: %s\n", path,
			        strerror(errno));
			free(path);
			goto done;
		}
		compare_write(html, out, runs, nruns, rows, diff);
		fclose(html);
		free(path);
	}
	if (json) {
		breaches = compare_gates(gates, ngates, runs, nruns, jgate, false);
		json_t *doc = compare_json(runs, nruns, diff, jgate, breaches, ngates);

		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(doc);
		rc = breaches ? CMPGATE_EXIT_BREACH : 0;
		goto done;
	}
	if (table) {
		compare_print_table(runs, nruns);
	} else {
		/* The knee of each later run against the first, in %, and whether beyond the noise.
		 */
		printf("| Workload | %s |", runs[0].dir);
		for (size_t r = 1; r < nruns; r++)
			printf(" %s | change | noise |", runs[r].dir);
		printf("\n|---|---:|");
		for (size_t r = 1; r < nruns; r++)
			printf("---:|---:|---|");
		printf("\n");
		for (size_t w = 0; w < runs[0].rp.campaign->nworkloads; w++) {
			printf("|");
			for (size_t k = 0; k < rows[w].n; k++)
				printf(" %s |", rows[w].cells[k]);
			printf("\n");
		}
		compare_print_figures(stdout, false, runs, nruns);
		printf("\nknees in %s, each with its 95%% band (with repeats: their mean, the band "
		       "joined with the t-based 95%% interval of the mean; > a lower bound: every "
		       "step met the SLO); a change is beyond noise when the two bands do not "
		       "overlap (docs/methodology.md); peak the best step valid or not, sustained "
		       "the best valid step with its %s latency, max the best closed-loop step; "
		       "curves overlaid in %s/compare.html\n",
		       "ops/s (random) or MiB/s (sequential)",
		       campaign_slo_metric_name(runs[0].rp.campaign->slo_metric), out);
	}
	for (size_t r = 1; r < nruns; r++)
		if (diff[r] != NULL)
			printf("warning: setups differ, %s against %s: %s\n", runs[r].dir,
			       runs[0].dir, diff[r]);
	breaches = compare_gates(gates, ngates, runs, nruns, jgate, true);
	if (breaches)
		fprintf(stderr,
		        "iocurve compare: %zu breach(es) of --fail-if beyond noise (exit %d)\n",
		        breaches, CMPGATE_EXIT_BREACH);
	rc = breaches ? CMPGATE_EXIT_BREACH : 0;
done:
	json_decref(jgate);
	free(rows);
	for (size_t r = 0; diff != NULL && r < nruns; r++)
		free(diff[r]);
	free(diff);
	for (size_t r = 0; r < nruns; r++)
		replay_free(&runs[r].rp);
	free(runs);
	return rc;
}

static const struct args_option compare_options[] = {
    {"out", 'o', "DIR",
     "where compare.html and the SVGs go (default: iocurve-results/compare-TIME)", false},
    {"json", 'j', NULL, "one JSON document on stdout: every figure, change, setup diff, gate",
     false},
    {"table", 't', NULL, "the runs as columns: knee with band, peak, sustained per workload",
     false},
    {"fail-if", 0, "EXPR",
     "exit 4 when a change passes EXPR beyond noise ('knee < -5%'); repeatable", false},
    {NULL},
};

const struct cmd_entry cmd_compare_entry = {
    .args =
        {
            .name = "compare",
            .operands = "DIR DIR [DIR...]",
            .help = "overlay the curves of several runs (the first is the base) and print each "
                    "knee's change",
            .more = "--fail-if FIGURE OP CHANGE%: FIGURE knee, peak, sustained or latency@RATE\n"
                    "(the SLO metric at the step offered RATE ops/s), OP < <= > >=; a change\n"
                    "past the threshold breaches it when beyond noise (the bands do not\n"
                    "overlap; peak and sustained have none: the threshold decides).\n"
                    "Exit status: 0 compared, 1 a results directory unreadable, 2 usage or a\n"
                    "bad --fail-if, 4 a --fail-if breached.\n",
            .options = compare_options,
            .min_operands = 2,
            .max_operands = -1,
        },
    .exec = compare_exec,
};
