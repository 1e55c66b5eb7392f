/* SPDX-License-Identifier: MIT */
/* The worker's pacing: sleep, then spin to an operation's due time; the margin is measured. */
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "engine.h"
#include "pacer.h"

void pacer_init(struct pacer *p, enum pacer_mode mode, uint64_t slack_ns, uint64_t budget_ns)
{
	memset(p, 0, sizeof(*p));
	p->mode = mode;
	p->slack_ns = slack_ns;
	p->budget_ns = budget_ns;
	p->margin_ns = PACER_MARGIN_START_NS;
	p->cap_ns = PACER_MARGIN_MAX_NS;
}

uint64_t pacer_margin(const struct pacer *p)
{
	return p->margin_ns < p->cap_ns ? p->margin_ns : p->cap_ns;
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
		uint64_t margin = pacer_margin(p), wake = until + p->budget_ns;

		/* Wake margin early against the budget's end: late by the margin, still in it. */
		wake = wake > margin ? wake - margin : 0;
		if (wake < now + PACER_MIN_SLEEP_NS) {
			p->spin_at = now;
			p->spins++;
			return ENGINE_NO_WAIT; /* spin: the clock is read once per pass */
		}
		p->sleeps++;
		until = wake;
	}
	p->target_ns = until;
	return until - now;
}

static int pacer_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

void pacer_window(struct pacer *p, uint64_t elapsed_ns, uint64_t spun_ns, uint64_t preempted)
{
	bool spinning = spun_ns > elapsed_ns / 100 * PACER_SPIN_SIGNIFICANT_PCT;

	if (spinning && preempted >= PACER_PREEMPTIONS)
		p->cap_ns = p->cap_ns < PACER_MARGIN_MIN_NS ? 0 : p->cap_ns - p->cap_ns / 4;
	else
		p->cap_ns = p->cap_ns + PACER_MARGIN_MAX_NS / 8 < PACER_MARGIN_MAX_NS
		                ? p->cap_ns + PACER_MARGIN_MAX_NS / 8
		                : PACER_MARGIN_MAX_NS;
}

static uint64_t pacer_preemptions(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru) < 0)
		return 0;
	return (uint64_t)ru.ru_nivcsw;
}

/* Account the spin pass that just ended; at a window's end, judge the spin budget. */
static void pacer_budget(struct pacer *p, uint64_t now)
{
	uint64_t preempted;

	if (p->spin_at && now > p->spin_at)
		p->spun_ns += now - p->spin_at;
	p->spin_at = 0;
	if (p->window_ns == 0 || now < p->window_ns) {
		p->window_ns = now;
		p->preempted = pacer_preemptions();
		return;
	}
	if (now - p->window_ns < PACER_WINDOW_NS)
		return;
	preempted = pacer_preemptions();
	pacer_window(p, now - p->window_ns, p->spun_ns, preempted - p->preempted);
	p->preempted = preempted;
	p->spun_ns = 0;
	p->window_ns = now;
}

void pacer_woke(struct pacer *p, uint64_t now, bool timed_out)
{
	uint64_t sorted[PACER_SAMPLES], m;

	if (p->mode == PACER_PRECISE)
		pacer_budget(p, now);
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
