/* SPDX-License-Identifier: MIT */
/* A workload over time: throughput and latency per interval across its steps, as SVG. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "curve.h"
#include "markup.h"
#include "timeplot.h"
#include "units.h"

#define TIMEPLOT_W          900
#define TIMEPLOT_H          460
#define TIMEPLOT_X0         84.0
#define TIMEPLOT_X1         870.0
#define TIMEPLOT_TOP0       40.0 /* throughput panel */
#define TIMEPLOT_TOP1       200.0
#define TIMEPLOT_BOT0       230.0 /* latency panel */
#define TIMEPLOT_BOT1       410.0
#define TIMEPLOT_FONT       "DejaVu Sans, Helvetica, Arial, sans-serif"
#define TIMEPLOT_TPUT       "#1f77b4"
#define TIMEPLOT_MEAN       "#2ca02c"
#define TIMEPLOT_P99        "#d62728"
#define TIMEPLOT_SLO        "#ff7f0e"
#define TIMEPLOT_MARK       "#9467bd" /* a user's mark */
#define TIMEPLOT_FIN        "#8c564b" /* a finish mark */
#define TIMEPLOT_MARK_CHARS 36        /* a label longer is cut (with "...") */

struct timeplot_ctx {
	FILE *f;
	bool mib, decimal;     /* decimal: MB/s and IOPS (units: decimal) */
	double block;          /* bytes per operation, for MiB/s */
	const char *unit;      /* the throughput's, as shown (curve_unit) */
	double t_end;          /* seconds */
	double y_top;          /* throughput axis top */
	double lat_lo, lat_hi; /* latency axis, ns, decades */
};

static double timeplot_x(const struct timeplot_ctx *p, double t)
{
	return TIMEPLOT_X0 + (TIMEPLOT_X1 - TIMEPLOT_X0) * (p->t_end > 0 ? t / p->t_end : 0);
}

static double timeplot_ytput(const struct timeplot_ctx *p, double v)
{
	return TIMEPLOT_TOP1 - (TIMEPLOT_TOP1 - TIMEPLOT_TOP0) * (p->y_top > 0 ? v / p->y_top : 0);
}

static double timeplot_ylat(const struct timeplot_ctx *p, double ns)
{
	double lo = log10(p->lat_lo), hi = log10(p->lat_hi);
	double v = ns < p->lat_lo ? lo : ns > p->lat_hi ? hi : log10(ns);

	return TIMEPLOT_BOT1 - (TIMEPLOT_BOT1 - TIMEPLOT_BOT0) * (v - lo) / (hi - lo);
}

static double timeplot_tput(const struct timeplot_ctx *p, double ops_s)
{
	return p->mib ? ops_s * p->block / (p->decimal ? 1e6 : 1024.0 * 1024.0) : ops_s;
}

/* The axes' ranges: all of time, the highest throughput or offered rate, latency decades. */
static void timeplot_ranges(struct timeplot_ctx *p, const struct step_point *pts, size_t n)
{
	double top = 0, lo = INFINITY, hi = 0;

	for (size_t i = 0; i < n; i++) {
		if (pts[i].offered_ops > 0 && timeplot_tput(p, pts[i].offered_ops) > top)
			top = timeplot_tput(p, pts[i].offered_ops);
		for (uint32_t k = 0; k < pts[i].nticks; k++) {
			const struct step_tick *t = &pts[i].ticks[k];

			p->t_end += t->seconds;
			if (timeplot_tput(p, t->ops_s) > top)
				top = timeplot_tput(p, t->ops_s);
			if (t->mean_ns > 0 && t->mean_ns < lo)
				lo = t->mean_ns;
			if ((double)t->p99_ns > hi)
				hi = (double)t->p99_ns;
		}
	}
	p->y_top = top > 0 ? top * 1.1 : 1;
	p->lat_lo = isfinite(lo) ? pow(10, floor(log10(lo))) : 1e3;
	p->lat_hi = hi > p->lat_lo ? pow(10, ceil(log10(hi))) : p->lat_lo * 10;
	if (p->lat_hi <= p->lat_lo)
		p->lat_hi = p->lat_lo * 10;
}

