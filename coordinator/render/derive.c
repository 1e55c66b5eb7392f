/* SPDX-License-Identifier: MIT */
/* Derived results: curves (CSV, JSON, SVG), summaries (JSON, text, markdown), report.html. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "derive.h"
#include "stepjson.h"
#include "glance.h"
#include "text.h"
#include "timeplot.h"
#include "between.h"
#include "bytarget.h"
#include "kinds.h"
#include "mixparts.h"
#include "plot.h"
#include "pointfields.h"
#include "observed.h"
#include "report.h"
#include "safefile.h"
#include "table.h"
#include "units.h"
#include "workjson.h"
#include "verdict.h"
#include "xalloc.h"

struct derive_ctx {
	const struct campaign *c;
	const struct step_point *const *pts;
	const size_t *npts;
	const struct judged_curve *judged; /* per workload */
	size_t w;                          /* the workload a per-workload writer is for */
	const struct runend *end;
};

/*
 * summary.json and curve-*.json: indented, keys in the order built. Reals are
 * rounded to the decimals they mean (stepjson_num) and printed with 15
 * significant digits, which shows a value so rounded as it reads: 0.3, not
 * 0.30000000000000004.
 */
#define DERIVE_JSON_FLAGS (JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(15))
/* summary.txt's widest line: its prose wraps, its table rows are one figure a cell */
#define DERIVE_TXT_WIDTH 120

static void derive_json(FILE *f, json_t *root)
{
	json_dumpf(stepjson_need(root), f, DERIVE_JSON_FLAGS);
	fputc('\n', f);
	json_decref(root);
}

/* A mix's parts, last in curve-*.csv: NAME_ops, NAME_mibps, NAME_mean_us, NAME_p50_us... */
static void derive_parts_csv_header(FILE *f, const struct mix *m)
{
	for (uint32_t i = 0; i < m->nparts; i++) {
		const char *n = m->parts[i].name;

		fprintf(f, ",%s_ops,%s_mibps,%s_mean_us,%s_p50_us,%s_p90_us,%s_p99_us,%s_p999_us",
		        n, n, n, n, n, n, n);
	}
}

static void derive_parts_csv_row(FILE *f, const struct mix *m, const struct step_point *p)
{
	for (uint32_t i = 0; i < m->nparts; i++) {
		const struct point_part *pp = &p->parts[i];

		if (i >= p->nparts) {
			fputs(",,,,,,,", f); /* not measured (an agent without parts) */
			continue;
		}
		fprintf(f, ",%.1f,%.3f,%.1f,%.1f,%.1f,%.1f,%.1f", pp->ops_s, pp->mib_s,
		        pp->mean_ns / 1e3, (double)pp->p50_ns / 1e3, (double)pp->p90_ns / 1e3,
		        (double)pp->p99_ns / 1e3, (double)pp->p999_ns / 1e3);
	}
}

static void derive_curve_csv(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;
	const struct judged_curve *j = &x->judged[x->w];

	unsigned show = pfield_show_of(j->w) | pfield_show_campaign(j->c);

	pfield_csv_header(f, PF_CSV, show);
	if (show & PF_SHOW_PARTS)
		derive_parts_csv_header(f, &j->w->io.mix);
	fputc('\n', f);
	for (size_t i = 0; i < j->n; i++) {
		pfield_csv_row(f, PF_CSV, show, &j->sorted[i], &j->v[i]);
		if (show & PF_SHOW_PARTS)
			derive_parts_csv_row(f, &j->w->io.mix, &j->sorted[i]);
		fputc('\n', f);
	}
}

