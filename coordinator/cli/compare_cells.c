/* SPDX-License-Identifier: MIT */
/* compare's cells: a workload found by name, a figure grouped, a change, a table cell. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "compare.h"
#include "markup.h"

ssize_t compare_find(const struct campaign *c, const char *name)
{
	for (size_t i = 0; i < c->nworkloads; i++)
		if (strcmp(c->workloads[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

/* "45,000" (grouped, whole) from 1,000 up, else "812.5". */
struct compare_text compare_num(double v)
{
	struct compare_text t;
	char raw[64], *o = t.s;
	size_t n, lead;

	if (fabs(v) < 1000) {
		snprintf(t.s, sizeof(t.s), "%.1f", v);
		return t;
	}
	snprintf(raw, sizeof(raw), "%.0f", fabs(v));
	n = strlen(raw);
	lead = n % 3 ? n % 3 : 3;
	if (v < 0)
		*o++ = '-';
	for (size_t i = 0; i < n; i++) {
		if (i >= lead && (i - lead) % 3 == 0)
			*o++ = ',';
		*o++ = raw[i];
	}
	*o = '\0';
	return t;
}

double compare_pct(double a, double b)
{
	return a > 0 ? 100.0 * (b - a) / a : NAN;
}

void compare_fig_cell(FILE *f, bool html, bool left, const char *text)
{
	if (!html) {
		fprintf(f, " %s |", text);
		return;
	}
	fputs(left ? "<td style=\"text-align:left\">" : "<td>", f);
	markup_escape(f, text);
	fputs("</td>", f);
}
