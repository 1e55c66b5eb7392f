/* SPDX-License-Identifier: MIT */
/* The observe: sources over time, one panel per series (obsplot.h). */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "markup.h"
#include "observe.h"
#include "obsline.h"
#include "obsplot.h"

#define OBSPLOT_W     900
#define OBSPLOT_X0    84.0
#define OBSPLOT_X1    870.0
#define OBSPLOT_TOP   24.0 /* above the first panel: the step numbers */
#define OBSPLOT_PANEL 90.0
#define OBSPLOT_GAP   30.0
#define OBSPLOT_FONT  "DejaVu Sans, Helvetica, Arial, sans-serif"
#define OBSPLOT_LINE  "#17becf"
#define OBSPLOT_LIMIT "#d62728"

struct obsplot_ctx {
	FILE *f;
	const struct campaign *c;
	const struct workload *w;
	const struct step_point *pts;
	size_t n;
	const struct runend *end;
	double t_end;
};

static double obsplot_x(const struct obsplot_ctx *p, double t)
{
	return OBSPLOT_X0 + (OBSPLOT_X1 - OBSPLOT_X0) * (p->t_end > 0 ? t / p->t_end : 0);
}

/* Where step i starts on the time axis, and its length. */
static double obsplot_step_at(const struct obsplot_ctx *p, size_t i, double *len)
{
	double t = 0;

	for (size_t s = 0; s < p->n; s++) {
		double l = 0;

		for (uint32_t k = 0; k < p->pts[s].nticks; k++)
			l += p->pts[s].ticks[k].seconds;
		if (s == i) {
			*len = l;
			return t;
		}
		t += l;
	}
	*len = 0;
	return t;
}

/* The step point of run-order step `step`, or SIZE_MAX (a void attempt, not a point). */
static size_t obsplot_point(const struct obsplot_ctx *p, uint32_t step)
{
	for (size_t i = 0; i < p->n; i++)
		if (p->pts[i].step == step)
			return i;
	return SIZE_MAX;
}

/* Each line of this workload and source, in order, with its time: fn(line, t). */
static bool obsplot_time(const struct obsplot_ctx *p, const struct obs_kept *l, const char *source,
                         double *t)
{
	size_t i;
	double len;

	if (strcmp(l->workload, p->w->name) != 0 || strcmp(l->source, source) != 0)
		return false;
	i = obsplot_point(p, l->step);
	if (i == SIZE_MAX)
		return false;
	*t = obsplot_step_at(p, i, &len) +
	     (double)(l->interval + 1) * (double)p->w->interval_ns / 1e9;
	if (*t > obsplot_step_at(p, i, &len) + len + 1e-9)
		*t = obsplot_step_at(p, i, &len) + len;
	return true;
}

static void obsplot_text(FILE *f, double x, double y, const char *anchor, double size,
                         const char *text)
{
	fprintf(f,
	        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%.0f\" "
	        "fill=\"#333333\">",
	        x, y, anchor, size);
	markup_escape(f, text);
	fputs("</text>\n", f);
}

/* A value as an axis label: 3 significant digits. */
static void obsplot_num(double v, char *buf, size_t len)
{
	snprintf(buf, len, fabs(v) >= 1e6 || (fabs(v) < 1e-2 && v != 0) ? "%.2g" : "%.3g", v);
}

