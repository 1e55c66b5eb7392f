/* SPDX-License-Identifier: MIT */
/* iocurve compare: a mix's parts at each run's knee, a row per part with its change. */
#include <math.h>
#include <stdio.h>

#include "compare.h"
#include "mixparts.h"

/* Run's step of workload name its parts are given at, its workload and the part's index. */
static const struct step_point *compare_part_at(const struct compare_run *run, const char *name,
                                                const char *part, bool *at_knee, int *k)
{
	ssize_t w = compare_find(run->rp.campaign, name);
	const struct step_point *p;

	*k = -1;
	*at_knee = false;
	if (w < 0)
		return NULL;
	p = mixparts_step(&run->rp.judged[w], at_knee);
	if (p != NULL && part != NULL)
		*k = mix_part_find(&run->rp.campaign->workloads[w].io.mix, part);
	return p;
}

static const struct point_part *compare_part(const struct compare_run *run, const char *name,
                                             const char *part)
{
	bool at_knee;
	int k;
	const struct step_point *p = compare_part_at(run, name, part, &at_knee, &k);

	return p != NULL && k >= 0 && (uint32_t)k < p->nparts ? &p->parts[k] : NULL;
}

void compare_print_parts(FILE *f, bool html, struct compare_run *runs, size_t nruns,
                         const char *name)
{
	ssize_t w0 = compare_find(runs[0].rp.campaign, name);
	const struct mix *m;

	if (w0 < 0)
		return;
	m = &runs[0].rp.campaign->workloads[w0].io.mix;
	for (uint32_t i = 0; i < m->nparts; i++) {
		const struct point_part *b = compare_part(&runs[0], name, m->parts[i].name);
		char what[64], cell[128];
		bool at_knee;
		int k;

		compare_part_at(&runs[0], name, NULL, &at_knee, &k);
		snprintf(what, sizeof(what), "part %s at %s", m->parts[i].name,
		         at_knee ? "knee" : "peak");
		fputs(html ? "<tr>" : "|", f);
		compare_fig_cell(f, html, true, name);
		compare_fig_cell(f, html, true, what);
		for (size_t r = 0; r < nruns; r++) {
			const struct point_part *pp =
			    compare_part(&runs[r], name, m->parts[i].name);

			if (pp == NULL)
				snprintf(cell, sizeof(cell), "-");
			else
				snprintf(cell, sizeof(cell), "%s ops/s, mean %.1f us",
				         compare_num(pp->ops_s).s, pp->mean_ns / 1e3);
			compare_fig_cell(f, html, false, cell);
			if (r == 0)
				continue;
			if (pp != NULL && b != NULL && b->ops_s > 0 && b->mean_ns > 0)
				snprintf(cell, sizeof(cell), "%+.1f%% ops/s, %+.1f%% mean",
				         compare_pct(b->ops_s, pp->ops_s),
				         compare_pct(b->mean_ns, pp->mean_ns));
			else
				snprintf(cell, sizeof(cell), "n/a");
			compare_fig_cell(f, html, false, cell);
		}
		fputs(html ? "</tr>\n" : "\n", f);
	}
}

/* v rounded to 1/scale, null when not a number. */
static json_t *compare_parts_num(double v, double scale)
{
	return isfinite(v) ? json_real(round(v * scale) / scale) : json_null();
}

json_t *compare_parts_json(const struct compare_run *run, const char *name)
{
	ssize_t w = compare_find(run->rp.campaign, name);
	const struct mix *m;
	const struct step_point *p;
	json_t *a;
	bool at_knee;
	int k;

	if (w < 0 || (p = compare_part_at(run, name, NULL, &at_knee, &k)) == NULL)
		return json_null();
	m = &run->rp.campaign->workloads[w].io.mix;
	a = json_array();
	for (uint32_t i = 0; i < m->nparts && i < p->nparts; i++) {
		const struct point_part *pp = &p->parts[i];

		json_array_append_new(a,
		                      json_pack("{s:s,s:o,s:o,s:o,s:o}", "name", m->parts[i].name,
		                                "ops", compare_parts_num(pp->ops_s, 10), "mibps",
		                                compare_parts_num(pp->mib_s, 1000), "mean_us",
		                                compare_parts_num(pp->mean_ns / 1e3, 10), "p99_us",
		                                compare_parts_num((double)pp->p99_ns / 1e3, 10)));
	}
	return json_pack("{s:I,s:s,s:o}", "step", (json_int_t)p->step + 1, "at",
	                 at_knee ? "knee" : "peak", "parts", a);
}

json_t *compare_parts_change_json(const struct compare_run *base, const struct compare_run *run,
                                  const char *name)
{
	ssize_t w = compare_find(base->rp.campaign, name);
	const struct mix *m;
	json_t *a;

	if (w < 0)
		return json_null();
	m = &base->rp.campaign->workloads[w].io.mix;
	a = json_array();
	for (uint32_t i = 0; i < m->nparts; i++) {
		const struct point_part *b = compare_part(base, name, m->parts[i].name);
		const struct point_part *pp = compare_part(run, name, m->parts[i].name);
		bool has = b != NULL && pp != NULL;

		json_array_append_new(
		    a, json_pack("{s:s,s:o,s:o}", "name", m->parts[i].name, "ops_pct",
		                 has ? compare_parts_num(compare_pct(b->ops_s, pp->ops_s), 10)
		                     : json_null(),
		                 "mean_pct",
		                 has ? compare_parts_num(compare_pct(b->mean_ns, pp->mean_ns), 10)
		                     : json_null()));
	}
	return a;
}
