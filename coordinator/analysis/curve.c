/* SPDX-License-Identifier: MIT */
/* A workload's curve judged: its order, throughput unit, knee, peak and limiting factor. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "curve.h"
#include "verdict.h"
#include "xalloc.h"

/* An agent host this busy is the bottleneck, or near enough to distort latency. */
#define CURVE_CLIENT_BUSY_PCT 90.0
/* Queues full this much of the time: the client's queue depth set the pace. */
#define CURVE_QD_FULL_PCT 50.0

bool curve_uses_mib(const struct workload *w)
{
	return !rw_is_random(w->rw);
}

double curve_throughput(const struct workload *w, const struct step_point *p)
{
	return curve_uses_mib(w) ? p->mib_s : p->achieved_ops;
}

static int curve_cmp(const void *a, const void *b)
{
	const struct step_point *x = a, *y = b;
	double ox = x->offered_ops > 0 ? x->offered_ops : INFINITY;
	double oy = y->offered_ops > 0 ? y->offered_ops : INFINITY;

	if (ox != oy)
		return ox < oy ? -1 : 1;
	return x->step < y->step ? -1 : x->step > y->step;
}

struct step_point *curve_sorted(const struct step_point *pts, size_t n)
{
	struct step_point *s = xcalloc(n, sizeof(*s));

	if (n)
		memcpy(s, pts, n * sizeof(*s));
	qsort(s, n, sizeof(*s), curve_cmp);
	return s;
}

struct knee curve_knee(const struct campaign *c, const struct workload *w,
                       const struct step_point *sorted, size_t n)
{
	struct knee_point *kp = xcalloc(n, sizeof(*kp));
	struct knee k;

	for (size_t i = 0; i < n; i++) {
		kp[i].throughput = curve_throughput(w, &sorted[i]);
		/* Short of its rate, or nothing completed: not a point under the SLO. */
		kp[i].latency = sorted[i].ops == 0 || verdict_short(c, &sorted[i])
		                    ? INFINITY
		                    : step_metric(&sorted[i], c->slo_metric);
	}
	k = knee_find(kp, n, (double)c->slo_latency_ns);
	free(kp);
	return k;
}

const char *curve_knee_kind(const struct knee *k)
{
	switch (k->kind) {
	case KNEE_INTERPOLATED:
		return "interpolated";
	case KNEE_AT_STEP:
		return "measured";
	case KNEE_ALL_UNDER:
		return "above_peak";
	default:
		return "none";
	}
}

const struct step_point *curve_peak(const struct workload *w, const struct step_point *pts,
                                    size_t n)
{
	const struct step_point *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (best == NULL || curve_throughput(w, &pts[i]) > curve_throughput(w, best))
			best = &pts[i];
	return best;
}

void curve_limit(const struct campaign *c, const struct workload *w, const struct step_point *pts,
                 size_t n, char *buf, size_t len)
{
	const struct step_point *peak = curve_peak(w, pts, n);
	uint64_t errors = 0;
	char why[128];
	double cpu = 0, qd = 0;

	for (size_t i = 0; i < n; i++) {
		errors += pts[i].errors;
		if (pts[i].host_cpu_pct > cpu)
			cpu = pts[i].host_cpu_pct;
	}
	if (peak == NULL) {
		snprintf(buf, len, "not run");
		return;
	}
	qd = peak->qd_full_pct;
	/* The client measuring itself comes first: then nothing else in the row is the storage's.
	 */
	if (cpu >= CURVE_CLIENT_BUSY_PCT)
		snprintf(buf, len, "client CPU (an agent host %.0f%% busy)", cpu);
	else if (errors)
		snprintf(buf, len, "I/O errors (%llu)", (unsigned long long)errors);
	else if (verdict_saturated(c, &pts[n - 1], why, sizeof(why)))
		snprintf(buf, len, "storage saturated: %s", why);
	else if (qd >= CURVE_QD_FULL_PCT)
		snprintf(buf, len, "queue depth (%u per worker, full %.0f%% of the time at peak)",
		         w->queue_depth, qd);
	else if (step_metric(peak, c->slo_metric) > (double)c->slo_latency_ns)
		snprintf(buf, len, "SLO latency");
	else
		snprintf(buf, len, "none reached: raise the load");
}
