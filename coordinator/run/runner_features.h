/* SPDX-License-Identifier: MIT */
/*
 * What runs beside the steps as rows of one table: the background load (runner_bg.c),
 * the observe sources (runner_observe.c) and fixed work with its marks
 * (runner_features.c). The runner's states call each hook where they used to branch;
 * a feature adds a row and its file, not lines in runner.c. Every hook is optional.
 */
#ifndef IOCURVE_RUNNER_FEATURES_H
#define IOCURVE_RUNNER_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "aggregate.h"
#include "error.h"
#include "iocurve.pb-c.h"

struct runner;

struct runner_feature {
	const char *name;
	void (*init)(struct runner *r); /* runner_new */
	void (*free)(struct runner *r);
	int (*start)(struct runner *r, struct error *err); /* the campaign starts */
	/* a workload of its own: the runner never steps it, its reports are the feature's */
	bool (*owns)(const struct runner *r, size_t wi);
	/* entering PREPARING on n agents, before the foreground's Prepare; -1 refuses it */
	int (*prepare)(struct runner *r, uint32_t n, struct error *err);
	/* a Ready of workload wi: true when it was the feature's (taken) */
	bool (*on_ready)(struct runner *r, uint32_t wi);
	/* every agent is ready with the foreground: false while the feature is not */
	bool (*ready)(struct runner *r);
	/* an interval report of a workload it owns */
	int (*report)(struct runner *r, uint32_t ai, const Iocurve__IntervalReport *ir,
	              struct error *err);
	/* a foreground step starts at start_ns (coordinator clock), measured measure_ns */
	void (*step)(struct runner *r, uint64_t start_ns, uint64_t measure_ns);
	/* an agent's StepDone of the foreground step (RUNNER_BAD_REPORT refuses it) */
	int (*done)(struct runner *r, uint32_t ai, const Iocurve__StepDone *d, struct error *err);
	/* every agent is done: the step's window ended at interval `to` */
	void (*step_end)(struct runner *r, uint32_t to);
	/* true: the step's point waits for it (runner_step_finish is called later) */
	bool (*hold)(struct runner *r);
	/* the step's point: the feature's figures in it */
	int (*point)(struct runner *r, struct step_point *pt, struct error *err);
	/* the step runs again (a disturbed client): what it kept of this attempt goes */
	void (*retry)(struct runner *r);
	/* the last foreground workload is done */
	void (*last)(struct runner *r);
	/*
	 * The campaign ends (complete: every step ran): true when the feature calls
	 * go(arg) itself once its own work is over (at most one feature may).
	 */
	bool (*end)(struct runner *r, bool complete, void (*go)(void *), void *arg);
};

extern const struct runner_feature runner_bg_feature, runner_observe_feature, runner_work_feature;

void runner_features_init(struct runner *r);
void runner_features_free(struct runner *r);
int runner_features_start(struct runner *r, struct error *err);
bool runner_features_own(const struct runner *r, size_t wi);
int runner_features_prepare(struct runner *r, uint32_t n, struct error *err);
bool runner_features_on_ready(struct runner *r, uint32_t wi);
bool runner_features_ready(struct runner *r);
int runner_features_report(struct runner *r, uint32_t ai, const Iocurve__IntervalReport *ir,
                           struct error *err);
void runner_features_step(struct runner *r, uint64_t start_ns, uint64_t measure_ns);
int runner_features_done(struct runner *r, uint32_t ai, const Iocurve__StepDone *d,
                         struct error *err);
void runner_features_step_end(struct runner *r, uint32_t to);
bool runner_features_hold(struct runner *r);
int runner_features_point(struct runner *r, struct step_point *pt, struct error *err);
void runner_features_retry(struct runner *r);
void runner_features_last(struct runner *r);
void runner_features_end(struct runner *r, bool complete, void (*go)(void *), void *arg);

#endif
