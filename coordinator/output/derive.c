/* SPDX-License-Identifier: MIT */
/* Derived results: curves (CSV, JSON, SVG), summaries (JSON, text, markdown), report.html. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "derive.h"
#include "plot.h"
#include "report.h"
#include "table.h"
#include "units.h"
#include "xalloc.h"

/* Write a file aside and rename it over the old one: readers never see half a file. */
typedef void (*derive_writer)(FILE *f, const void *arg);

static int derive_file(const char *dir, const char *name, derive_writer fn, const void *arg,
                       struct error *err)
{
	char *path = xasprintf("%s/%s", dir, name), *tmp = xasprintf("%s/.%s.tmp", dir, name);
	FILE *f = fopen(tmp, "w");
	int rc = -1;

	if (f == NULL) {
		error_set(err, "%s: cannot create: %s", tmp, strerror(errno));
		goto out;
	}
	fn(f, arg);
	if (fflush(f) != 0 || fsync(fileno(f)) != 0) {
		error_set(err, "%s: cannot write: %s", tmp, strerror(errno));
		fclose(f);
		goto out;
	}
	fclose(f);
	if (rename(tmp, path) < 0) {
		error_set(err, "%s: cannot replace: %s", path, strerror(errno));
		goto out;
	}
	rc = 0;
out:
	free(path);
	free(tmp);
	return rc;
}

struct derive_ctx {
	const struct campaign *c;
	const struct step_point *const *pts;
	const size_t *npts;
	size_t w; /* the workload a per-workload writer is for */
};

/* JSON string: our names are plain, but limit texts and plans need escaping. */
static void derive_json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			fprintf(f, "\\%c", ch);
		else if (ch < 0x20)
			fprintf(f, "\\u%04x", ch);
		else
			fputc(ch, f);
	}
	fputc('"', f);
}

static void derive_curve_csv(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;
	struct step_point *s = table_sorted(x->pts[x->w], x->npts[x->w]);

	fprintf(f, "step,offered_ops,achieved_ops,achieved_mibps,mean_us,p50_us,p90_us,p99_us,"
	           "p999_us,max_us,steady,errors,agents\n");
	for (size_t i = 0; i < x->npts[x->w]; i++) {
		const struct step_point *p = &s[i];

		fprintf(f, "%u,%.1f,%.1f,%.3f,%.1f,%.1f,%.1f,%.1f,%.1f,%.1f,%s,%llu,%u\n",
		        p->step + 1, p->offered_ops, p->achieved_ops, p->mib_s, p->mean_ns / 1e3,
		        (double)p->p50_ns / 1e3, (double)p->p90_ns / 1e3, (double)p->p99_ns / 1e3,
		        (double)p->p999_ns / 1e3, (double)p->max_ns / 1e3,
		        p->steady ? "true" : "false", (unsigned long long)p->errors, p->nagents);
	}
	free(s);
}

/* The knee in both units: ops/s and MiB/s, whichever the workload is judged in. */
static void derive_knee_units(const struct workload *w, const struct knee *k, double *ops,
                              double *mibps)
{
	double per_op = (double)w->block_size / (1024.0 * 1024.0);

	if (table_uses_mib(w)) {
		*mibps = k->throughput;
		*ops = k->throughput / per_op;
	} else {
		*ops = k->throughput;
		*mibps = k->throughput * per_op;
	}
}

static void derive_curve_json(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;
	const struct workload *w = &x->c->workloads[x->w];
	size_t n = x->npts[x->w];
	struct step_point *s = table_sorted(x->pts[x->w], n);
	struct knee k = table_knee(x->c, w, s, n);
	double kops, kmib;

	derive_knee_units(w, &k, &kops, &kmib);
	fprintf(f, "{\"workload\":");
	derive_json_str(f, w->name);
	fprintf(f,
	        ",\"rw\":\"%s\",\"block_size\":%u,\"unit\":\"%s\",\"slo_us\":%.1f,"
	        "\"metric\":\"%s\",\"knee_kind\":\"%s\",\"knee_ops\":%.1f,\"knee_mibps\":%.3f,"
	        "\"steps\":[",
	        rw_mode_name(w->rw), w->block_size, table_uses_mib(w) ? "MiB/s" : "ops/s",
	        (double)x->c->slo_latency_ns / 1e3, campaign_slo_metric_name(x->c->slo_metric),
	        table_knee_kind(&k), kops, kmib);
	for (size_t i = 0; i < n; i++) {
		const struct step_point *p = &s[i];

		fprintf(f,
		        "%s{\"step\":%u,\"offered_ops\":%.1f,\"achieved_ops\":%.1f,"
		        "\"achieved_mibps\":%.3f,\"mean_us\":%.1f,\"p50_us\":%.1f,\"p90_us\":%.1f,"
		        "\"p99_us\":%.1f,\"p999_us\":%.1f,\"max_us\":%.1f,\"steady\":%s,"
		        "\"errors\":%llu,\"agents\":%u,\"client_cpu_pct\":%.1f,"
		        "\"qd_full_pct\":%.1f,\"missed\":%llu}",
		        i ? "," : "", p->step + 1, p->offered_ops, p->achieved_ops, p->mib_s,
		        p->mean_ns / 1e3, (double)p->p50_ns / 1e3, (double)p->p90_ns / 1e3,
		        (double)p->p99_ns / 1e3, (double)p->p999_ns / 1e3, (double)p->max_ns / 1e3,
		        p->steady ? "true" : "false", (unsigned long long)p->errors, p->nagents,
		        p->host_cpu_pct, p->qd_full_pct, (unsigned long long)p->missed);
	}
	fprintf(f, "]}\n");
	free(s);
}

