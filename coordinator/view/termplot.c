/* SPDX-License-Identifier: MIT */
/* Ops-latency curves as character plots, for the terminal dashboard. */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "termplot.h"

#define TERMPLOT_LABEL_W 7 /* y tick labels, then the '|' of the axis */

/* The smallest 1, 2, 2.5 or 5 times a power of ten at or above raw: steps people read. */
static double termplot_nice(double raw)
{
	static const double mult[] = {1, 2, 2.5, 5, 10};
	double p;

	if (!(raw > 0) || !isfinite(raw))
		return 1;
	p = pow(10, floor(log10(raw)));
	for (size_t i = 0; i < sizeof(mult) / sizeof(mult[0]); i++)
		if (raw <= mult[i] * p * (1 + 1e-9))
			return mult[i] * p;
	return 10 * p;
}

/* Just the decimals v needs (2.5 → 1, 5 → 0), at most 2: tick labels stay short. */
static int termplot_decimals(double v)
{
	int d = 0;

	while (d < 2 && fabs(v * pow(10, d) - round(v * pow(10, d))) > 1e-6)
		d++;
	return d;
}

/* A tick label in the scale the step calls for: 20000 → "20k", 1500000 → "1.5M". */
static void termplot_fmt_tick(double v, double div, const char *suffix, char *buf, size_t len)
{
	v /= div;
	snprintf(buf, len, "%.*f%s", termplot_decimals(v), v, v == 0 ? "" : suffix);
}

static void termplot_text(char *out, int w, int row, int col, const char *s)
{
	for (; *s != '\0' && col < w; s++, col++)
		if (col >= 0)
			out[row * (w + 1) + col] = *s;
}

/* The plot row (0 = top, ph = the x axis) of latency y. */
static int termplot_row(double y, double ymax, int ph)
{
	return ph - (int)lround(y / ymax * ph);
}

static int termplot_col(double x, double xmax, int pw)
{
	int c = (int)lround(x / xmax * (pw - 1));

	return c < 0 ? 0 : c >= pw ? pw - 1 : c;
}

/* The y range and its tick step: 0 up to the points, but between 1.5x and 3x the SLO. */
static void termplot_yrange(const struct termplot *p, int ph, double *ymax, double *step)
{
	double maxy = 0;
	int ticks;

	for (size_t i = 0; i < p->n; i++)
		if (isfinite(p->pts[i].y) && p->pts[i].y > maxy)
			maxy = p->pts[i].y;
	if (p->slo > 0)
		*ymax = fmin(fmax(maxy * 1.1, p->slo * 1.5), p->slo * 3);
	else
		*ymax = maxy > 0 ? maxy * 1.1 : 1000;
	/* A labelled tick every three rows, every two on a short plot: the top stays near. */
	ticks = ph >= 12 ? ph / 3 : ph / 2;
	*step = termplot_nice(*ymax / (ticks > 1 ? ticks : 1));
	*ymax = ceil(*ymax / *step - 1e-9) * *step;
}

/* The x range and its tick step; false when there is nothing to scale it by. */
static bool termplot_xrange(const struct termplot *p, int pw, double *xmax, double *step)
{
	double maxx = fmax(p->knee_x, p->bracket_hi);

	for (size_t i = 0; i < p->n; i++)
		if (isfinite(p->pts[i].x) && p->pts[i].x > maxx)
			maxx = p->pts[i].x;
	*xmax = maxx > 0 ? maxx * 1.05 : 1;
	/* A tick every 8 columns or more: room for labels like "120k" with a gap. */
	*step = termplot_nice(*xmax / (pw / 8 > 1 ? pw / 8 : 1));
	*xmax = ceil(*xmax / *step - 1e-9) * *step;
	return maxx > 0;
}

