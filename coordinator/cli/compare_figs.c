/* SPDX-License-Identifier: MIT */
/* iocurve compare: each run's figures for a workload, and the tables that set them side by side. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "kinds.h"
#include "markup.h"
#include "observe.h"
#include "observed.h"
#include "table.h"
#include "xalloc.h"

void compare_md_head(FILE *f, const struct compare_run *runs, size_t nruns, size_t from,
                     const char *extra, const char *lead_rule, const char *rule)
{
	for (size_t r = from; r < nruns; r++)
		fprintf(f, " %s |%s", runs[r].dir, extra);
	fprintf(f, "\n%s", lead_rule);
	for (size_t r = from; r < nruns; r++)
		fputs(rule, f);
	fputc('\n', f);
}

/*
 * A run's knee for workload w: the mean of its repeats when it has them (r->n > 0).
 * bound: 0 a value, 1 a lower bound (every step met the SLO), -1 no knee.
 */
void compare_knee(const struct compare_run *run, size_t w, struct curve_repeats *r, double *knee,
                  int *bound)
{
	const struct knee *k = &run->rp.judged[w].knee;

	*r = run->rp.judged[w].repeats;
	*knee = r->n ? r->mean : k->throughput;
	*bound = r->n                                               ? 0
	         : k->kind == KNEE_ALL_UNDER                        ? 1
	         : k->kind == KNEE_NONE || k->kind == KNEE_ALL_OVER ? -1
	                                                            : 0;
}

/*
 * "45200.0 (44000.0-46000.0)": the knee and its 95% interval (curve_knee_interval),
 * "> 45200.0" (a lower bound), "none"; with repeats the mean and "(3 repeats)".
 */
struct compare_text compare_fmt(const struct workload *w, const struct knee *k,
                                const struct curve_repeats *r, double knee, int bound)
{
	struct compare_text t;
	double lo, hi, speed = curve_speed(w, knee);
	char v[48];

	/* a replay's knee beside its speed of the run's own trace: "4187.9 x8.38" */
	if (isfinite(speed))
		snprintf(v, sizeof(v), "%.1f x%.2f", knee, speed);
	else
		snprintf(v, sizeof(v), "%.1f", knee);
	if (bound < 0)
		snprintf(t.s, sizeof(t.s), "none");
	else if (bound > 0)
		snprintf(t.s, sizeof(t.s), "> %s", v);
	else if (curve_knee_interval(k, r, &lo, &hi) && r->n)
		snprintf(t.s, sizeof(t.s), "%s (%.1f-%.1f, %zu repeats)", v, lo, hi, r->n);
	else if (curve_knee_interval(k, r, &lo, &hi))
		snprintf(t.s, sizeof(t.s), "%s (%.1f-%.1f)", v, lo, hi);
	else
		snprintf(t.s, sizeof(t.s), "%s", v);
	return t;
}

struct compare_fig compare_figures(const struct compare_run *run, const char *name)
{
	struct compare_fig f = {0};
	ssize_t i = compare_find(run->rp.campaign, name);
	const struct judged_curve *j;

