/* SPDX-License-Identifier: MIT */
/* Ops-latency curves as standalone SVG: axes, one marker per step, the SLO line and the knee. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "markup.h"
#include "plot.h"
#include "table.h"
#include "units.h"
#include "xalloc.h"

/* The canvas, and the plot area inside it (user units): margins hold tick labels and titles. */
#define PLOT_W      800
#define PLOT_H      500
#define PLOT_X0     84.0
#define PLOT_X1     772.0
#define PLOT_Y0     62.0
#define PLOT_Y1     438.0
#define PLOT_FONT   "DejaVu Sans, Helvetica, Arial, sans-serif"
#define PLOT_AXIS   "#333333"
#define PLOT_GRID   "#e6e6e6"
#define PLOT_MUTED  "#555555"
#define PLOT_SMALL  11.0 /* font size of the clipped points' values */
#define PLOT_CHAR_W 0.6  /* average glyph width in em: enough to keep labels apart */

/*
 * A saturated step can sit at 100x the SLO; scaled to it, everything under the
 * SLO (the part people read) is a flat line. Past this factor the axis stops at
 * PLOT_CLIP_KEEP x SLO (or the highest point under the factor) and the rest are
 * drawn at the top edge with their value.
 */
#define PLOT_CLIP_FACTOR 10.0
#define PLOT_CLIP_KEEP   3.0
/* Labels of clipped points stack in this many rows below the top edge before overlapping. */
#define PLOT_LABEL_ROWS 6

/* Tableau 10: distinct for the common kinds of colour blindness, legible on white. */
static const char *const plot_colors[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                          "#9467bd", "#8c564b", "#e377c2", "#17becf"};
#define PLOT_NCOLORS (sizeof(plot_colors) / sizeof(plot_colors[0]))

/* One axis: data runs from 0 to top, ticks every step, printed as value / div + suffix. */
struct plot_axis {
	double top;
	double step;
	double div;
	const char *suffix;
	int decimals;
};

/* A clipped point's value label, placed after every point is known so labels can dodge. */
struct plot_label {
	double x, y;
	const char *color;
	char text[32];
};

struct plot_ctx {
	FILE *f;
	const struct workload *w;
	bool mib;
	enum slo_metric metric;
	double slo; /* ns; 0: no SLO line */
	struct plot_axis x, y;
	const char *yunit;
	struct plot_label *labels;
	size_t nlabels, alabels;
};

/* Estimated width of a label in user units: UTF-8 continuation bytes are not glyphs. */
static double plot_text_w(const char *s, double size)
{
	size_t glyphs = 0;

	for (; *s; s++)
		if (((unsigned char)*s & 0xc0) != 0x80)
			glyphs++;
	return (double)glyphs * size * PLOT_CHAR_W;
}

/* "1.50" -> "1.5", "2.00" -> "2": numbers read better without trailing zeros. */
static void plot_trim(char *num)
{
	char *e;

	if (strchr(num, '.') == NULL)
		return;
	e = num + strlen(num);
	while (e > num && e[-1] == '0')
		*--e = '\0';
	if (e > num && e[-1] == '.')
		e[-1] = '\0';
}

/* A duration as people write an SLO: "1ms", "1.5ms", "250us". */
static void plot_fmt_dur(double ns, char *buf, size_t len)
{
	char num[32];
	size_t i = 0;

	units_format_duration(ns > 0 ? (uint64_t)llround(ns) : 0, buf, len);
	while (buf[i] && (buf[i] == '.' || (buf[i] >= '0' && buf[i] <= '9')))
		i++;
	snprintf(num, sizeof(num), "%.*s", (int)i, buf);
	plot_trim(num);
	snprintf(num + strlen(num), sizeof(num) - strlen(num), "%s", buf + i);
	snprintf(buf, len, "%s", num);
}

/* Fixed decimals with thousands separators: 12345.6 -> "12,345.6". */
static void plot_group(double v, int decimals, char *buf, size_t len)
{
	char raw[64], *dot;
	size_t out = 0, ndig;
	const char *p = raw;

	snprintf(raw, sizeof(raw), "%.*f", decimals, v);
	if (*p == '-' && out + 1 < len)
		buf[out++] = *p++;
	dot = strchr(p, '.');
	ndig = dot ? (size_t)(dot - p) : strlen(p);
	for (size_t i = 0; i < ndig && out + 1 < len; i++) {
		if (i > 0 && (ndig - i) % 3 == 0 && out + 2 < len)
			buf[out++] = ',';
		buf[out++] = p[i];
	}
	buf[out] = '\0';
	if (dot)
		snprintf(buf + out, len - out, "%s", dot);
}

