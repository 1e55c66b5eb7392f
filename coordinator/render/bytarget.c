/* SPDX-License-Identifier: MIT */
/* The side-by-side table: tests' figures as rows, targets as columns, one figure a cell. */
#include <stdlib.h>
#include <string.h>

#include "bytarget.h"
#include "table.h"
#include "units.h"
#include "xalloc.h"

/* The keys of a workload in summary.json a cell repeats, in this order. */
static const char *const bytarget_keys[] = {
    "knee_ops", "knee_mibps", "knee_kind",     "knee_band",       "knee_lower_bound",
    "peak_ops", "peak_mibps", "sustained_ops", "sustained_mibps", "sustained_latency_us",
    "limit",    NULL};

bool bytarget_shown(const struct campaign *c)
{
	return c->multi_target && c->ntargets >= 2;
}

static const char *bytarget_test(const struct workload *w)
{
	return w->test != NULL ? w->test : w->name;
}

/* Whether workload i is the first of its test: the tests in the order written. */
static bool bytarget_first(const struct campaign *c, size_t i)
{
	for (size_t k = 0; k < i; k++)
		if (strcmp(bytarget_test(&c->workloads[k]), bytarget_test(&c->workloads[i])) == 0)
			return false;
	return true;
}

/* The workload of test on target t, or -1 when the test does not run there. */
static long bytarget_find(const struct campaign *c, const char *test, size_t t)
{
	for (size_t i = 0; i < c->nworkloads; i++)
		if (c->workloads[i].target == t &&
		    strcmp(bytarget_test(&c->workloads[i]), test) == 0)
			return (long)i;
	return -1;
}

/* The figures of the table, one row each per test: a cell is one figure or one word. */
enum bytarget_fig { BT_KNEE, BT_BAND, BT_PEAK, BT_SUSTAINED, BT_LIMIT, BT_NFIGS };

static const char *const bytarget_fig_names[BT_NFIGS] = {"knee", "95% band", "peak", "sustained",
                                                         "limit"};

static void bytarget_cell(const struct judged_curve *j, enum bytarget_fig fig, char *buf,
                          size_t len)
{
	struct table_cells t;
	const char *v;

	if (j->n == 0) {
		snprintf(buf, len, "%s", fig == BT_KNEE ? "not run" : "-");
		return;
	}
	table_summary_cells(j, &t);
	v = fig == BT_KNEE        ? t.knee
	    : fig == BT_BAND      ? t.band
	    : fig == BT_PEAK      ? t.peak
	    : fig == BT_SUSTAINED ? t.sus
	                          : t.limit;
	snprintf(buf, len, "%s", v);
	/* the separator of markdown cells never appears inside one */
	for (char *p = buf; *p; p++)
		if (*p == '|')
			*p = '/';
}

void bytarget_print(FILE *f, const struct campaign *c, const struct judged_curve *judged)
{
	char slo[32], metric[32], cell[128];

	if (!bytarget_shown(c))
		return;
	units_format_duration(c->slo_latency_ns, slo, sizeof(slo));
	fprintf(f,
	        "By target: each test on each target, the knee (performance @ %s %s), its 95%% "
	        "band, the peak, the sustained rate (highest valid step) and what limited it\n\n",
	        slo, campaign_slo_label(c, metric, sizeof(metric)));
	fputs("| Test | Figure |", f);
	for (size_t t = 0; t < c->ntargets; t++)
		fprintf(f, " %s |", c->targets[t].name);
	fputs("\n|---|---|", f);
	for (size_t t = 0; t < c->ntargets; t++)
		fputs("---:|", f);
	fputc('\n', f);
	for (size_t i = 0; i < c->nworkloads; i++) {
		const char *test = bytarget_test(&c->workloads[i]);

		if (!bytarget_first(c, i))
			continue;
		for (int fig = 0; fig < BT_NFIGS; fig++) {
			fprintf(f, "| %s | %s |", test, bytarget_fig_names[fig]);
			for (size_t t = 0; t < c->ntargets; t++) {
				long w = bytarget_find(c, test, t);

				if (w < 0)
					snprintf(cell, sizeof(cell), "-");
				else
					bytarget_cell(&judged[w], (enum bytarget_fig)fig, cell,
					              sizeof(cell));
				fprintf(f, " %s |", cell);
			}
			fputc('\n', f);
		}
	}
}

/* A cell of by_target: the pair's workload and its figures, as ws has them. */
static json_t *bytarget_cell_json(const struct workload *w, json_t *wo)
{
	json_t *o = json_object();

	if (o == NULL)
		return json_null();
	json_object_set_new(o, "workload", json_string(w->name));
	for (size_t k = 0; bytarget_keys[k] != NULL; k++) {
		json_t *v = json_object_get(wo, bytarget_keys[k]);

		if (v != NULL)
			json_object_set(o, bytarget_keys[k], v);
	}
	return o;
}

json_t *bytarget_json(const struct campaign *c, json_t *ws)
{
	json_t *o, *targets, *rows;

	if (!bytarget_shown(c))
		return NULL;
	o = json_object();
	targets = json_array();
	rows = json_array();
	if (o == NULL || targets == NULL || rows == NULL) {
		json_decref(o);
		json_decref(targets);
		json_decref(rows);
		return NULL;
	}
	for (size_t t = 0; t < c->ntargets; t++)
		json_array_append_new(targets, json_string(c->targets[t].name));
	for (size_t i = 0; i < c->nworkloads; i++) {
		const char *test = bytarget_test(&c->workloads[i]);
		json_t *cells = json_object();

		if (!bytarget_first(c, i) || cells == NULL) {
			json_decref(cells);
			continue;
		}
		for (size_t t = 0; t < c->ntargets; t++) {
			long w = bytarget_find(c, test, t);

			json_object_set_new(
			    cells, c->targets[t].name,
			    w < 0 ? json_null()
			          : bytarget_cell_json(&c->workloads[w],
			                               json_array_get(ws, (size_t)w)));
		}
		json_array_append_new(rows, json_pack("{s:s,s:o}", "test", test, "cells", cells));
	}
	json_object_set_new(o, "targets", targets);
	json_object_set_new(o, "rows", rows);
	return o;
}
