/* SPDX-License-Identifier: MIT */
/* What a step's point says about the target: valid or not and why, short, saturated. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "units.h"
#include "verdict.h"

double verdict_due(const struct step_point *pt)
{
	double due = (double)pt->ops + (double)pt->missed - (double)pt->missed_before;

	return due > 0 ? due : 0;
}

double verdict_achieved_pct(const struct step_point *pt)
{
	double due = verdict_due(pt);

	return due > 0 ? 100.0 * (double)pt->ops / due : 100.0;
}

bool verdict_short(const struct campaign *c, const struct step_point *pt)
{
	return pt->offered_ops > 0 && verdict_achieved_pct(pt) < c->stop.min_achieved_pct;
}

/*
 * Whether the queues can have hidden a violation: with slots enough, the operations that
 * waited for one (slot_wait_ns a mean per operation) would have waited in the storage, so
 * a step whose storage latency met the SLO by its interval would, with that wait added,
 * not have met it. A step already undecided or violated by the storage's own latency is
 * that (the wait could only add to it); a metric counted from the due time holds the
 * wait already, and so does the storage's latency of a sized queue (no queue_depth
 * given: every slot was held by what the storage had not answered). Without the
 * client's figures (an old agent): queues full THRESH_QUEUE_BOUND_PCT of the time or more.
 */
static bool verdict_queue_moved(const struct step_point *pt)
{
	double hi = step_metric(pt, pt->slo_metric);

	if (!(pt->offered_ops > 0) || !(pt->client.qd_full_pct > 0) || pt->slo_due ||
	    pt->queue_sized)
		return false;
	if (!pt->client.known)
		return pt->client.qd_full_pct >= THRESH_QUEUE_BOUND_PCT;
	if (pt->metric_hi_ns > 0)
		hi = pt->metric_hi_ns;
	return hi <= pt->slo_ns && hi + pt->client.slot_wait_ns > pt->slo_ns;
}

/* The rules of "can the step be judged?", one row each: see verdict_rules. */
static bool verdict_lost(const struct step_point *pt)
{
	return pt->agents_lost > 0;
}

/* A loss first: the rate was split over agents of whom some left, so it explains the rest. */
static void verdict_lost_words(const struct step_point *pt, char *buf, size_t len)
{
	snprintf(buf, len, "%u of %u agent%s lost %s interval %u (agent%s %s)", pt->agents_lost,
	         pt->nagents, pt->nagents == 1 ? "" : "s", pt->agents_lost == 1 ? "at" : "from",
	         pt->lost_at + 1, pt->agents_lost == 1 ? "" : "s",
	         pt->lost_names[0] ? pt->lost_names : "?");
}

static bool verdict_closed(const struct step_point *pt)
{
	return pt->offered_ops <= 0;
}

static void verdict_closed_words(const struct step_point *pt, char *buf, size_t len)
{
	(void)pt;
	snprintf(buf, len, "closed loop");
}

static bool verdict_behind(const struct step_point *pt)
{
	return pt->ops > 0 && pt->offered_ops > 0 &&
	       verdict_achieved_pct(pt) < 100.0 * THRESH_KEEP_UP;
}

static void verdict_behind_words(const struct step_point *pt, char *buf, size_t len)
{
	snprintf(buf, len, "behind (%.0f%% of due)", verdict_achieved_pct(pt));
}

static bool verdict_backlog(const struct step_point *pt)
{
	return pt->intervals >= THRESH_MIN_INTERVALS && pt->offered_ops > 0 && !pt->steady;
}

static void verdict_backlog_words(const struct step_point *pt, char *buf, size_t len)
{
	snprintf(buf, len, "backlog growing (%llu due, not issued, at its end)",
	         (unsigned long long)pt->missed);
}

static bool verdict_few(const struct step_point *pt)
{
	return pt->intervals < THRESH_MIN_INTERVALS;
}

static void verdict_few_words(const struct step_point *pt, char *buf, size_t len)
{
	snprintf(buf, len, "%u intervals, too few to judge", pt->intervals);
}