/* Three significant digits, trailing zeros dropped: 46321 -> "46.3", 1.5 -> "1.5". */
static void plot_3sig(double v, char *buf, size_t len)
{
	if (v < 9.995)
		snprintf(buf, len, "%.2f", v);
	else if (v < 99.95)
		snprintf(buf, len, "%.1f", v);
	else
		snprintf(buf, len, "%.0f", v);
	plot_trim(buf);
}

/* v to three significant digits, cut, never raised: a measured figure's label. */
static void plot_3sig_cut(double v, char *buf, size_t len)
{
	double scale = v < 9.995 ? 100 : v < 99.95 ? 10 : 1;

	plot_3sig(floor(v * scale + 1e-9) / scale, buf, len);
}

/*
 * A throughput for a label: "46.3k ops/s", "1.2M ops/s", "812 MiB/s", "1,536 MiB/s";
 * digits cut, never raised (43,777 reads 43.7k).
 */
static void plot_fmt_rate(const struct workload *w, double v, bool mib, char *buf, size_t len)
{
	char num[24];
	const char *ops = curve_rate_unit(w);

	if (mib) {
		if (v < 100)
			plot_3sig_cut(v, num, sizeof(num));
		else
			plot_group(floor(v + 1e-9), 0, num, sizeof(num));
		snprintf(buf, len, "%s %s", num, curve_bw_unit(w));
	} else if (v >= 1e6) {
		plot_3sig_cut(v / 1e6, num, sizeof(num));
		snprintf(buf, len, "%sM %s", num, ops);
	} else if (v >= 1e3) {
		plot_3sig_cut(v / 1e3, num, sizeof(num));
		snprintf(buf, len, "%sk %s", num, ops);
	} else {
		snprintf(buf, len, "%.0f %s", floor(v + 1e-9), ops);
	}
}

/* Round tick spacing (1, 2, 2.5 or 5 x 10^k) giving about target ticks up to max. */
static void plot_axis_fit(struct plot_axis *a, double max, int target)
{
	double raw, mag, frac, step;

	if (!(max > 0) || !isfinite(max))
		max = 1;
	raw = max / target;
	mag = pow(10, floor(log10(raw)));
	frac = raw / mag;
	if (frac <= 1)
		step = 1;
	else if (frac <= 2)
		step = 2;
	else if (frac <= 2.5)
		step = 2.5;
	else if (frac <= 5)
		step = 5;
	else
		step = 10;
	a->step = step * mag;
	a->top = ceil(max / a->step - 1e-9) * a->step;
	a->div = 1;
	a->suffix = "";
}

/* Enough decimals to print every tick exactly (0.25 needs two, 2.5 one, 20 none). */
static void plot_axis_decimals(struct plot_axis *a)
{
	double s = a->step / a->div;

	a->decimals = 0;
	while (a->decimals < 6 && fabs(s - round(s)) > 1e-6 * s) {
		s *= 10;
		a->decimals++;
	}
}

static void plot_fmt_tick(const struct plot_axis *a, double v, char *buf, size_t len)
{
	/* "0", not "0.0": the origin needs no precision. */
	plot_group(v / a->div, v > 0 ? a->decimals : 0, buf, len);
	snprintf(buf + strlen(buf), len - strlen(buf), "%s", v > 0 ? a->suffix : "");
}

static double plot_thr(const struct plot_ctx *p, const struct step_point *pt)
{
	double v = p->mib ? curve_shown_bw(p->w, pt->mib_s) : pt->achieved_ops;

	return isfinite(v) && v > 0 ? v : 0;
}

/* The latency drawn for a step; INFINITY when it has none (nothing completed). */
static double plot_lat(const struct plot_ctx *p, const struct step_point *pt)
{
	double v;

	if (pt->ops == 0)
		return INFINITY;
	v = step_metric(pt, p->metric);
	return isfinite(v) && v >= 0 ? v : INFINITY;
}