/* A step of curve-*.json (jp: its verdict): the fields the table gives it, in its order. */
static json_t *derive_step_json(const struct derive_ctx *x, const struct step_point *p,
                                const struct judged_point *jp)
{
	const struct workload *w = &x->c->workloads[x->w];
	json_t *obs, *late;
	const struct pfield *list[PFIELD_MAX];
	size_t n = pfield_list_kinds(PF_JSON, pfield_show_point(p), list);
	json_t *o = stepjson_need(json_object());

	for (size_t i = 0; i < n; i++) {
		json_t *v = stepjson_field(list[i], p, jp);

		if (v != NULL)
			json_object_set_new(o, pfield_key(list[i]), v);
	}
	json_object_set_new(o, "kernel", stepjson_kernel(p));
	/* a mixed workload's: each kind at the campaign's percentiles */
	if (p->mixed) {
		json_object_set_new(o, "read_percentiles_us",
		                    stepjson_kind_pcts(p, p->kinds.read_pct_ns));
		json_object_set_new(o, "write_percentiles_us",
		                    stepjson_kind_pcts(p, p->kinds.write_pct_ns));
	}
	/* a mix's parts (PF_SHOW_PARTS, the workload's: every step has the member) */
	if (pfield_show_of(w) & PF_SHOW_PARTS)
		json_object_set_new(o, "parts", stepjson_parts(&w->io.mix, p));
	/* the storage's own figures over the step's window (observed.h), SOURCE/SERIES */
	if ((obs = observed_step_json(x->end, x->c, w, p->step)) != NULL)
		json_object_set_new(o, "observed", obs);
	if ((late = observed_late_json(x->end, x->c, w, p->step)) != NULL)
		json_object_set_new(o, "observed_late", late);
	return o;
}

static void derive_curve_json(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;
	const struct judged_curve *j = &x->judged[x->w];
	const struct workload *w = j->w;
	json_t *steps = stepjson_need(json_array()), *root;
	double kops, kmib;

	workjson_knee_units(w, &j->knee, &kops, &kmib);
	for (size_t i = 0; i < j->n; i++)
		json_array_append_new(steps, derive_step_json(x, &j->sorted[i], &j->v[i]));
	root = json_pack("{s:s,s:s,s:I,s:s,s:o,s:s,s:s,s:o,s:o,s:o}", "workload", w->name, "rw",
	                 rw_mode_name(w->io.rw), "block_size", (json_int_t)w->io.block_size, "unit",
	                 curve_uses_mib(w) ? "MiB/s" : "ops/s", "slo_us",
	                 stepjson_us((double)x->c->slo_latency_ns), "metric",
	                 campaign_slo_metric_name(x->c->slo_metric), "knee_kind", j->kind,
	                 "knee_ops", stepjson_num(kops, 10), "knee_mibps", stepjson_num(kmib, 1000),
	                 "steps", steps);
	/* slo.part: the part of this mix whose latency the knee was judged on */
	if (root != NULL && x->c->slo_part[0] != '\0' && w->io.mix.nparts > 0)
		json_object_set_new(root, "slo_part", json_string(x->c->slo_part));
	derive_json(f, root);
}

static void derive_curve_svg(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;
	const struct judged_curve *j = &x->judged[x->w];
	struct plot_series ser = {
	    .label = NULL, .pts = j->sorted, .n = j->n, .knee = &j->knee, .companions = true};

	plot_curve_svg(f, j->w, &ser, 1, x->c->slo_metric, x->c->slo_latency_ns);
}

/* The workload over time with its marks, as report.html shows it (timeplot.h). */
static void derive_time_svg(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;

	timeplot_svg(f, &x->c->workloads[x->w], x->pts[x->w], x->npts[x->w], x->c->slo_latency_ns,
	             x->end ? x->end->marks : NULL, x->end ? x->end->nmarks : 0);
}

static json_t *derive_between_knee(const struct between_knee *k)
{
	if (k->bound < 0)
		return json_null();
	return json_pack(
	    "{s:o,s:b,s:o}", "knee", stepjson_num(k->knee, 10), "lower_bound", k->bound > 0, "band",
	    k->band ? json_pack("[o,o]", stepjson_num(k->lo, 10), stepjson_num(k->hi, 10))
	            : json_null());
}

/*
 * Between runs (between.h): per workload this run's knee, the earlier runs' and
 * whether each band overlaps this run's (null: unknown); null without earlier runs.
 */
