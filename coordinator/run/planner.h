/* SPDX-License-Identifier: MIT */
/* Step control: which rate a workload's next step offers, from the results so far. */
#ifndef IOCURVE_PLANNER_H
#define IOCURVE_PLANNER_H

#include <stdbool.h>
#include <stddef.h>

#include "aggregate.h"
#include "campaign.h"
#include "judged.h"

/*
 * The plan is not fixed in advance: a curve needs the peak first, a ramp stops
 * at saturation, refinement bisects the bracket around the knee. The planner
 * sees the workload's judged curve (judged.h) after every step and answers
 * with the next rate; it judges nothing itself. Refinement bisects the knee's
 * bracket (curve_knee: valid points only, below the lowest violation), never
 * offering more than the highest achieved rate, until the bracket is within
 * 2% or load.refine steps are spent; then, unless
 * confirm: false, one step at the knee interpolated between the bracket's
 * ends: if it meets the SLO, it is the measured knee. With repeat: N it runs
 * N - 1 more times at the same rate, straight after (curve_repeats).
 */
struct planner {
	const struct campaign *c;
	const struct workload *w;
	size_t next;          /* steps/curve: next entry of w->steps */
	bool peak_known;      /* a max step has run */
	double peak_ops;      /* its achieved ops/s */
	bool pass_done;       /* the planned pass (steps, curve or ramp) is over */
	uint32_t refined;     /* refinement steps run */
	bool confirmed;       /* the confirmation step has run */
	double confirm_rate;  /* its offered rate */
	uint32_t repeats;     /* repeat: N: times it ran again at that rate (up to N - 1) */
	char why[160];        /* why the pass ended (saturation rule, max steps), for the report */
	char refine_why[400]; /* why refinement ended: the knee's precision and why */
};

void planner_init(struct planner *p, const struct campaign *c, const struct workload *w);
/*
 * The next step's offered rate into *rate (ops/s; 0: max, closed loop), given
 * the curve judged from the steps run so far (judged_update). Returns false
 * when the workload is done; planner_why then says why.
 */
bool planner_next(struct planner *p, const struct judged_curve *j, double *rate);
const char *planner_why(const struct planner *p);

#endif