static double plot_px(const struct plot_ctx *p, double v)
{
	return PLOT_X0 + fmin(v, p->x.top) / p->x.top * (PLOT_X1 - PLOT_X0);
}

/* Values over the axis (clipped points, steps without latency) sit on the top edge. */
static double plot_py(const struct plot_ctx *p, double ns)
{
	return PLOT_Y1 - fmin(ns, p->y.top) / p->y.top * (PLOT_Y1 - PLOT_Y0);
}

/* Axis ranges from every series: both start at 0 so distances compare honestly. */
static void plot_ranges(struct plot_ctx *p, const struct plot_series *series, size_t nseries)
{
	double xmax = 0, lmax = 0, lunder = 0, ycap;
	bool over = false;

	for (size_t s = 0; s < nseries; s++) {
		const struct plot_series *ps = &series[s];

		for (size_t i = 0; i < ps->n; i++) {
			double l = plot_lat(p, &ps->pts[i]);

			xmax = fmax(xmax, plot_thr(p, &ps->pts[i]));
			if (!isfinite(l))
				continue;
			lmax = fmax(lmax, l);
			if (p->slo > 0 && l > PLOT_CLIP_FACTOR * p->slo)
				over = true;
			else
				lunder = fmax(lunder, l);
		}
		if (ps->knee && isfinite(ps->knee->throughput))
			xmax = fmax(xmax, curve_shown(p->w, ps->knee->throughput));
	}
	ycap = over ? fmax(PLOT_CLIP_KEEP * p->slo, lunder) : fmax(lmax, p->slo);
	if (!(ycap > 0))
		ycap = 1000; /* nothing to scale by: a 1us axis */

	plot_axis_fit(&p->x, xmax * 1.04, 7);
	if (!p->mib && p->x.top >= 1e6) {
		p->x.div = 1e6;
		p->x.suffix = "M";
	} else if (!p->mib && p->x.top >= 1e3) {
		p->x.div = 1e3;
		p->x.suffix = "k";
	}
	plot_axis_decimals(&p->x);

	plot_axis_fit(&p->y, ycap * 1.04, 5);
	if (p->y.top < 1e6) {
		p->y.div = 1e3;
		p->yunit = "us";
	} else if (p->y.top < 1e10) {
		p->y.div = 1e6;
		p->yunit = "ms";
	} else {
		p->y.div = 1e9;
		p->yunit = "s";
	}
	plot_axis_decimals(&p->y);
}

static void plot_title_text(const struct workload *w, char *buf, size_t len)
{
	char bs[32];

	char shape[600];

	units_format_size(w->io.block_size, bs, sizeof(bs));
	if (mix_shape_text(&w->io.mix, rw_mode_name(w->io.rw), shape, sizeof(shape)))
		snprintf(buf, len, "%s (%.400s)", w->name ? w->name : "", shape);
	else if (rw_is_mix(w->io.rw) && w->io.read_pct <= 100)
		snprintf(buf, len, "%s (%s %u%% reads, %s blocks)", w->name ? w->name : "",
		         rw_mode_name(w->io.rw), w->io.read_pct, bs);
	else
		snprintf(buf, len, "%s (%s, %s blocks)", w->name ? w->name : "",
		         rw_mode_name(w->io.rw), bs);
}

/* Text with a white halo, so a label stays legible over grid lines and curves. */
static void plot_text(FILE *f, double x, double y, const char *anchor, const char *color,
                      double size, const char *text)
{
	fprintf(f,
	        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" fill=\"%s\" font-size=\"%.0f\" "
	        "stroke=\"#ffffff\" stroke-width=\"3\" stroke-linejoin=\"round\" "
	        "paint-order=\"stroke\">",
	        x, y, anchor, color, size);
	markup_escape(f, text);
	fputs("</text>\n", f);
}