static json_t *derive_between_json(const struct derive_ctx *x)
{
	const struct between *b = x->end ? x->end->between : NULL;
	const struct campaign *c = x->c;
	json_t *runs, *ws;

	if (b == NULL)
		return json_null();
	runs = stepjson_need(json_array());
	for (size_t i = 0; i < b->nruns; i++)
		json_array_append_new(runs, json_pack("{s:s,s:s}", "dir", b->runs[i].name,
		                                      "started", b->runs[i].started));
	ws = stepjson_need(json_object());
	for (size_t w = 0; w < c->nworkloads; w++) {
		struct between_knee self = between_this(&x->judged[w]);
		json_t *earlier = stepjson_need(json_array()),
		       *overlap = stepjson_need(json_array());
		double spread = between_spread(b, w, &self);

		for (size_t i = 0; i < b->nruns; i++) {
			int o = between_overlap(&self, &b->runs[i].k[w]);

			json_array_append_new(earlier, derive_between_knee(&b->runs[i].k[w]));
			json_array_append_new(overlap, o < 0 ? json_null() : json_boolean(o));
		}
		json_object_set_new(
		    ws, c->workloads[w].name,
		    json_pack("{s:o,s:o,s:o,s:o}", "this", derive_between_knee(&self), "earlier",
		              earlier, "overlap", overlap, "spread_pct",
		              isfinite(spread) ? stepjson_num(100 * spread, 10) : json_null()));
	}
	return json_pack("{s:o,s:I,s:o}", "runs", runs, "skipped", (json_int_t)b->skipped,
	                 "workloads", ws);
}

static void derive_summary_json(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;
	const struct campaign *c = x->c;
	json_t *ws = stepjson_need(json_array());

	json_t *lost = stepjson_need(json_array()), *by, *root;
	uint32_t nl = x->end ? x->end->nlosses : 0;

	for (size_t i = 0; i < c->nworkloads; i++)
		json_array_append_new(ws, workjson_workload(&x->judged[i], x->end));
	/* The agents lost on the way: when, which and why (steps and intervals from 1). */
	for (uint32_t i = 0; i < nl && i < RUNEND_MAX_LOSSES; i++) {
		const struct runend_loss *l = &x->end->losses[i];

		json_array_append_new(
		    lost, stepjson_need(json_pack(
		              "{s:s,s:s,s:I,s:o,s:s}", "agent", l->agent, "workload", l->workload,
		              "step", (json_int_t)l->step + 1, "interval",
		              l->interval == UINT32_MAX ? json_null()
		                                        : json_integer((json_int_t)l->interval + 1),
		              "reason", l->reason)));
	}
	/* by_target: the side-by-side table of several targets, from the workloads' figures */
	by = bytarget_json(c, ws);
	root = stepjson_need(json_pack(
	    "{s:i,s:s,s:s,s:s,s:I,s:o,s:o,s:s,s:O,s:o}", "format", DERIVE_SUMMARY_FORMAT,
	    "campaign", c->name, "status", x->end && x->end->state[0] ? x->end->state : "complete",
	    "status_reason", x->end ? x->end->reason : "", "agents_lost", (json_int_t)nl,
	    "degraded", lost, "slo_us", stepjson_us((double)c->slo_latency_ns), "metric",
	    campaign_slo_metric_name(c->slo_metric), "workloads", ws, "between_runs",
	    derive_between_json(x)));
	if (by != NULL)
		json_object_set_new(root, "by_target", by);
	json_decref(ws);
	derive_json(f, root);
}

/*
 * A mix's parts under its step table: every step's (summary.md), or the knee step's
 * alone (summary.txt, the run's end text), led by a line that says which.
 */
