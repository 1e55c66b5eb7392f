/* SPDX-License-Identifier: MIT */
/* Everything derived from a campaign's step points: curves, summaries, plots, report. */
#ifndef IOCURVE_DERIVE_H
#define IOCURVE_DERIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "aggregate.h"
#include "campaign.h"
#include "error.h"
#include "judged.h"

/*
 * summary.json's layout, its "format" key (a file without it is of iocurve 0.1.0,
 * format 1). Keys are added freely; a key removed or re-meant takes a new format.
 */
#define DERIVE_SUMMARY_FORMAT 1

/* What the run says of itself beyond its points. */
struct derive_run {
	/* How it ended, when it did not complete: state "" means complete (or running). */
	char state[16]; /* "failed", "cancelled" */
	char reason[512];
	/*
	 * meta.json as written at the start (runner_meta): date, version, command,
	 * coordinator and agent hosts, kernels, the target's mount; NULL: none.
	 */
	const char *meta;
};

/*
 * (Re)write in dir: curve-<workload>.csv and .json, curve-<workload>.svg,
 * summary.json, summary.txt, summary.md and report.html, each replaced whole
 * (written aside, fsync'd, renamed) so a crash leaves the previous version.
 * pts[i][0..npts[i]) are workload i's points in run order and judged[i] its
 * curve judged from them (judged_update); nothing here judges again. A pure
 * function of its input: the runner calls it after every step with the curves
 * it keeps, `iocurve report` with points rebuilt from intervals.jsonl and
 * judged the same way (judged_all), for the same bytes.
 */
int derive_all(const char *dir, const struct campaign *c, const struct step_point *const *pts,
               const size_t *npts, const struct judged_curve *judged, const struct derive_run *end,
               struct error *err);
/*
 * The note at the top of every summary of a campaign that failed or was
 * cancelled; false (and buf "") for a complete one.
 */
bool derive_run_note(const struct derive_run *end, char *buf, size_t len);
/*
 * DIR/meta.json as the runner wrote it (its last newline off, so the text is
 * the one it passed to derive_all), malloc'd; NULL when there is none.
 */
char *derive_meta_read(const char *dir);

/*
 * Write DIR/NAME aside with fn and rename it over the old one: readers never see
 * half a file, and a failed write leaves the old one and no temp file. The temp
 * file is new (O_EXCL, a random name, no symlink followed) and the final name must
 * not be a symlink, so nothing planted in the directory is written through.
 * Every file of a results directory but the two appended ones is written this way.
 */
typedef void (*derive_writer)(FILE *f, const void *arg);
int derive_file(const char *dir, const char *name, derive_writer fn, const void *arg,
                struct error *err);

#endif
