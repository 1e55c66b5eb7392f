/* SPDX-License-Identifier: MIT */
/* A workload's curve in words and tables: knee, peak, limiting factor, step table. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "verdict.h"
#include "table.h"
#include "units.h"
#include "xalloc.h"

/* An agent host this busy is the bottleneck, or near enough to distort latency. */
#define TABLE_CLIENT_BUSY_PCT 90.0
/* Queues full this much of the time: the client's queue depth set the pace. */
#define TABLE_QD_FULL_PCT 50.0

bool table_uses_mib(const struct workload *w)
{
	return !rw_is_random(w->rw);
}

double table_throughput(const struct workload *w, const struct step_point *p)
{
	return table_uses_mib(w) ? p->mib_s : p->achieved_ops;
}

static int table_cmp(const void *a, const void *b)
{
	const struct step_point *x = a, *y = b;
	double ox = x->offered_ops > 0 ? x->offered_ops : INFINITY;
	double oy = y->offered_ops > 0 ? y->offered_ops : INFINITY;

	if (ox != oy)
		return ox < oy ? -1 : 1;
	return x->step < y->step ? -1 : x->step > y->step;
}

struct step_point *table_sorted(const struct step_point *pts, size_t n)
{
	struct step_point *s = xcalloc(n, sizeof(*s));

	if (n)
		memcpy(s, pts, n * sizeof(*s));
	qsort(s, n, sizeof(*s), table_cmp);
	return s;
}

struct knee table_knee(const struct campaign *c, const struct workload *w,
                       const struct step_point *sorted, size_t n)
{
	struct knee_point *kp = xcalloc(n, sizeof(*kp));
	struct knee k;

	for (size_t i = 0; i < n; i++) {
		kp[i].throughput = table_throughput(w, &sorted[i]);
		/* Short of its rate, or nothing completed: not a point under the SLO. */
		kp[i].latency = sorted[i].ops == 0 || verdict_short(c, &sorted[i])
		                    ? INFINITY
		                    : step_metric(&sorted[i], c->slo_metric);
	}
	k = knee_find(kp, n, (double)c->slo_latency_ns);
	free(kp);
	return k;
}

const char *table_knee_kind(const struct knee *k)
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

const struct step_point *table_peak(const struct workload *w, const struct step_point *pts,
                                    size_t n)
{
	const struct step_point *best = NULL;

	for (size_t i = 0; i < n; i++)
		if (best == NULL || table_throughput(w, &pts[i]) > table_throughput(w, best))
			best = &pts[i];
	return best;
}

static void table_fmt_tp(const struct workload *w, double v, char *buf, size_t len)
{
	if (table_uses_mib(w))
		snprintf(buf, len, "%.1f MiB/s", v);
	else
		snprintf(buf, len, "%.0f ops/s", v);
}

void table_knee_text(const struct campaign *c, const struct workload *w,
                     const struct step_point *pts, size_t n, char *buf, size_t len)
{
	struct step_point *s = table_sorted(pts, n);
	struct knee k = table_knee(c, w, s, n);
	const struct step_point *peak = table_peak(w, s, n);
	char slo[32], tp[48], pk[48];

	units_format_duration(c->slo_latency_ns, slo, sizeof(slo));
	table_fmt_tp(w, k.throughput, tp, sizeof(tp));
	table_fmt_tp(w, peak ? table_throughput(w, peak) : 0, pk, sizeof(pk));
	switch (k.kind) {
	case KNEE_INTERPOLATED:
		snprintf(
		    buf, len,
		    "Performance @ %s (%s): %s (interpolated between steps %u and %u; peak %s)",
		    slo, campaign_slo_metric_name(c->slo_metric), tp, s[k.below].step + 1,
		    s[k.above].step + 1, pk);
		break;
	case KNEE_AT_STEP:
		snprintf(buf, len, "Performance @ %s (%s): %s (measured at step %u; peak %s)", slo,
		         campaign_slo_metric_name(c->slo_metric), tp, s[k.below].step + 1, pk);
		break;
	case KNEE_ALL_UNDER:
		snprintf(buf, len,
		         "Performance @ %s (%s): > %s: every step met the SLO, the knee lies above "
		         "the peak (%s); raise the load to find it",
		         slo, campaign_slo_metric_name(c->slo_metric), tp, pk);
		break;
	case KNEE_ALL_OVER:
		snprintf(buf, len,
		         "Performance @ %s (%s): none: the first step already exceeds the SLO "
		         "(peak %s); start lower",
		         slo, campaign_slo_metric_name(c->slo_metric), pk);
		break;
	default:
		snprintf(buf, len, "Performance @ %s: no measured steps", slo);
		break;
	}
	free(s);
}

