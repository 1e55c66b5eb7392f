/* SPDX-License-Identifier: MIT */
/* The runner's part of fixed work: capability, start offsets, each worker's finish. */
#include <stdio.h>
#include <stdlib.h>

#include "caps.h"
#include "runner_work.h"
#include "xalloc.h"

bool runner_work_refused(const struct runner_agents *ra, const struct workload *w, char *why,
                         size_t len)
{
	uint32_t n = runner_agents_count(ra);

	for (uint32_t i = 0; i < n; i++) {
		struct session *s = runner_agents_session(ra, i);

		if (s == NULL || (session_caps(s) & IOCURVE__CAPABILITY__CAPABILITY_FIXED_WORK))
			continue;
		snprintf(why, len,
		         "agent %s (iocurve %s) cannot run workload '%s': fixed work (load.work) "
		         "needs an agent that has capability 'fixed-work'; upgrade it, or leave "
		         "it out of the campaign",
		         runner_agents_name(ra, i), session_version(s), w->name);
		return true;
	}
	return false;
}

uint64_t runner_work_offset(const struct workload *w, uint32_t g, uint32_t nagents)
{
	uint64_t total = (uint64_t)nagents * w->io.workers;

	if (w->work.spread_ns == 0 || total < 2)
		return 0;
	return (uint64_t)((double)w->work.spread_ns * (double)g / (double)(total - 1));
}

int runner_work_done(const struct runner_agents *ra, uint32_t ai, const struct workload *w,
                     const Iocurve__StepDone *d, struct results *res, uint32_t step,
                     struct storm_worker **ws, size_t *n, struct error *err)
{
	const char *name = runner_agents_name(ra, ai);
	uint32_t nagents = runner_agents_count(ra);

	if (d->n_worker_done_ns != w->io.workers || d->n_worker_ops != w->io.workers) {
		error_set(err,
		          "agent %s: bad StepDone: fixed work of %u workers, but %zu completion "
		          "times and %zu counts",
		          name, w->io.workers, d->n_worker_done_ns, d->n_worker_ops);
		return RUNNER_WORK_BAD;
	}
	for (uint32_t k = 0; k < w->io.workers; k++)
		if (d->worker_ops[k] > w->work.ops || d->worker_done_ns[k] > w->measure_ns ||
		    (d->worker_done_ns[k] != 0 && d->worker_ops[k] != w->work.ops)) {
			error_set(
			    err,
			    "agent %s: bad StepDone: worker %u did %llu of %llu operations in "
			    "%llu ns",
			    name, k, (unsigned long long)d->worker_ops[k],
			    (unsigned long long)w->work.ops,
			    (unsigned long long)d->worker_done_ns[k]);
			return RUNNER_WORK_BAD;
		}
	*ws = xreallocarray(*ws, *n + w->io.workers, sizeof(**ws));
	for (uint32_t k = 0; k < w->io.workers; k++) {
		struct storm_worker *sw = &(*ws)[(*n)++];
		struct intervals_finish f;

		sw->agent = ai;
		sw->worker = k;
		sw->start_s = (double)runner_work_offset(w, ai * w->io.workers + k, nagents) / 1e9;
		sw->done_s = d->worker_done_ns[k] ? (double)d->worker_done_ns[k] / 1e9 : -1;
		sw->ops = d->worker_ops[k];
		f.worker = k;
		f.start_s = sw->start_s;
		f.done_s = sw->done_s;
		f.ops = sw->ops;
		if (results_finish(res, w, step, name, &f, err) < 0)
			return -1;
	}
	return 0;
}
