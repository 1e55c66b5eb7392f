/* SPDX-License-Identifier: MIT */
/*
 * Fixed work's figures (a boot storm): how long each worker, each agent and the
 * fleet took to do their work. Times are seconds; a worker's and an agent's
 * completion is measured from its own start, the fleet's storm from the first
 * start to the last finish (docs/methodology.md).
 */
#ifndef IOCURVE_STORM_H
#define IOCURVE_STORM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Finish marks kept for the time plot: one per worker, or per agent past this many workers. */
#define STORM_MAX_MARKS 64
#define STORM_LABEL_MAX 48

/* One worker's part, as its agent reported it. */
struct storm_worker {
	uint32_t agent;  /* the agent's index in the step */
	uint32_t worker; /* within its agent */
	double start_s;  /* its start, seconds after the step's */
	double done_s;   /* its start to its last completion; < 0: it did not finish */
	uint64_t ops;    /* operations it completed (failed ones included) */
};

/* Completion times over a set: min, median, p90 and max (nearest rank), seconds. */
struct storm_stats {
	uint32_t n; /* those that finished; the figures are 0 when none did */
	double min_s, median_s, p90_s, max_s;
};

struct storm {
	bool on;              /* the step was fixed work */
	uint64_t work_ops;    /* per worker */
	uint32_t workers;     /* workers of the fleet... */
	uint32_t finished;    /* ...and those that did all of their work */
	uint32_t agents;      /* agents of the fleet... */
	uint32_t agents_done; /* ...and those whose every worker did */
	uint64_t ops;         /* operations completed, all workers */
	double least_pct;     /* the least advanced worker's share of its work, % */
	struct storm_stats worker, agent;
	double first_start_s; /* seconds after the step's start */
	double last_finish_s; /* the last finish (0 when none finished) */
	double storm_s;       /* first start to last finish: the fleet's completion time */
	/* finish marks, seconds after the step's start, labelled "agent/wN" or "agent" */
	uint32_t nmarks;
	bool marks_per_agent;
	double mark_s[STORM_MAX_MARKS];
	char mark_label[STORM_MAX_MARKS][STORM_LABEL_MAX];
};

/* min, median, p90, max of v[n] (sorted in place; nearest rank). */
void storm_stats_of(double *v, size_t n, struct storm_stats *out);
/*
 * The storm's figures from every worker's part (ws[n], agents numbered from 0
 * below nagents, named names[agent] for the marks; names may be NULL).
 */
void storm_compute(struct storm *s, const struct storm_worker *ws, size_t n, uint32_t nagents,
                   const char *const *names, uint64_t work_ops);
/* The storm in one sentence: the summaries' line where a curve gives its knee. */
void storm_text(const struct storm *s, char *buf, size_t len);

#endif
