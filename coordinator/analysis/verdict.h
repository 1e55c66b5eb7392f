/* SPDX-License-Identifier: MIT */
/* Verdicts on one step's point, shared by the knee, the planner and the reports. */
#ifndef IOCURVE_VERDICT_H
#define IOCURVE_VERDICT_H

#include <stdbool.h>
#include <stddef.h>

#include "aggregate.h"
#include "campaign.h"

/* Why a point does not count: a bitmask, 0 for a valid point. */
enum verdict_reason {
	VERDICT_CLOSED_LOOP = 1 << 0,   /* max step: no offered rate, latency from submission */
	VERDICT_BEHIND = 1 << 1,        /* completed < 97% of the operations due in the window */
	VERDICT_BACKLOG = 1 << 2,       /* the backlog grew through the window */
	VERDICT_FEW_INTERVALS = 1 << 3, /* too few intervals to judge steadiness */
	VERDICT_ERRORS = 1 << 4,        /* I/O errors */
	VERDICT_EMPTY = 1 << 5,         /* nothing completed */
	VERDICT_CLIENT_BOUND = 1 << 6,  /* the client was disturbed, after its retries */
	VERDICT_AGENTS_LOST = 1 << 7,   /* agents were lost mid-step: the rest ran it on */
	VERDICT_QUEUE_BOUND = 1 << 8,   /* queues full THRESH_QUEUE_BOUND_PCT of the time or more */
};
/* The reasons of a step that could not deliver its load: a violation overrules them. */
#define VERDICT_DELIVERY (VERDICT_BEHIND | VERDICT_BACKLOG | VERDICT_QUEUE_BOUND)

/*
 * A step's one verdict on the SLO, from its own 95% interval of the SLO metric: wholly
 * under the SLO latency, met; wholly over, violated; straddling it, undecided. A step
 * with a reason (verdict_point) is not judged, but one that only could not deliver its
 * load (VERDICT_DELIVERY) and was wholly over the SLO all the same is violated.
 */
enum verdict_slo { VERDICT_NOT_JUDGED, VERDICT_MET, VERDICT_UNDECIDED, VERDICT_VIOLATED };

/*
 * The operations due in the point's window: completed, plus the backlog (due
 * but not issued; the worker counts it) at the window's end, less the backlog
 * at its start (built in the warm-up, before the window). Not offered x time,
 * so the count noise of Poisson arrivals does not make a step look short.
 */
double verdict_due(const struct step_point *pt);
/* Completed over due, in % (100 when nothing was due). */
double verdict_achieved_pct(const struct step_point *pt);
/*
 * The point's reasons for not being judged (0: judged): open loop, achieved >= 97% of
 * due, a backlog that does not grow, at least 5 intervals, no errors, no agent lost,
 * the client's delay unable to move the verdict, no queue that held operations back.
 */
unsigned verdict_point(const struct step_point *pt);
/* The short name of rule i of that order (verdict.c's table), NULL past the last. */
const char *verdict_rule_name(size_t i);
/*
 * The change that would let a step kept out by reasons count: the first of its rules,
 * in the table's order, that has one (the rule's "what to change"). false: none has.
 */
bool verdict_change(const struct workload *w, const struct step_point *pt, unsigned reasons,
                    char *buf, size_t len);
static inline bool verdict_valid(const struct step_point *pt)
{
	return verdict_point(pt) == 0;
}
/*
 * The reasons in words ("closed loop, behind (81% of due), unsteady"); "valid" for 0.
 * A loss comes first ("1 of 2 agents lost at interval 3 (agent a2), behind ..."): it
 * explains the figures after it.
 */
void verdict_words(const struct step_point *pt, unsigned reasons, char *buf, size_t len);
/* The step's verdict on the SLO (enum verdict_slo). */
enum verdict_slo verdict_judge(const struct campaign *c, const struct step_point *pt);
/* "met", "undecided", "violated", "not judged". */
const char *verdict_slo_word(enum verdict_slo v);
/* The SLO metric's 95% interval, or the metric itself at both ends when unknown. */
void verdict_metric_ci(const struct campaign *c, const struct step_point *pt, double *lo,
                       double *hi);
/* Whether the point violated the SLO (verdict_judge): the knee never lies above it. */
bool verdict_violates(const struct campaign *c, const struct step_point *pt);
/* Whether the point met the SLO (verdict_judge). */
bool verdict_meets(const struct campaign *c, const struct step_point *pt);
/*
 * How long an undecided step would have to be measured for its 95% interval to clear the
 * SLO, had it measured_ns: the interval narrows as one over the root of the length, so
 * measured x (its half-width / the metric's distance to the SLO)^2, both on a log scale.
 * -1 when the metric is within THRESH_AT_SLO of the SLO (or nothing was measured).
 */
double verdict_decide_ns(const struct campaign *c, const struct step_point *pt, double measured_ns);
/* Whether the point is undecided: its interval holds the SLO latency. */
bool verdict_undecided(const struct campaign *c, const struct step_point *pt);
/* Slots a worker needs for its share of the step's rate at the SLO latency (Little's law). */
double verdict_slots_needed(const struct campaign *c, const struct step_point *pt);

/*
 * "; most on AGENT, 420us": the agent whose client delayed its operations most
 * (step_point.client.worst_agent), "" with one agent; into buf, returned.
 */
const char *verdict_worst_agent(const struct step_point *pt, char *buf, size_t len);
/*
 * What disturbed a client-bound point's client, from its own figures, and the change
 * that would let it measure: the hypervisor (steal), its own pacing (workers busy),
 * other work on its host (host busy, workers not), or stalls of an idle host (the
 * kernel or the hypervisor: the load did not cause them). Both "" without health.
 */
void verdict_client_cause(const struct step_point *pt, char *cause, size_t clen, char *change,
                          size_t chlen);

/* Failed operations in % of all the step's operations (completed and failed). */
double verdict_errors_pct(const struct step_point *pt);
/*
 * Whether a step saturated the target by the campaign's stop rules; *why (may
 * be NULL) says which rule ("12 I/O errors (1.5% of operations, over 1%)",
 * "achieved 81% of the operations due", "mean latency 62ms over the 50ms ceiling").
 * Errors over stop.errors come first.
 */
bool verdict_saturated(const struct campaign *c, const struct step_point *pt, char *why,
                       size_t len);

/* A step that completed under stop.achieved of the operations due never counts as meeting the SLO.
 */
bool verdict_short(const struct campaign *c, const struct step_point *pt);

#endif