static void timeplot_text(FILE *f, double x, double y, const char *anchor, double size,
                          const char *text)
{
	fprintf(f,
	        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"%s\" font-size=\"%.0f\" "
	        "fill=\"#333333\">%s</text>\n",
	        x, y, anchor, size, text);
}

/* Steps shaded in turn, warm-up lighter, numbered above the upper panel. */
static void timeplot_bands(const struct timeplot_ctx *p, const struct step_point *pts, size_t n)
{
	double t = 0;
	char label[32];

	for (size_t i = 0; i < n; i++) {
		double t0 = t;

		for (uint32_t k = 0; k < pts[i].nticks; k++) {
			const struct step_tick *tk = &pts[i].ticks[k];
			double x0 = timeplot_x(p, t), x1 = timeplot_x(p, t + tk->seconds);
			const char *fill = tk->warmup ? "#fff6e0" : i % 2 ? "#f0f0f0" : "#ffffff";

			fprintf(p->f,
			        "<rect class=\"%s\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
			        "height=\"%.1f\" "
			        "fill=\"%s\"/>\n"
			        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
			        "fill=\"%s\"/>\n",
			        tk->warmup ? "warmup" : "measured", x0, TIMEPLOT_TOP0, x1 - x0,
			        TIMEPLOT_TOP1 - TIMEPLOT_TOP0, fill, x0, TIMEPLOT_BOT0, x1 - x0,
			        TIMEPLOT_BOT1 - TIMEPLOT_BOT0, fill);
			t += tk->seconds;
		}
		snprintf(label, sizeof(label), "%u", pts[i].step + 1);
		if (timeplot_x(p, t) - timeplot_x(p, t0) >= 10)
			timeplot_text(p->f, (timeplot_x(p, t0) + timeplot_x(p, t)) / 2,
			              TIMEPLOT_TOP0 - 4, "middle", 10, label);
	}
}

/* One polyline through every interval's value (its middle), skipping intervals without one. */
static void timeplot_line(const struct timeplot_ctx *p, const struct step_point *pts, size_t n,
                          int which, const char *color, const char *cls)
{
	double t = 0;
	bool open = false;

	for (size_t i = 0; i < n; i++) {
		for (uint32_t k = 0; k < pts[i].nticks; k++) {
			const struct step_tick *tk = &pts[i].ticks[k];
			double x = timeplot_x(p, t + tk->seconds / 2), y;

			t += tk->seconds;
			if (which == 0)
				y = timeplot_ytput(p, timeplot_tput(p, tk->ops_s));
			else if ((which == 1 ? tk->mean_ns : (double)tk->p99_ns) > 0)
				y = timeplot_ylat(p, which == 1 ? tk->mean_ns : (double)tk->p99_ns);
			else
				continue;
			if (!open)
				fprintf(p->f,
				        "<polyline class=\"%s\" fill=\"none\" stroke=\"%s\" "
				        "stroke-width=\"1.5\" points=\"",
				        cls, color);
			fprintf(p->f, "%s%.1f,%.1f", open ? " " : "", x, y);
			open = true;
		}
	}
	if (open)
		fputs("\"/>\n", p->f);
}

/* Each step's offered rate as a dashed level across it. */
static void timeplot_offered(const struct timeplot_ctx *p, const struct step_point *pts, size_t n)
{
	double t = 0;

	for (size_t i = 0; i < n; i++) {
		double t0 = t, y;

		for (uint32_t k = 0; k < pts[i].nticks; k++)
			t += pts[i].ticks[k].seconds;
		if (pts[i].offered_ops <= 0)
			continue; /* max: as fast as it goes */
		y = timeplot_ytput(p, timeplot_tput(p, pts[i].offered_ops));
		fprintf(p->f,
		        "<line class=\"offered\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		        "stroke=\"#777777\" stroke-dasharray=\"4 3\"/>\n",
		        timeplot_x(p, t0), y, timeplot_x(p, t), y);
	}
}

