/* SPDX-License-Identifier: MIT */
/* Ops-latency curves as character plots, for the terminal dashboard. */
#ifndef IOCURVE_TERMPLOT_H
#define IOCURVE_TERMPLOT_H

#include <stddef.h>

struct termplot_pt {
	double x; /* throughput, in x_unit */
	double y; /* latency, us */
};

struct termplot {
	const struct termplot_pt *pts;
	size_t n;
	double slo;        /* us: a line of '-' at this latency; 0: none */
	double knee_x;     /* > 0: 'K' on the SLO line at this throughput */
	double bracket_lo; /* both > 0: '[' and ']' on the SLO line around the crossing */
	double bracket_hi;
	const char *x_unit;  /* "ops/s", "MiB/s" */
	const char *y_title; /* "p99 latency": the unit picked for the ticks is appended */
};

/* Where the plot cells landed in the rendered text: callers colour them. */
struct termplot_area {
	int x0, y0; /* the top-left cell */
	int w, h;
};

/*
 * Render the curve as h lines of w characters (plain ASCII), each
 * NUL-terminated, into out (h * (w + 1) bytes): a title line with the y axis's
 * unit, the plot (y tick labels, '|' axis, '*' per point, '^' for a point above
 * the top), the x axis with tick labels and the x unit. Both axes start at 0;
 * y reaches a little past the points but at most 3x the SLO, so the SLO line
 * always sits where one can read it. area (may be NULL) receives the plot cells.
 * Returns -1 when w x h is too small to draw anything readable.
 */
int termplot_render(const struct termplot *p, int w, int h, char *out, struct termplot_area *area);

#endif