static bool verdict_errors(const struct step_point *pt)
{
	return pt->errors > 0;
}

static void verdict_errors_words(const struct step_point *pt, char *buf, size_t len)
{
	char what[RECORD_CAUSE_MAX + 32];

	if (pt->err_errno == 0 && pt->err_cause[0] == '\0') {
		snprintf(buf, len, "%llu errors", (unsigned long long)pt->errors);
		return;
	}
	record_err_words(pt->err_errno, pt->err_cause, what, sizeof(what));
	snprintf(buf, len, "%llu errors (%s%s%s)", (unsigned long long)pt->errors, what,
	         record_err_names_path(pt->err_cause) ? "" : " on ",
	         record_err_names_path(pt->err_cause) ? "" : pt->err_path);
}

static bool verdict_empty(const struct step_point *pt)
{
	return pt->ops == 0;
}

static void verdict_empty_words(const struct step_point *pt, char *buf, size_t len)
{
	(void)pt;
	snprintf(buf, len, "nothing completed");
}

static bool verdict_client(const struct step_point *pt)
{
	return pt->client.bound;
}

static void verdict_client_words(const struct step_point *pt, char *buf, size_t len)
{
	char most[96];

	if (pt->client.host_busy_pct >= THRESH_HOST_BUSY_PCT)
		snprintf(buf, len,
		         "client-bound (its host %.0f%% busy through the step: the client's bursts "
		         "can have moved its verdict; issue lateness %.0fus, reap delay %.0fus%s)",
		         pt->client.host_busy_pct, pt->client.issue_late_ns / 1e3,
		         pt->client.reap_delay_ns / 1e3,
		         verdict_worst_agent(pt, most, sizeof(most)));
	else
		snprintf(buf, len,
		         "client-bound (the client's %.0fus in the metric can have moved its "
		         "verdict; issue lateness %.0fus, reap delay %.0fus%s)",
		         pt->client.slo_ns / 1e3, pt->client.issue_late_ns / 1e3,
		         pt->client.reap_delay_ns / 1e3,
		         verdict_worst_agent(pt, most, sizeof(most)));
}

/*
 * Little's law: at the SLO's latency a worker holds rate x SLO in flight, and a violation
 * shows only with a slot to spare beyond that (and beyond the slots a stall filled when
 * that is fewer than it has).
 */
static void verdict_queue_words(const struct step_point *pt, char *buf, size_t len)
{
	char wait[64] = "";
	const double held =
	    ceil(pt->workers ? pt->offered_ops / pt->workers * pt->slo_ns / 1e9 : 0);

	if (pt->client.known)
		snprintf(wait, sizeof(wait), ", operations waited %.0fus for one",
		         pt->client.slot_wait_ns / 1e3);
	snprintf(buf, len,
	         "queue-bound: all %u slots held %.0f%% of the time%s; at %.0f ops/s and a %.0fus "
	         "SLO a worker holds %.0f in flight%s: raise queue_depth above %.0f",
	         pt->queue_depth, pt->client.qd_full_pct, wait, pt->offered_ops, pt->slo_ns / 1e3,
	         held, held < pt->queue_depth ? ", more in the bursts that filled them" : "",
	         fmax(held, pt->queue_depth));
}

/*
 * What to change so that such a step counts, one function a rule (verdict_change): the
 * rule's last column in docs/methodology.md.
 */
static void verdict_lost_change(const struct workload *w, const struct step_point *pt, char *buf,
                                size_t len)
{
	(void)w;
	snprintf(buf, len, "keep every agent up through a step (lost: %s)",
	         pt->lost_names[0] ? pt->lost_names : "?");
}

static void verdict_errors_change(const struct workload *w, const struct step_point *pt, char *buf,
                                  size_t len)
{
	(void)w;
	(void)pt;
	snprintf(buf, len, "make the target stop failing (the steps had I/O errors)");
}

static void verdict_empty_change(const struct workload *w, const struct step_point *pt, char *buf,
                                 size_t len)
{
	(void)w;
	(void)pt;
	snprintf(buf, len, "nothing completed: check the target");
}

