/* SPDX-License-Identifier: MIT */
/* A mix's parts in the summaries and report.html: a row per part of each step. */
#include <stdio.h>

#include "markup.h"
#include "mixparts.h"
#include "units.h"

#define MIXPARTS_NCOLS 12
#define MIXPARTS_CELL  160

static bool mixparts_shown(const struct judged_curve *j)
{
	return j->w->io.mix.nparts > 0 && j->n > 0;
}

const struct step_point *mixparts_step(const struct judged_curve *j, bool *at_knee)
{
	const struct knee *k = &j->knee;
	const struct step_point *p = NULL;

	*at_knee = false;
	if (!mixparts_shown(j))
		return NULL;
	switch (k->kind) {
	case KNEE_INTERPOLATED:
	case KNEE_AT_STEP:
	case KNEE_ALL_UNDER:
	case KNEE_AT_PEAK:
		if (k->below < j->n) {
			p = &j->sorted[k->below];
			*at_knee = true;
		}
		break;
	default:
		break;
	}
	if (p == NULL)
		p = j->peak;
	if (p != NULL && p->nparts == 0) {
		*at_knee = false;
		return NULL;
	}
	return p;
}

/* The columns' titles in the workload's units (MB/s and IOPS under units: decimal). */
static void mixparts_titles(const struct workload *w, char t[MIXPARTS_NCOLS][MIXPARTS_CELL])
{
	static const char *const fixed[MIXPARTS_NCOLS] = {
	    "Step",         "Part",        "Share", "Pattern", NULL,  NULL,
	    "Storage mean", "Storage p99", "Mean",  "p99",     "Max", "Errors"};

	for (int c = 0; c < MIXPARTS_NCOLS; c++)
		snprintf(t[c], MIXPARTS_CELL, "%s", fixed[c] ? fixed[c] : "");
	snprintf(t[4], MIXPARTS_CELL, "%s", curve_rate_unit(w));
	snprintf(t[5], MIXPARTS_CELL, "%s", curve_bw_unit(w));
}

/* Part i of step p as cells; "not measured" past the parts an agent reported. */
static void mixparts_cells(const struct workload *w, const struct step_point *p, uint32_t i,
                           char t[MIXPARTS_NCOLS][MIXPARTS_CELL])
{
	const struct mix_part *mp = &w->io.mix.parts[i];
	const struct point_part *pp = &p->parts[i];
	const uint64_t lat[] = {(uint64_t)pp->svc_mean_ns, pp->svc_p99_ns, (uint64_t)pp->mean_ns,
	                        pp->p99_ns, pp->max_ns};

	snprintf(t[0], MIXPARTS_CELL, "%u", p->step + 1);
	snprintf(t[1], MIXPARTS_CELL, "%s", mp->name);
	snprintf(t[2], MIXPARTS_CELL, "%u%%", mp->share);
	mix_part_text(mp, t[3], MIXPARTS_CELL);
	if (i >= p->nparts) {
		for (int c = 4; c < MIXPARTS_NCOLS; c++)
			snprintf(t[c], MIXPARTS_CELL, "not measured");
		return;
	}
	snprintf(t[4], MIXPARTS_CELL, "%.1f", pp->ops_s);
	snprintf(t[5], MIXPARTS_CELL, "%.3f", curve_shown_bw(w, pp->mib_s));
	for (int c = 0; c < 5; c++)
		units_format_duration(lat[c], t[6 + c], MIXPARTS_CELL);
	/* an older agent's parts have no storage latency: no figure rather than 0 */
	if (pp->svc_mean_ns == 0 && pp->ops_s > 0) {
		snprintf(t[6], MIXPARTS_CELL, "-");
		snprintf(t[7], MIXPARTS_CELL, "-");
	}
	snprintf(t[11], MIXPARTS_CELL, "%llu", (unsigned long long)pp->errors);
}

static void mixparts_md_row(FILE *f, char t[MIXPARTS_NCOLS][MIXPARTS_CELL])
{
	fputc('|', f);
	for (int c = 0; c < MIXPARTS_NCOLS; c++)
		fprintf(f, " %s |", t[c]);
	fputc('\n', f);
}

void mixparts_print(FILE *f, const struct judged_curve *j, bool knee_only)
{
	char t[MIXPARTS_NCOLS][MIXPARTS_CELL];
	bool at_knee;
	const struct step_point *one = mixparts_step(j, &at_knee);

	if (!mixparts_shown(j) || (knee_only && one == NULL))
		return;
	mixparts_titles(j->w, t);
	mixparts_md_row(f, t);
	/* text columns left, figures right, as the step table's */
	fputs("|---:|---|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|\n", f);
	for (size_t s = 0; s < j->n; s++) {
		const struct step_point *p = &j->sorted[s];

		if (knee_only && p != one)
			continue;
		for (uint32_t i = 0; i < j->w->io.mix.nparts; i++) {
			mixparts_cells(j->w, p, i, t);
			mixparts_md_row(f, t);
		}
	}
}

static void mixparts_html_row(FILE *f, const char *cell, char t[MIXPARTS_NCOLS][MIXPARTS_CELL])
{
	/* the figures right-aligned, as the step table's (class n) */
	static const bool figure[MIXPARTS_NCOLS] = {true, false, true, false, true, true,
	                                            true, true,  true, true,  true};

	fputs("<tr>", f);
	for (int c = 0; c < MIXPARTS_NCOLS; c++) {
		fprintf(f, "<%s%s>", cell, figure[c] && cell[1] == 'd' ? " class=\"n\"" : "");
		markup_escape(f, t[c]);
		fprintf(f, "</%s>", cell);
	}
	fputs("</tr>\n", f);
}

void mixparts_html(FILE *f, const struct judged_curve *j, size_t wi)
{
	char t[MIXPARTS_NCOLS][MIXPARTS_CELL];

	if (!mixparts_shown(j))
		return;
	fprintf(f,
	        "<h3>Parts of the mix</h3>\n<p class=\"note\">Each part's operations at each "
	        "step: its latency at the storage, then from each operation's due time (Mean, "
	        "p99, Max), and its failed operations.</p>\n<div class=\"scroll\">"
	        "<table class=\"parts\" id=\"parts-%zu\">\n<thead>",
	        wi + 1);
	mixparts_titles(j->w, t);
	mixparts_html_row(f, "th", t);
	fputs("</thead>\n<tbody>\n", f);
	for (size_t s = 0; s < j->n; s++)
		for (uint32_t i = 0; i < j->w->io.mix.nparts; i++) {
			mixparts_cells(j->w, &j->sorted[s], i, t);
			mixparts_html_row(f, "td", t);
		}
	fputs("</tbody>\n</table></div>\n", f);
}