static void plot_axes(struct plot_ctx *p)
{
	FILE *f = p->f;
	char buf[64];
	int nx = (int)lround(p->x.top / p->x.step), ny = (int)lround(p->y.top / p->y.step);

	fputs("<g class=\"grid\" stroke=\"" PLOT_GRID "\" stroke-width=\"1\">\n", f);
	for (int i = 1; i <= ny; i++)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n", PLOT_X0,
		        plot_py(p, i * p->y.step), PLOT_X1, plot_py(p, i * p->y.step));
	for (int i = 1; i <= nx; i++)
		fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\"/>\n",
		        plot_px(p, i * p->x.step), PLOT_Y0, plot_px(p, i * p->x.step), PLOT_Y1);
	fputs("</g>\n", f);

	fputs("<g class=\"axes\" fill=\"" PLOT_AXIS "\" font-size=\"12\">\n", f);
	fprintf(f,
	        "<path d=\"M%.1f %.1fV%.1fH%.1f\" fill=\"none\" stroke=\"" PLOT_AXIS
	        "\" stroke-width=\"1.2\"/>\n",
	        PLOT_X0, PLOT_Y0, PLOT_Y1, PLOT_X1);
	for (int i = 0; i <= ny; i++) {
		double y = plot_py(p, i * p->y.step);

		plot_fmt_tick(&p->y, i * p->y.step, buf, sizeof(buf));
		fprintf(f,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" PLOT_AXIS
		        "\"/>\n",
		        PLOT_X0 - 5, y, PLOT_X0, y);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\">%s</text>\n",
		        PLOT_X0 - 8, y + 4, buf);
	}
	for (int i = 0; i <= nx; i++) {
		double x = plot_px(p, i * p->x.step);

		plot_fmt_tick(&p->x, i * p->x.step, buf, sizeof(buf));
		fprintf(f,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"" PLOT_AXIS
		        "\"/>\n",
		        x, PLOT_Y1, x, PLOT_Y1 + 5);
		fprintf(f, "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\">%s</text>\n", x,
		        PLOT_Y1 + 20, buf);
	}
	fprintf(f,
	        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" font-size=\"13\">achieved "
	        "throughput (%s)</text>\n",
	        (PLOT_X0 + PLOT_X1) / 2, PLOT_H - 16.0, curve_unit(p->w));
	fprintf(f,
	        "<text transform=\"translate(22 %.1f) rotate(-90)\" text-anchor=\"middle\" "
	        "font-size=\"13\">%s latency (%s)</text>\n",
	        (PLOT_Y0 + PLOT_Y1) / 2, campaign_slo_metric_name(p->metric), p->yunit);
	fputs("</g>\n", f);
}

/* Where the legend box ends (its bottom edge), or PLOT_Y0 when there is none. */
static double plot_legend_bottom(const struct plot_series *series, size_t nseries)
{
	bool any = nseries > 1;

	for (size_t s = 0; s < nseries && !any; s++)
		any = series[s].label != NULL;
	return any ? PLOT_Y0 + 10 + 8 + 18.0 * (double)nseries : PLOT_Y0;
}

static void plot_slo(struct plot_ctx *p, double legend_bottom)
{
	char dur[32], text[64];
	double y, ty;

	if (!(p->slo > 0))
		return;
	y = plot_py(p, p->slo);
	plot_fmt_dur(p->slo, dur, sizeof(dur));
	snprintf(text, sizeof(text), "SLO %s (%s)", dur, campaign_slo_metric_name(p->metric));
	fprintf(p->f,
	        "<line class=\"slo\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
	        "stroke=\"" PLOT_MUTED "\" stroke-width=\"1.5\" stroke-dasharray=\"7 5\"/>\n",
	        PLOT_X0, y, PLOT_X1, y);
	/*
	 * Left end, above the line: at low load the curve runs well under the SLO,
	 * so that corner is empty. Below the line when the legend or the top edge
	 * is in the way.
	 */
	ty = y - 6;
	if (ty - 12 < legend_bottom || ty - 12 < PLOT_Y0)
		ty = y + 16;
	plot_text(p->f, PLOT_X0 + 8, ty, "start", PLOT_MUTED, 12, text);
}

static void plot_add_label(struct plot_ctx *p, double x, double y, const char *color,
                           const char *text)
{
	struct plot_label *l;

	if (p->nlabels == p->alabels) {
		p->alabels = p->alabels ? 2 * p->alabels : 8;
		p->labels = xreallocarray(p->labels, p->alabels, sizeof(*p->labels));
	}
	l = &p->labels[p->nlabels++];
	l->x = x;
	l->y = y;
	l->color = color;
	snprintf(l->text, sizeof(l->text), "%s", text);
}