static void verdict_client_change(const struct workload *w, const struct step_point *pt, char *buf,
                                  size_t len)
{
	char cause[256];

	(void)w;
	verdict_client_cause(pt, cause, sizeof(cause), buf, len);
	if (buf[0] == '\0')
		snprintf(buf, len, "a client that keeps up: the steps were client-bound");
}

static void verdict_few_change(const struct workload *w, const struct step_point *pt, char *buf,
                               size_t len)
{
	char have[32], need[32];

	units_format_plan_duration(w->measure_ns, have, sizeof(have));
	units_format_plan_duration(THRESH_MIN_INTERVALS * w->interval_ns, need, sizeof(need));
	snprintf(buf, len, "steps of %s give %u measured intervals, %u are needed: measure: %s",
	         have, pt->intervals, THRESH_MIN_INTERVALS, need);
}

static void verdict_behind_change(const struct workload *w, const struct step_point *pt, char *buf,
                                  size_t len)
{
	(void)pt;
	snprintf(buf, len,
	         "the client fell behind the rates asked: give it more workers or queue depth "
	         "(%u x %u slots per agent now)",
	         w->io.workers, w->io.queue_depth);
}

static void verdict_queue_change(const struct workload *w, const struct step_point *pt, char *buf,
                                 size_t len)
{
	(void)pt;
	snprintf(buf, len, "the queues held operations back: raise queue_depth (%u per worker now)",
	         w->io.queue_depth);
}

static void verdict_backlog_change(const struct workload *w, const struct step_point *pt, char *buf,
                                   size_t len)
{
	(void)pt;
	snprintf(buf, len,
	         "the backlog grew through the steps: the storage or the client could not keep "
	         "up; give the client more workers or queue depth (%u x %u slots per agent now)",
	         w->io.workers, w->io.queue_depth);
}

/*
 * Why a step cannot be judged, in the order its words are said: every row that holds
 * is a reason (enum verdict_reason), none is a judged step. docs/methodology.md "Judging
 * a step" has the same rows in the same order (tests/unit/analysis/test_rules.c).
 */
static const struct verdict_rule {
	unsigned bit;
	const char *name;
	bool (*holds)(const struct step_point *pt);
	void (*words)(const struct step_point *pt, char *buf, size_t len);
	void (*change)(const struct workload *w, const struct step_point *pt, char *buf,
	               size_t len); /* NULL: nothing to change (a closed loop gives the peak) */
} verdict_rules[] = {
    {VERDICT_AGENTS_LOST, "agents lost", verdict_lost, verdict_lost_words, verdict_lost_change},
    {VERDICT_CLOSED_LOOP, "closed loop", verdict_closed, verdict_closed_words, NULL},
    {VERDICT_ERRORS, "errors", verdict_errors, verdict_errors_words, verdict_errors_change},
    {VERDICT_EMPTY, "nothing completed", verdict_empty, verdict_empty_words, verdict_empty_change},
    {VERDICT_CLIENT_BOUND, "client-bound", verdict_client, verdict_client_words,
     verdict_client_change},
    {VERDICT_FEW_INTERVALS, "too few intervals", verdict_few, verdict_few_words,
     verdict_few_change},
    {VERDICT_BEHIND, "behind", verdict_behind, verdict_behind_words, verdict_behind_change},
    {VERDICT_QUEUE_BOUND, "queue-bound", verdict_queue_moved, verdict_queue_words,
     verdict_queue_change},
    {VERDICT_BACKLOG, "backlog growing", verdict_backlog, verdict_backlog_words,
     verdict_backlog_change},
};

#define VERDICT_NRULES (sizeof(verdict_rules) / sizeof(verdict_rules[0]))

const char *verdict_rule_name(size_t i)
{
	return i < VERDICT_NRULES ? verdict_rules[i].name : NULL;
}

