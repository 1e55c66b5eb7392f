/* SPDX-License-Identifier: MIT */
/* iocurve compare DIR DIR...: overlay the curves of several runs and say how the knee moved. */
#include <errno.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd.h"
#include "fsutil.h"
#include "markup.h"
#include "plot.h"
#include "replay.h"
#include "setupdiff.h"
#include "table.h"
#include "xalloc.h"

/* One run being compared: its points and their judged curves (rp.judged), per workload. */
struct compare_run {
	const char *dir;
	struct replay rp;
};

/* One row of the change table: cells[0] the workload, then per run its knee, change, noise. */
#define COMPARE_MAX_RUNS 16
struct compare_row {
	char cells[1 + 3 * COMPARE_MAX_RUNS][96];
	size_t n;
};

static ssize_t compare_find(const struct campaign *c, const char *name)
{
	for (size_t i = 0; i < c->nworkloads; i++)
		if (strcmp(c->workloads[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

/* The base run's workloads, each overlaid with the same workload of every other run. */
static void compare_write(FILE *html, const char *out, struct compare_run *runs, size_t nruns,
                          const struct compare_row *rows, char *const *diff)
{
	const struct campaign *base = runs[0].rp.campaign;

	fprintf(html, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>iocurve "
	              "compare</title><style>body{font-family:sans-serif;margin:2em}table{border-"
	              "collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:"
	              "right}p.warn{background:#fff4e5;border:1px solid #e0b070;padding:6px "
	              "10px}</style></head><body>\n<h1>iocurve compare</h1>\n<ol>\n");
	for (size_t r = 0; r < nruns; r++) {
		fputs("<li>", html);
		markup_escape(html, runs[r].dir);
		fputs("</li>\n", html);
	}
	fputs("</ol>\n", html);
	for (size_t r = 1; r < nruns; r++) {
		if (diff[r] == NULL)
			continue;
		fprintf(html, "<p class=\"warn\">Setups differ, run %zu against run 1: ", r + 1);
		markup_escape(html, diff[r]);
		fputs("</p>\n", html);
	}
	fputs("<h2>Knees</h2>\n<table id=\"changes\"><tr><th>workload</th><th>run 1</th>", html);
	for (size_t r = 1; r < nruns; r++)
		fprintf(html, "<th>run %zu</th><th>change</th><th>noise</th>", r + 1);
	fputs("</tr>\n", html);
	for (size_t w = 0; w < base->nworkloads; w++) {
		fputs("<tr>", html);
		for (size_t k = 0; k < rows[w].n; k++) {
			fputs(k == 0 ? "<td style=\"text-align:left\">" : "<td>", html);
			markup_escape(html, rows[w].cells[k]);
			fputs("</td>", html);
		}
		fputs("</tr>\n", html);
	}
	fputs("</table>\n", html);
	for (size_t w = 0; w < base->nworkloads; w++) {
		const struct workload *wl = &base->workloads[w];
		struct plot_series *ser = xcalloc(nruns, sizeof(*ser));
		size_t n = 0;
		char *path = xasprintf("%s/compare-%s.svg", out, wl->name);
		FILE *svg = fopen(path, "w");
		char *mem = NULL;
		size_t memlen = 0;
		FILE *m = open_memstream(&mem, &memlen);

		for (size_t r = 0; r < nruns; r++) {
			ssize_t i = compare_find(runs[r].rp.campaign, wl->name);

			if (i < 0 || runs[r].rp.npts[i] == 0)
				continue;
			ser[n].label = runs[r].dir;
			ser[n].pts = runs[r].rp.judged[i].sorted;
			ser[n].n = runs[r].rp.judged[i].n;
			ser[n].knee = &runs[r].rp.judged[i].knee;
			n++;
		}
		plot_curve_svg(m, wl, ser, n, base->slo_metric, base->slo_latency_ns);
		fclose(m);
		if (svg != NULL) {
			fwrite(mem, 1, memlen, svg);
			fclose(svg);
		}
		fputs("<h2>", html);
		markup_escape(html, wl->name);
		fputs("</h2>\n", html);
		fwrite(mem, 1, memlen, html);
		free(mem);
		free(path);
		free(ser);
	}
	fputs("</body></html>\n", html);
}

/*
 * A run's knee for workload w: the mean of its repeats when it has them (r->n > 0).
 * bound: 0 a value, 1 a lower bound (every step met the SLO), -1 no knee.
 */
static void compare_knee(const struct compare_run *run, size_t w, struct curve_repeats *r,
                         double *knee, int *bound)
{
	const struct knee *k = &run->rp.judged[w].knee;

	*r = run->rp.judged[w].repeats;
	*knee = r->n ? r->mean : k->throughput;
	*bound = r->n                                               ? 0
	         : k->kind == KNEE_ALL_UNDER                        ? 1
	         : k->kind == KNEE_NONE || k->kind == KNEE_ALL_OVER ? -1
	                                                            : 0;
}

struct compare_text {
	char s[96];
};

/*
 * "45200.0 (44000.0-46000.0)": the knee and its 95% interval (curve_knee_interval),
 * "> 45200.0" (a lower bound), "none"; with repeats the mean and "(3 repeats)".
 */
static struct compare_text compare_fmt(const struct knee *k, const struct curve_repeats *r,
                                       double knee, int bound)
{
	struct compare_text t;
	double lo, hi;

	if (bound < 0)
		snprintf(t.s, sizeof(t.s), "none");
	else if (bound > 0)
		snprintf(t.s, sizeof(t.s), "> %.1f", knee);
	else if (curve_knee_interval(k, r, &lo, &hi) && r->n)
		snprintf(t.s, sizeof(t.s), "%.1f (%.1f-%.1f, %zu repeats)", knee, lo, hi, r->n);
	else if (curve_knee_interval(k, r, &lo, &hi))
		snprintf(t.s, sizeof(t.s), "%.1f (%.1f-%.1f)", knee, lo, hi);
	else
		snprintf(t.s, sizeof(t.s), "%.1f", knee);
	return t;
}

/*
 * The change from the base knee k0 to k1, keeping what a bound allows: the true
 * base is at least k0 when it is a lower bound, so the change is at most
 * (k1 - k0) / k0; a lower bound in the other run makes it at least that.
 */
static struct compare_text compare_change(double k0, int b0, double k1, int b1)
{
	struct compare_text t;
	double pct = k0 > 0 ? 100.0 * (k1 - k0) / k0 : 0;

	if (b0 < 0 || b1 < 0 || k0 <= 0)
		snprintf(t.s, sizeof(t.s), "n/a");
	else if (b0 > 0 && b1 > 0)
		snprintf(t.s, sizeof(t.s), "n/a (both lower bounds)");
	else if (b0 > 0)
		snprintf(t.s, sizeof(t.s), "\xe2\x89\xa4 %+.1f%%", pct);
	else if (b1 > 0)
		snprintf(t.s, sizeof(t.s), "\xe2\x89\xa5 %+.1f%%", pct);
	else
		snprintf(t.s, sizeof(t.s), "%+.1f%%", pct);
	return t;
}

static const char *compare_noise_text(const struct knee *ka, const struct curve_repeats *a,
                                      const struct knee *kb, const struct curve_repeats *b, int b0,
                                      int b1)
{
	if (b0 != 0 || b1 != 0)
		return "spread unknown: a bound is not a measurement";
	switch (curve_compare_noise(ka, a, kb, b)) {
	case CURVE_NOISE_WITHIN:
		return "within noise";
	case CURVE_NOISE_BEYOND:
		return "beyond noise";
	default:
		break;
	}
	return "spread unknown: a knee without a band";
}

static void compare_cell(struct compare_row *row, const char *s)
{
	if (row->n < sizeof(row->cells) / sizeof(row->cells[0]))
		snprintf(row->cells[row->n++], sizeof(row->cells[0]), "%s", s);
}

/* The change table, a row per workload of the base run. */
static struct compare_row *compare_rows(struct compare_run *runs, size_t nruns)
{
	const struct campaign *c0 = runs[0].rp.campaign;
	struct compare_row *rows = xcalloc(c0->nworkloads, sizeof(*rows));

	for (size_t w = 0; w < c0->nworkloads; w++) {
		struct curve_repeats r0, rr;
		double k0, k;
		int b0, b;

		const struct knee *kn0 = &runs[0].rp.judged[w].knee, *kn;

		compare_knee(&runs[0], w, &r0, &k0, &b0);
		compare_cell(&rows[w], c0->workloads[w].name);
		compare_cell(&rows[w], compare_fmt(kn0, &r0, k0, b0).s);
		for (size_t r = 1; r < nruns; r++) {
			ssize_t i = compare_find(runs[r].rp.campaign, c0->workloads[w].name);

			if (i < 0) {
				compare_cell(&rows[w], "-");
				compare_cell(&rows[w], "-");
				compare_cell(&rows[w], "-");
				continue;
			}
			compare_knee(&runs[r], (size_t)i, &rr, &k, &b);
			kn = &runs[r].rp.judged[i].knee;
			compare_cell(&rows[w], compare_fmt(kn, &rr, k, b).s);
			compare_cell(&rows[w], compare_change(k0, b0, k, b).s);
			compare_cell(&rows[w], compare_noise_text(kn0, &r0, kn, &rr, b0, b));
		}
	}
	return rows;
}

/* Each later run's setup against the base: what differs, or "". */
static char **compare_setups(struct compare_run *runs, size_t nruns)
{
	char **diff = xcalloc(nruns, sizeof(*diff));

	for (size_t r = 1; r < nruns; r++) {
		char buf[2048];

		if (setupdiff(runs[0].rp.campaign, runs[r].rp.campaign, buf, sizeof(buf)) > 0)
			diff[r] = xstrdup(buf);
	}
	return diff;
}

static int compare_exec(const struct args *a)
{
	struct compare_run *runs;
	const char *out = args_get(a, "out");
	char outbuf[64];
	struct error err;
	size_t nruns;
	int rc = 1;
	FILE *html;
	struct compare_row *rows = NULL;
	char **diff = NULL;

	nruns = (size_t)a->noperands;
	if (nruns > COMPARE_MAX_RUNS) {
		fprintf(stderr, "iocurve compare: %zu runs; at most %d in one table\n", nruns,
		        COMPARE_MAX_RUNS);
		return 2;
	}
	runs = xcalloc(nruns, sizeof(*runs));
	for (size_t r = 0; r < nruns; r++) {
		runs[r].dir = a->operands[r];
		if (replay_load(runs[r].dir, &runs[r].rp, &err) < 0) {
			fprintf(stderr, "iocurve compare: %s\n", err.msg);
			goto done;
		}
	}
	if (out == NULL) {
		time_t now = time(NULL);
		struct tm tm;

		gmtime_r(&now, &tm);
		strftime(outbuf, sizeof(outbuf), "iocurve-results/compare-%Y%m%dT%H%M%SZ", &tm);
		out = outbuf;
	}
	if (fs_mkdir_p(out, 0755, &err) < 0) {
		fprintf(stderr, "iocurve compare: %s\n", err.msg);
		goto done;
	}
	rows = compare_rows(runs, nruns);
	diff = compare_setups(runs, nruns);
	{
		char *path = xasprintf("%s/compare.html", out);

		html = fopen(path, "w");
		if (html == NULL) {
			fprintf(stderr, "iocurve compare: %s: cannot create: %s\n", path,
			        strerror(errno));
			free(path);
			goto done;
		}
		compare_write(html, out, runs, nruns, rows, diff);
		fclose(html);
		free(path);
	}
	/* The knee of each later run against the first, in %, and whether beyond the noise. */
	printf("| Workload | %s |", runs[0].dir);
	for (size_t r = 1; r < nruns; r++)
		printf(" %s | change | noise |", runs[r].dir);
	printf("\n|---|---:|");
	for (size_t r = 1; r < nruns; r++)
		printf("---:|---:|---|");
	printf("\n");
	for (size_t w = 0; w < runs[0].rp.campaign->nworkloads; w++) {
		printf("|");
		for (size_t k = 0; k < rows[w].n; k++)
			printf(" %s |", rows[w].cells[k]);
		printf("\n");
	}
	printf("\nknees in %s, each with its 95%% band (with repeats: their mean, the band joined "
	       "with the t-based 95%% interval of the mean; > a lower bound: every step met the "
	       "SLO); a change is beyond noise when the two bands do not overlap "
	       "(docs/methodology.md); curves overlaid in %s/compare.html\n",
	       "ops/s (random) or MiB/s (sequential)", out);
	for (size_t r = 1; r < nruns; r++)
		if (diff[r] != NULL)
			printf("warning: setups differ, %s against %s: %s\n", runs[r].dir,
			       runs[0].dir, diff[r]);
	rc = 0;
done:
	free(rows);
	for (size_t r = 0; diff != NULL && r < nruns; r++)
		free(diff[r]);
	free(diff);
	for (size_t r = 0; r < nruns; r++)
		replay_free(&runs[r].rp);
	free(runs);
	return rc;
}

static const struct args_option compare_options[] = {
    {"out", 'o', "DIR",
     "where compare.html and the SVGs go (default: iocurve-results/compare-TIME)", false},
    {NULL},
};

const struct cmd_entry cmd_compare_entry = {
    .args =
        {
            .name = "compare",
            .operands = "DIR DIR [DIR...]",
            .help = "overlay the curves of several runs (the first is the base) and print each "
                    "knee's change",
            .options = compare_options,
            .min_operands = 2,
            .max_operands = -1,
        },
    .exec = compare_exec,
};