static void derive_parts_md(FILE *f, const struct judged_curve *j, bool knee_only)
{
	bool at_knee;
	const struct step_point *p = mixparts_step(j, &at_knee);

	if (p == NULL)
		return;
	if (knee_only)
		fprintf(
		    f,
		    "\n%s: each part of the mix at the %s (step %u), its latency at the storage "
		    "and from due:\n\n",
		    j->w->name, at_knee ? "knee" : "peak", p->step + 1);
	else
		fputs("\nEach part of the mix at each step, its latency at the storage and from "
		      "due:\n\n",
		      f);
	mixparts_print(f, j, knee_only);
}

/*
 * The summary's text: what the run lost (above the figures that lack it), the summary
 * table, the side-by-side table of several targets and the earlier runs beside this
 * one. summary.txt (file) adds fixed work's storms, which the table's one cell cannot
 * hold, and the quick plan's note; the run's end text has its storms in its workload
 * blocks (derive_end_text).
 */
static void derive_summary_text(FILE *f, const struct campaign *c,
                                const struct judged_curve *judged, const struct runend *end,
                                bool file)
{
	char quick[256], degraded[2048], between[4096];

	if (runend_degraded(end, degraded, sizeof(degraded)))
		fprintf(f, "%s\n\n", degraded);
	table_print_summary(f, c, judged);
	fputc('\n', f);
	table_print_summary_notes(f, c, judged);
	observed_print_bottlenecks(f, c, judged, end);
	for (size_t i = 0; file && i < c->nworkloads; i++)
		derive_parts_md(f, &judged[i], true);
	for (size_t i = 0; file && i < c->nworkloads; i++) {
		char storm[640];

		if (!c->workloads[i].work.on || judged[i].n == 0)
			continue;
		table_knee_text(&judged[i], storm, sizeof(storm));
		fprintf(f, "\n%s: %s\n", c->workloads[i].name, storm);
	}
	if (bytarget_shown(c)) {
		fputc('\n', f);
		bytarget_print(f, c, judged);
	}
	if (file && table_quick_note(c, quick, sizeof(quick)))
		fprintf(f, "\n%s\n", quick);
	if (between_text(end ? end->between : NULL, c, judged, between, sizeof(between)))
		fprintf(f, "\n%s\n", between);
}

void derive_summary_print(FILE *f, const struct campaign *c, const struct judged_curve *judged,
                          const struct runend *end)
{
	char note[700], *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&text, &len);

	if (m == NULL)
		abort();
	if (runend_note(end, note, sizeof(note)))
		fprintf(m, "%s\n\n", note);
	derive_summary_text(m, c, judged, end, true);
	if (fclose(m) != 0)
		abort();
	text_wrap_lines(f, text, DERIVE_TXT_WIDTH);
	free(text);
}

static void derive_summary_txt(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;

	derive_summary_print(f, x->c, x->judged, x->end);
}

/*
 * The run's end at a glance: per workload its narrow step table (glance.h) and its knee's
 * words wrapped; then what the run lost, a headline per workload, what limited each, the
 * observed bottlenecks and the runs before. The wide tables are summary.md's.
 */