bool verdict_change(const struct workload *w, const struct step_point *pt, unsigned reasons,
                    char *buf, size_t len)
{
	for (size_t i = 0; i < VERDICT_NRULES; i++)
		if ((reasons & verdict_rules[i].bit) && verdict_rules[i].change != NULL) {
			verdict_rules[i].change(w, pt, buf, len);
			return true;
		}
	return false;
}

unsigned verdict_point(const struct step_point *pt)
{
	unsigned r = 0;

	for (size_t i = 0; i < VERDICT_NRULES; i++)
		if (verdict_rules[i].holds(pt))
			r |= verdict_rules[i].bit;
	return r;
}

const char *verdict_worst_agent(const struct step_point *pt, char *buf, size_t len)
{
	buf[0] = '\0';
	if (pt->client.worst_agent[0] != '\0')
		snprintf(buf, len, "; most on %s, %.0fus", pt->client.worst_agent,
		         pt->client.worst_ns / 1e3);
	return buf;
}

void verdict_words(const struct step_point *pt, unsigned reasons, char *buf, size_t len)
{
	char word[160 + RECORD_CAUSE_MAX + RECORD_PATH_MAX];
	size_t used = 0;

	if (len == 0)
		return;
	buf[0] = '\0';
	if (reasons == 0) {
		snprintf(buf, len, "valid");
		return;
	}
	for (size_t i = 0; i < VERDICT_NRULES && used < len; i++) {
		if (!(reasons & verdict_rules[i].bit))
			continue;
		verdict_rules[i].words(pt, word, sizeof(word));
		used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? ", " : "", word);
	}
}

void verdict_client_cause(const struct step_point *pt, char *cause, size_t clen, char *change,
                          size_t chlen)
{
	double each = pt->workers ? pt->client.cpu_pct / pt->workers : pt->client.cpu_pct;

	cause[0] = change[0] = '\0';
	if (!pt->client.known)
		return;
	if (pt->client.steal_pct > THRESH_STEAL_PCT) {
		snprintf(cause, clen, "the hypervisor took %.0f%% of its CPU (steal)",
		         pt->client.steal_pct);
		snprintf(change, chlen, "a client whose CPUs are not shared (steal %.0f%%)",
		         pt->client.steal_pct);
	} else if (each >= THRESH_WORKER_BUSY_PCT) {
		snprintf(cause, clen,
		         "its own pacing kept its workers busy (%.0f%% of a core each)", each);
		snprintf(change, chlen, "spread the rate over more workers or agents");
	} else if (pt->client.host_cpu_pct >= THRESH_HOST_BUSY_PCT) {
		snprintf(cause, clen,
		         "other work shared its host (%.0f%% of its CPUs busy, its workers %.0f%% "
		         "of a core each)",
		         pt->client.host_cpu_pct, each);
		snprintf(change, chlen, "a client with nothing else to run");
	} else {
		snprintf(
		    cause, clen,
		    "its workers stalled while its host had CPU to spare (at most %.0f%% busy, "
		    "its workers %.0f%% of a core each): the kernel or the hypervisor held "
		    "them, not the load",
		    pt->client.host_cpu_pct, each);
		snprintf(change, chlen,
		         "measure again, or on a quieter client (the stalls were not the load's)");
	}
}

double verdict_errors_pct(const struct step_point *pt)
{
	uint64_t all = pt->ops + pt->errors;

	return all ? 100.0 * (double)pt->errors / (double)all : 0;
}

void verdict_metric_ci(const struct campaign *c, const struct step_point *pt, double *lo,
                       double *hi)
{
	double m = step_metric(pt, c->slo_metric);

	*lo = *hi = m;
	if (pt->metric_hi_ns > 0 && pt->metric_hi_ns >= pt->metric_lo_ns) {
		*lo = fmin(m, pt->metric_lo_ns);
		*hi = fmax(m, pt->metric_hi_ns);
	}
}

enum verdict_slo verdict_judge(const struct campaign *c, const struct step_point *pt)
{
	double slo = (double)c->slo_latency_ns, lo, hi;
	unsigned r = verdict_point(pt);

