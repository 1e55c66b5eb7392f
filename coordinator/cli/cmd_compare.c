/* SPDX-License-Identifier: MIT */
/* iocurve compare DIR DIR...: overlay the curves of several runs and say how the knee moved. */
#include <errno.h>
#include <jansson.h>
#include <libgen.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cmd.h"
#include "compare.h"
#include "stepjson.h"
#include "fsutil.h"
#include "kinds.h"
#include "markup.h"
#include "plot.h"
#include "replay.h"
#include "safefile.h"
#include "setupdiff.h"
#include "table.h"
#include "xalloc.h"

/* One row of the change table: cells[0] the workload, then per run its knee, change, noise. */
#define COMPARE_MAX_RUNS 16
struct compare_row {
	char cells[1 + 3 * COMPARE_MAX_RUNS][96];
	size_t n;
};

/* Text made in memory, written as one file (safefile_write). */
struct compare_blob {
	char *text;
	size_t len;
};

static void compare_blob_write(FILE *f, const void *arg)
{
	const struct compare_blob *b = arg;

	fwrite(b->text, 1, b->len, f);
}

/* The base run's workload w overlaid with the same workload of every other run, as SVG. */
static struct compare_blob compare_svg(struct compare_run *runs, size_t nruns, size_t w)
{
	const struct campaign *base = runs[0].rp.campaign;
	const struct workload *wl = &base->workloads[w];
	struct plot_series *ser = xcalloc(nruns, sizeof(*ser));
	struct compare_blob b = {NULL, 0};
	FILE *m = open_memstream(&b.text, &b.len);
	size_t n = 0;

	if (m == NULL) {
		fputs("iocurve: out of memory\n", stderr);
		abort();
	}
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
	free(ser);
	return b;
}

/* What compare.html is made of; svg[w] is the base run's workload w overlaid. */
struct compare_page {
	struct compare_run *runs;
	size_t nruns;
	const struct compare_row *rows;
	char *const *diff;
	const struct compare_blob *svg;
};

/* compare.html: the runs, the knees' changes, the figures, each workload's overlay. */
static void compare_write(FILE *html, const void *arg)
{
	const struct compare_page *pg = arg;
	struct compare_run *runs = pg->runs;
	size_t nruns = pg->nruns;
	const struct compare_row *rows = pg->rows;
	char *const *diff = pg->diff;
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
	compare_print_figures(html, true, runs, nruns);
	for (size_t w = 0; w < base->nworkloads; w++) {
		fputs("<h2>", html);
		markup_escape(html, base->workloads[w].name);
		fputs("</h2>\n", html);
		fwrite(pg->svg[w].text, 1, pg->svg[w].len, html);
	}
	fputs("</body></html>\n", html);
}

/*
 * compare-WORKLOAD.svg for each of the base run's workloads, then compare.html, in
 * out: each written aside and renamed (safefile_write), so a link or file planted
 * at those names in a shared directory is refused, never written through.
 */
static int compare_write_files(const char *out, struct compare_run *runs, size_t nruns,
                               const struct compare_row *rows, char *const *diff, struct error *err)
{
	const struct campaign *base = runs[0].rp.campaign;
	struct compare_blob *svg = xcalloc(base->nworkloads + 1, sizeof(*svg));
	struct compare_page pg = {runs, nruns, rows, diff, svg};
	int rc = 0;

	for (size_t w = 0; w < base->nworkloads; w++)
		svg[w] = compare_svg(runs, nruns, w);
	for (size_t w = 0; rc == 0 && w < base->nworkloads; w++) {
		char *name = xasprintf("compare-%s.svg", base->workloads[w].name);

		rc = safefile_write(out, name, compare_blob_write, &svg[w], err);
		free(name);
	}
	if (rc == 0)
		rc = safefile_write(out, "compare.html", compare_write, &pg, err);
	for (size_t w = 0; w < base->nworkloads; w++)
		free(svg[w].text);
	free(svg);
	return rc;
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
	if (b0 < 0 || b1 < 0)
		return "no knee to compare";
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
		compare_cell(&rows[w], compare_fmt(&c0->workloads[w], kn0, &r0, k0, b0).s);
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
			compare_cell(&rows[w],
			             compare_fmt(runs[r].rp.judged[i].w, kn, &rr, k, b).s);
			compare_cell(&rows[w], compare_change(k0, b0, k, b).s);
			compare_cell(&rows[w], compare_noise_text(kn0, &r0, kn, &rr, b0, b));
		}
	}
	return rows;
}