static void timeplot_axes(const struct timeplot_ctx *p, uint64_t slo_ns)
{
	char buf[48];

	fprintf(p->f,
	        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
	        "stroke=\"#333333\"/>\n"
	        "<rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" fill=\"none\" "
	        "stroke=\"#333333\"/>\n",
	        TIMEPLOT_X0, TIMEPLOT_TOP0, TIMEPLOT_X1 - TIMEPLOT_X0,
	        TIMEPLOT_TOP1 - TIMEPLOT_TOP0, TIMEPLOT_X0, TIMEPLOT_BOT0,
	        TIMEPLOT_X1 - TIMEPLOT_X0, TIMEPLOT_BOT1 - TIMEPLOT_BOT0);
	for (int k = 0; k <= 4; k++) {
		double v = p->y_top * k / 4;

		snprintf(buf, sizeof(buf), p->y_top >= 100 ? "%.0f" : "%.1f", v);
		timeplot_text(p->f, TIMEPLOT_X0 - 6, timeplot_ytput(p, v) + 4, "end", 11, buf);
	}
	snprintf(buf, sizeof(buf), "%s per interval (dashed: offered)", p->unit);
	timeplot_text(p->f, 14, TIMEPLOT_TOP0 - 24 + 10, "start", 12, buf);
	for (double d = p->lat_lo; d <= p->lat_hi * 1.0001; d *= 10) {
		double y = timeplot_ylat(p, d);

		units_format_duration((uint64_t)d, buf, sizeof(buf));
		fprintf(
		    p->f,
		    "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#e6e6e6\"/>\n",
		    TIMEPLOT_X0, y, TIMEPLOT_X1, y);
		timeplot_text(p->f, TIMEPLOT_X0 - 6, y + 4, "end", 11, buf);
	}
	if (slo_ns > 0 && (double)slo_ns > p->lat_lo && (double)slo_ns < p->lat_hi) {
		double y = timeplot_ylat(p, (double)slo_ns);

		fprintf(p->f,
		        "<line class=\"slo\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
		        "stroke=\"%s\" stroke-dasharray=\"6 3\"/>\n",
		        TIMEPLOT_X0, y, TIMEPLOT_X1, y, TIMEPLOT_SLO);
	}
	fprintf(p->f,
	        "<text x=\"14\" y=\"%.1f\" font-size=\"12\" fill=\"#333333\">latency per interval: "
	        "<tspan fill=\"%s\">mean</tspan>, <tspan fill=\"%s\">p99</tspan>, <tspan "
	        "fill=\"%s\">SLO</tspan> (log scale)</text>\n",
	        TIMEPLOT_BOT0 - 8, TIMEPLOT_MEAN, TIMEPLOT_P99, TIMEPLOT_SLO);
	for (int k = 0; k <= 5; k++) {
		double t = p->t_end * k / 5;

		snprintf(buf, sizeof(buf), "%.0f s", t);
		timeplot_text(p->f, timeplot_x(p, t), TIMEPLOT_BOT1 + 16, "middle", 11, buf);
	}
	timeplot_text(p->f, (TIMEPLOT_X0 + TIMEPLOT_X1) / 2, TIMEPLOT_BOT1 + 36, "middle", 12,
	              "time since the workload's first interval; steps numbered and shaded in "
	              "turn, warm-up in yellow");
}

/* Where mark m lies on the time axis, in seconds; false when its step is not drawn. */
static bool timeplot_mark_at(const struct step_point *pts, size_t n, const struct run_mark *m,
                             double *at)
{
	double t = 0;

	for (size_t i = 0; i < n; i++) {
		double len = 0, off = (double)m->at_ns / 1e9;

		for (uint32_t k = 0; k < pts[i].nticks; k++)
			len += pts[i].ticks[k].seconds;
		if (pts[i].step == m->step) {
			*at = t + (off < len ? off : len);
			return true;
		}
		t += len;
	}
	return false;
}

