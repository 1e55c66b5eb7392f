/* SPDX-License-Identifier: MIT */
/*
 * Marks on a campaign's timeline and the observe lines a resume keeps: the runner's
 * public calls that runner_marks.c and runner_observe.c answer (runner.h includes it).
 */
#ifndef IOCURVE_RUNNER_MARKS_H
#define IOCURVE_RUNNER_MARKS_H

#include <stddef.h>

#include "error.h"
#include "marks.h"
#include "runner_types.h"

/* The marks a first run stamped before the lines a resume keeps (replay's marks_kept). */
void runner_resume_marks(struct runner *r, const struct run_mark *marks, size_t n);
/* A resumed campaign's observed lines so far (obsline.h), before the steps it keeps. */
struct obs_kept;
void runner_resume_observed(struct runner *r, const struct obs_kept *l, size_t n);
/*
 * Stamp a mark now (marks.h): in the step in progress, its time since the step's
 * start and its interval; between steps after the step that ran last; before a
 * workload's first step at its start. Written to intervals.jsonl, sent as an
 * event, drawn on the time plots from the next derived files on. *out: the mark
 * as stamped. -1 with err: the text refused (mark_text_check), the campaign
 * ended, or the line not written (a full disk; the campaign then fails on its
 * next write as it would anyway).
 */
int runner_mark(struct runner *r, const char *text, const char *source, const char *agent,
                struct run_mark *out, struct error *err);
/*
 * A mark the caller stamped itself (mark_set: a fixed-work worker's finish, its
 * step and at_ns from the agent's report): written, kept and sent as runner_mark does.
 */
int runner_add_mark(struct runner *r, const struct run_mark *m, struct error *err);

#endif
