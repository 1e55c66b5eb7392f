/* SPDX-License-Identifier: MIT */
/* The runner's part of fixed work: who may run it, when each worker starts, what each did. */
#ifndef IOCURVE_RUNNER_WORK_H
#define IOCURVE_RUNNER_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "campaign.h"
#include "iocurve.pb-c.h"
#include "results.h"
#include "runner_agents.h"
#include "storm.h"

/* A report runner_work_done refused (the agent leaves the campaign; err says why). */
#define RUNNER_WORK_BAD (-2)

/*
 * Whether an agent present cannot run fixed work (it lacks CAPABILITY_FIXED_WORK,
 * an older release): why, naming it, in why.
 */
bool runner_work_refused(const struct runner_agents *ra, const struct workload *w, char *why,
                         size_t len);
/*
 * When fleet worker g (agent index x workers + worker) of nagents' starts, ns after
 * the step's start: spread uniformly over start.spread, the first at 0, the last
 * at the spread.
 */
uint64_t runner_work_offset(const struct workload *w, uint32_t g, uint32_t nagents);
/*
 * Agent ai's StepDone of a fixed-work step: each worker's part checked, written
 * to intervals.jsonl as a finish line and appended to (*ws)[*n]. 0, -1 (a write
 * failed) or RUNNER_WORK_BAD (a report out of range), err set.
 */
int runner_work_done(const struct runner_agents *ra, uint32_t ai, const struct workload *w,
                     const Iocurve__StepDone *d, struct results *res, uint32_t step,
                     struct storm_worker **ws, size_t *n, struct error *err);

#endif
