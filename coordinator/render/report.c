/* SPDX-License-Identifier: MIT */
/* report.html: the summary, each workload's curve and tables, and the plan, on one offline page. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "runend.h"
#include "between.h"
#include "bytarget.h"
#include "markup.h"
#include "mixparts.h"
#include "plot.h"
#include "pointfields.h"
#include "background.h"
#include "report.h"
#include "table.h"
#include "histplot.h"
#include "kinds.h"
#include "observe.h"
#include "obsplot.h"
#include "pagemeta.h"
#include "observed.h"
#include "timeplot.h"
#include "marks.h"
#include "units.h"
#include "xalloc.h"

/* Columns of a markdown table report_md_table renders: a side-by-side table's targets and one. */
#define REPORT_MD_COLS (CAMPAIGN_MAX_TARGETS + 1)

/* Everything the page needs is here: it must read the same offline and years later. */
static const char report_css[] =
    "body{font-family:-apple-system,'Segoe UI',Helvetica,Arial,sans-serif;color:#1a1a1a;"
    "max-width:1180px;margin:24px auto;padding:0 16px;line-height:1.4}\n"
    "h1{font-size:1.6em;margin:0 0 4px}\n"
    "h2{font-size:1.3em;margin:32px 0 8px;border-bottom:1px solid #ddd;padding-bottom:4px}\n"
    "h3{font-size:1.05em;margin:18px 0 6px}\n"
    "dl.meta{display:grid;grid-template-columns:max-content auto;gap:2px 16px;margin:8px 0}\n"
    "dl.meta dt{font-weight:600;color:#555}\n"
    "dl.meta dd{margin:0}\n"
    "table{border-collapse:collapse;font-size:0.9em;margin:6px 0 12px}\n"
    "th,td{border:1px solid #d6d6d6;padding:3px 8px;white-space:nowrap}\n"
    "th{background:#f2f2f2;font-weight:600}\n"
    "td.n{text-align:right;font-variant-numeric:tabular-nums}\n"
    "tbody tr:nth-child(even){background:#fafafa}\n"
    "tr.over td{background:#fdecea}\n"
    ".scroll{overflow-x:auto}\n"
    /* the summary's words wrap inside the page; the step tables' figures scroll */
    "table.summary{table-layout:fixed;width:100%}\n"
    "table.summary th,table.summary td{white-space:normal;overflow-wrap:anywhere}\n"
    "figure{margin:8px 0}\n"
    "figure svg{max-width:100%;height:auto;border:1px solid #e3e3e3}\n"
    "p.knee{font-weight:600}\n"
    "p.params,p.note{color:#555}\n"
    "p.ended{background:#fdecea;border:1px solid #e0a19a;padding:8px 12px;font-weight:600}\n"
    "pre{background:#f6f6f6;border:1px solid #e3e3e3;padding:10px;overflow-x:auto}\n";

/* A count with thousands separators, as the eye groups digits: "46,312". */
static void report_num(double v, char *buf, size_t len)
{
	char raw[48];
	size_t out = 0, ndig, start = 0;

	snprintf(raw, sizeof(raw), "%.0f", isfinite(v) ? v : 0);
	if (raw[0] == '-' && out + 1 < len)
		buf[out++] = raw[start++];
	ndig = strlen(raw + start);
	for (size_t i = 0; i < ndig && out + 2 < len; i++) {
		if (i > 0 && (ndig - i) % 3 == 0)
			buf[out++] = ',';
		buf[out++] = raw[start + i];
	}
	buf[out] = '\0';
}

static void report_dur(double ns, char *buf, size_t len)
{
	units_format_duration(isfinite(ns) && ns > 0 ? (uint64_t)llround(ns) : 0, buf, len);
}

/* Trim a markdown cell in place and return its start. */
static char *report_trim(char *s)
{
	char *e;

	while (*s == ' ')
		s++;
	e = s + strlen(s);
	while (e > s && (e[-1] == ' ' || e[-1] == '\n'))
		*--e = '\0';
	return s;
}

