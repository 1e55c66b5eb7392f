/* SPDX-License-Identifier: MIT */
/* Everything derived from a campaign's step points: curves, summaries, plots, report. */
#ifndef IOCURVE_DERIVE_H
#define IOCURVE_DERIVE_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "aggregate.h"
#include "campaign.h"
#include "error.h"
#include "runend.h"
#include "judged.h"

/*
 * summary.json's layout, its "format" key (a file without it is of iocurve 0.1.0,
 * format 1). Keys are added freely; a key removed or re-meant takes a new format.
 */
#define DERIVE_SUMMARY_FORMAT 1

/*
 * (Re)write in dir: curve-<workload>.csv and .json, curve-<workload>.svg,
 * summary.json, summary.txt, summary.md and report.html, each replaced whole
 * (written aside, fsync'd, renamed) so a crash leaves the previous version;
 * summary.json last, so its status is on disk only after everything it speaks for.
 * pts[i][0..npts[i]) are workload i's points in run order and judged[i] its
 * curve judged from them (judged_update); nothing here judges again. A pure
 * function of its input: the runner calls it after every step with the curves
 * it keeps, `iocurve report` with points rebuilt from intervals.jsonl and
 * judged the same way (judged_all), for the same bytes.
 */
int derive_all(const char *dir, const struct campaign *c, const struct step_point *const *pts,
               const size_t *npts, const struct judged_curve *judged, const struct runend *end,
               struct error *err);
/*
 * The end of a campaign that did not complete, in every file that can still be
 * written: summary.json, summary.txt, summary.md, report.html, each tried even
 * when one before failed; then the curves. A status file that cannot be replaced
 * (a full disk) is removed and written again in the room it held; failing that
 * it stays removed, as the version there said the campaign was running. -1 with
 * err the first failure.
 */
int derive_end(const char *dir, const struct campaign *c, const struct step_point *const *pts,
               const size_t *npts, const struct judged_curve *judged, const struct runend *end,
               struct error *err);
/*
 * summary.txt's text to f: how the run ended, the summary table and its notes, the
 * side-by-side table, the runs before; its lines within 120 characters, prose wrapped.
 */
void derive_summary_print(FILE *f, const struct campaign *c, const struct judged_curve *judged,
                          const struct runend *end);
/*
 * The end text `run` prints and every client of a daemon's campaign prints: each
 * workload's step table and knee, what the run lost, the summary table, the targets side
 * by side, the earlier runs beside it, where the results are (dir).
 */
void derive_end_text(FILE *f, const char *dir, const struct campaign *c, const size_t *npts,
                     const struct judged_curve *judged, const struct runend *end);
#endif
