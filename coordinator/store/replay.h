/* SPDX-License-Identifier: MIT */
/* Rebuild a run's step points from its results directory: plan.yaml and intervals.jsonl. */
#ifndef IOCURVE_REPLAY_H
#define IOCURVE_REPLAY_H

#include <stddef.h>

#include "aggregate.h"
#include "campaign.h"
#include "error.h"
#include "judged.h"
#include "marks.h"
#include "obsline.h"
#include "runend.h"

struct replay {
	struct campaign *campaign;
	struct step_point **pts; /* per workload, in run order */
	size_t *npts;
	struct judged_curve *judged; /* per workload, its points judged (judged_all) */
	long keep;         /* intervals.jsonl's bytes up to the end of its last complete step */
	char warning[256]; /* "" or what was ignored: a torn last line */
	struct runend end; /* how the campaign ended (its end line) and meta.json */
	char *meta;        /* meta.json's text (end.meta points here) */
	struct mark_list marks; /* the mark lines (end.marks points here) */
	size_t marks_kept;      /* the first of them, before keep: what a resume keeps */
	struct obs_list obs;    /* the observe lines (end.obs points here) */
	size_t obs_nkept;       /* the first of them, before keep: what a resume keeps */
};

/*
 * Read DIR/plan.yaml and DIR/intervals.jsonl and merge the agents' interval
 * lines again, step by step, exactly as the runner did (the merged "*" lines are
 * not trusted, only read). A step counts only when every agent reported every
 * one of its intervals, as the runner requires. Errors name the file and line.
 * A torn last line (the writer was killed) is ignored and said in warning.
 */
int replay_load(const char *dir, struct replay *out, struct error *err);
/*
 * replay_load of a directory to carry on (`run --resume`, `iocurve resume`), which
 * may come from elsewhere: DIR must be ours, no symbolic link and writable by no one
 * else, every entry in it ours, and plan.yaml's target paths plain
 * (campaign_load_plan). Errors name the directory or file and what is wrong.
 */
int replay_load_resume(const char *dir, struct replay *out, struct error *err);
void replay_free(struct replay *r);

#endif
