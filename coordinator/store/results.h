/* SPDX-License-Identifier: MIT */
/* The results directory, written as the campaign runs and fsync'd at every step. */
#ifndef IOCURVE_RESULTS_H
#define IOCURVE_RESULTS_H

#include "aggregate.h"
#include "campaign.h"
#include "error.h"
#include "intervals.h"
#include "knee.h"

struct results;

/*
 * Create DIR (or iocurve-results/<campaign>-<UTC time>/ when dir is NULL) and
 * write plan.yaml, the campaign exactly as submitted. intervals.jsonl and
 * curve.csv start empty (curve.csv with its header).
 */
struct results *results_open(const char *dir, const struct campaign *c, struct error *err);
/*
 * An existing DIR, to carry on a campaign (`run --resume`): intervals.jsonl is
 * cut to its first `keep` bytes (the end of its last complete step, as
 * replay_load found it), curve.csv is rewritten from the points kept, and
 * both are appended to from there.
 */
struct results *results_resume(const char *dir, const struct campaign *c,
                               const struct step_point *const *pts, const size_t *npts, long keep,
                               struct error *err);
const char *results_dir(const struct results *r);

/*
 * The writers append whole lines with write(2) and return 0, or -1 with err
 * naming the file and errno (a full disk): the caller then stops the campaign.
 */
/*
 * One line of intervals.jsonl; agent is NULL for the merged (fleet) line. An
 * agent's line is held and written with the next other line (its interval's
 * merged line, a clock, window or end line, results_sync or results_close), in
 * one write; a merged line is never on disk before its agents' lines.
 */
int results_interval(struct results *r, const struct workload *w, uint32_t step, double offered,
                     uint32_t interval, const char *agent, const struct agg_record *rec,
                     struct error *err);
/* One agent's step start on both clocks, with the clock model's uncertainty. */
/* A worker's part of a fixed-work step (intervals_finish_line). */
int results_finish(struct results *r, const struct workload *w, uint32_t step, const char *agent,
                   const struct intervals_finish *f, struct error *err);
int results_clock(struct results *r, const struct workload *w, uint32_t step, const char *agent,
                  const struct intervals_clock *k, struct error *err);
/* The step's attempt `attempt` (from 1) is void: its client was disturbed; it runs again. */
int results_retried(struct results *r, const struct workload *w, uint32_t step, uint32_t attempt,
                    struct error *err);
/* The measured window of an extended step, so `iocurve report` judges it the same way. */
int results_window(struct results *r, const struct workload *w, uint32_t step, uint32_t from,
                   uint32_t to, struct error *err);
/*
 * The background's figures over step `step` of w (intervals_background_line), after the
 * step's lines and before its point: `report` gives the point them again.
 */
int results_background(struct results *r, const struct workload *w, uint32_t step,
                       const struct intervals_bg *b, struct error *err);
/* The cooldown before step `step` (intervals_cooldown_line), before its first interval. */
int results_cooldown(struct results *r, const struct workload *w, uint32_t step, uint32_t ms,
                     const char *outcome, struct error *err);
/* The end line of a campaign that failed or was cancelled (intervals_end_line). */
int results_end(struct results *r, const char *state, const char *reason, struct error *err);
/* A lost line (intervals_lost_line): the campaign goes on without agent `agent`. */
int results_lost(struct results *r, const struct workload *w, uint32_t step, const char *agent,
                 uint32_t interval, const char *reason, struct error *err);
/* A mark on the timeline (intervals_mark_line, marks.h). */
int results_mark(struct results *r, const struct run_mark *m, struct error *err);
/* What an observed source said at an interval's end (intervals_obs_line, obsline.h). */
int results_obs(struct results *r, const struct obs_line *o, struct error *err);
/* One row of curve.csv. */
int results_point(struct results *r, const struct workload *w, const struct step_point *pt,
                  struct error *err);
/*
 * The room kept for the end, .end-reserve (64 KiB, made by results_open and
 * results_resume): removed when the campaign ends, before its end is written,
 * so a disk the campaign filled still takes the end line and the summaries.
 */
#define RESULTS_RESERVE_FILE ".end-reserve"
void results_release(struct results *r);
/* Write what is held, fsync both files: the step is on disk before the next one starts. */
int results_sync(struct results *r, struct error *err);
/* Write what is held (no fsync): nothing is left in memory to be written twice by a fork. */
int results_flush(struct results *r, struct error *err);
void results_close(struct results *r);

#endif