/* Each later run's setup against the base: what differs, or NULL. */
static char **compare_setups(struct compare_run *runs, size_t nruns)
{
	char **diff = xcalloc(nruns, sizeof(*diff));

	for (size_t r = 1; r < nruns; r++) {
		char buf[8192];

		if (setupdiff(runs[0].rp.campaign, runs[r].rp.campaign, buf, sizeof(buf)) > 0)
			diff[r] = xstrdup(buf);
	}
	return diff;
}

static json_t *compare_jnum(bool has, double v)
{
	return has && isfinite(v) ? json_real(round(v * 10) / 10) : json_null();
}

/* A kind's figures at the peak for compare --json: null where not measured. */
static json_t *compare_kind_json(const struct step_point *p, enum kinds_kind k)
{
	struct kinds_fig f;

	if (p == NULL || !p->mixed)
		return json_null();
	f = kinds_of(p, k);
	return json_pack("{s:o,s:o,s:o,s:o}", "ops", compare_jnum(true, f.ops_s), "mibps",
	                 f.known ? json_real(round(f.mib_s * 1000) / 1000) : json_null(), "mean_us",
	                 compare_jnum(f.known, f.mean_ns / 1e3), "p99_us",
	                 compare_jnum(f.known, (double)f.p99_ns / 1e3));
}

/* Sync writes at the peak for compare --json: null where the workload did not sync. */
static json_t *compare_sync_json(const struct step_point *p)
{
	if (p == NULL || !p->sync.on)
		return json_null();
	return json_pack("{s:o,s:o,s:o}", "ops", compare_jnum(true, p->sync.ops_s), "mean_us",
	                 compare_jnum(true, p->sync.mean_ns / 1e3), "p99_us",
	                 compare_jnum(true, (double)p->sync.p99_ns / 1e3));
}

static json_t *compare_jpct(bool has, double a, double b)
{
	double p = compare_pct(a, b);

	return has && isfinite(p) ? json_real(round(p * 10) / 10) : json_null();
}

/* compare's exit status: a breach before an undecided gate, both before 0. */
static int compare_status(size_t breaches, size_t undecided)
{
	return breaches ? CMPGATE_EXIT_BREACH : undecided ? CMPGATE_EXIT_UNDECIDED : 0;
}

/* The gate's end line on stderr: how many breached, how many could not decide. */
static void compare_gate_end(size_t breaches, size_t undecided)
{
	if (breaches)
		fprintf(stderr, "iocurve compare: %zu breach(es) of --fail-if", breaches);
	else if (undecided)
		fprintf(stderr, "iocurve compare: no --fail-if breached");
	else
		return;
	if (undecided)
		fprintf(stderr, ", %zu verdict(s) undecided (said above)", undecided);
	fprintf(stderr, " (exit %d)\n", compare_status(breaches, undecided));
}