void derive_end_text(FILE *f, const char *dir, const struct campaign *c, const size_t *npts,
                     const struct judged_curve *judged, const struct runend *end)
{
	char knee[512], bs[32], line[GLANCE_HEAD_MAX + 1], degraded[2048], between[4096];

	fprintf(f, "\n");
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct workload *w = &c->workloads[i];

		if (npts[i] == 0)
			continue;
		units_format_size(w->io.block_size, bs, sizeof(bs));
		fprintf(f, "%s (%s, %s%s%s%s%s):\n", w->name, mix_kind_name(&w->io.mix, w->io.rw),
		        bs, w->io.direct ? "" : ", buffered", w->io.clone[0] ? ", clone '" : "",
		        w->io.clone, w->io.clone[0] ? "'" : "");
		glance_steps(f, &judged[i]);
		derive_parts_md(f, &judged[i], true);
		table_knee_text(&judged[i], knee, sizeof(knee));
		text_wrap(f, knee, GLANCE_HEAD_MAX, "  ");
		fputc('\n', f);
		if (w->work.on)
			fprintf(f,
			        "throughput and latency over time, each finish marked: "
			        "%s/time-%s.svg\n\n",
			        dir, w->name);
	}
	if (runend_degraded(end, degraded, sizeof(degraded))) {
		text_wrap(f, degraded, GLANCE_HEAD_MAX, "  ");
		fputc('\n', f);
	}
	for (size_t i = 0; i < c->nworkloads; i++) {
		if (npts[i] == 0)
			continue;
		glance_headline(&judged[i], line, sizeof(line));
		fprintf(f, "%s\n", line);
	}
	for (size_t i = 0; i < c->nworkloads; i++) {
		char limit[sizeof(judged[i].limit) + 80];

		if (npts[i] == 0 || judged[i].limit[0] == '\0' || c->workloads[i].io.background)
			continue;
		snprintf(limit, sizeof(limit), "%s: limit: %s", c->workloads[i].name,
		         judged[i].limit);
		text_wrap(f, limit, GLANCE_HEAD_MAX, "  ");
	}
	observed_print_bottlenecks(f, c, judged, end);
	if (between_text(end ? end->between : NULL, c, judged, between, sizeof(between))) {
		fputc('\n', f);
		text_wrap(f, between, GLANCE_HEAD_MAX, "  ");
	}
	fprintf(f, "\nwide tables: %s/summary.md\nresults: %s\n", dir, dir);
}

/* A mixed workload's reads and writes at its peak (kinds.h), before its step table. */
static void derive_kinds_md(FILE *f, const struct judged_curve *j)
{
	char text[192];

	if (j->peak == NULL || !j->peak->mixed)
		return;
	fputs("At the peak:", f);
	for (int k = 0; k < KINDS_N; k++) {
		struct kinds_fig fig = kinds_of(j->peak, (enum kinds_kind)k);

		kinds_text(&fig, text, sizeof(text));
		fprintf(f, "%s %ss %s", k ? ";" : "", kinds_name((enum kinds_kind)k), text);
	}
	fputs("\n\n", f);
}

static void derive_summary_md(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;
	const struct campaign *c = x->c;
	char knee[512], dist[48], quick[256], bs[32], end[700], degraded[2048], between[4096];
	char shape[600];

	fprintf(f, "# %s\n\n", c->name);
	if (runend_note(x->end, end, sizeof(end)))
		fprintf(f, "**%s**\n\n", end);
	if (runend_degraded(x->end, degraded, sizeof(degraded)))
		fprintf(f, "**%s**\n\n", degraded);
	table_print_summary(f, c, x->judged);
	fputc('\n', f);
	table_print_summary_notes(f, c, x->judged);
	observed_print_bottlenecks(f, c, x->judged, x->end);
	if (bytarget_shown(c)) {
		fputc('\n', f);
		bytarget_print(f, c, x->judged);
	}
	if (table_quick_note(c, quick, sizeof(quick)))
		fprintf(f, "\n%s\n", quick);
	if (between_text(x->end ? x->end->between : NULL, c, x->judged, between, sizeof(between)))
		fprintf(f, "\n%s\n", between);
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct workload *w = &c->workloads[i];

		setting_dist_text(&w->io, dist, sizeof(dist));
		units_format_size(w->io.block_size, bs, sizeof(bs));
		if (!mix_shape_text(&w->io.mix, rw_mode_name(w->io.rw), shape, sizeof(shape)))
			snprintf(shape, sizeof(shape), "%s, %s blocks", rw_mode_name(w->io.rw), bs);
		/* A clone's reads hit one image the storage may keep once: say so with the figure.
		 */
		fprintf(f, "\n## %s (%s, %u workers x qd %u per agent, %s, %s%s%s%s%s)\n\n",
		        w->name, shape, w->io.workers, w->io.queue_depth,
		        rw_is_random(w->io.rw) ? dist : "sequential",
		        w->io.direct ? "O_DIRECT" : "buffered",
		        w->io.poisson ? ", poisson arrivals" : "",
		        w->io.clone[0] ? ", every file the clone '" : "", w->io.clone,
		        w->io.clone[0] ? "'" : "");
		table_knee_text(&x->judged[i], knee, sizeof(knee));
		fprintf(f, "%s\n\n", knee);
		if (w->io.background)
			continue; /* no steps of its own: its figures are in the others' */
		derive_kinds_md(f, &x->judged[i]);
		table_print_steps(f, &x->judged[i]);
		derive_parts_md(f, &x->judged[i], false);
	}
}