/* The label: up to TIMEPLOT_MARK_CHARS characters of the text (UTF-8 kept whole). */
static void timeplot_mark_label(FILE *f, const char *text)
{
	size_t i = 0, chars = 0;

	while (text[i] != '\0' && chars < TIMEPLOT_MARK_CHARS) {
		i++;
		while (((unsigned char)text[i] & 0xc0) == 0x80)
			i++;
		chars++;
	}
	markup_escape_n(f, text, i);
	if (text[i] != '\0')
		fputs("...", f);
}

/* Each mark of the workload: a dashed vertical line across both panels, its label beside it. */
static void timeplot_marks(const struct timeplot_ctx *p, const struct workload *w,
                           const struct step_point *pts, size_t n, const struct run_mark *marks,
                           size_t nmarks)
{
	for (size_t i = 0; i < nmarks; i++) {
		const struct run_mark *m = &marks[i];
		bool finish = strcmp(m->source, MARK_SOURCE_FINISH) == 0;
		double at, x;

		if (strcmp(m->workload, w->name) != 0 || !timeplot_mark_at(pts, n, m, &at))
			continue;
		x = timeplot_x(p, at);
		fprintf(p->f, "<g class=\"mark\" data-source=\"");
		markup_escape(p->f, m->source);
		fprintf(p->f, "\" data-step=\"%u\" data-at=\"%.3f\">\n<title>", m->step, at);
		markup_escape(p->f, m->text);
		if (m->agent[0] != '\0') {
			fputs(" (", p->f);
			markup_escape(p->f, m->agent);
			fputs(")", p->f);
		}
		fprintf(p->f, " at %.1f s</title>\n", at);
		fprintf(p->f,
		        "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"%s\" "
		        "stroke-width=\"1.2\" stroke-dasharray=\"2 2\"/>\n",
		        x, TIMEPLOT_TOP0, x, TIMEPLOT_BOT1, finish ? TIMEPLOT_FIN : TIMEPLOT_MARK);
		fprintf(p->f,
		        "<text class=\"mark-label\" x=\"%.1f\" y=\"%.1f\" font-size=\"10\" "
		        "fill=\"%s\" transform=\"rotate(-90 %.1f %.1f)\">",
		        x - 3, TIMEPLOT_TOP1 - 4, finish ? TIMEPLOT_FIN : TIMEPLOT_MARK, x - 3,
		        TIMEPLOT_TOP1 - 4);
		timeplot_mark_label(p->f, m->text);
		fputs("</text>\n</g>\n", p->f);
	}
}

void timeplot_svg(FILE *f, const struct workload *w, const struct step_point *pts, size_t n,
                  uint64_t slo_ns, const struct run_mark *marks, size_t nmarks)
{
	struct timeplot_ctx p = {.f = f,
	                         .mib = curve_uses_mib(w),
	                         .decimal = curve_decimal(w),
	                         .unit = curve_unit(w),
	                         .block = w->io.block_size};

	timeplot_ranges(&p, pts, n);
	fprintf(
	    f,
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"timeplot\" viewBox=\"0 0 %d %d\" "
	    "width=\"%d\" height=\"%d\" font-family=\"%s\">\n",
	    TIMEPLOT_W, TIMEPLOT_H, TIMEPLOT_W, TIMEPLOT_H, TIMEPLOT_FONT);
	fprintf(f, "<rect width=\"%d\" height=\"%d\" fill=\"#ffffff\"/>\n", TIMEPLOT_W, TIMEPLOT_H);
	timeplot_bands(&p, pts, n);
	timeplot_axes(&p, slo_ns);
	timeplot_offered(&p, pts, n);
	timeplot_line(&p, pts, n, 0, TIMEPLOT_TPUT, "tput");
	timeplot_line(&p, pts, n, 1, TIMEPLOT_MEAN, "mean");
	timeplot_line(&p, pts, n, 2, TIMEPLOT_P99, "p99");
	timeplot_marks(&p, w, pts, n, marks, nmarks);
	fputs("</svg>\n", f);
}
