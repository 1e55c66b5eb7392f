/* SPDX-License-Identifier: MIT */
/* A workload's curve in words and tables: the knee sentence, the step and summary tables. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pointfields.h"
#include "background.h"
#include "bgfig.h"
#include "table.h"
#include "units.h"

/* Steps measured for less than this make a quick run, not figures to publish. */
#define TABLE_QUICK_NS (10ull * 1000000000ull)

/* A measured throughput with its unit, digits cut, never raised: "47.8 MiB/s", "136983 ops/s". */
static void table_fmt_tp(const struct workload *w, double v, char *buf, size_t len)
{
	if (curve_uses_mib(w))
		snprintf(buf, len, "%.1f %s", floor(curve_shown(w, v) * 10 + 1e-9) / 10,
		         curve_unit(w));
	else
		snprintf(buf, len, "%.0f %s", floor(v + 1e-9), curve_unit(w));
}

/*
 * A figure as measured, in the workload's unit shown, without the unit: digits may be
 * cut, never raised ("90,950", "1234.5"), so nothing printed exceeds what was measured.
 */
void table_fmt_measured(const struct workload *w, double v, char *buf, size_t len)
{
	v = curve_shown(w, v);
	if (curve_uses_mib(w))
		snprintf(buf, len, "%.1f", floor(v * 10 + 1e-9) / 10);
	else
		units_format_count(v > 0 && v < 1e18 ? (uint64_t)floor(v + 1e-9) : 0, buf, len);
}

/*
 * " (14.5 MiB/s at the mix's mean block of 24.8KiB)": a mix's knee in ops/s as the
 * bandwidth it means (curve_mix_bw_too), cut to a tenth as the figures are. Its length.
 */
static size_t table_mix_bw(const struct workload *w, double ops, bool bound, char *buf, size_t len)
{
	char mean[32];
	int n;

	units_format_size((uint64_t)llround(mix_mean_bytes(&w->io.mix, w->io.block_size)), mean,
	                  sizeof(mean));
	n = snprintf(buf, len, " (%s%.1f %s at the mix's mean block of %s)", bound ? ">= " : "",
	             floor(curve_shown_bw(w, curve_mean_mibps(w, ops)) * 10 + 1e-9) / 10,
	             curve_bw_unit(w), mean);
	return n < 0 ? 0 : (size_t)n < len ? (size_t)n : len - 1;
}

bool table_knee_bound(const struct judged_curve *j)
{
	return j->client_bound > 0 || j->knee.kind == KNEE_ALL_UNDER;
}

bool table_band_shown(const struct judged_curve *j)
{
	const struct knee *k = &j->knee;

	return k->bracket_hi > 0 && !table_knee_bound(j) && k->kind != KNEE_ALL_OVER &&
	       k->kind != KNEE_NONE;
}

/*
 * The knee as measured, then its band ("90,950 ops/s (95% band 90,950-92,000)"); a
 * lower bound ">= 48,000 ops/s"; with repeats, their mean and the t-based 95% interval.
 */
static void table_knee_value(const struct judged_curve *j, char *buf, size_t len)
{
	const struct curve_repeats *r = &j->repeats;
	const struct knee *k = &j->knee;
	char v[32], lo[32], hi[32], speed[48];
	bool bound = table_knee_bound(j);
	double tp = r->n ? r->mean : k->throughput;
	size_t used;

	table_fmt_measured(j->w, tp, v, sizeof(v));
	/* a replay's knee is a speed of its trace too (load.speeds' unit) */
	used = (size_t)snprintf(buf, len, "%s%s %s%s", bound ? ">= " : "", v, curve_unit(j->w),
	                        curve_speed_words(j->w, tp, speed, sizeof(speed)));
	if (curve_mix_bw_too(j->w) && used < len)
		used += table_mix_bw(j->w, tp, bound, buf + used, len - used);
	if (k->bracket_hi > 0 && !bound && used < len) {
		table_fmt_measured(j->w, k->band_lo, lo, sizeof(lo));
		table_fmt_measured(j->w, k->band_hi, hi, sizeof(hi));
		used += (size_t)snprintf(buf + used, len - used, " (95%% band %s-%s)", lo, hi);
	}
	if (bound && k->band_lo < k->throughput && used < len) {
		table_fmt_measured(j->w, k->band_lo, lo, sizeof(lo));
		used += (size_t)snprintf(buf + used, len - used,
		                         " (a step below it undecided: 95%% band from %s)", lo);
	}
	if (r->n && used < len)
		snprintf(buf + used, len - used, "; %zu repeats: mean \xc2\xb1 %.1f%% (95%%, t)",
		         r->n, curve_repeats_ci_pct(r));
}