static void plot_tooltip(struct plot_ctx *p, const struct plot_series *ps, size_t i)
{
	const struct step_point *pt = &ps->pts[i];
	char offered[48], achieved[48], lat[32];

	if (pt->offered_ops > 0)
		plot_fmt_rate(p->w, pt->offered_ops, false, offered, sizeof(offered));
	else
		snprintf(offered, sizeof(offered), "max (qd %u)", p->w->io.queue_depth);
	plot_group(pt->achieved_ops, 0, achieved, sizeof(achieved));
	fputs("<title>", p->f);
	if (ps->label) {
		markup_escape(p->f, ps->label);
		fputs(", ", p->f);
	}
	fprintf(p->f, "step %u: offered %s, achieved %s %s (%.1f %s), ", pt->step + 1, offered,
	        achieved, curve_rate_unit(p->w), curve_shown_bw(p->w, pt->mib_s),
	        curve_bw_unit(p->w));
	if (isfinite(plot_lat(p, pt))) {
		plot_fmt_dur(plot_lat(p, pt), lat, sizeof(lat));
		fprintf(p->f, "%s %s", campaign_slo_metric_name(p->metric), lat);
	} else {
		fputs("nothing completed", p->f);
	}
	fputs("</title>", p->f);
}

static void plot_series_draw(struct plot_ctx *p, const struct plot_series *ps, const char *color)
{
	FILE *f = p->f;
	size_t joined = 0;

	fprintf(f, "<g class=\"series\" fill=\"%s\">\n", color);
	/* A step that completed nothing has no place on the curve: it is marked, not joined. */
	for (size_t i = 0; i < ps->n; i++)
		joined += isfinite(plot_lat(p, &ps->pts[i]));
	if (joined > 1) {
		fprintf(f,
		        "<polyline fill=\"none\" stroke=\"%s\" stroke-width=\"2\" "
		        "stroke-linejoin=\"round\" points=\"",
		        color);
		for (size_t i = 0, k = 0; i < ps->n; i++) {
			double l = plot_lat(p, &ps->pts[i]);

			if (!isfinite(l))
				continue;
			fprintf(f, "%s%.1f,%.1f", k++ ? " " : "",
			        plot_px(p, plot_thr(p, &ps->pts[i])), plot_py(p, l));
		}
		fputs("\"/>\n", f);
	}
	for (size_t i = 0; i < ps->n; i++) {
		double l = plot_lat(p, &ps->pts[i]);
		double x = plot_px(p, plot_thr(p, &ps->pts[i])), y = plot_py(p, l);

		if (l > p->y.top) {
			char text[32];

			/* An arrow above the edge says "higher than shown"; the label says how
			 * high. */
			fprintf(f, "<path class=\"clipped\" d=\"M%.1f %.1fl5 8h-10z\"/>\n", x,
			        y - 15);
			if (isfinite(l))
				plot_fmt_dur(l, text, sizeof(text));
			else
				snprintf(text, sizeof(text), "no I/O");
			plot_add_label(p, x, y, color, text);
		}
		fprintf(f,
		        "<circle class=\"step\" cx=\"%.1f\" cy=\"%.1f\" r=\"4\" stroke=\"#ffffff\" "
		        "stroke-width=\"1.2\">",
		        x, y);
		plot_tooltip(p, ps, i);
		fputs("</circle>\n", f);
	}
	fputs("</g>\n", f);
}

/*
 * A companion line: value(pt) per step, dashed. A point above the axis breaks
 * the line (joining its neighbours would draw a low value where it was high).
 */
static void plot_companion(struct plot_ctx *p, const struct plot_series *ps, const char *cls,
                           const char *dash, double (*value)(const struct step_point *))
{
	bool open = false;

	for (size_t i = 0; i < ps->n; i++) {
		double v = value(&ps->pts[i]);

		if (ps->pts[i].ops == 0 || !isfinite(v) || v <= 0 || v > p->y.top) {
			if (open)
				fputs("\"/>\n", p->f);
			open = false;
			continue;
		}
		if (!open)
			fprintf(p->f,
			        "<polyline class=\"%s\" fill=\"none\" stroke=\"" PLOT_MUTED
			        "\" stroke-width=\"1.3\" stroke-dasharray=\"%s\" points=\"",
			        cls, dash);
		fprintf(p->f, "%s%.1f,%.1f", open ? " " : "", plot_px(p, plot_thr(p, &ps->pts[i])),
		        plot_py(p, v));
		open = true;
	}
	if (open)
		fputs("\"/>\n", p->f);
}