/* One document: every workload with every run's figures and changes, the setup diffs, the gate. */
static json_t *compare_json(struct compare_run *runs, size_t nruns, char *const *diff,
                            json_t *jgate, size_t breaches, size_t undecided, size_t ngates)
{
	const struct campaign *c0 = runs[0].rp.campaign;
	json_t *jr = json_array(), *jw = json_array(), *jd = json_array();

	for (size_t r = 0; r < nruns; r++)
		json_array_append_new(jr, json_string(runs[r].dir));
	for (size_t w = 0; w < c0->nworkloads; w++) {
		const struct workload *wl = &c0->workloads[w];
		struct compare_fig f0 = compare_figures(&runs[0], wl->name);
		json_t *rs = json_array();

		for (size_t r = 0; r < nruns; r++) {
			struct compare_fig f = compare_figures(&runs[r], wl->name);
			json_t *o =
			    json_pack("{s:s,s:b}", "dir", runs[r].dir, "present", (int)f.present);
			double speed;

			if (f.present) {
				json_object_set_new(o, "knee", compare_jnum(f.bound >= 0, f.knee));
				json_object_set_new(o, "knee_lower_bound",
				                    json_boolean(f.bound > 0));
				json_object_set_new(o, "knee_band",
				                    f.band ? json_pack("[o,o]",
				                                       compare_jnum(true, f.lo),
				                                       compare_jnum(true, f.hi))
				                           : json_null());
				json_object_set_new(o, "knee_repeats",
				                    json_integer((json_int_t)f.r.n));
				json_object_set_new(
				    o, "knee_text",
				    json_string(compare_fmt(f.w, f.k, &f.r, f.knee, f.bound).s));
				/* a replay's knee as a speed of the run's own trace; null otherwise
				 */
				speed = curve_speed(f.w, f.knee);
				json_object_set_new(o, "knee_speed",
				                    f.bound >= 0 && isfinite(speed)
				                        ? json_real(round(speed * 1000) / 1000)
				                        : json_null());
				json_object_set_new(o, "peak", compare_jnum(f.has_peak, f.peak));
				json_object_set_new(o, "sustained", compare_jnum(f.has_sus, f.sus));
				json_object_set_new(o, "sustained_latency_us",
				                    compare_jnum(f.has_sus, f.sus_lat_ns / 1e3));
				json_object_set_new(o, "max", compare_jnum(f.has_max, f.max));
				if (f.storm_run) {
					json_object_set_new(o, "storm_s",
					                    compare_jnum(f.has_storm, f.storm_s));
					json_object_set_new(
					    o, "storm_worker_p90_s",
					    compare_jnum(f.has_storm, f.worker_p90_s));
				}
				/* read and write apart at the peak: a mixed workload's only */
				if (agg_mixed(wl)) {
					const struct step_point *pk =
					    compare_peak(&runs[r], wl->name);

					json_object_set_new(o, "read_at_peak",
					                    compare_kind_json(pk, KINDS_READ));
					json_object_set_new(o, "write_at_peak",
					                    compare_kind_json(pk, KINDS_WRITE));
				}
				/* a mix's parts at the knee's step (else the peak): a mix's only */
				if (wl->io.mix.nparts > 0)
					json_object_set_new(o, "parts_at_knee",
					                    compare_parts_json(&runs[r], wl->name));
				/* sync writes at the peak: a syncing workload's only */
				if (wl->io.fsync != 0 || wl->io.fdatasync != 0)
					json_object_set_new(
					    o, "sync_at_peak",
					    compare_sync_json(compare_peak(&runs[r], wl->name)));
				/* the kernel's view at the peak, as curve-*.json has it */
				if (compare_peak(&runs[r], wl->name) != NULL)
					json_object_set_new(
					    o, "kernel_at_peak",
					    stepjson_kernel(compare_peak(&runs[r], wl->name)));
			}
			if (r > 0 && f.present) {
				json_t *ch = json_object();

				json_object_set_new(ch, "knee_pct",
				                    compare_jpct(f0.bound >= 0 && f.bound >= 0 &&
				                                     !(f0.bound > 0 && f.bound > 0),
				                                 f0.knee, f.knee));
				json_object_set_new(
				    ch, "knee_change",
				    json_string(
				        compare_change(f0.knee, f0.bound, f.knee, f.bound).s));
				json_object_set_new(
				    ch, "knee_noise",
				    json_string(compare_noise_text(f0.k, &f0.r, f.k, &f.r, f0.bound,
				                                   f.bound)));
				json_object_set_new(
				    ch, "peak_pct",
				    compare_jpct(f0.has_peak && f.has_peak, f0.peak, f.peak));
				json_object_set_new(
				    ch, "sustained_pct",
				    compare_jpct(f0.has_sus && f.has_sus, f0.sus, f.sus));
				json_object_set_new(
				    ch, "max_pct",
				    compare_jpct(f0.has_max && f.has_max, f0.max, f.max));
				if (wl->io.mix.nparts > 0)
					json_object_set_new(ch, "parts",
					                    compare_parts_change_json(
					                        &runs[0], &runs[r], wl->name));
				json_object_set_new(o, "change", ch);
			}
			json_array_append_new(rs, o);
		}
		json_array_append_new(jw, json_pack("{s:s,s:s,s:o}", "name", wl->name, "unit",
		                                    curve_uses_mib(wl) ? "MiB/s" : "ops/s", "runs",
		                                    rs));
	}
	for (size_t r = 1; r < nruns; r++) {
		json_t *items = json_array();

		for (char *p = diff[r]; p != NULL && *p;) {
			char *e = strstr(p, "; ");
			size_t n = e ? (size_t)(e - p) : strlen(p);

			json_array_append_new(items, json_stringn(p, n));
			p = e ? e + 2 : p + n;
		}
		json_array_append_new(jd, json_pack("{s:s,s:s,s:o}", "run", runs[r].dir, "base",
		                                    runs[0].dir, "differences", items));
	}
	return json_pack("{s:i,s:o,s:s,s:o,s:o,s:{s:i,s:b,s:I,s:I,s:o}}", "format", 1, "runs", jr,
	                 "slo_metric", campaign_slo_metric_name(c0->slo_metric), "workloads", jw,
	                 "setup_diff", jd, "gate", "exit_status",
	                 compare_status(breaches, undecided), "breached", (int)(breaches > 0),
	                 "undecided", (json_int_t)undecided, "expressions", (json_int_t)ngates,
	                 "results", json_incref(jgate));
}