	verdict_metric_ci(c, pt, &lo, &hi);
	/*
	 * A step that could not deliver its load (behind, backlog, queue-bound) but whose
	 * storage was wholly over the SLO all the same violated it: less load than offered
	 * only lowered its latency.
	 */
	if (r != 0 && (r & ~VERDICT_DELIVERY) == 0 && pt->ops > 0 && lo > slo)
		return VERDICT_VIOLATED;
	if (r != 0)
		return VERDICT_NOT_JUDGED;
	if (hi <= slo)
		return VERDICT_MET;
	return lo > slo ? VERDICT_VIOLATED : VERDICT_UNDECIDED;
}

const char *verdict_slo_word(enum verdict_slo v)
{
	static const char *const words[] = {"not judged", "met", "undecided", "violated"};

	return words[v];
}

bool verdict_violates(const struct campaign *c, const struct step_point *pt)
{
	return verdict_judge(c, pt) == VERDICT_VIOLATED;
}

bool verdict_meets(const struct campaign *c, const struct step_point *pt)
{
	return verdict_judge(c, pt) == VERDICT_MET;
}

bool verdict_undecided(const struct campaign *c, const struct step_point *pt)
{
	return verdict_judge(c, pt) == VERDICT_UNDECIDED;
}

double verdict_decide_ns(const struct campaign *c, const struct step_point *pt, double measured_ns)
{
	double slo = (double)c->slo_latency_ns, m = step_metric(pt, c->slo_metric), lo, hi;
	double half, dist;

	verdict_metric_ci(c, pt, &lo, &hi);
	if (!(m > 0) || !(lo > 0) || !(measured_ns > 0))
		return -1;
	/* on a log scale, as the interval is: its half on the SLO's side, the SLO's distance */
	half = m <= slo ? log(hi / m) : log(m / lo);
	dist = fabs(log(m / slo));
	if (dist < THRESH_AT_SLO)
		return -1;
	return half > dist ? measured_ns * (half / dist) * (half / dist) : measured_ns;
}

double verdict_slots_needed(const struct campaign *c, const struct step_point *pt)
{
	return pt->workers ? pt->offered_ops / pt->workers * (double)c->slo_latency_ns / 1e9 : 0;
}

bool verdict_saturated(const struct campaign *c, const struct step_point *pt, char *why, size_t len)
{
	double lat = step_metric(pt, c->slo_metric);
	char a[32], b[32], n[32];

	if (why == NULL)
		len = 0;
	/* First: failed operations also leave the achieved rate short. */
	if (c->stop.errors_pct >= 0 && pt->errors > 0 &&
	    verdict_errors_pct(pt) > c->stop.errors_pct) {
		if (len) {
			double pct = verdict_errors_pct(pt);

			/* Two or three digits, never an exponent: 0.33%, 1.1%, 99.5%, <0.01%. */
			if (pct >= 0.01)
				snprintf(a, sizeof(a), pct >= 10 ? "%.3g%%" : "%.2g%%", pct);
			else
				snprintf(a, sizeof(a), "<0.01%%");
			/* Errors, not capacity: how many of the operations failed. */
			units_format_count(pt->errors, b, sizeof(b));
			units_format_count(pt->ops + pt->errors, n, sizeof(n));
			snprintf(why, len, "I/O errors: %s of %s operations failed (%s, over %g%%)",
			         b, n, a, c->stop.errors_pct);
		}
		return true;
	}
	/* A step that lost agents fell short for that, not for the target. */
	if (pt->agents_lost == 0 && verdict_short(c, pt)) {
		if (len)
			snprintf(why, len, "achieved %.0f%% of the operations due",
			         verdict_achieved_pct(pt));
		return true;
	}
	if (c->stop.ceiling_ns && lat > (double)c->stop.ceiling_ns) {
		if (len) {
			units_format_duration((uint64_t)lat, a, sizeof(a));
			units_format_duration(c->stop.ceiling_ns, b, sizeof(b));
			snprintf(why, len, "%s latency %s over the %s ceiling",
			         campaign_slo_metric_name(c->slo_metric), a, b);
		}
		return true;
	}
	return false;
}