/*
 * Split "| a | b | c |" into cells. Only the first column (the workload's name)
 * is user text; a '|' inside it makes extra cells, which are joined back into
 * the first so the columns stay aligned with the header.
 */
static size_t report_cells(char *line, char **cells, size_t max, size_t want)
{
	size_t n = 0;
	char *p = line, *bar;

	if (*p == '|')
		p++;
	while (n < max && (bar = strchr(p, '|')) != NULL) {
		*bar = '\0';
		cells[n++] = p;
		p = bar + 1;
	}
	while (want && n > want) {
		cells[0][strlen(cells[0])] = '|'; /* undo the split between cells 0 and 1 */
		memmove(&cells[1], &cells[2], (n - 2) * sizeof(cells[0]));
		n--;
	}
	for (size_t i = 0; i < n; i++)
		cells[i] = report_trim(cells[i]);
	return n;
}

/*
 * A markdown table the table printers write (print), as a real table of class cls:
 * one source for both formats' wording. Lines before the table make a note above it.
 */
static void report_md_table(FILE *f, const struct campaign *c, const struct judged_curve *judged,
                            void (*print)(FILE *, const struct campaign *,
                                          const struct judged_curve *),
                            const char *cls)
{
	char *md = NULL, *line, *save = NULL, *cells[REPORT_MD_COLS];
	size_t mdlen = 0, ncols = 0, row = 0;
	bool right[REPORT_MD_COLS] = {false};
	FILE *m = open_memstream(&md, &mdlen);

	if (m == NULL) {
		fputs("<p class=\"note\">summary unavailable: out of memory</p>\n", f);
		return;
	}
	print(m, c, judged);
	fclose(m);

	for (line = strtok_r(md, "\n", &save); line && line[0] != '|';
	     line = strtok_r(NULL, "\n", &save)) {
		fputs("<p class=\"note\">", f);
		markup_escape(f, line);
		fputs("</p>\n", f);
	}
	fprintf(f, "<div class=\"scroll\"><table class=\"%s\">\n", cls);
	for (; line; line = strtok_r(NULL, "\n", &save), row++) {
		size_t n = report_cells(line, cells, REPORT_MD_COLS, ncols);

		if (row == 0) {
			ncols = n;
			fputs("<thead><tr>", f);
			for (size_t i = 0; i < n; i++) {
				fputs("<th>", f);
				markup_escape(f, cells[i]);
				fputs("</th>", f);
			}
			fputs("</tr></thead>\n<tbody>\n", f);
			continue;
		}
		if (row == 1) { /* |---|---:|: alignment, which numbers need */
			for (size_t i = 0; i < n && i < REPORT_MD_COLS; i++)
				right[i] = cells[i][0] && cells[i][strlen(cells[i]) - 1] == ':';
			continue;
		}
		fputs("<tr>", f);
		for (size_t i = 0; i < n; i++) {
			fputs(i < REPORT_MD_COLS && right[i] ? "<td class=\"n\">" : "<td>", f);
			markup_escape(f, cells[i]);
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table></div>\n", f);
	free(md);
}

/* The summary table, then its notes: what each workload's cells cannot hold, in words. */
static void report_summary(FILE *f, const struct campaign *c, const struct judged_curve *judged)
{
	char *notes = NULL, *line, *save = NULL;
	size_t len = 0;
	FILE *m;

	report_md_table(f, c, judged, table_print_summary, "summary");
	m = open_memstream(&notes, &len);
	if (m == NULL)
		return;
	table_print_summary_notes(m, c, judged);
	fclose(m);
	fputs("<ul class=\"notes\">\n", f);
	for (line = strtok_r(notes, "\n", &save); line != NULL;
	     line = strtok_r(NULL, "\n", &save)) {
		fputs("<li>", f);
		markup_escape(f, line[0] == '-' && line[1] == ' ' ? line + 2 : line);
		fputs("</li>\n", f);
	}
	fputs("</ul>\n", f);
	free(notes);
}

/* The storage's side of each workload's limiting factor (observed.h), when observed. */
static void report_bottlenecks(FILE *f, const struct campaign *c, const struct judged_curve *judged,
                               const struct runend *end)
{
	char buf[768];

	for (size_t i = 0; i < c->nworkloads && c->nobserve > 0; i++) {
		if (!observed_bottleneck(end, &judged[i], buf, sizeof(buf)))
			continue;
		fputs("<p class=\"bottleneck\">Storage bottleneck, ", f);
		markup_escape(f, c->workloads[i].name);
		fputs(": ", f);
		markup_escape(f, buf);
		fputs("</p>\n", f);
	}
}

static void report_workload_params(FILE *f, const struct workload *w)
{
	char bs[32], dist[48], iv[32], wu[32], ms[32], shape[600];

	units_format_size(w->io.block_size, bs, sizeof(bs));
	units_format_duration(w->interval_ns, iv, sizeof(iv));
	units_format_duration(w->warmup_ns, wu, sizeof(wu));
	units_format_duration(w->measure_ns, ms, sizeof(ms));
	if (mix_shape_text(&w->io.mix, rw_mode_name(w->io.rw), shape, sizeof(shape))) {
		fputs("<p class=\"params\">", f);
		markup_escape(f, shape);
	} else {
		fprintf(f, "<p class=\"params\">%s", rw_mode_name(w->io.rw));
		if (rw_is_mix(w->io.rw) && w->io.read_pct <= 100)
			fprintf(f, " (%u%% reads)", w->io.read_pct);
		fprintf(f, ", %s blocks", bs);
	}
	if (rw_is_random(w->io.rw)) {
		setting_dist_text(&w->io, dist, sizeof(dist));
		fprintf(f, ", %s offsets", dist);
	}
	/* clone names are [A-Za-z0-9._-] (text_name_ok): nothing to escape */
	fprintf(f,
	        ", %s, %s arrivals%s%s%s; %u worker%s &times; queue depth %u per agent; "
	        "%s intervals, %s warm-up, %s measured per step</p>\n",
	        w->io.direct ? "O_DIRECT" : "buffered", w->io.poisson ? "Poisson" : "uniform",
	        w->io.clone[0] ? "; every file the clone &lsquo;" : "", w->io.clone,
	        w->io.clone[0] ? "&rsquo;" : "", w->io.workers, w->io.workers == 1 ? "" : "s",
	        w->io.queue_depth, iv, wu, ms);
}

/* Cell k of field f (k: the percentile, for PF_PCTS) of point p, as the page shows it. */
static void report_step_cell(FILE *f, const struct workload *w, const struct pfield *fd,
                             const struct step_point *p, const struct judged_point *jp, uint32_t k)
{
	struct pfield_val v = pfield_value(fd, p, jp);
	char cell[PFIELD_TEXT_MAX];

	/* The kernel's figure of a step whose device was not read (or has none, NFS). */
	if (v.none && (fd->apart == PF_APART_KERNEL || fd->apart == PF_APART_REPLAY)) {
		fputs("<td class=\"n\">-</td>", f);
		return;
	}
	/* A read or write figure an agent did not measure apart (an older agent's). */
	if (v.none && (fd->apart == PF_APART_MEASURED || fd->member == PF_M_GET)) {
		fputs("<td class=\"n\">not measured</td>", f);
		return;
	}
	switch (fd->human) {
	case PF_H_COUNT:
		snprintf(cell, sizeof(cell), "%" PRIu64, v.u);
		break;
	case PF_H_OFFERED:
		if (v.d > 0)
			report_num(v.d, cell, sizeof(cell));
		else
			snprintf(cell, sizeof(cell), "max (qd %u)", w->io.queue_depth);
		break;
	case PF_H_RATE:
		report_num(v.d, cell, sizeof(cell));
		break;
	case PF_H_FIXED1: /* the bandwidth */
		snprintf(cell, sizeof(cell), "%.1f", curve_shown_bw(w, v.d));
		break;
	case PF_H_DURATION:
		/* mean and service time (fio's clat) side by side, then the percentiles, the max */
		report_dur(fd->kind == PF_PCTS ? (double)step_pct_ns(p, k) : v.raw, cell,
		           sizeof(cell));
		break;
	case PF_H_PERCENT:
		snprintf(cell, sizeof(cell), "%.0f%%", v.d);
		break;
	case PF_H_DECIMAL:
		snprintf(cell, sizeof(cell), "%.*f", (int)fd->decimals, v.d);
		break;
	case PF_H_SPEED:
		snprintf(cell, sizeof(cell), "x%.2f", v.d);
		break;
	case PF_H_TEXT:
		/* an invalid step's latency is labelled by its verdict, on the same row */
		pfield_format(fd, p, jp, cell, sizeof(cell));
		break;
	}
	fprintf(f, fd->human == PF_H_TEXT ? "<td>%s</td>" : "<td class=\"n\">%s</td>", cell);
}

static void report_steps(FILE *f, const struct judged_curve *j)
{
	const struct campaign *c = j->c;
	const struct step_point *pts = j->sorted;
	size_t n = j->n;
	bool shaded = false;
	const struct pfield *cols[PFIELD_MAX];
	size_t ncols = pfield_list_kinds(
	    PF_STEPS_HTML,
	    pfield_show_of(j->w) | pfield_show_kernel(pts, n) | pfield_show_campaign(c), cols);
	char title[64];

	uint32_t np = n ? step_npct(&pts[0]) : 0;

	/* The columns the field table gives the step tables; the percentiles: the campaign's. */
	fprintf(f, "<h3>Steps</h3>\n<div class=\"scroll\"><table class=\"steps\">\n<thead><tr>");
	for (size_t i = 0; i < ncols; i++)
		for (uint32_t k = 0; k < pfield_cells(cols[i], np); k++)
			if (cols[i]->kind == PF_PCTS)
				fprintf(f, "<th>p%g</th>", step_pct(&pts[0], k));
			else
				fprintf(f, "<th>%s</th>",
				        table_title(j->w, cols[i], title, sizeof(title)));
	fprintf(f, "<th>Latency histogram</th></tr></thead>\n<tbody>\n");
	for (size_t i = 0; i < n; i++) {
		const struct step_point *p = &pts[i];
		/*
		 * Rows that violated the SLO are shaded, by the verdict the knee obeys: the
		 * knee lies below the first shaded row.
		 */
		bool over = j->v[i].violates;
		uint32_t pn = np < step_npct(p) ? np : step_npct(p);

		shaded |= over;
		fprintf(f, "<tr%s>", over ? " class=\"over\"" : "");
		for (size_t col = 0; col < ncols; col++)
			for (uint32_t k = 0; k < pfield_cells(cols[col], pn); k++)
				report_step_cell(f, j->w, cols[col], p, &j->v[i], k);
		/* The step's latency distribution, folded until asked for. */
		fputs("<td><details class=\"hist\"><summary>show</summary>", f);
		histplot_svg(f, p, c->slo_latency_ns);
		fputs("</details></td></tr>\n", f);
	}
	fputs("</tbody>\n</table></div>\n", f);
	if (shaded)
		fprintf(f,
		        "<p class=\"note\">Shaded steps violated the SLO: the 95%% interval of "
		        "their %s latency lies wholly over it; the knee lies below the first of "
		        "them.</p>\n",
		        campaign_slo_metric_name(c->slo_metric));
}

/* Each agent's share of each step: an uneven split points at one client or its path. */
static void report_agents(FILE *f, const struct step_point *pts, size_t n)
{
	const struct step_point *head = NULL;
	size_t na;

	for (size_t i = 0; i < n; i++)
		if (head == NULL || pts[i].nagents > head->nagents)
			head = &pts[i];
	if (head == NULL || head->nagents == 0)
		return;
	na = head->nagents < STEP_MAX_AGENTS ? head->nagents : STEP_MAX_AGENTS;

	fputs("<h3>Per agent</h3>\n<div class=\"scroll\"><table class=\"agents\">\n<thead><tr>"
	      "<th rowspan=\"2\">Step</th>",
	      f);
	for (size_t a = 0; a < na; a++) {
		fputs("<th colspan=\"3\">", f);
		markup_escape(f, head->agents[a].name);
		fputs("</th>", f);
	}
	fputs("</tr>\n<tr>", f);
	for (size_t a = 0; a < na; a++)
		fputs("<th>ops/s</th><th>Mean</th><th title=\"the client's own delay of an "
		      "operation, mean: issue lateness and reap delay\">Client delay</th>",
		      f);
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct step_point *p = &pts[i];

		fprintf(f, "<tr><td class=\"n\">%u</td>", p->step + 1);
		for (size_t a = 0; a < na; a++) {
			char ops[48], mean[16], delay[16] = "";

			if (a >= p->nagents) {
				fputs("<td></td><td></td><td></td>", f);
				continue;
			}
			report_num(p->agents[a].achieved_ops, ops, sizeof(ops));
			report_dur(p->agents[a].mean_ns, mean, sizeof(mean));
			if (p->agents[a].health_known)
				report_dur(p->agents[a].client_ns, delay, sizeof(delay));
			fprintf(f,
			        "<td class=\"n\">%s</td><td class=\"n\">%s</td><td "
			        "class=\"n\">%s</td>",
			        ops, mean, delay);
		}
		fputs("</tr>\n", f);
	}
	fputs("</tbody>\n</table></div>\n", f);
	if (head->nagents > na)
		fprintf(f, "<p class=\"note\">The first %zu of %u agents are shown.</p>\n", na,
		        head->nagents);
}

/* The workload's marks on the timeline under its time plot, as a list; nothing without any. */
static void report_marks(FILE *f, const struct workload *w, const struct runend *end)
{
	bool any = false;

	for (size_t i = 0; end != NULL && i < end->nmarks; i++) {
		const struct run_mark *m = &end->marks[i];

		if (strcmp(m->workload, w->name) != 0)
			continue;
		if (!any)
			fputs("<table class=\"marks\">\n<tr><th>Mark</th><th>Step</th>"
			      "<th>Interval</th><th>Into the step</th><th>By</th></tr>\n",
			      f);
		any = true;
		fputs("<tr><td class=\"mark\">", f);
		markup_escape(f, m->text);
		fprintf(f, "</td><td>%u</td><td>", m->step + 1);
		if (m->interval != MARK_NO_INTERVAL)
			fprintf(f, "%u", m->interval + 1);
		else
			fputs("-", f);
		fprintf(f, "</td><td>%.1f s</td><td>", (double)m->at_ns / 1e9);
		markup_escape(f, m->source);
		if (m->agent[0] != '\0') {
			fputs(" (", f);
			markup_escape(f, m->agent);
			fputs(")", f);
		}
		fputs("</td></tr>\n", f);
	}
	if (any)
		fputs("</table>\n", f);
}

/* Fixed work: the completion times, per worker and per agent, and the storm's. */
static void report_storm(FILE *f, const struct storm *s)
{
	const struct {
		const char *what;
		const struct storm_stats *st;
		uint32_t of;
	} rows[] = {{"worker (from its own start)", &s->worker, s->workers},
	            {"agent (its first start to its last finish)", &s->agent, s->agents}};

	fputs("<h3>Completion times</h3>\n<table>\n<tr><th>per</th><th>finished</th>"
	      "<th>min</th><th>median</th><th>p90</th><th>max</th></tr>\n",
	      f);
	for (size_t i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		fprintf(f,
		        "<tr><td>%s</td><td class=\"num\">%u of %u</td><td class=\"num\">%.3f "
		        "s</td><td class=\"num\">%.3f s</td><td class=\"num\">%.3f s</td><td "
		        "class=\"num\">%.3f s</td></tr>\n",
		        rows[i].what, rows[i].st->n, rows[i].of, rows[i].st->min_s,
		        rows[i].st->median_s, rows[i].st->p90_s, rows[i].st->max_s);
	if (s->workers > 0 && s->finished == s->workers)
		fprintf(f,
		        "<tr><td>fleet (the first start to the last finish)</td><td "
		        "class=\"num\">%u of %u</td><td colspan=\"4\" class=\"num\">%.3f "
		        "s</td></tr>\n",
		        s->finished, s->workers, s->storm_s);
	else
		fprintf(f,
		        "<tr><td>fleet</td><td class=\"num\">%u of %u</td><td colspan=\"4\">"
		        "unfinished at the deadline (the least advanced worker did %.1f%% of its "
		        "work)</td></tr>\n",
		        s->finished, s->workers, s->least_pct);
	fputs("</table>\n", f);
}

/* A mixed workload's reads and writes at its peak, one line each (kinds.h). */
static void report_kinds(FILE *f, const struct judged_curve *j)
{
	char text[192];

	if (j->peak == NULL || !j->peak->mixed)
		return;
	fputs("<p class=\"kinds\">At the peak:", f);
	for (int k = 0; k < KINDS_N; k++) {
		struct kinds_fig fig = kinds_of(j->peak, (enum kinds_kind)k);

		kinds_text(&fig, text, sizeof(text));
		fprintf(f, "%s %ss ", k ? ";" : "", kinds_name((enum kinds_kind)k));
		markup_escape(f, text);
	}
	fputs("</p>\n", f);
}

/*
 * The observe: sources beside the steps: each step's means (observed.h) beside the tool's
 * service time, then every series over time under the latency plot (obsplot.h).
 */
static void report_observed(FILE *f, const struct campaign *c, size_t wi,
                            const struct judged_curve *j, const struct step_point *pts, size_t n,
                            const struct runend *end)
{
	const struct workload *w = &c->workloads[wi];

	(void)j;
	if (c->nobserve == 0)
		return;
	fprintf(
	    f,
	    "<h3>The storage's side</h3>\n<table class=\"observed\" id=\"observed-table-%zu\">\n"
	    "<tr><th>Step</th><th>Offered ops/s</th><th>Achieved ops/s</th>"
	    "<th>Storage mean</th>",
	    wi + 1);
	for (size_t s = 0; s < c->nobserve; s++)
		for (size_t k = 0; k < c->observe[s].nseries; k++) {
			fputs("<th>", f);
			markup_escape(f, c->observe[s].name);
			fputs("/", f);
			markup_escape(f, c->observe[s].series[k].name);
			if (c->observe[s].series[k].unit[0] != '\0') {
				fputs(" (", f);
				markup_escape(f, c->observe[s].series[k].unit);
				fputs(")", f);
			}
			fputs("</th>", f);
		}
	fputs("<th>Late</th></tr>\n", f);
	for (size_t i = 0; i < n; i++) {
		const struct step_point *p = &pts[i];
		uint32_t lates = 0;

		fprintf(f, "<tr><td>%u</td><td>%.0f</td><td>%.0f</td><td>%.0f us</td>", p->step + 1,
		        p->offered_ops, p->achieved_ops, p->svc_mean_ns / 1e3);
		for (size_t s = 0; s < c->nobserve; s++)
			for (size_t k = 0; k < c->observe[s].nseries; k++) {
				double mean;
				uint32_t got, late;

				if (observed_mean(end, c, w, p->step, s, k, &mean, &got, &late))
					fprintf(f, "<td>%.4g</td>", mean);
				else
					fputs("<td>-</td>", f);
				if (k == 0)
					lates += late;
			}
		fprintf(f, "<td>%u</td></tr>\n", lates);
	}
	fprintf(f, "</table>\n<figure id=\"observed-fig-%zu\">\n", wi + 1);
	obsplot_svg(f, c, wi, pts, n, end);
	fputs("</figure>\n", f);
}

static void report_workload(FILE *f, const struct campaign *c, size_t wi,
                            const struct step_point *pts, const struct judged_curve *j,
                            const struct runend *end)
{
	const struct workload *w = &c->workloads[wi];
	size_t n = j->n;
	struct plot_series s;
	char knee[512];

	fprintf(f, "<section id=\"workload-%zu\">\n<h2>", wi + 1);
	markup_escape(f, w->name);
	fputs("</h2>\n", f);
	report_workload_params(f, w);
	if (w->io.background) {
		table_background_text(w, knee, sizeof(knee));
		fputs("<p class=\"note\">", f);
		markup_escape(f, knee);
		fputs("</p>\n</section>\n", f);
		return;
	}
	if (n == 0) {
		fputs("<p class=\"note\">Not run.</p>\n</section>\n", f);
		return;
	}
	/* Curve order (refine steps fall between the ones they bisect): the knee's indices too. */
	s = (struct plot_series){
	    .label = NULL, .pts = j->sorted, .n = n, .knee = &j->knee, .companions = true};
	fputs("<figure>\n", f);
	plot_curve_svg(f, w, &s, 1, c->slo_metric, c->slo_latency_ns);
	fputs("</figure>\n", f);
	table_knee_text(j, knee, sizeof(knee));
	fputs("<p class=\"knee\">", f);
	markup_escape(f, knee);
	fputs("</p>\n", f);
	if (w->work.on)
		report_storm(f, &j->sorted[0].storm);
	report_kinds(f, j);
	report_steps(f, j);
	mixparts_html(f, j, wi);
	/* In run order, interval by interval: what the point of each step averages away. */
	fprintf(f, "<h3>Over time</h3>\n<figure id=\"time-%zu\">\n", wi + 1);
	timeplot_svg(f, w, pts, n, c->slo_latency_ns, end ? end->marks : NULL,
	             end ? end->nmarks : 0);
	fputs("</figure>\n", f);
	report_observed(f, c, wi, j, pts, n, end);
	report_marks(f, w, end);
	report_agents(f, j->sorted, n);
	fputs("</section>\n", f);
}

void report_html(FILE *f, const struct campaign *c, const struct step_point *const *pts,
                 const size_t *npts, const struct judged_curve *judged, const struct runend *end)
{
	char quick[256], endnote[700], degraded[2048], between[4096];

	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>iocurve: ",
	      f);
	markup_escape(f, c->name);
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n<h1>iocurve: ", report_css);
	markup_escape(f, c->name);
	fputs("</h1>\n", f);
	if (runend_note(end, endnote, sizeof(endnote))) {
		fputs("<p class=\"ended\" id=\"ended\">", f);
		markup_escape(f, endnote);
		fputs("</p>\n", f);
	}
	if (runend_degraded(end, degraded, sizeof(degraded))) {
		fputs("<p class=\"ended\" id=\"degraded\">", f);
		markup_escape(f, degraded);
		fputs("</p>\n", f);
	}
	pagemeta_html(f, c, pts, npts, end ? end->meta : NULL);

	fputs("<h2>Summary</h2>\n", f);
	report_summary(f, c, judged);
	report_bottlenecks(f, c, judged, end);
	if (bytarget_shown(c)) {
		fputs("<h2 id=\"by-target\">By target</h2>\n", f);
		report_md_table(f, c, judged, bytarget_print, "summary by-target");
	}
	if (table_quick_note(c, quick, sizeof(quick))) {
		fputs("<p class=\"note\">", f);
		markup_escape(f, quick);
		fputs("</p>\n", f);
	}
	if (between_text(end ? end->between : NULL, c, judged, between, sizeof(between))) {
		fputs("<p class=\"note\" id=\"between\" style=\"white-space:pre-line\">", f);
		markup_escape(f, between);
		fputs("</p>\n", f);
	}
	for (size_t i = 0; i < c->nworkloads; i++)
		report_workload(f, c, i, pts[i], &judged[i], end);

	if (c->text) {
		fputs("<h2>Plan</h2>\n<pre class=\"plan\">", f);
		markup_escape_n(f, c->text, c->text_len);
		fputs("</pre>\n", f);
	}
	fputs("</body>\n</html>\n", f);
}