static double plot_mean_of(const struct step_point *pt)
{
	return pt->mean_ns;
}

static double plot_p99_of(const struct step_point *pt)
{
	return (double)pt->p99_ns;
}

static double plot_svc_of(const struct step_point *pt)
{
	return pt->svc_mean_ns;
}

/* The other statistic and the service time, with a key under the plot. */
static void plot_companions(struct plot_ctx *p, const struct plot_series *ps)
{
	bool mean_slo = p->metric == SLO_MEAN;

	plot_companion(p, ps, "companion-stat", "6 3", mean_slo ? plot_p99_of : plot_mean_of);
	plot_companion(p, ps, "companion-svc", "2 3", plot_svc_of);
	fprintf(p->f,
	        "<text class=\"companions\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"start\" "
	        "font-size=\"11\" fill=\"" PLOT_MUTED "\">dashed: %s; dotted: service time "
	        "(submission to completion)</text>\n",
	        10.0, PLOT_H - 4.0, mean_slo ? "p99 latency" : "mean latency");
}

/* Clipped values go in rows under the top edge; each takes the first row where it fits. */
static void plot_labels_draw(struct plot_ctx *p)
{
	double row_end[PLOT_LABEL_ROWS];

	for (size_t r = 0; r < PLOT_LABEL_ROWS; r++)
		row_end[r] = -1e9;
	for (size_t i = 0; i < p->nlabels; i++) {
		const struct plot_label *l = &p->labels[i];
		double w = plot_text_w(l->text, PLOT_SMALL), x0 = l->x + 7;
		const char *anchor = "start";
		size_t r = 0;

		if (x0 + w > PLOT_X1) {
			x0 = l->x - 7 - w;
			anchor = "end";
		}
		while (r < PLOT_LABEL_ROWS && x0 < row_end[r] + 4)
			r++;
		if (r == PLOT_LABEL_ROWS)
			r = i % PLOT_LABEL_ROWS;
		row_end[r] = x0 + w;
		plot_text(p->f, anchor[0] == 's' ? x0 : x0 + w, l->y + 16 + 13.0 * (double)r,
		          anchor, l->color, PLOT_SMALL, l->text);
	}
}

static void plot_knee_draw(struct plot_ctx *p, const struct plot_series *ps, size_t si,
                           const char *color)
{
	const struct knee *k = ps->knee;
	char rate[48], text[64];
	double kx, ky, tx, ty, w;
	const char *anchor = "start";

	if (k == NULL)
		return;
	if (k->kind == KNEE_INTERPOLATED) {
		ky = p->slo;
	} else if ((k->kind == KNEE_AT_STEP || k->kind == KNEE_ALL_UNDER ||
	            k->kind == KNEE_AT_PEAK) &&
	           k->below < ps->n && k->cross < ps->n) {
		/* at a step: the point of the step whose figure the knee is */
		ky = plot_lat(p, &ps->pts[k->kind == KNEE_AT_STEP ? k->cross : k->below]);
	} else {
		return;
	}
	kx = plot_px(p, isfinite(k->throughput) ? fmax(curve_shown(p->w, k->throughput), 0) : 0);
	ky = plot_py(p, ky);
	plot_fmt_rate(p->w, curve_shown(p->w, k->throughput), p->mib, rate, sizeof(rate));
	snprintf(text, sizeof(text), "knee %s%s", k->kind == KNEE_ALL_UNDER ? "> " : "", rate);

	fprintf(p->f,
	        "<g class=\"knee\">\n<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
	        "stroke=\"%s\" stroke-width=\"1.2\" stroke-dasharray=\"2 3\"/>\n",
	        kx, ky + 8, kx, PLOT_Y1, color);
	fprintf(p->f,
	        "<path d=\"M%.1f %.1fl8 8l-8 8l-8 -8z\" fill=\"%s\" stroke=\"#111111\" "
	        "stroke-width=\"1.5\"/>\n",
	        kx, ky - 8, color);
	/*
	 * Below and right of the knee: past it the curve climbs over the SLO, so that
	 * corner is empty. Near the right edge, above and left for the same reason.
	 * Series stack their labels apart.
	 */
	w = plot_text_w(text, 12);
	tx = kx + 12;
	ty = ky + 24 + 16.0 * (double)si;
	if (tx + w > PLOT_X1) {
		tx = kx - 12;
		ty = ky - 14 - 16.0 * (double)si;
		anchor = "end";
	}
	ty = fmin(fmax(ty, PLOT_Y0 + 14), PLOT_Y1 - 6);
	plot_text(p->f, tx, ty, anchor, color, 12, text);
	fputs("</g>\n", p->f);
}