static void derive_report(FILE *f, const void *arg)
{
	const struct derive_ctx *x = arg;

	report_html(f, x->c, x->pts, x->npts, x->judged, x->end);
}

/* The per-workload curves: curve-<workload>.csv, .json and .svg; time-<workload>.svg. */
static int derive_curves(const char *dir, struct derive_ctx *x, struct error *err)
{
	char name[256];

	for (x->w = 0; x->w < x->c->nworkloads; x->w++) {
		const char *wn = x->c->workloads[x->w].name;

		if (x->npts[x->w] == 0)
			continue;
		snprintf(name, sizeof(name), "curve-%s.csv", wn);
		if (safefile_write(dir, name, derive_curve_csv, x, err) < 0)
			return -1;
		snprintf(name, sizeof(name), "curve-%s.json", wn);
		if (safefile_write(dir, name, derive_curve_json, x, err) < 0)
			return -1;
		snprintf(name, sizeof(name), "curve-%s.svg", wn);
		if (safefile_write(dir, name, derive_curve_svg, x, err) < 0)
			return -1;
		snprintf(name, sizeof(name), "time-%s.svg", wn);
		if (safefile_write(dir, name, derive_time_svg, x, err) < 0)
			return -1;
	}
	return 0;
}

/* The files that say how the campaign stands, summary.json (the one tools read) last. */
static const struct {
	const char *name;
	safefile_writer fn;
} derive_status_files[] = {
    {"report.html", derive_report},
    {"summary.md", derive_summary_md},
    {"summary.txt", derive_summary_txt},
    {"summary.json", derive_summary_json},
};
#define DERIVE_NSTATUS (sizeof(derive_status_files) / sizeof(derive_status_files[0]))

int derive_all(const char *dir, const struct campaign *c, const struct step_point *const *pts,
               const size_t *npts, const struct judged_curve *judged, const struct runend *end,
               struct error *err)
{
	struct derive_ctx x = {.c = c, .pts = pts, .npts = npts, .judged = judged, .end = end};

	/* Status last: a status is on disk only once everything it speaks for is. */
	if (derive_curves(dir, &x, err) < 0)
		return -1;
	for (size_t i = 0; i < DERIVE_NSTATUS; i++)
		if (safefile_write(dir, derive_status_files[i].name, derive_status_files[i].fn, &x,
		                   err) < 0)
			return -1;
	return 0;
}

int derive_end(const char *dir, const struct campaign *c, const struct step_point *const *pts,
               const size_t *npts, const struct judged_curve *judged, const struct runend *end,
               struct error *err)
{
	struct derive_ctx x = {.c = c, .pts = pts, .npts = npts, .judged = judged, .end = end};
	struct error e;
	int rc = 0;

	/* summary.json first now: it is the one a tool reads for the status. */
	for (size_t k = DERIVE_NSTATUS; k-- > 0;) {
		const char *name = derive_status_files[k].name;
		char *path;

		if (safefile_write(dir, name, derive_status_files[k].fn, &x, &e) == 0)
			continue;
		if (rc == 0)
			*err = e;
		rc = -1;
		/*
		 * The version there said the campaign was running: remove it, and write the
		 * end again in the room it held (a full disk); else none is left to mislead.
		 */
		path = xasprintf("%s/%s", dir, name);
		if (unlink(path) == 0)
			safefile_write(dir, name, derive_status_files[k].fn, &x, &e);
		free(path);
	}
	if (derive_curves(dir, &x, rc == 0 ? err : &e) < 0)
		rc = -1;
	return rc;
}
