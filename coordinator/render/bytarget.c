/* SPDX-License-Identifier: MIT */
/* The side-by-side table: tests as rows, targets as columns, knee, peak and sustained per cell. */
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

static void bytarget_tp(const struct workload *w, double v, char *buf, size_t len)
{
	if (curve_uses_mib(w))
		snprintf(buf, len, "%.1f MiB/s", v);
	else
		snprintf(buf, len, "%.0f ops/s", v);
}

/*
 * "knee 41300 ops/s, 95% band 40000-42500; peak 55080 ops/s; sustained 41000
 * ops/s at 702us mean", what limited it when the knee is short (none, or a
 * lower bound), and a closed-loop test's peak alone.
 */
static void bytarget_cell(const struct judged_curve *j, char *buf, size_t len)
{
	const struct knee *k = &j->knee;
	char knee[192], peak[48], sus[96], lat[16];
	size_t used;

	if (j->n == 0) {
		snprintf(buf, len, "not run");
		return;
	}
	bytarget_tp(j->w, j->peak_tp, peak, sizeof(peak));
	if (k->kind == KNEE_NONE) {
		snprintf(buf, len, "peak %s (closed loop)", peak);
		return;
	}
	table_knee_cell(j, knee, sizeof(knee));
	snprintf(sus, sizeof(sus), "no valid step");
	if (j->sustained != NULL) {
		bytarget_tp(j->w, j->v[j->sustained - j->sorted].tp, sus, sizeof(sus));
		units_format_duration((uint64_t)step_metric(j->sustained, j->c->slo_metric), lat,
		                      sizeof(lat));
		used = strlen(sus);
		snprintf(sus + used, sizeof(sus) - used, " at %s %s", lat,
		         campaign_slo_metric_name(j->c->slo_metric));
	}
	snprintf(buf, len, "knee %s; peak %s; sustained %s", knee, peak, sus);
	used = strlen(buf);
	if ((k->kind == KNEE_ALL_OVER || j->client_bound > 0) && j->limit[0] && used < len) {
		/* its words before the detail: "client-bound", "client queue depth" */
		size_t n = strcspn(j->limit, ":(");

		while (n > 0 && j->limit[n - 1] == ' ')
			n--;
		snprintf(buf + used, len - used, " (limited: %.*s)", (int)n, j->limit);
	}
	/* the separator of markdown cells never appears inside one */
	for (char *p = buf; *p; p++)
		if (*p == '|')
			*p = '/';
}

void bytarget_print(FILE *f, const struct campaign *c, const struct judged_curve *judged)
{
	char slo[32], cell[512];

	if (!bytarget_shown(c))
		return;
	units_format_duration(c->slo_latency_ns, slo, sizeof(slo));
	fprintf(f,
	        "By target: the knee (performance @ %s %s, with its 95%% band), the peak "
	        "(capacity) and the sustained figure (highest valid step) of each test on "
	        "each target\n\n",
	        slo, campaign_slo_metric_name(c->slo_metric));
	fputs("| Test |", f);
	for (size_t t = 0; t < c->ntargets; t++)
		fprintf(f, " %s |", c->targets[t].name);
	fputs("\n|---|", f);
	for (size_t t = 0; t < c->ntargets; t++)
		fputs("---:|", f);
	fputc('\n', f);
	for (size_t i = 0; i < c->nworkloads; i++) {
		const char *test = bytarget_test(&c->workloads[i]);

		if (!bytarget_first(c, i))
			continue;
		fprintf(f, "| %s |", test);
		for (size_t t = 0; t < c->ntargets; t++) {
			long w = bytarget_find(c, test, t);

			if (w < 0)
				snprintf(cell, sizeof(cell), "-");
			else
				bytarget_cell(&judged[w], cell, sizeof(cell));
			fprintf(f, " %s |", cell);
		}
		fputc('\n', f);
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
