/* SPDX-License-Identifier: MIT */
/* A workload's curve in words and tables: the knee sentence, the step and summary tables. */
#include <stdio.h>
#include <stdlib.h>

#include "table.h"
#include "units.h"

static void table_fmt_tp(const struct workload *w, double v, char *buf, size_t len)
{
	if (curve_uses_mib(w))
		snprintf(buf, len, "%.1f MiB/s", v);
	else
		snprintf(buf, len, "%.0f ops/s", v);
}

void table_knee_text(const struct campaign *c, const struct workload *w,
                     const struct step_point *pts, size_t n, char *buf, size_t len)
{
	struct step_point *s = curve_sorted(pts, n);
	struct knee k = curve_knee(c, w, s, n);
	const struct step_point *peak = curve_peak(w, s, n);
	char slo[32], tp[48], pk[48];

	units_format_duration(c->slo_latency_ns, slo, sizeof(slo));
	table_fmt_tp(w, k.throughput, tp, sizeof(tp));
	table_fmt_tp(w, peak ? curve_throughput(w, peak) : 0, pk, sizeof(pk));
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

void table_print_steps(FILE *f, const struct workload *w, const struct step_point *pts, size_t n)
{
	struct step_point *s = curve_sorted(pts, n);
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
		s = curve_sorted(pts[i], npts[i]);
		k = curve_knee(c, w, s, npts[i]);
		best = curve_peak(w, s, npts[i]);
		if (k.kind == KNEE_ALL_OVER || k.kind == KNEE_NONE)
			snprintf(knee, sizeof(knee), "none");
		else if (k.kind == KNEE_ALL_UNDER)
			snprintf(knee, sizeof(knee), "> %.*f %s", curve_uses_mib(w) ? 1 : 0,
			         k.throughput, curve_uses_mib(w) ? "MiB/s" : "ops/s");
		else
			table_fmt_tp(w, k.throughput, knee, sizeof(knee));
		table_fmt_tp(w, curve_throughput(w, best), peak, sizeof(peak));
		units_format_duration((uint64_t)step_metric(best, c->slo_metric), lat, sizeof(lat));
		curve_limit(c, w, s, npts[i], limit, sizeof(limit));
		/* Page-cache numbers are not the storage's: say so where the figure stands. */
		fprintf(f, "| %s%s | %s | %s | %s %s | %s |\n", w->name,
		        w->access.direct ? "" : " (buffered)", knee, peak, lat,
		        campaign_slo_metric_name(c->slo_metric), limit);
		free(s);
	}
}
