/* SPDX-License-Identifier: MIT */
/* The worker's pacing: sleep, then spin to an operation's due time; the margin is measured. */
#include <stdlib.h>
#include <string.h>

#include "engine.h"
#include "pacer.h"

void pacer_init(struct pacer *p, enum pacer_mode mode, uint64_t slack_ns)
{
	memset(p, 0, sizeof(*p));
	p->mode = mode;
	p->slack_ns = slack_ns;
	p->margin_ns = PACER_MARGIN_START_NS;
}

uint64_t pacer_wait(struct pacer *p, uint64_t now, uint64_t until, bool issue)
{
	p->target_ns = 0;
	if (until <= now)
		return ENGINE_NO_WAIT;
	if (p->mode == PACER_EFFICIENT) {
		/*
		 * Every timed sleep costs CPU (tens of microseconds on a VM); a wake
		 * slack trades issue precision for it: what falls due meanwhile goes
		 * out together, late, and its lateness counts in latency and lag.
		 */
		if (issue && until - now < p->slack_ns)
			until = now + p->slack_ns;
		p->target_ns = until;
		return until - now;
	}
	if (issue) {
		if (until - now < p->margin_ns + PACER_MIN_SLEEP_NS)
			return ENGINE_NO_WAIT; /* spin: the clock is read once per pass */
		until -= p->margin_ns;
	}
	p->target_ns = until;
	return until - now;
}

static int pacer_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void pacer_woke(struct pacer *p, uint64_t now, bool timed_out)
{
	uint64_t sorted[PACER_SAMPLES], m;

	if (p->target_ns == 0 || !timed_out || now < p->target_ns)
		return;
	p->samples[p->nsamples++] = now - p->target_ns;
	p->target_ns = 0;
	if (p->nsamples < PACER_SAMPLES)
		return;
	p->nsamples = 0;
	memcpy(sorted, p->samples, sizeof(sorted));
	qsort(sorted, PACER_SAMPLES, sizeof(sorted[0]), pacer_cmp);
	/* The quantile, and a quarter of it again: the lateness moves with the host's load. */
	m = sorted[PACER_SAMPLES * PACER_QUANTILE / 100];
	m += m / 4 + PACER_MARGIN_MIN_NS;
	p->margin_ns = m > PACER_MARGIN_MAX_NS ? PACER_MARGIN_MAX_NS : m;
}