void table_background_text(const struct workload *w, char *buf, size_t len)
{
	char rate[48];

	if (w->steps[0].ops > 0)
		snprintf(rate, sizeof(rate), "%.0f ops/s", w->steps[0].ops);
	else
		snprintf(rate, sizeof(rate), "max (qd %u)", w->io.queue_depth);
	snprintf(buf, len,
	         "Background: %s asked through every step of the other workloads; what it "
	         "achieved in each is in their step tables (Background columns)",
	         rate);
}

void table_knee_text(const struct judged_curve *j, char *buf, size_t len)
{
	const struct campaign *c = j->c;
	const struct knee *k = &j->knee;
	const struct step_point *s = j->sorted;
	char slo[32], tp[96], pk[48], metric[32];
	size_t used;

	if (j->w->work.on && j->n > 0) {
		storm_text(&j->sorted[0].storm, buf, len);
		return;
	}
	if (j->w->io.background) {
		table_background_text(j->w, buf, len);
		return;
	}
	units_format_duration(c->slo_latency_ns, slo, sizeof(slo));
	campaign_slo_label(c, metric, sizeof(metric));
	table_knee_value(j, tp, sizeof(tp));
	table_fmt_tp(j->w, j->peak_tp, pk, sizeof(pk));
	switch (k->kind) {
	case KNEE_INTERPOLATED:
		snprintf(buf, len,
		         "Performance @ %s (%s): %s (interpolated between steps %u and %u, not "
		         "confirmed: %s; peak %s)",
		         slo, metric, tp, s[k->cross].step + 1, s[k->above].step + 1, j->precision,
		         pk);
		break;
	case KNEE_AT_STEP:
		snprintf(buf, len,
		         "Performance @ %s (%s): %s (measured at step %u, %s: %s; peak %s)", slo,
		         metric, tp, s[k->cross].step + 1,
		         k->confirmed ? "confirmed" : "not confirmed", j->precision, pk);
		break;
	case KNEE_AT_PEAK:
		snprintf(buf, len,
		         "Performance @ %s (%s): %s at the peak (the storage saturated under the "
		         "SLO; measured at step %u, %s: %s; peak %s)",
		         slo, metric, tp, s[k->below].step + 1,
		         k->confirmed ? "confirmed" : "not confirmed", j->precision, pk);
		break;
	case KNEE_ALL_UNDER:
		snprintf(buf, len,
		         "Performance @ %s (%s): %s: no step violated the SLO, the knee lies at or "
		         "above the highest step that met it (peak %s); %s",
		         slo, metric, tp, pk,
		         j->advice[0] ? j->advice : "raise the load to find it");
		break;
	case KNEE_ALL_OVER:
		snprintf(buf, len,
		         "Performance @ %s (%s): none: no step met the SLO below the first that "
		         "violated it (peak %s): %s",
		         slo, metric, pk, j->advice);
		break;
	default:
		snprintf(buf, len, "Performance @ %s: no measured open-loop steps", slo);
		break;
	}
	used = strlen(buf);
	if (k->non_monotonic && used < len)
		snprintf(buf + used, len - used,
		         ". NON-MONOTONIC: a step met the SLO above one that violated it; the knee "
		         "stays below the violation");
	used = strlen(buf);
	if (j->client_bound > 0 && used < len)
		snprintf(buf + used, len - used, ". %s%s", j->limit,
		         k->kind == KNEE_AT_STEP || k->kind == KNEE_ALL_UNDER ||
		                 k->kind == KNEE_AT_PEAK
		             ? ": the knee is a lower bound"
		             : "");
}

