/* SPDX-License-Identifier: MIT */
/* The queue depth a workload runs with when none is given: sized from its load. */
#include <math.h>

#include "slots.h"

double slots_peak_rate(const struct workload *w)
{
	double peak = 0;

	if (w->work.on || w->replay != NULL || w->speeds)
		return 0;
	switch (w->mode) {
	case LOAD_RAMP:
		if (w->ramp_factor > 1)
			return w->ramp_start * pow(w->ramp_factor, w->ramp_max_steps - 1.0);
		return w->ramp_start + w->ramp_increment * (w->ramp_max_steps - 1.0);
	case LOAD_CURVE:
		return 0;
	default:
		break;
	}
	for (size_t i = 0; i < w->nsteps; i++) {
		/* a max step, or one of the peak's: closed loop at the depth */
		if (w->steps[i].peak_pct > 0 || !(w->steps[i].ops > 0))
			return 0;
		peak = fmax(peak, w->steps[i].ops);
	}
	return peak;
}

uint32_t slots_depth(const struct campaign *c, const struct workload *w, bool *sized)
{
	double rate = slots_peak_rate(w), agents = c->agents_count ? c->agents_count : 1;
	double workers = w->io.workers ? w->io.workers : 1, cap = SLOTS_MAX, want, hold;
	uint64_t block = w->io.block_size ? w->io.block_size : 1;

	*sized = rate > 0;
	if (!*sized)
		return SLOTS_MIN;
	if (c->agents_mode == CAMPAIGN_AGENTS_LOCAL && c->local_caps.queue_depth)
		cap = fmin(cap, c->local_caps.queue_depth);
	cap = fmin(cap, floor((double)SLOTS_AGENT_BYTES / ((double)block * workers)));
	/* Little's law: a worker holds its rate x the latency in flight; the SLO's at most */
	hold = SLOTS_HEADROOM * (double)c->slo_latency_ns / 1e9;
	want = ceil(rate / (agents * workers) * hold) + SLOTS_MIN;
	return (uint32_t)fmax(1, fmin(want, cap));
}