/* Every --fail-if given (args keeps only the last value of an option). */
static size_t compare_parse_gates(const struct args *a, struct cmpgate *gates, size_t max, int *bad)
{
	size_t n = 0;

	*bad = 0;
	for (int i = 1; i < a->argc && n < max; i++) {
		const char *v = NULL;

		if (strcmp(a->argv[i], "--") == 0)
			break;
		if (strcmp(a->argv[i], "--fail-if") == 0 && i + 1 < a->argc)
			v = a->argv[++i];
		else if (strncmp(a->argv[i], "--fail-if=", 10) == 0)
			v = a->argv[i] + 10;
		if (v == NULL)
			continue;
		{
			char why[512];

			if (cmpgate_parse(v, &gates[n], why, sizeof(why)) < 0) {
				fprintf(stderr, "iocurve compare: --fail-if %s\n", why);
				*bad = 1;
				return n;
			}
			n++;
		}
	}
	return n;
}

#define COMPARE_MAX_GATES 32

static int compare_exec(const struct args *a)
{
	struct compare_run *runs;
	const char *out = args_get(a, "out");
	bool json = args_has(a, "json"), table = args_has(a, "table");
	struct cmpgate gates[COMPARE_MAX_GATES];
	size_t ngates, breaches = 0, undecided = 0;
	char outbuf[64];
	struct error err;
	size_t nruns;
	int rc = 1, bad;
	struct compare_row *rows = NULL;
	char **diff = NULL;
	json_t *jgate = json_array();

	nruns = (size_t)a->noperands;
	if (nruns > COMPARE_MAX_RUNS) {
		fprintf(stderr, "iocurve compare: %zu runs; at most %d in one table\n", nruns,
		        COMPARE_MAX_RUNS);
		json_decref(jgate);
		return 2;
	}
	ngates = compare_parse_gates(a, gates, COMPARE_MAX_GATES, &bad);
	if (bad) {
		json_decref(jgate);
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
	if (compare_write_files(out, runs, nruns, rows, diff, &err) < 0) {
		fprintf(stderr, "iocurve compare: %s\n", err.msg);
		goto done;
	}
	if (json) {
		breaches = compare_gates(gates, ngates, runs, nruns, jgate, false, &undecided);
		json_t *doc = compare_json(runs, nruns, diff, jgate, breaches, undecided, ngates);

		json_dumpf(doc, stdout, JSON_INDENT(2) | JSON_PRESERVE_ORDER);
		fputc('\n', stdout);
		json_decref(doc);
		compare_gate_end(breaches, undecided);
		rc = compare_status(breaches, undecided);
		goto done;
	}
	if (table) {
		compare_print_table(runs, nruns);
	} else {
		/* The knee of each later run against the first, in %, and whether beyond the noise.
		 */
		printf("| Workload | %s |", runs[0].dir);
		compare_md_head(stdout, runs, nruns, 1, " change | noise |", "|---|---:|",
		                "---:|---:|---|");
		for (size_t w = 0; w < runs[0].rp.campaign->nworkloads; w++) {
			printf("|");
			for (size_t k = 0; k < rows[w].n; k++)
				printf(" %s |", rows[w].cells[k]);
			printf("\n");
		}
		compare_print_figures(stdout, false, runs, nruns);
		printf("\nknees in %s, each with its 95%% band (with repeats: their mean, the band "
		       "joined with the t-based 95%% interval of the mean; > a lower bound: every "
		       "step met the SLO); a change is beyond noise when the two bands do not "
		       "overlap (docs/methodology.md); peak the best step valid or not, sustained "
		       "the best valid step with its %s latency, max the best closed-loop step; "
		       "curves overlaid in %s/compare.html\n",
		       "ops/s (random) or MiB/s (sequential)",
		       campaign_slo_metric_name(runs[0].rp.campaign->slo_metric), out);
	}
	for (size_t r = 1; r < nruns; r++)
		if (diff[r] != NULL)
			printf("warning: setups differ, %s against %s: %s\n", runs[r].dir,
			       runs[0].dir, diff[r]);
	breaches = compare_gates(gates, ngates, runs, nruns, jgate, true, &undecided);
	compare_gate_end(breaches, undecided);
	rc = compare_status(breaches, undecided);
done:
	json_decref(jgate);
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
    {"json", 'j', NULL, "one JSON document on stdout: every figure, change, setup diff, gate",
     false},
    {"table", 't', NULL, "the runs as columns: knee with band, peak, sustained per workload",
     false},
    {"fail-if", 0, "EXPR",
     "exit 4 if a change passes EXPR ('knee < -5%'), 6 if undecided; repeatable", false},
    {NULL},
};

const struct cmd_entry cmd_compare_entry = {
    .args =
        {
            .name = "compare",
            .operands = "DIR DIR [DIR...]",
            .help = "overlay the curves of several runs (the first is the base) and print each "
                    "knee's change",
            .more = "--fail-if 'FIGURE OP CHANGE% [beyond noise]': FIGURE knee, peak, sustained,\n"
                    "latency@RATE (the SLO metric at the step offered RATE ops/s) or storm,\n"
                    "OP < <= > >=. The change at the estimates decides: past the threshold\n"
                    "is a breach. A lower bound (> 8,000: every step met the SLO) counts\n"
                    "where it is sure (a base's can only make a fall larger); where it\n"
                    "leaves the answer open (both lower bounds) the gate is undecided.\n"
                    "'beyond noise' (knee, latency@RATE) also asks that the two 95%\n"
                    "intervals do not overlap: overlapping is within noise, a pass; a\n"
                    "figure without one (a lower bound) leaves it undecided.\n"
                    "Exit status: 0 compared, 1 a results directory unreadable, 2 usage or a\n"
                    "bad --fail-if, 4 a --fail-if breached, 6 none breached but one could\n"
                    "not decide (said on stderr).\n",
            .options = compare_options,
            .min_operands = 2,
            .max_operands = -1,
        },
    .exec = compare_exec,
};