void table_step_cell(const struct workload *w, const struct pfield *f, const struct step_point *p,
                     const struct judged_point *jp, uint32_t k, char *buf, size_t len)
{
	struct pfield_val v = pfield_value(f, p, jp);

	/* The kernel's figure of a step whose device was not read (or has none, NFS). */
	if (v.none && (f->apart == PF_APART_KERNEL || f->apart == PF_APART_REPLAY)) {
		snprintf(buf, len, "-");
		return;
	}
	/* A read or write figure an agent did not measure apart (an older agent's). */
	if (v.none && (f->apart == PF_APART_MEASURED || f->member == PF_M_GET)) {
		snprintf(buf, len, "not measured");
		return;
	}
	switch (f->human) {
	case PF_H_COUNT:
		snprintf(buf, len, "%" PRIu64, v.u);
		break;
	case PF_H_OFFERED:
		if (v.d > 0)
			snprintf(buf, len, "%.0f", v.d);
		else
			snprintf(buf, len, "max (qd %u)", w->io.queue_depth);
		break;
	case PF_H_RATE:
		snprintf(buf, len, "%.0f", v.d);
		break;
	case PF_H_FIXED1: /* the bandwidth */
		snprintf(buf, len, "%.1f", curve_shown_bw(w, v.d));
		break;
	case PF_H_DURATION:
		units_format_duration(f->kind == PF_PCTS      ? step_pct_ns(p, k)
		                      : f->member == PF_M_U64 ? v.u
		                                              : (uint64_t)v.raw,
		                      buf, len);
		break;
	case PF_H_PERCENT:
		snprintf(buf, len, "%.0f%%", v.d);
		break;
	case PF_H_DECIMAL:
		snprintf(buf, len, "%.*f", (int)f->decimals, v.d);
		break;
	case PF_H_SPEED:
		snprintf(buf, len, "x%.2f", v.d);
		break;
	case PF_H_TEXT:
		pfield_format(f, p, jp, buf, len);
		break;
	}
}

const char *table_title(const struct workload *w, const struct pfield *f, char *buf, size_t len)
{
	const char *u = strstr(f->title, "MiB/s"), *o = strstr(f->title, "ops/s");

	if (!curve_decimal(w) || (u == NULL && o == NULL))
		return f->title;
	snprintf(buf, len, "%.*s%s%s", (int)((u ? u : o) - f->title), f->title,
	         u ? curve_bw_unit(w) : curve_rate_unit(w), (u ? u : o) + 5);
	return buf;
}

void table_print_steps(FILE *f, const struct judged_curve *j)
{
	const struct step_point *s = j->sorted;
	size_t n = j->n;
	const struct pfield *cols[PFIELD_MAX];
	size_t ncols = pfield_list_kinds(
	    PF_STEPS_MD,
	    pfield_show_of(j->w) | pfield_show_kernel(s, n) | pfield_show_campaign(j->c), cols);
	char cell[PFIELD_TEXT_MAX], title[64];
	uint32_t np = n ? step_npct(&s[0]) : 0;

	/* The columns the field table gives the step tables; the percentiles: the campaign's. */
	fputc('|', f);
	for (size_t c = 0; c < ncols; c++)
		for (uint32_t k = 0; k < pfield_cells(cols[c], np); k++)
			if (cols[c]->kind == PF_PCTS)
				fprintf(f, " p%g |", step_pct(&s[0], k));
			else
				fprintf(f, " %s |",
				        table_title(j->w, cols[c], title, sizeof(title)));
	fputs("\n|", f);
	for (size_t c = 0; c < ncols; c++)
		for (uint32_t k = 0; k < pfield_cells(cols[c], np); k++)
			fputs(cols[c]->human == PF_H_TEXT ? "---|" : "---:|", f);
	fputc('\n', f);
	for (size_t i = 0; i < n; i++) {
		const struct step_point *p = &s[i];
		uint32_t pn = np < step_npct(p) ? np : step_npct(p);

		fputc('|', f);
		for (size_t c = 0; c < ncols; c++)
			for (uint32_t k = 0; k < pfield_cells(cols[c], pn); k++) {
				table_step_cell(j->w, cols[c], p, &j->v[i], k, cell, sizeof(cell));
				fprintf(f, " %s |", cell);
			}
		fputc('\n', f);
	}
}

