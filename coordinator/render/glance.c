/* SPDX-License-Identifier: MIT */
/* The answer at a glance: headlines, wrapped reasons, the run's narrow step table. */
#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "curve.h"
#include "glance.h"
#include "pointfields.h"
#include "table.h"
#include "text.h"
#include "units.h"
#include "verdict.h"

/* A rate in three or four figures: 950, 82.5k, 1.25M; a bandwidth in MiB/s (or MB/s). */
static void glance_num(const struct workload *w, double v, char *buf, size_t len)
{
	v = curve_shown(w, v);
	if (curve_uses_mib(w))
		snprintf(buf, len, "%.1f", floor(v * 10 + 1e-9) / 10);
	else if (v < 1e4)
		snprintf(buf, len, "%.0f", floor(v + 1e-9));
	else if (v < 1e6)
		snprintf(buf, len, "%.1fk", floor(v / 100 + 1e-9) / 10);
	else
		snprintf(buf, len, "%.2fM", floor(v / 1e4 + 1e-9) / 100);
}

/* The knee as the headline gives it: "82.5k ops/s", ">= 24.0k ops/s", "none". */
static void glance_knee(const struct judged_curve *j, char *buf, size_t len)
{
	const struct knee *k = &j->knee;
	double tp = j->repeats.n ? j->repeats.mean : k->throughput;
	char v[32];

	if (k->kind == KNEE_ALL_OVER) {
		snprintf(buf, len, "none");
		return;
	}
	glance_num(j->w, tp, v, sizeof(v));
	snprintf(buf, len, "%s%s %s", table_knee_bound(j) ? ">= " : "", v, curve_unit(j->w));
}

size_t glance_headline(const struct judged_curve *j, char *buf, size_t len)
{
	const struct knee *k = &j->knee;
	const struct campaign *c = j->c;
	char knee[64], slo[16], metric[32], lo[24], hi[24], band[64] = "", peak[32];
	char lead[GLANCE_HEAD_MAX + 1];
	int n;

	glance_num(j->w, j->peak_tp, peak, sizeof(peak));
	if (j->w->io.background) {
		n = snprintf(buf, len, "%s  background beside every step", j->w->name);
	} else if (j->w->work.on || k->kind == KNEE_NONE || j->n == 0) {
		/* closed loop, fixed work: no knee, its figure */
		n = snprintf(buf, len, "%s  peak %s %s (closed loop)%s%s", j->w->name, peak,
		             curve_unit(j->w), j->limit_word ? "  " : "",
		             j->limit_word ? j->limit_word : "");
	} else {
		glance_knee(j, knee, sizeof(knee));
		units_format_duration(c->slo_latency_ns, slo, sizeof(slo));
		if (table_band_shown(j)) {
			glance_num(j->w, k->band_lo, lo, sizeof(lo));
			glance_num(j->w, k->band_hi, hi, sizeof(hi));
			snprintf(band, sizeof(band), " [%s-%s]", lo, hi);
		}
		snprintf(lead, sizeof(lead), "%s  %s @ %s %s", j->w->name, knee, slo,
		         campaign_slo_label(c, metric, sizeof(metric)));
		n = snprintf(buf, len, "%s%s  peak %s  %s", lead, band, peak,
		             j->limit_word ? j->limit_word : "");
		/* too long: the band goes first (it is in the reasons below) */
		if (n > GLANCE_HEAD_MAX)
			n = snprintf(buf, len, "%s  peak %s  %s", lead, peak,
			             j->limit_word ? j->limit_word : "");
	}
	if (n < 0)
		return 0;
	if ((size_t)n > GLANCE_HEAD_MAX && len > GLANCE_HEAD_MAX) {
		buf[GLANCE_HEAD_MAX] = '\0';
		n = GLANCE_HEAD_MAX;
	}
	return (size_t)n < len ? (size_t)n : len - 1;
}

/* The run's columns: the step, its load, the storage's, the response's, the client's. */
static const char *const glance_fields[] = {
    "step",           "offered_ops", "achieved_ops",    "mib_s",   "service_mean_us",
    "service_p99_us", "mean_us",     "client_delay_us", "verdict",
};

_Static_assert(sizeof(glance_fields) / sizeof(glance_fields[0]) == GLANCE_COLS, "GLANCE_COLS");

static const char *glance_title(const struct judged_curve *j, const struct pfield *f, char *buf,
                                size_t len)
{
	if (strcmp(f->name, "service_p99_us") == 0)
		return "Storage p99";
	if (strcmp(f->name, "verdict") == 0)
		return "Verdict";
	return table_title(j->w, f, buf, len);
}

void glance_steps(FILE *f, const struct judged_curve *j)
{
	const struct pfield *cols[GLANCE_COLS];
	char cell[PFIELD_TEXT_MAX], title[64];
	unsigned note = 0;

	for (size_t c = 0; c < GLANCE_COLS; c++)
		cols[c] = pfield_find(glance_fields[c]);
	fputc('|', f);
	for (size_t c = 0; c < GLANCE_COLS; c++)
		fprintf(f, " %s |", glance_title(j, cols[c], title, sizeof(title)));
	fputs("\n|", f);
	for (size_t c = 0; c < GLANCE_COLS; c++)
		fputs(c + 1 == GLANCE_COLS ? "---|" : "---:|", f);
	fputc('\n', f);
	for (size_t i = 0; i < j->n; i++) {
		const struct judged_point *jp = &j->v[i];

		fputc('|', f);
		for (size_t c = 0; c + 1 < GLANCE_COLS; c++) {
			table_step_cell(j->w, cols[c], &j->sorted[i], jp, 0, cell, sizeof(cell));
			fprintf(f, " %s |", cell);
		}
		/* one word; what it leaves out is a numbered note under the table */
		if (strcmp(jp->words, verdict_slo_word(jp->slo)) == 0)
			fprintf(f, " %s |\n", jp->words);
		else
			fprintf(f, " %s [%u] |\n", verdict_slo_word(jp->slo), ++note);
	}
	note = 0;
	for (size_t i = 0; i < j->n; i++) {
		const struct judged_point *jp = &j->v[i];
		char head[32];

		if (strcmp(jp->words, verdict_slo_word(jp->slo)) == 0)
			continue;
		snprintf(head, sizeof(head), "[%u] step %u:", ++note, j->sorted[i].step + 1);
		fprintf(f, "%s ", head);
		text_wrap(f, jp->words, GLANCE_HEAD_MAX - strlen(head) - 1, "    ");
	}
}