static void derive_curve_svg(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;
	const struct workload *w = &x->c->workloads[x->w];
	size_t n = x->npts[x->w];
	struct step_point *s = table_sorted(x->pts[x->w], n);
	struct knee k = table_knee(x->c, w, s, n);
	struct plot_series ser = {.label = NULL, .pts = s, .n = n, .knee = &k};

	plot_curve_svg(f, w, &ser, 1, x->c->slo_metric, x->c->slo_latency_ns);
	free(s);
}

static void derive_summary_json(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;
	const struct campaign *c = x->c;

	fprintf(f, "{\"campaign\":");
	derive_json_str(f, c->name);
	fprintf(f, ",\"slo_us\":%.1f,\"metric\":\"%s\",\"workloads\":[",
	        (double)c->slo_latency_ns / 1e3, campaign_slo_metric_name(c->slo_metric));
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct workload *w = &c->workloads[i];
		size_t n = x->npts[i];
		struct step_point *s = table_sorted(x->pts[i], n);
		struct knee k = table_knee(c, w, s, n);
		const struct step_point *peak = table_peak(w, s, n);
		char limit[160];
		double kops, kmib;

		derive_knee_units(w, &k, &kops, &kmib);
		table_limit(c, w, s, n, limit, sizeof(limit));
		fprintf(f, "%s{\"name\":", i ? "," : "");
		derive_json_str(f, w->name);
		fprintf(
		    f,
		    ",\"rw\":\"%s\",\"block_size\":%u,\"direct\":%s,\"steps\":%zu,"
		    "\"knee_ops\":%.1f,\"knee_mibps\":%.3f,\"knee_kind\":\"%s\","
		    "\"peak_ops\":%.1f,\"peak_mibps\":%.3f,\"latency_at_peak_us\":%.1f,\"limit\":",
		    rw_mode_name(w->rw), w->block_size, w->access.direct ? "true" : "false", n,
		    kops, kmib, table_knee_kind(&k), peak ? peak->achieved_ops : 0,
		    peak ? peak->mib_s : 0, peak ? step_metric(peak, c->slo_metric) / 1e3 : 0);
		derive_json_str(f, limit);
		fputc('}', f);
		free(s);
	}
	fprintf(f, "]}\n");
}

static void derive_summary_txt(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;

	table_print_summary(f, x->c, x->pts, x->npts);
}

static void derive_summary_md(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;
	const struct campaign *c = x->c;
	char knee[320], dist[48];

	fprintf(f, "# %s\n\n", c->name);
	table_print_summary(f, c, x->pts, x->npts);
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct workload *w = &c->workloads[i];

		access_dist_text(&w->access, dist, sizeof(dist));
		fprintf(f, "\n## %s (%s, %u B blocks, %u workers x qd %u per agent, %s, %s%s)\n\n",
		        w->name, rw_mode_name(w->rw), w->block_size, w->workers, w->queue_depth,
		        rw_is_random(w->rw) ? dist : "sequential",
		        w->access.direct ? "O_DIRECT" : "buffered",
		        w->access.poisson ? ", poisson arrivals" : "");
		table_knee_text(c, w, x->pts[i], x->npts[i], knee, sizeof(knee));
		fprintf(f, "%s\n\n", knee);
		table_print_steps(f, w, x->pts[i], x->npts[i]);
	}
}

static void derive_report(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;

	report_html(f, x->c, x->pts, x->npts);
}

int derive_all(const char *dir, const struct campaign *c, const struct step_point *const *pts,
               const size_t *npts, struct error *err)
{
	struct derive_ctx x = {.c = c, .pts = pts, .npts = npts};
	char name[256];

	for (x.w = 0; x.w < c->nworkloads; x.w++) {
		const char *wn = c->workloads[x.w].name;

		if (npts[x.w] == 0)
			continue;
		snprintf(name, sizeof(name), "curve-%s.csv", wn);
		if (derive_file(dir, name, derive_curve_csv, &x, err) < 0)
			return -1;
		snprintf(name, sizeof(name), "curve-%s.json", wn);
		if (derive_file(dir, name, derive_curve_json, &x, err) < 0)
			return -1;
		snprintf(name, sizeof(name), "curve-%s.svg", wn);
		if (derive_file(dir, name, derive_curve_svg, &x, err) < 0)
			return -1;
	}
	if (derive_file(dir, "summary.json", derive_summary_json, &x, err) < 0 ||
	    derive_file(dir, "summary.txt", derive_summary_txt, &x, err) < 0 ||
	    derive_file(dir, "summary.md", derive_summary_md, &x, err) < 0 ||
	    derive_file(dir, "report.html", derive_report, &x, err) < 0)
		return -1;
	return 0;
}