	if (i < 0)
		return f;
	j = &run->rp.judged[i];
	f.present = true;
	f.w = j->w;
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
const struct step_point *compare_at_rate(const struct compare_run *run, const char *name,
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

/* Workload name's peak step in run, NULL when it has none (or no such workload). */
const struct step_point *compare_peak(const struct compare_run *run, const char *name)
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
 * One row of a figure at each run's peak step (sync latency, the kernel's view): has
 * says whether a run's peak carries it, fmt writes it, change the later run's against
 * the base's. "none": the run has no such workload; "-": its peak lacks the figure.
 */
struct compare_peak_row {
	const char *what;
	bool (*has)(const struct step_point *p);
	void (*fmt)(const struct step_point *p, char *buf, size_t len);
	bool (*change)(const struct step_point *p0, const struct step_point *p, char *buf,
	               size_t len);
};

static void compare_print_peak_row(FILE *f, bool html, struct compare_run *runs, size_t nruns,
                                   const char *name, const struct compare_peak_row *row)
{
	const struct step_point *p0 = compare_peak(&runs[0], name);

	fputs(html ? "<tr>" : "|", f);
	compare_fig_cell(f, html, true, name);
	compare_fig_cell(f, html, true, row->what);
	for (size_t r = 0; r < nruns; r++) {
		const struct step_point *p = compare_peak(&runs[r], name);
		char cell[192];

		if (p == NULL || !row->has(p)) {
			compare_fig_cell(f, html, false, p == NULL ? "none" : "-");
			if (r > 0)
				compare_fig_cell(f, html, false, "n/a");
			continue;
		}
		row->fmt(p, cell, sizeof(cell));
		compare_fig_cell(f, html, false, cell);
		if (r == 0)
			continue;
		if (p0 == NULL || !row->has(p0) || !row->change(p0, p, cell, sizeof(cell)))
			snprintf(cell, sizeof(cell), "n/a");
		compare_fig_cell(f, html, false, cell);
	}
	fputs(html ? "</tr>\n" : "\n", f);
}

static bool compare_syncs_has(const struct step_point *p)
{
	return p->sync.on;
}

static void compare_syncs_fmt(const struct step_point *p, char *buf, size_t len)
{
	snprintf(buf, len, "%.1f syncs/s, mean %.1f us, p99 %.1f us", p->sync.ops_s,
	         p->sync.mean_ns / 1e3, (double)p->sync.p99_ns / 1e3);
}

static bool compare_syncs_change(const struct step_point *p0, const struct step_point *p, char *buf,
                                 size_t len)
{
	if (!(p0->sync.ops_s > 0) || !(p0->sync.mean_ns > 0))
		return false;
	snprintf(buf, len, "%+.1f%% syncs/s, %+.1f%% mean",
	         compare_pct(p0->sync.ops_s, p->sync.ops_s),
	         compare_pct(p0->sync.mean_ns, p->sync.mean_ns));
	return true;
}

static const struct compare_peak_row compare_syncs_row = {"syncs at peak", compare_syncs_has,
                                                          compare_syncs_fmt, compare_syncs_change};

/*
 * The kernel's view at the peak (kview.h): the device's own service time, busy share
 * and queue, or an NFS mount's round trip; the change in service time (or RTT) and in
 * busy share, so a faster release whose device works harder shows it.
 */
static bool compare_kernel_has(const struct step_point *p)
{
	return p->kernel.known || p->kernel.nfs_known;
}

static void compare_kernel_fmt(const struct step_point *p, char *buf, size_t len)
{
	if (p->kernel.known)
		snprintf(buf, len, "%s: service %.1f us, busy %.1f%%, queue %.1f", p->kernel.dev,
		         p->kernel.dev_service_ns / 1e3, p->kernel.dev_util_pct, p->kernel.dev_queue);
	else
		snprintf(buf, len, "NFS: rtt %.1f us, execution %.1f us", p->kernel.nfs_rtt_ns / 1e3,
		         p->kernel.nfs_exec_ns / 1e3);
}

static bool compare_kernel_change(const struct step_point *p0, const struct step_point *p,
                                  char *buf, size_t len)
{
	if (p0->kernel.known && p->kernel.known && p0->kernel.dev_service_ns > 0)
		snprintf(buf, len, "%+.1f%% service, %+.1f points busy",
		         compare_pct(p0->kernel.dev_service_ns, p->kernel.dev_service_ns),
		         p->kernel.dev_util_pct - p0->kernel.dev_util_pct);
	else if (!p0->kernel.known && !p->kernel.known && p0->kernel.nfs_rtt_ns > 0)
		snprintf(buf, len, "%+.1f%% rtt", compare_pct(p0->kernel.nfs_rtt_ns, p->kernel.nfs_rtt_ns));
	else
		return false;
	return true;
}

static const struct compare_peak_row compare_kernel_row = {
    "kernel at peak", compare_kernel_has, compare_kernel_fmt, compare_kernel_change};

/* Whether any run's peak of workload name has the figure has() looks for. */
static bool compare_any_peak(struct compare_run *runs, size_t nruns, const char *name,
                             bool (*has)(const struct step_point *p))
{
	for (size_t r = 0; r < nruns; r++) {
		const struct step_point *p = compare_peak(&runs[r], name);

		if (p != NULL && has(p))
			return true;
	}
	return false;
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
/*
 * A run's mean of observed series SOURCE/SERIES at workload name's peak step (the
 * highest achieved): false when the run has no such workload, source or value.
 */
static bool compare_observed(const struct compare_run *run, const char *name, const char *source,
                             const char *series, double *v)
{
	const struct campaign *c = run->rp.campaign;
	ssize_t w = compare_find(c, name);
	const struct judged_curve *j;
	uint32_t n, late;

	if (w < 0 || (j = &run->rp.judged[w])->peak == NULL)
		return false;
	for (size_t s = 0; s < c->nobserve; s++)
		for (size_t k = 0; k < c->observe[s].nseries; k++)
			if (strcmp(c->observe[s].name, source) == 0 &&
			    strcmp(c->observe[s].series[k].name, series) == 0)
				return observed_mean(&run->rp.end, c, &c->workloads[w],
				                     j->peak->step, s, k, v, &n, &late);
	return false;
}

/* The base run's observed series at each run's peak, side by side (observe:). */
static void compare_print_observed(FILE *f, bool html, struct compare_run *runs, size_t nruns,
                                   const char *name)
{
	const struct campaign *c0 = runs[0].rp.campaign;

	for (size_t s = 0; s < c0->nobserve; s++)
		for (size_t k = 0; k < c0->observe[s].nseries; k++) {
			const char *src = c0->observe[s].name, *se = c0->observe[s].series[k].name;
			char what[512], cell[128];
			double v0 = 0, v;
			bool has0 = compare_observed(&runs[0], name, src, se, &v0);

			snprintf(what, sizeof(what), "%s/%s at peak", src, se);
			fputs(html ? "<tr>" : "|", f);
			compare_fig_cell(f, html, true, name);
			compare_fig_cell(f, html, true, what);
			for (size_t r = 0; r < nruns; r++) {
				bool has = compare_observed(&runs[r], name, src, se, &v);

				snprintf(cell, sizeof(cell), has ? "%.4g" : "-", v);
				compare_fig_cell(f, html, false, cell);
				if (r == 0)
					continue;
				if (has && has0 && v0 != 0)
					snprintf(cell, sizeof(cell), "%+.1f%%",
					         100 * (v - v0) / fabs(v0));
				else
					snprintf(cell, sizeof(cell), "n/a");
				compare_fig_cell(f, html, false, cell);
			}
			fputs(html ? "</tr>\n" : "\n", f);
		}
}

void compare_print_figures(FILE *f, bool html, struct compare_run *runs, size_t nruns)
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
		compare_md_head(f, runs, nruns, 1, " change |", "|---|---|---:|", "---:|---:|");
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
		if (c0->workloads[w].io.mix.nparts > 0)
			compare_print_parts(f, html, runs, nruns, name);
		compare_print_observed(f, html, runs, nruns, name);
		if (c0->workloads[w].io.fsync != 0 || c0->workloads[w].io.fdatasync != 0)
			compare_print_peak_row(f, html, runs, nruns, name, &compare_syncs_row);
		if (compare_any_peak(runs, nruns, name, compare_kernel_has))
			compare_print_peak_row(f, html, runs, nruns, name, &compare_kernel_row);
	}
	if (html)
		fputs("</table>\n", f);
}

/* compare --table: the runs as columns, a row per workload of the base run. */
void compare_print_table(struct compare_run *runs, size_t nruns)
{
	const struct campaign *c0 = runs[0].rp.campaign;

	printf("| Workload | unit |");
	compare_md_head(stdout, runs, nruns, 0, "", "|---|---|", "---|");
	for (size_t w = 0; w < c0->nworkloads; w++) {
		const struct workload *wl = &c0->workloads[w];

		printf("| %s | %s |", wl->name, curve_uses_mib(wl) ? "MiB/s" : "ops/s");
		for (size_t r = 0; r < nruns; r++) {
			struct compare_fig f = compare_figures(&runs[r], wl->name);

			if (!f.present) {
				printf(" - |");
				continue;
			}
			printf(" knee %s", compare_fmt(f.w, f.k, &f.r, f.knee, f.bound).s);
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
