/* SPDX-License-Identifier: MIT */
/* The features beside the steps, one row each (runner_features.h), and fixed work's row. */
#include <stdlib.h>

#include "runner_core.h"
#include "runner_features.h"
#include "runner_work.h"

/* Fixed work: agents that can run it, and each worker's finish with the marks it makes. */
static int runner_work_prepare(struct runner *r, uint32_t n, struct error *err)
{
	char why[512];

	(void)n;
	if (!runner_workload(r)->work.on ||
	    !runner_work_refused(r->agents, runner_workload(r), why, sizeof(why)))
		return 0;
	error_set(err, "%s", why);
	return -1;
}

static int runner_work_step_done(struct runner *r, uint32_t ai, const Iocurve__StepDone *d,
                                 struct error *err)
{
	struct storm_worker *ws = NULL;
	size_t n = 0;
	int rc;

	if (!runner_workload(r)->work.on)
		return 0;
	rc = runner_work_done(r->agents, ai, runner_workload(r), d, r->res, r->step, &ws, &n, err);
	if (rc == 0) {
		step_add_parts(r->st, runner_agents_name(r->agents, ai), ws, n);
		rc = runner_finish_marks(r, ai, ws, n, err);
	}
	free(ws);
	if (rc < 0)
		return rc == RUNNER_WORK_BAD ? RUNNER_BAD_REPORT : -1;
	return 0;
}

const struct runner_feature runner_work_feature = {
    .name = "fixed work",
    .prepare = runner_work_prepare,
    .done = runner_work_step_done,
};

/* In this order: the background first, so its workers and devices are there first. */
static const struct runner_feature *const runner_features[] = {
    &runner_bg_feature,
    &runner_observe_feature,
    &runner_work_feature,
};

#define RUNNER_NFEATURES (sizeof(runner_features) / sizeof(runner_features[0]))

void runner_features_init(struct runner *r)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->init != NULL)
			runner_features[i]->init(r);
}

void runner_features_free(struct runner *r)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->free != NULL)
			runner_features[i]->free(r);
}

int runner_features_start(struct runner *r, struct error *err)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->start != NULL && runner_features[i]->start(r, err) < 0)
			return -1;
	return 0;
}

/* The feature that owns workload wi, or NULL: a foreground workload. */
static const struct runner_feature *runner_features_owner(const struct runner *r, size_t wi)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->owns != NULL && runner_features[i]->owns(r, wi))
			return runner_features[i];
	return NULL;
}

bool runner_features_own(const struct runner *r, size_t wi)
{
	return runner_features_owner(r, wi) != NULL;
}

int runner_features_prepare(struct runner *r, uint32_t n, struct error *err)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->prepare != NULL &&
		    runner_features[i]->prepare(r, n, err) < 0)
			return -1;
	return 0;
}

bool runner_features_on_ready(struct runner *r, uint32_t wi)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->on_ready != NULL && runner_features[i]->on_ready(r, wi))
			return true;
	return false;
}

bool runner_features_ready(struct runner *r)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->ready != NULL && !runner_features[i]->ready(r))
			return false;
	return true;
}

int runner_features_report(struct runner *r, uint32_t ai, const Iocurve__IntervalReport *ir,
                           struct error *err)
{
	const struct runner_feature *f = runner_features_owner(r, ir->workload_index);

	return f != NULL && f->report != NULL ? f->report(r, ai, ir, err) : 0;
}

void runner_features_step(struct runner *r, uint64_t start_ns, uint64_t measure_ns)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->step != NULL)
			runner_features[i]->step(r, start_ns, measure_ns);
}

int runner_features_done(struct runner *r, uint32_t ai, const Iocurve__StepDone *d,
                         struct error *err)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++) {
		int rc =
		    runner_features[i]->done != NULL ? runner_features[i]->done(r, ai, d, err) : 0;

		if (rc != 0)
			return rc;
	}
	return 0;
}

void runner_features_step_end(struct runner *r, uint32_t to)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->step_end != NULL)
			runner_features[i]->step_end(r, to);
}

bool runner_features_hold(struct runner *r)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->hold != NULL && runner_features[i]->hold(r))
			return true;
	return false;
}

int runner_features_point(struct runner *r, struct step_point *pt, struct error *err)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->point != NULL && runner_features[i]->point(r, pt, err) < 0)
			return -1;
	return 0;
}

void runner_features_retry(struct runner *r)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->retry != NULL)
			runner_features[i]->retry(r);
}

void runner_features_last(struct runner *r)
{
	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->last != NULL)
			runner_features[i]->last(r);
}

void runner_features_end(struct runner *r, bool complete, void (*go)(void *), void *arg)
{
	bool waits = false;

	for (size_t i = 0; i < RUNNER_NFEATURES; i++)
		if (runner_features[i]->end != NULL &&
		    runner_features[i]->end(r, complete, go, arg))
			waits = true;
	if (!waits)
		go(arg);
}