static void plot_legend(struct plot_ctx *p, const struct plot_series *series, size_t nseries)
{
	double bottom = plot_legend_bottom(series, nseries), wmax = 0, x = PLOT_X0 + 10;
	char name[32];

	if (bottom == PLOT_Y0)
		return;
	for (size_t s = 0; s < nseries; s++) {
		snprintf(name, sizeof(name), "series %zu", s + 1);
		wmax = fmax(wmax, plot_text_w(series[s].label ? series[s].label : name, 12));
	}
	fprintf(p->f,
	        "<g class=\"legend\" font-size=\"12\">\n<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
	        "height=\"%.1f\" fill=\"#ffffff\" fill-opacity=\"0.9\" stroke=\"#cccccc\"/>\n",
	        x, PLOT_Y0 + 10, 46 + wmax, bottom - PLOT_Y0 - 10);
	for (size_t s = 0; s < nseries; s++) {
		const char *color = plot_colors[s % PLOT_NCOLORS];
		double y = PLOT_Y0 + 10 + 4 + 18.0 * (double)s + 9;

		snprintf(name, sizeof(name), "series %zu", s + 1);
		fprintf(
		    p->f,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		    "stroke-width=\"2\"/>\n<circle cx=\"%.1f\" cy=\"%.1f\" r=\"4\" fill=\"%s\"/>\n"
		    "<text x=\"%.1f\" y=\"%.1f\" fill=\"" PLOT_AXIS "\">",
		    x + 8, y, x + 30, y, color, x + 19, y, color, x + 38, y + 4);
		markup_escape(p->f, series[s].label ? series[s].label : name);
		fputs("</text>\n", p->f);
	}
	fputs("</g>\n", p->f);
}

void plot_curve_svg(FILE *f, const struct workload *w, const struct plot_series *series,
                    size_t nseries, enum slo_metric metric, uint64_t slo_ns)
{
	struct plot_ctx p = {
	    .f = f,
	    .w = w,
	    .mib = curve_uses_mib(w),
	    .metric = metric,
	    .slo = (double)slo_ns,
	};
	char title[512];

	plot_ranges(&p, series, nseries);
	plot_title_text(w, title, sizeof(title));

	fprintf(f,
	        "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 %d %d\" width=\"%d\" "
	        "height=\"%d\" font-family=\"" PLOT_FONT "\" role=\"img\">\n<title>",
	        PLOT_W, PLOT_H, PLOT_W, PLOT_H);
	markup_escape(f, title);
	fprintf(f, "</title>\n<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", PLOT_W,
	        PLOT_H);
	fprintf(f,
	        "<text class=\"title\" x=\"%.1f\" y=\"32\" font-size=\"17\" font-weight=\"bold\" "
	        "fill=\"#111111\">",
	        PLOT_X0);
	markup_escape(f, title);
	fputs("</text>\n", f);

	plot_axes(&p);
	plot_slo(&p, plot_legend_bottom(series, nseries));
	for (size_t s = 0; s < nseries; s++)
		if (series[s].companions)
			plot_companions(&p, &series[s]);
	for (size_t s = 0; s < nseries; s++)
		plot_series_draw(&p, &series[s], plot_colors[s % PLOT_NCOLORS]);
	for (size_t s = 0; s < nseries; s++)
		plot_knee_draw(&p, &series[s], s, plot_colors[s % PLOT_NCOLORS]);
	plot_labels_draw(&p);
	plot_legend(&p, series, nseries);
	fputs("</svg>\n", f);
	free(p.labels);
}
