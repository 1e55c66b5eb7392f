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
#include "table.h"
#include "xalloc.h"

/* One run being compared: its points, sorted as a curve, and knees per workload. */
struct compare_run {
	const char *dir;
	struct replay rp;
	struct step_point **sorted; /* per workload of this run */
	struct knee *knees;
};

static ssize_t compare_find(const struct campaign *c, const char *name)
{
	for (size_t i = 0; i < c->nworkloads; i++)
		if (strcmp(c->workloads[i].name, name) == 0)
			return (ssize_t)i;
	return -1;
}

/* The base run's workloads, each overlaid with the same workload of every other run. */
static void compare_write(FILE *html, const char *out, struct compare_run *runs, size_t nruns)
{
	const struct campaign *base = runs[0].rp.campaign;

	fprintf(html, "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>iocurve "
	              "compare</title><style>body{font-family:sans-serif;margin:2em}table{border-"
	              "collapse:collapse}td,th{border:1px solid #ccc;padding:4px 8px;text-align:"
	              "right}</style></head><body>\n<h1>iocurve compare</h1>\n<ol>\n");
	for (size_t r = 0; r < nruns; r++) {
		fputs("<li>", html);
		markup_escape(html, runs[r].dir);
		fputs("</li>\n", html);
	}
	fputs("</ol>\n", html);
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
			ser[n].pts = runs[r].sorted[i];
			ser[n].n = runs[r].rp.npts[i];
			ser[n].knee = &runs[r].knees[i];
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

/* A run's knee for workload w: the mean of its repeats when it has them (r->n > 0). */
static void compare_knee(const struct compare_run *run, size_t w, struct curve_repeats *r,
                         double *knee)
{
	curve_repeats(run->rp.campaign, &run->rp.campaign->workloads[w], run->rp.pts[w],
	              run->rp.npts[w], r);
	*knee = r->n ? r->mean : run->knees[w].throughput;
}

struct compare_text {
	char s[64];
};

/* "45200.0" or, with repeats, "45200.0 ± 1.3% (3 repeats)". */
static struct compare_text compare_fmt(const struct curve_repeats *r, double knee)
{
	struct compare_text t;

	if (r->n)
		snprintf(t.s, sizeof(t.s), "%.1f \xc2\xb1 %.1f%% (%zu repeats)", knee,
		         curve_spread_pct(r), r->n);
	else
		snprintf(t.s, sizeof(t.s), "%.1f", knee);
	return t;
}

static const char *compare_noise_text(const struct curve_repeats *a, const struct curve_repeats *b)
{
	switch (curve_compare_noise(a, b)) {
	case CURVE_NOISE_WITHIN:
		return "within noise";
	case CURVE_NOISE_BEYOND:
		return "beyond noise";
	default:
		break;
	}
	if (a->n || b->n)
		return "spread unknown: only one run has repeats (load.repeat)";
	return "spread unknown: no repeats (load.repeat)";
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

	nruns = (size_t)a->noperands;
	runs = xcalloc(nruns, sizeof(*runs));
	for (size_t r = 0; r < nruns; r++) {
		runs[r].dir = a->operands[r];
		if (replay_load(runs[r].dir, &runs[r].rp, &err) < 0) {
			fprintf(stderr, "iocurve compare: %s\n", err.msg);
			goto done;
		}
		runs[r].sorted = xcalloc(runs[r].rp.campaign->nworkloads, sizeof(*runs[r].sorted));
		runs[r].knees = xcalloc(runs[r].rp.campaign->nworkloads, sizeof(*runs[r].knees));
		for (size_t w = 0; w < runs[r].rp.campaign->nworkloads; w++) {
			runs[r].sorted[w] = curve_sorted(runs[r].rp.pts[w], runs[r].rp.npts[w]);
			runs[r].knees[w] =
			    curve_knee(runs[r].rp.campaign, &runs[r].rp.campaign->workloads[w],
			               runs[r].sorted[w], runs[r].rp.npts[w]);
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
	{
		char *path = xasprintf("%s/compare.html", out);

		html = fopen(path, "w");
		if (html == NULL) {
			fprintf(stderr, "iocurve compare: %s: cannot create: %s\n", path,
			        strerror(errno));
			free(path);
			goto done;
		}
		compare_write(html, out, runs, nruns);
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
		const struct workload *wl = &runs[0].rp.campaign->workloads[w];
		struct curve_repeats r0, rr;
		double k0;

		compare_knee(&runs[0], w, &r0, &k0);
		printf("| %s | %s |", wl->name, compare_fmt(&r0, k0).s);
		for (size_t r = 1; r < nruns; r++) {
			ssize_t i = compare_find(runs[r].rp.campaign, wl->name);
			double k;

			if (i < 0) {
				printf(" - | - | - |");
				continue;
			}
			compare_knee(&runs[r], (size_t)i, &rr, &k);
			printf(" %s |", compare_fmt(&rr, k).s);
			if (k0 > 0)
				printf(" %+.1f%% |", 100.0 * (k - k0) / k0);
			else
				printf(" n/a |");
			printf(" %s |", compare_noise_text(&r0, &rr));
		}
		printf("\n");
	}
	printf("\nknees in %s (with repeats: their mean \xc2\xb1 standard deviation); a change is "
	       "beyond noise when it exceeds %.0fx the two runs' combined standard deviation "
	       "(spread and bracket, docs/methodology.md); "
	       "curves overlaid in %s/compare.html\n",
	       "ops/s (random) or MiB/s (sequential)", CURVE_NOISE_SDS, out);
	rc = 0;
done:
	for (size_t r = 0; r < nruns; r++) {
		if (runs[r].sorted != NULL)
			for (size_t w = 0; w < runs[r].rp.campaign->nworkloads; w++)
				free(runs[r].sorted[w]);
		free(runs[r].sorted);
		free(runs[r].knees);
		replay_free(&runs[r].rp);
	}
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
