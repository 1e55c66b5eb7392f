/* SPDX-License-Identifier: MIT */
/* When a worker sleeps and when it spins, so operations go out at their due time. */
#ifndef IOCURVE_PACER_H
#define IOCURVE_PACER_H

#include <stdbool.h>
#include <stdint.h>

/* Lateness samples per recalibration of the margin. */
#define PACER_SAMPLES 128
/* Margin before calibration, and its bounds. */
#define PACER_MARGIN_START_NS 100000u
#define PACER_MARGIN_MIN_NS   5000u
#define PACER_MARGIN_MAX_NS   100000u
/*
 * The margin covers this quantile of the measured lateness. Not the p99: on a
 * shared VM the tail is preemption, which spinning cannot beat (a spinning
 * worker is preempted all the more), and covering it would spin most of a core.
 */
#define PACER_QUANTILE 90
/* A sleep shorter than this costs about as much CPU as spinning through it (a VM's timer). */
#define PACER_MIN_SLEEP_NS 20000u
/*
 * Spinning is only worth it on a core nobody else wants. Judged over windows of
 * PACER_WINDOW_NS: when the worker spun for more than PACER_SPIN_SIGNIFICANT_PCT
 * of a window and was preempted at least PACER_PREEMPTIONS times in it (other
 * tasks wanted its core: agents, the coordinator, more workers than cores), the
 * margin's cap shrinks by a quarter (to zero) and the worker sleeps more, its
 * lateness then showing as client lag; a window without that lets the cap grow
 * back by an eighth of the maximum. A worker alone on its core spins as needed.
 */
#define PACER_SPIN_SIGNIFICANT_PCT 5u
#define PACER_PREEMPTIONS          3u
#define PACER_WINDOW_NS            100000000u

enum pacer_mode {
	PACER_PRECISE = 0, /* issue within the lateness budget; spin only where it needs */
	PACER_EFFICIENT,   /* sleep to the due time (at least wake_slack): late by the wake-up */
};

/*
 * A timed sleep on a VM ends tens of microseconds late, and that lateness would
 * count in every operation's latency. In precise mode an operation may go out up
 * to `budget` after its due time (a share of the SLO the step is judged on): the
 * worker sleeps until budget - margin after the due time, so a wake-up late by
 * the margin still issues within the budget, and everything that fell due by then
 * goes out in one submission. Only when the budget is tighter than the margin
 * (budget 0: as close to the due time as the machine allows) does the rest of
 * the way spin on the clock. The margin is the PACER_QUANTILE of the lateness the
 * pacer measures on its own timed sleeps (plus a little headroom), recomputed
 * every PACER_SAMPLES sleeps.
 */
struct pacer {
	enum pacer_mode mode;
	uint64_t slack_ns;  /* efficient: shortest timed sleep */
	uint64_t budget_ns; /* precise: an operation may go out this late */
	uint64_t margin_ns; /* precise: wake this long before the budget's end */
	uint64_t target_ns; /* the sleep in progress should end here; 0: not a timed sleep */
	uint64_t cap_ns;    /* precise: the margin's bound from the spin budget */
	uint64_t spin_at;   /* a spin pass started here; 0: none */
	uint64_t spun_ns;   /* spinning in the current window */
	uint64_t spins;     /* decisions to spin, since init (not CPU time: the rule's count) */
	uint64_t sleeps;    /* decisions to sleep before an operation's due time, since init */
	uint64_t window_ns; /* the current window started here; 0: not yet */
	uint64_t preempted; /* involuntary context switches at the window's start */
	uint32_t nsamples;
	uint64_t samples[PACER_SAMPLES]; /* wake-up lateness, ns */
};

/* slack_ns: efficient's shortest sleep; budget_ns: precise's lateness budget (0: none). */
void pacer_init(struct pacer *p, enum pacer_mode mode, uint64_t slack_ns, uint64_t budget_ns);
/*
 * How long to wait from now for the deadline until (ENGINE_NO_WAIT: go on at
 * once, i.e. spin one more pass). issue: until is an operation's due time.
 */
uint64_t pacer_wait(struct pacer *p, uint64_t now, uint64_t until, bool issue);
/* The margin in use: the measured one, within the spin budget's cap. */
uint64_t pacer_margin(const struct pacer *p);
/* A window ended: it lasted elapsed_ns, the worker spun for spun_ns and was preempted n times. */
void pacer_window(struct pacer *p, uint64_t elapsed_ns, uint64_t spun_ns, uint64_t preempted);
/* The wait ended at now; timed_out: by its timeout (no completion, no wake). */
void pacer_woke(struct pacer *p, uint64_t now, bool timed_out);

#endif