void table_limit(const struct campaign *c, const struct workload *w, const struct step_point *pts,
                 size_t n, char *buf, size_t len)
{
	const struct step_point *peak = table_peak(w, pts, n);
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
	if (cpu >= TABLE_CLIENT_BUSY_PCT)
		snprintf(buf, len, "client CPU (an agent host %.0f%% busy)", cpu);
	else if (errors)
		snprintf(buf, len, "I/O errors (%llu)", (unsigned long long)errors);
	else if (verdict_saturated(c, &pts[n - 1], why, sizeof(why)))
		snprintf(buf, len, "storage saturated: %s", why);
	else if (qd >= TABLE_QD_FULL_PCT)
		snprintf(buf, len, "queue depth (%u per worker, full %.0f%% of the time at peak)",
		         w->queue_depth, qd);
	else if (step_metric(peak, c->slo_metric) > (double)c->slo_latency_ns)
		snprintf(buf, len, "SLO latency");
	else
		snprintf(buf, len, "none reached: raise the load");
}

void table_print_steps(FILE *f, const struct workload *w, const struct step_point *pts, size_t n)
{
	struct step_point *s = table_sorted(pts, n);
	char mean[16], p50[16], p99[16], p999[16], max[16], offered[32];

	fprintf(f, "| Step | Offered ops/s | Achieved ops/s | MiB/s | Mean | p50 | p99 | p99.9 | "
	           "Max | Steady | Errors | Client CPU |\n");
	fprintf(f, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|:---:|---:|---:|\n");
	for (size_t i = 0; i < n; i++) {
		const struct step_point *p = &s[i];

		units_format_duration((uint64_t)p->mean_ns, mean, sizeof(mean));
		units_format_duration(p->p50_ns, p50, sizeof(p50));
		units_format_duration(p->p99_ns, p99, sizeof(p99));
		units_format_duration(p->p999_ns, p999, sizeof(p999));
		units_format_duration(p->max_ns, max, sizeof(max));
		if (p->offered_ops > 0)
			snprintf(offered, sizeof(offered), "%.0f", p->offered_ops);
		else
			snprintf(offered, sizeof(offered), "max (qd %u)", w->queue_depth);
		fprintf(f,
		        "| %u | %s | %.0f | %.1f | %s | %s | %s | %s | %s | %s | %llu | %.0f%% |\n",
		        p->step + 1, offered, p->achieved_ops, p->mib_s, mean, p50, p99, p999, max,
		        p->steady ? "yes" : "NO", (unsigned long long)p->errors, p->host_cpu_pct);
	}
	free(s);
}

void table_print_summary(FILE *f, const struct campaign *c, const struct step_point *const *pts,
                         const size_t *npts)
{
	char slo[32], knee[48], peak[48], lat[16], limit[160];

	units_format_duration(c->slo_latency_ns, slo, sizeof(slo));
	fprintf(f, "| Workload | Performance @ %s | Peak | Latency at peak | Limiting factor |\n",
	        slo);
	fprintf(f, "|---|---:|---:|---:|---|\n");
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct workload *w = &c->workloads[i];
		const struct step_point *best;
		struct step_point *s;
		struct knee k;

		if (npts[i] == 0) {
			fprintf(f, "| %s | not run | | | |\n", w->name);
			continue;
		}
		s = table_sorted(pts[i], npts[i]);
		k = table_knee(c, w, s, npts[i]);
		best = table_peak(w, s, npts[i]);
		if (k.kind == KNEE_ALL_OVER || k.kind == KNEE_NONE)
			snprintf(knee, sizeof(knee), "none");
		else if (k.kind == KNEE_ALL_UNDER)
			snprintf(knee, sizeof(knee), "> %.*f %s", table_uses_mib(w) ? 1 : 0,
			         k.throughput, table_uses_mib(w) ? "MiB/s" : "ops/s");
		else
			table_fmt_tp(w, k.throughput, knee, sizeof(knee));
		table_fmt_tp(w, table_throughput(w, best), peak, sizeof(peak));
		units_format_duration((uint64_t)step_metric(best, c->slo_metric), lat, sizeof(lat));
		table_limit(c, w, s, npts[i], limit, sizeof(limit));
		/* Page-cache numbers are not the storage's: say so where the figure stands. */
		fprintf(f, "| %s%s | %s | %s | %s %s | %s |\n", w->name,
		        w->access.direct ? "" : " (buffered)", knee, peak, lat,
		        campaign_slo_metric_name(c->slo_metric), limit);
		free(s);
	}
}
