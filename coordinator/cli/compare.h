/* SPDX-License-Identifier: MIT */
/*
 * iocurve compare's parts: the runs compared, each run's figures for a workload
 * (compare_figs.c: knee, peak, sustained, closed loop, storm, read and write apart,
 * and their tables) and the --fail-if gates over them (compare_gate.c).
 */
#ifndef IOCURVE_COMPARE_H
#define IOCURVE_COMPARE_H

#include <jansson.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cmpgate.h"
#include "replay.h"

/* One run being compared: its points and their judged curves (rp.judged), per workload. */
struct compare_run {
	const char *dir;
	struct replay rp;
};

/* A cell's text, returned by value. */
struct compare_text {
	char s[96];
};

/*
 * A run's figures for one workload, in the workload's unit: the knee (compare_knee),
 * the peak (capacity, valid or not), the sustained figure (the best valid step, with
 * its SLO metric) and the best closed-loop (max) step.
 */
struct compare_fig {
	bool present;
	const struct workload *w; /* the run's own (a replay's trace is its run's) */
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

/*
 * The rest of a markdown table's head, after its lead columns: each run from `from`
 * (" DIR |" then extra, such as " change |"), then the rule line: lead_rule, rule per run.
 */
void compare_md_head(FILE *f, const struct compare_run *runs, size_t nruns, size_t from,
                     const char *extra, const char *lead_rule, const char *rule);

/* The index of workload name in campaign c, -1 when it has none. */
ssize_t compare_find(const struct campaign *c, const char *name);

/*
 * A run's knee for workload w: the mean of its repeats when it has them (r->n > 0).
 * bound: 0 a value, 1 a lower bound (every step met the SLO), -1 no knee.
 */
void compare_knee(const struct compare_run *run, size_t w, struct curve_repeats *r, double *knee,
                  int *bound);

/*
 * "45200.0 (44000.0-46000.0)": the knee and its 95% interval (curve_knee_interval),
 * "> 45200.0" (a lower bound), "none"; with repeats the mean and "(3 repeats)". A
 * replay's knee has its speed of w's trace beside it: "4187.9 x8.38 (4120.0-4243.0)".
 */
struct compare_text compare_fmt(const struct workload *w, const struct knee *k,
                                const struct curve_repeats *r, double knee, int bound);

/* Run's figures for workload name (present false when the run has no such workload). */
struct compare_fig compare_figures(const struct compare_run *run, const char *name);

/* The step of run offered rate ops/s (within 0.5%), the last run; NULL when none. */
const struct step_point *compare_at_rate(const struct compare_run *run, const char *name,
                                         double rate);

/* "45,000" (grouped, whole) from 1,000 up, else "812.5". */
struct compare_text compare_num(double v);

/* The change from a to b in % of a; NaN when a is not above 0. */
double compare_pct(double a, double b);

/* Workload name's peak step in run, NULL when it has none (or no such workload). */
const struct step_point *compare_peak(const struct compare_run *run, const char *name);

/*
 * The peak / sustained / max rows (and a fixed-work workload's storm rows, a mixed
 * one's read and write at the peak): a figure of every run, each later one with its
 * change; in markdown (stdout) or as the HTML table of compare.html.
 */
void compare_print_figures(FILE *f, bool html, struct compare_run *runs, size_t nruns);

/* One cell of the figures table: a markdown cell, or an HTML one (left: text, not a figure). */
void compare_fig_cell(FILE *f, bool html, bool left, const char *text);

/*
 * A mix's rows (compare_parts.c): a row per part of the base run's mix, each run's
 * ops/s and mean latency of that part at its knee's step (the met step at or under
 * the knee, else its peak: mixparts_step), each later run with the change of both.
 */
void compare_print_parts(FILE *f, bool html, struct compare_run *runs, size_t nruns,
                         const char *name);
/*
 * For compare --json: run's parts of workload name at its knee's step ({step, at,
 * parts: [{name, ops, mibps, mean_us, p99_us}]}), null when it has none; with base,
 * the changes instead ([{name, ops_pct, mean_pct}], null where a side lacks the part).
 */
json_t *compare_parts_json(const struct compare_run *run, const char *name);
json_t *compare_parts_change_json(const struct compare_run *base, const struct compare_run *run,
                                  const char *name);

/* compare --table: the runs as columns, a row per workload of the base run. */
void compare_print_table(struct compare_run *runs, size_t nruns);

/*
 * Every gate on every workload of every later run, each verdict printed (all of them
 * to stdout when text; the breaches and the undecided to stderr too) and added to
 * jgate; the number of breaches, and in *undecided of verdicts that could not decide.
 */
size_t compare_gates(const struct cmpgate *gates, size_t ngates, struct compare_run *runs,
                     size_t nruns, json_t *jgate, bool text, size_t *undecided);

#endif
