/* SPDX-License-Identifier: MIT */
/* Everything derived from a campaign's step points: curves, summaries, plots, report. */
#ifndef IOCURVE_DERIVE_H
#define IOCURVE_DERIVE_H

#include <stddef.h>

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

#endif
