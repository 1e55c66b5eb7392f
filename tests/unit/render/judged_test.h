/* SPDX-License-Identifier: MIT */
/* What the judged curve's unit tests share: steps of known figures, one campaign. */
#ifndef IOCURVE_JUDGED_TEST_H
#define IOCURVE_JUDGED_TEST_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>

#include "judged.h"
#include "testlib.h"

#define JUDGED_N(a) (sizeof(a) / sizeof((a)[0]))

/*
 * A step offered `offered` ops/s for 5 s that completed `kept` of the operations due
 * (the rest missed) at a mean latency of mean_us.
 */
static inline struct step_point judged_pt(uint32_t step, double offered, double kept,
                                          double mean_us)
{
	struct step_point p = {0};
	double due = offered * 5;

	p.step = step;
	p.offered_ops = offered;
	p.ops = (uint64_t)llround(due * kept);
	p.missed = (uint64_t)llround(due) - p.ops;
	p.achieved_ops = (double)p.ops / 5;
	p.mib_s = p.achieved_ops * 4096 / (1024.0 * 1024.0);
	p.mean_ns = mean_us * 1e3;
	p.p50_ns = p.p90_ns = p.p99_ns = p.p999_ns = p.max_ns = (uint64_t)(mean_us * 1e3);
	p.svc_mean_ns = mean_us * 1e3;
	p.svc_p50_ns = p.svc_p90_ns = p.svc_p99_ns = p.svc_p999_ns = p.svc_max_ns = p.p50_ns;
	p.measured_s = 5;
	p.intervals = 5;
	p.steady = true;
	p.workers = 1;
	return p;
}

static inline struct campaign *judged_campaign(void)
{
	/* a depth given: the workload's own, queue-bound when its queues held operations */
	return testlib_campaign_ok(
	    TEST_HEAD "slo: {latency: 1ms}\nqueue_depth: 16\n"
	              "workloads: [{name: rr, rw: randread, load: {steps: [1000, 2000]}}]\n");
}

#endif
