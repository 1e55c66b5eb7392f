/* SPDX-License-Identifier: MIT */
/* A workload's curve in words and tables: the knee sentence, the step and summary tables. */
#ifndef IOCURVE_TABLE_H
#define IOCURVE_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "judged.h"

/*
 * "Performance @ 1ms (mean): 46300 ops/s (measured at step 6, confirmed: bracket
 * 1.2% wide; peak ...)", to the digits its bracket supports,
 * "> 64,000 ops/s at 1ms: every step met the SLO (peak 64,000 ops/s)", or "none:
 * the first step already exceeds the SLO", of a judged curve.
 */
void table_knee_text(const struct judged_curve *j, char *buf, size_t len);
/* A background workload's line in place of a knee: its asked rate, where its figures are. */
void table_background_text(const struct workload *w, char *buf, size_t len);
/*
 * A figure as measured, in the workload's unit shown, without the unit: digits cut, never
 * raised ("90,950", "1234.5").
 */
void table_fmt_measured(const struct workload *w, double v, char *buf, size_t len);
/*
 * The step table of a judged curve (curve order, each step's verdict), markdown-style
 * so it reads the same on a terminal and in a file.
 */
void table_print_steps(FILE *f, const struct judged_curve *j);
struct pfield;
/*
 * A step table column's title in the workload's units: "MiB/s" reads "MB/s" and
 * "ops/s" "IOPS" under units: decimal. buf holds it when it differs from f's.
 */
/* Cell k of field f (k: the percentile, for PF_PCTS) of point p, as summary.md prints it. */
void table_step_cell(const struct workload *w, const struct pfield *f, const struct step_point *p,
                     const struct judged_point *jp, uint32_t k, char *buf, size_t len);
const char *table_title(const struct workload *w, const struct pfield *f, char *buf, size_t len);
/*
 * The peak (capacity: highest achieved of any step, with its service time and
 * in-flight operations, never its latency) and the sustained figure (highest
 * valid step, with its latency) of a judged curve, in words.
 */
void table_peak_text(const struct judged_curve *j, char *peak, size_t plen, char *sustained,
                     size_t slen);
/* The knee is a lower bound: every step met the SLO, or a client-bound step cut it. */
bool table_knee_bound(const struct judged_curve *j);
/* The knee has a 95% band worth printing beside it (a bracket, not a bound, not none). */
bool table_band_shown(const struct judged_curve *j);
/*
 * The knee with its words, as a summary note gives it: "none", ">= 64000 ops/s" (a
 * bound) or the knee with its band ("56000 ops/s (95% band 55000-57500)").
 */
void table_knee_cell(const struct judged_curve *j, char *buf, size_t len);
/*
 * | Workload | Performance @ 1ms storage mean | 95% band | Peak | Service at peak |
 * Sustained | Its latency | Limit |, a row per workload of c from its judged curve
 * judged[i], each cell one figure or one word.
 */
/* A workload's summary figures, each one figure or one word as its table cell holds it. */
struct table_cells {
	char knee[64];     /* "41300 ops/s", ">= 24000 ops/s", "none" */
	char band[72];     /* its 95% band, "40,000-42,500", or "-" */
	char peak[48];     /* the peak's throughput with its unit, or "-" */
	char svc[16];      /* the storage's mean latency at the peak */
	char sus[48];      /* the sustained rate (highest valid step) or "none valid"... */
	char lat[16];      /* ...and its judged latency */
	const char *limit; /* the limit's word ("storage", "client", ...), or "-" */
};

void table_summary_cells(const struct judged_curve *j, struct table_cells *t);

void table_print_summary(FILE *f, const struct campaign *c, const struct judged_curve *judged);
/*
 * Under the summary table, a line a workload with what its cells cannot hold: the knee
 * with its band, repeats and bounds, the peak's service time and what was in flight,
 * the limit in words.
 */
void table_print_summary_notes(FILE *f, const struct campaign *c,
                               const struct judged_curve *judged);
/*
 * When some workload measures its steps for under 10 s, a note saying the run is
 * a quick one (true, text in buf); false otherwise.
 */
bool table_quick_note(const struct campaign *c, char *buf, size_t len);

#endif