void table_peak_text(const struct judged_curve *j, char *peak, size_t plen, char *sustained,
                     size_t slen)
{
	const struct step_point *best = j->peak, *sus = j->sustained;
	const struct campaign *c = j->c;
	char tp[48], svc[16], lat[16];

	snprintf(peak, plen, "none");
	snprintf(sustained, slen, "no valid step");
	if (best != NULL) {
		/* The capacity: its service time and what was in flight, never its latency. */
		table_fmt_tp(j->w, j->peak_tp, tp, sizeof(tp));
		units_format_duration((uint64_t)best->svc_mean_ns, svc, sizeof(svc));
		snprintf(peak, plen, "%s (service %s, %.1f in flight)", tp, svc,
		         curve_in_flight(best));
	}
	if (sus != NULL) {
		table_fmt_tp(j->w, j->v[sus - j->sorted].tp, tp, sizeof(tp));
		units_format_duration((uint64_t)step_metric(sus, c->slo_metric), lat, sizeof(lat));
		snprintf(sustained, slen, "%s at %s %s", tp, lat,
		         campaign_slo_metric_name(c->slo_metric));
	}
}

void table_knee_cell(const struct judged_curve *j, char *buf, size_t len)
{
	const struct workload *w = j->w;
	const struct knee *k = &j->knee;
	size_t used;

	if (w->work.on && j->n > 0 && j->sorted[0].storm.finished < j->sorted[0].storm.workers)
		snprintf(buf, len, "fixed work: unfinished (%u of %u workers)",
		         j->sorted[0].storm.finished, j->sorted[0].storm.workers);
	else if (w->work.on && j->n > 0)
		snprintf(buf, len, "fixed work: storm %.3f s", j->sorted[0].storm.storm_s);
	else if (k->kind == KNEE_ALL_OVER || k->kind == KNEE_NONE)
		snprintf(buf, len, "none");
	else
		table_knee_value(j, buf, len);
	used = strlen(buf);
	if (k->non_monotonic && used < len)
		snprintf(buf + used, len - used, " (non-monotonic)");
}

/* The background's row: its rate, and in how many foreground steps it kept up. */
static void table_background_row(FILE *f, const struct campaign *c,
                                 const struct judged_curve *judged, const struct workload *w)
{
	size_t steps = 0, kept = 0;
	char rate[48];

	for (size_t i = 0; i < c->nworkloads; i++)
		for (size_t k = 0; k < judged[i].n; k++)
			if (judged[i].sorted[k].bg.on) {
				steps++;
				kept += bgfig_kept_up(&judged[i].sorted[k]);
			}
	if (w->steps[0].ops > 0)
		snprintf(rate, sizeof(rate), "%.0f ops/s", w->steps[0].ops);
	else
		snprintf(rate, sizeof(rate), "max (qd %u)", w->io.queue_depth);
	fprintf(f, "| %s (background) | %s beside every step: kept up in %zu of %zu | | | |\n",
	        w->name, rate, kept, steps);
}

/* The knee as one figure: "41300 ops/s", ">= 24000 ops/s", "none"; fixed work: its storm. */
static void table_knee_figure(const struct judged_curve *j, char *buf, size_t len)
{
	const struct knee *k = &j->knee;
	char v[32];

	if (j->w->work.on && j->n > 0) {
		snprintf(buf, len, "%s",
		         j->sorted[0].storm.finished < j->sorted[0].storm.workers ? "unfinished"
		                                                                  : "fixed work");
		return;
	}
	if (k->kind == KNEE_ALL_OVER || k->kind == KNEE_NONE) {
		snprintf(buf, len, "none");
		return;
	}
	table_fmt_measured(j->w, j->repeats.n ? j->repeats.mean : k->throughput, v, sizeof(v));
	snprintf(buf, len, "%s%s %s", table_knee_bound(j) ? ">= " : "", v, curve_unit(j->w));
}

