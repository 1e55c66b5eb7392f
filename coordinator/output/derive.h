/* SPDX-License-Identifier: MIT */
/* Everything derived from a campaign's step points: curves, summaries, plots, report. */
#ifndef IOCURVE_DERIVE_H
#define IOCURVE_DERIVE_H

#include <stddef.h>
#include <stdio.h>

#include "aggregate.h"
#include "campaign.h"
#include "error.h"

/*
 * (Re)write in dir: curve-<workload>.csv and .json, curve-<workload>.svg,
 * summary.json, summary.txt, summary.md and report.html, each replaced whole
 * (written aside, fsync'd, renamed) so a crash leaves the previous version. A
 * pure function of its input: the runner calls it after every step and
 * `iocurve report` with points rebuilt from intervals.jsonl, for the same bytes.
 */
int derive_all(const char *dir, const struct campaign *c, const struct step_point *const *pts,
               const size_t *npts, struct error *err);

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