static void obsplot_panel(const struct obsplot_ctx *p, size_t s, size_t k, double y0)
{
	const struct observe_source *src = &p->c->observe[s];
	const struct observe_series *se = &src->series[k];
	double y1 = y0 + OBSPLOT_PANEL, top = 0, limit = observe_series_threshold(se), t;
	char title[512], buf[32];
	bool open = false;

	for (size_t i = 0; i < p->end->nobs; i++) {
		const struct obs_kept *l = &p->end->obs[i];
		const struct obs_kept_value *v;

		if (!obsplot_time(p, l, src->name, &t) ||
		    (v = obs_kept_value(l, se->name)) == NULL || !v->has)
			continue;
		if (fabs(v->v) > top)
			top = fabs(v->v);
	}
	if (limit > top)
		top = limit;
	top = top > 0 ? top * 1.1 : 1;
	/* the steps, shaded in turn, the warm-up lighter */
	for (size_t i = 0; i < p->n; i++) {
		double len, at = obsplot_step_at(p, i, &len), u = at;

		for (uint32_t q = 0; q < p->pts[i].nticks; q++) {
			const struct step_tick *tk = &p->pts[i].ticks[q];
			const char *fill = tk->warmup ? "#fff6e0" : i % 2 ? "#f0f0f0" : "#ffffff";

			fprintf(p->f,
			        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			        "fill=\"%s\"/>\n",
			        obsplot_x(p, u), y0,
			        obsplot_x(p, u + tk->seconds) - obsplot_x(p, u), OBSPLOT_PANEL,
			        fill);
			u += tk->seconds;
		}
		fprintf(p->f,
		        "<line class=\"step\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		        "stroke=\"#bbbbbb\"/>\n",
		        obsplot_x(p, at), y0, obsplot_x(p, at), y1);
		if (k == 0 && s == 0) {
			snprintf(buf, sizeof(buf), "%u", p->pts[i].step + 1);
			obsplot_text(p->f, obsplot_x(p, at + len / 2), y0 - 4, "middle", 10, buf);
		}
	}
	fprintf(p->f,
	        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
	        "stroke=\"#333333\"/>\n",
	        OBSPLOT_X0, y0, OBSPLOT_X1 - OBSPLOT_X0, OBSPLOT_PANEL);
	obsplot_num(top, buf, sizeof(buf));
	obsplot_text(p->f, OBSPLOT_X0 - 6, y0 + 10, "end", 10, buf);
	obsplot_text(p->f, OBSPLOT_X0 - 6, y1, "end", 10, "0");
	snprintf(title, sizeof(title), "%s/%s%s%s%s", src->name, se->name, se->unit[0] ? " (" : "",
	         se->unit, se->unit[0] ? ")" : "");
	obsplot_text(p->f, OBSPLOT_X0 + 4, y0 + 12, "start", 11, title);
	if (limit > 0) {
		double y = y1 - OBSPLOT_PANEL * limit / top;

		fprintf(p->f,
		        "<line class=\"limit\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		        "stroke=\"%s\" stroke-width=\"2\" stroke-dasharray=\"6 3\" "
		        "shape-rendering=\"crispEdges\"/>\n",
		        OBSPLOT_X0, y, OBSPLOT_X1, y, OBSPLOT_LIMIT);
	}
	for (size_t i = 0; i < p->end->nobs; i++) {
		const struct obs_kept *l = &p->end->obs[i];
		const struct obs_kept_value *v;
		double x, y;

		if (!obsplot_time(p, l, src->name, &t))
			continue;
		x = obsplot_x(p, t);
		v = obs_kept_value(l, se->name);
		if (v == NULL || !v->has) {
			/* nothing at this interval's end: a red tick at the foot, why in its title
			 */
			fprintf(
			    p->f,
			    "<line class=\"late\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"%s\"><title>",
			    x, y1 - 6, x, y1, OBSPLOT_LIMIT);
			markup_escape(p->f, l->late[0] ? l->late : "no value");
			fputs("</title></line>\n", p->f);
			continue;
		}
		y = y1 - OBSPLOT_PANEL * (v->v > 0 ? v->v : 0) / top;
		if (!open)
			fprintf(p->f,
			        "<polyline class=\"observed\" fill=\"none\" stroke=\"%s\" "
			        "stroke-width=\"1.5\" points=\"",
			        OBSPLOT_LINE);
		fprintf(p->f, "%s%.1f,%.1f", open ? " " : "", x, y);
		open = true;
	}
	if (open)
		fputs("\"/>\n", p->f);
}

void obsplot_svg(FILE *f, const struct campaign *c, size_t wi, const struct step_point *pts,
                 size_t n, const struct runend *end)
{
	struct obsplot_ctx p = {
	    .f = f, .c = c, .w = &c->workloads[wi], .pts = pts, .n = n, .end = end};
	size_t panels = 0, at = 0;
	double len, height;

	if (c->nobserve == 0 || end == NULL || n == 0)
		return;
	for (size_t s = 0; s < c->nobserve; s++)
		panels += c->observe[s].nseries;
	p.t_end = obsplot_step_at(&p, n - 1, &len) + len;
	height = OBSPLOT_TOP + (double)panels * (OBSPLOT_PANEL + OBSPLOT_GAP) + 10;
	fprintf(f,
	        "<svg id=\"observed-%zu\" xmlns=\"http://www.w3.org/2000/svg\" width=\"%d\" "
	        "height=\"%.0f\" viewBox=\"0 0 %d %.0f\" font-family=\"%s\">\n"
	        "<rect width=\"100%%\" height=\"100%%\" fill=\"white\"/>\n",
	        wi + 1, OBSPLOT_W, height, OBSPLOT_W, height, OBSPLOT_FONT);
	for (size_t s = 0; s < c->nobserve; s++)
		for (size_t k = 0; k < c->observe[s].nseries; k++)
			obsplot_panel(&p, s, k,
			              OBSPLOT_TOP + (double)at++ * (OBSPLOT_PANEL + OBSPLOT_GAP));
	{
		char buf[32];

		snprintf(buf, sizeof(buf), "%.0f s", p.t_end);
		obsplot_text(f, OBSPLOT_X1, height - 6, "end", 10, buf);
		obsplot_text(f, OBSPLOT_X0, height - 6, "start", 10, "0 s");
	}
	fputs("</svg>\n", f);
}
