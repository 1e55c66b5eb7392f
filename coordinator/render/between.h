/* SPDX-License-Identifier: MIT */
/*
 * Between runs: a knee's band is what one run's evidence says, and storage can
 * change between runs (a virtual disk's neighbours, a cache, write-back). This
 * run's knees beside those of the earlier runs of the same campaign, same setup
 * and same hosts in the same results root, so the summary says whether the
 * figure repeated.
 */
#ifndef IOCURVE_BETWEEN_H
#define IOCURVE_BETWEEN_H

#include <stdbool.h>
#include <stddef.h>

#include "campaign.h"
#include "judged.h"

/* Earlier runs kept: the most recent ones. */
#define BETWEEN_MAX_RUNS 4

/* One workload's knee in an earlier run, in the curve's unit (ops/s, or MiB/s). */
struct between_knee {
	int bound;     /* 0 a value, 1 a lower bound, -1 no knee (or this workload not run) */
	double knee;   /* the knee (its repeats' mean when it has them) */
	double lo, hi; /* its 95% interval (band joined with the repeats'); hi INFINITY: open */
	bool band;     /* lo/hi known */
};

struct between_run {
	char name[256];         /* the directory's name in the results root */
	char started[32];       /* meta.json's "started" */
	struct between_knee *k; /* per workload of this run's campaign */
};

struct between {
	size_t nruns; /* most recent first */
	struct between_run runs[BETWEEN_MAX_RUNS];
	size_t
	    skipped; /* earlier runs of the campaign left out: setup, hosts or an unfinished end */
};

/*
 * The earlier runs of campaign c beside results directory dir: siblings of dir
 * whose summary.json says the same campaign completed with no agent lost,
 * whose plan.yaml has the same setup (setupdiff) and whose meta.json names the
 * same agent hosts and targets and a start before this run's (meta is this run's
 * meta.json text). NULL when there is none. Anything unreadable is passed over:
 * a planted or torn directory never fails a run.
 */
struct between *between_find(const char *dir, const struct campaign *c, const char *meta);
/*
 * meta (a meta.json text) with the runs b found recorded: "earlier_runs" (their
 * directory names) and "earlier_runs_skipped". between_find of a meta.json that
 * has them looks at those runs only, so `iocurve report` later says what the run
 * said, whatever the results root holds by then. malloc'd.
 */
char *between_record(const char *meta, const struct between *b);
void between_free(struct between *b);

/* This run's knee of workload curve j as an earlier run's is kept. */
struct between_knee between_this(const struct judged_curve *j);

/* 1 the two intervals overlap, 0 they do not, -1 unknown (a bound or no band). */
int between_overlap(const struct between_knee *a, const struct between_knee *b);

/*
 * The paragraph every summary carries when there are earlier runs: per
 * workload this run's knee and the earlier ones, whether each band overlaps
 * this run's, and the spread of the knees across runs. false (buf "") when
 * there are none.
 */
bool between_text(const struct between *b, const struct campaign *c,
                  const struct judged_curve *judged, char *buf, size_t len);

/* The spread of the knees (this run's and the earlier runs'): (max - min) / min, NaN under 2. */
double between_spread(const struct between *b, size_t w, const struct between_knee *self);

#endif
