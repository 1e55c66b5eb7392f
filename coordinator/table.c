/* SPDX-License-Identifier: MIT */
/* Human-readable tables of a workload's curve and its knee. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "table.h"

/* An agent host this busy is the bottleneck, or near enough to distort latency. */
#define TABLE_CLIENT_BUSY_PCT 90.0
#include "units.h"
#include "xalloc.h"

bool table_uses_mib(const struct workload *w)
{
	return !rw_is_random(w->rw);
}

static double table_throughput(const struct workload *w, const struct step_point *p)
{
	return table_uses_mib(w) ? p->mib_s : p->achieved_ops;
}

struct knee table_knee(const struct workload *w, const struct step_point *pts, size_t n,
                       uint64_t slo_ns)
{
	struct knee_point *kp = xcalloc(n, sizeof(*kp));
	struct knee k;

	for (size_t i = 0; i < n; i++) {
		kp[i].throughput = table_throughput(w, &pts[i]);
		/* A step that completed nothing has no latency to speak of: call it infinite. */
		kp[i].latency = pts[i].ops ? pts[i].mean_ns : INFINITY;
	}
	k = knee_find(kp, n, (double)slo_ns);
	free(kp);
	return k;
}

static void table_fmt_tp(const struct workload *w, double v, char *buf, size_t len)
{
	if (table_uses_mib(w))
		snprintf(buf, len, "%.1f MiB/s", v);
	else
		snprintf(buf, len, "%.0f ops/s", v);
}

void table_knee_text(const struct workload *w, const struct step_point *pts, size_t n,
                     uint64_t slo_ns, char *buf, size_t len)
{
	struct knee k = table_knee(w, pts, n, slo_ns);
	char slo[32], tp[48];

	units_format_duration(slo_ns, slo, sizeof(slo));
	table_fmt_tp(w, k.throughput, tp, sizeof(tp));
	switch (k.kind) {
	case KNEE_INTERPOLATED:
		snprintf(buf, len, "Performance @ %s: %s (interpolated between steps %zu and %zu)",
		         slo, tp, k.below + 1, k.above + 1);
		break;
	case KNEE_AT_STEP:
		snprintf(buf, len, "Performance @ %s: %s (at step %zu)", slo, tp, k.below + 1);
		break;
	case KNEE_ALL_UNDER:
		snprintf(buf, len,
		         "Performance @ %s: at least %s (every step met the SLO: no knee found; "
		         "raise the load to find it)",
		         slo, tp);
		break;
	case KNEE_ALL_OVER:
		snprintf(buf, len,
		         "Performance @ %s: none (no step met the SLO; lower the first steps)",
		         slo);
		break;
	default:
		snprintf(buf, len, "Performance @ %s: no measured steps", slo);
		break;
	}
}

void table_print_steps(FILE *f, const struct workload *w, const struct step_point *pts, size_t n)
{
	char mean[16], p50[16], p99[16], p999[16], max[16];

	fprintf(f, "| Step | Offered ops/s | Achieved ops/s | MiB/s | Mean | p50 | p99 | p99.9 | "
	           "Max | Errors | Client CPU |\n");
	fprintf(f, "|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (size_t i = 0; i < n; i++) {
		const struct step_point *p = &pts[i];
		char offered[32];

		units_format_duration((uint64_t)p->mean_ns, mean, sizeof(mean));
		units_format_duration(p->p50_ns, p50, sizeof(p50));
		units_format_duration(p->p99_ns, p99, sizeof(p99));
		units_format_duration(p->p999_ns, p999, sizeof(p999));
		units_format_duration(p->max_ns, max, sizeof(max));
		if (p->offered_ops > 0)
			snprintf(offered, sizeof(offered), "%.0f", p->offered_ops);
		else
			snprintf(offered, sizeof(offered), "max (qd %u)", w->queue_depth);
		fprintf(f, "| %u | %s | %.0f | %.1f | %s | %s | %s | %s | %s | %llu | %.0f%% |\n",
		        p->step + 1, offered, p->achieved_ops, p->mib_s, mean, p50, p99, p999, max,
		        (unsigned long long)p->errors, p->host_cpu_pct);
	}
}

/* A short, honest reason for where the curve stopped. */
static void table_limit(const struct workload *w, const struct step_point *pts, size_t n,
                        const struct step_point *peak, const struct knee *k, char *buf, size_t len)
{
	uint64_t errors = 0;

	for (size_t i = 0; i < n; i++)
		errors += pts[i].errors;
	/* A busy client measures itself, not the storage: say so before anything else. */
	if (peak->host_cpu_pct >= TABLE_CLIENT_BUSY_PCT)
		snprintf(buf, len, "client CPU saturated (agent host %.0f%% busy at peak)",
		         peak->host_cpu_pct);
	else if (errors)
		snprintf(buf, len, "I/O errors (%llu)", (unsigned long long)errors);
	else if (peak->offered_ops == 0)
		snprintf(buf, len, "closed loop at queue depth %u", w->queue_depth);
	else if (peak->achieved_ops < 0.97 * peak->offered_ops)
		snprintf(buf, len, "saturated: achieved %.0f%% of offered at peak",
		         100.0 * peak->achieved_ops / peak->offered_ops);
	else if (k->kind == KNEE_ALL_UNDER)
		snprintf(buf, len, "none reached: highest step met the SLO");
	else
		snprintf(buf, len, "latency above the SLO past the knee");
}

void table_print_summary(FILE *f, const struct campaign *c, const struct step_point *const *pts,
                         const size_t *npts)
{
	char slo[32], knee[48], peak[48], lat[16], limit[96];

	units_format_duration(c->slo_latency_ns, slo, sizeof(slo));
	fprintf(f, "| Workload | Performance @ %s | Peak | Latency at peak | Limiting factor |\n",
	        slo);
	fprintf(f, "|---|---:|---:|---:|---|\n");
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct workload *w = &c->workloads[i];
		const struct step_point *best = NULL;
		struct knee k;

		if (npts[i] == 0) {
			fprintf(f, "| %s | not run | | | |\n", w->name);
			continue;
		}
		for (size_t j = 0; j < npts[i]; j++)
			if (best == NULL ||
			    table_throughput(w, &pts[i][j]) > table_throughput(w, best))
				best = &pts[i][j];
		k = table_knee(w, pts[i], npts[i], c->slo_latency_ns);
		if (k.kind == KNEE_ALL_OVER || k.kind == KNEE_NONE)
			snprintf(knee, sizeof(knee), "none");
		else
			table_fmt_tp(w, k.throughput, knee, sizeof(knee));
		if (k.kind == KNEE_ALL_UNDER)
			snprintf(knee + strlen(knee), sizeof(knee) - strlen(knee), " (or more)");
		table_fmt_tp(w, table_throughput(w, best), peak, sizeof(peak));
		units_format_duration((uint64_t)best->mean_ns, lat, sizeof(lat));
		table_limit(w, pts[i], npts[i], best, &k, limit, sizeof(limit));
		/* Page-cache numbers are not the storage's: say so where the figure stands. */
		fprintf(f, "| %s%s | %s | %s | %s mean | %s |\n", w->name,
		        w->access.direct ? "" : " (buffered)", knee, peak, lat, limit);
	}
}
