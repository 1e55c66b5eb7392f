/* SPDX-License-Identifier: MIT */
/* How a campaign ended, as the results say it: the state, the reason and the run's description. */
#ifndef IOCURVE_RUNEND_H
#define IOCURVE_RUNEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "error.h"

struct between;
struct run_mark;
struct obs_kept;

/* Losses kept for the summaries; a campaign that lost more says how many more. */
#define RUNEND_MAX_LOSSES 16

/* An agent lost while the campaign went on without it (on_agent_loss: continue). */
struct runend_loss {
	char agent[128];
	char workload[128];
	uint32_t step;     /* in run order, from 0 */
	uint32_t interval; /* the first it did not report, from 0; UINT32_MAX: between steps */
	char reason[256];
};

/* What the run says of itself beyond its points. */
struct runend {
	/*
	 * How it ended, when it did not complete: state "" means complete; RUNEND_RUNNING
	 * is what files written between steps say, so none claims an end before it happened.
	 */
	char state[16]; /* "failed", "cancelled", "running" */
	char reason[512];
	/*
	 * meta.json as written at the start (runner_meta): date, version, command,
	 * coordinator and agent hosts, kernels, the target's mount; NULL: none.
	 */
	const char *meta;
	/* agents lost on the way: the campaign completed degraded (runend_degraded) */
	uint32_t nlosses; /* all of them; losses[] holds the first RUNEND_MAX_LOSSES */
	struct runend_loss losses[RUNEND_MAX_LOSSES];
	/* the earlier runs of this campaign beside it (between.h); NULL: none */
	const struct between *between;
	/* the marks on the timeline (marks.h), in the order stamped; drawn on the time plots */
	const struct run_mark *marks;
	size_t nmarks;
	/* what the observe: sources said per interval (obsline.h), in the order written */
	const struct obs_kept *obs;
	size_t nobs;
};

#define RUNEND_RUNNING "running"

/* Add a loss (past RUNEND_MAX_LOSSES only counted). */
void runend_add_loss(struct runend *end, const char *agent, const char *workload, uint32_t step,
                     uint32_t interval, const char *reason);
/* One loss in words: "agent a3 lost at rr step 2, interval 4 (REASON)". */
void runend_loss_words(const struct runend_loss *l, char *buf, size_t len);
/*
 * The line every summary of a campaign that lost agents carries: "degraded: agent a3
 * lost at rr step 2, interval 4 (REASON); ..."; false (and buf "") when none was lost.
 */
bool runend_degraded(const struct runend *end, char *buf, size_t len);

/*
 * The note at the top of every summary of a campaign that failed or was
 * cancelled, or written while it ran; false (and buf "") for a complete one.
 */
bool runend_note(const struct runend *end, char *buf, size_t len);

/*
 * DIR/meta.json as the runner wrote it (its last newline off, so the text is
 * the one it passed to derive_all), malloc'd; NULL when there is none (err's
 * message empty) or when what is there cannot be taken (err says why: a symbolic
 * link, not a regular file, over RUNEND_META_MAX bytes; saferead_all).
 */
#define RUNEND_META_MAX (1u << 20)
char *runend_meta_read(const char *dir, struct error *err);

#endif
