/* SPDX-License-Identifier: MIT */
/* One step's latency distribution as a small inline SVG: bars on a log latency axis. */
#include <math.h>

#include "histplot.h"
#include "units.h"

#define HISTPLOT_W  420.0
#define HISTPLOT_H  150.0
#define HISTPLOT_X0 44.0
#define HISTPLOT_X1 392.0
#define HISTPLOT_Y0 14.0
#define HISTPLOT_Y1 118.0

void histplot_svg(FILE *f, const struct step_point *p, uint64_t slo_ns)
{
	uint64_t total = 0, top = 0;
	int lo = -1, hi = -1;
	double bw;
	char label[32];

	for (int k = 0; k < STEP_HIST_BINS; k++) {
		total += p->hist[k];
		top = p->hist[k] > top ? p->hist[k] : top;
		if (p->hist[k] && lo < 0)
			lo = k;
		if (p->hist[k])
			hi = k;
	}
	if (total == 0)
		return;
	/* whole decades on either side, so the labels fall on the edges of bars */
	lo -= lo % STEP_HIST_PER_DECADE;
	hi += STEP_HIST_PER_DECADE - hi % STEP_HIST_PER_DECADE;
	if (hi > STEP_HIST_BINS)
		hi = STEP_HIST_BINS;
	bw = (HISTPLOT_X1 - HISTPLOT_X0) / (hi - lo);
	fprintf(
	    f,
	    "<svg xmlns=\"http://www.w3.org/2000/svg\" class=\"hist\" viewBox=\"0 0 %.0f %.0f\" "
	    "width=\"%.0f\" height=\"%.0f\" font-size=\"10\" font-family=\"DejaVu Sans, "
	    "Helvetica, Arial, sans-serif\">\n<rect width=\"%.0f\" height=\"%.0f\" "
	    "fill=\"#ffffff\"/>\n",
	    HISTPLOT_W, HISTPLOT_H, HISTPLOT_W, HISTPLOT_H, HISTPLOT_W, HISTPLOT_H);
	for (int k = lo; k < hi; k++) {
		double h = (HISTPLOT_Y1 - HISTPLOT_Y0) * (double)p->hist[k] / (double)top;

		if (p->hist[k] == 0)
			continue;
		fprintf(f,
		        "<rect class=\"bin\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" "
		        "fill=\"#1f77b4\"><title>%.2f%% of operations</title></rect>\n",
		        HISTPLOT_X0 + bw * (k - lo) + 0.5, HISTPLOT_Y1 - h, bw - 1, h,
		        100.0 * (double)p->hist[k] / (double)total);
	}
	fprintf(f, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#333333\"/>\n",
	        HISTPLOT_X0, HISTPLOT_Y1, HISTPLOT_X1, HISTPLOT_Y1);
	for (int k = lo; k <= hi; k += STEP_HIST_PER_DECADE) {
		units_format_duration((uint64_t)pow(10, 3 + k / STEP_HIST_PER_DECADE), label,
		                      sizeof(label));
		fprintf(f,
		        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" "
		        "fill=\"#333333\">%s</text>\n",
		        HISTPLOT_X0 + bw * (k - lo), HISTPLOT_Y1 + 13, label);
	}
	if (slo_ns > 0) {
		double d = (log10((double)slo_ns) - 3) * STEP_HIST_PER_DECADE;

		if (d >= lo && d <= hi)
			fprintf(
			    f,
			    "<line class=\"slo\" x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" "
			    "stroke=\"#ff7f0e\" stroke-dasharray=\"4 2\"/>\n",
			    HISTPLOT_X0 + bw * (d - lo), HISTPLOT_Y0 - 4,
			    HISTPLOT_X0 + bw * (d - lo), HISTPLOT_Y1);
	}
	fprintf(f,
	        "<text x=\"%.1f\" y=\"%.1f\" text-anchor=\"middle\" fill=\"#555555\">latency "
	        "(log scale; bar: share of operations; orange: SLO)</text>\n</svg>\n",
	        (HISTPLOT_X0 + HISTPLOT_X1) / 2, HISTPLOT_H - 4);
}