static void termplot_axes(const struct termplot *p, char *out, int w, int h, int pw, int ph,
                          double xmax, double xstep, bool xdata, double ymax, double ystep)
{
	const int x0 = TERMPLOT_LABEL_W + 1;
	const char *yunit = ymax >= 1e6 ? "s" : ymax >= 1e3 ? "ms" : "us";
	const char *xunit = p->x_unit != NULL ? p->x_unit : "";
	double ydiv = ymax >= 1e6 ? 1e6 : ymax >= 1e3 ? 1e3 : 1;
	double xdiv = xstep >= 1e6 ? 1e6 : xstep >= 1e3 ? 1e3 : 1;
	const char *xsuf = xstep >= 1e6 ? "M" : xstep >= 1e3 ? "k" : "";
	int unit_col = w - (int)strlen(xunit), last_end = -2;
	char buf[64];

	snprintf(buf, sizeof(buf), "%s (%s)", p->y_title != NULL ? p->y_title : "latency", yunit);
	termplot_text(out, w, 0, 0, buf);
	for (int r = 0; r < ph; r++)
		out[(1 + r) * (w + 1) + x0 - 1] = '|';
	out[(1 + ph) * (w + 1) + x0 - 1] = '+';
	for (int c = 0; c < pw; c++)
		out[(1 + ph) * (w + 1) + x0 + c] = '-';
	for (int i = 0; i * ystep <= ymax * (1 + 1e-9); i++) {
		char label[TERMPLOT_LABEL_W + 8];

		termplot_fmt_tick(i * ystep, ydiv, "", buf, sizeof(buf));
		snprintf(label, sizeof(label), "%*.*s", TERMPLOT_LABEL_W - 1, TERMPLOT_LABEL_W - 1,
		         buf);
		termplot_text(out, w, 1 + termplot_row(i * ystep, ymax, ph), 0, label);
	}
	termplot_text(out, w, h - 1, unit_col, xunit);
	/* No points yet: an x scale would be made up. */
	for (int i = 0; i * xstep <= xmax * (1 + 1e-9) && (xdata || i == 0); i++) {
		int c = termplot_col(i * xstep, xmax, pw), len, start;

		termplot_fmt_tick(i * xstep, xdiv, xsuf, buf, sizeof(buf));
		len = (int)strlen(buf);
		start = x0 + c - len / 2;
		if (start <= last_end + 1 || start + len >= unit_col)
			continue;
		if (c > 0) /* the origin has its own '+' */
			out[(1 + ph) * (w + 1) + x0 + c] = '+';
		termplot_text(out, w, h - 1, start, buf);
		last_end = start + len - 1;
	}
}

int termplot_render(const struct termplot *p, int w, int h, char *out, struct termplot_area *area)
{
	const int x0 = TERMPLOT_LABEL_W + 1;
	int pw = w - x0, ph = h - 3, slo_row = -1;
	double xmax, xstep, ymax, ystep;
	bool xdata;

	if (pw < 10 || ph < 3)
		return -1;
	for (int r = 0; r < h; r++) {
		memset(out + r * (w + 1), ' ', (size_t)w);
		out[r * (w + 1) + w] = '\0';
	}
	termplot_yrange(p, ph, &ymax, &ystep);
	xdata = termplot_xrange(p, pw, &xmax, &xstep);
	termplot_axes(p, out, w, h, pw, ph, xmax, xstep, xdata, ymax, ystep);
#define TERMPLOT_CELL(r, c) out[(1 + (r)) * (w + 1) + x0 + (c)]
	if (p->slo > 0) {
		slo_row = termplot_row(p->slo, ymax, ph);
		slo_row = slo_row < 0 ? 0 : slo_row >= ph ? ph - 1 : slo_row;
		for (int c = 0; c < pw; c++)
			TERMPLOT_CELL(slo_row, c) = '-';
		if (p->bracket_lo > 0 && p->bracket_hi > 0) {
			int lo = termplot_col(fmin(p->bracket_lo, p->bracket_hi), xmax, pw);
			int hi = termplot_col(fmax(p->bracket_lo, p->bracket_hi), xmax, pw);

			TERMPLOT_CELL(slo_row, lo) = '[';
			if (hi <= lo)
				hi = lo + 1;
			if (hi < pw)
				TERMPLOT_CELL(slo_row, hi) = ']';
		}
	}
	for (size_t i = 0; i < p->n; i++) {
		double x = p->pts[i].x, y = p->pts[i].y;
		int r;

		if (!isfinite(x) || !isfinite(y))
			continue;
		if (y > ymax) {
			TERMPLOT_CELL(0, termplot_col(x, xmax, pw)) = '^';
			continue;
		}
		r = termplot_row(y, ymax, ph);
		TERMPLOT_CELL(r >= ph ? ph - 1 : r, termplot_col(x, xmax, pw)) = '*';
	}
	/* The knee goes last: it is the answer, nothing may hide it. */
	if (slo_row >= 0 && p->knee_x > 0)
		TERMPLOT_CELL(slo_row, termplot_col(p->knee_x, xmax, pw)) = 'K';
#undef TERMPLOT_CELL
	if (area != NULL)
		*area = (struct termplot_area){x0, 1, pw, ph};
	return 0;
}