/*
 * One row a workload, each cell one figure or one word: the knee, its 95% band, the
 * peak and the service time there, the sustained rate and its latency, the limit's
 * word. What a cell cannot hold is the workload's note under the table
 * (table_print_summary_notes).
 */
void table_summary_cells(const struct judged_curve *j, struct table_cells *t)
{
	const struct workload *w = j->w;
	const struct knee *k = &j->knee;
	char lo[32], hi[32];

	table_knee_figure(j, t->knee, sizeof(t->knee));
	snprintf(t->band, sizeof(t->band), "-");
	if (table_band_shown(j)) {
		table_fmt_measured(w, k->band_lo, lo, sizeof(lo));
		table_fmt_measured(w, k->band_hi, hi, sizeof(hi));
		snprintf(t->band, sizeof(t->band), "%s-%s", lo, hi);
	}
	snprintf(t->peak, sizeof(t->peak), "-");
	snprintf(t->svc, sizeof(t->svc), "-");
	snprintf(t->sus, sizeof(t->sus), "none valid");
	snprintf(t->lat, sizeof(t->lat), "-");
	if (j->peak != NULL) {
		table_fmt_tp(w, j->peak_tp, t->peak, sizeof(t->peak));
		units_format_duration((uint64_t)j->peak->svc_mean_ns, t->svc, sizeof(t->svc));
	}
	if (j->sustained != NULL) {
		table_fmt_tp(w, j->v[j->sustained - j->sorted].tp, t->sus, sizeof(t->sus));
		units_format_duration((uint64_t)step_metric(j->sustained, j->c->slo_metric), t->lat,
		                      sizeof(t->lat));
	}
	t->limit = j->limit_word ? j->limit_word : "-";
}

void table_print_summary(FILE *f, const struct campaign *c, const struct judged_curve *judged)
{
	char slo[32], metric[32];
	struct table_cells t;

	units_format_duration(c->slo_latency_ns, slo, sizeof(slo));
	fprintf(
	    f,
	    "| Workload | Performance @ %s %s | 95%% band | Peak | Service at peak | Sustained | "
	    "Its latency | Limit |\n",
	    slo, campaign_slo_label(c, metric, sizeof(metric)));
	fprintf(f, "|---|---:|---:|---:|---:|---:|---:|---|\n");
	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct judged_curve *j = &judged[i];
		const struct workload *w = &c->workloads[i];

		if (w->io.background) {
			table_background_row(f, c, judged, w);
			continue;
		}
		if (j->n == 0) {
			fprintf(f, "| %s | not run | | | | | | |\n", w->name);
			continue;
		}
		table_summary_cells(j, &t);
		/* Page-cache numbers are not the storage's: say so where the figure stands. */
		fprintf(f, "| %s%s | %s | %s | %s | %s | %s | %s | %s |\n", w->name,
		        w->io.direct ? "" : " (buffered)", t.knee, t.band, t.peak, t.svc, t.sus,
		        t.lat, t.limit);
	}
}

void table_print_summary_notes(FILE *f, const struct campaign *c, const struct judged_curve *judged)
{
	char knee[192], peak[96], sus[96];

	for (size_t i = 0; i < c->nworkloads; i++) {
		const struct judged_curve *j = &judged[i];

		if (c->workloads[i].io.background || j->n == 0)
			continue;
		table_knee_cell(j, knee, sizeof(knee));
		table_peak_text(j, peak, sizeof(peak), sus, sizeof(sus));
		fprintf(f, "- %s: knee %s; peak %s; limit: %s\n", c->workloads[i].name, knee, peak,
		        j->limit);
	}
}

bool table_quick_note(const struct campaign *c, char *buf, size_t len)
{
	uint64_t shortest = 0;

	for (size_t i = 0; i < c->nworkloads; i++)
		if (shortest == 0 || c->workloads[i].measure_ns < shortest)
			shortest = c->workloads[i].measure_ns;
	if (shortest == 0 || shortest >= TABLE_QUICK_NS)
		return false;
	snprintf(buf, len,
	         "Quick run: steps measure as little as %.1f s, too short for figures to "
	         "publish; docs/methodology.md gives the lengths a reviewer accepts.",
	         (double)shortest / 1e9);
	return true;
}
